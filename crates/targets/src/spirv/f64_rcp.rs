//! The f64 reciprocal model (`soft::approx::eval` for `approx.rcp` on f64 without flushing:
//! 1/x correctly rounded to nearest, subnormal operands and results kept) in integer
//! arithmetic, since a device may flush f64 subnormals (lavapipe does): the normalized
//! significand's reciprocal by 64 steps of restoring division, then one rounding
//! ([`Em::pack_f64`]) with the remainder as the sticky bit.

use super::emit::{internal, Em, EmitError};
use isabridge_ir::soft::{FFmt, Round};
use rspirv::spirv::Word;

impl Em<'_> {
    /// 1/x for the f64 bits `x` (u64): a NaN gives the model's NaN, ±0 ±∞, ±∞ ±0.
    pub(super) fn rcp_f64_exact(&mut self, x: Word) -> Result<Word, EmitError> {
        let (nan, inf, zero) = self.classes(x)?;
        let p = self.unpack_f64(x)?;
        // q = floor(2^115 / sig) (sig in [2^52, 2^53), so q <= 2^63), rem its remainder.
        let tb = self.bool_ty()?;
        let mut rem = self.u64c(1 << 51)?;
        let mut q = self.u64c(0)?;
        for _ in 0..64 {
            rem = self.shl(rem, 1)?;
            let lt = self.b.u_less_than(tb, None, rem, p.sig).map_err(internal)?;
            let sub = self.sub(rem, p.sig)?;
            rem = self.sel(lt, rem, sub)?;
            let one = self.u64c(1)?;
            let bit = self.sel_k(lt, 0, one)?;
            let q2 = self.shl(q, 1)?;
            q = self.or(q2, bit)?;
        }
        let z = self.eq(rem, 0)?;
        let sticky = self.lnot(z)?;
        // 1/x = 2^-exp / sig = q × 2^(-115 - exp) (+ the remainder).
        let k = self.u64c((-115i64) as u64)?;
        let e = self.sub(k, p.exp)?;
        let (r, _) = self.pack_f64(p.sign, e, q, sticky, Round::Rn)?;
        let sbit = self.shl(p.sign, 63)?;
        let infb = self.u64c(0x7ff << 52)?;
        let sinf = self.or(sbit, infb)?;
        let r = self.sel(zero, sinf, r)?;
        let r = self.sel(inf, sbit, r)?;
        let nv = self.u64c(FFmt::F64.nv_nan())?;
        self.sel(nan, nv, r)
    }
}
