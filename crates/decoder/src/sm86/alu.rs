//! Integer and float ALU, conversions: cross-field spellings the templates cannot express.

use crate::nvidia::{float, rules, Ctx, Text};

/// Applies the ALU rules.
pub fn fix(ctx: &Ctx, t: &mut Text) {
    rules::single_minus(t);
    // IDP (opcode 0x026 in bits 0-8); words with the HI bit fall into an IMAD form whose bits 0-1
    // the spec reads as a modifier.
    if ctx.inst() == "IDP" || (ctx.inst() == "IMAD" && ctx.bits(0, 9) == 0x026) {
        t.mnem = idp_mnemonic(ctx);
        return;
    }
    if matches!(ctx.inst(), "F2I" | "FRND" | "MUFU") {
        source_immediate(ctx, t);
    }
    match ctx.inst() {
        // `I2FP.<dst>.<src>[.<rounding>]`, printed whole from its bits (measured on nvdisasm
        // 12.8 by enumerating them): destination bits 75-77, source bit 74 (signed) with bits
        // 84-85, rounding bits 78-79; placeholders `???n` for unnamed values.
        "I2FP" => {
            const DST: [&str; 8] = ["???0", "???1", "F32", "???3", "???4", "???5", "???6", "???7"];
            const SRC: [&str; 8] = ["???0", "???1", "???2", "???3", "U32", "S32", "???6", "???7"];
            const RND: [&str; 4] = ["", ".INVALID1", ".INVALID2", ".RZ"];
            let src = (ctx.bits(74, 1) | ctx.bits(84, 2) << 1) as usize;
            t.mnem = format!(
                "I2FP.{}.{}{}",
                DST[ctx.bits(75, 3) as usize],
                SRC[src],
                RND[ctx.bits(78, 2) as usize]
            );
            // an immediate of a signed source (bit 74) prints signed
            if ctx.bits(74, 1) == 1 {
                if let Some(o) = t.ops.last_mut() {
                    if let Some(v) = o.strip_prefix("0x").and_then(|h| u32::from_str_radix(h, 16).ok()) {
                        if v >= 0x8000_0000 {
                            *o = format!("-{:#x}", (v as i32).unsigned_abs());
                        }
                    }
                }
            }
        }
        "I2F" => {
            rules::dedup_suffixes(t);
            if ctx.bits(0, 9) == 0x106 {
                i2f_types(ctx, t);
            }
            // The byte / half of an 8- or 16-bit source register: bits 60-61.
            let v = ctx.bits(60, 2) as usize;
            let sel = if t.has("S8") || t.has("U8") {
                Some(["", ".B1", ".B2", ".B3"][v])
            } else if t.has("S16") || t.has("U16") {
                Some(["", ".H1", ".INVALID2", ".INVALID3"][v])
            } else {
                None
            };
            let signed_src = !(t.has("U8") || t.has("U16") || t.has("U32") || t.has("U64"));
            if let Some(o) = t.ops.last_mut() {
                if o.contains('[') {
                    // a constant-bank source: the selector follows the whole operand
                    if let Some(sel) = sel {
                        set_trailing_selector(o, sel);
                    }
                } else if let Some(sel) = sel {
                    set_reg_suffix(o, sel);
                } else if signed_src {
                    // a 32-bit immediate of a signed source prints signed
                    if let Some(v) = o.strip_prefix("0x").and_then(|h| u32::from_str_radix(h, 16).ok()) {
                        if v >= 0x8000_0000 {
                            *o = format!("-{:#x}", (v as i32).unsigned_abs());
                        }
                    }
                }
            }
        }
        // The byte of the source register: bits 76-77.
        "R2P" | "UR2UP" if t.ops.len() == 3 => {
            set_reg_suffix(
                &mut t.ops[1],
                ["", ".B1", ".B2", ".B3"][ctx.bits(76, 2) as usize],
            );
        }
        // The operation (bits 74-77) and the half of an F16 source register (bits 60-61).
        "MUFU" => {
            let f16 = t.has("F16");
            let v = ctx.bits(74, 4) as usize;
            let op = match v {
                6 | 7 if f16 => ["INVALID6", "INVALID7"][v - 6],
                _ => MUFU_OPS[v],
            };
            let mut parts: Vec<&str> = t.mnem.split('.').collect();
            if parts.len() >= 2 && parts[1] != "F16" {
                parts[1] = op;
                t.mnem = parts.join(".");
            }
            if !f16 {
                return;
            }
            let sel = ["", ".H1", ".INVALID2", ".INVALID3"][ctx.bits(60, 2) as usize];
            if let Some(o) = t.ops.last_mut() {
                if o.contains('[') {
                    // a constant-bank source: the half follows the operand (inside `|..|`)
                    let bar = o.ends_with('|');
                    if bar {
                        o.pop();
                    }
                    set_trailing_selector(o, sel);
                    if bar {
                        o.push('|');
                    }
                } else {
                    set_reg_suffix(o, sel);
                }
            }
        }
        // Compare-and-swap spin variant: bits 87-88 both set.
        "ATOMS" if t.has("CAST") && !t.has("SPIN") && ctx.bits(87, 2) == 3 => {
            t.mnem = t.mnem.replacen(".CAST", ".CAST.SPIN", 1);
        }
        "F2FP" => {
            rules::dedup_suffixes(t);
            f2fp_type(ctx, t);
        }
        "F2F" | "ATOMG" | "ATOM" | "RED" => rules::dedup_suffixes(t),
        "IMAD" => {
            imad_alias(t);
            wide_carry_out(ctx, t);
        }
        // A predicate-only vote prints no register destination (`VOTEU.ANY UP2, P0`: URZ).
        "VOTE" | "VOTEU" if t.ops.len() == 3 && (t.ops[0] == "RZ" || t.ops[0] == "URZ") => {
            t.ops.remove(0);
        }
        _ => {}
    }
}

