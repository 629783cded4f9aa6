//! The late-arriving-memory model: how the interpreter runs a function that holds
//! [`Pending`] results.
//!
//! A machine writes a memory operation's result to its registers when the operation
//! completes, some time after it issued, and a program may rely on the register only after a
//! wait whose counter covers the operation. Without pending ops the interpreter completes
//! every memory operation at issue; with them it keeps, beside every value and machine
//! register of every thread, a tag saying whether it still waits for an outstanding event:
//!
//! - a pending op starts an event of its kind (or joins the event the wave's previous pending
//!   op started) and tags its result *fresh* with it;
//! - reading a register whose event is outstanding gives a value tagged *copy* (of that
//!   register and event); a computation on such a value is *derived* from it;
//! - writing a register: a fresh value makes the register wait for its event; a copy of the
//!   same register keeps it waiting (the lanes a masked write leaves alone); a copy of another
//!   register or a derived value is a read before the covering wait and makes the register
//!   *poison*; so does any write over a register whose event is outstanding (the late result
//!   would overwrite it), unless the new value is fresh from a later event that completes
//!   after it (below);
//! - a value built from a fresh result and copies or derived values (a partial-register load
//!   merging into the old contents, as a 16-bit load into one half) is fresh when every other
//!   event it carries completes before the fresh one, else poison;
//! - a value tagged anything but clean reaching an address, stored data, a descriptor, a lane
//!   mask, a cross-lane op, an export, a call or a branch condition stops the run with
//!   [`InterpError::Poison`]: the program used a register before the wait that covers it.
//!   One exception, measured on RDNA2 (`vector_store_data`): data a vector memory store
//!   writes may be a register an outstanding vector memory result writes.
//!
//! A wait ([`Wait`]) retires, per counter it names (a set of kinds), the outstanding events of
//! those kinds down to its count. Which events retire is the strictest order the machines
//! allow, as LLVM's waitcnt model (AMDGPU SIInsertWaitcnts, `counterOutOfOrder`) states it:
//! events of one kind retire in issue order (the oldest first), except scalar loads and
//! messages, which may return in any order; a counter holding events of several kinds may
//! return them in any order too. When the order is unknown, only a wait for 0 retires
//! anything.
//!
//! Stores: the interpreter writes memory at issue, and a wave's own accesses to one address
//! stay in order on the machines, so the wave reads back what it stored. Another wave may not:
//! a plain (non-atomic) vector store to global memory starts a `store` event of its wave,
//! and until a wait retires it the bytes it wrote are not yet visible to the other waves of
//! the workgroup. A global load (plain or buffer) of another wave that reads such a byte gets
//! a poison result. This is what gfx12's storecnt guards in WGP mode: LLVM's memory
//! legalizer waits for storecnt 0 before a workgroup release there (release fences "are
//! strong enough in that mode", LLVM PR 160501), because a store is not visible to the other
//! waves until it completes. Atomics, image stores and scratch are not tracked.

use super::{CInst, InterpError, Machine};
use crate::ops::control::{Pending, SyncOp, Wait, WaitKinds};
use crate::ops::Op;

/// A tag that makes a value poison.
const POISON: u64 = 1 << 63;
/// The class field of a tag (bits 32-47): 0 fresh, `DERIVED`, else a register index plus 1.
const CLASS_SHIFT: u32 = 32;
/// The class of a value computed from a copy.
const DERIVED: u64 = 0xffff;

/// The late-arriving-memory state of one run.
pub(super) struct Late {
    /// Per value and thread (`value * threads + thread`): its tag, 0 when clean.
    tags: Vec<u64>,
    /// Per machine register and thread: the outstanding event it waits for, or [`POISON`].
    reg_tags: Vec<u64>,
    /// Per event (index = id; 0 is unused): its kind and whether it has retired.
    events: Vec<(WaitKinds, bool)>,
    /// Per wave: its outstanding events in issue order.
    outstanding: Vec<Vec<u32>>,
    /// Per wave: the event its last pending op started.
    last: Vec<u32>,
    /// Per global byte address: the store event that last wrote it and that event's wave.
    stored: std::collections::HashMap<u64, (u32, usize)>,
    /// Per wave: the store event the instruction running now started (0 before its first
    /// lane stores).
    store_now: Vec<u32>,
    /// Lanes (of the wave running now) whose load of the instruction running now read bytes
    /// another wave's outstanding store wrote.
    unseen: u64,
}

