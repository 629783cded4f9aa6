//! Packed-half instructions (`HFMA2`, `HADD2`, `HMUL2`, `HSETP2`, `HMNMX2`): the swizzle of each
//! register source is printed after it (after `|..|` and `.reuse`), measured on nvdisasm 12.8:
//! `a` bits 74-75, `b` bits 60-61 (`HFMA2`: with bit 86), `c` (`HFMA2`) bits 81-82; value 0 (the
//! plain `H1_H0`) prints nothing. `HFMA2` prints `.MMA` for bit 2 (then without swizzles), else
//! `.BF16_V2` for bit 85 (`HMNMX2` too); with `.BF16_V2` the 16-bit float immediates are
//! bfloat16 (printed as the float whose upper half they are).

use crate::nvidia::{float, Ctx, Text};
use crate::spec::{NvKind, NvPiece};

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
    if t.has("BF16_V2") {
        bf16_immediates(ctx, t);
    }
    // opcode 0x2..: every source is a register
    if ctx.bits(9, 3) != 1 {
        return true;
    }
    let b_hi = if name == "HFMA2" { ctx.bits(86, 1) << 2 } else { 0 };
    let mut sw = vec![ctx.bits(74, 2), ctx.bits(60, 2) | b_hi];
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

/// Re-prints the float immediates of a `.BF16_V2` form as bfloat16: each immediate field holds
/// 16 bits (bits 32-47 or 48-63), the template printed them as IEEE halves.
fn bf16_immediates(ctx: &Ctx, t: &mut Text) {
    let mut next = 0usize;
    for p in ctx.form.syntax {
        let NvPiece::Field(i) = p else { continue };
        let f = &ctx.form.fields[*i as usize];
        if f.kind != NvKind::FImm {
            continue;
        }
        let lo = f.ranges.first().map(|r| r.0).unwrap_or(0);
        let h = if lo >= 48 { ctx.bits(48, 16) } else { ctx.bits(32, 16) } as u16;
        let (mut as_half, mut as_bf16) = (String::new(), String::new());
        float::push_f16_bits(&mut as_half, h);
        float::push_f32_bits(&mut as_bf16, (h as u32) << 16);
        while next < t.ops.len() {
            let o = &mut t.ops[next];
            next += 1;
            let body = o.trim_start_matches('-');
            if body == as_half || body == as_half.trim_end() {
                let neg = o.len() - body.len();
                let keep_space = body.ends_with(' ');
                let mut s = o[..neg].to_string();
                s.push_str(if keep_space { &as_bf16 } else { as_bf16.trim_end() });
                *o = s;
                break;
            }
        }
    }
}
