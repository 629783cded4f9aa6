//! gfx1201 ALU instructions without a gfx1013 counterpart: 64-bit scalar add, subtract and
//! multiply (`s_add_nc_u64`, `s_sub_nc_u64`, `s_mul_u64`: no SCC), scalar float (`s_add_f32`,
//! `s_sub_f32`, `s_mul_f32`, `s_fmac_f32`, `s_fmaak_f32`, `s_fmamk_f32`, `s_min_num_f32`,
//! `s_max_num_f32`, `s_cvt_f32_i32/u32`, `s_cvt_i32/u32_f32`, `s_ceil/floor/trunc/rndne_f32`,
//! the `s_cmp_*_f32` compares into SCC)
//! as the IR's float ops under the MODE the vector float ops use, the scalar transcendentals
//! of VOP3 (`v_s_rcp_f32`, `v_s_rsq_f32`, `v_s_sqrt_f32`, `v_s_log_f32`, `v_s_exp_f32`) as the
//! vector ones, the `_num` minimum and maximum, the split barrier, messages and the cycle
//! counter.
//!
//! `v_min_num` / `v_max_num` (f32, f64, f16; also their VOPD halves and the three-operand
//! `v_min3_num` / `v_max3_num` / `v_med3_num`) are IEEE 754-2019 minimumNumber /
//! maximumNumber: a NaN operand, quiet or signalling, is ignored, two NaNs give the first one
//! quieted, -0 < +0 (the IR's `MinMaxKind::Num` with the quieting NaN rule, whatever MODE's
//! IEEE bit). `v_med3_num` with any NaN operand is `v_min3_num` of the three, else the median.
//!
//! `s_barrier_signal -1` arrives at the workgroup barrier and `s_barrier_wait -1` waits for it;
//! the pair is the IR's workgroup barrier, placed at the wait (a wave may run the instructions
//! between its signal and its wait before the others arrive, never those after the wait).
//! Other barrier ids (named and trap barriers) are typed errors.
//!
//! `s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)` releases the wave's VGPRs at its end: nothing the
//! program computes depends on it (the interrupt messages are trap.rs's).
//!
//! `s_getreg_b32` of HW_REG_SHADER_CYCLES_LO / _HI reads 0, the interpreter's clock (as
//! `s_memtime` does in smem.rs); other registers than these and MODE are typed errors.

use super::lanes::Valu;
use super::vfloat::{fdef, fsrc, fty, mode, omod, pass_mode, source_mods};
use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::{Modifier, Operand, OperandKind};
use isabridge_ir::ops::control::SyncOp;
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::float::{FCmp, FloatKind, FloatOp, Omod};
use isabridge_ir::ops::int::{IntOp, Overflow};
use isabridge_ir::ops::mem::Scope;
use isabridge_ir::ops::Op;
use isabridge_ir::soft::approx::ApproxFn;
use isabridge_ir::soft::{FFmt, FloatMode, MinMaxKind, NanRule, Round};
use isabridge_ir::{Type, Value};

/// gfx12 HW_REG_SHADER_CYCLES_LO and HW_REG_SHADER_CYCLES_HI.
const HW_REG_SHADER_CYCLES: [u64; 2] = [29, 30];
/// gfx12 MSG_DEALLOC_VGPRS.
const MSG_DEALLOC_VGPRS: u64 = 3;

/// Lift a gfx1201-only ALU instruction; None when `name` is not one.
pub(super) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    Some(match name {
        "S_ADD_NC_U64" | "S_SUB_NC_U64" | "S_MUL_U64" => int64(cx, at, name),
        "S_ADD_F32" | "S_SUB_F32" | "S_MUL_F32" | "S_FMAC_F32" | "S_FMAAK_F32" | "S_FMAMK_F32" | "S_MIN_NUM_F32"
        | "S_MAX_NUM_F32" => sfloat(cx, at, name),
        "S_CVT_F32_I32" | "S_CVT_F32_U32" | "S_CVT_I32_F32" | "S_CVT_U32_F32" => scvt(cx, at, name),
        n if n.starts_with("S_CMP_") && n.ends_with("_F32") => {
            let pred = super::vcmp::float_pred(&n[6..n.len() - 4])?;
            scmp(cx, at, pred)
        }
        "S_CEIL_F32" | "S_FLOOR_F32" | "S_TRUNC_F32" | "S_RNDNE_F32" => sround(cx, at, name),
        "V_S_RCP_F32" | "V_S_RSQ_F32" | "V_S_SQRT_F32" | "V_S_LOG_F32" | "V_S_EXP_F32" => strans(cx, at, name),
        "V_MIN_NUM_F32" | "V_MAX_NUM_F32" | "V_MIN_NUM_F64" | "V_MAX_NUM_F64" | "V_MIN_NUM_F16" | "V_MAX_NUM_F16" => {
            min_max_num(cx, at, name)
        }
        "V_MIN3_NUM_F32" | "V_MAX3_NUM_F32" | "V_MED3_NUM_F32" | "V_MIN3_NUM_F16" | "V_MAX3_NUM_F16" | "V_MED3_NUM_F16" => {
            three_num(cx, at, name)
        }
        "S_BARRIER_SIGNAL" | "S_BARRIER_WAIT" => barrier(cx, at, name == "S_BARRIER_WAIT"),
        "S_SENDMSG" if message_id(at) == Some(MSG_DEALLOC_VGPRS) => Ok(()),
        "S_GETREG_B32" => return cycles(cx, at),
        _ => return None,
    })
}

