//! MUFU: the multi-function unit's approximations (RCP, RSQ, SQRT, EX2, LG2, SIN, COS on
//! revolutions, TANH; `.F16` forms on the low half; RCP64H / RSQ64H on the high word of an f64),
//! with subnormal inputs and results flushed: ptxas rescales around MUFU for the non-`.ftz` PTX
//! forms (fixtures/hw/capture.sm86.txt: k_ex2_approx, k_sqrt_approx, k_rcp_approx). On Ampere
//! the multiplication by 1/2π before SIN / COS is an ordinary FMUL.RZ (float32.rs).

use super::{At, Cx};
use crate::lift::LiftError;
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::soft::approx::ApproxFn;
use isabridge_ir::{Type, Value};

/// Lift `at` if it belongs to this family.
pub(crate) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    (name == "MUFU").then(|| mufu(cx, at))
}

fn mufu(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (dsts, srcs) = (at.dsts(), at.srcs());
    if dsts.len() != 1 || srcs.len() != 1 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let op = at.one_of(&["RCP", "RSQ", "SQRT", "EX2", "LG2", "SIN", "COS", "TANH", "RCP64H", "RSQ64H"]);
    let func = match op {
        Some("RCP" | "RCP64H") => ApproxFn::Rcp,
        Some("RSQ" | "RSQ64H") => ApproxFn::Rsq,
        Some("SQRT") => ApproxFn::Sqrt,
        Some("EX2") => ApproxFn::Ex2,
        Some("LG2") => ApproxFn::Lg2,
        Some("SIN") => ApproxFn::SinRev,
        Some("COS") => ApproxFn::CosRev,
        Some("TANH") => ApproxFn::Tanh,
        _ => return Err(cx.unsupported(at, "MUFU operation")),
    };
    let w = cx.word(at, srcs[0], 0)?;
    let w = cx.sign_mods(srcs[0], w, if at.has("F16") { 0x8000 } else { 0x8000_0000 });
    let r: Value = if matches!(op, Some("RCP64H" | "RSQ64H")) {
        // The high word of the function of the f64 whose high word is the source.
        let zero = cx.k32(0);
        let v = cx.join64(zero, w);
        let x = cx.b().bitcast(Type::F64, v);
        let y = cx.b().approx(func, true, Type::F64, x);
        let y = cx.b().bitcast(Type::I64, y);
        cx.split64(y).1
    } else if at.has("F16") {
        let h = cx.b().conv(ConvOp::IToI { signed: false }, Type::I16, w);
        let x = cx.b().bitcast(Type::F16, h);
        let y = cx.b().approx(func, true, Type::F16, x);
        let y = cx.b().bitcast(Type::I16, y);
        cx.b().conv(ConvOp::IToI { signed: false }, Type::I32, y)
    } else {
        let x = cx.b().bitcast(Type::F32, w);
        let y = cx.b().approx(func, true, Type::F32, x);
        cx.b().bitcast(Type::I32, y)
    };
    cx.def_word(at, dsts[0], 0, r)
}
