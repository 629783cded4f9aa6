//! Integer ALU: IADD3 (carry chains), IMAD (`.WIDE`, `.HI`, `.X`, and the `.MOV` / `.SHL` /
//! `.IADD` spellings), LOP3, SHF, PRMT, SGXT and BMSK (Ampere's bit-field extract and mask), FLO,
//! POPC, BREV, IABS, IMNMX, LEA (`.HI`, `.X`, `.SX32`), ISETP (`.EX` 64-bit chains), SEL, IDP,
//! VABSDIFF (PTX sad);
//! the uniform-datapath forms (UIADD3, UIMAD, ULOP3, ...) lift the same way on UR / UP.

use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::{Operand, OperandKind, SpecialReg};
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::int::{ICmp, IntOp, Overflow, PrmtMode, ShiftRule};
use isabridge_ir::{Type, Value};

/// Lift `at` if it belongs to this family (`name` with a uniform `U` prefix too).
pub(crate) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    let base = match name {
        "UIADD3" | "UIMAD" | "ULOP3" | "USHF" | "UPRMT" | "USGXT" | "UBMSK" | "UFLO" | "UPOPC" | "UBREV" | "USEL"
        | "ULEA" | "UISETP" | "UIABS" | "UIMNMX" => &name[1..],
        n => n,
    };
    Some(match base {
        "IADD3" => iadd3(cx, at),
        "IMAD" => imad(cx, at),
        "LOP3" => lop3(cx, at),
        "SHF" => shf(cx, at),
        "PRMT" => prmt(cx, at),
        "SGXT" => sgxt(cx, at),
        "BMSK" => bmsk(cx, at),
        "FLO" => flo(cx, at),
        "POPC" | "BREV" | "IABS" => unary(cx, at, base),
        "IMNMX" => imnmx(cx, at),
        "SEL" => sel(cx, at),
        "LEA" => lea(cx, at),
        "ISETP" => isetp(cx, at),
        "IDP" => idp(cx, at),
        "VABSDIFF" => vabsdiff(cx, at),
        _ => return None,
    })
}

fn i32op(cx: &mut Cx, op: IntOp, args: &[Value]) -> Value {
    cx.b().int(op, Type::I32, args)
}

fn i64op(cx: &mut Cx, op: IntOp, args: &[Value]) -> Value {
    cx.b().int(op, Type::I64, args)
}

fn zext64(cx: &mut Cx, v: Value) -> Value {
    cx.b().conv(ConvOp::IToI { signed: false }, Type::I64, v)
}

fn sext64(cx: &mut Cx, v: Value) -> Value {
    cx.b().conv(ConvOp::IToI { signed: true }, Type::I64, v)
}

/// The register destinations and the predicate destinations of an instruction.
fn split_dsts<'a>(at: &At<'a>) -> (Vec<&'a Operand>, Vec<&'a Operand>) {
    at.dsts().into_iter().partition(|o| !is_pred(o))
}

fn is_pred(o: &Operand) -> bool {
    o.size == 1
}

/// The sources: values first, then predicates.
fn split_srcs<'a>(at: &At<'a>) -> (Vec<&'a Operand>, Vec<&'a Operand>) {
    at.srcs().into_iter().partition(|o| !is_pred(o))
}

/// A 32-bit source of an adder as a 33-bit i64 term: x, or for -x the two's complement
/// ~x + 1 (so that -0 carries out, as a subtraction without borrow does); `~x` is the bitwise
/// inverse.
fn add_term(cx: &mut Cx, at: &At, op: &Operand) -> Result<Value, LiftError> {
    let mut v = cx.word(at, op, 0)?;
    if op.mods.not || op.mods.neg {
        v = i32op(cx, IntOp::Not, &[v]);
    }
    let w = zext64(cx, v);
    if op.mods.neg {
        let one = cx.k(Type::I64, 1);
        return Ok(i64op(cx, IntOp::Add(Overflow::Wrap), &[w, one]));
    }
    Ok(w)
}

