//! Models of the approximate transcendental units (NVIDIA MUFU, AMD v_sin/v_exp/...).
//!
//! The hardware tables are not public, so the interpreter uses the *correctly rounded* value of
//! the exact function, evaluated with f64 series that use only +, -, *, / (which are exact IEEE
//! operations on every host, so results are deterministic) and rounded to the target with the
//! software rounding of [`super::round_pack`]. The distance between this model and the hardware
//! is pinned per operation in `tests/hw_ptx.rs` and documented in the crate README.

use super::{flush, is_nan, unpack, Class, FFmt, Overflow, Round};

/// An approximate function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ApproxFn {
    /// sin(2π·x): input in revolutions (NVIDIA MUFU.SIN; AMD v_sin_f32 takes revolutions too).
    SinRev,
    /// cos(2π·x): input in revolutions.
    CosRev,
    /// 2^x.
    Ex2,
    /// log2(x).
    Lg2,
    /// 1/x.
    Rcp,
    /// 1/sqrt(x).
    Rsq,
    /// sqrt(x).
    Sqrt,
    /// tanh(x).
    Tanh,
}

impl ApproxFn {
    /// All functions.
    pub const ALL: [ApproxFn; 8] = [
        ApproxFn::SinRev,
        ApproxFn::CosRev,
        ApproxFn::Ex2,
        ApproxFn::Lg2,
        ApproxFn::Rcp,
        ApproxFn::Rsq,
        ApproxFn::Sqrt,
        ApproxFn::Tanh,
    ];
    /// Text name.
    pub const fn name(self) -> &'static str {
        match self {
            ApproxFn::SinRev => "sinrev",
            ApproxFn::CosRev => "cosrev",
            ApproxFn::Ex2 => "ex2",
            ApproxFn::Lg2 => "lg2",
            ApproxFn::Rcp => "rcp",
            ApproxFn::Rsq => "rsq",
            ApproxFn::Sqrt => "sqrt",
            ApproxFn::Tanh => "tanh",
        }
    }
}

const LN2: f64 = std::f64::consts::LN_2;
const PI: f64 = std::f64::consts::PI;

fn f64_of(fmt: FFmt, bits: u64) -> f64 {
    let u = unpack(fmt, bits);
    match u.class {
        Class::Zero => {
            if u.sign {
                -0.0
            } else {
                0.0
            }
        }
        Class::Inf => {
            if u.sign {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            }
        }
        Class::Nan => f64::NAN,
        // Formats up to f32 convert exactly; f64 is itself.
        Class::Finite => {
            if fmt == FFmt::F64 {
                f64::from_bits(bits)
            } else {
                let m = u.sig as f64;
                let v = ldexp(m, u.exp);
                if u.sign {
                    -v
                } else {
                    v
                }
            }
        }
    }
}

/// x * 2^e computed exactly by multiplying with exact powers of two (no libm).
fn ldexp(mut x: f64, mut e: i32) -> f64 {
    while e > 1000 {
        x *= f64::from_bits(((1000 + 1023) as u64) << 52);
        e -= 1000;
    }
    while e < -1000 {
        x *= f64::from_bits(((-1000 + 1023) as u64) << 52);
        e += 1000;
    }
    x * f64::from_bits(((e + 1023) as u64) << 52)
}

/// e^y - 1 for |y| <= 0.75 by its Taylor series.
fn expm1_small(y: f64) -> f64 {
    let mut term = y;
    let mut sum = y;
    let mut k = 2.0;
    while k < 30.0 {
        term *= y / k;
        sum += term;
        k += 1.0;
    }
    sum
}

fn round_half_even(x: f64) -> f64 {
    // x is finite with |x| < 2^52 here; adding and subtracting 2^52 rounds to nearest even.
    let c = 4503599627370496.0;
    if x >= 0.0 {
        (x + c) - c
    } else {
        (x - c) + c
    }
}

fn exp2(x: f64) -> f64 {
    if x > 1100.0 {
        return f64::INFINITY;
    }
    if x < -1200.0 {
        return 0.0;
    }
    let n = round_half_even(x);
    let f = x - n;
    (1.0 + expm1_small(f * LN2)) * pow2(n as i32)
}

fn pow2(n: i32) -> f64 {
    ldexp(1.0, n)
}

