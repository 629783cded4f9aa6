//! Scalar and vector ALU instructions (SOP1, SOP2, SOPC, SOPK, SOPP, VOP1, VOP2, VOPC, VOP3,
//! VOP3B -> VOP3SD, VOP3P, DPP16, DPP8): the operands and modifiers carry over; each explicit
//! operand moves to the gfx1201 field at the same position of the gfx1201 form's operand list
//! (a VOP2 instruction gfx1201 has only as VOP3 takes VOP3's fields).

use super::map::{gfx12_encoding, gfx12_fields, gfx12_opcode, gfx12_operands, MapRow};
use super::{unsupported, TranslateError};
use isabridge_decoder::operand::OperandKind;
use isabridge_decoder::{Inst, Isa};

/// gfx1013 instructions the map re-encodes whose operands gfx1201 reads differently, so that
/// carrying the fields over would change the meaning.
fn changed_meaning(inst: &Inst) -> Option<&'static str> {
    match inst.name {
        // Message and hardware-register ids were renumbered in gfx11/gfx12.
        "S_SENDMSG" | "S_SENDMSGHALT" | "S_SENDMSG_RTN_B32" | "S_SENDMSG_RTN_B64" => {
            Some("message ids differ between gfx1013 and gfx1201; no id map yet")
        }
        "S_GETREG_B32" | "S_SETREG_B32" | "S_SETREG_IMM32_B32" => {
            Some("hardware-register ids differ between gfx1013 and gfx1201; no id map yet")
        }
        // The gfx1201 s_setprio / s_sleep keep their meaning; the traps and debug ops do not.
        "S_TRAP" | "S_SETHALT" | "S_TTRACEDATA" | "S_TTRACEDATA_IMM" => {
            Some("trap and trace handling differ on gfx1201")
        }
        _ => None,
    }
}

/// The gfx1201 form of ALU instruction `inst` under map row `r` (also the field carry of
/// encodings whose fields keep their names, [`super::ds`]).
pub(super) fn translate(inst: &Inst, r: &MapRow) -> Result<Inst, TranslateError> {
    if let Some(why) = changed_meaning(inst) {
        return Err(unsupported(inst, why));
    }
    let (opcode, name) = gfx12_opcode(r.gfx12).ok_or_else(|| unsupported(inst, "the map names a gfx1201 instruction the tables lack"))?;
    // An instruction without operands (v_nop, v_pipeflush) in VOP3 has the same text as its VOP1
    // form, and llvm-mc assembles that text to VOP1: use VOP1, the form the text gives back.
    let enc = if r.gfx12_enc == "ENC_VOP3" && inst.explicit().next().is_none() && gfx12_fields(opcode, "ENC_VOP1").is_some() {
        "ENC_VOP1"
    } else {
        r.gfx12_enc
    };
    let encoding = gfx12_encoding(enc).ok_or_else(|| unsupported(inst, "the map names a gfx1201 encoding the tables lack"))?;
    let ops12 = gfx12_operands(opcode, encoding).ok_or_else(|| unsupported(inst, "gfx1201 lacks the form the map names"))?;
    let fields: Vec<&'static str> = ops12.iter().filter_map(|&(field, _)| field).collect();
    let mut out = Inst { isa: Isa::Gfx1201, opcode, name, encoding, ..inst.clone() };
    // Whether a literal feeds a 16-bit operand of the gfx1201 form.
    let lit16 = out
        .operands
        .iter()
        .filter(|o| !o.implicit)
        .zip(&ops12)
        .any(|(o, &(_, half))| matches!(o.kind, OperandKind::Literal(_)) && half);
    let mut k = 0usize;
    for o in out.operands.iter_mut().filter(|o| !o.implicit) {
        // A 16-bit operand reads the literal's low half; gfx1201's canonical literal has the
        // high half zero (llvm-mc-22 assembles `v_mul_lo_u16 v0, 0xff93, v6` with 0x0000ff93,
        // where gfx1013 code carries 0xffffff93).
        if let OperandKind::Literal(x) = &mut o.kind {
            if lit16 {
                *x &= 0xffff;
            }
        }
        // The literal dword is no field of either form's operand list.
        if matches!(o.kind, OperandKind::Literal(_)) && o.field == "LITERAL" {
            continue;
        }
        let f = fields.get(k).ok_or_else(|| unsupported(inst, "gfx1201's form has fewer operands"))?;
        o.field = f;
        k += 1;
    }
    if k != fields.len() {
        return Err(unsupported(inst, "gfx1201's form has more operands"));
    }
    Ok(out)
}
