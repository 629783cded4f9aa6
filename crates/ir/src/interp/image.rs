//! The interpreter's image and ray-node ops: descriptors are read per lane from the operands,
//! memory through the workgroup's global buffers.

use super::{CInst, InterpError, Machine};
use crate::ops::mem::Space;
use crate::ops::ray::{intersect, Ray, RayDesc, RayError, RayOp};

impl Machine<'_> {
    /// `ray.node`: intersect each lane's ray with the node its pointer names.
    pub(super) fn ray_op(&mut self, w: usize, group: u64, full: u64, ci: &CInst, op: RayOp) -> Result<(), InterpError> {
        let th = self.threads();
        let base = w * self.ws;
        for l in 0..self.ws {
            if full >> l & 1 == 0 {
                continue;
            }
            let t = base + l;
            if group >> l & 1 == 0 {
                self.regs[ci.v * th + t] = 0;
                continue;
            }
            let a = |k: usize| self.regs[ci.args[k] * th + t];
            let f = |k: usize| f32::from_bits(a(k) as u32);
            let (d0, d1) = (a(0), a(1));
            let desc = RayDesc::from_words([d0 as u32, (d0 >> 32) as u32, d1 as u32, (d1 >> 32) as u32]);
            let ray = Ray {
                extent: f(3),
                origin: [f(4), f(5), f(6)],
                dir: [f(7), f(8), f(9)],
                inv: [f(10), f(11), f(12)],
            };
            let pointer = a(2);
            let mut read = |addr: u64| self.buffer(Space::Global, t, addr, 4).ok().map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
            let r = intersect(desc, pointer, &ray, &mut read).map_err(|e| match e {
                RayError::Memory(addr) => InterpError::OutOfBounds { space: Space::Global, addr, size: 4 },
                RayError::NodeType(_) => InterpError::Unsupported("ray.node on a node type the IR does not define (2, 3, 6)"),
            })?;
            self.regs[ci.v * th + t] = r[op.dword as usize & 3] as u64;
        }
        Ok(())
    }
}

use crate::ops::image::{ChanKind, Format, ImageDesc, ImageDim, ImageKind, ImageOp, LodMode, SamplerDesc};
use crate::ops::mem::atomic_apply;
use crate::ops::sample;
use crate::soft::{convert, FFmt, FloatMode, NanRule, Overflow, Round, Tininess};

const EXACT: FloatMode = FloatMode { round: Round::Rn, ftz_in: false, ftz_out: false, sat: false, nan: NanRule::Propagate, tininess: Tininess::AfterRounding };

fn err(why: &'static str) -> InterpError {
    InterpError::Unsupported(why)
}

fn fl(x: u64) -> f32 {
    f32::from_bits(x as u32)
}

/// The address operands of one lane, decoded.
#[derive(Default, Clone, Copy)]
struct Addr {
    offset: [i32; 3],
    bias: f32,
    reference: f32,
    grads: [[f32; 3]; 2],
    coords: [u64; 4],
    lod: f32,
    mip: u32,
    clamp: Option<f32>,
}

/// A level's shape and where it starts.
#[derive(Clone, Copy)]
struct Level {
    w: u32,
    h: u32,
    slices: u32,
    offset: u64,
}

fn level(d: &ImageDesc, dim: ImageDim, fmt: &Format, l: u32) -> Level {
    let one_d = matches!(dim, ImageDim::D1 | ImageDim::D1Array);
    let shape = |l: u32| {
        let w = (d.width >> l).max(1);
        let h = if one_d { 1 } else { (d.height >> l).max(1) };
        let slices = match dim {
            ImageDim::D3 => (d.depth >> l).max(1),
            ImageDim::D1 | ImageDim::D2 | ImageDim::D2Msaa => 1,
            _ => d.depth,
        };
        (w, h, slices)
    };
    let mut offset = 0u64;
    for k in 0..l {
        let (w, h, s) = shape(k);
        offset += w as u64 * h as u64 * s as u64 * fmt.bytes() as u64;
    }
    let (w, h, slices) = shape(l);
    Level { w, h, slices, offset }
}

