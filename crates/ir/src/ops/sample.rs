//! The IR's exact definition of filtered image sampling (`img.sample`, `img.gather`,
//! `img.getlod`; the op and its operands are in [`super::image`]): fixed-point texel positions
//! and LODs, dyadic weights and f32 blends in a fixed order, so that every backend computes the
//! interpreter's bits.
//!
//! - Texel positions: `t = s × size` rounded to f32 (nearest even; `t = s` for unnormalized
//!   coordinates), then `q = floor(256 × t) - 128 + 256 × offset` ([`quantize`] of `t`): the
//!   position `t - 0.5 + offset` with 8 fractional bits. Linear filtering reads texels
//!   `q >> 8` and `(q >> 8) + 1` with weights `1 - a` and `a`, `a = (q & 255) / 256`; nearest
//!   reads texel `(q + 128) >> 8`. This is NVIDIA's documented arithmetic (CUDA C Programming
//!   Guide, appendix "Texture Fetching": linear filtering weights are 9-bit fixed point with 8
//!   fractional bits); the IR states it for AMD too, where no hardware result checks it (the
//!   RDNA2 measurements in fixtures/rdna have no sampling test).
//! - LODs in the same fixed point ([`quantize`]: 8 fractional bits, floored): the explicit LOD,
//!   the bias operand and the sampler's bias (already 8-bit fixed point) are added as integers,
//!   then clamped to the sampler's range and the op's clamp. From derivatives, the LOD is
//!   `floor(128 × log2(m))` by [`lod_of_len2`], `m` the larger squared length of the two
//!   derivative vectors in texels, each computed in f32 (products, squares and sums rounded to
//!   nearest even in axis order).
//! - Blends: [`lerp`] per axis, x first, then y, then z, then across the two mip levels; each
//!   lerp `v0` when `a` is 0, else `RN(RN(v0 × (1 - a)) + RN(v1 × a))` in f32 with subnormals
//!   kept and NaNs propagated quiet (the first NaN operand, quieted).
//! - Cubes ([`super::image`]'s two forms) sample one face as a 2D array slice: the face's
//!   coordinates (u, v) in [0, 1] and the slice replace the op's coordinates, and everything
//!   above applies unchanged (the LOD, its derivatives, filtering, gather, get-LOD). Direction
//!   form ([`cube_direction`]): the face, `s`, `t` and the major component `m` by the table of
//!   `ops::float::CubeKind` (the one `v_cubeid` / `v_cubesc` / `v_cubetc` define, which is
//!   CUDA's cubemap table (CUDA C Programming Guide, "Cubemap Textures": face 0-5 for +x, -x,
//!   +y, -y, +z, -z, `s`, `t` as there) with the IR's rule for the ties that table leaves
//!   open, as its strict `>` does: z wins a tie, then y; a major component of -0 picks the
//!   positive face), then `u = RN(RN(RN(s / |m|) + 1) × 0.5)` and likewise `v` from `t`
//!   (CUDA's `(s/m + 1)/2`, each step f32 rounded to nearest even, no flushing, NaNs as in
//!   blends), slice = the face. Face form ([`cube_face_coord`], [`cube_face_slice`]): `u =
//!   RN(x - 1)`, `v = RN(y - 1)` (Mesa's `ac_prepare_cube_coords` adds 1.5 to `sc / |ma|`,
//!   `ma = 2 × m`, so the face spans [1, 2]: `x - 1` is CUDA's `(s/m + 1)/2`; that the
//!   hardware maps [1, 2] onto the face this way is the IR's reading, no AMD document or
//!   measurement states it), and the third coordinate `f` rounded to an integer `n` (nearest
//!   even, at least 0, NaN 0, at most 2^32) names layer `n >> 3` and face `n & 7` (Mesa
//!   encodes cube arrays as 8 × layer + face), so slice `6 × (n >> 3) + (n & 7)`; either
//!   form's slice is clamped to the last slice. Derivatives (operands or the lane quad's) are
//!   those of the operand coordinates x, y, taken as the face's; direction-form ops take only
//!   an explicit or zero LOD. A footprint crossing a face edge follows the sampler's address
//!   mode inside the face (no seamless filtering, which hardware may do).

use crate::ops::float::{CubeKind, FloatKind, FloatOp, Omod};
use crate::soft::{add, div, mul, sub, FFmt, FloatMode, NanRule, Round, Tininess};

/// The f32 arithmetic of blends: round to nearest even, no flushing, NaNs propagated quiet.
pub const BLEND: FloatMode = FloatMode { round: Round::Rn, ftz_in: false, ftz_out: false, sat: false, nan: NanRule::Propagate, tininess: Tininess::AfterRounding };

/// The largest magnitude of a value [`quantize`] reads (larger values clamp to it): 2^24.
pub const QUANT_LIMIT: f32 = 16_777_216.0;

