//! Making a graph reducible with dispatchers. Regions are taken outermost first (a loop
//! nesting forest): in each strongly connected component of a region, the entries are the
//! nodes with a predecessor outside it (or the function entry). One entry is the loop's header;
//! the component without it is the next region. Several entries get a dispatcher: every edge
//! into an entry, from inside or outside, goes to a new node that sets a variable to the
//! entry's number and jumps to a chain of tests on that variable, whose first test is the only
//! entry and the header. No node is copied, so the result grows linearly.

use super::graph::{predecessors, reverse_postorder, rpo_numbers, DomTree};
use super::{Cfg, Exit, StructurizeError};

/// What a node of the working graph is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The input node.
    Orig(u32),
    /// Set variable `var` to `val`; on the input edge `edge` when it stands for one.
    Set {
        /// The variable.
        var: u32,
        /// The value.
        val: u32,
        /// The input edge this node sits on.
        edge: Option<(u32, u32)>,
    },
    /// Branch on `var == val`.
    Test {
        /// The variable.
        var: u32,
        /// The value.
        val: u32,
    },
}

/// The working graph: the input's nodes first, then the dispatchers' nodes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Work {
    /// What each node is.
    pub kind: Vec<Kind>,
    /// How each node ends.
    pub exits: Vec<Exit>,
    /// The entry.
    pub entry: u32,
    /// Variables used.
    pub vars: u32,
    /// Dispatchers added.
    pub dispatchers: u32,
}

impl Work {
    fn succ(&self) -> Vec<Vec<u32>> {
        self.exits.iter().map(|e| e.successors()).collect()
    }
    fn push(&mut self, kind: Kind, exit: Exit) -> u32 {
        self.kind.push(kind);
        self.exits.push(exit);
        self.kind.len() as u32 - 1
    }
}

/// Strongly connected components of the subgraph induced by `region` (Kosaraju, iterative).
fn components(succ: &[Vec<u32>], preds: &[Vec<u32>], region: &[u32], inside: &[bool]) -> Vec<Vec<u32>> {
    let n = succ.len();
    let mut seen = vec![false; n];
    let mut post = Vec::new();
    for &r in region {
        if seen[r as usize] {
            continue;
        }
        seen[r as usize] = true;
        let mut stack: Vec<(u32, usize)> = vec![(r, 0)];
        while let Some((b, i)) = stack.pop() {
            if let Some(&s) = succ[b as usize].get(i) {
                stack.push((b, i + 1));
                if inside[s as usize] && !seen[s as usize] {
                    seen[s as usize] = true;
                    stack.push((s, 0));
                }
            } else {
                post.push(b);
            }
        }
    }
    let mut comp = vec![u32::MAX; n];
    let mut out: Vec<Vec<u32>> = Vec::new();
    for &r in post.iter().rev() {
        if comp[r as usize] != u32::MAX {
            continue;
        }
        let id = out.len() as u32;
        comp[r as usize] = id;
        let mut members = vec![r];
        let mut stack = vec![r];
        while let Some(b) = stack.pop() {
            for &p in &preds[b as usize] {
                if inside[p as usize] && comp[p as usize] == u32::MAX {
                    comp[p as usize] = id;
                    members.push(p);
                    stack.push(p);
                }
            }
        }
        members.sort_unstable();
        out.push(members);
    }
    out
}

