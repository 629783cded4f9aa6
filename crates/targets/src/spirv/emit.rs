//! IR function to a SPIR-V compute module.
//!
//! The subset: per-lane functions ([`ExecModel::Lanes`]) in SSA form whose values are `b1`,
//! `i32`, `i64` or `f32`; constants, parameters, `select`, `bitcast`; integer add, sub (wrapping),
//! mul (low half), and, or, xor, not, neg, min, max, shifts with either amount rule, and
//! comparisons; f32 add, sub and mul rounded to nearest with denormals kept, no saturation,
//! FMZ, ReLU or output modifier, and the NVIDIA-canonical or default-quiet NaN rule; f32
//! comparisons (FTZ ones flush their inputs); three-input logic; b1 and, or, xor, not;
//! integer extension and truncation; global loads and stores of those types through
//! PhysicalStorageBuffer64 pointers; any control flow, through the structurizer.
//!
//! Exactness: every float op is decorated `NoContraction`, and a module with f32 values
//! declares `DenormPreserve`, `SignedZeroInfNanPreserve` and `RoundingModeRTE` for 32-bit
//! floats, listed in [`Kernel::requires`] (a runner refuses a device that does not report them:
//! no software denormal path yet); a NaN result is replaced by the rule's NaN, since SPIR-V
//! leaves NaN payloads open.
//!
//! Interface: one invocation per lane, workgroups of [`Kernel::workgroup_size`] invocations,
//! invocation `g` = `GlobalInvocationId.x`. Descriptor set 0, binding [`PARAMS_BINDING`]: a
//! storage buffer of 64-bit words, `Param(n)` of invocation `g` at word `g * params + n` (its
//! low bits for narrower types, `!= 0` for `b1`). Binding [`OUTPUTS_BINDING`]: a storage buffer
//! of 64-bit words, output `i` of the returning invocation at word `g * outputs + i`, zero
//! extended (`b1` as 0 or 1). Global memory accesses are aligned to their size.
//!
//! With [`MemoryModel::Heap`] (see [`EmitOptions`]) guest global memory is one storage buffer
//! instead of device addresses (module `heap`: binding, heap base and fault rules).
//!
//! Values are kept in SSA ids within a block; a value used in another block, a phi and a
//! structurizer variable live in function-local variables (drivers promote them to
//! registers), since the structured graph need not keep the original dominance.

use crate::structurize::{self, Action, Cond, Merge, ScfGraph, ScfTerm, StructurizeError};
use isabridge_ir::ir::{Block, ExecModel, Function, Terminator, Value};
use isabridge_ir::ops::call::Callee;
use isabridge_ir::ops::control::SyncOp;
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::image::{ImageKind, ImageOp};

use isabridge_ir::ops::int::{ICmp, IntOp, Overflow, ShiftRule};
use isabridge_ir::ops::mem::{MemOp, Space};
use isabridge_ir::ops::warp::WarpOp;

use isabridge_ir::types::{Scalar, Type};
use isabridge_ir::Op;
use rspirv::binary::Assemble;
use rspirv::dr::{Builder, Operand};
use rspirv::spirv::{self, Word};
use std::collections::HashMap;

use super::amd_memory::Place;
use super::heap::{HeapVars, MemoryModel};

/// Descriptor binding (set 0) of the parameter buffer.
pub const PARAMS_BINDING: u32 = 0;
/// Descriptor binding (set 0) of the output buffer.
pub const OUTPUTS_BINDING: u32 = 1;
/// Descriptor binding (set 0) of the constant banks: a storage buffer of 32-bit words, bank
/// `k` at byte `k * CONSTANT_BANK_BYTES`.
pub const CONSTANT_BINDING: u32 = 2;
/// Bytes per constant bank in the [`CONSTANT_BINDING`] buffer.
pub const CONSTANT_BANK_BYTES: u32 = 0x1_0000;

/// An emitted compute kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kernel {
    /// The SPIR-V words.
    pub words: Vec<u32>,
    /// The entry point's name.
    pub entry: String,
    /// Invocations per workgroup (the function's wave size, 32 when it names none, times the
    /// waves of [`EmitOptions::workgroup_waves`] it runs together).
    pub workgroup_size: u32,
    /// Parameter words per invocation.
    pub params: u32,
    /// Output words per invocation.
    pub outputs: u32,
    /// Vulkan device features and properties the module needs (their Vulkan names); a runner
    /// refuses a device that lacks one.
    pub requires: Vec<&'static str>,
    /// The kernel may trap: it writes the trap buffer at [`super::TRAP_BINDING`] (every kernel
    /// the emitter makes does: any loop may be one a device ends early).
    pub traps: bool,
    /// How the module reaches guest global memory.
    pub memory: MemoryModel,
    /// The guest's workgroup memory (AMD LDS, NVIDIA shared memory, static and dynamic) the
    /// module declares: the function's `shared_bytes` rounded up to whole words.
    pub shared_bytes: u32,
    /// All the Workgroup storage the module declares: the guest's ([`Kernel::shared_bytes`])
    /// and the cross-lane exchange's; a device whose `maxComputeSharedMemorySize` is smaller
    /// cannot run it.
    pub workgroup_bytes: u32,
}

/// Emission options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct EmitOptions {
    /// How guest global memory is reached (device addresses by default).
    pub memory: MemoryModel,
    /// Bytes of scratch (AMD) or local (NVIDIA) memory per lane: the size of the lane's
    /// private array (`super::local_memory`); 0 when the kernel has none.
    pub scratch_bytes: u32,
    /// Waves of a guest workgroup (AMD), run as one Vulkan workgroup sharing its LDS and
    /// barriers when the function uses them (`super::multi_wave`); 0 or 1: one wave per
    /// workgroup.
    pub workgroup_waves: u32,
}

/// Why a function could not be emitted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EmitError {
    /// The function uses something outside the emitted subset.
    #[error("block {block}, value {value}: `{op}` is not emitted yet: {why}")]
    Unsupported {
        /// The IR block.
        block: u32,
        /// The IR value (`u32::MAX` for a terminator or the function itself).
        value: u32,
        /// The operation (IR text form) or type.
        op: String,
        /// What is missing.
        why: &'static str,
    },
    /// The function calls a function its object leaves undefined (an unlinked symbol, as an
    /// OpenCL object's builtins before linking): no run can execute it, on the interpreter or
    /// on any device.
    #[error("block {block}, value {value}: calls undefined function {name}: the object leaves it unlinked, so no run can execute it")]
    UndefinedFunction {
        /// The IR block.
        block: u32,
        /// The IR value of the call.
        value: u32,
        /// The symbol called.
        name: String,
    },
    /// The control flow could not be structured.
    #[error("structurizer: {0}")]
    Structure(#[from] StructurizeError),
    /// An emitter invariant broke (a bug).
    #[error("SPIR-V emission: {0}")]
    Internal(String),
}

pub(super) fn internal(e: impl std::fmt::Display) -> EmitError {
    EmitError::Internal(e.to_string())
}

/// Where a value's SPIR-V id is valid.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Scope {
    /// Everywhere (constants, parameters loaded in the entry block).
    Global,
    /// In this region: a SPIR-V block and the blocks it continues as after a selection that
    /// `guarded` or a trap splits it with (its values dominate them); see [`Em::region`].
    Block(Word),
}