/// `floor(256 × x)` of f32 `x` clamped to ±[`QUANT_LIMIT`] (NaN reads as 0): a value with
/// 8 fractional bits, within ±2^32.
pub fn quantize(x: f32) -> i64 {
    if x.is_nan() {
        return 0;
    }
    (x.clamp(-QUANT_LIMIT, QUANT_LIMIT) as f64 * 256.0).floor() as i64
}

/// `LOD_STEPS[j]` is 2^(j/128) rounded to the nearest f32 (bits), j in 0..128: the
/// thresholds of [`lod_of_len2`]. The table is the definition (a rounded threshold decides a
/// squared length that lies between it and the exact power).
pub const LOD_STEPS: [u32; 128] = [
    0x3f800000, 0x3f80b1ed, 0x3f8164d2, 0x3f8218af, 0x3f82cd87, 0x3f838359, 0x3f843a29, 0x3f84f1f6, 0x3f85aac3, 0x3f866491, 0x3f871f62, 0x3f87db35, 0x3f88980f, 0x3f8955ee, 0x3f8a14d5, 0x3f8ad4c6,
    0x3f8b95c2, 0x3f8c57ca, 0x3f8d1adf, 0x3f8ddf04, 0x3f8ea43a, 0x3f8f6a81, 0x3f9031dc, 0x3f90fa4d, 0x3f91c3d3, 0x3f928e72, 0x3f935a2b, 0x3f9426ff, 0x3f94f4f0, 0x3f95c3ff, 0x3f96942d, 0x3f97657d,
    0x3f9837f0, 0x3f990b88, 0x3f99e046, 0x3f9ab62b, 0x3f9b8d3a, 0x3f9c6573, 0x3f9d3eda, 0x3f9e196e, 0x3f9ef532, 0x3f9fd228, 0x3fa0b051, 0x3fa18faf, 0x3fa27043, 0x3fa3520f, 0x3fa43516, 0x3fa51958,
    0x3fa5fed7, 0x3fa6e595, 0x3fa7cd94, 0x3fa8b6d5, 0x3fa9a15b, 0x3faa8d26, 0x3fab7a3a, 0x3fac6897, 0x3fad583f, 0x3fae4934, 0x3faf3b79, 0x3fb02f0e, 0x3fb123f6, 0x3fb21a32, 0x3fb311c4, 0x3fb40aaf,
    0x3fb504f3, 0x3fb60094, 0x3fb6fd92, 0x3fb7fbf0, 0x3fb8fbaf, 0x3fb9fcd2, 0x3fbaff5b, 0x3fbc034a, 0x3fbd08a4, 0x3fbe0f68, 0x3fbf179a, 0x3fc0213b, 0x3fc12c4d, 0x3fc238d2, 0x3fc346cd, 0x3fc4563f,
    0x3fc5672a, 0x3fc67991, 0x3fc78d75, 0x3fc8a2d8, 0x3fc9b9be, 0x3fcad226, 0x3fcbec15, 0x3fcd078c, 0x3fce248c, 0x3fcf4319, 0x3fd06334, 0x3fd184df, 0x3fd2a81e, 0x3fd3ccf1, 0x3fd4f35b, 0x3fd61b5e,
    0x3fd744fd, 0x3fd87039, 0x3fd99d16, 0x3fdacb94, 0x3fdbfbb8, 0x3fdd2d82, 0x3fde60f5, 0x3fdf9613, 0x3fe0ccdf, 0x3fe2055b, 0x3fe33f89, 0x3fe47b6d, 0x3fe5b907, 0x3fe6f85b, 0x3fe8396a, 0x3fe97c38,
    0x3feac0c7, 0x3fec0719, 0x3fed4f30, 0x3fee9910, 0x3fefe4ba, 0x3ff13231, 0x3ff28177, 0x3ff3d290, 0x3ff5257d, 0x3ff67a41, 0x3ff7d0df, 0x3ff9295a, 0x3ffa83b3, 0x3ffbdfed, 0x3ffd3e0c, 0x3ffe9e11,
];

/// The lowest and highest fixed-point LOD (±2^32, as [`quantize`] bounds it).
pub const LOD_RANGE: i64 = 1 << 32;

