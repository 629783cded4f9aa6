//! Instructions that talk to the machine rather than compute: `NANOSLEEP` and `BPT.TRAP`.
//!
//! - `NANOSLEEP t` suspends the thread for a time in [0, 2t] nanoseconds (PTX ISA,
//!   "Miscellaneous Instructions: nanosleep"); a sleep of zero is one of the allowed
//!   durations, so it lifts to nothing (its operand is still read, so a bad one is an error).
//! - `BPT.TRAP n` is the IR's trap with code `n` (`__builtin_trap()` in
//!   fixtures/nvidia/src/control.cu's `traps` assembles to `BPT.TRAP 0x1`); guarded, only
//!   the lanes where the guard holds go to a block that traps.

use super::{At, Cx};
use crate::lift::LiftError;
use isabridge_ir::ops::control::SyncOp;
use isabridge_ir::ops::Op;

/// Lift `at` when it is a sleep or a trap.
pub(crate) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    Some(match name {
        "NANOSLEEP" => nanosleep(cx, at),
        "BPT" => bpt(cx, at),
        _ => return None,
    })
}

fn nanosleep(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let ops: Vec<_> = at.inst.explicit().collect();
    let [t] = ops[..] else { return Err(cx.unsupported(at, "NANOSLEEP operands")) };
    cx.word(at, t, 0)?;
    Ok(())
}

fn bpt(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    if !at.has("TRAP") {
        return Err(cx.unsupported(at, "BPT other than .TRAP"));
    }
    let srcs = at.srcs();
    let code = match srcs[..] {
        [op] => match op.kind {
            crate::operand::OperandKind::Imm(v) if (0..=0xffff).contains(&v) => v as u16,
            _ => return Err(cx.unsupported(at, "BPT.TRAP code other than an immediate")),
        },
        _ => return Err(cx.unsupported(at, "BPT.TRAP operands")),
    };
    let trap = Op::Sync(SyncOp::Trap(code));
    match cx.guard {
        None => {
            cx.b().ins(trap, &[], None);
        }
        Some(g) => {
            let yes = cx.f.add_block();
            let after = cx.f.add_block();
            cx.b().branch(g, yes, after);
            cx.block = yes;
            cx.b().ins(trap, &[], None);
            cx.b().jump(after);
            cx.block = after;
        }
    }
    Ok(())
}
