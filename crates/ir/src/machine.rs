//! The machine level: decoded instructions (through the [`MachineInst`] trait that decoder
//! plugins implement, so this crate carries no ISA tables), basic blocks, the CFG as a petgraph
//! graph, and entry points.

use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::{BTreeMap, BTreeSet};
use thiserror::Error;

/// What the CFG builder needs to know about one decoded instruction.
pub trait MachineInst {
    /// Encoded length in bytes (nonzero).
    fn len(&self) -> u32;
    /// Whether the instruction transfers control (jump, branch, call-like or indirect).
    fn is_branch(&self) -> bool;
    /// Whether a taken branch may also fall through (conditional branch).
    fn is_conditional(&self) -> bool;
    /// The static target of a branch at `addr`, if known.
    fn branch_target(&self, addr: u64) -> Option<u64>;
    /// Whether execution never continues after it (end of program, return, indirect jump).
    fn is_terminal(&self) -> bool;
    /// Whether this instruction has a zero length (never true for real encodings).
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// How control reaches a successor block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EdgeKind {
    /// Falls through to the next instruction.
    FallThrough,
    /// A taken branch.
    Taken,
}

/// A basic block: instructions `first..end` (indices into [`MachineFunction::insts`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MachineBlock {
    /// Address of the first instruction.
    pub addr: u64,
    /// Index of the first instruction.
    pub first: usize,
    /// One past the last instruction.
    pub end: usize,
    /// Node of this block in [`MachineFunction::cfg`].
    pub node: NodeIndex,
}

/// Why a machine CFG could not be built.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum MachineError {
    /// No instructions.
    #[error("empty program")]
    Empty,
    /// An instruction of length zero.
    #[error("zero-length instruction at {0:#x}")]
    ZeroLength(u64),
    /// A branch target or entry that is not the start of a decoded instruction.
    #[error("branch at {from:#x} targets {to:#x}, which is not an instruction boundary")]
    BadTarget {
        /// Branch address.
        from: u64,
        /// Target address.
        to: u64,
    },
    /// An entry point that is not an instruction boundary.
    #[error("entry {0:#x} is not an instruction boundary")]
    BadEntry(u64),
}

/// A decoded program: instructions at addresses, basic blocks and their CFG.
#[derive(Debug)]
pub struct MachineFunction<I> {
    /// (address, instruction) in address order.
    pub insts: Vec<(u64, I)>,
    /// Basic blocks in address order.
    pub blocks: Vec<MachineBlock>,
    /// The CFG: node weights are indices into `blocks`.
    pub cfg: DiGraph<usize, EdgeKind>,
    /// Entry point addresses.
    pub entries: Vec<u64>,
}

impl<I: MachineInst> MachineFunction<I> {
    /// Lay out `insts` from `base` and build blocks and the CFG.
    pub fn build(base: u64, insts: Vec<I>, entries: &[u64]) -> Result<Self, MachineError> {
        if insts.is_empty() {
            return Err(MachineError::Empty);
        }
        let mut placed = Vec::with_capacity(insts.len());
        let mut addr = base;
        for i in insts {
            if i.len() == 0 {
                return Err(MachineError::ZeroLength(addr));
            }
            let next = addr.wrapping_add(i.len() as u64);
            placed.push((addr, i));
            addr = next;
        }
        let index: BTreeMap<u64, usize> = placed.iter().enumerate().map(|(i, (a, _))| (*a, i)).collect();
        let mut leaders = BTreeSet::new();
        leaders.insert(0usize);
        for &e in entries {
            leaders.insert(*index.get(&e).ok_or(MachineError::BadEntry(e))?);
        }
        for (i, (a, inst)) in placed.iter().enumerate() {
            if inst.is_branch() || inst.is_terminal() {
                if let Some(t) = inst.branch_target(*a) {
                    let ti = *index.get(&t).ok_or(MachineError::BadTarget { from: *a, to: t })?;
                    leaders.insert(ti);
                }
                if i + 1 < placed.len() {
                    leaders.insert(i + 1);
                }
            }
        }
        let starts: Vec<usize> = leaders.into_iter().collect();
        let mut cfg = DiGraph::new();
        let mut blocks = Vec::with_capacity(starts.len());
        for (k, &s) in starts.iter().enumerate() {
            let end = starts.get(k + 1).copied().unwrap_or(placed.len());
            let node = cfg.add_node(k);
            blocks.push(MachineBlock { addr: placed[s].0, first: s, end, node });
        }
        let block_of: BTreeMap<usize, usize> = starts.iter().enumerate().map(|(k, s)| (*s, k)).collect();
        for (k, b) in blocks.iter().enumerate() {
            let (a, last) = &placed[b.end - 1];
            let falls = !last.is_terminal() && (!last.is_branch() || last.is_conditional());
            if falls && b.end < placed.len() {
                cfg.add_edge(b.node, blocks[k + 1].node, EdgeKind::FallThrough);
            }
            if last.is_branch() {
                if let Some(t) = last.branch_target(*a) {
                    let tb = block_of[&index[&t]];
                    cfg.add_edge(b.node, blocks[tb].node, EdgeKind::Taken);
                }
            }
        }
        let mut entries = entries.to_vec();
        if entries.is_empty() {
            entries.push(base);
        }
        Ok(MachineFunction { insts: placed, blocks, cfg, entries })
    }

    /// The block containing the instruction at `addr`, if any.
    pub fn block_at(&self, addr: u64) -> Option<usize> {
        let i = self.insts.binary_search_by_key(&addr, |(a, _)| *a).ok()?;
        self.blocks.iter().position(|b| b.first <= i && i < b.end)
    }

    /// Successor block indices of block `b`.
    pub fn successors(&self, b: usize) -> Vec<usize> {
        let mut s: Vec<usize> = self.cfg.neighbors(self.blocks[b].node).map(|n| self.cfg[n]).collect();
        s.sort_unstable();
        s.dedup();
        s
    }
}
