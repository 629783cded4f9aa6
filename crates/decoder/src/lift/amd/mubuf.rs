//! Buffer memory (MUBUF) through the V# in SRSRC: untyped loads and stores of 8, 16 and 32 bits
//! and of 2 to 4 dwords (one IR buffer op per dword: the range check applies to each), the
//! 16-bit forms that write or read one half of a VGPR (`d16`, `d16_hi`), formatted loads and
//! stores in the descriptor's format (`*_format_*`, the typed forms of `mtbuf.rs` share the
//! code), and atomics (32 and 64 bits, compare-and-swap, float min/max). Addressing: the
//! immediate offset, `offen` / `idxen`, `soffset`; the lanes under EXEC take part. `glc` makes
//! an atomic return the pre-op value; otherwise glc, slc and dlc are cache policy, with no
//! effect on what one wave reads. The L0 / L1 cache invalidations lift to device-scope fences.

use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::Operand;
use isabridge_ir::ops::buffer::{BufferKind, BufferOp};
use isabridge_ir::ops::control::SyncOp;
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::format::Format;
use isabridge_ir::ops::mem::{AtomicKind, Scope};
use isabridge_ir::ops::Op;
use isabridge_ir::{Scalar, Type, Value};

/// Which part of a VGPR a 16-bit access uses.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Half {
    /// The whole register (32-bit values).
    Full,
    /// 16-bit values from the low half up (packed two to a register).
    Lo,
    /// One 16-bit value in the high half.
    Hi,
}

/// Lift a buffer instruction; None when `name` is not one.
pub(super) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    if matches!(name, "BUFFER_GL0_INV" | "BUFFER_GL1_INV") {
        cx.b().ins(Op::Sync(SyncOp::Fence(Scope::Device)), &[], None);
        return Some(Ok(()));
    }
    let rest = name.strip_prefix("BUFFER_")?;
    if let Some(r) = format_form(cx, at, rest, None) {
        return Some(r);
    }
    if let Some(a) = rest.strip_prefix("ATOMIC_") {
        let (op, wide) = match a.strip_suffix("_X2") {
            Some(op) => (op, true),
            None => (a, false),
        };
        let kind = match op {
            "FMIN" => AtomicKind::FMin,
            "FMAX" => AtomicKind::FMax,
            _ => match super::int_atomic_kind(op) {
                Some(k) => k,
                None => return Some(Err(cx.unsupported(at, "buffer atomic kind"))),
            },
        };
        return Some(atomic(cx, at, kind, wide));
    }
    let (load, bytes, ext, half, words) = match rest {
        "LOAD_UBYTE" => (true, 1, Some(false), Half::Full, 1),
        "LOAD_SBYTE" => (true, 1, Some(true), Half::Full, 1),
        "LOAD_USHORT" => (true, 2, Some(false), Half::Full, 1),
        "LOAD_SSHORT" => (true, 2, Some(true), Half::Full, 1),
        "LOAD_UBYTE_D16" => (true, 1, Some(false), Half::Lo, 1),
        "LOAD_UBYTE_D16_HI" => (true, 1, Some(false), Half::Hi, 1),
        "LOAD_SBYTE_D16" => (true, 1, Some(true), Half::Lo, 1),
        "LOAD_SBYTE_D16_HI" => (true, 1, Some(true), Half::Hi, 1),
        "LOAD_SHORT_D16" => (true, 2, None, Half::Lo, 1),
        "LOAD_SHORT_D16_HI" => (true, 2, None, Half::Hi, 1),
        "LOAD_DWORD" => (true, 4, None, Half::Full, 1),
        "LOAD_DWORDX2" => (true, 4, None, Half::Full, 2),
        "LOAD_DWORDX3" => (true, 4, None, Half::Full, 3),
        "LOAD_DWORDX4" => (true, 4, None, Half::Full, 4),
        "STORE_BYTE" => (false, 1, None, Half::Full, 1),
        "STORE_BYTE_D16_HI" => (false, 1, None, Half::Hi, 1),
        "STORE_SHORT" => (false, 2, None, Half::Full, 1),
        "STORE_SHORT_D16_HI" => (false, 2, None, Half::Hi, 1),
        "STORE_DWORD" => (false, 4, None, Half::Full, 1),
        "STORE_DWORDX2" => (false, 4, None, Half::Full, 2),
        "STORE_DWORDX3" => (false, 4, None, Half::Full, 3),
        "STORE_DWORDX4" => (false, 4, None, Half::Full, 4),
        _ => return None,
    };
    Some(if load { load_untyped(cx, at, bytes, ext, half, words) } else { store_untyped(cx, at, bytes, half, words) })
}

