//! `ftwooverpi` (`soft::trig::two_over_pi_slice`, AMD's v_trig_preop_f64): a 53-bit slice of
//! 2/π chosen by the segment operand and the f64 operand's exponent, as an f64, in integer
//! arithmetic. The 1201 bits of 2/π are the IR's own table, emitted as constants and read
//! through a chain of selections.

use super::emit::{internal, unsupported, Em, EmitError};
use isabridge_ir::ir::Value;
use isabridge_ir::ops::float::FloatOp;
use isabridge_ir::soft::trig::TWO_OVER_PI_1201;
use isabridge_ir::soft::FFmt;
use isabridge_ir::types::Type;
use isabridge_ir::Op;
use rspirv::spirv::Word;

impl Em<'_> {
    /// `ftwooverpi` of the f64 `a[0]` and the i32 segment `a[1]` (types `at`).
    pub(super) fn two_over_pi(&mut self, op: &FloatOp, v: Value, t: Type, at: &[Type], a: &[Word]) -> Result<Word, EmitError> {
        if t != Type::F64 || at.len() != 2 || at[0] != Type::F64 || at[1] != Type::I32 {
            return Err(unsupported(self.cur_ir, v.0, Op::Float(*op).mnemonic(), "ftwooverpi of other than an f64 and an i32"));
        }
        let x = self.elem_in(FFmt::F64, a[0], false)?;
        let seg = self.b.u_convert(self.t_u64, None, a[1]).map_err(internal)?;
        let seg = self.and(seg, 31)?;
        let k53 = self.u64c(53)?;
        let shift = self.b.i_mul(self.t_u64, None, seg, k53).map_err(internal)?;
        let e = self.shr(x, 52)?;
        let e = self.and(e, 0x7ff)?;
        let k1077 = self.u64c(1077)?;
        let tb = self.bool_ty()?;
        let big = self.b.u_greater_than(tb, None, e, k1077).map_err(internal)?;
        let d = self.sub(e, k1077)?;
        let z = self.u64c(0)?;
        let extra = self.sel(big, d, z)?;
        let shift = self.add(shift, extra)?;
        // The slice is bits 1148 - shift ..= 1200 - shift; with a zero word below the table,
        // its lowest bit is bit 1212 - shift of the extended table.
        let k1212 = self.u64c(1212)?;
        let gone = self.b.u_greater_than(tb, None, shift, k1212).map_err(internal)?;
        let low = self.sub(k1212, shift)?;
        let low = self.sel_k(gone, 0, low)?;
        let wi = self.shr(low, 6)?;
        let sh = self.and(low, 63)?;
        let mut words = vec![self.u64c(0)?];
        for &w in TWO_OVER_PI_1201.iter() {
            words.push(self.u64c(w)?);
        }
        words.push(self.u64c(0)?);
        let mut lo = words[0];
        let mut hi = words[1];
        for k in 1..words.len() - 1 {
            let at_k = self.eq(wi, k as u64)?;
            lo = self.sel(at_k, words[k], lo)?;
            hi = self.sel(at_k, words[k + 1], hi)?;
        }
        let l = self.b.shift_right_logical(self.t_u64, None, lo, sh).map_err(internal)?;
        let k64 = self.u64c(64)?;
        let back = self.sub(k64, sh)?;
        let k63 = self.u64c(63)?;
        let back = {
            let over = self.b.u_greater_than(tb, None, back, k63).map_err(internal)?;
            self.sel(over, k63, back)?
        };
        let h = self.b.shift_left_logical(self.t_u64, None, hi, back).map_err(internal)?;
        let s0 = self.eq(sh, 0)?;
        let h = self.sel(s0, z, h)?;
        let r = self.or(l, h)?;
        let r = self.and(r, (1 << 53) - 1)?;
        let r = self.sel(gone, z, r)?;
        // × 2^(-53 - shift), 2^128 more for the largest exponents.
        let huge = {
            let k = self.u64c(1968)?;
            let lt = self.b.u_less_than(tb, None, e, k).map_err(internal)?;
            self.lnot(lt)?
        };
        let base = self.u64c((-53i64) as u64)?;
        let scale = self.sub(base, shift)?;
        let k128 = self.u64c(128)?;
        let up = self.add(scale, k128)?;
        let scale = self.sel(huge, up, scale)?;
        let fls = self.bconst(false)?;
        let zr = self.eq(r, 0)?;
        let nz = self.lnot(zr)?;
        let one = self.u64c(1)?;
        let safe = self.sel(nz, r, one)?;
        let (packed, _) = self.pack_f64(z, scale, safe, fls, op.mode.round)?;
        let out = self.sel(nz, packed, z)?;
        let out = self.finish(FFmt::F64, &op.mode, out, None)?;
        self.elem_out(FFmt::F64, out)
    }
}
