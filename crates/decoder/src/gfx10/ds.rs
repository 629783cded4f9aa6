//! DS: LDS and GDS operations.

use super::{fields::ENC_DS as F, Op};
use crate::amd::operands;
use crate::amd::print::Ctx;
use std::fmt::Write as _;

/// Prints an LDS/GDS instruction.
pub fn print(c: &Ctx<'_, Op>, out: &mut String) {
    let m = c.mnemonic();
    out.push_str(m);
    for (k, op) in c.ie.operands.iter().enumerate() {
        out.push_str(if k == 0 { " " } else { ", " });
        operands::vgpr(out, c.val(op), op.size);
    }
    let o0 = c.f(F::OFFSET0);
    let o1 = c.f(F::OFFSET1);
    if m.contains("read2") || m.contains("write2") || m.contains("wrxchg2") {
        if o0 != 0 {
            let _ = write!(out, " offset0:{o0}");
        }
        if o1 != 0 {
            let _ = write!(out, " offset1:{o1}");
        }
    } else {
        let off = o0 | o1 << 8;
        if m == "ds_swizzle_b32" && off != 0 {
            out.push_str(" offset:");
            swizzle(out, off);
        } else if off != 0 {
            let _ = write!(out, " offset:{off}");
        }
    }
    if c.f(F::GDS) != 0 {
        out.push_str(" gds");
    }
}

/// ds_swizzle_b32's offset as LLVM's swizzle() macro.
fn swizzle(out: &mut String, off: u32) {
    if off & 0x8000 != 0 {
        let _ = write!(out, "swizzle(QUAD_PERM,{},{},{},{})", off & 3, off >> 2 & 3, off >> 4 & 3, off >> 6 & 3);
        return;
    }
    let and = off & 0x1f;
    let or = off >> 5 & 0x1f;
    let xor = off >> 10 & 0x1f;
    if and == 0x1f && or == 0 && xor.count_ones() == 1 {
        let _ = write!(out, "swizzle(SWAP,{xor})");
    } else if and == 0x1f && or == 0 && xor != 0 && (xor + 1).is_power_of_two() {
        let _ = write!(out, "swizzle(REVERSE,{})", xor + 1);
    } else if xor == 0 && (and ^ 0x1f).wrapping_add(1).is_power_of_two() && (and ^ 0x1f) + 1 >= 2 && or < (and ^ 0x1f) + 1 {
        let group = (and ^ 0x1f) + 1;
        let _ = write!(out, "swizzle(BROADCAST,{group},{or})");
    } else {
        out.push_str("swizzle(BITMASK_PERM,\"");
        for i in (0..5).rev() {
            let a = and >> i & 1;
            let o = or >> i & 1;
            let x = xor >> i & 1;
            out.push(match (a, o, x) {
                (0, 0, 0) => '0',
                (0, 1, 0) => '1',
                (1, 0, 0) => 'p',
                (1, 0, 1) => 'i',
                (0, 0, 1) => '1',
                (0, 1, 1) => '0',
                (1, 1, 0) => '1',
                _ => '0',
            });
        }
        out.push_str("\")");
    }
}
