//! Texture instructions (`TEX`, `TLD`, `TLD4`, `TXD`, `TMML`): operands nvdisasm leaves out
//! at their default values (measured on nvdisasm 12.8).

use crate::nvidia::{Ctx, Text};

/// Applies the texture rules; true when the instruction is a texture instruction.
pub fn fix(ctx: &Ctx, t: &mut Text) -> bool {
    if !matches!(ctx.inst(), "TEX" | "TLD" | "TLD4" | "TXD" | "TMML") {
        return false;
    }
    // The predicate destination (sparse residency) is not printed when it is PT.
    if ctx.get("PD") == Some(7) && t.ops.first().map(String::as_str) == Some("PT") {
        t.ops.remove(0);
    }
    // The channel mask is not printed when it is 0xf (all four channels), after the dimension.
    let n = t.ops.len();
    if n >= 2 && t.ops[n - 1] == "0xf" && is_dim(&t.ops[n - 2]) {
        t.ops.pop();
    }
    register_255(ctx, t);
    if ctx.inst() != "TMML" {
        precision(ctx, t);
        eviction(ctx, t);
    }
    true
}

/// The F16 result with its rounding, bits 79-80 (measured on nvdisasm 12.8), printed after the
/// leading `SCR`, channel (`R`, `G`, `A`), `B` and `???n` suffixes.
fn precision(ctx: &Ctx, t: &mut Text) {
    let want: &[&str] = match ctx.bits(79, 2) {
        0 => &[],
        1 => &["F16", "RN"],
        2 => &["F16", "RZ"],
        _ => &["INVALID3"],
    };
    let mut parts: Vec<&str> = t.mnem.split('.').collect();
    if want == ["INVALID3"] {
        let at: Vec<usize> = (1..parts.len()).filter(|&i| parts[i] == "INVALID3").collect();
        match at[..] {
            [] => {}
            [i] => {
                parts.remove(i);
            }
            _ => return,
        }
    }
    let mut k = 1;
    while k < parts.len() {
        if matches!(parts[k], "F16" | "RN" | "RZ") {
            parts.remove(k);
        } else {
            k += 1;
        }
    }
    let at = 1 + parts[1..].iter().take_while(|p| matches!(**p, "SCR" | "R" | "G" | "A" | "B") || p.starts_with("???")).count();
    for (j, w) in want.iter().enumerate() {
        parts.insert(at + j, w);
    }
    t.mnem = parts.join(".");
}

/// Eviction priority, bits 84-86 (value 1 prints nothing), measured on nvdisasm 12.8.
const EVICT: [&str; 8] = ["EF", "", "EL", "LU", "EU", "NA", "INVALID6", "INVALID7"];

/// The eviction priority goes after the sampling suffixes and before `MS`, `CL`, `NDV`, `NODEP`
/// (the learned ranks misplace it where its field also prints other suffixes or placeholders).
fn eviction(ctx: &Ctx, t: &mut Text) {
    let want = EVICT[ctx.bits(84, 3) as usize];
    let mut parts: Vec<&str> = t.mnem.split('.').collect();
    if want.starts_with("INVALID") {
        let at: Vec<usize> = (1..parts.len()).filter(|&i| parts[i] == want).collect();
        if at.len() != 1 {
            return;
        }
        parts.remove(at[0]);
    }
    let mut k = 1;
    while k < parts.len() {
        if matches!(parts[k], "EF" | "EL" | "LU" | "EU" | "NA") {
            parts.remove(k);
        } else {
            k += 1;
        }
    }
    if !want.is_empty() {
        let at = (1..parts.len()).find(|&i| matches!(parts[i], "MS" | "CL" | "NDV" | "NODEP")).unwrap_or(parts.len());
        parts.insert(at, want);
    }
    t.mnem = parts.join(".");
}

/// Register 255 in bits 32-39 prints `???255` or is left out, per opcode
/// ([`crate::nvidia::model::texture_register_255`]).
fn register_255(ctx: &Ctx, t: &mut Text) {
    if ctx.bits(32, 8) != 255 {
        return;
    }
    let w = (ctx.bits(0, 12) | 255 << 32 | ctx.bits(59, 1) << 59) as u128;
    let Some(unnamed) = crate::nvidia::model::texture_register_255(crate::Isa::Sm86, ctx.inst(), w) else { return };
    let Some(i) = super::round3::reg_operand(ctx, t, 32) else { return };
    if t.ops[i] != "RZ" {
        return;
    }
    if unnamed {
        t.ops[i] = "???255".to_string();
    } else {
        t.ops.remove(i);
    }
}

fn is_dim(s: &str) -> bool {
    matches!(s, "1D" | "2D" | "3D" | "CUBE" | "ARRAY_1D" | "ARRAY_2D" | "ARRAY_3D" | "ARRAY_CUBE")
        || s.starts_with("INVALID")
}
