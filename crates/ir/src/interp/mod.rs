//! The reference interpreter: runs a function for one workgroup of several waves of 32 or 64
//! lanes. The lanes of a wave run in groups: a divergent branch splits a group, and groups merge
//! only where the IR says (`converge.join`, warp ops with a member mask; see `ops::warp` and
//! `sched`). Cross-lane ops see their group as the active mask. Barriers release when every
//! thread they count waits or has finished. Deterministic.
//! Register reads and writes of the pre-SSA form run too, so every pass can be checked by
//! running the function before and after it.

mod call;
mod image;
mod late;
mod sched;
mod warp;

use crate::eval::eval_pure;
use crate::ir::{Block, Function, Terminator, Value};
use crate::ops::lane::{shfl_source, LaneOp};
use crate::ops::mem::{atomic_apply, MemOp, Space};
use crate::ops::buffer::{format_of_code, BufferDesc, BufferKind, BufferOp};
use crate::ops::format::{Format, NumFormat};
use crate::ops::control::SyncOp;
use crate::ops::Op;
use crate::types::Type;
use thiserror::Error;

/// An interpreter failure.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum InterpError {
    /// The function failed validation.
    #[error("invalid function: {0}")]
    Invalid(#[from] crate::validate::ValidateError),
    /// A memory access outside every buffer.
    #[error("out-of-bounds {space:?} access of {size} bytes at {addr:#x}")]
    OutOfBounds {
        /// Address space.
        space: Space,
        /// Byte address.
        addr: u64,
        /// Access size.
        size: u32,
    },
    /// More block executions than the configured limit.
    #[error("step limit of {0} exceeded")]
    StepLimit(u64),
    /// Bad configuration.
    #[error("bad configuration: {0}")]
    Config(&'static str),
    /// A branch of a wave-model function whose condition differs between lanes.
    #[error("branch at the end of block {0} is not uniform in a wave-model function")]
    Divergent(u32),
    /// Lanes wait at joins or barriers that can never complete.
    #[error("deadlock: every unfinished lane waits at a join or barrier that cannot complete")]
    Deadlock,
    /// An operation the interpreter does not implement for these operand values.
    #[error("unsupported: {0}")]
    Unsupported(&'static str),
    /// A wave entered the trap handler with this code (the dispatch ends with an error).
    #[error("trap {0}")]
    Trap(u16),
    /// A wave halted after an interrupt to the host, which would have to resume it.
    #[error("wave halted after an interrupt to the host")]
    Halt,
    /// A call to an external symbol that no function of the module provides.
    #[error("call to undefined symbol {0}")]
    UndefinedSymbol(String),
    /// Calls nested deeper than the configured limit.
    #[error("call depth limit of {0} exceeded")]
    CallDepth(u32),
    /// A value read before the wait that covers the memory result it holds reached an
    /// address, stored data, a mask, a branch or an output (the late-arriving-memory model of
    /// functions with pending results).
    #[error("poison: value v{value} ({op}) used as {what} before the wait that covers the memory result it holds")]
    Poison {
        /// The value used.
        value: u32,
        /// The op that defined it.
        op: String,
        /// How it was used.
        what: &'static str,
    },
}

/// A per-lane input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// Same bits on every lane.
    Uniform(u64),
    /// One value per thread of the workgroup (wave * wave_size + lane).
    PerLane(Vec<u64>),
}

/// Memory visible to a workgroup.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Memory {
    /// Global buffers: (base address, bytes).
    pub global: Vec<(u64, Vec<u8>)>,
    /// Constant banks, by bank number.
    pub constant: Vec<Vec<u8>>,
    /// Workgroup shared memory.
    pub shared: Vec<u8>,
}

/// Launch configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Lanes per wave: 32 or 64.
    pub wave_size: u32,
    /// Waves in the workgroup.
    pub waves: u32,
    /// Scratch bytes per lane.
    pub scratch_bytes: usize,
    /// Maximum number of block executions (per wave group) before giving up.
    pub max_steps: u64,
    /// Most calls active at once.
    pub max_call_depth: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config { wave_size: 32, waves: 1, scratch_bytes: 0, max_steps: 1 << 24, max_call_depth: 64 }
    }
}

/// Results of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Values returned by each thread (empty for threads that never returned).
    pub outputs: Vec<Vec<u64>>,
    /// Memory after the run.
    pub memory: Memory,
    /// Lane-instructions executed.
    pub lane_ops: u64,
    /// Exports and stage messages, in the order they ran.
    pub stage: Vec<crate::ops::stage::StageEvent>,
}

