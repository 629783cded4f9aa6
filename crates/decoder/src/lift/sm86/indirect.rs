//! Jumps through a register: `BRX Rn, off` (an indirect branch: a switch's jump table) and
//! `CALL.REL.NOINC Rn, off` (a call through a function pointer), and `RET.REL.NODEC Rn, off`.
//! The target is the code address `Rn + off`, relative to the code's start (the offset prints
//! as a code address: `RET.REL.NODEC R20 0x0` and `BRX R4 -0x140` at 0x130 both name the
//! code's start, and ptxas's jump tables in constant bank 2 hold offsets from it,
//! fixtures/nvidia/calls/calls.sm86.txt). Only the pair's low word is compared: code offsets
//! of one section fit in 32 bits.
//!
//! The lift knows where such a jump may go: the return sites (the instruction after each
//! call), the targets ptxas records for each `BRX` ([`super::Options::branch_targets`], from
//! `.nv.info`), the function entries an indirect call may reach
//! ([`super::Options::call_targets`]). Each lane goes to the one its address is
//! (`nv_driver::dispatch`); an address none is traps with [`super::UNKNOWN_TARGET_TRAP`].
//! A `BRX` or indirect call whose targets are not known at all is a typed error.
//!
//! Calls stay jumps inside the one lifted function, on the caller's registers: ptxas's ABI
//! passes arguments and results in registers and the caller writes the return address into a
//! register pair itself (`MOV R20, 0x110` before `CALL.REL.NOINC`); nothing is pushed, so a
//! callee is code of the same register file, and recursion saves the return address and the
//! convergence barriers it needs to the local stack (`STL`, `BMOV.32.CLEAR`) like any value.
//! Lanes that return to different sites diverge like any branch and meet at the caller's
//! `BSYNC` / `WARPSYNC`.

use super::{At, Cx};
use crate::lift::nv_driver;
use crate::lift::LiftError;
use crate::operand::{OperandKind, RegClass};
use isabridge_ir::ir::Block;
use isabridge_ir::ops::int::{IntOp, Overflow};
use isabridge_ir::{Type, Value};
use std::collections::HashMap;

/// The per-lane target `Rn + off` of a jump through a register, relative to the code's start.
pub(crate) fn target_value(cx: &mut Cx, at: &At, base: u64) -> Result<Value, LiftError> {
    let ops: Vec<_> = at.inst.explicit().collect();
    let (r, off) = match ops[..] {
        [r, o] => (r, Some(o)),
        [r] => (r, None),
        _ => return Err(cx.unsupported(at, "operands of a jump through a register")),
    };
    if !matches!(r.kind, OperandKind::Reg(x) if x.class == RegClass::R) {
        return Err(cx.unsupported(at, "a jump through something other than a register"));
    }
    let v = cx.word(at, r, 0)?;
    let next = at.inst.addr + at.inst.len as u64;
    let off = match off.map(|o| o.kind) {
        Some(OperandKind::Label(t)) => t.wrapping_sub(base),
        Some(OperandKind::Imm(x)) => next.wrapping_add(x as u64).wrapping_sub(base),
        Some(k) => return Err(cx.unsupported(at, &format!("jump offset {k:?}"))),
        None => 0,
    };
    if off == 0 {
        return Ok(v);
    }
    let k = cx.k32(off as u32);
    Ok(cx.b().int(IntOp::Add(Overflow::Wrap), Type::I32, &[v, k]))
}

/// Jump per lane to the target among `targets` (addresses) that `Rn + off` names; a guarded
/// jump falls through to `fall` where the guard is false.
#[allow(clippy::too_many_arguments)]
pub(crate) fn jump(
    cx: &mut Cx,
    at: &At,
    base: u64,
    targets: &[u64],
    blocks: &HashMap<u64, Block>,
    fall: Block,
    exit: Block,
) -> Result<(), LiftError> {
    let v = target_value(cx, at, base)?;
    if let Some(g) = cx.guard {
        let take = cx.f.add_block();
        cx.b().branch(g, take, fall);
        cx.block = take;
        cx.guard = None;
    }
    let known: Vec<(u64, Block)> =
        targets.iter().filter_map(|t| blocks.get(t).map(|b| (t.wrapping_sub(base), *b))).collect();
    nv_driver::dispatch(cx, v, &known, exit);
    Ok(())
}
