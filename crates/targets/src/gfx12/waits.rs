//! gfx1201 wait insertion: the split memory counters (loadcnt, storecnt, samplecnt, bvhcnt,
//! kmcnt, dscnt, expcnt) recomputed by forward data flow over the CFG.
//!
//! [`insert_waits`] drops every counter wait of a gfx1201 instruction list (`s_wait_*cnt`,
//! the combined `s_wait_loadcnt_dscnt` / `s_wait_storecnt_dscnt`, and any `s_waitcnt*`) and
//! inserts the waits the code needs, computed the way LLVM's SIInsertWaitcnts pass works (as
//! its source and AMDGPUUsage.rst describe it; no code of it is used): every memory operation
//! is an event on one or more counters; each register it will write is marked with the
//! event's position on that counter; an instruction that reads or writes a marked register
//! first waits until that event has completed. The state is joined over the CFG (the later,
//! stricter event per register wins) and iterated to a fixed point over loops.
//!
//! Which counter an instruction increments ([`events`]), as LLVM's gfx12 counters are named
//! and used by its waitcnt pass (the RDNA4 ISA guide itself was not at hand):
//! - loadcnt: vector memory loads (global, scratch, buffer, image without sampler), atomics
//!   that return a value, `global_inv`;
//! - storecnt: vector memory stores and atomics without return, `global_wb` / `global_wbinv`;
//! - samplecnt: image sample, gather and the other VSAMPLE / MSAA forms;
//! - bvhcnt: `image_bvh*_intersect_ray`;
//! - kmcnt: scalar memory and messages (`s_load*`, `s_buffer_load*`, `s_sendmsg*`);
//! - dscnt: LDS (`ds_*`); a FLAT access may reach LDS or memory, so it counts on dscnt too;
//! - expcnt: exports and the LDS parameter / direct loads (`ds_param_load`,
//!   `ds_direct_load`; LLVM's gfx11 waitcnt syntax page: "EXP_CNT: export and LDSDIR count").
//!
//! Order: a counter's events of one kind complete in issue order, so a register waits for
//! "at most N outstanding" where N is the number of events issued after its own. Scalar
//! memory returns out of order (LLVM treats outstanding SMEM as out of order), so kmcnt waits
//! for 0; a FLAT access may go to LDS or to memory, so it is counted on both loadcnt/storecnt
//! and dscnt, and while one is outstanding those counters wait for 0: the order of its two
//! decrements is not derived here (LLVM 22 counts FLAT in order on both: the corpus's
//! flat_work waits `s_wait_loadcnt_dscnt 0x101` after three FLAT accesses); expcnt is in order while it holds only exports or only
//! attribute loads, and waits for 0 while it holds both (LLVM's mixed-events rule).
//! `v_interp_*` (VINTERP) waits for expcnt itself: its WAIT_EXP field is a count like
//! `s_wait_expcnt`'s, applied before it reads its sources.
//! A counter at its maximum stalls the next issue until its oldest event completes.
//!
//! Vector memory reads its address and data VGPRs at issue on gfx10 and later (LLVM tracks a
//! store's data registers only on gfx6, `VMW_GPR_LOCK`), so a store needs no wait before its
//! data registers are overwritten. Exports keep their VGPRs until expcnt says so: a write to
//! a VGPR an export may still read waits for expcnt 0.
//!
//! Ordering the registers do not show: before a barrier signal, a cache write-back or
//! invalidate, a message, an atomic, a call, a return and an indirect jump every outstanding
//! counter is waited to 0 (the original code's release fences were waits, which are dropped);
//! after an atomic or a cache invalidate the next memory instruction waits for every counter
//! (the original's acquire fences). Calls and indirect jumps therefore leave nothing
//! outstanding, so a function and every block reached only indirectly starts with nothing
//! outstanding. `s_endpgm` needs no wait (LLVM inserts none: the wave's stores complete after
//! it ends).

use super::TranslatedInst;
use isabridge_decoder::operand::{Flow, OperandKind, Part, RegClass, SpecialReg};
use isabridge_decoder::{Inst, Isa};

/// One of gfx1201's counters of outstanding operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Counter {
    /// Vector memory loads.
    Load = 0,
    /// Vector memory stores.
    Store = 1,
    /// Image samples.
    Sample = 2,
    /// BVH intersections.
    Bvh = 3,
    /// Scalar memory and messages.
    Km = 4,
    /// LDS.
    Ds = 5,
    /// Exports and attribute loads.
    Exp = 6,
}

