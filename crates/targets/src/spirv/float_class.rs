//! `fclass` (`ConvOp::Class`): a float's IEEE 754 class as a one-hot integer
//! (`soft::class`: bit 0 signalling NaN, 1 quiet NaN, 2 -inf, 3 -normal, 4 -subnormal, 5 -0,
//! 6 +0, 7 +subnormal, 8 +normal, 9 +inf), decided on the format's bits; subnormals are never
//! flushed.

use super::emit::{unsupported, Em, EmitError};
use isabridge_ir::ir::Value;
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::soft::FFmt;
use isabridge_ir::types::{Scalar, Type};
use isabridge_ir::Op;
use rspirv::spirv::Word;

impl Em<'_> {
    /// `fclass` of `x` (a scalar float of type `from`) as an integer of type `to`.
    pub(super) fn fclass(&mut self, v: Value, from: Type, to: Type, x: Word) -> Result<Word, EmitError> {
        let text = Op::Conv(ConvOp::Class).mnemonic();
        let f = match from {
            Type::S(Scalar::F(f @ (FFmt::F16 | FFmt::BF16 | FFmt::F32 | FFmt::F64))) if to.is_int() => f,
            _ => return Err(unsupported(self.cur_ir, v.0, text, "fclass of other than a scalar f16, bf16, f32 or f64 to an integer")),
        };
        let e = self.elem_in(f, x, false)?;
        let s = self.and(e, f.sign_mask())?;
        let pos = self.eq(s, 0)?;
        let mag = self.and(e, f.all_mask() >> 1)?;
        let by_sign = |em: &mut Self, neg: u32, plus: u32| -> Result<Word, EmitError> {
            let (n, p) = (em.u64c(1 << neg)?, em.u64c(1 << plus)?);
            em.sel(pos, p, n)
        };
        let normal = by_sign(self, 3, 8)?;
        let sub = by_sign(self, 4, 7)?;
        let zero = by_sign(self, 5, 6)?;
        let inf = by_sign(self, 2, 9)?;
        let top = self.shr(mag, f.man_bits() as u64)?;
        let is_sub = self.eq(top, 0)?;
        let is_zero = self.eq(mag, 0)?;
        let is_inf = self.eq(mag, f.inf())?;
        let is_nan = self.is_nan_bits(f, e)?;
        let q = self.and(e, 1 << (f.man_bits() - 1))?;
        let signalling = self.eq(q, 0)?;
        let nan = self.u64c(2)?;
        let nan = self.sel_k(signalling, 1, nan)?;
        let r = self.sel(is_sub, sub, normal)?;
        let r = self.sel(is_zero, zero, r)?;
        let r = self.sel(is_inf, inf, r)?;
        let r = self.sel(is_nan, nan, r)?;
        let r = if to.bits() >= 64 { r } else { self.and(r, (1 << to.bits()) - 1)? };
        self.word_to_value(r, to)
    }
}
