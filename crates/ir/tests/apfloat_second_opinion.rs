//! The software float core against `rustc_apfloat` (a port of LLVM's APFloat), an independent
//! implementation, for every rounding mode. NaN results are compared as "both NaN" only, since
//! payload rules are per-vendor and explicit in the IR.

use isabridge_ir::soft::{self, FFmt, FloatMode, NanRule, Overflow, Round, Tininess};
use rustc_apfloat::ieee::{BFloat, Double, Half, Single};
use rustc_apfloat::{Float, FloatConvert, Round as AR};

fn ar(r: Round) -> AR {
    match r {
        Round::Rn => AR::NearestTiesToEven,
        Round::Rz => AR::TowardZero,
        Round::Rm => AR::TowardNegative,
        Round::Rp => AR::TowardPositive,
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Random bits of `fmt` biased toward interesting exponents.
    fn float(&mut self, fmt: FFmt) -> u64 {
        let r = self.next();
        let w = fmt.width();
        let m = fmt.all_mask();
        match r % 4 {
            0 => r >> 8 & m,
            1 => {
                // Near 1.0 with random sign.
                let one = (fmt.bias() as u64) << fmt.man_bits();
                (one ^ (self.next() & ((1 << fmt.man_bits()) - 1))) | ((r >> 20) & 1) << (w - 1)
            }
            2 => self.next() & ((1u64 << (fmt.man_bits() + 2)) - 1) | ((r >> 20) & 1) << (w - 1),
            _ => {
                let specials = [0, fmt.sign_mask(), fmt.inf(), fmt.max_finite(), 1, fmt.sign_mask() | 1];
                specials[(r >> 8) as usize % specials.len()]
            }
        }
    }
}

fn same(fmt: FFmt, ours: u64, theirs: u128) -> bool {
    let theirs = theirs as u64;
    if soft::is_nan(fmt, ours) || soft::is_nan(fmt, theirs) {
        soft::is_nan(fmt, ours) && soft::is_nan(fmt, theirs)
    } else {
        ours == theirs
    }
}

macro_rules! check_fmt {
    ($name:ident, $fmt:expr, $T:ty, $n:expr) => {
        #[test]
        fn $name() {
            let fmt = $fmt;
            let mut rng = Rng(0x1234_5678_9abc_def1 ^ fmt.width() as u64);
            let mut checked = 0;
            for _ in 0..$n {
                let (a, b, c) = (rng.float(fmt), rng.float(fmt), rng.float(fmt));
                let (x, y, z) = (<$T>::from_bits(a as u128), <$T>::from_bits(b as u128), <$T>::from_bits(c as u128));
                for rm in Round::ALL {
                    let mode = FloatMode { round: rm, ftz_in: false, ftz_out: false, sat: false, nan: NanRule::DefaultQuiet, tininess: Tininess::BeforeRounding };
                    let r = ar(rm);
                    let cases = [
                        ("add", soft::add(fmt, &mode, a, b), x.add_r(y, r).value.to_bits()),
                        ("sub", soft::sub(fmt, &mode, a, b), x.sub_r(y, r).value.to_bits()),
                        ("mul", soft::mul(fmt, &mode, false, a, b), x.mul_r(y, r).value.to_bits()),
                        ("div", soft::div(fmt, &mode, a, b), x.div_r(y, r).value.to_bits()),
                        ("fma", soft::fma(fmt, &mode, false, a, b, c), x.mul_add_r(y, z, r).value.to_bits()),
                        ("rint", soft::round_int(fmt, &mode, a), x.round_to_integral(r).value.to_bits()),
                    ];
                    for (what, ours, theirs) in cases {
                        assert!(
                            same(fmt, ours, theirs),
                            "{what} {rm:?} {a:#x} {b:#x} {c:#x}: ours {ours:#x} apfloat {theirs:#x}"
                        );
                        checked += 1;
                    }
                    // Integer conversions (32-bit, signed and unsigned), both directions.
                    let iv = rng.next() as u32 as u64;
                    let ours = soft::from_int(fmt, &mode, iv, 32, true);
                    let theirs = <$T>::from_i128_r(iv as u32 as i32 as i128, r).value.to_bits();
                    assert!(same(fmt, ours, theirs), "i2f.s {rm:?} {iv:#x}");
                    let ours = soft::from_int(fmt, &mode, iv, 32, false);
                    let theirs = <$T>::from_u128_r(iv as u128, r).value.to_bits();
                    assert!(same(fmt, ours, theirs), "i2f.u {rm:?} {iv:#x}");
                    if !x.is_nan() {
                        let mut exact = false;
                        let theirs = x.to_i128_r(32, r, &mut exact).value as i32 as u32 as u64;
                        let ours = soft::to_int(fmt, &mode, a, 32, true);
                        assert_eq!(ours, theirs, "f2i.s {rm:?} {a:#x}");
                    }
                    checked += 2;
                }
            }
            assert!(checked > 0);
        }
    };
}

check_fmt!(f16_matches_apfloat, FFmt::F16, Half, 3000);
check_fmt!(bf16_matches_apfloat, FFmt::BF16, BFloat, 2000);
check_fmt!(f32_matches_apfloat, FFmt::F32, Single, 3000);
check_fmt!(f64_matches_apfloat, FFmt::F64, Double, 3000);

#[test]
fn narrowing_conversions_match_apfloat() {
    let mut rng = Rng(99);
    for _ in 0..4000 {
        let d = rng.float(FFmt::F64);
        let s = rng.float(FFmt::F32);
        for rm in Round::ALL {
            let mode = FloatMode { round: rm, ftz_in: false, ftz_out: false, sat: false, nan: NanRule::DefaultQuiet, tininess: Tininess::BeforeRounding };
            let mut lost = false;
            let theirs: Single = Double::from_bits(d as u128).convert_r(ar(rm), &mut lost).value;
            let ours = soft::convert(FFmt::F64, FFmt::F32, &mode, Overflow::Ieee, d);
            assert!(same(FFmt::F32, ours, theirs.to_bits()), "f64->f32 {rm:?} {d:#x}");
            let theirs: Half = Single::from_bits(s as u128).convert_r(ar(rm), &mut lost).value;
            let ours = soft::convert(FFmt::F32, FFmt::F16, &mode, Overflow::Ieee, s);
            assert!(same(FFmt::F16, ours, theirs.to_bits()), "f32->f16 {rm:?} {s:#x}");
            let theirs: BFloat = Single::from_bits(s as u128).convert_r(ar(rm), &mut lost).value;
            let ours = soft::convert(FFmt::F32, FFmt::BF16, &mode, Overflow::Ieee, s);
            assert!(same(FFmt::BF16, ours, theirs.to_bits()), "f32->bf16 {rm:?} {s:#x}");
        }
    }
}

#[test]
fn sqrt_squares_back() {
    // apfloat has no sqrt: check the defining property instead. r = sqrt_rm(x) is the largest
    // float with r*r <= x (exact product compared with the fma residual sign), so
    // fma(-r, r, x) >= 0 and fma(-r', r', x) < 0 for r' = next_up(r).
    let mut rng = Rng(7);
    let fmt = FFmt::F32;
    let exact = FloatMode { round: Round::Rn, ftz_in: false, ftz_out: false, sat: false, nan: NanRule::DefaultQuiet, tininess: Tininess::BeforeRounding };
    for _ in 0..5000 {
        let x = rng.float(fmt) & 0x7fff_ffff;
        if soft::is_nan(fmt, x) || x == 0 || x == fmt.inf() {
            continue;
        }
        let rm = FloatMode { round: Round::Rm, ..exact };
        let r = soft::sqrt(fmt, &rm, x);
        let res = soft::fma(fmt, &rm, false, r ^ 0x8000_0000, r, x);
        assert_eq!(res & 0x8000_0000, 0, "sqrt.rm({x:#x}) = {r:#x} too large");
        let up = r + 1;
        let res = soft::fma(fmt, &rm, false, up ^ 0x8000_0000, up, x);
        assert!(res & 0x8000_0000 != 0 && res & 0x7fff_ffff != 0, "sqrt.rm({x:#x}) = {r:#x} too small");
    }
}
