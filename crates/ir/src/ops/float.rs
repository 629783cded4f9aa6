//! Float arithmetic: add, sub, mul, fma, div, sqrt, min/max, round-to-integral, canonicalize,
//! abs, neg, compare. Every rounding op carries its rounding mode, FTZ, saturation, FMZ and NaN
//! rule; AMD's output modifiers (omod, clamp) are fields too.

use crate::soft::{self, FFmt, FloatMode, MinMaxKind, NanRule, Round, Tininess};
use std::cmp::Ordering;

/// Which float operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatKind {
    /// a + b.
    Add,
    /// a - b.
    Sub,
    /// a * b.
    Mul,
    /// a * b + c, single rounding.
    Fma,
    /// a / b, correctly rounded.
    Div,
    /// sqrt(a), correctly rounded.
    Sqrt,
    /// Minimum of a and b.
    Min(MinMaxKind),
    /// Maximum of a and b.
    Max(MinMaxKind),
    /// Round to an integral value in the same format (uses the mode's rounding).
    RoundInt,
    /// Canonicalize: apply FTZ, saturation and the NaN rule, nothing else.
    Canon,
    /// |a| (a sign-bit operation; NaN follows the NaN rule unless it is `propnan`).
    Abs,
    /// -a (a sign-bit operation; NaN follows the NaN rule unless it is `propnan`).
    Neg,
    /// a × 2^b, b an i32 operand, with one rounding.
    Ldexp,
    /// The significand of a in [0.5, 1) with a's sign (infinities, zeros, NaNs as they are).
    FrexpMant,
    /// The 53-bit slice b (an i32 operand) of 2/π for reducing the f64 a
    /// ([`soft::trig::two_over_pi_slice`]).
    TwoOverPiSlice,
    /// Cube-map coordinate of the direction (a, b, c) = (x, y, z) ([`CubeKind`]).
    Cube(CubeKind),
    /// a.lo × b.lo + a.hi × b.hi + c with one rounding: a and b are `<2 x f16>`, c and the
    /// result f32 ([`soft::dot::dot2`]).
    Dot2,
    /// a0 × b0 + ... + a(n-1) × b(n-1) + c with aligned, truncated summands and one rounding
    /// ([`soft::blockdot`]); operands a0..a(n-1), b0..b(n-1), c.
    BlockDot(soft::blockdot::BlockDot),
}

/// What a cube-map op gives for a direction (x, y, z). The major axis is z when
/// |z| >= |x| and |z| >= |y|, else y when |y| >= |x|, else x (a NaN compares false, so it
/// is never chosen over a number); "negative" is strictly below zero (-0 and NaN are not).
///
/// | major | face | s | t | major axis |
/// |---|---|---|---|---|
/// | z | 4, or 5 when z < 0 | x, or -x when z < 0 | -y | z |
/// | y | 2, or 3 when y < 0 | x | z, or -z when y < 0 | y |
/// | x | 0, or 1 when x < 0 | -z, or z when x < 0 | -y | x |
///
/// Negation flips the sign bit (NaNs too).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CubeKind {
    /// The face number 0-5 as a float.
    Face,
    /// The s coordinate before the divide by the major axis.
    S,
    /// The t coordinate before the divide by the major axis.
    T,
    /// Twice the major axis component, rounded once (the mode's rounding; it is exact unless
    /// it overflows).
    Major2,
}

impl CubeKind {
    const fn name(self) -> &'static str {
        match self {
            CubeKind::Face => "fcubeid",
            CubeKind::S => "fcubesc",
            CubeKind::T => "fcubetc",
            CubeKind::Major2 => "fcubema",
        }
    }
}

