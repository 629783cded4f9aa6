//! Untyped buffer loads, stores and atomics (MUBUF) through the V# in SRSRC: one IR buffer op
//! per dword (the range check applies to each), the immediate offset, `offen` / `idxen`
//! addressing, `soffset`; the lanes under EXEC take part.

use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::Operand;
use isabridge_ir::ops::buffer::{BufferKind, BufferOp};
use isabridge_ir::ops::mem::AtomicKind;
use isabridge_ir::ops::Op;
use isabridge_ir::{Type, Value};

/// Lift a buffer instruction; None when `name` is not one.
pub(super) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    let rest = name.strip_prefix("BUFFER_")?;
    let (kind, words, wide) = match rest {
        "LOAD_DWORD" => (BufferKind::Load, 1, false),
        "LOAD_DWORDX2" => (BufferKind::Load, 2, false),
        "LOAD_DWORDX3" => (BufferKind::Load, 3, false),
        "LOAD_DWORDX4" => (BufferKind::Load, 4, false),
        "STORE_DWORD" => (BufferKind::Store, 1, false),
        "STORE_DWORDX2" => (BufferKind::Store, 2, false),
        "STORE_DWORDX3" => (BufferKind::Store, 3, false),
        "STORE_DWORDX4" => (BufferKind::Store, 4, false),
        "ATOMIC_INC_X2" => (BufferKind::Atomic(AtomicKind::Inc), 2, true),
        "ATOMIC_DEC_X2" => (BufferKind::Atomic(AtomicKind::Dec), 2, true),
        "ATOMIC_INC" => (BufferKind::Atomic(AtomicKind::Inc), 1, false),
        "ATOMIC_DEC" => (BufferKind::Atomic(AtomicKind::Dec), 1, false),
        "ATOMIC_ADD" => (BufferKind::Atomic(AtomicKind::Add), 1, false),
        "ATOMIC_SWAP" => (BufferKind::Atomic(AtomicKind::Exch), 1, false),
        _ => return None,
    };
    Some(access(cx, at, kind, words, wide))
}

fn access(cx: &mut Cx, at: &At, kind: BufferKind, words: u16, wide: bool) -> Result<(), LiftError> {
    let field = |n: &str| at.field(n).copied().ok_or_else(|| cx.unsupported(at, "buffer operand missing"));
    let data: Operand = field("VDATA")?;
    let rsrc = field("SRSRC")?;
    let soff = field("SOFFSET")?;
    let vaddr = at.field("VADDR").copied();
    let offen = at.inst.named("OFFEN").unwrap_or(0) != 0;
    let idxen = at.inst.named("IDXEN").unwrap_or(0) != 0;
    let offset = at.inst.named("OFFSET").unwrap_or(0) as u32;
    if at.inst.named("LDS").unwrap_or(0) != 0 || at.inst.named("TFE").unwrap_or(0) != 0 {
        return Err(cx.unsupported(at, "LDS and TFE buffer forms"));
    }
    let glc = at.inst.named("GLC").unwrap_or(0) != 0;
    let mut desc = Vec::new();
    for k in 0..4 {
        desc.push(cx.src32(at, &rsrc, k)?);
    }
    let zero = cx.k32(0);
    let (index, voff) = match (idxen, offen, vaddr) {
        (true, true, Some(v)) => (cx.src32(at, &v, 0)?, cx.src32(at, &v, 1)?),
        (true, false, Some(v)) => (cx.src32(at, &v, 0)?, zero),
        (false, true, Some(v)) => (zero, cx.src32(at, &v, 0)?),
        _ => (zero, zero),
    };
    let so = cx.src32(at, &soff, 0)?;
    let exec = cx.exec();
    let mut args: Vec<Value> = desc;
    args.extend([index, voff, so]);
    if wide {
        let bo = BufferOp { kind, bytes: 8, offset, idxen, offen };
        let lo = cx.src32(at, &data, 0)?;
        let hi = cx.src32(at, &data, 1)?;
        let v = cx.join64(lo, hi);
        let mut a = args.clone();
        a.push(v);
        a.push(exec);
        let r = cx.b().ins(Op::Buffer(bo), &a, Some(Type::I64));
        if glc {
            let (lo, hi) = cx.split64(r);
            cx.def_v32(at, &data, 0, lo, exec)?;
            cx.def_v32(at, &data, 1, hi, exec)?;
        }
        return Ok(());
    }
    for k in 0..words {
        let bo = BufferOp { kind, bytes: 4, offset: offset + 4 * k as u32, idxen, offen };
        let mut a = args.clone();
        match kind {
            BufferKind::Load => {
                a.push(exec);
                let r = cx.b().ins(Op::Buffer(bo), &a, Some(Type::I32));
                cx.def_v32(at, &data, k, r, exec)?;
            }
            BufferKind::Store => {
                let v = cx.src32(at, &data, k)?;
                a.push(v);
                a.push(exec);
                cx.b().ins(Op::Buffer(bo), &a, None);
            }
            BufferKind::Atomic(_) => {
                let v = cx.src32(at, &data, k)?;
                a.push(v);
                a.push(exec);
                let r = cx.b().ins(Op::Buffer(bo), &a, Some(Type::I32));
                if glc {
                    cx.def_v32(at, &data, k, r, exec)?;
                }
            }
        }
    }
    Ok(())
}
