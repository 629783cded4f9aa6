//! Texture instructions: operands whose probed field is narrower or mode-dependent. Measured on
//! nvdisasm 12.8 by flipping and enumerating the bits involved on fuzz-set words.

use crate::nvidia::{Ctx, Text};

/// `TXQ` query names by number (bits 23-27); other numbers print in decimal.
fn query(q: u64) -> Option<&'static str> {
    Some(match q {
        0 => "TEX_HEADER_DIMENSION",
        1 => "TEX_HEADER_TEXTURE_TYPE",
        2 => "TEX_HEADER_SAMPLER_POS",
        8 => "TEX_SAMPLER_FILTER",
        9 => "TEX_SAMPLER_LOD",
        10 => "TEX_SAMPLER_WRAP",
        11 => "TEX_SAMPLER_BORDER_COLOR",
        _ => return None,
    })
}

fn is_hex(o: &str) -> bool {
    o.starts_with("0x")
}

/// Applies the rules; true when the instruction was handled here.
pub fn fix(ctx: &Ctx, t: &mut Text) -> bool {
    let name = ctx.inst();
    let bindless = t.has("B");
    match name {
        "TXQ" => {
            let q = ctx.bits(23, 5);
            if let Some(o) = t.ops.get_mut(2) {
                *o = query(q).map(str::to_string).unwrap_or_else(|| q.to_string());
            }
            if bindless {
                if let Some(o) = t.ops.get_mut(3) {
                    *o = "0x0".to_string();
                }
            }
        }
        // The texture index (before the dimension) is `0x0` in bindless (`.B`) `TLD` / `TXD`;
        // `TXD` reads it from bits 36-48 otherwise.
        "TLD" | "TXD" => {
            let dim = t.ops.iter().position(|o| {
                o.ends_with('D') && o.len() <= 10 && o.bytes().next().is_some_and(|b| b.is_ascii_digit() || b == b'A' || b == b'C')
                    || o.starts_with("CUBE")
                    || o.starts_with("ARRAY_")
            });
            if let Some(k) = dim.filter(|&k| k > 0 && is_hex(&t.ops[k - 1])) {
                if bindless {
                    t.ops[k - 1] = "0x0".to_string();
                } else if name == "TXD" {
                    t.ops[k - 1] = format!("{:#x}", ctx.bits(36, 13));
                }
            }
        }
        // A second destination register of `RZ` is left out. The channels (bits 50-52) name
        // one or two components when the register of bits 28-35 is `RZ`, else three or four.
        "TEXS" | "TLDS" => {
            if let Some(k) = t.ops.iter().position(|o| is_hex(o)) {
                if k >= 4 && t.ops[k - 1] == "RZ" {
                    t.ops.remove(k - 1);
                }
            }
            let narrow = ["R", "G", "B", "A", "RG", "RA", "GA", "BA"];
            let wide = ["RGB", "RGA", "RBA", "GBA", "RGBA", "INVALID5", "INVALID6", "INVALID7"];
            let table = if ctx.bits(28, 8) == 255 { narrow } else { wide };
            if let Some(o) = t.ops.last_mut() {
                *o = table[ctx.bits(50, 3) as usize].to_string();
            }
        }
        _ => return false,
    }
    true
}

/// Whether nvdisasm 12.8 accepts a `TLDS` word (bits 57-63 = 0x6d) for its level / dimension
/// field, bits 53-56 (its table `Tld2D4`; enumerated on two words): 0-2, 4-8 and 12.
#[inline(always)]
pub fn tlds_ok(w: u64) -> bool {
    w >> 57 != 0x6d || matches!(w >> 53 & 0xf, 0..=2 | 4..=8 | 12)
}
