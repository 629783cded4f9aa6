//! 32-bit integer operations beyond SPIR-V's own: high halves, saturating add and subtract,
//! funnel shifts, bit-field extract and insert, population count, leading zeros, bit reverse,
//! byte permute and the byte dot products, as `isabridge_ir::ops::int` defines them. Most are
//! done in 64-bit arithmetic on the zero- or sign-extended operands.

use super::emit::{internal, Em, EmitError};
use isabridge_ir::ops::int::{IntOp, Overflow, PrmtMode, ShiftRule};
use isabridge_ir::types::Type;
use rspirv::dr::Operand;
use rspirv::spirv::Word;

const GLSL_FIND_UMSB: u32 = 75;

impl Em<'_> {
    fn k32(&mut self, k: u64) -> Result<Word, EmitError> {
        self.konst(Type::I32, k & 0xffff_ffff)
    }
    fn k64(&mut self, k: u64) -> Result<Word, EmitError> {
        self.konst(Type::I64, k)
    }
    fn zext(&mut self, x: Word) -> Result<Word, EmitError> {
        self.b.u_convert(self.t_u64, None, x).map_err(internal)
    }
    fn sext(&mut self, x: Word) -> Result<Word, EmitError> {
        self.b.s_convert(self.t_u64, None, x).map_err(internal)
    }
    fn low(&mut self, x: Word) -> Result<Word, EmitError> {
        self.b.u_convert(self.t_u32, None, x).map_err(internal)
    }
    fn umin64(&mut self, a: Word, b: Word) -> Result<Word, EmitError> {
        let tb = self.ty(Type::B1)?;
        let lt = self.b.u_less_than(tb, None, a, b).map_err(internal)?;
        self.b.select(self.t_u64, None, lt, a, b).map_err(internal)
    }
    fn shl64(&mut self, a: Word, s: Word) -> Result<Word, EmitError> {
        // SPIR-V shifts by 64 or more are undefined: such shifts give 0.
        let (tb, k63, z) = (self.ty(Type::B1)?, self.k64(63)?, self.k64(0)?);
        let big = self.b.u_greater_than(tb, None, s, k63).map_err(internal)?;
        let sm = self.b.bitwise_and(self.t_u64, None, s, k63).map_err(internal)?;
        let r = self.b.shift_left_logical(self.t_u64, None, a, sm).map_err(internal)?;
        self.b.select(self.t_u64, None, big, z, r).map_err(internal)
    }
    fn shr64(&mut self, a: Word, s: Word) -> Result<Word, EmitError> {
        let (tb, k63, z) = (self.ty(Type::B1)?, self.k64(63)?, self.k64(0)?);
        let big = self.b.u_greater_than(tb, None, s, k63).map_err(internal)?;
        let sm = self.b.bitwise_and(self.t_u64, None, s, k63).map_err(internal)?;
        let r = self.b.shift_right_logical(self.t_u64, None, a, sm).map_err(internal)?;
        self.b.select(self.t_u64, None, big, z, r).map_err(internal)
    }
    fn and64(&mut self, a: Word, k: u64) -> Result<Word, EmitError> {
        let c = self.k64(k)?;
        self.b.bitwise_and(self.t_u64, None, a, c).map_err(internal)
    }

    /// The byte `idx` (u64, 0-7) of `bytes` (u64).
    fn byte_of(&mut self, bytes: Word, idx: Word) -> Result<Word, EmitError> {
        let three = self.k64(3)?;
        let sh = self.b.shift_left_logical(self.t_u64, None, idx, three).map_err(internal)?;
        let x = self.b.shift_right_logical(self.t_u64, None, bytes, sh).map_err(internal)?;
        self.and64(x, 0xff)
    }

    /// Result byte `k` (u64, 0-255) of `prmt` in `mode` (not `Sel8`) of `bytes` (b:a, u64),
    /// selector `c` (u64) and its low two bits `s`.
    fn prmt_byte(&mut self, mode: PrmtMode, bytes: Word, c: Word, s: Word, k: u64) -> Result<Word, EmitError> {
        let u64t = self.t_u64;
        let tb = self.ty(Type::B1)?;
        let (idx, rep) = match mode {
            PrmtMode::Default => {
                let kk = self.k64(4 * k)?;
                let sel = self.b.shift_right_logical(u64t, None, c, kk).map_err(internal)?;
                (self.and64(sel, 7)?, Some(sel))
            }
            PrmtMode::F4e => {
                let kk = self.k64(k)?;
                let x = self.b.i_add(u64t, None, s, kk).map_err(internal)?;
                (self.and64(x, 7)?, None)
            }
            PrmtMode::B4e => {
                let kk = self.k64(8 - k)?;
                let x = self.b.i_sub(u64t, None, kk, s).map_err(internal)?;
                (self.and64(x, 7)?, None)
            }
            PrmtMode::Rc8 => (s, None),
            PrmtMode::Ecl => {
                let kk = self.k64(k)?;
                let lt = self.b.u_less_than(tb, None, s, kk).map_err(internal)?;
                (self.b.select(u64t, None, lt, kk, s).map_err(internal)?, None)
            }
            PrmtMode::Ecr => {
                let kk = self.k64(k)?;
                let min = self.umin64(s, kk)?;
                (min, None)
            }
            PrmtMode::Rc16 => {
                let s1 = self.and64(c, 1)?;
                let two = self.b.i_add(u64t, None, s1, s1).map_err(internal)?;
                let kk = self.k64(k & 1)?;
                (self.b.i_add(u64t, None, two, kk).map_err(internal)?, None)
            }
            PrmtMode::Sel8 => return Err(internal("prmt.sel8 has no fixed selector pattern")),
        };
        let mut byte = self.byte_of(bytes, idx)?;
        if let Some(sel) = rep {
            // Selector bit 3: replicate the byte's sign bit.
            let b3 = self.and64(sel, 8)?;
            let z = self.k64(0)?;
            let on = self.b.i_not_equal(tb, None, b3, z).map_err(internal)?;
            let sgn = self.and64(byte, 0x80)?;
            let neg = self.b.i_not_equal(tb, None, sgn, z).map_err(internal)?;
            let ff = self.k64(0xff)?;
            let rep = self.b.select(u64t, None, neg, ff, z).map_err(internal)?;
            byte = self.b.select(u64t, None, on, rep, byte).map_err(internal)?;
        }
        Ok(byte)
    }

    /// Result byte `k` (u64, 0-255) of `prmt.sel8` (`PrmtMode::Sel8`): selector byte k of `c`
    /// picks byte 0-7 of `bytes` (b:a), 8-11 the sign of byte 1, 3, 5 or 7 replicated, 12
    /// gives 0x00 and 13 and above 0xff.
    fn prmt_sel8_byte(&mut self, bytes: Word, c: Word, k: u64) -> Result<Word, EmitError> {
        let u64t = self.t_u64;
        let tb = self.ty(Type::B1)?;
        let kk = self.k64(8 * k)?;
        let sel = self.b.shift_right_logical(u64t, None, c, kk).map_err(internal)?;
        let sel = self.and64(sel, 0xff)?;
        let idx = self.and64(sel, 7)?;
        let picked = self.byte_of(bytes, idx)?;
        // Byte 2 (s - 8) + 1 = 2 (s & 3) + 1 for s in 8-11; its sign bit replicated.
        let pair = self.and64(sel, 3)?;
        let odd = self.b.i_add(u64t, None, pair, pair).map_err(internal)?;
        let one = self.k64(1)?;
        let odd = self.b.i_add(u64t, None, odd, one).map_err(internal)?;
        let sb = self.byte_of(bytes, odd)?;
        let k7 = self.k64(7)?;
        let sgn = self.b.shift_right_logical(u64t, None, sb, k7).map_err(internal)?;
        let ff = self.k64(0xff)?;
        let rep = self.b.i_mul(u64t, None, sgn, ff).map_err(internal)?;
        let (k8, k12, k13) = (self.k64(8)?, self.k64(12)?, self.k64(13)?);
        let z = self.k64(0)?;
        let lt8 = self.b.u_less_than(tb, None, sel, k8).map_err(internal)?;
        let lt12 = self.b.u_less_than(tb, None, sel, k12).map_err(internal)?;
        let lt13 = self.b.u_less_than(tb, None, sel, k13).map_err(internal)?;
        let r = self.b.select(u64t, None, lt13, z, ff).map_err(internal)?;
        let r = self.b.select(u64t, None, lt12, rep, r).map_err(internal)?;
        self.b.select(u64t, None, lt8, picked, r).map_err(internal)
    }

    /// An i32 operation outside the basic set, or `None` when `op` is not one of these.
    pub(super) fn int32_extra(&mut self, op: IntOp, a: &[Word]) -> Result<Option<Word>, EmitError> {
        let u32t = self.t_u32;
        let u64t = self.t_u64;
        let tb = self.ty(Type::B1)?;
        let r = match op {
            IntOp::MadLo => {
                let p = self.b.i_mul(u32t, None, a[0], a[1]).map_err(internal)?;
                self.b.i_add(u32t, None, p, a[2]).map_err(internal)?
            }
            IntOp::MulHi(s) | IntOp::MadHi(s) => {
                let (x, y) = if s { (self.sext(a[0])?, self.sext(a[1])?) } else { (self.zext(a[0])?, self.zext(a[1])?) };
                let p = self.b.i_mul(u64t, None, x, y).map_err(internal)?;
                let k32 = self.k64(32)?;
                let hi = self.b.shift_right_logical(u64t, None, p, k32).map_err(internal)?;
                let hi = self.low(hi)?;
                if matches!(op, IntOp::MadHi(_)) {
                    self.b.i_add(u32t, None, hi, a[2]).map_err(internal)?
                } else {
                    hi
                }
            }
            IntOp::Add(o) | IntOp::Sub(o) if o != Overflow::Wrap => {
                let signed = o == Overflow::SatS;
                let (x, y) = if signed { (self.sext(a[0])?, self.sext(a[1])?) } else { (self.zext(a[0])?, self.zext(a[1])?) };
                let r = if matches!(op, IntOp::Add(_)) { self.b.i_add(u64t, None, x, y) } else { self.b.i_sub(u64t, None, x, y) }.map_err(internal)?;
                let (lo, hi) = if signed { (self.k64(-(1i64 << 31) as u64)?, self.k64((1 << 31) - 1)?) } else { (self.k64(0)?, self.k64(0xffff_ffff)?) };
                let under = self.b.s_less_than(tb, None, r, lo).map_err(internal)?;
                let over = self.b.s_greater_than(tb, None, r, hi).map_err(internal)?;
                let r = self.b.select(u64t, None, under, lo, r).map_err(internal)?;
                let r = self.b.select(u64t, None, over, hi, r).map_err(internal)?;
                self.low(r)?
            }
            IntOp::ShfL(rule) | IntOp::ShfR(rule) => {
                let c = self.zext(a[2])?;
                let s = match rule {
                    ShiftRule::Wrap => self.and64(c, 31)?,
                    ShiftRule::Clamp => {
                        let k = self.k64(32)?;
                        self.umin64(c, k)?
                    }
                };
                let (lo, hi) = (self.zext(a[0])?, self.zext(a[1])?);
                let k32 = self.k64(32)?;
                let hi = self.b.shift_left_logical(u64t, None, hi, k32).map_err(internal)?;
                let wide = self.b.bitwise_or(u64t, None, hi, lo).map_err(internal)?;
                if matches!(op, IntOp::ShfL(_)) {
                    let x = self.shl64(wide, s)?;
                    let x = self.b.shift_right_logical(u64t, None, x, k32).map_err(internal)?;
                    self.low(x)?
                } else {
                    let x = self.shr64(wide, s)?;
                    self.low(x)?
                }
            }
            IntOp::Bfe(signed) => {
                let x = self.zext(a[0])?;
                let pos = self.zext(a[1])?;
                let pos = self.and64(pos, 0xff)?;
                let len = self.zext(a[2])?;
                let len = self.and64(len, 0xff)?;
                // n = the field bits that exist: min(len, 32 - pos), 0 when pos >= 32.
                let k32 = self.k64(32)?;
                let z = self.k64(0)?;
                let one = self.k64(1)?;
                let pos_ok = self.b.u_less_than(tb, None, pos, k32).map_err(internal)?;
                let room = self.b.i_sub(u64t, None, k32, pos).map_err(internal)?;
                let room = self.b.select(u64t, None, pos_ok, room, z).map_err(internal)?;
                let n = self.umin64(len, room)?;
                let shifted = self.shr64(x, pos)?;
                let nm = self.shl64(one, n)?;
                let nm = self.b.i_sub(u64t, None, nm, one).map_err(internal)?;
                let field = self.b.bitwise_and(u64t, None, shifted, nm).map_err(internal)?;
                let r = if signed {
                    // The sign bit: bit min(pos + len - 1, 31) of a, when len != 0.
                    let top = self.b.i_add(u64t, None, pos, len).map_err(internal)?;
                    let top = self.b.i_sub(u64t, None, top, one).map_err(internal)?;
                    let k31 = self.k64(31)?;
                    let top = self.umin64(top, k31)?;
                    let sb = self.b.shift_right_logical(u64t, None, x, top).map_err(internal)?;
                    let sb = self.and64(sb, 1)?;
                    let len0 = self.b.i_equal(tb, None, len, z).map_err(internal)?;
                    let sb = self.b.select(u64t, None, len0, z, sb).map_err(internal)?;
                    let set = self.b.i_not_equal(tb, None, sb, z).map_err(internal)?;
                    let ext = self.b.not(u64t, None, nm).map_err(internal)?;
                    let ext = self.b.select(u64t, None, set, ext, z).map_err(internal)?;
                    self.b.bitwise_or(u64t, None, field, ext).map_err(internal)?
                } else {
                    field
                };
                self.low(r)?
            }
            IntOp::Bfi => {
                let (x, base) = (self.zext(a[0])?, self.zext(a[1])?);
                let pos = self.zext(a[2])?;
                let pos = self.and64(pos, 0xff)?;
                let len = self.zext(a[3])?;
                let len = self.and64(len, 0xff)?;
                let (k32, one) = (self.k64(32)?, self.k64(1)?);
                let l = self.umin64(len, k32)?;
                let fm = self.shl64(one, l)?;
                let fm = self.b.i_sub(u64t, None, fm, one).map_err(internal)?;
                let fm = self.shl64(fm, pos)?;
                let fm = self.and64(fm, 0xffff_ffff)?;
                let keep = self.b.not(u64t, None, fm).map_err(internal)?;
                let kept = self.b.bitwise_and(u64t, None, base, keep).map_err(internal)?;
                let ins = self.shl64(x, pos)?;
                let ins = self.b.bitwise_and(u64t, None, ins, fm).map_err(internal)?;
                let r = self.b.bitwise_or(u64t, None, kept, ins).map_err(internal)?;
                let r = self.low(r)?;
                let far = self.b.u_greater_than_equal(tb, None, pos, k32).map_err(internal)?;
                self.b.select(u32t, None, far, a[1], r).map_err(internal)?
            }
            IntOp::Popc => self.b.bit_count(u32t, None, a[0]).map_err(internal)?,
            IntOp::Brev => self.b.bit_reverse(u32t, None, a[0]).map_err(internal)?,
            IntOp::Clz => {
                let set = self.glsl_import();
                let msb = self.b.ext_inst(u32t, None, set, GLSL_FIND_UMSB, [Operand::IdRef(a[0])]).map_err(internal)?;
                // FindUMsb(0) is -1: 31 - (-1) = 32.
                let k31 = self.k32(31)?;
                self.b.i_sub(u32t, None, k31, msb).map_err(internal)?
            }
            IntOp::Prmt(mode) => {
                let (lo, hi) = (self.zext(a[0])?, self.zext(a[1])?);
                let k32 = self.k64(32)?;
                let hi = self.b.shift_left_logical(u64t, None, hi, k32).map_err(internal)?;
                let bytes = self.b.bitwise_or(u64t, None, hi, lo).map_err(internal)?;
                let c = self.zext(a[2])?;
                let s = self.and64(c, 3)?;
                let mut out = self.k64(0)?;
                for k in 0..4u64 {
                    let byte = if mode == PrmtMode::Sel8 { self.prmt_sel8_byte(bytes, c, k)? } else { self.prmt_byte(mode, bytes, c, s, k)? };
                    let kk = self.k64(8 * k)?;
                    let placed = self.b.shift_left_logical(u64t, None, byte, kk).map_err(internal)?;
                    out = self.b.bitwise_or(u64t, None, out, placed).map_err(internal)?;
                }
                self.low(out)?
            }
            IntOp::Dp4a(sa, sb) | IntOp::Dp2a(sa, sb) => {
                let dp2 = matches!(op, IntOp::Dp2a(..));
                let mut acc = a[2];
                let n = if dp2 { 2 } else { 4 };
                for i in 0..n {
                    // Dp2a: 16-bit halves of a (signed per the second flag), bytes of b from the
                    // high pair when the first flag is set.
                    let (xs, xw, ys, yoff) = if dp2 { (sb, 16u32, sb, 8 * (i + if sa { 2 } else { 0 })) } else { (sa, 8, sb, 8 * i) };
                    let (xo, xwk) = (self.k32((xw * i) as u64)?, self.k32(xw as u64)?);
                    let (yo, ywk) = (self.k32(yoff as u64)?, self.k32(8)?);
                    let x = if xs { self.b.bit_field_s_extract(u32t, None, a[0], xo, xwk) } else { self.b.bit_field_u_extract(u32t, None, a[0], xo, xwk) }.map_err(internal)?;
                    let y = if ys { self.b.bit_field_s_extract(u32t, None, a[1], yo, ywk) } else { self.b.bit_field_u_extract(u32t, None, a[1], yo, ywk) }.map_err(internal)?;
                    let p = self.b.i_mul(u32t, None, x, y).map_err(internal)?;
                    acc = self.b.i_add(u32t, None, acc, p).map_err(internal)?;
                }
                acc
            }
            _ => return Ok(None),
        };
        Ok(Some(r))
    }
}
