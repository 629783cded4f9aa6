//! Every captured PTX operation, lifted to the IR the NVIDIA lifters produce, run by the
//! interpreter over all 1024 rows and compared with the H200 results bit for bit. Approximate
//! operations are compared with a pinned error bound and a pinned measured maximum.

use flate2::read::GzDecoder;
use isabridge_ir::interp::{run, Config, Input, Memory};
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::float::{FCmp, FloatKind, FloatOp};
use isabridge_ir::ops::int::{IntOp, Overflow, PrmtMode, ShiftRule};
use isabridge_ir::ops::lane::{LaneOp, ShflMode};
use isabridge_ir::soft::approx::ApproxFn;
use isabridge_ir::soft::{FFmt, FloatMode, MinMaxKind, NanRule, Round};
use isabridge_ir::{Builder, Function, Scalar, Type, Value};
use std::collections::BTreeMap;
use std::io::Read;

struct Row {
    a: u32,
    b: u32,
    c: u32,
    r0: u32,
    r1: u32,
}

fn load() -> BTreeMap<String, Vec<Row>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/hw/ptx_ops_sm90_seed1.txt.gz");
    let f = std::fs::File::open(path).expect("fixture present");
    let mut s = String::new();
    GzDecoder::new(f).read_to_string(&mut s).expect("gzip");
    let mut m: BTreeMap<String, Vec<Row>> = BTreeMap::new();
    for line in s.lines().filter(|l| !l.starts_with('#')) {
        let p: Vec<&str> = line.split_whitespace().collect();
        let h = |i: usize| u32::from_str_radix(p[i], 16).expect("hex");
        m.entry(p[0].to_string()).or_default().push(Row { a: h(1), b: h(2), c: h(3), r0: h(4), r1: h(5) });
    }
    m
}

const F32: Type = Type::F32;
const I32: Type = Type::I32;
const F16X2: Type = Type::V(Scalar::F(FFmt::F16), 2);
const BF16X2: Type = Type::V(Scalar::F(FFmt::BF16), 2);

fn fop(kind: FloatKind, round: Round, ftz: bool, sat: bool) -> FloatOp {
    let mut o = FloatOp::nv(kind, round);
    o.mode.ftz_in = ftz;
    o.mode.ftz_out = ftz;
    o.mode.sat = sat;
    o
}