/// An operand without its `.reuse` flag.
fn bare(t: &Text, i: usize) -> &str {
    t.ops
        .get(i)
        .map(|s| s.strip_suffix(".reuse").unwrap_or(s))
        .unwrap_or("")
}

/// nvdisasm names three special cases of a plain `IMAD d, a, b, c` (no `.WIDE`, `.HI`, `.X`;
/// measured on nvdisasm 12.8): a zero product (`a` or `b` is `RZ`, `b` is `0x0`) or `b` = `0x1`
/// with `c` = `RZ` is `IMAD.MOV`, unless `c` is uniform (`URn`, `-URn`, `cx[URn][..]`: then
/// none of the aliases); `b` = `0x1` is `IMAD.IADD`;
/// `b` another positive power-of-two immediate with `c` = `RZ` is `IMAD.SHL`, except `0x10000`
/// (a shift by 16 stays `IMAD`: probed on every power of two, registers and guards).
/// IMAD.WIDE(.U32)(.X) writes a carry-out predicate (bits 81-83) that nvidia prints after the
/// destination unless it is PT; closure forms probed with PT have no field for it.
fn wide_carry_out(ctx: &Ctx, t: &mut Text) {
    let p = ctx.bits(81, 3);
    if p == 7 || !t.has("WIDE") {
        return;
    }
    let n = if t.has("X") { 5 } else { 4 };
    if t.ops.len() == n && !t.ops[1].starts_with('P') {
        t.ops.insert(1, format!("P{p}"));
    }
}