pub(super) struct Em<'f> {
    pub(super) f: &'f Function,
    pub(super) b: Builder,
    pub(super) types: HashMap<Type, Word>,
    pub(super) consts: HashMap<(Word, u64), Word>,
    pub(super) ids: HashMap<Value, (Word, Scope)>,
    pub(super) vars: HashMap<Value, Word>,
    pub(super) svars: Vec<Word>,
    pub(super) cur: Word,
    /// The region values defined now belong to: the label of the block that began it. A
    /// selection in the middle of a block (`guarded`, a trap) continues the region in its
    /// merge block, so its values stay usable there without rescoping every id.
    pub(super) region: Word,
    pub(super) cur_ir: u32,
    pub(super) gid: Word,
    pub(super) out_var: Word,
    pub(super) outputs: u32,
    pub(super) t_u32: Word,
    pub(super) t_u64: Word,
    /// The constant-bank buffer variable.
    pub(super) const_var: Word,
    /// 16-bit integers used.
    pub(super) int16: bool,
    /// 8-bit integers used.
    pub(super) int8: bool,
    /// i8 values are zero-extended u32 words (`super::int8_words`; heap model only).
    pub(super) i8_words: bool,
    /// 64-bit floats used (the f64 arithmetic of the float paths).
    pub(super) float64: bool,
    /// 64-bit atomics on device memory used (`super::atomic`).
    pub(super) int64_atomics: bool,
    /// The Private variables of atomics' compare-exchange loops (`super::atomic`), once used.
    pub(super) rmw_vars: Option<(Word, Word)>,
    /// Private variables declared during emission (`super::lane_loop`), for the interface.
    pub(super) private_vars: Vec<Word>,
    /// The Private words `left` and `cut` of `super::loop_guard`.
    pub(super) loop_words: Option<(Word, Word)>,
    /// Lane-loop counter and accumulator pairs not in use now (`super::lane_loop`).
    pub(super) free_loop_vars: Vec<(Word, Word)>,
    /// The helper functions called (`super::helper_fn`).
    pub(super) helpers: Vec<super::helper_fn::Helper>,
    /// The GLSL.std.450 import, once used.
    pub(super) glsl_set: Option<Word>,
    /// The wave model's variables (wave-model functions only).
    pub(super) wave: Option<super::wave::WaveVars>,
    /// The trap buffer variable (functions with a trap).
    pub(super) trap_var: Option<Word>,
    /// The heap buffer (heap memory model only).
    pub(super) heap: Option<HeapVars>,
    /// Intersections computed so far (`amd_bvh`): operands to the region and result vector.
    pub(super) rays: HashMap<Vec<Value>, (Word, Word)>,
    /// The workgroup memory (LDS, shared memory), when the function declares some.
    pub(super) lds: Option<super::local_memory::WordArray>,
    /// The lane's scratch / local memory, when the function accesses it.
    pub(super) scratch: Option<super::local_memory::WordArray>,
    /// The variables of the machine registers the function reads or writes (`super::regs`).
    pub(super) reg_vars: HashMap<isabridge_ir::ir::Reg, Word>,
    /// The running predicate of several waves that may take different paths
    /// (`super::wave_union`), when the function runs with it.
    pub(super) pred: Option<super::wave_union::Pred>,
}

pub(super) fn unsupported(block: u32, value: u32, op: impl Into<String>, why: &'static str) -> EmitError {
    EmitError::Unsupported { block, value, op: op.into(), why }
}

