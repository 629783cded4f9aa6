//! Formatted buffer access of wave-model functions (`buf.loadfmt` / `buf.storefmt`) in SPIR-V,
//! with the conversions of `isabridge_ir::ops::format` done exactly in integer arithmetic.
//!
//! The element format is the op's own or the one the descriptor's word 3 names (a run-time
//! value): either way it becomes one packed word ([`packed`]: channel widths, number format, a
//! valid bit), and the code below reads every field from that word, so one path serves both.
//! An element (1 to 16 bytes at any byte address) is read as the device words it covers, each
//! loaded only when the lane accesses memory and the element reaches it; a store changes only
//! the element's bytes of each word it covers (two atomics per word, as 1- and 2-byte stores
//! do). Conversions: normalized and scaled channels divide in 64-bit integers and round the
//! quotient with the sign of its remainder (`round_to`); float channels widen and narrow in
//! integer arithmetic (`widen`, toward-zero `round_to`); the f32-to-normalized product is exact
//! in f64 and rounded to an integer by `round_integral`. A descriptor format code that names no
//! format records a trap ([`FORMAT_TRAP`]) for an accessing lane, where the interpreter stops
//! with an error.

use super::amd_memory::Place;
use super::emit::{internal, Em, EmitError};
use super::float::Err64;
use isabridge_ir::ops::buffer::{format_of_code, BufferKind, BufferOp};
use isabridge_ir::ops::format::{Format, NumFormat};
use isabridge_ir::soft::{FFmt, Round};
use isabridge_ir::Value;
use rspirv::spirv::Word;

/// The trap code recorded when a descriptor's format code names no element format.
pub const FORMAT_TRAP: u16 = 0xfffe;

/// Number formats in the order of their 3-bit code in a packed format word.
const NUMS: [NumFormat; 7] =
    [NumFormat::Unorm, NumFormat::Snorm, NumFormat::Uscaled, NumFormat::Sscaled, NumFormat::Uint, NumFormat::Sint, NumFormat::Float];

/// The 3-bit code of a number format.
fn num_code(n: NumFormat) -> u64 {
    NUMS.iter().position(|&x| x == n).unwrap_or(0) as u64
}

/// A format as one word: width of channel i in bits 6i..6i+6, the number format's code in bits
/// 24..27, bit 31 set (a valid format).
fn packed(f: Format) -> u64 {
    let w = f.widths.iter().enumerate().fold(0u64, |acc, (i, &w)| acc | (w as u64) << (6 * i));
    w | num_code(f.num) << 24 | 1 << 31
}

/// The fields of a packed format word, as u64 words.
struct Fields {
    /// Channel widths x..w (0: absent).
    w: [Word; 4],
    /// Bit position of each channel in the element.
    pos: [Word; 4],
    /// Number format code.
    num: Word,
    /// Element bytes.
    size: Word,
    /// A format is named (b1).
    valid: Word,
}

