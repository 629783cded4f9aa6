//! Scalar ALU (SOP1, SOP2, SOPK, SOPC) and program control (SOPP): moves, logic, arithmetic
//! with SCC, waits (explicit no-ops for the interpreter, which runs memory in program order),
//! branch conditions, the end of the program.

use super::{At, Cx, EXEC_LO, VCC_LO};
use crate::lift::LiftError;
use isabridge_ir::ops::int::{ICmp, IntOp, Overflow, ShiftRule};
use isabridge_ir::{Type, Value};

/// Lift a scalar instruction; None when `name` is not one.
pub(super) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    Some(match name {
        "S_ENDPGM" | "S_NOP" | "S_WAITCNT" | "S_WAITCNT_VMCNT" | "S_WAITCNT_VSCNT" | "S_WAITCNT_LGKMCNT"
        | "S_WAITCNT_EXPCNT" | "S_INST_PREFETCH" | "S_CLAUSE" | "S_DCACHE_INV" | "S_SETPRIO" => Ok(()),
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

fn cmp(cx: &mut Cx, at: &At, name: &str) -> Result<(), LiftError> {
    let (a, b) = (src(cx, at, 0)?, src(cx, at, 1)?);
    let x = cx.src32(at, a, 0)?;
    let y = cx.src32(at, b, 0)?;
    let signed = name.ends_with("I32");
    let c = match (&name[6..8], signed) {
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
    };
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
