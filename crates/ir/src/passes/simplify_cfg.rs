//! CFG simplification: constant and same-target branches become jumps, unreachable blocks are
//! deleted, a block is merged into its only predecessor when that predecessor only jumps to it,
//! and single-input phis are replaced by their input.

use super::{replace_uses, ValueMap};
use crate::ir::{Block, Function, Terminator};
use crate::ops::Op;

fn drop_phi_edge(f: &mut Function, succ: Block, pred: Block) {
    let Function { blocks, insts, .. } = f;
    for &v in &blocks[succ].insts {
        let inst = &mut insts[v];
        if let Op::Phi(bs) = &mut inst.op {
            if let Some(i) = bs.iter().position(|b| *b == pred) {
                bs.remove(i);
                inst.args.remove(i);
            }
        }
    }
}

fn step(f: &mut Function) -> bool {
    let mut changed = false;
    // 1. Constant / same-target branches.
    for i in 0..f.layout.len() {
        let b = f.layout[i];
        if let Terminator::Branch(c, t, e) = f.blocks[b].term {
            let taken = if t == e {
                Some((t, None))
            } else if let Op::Const(k) = f.insts[c].op {
                Some(if k & 1 != 0 { (t, Some(e)) } else { (e, Some(t)) })
            } else {
                None
            };
            if let Some((to, dropped)) = taken {
                if let Some(d) = dropped {
                    drop_phi_edge(f, d, b);
                }
                f.blocks[b].term = Terminator::Jump(to);
                changed = true;
            }
        }
    }
    // 2. Unreachable blocks.
    let rpo = f.reverse_postorder();
    let mut reach = vec![false; f.blocks.len()];
    rpo.iter().for_each(|b| reach[b.index()] = true);
    let dead: Vec<Block> = f.layout.iter().copied().filter(|b| !reach[b.index()]).collect();
    for d in &dead {
        for s in f.blocks[*d].term.successors() {
            drop_phi_edge(f, s, *d);
        }
    }
    if !dead.is_empty() {
        f.layout.retain(|b| reach[b.index()]);
        changed = true;
    }
    // 3. Single-input phis.
    let mut repl = ValueMap::default();
    for &b in &f.layout {
        for &v in &f.blocks[b].insts {
            let inst = &f.insts[v];
            if let Op::Phi(_) = inst.op {
                let first = inst.args.first().copied();
                if let Some(a) = first {
                    if inst.args.iter().all(|x| *x == a || *x == v) && a != v {
                        repl.insert(v, a);
                    }
                }
            }
        }
    }
    if !repl.is_empty() {
        replace_uses(f, &repl);
        for &b in &f.layout {
            f.blocks[b].insts.retain(|v| !repl.contains(*v));
        }
        changed = true;
    }
    // 4. Merge a block into its only predecessor when that predecessor only jumps to it.
    let preds = f.predecessors();
    let entry = f.entry();
    let mut removed = vec![false; f.blocks.len()];
    let mut in_layout = vec![false; f.blocks.len()];
    f.layout.iter().for_each(|b| in_layout[b.index()] = true);
    for a in f.layout.clone() {
        if removed[a.index()] {
            continue;
        }
        // Merge a whole chain into `a` at once: after a merge, `a` ends with the merged block's
        // terminator and may merge again.
        while let Terminator::Jump(bb) = f.blocks[a].term {
            if bb == a || Some(bb) == entry || preds[bb.index()].len() != 1 || !in_layout[bb.index()] || removed[bb.index()]
            {
                break;
            }
            // Phis of `bb` have one input here: they were replaced in step 3 unless self-referencing.
            if f.blocks[bb].insts.iter().any(|v| matches!(f.insts[*v].op, Op::Phi(_))) {
                break;
            }
            let moved = std::mem::take(&mut f.blocks[bb].insts);
            f.blocks[a].insts.extend(moved);
            let term = f.blocks[bb].term.clone();
            for s in term.successors() {
                // Phis come first in a block.
                for i in 0..f.blocks[s].insts.len() {
                    let v = f.blocks[s].insts[i];
                    let Op::Phi(bs) = &mut f.insts[v].op else { break };
                    bs.iter_mut().for_each(|x| {
                        if *x == bb {
                            *x = a
                        }
                    });
                }
            }
            f.blocks[a].term = term;
            removed[bb.index()] = true;
            changed = true;
        }
    }
    f.layout.retain(|x| !removed[x.index()]);
    changed
}

/// Simplify the CFG until nothing changes. Returns whether anything changed.
pub fn run(f: &mut Function) -> bool {
    let mut any = false;
    while step(f) {
        any = true;
    }
    any
}
