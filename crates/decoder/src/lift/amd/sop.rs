//! Scalar ALU (SOP1, SOP2, SOPK, SOPC) and program control (SOPP): moves, logic, arithmetic
//! with SCC, branch conditions, the end of the program. Waits on counters are `waits.rs`.

use super::{At, Cx, EXEC_LO, VCC_LO};
use crate::lift::LiftError;
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::int::{ICmp, IntOp, Overflow, ShiftRule};
use isabridge_ir::{Type, Value};

/// Lift a scalar instruction; None when `name` is not one.
pub(super) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    Some(match name {
        "S_ENDPGM" | "S_NOP" | "S_INST_PREFETCH" | "S_CLAUSE" | "S_DCACHE_INV" | "S_SETPRIO" => Ok(()),
        "S_MOV_B32" => mov(cx, at, 1),
        "S_MOV_B64" => mov(cx, at, 2),
        "S_AND_B32" | "S_OR_B32" | "S_XOR_B32" | "S_ANDN2_B32" | "S_ORN2_B32" | "S_NAND_B32" | "S_NOR_B32"
        | "S_XNOR_B32" => logic(cx, at, name, 1),
        "S_AND_B64" | "S_OR_B64" | "S_XOR_B64" | "S_ANDN2_B64" | "S_ORN2_B64" | "S_NAND_B64" | "S_NOR_B64"
        | "S_XNOR_B64" => logic(cx, at, name, 2),
        "S_ADD_U32" | "S_SUB_U32" | "S_ADD_I32" | "S_SUB_I32" | "S_LSHL_B32" | "S_LSHR_B32" | "S_ASHR_I32"
        | "S_MUL_I32" | "S_MIN_U32" | "S_MAX_U32" | "S_MIN_I32" | "S_MAX_I32" => arith(cx, at, name),
        "S_CMP_EQ_U32" | "S_CMP_LG_U32" | "S_CMP_GT_U32" | "S_CMP_GE_U32" | "S_CMP_LT_U32" | "S_CMP_LE_U32"
        | "S_CMP_EQ_I32" | "S_CMP_LG_I32" | "S_CMP_GT_I32" | "S_CMP_GE_I32" | "S_CMP_LT_I32" | "S_CMP_LE_I32" => {
            cmp(cx, at, name)
        }
        "S_CODE_END" | "S_WAITCNT_DEPCTR" => Ok(()),
        "S_NOT_B32" | "S_NOT_B64" | "S_WQM_B32" | "S_WQM_B64" | "S_BREV_B32" | "S_ABS_I32" | "S_BCNT1_I32_B32"
        | "S_BCNT1_I32_B64" | "S_FF1_I32_B32" | "S_FF1_I32_B64" | "S_FLBIT_I32_B32" | "S_FLBIT_I32_B64"
        | "S_FLBIT_I32" | "S_SEXT_I32_I8" | "S_SEXT_I32_I16" => unary(cx, at, name),
        "S_BITSET0_B32" | "S_BITSET1_B32" | "S_BITSET0_B64" | "S_BITSET1_B64" => bitset(cx, at, name),
        "S_CSELECT_B32" => cselect(cx, at, 1),
        "S_CSELECT_B64" => cselect(cx, at, 2),
        "S_ADDC_U32" | "S_SUBB_U32" => carry(cx, at, name == "S_SUBB_U32"),
        "S_MUL_HI_U32" | "S_MUL_HI_I32" => mul_hi(cx, at, name == "S_MUL_HI_I32"),
        "S_BFE_U32" | "S_BFE_I32" | "S_BFE_U64" | "S_BFE_I64" => bfe(cx, at, name),
        "S_BFM_B32" | "S_BFM_B64" => bfm(cx, at, name == "S_BFM_B64"),
        "S_LSHL_B64" | "S_LSHR_B64" | "S_ASHR_I64" => shift64(cx, at, name),
        "S_CMP_EQ_U64" | "S_CMP_LG_U64" => cmp64(cx, at, name == "S_CMP_LG_U64"),
        "S_MOVK_I32" | "S_CMOVK_I32" | "S_ADDK_I32" | "S_MULK_I32" => sopk(cx, at, name),
        n if n.starts_with("S_CMPK_") => cmpk(cx, at, name),
        n if n.ends_with("_SAVEEXEC_B32") || n.ends_with("_SAVEEXEC_B64") || n.contains("_WREXEC_") => saveexec(cx, at, name),
        _ => return None,
    })
}