/// b1 to a 0 / 1 i64.
fn bit64(cx: &mut Cx, p: Value) -> Value {
    cx.b().conv(ConvOp::IToI { signed: false }, Type::I64, p)
}

/// Bit 32 of an i64 sum as b1, and its low 32 bits.
fn carry_split(cx: &mut Cx, s: Value) -> (Value, Value) {
    let (lo, hi) = cx.split64(s);
    let one = cx.k32(1);
    let c = i32op(cx, IntOp::And, &[hi, one]);
    let zero = cx.k32(0);
    let c = cx.b().int(IntOp::Cmp(ICmp::Ne), Type::I32, &[c, zero]);
    (lo, c)
}

/// IADD3 d, [P0, [P1,]] a, b, c [, Pa, Pb (.X)]: d = a + b + c (+ Pa + Pb); P0 is the carry out
/// of a + b (+ Pa), P1 that of adding c (+ Pb) to its low word.
fn iadd3(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (rd, pd) = split_dsts(at);
    let (vs, ps) = split_srcs(at);
    if rd.len() != 1 || vs.len() != 3 || pd.len() > 2 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let x = at.has("X");
    if x != (ps.len() == 2) {
        return Err(cx.unsupported(at, "carry inputs"));
    }
    let a = add_term(cx, at, vs[0])?;
    let b = add_term(cx, at, vs[1])?;
    let c = add_term(cx, at, vs[2])?;
    let mut s1 = i64op(cx, IntOp::Add(Overflow::Wrap), &[a, b]);
    let mut cin2 = None;
    if x {
        let p = cx.pred(at, ps[0])?;
        let p = bit64(cx, p);
        s1 = i64op(cx, IntOp::Add(Overflow::Wrap), &[s1, p]);
        let q = cx.pred(at, ps[1])?;
        cin2 = Some(bit64(cx, q));
    }
    let (lo1, c1) = carry_split(cx, s1);
    let lo1 = zext64(cx, lo1);
    let mut s2 = i64op(cx, IntOp::Add(Overflow::Wrap), &[lo1, c]);
    if let Some(q) = cin2 {
        s2 = i64op(cx, IntOp::Add(Overflow::Wrap), &[s2, q]);
    }
    let (d, c2) = carry_split(cx, s2);
    cx.def_word(at, rd[0], 0, d)?;
    if let Some(p) = pd.first() {
        cx.def_pred(at, p, c1)?;
    }
    if let Some(p) = pd.get(1) {
        cx.def_pred(at, p, c2)?;
    }
    Ok(())
}