/// Number of counters.
pub const COUNTERS: usize = 7;

impl Counter {
    /// Every counter, in index order.
    pub const ALL: [Counter; COUNTERS] =
        [Counter::Load, Counter::Store, Counter::Sample, Counter::Bvh, Counter::Km, Counter::Ds, Counter::Exp];

    /// The largest count the counter holds (the width of its wait field: 6 bits for
    /// loadcnt, storecnt, samplecnt and dscnt, 5 for kmcnt, 3 for bvhcnt and expcnt, as the
    /// gfx1201 decoder's wait lifter masks them).
    pub fn max(self) -> u32 {
        match self {
            Counter::Bvh | Counter::Exp => 7,
            Counter::Km => 31,
            _ => 63,
        }
    }

    /// Whether the counter's events may complete out of issue order whatever is outstanding
    /// (its waits are for 0).
    pub fn out_of_order(self) -> bool {
        self == Counter::Km
    }

    /// The assembler name (`loadcnt`).
    pub fn name(self) -> &'static str {
        ["loadcnt", "storecnt", "samplecnt", "bvhcnt", "kmcnt", "dscnt", "expcnt"][self as usize]
    }

    /// The SOPP opcode of the single-counter wait (`s_wait_loadcnt` is 64).
    fn opcode(self) -> u32 {
        [64, 65, 66, 67, 71, 70, 68][self as usize]
    }
}

/// A set of counters, bit `Counter as u8`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Counters(pub u8);

impl Counters {
    /// Whether `c` is in the set.
    pub fn has(self, c: Counter) -> bool {
        self.0 >> c as u8 & 1 != 0
    }
    fn with(self, c: Counter) -> Counters {
        Counters(self.0 | 1 << c as u8)
    }
}

/// What an instruction does to the counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Events {
    /// Counters it increments.
    pub counters: Counters,
    /// A FLAT access (counted on dscnt and loadcnt/storecnt, completing on one of them).
    pub flat: bool,
    /// The registers it writes are written when the event completes.
    pub writes_late: bool,
    /// An export: its VGPR sources are read until expcnt says so.
    pub reads_late: bool,
    /// A memory instruction (any vector or scalar memory, LDS or export access).
    pub memory: bool,
    /// Every counter is waited to 0 before it.
    pub fence_before: bool,
    /// The next memory instruction after it waits for every counter.
    pub fence_after: bool,
}

/// The counters a gfx1201 instruction increments and the ordering it needs (see the module
/// documentation for the sources).
pub fn events(inst: &Inst) -> Events {
    let n = inst.name;
    let mut e = Events::default();
    let atomic = n.contains("ATOMIC");
    // An atomic returns its old value only with TH_ATOMIC_RETURN (bit 0 of TH; the operand
    // model lists its data operand as read and written either way). LDS atomics say it by
    // name (`_RTN`) and list a destination only then.
    let returns = !atomic || inst.encoding == "ENC_VDS" || inst.named("TH").unwrap_or(0) & 1 != 0;
    let writes = returns && inst.defs().any(|o| slots(&o.kind).next().is_some());
    let vmem = |e: &mut Events, c: Counter| {
        e.counters = e.counters.with(c);
        e.memory = true;
        e.writes_late = writes;
    };
    match inst.encoding {
        "ENC_SMEM" => vmem(&mut e, Counter::Km),
        "ENC_VDS" => vmem(&mut e, Counter::Ds),
        "ENC_VDSDIR" => vmem(&mut e, Counter::Exp),
        "ENC_VEXPORT" => {
            vmem(&mut e, Counter::Exp);
            e.reads_late = true;
        }
        "ENC_VSAMPLE" => vmem(&mut e, Counter::Sample),
        "ENC_VIMAGE" if n.contains("BVH") => vmem(&mut e, Counter::Bvh),
        "ENC_VIMAGE" if n.contains("MSAA") => vmem(&mut e, Counter::Sample),
        "ENC_VGLOBAL" | "ENC_VSCRATCH" | "ENC_VBUFFER" | "ENC_VIMAGE" | "ENC_VFLAT" => {
            let load = writes || n.contains("LOAD") || n == "GLOBAL_INV";
            vmem(&mut e, if load { Counter::Load } else { Counter::Store });
            if inst.encoding == "ENC_VFLAT" {
                e.counters = e.counters.with(Counter::Ds);
                e.flat = true;
            }
            if matches!(n, "GLOBAL_INV" | "GLOBAL_WB" | "GLOBAL_WBINV") {
                e.fence_before = true;
                e.fence_after = true;
            }
        }
        "ENC_SOPP" | "ENC_SOP1" if n.starts_with("S_SENDMSG") => {
            vmem(&mut e, Counter::Km);
            e.fence_before = true;
        }
        _ => {}
    }
    if atomic {
        e.fence_before = true;
        e.fence_after = true;
    }
    if n.starts_with("S_BARRIER_SIGNAL") || n == "S_BARRIER" || n == "S_BARRIER_LEAVE" || n == "S_DCACHE_INV" {
        e.fence_before = true;
    }
    if !matches!(inst.flow, Flow::Next | Flow::Branch | Flow::CondBranch | Flow::End) {
        e.fence_before = true;
    }
    e
}

