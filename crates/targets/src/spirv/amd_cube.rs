//! The cube-map ops `fcubeid`, `fcubesc`, `fcubetc` and `fcubema` (`ops::float::CubeKind`) on
//! format bits: the major axis is chosen by comparing magnitude bits as integers (the same
//! order as the values', and a NaN operand makes the comparison false as `soft::compare`
//! does), the face number is a constant of the format, s and t are sign flips, and twice the
//! major axis is one rounded addition (`float_elem`'s add, with the op's rounding, saturation
//! and flushing).

use super::emit::{unsupported, Em, EmitError};
use isabridge_ir::ir::Value;
use isabridge_ir::ops::float::{CubeKind, FloatKind, FloatOp, Omod};
use isabridge_ir::soft::{self, FFmt, FloatMode, Round};
use isabridge_ir::types::{Scalar, Type};
use isabridge_ir::Op;
use rspirv::spirv::Word;

/// The cube-map table's picks for one direction (`ops::float::CubeKind`).
pub(super) struct CubeFrame {
    /// The face, 0-5 (u64): 2 × axis, plus 1 when the major component is below 0.
    pub face: Word,
    /// s and t before the divide by the major component (format bits, u64).
    pub s: Word,
    pub t: Word,
    /// The major component (format bits, u64).
    pub major: Word,
}

impl Em<'_> {
    /// The cube-map table on format bits x, y, z (u64, already flushed as the op wants).
    pub(super) fn cube_frame(&mut self, f: FFmt, x: Word, y: Word, z: Word) -> Result<CubeFrame, EmitError> {
        let neg = |em: &mut Self, w: Word| -> Result<Word, EmitError> {
            let s = em.u64c(f.sign_mask())?;
            em.b.bitwise_xor(em.t_u64, None, w, s).map_err(super::emit::internal)
        };
        let (zx, zy) = (self.cube_ge_abs(f, z, x)?, self.cube_ge_abs(f, z, y)?);
        let on_z = self.land(zx, zy)?;
        let on_y = self.cube_ge_abs(f, y, x)?;
        let (nx, ny, nz) = (self.cube_below0(f, x)?, self.cube_below0(f, y)?, self.cube_below0(f, z)?);
        let face = |em: &mut Self, n: Word, k: u64| -> Result<Word, EmitError> {
            let (a, b) = (em.u64c(k)?, em.u64c(k + 1)?);
            em.sel(n, b, a)
        };
        let (fx, fy, fz) = (face(self, nx, 0)?, face(self, ny, 2)?, face(self, nz, 4)?);
        let r = self.sel(on_y, fy, fx)?;
        let face = self.sel(on_z, fz, r)?;
        let (mx, mz) = (neg(self, x)?, neg(self, z)?);
        let sz = self.sel(nz, mx, x)?;
        let sx = self.sel(nx, z, mz)?;
        let r = self.sel(on_y, x, sx)?;
        let s = self.sel(on_z, sz, r)?;
        let my = neg(self, y)?;
        let ty = self.sel(ny, mz, z)?;
        let r = self.sel(on_y, ty, my)?;
        let t = self.sel(on_z, my, r)?;
        let r = self.sel(on_y, y, x)?;
        let major = self.sel(on_z, z, r)?;
        Ok(CubeFrame { face, s, t, major })
    }

    /// `|a| >= |b|` for format bits `a` and `b` (u64), false when either is a NaN.
    fn cube_ge_abs(&mut self, f: FFmt, a: Word, b: Word) -> Result<Word, EmitError> {
        let (ma, mb) = (self.and(a, f.all_mask() >> 1)?, self.and(b, f.all_mask() >> 1)?);
        let tb = self.bool_ty()?;
        let ge = self.b.u_greater_than_equal(tb, None, ma, mb).map_err(super::emit::internal)?;
        let (na, nb) = (self.is_nan_bits(f, a)?, self.is_nan_bits(f, b)?);
        let nan = self.lor(na, nb)?;
        let num = self.lnot(nan)?;
        self.land(ge, num)
    }

    /// Whether format bits `x` (u64) are strictly below zero (not -0, not a NaN).
    fn cube_below0(&mut self, f: FFmt, x: Word) -> Result<Word, EmitError> {
        let s = self.and(x, f.sign_mask())?;
        let pos = self.eq(s, 0)?;
        let mag = self.and(x, f.all_mask() >> 1)?;
        let zero = self.eq(mag, 0)?;
        let isn = self.is_nan_bits(f, x)?;
        let not_neg = self.lor(pos, zero)?;
        let not_neg = self.lor(not_neg, isn)?;
        self.lnot(not_neg)
    }

    /// A cube-map op of result type `t` (a scalar f16 or f32) on the operands `a` (x, y, z).
    pub(super) fn cube(&mut self, op: &FloatOp, kind: CubeKind, v: Value, t: Type, at: &[Type], a: &[Word]) -> Result<Word, EmitError> {
        let text = Op::Float(*op).mnemonic();
        let f = match t {
            Type::S(Scalar::F(f @ (FFmt::F16 | FFmt::F32))) => f,
            _ => return Err(unsupported(self.cur_ir, v.0, text, "cube-map ops on other than scalar f16 and f32")),
        };
        if op.fmz || op.relu || op.omod != Omod::None || at.len() != 3 || at.iter().any(|&x| x != t) {
            return Err(unsupported(self.cur_ir, v.0, text, "cube-map ops with FMZ, ReLU, an output modifier or other operand types"));
        }
        let m = op.mode;
        let mut e = [0; 3];
        for (d, &x) in e.iter_mut().zip(a) {
            *d = self.elem_in(f, x, m.ftz_in)?;
        }
        let [x, y, z] = e;
        let fr = self.cube_frame(f, x, y, z)?;
        let r = match kind {
            CubeKind::Face => {
                // The face number as a float of the format.
                let mut r = self.u64c(0)?;
                for n in 1..6u64 {
                    let k = self.u64c(soft::from_int(f, &FloatMode::nv(Round::Rn), n, 32, false))?;
                    let is = self.eq(fr.face, n)?;
                    r = self.sel(is, k, r)?;
                }
                r
            }
            CubeKind::S => fr.s,
            CubeKind::T => fr.t,
            CubeKind::Major2 => {
                let add = FloatOp { kind: FloatKind::Add, mode: FloatMode { ftz_in: false, ..m }, fmz: false, relu: false, omod: Omod::None };
                self.float_elem(&add, f, &[fr.major, fr.major])?
            }
        };
        let r = if m.ftz_out { self.flush_bits(f, r)? } else { r };
        self.elem_out(f, r)
    }
}
