//! Workgroups of several AMD waves whose waves take different paths (`super::multi_wave`), run
//! exactly: every invocation goes through the union of the paths the waves take, and a per-wave
//! running predicate keeps a wave that is off from changing anything.
//!
//! The waves share one Vulkan workgroup, whose barriers (the per-wave exchanges', the memory
//! order's, `s_barrier`) every invocation must reach together, so control flow stays uniform
//! over the workgroup: each selection of the structured statements ([`Stmt`]) votes over the
//! waves that run there; its first arm runs when some running wave takes it, with the waves
//! that take it on, then its second arm likewise, and after it the waves that ran it before are
//! on again (less those that broke, continued or returned inside). A loop runs until no wave is
//! left in it: `break` and `continue` turn the wave off until the loop ends or its next
//! iteration begins, and `return` writes the wave's outputs and turns it off for good.
//!
//! A wave that is off computes values nobody keeps: every store of the emitter's own state
//! (values kept across blocks, phi and structurizer variables, machine registers) keeps the
//! old value there, every lane mask of a memory, buffer or cross-lane op is empty (so no lane
//! reads or writes memory, and the wave's exchange slots are its own), and traps and halts are
//! not recorded. Functions with operations outside that set (images, BVH nodes, calls, stage
//! outputs, constant banks, NVIDIA warp ops) are not run this way ([`predicated`]): they keep the
//! vote that traps when the waves split ([`super::DIVERGENT_WAVES_TRAP`]). An `s_barrier` that
//! some waves reach while others that have not ended are off (the hardware would pair it with
//! another of their barriers) records [`super::DIVERGENT_WAVES_TRAP`] too.

use super::emit::{internal, Em, EmitError};
use super::DIVERGENT_WAVES_TRAP;
use crate::structurize::{Cond, Stmt};
use isabridge_ir::ir::{Block, ExecModel, Function, Terminator};
use isabridge_ir::ops::mem::{MemOp, Space};
use isabridge_ir::ops::stage::StageOp;
use isabridge_ir::types::Type;
use isabridge_ir::Op;
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{self, Word};

/// The predicate's variables (Private, per invocation; the same on every lane of a wave).
pub(super) struct Pred {
    /// bool: this invocation's wave runs here.
    on: Word,
    /// bool: the wave has returned.
    ret: Word,
    /// Workgroup array of three u32 vote words (`Em::vote_or`).
    votes: Word,
    /// u32: the index of the next vote's word.
    turn: Word,
    /// The enclosing loops, innermost last: bool variables set by a wave that broke out of it
    /// and one that continued it.
    loops: Vec<(Word, Word)>,
    /// Selections and loops around the code being emitted (0: the top level, where every wave
    /// that has not returned runs).
    depth: u32,
}

/// Whether `f`, run with `waves` waves per workgroup, runs with the running predicate: several
/// waves of a wave-model function whose every operation the predicate covers.
pub(super) fn predicated(f: &Function, waves: u32) -> bool {
    waves > 1
        && f.model == ExecModel::Wave
        && f.layout.iter().flat_map(|&b| f.blocks[b].insts.iter()).all(|&v| match &f.insts[v].op {
            Op::Image(_) | Op::Ray(_) | Op::Call(_) | Op::Warp(_) => false,
            Op::Stage(s) => matches!(s, StageOp::Message(_)),
            Op::Mem(m) => !matches!(m, MemOp::Load(Space::Constant(_))) && !matches!(m.space(), Space::Constant(_)),
            _ => true,
        })
}

