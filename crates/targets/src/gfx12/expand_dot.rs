//! The gfx10.3 float dot products of RDNA2 code (decoded by the decoder's dot extension,
//! `isabridge_decoder::amd::dot_ext`; gfx1013 itself has none): `v_dot2_f32_f16` (VOP3P) is
//! gfx1201's `v_dot2_f32_f16` with the same operands and modifiers (op_sel, op_sel_hi, neg_lo,
//! neg_hi, clamp); `v_dot2c_f32_f16` (VOP2 and DPP16, accumulating into its destination), which
//! gfx1201 lacks, is `v_dot2_f32_f16` with the destination as the addend and op_sel_hi set for
//! every source (each half of a packed source for its own product, the f32 addend whole), its
//! DPP form `v_dot2_f32_f16_e64_dpp` with the same DPP control, masks and bound_ctrl. Both are
//! the lifter's `fdot2` (dot.rs) on either side. The integer dot products are typed errors.

use super::expand::{emit, plain, Src};
use super::{unsupported, TranslateError};
use isabridge_decoder::operand::Modifier;
use isabridge_decoder::Inst;

/// op_sel_hi with every source reading its high half for the high product (VOP3P's default).
const OP_SEL_HI_ALL: u8 = 0b111;

/// The translation of a gfx10.3 dot product; None for other instructions.
pub(super) fn expand(inst: &Inst) -> Option<Result<Vec<Inst>, TranslateError>> {
    match (inst.name, inst.encoding) {
        ("V_DOT2_F32_F16", "ENC_VOP3P") => Some(dot2(inst)),
        ("V_DOT2C_F32_F16", "ENC_VOP2" | "ENC_VOP2_DPP16") => Some(dot2c(inst)),
        (n, _) if n.starts_with("V_DOT") => Some(Err(unsupported(inst, "gfx10.3 dot product: only the f16 ones are translated"))),
        _ => None,
    }
}

fn dot2(inst: &Inst) -> Result<Vec<Inst>, TranslateError> {
    let ops: Vec<Src> = inst.explicit().map(|o| (o.kind, o.mods)).collect();
    Ok(vec![emit(inst, "V_DOT2_F32_F16", "ENC_VOP3P", &ops, &inst.modifiers)?])
}

fn dot2c(inst: &Inst) -> Result<Vec<Inst>, TranslateError> {
    let mut ex = inst.explicit();
    let d = *ex.next().filter(|o| o.access.writes()).ok_or_else(|| unsupported(inst, "no destination"))?;
    let srcs: Vec<Src> = ex.map(|o| (o.kind, o.mods)).collect();
    if srcs.len() != 2 || srcs.iter().any(|(_, m)| m.neg || m.abs) {
        return Err(unsupported(inst, "v_dot2c_f32_f16 with source modifiers: not translated"));
    }
    let mut ops = vec![plain(d.kind)];
    ops.extend(srcs);
    ops.push(plain(d.kind));
    let mut mods = vec![Modifier::OpSelHi(OP_SEL_HI_ALL)];
    let enc = if inst.encoding == "ENC_VOP2_DPP16" {
        mods.extend(inst.modifiers.iter().copied());
        "ENC_VOP3P_DPP16"
    } else {
        "ENC_VOP3P"
    };
    Ok(vec![emit(inst, "V_DOT2_F32_F16", enc, &ops, &mods)?])
}
