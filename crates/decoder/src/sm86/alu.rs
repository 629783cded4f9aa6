//! Integer and float ALU, conversions: cross-field spellings the templates cannot express.

use crate::nvidia::{rules, Ctx, Text};

/// Applies the ALU rules.
pub fn fix(ctx: &Ctx, t: &mut Text) {
    rules::single_minus(t);
    match ctx.inst() {
        "I2FP" | "I2F" | "F2F" | "ATOMG" | "ATOM" | "RED" => rules::dedup_suffixes(t),
        // IMAD with a zero multiplicand register pair is spelled IMAD.MOV.
        "IMAD"
            if !t.has("MOV")
                && !t.has("WIDE")
                && !t.has("HI")
                && t.ops.get(1).map(|s| s.as_str()) == Some("RZ")
                && t.ops.get(2).map(|s| s.as_str()) == Some("RZ") =>
        {
            t.mnem = t.mnem.replacen("IMAD", "IMAD.MOV", 1);
        }
        _ => {}
    }
}
