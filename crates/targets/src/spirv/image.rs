//! Image ops (`img.*`, `isabridge_ir::ops::image`) in SPIR-V, as the IR's image model defines
//! them: the T# is read per lane from its operand values, never through a Vulkan image or
//! sampler. Here: the descriptor's fields and `img.resinfo` (the level's width, height, depth
//! or slices, and the level count); loads, stores and atomics are in [`super::image_load`],
//! sampling and gather in [`super::image_sample`]. A
//! lane outside the op's mask reads 0; a tiled surface (swizzle mode other than linear) or a
//! format number the IR does not define records the trap [`IMAGE_TRAP`] for an active lane
//! (the interpreter stops with an error there) and reads 0.

use super::emit::{internal, unsupported, Em, EmitError};
use isabridge_ir::ops::image::{Format, ImageDim, ImageKind, ImageOp};
use isabridge_ir::Op;
use isabridge_ir::Value;
use rspirv::spirv::Word;

/// The trap code recorded when an image descriptor is tiled or names a format the IR does not
/// define.
pub const IMAGE_TRAP: u16 = 0xfffc;

/// Bit `n` set for every format number (0..512) the IR defines, 64 numbers a word.
fn defined_formats() -> [u64; 8] {
    let mut m = [0u64; 8];
    for n in 0..512u32 {
        if Format::from_number(n).is_some() {
            m[n as usize / 64] |= 1 << (n % 64);
        }
    }
    m
}

/// The T# fields of one lane, as u64 ids (`ImageDesc`), and whether the IR defines the
/// descriptor (b1 `bad`: a tiled surface or a format number it does not define).
pub(super) struct DescIds {
    /// Byte address of level 0.
    pub(super) base: Word,
    /// Format number.
    pub(super) format: Word,
    /// Width, height and depth (or last array slice + 1) of level 0.
    pub(super) size: [Word; 3],
    /// Channel selects x, y, z, w.
    pub(super) dst_sel: [Word; 4],
    /// First level.
    pub(super) base_level: Word,
    /// Last level.
    pub(super) last_level: Word,
    /// First array slice.
    pub(super) base_array: Word,
    /// The descriptor is tiled or names an undefined format.
    pub(super) bad: Word,
}