fn mov(cx: &mut Cx, at: &At, words: u16) -> Result<(), LiftError> {
    let (d, s) = (dst(cx, at)?, src(cx, at, 0)?);
    for k in 0..words {
        let v = cx.src32(at, s, k)?;
        cx.def_s32(at, d, k, v)?;
    }
    Ok(())
}

fn dst<'a>(cx: &Cx, at: &'a At) -> Result<&'a crate::operand::Operand, LiftError> {
    at.def().ok_or_else(|| cx.unsupported(at, "no destination"))
}

fn src<'a>(cx: &Cx, at: &'a At, i: usize) -> Result<&'a crate::operand::Operand, LiftError> {
    at.srcs().get(i).copied().ok_or_else(|| cx.unsupported(at, "missing source"))
}

fn logic(cx: &mut Cx, at: &At, name: &str, words: u16) -> Result<(), LiftError> {
    let (d, a, b) = (dst(cx, at)?, src(cx, at, 0)?, src(cx, at, 1)?);
    let op = &name[2..name.len() - 4];
    let zero = cx.k32(0);
    let mut any = zero;
    for k in 0..words {
        let x = cx.src32(at, a, k)?;
        let mut y = cx.src32(at, b, k)?;
        if op.ends_with("N2") {
            y = cx.b().int(IntOp::Not, Type::I32, &[y]);
        }
        let base = match op {
            "AND" | "ANDN2" | "NAND" => IntOp::And,
            "OR" | "ORN2" | "NOR" => IntOp::Or,
            _ => IntOp::Xor,
        };
        let mut r = cx.b().int(base, Type::I32, &[x, y]);
        if matches!(op, "NAND" | "NOR" | "XNOR") {
            r = cx.b().int(IntOp::Not, Type::I32, &[r]);
        }
        any = cx.b().int(IntOp::Or, Type::I32, &[any, r]);
        cx.def_s32(at, d, k, r)?;
    }
    let c = cx.b().int(IntOp::Cmp(ICmp::Ne), Type::B1, &[any, zero]);
    cx.set_scc(c);
    Ok(())
}