impl Em<'_> {
    /// Declare the predicate's variables and start with every wave on (in the entry block,
    /// every invocation together).
    pub(super) fn begin_union(&mut self) -> Result<(), EmitError> {
        let tb = self.ty(Type::B1)?;
        let (on, ret, turn) = (self.private_var(tb), self.private_var(tb), self.private_var(self.t_u32));
        let three = self.wc32(3)?;
        let arr = self.b.type_array(self.t_u32, three);
        let pa = self.b.type_pointer(None, spirv::StorageClass::Workgroup, arr);
        let votes = self.b.id();
        let var = Instruction::new(spirv::Op::Variable, Some(pa), Some(votes), vec![Operand::StorageClass(spirv::StorageClass::Workgroup)]);
        self.b.module_mut().types_global_values.push(var);
        self.private_vars.push(votes);
        let (t, f) = (self.konst(Type::B1, 1)?, self.konst(Type::B1, 0)?);
        let zero = self.wc32(0)?;
        self.b.store(on, t, None, []).map_err(internal)?;
        self.b.store(ret, f, None, []).map_err(internal)?;
        self.b.store(turn, zero, None, []).map_err(internal)?;
        let local = self.local_index()?;
        let first = self.b.i_equal(tb, None, local, zero).map_err(internal)?;
        let pw = self.b.type_pointer(None, spirv::StorageClass::Workgroup, self.t_u32);
        self.guarded(first, None, |em| {
            for i in 0..3 {
                let k = em.wc32(i)?;
                let p = em.b.access_chain(pw, None, votes, [k]).map_err(internal)?;
                em.b.store(p, zero, None, []).map_err(internal)?;
            }
            Ok(None)
        })?;
        self.barrier()?;
        self.pred = Some(Pred { on, ret, votes, turn, loops: Vec::new(), depth: 0 });
        Ok(())
    }

    /// Whether this wave runs here (b1); `None` outside predicated functions.
    pub(super) fn running(&mut self) -> Result<Option<Word>, EmitError> {
        let Some(on) = self.pred.as_ref().map(|p| p.on) else { return Ok(None) };
        let tb = self.ty(Type::B1)?;
        self.b.load(tb, None, on, None, []).map(Some).map_err(internal)
    }

    /// The value to store in `var` (of SPIR-V type `ty`) for `x`: `x` where this wave runs,
    /// else what `var` holds.
    pub(super) fn kept(&mut self, var: Word, ty: Word, x: Word) -> Result<Word, EmitError> {
        let Some(on) = self.running()? else { return Ok(x) };
        let old = self.b.load(ty, None, var, None, []).map_err(internal)?;
        self.b.select(ty, None, on, x, old).map_err(internal)
    }

    /// The OR of `bits` (u32) over every invocation of the workgroup, the same on all. Three
    /// words in turn: a vote clears the word of the vote after it, whose last reads came
    /// before this vote's barrier's predecessor, so one barrier per vote suffices.
    fn vote_or(&mut self, bits: Word) -> Result<Word, EmitError> {
        let Some((votes, turn)) = self.pred.as_ref().map(|p| (p.votes, p.turn)) else { return Err(internal("a vote outside a predicated function")) };
        let (t32, tb) = (self.t_u32, self.ty(Type::B1)?);
        let (zero, one, three) = (self.wc32(0)?, self.wc32(1)?, self.wc32(3)?);
        let i = self.b.load(t32, None, turn, None, []).map_err(internal)?;
        let n = self.b.i_add(t32, None, i, one).map_err(internal)?;
        let n = self.b.u_mod(t32, None, n, three).map_err(internal)?;
        self.b.store(turn, n, None, []).map_err(internal)?;
        let pw = self.b.type_pointer(None, spirv::StorageClass::Workgroup, t32);
        let local = self.local_index()?;
        let first = self.b.i_equal(tb, None, local, zero).map_err(internal)?;
        self.guarded(first, None, |em| {
            let p = em.b.access_chain(pw, None, votes, [n]).map_err(internal)?;
            em.b.store(p, zero, None, []).map(|_| None).map_err(internal)
        })?;
        let p = self.b.access_chain(pw, None, votes, [i]).map_err(internal)?;
        let (scope, sem) = (self.wc32(2)?, self.wc32(0)?);
        self.b.atomic_or(t32, None, p, scope, sem, bits).map_err(internal)?;
        self.barrier()?;
        self.b.load(t32, None, p, None, []).map_err(internal)
    }

    /// `s_barrier` of a predicated function: where some waves run and others that have not
    /// returned are off, [`DIVERGENT_WAVES_TRAP`] (the hardware would pair the barrier with
    /// another of theirs); then a workgroup barrier.
    pub(super) fn wave_barrier(&mut self) -> Result<(), EmitError> {
        if self.pred.as_ref().is_some_and(|p| p.depth > 0) {
            let (on, ret) = self.pred.as_ref().map(|p| (p.on, p.ret)).ok_or_else(|| internal("no predicate"))?;
            let (t32, tb) = (self.t_u32, self.ty(Type::B1)?);
            let (zero, one, two, three) = (self.wc32(0)?, self.wc32(1)?, self.wc32(2)?, self.wc32(3)?);
            let on = self.b.load(tb, None, on, None, []).map_err(internal)?;
            let ret = self.b.load(tb, None, ret, None, []).map_err(internal)?;
            let off = self.b.select(t32, None, ret, zero, two).map_err(internal)?;
            let bits = self.b.select(t32, None, on, one, off).map_err(internal)?;
            let all = self.vote_or(bits)?;
            let split = self.b.i_equal(tb, None, all, three).map_err(internal)?;
            self.trap_when(split, DIVERGENT_WAVES_TRAP)?;
        }
        self.barrier()
    }

    fn set_on(&mut self, x: Word) -> Result<(), EmitError> {
        let on = self.pred.as_ref().map(|p| p.on).ok_or_else(|| internal("no predicate"))?;
        self.b.store(on, x, None, []).map_err(internal)
    }

    /// OR this wave's running bit into `var` (bool) and turn the wave off.
    fn park(&mut self, var: Word) -> Result<(), EmitError> {
        let tb = self.ty(Type::B1)?;
        let on = self.running()?.ok_or_else(|| internal("no predicate"))?;
        let x = self.b.load(tb, None, var, None, []).map_err(internal)?;
        let x = self.b.logical_or(tb, None, x, on).map_err(internal)?;
        self.b.store(var, x, None, []).map_err(internal)?;
        let f = self.konst(Type::B1, 0)?;
        self.set_on(f)
    }

    /// `save` (b1) less the waves that returned and, in a loop, broke out of or continued the
    /// innermost one: who runs after a selection whose header `save` ran.
    fn resume(&mut self, save: Word) -> Result<(), EmitError> {
        let tb = self.ty(Type::B1)?;
        let p = self.pred.as_ref().ok_or_else(|| internal("no predicate"))?;
        let mut vars = vec![p.ret];
        if let Some(&(brk, cont)) = p.loops.last() {
            vars.extend([brk, cont]);
        }
        let mut x = save;
        for var in vars {
            let y = self.b.load(tb, None, var, None, []).map_err(internal)?;
            let y = self.b.logical_not(tb, None, y).map_err(internal)?;
            x = self.b.logical_and(tb, None, x, y).map_err(internal)?;
        }
        self.set_on(x)
    }

    fn new_block(&mut self, label: Word) -> Result<(), EmitError> {
        self.cur = self.b.begin_block(Some(label)).map_err(internal)?;
        self.region = self.cur;
        Ok(())
    }

    /// Emit structured statements under the running predicate; control always reaches their
    /// end (a `break`, `continue` or `return` turns the wave off instead of leaving).
    pub(super) fn union_seq(&mut self, stmts: &[Stmt]) -> Result<(), EmitError> {
        for s in stmts {
            match s {
                Stmt::Code(n) => self.code(*n)?,
                Stmt::Edge(a, b) => self.edge(*a, *b)?,
                Stmt::Set(v, k) => {
                    let var = *self.svars.get(v.0 as usize).ok_or_else(|| internal("structurizer variable out of range"))?;
                    let c = self.konst(Type::I32, *k as u64)?;
                    let c = self.kept(var, self.t_u32, c)?;
                    self.b.store(var, c, None, []).map_err(internal)?;
                }
                Stmt::Return(n) => {
                    let on = self.running()?.ok_or_else(|| internal("no predicate"))?;
                    // A selection whose arm keeps the current region: the returned values
                    // defined in it stay usable there (the arm is dominated by this block).
                    let (then_l, merge_l) = (self.b.id(), self.b.id());
                    self.b.selection_merge(merge_l, spirv::SelectionControl::NONE).map_err(internal)?;
                    self.b.branch_conditional(on, then_l, merge_l, []).map_err(internal)?;
                    self.cur = self.b.begin_block(Some(then_l)).map_err(internal)?;
                    self.write_outputs(*n)?;
                    self.b.branch(merge_l).map_err(internal)?;
                    self.cur = self.b.begin_block(Some(merge_l)).map_err(internal)?;
                    let ret = self.pred.as_ref().map(|p| p.ret).ok_or_else(|| internal("no predicate"))?;
                    return self.park(ret);
                }
                Stmt::Break | Stmt::Continue => {
                    let Some(&(brk, cont)) = self.pred.as_ref().and_then(|p| p.loops.last()) else {
                        return Err(internal("break or continue outside a loop"));
                    };
                    return self.park(if matches!(s, Stmt::Break) { brk } else { cont });
                }
                Stmt::If(_, a, b) if a.is_empty() && b.is_empty() => {}
                Stmt::If(c, a, b) => self.union_if(*c, a, b)?,
                Stmt::Loop(body) => self.union_loop(body)?,
            }
        }
        Ok(())
    }

    /// A selection: each arm that some running wave takes, in turn, with those waves on.
    fn union_if(&mut self, c: Cond, a: &[Stmt], b: &[Stmt]) -> Result<(), EmitError> {
        let (t32, tb) = (self.t_u32, self.ty(Type::B1)?);
        let cv = match c {
            Cond::Block(n) => {
                let Terminator::Branch(v, ..) = self.f.blocks[Block(n)].term else {
                    return Err(internal(format!("block {n} does not branch")));
                };
                self.cur_ir = n;
                self.get(v)?
            }
            Cond::VarEq(v, k) => {
                let var = *self.svars.get(v.0 as usize).ok_or_else(|| internal("structurizer variable out of range"))?;
                let x = self.b.load(t32, None, var, None, []).map_err(internal)?;
                let k = self.konst(Type::I32, k as u64)?;
                self.b.i_equal(tb, None, x, k).map_err(internal)?
            }
        };
        let save = self.running()?.ok_or_else(|| internal("no predicate"))?;
        let not_c = self.b.logical_not(tb, None, cv).map_err(internal)?;
        let take_t = self.b.logical_and(tb, None, save, cv).map_err(internal)?;
        let take_f = self.b.logical_and(tb, None, save, not_c).map_err(internal)?;
        let (zero, one, two) = (self.wc32(0)?, self.wc32(1)?, self.wc32(2)?);
        let bt = self.b.select(t32, None, take_t, one, zero).map_err(internal)?;
        let bf = self.b.select(t32, None, take_f, two, zero).map_err(internal)?;
        let bits = self.b.bitwise_or(t32, None, bt, bf).map_err(internal)?;
        let all = self.vote_or(bits)?;
        if let Some(p) = self.pred.as_mut() {
            p.depth += 1;
        }
        for (arm, bit, take) in [(a, one, take_t), (b, two, take_f)] {
            if arm.is_empty() {
                continue;
            }
            let x = self.b.bitwise_and(t32, None, all, bit).map_err(internal)?;
            let any = self.b.i_not_equal(tb, None, x, zero).map_err(internal)?;
            let (body, merge) = (self.b.id(), self.b.id());
            self.b.selection_merge(merge, spirv::SelectionControl::NONE).map_err(internal)?;
            self.b.branch_conditional(any, body, merge, []).map_err(internal)?;
            self.new_block(body)?;
            self.set_on(take)?;
            self.union_seq(arm)?;
            self.b.branch(merge).map_err(internal)?;
            self.new_block(merge)?;
        }
        if let Some(p) = self.pred.as_mut() {
            p.depth -= 1;
        }
        self.resume(save)
    }

    /// A loop: iterations while some wave that entered it has not left it.
    fn union_loop(&mut self, body: &[Stmt]) -> Result<(), EmitError> {
        let tb = self.ty(Type::B1)?;
        let entry = self.running()?.ok_or_else(|| internal("no predicate"))?;
        let (brk, cont) = (self.private_var(tb), self.private_var(tb));
        let f = self.konst(Type::B1, 0)?;
        self.b.store(brk, f, None, []).map_err(internal)?;
        let ret = self.pred.as_mut().map(|p| {
            p.loops.push((brk, cont));
            p.depth += 1;
            p.ret
        });
        let ret = ret.ok_or_else(|| internal("no predicate"))?;
        let (header, top, first, leave, cont_l, merge) = (self.b.id(), self.b.id(), self.b.id(), self.b.id(), self.b.id(), self.b.id());
        self.b.branch(header).map_err(internal)?;
        self.new_block(header)?;
        self.b.loop_merge(merge, cont_l, spirv::LoopControl::NONE, []).map_err(internal)?;
        self.b.branch(top).map_err(internal)?;
        self.new_block(top)?;
        // How the loop is left (`super::loop_guard`): only through `leave`.
        let z = self.wc32(0)?;
        self.loop_left(z)?;
        self.b.store(cont, f, None, []).map_err(internal)?;
        let mut on = entry;
        for var in [brk, ret] {
            let y = self.b.load(tb, None, var, None, []).map_err(internal)?;
            let y = self.b.logical_not(tb, None, y).map_err(internal)?;
            on = self.b.logical_and(tb, None, on, y).map_err(internal)?;
        }
        self.set_on(on)?;
        let (zero, one) = (self.wc32(0)?, self.wc32(1)?);
        let bits = self.b.select(self.t_u32, None, on, one, zero).map_err(internal)?;
        let all = self.vote_or(bits)?;
        let any = self.b.i_not_equal(tb, None, all, zero).map_err(internal)?;
        self.b.selection_merge(first, spirv::SelectionControl::NONE).map_err(internal)?;
        self.b.branch_conditional(any, first, leave, []).map_err(internal)?;
        self.new_block(leave)?;
        let o = self.wc32(1)?;
        self.loop_left(o)?;
        self.b.branch(merge).map_err(internal)?;
        self.new_block(first)?;
        self.union_seq(body)?;
        self.b.branch(cont_l).map_err(internal)?;
        self.new_block(cont_l)?;
        self.b.branch(header).map_err(internal)?;
        self.new_block(merge)?;
        self.loop_merged()?;
        if let Some(p) = self.pred.as_mut() {
            p.loops.pop();
            p.depth -= 1;
        }
        let y = self.b.load(tb, None, ret, None, []).map_err(internal)?;
        let y = self.b.logical_not(tb, None, y).map_err(internal)?;
        let x = self.b.logical_and(tb, None, entry, y).map_err(internal)?;
        self.set_on(x)
    }
}