impl Em<'_> {
    pub(super) fn ty(&mut self, t: Type) -> Result<Word, EmitError> {
        if let Some(&w) = self.types.get(&t) {
            return Ok(w);
        }
        // Floats live in integers of their width (their bits): arithmetic is done in
        // software or in f64 where that is exact, so the driver's float controls never matter.
        let w = match t {
            Type::B1 => self.b.type_bool(),
            Type::S(s) => match s.bits() {
                8 if self.i8_words => self.t_u32,
                8 => {
                    self.int8 = true;
                    self.b.type_int(8, 0)
                }
                16 => {
                    self.int16 = true;
                    self.b.type_int(16, 0)
                }
                32 => self.b.type_int(32, 0),
                64 => self.b.type_int(64, 0),
                _ => return Err(unsupported(self.cur_ir, u32::MAX, t.to_string(), "scalar types of other than 8, 16, 32 and 64 bits")),
            },
            Type::V(s, n) if matches!(s.bits(), 8 | 16 | 32) => {
                let e = self.ty(Type::S(s))?;
                self.b.type_vector(e, n as u32)
            }
            // A lane mask only names a convergence region here (see `inst`).
            Type::Mask => self.t_u64,
            _ => return Err(unsupported(self.cur_ir, u32::MAX, t.to_string(), "vectors of other than 8-, 16- and 32-bit elements")),
        };
        self.types.insert(t, w);
        Ok(w)
    }

    pub(super) fn konst(&mut self, t: Type, bits: u64) -> Result<Word, EmitError> {
        if self.heap.is_some() && t.elem().bits() == 16 && self.b.selected_block().is_some() {
            return self.konst16_in_block(t, bits);
        }
        let bits = if self.i8_words && t == Type::I8 { bits & 0xff } else { bits };
        let ty = self.ty(t)?;
        if let Some(&w) = self.consts.get(&(ty, bits)) {
            return Ok(w);
        }
        let w = match t {
            Type::B1 if bits & 1 == 1 => self.b.constant_true(ty),
            Type::B1 => self.b.constant_false(ty),
            Type::V(s, n) => {
                let eb = s.bits();
                let mut parts = Vec::new();
                for i in 0..n as u32 {
                    parts.push(self.konst(Type::S(s), (bits >> (i * eb)) & ((1u64 << eb) - 1))?);
                }
                self.b.constant_composite(ty, parts)
            }
            _ if t.bits() == 64 => self.b.constant_bit64(ty, bits),
            _ if t.bits() == 16 => self.b.constant_bit32(ty, bits as u32 & 0xffff),
            _ if t.bits() == 8 => self.b.constant_bit32(ty, bits as u32 & 0xff),
            _ => self.b.constant_bit32(ty, bits as u32),
        };
        self.consts.insert((ty, bits), w);
        Ok(w)
    }

    /// In the heap model, a 16-bit constant (or vector of them) of type `t` as a conversion
    /// of 32-bit constants in the current block: naga's SPIR-V reader (30.0.2) takes no 16-bit
    /// integer `OpConstant` (`InvalidTypeWidth(2)`), though its validator takes 16-bit integers.
    fn konst16_in_block(&mut self, t: Type, bits: u64) -> Result<Word, EmitError> {
        let ty = self.ty(t)?;
        match t {
            Type::V(s, n) => {
                let mut parts = Vec::with_capacity(n as usize);
                for i in 0..n as u32 {
                    parts.push(self.konst16_in_block(Type::S(s), (bits >> (i * 16)) & 0xffff)?);
                }
                self.b.composite_construct(ty, None, parts).map_err(internal)
            }
            _ => {
                let k = self.konst(Type::I32, bits & 0xffff)?;
                self.b.u_convert(ty, None, k).map_err(internal)
            }
        }
    }

    pub(super) fn vty(&self, v: Value) -> Result<Type, EmitError> {
        self.f.ty(v).ok_or_else(|| internal(format!("value {} has no type", v.0)))
    }

    /// The id of `v` in the current block.
    pub(super) fn get(&mut self, v: Value) -> Result<Word, EmitError> {
        match self.ids.get(&v) {
            Some(&(w, Scope::Global)) => return Ok(w),
            Some(&(w, Scope::Block(b))) if b == self.region => return Ok(w),
            _ => {}
        }
        let Some(&var) = self.vars.get(&v) else {
            return Err(internal(format!("value {} used where it is neither defined nor stored", v.0)));
        };
        let ty = self.ty(self.vty(v)?)?;
        self.b.load(ty, None, var, None, []).map_err(internal)
    }

    pub(super) fn define(&mut self, v: Value, w: Word) -> Result<(), EmitError> {
        self.ids.insert(v, (w, Scope::Block(self.region)));
        if let Some(&var) = self.vars.get(&v) {
            let ty = self.ty(self.vty(v)?)?;
            let w = self.kept(var, ty, w)?;
            self.b.store(var, w, None, []).map_err(internal)?;
        }
        Ok(())
    }

    pub(super) fn no_contraction(&mut self, w: Word) {
        self.b.decorate(w, spirv::Decoration::NoContraction, []);
    }

    pub(super) fn int(&mut self, op: IntOp, v: Value, t: Type, a: &[Word]) -> Result<Word, EmitError> {
        let text = Op::Int(op).mnemonic();
        if t == Type::B1 {
            if let IntOp::Lop3(table) = op {
                // The OR of the truth table's minterms, on booleans.
                let tb = self.ty(Type::B1)?;
                let mut acc = self.konst(Type::B1, 0)?;
                let mut nots = [0; 3];
                for (n, &x) in nots.iter_mut().zip(a) {
                    *n = self.b.logical_not(tb, None, x).map_err(internal)?;
                }
                for k in 0..8u8 {
                    if table >> k & 1 == 0 {
                        continue;
                    }
                    let pick = |i: usize, bit: u8| if k & bit != 0 { a[i] } else { nots[i] };
                    let xy = self.b.logical_and(tb, None, pick(0, 4), pick(1, 2)).map_err(internal)?;
                    let xyz = self.b.logical_and(tb, None, xy, pick(2, 1)).map_err(internal)?;
                    acc = self.b.logical_or(tb, None, acc, xyz).map_err(internal)?;
                }
                return Ok(acc);
            }
        }
        if t == Type::B1 && matches!(op, IntOp::And | IntOp::Or | IntOp::Xor | IntOp::Not) {
            let tb = self.ty(Type::B1)?;
            let b = &mut self.b;
            return match op {
                IntOp::And => b.logical_and(tb, None, a[0], a[1]),
                IntOp::Or => b.logical_or(tb, None, a[0], a[1]),
                IntOp::Xor => b.logical_not_equal(tb, None, a[0], a[1]),
                _ => b.logical_not(tb, None, a[0]),
            }
            .map_err(internal);
        }
        let bits = match t {
            Type::I8 | Type::I16 | Type::I32 | Type::I64 => t.bits() as u64,
            Type::B1 if matches!(op, IntOp::Cmp(_)) => 0,
            _ => return Err(unsupported(self.cur_ir, v.0, text, "integer operations on types other than i8, i16, i32 and i64")),
        };
        if t == Type::I32 {
            if let Some(r) = self.int32_extra(op, a)? {
                return Ok(r);
            }
        }
        if t != Type::I32 {
            if let Some(r) = self.int_width_extra(op, t, a)? {
                return Ok(r);
            }
        }
        let ty = self.ty(t)?;
        let tb = self.ty(Type::B1)?;
        if matches!(op, IntOp::Neg) && self.heap.is_some() {
            // naga has no negation of unsigned integers: 0 - x in the heap model.
            let z = self.konst(t, 0)?;
            return self.b.i_sub(ty, None, z, a[0]).map_err(internal);
        }
        // Signed 64-bit min / max decide by unsigned order on the operands with their sign
        // bits flipped: the same order, and lavapipe (LLVM 15) gets signed 64-bit compares
        // wrong (the ldexp clamp, and `cvt.sat.s8.s32`'s clamp in sm_50 cvt_ops).
        let flipped = if bits == 64 && matches!(op, IntOp::Min(true) | IntOp::Max(true)) {
            let sign = self.konst(t, 1 << 63)?;
            let x = self.b.bitwise_xor(ty, None, a[0], sign).map_err(internal)?;
            Some([x, self.b.bitwise_xor(ty, None, a[1], sign).map_err(internal)?])
        } else {
            None
        };
        let b = &mut self.b;
        let r = match op {
            IntOp::Add(Overflow::Wrap) => b.i_add(ty, None, a[0], a[1]),
            IntOp::Sub(Overflow::Wrap) => b.i_sub(ty, None, a[0], a[1]),
            IntOp::MulLo => b.i_mul(ty, None, a[0], a[1]),
            IntOp::And => b.bitwise_and(ty, None, a[0], a[1]),
            IntOp::Or => b.bitwise_or(ty, None, a[0], a[1]),
            IntOp::Xor => b.bitwise_xor(ty, None, a[0], a[1]),
            IntOp::Not => b.not(ty, None, a[0]),
            IntOp::Neg => b.s_negate(ty, None, a[0]),
            IntOp::Min(s) | IntOp::Max(s) => {
                let lt = match flipped {
                    Some([x, y]) => b.u_less_than(tb, None, x, y),
                    None if s => b.s_less_than(tb, None, a[0], a[1]),
                    None => b.u_less_than(tb, None, a[0], a[1]),
                }
                .map_err(internal)?;
                let (x, y) = if matches!(op, IntOp::Min(_)) { (a[0], a[1]) } else { (a[1], a[0]) };
                b.select(ty, None, lt, x, y)
            }
            IntOp::Shl(rule) | IntOp::Shr(_, rule) => {
                // SPIR-V leaves shifts by the width or more undefined: shift by the amount's low
                // bits, then pick the clamped result where the amount reaches the width.
                let low = self.konst(t, bits - 1)?;
                let width = self.konst(t, bits)?;
                let b = &mut self.b;
                let s = b.bitwise_and(ty, None, a[1], low).map_err(internal)?;
                let shifted = match op {
                    IntOp::Shl(_) => b.shift_left_logical(ty, None, a[0], s),
                    IntOp::Shr(true, _) => b.shift_right_arithmetic(ty, None, a[0], s),
                    _ => b.shift_right_logical(ty, None, a[0], s),
                }
                .map_err(internal)?;
                match rule {
                    ShiftRule::Wrap => Ok(shifted),
                    ShiftRule::Clamp => {
                        let big = self.b.u_greater_than_equal(tb, None, a[1], width).map_err(internal)?;
                        let sat = match op {
                            IntOp::Shr(true, _) => self.b.shift_right_arithmetic(ty, None, a[0], low).map_err(internal)?,
                            _ => self.konst(t, 0)?,
                        };
                        self.b.select(ty, None, big, sat, shifted)
                    }
                }
            }
            IntOp::Lop3(table) => {
                // The OR of the truth table's minterms (bit k: a when k & 4, b when k & 2, c
                // when k & 1, else their complements).
                let mut acc = self.konst(t, 0)?;
                let mut nots = [0; 3];
                for (n, &x) in nots.iter_mut().zip(a) {
                    *n = self.b.not(ty, None, x).map_err(internal)?;
                }
                for k in 0..8u8 {
                    if table >> k & 1 == 0 {
                        continue;
                    }
                    let pick = |i: usize, bit: u8| if k & bit != 0 { a[i] } else { nots[i] };
                    let xy = self.b.bitwise_and(ty, None, pick(0, 4), pick(1, 2)).map_err(internal)?;
                    let xyz = self.b.bitwise_and(ty, None, xy, pick(2, 1)).map_err(internal)?;
                    acc = self.b.bitwise_or(ty, None, acc, xyz).map_err(internal)?;
                }
                Ok(acc)
            }
            IntOp::Cmp(c) => {
                let r = match c {
                    ICmp::Eq => b.i_equal(tb, None, a[0], a[1]),
                    ICmp::Ne => b.i_not_equal(tb, None, a[0], a[1]),
                    ICmp::Slt => b.s_less_than(tb, None, a[0], a[1]),
                    ICmp::Sle => b.s_less_than_equal(tb, None, a[0], a[1]),
                    ICmp::Sgt => b.s_greater_than(tb, None, a[0], a[1]),
                    ICmp::Sge => b.s_greater_than_equal(tb, None, a[0], a[1]),
                    ICmp::Ult => b.u_less_than(tb, None, a[0], a[1]),
                    ICmp::Ule => b.u_less_than_equal(tb, None, a[0], a[1]),
                    ICmp::Ugt => b.u_greater_than(tb, None, a[0], a[1]),
                    ICmp::Uge => b.u_greater_than_equal(tb, None, a[0], a[1]),
                };
                return r.map_err(internal);
            }
            _ => return Err(unsupported(self.cur_ir, v.0, text, "this integer operation")),
        };
        r.map_err(internal)
    }

    /// A 64-bit word to a value of type `t` (its low bits; `!= 0` for `b1`).
    pub(super) fn word_to_value(&mut self, w: Word, t: Type) -> Result<Word, EmitError> {
        let ty = self.ty(t)?;
        if t == Type::B1 {
            let z = self.konst(Type::I64, 0)?;
            return self.b.i_not_equal(ty, None, w, z).map_err(internal);
        }
        let Some(int) = Scalar::int(t.bits()).map(Type::S) else {
            return Err(unsupported(self.cur_ir, u32::MAX, t.to_string(), "parameters of this type"));
        };
        let from = self.ty(int)?;
        if self.i8_words && t == Type::I8 {
            let w = self.b.u_convert(self.t_u32, None, w).map_err(internal)?;
            return self.i8_word_from_u32(w);
        }
        let scalar = if t.bits() == 64 { w } else { self.b.u_convert(from, None, w).map_err(internal)? };
        self.cast(scalar, from, ty)
    }

    /// `x` (of SPIR-V type `from`) reinterpreted as SPIR-V type `to` (nothing when they match).
    pub(super) fn cast(&mut self, x: Word, from: Word, to: Word) -> Result<Word, EmitError> {
        if from == to {
            Ok(x)
        } else if let Some(r) = self.heap_cast(x, from, to)? {
            Ok(r)
        } else {
            self.b.bitcast(to, None, x).map_err(internal)
        }
    }

    /// A value of type `t` to a zero-extended 64-bit word.
    pub(super) fn value_to_word(&mut self, x: Word, t: Type) -> Result<Word, EmitError> {
        let from = self.ty(t)?;
        match t.bits() {
            _ if t == Type::B1 => {
                let (one, zero) = (self.konst(Type::I64, 1)?, self.konst(Type::I64, 0)?);
                self.b.select(self.t_u64, None, x, one, zero).map_err(internal)
            }
            64 => self.cast(x, from, self.t_u64),
            bits @ (8 | 16 | 32) => {
                let int = self.ty(Scalar::int(bits).map(Type::S).ok_or_else(|| internal("no integer type"))?)?;
                let i = self.cast(x, from, int)?;
                self.b.u_convert(self.t_u64, None, i).map_err(internal)
            }
            _ => Err(unsupported(self.cur_ir, u32::MAX, t.to_string(), "outputs of this type")),
        }
    }

    /// Integer (or b1) to integer: extension or truncation as `iext` defines it.
    fn int_convert(&mut self, x: Word, from: Type, to: Type, signed: bool) -> Result<Word, EmitError> {
        let tw = self.ty(to)?;
        if from == to {
            return Ok(x);
        }
        if self.i8_words && (from == Type::I8 || to == Type::I8) && from != Type::B1 && to != Type::B1 {
            return self.i8_word_convert(x, from, to, signed);
        }
        Ok(match (from, to) {
            (Type::B1, _) => {
                let (on, off) = (self.konst(to, if signed { u64::MAX } else { 1 })?, self.konst(to, 0)?);
                self.b.select(tw, None, x, on, off).map_err(internal)?
            }
            (_, Type::B1) => {
                let (one, zero) = (self.konst(from, 1)?, self.konst(from, 0)?);
                let ft = self.ty(from)?;
                let low = self.b.bitwise_and(ft, None, x, one).map_err(internal)?;
                self.b.i_not_equal(tw, None, low, zero).map_err(internal)?
            }
            _ if signed && from.bits() < to.bits() => self.b.s_convert(tw, None, x).map_err(internal)?,
            _ => self.b.u_convert(tw, None, x).map_err(internal)?,
        })
    }

    /// A load of type `t` from constant bank `bank` at byte offset `addr` (i32).
    fn constant_load(&mut self, bank: u8, t: Type, addr: Word) -> Result<Word, EmitError> {
        let base = self.konst(Type::I32, bank as u64 * CONSTANT_BANK_BYTES as u64)?;
        let off = self.b.i_add(self.t_u32, None, addr, base).map_err(internal)?;
        let two = self.konst(Type::I32, 2)?;
        let idx = self.b.shift_right_logical(self.t_u32, None, off, two).map_err(internal)?;
        let zero = self.konst(Type::I32, 0)?;
        let pw = self.b.type_pointer(None, spirv::StorageClass::StorageBuffer, self.t_u32);
        let word = |em: &mut Self, i: Word| -> Result<Word, EmitError> {
            let p = em.b.access_chain(pw, None, em.const_var, [zero, i]).map_err(internal)?;
            em.b.load(em.t_u32, None, p, None, []).map_err(internal)
        };
        let lo = word(self, idx)?;
        let ty = self.ty(t)?;
        match t.bits() {
            32 => self.cast(lo, self.t_u32, ty),
            64 => {
                let one = self.konst(Type::I32, 1)?;
                let i1 = self.b.i_add(self.t_u32, None, idx, one).map_err(internal)?;
                let hi = word(self, i1)?;
                let t2 = self.ty(Type::V(Scalar::I32, 2))?;
                let v = self.b.composite_construct(t2, None, [lo, hi]).map_err(internal)?;
                self.cast(v, t2, ty)
            }
            bits @ (8 | 16) => {
                // The byte offset within the word (aligned to the size), in bits.
                let (three, within) = (self.konst(Type::I32, 3)?, self.konst(Type::I32, if bits == 8 { 3 } else { 2 })?);
                let byte = self.b.bitwise_and(self.t_u32, None, off, within).map_err(internal)?;
                let sh = self.b.shift_left_logical(self.t_u32, None, byte, three).map_err(internal)?;
                let x = self.b.shift_right_logical(self.t_u32, None, lo, sh).map_err(internal)?;
                let tn = self.ty(Scalar::int(bits).map(Type::S).ok_or_else(|| internal("no integer type"))?)?;
                let h = self.b.u_convert(tn, None, x).map_err(internal)?;
                self.cast(h, tn, ty)
            }
            _ => Err(unsupported(self.cur_ir, u32::MAX, t.to_string(), "constant loads of this type")),
        }
    }

    pub(super) fn global_ptr(&mut self, t: Type, addr: Word) -> Result<(Word, u32), EmitError> {
        let ty = self.ty(t)?;
        let pt = self.b.type_pointer(None, spirv::StorageClass::PhysicalStorageBuffer, ty);
        let p = self.b.convert_u_to_ptr(pt, None, addr).map_err(internal)?;
        let align = t.bits() / 8;
        Ok((p, align))
    }

    fn inst(&mut self, v: Value) -> Result<(), EmitError> {
        let data = &self.f.insts[v];
        let (op, args, ty) = (data.op.clone(), data.args.clone(), data.ty);
        let text = op.mnemonic();
        match op {
            Op::Const(_) | Op::Undef | Op::Param(_) | Op::Phi(_) => return Ok(()),
            Op::Call(Callee::Symbol(name)) => return Err(EmitError::UndefinedFunction { block: self.cur_ir, value: v.0, name }),
            _ => {}
        }
        if self.f.model == ExecModel::Lanes {
            if self.warp_inst(v)? || self.lanes_atomic(v)? || self.lanes_masked(v)? || self.lanes_barrier(v)? || self.lanes_local_inst(v)? {
                return Ok(());
            }
        } else if self.wave.is_some() && self.wave_inst(v)? {
            return Ok(());
        }
        if self.reg_inst(v)? {
            return Ok(());
        }
        if matches!(op, Op::Mem(MemOp::Store(Space::Global))) {
            let t = self.vty(args[1])?;
            if t == Type::B1 {
                return Err(unsupported(self.cur_ir, v.0, text, "b1 in memory"));
            }
            if matches!(t, Type::V(s, _) if s.bits() == 8) {
                return Err(unsupported(self.cur_ir, v.0, text, "vectors of 8-bit elements in memory"));
            }
            let (addr, val) = (self.get(args[0])?, self.get(args[1])?);
            if t.bits() == 8 {
                // A byte: its word with atomics (`store_bytes`), as other lanes may store the
                // word's other bytes.
                let x = self.value_to_word(val, t)?;
                return self.store_bytes(Place::Device, addr, 1, x);
            }
            if self.heap.is_some() {
                return self.heap_store(t, addr, val);
            }
            let (p, align) = self.global_ptr(t, addr)?;
            return self.b.store(p, val, Some(spirv::MemoryAccess::ALIGNED), [Operand::LiteralBit32(align)]).map_err(internal);
        }
        // Convergence regions: one invocation runs each lane and no cross-lane operation is
        // emitted (each is an `Unsupported` error), so which lanes run together never shows;
        // opening a region gives a placeholder mask, joining, leaving and waiting do nothing.
        match op {
            Op::Warp(WarpOp::Join | WarpOp::Leave | WarpOp::Sync) => return Ok(()),
            Op::Warp(WarpOp::Open) => {
                let z = self.konst(Type::I64, 0)?;
                return self.define(v, z);
            }
            _ => {}
        }
        if let Op::Sync(SyncOp::Trap(code)) = op {
            return self.trap(v, code);
        }
        if let Op::Sync(SyncOp::Interrupt { halt }) = op {
            return self.interrupt(halt);
        }
        if let Op::Sync(SyncOp::Fence(_)) = op {
            return self.fence();
        }
        if let Op::Image(io @ ImageOp { kind: ImageKind::Load | ImageKind::Store | ImageKind::Atomic(_) | ImageKind::Sample | ImageKind::Gather | ImageKind::GetLod, .. }) = op {
            return self.image_texel(v, io, &args, ty);
        }
        let Some(t) = ty else { return Err(unsupported(self.cur_ir, v.0, text, "operations without a result other than global stores")) };
        let mut a = Vec::with_capacity(args.len());
        for &x in &args {
            a.push(self.get(x)?);
        }
        let tw = self.ty(t)?;
        let r = match op {
            Op::Float(ref fo) => {
                let at: Vec<Type> = args.iter().map(|&x| self.vty(x)).collect::<Result<_, _>>()?;
                self.float(fo, v, t, &at, &a)?
            }
            Op::FDiv(ref d) => {
                let at: Vec<Type> = args.iter().map(|&x| self.vty(x)).collect::<Result<_, _>>()?;
                self.fdiv(d, v, t, &at, &a)?
            }
            Op::FCmp(c, ftz) => {
                let at = self.vty(args[0])?;
                self.fcmp(c, ftz, v, at, &a)?
            }
            Op::Conv(ConvOp::IToI { signed }) => {
                let from = self.vty(args[0])?;
                self.int_convert(a[0], from, t, signed)?
            }
            Op::Conv(ref c) => {
                let from = self.vty(args[0])?;
                self.conv(c, v, from, t, a[0])?
            }
            Op::Build => self.b.composite_construct(tw, None, a.clone()).map_err(internal)?,
            Op::Extract(n) => self.b.composite_extract(tw, None, a[0], [n as u32]).map_err(internal)?,
            Op::Insert(n) => self.b.composite_insert(tw, None, a[1], a[0], [n as u32]).map_err(internal)?,
            Op::Mem(MemOp::Load(Space::Constant(bank))) => self.constant_load(bank, t, a[0])?,
            Op::Approx(func, ftz) => self.approx(func, ftz, v, t, a[0])?,
            Op::Int(io) => {
                let at = match io {
                    IntOp::Cmp(_) => self.vty(args[0])?,
                    _ => t,
                };
                self.int(io, v, at, &a)?
            }
            Op::Select => self.b.select(tw, None, a[0], a[1], a[2]).map_err(internal)?,
            Op::Ray(ro) if t == Type::I32 => self.ray_node(v, ro, &a)?,
            Op::Image(io) if t == Type::I32 && io.kind == ImageKind::ResInfo => self.image_op(v, io, &a)?,
            Op::Bitcast if t != Type::B1 => {
                let from = self.ty(self.vty(args[0])?)?;
                self.cast(a[0], from, tw)?
            }
            Op::Mem(MemOp::Load(Space::Global)) if matches!(t, Type::V(s, _) if s.bits() == 8) => {
                return Err(unsupported(self.cur_ir, v.0, text, "vectors of 8-bit elements in memory"));
            }
            Op::Mem(MemOp::Load(Space::Global)) if t.bits() == 8 => {
                let x = self.load_bytes(Place::Device, a[0], 1)?;
                self.word_to_value(x, t)?
            }
            Op::Mem(MemOp::Load(Space::Global)) if t != Type::B1 && self.heap.is_some() => self.heap_load(t, a[0])?,
            Op::Mem(MemOp::Load(Space::Global)) if t != Type::B1 => {
                let (p, align) = self.global_ptr(t, a[0])?;
                self.b.load(tw, None, p, Some(spirv::MemoryAccess::ALIGNED), [Operand::LiteralBit32(align)]).map_err(internal)?
            }
            _ => return Err(unsupported(self.cur_ir, v.0, text, "outside the first compute subset")),
        };
        self.define(v, r)
    }

    pub(super) fn code(&mut self, n: u32) -> Result<(), EmitError> {
        self.cur_ir = n;
        let blk = Block(n);
        for &v in &self.f.blocks[blk].insts.clone() {
            // A batch of exchanges (`super::exchange_batch`): the ops its operands need come
            // first, and are not emitted again at their places.
            if let Some(early) = self.wave.as_ref().and_then(|w| w.batches.early.get(&v)).cloned() {
                for u in early {
                    self.inst(u)?;
                }
            }
            if self.wave.as_ref().is_some_and(|w| w.batches.moved.contains(&v)) {
                continue;
            }
            if matches!(self.f.insts[v].op, Op::Phi(_)) {
                let w = self.get(v)?;
                self.ids.insert(v, (w, Scope::Block(self.region)));
            } else {
                self.inst(v)?;
            }
        }
        Ok(())
    }

    pub(super) fn edge(&mut self, from: u32, to: u32) -> Result<(), EmitError> {
        // Read every incoming value first: a phi may feed another phi of the same block.
        let mut stores = Vec::new();
        for &p in &self.f.blocks[Block(to)].insts {
            let Op::Phi(ref preds) = self.f.insts[p].op else { continue };
            let Some(i) = preds.iter().position(|&b| b.0 == from) else {
                return Err(internal(format!("phi {} of block {to} has no operand from block {from}", p.0)));
            };
            stores.push((p, self.f.insts[p].args[i]));
        }
        let mut vals = Vec::new();
        for (p, x) in stores {
            let var = self.vars[&p];
            let w = self.get(x)?;
            let ty = self.ty(self.vty(p)?)?;
            vals.push((var, self.kept(var, ty, w)?));
        }
        for (var, w) in vals {
            self.b.store(var, w, None, []).map_err(internal)?;
        }
        Ok(())
    }

    fn ret(&mut self, n: u32) -> Result<(), EmitError> {
        self.write_outputs(n)?;
        self.trap_if_cut()?;
        self.b.ret().map_err(internal)
    }

    /// Write the values block `n` returns to the outputs buffer.
    pub(super) fn write_outputs(&mut self, n: u32) -> Result<(), EmitError> {
        let Terminator::Return(vals) = self.f.blocks[Block(n)].term.clone() else {
            return Err(internal(format!("block {n} does not return")));
        };
        if vals.len() as u32 != self.outputs {
            return Err(unsupported(n, u32::MAX, "return", "returns with different output counts"));
        }
        let pu = self.b.type_pointer(None, spirv::StorageClass::StorageBuffer, self.t_u64);
        let zero = self.konst(Type::I32, 0)?;
        let count = self.konst(Type::I64, self.outputs as u64)?;
        let base = self.b.i_mul(self.t_u64, None, self.gid, count).map_err(internal)?;
        for (i, &v) in vals.iter().enumerate() {
            let t = self.vty(v)?;
            let x = self.get(v)?;
            let w = self.value_to_word(x, t)?;
            let k = self.konst(Type::I64, i as u64)?;
            let idx = self.b.i_add(self.t_u64, None, base, k).map_err(internal)?;
            let p = self.b.access_chain(pu, None, self.out_var, [zero, idx]).map_err(internal)?;
            self.b.store(p, w, None, []).map_err(internal)?;
        }
        Ok(())
    }
}

