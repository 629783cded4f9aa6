//! Two-way float dot product with a wider accumulator: a.lo × b.lo + a.hi × b.hi + c with one
//! rounding.

use super::{add_exact, exact_zero_sign, finish, is_nan, nan_result, pack_mode, prep, unpack, zero, Class, FFmt, FloatMode};

/// The NaN `x` of `from` as a NaN of the wider `to`: sign kept, payload moved to the top of
/// the wider fraction, quieted.
fn widen_nan(from: FFmt, to: FFmt, x: u64) -> u64 {
    let sign = if x & from.sign_mask() != 0 { to.sign_mask() } else { 0 };
    let payload = (x & ((1 << from.man_bits()) - 1)) << (to.man_bits() - from.man_bits());
    sign | to.qnan() | payload
}

/// a.lo × b.lo + a.hi × b.hi + c rounded once into `fmt`, where `a` and `b` each hold two
/// values of the narrower `elem` (element 0 in the low bits) and `c` is of `fmt`.
///
/// The `elem` values are taken as they are (no flush: every product of two of them is exact
/// in `fmt` for f16 into f32); `c` is flushed under `ftz_in`, the result under `ftz_out`.
/// NaN operands, in the order a.lo, a.hi, b.lo, b.hi, c (the narrow ones widened first), pick
/// the NaN by the mode's rule; then an invalid product (∞ × 0) or a sum of opposite
/// infinities gives the rule's invalid NaN. An exact zero sum is -0 only when every term is
/// -0 (or the rounding is toward -∞ and the terms cancel).
pub fn dot2(elem: FFmt, fmt: FFmt, mode: &FloatMode, a: u64, b: u64, c: u64) -> u64 {
    let w = elem.width();
    let part = |x: u64, i: u32| (x >> (w * i)) & elem.all_mask();
    let ops = [part(a, 0), part(a, 1), part(b, 0), part(b, 1)];
    let c = prep(fmt, mode, c);
    if ops.iter().any(|x| is_nan(elem, *x)) || is_nan(fmt, c) {
        let wide = |x: u64| if is_nan(elem, x) { widen_nan(elem, fmt, x) } else { 0 };
        let order = [wide(ops[0]), wide(ops[1]), wide(ops[2]), wide(ops[3]), c];
        return finish(fmt, mode, nan_result(fmt, mode.nan, &order));
    }
    let (a0, a1, b0, b1) = (unpack(elem, ops[0]), unpack(elem, ops[1]), unpack(elem, ops[2]), unpack(elem, ops[3]));
    let z = unpack(fmt, c);
    // Terms: (sign, class, exp, sig) of the two products and the addend.
    let mut terms = Vec::with_capacity(3);
    for (x, y) in [(a0, b0), (a1, b1)] {
        let sign = x.sign != y.sign;
        let class = match (x.class, y.class) {
            (Class::Inf, Class::Zero) | (Class::Zero, Class::Inf) => return finish(fmt, mode, nan_result(fmt, mode.nan, &[])),
            (Class::Inf, _) | (_, Class::Inf) => Class::Inf,
            (Class::Zero, _) | (_, Class::Zero) => Class::Zero,
            _ => Class::Finite,
        };
        terms.push((sign, class, x.exp + y.exp, x.sig * y.sig));
    }
    terms.push((z.sign, z.class, z.exp, z.sig));
    let mut inf = None;
    for t in terms.iter().filter(|t| t.1 == Class::Inf) {
        match inf {
            Some(s) if s != t.0 => return finish(fmt, mode, nan_result(fmt, mode.nan, &[])),
            _ => inf = Some(t.0),
        }
    }
    if let Some(s) = inf {
        return finish(fmt, mode, zero(fmt, s) | fmt.inf());
    }
    let mut sum: Option<(bool, i32, u128)> = None;
    let mut cancelled = false;
    for t in terms.iter().filter(|t| t.1 == Class::Finite) {
        sum = match sum {
            None => Some((t.0, t.2, t.3)),
            Some((s, e, g)) => {
                let r = add_exact(s, e, g, t.0, t.2, t.3);
                cancelled |= r.is_none();
                r
            }
        };
    }
    match sum {
        Some((s, e, g)) => pack_mode(fmt, mode, s, e, g, false),
        None if cancelled => finish(fmt, mode, zero(fmt, exact_zero_sign(mode.round))),
        None => {
            // Every term is a zero: the IEEE sum of signed zeros.
            let all_neg = terms.iter().all(|t| t.0);
            let any_neg = terms.iter().any(|t| t.0);
            let neg = all_neg || (any_neg && exact_zero_sign(mode.round));
            finish(fmt, mode, zero(fmt, neg))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::soft::{NanRule, Round};

    /// Lanes of the RDNA2 Float16Dot vector's `v_dot2` slot (a, b, c, result), f32 denormals
    /// flushed, NaNs quieted.
    #[test]
    fn float16dot_lanes() {
        let m = FloatMode { ftz_in: true, ftz_out: true, nan: NanRule::PropagateNeg, ..FloatMode::nv(Round::Rn) };
        let lanes: [(u64, u64, u64, u64); 6] = [
            (0xc8, 0x83ff3c00, 0x43380747, 0x43380748), // lane 23: one rounding
            (0x47a37c85, 0x7ceb0000, 0x80521c95, 0x7fd0a000), // lane 8: a.lo's NaN, widened
            (0x0, 0xf35dfc00, 0x805c769a, 0xffc00000), // lane 11: 0 × -inf
            (0x64ba817b, 0x80000000, 0x1, 0x0), // lane 15: flushed addend, +0
            (0x30c, 0x8370c506, 0x1, 0xb974e480), // lane 12: f16 denormal kept
            (0x10001, 0xfc00004c, 0xca63705a, 0xff800000), // lane 14: -inf
        ];
        for (a, b, c, want) in lanes {
            assert_eq!(dot2(FFmt::F16, FFmt::F32, &m, a, b, c), want, "{a:#x} {b:#x} {c:#x}");
        }
    }
}
