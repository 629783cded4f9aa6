//! The IR trap (`trap.<code>`): the invocation records the code plus one and its invocation
//! index in the trap buffer (descriptor binding [`TRAP_BINDING`]: two 64-bit words, zero before
//! the dispatch) and returns. A runner reads the buffer after the dispatch and reports the trap,
//! as the IR defines a trap: it ends the run with an error the host sees. When several
//! invocations trap, the words hold one of them (the last store each word saw).

use super::emit::{internal, unsupported, Em, EmitError};
use isabridge_ir::ir::{Block, Function, Value};
use isabridge_ir::ops::buffer::{BufferKind, BufferOp};
use isabridge_ir::ops::control::SyncOp;
use isabridge_ir::types::Type;
use isabridge_ir::Op;
use rspirv::spirv::{self, Word};

/// Descriptor binding (set 0) of the trap buffer of a kernel that may trap
/// ([`super::Kernel::traps`]).
pub const TRAP_BINDING: u32 = 3;

/// Whether `f` has a trap (or a formatted buffer access whose format the descriptor names,
/// which traps on a code that names none: `super::amd_format`, or a BVH node intersection,
/// which traps on a node type the IR does not define: `super::amd_bvh`, or an image op, which
/// traps on a descriptor the IR does not define: `super::image`, or a halting interrupt,
/// recorded as [`super::HALT_TRAP`]: `super::halt`).
pub(super) fn traps(f: &Function) -> bool {
    f.layout.iter().flat_map(|&b| f.blocks[b].insts.iter()).any(|&v| {
        matches!(
            f.insts[v].op,
            Op::Sync(SyncOp::Trap(_))
                | Op::Buffer(BufferOp { kind: BufferKind::LoadFormat { format: None, .. } | BufferKind::StoreFormat { format: None, .. }, .. })
                | Op::Ray(_)
                | Op::Image(_)
                | Op::Sync(SyncOp::Interrupt { halt: true })
        ) || super::barrier::may_trap(f, v)
    })
}

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
            let c = em.konst(Type::I64, code as u64 + 1)?;
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
        let c = self.konst(Type::I64, code as u64 + 1)?;
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
