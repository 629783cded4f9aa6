//! Control flow: PC-relative targets (bits 32-63, from the next instruction) print as absolute
//! addresses.

use crate::nvidia::{rules, Ctx, Text};

/// Applies the branch rules; true when the instruction is a branch.
pub fn fix(ctx: &Ctx, t: &mut Text) -> bool {
    match ctx.inst() {
        "BRA" | "BSSY" => {
            rules::relative_target(ctx, t, 16, 32, 32);
            true
        }
        "CALL" | "RET" if t.has("REL") => {
            rules::relative_target(ctx, t, 16, 32, 32);
            true
        }
        _ => false,
    }
}
