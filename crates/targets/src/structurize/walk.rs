//! Reference walkers for tests: run an input graph and a structured block graph with the same
//! branch decisions and record what they do, so the two can be compared.

use super::lower::{Action, ScfGraph, ScfTerm};
use super::{Cfg, Cond, Exit};

/// One observable step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The input node's instructions ran.
    Code(u32),
    /// Control left the first input node for the second.
    Edge(u32, u32),
    /// The function returned through the input node.
    Return(u32),
}

/// Walk the input graph for at most `limit` events. `decide(node, visit)` is the branch
/// decision of the node on its `visit`-th run (counting from 1).
pub fn walk_cfg(cfg: &Cfg, decide: &mut dyn FnMut(u32, u32) -> bool, limit: usize) -> Vec<Event> {
    let mut visits = vec![0u32; cfg.exits.len()];
    let mut out = Vec::new();
    let mut b = cfg.entry;
    while out.len() < limit {
        visits[b as usize] += 1;
        out.push(Event::Code(b));
        let next = match cfg.exits[b as usize] {
            Exit::Return => {
                out.push(Event::Return(b));
                break;
            }
            Exit::Jump(t) => t,
            Exit::Branch(t, f) => {
                if decide(b, visits[b as usize]) {
                    t
                } else {
                    f
                }
            }
        };
        out.push(Event::Edge(b, next));
        b = next;
    }
    out.truncate(limit);
    out
}

/// Walk a structured block graph for at most `limit` events with the decisions of
/// [`walk_cfg`]; structurizer variables start at 0. `max_blocks` bounds the blocks visited
/// (a structured graph may loop without events); `Err` names a block that breaks the walk.
pub fn walk_scf(g: &ScfGraph, nodes: usize, decide: &mut dyn FnMut(u32, u32) -> bool, limit: usize, max_blocks: usize) -> Result<Vec<Event>, String> {
    let mut visits = vec![0u32; nodes];
    let mut vars = vec![0u32; g.vars as usize];
    let mut out = Vec::new();
    let mut b = 0u32;
    for _ in 0..max_blocks {
        if out.len() >= limit {
            break;
        }
        let blk = g.blocks.get(b as usize).ok_or(format!("no block {b}"))?;
        for a in &blk.actions {
            match *a {
                Action::Code(n) => {
                    let v = visits.get_mut(n as usize).ok_or(format!("block {b} runs node {n}, which does not exist"))?;
                    *v += 1;
                    out.push(Event::Code(n));
                }
                Action::Edge(x, y) => out.push(Event::Edge(x, y)),
                Action::Set(v, x) => *vars.get_mut(v.0 as usize).ok_or(format!("block {b} sets variable {}", v.0))? = x,
            }
        }
        b = match blk.term {
            ScfTerm::Jump(t) => t,
            ScfTerm::Branch(c, t, f) => {
                let yes = match c {
                    Cond::Block(n) => decide(n, visits.get(n as usize).copied().unwrap_or(0)),
                    Cond::VarEq(v, x) => vars.get(v.0 as usize).copied() == Some(x),
                };
                if yes {
                    t
                } else {
                    f
                }
            }
            ScfTerm::Return(n) => {
                out.push(Event::Return(n));
                break;
            }
            ScfTerm::Unreachable => return Err(format!("block {b} is unreachable but ran")),
        };
    }
    out.truncate(limit);
    Ok(out)
}
