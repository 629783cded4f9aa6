//! Workgroup memory (AMD LDS, NVIDIA shared memory) and per-lane memory (AMD scratch, NVIDIA
//! local memory) in SPIR-V, for both execution models.
//!
//! Workgroup memory is a Workgroup array of u32 as large as the function's `shared_bytes`,
//! zeroed by the workgroup's invocations before anything else runs (the interpreter's starts
//! zeroed) and followed by a workgroup barrier. Per-lane memory is a Private array of u32 as
//! large as [`super::EmitOptions::scratch_bytes`], zero-initialized. An access is in range when
//! its last byte is (the 32-bit offset as the interpreter reads it); outside, a load reads 0 and
//! a store or atomic writes nothing, as AMD's LDS does (the interpreter stops with an
//! out-of-bounds error there, so a kernel that runs on it never does this). A function with no
//! such memory (its size 0: a flat access's LDS or private path in a kernel that declares
//! none) has every access outside.
//!
//! Lanes-model functions (NVIDIA) access both directly, one invocation per thread: loads and
//! stores of 8-, 16-, 32- and 64-bit values (a vector as the integer of its width; a byte
//! store changes its byte of the word with two atomics); barriers: [`super::barrier`], atomics:
//! [`super::atomic`], accesses under a lane mask: [`super::lane_mask`]. One Vulkan workgroup is one warp: shared memory is
//! the block's when the launch's blocks are one warp (as the corpus runs are). Wave-model functions (AMD) reach them through [`super::amd_memory`], under
//! the lane mask.

use super::amd_memory::Place;
use super::emit::{internal, unsupported, Em, EmitError};
use isabridge_ir::ir::{ExecModel, Function, Value};
use isabridge_ir::ops::mem::{MemOp, Space};
use isabridge_ir::types::Type;
use isabridge_ir::Op;
use rspirv::dr::Builder;
use rspirv::spirv::{self, Word};

/// A u32 array variable standing for a guest memory space (byte offsets).
pub(super) struct WordArray {
    /// The variable.
    pub(super) var: Word,
    /// Pointer type of one word.
    p_word: Word,
    /// Its size in bytes (a multiple of 4).
    pub(super) bytes: u32,
}

impl WordArray {
    /// Declare an array of at least `bytes` bytes in storage class `class` (Workgroup or
    /// Private; a Private one starts zeroed).
    fn declare(b: &mut Builder, class: spirv::StorageClass, bytes: u32, t_u32: Word) -> WordArray {
        let words = bytes.div_ceil(4).max(1);
        let n = b.constant_bit32(t_u32, words);
        let arr = b.type_array(t_u32, n);
        let pa = b.type_pointer(None, class, arr);
        let init = (class == spirv::StorageClass::Private).then(|| b.constant_null(arr));
        let var = b.variable(pa, None, class, init);
        let p_word = b.type_pointer(None, class, t_u32);
        WordArray { var, p_word, bytes: words * 4 }
    }

    /// The workgroup memory of `f` (none when it declares none).
    pub(super) fn workgroup(b: &mut Builder, f: &Function, t_u32: Word) -> Option<WordArray> {
        (f.shared_bytes > 0).then(|| WordArray::declare(b, spirv::StorageClass::Workgroup, f.shared_bytes, t_u32))
    }

    /// The per-lane memory of `f`, `bytes` per lane (none when `f` does not access it: no
    /// scratch access and no buffer access, which may go through a private segment buffer).
    pub(super) fn scratch(b: &mut Builder, f: &Function, bytes: u32, t_u32: Word) -> Option<WordArray> {
        let uses = f.layout.iter().flat_map(|&blk| f.blocks[blk].insts.iter()).any(|&v| match f.insts[v].op {
            Op::Mem(m) => m.space() == Space::Scratch,
            Op::Buffer(_) => true,
            _ => false,
        });
        (uses && bytes > 0).then(|| WordArray::declare(b, spirv::StorageClass::Private, bytes, t_u32))
    }
}

