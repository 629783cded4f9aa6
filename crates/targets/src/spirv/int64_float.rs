//! 64-bit integers to floats (`cvt.<rnd>.f32.s64` and kin) in integer arithmetic, exact in
//! every rounding direction: the integer's magnitude is rounded once to f64 in the op's
//! direction by [`Em::pack_f64`] when the target is f64; for a narrower target it is first
//! rounded to odd at f64's 53 bits (truncate, then set the last bit when anything was cut),
//! which the second rounding to at most 24 bits turns into the correctly rounded result
//! (53 >= 24 + 2 bits: no double-rounding error), as `soft::from_int` gives.

use super::emit::{internal, Em, EmitError};
use isabridge_ir::soft::Round;
use rspirv::spirv::Word;

impl Em<'_> {
    /// The f64 bits of the 64-bit integer `x` (u64 id; `signed` reads it as two's
    /// complement): rounded in direction `round` when `odd` is false, else rounded to odd.
    pub(super) fn int64_to_f64_bits(&mut self, x: Word, signed: bool, round: Round, odd: bool) -> Result<Word, EmitError> {
        let zero = self.u64c(0)?;
        let (sign, mag) = if signed {
            let sign = self.shr(x, 63)?;
            let neg = self.eq(sign, 1)?;
            let minus = self.b.i_sub(self.t_u64, None, zero, x).map_err(internal)?;
            (sign, self.sel(neg, minus, x)?)
        } else {
            (zero, x)
        };
        let is_zero = self.eq(mag, 0)?;
        // pack_f64 needs a nonzero significand: 1 stands in for 0, whose result is +0 below.
        let sig = self.sel_k(is_zero, 1, mag)?;
        let no_sticky = self.bconst(false)?;
        let (bits, _) = self.pack_f64(sign, zero, sig, no_sticky, if odd { Round::Rz } else { round })?;
        let bits = if odd {
            // The bits below f64's 53: sig & ((1 << max(msb - 52, 0)) - 1) != 0.
            let msb = self.msb64(sig)?;
            let k52 = self.u64c(52)?;
            let tb = self.bool_ty()?;
            let wide = self.b.u_greater_than(tb, None, msb, k52).map_err(internal)?;
            let cut = self.sub(msb, k52)?;
            let cut = self.sel(wide, cut, zero)?;
            let one = self.u64c(1)?;
            let unit = self.b.shift_left_logical(self.t_u64, None, one, cut).map_err(internal)?;
            let mask = self.sub(unit, one)?;
            let rest = self.b.bitwise_and(self.t_u64, None, sig, mask).map_err(internal)?;
            let exact = self.eq(rest, 0)?;
            let inexact = self.lnot(exact)?;
            let low = self.sel(inexact, one, zero)?;
            self.or(bits, low)?
        } else {
            bits
        };
        self.sel(is_zero, zero, bits)
    }
}
