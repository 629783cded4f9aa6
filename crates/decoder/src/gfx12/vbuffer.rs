//! VBUFFER: buffer loads, stores, atomics and typed (tbuffer) access.

use super::ops::{self, sep, MemKind};
use super::{fields::ENC_VBUFFER as F, Op};
use crate::amd::formats;
use crate::amd::operands;
use crate::amd::print::Ctx;

/// Prints a buffer instruction.
pub fn print(c: &Ctx<'_, Op>, out: &mut String) {
    let m = c.mnemonic();
    out.push_str(m);
    let offen = c.f(F::OFFEN) != 0;
    let idxen = c.f(F::IDXEN) != 0;
    let tfe = c.f(F::TFE) != 0;
    let mut k = 0;
    for op in c.ie.operands {
        sep(out, &mut k);
        let v = c.val(op);
        match c.field_name(op) {
            "VADDR" => match (offen, idxen) {
                (false, false) => out.push_str("off"),
                (true, true) => operands::vgpr(out, v, 64),
                _ => operands::vgpr(out, v, 32),
            },
            "VDATA" => operands::vgpr(out, v, op.size + if tfe { 32 } else { 0 }),
            "RSRC" => c.sreg(out, v, 128),
            "SOFFSET" => c.sreg(out, v, 32),
            _ => c.sreg(out, v, op.size),
        }
    }
    let format = m.starts_with("tbuffer").then(|| c.f(F::FORMAT)).map(|f| (f, formats::gfx12_buf_fmt(f)));
    crate::amd::symbols::buffer_addressing(out, format, idxen, offen, c.f(F::IOFFSET));
    ops::cache_policy(out, MemKind::of(m), c.f(F::TH), c.f(F::SCOPE));
    if c.f(F::NV) != 0 {
        out.push_str(" nv");
    }
    if tfe {
        out.push_str(" tfe");
    }
}
