//! Image access through a 256-bit image descriptor (T#) and, for sampling, a 128-bit sampler
//! descriptor (S#): the surface's address, size, format, channel selects and mip range travel in
//! the T# value, filtering, address modes, border colour, LOD limits and the compare function in
//! the S# value, not in the instruction. Only untiled (linear) surfaces are defined; a tiled one
//! is an error of the op.
//!
//! Operands, in order: the T# as four i64 (words 0-1, 2-3, 4-5, 6-7); for ops that sample
//! (sample, gather4, get_lod) the S# as two i64; then the address values: the packed texel
//! offset (i32, with `offset`), the LOD bias (f32, `lod == Bias`), the depth-compare reference
//! (f32, `compare`), the derivatives (f32, `lod == Grad`: d/dx of each gradient coordinate, then
//! d/dy), the coordinates ([`ImageDim::coords`]: f32 when sampling, i32 otherwise), the LOD
//! (f32, `lod == Lod`) or mip level (i32, `mip`), the LOD clamp (f32, `clamp`); then the data of
//! a store (four i32 channels) or an atomic (one i32, two for compare-and-swap: the new value,
//! then the compare value); then optionally the lane mask. Each op yields one 32-bit result
//! channel (`chan`), or for `d16` one 16-bit channel in the low half.
//!
//! T# fields read (gfx10 layout, data here): base address word 0 << 8 | word 1 bits 0..7 << 40;
//! format word 1 bits 20..28; width - 1 word 1 bits 30..31 | word 2 bits 0..11 << 2; height - 1
//! word 2 bits 14..27; channel selects word 3 bits 0..11 (3 bits each: 0 → 0, 1 → 1, 4..7 →
//! x..w); base level bits 12..15; last level bits 16..19; swizzle mode bits 20..24 (0 = linear,
//! else tiled: an error); depth - 1 (3D) or last array slice (arrays) word 4 bits 0..12; base
//! array slice word 4 bits 16..28.
//!
//! Memory layout (the IR's definition of a linear surface; no hardware measurement covers it):
//! levels follow each other from the base address, level 0 first; level `l` has
//! `max(1, width >> l)` texels a row (the row pitch), `max(1, height >> l)` rows a slice, and
//! `max(1, depth >> l)` slices for 3D or every array slice (cube faces are six slices) for
//! arrays; texels are `bytes_per_texel` apart, channels little-endian in x, y, z, w order.
//!
//! Formats defined: 8, 16 and 32-bit channels (1, 2 or 4 of them; three 32-bit ones) in UNORM,
//! SNORM, USCALED, SSCALED, UINT, SINT and FLOAT (16 and 32 bits); others are an error. A
//! missing texel channel reads 0 (x, y, z) or 1 (w).
//!
//! Out of range (a coordinate outside the level, a slice past the last, a level past the last),
//! loads and gathers read 0 in every channel, stores are dropped, atomics change nothing and
//! return 0. Sampling never reads out of range: the sampler's address mode maps every texel
//! coordinate into the level, the border modes give the border colour (transparent black,
//! opaque black or opaque white; a border-colour table is an error).
//!
//! Sampling (the IR's definition, exact: [`super::sample`] gives the arithmetic; there is no
//! AMD hardware truth for filtering here, NVIDIA documents the 8-bit weights): texel position
//! `t = s × size` in f32 (`t = s` for unnormalized coordinates), quantized to 8 fractional bits
//! as `q = floor(256 × t) - 128 + 256 × offset`; nearest takes texel `(q + 128) >> 8`, bilinear
//! the two around `q` per axis (`q >> 8` and the next) with weight `a = (q & 255) / 256` for the
//! second; 3D linear adds the slice axis; array slices are the slice coordinate rounded to
//! nearest even, clamped to the slices. LOD, 8 fractional bits, floored: explicit (`Lod`), 0
//! (`Zero`), or from derivatives (`floor(128 × log2(m))` through a table of f32 thresholds, `m`
//! the larger squared length of d/dx and d/dy in texels, computed in f32) for `Grad`, and for
//! `Implicit` and `Bias` with coarse derivatives of the 2×2 quad of lanes (lane & !3: d/dx =
//! lane 1 - lane 0, d/dy = lane 2 - lane 0 of the quad, whatever the mask, differences in f32);
//! plus the bias operand and the sampler's LOD bias as integers, clamped to the sampler's
//! [min, max] LOD and the op's clamp. LOD <= 0 uses the magnification filter, else
//! minification; the mip filter picks the nearest level (`(lod + 128) >> 8`) or blends the two
//! around the LOD with weight `lod & 255` (levels counted from the base level, clamped to the
//! last). Blends are f32 lerps (`RN(RN(v0 × (1 - a)) + RN(v1 × a))`, `v0` for `a = 0`) per
//! axis, x, then y, then z, then across the two levels, from the f32 channel values. A depth
//! compare replaces each texel's x by 1.0 where `reference OP texel.x` holds (else 0.0) before
//! filtering (a border colour is not compared). Gather4 returns one channel of the four bilinear texels of the selected level,
//! in the order (i0, j1), (i1, j1), (i1, j0), (i0, j0). GetLod gives the clamped LOD (to the
//! level range) in channel 0 and the derivatives' LOD in channel 1, as f32.
//!
//! Cube maps come in two forms, both stored as six 2D slices a cube (face `f` of cube `k` is
//! array slice `6 × k + f`, faces +x, -x, +y, -y, +z, -z), and both sampled as one face of a 2D
//! array ([`super::sample`] gives the exact reduction):
//! - [`ImageDim::Cube`], AMD's face form: face coordinates and a face id as the hardware's
//!   `image_sample` takes them after `v_cubeid` / `v_cubesc` / `v_cubetc` / `v_cubema`, i.e. as
//!   Mesa (`ac_prepare_cube_coords`) and LLVM's AMDGPU callers prepare them: `sc / |ma| + 1.5`
//!   and `tc / |ma| + 1.5`, `ma` twice the major component, so a face's points lie in [1, 2],
//!   and the face id, plus 8 × the layer for cube arrays. Loads and stores take x, y and the
//!   slice as integers, as for a 2D array.
//! - [`ImageDim::CubeDir`], NVIDIA's direction form (`TEX ... CUBE`): a direction vector
//!   (x, y, z); the face and its coordinates follow CUDA's cubemap table. Only sampling and
//!   gather with an explicit or zero LOD take it; loads, stores and atomics are errors of the
//!   op (a direction names no texel), and so are derivative LODs (no rule maps a direction's
//!   derivatives onto a face).
//!
//! Filtering never crosses a face edge in the IR: a footprint past an edge follows the
//! sampler's address mode within that face, as for any 2D array slice. Hardware may filter
//! seamlessly across faces there; no hardware result checks either cube form here.

