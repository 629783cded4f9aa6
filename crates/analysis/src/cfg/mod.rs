//! Control-flow recovery at the machine level: the one machine CFG type of isabridge ([`Cfg`]),
//! recovered by recursive descent from a function's entry. Only instructions that control can
//! reach are decoded, so data inside a function (literal pools, jump tables, padding after
//! `s_endpgm`) is told apart from code and reported as [`Cfg::data`].
//!
//! The algorithm is written once, here: walk, split blocks, build the graph. What an
//! instruction does to control flow comes through the plugin boundary:
//!
//! - its kind ([`Kind`]: next, branch, conditional branch, call, indirect, indirect call,
//!   return, end) from [`IsaPlugin::flow`] ([`flow_kind`], [`PLUGIN_FLOW`]) and its direct
//!   target from [`IsaPlugin::branch_target`] (where a plugin gives none, the family's
//!   formula, held equal to the label operand of [`IsaPlugin::operands`] by
//!   `tests/flow_agrees.rs`);
//! - the facts an ISA has beyond its kind, one file per ISA family ([`amd`], [`sm50`],
//!   [`sm86`]): guard predicates and condition codes that make a branch or exit conditional,
//!   reconvergence (Maxwell SSY/SYNC, PBK/BRK, PCNT/CONT, PRET; Ampere BSSY), Maxwell
//!   bundles and their control words, AMD `s_getpc`/`s_setpc`/`s_swappc` resolution and
//!   `s_code_end` padding, `BRX` jump tables. The per-ISA answers a caller may need outside
//!   the walk (decoding a function's slots, instruction sizes, warp width) are the [`Machine`]
//!   trait, [`machine`] gives an ISA's.
//!
//! A target that cannot be resolved is a [`CfgError`], never a guess. The branch-target
//! formulas and where they come from are written down in each family's module.

pub mod amd;
pub mod sm50;
pub mod sm86;

use crate::load::{Function, Section};
pub use isabridge_decoder::operand::Flow as Kind;
use isabridge_decoder::{Decoded, DecodeError, Isa, IsaPlugin};
use petgraph::graph::DiGraph;

/// Where [`recover`] takes each instruction's [`Kind`] from: `true`, the plugins'
/// [`IsaPlugin::flow`]; `false`, [`classify`], the analysis's own reading of the spec's
/// instruction flags, which `tests/flow_agrees.rs` holds the plugins to. Both give the same CFG
/// for every function of the bundled corpora (`tests/flow_agrees.rs`,
/// `plugin_kinds_recover_the_same_cfgs`); [`Machine::recover_with`] takes either. It stays
/// `false` for speed: a virtual call into the plugin for every instruction made the census
/// bench 20-25 % slower than the analysis's one table lookup (`cargo bench --bench census`,
/// interleaved runs on a loaded 2-core VM), which the census's 20 M instructions/s goal does
/// not leave room for.
pub const PLUGIN_FLOW: bool = false;

/// Why a function's CFG could not be recovered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CfgError {
    /// Bytes that control reaches do not decode.
    #[error("{0}")]
    Decode(#[from] DecodeError),
    /// A branch leaves the function.
    #[error("{isa}: {inst} at {from:#x} targets {to:#x}, outside the function")]
    OutsideFunction {
        /// ISA.
        isa: Isa,
        /// The branch.
        inst: &'static str,
        /// Its address.
        from: u64,
        /// The target.
        to: u64,
    },
    /// A branch lands inside another instruction (or on a Maxwell control word).
    #[error("{isa}: {inst} at {from:#x} targets {to:#x}, which is not an instruction boundary")]
    NotBoundary {
        /// ISA.
        isa: Isa,
        /// The branch.
        inst: &'static str,
        /// Its address.
        from: u64,
        /// The target.
        to: u64,
    },
    /// Execution runs past the end of the function without a terminator.
    #[error("{isa}: execution falls off the end of the function after {addr:#x}")]
    FallsOffEnd {
        /// ISA.
        isa: Isa,
        /// The last instruction.
        addr: u64,
    },
    /// An indirect jump whose target is not found statically.
    #[error("{isa}: {inst} at {addr:#x}: unresolved target: {why}")]
    Unresolved {
        /// ISA.
        isa: Isa,
        /// The instruction.
        inst: &'static str,
        /// Its address.
        addr: u64,
        /// What was missing.
        why: String,
    },
    /// SYNC / BRK / CONT / RET with no matching SSY / PBK / PCNT / PRET on the stack.
    #[error("{isa}: {inst} at {addr:#x} pops an empty reconvergence stack")]
    StackUnderflow {
        /// ISA.
        isa: Isa,
        /// The instruction.
        inst: &'static str,
        /// Its address.
        addr: u64,
    },
    /// Two paths reach one instruction with different reconvergence stacks.
    #[error("{isa}: paths reach {addr:#x} with different reconvergence stacks")]
    StackMismatch {
        /// ISA.
        isa: Isa,
        /// The instruction.
        addr: u64,
    },
    /// Control reaches `s_code_end` padding.
    #[error("{isa}: control reaches padding ({inst}) at {addr:#x}")]
    IntoPadding {
        /// ISA.
        isa: Isa,
        /// The padding instruction.
        inst: &'static str,
        /// Its address.
        addr: u64,
    },
}

/// Maxwell reconvergence-stack entry kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StackKind {
    /// SSY / SYNC.
    Sync,
    /// PBK / BRK.
    Break,
    /// PCNT / CONT.
    Cont,
    /// PRET / RET.
    Ret,
}