/// One stored channel as read: f32 bits for float-like kinds, the integer otherwise.
fn unpack_chan(fmt: &Format, raw: u64) -> u32 {
    let bits = fmt.bits;
    let sx = |x: u64| ((x << (64 - bits)) as i64 >> (64 - bits)) as i32;
    match fmt.kind {
        ChanKind::Uint => raw as u32,
        ChanKind::Sint => sx(raw) as u32,
        ChanKind::Unorm => ((raw as f64 / ((1u64 << bits) - 1) as f64) as f32).to_bits(),
        ChanKind::Snorm => ((sx(raw) as f64 / ((1u64 << (bits - 1)) - 1) as f64).max(-1.0) as f32).to_bits(),
        ChanKind::Uscaled => (raw as f32).to_bits(),
        ChanKind::Sscaled => (sx(raw) as f32).to_bits(),
        ChanKind::Float if bits == 16 => convert(FFmt::F16, FFmt::F32, &EXACT, Overflow::Ieee, raw) as u32,
        ChanKind::Float => raw as u32,
    }
}

/// One channel value (as [`unpack_chan`] gives it) in its stored bits: normalized and scaled
/// values round to nearest even and saturate, NaN stores 0.
fn pack_chan(fmt: &Format, v: u32) -> u64 {
    let bits = fmt.bits;
    let m = if bits == 32 { u32::MAX as u64 } else { (1u64 << bits) - 1 };
    let x = f32::from_bits(v) as f64;
    let nan0 = |x: f64| if x.is_nan() { 0.0 } else { x };
    let r = match fmt.kind {
        ChanKind::Uint | ChanKind::Sint => v as u64,
        ChanKind::Unorm => (nan0(x).clamp(0.0, 1.0) * m as f64).round_ties_even() as u64,
        ChanKind::Snorm => {
            let k = ((1u64 << (bits - 1)) - 1) as f64;
            (nan0(x).clamp(-1.0, 1.0) * k).round_ties_even() as i64 as u64
        }
        ChanKind::Uscaled => nan0(x).round_ties_even().clamp(0.0, m as f64) as u64,
        ChanKind::Sscaled => {
            let k = ((1u64 << (bits - 1)) - 1) as f64;
            nan0(x).round_ties_even().clamp(-k - 1.0, k) as i64 as u64
        }
        ChanKind::Float if bits == 16 => convert(FFmt::F32, FFmt::F16, &EXACT, Overflow::Ieee, v as u64),
        ChanKind::Float => v as u64,
    };
    r & m
}

/// The value of a missing channel or of select 1: 1 (integer formats) or 1.0.
fn one(fmt: &Format) -> u32 {
    if fmt.is_int() {
        1
    } else {
        1f32.to_bits()
    }
}

fn select(fmt: &Format, sel: u8, t: &[u32; 4]) -> u32 {
    match sel {
        1 => one(fmt),
        4..=7 => t[sel as usize - 4],
        _ => 0,
    }
}

/// Map texel index `i` of an axis of `n` texels by address mode `mode`; None reads the border.
fn wrap(mode: u8, i: i64, n: u32) -> Option<u32> {
    let n = n as i64;
    let j = match mode {
        0 => i.rem_euclid(n),
        1 => {
            let m = i.rem_euclid(2 * n);
            if m >= n {
                2 * n - 1 - m
            } else {
                m
            }
        }
        2 => i.clamp(0, n - 1),
        3 => (if i < 0 { -1 - i } else { i }).clamp(0, n - 1),
        4 | 6 => {
            if i < 0 || i >= n {
                return None;
            }
            i
        }
        _ => {
            let j = if i < 0 { -1 - i } else { i };
            if j >= n {
                return None;
            }
            j
        }
    };
    Some(j as u32)
}