/// Move the code a loop's exits run out of the loop, for the predicate: an arm of a selection
/// in a loop's body (not in a loop nested in it) that ends in the loop's `break` or a `return`
/// and leaves or continues the loop nowhere else now records which exit it is in a new
/// structurizer variable and breaks, and after the loop the code runs where the variable names
/// it (then what followed the loop, unless the arm returns). The same paths in the same order
/// for each wave; but a wave that leaves the loop early now waits, off, until every wave has
/// left it before running that code, so the code's barriers meet the other waves' there
/// rather than inside the loop, as they meet on the hardware when the waves leave the same way.
pub(super) fn hoist_exits(s: &mut crate::structurize::Structured) {
    hoist_seq(&mut s.body, &mut s.vars);
}

fn hoist_seq(stmts: &mut Vec<Stmt>, vars: &mut u32) {
    let mut i = 0;
    while i < stmts.len() {
        match &mut stmts[i] {
            Stmt::If(_, a, b) => {
                hoist_seq(a, vars);
                hoist_seq(b, vars);
            }
            Stmt::Loop(body) => {
                hoist_seq(body, vars);
                let var = crate::structurize::Var(*vars);
                let mut arms = Vec::new();
                take_exits(body, var, &mut arms);
                if !arms.is_empty() {
                    *vars += 1;
                    let after: Vec<Stmt> = arms.into_iter().enumerate().map(|(k, arm)| Stmt::If(Cond::VarEq(var, k as u32 + 1), arm, Vec::new())).collect();
                    let n = after.len();
                    stmts.splice(i + 1..i + 1, after);
                    stmts.insert(i, Stmt::Set(var, 0));
                    i += n + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
}

/// Replace each exit arm (see [`hoist_exits`]) in `body` (not in nested loops) with a `Set` of
/// `var` to its number and a `break`, collecting the arms (less a final `break`) in `arms`.
fn take_exits(body: &mut [Stmt], var: crate::structurize::Var, arms: &mut Vec<Vec<Stmt>>) {
    for s in body.iter_mut() {
        if let Stmt::If(_, a, b) = s {
            for arm in [a, b] {
                if exit_arm(arm) {
                    let mut code = std::mem::take(arm);
                    if matches!(code.last(), Some(Stmt::Break)) {
                        code.pop();
                    }
                    arms.push(code);
                    *arm = vec![Stmt::Set(var, arms.len() as u32), Stmt::Break];
                } else {
                    take_exits(arm, var, arms);
                }
            }
        }
    }
}

/// Whether `arm` runs code (some block or construct) and then leaves the loop through a final
/// `break` or a `return`, with no other `break` or `continue` of the loop.
fn exit_arm(arm: &[Stmt]) -> bool {
    let Some((last, rest)) = arm.split_last() else { return false };
    matches!(last, Stmt::Break | Stmt::Return(_))
        && rest.iter().any(|s| matches!(s, Stmt::Code(_) | Stmt::If(..) | Stmt::Loop(_)))
        && !rest.iter().any(leaves_loop)
}

/// Whether `s` breaks or continues the loop around it (not a loop nested in it).
fn leaves_loop(s: &Stmt) -> bool {
    match s {
        Stmt::Break | Stmt::Continue => true,
        Stmt::If(_, a, b) => a.iter().chain(b).any(leaves_loop),
        _ => false,
    }
}
