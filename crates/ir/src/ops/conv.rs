//! Conversions: float to float (with rounding, FTZ, saturation and `.satfinite`), float to
//! integer (rounding, saturation, NaN to 0), integer to float, integer extension and truncation.

use crate::soft::{self, FFmt, FloatMode, Overflow, Round};

/// A conversion. The source type is the operand's type, the destination the result's; on vectors
/// it applies element by element (both must have the same element count).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConvOp {
    /// Float to float.
    FToF {
        /// Rounding, FTZ, saturation, NaN rule.
        mode: FloatMode,
        /// Overflow saturates to the largest finite value (`.satfinite`); infinities too.
        satfinite: bool,
    },
    /// Float to integer: round with the mode's rounding, saturate to the range, NaN gives 0.
    FToI {
        /// Rounding and FTZ.
        mode: FloatMode,
        /// Destination is signed.
        signed: bool,
    },
    /// Integer to float.
    IToF {
        /// Rounding (and FTZ of the result).
        mode: FloatMode,
        /// Source is signed.
        signed: bool,
    },
    /// Integer (or b1) to integer: zero/sign extension or truncation.
    IToI {
        /// Sign-extend when widening.
        signed: bool,
    },
    /// Float to its binary exponent e (a = m × 2^e, m in [0.5, 1)) as a signed integer; 0 for
    /// zeros, infinities and NaNs. The mode's FTZ flushes the input.
    FrexpExp {
        /// FTZ of the input.
        mode: FloatMode,
    },
    /// Float to the one-hot bit of its IEEE 754 class ([`soft::class`]): bit 0 signalling NaN,
    /// 1 quiet NaN, 2 -inf, 3 -normal, 4 -subnormal, 5 -0, 6 +0, 7 +subnormal, 8 +normal,
    /// 9 +inf. Subnormals are never flushed.
    Class,
}

fn mode_mods(s: &mut String, mode: &FloatMode, with_round: bool) {
    if with_round {
        s.push('.');
        s.push_str(mode.round.name());
    }
    match (mode.ftz_in, mode.ftz_out) {
        (true, true) => s.push_str(".ftz"),
        (true, false) => s.push_str(".ftzi"),
        (false, true) => s.push_str(".ftzo"),
        _ => {}
    }
    if mode.ftz_out && mode.tininess == soft::Tininess::AfterRounding {
        s.push_str(".tinyafter");
    }
    if mode.sat {
        s.push_str(".sat");
    }
    if mode.nan != soft::NanRule::NvCanonical {
        s.push('.');
        s.push_str(mode.nan.name());
    }
}

fn parse_mode(mods: &[&str], extra: &mut dyn FnMut(&str) -> bool) -> Option<FloatMode> {
    let mut m = FloatMode::nv(Round::Rn);
    for &x in mods {
        match x {
            "rn" => m.round = Round::Rn,
            "rz" => m.round = Round::Rz,
            "rm" => m.round = Round::Rm,
            "rp" => m.round = Round::Rp,
            "ftz" => {
                m.ftz_in = true;
                m.ftz_out = true
            }
            "ftzi" => m.ftz_in = true,
            "ftzo" => m.ftz_out = true,
            "sat" => m.sat = true,
            "tinyafter" => m.tininess = soft::Tininess::AfterRounding,
            "qnan" => m.nan = soft::NanRule::DefaultQuiet,
            "propnan" => m.nan = soft::NanRule::Propagate,
            "nvnan64" => m.nan = soft::NanRule::NvF64,
            "nvnan64mma" => m.nan = soft::NanRule::NvF64Mma,
            "nvnanfirst" => m.nan = soft::NanRule::NvFirst,
            "keepnan" => m.nan = soft::NanRule::Keep,
            "propnanneg" => m.nan = soft::NanRule::PropagateNeg,
            other => {
                if !extra(other) {
                    return None;
                }
            }
        }
    }
    Some(m)
}

impl ConvOp {
    /// Text mnemonic.
    pub fn mnemonic(&self) -> String {
        let mut s;
        match self {
            ConvOp::FToF { mode, satfinite } => {
                s = String::from("fcvt");
                mode_mods(&mut s, mode, true);
                if *satfinite {
                    s.push_str(".satfinite");
                }
            }
            ConvOp::FToI { mode, signed } => {
                s = format!("f2i.{}", if *signed { "s" } else { "u" });
                mode_mods(&mut s, mode, true);
            }
            ConvOp::IToF { mode, signed } => {
                s = format!("i2f.{}", if *signed { "s" } else { "u" });
                mode_mods(&mut s, mode, true);
            }
            ConvOp::IToI { signed } => s = format!("iext.{}", if *signed { "s" } else { "u" }),
            ConvOp::Class => s = String::from("fclass"),
            ConvOp::FrexpExp { mode } => {
                s = String::from("frexpexp");
                mode_mods(&mut s, mode, false);
            }
        }
        s
    }

    /// Parse a mnemonic split at dots.
    pub fn parse(base: &str, mods: &[&str]) -> Option<ConvOp> {
        let sign = |m: Option<&&str>| match m.copied() {
            Some("s") => Some(true),
            Some("u") => Some(false),
            _ => None,
        };
        Some(match base {
            "fcvt" => {
                let mut sf = false;
                let mode = parse_mode(mods, &mut |x| {
                    sf = x == "satfinite";
                    sf
                })?;
                ConvOp::FToF { mode, satfinite: sf }
            }
            "f2i" => ConvOp::FToI { signed: sign(mods.first())?, mode: parse_mode(&mods[1..], &mut |_| false)? },
            "i2f" => ConvOp::IToF { signed: sign(mods.first())?, mode: parse_mode(&mods[1..], &mut |_| false)? },
            "iext" if mods.len() == 1 => ConvOp::IToI { signed: sign(mods.first())? },
            "frexpexp" => ConvOp::FrexpExp { mode: parse_mode(mods, &mut |_| false)? },
            "fclass" if mods.is_empty() => ConvOp::Class,
            _ => return None,
        })
    }

    /// Convert one element from `src` (format or integer width) to `dst`.
    pub fn eval(&self, src: Elem, dst: Elem, a: u64) -> u64 {
        match (*self, src, dst) {
            (ConvOp::FToF { mode, satfinite }, Elem::F(f), Elem::F(t)) => {
                let ovf = if satfinite { Overflow::SatFinite } else { Overflow::Ieee };
                soft::convert(f, t, &mode, ovf, a)
            }
            (ConvOp::FToI { mode, signed }, Elem::F(f), Elem::I(bits)) => soft::to_int(f, &mode, a, bits, signed),
            (ConvOp::IToF { mode, signed }, Elem::I(bits), Elem::F(t)) => soft::from_int(t, &mode, a, bits, signed),
            (ConvOp::FrexpExp { mode }, Elem::F(f), Elem::I(bits)) => {
                let m = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
                soft::frexp_exp(f, &mode, a) as i64 as u64 & m
            }
            (ConvOp::Class, Elem::F(f), Elem::I(bits)) => {
                let m = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
                soft::class(f, a) & m
            }
            (ConvOp::IToI { signed }, Elem::I(from), Elem::I(to)) => {
                let m = |b: u32| if b >= 64 { u64::MAX } else { (1u64 << b) - 1 };
                let v = a & m(from);
                let v = if signed && from < 64 && (v >> (from - 1)) & 1 != 0 { v | !m(from) } else { v };
                v & m(to)
            }
            _ => 0,
        }
    }
}

/// An element kind as conversions see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    /// Float format.
    F(FFmt),
    /// Integer (or b1) of the given width.
    I(u32),
}
