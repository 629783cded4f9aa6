//! Graphics-stage instructions: `exp` to the IR's `export` ops, `v_interp_p1_f32` /
//! `v_interp_p2_f32` / `v_interp_mov_f32` and the 16-bit `v_interp_p1ll_f16` /
//! `v_interp_p1lv_f16` / `v_interp_p2_f16` to float ops on attribute inputs, and the geometry
//! messages of `s_sendmsg` to `message` ops.
//!
//! Attribute inputs: parameter p (0 = P0, 1 = P10, 2 = P20) of channel c of attribute a is
//! function input [`ATTR_INPUT_BASE`] + 12a + 3c + p, one value per lane (where the hardware
//! reads them from LDS through M0). `v_interp_p1_f32 d, i, attr` is `d = fma(i, P10, P0)` and
//! `v_interp_p2_f32 d, j, attr` is `d = fma(j, P20, d)`, rounded once under the f32 MODE.
//!
//! 16-bit interpolation (VOP3 only; SRC0 holds the attribute in bits 5:0, the channel in bits
//! 7:6 and `high` in bit 8; the I/J VGPR is SRC1): a parameter is the low half of its input, or
//! the high half with `high`. After the ISA guide's definitions,
//! `v_interp_p1ll_f16 d, i, attr` is `D.f32 = P10.f16 * S0.f32 + P0.f16`,
//! `v_interp_p1lv_f16 d, i, attr, s2` the same with P0 the half of VGPR S2 that `high` picks,
//! and `v_interp_p2_f16 d, j, attr, s2` is `D.f16 = P20.f16 * S0.f32 + S2.f32`, written to the
//! low half of D (the high half keeps its bits). The f16 parameters widen to f32 exactly, the
//! f32 fma rounds once under the f32 MODE, and p2's f32 result rounds to f16 under the f16
//! MODE (the guide names the formats, not the internal rounding; no RDNA2 vector measures it).
//! Source and output modifiers on them are typed errors.
//!
//! `exp`: targets 0-7 mrt0-7, 8 mrtz, 9 null, 12-15 pos0-3, 32-63 param0-31; each enabled
//! channel exports its register (with `compr`, the two 16-bit halves of VSRC0 are channels 0
//! and 1, of VSRC1 channels 2 and 3, enabled by EN bits 0-1 and 2-3); `done` adds `export.done`
//! (`vm`: the mask is the valid mask). Every export runs under EXEC.
//!
//! `s_sendmsg`: MSG_GS (2) with GS_OP_CUT (1), GS_OP_EMIT (2), GS_OP_EMIT_CUT (3: emit, then
//! cut) on the stream in bits 8-9, and MSG_GS_DONE (3); other messages are typed errors.

use super::lanes::Valu;
use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::{Operand, OperandKind};
use isabridge_ir::ops::conv::ConvOp;
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
        "V_INTERP_P1LL_F16" | "V_INTERP_P1LV_F16" | "V_INTERP_P2_F16" => interp16(cx, at, name),
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

/// Parameter `param` (0 = P0, 1 = P10, 2 = P20) of the attribute and channel in `sel` (a VOP3
/// SRC0 field of the 16-bit interpolation), as f16: the half `sel` bit 8 picks.
fn attr16(cx: &mut Cx, sel: u32, param: u32) -> Value {
    let (a, c, high) = (sel & 63, sel >> 6 & 3, sel >> 8 & 1 != 0);
    let p = cx.b().param(ATTR_INPUT_BASE + 12 * a + 3 * c + param, Type::I32);
    let h = super::vop3p::half(cx, p, high);
    cx.b().bitcast(Type::S(Scalar::F(FFmt::F16)), h)
}

/// An f16 value widened to f32 (exact; f16 denormals flushed on the way in when the f16 MODE
/// flushes input denormals).
fn widen16(cx: &mut Cx, h: Value) -> Value {
    let mut m = super::vfloat::conv_mode(cx, FFmt::F32);
    m.ftz_in = super::vfloat::conv_mode(cx, FFmt::F16).ftz_in;
    m.ftz_out = false;
    cx.b().conv(ConvOp::FToF { mode: m, satfinite: false }, Type::F32, h)
}

fn interp16(cx: &mut Cx, at: &At, name: &str) -> Result<(), LiftError> {
    let plain = |o: &Operand| !o.mods.abs && !o.mods.neg;
    if !at.inst.modifiers.is_empty() || !at.inst.operands.iter().all(plain) {
        return Err(cx.unsupported(at, "modifiers on 16-bit interpolation"));
    }
    let valu = Valu::new(cx, at)?;
    let dst = at.field("VDST").copied().ok_or_else(|| cx.unsupported(at, "no VDST"))?;
    let ij = at.field("SRC1").copied().ok_or_else(|| cx.unsupported(at, "no SRC1"))?;
    // SRC0 is the attribute selector (VOP3 word 1, bits 8:0).
    let sel = at.d.words[1] & 0x1ff;
    let s = valu.src32(cx, at, &ij, 1, 0)?;
    let s = cx.b().bitcast(Type::F32, s);
    let fma = FloatOp { kind: FloatKind::Fma, mode: super::vfloat::mode(cx, FFmt::F32, false), fmz: false, relu: false, omod: Omod::None };
    let r = match name {
        "V_INTERP_P1LL_F16" | "V_INTERP_P1LV_F16" => {
            let p10 = attr16(cx, sel, 1);
            let p10 = widen16(cx, p10);
            let p0 = if name == "V_INTERP_P1LL_F16" {
                attr16(cx, sel, 0)
            } else {
                let s2 = at.field("SRC2").copied().ok_or_else(|| cx.unsupported(at, "no SRC2"))?;
                let w = valu.src32(cx, at, &s2, 2, 0)?;
                let h = super::vop3p::half(cx, w, sel >> 8 & 1 != 0);
                cx.b().bitcast(Type::S(Scalar::F(FFmt::F16)), h)
            };
            let p0 = widen16(cx, p0);
            let r = cx.b().float(fma, Type::F32, &[p10, s, p0]);
            let bits = cx.b().bitcast(Type::I32, r);
            return cx.def_v32(at, &dst, 0, bits, valu.mask);
        }
        _ => {
            let p20 = attr16(cx, sel, 2);
            let p20 = widen16(cx, p20);
            let s2 = at.field("SRC2").copied().ok_or_else(|| cx.unsupported(at, "no SRC2"))?;
            let acc = valu.src32(cx, at, &s2, 2, 0)?;
            let acc = cx.b().bitcast(Type::F32, acc);
            let r = cx.b().float(fma, Type::F32, &[p20, s, acc]);
            let mut m = super::vfloat::conv_mode(cx, FFmt::F16);
            m.ftz_in = super::vfloat::conv_mode(cx, FFmt::F32).ftz_in;
            cx.b().conv(ConvOp::FToF { mode: m, satfinite: false }, Type::S(Scalar::F(FFmt::F16)), r)
        }
    };
    let h = cx.b().bitcast(Type::I16, r);
    super::vfloat::def16(cx, &valu, at, &dst, h)
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
