//! SSA construction from register reads and writes (Braun et al. 2013, "Simple and Efficient
//! Construction of Static Single Assignment Form"): on-the-fly phis, sealed blocks, removal of
//! trivial phis.
//!
//! Calls ([`crate::ops::call`]) hand the register file over: before a call every register the
//! function writes goes back to it (`writereg`), after the call every register is read anew
//! (`readreg`; unused reads are dead code). In a called function ([`Function::callee`]) a
//! register read before any write reads the caller's value, and every register the function
//! writes goes back at its returns.

use super::{replace_uses, resolve, IntMap, ValueMap};
use crate::ir::{Block, Function, InstData, Reg, Value};
use crate::ops::Op;

struct Ssa {
    defs: IntMap<(Reg, Block), Value>,
    sealed: Vec<bool>,
    incomplete: Vec<Vec<(Reg, Value)>>,
    preds: Vec<Vec<Block>>,
    repl: ValueMap,
    phi_users: IntMap<Value, Vec<Value>>,
    new_phis: Vec<Vec<Value>>,
    undefs: Vec<Value>,
    /// Registers read before any write hold the caller's values (a called function).
    entry_reads: bool,
}

impl Ssa {
    fn write(&mut self, r: Reg, b: Block, v: Value) {
        self.defs.insert((r, b), v);
    }

    fn read(&mut self, f: &mut Function, r: Reg, b: Block) -> Value {
        if let Some(&v) = self.defs.get(&(r, b)) {
            return resolve(&self.repl, v);
        }
        let (ty, uni) = (f.regs[r.0 as usize].ty, f.regs[r.0 as usize].uniform);
        let v = if !self.sealed[b.index()] {
            let phi = self.new_phi(f, b, ty, uni);
            self.incomplete[b.index()].push((r, phi));
            phi
        } else if self.preds[b.index()].len() == 1 {
            let p = self.preds[b.index()][0];
            self.read(f, r, p)
        } else if self.preds[b.index()].is_empty() {
            let u = if self.entry_reads {
                f.create(Op::ReadReg(r), vec![], Some(ty), uni)
            } else {
                f.create(Op::Undef, vec![], Some(ty), true)
            };
            self.undefs.push(u);
            u
        } else {
            let phi = self.new_phi(f, b, ty, uni);
            self.write(r, b, phi);
            self.add_operands(f, r, phi, b)
        };
        self.write(r, b, v);
        v
    }

    fn new_phi(&mut self, f: &mut Function, b: Block, ty: crate::types::Type, uniform: bool) -> Value {
        let v = f.create(Op::Phi(vec![]), vec![], Some(ty), uniform);
        self.new_phis[b.index()].push(v);
        v
    }

    fn add_operands(&mut self, f: &mut Function, r: Reg, phi: Value, b: Block) -> Value {
        for p in self.preds[b.index()].clone() {
            let v = self.read(f, r, p);
            if let Op::Phi(bs) = &mut f.insts[phi].op {
                bs.push(p);
            }
            f.insts[phi].args.push(v);
            if matches!(f.insts[v].op, Op::Phi(_)) {
                self.phi_users.entry(v).or_default().push(phi);
            }
        }
        self.try_remove_trivial(f, phi)
    }

    fn try_remove_trivial(&mut self, f: &mut Function, phi: Value) -> Value {
        let mut same: Option<Value> = None;
        for &a in &f.insts[phi].args {
            let a = resolve(&self.repl, a);
            if Some(a) == same || a == phi {
                continue;
            }
            if same.is_some() {
                return phi;
            }
            same = Some(a);
        }
        let same = match same {
            Some(s) => s,
            None => {
                let ty = f.insts[phi].ty;
                let u = f.create(Op::Undef, vec![], ty, true);
                self.undefs.push(u);
                u
            }
        };
        self.repl.insert(phi, same);
        for user in self.phi_users.remove(&phi).unwrap_or_default() {
            if user != phi && resolve(&self.repl, user) == user {
                self.try_remove_trivial(f, user);
            }
        }
        same
    }

    fn seal(&mut self, f: &mut Function, b: Block) {
        for (r, phi) in std::mem::take(&mut self.incomplete[b.index()]) {
            self.add_operands(f, r, phi, b);
        }
        self.sealed[b.index()] = true;
    }
}