/// Whether `inst` is a counter wait this pass recomputes (`s_wait_alu`, `s_wait_idle`,
/// `s_wait_event` and `s_delay_alu` are not: they are hazards or explicit program intent).
pub fn is_counter_wait(inst: &Inst) -> bool {
    let n = inst.name;
    n.starts_with("S_WAITCNT") || (n.starts_with("S_WAIT_") && n.ends_with("CNT")) || n.ends_with("CNT_DSCNT")
}

/// Number of register slots the state tracks: 256 VGPRs, then 128 scalar codes.
pub const SLOTS: usize = 384;

/// The state slots (VGPRs `0..256`, scalar registers `256 + code` with gfx1201's operand
/// codes: VCC 106/107, TTMP 108.., M0 125, EXEC 126/127) an operand names.
pub fn slots(k: &OperandKind) -> impl Iterator<Item = usize> {
    let (first, count): (usize, usize) = match *k {
        OperandKind::Reg(r) => match r.class {
            RegClass::Vgpr => (r.first as usize, r.count as usize),
            RegClass::Sgpr => (256 + r.first as usize, r.count as usize),
            RegClass::Ttmp => (256 + 108 + r.first as usize, r.count as usize),
            _ => (0, 0),
        },
        OperandKind::Special { reg, part } => {
            let base = match reg {
                SpecialReg::Vcc => 256 + 106,
                SpecialReg::Exec => 256 + 126,
                SpecialReg::M0 => 256 + 125,
                _ => 0,
            };
            match (base, part) {
                (0, _) => (0, 0),
                (b, Part::Whole) => (b, if reg == SpecialReg::M0 { 1 } else { 2 }),
                (b, Part::Lo) => (b, 1),
                (b, Part::Hi) => (b + 1, 1),
            }
        }
        _ => (0, 0),
    };
    let end = (first + count).min(SLOTS);
    (first.min(end)..end).filter(move |_| count > 0)
}

/// Why waits could not be computed. Names the ISA, the address and the instruction.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WaitError {
    /// A branch targets an address no instruction of the list has.
    #[error("{isa} {addr:#x}: {name}: branch target {target:#x} is not an instruction of the function")]
    UnknownTarget {
        /// ISA (gfx1201).
        isa: Isa,
        /// Address of the branch.
        addr: u64,
        /// Its name.
        name: &'static str,
        /// The target it names.
        target: u64,
    },
}

/// The basic blocks of an instruction list: ranges of indices and successor blocks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blocks {
    /// Each block's instruction range `[start, end)`.
    pub ranges: Vec<(usize, usize)>,
    /// Each block's successors.
    pub succs: Vec<Vec<usize>>,
}

/// The branch target of an instruction (its label operand).
pub fn branch_target(inst: &Inst) -> Option<u64> {
    inst.operands.iter().find_map(|o| match o.kind {
        OperandKind::Label(t) => Some(t),
        _ => None,
    })
}

