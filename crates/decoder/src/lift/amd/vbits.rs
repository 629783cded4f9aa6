//! Vector bit-field, byte and shift ops beyond the VOP2 basics: bfe / bfi / bfm / bfrev, bit
//! counts and find-first-bit, align and byte-permute, the three-input shift/logic/add forms,
//! 64-bit shifts, mbcnt, byte-to-float conversions and saturating 16-bit packs.

use super::lanes::Valu;
use super::vint::simple;
use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::{Modifier, Operand};
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::int::{ICmp, IntOp, Overflow, PrmtMode, ShiftRule};
use isabridge_ir::ops::lane::LaneOp;
use isabridge_ir::soft::FloatMode;
use isabridge_ir::{Type, Value};

/// Lift a vector bit or byte instruction; None when `name` is not one.
pub(super) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    let f: fn(&mut Cx, &Valu, &[Value]) -> Value = match name {
        "V_BFE_U32" | "V_BFE_I32" => {
            if name == "V_BFE_U32" {
                |cx, _, s| bfe(cx, false, s)
            } else {
                |cx, _, s| bfe(cx, true, s)
            }
        }
        // D = (S0 & S1) | (~S0 & S2)
        "V_BFI_B32" => |cx, _, s| {
            let a = and(cx, s[0], s[1]);
            let n = cx.b().int(IntOp::Not, Type::I32, &[s[0]]);
            let b = and(cx, n, s[2]);
            or(cx, a, b)
        },
        // D = ((1 << S0[4:0]) - 1) << S1[4:0]
        "V_BFM_B32" => |cx, _, s| {
            let one = cx.k32(1);
            let w = low5(cx, s[0]);
            let m = cx.b().int(IntOp::Shl(ShiftRule::Wrap), Type::I32, &[one, w]);
            let m = cx.b().int(IntOp::Sub(Overflow::Wrap), Type::I32, &[m, one]);
            cx.b().int(IntOp::Shl(ShiftRule::Wrap), Type::I32, &[m, s[1]])
        },
        "V_BFREV_B32" => |cx, _, s| cx.b().int(IntOp::Brev, Type::I32, &[s[0]]),
        // D = popcount(S0) + S1
        "V_BCNT_U32_B32" => |cx, _, s| {
            let p = cx.b().int(IntOp::Popc, Type::I32, &[s[0]]);
            add(cx, p, s[1])
        },
        // Leading zeros, trailing zeros, leading sign copies; -1 (all ones) when none found.
        "V_FFBH_U32" => |cx, _, s| ffb(cx, s[0], Ffb::High),
        "V_FFBL_B32" => |cx, _, s| ffb(cx, s[0], Ffb::Low),
        "V_FFBH_I32" => |cx, _, s| ffb(cx, s[0], Ffb::Sign),
        // D = ({S0, S1} >> S2[4:0])[31:0]
        "V_ALIGNBIT_B32" => |cx, _, s| cx.b().int(IntOp::ShfR(ShiftRule::Wrap), Type::I32, &[s[1], s[0], s[2]]),
        // D = ({S0, S1} >> (8 * S2[1:0]))[31:0]
        "V_ALIGNBYTE_B32" => |cx, _, s| {
            let k3 = cx.k32(3);
            let sel = and(cx, s[2], k3);
            let sh = cx.b().int(IntOp::Shl(ShiftRule::Wrap), Type::I32, &[sel, k3]);
            cx.b().int(IntOp::ShfR(ShiftRule::Wrap), Type::I32, &[s[1], s[0], sh])
        },
        "V_PERM_B32" => |cx, _, s| cx.b().int(IntOp::Prmt(PrmtMode::Sel8), Type::I32, &[s[1], s[0], s[2]]),
        "V_LSHL_OR_B32" => |cx, _, s| {
            let t = cx.b().int(IntOp::Shl(ShiftRule::Wrap), Type::I32, &[s[0], s[1]]);
            or(cx, t, s[2])
        },
        "V_AND_OR_B32" => |cx, _, s| {
            let t = and(cx, s[0], s[1]);
            or(cx, t, s[2])
        },
        "V_OR3_B32" => |cx, _, s| {
            let t = or(cx, s[0], s[1]);
            or(cx, t, s[2])
        },
        "V_LSHL_ADD_U32" => |cx, _, s| {
            let t = cx.b().int(IntOp::Shl(ShiftRule::Wrap), Type::I32, &[s[0], s[1]]);
            add(cx, t, s[2])
        },
        "V_ADD_LSHL_U32" => |cx, _, s| {
            let t = add(cx, s[0], s[1]);
            cx.b().int(IntOp::Shl(ShiftRule::Wrap), Type::I32, &[t, s[2]])
        },
        "V_ADD3_U32" => |cx, _, s| {
            let t = add(cx, s[0], s[1]);
            add(cx, t, s[2])
        },
        "V_XAD_U32" => |cx, _, s| {
            let t = cx.b().int(IntOp::Xor, Type::I32, &[s[0], s[1]]);
            add(cx, t, s[2])
        },
        // D = popcount(S0 & lanes below this one, bits 0-31) + S1; _HI counts lanes 32-63.
        "V_MBCNT_LO_U32_B32" => |cx, _, s| mbcnt(cx, s, false),
        "V_MBCNT_HI_U32_B32" => |cx, _, s| mbcnt(cx, s, true),
        "V_CVT_F32_UBYTE0" => |cx, _, s| ubyte_to_f32(cx, s[0], 0),
        "V_CVT_F32_UBYTE1" => |cx, _, s| ubyte_to_f32(cx, s[0], 1),
        "V_CVT_F32_UBYTE2" => |cx, _, s| ubyte_to_f32(cx, s[0], 2),
        "V_CVT_F32_UBYTE3" => |cx, _, s| ubyte_to_f32(cx, s[0], 3),
        // Two 32-bit integers saturated to 16 bits each, S0 in the low half.
        "V_CVT_PK_I16_I32" => |cx, _, s| pack16(cx, s, true),
        "V_CVT_PK_U16_U32" => |cx, _, s| pack16(cx, s, false),
        "V_LSHLREV_B64" | "V_LSHRREV_B64" | "V_ASHRREV_I64" => return Some(shift64(cx, at, name)),
        _ => return None,
    };
    Some(no_clamp(cx, at).and_then(|()| simple(cx, at, f)))
}