use super::mem::AtomicKind;

/// The surface shape an op addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageDim {
    /// 1D: x.
    D1,
    /// 2D: x, y.
    D2,
    /// 3D: x, y, z.
    D3,
    /// Cube, AMD's face form: face coordinates x, y (a face spans [1, 2]) and the face id
    /// (plus 8 × the layer of a cube array) as floats when sampling; x, y, slice otherwise.
    Cube,
    /// 1D array: x, slice.
    D1Array,
    /// 2D array: x, y, slice.
    D2Array,
    /// Multisampled 2D: x, y, sample.
    D2Msaa,
    /// Multisampled 2D array: x, y, slice, sample.
    D2MsaaArray,
    /// Cube, NVIDIA's direction form: the direction x, y, z (sampling and gather only; not an
    /// AMD DIM encoding, so not in [`ImageDim::ALL`]).
    CubeDir,
}

impl ImageDim {
    /// All shapes, in the order of their encoding in AMD's DIM field.
    pub const ALL: [ImageDim; 8] = [
        ImageDim::D1,
        ImageDim::D2,
        ImageDim::D3,
        ImageDim::Cube,
        ImageDim::D1Array,
        ImageDim::D2Array,
        ImageDim::D2Msaa,
        ImageDim::D2MsaaArray,
    ];
    /// Number of coordinate operands.
    pub const fn coords(self) -> usize {
        match self {
            ImageDim::D1 => 1,
            ImageDim::D2 | ImageDim::D1Array => 2,
            ImageDim::D3 | ImageDim::Cube | ImageDim::CubeDir | ImageDim::D2Array | ImageDim::D2Msaa => 3,
            ImageDim::D2MsaaArray => 4,
        }
    }
    /// Number of coordinates that have derivatives (the filtered axes).
    pub const fn grads(self) -> usize {
        match self {
            ImageDim::D1 | ImageDim::D1Array => 1,
            ImageDim::D3 => 3,
            _ => 2,
        }
    }
    /// Text name.
    pub const fn name(self) -> &'static str {
        match self {
            ImageDim::D1 => "1d",
            ImageDim::D2 => "2d",
            ImageDim::D3 => "3d",
            ImageDim::Cube => "cube",
            ImageDim::D1Array => "1darray",
            ImageDim::D2Array => "2darray",
            ImageDim::D2Msaa => "2dmsaa",
            ImageDim::D2MsaaArray => "2dmsaaarray",
            ImageDim::CubeDir => "cubedir",
        }
    }
}

