//! A checker of gfx1201 counter waits, independent of [`super::waits`]'s analysis: it follows
//! the exact outstanding events of every path instead of per-register positions.
//!
//! The state is a set of concrete situations, one per group of paths: per counter the queue of
//! outstanding events in issue order, each with the registers it writes when it completes (an
//! export: the VGPRs it still reads). A wait `N` on a counter whose events complete in order
//! drops events from the front until at most `N` remain; on kmcnt, on a counter holding a FLAT
//! event and on expcnt holding both an export and an attribute load, only a wait for 0
//! completes anything. A VINTERP instruction's WAIT_EXP field waits on expcnt before it. A counter at its maximum
//! completes its oldest event before the next issue (in order), or keeps every register
//! outstanding by merging its two oldest events (out of order). Situations are joined by set
//! union at CFG merges and iterated to a fixed point. An instruction that reads or writes a
//! register that some situation still has outstanding (or writes a VGPR an outstanding export
//! reads) is reported.
//!
//! The checker shares the counter of each instruction ([`super::waits::events`]) and the
//! register slots with the pass: those are the ISA's facts, not the analysis.

use super::waits::{blocks, events, slots, Counter, WaitError, COUNTERS};
use super::TranslatedInst;
use isabridge_decoder::operand::{OperandKind, RegClass};
use isabridge_decoder::Inst;
use std::collections::BTreeSet;

/// Where the checker starts a function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    /// Nothing outstanding (a kernel; a function whose callers wait for everything first).
    Clean,
    /// Every register may be the target of an outstanding event on every counter that writes
    /// registers (a function whose callers leave events outstanding, LLVM's convention: the
    /// callee waits).
    AllPending,
}

/// A register read or written while an event that writes it (or an export that reads it)
/// may be outstanding.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Violation {
    /// Address of the instruction.
    pub addr: u64,
    /// Its name.
    pub name: &'static str,
    /// The register slot (VGPR n is n, scalar code c is 256 + c).
    pub slot: usize,
    /// The counter whose event may be outstanding.
    pub counter: Counter,
}

/// Why the checker gave no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    /// The CFG could not be built.
    #[error(transparent)]
    Cfg(#[from] WaitError),
    /// The set of situations at a block grew past the limit.
    #[error("more than {0} distinct situations at one block")]
    TooManySituations(usize),
}

/// Most situations kept per block.
pub const MAX_SITUATIONS: usize = 4096;

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Event {
    regs: Vec<u16>,
    flat: bool,
    read: bool,
}

type Situation = [Vec<Event>; COUNTERS];

/// Whether the queue's events may complete out of issue order.
fn ooo(q: &[Event], c: Counter) -> bool {
    c.out_of_order()
        || q.iter().any(|e| e.flat)
        || (c == Counter::Exp && q.iter().any(|e| e.read) && q.iter().any(|e| !e.read))
}

fn wait(q: &mut Vec<Event>, c: Counter, n: u32) {
    if n == 0 {
        q.clear();
    } else if !ooo(q, c) {
        let n = n as usize;
        if q.len() > n {
            q.drain(..q.len() - n);
        }
    }
}

fn issue(q: &mut Vec<Event>, c: Counter, e: Event) {
    if q.len() >= c.max() as usize {
        if ooo(q, c) {
            let b = q.remove(1);
            let a = &mut q[0];
            a.regs.extend(b.regs);
            a.regs.sort_unstable();
            a.regs.dedup();
            a.flat |= b.flat;
            a.read &= b.read;
        } else {
            q.remove(0);
        }
    }
    q.push(e);
}

/// The counts a wait instruction waits for (per counter), read from its SIMM16 the way the
/// gfx1201 wait encodings define it; None for an instruction that is not a counter wait.
fn wait_counts(inst: &Inst) -> Option<Vec<(Counter, u32)>> {
    let v = inst
        .operands
        .iter()
        .find_map(|o| match o.kind {
            OperandKind::Imm(v) if !o.implicit => Some(v as u32 & 0xffff),
            OperandKind::Field { value, .. } if !o.implicit => Some(value as u32 & 0xffff),
            _ => None,
        })
        .unwrap_or(0);
    let one = |c: Counter| Some(vec![(c, v & c.max())]);
    match inst.name {
        "S_WAIT_LOADCNT" => one(Counter::Load),
        "S_WAIT_STORECNT" => one(Counter::Store),
        "S_WAIT_SAMPLECNT" => one(Counter::Sample),
        "S_WAIT_BVHCNT" => one(Counter::Bvh),
        "S_WAIT_KMCNT" => one(Counter::Km),
        "S_WAIT_DSCNT" => one(Counter::Ds),
        "S_WAIT_EXPCNT" => one(Counter::Exp),
        "S_WAIT_LOADCNT_DSCNT" => Some(vec![(Counter::Load, v >> 8 & 63), (Counter::Ds, v & 63)]),
        "S_WAIT_STORECNT_DSCNT" => Some(vec![(Counter::Store, v >> 8 & 63), (Counter::Ds, v & 63)]),
        "S_WAIT_IDLE" => Some(Counter::ALL.iter().map(|&c| (c, 0)).collect()),
        _ => None,
    }
}

