//! Dead-code elimination: removes instructions whose results nobody uses and that have no
//! effect (stores, atomics, loads that may fault, barriers and register writes stay).

use crate::ir::Function;

/// Remove dead instructions. Returns whether anything changed.
pub fn run(f: &mut Function) -> bool {
    let mut live = vec![false; f.insts.len()];
    let mut work = Vec::new();
    for &b in &f.layout {
        for &v in &f.blocks[b].insts {
            if f.insts[v].op.has_effect() {
                live[v.index()] = true;
                work.push(v);
            }
        }
        for u in f.blocks[b].term.uses() {
            if !live[u.index()] {
                live[u.index()] = true;
                work.push(u);
            }
        }
    }
    while let Some(v) = work.pop() {
        for &a in &f.insts[v].args {
            if !live[a.index()] {
                live[a.index()] = true;
                work.push(a);
            }
        }
    }
    let mut changed = false;
    for b in f.layout.clone() {
        let before = f.blocks[b].insts.len();
        f.blocks[b].insts.retain(|v| live[v.index()]);
        changed |= f.blocks[b].insts.len() != before;
    }
    changed
}
