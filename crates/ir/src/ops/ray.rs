//! Ray / BVH-node intersection through a 128-bit node-memory descriptor: one node of a bounding
//! volume hierarchy is read from global memory and tested against one ray.
//!
//! Operands, in order: the descriptor as two i64 values (words 0-1, words 2-3), the node pointer
//! (i64), the ray extent, origin x, y, z, direction x, y, z and inverse direction x, y, z (f32),
//! then optionally the lane mask. The op yields dword `dword` (0..=3) of the four-dword result.
//!
//! Descriptor fields read: the node base address is word 0 << 8 plus word 1 bits 0..7 << 40;
//! word 1 bit 31 enables sorting of box children; words 2 and 3 bits 0..9 give the last node
//! index `last` (42 bits). The node pointer's bits 0..2 give the node type, the rest
//! `index = pointer >> 3` names the node at `base + 64 × index`. A node occupies 64-byte slots
//! `index ..= index + span - 1` (span 2 for a 32-bit box node, else 1); a node whose last slot is
//! past `last`, and a node of type 7, yields four dwords of all ones.
//!
//! | type | node | result |
//! |---|---|---|
//! | 0, 1 | triangle: vertices v0..v3 (f32 x, y, z) in dwords 0..11, id in dword 15; type 0 tests (v0, v1, v2), type 1 (v1, v3, v2) | t numerator, t denominator, id, 1 on a hit; on a miss +inf, 1.0, id, 0 |
//! | 4 | box16: children in dwords 0..3, four boxes of six f16 (min x, y, z, max x, y, z) packed two a dword in dwords 4..15 | the children whose box is hit, nearest first, then all ones |
//! | 5 | box32: children in dwords 0..3, four boxes of six f32 in dwords 4..27 | as box16 |
//!
//! Box test (per axis, with `f32` min and max as IEEE minNum / maxNum): `t0 = (min - o) × inv`,
//! `t1 = (max - o) × inv`, `near = max over axes of min(t0, t1)`, `far = min over axes of
//! max(t0, t1)`; the box is hit when `near <= far`, `far >= 0` and `near <= extent`. With sorting
//! on, hit children are ordered by `near` (ties, -0 and +0 included, keep node order); without it they keep their
//! slots and missed slots read all ones.
//!
//! Triangle test (watertight form): the axis `kz` of the largest |direction| component, `kx` and
//! `ky` the next two (swapped when `direction[kz]` < 0); `Sx = dx / dz`, `Sy = dy / dz`, `Sz = 1 /
//! dz` along those axes; per vertex `A = v - o`, `Ax = A[kx] - Sx·A[kz]`, `Ay = A[ky] - Sy·A[kz]`;
//! `U = Cx·By - Cy·Bx`, `V = Ax·Cy - Ay·Cx`, `W = Bx·Ay - By·Ax`; a hit needs U, V, W of one sign
//! (zeros allowed) and `det = U + V + W` non-zero; `T = U·(Sz·A[kz]) + V·(Sz·B[kz]) + W·(Sz·C[kz])`; the hit
//! must lie in `[0, extent]`: `0 <= T/det <= extent` tested without dividing (T and det of one sign,
//! |T| <= extent·|det|).
//!
//! Precision: every step is one f32 operation rounded to nearest even, no fused multiply-add,
//! denormals kept. This is the IR's definition; it equals the hardware wherever the operands and
//! every intermediate are exact (the RDNA2 vectors measure only such cases).

use crate::soft::{convert, FFmt, FloatMode, NanRule, Overflow, Round, Tininess};

/// Which dword of an intersection result an op yields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RayOp {
    /// Result dword, 0..=3.
    pub dword: u8,
}

/// A ray in f32.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    /// Largest ray parameter a hit may have.
    pub extent: f32,
    /// Origin.
    pub origin: [f32; 3],
    /// Direction.
    pub dir: [f32; 3],
    /// Inverse direction (per component 1 / dir, as the program computed it).
    pub inv: [f32; 3],
}

