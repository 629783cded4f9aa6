//! Graphics-stage instructions: `exp` to the IR's `export` ops, `v_interp_p1_f32` /
//! `v_interp_p2_f32` / `v_interp_mov_f32` to float ops on attribute inputs, and the geometry
//! messages of `s_sendmsg` to `message` ops.
//!
//! Attribute inputs: parameter p (0 = P0, 1 = P10, 2 = P20) of channel c of attribute a is
//! function input [`ATTR_INPUT_BASE`] + 12a + 3c + p, one value per lane (where the hardware
//! reads them from LDS through M0). `v_interp_p1_f32 d, i, attr` is `d = fma(i, P10, P0)` and
//! `v_interp_p2_f32 d, j, attr` is `d = fma(j, P20, d)`, rounded once under the f32 MODE.
//!
//! `exp`: targets 0-7 mrt0-7, 8 mrtz, 9 null, 12-15 pos0-3, 32-63 param0-31; each enabled
//! channel exports its register (with `compr`, the two 16-bit halves of VSRC0 are channels 0
//! and 1, of VSRC1 channels 2 and 3, enabled by EN bits 0-1 and 2-3); `done` adds `export.done`
//! (`vm`: the mask is the valid mask). Every export runs under EXEC.
//!
//! `s_sendmsg`: MSG_GS (2) with GS_OP_CUT (1), GS_OP_EMIT (2), GS_OP_EMIT_CUT (3: emit, then
//! cut) on the stream in bits 8-9, and MSG_GS_DONE (3); other messages are typed errors.

use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::OperandKind;
use isabridge_ir::ops::float::{FloatKind, FloatOp, Omod};
use isabridge_ir::ops::stage::{Message, StageOp, Target};
use isabridge_ir::ops::Op;
use isabridge_ir::soft::FFmt;
use isabridge_ir::{Scalar, Type, Value};

/// The first function input holding attribute parameters.
pub const ATTR_INPUT_BASE: u32 = 1024;

/// Lift a graphics-stage instruction; None when `name` is not one.
pub(super) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    if cx.isa != crate::Isa::Gfx1013 {
        return None; // gfx11+ renumbered the messages and the export encoding
    }
    Some(match name {
        "EXP" => export(cx, at),
        "V_INTERP_P1_F32" | "V_INTERP_P2_F32" | "V_INTERP_MOV_F32" => interp(cx, at, name),
        "S_SENDMSG" => message(cx, at),
        _ => return None,
    })
}

/// The value of an encoding field, as a modifier or as a field operand (the operand model
/// leaves out modifiers whose value is 0).
fn field(at: &At, name: &str) -> Option<u64> {
    at.inst.named(name).or_else(|| {
        at.inst.operands.iter().find(|o| o.field == name).and_then(|o| match o.kind {
            OperandKind::Field { value, .. } => Some(value),
            OperandKind::Imm(v) => Some(v as u64),
            _ => None,
        })
    })
}

pub(super) fn export(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let t = field(at, "TARGET").unwrap_or(0) as u8;
    let target = match t {
        0..=7 => Target::Mrt(t),
        8 => Target::MrtZ,
        9 => Target::Null,
        12..=15 => Target::Pos(t - 12),
        32..=63 => Target::Param(t - 32),
        _ => return Err(cx.unsupported(at, "export target the IR does not name")),
    };
    let en = field(at, "EN").unwrap_or(0) as u8;
    let compr = field(at, "COMPR").unwrap_or(0) != 0;
    let exec = cx.exec();
    for chan in 0..4u8 {
        if en >> chan & 1 == 0 {
            continue;
        }
        let src = if compr { chan / 2 } else { chan };
        let op = at
            .inst
            .operands
            .iter()
            .find(|o| o.field == format!("VSRC{src}"))
            .copied()
            .filter(|o| matches!(o.kind, OperandKind::Reg(_)))
            .ok_or_else(|| cx.unsupported(at, "enabled export channel without a register"))?;
        let v = cx.src32(at, &op, 0)?;
        let v = if compr {
            let p = cx.b().bitcast(Type::V(Scalar::I16, 2), v);
            cx.b().extract(Type::I16, p, chan % 2)
        } else {
            v
        };
        cx.b().ins(Op::Stage(StageOp::Export { target, chan }), &[v, exec], None);
    }
    if field(at, "DONE").unwrap_or(0) != 0 {
        let vm = field(at, "VM").unwrap_or(0) != 0;
        cx.b().ins(Op::Stage(StageOp::Done { vm }), &[exec], None);
    }
    Ok(())
}