fn arith(cx: &mut Cx, at: &At, name: &str) -> Result<(), LiftError> {
    let (d, a, b) = (dst(cx, at)?, src(cx, at, 0)?, src(cx, at, 1)?);
    let x = cx.src32(at, a, 0)?;
    let y = cx.src32(at, b, 0)?;
    let zero = cx.k32(0);
    let (r, scc) = match name {
        "S_ADD_U32" => {
            let r = cx.b().int(IntOp::Add(Overflow::Wrap), Type::I32, &[x, y]);
            (r, Some(cx.b().int(IntOp::Cmp(ICmp::Ult), Type::B1, &[r, x])))
        }
        "S_SUB_U32" => {
            let r = cx.b().int(IntOp::Sub(Overflow::Wrap), Type::I32, &[x, y]);
            (r, Some(cx.b().int(IntOp::Cmp(ICmp::Ult), Type::B1, &[x, y])))
        }
        "S_ADD_I32" | "S_SUB_I32" => {
            let add = name == "S_ADD_I32";
            let op = if add { IntOp::Add(Overflow::Wrap) } else { IntOp::Sub(Overflow::Wrap) };
            let r = cx.b().int(op, Type::I32, &[x, y]);
            // Signed overflow: the operands' signs (equal for add, different for sub) differ
            // from the result's.
            let sx = cx.b().int(IntOp::Cmp(ICmp::Slt), Type::B1, &[x, zero]);
            let sy = cx.b().int(IntOp::Cmp(ICmp::Slt), Type::B1, &[y, zero]);
            let sr = cx.b().int(IntOp::Cmp(ICmp::Slt), Type::B1, &[r, zero]);
            let same = cx.b().int(IntOp::Cmp(if add { ICmp::Eq } else { ICmp::Ne }), Type::B1, &[sx, sy]);
            let flip = cx.b().int(IntOp::Cmp(ICmp::Ne), Type::B1, &[sx, sr]);
            (r, Some(cx.b().int(IntOp::And, Type::B1, &[same, flip])))
        }
        "S_LSHL_B32" | "S_LSHR_B32" | "S_ASHR_I32" => {
            let op = match name {
                "S_LSHL_B32" => IntOp::Shl(ShiftRule::Wrap),
                "S_LSHR_B32" => IntOp::Shr(false, ShiftRule::Wrap),
                _ => IntOp::Shr(true, ShiftRule::Wrap),
            };
            let r = cx.b().int(op, Type::I32, &[x, y]);
            (r, Some(cx.b().int(IntOp::Cmp(ICmp::Ne), Type::B1, &[r, zero])))
        }
        "S_MUL_I32" => (cx.b().int(IntOp::MulLo, Type::I32, &[x, y]), None),
        _ => {
            let signed = name.ends_with("I32");
            let max = name.starts_with("S_MAX");
            let op = if max { IntOp::Max(signed) } else { IntOp::Min(signed) };
            let r = cx.b().int(op, Type::I32, &[x, y]);
            let c = match (max, signed) {
                (true, true) => ICmp::Sgt,
                (true, false) => ICmp::Ugt,
                (false, true) => ICmp::Slt,
                (false, false) => ICmp::Ult,
            };
            // SCC = 1 when the first operand was chosen.
            let s = cx.b().int(IntOp::Cmp(c), Type::B1, &[x, y]);
            let eq = cx.b().int(IntOp::Cmp(ICmp::Eq), Type::B1, &[x, y]);
            (r, Some(cx.b().int(IntOp::Or, Type::B1, &[s, eq])))
        }
    };
    cx.def_s32(at, d, 0, r)?;
    if let Some(c) = scc {
        cx.set_scc(c);
    }
    Ok(())
}

/// The comparison a scalar compare's two-letter code names (EQ, LG, GT, GE, LT, LE).
fn scalar_cmp(code: &str, signed: bool) -> ICmp {
    match (code, signed) {
        ("EQ", _) => ICmp::Eq,
        ("LG", _) => ICmp::Ne,
        ("GT", true) => ICmp::Sgt,
        ("GE", true) => ICmp::Sge,
        ("LT", true) => ICmp::Slt,
        ("LE", true) => ICmp::Sle,
        ("GT", false) => ICmp::Ugt,
        ("GE", false) => ICmp::Uge,
        ("LT", false) => ICmp::Ult,
        _ => ICmp::Ule,
    }
}

fn cmp(cx: &mut Cx, at: &At, name: &str) -> Result<(), LiftError> {
    let (a, b) = (src(cx, at, 0)?, src(cx, at, 1)?);
    let x = cx.src32(at, a, 0)?;
    let y = cx.src32(at, b, 0)?;
    let signed = name.ends_with("I32");
    let c = scalar_cmp(&name[6..8], signed);
    let r = cx.b().int(IntOp::Cmp(c), Type::B1, &[x, y]);
    cx.set_scc(r);
    Ok(())
}

/// The uniform b1 a conditional branch (`s_cbranch_*`) takes its target on.
pub(super) fn branch_condition(cx: &mut Cx, at: &At) -> Result<Value, LiftError> {
    let zero_mask = |cx: &mut Cx, lo: u16| -> Value {
        let m = cx.mask_of_pair(lo);
        let p = cx.b().bitcast(Type::I64, m);
        let z = cx.k(Type::I64, 0);
        cx.b().int(IntOp::Cmp(ICmp::Eq), Type::B1, &[p, z])
    };
    let t = cx.k(Type::B1, 1);
    Ok(match at.inst.name {
        "S_CBRANCH_SCC1" => cx.scc(),
        "S_CBRANCH_SCC0" => {
            let s = cx.scc();
            cx.b().int(IntOp::Xor, Type::B1, &[s, t])
        }
        "S_CBRANCH_VCCZ" => zero_mask(cx, VCC_LO),
        "S_CBRANCH_EXECZ" => zero_mask(cx, EXEC_LO),
        "S_CBRANCH_VCCNZ" | "S_CBRANCH_EXECNZ" => {
            let key = if at.inst.name == "S_CBRANCH_VCCNZ" { VCC_LO } else { EXEC_LO };
            let z = zero_mask(cx, key);
            cx.b().int(IntOp::Xor, Type::B1, &[z, t])
        }
        _ => return Err(cx.unsupported(at, "conditional branch kind")),
    })
}

