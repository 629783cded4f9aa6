//! Block dot product with aligned, truncated summands: a0 × b0 + ... + a(n-1) × b(n-1) + c,
//! the way fixed-width matrix multiply-accumulate units sum.
//!
//! Every product is exact. The products and the addend are aligned to the largest of their
//! exponents, taken as the hardware sees them before normalising: a product's exponent is the
//! sum of its factors' exponents (a product of significands in [1, 4) keeps its top bit above
//! it), the addend's its own; subnormals count at the format's least exponent. Each term loses
//! its bits more than `keep` places under that exponent (truncated toward zero in magnitude);
//! the truncated terms are summed exactly and the sum is rounded once into the result format
//! with the mode's rounding, except that a sum at or beyond twice the largest finite value is
//! an infinity under every mode. A zero result is +0; a NaN operand or an invalid term (an
//! infinity times zero, infinities of both signs) gives the mode's NaN for no operand.
//!
//! This is the rule of NVIDIA's `mma.sync` f16 / bf16 / tf32 forms as an sm_90 GPU computes them
//! (fixtures/hw/mma: every element of 576 cases per form equal, with `keep` 25 and one block
//! for the instruction's whole k).

use super::{is_nan, nan_result, pack_mode, prep, unpack, zero, Class, FFmt, FloatMode};

/// The parameters of a block dot product.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BlockDot {
    /// Number of products n (the operands are a0..a(n-1), b0..b(n-1), c).
    pub terms: u8,
    /// Format of the a and b operands.
    pub elem: FFmt,
    /// Fraction bits of each a / b operand taken (the lower ones are ignored); at most the
    /// format's fraction width.
    pub frac: u8,
    /// Bits each aligned term keeps below the leading bit of the largest term.
    pub keep: u8,
}

impl BlockDot {
    /// Number of operands: n a's, n b's and c.
    pub const fn arity(self) -> usize {
        2 * self.terms as usize + 1
    }
    /// Whether the parameters describe an op the evaluator supports.
    pub fn problem(self) -> Option<&'static str> {
        if self.terms == 0 || self.terms > 32 {
            return Some("a block dot sums 1 to 32 products");
        }
        if u32::from(self.frac) > self.elem.man_bits() {
            return Some("a block dot reads at most the element format's fraction bits");
        }
        if !(8..=100).contains(&self.keep) {
            return Some("a block dot keeps 8 to 100 bits under the leading bit");
        }
        None
    }
}

/// The element `x` of `elem` with its fraction bits below the top `frac` cleared.
fn cut(elem: FFmt, frac: u8, x: u64) -> u64 {
    let drop = elem.man_bits() - u32::from(frac);
    if is_nan(elem, x) || drop == 0 {
        x
    } else {
        x & !((1u64 << drop) - 1)
    }
}

/// Evaluate `op` into `fmt`: `args` are a0..a(n-1), b0..b(n-1) (of `op.elem`), then c (of
/// `fmt`). A NaN operand gives the mode's NaN; an infinity times zero or infinities of both
/// signs give the invalid NaN; otherwise an infinity gives itself. An exact zero sum is -0 only
/// when every term is -0.
pub fn eval(op: BlockDot, fmt: FFmt, mode: &FloatMode, args: &[u64]) -> u64 {
    let n = op.terms as usize;
    let get = |i: usize| args.get(i).copied().unwrap_or(0);
    let a: Vec<u64> = (0..n).map(|i| cut(op.elem, op.frac, get(i) & op.elem.all_mask())).collect();
    let b: Vec<u64> = (0..n).map(|i| cut(op.elem, op.frac, get(n + i) & op.elem.all_mask())).collect();
    let c = prep(fmt, mode, get(2 * n));
    if a.iter().chain(&b).any(|x| is_nan(op.elem, *x)) || is_nan(fmt, c) {
        return nan_result(fmt, mode.nan, &[]);
    }
    // Terms (sign, class, exp of the lsb, significand).
    let mut terms = Vec::with_capacity(n + 1);
    for (x, y) in a.iter().zip(&b) {
        let (x, y) = (unpack(op.elem, *x), unpack(op.elem, *y));
        let sign = x.sign != y.sign;
        let class = match (x.class, y.class) {
            (Class::Inf, Class::Zero) | (Class::Zero, Class::Inf) => return nan_result(fmt, mode.nan, &[]),
            (Class::Inf, _) | (_, Class::Inf) => Class::Inf,
            (Class::Zero, _) | (_, Class::Zero) => Class::Zero,
            _ => Class::Finite,
        };
        // The product's exponent before normalising: its factors' exponents summed.
        let top = x.exp + y.exp + 2 * op.elem.man_bits() as i32;
        terms.push((sign, class, x.exp + y.exp, x.sig * y.sig, top));
    }
    let z = unpack(fmt, c);
    terms.push((z.sign, z.class, z.exp, z.sig, z.exp + fmt.man_bits() as i32));
    let mut inf = None;
    for t in terms.iter().filter(|t| t.1 == Class::Inf) {
        match inf {
            Some(s) if s != t.0 => return nan_result(fmt, mode.nan, &[]),
            _ => inf = Some(t.0),
        }
    }
    if let Some(s) = inf {
        return zero(fmt, s) | fmt.inf();
    }
    let Some(lead) = terms.iter().filter(|t| t.1 == Class::Finite).map(|t| t.4).max() else {
        return zero(fmt, false);
    };
    let lsb = lead - i32::from(op.keep);
    let mut sum: i128 = 0;
    for t in terms.iter().filter(|t| t.1 == Class::Finite) {
        let v = if t.2 >= lsb { (t.3 << (t.2 - lsb) as u32) as i128 } else { (t.3 >> ((lsb - t.2) as u32).min(127)) as i128 };
        sum += if t.0 { -v } else { v };
    }
    if sum == 0 {
        return zero(fmt, false);
    }
    let mag = sum.unsigned_abs();
    // The exponent of the sum's leading bit: at or past the largest finite binade's end, an
    // infinity whatever the rounding (round-toward-zero included).
    if lsb + (127 - mag.leading_zeros() as i32) > fmt.bias() {
        return zero(fmt, sum < 0) | fmt.inf();
    }
    let r = pack_mode(fmt, mode, sum < 0, lsb, mag, false);
    if r & !fmt.sign_mask() == 0 {
        return zero(fmt, false);
    }
    r
}
