//! Unfused multiply-add (`v_mad_f32`, `v_mac_f32`, `v_madak_f32`, `v_madmk_f32`,
//! `v_mad_legacy_f32`, `v_mac_legacy_f32`): gfx1201 has only the fused forms, which round once.
//! gfx1013's are two operations (the AMD lifter's vfloat.rs `mad`): the product rounded under
//! MODE (rounding, denormals flushed on input and output as MODE says; the legacy forms take
//! 0 × anything as 0), then the sum with the instruction's clamp and output modifier. The
//! sequence is exactly that: `v_mul_f32` (`v_mul_dx9_zero_f32` for the legacy forms) into a
//! temporary, with the sources' abs / neg, then `v_add_f32` of the temporary and the addend
//! (with its modifiers, the clamp and the output modifier) into the destination. The addend of
//! the `mac` forms is the destination's old value; `madmk` multiplies by its literal, `madak`
//! adds it.
//!
//! DPP and SDWA forms are not expanded (typed errors).

use super::expand::{dst_srcs, emit, plain, ExpandCx, Src};
use super::map::{MapKind, MapRow};
use super::{unsupported, TranslateError};
use isabridge_decoder::Inst;

/// The expansion of a multiply-add row; None for other rows.
pub(super) fn expand(inst: &Inst, r: &MapRow, cx: &ExpandCx) -> Option<Result<Vec<Inst>, TranslateError>> {
    let legacy = match r.gfx10 {
        "V_MAD_F32" | "V_MAC_F32" | "V_MADAK_F32" | "V_MADMK_F32" => false,
        "V_MAD_LEGACY_F32" | "V_MAC_LEGACY_F32" => true,
        _ => return None,
    };
    if r.kind != MapKind::Sequence || !matches!(r.gfx10_enc, "ENC_VOP2" | "ENC_VOP3") {
        return None;
    }
    Some(mad(inst, r, cx, legacy))
}

fn mad(inst: &Inst, r: &MapRow, cx: &ExpandCx, legacy: bool) -> Result<Vec<Inst>, TranslateError> {
    let (d, s) = dst_srcs(inst)?;
    let mut src: Vec<Src> = s.iter().map(|o| (o.kind, o.mods)).collect();
    if r.gfx10.starts_with("V_MAC") {
        // The accumulator is the destination's old value (no modifiers).
        src.push(plain(d.kind));
    }
    let [a, b, c] = src[..] else { return Err(unsupported(inst, "multiply-add operands")) };
    let t = cx.vtemp(inst, 0, 1)?;
    let mul = if legacy { "V_MUL_DX9_ZERO_F32" } else { "V_MUL_F32" };
    let product = emit(inst, mul, "ENC_VOP3", &[plain(t), a, b], &[])?;
    let sum = emit(inst, "V_ADD_F32", "ENC_VOP3", &[plain(d.kind), plain(t), c], &inst.modifiers)?;
    Ok(vec![product, sum])
}