impl Em<'_> {
    /// The array of `place` (workgroup or per-lane memory).
    fn array(&self, place: Place) -> Option<&WordArray> {
        match place {
            Place::Lds => self.lds.as_ref(),
            Place::Scratch => self.scratch.as_ref(),
            Place::Device => None,
        }
    }

    /// The size in bytes of `place`'s array (None when the function has none).
    pub(super) fn array_bytes(&self, place: Place) -> Option<u32> {
        self.array(place).map(|a| a.bytes)
    }

    /// A pointer to the word at byte offset `addr` (u64, 4-byte aligned, in range) of `place`.
    pub(super) fn array_word_ptr(&mut self, place: Place, addr: Word) -> Result<Word, EmitError> {
        let Some(&WordArray { var, p_word, .. }) = self.array(place) else {
            return Err(internal("an access to workgroup or scratch memory the function does not declare"));
        };
        let two = self.wc64(2)?;
        let i = self.b.shift_right_logical(self.t_u64, None, addr, two).map_err(internal)?;
        let i = self.b.u_convert(self.t_u32, None, i).map_err(internal)?;
        self.b.access_chain(p_word, None, var, [i]).map_err(internal)
    }

    /// The byte offset of an access (value `a`, i32 or i64) as a u64 of its low 32 bits, and
    /// whether its `bytes` lie inside `place`'s array (b1; never without an array).
    pub(super) fn array_offset(&mut self, place: Place, a: Value, bytes: u32) -> Result<(Word, Word), EmitError> {
        let mut addr = self.get(a)?;
        if self.vty(a)? != Type::I64 {
            addr = self.low_u32(a, addr)?;
            addr = self.b.u_convert(self.t_u64, None, addr).map_err(internal)?;
        }
        let m32 = self.wc64(0xffff_ffff)?;
        addr = self.b.bitwise_and(self.t_u64, None, addr, m32).map_err(internal)?;
        let size = self.array_bytes(place).unwrap_or(0);
        if bytes > size {
            return Ok((addr, self.konst(Type::B1, 0)?));
        }
        let tb = self.ty(Type::B1)?;
        let lim = self.wc64((size - bytes) as u64 + 1)?;
        let inside = self.b.u_less_than(tb, None, addr, lim).map_err(internal)?;
        Ok((addr, inside))
    }

    /// Zero the workgroup memory (the preamble, where every invocation of the workgroup runs):
    /// invocation `i` of `n` clears words `i, i + n, ...`, then a workgroup barrier. `gx` is
    /// the global invocation index (u32).
    pub(super) fn zero_workgroup_memory(&mut self, gx: Word, n: u32) -> Result<(), EmitError> {
        let Some(&WordArray { var, p_word, bytes }) = self.lds.as_ref() else { return Ok(()) };
        let nc = self.wc32(n)?;
        let local = self.b.u_mod(self.t_u32, None, gx, nc).map_err(internal)?;
        let (words, step, zero) = (self.wc32(bytes / 4)?, self.wc32(n)?, self.wc32(0)?);
        let tb = self.ty(Type::B1)?;
        let (header, body, cont, merge) = (self.b.id(), self.b.id(), self.b.id(), self.b.id());
        let from = self.cur;
        self.b.branch(header).map_err(internal)?;
        self.b.begin_block(Some(header)).map_err(internal)?;
        let next = self.b.id();
        let i = self.b.phi(self.t_u32, None, [(local, from), (next, cont)]).map_err(internal)?;
        let go = self.b.u_less_than(tb, None, i, words).map_err(internal)?;
        self.b.loop_merge(merge, cont, spirv::LoopControl::NONE, []).map_err(internal)?;
        self.b.branch_conditional(go, body, merge, []).map_err(internal)?;
        self.b.begin_block(Some(body)).map_err(internal)?;
        let p = self.b.access_chain(p_word, None, var, [i]).map_err(internal)?;
        self.b.store(p, zero, None, []).map_err(internal)?;
        self.b.branch(cont).map_err(internal)?;
        self.b.begin_block(Some(cont)).map_err(internal)?;
        self.b.i_add(self.t_u32, Some(next), i, step).map_err(internal)?;
        self.b.branch(header).map_err(internal)?;
        self.cur = self.b.begin_block(Some(merge)).map_err(internal)?;
        self.region = self.cur;
        self.loop_cut_where(go)?;
        self.barrier()
    }

    /// A workgroup-memory or per-lane-memory op, or a barrier, of a lanes-model function;
    /// false when `v` is not one.
    pub(super) fn lanes_local_inst(&mut self, v: Value) -> Result<bool, EmitError> {
        if self.f.model != ExecModel::Lanes {
            return Ok(false);
        }
        let data = &self.f.insts[v];
        let (op, args, ty) = (data.op.clone(), data.args.clone(), data.ty);
        let text = op.mnemonic();
        let (place, m) = match op {
            Op::Mem(m @ (MemOp::Load(Space::Shared | Space::Scratch) | MemOp::Store(Space::Shared | Space::Scratch))) => {
                (if m.space() == Space::Shared { Place::Lds } else { Place::Scratch }, m)
            }
            _ => return Ok(false),
        };
        let t = match m {
            MemOp::Load(_) => ty.ok_or_else(|| internal("a load without a type"))?,
            _ => self.vty(args[1])?,
        };
        // Vectors (at most 64 bits) move as the integer of their width.
        if t == Type::B1 || t == Type::Mask || !matches!(t.bits(), 8 | 16 | 32 | 64) {
            return Err(unsupported(self.cur_ir, v.0, text, "shared or local memory values other than 8, 16, 32 or 64 bits"));
        }
        let bytes = t.bits() / 8;
        if self.array_bytes(place).is_none() {
            // No such memory: every access is outside it.
            if let MemOp::Load(_) = m {
                let z = self.konst(t, 0)?;
                self.define(v, z)?;
            }
            return Ok(true);
        }
        let (addr, go) = self.array_offset(place, args[0], bytes)?;
        if let MemOp::Store(_) = m {
            let x = self.get(args[1])?;
            let w = self.value_to_word(x, t)?;
            self.guarded(go, None, |em| em.store_bytes(place, addr, bytes as u8, w).map(|_| None))?;
            return Ok(true);
        }
        let zero = self.wc64(0)?;
        let w = self.guarded(go, Some((self.t_u64, zero)), |em| em.load_bytes(place, addr, bytes as u8).map(Some))?;
        let w = w.ok_or_else(|| internal("a guarded load without a result"))?;
        let r = self.word_to_value(w, t)?;
        self.define(v, r)?;
        Ok(true)
    }
}
