//! VBUFFER: buffer loads, stores, atomics and typed (tbuffer) access.

use super::ops::{self, sep, MemKind};
use super::{fields::ENC_VBUFFER as F, Op};
use crate::amd::formats;
use crate::amd::operands;
use crate::amd::print::Ctx;
use std::fmt::Write as _;

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
    if m.starts_with("tbuffer") {
        let f = c.f(F::FORMAT);
        if f != 1 {
            match formats::gfx12_buf_fmt(f) {
                Some(n) => {
                    let _ = write!(out, " format:[{n}]");
                }
                None => {
                    let _ = write!(out, " format:{f}");
                }
            }
        }
    }
    if idxen {
        out.push_str(" idxen");
    }
    if offen {
        out.push_str(" offen");
    }
    let off = c.f(F::IOFFSET);
    if off != 0 {
        let _ = write!(out, " offset:{off}");
    }
    ops::cache_policy(out, MemKind::of(m), c.f(F::TH), c.f(F::SCOPE));
    if c.f(F::NV) != 0 {
        out.push_str(" nv");
    }
    if tfe {
        out.push_str(" tfe");
    }
}