impl Machine<'_> {
    /// Read the texel at (x, y, slice) of a level: four channels, missing ones 0 (x, y, z) or 1 (w).
    fn texel(&mut self, t: usize, d: &ImageDesc, fmt: &Format, lv: &Level, at: [u32; 3]) -> Result<[u32; 4], InterpError> {
        let [x, y, s] = at;
        let idx = (s as u64 * lv.h as u64 + y as u64) * lv.w as u64 + x as u64;
        let addr = d.base.wrapping_add(lv.offset).wrapping_add(idx * fmt.bytes() as u64) & ((1 << 48) - 1);
        let cb = fmt.bits / 8;
        let mut out = [0, 0, 0, one(fmt)];
        for (c, o) in out.iter_mut().enumerate().take(fmt.chans as usize) {
            let b = self.buffer(Space::Global, t, addr + (c as u32 * cb) as u64, cb)?;
            let raw = b.iter().rev().fold(0u64, |v, x| v << 8 | *x as u64);
            *o = unpack_chan(fmt, raw);
        }
        Ok(out)
    }

    /// Write the channels given (None keeps a channel's bits).
    fn write_texel(&mut self, t: usize, d: &ImageDesc, fmt: &Format, lv: &Level, at: [u32; 3], data: [Option<u32>; 4]) -> Result<(), InterpError> {
        let [x, y, s] = at;
        let idx = (s as u64 * lv.h as u64 + y as u64) * lv.w as u64 + x as u64;
        let addr = d.base.wrapping_add(lv.offset).wrapping_add(idx * fmt.bytes() as u64) & ((1 << 48) - 1);
        let cb = fmt.bits / 8;
        for (c, v) in data.iter().enumerate().take(fmt.chans as usize) {
            let Some(v) = v else { continue };
            let raw = pack_chan(fmt, *v);
            let b = self.buffer(Space::Global, t, addr + (c as u32 * cb) as u64, cb)?;
            for (k, x) in b.iter_mut().enumerate() {
                *x = (raw >> (8 * k)) as u8;
            }
        }
        Ok(())
    }

    /// `img.*`: one image access per lane under the op's mask.
    pub(super) fn image_op(&mut self, w: usize, group: u64, full: u64, ci: &CInst, op: ImageOp) -> Result<(), InterpError> {
        let th = self.threads();
        let base = w * self.ws;
        let nsamp = if op.samples() { 2 } else { 0 };
        let a0 = 4 + nsamp;
        for l in 0..self.ws {
            if full >> l & 1 == 0 {
                continue;
            }
            let t = base + l;
            if group >> l & 1 == 0 {
                if !op.is_store() {
                    self.regs[ci.v * th + t] = 0;
                }
                continue;
            }
            let rd = |m: &Machine, k: usize, lane: usize| m.regs[ci.args[k] * th + base + lane];
            let mut tw = [0u32; 8];
            for k in 0..4 {
                let v = rd(self, k, l);
                tw[2 * k] = v as u32;
                tw[2 * k + 1] = (v >> 32) as u32;
            }
            let desc = ImageDesc::from_words(tw);
            if desc.sw_mode != 0 {
                return Err(err("tiled image surface (swizzle mode other than linear)"));
            }
            let fmt = Format::from_number(desc.format).ok_or(err("image format the IR does not define"))?;
            let samp = if op.samples() {
                let (s0, s1) = (rd(self, 4, l), rd(self, 5, l));
                Some(SamplerDesc::from_words([s0 as u32, (s0 >> 32) as u32, s1 as u32, (s1 >> 32) as u32]))
            } else {
                None
            };
            // Address operands.
            let vals: Vec<u64> = (a0..a0 + op.addr_count()).map(|j| rd(self, j, l)).collect();
            let mut p = 0usize;
            let mut take = || {
                p += 1;
                vals.get(p - 1).copied().unwrap_or(0)
            };
            let mut ad = Addr::default();
            let g = op.dim.grads();
            if op.kind == ImageKind::ResInfo {
                ad.mip = take() as u32;
            } else {
                if op.offset {
                    let o = take() as u32;
                    ad.offset = [0, 8, 16].map(|s| ((o >> s & 0x3f) as i32) << 26 >> 26);
                }
                if op.lod == LodMode::Bias {
                    ad.bias = fl(take());
                }
                if op.compare {
                    ad.reference = fl(take());
                }
                if op.lod == LodMode::Grad {
                    for dir in 0..2 {
                        for c in 0..g {
                            ad.grads[dir][c] = fl(take());
                        }
                    }
                }
                for c in 0..op.dim.coords() {
                    ad.coords[c] = take();
                }
                if op.lod == LodMode::Lod && op.samples() {
                    ad.lod = fl(take());
                }
                if op.mip {
                    ad.mip = take() as u32;
                }
                if op.clamp {
                    ad.clamp = Some(fl(take()));
                }
            }
            if op.reads_quad() {
                // Coordinates sit after offset, bias and compare operands.
                let cbase = a0 + op.offset as usize + (op.lod == LodMode::Bias) as usize + op.compare as usize;
                let q = l & !3;
                for c in 0..g {
                    // Differences in f32 with the blend arithmetic (`ops::sample::BLEND`).
                    let v = |lane: usize| rd(self, cbase + c, lane) & 0xffff_ffff;
                    let diff = |l: usize| fl(crate::soft::sub(FFmt::F32, &sample::BLEND, v(l), v(q)));
                    ad.grads[0][c] = diff(q + 1);
                    ad.grads[1][c] = diff(q + 2);
                }
            }
            let k = a0 + op.addr_count();
            let data: Vec<u32> = (k..k + op.data_count()).map(|j| rd(self, j, l) as u32).collect();
            let r = match op.kind {
                ImageKind::Load | ImageKind::Store | ImageKind::Atomic(_) => self.image_texel_op(t, &desc, &fmt, &op, &ad, &data)?,
                ImageKind::ResInfo => resinfo(&desc, &fmt, &op, ad.mip),
                ImageKind::Sample | ImageKind::Gather | ImageKind::GetLod => {
                    let samp = samp.ok_or(err("sampling without a sampler"))?;
                    self.sample(t, &desc, &fmt, &samp, &op, &ad)?
                }
            };
            if !op.is_store() {
                self.regs[ci.v * th + t] = r as u64 & ci.ty.mask();
            }
        }
        Ok(())
    }

    fn image_texel_op(&mut self, t: usize, d: &ImageDesc, fmt: &Format, op: &ImageOp, ad: &Addr, data: &[u32]) -> Result<u32, InterpError> {
        if matches!(op.dim, ImageDim::D2Msaa | ImageDim::D2MsaaArray) {
            return Err(err("multisampled image surface"));
        }
        if op.dim == ImageDim::CubeDir {
            return Err(err("a cube direction (cubedir) addresses no texel: load, store or atomic"));
        }
        let lvl = d.base_level + if op.mip { ad.mip } else { 0 };
        let c = ad.coords.map(|x| x as u32);
        let (x, y, s) = match op.dim {
            ImageDim::D1 => (c[0], 0, 0),
            ImageDim::D2 => (c[0], c[1], 0),
            ImageDim::D1Array => (c[0], 0, c[1]),
            _ => (c[0], c[1], c[2]),
        };
        let arrayed = matches!(op.dim, ImageDim::D1Array | ImageDim::D2Array | ImageDim::Cube);
        let s = if arrayed { s.wrapping_add(d.base_array) } else { s };
        let lv = level(d, op.dim, fmt, lvl);
        let inside = lvl <= d.last_level && x < lv.w && y < lv.h && s < lv.slices;
        match op.kind {
            ImageKind::Load => {
                if !inside {
                    return Ok(0);
                }
                let tx = self.texel(t, d, fmt, &lv, [x, y, s])?;
                let v = select(fmt, d.dst_sel[op.chan as usize & 3], &tx);
                Ok(if op.d16 { to16(fmt, v) } else { v })
            }
            ImageKind::Store => {
                if inside {
                    let mut v = [0u32; 4];
                    v.copy_from_slice(&data[..4]);
                    if op.d16 {
                        v = v.map(|x| from16(fmt, x));
                    }
                    let w = [0, 1, 2, 3].map(|c| (op.comp >> c & 1 != 0).then_some(v[c]));
                    self.write_texel(t, d, fmt, &lv, [x, y, s], w)?;
                }
                Ok(0)
            }
            ImageKind::Atomic(kind) => {
                if fmt.chans != 1 || fmt.bits != 32 {
                    return Err(err("image atomic on a format other than one 32-bit channel"));
                }
                if !inside {
                    return Ok(0);
                }
                let old = self.texel(t, d, fmt, &lv, [x, y, s])?[0];
                let new = match kind {
                    crate::ops::mem::AtomicKind::CmpExch => atomic_apply(kind, 32, old as u64, data[1] as u64, data[0] as u64),
                    _ => atomic_apply(kind, 32, old as u64, data[0] as u64, 0),
                };
                self.write_texel(t, d, fmt, &lv, [x, y, s], [Some(new as u32), None, None, None])?;
                Ok(old)
            }
            _ => Ok(0),
        }
    }

    /// Filtered sampling, gather and get-LOD as `ops::sample` defines them.
    fn sample(&mut self, t: usize, d: &ImageDesc, fmt: &Format, sp: &SamplerDesc, op: &ImageOp, ad: &Addr) -> Result<u32, InterpError> {
        if matches!(op.dim, ImageDim::D2Msaa | ImageDim::D2MsaaArray) {
            return Err(err("sampling a multisampled image"));
        }
        let (op, ad) = match op.dim {
            ImageDim::Cube | ImageDim::CubeDir => cube_as_array(d, op, ad)?,
            _ => (*op, *ad),
        };
        let (op, ad) = (&op, &ad);
        if fmt.is_int() && op.kind == ImageKind::Sample {
            return Err(err("filtering an integer image format"));
        }
        if sp.border == 3 {
            return Err(err("sampler border-colour table"));
        }
        let unnorm = op.unorm || sp.unnormalized;
        let levels = d.last_level.saturating_sub(d.base_level) + 1;
        let top = (levels - 1) as i64;
        let l0 = level(d, op.dim, fmt, d.base_level);
        let size = [l0.w as f32, l0.h as f32, l0.slices as f32];
        let g = op.dim.grads();
        // The LOD before clamping, 8 fractional bits.
        let raw = match op.lod {
            LodMode::Zero => 0,
            LodMode::Lod => sample::quantize(ad.lod),
            _ => {
                let scale = if unnorm { [1.0; 3] } else { size };
                let lx = sample::len2(&ad.grads[0][..g], &scale[..g]);
                let ly = sample::len2(&ad.grads[1][..g], &scale[..g]);
                sample::lod_of_len2(sample::max_len2(lx, ly))
            }
        };
        let bias = if op.lod == LodMode::Bias { sample::quantize(ad.bias) } else { 0 };
        let sbias = (sp.lod_bias * 256.0) as i64;
        let (min_q, max_q) = ((sp.min_lod * 256.0) as i64, (sp.max_lod * 256.0) as i64);
        let mut lod = (raw + bias + sbias).max(min_q).min(max_q);
        if let Some(c) = ad.clamp {
            lod = lod.min(sample::quantize(c));
        }
        if op.kind == ImageKind::GetLod {
            let v = if op.chan == 0 { lod.clamp(0, top * 256) } else { raw };
            return Ok((v as f32 / 256.0).to_bits());
        }
        let linear = if lod <= 0 { sp.mag_linear } else { sp.min_linear };
        let pos = lod.max(0);
        // (level, weight of the second level) pairs: one level, or two blended.
        let (first, second, mip_a) = match sp.mip_filter {
            _ if op.kind == ImageKind::Gather || sp.mip_filter == 1 => (((pos + 128) >> 8).min(top), None, 0),
            2 => {
                let lo = (pos >> 8).min(top);
                if lo >= top {
                    (lo, None, 0)
                } else {
                    (lo, Some(lo + 1), (pos & 255) as u32)
                }
            }
            _ => (0, None, 0),
        };
        let v0 = self.sample_level(t, d, fmt, sp, op, ad, first as u32, linear, unnorm)?;
        let res = match second {
            Some(l) if mip_a != 0 => {
                let v1 = self.sample_level(t, d, fmt, sp, op, ad, l as u32, linear, unnorm)?;
                [0, 1, 2, 3].map(|c| sample::lerp(v0[c], v1[c], mip_a))
            }
            _ => v0,
        };
        if op.kind == ImageKind::Gather {
            return Ok(res[0]);
        }
        let v = select(fmt, d.dst_sel[op.chan as usize & 3], &res);
        Ok(if op.d16 { to16(fmt, v) } else { v })
    }

    /// One level's filtered value (four f32 channels), or for a gather the selected channel of
    /// the texel `op.chan` picks, in channel 0.
    #[allow(clippy::too_many_arguments)]
    fn sample_level(&mut self, t: usize, d: &ImageDesc, fmt: &Format, sp: &SamplerDesc, op: &ImageOp, ad: &Addr, li: u32, linear: bool, unnorm: bool) -> Result<[u32; 4], InterpError> {
        let g = op.dim.grads();
        let lv = level(d, op.dim, fmt, d.base_level + li);
        let dims = [lv.w, lv.h, lv.slices];
        let fc = ad.coords.map(fl);
        let slice = match op.dim {
            ImageDim::D1Array => Some(fc[1]),
            ImageDim::D2Array => Some(fc[2]),
            _ => None,
        }
        .map(|s| (s.round_ties_even().max(0.0) as u32).min(lv.slices - 1) + d.base_array);
        // Per axis: the first texel index and the weight of the second (0 for nearest).
        let axes: Vec<(i64, u32)> = (0..g)
            .map(|c| {
                let lin = if c == 2 && sp.z_filter != 0 { sp.z_filter == 2 } else { linear };
                let tc = if unnorm { fc[c] } else { fc[c] * dims[c] as f32 };
                let q = sample::quantize(tc) - 128 + 256 * ad.offset[c] as i64;
                if lin || op.kind == ImageKind::Gather {
                    (q >> 8, (q & 255) as u32)
                } else {
                    ((q + 128) >> 8, 0)
                }
            })
            .collect();
        let f1 = 1f32.to_bits();
        let border = match sp.border {
            0 => [0; 4],
            1 => [0, 0, 0, if fmt.is_int() { 1 } else { f1 }],
            _ => [if fmt.is_int() { 1 } else { f1 }; 4],
        };
        let fetch = |m: &mut Machine, idx: [i64; 3]| -> Result<[u32; 4], InterpError> {
            let mut at = [0u32; 3];
            for c in 0..g {
                match wrap(sp.clamp[c], idx[c], dims[c]) {
                    Some(v) => at[c] = v,
                    None => return Ok(border),
                }
            }
            let s = slice.unwrap_or(if g == 3 { at[2] } else { 0 });
            let (x, y) = (at[0], if g >= 2 { at[1] } else { 0 });
            let mut v = m.texel(t, d, fmt, &lv, [x, y, s])?;
            if op.compare {
                let (r, x) = (ad.reference, f32::from_bits(v[0]));
                let pass = match sp.compare_func {
                    0 => false,
                    1 => r < x,
                    2 => r == x,
                    3 => r <= x,
                    4 => r > x,
                    5 => r != x,
                    6 => r >= x,
                    _ => true,
                };
                v[0] = if pass { f1 } else { 0 };
            }
            Ok(v)
        };
        if op.kind == ImageKind::Gather {
            let (i0, j0) = (axes[0].0, if g >= 2 { axes[1].0 } else { 0 });
            let which = [(i0, j0 + 1), (i0 + 1, j0 + 1), (i0 + 1, j0), (i0, j0)][op.chan as usize & 3];
            let tx = fetch(self, [which.0, which.1, 0])?;
            return Ok([select(fmt, d.dst_sel[(op.comp as usize).min(3)], &tx), 0, 0, 0]);
        }
        let lerp4 = |a: [u32; 4], b: [u32; 4], w: u32| [0, 1, 2, 3].map(|c| sample::lerp(a[c], b[c], w));
        // x, then y, then z: each axis blends the values of the axes before it.
        let (nz, ny) = (if g >= 3 { 2 } else { 1 }, if g >= 2 { 2 } else { 1 });
        let mut zv = Vec::with_capacity(2);
        for kz in 0..nz {
            let mut yv = Vec::with_capacity(2);
            for jy in 0..ny {
                let j = if g >= 2 { axes[1].0 + jy } else { 0 };
                let k = if g >= 3 { axes[2].0 + kz } else { 0 };
                let (i, a) = axes[0];
                let v0 = fetch(self, [i, j, k])?;
                let v = if a == 0 { v0 } else { lerp4(v0, fetch(self, [i + 1, j, k])?, a) };
                yv.push(v);
                if g < 2 || axes[1].1 == 0 {
                    break;
                }
            }
            zv.push(if yv.len() == 2 { lerp4(yv[0], yv[1], axes[1].1) } else { yv[0] });
            if g < 3 || axes[2].1 == 0 {
                break;
            }
        }
        Ok(if zv.len() == 2 { lerp4(zv[0], zv[1], axes[2].1) } else { zv[0] })
    }
}