/// How one instruction moves control (what a family classifier reports).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Flow {
    /// Continues with the next instruction.
    Next,
    /// Always branches.
    Jump(u64),
    /// Branches or continues.
    Cond(u64),
    /// Indirect jump through a resolved table (targets in table order).
    Table(Vec<u64>),
    /// A call; execution resumes after it. The target is for [`Cfg::calls`].
    Call(CallTarget),
    /// Returns to the caller (`cond`: predicated, may continue).
    Return {
        /// Predicated.
        cond: bool,
    },
    /// Ends the program (`cond`: predicated, may continue).
    Exit {
        /// Predicated.
        cond: bool,
    },
    /// Continues, and pushes a reconvergence target (SSY, PBK, PCNT, PRET).
    Push(StackKind, u64),
    /// Jumps to the innermost target of this kind, popping it (SYNC, BRK, CONT; RET after PRET).
    Pop {
        /// Which stack entry.
        kind: StackKind,
        /// Predicated: may continue.
        cond: bool,
    },
    /// A call whose return goes to the innermost PRET target (Maxwell `PRET` + `BRX`, printed
    /// by nvdisasm as `INDIRECT_CALL`).
    CallPret(CallTarget),
    /// Continues; the address is a reconvergence point (Ampere BSSY) and starts a block.
    Reconverge(u64),
    /// Not known from the instruction alone (AMD `s_setpc_b64`): resolved once the walk has
    /// decoded the instructions before it.
    Deferred,
    /// The instruction is not executable here (padding), or its target cannot be found.
    Invalid(Box<CfgError>),
}

/// Where a call goes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub enum CallTarget {
    /// An address in this section.
    Direct(u64),
    /// A symbol not defined in this section (resolved at link time).
    External(String),
    /// A register pair that holds the address on entry (a fetch-shader call: the driver passes
    /// the fetch shader's address in user SGPRs).
    FetchShader(String),
    /// Computed at run time (loaded or selected).
    Indirect(String),
    /// Still to be resolved by the family's post pass.
    Pending,
}

/// How control reaches a successor block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub enum EdgeKind {
    /// Falls through.
    FallThrough,
    /// A taken direct branch.
    Taken,
    /// One entry of an indirect jump's table.
    Table,
    /// SYNC / BRK / CONT to the reconvergence target.
    Reconverge,
    /// Resumes after a call.
    CallReturn,
}

/// A basic block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// Address of the first instruction.
    pub start: u64,
    /// Address of the last instruction.
    pub last: u64,
    /// Indices into [`Cfg::insts`]: `first..end`.
    pub first: usize,
    /// One past the last index.
    pub end: usize,
}

/// A call site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    /// Address of the call instruction.
    pub site: u64,
    /// Where it goes.
    pub target: CallTarget,
}

/// A recovered control-flow graph of one function.
#[derive(Debug, Clone)]
pub struct Cfg {
    /// ISA.
    pub isa: Isa,
    /// Entry address.
    pub entry: u64,
    /// Reached instructions in address order, with their flow.
    pub insts: Vec<(u64, Decoded, Flow)>,
    /// Basic blocks in address order (block 0 holds the entry only when the entry is lowest).
    pub blocks: Vec<Block>,
    /// Edges (from block, to block, kind), sorted.
    pub edges: Vec<(usize, usize, EdgeKind)>,
    /// Call sites in address order.
    pub calls: Vec<Call>,
    /// Byte ranges of the function that control never reaches (data, padding).
    pub data: Vec<(u64, u64)>,
    /// Reconvergence points named by BSSY / SSY / PBK / PCNT, in address order.
    pub reconvergence: Vec<u64>,
}

impl Cfg {
    /// The block starting at `addr`.
    pub fn block_at(&self, addr: u64) -> Option<usize> {
        self.blocks.binary_search_by_key(&addr, |b| b.start).ok()
    }

    /// Edges as (from start, to start, kind), for checking by hand.
    pub fn edge_addrs(&self) -> Vec<(u64, u64, EdgeKind)> {
        self.edges.iter().map(|&(a, b, k)| (self.blocks[a].start, self.blocks[b].start, k)).collect()
    }

    /// The block that holds the instruction at `addr` (None when no reached instruction starts
    /// there).
    pub fn block_containing(&self, addr: u64) -> Option<usize> {
        let i = self.insts.binary_search_by_key(&addr, |x| x.0).ok()?;
        let k = self.blocks.partition_point(|b| b.first <= i);
        k.checked_sub(1).filter(|&k| i < self.blocks[k].end)
    }

    /// Successor blocks of block `b` (sorted, each once).
    pub fn successors(&self, b: usize) -> Vec<usize> {
        let lo = self.edges.partition_point(|e| e.0 < b);
        let mut v: Vec<usize> = self.edges[lo..].iter().take_while(|e| e.0 == b).map(|e| e.1).collect();
        v.dedup();
        v
    }

    /// Predecessor blocks of block `b` (sorted, each once).
    pub fn predecessors(&self, b: usize) -> Vec<usize> {
        let mut v: Vec<usize> = self.edges.iter().filter(|e| e.1 == b).map(|e| e.0).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The instructions of block `b`: (address, instruction, flow).
    pub fn block_insts(&self, b: usize) -> &[(u64, Decoded, Flow)] {
        &self.insts[self.blocks[b].first..self.blocks[b].end]
    }

    /// Block start addresses.
    pub fn block_starts(&self) -> Vec<u64> {
        self.blocks.iter().map(|b| b.start).collect()
    }

    /// The CFG as a petgraph graph: node weights are block indices.
    pub fn graph(&self) -> DiGraph<usize, EdgeKind> {
        let mut g = DiGraph::with_capacity(self.blocks.len(), self.edges.len());
        let nodes: Vec<_> = (0..self.blocks.len()).map(|i| g.add_node(i)).collect();
        for &(a, b, k) in &self.edges {
            g.add_edge(nodes[a], nodes[b], k);
        }
        g
    }
}

/// The bytes of one function and the side data its classifier may read.
#[derive(Debug, Clone, Copy)]
pub struct Code<'a> {
    /// ISA.
    pub isa: Isa,
    /// The whole section.
    pub section: &'a Section,
    /// The function's range.
    pub start: u64,
    /// One past the end.
    pub end: u64,
}

