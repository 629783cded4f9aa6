//! The heap memory model ([`MemoryModel::Heap`]): every byte of guest global memory the kernel
//! can reach lives in one storage buffer, so the module needs neither buffer device addresses
//! nor the `PhysicalStorageBufferAddresses` capability (hosts without `bufferDeviceAddress`,
//! and WebGPU, whose shader translator naga has no physical pointers, can run it).
//!
//! Layout: descriptor set 0, binding [`HEAP_BINDING`], a storage buffer of 32-bit words. Words
//! 0..[`HEAP_HEADER_WORDS`] are the fault record; guest byte `a` is buffer byte
//! `HEAP_HEADER_WORDS * 4 + (a - heap_base)`, where `heap_base` is the 64-bit push constant at
//! byte [`HEAP_BASE_OFFSET`] (a multiple of 16 chosen by the host). A guest address is thus an
//! index `(a - heap_base) / 4` into the guest words.
//!
//! Rules: an access of `n` bytes at `a` takes place when `heap_base <= a` and `a + n` is within
//! the heap, and `a` is a multiple of `min(n, 4)` (2-byte accesses stay within one word; wider
//! ones are whole words, as the device-address model declares them aligned). Otherwise it is a
//! fault: a load gives 0, a store or atomic writes nothing of guest memory, and word
//! [`HEAP_FAULT_WORD`] becomes 1, which the runner reports as a typed error (the interpreter's
//! out-of-bounds access is an error too). Accesses never branch: a faulting one is redirected
//! to a sink word of the header. Sub-word stores change their bytes with an atomic AND and OR
//! on the containing word; in a module with any such atomic, every heap access is an atomic
//! load or store with relaxed semantics (one buffer is either atomic or not for naga).

use super::emit::{internal, Em, EmitError};
use isabridge_ir::ir::Function;
use isabridge_ir::ops::buffer::BufferKind;
use isabridge_ir::ops::image::ImageKind;
use isabridge_ir::ops::mem::{MemOp, Space};
use isabridge_ir::types::Type;
use isabridge_ir::Op;
use rspirv::dr::{Builder, Operand};
use rspirv::spirv::{self, Word};

/// How the emitted module reaches guest global memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MemoryModel {
    /// Guest pointers are Vulkan buffer device addresses (PhysicalStorageBuffer64).
    #[default]
    DeviceAddress,
    /// Guest memory is one storage buffer at [`HEAP_BINDING`]; see the module documentation.
    Heap,
}

/// Descriptor binding (set 0) of the heap buffer in the heap model.
pub const HEAP_BINDING: u32 = 4;
/// Words of the heap buffer before guest memory (the fault record).
pub const HEAP_HEADER_WORDS: u32 = 4;
/// The header word that becomes 1 when an access faults.
pub const HEAP_FAULT_WORD: u32 = 0;
/// The header word faulting accesses are redirected to (its value means nothing).
const SINK_WORD: u32 = 3;
/// Byte offset of the 64-bit heap base in the push constants (after the invocation count).
pub const HEAP_BASE_OFFSET: u32 = 8;

/// Device scope and relaxed semantics, for heap atomics.
const DEVICE: u32 = 1;

/// The heap model's module-level state.
pub(super) struct HeapVars {
    /// The heap buffer variable.
    var: Word,
    /// Pointer type to one of its words.
    p_word: Word,
    /// Every access is atomic (the module has sub-word stores).
    atomic: bool,
    /// The heap base (u64), loaded in the entry block.
    base: Word,
    /// Guest bytes in the heap (u64), from the buffer's length.
    len: Word,
}

/// Whether `f` needs atomics on heap words (sub-word stores of either execution model).
fn needs_atomics(f: &Function) -> bool {
    f.layout.iter().flat_map(|&b| f.blocks[b].insts.iter()).any(|&v| {
        let d = &f.insts[v];
        match d.op {
            Op::Buffer(bo) => matches!(bo.kind, BufferKind::Store | BufferKind::Atomic(_)) && bo.bytes < 4,
            // Image stores change their bytes with atomics, image atomics are atomics.
            Op::Image(io) => matches!(io.kind, ImageKind::Store | ImageKind::Atomic(_)),
            Op::Mem(MemOp::Store(Space::Global)) => d.args.get(1).and_then(|&x| f.ty(x)).is_some_and(|t| t.bits() % 32 != 0),
            _ => false,
        }
    })
}

