//! Division helpers: the three steps around a Newton–Raphson quotient that keep its terms out of
//! the subnormal range and handle the special cases of a / b.
//!
//! * [`scale`] / [`scale_flag`]: before the iteration, scale a denominator or numerator `x` by
//!   2^±K (K = 64 for f32, 128 for f64) and say whether the quotient must be scaled back.
//! * [`fma_post`]: `fma(a, b, c)` scaled back by 2^±K when the flag is set (one rounding).
//! * [`fixup`]: replace the quotient `q` of `num / den` by the IEEE result where `num` or `den`
//!   is zero, infinite or NaN, and give `q` the quotient's sign.
//!
//! Every rule works on the biased exponent fields `e(den)` and `e(num)` (0 for zeros and
//! subnormals, all ones for infinities and NaNs), so each is total over all bit patterns.

use super::{fma_scaled, is_nan, is_subnormal, ldexp, nan_result, FFmt, FloatMode};

/// The post-scaling exponent K of a format with division helpers (f32 and f64).
pub const fn scale_k(fmt: FFmt) -> Option<i32> {
    match fmt {
        FFmt::F32 => Some(64),
        FFmt::F64 => Some(128),
        _ => None,
    }
}

/// The exponent distance at which a quotient counts as near the end of the range: 96 for f32,
/// 768 for f64.
const fn far(fmt: FFmt) -> i64 {
    match fmt {
        FFmt::F64 => 768,
        _ => 96,
    }
}

/// The largest numerator exponent field that counts as tiny: 23 for f32, 53 for f64.
const fn tiny(fmt: FFmt) -> i64 {
    match fmt {
        FFmt::F64 => 53,
        _ => 23,
    }
}

fn exp_field(fmt: FFmt, x: u64) -> i64 {
    ((x & fmt.all_mask()) >> fmt.man_bits() & fmt.exp_all_ones()) as i64
}

fn mag(fmt: FFmt, x: u64) -> u64 {
    x & fmt.all_mask() & !fmt.sign_mask()
}

fn is_zero(fmt: FFmt, x: u64) -> bool {
    mag(fmt, x) == 0
}

/// Which case of the scaling rule applies to (x, den, num): the flag, and the power of two x
/// is multiplied by (0: x unchanged).
fn scale_case(fmt: FFmt, x: u64, den: u64, num: u64) -> (bool, i32) {
    let k = scale_k(fmt).unwrap_or(64);
    let (ed, en) = (exp_field(fmt, den), exp_field(fmt, num));
    // 1/den is at or below the smallest normal: e(den) >= 2·bias - 1, i.e. |den| >= 2^(bias-1)
    // (RDNA2 F64DivisionModifiers row 6: den = 2^1022 counts), infinities and NaNs included
    // (row 0: div_scale(1, sNaN, -1) leaves 1 unscaled).
    let rcp_tiny = ed >= 2 * fmt.bias() as i64 - 1;
    // The quotient is far below 1: e(num) - e(den) <= -far, the mirror of the overflow case
    // (RDNA2 F64DivisionModifiers: e(num) - e(den) = -768 scales the numerator and sets the
    // flag; Division_Scale: 2^-126 / 1 sets the flag).
    let quo_tiny = en - ed <= -far(fmt);
    // Whether x is the denominator: its bits equal den's.
    let is_den = x == den;
    if en - ed >= far(fmt) {
        (true, if is_den { k } else { 0 })
    } else if is_subnormal(fmt, den) {
        (false, k)
    } else if rcp_tiny && quo_tiny {
        // A huge denominator of a tiny quotient scales down (RDNA2 F64DivisionModifiers:
        // div_scale(-2^1022, -2^1022, 2^-53) = -2^894 with the flag set).
        (true, if is_den { -k } else { 0 })
    } else if rcp_tiny {
        (false, -k)
    } else if quo_tiny {
        // Any x but the denominator scales (RDNA2 DivisionOutputModifiers row 3:
        // div_scale(2^-63, -1.36e22, -1.35e-12) gives 2^1; Division_Scale row 30:
        // div_scale(1, 1, 2^-126) gives 1).
        (true, if is_den { 0 } else { k })
    } else if en <= tiny(fmt) {
        (false, k)
    } else {
        (false, 0)
    }
}

