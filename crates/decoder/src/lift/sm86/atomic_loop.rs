//! Shared-memory atomics ptxas emits around its own loops and counters, on the IR's atomics:
//!
//! - `ATOMS.CAST.SPIN[.64] Rd, [a], Rb, Rc`: compare the word (pair) at `a` with `Rb`; when
//!   equal, store `Rc`. `Rd` is 1 when it stored. ptxas builds shared `atom.add.f32` and
//!   64-bit `atom.add` from it (fixtures/nvidia/listings/atomics.sm86.txt: `LDS R4, [0x28]`,
//!   `FADD R5, R3, R4`, `ATOMS.CAST.SPIN R5, [0x28], R4, R5`, `ISETP.EQ.U32.AND P0, PT, R5, 0x1`,
//!   `@!P0 BRA` back), so 1 means stored; on failure the loop only needs a value other than 1,
//!   and the lifter gives 0.
//! - `ATOMS.POPC.INC.32 RZ, [a]`: add the number of lanes that run it to the word at `a`
//!   (`atomicAdd(&S[11], 1)` with the result unused, fixtures/nvidia/src/atomics.cu, assembles
//!   to `ATOMS.POPC.INC.32 RZ, [URZ+0x2c]`): each lane's atomic add of 1. With a destination
//!   other than RZ (which value each lane gets is not derived) it is a typed error.

use super::mem::{address, mem_op};
use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::{Operand, OperandKind, SpecialReg};
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::int::{ICmp, IntOp};
use isabridge_ir::ops::mem::{AtomicKind, MemOp, Scope, Space};
use isabridge_ir::Type;

/// Lift `at` when it is one of these atomics.
pub(crate) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    if name != "ATOMS" {
        return None;
    }
    if at.has("CAST") {
        return Some(cast_spin(cx, at));
    }
    if at.has("POPC") && at.has("INC") {
        return Some(popc_inc(cx, at));
    }
    None
}

/// The explicit operands around the address: (before, address, after).
fn split<'a>(cx: &Cx, at: &At<'a>) -> Result<(Vec<&'a Operand>, &'a Operand, Vec<&'a Operand>), LiftError> {
    let ops: Vec<&Operand> = at.inst.explicit().collect();
    let Some(p) = ops.iter().position(|o| matches!(o.kind, OperandKind::Mem { .. })) else {
        return Err(cx.unsupported(at, "no memory operand"));
    };
    Ok((ops[..p].to_vec(), ops[p], ops[p + 1..].to_vec()))
}

fn cast_spin(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (before, m, after) = split(cx, at)?;
    let ([d], [b, c]) = (&before[..], &after[..]) else { return Err(cx.unsupported(at, "ATOMS.CAST.SPIN operands")) };
    let wide = at.has("64");
    let addr = address(cx, at, m, Space::Shared)?;
    let ty = if wide { Type::I64 } else { Type::I32 };
    let (cmp, new) = if wide { (cx.src64(at, b)?, cx.src64(at, c)?) } else { (cx.word(at, b, 0)?, cx.word(at, c, 0)?) };
    let old = mem_op(cx, MemOp::Atomic(Space::Shared, AtomicKind::CmpExch, Scope::Workgroup), &[addr, cmp, new], Some(ty));
    let stored = cx.b().int(IntOp::Cmp(ICmp::Eq), Type::B1, &[old, cmp]);
    let one = cx.b1_to_i32(stored);
    if wide {
        let v = cx.b().conv(ConvOp::IToI { signed: false }, Type::I64, one);
        cx.def64(at, d, v)
    } else {
        cx.def_word(at, d, 0, one)
    }
}

fn popc_inc(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (before, m, after) = split(cx, at)?;
    let [d] = before[..] else { return Err(cx.unsupported(at, "ATOMS.POPC.INC operands")) };
    if !after.is_empty() || !matches!(d.kind, OperandKind::Special { reg: SpecialReg::Rz, .. }) {
        return Err(cx.unsupported(at, "ATOMS.POPC.INC with a destination (per-lane results not derived)"));
    }
    let addr = address(cx, at, m, Space::Shared)?;
    let one = cx.k32(1);
    mem_op(cx, MemOp::Atomic(Space::Shared, AtomicKind::Add, Scope::Workgroup), &[addr, one], Some(Type::I32));
    Ok(())
}
