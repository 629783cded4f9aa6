//! FLAT, GLOBAL and SCRATCH memory: loads (8, 16, 32 to 128 bits, sign- or zero-extended,
//! `d16` halves), stores and atomics (32- and 64-bit integer, f32 / f64 min and max, with the old value returned under
//! `glc`), the lanes under EXEC taking part.
//!
//! Addresses (gfx10):
//! - `global_*` with `saddr` off: the 64-bit VGPR pair plus the signed 12-bit offset; with
//!   `saddr`: the SGPR pair plus the zero-extended 32-bit VGPR plus the offset.
//! - `flat_*`: the 64-bit VGPR pair plus the unsigned offset, a generic address: one whose high
//!   dword is the shared aperture's ([`SHARED_APERTURE_HI`]) reaches LDS at the low dword, the
//!   private aperture's ([`PRIVATE_APERTURE_HI`]) the lane's scratch, any other global memory.
//!   The access is three IR ops, each under the lanes (a ballot under EXEC) whose address falls
//!   in its space, and a load's or atomic's results merge under those masks.
//! - `scratch_*`: the 32-bit VGPR or SGPR plus the signed offset, in the lane's own scratch
//!   (the IR's scratch space is per lane, as the hardware's swizzled private segment is).

use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::{Operand, OperandKind};
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::int::{ICmp, IntOp, Overflow};
use isabridge_ir::ops::lane::LaneOp;
use isabridge_ir::ops::mem::{AtomicKind, MemOp, Scope, Space};
use isabridge_ir::ops::Op;
use isabridge_ir::{Type, Value};

/// The high dword of the shared (LDS) aperture's base, what `src_shared_base` reads: this
/// lifter's choice for the dispatches it models (hardware takes it from SH_MEM_BASES, which the
/// runtime programs).
pub(super) const SHARED_APERTURE_HI: u32 = 0x2_0000;
/// The high dword of the private (scratch) aperture's base, what `src_private_base` reads.
pub(super) const PRIVATE_APERTURE_HI: u32 = 0x1_0000;

/// Which of the three address forms.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Seg {
    Flat,
    Global,
    Scratch,
}

/// What one instruction does to memory.
#[derive(Clone, Copy)]
enum Kind {
    /// Load `bytes` (1, 2, 4 .. 16), sign-extending sub-dword loads when `signed`; `d16`:
    /// write the low (false) or high (true) half of the destination only.
    Load { bytes: u8, signed: bool, d16: Option<bool> },
    /// Store `bytes`; `hi`: the high 16 bits of the data register (`_d16_hi`).
    Store { bytes: u8, hi: bool },
}

/// Lift a flat, global or scratch instruction; None when `name` is not one.
pub(super) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    let (seg, rest) = if let Some(r) = name.strip_prefix("GLOBAL_") {
        (Seg::Global, r)
    } else if let Some(r) = name.strip_prefix("FLAT_") {
        (Seg::Flat, r)
    } else if let Some(r) = name.strip_prefix("SCRATCH_") {
        (Seg::Scratch, r)
    } else {
        return None;
    };
    let kind = if let Some(a) = rest.strip_prefix("ATOMIC_") {
        let (a, wide) = match a.strip_suffix("_X2") {
            Some(b) => (b, true),
            None => (a, false),
        };
        // Float min / max (f32, or f64 with _X2) as the buffer forms (mubuf.rs).
        let float = match a {
            "FMIN" => Some(AtomicKind::FMin),
            "FMAX" => Some(AtomicKind::FMax),
            _ => None,
        };
        let Some(op) = float.or_else(|| super::int_atomic_kind(a)) else {
            let why = if a == "FCMPSWAP" { "float compare-and-swap atomics do not lift yet" } else { "atomic kind" };
            return Some(Err(cx.unsupported(at, why)));
        };
        return Some(atomic(cx, at, seg, op, wide));
    } else {
        match rest {
            "LOAD_UBYTE" => Kind::Load { bytes: 1, signed: false, d16: None },
            "LOAD_SBYTE" => Kind::Load { bytes: 1, signed: true, d16: None },
            "LOAD_USHORT" => Kind::Load { bytes: 2, signed: false, d16: None },
            "LOAD_SSHORT" => Kind::Load { bytes: 2, signed: true, d16: None },
            "LOAD_DWORD" => Kind::Load { bytes: 4, signed: false, d16: None },
            "LOAD_DWORDX2" => Kind::Load { bytes: 8, signed: false, d16: None },
            "LOAD_DWORDX3" => Kind::Load { bytes: 12, signed: false, d16: None },
            "LOAD_DWORDX4" => Kind::Load { bytes: 16, signed: false, d16: None },
            "LOAD_UBYTE_D16" => Kind::Load { bytes: 1, signed: false, d16: Some(false) },
            "LOAD_UBYTE_D16_HI" => Kind::Load { bytes: 1, signed: false, d16: Some(true) },
            "LOAD_SBYTE_D16" => Kind::Load { bytes: 1, signed: true, d16: Some(false) },
            "LOAD_SBYTE_D16_HI" => Kind::Load { bytes: 1, signed: true, d16: Some(true) },
            "LOAD_SHORT_D16" => Kind::Load { bytes: 2, signed: false, d16: Some(false) },
            "LOAD_SHORT_D16_HI" => Kind::Load { bytes: 2, signed: false, d16: Some(true) },
            "STORE_BYTE" => Kind::Store { bytes: 1, hi: false },
            "STORE_BYTE_D16_HI" => Kind::Store { bytes: 1, hi: true },
            "STORE_SHORT" => Kind::Store { bytes: 2, hi: false },
            "STORE_SHORT_D16_HI" => Kind::Store { bytes: 2, hi: true },
            "STORE_DWORD" => Kind::Store { bytes: 4, hi: false },
            "STORE_DWORDX2" => Kind::Store { bytes: 8, hi: false },
            "STORE_DWORDX3" => Kind::Store { bytes: 12, hi: false },
            "STORE_DWORDX4" => Kind::Store { bytes: 16, hi: false },
            _ => return None,
        }
    };
    Some(access(cx, at, seg, kind))
}

