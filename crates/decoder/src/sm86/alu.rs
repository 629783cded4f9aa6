//! Integer and float ALU, conversions: cross-field spellings the templates cannot express.

use crate::nvidia::{rules, Ctx, Text};

/// Applies the ALU rules.
pub fn fix(ctx: &Ctx, t: &mut Text) {
    rules::single_minus(t);
    match ctx.inst() {
        "I2FP" => {
            rules::dedup_suffixes(t);
            // The source type is one of .S32 / .U32: the U32 spelling of the second type
            // field is the unsigned default and is not printed beside .S32.
            if t.has("S32") {
                t.remove("U32");
            }
        }
        "I2F" | "F2F" | "F2FP" | "ATOMG" | "ATOM" | "RED" => rules::dedup_suffixes(t),
        "IMAD" => {
            imad_alias(t);
            wide_carry_out(ctx, t);
        }
        // A predicate-only vote prints no register destination.
        "VOTE" if t.ops.len() == 3 && t.ops[0] == "RZ" => {
            t.ops.remove(0);
        }
        _ => {}
    }
}

/// An operand without its `.reuse` flag.
fn bare(t: &Text, i: usize) -> &str {
    t.ops.get(i).map(|s| s.strip_suffix(".reuse").unwrap_or(s)).unwrap_or("")
}

/// nvdisasm names three special cases of a plain `IMAD d, a, b, c` (no `.WIDE`, `.HI`, `.X`;
/// measured on nvdisasm 12.8): a zero product (`a` or `b` is `RZ`, `b` is `0x0`) or `b` = `0x1`
/// with `c` = `RZ` is `IMAD.MOV`, unless `c` is a uniform register; `b` = `0x1` is `IMAD.IADD`;
/// `b` another positive power-of-two immediate with `c` = `RZ` is `IMAD.SHL`.
/// IMAD.WIDE(.U32) writes a carry-out predicate (bits 81-83) that nvidia prints after the
/// destination unless it is PT; closure forms probed with PT have no field for it.
fn wide_carry_out(ctx: &Ctx, t: &mut Text) {
    let p = ctx.bits(81, 3);
    if t.has("WIDE") && !t.has("X") && p != 7 && t.ops.len() == 4 && !t.ops[1].starts_with('P') {
        t.ops.insert(1, format!("P{p}"));
    }
}

fn imad_alias(t: &mut Text) {
    // The template may carry the alias of its probe example.
    for a in ["MOV", "IADD", "SHL"] {
        t.remove(a);
    }
    if t.has("WIDE") || t.has("HI") || t.has("X") {
        return;
    }
    let (a, b, c) = (bare(t, 1), bare(t, 2), bare(t, 3));
    let imm = b.strip_prefix("0x").and_then(|h| u32::from_str_radix(h, 16).ok());
    let alias = if c.starts_with("UR") {
        None
    } else if a == "RZ" || b == "RZ" || imm == Some(0) || (imm == Some(1) && c == "RZ") {
        Some("MOV")
    } else if imm == Some(1) {
        Some("IADD")
    } else if c == "RZ" && imm.is_some_and(|v| v.is_power_of_two()) {
        Some("SHL")
    } else {
        None
    };
    if let Some(s) = alias {
        t.mnem = t.mnem.replacen("IMAD", &format!("IMAD.{s}"), 1);
    }
}
