//! MUBUF and MTBUF: buffer loads, stores, atomics and typed buffer access.

use super::{fields::ENC_MUBUF as F, fields::ENC_MTBUF as T, Op};
use crate::amd::formats;
use crate::amd::operands::{self, Kind};
use crate::amd::print::Ctx;
use crate::amd::symbols;

/// Prints a buffer instruction.
pub fn print(c: &Ctx<'_, Op>, out: &mut String) {
    out.push_str(c.mnemonic());
    if c.ie.operands.is_empty() {
        return; // cache invalidations take no operands or modifiers
    }
    let mtbuf = c.d.enc == super::enc::ENC_MTBUF;
    let offen = c.f(F::OFFEN) != 0;
    let idxen = c.f(F::IDXEN) != 0;
    let tfe = c.f(F::TFE) != 0;
    let lds = !mtbuf && c.f(F::LDS) != 0;
    let mut k = 0;
    for op in c.ie.operands {
        if lds && c.field_name(op) == "VDATA" {
            continue; // loads into LDS have no register destination
        }
        crate::amd::operands::sep(out, k);
        k += 1;
        match c.field_name(op) {
            "VADDR" => match (offen, idxen) {
                (false, false) => out.push_str("off"),
                (true, true) => operands::vgpr(out, c.val(op), 64),
                _ => operands::vgpr(out, c.val(op), 32),
            },
            "VDATA" => operands::vgpr(out, c.val(op), op.size + if tfe { 32 } else { 0 }),
            "SRSRC" => c.sreg(out, c.val(op) * 4, 128),
            "SOFFSET" => {
                let v = c.val(op);
                c.src(out, v, 32, Kind::I32);
                if v == 254 {
                    crate::amd::operands::invalid_register(out, "SReg_32"); // lds_direct
                }
            }
            _ => c.sreg(out, c.val(op), op.size),
        }
    }
    let format = mtbuf.then(|| c.f(T::FORMAT)).map(|f| (f, formats::gfx10_buf_fmt(f)));
    symbols::buffer_addressing(out, format, idxen, offen, c.f(F::OFFSET));
    if c.f(F::GLC) != 0 {
        out.push_str(" glc");
    }
    if c.f(F::SLC) != 0 {
        out.push_str(" slc");
    }
    if c.f(F::DLC) != 0 {
        out.push_str(" dlc");
    }
    if !mtbuf && c.f(F::LDS) != 0 {
        out.push_str(" lds");
    }
    if tfe {
        out.push_str(" tfe");
    }
}
