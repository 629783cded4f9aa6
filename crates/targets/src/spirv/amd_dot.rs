//! The two-way dot product `fdot2` (`soft::dot::dot2`: a.lo × b.lo + a.hi × b.hi + c with one
//! rounding; a and b hold two f16 each, c and the result are of the result's format) emitted
//! exactly: the f16 products are exact in f64, and the three-term sum is kept as an f64 value
//! with the sign of its exact error through TwoSum, which fixes the one rounding into the
//! format whatever the terms' magnitudes.
//!
//! Why the f64 value and the error's sign suffice: every term is a multiple of 2^-149 below
//! 2^129, so no TwoSum sees a subnormal f64 or overflows; with (s1, e1) = TwoSum(p0, p1),
//! (s2, e2) = TwoSum(s1, c), (t, et) = TwoSum(e1, e2), (u, eu) = TwoSum(s2, t), the exact sum is
//! u + eu + et. Either s1 + c is exact (Sterbenz: cancellation), so et = 0 and u is the sum
//! rounded to f64 with error eu; or |s2| >= |s1| / 2 and |et| is far below half an ulp of u, so
//! no f64 (no rounding boundary of a narrower format) lies strictly between u and the sum.
//! Either way rounding u with the sign of eu + et gives the sum's rounding.

use super::emit::{internal, unsupported, Em, EmitError};
use super::float::Err64;
use isabridge_ir::ir::Value;
use isabridge_ir::ops::float::{FloatOp, Omod};
use isabridge_ir::soft::{FFmt, FloatMode, Round};
use isabridge_ir::types::{Scalar, Type};
use isabridge_ir::Op;
use rspirv::spirv::Word;

