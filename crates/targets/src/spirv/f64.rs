//! f64 add, multiply and fused multiply-add in integer arithmetic, as `soft::add`, `soft::mul`
//! and `soft::fma` define them: a device may flush f64 subnormals (lavapipe does), and SPIR-V
//! gives no per-instruction rounding direction, so no f64 float instruction is used. Operands
//! are unpacked to sign, exponent and integer significand; sums are aligned with a sticky bit,
//! products are exact in 128 bits (four 32-bit partial products), the fused sum is exact in 128 bits; one
//! rounding ([`Em::pack_f64`]) gives the result in the op's direction.

use super::emit::{internal, Em, EmitError};
use isabridge_ir::ops::float::{FCmp, FloatKind, FloatOp};
use isabridge_ir::soft::{FFmt, FloatMode, NanRule, Round, Tininess};
use rspirv::dr::Operand;
use rspirv::spirv::Word;

/// GLSL.std.450 FindUMsb.
const GLSL_FIND_UMSB: u32 = 75;

/// An unpacked f64: value = (-1)^sign × sig × 2^exp for finite nonzero values.
pub(super) struct Parts {
    /// The sign bit (0 or 1).
    pub(super) sign: Word,
    /// The exponent of the significand's lowest bit (signed, in a u64).
    pub(super) exp: Word,
    /// The significand, its top bit at bit 52 (normalized; subnormals included).
    pub(super) sig: Word,
}