/// Lift one captured op. Inputs: params 0, 1, 2 = a, b, c (i32); outputs r0, r1 (i32).
fn lift(name: &str) -> Option<Function> {
    use FloatKind::*;
    use Round::*;
    let mut f = Function::new(name);
    let blk = f.add_block();
    let mut bd = Builder::new(&mut f, blk);
    let b = &mut bd;
    let a = b.param(0, I32);
    let bb = b.param(1, I32);
    let c = b.param(2, I32);
    let zero = b.konst(I32, 0);
    let f32_1 = |b: &mut Builder, op: FloatOp, x: Value| {
        let fx = b.bitcast(F32, x);
        let r = b.float(op, F32, &[fx]);
        b.bitcast(I32, r)
    };
    let f32_n = |b: &mut Builder, op: FloatOp, xs: &[Value]| {
        let fx: Vec<Value> = xs.iter().map(|x| b.bitcast(F32, *x)).collect();
        let r = b.float(op, F32, &fx);
        b.bitcast(I32, r)
    };
    let vec_n = |b: &mut Builder, ty: Type, op: FloatOp, xs: &[Value]| {
        let fx: Vec<Value> = xs.iter().map(|x| b.bitcast(ty, *x)).collect();
        let r = b.float(op, ty, &fx);
        b.bitcast(I32, r)
    };
    let approx = |b: &mut Builder, func: ApproxFn, ftz: bool, x: Value| {
        let fx = b.bitcast(F32, x);
        let r = b.approx(func, ftz, F32, fx);
        b.bitcast(I32, r)
    };
    let int_n = |b: &mut Builder, op: IntOp, xs: &[Value]| b.int(op, I32, xs);
    let f64_of = |b: &mut Builder, hi: Value, lo: Value| {
        let v = b.build(Type::V(Scalar::I32, 2), &[lo, hi]);
        b.bitcast(Type::F64, v)
    };
    // Returns (r0, r1).
    let d_op = |b: &mut Builder, op: FloatOp, n: usize| {
        let x = f64_of(b, a, bb);
        let y = f64_of(b, c, a);
        let w = f64_of(b, bb, c);
        let args = [x, y, w];
        let r = b.float(op, Type::F64, &args[..n]);
        let v = b.bitcast(Type::V(Scalar::I32, 2), r);
        (b.extract(I32, v, 0), b.extract(I32, v, 1))
    };
    let half_of = |b: &mut Builder, x: Value| b.conv(ConvOp::IToI { signed: false }, Type::I16, x);
    let widen = |b: &mut Builder, x16: Value| b.conv(ConvOp::IToI { signed: false }, I32, x16);
    let nv = FloatMode::nv;
    let fcvt = |round| ConvOp::FToF { mode: nv(round), satfinite: false };
    let setp = |b: &mut Builder, cc: FCmp| {
        let (x, y) = (b.bitcast(F32, a), b.bitcast(F32, bb));
        let p = b.fcmp(cc, false, x, y);
        b.conv(ConvOp::IToI { signed: false }, I32, p)
    };
    let shfl = |b: &mut Builder, mode: ShflMode, cval: u64| {
        let m31 = b.konst(I32, 31);
        let lane = b.int(IntOp::And, I32, &[bb, m31]);
        let cc = b.konst(I32, cval);
        b.lane(LaneOp::Shuffle(mode, false), I32, &[a, lane, cc])
    };
    let e4m3 = Type::S(Scalar::F(FFmt::E4M3));
    let e5m2 = Type::S(Scalar::F(FFmt::E5M2));
    let f8x2_from_f32 = |b: &mut Builder, et: Type| {
        let sf = ConvOp::FToF { mode: nv(Rn), satfinite: true };
        let (x, y) = (b.bitcast(F32, a), b.bitcast(F32, bb));
        let hi = b.conv(sf, et, x);
        let lo = b.conv(sf, et, y);
        let v = b.build(Type::V(et.elem(), 2), &[lo, hi]);
        let h = b.bitcast(Type::I16, v);
        widen(b, h)
    };
    let nan_min = MinMaxKind::NanPropagating;
    let mut r1 = zero;
    let r0: Value = match name {
        "add_rn" => f32_n(b, fop(Add, Rn, false, false), &[a, bb]),
        "add_rz" => f32_n(b, fop(Add, Rz, false, false), &[a, bb]),
        "add_rm" => f32_n(b, fop(Add, Rm, false, false), &[a, bb]),
        "add_rp" => f32_n(b, fop(Add, Rp, false, false), &[a, bb]),
        "add_rn_ftz" => f32_n(b, fop(Add, Rn, true, false), &[a, bb]),
        "add_rz_ftz" => f32_n(b, fop(Add, Rz, true, false), &[a, bb]),
        "add_rn_sat" => f32_n(b, fop(Add, Rn, false, true), &[a, bb]),
        "sub_rn" => f32_n(b, fop(Sub, Rn, false, false), &[a, bb]),
        "sub_rm" => f32_n(b, fop(Sub, Rm, false, false), &[a, bb]),
        "mul_rn" => f32_n(b, fop(Mul, Rn, false, false), &[a, bb]),
        "mul_rz" => f32_n(b, fop(Mul, Rz, false, false), &[a, bb]),
        "mul_rm" => f32_n(b, fop(Mul, Rm, false, false), &[a, bb]),
        "mul_rp" => f32_n(b, fop(Mul, Rp, false, false), &[a, bb]),
        "mul_rn_ftz" => f32_n(b, fop(Mul, Rn, true, false), &[a, bb]),
        "mul_rn_sat" => f32_n(b, fop(Mul, Rn, false, true), &[a, bb]),
        "mul_rz_ftz_sat" => f32_n(b, fop(Mul, Rz, true, true), &[a, bb]),
        "fma_rn" => f32_n(b, fop(Fma, Rn, false, false), &[a, bb, c]),
        "fma_rz" => f32_n(b, fop(Fma, Rz, false, false), &[a, bb, c]),
        "fma_rm" => f32_n(b, fop(Fma, Rm, false, false), &[a, bb, c]),
        "fma_rp" => f32_n(b, fop(Fma, Rp, false, false), &[a, bb, c]),
        "fma_rn_ftz" => f32_n(b, fop(Fma, Rn, true, false), &[a, bb, c]),
        "fma_rn_sat" => f32_n(b, fop(Fma, Rn, false, true), &[a, bb, c]),
        "fma_rm_ftz" => f32_n(b, fop(Fma, Rm, true, false), &[a, bb, c]),
        "min_f32" => f32_n(b, fop(Min(MinMaxKind::Num), Rn, false, false), &[a, bb]),
        "max_f32" => f32_n(b, fop(Max(MinMaxKind::Num), Rn, false, false), &[a, bb]),
        "min_nan_f32" => f32_n(b, fop(Min(nan_min), Rn, false, false), &[a, bb]),
        "max_nan_f32" => f32_n(b, fop(Max(nan_min), Rn, false, false), &[a, bb]),
        "min_ftz_f32" => f32_n(b, fop(Min(MinMaxKind::Num), Rn, true, false), &[a, bb]),
        "div_rn" => f32_n(b, fop(Div, Rn, false, false), &[a, bb]),
        "div_rz" => f32_n(b, fop(Div, Rz, false, false), &[a, bb]),
        "div_approx" => {
            // Model: the correctly rounded quotient, except that |b| >= 2^126 gives a * 0
            // (PTX documents div.approx.f32 as 0 there; infinity and NaN dividends give NaN).
            let (x, y) = (b.bitcast(F32, a), b.bitcast(F32, bb));
            let q = b.float(fop(Div, Rn, false, false), F32, &[x, y]);
            let ay = b.float(fop(Abs, Rn, false, false), F32, &[y]);
            let big = b.konst(F32, 0x7e80_0000);
            let is_big = b.fcmp(FCmp::Ge, false, ay, big);
            let fzero = b.konst(F32, 0);
            let z = b.float(fop(Mul, Rn, false, false), F32, &[x, fzero]);
            let r = b.select(F32, is_big, z, q);
            b.bitcast(I32, r)
        }
        "div_full" => f32_n(b, fop(Div, Rn, false, false), &[a, bb]),
        "rcp_approx" => approx(b, ApproxFn::Rcp, false, a),
        "rcp_approx_ftz" => approx(b, ApproxFn::Rcp, true, a),
        "rcp_rn" | "rcp_rz" => {
            let one = b.konst(F32, 0x3f80_0000);
            let x = b.bitcast(F32, a);
            let rm = if name == "rcp_rn" { Rn } else { Rz };
            let r = b.float(fop(Div, rm, false, false), F32, &[one, x]);
            b.bitcast(I32, r)
        }
        "rsqrt_approx" => approx(b, ApproxFn::Rsq, false, a),
        "sqrt_approx" => approx(b, ApproxFn::Sqrt, false, a),
        "sqrt_rn" => f32_1(b, fop(Sqrt, Rn, false, false), a),
        "sqrt_rp" => f32_1(b, fop(Sqrt, Rp, false, false), a),
        "sin_approx" | "cos_approx" => {
            // ptxas: FMUL.RZ by 1/(2π), then MUFU.SIN / MUFU.COS on revolutions.
            let x = b.bitcast(F32, a);
            let k = b.konst(F32, 0x3e22_f983);
            let t = b.float(fop(Mul, Rz, false, false), F32, &[x, k]);
            let func = if name == "sin_approx" { ApproxFn::SinRev } else { ApproxFn::CosRev };
            let r = b.approx(func, false, F32, t);
            b.bitcast(I32, r)
        }
        "ex2_approx" => approx(b, ApproxFn::Ex2, false, a),
        "ex2_approx_ftz" => approx(b, ApproxFn::Ex2, true, a),
        "lg2_approx" => approx(b, ApproxFn::Lg2, false, a),
        "tanh_approx" => approx(b, ApproxFn::Tanh, false, a),
        "abs_f32" => f32_1(b, fop(Abs, Rn, false, false), a),
        "neg_f32" => f32_1(b, fop(Neg, Rn, false, false), a),
        "abs_ftz_f32" => f32_1(b, fop(Abs, Rn, true, false), a),
        "rni_f32" => f32_1(b, fop(RoundInt, Rn, false, false), a),
        "rzi_f32" => f32_1(b, fop(RoundInt, Rz, false, false), a),
        "rmi_f32" => f32_1(b, fop(RoundInt, Rm, false, false), a),
        "rpi_f32" => f32_1(b, fop(RoundInt, Rp, false, false), a),
        "sat_f32" => f32_1(b, fop(Canon, Rn, false, true), a),
        "ftz_f32" => f32_1(b, fop(Canon, Rn, true, false), a),
        "cvt_rni_s32" | "cvt_rzi_s32" | "cvt_rmi_s32" | "cvt_rpi_s32" | "cvt_rzi_u32" | "cvt_rni_u32" => {
            let round = match &name[4..6] {
                "rn" => Rn,
                "rz" => Rz,
                "rm" => Rm,
                _ => Rp,
            };
            let x = b.bitcast(F32, a);
            b.conv(ConvOp::FToI { mode: nv(round), signed: name.ends_with("s32") }, I32, x)
        }
        "cvt_rn_f32_s32" | "cvt_rz_f32_s32" | "cvt_rm_f32_s32" | "cvt_rp_f32_s32" | "cvt_rn_f32_u32"
        | "cvt_rz_f32_u32" => {
            let round = match &name[4..6] {
                "rn" => Rn,
                "rz" => Rz,
                "rm" => Rm,
                _ => Rp,
            };
            let r = b.conv(ConvOp::IToF { mode: nv(round), signed: name.ends_with("s32") }, F32, a);
            b.bitcast(I32, r)
        }
        "cvt_rn_f16_f32" | "cvt_rz_f16_f32" | "cvt_rm_f16_f32" | "cvt_rp_f16_f32" | "cvt_rn_bf16_f32"
        | "cvt_rz_bf16_f32" => {
            let round = match &name[4..6] {
                "rn" => Rn,
                "rz" => Rz,
                "rm" => Rm,
                _ => Rp,
            };
            let to = if name.contains("bf16") { Type::BF16 } else { Type::F16 };
            let x = b.bitcast(F32, a);
            let h = b.conv(fcvt(round), to, x);
            let h = b.bitcast(Type::I16, h);
            widen(b, h)
        }
        "cvt_f32_f16" => {
            let h = half_of(b, a);
            let h = b.bitcast(Type::F16, h);
            let r = b.conv(fcvt(Rn), F32, h);
            b.bitcast(I32, r)
        }
        "cvt_f32_bf16" => {
            // bf16 -> f32 is a 16-bit shift on the hardware: every NaN passes through unchanged.
            let h = half_of(b, a);
            let w = widen(b, h);
            let sixteen = b.konst(I32, 16);
            b.int(IntOp::Shl(ShiftRule::Clamp), I32, &[w, sixteen])
        }
        "cvt_e4m3x2_f32" => f8x2_from_f32(b, e4m3),
        "cvt_e5m2x2_f32" => f8x2_from_f32(b, e5m2),
        "cvt_f16x2_e4m3x2" => {
            let h = half_of(b, a);
            let v = b.bitcast(Type::V(Scalar::F(FFmt::E4M3), 2), h);
            let r = b.conv(fcvt(Rn), F16X2, v);
            b.bitcast(I32, r)
        }
        "cvt_e4m3x2_f16x2" => {
            let v = b.bitcast(F16X2, a);
            let r = b.conv(ConvOp::FToF { mode: nv(Rn), satfinite: true }, Type::V(Scalar::F(FFmt::E4M3), 2), v);
            let h = b.bitcast(Type::I16, r);
            widen(b, h)
        }
        "setp_eq" => setp(b, FCmp::Eq),
        "setp_ne" => setp(b, FCmp::Ne),
        "setp_lt" => setp(b, FCmp::Lt),
        "setp_le" => setp(b, FCmp::Le),
        "setp_gt" => setp(b, FCmp::Gt),
        "setp_ge" => setp(b, FCmp::Ge),
        "setp_equ" => setp(b, FCmp::Equ),
        "setp_neu" => setp(b, FCmp::Neu),
        "setp_ltu" => setp(b, FCmp::Ltu),
        "setp_geu" => setp(b, FCmp::Geu),
        "setp_num" => setp(b, FCmp::Num),
        "setp_nan" => setp(b, FCmp::Nan),
        "add_s32" => int_n(b, IntOp::Add(Overflow::Wrap), &[a, bb]),
        "add_sat_s32" => int_n(b, IntOp::Add(Overflow::SatS), &[a, bb]),
        "sub_s32" => int_n(b, IntOp::Sub(Overflow::Wrap), &[a, bb]),
        "mul_lo_s32" => int_n(b, IntOp::MulLo, &[a, bb]),
        "mul_hi_s32" => int_n(b, IntOp::MulHi(true), &[a, bb]),
        "mul_hi_u32" => int_n(b, IntOp::MulHi(false), &[a, bb]),
        "mad_lo_s32" => int_n(b, IntOp::MadLo, &[a, bb, c]),
        "mad_hi_u32" => int_n(b, IntOp::MadHi(false), &[a, bb, c]),
        "min_s32" => int_n(b, IntOp::Min(true), &[a, bb]),
        "max_u32" => int_n(b, IntOp::Max(false), &[a, bb]),
        "shl_b32" => int_n(b, IntOp::Shl(ShiftRule::Clamp), &[a, bb]),
        "shr_s32" => int_n(b, IntOp::Shr(true, ShiftRule::Clamp), &[a, bb]),
        "shr_u32" => int_n(b, IntOp::Shr(false, ShiftRule::Clamp), &[a, bb]),
        "shf_l_wrap" => int_n(b, IntOp::ShfL(ShiftRule::Wrap), &[a, bb, c]),
        "shf_r_clamp" => int_n(b, IntOp::ShfR(ShiftRule::Clamp), &[a, bb, c]),
        "shf_r_wrap" => int_n(b, IntOp::ShfR(ShiftRule::Wrap), &[a, bb, c]),
        "bfe_u32" => int_n(b, IntOp::Bfe(false), &[a, bb, c]),
        "bfe_s32" => int_n(b, IntOp::Bfe(true), &[a, bb, c]),
        "bfi_b32" => {
            let (ff, eight) = (b.konst(I32, 0xff), b.konst(I32, 8));
            let pos = b.int(IntOp::And, I32, &[c, ff]);
            let sh = b.int(IntOp::Shr(false, ShiftRule::Clamp), I32, &[c, eight]);
            let len = b.int(IntOp::And, I32, &[sh, ff]);
            int_n(b, IntOp::Bfi, &[a, bb, pos, len])
        }
        "popc_b32" => int_n(b, IntOp::Popc, &[a]),
        "clz_b32" => int_n(b, IntOp::Clz, &[a]),
        "brev_b32" => int_n(b, IntOp::Brev, &[a]),
        "not_b32" => int_n(b, IntOp::Not, &[a]),
        "prmt_b32" => int_n(b, IntOp::Prmt(PrmtMode::Default), &[a, bb, c]),
        "prmt_f4e" => int_n(b, IntOp::Prmt(PrmtMode::F4e), &[a, bb, c]),
        "prmt_rc16" => int_n(b, IntOp::Prmt(PrmtMode::Rc16), &[a, bb, c]),
        "lop3_e8" => int_n(b, IntOp::Lop3(0xe8), &[a, bb, c]),
        "lop3_96" => int_n(b, IntOp::Lop3(0x96), &[a, bb, c]),
        "dp4a_s32" => int_n(b, IntOp::Dp4a(true, true), &[a, bb, c]),
        "dp4a_u32" => int_n(b, IntOp::Dp4a(false, false), &[a, bb, c]),
        "dp2a_lo_s32" => int_n(b, IntOp::Dp2a(false, true), &[a, bb, c]),
        "fma_rn_f16x2" => vec_n(b, F16X2, fop(Fma, Rn, false, false), &[a, bb, c]),
        "mul_rn_f16x2" => vec_n(b, F16X2, fop(Mul, Rn, false, false), &[a, bb]),
        "add_f16x2" => vec_n(b, F16X2, fop(Add, Rn, false, false), &[a, bb]),
        "add_ftz_f16x2" => vec_n(b, F16X2, fop(Add, Rn, true, false), &[a, bb]),
        "min_f16x2" => vec_n(b, F16X2, fop(Min(MinMaxKind::Num), Rn, false, false), &[a, bb]),
        "max_nan_f16x2" => vec_n(b, F16X2, fop(Max(nan_min), Rn, false, false), &[a, bb]),
        "fma_relu_f16x2" => {
            let mut o = fop(Fma, Rn, false, false);
            o.relu = true;
            vec_n(b, F16X2, o, &[a, bb, c])
        }
        "add_bf16x2" => vec_n(b, BF16X2, fop(Add, Rn, false, false), &[a, bb]),
        "fma_bf16x2" => vec_n(b, BF16X2, fop(Fma, Rn, false, false), &[a, bb, c]),
        "dadd_rn" | "dadd_rz" | "dadd_rm" | "dadd_rp" | "dmul_rn" | "dmul_rz" | "dfma_rn" | "dfma_rm" | "dmin"
        | "ddiv_rn" => {
            let kind = match &name[1..4] {
                "add" => Add,
                "mul" => Mul,
                "fma" => Fma,
                "min" => Min(MinMaxKind::Num),
                _ => Div,
            };
            let round = match name.get(5..7) {
                Some("rz") => Rz,
                Some("rm") => Rm,
                Some("rp") => Rp,
                _ => Rn,
            };
            let mut op = fop(kind, round, false, false);
            // DADD/DMUL/DFMA/DMNMX pick NaN operands in the order 1, 2, 0; ddiv is a software
            // sequence that returns the first NaN operand.
            op.mode.nan = if kind == Div { NanRule::NvFirst } else { NanRule::NvF64 };
            let (lo, hi) = d_op(b, op, kind.arity());
            r1 = hi;
            lo
        }
        "shfl_idx" => shfl(b, ShflMode::Idx, 0x1f),
        "shfl_up" => shfl(b, ShflMode::Up, 0),
        "shfl_down" => shfl(b, ShflMode::Down, 0x1f),
        "shfl_bfly" => shfl(b, ShflMode::Bfly, 0x1f),
        "shfl_idx_seg8" => shfl(b, ShflMode::Idx, 0x181f),
        "vote_ballot" => {
            let one = b.konst(I32, 1);
            let bit = b.int(IntOp::And, I32, &[a, one]);
            let p = b.int(IntOp::Cmp(isabridge_ir::ops::int::ICmp::Ne), I32, &[bit, zero]);
            let m = b.lane(LaneOp::Ballot, Type::Mask, &[p]);
            let m = b.bitcast(Type::I64, m);
            b.conv(ConvOp::IToI { signed: false }, I32, m)
        }
        _ => return None,
    };
    b.ret(&[r0, r1]);
    Some(f)
}

