//! FLAT, GLOBAL and SCRATCH memory instructions.

use crate::amd::operands::has;
use super::{enc, fields::ENC_FLAT as F, Op};
use crate::amd::operands;
use crate::amd::print::Ctx;

/// Prints a flat, global or scratch instruction.
pub fn print(c: &Ctx<'_, Op>, out: &mut String) {
    out.push_str(c.mnemonic());
    let seg = c.d.enc;
    let saddr = c.f(F::SADDR);
    // Only null (0x7d) is `off`; global refuses exec_hi, scratch prints it with a note.
    let saddr_off = saddr == 0x7d;
    let m = c.mnemonic();
    let lds = c.f(F::LDS) != 0;
    let mut k = 0;
    // Atomics with GLC return the old value: the destination comes first, sized like the data
    // (half of it for compare-and-swap).
    if has(m, "_atomic_") && c.f(F::GLC) != 0 {
        if let Some(data) = c.ie.operands.iter().find(|o| c.field_name(o) == "DATA") {
            let size = if has(m, "cmpswap") { data.size / 2 } else { data.size };
            out.push(' ');
            operands::vgpr(out, c.f(F::VDST), size);
            k = 1;
        }
    }
    for op in c.ie.operands {
        if lds && c.field_name(op) == "VDST" {
            continue; // loads into LDS have no register destination
        }
        crate::amd::operands::sep(out, k);
        k += 1;
        match c.field_name(op) {
            "ADDR" => {
                if seg == enc::ENC_FLAT_SCRATCH && !saddr_off {
                    out.push_str("off");
                    continue;
                }
                let v = c.val(op);
                if false {
                } else if seg == enc::ENC_FLAT_GLBL && !saddr_off {
                    operands::vgpr(out, v, 32);
                } else {
                    operands::vgpr(out, v, op.size);
                }
            }
            "SADDR" => {
                if saddr_off {
                    out.push_str("off");
                } else {
                    c.sreg(out, saddr, if seg == enc::ENC_FLAT_GLBL { 64 } else { 32 });
                    match (seg, saddr) {
                        _ if lds => {}
                        (enc::ENC_FLAT_GLBL, 0x7e) => operands::invalid_register(out, "SReg_64_XEXEC_XNULL"),
                        (enc::ENC_FLAT_SCRATCH, 0x7f) => operands::invalid_register(out, "SReg_32_XEXEC_HI"),
                        _ => {}
                    }
                }
            }
            _ => operands::vgpr(out, c.val(op), op.size),
        }
    }
    let raw = c.f(F::OFFSET);
    let off = if seg == enc::ENC_FLAT { raw as i32 } else { ((raw << 20) as i32) >> 20 };
    if off != 0 {
        out.push_str(" offset:");
        crate::amd::operands::put(out, off);
    }
    if c.f(F::GLC) != 0 {
        out.push_str(" glc");
    }
    if c.f(F::SLC) != 0 {
        out.push_str(" slc");
    }
    if c.f(F::DLC) != 0 {
        out.push_str(" dlc");
    }
    if c.f(F::LDS) != 0 {
        out.push_str(" lds");
    }
}
