//! A checker for SPIR-V's structured control-flow rules (SPIR-V 1.6, sections 2.11 and 2.16.2)
//! on an [`ScfGraph`]. Dominance is taken, as the specification does, in the structured CFG: the
//! branches plus an edge from each header to its merge block and from each loop header to its
//! continue target, so merge blocks nothing branches to still bound their constructs. On the
//! blocks reachable in it from the entry it verifies:
//! - the entry block is no branch target; every block reachable by branches comes after its
//!   immediate dominator (by branches);
//! - a conditional branch is in a header (this form declares a merge for every one; SPIR-V
//!   lets some break and continue branches go without), `OpSelectionMerge` is on a conditional
//!   branch, every block is named as a merge block or continue target at most once, a loop's
//!   merge block differs from its continue target and header;
//! - a header dominates its merge block and continue target (where they are reachable);
//! - every retreating edge is a back edge (its target dominates its source: the graph is
//!   reducible), each goes to a loop header, from a block its continue target dominates, and
//!   each loop header has exactly one;
//! - the constructs (selection: blocks the header dominates but not the merge block; loop: the
//!   header's, less those its continue target or merge block dominates; continue: the continue
//!   target's, less those the merge block dominates) nest; a construct holding a header holds
//!   its merge block where that is reachable;
//! - an edge enters a construct only at its header (the continue target for a continue
//!   construct), and leaves constructs only to the merge block of the one selection it leaves,
//!   or, when all the others it leaves are selections, to the innermost loop's merge block or
//!   continue target (from its loop construct) or to its header or merge block (from its
//!   continue construct).
//!
//! Not verified: that the back-edge block post-dominates the continue target.

use super::graph::{predecessors, reverse_postorder, rpo_numbers, DomTree};
use super::lower::{Merge, ScfGraph, ScfTerm};

/// A broken structured control-flow rule, naming the blocks involved.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("block {block}: {rule}")]
pub struct CheckError {
    /// The block where the rule breaks.
    pub block: u32,
    /// What is wrong.
    pub rule: String,
}

fn err<T>(block: u32, rule: impl Into<String>) -> Result<T, CheckError> {
    Err(CheckError { block, rule: rule.into() })
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Selection,
    Loop,
    Continue,
}

struct Construct {
    kind: Kind,
    header: u32,
    entry: u32,
    merge: u32,
    cont: u32,
    bits: Vec<u64>,
    size: usize,
}

impl Construct {
    fn has(&self, b: u32) -> bool {
        self.bits[b as usize / 64] >> (b % 64) & 1 == 1
    }
}