impl Em<'_> {
    /// Whether this lane takes part in image op `op` with operand ids `a` (its mask bit, or
    /// true without a mask).
    pub(super) fn image_lane_on(&mut self, op: &ImageOp, a: &[Word]) -> Result<Word, EmitError> {
        match a.get(op.arity()) {
            Some(&mask) => {
                let lane = self.lane()?;
                self.mask_bit(mask, lane)
            }
            None => self.bconst(true),
        }
    }

    /// The T# fields from the four u64 descriptor operands `t`.
    pub(super) fn image_desc(&mut self, t: &[Word]) -> Result<DescIds, EmitError> {
        // T# words (u64, each below 2^32).
        let mut tw = Vec::with_capacity(8);
        for &x in &t[..4] {
            tw.push(self.and(x, 0xffff_ffff)?);
            tw.push(self.shr(x, 32)?);
        }
        let field = |em: &mut Self, w: usize, shift: u64, mask: u64| -> Result<Word, EmitError> {
            let s = em.shr(tw[w], shift)?;
            em.and(s, mask)
        };
        let lo = self.shl(tw[0], 8)?;
        let hi = field(self, 1, 0, 0xff)?;
        let hi = self.shl(hi, 40)?;
        let base = self.or(lo, hi)?;
        let format = field(self, 1, 20, 0x1ff)?;
        let w_lo = field(self, 1, 30, 3)?;
        let w_hi = field(self, 2, 0, 0xfff)?;
        let w_hi = self.shl(w_hi, 2)?;
        let width = self.or(w_lo, w_hi)?;
        let height = field(self, 2, 14, 0x3fff)?;
        let depth = field(self, 4, 0, 0x1fff)?;
        let one = self.u64c(1)?;
        let size = [self.add(width, one)?, self.add(height, one)?, self.add(depth, one)?];
        let mut dst_sel = [0; 4];
        for (c, d) in dst_sel.iter_mut().enumerate() {
            *d = field(self, 3, 3 * c as u64, 7)?;
        }
        let base_level = field(self, 3, 12, 0xf)?;
        let last_level = field(self, 3, 16, 0xf)?;
        let sw_mode = field(self, 3, 20, 0x1f)?;
        let base_array = field(self, 4, 16, 0x1fff)?;
        // A tiled surface, a format the IR does not define.
        let defined = defined_formats();
        let group = self.shr(format, 6)?;
        let mut word = self.u64c(defined[7])?;
        for (k, &m) in defined.iter().enumerate().take(7).rev() {
            let is = self.eq(group, k as u64)?;
            word = self.sel_k(is, m, word)?;
        }
        let bit = self.and(format, 63)?;
        let bits = self.b.shift_right_logical(self.t_u64, None, word, bit).map_err(internal)?;
        let bits = self.and(bits, 1)?;
        let undefined = self.eq(bits, 0)?;
        let tiled = self.eq(sw_mode, 0)?;
        let tiled = self.lnot(tiled)?;
        let bad = self.lor(undefined, tiled)?;
        Ok(DescIds { base, format, size, dst_sel, base_level, last_level, base_array, bad })
    }

    /// Width, height and slices of level `l` (u64; any value, read as at most 63) of a `dim`
    /// surface (`interp::image::level`): every size is below 2^14, so larger shifts give 1
    /// alike.
    pub(super) fn image_level_shape(&mut self, d: &DescIds, dim: ImageDim, l: Word) -> Result<[Word; 3], EmitError> {
        let tb = self.bool_ty()?;
        let one = self.u64c(1)?;
        let k63 = self.u64c(63)?;
        let big = self.b.u_greater_than(tb, None, l, k63).map_err(internal)?;
        let l = self.sel(big, k63, l)?;
        let shrunk = |em: &mut Self, x: Word| -> Result<Word, EmitError> {
            let s = em.b.shift_right_logical(em.t_u64, None, x, l).map_err(internal)?;
            let z = em.eq(s, 0)?;
            em.sel(z, one, s)
        };
        let one_d = matches!(dim, ImageDim::D1 | ImageDim::D1Array);
        let lw = shrunk(self, d.size[0])?;
        let lh = if one_d { one } else { shrunk(self, d.size[1])? };
        let slices = match dim {
            ImageDim::D3 => shrunk(self, d.size[2])?,
            ImageDim::D1 | ImageDim::D2 | ImageDim::D2Msaa => one,
            _ => d.size[2],
        };
        Ok([lw, lh, slices])
    }

    /// `img.*` (value `v`) with operand ids `a`; the result as a u32.
    pub(super) fn image_op(&mut self, v: Value, op: ImageOp, a: &[Word]) -> Result<Word, EmitError> {
        if op.kind != ImageKind::ResInfo {
            return Err(unsupported(self.cur_ir, v.0, Op::Image(op).mnemonic(), "image ops other than resinfo"));
        }
        let on = self.image_lane_on(&op, a)?;
        let d = self.image_desc(&a[..4])?;
        let bad = self.land(on, d.bad)?;
        self.trap_when(bad, IMAGE_TRAP)?;
        // Levels: last - base (saturating) + 1; a mip level past them reads 0.
        let tb = self.bool_ty()?;
        let one = self.u64c(1)?;
        let below = self.b.u_less_than(tb, None, d.last_level, d.base_level).map_err(internal)?;
        let span = self.sub(d.last_level, d.base_level)?;
        let span = self.sel_k(below, 0, span)?;
        let levels = self.add(span, one)?;
        let mip = self.b.u_convert(self.t_u64, None, a[4]).map_err(internal)?;
        let past = self.b.u_greater_than_equal(tb, None, mip, levels).map_err(internal)?;
        // The level's shape; the level number stays below 2^32 + 16.
        let l = self.add(d.base_level, mip)?;
        let [lw, lh, slices] = self.image_level_shape(&d, op.dim, l)?;
        let zero = self.u64c(0)?;
        let r = match (op.chan, op.dim) {
            (0, _) => lw,
            (1, ImageDim::D1) => zero,
            (1, ImageDim::D1Array) => slices,
            (1, _) => lh,
            (2, ImageDim::D3 | ImageDim::D2Array | ImageDim::D2MsaaArray) => slices,
            (2, ImageDim::Cube | ImageDim::CubeDir) => {
                let six = self.u64c(6)?;
                self.b.u_div(self.t_u64, None, slices, six).map_err(internal)?
            }
            (2, _) => zero,
            _ => levels,
        };
        let r = self.sel_k(past, 0, r)?;
        let r = if op.d16 { self.and(r, 0xffff)? } else { r };
        let ok = self.lnot(bad)?;
        let live = self.land(on, ok)?;
        let r = self.sel(live, r, zero)?;
        self.b.u_convert(self.t_u32, None, r).map_err(internal)
    }
}
