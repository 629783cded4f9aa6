//! Waits on counters of outstanding operations, as the IR's explicit [`SyncOp::Wait`] with
//! every counter the instruction names (the interpreter runs memory in program order, so a
//! wait is a no-op there; a backend sees the machine's waits).
//!
//! gfx10 counters, as sets of the IR's kinds: vmcnt counts vector memory loads, samples and
//! BVH intersections; vscnt stores; expcnt exports and GDS; lgkmcnt LDS, GDS, scalar memory
//! and messages. `s_waitcnt`'s SIMM16 holds vmcnt in bits 3:0 (low) and 15:14 (high),
//! expcnt in 6:4 and lgkmcnt in 13:8; each counter is kept with its decoded count, the
//! maximum (no wait) included. `s_waitcnt_vscnt` / `_vmcnt` / `_expcnt` / `_lgkmcnt` wait on
//! one counter with the SIMM16 count when their SGPR operand is `null` (a count read from a
//! register is a typed error: the IR's wait counts are constants).
//!
//! gfx12 counters: loadcnt (loads), storecnt (stores), samplecnt, bvhcnt, kmcnt (scalar
//! memory and messages), dscnt (LDS), expcnt (exports and attribute loads). The combined
//! `s_wait_loadcnt_dscnt` / `s_wait_storecnt_dscnt` hold the first count in bits 13:8 and
//! dscnt in bits 5:0. `s_wait_idle` waits for every kind to reach 0.
//!
//! `s_waitcnt_depctr`, gfx12's `s_wait_alu` and `s_delay_alu` wait on ALU dependency counters
//! (register hazards), not on outstanding operations: the IR has no hazards, so they lift to
//! nothing (in `sop.rs` and `gfx12.rs`).

use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::{OperandKind, SpecialReg};
use isabridge_ir::ops::control::{SyncOp, Wait, WaitKinds as K};
use isabridge_ir::ops::Op;

const VM: K = K::LOAD.or(K::SAMPLE).or(K::BVH);
const EXP10: K = K::EXPORT.or(K::DEVICE_SHARED);
const LGKM: K = K::SHARED.or(K::DEVICE_SHARED).or(K::SCALAR).or(K::MESSAGE);
const KM: K = K::SCALAR.or(K::MESSAGE);
const EXP12: K = K::EXPORT.or(K::ATTRIBUTE);

/// Lift a wait; None when `name` is not one.
pub(super) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    let counters: Vec<(K, u16)> = match name {
        "S_WAITCNT" if cx.isa == crate::Isa::Gfx1013 => {
            let v = simm16(at);
            vec![(VM, (v & 15) | (v >> 14 & 3) << 4), (EXP10, v >> 4 & 7), (LGKM, v >> 8 & 63)]
        }
        "S_WAITCNT_VSCNT" | "S_WAITCNT_VMCNT" | "S_WAITCNT_EXPCNT" | "S_WAITCNT_LGKMCNT" => {
            if !null_sgpr(at) {
                return Some(Err(cx.unsupported(at, "a wait count read from a register")));
            }
            let v = simm16(at);
            vec![match name {
                "S_WAITCNT_VSCNT" => (K::STORE, v & 63),
                "S_WAITCNT_VMCNT" => (VM, v & 63),
                "S_WAITCNT_EXPCNT" => (EXP10, v & 7),
                _ => (LGKM, v & 63),
            }]
        }
        "S_WAIT_LOADCNT" => vec![(K::LOAD, simm16(at) & 63)],
        "S_WAIT_STORECNT" => vec![(K::STORE, simm16(at) & 63)],
        "S_WAIT_SAMPLECNT" => vec![(K::SAMPLE, simm16(at) & 63)],
        "S_WAIT_BVHCNT" => vec![(K::BVH, simm16(at) & 7)],
        "S_WAIT_KMCNT" => vec![(KM, simm16(at) & 31)],
        "S_WAIT_DSCNT" => vec![(K::SHARED, simm16(at) & 63)],
        "S_WAIT_EXPCNT" => vec![(EXP12, simm16(at) & 7)],
        "S_WAIT_LOADCNT_DSCNT" | "S_WAIT_STORECNT_DSCNT" => {
            let v = simm16(at);
            let first = if name == "S_WAIT_LOADCNT_DSCNT" { K::LOAD } else { K::STORE };
            vec![(first, v >> 8 & 63), (K::SHARED, v & 63)]
        }
        "S_WAIT_IDLE" => vec![(K(K::ALL_BITS), 0)],
        _ => return None,
    };
    let Some(w) = Wait::new(&counters) else {
        return Some(Err(cx.unsupported(at, "too many wait counters")));
    };
    cx.b().ins(Op::Sync(SyncOp::Wait(w)), &[], None);
    Some(Ok(()))
}

/// The SIMM16 field (0 when the instruction has none).
fn simm16(at: &At) -> u16 {
    at.inst
        .operands
        .iter()
        .find_map(|o| match o.kind {
            OperandKind::Imm(v) if !o.implicit => Some(v as u16),
            OperandKind::Field { value, .. } if !o.implicit => Some(value as u16),
            _ => None,
        })
        .or_else(|| at.inst.named("SIMM16").map(|v| v as u16))
        .unwrap_or(0)
}

/// Whether the SOPK form's SGPR operand is `null` (or absent).
fn null_sgpr(at: &At) -> bool {
    at.inst.operands.iter().filter(|o| !o.implicit).all(|o| {
        !matches!(o.kind, OperandKind::Reg(_) | OperandKind::Special { .. })
            || matches!(o.kind, OperandKind::Special { reg: SpecialReg::Null, .. })
    })
}
