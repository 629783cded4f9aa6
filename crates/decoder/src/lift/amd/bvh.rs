//! Ray / BVH-node intersection (`image_bvh_intersect_ray`, `image_bvh64_intersect_ray`) to the
//! IR's `ray.node`: one op per result dword, under EXEC.
//!
//! Address dwords, in order (NSA forms list them one register each, the others in one range):
//! the node pointer (one dword, or two for the 64-bit form), the ray extent, origin x, y, z, then
//! direction x, y, z and inverse direction x, y, z as f32; with `a16` the last six are f16
//! packed two a dword ([dir x | dir y], [dir z | inv x], [inv y | inv z], low half first: the
//! layout RDNA2 Bvh64IntersectRay's a16 forms read from the same ray words and answer alike).
//! The f16 values convert to f32 exactly.

use super::{At, Cx};
use crate::lift::LiftError;
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::ray::RayOp;
use isabridge_ir::ops::Op;
use isabridge_ir::soft::{FFmt, FloatMode, NanRule, Round, Tininess};
use isabridge_ir::{Type, Value};

/// Lift a BVH instruction; None when `name` is not one.
pub(super) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    let wide = match name {
        "IMAGE_BVH_INTERSECT_RAY" => false,
        "IMAGE_BVH64_INTERSECT_RAY" => true,
        _ => return None,
    };
    Some(intersect(cx, at, wide))
}

/// Every address dword of an image instruction, in order (VADDR's range, then NSA1, NSA2 ...).
pub(super) fn address_dwords(cx: &mut Cx, at: &At) -> Result<Vec<Value>, LiftError> {
    let mut out = Vec::new();
    let ops: Vec<_> = at
        .inst
        .operands
        .iter()
        .filter(|o| o.field == "VADDR" || o.field.starts_with("NSA"))
        .copied()
        .collect();
    for op in ops {
        let n = match op.kind {
            crate::operand::OperandKind::Reg(r) => r.count,
            _ => return Err(cx.unsupported(at, "image address that is not a VGPR")),
        };
        for k in 0..n {
            out.push(cx.src32(at, &op, k)?);
        }
    }
    Ok(out)
}

fn intersect(cx: &mut Cx, at: &At, wide: bool) -> Result<(), LiftError> {
    let a16 = at.inst.named("A16").unwrap_or(0) != 0;
    let data = at.field("VDATA").copied().ok_or_else(|| cx.unsupported(at, "no VDATA"))?;
    let rsrc = at.field("SRSRC").copied().ok_or_else(|| cx.unsupported(at, "no SRSRC"))?;
    let addr = address_dwords(cx, at)?;
    let want = wide as usize + if a16 { 8 } else { 11 };
    if addr.len() != want {
        return Err(cx.unsupported(at, "address dword count differs from the form's"));
    }
    let mut d = Vec::new();
    for k in 0..4 {
        d.push(cx.src32(at, &rsrc, k)?);
    }
    let desc_lo = cx.join64(d[0], d[1]);
    let desc_hi = cx.join64(d[2], d[3]);
    let zero = cx.k32(0);
    let (pointer, rest) = if wide {
        (cx.join64(addr[0], addr[1]), &addr[2..])
    } else {
        (cx.join64(addr[0], zero), &addr[1..])
    };
    let f32t = Type::F32;
    let mut ray: Vec<Value> = rest[..4].iter().map(|v| cx.b().bitcast(f32t, *v)).collect();
    if a16 {
        let exact = FloatMode { round: Round::Rn, ftz_in: false, ftz_out: false, sat: false, nan: NanRule::Propagate, tininess: Tininess::AfterRounding };
        for w in &rest[4..7] {
            let p = cx.b().bitcast(Type::V(isabridge_ir::Scalar::F(FFmt::F16), 2), *w);
            for half in 0..2 {
                let h = cx.b().extract(Type::F16, p, half);
                let x = cx.b().conv(ConvOp::FToF { mode: exact, satfinite: false }, f32t, h);
                ray.push(x);
            }
        }
    } else {
        for w in &rest[4..10] {
            let x = cx.b().bitcast(f32t, *w);
            ray.push(x);
        }
    }
    let exec = cx.exec();
    let mut args = vec![desc_lo, desc_hi, pointer];
    args.extend(ray);
    args.push(exec);
    for k in 0..4u8 {
        let r = cx.b().ins(Op::Ray(RayOp { dword: k }), &args, Some(Type::I32));
        cx.def_v32(at, &data, k as u16, r, exec)?;
    }
    Ok(())
}