/// The cube-map op `kind` on the direction (x, y, z) of format `fmt`; inputs are flushed
/// first under `ftz_in`, and results under `ftz_out`.
fn cube(fmt: FFmt, m: &FloatMode, kind: CubeKind, x: u64, y: u64, z: u64) -> u64 {
    let fl = |v: u64| if m.ftz_in { soft::flush(fmt, v & fmt.all_mask()) } else { v & fmt.all_mask() };
    let (x, y, z) = (fl(x), fl(y), fl(z));
    let ge_abs = |a: u64, b: u64| {
        let s = fmt.sign_mask();
        matches!(soft::compare(fmt, false, a & !s, b & !s), Some(Ordering::Greater | Ordering::Equal))
    };
    let neg = |v: u64| v ^ fmt.sign_mask();
    let below0 = |v: u64| matches!(soft::compare(fmt, false, v, 0), Some(Ordering::Less));
    let one = |n: u64| soft::from_int(fmt, &FloatMode::nv(Round::Rn), n, 32, false);
    let (face, s, t, major) = if ge_abs(z, x) && ge_abs(z, y) {
        let n = below0(z);
        (if n { 5 } else { 4 }, if n { neg(x) } else { x }, neg(y), z)
    } else if ge_abs(y, x) {
        let n = below0(y);
        (if n { 3 } else { 2 }, x, if n { neg(z) } else { z }, y)
    } else {
        let n = below0(x);
        (if n { 1 } else { 0 }, if n { z } else { neg(z) }, neg(y), x)
    };
    let r = match kind {
        CubeKind::Face => one(face),
        CubeKind::S => s,
        CubeKind::T => t,
        CubeKind::Major2 => soft::add(fmt, &FloatMode { ftz_in: false, ..*m }, major, major),
    };
    if m.ftz_out {
        soft::flush(fmt, r)
    } else {
        r
    }
}

impl FloatKind {
    /// Number of operands.
    pub const fn arity(self) -> usize {
        match self {
            FloatKind::BlockDot(d) => d.arity(),
            FloatKind::Fma | FloatKind::Cube(_) | FloatKind::Dot2 => 3,
            FloatKind::Sqrt
            | FloatKind::RoundInt
            | FloatKind::Canon
            | FloatKind::Abs
            | FloatKind::Neg
            | FloatKind::FrexpMant => 1,
            _ => 2,
        }
    }
    const fn base(self) -> &'static str {
        match self {
            FloatKind::Add => "fadd",
            FloatKind::Sub => "fsub",
            FloatKind::Mul => "fmul",
            FloatKind::Fma => "ffma",
            FloatKind::Div => "fdiv",
            FloatKind::Sqrt => "fsqrt",
            FloatKind::Min(MinMaxKind::Num) => "fmin",
            FloatKind::Max(MinMaxKind::Num) => "fmax",
            FloatKind::Min(MinMaxKind::NanPropagating) => "fminimum",
            FloatKind::Max(MinMaxKind::NanPropagating) => "fmaximum",
            FloatKind::Min(MinMaxKind::Num2008) => "fmin2008",
            FloatKind::Max(MinMaxKind::Num2008) => "fmax2008",
            FloatKind::RoundInt => "frint",
            FloatKind::Canon => "fcanon",
            FloatKind::Abs => "fabs",
            FloatKind::Neg => "fneg",
            FloatKind::Ldexp => "fldexp",
            FloatKind::FrexpMant => "ffrexpmant",
            FloatKind::TwoOverPiSlice => "ftwooverpi",
            FloatKind::Cube(k) => k.name(),
            FloatKind::Dot2 => "fdot2",
            FloatKind::BlockDot(_) => "fblockdot",
        }
    }
    const ALL: [FloatKind; 24] = [
        FloatKind::Dot2,
        FloatKind::Cube(CubeKind::Face),
        FloatKind::Cube(CubeKind::S),
        FloatKind::Cube(CubeKind::T),
        FloatKind::Cube(CubeKind::Major2),
        FloatKind::TwoOverPiSlice,
        FloatKind::Min(MinMaxKind::Num2008),
        FloatKind::Max(MinMaxKind::Num2008),
        FloatKind::Ldexp,
        FloatKind::FrexpMant,
        FloatKind::Add,
        FloatKind::Sub,
        FloatKind::Mul,
        FloatKind::Fma,
        FloatKind::Div,
        FloatKind::Sqrt,
        FloatKind::Min(MinMaxKind::Num),
        FloatKind::Max(MinMaxKind::Num),
        FloatKind::Min(MinMaxKind::NanPropagating),
        FloatKind::Max(MinMaxKind::NanPropagating),
        FloatKind::RoundInt,
        FloatKind::Canon,
        FloatKind::Abs,
        FloatKind::Neg,
    ];
}