fn space(seg: Seg) -> Space {
    if seg == Seg::Scratch {
        Space::Scratch
    } else {
        Space::Global
    }
}

fn is_off(op: &Operand) -> bool {
    matches!(op.kind, OperandKind::Field { ty: "OFF", .. })
}

/// The address of the access: i64 for flat and global, i32 (a scratch offset) for scratch.
fn address(cx: &mut Cx, at: &At, seg: Seg) -> Result<Value, LiftError> {
    if cx.isa == crate::Isa::Gfx1201 {
        return super::gfx12_mem::flat_address(cx, at, seg);
    }
    let raw = at.inst.named("OFFSET").unwrap_or(0) as u32;
    let imm = if seg == Seg::Flat { raw & 0xfff } else { ((raw << 20) as i32 >> 20) as u32 };
    let vaddr = at.field("ADDR").copied().filter(|o| !is_off(o));
    let saddr = at.field("SADDR").copied().filter(|o| !is_off(o));
    let add64 = |cx: &mut Cx, a: Value, b: Value| cx.b().int(IntOp::Add(Overflow::Wrap), Type::I64, &[a, b]);
    let add32 = |cx: &mut Cx, a: Value, b: Value| cx.b().int(IntOp::Add(Overflow::Wrap), Type::I32, &[a, b]);
    match seg {
        Seg::Scratch => {
            let base = match (vaddr, saddr) {
                (Some(v), _) => cx.src32(at, &v, 0)?,
                (None, Some(s)) => cx.src32(at, &s, 0)?,
                (None, None) => cx.k32(0),
            };
            let k = cx.k32(imm);
            Ok(add32(cx, base, k))
        }
        _ => {
            let v = vaddr.ok_or_else(|| cx.unsupported(at, "flat address missing"))?;
            let base = match saddr {
                Some(s) if seg == Seg::Global => {
                    let lo = cx.src32(at, &s, 0)?;
                    let hi = cx.src32(at, &s, 1)?;
                    let sb = cx.join64(lo, hi);
                    let off = cx.src32(at, &v, 0)?;
                    let off = cx.b().conv(ConvOp::IToI { signed: false }, Type::I64, off);
                    add64(cx, sb, off)
                }
                _ => {
                    let lo = cx.src32(at, &v, 0)?;
                    let hi = cx.src32(at, &v, 1)?;
                    cx.join64(lo, hi)
                }
            };
            let k = cx.k(Type::I64, imm as i32 as i64 as u64);
            Ok(add64(cx, base, k))
        }
    }
}

/// `addr + k` in the address's type.
fn plus(cx: &mut Cx, addr: Value, k: u32) -> Value {
    if k == 0 {
        return addr;
    }
    let ty = cx.f.ty(addr).unwrap_or(Type::I64);
    let d = cx.k(ty, k as u64);
    cx.b().int(IntOp::Add(Overflow::Wrap), ty, &[addr, d])
}