fn class(t: u64) -> u64 {
    t >> CLASS_SHIFT & 0xffff
}

fn event(t: u64) -> u32 {
    t as u32
}

impl Late {
    /// The state for `f` run by `threads` threads in `waves` waves, or None when `f` has no
    /// pending results (it then runs with memory completing at issue).
    pub(super) fn new(f: &crate::ir::Function, threads: usize, waves: usize) -> Option<Box<Late>> {
        f.insts.iter().any(|(_, i)| matches!(i.op, Op::Pending(_))).then(|| {
            Box::new(Late {
                tags: vec![0; f.insts.len() * threads],
                reg_tags: vec![0; f.regs.len() * threads],
                events: vec![(WaitKinds(0), true)],
                outstanding: vec![Vec::new(); waves],
                last: vec![0; waves],
                stored: std::collections::HashMap::new(),
                store_now: vec![0; waves],
                unseen: 0,
            })
        })
    }

    fn outstanding(&self, e: u32) -> bool {
        e != 0 && self.events.get(e as usize).is_some_and(|x| !x.1)
    }

    /// Whether event `a` surely completes before event `b`: `a` issued first, both of one kind
    /// that returns in order.
    fn before(&self, a: u32, b: u32) -> bool {
        let (ka, kb) = (self.events[a as usize].0, self.events[b as usize].0);
        a < b && ka == kb && in_order(ka)
    }

    /// Whether event `e` is a vector memory result (a load, sample or BVH intersection).
    fn vector(&self, e: u32) -> bool {
        let k = self.events[e as usize].0 .0;
        k & (WaitKinds::LOAD.0 | WaitKinds::SAMPLE.0 | WaitKinds::BVH.0) != 0
    }

    /// The tag of a value computed from values tagged `ins`.
    fn combine(&self, ins: impl Iterator<Item = u64>) -> u64 {
        let (mut fresh, mut other) = (0u32, 0u32);
        for t in ins {
            if t == 0 {
                continue;
            }
            if t & POISON != 0 {
                return POISON;
            }
            let e = event(t);
            let slot = if class(t) == 0 { &mut fresh } else { &mut other };
            if *slot == 0 || *slot == e {
                *slot = e;
            } else {
                let (a, b) = (e.min(*slot), e.max(*slot));
                if !self.before(a, b) {
                    return POISON;
                }
                *slot = b;
            }
        }
        match (fresh, other) {
            (0, 0) => 0,
            (0, o) => DERIVED << CLASS_SHIFT | o as u64,
            (f, 0) => f as u64,
            (f, o) if o == f || self.before(o, f) => f as u64,
            _ => POISON,
        }
    }

    /// Retire the events `w` covers in wave `wave`.
    fn wait(&mut self, wave: usize, w: &Wait) {
        for (kinds, count) in w.used() {
            let mine: Vec<u32> = self.outstanding[wave].iter().copied().filter(|e| self.events[*e as usize].0 .0 & kinds.0 != 0).collect();
            let excess = mine.len().saturating_sub(count as usize);
            if excess == 0 {
                continue;
            }
            let first = self.events[mine[0] as usize].0;
            let ordered = in_order(first) && mine.iter().all(|e| self.events[*e as usize].0 == first);
            let retire: &[u32] = if ordered {
                &mine[..excess]
            } else if count == 0 {
                &mine
            } else {
                &[]
            };
            for e in retire {
                self.events[*e as usize].1 = true;
            }
            let events = &self.events;
            self.outstanding[wave].retain(|e| !events[*e as usize].1);
        }
    }

    /// The tag a register write of a value tagged `v` leaves in register `r` now tagged `cur`.
    fn write(&self, r: usize, v: u64, cur: u64) -> u64 {
        let new = if v == 0 || v & POISON != 0 {
            v
        } else {
            match class(v) {
                0 => v,
                c if c == r as u64 + 1 => event(v) as u64,
                _ => POISON,
            }
        };
        let new = if new != POISON && !self.outstanding(event(new)) { 0 } else { new };
        if cur == POISON || !self.outstanding(event(cur)) || new == cur || new == POISON {
            return new;
        }
        // The register still waits for `cur`: only a later result that surely lands after it
        // may replace it.
        if new != 0 && self.before(event(cur), event(new)) {
            new
        } else {
            POISON
        }
    }
}

