//! Image sampling and gather (`img.sample`, `img.gather`) in SPIR-V, exactly as the IR defines
//! them (`isabridge_ir::ops::sample`, run by `interp::image`): the T# and S# are read per lane
//! from their operand values, never through a Vulkan image or sampler. Texel positions and LODs
//! are quantized to 8 fractional bits in integer arithmetic from the f32 bits; the LOD of
//! derivatives (`Grad`) is the squared lengths in the emitter's exact f32 arithmetic and the
//! threshold search of `LOD_STEPS` in integers; address modes, borders, depth compares (an
//! ordered comparison of the f32 bits), texel reads (`image_load`'s addresses and channel
//! conversions) and the f32 lerps in the IR's order (x, y, z, then across levels) through the
//! emitter's exact f32 multiply and add, never the driver's float arithmetic.
//!
//! A texel the interpreter does not read (the second of an axis whose weight is 0, a second
//! level whose weight is 0) is not loaded here either. A tiled or undefined descriptor, a
//! sampler border-colour table, or filtering an integer format records [`IMAGE_TRAP`] for an
//! active lane (the interpreter stops with an error there) and reads 0. Implicit LODs (`Implicit`,
//! `Bias`, get-LOD) take the coarse derivatives of the lane quad through the wave model's
//! exchange array, differences in the exact f32 arithmetic. Cubes sample one face as a 2D array
//! slice (`ops::sample`: the direction form's face by the cube-map table of `amd_cube.rs`, its
//! s / |m| through the exact f32 division of `amd_bvh.rs`). Typed errors: multisampled shapes
//! (the IR leaves their sampling undefined), derivative LODs of a cube direction, implicit LODs
//! in per-lane functions (no exchange there).

use super::emit::{internal, unsupported, Em, EmitError};
use super::image::{DescIds, IMAGE_TRAP};
use super::image_load::FormatIds;
use isabridge_ir::ir::Value;
use isabridge_ir::ops::float::{FloatKind, FloatOp, Omod};
use isabridge_ir::ops::image::{ImageDim, ImageKind, ImageOp, LodMode};
use isabridge_ir::ops::sample::{BLEND, LOD_RANGE, LOD_STEPS};
use isabridge_ir::soft::FFmt;
use isabridge_ir::types::Type;
use isabridge_ir::Op;
use rspirv::spirv::Word;

/// The S# fields sampling reads (`SamplerDesc`), as u64 ids (b1 for flags).
struct SamplerIds {
    /// Address modes of x, y, z.
    clamp: [Word; 3],
    /// Depth compare function.
    compare_func: Word,
    /// Coordinates are in texels (b1).
    unnormalized: Word,
    /// Minimum and maximum LOD, 8 fractional bits.
    min_q: Word,
    max_q: Word,
    /// LOD bias, 8 fractional bits, signed.
    bias_q: Word,
    /// Magnification and minification filters are bilinear (b1).
    mag_linear: Word,
    min_linear: Word,
    /// Z filter and mip filter codes.
    z_filter: Word,
    mip_filter: Word,
    /// Border colour type.
    border: Word,
}

/// The per-lane inputs of one level's filtering.
struct Filter<'a> {
    d: &'a DescIds,
    f: &'a FormatIds,
    sp: &'a SamplerIds,
    op: ImageOp,
    /// The coordinates (u64 words of f32 bits).
    coords: Vec<Word>,
    /// The texel offsets per axis (u64, signed).
    offset: [Word; 3],
    /// The depth-compare reference (f32 bits).
    reference: Word,
    /// Bilinear in x and y (b1), and coordinates in texels (b1).
    linear: Word,
    unnorm: Word,
}