/// Read a whole 32- or 64-bit scalar source.
fn src_n(cx: &mut Cx, at: &At, i: usize, words: u16) -> Result<Value, LiftError> {
    let op = src(cx, at, i)?;
    if words == 2 {
        cx.src64(at, op, false)
    } else {
        cx.src32(at, op, 0)
    }
}

/// Write a whole 32- or 64-bit scalar destination.
fn def_n(cx: &mut Cx, at: &At, v: Value, words: u16) -> Result<(), LiftError> {
    let d = *dst(cx, at)?;
    if words == 2 {
        let (lo, hi) = cx.split64(v);
        cx.def_s32(at, &d, 0, lo)?;
        cx.def_s32(at, &d, 1, hi)
    } else {
        cx.def_s32(at, &d, 0, v)
    }
}

fn ty_of(words: u16) -> Type {
    if words == 2 {
        Type::I64
    } else {
        Type::I32
    }
}

fn nonzero(cx: &mut Cx, v: Value, ty: Type) -> Value {
    let z = cx.k(ty, 0);
    cx.b().int(IntOp::Cmp(ICmp::Ne), Type::B1, &[v, z])
}

/// One-source scalar ops; SCC = result != 0 where the ISA sets it.
fn unary(cx: &mut Cx, at: &At, name: &str) -> Result<(), LiftError> {
    let words = if name.ends_with("_B64") { 2 } else { 1 };
    let ty = ty_of(words);
    let x = src_n(cx, at, 0, words)?;
    let (r, scc, out_words) = match name {
        "S_NOT_B32" | "S_NOT_B64" => (cx.b().int(IntOp::Not, ty, &[x]), true, words),
        "S_WQM_B32" | "S_WQM_B64" => {
            // Each quad of bits becomes all ones when any of its bits is set.
            let mut any = x;
            for k in [1u64, 2] {
                let sh = cx.k(ty, k);
                let t = cx.b().int(IntOp::Shr(false, ShiftRule::Wrap), ty, &[any, sh]);
                any = cx.b().int(IntOp::Or, ty, &[any, t]);
            }
            let lsb = cx.k(ty, if words == 2 { 0x1111_1111_1111_1111 } else { 0x1111_1111 });
            let q = cx.b().int(IntOp::And, ty, &[any, lsb]);
            let f = cx.k(ty, 0xf);
            (cx.b().int(IntOp::MulLo, ty, &[q, f]), true, words)
        }
        "S_BREV_B32" => (cx.b().int(IntOp::Brev, ty, &[x]), false, 1),
        "S_ABS_I32" => {
            let n = cx.b().int(IntOp::Neg, ty, &[x]);
            (cx.b().int(IntOp::Max(true), ty, &[x, n]), true, 1)
        }
        "S_BCNT1_I32_B32" | "S_BCNT1_I32_B64" => {
            let p = cx.b().int(IntOp::Popc, ty, &[x]);
            let p = if words == 2 { cx.b().conv(ConvOp::IToI { signed: false }, Type::I32, p) } else { p };
            (p, true, 1)
        }
        "S_FF1_I32_B32" | "S_FF1_I32_B64" => (super::vbits::ffb(cx, x, super::vbits::Ffb::Low), false, 1),
        "S_FLBIT_I32_B32" | "S_FLBIT_I32_B64" => (super::vbits::ffb(cx, x, super::vbits::Ffb::High), false, 1),
        "S_FLBIT_I32" => (super::vbits::ffb(cx, x, super::vbits::Ffb::Sign), false, 1),
        _ => {
            let bits = if name == "S_SEXT_I32_I8" { 8 } else { 16 };
            let k = cx.k32(32 - bits);
            let t = cx.b().int(IntOp::Shl(ShiftRule::Wrap), Type::I32, &[x, k]);
            (cx.b().int(IntOp::Shr(true, ShiftRule::Wrap), Type::I32, &[t, k]), false, 1)
        }
    };
    def_n(cx, at, r, out_words)?;
    if scc {
        let c = nonzero(cx, r, ty_of(out_words));
        cx.set_scc(c);
    }
    Ok(())
}

