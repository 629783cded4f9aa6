//! Exact software floating point: every rounding mode, FTZ, saturation and NaN rule is computed
//! with integer arithmetic only. No host floating-point instruction decides a result bit.

pub mod approx;
pub mod blockdot;
pub mod divide;
pub mod dot;
pub mod trig;

use std::cmp::Ordering;

/// A floating-point storage format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FFmt {
    /// IEEE binary16.
    F16,
    /// bfloat16 (8-bit exponent, 7-bit fraction).
    BF16,
    /// IEEE binary32.
    F32,
    /// IEEE binary64.
    F64,
    /// OCP FP8 E4M3 ("fn": no infinities, one NaN pattern per sign).
    E4M3,
    /// OCP FP8 E5M2 (IEEE-like, with infinities).
    E5M2,
}

impl FFmt {
    /// Exponent field width.
    pub const fn exp_bits(self) -> u32 {
        match self {
            FFmt::F16 => 5,
            FFmt::BF16 => 8,
            FFmt::F32 => 8,
            FFmt::F64 => 11,
            FFmt::E4M3 => 4,
            FFmt::E5M2 => 5,
        }
    }
    /// Fraction (stored significand) width.
    pub const fn man_bits(self) -> u32 {
        match self {
            FFmt::F16 => 10,
            FFmt::BF16 => 7,
            FFmt::F32 => 23,
            FFmt::F64 => 52,
            FFmt::E4M3 => 3,
            FFmt::E5M2 => 2,
        }
    }
    /// Total width in bits.
    pub const fn width(self) -> u32 {
        1 + self.exp_bits() + self.man_bits()
    }
    /// Exponent bias.
    pub const fn bias(self) -> i32 {
        (1 << (self.exp_bits() - 1)) - 1
    }
    /// Whether the format encodes infinities.
    pub const fn has_inf(self) -> bool {
        !matches!(self, FFmt::E4M3)
    }
    /// Sign bit mask.
    pub const fn sign_mask(self) -> u64 {
        1 << (self.width() - 1)
    }
    /// Mask of all bits of the format.
    pub const fn all_mask(self) -> u64 {
        if self.width() == 64 {
            u64::MAX
        } else {
            (1 << self.width()) - 1
        }
    }
    /// The exponent field with every bit set (infinities and NaNs).
    pub const fn exp_all_ones(self) -> u64 {
        (1 << self.exp_bits()) - 1
    }
    /// Largest finite magnitude, encoded.
    pub const fn max_finite(self) -> u64 {
        match self {
            FFmt::E4M3 => 0x7e,
            _ => ((self.exp_all_ones() - 1) << self.man_bits()) | ((1 << self.man_bits()) - 1),
        }
    }
    /// Positive infinity (or, for E4M3, the NaN pattern).
    pub const fn inf(self) -> u64 {
        match self {
            FFmt::E4M3 => 0x7f,
            _ => self.exp_all_ones() << self.man_bits(),
        }
    }
    /// The default quiet NaN (sign 0, quiet bit only).
    pub const fn qnan(self) -> u64 {
        match self {
            FFmt::E4M3 => 0x7f,
            _ => (self.exp_all_ones() << self.man_bits()) | (1 << (self.man_bits() - 1)),
        }
    }
    /// The NaN NVIDIA GPUs return for every NaN result (sign 0, all payload bits set).
    pub const fn nv_nan(self) -> u64 {
        match self {
            FFmt::E4M3 => 0x7f,
            _ => self.all_mask() >> 1,
        }
    }
    /// Short name used in the text form.
    pub const fn name(self) -> &'static str {
        match self {
            FFmt::F16 => "f16",
            FFmt::BF16 => "bf16",
            FFmt::F32 => "f32",
            FFmt::F64 => "f64",
            FFmt::E4M3 => "e4m3",
            FFmt::E5M2 => "e5m2",
        }
    }
}

/// Rounding direction of an inexact result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Round {
    /// To nearest, ties to even.
    Rn,
    /// Toward zero.
    Rz,
    /// Toward minus infinity.
    Rm,
    /// Toward plus infinity.
    Rp,
}

impl Round {
    /// All rounding modes.
    pub const ALL: [Round; 4] = [Round::Rn, Round::Rz, Round::Rm, Round::Rp];
    /// Text name.
    pub const fn name(self) -> &'static str {
        match self {
            Round::Rn => "rn",
            Round::Rz => "rz",
            Round::Rm => "rm",
            Round::Rp => "rp",
        }
    }
}

