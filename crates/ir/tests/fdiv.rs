//! The division helpers (`fdivscale`, `fdivflag`, `fdivfmas`, `fdivfixup`), the 2/π slice
//! (`ftwooverpi`), IEEE 754-2008 min/max and flush-to-zero with tininess after rounding.
//! Expected values are RDNA2 hardware results from fixtures/rdna/vectors.jsonl (the test and row
//! are named) or exact IEEE facts stated with them.

use isabridge_ir::ops::fdiv::{FDivKind, FDivOp};
use isabridge_ir::ops::float::{FloatKind, FloatOp, Omod};
use isabridge_ir::ops::Op;
use isabridge_ir::soft::{self, FFmt, FloatMode, MinMaxKind, NanRule, Round, Tininess};

fn amd(ftz: bool) -> FloatMode {
    FloatMode { ftz_in: ftz, ftz_out: ftz, nan: NanRule::Keep, tininess: Tininess::AfterRounding, ..FloatMode::nv(Round::Rn) }
}

fn op(kind: FDivKind, mode: FloatMode) -> FDivOp {
    FDivOp { kind, mode, omod: Omod::None }
}

fn scale(ftz: bool, x: u32, den: u32, num: u32) -> (u64, u64) {
    let f = FFmt::F32;
    let (x, den, num) = (x as u64, den as u64, num as u64);
    (op(FDivKind::Scale, amd(ftz)).eval(f, x, den, num, 0), FDivOp::flag().eval(f, x, den, num, 0))
}

#[test]
fn scale_follows_division_scale_rows() {
    // Division_Scale, f32 denormals kept (expected32_denorm_kept), rows 1, 12, 30, 31, 25.
    assert_eq!(scale(false, 0x3f800000, 0x00000001, 0x3f800000), (0x3f800000, 1));
    assert_eq!(scale(false, 0x3f800000, 0x00000001, 0x00000001), (0x5f800000, 0));
    assert_eq!(scale(false, 0x3f800000, 0x3f800000, 0x00800000), (0x3f800000, 1));
    assert_eq!(scale(false, 0x00800000, 0x00800000, 0x3f800000), (0x20800000, 1));
    assert_eq!(scale(false, 0x3f800000, 0x00000000, 0x3f800000), (0xffc00000, 1));
    // Denormals flushed (expected32): the value sees zeros, the flag the operands as given
    // (rows 1 and 12).
    assert_eq!(scale(true, 0x3f800000, 0x00000001, 0x3f800000), (0xffc00000, 1));
    assert_eq!(scale(true, 0x3f800000, 0x00000001, 0x00000001), (0xffc00000, 0));
    // A NaN x passes unchanged, signalling too (row 24).
    assert_eq!(scale(true, 0xff812345, 0x3f800000, 0x3f800000), (0xff812345, 0));
}

#[test]
fn f64_scale_mirrors_the_far_quotient_rule() {
    // F64DivisionModifiers row 4: div_scale(b, a, -b) with e(b) - e(a) = -768 scales b by
    // 2^128 and sets the flag; row 6: div_scale(-2^1022, -2^1022, 2^-53) scales by 2^-128.
    let f = FFmt::F64;
    let m = FloatMode { nan: NanRule::PropagateNeg, ..amd(false) };
    let (a, b) = (0xb3648a3fceb52fc3u64, 0x8367c969d8fe4338u64);
    let nb = b ^ 1 << 63;
    assert_eq!(op(FDivKind::Scale, m).eval(f, b, a, nb, 0), 0x8b67c969d8fe4338);
    assert_eq!(FDivOp::flag().eval(f, b, a, nb, 0), 1);
    let (x, y) = (0xffd0000000000000u64, 0x3ca0000000000000u64);
    assert_eq!(op(FDivKind::Scale, m).eval(f, x, x, y, 0), 0xf7d0000000000000);
    assert_eq!(FDivOp::flag().eval(f, x, x, y, 0), 1);
}