fn and(cx: &mut Cx, a: Value, b: Value) -> Value {
    cx.b().int(IntOp::And, Type::I32, &[a, b])
}

fn or(cx: &mut Cx, a: Value, b: Value) -> Value {
    cx.b().int(IntOp::Or, Type::I32, &[a, b])
}

fn add(cx: &mut Cx, a: Value, b: Value) -> Value {
    cx.b().int(IntOp::Add(Overflow::Wrap), Type::I32, &[a, b])
}

fn low5(cx: &mut Cx, v: Value) -> Value {
    let k = cx.k32(31);
    and(cx, v, k)
}

/// Bit-field extract: offset S1[4:0], width S2[4:0].
pub(super) fn bfe(cx: &mut Cx, signed: bool, s: &[Value]) -> Value {
    let pos = low5(cx, s[1]);
    let len = low5(cx, s[2]);
    cx.b().int(IntOp::Bfe(signed), Type::I32, &[s[0], pos, len])
}

/// Which find-first-bit.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Ffb {
    /// Leading zeros.
    High,
    /// Trailing zeros.
    Low,
    /// Leading copies of the sign bit after it.
    Sign,
}

/// Find first bit on an i32 or i64 value: the count, or all ones when no bit is found.
pub(super) fn ffb(cx: &mut Cx, v: Value, kind: Ffb) -> Value {
    let ty = cx.f.insts[v].ty.unwrap_or(Type::I32);
    let bits = if ty == Type::I64 { 64 } else { 32 };
    let x = match kind {
        Ffb::High => v,
        Ffb::Low => cx.b().int(IntOp::Brev, ty, &[v]),
        Ffb::Sign => {
            let k = cx.k(ty, bits - 1);
            let sign = cx.b().int(IntOp::Shr(true, ShiftRule::Wrap), ty, &[v, k]);
            cx.b().int(IntOp::Xor, ty, &[v, sign])
        }
    };
    let n = cx.b().int(IntOp::Clz, ty, &[x]);
    let n = if ty == Type::I64 { cx.b().conv(ConvOp::IToI { signed: false }, Type::I32, n) } else { n };
    let kb = cx.k32(bits as u32);
    let none = cx.b().int(IntOp::Cmp(ICmp::Eq), Type::B1, &[n, kb]);
    let ones = cx.k32(u32::MAX);
    cx.b().select(Type::I32, none, ones, n)
}

