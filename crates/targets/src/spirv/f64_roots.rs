//! The f64 reciprocal, square root and reciprocal square root models (`soft::approx::eval`
//! for `approx.rcp`, `approx.sqrt` and `approx.rsq` on f64: 1/x and sqrt(x) correctly rounded
//! to nearest, 1/sqrt(x) as the correctly rounded reciprocal of the correctly rounded square
//! root, subnormal operands and results kept) in integer arithmetic, since a device may flush
//! f64 subnormals (lavapipe does): the normalized significand's reciprocal by 64 steps of
//! restoring division, its square root by 56 steps of the restoring digit-by-digit method, each
//! rounded once ([`Em::pack_f64`]) with the remainder as the sticky bit.

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

    /// sqrt(x) rounded to nearest for positive finite nonzero f64 bits `x` (u64); other
    /// operands give unspecified bits.
    fn sqrt_f64_exact(&mut self, x: Word) -> Result<Word, EmitError> {
        let p = self.unpack_f64(x)?;
        // An even exponent: sig × 2^exp with sig below 2^54.
        let odd = self.and(p.exp, 1)?;
        let odd = self.eq(odd, 1)?;
        let s2 = self.shl(p.sig, 1)?;
        let sig = self.sel(odd, s2, p.sig)?;
        let one = self.u64c(1)?;
        let e1 = self.sub(p.exp, one)?;
        let exp = self.sel(odd, e1, p.exp)?;
        // root = floor(sqrt(sig × 2^56)): 56 bit pairs, the first 28 from sig (as 56 bits).
        let tb = self.bool_ty()?;
        let mut rem = self.u64c(0)?;
        let mut root = self.u64c(0)?;
        for i in 0..56u64 {
            let next = if i < 28 {
                let d = self.shr(sig, 54 - 2 * i)?;
                self.and(d, 3)?
            } else {
                self.u64c(0)?
            };
            let r4 = self.shl(rem, 2)?;
            rem = self.or(r4, next)?;
            let t4 = self.shl(root, 2)?;
            let trial = self.or(t4, one)?;
            let lt = self.b.u_less_than(tb, None, rem, trial).map_err(internal)?;
            let sub = self.sub(rem, trial)?;
            rem = self.sel(lt, rem, sub)?;
            let bit = self.sel_k(lt, 0, one)?;
            let r2 = self.shl(root, 1)?;
            root = self.or(r2, bit)?;
        }
        let z = self.eq(rem, 0)?;
        let sticky = self.lnot(z)?;
        // sqrt(sig × 2^exp) = root × 2^((exp - 56) / 2).
        let k56 = self.u64c(56)?;
        let e = self.sub(exp, k56)?;
        let k1 = self.u64c(1)?;
        let e = self.b.shift_right_arithmetic(self.t_u64, None, e, k1).map_err(internal)?;
        let zero = self.u64c(0)?;
        let (r, _) = self.pack_f64(zero, e, root, sticky, Round::Rn)?;
        Ok(r)
    }

    /// sqrt(x) for the f64 bits `x` (u64) as the model defines it: a negative operand (not
    /// -0) or a NaN gives the model's NaN, ±0 and +∞ themselves.
    pub(super) fn sqrt_f64_model(&mut self, x: Word) -> Result<Word, EmitError> {
        let (nan, inf, zero) = self.classes(x)?;
        let s = self.shr(x, 63)?;
        let neg = self.eq(s, 1)?;
        let root = self.sqrt_f64_exact(x)?;
        let keep = self.lor(inf, zero)?;
        let r = self.sel(keep, x, root)?;
        let nz = self.lnot(zero)?;
        let bad = self.land(neg, nz)?;
        let bad = self.lor(bad, nan)?;
        let nv = self.u64c(FFmt::F64.nv_nan())?;
        self.sel(bad, nv, r)
    }

    /// 1/sqrt(x) for the f64 bits `x` (u64) as the model defines it: ±0 gives ±∞, a negative
    /// operand or a NaN the model's NaN, +∞ +0.
    pub(super) fn rsq_f64_exact(&mut self, x: Word) -> Result<Word, EmitError> {
        let (nan, inf, zero) = self.classes(x)?;
        let s = self.shr(x, 63)?;
        let neg = self.eq(s, 1)?;
        let root = self.sqrt_f64_exact(x)?;
        let infb = self.u64c(0x7ff << 52)?;
        let root = self.sel(inf, infb, root)?;
        let root = self.sel(zero, x, root)?;
        let r = self.rcp_f64_exact(root)?;
        let nz = self.lnot(zero)?;
        let bad = self.land(neg, nz)?;
        let bad = self.lor(bad, nan)?;
        let nv = self.u64c(FFmt::F64.nv_nan())?;
        self.sel(bad, nv, r)
    }
}