/// The lanes of `exec` whose flat address `addr` (i64) falls in the shared and the private
/// aperture and the rest, and the address as an i32 offset in the apertures.
fn split(cx: &mut Cx, addr: Value, exec: Value) -> [(Space, Value, Value); 3] {
    let (lo, hi) = cx.split64(addr);
    let in_aperture = |cx: &mut Cx, h: u32| {
        let k = cx.k32(h);
        let c = cx.b().int(IntOp::Cmp(ICmp::Eq), Type::B1, &[hi, k]);
        cx.b().lane(LaneOp::Ballot, Type::Mask, &[c, exec])
    };
    let sh = in_aperture(cx, SHARED_APERTURE_HI);
    let pr = in_aperture(cx, PRIVATE_APERTURE_HI);
    let either = cx.b().int(IntOp::Or, Type::Mask, &[sh, pr]);
    let not = cx.b().int(IntOp::Not, Type::Mask, &[either]);
    let gl = cx.b().int(IntOp::And, Type::Mask, &[exec, not]);
    [(Space::Global, addr, gl), (Space::Shared, lo, sh), (Space::Scratch, lo, pr)]
}

/// `v` for lanes of the first mask, the second value for those of the second, else the third.
fn merge3(cx: &mut Cx, ty: Type, parts: &[(Value, Value); 3]) -> Value {
    let r = cx.b().lanesel(ty, parts[1].1, parts[1].0, parts[0].0);
    cx.b().lanesel(ty, parts[2].1, parts[2].0, r)
}

fn access(cx: &mut Cx, at: &At, seg: Seg, kind: Kind) -> Result<(), LiftError> {
    let addr = address(cx, at, seg)?;
    let exec = cx.exec();
    if seg == Seg::Flat {
        // Each aperture's access on its lanes; loads merge their results, then write once.
        let parts = split(cx, addr, exec);
        return match kind {
            Kind::Load { bytes, signed, d16 } => {
                let dst = at.field("VDST").copied().ok_or_else(|| cx.unsupported(at, "load destination missing"))?;
                let words = (bytes as u32).div_ceil(4);
                let mut per: Vec<Vec<Value>> = Vec::new();
                for (sp, a, m) in parts {
                    per.push(load_words(cx, at, sp, a, m, bytes, signed, d16, &dst)?);
                }
                let merged: Vec<Value> = (0..words as usize)
                    .map(|k| merge3(cx, Type::I32, &[(per[0][k], parts[0].2), (per[1][k], parts[1].2), (per[2][k], parts[2].2)]))
                    .collect();
                for (k, v) in merged.into_iter().enumerate() {
                    cx.def_v32(at, &dst, k as u16, v, exec)?;
                }
                Ok(())
            }
            Kind::Store { bytes, hi } => {
                for (sp, a, m) in parts {
                    store(cx, at, sp, a, m, bytes, hi)?;
                }
                Ok(())
            }
        };
    }
    let sp = space(seg);
    match kind {
        Kind::Load { bytes, signed, d16 } => {
            let dst = at.field("VDST").copied().ok_or_else(|| cx.unsupported(at, "load destination missing"))?;
            let vals = load_words(cx, at, sp, addr, exec, bytes, signed, d16, &dst)?;
            for (k, v) in vals.into_iter().enumerate() {
                cx.def_v32(at, &dst, k as u16, v, exec)?;
            }
            Ok(())
        }
        Kind::Store { bytes, hi } => store(cx, at, sp, addr, exec, bytes, hi),
    }
}

/// The dwords a load gives its destination (sub-dword loads extended, d16 halves merged into
/// the destination's old value).
#[allow(clippy::too_many_arguments)]
fn load_words(
    cx: &mut Cx,
    at: &At,
    sp: Space,
    addr: Value,
    mask: Value,
    bytes: u8,
    signed: bool,
    d16: Option<bool>,
    dst: &Operand,
) -> Result<Vec<Value>, LiftError> {
    if bytes >= 4 {
        let mut vals = Vec::new();
        for k in 0..bytes as u32 / 4 {
            let a = plus(cx, addr, 4 * k);
            vals.push(cx.b().ins(Op::Mem(MemOp::Load(sp)), &[a, mask], Some(Type::I32)));
        }
        return Ok(vals);
    }
    let ty = if bytes == 1 { Type::I8 } else { Type::I16 };
    let v = cx.b().ins(Op::Mem(MemOp::Load(sp)), &[addr, mask], Some(ty));
    Ok(vec![match d16 {
        None => cx.b().conv(ConvOp::IToI { signed }, Type::I32, v),
        Some(hi) => {
            // The loaded value (extended to 16 bits) replaces one half of the register.
            let h = cx.b().conv(ConvOp::IToI { signed }, Type::I16, v);
            let h = cx.b().conv(ConvOp::IToI { signed: false }, Type::I32, h);
            let old = cx.src32(at, dst, 0)?;
            let (keep, shift) = if hi { (0xffffu32, 16u32) } else { (0xffff_0000, 0) };
            let km = cx.k32(keep);
            let kept = cx.b().int(IntOp::And, Type::I32, &[old, km]);
            let sh = cx.k32(shift);
            let placed = cx.b().int(IntOp::Shl(isabridge_ir::ops::int::ShiftRule::Wrap), Type::I32, &[h, sh]);
            cx.b().int(IntOp::Or, Type::I32, &[kept, placed])
        }
    }])
}