fn ln(x: f64) -> f64 {
    // x > 0 finite.
    let bits = x.to_bits();
    let mut e = ((bits >> 52) & 0x7ff) as i32;
    let mut m = x;
    if e == 0 {
        m = x * pow2(60);
        e = ((m.to_bits() >> 52) & 0x7ff) as i32 - 60;
    }
    let mut e = e - 1023;
    m = f64::from_bits((m.to_bits() & ((1u64 << 52) - 1)) | (1023u64 << 52));
    if m > std::f64::consts::SQRT_2 {
        m *= 0.5;
        e += 1;
    }
    let t = (m - 1.0) / (m + 1.0);
    let t2 = t * t;
    let mut term = t;
    let mut sum = 0.0;
    let mut k = 1.0;
    while k < 60.0 {
        sum += term / k;
        term *= t2;
        k += 2.0;
    }
    2.0 * sum + e as f64 * LN2
}

/// sin and cos of 2π·r for finite r (f64 holding an exactly representable input).
fn sincos_rev(r: f64) -> (f64, f64) {
    // Reduce to quarter turns: r4 = 4r exactly, q = nearest integer, f in [-0.5, 0.5].
    let r4 = 4.0 * r;
    let q = if r4.abs() >= 4503599627370496.0 { r4 } else { round_half_even(r4) };
    let f = r4 - q;
    let a = f * (PI / 2.0);
    let a2 = a * a;
    let (mut s, mut c) = (0.0, 0.0);
    let (mut ts, mut tc) = (a, 1.0);
    let mut k = 1.0;
    while k < 40.0 {
        s += ts;
        c += tc;
        ts *= -a2 / ((k + 1.0) * (k + 2.0));
        tc *= -a2 / (k * (k + 1.0));
        k += 2.0;
    }
    // q mod 4 (q may be huge, so take it from the binary expansion).
    let qm = if q.abs() >= 9007199254740992.0 {
        0
    } else {
        (q.rem_euclid(4.0)) as i32
    };
    match qm {
        0 => (s, c),
        1 => (c, -s),
        2 => (-s, -c),
        _ => (-c, s),
    }
}

fn round_f64_to(fmt: FFmt, v: f64) -> u64 {
    super::convert(FFmt::F64, fmt, &super::FloatMode::nv(Round::Rn), Overflow::Ieee, v.to_bits())
}

/// Evaluate the model: the exact function of the (optionally flushed) input, rounded to nearest.
pub fn eval(func: ApproxFn, fmt: FFmt, ftz: bool, a: u64) -> u64 {
    let a = a & fmt.all_mask();
    let a = if ftz { flush(fmt, a) } else { a };
    let nan = fmt.nv_nan();
    if is_nan(fmt, a) {
        return nan;
    }
    let x = f64_of(fmt, a);
    let r = match func {
        ApproxFn::SinRev | ApproxFn::CosRev => {
            if x.is_infinite() {
                return nan;
            }
            let (s, c) = sincos_rev(x);
            let v = if func == ApproxFn::SinRev { s } else { c };
            // sin keeps the sign of a zero input.
            if func == ApproxFn::SinRev && x == 0.0 {
                x
            } else {
                v
            }
        }
        ApproxFn::Ex2 => {
            if x == f64::NEG_INFINITY {
                0.0
            } else if x == f64::INFINITY {
                x
            } else {
                exp2(x)
            }
        }
        ApproxFn::Lg2 => {
            if x == 0.0 {
                f64::NEG_INFINITY
            } else if x < 0.0 {
                return nan;
            } else if x.is_infinite() {
                x
            } else {
                ln(x) / LN2
            }
        }
        ApproxFn::Rcp => 1.0 / x,
        ApproxFn::Rsq => {
            if x == 0.0 {
                1.0 / x
            } else if x < 0.0 {
                return nan;
            } else {
                let r = super::sqrt(FFmt::F64, &super::FloatMode::NV_RN, x.to_bits());
                1.0 / f64::from_bits(r)
            }
        }
        ApproxFn::Sqrt => {
            if x < 0.0 {
                return nan;
            }
            f64::from_bits(super::sqrt(FFmt::F64, &super::FloatMode::NV_RN, x.to_bits()))
        }
        ApproxFn::Tanh => {
            if x.is_infinite() {
                x.signum()
            } else if x == 0.0 {
                x
            } else if x.abs() > 20.0 {
                x.signum()
            } else {
                let y = 2.0 * x;
                let em1 = if y.abs() <= 0.75 { expm1_small(y) } else { exp2(y / LN2) - 1.0 };
                em1 / (em1 + 2.0)
            }
        }
    };
    let r = round_f64_to(fmt, r);
    if ftz {
        flush(fmt, r)
    } else {
        r
    }
}
