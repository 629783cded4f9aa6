//! [`Structured`] statements to a block graph shaped like SPIR-V's: every selection header
//! declares its merge block, every loop header its merge block and continue target. A loop is
//! a header block that holds only its declaration, the body, a continue target that branches
//! back to the header, and a merge block; a selection gets a block per non-empty arm and a
//! merge block. Merge blocks nothing reaches end in [`ScfTerm::Unreachable`]. Blocks come in an
//! order where every block follows its dominators (reachable ones in reverse post-order first).

use super::check::structural_successors;
use super::graph::reverse_postorder;
use super::{Cond, Stmt, StructurizeError, Structured, Var, MAX_DEPTH};

/// Straight-line work inside a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Run the instructions of this input node.
    Code(u32),
    /// Control leaves input node `.0` for input node `.1`.
    Edge(u32, u32),
    /// Assign a constant to a structurizer variable.
    Set(Var, u32),
}

/// A block's structured control-flow declaration (`OpSelectionMerge` / `OpLoopMerge`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Merge {
    /// Not a header.
    None,
    /// A selection header with this merge block.
    Selection(u32),
    /// A loop header.
    Loop {
        /// The merge block.
        merge: u32,
        /// The continue target.
        cont: u32,
    },
}

/// How a block ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScfTerm {
    /// `OpBranch`.
    Jump(u32),
    /// `OpBranchConditional`: the first block when the condition holds.
    Branch(Cond, u32, u32),
    /// `OpReturn` through this input node's return.
    Return(u32),
    /// `OpUnreachable`.
    Unreachable,
}

/// One block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScfBlock {
    /// Its work, in order.
    pub actions: Vec<Action>,
    /// Its merge declaration.
    pub merge: Merge,
    /// Its terminator.
    pub term: ScfTerm,
}

/// A structured block graph; block 0 is the entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScfGraph {
    /// The blocks.
    pub blocks: Vec<ScfBlock>,
    /// Number of structurizer variables.
    pub vars: u32,
}

impl ScfGraph {
    /// Successors of every block.
    pub fn successors(&self) -> Vec<Vec<u32>> {
        self.blocks
            .iter()
            .map(|b| match b.term {
                ScfTerm::Jump(t) => vec![t],
                ScfTerm::Branch(_, t, f) if t == f => vec![t],
                ScfTerm::Branch(_, t, f) => vec![t, f],
                ScfTerm::Return(_) | ScfTerm::Unreachable => vec![],
            })
            .collect()
    }
}

struct Lower {
    blocks: Vec<ScfBlock>,
    preds: Vec<u32>,
}

impl Lower {
    fn new_block(&mut self) -> u32 {
        self.blocks.push(ScfBlock { actions: Vec::new(), merge: Merge::None, term: ScfTerm::Unreachable });
        self.preds.push(0);
        self.blocks.len() as u32 - 1
    }
    fn end(&mut self, b: u32, term: ScfTerm) {
        match term {
            ScfTerm::Jump(t) => self.preds[t as usize] += 1,
            ScfTerm::Branch(_, t, f) => {
                self.preds[t as usize] += 1;
                self.preds[f as usize] += 1;
            }
            _ => {}
        }
        self.blocks[b as usize].term = term;
    }

