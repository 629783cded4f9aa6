//! CTA barriers of lanes-model functions (NVIDIA `bar.sync`, `bar.arrive`, `bar.red`) in
//! SPIR-V.
//!
//! One Vulkan workgroup is one block of one warp (`super::local_memory`), so a barrier whose
//! thread count is 0 (the whole block) or the workgroup's size is a workgroup barrier. A count
//! that is neither is a barrier over part of the block; with the block one warp, what it
//! waits for never comes (the interpreter stops with a deadlock there), so the invocation
//! records [`BARRIER_COUNT_TRAP`] (checked at run time when the count is a register) and the
//! runner reports it instead of hanging. The barrier id only names the barrier: every id is
//! the workgroup's one barrier here. `bar.arrive` waits for nothing: it is a release fence.
//! `bar.red.popc/and/or` over the whole block reduce the predicate of the lanes that reach it
//! (the roll call of `super::warp`): the number of lanes where it holds, whether it holds on
//! all of them, on any.

use super::emit::{internal, Em, EmitError};
use isabridge_ir::ir::{ExecModel, Value};
use isabridge_ir::ops::warp::{BarKind, WarpOp};
use isabridge_ir::types::Type;
use isabridge_ir::Op;
use rspirv::spirv::Word;

/// The trap code of a barrier whose thread count is neither 0 nor the block's (a barrier over
/// part of the block, which waits forever when the block is one warp).
pub const BARRIER_COUNT_TRAP: u16 = 0xfff9;

/// Whether barrier op `v` of `f` may record [`BARRIER_COUNT_TRAP`]: its count is not the
/// constant 0 (the whole block).
pub(super) fn may_trap(f: &isabridge_ir::Function, v: Value) -> bool {
    let data = &f.insts[v];
    matches!(data.op, Op::Warp(WarpOp::Bar(k)) if k != BarKind::Arrive && !matches!(data.args.get(1).map(|&c| &f.insts[c].op), Some(Op::Const(0))))
}

impl Em<'_> {
    /// A barrier of a lanes-model function; false when `v` is not one.
    pub(super) fn lanes_barrier(&mut self, v: Value) -> Result<bool, EmitError> {
        let data = &self.f.insts[v];
        let (op, args, ty) = (data.op.clone(), data.args.clone(), data.ty);
        let Op::Warp(WarpOp::Bar(kind)) = op else { return Ok(false) };
        if self.f.model != ExecModel::Lanes {
            return Ok(false);
        }
        if kind == BarKind::Arrive {
            self.fence()?;
            return Ok(true);
        }
        // Operands: id, count (0: the whole block), then the predicate of a reduction.
        if may_trap(self.f, v) {
            let size = self.wave.as_ref().map_or(self.ws(), |w| w.group);
            let c = self.get(args[1])?;
            let c = self.low_u32(args[1], c)?;
            let tb = self.ty(Type::B1)?;
            let (zero, whole) = (self.wc32(0)?, self.wc32(size)?);
            let is0 = self.b.i_equal(tb, None, c, zero).map_err(internal)?;
            let all = self.b.i_equal(tb, None, c, whole).map_err(internal)?;
            let ok = self.b.logical_or(tb, None, is0, all).map_err(internal)?;
            let bad = self.b.logical_not(tb, None, ok).map_err(internal)?;
            self.trap_when(bad, BARRIER_COUNT_TRAP)?;
        }
        if kind == BarKind::Sync {
            self.barrier()?;
            return Ok(true);
        }
        let t = ty.ok_or_else(|| internal("bar.red without a type"))?;
        let r = self.barrier_reduction(v, kind, args[2])?;
        let r = self.value_of_word(r, t)?;
        self.define(v, r)?;
        Ok(true)
    }

    /// `bar.red` of `kind` on predicate `p` over the lanes that reach it (u64: the count for
    /// popc, 0 or 1 for and / or).
    fn barrier_reduction(&mut self, v: Value, kind: BarKind, p: Value) -> Result<Word, EmitError> {
        let x = self.word_of(p)?;
        let one = self.wc64(1)?;
        let bit = self.b.bitwise_and(self.t_u64, None, x, one).map_err(internal)?;
        let group = self.present_with(v, &[bit])?;
        let tb = self.ty(Type::B1)?;
        let zero = self.wc64(0)?;
        let (mut pop, mut n) = (zero, zero);
        for i in 0..self.ws() {
            let ic = self.wc32(i)?;
            let on = self.mask_bit(group, ic)?;
            let xi = self.fetch(0, ic)?;
            let xi = self.b.select(self.t_u64, None, on, xi, zero).map_err(internal)?;
            pop = self.b.i_add(self.t_u64, None, pop, xi).map_err(internal)?;
            let c = self.b.select(self.t_u64, None, on, one, zero).map_err(internal)?;
            n = self.b.i_add(self.t_u64, None, n, c).map_err(internal)?;
        }
        let r = match kind {
            BarKind::RedPopc => return Ok(pop),
            BarKind::RedAnd => self.b.i_equal(tb, None, pop, n),
            _ => self.b.i_not_equal(tb, None, pop, zero),
        }
        .map_err(internal)?;
        self.b.select(self.t_u64, None, r, one, zero).map_err(internal)
    }
}