/// Which NaN a NaN-producing operation returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NanRule {
    /// NVIDIA: a fixed NaN with every payload bit set and sign 0 (0x7fffffff for f32).
    NvCanonical,
    /// The format's default quiet NaN (0x7fc00000 for f32).
    DefaultQuiet,
    /// IEEE: the first NaN operand, quieted; an invalid operation gives the default quiet NaN.
    Propagate,
    /// NVIDIA double precision (measured on sm_90): the NaN operand is returned quieted,
    /// preferring operand 1, then operand 2, then operand 0; an invalid operation gives the
    /// NVIDIA canonical NaN.
    NvF64,
    /// NVIDIA f64 matrix multiply-accumulate (`DMMA`, measured on sm_90, fixtures/hw/mma): the
    /// NaN operand quieted in [`NanRule::NvF64`]'s order; an invalid operation gives the default
    /// quiet NaN with the sign set (0xfff8000000000000).
    NvF64Mma,
    /// NVIDIA software sequences (f64 division): the first NaN operand, quieted; an invalid
    /// operation gives the NVIDIA canonical NaN.
    NvFirst,
    /// The first NaN operand unchanged, signalling NaNs included; an invalid operation gives
    /// the default quiet NaN with the sign set (0xffc00000 for f32). AMD arithmetic with the
    /// IEEE mode bit off, measured on RDNA2 (F32ArithmeticNan, MacLegacy).
    Keep,
    /// The first NaN operand quieted; an invalid operation gives the default quiet NaN with the
    /// sign set, and an invalid product (inf × 0) of an fma gives it even when the addend is a
    /// NaN (AMD f64 with the IEEE mode bit off and f32 with it on, measured on RDNA2:
    /// F64Arithmetic, F32ArithmeticNan `expected32_ieee`).
    PropagateNeg,
}

impl NanRule {
    /// Text name.
    pub const fn name(self) -> &'static str {
        match self {
            NanRule::NvCanonical => "nvnan",
            NanRule::DefaultQuiet => "qnan",
            NanRule::Propagate => "propnan",
            NanRule::NvF64 => "nvnan64",
            NanRule::NvF64Mma => "nvnan64mma",
            NanRule::NvFirst => "nvnanfirst",
            NanRule::Keep => "keepnan",
            NanRule::PropagateNeg => "propnanneg",
        }
    }
}

/// When a result counts as tiny for flush-to-zero (`ftz_out`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Tininess {
    /// The exact result is below the smallest normal: it flushes even when rounding would
    /// reach the smallest normal (NVIDIA `.ftz`).
    BeforeRounding,
    /// The result rounded to the format's precision with an unbounded exponent is below the
    /// smallest normal (IEEE 754 "after rounding"): a value that rounds up to the smallest
    /// normal stays.
    AfterRounding,
}

/// Denormal handling on input and output, saturation and overflow rules of one float operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FloatMode {
    /// Rounding direction.
    pub round: Round,
    /// Flush subnormal inputs to signed zero.
    pub ftz_in: bool,
    /// Flush subnormal results (after rounding) to signed zero.
    pub ftz_out: bool,
    /// Clamp the result to [0, 1]; NaN becomes +0.
    pub sat: bool,
    /// Which NaN comes out.
    pub nan: NanRule,
    /// When `ftz_out` counts a result as tiny.
    pub tininess: Tininess,
}

impl FloatMode {
    /// IEEE defaults with NVIDIA NaNs: round to nearest, denormals kept, no saturation.
    pub const NV_RN: FloatMode = FloatMode::nv(Round::Rn);
    /// NVIDIA mode with the given rounding, no FTZ, no saturation.
    pub const fn nv(round: Round) -> FloatMode {
        FloatMode { round, ftz_in: false, ftz_out: false, sat: false, nan: NanRule::NvCanonical, tininess: Tininess::BeforeRounding }
    }
}

/// Classification of an unpacked value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Signed zero.
    Zero,
    /// Finite nonzero: value = sig * 2^exp.
    Finite,
    /// Signed infinity.
    Inf,
    /// NaN (quiet or signalling).
    Nan,
}

/// A decoded float: value = (-1)^sign * sig * 2^exp for finite values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unpacked {
    /// Sign bit.
    pub sign: bool,
    /// Class.
    pub class: Class,
    /// Binary exponent of the significand's least significant bit.
    pub exp: i32,
    /// Integer significand (implicit bit included).
    pub sig: u128,
}

/// Whether `bits` is a NaN of `fmt`.
pub fn is_nan(fmt: FFmt, bits: u64) -> bool {
    let mag = bits & (fmt.all_mask() >> 1);
    match fmt {
        FFmt::E4M3 => mag == 0x7f,
        _ => mag > fmt.inf(),
    }
}

/// Whether `bits` is a subnormal (nonzero with a zero exponent field).
pub fn is_subnormal(fmt: FFmt, bits: u64) -> bool {
    let mag = bits & (fmt.all_mask() >> 1);
    mag != 0 && (mag >> fmt.man_bits()) == 0
}

