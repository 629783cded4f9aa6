//! Traps and host interrupts: `s_trap` to the IR's trap op with its trap id (SIMM16 bits
//! 7:0; clang emits `s_trap 2` for `llvm.trap`, which the trap handler turns into an abort of
//! the dispatch), and the interrupt message (MSG_INTERRUPT, id 1 in SIMM16's message field)
//! of `s_sendmsg` / `s_sendmsghalt` to the IR's interrupt op, halting the wave for
//! `s_sendmsghalt`. Other messages of `s_sendmsghalt` are typed errors; other messages of
//! `s_sendmsg` are `stage.rs`'s.

use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::OperandKind;
use isabridge_ir::ops::control::SyncOp;
use isabridge_ir::ops::Op;

/// MSG_INTERRUPT.
const MSG_INTERRUPT: u64 = 1;

/// Lift a trap or an interrupt message; None when `name` is not one.
pub(super) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    let imm = simm16(at);
    // The message id: SIMM16 bits 3:0 on gfx10, 7:0 on gfx11 and later.
    let msg = if cx.isa == crate::Isa::Gfx1013 { imm & 0xf } else { imm & 0xff };
    let op = match name {
        "S_TRAP" => SyncOp::Trap((imm & 0xff) as u16),
        "S_SENDMSG" if msg == MSG_INTERRUPT => SyncOp::Interrupt { halt: false },
        "S_SENDMSGHALT" if msg == MSG_INTERRUPT => SyncOp::Interrupt { halt: true },
        "S_SENDMSGHALT" => return Some(Err(cx.unsupported(at, "s_sendmsghalt with a message other than MSG_INTERRUPT"))),
        _ => return None,
    };
    cx.b().ins(Op::Sync(op), &[], None);
    Some(Ok(()))
}

/// The SIMM16 field (0 when the instruction has none).
fn simm16(at: &At) -> u64 {
    at.inst
        .operands
        .iter()
        .find_map(|o| match o.kind {
            OperandKind::Imm(v) if !o.implicit => Some(v as u64 & 0xffff),
            OperandKind::Field { value, .. } if !o.implicit => Some(value & 0xffff),
            _ => None,
        })
        .or_else(|| at.inst.named("SIMM16"))
        .unwrap_or(0)
}
