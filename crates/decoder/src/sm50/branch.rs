//! Control flow: PC-relative targets (bits 20-43, from the next instruction) print as absolute
//! addresses; `BRX`/`JMX` print the raw signed offset.

use crate::nvidia::{rules, Ctx, Text};

/// Applies the branch rules; true when the instruction is a branch.
pub fn fix(ctx: &Ctx, t: &mut Text) -> bool {
    match ctx.inst() {
        "BRA" | "SSY" | "PBK" | "PCNT" | "CAL" | "PRET" => {
            rules::relative_target(ctx, t, 8, 20, 24, 1);
            true
        }
        "BRX" | "JMX" => {
            let off = ((ctx.bits(20, 24) << 40) as i64) >> 40;
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