/// Verify the structured control-flow rules (see the module documentation).
pub fn check(g: &ScfGraph) -> Result<(), CheckError> {
    let n = g.blocks.len();
    if n == 0 {
        return err(0, "no blocks");
    }
    let succ = g.successors();
    for (b, ss) in succ.iter().enumerate() {
        let blk = &g.blocks[b];
        let named = match blk.merge {
            Merge::None => vec![],
            Merge::Selection(m) => vec![m],
            Merge::Loop { merge, cont } => vec![merge, cont],
        };
        if let Some(&t) = ss.iter().chain(&named).find(|&&t| t as usize >= n) {
            return err(b as u32, format!("names block {t}, which does not exist"));
        }
    }
    let preds = predecessors(&succ);
    if !preds[0].is_empty() {
        return err(0, "the entry block is a branch target");
    }
    // SPIR-V's structured CFG: the branches plus an edge from every header to its merge block
    // and from every loop header to its continue target. Constructs, back edges and the
    // header-dominates-merge rule use its dominance; block order uses the branches'.
    let ssucc = structural_successors(g, &succ);
    let real = DomTree::new(&succ, 0);
    let dom = DomTree::new(&ssucc, 0);
    let order = reverse_postorder(&ssucc, 0);
    let num = rpo_numbers(&order, n);
    for &b in &order {
        if !real.reachable(b) || b == 0 {
            continue;
        }
        let d = real.idom[b as usize];
        if d >= b {
            return err(b, format!("comes before its immediate dominator {d}"));
        }
    }
    let mut named_once = vec![false; n];
    for &b in &order {
        let blk = &g.blocks[b as usize];
        match (blk.merge, blk.term) {
            (Merge::None, ScfTerm::Branch(..)) => return err(b, "conditional branch without a merge declaration"),
            (Merge::Selection(_), t) if !matches!(t, ScfTerm::Branch(..)) => return err(b, "selection merge without a conditional branch"),
            (Merge::Loop { .. }, t) if !matches!(t, ScfTerm::Branch(..) | ScfTerm::Jump(_)) => return err(b, "loop merge without a branch"),
            _ => {}
        }
        let named: Vec<u32> = match blk.merge {
            Merge::None => vec![],
            Merge::Selection(m) => vec![m],
            Merge::Loop { merge, cont } => {
                if merge == cont || merge == b {
                    return err(b, "loop merge block equals its continue target or header");
                }
                vec![merge, cont]
            }
        };
        for t in named {
            if std::mem::replace(&mut named_once[t as usize], true) {
                return err(b, format!("block {t} is already a merge block or continue target"));
            }
            if dom.reachable(t) && !dom.dominates(b, t) {
                return err(b, format!("does not dominate its merge block or continue target {t}"));
            }
        }
    }
    // Back edges.
    let mut back = vec![0u32; n];
    for &a in &order {
        for &b in &succ[a as usize] {
            if num[b as usize] > num[a as usize] {
                continue;
            }
            if !dom.dominates(b, a) {
                return err(a, format!("edge to {b} enters a cycle other than through its header (irreducible)"));
            }
            let Merge::Loop { cont, .. } = g.blocks[b as usize].merge else {
                return err(a, format!("back edge to {b}, which is not a loop header"));
            };
            if !dom.dominates(cont, a) {
                return err(a, format!("back edge to {b} from outside the continue construct of {cont}"));
            }
            back[b as usize] += 1;
        }
    }
    for &b in &order {
        if let Merge::Loop { cont, .. } = g.blocks[b as usize].merge {
            if dom.reachable(cont) && back[b as usize] != 1 {
                return err(b, format!("loop header with {} back edges", back[b as usize]));
            }
        }
    }
    // Constructs.
    let words = n.div_ceil(64);
    let mut cons: Vec<Construct> = Vec::new();
    let mut make = |kind, header: u32, entry: u32, merge: u32, cont: u32, cut: &[u32]| {
        let mut bits = vec![0u64; words];
        let mut size = 0;
        for &b in &order {
            if dom.dominates(entry, b) && !cut.iter().any(|&c| dom.dominates(c, b)) {
                bits[b as usize / 64] |= 1 << (b % 64);
                size += 1;
            }
        }
        cons.push(Construct { kind, header, entry, merge, cont, bits, size });
    };
    for &b in &order {
        match g.blocks[b as usize].merge {
            Merge::None => {}
            Merge::Selection(m) => make(Kind::Selection, b, b, m, u32::MAX, &[m]),
            Merge::Loop { merge, cont } => {
                make(Kind::Loop, b, b, merge, cont, &[merge, cont]);
                make(Kind::Continue, b, cont, merge, cont, &[merge]);
            }
        }
    }
    // Constructs holding each block, innermost first; they must nest.
    let mut holding: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, c) in cons.iter().enumerate() {
        for &b in &order {
            if c.has(b) {
                holding[b as usize].push(i);
            }
        }
    }
    for &b in &order {
        let h = &mut holding[b as usize];
        h.sort_by_key(|&i| cons[i].size);
        for w in h.windows(2) {
            let (inner, outer) = (&cons[w[0]], &cons[w[1]]);
            if inner.bits.iter().zip(&outer.bits).any(|(x, y)| x & !y != 0) {
                return err(b, format!("constructs of headers {} and {} overlap without nesting", inner.header, outer.header));
            }
        }
    }
    for c in &cons {
        for &b in &order {
            if !c.has(b) || b == c.header {
                continue;
            }
            let m = match g.blocks[b as usize].merge {
                Merge::Selection(m) => m,
                Merge::Loop { merge, .. } => merge,
                Merge::None => continue,
            };
            if dom.reachable(m) && !c.has(m) {
                return err(b, format!("the construct of header {} holds this header but not its merge block {m}", c.header));
            }
        }
    }
    // Edges.
    for &a in &order {
        for &b in &succ[a as usize] {
            let (ha, hb) = (&holding[a as usize], &holding[b as usize]);
            for &k in hb.iter().filter(|k| !ha.contains(k)) {
                if b != cons[k].entry {
                    return err(a, format!("edge to {b} enters the construct of header {} beside its entry {}", cons[k].header, cons[k].entry));
                }
            }
            let left: Vec<usize> = ha.iter().copied().filter(|k| !hb.contains(k)).collect();
            let Some(&x) = left.last() else { continue };
            let x = &cons[x];
            let inner_sel = left[..left.len() - 1].iter().all(|&k| cons[k].kind == Kind::Selection);
            let ok = match x.kind {
                Kind::Selection => left.len() == 1 && b == x.merge,
                Kind::Loop => inner_sel && (b == x.merge || b == x.cont),
                Kind::Continue => inner_sel && (b == x.header || b == x.merge),
            };
            if !ok {
                return err(a, format!("edge to {b} leaves the {:?} construct of header {} other than by a structured exit", x.kind, x.header));
            }
        }
    }
    Ok(())
}

/// The branch successors plus each header's merge block and continue target.
pub(crate) fn structural_successors(g: &ScfGraph, succ: &[Vec<u32>]) -> Vec<Vec<u32>> {
    succ.iter()
        .zip(&g.blocks)
        .map(|(s, b)| {
            let mut s = s.clone();
            match b.merge {
                Merge::None => {}
                Merge::Selection(m) => s.push(m),
                Merge::Loop { merge, cont } => s.extend([merge, cont]),
            }
            s.dedup();
            s
        })
        .collect()
}