/// Splits `insts` into basic blocks. A label names a source address: it resolves to the first
/// instruction whose `src_addr` is that address or, when the source instruction there left
/// nothing (a dropped wait), the first one after it; `src_addr` grows along the list. Waits
/// inserted before an instruction take its source address, so a branch lands on them. Calls continue after themselves; returns,
/// indirect jumps and program ends have no successor.
pub fn blocks(insts: &[TranslatedInst]) -> Result<Blocks, WaitError> {
    // `src_addr` grows along the list: the first instruction at or after `a` by binary search.
    let first_at = |a: u64| Some(insts.partition_point(|t| t.src_addr < a)).filter(|&i| i < insts.len());
    let mut leader = vec![false; insts.len() + 1];
    if !insts.is_empty() {
        leader[0] = true;
    }
    let mut targets = vec![None; insts.len()];
    for (i, t) in insts.iter().enumerate() {
        if matches!(t.inst.flow, Flow::Branch | Flow::CondBranch) {
            let target = branch_target(&t.inst).unwrap_or(u64::MAX);
            let j = first_at(target).ok_or(WaitError::UnknownTarget {
                isa: t.inst.isa,
                addr: t.inst.addr,
                name: t.inst.name,
                target,
            })?;
            leader[j] = true;
            targets[i] = Some(j);
        }
        if t.inst.flow != Flow::Next {
            leader[i + 1] = true;
        }
    }
    let starts: Vec<usize> = (0..insts.len()).filter(|&i| leader[i]).collect();
    let mut block_of = vec![0usize; insts.len()];
    let mut ranges = Vec::with_capacity(starts.len());
    for (b, &s) in starts.iter().enumerate() {
        let e = starts.get(b + 1).copied().unwrap_or(insts.len());
        ranges.push((s, e));
        block_of[s..e].fill(b);
    }
    let succs = ranges
        .iter()
        .enumerate()
        .map(|(b, &(_, e))| {
            let last = e - 1;
            let next = (e < insts.len()).then_some(b + 1);
            let tgt = targets[last].map(|j| block_of[j]);
            match insts[last].inst.flow {
                Flow::Next | Flow::Call | Flow::IndirectCall => next.into_iter().collect(),
                Flow::Branch => tgt.into_iter().collect(),
                Flow::CondBranch => tgt.into_iter().chain(next).collect(),
                _ => Vec::new(),
            }
        })
        .collect();
    Ok(Blocks { ranges, succs })
}

/// Waits to insert before one instruction: per counter the count to wait for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaitSet(pub [Option<u8>; COUNTERS]);

impl WaitSet {
    const NONE: WaitSet = WaitSet([None; COUNTERS]);
    fn need(&mut self, c: Counter, n: u32) {
        let n = n.min(c.max()) as u8;
        let s = &mut self.0[c as usize];
        *s = Some(s.map_or(n, |o| o.min(n)));
    }
    /// Whether nothing is waited for.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(Option::is_none)
    }
}

/// The data-flow state: per counter the position of the newest event (`ub`), the position
/// up to which every event is known complete (`clear`), the newest FLAT event, and per
/// register the position of the newest event that writes it (exports: reads it).
#[derive(Clone, PartialEq, Eq)]
struct State {
    ub: [u32; COUNTERS],
    clear: [u32; COUNTERS],
    flat: [u32; COUNTERS],
    exp_kind: [u32; 2],
    write: Vec<[u32; COUNTERS]>,
    exp_read: Vec<u32>,
    fence: bool,
}

impl State {
    fn clean() -> State {
        State {
            ub: [0; COUNTERS],
            clear: [0; COUNTERS],
            flat: [0; COUNTERS],
            exp_kind: [0; 2],
            write: vec![[0; COUNTERS]; SLOTS],
            exp_read: vec![0; SLOTS],
            fence: false,
        }
    }

    fn ooo(&self, c: usize) -> bool {
        let e = Counter::Exp as usize;
        Counter::ALL[c].out_of_order()
            || self.flat[c] > self.clear[c]
            || (c == e && self.exp_kind.iter().all(|&k| k > self.clear[e]))
    }

    fn outstanding(&self, c: usize) -> bool {
        self.ub[c] > self.clear[c]
    }

    /// The wait that completes the event at position `s` on counter `c`, if it may be
    /// outstanding.
    fn wait_for(&self, c: usize, s: u32, out: &mut WaitSet) {
        if s > self.clear[c] {
            out.need(Counter::ALL[c], if self.ooo(c) { 0 } else { self.ub[c] - s });
        }
    }

    fn apply_wait(&mut self, w: &WaitSet) {
        for (c, n) in w.0.iter().enumerate() {
            let Some(n) = *n else { continue };
            if n == 0 {
                self.clear[c] = self.ub[c];
            } else if !self.ooo(c) {
                self.clear[c] = self.clear[c].max(self.ub[c].saturating_sub(n as u32));
            }
        }
    }

    fn wait_all(&self, out: &mut WaitSet) {
        for c in 0..COUNTERS {
            if self.outstanding(c) {
                out.need(Counter::ALL[c], 0);
            }
        }
    }

