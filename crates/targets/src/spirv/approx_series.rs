//! The approximate functions of `isabridge_ir::soft::approx` (sine and cosine in revolutions,
//! 2^x, log2, tanh on f16/f32, and the f64 reciprocal and reciprocal square root) emitted as
//! the model evaluates them: the same f64 series with the same operations in the same order
//! (each `NoContraction`), the result rounded to the format in integer arithmetic. The operand
//! is widened exactly in integer arithmetic; the series only meet subnormal f64 values in
//! terms far below the result's last place, so a device that flushes them gives the same bits.

use super::emit::{internal, unsupported, Em, EmitError};
use isabridge_ir::soft::approx::ApproxFn;
use isabridge_ir::soft::{FFmt, FloatMode, Round, Tininess};
use rspirv::dr::Operand;
use rspirv::spirv::Word;

/// GLSL.std.450 instruction numbers.
const GLSL_FLOOR: u32 = 8;
const GLSL_SQRT: u32 = 31;

const LN2: f64 = std::f64::consts::LN_2;
const PI: f64 = std::f64::consts::PI;

impl Em<'_> {
    fn dk(&mut self, v: f64) -> Word {
        let t = self.f64_ty();
        if let Some(w) = self.heap_f64_nonfinite(t, v) {
            return w;
        }
        self.b.constant_bit64(t, v.to_bits())
    }
    fn dsel(&mut self, c: Word, a: Word, b: Word) -> Result<Word, EmitError> {
        let t = self.f64_ty();
        self.b.select(t, None, c, a, b).map_err(internal)
    }
    fn dcmp(&mut self, op: u8, a: Word, b: Word) -> Result<Word, EmitError> {
        let tb = self.bool_ty()?;
        match op {
            b'<' => self.b.f_ord_less_than(tb, None, a, b),
            b'>' => self.b.f_ord_greater_than(tb, None, a, b),
            b'l' => self.b.f_ord_less_than_equal(tb, None, a, b),
            _ => self.b.f_ord_equal(tb, None, a, b),
        }
        .map_err(internal)
    }
    fn dneg(&mut self, a: Word) -> Result<Word, EmitError> {
        let t = self.f64_ty();
        let r = self.b.f_negate(t, None, a).map_err(internal)?;
        self.no_contraction(r);
        Ok(r)
    }
    fn dabs(&mut self, a: Word) -> Result<Word, EmitError> {
        let bits = self.double_bits(a)?;
        let m = self.and(bits, (1 << 63) - 1)?;
        self.as_double(m)
    }

    /// e^y - 1 for |y| <= 0.75 (the model's `expm1_small`).
    fn expm1_small(&mut self, y: Word) -> Result<Word, EmitError> {
        let (mut term, mut sum) = (y, y);
        let mut k = 2.0;
        while k < 30.0 {
            let kk = self.dk(k);
            let q = self.fop(b'/', y, kk)?;
            term = self.fop(b'*', term, q)?;
            sum = self.fop(b'+', sum, term)?;
            k += 1.0;
        }
        Ok(sum)
    }

    /// x rounded to the nearest integer, ties to even, for |x| < 2^52 (the model's
    /// `round_half_even`).
    fn round_half_even(&mut self, x: Word) -> Result<Word, EmitError> {
        let c = self.dk(4503599627370496.0);
        let z = self.dk(0.0);
        let up = self.fop(b'+', x, c)?;
        let up = self.fop(b'-', up, c)?;
        let dn = self.fop(b'-', x, c)?;
        let dn = self.fop(b'+', dn, c)?;
        let pos = self.dcmp(b'<', x, z)?;
        self.dsel(pos, dn, up)
    }

    /// 2^n for an integral f64 `n` in [-1200, 1100]: below 2^-1022 the smallest normal (every
    /// such product rounds to zero in the formats up to f32, as the model's subnormal does),
    /// above 2^1023 infinity.
    fn pow2(&mut self, n: Word) -> Result<Word, EmitError> {
        let ni = self.b.convert_f_to_s(self.t_u64, None, n).map_err(internal)?;
        let lo = self.u64c((-1022i64) as u64)?;
        let hi = self.u64c(1024)?;
        let tb = self.bool_ty()?;
        let below = self.b.s_less_than(tb, None, ni, lo).map_err(internal)?;
        let ni = self.sel(below, lo, ni)?;
        let above = self.b.s_greater_than(tb, None, ni, hi).map_err(internal)?;
        let ni = self.sel(above, hi, ni)?;
        let k = self.u64c(1023)?;
        let e = self.add(ni, k)?;
        let e = self.shl(e, 52)?;
        self.as_double(e)
    }

    /// 2^x (the model's `exp2`).
    fn exp2_series(&mut self, x: Word) -> Result<Word, EmitError> {
        let (big, small) = (self.dk(1100.0), self.dk(-1200.0));
        let over = self.dcmp(b'>', x, big)?;
        let under = self.dcmp(b'<', x, small)?;
        let out = self.lor(over, under)?;
        let zero = self.dk(0.0);
        let xs = self.dsel(out, zero, x)?;
        let n = self.round_half_even(xs)?;
        let f = self.fop(b'-', xs, n)?;
        let ln2 = self.dk(LN2);
        let y = self.fop(b'*', f, ln2)?;
        let e = self.expm1_small(y)?;
        let one = self.dk(1.0);
        let m = self.fop(b'+', one, e)?;
        let p = self.pow2(n)?;
        let r = self.fop(b'*', m, p)?;
        let inf = self.dk(f64::INFINITY);
        let r = self.dsel(over, inf, r)?;
        self.dsel(under, zero, r)
    }

    /// ln(x) for a normal positive x (the model's `ln`).
    fn ln_series(&mut self, x: Word) -> Result<Word, EmitError> {
        let bits = self.double_bits(x)?;
        let e = self.shr(bits, 52)?;
        let e = self.and(e, 0x7ff)?;
        let k = self.u64c(1023)?;
        let e = self.sub(e, k)?;
        let fr = self.and(bits, (1 << 52) - 1)?;
        let one_bits = self.u64c(1023 << 52)?;
        let mb = self.or(fr, one_bits)?;
        let m = self.as_double(mb)?;
        let s2 = self.dk(std::f64::consts::SQRT_2);
        let high = self.dcmp(b'>', m, s2)?;
        let half = self.dk(0.5);
        let mh = self.fop(b'*', m, half)?;
        let m = self.dsel(high, mh, m)?;
        let one = self.u64c(1)?;
        let e1 = self.add(e, one)?;
        let e = self.sel(high, e1, e)?;
        let d1 = self.dk(1.0);
        let num = self.fop(b'-', m, d1)?;
        let den = self.fop(b'+', m, d1)?;
        let t = self.fop(b'/', num, den)?;
        let t2 = self.fop(b'*', t, t)?;
        let mut term = t;
        let mut sum = self.dk(0.0);
        let mut k = 1.0;
        while k < 60.0 {
            let kk = self.dk(k);
            let q = self.fop(b'/', term, kk)?;
            sum = self.fop(b'+', sum, q)?;
            term = self.fop(b'*', term, t2)?;
            k += 2.0;
        }
        let two = self.dk(2.0);
        let s = self.fop(b'*', two, sum)?;
        let t64 = self.f64_ty();
        let ef = self.b.convert_s_to_f(t64, None, e).map_err(internal)?;
        let ln2 = self.dk(LN2);
        let el = self.fop(b'*', ef, ln2)?;
        self.fop(b'+', s, el)
    }

    /// (sin 2πr, cos 2πr) for finite r (the model's `sincos_rev`).
    fn sincos_rev(&mut self, r: Word) -> Result<(Word, Word), EmitError> {
        let four = self.dk(4.0);
        let r4 = self.fop(b'*', four, r)?;
        let big = self.dk(4503599627370496.0);
        let a4 = self.dabs(r4)?;
        let huge = self.dcmp(b'l', big, a4)?;
        let z = self.dk(0.0);
        let safe = self.dsel(huge, z, r4)?;
        let q = self.round_half_even(safe)?;
        let q = self.dsel(huge, r4, q)?;
        let f = self.fop(b'-', r4, q)?;
        let hp = self.dk(PI / 2.0);
        let a = self.fop(b'*', f, hp)?;
        let a2 = self.fop(b'*', a, a)?;
        let (mut s, mut c) = (self.dk(0.0), self.dk(0.0));
        let (mut ts, mut tc) = (a, self.dk(1.0));
        let na2 = self.dneg(a2)?;
        let mut k = 1.0f64;
        while k < 40.0 {
            s = self.fop(b'+', s, ts)?;
            c = self.fop(b'+', c, tc)?;
            let ds = self.dk((k + 1.0) * (k + 2.0));
            let qs = self.fop(b'/', na2, ds)?;
            ts = self.fop(b'*', ts, qs)?;
            let dc = self.dk(k * (k + 1.0));
            let qc = self.fop(b'/', na2, dc)?;
            tc = self.fop(b'*', tc, qc)?;
            k += 2.0;
        }
        // q mod 4; 0 when |q| >= 2^53 (the model's rule).
        let set = self.glsl_import();
        let t64 = self.f64_ty();
        let quarter = self.dk(0.25);
        let qq = self.fop(b'*', q, quarter)?;
        let fl = self.b.ext_inst(t64, None, set, GLSL_FLOOR, [Operand::IdRef(qq)]).map_err(internal)?;
        let fl4 = self.fop(b'*', fl, four)?;
        let qm = self.fop(b'-', q, fl4)?;
        let lim = self.dk(9007199254740992.0);
        let aq = self.dabs(q)?;
        let vast = self.dcmp(b'l', lim, aq)?;
        let qm = self.dsel(vast, z, qm)?;
        let (ns, nc) = (self.dneg(s)?, self.dneg(c)?);
        let is = |em: &mut Self, k: f64| -> Result<Word, EmitError> {
            let kk = em.dk(k);
            em.dcmp(b'=', qm, kk)
        };
        let (q1, q2, q3) = (is(self, 1.0)?, is(self, 2.0)?, is(self, 3.0)?);
        let so = self.dsel(q1, c, s)?;
        let so = self.dsel(q2, ns, so)?;
        let so = self.dsel(q3, nc, so)?;
        let co = self.dsel(q1, ns, c)?;
        let co = self.dsel(q2, nc, co)?;
        let co = self.dsel(q3, s, co)?;
        Ok((so, co))
    }

    /// An approximate function the model evaluates by series, or an f64 reciprocal (square
    /// root): `eval`'s special cases, then the f64 result rounded to nearest and flushed.
    pub(super) fn approx_series(&mut self, func: ApproxFn, ftz: bool, f: FFmt, x: Word) -> Result<Word, EmitError> {
        let text = format!("approx.{}", func.name());
        if f == FFmt::F64 && (!ftz || func == ApproxFn::Sqrt) && matches!(func, ApproxFn::Rcp | ApproxFn::Rsq | ApproxFn::Sqrt) {
            // Keeping subnormals (the device may flush them), and every f64 square root (a
            // result is never subnormal): in integer arithmetic.
            let e = self.elem_in(f, x, ftz)?;
            let r = match func {
                ApproxFn::Rcp => self.rcp_f64_exact(e)?,
                ApproxFn::Rsq => self.rsq_f64_exact(e)?,
                _ => self.sqrt_f64_model(e)?,
            };
            return self.elem_out(f, r);
        }
        if f == FFmt::F64 && !matches!(func, ApproxFn::Rcp | ApproxFn::Rsq) {
            return Err(unsupported(self.cur_ir, u32::MAX, text, "f64 approximations other than reciprocal (square root)"));
        }

        if !matches!(f, FFmt::F16 | FFmt::F32 | FFmt::F64) {
            return Err(unsupported(self.cur_ir, u32::MAX, text, "approximations in this format"));
        }
        let e = self.elem_in(f, x, ftz)?;
        let d = self.widen(f, e)?;
        let xd = self.as_double(d)?;
        let tb = self.bool_ty()?;
        let set = self.glsl_import();
        let t64 = self.f64_ty();
        let (z, one, inf, ninf) = (self.dk(0.0), self.dk(1.0), self.dk(f64::INFINITY), self.dk(f64::NEG_INFINITY));
        let mag = self.and(d, (1 << 63) - 1)?;
        let is_zero = self.eq(mag, 0)?;
        let is_inf = self.eq(mag, 0x7ff << 52)?;
        let sgn = self.shr(d, 63)?;
        let neg = self.eq(sgn, 1)?;
        let fls = self.bconst(false)?;
        // (value, "gives the NaN").
        let (r, nan) = match func {
            ApproxFn::SinRev | ApproxFn::CosRev => {
                let xs = self.dsel(is_inf, z, xd)?;
                let (s, c) = self.sincos_rev(xs)?;
                let v = if func == ApproxFn::SinRev { self.dsel(is_zero, xd, s)? } else { c };
                (v, is_inf)
            }
            ApproxFn::Ex2 => {
                let xs = self.dsel(is_inf, z, xd)?;
                let v = self.exp2_series(xs)?;
                let at_inf = self.dsel(neg, z, inf)?;
                (self.dsel(is_inf, at_inf, v)?, fls)
            }
            ApproxFn::Lg2 => {
                let xs = self.dsel(is_zero, one, xd)?;
                let xs = self.dsel(is_inf, one, xs)?;
                let xs = self.dabs(xs)?;
                let l = self.ln_series(xs)?;
                let ln2 = self.dk(LN2);
                let v = self.fop(b'/', l, ln2)?;
                let v = self.dsel(is_inf, xd, v)?;
                let v = self.dsel(is_zero, ninf, v)?;
                let nz = self.lnot(is_zero)?;
                (v, self.land(neg, nz)?)
            }
            ApproxFn::Tanh => {
                let m1 = self.dk(-1.0);
                let sg = self.dsel(neg, m1, one)?;
                let ax = self.dabs(xd)?;
                let twenty = self.dk(20.0);
                let far = self.dcmp(b'>', ax, twenty)?;
                let far = self.lor(far, is_inf)?;
                let xs = self.dsel(far, z, xd)?;
                let two = self.dk(2.0);
                let y = self.fop(b'*', two, xs)?;
                let ay = self.dabs(y)?;
                let k75 = self.dk(0.75);
                let small = self.dcmp(b'l', ay, k75)?;
                let ys = self.dsel(small, y, z)?;
                let em_s = self.expm1_small(ys)?;
                let ln2 = self.dk(LN2);
                let yl = self.fop(b'/', y, ln2)?;
                let yb = self.dsel(small, z, yl)?;
                let ex = self.exp2_series(yb)?;
                let em_b = self.fop(b'-', ex, one)?;
                let em1 = self.dsel(small, em_s, em_b)?;
                let den = self.fop(b'+', em1, two)?;
                let v = self.fop(b'/', em1, den)?;
                let v = self.dsel(is_zero, xd, v)?;
                (self.dsel(far, sg, v)?, fls)
            }
            ApproxFn::Rcp => (self.fop(b'/', one, xd)?, fls),
            ApproxFn::Rsq | ApproxFn::Sqrt => {
                let s = self.b.ext_inst(t64, None, set, GLSL_SQRT, [Operand::IdRef(xd)]).map_err(internal)?;
                let v = if func == ApproxFn::Rsq {
                    let q = self.fop(b'/', one, s)?;
                    let at0 = self.fop(b'/', one, xd)?;
                    self.dsel(is_zero, at0, q)?
                } else {
                    s
                };
                let nz = self.lnot(is_zero)?;
                (v, self.land(neg, nz)?)
            }
        };
        let rb = self.double_bits(r)?;
        let isn_in = self.is_nan_bits(f, e)?;
        let nan = self.lor(nan, isn_in)?;
        let rd = self.as_double(rb)?;
        let isn_r = self.b.is_nan(tb, None, rd).map_err(internal)?;
        let nan = self.lor(nan, isn_r)?;
        let mode = FloatMode { ftz_out: ftz, tininess: Tininess::AfterRounding, ..FloatMode::NV_RN };
        let out = if f == FFmt::F64 {
            rb
        } else {
            let rmag = self.and(rb, (1 << 63) - 1)?;
            let r_zero = self.eq(rmag, 0)?;
            let r_inf = self.eq(rmag, 0x7ff << 52)?;
            let (rounded, _) = self.round_to(f, rb, super::float::Err64::Exact, Round::Rn, false)?;
            let sign = self.shr(rb, 63)?;
            let sbit = self.shl(sign, f.width() as u64 - 1)?;
            let finf = self.u64c(f.inf())?;
            let sinf = self.or(sbit, finf)?;
            let o = self.sel(r_zero, sbit, rounded)?;
            self.sel(r_inf, sinf, o)?
        };
        let nanv = self.u64c(f.nv_nan())?;
        let out = self.sel(nan, nanv, out)?;
        let out = self.finish(f, &mode, out, None)?;
        self.elem_out(f, out)
    }
}

