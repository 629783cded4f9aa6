//! Vector integer multiply, multiply-add, min / max / med3 and sums of absolute differences:
//! v_mul_lo / mul_hi, v_mad_u64_u32 / i64_i32 (with carry out), 24-bit multiply-adds, min3 /
//! max3 / med3, sad / msad / qsad / mqsad, lerp_u8.

use super::lanes::Valu;
use super::vbits::{def_v64, no_clamp};
use super::vint::{simple, write_mask};
use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::Operand;
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::int::{ICmp, IntOp, Overflow, ShiftRule};
use isabridge_ir::ops::lane::LaneOp;
use isabridge_ir::{Type, Value};

/// Lift a vector multiply / min-max / SAD instruction; None when `name` is not one.
pub(super) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    let f: fn(&mut Cx, &Valu, &[Value]) -> Value = match name {
        "V_MUL_LO_U32" => |cx, _, s| cx.b().int(IntOp::MulLo, Type::I32, &[s[0], s[1]]),
        "V_MUL_HI_U32" => |cx, _, s| cx.b().int(IntOp::MulHi(false), Type::I32, &[s[0], s[1]]),
        "V_MUL_HI_I32" => |cx, _, s| cx.b().int(IntOp::MulHi(true), Type::I32, &[s[0], s[1]]),
        // D = S0[23:0] * S1[23:0] + S2 (low 32 bits)
        "V_MAD_U32_U24" => |cx, _, s| mad24(cx, s, false),
        "V_MAD_I32_I24" => |cx, _, s| mad24(cx, s, true),
        "V_MIN_U32" => |cx, _, s| cx.b().int(IntOp::Min(false), Type::I32, &[s[0], s[1]]),
        "V_MAX_U32" => |cx, _, s| cx.b().int(IntOp::Max(false), Type::I32, &[s[0], s[1]]),
        "V_MIN_I32" => |cx, _, s| cx.b().int(IntOp::Min(true), Type::I32, &[s[0], s[1]]),
        "V_MAX_I32" => |cx, _, s| cx.b().int(IntOp::Max(true), Type::I32, &[s[0], s[1]]),
        "V_MIN3_U32" => |cx, _, s| three(cx, IntOp::Min(false), s),
        "V_MAX3_U32" => |cx, _, s| three(cx, IntOp::Max(false), s),
        "V_MIN3_I32" => |cx, _, s| three(cx, IntOp::Min(true), s),
        "V_MAX3_I32" => |cx, _, s| three(cx, IntOp::Max(true), s),
        "V_MED3_U32" => |cx, _, s| med3(cx, false, s),
        "V_MED3_I32" => |cx, _, s| med3(cx, true, s),
        // Sum over bytes of |S0.b - S1.b|, plus S2.
        "V_SAD_U8" => |cx, _, s| {
            let d = sad_bytes(cx, s[0], s[1], false);
            add(cx, d, s[2])
        },
        // The byte SAD shifted to the high half, plus S2.
        "V_SAD_HI_U8" => |cx, _, s| {
            let d = sad_bytes(cx, s[0], s[1], false);
            let k = cx.k32(16);
            let d = cx.b().int(IntOp::Shl(ShiftRule::Wrap), Type::I32, &[d, k]);
            add(cx, d, s[2])
        },
        // Bytes whose S1 (reference) byte is 0 do not count.
        "V_MSAD_U8" => |cx, _, s| {
            let d = sad_bytes(cx, s[0], s[1], true);
            add(cx, d, s[2])
        },
        // Sum over the two halves of |S0.h - S1.h|, plus S2.
        "V_SAD_U16" => |cx, _, s| {
            let mut acc = s[2];
            for k in 0..2 {
                let a = field(cx, s[0], 16 * k, 0xffff);
                let b = field(cx, s[1], 16 * k, 0xffff);
                let d = absdiff(cx, a, b);
                acc = add(cx, acc, d);
            }
            acc
        },
        "V_SAD_U32" => |cx, _, s| {
            let d = absdiff(cx, s[0], s[1]);
            add(cx, d, s[2])
        },
        // Per byte: (S0.b + S1.b + S2.b[0]) >> 1.
        "V_LERP_U8" => |cx, _, s| {
            let mut r = cx.k32(0);
            for k in 0..4 {
                let a = field(cx, s[0], 8 * k, 0xff);
                let b = field(cx, s[1], 8 * k, 0xff);
                let c = field(cx, s[2], 8 * k, 1);
                let t = add(cx, a, b);
                let t = add(cx, t, c);
                let one = cx.k32(1);
                let t = cx.b().int(IntOp::Shr(false, ShiftRule::Wrap), Type::I32, &[t, one]);
                let sh = cx.k32(8 * k);
                let t = cx.b().int(IntOp::Shl(ShiftRule::Wrap), Type::I32, &[t, sh]);
                r = cx.b().int(IntOp::Or, Type::I32, &[r, t]);
            }
            r
        },
        "V_MAD_U64_U32" | "V_MAD_I64_I32" => return Some(mad64(cx, at, name == "V_MAD_I64_I32")),
        "V_QSAD_PK_U16_U8" | "V_MQSAD_PK_U16_U8" | "V_MQSAD_U32_U8" => return Some(qsad(cx, at, name)),
        _ => return None,
    };
    Some(no_clamp(cx, at).and_then(|()| simple(cx, at, f)))
}

