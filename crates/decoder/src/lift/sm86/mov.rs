//! Moves and special registers (and NOP, PMTRIG: nothing the program sees): MOV, UMOV, R2UR, S2R / CS2R (system values as the function's
//! parameters, lane id and lane masks as lane ops), ULDC / LDC (constant-bank reads).

use super::{At, Cx, SystemValue};
use crate::lift::LiftError;
use crate::operand::{OperandKind, SpecialReg};
use isabridge_ir::ops::int::{ICmp, IntOp, Overflow, ShiftRule};
use isabridge_ir::ops::lane::LaneOp;
use isabridge_ir::ops::mem::{MemOp, Space};
use isabridge_ir::{Type, Value};

/// Lift `at` if it belongs to this family.
pub(crate) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    Some(match name {
        "MOV" | "UMOV" => mov(cx, at),
        "R2UR" => r2ur(cx, at),
        "S2R" | "S2UR" | "CS2R" => s2r(cx, at),
        "ULDC" | "LDC" => ldc(cx, at),
        "NOP" | "PMTRIG" => Ok(()),
        _ => return None,
    })
}

/// MOV d, a [, lane mask]: the value as it is.
fn mov(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (dsts, srcs) = (at.dsts(), at.srcs());
    if dsts.len() != 1 || srcs.is_empty() {
        return Err(cx.unsupported(at, "operand shape"));
    }
    if let Some(OperandKind::Imm(m)) = srcs.get(1).map(|o| o.kind) {
        if m & 0xf != 0xf {
            return Err(cx.unsupported(at, "MOV with a partial lane mask"));
        }
    }
    let v = cx.word(at, srcs[0], 0)?;
    cx.def_word(at, dsts[0], 0, v)
}

/// R2UR [p,] ur, r: the value of the first active lane, made uniform. The predicate form
/// (`R2UR P1, URZ, R7`) also says whether every active lane holds that value: ptxas uses it
/// to test that a shuffle's member mask is uniform before the fast path (`REDUX.OR UR5, R7 ;
/// R2UR P1, URZ, R7 ; @!P1 BRA.DIV UR5, ...` in fixtures/hw/divergence/diverge.sm86.txt,
/// whose kernels equal the H200 through it, crates/cli/tests/divergence.rs).
fn r2ur(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    // Operands in printed order (the spec names the uniform destination URA).
    let ops: Vec<_> = at.inst.explicit().collect();
    let (pd, ud, src) = match ops[..] {
        [ud, src] => (None, ud, src),
        [pd, ud, src] if pd.size == 1 => (Some(pd), ud, src),
        _ => return Err(cx.unsupported(at, "operand shape")),
    };
    let v = cx.word(at, src, 0)?;
    let mask = cx.guard_mask();
    let mut args = vec![v];
    args.extend(mask);
    let u = cx.b().lane(LaneOp::ReadFirstLane, Type::I32, &args);
    if let Some(pd) = pd {
        let same = cx.b().int(IntOp::Cmp(ICmp::Eq), Type::B1, &[v, u]);
        let mut args = vec![same];
        args.extend(mask);
        let all = cx.b().lane(LaneOp::All, Type::B1, &args);
        cx.def_pred(at, pd, all)?;
    }
    cx.def_word(at, ud, 0, u)
}

