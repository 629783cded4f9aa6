//! Control flow: PC-relative targets (in words, from the next instruction: `BRA`, `CALL.REL`,
//! `RET.REL` bits 34-81, `BSSY` bits 34-63) print as absolute addresses.

use crate::nvidia::{rules, Ctx, Text};

/// Applies the branch rules; true when the instruction is a branch.
pub fn fix(ctx: &Ctx, t: &mut Text) -> bool {
    match ctx.inst() {
        // offset bits 34-81 (signed, bit 81 measured on nvdisasm 12.8)
        "BRA" => {
            rules::relative_target(ctx, t, 16, 34, 48, 4);
            true
        }
        // offset bits 34-63 (signed, bit 63; bits 64 and up are not read)
        "BSSY" => {
            rules::relative_target(ctx, t, 16, 34, 30, 4);
            true
        }
        "CALL" | "RET" if t.has("REL") => {
            rules::relative_target(ctx, t, 16, 34, 48, 4);
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