impl<'a> Code<'a> {
    /// A function of a section.
    pub fn new(isa: Isa, section: &'a Section, f: &Function) -> Self {
        Code { isa, section, start: f.start, end: f.end }
    }

    /// Bytes from `addr` to the end of the function.
    pub fn bytes_at(&self, addr: u64) -> &'a [u8] {
        let lo = (addr.saturating_sub(self.section.address)) as usize;
        let hi = (self.end.saturating_sub(self.section.address)) as usize;
        self.section.data.get(lo..hi.min(self.section.data.len())).unwrap_or(&[])
    }
}

/// What an ISA family provides to the walker beyond [`IsaPlugin::flow`] and
/// [`IsaPlugin::branch_target`].
pub(crate) trait Family {
    /// Instruction slot size in bytes (the visited map's granule), a power of two.
    const UNIT: u64;
    /// Decodes the instruction at `addr`.
    fn decode(code: &Code<'_>, addr: u64) -> Result<Decoded, CfgError>;
    /// Decodes the function front to back as far as it decodes, appending to `out` (the
    /// walk then looks instructions up there and decodes only what this missed); false when
    /// the family has no batch decoder.
    fn decode_run(_code: &Code<'_>, _out: &mut Vec<Decoded>) -> bool {
        false
    }
    /// Address of the instruction after the one at `addr`.
    fn next(addr: u64, d: &Decoded) -> u64;
    /// Upper-case name (for errors).
    fn name(isa: Isa, d: &Decoded) -> &'static str;
    /// The analysis's own [`Kind`] of `d`, read from the spec's flags (see [`classify`]).
    fn table_kind(isa: Isa, d: &Decoded) -> Kind;
    /// True when the family knows more about `d` than its kind says (a reconvergence push,
    /// padding): the walk then asks [`Family::flow`] even for a [`Kind::Next`].
    fn special(isa: Isa, d: &Decoded) -> bool;
    /// The direct target of the branch or call at `addr` when the plugin's
    /// [`IsaPlugin::branch_target`] gives none.
    fn own_target(isa: Isa, d: &Decoded, addr: u64) -> Option<u64>;
    /// Classifies the instruction at `addr`, whose kind is `kind` (never called for a plain
    /// [`Kind::Next`]).
    fn flow(code: &Code<'_>, addr: u64, d: &Decoded, kind: Kind) -> Flow;
    /// Resolves a [`Flow::Deferred`] instruction from the instructions decoded so far.
    fn resolve(code: &Code<'_>, walk: &Walk, addr: u64) -> Flow;
    /// Resolves [`CallTarget::Pending`] calls.
    fn resolve_call(code: &Code<'_>, walk: &Walk, addr: u64) -> CallTarget;
}

/// The [`Kind`] the walk uses for `d`: the plugin's when `P`, else [`classify`]'s.
#[inline(always)]
fn kind_of<F: Family, const P: bool>(isa: Isa, d: &Decoded) -> Kind {
    if P {
        isa.plugin().flow(d)
    } else {
        F::table_kind(isa, d)
    }
}

/// The [`Kind`] that CFG recovery uses for `d` of `isa` ([`IsaPlugin::flow`] once
/// [`PLUGIN_FLOW`] is set, else [`classify`]).
pub fn flow_kind(isa: Isa, d: &Decoded) -> Kind {
    if PLUGIN_FLOW {
        isa.plugin().flow(d)
    } else {
        classify(isa, d)
    }
}

/// The analysis's own reading of what `d` of `isa` does to control flow, from the spec's
/// instruction flags (branch, conditional, indirect, terminator) and, for NVIDIA, the guard
/// predicate: the walk's source of kinds by default ([`PLUGIN_FLOW`]), and the reference
/// `tests/flow_agrees.rs` holds the plugins' [`IsaPlugin::flow`] to on every corpus
/// instruction. The mapping, where the spec's flags leave a choice:
///
/// - a branch whose guard is not `PT` (or whose Maxwell condition code is not `CC.T`), and
///   Ampere's `BRA.DIV` / `BRA.CONV`, are [`Kind::CondBranch`]; an instruction guarded by
///   `@!PT` never runs and is [`Kind::Next`];
/// - `s_setpc_b64`, `BRX`, `JMX` and the Maxwell pops `SYNC`, `BRK`, `CONT` (their target is
///   on the reconvergence stack) are [`Kind::Indirect`]; `s_swappc_b64`, `JCAL` and Ampere
///   `CALL.ABS` are [`Kind::IndirectCall`]; `JMP` (an absolute address) is [`Kind::Branch`];
/// - the pushes (`SSY`, `PBK`, `PCNT`, `PRET`, `BSSY`), `BSYNC`, `WARPSYNC`, `BREAK`,
///   `s_code_end` are [`Kind::Next`]; `EXIT`, `KIL` / `KILL`, `s_endpgm*` are [`Kind::End`];
///   predicated `EXIT` and `RET` keep their kind (the walk reads the guard itself).
pub fn classify(isa: Isa, d: &Decoded) -> Kind {
    machine(isa).classify(d)
}

/// The direct target the plugin gives for `d` at `addr`: [`IsaPlugin::branch_target`], else
/// the label operand of [`IsaPlugin::operands`] (the NVIDIA plugins answer through the operand
/// model). Maxwell targets are as the plugin computes them (one may name a bundle's control
/// word: the walk then goes to the bundle's first instruction).
pub fn plugin_target(isa: Isa, d: &Decoded, addr: u64) -> Option<u64> {
    let p = isa.plugin();
    p.branch_target(d, addr).or_else(|| {
        p.operands(d, addr).operands.iter().find_map(|o| match o.kind {
            isabridge_decoder::operand::OperandKind::Label(t) => Some(t),
            _ => None,
        })
    })
}

/// The direct target of `d` at `addr`: the plugin's [`IsaPlugin::branch_target`], else the
/// family's own formula (which `tests/flow_agrees.rs` holds equal to [`plugin_target`]; the
/// walk does not build the operand model for every branch to read its label).
#[inline]
fn target_of<F: Family>(isa: Isa, d: &Decoded, addr: u64) -> Option<u64> {
    isa.plugin().branch_target(d, addr).or_else(|| F::own_target(isa, d, addr))
}

/// The flow of an instruction of kind `kind` that its family has nothing more to say about:
/// `cond` when a guard or condition code may skip it, `target` its direct target.
pub(crate) fn plain_flow(isa: Isa, name: &'static str, addr: u64, kind: Kind, cond: bool, target: Option<u64>) -> Flow {
    let no_target = || Flow::Invalid(Box::new(CfgError::Unresolved { isa, inst: name, addr, why: "no branch target".into() }));
    match kind {
        Kind::Next => Flow::Next,
        Kind::Branch | Kind::CondBranch => match target {
            Some(t) if cond || kind == Kind::CondBranch => Flow::Cond(t),
            Some(t) => Flow::Jump(t),
            None => no_target(),
        },
        Kind::Call => match target {
            Some(t) => Flow::Call(CallTarget::Direct(t)),
            None => no_target(),
        },
        Kind::IndirectCall => Flow::Call(CallTarget::Indirect("address computed at run time".into())),
        Kind::Indirect => Flow::Invalid(Box::new(CfgError::Unresolved { isa, inst: name, addr, why: "indirect jump".into() })),
        Kind::Return => Flow::Return { cond },
        Kind::End => Flow::Exit { cond },
    }
}

/// One ISA's answers at the machine level, for callers that walk code without recovering a CFG
/// (a linear sweep) or need a size or width the ISA fixes. [`machine`] gives each ISA's.
pub trait Machine: Sync {
    /// The ISA.
    fn isa(&self) -> Isa;
    /// Its decoder plugin.
    fn plugin(&self) -> &'static dyn IsaPlugin {
        self.isa().plugin()
    }
    /// The vendor family (which register model, which census tables).
    fn vendor(&self) -> Vendor;
    /// Address of a function's first instruction (Maxwell: after the bundle's control word).
    fn first(&self, start: u64) -> u64;
    /// Decodes the instruction at `addr` of `code` as the walk does (Maxwell: one slot, with its
    /// control bits from the bundle's control word).
    fn decode_at(&self, code: &Code<'_>, addr: u64) -> Result<Decoded, CfgError>;
    /// Address of the instruction after `d` at `addr` (Maxwell skips control words).
    fn next(&self, addr: u64, d: &Decoded) -> u64;
    /// Where a linear sweep goes on after bytes at `addr` that do not decode.
    fn skip(&self, addr: u64) -> u64;
    /// Bytes of the instruction itself (a Maxwell instruction is 8: its share of the bundle's
    /// control word is not counted).
    fn code_bytes(&self, d: &Decoded) -> u64 {
        d.len as u64
    }
    /// Lanes of a warp when the ISA fixes it (NVIDIA: 32); None when each program chooses
    /// (AMD wave32 / wave64).
    fn fixed_lanes(&self) -> Option<u32>;
    /// The SGPR number that reads as zero and drops writes (`null`), where the ISA has one.
    fn null_sgpr(&self) -> Option<u32> {
        None
    }
    /// The analysis's own [`Kind`] of `d` (see [`classify`]).
    fn classify(&self, d: &Decoded) -> Kind;
    /// Recovers the CFG of `f` in `section`, taking instruction kinds from the plugin's
    /// [`IsaPlugin::flow`] when `plugin_kinds`, else from [`Machine::classify`]; the walk's
    /// buffers come from `sc`.
    fn recover_with(&self, section: &Section, f: &Function, plugin_kinds: bool, sc: &mut CfgScratch) -> Result<Cfg, CfgError>;
    /// Recovers the CFG of `f` in `section` (kinds as [`PLUGIN_FLOW`] says).
    fn recover(&self, section: &Section, f: &Function) -> Result<Cfg, CfgError> {
        self.recover_with(section, f, PLUGIN_FLOW, &mut CfgScratch::default())
    }
}

/// A function's instructions front to back (a linear sweep, data included), as
/// (address, instruction or why the bytes there do not decode); from [`sweep`].
#[derive(Clone)]
pub struct Sweep<'a> {
    machine: &'static dyn Machine,
    code: Code<'a>,
    addr: u64,
}

impl Iterator for Sweep<'_> {
    type Item = (u64, Result<Decoded, CfgError>);

    fn next(&mut self) -> Option<Self::Item> {
        let a = self.addr;
        if a >= self.code.end {
            return None;
        }
        let r = self.machine.decode_at(&self.code, a);
        self.addr = match &r {
            Ok(d) => self.machine.next(a, d),
            Err(_) => self.machine.skip(a),
        };
        Some((a, r))
    }
}

/// Every instruction of `f` in `section`, front to back, without following control flow (what
/// a listing shows; [`recover`] decodes only what control reaches). Maxwell control words are
/// skipped; bytes that do not decode are an error item and the sweep goes on.
pub fn sweep<'a>(isa: Isa, section: &'a Section, f: &Function) -> Sweep<'a> {
    let machine = machine(isa);
    Sweep { machine, code: Code::new(isa, section, f), addr: machine.first(f.start) }
}