/// A cube op as the 2D-array op of one face (`ops::sample`'s reduction): the face's
/// coordinates u, v and its slice (as an f32 integer) replace the coordinates.
fn cube_as_array(d: &ImageDesc, op: &ImageOp, ad: &Addr) -> Result<(ImageOp, Addr), InterpError> {
    let c = ad.coords.map(|x| x as u32);
    let (u, v, slice) = if op.dim == ImageDim::CubeDir {
        if !matches!(op.lod, LodMode::Lod | LodMode::Zero) {
            return Err(err("sampling a cube by direction with a derivative LOD (the IR defines explicit and zero LODs only)"));
        }
        let (face, u, v) = sample::cube_direction(c[0], c[1], c[2]);
        (u, v, face.min(d.depth - 1))
    } else {
        (sample::cube_face_coord(c[0]), sample::cube_face_coord(c[1]), sample::cube_face_slice(c[2], d.depth))
    };
    let mut ad = *ad;
    ad.coords = [u as u64, v as u64, (slice as f32).to_bits() as u64, 0];
    Ok((ImageOp { dim: ImageDim::D2Array, ..*op }, ad))
}

/// A result channel in 16 bits: f16 (nearest even) of float-like values, the low bits of integers.
fn to16(fmt: &Format, v: u32) -> u32 {
    if fmt.is_int() {
        v & 0xffff
    } else {
        convert(FFmt::F32, FFmt::F16, &EXACT, Overflow::Ieee, v as u64) as u32
    }
}