/// The working graph of `cfg` with every cycle single-entry.
pub fn make_reducible(cfg: &Cfg) -> Result<Work, StructurizeError> {
    let n = cfg.exits.len();
    let exits = cfg
        .exits
        .iter()
        .map(|e| match *e {
            Exit::Branch(t, f) if t == f => Exit::Jump(t),
            e => e,
        })
        .collect();
    let mut w = Work { kind: (0..n as u32).map(Kind::Orig).collect(), exits, entry: cfg.entry, vars: 0, dispatchers: 0 };
    let reach = reverse_postorder(&w.succ(), w.entry);
    let mut regions: Vec<Vec<u32>> = vec![reach];
    while let Some(region) = regions.pop() {
        let succ = w.succ();
        let preds = predecessors(&succ);
        let mut inside = vec![false; succ.len()];
        for &r in &region {
            inside[r as usize] = true;
        }
        let reachable = {
            let mut r = vec![false; succ.len()];
            for b in reverse_postorder(&succ, w.entry) {
                r[b as usize] = true;
            }
            r
        };
        for scc in components(&succ, &preds, &region, &inside) {
            let cyclic = scc.len() > 1 || succ[scc[0] as usize].contains(&scc[0]);
            if !cyclic {
                continue;
            }
            let mut in_scc = vec![false; w.exits.len()];
            for &b in &scc {
                in_scc[b as usize] = true;
            }
            let entries: Vec<u32> = scc
                .iter()
                .copied()
                .filter(|&b| b == w.entry || preds[b as usize].iter().any(|&p| reachable[p as usize] && !in_scc[p as usize]))
                .collect();
            if entries.len() <= 1 {
                // A component a region's header was removed from always has an entry.
                let Some(&h) = entries.first() else { return Err(StructurizeError::Internal("a cycle without an entry".into())) };
                regions.push(scc.into_iter().filter(|&b| b != h).collect());
                continue;
            }
            let first_new = w.exits.len() as u32;
            let header = dispatch(&mut w, &entries, &reachable);
            let mut next: Vec<u32> = scc;
            next.extend(first_new..w.exits.len() as u32);
            next.retain(|&b| b != header);
            regions.push(next);
        }
    }
    // The dispatchers leave no cycle with two entries: every retreating edge goes to a node
    // that dominates its source.
    let succ = w.succ();
    let order = reverse_postorder(&succ, w.entry);
    let num = rpo_numbers(&order, succ.len());
    let dom = DomTree::new(&succ, w.entry);
    for &b in &order {
        for &s in &succ[b as usize] {
            if num[s as usize] <= num[b as usize] && !dom.dominates(s, b) {
                return Err(StructurizeError::Internal(format!("edge {b} -> {s} still enters a cycle beside its header")));
            }
        }
    }
    Ok(w)
}

/// Give the entries one dispatcher; returns its header (the first test).
fn dispatch(w: &mut Work, entries: &[u32], reachable: &[bool]) -> u32 {
    let var = w.vars;
    w.vars += 1;
    w.dispatchers += 1;
    let k = entries.len();
    // Tests t_0 .. t_{k-2}: t_i goes to entry i when var == i, else to t_{i+1}; the last one's
    // else goes to the last entry.
    let first_test = w.exits.len() as u32;
    for i in 0..k - 1 {
        let els = if i + 2 < k { first_test + i as u32 + 1 } else { entries[k - 1] };
        w.push(Kind::Test { var, val: i as u32 }, Exit::Branch(entries[i], els));
    }
    let index = |b: u32| entries.iter().position(|&e| e == b);
    for p in 0..first_test {
        // Nodes added since `reachable` was computed are dispatcher nodes, all reachable.
        if !reachable.get(p as usize).copied().unwrap_or(true) {
            continue;
        }
        let mut exit = w.exits[p as usize];
        let fix = |t: &mut u32, w: &mut Work| {
            if let Some(i) = index(*t) {
                let edge = match (w.kind[p as usize], w.kind[*t as usize]) {
                    (Kind::Orig(a), Kind::Orig(b)) => Some((a, b)),
                    _ => None,
                };
                *t = w.push(Kind::Set { var, val: i as u32, edge }, Exit::Jump(first_test));
            }
        };
        match &mut exit {
            Exit::Jump(t) => fix(t, w),
            Exit::Branch(t, f) => {
                fix(t, w);
                fix(f, w);
            }
            Exit::Return => {}
        }
        w.exits[p as usize] = exit;
    }
    if let Some(i) = index(w.entry) {
        w.entry = w.push(Kind::Set { var, val: i as u32, edge: None }, Exit::Jump(first_test));
    }
    first_test
}