/// A formatted form named `rest` (after `BUFFER_` / `TBUFFER_`): `LOAD_FORMAT_XY`,
/// `STORE_FORMAT_D16_XYZW`, `LOAD_FORMAT_D16_HI_X`; `format` None reads the descriptor's.
pub(super) fn format_form(cx: &mut Cx, at: &At, rest: &str, format: Option<Format>) -> Option<Result<(), LiftError>> {
    let (load, r) = match (rest.strip_prefix("LOAD_FORMAT_"), rest.strip_prefix("STORE_FORMAT_")) {
        (Some(r), _) => (true, r),
        (_, Some(r)) => (false, r),
        _ => return None,
    };
    let (half, r) = match (r.strip_prefix("D16_HI_"), r.strip_prefix("D16_")) {
        (Some(r), _) => (Half::Hi, r),
        (_, Some(r)) => (Half::Lo, r),
        _ => (Half::Full, r),
    };
    let comps = match r {
        "X" => 1,
        "XY" => 2,
        "XYZ" => 3,
        "XYZW" => 4,
        _ => return None,
    };
    if half == Half::Hi && comps != 1 {
        return None;
    }
    Some(formatted(cx, at, format, comps, load, half))
}

/// The operands every buffer op starts with, and its addressing bits.
struct Addr {
    args: Vec<Value>,
    offset: u32,
    idxen: bool,
    offen: bool,
    exec: Value,
}

impl Addr {
    fn new(cx: &mut Cx, at: &At) -> Result<Addr, LiftError> {
        let rsrc = at.field("SRSRC").copied().ok_or_else(|| cx.unsupported(at, "buffer descriptor operand missing"))?;
        let soff = at.field("SOFFSET").copied().ok_or_else(|| cx.unsupported(at, "buffer soffset operand missing"))?;
        let vaddr = at.field("VADDR").copied();
        let offen = at.inst.named("OFFEN").unwrap_or(0) != 0;
        let idxen = at.inst.named("IDXEN").unwrap_or(0) != 0;
        let offset = at.inst.named("OFFSET").unwrap_or(0) as u32;
        if at.inst.named("LDS").unwrap_or(0) != 0 || at.inst.named("TFE").unwrap_or(0) != 0 {
            return Err(cx.unsupported(at, "LDS and TFE buffer forms"));
        }
        let mut args = Vec::with_capacity(12);
        for k in 0..4 {
            args.push(cx.src32(at, &rsrc, k)?);
        }
        if cx.isa == crate::Isa::Gfx1201 {
            super::gfx12_mem::vsharp_as_gfx10(cx, &mut args);
        }
        let zero = cx.k32(0);
        let (index, voff) = match (idxen, offen, vaddr) {
            (true, true, Some(v)) => (cx.src32(at, &v, 0)?, cx.src32(at, &v, 1)?),
            (true, false, Some(v)) => (cx.src32(at, &v, 0)?, zero),
            (false, true, Some(v)) => (zero, cx.src32(at, &v, 0)?),
            _ => (zero, zero),
        };
        args.extend([index, voff, cx.src32(at, &soff, 0)?]);
        let exec = cx.exec();
        Ok(Addr { args, offset, idxen, offen, exec })
    }

    /// One buffer op at `extra` bytes past the immediate offset, with data operands `data`.
    fn op(&self, cx: &mut Cx, kind: BufferKind, bytes: u8, extra: u32, data: &[Value], ty: Option<Type>) -> Value {
        let bo = BufferOp { kind, bytes, offset: self.offset.wrapping_add(extra), idxen: self.idxen, offen: self.offen };
        let mut a = self.args.clone();
        a.extend_from_slice(data);
        a.push(self.exec);
        cx.b().ins(Op::Buffer(bo), &a, ty)
    }
}

fn vdata(cx: &Cx, at: &At) -> Result<Operand, LiftError> {
    at.field("VDATA").copied().ok_or_else(|| cx.unsupported(at, "buffer data operand missing"))
}

/// Half `hi` of dword `k` of a VGPR operand, as i16.
pub(super) fn read_half(cx: &mut Cx, at: &At, op: &Operand, k: u16, hi: bool) -> Result<Value, LiftError> {
    let v = cx.src32(at, op, k)?;
    let p = cx.b().bitcast(Type::V(Scalar::I16, 2), v);
    Ok(cx.b().extract(Type::I16, p, hi as u8))
}

/// Write i16 `v` into half `hi` of dword `k` of a VGPR operand under `mask`, keeping the other half.
pub(super) fn write_half(cx: &mut Cx, at: &At, op: &Operand, k: u16, hi: bool, v: Value, mask: Value) -> Result<(), LiftError> {
    let old = cx.src32(at, op, k)?;
    let p = cx.b().bitcast(Type::V(Scalar::I16, 2), old);
    let p = cx.b().ins(Op::Insert(hi as u8), &[p, v], Some(Type::V(Scalar::I16, 2)));
    let w = cx.b().bitcast(Type::I32, p);
    cx.def_v32(at, op, k, w, mask)
}

/// Zero- or sign-extend (or truncate) an integer to `ty`.
pub(super) fn resize(cx: &mut Cx, v: Value, signed: bool, ty: Type) -> Value {
    cx.b().conv(ConvOp::IToI { signed }, ty, v)
}