/// A float format from an instruction name's last part.
fn fmt_suffix(name: &str) -> FFmt {
    if name.ends_with("F64") {
        FFmt::F64
    } else if name.ends_with("F16") {
        FFmt::F16
    } else {
        FFmt::F32
    }
}

fn dst(cx: &Cx, at: &At) -> Result<Operand, LiftError> {
    at.def().copied().ok_or_else(|| cx.unsupported(at, "no destination"))
}

fn srcs(cx: &Cx, at: &At, n: usize) -> Result<Vec<Operand>, LiftError> {
    let s: Vec<Operand> = at.srcs().into_iter().copied().collect();
    if s.len() < n {
        return Err(cx.unsupported(at, "fewer sources than the instruction takes"));
    }
    Ok(s)
}

/// s_add_nc_u64 / s_sub_nc_u64 / s_mul_u64: 64-bit wrapping results, SCC unchanged.
fn int64(cx: &mut Cx, at: &At, name: &str) -> Result<(), LiftError> {
    let d = dst(cx, at)?;
    let s = srcs(cx, at, 2)?;
    let a = cx.src64(at, &s[0], false)?;
    let b = cx.src64(at, &s[1], false)?;
    let op = match name {
        "S_ADD_NC_U64" => IntOp::Add(Overflow::Wrap),
        "S_SUB_NC_U64" => IntOp::Sub(Overflow::Wrap),
        _ => IntOp::MulLo,
    };
    let r = cx.b().int(op, Type::I64, &[a, b]);
    let (lo, hi) = cx.split64(r);
    cx.def_s32(at, &d, 0, lo)?;
    cx.def_s32(at, &d, 1, hi)
}

/// Scalar source `op` as an f32 value.
fn sf32(cx: &mut Cx, at: &At, op: &Operand) -> Result<Value, LiftError> {
    let w = cx.src32(at, op, 0)?;
    let v = cx.b().bitcast(Type::F32, w);
    Ok(source_mods(cx, op, v, FFmt::F32))
}

fn def_sf32(cx: &mut Cx, at: &At, d: &Operand, v: Value) -> Result<(), LiftError> {
    let w = cx.b().bitcast(Type::I32, v);
    cx.def_s32(at, d, 0, w)
}

/// The minimumNumber / maximumNumber float mode: MODE's denormal controls (an operand comes
/// out unflushed where input denormals are kept), NaNs quieted.
fn num_mode(cx: &Cx, fmt: FFmt, clamp: bool) -> FloatMode {
    let mut m = mode(cx, fmt, clamp);
    m.nan = NanRule::Propagate;
    m.ftz_out = m.ftz_in;
    m
}

fn sfloat(cx: &mut Cx, at: &At, name: &str) -> Result<(), LiftError> {
    let d = dst(cx, at)?;
    let fma = matches!(name, "S_FMAC_F32" | "S_FMAAK_F32" | "S_FMAMK_F32");
    let s = srcs(cx, at, if name == "S_FMAAK_F32" || name == "S_FMAMK_F32" { 3 } else { 2 })?;
    let mut v = Vec::new();
    for o in &s {
        v.push(sf32(cx, at, o)?);
    }
    if name == "S_FMAC_F32" {
        // The destination is the addend.
        let mut acc = d;
        acc.mods = Default::default();
        let a = sf32(cx, at, &acc)?;
        v.truncate(2);
        v.push(a);
    }
    let mut m = mode(cx, FFmt::F32, false);
    let kind = match name {
        "S_ADD_F32" => FloatKind::Add,
        "S_SUB_F32" => {
            // a - b as a + (-b), as the vector subtract.
            v[1] = super::vfloat::negate(cx, v[1], FFmt::F32);
            FloatKind::Add
        }
        "S_MUL_F32" => FloatKind::Mul,
        "S_MIN_NUM_F32" | "S_MAX_NUM_F32" => {
            m = num_mode(cx, FFmt::F32, false);
            if name == "S_MIN_NUM_F32" {
                FloatKind::Min(MinMaxKind::Num)
            } else {
                FloatKind::Max(MinMaxKind::Num)
            }
        }
        _ if fma => FloatKind::Fma,
        _ => return Err(cx.unsupported(at, "scalar float operation")),
    };
    let n = kind.arity();
    let op = FloatOp { kind, mode: m, fmz: false, relu: false, omod: Omod::None };
    let r = cx.b().float(op, Type::F32, &v[..n]);
    def_sf32(cx, at, &d, r)
}

