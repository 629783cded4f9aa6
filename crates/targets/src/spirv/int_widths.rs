//! Integer operations on widths other than 32 bits beyond SPIR-V's own arithmetic, as
//! `isabridge_ir::ops::int` defines them (`IntOp::eval` on the width): on i8 and i16 high
//! halves, multiply-add, saturating add and subtract, population count, leading zeros and bit
//! reverse, each in 32-bit arithmetic on the zero- or sign-extended operands (Vulkan allows the
//! bit instructions on 32-bit integers only), then truncated; on i64 population count, leading
//! zeros and bit reverse from the two 32-bit halves.

use super::emit::{internal, Em, EmitError};
use isabridge_ir::ops::int::{IntOp, Overflow};
use isabridge_ir::types::Type;
use rspirv::dr::Operand;
use rspirv::spirv::Word;

const GLSL_FIND_UMSB: u32 = 75;

impl Em<'_> {
    /// `x` of narrow type `t` extended to i32 (sign-extended when `signed`).
    fn widen32(&mut self, x: Word, signed: bool) -> Result<Word, EmitError> {
        if signed {
            self.b.s_convert(self.t_u32, None, x)
        } else {
            self.b.u_convert(self.t_u32, None, x)
        }
        .map_err(internal)
    }

    /// An i8, i16 or i64 operation outside the basic set, or `None` when `op` is not one of
    /// these on type `t`.
    pub(super) fn int_width_extra(&mut self, op: IntOp, t: Type, a: &[Word]) -> Result<Option<Word>, EmitError> {
        if t == Type::I64 {
            return self.int64_bits_op(op, a[0]);
        }
        if !matches!(t, Type::I8 | Type::I16) {
            return Ok(None);
        }
        let bits = t.bits();
        let ty = self.ty(t)?;
        let u32t = self.t_u32;
        let k = |em: &mut Self, x: u64| em.konst(Type::I32, x & 0xffff_ffff);
        let r32 = match op {
            IntOp::MadLo => {
                let p = self.b.i_mul(ty, None, a[0], a[1]).map_err(internal)?;
                return self.b.i_add(ty, None, p, a[2]).map(Some).map_err(internal);
            }
            IntOp::MulHi(s) | IntOp::MadHi(s) => {
                // The full product fits 32 bits (signed: in i32; unsigned: below 2^32).
                let (x, y) = (self.widen32(a[0], s)?, self.widen32(a[1], s)?);
                let p = self.b.i_mul(u32t, None, x, y).map_err(internal)?;
                let sh = k(self, bits as u64)?;
                let hi = self.b.shift_right_logical(u32t, None, p, sh).map_err(internal)?;
                let hi = self.b.u_convert(ty, None, hi).map_err(internal)?;
                return if matches!(op, IntOp::MadHi(_)) { self.b.i_add(ty, None, hi, a[2]) } else { Ok(hi) }.map(Some).map_err(internal);
            }
            IntOp::Add(o) | IntOp::Sub(o) if o != Overflow::Wrap => {
                let signed = o == Overflow::SatS;
                let (x, y) = (self.widen32(a[0], signed)?, self.widen32(a[1], signed)?);
                let r = if matches!(op, IntOp::Add(_)) { self.b.i_add(u32t, None, x, y) } else { self.b.i_sub(u32t, None, x, y) }.map_err(internal)?;
                // The exact result lies in [-2^bits, 2^(bits+1)): a signed clamp is exact.
                let (lo, hi) = if signed { (-(1i64 << (bits - 1)) as u64, (1u64 << (bits - 1)) - 1) } else { (0, (1u64 << bits) - 1) };
                let (lo, hi) = (k(self, lo)?, k(self, hi)?);
                let tb = self.ty(Type::B1)?;
                let under = self.b.s_less_than(tb, None, r, lo).map_err(internal)?;
                let over = self.b.s_greater_than(tb, None, r, hi).map_err(internal)?;
                let r = self.b.select(u32t, None, under, lo, r).map_err(internal)?;
                self.b.select(u32t, None, over, hi, r).map_err(internal)?
            }
            IntOp::Popc => {
                let x = self.widen32(a[0], false)?;
                self.b.bit_count(u32t, None, x).map_err(internal)?
            }
            IntOp::Brev => {
                let x = self.widen32(a[0], false)?;
                let r = self.b.bit_reverse(u32t, None, x).map_err(internal)?;
                let sh = k(self, 32 - bits as u64)?;
                self.b.shift_right_logical(u32t, None, r, sh).map_err(internal)?
            }
            IntOp::Clz => {
                // FindUMsb(0) is -1: (bits - 1) - (-1) = bits.
                let x = self.widen32(a[0], false)?;
                let set = self.glsl_import();
                let msb = self.b.ext_inst(u32t, None, set, GLSL_FIND_UMSB, [Operand::IdRef(x)]).map_err(internal)?;
                let top = k(self, bits as u64 - 1)?;
                self.b.i_sub(u32t, None, top, msb).map_err(internal)?
            }
            _ => return Ok(None),
        };
        self.b.u_convert(ty, None, r32).map(Some).map_err(internal)
    }

    /// Population count, leading zeros or bit reverse of the i64 `x` from its 32-bit halves,
    /// or `None` for another operation.
    fn int64_bits_op(&mut self, op: IntOp, x: Word) -> Result<Option<Word>, EmitError> {
        if !matches!(op, IntOp::Popc | IntOp::Clz | IntOp::Brev) {
            return Ok(None);
        }
        let (u32t, u64t) = (self.t_u32, self.t_u64);
        let k32 = self.konst(Type::I64, 32)?;
        let lo = self.b.u_convert(u32t, None, x).map_err(internal)?;
        let hi = self.b.shift_right_logical(u64t, None, x, k32).map_err(internal)?;
        let hi = self.b.u_convert(u32t, None, hi).map_err(internal)?;
        let r = match op {
            IntOp::Popc => {
                let (pl, ph) = (self.b.bit_count(u32t, None, lo).map_err(internal)?, self.b.bit_count(u32t, None, hi).map_err(internal)?);
                let n = self.b.i_add(u32t, None, pl, ph).map_err(internal)?;
                self.b.u_convert(u64t, None, n).map_err(internal)?
            }
            IntOp::Brev => {
                // The reversed low half becomes the high half.
                let (rl, rh) = (self.b.bit_reverse(u32t, None, lo).map_err(internal)?, self.b.bit_reverse(u32t, None, hi).map_err(internal)?);
                let (rl, rh) = (self.b.u_convert(u64t, None, rl).map_err(internal)?, self.b.u_convert(u64t, None, rh).map_err(internal)?);
                let top = self.b.shift_left_logical(u64t, None, rl, k32).map_err(internal)?;
                self.b.bitwise_or(u64t, None, top, rh).map_err(internal)?
            }
            _ => {
                // FindUMsb(0) is -1: 31 - (-1) = 32 leading zeros in a zero half.
                let set = self.glsl_import();
                let k31 = self.konst(Type::I32, 31)?;
                let clz = |em: &mut Self, w: Word| -> Result<Word, EmitError> {
                    let msb = em.b.ext_inst(u32t, None, set, GLSL_FIND_UMSB, [Operand::IdRef(w)]).map_err(internal)?;
                    em.b.i_sub(u32t, None, k31, msb).map_err(internal)
                };
                let (cl, ch) = (clz(self, lo)?, clz(self, hi)?);
                let k32w = self.konst(Type::I32, 32)?;
                let low_count = self.b.i_add(u32t, None, cl, k32w).map_err(internal)?;
                let tb = self.ty(Type::B1)?;
                let z = self.konst(Type::I32, 0)?;
                let hi0 = self.b.i_equal(tb, None, hi, z).map_err(internal)?;
                let n = self.b.select(u32t, None, hi0, low_count, ch).map_err(internal)?;
                self.b.u_convert(u64t, None, n).map_err(internal)?
            }
        };
        Ok(Some(r))
    }
}
