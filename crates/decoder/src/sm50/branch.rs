//! Control flow: PC-relative targets (bits 20-43, from the next instruction) print as absolute
//! addresses; `BRX`/`JMX` print the raw signed offset (`BRX` bits 20-43, `JMX` bits 20-51).

use crate::nvidia::{rules, Ctx, Text};

/// Applies the branch rules; true when the instruction is a branch.
pub fn fix(ctx: &Ctx, t: &mut Text) -> bool {
    match ctx.inst() {
        "BRA" | "SSY" | "PBK" | "PCNT" | "CAL" | "PRET" | "PEXIT" | "PLONGJMP" => {
            rules::relative_target(ctx, t, 8, 20, 24, 1);
            true
        }
        "BRX" | "JMX" => {
            // BRX: 24-bit offset; JMX: 32 bits (20-51), measured on nvdisasm 12.8.
            let n = if ctx.inst() == "JMX" { 32 } else { 24 };
            let off = ((ctx.bits(20, n) << (64 - n)) as i64) >> (64 - n);
            let s = if off < 0 { format!("-{:#x}", off.unsigned_abs()) } else { format!("{off:#x}") };
            // The template glues the offset to the register operand: `BRX R3 0x..`.
            if let Some(o) = t.ops.last_mut() {
                if let Some(i) = o.rfind(' ') {
                    o.truncate(i + 1);
                    o.push_str(&s);
                }
            }
            true
        }
        _ => false,
    }
}
