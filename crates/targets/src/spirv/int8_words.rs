//! 8-bit integers in 32-bit words, in the heap memory model: naga (30.0.2) has no 8-bit
//! integer type, so where a function's i8 values are only loaded, stored, converted to and from
//! other integers and floats, selected, merged at phis or passed as constants and parameters
//! ([`i8_in_words`]), each is a u32 holding the byte zero-extended (the upper 24 bits always
//! zero), and the module needs no `Int8` capability. Every producer keeps that form (truncations
//! mask to the low byte), and every consumer that reads the value signed sign-extends it first,
//! so each result equals the native 8-bit one. A function with any other operation on i8
//! values (arithmetic, vectors of i8, buffer or lane operations) keeps native `Int8` values.

use super::emit::{internal, Em, EmitError};
use isabridge_ir::ir::Function;
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::mem::{MemOp, Space};
use isabridge_ir::types::{Scalar, Type};
use isabridge_ir::Op;
use rspirv::spirv::Word;

/// Whether every operation on i8 values in `f` is one that [`Em`] carries exactly on
/// zero-extended u32 words: constants, parameters, undefined values, phis, selects, integer
/// and float conversions, and global, shared and scratch loads and stores.
pub(super) fn i8_in_words(f: &Function) -> bool {
    let is_i8 = |t: Option<Type>| t.is_some_and(|t| t.elem() == Scalar::I8 && t != Type::Mask);
    f.layout.iter().flat_map(|&blk| f.blocks[blk].insts.iter()).all(|&v| {
        let inst = &f.insts[v];
        let (rt, at): (Option<Type>, Vec<Option<Type>>) = (f.ty(v), inst.args.iter().map(|&a| f.ty(a)).collect());
        if !is_i8(rt) && !at.iter().any(|&t| is_i8(t)) {
            return true;
        }
        // Scalars only: a vector of i8 would need its bytes packed.
        if rt.is_some_and(|t| is_i8(Some(t)) && t != Type::I8) || at.iter().any(|&t| is_i8(t) && t != Some(Type::I8)) {
            return false;
        }
        let local = |s: Space| matches!(s, Space::Global | Space::Shared | Space::Scratch);
        match &inst.op {
            Op::Const(_) | Op::Undef | Op::Param(_) | Op::Phi(_) | Op::Select => true,
            Op::Conv(ConvOp::IToI { .. } | ConvOp::FToI { .. } | ConvOp::IToF { .. }) => true,
            Op::Mem(MemOp::Load(s)) => local(*s),
            // The byte is the stored value (operand 1), never the address.
            Op::Mem(MemOp::Store(s)) => local(*s) && !is_i8(at[0]),
            _ => false,
        }
    })
}

impl Em<'_> {
    /// `x & k` on u32 words.
    fn and32(&mut self, x: Word, k: u32) -> Result<Word, EmitError> {
        let c = self.konst(Type::I32, k as u64)?;
        self.b.bitwise_and(self.t_u32, None, x, c).map_err(internal)
    }

    /// The i8 word `x` (zero-extended) sign-extended to 32 bits: (x ^ 0x80) - 0x80.
    pub(super) fn i8_word_sext(&mut self, x: Word) -> Result<Word, EmitError> {
        let k = self.konst(Type::I32, 0x80)?;
        let f = self.b.bitwise_xor(self.t_u32, None, x, k).map_err(internal)?;
        self.b.i_sub(self.t_u32, None, f, k).map_err(internal)
    }

    /// A u32 whose low byte is the i8 value: the zero-extended i8 word.
    pub(super) fn i8_word_from_u32(&mut self, x: Word) -> Result<Word, EmitError> {
        self.and32(x, 0xff)
    }

    /// `iext` between an i8 word and another integer type (`from != to`, neither `b1`): an i8
    /// source extends (sign-extends when `signed`), an i8 result keeps the low byte.
    pub(super) fn i8_word_convert(&mut self, x: Word, from: Type, to: Type, signed: bool) -> Result<Word, EmitError> {
        let tw = self.ty(to)?;
        if from == Type::I8 {
            let w = if signed { self.i8_word_sext(x)? } else { x };
            return match to.bits() {
                32 => Ok(w),
                64 if signed => self.b.s_convert(tw, None, w).map_err(internal),
                _ => self.b.u_convert(tw, None, w).map_err(internal),
            };
        }
        let w = if from.bits() == 32 { x } else { self.b.u_convert(self.t_u32, None, x).map_err(internal)? };
        self.i8_word_from_u32(w)
    }
}