/// A 16-bit data channel as a 32-bit one: f16 to f32 for float-like formats, zero-extended else.
fn from16(fmt: &Format, v: u32) -> u32 {
    if fmt.is_int() {
        v & 0xffff
    } else {
        convert(FFmt::F16, FFmt::F32, &EXACT, Overflow::Ieee, (v & 0xffff) as u64) as u32
    }
}

fn resinfo(d: &ImageDesc, fmt: &Format, op: &ImageOp, mip: u32) -> u32 {
    let levels = d.last_level.saturating_sub(d.base_level) + 1;
    if mip >= levels {
        return 0;
    }
    let lv = level(d, op.dim, fmt, d.base_level + mip);
    let v = match (op.chan, op.dim) {
        (0, _) => lv.w,
        (1, ImageDim::D1) => 0,
        (1, ImageDim::D1Array) => lv.slices,
        (1, _) => lv.h,
        (2, ImageDim::D3 | ImageDim::D2Array | ImageDim::D2MsaaArray) => lv.slices,
        (2, ImageDim::Cube | ImageDim::CubeDir) => lv.slices / 6,
        (2, _) => 0,
        _ => levels,
    };
    if op.d16 {
        v & 0xffff
    } else {
        v
    }
}

impl Machine<'_> {
    /// `export.*` and `message.*`: record what ran, per lane under the mask or once per wave.
    pub(super) fn stage_op(&mut self, w: usize, group: u64, ci: &CInst, op: crate::ops::stage::StageOp) {
        use crate::ops::stage::{StageEvent, StageOp};
        let th = self.threads();
        let base = w * self.ws;
        if let StageOp::Message(_) = op {
            if group != 0 {
                self.stage.push(StageEvent { thread: base as u32, op, value: 0 });
            }
            return;
        }
        for l in 0..self.ws {
            if group >> l & 1 == 0 {
                continue;
            }
            let value = if ci.nargs > 0 { self.regs[ci.args[0] * th + base + l] } else { 0 };
            self.stage.push(StageEvent { thread: (base + l) as u32, op, value });
        }
    }
}
