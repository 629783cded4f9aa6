//! The Maxwell integer ALU: IADD / IADD32I (`.PO`, `.SAT`, carry in `.X` and out `.CC`),
//! ISCADD / ISCADD32I, IADD3 (`.RS` / `.LS`, `.X`), SHL, SHR, BFE, BFI (the field as
//! `position | length << 8`), SHF, LOP / LOP32I (`~` operands, `.NZ` / `.Z` predicate results),
//! LOP3.LUT, ICMP, ISET and ISETP (`.X`: 64-bit compares through the condition code, cc.rs;
//! the rest is sm_86's ISETP), PSETP, PSET, MOV32I.
//!
//! Carries: a source negated with `-` adds as `~x + 1` in 33 bits (so `-0` carries out, as a
//! subtraction without borrow does); the carry out is bit 32 of the sum and goes to the
//! condition code's carry flag ([`CC_CARRY`]), which `.X` adds in (cc.rs has the model).

use super::{marked, reads_cc, writes_cc, CC_CARRY};
use crate::lift::sm86::{self, At, Cx};
use crate::lift::LiftError;
use crate::operand::{Operand, OperandKind, RegClass, SpecialReg};
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::int::{ICmp, IntOp, Overflow, ShiftRule};
use isabridge_ir::{Type, Value};

/// Lift `at` if it belongs to this family.
pub(crate) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    Some(match name {
        "IADD" | "IADD32I" => iadd(cx, at),
        "ISCADD" | "ISCADD32I" => iscadd(cx, at),
        "IADD3" => iadd3(cx, at),
        "SHL" | "SHR" => shift(cx, at, name == "SHL"),
        "BFE" => bfe(cx, at),
        "SHF" => shf(cx, at),
        "BFI" => bfi(cx, at),
        "LOP" | "LOP32I" => lop(cx, at),
        "LOP3" => lop3(cx, at),
        "ICMP" => icmp(cx, at),
        "ISETP" => isetp(cx, at),
        "ISET" => iset(cx, at),
        "PSETP" => psetp(cx, at),
        "PSET" => pset(cx, at),
        "MOV32I" => mov32i(cx, at),
        _ => return None,
    })
}

/// Whether `o` is a predicate register or PT.
pub(super) fn is_pred(o: &Operand) -> bool {
    matches!(o.kind, OperandKind::Reg(r) if r.class == RegClass::P) || matches!(o.kind, OperandKind::Special { reg: SpecialReg::Pt, .. })
}

/// A 32-bit source with `~` applied (also the template's `.INV` on an immediate).
fn src_not(cx: &mut Cx, at: &At, op: &Operand) -> Result<Value, LiftError> {
    let mut v = cx.word(at, op, 0)?;
    if op.mods.not || marked(at, op.field, ".INV") {
        v = cx.b().int(IntOp::Not, Type::I32, &[v]);
    }
    Ok(v)
}

/// Whether a source is negated (`-x`, or the template's `.NEG` on an immediate).
fn negated(at: &At, op: &Operand) -> bool {
    op.mods.neg || (matches!(op.kind, OperandKind::Imm(_)) && marked(at, op.field, ".NEG"))
}

/// Whether the instruction adds the carry flag in (`.X`).
fn carries_in(at: &At) -> bool {
    at.has("X") || reads_cc(at)
}

/// A source as a 33-bit adder term in an i64 (see the module comment; under `.X` a negated
/// source is `~x`, the carry in its `+ 1`: cc.rs).
fn term(cx: &mut Cx, at: &At, op: &Operand) -> Result<Value, LiftError> {
    let neg = negated(at, op);
    let mut v = cx.word(at, op, 0)?;
    if op.mods.not || neg {
        v = cx.b().int(IntOp::Not, Type::I32, &[v]);
    }
    let w = cx.b().conv(ConvOp::IToI { signed: false }, Type::I64, v);
    if neg && !carries_in(at) {
        let one = cx.k(Type::I64, 1);
        return Ok(cx.b().int(IntOp::Add(Overflow::Wrap), Type::I64, &[w, one]));
    }
    Ok(w)
}