fn imad_alias(t: &mut Text) {
    // The template may carry the alias of its probe example. (One pass over the suffixes
    // finds both kinds; removing an alias does not change the others.)
    let (mut alias_in, mut wide) = (false, false);
    for x in t.mnem.split('.').skip(1) {
        alias_in |= matches!(x, "MOV" | "IADD" | "SHL");
        wide |= matches!(x, "WIDE" | "HI" | "X");
    }
    if alias_in {
        for a in ["MOV", "IADD", "SHL"] {
            t.remove(a);
        }
    }
    if wide {
        return;
    }
    let (a, b, c) = (bare(t, 1), bare(t, 2), bare(t, 3));
    let imm = b
        .strip_prefix("0x")
        .and_then(|h| u32::from_str_radix(h, 16).ok());
    // (a uniform `c`: a register, negated or not, or a `cx[URn]` bank)
    let cu = c.trim_start_matches(['-', '|']);
    let alias = if cu.starts_with("UR") || cu.starts_with("cx[") {
        None
    } else if a == "RZ" || b == "RZ" || imm == Some(0) || (imm == Some(1) && c == "RZ") {
        Some(".MOV")
    } else if imm == Some(1) {
        Some(".IADD")
    } else if c == "RZ" && imm.is_some_and(|v| v.is_power_of_two() && v != 0x1_0000) {
        Some(".SHL")
    } else {
        None
    };
    if let (Some(s), Some(i)) = (alias, crate::nvidia::find_bytes(&t.mnem, b"IMAD")) {
        t.mnem.insert_str(i + 4, s);
    }
}

/// Replaces the selector suffix (`.B2`, `.H1`, `.INVALID3`) of the register in operand `o` by
/// `sel` (empty: none); it follows the register and its `.reuse`. No register: unchanged.
fn set_reg_suffix(o: &mut String, sel: &str) {
    let b = o.as_bytes();
    let mut i = 0;
    let start = loop {
        if i >= b.len() {
            return;
        }
        let at_word =
            i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'.' || b[i - 1] == b'_');
        let rest = &o[i..];
        let r = rest.strip_prefix("UR").or_else(|| rest.strip_prefix('R'));
        if at_word
            && r.is_some_and(|r| r.starts_with('Z') || r.starts_with(|c: char| c.is_ascii_digit()))
        {
            break i;
        }
        i += 1;
    };
    let mut end = start + if o[start..].starts_with("UR") { 2 } else { 1 };
    end += o[end..]
        .bytes()
        .take_while(|c| c.is_ascii_digit() || *c == b'Z')
        .count();
    if o[end..].starts_with(".reuse") {
        end += 6;
    }
    // the old selector, if any
    let tail = &o[end..];
    let old = ["B0", "B1", "B2", "B3", "H1", "H0", "INVALID2", "INVALID3"]
        .iter()
        .find(|s| {
            tail.strip_prefix('.').is_some_and(|t| {
                t.starts_with(*s)
                    && !t[s.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
            })
        })
        .map(|s| s.len() + 1)
        .unwrap_or(0);
    o.replace_range(end..end + old, sel);
}

/// `IDP.4A.<a>.<b>` or `IDP.2A.LO|HI.<a>.<b>` from bits 73 (a signed), 74 (b signed),
/// 76 (2A) and 77 (HI); measured on nvdisasm 12.8.
fn idp_mnemonic(ctx: &Ctx) -> String {
    let (ua, ub) = (ctx.bits(73, 1) == 0, ctx.bits(74, 1) == 0);
    let b = if ub { "U8" } else { "S8" };
    if ctx.bits(76, 1) == 1 {
        let hi = if ctx.bits(77, 1) == 1 { "HI" } else { "LO" };
        format!("IDP.2A.{hi}.{}.{b}", if ua { "U16" } else { "S16" })
    } else {
        format!("IDP.4A.{}.{b}", if ua { "U8" } else { "S8" })
    }
}

/// Replaces the selector suffix at the end of operand `o` (after `]`) by `sel`.
fn set_trailing_selector(o: &mut String, sel: &str) {
    if let Some(i) = o.rfind(']') {
        let tail = &o[i + 1..];
        if tail.is_empty() || tail.starts_with('.') {
            o.truncate(i + 1);
            o.push_str(sel);
        }
    }
}