/// The type of a pointer to a storage buffer of 64-bit words.
fn word_buffer_type(b: &mut Builder, t_u64: Word) -> Word {
    let arr = b.type_runtime_array(t_u64);
    b.decorate(arr, spirv::Decoration::ArrayStride, [Operand::LiteralBit32(8)]);
    let st = b.type_struct([arr]);
    b.decorate(st, spirv::Decoration::Block, []);
    b.member_decorate(st, 0, spirv::Decoration::Offset, [Operand::LiteralBit32(0)]);
    b.type_pointer(None, spirv::StorageClass::StorageBuffer, st)
}

/// A storage buffer variable at descriptor set 0, `binding`.
fn buffer_var(b: &mut Builder, pt: Word, binding: u32) -> Word {
    let var = b.variable(pt, None, spirv::StorageClass::StorageBuffer, None);
    b.decorate(var, spirv::Decoration::DescriptorSet, [Operand::LiteralBit32(0)]);
    b.decorate(var, spirv::Decoration::Binding, [Operand::LiteralBit32(binding)]);
    var
}

/// Emit `f` (see the module documentation for the subset and the interface) with the default
/// options.
pub fn emit(f: &Function) -> Result<Kernel, EmitError> {
    emit_with(f, &EmitOptions::default())
}

/// Emit `f` with `opts`.
pub fn emit_with(f: &Function, opts: &EmitOptions) -> Result<Kernel, EmitError> {
    let heap = opts.memory == MemoryModel::Heap;
    let mut s = structurize::structurize_function(f).ok_or_else(|| internal("function without blocks"))??;
    let g: ScfGraph = s.lower()?;
    structurize::check(&g).map_err(|e| EmitError::Structure(StructurizeError::Internal(e.to_string())))?;

    // Where each value is defined, which need variables, parameter and output counts.
    let mut def_block = HashMap::new();
    let (mut params, mut outputs) = (0u32, None);
    for &blk in &f.layout {
        for &v in &f.blocks[blk].insts {
            def_block.insert(v, blk);
            if let Op::Param(n) = f.insts[v].op {
                params = params.max(n + 1);
            }
        }
        if let Terminator::Return(vals) = &f.blocks[blk].term {
            outputs.get_or_insert(vals.len() as u32);
        }
    }
    let global = |v: &Value| matches!(f.insts[*v].op, Op::Const(_) | Op::Undef | Op::Param(_));
    let mut need_var: Vec<Value> = Vec::new();
    for &blk in &f.layout {
        let data = &f.blocks[blk];
        for &v in &data.insts {
            let is_phi = matches!(f.insts[v].op, Op::Phi(_));
            if is_phi {
                need_var.push(v);
            }
            for &a in &f.insts[v].args {
                if !global(&a) && (is_phi || def_block.get(&a) != Some(&blk)) {
                    need_var.push(a);
                }
            }
        }
        for a in data.term.uses() {
            if !global(&a) && def_block.get(&a) != Some(&blk) {
                need_var.push(a);
            }
        }
    }
    need_var.sort_unstable();
    need_var.dedup();

    let mut b = Builder::new();
    b.set_version(1, 5);
    for c in [spirv::Capability::Shader, spirv::Capability::Int64] {
        b.capability(c);
    }
    if heap {
        b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
    } else {
        b.capability(spirv::Capability::PhysicalStorageBufferAddresses);
        b.memory_model(spirv::AddressingModel::PhysicalStorageBuffer64, spirv::MemoryModel::GLSL450);
    }
    let t_void = b.type_void();
    let t_fn = b.type_function(t_void, []);
    let t_u32 = b.type_int(32, 0);
    let t_u64 = b.type_int(64, 0);
    let t_v3 = b.type_vector(t_u32, 3);
    let t_pv3 = b.type_pointer(None, spirv::StorageClass::Input, t_v3);
    let gid_var = b.variable(t_pv3, None, spirv::StorageClass::Input, None);
    b.decorate(gid_var, spirv::Decoration::BuiltIn, [Operand::BuiltIn(spirv::BuiltIn::GlobalInvocationId)]);
    let t_buf = word_buffer_type(&mut b, t_u64);
    let par_var = buffer_var(&mut b, t_buf, PARAMS_BINDING);
    let out_var = buffer_var(&mut b, t_buf, OUTPUTS_BINDING);
    let t_words = {
        let arr = b.type_runtime_array(t_u32);
        b.decorate(arr, spirv::Decoration::ArrayStride, [Operand::LiteralBit32(4)]);
        let st = b.type_struct([arr]);
        b.decorate(st, spirv::Decoration::Block, []);
        b.member_decorate(st, 0, spirv::Decoration::Offset, [Operand::LiteralBit32(0)]);
        b.member_decorate(st, 0, spirv::Decoration::NonWritable, []);
        b.type_pointer(None, spirv::StorageClass::StorageBuffer, st)
    };
    let const_var = buffer_var(&mut b, t_words, CONSTANT_BINDING);
    // Push constant: the invocation count (invocations past it return at once); the heap
    // model's heap base follows it.
    let t_pc = if heap { b.type_struct([t_u32, t_u64]) } else { b.type_struct([t_u32]) };
    b.decorate(t_pc, spirv::Decoration::Block, []);
    b.member_decorate(t_pc, 0, spirv::Decoration::Offset, [Operand::LiteralBit32(0)]);
    if heap {
        b.member_decorate(t_pc, 1, spirv::Decoration::Offset, [Operand::LiteralBit32(super::heap::HEAP_BASE_OFFSET)]);
    }
    let t_ppc = b.type_pointer(None, spirv::StorageClass::PushConstant, t_pc);
    let pc_var = b.variable(t_ppc, None, spirv::StorageClass::PushConstant, None);
    let main = b.id();
    let entry = if f.name.is_empty() { "main".to_string() } else { f.name.clone() };
    let wave_size = if f.wave_size == 0 { 32 } else { f.wave_size };
    let waves = super::multi_wave::waves(f, opts)?;
    let predicated = super::wave_union::predicated(f, waves);
    if predicated {
        super::wave_union::hoist_exits(&mut s);
    }
    let workgroup_size = wave_size * waves;
    let exchange = f.model == ExecModel::Wave || (f.model == ExecModel::Lanes && super::warp::exchanges(f));
    let wave = exchange.then(|| super::wave::WaveVars::declare(&mut b, f, wave_size, workgroup_size, t_u32, t_u64));
    let mut interface = vec![gid_var, par_var, out_var, const_var, pc_var];
    interface.extend(wave.iter().flat_map(|w| w.interface()));
    // Every kernel may trap: `super::trap::traps` lists the ops that do, and any loop may be
    // one a device ends early (`super::loop_guard`).
    let trap_var = Some(buffer_var(&mut b, t_buf, super::TRAP_BINDING));
    interface.extend(trap_var);
    let heap_vars = heap.then(|| HeapVars::declare(&mut b, f, t_u32));
    interface.extend(heap_vars.iter().map(|h| h.interface()));
    let lds = super::local_memory::WordArray::workgroup(&mut b, f, t_u32);
    let scratch = super::local_memory::WordArray::scratch(&mut b, f, opts.scratch_bytes, t_u32);
    interface.extend(lds.iter().chain(&scratch).map(|a| a.var));
    b.entry_point(spirv::ExecutionModel::GLCompute, main, entry.clone(), interface);
    b.execution_mode(main, spirv::ExecutionMode::LocalSize, [workgroup_size, 1, 1]);

    let mut em = Em {
        f,
        b,
        types: HashMap::from([(Type::I32, t_u32), (Type::I64, t_u64)]),
        consts: HashMap::new(),
        ids: HashMap::new(),
        vars: HashMap::new(),
        svars: Vec::new(),
        cur: 0,
        region: 0,
        cur_ir: 0,
        gid: 0,
        out_var,
        outputs: outputs.unwrap_or(0),
        t_u32,
        t_u64,
        const_var,
        int16: false,
        int8: false,
        i8_words: heap && super::int8_words::i8_in_words(f),
        float64: false,
        int64_atomics: false,
        rmw_vars: None,
        private_vars: Vec::new(),
        loop_words: None,
        free_loop_vars: Vec::new(),
        helpers: Vec::new(),
        glsl_set: None,
        wave,
        trap_var,
        heap: heap_vars,
        rays: HashMap::new(),
        lds,
        scratch,
        reg_vars: HashMap::new(),
        pred: None,
    };
    // Types and constants before the function.
    let mut var_types = Vec::new();
    for &v in &need_var {
        let t = em.vty(v)?;
        var_types.push(em.ty(t)?);
    }
    let zero32 = em.konst(Type::I32, 0)?;
    let labels: Vec<Word> = (0..g.blocks.len()).map(|_| em.b.id()).collect();
    em.b.begin_function(t_void, Some(main), spirv::FunctionControl::NONE, t_fn).map_err(internal)?;
    // A preamble block: the variables, the invocation index and the parameters.
    em.cur = em.b.begin_block(None).map_err(internal)?;
    em.region = em.cur;
    for (&v, &t) in need_var.iter().zip(&var_types) {
        let pt = em.b.type_pointer(None, spirv::StorageClass::Function, t);
        let var = em.b.variable(pt, None, spirv::StorageClass::Function, None);
        em.vars.insert(v, var);
    }
    let pu32 = em.b.type_pointer(None, spirv::StorageClass::Function, t_u32);
    for _ in 0..s.vars {
        let var = em.b.variable(pu32, None, spirv::StorageClass::Function, Some(zero32));
        em.svars.push(var);
    }
    em.declare_regs()?;
    em.loop_words()?;
    // Invocation index and parameters, in the entry block (which dominates every other).
    let t_pu32_in = em.b.type_pointer(None, spirv::StorageClass::Input, t_u32);
    let gx_ptr = em.b.access_chain(t_pu32_in, None, gid_var, [zero32]).map_err(internal)?;
    let gx = em.b.load(t_u32, None, gx_ptr, None, []).map_err(internal)?;
    em.gid = em.b.u_convert(t_u64, None, gx).map_err(internal)?;
    em.warp_preamble()?;
    em.zero_workgroup_memory(gx, workgroup_size)?;
    let t_ppc_u32 = em.b.type_pointer(None, spirv::StorageClass::PushConstant, t_u32);
    let count_ptr = em.b.access_chain(t_ppc_u32, None, pc_var, [zero32]).map_err(internal)?;
    let count = em.b.load(t_u32, None, count_ptr, None, []).map_err(internal)?;
    let tb = em.ty(Type::B1)?;
    let past = em.b.u_greater_than_equal(tb, None, gx, count).map_err(internal)?;
    let (quit, body) = (em.b.id(), em.b.id());
    em.b.selection_merge(body, spirv::SelectionControl::NONE).map_err(internal)?;
    em.b.branch_conditional(past, quit, body, []).map_err(internal)?;
    em.b.begin_block(Some(quit)).map_err(internal)?;
    em.b.ret().map_err(internal)?;
    em.cur = em.b.begin_block(Some(body)).map_err(internal)?;
    em.region = em.cur;
    if heap {
        em.heap_entry(pc_var)?;
    }
    let pu = em.b.type_pointer(None, spirv::StorageClass::StorageBuffer, t_u64);
    let pcount = em.konst(Type::I64, params as u64)?;
    let pbase = em.b.i_mul(t_u64, None, em.gid, pcount).map_err(internal)?;
    for &blk in &f.layout {
        for &v in &f.blocks[blk].insts {
            em.cur_ir = blk.0;
            let data = &f.insts[v];
            let t = data.ty.ok_or_else(|| internal(format!("value {} has no type", v.0)));
            let w = match data.op {
                Op::Const(bits) => em.konst(t?, bits)?,
                Op::Undef => em.konst(t?, 0)?,
                Op::Param(n) => {
                    let k = em.konst(Type::I64, n as u64)?;
                    let idx = em.b.i_add(t_u64, None, pbase, k).map_err(internal)?;
                    let p = em.b.access_chain(pu, None, par_var, [zero32, idx]).map_err(internal)?;
                    let word = em.b.load(t_u64, None, p, None, []).map_err(internal)?;
                    em.word_to_value(word, t?)?
                }
                _ => continue,
            };
            em.ids.insert(v, (w, Scope::Global));
        }
    }
    if predicated {
        em.begin_union()?;
        em.union_seq(&s.body)?;
        em.trap_if_cut()?;
        em.b.ret().map_err(internal)?;
    } else {
        em.graph_body(&g, &labels)?;
    }
    em.b.end_function().map_err(internal)?;
    finish(em, heap, trap_var, entry, workgroup_size, params, opts)
}