#[test]
fn fmas_scales_back_by_the_addend_exponent() {
    // DivisionOutputModifiers rows 6 and 16 (flag set; the vector's mul:2 taken out):
    // fma(-0.75, -3.875, 1) × 2^-64 and fma(0.75, 2^64, -2) × 2^64.
    let m = amd(true);
    let r = op(FDivKind::Fmas, m).eval(FFmt::F32, 0xbf400000, 0xc0780000, 0x3f800000, 1);
    assert_eq!(r, 0x207a0000);
    let r = op(FDivKind::Fmas, m).eval(FFmt::F32, 0x3f400000, 0x5f800000, 0xc0000000, 1);
    assert_eq!(r, 0x7f400000);
    // Without the flag it is a plain fma (3.90625 = -0.75 × -3.875 + 1).
    assert_eq!(op(FDivKind::Fmas, m).eval(FFmt::F32, 0xbf400000, 0xc0780000, 0x3f800000, 0), 0x407a0000);
}

#[test]
fn fixup_gives_the_special_cases_of_division() {
    let m = amd(true);
    let fx = |q: u32, d: u32, n: u32| op(FDivKind::Fixup, m).eval(FFmt::F32, q as u64, d as u64, n as u64, 0);
    // IEEE: 0/0 is invalid (AMD's invalid NaN with IEEE off, 0xffc00000: DivisionOutputModifiers
    // row 0), 1/0 = +inf, -1/inf = -0; otherwise |q| with the sign of num × den.
    assert_eq!(fx(0, 0, 0), 0xffc00000);
    assert_eq!(fx(0x3f800000, 0, 0x3f800000), 0x7f800000);
    assert_eq!(fx(0x3f800000, 0x7f800000, 0xbf800000), 0x80000000);
    assert_eq!(fx(0x3f000000, 0xc0000000, 0x3f800000), 0xbf000000);
    // NanQuieting row 0: a NaN quotient of finite operands gives +inf; row 8: a NaN
    // denominator comes out unchanged with IEEE off.
    assert_eq!(fx(0x7f812345, 0x40000000, 0x40400000), 0x7f800000);
    assert_eq!(fx(0x3f800000, 0x7f812345, 0x40400000), 0x7f812345);
}

#[test]
fn two_over_pi_slices_follow_f64_transcendental() {
    // F64Transcendental rows 19 (slice 0 of 0: the top 53 bits of 2/π = 0.63661977236758138),
    // 2 (slice 37) and 0 (a NaN x, slice 0: exponent 2047 moves the slice by 970 bits).
    let s = |x: u64, seg: u64| {
        FloatOp { kind: FloatKind::TwoOverPiSlice, mode: FloatMode::nv(Round::Rn), fmz: false, relu: false, omod: Omod::None }
            .eval(FFmt::F64, x, seg, 0)
    };
    assert_eq!(s(0, 0), 0x3fe45f306dc9c882);
    assert_eq!(s(0, 0x25), 0x2f42371d2126e970);
    assert_eq!(s(0x7ff0000000000001, 0), 0x0b43dd63f5f2f8bd);
}

#[test]
fn min_max_2008_quiets_signalling_nans_only() {
    // F64Arithmetic rows 7 and 12: min(1, sNaN) is the quieted sNaN; min(qNaN, inf) is inf.
    let m = FloatMode { nan: NanRule::PropagateNeg, ..FloatMode::nv(Round::Rn) };
    let f = FFmt::F64;
    assert_eq!(soft::min_max(f, &m, MinMaxKind::Num2008, false, 0x3ff0000000000000, 0x7ff0000000000001), 0x7ff8000000000001);
    assert_eq!(soft::min_max(f, &m, MinMaxKind::Num2008, false, 0x7ff8000000000000, 0x7ff0000000000000), 0x7ff0000000000000);
}

