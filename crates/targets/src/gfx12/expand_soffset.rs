//! Buffer instructions whose SOFFSET is a constant other than 0: gfx1201's SOFFSET field is 7
//! bits and names no constant (0 is `null`, [`super::vbuffer`]). The constant is first moved
//! into a temporary SGPR (`s_mov_b32`, which writes nothing else), which the gfx1201 buffer
//! instruction then reads as its SOFFSET.

use super::expand::{decoded, emit, plain, ExpandCx};
use super::map::{MapKind, MapRow};
use super::{vbuffer, TranslateError};
use isabridge_decoder::operand::OperandKind;
use isabridge_decoder::Inst;

/// The expansion of a buffer instruction with a constant SOFFSET other than 0; None for others.
pub(super) fn expand(inst: &Inst, r: &MapRow, cx: &ExpandCx) -> Option<Result<Vec<Inst>, TranslateError>> {
    if r.gfx12_enc != "ENC_VBUFFER" || !matches!(r.kind, MapKind::Reencode | MapKind::Rename) {
        return None;
    }
    let k = inst.operands.iter().position(|o| {
        o.field == "SOFFSET" && matches!(o.kind, OperandKind::Literal(_) | OperandKind::InlineConst { bits: 1.., .. })
    })?;
    Some(soffset(inst, r, cx, k))
}

fn soffset(inst: &Inst, r: &MapRow, cx: &ExpandCx, k: usize) -> Result<Vec<Inst>, TranslateError> {
    let s = cx.stemp(inst)?;
    let mov = emit(inst, "S_MOV_B32", "ENC_SOP1", &[plain(s), plain(inst.operands[k].kind)], &[])?;
    let mut with_sgpr = inst.clone();
    with_sgpr.operands[k].kind = s;
    let buffer = decoded(inst, &vbuffer::translate(&with_sgpr, r)?)?;
    Ok(vec![mov, buffer])
}