/// The one-hot IEEE 754 class of `bits`: bit 0 signalling NaN, 1 quiet NaN, 2 -inf, 3 -normal,
/// 4 -subnormal, 5 -0, 6 +0, 7 +subnormal, 8 +normal, 9 +inf (a format without infinities
/// or quiet bits reports its NaNs as quiet).
pub fn class(fmt: FFmt, bits: u64) -> u64 {
    let bits = bits & fmt.all_mask();
    let neg = bits & fmt.sign_mask() != 0;
    let mag = bits & (fmt.all_mask() >> 1);
    let k = if is_nan(fmt, bits) {
        let quiet = fmt == FFmt::E4M3 || bits >> (fmt.man_bits() - 1) & 1 != 0;
        return if quiet { 2 } else { 1 };
    } else if fmt.has_inf() && mag == fmt.inf() {
        if neg { 2 } else { 9 }
    } else if mag == 0 {
        if neg { 5 } else { 6 }
    } else if mag >> fmt.man_bits() == 0 {
        if neg { 4 } else { 7 }
    } else if neg {
        3
    } else {
        8
    };
    1 << k
}

/// Replace a subnormal by a zero of the same sign.
pub fn flush(fmt: FFmt, bits: u64) -> u64 {
    if is_subnormal(fmt, bits) {
        bits & fmt.sign_mask()
    } else {
        bits
    }
}

/// Decode `bits` (high bits above the format's width are ignored).
pub fn unpack(fmt: FFmt, bits: u64) -> Unpacked {
    let bits = bits & fmt.all_mask();
    let sign = bits & fmt.sign_mask() != 0;
    let m = fmt.man_bits();
    let frac = bits & ((1 << m) - 1);
    let e = (bits >> m) & fmt.exp_all_ones();
    if is_nan(fmt, bits) {
        return Unpacked { sign, class: Class::Nan, exp: 0, sig: frac as u128 };
    }
    if fmt.has_inf() && e == fmt.exp_all_ones() {
        return Unpacked { sign, class: Class::Inf, exp: 0, sig: 0 };
    }
    if e == 0 {
        if frac == 0 {
            return Unpacked { sign, class: Class::Zero, exp: 0, sig: 0 };
        }
        return Unpacked { sign, class: Class::Finite, exp: 1 - fmt.bias() - m as i32, sig: frac as u128 };
    }
    Unpacked {
        sign,
        class: Class::Finite,
        exp: e as i32 - fmt.bias() - m as i32,
        sig: (frac | (1 << m)) as u128,
    }
}

/// What an overflowing result becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overflow {
    /// IEEE: infinity or the largest finite value depending on the rounding direction.
    Ieee,
    /// `.satfinite`: the largest finite value of the right sign.
    SatFinite,
}

fn zero(fmt: FFmt, sign: bool) -> u64 {
    if sign {
        fmt.sign_mask()
    } else {
        0
    }
}

fn overflow_result(fmt: FFmt, sign: bool, rm: Round, ovf: Overflow) -> u64 {
    let s = zero(fmt, sign);
    let to_inf = match rm {
        Round::Rn => true,
        Round::Rz => false,
        Round::Rm => sign,
        Round::Rp => !sign,
    };
    if to_inf && ovf == Overflow::Ieee {
        // E4M3 has no infinity: its "inf" is the NaN pattern, as OCP specifies for non-saturating conversion.
        s | fmt.inf()
    } else {
        s | fmt.max_finite()
    }
}

/// Round the exact value (-1)^sign * (sig + s) * 2^exp, where 0 < s < 1 when `sticky`, into `fmt`.
/// `sig` must be nonzero. Subnormal results are kept (flush is the caller's choice).
pub fn round_pack(fmt: FFmt, sign: bool, exp: i32, sig: u128, sticky: bool, rm: Round, ovf: Overflow) -> u64 {
    debug_assert!(sig != 0);
    let man = fmt.man_bits() as i32;
    let p = 127 - sig.leading_zeros() as i32;
    let e = p + exp;
    let emin = 1 - fmt.bias();
    let q = e.max(emin) - man;
    let shift = q - exp;
    let (m, rbit, st) = if shift > 0 {
        if shift >= 129 {
            (0u128, false, true)
        } else if shift == 128 {
            (0u128, sig >> 127 != 0, sig << 1 != 0)
        } else {
            let m = sig >> shift;
            let rb = (sig >> (shift - 1)) & 1 != 0;
            let rest = if shift >= 2 { sig & ((1u128 << (shift - 1)) - 1) != 0 } else { false };
            (m, rb, rest)
        }
    } else {
        (sig << (-shift) as u32, false, false)
    };
    let st = st || sticky;
    let inexact = rbit || st;
    let inc = match rm {
        Round::Rn => rbit && (st || m & 1 == 1),
        Round::Rz => false,
        Round::Rm => sign && inexact,
        Round::Rp => !sign && inexact,
    };
    let mut m = m + inc as u128;
    let mut q = q;
    if m >> (man + 1) != 0 {
        m >>= 1;
        q += 1;
    }
    let biased: i64 = if m >> man != 0 { (q + man + fmt.bias()) as i64 } else { 0 };
    let limit = fmt.max_finite();
    if biased > fmt.exp_all_ones() as i64 {
        return overflow_result(fmt, sign, rm, ovf);
    }
    let enc = ((biased as u64) << man) | (m as u64 & ((1u64 << man) - 1));
    if enc > limit {
        return overflow_result(fmt, sign, rm, ovf);
    }
    zero(fmt, sign) | enc
}

