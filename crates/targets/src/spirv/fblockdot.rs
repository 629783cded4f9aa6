//! The IR's block dot product (`fblockdot`, `isabridge_ir::soft::blockdot`: the rule of
//! NVIDIA's `mma.sync` f16 / bf16 / tf32 forms) in integer arithmetic, exactly as the IR
//! evaluates it: each a / b element with its fraction cut to `frac` bits, every product's
//! significand exact (at most 48 bits), the products and the addend aligned to the largest
//! term's pre-normalisation exponent and truncated `keep` bits under it, the truncated terms
//! summed in a 64-bit integer, and the sum (an exact f64, as `keep` is at most
//! [`MOST_KEEP`]) rounded once into the result format by the shared rounding path
//! (`Em::result`). NaN operands, invalid products (infinity times zero), infinities of both
//! signs, a lone infinity, a sum past twice the largest finite value and a zero sum give what
//! `soft::blockdot::eval` gives, in the same order of precedence.

use super::emit::{internal, unsupported, Em, EmitError};
use super::float::Err64;
use super::helper_fn::HelperBody;
use isabridge_ir::ir::Value;
use isabridge_ir::ops::float::{FloatOp, Omod};
use isabridge_ir::soft::blockdot::BlockDot;
use isabridge_ir::soft::FFmt;
use isabridge_ir::types::{Scalar, Type};
use isabridge_ir::Op;
use rspirv::spirv::Word;

/// The most bits under the leading term this emitter keeps: each aligned term is below
/// 2^(keep + 2) and at most 33 terms are summed, so the sum stays below 2^53 and is an exact
/// f64 significand.
const MOST_KEEP: u8 = 45;

/// One term of the sum: its sign (0 or 1), whether it is an infinity, a zero, or finite and
/// nonzero, the exponent of its significand's lowest bit and of its leading bit before
/// normalising (signed, in u64 words), and its significand.
struct Term {
    sign: Word,
    inf: Word,
    zero: Word,
    exp: Word,
    top: Word,
    sig: Word,
}