/// D = D with bit S0[4:0] (S0[5:0] for B64) cleared or set.
fn bitset(cx: &mut Cx, at: &At, name: &str) -> Result<(), LiftError> {
    let words = if name.ends_with("_B64") { 2 } else { 1 };
    let ty = ty_of(words);
    let d = *dst(cx, at)?;
    let old = if words == 2 { cx.src64(at, &d, false)? } else { cx.src32(at, &d, 0)? };
    let pos = src_n(cx, at, 0, 1)?;
    let pos = if words == 2 { cx.b().conv(ConvOp::IToI { signed: false }, Type::I64, pos) } else { pos };
    let one = cx.k(ty, 1);
    let bit = cx.b().int(IntOp::Shl(ShiftRule::Wrap), ty, &[one, pos]);
    let r = if name.starts_with("S_BITSET0") {
        let n = cx.b().int(IntOp::Not, ty, &[bit]);
        cx.b().int(IntOp::And, ty, &[old, n])
    } else {
        cx.b().int(IntOp::Or, ty, &[old, bit])
    };
    def_n(cx, at, r, words)
}

fn cselect(cx: &mut Cx, at: &At, words: u16) -> Result<(), LiftError> {
    let a = src_n(cx, at, 0, words)?;
    let b = src_n(cx, at, 1, words)?;
    let c = cx.scc();
    let r = cx.b().select(ty_of(words), c, a, b);
    def_n(cx, at, r, words)
}

/// S_ADDC_U32 / S_SUBB_U32: D = S0 +/- S1 +/- SCC; SCC = carry (borrow) out.
fn carry(cx: &mut Cx, at: &At, sub: bool) -> Result<(), LiftError> {
    let x = src_n(cx, at, 0, 1)?;
    let y = src_n(cx, at, 1, 1)?;
    let ext = |cx: &mut Cx, v| cx.b().conv(ConvOp::IToI { signed: false }, Type::I64, v);
    let (x, y) = (ext(cx, x), ext(cx, y));
    let s = cx.scc();
    let c = ext(cx, s);
    let op = if sub { IntOp::Sub(Overflow::Wrap) } else { IntOp::Add(Overflow::Wrap) };
    let t = cx.b().int(op, Type::I64, &[x, y]);
    let t = cx.b().int(op, Type::I64, &[t, c]);
    let (lo, hi) = cx.split64(t);
    def_n(cx, at, lo, 1)?;
    let out = nonzero(cx, hi, Type::I32);
    cx.set_scc(out);
    Ok(())
}

fn mul_hi(cx: &mut Cx, at: &At, signed: bool) -> Result<(), LiftError> {
    let x = src_n(cx, at, 0, 1)?;
    let y = src_n(cx, at, 1, 1)?;
    let r = cx.b().int(IntOp::MulHi(signed), Type::I32, &[x, y]);
    def_n(cx, at, r, 1)
}

/// S_BFE: offset S1[4:0] (S1[5:0] for 64-bit), width S1[22:16]; SCC = result != 0.
fn bfe(cx: &mut Cx, at: &At, name: &str) -> Result<(), LiftError> {
    let words = if name.ends_with("64") { 2 } else { 1 };
    let ty = ty_of(words);
    let signed = name.starts_with("S_BFE_I");
    let x = src_n(cx, at, 0, words)?;
    let ctl = src_n(cx, at, 1, 1)?;
    let pm = cx.k32(if words == 2 { 63 } else { 31 });
    let pos = cx.b().int(IntOp::And, Type::I32, &[ctl, pm]);
    let k16 = cx.k32(16);
    let w = cx.b().int(IntOp::Shr(false, ShiftRule::Wrap), Type::I32, &[ctl, k16]);
    let k7f = cx.k32(0x7f);
    let w = cx.b().int(IntOp::And, Type::I32, &[w, k7f]);
    let (pos, w) = if words == 2 {
        let p = cx.b().conv(ConvOp::IToI { signed: false }, Type::I64, pos);
        let w = cx.b().conv(ConvOp::IToI { signed: false }, Type::I64, w);
        (p, w)
    } else {
        (pos, w)
    };
    let r = cx.b().int(IntOp::Bfe(signed), ty, &[x, pos, w]);
    def_n(cx, at, r, words)?;
    let c = nonzero(cx, r, ty);
    cx.set_scc(c);
    Ok(())
}

