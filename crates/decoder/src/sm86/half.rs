//! Packed-half instructions (`HFMA2`, `HADD2`, `HMUL2`, `HSETP2`, `HMNMX2`): the swizzle of each
//! register source is printed after it (after `|..|` and `.reuse`), measured on nvdisasm 12.8:
//! `a` bits 74-75, `b` bits 60-61 (`HFMA2`: with bit 86), `c` (`HFMA2`) bits 81-82; value 0 (the
//! plain `H1_H0`) prints nothing. `HFMA2` prints `.MMA` for bit 2 (then without swizzles), else
//! `.BF16_V2` for bit 85 (`HMNMX2` too); with `.BF16_V2` the 16-bit float immediates are
//! bfloat16 (printed as the float whose upper half they are).

use crate::nvidia::{float, Ctx, Text};
use crate::spec::NvKind;

const SWZ: [&str; 8] = ["", ".F32", ".H0_H0", ".H1_H1", ".H0_NH1", ".INVALID5", ".INVALID6", ".INVALID7"];

/// Applies the rules; true when the instruction is a packed-half instruction.
pub fn fix(ctx: &Ctx, t: &mut Text) -> bool {
    let name = ctx.inst();
    let first = match name {
        "HFMA2" | "HADD2" | "HMUL2" | "HMNMX2" => 1,
        "HSETP2" => 2,
        _ => return false,
    };
    let mma = name == "HFMA2" && ctx.bits(2, 1) == 1;
    // `.MMA.RELU` has a trailing predicate, bits 87-89 and its `!` bit 90, that forms probed
    // without `.RELU` do not have.
    if mma && t.has("RELU") && !t.ops.last().is_some_and(|o| o.trim_start_matches('!').starts_with('P')) {
        let p = ctx.bits(87, 3);
        let not = if ctx.bits(90, 1) == 1 { "!" } else { "" };
        t.ops.push(if p == 7 { format!("{not}PT") } else { format!("{not}P{p}") });
    }
    if name == "HFMA2" {
        t.remove("MMA");
        t.remove("BF16_V2");
        let m = if ctx.bits(2, 1) == 1 {
            ".MMA"
        } else if ctx.bits(85, 1) == 1 {
            ".BF16_V2"
        } else {
            ""
        };
        let at = name.len().min(t.mnem.len());
        t.mnem.insert_str(at, m);
    }
    if name == "HMNMX2" {
        t.remove("BF16_V2");
        if ctx.bits(85, 1) == 1 {
            let at = name.len().min(t.mnem.len());
            t.mnem.insert_str(at, ".BF16_V2");
        }
    }
    if name == "HFMA2" || name == "HMNMX2" {
        half_immediates(ctx, t);
    }
    match name {
        // `.F32` output (bit 78); nvdisasm then leaves out `|..|` of `a` (bit 73).
        "HADD2" => {
            if let Some(o) = t.ops.get_mut(1) {
                set_abs(o, ctx.bits(73, 1) == 1 && ctx.bits(78, 1) == 0);
                // forms probed without the flag of `a` (reuse flag 0)
                if ctx.reuse & 1 == 1 && !o.contains(".reuse") && is_reg_operand(o) {
                    let body = o.trim_start_matches(['-', '|']);
                    let at = o.len() - body.len() + 1 + body[1..].find(|c: char| !(c.is_ascii_digit() || c == 'Z')).unwrap_or(body.len() - 1);
                    let at = if o[at..].starts_with('|') { at + 1 } else { at };
                    o.insert_str(at, ".reuse");
                }
            }
        }
        // FMZ (bit 76) and FTZ (bit 80) together print as INVALID3.
        "HMUL2" => {
            t.mnem = t.mnem.replace(".FMZ.FTZ", ".INVALID3").replace(".FTZ.FMZ", ".INVALID3");
        }
        "HFMA2" if !mma => {
            t.remove("F32");
            if ctx.bits(78, 1) == 1 {
                let at = if t.has("BF16_V2") { name.len() + 8 } else { name.len() };
                let at = at.min(t.mnem.len());
                t.mnem.insert_str(at, ".F32");
            }
            hfma2_swizzles(ctx, t);
            return true;
        }
        _ => {}
    }
    // opcode 0x2..: every source is a register
    if ctx.bits(9, 3) != 1 {
        return true;
    }
    let mut sw = vec![ctx.bits(74, 2), ctx.bits(60, 2)];
    if name == "HFMA2" {
        sw.push(ctx.bits(81, 2));
    }
    for (k, v) in sw.into_iter().enumerate() {
        if let Some(o) = t.ops.get_mut(first + k) {
            if !is_reg_operand(o) {
                return true;
            }
            set_swizzle(o, if mma { "" } else { SWZ[v as usize] });
        }
    }
    true
}