/// The vendor family of an ISA.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Vendor {
    /// AMD gfx10 / gfx12: scalar and vector registers, EXEC masks.
    Amd,
    /// NVIDIA Maxwell / Ampere: per-thread registers, predicates, reconvergence.
    Nvidia,
}

/// The [`Machine`] of `isa`.
pub fn machine(isa: Isa) -> &'static dyn Machine {
    match isa {
        Isa::Gfx1013 => &amd::GFX1013,
        Isa::Gfx1201 => &amd::GFX1201,
        Isa::Sm50 => &sm50::MAXWELL,
        Isa::Sm86 => &sm86::AMPERE,
    }
}

/// The walk's state: decoded instructions by slot.
#[derive(Debug)]
pub struct Walk {
    start: u64,
    unit: u64,
    /// log2 of `unit` (a power of two): slot arithmetic by shift and mask, not division.
    shift: u32,
    slot: Vec<u32>,
    /// Per slot: a direct branch, table or reconvergence point targets it.
    target_slot: Vec<bool>,
    /// Targets of direct branches found so far (unsorted, may repeat).
    targets: Vec<u64>,
    /// (address, instruction, flow) in walk order.
    pub(crate) insts: Vec<(u64, Decoded, Flow)>,
    /// (index into `insts`, reconvergence target) of each pop (SYNC, BRK, CONT, RET, INDIRECT_CALL).
    pops: Vec<(u32, u64)>,
    /// Targets of [`Flow::Reconverge`] and [`Flow::Push`] (unsorted, may repeat).
    reconv: Vec<u64>,
}