fn mbcnt(cx: &mut Cx, s: &[Value], hi: bool) -> Value {
    let lane = cx.b().lane(LaneOp::LaneId, Type::I32, &[]);
    let lane = cx.b().conv(ConvOp::IToI { signed: false }, Type::I64, lane);
    let one = cx.k(Type::I64, 1);
    let below = cx.b().int(IntOp::Shl(ShiftRule::Clamp), Type::I64, &[one, lane]);
    let below = cx.b().int(IntOp::Sub(Overflow::Wrap), Type::I64, &[below, one]);
    let (lo, h) = cx.split64(below);
    let m = if hi { h } else { lo };
    let t = and(cx, s[0], m);
    let p = cx.b().int(IntOp::Popc, Type::I32, &[t]);
    add(cx, p, s[1])
}

fn ubyte_to_f32(cx: &mut Cx, v: Value, byte: u32) -> Value {
    let sh = cx.k32(8 * byte);
    let x = cx.b().int(IntOp::Shr(false, ShiftRule::Wrap), Type::I32, &[v, sh]);
    let ff = cx.k32(0xff);
    let x = and(cx, x, ff);
    // Exact: every byte value is an f32.
    let f = cx.b().conv(ConvOp::IToF { mode: FloatMode::NV_RN, signed: false }, Type::F32, x);
    cx.b().bitcast(Type::I32, f)
}

fn pack16(cx: &mut Cx, s: &[Value], signed: bool) -> Value {
    let (lo_k, hi_k) = if signed { (0xffff_8000u32, 0x7fffu32) } else { (0, 0xffff) };
    let half = |cx: &mut Cx, v: Value| {
        let v = if signed {
            let lo = cx.k32(lo_k);
            cx.b().int(IntOp::Max(true), Type::I32, &[v, lo])
        } else {
            v
        };
        let hi = cx.k32(hi_k);
        let v = cx.b().int(IntOp::Min(signed), Type::I32, &[v, hi]);
        let m = cx.k32(0xffff);
        and(cx, v, m)
    };
    let lo = half(cx, s[0]);
    let hi = half(cx, s[1]);
    let k16 = cx.k32(16);
    let hi = cx.b().int(IntOp::Shl(ShiftRule::Wrap), Type::I32, &[hi, k16]);
    or(cx, lo, hi)
}

/// 64-bit shifts: D = S1 shifted by S0[5:0].
fn shift64(cx: &mut Cx, at: &At, name: &str) -> Result<(), LiftError> {
    no_clamp(cx, at)?;
    let valu = Valu::new(cx, at)?;
    let d = *at.def().ok_or_else(|| cx.unsupported(at, "no destination"))?;
    let srcs: Vec<Operand> = at.srcs().into_iter().copied().collect();
    if srcs.len() < 2 {
        return Err(cx.unsupported(at, "missing source"));
    }
    let amount = valu.src32(cx, at, &srcs[0], 0, 0)?;
    let x = cx.src64(at, &srcs[1], false)?;
    let amount = cx.b().conv(ConvOp::IToI { signed: false }, Type::I64, amount);
    let op = match name {
        "V_LSHLREV_B64" => IntOp::Shl(ShiftRule::Wrap),
        "V_LSHRREV_B64" => IntOp::Shr(false, ShiftRule::Wrap),
        _ => IntOp::Shr(true, ShiftRule::Wrap),
    };
    let r = cx.b().int(op, Type::I64, &[x, amount]);
    def_v64(cx, at, &d, r, valu.mask)
}

/// Write a 64-bit result into a VGPR pair under `mask`.
pub(super) fn def_v64(cx: &mut Cx, at: &At, d: &Operand, v: Value, mask: Value) -> Result<(), LiftError> {
    let (lo, hi) = cx.split64(v);
    cx.def_v32(at, d, 0, lo, mask)?;
    cx.def_v32(at, d, 1, hi, mask)
}

/// Integer clamp (saturation) is not lifted for these ops: a typed error instead.
pub(super) fn no_clamp(cx: &Cx, at: &At) -> Result<(), LiftError> {
    if at.has(Modifier::Clamp) {
        return Err(cx.unsupported(at, "clamp on an integer op"));
    }
    Ok(())
}