/// Scalar conversions between f32 and 32-bit integers, as the vector ones (float to integer
/// rounds toward zero and saturates).
fn scvt(cx: &mut Cx, at: &At, name: &str) -> Result<(), LiftError> {
    let d = dst(cx, at)?;
    let s = srcs(cx, at, 1)?;
    let m = super::vfloat::conv_mode(cx, FFmt::F32);
    let r = match name {
        "S_CVT_F32_I32" | "S_CVT_F32_U32" => {
            let x = cx.src32(at, &s[0], 0)?;
            let f = cx.b().conv(ConvOp::IToF { mode: m, signed: name == "S_CVT_F32_I32" }, Type::F32, x);
            cx.b().bitcast(Type::I32, f)
        }
        _ => {
            let x = sf32(cx, at, &s[0])?;
            let rz = FloatMode { round: Round::Rz, ..m };
            cx.b().conv(ConvOp::FToI { mode: rz, signed: name == "S_CVT_I32_F32" }, Type::I32, x)
        }
    };
    cx.def_s32(at, &d, 0, r)
}

/// Scalar float compare into SCC (denormal inputs as MODE flushes them).
fn scmp(cx: &mut Cx, at: &At, pred: FCmp) -> Result<(), LiftError> {
    let s = srcs(cx, at, 2)?;
    let a = sf32(cx, at, &s[0])?;
    let b = sf32(cx, at, &s[1])?;
    let ftz = mode(cx, FFmt::F32, false).ftz_in;
    let c = cx.b().fcmp(pred, ftz, a, b);
    cx.set_scc(c);
    Ok(())
}

/// Scalar rounding to an integral f32.
fn sround(cx: &mut Cx, at: &At, name: &str) -> Result<(), LiftError> {
    let d = dst(cx, at)?;
    let s = srcs(cx, at, 1)?;
    let x = sf32(cx, at, &s[0])?;
    let mut m = pass_mode(cx, FFmt::F32, false);
    m.round = match name {
        "S_CEIL_F32" => Round::Rp,
        "S_FLOOR_F32" => Round::Rm,
        "S_TRUNC_F32" => Round::Rz,
        _ => Round::Rn,
    };
    let op = FloatOp { kind: FloatKind::RoundInt, mode: m, fmz: false, relu: false, omod: Omod::None };
    let r = cx.b().float(op, Type::F32, &[x]);
    def_sf32(cx, at, &d, r)
}

/// VOP3 scalar transcendentals: an SGPR result of the vector unit's function.
fn strans(cx: &mut Cx, at: &At, name: &str) -> Result<(), LiftError> {
    let d = dst(cx, at)?;
    let s = srcs(cx, at, 1)?;
    let x = sf32(cx, at, &s[0])?;
    let f = match name {
        "V_S_RCP_F32" => ApproxFn::Rcp,
        "V_S_RSQ_F32" => ApproxFn::Rsq,
        "V_S_SQRT_F32" => ApproxFn::Sqrt,
        "V_S_LOG_F32" => ApproxFn::Lg2,
        _ => ApproxFn::Ex2,
    };
    let r = super::vtrans::approx_value(cx, f, FFmt::F32, x);
    let r = super::vfloat::post(cx, at, r, FFmt::F32);
    def_sf32(cx, at, &d, r)
}

