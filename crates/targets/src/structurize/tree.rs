//! A reducible working graph to [`Stmt`]s.
//!
//! First nested blocks and loops along the dominator tree (Ramsey, "Beyond Relooper"): a node
//! with a back edge into it heads a loop around its code; each of its dominator-tree children
//! with two or more forward edges into it (a merge node) follows a block that encloses the
//! node's code, innermost the child with the lowest reverse post-order number; a branch goes
//! to a loop's start (backward), to the end of a merge node's block, or, to a node it alone
//! reaches, into that node's code in place. Then a branch to a block's end that nothing would
//! run after anyway is dropped, and a block no branch names any more is dissolved. Last, every
//! remaining block and loop becomes a [`Stmt::Loop`]; a branch out of several of them at once
//! stores the target's label in a variable and breaks, and after each loop it crossed the
//! variable is tested.

use super::graph::{predecessors, reverse_postorder, rpo_numbers, DomTree};
use super::reducible::{Kind, Work};
use super::{Cond, Exit, Stmt, StructurizeError, Structured, Var, MAX_DEPTH};

/// A label: a loop's start (`true`) or a merge node's block end (`false`), named by its node.
type Label = (bool, u32);

/// A statement of the block-and-loop stage; sequences live in an arena.
#[derive(Clone, Debug)]
enum W {
    Act(Stmt),
    If(Cond, usize, usize),
    Block(u32, usize),
    Loop(u32, usize),
    Br(Label),
    Return(u32),
}

enum Task {
    Tree(u32, usize),
    Branch(u32, u32, usize),
}

struct Builder<'a> {
    w: &'a Work,
    seqs: Vec<Vec<W>>,
    num: Vec<u32>,
    merge: Vec<bool>,
    header: Vec<bool>,
    dom: DomTree,
}

impl Builder<'_> {
    fn new_seq(&mut self) -> usize {
        self.seqs.push(Vec::new());
        self.seqs.len() - 1
    }

    fn tree(&mut self, x: u32, seq: usize, tasks: &mut Vec<Task>) {
        let mut cur = seq;
        if self.header[x as usize] {
            let body = self.new_seq();
            self.seqs[cur].push(W::Loop(x, body));
            cur = body;
        }
        let mut ys: Vec<u32> = self.dom.children[x as usize].iter().copied().filter(|&c| self.merge[c as usize]).collect();
        ys.sort_unstable_by_key(|&y| std::cmp::Reverse(self.num[y as usize]));
        for y in ys {
            let inner = self.new_seq();
            self.seqs[cur].push(W::Block(y, inner));
            tasks.push(Task::Tree(y, cur));
            cur = inner;
        }
        match self.w.kind[x as usize] {
            Kind::Orig(b) => self.seqs[cur].push(W::Act(Stmt::Code(b))),
            Kind::Set { var, val, edge } => {
                if let Some((a, b)) = edge {
                    self.seqs[cur].push(W::Act(Stmt::Edge(a, b)));
                }
                self.seqs[cur].push(W::Act(Stmt::Set(Var(var), val)));
            }
            Kind::Test { .. } => {}
        }
        match self.w.exits[x as usize] {
            Exit::Return => {
                let Kind::Orig(b) = self.w.kind[x as usize] else { unreachable!("only input nodes return") };
                self.seqs[cur].push(W::Return(b));
            }
            Exit::Jump(y) => tasks.push(Task::Branch(x, y, cur)),
            Exit::Branch(t, f) => {
                let cond = match self.w.kind[x as usize] {
                    Kind::Orig(b) => Cond::Block(b),
                    Kind::Test { var, val } => Cond::VarEq(Var(var), val),
                    Kind::Set { .. } => unreachable!("set nodes jump"),
                };
                let (a, b) = (self.new_seq(), self.new_seq());
                self.seqs[cur].push(W::If(cond, a, b));
                tasks.push(Task::Branch(x, t, a));
                tasks.push(Task::Branch(x, f, b));
            }
        }
    }

    fn branch(&mut self, x: u32, y: u32, seq: usize, tasks: &mut Vec<Task>) {
        if let (Kind::Orig(a), Kind::Orig(b)) = (self.w.kind[x as usize], self.w.kind[y as usize]) {
            self.seqs[seq].push(W::Act(Stmt::Edge(a, b)));
        }
        if self.num[y as usize] <= self.num[x as usize] {
            self.seqs[seq].push(W::Br((true, y)));
        } else if self.merge[y as usize] {
            self.seqs[seq].push(W::Br((false, y)));
        } else {
            tasks.push(Task::Tree(y, seq));
        }
    }
}

