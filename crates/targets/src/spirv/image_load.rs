//! Image loads, stores and atomics (`img.load`, `img.store`, `img.atomic.*`) in SPIR-V, as
//! the interpreter runs them (`isabridge_ir::interp::image`): from the T# operands, the level
//! (`base_level` plus the mip operand, 32-bit wrapping), its place after the levels before it,
//! the texel's address `(base + level offset + index × texel bytes) mod 2^48`, and one device
//! access per stored channel (1, 2 or 4 bytes, within one word as every texel is aligned to its
//! channel size). The format comes from the descriptor at run time: one packed word per
//! defined format number says channels, channel bytes and channel kind.
//!
//! Conversions: integer channels read zero- or sign-extended and store their low bits;
//! normalized and scaled channels read as the exact quotient rounded once to f32
//! (`scaled_to_float`: for channels of at most 16 bits the interpreter's f64 quotient rounded
//! to f32 is that value, as the quotient's binary expansion repeats with a period of at most 16
//! bits and never lies on an f32 midpoint after f64 rounding); normalized channels store
//! through `normalize`, scaled ones as the nearest-even integer clamped to the channel's range
//! (NaN 0); f16 channels convert as `soft::convert` does (nearest even, NaNs quieted). Missing
//! channels read 0 (x, y, z) or 1 (w); the result is the channel the descriptor's select names;
//! `d16` gives f16 bits of float-like formats and the low 16 bits of integer ones.
//!
//! Outside the level (or past the last level) a load reads 0, a store writes nothing and an
//! atomic changes nothing and reads 0. A tiled or undefined descriptor, a multisampled surface,
//! or an atomic on a format other than one 32-bit channel records [`IMAGE_TRAP`] for an active
//! lane (the interpreter stops with an error there) and reads 0.
//!
//! Stores change their bytes with an atomic AND and OR on each word (other lanes may write the
//! word's other bytes). Atomics: in wave-model functions lane by lane in lane order
//! (`buffer_atomic`), as the interpreter runs them; in per-lane functions one native atomic per
//! lane, so the lanes of one op that reach the same texel do so in the device's order, as they
//! do on the guest's hardware (the old values each returns and, for exchanges, the value left
//! depend on it); increment and decrement with a limit have no native atomic and are typed
//! errors there.

use super::amd_memory::Place;
use super::emit::{internal, unsupported, Em, EmitError};
use super::image::{DescIds, IMAGE_TRAP};
use isabridge_ir::ir::{ExecModel, Value};
use isabridge_ir::ops::image::{ChanKind, Format, ImageDim, ImageKind, ImageOp, LodMode};
use isabridge_ir::ops::mem::AtomicKind;
use isabridge_ir::soft::{FFmt, FloatMode, NanRule, Round, Tininess};
use isabridge_ir::types::Type;
use isabridge_ir::Op;
use rspirv::spirv::Word;

/// The interpreter's conversions of image channels (`interp::image::EXACT`).
const EXACT: FloatMode = FloatMode { round: Round::Rn, ftz_in: false, ftz_out: false, sat: false, nan: NanRule::Propagate, tininess: Tininess::AfterRounding };

/// The highest level a descriptor names (its 4-bit last-level field).
const MAX_LEVEL: u64 = 15;

/// A channel kind's code: its place in `ChanKind`, which is the number-format code
/// `amd_format` reads.
fn kind_code(k: ChanKind) -> u64 {
    match k {
        ChanKind::Unorm => 0,
        ChanKind::Snorm => 1,
        ChanKind::Uscaled => 2,
        ChanKind::Sscaled => 3,
        ChanKind::Uint => 4,
        ChanKind::Sint => 5,
        ChanKind::Float => 6,
    }
}

/// A format as one word: channels in bits 0..4, bytes a channel in bits 4..8, the kind's code
/// in bits 8..12 (0 for a number the IR does not define).
fn packed(f: Format) -> u64 {
    f.chans as u64 | ((f.bits / 8) as u64) << 4 | kind_code(f.kind) << 8
}

/// The run-time format of a descriptor, as u64 ids.
pub(super) struct FormatIds {
    /// Channels stored.
    pub(super) chans: Word,
    /// Bytes a channel.
    pub(super) cb: Word,
    /// Bits a channel.
    pub(super) bits: Word,
    /// Bytes a texel.
    pub(super) bytes: Word,
    /// The kind's code.
    pub(super) kind: Word,
    /// Channels read as integers (b1).
    pub(super) int: Word,
}

