//! Memory operations of wave-model functions (AMD global, flat and SMEM loads, LDS) in SPIR-V,
//! one invocation per lane: each `load`/`store`/`atomic` carries the lane mask as its last
//! operand, and only the lanes in it access memory (a load gives 0 elsewhere, as the
//! interpreter does). Global addresses are Vulkan buffer device addresses
//! (PhysicalStorageBuffer64); the LDS is a Workgroup array of u32 as large as the function's
//! `shared_bytes`, and an access outside it reads 0 and writes nothing. Stores and atomics keep
//! the program order across lanes as buffer access does (`wave.rs`: a barrier after each store,
//! atomics lane by lane). Scratch and float atomics are typed errors.

use super::emit::{internal, unsupported, Em, EmitError};
use isabridge_ir::ir::{Function, Value};
use isabridge_ir::ops::mem::{AtomicKind, MemOp, Space};
use isabridge_ir::types::Type;
use isabridge_ir::Op;
use rspirv::dr::Builder;
use rspirv::spirv::{self, Word};

/// Where a word access goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Place {
    /// Device memory through a buffer device address.
    Device,
    /// The LDS array (byte offsets).
    Lds,
}

/// The LDS of a wave-model function: a Workgroup array of u32.
pub(super) struct LdsVar {
    /// The variable.
    pub(super) var: Word,
    /// Pointer type of one word.
    p_word: Word,
    /// Its size in bytes (a multiple of 4).
    bytes: u32,
}

impl LdsVar {
    /// Declare the LDS of `f` (none when it uses no shared memory).
    pub(super) fn declare(b: &mut Builder, f: &Function, t_u32: Word) -> Option<LdsVar> {
        if f.shared_bytes == 0 {
            return None;
        }
        let words = f.shared_bytes.div_ceil(4);
        let n = b.constant_bit32(t_u32, words);
        let arr = b.type_array(t_u32, n);
        let pa = b.type_pointer(None, spirv::StorageClass::Workgroup, arr);
        let var = b.variable(pa, None, spirv::StorageClass::Workgroup, None);
        let p_word = b.type_pointer(None, spirv::StorageClass::Workgroup, t_u32);
        Some(LdsVar { var, p_word, bytes: words * 4 })
    }
}

impl Em<'_> {
    /// A pointer to the LDS word at byte offset `addr` (u64, 4-byte aligned, in range).
    pub(super) fn lds_word_ptr(&mut self, addr: Word) -> Result<Word, EmitError> {
        let Some(l) = self.wave.as_ref().and_then(|w| w.lds.as_ref()) else {
            return Err(internal("LDS access without an LDS array"));
        };
        let (var, p_word) = (l.var, l.p_word);
        let two = self.wc64(2)?;
        let i = self.b.shift_right_logical(self.t_u64, None, addr, two).map_err(internal)?;
        let i = self.b.u_convert(self.t_u32, None, i).map_err(internal)?;
        self.b.access_chain(p_word, None, var, [i]).map_err(internal)
    }

    /// A memory op of a wave-model function; its result (loads and atomics).
    pub(super) fn wave_mem(&mut self, v: Value, m: MemOp, args: &[Value], ty: Option<Type>) -> Result<Option<Word>, EmitError> {
        let text = Op::Mem(m).mnemonic();
        let place = match m.space() {
            Space::Global => Place::Device,
            Space::Shared => Place::Lds,
            Space::Scratch => return Err(unsupported(self.cur_ir, v.0, text, "scratch memory (private arrays) in wave-model functions")),
            Space::Constant(_) => return Err(unsupported(self.cur_ir, v.0, text, "constant banks in wave-model functions")),
        };
        if let MemOp::Atomic(_, AtomicKind::FAdd | AtomicKind::FAddFtz | AtomicKind::FMin | AtomicKind::FMax, _) = m {
            return Err(unsupported(self.cur_ir, v.0, text, "float atomics"));
        }
        let vt = match m {
            MemOp::Load(_) => ty,
            _ => Some(self.vty(args[1])?),
        };
        let bytes = match vt.map(|t| t.bits().div_ceil(8)) {
            Some(b @ (1 | 2 | 4 | 8)) if vt != Some(Type::B1) => b as u8,
            _ => return Err(unsupported(self.cur_ir, v.0, text, "memory values other than 1, 2, 4 or 8 bytes")),
        };
        let mask = self.mask_arg(args, m.arity())?;
        let lane = self.lane()?;
        let mut go = self.mask_bit(mask, lane)?;
        let mut addr = self.get(args[0])?;
        if place == Place::Lds {
            let Some(size) = self.wave.as_ref().and_then(|w| w.lds.as_ref()).map(|l| l.bytes) else {
                return Err(unsupported(self.cur_ir, v.0, text, "workgroup memory in a function that declares none"));
            };
            // A 32-bit byte offset; in range when its last byte is.
            if self.vty(args[0])? != Type::I64 {
                addr = self.b.u_convert(self.t_u64, None, addr).map_err(internal)?;
            }
            let m32 = self.wc64(0xffff_ffff)?;
            addr = self.b.bitwise_and(self.t_u64, None, addr, m32).map_err(internal)?;
            let tb = self.ty(Type::B1)?;
            let lim = self.wc64(size as u64 - bytes as u64 + 1)?;
            let inside = self.b.u_less_than(tb, None, addr, lim).map_err(internal)?;
            go = self.b.logical_and(tb, None, go, inside).map_err(internal)?;
        }
        let zero = self.wc64(0)?;
        let word = match m {
            MemOp::Load(_) => self.guarded(go, Some((self.t_u64, zero)), |em| em.load_bytes(place, addr, bytes).map(Some))?,
            MemOp::Store(_) => {
                let x = self.word_of(args[1])?;
                self.guarded(go, None, |em| em.store_bytes(place, addr, bytes, x).map(|_| None))?;
                self.barrier()?;
                None
            }
            MemOp::Atomic(_, k, _) => {
                let x = self.word_of(args[1])?;
                let s = if k == AtomicKind::CmpExch { self.word_of(args[2])? } else { zero };
                Some(self.buffer_atomic(place, k, bytes, addr, go, x, s)?)
            }
        };
        match (word, ty) {
            (Some(w), Some(t)) => Ok(Some(self.value_of_word(w, t)?)),
            _ => Ok(None),
        }
    }
}