/// Count the branches to each label.
fn count_refs(seqs: &[Vec<W>], refs: &mut std::collections::HashMap<Label, u32>) {
    for s in seqs {
        for w in s {
            if let W::Br(l) = w {
                *refs.entry(*l).or_default() += 1;
            }
        }
    }
}

struct Simplify<'a> {
    seqs: &'a mut Vec<Vec<W>>,
    refs: std::collections::HashMap<Label, u32>,
    dissolved: std::collections::HashSet<u32>,
}

impl Simplify<'_> {
    /// Simplify the blocks nested in `seq`, innermost first.
    fn seq(&mut self, seq: usize, depth: usize) -> Result<(), StructurizeError> {
        if depth > MAX_DEPTH {
            return Err(StructurizeError::TooDeep);
        }
        for i in 0..self.seqs[seq].len() {
            match self.seqs[seq][i] {
                W::If(_, a, b) => {
                    self.seq(a, depth + 1)?;
                    self.seq(b, depth + 1)?;
                }
                W::Loop(_, s) => self.seq(s, depth + 1)?,
                W::Block(y, s) => {
                    self.seq(s, depth + 1)?;
                    self.strip_tail(s, y, depth + 1)?;
                    if self.refs.get(&(false, y)).copied().unwrap_or(0) == 0 {
                        self.dissolved.insert(y);
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Drop branches to the end of block `y` that stand where its end follows anyway.
    fn strip_tail(&mut self, seq: usize, y: u32, depth: usize) -> Result<(), StructurizeError> {
        if depth > MAX_DEPTH {
            return Err(StructurizeError::TooDeep);
        }
        match self.seqs[seq].last() {
            Some(W::Br((false, l))) if *l == y => {
                self.seqs[seq].pop();
                if let Some(r) = self.refs.get_mut(&(false, y)) {
                    *r -= 1;
                }
            }
            Some(&W::If(_, a, b)) => {
                self.strip_tail(a, y, depth + 1)?;
                self.strip_tail(b, y, depth + 1)?;
            }
            // Reaching the end of a block or of a loop's body leaves it.
            Some(&W::Block(_, s)) | Some(&W::Loop(_, s)) => self.strip_tail(s, y, depth + 1)?,
            _ => {}
        }
        Ok(())
    }
}

struct Convert<'a> {
    seqs: &'a [Vec<W>],
    dissolved: &'a std::collections::HashSet<u32>,
    /// Open labels, innermost last, with whether a branch crossed them.
    stack: Vec<(Label, bool)>,
    brk: Option<u32>,
    vars: u32,
}

impl Convert<'_> {
    fn label_id(l: Label) -> u32 {
        2 * l.1 + if l.0 { 1 } else { 2 }
    }

    fn brk(&mut self) -> Var {
        Var(*self.brk.get_or_insert_with(|| {
            self.vars += 1;
            self.vars - 1
        }))
    }

    fn seq(&mut self, seq: usize, out: &mut Vec<Stmt>, depth: usize) -> Result<(), StructurizeError> {
        if depth > MAX_DEPTH {
            return Err(StructurizeError::TooDeep);
        }
        for w in &self.seqs[seq] {
            if matches!(out.last(), Some(Stmt::Break | Stmt::Continue | Stmt::Return(_))) {
                break;
            }
            match *w {
                W::Act(ref s) => out.push(s.clone()),
                W::Return(b) => out.push(Stmt::Return(b)),
                W::If(c, a, b) => {
                    let (mut x, mut y) = (Vec::new(), Vec::new());
                    self.seq(a, &mut x, depth + 1)?;
                    self.seq(b, &mut y, depth + 1)?;
                    out.push(Stmt::If(c, x, y));
                }
                W::Block(y, s) if self.dissolved.contains(&y) => self.seq(s, out, depth + 1)?,
                W::Block(y, s) => self.labeled((false, y), s, out, depth)?,
                W::Loop(y, s) => self.labeled((true, y), s, out, depth)?,
                W::Br(l) => {
                    let Some(pos) = self.stack.iter().rposition(|&(m, _)| m == l) else {
                        return Err(StructurizeError::Internal(format!("branch to label {l:?} outside it")));
                    };
                    let top = self.stack.len() - 1;
                    if pos == top {
                        out.push(if l.0 { Stmt::Continue } else { Stmt::Break });
                    } else {
                        let v = self.brk();
                        out.push(Stmt::Set(v, Self::label_id(l)));
                        out.push(Stmt::Break);
                        for e in &mut self.stack[pos + 1..] {
                            e.1 = true;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn labeled(&mut self, l: Label, s: usize, out: &mut Vec<Stmt>, depth: usize) -> Result<(), StructurizeError> {
        self.stack.push((l, false));
        let mut body = Vec::new();
        self.seq(s, &mut body, depth + 1)?;
        if !matches!(body.last(), Some(Stmt::Break | Stmt::Continue | Stmt::Return(_))) {
            body.push(Stmt::Break);
        }
        let (_, crossed) = self.stack.pop().unwrap_or((l, false));
        out.push(Stmt::Loop(body));
        if crossed {
            let Some(&(parent, _)) = self.stack.last() else {
                return Err(StructurizeError::Internal("a branch crossed the outermost label".into()));
            };
            let v = self.brk();
            let here = vec![Stmt::Set(v, 0), if parent.0 { Stmt::Continue } else { Stmt::Break }];
            let further = vec![Stmt::If(Cond::VarEq(v, 0), vec![], vec![Stmt::Break])];
            out.push(Stmt::If(Cond::VarEq(v, Self::label_id(parent)), here, further));
        }
        Ok(())
    }
}

/// Structure a reducible working graph.
pub fn build(w: &Work) -> Result<Structured, StructurizeError> {
    let succ: Vec<Vec<u32>> = w.exits.iter().map(|e| e.successors()).collect();
    let order = reverse_postorder(&succ, w.entry);
    let num = rpo_numbers(&order, succ.len());
    let preds = predecessors(&succ);
    let mut merge = vec![false; succ.len()];
    let mut header = vec![false; succ.len()];
    for &b in &order {
        let p = &preds[b as usize];
        let reachable = p.iter().filter(|&&p| num[p as usize] != u32::MAX);
        let forward = reachable.clone().filter(|&&p| num[p as usize] < num[b as usize]).count();
        merge[b as usize] = forward >= 2;
        header[b as usize] = reachable.clone().any(|&p| num[p as usize] >= num[b as usize]);
    }
    let dom = DomTree::new(&succ, w.entry);
    let mut bld = Builder { w, seqs: vec![Vec::new()], num, merge, header, dom };
    let mut tasks = vec![Task::Tree(w.entry, 0)];
    while let Some(t) = tasks.pop() {
        match t {
            Task::Tree(x, s) => bld.tree(x, s, &mut tasks),
            Task::Branch(x, y, s) => bld.branch(x, y, s, &mut tasks),
        }
    }
    let mut seqs = bld.seqs;
    let mut refs = std::collections::HashMap::new();
    count_refs(&seqs, &mut refs);
    let mut simp = Simplify { seqs: &mut seqs, refs, dissolved: Default::default() };
    simp.seq(0, 0)?;
    let dissolved = std::mem::take(&mut simp.dissolved);
    let mut conv = Convert { seqs: &seqs, dissolved: &dissolved, stack: Vec::new(), brk: None, vars: w.vars };
    let mut body = Vec::new();
    conv.seq(0, &mut body, 0)?;
    Ok(Structured { body, vars: conv.vars, dispatchers: w.dispatchers })
}
