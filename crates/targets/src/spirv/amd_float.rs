//! AMD float operations emitted exactly: `fldexp` and `ffrexpmant` on one element (as
//! `soft::ldexp` and `soft::frexp_mant` define them) and the division helpers `fdivscale`,
//! `fdivflag`, `fdivfmas` and `fdivfixup` (`soft::divide`). Narrow formats go through f64,
//! where a power-of-two scaling of a narrow value is exact, then one rounding to the format;
//! f64 goes through the integer path of [`super::f64`].

use super::emit::{internal, unsupported, Em, EmitError};
use super::float::Err64;
use isabridge_ir::ir::Value;
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::fdiv::{FDivKind, FDivOp};
use isabridge_ir::ops::float::Omod;
use isabridge_ir::soft::{FFmt, FloatMode, Round};
use isabridge_ir::types::{Scalar, Type};
use isabridge_ir::Op;
use rspirv::spirv::Word;

/// The largest |n| applied to a narrow value in f64: any nonzero f16 or f32 scaled further
/// overflows or rounds like this one, and the product stays a normal f64.
const NARROW_LDEXP_LIMIT: i64 = 400;

/// The post-scaling exponent, the far quotient distance and the tiny numerator exponent field
/// of the division helpers (`soft::divide`).
fn div_consts(f: FFmt) -> (i64, i64, i64) {
    match f {
        FFmt::F64 => (128, 768, 53),
        _ => (64, 96, 23),
    }
}

