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
    true
}

fn is_dim(s: &str) -> bool {
    matches!(s, "1D" | "2D" | "3D" | "CUBE" | "ARRAY_1D" | "ARRAY_2D" | "ARRAY_3D" | "ARRAY_CUBE")
        || s.starts_with("INVALID")
}