/// Pick the NaN result of an operation whose NaN operands are `nans` (in operand order).
pub fn nan_result(fmt: FFmt, rule: NanRule, nans: &[u64]) -> u64 {
    match rule {
        NanRule::NvCanonical => fmt.nv_nan(),
        NanRule::DefaultQuiet => fmt.qnan(),
        NanRule::NvF64 | NanRule::NvF64Mma | NanRule::NvFirst => {
            let order: &[usize] = if rule == NanRule::NvFirst { &[0, 1, 2] } else { &[1, 2, 0] };
            for &i in order {
                if let Some(&n) = nans.get(i) {
                    if is_nan(fmt, n) {
                        return n | (1 << (fmt.man_bits() - 1));
                    }
                }
            }
            if rule == NanRule::NvF64Mma { fmt.qnan() | fmt.sign_mask() } else { fmt.nv_nan() }
        }
        NanRule::Keep => nans.iter().copied().find(|n| is_nan(fmt, *n)).unwrap_or(fmt.qnan() | fmt.sign_mask()),
        NanRule::Propagate | NanRule::PropagateNeg => {
            for &n in nans {
                if is_nan(fmt, n) {
                    return match fmt {
                        FFmt::E4M3 => n,
                        _ => n | (1 << (fmt.man_bits() - 1)),
                    };
                }
            }
            if rule == NanRule::PropagateNeg { fmt.qnan() | fmt.sign_mask() } else { fmt.qnan() }
        }
    }
}

fn finish(fmt: FFmt, mode: &FloatMode, r: u64) -> u64 {
    let mut r = r;
    if mode.ftz_out {
        r = flush(fmt, r);
    }
    if mode.sat {
        r = saturate01(fmt, r);
    }
    r
}

/// Clamp to [0, 1]: NaN and negative values (and -0) become +0.
pub fn saturate01(fmt: FFmt, r: u64) -> u64 {
    if is_nan(fmt, r) || r & fmt.sign_mask() != 0 {
        return 0;
    }
    let one = (fmt.bias() as u64) << fmt.man_bits();
    if r > one {
        one
    } else {
        r
    }
}

fn prep(fmt: FFmt, mode: &FloatMode, x: u64) -> u64 {
    let x = x & fmt.all_mask();
    if mode.ftz_in {
        flush(fmt, x)
    } else {
        x
    }
}

/// Round (sign, exp, sig, sticky) with the mode's rounding, then apply FTZ and saturation.
fn pack_mode(fmt: FFmt, mode: &FloatMode, sign: bool, exp: i32, sig: u128, sticky: bool) -> u64 {
    // Flush-to-zero: an exact result below the smallest normal is tiny before rounding; after
    // rounding only if rounding to the full precision (unbounded exponent) stays below it.
    let emin = 1 - fmt.bias();
    let top = (127 - sig.leading_zeros() as i32) + exp;
    if mode.ftz_out && top < emin {
        let tiny = match mode.tininess {
            Tininess::BeforeRounding => true,
            // Only a value in [2^(emin-1), 2^emin) can round up to 2^emin: doubled, it rounds
            // at full precision, and reaching 2^(emin+1) means the carry.
            Tininess::AfterRounding => {
                top < emin - 1 || {
                    let r = round_pack(fmt, sign, exp + 1, sig, sticky, mode.round, Overflow::Ieee);
                    r & !fmt.sign_mask() & fmt.all_mask() < 2 << fmt.man_bits()
                }
            }
        };
        if tiny {
            return finish(fmt, mode, zero(fmt, sign));
        }
    }
    finish(fmt, mode, round_pack(fmt, sign, exp, sig, sticky, mode.round, Overflow::Ieee))
}

