//! BVH node intersection (`ray.node.<dword>`, `isabridge_ir::ops::ray`) in SPIR-V, computed in
//! software exactly as the IR's model computes it.
//!
//! The descriptor's base address is a guest address the runner has made a buffer device
//! address (or a heap address in the heap model); the node's dwords are read through it only
//! for a lane in the op's mask whose node lies within the descriptor's last slot and has a
//! defined type (0, 1, 4, 5). A box32 node's second slot is read only for that type (the other
//! types read their first slot again in its place). A lane outside the mask yields 0; a node
//! past the last slot or of type 7 yields all ones; a node of type 2, 3 or 6 records the trap
//! [`RAY_NODE_TRAP`] (the interpreter stops with an error there) and yields all ones.
//!
//! Arithmetic: every step of the box and triangle tests is one f32 operation rounded to nearest
//! even with denormals kept, done as the emitter does all float arithmetic (values as integer
//! bits, widened to f64, rounded back in integer arithmetic; `float`), in the model's order;
//! the three divisions of the triangle test are correctly rounded through a 64-bit integer
//! quotient with a sticky bit. Comparisons are ordered comparisons of the exactly widened
//! values; min and max are IEEE minNum / maxNum. No driver float control is relied on.
//!
//! The four ops of one intersection share their operands: the result is computed once per
//! region and each op extracts its dword.

use super::amd_memory::Place;
use super::emit::{internal, Em, EmitError};
use super::float::Err64;
use isabridge_ir::ops::float::{FloatKind, FloatOp, Omod};
use isabridge_ir::ops::ray::RayOp;
use isabridge_ir::soft::{FFmt, FloatMode, MinMaxKind, NanRule, Round, Tininess};
use isabridge_ir::types::{Scalar, Type};
use isabridge_ir::Value;
use rspirv::spirv::Word;

/// The trap code recorded when a lane's node has a type the IR does not define (2, 3, 6).
pub const RAY_NODE_TRAP: u16 = 0xfffd;

/// Round to nearest even, denormals kept: the precision of every step of the model.
const EXACT: FloatMode = FloatMode { round: Round::Rn, ftz_in: false, ftz_out: false, sat: false, nan: NanRule::Propagate, tininess: Tininess::AfterRounding };

/// f32 bits of +infinity and 1.0.
const F32_INF: u64 = 0x7f80_0000;
const F32_ONE: u64 = 0x3f80_0000;

/// An ordered comparison.
#[derive(Clone, Copy)]
enum Ord3 {
    Lt,
    Le,
    Gt,
    Ge,
    Ne,
}

/// The ray operands, f32 bits in u64 words.
struct RayWords {
    extent: Word,
    origin: [Word; 3],
    dir: [Word; 3],
    inv: [Word; 3],
}

