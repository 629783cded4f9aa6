//! Memory operations of wave-model functions (AMD global, flat and SMEM loads, LDS) in SPIR-V,
//! one invocation per lane: each `load`/`store`/`atomic` carries the lane mask as its last
//! operand, and only the lanes in it access memory (a load gives 0 elsewhere, as the
//! interpreter does). Global addresses are Vulkan buffer device addresses
//! (PhysicalStorageBuffer64); the LDS and the lane's scratch are the arrays of
//! [`super::local_memory`], and an access outside one reads 0 and writes nothing. Stores and
//! atomics on shared memory keep the program order across lanes as buffer access does
//! (`wave.rs`: a barrier after each store, atomics lane by lane); scratch is the lane's own.
//! Float atomics follow the IR's rule ([`super::atomic`]).

use super::emit::{internal, unsupported, Em, EmitError};
use isabridge_ir::ir::Value;
use isabridge_ir::ops::mem::{AtomicKind, MemOp, Space};
use isabridge_ir::types::Type;
use isabridge_ir::Op;
use rspirv::spirv::Word;

/// Where a word access goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Place {
    /// Device memory through a buffer device address.
    Device,
    /// The workgroup memory array (byte offsets).
    Lds,
    /// The lane's scratch array (byte offsets).
    Scratch,
}

impl Em<'_> {
    /// A memory op of a wave-model function; its result (loads and atomics).
    pub(super) fn wave_mem(&mut self, v: Value, m: MemOp, args: &[Value], ty: Option<Type>) -> Result<Option<Word>, EmitError> {
        let text = Op::Mem(m).mnemonic();
        let place = match m.space() {
            Space::Global => Place::Device,
            Space::Shared => Place::Lds,
            Space::Scratch => Place::Scratch,
            Space::Constant(_) => return Err(unsupported(self.cur_ir, v.0, text, "constant banks in wave-model functions")),
        };
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
        let addr = if place == Place::Device {
            self.get(args[0])?
        } else {
            let (addr, inside) = self.array_offset(place, args[0], bytes as u32)?;
            let tb = self.ty(Type::B1)?;
            go = self.b.logical_and(tb, None, go, inside).map_err(internal)?;
            addr
        };
        let zero = self.wc64(0)?;
        let word = match m {
            // No such memory: every access is outside it (a load or atomic gives 0).
            _ if place != Place::Device && self.array_bytes(place).is_none() => (!matches!(m, MemOp::Store(_))).then_some(zero),
            MemOp::Load(_) => self.guarded(go, Some((self.t_u64, zero)), |em| em.load_bytes(place, addr, bytes).map(Some))?,
            MemOp::Store(_) => {
                let x = self.word_of(args[1])?;
                self.guarded(go, None, |em| em.store_bytes(place, addr, bytes, x).map(|_| None))?;
                // Scratch is the lane's own: no other lane sees the store.
                if place != Place::Scratch {
                    self.barrier()?;
                }
                None
            }
            MemOp::Atomic(_, k, _) if place == Place::Scratch => {
                let x = self.word_of(args[1])?;
                let s = if k == AtomicKind::CmpExch { self.word_of(args[2])? } else { zero };
                Some(self.private_atomic(k, bytes, addr, go, x, s)?)
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

    /// A read-modify-write on the lane's own scratch (no other lane sees it), as
    /// `atomic_apply` defines it; the old value (0 where the lane does not take part).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn private_atomic(&mut self, k: AtomicKind, bytes: u8, addr: Word, go: Word, x: Word, swap: Word) -> Result<Word, EmitError> {
        let zero = self.wc64(0)?;
        let bits = 8 * bytes as u32;
        let m = self.wc64(if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 })?;
        let old = self.guarded(go, Some((self.t_u64, zero)), |em| {
            let old = em.load_bytes(Place::Scratch, addr, bytes)?;
            let new = em.atomic_new(k, bits, old, x, swap, m)?;
            em.store_bytes(Place::Scratch, addr, bytes, new)?;
            Ok(Some(old))
        })?;
        old.ok_or_else(|| internal("a guarded atomic without a result"))
    }
}