/// Sum of two exact nonzero values; returns None for an exact zero result.
fn add_exact(s1: bool, e1: i32, g1: u128, s2: bool, e2: i32, g2: u128) -> Option<(bool, i32, u128)> {
    // Normalize both so the msb sits at bit 125, then align the smaller one with a sticky bit.
    let n1 = g1.leading_zeros() as i32 - 2;
    let n2 = g2.leading_zeros() as i32 - 2;
    let (a, ea) = (g1 << n1, e1 - n1);
    let (b, eb) = (g2 << n2, e2 - n2);
    let ((sx, ex, x), (sy, ey, y)) = if ea >= eb { ((s1, ea, a), (s2, eb, b)) } else { ((s2, eb, b), (s1, ea, a)) };
    let d = (ex - ey) as u32;
    let y = if d == 0 {
        y
    } else if d >= 127 {
        1
    } else {
        (y >> d) | ((y & ((1u128 << d) - 1) != 0) as u128)
    };
    if sx == sy {
        Some((sx, ex, x + y))
    } else {
        match x.cmp(&y) {
            Ordering::Equal => None,
            Ordering::Greater => Some((sx, ex, x - y)),
            Ordering::Less => Some((sy, ex, y - x)),
        }
    }
}

fn exact_zero_sign(rm: Round) -> bool {
    rm == Round::Rm
}

/// a + b.
pub fn add(fmt: FFmt, mode: &FloatMode, a: u64, b: u64) -> u64 {
    let (a, b) = (prep(fmt, mode, a), prep(fmt, mode, b));
    let (x, y) = (unpack(fmt, a), unpack(fmt, b));
    if x.class == Class::Nan || y.class == Class::Nan {
        return finish(fmt, mode, nan_result(fmt, mode.nan, &[a, b]));
    }
    let r = match (x.class, y.class) {
        (Class::Inf, Class::Inf) if x.sign != y.sign => nan_result(fmt, mode.nan, &[]),
        (Class::Inf, _) => a,
        (_, Class::Inf) => b,
        (Class::Zero, Class::Zero) => {
            if x.sign == y.sign {
                a
            } else {
                zero(fmt, exact_zero_sign(mode.round))
            }
        }
        (Class::Zero, _) => return pack_mode(fmt, mode, y.sign, y.exp, y.sig, false),
        (_, Class::Zero) => return pack_mode(fmt, mode, x.sign, x.exp, x.sig, false),
        _ => match add_exact(x.sign, x.exp, x.sig, y.sign, y.exp, y.sig) {
            None => zero(fmt, exact_zero_sign(mode.round)),
            Some((s, e, g)) => return pack_mode(fmt, mode, s, e, g, false),
        },
    };
    finish(fmt, mode, r)
}

/// a - b.
pub fn sub(fmt: FFmt, mode: &FloatMode, a: u64, b: u64) -> u64 {
    let b = b & fmt.all_mask();
    if is_nan(fmt, b) {
        return add(fmt, mode, a, b);
    }
    add(fmt, mode, a, b ^ fmt.sign_mask())
}

/// a * b; with `fmz`, a zero operand gives +0 whatever the other one is (NaN and infinity included).
pub fn mul(fmt: FFmt, mode: &FloatMode, fmz: bool, a: u64, b: u64) -> u64 {
    let (a, b) = (prep(fmt, mode, a), prep(fmt, mode, b));
    let (x, y) = (unpack(fmt, a), unpack(fmt, b));
    if fmz && (x.class == Class::Zero || y.class == Class::Zero) {
        return finish(fmt, mode, 0);
    }
    if x.class == Class::Nan || y.class == Class::Nan {
        return finish(fmt, mode, nan_result(fmt, mode.nan, &[a, b]));
    }
    let s = x.sign != y.sign;
    let r = match (x.class, y.class) {
        (Class::Inf, Class::Zero) | (Class::Zero, Class::Inf) => nan_result(fmt, mode.nan, &[]),
        (Class::Inf, _) | (_, Class::Inf) => zero(fmt, s) | fmt.inf(),
        (Class::Zero, _) | (_, Class::Zero) => zero(fmt, s),
        _ => return pack_mode(fmt, mode, s, x.exp + y.exp, x.sig * y.sig, false),
    };
    finish(fmt, mode, r)
}

/// The significand of `a` scaled into [0.5, 1) with `a`'s sign; infinities, zeros and NaNs
/// (after the NaN rule) come back as they are.
pub fn frexp_mant(fmt: FFmt, mode: &FloatMode, a: u64) -> u64 {
    let a = prep(fmt, mode, a);
    let x = unpack(fmt, a);
    match x.class {
        Class::Nan => finish(fmt, mode, nan_result(fmt, mode.nan, &[a])),
        Class::Inf | Class::Zero => finish(fmt, mode, a),
        Class::Finite => {
            let top = 127 - x.sig.leading_zeros() as i32;
            pack_mode(fmt, mode, x.sign, -(top + 1), x.sig, false)
        }
    }
}

/// The exponent e with `a` = m × 2^e, m in [0.5, 1); 0 for zeros, infinities and NaNs.
pub fn frexp_exp(fmt: FFmt, mode: &FloatMode, a: u64) -> i32 {
    let x = unpack(fmt, prep(fmt, mode, a));
    match x.class {
        Class::Finite => x.exp + 128 - x.sig.leading_zeros() as i32,
        _ => 0,
    }
}