impl Em<'_> {
    /// a < b for signed u64 words within ±2^62, compared unsigned after a bias (see
    /// [`Em::s_clamp`]).
    fn s_lt(&mut self, a: Word, b: Word) -> Result<Word, EmitError> {
        let tb = self.bool_ty()?;
        let bias = self.u64c(1 << 62)?;
        let (a, b) = (self.add(a, bias)?, self.add(b, bias)?);
        self.b.u_less_than(tb, None, a, b).map_err(internal)
    }

    /// `x` (a signed u64 word within ±2^62) clamped to [lo, hi], compared unsigned after a
    /// bias of 2^62 (lavapipe gave wrong results for signed 64-bit compares of a
    /// sign-extended value against constants; unsigned ones are exact).
    fn s_clamp(&mut self, x: Word, lo: i64, hi: i64) -> Result<Word, EmitError> {
        const BIAS: i64 = 1 << 62;
        let tb = self.bool_ty()?;
        let bias = self.u64c(BIAS as u64)?;
        let xb = self.add(x, bias)?;
        let (l, h) = (self.u64c((lo + BIAS) as u64)?, self.u64c((hi + BIAS) as u64)?);
        let below = self.b.u_less_than(tb, None, xb, l).map_err(internal)?;
        let xb = self.sel(below, l, xb)?;
        let above = self.b.u_less_than(tb, None, h, xb).map_err(internal)?;
        let xb = self.sel(above, h, xb)?;
        self.sub(xb, bias)
    }

    fn bsel(&mut self, c: Word, a: Word, b: Word) -> Result<Word, EmitError> {
        let tb = self.bool_ty()?;
        self.b.select(tb, None, c, a, b).map_err(internal)
    }

    /// `x` × 2^n (f bits in u64, `n` a signed u64 word) with one rounding of `mode`
    /// (`soft::ldexp` on an operand already flushed): NaNs by the rule, infinities and zeros
    /// unchanged, then flush and saturation.
    pub(super) fn ldexp_elem(&mut self, f: FFmt, mode: &FloatMode, x: Word, n: Word) -> Result<Word, EmitError> {
        if f == FFmt::F64 {
            let n = self.s_clamp(n, -10_000, 10_000)?;
            let (nan, inf, zero) = self.classes(x)?;
            let p = self.unpack_f64(x)?;
            // Beyond these exponents every finite nonzero value overflows or rounds as a value
            // below half the smallest subnormal does; the clamp keeps `pack_f64`'s exponent
            // field arithmetic in range.
            let e = self.add(p.exp, n)?;
            let e = self.s_clamp(e, -1200, 1100)?;
            let fls = self.bconst(false)?;
            let (packed, tiny) = self.pack_f64(p.sign, e, p.sig, fls, mode.round)?;
            let iz = self.lor(inf, zero)?;
            let r = self.sel(iz, x, packed)?;
            let qn = self.nan_bits(f, mode.nan, &[x])?;
            let r = self.sel(nan, qn, r)?;
            let special = self.lor(iz, nan)?;
            let ns = self.lnot(special)?;
            let tiny = self.land(tiny, ns)?;
            return self.finish(f, mode, r, Some(tiny));
        }
        let n = self.s_clamp(n, -NARROW_LDEXP_LIMIT, NARROW_LDEXP_LIMIT)?;
        let k = self.u64c(1023)?;
        let e = self.add(n, k)?;
        let scale = self.shl(e, 52)?;
        let w = self.widen(f, x)?;
        let (xd, sd) = (self.as_double(w)?, self.as_double(scale)?);
        let d = self.fop(b'*', xd, sd)?;
        let d = self.double_bits(d)?;
        self.result(f, mode, d, Err64::Exact, &[x], None)
    }

    /// The significand of `x` in [0.5, 1) with its sign (`soft::frexp_mant` on an operand
    /// already flushed): NaNs by the rule, infinities and zeros unchanged.
    pub(super) fn frexp_mant_elem(&mut self, f: FFmt, mode: &FloatMode, x: Word) -> Result<Word, EmitError> {
        let man = f.man_bits() as u64;
        let (sign, frac) = if f == FFmt::F64 {
            let p = self.unpack_f64(x)?;
            (self.shl(p.sign, 63)?, self.and(p.sig, (1 << 52) - 1)?)
        } else {
            // The f64 of a narrow value is normalized (subnormals included) and exact.
            let w = self.widen(f, x)?;
            let fr = self.and(w, (1 << 52) - 1)?;
            (self.and(x, f.sign_mask())?, self.shr(fr, 52 - man)?)
        };
        let half = self.u64c((f.bias() as u64 - 1) << man)?;
        let m = self.or(sign, half)?;
        let m = self.or(m, frac)?;
        let mag = self.and(x, f.all_mask() & !f.sign_mask())?;
        let zero = self.eq(mag, 0)?;
        let e = self.shr(mag, man)?;
        let top = self.eq(e, f.exp_all_ones())?;
        let iz = self.lor(zero, top)?;
        let r = self.sel(iz, x, m)?;
        let nan = self.is_nan_bits(f, x)?;
        let qn = self.nan_bits(f, mode.nan, &[x])?;
        let r = self.sel(nan, qn, r)?;
        self.finish(f, mode, r, None)
    }

    /// The biased exponent field of `x` (f bits in u64).
    fn exp_field(&mut self, f: FFmt, x: Word) -> Result<Word, EmitError> {
        let e = self.shr(x, f.man_bits() as u64)?;
        self.and(e, f.exp_all_ones())
    }

    /// The case of the division scaling rule for (x, den, num): the flag (b1) and the power of
    /// two x is multiplied by (a signed u64 word), as `soft::divide::scale_case` decides them.
    fn div_scale_case(&mut self, f: FFmt, x: Word, den: Word, num: Word) -> Result<(Word, Word), EmitError> {
        let (k, far, tiny) = div_consts(f);
        let tb = self.bool_ty()?;
        let (ed, en) = (self.exp_field(f, den)?, self.exp_field(f, num)?);
        let diff = self.sub(en, ed)?;
        let lim = self.u64c(2 * f.bias() as u64 - 2)?;
        let rcp_tiny = self.b.u_greater_than(tb, None, ed, lim).map_err(internal)?;
        let neg_far = self.u64c((1 - far) as u64)?;
        let quo_tiny = self.s_lt(diff, neg_far)?;
        let is_den = self.b.i_equal(tb, None, x, den).map_err(internal)?;
        let farw = self.u64c(far as u64)?;
        let near = self.s_lt(diff, farw)?;
        let c1 = self.lnot(near)?;
        let ed0 = self.eq(ed, 0)?;
        let dmag = self.and(den, f.all_mask() & !f.sign_mask())?;
        let dz = self.eq(dmag, 0)?;
        let dnz = self.lnot(dz)?;
        let c2 = self.land(ed0, dnz)?;
        let c3 = self.land(rcp_tiny, quo_tiny)?;
        let tinyw = self.u64c(tiny as u64 + 1)?;
        let c6 = self.b.u_less_than(tb, None, en, tinyw).map_err(internal)?;
        let (t, fl) = (self.bconst(true)?, self.bconst(false)?);
        let flag = self.bsel(quo_tiny, t, fl)?;
        let flag = self.bsel(rcp_tiny, fl, flag)?;
        let flag = self.bsel(c3, t, flag)?;
        let flag = self.bsel(c2, fl, flag)?;
        let flag = self.bsel(c1, t, flag)?;
        let (z, pk, nk) = (self.u64c(0)?, self.u64c(k as u64)?, self.u64c((-k) as u64)?);
        let p = self.sel(c6, pk, z)?;
        let p5 = self.sel(is_den, z, pk)?;
        let p = self.sel(quo_tiny, p5, p)?;
        let p = self.sel(rcp_tiny, nk, p)?;
        let p3 = self.sel(is_den, nk, z)?;
        let p = self.sel(c3, p3, p)?;
        let p = self.sel(c2, pk, p)?;
        let p1 = self.sel(is_den, pk, z)?;
        let p = self.sel(c1, p1, p)?;
        Ok((flag, p))
    }

    /// A division helper (`ops::fdiv`) on scalar f16, f32 or f64 operands.
    pub(super) fn fdiv(&mut self, d: &FDivOp, v: Value, t: Type, at: &[Type], a: &[Word]) -> Result<Word, EmitError> {
        let text = Op::FDiv(*d).mnemonic();
        let Type::S(Scalar::F(f)) = at[0] else {
            return Err(unsupported(self.cur_ir, v.0, text, "division helpers on other than scalar floats"));
        };
        if !matches!(f, FFmt::F16 | FFmt::F32 | FFmt::F64) {
            return Err(unsupported(self.cur_ir, v.0, text, "division helpers on other than f16, f32 and f64"));
        }
        let mut raw = Vec::with_capacity(3);
        for i in 0..3 {
            raw.push(self.elems(at[i], a[i], false)?[0]);
        }
        if d.kind == FDivKind::Flag {
            let m = f.all_mask();
            let (x, den, num) = (self.and(raw[0], m)?, self.and(raw[1], m)?, self.and(raw[2], m)?);
            return Ok(self.div_scale_case(f, x, den, num)?.0);
        }
        let mode = FloatMode { sat: false, ..d.mode };
        let x: Vec<Word> = raw.iter().map(|&w| if mode.ftz_in { self.flush_bits(f, w) } else { Ok(w) }).collect::<Result<_, _>>()?;
        let r = match d.kind {
            FDivKind::Scale => self.div_scale(f, &mode, &x)?,
            FDivKind::Fmas => self.div_fmas(f, &mode, &raw, &x, a[3])?,
            _ => self.div_fixup(f, &mode, &x)?,
        };
        let r = if d.omod != Omod::None { self.omod(f, &mode, d.omod, r)? } else { r };
        let r = if d.mode.sat { self.saturate(f, r)? } else { r };
        self.pack(t, f, vec![r])
    }

    /// `soft::divide::scale` on flushed operands (x, den, num).
    fn div_scale(&mut self, f: FFmt, mode: &FloatMode, x: &[Word]) -> Result<Word, EmitError> {
        let (_, p) = self.div_scale_case(f, x[0], x[1], x[2])?;
        let keep = FloatMode { ftz_in: false, ..*mode };
        let scaled = self.ldexp_elem(f, &keep, x[0], p)?;
        let kept = self.finish(f, mode, x[0], None)?;
        let nan = self.is_nan_bits(f, x[0])?;
        let r = self.sel(nan, kept, scaled)?;
        let (dm, nm) = (self.and(x[1], f.all_mask() & !f.sign_mask())?, self.and(x[2], f.all_mask() & !f.sign_mask())?);
        let (dz, nz) = (self.eq(dm, 0)?, self.eq(nm, 0)?);
        let zero = self.lor(dz, nz)?;
        let q = self.u64c(f.qnan() | f.sign_mask())?;
        let q = self.finish(f, mode, q, None)?;
        self.sel(zero, q, r)
    }

    /// `soft::divide::fma_post`: fma(a, b, c) × 2^(±K) under `flag` (b1), one rounding; the
    /// direction comes from the raw c's exponent field.
    fn div_fmas(&mut self, f: FFmt, mode: &FloatMode, raw: &[Word], x: &[Word], flag: Word) -> Result<Word, EmitError> {
        let (k, _, _) = div_consts(f);
        let tb = self.bool_ty()?;
        let ec = self.exp_field(f, raw[2])?;
        let bias = self.u64c(f.bias() as u64)?;
        let up = self.b.u_greater_than(tb, None, ec, bias).map_err(internal)?;
        let (z, pk, nk) = (self.u64c(0)?, self.u64c(k as u64)?, self.u64c((-k) as u64)?);
        let p = self.sel(up, pk, nk)?;
        let p = self.sel(flag, p, z)?;
        if f == FFmt::F64 {
            let (r, tiny) = self.f64_fma(mode, x[0], x[1], x[2], Some(p))?;
            return self.finish(f, mode, r, Some(tiny));
        }
        let mut x = x.to_vec();
        let w: Vec<Word> = x.iter().map(|&v| self.widen(f, v)).collect::<Result<_, _>>()?;
        let fw: Vec<Word> = w.iter().map(|&v| self.as_double(v)).collect::<Result<_, _>>()?;
        let (d, err, zs) = self.fma_terms(mode, &mut x, &w, &fw)?;
        // Scaling the f64 sum and its error by 2^(±K) is exact for narrow operands.
        let k1023 = self.u64c(1023)?;
        let e = self.add(p, k1023)?;
        let s = self.shl(e, 52)?;
        let s = self.as_double(s)?;
        let dd = self.as_double(d)?;
        let dd = self.fop(b'*', dd, s)?;
        let d = self.double_bits(dd)?;
        let err = match err {
            Err64::Term(e) => Err64::Term(self.fop(b'*', e, s)?),
            Err64::Exact => Err64::Exact,
        };
        self.result(f, mode, d, err, &x, zs)
    }

    /// `soft::divide::fixup` on flushed operands (q, den, num).
    fn div_fixup(&mut self, f: FFmt, mode: &FloatMode, x: &[Word]) -> Result<Word, EmitError> {
        let (q, den, num) = (x[0], x[1], x[2]);
        let magm = f.all_mask() & !f.sign_mask();
        let dn = self.b.bitwise_xor(self.t_u64, None, den, num).map_err(internal)?;
        let sign = self.and(dn, f.sign_mask())?;
        let inf = self.u64c(f.inf())?;
        let sinf = self.or(sign, inf)?;
        let (dm, nm, qm) = (self.and(den, magm)?, self.and(num, magm)?, self.and(q, magm)?);
        let (dz, nz) = (self.eq(dm, 0)?, self.eq(nm, 0)?);
        let (di, ni) = (self.eq(dm, f.inf())?, self.eq(nm, f.inf())?);
        let (ed, en) = (self.exp_field(f, den)?, self.exp_field(f, num)?);
        let diff = self.sub(en, ed)?;
        let lim = self.u64c((-(f.bias() as i64 + f.man_bits() as i64)) as u64)?;
        let below = self.s_lt(diff, lim)?;
        let r = self.or(sign, qm)?;
        let qnan = self.is_nan_bits(f, q)?;
        let r = self.sel(qnan, sinf, r)?;
        let zc = self.lor(di, nz)?;
        let zc = self.lor(zc, below)?;
        let r = self.sel(zc, sign, r)?;
        let ic = self.lor(dz, ni)?;
        let r = self.sel(ic, sinf, r)?;
        let zz = self.land(dz, nz)?;
        let ii = self.land(di, ni)?;
        let inv = self.lor(zz, ii)?;
        let dq = self.u64c(f.qnan() | f.sign_mask())?;
        let r = self.sel(inv, dq, r)?;
        let (nn, dnan) = (self.is_nan_bits(f, num)?, self.is_nan_bits(f, den)?);
        let anyn = self.lor(nn, dnan)?;
        let nr = self.nan_bits(f, mode.nan, &[num, den])?;
        let r = self.sel(anyn, nr, r)?;
        self.finish(f, mode, r, None)
    }

    /// An f64 rounded to an integral value in the mode's direction (`soft::round_int` on an
    /// operand already flushed), in integer arithmetic: lavapipe's f64 trunc left fraction bits
    /// of values near 2^31 (RDNA2 F64Rounding row 13: v_trunc_f64 of 1527282232.5).
    pub(super) fn f64_round_int(&mut self, mode: &FloatMode, x: Word) -> Result<Word, EmitError> {
        let tb = self.bool_ty()?;
        let s = self.and(x, 1 << 63)?;
        let neg = self.ne0_k(s)?;
        let pos = self.lnot(neg)?;
        let e = self.shr(x, 52)?;
        let e = self.and(e, 0x7ff)?;
        let mag = self.and(x, (1 << 63) - 1)?;
        let nonzero = self.ne0_k(mag)?;
        // 1 <= |x| < 2^52: clear the 1075 - e fraction bits, then step up one unit by mode.
        let k1075 = self.u64c(1075)?;
        let fb = self.sub(k1075, e)?;
        let k52 = self.u64c(52)?;
        let big = self.b.u_greater_than_equal(tb, None, e, k1075).map_err(internal)?;
        let k1023 = self.u64c(1023)?;
        let small = self.b.u_less_than(tb, None, e, k1023).map_err(internal)?;
        let fbc = self.sel(big, k52, fb)?;
        let one = self.u64c(1)?;
        let unit = self.b.shift_left_logical(self.t_u64, None, one, fbc).map_err(internal)?;
        let mask = self.sub(unit, one)?;
        let frac = self.b.bitwise_and(self.t_u64, None, x, mask).map_err(internal)?;
        let nmask = self.b.not(self.t_u64, None, mask).map_err(internal)?;
        let kept = self.b.bitwise_and(self.t_u64, None, x, nmask).map_err(internal)?;
        let inexact = self.ne0_k(frac)?;
        let half = self.shr(unit, 1)?;
        let fls = self.bconst(false)?;
        let up = match mode.round {
            Round::Rz => fls,
            Round::Rp => self.land(pos, inexact)?,
            Round::Rm => self.land(neg, inexact)?,
            Round::Rn => {
                let gt = self.b.u_greater_than(tb, None, frac, half).map_err(internal)?;
                let at = self.b.i_equal(tb, None, frac, half).map_err(internal)?;
                let odd = self.b.bitwise_and(self.t_u64, None, x, unit).map_err(internal)?;
                let odd = self.ne0_k(odd)?;
                let tie = self.land(at, odd)?;
                self.lor(gt, tie)?
            }
        };
        let stepped = self.add(kept, unit)?;
        let mid = self.sel(up, stepped, kept)?;
        // |x| < 1: a signed zero or a signed one by mode.
        let one_bits = self.u64c(0x3ff << 52)?;
        let sone = self.or(s, one_bits)?;
        let to_one = match mode.round {
            Round::Rz => fls,
            Round::Rp => self.land(pos, nonzero)?,
            Round::Rm => self.land(neg, nonzero)?,
            Round::Rn => {
                let h = self.u64c(0x3fe << 52)?;
                self.b.u_greater_than(tb, None, mag, h).map_err(internal)?
            }
        };
        let low = self.sel(to_one, sone, s)?;
        let r = self.sel(small, low, mid)?;
        let r = self.sel(big, x, r)?;
        let nan = self.is_nan_bits(FFmt::F64, x)?;
        let qn = self.nan_bits(FFmt::F64, mode.nan, &[x])?;
        let r = self.sel(nan, qn, r)?;
        self.finish(FFmt::F64, mode, r, None)
    }

    fn ne0_k(&mut self, a: Word) -> Result<Word, EmitError> {
        let z = self.eq(a, 0)?;
        self.lnot(z)
    }

    /// `frexpexp`: the exponent e with x = m × 2^e, m in [0.5, 1) (`soft::frexp_exp`), 0 for
    /// zeros, infinities and NaNs, as an integer of type `to`.
    pub(super) fn frexp_exp(&mut self, mode: FloatMode, v: Value, from: Type, to: Type, x: Word) -> Result<Word, EmitError> {
        let text = Op::Conv(ConvOp::FrexpExp { mode }).mnemonic();
        let (Type::S(Scalar::F(f)), Some(bits)) = (from, to.is_int().then(|| to.bits())) else {
            return Err(unsupported(self.cur_ir, v.0, text, "frexpexp of other than a scalar float to an integer"));
        };
        let e = self.elem_in(f, x, mode.ftz_in)?;
        let exp = if f == FFmt::F64 {
            let p = self.unpack_f64(e)?;
            let k = self.u64c(53)?;
            self.add(p.exp, k)?
        } else {
            let d = self.widen(f, e)?;
            let be = self.shr(d, 52)?;
            let be = self.and(be, 0x7ff)?;
            let k = self.u64c(1022)?;
            self.sub(be, k)?
        };
        let mag = self.and(e, f.all_mask() & !f.sign_mask())?;
        let zero = self.eq(mag, 0)?;
        let top = self.shr(mag, f.man_bits() as u64)?;
        let special = self.eq(top, f.exp_all_ones())?;
        let none = self.lor(zero, special)?;
        let r = self.sel_k(none, 0, exp)?;
        let r = if bits >= 64 { r } else { self.and(r, (1 << bits) - 1)? };
        self.word_to_value(r, to)
    }
}