const NONE: u32 = u32::MAX;

impl Walk {
    /// True when a branch, jump table or reconvergence point found so far targets `addr`.
    pub fn is_target(&self, addr: u64) -> bool {
        let Some(k) = addr.checked_sub(self.start) else { return false };
        k & (self.unit - 1) == 0 && self.target_slot.get((k >> self.shift) as usize).copied().unwrap_or(false)
    }

    fn add_target(&mut self, t: u64) {
        self.targets.push(t);
        if let Some(k) = t.checked_sub(self.start) {
            if k & (self.unit - 1) == 0 {
                if let Some(x) = self.target_slot.get_mut((k >> self.shift) as usize) {
                    *x = true;
                }
            }
        }
    }

    /// The instruction at `addr`, if the walk decoded one there.
    pub fn at(&self, addr: u64) -> Option<&(u64, Decoded, Flow)> {
        let i = self.index(addr)?;
        self.insts.get(i)
    }

    fn index(&self, addr: u64) -> Option<usize> {
        let k = addr.checked_sub(self.start)?;
        if k & (self.unit - 1) != 0 {
            return None;
        }
        let s = *self.slot.get((k >> self.shift) as usize)?;
        (s != NONE).then_some(s as usize)
    }

    /// The decoded instruction that ends right before `addr` (for backward scans).
    pub fn before(&self, addr: u64) -> Option<&(u64, Decoded, Flow)> {
        // Instructions are at most 32 bytes (sm50 bundle starts count 16).
        let mut a = addr.checked_sub(self.unit)?;
        for _ in 0..(32 / self.unit) {
            if let Some(x) = self.at(a) {
                return (x.0 + x.1.len as u64 == addr || (self.unit == 8 && addr % 32 == 8 && x.0 + 16 == addr))
                    .then_some(x);
            }
            a = a.checked_sub(self.unit)?;
            if a < self.start {
                return None;
            }
        }
        None
    }
}

type Stack = Vec<(StackKind, u64)>;

/// Recovers the CFG of `f` in `section`.
pub fn recover(isa: Isa, section: &Section, f: &Function) -> Result<Cfg, CfgError> {
    machine(isa).recover(section, f)
}

/// [`recover`] with the walk's buffers taken from `sc`: a caller that recovers many functions
/// keeps one [`CfgScratch`] (one per worker thread) and hands finished CFGs back to it with
/// [`CfgScratch::recycle`], so that small functions do not allocate.
pub fn recover_in(isa: Isa, section: &Section, f: &Function, sc: &mut CfgScratch) -> Result<Cfg, CfgError> {
    machine(isa).recover_with(section, f, PLUGIN_FLOW, sc)
}

fn check_target<F: Family>(code: &Code<'_>, from: u64, d: &Decoded, to: u64) -> Result<u64, CfgError> {
    if to < code.start || to >= code.end {
        return Err(CfgError::OutsideFunction { isa: code.isa, inst: F::name(code.isa, d), from, to });
    }
    Ok(to)
}

/// Buffers a CFG recovery reuses between functions (a large object has thousands of small
/// ones): the slot maps, the interned stacks, the work list and the vectors of CFGs handed
/// back. It holds no results; the caller owns it (see [`recover_in`]).
#[derive(Default)]
pub struct CfgScratch {
    slot: Vec<u32>,
    target_slot: Vec<bool>,
    stacks: Vec<u32>,
    pool: Vec<Stack>,
    work: Vec<(u64, Stack)>,
    leaders: Vec<bool>,
    sequential: Vec<bool>,
    /// [`Family::decode_run`]'s instructions and, per slot, the index of the one there.
    pre: Vec<Decoded>,
    pre_at: Vec<u32>,
    /// The walk's branch targets and pops (see [`Walk`]).
    targets: Vec<u64>,
    pops: Vec<(u32, u64)>,
    /// Buffers of a [`Cfg`] handed back by [`CfgScratch::recycle`], reused for the next one.
    insts: Vec<(u64, Decoded, Flow)>,
    blocks: Vec<Block>,
    edges: Vec<(usize, usize, EdgeKind)>,
    calls: Vec<Call>,
    data: Vec<(u64, u64)>,
}

/// Whether dropping `f` frees anything.
#[inline]
fn owns_heap(f: &Flow) -> bool {
    matches!(f, Flow::Table(_) | Flow::Call(_) | Flow::CallPret(_) | Flow::Invalid(_))
}