/// a × 2^n with a single rounding (the exponent adjustment is exact; only a subnormal or
/// overflowing result rounds).
pub fn ldexp(fmt: FFmt, mode: &FloatMode, a: u64, n: i32) -> u64 {
    let a = prep(fmt, mode, a);
    let x = unpack(fmt, a);
    match x.class {
        Class::Nan => finish(fmt, mode, nan_result(fmt, mode.nan, &[a])),
        Class::Inf | Class::Zero => finish(fmt, mode, a),
        Class::Finite => pack_mode(fmt, mode, x.sign, x.exp + n.clamp(-10_000, 10_000), x.sig, false),
    }
}

/// a * b + c with a single rounding.
pub fn fma(fmt: FFmt, mode: &FloatMode, fmz: bool, a: u64, b: u64, c: u64) -> u64 {
    fma_scaled(fmt, mode, fmz, a, b, c, 0)
}

/// (a * b + c) × 2^k with a single rounding (zeros, infinities and NaNs as [`fma`] gives them).
pub fn fma_scaled(fmt: FFmt, mode: &FloatMode, fmz: bool, a: u64, b: u64, c: u64, k: i32) -> u64 {
    let k = k.clamp(-10_000, 10_000);
    let (a, b, c) = (prep(fmt, mode, a), prep(fmt, mode, b), prep(fmt, mode, c));
    let (x, y, z) = (unpack(fmt, a), unpack(fmt, b), unpack(fmt, c));
    let pzero_fmz = fmz && (x.class == Class::Zero || y.class == Class::Zero);
    // Under `Keep` and `PropagateNeg` (AMD) an invalid product (inf × 0) gives the invalid NaN
    // even when the addend is a NaN (RDNA2 F32ArithmeticNan, IEEE off and on:
    // fma(inf, 0, qNaN) = 0xffc00000).
    let invalid_product =
        !pzero_fmz && matches!((x.class, y.class), (Class::Inf, Class::Zero) | (Class::Zero, Class::Inf));
    let invalid_first = matches!(mode.nan, NanRule::Keep | NanRule::PropagateNeg);
    let addend_nan = z.class == Class::Nan && !(invalid_first && invalid_product);
    if !pzero_fmz && (x.class == Class::Nan || y.class == Class::Nan) || addend_nan {
        return finish(fmt, mode, nan_result(fmt, mode.nan, &[a, b, c]));
    }
    let ps = x.sign != y.sign;
    // Product class.
    let pclass = if pzero_fmz {
        Class::Zero
    } else {
        match (x.class, y.class) {
            (Class::Inf, Class::Zero) | (Class::Zero, Class::Inf) => {
                return finish(fmt, mode, nan_result(fmt, mode.nan, &[]));
            }
            (Class::Inf, _) | (_, Class::Inf) => Class::Inf,
            (Class::Zero, _) | (_, Class::Zero) => Class::Zero,
            _ => Class::Finite,
        }
    };
    let ps = if pzero_fmz { false } else { ps };
    let r = match (pclass, z.class) {
        (Class::Inf, Class::Inf) if ps != z.sign => nan_result(fmt, mode.nan, &[]),
        (Class::Inf, _) => zero(fmt, ps) | fmt.inf(),
        (_, Class::Inf) => c,
        (Class::Zero, Class::Zero) => {
            if ps == z.sign {
                zero(fmt, ps)
            } else {
                zero(fmt, exact_zero_sign(mode.round))
            }
        }
        (Class::Zero, _) => return pack_mode(fmt, mode, z.sign, z.exp + k, z.sig, false),
        (_, Class::Zero) => return pack_mode(fmt, mode, ps, x.exp + y.exp + k, x.sig * y.sig, false),
        _ => match add_exact(ps, x.exp + y.exp, x.sig * y.sig, z.sign, z.exp, z.sig) {
            None => zero(fmt, exact_zero_sign(mode.round)),
            Some((s, e, g)) => return pack_mode(fmt, mode, s, e + k, g, false),
        },
    };
    finish(fmt, mode, r)
}

/// a / b, correctly rounded.
pub fn div(fmt: FFmt, mode: &FloatMode, a: u64, b: u64) -> u64 {
    let (a, b) = (prep(fmt, mode, a), prep(fmt, mode, b));
    let (x, y) = (unpack(fmt, a), unpack(fmt, b));
    if x.class == Class::Nan || y.class == Class::Nan {
        return finish(fmt, mode, nan_result(fmt, mode.nan, &[a, b]));
    }
    let s = x.sign != y.sign;
    let r = match (x.class, y.class) {
        (Class::Inf, Class::Inf) | (Class::Zero, Class::Zero) => nan_result(fmt, mode.nan, &[]),
        (Class::Inf, _) | (_, Class::Zero) => zero(fmt, s) | fmt.inf(),
        (Class::Zero, _) | (_, Class::Inf) => zero(fmt, s),
        _ => {
            let n = x.sig.leading_zeros() as i32 - 1;
            let num = x.sig << n;
            let q = num / y.sig;
            let rem = num % y.sig;
            return pack_mode(fmt, mode, s, x.exp - n - y.exp, q, rem != 0);
        }
    };
    finish(fmt, mode, r)
}