impl HeapVars {
    /// Declare the heap buffer of `f`'s module (its base and length come with [`Em::heap_entry`]).
    pub(super) fn declare(b: &mut Builder, f: &Function, t_u32: Word) -> HeapVars {
        // The runtime array of u32 is one type with the constant banks' (rspirv deduplicates
        // it), which may carry its stride already.
        let arr = b.type_runtime_array(t_u32);
        let strided = b.module_ref().annotations.iter().any(|i| {
            i.class.opcode == spirv::Op::Decorate
                && i.operands.first() == Some(&Operand::IdRef(arr))
                && i.operands.get(1) == Some(&Operand::Decoration(spirv::Decoration::ArrayStride))
        });
        if !strided {
            b.decorate(arr, spirv::Decoration::ArrayStride, [Operand::LiteralBit32(4)]);
        }
        // A struct of its own (the constant banks' one is read-only).
        let id = b.id();
        let st = b.type_struct_id(Some(id), [arr]);
        b.decorate(st, spirv::Decoration::Block, []);
        b.member_decorate(st, 0, spirv::Decoration::Offset, [Operand::LiteralBit32(0)]);
        let pt = b.type_pointer(None, spirv::StorageClass::StorageBuffer, st);
        let var = b.variable(pt, None, spirv::StorageClass::StorageBuffer, None);
        b.decorate(var, spirv::Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
        b.decorate(var, spirv::Decoration::Binding, [Operand::LiteralBit32(HEAP_BINDING)]);
        let p_word = b.type_pointer(None, spirv::StorageClass::StorageBuffer, t_u32);
        HeapVars { var, p_word, atomic: needs_atomics(f), base: 0, len: 0 }
    }

    /// The variable the entry point lists.
    pub(super) fn interface(&self) -> Word {
        self.var
    }
}

impl Em<'_> {
    fn hk32(&mut self, x: u32) -> Result<Word, EmitError> {
        self.konst(Type::I32, x as u64)
    }

    fn hk64(&mut self, x: u64) -> Result<Word, EmitError> {
        self.konst(Type::I64, x)
    }

    fn heap_vars(&self) -> Result<(Word, Word, bool, Word, Word), EmitError> {
        let h = self.heap.as_ref().ok_or_else(|| internal("heap access outside the heap model"))?;
        Ok((h.var, h.p_word, h.atomic, h.base, h.len))
    }

    /// In the entry block: load the heap base from push-constant member 1 of `pc_var` and the
    /// guest length from the buffer's.
    pub(super) fn heap_entry(&mut self, pc_var: Word) -> Result<(), EmitError> {
        let (var, ..) = self.heap_vars()?;
        let one = self.hk32(1)?;
        let pp = self.b.type_pointer(None, spirv::StorageClass::PushConstant, self.t_u64);
        let p = self.b.access_chain(pp, None, pc_var, [one]).map_err(internal)?;
        let base = self.b.load(self.t_u64, None, p, None, []).map_err(internal)?;
        let words = self.b.array_length(self.t_u32, None, var, 0).map_err(internal)?;
        let words = self.b.u_convert(self.t_u64, None, words).map_err(internal)?;
        let (two, header) = (self.hk64(2)?, self.hk64(HEAP_HEADER_WORDS as u64 * 4)?);
        let bytes = self.b.shift_left_logical(self.t_u64, None, words, two).map_err(internal)?;
        // A buffer shorter than the header holds no guest bytes.
        let tb = self.ty(Type::B1)?;
        let short = self.b.u_less_than(tb, None, bytes, header).map_err(internal)?;
        let rest = self.b.i_sub(self.t_u64, None, bytes, header).map_err(internal)?;
        let zero = self.hk64(0)?;
        let len = self.b.select(self.t_u64, None, short, zero, rest).map_err(internal)?;
        if let Some(h) = self.heap.as_mut() {
            h.base = base;
            h.len = len;
        }
        Ok(())
    }