/// The fixed-point LOD (8 fractional bits) of a squared length `m` (f32 bits, not negative):
/// with `m = f × 2^e`, `f` in [1, 2), `128 × e + j` for the largest `j` with
/// `f >= LOD_STEPS[j]` (so `floor(128 × log2(m))` up to the table's rounding); 0 gives
/// `-LOD_RANGE`, infinity `LOD_RANGE`, NaN 0.
pub fn lod_of_len2(m: u32) -> i64 {
    let m = m & 0x7fff_ffff;
    if m > 0x7f80_0000 {
        return 0;
    }
    if m == 0x7f80_0000 {
        return LOD_RANGE;
    }
    if m == 0 {
        return -LOD_RANGE;
    }
    // Normalize: significand in [2^23, 2^24), exponent e with m = sig × 2^(e - 23).
    let (mut e, mut sig) = if m >> 23 == 0 { (-126i64, m) } else { ((m >> 23) as i64 - 127, m & 0x7f_ffff | 0x80_0000) };
    while sig < 0x80_0000 {
        sig <<= 1;
        e -= 1;
    }
    let f = 0x3f80_0000 | (sig & 0x7f_ffff);
    let j = LOD_STEPS.iter().rposition(|&t| f >= t).unwrap_or(0) as i64;
    128 * e + j
}

/// `v0` when `a` is 0, else `RN(RN(v0 × (256 - a) / 256) + RN(v1 × a / 256))` in f32 ([`BLEND`]):
/// one linear blend of f32 bits with the 8-bit weight `a` (0..256).
pub fn lerp(v0: u32, v1: u32, a: u32) -> u32 {
    if a == 0 {
        return v0;
    }
    let w1 = (a as f32 / 256.0).to_bits() as u64;
    let w0 = ((256 - a) as f32 / 256.0).to_bits() as u64;
    let p0 = mul(FFmt::F32, &BLEND, false, v0 as u64, w0);
    let p1 = mul(FFmt::F32, &BLEND, false, v1 as u64, w1);
    add(FFmt::F32, &BLEND, p0, p1) as u32
}

/// The squared length of a derivative vector `g` (f32) in texels: `Σ RN(RN(g_c × size_c)²)`
/// summed in axis order in f32 ([`BLEND`]), `size_c` the f32 extent (1.0 for unnormalized
/// coordinates); f32 bits.
pub fn len2(g: &[f32], size: &[f32]) -> u32 {
    let mut acc: Option<u64> = None;
    for (x, s) in g.iter().zip(size) {
        let t = mul(FFmt::F32, &BLEND, false, x.to_bits() as u64, s.to_bits() as u64);
        let sq = mul(FFmt::F32, &BLEND, false, t, t);
        acc = Some(match acc {
            None => sq,
            Some(a) => add(FFmt::F32, &BLEND, a, sq),
        });
    }
    acc.unwrap_or(0) as u32
}

/// The larger of two squared lengths (f32 bits, not negative; NaN if either is NaN).
pub fn max_len2(a: u32, b: u32) -> u32 {
    let nan = |x: u32| x & 0x7fff_ffff > 0x7f80_0000;
    if nan(a) {
        a
    } else if nan(b) {
        b
    } else {
        (a & 0x7fff_ffff).max(b & 0x7fff_ffff)
    }
}

/// Direction form of a cube (f32 bits x, y, z): the face (0-5) and its coordinates u, v in
/// [0, 1] (f32 bits), as the module docs define them.
pub fn cube_direction(x: u32, y: u32, z: u32) -> (u32, u32, u32) {
    let cube = |k| FloatOp { kind: FloatKind::Cube(k), mode: BLEND, fmz: false, relu: false, omod: Omod::None }.eval(FFmt::F32, x as u64, y as u64, z as u64);
    let face = f32::from_bits(cube(CubeKind::Face) as u32) as u32;
    let major = [x, y, z][face as usize / 2] as u64 & 0x7fff_ffff;
    let one = 1f32.to_bits() as u64;
    let half = 0.5f32.to_bits() as u64;
    let coord = |s: u64| {
        let q = div(FFmt::F32, &BLEND, s, major);
        let r = add(FFmt::F32, &BLEND, q, one);
        mul(FFmt::F32, &BLEND, false, r, half) as u32
    };
    (face, coord(cube(CubeKind::S)), coord(cube(CubeKind::T)))
}

/// Face form of a cube: the face coordinate `u` of an operand coordinate `x` (f32 bits):
/// `RN(x - 1)`.
pub fn cube_face_coord(x: u32) -> u32 {
    sub(FFmt::F32, &BLEND, x as u64, 1f32.to_bits() as u64) as u32
}

/// Face form of a cube: the array slice (0..`slices`) the third coordinate `f` (f32 bits)
/// names: `n` = `f` rounded to nearest even, clamped to [0, 2^32] (NaN 0), slice
/// `6 × (n >> 3) + (n & 7)` clamped to `slices - 1` (`slices` at least 1).
pub fn cube_face_slice(f: u32, slices: u32) -> u32 {
    let r = f32::from_bits(f).round_ties_even();
    let n = if r.is_nan() { 0 } else { r.clamp(0.0, 4_294_967_296.0) as u64 };
    (6 * (n >> 3) + (n & 7)).min(slices as u64 - 1) as u32
}
