//! VFLAT, VGLOBAL and VSCRATCH memory instructions.

use crate::amd::operands::has;
use super::ops::{self, sep, MemKind};
use super::{fields::ENC_VFLAT as F, Op};
use crate::amd::operands;
use crate::amd::print::Ctx;

/// Prints a flat, global or scratch instruction.
pub fn print(c: &Ctx<'_, Op>, out: &mut String) {
    let m = c.mnemonic();
    out.push_str(m);
    let seg = c.enc_name();
    let saddr = c.f(F::SADDR);
    let saddr_off = saddr == c.names.null;
    let mut k = 0;
    // Atomics that return (TH bit 0) write VDST first; the spec lists the no-return form only.
    let ret = MemKind::of(m) == MemKind::Atomic && c.f(F::TH) & 1 != 0;
    if ret && !c.ie.operands.iter().any(|o| c.field_name(o) == "VDST") {
        let data = c.ie.operands.iter().find(|o| c.field_name(o) == "VDATA").map(|o| o.size).unwrap_or(32);
        let size = if has(m, "cmpswap") { data / 2 } else { data };
        sep(out, &mut k);
        operands::vgpr(out, c.f(F::VDST), size);
    }
    for op in c.ie.operands {
        sep(out, &mut k);
        let v = c.val(op);
        match c.field_name(op) {
            "VADDR" => {
                if seg == "ENC_VSCRATCH" && c.f(F::SVE) == 0 {
                    out.push_str("off");
                } else if seg == "ENC_VGLOBAL" && !saddr_off {
                    operands::vgpr(out, v, 32);
                } else {
                    operands::vgpr(out, v, op.size);
                }
            }
            "SADDR" => {
                if saddr_off {
                    out.push_str("off");
                } else if seg == "ENC_VGLOBAL" {
                    c.sreg(out, saddr, 64);
                    if saddr == 126 {
                        operands::invalid_register(out, "SReg_64_XEXEC_XNULL");
                    }
                } else {
                    c.sreg(out, saddr, 32);
                    if saddr == 127 && seg == "ENC_VSCRATCH" {
                        operands::invalid_register(out, "SReg_32_XEXEC_HI");
                    }
                }
            }
            _ => operands::vgpr(out, v, op.size),
        }
    }
    let off = ops::sext(c.f(F::IOFFSET), 24);
    if off != 0 && !c.ie.operands.is_empty() {
        out.push_str(" offset:");
        crate::amd::operands::put(out, off);
    }
    if c.f(F::SCALE_OFFSET) != 0 {
        out.push_str(" scale_offset");
    }
    ops::cache_policy(out, MemKind::of(m), c.f(F::TH), c.f(F::SCOPE));
    if c.f(F::NV) != 0 {
        out.push_str(" nv");
    }
}