fn store(cx: &mut Cx, at: &At, sp: Space, addr: Value, mask: Value, bytes: u8, hi: bool) -> Result<(), LiftError> {
    let data = at.field("DATA").copied().ok_or_else(|| cx.unsupported(at, "store data missing"))?;
    if bytes >= 4 {
        for k in 0..bytes as u32 / 4 {
            let a = plus(cx, addr, 4 * k);
            let v = cx.src32(at, &data, k as u16)?;
            cx.b().ins(Op::Mem(MemOp::Store(sp)), &[a, v, mask], None);
        }
        return Ok(());
    }
    let mut v = cx.src32(at, &data, 0)?;
    if hi {
        let sh = cx.k32(16);
        v = cx.b().int(IntOp::Shr(false, isabridge_ir::ops::int::ShiftRule::Wrap), Type::I32, &[v, sh]);
    }
    let ty = if bytes == 1 { Type::I8 } else { Type::I16 };
    let t = cx.b().conv(ConvOp::IToI { signed: false }, ty, v);
    cx.b().ins(Op::Mem(MemOp::Store(sp)), &[addr, t, mask], None);
    Ok(())
}

pub(super) fn atomic(cx: &mut Cx, at: &At, seg: Seg, op: AtomicKind, wide: bool) -> Result<(), LiftError> {
    let addr = address(cx, at, seg)?;
    let exec = cx.exec();
    let data = at.field("DATA").copied().ok_or_else(|| cx.unsupported(at, "atomic data missing"))?;
    let ty = if wide { Type::I64 } else { Type::I32 };
    let read = |cx: &mut Cx, k: u16| -> Result<Value, LiftError> {
        if wide {
            let lo = cx.src32(at, &data, 2 * k)?;
            let hi = cx.src32(at, &data, 2 * k + 1)?;
            Ok(cx.join64(lo, hi))
        } else {
            cx.src32(at, &data, k)
        }
    };
    // Compare-and-swap data: the new value first, then the compare value (gfx10).
    let mut args = vec![addr];
    if op == AtomicKind::CmpExch {
        let src = read(cx, 0)?;
        let cmp = read(cx, 1)?;
        args.extend([cmp, src]);
    } else {
        let v = read(cx, 0)?;
        args.push(v);
    }
    let r = if seg == Seg::Flat {
        let parts = split(cx, addr, exec);
        let mut rs = Vec::new();
        for (sp, a, m) in parts {
            let mut x = args.clone();
            x[0] = a;
            x.push(m);
            let scope = if sp == Space::Global { Scope::Device } else { Scope::Workgroup };
            rs.push(cx.b().ins(Op::Mem(MemOp::Atomic(sp, op, scope)), &x, Some(ty)));
        }
        merge3(cx, ty, &[(rs[0], parts[0].2), (rs[1], parts[1].2), (rs[2], parts[2].2)])
    } else {
        args.push(exec);
        let scope = if seg == Seg::Scratch { Scope::Wave } else { Scope::Device };
        cx.b().ins(Op::Mem(MemOp::Atomic(space(seg), op, scope)), &args, Some(ty))
    };
    if at.inst.named("GLC").unwrap_or(0) != 0 {
        let dst = at.field("VDST").copied().ok_or_else(|| cx.unsupported(at, "returning atomic destination missing"))?;
        if wide {
            let (lo, hi) = cx.split64(r);
            cx.def_v32(at, &dst, 0, lo, exec)?;
            cx.def_v32(at, &dst, 1, hi, exec)?;
        } else {
            cx.def_v32(at, &dst, 0, r, exec)?;
        }
    }
    Ok(())
}
