//! Control flow: PC-relative targets (bits 34-80 in words, from the next instruction) print as
//! absolute addresses.

use crate::nvidia::{rules, Ctx, Text};

/// Applies the branch rules; true when the instruction is a branch.
pub fn fix(ctx: &Ctx, t: &mut Text) -> bool {
    match ctx.inst() {
        "BRA" | "BSSY" => {
            rules::relative_target(ctx, t, 16, 34, 47, 4);
            true
        }
        "CALL" | "RET" if t.has("REL") => {
            rules::relative_target(ctx, t, 16, 34, 47, 4);
            true
        }
        "BRX" | "JMX" => {
            // The raw signed offset (bits 34-80, in words), not an address.
            let off = (((ctx.bits(34, 47) << 17) as i64) >> 17).wrapping_mul(4);
            let s = if off < 0 { format!("-{:#x}", off.unsigned_abs()) } else { format!("{off:#x}") };
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