#[test]
fn min_max_2008_prefers_the_signalling_nan() {
    // RDNA2 F16MinMaxNan `expected32_ieee` rows 75, 8 and 123: min(qNaN 0x7e00, sNaN 0xfd23)
    // is 0xff23, min(0, sNaN 0x7c01) 0x7e01, max(qNaN 0x7e00, sNaN 0x7c01) 0x7e01.
    let m = FloatMode { nan: NanRule::Propagate, ..FloatMode::nv(Round::Rn) };
    let f = FFmt::F16;
    assert_eq!(soft::min_max(f, &m, MinMaxKind::Num2008, false, 0x7e00, 0xfd23), 0xff23);
    assert_eq!(soft::min_max(f, &m, MinMaxKind::Num2008, false, 0x0000, 0x7c01), 0x7e01);
    assert_eq!(soft::min_max(f, &m, MinMaxKind::Num2008, true, 0x7e00, 0x7c01), 0x7e01);
}

#[test]
fn propagate_neg_fma_invalid_product_beats_a_nan_addend() {
    // RDNA2 F32ArithmeticNan `expected32_ieee` row 10: fma(inf, 0, 0x7fc00003) = 0xffc00000;
    // row 0: fma(0x7f812345, 1, 1) = 0x7fc12345.
    let m = FloatMode { nan: NanRule::PropagateNeg, ..FloatMode::nv(Round::Rn) };
    let f = FFmt::F32;
    assert_eq!(soft::fma(f, &m, false, 0x7f800000, 0, 0x7fc00003), 0xffc00000);
    assert_eq!(soft::fma(f, &m, false, 0x7f812345, 0x3f800000, 0x3f800000), 0x7fc12345);
}

#[test]
fn flush_to_zero_detects_tininess_as_the_mode_says() {
    // fma(2^-126, -(2^-126 + 2^-149), 2^-126) is just below 2^-126 and rounds to it: after
    // rounding it is not tiny (RDNA2 F32DenormalFlush row 8 gives 0x00800000); before rounding
    // it is, and flushes to +0.
    let after = amd(true);
    let before = FloatMode { tininess: Tininess::BeforeRounding, ..after };
    assert_eq!(soft::fma(FFmt::F32, &after, false, 0x00800000, 0x80800001, 0x00800000), 0x00800000);
    assert_eq!(soft::fma(FFmt::F32, &before, false, 0x00800000, 0x80800001, 0x00800000), 0);
    // Far below the smallest normal both flush: 2^-127 + 0.
    assert_eq!(soft::fma(FFmt::F32, &after, false, 0x3f000000, 0x00800000, 0), 0);
}

#[test]
fn helper_mnemonics_round_trip() {
    for m in ["fdivscale.ftz.tinyafter.keepnan", "fdivflag", "fdivfmas.omod2.propnanneg", "fdivfixup.sat.keepnan", "ftwooverpi.rn", "fmin2008.propnanneg"] {
        let o = Op::parse_simple(m).unwrap_or_else(|| panic!("{m} parses"));
        assert_eq!(o.mnemonic(), m);
    }
    assert!(Op::parse_simple("fdivflag.ftz").is_none());
}

#[test]
fn class_bits_follow_the_ieee_classes() {
    // IEEE 754 facts for f32: 0x7f800001 is a signalling NaN, 0x7fc00000 quiet, 0x00000001 the
    // smallest subnormal, 0xff800000 -inf, 0x80000000 -0, 0x3f800000 +1 (normal).
    let c = |x: u64| soft::class(FFmt::F32, x);
    assert_eq!(c(0x7f800001), 1 << 0);
    assert_eq!(c(0xffc00000), 1 << 1);
    assert_eq!(c(0xff800000), 1 << 2);
    assert_eq!(c(0xbf800000), 1 << 3);
    assert_eq!(c(0x80000001), 1 << 4);
    assert_eq!(c(0x80000000), 1 << 5);
    assert_eq!(c(0x00000000), 1 << 6);
    assert_eq!(c(0x00000001), 1 << 7);
    assert_eq!(c(0x3f800000), 1 << 8);
    assert_eq!(c(0x7f800000), 1 << 9);
    // f64 and f16 use their own fields: 0x7ff4000000000000 (signalling), 0x7e00 (quiet f16).
    assert_eq!(soft::class(FFmt::F64, 0x7ff4000000000000), 1);
    assert_eq!(soft::class(FFmt::F16, 0x7e00), 2);
    assert_eq!(Op::parse_simple("fclass").map(|o| o.mnemonic()), Some("fclass".to_string()));
}
