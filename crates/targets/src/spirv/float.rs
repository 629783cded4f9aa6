//! Float operations emitted exactly, whatever the device's float controls: values are carried
//! as their bits in integers; an f16, bf16 or f32 operand is widened to f64 in integer
//! arithmetic (subnormals included, so a device that flushes denormals never sees one), the
//! operation is done in f64 where that is exact (products of two narrow operands, sums through
//! TwoSum, which gives the exact error of the rounded sum), and the f64 result with the sign of
//! its error is rounded to the destination format in integer arithmetic with the IR's
//! rounding direction, flush-to-zero, saturation and NaN rule (`isabridge_ir::soft`).

use super::emit::{internal, unsupported, Em, EmitError};
use isabridge_ir::ir::Value;
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::float::{FCmp, FloatKind, FloatOp, Omod};
use isabridge_ir::soft::approx::ApproxFn;
use isabridge_ir::soft::MinMaxKind;
use isabridge_ir::soft::{FFmt, FloatMode, NanRule, Round, Tininess};
use isabridge_ir::types::{Scalar, Type};
use isabridge_ir::Op;
use rspirv::spirv::Word;

/// GLSL.std.450 instruction numbers.
const GLSL_TRUNC: u32 = 3;
const GLSL_SQRT: u32 = 31;
const GLSL_FLOOR: u32 = 8;
const GLSL_CEIL: u32 = 9;
const GLSL_FIND_UMSB: u32 = 75;

/// The float format and lane count of a float type.
fn float_of(t: Type) -> Option<(FFmt, u8)> {
    match t {
        Type::S(Scalar::F(f)) => Some((f, 1)),
        Type::V(Scalar::F(f), n) => Some((f, n)),
        _ => None,
    }
}

/// How the rounded result's error is known: the f64 value is exact, or the exact value is the
/// f64 value plus an f64 error term.
#[derive(Clone, Copy)]
pub(super) enum Err64 {
    Exact,
    Term(Word),
}

