//! The Maxwell condition-code writers other than the adders, and the instructions that test
//! the condition code (the adders' carry and zero flags are in cc.rs).
//!
//! This lifter's model: such a writer leaves in the zero flag ([`CC_ZERO`]) and the sign flag
//! ([`CC_SIGN`]) whether a value v is zero and whether it is negative, and a test reads them as
//! v compared with zero (`LT`: v < 0). The value, and what derives it:
//! - `I2I`, `LOP`, `FSET`, `ISET` with an `RZ.CC` / `Rd.CC` destination: v is the result the
//!   instruction writes. `FSET.GEU.AND RZ.CC, x, RZ` then `@P0 BRA CC.NEU` continues a loop
//!   while x >= 0 or NaN (the PTX `setp.geu.f32` and `and.pred` of kernel k_fbreak of
//!   fixtures/nvidia/lift/cc.sm50.ptx): the sign of x - 0 would continue it for x < 0 too, so
//!   the flags are the result's. `I2I.S32.S32 RZ.CC, hi` then `CSETP.LT` is PTX `abs.s64`'s
//!   sign test (k_abs64); `ISET.NE.U32.AND RZ.CC` then `BRA CC.NEU` (k_ibreak), and
//!   `FSET.NEU.FTZ.AND RZ.CC, |y|, +INF` then `BRA CC.EQ` in ptxas's `div.rn.f32` slow path
//!   (k_divrn). The carry flag is left as it was (no kernel here reads it after them).
//! - `IMNMX[.U32].XHI d.CC, a, b, p`: the high words of two 64-bit values; v is the exact
//!   a - b of the high words as the instruction's type (zero: the high words are equal,
//!   negative: a < b). `IMNMX.U32.XLO d, a, b, p` then takes the low word of the value the
//!   high-word compare chose, or with equal high words the unsigned min / max of the low
//!   words. PTX `min.s64` / `max.u64` lower to the pair (k_min64, k_maxu64).
//! - Tests: `CSETP.cond.bop Pd, Pq, CC, Pc` and `BRA CC.cond`: `EQ` / `EQU` v == 0, `NE` /
//!   `NEU` v != 0, `LT` and `SFT` (sign flag true) v < 0, `GE` and `SFF` v >= 0, `LE`, `GT`,
//!   `F`, `T`. No writer modelled here makes an unordered state, so the `U` forms equal the
//!   ordered ones. The overflow flag and the other tests are typed errors: no kernel here shows
//!   them. The adders set the sign flag from bit 31 of their result (cc.rs); no kernel here
//!   tests it.

use super::{is_cc, reads_cc, writes_cc, CC_SIGN, CC_ZERO};
use crate::lift::sm86::{self, At, Cx};
use crate::lift::LiftError;
use crate::operand::{Inst, Operand, OperandKind, RegClass, SpecialReg};
use isabridge_ir::ops::int::{ICmp, IntOp};
use isabridge_ir::{Type, Value};

/// Lift `at` if it belongs to this family; `rest` lifts an instruction without its
/// condition-code operand.
pub(crate) fn lift(
    cx: &mut Cx,
    at: &At,
    name: &str,
    rest: impl FnOnce(&mut Cx, &At) -> Result<(), LiftError>,
) -> Option<Result<(), LiftError>> {
    match name {
        "CSETP" => Some(csetp(cx, at)),
        "IMNMX" if at.has("XHI") => Some(imnmx_xhi(cx, at)),
        "IMNMX" if at.has("XLO") => Some(imnmx_xlo(cx, at)),
        "I2I" | "LOP" | "FSET" | "ISET" if writes_cc(at) && !reads_cc(at) && !at.has("X") => Some(result_flags(cx, at, rest)),
        _ => None,
    }
}

/// Set the zero and sign flags from the i32 value `v`.
pub(crate) fn write_value_flags(cx: &mut Cx, v: Value) {
    let zero = cx.k32(0);
    let z = cx.b().int(IntOp::Cmp(ICmp::Eq), Type::I32, &[v, zero]);
    let z = cx.b1_to_i32(z);
    let k = cx.k32(31);
    let s = cx.b().int(IntOp::Shr(false, isabridge_ir::ops::int::ShiftRule::Clamp), Type::I32, &[v, k]);
    cx.wr(CC_ZERO, z);
    cx.wr(CC_SIGN, s);
}

/// The instruction without its condition-code operand, lifted by `rest`; the flags from the
/// value it defined.
fn result_flags(cx: &mut Cx, at: &At, rest: impl FnOnce(&mut Cx, &At) -> Result<(), LiftError>) -> Result<(), LiftError> {
    let mut inst: Inst = at.inst.clone();
    inst.operands.retain(|o| !is_cc(o));
    let at2 = At::new(&inst, at.d);
    cx.last_def = None;
    rest(cx, &at2)?;
    let v = cx.last_def.take().ok_or_else(|| cx.unsupported(at, "condition-code writer without a register result"))?;
    let v = if cx.f.ty(v) == Some(Type::I32) { v } else { cx.b().bitcast(Type::I32, v) };
    write_value_flags(cx, v);
    Ok(())
}