fn int_ty(bytes: u8) -> Type {
    match bytes {
        1 => Type::I8,
        2 => Type::I16,
        _ => Type::I32,
    }
}

fn load_untyped(cx: &mut Cx, at: &At, bytes: u8, ext: Option<bool>, half: Half, words: u16) -> Result<(), LiftError> {
    let data = vdata(cx, at)?;
    let a = Addr::new(cx, at)?;
    for k in 0..words {
        let r = a.op(cx, BufferKind::Load, bytes, 4 * k as u32, &[], Some(int_ty(bytes)));
        let signed = ext.unwrap_or(false);
        match half {
            Half::Full => {
                let v = if bytes < 4 { resize(cx, r, signed, Type::I32) } else { r };
                cx.def_v32(at, &data, k, v, a.exec)?;
            }
            Half::Lo | Half::Hi => {
                let v = if bytes < 2 { resize(cx, r, signed, Type::I16) } else { r };
                write_half(cx, at, &data, k, half == Half::Hi, v, a.exec)?;
            }
        }
    }
    Ok(())
}

fn store_untyped(cx: &mut Cx, at: &At, bytes: u8, half: Half, words: u16) -> Result<(), LiftError> {
    let data = vdata(cx, at)?;
    let a = Addr::new(cx, at)?;
    for k in 0..words {
        let v = match half {
            Half::Hi => read_half(cx, at, &data, k, true)?,
            _ => cx.src32(at, &data, k)?,
        };
        let v = if int_ty(bytes) != if half == Half::Hi { Type::I16 } else { Type::I32 } {
            resize(cx, v, false, int_ty(bytes))
        } else {
            v
        };
        a.op(cx, BufferKind::Store, bytes, 4 * k as u32, &[v], None);
    }
    Ok(())
}

pub(super) fn atomic(cx: &mut Cx, at: &At, kind: AtomicKind, wide: bool) -> Result<(), LiftError> {
    let data = vdata(cx, at)?;
    let a = Addr::new(cx, at)?;
    let glc = at.inst.named("GLC").unwrap_or(0) != 0;
    let w: u16 = if wide { 2 } else { 1 };
    let value = |cx: &mut Cx, k: u16| -> Result<Value, LiftError> {
        if wide {
            let lo = cx.src32(at, &data, k)?;
            let hi = cx.src32(at, &data, k + 1)?;
            Ok(cx.join64(lo, hi))
        } else {
            cx.src32(at, &data, k)
        }
    };
    // Compare-and-swap data: the new value first, then the compare value.
    let src = value(cx, 0)?;
    let operands = if kind == AtomicKind::CmpExch { vec![value(cx, w)?, src] } else { vec![src] };
    let ty = if wide { Type::I64 } else { Type::I32 };
    let r = a.op(cx, BufferKind::Atomic(kind), 4 * w as u8, 0, &operands, Some(ty));
    if glc {
        if wide {
            let (lo, hi) = cx.split64(r);
            cx.def_v32(at, &data, 0, lo, a.exec)?;
            cx.def_v32(at, &data, 1, hi, a.exec)?;
        } else {
            cx.def_v32(at, &data, 0, r, a.exec)?;
        }
    }
    Ok(())
}

/// A formatted load or store of `comps` components.
fn formatted(cx: &mut Cx, at: &At, format: Option<Format>, comps: u8, load: bool, half: Half) -> Result<(), LiftError> {
    let data = vdata(cx, at)?;
    let a = Addr::new(cx, at)?;
    let h = half != Half::Full;
    let (bytes, ty) = if h { (2, Type::I16) } else { (4, Type::I32) };
    if load {
        for c in 0..comps {
            let kind = BufferKind::LoadFormat { format, comp: c, half: h };
            let r = a.op(cx, kind, bytes, 0, &[], Some(ty));
            match half {
                Half::Full => cx.def_v32(at, &data, c as u16, r, a.exec)?,
                // Packed: component c in half c % 2 of dword c / 2 (the other half of a last odd
                // dword keeps its bits: FormatD16 slots 11-12 show it).
                Half::Lo => write_half(cx, at, &data, c as u16 / 2, c % 2 == 1, r, a.exec)?,
                Half::Hi => write_half(cx, at, &data, 0, true, r, a.exec)?,
            }
        }
        return Ok(());
    }
    let mut vals = Vec::new();
    for c in 0..comps as u16 {
        vals.push(match half {
            Half::Full => cx.src32(at, &data, c)?,
            Half::Lo => read_half(cx, at, &data, c / 2, c % 2 == 1)?,
            Half::Hi => read_half(cx, at, &data, 0, true)?,
        });
    }
    let kind = BufferKind::StoreFormat { format, comps, half: h };
    a.op(cx, kind, bytes, 0, &vals, None);
    Ok(())
}