impl Em<'_> {
    pub(super) fn u64c(&mut self, k: u64) -> Result<Word, EmitError> {
        self.konst(Type::I64, k)
    }

    pub(super) fn bool_ty(&mut self) -> Result<Word, EmitError> {
        self.ty(Type::B1)
    }

    pub(super) fn f64_ty(&mut self) -> Word {
        self.float64 = true;
        self.b.type_float(64, None)
    }

    pub(super) fn glsl_import(&mut self) -> Word {
        if let Some(w) = self.glsl_set {
            return w;
        }
        let w = self.b.ext_inst_import("GLSL.std.450");
        self.glsl_set = Some(w);
        w
    }

    // Small u64 helpers.
    pub(super) fn and(&mut self, a: Word, k: u64) -> Result<Word, EmitError> {
        let c = self.u64c(k)?;
        self.b.bitwise_and(self.t_u64, None, a, c).map_err(internal)
    }
    pub(super) fn or(&mut self, a: Word, b: Word) -> Result<Word, EmitError> {
        self.b.bitwise_or(self.t_u64, None, a, b).map_err(internal)
    }
    pub(super) fn shr(&mut self, a: Word, k: u64) -> Result<Word, EmitError> {
        let c = self.u64c(k)?;
        self.b.shift_right_logical(self.t_u64, None, a, c).map_err(internal)
    }
    pub(super) fn shl(&mut self, a: Word, k: u64) -> Result<Word, EmitError> {
        let c = self.u64c(k)?;
        self.b.shift_left_logical(self.t_u64, None, a, c).map_err(internal)
    }
    pub(super) fn add(&mut self, a: Word, b: Word) -> Result<Word, EmitError> {
        self.b.i_add(self.t_u64, None, a, b).map_err(internal)
    }
    pub(super) fn sub(&mut self, a: Word, b: Word) -> Result<Word, EmitError> {
        self.b.i_sub(self.t_u64, None, a, b).map_err(internal)
    }
    pub(super) fn eq(&mut self, a: Word, k: u64) -> Result<Word, EmitError> {
        let (tb, c) = (self.bool_ty()?, self.u64c(k)?);
        self.b.i_equal(tb, None, a, c).map_err(internal)
    }
    pub(super) fn sel(&mut self, c: Word, a: Word, b: Word) -> Result<Word, EmitError> {
        self.b.select(self.t_u64, None, c, a, b).map_err(internal)
    }
    pub(super) fn sel_k(&mut self, c: Word, a: u64, b: Word) -> Result<Word, EmitError> {
        let k = self.u64c(a)?;
        self.sel(c, k, b)
    }
    pub(super) fn lor(&mut self, a: Word, b: Word) -> Result<Word, EmitError> {
        let tb = self.bool_ty()?;
        self.b.logical_or(tb, None, a, b).map_err(internal)
    }
    pub(super) fn land(&mut self, a: Word, b: Word) -> Result<Word, EmitError> {
        let tb = self.bool_ty()?;
        self.b.logical_and(tb, None, a, b).map_err(internal)
    }
    pub(super) fn lnot(&mut self, a: Word) -> Result<Word, EmitError> {
        let tb = self.bool_ty()?;
        self.b.logical_not(tb, None, a).map_err(internal)
    }
    pub(super) fn bconst(&mut self, v: bool) -> Result<Word, EmitError> {
        self.konst(Type::B1, v as u64)
    }

    /// Whether the format's bits `x` (u64) are a NaN.
    pub(super) fn is_nan_bits(&mut self, f: FFmt, x: Word) -> Result<Word, EmitError> {
        let mag = self.and(x, f.all_mask() >> 1)?;
        let (tb, inf) = (self.bool_ty()?, self.u64c(f.inf())?);
        self.b.u_greater_than(tb, None, mag, inf).map_err(internal)
    }

    /// Flush a subnormal (format bits in u64) to a zero of its sign.
    pub(super) fn flush_bits(&mut self, f: FFmt, x: Word) -> Result<Word, EmitError> {
        let e = self.and(x, f.inf())?;
        let tiny = self.eq(e, 0)?;
        let s = self.and(x, f.sign_mask())?;
        self.sel(tiny, s, x)
    }

    /// An element of format `f` (SPIR-V storage integer) as u64 bits, `ftz` flushing it.
    pub(super) fn elem_in(&mut self, f: FFmt, x: Word, ftz: bool) -> Result<Word, EmitError> {
        let x = if f.width() == 64 {
            let t = self.ty(Type::S(Scalar::F(f)))?;
            self.cast(x, t, self.t_u64)?
        } else {
            let t = self.ty(Type::S(Scalar::F(f)))?;
            self.b.u_convert(self.t_u64, None, x).map_err(|e| internal(format!("{e} ({t})")))?
        };
        if ftz {
            self.flush_bits(f, x)
        } else {
            Ok(x)
        }
    }

    /// u64 bits back to an element of format `f`.
    pub(super) fn elem_out(&mut self, f: FFmt, x: Word) -> Result<Word, EmitError> {
        let t = self.ty(Type::S(Scalar::F(f)))?;
        if f.width() == 64 {
            self.cast(x, self.t_u64, t)
        } else {
            self.b.u_convert(t, None, x).map_err(internal)
        }
    }

    /// The f64 bits of the value of `x` (bits of format `f` in a u64), exactly.
    pub(super) fn widen(&mut self, f: FFmt, x: Word) -> Result<Word, EmitError> {
        if f == FFmt::F64 {
            return Ok(x);
        }
        if !matches!(f, FFmt::F16 | FFmt::BF16 | FFmt::F32) {
            return Err(unsupported(self.cur_ir, u32::MAX, format!("{f:?}"), "float formats other than f16, bf16, f32 and f64"));
        }
        let (man, bias) = (f.man_bits() as u64, f.bias() as u64);
        let emask = (1u64 << f.exp_bits()) - 1;
        let sign = self.shr(x, f.width() as u64 - 1)?;
        let sign = self.shl(sign, 63)?;
        let e = self.shr(x, man)?;
        let e = self.and(e, emask)?;
        let m = self.and(x, (1 << man) - 1)?;
        // Normal: rebias. All ones: infinity or NaN (payload kept, shifted up).
        let m52 = self.shl(m, 52 - man)?;
        let k = self.u64c(1023 - bias)?;
        let e_norm = self.add(e, k)?;
        let is_max = self.eq(e, emask)?;
        let e_out = self.sel_k(is_max, 0x7ff, e_norm)?;
        let e_sh = self.shl(e_out, 52)?;
        let normal = self.or(e_sh, m52)?;
        // Subnormal: normalize by the position of the top set bit.
        let m32 = self.b.u_convert(self.t_u32, None, m).map_err(internal)?;
        let set = self.glsl_import();
        let msb = self.b.ext_inst(self.t_u32, None, set, GLSL_FIND_UMSB, [rspirv::dr::Operand::IdRef(m32)]).map_err(internal)?;
        let msb = self.b.u_convert(self.t_u64, None, msb).map_err(internal)?;
        let mank = self.u64c(man)?;
        let shift = self.sub(mank, msb)?;
        let mn = self.b.shift_left_logical(self.t_u64, None, m, shift).map_err(internal)?;
        let mn = self.and(mn, (1 << man) - 1)?;
        let mn = self.shl(mn, 52 - man)?;
        // Biased f64 exponent: 1 - bias - shift + 1023.
        let base = self.u64c(1024 - bias)?;
        let es = self.sub(base, shift)?;
        let es = self.shl(es, 52)?;
        let sub = self.or(es, mn)?;
        let e0 = self.eq(e, 0)?;
        let m0 = self.eq(m, 0)?;
        let zero = self.u64c(0)?;
        let small = self.sel(m0, zero, sub)?;
        let mag = self.sel(e0, small, normal)?;
        self.or(sign, mag)
    }

    pub(super) fn as_double(&mut self, x: Word) -> Result<Word, EmitError> {
        let t = self.f64_ty();
        self.b.bitcast(t, None, x).map_err(internal)
    }
    pub(super) fn double_bits(&mut self, x: Word) -> Result<Word, EmitError> {
        self.b.bitcast(self.t_u64, None, x).map_err(internal)
    }
    pub(super) fn fop(&mut self, kind: u8, a: Word, b: Word) -> Result<Word, EmitError> {
        let t = self.f64_ty();
        let r = match kind {
            b'+' => self.b.f_add(t, None, a, b),
            b'-' => self.b.f_sub(t, None, a, b),
            b'*' => self.b.f_mul(t, None, a, b),
            _ => self.b.f_div(t, None, a, b),
        }
        .map_err(internal)?;
        self.no_contraction(r);
        Ok(r)
    }

    /// An f64 rounded to an integral value. Nearest-even is built from floor (lavapipe's
    /// RoundEven on f64 rounds 5287769.5 to 5287769): up when the fraction is above one half,
    /// or exactly one half with an odd floor.
    pub(super) fn round_integral(&mut self, x: Word, round: Round) -> Result<Word, EmitError> {
        let set = self.glsl_import();
        let t64 = self.f64_ty();
        let call = |em: &mut Self, inst: u32, a: Word| em.b.ext_inst(t64, None, set, inst, [rspirv::dr::Operand::IdRef(a)]).map_err(internal);
        match round {
            Round::Rz => call(self, GLSL_TRUNC, x),
            Round::Rm => call(self, GLSL_FLOOR, x),
            Round::Rp => call(self, GLSL_CEIL, x),
            Round::Rn => {
                let tb = self.bool_ty()?;
                let fl = call(self, GLSL_FLOOR, x)?;
                let frac = self.fop(b'-', x, fl)?;
                let half = self.b.constant_bit64(t64, 0.5f64.to_bits());
                let one = self.b.constant_bit64(t64, 1.0f64.to_bits());
                let gt = self.b.f_ord_greater_than(tb, None, frac, half).map_err(internal)?;
                let at = self.b.f_ord_equal(tb, None, frac, half).map_err(internal)?;
                let h = self.fop(b'*', fl, half)?;
                let hf = call(self, GLSL_FLOOR, h)?;
                let odd = self.b.f_ord_not_equal(tb, None, h, hf).map_err(internal)?;
                let tie = self.land(at, odd)?;
                let up = self.lor(gt, tie)?;
                let plus = self.fop(b'+', fl, one)?;
                // Infinities and NaNs pass through floor unchanged.
                let r = self.b.select(t64, None, up, plus, fl).map_err(internal)?;
                let fin = self.b.is_inf(tb, None, x).map_err(internal)?;
                self.b.select(t64, None, fin, x, r).map_err(internal)
            }
        }
    }

    /// TwoSum: the rounded f64 sum and its exact error (valid while the sum is finite).
    pub(super) fn two_sum(&mut self, a: Word, b: Word) -> Result<(Word, Word), EmitError> {
        let s = self.fop(b'+', a, b)?;
        let bb = self.fop(b'-', s, a)?;
        let ab = self.fop(b'-', s, bb)?;
        let da = self.fop(b'-', a, ab)?;
        let db = self.fop(b'-', b, bb)?;
        let e = self.fop(b'+', da, db)?;
        Ok((s, e))
    }

    /// The NaN the rule gives for NaN operands `nans` (format bits in u64) or an invalid
    /// operation.
    pub(super) fn nan_bits(&mut self, f: FFmt, rule: NanRule, nans: &[Word]) -> Result<Word, EmitError> {
        // (the first operand's NaN comes first, quiet the NaN operand, the invalid operation's NaN)
        let (first, quiet, default) = match rule {
            NanRule::NvCanonical => return self.u64c(f.nv_nan()),
            NanRule::DefaultQuiet => return self.u64c(f.qnan()),
            NanRule::Propagate => (true, true, f.qnan()),
            NanRule::NvFirst => (true, true, f.nv_nan()),
            // Second, third, then first operand (`soft::nan_result`).
            NanRule::NvF64 => (false, true, f.nv_nan()),
            NanRule::NvF64Mma => (false, true, f.qnan() | f.sign_mask()),
            NanRule::PropagateNeg => (true, true, f.qnan() | f.sign_mask()),
            NanRule::Keep => (true, false, f.qnan() | f.sign_mask()),
        };
        let mut order: Vec<Word> = nans.to_vec();
        if !first && !order.is_empty() {
            order.rotate_left(1);
        }
        let mut r = self.u64c(default)?;
        for &n in order.iter().rev() {
            let is = self.is_nan_bits(f, n)?;
            let q = self.u64c(if quiet { 1 << (f.man_bits() - 1) } else { 0 })?;
            let quiet = self.or(n, q)?;
            r = self.sel(is, quiet, r)?;
        }
        Ok(r)
    }

    /// Round the exact value `d` (f64 bits) plus its error to format `f` with `mode`, then
    /// apply flush-to-zero (tiny before rounding when `tiny_before`, else after) and
    /// saturation. `d` must be finite and nonzero for the rounding; zeros, infinities and NaNs
    /// are the caller's.
    pub(super) fn round_to(&mut self, f: FFmt, d: Word, err: Err64, round: Round, ovf_sat: bool) -> Result<(Word, Word), EmitError> {
        let man = f.man_bits() as i64;
        let bias = f.bias() as i64;
        let emin = 1 - bias;
        let tb = self.bool_ty()?;
        let sign = self.shr(d, 63)?;
        let neg = self.eq(sign, 1)?;
        let ebits = self.shr(d, 52)?;
        let ebits = self.and(ebits, 0x7ff)?;
        let fr = self.and(d, (1 << 52) - 1)?;
        let hidden = self.u64c(1 << 52)?;
        let m = self.or(fr, hidden)?;
        // Unbiased exponent E = ebits - 1023 (signed, in u64).
        let k1023 = self.u64c(1023)?;
        let e = self.sub(ebits, k1023)?;
        let kemin = self.u64c(emin as u64)?;
        let below = self.b.s_less_than(tb, None, e, kemin).map_err(internal)?;
        let e_cl = self.sel(below, kemin, e)?;
        // Shift: 52 - man plus how far below the normal range, at most 63.
        let gap = self.sub(e_cl, e)?;
        let base = self.u64c((52 - man) as u64)?;
        let sh = self.add(base, gap)?;
        let k63 = self.u64c(63)?;
        let big = self.b.u_greater_than(tb, None, sh, k63).map_err(internal)?;
        let sh = self.sel(big, k63, sh)?;
        let kept = self.b.shift_right_logical(self.t_u64, None, m, sh).map_err(internal)?;
        let one = self.u64c(1)?;
        let unit = self.b.shift_left_logical(self.t_u64, None, one, sh).map_err(internal)?;
        let lowmask = self.sub(unit, one)?;
        let rem = self.b.bitwise_and(self.t_u64, None, m, lowmask).map_err(internal)?;
        let half = self.shr(unit, 1)?;
        // Packed magnitude of the truncated value: (max(E, emin) - emin) << man + kept.
        let ex = self.sub(e_cl, kemin)?;
        let ex = self.shl(ex, man as u64)?;
        let packed = self.add(ex, kept)?;
        // The error's direction relative to the magnitude.
        let (err_up, err_down) = match err {
            Err64::Exact => (self.bconst(false)?, self.bconst(false)?),
            Err64::Term(t) => {
                let t64 = self.f64_ty();
                let z = self.b.constant_bit64(t64, 0);
                let pos = self.b.f_ord_greater_than(tb, None, t, z).map_err(internal)?;
                let negv = self.b.f_ord_less_than(tb, None, t, z).map_err(internal)?;
                let up = self.b.select(tb, None, neg, negv, pos).map_err(internal)?;
                let down = self.b.select(tb, None, neg, pos, negv).map_err(internal)?;
                (up, down)
            }
        };
        let zero = self.u64c(0)?;
        let rem0 = self.b.i_equal(tb, None, rem, zero).map_err(internal)?;
        let rem_nz = self.lnot(rem0)?;
        // Toward zero: one unit down when the truncation was exact but the value lies below.
        let tz_dec = self.land(rem0, err_down)?;
        let tz = {
            let d1 = self.sub(packed, one)?;
            self.sel(tz_dec, d1, packed)?
        };
        // Away from zero: one unit up when anything lies above the truncation.
        let aw_inc = self.lor(rem_nz, err_up)?;
        let aw = {
            let u1 = self.add(packed, one)?;
            self.sel(aw_inc, u1, packed)?
        };
        // Nearest even.
        let gt = self.b.u_greater_than(tb, None, rem, half).map_err(internal)?;
        let at = self.b.i_equal(tb, None, rem, half).map_err(internal)?;
        let odd = self.and(kept, 1)?;
        let odd = self.eq(odd, 1)?;
        let not_down = self.lnot(err_down)?;
        let tie_up = self.land(not_down, odd)?;
        let tie = self.lor(err_up, tie_up)?;
        let at_up = self.land(at, tie)?;
        let rn_inc = self.lor(gt, at_up)?;
        let rn = {
            let u1 = self.add(packed, one)?;
            self.sel(rn_inc, u1, packed)?
        };
        let (mag, to_inf) = match round {
            Round::Rn => (rn, self.bconst(true)?),
            Round::Rz => (tz, self.bconst(false)?),
            Round::Rm => (self.sel(neg, aw, tz)?, neg),
            Round::Rp => (self.sel(neg, tz, aw)?, self.lnot(neg)?),
        };
        // Overflow: the exponent past the format's, or rounding up into the infinity pattern.
        let kemax = self.u64c(bias as u64)?;
        let over_e = self.b.s_greater_than(tb, None, e, kemax).map_err(internal)?;
        let inf = self.u64c(f.inf())?;
        let over_r = self.b.u_greater_than_equal(tb, None, mag, inf).map_err(internal)?;
        let over = self.lor(over_e, over_r)?;
        let big = if ovf_sat {
            self.u64c(f.max_finite())?
        } else {
            let maxf = self.u64c(f.max_finite())?;
            self.sel(to_inf, inf, maxf)?
        };
        let mag = self.sel(over, big, mag)?;
        let sbit = self.shl(sign, f.width() as u64 - 1)?;
        let r = self.or(sbit, mag)?;
        // Tiny before rounding: the exact value is below the smallest normal.
        let at_min = {
            let eq_e = self.b.i_equal(tb, None, e, kemin).map_err(internal)?;
            let m_min = self.b.i_equal(tb, None, m, hidden).map_err(internal)?;
            let x = self.land(eq_e, m_min)?;
            self.land(x, err_down)?
        };
        let tiny = self.lor(below, at_min)?;
        Ok((r, tiny))
    }

    /// Flush-to-zero and saturation on a result (format bits in u64); `tiny` (when the
    /// rounding path computed it) says the exact value was below the smallest normal.
    pub(super) fn finish(&mut self, f: FFmt, mode: &FloatMode, r: Word, tiny: Option<Word>) -> Result<Word, EmitError> {
        let mut r = r;
        if mode.ftz_out {
            match (tiny, mode.tininess) {
                (Some(t), Tininess::BeforeRounding) => {
                    let s = self.and(r, f.sign_mask())?;
                    r = self.sel(t, s, r)?;
                }
                (None, _) => r = self.flush_bits(f, r)?,
                (Some(_), Tininess::AfterRounding) => {
                    return Err(unsupported(self.cur_ir, u32::MAX, "ftz", "flush-to-zero with tininess after rounding"));
                }
            }
        }
        if mode.sat {
            r = self.saturate(f, r)?;
        }
        Ok(r)
    }

    pub(super) fn saturate(&mut self, f: FFmt, r: Word) -> Result<Word, EmitError> {
        let tb = self.bool_ty()?;
        let nan = self.is_nan_bits(f, r)?;
        let s = self.and(r, f.sign_mask())?;
        let z0 = self.konst(Type::I64, 0)?;
        let negs = self.b.i_not_equal(tb, None, s, z0).map_err(internal)?;
        let zero_it = self.lor(nan, negs)?;
        let one = self.u64c((f.bias() as u64) << f.man_bits())?;
        let gt = self.b.u_greater_than(tb, None, r, one).map_err(internal)?;
        let c = self.sel(gt, one, r)?;
        self.sel_k(zero_it, 0, c)
    }

    /// The result of an arithmetic op from its f64 value `d` (and error): NaN by the rule
    /// (operands `nans`), infinities and zeros as they are (a zero's sign `zero_sign` when
    /// given), else rounded.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn result(&mut self, f: FFmt, mode: &FloatMode, d: Word, err: Err64, nans: &[Word], zero_sign: Option<Word>) -> Result<Word, EmitError> {
        let df = self.as_double(d)?;
        let tb = self.bool_ty()?;
        let is_nan = self.b.is_nan(tb, None, df).map_err(internal)?;
        let is_inf = self.b.is_inf(tb, None, df).map_err(internal)?;
        let mag = self.and(d, (1 << 63) - 1)?;
        let is_zero = self.eq(mag, 0)?;
        let (rounded, tiny) = self.round_to(f, d, err, mode.round, false)?;
        let sign = self.shr(d, 63)?;
        let sbit = self.shl(sign, f.width() as u64 - 1)?;
        let inf = self.u64c(f.inf())?;
        let signed_inf = self.or(sbit, inf)?;
        let zero = match zero_sign {
            Some(s) => {
                let z0 = self.konst(Type::I64, 0)?;
                self.sel_k(s, f.sign_mask(), z0)?
            }
            None => sbit,
        };
        let nan = self.nan_bits(f, mode.nan, nans)?;
        let r = self.sel(is_zero, zero, rounded)?;
        let r = self.sel(is_inf, signed_inf, r)?;
        let r = self.sel(is_nan, nan, r)?;
        let never = self.bconst(false)?;
        let mut tiny = self.b.select(tb, None, is_zero, never, tiny).map_err(internal)?;
        let tiny_mode = if mode.ftz_out && mode.tininess == Tininess::AfterRounding {
            // Tiny after rounding (`soft::pack_mode`): tiny before rounding, and the doubled
            // value rounded to the format stays below twice the smallest normal.
            let two = self.u64c(1 << 52)?;
            let d2 = self.add(d, two)?;
            let (r2, _) = self.round_to(f, d2, err, mode.round, false)?;
            let mag2 = self.and(r2, f.all_mask() & !f.sign_mask())?;
            let lim = self.u64c(2 << f.man_bits())?;
            let stays = self.b.u_less_than(tb, None, mag2, lim).map_err(internal)?;
            tiny = self.land(tiny, stays)?;
            FloatMode { tininess: Tininess::BeforeRounding, ..*mode }
        } else {
            *mode
        };
        let tiny = self.b.select(tb, None, is_inf, never, tiny).map_err(internal)?;
        self.finish(f, &tiny_mode, r, Some(tiny))
    }

    /// The sign of an exact zero sum of `x` and `y` (f64 bits): theirs when both are zeros of
    /// one sign, else negative only when rounding down (`soft::add`).
    fn zero_sum_sign(&mut self, x: Word, y: Word, round: Round) -> Result<Word, EmitError> {
        let both = self.b.bitwise_and(self.t_u64, None, x, y).map_err(internal)?;
        let both_neg = self.shr(both, 63)?;
        let both_neg = self.eq(both_neg, 1)?;
        if round != Round::Rm {
            return Ok(both_neg);
        }
        // Under RM: -0 unless both are +0.
        let any = self.or(x, y)?;
        let nz = self.eq(any, 0)?;
        self.lnot(nz)
    }

    /// The exact product of two narrow values (`w` their f64 bits, `fw` the same as f64
    /// values) as an f64 value, a zero factor decided on the bits: the driver may fold `x × 0.0`
    /// to 0.0 when a factor is a constant zero, whatever `x` is (lavapipe, Mesa 22.3: a NaN,
    /// infinity and the sign lost, as its algebraic rules allow without
    /// `SignedZeroInfNanPreserve`; `NoContraction` does not stop them).
    fn narrow_product(&mut self, w: &[Word], fw: &[Word]) -> Result<Word, EmitError> {
        let p = self.fop(b'*', fw[0], fw[1])?;
        let pb = self.double_bits(p)?;
        let tb = self.bool_ty()?;
        let (ma, mb) = (self.and(w[0], (1 << 63) - 1)?, self.and(w[1], (1 << 63) - 1)?);
        let (za, zb) = (self.eq(ma, 0)?, self.eq(mb, 0)?);
        let inf = self.u64c(0x7ff << 52)?;
        // Infinity or NaN: a magnitude at least infinity's.
        let ia = self.b.u_greater_than_equal(tb, None, ma, inf).map_err(internal)?;
        let ib = self.b.u_greater_than_equal(tb, None, mb, inf).map_err(internal)?;
        let (zi, iz) = (self.land(za, ib)?, self.land(ia, zb)?);
        let nan = self.lor(zi, iz)?;
        let zero = self.lor(za, zb)?;
        let sx = self.b.bitwise_xor(self.t_u64, None, w[0], w[1]).map_err(internal)?;
        let sz = self.and(sx, 1 << 63)?;
        let r = self.sel(zero, sz, pb)?;
        let r = self.sel_k(nan, 0x7ff8 << 48, r)?;
        self.as_double(r)
    }

    /// The exact value of a narrow fma (f16, bf16, f32) as an f64 sum and its error term, with
    /// the sign of an exact zero sum; `x` are the (flushed) operands, `w` their f64 bits and `fw`
    /// the same as f64 values. Under the AMD NaN rules an invalid product clears `x[2]`.
    pub(super) fn fma_terms(&mut self, m: &FloatMode, x: &mut [Word], w: &[Word], fw: &[Word]) -> Result<(Word, Err64, Option<Word>), EmitError> {
        // The product of two narrow values is exact in f64; then TwoSum.
        let p = self.narrow_product(w, fw)?;
        let mut c = fw[2];
        if matches!(m.nan, NanRule::Keep | NanRule::PropagateNeg) {
            // An invalid product (inf × 0) gives the invalid NaN even when the
            // addend is a NaN (`soft::fma_scaled`): the addend then does not count.
            let tb = self.bool_ty()?;
            let pn = self.b.is_nan(tb, None, p).map_err(internal)?;
            let an = self.b.is_nan(tb, None, fw[0]).map_err(internal)?;
            let bn = self.b.is_nan(tb, None, fw[1]).map_err(internal)?;
            let opn = self.lor(an, bn)?;
            let notn = self.lnot(opn)?;
            let invalid = self.land(pn, notn)?;
            let z = self.u64c(0)?;
            let z = self.as_double(z)?;
            let td = self.f64_ty();
            c = self.b.select(td, None, invalid, z, c).map_err(internal)?;
            x[2] = self.sel_k(invalid, 0, x[2])?;
        }
        let (s, e) = self.two_sum(p, c)?;
        let pb = self.double_bits(p)?;
        let zs = self.zero_sum_sign(pb, w[2], m.round)?;
        Ok((self.double_bits(s)?, Err64::Term(e), Some(zs)))
    }

    /// One float op on one element (format bits in u64, result too).
    pub(super) fn float_elem(&mut self, op: &FloatOp, f: FFmt, a: &[Word]) -> Result<Word, EmitError> {
        let m = op.mode;
        let text = Op::Float(*op).mnemonic();
        if op.fmz && !matches!(op.kind, FloatKind::Mul | FloatKind::Fma) {
            return Err(unsupported(self.cur_ir, u32::MAX, text, "FMZ on other than mul and fma"));
        }
        let f64_arith = matches!(op.kind, FloatKind::Add | FloatKind::Sub | FloatKind::Mul | FloatKind::Fma);
        let f64_ok = matches!(op.kind, FloatKind::Abs | FloatKind::Neg | FloatKind::Canon | FloatKind::Min(_) | FloatKind::Max(_) | FloatKind::Ldexp | FloatKind::FrexpMant | FloatKind::RoundInt);
        if f == FFmt::F64 && !f64_arith && !f64_ok {
            return Err(unsupported(self.cur_ir, u32::MAX, text, "f64 arithmetic (needs f64 subnormals the device may flush)"));
        }
        let mut x: Vec<Word> = a.iter().map(|&w| if m.ftz_in { self.flush_bits(f, w) } else { Ok(w) }).collect::<Result<_, _>>()?;
        // FMZ (`soft::mul`, `soft::fma_scaled`): a zero factor makes the product +0, whatever
        // the other factor is (infinities and NaNs included).
        let fmz_zero = if op.fmz {
            let (ma, mb) = (self.and(x[0], f.all_mask() >> 1)?, self.and(x[1], f.all_mask() >> 1)?);
            let (za, zb) = (self.eq(ma, 0)?, self.eq(mb, 0)?);
            let z = self.lor(za, zb)?;
            x[0] = self.sel_k(z, 0, x[0])?;
            x[1] = self.sel_k(z, 0, x[1])?;
            Some(z)
        } else {
            None
        };
        let sat_later = op.relu || op.omod != Omod::None;
        let mode = FloatMode { sat: m.sat && !sat_later, ..m };
        let r = match op.kind {
            FloatKind::Add | FloatKind::Sub | FloatKind::Mul | FloatKind::Fma if f == FFmt::F64 && !op.relu => {
                let r = self.f64_arith(&FloatOp { mode, ..*op }, &x)?;
                match (op.kind, fmz_zero) {
                    // A product made +0 by FMZ is +0 (rounding and flushing keep it).
                    (FloatKind::Mul, Some(z)) => self.sel_k(z, 0, r)?,
                    _ => r,
                }
            }
            FloatKind::Add | FloatKind::Sub | FloatKind::Mul | FloatKind::Fma => {
                let w: Vec<Word> = x.iter().map(|&v| self.widen(f, v)).collect::<Result<_, _>>()?;
                let fw: Vec<Word> = w.iter().map(|&v| self.as_double(v)).collect::<Result<_, _>>()?;
                let (d, err, zs) = match op.kind {
                    FloatKind::Add | FloatKind::Sub => {
                        let bneg = if op.kind == FloatKind::Sub {
                            let s = self.u64c(1 << 63)?;
                            self.b.bitwise_xor(self.t_u64, None, w[1], s).map_err(internal)?
                        } else {
                            w[1]
                        };
                        let bf = self.as_double(bneg)?;
                        let (s, e) = self.two_sum(fw[0], bf)?;
                        let zs = self.zero_sum_sign(w[0], bneg, m.round)?;
                        (self.double_bits(s)?, Err64::Term(e), Some(zs))
                    }
                    FloatKind::Mul => {
                        let p = self.narrow_product(&w, &fw)?;
                        (self.double_bits(p)?, Err64::Exact, None)
                    }
                    _ => self.fma_terms(&m, &mut x, &w, &fw)?,
                };
                let r = self.result(f, &mode, d, err, &x, zs)?;
                match (op.kind, fmz_zero) {
                    // A product made +0 by FMZ is +0 (rounding and flushing keep it).
                    (FloatKind::Mul, Some(z)) => self.sel_k(z, 0, r)?,
                    _ => r,
                }
            }
            FloatKind::Min(k) | FloatKind::Max(k) => {
                let max = matches!(op.kind, FloatKind::Max(_));
                let (na, nb) = (self.is_nan_bits(f, x[0])?, self.is_nan_bits(f, x[1])?);
                let key = |em: &mut Self, v: Word| -> Result<Word, EmitError> {
                    let mag = em.and(v, f.all_mask() >> 1)?;
                    let s = em.and(v, f.sign_mask())?;
                    let neg = em.eq(s, 0)?;
                    let inv = em.b.not(em.t_u64, None, mag).map_err(internal)?;
                    em.sel(neg, mag, inv)
                };
                let (ka, kb) = (key(self, x[0])?, key(self, x[1])?);
                let tb = self.bool_ty()?;
                let lt = self.b.s_less_than(tb, None, ka, kb).map_err(internal)?;
                let pick_a = if max { self.lnot(lt)? } else { lt };
                let num = self.sel(pick_a, x[0], x[1])?;
                let nan = self.nan_bits(f, m.nan, &x)?;
                let any = self.lor(na, nb)?;
                let r = match k {
                    MinMaxKind::Num | MinMaxKind::Num2008 => {
                        let both = self.land(na, nb)?;
                        let other = self.sel(na, x[1], x[0])?;
                        let r = self.sel(any, other, num)?;
                        self.sel(both, nan, r)?
                    }
                    _ => self.sel(any, nan, num)?,
                };
                // minNum/maxNum of IEEE 754-2008: a signalling NaN operand gives the rule's NaN
                // of the first signalling one (`soft::min_max`).
                let r = if k == MinMaxKind::Num2008 {
                    let q = 1u64 << (f.man_bits() - 1);
                    let (qa, qb) = (self.and(x[0], q)?, self.and(x[1], q)?);
                    let (za, zb) = (self.eq(qa, 0)?, self.eq(qb, 0)?);
                    let (sa, sb) = (self.land(na, za)?, self.land(nb, zb)?);
                    let first = self.sel(sa, x[0], x[1])?;
                    let snan = self.nan_bits(f, m.nan, &[first])?;
                    let any_s = self.lor(sa, sb)?;
                    self.sel(any_s, snan, r)?
                } else {
                    r
                };
                self.finish(f, &mode, r, None)?
            }
            FloatKind::Abs | FloatKind::Neg | FloatKind::Canon => {
                let v = x[0];
                let isn = self.is_nan_bits(f, v)?;
                let changed = match op.kind {
                    FloatKind::Abs => self.and(v, !f.sign_mask() & f.all_mask())?,
                    FloatKind::Neg => {
                        let s = self.u64c(f.sign_mask())?;
                        self.b.bitwise_xor(self.t_u64, None, v, s).map_err(internal)?
                    }
                    _ => v,
                };
                let r = if m.nan == NanRule::Propagate {
                    changed
                } else {
                    let nan = self.nan_bits(f, m.nan, &[v])?;
                    self.sel(isn, nan, changed)?
                };
                self.finish(f, &mode, r, None)?
            }
            FloatKind::RoundInt if f == FFmt::F64 => self.f64_round_int(&mode, x[0])?,
            FloatKind::RoundInt => {
                let w = self.widen(f, x[0])?;
                let fw = self.as_double(w)?;
                let r = self.round_integral(fw, m.round)?;
                let d = self.double_bits(r)?;
                // A rounded zero keeps the operand's sign.
                let s = self.shr(w, 63)?;
                let zs = self.eq(s, 1)?;
                self.result(f, &mode, d, Err64::Exact, &[x[0]], Some(zs))?
            }
            // The exponent operand is the raw i32, sign-extended (`float` passes it unflushed).
            FloatKind::Ldexp => self.ldexp_elem(f, &mode, x[0], a[1])?,
            FloatKind::FrexpMant => self.frexp_mant_elem(f, &mode, x[0])?,
            _ => return Err(unsupported(self.cur_ir, u32::MAX, text, "this float operation")),
        };
        let r = if op.omod != Omod::None {
            self.omod(f, &mode, op.omod, r)?
        } else {
            r
        };
        if op.omod != Omod::None && !op.relu {
            return if m.sat { self.saturate(f, r) } else { Ok(r) };
        }
        if op.relu {
            let tb = self.bool_ty()?;
            let isn = self.is_nan_bits(f, r)?;
            let s = self.and(r, f.sign_mask())?;
            let z0 = self.konst(Type::I64, 0)?;
        let negs = self.b.i_not_equal(tb, None, s, z0).map_err(internal)?;
            let notn = self.lnot(isn)?;
            let z = self.land(negs, notn)?;
            let r = self.sel_k(z, 0, r)?;
            return if m.sat { self.saturate(f, r) } else { Ok(r) };
        }
        Ok(r)
    }

    /// An AMD output modifier on a rounded result (`ops::float::apply_omod`): a zero comes out
    /// as +0, a NaN unchanged, anything else multiplied by 2, 4 or 0.5 with one rounding.
    pub(super) fn omod(&mut self, f: FFmt, mode: &FloatMode, omod: Omod, r: Word) -> Result<Word, EmitError> {
        let k: i64 = match omod {
            Omod::Mul2 => 1,
            Omod::Mul4 => 2,
            _ => -1,
        };
        let two_k = self.u64c(((f.bias() as i64 + k) as u64) << f.man_bits())?;
        let mul = FloatOp { kind: FloatKind::Mul, mode: FloatMode { sat: false, ..*mode }, fmz: false, relu: false, omod: Omod::None };
        let scaled = self.float_elem(&mul, f, &[r, two_k])?;
        let mag = self.and(r, f.all_mask() & !f.sign_mask())?;
        let z = self.eq(mag, 0)?;
        let isn = self.is_nan_bits(f, r)?;
        let x = self.sel(isn, r, scaled)?;
        self.sel_k(z, 0, x)
    }

    /// Split a (vector of) float elements into u64 bits per element.
    pub(super) fn elems(&mut self, t: Type, x: Word, ftz: bool) -> Result<Vec<Word>, EmitError> {
        let Some((f, n)) = float_of(t) else {
            return Err(unsupported(self.cur_ir, u32::MAX, t.to_string(), "a float operand of a non-float type"));
        };
        if n == 1 {
            return Ok(vec![self.elem_in(f, x, ftz)?]);
        }
        let et = self.ty(Type::S(Scalar::F(f)))?;
        let mut v = Vec::new();
        for i in 0..n as u32 {
            let e = self.b.composite_extract(et, None, x, [i]).map_err(internal)?;
            v.push(self.elem_in(f, e, ftz)?);
        }
        Ok(v)
    }

    pub(super) fn pack(&mut self, t: Type, f: FFmt, parts: Vec<Word>) -> Result<Word, EmitError> {
        let mut e = Vec::new();
        for p in parts {
            e.push(self.elem_out(f, p)?);
        }
        if e.len() == 1 {
            return Ok(e[0]);
        }
        let tw = self.ty(t)?;
        self.b.composite_construct(tw, None, e).map_err(internal)
    }

    /// A float arithmetic op of result type `t`.
    pub(super) fn float(&mut self, op: &FloatOp, v: Value, t: Type, at: &[Type], a: &[Word]) -> Result<Word, EmitError> {
        match op.kind {
            FloatKind::Dot2 => return self.dot2(op, v, t, at, a),
            FloatKind::TwoOverPiSlice => return self.two_over_pi(op, v, t, at, a),
            FloatKind::Cube(k) => return self.cube(op, k, v, t, at, a),
            FloatKind::BlockDot(d) => return self.block_dot(op, d, v, t, at, a),
            _ => {}
        }
        let text = Op::Float(*op).mnemonic();
        let Some((f, n)) = float_of(t) else {
            return Err(unsupported(self.cur_ir, v.0, text, "float operations with a non-float result"));
        };
        let ldexp = op.kind == FloatKind::Ldexp && at.len() == 2 && at[0] == t && at[1] == Type::I32 && n == 1;
        if !ldexp && at.iter().any(|&x| x != t) {
            return Err(unsupported(self.cur_ir, v.0, text, "float operations with operands of other types"));
        }
        let mut cols = Vec::new();
        for (i, (&ty, &x)) in at.iter().zip(a).enumerate() {
            if ldexp && i == 1 {
                // Sign-extended by shifts (the exponent is an i32).
                let w = self.b.u_convert(self.t_u64, None, x).map_err(internal)?;
                let w = self.shl(w, 32)?;
                let k32 = self.u64c(32)?;
                cols.push(vec![self.b.shift_right_arithmetic(self.t_u64, None, w, k32).map_err(internal)?]);
            } else {
                cols.push(self.elems(ty, x, false)?);
            }
        }
        let mut out = Vec::new();
        for i in 0..n as usize {
            let args: Vec<Word> = cols.iter().map(|c| c[i]).collect();
            out.push(self.float_elem(op, f, &args).map_err(|e| match e {
                EmitError::Unsupported { op, why, .. } => EmitError::Unsupported { block: self.cur_ir, value: v.0, op, why },
                e => e,
            })?);
        }
        self.pack(t, f, out)
    }

    /// An approximate function as the IR models it (`soft::approx`): the function of the
    /// (optionally flushed) operand in f64, rounded to nearest, then flushed. Reciprocal,
    /// square root and reciprocal square root are f64 division and square root (correctly
    /// rounded, so rounding again to a narrow format is the correctly rounded result).
    pub(super) fn approx(&mut self, func: ApproxFn, ftz: bool, v: Value, t: Type, x: Word) -> Result<Word, EmitError> {
        let text = Op::Approx(func, ftz).mnemonic();
        let Some((f, 1)) = float_of(t) else { return Err(unsupported(self.cur_ir, v.0, text, "approximations of other than scalar floats")) };
        if f == FFmt::F64 || !matches!(func, ApproxFn::Rcp | ApproxFn::Sqrt | ApproxFn::Rsq) {
            return self.approx_series(func, ftz, f, x).map_err(|e| match e {
                EmitError::Unsupported { op, why, .. } => EmitError::Unsupported { block: self.cur_ir, value: v.0, op, why },
                e => e,
            });
        }
        let e = self.elem_in(f, x, ftz)?;
        let d = self.widen(f, e)?;
        let df = self.as_double(d)?;
        let t64 = self.f64_ty();
        let one = self.b.constant_bit64(t64, 1.0f64.to_bits());
        let set = self.glsl_import();
        let sqrt = |em: &mut Self, a: Word| em.b.ext_inst(t64, None, set, GLSL_SQRT, [rspirv::dr::Operand::IdRef(a)]).map_err(internal);
        let r = match func {
            ApproxFn::Rcp => self.fop(b'/', one, df)?,
            ApproxFn::Sqrt => sqrt(self, df)?,
            _ => {
                let s = sqrt(self, df)?;
                self.fop(b'/', one, s)?
            }
        };
        // Negative operands (not -0) of the roots give NaN: f64 sqrt does that too.
        let rb = self.double_bits(r)?;
        let mode = FloatMode { ftz_out: ftz, tininess: Tininess::AfterRounding, ..FloatMode::NV_RN };
        let df = self.as_double(rb)?;
        let tb = self.bool_ty()?;
        let is_nan = self.b.is_nan(tb, None, df).map_err(internal)?;
        let is_inf = self.b.is_inf(tb, None, df).map_err(internal)?;
        let mag = self.and(rb, (1 << 63) - 1)?;
        let is_zero = self.eq(mag, 0)?;
        let (rounded, _) = self.round_to(f, rb, Err64::Exact, Round::Rn, false)?;
        let sign = self.shr(rb, 63)?;
        let sbit = self.shl(sign, f.width() as u64 - 1)?;
        let inf = self.u64c(f.inf())?;
        let sinf = self.or(sbit, inf)?;
        let nan = self.u64c(f.nv_nan())?;
        let r = self.sel(is_zero, sbit, rounded)?;
        let r = self.sel(is_inf, sinf, r)?;
        let r = self.sel(is_nan, nan, r)?;
        let r = self.finish(f, &mode, r, None)?;
        self.elem_out(f, r)
    }

    /// A float comparison (scalar operands).
    pub(super) fn fcmp(&mut self, c: FCmp, ftz: bool, v: Value, at: Type, a: &[Word]) -> Result<Word, EmitError> {
        let Some((f, 1)) = float_of(at) else {
            return Err(unsupported(self.cur_ir, v.0, at.to_string(), "comparisons of other than scalar floats"));
        };
        let mut w = Vec::new();
        for &x in a {
            let e = self.elem_in(f, x, ftz)?;
            // f64 operands: the device may flush subnormals, so they are compared as integers
            // only when exact; widening is exact for the narrow formats.
            if f == FFmt::F64 {
                w.push(e);
                continue;
            }
            let wd = self.widen(f, e)?;
            w.push(self.as_double(wd)?);
        }
        if f == FFmt::F64 {
            return self.f64_cmp(c, w[0], w[1]);
        }
        let tb = self.bool_ty()?;
        let b = &mut self.b;
        match c {
            FCmp::Eq => b.f_ord_equal(tb, None, w[0], w[1]),
            FCmp::Ne => b.f_ord_not_equal(tb, None, w[0], w[1]),
            FCmp::Lt => b.f_ord_less_than(tb, None, w[0], w[1]),
            FCmp::Le => b.f_ord_less_than_equal(tb, None, w[0], w[1]),
            FCmp::Gt => b.f_ord_greater_than(tb, None, w[0], w[1]),
            FCmp::Ge => b.f_ord_greater_than_equal(tb, None, w[0], w[1]),
            FCmp::Equ => b.f_unord_equal(tb, None, w[0], w[1]),
            FCmp::Neu => b.f_unord_not_equal(tb, None, w[0], w[1]),
            FCmp::Ltu => b.f_unord_less_than(tb, None, w[0], w[1]),
            FCmp::Leu => b.f_unord_less_than_equal(tb, None, w[0], w[1]),
            FCmp::Gtu => b.f_unord_greater_than(tb, None, w[0], w[1]),
            FCmp::Geu => b.f_unord_greater_than_equal(tb, None, w[0], w[1]),
            FCmp::Num | FCmp::Nan => {
                // OpOrdered and OpUnordered are Kernel-only: test each operand.
                let n0 = b.is_nan(tb, None, w[0]).map_err(internal)?;
                let n1 = b.is_nan(tb, None, w[1]).map_err(internal)?;
                let any = b.logical_or(tb, None, n0, n1).map_err(internal)?;
                if c == FCmp::Nan {
                    Ok(any)
                } else {
                    b.logical_not(tb, None, any)
                }
            }
        }
        .map_err(internal)
    }

    /// Float bits `e` (u64, format `ff`, already flushed as the mode's input rule says)
    /// converted to format `tf` (f16, bf16, f32 or f64) as `soft::convert` does with `mode`
    /// (`satfinite`: overflow to the largest finite value): the bits in a u64.
    pub(super) fn f_to_f_bits(&mut self, ff: FFmt, tf: FFmt, mode: &FloatMode, satfinite: bool, e: Word) -> Result<Word, EmitError> {
        let d = self.widen(ff, e)?;
        let r = if tf == FFmt::F64 {
            // Widening is exact; a NaN follows the rule.
            let isn = self.is_nan_bits(ff, e)?;
            let nan = self.conv_nan(ff, tf, mode.nan, e)?;
            let r = self.sel(isn, nan, d)?;
            self.finish(tf, &FloatMode { ftz_out: false, ..*mode }, r, None)?
        } else {
            let df = self.as_double(d)?;
            let tb = self.bool_ty()?;
            let isn = self.b.is_nan(tb, None, df).map_err(internal)?;
            let isi = self.b.is_inf(tb, None, df).map_err(internal)?;
            let mag = self.and(d, (1 << 63) - 1)?;
            let isz = self.eq(mag, 0)?;
            let (rounded, _) = self.round_to(tf, d, Err64::Exact, mode.round, satfinite)?;
            let sign = self.shr(d, 63)?;
            let sbit = self.shl(sign, tf.width() as u64 - 1)?;
            let big = self.u64c(if satfinite { tf.max_finite() } else { tf.inf() })?;
            let sinf = self.or(sbit, big)?;
            let nan = self.conv_nan(ff, tf, mode.nan, e)?;
            let r = self.sel(isz, sbit, rounded)?;
            let r = self.sel(isi, sinf, r)?;
            let r = self.sel(isn, nan, r)?;
            self.finish(tf, mode, r, None)?
        };
        Ok(r)
    }

    /// A conversion other than integer to integer.
    pub(super) fn conv(&mut self, c: &ConvOp, v: Value, from: Type, to: Type, x: Word) -> Result<Word, EmitError> {
        let text = Op::Conv(*c).mnemonic();
        let r = match *c {
            ConvOp::FToF { mode, satfinite } => {
                let (Some((ff, 1)), Some((tf, 1))) = (float_of(from), float_of(to)) else {
                    return Err(unsupported(self.cur_ir, v.0, text, "vector conversions"));
                };
                // From f64, `round_to` reads a subnormal as a value below every narrow
                // format's subnormals, which rounds as the subnormal does.
                if (ff == FFmt::F64 && tf == FFmt::F64) || !matches!(tf, FFmt::F16 | FFmt::BF16 | FFmt::F32 | FFmt::F64) {
                    return Err(unsupported(self.cur_ir, v.0, text, "conversions from f64 or to 8-bit floats"));
                }
                let e = self.elem_in(ff, x, mode.ftz_in)?;
                let r = self.f_to_f_bits(ff, tf, &mode, satfinite, e)?;
                self.elem_out(tf, r)?
            }
            ConvOp::FToI { mode, signed } => {
                let Some((ff, 1)) = float_of(from) else { return Err(unsupported(self.cur_ir, v.0, text, "vector conversions")) };
                let bits = match to {
                    Type::S(Scalar::I32) => 32,
                    Type::S(Scalar::I64) => 64,
                    Type::S(Scalar::I16) => 16,
                    Type::S(Scalar::I8) => 8,
                    _ => return Err(unsupported(self.cur_ir, v.0, text, "float to integer of this width")),
                };
                let e = self.elem_in(ff, x, mode.ftz_in)?;
                let d = self.widen(ff, e)?;
                // An f64 subnormal (which the device may flush) becomes the smallest normal of
                // its sign: every rounding direction gives the same integer for both.
                let d = if ff == FFmt::F64 {
                    let ex = self.and(d, 0x7ff << 52)?;
                    let e0 = self.eq(ex, 0)?;
                    let mag = self.and(d, (1 << 63) - 1)?;
                    let nz = self.eq(mag, 0)?;
                    let nz = self.lnot(nz)?;
                    let sub = self.land(e0, nz)?;
                    let s = self.and(d, 1 << 63)?;
                    let k = self.u64c(1 << 52)?;
                    let norm = self.or(s, k)?;
                    self.sel(sub, norm, d)?
                } else {
                    d
                };
                let df = self.as_double(d)?;
                let ri = self.round_integral(df, mode.round)?;
                let t64 = self.f64_ty();
                let (lo, hi): (f64, f64) = if signed { (-(2f64.powi(bits - 1)), 2f64.powi(bits - 1) - 1.0) } else { (0.0, 2f64.powi(bits) - 1.0) };
                let tb = self.bool_ty()?;
                let klo = self.b.constant_bit64(t64, lo.to_bits());
                let khi = self.b.constant_bit64(t64, hi.to_bits());
                // Clamp, NaN to 0: compare first, so a NaN never reaches the conversion.
                let under = self.b.f_ord_less_than_equal(tb, None, ri, klo).map_err(internal)?;
                let over = self.b.f_ord_greater_than_equal(tb, None, ri, khi).map_err(internal)?;
                let isn = self.b.is_nan(tb, None, ri).map_err(internal)?;
                let zero64 = self.b.constant_bit64(t64, 0);
                let safe = self.b.select(t64, None, isn, zero64, ri).map_err(internal)?;
                let safe = self.b.select(t64, None, under, klo, safe).map_err(internal)?;
                let safe = self.b.select(t64, None, over, zero64, safe).map_err(internal)?;
                let iv = if signed { self.b.convert_f_to_s(self.t_u64, None, safe) } else { self.b.convert_f_to_u(self.t_u64, None, safe) }.map_err(internal)?;
                let maxv = self.u64c(if signed { (1u64 << (bits - 1)) - 1 } else if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 })?;
                let iv = self.sel(over, maxv, iv)?;
                let tw = self.ty(to)?;
                if bits == 64 {
                    iv
                } else if bits == 8 && self.i8_words {
                    let w = self.b.u_convert(self.t_u32, None, iv).map_err(internal)?;
                    self.i8_word_from_u32(w)?
                } else {
                    self.b.u_convert(tw, None, iv).map_err(internal)?
                }
            }
            ConvOp::IToF { mode, signed } => {
                let Some((tf, 1)) = float_of(to) else { return Err(unsupported(self.cur_ir, v.0, text, "vector conversions")) };
                if !matches!(from, Type::I8 | Type::I16 | Type::I32 | Type::I64) {
                    return Err(unsupported(self.cur_ir, v.0, text, "integer to float from other than 8, 16, 32 and 64 bits"));
                }
                if !matches!(tf, FFmt::F16 | FFmt::BF16 | FFmt::F32 | FFmt::F64) {
                    return Err(unsupported(self.cur_ir, v.0, text, "integer to 8-bit floats"));
                }
                let d = if from == Type::I64 {
                    // Rounded (to f64) or rounded to odd (narrower targets): `int64_float`.
                    self.int64_to_f64_bits(x, signed, mode.round, tf != FFmt::F64)?
                } else {
                    let t64 = self.f64_ty();
                    // An i8 word read signed: its sign-extended 32 bits.
                    let x = if from == Type::I8 && self.i8_words && signed { self.i8_word_sext(x)? } else { x };
                    let df = if signed { self.b.convert_s_to_f(t64, None, x) } else { self.b.convert_u_to_f(t64, None, x) }.map_err(internal)?;
                    self.double_bits(df)?
                };
                if tf == FFmt::F64 {
                    // An 8-, 16- or 32-bit integer is exact in f64; a 64-bit one is rounded above.
                    return self.elem_out(tf, d);
                }
                let mag = self.and(d, (1 << 63) - 1)?;
                let isz = self.eq(mag, 0)?;
                let (rounded, tiny) = self.round_to(tf, d, Err64::Exact, mode.round, false)?;
                let r = self.sel_k(isz, 0, rounded)?;
                // A converted integer is zero or at least 1, never tiny: both tininess rules
                // agree.
                let mode = FloatMode { tininess: Tininess::BeforeRounding, ..mode };
                let r = self.finish(tf, &mode, r, Some(tiny))?;
                self.elem_out(tf, r)?
            }
            ConvOp::FrexpExp { mode } => self.frexp_exp(mode, v, from, to, x)?,
            ConvOp::Class => self.fclass(v, from, to, x)?,
            _ => return Err(unsupported(self.cur_ir, v.0, text, "this conversion")),
        };
        Ok(r)
    }

    /// The NaN a float-to-float conversion of NaN `e` gives (`soft::convert`).
    fn conv_nan(&mut self, ff: FFmt, tf: FFmt, rule: NanRule, e: Word) -> Result<Word, EmitError> {
        match rule {
            NanRule::Propagate => {
                let (fm, tm) = (ff.man_bits() as u64, tf.man_bits() as u64);
                let pay = self.and(e, (1 << fm) - 1)?;
                let pay = if fm >= tm { self.shr(pay, fm - tm)? } else { self.shl(pay, tm - fm)? };
                let s = self.shr(e, ff.width() as u64 - 1)?;
                let s = self.shl(s, tf.width() as u64 - 1)?;
                let k = self.u64c(tf.inf() | (1 << (tm - 1)))?;
                let r = self.or(s, k)?;
                self.or(r, pay)
            }
            NanRule::NvCanonical | NanRule::DefaultQuiet => self.nan_bits(tf, rule, &[]),
            NanRule::NvFirst => self.u64c(tf.nv_nan()),
            _ => Err(unsupported(self.cur_ir, u32::MAX, rule.name(), "this NaN rule in conversions")),
        }
    }
}
