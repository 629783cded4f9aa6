//! Integer and float ALU, conversions: cross-field spellings the templates cannot express.

use crate::nvidia::{rules, Ctx, Text};

/// Applies the ALU rules.
pub fn fix(ctx: &Ctx, t: &mut Text) {
    rules::single_minus(t);
    match ctx.inst() {
        "I2F" => {
            int_source_type(t);
            rules::dedup_suffixes(t);
        }
        "F2F" => {
            rounding_from_field(ctx, t);
            rules::dedup_suffixes(t);
        }
        _ => {}
    }
}

fn int_type(s: &str) -> Option<(char, &str)> {
    let (c, w) = s.split_at(1);
    (matches!(c, "S" | "U") && matches!(w, "8" | "16" | "32" | "64")).then(|| (c.chars().next().unwrap_or('U'), w))
}

/// `I2F`: the source type is printed by two fields, its width (`U64`) and its signedness
/// (`S32` / `U32`); nvdisasm prints one type with the sign of the second and the width of the
/// first (`U64` + `S32` -> `S64`).
fn int_source_type(t: &mut Text) {
    let mut parts: Vec<String> = t.mnem.split('.').map(str::to_string).collect();
    for i in 1..parts.len().saturating_sub(1) {
        if let (Some((_, w)), Some((s, "32"))) = (int_type(&parts[i]), int_type(&parts[i + 1])) {
            parts[i] = format!("{s}{w}");
            parts.remove(i + 1);
            break;
        }
    }
    t.mnem = parts.join(".");
}

/// `F2F`: the probed type field's spellings carry the example's rounding mode; the rounding
/// printed is the `RND` field's alone.
fn rounding_from_field(ctx: &Ctx, t: &mut Text) {
    let Some(rnd) = ctx.get("RND") else { return };
    let keep = ["", ".RM", ".RP", ".RZ"][rnd as usize & 3];
    let mut out = String::with_capacity(t.mnem.len());
    let mut seen = false;
    for (i, p) in t.mnem.split('.').enumerate() {
        if i > 0 && matches!(p, "RM" | "RP" | "RZ" | "RN") {
            if seen || keep.get(1..) != Some(p) {
                continue;
            }
            seen = true;
        }
        if i > 0 {
            out.push('.');
        }
        out.push_str(p);
    }
    t.mnem = out;
}
