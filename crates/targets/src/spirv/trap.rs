//! The IR trap (`trap.<code>`): the invocation records the code plus one and its invocation
//! index in the trap buffer (descriptor binding [`TRAP_BINDING`]: two 64-bit words, zero before
//! the dispatch) and returns. A runner reads the buffer after the dispatch and reports the trap,
//! as the IR defines a trap: it ends the run with an error the host sees. When several
//! invocations trap, the words hold one of them (the last store each word saw).

use super::emit::{internal, unsupported, Em, EmitError};
use isabridge_ir::ir::{Block, Value};
use isabridge_ir::types::Type;
use rspirv::spirv::{self, Word};

/// Descriptor binding (set 0) of the trap buffer. Every kernel has one
/// ([`super::Kernel::traps`]): besides the IR's traps and the ops that trap on run-time values
/// they do not define (formats, BVH nodes, image descriptors, swizzled buffer descriptors,
/// halts), any loop may be one a device ends early (`super::loop_guard`).
pub const TRAP_BINDING: u32 = 3;

impl Em<'_> {
    /// Record trap `code` for this invocation where `bad` (b1) holds, without ending it: the
    /// runner reports the trap after the dispatch, as the interpreter stops with an error.
    pub(super) fn trap_when(&mut self, bad: Word, code: u16) -> Result<(), EmitError> {
        let Some(var) = self.trap_var else { return Err(internal("a run-time trap without the trap buffer")) };
        // A wave that is off (`super::wave_union`) records nothing.
        let bad = match self.running()? {
            Some(on) => {
                let tb = self.ty(Type::B1)?;
                self.b.logical_and(tb, None, bad, on).map_err(internal)?
            }
            None => bad,
        };
        self.guarded(bad, None, |em| {
            let pw = em.b.type_pointer(None, spirv::StorageClass::StorageBuffer, em.t_u64);
            let (zero, one) = (em.konst(Type::I32, 0)?, em.konst(Type::I32, 1)?);
            let c = em.trap_word(code)?;
            let p0 = em.b.access_chain(pw, None, var, [zero, zero]).map_err(internal)?;
            em.b.store(p0, c, None, []).map_err(internal)?;
            let p1 = em.b.access_chain(pw, None, var, [zero, one]).map_err(internal)?;
            em.b.store(p1, em.gid, None, []).map_err(internal)?;
            Ok(None)
        })?;
        Ok(())
    }

    /// Lower `trap.<code>` (value `v`), which must end its IR block (what follows it in the
    /// block, its edges and terminator, is emitted unreachable after the return).
    pub(super) fn trap(&mut self, v: Value, code: u16) -> Result<(), EmitError> {
        let text = format!("trap.{code}");
        if self.f.blocks[Block(self.cur_ir)].insts.last() != Some(&v) {
            return Err(unsupported(self.cur_ir, v.0, text, "a trap before the end of its block"));
        }
        self.record_and_return(code)
    }

    /// Record `code` for this invocation in the trap buffer and return from the entry point,
    /// in a selection whose condition is always true; emission goes on in its merge block,
    /// which the invocation never reaches.
    pub(super) fn record_and_return(&mut self, code: u16) -> Result<(), EmitError> {
        let Some(var) = self.trap_var else { return Err(internal("a trap without the trap buffer")) };
        let pw = self.b.type_pointer(None, spirv::StorageClass::StorageBuffer, self.t_u64);
        let (zero, one) = (self.konst(Type::I32, 0)?, self.konst(Type::I32, 1)?);
        // A selection whose condition is always true keeps the rest of the block structured.
        // (where the wave runs: `super::wave_union`)
        let always = match self.running()? {
            Some(on) => on,
            None => self.konst(Type::B1, 1)?,
        };
        let (yes, cont) = (self.b.id(), self.b.id());
        self.b.selection_merge(cont, spirv::SelectionControl::NONE).map_err(internal)?;
        self.b.branch_conditional(always, yes, cont, []).map_err(internal)?;
        self.b.begin_block(Some(yes)).map_err(internal)?;
        let c = self.trap_word(code)?;
        let p0 = self.b.access_chain(pw, None, var, [zero, zero]).map_err(internal)?;
        self.b.store(p0, c, None, []).map_err(internal)?;
        let p1 = self.b.access_chain(pw, None, var, [zero, one]).map_err(internal)?;
        self.b.store(p1, self.gid, None, []).map_err(internal)?;
        self.b.ret().map_err(internal)?;
        // The merge block is dominated by the old one: it continues the old one's region, so
        // its values stay valid there.
        self.cur = self.b.begin_block(Some(cont)).map_err(internal)?;
        Ok(())
    }
}