/// D = ((1 << S0[4:0]) - 1) << S1[4:0] (6-bit fields for B64).
fn bfm(cx: &mut Cx, at: &At, wide: bool) -> Result<(), LiftError> {
    let ty = if wide { Type::I64 } else { Type::I32 };
    let mut v = [src_n(cx, at, 0, 1)?, src_n(cx, at, 1, 1)?];
    if wide {
        for x in &mut v {
            *x = cx.b().conv(ConvOp::IToI { signed: false }, Type::I64, *x);
        }
    }
    let one = cx.k(ty, 1);
    let m = cx.b().int(IntOp::Shl(ShiftRule::Wrap), ty, &[one, v[0]]);
    let m = cx.b().int(IntOp::Sub(Overflow::Wrap), ty, &[m, one]);
    let r = cx.b().int(IntOp::Shl(ShiftRule::Wrap), ty, &[m, v[1]]);
    def_n(cx, at, r, if wide { 2 } else { 1 })
}

/// 64-bit shifts by S1[5:0]; SCC = result != 0.
fn shift64(cx: &mut Cx, at: &At, name: &str) -> Result<(), LiftError> {
    let x = src_n(cx, at, 0, 2)?;
    let n = src_n(cx, at, 1, 1)?;
    let n = cx.b().conv(ConvOp::IToI { signed: false }, Type::I64, n);
    let op = match name {
        "S_LSHL_B64" => IntOp::Shl(ShiftRule::Wrap),
        "S_LSHR_B64" => IntOp::Shr(false, ShiftRule::Wrap),
        _ => IntOp::Shr(true, ShiftRule::Wrap),
    };
    let r = cx.b().int(op, Type::I64, &[x, n]);
    def_n(cx, at, r, 2)?;
    let c = nonzero(cx, r, Type::I64);
    cx.set_scc(c);
    Ok(())
}

fn cmp64(cx: &mut Cx, at: &At, ne: bool) -> Result<(), LiftError> {
    let x = src_n(cx, at, 0, 2)?;
    let y = src_n(cx, at, 1, 2)?;
    let r = cx.b().int(IntOp::Cmp(if ne { ICmp::Ne } else { ICmp::Eq }), Type::B1, &[x, y]);
    cx.set_scc(r);
    Ok(())
}

/// The 16-bit immediate of a SOPK instruction, sign-extended.
fn simm16(cx: &Cx, at: &At) -> Result<u32, LiftError> {
    at.inst
        .operands
        .iter()
        .find_map(|o| match o.kind {
            crate::operand::OperandKind::Imm(x) => Some(x as u16 as i16 as i32 as u32),
            _ => None,
        })
        .ok_or_else(|| cx.unsupported(at, "SOPK immediate"))
}

