//! Vector integer and bitwise ALU: moves, shifts, logic, add/sub (with carry in and out through
//! VCC or an SGPR mask), v_cndmask, 24-bit multiplies, three-input logic.

use super::lanes::Valu;
use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::Operand;
use isabridge_ir::ops::int::{ICmp, IntOp, Overflow, ShiftRule};
use isabridge_ir::ops::lane::LaneOp;
use isabridge_ir::{Type, Value};

/// Lift a vector integer instruction; None when `name` is not one.
pub(super) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    let f: fn(&mut Cx, &Valu, &[Value]) -> Value = match name {
        "V_MOV_B32" => |_, _, s| s[0],
        "V_LSHLREV_B32" => |cx, _, s| cx.b().int(IntOp::Shl(ShiftRule::Wrap), Type::I32, &[s[1], s[0]]),
        "V_LSHRREV_B32" => |cx, _, s| cx.b().int(IntOp::Shr(false, ShiftRule::Wrap), Type::I32, &[s[1], s[0]]),
        "V_ASHRREV_I32" => |cx, _, s| cx.b().int(IntOp::Shr(true, ShiftRule::Wrap), Type::I32, &[s[1], s[0]]),
        "V_AND_B32" => |cx, _, s| cx.b().int(IntOp::And, Type::I32, &[s[0], s[1]]),
        "V_OR_B32" => |cx, _, s| cx.b().int(IntOp::Or, Type::I32, &[s[0], s[1]]),
        "V_XOR_B32" => |cx, _, s| cx.b().int(IntOp::Xor, Type::I32, &[s[0], s[1]]),
        "V_NOT_B32" => |cx, _, s| cx.b().int(IntOp::Not, Type::I32, &[s[0]]),
        "V_XOR3_B32" => |cx, _, s| {
            let t = cx.b().int(IntOp::Xor, Type::I32, &[s[0], s[1]]);
            cx.b().int(IntOp::Xor, Type::I32, &[t, s[2]])
        },
        "V_ADD_NC_U32" => |cx, _, s| cx.b().int(IntOp::Add(Overflow::Wrap), Type::I32, &[s[0], s[1]]),
        "V_SUB_NC_U32" => |cx, _, s| cx.b().int(IntOp::Sub(Overflow::Wrap), Type::I32, &[s[0], s[1]]),
        "V_SUBREV_NC_U32" => |cx, _, s| cx.b().int(IntOp::Sub(Overflow::Wrap), Type::I32, &[s[1], s[0]]),
        "V_MUL_HI_I32_I24" | "V_MUL_I32_I24" | "V_MUL_HI_U32_U24" | "V_MUL_U32_U24" => return Some(mul24(cx, at, name)),
        "V_CNDMASK_B32" => return Some(cndmask(cx, at)),
        "V_ADD_CO_CI_U32" | "V_SUB_CO_CI_U32" | "V_SUBREV_CO_CI_U32" | "V_ADD_CO_U32" | "V_SUB_CO_U32"
        | "V_SUBREV_CO_U32" => return Some(carry(cx, at, name)),
        _ => return None,
    };
    Some(simple(cx, at, f))
}

/// Sources (DPP applied), a 32-bit result, merged under the write mask.
pub(super) fn simple(cx: &mut Cx, at: &At, f: fn(&mut Cx, &Valu, &[Value]) -> Value) -> Result<(), LiftError> {
    let valu = Valu::new(cx, at)?;
    let d = *at.def().ok_or_else(|| cx.unsupported(at, "no destination"))?;
    let srcs: Vec<Operand> = at.srcs().into_iter().copied().collect();
    let mut s = Vec::with_capacity(srcs.len());
    for (i, op) in srcs.iter().enumerate() {
        s.push(valu.src32(cx, at, op, i, 0)?);
    }
    let r = f(cx, &valu, &s);
    cx.def_v32(at, &d, 0, r, valu.mask)
}

