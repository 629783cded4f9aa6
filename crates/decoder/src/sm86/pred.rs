//! Predicate operands that nvdisasm 12.8 leaves out when they are `PT` (measured: the corpus and
//! fuzz listings never show them, probing shows them vanish): carry-out / predicate destinations
//! after a register destination (`IADD3 R9, PT, P6, ...` -> `IADD3 R9, P6, ...`, `LEA`, `LOP3`,
//! `IMAD.HI`...; not `VOTE`, whose `PT` is printed), the leading predicate destination of some
//! memory instructions and of `LOP3` (`LDG PT, R2, [..]` -> `LDG R2, [..]`), and `HFMA2`'s trailing
//! predicate. Loads and matrix instructions store their trailing predicate inverted (7 - n).

use crate::nvidia::{Ctx, Text};

fn is_pt(s: &str) -> bool {
    s == "PT" || s == "UPT"
}

fn is_pred(s: &str) -> bool {
    let s = s.trim_start_matches('!');
    let d = s.strip_prefix("UP").or_else(|| s.strip_prefix('P'));
    d.is_some_and(|d| d == "T" || (!d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())))
}

fn is_reg(s: &str) -> bool {
    let d = s.strip_prefix("UR").or_else(|| s.strip_prefix('R'));
    d.is_some_and(|d| d.starts_with('Z') || d.bytes().next().is_some_and(|b| b.is_ascii_digit()))
}

/// The leading predicate of control instructions (`{NOT_PD}{PD}` first in their templates) is
/// left out when it is `PT`: `CALL.ABS PT, 0x9b0` -> `CALL.ABS 0x9b0`, `YIELD PT` -> `YIELD`
/// (measured on nvdisasm 12.8; the probed forms of most of them took `PT` as a form of its own).
pub fn control_pt(ctx: &Ctx, t: &mut Text) {
    if matches!(
        ctx.inst(),
        "BRA" | "BREAK" | "BRX" | "BRXU" | "BSSY" | "BSYNC" | "CALL" | "EXIT" | "JMP" | "JMX" | "JMXU" | "KILL"
            | "NANOSLEEP" | "PMTRIG" | "RET" | "WARPSYNC" | "YIELD"
    ) && t.ops.first().map(String::as_str) == Some("PT")
    {
        t.ops.remove(0);
    }
}

/// Applies the rules.
pub fn fix(ctx: &Ctx, t: &mut Text) {
    let name = ctx.inst();
    if t.ops.len() >= 2 && is_reg(&t.ops[0]) && !matches!(name, "VOTE" | "VOTEU") {
        let mut i = 1;
        while i < t.ops.len() && is_pred(&t.ops[i]) {
            if is_pt(&t.ops[i]) {
                t.ops.remove(i);
            } else {
                i += 1;
            }
        }
    }
    if matches!(
        name,
        "LDG" | "LD" | "SUATOM" | "SULD" | "FOOTPRINT" | "SUQUERY" | "LOP3"
    ) && t.ops.len() >= 2
        && t.ops[0] == "PT"
        && is_reg(&t.ops[1])
    {
        t.ops.remove(0);
    }
    if name == "HFMA2" && t.ops.len() > 4 && t.ops.last().map(String::as_str) == Some("PT") {
        t.ops.pop();
    }
    // A trailing source predicate stored as 7 - n (0 = PT, then not printed): loads (bits
    // 64-66) and the matrix instructions' uniform predicate (bits 87-89).
    let inv = match name {
        "LD" | "LDG" => Some(ctx.bits(64, 3)),
        "IMMA" | "HMMA" | "DMMA" | "BMMA" => Some(ctx.bits(87, 3)),
        _ => None,
    };
    if let Some(v) = inv {
        if t.has("SP") && matches!(name, "IMMA" | "HMMA") {
            inverted_sparse(t, 7 - v);
        } else {
            inverted_last(t, 7 - v);
        }
    }
}

/// `.SP` matrix forms: the inverted uniform predicate sits before the metadata register and
/// selector; it is printed even as `UPT`.
fn inverted_sparse(t: &mut Text, n: u64) {
    let Some(o) = t.ops.iter_mut().rev().find(|o| is_pred(o) && o.trim_start_matches('!').starts_with("UP")) else {
        return;
    };
    let neg = if o.starts_with('!') { "!" } else { "" };
    *o = if n == 7 { format!("{neg}UPT") } else { format!("{neg}UP{n}") };
}

/// Re-numbers the last operand, a predicate, as `n` (7: `PT`, left out unless negated).
fn inverted_last(t: &mut Text, n: u64) {
    let Some(o) = t.ops.last() else { return };
    if t.ops.len() < 3 || !is_pred(o) {
        return;
    }
    let neg = o.starts_with('!');
    let u = o.trim_start_matches('!').starts_with("UP");
    if n == 7 && !neg {
        t.ops.pop();
        return;
    }
    let p = if u { "UP" } else { "P" };
    let s = if n == 7 { format!("{}{p}T", if neg { "!" } else { "" }) } else { format!("{}{p}{n}", if neg { "!" } else { "" }) };
    if let Some(o) = t.ops.last_mut() {
        *o = s;
    }
}