impl CfgScratch {
    /// Takes back a [`Cfg`] that is no longer needed, so that the next [`recover_in`] with
    /// these buffers reuses its vectors instead of allocating new ones.
    pub fn recycle(&mut self, g: Cfg) {
    let sc = self;
    let Cfg { mut insts, mut blocks, mut edges, mut calls, mut data, .. } = g;
    // Only the flows that own heap data are dropped (most are plain: an out-of-line drop call
    // for each instruction was ~1 % of the census).
    for (_, _, f) in insts.drain(..) {
        if owns_heap(&f) {
            drop(f);
        } else {
            std::mem::forget(f);
        }
    }
    blocks.clear();
    edges.clear();
    calls.clear();
    data.clear();
    (sc.insts, sc.blocks, sc.edges, sc.calls, sc.data) = (insts, blocks, edges, calls, data);
    }
}

pub(crate) fn walk<F: Family>(code: &Code<'_>, plugin_kinds: bool, sc: &mut CfgScratch) -> Result<Cfg, CfgError> {
    if plugin_kinds {
        walk_with::<F, true>(code, sc)
    } else {
        walk_with::<F, false>(code, sc)
    }
}

fn walk_with<F: Family, const P: bool>(code: &Code<'_>, sc: &mut CfgScratch) -> Result<Cfg, CfgError> {
    let span = code.end.saturating_sub(code.start);
    let slots = span.div_ceil(F::UNIT) as usize;
    let mut slot = std::mem::take(&mut sc.slot);
    slot.clear();
    slot.resize(slots, NONE);
    let mut target_slot = std::mem::take(&mut sc.target_slot);
    target_slot.clear();
    target_slot.resize(slots, false);
    let mut w = Walk {
        start: code.start,
        unit: F::UNIT,
        shift: F::UNIT.trailing_zeros(),
        slot,
        target_slot,
        targets: {
            let mut v = std::mem::take(&mut sc.targets);
            v.clear();
            v
        },
        insts: {
            let mut v = std::mem::take(&mut sc.insts);
            v.clear();
            // Too small: a new buffer (growing the old one would copy its whole capacity).
            let want = slots.min(1 << 16);
            if v.capacity() < want {
                v = Vec::with_capacity(want);
            }
            v
        },
        pops: {
            let mut v = std::mem::take(&mut sc.pops);
            v.clear();
            v
        },
        reconv: Vec::new(),
    };
    // Reconvergence stacks, interned: `stacks[i]` is the index into `pool` of instruction i's;
    // 0 (the empty stack) past the end (only Maxwell pushes: other families never fill it).
    let pool = &mut sc.pool;
    pool.clear();
    pool.push(Vec::new());
    let stacks = &mut sc.stacks;
    stacks.clear();
    let intern = |pool: &mut Vec<Stack>, s: &Stack| -> u32 {
        if s.is_empty() {
            return 0;
        }
        match pool.iter().position(|p| p == s) {
            Some(i) => i as u32,
            None => {
                pool.push(s.clone());
                (pool.len() - 1) as u32
            }
        }
    };
    let mut entry = code.start;
    if F::UNIT == 8 && entry.is_multiple_of(32) {
        entry += 8; // Maxwell: the first bundle's control word
    }
    // Decode the whole function once in a batch; the walk takes its instructions from there.
    let pre = &mut sc.pre;
    pre.clear();
    let pre_at = &mut sc.pre_at;
    pre_at.clear();
    if F::decode_run(code, pre) {
        pre_at.resize(slots, NONE);
        let mut off = 0u64;
        for (i, d) in pre.iter().enumerate() {
            if off.is_multiple_of(F::UNIT) {
                if let Some(p) = pre_at.get_mut((off / F::UNIT) as usize) {
                    *p = i as u32;
                }
            }
            off += d.len as u64;
        }
    }
    let (pre, pre_at) = (&*pre, &*pre_at);
    let work = &mut sc.work;
    work.clear();
    work.push((entry, Vec::new()));
    let mut deferred: Vec<usize> = Vec::new();
    // Whether any reached instruction is a call (most functions have none: no pass for them).
    let mut has_calls = false;
    loop {
        while let Some((mut addr, mut stack)) = work.pop() {
            loop {
                if let Some(i) = w.index(addr) {
                    if pool[stacks.get(i).copied().unwrap_or(0) as usize] != stack {
                        return Err(CfgError::StackMismatch { isa: code.isa, addr });
                    }
                    break;
                }
                if addr >= code.end || addr < code.start {
                    return Err(CfgError::FallsOffEnd { isa: code.isa, addr });
                }
                let k = ((addr - code.start) / F::UNIT) as usize;
                let at = if (addr - code.start).is_multiple_of(F::UNIT) { pre_at.get(k).copied().unwrap_or(NONE) } else { NONE };
                let d = match pre.get(at as usize) {
                    Some(d) => *d,
                    None => F::decode(code, addr)?,
                };
                let kind = kind_of::<F, P>(code.isa, &d);
                let flow = if kind == Kind::Next && !F::special(code.isa, &d) {
                    Flow::Next
                } else {
                    F::flow(code, addr, &d, kind)
                };
                let idx = w.insts.len();
                w.slot[k] = idx as u32;
                let sid = intern(pool, &stack);
                if sid != 0 {
                    stacks.resize(idx, 0);
                    stacks.push(sid);
                }
                let next = F::next(addr, &d);
                // Most instructions just continue: stored without the general case's copies.
                // (`forget`: a `Next` owns nothing; dropping it was an out-of-line call per
                // instruction.)
                if matches!(flow, Flow::Next) {
                    std::mem::forget(flow);
                    w.insts.push((addr, d, Flow::Next));
                    addr = next;
                    continue;
                }
                let mut pop_target = None;
                let mut go_on = true;
                match &flow {
                    Flow::Next => {}
                    Flow::Call(_) => has_calls = true,
                    Flow::Reconverge(t) => {
                        check_target::<F>(code, addr, &d, *t)?;
                        w.add_target(*t);
                        w.reconv.push(*t);
                    }
                    Flow::Jump(t) => {
                        let t = check_target::<F>(code, addr, &d, *t)?;
                        w.add_target(t);
                        work.push((t, stack.clone()));
                        go_on = false;
                    }
                    Flow::Cond(t) => {
                        let t = check_target::<F>(code, addr, &d, *t)?;
                        w.add_target(t);
                        work.push((t, stack.clone()));
                    }
                    Flow::Table(ts) => {
                        for &t in ts {
                            let t = check_target::<F>(code, addr, &d, t)?;
                            w.add_target(t);
                            work.push((t, stack.clone()));
                        }
                        go_on = false;
                    }
                    Flow::Return { cond } | Flow::Exit { cond } => go_on = *cond,
                    Flow::Push(kind, t) => {
                        let t = check_target::<F>(code, addr, &d, *t)?;
                        w.add_target(t);
                        w.reconv.push(t);
                        stack.push((*kind, t));
                    }
                    Flow::Pop { .. } | Flow::CallPret(_) => {
                        has_calls |= matches!(flow, Flow::CallPret(_));
                        let (kind, cond) = match &flow {
                            Flow::Pop { kind, cond } => (kind, cond),
                            _ => (&StackKind::Ret, &false),
                        };
                        let Some(pos) = stack.iter().rposition(|e| e.0 == *kind) else {
                            return Err(CfgError::StackUnderflow { isa: code.isa, inst: F::name(code.isa, &d), addr });
                        };
                        let t = stack[pos].1;
                        pop_target = Some(t);
                        work.push((t, stack[..pos].to_vec()));
                        go_on = *cond;
                    }
                    Flow::Deferred => {
                        deferred.push(idx);
                        go_on = false;
                    }
                    Flow::Invalid(e) => return Err((**e).clone()),
                }
                if let Some(t) = pop_target {
                    w.pops.push((idx as u32, t));
                }
                w.insts.push((addr, d, flow));
                if !go_on {
                    break;
                }
                addr = next;
            }
        }
        if deferred.is_empty() {
            break;
        }
        // Resolve in address order, so that the outcome does not depend on the walk order.
        deferred.sort_by_key(|&i| w.insts[i].0);
        for i in std::mem::take(&mut deferred) {
            let (addr, d) = (w.insts[i].0, w.insts[i].1);
            let flow = F::resolve(code, &w, addr);
            match &flow {
                Flow::Jump(t) => {
                    let t = check_target::<F>(code, addr, &d, *t)?;
                    w.add_target(t);
                    work.push((t, pool[stacks.get(i).copied().unwrap_or(0) as usize].clone()));
                }
                Flow::Table(ts) => {
                    for &t in ts {
                        let t = check_target::<F>(code, addr, &d, t)?;
                        w.add_target(t);
                        work.push((t, pool[stacks.get(i).copied().unwrap_or(0) as usize].clone()));
                    }
                }
                Flow::Return { cond: false } => {}
                Flow::Invalid(e) => return Err((**e).clone()),
                _ => {
                    return Err(CfgError::Unresolved {
                        isa: code.isa,
                        inst: F::name(code.isa, &d),
                        addr,
                        why: "unexpected resolution".into(),
                    })
                }
            }
            w.insts[i].2 = flow;
        }
    }
    // Calls: resolve pending targets.
    let mut calls = std::mem::take(&mut sc.calls);
    calls.clear();
    for i in 0..if has_calls { w.insts.len() } else { 0 } {
        let addr = w.insts[i].0;
        match &w.insts[i].2 {
            Flow::Call(t) => {
                let t = if *t == CallTarget::Pending { F::resolve_call(code, &w, addr) } else { t.clone() };
                calls.push(Call { site: addr, target: t.clone() });
                w.insts[i].2 = Flow::Call(t);
            }
            Flow::CallPret(t) => calls.push(Call { site: addr, target: t.clone() }),
            _ => {}
        }
    }
    calls.sort_by_key(|c| c.site);
    sc.slot = std::mem::take(&mut w.slot);
    sc.target_slot = std::mem::take(&mut w.target_slot);
    build(code, w, calls, sc)
}

