//! Lane loops: code that runs once per lane of a wave (or invocation of a workgroup) in lane
//! order, emitted as one SPIR-V loop over the lanes instead of one copy per lane.
//!
//! The loop runs in the middle of the current block, as `Em::word_rmw`'s compare-exchange loop
//! does: its counter and its accumulator live in Private variables (naga's reader scopes a
//! loop's values to the loop, so a phi could not carry the result out), values defined before
//! it stay usable in it and after it, and it is marked `DontUnroll`, so a driver keeps one copy
//! of the body: lavapipe compiles a workgroup barrier inside the body as one suspension point
//! of its coroutine rather than one per lane (the per-lane copies made the lane-by-lane atomics
//! of a wave take minutes to compile).

use super::emit::{internal, Em, EmitError};
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{self, Word};

impl Em<'_> {
    /// A module-level Private variable of type `ty` (listed in the entry point's interface at
    /// the end of emission).
    pub(super) fn private_var(&mut self, ty: Word) -> Word {
        let p = self.b.type_pointer(None, spirv::StorageClass::Private, ty);
        let id = self.b.id();
        let var = Instruction::new(spirv::Op::Variable, Some(p), Some(id), vec![Operand::StorageClass(spirv::StorageClass::Private)]);
        self.b.module_mut().types_global_values.push(var);
        self.private_vars.push(id);
        id
    }

    /// Run `body` for lanes `0..count` in order, as one SPIR-V loop; `body` gets the lane
    /// (u32) and a Private u64 accumulator that starts at `init` and may be loaded and stored;
    /// the accumulator's final value (u64).
    pub(super) fn lane_loop(&mut self, count: u32, init: Word, body: impl FnOnce(&mut Self, Word, Word) -> Result<(), EmitError>) -> Result<Word, EmitError> {
        // Loops may nest (a body that runs another lane loop): each takes its own pair.
        let (counter, acc) = match self.free_loop_vars.pop() {
            Some(v) => v,
            None => (self.private_var(self.t_u32), self.private_var(self.t_u64)),
        };
        let zero = self.wc32(0)?;
        self.b.store(counter, zero, None, []).map_err(internal)?;
        self.b.store(acc, init, None, []).map_err(internal)?;
        let (header, first, cont, merge) = (self.b.id(), self.b.id(), self.b.id(), self.b.id());
        self.b.branch(header).map_err(internal)?;
        self.cur = self.b.begin_block(Some(header)).map_err(internal)?;
        let lane = self.b.load(self.t_u32, None, counter, None, []).map_err(internal)?;
        let n = self.wc32(count)?;
        let tb = self.bool_ty()?;
        let more = self.b.u_less_than(tb, None, lane, n).map_err(internal)?;
        self.b.loop_merge(merge, cont, spirv::LoopControl::DONT_UNROLL, []).map_err(internal)?;
        self.b.branch_conditional(more, first, merge, []).map_err(internal)?;
        self.cur = self.b.begin_block(Some(first)).map_err(internal)?;
        body(self, lane, acc)?;
        self.b.branch(cont).map_err(internal)?;
        self.cur = self.b.begin_block(Some(cont)).map_err(internal)?;
        let one = self.wc32(1)?;
        let next = self.b.i_add(self.t_u32, None, lane, one).map_err(internal)?;
        self.b.store(counter, next, None, []).map_err(internal)?;
        self.b.branch(header).map_err(internal)?;
        self.cur = self.b.begin_block(Some(merge)).map_err(internal)?;
        self.loop_cut_where(more)?;
        let r = self.b.load(self.t_u64, None, acc, None, []).map_err(internal)?;
        self.free_loop_vars.push((counter, acc));
        Ok(r)
    }
}