/// Scale `x` (the denominator or the numerator of `num / den`) for a Newton–Raphson division.
///
/// With `ftz_in`, subnormal operands read as zeros. A zero `den` or `num` gives the default
/// quiet NaN with the sign set. Otherwise, with K from [`scale_k`] and `e()` the exponent
/// fields, the first rule that holds decides:
/// 1. `e(num) - e(den) >= 96` (f32; 768 for f64): x × 2^K if x = den (as bits), else x;
/// 2. `den` subnormal: x × 2^K;
/// 3. `e(den) >= 2·bias - 1` (|den| >= 2^(bias-1), infinities and NaNs too) and
///    `e(num) - e(den) <= -96` (-768): x × 2^-K if x = den, else x;
/// 4. `e(den) >= 2·bias - 1`: x × 2^-K;
/// 5. `e(num) - e(den) <= -96` (-768): x if x = den, else x × 2^K;
/// 6. `e(num) <= 23` (53): x × 2^K;
/// 7. otherwise x.
///
/// Each product is one rounding of the mode (NaN and infinite x pass unchanged).
pub fn scale(fmt: FFmt, mode: &FloatMode, x: u64, den: u64, num: u64) -> u64 {
    let m = fmt.all_mask();
    let fl = |v: u64| if mode.ftz_in { super::flush(fmt, v & m) } else { v & m };
    let (x, den, num) = (fl(x), fl(den), fl(num));
    if is_zero(fmt, den) || is_zero(fmt, num) {
        return super::finish(fmt, mode, fmt.qnan() | fmt.sign_mask());
    }
    let (_, p) = scale_case(fmt, x, den, num);
    if is_nan(fmt, x) {
        return super::finish(fmt, mode, x);
    }
    let keep = FloatMode { ftz_in: false, ..*mode };
    ldexp(fmt, &keep, x, p)
}

/// The flag of [`scale`]: whether rule 1, 3 or 5 holds, decided on the operands as given (a
/// subnormal counts as one even under FTZ; RDNA2 Division_Scale, f32 denormals flushed:
/// div_scale(1, 2^-149, 2^-149) sets no flag while div_scale(1, 2^-149, 1) does).
pub fn scale_flag(fmt: FFmt, x: u64, den: u64, num: u64) -> bool {
    let m = fmt.all_mask();
    scale_case(fmt, x & m, den & m, num & m).0
}

/// `fma(a, b, c)`, then when `flag` is set × 2^K if e(c) > bias (|c| >= 2) else × 2^-K, with
/// one rounding (RDNA2 DivisionOutputModifiers and F64DivisionModifiers show both directions).
pub fn fma_post(fmt: FFmt, mode: &FloatMode, a: u64, b: u64, c: u64, flag: bool) -> u64 {
    let k = scale_k(fmt).unwrap_or(64);
    let p = if !flag {
        0
    } else if exp_field(fmt, c) > fmt.bias() as i64 {
        k
    } else {
        -k
    };
    fma_scaled(fmt, mode, false, a, b, c, p)
}

/// The division special cases of `num / den` applied to a quotient `q`, first rule first:
/// a NaN `num`, else a NaN `den`, is the NaN result (the mode's rule over `[num, den]`); 0/0 and
/// ∞/∞ give the default quiet NaN with the sign set; x/0 and ∞/y give ∞, x/∞ and 0/y give 0;
/// `e(num) - e(den) < -(bias + mantissa bits)` gives 0 (the quotient is below half the smallest
/// subnormal); a NaN q gives ∞; otherwise |q|. Infinities and zeros take the sign of num × den.
pub fn fixup(fmt: FFmt, mode: &FloatMode, q: u64, den: u64, num: u64) -> u64 {
    let m = fmt.all_mask();
    let fl = |v: u64| if mode.ftz_in { super::flush(fmt, v & m) } else { v & m };
    let (q, den, num) = (fl(q), fl(den), fl(num));
    let sign = (den ^ num) & fmt.sign_mask();
    let inf = |v: u64| mag(fmt, v) == fmt.inf();
    let r = if is_nan(fmt, num) || is_nan(fmt, den) {
        nan_result(fmt, mode.nan, &[num, den])
    } else if is_zero(fmt, den) && is_zero(fmt, num) || inf(den) && inf(num) {
        fmt.qnan() | fmt.sign_mask()
    } else if is_zero(fmt, den) || inf(num) {
        sign | fmt.inf()
    } else if inf(den) || is_zero(fmt, num) || exp_field(fmt, num) - exp_field(fmt, den) < -(fmt.bias() as i64 + fmt.man_bits() as i64) {
        sign
    } else if is_nan(fmt, q) {
        // A NaN quotient of finite operands overflowed (RDNA2 NanQuieting: div_fixup(sNaN, 2, 3)
        // = +inf).
        sign | fmt.inf()
    } else {
        sign | mag(fmt, q)
    };
    super::finish(fmt, mode, r)
}