impl Em<'_> {
    /// `fdot2` of result type `t` (f32 or f16) on the operands `a` of types `at`.
    pub(super) fn dot2(&mut self, op: &FloatOp, v: Value, t: Type, at: &[Type], a: &[Word]) -> Result<Word, EmitError> {
        let text = Op::Float(*op).mnemonic();
        let fmt = match t {
            Type::S(Scalar::F(f @ (FFmt::F32 | FFmt::F16))) => f,
            _ => return Err(unsupported(self.cur_ir, v.0, text, "fdot2 into other than f32 and f16")),
        };
        if op.fmz || op.relu || op.omod != Omod::None || at.len() != 3 || at[2] != t || at[0].bits() != 32 || at[1].bits() != 32 {
            return Err(unsupported(self.cur_ir, v.0, text, "fdot2 with FMZ, ReLU, an output modifier or other operand types"));
        }
        let mode: FloatMode = op.mode;
        // The packed pairs' bits; a constant pair from its IR bits (lavapipe read the bitcast
        // of an f16x2 constant composite as 0).
        let args = self.f.insts[v].args.clone();
        let mut pair = [0; 2];
        for (i, p) in pair.iter_mut().enumerate() {
            *p = match self.f.insts[args[i]].op {
                Op::Const(bits) => self.u64c(bits & 0xffff_ffff)?,
                _ => self.value_to_word(a[i], at[i])?,
            };
        }
        let [pa, pb] = pair;
        let c = self.elem_in(fmt, a[2], mode.ftz_in)?;
        let lo = |em: &mut Self, x: Word| em.and(x, 0xffff);
        let hi = |em: &mut Self, x: Word| -> Result<Word, EmitError> {
            let s = em.shr(x, 16)?;
            em.and(s, 0xffff)
        };
        let h = [lo(self, pa)?, hi(self, pa)?, lo(self, pb)?, hi(self, pb)?];
        // NaN operands in the order a.lo, a.hi, b.lo, b.hi, c; an f16 NaN widened with its sign
        // and payload, quieted (`dot::widen_nan`); the others count as no NaN.
        let mut nans = Vec::with_capacity(5);
        for &x in &h {
            let isn = self.is_nan_bits(FFmt::F16, x)?;
            let s = self.and(x, 0x8000)?;
            let s = self.shl(s, fmt.width() as u64 - 16)?;
            let p = self.and(x, 0x3ff)?;
            let p = self.shl(p, fmt.man_bits() as u64 - 10)?;
            let q = self.u64c(fmt.qnan())?;
            let w = self.or(s, q)?;
            let w = self.or(w, p)?;
            let z = self.u64c(0)?;
            nans.push(self.sel(isn, w, z)?);
        }
        nans.push(c);
        // Classes in integer arithmetic (a driver without f64 float controls may fold x × 0
        // to 0 when x is a constant, so no infinity or NaN enters the f64 arithmetic).
        let (mut fin, mut zero, mut infs) = (Vec::new(), Vec::new(), Vec::new());
        for &x in &h {
            let m = self.and(x, 0x7fff)?;
            zero.push(self.eq(m, 0)?);
            infs.push(self.eq(m, 0x7c00)?);
            let top = self.u64c(0x7c00)?;
            let tb = self.bool_ty()?;
            fin.push(self.b.u_less_than(tb, None, m, top).map_err(internal)?);
        }
        let mc = self.and(c, fmt.all_mask() >> 1)?;
        let c_inf = self.eq(mc, fmt.inf())?;
        let c_nan = self.is_nan_bits(fmt, c)?;
        let mut any_nan = c_nan;
        for &x in &h {
            let n = self.is_nan_bits(FFmt::F16, x)?;
            any_nan = self.lor(any_nan, n)?;
        }
        // Infinite terms and their signs; an invalid product or opposite infinities.
        let fls = self.bconst(false)?;
        let (mut invalid, mut pos_inf, mut neg_inf) = (fls, fls, fls);
        for (i, j) in [(0, 2), (1, 3)] {
            let x0 = self.land(infs[i], zero[j])?;
            let x1 = self.land(zero[i], infs[j])?;
            let bad = self.lor(x0, x1)?;
            invalid = self.lor(invalid, bad)?;
            let inf = self.lor(infs[i], infs[j])?;
            let sx = self.b.bitwise_xor(self.t_u64, None, h[i], h[j]).map_err(internal)?;
            let sx = self.and(sx, 0x8000)?;
            let neg = self.eq(sx, 0x8000)?;
            let pos = self.lnot(neg)?;
            let ni = self.land(inf, neg)?;
            let pi = self.land(inf, pos)?;
            neg_inf = self.lor(neg_inf, ni)?;
            pos_inf = self.lor(pos_inf, pi)?;
        }
        let sc = self.and(c, fmt.sign_mask())?;
        let c_neg = self.eq(sc, fmt.sign_mask())?;
        let c_pos = self.lnot(c_neg)?;
        let cni = self.land(c_inf, c_neg)?;
        let cpi = self.land(c_inf, c_pos)?;
        neg_inf = self.lor(neg_inf, cni)?;
        pos_inf = self.lor(pos_inf, cpi)?;
        let both = self.land(neg_inf, pos_inf)?;
        invalid = self.lor(invalid, both)?;
        let nan = self.lor(any_nan, invalid)?;
        let inf = self.lor(neg_inf, pos_inf)?;
        // The finite sum: operands that are not finite count as 0 here.
        let mut d = Vec::with_capacity(4);
        for (k, &x) in h.iter().enumerate() {
            let z = self.u64c(0)?;
            let x = self.sel(fin[k], x, z)?;
            let w = self.widen(FFmt::F16, x)?;
            d.push(self.as_double(w)?);
        }
        let c_fin = {
            let special = self.lor(c_inf, c_nan)?;
            let z = self.u64c(0)?;
            self.sel(special, z, c)?
        };
        let cw = self.widen(fmt, c_fin)?;
        let cd = self.as_double(cw)?;
        let p0 = self.fop(b'*', d[0], d[2])?;
        let p1 = self.fop(b'*', d[1], d[3])?;
        let (s1, e1) = self.two_sum(p0, p1)?;
        let (s2, e2) = self.two_sum(s1, cd)?;
        let (t1, et) = self.two_sum(e1, e2)?;
        let (u, eu) = self.two_sum(s2, t1)?;
        let err = self.fop(b'+', eu, et)?;
        let tb = self.bool_ty()?;
        let r = self.double_bits(u)?;
        // An exact zero: -0 when every term is a zero of that sign (or some are and the
        // rounding is toward -inf), or when nonzero terms cancel under RM.
        let mut zero_terms = Vec::new();
        let mut neg_terms = Vec::new();
        for (x, y) in [(h[0], h[2]), (h[1], h[3])] {
            let (mx, my) = (self.and(x, 0x7fff)?, self.and(y, 0x7fff)?);
            let (zx, zy) = (self.eq(mx, 0)?, self.eq(my, 0)?);
            zero_terms.push(self.lor(zx, zy)?);
            let s = self.b.bitwise_xor(self.t_u64, None, x, y).map_err(internal)?;
            let s = self.shr(s, 15)?;
            let s = self.and(s, 1)?;
            neg_terms.push(self.eq(s, 1)?);
        }
        zero_terms.push(self.eq(mc, 0)?);
        neg_terms.push(c_neg);
        let all_zero = self.land(zero_terms[0], zero_terms[1])?;
        let all_zero = self.land(all_zero, zero_terms[2])?;
        let all_neg = self.land(neg_terms[0], neg_terms[1])?;
        let all_neg = self.land(all_neg, neg_terms[2])?;
        let rm = self.bconst(mode.round == Round::Rm)?;
        let any_neg = self.lor(neg_terms[0], neg_terms[1])?;
        let any_neg = self.lor(any_neg, neg_terms[2])?;
        let some = self.land(any_neg, rm)?;
        let zeros_neg = self.lor(all_neg, some)?;
        let zs = self.b.select(tb, None, all_zero, zeros_neg, rm).map_err(internal)?;
        let out = self.result(fmt, &mode, r, Err64::Term(err), &nans, Some(zs))?;
        let nanv = self.nan_bits(fmt, mode.nan, &nans)?;
        let infv = self.u64c(fmt.inf())?;
        let ninfv = self.u64c(fmt.inf() | fmt.sign_mask())?;
        let infv = self.sel(neg_inf, ninfv, infv)?;
        let special = self.sel(nan, nanv, infv)?;
        let special = self.finish(fmt, &mode, special, None)?;
        let any = self.lor(nan, inf)?;
        let out = self.sel(any, special, out)?;
        self.elem_out(fmt, out)
    }
}