/// IMAD d, [P,] a, b, c [, Pc (.X)]: d = a * b + c (+ Pc); `.WIDE`: the 64-bit product plus
/// the 64-bit c into a register pair; `.HI`: the high word of the 64-bit product plus the
/// 64-bit c. P is the carry out of the 64-bit addition. `.U32`: unsigned product.
fn imad(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (rd, pd) = split_dsts(at);
    let (vs, ps) = split_srcs(at);
    if rd.len() != 1 || vs.len() != 3 || pd.len() > 1 || ps.len() != at.has("X") as usize {
        return Err(cx.unsupported(at, "operand shape"));
    }
    if !pd.is_empty() && !at.has("WIDE") && !at.has("HI") {
        return Err(cx.unsupported(at, "IMAD carry out of the low word"));
    }
    let signed = !at.has("U32");
    let a = cx.src_int(at, vs[0])?;
    let b = cx.src_int(at, vs[1])?;
    let cin = match ps.first() {
        Some(p) => Some(cx.pred(at, p)?),
        None => None,
    };
    if at.has("WIDE") {
        if vs[2].mods.neg {
            return Err(cx.unsupported(at, "negated 64-bit addend"));
        }
        let c = cx.src64(at, vs[2])?;
        let c = if vs[2].mods.not { i64op(cx, IntOp::Not, &[c]) } else { c };
        let (a, b) = if signed { (sext64(cx, a), sext64(cx, b)) } else { (zext64(cx, a), zext64(cx, b)) };
        let prod = i64op(cx, IntOp::MulLo, &[a, b]);
        let mut r = i64op(cx, IntOp::Add(Overflow::Wrap), &[prod, c]);
        // The carry out of the 64-bit addition (unsigned overflow of product + c).
        let mut carry = cx.b().int(IntOp::Cmp(ICmp::Ult), Type::I64, &[r, c]);
        if let Some(p) = cin {
            let p64 = bit64(cx, p);
            r = i64op(cx, IntOp::Add(Overflow::Wrap), &[r, p64]);
            let zero = cx.k(Type::I64, 0);
            let wrapped = cx.b().int(IntOp::Cmp(ICmp::Eq), Type::I64, &[r, zero]);
            let w = cx.b().int(IntOp::And, Type::B1, &[wrapped, p]);
            carry = cx.b().int(IntOp::Or, Type::B1, &[carry, w]);
        }
        cx.def64(at, rd[0], r)?;
        if let Some(p) = pd.first() {
            cx.def_pred(at, p, carry)?;
        }
        return Ok(());
    }
    if at.has("HI") {
        // `.HI`: c is a register pair; d is the high word of the 64-bit a * b + c (the pair
        // R6:R7 of `IMAD.HI.U32 R9, R9, R8, R6` carries mad.hi's addend in R7:
        // fixtures/hw k_mad_hi_u32), and P the carry out of that 64-bit addition.
        let c = cx.src64(at, vs[2])?;
        let c = if vs[2].mods.not { i64op(cx, IntOp::Not, &[c]) } else { c };
        let (a, b) = if signed { (sext64(cx, a), sext64(cx, b)) } else { (zext64(cx, a), zext64(cx, b)) };
        let prod = i64op(cx, IntOp::MulLo, &[a, b]);
        let mut s = i64op(cx, IntOp::Add(Overflow::Wrap), &[prod, c]);
        let mut carry = cx.b().int(IntOp::Cmp(ICmp::Ult), Type::I64, &[s, c]);
        if let Some(p) = cin {
            let p64 = bit64(cx, p);
            s = i64op(cx, IntOp::Add(Overflow::Wrap), &[s, p64]);
            let zero = cx.k(Type::I64, 0);
            let wrapped = cx.b().int(IntOp::Cmp(ICmp::Eq), Type::I64, &[s, zero]);
            let w = cx.b().int(IntOp::And, Type::B1, &[wrapped, p]);
            carry = cx.b().int(IntOp::Or, Type::B1, &[carry, w]);
        }
        let hi = cx.split64(s).1;
        cx.def_word(at, rd[0], 0, hi)?;
        if let Some(p) = pd.first() {
            cx.def_pred(at, p, carry)?;
        }
        return Ok(());
    }
    let c = cx.src_int(at, vs[2])?;
    let mut r = i32op(cx, IntOp::MadLo, &[a, b, c]);
    if let Some(p) = cin {
        let p = cx.b1_to_i32(p);
        r = i32op(cx, IntOp::Add(Overflow::Wrap), &[r, p]);
    }
    cx.def_word(at, rd[0], 0, r)
}

/// LOP3.LUT [P,] d, a, b, c, lut, q: d = the truth table of a, b, c; P = (d != 0) or q
/// (`.PAND`: and q).
fn lop3(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (rd, pd) = split_dsts(at);
    let (vs, ps) = split_srcs(at);
    if rd.len() != 1 || vs.len() != 4 || ps.len() != 1 || pd.len() > 1 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let OperandKind::Imm(lut) = vs[3].kind else { return Err(cx.unsupported(at, "LUT operand")) };
    let a = cx.src_int(at, vs[0])?;
    let b = cx.src_int(at, vs[1])?;
    let c = cx.src_int(at, vs[2])?;
    let r = i32op(cx, IntOp::Lop3(lut as u8), &[a, b, c]);
    cx.def_word(at, rd[0], 0, r)?;
    if let Some(p) = pd.first() {
        let zero = cx.k32(0);
        let nz = cx.b().int(IntOp::Cmp(ICmp::Ne), Type::I32, &[r, zero]);
        let q = cx.pred(at, ps[0])?;
        let op = if at.has("PAND") { IntOp::And } else { IntOp::Or };
        let v = cx.b().int(op, Type::B1, &[nz, q]);
        cx.def_pred(at, p, v)?;
    }
    Ok(())
}

