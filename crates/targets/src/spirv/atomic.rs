//! Atomics in SPIR-V: those of lanes-model functions (NVIDIA `ATOM`, `RED`, `ATOMS`, local
//! memory), the read-modify-write on device memory of both models, and the float rules.
//!
//! A lanes-model atomic runs in its invocation, whatever the other lanes do (a guest CAS loop
//! retries on some lanes only): no barrier, so lanes may reach it on any path. Each is a
//! compare-exchange loop on its aligned 32-bit word of device or shared memory (1-, 2- and
//! 4-byte values, the other bytes of the word kept; device or workgroup scope), a 64-bit
//! compare-exchange on device memory (8-byte values, `Int64Atomics`, Vulkan
//! `shaderBufferInt64Atomics`; the heap memory model refuses them), or, for 8-byte values in
//! shared memory (a u32 array), a read-modify-write by each lane in turn, in lane order, with
//! no barrier: exact where the lanes that reach such an atomic together are the only ones
//! touching its word meanwhile (lavapipe runs divergent paths one after another; a device that
//! interleaves a warp's divergent paths could interleave two such read-modify-writes: a
//! workgroup lock was tried and lavapipe then ran the next barrier's lanes apart). Local memory is the lane's own: a plain
//! read-modify-write. A trailing lane-mask operand limits the lanes that take part. The order
//! in which lanes reach one word is the device's (the interpreter's is lane order, warp by
//! warp): returned old values may be a permutation of the interpreter's where lanes contend.
//!
//! Wave-model (AMD) atomics run lane by lane in lane order (`Em::buffer_atomic`, the
//! interpreter's order: every branch of a wave-model function is uniform), each lane's
//! read-modify-write on device memory through the same compare-exchange loop.
//!
//! Float atomics (`fadd`, `faddftz`, `fmin`, `fmax`, `fadd2xf16`, `fadd2xbf16`) compute the
//! IR's rule (`isabridge_ir::ops::mem::atomic_apply`) on the integer bits through the exact
//! float paths of `super::float`, never the driver's float atomics: round to nearest even with
//! denormals kept and the default quiet NaN for `fadd`, flushed operands and result for
//! `faddftz`, NaN operands and signed zeros ordered as the IR does for `fmin` / `fmax`, each
//! half rounded with the NVIDIA NaN for the 16-bit pairs.

use super::amd_memory::Place;
use super::emit::{internal, unsupported, Em, EmitError};
use isabridge_ir::ir::{ExecModel, Value};
use isabridge_ir::ops::float::{FloatKind, FloatOp, Omod};
use isabridge_ir::ops::mem::{AtomicKind, MemOp, Space};
use isabridge_ir::soft::{FFmt, FloatMode, NanRule, Round, Tininess};
use isabridge_ir::types::Type;
use isabridge_ir::Op;
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{self, Word};