/// How a sampling op gets its level of detail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LodMode {
    /// From the quad's coordinates (implicit derivatives).
    Implicit,
    /// Implicit, plus a bias operand.
    Bias,
    /// An explicit LOD operand.
    Lod,
    /// LOD 0.
    Zero,
    /// From explicit derivative operands.
    Grad,
}

/// What an image op does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageKind {
    /// Read a texel (no filtering, integer coordinates).
    Load,
    /// Write the channels whose bit is set in `wmask` (the others keep their bits).
    Store,
    /// Filtered read.
    Sample,
    /// One channel (`comp`) of the four bilinear texels; `chan` picks the texel.
    Gather,
    /// The LOD sampling would use: channel 0 clamped, channel 1 unclamped.
    GetLod,
    /// Width, height, depth or slices, and level count at the mip-level operand.
    ResInfo,
    /// Read-modify-write of a 32-bit single-channel texel; returns the old value.
    Atomic(AtomicKind),
}

/// An image access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ImageOp {
    /// What it does.
    pub kind: ImageKind,
    /// The surface shape.
    pub dim: ImageDim,
    /// The result channel (0..=3).
    pub chan: u8,
    /// Gather: the texel channel gathered; store: the channels written (bit mask).
    pub comp: u8,
    /// How a sampling op gets its LOD (Lod for the others).
    pub lod: LodMode,
    /// Load, store: a mip-level operand follows the coordinates.
    pub mip: bool,
    /// A LOD-clamp operand.
    pub clamp: bool,
    /// A depth-compare reference operand.
    pub compare: bool,
    /// A packed texel-offset operand (6 bits signed per axis at bits 0, 8, 16).
    pub offset: bool,
    /// Coordinates are in texels for every sampler (else as the sampler says).
    pub unorm: bool,
    /// The result is 16 bits (f16 for float formats, the low bits for integer ones).
    pub d16: bool,
}