/// Integer square root of a u128 and whether it was inexact.
fn isqrt(v: u128) -> (u128, bool) {
    let mut res: u128 = 0;
    let mut rem = v;
    let mut bit: u128 = 1 << 126;
    while bit > v {
        bit >>= 2;
    }
    while bit != 0 {
        if rem >= res + bit {
            rem -= res + bit;
            res = (res >> 1) + bit;
        } else {
            res >>= 1;
        }
        bit >>= 2;
    }
    (res, rem != 0)
}

/// Square root, correctly rounded; sqrt(-0) = -0, negative nonzero inputs give NaN.
pub fn sqrt(fmt: FFmt, mode: &FloatMode, a: u64) -> u64 {
    let a = prep(fmt, mode, a);
    let x = unpack(fmt, a);
    let r = match x.class {
        Class::Nan => nan_result(fmt, mode.nan, &[a]),
        Class::Zero => a,
        _ if x.sign => nan_result(fmt, mode.nan, &[]),
        Class::Inf => a,
        Class::Finite => {
            let mut n = x.sig.leading_zeros() as i32 - 2;
            if (x.exp - n) & 1 != 0 {
                n -= 1;
            }
            let (r, inexact) = isqrt(x.sig << n);
            return pack_mode(fmt, mode, false, (x.exp - n) / 2, r, inexact);
        }
    };
    finish(fmt, mode, r)
}

/// Convert between float formats with the given rounding.
pub fn convert(from: FFmt, to: FFmt, mode: &FloatMode, ovf: Overflow, a: u64) -> u64 {
    let a = prep(from, mode, a);
    let x = unpack(from, a);
    let r = match x.class {
        Class::Nan => match mode.nan {
            NanRule::Propagate => {
                if to == FFmt::E4M3 {
                    zero(to, x.sign) | 0x7f
                } else {
                    // Keep the top payload bits, quiet.
                    let (fm, tm) = (from.man_bits() as i32, to.man_bits() as i32);
                    let payload = if fm >= tm { (x.sig as u64) >> (fm - tm) } else { (x.sig as u64) << (tm - fm) };
                    zero(to, x.sign) | to.inf() | payload | (1 << (tm - 1))
                }
            }
            rule => nan_result(to, rule, &[]),
        },
        Class::Inf => match (to.has_inf(), ovf) {
            (true, Overflow::Ieee) => zero(to, x.sign) | to.inf(),
            (_, Overflow::SatFinite) => zero(to, x.sign) | to.max_finite(),
            (false, Overflow::Ieee) => zero(to, x.sign) | to.inf(),
        },
        Class::Zero => zero(to, x.sign),
        Class::Finite => {
            return finish(to, mode, round_pack(to, x.sign, x.exp, x.sig, false, mode.round, ovf));
        }
    };
    finish(to, mode, r)
}

/// Round to an integral value in the same format.
pub fn round_int(fmt: FFmt, mode: &FloatMode, a: u64) -> u64 {
    let a = prep(fmt, mode, a);
    let x = unpack(fmt, a);
    let r = match x.class {
        Class::Nan => nan_result(fmt, mode.nan, &[a]),
        Class::Inf | Class::Zero => a,
        Class::Finite => {
            if x.exp >= 0 {
                a
            } else {
                match round_to_integer(x.sign, x.exp, x.sig, mode.round) {
                    0 => zero(fmt, x.sign),
                    n => round_pack(fmt, x.sign, 0, n, false, Round::Rz, Overflow::Ieee),
                }
            }
        }
    };
    finish(fmt, mode, r)
}

/// Round the magnitude sig * 2^exp of a value with the given sign to an integer magnitude.
/// Results larger than 2^127 saturate at u128::MAX.
pub fn round_to_integer(sign: bool, exp: i32, sig: u128, rm: Round) -> u128 {
    if exp >= 0 {
        if exp >= 127 || (sig.leading_zeros() as i32) < exp {
            return u128::MAX;
        }
        return sig << exp;
    }
    let sh = (-exp) as u32;
    let (m, rb, st) = if sh >= 129 {
        (0, false, sig != 0)
    } else if sh == 128 {
        (0, sig >> 127 != 0, sig << 1 != 0)
    } else {
        (sig >> sh, (sig >> (sh - 1)) & 1 != 0, sh >= 2 && sig & ((1u128 << (sh - 1)) - 1) != 0)
    };
    let inexact = rb || st;
    let inc = match rm {
        Round::Rn => rb && (st || m & 1 == 1),
        Round::Rz => false,
        Round::Rm => sign && inexact,
        Round::Rp => !sign && inexact,
    };
    m + inc as u128
}