fn add(cx: &mut Cx, a: Value, b: Value) -> Value {
    cx.b().int(IntOp::Add(Overflow::Wrap), Type::I32, &[a, b])
}

/// (v >> shift) & mask
fn field(cx: &mut Cx, v: Value, shift: u32, mask: u32) -> Value {
    let sh = cx.k32(shift);
    let x = cx.b().int(IntOp::Shr(false, ShiftRule::Wrap), Type::I32, &[v, sh]);
    let m = cx.k32(mask);
    cx.b().int(IntOp::And, Type::I32, &[x, m])
}

/// |a - b| of unsigned values.
fn absdiff(cx: &mut Cx, a: Value, b: Value) -> Value {
    let hi = cx.b().int(IntOp::Max(false), Type::I32, &[a, b]);
    let lo = cx.b().int(IntOp::Min(false), Type::I32, &[a, b]);
    cx.b().int(IntOp::Sub(Overflow::Wrap), Type::I32, &[hi, lo])
}

/// Sum over the four bytes of |a.b - b.b|; `masked` skips bytes where b's byte is 0.
fn sad_bytes(cx: &mut Cx, a: Value, b: Value, masked: bool) -> Value {
    let mut acc = cx.k32(0);
    for k in 0..4 {
        let x = field(cx, a, 8 * k, 0xff);
        let y = field(cx, b, 8 * k, 0xff);
        let mut d = absdiff(cx, x, y);
        if masked {
            let zero = cx.k32(0);
            let z = cx.b().int(IntOp::Cmp(ICmp::Eq), Type::B1, &[y, zero]);
            d = cx.b().select(Type::I32, z, zero, d);
        }
        acc = add(cx, acc, d);
    }
    acc
}

fn mad24(cx: &mut Cx, s: &[Value], signed: bool) -> Value {
    let k8 = cx.k32(8);
    let mut v = [s[0], s[1]];
    for x in &mut v {
        let t = cx.b().int(IntOp::Shl(ShiftRule::Wrap), Type::I32, &[*x, k8]);
        *x = cx.b().int(IntOp::Shr(signed, ShiftRule::Wrap), Type::I32, &[t, k8]);
    }
    cx.b().int(IntOp::MadLo, Type::I32, &[v[0], v[1], s[2]])
}

fn three(cx: &mut Cx, op: IntOp, s: &[Value]) -> Value {
    let t = cx.b().int(op, Type::I32, &[s[0], s[1]]);
    cx.b().int(op, Type::I32, &[t, s[2]])
}

/// The middle value: max(min(a, b), min(max(a, b), c)).
fn med3(cx: &mut Cx, signed: bool, s: &[Value]) -> Value {
    let lo = cx.b().int(IntOp::Min(signed), Type::I32, &[s[0], s[1]]);
    let hi = cx.b().int(IntOp::Max(signed), Type::I32, &[s[0], s[1]]);
    let m = cx.b().int(IntOp::Min(signed), Type::I32, &[hi, s[2]]);
    cx.b().int(IntOp::Max(signed), Type::I32, &[lo, m])
}