fn step(s: &mut Situation, inst: &Inst, addr: u64, out: &mut BTreeSet<Violation>) {
    if let Some(w) = wait_counts(inst) {
        for (c, n) in w {
            wait(&mut s[c as usize], c, n);
        }
        return;
    }
    if inst.encoding == "ENC_VINTERP" {
        wait(&mut s[Counter::Exp as usize], Counter::Exp, inst.named("WAIT_EXP").unwrap_or(0) as u32);
    }
    for o in &inst.operands {
        for slot in slots(&o.kind) {
            for c in Counter::ALL {
                for e in &s[c as usize] {
                    let hit = if e.read { o.access.writes() } else { true };
                    if hit && e.regs.binary_search(&(slot as u16)).is_ok() {
                        out.insert(Violation { addr, name: inst.name, slot, counter: c });
                    }
                }
            }
        }
    }
    let ev = events(inst);
    for c in Counter::ALL {
        if !ev.counters.has(c) {
            continue;
        }
        let mut regs: Vec<u16> = Vec::new();
        for o in &inst.operands {
            let write = ev.writes_late && o.access.writes();
            let read = ev.reads_late && o.access.reads() && matches!(o.kind, OperandKind::Reg(r) if r.class == RegClass::Vgpr);
            if write || read {
                regs.extend(slots(&o.kind).map(|x| x as u16));
            }
        }
        regs.sort_unstable();
        regs.dedup();
        issue(&mut s[c as usize], c, Event { regs, flat: ev.flat, read: ev.reads_late });
    }
}

/// Checks the waits of one function: every instruction that may use a register before the
/// event writing it has completed, over every path from the entry (and from blocks reached
/// only indirectly, which start clean). Stops once `max_violations` are found.
pub fn check(insts: &[TranslatedInst], entry: Entry, max_violations: usize) -> Result<Vec<Violation>, CheckError> {
    let g = blocks(insts)?;
    let nb = g.ranges.len();
    let mut ins: Vec<Option<BTreeSet<Situation>>> = vec![None; nb];
    let mut out = BTreeSet::new();
    let start: Situation = match entry {
        Entry::Clean => Default::default(),
        // Stores write no register: only the other counters start with every register.
        Entry::AllPending => std::array::from_fn(|c| {
            if c == Counter::Store as usize {
                Vec::new()
            } else {
                vec![Event { regs: (0..super::waits::SLOTS as u16).collect(), flat: true, read: false }]
            }
        }),
    };
    let mut work = Vec::new();
    if nb > 0 {
        ins[0] = Some(BTreeSet::from([start]));
        work.push(0);
    }
    loop {
        while let Some(b) = work.pop() {
            let Some(set) = ins[b].clone() else { continue };
            let (s, e) = g.ranges[b];
            let mut outs = BTreeSet::new();
            for mut sit in set {
                for t in &insts[s..e] {
                    step(&mut sit, &t.inst, t.inst.addr, &mut out);
                }
                outs.insert(sit);
            }
            if out.len() >= max_violations {
                return Ok(out.into_iter().collect());
            }
            for &t in &g.succs[b] {
                let cur = ins[t].get_or_insert_with(BTreeSet::new);
                let before = cur.len();
                cur.extend(outs.iter().cloned());
                if cur.len() > MAX_SITUATIONS {
                    return Err(CheckError::TooManySituations(MAX_SITUATIONS));
                }
                if cur.len() != before {
                    work.push(t);
                }
            }
        }
        match ins.iter().position(Option::is_none) {
            Some(b) => {
                ins[b] = Some(BTreeSet::from([Situation::default()]));
                work.push(b);
            }
            None => break,
        }
    }
    Ok(out.into_iter().collect())
}