/// `F2FP`'s output type: bits 76 and 86 together (measured on nvdisasm 12.8). Without `.RS`:
/// none, `.BF16`, `.INVALID3` (bit 86 alone is illegal); with `.RS`: none, `???1`, `???2`,
/// `???3`. It follows `.SATFINITE` / `.RELU` and precedes the packing suffix.
fn f2fp_type(ctx: &Ctx, t: &mut Text) {
    let v = (ctx.bits(76, 1) | ctx.bits(86, 1) << 1) as usize;
    let ty = if t.has("RS") {
        ["", "???1", "???2", "???3"][v]
    } else {
        ["", "BF16", "", "INVALID3"][v]
    };
    let mut parts: Vec<&str> = t
        .mnem
        .split('.')
        .filter(|p| !matches!(*p, "BF16" | "INVALID3" | "???1" | "???2" | "???3"))
        .collect();
    if !ty.is_empty() {
        let at = parts
            .iter()
            .rposition(|p| matches!(*p, "F2FP" | "SATFINITE" | "RELU"))
            .map_or(parts.len(), |i| i + 1);
        parts.insert(at, ty);
    }
    t.mnem = parts.join(".");
}

/// The float immediate source of `F2I`, `FRND` and `MUFU` (measured on nvdisasm 12.8): an F16
/// source is the half in bits 32-47, an F64 source (`.F64`, `MUFU.RCP64H`/`RSQ64H`) the upper
/// half of a double in bits 32-63; the probed templates print them as F32.
fn source_immediate(ctx: &Ctx, t: &mut Text) {
    let Some(o) = t.ops.last_mut() else { return };
    let b = o.trim_start_matches(['-', '+']);
    let is_float = b.starts_with(|c: char| c.is_ascii_digit()) && !b.starts_with("0x")
        || b.starts_with("INF")
        || b.starts_with("QNAN")
        || b.starts_with("SNAN");
    if !is_float || t.ops.len() != 2 {
        return;
    }
    let mut s = String::new();
    if t.mnem.split('.').any(|p| p == "F16") {
        float::push_f16_bits(&mut s, ctx.bits(32, 16) as u16);
    } else if t.mnem.split('.').any(|p| p == "F64") || (ctx.inst() == "MUFU" && matches!(ctx.bits(74, 4), 6 | 7)) {
        float::push_f64_bits(&mut s, ctx.bits(32, 32) << 32);
    } else {
        return;
    }
    let s = s.replace("SNAN", "QNAN");
    if let Some(o) = t.ops.last_mut() {
        *o = s;
    }
}

/// `MUFU` operations by the value of bits 74-77 (measured on nvdisasm 12.8).
const MUFU_OPS: [&str; 16] = [
    "COS", "SIN", "EX2", "LG2", "RCP", "RSQ", "RCP64H", "RSQ64H", "SQRT", "TANH", "INVALID10",
    "INVALID11", "INVALID12", "INVALID13", "INVALID14", "INVALID15",
];

/// `I2F` of a 32-bit-or-narrower source (opcodes 0x?06: register, immediate, constant bank,
/// uniform register) printed from its bits, as nvdisasm 12.8 spells all 24 combinations
/// (measured on the uniform-register form 0xd06, whose probed modifier fields split the type
/// pair in two): destination bits 75-76 (`???0`, `F16`, F32 left out, `???3`), source sign bit 74
/// with size bits 84-85 (8, 16, 32 bits; `S32` left out; 3 is rejected), rounding bits 78-79.
fn i2f_types(ctx: &Ctx, t: &mut Text) {
    const DST: [&str; 4] = [".???0", ".F16", "", ".???3"];
    const SRC: [&str; 8] = [".U8", ".S8", ".U16", ".S16", ".U32", "", ".U32", ""];
    const RND: [&str; 4] = ["", ".RM", ".RP", ".RZ"];
    let src = (ctx.bits(74, 1) | ctx.bits(84, 2) << 1) as usize;
    t.mnem.clear();
    t.mnem.push_str("I2F");
    t.mnem.push_str(DST[ctx.bits(75, 2) as usize]);
    t.mnem.push_str(SRC[src]);
    t.mnem.push_str(RND[ctx.bits(78, 2) as usize]);
}