impl Em<'_> {
    /// `fblockdot` (value `v`, result type `t`, operand types `at` and words `a`: n a's, n b's,
    /// then c).
    pub(super) fn block_dot(&mut self, op: &FloatOp, d: BlockDot, v: Value, t: Type, at: &[Type], a: &[Word]) -> Result<Word, EmitError> {
        let text = Op::Float(*op).mnemonic();
        let refuse = |em: &Self, why: &'static str| Err(unsupported(em.cur_ir, v.0, text.clone(), why));
        let Type::S(Scalar::F(fmt)) = t else { return refuse(self, "a block dot of other than a scalar float result") };
        if fmt == FFmt::F64 || !matches!(d.elem, FFmt::F16 | FFmt::BF16 | FFmt::F32) {
            return refuse(self, "a block dot of f64 elements or an f64 result");
        }
        if d.problem().is_some() || d.keep > MOST_KEEP {
            return refuse(self, "a block dot keeping more than 45 bits under its leading term");
        }
        if op.fmz || op.relu || op.omod != Omod::None {
            return refuse(self, "a block dot with FMZ, ReLU or an output modifier");
        }
        let n = d.terms as usize;
        let elem_ty = Type::S(Scalar::F(d.elem));
        if a.len() != 2 * n + 1 || at.len() != a.len() || at[..2 * n].iter().any(|&x| x != elem_ty) || at[2 * n] != t {
            return refuse(self, "a block dot whose operands are not n a's and b's of its element format and c of its result's");
        }
        // One function per form of the op (`super::helper_fn`): each block dot is about a
        // thousand instructions.
        let (te, tr) = (self.ty(elem_ty)?, self.ty(t)?);
        let mut params = vec![te; 2 * n];
        params.push(tr);
        self.call_helper(HelperBody::BlockDot { op: *op, d, fmt }, tr, &params, a)
    }

    /// The block dot product's code (`block_dot`'s checks passed): `a` holds the n a's and
    /// b's (element storage integers), then c (the result format's).
    pub(super) fn block_dot_exact(&mut self, op: &FloatOp, d: BlockDot, fmt: FFmt, a: &[Word]) -> Result<Word, EmitError> {
        let n = d.terms as usize;
        let mode = op.mode;
        let e = d.elem;
        // The elements with their fraction bits under the top `frac` cleared (NaNs kept).
        let drop = e.man_bits() - u32::from(d.frac);
        let mut x = Vec::with_capacity(2 * n);
        for &w in &a[..2 * n] {
            let w = self.elem_in(e, w, false)?;
            x.push(if drop == 0 {
                w
            } else {
                let nan = self.is_nan_bits(e, w)?;
                let cut = self.and(w, e.all_mask() & !((1u64 << drop) - 1))?;
                self.sel(nan, w, cut)?
            });
        }
        let c = self.elem_in(fmt, a[2 * n], mode.ftz_in)?;
        let mut any_nan = self.is_nan_bits(fmt, c)?;
        for &w in &x {
            let nan = self.is_nan_bits(e, w)?;
            any_nan = self.lor(any_nan, nan)?;
        }
        // The products, then the addend.
        let mut terms = Vec::with_capacity(n + 1);
        let mut invalid = self.bconst(false)?;
        for (&xa, &xb) in x[..n].iter().zip(&x[n..]) {
            let (p, q) = (self.unpack_term(e, xa)?, self.unpack_term(e, xb)?);
            let inf_zero = self.land(p.inf, q.zero)?;
            let zero_inf = self.land(p.zero, q.inf)?;
            let bad = self.lor(inf_zero, zero_inf)?;
            invalid = self.lor(invalid, bad)?;
            let sign = self.b.bitwise_xor(self.t_u64, None, p.sign, q.sign).map_err(internal)?;
            let inf = self.lor(p.inf, q.inf)?;
            let zero = self.lor(p.zero, q.zero)?;
            let exp = self.add(p.exp, q.exp)?;
            let two_m = self.u64c(2 * u64::from(e.man_bits()))?;
            let top = self.add(exp, two_m)?;
            let sig = self.b.i_mul(self.t_u64, None, p.sig, q.sig).map_err(internal)?;
            terms.push(Term { sign, inf, zero, exp, top, sig });
        }
        terms.push(self.unpack_term(fmt, c)?);
        // Infinities: of both signs (or an invalid product) a NaN, else the infinity.
        let (mut pos_inf, mut neg_inf) = (self.bconst(false)?, self.bconst(false)?);
        let mut finite = Vec::with_capacity(terms.len());
        for t in &terms {
            let neg = self.eq(t.sign, 1)?;
            let pos = self.lnot(neg)?;
            let (ni, pi) = (self.land(t.inf, neg)?, self.land(t.inf, pos)?);
            neg_inf = self.lor(neg_inf, ni)?;
            pos_inf = self.lor(pos_inf, pi)?;
            let special = self.lor(t.inf, t.zero)?;
            finite.push(self.lnot(special)?);
        }
        // The leading exponent over the finite terms, and the lowest bit kept.
        let none = self.u64c(-1_000_000i64 as u64)?;
        let mut lead = none;
        let mut any_finite = self.bconst(false)?;
        for (t, &fin) in terms.iter().zip(&finite) {
            let cand = self.sel(fin, t.top, none)?;
            let gt = self.slt(lead, cand)?;
            lead = self.sel(gt, cand, lead)?;
            any_finite = self.lor(any_finite, fin)?;
        }
        let keep = self.u64c(u64::from(d.keep))?;
        let lsb = self.sub(lead, keep)?;
        // The truncated terms summed (signed, wrapping u64 words).
        let zero = self.u64c(0)?;
        let mut sum = zero;
        let k63 = self.u64c(63)?;
        for (t, &fin) in terms.iter().zip(&finite) {
            let below = self.slt(t.exp, lsb)?;
            let left = self.sub(t.exp, lsb)?;
            let left = self.sel_k(below, 0, left)?;
            let right = self.sub(lsb, t.exp)?;
            let tb = self.bool_ty()?;
            let far = self.b.u_greater_than(tb, None, right, k63).map_err(internal)?;
            let right = self.sel(far, k63, right)?;
            let up = self.shl_v(t.sig, left)?;
            let down = self.shr_v(t.sig, right)?;
            let val = self.sel(below, down, up)?;
            let val = self.sel(fin, val, zero)?;
            let neg = self.eq(t.sign, 1)?;
            let plus = self.add(sum, val)?;
            let minus = self.sub(sum, val)?;
            sum = self.sel(neg, minus, plus)?;
        }
        let sum_neg = self.slt(sum, zero)?;
        let negated = self.sub(zero, sum)?;
        let mag = self.sel(sum_neg, negated, sum)?;
        let sum_zero = self.eq(sum, 0)?;
        // The sum as f64 bits: exact (below 2^53), its leading bit's exponent lsb + msb.
        let msb = self.msb64(mag)?;
        let lead_exp = self.add(lsb, msb)?;
        let k52 = self.u64c(52)?;
        let up = self.sub(k52, msb)?;
        let frac = self.shl_v(mag, up)?;
        let frac = self.and(frac, (1 << 52) - 1)?;
        let k1023 = self.u64c(1023)?;
        let be = self.add(lead_exp, k1023)?;
        let be = self.shl(be, 52)?;
        let sbit = self.and(sum, 1 << 63)?;
        let bits = self.or(sbit, be)?;
        let bits = self.or(bits, frac)?;
        let no_sign = self.bconst(false)?;
        let rounded = self.result(fmt, &mode, bits, Err64::Exact, &[], Some(no_sign))?;
        // From the lowest precedence up: a rounded zero is +0, a sum at or past twice the
        // largest finite value an infinity, a zero sum or no finite term +0, an infinity
        // itself, an invalid term or a NaN operand the mode's NaN.
        let mag_r = self.and(rounded, fmt.all_mask() & !fmt.sign_mask())?;
        let r_zero = self.eq(mag_r, 0)?;
        let r = self.sel_k(r_zero, 0, rounded)?;
        let bias = self.u64c(fmt.bias() as u64)?;
        let over = self.slt(bias, lead_exp)?;
        let inf_k = self.u64c(fmt.inf())?;
        let neg_inf_k = self.u64c(fmt.inf() | fmt.sign_mask())?;
        let signed_inf = self.sel(sum_neg, neg_inf_k, inf_k)?;
        let r = self.sel(over, signed_inf, r)?;
        let r = self.sel_k(sum_zero, 0, r)?;
        let no_finite = self.lnot(any_finite)?;
        let r = self.sel_k(no_finite, 0, r)?;
        let any_inf = self.lor(pos_inf, neg_inf)?;
        let inf_r = self.sel(neg_inf, neg_inf_k, inf_k)?;
        let r = self.sel(any_inf, inf_r, r)?;
        let both = self.land(pos_inf, neg_inf)?;
        let bad = self.lor(both, invalid)?;
        let bad = self.lor(bad, any_nan)?;
        let nan = self.nan_bits(fmt, mode.nan, &[])?;
        let r = self.sel(bad, nan, r)?;
        self.elem_out(fmt, r)
    }

    /// A term of format `f` (bits in a u64, not a NaN): sign, class, the exponent of its
    /// lowest significand bit (subnormals at the least exponent), the exponent its leading
    /// bit has as a normal number's, and its significand.
    fn unpack_term(&mut self, f: FFmt, w: Word) -> Result<Term, EmitError> {
        let m = u64::from(f.man_bits());
        let sign = self.shr(w, u64::from(f.width()) - 1)?;
        let sign = self.and(sign, 1)?;
        let eb = self.shr(w, m)?;
        let eb = self.and(eb, f.exp_all_ones())?;
        let fr = self.and(w, (1 << m) - 1)?;
        let e0 = self.eq(eb, 0)?;
        let f0 = self.eq(fr, 0)?;
        let inf = self.eq(eb, f.exp_all_ones())?;
        let zero = self.land(e0, f0)?;
        let hidden = self.u64c(1 << m)?;
        let hidden = self.sel_k(e0, 0, hidden)?;
        let sig = self.or(fr, hidden)?;
        let eb = self.sel_k(e0, 1, eb)?;
        let k = self.u64c((i64::from(f.bias()) + m as i64) as u64)?;
        let exp = self.sub(eb, k)?;
        let mk = self.u64c(m)?;
        let top = self.add(exp, mk)?;
        Ok(Term { sign, inf, zero, exp, top, sig })
    }
}