impl Em<'_> {
    fn fx_shl(&mut self, a: Word, n: Word) -> Result<Word, EmitError> {
        self.b.shift_left_logical(self.t_u64, None, a, n).map_err(internal)
    }
    fn fx_shr(&mut self, a: Word, n: Word) -> Result<Word, EmitError> {
        self.b.shift_right_logical(self.t_u64, None, a, n).map_err(internal)
    }
    fn fx_ult(&mut self, a: Word, b: Word) -> Result<Word, EmitError> {
        let tb = self.bool_ty()?;
        self.b.u_less_than(tb, None, a, b).map_err(internal)
    }
    fn fx_umin(&mut self, a: Word, b: Word) -> Result<Word, EmitError> {
        let lt = self.fx_ult(a, b)?;
        self.sel(lt, a, b)
    }
    fn fx_ne0(&mut self, a: Word) -> Result<Word, EmitError> {
        let z = self.eq(a, 0)?;
        self.lnot(z)
    }
    /// `(1 << w) - 1` for w in 0..=32.
    fn fx_mask(&mut self, w: Word) -> Result<Word, EmitError> {
        let one = self.u64c(1)?;
        let p = self.fx_shl(one, w)?;
        self.sub(p, one)
    }
    /// The low `w` bits of `x` (1 <= w <= 32; 0 reads as 1) sign-extended to 64 bits.
    fn fx_sext(&mut self, w: Word, x: Word) -> Result<Word, EmitError> {
        let z = self.eq(w, 0)?;
        let w = self.sel_k(z, 1, w)?;
        let k64 = self.u64c(64)?;
        let sh = self.sub(k64, w)?;
        let l = self.fx_shl(x, sh)?;
        self.b.shift_right_arithmetic(self.t_u64, None, l, sh).map_err(internal)
    }
    /// The entry of `v` at the run-time index `i` (0..v.len()).
    fn fx_pick(&mut self, v: &[Word], i: Word) -> Result<Word, EmitError> {
        let mut r = v[0];
        for (k, &x) in v.iter().enumerate().skip(1) {
            let is = self.eq(i, k as u64)?;
            r = self.sel(is, x, r)?;
        }
        Ok(r)
    }

    /// The packed format word of an op: its own format, or the one descriptor word 3 (`w3`,
    /// u32) names (0 when it names none).
    fn format_word(&mut self, format: Option<Format>, w3: Word) -> Result<Word, EmitError> {
        if let Some(f) = format {
            return self.u64c(packed(f));
        }
        let w = self.b.u_convert(self.t_u64, None, w3).map_err(internal)?;
        let code = self.shr(w, 12)?;
        let code = self.and(code, 0x7f)?;
        let mut r = self.u64c(0)?;
        for k in 1..128u8 {
            if let Some(f) = format_of_code(k) {
                let is = self.eq(code, k as u64)?;
                r = self.sel_k(is, packed(f), r)?;
            }
        }
        Ok(r)
    }

    fn format_fields(&mut self, word: Word) -> Result<Fields, EmitError> {
        let mut w = [0; 4];
        for (i, x) in w.iter_mut().enumerate() {
            let s = self.shr(word, 6 * i as u64)?;
            *x = self.and(s, 63)?;
        }
        let mut pos = [self.u64c(0)?; 4];
        for i in 1..4 {
            pos[i] = self.add(pos[i - 1], w[i - 1])?;
        }
        let total = self.add(pos[3], w[3])?;
        let size = self.shr(total, 3)?;
        let num = self.shr(word, 24)?;
        let num = self.and(num, 7)?;
        let v = self.shr(word, 31)?;
        let valid = self.eq(v, 1)?;
        Ok(Fields { w, pos, num, size, valid })
    }

    fn is_num(&mut self, num: Word, n: NumFormat) -> Result<Word, EmitError> {
        self.eq(num, num_code(n))
    }

    /// The f32 bits (u64) of a 16-, 11- or 10-bit float channel `x` of width `w` (exact; a
    /// NaN keeps its payload unquieted): the 11- and 10-bit floats are f16 with fewer fraction
    /// bits, so all go through the f16 widening.
    fn small_float_to_f32(&mut self, w: Word, x: Word) -> Result<Word, EmitError> {
        let k15 = self.u64c(15)?;
        let wc = self.fx_umin(w, k15)?;
        let sh = self.sub(k15, wc)?;
        let h = self.fx_shl(x, sh)?;
        let is16 = self.eq(w, 16)?;
        let h = self.sel(is16, x, h)?;
        let h = self.and(h, 0xffff)?;
        let d = self.widen(FFmt::F16, h)?;
        let sign = self.shr(d, 63)?;
        let sign = self.shl(sign, 31)?;
        let e = self.shr(d, 52)?;
        let e = self.and(e, 0x7ff)?;
        let top = self.eq(e, 0x7ff)?;
        let zero = self.eq(e, 0)?;
        let k = self.u64c(1023 - 127)?;
        let e32 = self.sub(e, k)?;
        let e32 = self.sel_k(zero, 0, e32)?;
        let e32 = self.sel_k(top, 0xff, e32)?;
        let e32 = self.shl(e32, 23)?;
        let frac = self.and(d, (1 << 52) - 1)?;
        let frac = self.shr(frac, 29)?;
        let r = self.or(sign, e32)?;
        self.or(r, frac)
    }

    /// f32 bits `x` narrowed toward zero into a float of a 5-bit exponent and `man` (u64,
    /// 5..=10) fraction bits (`format::narrow_rz`): a NaN keeps its top payload bits (1 when
    /// those are 0), infinities and zeros keep their sign.
    fn narrow_rz(&mut self, x: Word, man: Word) -> Result<Word, EmitError> {
        let k5 = self.u64c(5)?;
        let top = self.add(man, k5)?;
        let s = self.shr(x, 31)?;
        let sign = self.fx_shl(s, top)?;
        let e = self.shr(x, 23)?;
        let e = self.and(e, 0xff)?;
        let frac = self.and(x, 0x7f_ffff)?;
        let e_max = self.eq(e, 0xff)?;
        let f0 = self.eq(frac, 0)?;
        let has_frac = self.lnot(f0)?;
        let nan = self.land(e_max, has_frac)?;
        let mag = self.and(x, 0x7fff_ffff)?;
        let zero = self.eq(mag, 0)?;
        let k23 = self.u64c(23)?;
        let sh = self.sub(k23, man)?;
        let p = self.fx_shr(frac, sh)?;
        let p0 = self.eq(p, 0)?;
        let p = self.sel_k(p0, 1, p)?;
        let k31 = self.u64c(31)?;
        let emax = self.fx_shl(k31, man)?;
        let inf = self.or(sign, emax)?;
        let nanv = self.or(inf, p)?;
        let d = self.widen(FFmt::F32, x)?;
        let (h, _) = self.round_to(FFmt::F16, d, Err64::Exact, Round::Rz, false)?;
        let h = self.and(h, 0x7fff)?;
        let k10 = self.u64c(10)?;
        let drop = self.sub(k10, man)?;
        let h = self.fx_shr(h, drop)?;
        let fin = self.or(sign, h)?;
        let r = self.sel(zero, sign, fin)?;
        let r = self.sel(e_max, inf, r)?;
        self.sel(nan, nanv, r)
    }

    /// A normalized or scaled channel `x` (width `w`, number format `num`) as `fmt` (f32 or
    /// f16) bits, the exact quotient rounded to nearest even (saturating to the largest finite
    /// value when `sat`), as `format::to_float` defines it.
    pub(super) fn scaled_to_float(&mut self, fmt: FFmt, num: Word, w: Word, x: Word, sat: bool) -> Result<Word, EmitError> {
        let s = self.fx_sext(w, x)?;
        let sn = self.is_num(num, NumFormat::Snorm)?;
        let ss = self.is_num(num, NumFormat::Sscaled)?;
        let signed = self.lor(sn, ss)?;
        let sb = self.shr(s, 63)?;
        let sneg = self.eq(sb, 1)?;
        let neg = self.land(signed, sneg)?;
        let z = self.u64c(0)?;
        let ms = self.sub(z, s)?;
        let abs_s = self.sel(sneg, ms, s)?;
        let mag = self.sel(signed, abs_s, x)?;
        let one = self.u64c(1)?;
        let w0 = self.eq(w, 0)?;
        let w1 = self.sel(w0, one, w)?;
        let wm1 = self.sub(w1, one)?;
        let den_u = self.fx_mask(w)?;
        let den_s = self.fx_mask(wm1)?;
        let un = self.is_num(num, NumFormat::Unorm)?;
        let den = self.sel(sn, den_s, one)?;
        let den = self.sel(un, den_u, den)?;
        let d0 = self.eq(den, 0)?;
        let den = self.sel(d0, one, den)?;
        let clamped = self.fx_umin(mag, den)?;
        let mag = self.sel(sn, clamped, mag)?;
        let is_zero = self.eq(mag, 0)?;
        // The quotient's top bit lands at bit 51 or below (mag <= den) or exactly (den 1): an
        // integer below 2^53, exact in f64, with the remainder's sign as the error.
        let m1 = self.or(mag, one)?;
        let m32 = self.b.u_convert(self.t_u32, None, m1).map_err(internal)?;
        let set = self.glsl_import();
        let msb = self.b.ext_inst(self.t_u32, None, set, 75, [rspirv::dr::Operand::IdRef(m32)]).map_err(internal)?;
        let msb = self.b.u_convert(self.t_u64, None, msb).map_err(internal)?;
        let k51 = self.u64c(51)?;
        let sh = self.sub(k51, msb)?;
        let n = self.fx_shl(mag, sh)?;
        let q = self.b.u_div(self.t_u64, None, n, den).map_err(internal)?;
        let r = self.b.u_mod(self.t_u64, None, n, den).map_err(internal)?;
        let t64 = self.f64_ty();
        let qd = self.b.convert_u_to_f(t64, None, q).map_err(internal)?;
        let k1023 = self.u64c(1023)?;
        let pe = self.sub(k1023, sh)?;
        let pe = self.shl(pe, 52)?;
        let pd = self.as_double(pe)?;
        let d = self.fop(b'*', qd, pd)?;
        let d = self.double_bits(d)?;
        let nb = self.sel_k(neg, 1 << 63, z)?;
        let d = self.or(d, nb)?;
        let inexact = self.fx_ne0(r)?;
        let (p1, m1d, z0) = (
            self.b.constant_bit64(t64, 1.0f64.to_bits()),
            self.b.constant_bit64(t64, (-1.0f64).to_bits()),
            self.b.constant_bit64(t64, 0),
        );
        let e = self.b.select(t64, None, neg, m1d, p1).map_err(internal)?;
        let e = self.b.select(t64, None, inexact, e, z0).map_err(internal)?;
        let (rounded, _) = self.round_to(fmt, d, Err64::Term(e), Round::Rn, sat)?;
        self.sel(is_zero, z, rounded)
    }

    /// A channel's register value as 32-bit (`format::read32`) or 16-bit (`read16`, `half`)
    /// bits in a u64.
    fn read_channel(&mut self, num: Word, w: Word, x: Word, half: bool) -> Result<Word, EmitError> {
        let is_uint = self.is_num(num, NumFormat::Uint)?;
        let is_sint = self.is_num(num, NumFormat::Sint)?;
        let is_float = self.is_num(num, NumFormat::Float)?;
        let w32 = self.eq(w, 32)?;
        let w16 = self.eq(w, 16)?;
        let s = self.fx_sext(w, x)?;
        let (r_uint, r_sint, r_float, r_norm) = if half {
            let kffff = self.u64c(0xffff)?;
            let u = self.fx_umin(x, kffff)?;
            // The signed value clamped to the i16 range, compared unsigned after a bias.
            let bias = self.u64c(1 << 40)?;
            let sb = self.add(s, bias)?;
            let lo = self.u64c((1 << 40) - 0x8000)?;
            let hi = self.u64c((1 << 40) + 0x7fff)?;
            let below = self.fx_ult(sb, lo)?;
            let sb = self.sel(below, lo, sb)?;
            let above = self.fx_ult(hi, sb)?;
            let sb = self.sel(above, hi, sb)?;
            let si = self.sub(sb, bias)?;
            let si = self.and(si, 0xffff)?;
            let k10 = self.u64c(10)?;
            let f32n = self.narrow_rz(x, k10)?;
            let k15 = self.u64c(15)?;
            let wc = self.fx_umin(w, k15)?;
            let sh = self.sub(k15, wc)?;
            let small = self.fx_shl(x, sh)?;
            let fl = self.sel(w16, x, small)?;
            let fl = self.sel(w32, f32n, fl)?;
            let norm = self.scaled_to_float(FFmt::F16, num, w, x, true)?;
            (u, si, fl, norm)
        } else {
            let si = self.and(s, 0xffff_ffff)?;
            let small = self.small_float_to_f32(w, x)?;
            let fl = self.sel(w32, x, small)?;
            let norm = self.scaled_to_float(FFmt::F32, num, w, x, false)?;
            (x, si, fl, norm)
        };
        let r = self.sel(is_float, r_float, r_norm)?;
        let r = self.sel(is_sint, r_sint, r)?;
        self.sel(is_uint, r_uint, r)
    }

    /// f32 bits `x` to a normalized integer (`format::normalize`): NaN and zero 0, at least
    /// 1.0 `scale`, at most the low bound (-1 when `signed`, else 0) `-scale` or 0, otherwise
    /// |x| × scale (exact in f64) rounded to nearest even, with x's sign (two's complement).
    pub(super) fn normalize(&mut self, x: Word, signed: Word, scale: Word) -> Result<Word, EmitError> {
        let s = self.shr(x, 31)?;
        let neg = self.eq(s, 1)?;
        let mag = self.and(x, 0x7fff_ffff)?;
        let (inf, one) = (self.u64c(0x7f80_0000)?, self.u64c(0x3f80_0000)?);
        let nan = self.fx_ult(inf, mag)?;
        let zero = self.eq(mag, 0)?;
        let small = self.fx_ult(mag, one)?;
        let big = self.lnot(small)?;
        let d = self.widen(FFmt::F32, mag)?;
        let dv = self.as_double(d)?;
        let t64 = self.f64_ty();
        let sc = self.b.convert_u_to_f(t64, None, scale).map_err(internal)?;
        let p = self.fop(b'*', dv, sc)?;
        let r = self.round_integral(p, Round::Rn)?;
        let iv = self.b.convert_f_to_u(self.t_u64, None, r).map_err(internal)?;
        let z = self.u64c(0)?;
        let niv = self.sub(z, iv)?;
        let fin = self.sel(neg, niv, iv)?;
        let nscale = self.sub(z, scale)?;
        let low = self.sel(signed, nscale, z)?;
        let sat = self.sel(neg, low, scale)?;
        let r = self.sel(big, sat, fin)?;
        let unsigned = self.lnot(signed)?;
        let neg_u = self.land(neg, unsigned)?;
        let nz = self.lor(nan, zero)?;
        let nz = self.lor(nz, neg_u)?;
        self.sel(nz, z, r)
    }

    /// A 32-bit register value `x` as the channel bits of width `w` (`format::write32`).
    fn write_channel(&mut self, num: Word, w: Word, x: Word) -> Result<Word, EmitError> {
        let m = self.fx_mask(w)?;
        let one = self.u64c(1)?;
        let w0 = self.eq(w, 0)?;
        let w1 = self.sel(w0, one, w)?;
        let wm1 = self.sub(w1, one)?;
        let sn = self.is_num(num, NumFormat::Snorm)?;
        let ss = self.is_num(num, NumFormat::Sscaled)?;
        let signed = self.lor(sn, ss)?;
        let ms = self.fx_mask(wm1)?;
        let scale = self.sel(signed, ms, m)?;
        let norm = self.normalize(x, signed, scale)?;
        let u = self.fx_umin(x, m)?;
        // Signed saturation, compared unsigned after a bias of 2^40.
        let k32 = self.u64c(32)?;
        let xs = self.fx_sext(k32, x)?;
        let bias = self.u64c(1 << 40)?;
        let xb = self.add(xs, bias)?;
        let half = self.fx_shl(one, wm1)?;
        let lo = self.sub(bias, half)?;
        let hi = self.add(bias, half)?;
        let hi = self.sub(hi, one)?;
        let below = self.fx_ult(xb, lo)?;
        let xb = self.sel(below, lo, xb)?;
        let above = self.fx_ult(hi, xb)?;
        let xb = self.sel(above, hi, xb)?;
        let si = self.sub(xb, bias)?;
        // Floats: f16 keeps its sign; the unsigned 11/10-bit floats store negative values as
        // 0 and NaNs of either sign as positive ones.
        let w32 = self.eq(w, 32)?;
        let w16 = self.eq(w, 16)?;
        let k5 = self.u64c(5)?;
        let man = self.sub(w, k5)?;
        let man = self.sel_k(w16, 10, man)?;
        let k10 = self.u64c(10)?;
        let man = self.fx_umin(man, k10)?;
        let xm = self.and(x, 0x7fff_ffff)?;
        let (inf, z) = (self.u64c(0x7f80_0000)?, self.u64c(0)?);
        let nan = self.fx_ult(inf, xm)?;
        let unsigned_f = self.lnot(w16)?;
        let strip = self.land(nan, unsigned_f)?;
        let input = self.sel(strip, xm, x)?;
        let nf = self.narrow_rz(input, man)?;
        let s = self.shr(x, 31)?;
        let neg = self.eq(s, 1)?;
        let not_nan = self.lnot(nan)?;
        let drop = self.land(unsigned_f, neg)?;
        let drop = self.land(drop, not_nan)?;
        let fl = self.sel(drop, z, nf)?;
        let fl = self.sel(w32, x, fl)?;
        let is_uint = self.is_num(num, NumFormat::Uint)?;
        let is_sint = self.is_num(num, NumFormat::Sint)?;
        let is_float = self.is_num(num, NumFormat::Float)?;
        let r = self.sel(is_float, fl, norm)?;
        let r = self.sel(is_sint, si, r)?;
        let r = self.sel(is_uint, u, r)?;
        self.b.bitwise_and(self.t_u64, None, r, m).map_err(internal)
    }

    /// The four 32-bit words (in u64s) of the `size`-byte element at `addr` (bytes past it
    /// unspecified); each device word is loaded only when `go` and the element reaches it.
    fn read_element(&mut self, addr: Word, go: Word, size: Word) -> Result<[Word; 4], EmitError> {
        let o = self.and(addr, 3)?;
        let a4 = self.and(addr, !3)?;
        let end = self.add(o, size)?;
        let zero32 = self.wc32(0)?;
        let mut l = Vec::with_capacity(5);
        for k in 0..5u64 {
            let at = self.u64c(4 * k)?;
            let needed = self.fx_ult(at, end)?;
            let now = self.land(go, needed)?;
            let a = self.add(a4, at)?;
            let w = self.guarded(now, Some((self.t_u32, zero32)), |em| em.load_word(Place::Device, a).map(Some))?;
            let w = w.ok_or_else(|| internal("guarded load without a value"))?;
            l.push(self.b.u_convert(self.t_u64, None, w).map_err(internal)?);
        }
        let k8 = self.u64c(8)?;
        let sh = self.b.i_mul(self.t_u64, None, o, k8).map_err(internal)?;
        let mut e = [0; 4];
        for (k, x) in e.iter_mut().enumerate() {
            let hi = self.shl(l[k + 1], 32)?;
            let pair = self.or(hi, l[k])?;
            let v = self.fx_shr(pair, sh)?;
            *x = self.and(v, 0xffff_ffff)?;
        }
        Ok(e)
    }

    /// Write the element words `e` (u64s holding 32 bits) of `size` bytes at `addr` when `go`:
    /// per covered device word, clear the element's bytes and set them with atomics.
    fn write_element(&mut self, addr: Word, go: Word, size: Word, e: &[Word; 4]) -> Result<(), EmitError> {
        let o = self.and(addr, 3)?;
        let a4 = self.and(addr, !3)?;
        let k8 = self.u64c(8)?;
        let o8 = self.b.i_mul(self.t_u64, None, o, k8).map_err(internal)?;
        let k32 = self.u64c(32)?;
        let back = self.sub(k32, o8)?;
        // The element's byte mask per 32-bit word, then both shifted up by `o` bytes.
        let mut m = [0; 4];
        for (k, x) in m.iter_mut().enumerate() {
            let at = self.u64c(4 * k as u64)?;
            let past = self.fx_ult(at, size)?;
            let left = self.sub(size, at)?;
            let k4 = self.u64c(4)?;
            let left = self.fx_umin(left, k4)?;
            let past_end = self.lnot(past)?;
            let left = self.sel_k(past_end, 0, left)?;
            let bits = self.b.i_mul(self.t_u64, None, left, k8).map_err(internal)?;
            *x = self.fx_mask(bits)?;
        }
        let z = self.u64c(0)?;
        let shifted = |em: &mut Self, v: &[Word; 4], j: usize| -> Result<Word, EmitError> {
            let cur = if j < 4 { v[j] } else { z };
            let prev = if j > 0 { v[j - 1] } else { z };
            let hi = em.shl(cur, 32)?;
            let pair = em.or(hi, prev)?;
            let r = em.fx_shr(pair, back)?;
            em.and(r, 0xffff_ffff)
        };
        let (scope, sem) = (self.wc32(1)?, self.wc32(0)?);
        for j in 0..5 {
            let mw = shifted(self, &m, j)?;
            let vw = shifted(self, e, j)?;
            let vw = self.b.bitwise_and(self.t_u64, None, vw, mw).map_err(internal)?;
            let touched = self.fx_ne0(mw)?;
            let now = self.land(go, touched)?;
            let at = self.u64c(4 * j as u64)?;
            let a = self.add(a4, at)?;
            self.guarded(now, None, |em| {
                let p = em.word_ptr(Place::Device, a)?;
                let keep = em.b.not(em.t_u64, None, mw).map_err(internal)?;
                let keep = em.b.u_convert(em.t_u32, None, keep).map_err(internal)?;
                let set = em.b.u_convert(em.t_u32, None, vw).map_err(internal)?;
                em.b.atomic_and(em.t_u32, None, p, scope, sem, keep).map_err(internal)?;
                em.b.atomic_or(em.t_u32, None, p, scope, sem, set).map_err(internal)?;
                Ok(None)
            })?;
        }
        Ok(())
    }

    /// Record [`FORMAT_TRAP`] for this invocation when `bad` (the run then ends with the
    /// runner's trap error); the lane goes on with a zero result.
    fn format_trap(&mut self, bad: Word) -> Result<(), EmitError> {
        self.trap_when(bad, FORMAT_TRAP)
    }

    /// A formatted buffer load or store (`bo`), its address `addr` (u64) and whether the lane
    /// accesses memory (`go`) already computed from the descriptor words `a` (u32s); the
    /// loaded value as a u64 word (0 where the lane does not access memory).
    pub(super) fn buffer_format(&mut self, bo: BufferOp, args: &[Value], a: &[Word], addr: Word, go: Word) -> Result<Option<Word>, EmitError> {
        let (format, half) = match bo.kind {
            BufferKind::LoadFormat { format, half, .. } | BufferKind::StoreFormat { format, half, .. } => (format, half),
            _ => return Err(internal("an unformatted buffer op reached the formatted path")),
        };
        let word = self.format_word(format, a[3])?;
        let f = self.format_fields(word)?;
        let go = if format.is_none() {
            let bad = self.lnot(f.valid)?;
            let bad = self.land(go, bad)?;
            self.format_trap(bad)?;
            self.land(go, f.valid)?
        } else {
            go
        };
        let w3 = self.b.u_convert(self.t_u64, None, a[3]).map_err(internal)?;
        match bo.kind {
            BufferKind::LoadFormat { comp, .. } => {
                let e = self.read_element(addr, go, f.size)?;
                let s = self.shr(w3, 3 * comp as u64)?;
                let sel = self.and(s, 7)?;
                let k4 = self.u64c(4)?;
                let c = self.sub(sel, k4)?;
                let c = self.and(c, 3)?;
                let w = self.fx_pick(&f.w, c)?;
                let p = self.fx_pick(&f.pos, c)?;
                let wi = self.shr(p, 5)?;
                let sh = self.and(p, 31)?;
                let z = self.u64c(0)?;
                let lo = self.fx_pick(&e, wi)?;
                let hi = self.fx_pick(&[e[1], e[2], e[3], z], wi)?;
                let hi = self.shl(hi, 32)?;
                let pair = self.or(hi, lo)?;
                let raw = self.fx_shr(pair, sh)?;
                let m = self.fx_mask(w)?;
                let raw = self.b.bitwise_and(self.t_u64, None, raw, m).map_err(internal)?;
                let v = self.read_channel(f.num, w, raw, half)?;
                let is_uint = self.is_num(f.num, NumFormat::Uint)?;
                let is_sint = self.is_num(f.num, NumFormat::Sint)?;
                let int = self.lor(is_uint, is_sint)?;
                let fone = self.u64c(if half { 0x3c00 } else { 0x3f80_0000 })?;
                let one = self.sel_k(int, 1, fone)?;
                let absent = self.eq(w, 0)?;
                let is_w = self.eq(c, 3)?;
                let dflt = self.sel(is_w, one, z)?;
                let chan = self.sel(absent, dflt, v)?;
                let k3 = self.u64c(3)?;
                let ge4 = self.fx_ult(k3, sel)?;
                let is1 = self.eq(sel, 1)?;
                let other = self.sel(is1, one, z)?;
                let r = self.sel(ge4, chan, other)?;
                Ok(Some(self.sel(go, r, z)?))
            }
            BufferKind::StoreFormat { comps, .. } => {
                let mut vals = Vec::with_capacity(4);
                let is_uint = self.is_num(f.num, NumFormat::Uint)?;
                let is_sint = self.is_num(f.num, NumFormat::Sint)?;
                for &x in &args[7..7 + comps as usize] {
                    let w = self.word_of(x)?;
                    let w = self.and(w, if half { 0xffff } else { 0xffff_ffff })?;
                    if half {
                        // Widened first (`format::widen16`): uint by zero, sint by sign
                        // extension, the float-valued formats as f16 values.
                        let k16 = self.u64c(16)?;
                        let s = self.fx_sext(k16, w)?;
                        let s = self.and(s, 0xffff_ffff)?;
                        let f = self.small_float_to_f32(k16, w)?;
                        let r = self.sel(is_sint, s, f)?;
                        vals.push(self.sel(is_uint, w, r)?);
                    } else {
                        vals.push(w);
                    }
                }
                let z = self.u64c(0)?;
                let mut e = [z; 4];
                for c in 0..4 {
                    let x = vals.get(c).copied().unwrap_or(z);
                    let bits = self.write_channel(f.num, f.w[c], x)?;
                    let sh = self.and(f.pos[c], 31)?;
                    let wi = self.shr(f.pos[c], 5)?;
                    let v = self.fx_shl(bits, sh)?;
                    let lo = self.and(v, 0xffff_ffff)?;
                    let hi = self.shr(v, 32)?;
                    for (k, ek) in e.iter_mut().enumerate() {
                        let at = self.eq(wi, k as u64)?;
                        let add_lo = self.sel(at, lo, z)?;
                        let mut x = self.or(*ek, add_lo)?;
                        if k > 0 {
                            let below = self.eq(wi, k as u64 - 1)?;
                            let add_hi = self.sel(below, hi, z)?;
                            x = self.or(x, add_hi)?;
                        }
                        *ek = x;
                    }
                }
                self.write_element(addr, go, f.size, &e)?;
                self.barrier()?;
                Ok(None)
            }
            _ => Ok(None),
        }
    }
}