    /// The pointer to the first heap word of an access of `bytes` at guest address `addr` (u64),
    /// and whether it takes place (b1); a faulting access points at the sink word and raises the
    /// fault flag.
    fn heap_word_ptr(&mut self, addr: Word, bytes: u32) -> Result<(Word, Word), EmitError> {
        let (var, p_word, _, base, len) = self.heap_vars()?;
        let (t32, t64) = (self.t_u32, self.t_u64);
        let tb = self.ty(Type::B1)?;
        let off = self.b.i_sub(t64, None, addr, base).map_err(internal)?;
        let low = self.b.u_greater_than_equal(tb, None, addr, base).map_err(internal)?;
        let inside = self.b.u_less_than(tb, None, off, len).map_err(internal)?;
        let left = self.b.i_sub(t64, None, len, off).map_err(internal)?;
        let n = self.hk64(bytes as u64)?;
        let fits = self.b.u_less_than_equal(tb, None, n, left).map_err(internal)?;
        let am = self.hk64(bytes.min(4) as u64 - 1)?;
        let mis = self.b.bitwise_and(t64, None, off, am).map_err(internal)?;
        let zero64 = self.hk64(0)?;
        let aligned = self.b.i_equal(tb, None, mis, zero64).map_err(internal)?;
        let ok = self.b.logical_and(tb, None, low, inside).map_err(internal)?;
        let ok = self.b.logical_and(tb, None, ok, fits).map_err(internal)?;
        let ok = self.b.logical_and(tb, None, ok, aligned).map_err(internal)?;
        let two = self.hk64(2)?;
        let w = self.b.shift_right_logical(t64, None, off, two).map_err(internal)?;
        let w = self.b.u_convert(t32, None, w).map_err(internal)?;
        let hdr = self.hk32(HEAP_HEADER_WORDS)?;
        let w = self.b.i_add(t32, None, w, hdr).map_err(internal)?;
        let (sink, flag) = (self.hk32(SINK_WORD)?, self.hk32(HEAP_FAULT_WORD)?);
        let idx = self.b.select(t32, None, ok, w, sink).map_err(internal)?;
        // The flag: 1 into the fault word when the access faults, into the sink otherwise.
        let fidx = self.b.select(t32, None, ok, sink, flag).map_err(internal)?;
        let zero = self.hk32(0)?;
        let fp = self.b.access_chain(p_word, None, var, [zero, fidx]).map_err(internal)?;
        let one = self.hk32(1)?;
        self.heap_store_ptr(fp, one)?;
        let p = self.b.access_chain(p_word, None, var, [zero, idx]).map_err(internal)?;
        Ok((p, ok))
    }

    fn heap_load_ptr(&mut self, p: Word) -> Result<Word, EmitError> {
        let (_, _, atomic, ..) = self.heap_vars()?;
        if atomic {
            let (scope, sem) = (self.hk32(DEVICE)?, self.hk32(0)?);
            self.b.atomic_load(self.t_u32, None, p, scope, sem).map_err(internal)
        } else {
            self.b.load(self.t_u32, None, p, None, []).map_err(internal)
        }
    }

    fn heap_store_ptr(&mut self, p: Word, x: Word) -> Result<(), EmitError> {
        let (_, _, atomic, ..) = self.heap_vars()?;
        if atomic {
            let (scope, sem) = (self.hk32(DEVICE)?, self.hk32(0)?);
            self.b.atomic_store(p, scope, sem, x).map_err(internal)
        } else {
            self.b.store(p, x, None, []).map_err(internal)
        }
    }