/// Device scope (SPIR-V `Scope`).
const DEVICE: u32 = 1;
/// Workgroup scope (SPIR-V `Scope`).
const WORKGROUP: u32 = 2;
impl Em<'_> {
    /// An atomic of a lanes-model function, in any space; false when `v` is not one.
    pub(super) fn lanes_atomic(&mut self, v: Value) -> Result<bool, EmitError> {
        let data = &self.f.insts[v];
        let (op, args, ty) = (data.op.clone(), data.args.clone(), data.ty);
        let Op::Mem(m @ MemOp::Atomic(space, k, _)) = op else { return Ok(false) };
        if self.f.model != ExecModel::Lanes {
            return Ok(false);
        }
        let text = op.mnemonic();
        let place = match space {
            Space::Global => Place::Device,
            Space::Shared => Place::Lds,
            Space::Scratch => Place::Scratch,
            Space::Constant(_) => return Err(unsupported(self.cur_ir, v.0, text, "atomics on constant banks")),
        };
        let vt = self.vty(args[1])?;
        let bytes = match vt.bits() {
            b @ (8 | 16 | 32 | 64) if vt != Type::B1 && vt != Type::Mask => (b / 8) as u8,
            _ => return Err(unsupported(self.cur_ir, v.0, text, "atomics on values other than 1, 2, 4 or 8 bytes")),
        };
        let mut go = self.konst(Type::B1, 1)?;
        if let Some(&mask) = args.get(m.arity()) {
            let mask = self.get(mask)?;
            let lane = self.lane()?;
            go = self.mask_bit(mask, lane)?;
        }
        let zero = self.wc64(0)?;
        let x = self.word_of(args[1])?;
        let swap = if k == AtomicKind::CmpExch { self.word_of(args[2])? } else { zero };
        let bits = 8 * bytes as u32;
        let m = self.wc64(if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 })?;
        let old = if place == Place::Device {
            let addr = self.get(args[0])?;
            if bytes == 8 && self.heap.is_some() {
                return Err(unsupported(self.cur_ir, v.0, text, "64-bit device atomics in the heap memory model"));
            }
            let r = self.guarded(go, Some((self.t_u64, zero)), |em| em.word_rmw(place, k, bytes, addr, x, swap, m).map(Some))?;
            r.ok_or_else(|| internal("a guarded atomic without a result"))?
        } else if self.array_bytes(place).is_none() {
            // No such memory: every access is outside it and reads 0.
            zero
        } else {
            let (addr, inside) = self.array_offset(place, args[0], bytes as u32)?;
            let tb = self.ty(Type::B1)?;
            go = self.b.logical_and(tb, None, go, inside).map_err(internal)?;
            match place {
                Place::Scratch => self.private_atomic(k, bytes, addr, go, x, swap)?,
                _ if bytes == 8 => self.lane_ordered_rmw(k, addr, go, x, swap, m)?,
                _ => {
                    let r = self.guarded(go, Some((self.t_u64, zero)), |em| em.word_rmw(place, k, bytes, addr, x, swap, m).map(Some))?;
                    r.ok_or_else(|| internal("a guarded atomic without a result"))?
                }
            }
        };
        if let Some(t) = ty {
            let r = self.value_of_word(old, t)?;
            self.define(v, r)?;
        }
        Ok(true)
    }

    /// One lane's read-modify-write of `bytes` at address `addr` (u64, aligned to the size) of
    /// device or workgroup memory as `atomic_apply` defines it, through a compare-exchange
    /// loop; the old value (u64). 8 bytes on device memory only.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn word_rmw(&mut self, place: Place, k: AtomicKind, bytes: u8, addr: Word, x: Word, swap: Word, m: Word) -> Result<Word, EmitError> {
        let bits = 8 * bytes as u32;
        let wide = bytes == 8;
        let tw = if wide { self.t_u64 } else { self.t_u32 };
        let p = if wide {
            self.int64_atomics()?;
            let pt = self.b.type_pointer(None, spirv::StorageClass::PhysicalStorageBuffer, self.t_u64);
            self.b.convert_u_to_ptr(pt, None, addr).map_err(internal)?
        } else {
            let not3 = self.wc64(!3)?;
            let a4 = self.b.bitwise_and(self.t_u64, None, addr, not3).map_err(internal)?;
            self.word_ptr(place, a4)?
        };
        // The bit offset of the value in its word (sub-word accesses).
        let sh = if bytes < 4 {
            let (three, eight) = (self.wc64(3)?, self.wc64(8)?);
            let byte = self.b.bitwise_and(self.t_u64, None, addr, three).map_err(internal)?;
            Some(self.b.i_mul(self.t_u64, None, byte, eight).map_err(internal)?)
        } else {
            None
        };
        let (scope, sem) = (self.wc32(if place == Place::Device { DEVICE } else { WORKGROUP })?, self.wc32(0)?);
        // The word carried between tries and the old value live in Private variables, not
        // phis: naga's reader scopes a loop's values to the loop.
        let (cur_var, old_var) = self.rmw_vars();
        let init = self.b.atomic_load(tw, None, p, scope, sem).map_err(internal)?;
        let init = if wide { init } else { self.b.u_convert(self.t_u64, None, init).map_err(internal)? };
        self.b.store(cur_var, init, None, []).map_err(internal)?;
        let tb = self.ty(Type::B1)?;
        let (header, cont, merge) = (self.b.id(), self.b.id(), self.b.id());
        self.b.branch(header).map_err(internal)?;
        self.cur = self.b.begin_block(Some(header)).map_err(internal)?;
        let cur64 = self.b.load(self.t_u64, None, cur_var, None, []).map_err(internal)?;
        let cur = if wide { cur64 } else { self.b.u_convert(self.t_u32, None, cur64).map_err(internal)? };
        let old = match sh {
            Some(s) => {
                let o = self.b.shift_right_logical(self.t_u64, None, cur64, s).map_err(internal)?;
                self.b.bitwise_and(self.t_u64, None, o, m).map_err(internal)?
            }
            None => cur64,
        };
        self.b.store(old_var, old, None, []).map_err(internal)?;
        let new = self.atomic_new(k, bits, old, x, swap, m)?;
        let new_w = match sh {
            Some(s) => {
                let fm = self.b.shift_left_logical(self.t_u64, None, m, s).map_err(internal)?;
                let keep = self.b.not(self.t_u64, None, fm).map_err(internal)?;
                let kept = self.b.bitwise_and(self.t_u64, None, cur64, keep).map_err(internal)?;
                let set = self.b.shift_left_logical(self.t_u64, None, new, s).map_err(internal)?;
                self.b.bitwise_or(self.t_u64, None, kept, set).map_err(internal)?
            }
            None => new,
        };
        let new_w = if wide { new_w } else { self.b.u_convert(self.t_u32, None, new_w).map_err(internal)? };
        let got = self.b.atomic_compare_exchange(tw, None, p, scope, sem, sem, new_w, cur).map_err(internal)?;
        let got64 = if wide { got } else { self.b.u_convert(self.t_u64, None, got).map_err(internal)? };
        self.b.store(cur_var, got64, None, []).map_err(internal)?;
        let done = self.b.i_equal(tb, None, got, cur).map_err(internal)?;
        self.b.loop_merge(merge, cont, spirv::LoopControl::NONE, []).map_err(internal)?;
        self.b.branch_conditional(done, merge, cont, []).map_err(internal)?;
        self.b.begin_block(Some(cont)).map_err(internal)?;
        self.b.branch(header).map_err(internal)?;
        self.cur = self.b.begin_block(Some(merge)).map_err(internal)?;
        let more = self.b.logical_not(tb, None, done).map_err(internal)?;
        self.loop_cut_where(more)?;
        self.b.load(self.t_u64, None, old_var, None, []).map_err(internal)
    }

    /// The two Private u64 variables of [`Em::word_rmw`] (declared on first use and added to
    /// the entry point's interface at the end of emission).
    fn rmw_vars(&mut self) -> (Word, Word) {
        if let Some(v) = self.rmw_vars {
            return v;
        }
        let p = self.b.type_pointer(None, spirv::StorageClass::Private, self.t_u64);
        // Module-level declarations (the builder's `variable` would put them in the block).
        let mut private = || {
            let id = self.b.id();
            let var = Instruction::new(spirv::Op::Variable, Some(p), Some(id), vec![Operand::StorageClass(spirv::StorageClass::Private)]);
            self.b.module_mut().types_global_values.push(var);
            id
        };
        let v = (private(), private());
        self.rmw_vars = Some(v);
        v
    }

    /// The 8-byte read-modify-write at `addr` (u64, 8-byte aligned, in range) of shared memory
    /// (a u32 array) for the lanes where `go` holds, one lane after another in lane order with
    /// no barrier (one loop over the lanes, `super::lane_loop`); the old value (u64, 0 where
    /// the lane does not take part).
    fn lane_ordered_rmw(&mut self, k: AtomicKind, addr: Word, go: Word, x: Word, swap: Word, m: Word) -> Result<Word, EmitError> {
        let tb = self.ty(Type::B1)?;
        let lane = self.lane()?;
        let zero = self.wc64(0)?;
        let ws = self.ws();
        self.lane_loop(ws, zero, |em, l, kept| {
            let mine = em.b.i_equal(tb, None, lane, l).map_err(internal)?;
            let now = em.b.logical_and(tb, None, mine, go).map_err(internal)?;
            em.guarded(now, None, |em| {
                let old = em.load_bytes(Place::Lds, addr, 8)?;
                let new = em.atomic_new(k, 64, old, x, swap, m)?;
                em.store_bytes(Place::Lds, addr, 8, new)?;
                em.b.store(kept, old, None, []).map_err(internal)?;
                Ok(None)
            })?;
            Ok(())
        })
    }

    /// Declare 64-bit atomics (capability and the device feature the runner checks).
    fn int64_atomics(&mut self) -> Result<(), EmitError> {
        self.b.capability(spirv::Capability::Int64Atomics);
        self.int64_atomics = true;
        Ok(())
    }

    /// The float read-modify-writes of `atomic_apply` on u64 words: `old` and `v` masked to
    /// `bits`; the new value.
    pub(super) fn float_atomic_new(&mut self, k: AtomicKind, bits: u32, old: Word, v: Word) -> Result<Word, EmitError> {
        let fmt = match bits {
            32 => FFmt::F32,
            64 => FFmt::F64,
            _ if matches!(k, AtomicKind::FAddPair16 { .. }) => FFmt::F32,
            _ => return Err(unsupported(self.cur_ir, u32::MAX, format!("{k:?}"), "float atomics on values other than 32 or 64 bits")),
        };
        let add = |nan: NanRule| FloatOp {
            kind: FloatKind::Add,
            mode: FloatMode { round: Round::Rn, ftz_in: false, ftz_out: false, sat: false, nan, tininess: Tininess::BeforeRounding },
            fmz: false,
            relu: false,
            omod: Omod::None,
        };
        match k {
            AtomicKind::FAdd => self.float_elem(&add(NanRule::DefaultQuiet), fmt, &[old, v]),
            AtomicKind::FAddFtz => {
                let (a, b) = (self.flush_bits(fmt, old)?, self.flush_bits(fmt, v)?);
                let r = self.float_elem(&add(NanRule::DefaultQuiet), fmt, &[a, b])?;
                self.flush_bits(fmt, r)
            }
            AtomicKind::FAddPair16 { bf16 } => {
                let half = if bf16 { FFmt::BF16 } else { FFmt::F16 };
                let mut r = self.wc64(0)?;
                for sh in [0, 16] {
                    let (a, b) = (self.shr(old, sh)?, self.shr(v, sh)?);
                    let (a, b) = (self.and(a, 0xffff)?, self.and(b, 0xffff)?);
                    let s = self.float_elem(&add(NanRule::NvCanonical), half, &[a, b])?;
                    let s = self.and(s, 0xffff)?;
                    let s = self.shl(s, sh)?;
                    r = self.or(r, s)?;
                }
                Ok(r)
            }
            AtomicKind::FMin | AtomicKind::FMax => {
                let (na, nb) = (self.is_nan_bits(fmt, old)?, self.is_nan_bits(fmt, v)?);
                // Non-NaN values in the order of their keys: negative ones complemented,
                // positive ones with the sign set (so -0 < +0).
                let key = |em: &mut Self, x: Word| -> Result<Word, EmitError> {
                    let s = em.and(x, fmt.sign_mask())?;
                    let (tb, zero) = (em.bool_ty()?, em.u64c(0)?);
                    let neg = em.b.i_not_equal(tb, None, s, zero).map_err(internal)?;
                    let inv = em.b.not(em.t_u64, None, x).map_err(internal)?;
                    let inv = em.and(inv, fmt.all_mask())?;
                    let sm = em.u64c(fmt.sign_mask())?;
                    let pos = em.or(x, sm)?;
                    em.sel(neg, inv, pos)
                };
                let (ka, kb) = (key(self, old)?, key(self, v)?);
                let tb = self.bool_ty()?;
                let b_wins = if k == AtomicKind::FMax { self.b.u_greater_than(tb, None, kb, ka) } else { self.b.u_less_than(tb, None, kb, ka) }.map_err(internal)?;
                let r = self.sel(b_wins, v, old)?;
                let r = self.sel(nb, old, r)?;
                let r = self.sel(na, v, r)?;
                let both = self.land(na, nb)?;
                self.sel_k(both, fmt.qnan(), r)
            }
            _ => Err(internal("an integer atomic reached the float path")),
        }
    }
}