/// The descriptor fields a node fetch reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RayDesc {
    /// Byte address of node 0 (256-byte aligned).
    pub base: u64,
    /// Sort box children by distance.
    pub sort: bool,
    /// Index of the last node slot that may be read.
    pub last: u64,
}

/// Why an intersection cannot be computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RayError {
    /// Reading node memory failed at this byte address.
    Memory(u64),
    /// A node type whose behaviour the IR does not define.
    NodeType(u8),
}

/// All ones in every dword: no hit, culled, or a node that is not read.
pub const MISS: [u32; 4] = [u32::MAX; 4];

impl RayDesc {
    /// Read the fields from the descriptor's four words.
    pub fn from_words(w: [u32; 4]) -> RayDesc {
        RayDesc {
            base: (w[0] as u64) << 8 | ((w[1] & 0xff) as u64) << 40,
            sort: w[1] >> 31 != 0,
            last: w[2] as u64 | ((w[3] & 0x3ff) as u64) << 32,
        }
    }
}

impl RayOp {
    /// Number of operands (without the optional mask).
    pub const fn arity(self) -> usize {
        13
    }
    /// Text mnemonic: `ray.node.2`.
    pub fn mnemonic(&self) -> String {
        format!("ray.node.{}", self.dword)
    }
    /// Parse a mnemonic split at dots.
    pub fn parse(base: &str, mods: &[&str]) -> Option<RayOp> {
        match (base, mods) {
            ("ray", ["node", d]) => {
                let dword: u8 = d.parse().ok()?;
                (dword < 4).then_some(RayOp { dword })
            }
            _ => None,
        }
    }
}

fn f16_to_f32(h: u16) -> f32 {
    let exact = FloatMode { round: Round::Rn, ftz_in: false, ftz_out: false, sat: false, nan: NanRule::Propagate, tininess: Tininess::AfterRounding };
    f32::from_bits(convert(FFmt::F16, FFmt::F32, &exact, Overflow::Ieee, h as u64) as u32)
}

/// Intersect `ray` with the node `pointer` names; `read` fetches the dword at a byte address.
pub fn intersect(
    desc: RayDesc,
    pointer: u64,
    ray: &Ray,
    read: &mut dyn FnMut(u64) -> Option<u32>,
) -> Result<[u32; 4], RayError> {
    let ty = (pointer & 7) as u8;
    let index = pointer >> 3;
    let span = if ty == 5 { 2 } else { 1 };
    if ty == 7 || index.checked_add(span - 1).is_none_or(|end| end > desc.last) {
        return Ok(MISS);
    }
    let addr = desc.base.wrapping_add(index.wrapping_mul(64)) & ((1 << 48) - 1);
    let mut dw = |k: u64| -> Result<u32, RayError> {
        let a = addr + 4 * k;
        read(a).ok_or(RayError::Memory(a))
    };
    match ty {
        0 | 1 => {
            let mut v = [[0f32; 3]; 4];
            for (i, vert) in v.iter_mut().enumerate() {
                for (c, x) in vert.iter_mut().enumerate() {
                    *x = f32::from_bits(dw((3 * i + c) as u64)?);
                }
            }
            let id = dw(15)?;
            let tri = if ty == 0 { [v[0], v[1], v[2]] } else { [v[1], v[3], v[2]] };
            Ok(match triangle(ray, &tri) {
                Some((t, det)) => [t.to_bits(), det.to_bits(), id, 1],
                None => [f32::INFINITY.to_bits(), 1f32.to_bits(), id, 0],
            })
        }
        4 | 5 => {
            let mut kids = [0u32; 4];
            for (k, c) in kids.iter_mut().enumerate() {
                *c = dw(k as u64)?;
            }
            let mut boxes = [[0f32; 6]; 4];
            for (b, bx) in boxes.iter_mut().enumerate() {
                if ty == 5 {
                    for (c, x) in bx.iter_mut().enumerate() {
                        *x = f32::from_bits(dw((4 + 6 * b + c) as u64)?);
                    }
                } else {
                    for p in 0..3 {
                        let w = dw((4 + 3 * b + p) as u64)?;
                        bx[2 * p] = f16_to_f32(w as u16);
                        bx[2 * p + 1] = f16_to_f32((w >> 16) as u16);
                    }
                }
            }
            let near: Vec<Option<f32>> = boxes.iter().map(|b| slab(ray, b)).collect();
            let mut out = MISS;
            if desc.sort {
                let mut hits: Vec<(f32, u32)> =
                    near.iter().zip(kids).filter_map(|(n, c)| n.map(|n| (n, c))).collect();
                // `near` is never NaN; -0 and +0 compare equal (minNum / maxNum leave the sign
                // of a zero open, so the order must not depend on it).
                hits.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal));
                for (o, (_, c)) in out.iter_mut().zip(hits) {
                    *o = c;
                }
            } else {
                for ((o, n), c) in out.iter_mut().zip(&near).zip(kids) {
                    if n.is_some() {
                        *o = c;
                    }
                }
            }
            Ok(out)
        }
        t => Err(RayError::NodeType(t)),
    }
}

