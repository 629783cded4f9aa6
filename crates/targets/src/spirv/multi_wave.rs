//! Guest workgroups of several waves (AMD) as one Vulkan workgroup
//! ([`super::EmitOptions::workgroup_waves`]) when the function uses the LDS or `s_barrier`
//! (else each wave is its own workgroup: they share nothing): the waves share the LDS array and `s_barrier` is
//! a workgroup barrier over all of them; each wave keeps its own exchange slots, and its lanes
//! are invocations `wave * wave_size ..` of the workgroup (`lane.waveid` is the wave's index in
//! it, as in the interpreter's workgroup).
//!
//! A wave's own exchanges and store ordering use workgroup barriers too (SPIR-V has no barrier
//! over part of a workgroup), so every invocation must take the same path. Where the waves
//! disagree at a wave-uniform branch (say `s_cbranch_execz` where one wave has no lane left),
//! functions whose operations the running predicate covers go through the union of the
//! waves' paths, each wave on only in its own ([`super::wave_union`]); in the others each
//! conditional branch is preceded by a vote over the workgroup, and where the waves disagree
//! every invocation records [`DIVERGENT_WAVES_TRAP`] and returns: the runner reports a trap,
//! never a result that differs silently from the interpreter's, which runs such waves apart.
//! Lanes-model (NVIDIA) functions run one warp per workgroup.

use super::emit::{internal, unsupported, Em, EmitError, EmitOptions};
use isabridge_ir::ir::{ExecModel, Function};
use isabridge_ir::ops::control::SyncOp;
use isabridge_ir::Op;
use isabridge_ir::types::Type;
use rspirv::spirv;
use rspirv::spirv::Word;

/// The trap code recorded when the waves of a workgroup take different paths at a branch of a
/// function the running predicate does not cover, or some reach an `s_barrier` while others
/// that have not ended are off (`super::wave_union`).
pub const DIVERGENT_WAVES_TRAP: u16 = 0xfffd;

/// The waves per Vulkan workgroup of `f` for `opts`: as many as asked when `f` uses the LDS or
/// barriers, else 1 (its waves share nothing, so separate workgroups run them as the guest's).
pub(super) fn waves(f: &Function, opts: &EmitOptions) -> Result<u32, EmitError> {
    let shares = f.shared_bytes > 0 || f.layout.iter().flat_map(|&b| f.blocks[b].insts.iter()).any(|&v| matches!(f.insts[v].op, Op::Sync(SyncOp::Barrier(_))));
    let n = if shares { opts.workgroup_waves.max(1) } else { 1 };
    if n > 1 && f.model != ExecModel::Wave {
        return Err(unsupported(0, u32::MAX, "workgroup", "several waves per workgroup in lanes-model functions"));
    }
    let ws = if f.wave_size == 0 { 32 } else { f.wave_size };
    if ws * n > 1024 {
        return Err(unsupported(0, u32::MAX, "workgroup", "workgroups of more than 1024 invocations"));
    }
    Ok(n)
}

/// Workgroup scope (SPIR-V `Scope`).
const WORKGROUP: u32 = 2;

impl Em<'_> {
    /// This invocation's index in its workgroup (u32).
    pub(super) fn local_index(&mut self) -> Result<Word, EmitError> {
        let group = self.wave.as_ref().map_or(self.ws(), |w| w.group);
        let g = self.b.u_convert(self.t_u32, None, self.gid).map_err(internal)?;
        let n = self.wc32(group)?;
        self.b.u_mod(self.t_u32, None, g, n).map_err(internal)
    }

    /// Branch condition `c` (b1) of a wave-model function, checked to be the same on every
    /// invocation of a several-wave workgroup: otherwise each records
    /// [`DIVERGENT_WAVES_TRAP`] and returns.
    pub(super) fn uniform_branch(&mut self, c: Word) -> Result<Word, EmitError> {
        let group = self.wave.as_ref().map_or(0, |w| w.group);
        if self.f.model != ExecModel::Wave || group <= self.ws() {
            return Ok(c);
        }
        let Some(trap) = self.trap_var else { return Err(internal("a several-wave workgroup without the trap buffer")) };
        // The vote word: 1 where taken, 2 where not, OR-ed over the workgroup.
        let Some(vote) = self.wave.as_ref().and_then(|w| w.vote) else { return Err(internal("a several-wave workgroup without its vote word")) };
        let (t32, tb) = (self.t_u32, self.ty(Type::B1)?);
        let (zero, one, two, three) = (self.wc32(0)?, self.wc32(1)?, self.wc32(2)?, self.wc32(3)?);
        self.barrier()?;
        let local = self.local_index()?;
        let first = self.b.i_equal(tb, None, local, zero).map_err(internal)?;
        self.guarded(first, None, |em| em.b.store(vote, zero, None, []).map(|_| None).map_err(internal))?;
        self.barrier()?;
        let mine = self.b.select(t32, None, c, one, two).map_err(internal)?;
        let (scope, sem) = (self.wc32(WORKGROUP)?, self.wc32(0)?);
        self.b.atomic_or(t32, None, vote, scope, sem, mine).map_err(internal)?;
        self.barrier()?;
        let all = self.b.load(t32, None, vote, None, []).map_err(internal)?;
        let split = self.b.i_equal(tb, None, all, three).map_err(internal)?;
        let (yes, cont) = (self.b.id(), self.b.id());
        self.b.selection_merge(cont, spirv::SelectionControl::NONE).map_err(internal)?;
        self.b.branch_conditional(split, yes, cont, []).map_err(internal)?;
        self.b.begin_block(Some(yes)).map_err(internal)?;
        let pw = self.b.type_pointer(None, spirv::StorageClass::StorageBuffer, self.t_u64);
        let (z, o) = (self.konst(Type::I32, 0)?, self.konst(Type::I32, 1)?);
        let code = self.trap_word(DIVERGENT_WAVES_TRAP)?;
        let p0 = self.b.access_chain(pw, None, trap, [z, z]).map_err(internal)?;
        self.b.store(p0, code, None, []).map_err(internal)?;
        let p1 = self.b.access_chain(pw, None, trap, [z, o]).map_err(internal)?;
        self.b.store(p1, self.gid, None, []).map_err(internal)?;
        self.b.ret().map_err(internal)?;
        // The merge block is dominated by the old one: it continues its region.
        self.cur = self.b.begin_block(Some(cont)).map_err(internal)?;
        Ok(c)
    }
}