impl Em<'_> {
    /// Signed 64-bit `a < b` as the unsigned order of the operands with their sign bits flipped
    /// (lavapipe gets signed 64-bit compares wrong: `int_ops`).
    fn smp_slt(&mut self, a: Word, b: Word) -> Result<Word, EmitError> {
        let tb = self.bool_ty()?;
        let sign = self.u64c(1 << 63)?;
        let x = self.b.bitwise_xor(self.t_u64, None, a, sign).map_err(internal)?;
        let y = self.b.bitwise_xor(self.t_u64, None, b, sign).map_err(internal)?;
        self.b.u_less_than(tb, None, x, y).map_err(internal)
    }

    fn smp_smax(&mut self, a: Word, b: Word) -> Result<Word, EmitError> {
        let lt = self.smp_slt(a, b)?;
        self.sel(lt, b, a)
    }

    fn smp_smin(&mut self, a: Word, b: Word) -> Result<Word, EmitError> {
        let lt = self.smp_slt(b, a)?;
        self.sel(lt, b, a)
    }

    /// Arithmetic shift right by `k` (floor division by 2^k) through logical shifts: a
    /// negative value is the complement of its complement shifted.
    fn smp_sar(&mut self, a: Word, k: u64) -> Result<Word, EmitError> {
        let zero = self.u64c(0)?;
        let neg = self.smp_slt(a, zero)?;
        let na = self.b.not(self.t_u64, None, a).map_err(internal)?;
        let x = self.sel(neg, na, a)?;
        let x = self.shr(x, k)?;
        let nx = self.b.not(self.t_u64, None, x).map_err(internal)?;
        self.sel(neg, nx, x)
    }

    /// `i.rem_euclid(n)` of a signed `i` and `0 < n < 2^63` through unsigned remainders:
    /// `n - 1 - ((-i - 1) mod n)` for negative `i`.
    fn smp_rem_euclid(&mut self, i: Word, n: Word) -> Result<Word, EmitError> {
        let zero = self.u64c(0)?;
        let one = self.u64c(1)?;
        let neg = self.smp_slt(i, zero)?;
        let ni = self.b.not(self.t_u64, None, i).map_err(internal)?;
        let x = self.sel(neg, ni, i)?;
        let r = self.b.u_mod(self.t_u64, None, x, n).map_err(internal)?;
        let n1 = self.sub(n, one)?;
        let back = self.sub(n1, r)?;
        self.sel(neg, back, r)
    }

    fn smp_neg(&mut self, a: Word) -> Result<Word, EmitError> {
        let zero = self.u64c(0)?;
        self.sub(zero, a)
    }

    /// `x` (u64) sign-extended from `bits`.
    fn smp_sext(&mut self, x: Word, bits: u64) -> Result<Word, EmitError> {
        let l = self.shl(x, 64 - bits)?;
        self.smp_sar(l, 64 - bits)
    }

    /// `quantize`: floor(256 × x) of f32 bits `x` clamped to ±2^24, NaN 0 (i64 in a u64).
    fn smp_quantize(&mut self, x: Word) -> Result<Word, EmitError> {
        let tb = self.bool_ty()?;
        let mag = self.and(x, 0x7fff_ffff)?;
        let nan = self.is_nan_bits(FFmt::F32, x)?;
        let lim = self.u64c(0x4b80_0000)?;
        let big = self.b.u_greater_than(tb, None, mag, lim).map_err(internal)?;
        let mag = self.sel(big, lim, mag)?;
        let e = self.shr(mag, 23)?;
        let e0 = self.eq(e, 0)?;
        let one = self.u64c(1)?;
        let e = self.sel(e0, one, e)?;
        let frac = self.and(mag, 0x7f_ffff)?;
        let h = self.u64c(0x80_0000)?;
        let hidden = self.sel_k(e0, 0, h)?;
        let m = self.or(frac, hidden)?;
        // 256 × value = m × 2^(e - 142).
        let k142 = self.u64c(142)?;
        let up = self.b.u_greater_than_equal(tb, None, e, k142).map_err(internal)?;
        let sh_up = self.sub(e, k142)?;
        let z0 = self.u64c(0)?;
        let sh_up = self.sel(up, sh_up, z0)?;
        let big_v = self.b.shift_left_logical(self.t_u64, None, m, sh_up).map_err(internal)?;
        let sh_dn = self.sub(k142, e)?;
        let k63 = self.u64c(63)?;
        let far = self.b.u_greater_than(tb, None, sh_dn, k63).map_err(internal)?;
        let sh_dn = self.sel(far, k63, sh_dn)?;
        let sh_dn = self.sel_k(up, 0, sh_dn)?;
        let floor_pos = self.b.shift_right_logical(self.t_u64, None, m, sh_dn).map_err(internal)?;
        let p = self.b.shift_left_logical(self.t_u64, None, one, sh_dn).map_err(internal)?;
        let p1 = self.sub(p, one)?;
        let mr = self.add(m, p1)?;
        let ceil_mag = self.b.shift_right_logical(self.t_u64, None, mr, sh_dn).map_err(internal)?;
        let pos = self.sel(up, big_v, floor_pos)?;
        let negmag = self.sel(up, big_v, ceil_mag)?;
        let neg = self.smp_neg(negmag)?;
        let sign = self.shr(x, 31)?;
        let sign = self.and(sign, 1)?;
        let is_neg = self.eq(sign, 1)?;
        let r = self.sel(is_neg, neg, pos)?;
        self.sel_k(nan, 0, r)
    }

    /// `lod_of_len2` of f32 bits `m` (not negative): i64 in a u64.
    fn smp_lod_of_len2(&mut self, m: Word) -> Result<Word, EmitError> {
        let tb = self.bool_ty()?;
        let m = self.and(m, 0x7fff_ffff)?;
        let nan = self.is_nan_bits(FFmt::F32, m)?;
        let inf = self.eq(m, 0x7f80_0000)?;
        let zero = self.eq(m, 0)?;
        let e = self.shr(m, 23)?;
        let sub = self.eq(e, 0)?;
        // Subnormal: the top set bit of the fraction normalizes it.
        let frac = self.and(m, 0x7f_ffff)?;
        let set = self.glsl_import();
        let f32w = self.b.u_convert(self.t_u32, None, frac).map_err(internal)?;
        let msb = self.b.ext_inst(self.t_u32, None, set, 75, [rspirv::dr::Operand::IdRef(f32w)]).map_err(internal)?;
        let msb = self.b.u_convert(self.t_u64, None, msb).map_err(internal)?;
        let k23 = self.u64c(23)?;
        let shift = self.sub(k23, msb)?;
        let fz = self.eq(frac, 0)?;
        let shift = self.sel_k(fz, 0, shift)?;
        let norm = self.b.shift_left_logical(self.t_u64, None, frac, shift).map_err(internal)?;
        let norm = self.and(norm, 0x7f_ffff)?;
        // Unbiased exponents: e - 127, or msb - 149 for subnormals.
        let k127 = self.u64c(127)?;
        let en = self.sub(e, k127)?;
        let k149 = self.u64c(149)?;
        let es = self.sub(msb, k149)?;
        let ex = self.sel(sub, es, en)?;
        let fr = self.sel(sub, norm, frac)?;
        let one_f = self.u64c(0x3f80_0000)?;
        let f = self.or(fr, one_f)?;
        let z = self.u64c(0)?;
        let mut j = z;
        for &t in &LOD_STEPS[1..] {
            let kt = self.u64c(t as u64)?;
            let ge = self.b.u_greater_than_equal(tb, None, f, kt).map_err(internal)?;
            let inc = self.sel_k(ge, 1, z)?;
            j = self.add(j, inc)?;
        }
        let k128 = self.u64c(128)?;
        let hi = self.b.i_mul(self.t_u64, None, ex, k128).map_err(internal)?;
        let r = self.add(hi, j)?;
        let r = self.sel_k(zero, (-LOD_RANGE) as u64, r)?;
        let r = self.sel_k(inf, LOD_RANGE as u64, r)?;
        self.sel_k(nan, 0, r)
    }

    /// f32 `a op b` (u64 bits) in the blend arithmetic.
    fn smp_f(&mut self, kind: FloatKind, a: Word, b: Word) -> Result<Word, EmitError> {
        let op = FloatOp { kind, mode: BLEND, fmz: false, relu: false, omod: Omod::None };
        self.float_elem(&op, FFmt::F32, &[a, b])
    }

    /// f32 bits of `k / 256` for `k` (u64) in 1..=256.
    fn smp_weight(&mut self, k: Word) -> Result<Word, EmitError> {
        let tf = self.b.type_float(32, None);
        let f = self.b.convert_u_to_f(tf, None, k).map_err(internal)?;
        let bits = self.b.bitcast(self.t_u32, None, f).map_err(internal)?;
        let bits = self.b.u_convert(self.t_u64, None, bits).map_err(internal)?;
        let k8 = self.u64c(8 << 23)?;
        self.sub(bits, k8)
    }

    /// `lerp` of four channels with the 8-bit weight `a` (u64, 0..256).
    fn smp_lerp4(&mut self, v0: [Word; 4], v1: [Word; 4], a: Word) -> Result<[Word; 4], EmitError> {
        let a0 = self.eq(a, 0)?;
        let one = self.u64c(1)?;
        let k = self.sel(a0, one, a)?;
        let w1 = self.smp_weight(k)?;
        let k256 = self.u64c(256)?;
        let k0 = self.sub(k256, k)?;
        let w0 = self.smp_weight(k0)?;
        let mut r = v0;
        for c in 0..4 {
            let p0 = self.smp_f(FloatKind::Mul, v0[c], w0)?;
            let p1 = self.smp_f(FloatKind::Mul, v1[c], w1)?;
            let s = self.smp_f(FloatKind::Add, p0, p1)?;
            r[c] = self.sel(a0, v0[c], s)?;
        }
        Ok(r)
    }

    /// Whether `r OP x` holds for compare function `func` (u64) on f32 bits, as the
    /// interpreter compares f32 values (a NaN is unordered).
    fn smp_compare(&mut self, func: Word, r: Word, x: Word) -> Result<Word, EmitError> {
        let key = |em: &mut Self, v: Word| -> Result<Word, EmitError> {
            let mag = em.and(v, 0x7fff_ffff)?;
            let s = em.shr(v, 31)?;
            let s = em.and(s, 1)?;
            let neg = em.eq(s, 1)?;
            let n = em.smp_neg(mag)?;
            em.sel(neg, n, mag)
        };
        let (kr, kx) = (key(self, r)?, key(self, x)?);
        let nr = self.is_nan_bits(FFmt::F32, r)?;
        let nx = self.is_nan_bits(FFmt::F32, x)?;
        let un = self.lor(nr, nx)?;
        let ord = self.lnot(un)?;
        let tb = self.bool_ty()?;
        let lt = self.smp_slt(kr, kx)?;
        let gt = self.smp_slt(kx, kr)?;
        let eq = self.b.i_equal(tb, None, kr, kx).map_err(internal)?;
        let lt = self.land(ord, lt)?;
        let gt = self.land(ord, gt)?;
        let eq = self.land(ord, eq)?;
        let le = self.lor(lt, eq)?;
        let ge = self.lor(gt, eq)?;
        let ne = self.lnot(eq)?;
        let (f, t) = (self.bconst(false)?, self.bconst(true)?);
        let mut pass = t;
        for (k, v) in [(0, f), (1, lt), (2, eq), (3, le), (4, gt), (5, ne), (6, ge)] {
            let is = self.eq(func, k)?;
            pass = self.b.select(tb, None, is, v, pass).map_err(internal)?;
        }
        Ok(pass)
    }

    /// `wrap`: texel index `i` (i64) of an axis of `n` texels (u64, at least 1) under address
    /// mode `mode` (u64): the index and whether it is inside (b1; else the border).
    fn smp_wrap(&mut self, mode: Word, i: Word, n: Word) -> Result<(Word, Word), EmitError> {
        let zero = self.u64c(0)?;
        let one = self.u64c(1)?;
        let n1 = self.sub(n, one)?;
        let r0 = self.smp_rem_euclid(i, n)?;
        let n2 = self.add(n, n)?;
        let m = self.smp_rem_euclid(i, n2)?;
        let tb = self.bool_ty()?;
        let hi = self.b.u_greater_than_equal(tb, None, m, n).map_err(internal)?;
        let n2m = self.sub(n2, one)?;
        let back = self.sub(n2m, m)?;
        let r1 = self.sel(hi, back, m)?;
        let clamp = |em: &mut Self, v: Word| -> Result<Word, EmitError> {
            let v = em.smp_smax(v, zero)?;
            em.smp_smin(v, n1)
        };
        let r2 = clamp(self, i)?;
        let neg = self.smp_slt(i, zero)?;
        let m1 = self.u64c(u64::MAX)?;
        let mirrored = self.sub(m1, i)?;
        let j = self.sel(neg, mirrored, i)?;
        let r3 = clamp(self, j)?;
        let lo_ok = self.lnot(neg)?;
        let below = self.smp_slt(i, n)?;
        let in4 = self.land(lo_ok, below)?;
        let in5 = self.smp_slt(j, n)?;
        let t = self.bconst(true)?;
        let (mut idx, mut ok) = (j, in5);
        for (k, r, o) in [(0, r0, t), (1, r1, t), (2, r2, t), (3, r3, t), (4, i, in4), (6, i, in4)] {
            let is = self.eq(mode, k)?;
            idx = self.sel(is, r, idx)?;
            ok = self.b.select(tb, None, is, o, ok).map_err(internal)?;
        }
        Ok((idx, ok))
    }

    /// The S# fields from its two u64 operands.
    fn sampler_desc(&mut self, s0: Word, s1: Word) -> Result<SamplerIds, EmitError> {
        let w0 = self.and(s0, 0xffff_ffff)?;
        let w1 = self.shr(s0, 32)?;
        let w2 = self.and(s1, 0xffff_ffff)?;
        let w3 = self.shr(s1, 32)?;
        let field = |em: &mut Self, w: Word, shift: u64, mask: u64| -> Result<Word, EmitError> {
            let s = em.shr(w, shift)?;
            em.and(s, mask)
        };
        let flag = |em: &mut Self, w: Word, shift: u64| -> Result<Word, EmitError> {
            let s = field(em, w, shift, 1)?;
            em.eq(s, 1)
        };
        let clamp = [field(self, w0, 0, 7)?, field(self, w0, 3, 7)?, field(self, w0, 6, 7)?];
        let compare_func = field(self, w0, 12, 7)?;
        let unnormalized = flag(self, w0, 15)?;
        let min_q = field(self, w1, 0, 0xfff)?;
        let max_q = field(self, w1, 12, 0xfff)?;
        let bias = field(self, w2, 0, 0x3fff)?;
        let bias_q = self.smp_sext(bias, 14)?;
        let mag_linear = flag(self, w2, 20)?;
        let min_linear = flag(self, w2, 22)?;
        let z_filter = field(self, w2, 24, 3)?;
        let mip_filter = field(self, w2, 26, 3)?;
        let border = field(self, w3, 30, 3)?;
        Ok(SamplerIds { clamp, compare_func, unnormalized, min_q, max_q, bias_q, mag_linear, min_linear, z_filter, mip_filter, border })
    }

    /// A u64 integer below 2^24 (or with at most 24 significant bits) as f32 bits (exact).
    fn smp_int_f32(&mut self, n: Word) -> Result<Word, EmitError> {
        let tf = self.b.type_float(32, None);
        let f = self.b.convert_u_to_f(tf, None, n).map_err(internal)?;
        let bits = self.b.bitcast(self.t_u32, None, f).map_err(internal)?;
        self.b.u_convert(self.t_u64, None, bits).map_err(internal)
    }

    /// The slice an array coordinate (f32 bits) names: nearest even, at least 0, at most
    /// `slices - 1`, plus the base array slice.
    fn smp_slice(&mut self, d: &DescIds, s: Word, slices: Word) -> Result<Word, EmitError> {
        let one = self.u64c(1)?;
        let top = self.sub(slices, one)?;
        let i = self.smp_round_clamp(s, top)?;
        self.add(i, d.base_array)
    }

    /// f32 bits `s` rounded to an integer (nearest even), at least 0 (NaN 0), at most `top`
    /// (u64 below 2^53): a u64.
    fn smp_round_clamp(&mut self, s: Word, top: Word) -> Result<Word, EmitError> {
        let w = self.widen(FFmt::F32, s)?;
        let x = self.as_double(w)?;
        let r = self.round_integral(x, isabridge_ir::soft::Round::Rn)?;
        let t64 = self.f64_ty();
        let tb = self.bool_ty()?;
        let topf = self.b.convert_u_to_f(t64, None, top).map_err(internal)?;
        let zf = self.b.constant_bit64(t64, 0);
        let pos = self.b.f_ord_greater_than(tb, None, r, zf).map_err(internal)?;
        let over = self.b.f_ord_greater_than_equal(tb, None, r, topf).map_err(internal)?;
        let safe = self.b.select(t64, None, pos, r, zf).map_err(internal)?;
        let safe = self.b.select(t64, None, over, topf, safe).map_err(internal)?;
        self.b.convert_f_to_u(self.t_u64, None, safe).map_err(internal)
    }

    /// A cube op as the 2D-array op of one face (`ops::sample`'s reduction) on the
    /// coordinates `c` (u64 words of f32 bits): the op and the face's coordinates u, v and
    /// slice (an f32 integer).
    fn smp_cube(&mut self, d: &DescIds, op: ImageOp, c: &[Word]) -> Result<(ImageOp, Vec<Word>), EmitError> {
        let one = self.u64c(1)?;
        let last = self.sub(d.size[2], one)?;
        let f1 = self.u64c(1f32.to_bits() as u64)?;
        let (u, v, slice) = if op.dim == ImageDim::CubeDir {
            let fr = self.cube_frame(FFmt::F32, c[0], c[1], c[2])?;
            let m = self.and(fr.major, 0x7fff_ffff)?;
            let half = self.u64c(0.5f32.to_bits() as u64)?;
            let mut uv = [0; 2];
            for (o, s) in uv.iter_mut().zip([fr.s, fr.t]) {
                let q = self.f32_div(s, m)?;
                let r = self.smp_f(FloatKind::Add, q, f1)?;
                *o = self.smp_f(FloatKind::Mul, r, half)?;
            }
            let face = self.smp_smin(fr.face, last)?;
            (uv[0], uv[1], face)
        } else {
            let u = self.smp_f(FloatKind::Sub, c[0], f1)?;
            let v = self.smp_f(FloatKind::Sub, c[1], f1)?;
            let limit = self.u64c(1 << 32)?;
            let n = self.smp_round_clamp(c[2], limit)?;
            let layer = self.shr(n, 3)?;
            let six = self.u64c(6)?;
            let base = self.b.i_mul(self.t_u64, None, layer, six).map_err(internal)?;
            let face = self.and(n, 7)?;
            let s = self.add(base, face)?;
            (u, v, self.smp_smin(s, last)?)
        };
        let sf = self.smp_int_f32(slice)?;
        Ok((ImageOp { dim: ImageDim::D2Array, ..op }, vec![u, v, sf]))
    }

    /// One level's filtered channels (`sample_level`) at level `li` (u64, from the base
    /// level), texels loaded only where `live` holds; for a gather the gathered channel in
    /// channel 0.
    fn sample_level(&mut self, x: &Filter, li: Word, live: Word) -> Result<[Word; 4], EmitError> {
        let (d, f, sp, op) = (x.d, x.f, x.sp, x.op);
        let g = op.dim.grads();
        let lvl = self.add(d.base_level, li)?;
        let dims = self.image_level_shape(d, op.dim, lvl)?;
        let offset = self.level_offset(d, f, op.dim, lvl)?;
        let slice = match op.dim {
            ImageDim::D1Array => Some(self.smp_slice(d, x.coords[1], dims[2])?),
            ImageDim::D2Array => Some(self.smp_slice(d, x.coords[2], dims[2])?),
            _ => None,
        };
        // Per axis: the first texel index and the weight of the second (0 for nearest).
        let gather = op.kind == ImageKind::Gather;
        let mut axes = Vec::with_capacity(g);
        for (c, &dim) in dims.iter().enumerate().take(g) {
            let lin = if c == 2 {
                let zf = self.eq(sp.z_filter, 0)?;
                let z2 = self.eq(sp.z_filter, 2)?;
                let tb = self.bool_ty()?;
                self.b.select(tb, None, zf, x.linear, z2).map_err(internal)?
            } else {
                x.linear
            };
            let lin = if gather { self.bconst(true)? } else { lin };
            let size = self.smp_int_f32(dim)?;
            let scaled = self.smp_f(FloatKind::Mul, x.coords[c], size)?;
            let tc = self.sel(x.unnorm, x.coords[c], scaled)?;
            let q = self.smp_quantize(tc)?;
            let k128 = self.u64c(128)?;
            let q = self.sub(q, k128)?;
            let o = self.shl(x.offset[c], 8)?;
            let q = self.add(q, o)?;
            let il = self.smp_sar(q, 8)?;
            let al = self.and(q, 255)?;
            let qn = self.add(q, k128)?;
            let inear = self.smp_sar(qn, 8)?;
            let i = self.sel(lin, il, inear)?;
            let zero = self.u64c(0)?;
            let a = self.sel(lin, al, zero)?;
            axes.push((i, a));
        }
        let zero = self.u64c(0)?;
        let one = self.format_one(f)?;
        let b1 = self.eq(sp.border, 1)?;
        let b2 = self.eq(sp.border, 2)?;
        let b_w = self.lor(b1, b2)?;
        let bw = self.sel(b_w, one, zero)?;
        let bx = self.sel(b2, one, zero)?;
        let border = [bx, bx, bx, bw];
        let f1 = self.u64c(1f32.to_bits() as u64)?;
        let [lw, lh, _] = dims;
        let fetch = |em: &mut Self, idx: [Word; 3], live: Word| -> Result<[Word; 4], EmitError> {
            let mut at = [zero; 3];
            let mut ok = em.bconst(true)?;
            for c in 0..g {
                let (j, o) = em.smp_wrap(sp.clamp[c], idx[c], dims[c])?;
                at[c] = j;
                ok = em.land(ok, o)?;
            }
            let s = slice.unwrap_or(if g == 3 { at[2] } else { zero });
            let y = if g >= 2 { at[1] } else { zero };
            let addr = em.texel_at(d, f, offset, [lw, lh], [at[0], y, s])?;
            let go = em.land(live, ok)?;
            let t = em.texel_channels(f, addr, go)?;
            let mut t = t;
            if op.compare {
                // A texel's x only; the border colour is not compared.
                let pass = em.smp_compare(sp.compare_func, x.reference, t[0])?;
                t[0] = em.sel(pass, f1, zero)?;
            }
            let mut v = [zero; 4];
            for c in 0..4 {
                v[c] = em.sel(ok, t[c], border[c])?;
            }
            Ok(v)
        };
        let one64 = self.u64c(1)?;
        let next = |em: &mut Self, i: Word| em.add(i, one64);
        if gather {
            let (i0, j0) = (axes[0].0, if g >= 2 { axes[1].0 } else { zero });
            let (i1, j1) = (next(self, i0)?, next(self, j0)?);
            let which = [(i0, j1), (i1, j1), (i1, j0), (i0, j0)][op.chan as usize & 3];
            let tx = fetch(self, [which.0, which.1, zero], live)?;
            let sel = d.dst_sel[(op.comp as usize).min(3)];
            let r = self.select_channel(f, sel, &tx)?;
            return Ok([r, zero, zero, zero]);
        }
        // The far row or slice of an axis (index, weight): the next index, live where the
        // weight is not 0.
        let far = |em: &mut Self, (i, w): (Word, Word), live: Word| -> Result<(Word, Word), EmitError> {
            let w0 = em.eq(w, 0)?;
            let on = em.lnot(w0)?;
            Ok((next(em, i)?, em.land(live, on)?))
        };
        // x, then y, then z; a second texel, row or slice only where its weight is not 0.
        let (nz, ny) = (if g >= 3 { 2 } else { 1 }, if g >= 2 { 2 } else { 1 });
        let mut zv = Vec::with_capacity(2);
        for kz in 0..nz {
            let (k, live_z) = match (g >= 3, kz) {
                (false, _) => (zero, live),
                (true, 0) => (axes[2].0, live),
                (true, _) => far(self, axes[2], live)?,
            };
            let mut yv = Vec::with_capacity(2);
            for jy in 0..ny {
                let (j, live_y) = match (g >= 2, jy) {
                    (false, _) => (zero, live_z),
                    (true, 0) => (axes[1].0, live_z),
                    (true, _) => far(self, axes[1], live_z)?,
                };
                let (i, a) = axes[0];
                let v0 = fetch(self, [i, j, k], live_y)?;
                let a0 = self.eq(a, 0)?;
                let on = self.lnot(a0)?;
                let live_x = self.land(live_y, on)?;
                let i1 = next(self, i)?;
                let v1 = fetch(self, [i1, j, k], live_x)?;
                yv.push(self.smp_lerp4(v0, v1, a)?);
            }
            zv.push(if g >= 2 { self.smp_lerp4(yv[0], yv[1], axes[1].1)? } else { yv[0] });
        }
        Ok(if g >= 3 { self.smp_lerp4(zv[0], zv[1], axes[2].1)? } else { zv[0] })
    }

    /// `img.sample` or `img.gather` (value `v`, result type `ty`) on operands `args`.
    pub(super) fn image_sample(&mut self, v: Value, op: ImageOp, args: &[Value], ty: Option<Type>) -> Result<(), EmitError> {
        let text = Op::Image(op).mnemonic();
        if matches!(op.dim, ImageDim::D2Msaa | ImageDim::D2MsaaArray) {
            return Err(unsupported(self.cur_ir, v.0, text, "sampling a multisampled image (the IR leaves it undefined)"));
        }
        if op.dim == ImageDim::CubeDir && !matches!(op.lod, LodMode::Lod | LodMode::Zero) {
            return Err(unsupported(self.cur_ir, v.0, text, "sampling a cube by direction with a derivative LOD (the IR defines explicit and zero LODs only)"));
        }
        if op.reads_quad() && self.wave.is_none() {
            return Err(unsupported(self.cur_ir, v.0, text, "LODs from the implicit derivatives of the lane quad in per-lane functions"));
        }
        let (a, on, d, f) = self.image_operands(&op, args)?;
        let sp = self.sampler_desc(a[4], a[5])?;
        // Operands after the descriptors, in `ImageOp::operand_types` order.
        let mut p = 6;
        let mut take = |n: usize| {
            p += n;
            p - n
        };
        let f32w = |em: &mut Self, w: Word| em.and(w, 0xffff_ffff);
        let zero = self.u64c(0)?;
        let mut offset = [zero; 3];
        if op.offset {
            let o = a[take(1)];
            for (c, x) in offset.iter_mut().enumerate() {
                let s = self.shr(o, 8 * c as u64)?;
                let s = self.and(s, 0x3f)?;
                *x = self.smp_sext(s, 6)?;
            }
        }
        let g = op.dim.grads();
        let bias_at = if op.lod == LodMode::Bias { Some(take(1)) } else { None };
        let reference = if op.compare { f32w(self, a[take(1)])? } else { zero };
        let grads = if op.lod == LodMode::Grad { Some(take(2 * g)) } else { None };
        let c0 = take(op.dim.coords());
        let mut coords = Vec::with_capacity(op.dim.coords());
        for i in 0..op.dim.coords() {
            coords.push(f32w(self, a[c0 + i])?);
        }
        let lod_at = if op.lod == LodMode::Lod { Some(take(1)) } else { None };
        if op.mip {
            take(1);
        }
        let clamp_at = if op.clamp { Some(take(1)) } else { None };
        // Traps: an undefined descriptor, a border-colour table, filtering integers.
        let table = self.eq(sp.border, 3)?;
        let mut bad = self.lor(d.bad, table)?;
        if op.kind == ImageKind::Sample {
            bad = self.lor(bad, f.int)?;
        }
        let bad = self.land(on, bad)?;
        self.trap_when(bad, IMAGE_TRAP)?;
        let ok = self.lnot(bad)?;
        let live = self.land(on, ok)?;
        // Level 0's extents as f32, for the derivatives' lengths.
        let tb = self.bool_ty()?;
        let unn = self.bconst(op.unorm)?;
        let unnorm = self.b.logical_or(tb, None, unn, sp.unnormalized).map_err(internal)?;
        // Derivatives: the operands, or the coordinates of the lane quad (lane & !3: d/dx =
        // lane 1 - lane 0, d/dy = lane 2 - lane 0, whatever the mask).
        let derivs: Option<Vec<Word>> = match grads {
            Some(k) => {
                let mut v = Vec::with_capacity(2 * g);
                for i in 0..2 * g {
                    v.push(f32w(self, a[k + i])?);
                }
                Some(v)
            }
            None if op.reads_quad() => {
                let lane = self.lane()?;
                let m = self.wc32(!3)?;
                let q0 = self.b.bitwise_and(self.t_u32, None, lane, m).map_err(internal)?;
                let (k1, k2) = (self.wc32(1)?, self.wc32(2)?);
                let q1 = self.b.i_add(self.t_u32, None, q0, k1).map_err(internal)?;
                let q2 = self.b.i_add(self.t_u32, None, q0, k2).map_err(internal)?;
                let (mut dx, mut dy) = (Vec::with_capacity(g), Vec::with_capacity(g));
                for chunk in coords[..g].chunks(2) {
                    self.publish(chunk)?;
                    for k in 0..chunk.len() as u32 {
                        let mut at = [zero; 3];
                        for (x, &l) in at.iter_mut().zip(&[q0, q1, q2]) {
                            let w = self.fetch(k, l)?;
                            *x = f32w(self, w)?;
                        }
                        dx.push(self.smp_f(FloatKind::Sub, at[1], at[0])?);
                        dy.push(self.smp_f(FloatKind::Sub, at[2], at[0])?);
                    }
                }
                dx.extend(dy);
                Some(dx)
            }
            None => None,
        };
        let raw = match (lod_at, derivs) {
            (Some(k), _) => {
                let l = f32w(self, a[k])?;
                self.smp_quantize(l)?
            }
            (None, Some(dv)) => {
                let dims = self.image_level_shape(&d, op.dim, d.base_level)?;
                let f1 = self.u64c(1f32.to_bits() as u64)?;
                let mut size = Vec::with_capacity(g);
                for &dim in dims.iter().take(g) {
                    let s = self.smp_int_f32(dim)?;
                    size.push(self.sel(unnorm, f1, s)?);
                }
                let mut len = [zero; 2];
                for (dir, l) in len.iter_mut().enumerate() {
                    let mut acc = None;
                    for (c, &s) in size.iter().enumerate() {
                        let gx = dv[dir * g + c];
                        let t = self.smp_f(FloatKind::Mul, gx, s)?;
                        let sq = self.smp_f(FloatKind::Mul, t, t)?;
                        acc = Some(match acc {
                            None => sq,
                            Some(x) => self.smp_f(FloatKind::Add, x, sq)?,
                        });
                    }
                    *l = acc.unwrap_or(zero);
                }
                // The larger (a NaN wins, the first one).
                let (x, y) = (self.and(len[0], 0x7fff_ffff)?, self.and(len[1], 0x7fff_ffff)?);
                let nx = self.is_nan_bits(FFmt::F32, x)?;
                let ny = self.is_nan_bits(FFmt::F32, y)?;
                let gt = self.b.u_greater_than(tb, None, y, x).map_err(internal)?;
                let m = self.sel(gt, y, x)?;
                let m = self.sel(ny, len[1], m)?;
                let m = self.sel(nx, len[0], m)?;
                self.smp_lod_of_len2(m)?
            }
            _ => zero,
        };
        let mut lod = self.add(raw, sp.bias_q)?;
        if let Some(k) = bias_at {
            let b = f32w(self, a[k])?;
            let b = self.smp_quantize(b)?;
            lod = self.add(lod, b)?;
        }
        let lod = self.smp_smax(lod, sp.min_q)?;
        let mut lod = self.smp_smin(lod, sp.max_q)?;
        if let Some(k) = clamp_at {
            let c = f32w(self, a[k])?;
            let c = self.smp_quantize(c)?;
            lod = self.smp_smin(lod, c)?;
        }
        let pos_lod = self.smp_slt(zero, lod)?;
        let linear = self.b.select(tb, None, pos_lod, sp.min_linear, sp.mag_linear).map_err(internal)?;
        // Levels: last - base (saturating), the LOD's level(s) and the blend weight.
        let below = self.b.u_less_than(tb, None, d.last_level, d.base_level).map_err(internal)?;
        let top = self.sub(d.last_level, d.base_level)?;
        let top = self.sel_k(below, 0, top)?;
        let pos = self.smp_smax(lod, zero)?;
        let k128 = self.u64c(128)?;
        let pr = self.add(pos, k128)?;
        let point = self.shr(pr, 8)?;
        let point = self.smp_smin(point, top)?;
        let lo = self.shr(pos, 8)?;
        let lo = self.smp_smin(lo, top)?;
        let inner = self.smp_slt(lo, top)?;
        let fr = self.and(pos, 255)?;
        let lin_a = self.sel(inner, fr, zero)?;
        let (first, mip_a) = if op.kind == ImageKind::Gather {
            (point, zero)
        } else {
            let m1 = self.eq(sp.mip_filter, 1)?;
            let m2 = self.eq(sp.mip_filter, 2)?;
            let first = self.sel(m2, lo, zero)?;
            let first = self.sel(m1, point, first)?;
            (first, self.sel(m2, lin_a, zero)?)
        };
        if op.kind == ImageKind::GetLod {
            // Channel 0 the LOD clamped to the levels, the others the derivatives' LOD, as
            // f32 (every such value has at most 24 significant bits: exact).
            let k256 = self.u64c(256)?;
            let tl = self.b.i_mul(self.t_u64, None, top, k256).map_err(internal)?;
            let c = self.smp_smax(lod, zero)?;
            let c = self.smp_smin(c, tl)?;
            let q = if op.chan == 0 { c } else { raw };
            let neg = self.smp_slt(q, zero)?;
            let nq = self.smp_neg(q)?;
            let mag = self.sel(neg, nq, q)?;
            let bits = self.smp_int_f32(mag)?;
            let sign = self.u64c(1 << 31)?;
            let sb = self.or(bits, sign)?;
            let bits = self.sel(neg, sb, bits)?;
            let k8 = self.u64c(8 << 23)?;
            let scaled = self.sub(bits, k8)?;
            let z = self.eq(q, 0)?;
            let r = self.sel(z, zero, scaled)?;
            let r = self.sel(live, r, zero)?;
            let t = ty.ok_or_else(|| internal("get-LOD without a result type"))?;
            let w = self.value_of_word(r, t)?;
            return self.define(v, w);
        }
        // A cube samples one face as a 2D array slice (its derivatives above are the operand
        // coordinates').
        let (fop, coords) = match op.dim {
            ImageDim::Cube | ImageDim::CubeDir => self.smp_cube(&d, op, &coords)?,
            _ => (op, coords),
        };
        let x = Filter { d: &d, f: &f, sp: &sp, op: fop, coords, offset, reference, linear, unnorm };
        let v0 = self.sample_level(&x, first, live)?;
        let r = if op.kind == ImageKind::Gather {
            v0[0]
        } else {
            let a0 = self.eq(mip_a, 0)?;
            let two = self.lnot(a0)?;
            let live1 = self.land(live, two)?;
            let one = self.u64c(1)?;
            let second = self.add(first, one)?;
            let v1 = self.sample_level(&x, second, live1)?;
            let res = self.smp_lerp4(v0, v1, mip_a)?;
            let r = self.select_channel(&f, d.dst_sel[op.chan as usize & 3], &res)?;
            if op.d16 {
                self.channel_d16(&f, r)?
            } else {
                r
            }
        };
        let r = self.sel(live, r, zero)?;
        match ty {
            Some(t) => {
                let w = self.value_of_word(r, t)?;
                self.define(v, w)
            }
            None => Err(internal("a sampling op without a result type")),
        }
    }
}