/// AMD output modifier: multiply the rounded result by 2, 4 or 0.5.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Omod {
    /// No output modifier.
    None,
    /// × 2.
    Mul2,
    /// × 4.
    Mul4,
    /// × 0.5.
    Div2,
}

/// Apply an output modifier to a rounded result `r` (rounding and FTZ of `mode`, no
/// saturation): a zero comes out as +0, a NaN unchanged, anything else is multiplied by 2, 4
/// or 0.5 with one rounding.
pub fn apply_omod(fmt: FFmt, mode: &FloatMode, omod: Omod, r: u64) -> u64 {
    let k = match omod {
        Omod::None => return r,
        Omod::Mul2 => 1,
        Omod::Mul4 => 2,
        Omod::Div2 => -1,
    };
    let two_k = ((fmt.bias() + k) as u64) << fmt.man_bits();
    let pm = FloatMode { sat: false, ..*mode };
    // A zero result comes out of the modifier as +0 (RDNA2 F32OutputModifier vectors:
    // -0 × 1 with mul:2, floor(-0) with div:2 and -0 + -0 with mul:2 give +0); a
    // result the modifier makes subnormal and flushes keeps its sign.
    // A NaN passes unchanged (signalling NaNs too: RDNA2 F32OutputModifier, v_max_f32
    // of two signalling NaNs with mul:2).
    if r & !fmt.sign_mask() & fmt.all_mask() == 0 {
        0
    } else if soft::is_nan(fmt, r) {
        r
    } else {
        soft::mul(fmt, &pm, false, r, two_k)
    }
}

/// A float arithmetic operation on a scalar or (element-wise) on a packed vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FloatOp {
    /// The operation.
    pub kind: FloatKind,
    /// Rounding, FTZ, saturation and NaN rule.
    pub mode: FloatMode,
    /// FMZ (DX9 legacy multiply): 0 × anything = +0 (mul and fma only).
    pub fmz: bool,
    /// ReLU: negative results become +0 (NVIDIA `.relu`; NaN stays NaN).
    pub relu: bool,
    /// AMD output modifier, applied to the rounded result before saturation.
    pub omod: Omod,
}

impl FloatOp {
    /// An operation with NVIDIA defaults (round to nearest, IEEE denormals, NVIDIA NaN).
    pub const fn nv(kind: FloatKind, round: Round) -> FloatOp {
        FloatOp { kind, mode: FloatMode::nv(round), fmz: false, relu: false, omod: Omod::None }
    }

    /// Evaluate on one element.
    pub fn eval(&self, fmt: FFmt, a: u64, b: u64, c: u64) -> u64 {
        let mut mode = self.mode;
        let post = self.relu || self.omod != Omod::None;
        let sat = mode.sat;
        if post {
            mode.sat = false;
        }
        let m = &mode;
        let r = match self.kind {
            FloatKind::Add => soft::add(fmt, m, a, b),
            FloatKind::Sub => soft::sub(fmt, m, a, b),
            FloatKind::Mul => soft::mul(fmt, m, self.fmz, a, b),
            FloatKind::Fma => soft::fma(fmt, m, self.fmz, a, b, c),
            FloatKind::Div => soft::div(fmt, m, a, b),
            FloatKind::Sqrt => soft::sqrt(fmt, m, a),
            FloatKind::Min(k) => soft::min_max(fmt, m, k, false, a, b),
            FloatKind::Max(k) => soft::min_max(fmt, m, k, true, a, b),
            FloatKind::RoundInt => soft::round_int(fmt, m, a),
            FloatKind::Ldexp => soft::ldexp(fmt, m, a, b as u32 as i32),
            FloatKind::FrexpMant => soft::frexp_mant(fmt, m, a),
            FloatKind::TwoOverPiSlice => soft::trig::two_over_pi_slice(m, a, b as u32),
            FloatKind::Cube(k) => cube(fmt, m, k, a, b, c),
            FloatKind::Dot2 => soft::dot::dot2(FFmt::F16, fmt, m, a, b, c),
            // Takes 2n + 1 operands: evaluated by [`FloatOp::eval_args`].
            FloatKind::BlockDot(d) => soft::blockdot::eval(d, fmt, m, &[a, b, c]),
            FloatKind::Canon | FloatKind::Abs | FloatKind::Neg => {
                let mut x = a & fmt.all_mask();
                if m.ftz_in {
                    x = soft::flush(fmt, x);
                }
                if soft::is_nan(fmt, x) && m.nan != NanRule::Propagate {
                    x = soft::nan_result(fmt, m.nan, &[x]);
                } else if self.kind == FloatKind::Abs {
                    x &= !fmt.sign_mask();
                } else if self.kind == FloatKind::Neg {
                    x ^= fmt.sign_mask();
                }
                if m.ftz_out {
                    x = soft::flush(fmt, x);
                }
                if m.sat {
                    x = soft::saturate01(fmt, x);
                }
                x
            }
        };
        if !post {
            return r;
        }
        let mut r = apply_omod(fmt, &mode, self.omod, r);
        if self.relu && !soft::is_nan(fmt, r) && r & fmt.sign_mask() != 0 {
            r = 0;
        }
        if sat {
            r = soft::saturate01(fmt, r);
        }
        r
    }