impl Em<'_> {
    /// `ray.node.<dword>` (value `v`) with operand ids `a` (descriptor words as two i64, node
    /// pointer i64, ten f32, optionally the lane mask); the dword as a u32.
    pub(super) fn ray_node(&mut self, v: Value, op: RayOp, a: &[Word]) -> Result<Word, EmitError> {
        let args = self.f.insts[v].args.clone();
        let cached = self.rays.get(&args).filter(|(region, _)| *region == self.region).map(|&(_, w)| w);
        let r4 = match cached {
            Some(w) => w,
            None => {
                let w = self.ray_intersect(a)?;
                self.rays.insert(args, (self.region, w));
                w
            }
        };
        self.b.composite_extract(self.t_u32, None, r4, [op.dword as u32 & 3]).map_err(internal)
    }

    /// The four result dwords (a vector of four u32) of one lane's intersection.
    fn ray_intersect(&mut self, a: &[Word]) -> Result<Word, EmitError> {
        if a.len() < 13 {
            return Err(internal("ray.node with fewer than 13 operands"));
        }
        let mut fl = Vec::with_capacity(10);
        for &x in &a[3..13] {
            fl.push(self.b.u_convert(self.t_u64, None, x).map_err(internal)?);
        }
        let ray = RayWords { extent: fl[0], origin: [fl[1], fl[2], fl[3]], dir: [fl[4], fl[5], fl[6]], inv: [fl[7], fl[8], fl[9]] };
        let on = match a.get(13) {
            Some(&mask) => {
                let lane = self.lane()?;
                self.mask_bit(mask, lane)?
            }
            None => self.bconst(true)?,
        };
        // Descriptor fields (`RayDesc::from_words`).
        let (d0, d1, ptr) = (a[0], a[1], a[2]);
        let w0 = self.and(d0, 0xffff_ffff)?;
        let w1 = self.shr(d0, 32)?;
        let lo = self.shl(w0, 8)?;
        let hi = self.and(w1, 0xff)?;
        let hi = self.shl(hi, 40)?;
        let base = self.or(lo, hi)?;
        let sort = self.shr(w1, 31)?;
        let sort = self.eq(sort, 1)?;
        let l0 = self.and(d1, 0xffff_ffff)?;
        let l1 = self.shr(d1, 32)?;
        let l1 = self.and(l1, 0x3ff)?;
        let l1 = self.shl(l1, 32)?;
        let last = self.or(l0, l1)?;
        // The node: type, index, span.
        let ty = self.and(ptr, 7)?;
        let index = self.shr(ptr, 3)?;
        let is5 = self.eq(ty, 5)?;
        let one = self.u64c(1)?;
        let zero = self.u64c(0)?;
        let extra = self.sel(is5, one, zero)?;
        let end = self.add(index, extra)?;
        let tb = self.bool_ty()?;
        let in_range = self.b.u_less_than_equal(tb, None, end, last).map_err(internal)?;
        let mut defined = self.bconst(false)?;
        let mut undefined = self.bconst(false)?;
        for k in 0..7 {
            let is = self.eq(ty, k)?;
            if matches!(k, 0 | 1 | 4 | 5) {
                defined = self.lor(defined, is)?;
            } else {
                undefined = self.lor(undefined, is)?;
            }
        }
        let live = self.land(on, in_range)?;
        let go = self.land(live, defined)?;
        let bad = self.land(live, undefined)?;
        self.trap_when(bad, RAY_NODE_TRAP)?;
        let tv4 = self.ty(Type::V(Scalar::I32, 4))?;
        let (m32, z32) = (self.konst(Type::I32, 0xffff_ffff)?, self.konst(Type::I32, 0)?);
        let miss4 = self.b.constant_composite(tv4, [m32; 4]);
        let zero4 = self.b.constant_composite(tv4, [z32; 4]);
        let default = self.b.select(tv4, None, on, miss4, zero4).map_err(internal)?;
        let r = self.guarded(go, Some((tv4, default)), |em| {
            let words = em.node_result(base, index, ty, sort, &ray)?;
            let mut parts = Vec::with_capacity(4);
            for w in words {
                parts.push(em.b.u_convert(em.t_u32, None, w).map_err(internal)?);
            }
            em.b.composite_construct(tv4, None, parts).map(Some).map_err(internal)
        })?;
        r.ok_or_else(|| internal("ray.node: the guarded intersection gave no value"))
    }

    /// The result dwords (u64 words) of a node that is read: a triangle's or a box's.
    fn node_result(&mut self, base: Word, index: Word, ty: Word, sort: Word, ray: &RayWords) -> Result<[Word; 4], EmitError> {
        let off = self.shl(index, 6)?;
        let addr = self.add(base, off)?;
        let addr = self.and(addr, (1 << 48) - 1)?;
        let is5 = self.eq(ty, 5)?;
        let k64 = self.u64c(64)?;
        let second = self.add(addr, k64)?;
        let ext = self.sel(is5, second, addr)?;
        let mut dw = Vec::with_capacity(28);
        for k in 0..28u64 {
            let (from, at) = if k < 16 { (addr, k) } else { (ext, k - 16) };
            let o = self.u64c(4 * at)?;
            let p = self.add(from, o)?;
            let w = self.load_word(Place::Device, p)?;
            dw.push(self.b.u_convert(self.t_u64, None, w).map_err(internal)?);
        }
        // Triangle (types 0 and 1).
        let is1 = self.eq(ty, 1)?;
        let vert = |i: usize| [dw[3 * i], dw[3 * i + 1], dw[3 * i + 2]];
        let (v0, v1, v2, v3) = (vert(0), vert(1), vert(2), vert(3));
        let mut tri = [[0; 3]; 3];
        for c in 0..3 {
            tri[0][c] = self.sel(is1, v1[c], v0[c])?;
            tri[1][c] = self.sel(is1, v3[c], v1[c])?;
            tri[2][c] = v2[c];
        }
        let (hit, t, det) = self.triangle(ray, &tri)?;
        let inf = self.u64c(F32_INF)?;
        let f_one = self.u64c(F32_ONE)?;
        let (one, zero) = (self.u64c(1)?, self.u64c(0)?);
        let tri_out = [self.sel(hit, t, inf)?, self.sel(hit, det, f_one)?, dw[15], self.sel(hit, one, zero)?];
        // Boxes (types 4 and 5).
        let mut boxes = [[0; 6]; 4];
        for (b, bx) in boxes.iter_mut().enumerate() {
            for p in 0..3 {
                let w = dw[4 + 3 * b + p];
                let lo16 = self.and(w, 0xffff)?;
                let hi16 = self.shr(w, 16)?;
                let (lo32, hi32) = (self.f16_bits_to_f32(lo16)?, self.f16_bits_to_f32(hi16)?);
                bx[2 * p] = self.sel(is5, dw[4 + 6 * b + 2 * p], lo32)?;
                bx[2 * p + 1] = self.sel(is5, dw[4 + 6 * b + 2 * p + 1], hi32)?;
            }
        }
        let kids = [dw[0], dw[1], dw[2], dw[3]];
        let box_out = self.boxes(ray, &boxes, kids, sort)?;
        let tb = self.bool_ty()?;
        let is_tri = self.b.u_less_than_equal(tb, None, ty, one).map_err(internal)?;
        let mut out = [0; 4];
        for k in 0..4 {
            out[k] = self.sel(is_tri, tri_out[k], box_out[k])?;
        }
        Ok(out)
    }

    /// The children of a box node: hit children nearest first (sorting on) or in their slots,
    /// the rest all ones.
    fn boxes(&mut self, ray: &RayWords, boxes: &[[Word; 6]; 4], kids: [Word; 4], sort: Word) -> Result<[Word; 4], EmitError> {
        let mut hits = [0; 4];
        let mut keys = [0; 4];
        for b in 0..4 {
            let (hit, near) = self.slab(ray, &boxes[b])?;
            hits[b] = hit;
            // The order of the entry distance (never NaN; -0 as +0) as an unsigned key.
            let nz = self.eq(near, 0x8000_0000)?;
            let near = self.sel_k(nz, 0, near)?;
            let s = self.shr(near, 31)?;
            let neg = self.eq(s, 1)?;
            let flipped = self.b.not(self.t_u64, None, near).map_err(internal)?;
            let flipped = self.and(flipped, 0xffff_ffff)?;
            let k = self.u64c(0x8000_0000)?;
            let up = self.or(near, k)?;
            keys[b] = self.sel(neg, flipped, up)?;
        }
        let all = self.u64c(0xffff_ffff)?;
        let tb = self.bool_ty()?;
        let (one, zero) = (self.u64c(1)?, self.u64c(0)?);
        // Sorted: the rank of a hit child is the number of hit children before it in a stable
        // sort by key.
        let mut ranks = [0; 4];
        for i in 0..4 {
            let mut rank = zero;
            for j in 0..4 {
                if j == i {
                    continue;
                }
                let before = if j < i {
                    self.b.u_less_than_equal(tb, None, keys[j], keys[i])
                } else {
                    self.b.u_less_than(tb, None, keys[j], keys[i])
                }
                .map_err(internal)?;
                let counts = self.land(hits[j], before)?;
                let inc = self.sel(counts, one, zero)?;
                rank = self.add(rank, inc)?;
            }
            ranks[i] = rank;
        }
        let mut out = [0; 4];
        for (k, o) in out.iter_mut().enumerate() {
            let mut sorted = all;
            for i in 0..4 {
                let at = self.eq(ranks[i], k as u64)?;
                let put = self.land(hits[i], at)?;
                sorted = self.sel(put, kids[i], sorted)?;
            }
            let slot = self.sel(hits[k], kids[k], all)?;
            *o = self.sel(sort, sorted, slot)?;
        }
        Ok(out)
    }

    /// The slab test of one box: (hit, entry distance).
    fn slab(&mut self, ray: &RayWords, b: &[Word; 6]) -> Result<(Word, Word), EmitError> {
        let mut near = self.u64c(0xff80_0000)?;
        let mut far = self.u64c(F32_INF)?;
        for a in 0..3 {
            let d0 = self.f32_op(FloatKind::Sub, b[a], ray.origin[a])?;
            let t0 = self.f32_op(FloatKind::Mul, d0, ray.inv[a])?;
            let d1 = self.f32_op(FloatKind::Sub, b[3 + a], ray.origin[a])?;
            let t1 = self.f32_op(FloatKind::Mul, d1, ray.inv[a])?;
            let lo = self.f32_op(FloatKind::Min(MinMaxKind::Num), t0, t1)?;
            let hi = self.f32_op(FloatKind::Max(MinMaxKind::Num), t0, t1)?;
            near = self.f32_op(FloatKind::Max(MinMaxKind::Num), near, lo)?;
            far = self.f32_op(FloatKind::Min(MinMaxKind::Num), far, hi)?;
        }
        let zero = self.u64c(0)?;
        let c0 = self.f32_cmp(Ord3::Le, near, far)?;
        let c1 = self.f32_cmp(Ord3::Ge, far, zero)?;
        let c2 = self.f32_cmp(Ord3::Le, near, ray.extent)?;
        let hit = self.land(c0, c1)?;
        let hit = self.land(hit, c2)?;
        Ok((hit, near))
    }

    /// The watertight triangle test: (hit, T, det).
    fn triangle(&mut self, ray: &RayWords, v: &[[Word; 3]; 3]) -> Result<(Word, Word, Word), EmitError> {
        let d = ray.dir;
        let mut ad = [0; 3];
        for c in 0..3 {
            ad[c] = self.and(d[c], 0x7fff_ffff)?;
        }
        let gt01 = self.f32_cmp(Ord3::Gt, ad[0], ad[1])?;
        let gt02 = self.f32_cmp(Ord3::Gt, ad[0], ad[2])?;
        let gt12 = self.f32_cmp(Ord3::Gt, ad[1], ad[2])?;
        let z0 = self.land(gt01, gt02)?;
        let n01 = self.lnot(gt01)?;
        let z1 = self.land(n01, gt12)?;
        let zero = self.u64c(0)?;
        let dz = self.pick(z0, z1, [d[0], d[1], d[2]])?;
        let neg = self.f32_cmp(Ord3::Lt, dz, zero)?;
        // (p[kx], p[ky], p[kz]) with kx, ky swapped for a negative direction[kz].
        let axes = |em: &mut Self, p: [Word; 3]| -> Result<[Word; 3], EmitError> {
            let z = em.pick(z0, z1, p)?;
            let a = em.pick(z0, z1, [p[1], p[2], p[0]])?;
            let b = em.pick(z0, z1, [p[2], p[0], p[1]])?;
            Ok([em.sel(neg, b, a)?, em.sel(neg, a, b)?, z])
        };
        let [dx, dy, dz] = axes(self, d)?;
        let sx = self.f32_div(dx, dz)?;
        let sy = self.f32_div(dy, dz)?;
        let one = self.u64c(F32_ONE)?;
        let sz = self.f32_div(one, dz)?;
        let mut rel = [[0; 3]; 3];
        for (r, p) in rel.iter_mut().zip(v) {
            let mut q = [0; 3];
            for c in 0..3 {
                q[c] = self.f32_op(FloatKind::Sub, p[c], ray.origin[c])?;
            }
            *r = axes(self, q)?;
        }
        let mut proj = [[0; 2]; 3];
        for (pr, p) in proj.iter_mut().zip(&rel) {
            let m = self.f32_op(FloatKind::Mul, sx, p[2])?;
            pr[0] = self.f32_op(FloatKind::Sub, p[0], m)?;
            let m = self.f32_op(FloatKind::Mul, sy, p[2])?;
            pr[1] = self.f32_op(FloatKind::Sub, p[1], m)?;
        }
        let [[ax, ay], [bx, by], [cx, cy]] = proj;
        let cross = |em: &mut Self, p: Word, q: Word, r: Word, s: Word| -> Result<Word, EmitError> {
            let l = em.f32_op(FloatKind::Mul, p, q)?;
            let rr = em.f32_op(FloatKind::Mul, r, s)?;
            em.f32_op(FloatKind::Sub, l, rr)
        };
        let u = cross(self, cx, by, cy, bx)?;
        let vv = cross(self, ax, cy, ay, cx)?;
        let w = cross(self, bx, ay, by, ax)?;
        let mut any_neg = self.bconst(false)?;
        let mut any_pos = self.bconst(false)?;
        for x in [u, vv, w] {
            let n = self.f32_cmp(Ord3::Lt, x, zero)?;
            let p = self.f32_cmp(Ord3::Gt, x, zero)?;
            any_neg = self.lor(any_neg, n)?;
            any_pos = self.lor(any_pos, p)?;
        }
        let mixed = self.land(any_neg, any_pos)?;
        let signs_ok = self.lnot(mixed)?;
        let uv = self.f32_op(FloatKind::Add, u, vv)?;
        let det = self.f32_op(FloatKind::Add, uv, w)?;
        // Non-zero and not NaN.
        let det_ok = self.f32_cmp(Ord3::Ne, det, zero)?;
        let mut terms = [0; 3];
        for (term, (x, p)) in terms.iter_mut().zip([u, vv, w].into_iter().zip(&rel)) {
            let s = self.f32_op(FloatKind::Mul, sz, p[2])?;
            *term = self.f32_op(FloatKind::Mul, x, s)?;
        }
        let t01 = self.f32_op(FloatKind::Add, terms[0], terms[1])?;
        let t = self.f32_op(FloatKind::Add, t01, terms[2])?;
        let ed = self.f32_op(FloatKind::Mul, ray.extent, det)?;
        let dneg = self.f32_cmp(Ord3::Lt, det, zero)?;
        let (a0, a1) = (self.f32_cmp(Ord3::Le, t, zero)?, self.f32_cmp(Ord3::Ge, t, ed)?);
        let ok_neg = self.land(a0, a1)?;
        let (b0, b1) = (self.f32_cmp(Ord3::Ge, t, zero)?, self.f32_cmp(Ord3::Le, t, ed)?);
        let ok_pos = self.land(b0, b1)?;
        let tb = self.bool_ty()?;
        let within = self.b.select(tb, None, dneg, ok_neg, ok_pos).map_err(internal)?;
        let hit = self.land(signs_ok, det_ok)?;
        let hit = self.land(hit, within)?;
        Ok((hit, t, det))
    }

    /// `p[k]` for the axis `k` given as "is 0" and "is 1" (else 2).
    fn pick(&mut self, z0: Word, z1: Word, p: [Word; 3]) -> Result<Word, EmitError> {
        let r = self.sel(z1, p[1], p[2])?;
        self.sel(z0, p[0], r)
    }

    /// One f32 operation of the model (f32 bits in u64 words).
    fn f32_op(&mut self, kind: FloatKind, a: Word, b: Word) -> Result<Word, EmitError> {
        let op = FloatOp { kind, mode: EXACT, fmz: false, relu: false, omod: Omod::None };
        self.float_elem(&op, FFmt::F32, &[a, b])
    }

    /// An ordered comparison of two f32 values (bits in u64 words), on their exact f64 values.
    fn f32_cmp(&mut self, c: Ord3, a: Word, b: Word) -> Result<Word, EmitError> {
        let (wa, wb) = (self.widen(FFmt::F32, a)?, self.widen(FFmt::F32, b)?);
        let (x, y) = (self.as_double(wa)?, self.as_double(wb)?);
        let tb = self.bool_ty()?;
        match c {
            Ord3::Lt => self.b.f_ord_less_than(tb, None, x, y),
            Ord3::Le => self.b.f_ord_less_than_equal(tb, None, x, y),
            Ord3::Gt => self.b.f_ord_greater_than(tb, None, x, y),
            Ord3::Ge => self.b.f_ord_greater_than_equal(tb, None, x, y),
            Ord3::Ne => self.b.f_ord_not_equal(tb, None, x, y),
        }
        .map_err(internal)
    }

    /// f16 bits (u64) to the f32 bits of the same value (exact: every f16 is an f32).
    fn f16_bits_to_f32(&mut self, h: Word) -> Result<Word, EmitError> {
        let w = self.widen(FFmt::F16, h)?;
        let e = self.shr(w, 52)?;
        let e = self.and(e, 0x7ff)?;
        let s = self.shr(w, 63)?;
        let s = self.shl(s, 31)?;
        let frac = self.and(w, (1 << 52) - 1)?;
        let frac = self.shr(frac, 29)?;
        let k = self.u64c(1023 - 127)?;
        let rebased = self.sub(e, k)?;
        let (is0, is_max) = (self.eq(e, 0)?, self.eq(e, 0x7ff)?);
        let e32 = self.sel_k(is_max, 0xff, rebased)?;
        let e32 = self.sel_k(is0, 0, e32)?;
        let e32 = self.shl(e32, 23)?;
        let r = self.or(s, e32)?;
        self.or(r, frac)
    }

    /// a / b for f32 bits (u64 words), correctly rounded to nearest even: the quotient of the
    /// 24-bit significands to 41 bits by a 64-bit integer division, its remainder as a sticky
    /// bit, made an exact f64 and rounded once.
    pub(super) fn f32_div(&mut self, a: Word, b: Word) -> Result<Word, EmitError> {
        let f = FFmt::F32;
        let (na, nb) = (self.is_nan_bits(f, a)?, self.is_nan_bits(f, b)?);
        let (ma, mb) = (self.and(a, 0x7fff_ffff)?, self.and(b, 0x7fff_ffff)?);
        let (za, zb) = (self.eq(ma, 0)?, self.eq(mb, 0)?);
        let (ia, ib) = (self.eq(ma, F32_INF)?, self.eq(mb, F32_INF)?);
        let x = self.b.bitwise_xor(self.t_u64, None, a, b).map_err(internal)?;
        let s = self.shr(x, 31)?;
        let s = self.and(s, 1)?;
        let sign = self.shl(s, 63)?;
        let (wa, wb) = (self.widen(f, a)?, self.widen(f, b)?);
        let sig = |em: &mut Self, w: Word| -> Result<(Word, Word), EmitError> {
            let e = em.shr(w, 52)?;
            let e = em.and(e, 0x7ff)?;
            let m = em.and(w, (1 << 52) - 1)?;
            let h = em.u64c(1 << 52)?;
            let m = em.or(m, h)?;
            Ok((e, em.shr(m, 29)?))
        };
        let ((ea, sa), (eb, sb)) = (sig(self, wa)?, sig(self, wb)?);
        // Both significands have their hidden bit set (a zero operand too, whose quotient
        // is replaced below), so the divisor is never 0.
        let num = self.shl(sa, 40)?;
        let q = self.b.u_div(self.t_u64, None, num, sb).map_err(internal)?;
        let r = self.b.u_mod(self.t_u64, None, num, sb).map_err(internal)?;
        let r0 = self.eq(r, 0)?;
        let (one, zero) = (self.u64c(1)?, self.u64c(0)?);
        let sticky = self.sel(r0, zero, one)?;
        let q2 = self.shl(q, 1)?;
        let q2 = self.or(q2, sticky)?;
        // q2 × 2^(ea - eb - 41) as f64 bits.
        let msb = self.msb64(q2)?;
        let k52 = self.u64c(52)?;
        let up = self.sub(k52, msb)?;
        let frac = self.b.shift_left_logical(self.t_u64, None, q2, up).map_err(internal)?;
        let frac = self.and(frac, (1 << 52) - 1)?;
        let e = self.sub(ea, eb)?;
        let e = self.add(e, msb)?;
        let k = self.u64c(1023 - 41)?;
        let e = self.add(e, k)?;
        let e = self.shl(e, 52)?;
        let d = self.or(e, frac)?;
        let d = self.or(d, sign)?;
        // Special operands as f64 values `result` passes through.
        let n0 = self.lor(na, nb)?;
        let zz = self.land(za, zb)?;
        let ii = self.land(ia, ib)?;
        let n1 = self.lor(zz, ii)?;
        let nan = self.lor(n0, n1)?;
        let to_inf = self.lor(ia, zb)?;
        let to_zero = self.lor(za, ib)?;
        let inf = self.u64c(0x7ff0_0000_0000_0000)?;
        let sinf = self.or(sign, inf)?;
        let d = self.sel(to_zero, sign, d)?;
        let d = self.sel(to_inf, sinf, d)?;
        let d = self.sel_k(nan, 0x7ff8_0000_0000_0000, d)?;
        self.result(f, &EXACT, d, Err64::Exact, &[a, b], None)
    }
}
