//! SOP1, SOP2, SOPK, SOPC, SOPP: scalar ALU, branches, waits, messages.

use super::{enc, opr, Op};
use crate::amd::print::Ctx;
use crate::amd::operands::{self, Kind};
use crate::amd::symbols;

/// Prints a scalar ALU or program-control instruction.
pub fn print(c: &Ctx<'_, Op>, out: &mut String) {
    let m = c.mnemonic();
    out.push_str(m);
    if m == "s_endpgm" {
        // s_endpgm's optional immediate shows only when set.
        let v = c.bits(0, 16);
        if v != 0 {
            out.push(' ');
            crate::amd::operands::put(out, v);
        }
        return;
    }
    if m == "s_version" {
        out.push(' ');
        symbols::version(out, c.bits(0, 16));
        return;
    }
    for (k, op) in c.ie.operands.iter().enumerate() {
        crate::amd::operands::sep(out, k);
        let v = c.val(op);
        match op.ty {
            opr::OPR_SDST | opr::OPR_SREG => c.sreg(out, v, op.size),
            // Scalar sources are 32-bit words whatever the operation reads of them.
            opr::OPR_SSRC | opr::OPR_SRC => {
                let k = match c.kind(op) {
                    Kind::I16 | Kind::F16 | Kind::PkI16 | Kind::PkF16 | Kind::BF16 => Kind::I32,
                    k => k,
                };
                // A register-only source prints a constant as a 32-bit one.
                let reg_only = operands::sop_register_only(m);
                let (size, k) = if reg_only && operands::is_inline_constant(v) { (32, Kind::I32) } else { (op.size, k) };
                c.src(out, v, size, k);
                operands::sop_source_note(out, m, v, op.size);
            }
            opr::OPR_LABEL => {
                crate::amd::operands::put(out, v);
            }
            opr::OPR_WAITCNT => {
                if m == "s_waitcnt" {
                    symbols::waitcnt_gfx10(out, v)
                } else if m == "s_waitcnt_depctr" {
                    symbols::depctr(out, v, symbols::DEPCTR_GFX10)
                } else {
                    crate::amd::operands::put_hex(out, v);
                }
            }
            opr::OPR_SENDMSG => symbols::sendmsg_gfx10(out, v),
            opr::OPR_HWREG => symbols::hwreg(out, v, symbols::HWREG_GFX10),
            opr::OPR_SIMM32 if m == "s_setreg_imm32_b32" => operands::imm32(out, c.literal()),
            opr::OPR_SIMM32 => operands::kimm(out, c.literal()),
            _ => simm16(c, m, v, out),
        }
    }
}

fn simm16(c: &Ctx<'_, Op>, m: &str, v: u32, out: &mut String) {
    let sopp = c.d.enc == enc::ENC_SOPP;
    let hex = matches!(m, "s_clause" | "s_inst_prefetch" | "s_round_mode" | "s_ttracedata_imm");
    if sopp && !hex && m != "s_waitcnt_depctr" {
        operands::imm(out, v);
    } else if m == "s_waitcnt_depctr" {
        symbols::depctr(out, v, symbols::DEPCTR_GFX10);
    } else {
        crate::amd::operands::put_hex(out, v);
    }
}