/// The entry distance of a box hit, None on a miss.
fn slab(ray: &Ray, b: &[f32; 6]) -> Option<f32> {
    let mut near = f32::NEG_INFINITY;
    let mut far = f32::INFINITY;
    for a in 0..3 {
        let t0 = (b[a] - ray.origin[a]) * ray.inv[a];
        let t1 = (b[3 + a] - ray.origin[a]) * ray.inv[a];
        near = near.max(t0.min(t1));
        far = far.min(t0.max(t1));
    }
    (near <= far && far >= 0.0 && near <= ray.extent).then_some(near)
}

/// The watertight triangle test: (T, det) of a hit within the extent.
fn triangle(ray: &Ray, v: &[[f32; 3]; 3]) -> Option<(f32, f32)> {
    let d = ray.dir;
    let kz = if d[0].abs() > d[1].abs() {
        if d[0].abs() > d[2].abs() {
            0
        } else {
            2
        }
    } else if d[1].abs() > d[2].abs() {
        1
    } else {
        2
    };
    let (mut kx, mut ky) = ((kz + 1) % 3, (kz + 2) % 3);
    if d[kz] < 0.0 {
        std::mem::swap(&mut kx, &mut ky);
    }
    let sx = d[kx] / d[kz];
    let sy = d[ky] / d[kz];
    let sz = 1.0 / d[kz];
    let rel = |p: &[f32; 3]| [p[0] - ray.origin[0], p[1] - ray.origin[1], p[2] - ray.origin[2]];
    let (a, b, c) = (rel(&v[0]), rel(&v[1]), rel(&v[2]));
    let proj = |p: &[f32; 3]| (p[kx] - sx * p[kz], p[ky] - sy * p[kz]);
    let ((ax, ay), (bx, by), (cx, cy)) = (proj(&a), proj(&b), proj(&c));
    let u = cx * by - cy * bx;
    let vv = ax * cy - ay * cx;
    let w = bx * ay - by * ax;
    if (u < 0.0 || vv < 0.0 || w < 0.0) && (u > 0.0 || vv > 0.0 || w > 0.0) {
        return None;
    }
    let det = u + vv + w;
    if det == 0.0 || det.is_nan() {
        return None;
    }
    let t = u * (sz * a[kz]) + vv * (sz * b[kz]) + w * (sz * c[kz]);
    let ok = if det < 0.0 { t <= 0.0 && t >= ray.extent * det } else { t >= 0.0 && t <= ray.extent * det };
    ok.then_some((t, det))
}