impl Em<'_> {
    /// The function's body from its structured block graph (`labels`: the SPIR-V label of
    /// each block), after the entry block.
    fn graph_body(&mut self, g: &ScfGraph, labels: &[Word]) -> Result<(), EmitError> {
        let (f, t_u32) = (self.f, self.t_u32);
        let em = self;
        em.b.branch(labels[0]).map_err(internal)?;
        // How each structured loop is left (`super::loop_guard`).
        let loop_merges: std::collections::HashSet<u32> = g.blocks.iter().filter_map(|b| if let Merge::Loop { merge, .. } = b.merge { Some(merge) } else { None }).collect();
        for (i, blk) in g.blocks.iter().enumerate() {
            em.cur = em.b.begin_block(Some(labels[i])).map_err(internal)?;
            em.region = em.cur;
            if loop_merges.contains(&(i as u32)) {
                em.loop_merged()?;
            }
            let header = matches!(blk.merge, Merge::Loop { .. });
            for a in &blk.actions {
                match *a {
                    Action::Code(n) => em.code(n)?,
                    Action::Edge(x, y) => em.edge(x, y)?,
                    Action::Set(v, k) => {
                        let c = em.konst(Type::I32, k as u64)?;
                        let var = *em.svars.get(v.0 as usize).ok_or_else(|| internal("structurizer variable out of range"))?;
                        em.b.store(var, c, None, []).map_err(internal)?;
                    }
                }
            }
            if let ScfTerm::Jump(t) = blk.term {
                if loop_merges.contains(&t) || header {
                    let left = em.wc32(loop_merges.contains(&t) as u32)?;
                    em.loop_left(left)?;
                }
            }
            if !matches!(blk.term, ScfTerm::Branch(..)) {
                if let Merge::Loop { merge, cont } = blk.merge {
                    em.b.loop_merge(labels[merge as usize], labels[cont as usize], spirv::LoopControl::NONE, []).map_err(internal)?;
                }
            }
            match blk.term {
                ScfTerm::Jump(t) => em.b.branch(labels[t as usize]).map_err(internal)?,
                ScfTerm::Branch(c, t, e) => {
                    let cond = match c {
                        Cond::Block(n) => {
                            let Terminator::Branch(v, ..) = f.blocks[Block(n)].term else {
                                return Err(internal(format!("block {n} does not branch")));
                            };
                            em.cur_ir = n;
                            let c = em.get(v)?;
                            em.uniform_branch(c)?
                        }
                        Cond::VarEq(v, k) => {
                            let var = *em.svars.get(v.0 as usize).ok_or_else(|| internal("structurizer variable out of range"))?;
                            let x = em.b.load(t_u32, None, var, None, []).map_err(internal)?;
                            let c = em.konst(Type::I32, k as u64)?;
                            let tb = em.ty(Type::B1)?;
                            em.b.i_equal(tb, None, x, c).map_err(internal)?
                        }
                    };
                    let (exit_t, exit_e) = (loop_merges.contains(&t), loop_merges.contains(&e));
                    if exit_t || exit_e || header {
                        let (one, zero) = (em.wc32(1)?, em.wc32(0)?);
                        let left = match (exit_t, exit_e) {
                            (true, true) => one,
                            (true, false) => em.b.select(t_u32, None, cond, one, zero).map_err(internal)?,
                            (false, true) => em.b.select(t_u32, None, cond, zero, one).map_err(internal)?,
                            (false, false) => zero,
                        };
                        em.loop_left(left)?;
                    }
                    // The condition's instructions come before the merge declaration, which must
                    // stand right before the branch.
                    match blk.merge {
                        Merge::None => {}
                        Merge::Selection(m) => em.b.selection_merge(labels[m as usize], spirv::SelectionControl::NONE).map_err(internal)?,
                        Merge::Loop { merge, cont } => {
                            em.b.loop_merge(labels[merge as usize], labels[cont as usize], spirv::LoopControl::NONE, []).map_err(internal)?
                        }
                    }
                    em.b.branch_conditional(cond, labels[t as usize], labels[e as usize], []).map_err(internal)?
                }
                ScfTerm::Return(n) => em.ret(n)?,
                ScfTerm::Unreachable => em.b.unreachable().map_err(internal)?,
            }
        }
        Ok(())
    }
}