impl ImageOp {
    /// Whether the op takes an S#.
    pub const fn samples(&self) -> bool {
        matches!(self.kind, ImageKind::Sample | ImageKind::Gather | ImageKind::GetLod)
    }
    /// Number of address operands (after the descriptors).
    pub const fn addr_count(&self) -> usize {
        if matches!(self.kind, ImageKind::ResInfo) {
            return 1;
        }
        let mut n = self.dim.coords();
        n += self.offset as usize + self.compare as usize + self.clamp as usize + self.mip as usize;
        n += match self.lod {
            LodMode::Lod if !self.samples() => 0,
            LodMode::Bias | LodMode::Lod => 1,
            LodMode::Grad => 2 * self.dim.grads(),
            _ => 0,
        };
        n
    }
    /// Number of data operands after the address.
    pub const fn data_count(&self) -> usize {
        match self.kind {
            ImageKind::Store => 4,
            ImageKind::Atomic(AtomicKind::CmpExch) => 2,
            ImageKind::Atomic(_) => 1,
            _ => 0,
        }
    }
    /// Number of operands (without the optional mask).
    pub const fn arity(&self) -> usize {
        4 + if self.samples() { 2 } else { 0 } + self.addr_count() + self.data_count()
    }
    /// The operand types the op takes, in order (without the mask).
    pub fn operand_types(&self) -> Vec<crate::types::Type> {
        use crate::types::Type;
        let mut v = vec![Type::I64; 4 + if self.samples() { 2 } else { 0 }];
        if matches!(self.kind, ImageKind::ResInfo) {
            v.push(Type::I32);
            return v;
        }
        let fa = if self.samples() { Type::F32 } else { Type::I32 };
        if self.offset {
            v.push(Type::I32);
        }
        if self.lod == LodMode::Bias {
            v.push(Type::F32);
        }
        if self.compare {
            v.push(Type::F32);
        }
        if self.lod == LodMode::Grad {
            v.extend(std::iter::repeat_n(Type::F32, 2 * self.dim.grads()));
        }
        v.extend(std::iter::repeat_n(fa, self.dim.coords()));
        if self.lod == LodMode::Lod && self.samples() {
            v.push(Type::F32);
        }
        if self.mip {
            v.push(Type::I32);
        }
        if self.clamp {
            v.push(Type::F32);
        }
        v.extend(std::iter::repeat_n(Type::I32, self.data_count()));
        v
    }
    /// Whether the op reads other lanes' operands (implicit derivatives of the lane quad).
    pub const fn reads_quad(&self) -> bool {
        self.samples() && matches!(self.lod, LodMode::Implicit | LodMode::Bias)
    }
    /// Whether the op produces no value.
    pub const fn is_store(&self) -> bool {
        matches!(self.kind, ImageKind::Store)
    }
    /// Text mnemonic: `img.sample.2d.c1.b.c.o`.
    pub fn mnemonic(&self) -> String {
        let k = match self.kind {
            ImageKind::Load => "load".to_string(),
            ImageKind::Store => "store".into(),
            ImageKind::Sample => "sample".into(),
            ImageKind::Gather => "gather".into(),
            ImageKind::GetLod => "getlod".into(),
            ImageKind::ResInfo => "resinfo".into(),
            ImageKind::Atomic(a) => format!("atomic.{}", super::mem::atomic_name(a)),
        };
        let mut s = format!("img.{k}.{}.c{}", self.dim.name(), self.chan);
        if self.comp != 0 {
            s += &format!(".m{}", self.comp);
        }
        s += match self.lod {
            LodMode::Implicit => "",
            LodMode::Bias => ".b",
            LodMode::Lod => ".l",
            LodMode::Zero => ".lz",
            LodMode::Grad => ".d",
        };
        for (on, m) in [
            (self.mip, ".mip"),
            (self.clamp, ".cl"),
            (self.compare, ".cmp"),
            (self.offset, ".o"),
            (self.unorm, ".unorm"),
            (self.d16, ".d16"),
        ] {
            if on {
                s += m;
            }
        }
        s
    }
    /// Parse a mnemonic split at dots.
    pub fn parse(base: &str, mods: &[&str]) -> Option<ImageOp> {
        if base != "img" {
            return None;
        }
        let (kind, rest) = match mods {
            ["load", r @ ..] => (ImageKind::Load, r),
            ["store", r @ ..] => (ImageKind::Store, r),
            ["sample", r @ ..] => (ImageKind::Sample, r),
            ["gather", r @ ..] => (ImageKind::Gather, r),
            ["getlod", r @ ..] => (ImageKind::GetLod, r),
            ["resinfo", r @ ..] => (ImageKind::ResInfo, r),
            ["atomic", a, r @ ..] => (ImageKind::Atomic(super::mem::parse_atomic(a)?), r),
            _ => return None,
        };
        let (dim, rest) = rest.split_first()?;
        let dim = *ImageDim::ALL.iter().chain(&[ImageDim::CubeDir]).find(|d| d.name() == *dim)?;
        let (chan, rest) = rest.split_first()?;
        let chan: u8 = chan.strip_prefix('c')?.parse().ok()?;
        let mut op = ImageOp {
            kind,
            dim,
            chan,
            comp: 0,
            lod: if matches!(kind, ImageKind::Sample | ImageKind::Gather | ImageKind::GetLod) {
                LodMode::Implicit
            } else {
                LodMode::Lod
            },
            mip: false,
            clamp: false,
            compare: false,
            offset: false,
            unorm: false,
            d16: false,
        };
        if chan > 3 {
            return None;
        }
        for m in rest {
            match *m {
                "b" => op.lod = LodMode::Bias,
                "l" => op.lod = LodMode::Lod,
                "lz" => op.lod = LodMode::Zero,
                "d" => op.lod = LodMode::Grad,
                "mip" => op.mip = true,
                "cl" => op.clamp = true,
                "cmp" => op.compare = true,
                "o" => op.offset = true,
                "unorm" => op.unorm = true,
                "d16" => op.d16 = true,
                _ => op.comp = m.strip_prefix('m')?.parse().ok()?,
            }
        }
        Some(op)
    }
}

