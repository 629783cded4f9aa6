//! Integer and float ALU, conversions: cross-field spellings the templates cannot express.

use crate::nvidia::{rules, Ctx, Text};

/// Applies the ALU rules.
pub fn fix(ctx: &Ctx, t: &mut Text) {
    rules::single_minus(t);
    if matches!(ctx.inst(), "I2F" | "F2F") {
        rules::dedup_suffixes(t);
    }
}
