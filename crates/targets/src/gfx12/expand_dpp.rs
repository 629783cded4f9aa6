//! DPP16 forms of VOP1 / VOP2 instructions that gfx1201 has only without DPP
//! (`v_pk_fmac_f16`). What the DPP form does, as the AMD lifter's lanes.rs says: source 0 is read
//! from the lane the DPP control names; a lane whose source lane is invalid (inactive, or outside
//! its row) reads 0 with bound_ctrl and otherwise does not write; row and bank masks keep lanes
//! from writing. The sequence runs that lane logic with `v_mov_b32_dpp` under the same control,
//! masks and bound_ctrl, and the op without DPP:
//! - `v_mov_b32_dpp t0, src0`: source 0 as the op reads it, in the lanes that write;
//! - `v_mov_b32 t1, 2`, `v_mov_b32 t2, 1`, `v_mov_b32_dpp t1, t2`: t1 is 1 (or 0 where
//!   bound_ctrl zeroes an invalid source) in the lanes that write and 2 in the others;
//!   `v_cmp_ne_u32 m, 2, t1`: the lanes that write;
//! - `v_mov_b32 t3, dst` (the op may accumulate into its destination), the op into `t3` with
//!   `t0` for source 0, `v_cndmask_b32 dst, dst, t3, m`.
//!
//! fetch-inactive (the DPP source read from inactive lanes, whose t2 the moves do not set) and
//! source modifiers are typed errors.

use super::expand::{dst_srcs, emit, int_const, plain, ExpandCx, Src};
use super::map::{row, MapKind, MapRow};
use super::{unsupported, TranslateError};
use isabridge_decoder::operand::Modifier;
use isabridge_decoder::Inst;

/// The expansion of a DPP16 row gfx1201 lacks; None for other rows.
pub(super) fn expand(inst: &Inst, r: &MapRow, cx: &ExpandCx) -> Option<Result<Vec<Inst>, TranslateError>> {
    let plain_enc = match r.gfx10_enc {
        "ENC_VOP1_DPP16" => "ENC_VOP1",
        "ENC_VOP2_DPP16" => "ENC_VOP2",
        _ => return None,
    };
    if r.kind != MapKind::Unsupported || r.gfx10 == "V_NOP" {
        return None;
    }
    let r0 = row(r.gfx10, plain_enc).filter(|r0| matches!(r0.kind, MapKind::Reencode | MapKind::Rename))?;
    Some(dpp(inst, r0, cx))
}

fn dpp(inst: &Inst, r0: &MapRow, cx: &ExpandCx) -> Result<Vec<Inst>, TranslateError> {
    if inst.modifiers.iter().any(|m| matches!(m, Modifier::FetchInactive)) {
        return Err(unsupported(inst, "DPP fetch-inactive without a gfx1201 DPP form: not expanded"));
    }
    let (d, s) = dst_srcs(inst)?;
    if s.is_empty() || s.iter().any(|o| o.mods.neg || o.mods.abs) {
        return Err(unsupported(inst, "DPP form with source modifiers without a gfx1201 DPP form: not expanded"));
    }
    let dpp_mods: Vec<Modifier> = inst
        .modifiers
        .iter()
        .filter(|m| matches!(m, Modifier::DppCtrl(_) | Modifier::RowMask(_) | Modifier::BankMask(_) | Modifier::BoundCtrl))
        .copied()
        .collect();
    let [t0, t1, t2, t3] = [cx.vtemp(inst, 0, 1)?, cx.vtemp(inst, 1, 1)?, cx.vtemp(inst, 2, 1)?, cx.vtemp(inst, 3, 1)?];
    let m = cx.mask(inst)?;
    let mov = |dst, src| emit(inst, "V_MOV_B32", "ENC_VOP1", &[plain(dst), plain(src)], &[]);
    let mov_dpp = |dst, src| emit(inst, "V_MOV_B32", "ENC_VOP1_DPP16", &[plain(dst), plain(src)], &dpp_mods);
    let mut out = vec![mov_dpp(t0, s[0].kind)?, mov(t1, int_const(2))?, mov(t2, int_const(1))?, mov_dpp(t1, t2)?];
    out.push(emit(inst, "V_CMP_NE_U32", "ENC_VOP3", &[plain(m), plain(int_const(2)), plain(t1)], &[])?);
    out.push(mov(t3, d.kind)?);
    let mut ops: Vec<Src> = vec![plain(t3), plain(t0)];
    ops.extend(s[1..].iter().map(|o| (o.kind, o.mods)));
    let mods: Vec<Modifier> = inst.modifiers.iter().filter(|m| matches!(m, Modifier::Clamp | Modifier::Omod(_))).copied().collect();
    out.push(emit(inst, r0.gfx12, r0.gfx12_enc, &ops, &mods)?);
    out.push(emit(inst, "V_CNDMASK_B32", "ENC_VOP3", &[plain(d.kind), plain(d.kind), plain(t3), plain(m)], &[])?);
    Ok(out)
}