use isabridge_ir::accuracy::{error, Metric};

/// (op, metric, documented bound, measured maximum over the 1024 captured rows).
/// The bounds follow the PTX ISA's documented accuracy of each instruction, converted to the
/// metric (ulps of f32, or units of 2^-24 absolute); the measured maximum is pinned so that any
/// change of the model shows up.
const APPROX: &[(&str, Metric, u64, u64)] = &[
    ("rcp_approx", Metric::Ulp, 1, 1),
    ("rcp_approx_ftz", Metric::Ulp, 1, 1),
    ("sqrt_approx", Metric::Ulp, 2, 1),
    ("rsqrt_approx", Metric::Ulp, 2, 1),
    ("ex2_approx", Metric::Ulp, 2, 2),
    ("ex2_approx_ftz", Metric::Ulp, 2, 2),
    ("lg2_approx", Metric::UlpOrAbs24, 4, 2),
    ("tanh_approx", Metric::UlpOrAbs24, 4096, 114),
    ("sin_approx", Metric::Abs24, 12, 5),
    ("cos_approx", Metric::Abs24, 12, 6),
    ("div_approx", Metric::Ulp, 2, 1),
    ("div_full", Metric::Ulp, 2, 1),
];

fn run_op(f: &Function, rows: &[Row]) -> Vec<Vec<u64>> {
    let n = rows.len();
    let inputs = vec![
        Input::PerLane(rows.iter().map(|r| r.a as u64).collect()),
        Input::PerLane(rows.iter().map(|r| r.b as u64).collect()),
        Input::PerLane(rows.iter().map(|r| r.c as u64).collect()),
    ];
    let cfg = Config { wave_size: 32, waves: (n / 32) as u32, ..Config::default() };
    run(f, &cfg, &inputs, Memory::default()).expect("runs").outputs
}