fn min_max_num(cx: &mut Cx, at: &At, name: &str) -> Result<(), LiftError> {
    let fmt = fmt_suffix(name);
    let valu = Valu::new(cx, at)?;
    let d = dst(cx, at)?;
    let s = srcs(cx, at, 2)?;
    let a = fsrc(cx, &valu, at, &s[0], 0, fmt)?;
    let b = fsrc(cx, &valu, at, &s[1], 1, fmt)?;
    let kind = if name.starts_with("V_MIN") { FloatKind::Min(MinMaxKind::Num) } else { FloatKind::Max(MinMaxKind::Num) };
    let op = FloatOp { kind, mode: num_mode(cx, fmt, at.has(Modifier::Clamp)), fmz: false, relu: false, omod: omod(cx, at, fmt) };
    let r = cx.b().float(op, fty(fmt), &[a, b]);
    fdef(cx, &valu, at, &d, r, fmt)
}

fn three_num(cx: &mut Cx, at: &At, name: &str) -> Result<(), LiftError> {
    let fmt = fmt_suffix(name);
    let valu = Valu::new(cx, at)?;
    let d = dst(cx, at)?;
    let s = srcs(cx, at, 3)?;
    let mut v = Vec::new();
    for (i, o) in s.iter().enumerate().take(3) {
        v.push(fsrc(cx, &valu, at, o, i, fmt)?);
    }
    let t = fty(fmt);
    let inner = num_mode(cx, fmt, false);
    let outer = num_mode(cx, fmt, at.has(Modifier::Clamp));
    let om = omod(cx, at, fmt);
    let mk = |kind, mode, omod| FloatOp { kind, mode, fmz: false, relu: false, omod };
    let (min, max) = (FloatKind::Min(MinMaxKind::Num), FloatKind::Max(MinMaxKind::Num));
    let r = if name.starts_with("V_MED3") {
        // max(min(a, b), min(max(a, b), c)); with a NaN operand min3(a, b, c).
        let lo = cx.b().float(mk(min, inner, Omod::None), t, &[v[0], v[1]]);
        let hi = cx.b().float(mk(max, inner, Omod::None), t, &[v[0], v[1]]);
        let hc = cx.b().float(mk(min, inner, Omod::None), t, &[hi, v[2]]);
        let med = cx.b().float(mk(max, outer, om), t, &[lo, hc]);
        let min3 = cx.b().float(mk(min, outer, om), t, &[lo, v[2]]);
        let n01 = cx.b().fcmp(FCmp::Nan, false, v[0], v[1]);
        let n2 = cx.b().fcmp(FCmp::Nan, false, v[2], v[2]);
        let any = cx.b().int(IntOp::Or, Type::B1, &[n01, n2]);
        cx.b().select(t, any, min3, med)
    } else {
        let k = if name.starts_with("V_MIN3") { min } else { max };
        let ab = cx.b().float(mk(k, inner, Omod::None), t, &[v[0], v[1]]);
        cx.b().float(mk(k, outer, om), t, &[ab, v[2]])
    };
    fdef(cx, &valu, at, &d, r, fmt)
}

/// The barrier id of s_barrier_signal (SSRC0) or s_barrier_wait (SIMM16, 16 bits).
fn barrier(cx: &mut Cx, at: &At, wait: bool) -> Result<(), LiftError> {
    let id = at.inst.operands.iter().find_map(|o| match o.kind {
        OperandKind::InlineConst { bits, .. } => Some(bits as u32 as i32),
        OperandKind::Literal(x) => Some(x as i32),
        OperandKind::Imm(x) => Some(x as u16 as i16 as i32),
        _ => None,
    });
    if id != Some(-1) {
        return Err(cx.unsupported(at, "barriers other than the workgroup barrier (-1)"));
    }
    if wait {
        cx.b().ins(Op::Sync(SyncOp::Barrier(Scope::Workgroup)), &[], None);
    }
    Ok(())
}

/// The message id of s_sendmsg's SIMM16.
fn message_id(at: &At) -> Option<u64> {
    at.inst.operands.iter().find_map(|o| match o.kind {
        OperandKind::Field { value, .. } if !o.implicit => Some(value & 0xff),
        OperandKind::Imm(v) if !o.implicit => Some(v as u64 & 0xff),
        _ => None,
    })
}

/// s_getreg_b32 of the cycle counter; None for the other registers (wave.rs).
fn cycles(cx: &mut Cx, at: &At) -> Option<Result<(), LiftError>> {
    let v = at.inst.operands.iter().find_map(|o| match o.kind {
        OperandKind::Field { ty: "OPR_HWREG", value } => Some(value),
        _ => None,
    })?;
    if !HW_REG_SHADER_CYCLES.contains(&(v & 63)) {
        return None;
    }
    Some((|| {
        let d = dst(cx, at)?;
        let z = cx.k32(0);
        cx.def_s32(at, &d, 0, z)
    })())
}
