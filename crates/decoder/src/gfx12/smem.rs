//! SMEM: scalar memory loads, prefetches, cache control.

use crate::amd::operands::has;
use super::ops::{self, MemKind};
use super::{fields::ENC_SMEM as F, Op};
use crate::amd::print::Ctx;

/// Prints a scalar memory instruction.
pub fn print(c: &Ctx<'_, Op>, out: &mut String) {
    let m = c.mnemonic();
    out.push_str(m);
    let imm = ops::sext(c.f(F::IOFFSET), 24);
    let soff = c.f(F::SOFFSET);
    let prefetch = has(m, "prefetch");
    let mut k = 0;
    for op in c.ie.operands {
        ops::sep(out, &mut k);
        let v = c.val(op);
        match c.field_name(op) {
            "SBASE" => {
                // SBASE counts SGPR pairs; a 128-bit descriptor sits on a multiple of 4 (LLVM
                // warns about the pair it was given and prints the aligned tuple).
                if op.size >= 128 {
                    c.note_tuple(v * 2, op.size);
                }
                let base = if op.size >= 128 { (v * 2) & !3 } else { v * 2 };
                c.sreg(out, base, op.size)
            }
            "SDATA" if prefetch || m.starts_with("s_atc_probe") => {
                crate::amd::operands::put(out, v);
            }
            "IOFFSET" => ops::signed_hex(out, imm),
            "SOFFSET" if prefetch => c.sreg(out, soff, 32),
            "SOFFSET" => {
                if soff == c.names.null {
                    ops::signed_hex(out, imm);
                } else {
                    c.sreg(out, soff, 32);
                    out.push_str(" offset:");
                    ops::signed_hex(out, imm);
                }
            }
            "SDATA" => {
                c.sreg(out, v, op.size);
                // LLVM's destination classes leave out m0 and exec.
                match (op.size, v) {
                    (32, 125..=127) => crate::amd::operands::invalid_register(out, "SReg_32_XM0_XEXEC"),
                    (64, 126) => crate::amd::operands::invalid_register(out, "SReg_64_XEXEC"),
                    _ => {}
                }
            }
            _ => c.sreg(out, v, op.size),
        }
    }
    if prefetch || c.ie.operands.is_empty() || m.starts_with("s_atc_probe") {
        return;
    }
    if c.f(F::SCALE_OFFSET) != 0 {
        out.push_str(" scale_offset");
    }
    ops::cache_policy(out, MemKind::Load, c.f(F::TH), c.f(F::SCOPE));
    if c.f(F::NV) != 0 {
        out.push_str(" nv");
    }
}
