//! Vector compares (VOPC and their VOP3 forms): integer and float compares into a lane mask in
//! VCC or an SGPR pair; inactive lanes get 0. `v_cmpx` also writes EXEC.

use super::lanes::Valu;
use super::vfloat::{fmt_of, fsrc};
use super::vint::write_mask;
use super::{At, Cx, EXEC_LO};
use crate::lift::LiftError;
use crate::operand::Operand;
use isabridge_ir::ops::float::FCmp;
use isabridge_ir::ops::int::{ICmp, IntOp};
use isabridge_ir::ops::lane::LaneOp;
use isabridge_ir::Type;

/// Lift a vector compare; None when `name` is not one.
pub(super) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    let rest = name.strip_prefix("V_CMPX_").or_else(|| name.strip_prefix("V_CMP_"))?;
    let (op, ty) = rest.rsplit_once('_')?;
    if op == "CLASS" {
        return None;
    }
    Some(compare(cx, at, name.starts_with("V_CMPX_"), op, ty))
}

/// The float predicate of a compare's operation part (`LT`, `NGE`, `O`, ...), shared by the
/// vector compares and gfx12's scalar float compares.
pub(super) fn float_pred(op: &str) -> Option<FCmp> {
    Some(match op {
        "LT" => FCmp::Lt,
        "EQ" => FCmp::Eq,
        "LE" => FCmp::Le,
        "GT" => FCmp::Gt,
        "LG" => FCmp::Ne,
        "GE" => FCmp::Ge,
        "O" => FCmp::Num,
        "U" => FCmp::Nan,
        "NGE" => FCmp::Ltu,
        "NLG" => FCmp::Equ,
        "NGT" => FCmp::Leu,
        "NLE" => FCmp::Gtu,
        "NEQ" => FCmp::Neu,
        "NLT" => FCmp::Geu,
        _ => return None,
    })
}

fn compare(cx: &mut Cx, at: &At, x: bool, op: &str, ty: &str) -> Result<(), LiftError> {
    let valu = Valu::new(cx, at)?;
    let srcs: Vec<Operand> = at.srcs().into_iter().copied().collect();
    if srcs.len() < 2 {
        return Err(cx.unsupported(at, "compare operands"));
    }
    let cond = if let Some(fmt) = fmt_of(ty) {
        let a = fsrc(cx, &valu, at, &srcs[0], 0, fmt)?;
        let b = fsrc(cx, &valu, at, &srcs[1], 1, fmt)?;
        let pred = match op {
            "F" => None,
            "TRU" => Some(None),
            _ => Some(Some(float_pred(op).ok_or_else(|| cx.unsupported(at, "float compare kind"))?)),
        };
        let ftz = super::vfloat::mode(cx, fmt, false).ftz_in;
        match pred {
            None => cx.k(Type::B1, 0),
            Some(None) => cx.k(Type::B1, 1),
            Some(Some(c)) => cx.b().fcmp(c, ftz, a, b),
        }
    } else {
        let (signed, wide) = match ty {
            "I32" | "I16" => (true, false),
            "U32" | "U16" => (false, false),
            "I64" => (true, true),
            "U64" => (false, true),
            _ => return Err(cx.unsupported(at, "compare type")),
        };
        let (a, b) = if wide {
            (cx.src64(at, &srcs[0], false)?, cx.src64(at, &srcs[1], false)?)
        } else {
            (valu.src32(cx, at, &srcs[0], 0, 0)?, valu.src32(cx, at, &srcs[1], 1, 0)?)
        };
        // 16-bit compares read the low halves (the high ones with VOP3 op_sel).
        let (a, b) = if ty.ends_with("16") {
            let sel = super::vfloat::vop3_op_sel(at);
            (super::vop3p::half(cx, a, sel & 1 != 0), super::vop3p::half(cx, b, sel & 2 != 0))
        } else {
            (a, b)
        };
        let c = match (op, signed) {
            ("F", _) => None,
            ("T", _) => Some(None),
            ("EQ", _) => Some(Some(ICmp::Eq)),
            ("NE" | "LG", _) => Some(Some(ICmp::Ne)),
            ("LT", true) => Some(Some(ICmp::Slt)),
            ("LE", true) => Some(Some(ICmp::Sle)),
            ("GT", true) => Some(Some(ICmp::Sgt)),
            ("GE", true) => Some(Some(ICmp::Sge)),
            ("LT", false) => Some(Some(ICmp::Ult)),
            ("LE", false) => Some(Some(ICmp::Ule)),
            ("GT", false) => Some(Some(ICmp::Ugt)),
            ("GE", false) => Some(Some(ICmp::Uge)),
            _ => return Err(cx.unsupported(at, "integer compare kind")),
        };
        match c {
            None => cx.k(Type::B1, 0),
            Some(None) => cx.k(Type::B1, 1),
            Some(Some(c)) => cx.b().int(IntOp::Cmp(c), Type::B1, &[a, b]),
        }
    };
    let m = cx.b().lane(LaneOp::Ballot, Type::Mask, &[cond, valu.mask]);
    let d = *at.inst.operands.iter().find(|o| o.access.writes()).ok_or_else(|| cx.unsupported(at, "no destination"))?;
    if !(x && d.implicit && cx.key_of(&d, 0) == Some(EXEC_LO)) {
        write_mask(cx, at, &d, m)?;
    }
    if x {
        cx.write_mask_pair(EXEC_LO, m);
    }
    Ok(())
}