    /// Heap word pointers of an access of `bytes` at `addr`: one per word covered, and whether
    /// the access takes place.
    fn heap_words(&mut self, addr: Word, bytes: u32) -> Result<(Vec<Word>, Word), EmitError> {
        let (var, p_word, ..) = self.heap_vars()?;
        let (p0, ok) = self.heap_word_ptr(addr, bytes)?;
        let mut ps = vec![p0];
        if bytes > 4 {
            // The following words (each the sink when the access faults).
            let (t32, t64) = (self.t_u32, self.t_u64);
            let (_, _, _, base, _) = self.heap_vars()?;
            let off = self.b.i_sub(t64, None, addr, base).map_err(internal)?;
            let two = self.hk64(2)?;
            let w = self.b.shift_right_logical(t64, None, off, two).map_err(internal)?;
            let w = self.b.u_convert(t32, None, w).map_err(internal)?;
            let zero = self.hk32(0)?;
            for k in 1..bytes.div_ceil(4) {
                let kk = self.hk32(HEAP_HEADER_WORDS + k)?;
                let wk = self.b.i_add(t32, None, w, kk).map_err(internal)?;
                let sink = self.hk32(SINK_WORD)?;
                let idx = self.b.select(t32, None, ok, wk, sink).map_err(internal)?;
                ps.push(self.b.access_chain(p_word, None, var, [zero, idx]).map_err(internal)?);
            }
        }
        Ok((ps, ok))
    }

    /// In the heap model, a bitcast between integer types of different element counts (two
    /// u32 and one u64, two u16 and one u32, four u16 and one u64, ...) as shifts and
    /// conversions through one integer of the total width (naga types a bitcast as keeping its
    /// operand's vector size, so it cannot read one that joins or splits elements); `None` for
    /// every other cast or outside the heap model.
    pub(super) fn heap_cast(&mut self, x: Word, from: Word, to: Word) -> Result<Option<Word>, EmitError> {
        if self.heap.is_none() {
            return Ok(None);
        }
        let (Some((fl, fb, fe)), Some((tl, tb, te))) = (self.int_shape(from), self.int_shape(to)) else { return Ok(None) };
        let total = fl * fb;
        if fl == tl || total != tl * tb || !matches!(total, 32 | 64) {
            return Ok(None);
        }
        let wide = if total == 64 { self.t_u64 } else { self.t_u32 };
        let k = |em: &mut Self, n: u32| if total == 64 { em.hk64(n as u64) } else { em.hk32(n) };
        // The operand as one integer; component 0 is the low bits, as OpBitcast defines it.
        let mut acc = x;
        if fl > 1 {
            for i in 0..fl {
                let c = self.b.composite_extract(fe, None, x, [i]).map_err(internal)?;
                let c = self.b.u_convert(wide, None, c).map_err(internal)?;
                acc = if i == 0 {
                    c
                } else {
                    let sh = k(self, i * fb)?;
                    let c = self.b.shift_left_logical(wide, None, c, sh).map_err(internal)?;
                    self.b.bitwise_or(wide, None, c, acc).map_err(internal)?
                };
            }
        }
        if tl == 1 {
            return Ok(Some(acc));
        }
        let mut parts = Vec::with_capacity(tl as usize);
        for j in 0..tl {
            let c = if j == 0 {
                acc
            } else {
                let sh = k(self, j * tb)?;
                self.b.shift_right_logical(wide, None, acc, sh).map_err(internal)?
            };
            parts.push(self.b.u_convert(te, None, c).map_err(internal)?);
        }
        Ok(Some(self.b.composite_construct(to, None, parts).map_err(internal)?))
    }

    /// The element count, element bits and element type of SPIR-V integer scalar or vector
    /// type `t`; `None` for any other type.
    fn int_shape(&self, t: Word) -> Option<(u32, u32, Word)> {
        let def = |id: Word| self.b.module_ref().types_global_values.iter().find(|i| i.result_id == Some(id));
        let bits = |i: &rspirv::dr::Instruction| match (i.class.opcode, i.operands.first()) {
            (spirv::Op::TypeInt, Some(Operand::LiteralBit32(w))) => Some(*w),
            _ => None,
        };
        let d = def(t)?;
        match (d.class.opcode, d.operands.as_slice()) {
            (spirv::Op::TypeVector, [Operand::IdRef(e), Operand::LiteralBit32(n)]) => Some((*n, bits(def(*e)?)?, *e)),
            _ => Some((1, bits(d)?, t)),
        }
    }