/// Operands an instruction may have beyond phis and vectors built of many parts.
const MAX_ARGS: usize = 36;

struct CInst {
    v: usize,
    op: Op,
    ty: Type,
    src: Type,
    args: [usize; MAX_ARGS],
    nargs: usize,
    /// The lane-mask operand's value index, when the op names one.
    mask: Option<usize>,
    pure: bool,
}

struct CBlock {
    phis: Vec<(usize, Vec<(Block, usize)>)>,
    insts: Vec<CInst>,
    term: Terminator,
}

/// Run `f` (which must pass validation) for one workgroup. Machine registers (`readreg` /
/// `writereg`) are per-thread and start at 0, as undefined SSA values read 0. A call runs an
/// external symbol only if it names `f` itself; [`run_module`] runs functions that call others.
pub fn run(f: &Function, cfg: &Config, inputs: &[Input], mem: Memory) -> Result<Outcome, InterpError> {
    run_functions(std::slice::from_ref(f), cfg, inputs, mem)
}

/// Run the entry function of a module for one workgroup, as [`run`] does. A call to an
/// external symbol runs the module's function of that name; without one it stops the run with
/// [`InterpError::UndefinedSymbol`]. Calls nest at most `cfg.max_call_depth` deep.
pub fn run_module(m: &crate::module::Module, cfg: &Config, inputs: &[Input], mem: Memory) -> Result<Outcome, InterpError> {
    run_functions(&m.functions, cfg, inputs, mem)
}

fn run_functions(fs: &[Function], cfg: &Config, inputs: &[Input], mem: Memory) -> Result<Outcome, InterpError> {
    crate::module::validate_module(fs)?;
    let Some(f) = fs.first() else { return Err(InterpError::Config("a module without functions")) };
    if cfg.wave_size != 32 && cfg.wave_size != 64 {
        return Err(InterpError::Config("wave size must be 32 or 64"));
    }
    if cfg.waves == 0 || cfg.waves > 64 {
        return Err(InterpError::Config("waves must be 1..=64"));
    }
    let ws = cfg.wave_size as usize;
    let threads = ws * cfg.waves as usize;
    for i in inputs {
        if let Input::PerLane(v) = i {
            if v.len() < threads {
                return Err(InterpError::Config("per-lane input shorter than the workgroup"));
            }
        }
    }
    let (blocks, rpo, rank) = compile(f)?;
    let mut m = Machine {
        f,
        funcs: fs,
        depth: 0,
        cfg,
        ws,
        regs: vec![0u64; f.insts.len() * threads],
        nvals: f.insts.len(),
        inputs,
        mem,
        scratch: vec![0u8; cfg.scratch_bytes * threads],
        regfile: vec![0u64; f.regs.len() * threads],
        outputs: vec![Vec::new(); threads],
        lane_ops: 0,
        rank,
        stage: Vec::new(),
        late: late::Late::new(f, threads, cfg.waves as usize),
    };
    sched::run_groups(&mut m, &blocks, &rpo, None)?;
    Ok(Outcome { outputs: m.outputs, memory: m.mem, lane_ops: m.lane_ops, stage: m.stage })
}

/// A function's blocks in the interpreter's form (in reverse post-order), that order, and each
/// block's rank in it.
type Compiled = (Vec<CBlock>, Vec<Block>, Vec<u32>);

/// Compile `f` for the interpreter.
fn compile(f: &Function) -> Result<Compiled, InterpError> {
    let rpo = f.reverse_postorder();
    let mut rank = vec![u32::MAX; f.blocks.len()];
    for (i, b) in rpo.iter().enumerate() {
        rank[b.index()] = i as u32;
    }
    let mut blocks = Vec::with_capacity(rpo.len());
    for &b in &rpo {
        let bd = &f.blocks[b];
        let mut phis = Vec::new();
        let mut insts = Vec::new();
        for &v in &bd.insts {
            let inst = &f.insts[v];
            if let Op::Phi(bs) = &inst.op {
                phis.push((v.index(), bs.iter().copied().zip(inst.args.iter().map(|a| a.index())).collect()));
                continue;
            }
            if inst.args.len() > MAX_ARGS {
                return Err(InterpError::Config("an instruction has more operands than the interpreter takes"));
            }
            let mut args = [0usize; MAX_ARGS];
            for (i, a) in inst.args.iter().enumerate() {
                args[i] = a.index();
            }
            let src = inst.args.first().and_then(|a| f.ty(*a)).unwrap_or(Type::I32);
            let masked = inst.op.takes_mask() && inst.op.arity().is_some_and(|k| inst.args.len() == k + 1);
            let nargs = inst.args.len() - masked as usize;
            insts.push(CInst {
                v: v.index(),
                pure: inst.op.is_pure() && !matches!(inst.op, Op::Phi(_)),
                op: inst.op.clone(),
                ty: inst.ty.unwrap_or(Type::I32),
                src,
                args,
                nargs,
                mask: masked.then(|| args[nargs]),
            });
        }
        blocks.push(CBlock { phis, insts, term: bd.term.clone() });
    }
    Ok((blocks, rpo, rank))
}

