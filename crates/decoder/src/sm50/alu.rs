//! Integer and float ALU: cross-field spellings the templates cannot express. (Conversions are
//! printed whole by `convert`, video instructions by `video`.) Each rule was measured on
//! nvdisasm 12.8 by flipping the bits involved on fuzz-set words.

use crate::nvidia::{find_bytes, float, rules, Ctx, Text};
use std::fmt::Write as _;

/// Applies the ALU rules.
pub fn fix(ctx: &Ctx, t: &mut Text) {
    rules::single_minus(t);
    let name = ctx.inst();
    if name == "IMADSP" {
        imadsp(ctx, t);
        return;
    }
    float_immediate(ctx, t);
    match name {
        // `.S32.S32` is the default type pair, never printed.
        "IMAD" | "IMAD32I" if t.mnem.strip_prefix(name).is_some_and(|m| m.starts_with(".S32.S32")) => {
            t.mnem.replace_range(name.len()..name.len() + 8, "");
        }
        // Both register / constant operands negated is `.PO` (plus one), printed right after
        // the mnemonic (an immediate form keeps its two minus signs).
        "IADD" | "ISCADD" => {
            let neg_operand = |o: &str| o.starts_with("-R") || o.starts_with("-c[");
            if t.ops.len() >= 3 && neg_operand(&t.ops[1]) && neg_operand(&t.ops[2]) {
                t.ops[1].remove(0);
                t.ops[2].remove(0);
                t.mnem.insert_str(name.len(), ".PO");
            }
        }
        _ => {}
    }
}

/// Float immediates: a NaN of a single-precision immediate prints as `QNAN` (nvdisasm widens it
/// to double first), and no second space before a suffix (`-INF .ABS`). The 0x38 forms of
/// `FADD` / `FSETP` / `DMNMX` whose immediate the spec types as an integer print it as a float
/// (bits 20-38, sign 56: the high bits of an IEEE single or double).
fn float_immediate(ctx: &Ctx, t: &mut Text) {
    let name = ctx.inst();
    if !(name.starts_with('F') || name.starts_with('D')) {
        return;
    }
    if matches!(name, "FADD" | "FSETP" | "DMNMX") {
        if let Some(o) = t.ops.iter_mut().find(|o| o.starts_with("0x") || o.starts_with("-0x")) {
            // keep `.NEG` / `.ABS` after the number
            let suffix = o.find('.').map(|i| o[i..].to_string()).unwrap_or_default();
            let (m, s) = (ctx.bits(20, 19), ctx.bits(56, 1));
            o.clear();
            if name == "DMNMX" {
                float::push_f64_bits(o, s << 63 | m << 44);
            } else {
                float::push_f32_bits(o, (s << 31 | m << 12) as u32);
            }
            o.push_str(&suffix);
        }
    }
    for o in t.ops.iter_mut() {
        // (`NAN`, `INF` and `SNAN` all hold an `N`: most operands are passed by one byte scan)
        if !o.as_bytes().contains(&b'N') {
            continue;
        }
        if find_bytes(o, b"NAN  ").is_some() || find_bytes(o, b"INF  ").is_some() {
            *o = o.replace("  ", " ");
        }
        if !name.starts_with('D') && find_bytes(o, b"SNAN").is_some() {
            *o = o.replace("SNAN", "QNAN");
        }
    }
}

/// `IMADSP`: three operand types from fields whose spellings depend on each other (measured):
/// a: sign 48, format 49-50 (`32`, `24`, `16H0`, `16H1`); b: sign 53, format 54 (`24`, `16H0`);
/// c: sign of a or b, format 51-52 (`32`, `24`, `16H0`). Forms by bits 56-63: 0x34/0x35 20-bit
/// immediate b, 0x4a constant b, 0x52 constant c (register b at 39), 0x5a registers.
fn imadsp(ctx: &Ctx, t: &mut Text) {
    let b = |o: u32, n: u32| ctx.bits(o, n);
    let s = |x: u64| if x == 1 { 'S' } else { 'U' };
    let (sa, sb) = (b(48, 1), b(53, 1));
    let fa = ["32", "24", "16H0", "16H1"][b(49, 2) as usize];
    let fb = ["24", "16H0"][b(54, 1) as usize];
    let fc = ["32", "24", "16H0", "INVALID3"][b(51, 2) as usize];
    let mut m = String::from("IMADSP");
    let _ = write!(m, ".{}{fa}.{}{fb}.{}{fc}", s(sa), s(sb), s(sa | sb));
    let reg = |v: u64| if v == 255 { "RZ".to_string() } else { format!("R{v}") };
    let mut d = reg(b(0, 8));
    if b(47, 1) == 1 {
        d.push_str(".CC");
    }
    let cbuf = || {
        let off = b(20, 14) << 2;
        if off >= 0x8000 {
            format!("c[{:#x}][-{:#x}]", b(34, 5), 0x1_0000 - off)
        } else {
            format!("c[{:#x}][{off:#x}]", b(34, 5))
        }
    };
    let (src_b, src_c) = match b(56, 8) {
        0x34 | 0x35 => {
            let v = b(20, 19) | b(56, 1) << 19;
            let imm = if v >= 0x8_0000 { format!("-{:#x}", 0x10_0000 - v) } else { format!("{v:#x}") };
            (imm, reg(b(39, 8)))
        }
        0x4a => (cbuf(), reg(b(39, 8))),
        0x52 => (reg(b(39, 8)), cbuf()),
        _ => (reg(b(20, 8)), reg(b(39, 8))),
    };
    t.mnem = m;
    t.ops = vec![d, reg(b(8, 8)), src_b, src_c];
}

/// Whether nvdisasm 12.8 accepts an `IMADSP` word (bits 56-63 = 0x34, 0x35, 0x4a, 0x52 or 0x5a
/// with bit 55 set): the third operand's format (bits 51-52) is never 3 (100 fuzz-set words
/// with the bits set, all refused).
#[inline(always)]
pub fn imadsp_ok(w: u64) -> bool {
    !(matches!(w >> 56, 0x34 | 0x35 | 0x4a | 0x52 | 0x5a) && w >> 55 & 1 == 1 && w >> 51 & 3 == 3)
}
