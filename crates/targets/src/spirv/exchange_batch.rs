//! Batched exchanges of lanes-model functions: a run of warp ops of one block that shares one
//! roll call and one workgroup barrier (`super::warp`), instead of one each.
//!
//! lavapipe turns every workgroup barrier into a suspension point of a coroutine, and LLVM's
//! coroutine split takes time that grows with their number: sm_86 `mma_ops`, one barrier per
//! exchange (358), took lavapipe 36 s of CPU to compile, and 7 to 9 s with 26 (no faster with
//! none at all: the rest is the code's size; `tests/translate_corpus.rs`).
//!
//! A batch is a run of shuffles, `vote.eq`, `match` and `redux` ops of one block, in program
//! order, with nothing between them but register accesses and pure arithmetic. Its first op
//! publishes every member's operand (each member its own exchange array of the bank) with one
//! roll call, and each member reads its array after that barrier. This computes exactly what
//! one exchange per op does:
//! - the lanes at the batch's first op are the lanes at each of its ops (nothing between them
//!   lets a lane leave or wait: no branch, trap, barrier, memory access or other exchange);
//! - each member's operand is the value it has at the member: it is computed before the batch
//!   or by ops moved ahead of the batch ([`Plan::early`]): pure arithmetic and register reads
//!   of registers not written between the batch's start and the read, none depending on a
//!   member's result;
//! - no memory access lies between the members, so no lane's store or load moves across a
//!   barrier relative to another lane's (lavapipe runs a workgroup's lanes in groups, one
//!   group up to a barrier before the next).

use isabridge_ir::ir::{Function, Reg, Value};
use isabridge_ir::ops::lane::LaneOp;
use isabridge_ir::ops::warp::WarpOp;
use isabridge_ir::Op;
use std::collections::{HashMap, HashSet};

/// The exchange array of the presence marks (`super::warp`).
const MARKS: u32 = 2;

/// A batch member: the exchange array its operand goes in, and the batch's first op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Member {
    /// The member's exchange array (never [`MARKS`]).
    pub(super) array: u32,
    /// The batch's first op.
    pub(super) first: Value,
}

/// The batches of a function.
#[derive(Default)]
pub(super) struct Plan {
    /// Every member of a batch of two or more ops.
    pub(super) members: HashMap<Value, Member>,
    /// The members of each batch, by its first op, in program order.
    pub(super) batches: HashMap<Value, Vec<Value>>,
    /// The ops emitted just before each batch's first op (in program order), by that op.
    pub(super) early: HashMap<Value, Vec<Value>>,
    /// Every op of [`Plan::early`] (emitted there, not at its own place).
    pub(super) moved: HashSet<Value>,
    /// The largest batch's size.
    pub(super) most: u32,
}

/// Exchange array of the `k`th member of a batch: 0, 1, then past the marks.
pub(super) fn array_of(k: u32) -> u32 {
    if k < MARKS {
        k
    } else {
        k + 1
    }
}

/// Whether `op` is an exchange a batch may hold (its operand 0 is the word it publishes, and
/// its emitter reads that word from its member's array).
fn batchable(op: &Op) -> bool {
    matches!(op, Op::Lane(LaneOp::Shuffle(..)) | Op::Warp(WarpOp::VoteEq | WarpOp::MatchAny | WarpOp::MatchAll | WarpOp::Redux(_)))
}

/// Whether `op` computes from its operands only (no memory, no other lane, no trap): it may
/// stand between members and move ahead of a batch. Register reads are checked apart.
fn pure(op: &Op) -> bool {
    matches!(op, Op::Int(_) | Op::Conv(_) | Op::Bitcast | Op::Build | Op::Extract(_) | Op::Insert(_) | Op::Select | Op::Float(_) | Op::FCmp(..) | Op::Lane(LaneOp::LaneId))
}

/// Whether `op` is defined ahead of every op of its block (never emitted in place).
fn ahead(op: &Op) -> bool {
    matches!(op, Op::Const(_) | Op::Undef | Op::Param(_) | Op::Phi(_))
}

/// The batches of lanes-model function `f`, each of at most `most` ops.
pub(super) fn plan(f: &Function, most: u32) -> Plan {
    let mut p = Plan::default();
    for &b in &f.layout {
        let insts = &f.blocks[b].insts;
        let pos: HashMap<Value, usize> = insts.iter().enumerate().map(|(i, &v)| (v, i)).collect();
        let mut i = 0;
        while i < insts.len() {
            if !batchable(&f.insts[insts[i]].op) {
                i += 1;
                continue;
            }
            let (start, first) = (i, insts[i]);
            let mut members = vec![first];
            let mut early: Vec<Value> = Vec::new();
            let mut written: HashSet<Reg> = HashSet::new();
            let mut j = i + 1;
            while j < insts.len() && (members.len() as u32) < most {
                let v = insts[j];
                let op = &f.insts[v].op;
                if batchable(op) {
                    match movable(f, &pos, start, &members, &written, f.insts[v].args[0]) {
                        Some(more) => {
                            for u in more {
                                if !early.contains(&u) {
                                    early.push(u);
                                }
                            }
                            members.push(v);
                        }
                        None => break,
                    }
                } else if let Op::WriteReg(r) = op {
                    written.insert(*r);
                } else if !(pure(op) || ahead(op) || matches!(op, Op::ReadReg(_))) {
                    break;
                }
                j += 1;
            }
            i = j;
            if members.len() < 2 {
                continue;
            }
            early.sort_by_key(|u| pos[u]);
            p.most = p.most.max(members.len() as u32);
            for (k, &m) in members.iter().enumerate() {
                p.members.insert(m, Member { array: array_of(k as u32), first });
            }
            p.moved.extend(early.iter().copied());
            p.early.insert(first, early);
            p.batches.insert(first, members);
        }
    }
    p
}

/// The ops of `x`'s block from position `start` on that `x` depends on, when all may move
/// ahead of the batch that starts there: pure ops, and register reads of registers not in
/// `written` (those written since `start`), none a member's result; None otherwise.
fn movable(f: &Function, pos: &HashMap<Value, usize>, start: usize, members: &[Value], written: &HashSet<Reg>, x: Value) -> Option<Vec<Value>> {
    let mut out = Vec::new();
    let mut todo = vec![x];
    let mut seen = HashSet::new();
    while let Some(u) = todo.pop() {
        if !seen.insert(u) {
            continue;
        }
        let op = &f.insts[u].op;
        if ahead(op) || pos.get(&u).is_none_or(|&at| at < start) {
            continue;
        }
        if members.contains(&u) {
            return None;
        }
        match op {
            Op::ReadReg(r) if !written.contains(r) => {}
            _ if pure(op) => {}
            _ => return None,
        }
        out.push(u);
        todo.extend(f.insts[u].args.iter().copied());
    }
    Some(out)
}