/// The T# fields an access reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageDesc {
    /// Byte address of level 0.
    pub base: u64,
    /// Format number (gfx10 IMG_FORMAT).
    pub format: u32,
    /// Width of level 0.
    pub width: u32,
    /// Height of level 0.
    pub height: u32,
    /// Depth of level 0 (3D) or the last array slice + 1 (arrays).
    pub depth: u32,
    /// Channel selects x, y, z, w.
    pub dst_sel: [u8; 4],
    /// First level a sampler sees.
    pub base_level: u32,
    /// Last level.
    pub last_level: u32,
    /// Swizzle mode (0 = linear).
    pub sw_mode: u32,
    /// First array slice.
    pub base_array: u32,
}

impl ImageDesc {
    /// Read the fields from the descriptor's eight words.
    pub fn from_words(w: [u32; 8]) -> ImageDesc {
        ImageDesc {
            base: (w[0] as u64) << 8 | ((w[1] & 0xff) as u64) << 40,
            format: w[1] >> 20 & 0x1ff,
            width: ((w[1] >> 30) | (w[2] & 0xfff) << 2) + 1,
            height: (w[2] >> 14 & 0x3fff) + 1,
            depth: (w[4] & 0x1fff) + 1,
            dst_sel: [0, 3, 6, 9].map(|s| (w[3] >> s & 7) as u8),
            base_level: w[3] >> 12 & 0xf,
            last_level: w[3] >> 16 & 0xf,
            sw_mode: w[3] >> 20 & 0x1f,
            base_array: w[4] >> 16 & 0x1fff,
        }
    }
}

/// The S# fields sampling reads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SamplerDesc {
    /// Address mode of x, y, z (0 wrap, 1 mirror, 2 clamp to the last texel, 3 mirror once to
    /// the last texel, 4 clamp half-way into the border, 5 mirror once half-way, 6 clamp to the
    /// border, 7 mirror once to the border).
    pub clamp: [u8; 3],
    /// Depth compare function (0 never, 1 less, 2 equal, 3 less-equal, 4 greater, 5 not equal,
    /// 6 greater-equal, 7 always).
    pub compare_func: u8,
    /// Coordinates are in texels.
    pub unnormalized: bool,
    /// Minimum LOD (unsigned 4.8 fixed point).
    pub min_lod: f32,
    /// Maximum LOD (unsigned 4.8 fixed point).
    pub max_lod: f32,
    /// LOD bias (signed 6.8 fixed point).
    pub lod_bias: f32,
    /// Magnification filter: bilinear when set, else point.
    pub mag_linear: bool,
    /// Minification filter: bilinear when set, else point.
    pub min_linear: bool,
    /// Z filter of 3D images (0 none = as the xy filter, 1 point, 2 linear).
    pub z_filter: u8,
    /// Mip filter (0 none: the base level only, 1 point, 2 linear).
    pub mip_filter: u8,
    /// Border colour type (0 transparent black, 1 opaque black, 2 opaque white, 3 table).
    pub border: u8,
}