/// Replace every `readreg`/`writereg` with SSA values and phis. Returns whether anything changed.
pub fn run(f: &mut Function) -> bool {
    let has_regs = f
        .layout
        .iter()
        .any(|b| f.blocks[*b].insts.iter().any(|v| matches!(f.insts[*v].op, Op::ReadReg(_) | Op::WriteReg(_))));
    if !has_regs {
        return false;
    }
    let nb = f.blocks.len();
    let rpo = f.reverse_postorder();
    let preds = f.predecessors();
    let mut st = Ssa {
        defs: IntMap::default(),
        sealed: vec![false; nb],
        incomplete: vec![Vec::new(); nb],
        preds,
        repl: ValueMap::with_capacity(f.insts.len()),
        phi_users: IntMap::default(),
        new_phis: vec![Vec::new(); nb],
        undefs: Vec::new(),
        entry_reads: f.callee,
    };
    let mut written: Vec<Reg> = f
        .layout
        .iter()
        .flat_map(|b| f.blocks[*b].insts.iter())
        .filter_map(|v| match f.insts[*v].op {
            Op::WriteReg(r) => Some(r),
            _ => None,
        })
        .collect();
    written.sort();
    written.dedup();
    let write_back = |st: &mut Ssa, f: &mut Function, b: Block, kept: &mut Vec<Value>| {
        for &r in &written {
            let x = st.read(f, r, b);
            kept.push(f.create(Op::WriteReg(r), vec![x], None, false));
        }
    };
    let mut filled = vec![false; nb];
    // A block can be sealed once all its predecessors are filled; only the successors of a
    // newly filled block can become sealable, so checking them keeps construction linear.
    let try_seal = |st: &mut Ssa, f: &mut Function, filled: &[bool], cands: &[Block]| {
        for &b in cands {
            if !st.sealed[b.index()] && st.preds[b.index()].iter().all(|p| filled[p.index()]) {
                st.seal(f, b);
            }
        }
    };
    if let Some(entry) = f.entry() {
        try_seal(&mut st, f, &filled, &[entry]);
    }
    for &b in &rpo {
        let insts = std::mem::take(&mut f.blocks[b].insts);
        let mut kept = Vec::with_capacity(insts.len());
        for v in insts {
            let kind = match f.insts[v].op {
                Op::WriteReg(r) => Some((true, r)),
                Op::ReadReg(r) => Some((false, r)),
                Op::Call(_) => None,
                _ => {
                    for a in f.insts[v].args.iter_mut() {
                        *a = resolve(&st.repl, *a);
                    }
                    kept.push(v);
                    continue;
                }
            };
            match kind {
                Some((true, r)) => {
                    let a = resolve(&st.repl, f.insts[v].args[0]);
                    st.write(r, b, a);
                }
                Some((false, r)) => {
                    let x = st.read(f, r, b);
                    st.repl.insert(v, x);
                }
                None => {
                    write_back(&mut st, f, b, &mut kept);
                    kept.push(v);
                    for i in 0..f.regs.len() {
                        let (ty, uni) = (f.regs[i].ty, f.regs[i].uniform);
                        let x = f.create(Op::ReadReg(Reg(i as u32)), vec![], Some(ty), uni);
                        kept.push(x);
                        st.write(Reg(i as u32), b, x);
                    }
                }
            }
        }
        if f.callee && matches!(f.blocks[b].term, crate::ir::Terminator::Return(_)) {
            write_back(&mut st, f, b, &mut kept);
        }
        f.blocks[b].insts = kept;
        filled[b.index()] = true;
        let succ = f.blocks[b].term.successors();
        try_seal(&mut st, f, &filled, &succ);
    }
    // Seal whatever is left (blocks unreachable from the entry are not in RPO).
    for &b in &rpo {
        if !st.sealed[b.index()] {
            st.seal(f, b);
        }
    }
    // Place the surviving phis at their block starts and the undefs at the entry.
    for &b in &rpo {
        let phis: Vec<Value> =
            st.new_phis[b.index()].iter().copied().filter(|p| resolve(&st.repl, *p) == *p).collect();
        if !phis.is_empty() {
            let mut insts = phis;
            insts.extend(std::mem::take(&mut f.blocks[b].insts));
            f.blocks[b].insts = insts;
        }
    }
    if let Some(entry) = f.entry() {
        let undefs: Vec<Value> = st.undefs.iter().copied().filter(|u| resolve(&st.repl, *u) == *u).collect();
        let mut insts = undefs;
        insts.extend(std::mem::take(&mut f.blocks[entry].insts));
        f.blocks[entry].insts = insts;
    }
    // Blocks unreachable from the entry keep no register accesses either.
    let mut in_rpo = vec![false; nb];
    rpo.iter().for_each(|b| in_rpo[b.index()] = true);
    for b in f.layout.clone() {
        if !in_rpo[b.index()] {
            let insts = std::mem::take(&mut f.blocks[b].insts);
            f.blocks[b].insts = insts
                .into_iter()
                .filter(|v| !matches!(f.insts[*v].op, Op::ReadReg(_) | Op::WriteReg(_)))
                .collect();
        }
    }
    replace_uses(f, &st.repl);
    let _ = InstData::clone;
    true
}