/// The operands of `op` (of `nargs`, the mask not counted) that a vector memory store writes
/// to memory: a register that an outstanding vector memory result will write
/// may be stored before its wait, and the store sees the result. RDNA2 shows it: the test
/// Bvh64IntersectRay (fixtures/rdna) stores the results of four `image_bvh*_intersect_ray`
/// with no `s_waitcnt` between, and the measured outputs are the intersection results. (LLVM
/// waits before such a store; the rule is taken from the measurement, for data operands
/// only: addresses and descriptors still wait.)
fn vector_store_data(op: &Op, nargs: usize) -> std::ops::Range<usize> {
    use crate::ops::mem::{MemOp, Space};
    match op {
        Op::Mem(MemOp::Store(s)) if *s != Space::Shared => 1..nargs,
        Op::Buffer(b) if b.is_store() => 7..nargs,
        Op::Image(i) if i.is_store() => nargs.saturating_sub(i.data_count())..nargs,
        _ => 0..0,
    }
}

/// Whether events of `k` complete in issue order (scalar loads and messages do not).
fn in_order(k: WaitKinds) -> bool {
    k.0 & (WaitKinds::SCALAR.0 | WaitKinds::MESSAGE.0) == 0
}

impl Machine<'_> {
    /// Copy the tags of the phis of a block entered by the lanes `group` of wave `w` (after
    /// [`Machine::phis`] copied their values).
    pub(super) fn late_phis(&mut self, w: usize, group: u64, phis: &[(usize, Vec<(crate::ir::Block, usize)>)], prev: &[Option<crate::ir::Block>]) {
        let th = self.threads();
        let Some(late) = self.late.as_deref_mut() else { return };
        for l in (0..self.ws).filter(|l| group >> l & 1 != 0) {
            let t = w * self.ws + l;
            let picked: Vec<u64> =
                phis.iter().map(|(_, inc)| inc.iter().find(|(b, _)| Some(*b) == prev[t]).map(|(_, a)| late.tags[a * th + t]).unwrap_or(0)).collect();
            for ((dst, _), tag) in phis.iter().zip(picked) {
                late.tags[dst * th + t] = tag;
            }
        }
    }

    /// A branch condition or returned value `v` read by the lanes `group` of wave `w` must not
    /// be waiting for memory.
    pub(super) fn late_use(&self, w: usize, group: u64, v: usize, what: &'static str) -> Result<(), InterpError> {
        let Some(late) = self.late.as_ref() else { return Ok(()) };
        let th = self.threads();
        for l in (0..self.ws).filter(|l| group >> l & 1 != 0) {
            if late.tags[v * th + w * self.ws + l] != 0 {
                return Err(poison(self, v, what));
            }
        }
        Ok(())
    }

    /// A global store of lane `l` of wave `w` wrote `size` bytes at `addr`: they belong to
    /// the store event of the instruction running now (started by its first storing lane).
    pub(super) fn late_store(&mut self, w: usize, addr: u64, size: u32) {
        let Some(late) = self.late.as_deref_mut() else { return };
        if late.store_now[w] == 0 {
            late.events.push((WaitKinds::STORE, false));
            let e = late.events.len() as u32 - 1;
            late.outstanding[w].push(e);
            late.store_now[w] = e;
        }
        let e = late.store_now[w];
        for a in addr..addr.saturating_add(size as u64) {
            late.stored.insert(a, (e, w));
        }
    }

    /// A global load of lane `l` of wave `w` read `size` bytes at `addr`: the lane's result is
    /// poison when another wave's outstanding store wrote one of them.
    pub(super) fn late_load(&mut self, w: usize, l: usize, addr: u64, size: u32) {
        let Some(late) = self.late.as_deref_mut() else { return };
        let unseen = (addr..addr.saturating_add(size as u64))
            .any(|a| late.stored.get(&a).is_some_and(|&(e, sw)| sw != w && late.outstanding(e)));
        if unseen {
            late.unseen |= 1 << l;
        }
    }

    /// Update the tags after `ci` ran for the lanes `full` of wave `w`.
    pub(super) fn late_after(&mut self, w: usize, full: u64, ci: &CInst) -> Result<(), InterpError> {
        let Some(mut late) = self.late.take() else { return Ok(()) };
        let r = self.late_step(&mut late, w, full, ci);
        late.store_now[w] = 0;
        late.unseen = 0;
        self.late = Some(late);
        r
    }

    fn late_step(&self, late: &mut Late, w: usize, full: u64, ci: &CInst) -> Result<(), InterpError> {
        let th = self.threads();
        let base = w * self.ws;
        let ws = self.ws;
        let group = match ci.mask {
            Some(k) if full != 0 => full & self.regs[k * th + base + full.trailing_zeros() as usize],
            _ => full,
        };
        let lanes = move |g: u64| (0..ws).filter(move |l| g >> l & 1 != 0).map(move |l| base + l);
        let arg_tag = |late: &Late, k: usize, t: usize| late.tags[ci.args[k] * th + t];
        match &ci.op {
            Op::Pending(Pending { kinds, join }) => {
                let e = if *join && late.last[w] != 0 {
                    late.last[w]
                } else {
                    late.events.push((*kinds, false));
                    let e = late.events.len() as u32 - 1;
                    late.outstanding[w].push(e);
                    late.last[w] = e;
                    e
                };
                for t in lanes(full) {
                    late.tags[ci.v * th + t] = if arg_tag(late, 0, t) == 0 { e as u64 } else { POISON };
                }
            }
            Op::ReadReg(r) => {
                let r = r.0 as usize;
                for t in lanes(group) {
                    let rt = late.reg_tags[r * th + t];
                    late.tags[ci.v * th + t] = if rt == POISON {
                        POISON
                    } else if late.outstanding(event(rt)) {
                        let c = if r + 1 < DERIVED as usize { r as u64 + 1 } else { DERIVED };
                        c << CLASS_SHIFT | rt
                    } else {
                        0
                    };
                }
            }
            Op::WriteReg(r) => {
                let r = r.0 as usize;
                for t in lanes(group) {
                    let new = late.write(r, arg_tag(late, 0, t), late.reg_tags[r * th + t]);
                    late.reg_tags[r * th + t] = new;
                }
            }
            Op::LaneSelect => {
                if lanes(full).any(|t| arg_tag(late, 0, t) != 0) {
                    return Err(poison(self, ci.args[0], "a lane mask"));
                }
                for (l, t) in (0..ws).filter(|l| full >> l & 1 != 0).map(|l| (l, base + l)) {
                    let m = self.regs[ci.args[0] * th + t];
                    let pick = if m >> l & 1 != 0 { 1 } else { 2 };
                    late.tags[ci.v * th + t] = arg_tag(late, pick, t);
                }
            }
            Op::Sync(SyncOp::Wait(wt)) => late.wait(w, wt),
            op if ci.pure || matches!(op, Op::Int(_)) => {
                for t in lanes(full) {
                    let tag = late.combine((0..ci.nargs).map(|k| arg_tag(late, k, t)));
                    late.tags[ci.v * th + t] = tag;
                }
            }
            _ => {
                // Memory, cross-lane, stage and call ops read their operands as addresses,
                // data, descriptors and masks: every one must have arrived.
                let n = ci.nargs + ci.mask.is_some() as usize;
                let data = vector_store_data(&ci.op, ci.nargs);
                for k in 0..n {
                    let arrived = |tag: u64| tag == 0 || data.contains(&k) && class(tag) != 0 && tag & POISON == 0 && late.vector(event(tag));
                    if lanes(group).any(|t| !arrived(arg_tag(late, k, t))) {
                        return Err(poison(self, ci.args[k], "an operand of a memory, cross-lane or stage operation"));
                    }
                }
                if !ci.op.is_void() {
                    for t in lanes(full) {
                        late.tags[ci.v * th + t] = if late.unseen >> (t - base) & 1 != 0 { POISON } else { 0 };
                    }
                }
            }
        }
        Ok(())
    }
}

/// The error for value `v` used as `what` while it waits for memory.
fn poison(m: &Machine, v: usize, what: &'static str) -> InterpError {
    let op = m.f.insts.get(crate::ir::Value(v as u32)).map(|i| i.op.mnemonic()).unwrap_or_default();
    InterpError::Poison { value: v as u32, op, what }
}