fn add64(cx: &mut Cx, a: Value, b: Value) -> Value {
    cx.b().int(IntOp::Add(Overflow::Wrap), Type::I64, &[a, b])
}

/// The carry flag as an i64 0 / 1.
fn carry_in(cx: &mut Cx) -> Value {
    let c = cx.rd(CC_CARRY);
    cx.b().conv(ConvOp::IToI { signed: false }, Type::I64, c)
}

/// Write the low word of an i64 sum to `d` and, with a `.CC` destination, bit 32 to the carry
/// flag.
fn def_sum(cx: &mut Cx, at: &At, d: &Operand, s: Value) -> Result<(), LiftError> {
    let (lo, _) = cx.split64(s);
    cx.def32(at, d, lo)?;
    if writes_cc(at) {
        super::cc::write_add_flags(cx, s, carries_in(at));
    }
    Ok(())
}

/// `.X` adds the carry flag.
fn with_x(cx: &mut Cx, at: &At, s: Value) -> Result<Value, LiftError> {
    if !carries_in(at) {
        return Ok(s);
    }
    let c = carry_in(cx);
    Ok(add64(cx, s, c))
}

/// IADD[32I][.PO][.SAT][.X] d[.CC], a, b: a + b (+ 1 with `.PO`, + the carry with `.X`);
/// `.SAT` clamps the signed sum to the i32 range.
fn iadd(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (dsts, srcs) = (at.dsts(), at.srcs());
    let srcs: Vec<&Operand> = srcs.into_iter().filter(|o| !super::is_cc(o)).collect();
    if dsts.len() != 1 || srcs.len() != 2 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    if at.has("SAT") {
        if at.has("X") || at.has("PO") || writes_cc(at) || reads_cc(at) {
            return Err(cx.unsupported(at, "IADD.SAT with a carry or .PO"));
        }
        let mut t = Vec::new();
        for o in &srcs {
            let v = cx.word(at, o, 0)?;
            let v = cx.b().conv(ConvOp::IToI { signed: true }, Type::I64, v);
            t.push(if negated(at, o) { cx.b().int(IntOp::Neg, Type::I64, &[v]) } else { v });
        }
        let s = add64(cx, t[0], t[1]);
        let lo = cx.k(Type::I64, i32::MIN as i64 as u64);
        let hi = cx.k(Type::I64, i32::MAX as u64);
        let s = cx.b().int(IntOp::Max(true), Type::I64, &[s, lo]);
        let s = cx.b().int(IntOp::Min(true), Type::I64, &[s, hi]);
        let r = cx.b().conv(ConvOp::IToI { signed: false }, Type::I32, s);
        return cx.def32(at, dsts[0], r);
    }
    let a = term(cx, at, srcs[0])?;
    let b = term(cx, at, srcs[1])?;
    let mut s = add64(cx, a, b);
    if at.has("PO") {
        let one = cx.k(Type::I64, 1);
        s = add64(cx, s, one);
    }
    let s = with_x(cx, at, s)?;
    def_sum(cx, at, dsts[0], s)
}

