//! Cross-lane operations: DPP16 and DPP8 source permutes of vector ALU instructions (row and
//! bank masks, bound_ctrl, fetch-inactive), v_permlane16 / v_permlanex16, ds_permute /
//! ds_bpermute, v_readlane / v_readfirstlane / v_writelane.
//!
//! A DPP source lane that is inactive (without fetch-inactive) or outside its row is invalid:
//! with bound_ctrl the lane reads 0, else the lane does not write its result. Row and bank
//! masks disable writes.

use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::{Modifier, Operand};
use isabridge_ir::ops::lane::{Dpp, LaneOp};
use isabridge_ir::{Type, Value};

/// The write mask and DPP state of one vector ALU instruction.
pub(super) struct Valu {
    /// Lanes that write their result: EXEC, narrowed by row/bank masks and invalid DPP sources.
    pub mask: Value,
    /// The DPP pattern and whether invalid sources read 0.
    dpp: Option<(Dpp, bool, Value)>,
}

fn dpp16(ctrl: u16) -> Option<Dpp> {
    Some(match ctrl {
        0x000..=0x0ff => Dpp::QuadPerm(ctrl as u8),
        0x101..=0x10f => Dpp::RowShl((ctrl & 15) as u8),
        0x111..=0x11f => Dpp::RowShr((ctrl & 15) as u8),
        0x121..=0x12f => Dpp::RowRor((ctrl & 15) as u8),
        0x140 => Dpp::RowMirror,
        0x141 => Dpp::RowHalfMirror,
        0x150..=0x15f => Dpp::RowShare((ctrl & 15) as u8),
        0x160..=0x16f => Dpp::RowXmask((ctrl & 15) as u8),
        _ => return None,
    })
}

impl Valu {
    /// Start a vector ALU instruction: its write mask and DPP source state.
    pub fn new(cx: &mut Cx, at: &At) -> Result<Valu, LiftError> {
        let exec = cx.exec();
        let mut pattern = None;
        let (mut row_mask, mut bank_mask) = (0xf_u8, 0xf_u8);
        let (mut fi, mut bc) = (false, false);
        for m in &at.inst.modifiers {
            match *m {
                Modifier::DppCtrl(c) => {
                    pattern = Some(dpp16(c).ok_or_else(|| cx.unsupported(at, "DPP control value"))?);
                }
                Modifier::Dpp8(s) => {
                    // DPP8 has no bound_ctrl: an inactive source lane reads 0 and the lane writes.
                    pattern = Some(Dpp::Lanes8(s));
                    bc = true;
                }
                Modifier::RowMask(r) => row_mask = r,
                Modifier::BankMask(b) => bank_mask = b,
                Modifier::FetchInactive => fi = true,
                Modifier::BoundCtrl => bc = true,
                _ => {}
            }
        }
        let Some(p) = pattern else { return Ok(Valu { mask: exec, dpp: None }) };
        let lanes = if cx.wave64 { 64 } else { 32 };
        let mut rb = 0u64;
        for l in 0..lanes {
            if row_mask >> (l / 16) & 1 != 0 && bank_mask >> ((l & 15) / 4) & 1 != 0 {
                rb |= 1 << l;
            }
        }
        let rbm = cx.k(Type::Mask, rb);
        let fetch = if fi { cx.k(Type::Mask, u64::MAX) } else { exec };
        let valid = cx.b().lane(LaneOp::DppValid(p), Type::B1, &[fetch]);
        let mut mask = cx.b().int(isabridge_ir::ops::int::IntOp::And, Type::Mask, &[exec, rbm]);
        if !bc {
            let vm = cx.b().lane(LaneOp::Ballot, Type::Mask, &[valid, exec]);
            mask = cx.b().int(isabridge_ir::ops::int::IntOp::And, Type::Mask, &[mask, vm]);
        }
        Ok(Valu { mask, dpp: Some((p, fi, fetch)) })
    }

    /// Dword `k` of explicit source `i` (DPP permutes source 0; invalid lanes read 0; an SDWA
    /// form selects its part).
    pub fn src32(&self, cx: &mut Cx, at: &At, op: &Operand, i: usize, k: u16) -> Result<Value, LiftError> {
        let v = cx.src32(at, op, k)?;
        let v = super::sdwa::src(cx, at, op, i, v);
        match self.dpp {
            Some((p, _, fetch)) if i == 0 => {
                let zero = cx.k32(0);
                Ok(cx.b().lane(LaneOp::Dpp(p, true), Type::I32, &[v, zero, fetch]))
            }
            _ => Ok(v),
        }
    }
}

/// Lift a cross-lane instruction that is not a DPP form; None when `name` is not one.
pub(super) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    Some(match name {
        "V_PERMLANE16_B32" | "V_PERMLANEX16_B32" => permlane(cx, at, name == "V_PERMLANEX16_B32"),
        "DS_PERMUTE_B32" | "DS_BPERMUTE_B32" => permute(cx, at, name == "DS_PERMUTE_B32"),
        "V_READFIRSTLANE_B32" => readfirstlane(cx, at),
        "V_READLANE_B32" => readlane(cx, at),
        "V_WRITELANE_B32" => writelane(cx, at),
        _ => return None,
    })
}