    /// The waits `inst` needs in this state; the state is then advanced past `inst` (waits
    /// first, then its events).
    fn step(&mut self, inst: &Inst, ev: &Events) -> WaitSet {
        let mut w = WaitSet::NONE;
        if inst.encoding == "ENC_VINTERP" {
            let mut own = WaitSet::NONE;
            own.need(Counter::Exp, inst.named("WAIT_EXP").unwrap_or(0) as u32);
            self.apply_wait(&own);
        }
        if ev.fence_before || (self.fence && ev.memory) {
            self.wait_all(&mut w);
            self.fence = false;
        }
        for o in &inst.operands {
            for s in slots(&o.kind) {
                if o.access.reads() || o.access.writes() {
                    for c in 0..COUNTERS {
                        self.wait_for(c, self.write[s][c], &mut w);
                    }
                }
                if o.access.writes() {
                    self.wait_for(Counter::Exp as usize, self.exp_read[s], &mut w);
                }
            }
        }
        self.apply_wait(&w);
        if inst.name == "S_WAIT_IDLE" {
            self.clear = self.ub;
        }
        for c in Counter::ALL {
            if !ev.counters.has(c) {
                continue;
            }
            let c = c as usize;
            self.ub[c] += 1;
            if !self.ooo(c) {
                self.clear[c] = self.clear[c].max(self.ub[c].saturating_sub(Counter::ALL[c].max()));
            }
            if ev.flat {
                self.flat[c] = self.ub[c];
            }
            if c == Counter::Exp as usize {
                self.exp_kind[ev.reads_late as usize] = self.ub[c];
            }
            let ub = self.ub[c];
            for o in &inst.operands {
                let late_write = ev.writes_late && o.access.writes();
                let late_read = ev.reads_late && o.access.reads() && matches!(o.kind, OperandKind::Reg(r) if r.class == RegClass::Vgpr);
                for s in slots(&o.kind) {
                    if late_write {
                        self.write[s][c] = ub;
                    }
                    if late_read {
                        self.exp_read[s] = ub;
                    }
                }
            }
        }
        if ev.fence_after {
            self.fence = true;
        }
        w
    }

    /// The state with positions rebased so that equal situations compare equal: per
    /// counter the events known complete are forgotten and positions count from the oldest
    /// that may be outstanding.
    fn normalized(&self) -> State {
        let mut n = State::clean();
        n.fence = self.fence;
        for c in 0..COUNTERS {
            let base = self.clear[c];
            if self.ub[c] == base {
                // Nothing outstanding: every position is at most `base`, so all become 0, as
                // in the clean state.
                continue;
            }
            let depth = (self.ub[c] - base).min(64);
            let shift = |s: u32| if s > base { (s - base).saturating_sub(self.ub[c] - base - depth).max(1) } else { 0 };
            n.ub[c] = depth;
            n.flat[c] = shift(self.flat[c]);
            if c == Counter::Exp as usize {
                n.exp_kind = self.exp_kind.map(shift);
            }
            for s in 0..SLOTS {
                n.write[s][c] = shift(self.write[s][c]);
            }
            if c == Counter::Exp as usize {
                for s in 0..SLOTS {
                    n.exp_read[s] = shift(self.exp_read[s]);
                }
            }
        }
        n
    }

    /// Joins `o` into `self` (both normalized): per counter the deeper outstanding count and
    /// per register the newer event.
    fn join(&mut self, o: &State) {
        self.fence |= o.fence;
        for c in 0..COUNTERS {
            if self.ub[c] == 0 && o.ub[c] == 0 {
                // Nothing outstanding on either side: every position is 0 on both.
                self.clear[c] = 0;
                continue;
            }
            let ub = self.ub[c].max(o.ub[c]);
            let (da, db) = (ub - self.ub[c], ub - o.ub[c]);
            let lift = |s: u32, d: u32| if s > 0 { s + d } else { 0 };
            self.flat[c] = lift(self.flat[c], da).max(lift(o.flat[c], db));
            if c == Counter::Exp as usize {
                for k in 0..2 {
                    self.exp_kind[k] = lift(self.exp_kind[k], da).max(lift(o.exp_kind[k], db));
                }
            }
            for s in 0..SLOTS {
                self.write[s][c] = lift(self.write[s][c], da).max(lift(o.write[s][c], db));
            }
            if c == Counter::Exp as usize {
                for s in 0..SLOTS {
                    self.exp_read[s] = lift(self.exp_read[s], da).max(lift(o.exp_read[s], db));
                }
            }
            self.ub[c] = ub;
            self.clear[c] = 0;
        }
    }
}