    /// Lower `stmts` starting in block `cur`; returns the block control is in after them, or
    /// `None` when they never finish. `lp` is the innermost loop's (merge, continue target).
    fn seq(&mut self, stmts: &[Stmt], mut cur: u32, lp: Option<(u32, u32)>, depth: usize) -> Result<Option<u32>, StructurizeError> {
        if depth > MAX_DEPTH {
            return Err(StructurizeError::TooDeep);
        }
        for s in stmts {
            match s {
                Stmt::Code(n) => self.blocks[cur as usize].actions.push(Action::Code(*n)),
                Stmt::Edge(a, b) => self.blocks[cur as usize].actions.push(Action::Edge(*a, *b)),
                Stmt::Set(v, x) => self.blocks[cur as usize].actions.push(Action::Set(*v, *x)),
                Stmt::Return(n) => {
                    self.end(cur, ScfTerm::Return(*n));
                    return Ok(None);
                }
                Stmt::Break | Stmt::Continue => {
                    let Some((m, c)) = lp else { return Err(StructurizeError::Internal("break or continue outside a loop".into())) };
                    self.end(cur, ScfTerm::Jump(if matches!(s, Stmt::Break) { m } else { c }));
                    return Ok(None);
                }
                // Both arms empty: nothing to select (conditions have no effects).
                Stmt::If(_, a, b) if a.is_empty() && b.is_empty() => {}
                Stmt::If(cond, a, b) => {
                    let m = self.new_block();
                    let arm = |l: &mut Lower, body: &[Stmt]| -> Result<u32, StructurizeError> {
                        if body.is_empty() {
                            return Ok(m);
                        }
                        let t = l.new_block();
                        if let Some(e) = l.seq(body, t, lp, depth + 1)? {
                            l.end(e, ScfTerm::Jump(m));
                        }
                        Ok(t)
                    };
                    let t = arm(self, a)?;
                    let f = arm(self, b)?;
                    self.blocks[cur as usize].merge = Merge::Selection(m);
                    self.end(cur, ScfTerm::Branch(*cond, t, f));
                    if self.preds[m as usize] == 0 {
                        return Ok(None);
                    }
                    cur = m;
                }
                Stmt::Loop(body) => {
                    let (h, m, c, b) = (self.new_block(), self.new_block(), self.new_block(), self.new_block());
                    self.end(cur, ScfTerm::Jump(h));
                    self.blocks[h as usize].merge = Merge::Loop { merge: m, cont: c };
                    self.end(h, ScfTerm::Jump(b));
                    if let Some(e) = self.seq(body, b, Some((m, c)), depth + 1)? {
                        self.end(e, ScfTerm::Jump(c));
                    }
                    self.end(c, ScfTerm::Jump(h));
                    if self.preds[m as usize] == 0 {
                        return Ok(None);
                    }
                    cur = m;
                }
            }
        }
        Ok(Some(cur))
    }
}

impl Structured {
    /// The block graph with SPIR-V's merge declarations.
    pub fn lower(&self) -> Result<ScfGraph, StructurizeError> {
        let mut l = Lower { blocks: Vec::new(), preds: Vec::new() };
        let entry = l.new_block();
        // The statements of a function end in returns, infinite loops, or paths that a
        // structurizer variable's value rules out (after a loop that only a multi-level branch
        // leaves): the end of the body is unreachable.
        l.seq(&self.body, entry, None, 0)?;
        // Renumber: blocks in reverse post-order of the structured CFG (merge edges included),
        // then any others in creation order.
        let g = ScfGraph { blocks: l.blocks, vars: self.vars };
        let order = reverse_postorder(&structural_successors(&g, &g.successors()), 0);
        let mut new = vec![u32::MAX; g.blocks.len()];
        let mut placed = vec![false; g.blocks.len()];
        order.iter().for_each(|&b| placed[b as usize] = true);
        let mut list = order;
        list.extend((0..g.blocks.len() as u32).filter(|&b| !placed[b as usize]));
        for (i, &b) in list.iter().enumerate() {
            new[b as usize] = i as u32;
        }
        let map = |b: u32| new[b as usize];
        let blocks = list
            .iter()
            .map(|&b| {
                let mut x = g.blocks[b as usize].clone();
                x.merge = match x.merge {
                    Merge::None => Merge::None,
                    Merge::Selection(m) => Merge::Selection(map(m)),
                    Merge::Loop { merge, cont } => Merge::Loop { merge: map(merge), cont: map(cont) },
                };
                x.term = match x.term {
                    ScfTerm::Jump(t) => ScfTerm::Jump(map(t)),
                    ScfTerm::Branch(c, t, f) => ScfTerm::Branch(c, map(t), map(f)),
                    t => t,
                };
                x
            })
            .collect();
        Ok(ScfGraph { blocks, vars: g.vars })
    }
}