/// The b1 of test `cond` on the zero and sign flags (see the module comment).
pub(crate) fn test(cx: &mut Cx, at: &At, cond: &str) -> Result<Value, LiftError> {
    let zero = cx.k32(0);
    let z = cx.rd(CC_ZERO);
    let z = cx.b().int(IntOp::Cmp(ICmp::Ne), Type::I32, &[z, zero]);
    let s = cx.rd(CC_SIGN);
    let s = cx.b().int(IntOp::Cmp(ICmp::Ne), Type::I32, &[s, zero]);
    Ok(match cond {
        "F" => cx.k(Type::B1, 0),
        "T" => cx.k(Type::B1, 1),
        "EQ" | "EQU" => z,
        "NE" | "NEU" => cx.not1(z),
        "LT" | "LTU" | "SFT" => s,
        "GE" | "GEU" | "SFF" => cx.not1(s),
        "LE" | "LEU" => cx.b().int(IntOp::Or, Type::B1, &[s, z]),
        "GT" | "GTU" => {
            let le = cx.b().int(IntOp::Or, Type::B1, &[s, z]);
            cx.not1(le)
        }
        _ => return Err(cx.unsupported(at, &format!("condition-code test {cond} not derived"))),
    })
}

/// The condition-code test among an instruction's suffixes (`CSETP.LT.AND`: LT).
fn test_name<'a>(at: &At<'a>) -> Option<&'a str> {
    const TESTS: [&str; 16] = ["F", "LT", "EQ", "LE", "GT", "NE", "GE", "T", "LTU", "EQU", "LEU", "GTU", "NEU", "GEU", "SFT", "SFF"];
    at.sfx.iter().find(|s| TESTS.contains(s)).copied().or_else(|| at.sfx.iter().find(|s| !matches!(**s, "AND" | "OR" | "XOR")).copied())
}

/// CSETP.cond.bop Pd, Pq, CC, Pc: t = test; Pd = t bop Pc, Pq = !t bop Pc.
fn csetp(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let srcs: Vec<&Operand> = at.srcs().into_iter().filter(|o| !is_cc(o)).collect();
    let [c] = srcs[..] else { return Err(cx.unsupported(at, "operand shape")) };
    let cond = test_name(at).ok_or_else(|| cx.unsupported(at, "condition-code test"))?;
    let t = test(cx, at, cond)?;
    let c = cx.pred(at, c)?;
    sm86::float32::setp_defs(cx, at, t, c)
}

/// The register sources and the predicate of IMNMX.
fn imnmx_operands<'a>(cx: &Cx, at: &At<'a>) -> Result<(&'a Operand, [&'a Operand; 2], &'a Operand), LiftError> {
    let dsts: Vec<&Operand> = at.dsts().into_iter().filter(|o| !is_cc(o)).collect();
    let srcs: Vec<&Operand> = at.srcs().into_iter().filter(|o| !is_cc(o)).collect();
    let is_p = |o: &Operand| matches!(o.kind, OperandKind::Reg(r) if r.class == RegClass::P) || matches!(o.kind, OperandKind::Special { reg: SpecialReg::Pt, .. });
    match (&dsts[..], &srcs[..]) {
        ([d], [a, b, p]) if !is_p(a) && !is_p(b) && is_p(p) => Ok((d, [a, b], p)),
        _ => Err(cx.unsupported(at, "operand shape")),
    }
}

/// IMNMX[.U32].XHI d.CC, a, b, p: d = p ? min(a, b) : max(a, b); the flags of a - b.
fn imnmx_xhi(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    if reads_cc(at) || !writes_cc(at) {
        return Err(cx.unsupported(at, "IMNMX.XHI without a condition-code destination"));
    }
    let (d, [a, b], p) = imnmx_operands(cx, at)?;
    let signed = !at.has("U32");
    let a = cx.src_int(at, a)?;
    let b = cx.src_int(at, b)?;
    let p = cx.pred(at, p)?;
    let mn = cx.b().int(IntOp::Min(signed), Type::I32, &[a, b]);
    let mx = cx.b().int(IntOp::Max(signed), Type::I32, &[a, b]);
    let r = cx.b().select(Type::I32, p, mn, mx);
    cx.def32(at, d, r)?;
    let lt = if signed { ICmp::Slt } else { ICmp::Ult };
    let lt = cx.b().int(IntOp::Cmp(lt), Type::I32, &[a, b]);
    let eq = cx.b().int(IntOp::Cmp(ICmp::Eq), Type::I32, &[a, b]);
    let s = cx.b1_to_i32(lt);
    let z = cx.b1_to_i32(eq);
    cx.wr(CC_ZERO, z);
    cx.wr(CC_SIGN, s);
    Ok(())
}

/// IMNMX.U32.XLO d, a, b, p: the low word of the value the high-word compare chose (CC), or
/// with equal high words the unsigned min / max of a and b.
fn imnmx_xlo(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    if writes_cc(at) || !at.has("U32") {
        return Err(cx.unsupported(at, "IMNMX.XLO form"));
    }
    let (d, [a, b], p) = imnmx_operands(cx, at)?;
    let a = cx.src_int(at, a)?;
    let b = cx.src_int(at, b)?;
    let p = cx.pred(at, p)?;
    let mn = cx.b().int(IntOp::Min(false), Type::I32, &[a, b]);
    let mx = cx.b().int(IntOp::Max(false), Type::I32, &[a, b]);
    let low = cx.b().select(Type::I32, p, mn, mx);
    let zero = cx.k32(0);
    let s = cx.rd(CC_SIGN);
    let less = cx.b().int(IntOp::Cmp(ICmp::Ne), Type::I32, &[s, zero]);
    // min (p) takes a when a's high word is less, max takes a when it is not.
    let take_a = cx.b().int(IntOp::Xor, Type::B1, &[less, p]);
    let take_a = cx.not1(take_a);
    let chosen = cx.b().select(Type::I32, take_a, a, b);
    let z = cx.rd(CC_ZERO);
    let eq = cx.b().int(IntOp::Cmp(ICmp::Ne), Type::I32, &[z, zero]);
    let r = cx.b().select(Type::I32, eq, low, chosen);
    cx.def32(at, d, r)
}
