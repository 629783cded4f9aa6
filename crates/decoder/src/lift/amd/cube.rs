//! Cube-map coordinates: `v_cubeid_f32`, `v_cubesc_f32`, `v_cubetc_f32`, `v_cubema_f32` (VOP3,
//! sources x, y, z with abs / neg, clamp and omod) to the IR's cube-map float ops, whose table
//! ([`CubeKind`]) is the ISA guide's definition: the major axis z when |z| >= |x| and |z| >= |y|,
//! else y when |y| >= |x|, else x; face 4/5, 2/3, 0/1 (the odd face for a negative major
//! component); sc = ±x, x, ∓z; tc = -y, ±z, -y; ma = 2 × the major component.
//! The inputs are flushed under the f32 denormal mode like other f32 VALU ops; whether the
//! hardware flushes them is not measured (no RDNA2 vector covers these instructions).

use super::lanes::Valu;
use super::vfloat::{fdef, fsrc, mode, omod};
use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::Modifier;
use isabridge_ir::ops::float::{CubeKind, FloatKind, FloatOp};
use isabridge_ir::soft::FFmt;
use isabridge_ir::{Scalar, Type};

/// Lift a cube-map instruction; None when `name` is not one.
pub(super) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    let kind = match name {
        "V_CUBEID_F32" => CubeKind::Face,
        "V_CUBESC_F32" => CubeKind::S,
        "V_CUBETC_F32" => CubeKind::T,
        "V_CUBEMA_F32" => CubeKind::Major2,
        _ => return None,
    };
    Some((|| {
        let valu = Valu::new(cx, at)?;
        let d = *at.def().ok_or_else(|| cx.unsupported(at, "no destination"))?;
        let srcs: Vec<_> = at.srcs().into_iter().copied().collect();
        if srcs.len() < 3 {
            return Err(cx.unsupported(at, "cube-map operands"));
        }
        let mut s = Vec::new();
        for (i, o) in srcs.iter().take(3).enumerate() {
            s.push(fsrc(cx, &valu, at, o, i, FFmt::F32)?);
        }
        let op = FloatOp {
            kind: FloatKind::Cube(kind),
            mode: mode(cx, FFmt::F32, at.has(Modifier::Clamp)),
            fmz: false,
            relu: false,
            omod: omod(cx, at, FFmt::F32),
        };
        let r = cx.b().float(op, Type::S(Scalar::F(FFmt::F32)), &s);
        fdef(cx, &valu, at, &d, r, FFmt::F32)
    })())
}
