//! Printer rules shared by both NVIDIA ISAs.

use super::{Ctx, Text};

/// A float immediate carries its own sign: the operand's separate negate prefix is the same bit
/// (`--2.25` prints as `-2.25`).
pub fn single_minus(t: &mut Text) {
    for o in t.ops.iter_mut() {
        if o.starts_with("--") {
            o.remove(0);
        }
    }
}

/// Removes a suffix that repeats the one before it (`I2F.F32.U32.U32` -> `I2F.F32.U32`): two
/// fields of the form print the same default spelling.
pub fn dedup_suffixes(t: &mut Text) {
    let parts: Vec<&str> = t.mnem.split('.').collect();
    let mut out: Vec<&str> = Vec::with_capacity(parts.len());
    for p in parts {
        if out.len() > 1 && out.last() == Some(&p) {
            continue;
        }
        out.push(p);
    }
    t.mnem = out.join(".");
}

/// Replaces the target operand of a PC-relative branch: `addr + size + offset`, with the
/// offset sign-extended from bits [lo, lo+n) and multiplied by `scale`.
pub fn relative_target(ctx: &Ctx, t: &mut Text, size: u64, lo: u32, n: u32, scale: i64) {
    let raw = ctx.bits(lo, n);
    let off = (((raw << (64 - n)) as i64) >> (64 - n)).wrapping_mul(scale);
    let target = (ctx.addr() as i64).wrapping_add(size as i64).wrapping_add(off);
    let mut buf = [0u8; 20];
    let s = super::hex_text(&mut buf, target, true);
    if let Some(last) = t.ops.iter_mut().rev().find(|o| o.starts_with("0x") || o.starts_with("-0x")) {
        last.clear();
        last.push_str(s);
    } else if let Some(last) = t.ops.last_mut() {
        // `RET.REL R20 0x..`: the register and the target are one operand.
        if let Some(i) = last.rfind(' ') {
            if last[i + 1..].starts_with("0x") || last[i + 1..].starts_with("-0x") {
                last.truncate(i + 1);
                last.push_str(s);
            }
        }
    }
}