impl Em<'_> {
    /// The run-time format of format number `format` (u64).
    pub(super) fn image_format(&mut self, format: Word) -> Result<FormatIds, EmitError> {
        let mut r = self.u64c(0)?;
        for n in 0..512u32 {
            if let Some(f) = Format::from_number(n) {
                let is = self.eq(format, n as u64)?;
                r = self.sel_k(is, packed(f), r)?;
            }
        }
        let chans = self.and(r, 15)?;
        let cb = self.shr(r, 4)?;
        let cb = self.and(cb, 15)?;
        let bits = self.shl(cb, 3)?;
        let kind = self.shr(r, 8)?;
        let kind = self.and(kind, 15)?;
        let bytes = self.b.i_mul(self.t_u64, None, chans, cb).map_err(internal)?;
        let u = self.eq(kind, kind_code(ChanKind::Uint))?;
        let s = self.eq(kind, kind_code(ChanKind::Sint))?;
        let int = self.lor(u, s)?;
        Ok(FormatIds { chans, cb, bits, bytes, kind, int })
    }

    fn img_ult(&mut self, a: Word, b: Word) -> Result<Word, EmitError> {
        let tb = self.bool_ty()?;
        self.b.u_less_than(tb, None, a, b).map_err(internal)
    }

    fn img_mul(&mut self, a: Word, b: Word) -> Result<Word, EmitError> {
        self.b.i_mul(self.t_u64, None, a, b).map_err(internal)
    }

    /// `(1 << bits) - 1` for a run-time `bits` in 8..=32 (u64).
    fn img_mask(&mut self, bits: Word) -> Result<Word, EmitError> {
        let one = self.u64c(1)?;
        let p = self.b.shift_left_logical(self.t_u64, None, one, bits).map_err(internal)?;
        self.sub(p, one)
    }

    /// f32 or f16 bits `x` (u64) converted as `soft::convert` with the interpreter's mode.
    fn img_ftof(&mut self, from: FFmt, to: FFmt, x: Word) -> Result<Word, EmitError> {
        self.f_to_f_bits(from, to, &EXACT, false, x)
    }

    /// A stored channel `raw` as read (`unpack_chan`): f32 bits or the integer, in a u64.
    fn unpack_channel(&mut self, f: &FormatIds, raw: Word) -> Result<Word, EmitError> {
        let k64 = self.u64c(64)?;
        let sh = self.sub(k64, f.bits)?;
        let l = self.b.shift_left_logical(self.t_u64, None, raw, sh).map_err(internal)?;
        let sx = self.b.shift_right_arithmetic(self.t_u64, None, l, sh).map_err(internal)?;
        let sint = self.and(sx, 0xffff_ffff)?;
        let norm = self.scaled_to_float(FFmt::F32, f.kind, f.bits, raw, false)?;
        let h = self.and(raw, 0xffff)?;
        let half = self.img_ftof(FFmt::F16, FFmt::F32, h)?;
        let is16 = self.eq(f.cb, 2)?;
        let float = self.sel(is16, half, raw)?;
        let is_float = self.eq(f.kind, kind_code(ChanKind::Float))?;
        let is_sint = self.eq(f.kind, kind_code(ChanKind::Sint))?;
        let r = self.sel(is_float, float, norm)?;
        let r = self.sel(is_sint, sint, r)?;
        let is_uint = self.eq(f.kind, kind_code(ChanKind::Uint))?;
        self.sel(is_uint, raw, r)
    }

    /// Channel value `v` (u64 holding 32 bits, as [`Self::unpack_channel`] gives it) as its
    /// stored bits (`pack_chan`).
    fn pack_channel(&mut self, f: &FormatIds, v: Word) -> Result<Word, EmitError> {
        let m = self.img_mask(f.bits)?;
        let one = self.u64c(1)?;
        let bm1 = self.sub(f.bits, one)?;
        let k = self.img_mask(bm1)?;
        let is_snorm = self.eq(f.kind, kind_code(ChanKind::Snorm))?;
        let scale = self.sel(is_snorm, k, m)?;
        let norm = self.normalize(v, is_snorm, scale)?;
        // Scaled: the nearest-even integer, NaN 0, clamped to [0, m] or [-k - 1, k].
        let is_sscaled = self.eq(f.kind, kind_code(ChanKind::Sscaled))?;
        let d = self.widen(FFmt::F32, v)?;
        let dv = self.as_double(d)?;
        let r = self.round_integral(dv, Round::Rn)?;
        let t64 = self.f64_ty();
        let tb = self.bool_ty()?;
        let isn = self.b.is_nan(tb, None, r).map_err(internal)?;
        let zero = self.b.constant_bit64(t64, 0);
        let r = self.b.select(t64, None, isn, zero, r).map_err(internal)?;
        let kf = self.b.convert_u_to_f(t64, None, k).map_err(internal)?;
        let mf = self.b.convert_u_to_f(t64, None, m).map_err(internal)?;
        let neg_one = self.b.constant_bit64(t64, (-1f64).to_bits());
        let nk = self.fop(b'*', kf, neg_one)?;
        let nk1 = self.fop(b'+', nk, neg_one)?;
        let lo = self.b.select(t64, None, is_sscaled, nk1, zero).map_err(internal)?;
        let hi = self.b.select(t64, None, is_sscaled, kf, mf).map_err(internal)?;
        let under = self.b.f_ord_less_than(tb, None, r, lo).map_err(internal)?;
        let r = self.b.select(t64, None, under, lo, r).map_err(internal)?;
        let over = self.b.f_ord_greater_than(tb, None, r, hi).map_err(internal)?;
        let r = self.b.select(t64, None, over, hi, r).map_err(internal)?;
        let scaled = self.b.convert_f_to_s(self.t_u64, None, r).map_err(internal)?;
        let h = self.and(v, 0xffff_ffff)?;
        let half = self.img_ftof(FFmt::F32, FFmt::F16, h)?;
        let is16 = self.eq(f.cb, 2)?;
        let float = self.sel(is16, half, v)?;
        let is_float = self.eq(f.kind, kind_code(ChanKind::Float))?;
        let is_unorm = self.eq(f.kind, kind_code(ChanKind::Unorm))?;
        let normalized = self.lor(is_unorm, is_snorm)?;
        let r = self.sel(normalized, norm, scaled)?;
        let r = self.sel(is_float, float, r)?;
        let r = self.sel(f.int, v, r)?;
        self.b.bitwise_and(self.t_u64, None, r, m).map_err(internal)
    }

    /// The texel address (u64) and whether the texel is inside its level (b1), for the
    /// coordinates `c` (u64 words of the i32 operands) at level `lvl` (u64 below 2^32).
    fn texel_address(&mut self, d: &DescIds, f: &FormatIds, dim: ImageDim, lvl: Word, c: &[Word]) -> Result<(Word, Word), EmitError> {
        let zero = self.u64c(0)?;
        let (x, y, s) = match dim {
            ImageDim::D1 => (c[0], zero, zero),
            ImageDim::D2 => (c[0], c[1], zero),
            ImageDim::D1Array => (c[0], zero, c[1]),
            _ => (c[0], c[1], c[2]),
        };
        let s = if matches!(dim, ImageDim::D1Array | ImageDim::D2Array | ImageDim::Cube) {
            let s = self.add(s, d.base_array)?;
            self.and(s, 0xffff_ffff)?
        } else {
            s
        };
        let [lw, lh, slices] = self.image_level_shape(d, dim, lvl)?;
        let tb = self.bool_ty()?;
        let le = self.b.u_less_than_equal(tb, None, lvl, d.last_level).map_err(internal)?;
        let xin = self.img_ult(x, lw)?;
        let yin = self.img_ult(y, lh)?;
        let sin = self.img_ult(s, slices)?;
        let inside = self.land(le, xin)?;
        let inside = self.land(inside, yin)?;
        let inside = self.land(inside, sin)?;
        let offset = self.level_offset(d, f, dim, lvl)?;
        let addr = self.texel_at(d, f, offset, [lw, lh], [x, y, s])?;
        Ok((addr, inside))
    }

    /// Where level `lvl` (u64) starts, after the levels before it (at most the last level's
    /// 15), relative to the base address.
    pub(super) fn level_offset(&mut self, d: &DescIds, f: &FormatIds, dim: ImageDim, lvl: Word) -> Result<Word, EmitError> {
        let zero = self.u64c(0)?;
        let mut offset = zero;
        for k in 0..MAX_LEVEL {
            let kc = self.u64c(k)?;
            let before = self.img_ult(kc, lvl)?;
            let [w, h, n] = self.image_level_shape(d, dim, kc)?;
            let sz = self.img_mul(w, h)?;
            let sz = self.img_mul(sz, n)?;
            let sz = self.img_mul(sz, f.bytes)?;
            let add = self.sel(before, sz, zero)?;
            offset = self.add(offset, add)?;
        }
        Ok(offset)
    }

    /// The address of texel (x, y, slice) (u64 words) of a level starting `offset` bytes after
    /// the base with rows of `lw` texels and `lh` rows a slice: mod 2^48.
    pub(super) fn texel_at(&mut self, d: &DescIds, f: &FormatIds, offset: Word, [lw, lh]: [Word; 2], [x, y, s]: [Word; 3]) -> Result<Word, EmitError> {
        let idx = self.img_mul(s, lh)?;
        let idx = self.add(idx, y)?;
        let idx = self.img_mul(idx, lw)?;
        let idx = self.add(idx, x)?;
        let at = self.img_mul(idx, f.bytes)?;
        let addr = self.add(d.base, offset)?;
        let addr = self.add(addr, at)?;
        self.and(addr, (1 << 48) - 1)
    }

    /// The four channels of the texel at `addr` as read (`interp::image::texel`: f32 bits or
    /// integers in u64s, missing channels 0 or one), loaded only where `go` holds (else the
    /// missing-channel values).
    pub(super) fn texel_channels(&mut self, f: &FormatIds, addr: Word, go: Word) -> Result<[Word; 4], EmitError> {
        let zero = self.u64c(0)?;
        let one = self.format_one(f)?;
        let mut t = [zero, zero, zero, one];
        for (c, tc) in t.iter_mut().enumerate() {
            let kc = self.u64c(c as u64)?;
            let stored = self.img_ult(kc, f.chans)?;
            let now = self.land(go, stored)?;
            let (a4, sh, m) = self.channel_place(f, addr, c as u64)?;
            let w = self.guarded(now, Some((self.t_u64, zero)), |em| {
                let w = em.load_word(Place::Device, a4)?;
                em.b.u_convert(em.t_u64, None, w).map(Some).map_err(internal)
            })?;
            let w = w.ok_or_else(|| internal("a guarded load without a value"))?;
            let raw = self.b.shift_right_logical(self.t_u64, None, w, sh).map_err(internal)?;
            let raw = self.b.bitwise_and(self.t_u64, None, raw, m).map_err(internal)?;
            let val = self.unpack_channel(f, raw)?;
            *tc = self.sel(stored, val, *tc)?;
        }
        Ok(t)
    }

    /// The value of a missing channel or of select 1: 1 for integer formats, else 1.0 (u64).
    pub(super) fn format_one(&mut self, f: &FormatIds) -> Result<Word, EmitError> {
        let fone = self.u64c(1f32.to_bits() as u64)?;
        self.sel_k(f.int, 1, fone)
    }

    /// The channel the descriptor's select `sel` (u64) names of texel `t`: 1 → one, 4..7 →
    /// x..w, else 0.
    pub(super) fn select_channel(&mut self, f: &FormatIds, sel: Word, t: &[Word; 4]) -> Result<Word, EmitError> {
        let zero = self.u64c(0)?;
        let one = self.format_one(f)?;
        let mut r = zero;
        for (s, &x) in t.iter().enumerate() {
            let is = self.eq(sel, 4 + s as u64)?;
            r = self.sel(is, x, r)?;
        }
        let is1 = self.eq(sel, 1)?;
        self.sel(is1, one, r)
    }

    /// A result channel `r` as `d16` gives it: f16 bits of float-like formats, the low 16 bits
    /// of integer ones.
    pub(super) fn channel_d16(&mut self, f: &FormatIds, r: Word) -> Result<Word, EmitError> {
        let low = self.and(r, 0xffff)?;
        let h = self.img_ftof(FFmt::F32, FFmt::F16, r)?;
        self.sel(f.int, low, h)
    }

    /// The word address (u64), bit shift (u64) and field mask (u64) of channel `c` of the
    /// texel at `addr`.
    fn channel_place(&mut self, f: &FormatIds, addr: Word, c: u64) -> Result<(Word, Word, Word), EmitError> {
        let kc = self.u64c(c)?;
        let off = self.img_mul(kc, f.cb)?;
        let ca = self.add(addr, off)?;
        let a4 = self.and(ca, !3)?;
        let byte = self.and(ca, 3)?;
        let sh = self.shl(byte, 3)?;
        let m = self.img_mask(f.bits)?;
        Ok((a4, sh, m))
    }

    /// The operand ids of image op `op` (`args`), whether this lane takes part, and the T#'s
    /// and its format's fields: what every texel-reading op starts with.
    pub(super) fn image_operands(&mut self, op: &ImageOp, args: &[Value]) -> Result<(Vec<Word>, Word, DescIds, FormatIds), EmitError> {
        let mut a = Vec::with_capacity(args.len());
        for &x in args {
            a.push(self.word_of(x)?);
        }
        let on = self.image_lane_on(op, &a)?;
        let d = self.image_desc(&a[..4])?;
        let f = self.image_format(d.format)?;
        Ok((a, on, d, f))
    }

    /// A load, store or atomic (value `v`, result type `ty`); sampling ops are typed errors.
    pub(super) fn image_texel(&mut self, v: Value, op: ImageOp, args: &[Value], ty: Option<Type>) -> Result<(), EmitError> {
        let text = Op::Image(op).mnemonic();
        if op.samples() {
            return self.image_sample(v, op, args, ty);
        }
        let wave = self.f.model == ExecModel::Wave;
        if let ImageKind::Atomic(k) = op.kind {
            match k {
                AtomicKind::FAdd | AtomicKind::FAddFtz | AtomicKind::FMin | AtomicKind::FMax | AtomicKind::FAddPair16 { .. } => {
                    return Err(unsupported(self.cur_ir, v.0, text, "float image atomics"));
                }
                AtomicKind::Inc | AtomicKind::Dec if !wave => {
                    return Err(unsupported(self.cur_ir, v.0, text, "image increment and decrement atomics in per-lane functions"));
                }
                _ => {}
            }
        }
        if op.lod != LodMode::Lod || op.kind == ImageKind::ResInfo {
            return Err(internal("an image op without a texel reached the texel path"));
        }
        let (a, on, d, f) = self.image_operands(&op, args)?;
        let mut bad = d.bad;
        // Multisampled surfaces, and a cube direction, which names no texel: the interpreter
        // stops there.
        if matches!(op.dim, ImageDim::D2Msaa | ImageDim::D2MsaaArray | ImageDim::CubeDir) {
            bad = self.bconst(true)?;
        }
        if matches!(op.kind, ImageKind::Atomic(_)) {
            let one = self.eq(f.chans, 1)?;
            let w32 = self.eq(f.cb, 4)?;
            let fits = self.land(one, w32)?;
            let other = self.lnot(fits)?;
            bad = self.lor(bad, other)?;
        }
        let bad = self.land(on, bad)?;
        self.trap_when(bad, IMAGE_TRAP)?;
        let ok = self.lnot(bad)?;
        let live = self.land(on, ok)?;
        // Operands: the packed offset and compare reference (not read by these ops), the
        // coordinates, the mip level, the LOD clamp, then the data.
        let first = 4 + op.offset as usize + op.compare as usize;
        let coords: Vec<Word> = (0..op.dim.coords()).map(|i| a[first + i]).collect();
        let mut lvl = d.base_level;
        if op.mip {
            let m = a[first + op.dim.coords()];
            lvl = self.add(lvl, m)?;
            lvl = self.and(lvl, 0xffff_ffff)?;
        }
        let data = 4 + op.addr_count();
        let (addr, inside) = self.texel_address(&d, &f, op.dim, lvl, &coords)?;
        let go = self.land(live, inside)?;
        let zero = self.u64c(0)?;
        let result = match op.kind {
            ImageKind::Load => {
                let t = self.texel_channels(&f, addr, go)?;
                let r = self.select_channel(&f, d.dst_sel[op.chan as usize & 3], &t)?;
                let r = if op.d16 { self.channel_d16(&f, r)? } else { r };
                Some(self.sel(go, r, zero)?)
            }
            ImageKind::Store => {
                for c in 0..4u64 {
                    if op.comp >> c & 1 == 0 {
                        continue;
                    }
                    let mut x = self.and(a[data + c as usize], 0xffff_ffff)?;
                    if op.d16 {
                        let low = self.and(x, 0xffff)?;
                        let wide = self.img_ftof(FFmt::F16, FFmt::F32, low)?;
                        x = self.sel(f.int, low, wide)?;
                    }
                    let bits = self.pack_channel(&f, x)?;
                    let kc = self.u64c(c)?;
                    let stored = self.img_ult(kc, f.chans)?;
                    let now = self.land(go, stored)?;
                    let (a4, sh, m) = self.channel_place(&f, addr, c)?;
                    self.guarded(now, None, |em| {
                        let p = em.word_ptr(Place::Device, a4)?;
                        let fm = em.b.shift_left_logical(em.t_u64, None, m, sh).map_err(internal)?;
                        let keep = em.b.not(em.t_u64, None, fm).map_err(internal)?;
                        let keep = em.b.u_convert(em.t_u32, None, keep).map_err(internal)?;
                        let set = em.b.shift_left_logical(em.t_u64, None, bits, sh).map_err(internal)?;
                        let set = em.b.u_convert(em.t_u32, None, set).map_err(internal)?;
                        let (scope, sem) = (em.wc32(1)?, em.wc32(0)?);
                        em.b.atomic_and(em.t_u32, None, p, scope, sem, keep).map_err(internal)?;
                        em.b.atomic_or(em.t_u32, None, p, scope, sem, set).map_err(internal)?;
                        Ok(None)
                    })?;
                }
                if wave {
                    self.barrier()?;
                }
                None
            }
            ImageKind::Atomic(k) => {
                // The value, and for compare-and-swap the compare value (`atomic_apply`'s `v`)
                // after the new one (its `swap`).
                let (x, swap) = if k == AtomicKind::CmpExch { (a[data + 1], a[data]) } else { (a[data], zero) };
                let x = self.and(x, 0xffff_ffff)?;
                let swap = self.and(swap, 0xffff_ffff)?;
                let old = if wave {
                    self.buffer_atomic(Place::Device, k, 4, addr, go, x, swap)?
                } else {
                    let old = self.guarded(go, Some((self.t_u64, zero)), |em| em.native_image_atomic(k, addr, x, swap).map(Some))?;
                    old.ok_or_else(|| internal("a guarded atomic without a value"))?
                };
                Some(self.sel(go, old, zero)?)
            }
            _ => return Err(internal("a sampling image op reached the texel path")),
        };
        match (result, ty) {
            (Some(r), Some(t)) => {
                let w = self.value_of_word(r, t)?;
                self.define(v, w)
            }
            _ => Ok(()),
        }
    }

    /// One native atomic of kind `k` on the u32 at `addr` (u64) with value `x` (and `swap`
    /// for compare-and-swap); the old value as a u64.
    fn native_image_atomic(&mut self, k: AtomicKind, addr: Word, x: Word, swap: Word) -> Result<Word, EmitError> {
        let p = self.word_ptr(Place::Device, addr)?;
        let t = self.t_u32;
        let x = self.b.u_convert(t, None, x).map_err(internal)?;
        let (scope, sem) = (self.wc32(1)?, self.wc32(0)?);
        let b = &mut self.b;
        let old = match k {
            AtomicKind::Add => b.atomic_i_add(t, None, p, scope, sem, x),
            AtomicKind::Sub => b.atomic_i_sub(t, None, p, scope, sem, x),
            AtomicKind::And => b.atomic_and(t, None, p, scope, sem, x),
            AtomicKind::Or => b.atomic_or(t, None, p, scope, sem, x),
            AtomicKind::Xor => b.atomic_xor(t, None, p, scope, sem, x),
            AtomicKind::Exch => b.atomic_exchange(t, None, p, scope, sem, x),
            AtomicKind::Min(true) => b.atomic_s_min(t, None, p, scope, sem, x),
            AtomicKind::Min(false) => b.atomic_u_min(t, None, p, scope, sem, x),
            AtomicKind::Max(true) => b.atomic_s_max(t, None, p, scope, sem, x),
            AtomicKind::Max(false) => b.atomic_u_max(t, None, p, scope, sem, x),
            AtomicKind::CmpExch => {
                let s = b.u_convert(t, None, swap).map_err(internal)?;
                b.atomic_compare_exchange(t, None, p, scope, sem, sem, s, x)
            }
            _ => return Err(internal("an image atomic without a native form reached it")),
        }
        .map_err(internal)?;
        self.b.u_convert(self.t_u64, None, old).map_err(internal)
    }
}