/// The module's words and description once the entry point's function has ended.
fn finish(mut em: Em<'_>, heap: bool, trap_var: Option<Word>, entry: String, workgroup_size: u32, params: u32, opts: &EmitOptions) -> Result<Kernel, EmitError> {
    em.emit_helpers()?;
    let mut requires = if heap { vec!["shaderInt64"] } else { vec!["shaderInt64", "bufferDeviceAddress"] };
    if em.int16 {
        em.b.capability(spirv::Capability::Int16);
        requires.push("shaderInt16");
    }
    if em.int8 {
        em.b.capability(spirv::Capability::Int8);
        requires.push("shaderInt8");
    }
    if em.int64_atomics {
        requires.push("shaderBufferInt64Atomics");
    }
    if em.float64 {
        em.b.capability(spirv::Capability::Float64);
        requires.push("shaderFloat64");
    }
    if let Some((a, b)) = em.rmw_vars {
        if let Some(ep) = em.b.module_mut().entry_points.first_mut() {
            ep.operands.extend([Operand::IdRef(a), Operand::IdRef(b)]);
        }
    }
    let private: Vec<Operand> = em.private_vars.iter().map(|&v| Operand::IdRef(v)).collect();
    if let Some(ep) = em.b.module_mut().entry_points.first_mut() {
        ep.operands.extend(private);
    }
    let words = em.b.module().assemble();
    let shared_bytes = em.lds.as_ref().map_or(0, |a| a.bytes);
    let workgroup_bytes = shared_bytes + em.wave.as_ref().map_or(0, |w| w.workgroup_bytes());
    Ok(Kernel { words, entry, workgroup_size, params, outputs: em.outputs, requires, traps: trap_var.is_some(), memory: opts.memory, shared_bytes, workgroup_bytes })
}