    /// In the heap model, a non-finite f64 constant as the bitcast of its bits in the current
    /// block (naga refuses infinite and NaN float literals); `None` otherwise.
    pub(super) fn heap_f64_nonfinite(&mut self, t_f64: Word, v: f64) -> Option<Word> {
        if self.heap.is_none() || v.is_finite() {
            return None;
        }
        let bits = self.hk64(v.to_bits()).ok()?;
        self.b.bitcast(t_f64, None, bits).ok()
    }

    /// A u32 word of guest memory at `addr` (u64; the wave model's buffer accesses, which
    /// align it themselves): 0 when the access faults.
    pub(super) fn heap_load_word(&mut self, addr: Word) -> Result<Word, EmitError> {
        let (ps, ok) = self.heap_words(addr, 4)?;
        let x = self.heap_load_ptr(ps[0])?;
        let zero = self.hk32(0)?;
        self.b.select(self.t_u32, None, ok, x, zero).map_err(internal)
    }

    /// Store u32 `x` at `addr` (u64) in guest memory.
    pub(super) fn heap_store_word(&mut self, addr: Word, x: Word) -> Result<(), EmitError> {
        let (ps, _) = self.heap_words(addr, 4)?;
        self.heap_store_ptr(ps[0], x)
    }

    /// The pointer for an atomic on the u32 word at `addr` (u64): the sink when it faults.
    pub(super) fn heap_atomic_ptr(&mut self, addr: Word) -> Result<Word, EmitError> {
        Ok(self.heap_words(addr, 4)?.0[0])
    }

    /// A global load of type `t` at `addr` (u64) in the heap model.
    pub(super) fn heap_load(&mut self, t: Type, addr: Word) -> Result<Word, EmitError> {
        let ty = self.ty(t)?;
        let bytes = t.bits() / 8;
        let (ps, ok) = self.heap_words(addr, bytes)?;
        let mut ws = Vec::with_capacity(ps.len());
        let zero = self.hk32(0)?;
        for p in ps {
            let x = self.heap_load_ptr(p)?;
            ws.push(self.b.select(self.t_u32, None, ok, x, zero).map_err(internal)?);
        }
        let t32 = self.t_u32;
        match t {
            Type::S(_) if bytes == 4 => self.cast(ws[0], t32, ty),
            Type::S(_) if bytes == 8 => {
                let t64 = self.t_u64;
                let lo = self.b.u_convert(t64, None, ws[0]).map_err(internal)?;
                let hi = self.b.u_convert(t64, None, ws[1]).map_err(internal)?;
                let k32 = self.hk64(32)?;
                let hi = self.b.shift_left_logical(t64, None, hi, k32).map_err(internal)?;
                let x = self.b.bitwise_or(t64, None, hi, lo).map_err(internal)?;
                self.cast(x, t64, ty)
            }
            Type::S(_) if bytes == 2 => {
                let x = self.half_of(ws[0], addr)?;
                let t16 = self.ty(Type::I16)?;
                let h = self.b.u_convert(t16, None, x).map_err(internal)?;
                self.cast(h, t16, ty)
            }
            Type::V(s, n) if s.bits() == 32 => {
                let et = self.ty(Type::S(s))?;
                let mut parts = Vec::new();
                for &w in ws.iter().take(n as usize) {
                    parts.push(self.cast(w, t32, et)?);
                }
                self.b.composite_construct(ty, None, parts).map_err(internal)
            }
            Type::V(s, n) if s.bits() == 16 => {
                let et = self.ty(Type::S(s))?;
                let t16 = self.ty(Type::I16)?;
                let k16 = self.hk32(16)?;
                let mut parts = Vec::new();
                for i in 0..n as usize {
                    let w = ws[i / 2];
                    let x = if i % 2 == 1 { self.b.shift_right_logical(t32, None, w, k16).map_err(internal)? } else { w };
                    let h = self.b.u_convert(t16, None, x).map_err(internal)?;
                    parts.push(self.cast(h, t16, et)?);
                }
                self.b.composite_construct(ty, None, parts).map_err(internal)
            }
            _ => Err(super::emit::unsupported(self.cur_ir, u32::MAX, t.to_string(), "heap loads of this type")),
        }
    }