fn build(code: &Code<'_>, w: Walk, calls: Vec<Call>, sc: &mut CfgScratch) -> Result<Cfg, CfgError> {
    let jump_targets = w.targets;
    let reconv = w.reconv;
    let mut insts = w.insts;
    let mut pop_at: Vec<(u32, u64)> = w.pops;
    // Address order. The walk follows fall-through first, so straight-line functions (most of
    // them) are in order already; otherwise sort indices, not the instructions themselves.
    if !insts.windows(2).all(|x| x[0].0 < x[1].0) {
        // The walk's slot map (in `sc.slot`, still filled) lists them in address order when
        // every instruction has a slot of its own; otherwise sort.
        let mut order: Vec<u32> = sc.slot.iter().copied().filter(|&s| s != NONE).collect();
        if order.len() != insts.len() || !order.windows(2).all(|x| insts[x[0] as usize].0 < insts[x[1] as usize].0) {
            order.clear();
            order.extend(0..insts.len() as u32);
            order.sort_unstable_by_key(|&i| insts[i as usize].0);
        }
        let mut new_index = vec![0u32; insts.len()];
        for (k, &i) in order.iter().enumerate() {
            new_index[i as usize] = k as u32;
        }
        // Permuted in place, one cycle at a time (position k receives the instruction at
        // `order[k]`): the buffer is kept for the next function.
        let mut done = vec![false; insts.len()];
        for start in 0..insts.len() {
            let mut k = start;
            while !done[k] {
                done[k] = true;
                let src = order[k] as usize;
                if src == start {
                    break;
                }
                insts.swap(k, src);
                k = src;
            }
        }
        for p in &mut pop_at {
            p.0 = new_index[p.0 as usize];
        }
        pop_at.sort_unstable();
    }
    let pop_of = |i: usize| pop_at.binary_search_by_key(&(i as u32), |p| p.0).ok().map(|k| pop_at[k].1);
    let pos = |a: u64| insts.binary_search_by_key(&a, |x| x.0).ok();
    let mut leaders = std::mem::take(&mut sc.leaders);
    leaders.clear();
    leaders.resize(insts.len() + 1, false);
    leaders[0] = true;
    let entry = insts.first().map(|x| x.0).unwrap_or(code.start);
    for &t in &jump_targets {
        // A reconvergence point that no path reaches is only an annotation.
        if let Some(i) = pos(t) {
            leaders[i] = true;
        }
    }
    let mut sequential = std::mem::take(&mut sc.sequential);
    sequential.clear();
    sequential.resize(insts.len(), false);
    // Data (the function's bytes no instruction covers) found in the same pass.
    let is_sm50 = code.isa == Isa::Sm50;
    let mut data = std::mem::take(&mut sc.data);
    data.clear();
    let mut cur = code.start;
    for i in 0..insts.len() {
        let (a, d, _) = &insts[i];
        let lo = if is_sm50 && a % 32 == 8 { a - 8 } else { *a };
        if lo > cur {
            data.push((cur, lo));
        }
        cur = cur.max(a + if is_sm50 { 8 } else { d.len as u64 });
        let next_addr = match insts.get(i + 1) {
            Some(n) => n.0,
            None => break,
        };
        // Is the next decoded instruction the physical successor?
        let phys = if is_sm50 { sm50::Sm50::next_addr(*a) } else { a + d.len as u64 };
        sequential[i] = phys == next_addr;
        let ends = !matches!(insts[i].2, Flow::Next | Flow::Push(..) | Flow::Reconverge(_));
        if ends || !sequential[i] {
            leaders[i + 1] = true;
        }
    }
    // Reconvergence points (BSSY targets that are reached) also start blocks: in jump_targets.
    let n_blocks = leaders[..insts.len()].iter().filter(|&&l| l).count();
    let mut blocks = std::mem::take(&mut sc.blocks);
    blocks.clear();
    blocks.reserve(n_blocks);
    let mut s = 0;
    for i in 1..=insts.len() {
        if i == insts.len() || leaders[i] {
            blocks.push(Block { start: insts[s].0, last: insts[i - 1].0, first: s, end: i });
            s = i;
        }
    }
    let block_of = |a: u64| blocks.binary_search_by_key(&a, |b: &Block| b.start).ok();
    let mut edges = std::mem::take(&mut sc.edges);
    edges.clear();
    edges.reserve(blocks.len() + 1);
    for (k, b) in blocks.iter().enumerate() {
        // Edges leave blocks in block order: sorting each block's few edges sorts them all.
        let first_edge = edges.len();
        let li = b.end - 1;
        let (a, d, flow) = &insts[li];
        let pop = &pop_of(li);
        let fall = |edges: &mut Vec<(usize, usize, EdgeKind)>, kind| -> Result<(), CfgError> {
            if sequential.get(li).copied().unwrap_or(false) && k + 1 < blocks.len() {
                edges.push((k, k + 1, kind));
                Ok(())
            } else {
                Err(CfgError::FallsOffEnd { isa: code.isa, addr: *a })
            }
        };
        let to = |t: u64| {
            block_of(t).ok_or(CfgError::NotBoundary { isa: code.isa, inst: "branch", from: *a, to: t })
        };
        let _ = d;
        match flow {
            Flow::Next | Flow::Push(..) | Flow::Reconverge(_) => fall(&mut edges, EdgeKind::FallThrough)?,
            Flow::Jump(t) => edges.push((k, to(*t)?, EdgeKind::Taken)),
            Flow::Cond(t) => {
                edges.push((k, to(*t)?, EdgeKind::Taken));
                fall(&mut edges, EdgeKind::FallThrough)?;
            }
            Flow::Table(ts) => {
                for &t in ts {
                    edges.push((k, to(t)?, EdgeKind::Table));
                }
            }
            Flow::Call(_) => fall(&mut edges, EdgeKind::CallReturn)?,
            Flow::Return { cond } | Flow::Exit { cond } => {
                if *cond {
                    fall(&mut edges, EdgeKind::FallThrough)?;
                }
            }
            Flow::CallPret(_) => {
                if let Some(t) = pop {
                    edges.push((k, to(*t)?, EdgeKind::CallReturn));
                }
            }
            Flow::Pop { cond, .. } => {
                if let Some(t) = pop {
                    edges.push((k, to(*t)?, EdgeKind::Reconverge));
                }
                if *cond {
                    fall(&mut edges, EdgeKind::FallThrough)?;
                }
            }
            Flow::Deferred | Flow::Invalid(_) => {}
        }
        if edges.len() - first_edge > 1 {
            edges[first_edge..].sort_unstable();
        }
    }
    edges.dedup();
    sc.leaders = leaders;
    sc.sequential = sequential;
    sc.targets = jump_targets;
    sc.pops = pop_at;
    if is_sm50 {
        // Control words belong to the bundles they describe: only whole unreached bundles and
        // slots count as data; drop ranges that are just control words of reached bundles.
        data.retain(|&(lo, hi)| !(hi - lo == 8 && lo % 32 == 0));
    }
    if cur < code.end {
        data.push((cur, code.end));
    }
    // Collected by the walk (the flows of every reached instruction, as it classified them).
    let mut reconvergence = reconv;
    reconvergence.sort_unstable();
    reconvergence.dedup();
    Ok(Cfg {
        isa: code.isa,
        entry,
        insts,
        blocks,
        edges,
        calls,
        data,
        reconvergence,
    })
}

/// Sign-extends the low `bits` bits of `v`.
pub(crate) fn sext(v: u64, bits: u32) -> i64 {
    ((v << (64 - bits)) as i64) >> (64 - bits)
}