impl Em<'_> {
    pub(super) fn slt(&mut self, a: Word, b: Word) -> Result<Word, EmitError> {
        let tb = self.bool_ty()?;
        self.b.s_less_than(tb, None, a, b).map_err(internal)
    }
    fn ult(&mut self, a: Word, b: Word) -> Result<Word, EmitError> {
        let tb = self.bool_ty()?;
        self.b.u_less_than(tb, None, a, b).map_err(internal)
    }
    pub(super) fn shl_v(&mut self, a: Word, n: Word) -> Result<Word, EmitError> {
        self.b.shift_left_logical(self.t_u64, None, a, n).map_err(internal)
    }
    pub(super) fn shr_v(&mut self, a: Word, n: Word) -> Result<Word, EmitError> {
        self.b.shift_right_logical(self.t_u64, None, a, n).map_err(internal)
    }
    pub(super) fn ne0(&mut self, a: Word) -> Result<Word, EmitError> {
        let z = self.eq(a, 0)?;
        self.lnot(z)
    }
    fn smax_k(&mut self, a: Word, k: u64) -> Result<Word, EmitError> {
        let c = self.u64c(k)?;
        let lt = self.slt(a, c)?;
        self.sel(lt, c, a)
    }

    /// The index of the top set bit of `x` (u64; 0 when `x` is 0).
    pub(super) fn msb64(&mut self, x: Word) -> Result<Word, EmitError> {
        let set = self.glsl_import();
        let hi = self.shr(x, 32)?;
        let hi32 = self.b.u_convert(self.t_u32, None, hi).map_err(internal)?;
        let lo = self.and(x, 0xffff_ffff)?;
        let lo = self.u64c_or1(lo)?;
        let lo32 = self.b.u_convert(self.t_u32, None, lo).map_err(internal)?;
        let mh = self.b.ext_inst(self.t_u32, None, set, GLSL_FIND_UMSB, [Operand::IdRef(hi32)]).map_err(internal)?;
        let ml = self.b.ext_inst(self.t_u32, None, set, GLSL_FIND_UMSB, [Operand::IdRef(lo32)]).map_err(internal)?;
        let mh = self.b.u_convert(self.t_u64, None, mh).map_err(internal)?;
        let ml = self.b.u_convert(self.t_u64, None, ml).map_err(internal)?;
        let k32 = self.u64c(32)?;
        let mh = self.add(mh, k32)?;
        let has_hi = self.ne0(hi)?;
        self.sel(has_hi, mh, ml)
    }

    /// `x | 1` (keeps FindUMsb defined on zero).
    fn u64c_or1(&mut self, x: Word) -> Result<Word, EmitError> {
        let one = self.u64c(1)?;
        self.or(x, one)
    }

    /// Sign, exponent and normalized significand of the f64 bits `x` (meaningful for finite
    /// nonzero values).
    pub(super) fn unpack_f64(&mut self, x: Word) -> Result<Parts, EmitError> {
        let sign = self.shr(x, 63)?;
        let e = self.shr(x, 52)?;
        let e = self.and(e, 0x7ff)?;
        let frac = self.and(x, (1 << 52) - 1)?;
        let normal = self.ne0(e)?;
        let hidden = self.u64c(1 << 52)?;
        let z = self.u64c(0)?;
        let h = self.sel(normal, hidden, z)?;
        let sig = self.or(frac, h)?;
        let e1 = self.smax_k(e, 1)?;
        let bias = self.u64c(1075)?;
        let exp = self.sub(e1, bias)?;
        // Normalize: the top bit to bit 52.
        let msb = self.msb64(sig)?;
        let k52 = self.u64c(52)?;
        let sh = self.sub(k52, msb)?;
        let sig = self.shl_v(sig, sh)?;
        let exp = self.sub(exp, sh)?;
        Ok(Parts { sign, exp, sig })
    }

    /// Round (-1)^sign × (sig + s) × 2^exp, 0 < s < 1 when `sticky` (b1), to f64 bits in
    /// direction `round` (`soft::round_pack`; `sig` nonzero, at most 64 bits), with the flag
    /// "the exact value is below the smallest normal".
    pub(super) fn pack_f64(&mut self, sign: Word, exp: Word, sig: Word, sticky: Word, round: Round) -> Result<(Word, Word), EmitError> {
        let tb = self.bool_ty()?;
        // The top bit to bit 62, the sticky bit below everything kept.
        let msb = self.msb64(sig)?;
        let top = self.eq(msb, 63)?;
        let one = self.u64c(1)?;
        let low = self.and(sig, 1)?;
        let half_sig = self.shr(sig, 1)?;
        let s_r = self.or(half_sig, low)?;
        let k62 = self.u64c(62)?;
        let msb62 = self.sel(top, k62, msb)?;
        let sh_l = self.sub(k62, msb62)?;
        let s_l = self.shl_v(sig, sh_l)?;
        let sig = self.sel(top, s_r, s_l)?;
        let e_r = self.add(exp, one)?;
        let e_l = self.sub(exp, sh_l)?;
        let exp = self.sel(top, e_r, e_l)?;
        let z = self.u64c(0)?;
        let st = self.sel(sticky, one, z)?;
        let sig = self.or(sig, st)?;
        // Biased exponent of the top bit; below 1, the result is subnormal.
        let k = self.u64c(62 + 1023)?;
        let be = self.add(exp, k)?;
        let kone = self.u64c(1)?;
        let tiny = self.slt(be, kone)?;
        let under = self.sub(kone, be)?;
        let extra = self.sel(tiny, under, z)?;
        let k10 = self.u64c(10)?;
        let sh = self.add(k10, extra)?;
        let k63 = self.u64c(63)?;
        let far = self.b.u_greater_than(tb, None, sh, k63).map_err(internal)?;
        let sh = self.sel(far, k63, sh)?;
        let sig = self.sel(far, one, sig)?;
        let kept = self.shr_v(sig, sh)?;
        let unit = self.shl_v(one, sh)?;
        let mask = self.sub(unit, one)?;
        let rem = self.b.bitwise_and(self.t_u64, None, sig, mask).map_err(internal)?;
        let half = self.shr(unit, 1)?;
        let neg = self.eq(sign, 1)?;
        let inexact = self.ne0(rem)?;
        let inc = match round {
            Round::Rn => {
                let gt = self.b.u_greater_than(tb, None, rem, half).map_err(internal)?;
                let at = self.b.i_equal(tb, None, rem, half).map_err(internal)?;
                let odd = self.and(kept, 1)?;
                let odd = self.eq(odd, 1)?;
                let tie = self.land(at, odd)?;
                self.lor(gt, tie)?
            }
            Round::Rz => self.bconst(false)?,
            Round::Rm => self.land(neg, inexact)?,
            Round::Rp => {
                let pos = self.lnot(neg)?;
                self.land(pos, inexact)?
            }
        };
        let incw = self.sel(inc, one, z)?;
        let m = self.add(kept, incw)?;
        // (max(be, 1) - 1) << 52 plus the significand: its hidden bit (or a carry into it)
        // adds the last one to the exponent field.
        let eb = self.smax_k(be, 1)?;
        let eb = self.sub(eb, one)?;
        let eb = self.shl(eb, 52)?;
        let enc = self.add(eb, m)?;
        let inf = self.u64c(0x7ff << 52)?;
        let over = self.b.u_greater_than_equal(tb, None, enc, inf).map_err(internal)?;
        let max = self.u64c((0x7ff << 52) - 1)?;
        let big = match round {
            Round::Rn => inf,
            Round::Rz => max,
            Round::Rm => self.sel(neg, inf, max)?,
            Round::Rp => self.sel(neg, max, inf)?,
        };
        let enc = self.sel(over, big, enc)?;
        let s = self.shl(sign, 63)?;
        Ok((self.or(s, enc)?, tiny))
    }

    /// The signed zero of an exact zero sum under `round` (`soft::add`: -0 only rounding down).
    fn exact_zero(&mut self, round: Round) -> Result<Word, EmitError> {
        self.u64c(if round == Round::Rm { 1 << 63 } else { 0 })
    }

    /// Class tests of f64 bits: (NaN, infinity, zero).
    pub(super) fn classes(&mut self, x: Word) -> Result<(Word, Word, Word), EmitError> {
        let nan = self.is_nan_bits(FFmt::F64, x)?;
        let mag = self.and(x, (1 << 63) - 1)?;
        let inf = self.eq(mag, 0x7ff << 52)?;
        let zero = self.eq(mag, 0)?;
        Ok((nan, inf, zero))
    }

    /// One f64 add, sub, mul or fma on f64 bits (u64) `x` (already flushed where the mode
    /// says), with the mode's NaN rule, rounding, flush and saturation.
    pub(super) fn f64_arith(&mut self, op: &FloatOp, x: &[Word]) -> Result<Word, EmitError> {
        let m = op.mode;
        let mode = FloatMode { sat: m.sat && !op.relu, ..m };
        if mode.ftz_out && mode.tininess == Tininess::AfterRounding {
            return Err(super::emit::unsupported(self.cur_ir, u32::MAX, "f64", "f64 flush-to-zero with tininess after rounding"));
        }
        let (r, tiny) = match op.kind {
            FloatKind::Add | FloatKind::Sub => {
                let b = if op.kind == FloatKind::Sub {
                    // A NaN operand is not negated (`soft::sub`).
                    let s = self.u64c(1 << 63)?;
                    let nb = self.b.bitwise_xor(self.t_u64, None, x[1], s).map_err(internal)?;
                    let isn = self.is_nan_bits(FFmt::F64, x[1])?;
                    self.sel(isn, x[1], nb)?
                } else {
                    x[1]
                };
                self.f64_add(&mode, x[0], b)?
            }
            FloatKind::Mul => self.f64_mul(&mode, x[0], x[1])?,
            FloatKind::Fma => self.f64_fma(&mode, x[0], x[1], x[2], None)?,
            _ => return Err(internal("f64_arith: not an arithmetic op")),
        };
        self.finish(FFmt::F64, &mode, r, Some(tiny))
    }

    fn f64_add(&mut self, mode: &FloatMode, a: Word, b: Word) -> Result<(Word, Word), EmitError> {
        let (na, ia, za) = self.classes(a)?;
        let (nb, ib, zb) = self.classes(b)?;
        // The operand of larger magnitude first.
        let ma = self.and(a, (1 << 63) - 1)?;
        let mb = self.and(b, (1 << 63) - 1)?;
        let swap = self.ult(ma, mb)?;
        let xa = self.sel(swap, b, a)?;
        let xb = self.sel(swap, a, b)?;
        let px = self.unpack_f64(xa)?;
        let py = self.unpack_f64(xb)?;
        // Both significands with 10 guard bits; the smaller one aligned with a sticky bit.
        let bx = self.shl(px.sig, 10)?;
        let by = self.shl(py.sig, 10)?;
        let d = self.sub(px.exp, py.exp)?;
        let k63 = self.u64c(63)?;
        let tb = self.bool_ty()?;
        let far = self.b.u_greater_than(tb, None, d, k63).map_err(internal)?;
        let d = self.sel(far, k63, d)?;
        let ys = self.shr_v(by, d)?;
        let one = self.u64c(1)?;
        let unit = self.shl_v(one, d)?;
        let mask = self.sub(unit, one)?;
        let lost = self.b.bitwise_and(self.t_u64, None, by, mask).map_err(internal)?;
        let lost = self.ne0(lost)?;
        let z = self.u64c(0)?;
        let lw = self.sel(lost, one, z)?;
        let ys = self.or(ys, lw)?;
        // A zero smaller operand adds nothing (its normalized parts are meaningless).
        let myz = self.and(xb, (1 << 63) - 1)?;
        let zy = self.eq(myz, 0)?;
        let ys = self.sel(zy, z, ys)?;
        let same = self.b.i_equal(tb, None, px.sign, py.sign).map_err(internal)?;
        let sum = self.add(bx, ys)?;
        let diff = self.sub(bx, ys)?;
        let s = self.sel(same, sum, diff)?;
        let k10 = self.u64c(10)?;
        let e = self.sub(px.exp, k10)?;
        let f = self.bconst(false)?;
        let (packed, tiny) = self.pack_f64(px.sign, e, s, f, mode.round)?;
        let s0 = self.eq(s, 0)?;
        let ez = self.exact_zero(mode.round)?;
        let r = self.sel(s0, ez, packed)?;
        let ns0 = self.lnot(s0)?;
        let tiny = self.land(tiny, ns0)?;
        // Zeros of one sign keep it; infinities; NaNs.
        let bothz = self.land(za, zb)?;
        let sa = self.shr(a, 63)?;
        let sb = self.shr(b, 63)?;
        let same_ab = self.b.i_equal(tb, None, sa, sb).map_err(internal)?;
        let keep_a = self.land(bothz, same_ab)?;
        let r = self.sel(keep_a, a, r)?;
        let r = self.sel(ib, b, r)?;
        let r = self.sel(ia, a, r)?;
        let both_inf = self.land(ia, ib)?;
        let opp = self.lnot(same_ab)?;
        let invalid = self.land(both_inf, opp)?;
        let inv_nan = self.nan_bits(FFmt::F64, mode.nan, &[])?;
        let r = self.sel(invalid, inv_nan, r)?;
        let any_nan = self.lor(na, nb)?;
        let op_nan = self.nan_bits(FFmt::F64, mode.nan, &[a, b])?;
        let r = self.sel(any_nan, op_nan, r)?;
        let special = self.lor(any_nan, ia)?;
        let special = self.lor(special, ib)?;
        let special = self.lor(special, bothz)?;
        let ns = self.lnot(special)?;
        let tiny = self.land(tiny, ns)?;
        Ok((r, tiny))
    }

    /// The exact 128-bit product of two u64 values (here normalized significands, 106 bits) as
    /// (high, low) words, from four 32 x 32 -> 64-bit partial products in u64 arithmetic, none
    /// of whose sums can carry out of 64 bits (naga's SPIR-V reader has no `OpUMulExtended`).
    fn sig_product(&mut self, x: Word, y: Word) -> Result<(Word, Word), EmitError> {
        const LOW32: u64 = 0xffff_ffff;
        let (xl, xh, yl, yh) = (self.and(x, LOW32)?, self.shr(x, 32)?, self.and(y, LOW32)?, self.shr(y, 32)?);
        let ll = self.b.i_mul(self.t_u64, None, xl, yl).map_err(internal)?;
        let lh = self.b.i_mul(self.t_u64, None, xl, yh).map_err(internal)?;
        let hl = self.b.i_mul(self.t_u64, None, xh, yl).map_err(internal)?;
        let hh = self.b.i_mul(self.t_u64, None, xh, yh).map_err(internal)?;
        // Bits 32..96 of the product: the middle column, below 3 x 2^32.
        let (ll_hi, lh_lo, hl_lo) = (self.shr(ll, 32)?, self.and(lh, LOW32)?, self.and(hl, LOW32)?);
        let cross = self.add(ll_hi, lh_lo)?;
        let cross = self.add(cross, hl_lo)?;
        let (cross_lo, ll_lo) = (self.shl(cross, 32)?, self.and(ll, LOW32)?);
        let lo = self.or(cross_lo, ll_lo)?;
        let (lh_hi, hl_hi, carry) = (self.shr(lh, 32)?, self.shr(hl, 32)?, self.shr(cross, 32)?);
        let hi = self.add(hh, lh_hi)?;
        let hi = self.add(hi, hl_hi)?;
        let hi = self.add(hi, carry)?;
        Ok((hi, lo))
    }

    fn f64_mul(&mut self, mode: &FloatMode, a: Word, b: Word) -> Result<(Word, Word), EmitError> {
        let (na, ia, za) = self.classes(a)?;
        let (nb, ib, zb) = self.classes(b)?;
        let pa = self.unpack_f64(a)?;
        let pb = self.unpack_f64(b)?;
        let (hi, lo) = self.sig_product(pa.sig, pb.sig)?;
        // The product lies in [2^104, 2^106): its top 64 bits and a sticky bit.
        let h = self.shl(hi, 22)?;
        let l = self.shr(lo, 42)?;
        let sig = self.or(h, l)?;
        let rest = self.and(lo, (1 << 42) - 1)?;
        let sticky = self.ne0(rest)?;
        let e = self.add(pa.exp, pb.exp)?;
        let k42 = self.u64c(42)?;
        let e = self.add(e, k42)?;
        let sign = self.b.bitwise_xor(self.t_u64, None, pa.sign, pb.sign).map_err(internal)?;
        let (packed, tiny) = self.pack_f64(sign, e, sig, sticky, mode.round)?;
        let sbit = self.shl(sign, 63)?;
        let any_zero = self.lor(za, zb)?;
        let any_inf = self.lor(ia, ib)?;
        let r = self.sel(any_zero, sbit, packed)?;
        let inf = self.u64c(0x7ff << 52)?;
        let sinf = self.or(sbit, inf)?;
        let r = self.sel(any_inf, sinf, r)?;
        let invalid = self.land(any_zero, any_inf)?;
        let inv_nan = self.nan_bits(FFmt::F64, mode.nan, &[])?;
        let r = self.sel(invalid, inv_nan, r)?;
        let any_nan = self.lor(na, nb)?;
        let op_nan = self.nan_bits(FFmt::F64, mode.nan, &[a, b])?;
        let r = self.sel(any_nan, op_nan, r)?;
        let special = self.lor(any_nan, any_inf)?;
        let special = self.lor(special, any_zero)?;
        let ns = self.lnot(special)?;
        let tiny = self.land(tiny, ns)?;
        Ok((r, tiny))
    }

    /// (hi, lo) shifted right by `n` (0..=127), the lost bits as a sticky bit in bit 0.
    fn shr128_sticky(&mut self, hi: Word, lo: Word, n: Word) -> Result<(Word, Word), EmitError> {
        let tb = self.bool_ty()?;
        let (z, one, k63, k64) = (self.u64c(0)?, self.u64c(1)?, self.u64c(63)?, self.u64c(64)?);
        let n = {
            let k127 = self.u64c(127)?;
            let big = self.b.u_greater_than(tb, None, n, k127).map_err(internal)?;
            self.sel(big, k127, n)?
        };
        let small = self.ult(n, k64)?;
        // n < 64.
        let ns = self.b.bitwise_and(self.t_u64, None, n, k63).map_err(internal)?;
        let lo_s = self.shr_v(lo, ns)?;
        let back = self.sub(k64, ns)?;
        let back = self.b.bitwise_and(self.t_u64, None, back, k63).map_err(internal)?;
        let carry = self.shl_v(hi, back)?;
        let n0 = self.eq(ns, 0)?;
        let carry = self.sel(n0, z, carry)?;
        let lo_a = self.or(lo_s, carry)?;
        let hi_a = self.shr_v(hi, ns)?;
        let unit = self.shl_v(one, ns)?;
        let mask = self.sub(unit, one)?;
        let lost_a = self.b.bitwise_and(self.t_u64, None, lo, mask).map_err(internal)?;
        // n >= 64: ns = n - 64.
        let lo_b = self.shr_v(hi, ns)?;
        let hl = self.b.bitwise_and(self.t_u64, None, hi, mask).map_err(internal)?;
        let lost_b = self.or(lo, hl)?;
        let lo_r = self.sel(small, lo_a, lo_b)?;
        let hi_r = self.sel(small, hi_a, z)?;
        let lost = self.sel(small, lost_a, lost_b)?;
        let lost = self.ne0(lost)?;
        let lw = self.sel(lost, one, z)?;
        Ok((hi_r, self.or(lo_r, lw)?))
    }

    /// (a × b + c) × 2^k (k a signed u64 word, 0 without one) with one rounding, and the
    /// tininess flag.
    pub(super) fn f64_fma(&mut self, mode: &FloatMode, a: Word, b: Word, c: Word, k: Option<Word>) -> Result<(Word, Word), EmitError> {
        let tb = self.bool_ty()?;
        let (na, ia, za) = self.classes(a)?;
        let (nb, ib, zb) = self.classes(b)?;
        let (nc, ic, zc) = self.classes(c)?;
        let pa = self.unpack_f64(a)?;
        let pb = self.unpack_f64(b)?;
        let pc = self.unpack_f64(c)?;
        let (hi, lo) = self.sig_product(pa.sig, pb.sig)?;
        // Frames: the product shifted up 20 bits (top bit at 124 or 125), the addend 73 (top
        // bit at 125), so neither loses a bit when the other is the larger by few places.
        let h = self.shl(hi, 20)?;
        let l = self.shr(lo, 44)?;
        let xh = self.or(h, l)?;
        let xl = self.shl(lo, 20)?;
        let ex = self.add(pa.exp, pb.exp)?;
        let k20 = self.u64c(20)?;
        let ex = self.sub(ex, k20)?;
        let yh = self.shl(pc.sig, 9)?;
        let yl = self.u64c(0)?;
        let k73 = self.u64c(73)?;
        let ey = self.sub(pc.exp, k73)?;
        let d = self.sub(ex, ey)?;
        let z = self.u64c(0)?;
        // A zero addend: the product's frame.
        let d = self.sel(zc, z, d)?;
        let dneg = self.slt(d, z)?;
        let nd = self.sub(z, d)?;
        let (yh_s, yl_s) = self.shr128_sticky(yh, yl, d)?;
        let (xh_s, xl_s) = self.shr128_sticky(xh, xl, nd)?;
        let (xh, xl) = (self.sel(dneg, xh_s, xh)?, self.sel(dneg, xl_s, xl)?);
        let (yh, yl) = (self.sel(dneg, yh, yh_s)?, self.sel(dneg, yl, yl_s)?);
        let yh = self.sel(zc, z, yh)?;
        let yl = self.sel(zc, z, yl)?;
        let frame = self.sel(dneg, ey, ex)?;
        let sp = self.b.bitwise_xor(self.t_u64, None, pa.sign, pb.sign).map_err(internal)?;
        let same = self.b.i_equal(tb, None, sp, pc.sign).map_err(internal)?;
        let one = self.u64c(1)?;
        // Sum.
        let sl = self.add(xl, yl)?;
        let cy = self.ult(sl, xl)?;
        let cyw = self.sel(cy, one, z)?;
        let sh_ = self.add(xh, yh)?;
        let sh_ = self.add(sh_, cyw)?;
        // Difference, negated when it is below zero.
        let dl = self.sub(xl, yl)?;
        let bw = self.ult(xl, yl)?;
        let bww = self.sel(bw, one, z)?;
        let dh = self.sub(xh, yh)?;
        let dh = self.sub(dh, bww)?;
        let negd = self.slt(dh, z)?;
        let ndl = self.sub(z, dl)?;
        let nz = self.ne0(dl)?;
        let nzw = self.sel(nz, one, z)?;
        let ndh = self.sub(z, dh)?;
        let ndh = self.sub(ndh, nzw)?;
        let dl = self.sel(negd, ndl, dl)?;
        let dh = self.sel(negd, ndh, dh)?;
        let rh = self.sel(same, sh_, dh)?;
        let rl = self.sel(same, sl, dl)?;
        let differ = self.lnot(same)?;
        let flip = self.land(negd, differ)?;
        let sign = self.sel(flip, pc.sign, sp)?;
        // To 64 bits: the top 64 from the high word's top bit, the rest sticky.
        let has_hi = self.ne0(rh)?;
        let mh = self.msb64(rh)?;
        let k63 = self.u64c(63)?;
        let s = self.sub(k63, mh)?;
        let top = self.shl_v(rh, s)?;
        let k64 = self.u64c(64)?;
        let back = self.sub(k64, s)?;
        let back = self.b.bitwise_and(self.t_u64, None, back, k63).map_err(internal)?;
        let fromlo = self.shr_v(rl, back)?;
        let s0 = self.eq(s, 0)?;
        let fromlo = self.sel(s0, z, fromlo)?;
        let sig_h = self.or(top, fromlo)?;
        let restl = self.shl_v(rl, s)?;
        let sticky_h = self.ne0(restl)?;
        let e_h = self.add(frame, k64)?;
        let e_h = self.sub(e_h, s)?;
        let sig = self.sel(has_hi, sig_h, rl)?;
        let fls = self.bconst(false)?;
        let sticky = self.b.select(tb, None, has_hi, sticky_h, fls).map_err(internal)?;
        let e = self.sel(has_hi, e_h, frame)?;
        let e = match k {
            Some(k) => self.add(e, k)?,
            None => e,
        };
        let (packed, tiny) = self.pack_f64(sign, e, sig, sticky, mode.round)?;
        let rz = self.eq(rh, 0)?;
        let rlz = self.eq(rl, 0)?;
        let rzero = self.land(rz, rlz)?;
        let ez = self.exact_zero(mode.round)?;
        let r = self.sel(rzero, ez, packed)?;
        let nrz = self.lnot(rzero)?;
        let tiny = self.land(tiny, nrz)?;
        // Special operands (`soft::fma_scaled`).
        let pzero = self.lor(za, zb)?;
        let pinf = self.lor(ia, ib)?;
        let psb = self.shl(sp, 63)?;
        // A zero product leaves the addend, scaled (`soft::fma_scaled`).
        let (c_k, tiny_c) = match k {
            Some(k) => {
                let e = self.add(pc.exp, k)?;
                let fls = self.bconst(false)?;
                let (p, t) = self.pack_f64(pc.sign, e, pc.sig, fls, mode.round)?;
                let zi = self.lor(zc, ic)?;
                let zin = self.lor(zi, nc)?;
                (self.sel(zin, c, p)?, Some(t))
            }
            None => (c, None),
        };
        let r = self.sel(pzero, c_k, r)?;
        let sc = self.shr(c, 63)?;
        let same_zero = self.b.i_equal(tb, None, sp, sc).map_err(internal)?;
        let zz = self.sel(same_zero, psb, ez)?;
        let both_zero = self.land(pzero, zc)?;
        let r = self.sel(both_zero, zz, r)?;
        let r = self.sel(ic, c, r)?;
        let inf = self.u64c(0x7ff << 52)?;
        let pinfv = self.or(psb, inf)?;
        let r = self.sel(pinf, pinfv, r)?;
        let inv_nan = self.nan_bits(FFmt::F64, mode.nan, &[])?;
        let opp = self.lnot(same_zero)?;
        let inf_inf = self.land(pinf, ic)?;
        let inf_inf = self.land(inf_inf, opp)?;
        let r = self.sel(inf_inf, inv_nan, r)?;
        let inv_prod = self.land(pinf, pzero)?;
        let r = self.sel(inv_prod, inv_nan, r)?;
        let any_nan = self.lor(na, nb)?;
        let any_nan = self.lor(any_nan, nc)?;
        let op_nan = self.nan_bits(FFmt::F64, mode.nan, &[a, b, c])?;
        let r = self.sel(any_nan, op_nan, r)?;
        // Under the AMD NaN rules an invalid product (inf × 0) gives the invalid NaN even when
        // the addend is a NaN (`soft::fma_scaled`).
        let r = if matches!(mode.nan, NanRule::Keep | NanRule::PropagateNeg) { self.sel(inv_prod, inv_nan, r)? } else { r };
        let special = self.lor(any_nan, pinf)?;
        let special = self.lor(special, ic)?;
        let special = self.lor(special, pzero)?;
        let ns = self.lnot(special)?;
        let tiny = self.land(tiny, ns)?;
        let tiny = match tiny_c {
            Some(t) => {
                // The scaled addend of a zero product may be tiny.
                let s = self.lor(any_nan, pinf)?;
                let s = self.lor(s, ic)?;
                let s = self.lor(s, zc)?;
                let fin = self.lnot(s)?;
                let use_c = self.land(pzero, fin)?;
                let tc = self.land(t, use_c)?;
                self.lor(tiny, tc)?
            }
            None => tiny,
        };
        Ok((r, tiny))
    }

    /// An f64 comparison on bits (u64), NaN operands unordered.
    pub(super) fn f64_cmp(&mut self, c: FCmp, a: Word, b: Word) -> Result<Word, EmitError> {
        let tb = self.bool_ty()?;
        let key = |em: &mut Self, x: Word| -> Result<Word, EmitError> {
            let mag = em.and(x, (1 << 63) - 1)?;
            let s = em.shr(x, 63)?;
            let neg = em.eq(s, 1)?;
            let z = em.u64c(0)?;
            let nm = em.sub(z, mag)?;
            em.sel(neg, nm, mag)
        };
        let (ka, kb) = (key(self, a)?, key(self, b)?);
        let na = self.is_nan_bits(FFmt::F64, a)?;
        let nb = self.is_nan_bits(FFmt::F64, b)?;
        let un = self.lor(na, nb)?;
        let ord = self.lnot(un)?;
        let b_ = &mut self.b;
        let rel = match c {
            FCmp::Eq | FCmp::Equ => b_.i_equal(tb, None, ka, kb),
            FCmp::Ne | FCmp::Neu => b_.i_not_equal(tb, None, ka, kb),
            FCmp::Lt | FCmp::Ltu => b_.s_less_than(tb, None, ka, kb),
            FCmp::Le | FCmp::Leu => b_.s_less_than_equal(tb, None, ka, kb),
            FCmp::Gt | FCmp::Gtu => b_.s_greater_than(tb, None, ka, kb),
            FCmp::Ge | FCmp::Geu => b_.s_greater_than_equal(tb, None, ka, kb),
            FCmp::Num => return Ok(ord),
            FCmp::Nan => return Ok(un),
        }
        .map_err(internal)?;
        if matches!(c, FCmp::Eq | FCmp::Ne | FCmp::Lt | FCmp::Le | FCmp::Gt | FCmp::Ge) {
            self.land(ord, rel)
        } else {
            self.lor(un, rel)
        }
    }

}