impl SamplerDesc {
    /// Read the fields from the descriptor's four words.
    pub fn from_words(w: [u32; 4]) -> SamplerDesc {
        let bias = ((w[2] & 0x3fff) as i32) << 18 >> 18;
        SamplerDesc {
            clamp: [(w[0] & 7) as u8, (w[0] >> 3 & 7) as u8, (w[0] >> 6 & 7) as u8],
            compare_func: (w[0] >> 12 & 7) as u8,
            unnormalized: w[0] >> 15 & 1 != 0,
            min_lod: (w[1] & 0xfff) as f32 / 256.0,
            max_lod: (w[1] >> 12 & 0xfff) as f32 / 256.0,
            lod_bias: bias as f32 / 256.0,
            mag_linear: w[2] >> 20 & 1 != 0,
            min_linear: w[2] >> 22 & 1 != 0,
            z_filter: (w[2] >> 24 & 3) as u8,
            mip_filter: (w[2] >> 26 & 3) as u8,
            border: (w[3] >> 30) as u8,
        }
    }
}

/// How a format's channels are stored and read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChanKind {
    /// Unsigned normalized: v / (2^bits - 1).
    Unorm,
    /// Signed normalized: max(v / (2^(bits-1) - 1), -1).
    Snorm,
    /// Unsigned integer converted to float.
    Uscaled,
    /// Signed integer converted to float.
    Sscaled,
    /// Unsigned integer.
    Uint,
    /// Signed integer.
    Sint,
    /// Float (16 or 32 bits).
    Float,
}

/// A texel format: channel count, bits per channel, how channels read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    /// Channels stored (1..=4).
    pub chans: u32,
    /// Bits per channel (8, 16, 32).
    pub bits: u32,
    /// Channel kind.
    pub kind: ChanKind,
}

impl Format {
    /// The defined formats (gfx10 IMG_FORMAT numbers); None for the others.
    pub fn from_number(n: u32) -> Option<Format> {
        use ChanKind::*;
        const K6: [ChanKind; 6] = [Unorm, Snorm, Uscaled, Sscaled, Uint, Sint];
        let f = |chans, bits, kind| Some(Format { chans, bits, kind });
        match n {
            1..=6 => f(1, 8, K6[n as usize - 1]),
            7..=12 => f(1, 16, K6[n as usize - 7]),
            13 => f(1, 16, Float),
            14..=19 => f(2, 8, K6[n as usize - 14]),
            20 => f(1, 32, Uint),
            21 => f(1, 32, Sint),
            22 => f(1, 32, Float),
            23..=28 => f(2, 16, K6[n as usize - 23]),
            29 => f(2, 16, Float),
            56..=61 => f(4, 8, K6[n as usize - 56]),
            62 => f(2, 32, Uint),
            63 => f(2, 32, Sint),
            64 => f(2, 32, Float),
            65..=70 => f(4, 16, K6[n as usize - 65]),
            71 => f(4, 16, Float),
            72 => f(3, 32, Uint),
            73 => f(3, 32, Sint),
            74 => f(3, 32, Float),
            75 => f(4, 32, Uint),
            76 => f(4, 32, Sint),
            77 => f(4, 32, Float),
            _ => None,
        }
    }
    /// Bytes a texel takes.
    pub const fn bytes(&self) -> u32 {
        self.chans * self.bits / 8
    }
    /// Whether channels read as integers (else as f32).
    pub const fn is_int(&self) -> bool {
        matches!(self.kind, ChanKind::Uint | ChanKind::Sint)
    }
}