    /// The 16 bits of word `w` that guest address `addr` (2-byte aligned) names, in the low half.
    fn half_of(&mut self, w: Word, addr: Word) -> Result<Word, EmitError> {
        let sh = self.half_shift(addr)?;
        self.b.shift_right_logical(self.t_u32, None, w, sh).map_err(internal)
    }

    /// 16 when `addr` names the high half of its word, else 0 (u32).
    fn half_shift(&mut self, addr: Word) -> Result<Word, EmitError> {
        let a = self.b.u_convert(self.t_u32, None, addr).map_err(internal)?;
        let (two, eight) = (self.hk32(2)?, self.hk32(8)?);
        let byte = self.b.bitwise_and(self.t_u32, None, a, two).map_err(internal)?;
        self.b.i_mul(self.t_u32, None, byte, eight).map_err(internal)
    }

    /// A global store of `x` (type `t`) at `addr` (u64) in the heap model.
    pub(super) fn heap_store(&mut self, t: Type, addr: Word, x: Word) -> Result<(), EmitError> {
        let from = self.ty(t)?;
        let bytes = t.bits() / 8;
        let t32 = self.t_u32;
        // The value as u32 words, and for a trailing half word its 16 bits.
        let mut words = Vec::new();
        let mut half = None;
        match t {
            Type::S(_) if bytes == 4 => words.push(self.cast(x, from, t32)?),
            Type::S(_) if bytes == 8 => {
                let t64 = self.t_u64;
                let u = self.cast(x, from, t64)?;
                let k32 = self.hk64(32)?;
                words.push(self.b.u_convert(t32, None, u).map_err(internal)?);
                let hi = self.b.shift_right_logical(t64, None, u, k32).map_err(internal)?;
                words.push(self.b.u_convert(t32, None, hi).map_err(internal)?);
            }
            Type::S(_) if bytes == 2 => {
                let t16 = self.ty(Type::I16)?;
                let h = self.cast(x, from, t16)?;
                half = Some(self.b.u_convert(t32, None, h).map_err(internal)?);
            }
            Type::V(s, n) if s.bits() == 32 => {
                let et = self.ty(Type::S(s))?;
                for i in 0..n as u32 {
                    let e = self.b.composite_extract(et, None, x, [i]).map_err(internal)?;
                    words.push(self.cast(e, et, t32)?);
                }
            }
            Type::V(s, n) if s.bits() == 16 && n % 2 == 0 => {
                let et = self.ty(Type::S(s))?;
                let t16 = self.ty(Type::I16)?;
                let k16 = self.hk32(16)?;
                for i in (0..n as u32).step_by(2) {
                    let mut hs = [0; 2];
                    for (j, h) in hs.iter_mut().enumerate() {
                        let e = self.b.composite_extract(et, None, x, [i + j as u32]).map_err(internal)?;
                        let e = self.cast(e, et, t16)?;
                        *h = self.b.u_convert(t32, None, e).map_err(internal)?;
                    }
                    let hi = self.b.shift_left_logical(t32, None, hs[1], k16).map_err(internal)?;
                    words.push(self.b.bitwise_or(t32, None, hi, hs[0]).map_err(internal)?);
                }
            }
            _ => return Err(super::emit::unsupported(self.cur_ir, u32::MAX, t.to_string(), "heap stores of this type")),
        }
        let (ps, _) = self.heap_words(addr, bytes)?;
        if let Some(h) = half {
            // Other invocations may write the other half: clear and set these bits with atomics.
            let sh = self.half_shift(addr)?;
            let m = self.hk32(0xffff)?;
            let fm = self.b.shift_left_logical(t32, None, m, sh).map_err(internal)?;
            let keep = self.b.not(t32, None, fm).map_err(internal)?;
            let set = self.b.shift_left_logical(t32, None, h, sh).map_err(internal)?;
            let (scope, sem) = (self.hk32(DEVICE)?, self.hk32(0)?);
            self.b.atomic_and(t32, None, ps[0], scope, sem, keep).map_err(internal)?;
            self.b.atomic_or(t32, None, ps[0], scope, sem, set).map_err(internal)?;
            return Ok(());
        }
        for (p, w) in ps.into_iter().zip(words) {
            self.heap_store_ptr(p, w)?;
        }
        Ok(())
    }
}