fn permlane(cx: &mut Cx, at: &At, cross: bool) -> Result<(), LiftError> {
    let d = at.def().ok_or_else(|| cx.unsupported(at, "no destination"))?;
    let s = at.srcs();
    if s.len() < 3 {
        return Err(cx.unsupported(at, "permlane operands"));
    }
    // op_sel[0] is fetch-inactive, op_sel[1] bound_ctrl.
    let op_sel = at.inst.modifiers.iter().find_map(|m| if let Modifier::OpSel(x) = m { Some(*x) } else { None }).unwrap_or(0);
    let (fi, bc) = (op_sel & 1 != 0, op_sel & 2 != 0);
    let v = cx.src32(at, s[0], 0)?;
    let lo = cx.src32(at, s[1], 0)?;
    let hi = cx.src32(at, s[2], 0)?;
    let key = cx.key_of(d, 0).ok_or_else(|| cx.unsupported(at, "destination"))?;
    let old = cx.rd(key);
    let exec = cx.exec();
    let fetch = if fi { cx.k(Type::Mask, u64::MAX) } else { exec };
    let r = cx.b().lane(LaneOp::Permlane16 { cross, bound0: bc }, Type::I32, &[v, old, lo, hi, fetch]);
    cx.def_v32(at, d, 0, r, exec)
}

fn permute(cx: &mut Cx, at: &At, push: bool) -> Result<(), LiftError> {
    let d = at.def().ok_or_else(|| cx.unsupported(at, "no destination"))?;
    let s = at.srcs();
    if s.len() < 2 {
        return Err(cx.unsupported(at, "permute operands"));
    }
    // DS instructions carry a 16-bit offset as OFFSET1:OFFSET0.
    let offset = (at.inst.named("OFFSET1").unwrap_or(0) << 8 | at.inst.named("OFFSET0").unwrap_or(0)) as u32;
    let addr = cx.src32(at, s[0], 0)?;
    let data = cx.src32(at, s[1], 0)?;
    let addr = if offset != 0 {
        let o = cx.k32(offset);
        cx.b().int(isabridge_ir::ops::int::IntOp::Add(isabridge_ir::ops::int::Overflow::Wrap), Type::I32, &[addr, o])
    } else {
        addr
    };
    let exec = cx.exec();
    // A wave64 permute stays within its half of 32 lanes, the lane taken from address bits
    // 6:2. Documented for ds_bpermute_b32 by Mesa ACO (src/amd/compiler/aco_lower_to_hw_instr.cpp,
    // emit_bpermute_shared_vgpr): on GFX10 / GFX10.3 the instruction works on half waves only,
    // so ACO emulates a full wave64 bpermute with two of them and a swap of the halves (and on
    // GFX11 with v_permlane64_b32, emit_bpermute_permlane). ds_permute_b32 is taken to share
    // the half-wave crossbar; no source documents it separately.
    let halves = cx.wave64;
    let op = if push { LaneOp::Permute { halves } } else { LaneOp::Bpermute { halves } };
    let r = cx.b().lane(op, Type::I32, &[data, addr, exec]);
    cx.def_v32(at, d, 0, r, exec)
}

fn readfirstlane(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let d = at.def().ok_or_else(|| cx.unsupported(at, "no destination"))?;
    let s = at.srcs();
    let v = cx.src32(at, s[0], 0)?;
    let exec = cx.exec();
    let r = cx.b().lane(LaneOp::ReadFirstLane, Type::I32, &[v, exec]);
    cx.def_s32(at, d, 0, r)
}

/// The lane-select operand of v_readlane / v_writelane: its low 5 (wave32) or 6 (wave64) bits.
fn lane_select(cx: &mut Cx, at: &At, op: &Operand) -> Result<Value, LiftError> {
    let v = cx.src32(at, op, 0)?;
    let m = cx.k32(if cx.wave64 { 63 } else { 31 });
    Ok(cx.b().int(isabridge_ir::ops::int::IntOp::And, Type::I32, &[v, m]))
}

/// SGPR = VGPR of the selected lane, whether that lane is active or not.
fn readlane(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let d = at.def().ok_or_else(|| cx.unsupported(at, "no destination"))?;
    let s = at.srcs();
    if s.len() < 2 {
        return Err(cx.unsupported(at, "readlane operands"));
    }
    let v = cx.src32(at, s[0], 0)?;
    let lane = lane_select(cx, at, s[1])?;
    let r = cx.b().lane(LaneOp::ReadLane, Type::I32, &[v, lane]);
    cx.def_s32(at, d, 0, r)
}

/// The selected lane's VGPR = the scalar value, whether that lane is active or not; other lanes
/// keep theirs.
fn writelane(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let d = at.def().ok_or_else(|| cx.unsupported(at, "no destination"))?;
    let s = at.srcs();
    if s.len() < 2 {
        return Err(cx.unsupported(at, "writelane operands"));
    }
    let v = cx.src32(at, s[0], 0)?;
    let lane = lane_select(cx, at, s[1])?;
    let key = cx.key_of(d, 0).ok_or_else(|| cx.unsupported(at, "destination"))?;
    let old = cx.rd(key);
    let me = cx.b().lane(LaneOp::LaneId, Type::I32, &[]);
    let hit = cx.b().int(isabridge_ir::ops::int::IntOp::Cmp(isabridge_ir::ops::int::ICmp::Eq), Type::B1, &[me, lane]);
    let r = cx.b().select(Type::I32, hit, v, old);
    cx.wr(key, r);
    Ok(())
}