#[test]
fn ptx_ops_match_h200() {
    let data = load();
    assert_eq!(data.len(), 147, "captured op count");
    let verbose = std::env::var("HW_VERBOSE").is_ok();
    let mut failures = Vec::new();
    let mut exact_ok = 0;
    let mut measured = Vec::new();
    for (name, rows) in &data {
        assert_eq!(rows.len(), 1024);
        let f = lift(name).unwrap_or_else(|| panic!("no lift for {name}"));
        isabridge_ir::validate::validate(&f).unwrap_or_else(|e| panic!("{name}: {e}"));
        let out = run_op(&f, rows);
        let approx = APPROX.iter().find(|x| x.0 == name);
        let metric = approx.map(|x| x.1).unwrap_or(Metric::Ulp);
        let mut bad = 0;
        let mut max_err = 0u64;
        for (row, o) in rows.iter().zip(&out) {
            let (g0, g1) = (o[0] as u32, o[1] as u32);
            if approx.is_some() || std::env::var("HW_MEASURE").is_ok_and(|v| v == *name) {
                match error(metric, row.r0, g0) {
                    Some(e) => max_err = max_err.max(e),
                    None => max_err = u64::MAX,
                }
                if verbose && error(metric, row.r0, g0) != Some(0) {
                    eprintln!("{name} {:08x} {:08x} {:08x}: hw {:08x} got {:08x}", row.a, row.b, row.c, row.r0, g0);
                }
            } else if (g0, g1) != (row.r0, row.r1) {
                bad += 1;
                if verbose && bad <= 8 {
                    eprintln!(
                        "{name} {:08x} {:08x} {:08x}: hw {:08x} {:08x} got {:08x} {:08x}",
                        row.a, row.b, row.c, row.r0, row.r1, g0, g1
                    );
                }
            }
        }
        if let Some(&(_, _, bound, pinned)) = approx {
            measured.push((name.clone(), max_err));
            if max_err > bound || max_err != pinned {
                failures.push(format!("{name}: measured max error {max_err}, bound {bound}, pinned {pinned}"));
            }
        } else if bad != 0 {
            failures.push(format!("{name}: {bad} rows differ (max err {max_err})"));
        } else {
            exact_ok += 1;
        }
    }
    eprintln!("exact ops matching every row: {exact_ok}; approximate: {measured:?}");
    assert!(failures.is_empty(), "{} ops fail:\n{}", failures.len(), failures.join("\n"));
    assert_eq!(exact_ok + APPROX.len(), 147);
}
