//! SMEM: scalar memory loads, stores, atomics and cache control.

use crate::amd::operands::has;
use super::{fields::ENC_SMEM as F, Op};
use crate::amd::print::Ctx;

/// Prints a scalar memory instruction.
pub fn print(c: &Ctx<'_, Op>, out: &mut String) {
    out.push_str(c.mnemonic());
    // The 21-bit offset is signed; SOFFSET = null means "no register offset".
    let imm = || ((c.f(F::OFFSET) << 11) as i32) >> 11;
    for (k, op) in c.ie.operands.iter().enumerate() {
        crate::amd::operands::sep(out, k);
        let v = c.val(op);
        match c.field_name(op) {
            // SBASE counts SGPR pairs.
            "SBASE" => c.sreg(out, v * 2, op.size),
            "SOFFSET" => {
                let soff = c.f(F::SOFFSET);
                let imm = imm();
                if soff == c.names.null {
                    if imm == 0 {
                        out.push_str("null");
                    } else {
                        signed_hex(out, imm);
                    }
                } else {
                    c.sreg(out, soff, 32);
                    if imm != 0 {
                        out.push_str(" offset:");
                        signed_hex(out, imm);
                    }
                }
            }
            // s_atc_probe* take an immediate in SDATA.
            "SDATA" if c.mnemonic().starts_with("s_atc_probe") => crate::amd::operands::imm(out, v),
            "SDATA" if has(c.mnemonic(), "atomic") && c.f(F::GLC) != 0 => {
                // A returning atomic's data is also its destination: LLVM reads the register
                // twice (and warns twice).
                c.note_tuple(v, op.size);
                c.sreg(out, v, op.size);
                data_note(out, v, op.size);
            }
            "SDATA" => {
                c.sreg(out, v, op.size);
                data_note(out, v, op.size);
            }
            _ => c.sreg(out, v, op.size),
        }
    }
    let m = c.mnemonic();
    if !(has(m, "load") || has(m, "store") || has(m, "atomic")) {
        return; // probes, cache maintenance and timers take no cache policy
    }
    if c.f(F::GLC) != 0 {
        out.push_str(" glc");
    }
    if c.f(F::DLC) != 0 {
        out.push_str(" dlc");
    }
}

/// LLVM's note after SDATA (loads, stores, atomics, timers alike): its register classes leave
/// out m0 and exec.
fn data_note(out: &mut String, v: u32, size: u16) {
    match (size, v) {
        (32, 124 | 126 | 127) => crate::amd::operands::invalid_register(out, "SReg_32_XM0_XEXEC"),
        (64, 126) => crate::amd::operands::invalid_register(out, "SReg_64_XEXEC"),
        _ => {}
    }
}

fn signed_hex(out: &mut String, v: i32) {
    if v < 0 {
        out.push('-');
        crate::amd::operands::put_hex(out, -(v as i64));
    } else {
        crate::amd::operands::put_hex(out, v);
    }
}