/// Float to integer conversion. `bits` is the integer width, `signed` its signedness.
/// Out-of-range values saturate; NaN gives 0 (NVIDIA `cvt` semantics).
pub fn to_int(fmt: FFmt, mode: &FloatMode, a: u64, bits: u32, signed: bool) -> u64 {
    let a = prep(fmt, mode, a);
    let x = unpack(fmt, a);
    let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let (min, max): (i128, i128) = if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    let v: i128 = match x.class {
        Class::Nan => 0,
        Class::Zero => 0,
        Class::Inf => {
            if x.sign {
                min
            } else {
                max
            }
        }
        Class::Finite => {
            let m = round_to_integer(x.sign, x.exp, x.sig, mode.round);
            let m = m.min(1u128 << 100) as i128;
            if x.sign {
                -m
            } else {
                m
            }
        }
    };
    (v.clamp(min, max) as u64) & mask
}

/// Integer to float conversion.
pub fn from_int(fmt: FFmt, mode: &FloatMode, v: u64, bits: u32, signed: bool) -> u64 {
    let v = if bits == 64 { v } else { v & ((1u64 << bits) - 1) };
    let (sign, mag) = if signed && bits < 64 && v >> (bits - 1) & 1 != 0 {
        (true, (1u128 << bits) - v as u128)
    } else if signed && bits == 64 && (v as i64) < 0 {
        (true, (v as i64).unsigned_abs() as u128)
    } else {
        (false, v as u128)
    };
    if mag == 0 {
        return 0;
    }
    finish(fmt, mode, round_pack(fmt, sign, 0, mag, false, mode.round, Overflow::Ieee))
}

/// Total order key used by comparisons: returns None for NaN, else a signed integer ordering
/// of the value where -0 and +0 compare equal.
fn cmp_key(fmt: FFmt, x: u64) -> Option<i128> {
    if is_nan(fmt, x) {
        return None;
    }
    let mag = (x & (fmt.all_mask() >> 1)) as i128;
    if x & fmt.sign_mask() != 0 {
        Some(-mag)
    } else {
        Some(mag)
    }
}

/// IEEE comparison: None when unordered.
pub fn compare(fmt: FFmt, ftz: bool, a: u64, b: u64) -> Option<Ordering> {
    let (a, b) = (a & fmt.all_mask(), b & fmt.all_mask());
    let (a, b) = if ftz { (flush(fmt, a), flush(fmt, b)) } else { (a, b) };
    Some(cmp_key(fmt, a)?.cmp(&cmp_key(fmt, b)?))
}

/// Flavour of a float minimum / maximum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MinMaxKind {
    /// IEEE 754-2008 minNum/maxNum: a quiet or signalling NaN operand is ignored; -0 < +0.
    Num,
    /// IEEE 754-2019 minimum/maximum: any NaN operand gives NaN; -0 < +0.
    NanPropagating,
    /// IEEE 754-2008 minNum/maxNum: a quiet NaN operand is ignored, a signalling NaN operand
    /// gives the NaN result of the mode's rule over the first signalling operand (so a
    /// signalling NaN wins over a quiet one); -0 < +0.
    Num2008,
}

/// Minimum (`max == false`) or maximum of two values.
pub fn min_max(fmt: FFmt, mode: &FloatMode, kind: MinMaxKind, max: bool, a: u64, b: u64) -> u64 {
    let (a, b) = (prep(fmt, mode, a), prep(fmt, mode, b));
    let (na, nb) = (is_nan(fmt, a), is_nan(fmt, b));
    let quiet_bit = 1u64 << (fmt.man_bits() - 1);
    let signalling = |x: u64, n: bool| n && x & quiet_bit == 0;
    if kind == MinMaxKind::Num2008 && (signalling(a, na) || signalling(b, nb)) {
        let first_snan = if signalling(a, na) { a } else { b };
        return finish(fmt, mode, nan_result(fmt, mode.nan, &[first_snan]));
    }
    let kind = match kind {
        MinMaxKind::Num2008 => MinMaxKind::Num,
        k => k,
    };
    let r = if na || nb {
        match kind {
            MinMaxKind::Num if !(na && nb) => {
                if na {
                    b
                } else {
                    a
                }
            }
            _ => nan_result(fmt, mode.nan, &[a, b]),
        }
    } else {
        let key = |x: u64| {
            let mag = (x & (fmt.all_mask() >> 1)) as i128;
            if x & fmt.sign_mask() != 0 {
                -mag - 1
            } else {
                mag
            }
        };
        let a_lt_b = key(a) < key(b);
        if a_lt_b != max {
            a
        } else {
            b
        }
    };
    finish(fmt, mode, r)
}