/// `HFMA2` swizzles of register sources in every form (measured on nvdisasm 12.8): `a` bits
/// 74-75; a uniform register bits 60-61; the second source, a register, bits 60-61 (at bit 32)
/// or 81-82 (at bit 64); bit 86 is the high bit of the second source's; a register third or
/// fourth source bits 81-82. A uniform register prints it inside `|..|`.
fn hfma2_swizzles(ctx: &Ctx, t: &mut Text) {
    let reg32 = ctx
        .form
        .fields
        .iter()
        .any(|f| f.kind == NvKind::Reg && f.ranges().first().is_some_and(|r| r.0 == 32));
    for k in 1..t.ops.len().min(5) {
        let o = &mut t.ops[k];
        let ureg = o.trim_start_matches(['-', '|']).starts_with("UR");
        if !ureg && !is_reg_operand(o) {
            continue;
        }
        let hi = if k == 2 { ctx.bits(86, 1) << 2 } else { 0 };
        let v = match k {
            1 => ctx.bits(74, 2),
            _ if ureg || (k == 2 && reg32) => ctx.bits(60, 2) | hi,
            _ => ctx.bits(81, 2) | hi,
        };
        if ureg && o.ends_with('|') {
            o.pop();
            set_swizzle(o, SWZ[v as usize]);
            o.push('|');
        } else {
            set_swizzle(o, SWZ[v as usize]);
        }
    }
}

/// Sets or clears the `|..|` around the register of operand `o` (`-|R2|.reuse.H1_H1`).
fn set_abs(o: &mut String, abs: bool) {
    let neg = o.starts_with('-');
    let rest = o.trim_start_matches('-');
    let has = rest.starts_with('|');
    if has == abs || !is_reg_operand(o) {
        return;
    }
    let start = usize::from(neg);
    if abs {
        let reg_end = start
            + 1
            + o[start + 1..]
                .find(|c: char| !(c.is_ascii_digit() || c == 'Z'))
                .unwrap_or(o.len() - start - 1);
        o.insert(reg_end, '|');
        o.insert(start, '|');
    } else {
        o.remove(start);
        if let Some(i) = o.find('|') {
            o.remove(i);
        }
    }
}

fn is_reg_operand(o: &str) -> bool {
    let s = o.trim_start_matches(['-', '|']);
    s.starts_with('R') && s[1..].starts_with(|c: char| c.is_ascii_digit() || c == 'Z')
}

/// Replaces the operand's trailing swizzle by `s`.
fn set_swizzle(o: &mut String, s: &str) {
    for old in SWZ.iter().skip(1) {
        if o.ends_with(old) {
            o.truncate(o.len() - old.len());
            break;
        }
    }
    o.push_str(s);
}

/// Re-prints the two float immediates of `HFMA2` / `HMNMX2` forms from their bits: the first
/// from bits 48-63, the second from bits 32-47, as IEEE halves or (with `.BF16_V2`) bfloat16
/// (the float whose upper half they are); NaN always quiet. The probed fields of the second
/// one can be wrong (an F32 reading of the example).
fn half_immediates(ctx: &Ctx, t: &mut Text) {
    let idx: Vec<usize> = (0..t.ops.len()).filter(|&i| is_float_literal(&t.ops[i])).collect();
    if idx.len() != 2 {
        return;
    }
    let bf16 = t.has("BF16_V2");
    for (k, &i) in idx.iter().enumerate() {
        let h = ctx.bits(if k == 0 { 48 } else { 32 }, 16) as u16;
        let mut s = String::new();
        if bf16 {
            float::push_f32_bits(&mut s, (h as u32) << 16);
        } else {
            float::push_f16_bits(&mut s, h);
        }
        t.ops[i] = s.replace("SNAN", "QNAN");
    }
}

/// A printed float immediate (`1.5`, `-2e+30`, `+INF `, `-QNAN `).
fn is_float_literal(o: &str) -> bool {
    let b = o.trim_start_matches(['-', '+']);
    b.starts_with(|c: char| c.is_ascii_digit()) && !b.starts_with("0x") || b.starts_with("INF") || b.starts_with("QNAN") || b.starts_with("SNAN")
}