fn mul24(cx: &mut Cx, at: &At, name: &str) -> Result<(), LiftError> {
    let valu = Valu::new(cx, at)?;
    let d = *at.def().ok_or_else(|| cx.unsupported(at, "no destination"))?;
    let srcs: Vec<Operand> = at.srcs().into_iter().copied().collect();
    let signed = name.contains("I24");
    let mut s = Vec::new();
    for (i, op) in srcs.iter().enumerate().take(2) {
        let v = valu.src32(cx, at, op, i, 0)?;
        // The low 24 bits, sign- or zero-extended to 64.
        let k8 = cx.k32(8);
        let sh = cx.b().int(IntOp::Shl(ShiftRule::Wrap), Type::I32, &[v, k8]);
        let v = cx.b().int(IntOp::Shr(signed, ShiftRule::Wrap), Type::I32, &[sh, k8]);
        s.push(cx.b().conv(isabridge_ir::ops::conv::ConvOp::IToI { signed }, Type::I64, v));
    }
    let p = cx.b().int(IntOp::MulLo, Type::I64, &[s[0], s[1]]);
    let (lo, hi) = cx.split64(p);
    let r = if name.contains("HI") { hi } else { lo };
    cx.def_v32(at, &d, 0, r, valu.mask)
}

fn cndmask(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let valu = Valu::new(cx, at)?;
    let d = *at.def().ok_or_else(|| cx.unsupported(at, "no destination"))?;
    let ops: Vec<Operand> = at.inst.operands.iter().filter(|o| o.access.reads()).copied().collect();
    if ops.len() < 3 {
        return Err(cx.unsupported(at, "v_cndmask operands"));
    }
    let a = valu.src32(cx, at, &ops[0], 0, 0)?;
    let b = valu.src32(cx, at, &ops[1], 1, 0)?;
    let m = read_mask(cx, at, &ops[2])?;
    let r = cx.b().lanesel(Type::I32, m, b, a);
    cx.def_v32(at, &d, 0, r, valu.mask)
}

/// A lane mask operand (VCC, or an SGPR pair / single SGPR in wave32).
pub(super) fn read_mask(cx: &mut Cx, at: &At, op: &Operand) -> Result<Value, LiftError> {
    let lo = cx.src32(at, op, 0)?;
    let hi = if cx.wave64 { cx.src32(at, op, 1)? } else { cx.k32(0) };
    let p = cx.b().build(Type::V(isabridge_ir::Scalar::I32, 2), &[lo, hi]);
    Ok(cx.b().bitcast(Type::Mask, p))
}

/// Write a lane mask operand.
pub(super) fn write_mask(cx: &mut Cx, at: &At, op: &Operand, m: Value) -> Result<(), LiftError> {
    let p = cx.b().bitcast(Type::V(isabridge_ir::Scalar::I32, 2), m);
    for k in 0..cx.mask_words() {
        let w = cx.b().extract(Type::I32, p, k as u8);
        cx.def_s32(at, op, k, w)?;
    }
    Ok(())
}

fn carry(cx: &mut Cx, at: &At, name: &str) -> Result<(), LiftError> {
    let valu = Valu::new(cx, at)?;
    let defs: Vec<Operand> = at.inst.operands.iter().filter(|o| o.access.writes()).copied().collect();
    let uses: Vec<Operand> = at.inst.operands.iter().filter(|o| o.access.reads()).copied().collect();
    if defs.len() < 2 || uses.len() < 2 {
        return Err(cx.unsupported(at, "carry operands"));
    }
    let a = valu.src32(cx, at, &uses[0], 0, 0)?;
    let b = valu.src32(cx, at, &uses[1], 1, 0)?;
    let (a, b) = if name.contains("SUBREV") { (b, a) } else { (a, b) };
    let cin = if name.contains("_CI_") {
        let m = read_mask(cx, at, &uses[2])?;
        let bit = cx.lane_bit(m);
        cx.b().conv(isabridge_ir::ops::conv::ConvOp::IToI { signed: false }, Type::I64, bit)
    } else {
        cx.k(Type::I64, 0)
    };
    let ext = |cx: &mut Cx, v| cx.b().conv(isabridge_ir::ops::conv::ConvOp::IToI { signed: false }, Type::I64, v);
    let (a64, b64) = (ext(cx, a), ext(cx, b));
    let sub = name.contains("SUB");
    let op = if sub { IntOp::Sub(Overflow::Wrap) } else { IntOp::Add(Overflow::Wrap) };
    let t = cx.b().int(op, Type::I64, &[a64, b64]);
    let t = cx.b().int(op, Type::I64, &[t, cin]);
    let (lo, hi) = cx.split64(t);
    let zero = cx.k32(0);
    let c = cx.b().int(IntOp::Cmp(ICmp::Ne), Type::B1, &[hi, zero]);
    cx.def_v32(at, &defs[0], 0, lo, valu.mask)?;
    // The carry mask: lanes that write, with their carry; others 0.
    let m = cx.b().lane(LaneOp::Ballot, Type::Mask, &[c, valu.mask]);
    write_mask(cx, at, &defs[1], m)
}
