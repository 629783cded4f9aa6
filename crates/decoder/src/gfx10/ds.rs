//! DS: LDS and GDS operations.

use crate::amd::operands::has;
use super::{fields::ENC_DS as F, Op};
use crate::amd::operands;
use crate::amd::print::Ctx;
use crate::amd::symbols;

/// Prints an LDS/GDS instruction.
pub fn print(c: &Ctx<'_, Op>, out: &mut String) {
    let m = c.mnemonic();
    out.push_str(m);
    for (k, op) in c.ie.operands.iter().enumerate() {
        crate::amd::operands::sep(out, k);
        operands::vgpr(out, c.val(op), op.size);
    }
    let o0 = c.f(F::OFFSET0);
    let o1 = c.f(F::OFFSET1);
    if has(m, "read2") || has(m, "write2") || has(m, "wrxchg2") {
        if o0 != 0 {
            out.push_str(" offset0:");
            crate::amd::operands::put(out, o0);
        }
        if o1 != 0 {
            out.push_str(" offset1:");
            crate::amd::operands::put(out, o1);
        }
    } else {
        let off = o0 | o1 << 8;
        if m == "ds_swizzle_b32" && off != 0 {
            out.push_str(" offset:");
            symbols::ds_swizzle(out, off);
        } else if off != 0 {
            out.push_str(" offset:");
            crate::amd::operands::put(out, off);
        }
    }
    if c.f(F::GDS) != 0 {
        out.push_str(" gds");
    }
}