/// SHF.{L,R}[.W].{U32,S32,U64,S64}[.HI] d, a, n, c: the 64-bit value c:a shifted left or right
/// by n (clamped to the type's width, or modulo it with `.W`); the low word, or with `.HI` the
/// high word. `.S32` / `.S64` right shifts are arithmetic.
fn shf(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (rd, _) = split_dsts(at);
    let vs = at.srcs();
    if rd.len() != 1 || vs.len() != 3 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let left = at.has("L");
    let ty = at.one_of(&["U32", "S32", "U64", "S64"]).ok_or_else(|| cx.unsupported(at, "SHF type"))?;
    let width = if ty.ends_with("64") { 64 } else { 32 };
    let a = cx.src_int(at, vs[0])?;
    let n = cx.src_int(at, vs[1])?;
    let c = cx.src_int(at, vs[2])?;
    let n = if at.has("W") {
        let m = cx.k32(width - 1);
        i32op(cx, IntOp::And, &[n, m])
    } else {
        let w = cx.k32(width);
        i32op(cx, IntOp::Min(false), &[n, w])
    };
    let v = cx.join64(a, c);
    let n64 = zext64(cx, n);
    let r = if left {
        i64op(cx, IntOp::Shl(ShiftRule::Clamp), &[v, n64])
    } else {
        i64op(cx, IntOp::Shr(ty.starts_with('S'), ShiftRule::Clamp), &[v, n64])
    };
    let (lo, hi) = cx.split64(r);
    cx.def_word(at, rd[0], 0, if at.has("HI") { hi } else { lo })
}

/// PRMT d, a, sel, b: the bytes of b:a picked by sel (the mode suffix or the default).
fn prmt(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (rd, _) = split_dsts(at);
    let vs = at.srcs();
    if rd.len() != 1 || vs.len() != 3 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let mode = match at.one_of(&["F4E", "B4E", "RC8", "ECL", "ECR", "RC16"]) {
        None => PrmtMode::Default,
        Some("F4E") => PrmtMode::F4e,
        Some("B4E") => PrmtMode::B4e,
        Some("RC8") => PrmtMode::Rc8,
        Some("ECL") => PrmtMode::Ecl,
        Some("ECR") => PrmtMode::Ecr,
        _ => PrmtMode::Rc16,
    };
    let a = cx.src_int(at, vs[0])?;
    let s = cx.src_int(at, vs[1])?;
    let b = cx.src_int(at, vs[2])?;
    let r = i32op(cx, IntOp::Prmt(mode), &[a, b, s]);
    cx.def_word(at, rd[0], 0, r)
}

/// SGXT[.U32][.W] d, a, n: the low n bits of a, sign-extended (zero-extended with `.U32`);
/// n is taken modulo 32 with `.W`, else clamped to 32.
fn sgxt(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (rd, _) = split_dsts(at);
    let vs = at.srcs();
    if rd.len() != 1 || vs.len() != 2 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let a = cx.src_int(at, vs[0])?;
    let n = cx.src_int(at, vs[1])?;
    let n = if at.has("W") {
        let m = cx.k32(31);
        i32op(cx, IntOp::And, &[n, m])
    } else {
        let m = cx.k32(32);
        i32op(cx, IntOp::Min(false), &[n, m])
    };
    let zero = cx.k32(0);
    let r = i32op(cx, IntOp::Bfe(!at.has("U32")), &[a, zero, n]);
    cx.def_word(at, rd[0], 0, r)
}