/// S_MOVK / S_CMOVK / S_ADDK / S_MULK: D op= sext(SIMM16); S_ADDK sets SCC on signed overflow.
fn sopk(cx: &mut Cx, at: &At, name: &str) -> Result<(), LiftError> {
    let k = simm16(cx, at)?;
    let k = cx.k32(k);
    let d = *dst(cx, at)?;
    let r = match name {
        "S_MOVK_I32" => k,
        "S_CMOVK_I32" => {
            let old = cx.src32(at, &d, 0)?;
            let c = cx.scc();
            cx.b().select(Type::I32, c, k, old)
        }
        "S_MULK_I32" => {
            let old = cx.src32(at, &d, 0)?;
            cx.b().int(IntOp::MulLo, Type::I32, &[old, k])
        }
        _ => {
            let old = cx.src32(at, &d, 0)?;
            let r = cx.b().int(IntOp::Add(Overflow::Wrap), Type::I32, &[old, k]);
            // Signed overflow: both operands' signs equal and the result's differs.
            let x1 = cx.b().int(IntOp::Xor, Type::I32, &[old, r]);
            let x2 = cx.b().int(IntOp::Xor, Type::I32, &[k, r]);
            let o = cx.b().int(IntOp::And, Type::I32, &[x1, x2]);
            let zero = cx.k32(0);
            let c = cx.b().int(IntOp::Cmp(ICmp::Slt), Type::B1, &[o, zero]);
            cx.set_scc(c);
            r
        }
    };
    cx.def_s32(at, &d, 0, r)
}

/// S_CMPK_*: compare the SGPR with the 16-bit immediate (sign-extended for _I32, zero-extended
/// for _U32); SCC = result.
fn cmpk(cx: &mut Cx, at: &At, name: &str) -> Result<(), LiftError> {
    let signed = name.ends_with("_I32");
    let k = simm16(cx, at)?;
    let k = if signed { k } else { k & 0xffff };
    let d = *at
        .inst
        .operands
        .iter()
        .find(|o| !o.implicit && o.access.reads() && !matches!(o.kind, crate::operand::OperandKind::Imm(_)))
        .ok_or_else(|| cx.unsupported(at, "SOPK register"))?;
    let x = cx.src32(at, &d, 0)?;
    let y = cx.k32(k);
    let c = scalar_cmp(&name[7..9], signed);
    let r = cx.b().int(IntOp::Cmp(c), Type::B1, &[x, y]);
    cx.set_scc(r);
    Ok(())
}

/// The saveexec family: D = EXEC; EXEC = S0 op EXEC; SCC = EXEC != 0. The _WREXEC forms write
/// the new EXEC to D as well.
fn saveexec(cx: &mut Cx, at: &At, name: &str) -> Result<(), LiftError> {
    let words = if name.ends_with("_B64") { 2 } else { 1 };
    let ty = ty_of(words);
    let s = src_n(cx, at, 0, words)?;
    let lo = cx.rd(EXEC_LO);
    let exec = if words == 2 {
        let hi = cx.rd(EXEC_LO + 1);
        cx.join64(lo, hi)
    } else {
        lo
    };
    let not = |cx: &mut Cx, v| cx.b().int(IntOp::Not, ty, &[v]);
    let op = name.split('_').nth(1).unwrap_or("");
    let r = match op {
        "AND" => cx.b().int(IntOp::And, ty, &[s, exec]),
        "OR" => cx.b().int(IntOp::Or, ty, &[s, exec]),
        "XOR" => cx.b().int(IntOp::Xor, ty, &[s, exec]),
        "ANDN2" => {
            let n = not(cx, exec);
            cx.b().int(IntOp::And, ty, &[s, n])
        }
        "ORN2" => {
            let n = not(cx, exec);
            cx.b().int(IntOp::Or, ty, &[s, n])
        }
        "ANDN1" => {
            let n = not(cx, s);
            cx.b().int(IntOp::And, ty, &[n, exec])
        }
        "ORN1" => {
            let n = not(cx, s);
            cx.b().int(IntOp::Or, ty, &[n, exec])
        }
        "NAND" | "NOR" | "XNOR" => {
            let base = match op {
                "NAND" => IntOp::And,
                "NOR" => IntOp::Or,
                _ => IntOp::Xor,
            };
            let t = cx.b().int(base, ty, &[s, exec]);
            not(cx, t)
        }
        _ => return Err(cx.unsupported(at, "saveexec kind")),
    };
    let wrexec = name.contains("_WREXEC_");
    def_n(cx, at, if wrexec { r } else { exec }, words)?;
    if words == 2 {
        let (l, h) = cx.split64(r);
        cx.wr(EXEC_LO, l);
        cx.wr(EXEC_LO + 1, h);
    } else {
        cx.wr(EXEC_LO, r);
    }
    let c = nonzero(cx, r, ty);
    cx.set_scc(c);
    Ok(())
}