fn attr(cx: &mut Cx, at: &At, param: u32) -> Result<Value, LiftError> {
    let a = field(at, "ATTR").unwrap_or(0) as u32;
    let c = field(at, "ATTRCHAN").unwrap_or(0) as u32;
    let p = cx.b().param(ATTR_INPUT_BASE + 12 * a + 3 * c + param, Type::I32);
    Ok(cx.b().bitcast(Type::F32, p))
}

fn interp(cx: &mut Cx, at: &At, name: &str) -> Result<(), LiftError> {
    let dst = at.field("VDST").copied().ok_or_else(|| cx.unsupported(at, "no VDST"))?;
    let exec = cx.exec();
    let fma = FloatOp { kind: FloatKind::Fma, mode: super::vfloat::mode(cx, FFmt::F32, false), fmz: false, relu: false, omod: Omod::None };
    let r = if name == "V_INTERP_MOV_F32" {
        let p = field(at, "VSRC").ok_or_else(|| cx.unsupported(at, "interpolation parameter"))?;
        // The parameter field: 0 = p10, 1 = p20, 2 = p0.
        let param = match p {
            0 => 1,
            1 => 2,
            2 => 0,
            _ => return Err(cx.unsupported(at, "interpolation parameter other than p0, p10, p20")),
        };
        attr(cx, at, param)?
    } else {
        let src = at.field("VSRC").copied().ok_or_else(|| cx.unsupported(at, "no VSRC"))?;
        let s = cx.src32(at, &src, 0)?;
        let s = cx.b().bitcast(Type::F32, s);
        if name == "V_INTERP_P1_F32" {
            let p10 = attr(cx, at, 1)?;
            let p0 = attr(cx, at, 0)?;
            cx.b().float(fma, Type::F32, &[s, p10, p0])
        } else {
            let p20 = attr(cx, at, 2)?;
            let d = cx.src32(at, &dst, 0)?;
            let d = cx.b().bitcast(Type::F32, d);
            cx.b().float(fma, Type::F32, &[s, p20, d])
        }
    };
    let bits = cx.b().bitcast(Type::I32, r);
    cx.def_v32(at, &dst, 0, bits, exec)
}

fn message(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let imm = at
        .inst
        .operands
        .iter()
        .find_map(|o| match o.kind {
            OperandKind::Imm(v) if !o.implicit => Some(v as u64),
            OperandKind::Field { value, .. } if !o.implicit => Some(value),
            _ => None,
        })
        .or_else(|| field(at, "SIMM16"))
        .ok_or_else(|| cx.unsupported(at, "message immediate"))?;
    let (msg, op, stream) = (imm & 0xf, imm >> 4 & 7, (imm >> 8 & 3) as u8);
    let ops: Vec<Message> = match (msg, op) {
        (2, 1) => vec![Message::Cut(stream)],
        (2, 2) => vec![Message::Emit(stream)],
        (2, 3) => vec![Message::Emit(stream), Message::Cut(stream)],
        (3, _) => vec![Message::GsDone],
        _ => return Err(cx.unsupported(at, "messages other than the geometry-stage ones")),
    };
    for m in ops {
        cx.b().ins(Op::Stage(StageOp::Message(m)), &[], None);
    }
    Ok(())
}