/// ISCADD[32I] d[.CC], a, b, n: (a << n) + b.
fn iscadd(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (dsts, srcs) = (at.dsts(), at.srcs());
    let srcs: Vec<&Operand> = srcs.into_iter().filter(|o| !super::is_cc(o)).collect();
    if dsts.len() != 1 || srcs.len() != 3 || at.has("PO") || reads_cc(at) {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let OperandKind::Imm(n) = srcs[2].kind else { return Err(cx.unsupported(at, "shift operand")) };
    let a = cx.word(at, srcs[0], 0)?;
    let k = cx.k32(n as u32 & 31);
    let a = cx.b().int(IntOp::Shl(ShiftRule::Clamp), Type::I32, &[a, k]);
    let a = if negated(at, srcs[0]) {
        let na = cx.b().int(IntOp::Not, Type::I32, &[a]);
        let w = cx.b().conv(ConvOp::IToI { signed: false }, Type::I64, na);
        let one = cx.k(Type::I64, 1);
        add64(cx, w, one)
    } else {
        cx.b().conv(ConvOp::IToI { signed: false }, Type::I64, a)
    };
    let b = term(cx, at, srcs[1])?;
    let s = add64(cx, a, b);
    def_sum(cx, at, dsts[0], s)
}

/// IADD3[.X][.RS|.LS] d[.CC], a, b, c: a + b + c (+ the carry with `.X`); `.RS` adds c to the
/// 34-bit sum a + b shifted right by 16, `.LS` to it shifted left by 16; `.CC`: the carry is
/// the sum's bits 32-33.
fn iadd3(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (dsts, srcs) = (at.dsts(), at.srcs());
    let srcs: Vec<&Operand> = srcs.into_iter().filter(|o| !super::is_cc(o)).collect();
    if dsts.len() != 1 || srcs.len() != 3 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    if writes_cc(at) && (at.has("RS") || at.has("LS") || srcs.iter().any(|o| negated(at, o) || o.mods.not)) {
        return Err(cx.unsupported(at, "IADD3 carry out with a shift or a negated source"));
    }
    for f in ["SEL_RA", "SEL_RB", "SEL_RC"] {
        if at.inst.named(f).unwrap_or(0) != 0 {
            return Err(cx.unsupported(at, "IADD3 half-word source selects"));
        }
    }
    let a = term(cx, at, srcs[0])?;
    let b = term(cx, at, srcs[1])?;
    let c = term(cx, at, srcs[2])?;
    let mut ab = add64(cx, a, b);
    let shifted = at.has("RS") || at.has("LS");
    if shifted && (at.has("X") || reads_cc(at)) {
        return Err(cx.unsupported(at, "IADD3 shift with a carry in"));
    }
    if at.has("RS") {
        let k = cx.k(Type::I64, 16);
        ab = cx.b().int(IntOp::Shr(false, ShiftRule::Clamp), Type::I64, &[ab, k]);
    } else if at.has("LS") {
        let k = cx.k(Type::I64, 16);
        ab = cx.b().int(IntOp::Shl(ShiftRule::Clamp), Type::I64, &[ab, k]);
    }
    let s = add64(cx, ab, c);
    let s = with_x(cx, at, s)?;
    def_sum(cx, at, dsts[0], s)?;
    if writes_cc(at) {
        // The carry of a three-term sum is its bits 32-33 (0, 1 or 2), which IADD3.X adds:
        // ptxas 12.9 lowers PTX `add.s64` of x + y + x to `IADD3 lo.CC, ...` /
        // `IADD3.X hi, ...` (kernel k_iadd3cc of fixtures/nvidia/lift/cc.sm50.ptx, checked by
        // sm50_cc.rs on rows whose low words carry 2).
        let (_, hi) = cx.split64(s);
        let three = cx.k32(3);
        let c = cx.b().int(IntOp::And, Type::I32, &[hi, three]);
        cx.wr(CC_CARRY, c);
    }
    Ok(())
}

/// SHL[.W] d, a, n / SHR[.U32][.W] d, a, n: shifts by n, clamped at 32 (`.W`: n modulo 32);
/// SHR is arithmetic unless `.U32`.
fn shift(cx: &mut Cx, at: &At, left: bool) -> Result<(), LiftError> {
    let (dsts, srcs) = (at.dsts(), at.srcs());
    if dsts.len() != 1 || srcs.len() != 2 || at.has("X") || at.has("BREV") || writes_cc(at) || reads_cc(at) {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let a = cx.word(at, srcs[0], 0)?;
    let n = cx.word(at, srcs[1], 0)?;
    let rule = if at.has("W") { ShiftRule::Wrap } else { ShiftRule::Clamp };
    let op = if left { IntOp::Shl(rule) } else { IntOp::Shr(!at.has("U32"), rule) };
    let r = cx.b().int(op, Type::I32, &[a, n]);
    cx.def32(at, dsts[0], r)
}

/// SHF.L[.W] d, a, n, c: the high word of c:a shifted left by n; SHF.R[.W] d, a, n, c: the
/// low word of c:a shifted right by n (n clamped at 32, or modulo 32 with `.W`). The typed
/// forms (`.S32`, `.U64`, `.HI`, ...) are typed errors.
fn shf(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (dsts, srcs) = (at.dsts(), at.srcs());
    if dsts.len() != 1 || srcs.len() != 3 || writes_cc(at) || reads_cc(at) || at.has("X") {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let wide = at.one_of(&["U64", "S64"]);
    if let Some(t) = at.one_of(&["U32", "S32", "HI"]) {
        return Err(cx.unsupported(at, &format!("SHF .{t}")));
    }
    let a = cx.word(at, srcs[0], 0)?;
    let n = cx.word(at, srcs[1], 0)?;
    let c = cx.word(at, srcs[2], 0)?;
    if let Some(t) = wide {
        return shf64(cx, at, dsts[0], t == "S64", a, n, c);
    }
    let rule = if at.has("W") { ShiftRule::Wrap } else { ShiftRule::Clamp };
    let op = match at.one_of(&["L", "R"]) {
        Some("L") => IntOp::ShfL(rule),
        Some(_) => IntOp::ShfR(rule),
        None => return Err(cx.unsupported(at, "SHF direction")),
    };
    let r = cx.b().int(op, Type::I32, &[a, c, n]);
    cx.def32(at, dsts[0], r)
}

/// SHF.R.{U64,S64} d, a, n, c: the low word of the 64-bit c:a shifted right by n (logical or
/// arithmetic); SHF.L.U64 d, a, n, c: the high word of c:a shifted left by n; n clamped at 64.
/// ptxas 12.9 lowers PTX `shl.b64` / `shr.{u64,s64}` to these plus a 32-bit shift of the other
/// word (kernels k_shl64, k_shr64u, k_shr64s, k_shr64k of fixtures/nvidia/lift/cc.sm50.ptx,
/// checked by sm50_cc.rs). `.W` with a 64-bit type is a typed error.
fn shf64(cx: &mut Cx, at: &At, d: &Operand, signed: bool, a: Value, n: Value, c: Value) -> Result<(), LiftError> {
    if at.has("W") {
        return Err(cx.unsupported(at, "SHF .W with a 64-bit type"));
    }
    let x = cx.join64(a, c);
    let n = cx.b().conv(ConvOp::IToI { signed: false }, Type::I64, n);
    let r = match at.one_of(&["L", "R"]) {
        Some("L") if !signed => {
            let v = cx.b().int(IntOp::Shl(ShiftRule::Clamp), Type::I64, &[x, n]);
            cx.split64(v).1
        }
        Some("R") => {
            let v = cx.b().int(IntOp::Shr(signed, ShiftRule::Clamp), Type::I64, &[x, n]);
            cx.split64(v).0
        }
        _ => return Err(cx.unsupported(at, "SHF direction and type")),
    };
    cx.def32(at, d, r)
}

/// The position (bits 0-7) and length (bits 8-15) of a packed field operand.
fn field_of(cx: &mut Cx, b: Value) -> (Value, Value) {
    let m = cx.k32(0xff);
    let pos = cx.b().int(IntOp::And, Type::I32, &[b, m]);
    let eight = cx.k32(8);
    let l = cx.b().int(IntOp::Shr(false, ShiftRule::Clamp), Type::I32, &[b, eight]);
    let len = cx.b().int(IntOp::And, Type::I32, &[l, m]);
    (pos, len)
}

/// BFE[.U32][.BREV] d, a, f: the field f of a (bit-reversed first with `.BREV`),
/// sign-extended unless `.U32`.
fn bfe(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (dsts, srcs) = (at.dsts(), at.srcs());
    if dsts.len() != 1 || srcs.len() != 2 || writes_cc(at) {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let mut a = cx.word(at, srcs[0], 0)?;
    if at.has("BREV") {
        a = cx.b().int(IntOp::Brev, Type::I32, &[a]);
    }
    let f = cx.word(at, srcs[1], 0)?;
    let (pos, len) = field_of(cx, f);
    let r = cx.b().int(IntOp::Bfe(!at.has("U32")), Type::I32, &[a, pos, len]);
    cx.def32(at, dsts[0], r)
}

/// BFI d, a, f, c: c with field f replaced by the low bits of a.
fn bfi(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (dsts, srcs) = (at.dsts(), at.srcs());
    if dsts.len() != 1 || srcs.len() != 3 || writes_cc(at) {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let a = cx.word(at, srcs[0], 0)?;
    let f = cx.word(at, srcs[1], 0)?;
    let c = cx.word(at, srcs[2], 0)?;
    let (pos, len) = field_of(cx, f);
    let r = cx.b().ins(isabridge_ir::ops::Op::Int(IntOp::Bfi), &[a, c, pos, len], Some(Type::I32));
    cx.def32(at, dsts[0], r)
}

/// The predicate result of a `.NZ` / `.Z` logic op (None without one).
fn pred_result(cx: &mut Cx, at: &At, r: Value) -> Result<Option<Value>, LiftError> {
    let zero = cx.k32(0);
    Ok(match at.one_of(&["NZ", "Z", "T", "F"]) {
        Some("NZ") => Some(cx.b().int(IntOp::Cmp(ICmp::Ne), Type::I32, &[r, zero])),
        Some("Z") => Some(cx.b().int(IntOp::Cmp(ICmp::Eq), Type::I32, &[r, zero])),
        Some(s) => return Err(cx.unsupported(at, &format!("predicate mode .{s}"))),
        None => None,
    })
}

/// The explicit operands: an optional predicate destination, the register destination (the
/// model lists it among the sources when a predicate one comes first: `LOP.AND.NZ P0, RZ, R3,
/// R2`), then the sources.
fn logic_operands<'a>(at: &At<'a>) -> (Option<&'a Operand>, Option<&'a Operand>, Vec<&'a Operand>) {
    let ops: Vec<&Operand> = at.inst.explicit().filter(|o| !super::is_cc(o)).collect();
    match ops.split_first() {
        Some((p, rest)) if is_pred(p) => match rest.split_first() {
            Some((d, srcs)) => (Some(p), Some(d), srcs.to_vec()),
            None => (Some(p), None, Vec::new()),
        },
        Some((d, srcs)) => (None, Some(d), srcs.to_vec()),
        None => (None, None, Vec::new()),
    }
}

/// LOP[32I].{AND,OR,XOR,PASS_B}[.NZ|.Z] [P,] d, a, b.
fn lop(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (p, d, srcs) = logic_operands(at);
    let Some(d) = d else { return Err(cx.unsupported(at, "operand shape")) };
    if srcs.len() != 2 || at.has("X") || writes_cc(at) || reads_cc(at) {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let a = src_not(cx, at, srcs[0])?;
    let b = src_not(cx, at, srcs[1])?;
    let r = match at.one_of(&["AND", "OR", "XOR", "PASS_B"]) {
        Some("AND") => cx.b().int(IntOp::And, Type::I32, &[a, b]),
        Some("OR") => cx.b().int(IntOp::Or, Type::I32, &[a, b]),
        Some("XOR") => cx.b().int(IntOp::Xor, Type::I32, &[a, b]),
        Some(_) => b,
        None => return Err(cx.unsupported(at, "logic operation")),
    };
    let pr = pred_result(cx, at, r)?;
    if let (Some(p), Some(v)) = (p, pr) {
        cx.def_pred(at, p, v)?;
    }
    cx.def32(at, d, r)
}

/// LOP3.LUT[.NZ|.Z] [P,] d, a, b, c, lut: the truth table lut of a, b, c.
fn lop3(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (p, d, srcs) = logic_operands(at);
    let Some(d) = d else { return Err(cx.unsupported(at, "operand shape")) };
    if srcs.len() != 4 || at.has("X") || writes_cc(at) || reads_cc(at) {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let OperandKind::Imm(lut) = srcs[3].kind else { return Err(cx.unsupported(at, "LUT operand")) };
    let a = src_not(cx, at, srcs[0])?;
    let b = src_not(cx, at, srcs[1])?;
    let c = src_not(cx, at, srcs[2])?;
    let r = cx.b().int(IntOp::Lop3(lut as u8), Type::I32, &[a, b, c]);
    let pr = pred_result(cx, at, r)?;
    if let (Some(p), Some(v)) = (p, pr) {
        cx.def_pred(at, p, v)?;
    }
    cx.def32(at, d, r)
}

/// ICMP.cmp[.U32] d, a, b, c: (c cmp 0) ? a : b.
fn icmp(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (dsts, srcs) = (at.dsts(), at.srcs());
    if dsts.len() != 1 || srcs.len() != 3 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let signed = !at.has("U32");
    let cmp = match at.one_of(&["LT", "EQ", "LE", "GT", "NE", "GE"]) {
        Some("LT") => if signed { ICmp::Slt } else { ICmp::Ult },
        Some("EQ") => ICmp::Eq,
        Some("LE") => if signed { ICmp::Sle } else { ICmp::Ule },
        Some("GT") => if signed { ICmp::Sgt } else { ICmp::Ugt },
        Some("NE") => ICmp::Ne,
        Some("GE") => if signed { ICmp::Sge } else { ICmp::Uge },
        _ => return Err(cx.unsupported(at, "compare")),
    };
    let a = cx.word(at, srcs[0], 0)?;
    let b = cx.word(at, srcs[1], 0)?;
    let c = cx.word(at, srcs[2], 0)?;
    let zero = cx.k32(0);
    let t = cx.b().int(IntOp::Cmp(cmp), Type::I32, &[c, zero]);
    let r = cx.b().select(Type::I32, t, a, b);
    cx.def32(at, dsts[0], r)
}

/// ISET.cmp[.U32].bop[.BF] d, a, b, p: r = (a cmp b) bop p; d = r ? 0xffffffff : 0, or with
/// `.BF` r ? 1.0 : 0.0 (FSET's rule on integers). `.X` compares through the condition code
/// (cc.rs); a condition-code destination is a typed error.
fn iset(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    if writes_cc(at) {
        return Err(cx.unsupported(at, "ISET writing the condition code"));
    }
    let (dsts, srcs) = (at.dsts(), at.srcs());
    let dsts: Vec<&Operand> = dsts.into_iter().filter(|o| !super::is_cc(o)).collect();
    let (vs, ps): (Vec<&Operand>, Vec<&Operand>) = srcs.into_iter().filter(|o| !super::is_cc(o)).partition(|o| !is_pred(o));
    if dsts.len() != 1 || vs.len() != 2 || ps.len() != 1 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let signed = !at.has("U32");
    let cmp = at.one_of(&["F", "LT", "EQ", "LE", "GT", "NE", "GE", "T"]).ok_or_else(|| cx.unsupported(at, "compare"))?;
    let a = cx.src_int(at, vs[0])?;
    let b = cx.src_int(at, vs[1])?;
    let p = cx.pred(at, ps[0])?;
    let r = if at.has("X") {
        super::cc::compare_x(cx, at, cmp, signed, a, b)?
    } else {
        match sm86::int::icmp_of(cmp, signed) {
            Some(k) => cx.b().int(IntOp::Cmp(k), Type::I32, &[a, b]),
            None => cx.k(Type::B1, (cmp == "T") as u64),
        }
    };
    let r = sm86::float32::bool_op(cx, at, r, p)?;
    let one = cx.k32(if at.has("BF") { 0x3f80_0000 } else { 0xffff_ffff });
    let zero = cx.k32(0);
    let v = cx.b().select(Type::I32, r, one, zero);
    cx.def32(at, dsts[0], v)
}

/// ISETP: sm_86's; the `.X` forms compare the high words of 64-bit values through the
/// condition code (cc.rs).
fn isetp(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    if writes_cc(at) {
        return Err(cx.unsupported(at, "ISETP writing the condition code"));
    }
    if !at.has("X") {
        if reads_cc(at) {
            return Err(cx.unsupported(at, "ISETP reading the condition code without .X"));
        }
        return sm86::int::lift(cx, at, "ISETP").unwrap_or_else(|| Err(cx.unsupported(at, "ISETP")));
    }
    let srcs = at.srcs();
    let (vs, ps): (Vec<&Operand>, Vec<&Operand>) = srcs.into_iter().filter(|o| !super::is_cc(o)).partition(|o| !is_pred(o));
    if vs.len() != 2 || ps.len() != 1 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let signed = !at.has("U32");
    let cmp = at.one_of(&["F", "LT", "EQ", "LE", "GT", "NE", "GE", "T"]).ok_or_else(|| cx.unsupported(at, "compare"))?;
    let a = cx.src_int(at, vs[0])?;
    let b = cx.src_int(at, vs[1])?;
    let c = cx.pred(at, ps[0])?;
    let r = super::cc::compare_x(cx, at, cmp, signed, a, b)?;
    sm86::float32::setp_defs(cx, at, r, c)
}

/// The two boolean operations (`.AND`, `.OR`, `.XOR`) of PSETP / PSET, in order.
fn bool_ops(cx: &Cx, at: &At) -> Result<[IntOp; 2], LiftError> {
    let bops: Vec<IntOp> = at
        .sfx
        .iter()
        .filter_map(|s| match *s {
            "AND" => Some(IntOp::And),
            "OR" => Some(IntOp::Or),
            "XOR" => Some(IntOp::Xor),
            _ => None,
        })
        .collect();
    let [b1, b2] = bops[..] else { return Err(cx.unsupported(at, "boolean operations")) };
    Ok([b1, b2])
}

/// PSETP.bop1.bop2 Pd, Pq, a, b, c: r = a bop1 b; Pd = r bop2 c, Pq = !r bop2 c.
fn psetp(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let ops: Vec<&Operand> = at.inst.explicit().collect();
    let [pd, pq, a, b, c] = ops[..] else { return Err(cx.unsupported(at, "operand shape")) };
    let [b1, b2] = bool_ops(cx, at)?;
    let a = cx.pred(at, a)?;
    let b = cx.pred(at, b)?;
    let c = cx.pred(at, c)?;
    let r = cx.b().int(b1, Type::B1, &[a, b]);
    let p = cx.b().int(b2, Type::B1, &[r, c]);
    let nr = cx.not1(r);
    let q = cx.b().int(b2, Type::B1, &[nr, c]);
    cx.def_pred(at, pd, p)?;
    cx.def_pred(at, pq, q)
}

/// PSET[.BF].bop1.bop2 d, a, b, c: d = (a bop1 b) bop2 c as a boolean word, 0xffffffff (the
/// f32 1.0 with `.BF`) when true, else 0 (NVIDIA's SASS reference for SPA 5.0, opPSET, in the
/// Switch SDK copy `generic.rs` cites). A `.CC` destination is a typed error.
fn pset(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    if writes_cc(at) {
        return Err(cx.unsupported(at, "PSET with a .CC destination"));
    }
    let ops: Vec<&Operand> = at.inst.explicit().collect();
    let [d, a, b, c] = ops[..] else { return Err(cx.unsupported(at, "operand shape")) };
    let [b1, b2] = bool_ops(cx, at)?;
    let a = cx.pred(at, a)?;
    let b = cx.pred(at, b)?;
    let c = cx.pred(at, c)?;
    let r = cx.b().int(b1, Type::B1, &[a, b]);
    let r = cx.b().int(b2, Type::B1, &[r, c]);
    let t = cx.k32(if at.has("BF") { 0x3f80_0000 } else { 0xffff_ffff });
    let f = cx.k32(0);
    let v = cx.b().select(Type::I32, r, t, f);
    cx.def32(at, d, v)
}

/// MOV32I d, imm [, lane mask].
fn mov32i(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (dsts, srcs) = (at.dsts(), at.srcs());
    if dsts.len() != 1 || srcs.is_empty() {
        return Err(cx.unsupported(at, "operand shape"));
    }
    if let Some(OperandKind::Imm(m)) = srcs.get(1).map(|o| o.kind) {
        if m & 0xf != 0xf {
            return Err(cx.unsupported(at, "MOV32I with a partial lane mask"));
        }
    }
    let v = cx.word(at, srcs[0], 0)?;
    cx.def32(at, dsts[0], v)
}