/// {carry, D.64} = S0.32 * S1.32 + S2.64 (unsigned, or signed with the carry the sign of the
/// 65-bit exact sum's bit 64).
fn mad64(cx: &mut Cx, at: &At, signed: bool) -> Result<(), LiftError> {
    no_clamp(cx, at)?;
    let valu = Valu::new(cx, at)?;
    let defs: Vec<Operand> = at.inst.operands.iter().filter(|o| !o.implicit && o.access.writes()).copied().collect();
    let srcs: Vec<Operand> = at.srcs().into_iter().copied().collect();
    if defs.len() < 2 || srcs.len() < 3 {
        return Err(cx.unsupported(at, "v_mad_*64 operands"));
    }
    let a = valu.src32(cx, at, &srcs[0], 0, 0)?;
    let b = valu.src32(cx, at, &srcs[1], 1, 0)?;
    let c = cx.src64(at, &srcs[2], false)?;
    let a = cx.b().conv(ConvOp::IToI { signed }, Type::I64, a);
    let b = cx.b().conv(ConvOp::IToI { signed }, Type::I64, b);
    let p = cx.b().int(IntOp::MulLo, Type::I64, &[a, b]);
    let sum = cx.b().int(IntOp::Add(Overflow::Wrap), Type::I64, &[p, c]);
    let carry = if signed {
        // bit 64 of the exact sum = sign(sum) xor signed overflow
        let x1 = cx.b().int(IntOp::Xor, Type::I64, &[p, sum]);
        let x2 = cx.b().int(IntOp::Xor, Type::I64, &[c, sum]);
        let ovf = cx.b().int(IntOp::And, Type::I64, &[x1, x2]);
        let t = cx.b().int(IntOp::Xor, Type::I64, &[ovf, sum]);
        let zero = cx.k(Type::I64, 0);
        cx.b().int(IntOp::Cmp(ICmp::Slt), Type::B1, &[t, zero])
    } else {
        cx.b().int(IntOp::Cmp(ICmp::Ult), Type::B1, &[sum, c])
    };
    def_v64(cx, at, &defs[0], sum, valu.mask)?;
    let m = cx.b().lane(LaneOp::Ballot, Type::Mask, &[carry, valu.mask]);
    write_mask(cx, at, &defs[1], m)
}

/// Quad SADs: for i in 0..4, the byte SAD of bytes i..i+3 of the 64-bit S0 against S1, plus
/// S2's element i (16-bit elements for the _PK forms, 32-bit for v_mqsad_u32_u8).
fn qsad(cx: &mut Cx, at: &At, name: &str) -> Result<(), LiftError> {
    no_clamp(cx, at)?;
    let valu = Valu::new(cx, at)?;
    let d = *at.def().ok_or_else(|| cx.unsupported(at, "no destination"))?;
    let srcs: Vec<Operand> = at.srcs().into_iter().copied().collect();
    if srcs.len() < 3 {
        return Err(cx.unsupported(at, "missing source"));
    }
    let masked = name.starts_with("V_MQSAD");
    let s0 = cx.src64(at, &srcs[0], false)?;
    let s1 = valu.src32(cx, at, &srcs[1], 1, 0)?;
    let mut sads = Vec::new();
    for i in 0..4u64 {
        let sh = cx.k(Type::I64, 8 * i);
        let w = cx.b().int(IntOp::Shr(false, ShiftRule::Wrap), Type::I64, &[s0, sh]);
        let w = cx.b().conv(ConvOp::IToI { signed: false }, Type::I32, w);
        sads.push(sad_bytes(cx, w, s1, masked));
    }
    if name == "V_MQSAD_U32_U8" {
        for (k, sad) in sads.into_iter().enumerate() {
            let acc = valu.src32(cx, at, &srcs[2], 2, k as u16)?;
            let r = add(cx, sad, acc);
            cx.def_v32(at, &d, k as u16, r, valu.mask)?;
        }
        return Ok(());
    }
    let acc = cx.src64(at, &srcs[2], false)?;
    let mut r = cx.k(Type::I64, 0);
    for (i, sad) in sads.into_iter().enumerate() {
        let sh = cx.k(Type::I64, 16 * i as u64);
        let e = cx.b().int(IntOp::Shr(false, ShiftRule::Wrap), Type::I64, &[acc, sh]);
        let e = cx.b().conv(ConvOp::IToI { signed: false }, Type::I32, e);
        let t = add(cx, sad, e);
        let t = cx.b().conv(ConvOp::IToI { signed: false }, Type::I64, t);
        let ffff = cx.k(Type::I64, 0xffff);
        let t = cx.b().int(IntOp::And, Type::I64, &[t, ffff]);
        let t = cx.b().int(IntOp::Shl(ShiftRule::Wrap), Type::I64, &[t, sh]);
        r = cx.b().int(IntOp::Or, Type::I64, &[r, t]);
    }
    def_v64(cx, at, &d, r, valu.mask)
}