struct Machine<'a> {
    f: &'a Function,
    /// The module's functions (the entry first).
    funcs: &'a [Function],
    /// Calls active below this frame.
    depth: u32,
    cfg: &'a Config,
    ws: usize,
    regs: Vec<u64>,
    nvals: usize,
    inputs: &'a [Input],
    mem: Memory,
    scratch: Vec<u8>,
    regfile: Vec<u64>,
    outputs: Vec<Vec<u64>>,
    lane_ops: u64,
    rank: Vec<u32>,
    stage: Vec<crate::ops::stage::StageEvent>,
    /// The late-arriving-memory state, for functions with pending results.
    late: Option<Box<late::Late>>,
}

impl Machine<'_> {
    fn threads(&self) -> usize {
        self.ws * self.cfg.waves as usize
    }

    fn phis(&mut self, w: usize, group: u64, cb: &CBlock, prev: &[Option<Block>]) {
        let th = self.threads();
        let mut tmp = Vec::with_capacity(cb.phis.len());
        for l in 0..self.ws {
            if group >> l & 1 == 0 {
                continue;
            }
            let t = w * self.ws + l;
            tmp.clear();
            for (_, inc) in &cb.phis {
                let v = inc
                    .iter()
                    .find(|(b, _)| Some(*b) == prev[t])
                    .map(|(_, a)| self.regs[a * th + t])
                    .unwrap_or(0);
                tmp.push(v);
            }
            for ((dst, _), v) in cb.phis.iter().zip(&tmp) {
                self.regs[dst * th + t] = *v;
            }
        }
        let _ = self.nvals;
    }

    fn exec(&mut self, w: usize, group: u64, ci: &CInst) -> Result<(), InterpError> {
        self.exec_op(w, group, ci)?;
        if self.late.is_some() {
            self.late_after(w, group, ci)?;
        }
        Ok(())
    }

    fn exec_op(&mut self, w: usize, group: u64, ci: &CInst) -> Result<(), InterpError> {
        let th = self.threads();
        let base = w * self.ws;
        let full = group;
        self.lane_ops += group.count_ones() as u64;
        if let (Op::Int(io), 1) = (&ci.op, ci.ty.lanes()) {
            // Fast path for scalar integer ops (the bulk of real programs).
            let bits = if matches!(io, crate::ops::int::IntOp::Cmp(_)) { ci.src.bits() } else { ci.ty.bits() };
            let (m, n) = (ci.ty.mask(), ci.nargs);
            let col = |k: usize| if k < n { ci.args[k] * th + base } else { usize::MAX };
            let (c0, c1, c2, c3) = (col(0), col(1), col(2), col(3));
            let dst = ci.v * th + base;
            let mut g = group;
            while g != 0 {
                let l = g.trailing_zeros() as usize;
                g &= g - 1;
                let rd = |c: usize| if c == usize::MAX { 0 } else { self.regs[c + l] };
                let r = io.eval(bits, rd(c0), rd(c1), rd(c2), rd(c3));
                self.regs[dst + l] = r & m;
            }
            return Ok(());
        }
        if ci.pure {
            let mut g = group;
            let mut args = [0u64; MAX_ARGS];
            while g != 0 {
                let l = g.trailing_zeros() as usize;
                g &= g - 1;
                let t = base + l;
                for (k, a) in ci.args.iter().take(ci.nargs).enumerate() {
                    args[k] = self.regs[a * th + t];
                }
                let r = eval_pure(&ci.op, ci.ty, ci.src, &args[..ci.nargs]).unwrap_or(0);
                self.regs[ci.v * th + t] = r;
            }
            return Ok(());
        }
        // The lanes the op runs under: those here, narrowed by the op's mask operand.
        let group = match ci.mask {
            Some(k) if group != 0 => group & self.regs[k * th + base + group.trailing_zeros() as usize],
            _ => group,
        };
        let lanes = || (0..self.ws).filter(move |l| group >> l & 1 != 0);
        match &ci.op {
            Op::LaneSelect => {
                for l in 0..self.ws {
                    let t = base + l;
                    let m = self.regs[ci.args[0] * th + t];
                    let pick = if m >> l & 1 != 0 { ci.args[1] } else { ci.args[2] };
                    if full >> l & 1 != 0 {
                        self.regs[ci.v * th + t] = self.regs[pick * th + t];
                    }
                }
            }
            Op::Buffer(bo) => self.buffer_op(w, group, full, ci, *bo)?,
            Op::Ray(ro) => self.ray_op(w, group, full, ci, *ro)?,
            Op::Image(io) => self.image_op(w, group, full, ci, *io)?,
            Op::Stage(so) => self.stage_op(w, group, ci, *so),
            Op::Param(n) => {
                for l in lanes() {
                    let t = base + l;
                    let v = match self.inputs.get(*n as usize) {
                        Some(Input::Uniform(v)) => *v,
                        Some(Input::PerLane(vs)) => vs[t],
                        None => 0,
                    };
                    self.regs[ci.v * th + t] = v & ci.ty.mask();
                }
            }
            Op::Lane(op) => self.lane(w, full, group, ci, *op),
            Op::Warp(op) => self.warp(w, full, group, ci, *op),
            Op::Mem(mop) => {
                if ci.mask.is_some() && !mop_is_store(mop) {
                    for l in 0..self.ws {
                        if full >> l & 1 != 0 && group >> l & 1 == 0 {
                            self.regs[ci.v * th + base + l] = 0;
                        }
                    }
                }
                for l in lanes() {
                    let t = base + l;
                    let a = self.regs[ci.args[0] * th + t];
                    let size = match mop {
                        MemOp::Load(_) => ci.ty.bits().div_ceil(8),
                        _ => self.f.ty(Value(ci.args[1] as u32)).map(|t| t.bits().div_ceil(8)).unwrap_or(4),
                    };
                    let vty = match mop {
                        MemOp::Load(_) => ci.ty,
                        _ => self.f.ty(Value(ci.args[1] as u32)).unwrap_or(Type::I32),
                    };
                    let space = mop.space();
                    if self.late.is_some() && space == Space::Global {
                        match mop {
                            MemOp::Load(_) => self.late_load(w, l, a, size),
                            MemOp::Store(_) => self.late_store(w, a, size),
                            MemOp::Atomic(..) => {}
                        }
                    }
                    let buf = self.buffer(space, t, a, size)?;
                    let old = read_le(buf, size);
                    match mop {
                        MemOp::Load(_) => self.regs[ci.v * th + t] = old & ci.ty.mask(),
                        MemOp::Store(_) => {
                            let v = self.regs[ci.args[1] * th + t];
                            write_le(self.buffer(space, t, a, size)?, size, v);
                        }
                        MemOp::Atomic(_, k, _) => {
                            let v = self.regs[ci.args[1] * th + t];
                            let s = if ci.nargs > 2 { self.regs[ci.args[2] * th + t] } else { 0 };
                            let new = atomic_apply(*k, vty.bits(), old, v, s);
                            write_le(self.buffer(space, t, a, size)?, size, new);
                            self.regs[ci.v * th + t] = old & ci.ty.mask();
                        }
                    }
                }
            }
            Op::Call(c) => self.call(w, group, c)?,
            Op::Sync(SyncOp::Trap(code)) => return Err(InterpError::Trap(*code)),
            Op::Sync(SyncOp::Interrupt { halt: true }) => return Err(InterpError::Halt),
            Op::Sync(_) => {}
            Op::Pending(_) => {
                for l in 0..self.ws {
                    if full >> l & 1 != 0 {
                        self.regs[ci.v * th + base + l] = self.regs[ci.args[0] * th + base + l];
                    }
                }
            }
            Op::ReadReg(r) => {
                for l in lanes() {
                    let t = base + l;
                    self.regs[ci.v * th + t] = self.regfile[r.0 as usize * th + t];
                }
            }
            Op::WriteReg(r) => {
                for l in lanes() {
                    let t = base + l;
                    self.regfile[r.0 as usize * th + t] = self.regs[ci.args[0] * th + t];
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn buffer(&mut self, space: Space, t: usize, addr: u64, size: u32) -> Result<&mut [u8], InterpError> {
        let oob = InterpError::OutOfBounds { space, addr, size };
        let size = size as usize;
        let fits = |len: usize, off: u64| off.checked_add(size as u64).is_some_and(|e| e <= len as u64);
        let (buf, off): (&mut Vec<u8>, usize) = match space {
            Space::Global => {
                let i = self
                    .mem
                    .global
                    .iter()
                    .position(|(b, v)| addr >= *b && fits(v.len(), addr - *b))
                    .ok_or(oob.clone())?;
                let (b, v) = &mut self.mem.global[i];
                let off = (addr - *b) as usize;
                (v, off)
            }
            Space::Shared => (&mut self.mem.shared, (addr & 0xffff_ffff) as usize),
            Space::Constant(k) => match self.mem.constant.get_mut(k as usize) {
                Some(v) => (v, (addr & 0xffff_ffff) as usize),
                None => return Err(oob),
            },
            Space::Scratch => {
                let per = self.cfg.scratch_bytes as u64;
                let off = addr & 0xffff_ffff;
                if off + size as u64 > per {
                    return Err(oob);
                }
                (&mut self.scratch, (t as u64 * per + off) as usize)
            }
        };
        if !fits(buf.len(), off as u64) {
            return Err(oob);
        }
        Ok(&mut buf[off..off + size])
    }

    fn lane(&mut self, w: usize, full: u64, group: u64, ci: &CInst, op: LaneOp) {
        let th = self.threads();
        let ws = self.ws;
        let base = w * ws;
        let rd = |m: &Machine, arg: usize, l: usize| m.regs[ci.args[arg] * th + base + l];
        let first = group.trailing_zeros() as usize;
        let mut out = vec![0u64; ws];
        match op {
            LaneOp::LaneId => (0..ws).for_each(|l| out[l] = l as u64),
            LaneOp::WaveId => out.fill(w as u64),
            LaneOp::WaveSize => out.fill(ws as u64),
            LaneOp::ActiveMask => out.fill(group),
            LaneOp::Ballot | LaneOp::All | LaneOp::Any => {
                let mut b = 0u64;
                for l in 0..ws {
                    if group >> l & 1 != 0 && rd(self, 0, l) & 1 != 0 {
                        b |= 1 << l;
                    }
                }
                let v = match op {
                    LaneOp::Ballot => b,
                    LaneOp::All => (b == group) as u64,
                    _ => (b != 0) as u64,
                };
                out.fill(v);
            }
            LaneOp::ReadLane => {
                for (l, o) in out.iter_mut().enumerate() {
                    let src = (rd(self, 1, l) as usize) % ws;
                    *o = rd(self, 0, src);
                }
            }
            LaneOp::ReadFirstLane => {
                let v = if first < ws { rd(self, 0, first) } else { 0 };
                out.fill(v);
            }
            LaneOp::Shuffle(mode, pred) => {
                for (l, o) in out.iter_mut().enumerate() {
                    let seg_base = l & !31;
                    let (src, ok) = shfl_source(mode, (l & 31) as u32, rd(self, 1, l) as u32, rd(self, 2, l) as u32);
                    *o = if pred { ok as u64 } else { rd(self, 0, seg_base + src as usize) };
                }
            }
            LaneOp::DppValid(d) => {
                for (l, o) in out.iter_mut().enumerate() {
                    *o = matches!(d.source(l as u32), Some(s) if (s as usize) < ws && group >> s & 1 != 0) as u64;
                }
            }
            LaneOp::Permlane16 { cross, bound0 } => {
                for (l, o) in out.iter_mut().enumerate() {
                    let sel = (rd(self, 3, l) & 0xffff_ffff) << 32 | (rd(self, 2, l) & 0xffff_ffff);
                    let i = l & 15;
                    let row = if cross { (l >> 4) ^ 1 } else { l >> 4 };
                    let s = row * 16 + (sel >> (4 * i) & 15) as usize;
                    *o = if s < ws && group >> s & 1 != 0 {
                        rd(self, 0, s)
                    } else if bound0 {
                        0
                    } else {
                        rd(self, 1, l)
                    };
                }
            }
            LaneOp::Bpermute { halves } => {
                for (l, o) in out.iter_mut().enumerate() {
                    let s = lane_of(rd(self, 1, l), l, ws, halves);
                    *o = if group >> s & 1 != 0 { rd(self, 0, s) } else { 0 };
                }
            }
            LaneOp::Permute { halves } => {
                for l in 0..ws {
                    if group >> l & 1 != 0 {
                        let d = lane_of(rd(self, 1, l), l, ws, halves);
                        out[d] = rd(self, 0, l);
                    }
                }
            }
            LaneOp::Dpp(d, bound0) => {
                for (l, o) in out.iter_mut().enumerate() {
                    *o = match d.source(l as u32) {
                        Some(s) if (s as usize) < ws && group >> s & 1 != 0 => rd(self, 0, s as usize),
                        _ => {
                            if bound0 {
                                0
                            } else {
                                rd(self, 1, l)
                            }
                        }
                    };
                }
            }
        }
        // Per-lane results of lanes outside the op's mask read 0; uniform results reach every lane.
        let uniform = matches!(
            op,
            LaneOp::Ballot | LaneOp::All | LaneOp::Any | LaneOp::ReadFirstLane | LaneOp::ActiveMask | LaneOp::WaveSize
        );
        for (l, o) in out.iter().enumerate() {
            if full >> l & 1 != 0 {
                let v = if uniform || group >> l & 1 != 0 || matches!(op, LaneOp::LaneId | LaneOp::WaveId) {
                    *o
                } else {
                    0
                };
                self.regs[ci.v * th + base + l] = v & ci.ty.mask();
            }
        }
    }

    fn buffer_op(&mut self, w: usize, group: u64, full: u64, ci: &CInst, bo: BufferOp) -> Result<(), InterpError> {
        let th = self.threads();
        let base = w * self.ws;
        let rd = |m: &Machine, k: usize, l: usize| m.regs[ci.args[k] * th + base + l];
        let size = bo.bytes as u32;
        for l in 0..self.ws {
            if full >> l & 1 == 0 {
                continue;
            }
            let t = base + l;
            if group >> l & 1 == 0 {
                if !bo.is_store() {
                    self.regs[ci.v * th + t] = 0;
                }
                continue;
            }
            let words = [0, 1, 2, 3].map(|k| rd(self, k, l) as u32);
            let desc = BufferDesc::from_words(words);
            if desc.swizzle && !desc.private_swizzle() {
                return Err(InterpError::Unsupported("swizzled buffer descriptor (other than a private segment buffer's)"));
            }
            let index = if bo.idxen { rd(self, 4, l) as u32 } else { 0 };
            let offset = if bo.offen { rd(self, 5, l) as u32 } else { 0 }.wrapping_add(bo.offset);
            let addr = desc.address(index, offset, rd(self, 6, l) as u32, l as u32);
            let Some(addr) = addr else {
                if !bo.is_store() {
                    self.regs[ci.v * th + t] = 0;
                }
                continue;
            };
            let (space, addr) = if desc.private_swizzle() { (Space::Scratch, self.private_segment_byte(l, addr, &desc)?) } else { (Space::Global, addr) };
            if let BufferKind::LoadFormat { .. } | BufferKind::StoreFormat { .. } = bo.kind {
                if space == Space::Scratch {
                    return Err(InterpError::Unsupported("formatted access through a private segment buffer"));
                }
                self.buffer_format(ci, t, l, addr, &desc, bo)?;
                continue;
            }
            match bo.kind {
                BufferKind::Load if space == Space::Global => self.late_load(w, l, addr, size),
                BufferKind::Store if space == Space::Global => self.late_store(w, addr, size),
                _ => {}
            }
            let buf = self.buffer(space, t, addr, size)?;
            let old = read_le(buf, size);
            match bo.kind {
                BufferKind::Load => self.regs[ci.v * th + t] = old,
                BufferKind::Store => {
                    let v = rd(self, 7, l);
                    write_le(self.buffer(space, t, addr, size)?, size, v);
                }
                BufferKind::Atomic(k) => {
                    let v = rd(self, 7, l);
                    let s = if ci.nargs > 8 { rd(self, 8, l) } else { 0 };
                    let new = atomic_apply(k, size * 8, old, v, s);
                    write_le(self.buffer(space, t, addr, size)?, size, new);
                    self.regs[ci.v * th + t] = old;
                }
                BufferKind::LoadFormat { .. } | BufferKind::StoreFormat { .. } => {}
            }
        }
        Ok(())
    }

    /// The byte of lane `l`'s scratch that address `addr` of a private segment buffer
    /// (`desc`, [`BufferDesc::private_swizzle`]) names. The interpreter keeps the dispatch's
    /// private segment per lane (scratch), so the swizzle is undone: dword `d` of the segment
    /// belongs to lane `d % wavesize` and is its dword `d / wavesize`. An index stride other
    /// than the wave size, or an address in another lane's bytes (a SOFFSET that is not a
    /// multiple of 4 × the wave size), is not run.
    fn private_segment_byte(&self, l: usize, addr: u64, desc: &BufferDesc) -> Result<u64, InterpError> {
        let ws = self.ws as u64;
        if desc.index_stride as u64 != ws {
            return Err(InterpError::Unsupported("private segment buffer whose index stride is not the wave size"));
        }
        if (addr / 4) % ws != l as u64 {
            return Err(InterpError::Unsupported("private segment access in another lane's bytes"));
        }
        Ok(addr / (4 * ws) * 4 + addr % 4)
    }

    /// A formatted buffer load or store of thread `t` (lane `l`) at an in-range address.
    fn buffer_format(&mut self, ci: &CInst, t: usize, l: usize, addr: u64, desc: &BufferDesc, bo: BufferOp) -> Result<(), InterpError> {
        let th = self.threads();
        let (format, half) = match bo.kind {
            BufferKind::LoadFormat { format, half, .. } | BufferKind::StoreFormat { format, half, .. } => (format, half),
            _ => return Ok(()),
        };
        let fmt = match format.or_else(|| format_of_code(desc.format)) {
            Some(f) => f,
            None => return Err(InterpError::Unsupported("buffer descriptor format code names no element format")),
        };
        let size = fmt.bytes();
        let w = t / self.ws;
        match bo.kind {
            BufferKind::LoadFormat { .. } => self.late_load(w, l, addr, size),
            _ => self.late_store(w, addr, size),
        }
        match bo.kind {
            BufferKind::LoadFormat { comp, .. } => {
                let bytes = self.buffer(Space::Global, t, addr, size)?.to_vec();
                let sel = desc.dst_sel[comp as usize & 3];
                let v = if half {
                    let c = fmt.load16(&bytes);
                    match sel {
                        4..=7 => c[sel as usize - 4] as u64,
                        1 => one16(fmt),
                        _ => 0,
                    }
                } else {
                    let c = fmt.load32(&bytes);
                    match sel {
                        4..=7 => c[sel as usize - 4] as u64,
                        1 => one32(fmt),
                        _ => 0,
                    }
                };
                self.regs[ci.v * th + t] = v;
            }
            BufferKind::StoreFormat { comps, .. } => {
                let base = t - l;
                let vals: Vec<u32> = (0..comps as usize).map(|k| self.regs[ci.args[7 + k] * th + base + l] as u32).collect();
                let bytes = fmt.store(&vals, half);
                self.buffer(Space::Global, t, addr, size)?.copy_from_slice(&bytes);
            }
            _ => {}
        }
        Ok(())
    }
}

/// The lane a permute reaches from a byte address.
fn lane_of(addr: u64, lane: usize, ws: usize, halves: bool) -> usize {
    let i = (addr as u32 / 4) as usize;
    if halves {
        (lane & !31) | (i & 31)
    } else {
        i % ws
    }
}

fn mop_is_store(m: &MemOp) -> bool {
    matches!(m, MemOp::Store(_))
}

fn read_le(b: &[u8], size: u32) -> u64 {
    b.iter().take(size.min(8) as usize).enumerate().fold(0u64, |v, (i, x)| v | (*x as u64) << (8 * i))
}

fn write_le(b: &mut [u8], size: u32, v: u64) {
    for (i, x) in b.iter_mut().take(size.min(8) as usize).enumerate() {
        *x = (v >> (8 * i)) as u8;
    }
}

/// The value a formatted load's "one" select gives (32-bit registers).
fn one32(f: Format) -> u64 {
    if matches!(f.num, NumFormat::Uint | NumFormat::Sint) {
        1
    } else {
        0x3f80_0000
    }
}

/// The value a formatted load's "one" select gives (16-bit registers).
fn one16(f: Format) -> u64 {
    if matches!(f.num, NumFormat::Uint | NumFormat::Sint) {
        1
    } else {
        0x3c00
    }
}