/// BMSK[.W] d, pos, width: width one bits from bit pos: ((1 << width) - 1) << pos, each shift
/// clamped at 32 (all ones for a width of 32 or more, 0 for a position of 32 or more), or both
/// amounts modulo 32 with `.W`.
fn bmsk(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (rd, _) = split_dsts(at);
    let vs = at.srcs();
    if rd.len() != 1 || vs.len() != 2 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let pos = cx.src_int(at, vs[0])?;
    let width = cx.src_int(at, vs[1])?;
    let rule = if at.has("W") { ShiftRule::Wrap } else { ShiftRule::Clamp };
    let one = cx.k32(1);
    let e = i32op(cx, IntOp::Shl(rule), &[one, width]);
    let m = i32op(cx, IntOp::Sub(Overflow::Wrap), &[e, one]);
    let r = i32op(cx, IntOp::Shl(rule), &[m, pos]);
    cx.def_word(at, rd[0], 0, r)
}

/// FLO[.U32][.SH] d, a: the bit number of the most significant one (signed: of the most
/// significant bit that differs from the sign), or with `.SH` its distance from bit 31;
/// 0xffffffff when there is none.
fn flo(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    // `FLO Rd, PA, Ra`: the operand model lists PA as written (nvdisasm leaves it out when it
    // is PT); a predicate output other than PT has no measurement of its meaning, so only PT lifts.
    let (rd, pd) = split_dsts(at);
    let pt = |o: &&Operand| matches!(o.kind, OperandKind::Special { reg: SpecialReg::Pt | SpecialReg::Upt, .. });
    let vs: Vec<&Operand> = at.srcs().into_iter().filter(|o| !pt(o)).collect();
    if rd.len() != 1 || !pd.iter().all(pt) || vs.len() != 1 || is_pred(vs[0]) {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let mut a = cx.src_int(at, vs[0])?;
    if !at.has("U32") {
        let zero = cx.k32(0);
        let neg = cx.b().int(IntOp::Cmp(ICmp::Slt), Type::I32, &[a, zero]);
        let na = i32op(cx, IntOp::Not, &[a]);
        a = cx.b().select(Type::I32, neg, na, a);
    }
    let lz = i32op(cx, IntOp::Clz, &[a]);
    let r = if at.has("SH") {
        lz
    } else {
        let k = cx.k32(31);
        i32op(cx, IntOp::Sub(Overflow::Wrap), &[k, lz])
    };
    let zero = cx.k32(0);
    let none = cx.b().int(IntOp::Cmp(ICmp::Eq), Type::I32, &[a, zero]);
    let ones = cx.k32(u32::MAX);
    let r = cx.b().select(Type::I32, none, ones, r);
    cx.def_word(at, rd[0], 0, r)
}

/// POPC, BREV, IABS d, a (IABS wraps: |INT_MIN| is INT_MIN).
fn unary(cx: &mut Cx, at: &At, name: &str) -> Result<(), LiftError> {
    let (rd, _) = split_dsts(at);
    let vs = at.srcs();
    if rd.len() != 1 || vs.len() != 1 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let a = cx.src_int(at, vs[0])?;
    let r = match name {
        "POPC" => i32op(cx, IntOp::Popc, &[a]),
        "BREV" => i32op(cx, IntOp::Brev, &[a]),
        _ => {
            let zero = cx.k32(0);
            let neg = cx.b().int(IntOp::Cmp(ICmp::Slt), Type::I32, &[a, zero]);
            let na = i32op(cx, IntOp::Neg, &[a]);
            cx.b().select(Type::I32, neg, na, a)
        }
    };
    cx.def_word(at, rd[0], 0, r)
}

/// IMNMX[.U32] d, a, b, p: p ? min(a, b) : max(a, b).
fn imnmx(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (rd, _) = split_dsts(at);
    let (vs, ps) = split_srcs(at);
    if rd.len() != 1 || vs.len() != 2 || ps.len() != 1 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let signed = !at.has("U32");
    let a = cx.src_int(at, vs[0])?;
    let b = cx.src_int(at, vs[1])?;
    let p = cx.pred(at, ps[0])?;
    let mn = i32op(cx, IntOp::Min(signed), &[a, b]);
    let mx = i32op(cx, IntOp::Max(signed), &[a, b]);
    let r = cx.b().select(Type::I32, p, mn, mx);
    cx.def_word(at, rd[0], 0, r)
}

/// SEL d, a, b, p: p ? a : b.
fn sel(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (rd, _) = split_dsts(at);
    let (vs, ps) = split_srcs(at);
    if rd.len() != 1 || vs.len() != 2 || ps.len() != 1 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let a = cx.src_int(at, vs[0])?;
    let b = cx.src_int(at, vs[1])?;
    let p = cx.pred(at, ps[0])?;
    let r = cx.b().select(Type::I32, p, a, b);
    cx.def_word(at, rd[0], 0, r)
}

/// LEA d, [P,] a, b, s [, Pc (.X)]: d = (a << s) + b (+ Pc), P its carry out. `.HI`: the
/// shifted value is the high word of (c:a) << s (c is the sign of a with `.SX32`).
fn lea(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (rd, pd) = split_dsts(at);
    let (vs, ps) = split_srcs(at);
    let hi = at.has("HI");
    let sx = at.has("SX32");
    let nv = if hi && !sx { 4 } else { 3 };
    if rd.len() != 1 || pd.len() > 1 || vs.len() != nv || ps.len() != at.has("X") as usize {
        return Err(cx.unsupported(at, "operand shape"));
    }
    if vs[0].mods.neg || vs.get(2).is_some_and(|o| hi && !sx && o.mods.neg) {
        return Err(cx.unsupported(at, "negated LEA operand"));
    }
    let OperandKind::Imm(s) = vs[nv - 1].kind else { return Err(cx.unsupported(at, "shift operand")) };
    let a = cx.src_int(at, vs[0])?;
    let s = cx.k(Type::I64, (s as u64) & 63);
    let shifted = if hi {
        let c = if sx {
            let k = cx.k32(31);
            i32op(cx, IntOp::Shr(true, ShiftRule::Clamp), &[a, k])
        } else {
            cx.src_int(at, vs[2])?
        };
        let v = cx.join64(a, c);
        let v = i64op(cx, IntOp::Shl(ShiftRule::Clamp), &[v, s]);
        cx.split64(v).1
    } else {
        let v = zext64(cx, a);
        let v = i64op(cx, IntOp::Shl(ShiftRule::Clamp), &[v, s]);
        cx.split64(v).0
    };
    let x = zext64(cx, shifted);
    // b as an adder term: -b is ~b + 1 (`LEA.HI R8, R7, -R8, RZ, 0x8`).
    let y = add_term(cx, at, vs[1])?;
    let mut sum = i64op(cx, IntOp::Add(Overflow::Wrap), &[x, y]);
    if let Some(p) = ps.first() {
        let p = cx.pred(at, p)?;
        let p = bit64(cx, p);
        sum = i64op(cx, IntOp::Add(Overflow::Wrap), &[sum, p]);
    }
    let (d, carry) = carry_split(cx, sum);
    cx.def_word(at, rd[0], 0, d)?;
    if let Some(p) = pd.first() {
        cx.def_pred(at, p, carry)?;
    }
    Ok(())
}

/// The integer compare of an ISETP suffix (`T` / `F`: None).
pub(crate) fn icmp_of(s: &str, signed: bool) -> Option<ICmp> {
    Some(match (s, signed) {
        ("EQ", _) => ICmp::Eq,
        ("NE", _) => ICmp::Ne,
        ("LT", true) => ICmp::Slt,
        ("LE", true) => ICmp::Sle,
        ("GT", true) => ICmp::Sgt,
        ("GE", true) => ICmp::Sge,
        ("LT", false) => ICmp::Ult,
        ("LE", false) => ICmp::Ule,
        ("GT", false) => ICmp::Ugt,
        ("GE", false) => ICmp::Uge,
        _ => return None,
    })
}

/// ISETP.cmp[.U32].bop[.EX] Pd, Pq, a, b, Pc [, Plow]: r = a cmp b; with `.EX` (the high words
/// of a 64-bit compare) r = (a == b) ? Plow : a cmp b. Pd = r bop Pc, Pq = !r bop Pc.
fn isetp(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (vs, ps) = split_srcs(at);
    let ex = at.has("EX");
    if vs.len() != 2 || ps.len() != 1 + ex as usize {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let signed = !at.has("U32");
    let cmp = at.one_of(&["F", "LT", "EQ", "LE", "GT", "NE", "GE", "T"]).ok_or_else(|| cx.unsupported(at, "compare"))?;
    let a = cx.src_int(at, vs[0])?;
    let b = cx.src_int(at, vs[1])?;
    let c = cx.pred(at, ps[0])?;
    let mut r = match icmp_of(cmp, signed) {
        Some(k) => cx.b().int(IntOp::Cmp(k), Type::I32, &[a, b]),
        None => cx.k(Type::B1, (cmp == "T") as u64),
    };
    if ex {
        let low = cx.pred(at, ps[1])?;
        let eq = cx.b().int(IntOp::Cmp(ICmp::Eq), Type::I32, &[a, b]);
        r = cx.b().select(Type::B1, eq, low, r);
    }
    super::float32::setp_defs(cx, at, r, c)
}

/// IDP.4A.{S8,U8}.{S8,U8} and IDP.2A.{LO,HI}.{S16,U16}.{S8,U8} d, a, b, c: dot products of
/// byte (and halfword) lanes plus c.
fn idp(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (rd, _) = split_dsts(at);
    let vs = at.srcs();
    if rd.len() != 1 || vs.len() != 3 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let sa = at.inst.named("IDP_A_SIGNED").unwrap_or(0) != 0;
    let sb = at.inst.named("IDP_B_SIGNED").unwrap_or(0) != 0;
    if at.inst.named("IDP_NEG_C").unwrap_or(0) != 0 {
        return Err(cx.unsupported(at, "IDP with a negated addend"));
    }
    let op = if at.has("4A") {
        IntOp::Dp4a(sa, sb)
    } else if sa == sb {
        IntOp::Dp2a(at.has("HI"), sa)
    } else {
        return Err(cx.unsupported(at, "IDP.2A with mixed signedness"));
    };
    let a = cx.src_int(at, vs[0])?;
    let b = cx.src_int(at, vs[1])?;
    let c = cx.src_int(at, vs[2])?;
    let r = i32op(cx, op, &[a, b, c]);
    cx.def_word(at, rd[0], 0, r)
}

/// VABSDIFF[.U32] d, a, b, c: |a - b| + c (signed unless `.U32`): PTX `sad` (fixtures/nvidia
/// int.sm86: sad.u32 and sad.s32 compile to it).
fn vabsdiff(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (rd, _) = split_dsts(at);
    let vs = at.srcs();
    if rd.len() != 1 || vs.len() != 3 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let signed = !at.has("U32");
    let a = cx.src_int(at, vs[0])?;
    let b = cx.src_int(at, vs[1])?;
    let c = cx.src_int(at, vs[2])?;
    let mx = i32op(cx, IntOp::Max(signed), &[a, b]);
    let mn = i32op(cx, IntOp::Min(signed), &[a, b]);
    let d = i32op(cx, IntOp::Sub(Overflow::Wrap), &[mx, mn]);
    let r = i32op(cx, IntOp::Add(Overflow::Wrap), &[d, c]);
    cx.def_word(at, rd[0], 0, r)
}