    /// Evaluate on one element with all operands (ops of more than three operands need this).
    pub fn eval_args(&self, fmt: FFmt, args: &[u64]) -> u64 {
        match self.kind {
            FloatKind::BlockDot(d) => soft::blockdot::eval(d, fmt, &self.mode, args),
            _ => {
                let a = |i: usize| args.get(i).copied().unwrap_or(0);
                self.eval(fmt, a(0), a(1), a(2))
            }
        }
    }

    /// Text mnemonic, e.g. `fadd.rz.ftz.sat`.
    pub fn mnemonic(&self) -> String {
        let mut s = String::from(self.kind.base());
        if let FloatKind::BlockDot(d) = self.kind {
            s.push_str(&format!(".n{}.{}.frac{}.keep{}", d.terms, d.elem.name(), d.frac, d.keep));
        }
        let rounds = !matches!(
            self.kind,
            FloatKind::Min(_) | FloatKind::Max(_) | FloatKind::Canon | FloatKind::Abs | FloatKind::Neg
        );
        if rounds || self.mode.round != Round::Rn {
            s.push('.');
            s.push_str(self.mode.round.name());
        }
        match (self.mode.ftz_in, self.mode.ftz_out) {
            (true, true) => s.push_str(".ftz"),
            (true, false) => s.push_str(".ftzi"),
            (false, true) => s.push_str(".ftzo"),
            _ => {}
        }
        if self.mode.ftz_out && self.mode.tininess == Tininess::AfterRounding {
            s.push_str(".tinyafter");
        }
        if self.mode.sat {
            s.push_str(".sat");
        }
        if self.fmz {
            s.push_str(".fmz");
        }
        if self.relu {
            s.push_str(".relu");
        }
        match self.omod {
            Omod::None => {}
            Omod::Mul2 => s.push_str(".omod2"),
            Omod::Mul4 => s.push_str(".omod4"),
            Omod::Div2 => s.push_str(".omodh"),
        }
        if self.mode.nan != NanRule::NvCanonical {
            s.push('.');
            s.push_str(self.mode.nan.name());
        }
        s
    }