/// The waits each instruction of `insts` needs, computed to a fixed point over the CFG
/// (counter waits already in `insts` are ignored).
pub fn compute_waits(insts: &[TranslatedInst]) -> Result<Vec<WaitSet>, WaitError> {
    let g = blocks(insts)?;
    let evs: Vec<Events> = insts.iter().map(|t| events(&t.inst)).collect();
    let nb = g.ranges.len();
    let mut ins: Vec<Option<State>> = vec![None; nb];
    let mut work: Vec<usize> = Vec::new();
    let mut queued = vec![false; nb];
    let seed = |b: usize, ins: &mut Vec<Option<State>>, work: &mut Vec<usize>, queued: &mut Vec<bool>| {
        ins[b] = Some(State::clean());
        work.push(b);
        queued[b] = true;
    };
    if nb > 0 {
        seed(0, &mut ins, &mut work, &mut queued);
    }
    loop {
        while let Some(b) = work.pop() {
            queued[b] = false;
            let Some(mut st) = ins[b].clone() else { continue };
            let (s, e) = g.ranges[b];
            for i in s..e {
                if !is_counter_wait(&insts[i].inst) {
                    st.step(&insts[i].inst, &evs[i]);
                }
            }
            let out = st.normalized();
            for &t in g.succs[b].iter().rev() {
                let new = match &ins[t] {
                    None => out.clone(),
                    Some(old) => {
                        let mut j = old.clone();
                        j.join(&out);
                        j.normalized()
                    }
                };
                if ins[t].as_ref() != Some(&new) {
                    ins[t] = Some(new);
                    if !queued[t] {
                        queued[t] = true;
                        work.push(t);
                    }
                }
            }
        }
        // Blocks reached only through indirect jumps start with nothing outstanding (every
        // indirect transfer waits for all counters first).
        match ins.iter().position(Option::is_none) {
            Some(b) => seed(b, &mut ins, &mut work, &mut queued),
            None => break,
        }
    }
    let mut waits = vec![WaitSet::NONE; insts.len()];
    for (b, &(s, e)) in g.ranges.iter().enumerate() {
        let mut st = ins[b].clone().unwrap_or_else(State::clean);
        for i in s..e {
            if !is_counter_wait(&insts[i].inst) {
                waits[i] = st.step(&insts[i].inst, &evs[i]);
            }
        }
    }
    Ok(waits)
}

/// The gfx1201 wait instructions for `w`: loadcnt and dscnt together as
/// `s_wait_loadcnt_dscnt` (loadcnt in bits 13:8, dscnt in 5:0), storecnt and dscnt as
/// `s_wait_storecnt_dscnt` when loadcnt is not waited for, each other counter on its own.
/// `addr` becomes each instruction's address.
pub fn wait_insts(w: &WaitSet, addr: u64) -> Vec<Inst> {
    let p = Isa::Gfx1201.plugin();
    let mut words = Vec::new();
    let get = |c: Counter| w.0[c as usize].map(u32::from);
    let ds = get(Counter::Ds);
    let mut ds_done = ds.is_none();
    for c in Counter::ALL {
        let Some(n) = get(c) else { continue };
        match c {
            Counter::Load if !ds_done => {
                words.push(0xbf80_0000 | 72 << 16 | n << 8 | ds.unwrap_or(0));
                ds_done = true;
            }
            Counter::Store if !ds_done => {
                words.push(0xbf80_0000 | 73 << 16 | n << 8 | ds.unwrap_or(0));
                ds_done = true;
            }
            Counter::Ds if ds_done => {}
            _ => words.push(0xbf80_0000 | c.opcode() << 16 | n),
        }
    }
    words
        .into_iter()
        .filter_map(|word| {
            let d = p.decode(&word.to_le_bytes(), addr).ok()?;
            Some(p.operands(&d, addr))
        })
        .collect()
}

/// `insts` with every counter wait dropped and the waits [`compute_waits`] finds inserted
/// before the instructions that need them (an inserted wait takes the address and source
/// address of the instruction it precedes, so branches to that instruction land on it).
pub fn insert_waits(insts: &[TranslatedInst]) -> Result<Vec<TranslatedInst>, WaitError> {
    let waits = compute_waits(insts)?;
    let mut out = Vec::with_capacity(insts.len() + insts.len() / 4);
    for (t, w) in insts.iter().zip(&waits) {
        if is_counter_wait(&t.inst) {
            continue;
        }
        for inst in wait_insts(w, t.inst.addr) {
            out.push(TranslatedInst { inst, src_addr: t.src_addr });
        }
        out.push(t.clone());
    }
    Ok(out)
}