/// One 32-bit special register.
fn special(cx: &mut Cx, at: &At, name: &str) -> Result<Value, LiftError> {
    if let Some(sv) = SystemValue::from_sr(name) {
        return Ok(cx.b().param(sv.param(), Type::I32));
    }
    let lane = |cx: &mut Cx| cx.b().lane(LaneOp::LaneId, Type::I32, &[]);
    // Lane masks: bit i set for the lanes i that are (less than, ...) this lane.
    let shl = |cx: &mut Cx, x: u32, n: Value| {
        let k = cx.k32(x);
        cx.b().int(IntOp::Shl(ShiftRule::Clamp), Type::I32, &[k, n])
    };
    Ok(match name {
        "SRZ" => cx.k32(0),
        "SR_LANEID" => lane(cx),
        "SR_EQMASK" => {
            let l = lane(cx);
            shl(cx, 1, l)
        }
        "SR_LTMASK" | "SR_GEMASK" => {
            let l = lane(cx);
            let e = shl(cx, 1, l);
            let one = cx.k32(1);
            let lt = cx.b().int(IntOp::Sub(Overflow::Wrap), Type::I32, &[e, one]);
            if name == "SR_LTMASK" {
                lt
            } else {
                cx.b().int(IntOp::Not, Type::I32, &[lt])
            }
        }
        "SR_LEMASK" | "SR_GTMASK" => {
            // 2 << 31 wraps to 0, so lane 31's LEMASK is 0 - 1 = all ones.
            let l = lane(cx);
            let e = shl(cx, 2, l);
            let one = cx.k32(1);
            let le = cx.b().int(IntOp::Sub(Overflow::Wrap), Type::I32, &[e, one]);
            if name == "SR_LEMASK" {
                le
            } else {
                cx.b().int(IntOp::Not, Type::I32, &[le])
            }
        }
        _ => return Err(cx.unsupported(at, &format!("special register {name}"))),
    })
}

/// S2R / S2UR d, SR and CS2R d, SR (64 bits unless `.32`: the register and the next one).
fn s2r(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (dsts, srcs) = (at.dsts(), at.srcs());
    if dsts.len() != 1 || srcs.len() != 1 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let OperandKind::Special { reg: SpecialReg::Sr(name, _), .. } = srcs[0].kind else {
        return Err(cx.unsupported(at, "special register operand"));
    };
    let wide = at.inst.name == "CS2R" && !at.has("32");
    let lo = special(cx, at, name)?;
    cx.def_word(at, dsts[0], 0, lo)?;
    if wide {
        let hi_name = match name {
            "SRZ" => "SRZ",
            "SR_CLOCKLO" => "SR_CLOCKHI",
            "SR_GLOBALTIMERLO" => "SR_GLOBALTIMERHI",
            _ => return Err(cx.unsupported(at, &format!("64-bit read of {name}"))),
        };
        let hi = special(cx, at, hi_name)?;
        cx.def_word(at, dsts[0], 1, hi)?;
    }
    Ok(())
}

/// ULDC / LDC d, c[bank][offset (+ r)]: 32 bits, or 64 with `.64` (`.U8` / `.S8` / `.U16` /
/// `.S16` read one byte or halfword and extend it).
fn ldc(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let (dsts, srcs) = (at.dsts(), at.srcs());
    if dsts.len() != 1 || srcs.len() != 1 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    if at.one_of(&["IL", "IS", "ISL"]).is_some() {
        return Err(cx.unsupported(at, "LDC indexing mode"));
    }
    let small = at.one_of(&["U8", "S8", "U16", "S16"]);
    if let Some(s) = small {
        let OperandKind::ConstBank { bank, offset, reg, bank_reg: None } = srcs[0].kind else {
            return Err(cx.unsupported(at, "constant-bank operand"));
        };
        let bank = u8::try_from(bank).map_err(|_| cx.unsupported(at, "constant bank number"))?;
        let mut addr = cx.k32(offset as u32);
        if let Some(r) = reg {
            let rr = crate::operand::Operand { kind: OperandKind::Reg(r), ..*srcs[0] };
            let base = cx.word(at, &rr, 0)?;
            addr = cx.b().int(IntOp::Add(Overflow::Wrap), Type::I32, &[base, addr]);
        }
        let ty = if s.ends_with('8') { Type::I8 } else { Type::I16 };
        let v = cx.b().load(MemOp::Load(Space::Constant(bank)), ty, addr);
        let v = cx.b().conv(isabridge_ir::ops::conv::ConvOp::IToI { signed: s.starts_with('S') }, Type::I32, v);
        return cx.def_word(at, dsts[0], 0, v);
    }
    let n = if at.has("64") { 2 } else { 1 };
    for k in 0..n {
        let v = cx.word(at, srcs[0], k)?;
        cx.def_word(at, dsts[0], k, v)?;
    }
    Ok(())
}