    /// Parse a mnemonic split at dots.
    pub fn parse(base: &str, mods: &[&str]) -> Option<FloatOp> {
        let (kind, mods) = if base == "fblockdot" {
            let [n, e, frac, keep, rest @ ..] = mods else { return None };
            let elem = [FFmt::F16, FFmt::BF16, FFmt::F32, FFmt::F64].into_iter().find(|f| f.name() == *e)?;
            let d = soft::blockdot::BlockDot {
                terms: n.strip_prefix('n')?.parse().ok()?,
                elem,
                frac: frac.strip_prefix("frac")?.parse().ok()?,
                keep: keep.strip_prefix("keep")?.parse().ok()?,
            };
            (FloatKind::BlockDot(d), rest)
        } else {
            (*FloatKind::ALL.iter().find(|k| k.base() == base)?, mods)
        };
        let mut op = FloatOp::nv(kind, Round::Rn);
        for &m in mods {
            match m {
                "rn" => op.mode.round = Round::Rn,
                "rz" => op.mode.round = Round::Rz,
                "rm" => op.mode.round = Round::Rm,
                "rp" => op.mode.round = Round::Rp,
                "ftz" => {
                    op.mode.ftz_in = true;
                    op.mode.ftz_out = true
                }
                "ftzi" => op.mode.ftz_in = true,
                "ftzo" => op.mode.ftz_out = true,
                "sat" => op.mode.sat = true,
                "tinyafter" => op.mode.tininess = Tininess::AfterRounding,
                "fmz" => op.fmz = true,
                "relu" => op.relu = true,
                "omod2" => op.omod = Omod::Mul2,
                "omod4" => op.omod = Omod::Mul4,
                "omodh" => op.omod = Omod::Div2,
                "qnan" => op.mode.nan = NanRule::DefaultQuiet,
                "propnan" => op.mode.nan = NanRule::Propagate,
                "nvnan64" => op.mode.nan = NanRule::NvF64,
                "nvnan64mma" => op.mode.nan = NanRule::NvF64Mma,
                "nvnanfirst" => op.mode.nan = NanRule::NvFirst,
                "keepnan" => op.mode.nan = NanRule::Keep,
                "propnanneg" => op.mode.nan = NanRule::PropagateNeg,
                _ => return None,
            }
        }
        Some(op)
    }
}

/// Float comparison condition (PTX `setp` names; `u` suffix = true when unordered).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FCmp {
    /// Ordered equal.
    Eq,
    /// Ordered not equal.
    Ne,
    /// Ordered less.
    Lt,
    /// Ordered less or equal.
    Le,
    /// Ordered greater.
    Gt,
    /// Ordered greater or equal.
    Ge,
    /// Unordered or equal.
    Equ,
    /// Unordered or not equal.
    Neu,
    /// Unordered or less.
    Ltu,
    /// Unordered or less or equal.
    Leu,
    /// Unordered or greater.
    Gtu,
    /// Unordered or greater or equal.
    Geu,
    /// Both ordered (neither is NaN).
    Num,
    /// Either is NaN.
    Nan,
}

impl FCmp {
    const ALL: [(FCmp, &'static str); 14] = [
        (FCmp::Eq, "eq"),
        (FCmp::Ne, "ne"),
        (FCmp::Lt, "lt"),
        (FCmp::Le, "le"),
        (FCmp::Gt, "gt"),
        (FCmp::Ge, "ge"),
        (FCmp::Equ, "equ"),
        (FCmp::Neu, "neu"),
        (FCmp::Ltu, "ltu"),
        (FCmp::Leu, "leu"),
        (FCmp::Gtu, "gtu"),
        (FCmp::Geu, "geu"),
        (FCmp::Num, "num"),
        (FCmp::Nan, "nan"),
    ];
    /// Text name.
    pub fn name(self) -> &'static str {
        FCmp::ALL.iter().find(|(c, _)| *c == self).map(|(_, n)| *n).unwrap_or("?")
    }
    /// Parse a name.
    pub fn parse(s: &str) -> Option<FCmp> {
        FCmp::ALL.iter().find(|(_, n)| *n == s).map(|(c, _)| *c)
    }
    /// Evaluate on one pair of elements.
    pub fn eval(self, fmt: FFmt, ftz: bool, a: u64, b: u64) -> bool {
        let o = soft::compare(fmt, ftz, a, b);
        let un = o.is_none();
        let o = o.unwrap_or(Ordering::Equal);
        match self {
            FCmp::Eq => !un && o == Ordering::Equal,
            FCmp::Ne => !un && o != Ordering::Equal,
            FCmp::Lt => !un && o == Ordering::Less,
            FCmp::Le => !un && o != Ordering::Greater,
            FCmp::Gt => !un && o == Ordering::Greater,
            FCmp::Ge => !un && o != Ordering::Less,
            FCmp::Equ => un || o == Ordering::Equal,
            FCmp::Neu => un || o != Ordering::Equal,
            FCmp::Ltu => un || o == Ordering::Less,
            FCmp::Leu => un || o != Ordering::Greater,
            FCmp::Gtu => un || o == Ordering::Greater,
            FCmp::Geu => un || o != Ordering::Less,
            FCmp::Num => !un,
            FCmp::Nan => un,
        }
    }
}
