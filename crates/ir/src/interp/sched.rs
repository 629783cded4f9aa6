//! Scheduling of lane groups. Each wave starts as one group of all its lanes. A branch whose
//! condition differs between the lanes of a group splits it in two; groups merge again only at
//! a `converge.join` (or `converge.sync`, or a warp op given a member mask) once every lane it
//! waits for is there, as `ops::warp` defines. Ready groups run one block (or up to an instruction they
//! must wait at) at a time, oldest first. Barriers release when the threads waiting at them
//! (plus those that arrived without waiting) reach their count, or every unfinished thread of
//! the workgroup when the count is 0. Deterministic.

use super::{CBlock, CInst, InterpError, Machine};
use crate::ir::{Block, ExecModel, Terminator};
use crate::ops::control::SyncOp;
use crate::ops::warp::{BarKind, WarpOp};
use crate::ops::Op;

/// Named barriers a workgroup has.
const BARRIERS: usize = 16;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Wait {
    Ready,
    /// At a join point: the lanes it waits for (less those that left the region `target` names,
    /// when `region`), and the instruction index to go on at.
    Join { target: u64, region: bool, resume: u32 },
    /// At a barrier: id, expected thread count (0: the whole workgroup) and kind.
    Bar { id: u32, count: u32, kind: BarKind },
}

#[derive(Clone, Copy)]
struct Group {
    mask: u64,
    rank: u32,
    idx: u32,
    /// Just entered its block: the block's phis still have to run.
    fresh: bool,
    wait: Wait,
}

/// The lanes that left each region, by the region's member mask.
type Departures = Vec<(u64, u64)>;

fn departed(gone: &Departures, region: u64) -> u64 {
    gone.iter().filter(|(r, _)| *r == region).fold(0, |a, (_, l)| a | l)
}

/// What running one group for one block left.
struct Step {
    groups: [Option<Group>; 2],
    finished: u64,
}

/// Run every wave of the workgroup to the end, or with `only` = (wave, lanes) just those lanes
/// of that wave (a call: the lanes that called are all the callee's lanes).
pub(super) fn run_groups(m: &mut Machine, blocks: &[CBlock], rpo: &[Block], only: Option<(usize, u64)>) -> Result<(), InterpError> {
    let ws = m.ws;
    let waves = m.cfg.waves as usize;
    let full = if ws == 64 { u64::MAX } else { (1u64 << ws) - 1 };
    let start = |w: usize| match only {
        Some((cw, lanes)) if cw == w => lanes,
        Some(_) => 0,
        None => full,
    };
    let mut groups: Vec<Vec<Group>> = (0..waves)
        .map(|w| {
            let mask = start(w);
            if mask == 0 {
                return vec![];
            }
            vec![Group { mask, rank: 0, idx: 0, fresh: true, wait: Wait::Ready }]
        })
        .collect();
    let mut live: Vec<u64> = (0..waves).map(start).collect();
    let mut gone: Vec<Departures> = vec![Vec::new(); waves];
    let mut prev: Vec<Option<Block>> = vec![None; ws * waves];
    let mut arrived = [0u64; BARRIERS];
    let mut steps = 0u64;
    loop {
        for w in 0..waves {
            loop {
                let Some(gi) = groups[w].iter().position(|g| g.wait == Wait::Ready) else {
                    if release_joins(&mut groups[w], live[w], &mut gone[w]) {
                        continue;
                    }
                    break;
                };
                steps += 1;
                if steps > m.cfg.max_steps {
                    return Err(InterpError::StepLimit(m.cfg.max_steps));
                }
                let g = groups[w].remove(gi);
                let step = run_block(m, w, g, blocks, rpo, &mut prev, live[w], &mut gone[w], &mut arrived)?;
                live[w] &= !step.finished;
                groups[w].extend(step.groups.into_iter().flatten());
            }
        }
        if release_barriers(m, blocks, &mut groups, &live, &mut arrived) {
            continue;
        }
        if groups.iter().all(|g| g.is_empty()) {
            return Ok(());
        }
        return Err(InterpError::Deadlock);
    }
}

/// The OR over the group's lanes of a mask operand.
fn lanes_mask(m: &Machine, w: usize, mask: u64, arg: usize) -> u64 {
    let th = m.threads();
    let base = w * m.ws;
    (0..m.ws).filter(|l| mask >> l & 1 != 0).fold(0, |acc, l| acc | m.regs[arg * th + base + l])
}

/// The value of operand `arg` on the group's lowest lane.
fn first_lane(m: &Machine, w: usize, mask: u64, arg: usize) -> u64 {
    m.regs[arg * m.threads() + w * m.ws + mask.trailing_zeros() as usize]
}

#[allow(clippy::too_many_arguments)]
fn run_block(
    m: &mut Machine,
    w: usize,
    mut g: Group,
    blocks: &[CBlock],
    rpo: &[Block],
    prev: &mut [Option<Block>],
    live: u64,
    gone: &mut Departures,
    arrived: &mut [u64; BARRIERS],
) -> Result<Step, InterpError> {
    let lanes_model = m.f.model == ExecModel::Lanes;
    let cb = &blocks[g.rank as usize];
    if g.fresh && !cb.phis.is_empty() {
        m.phis(w, g.mask, cb, prev);
        m.late_phis(w, g.mask, &cb.phis, prev);
    }
    g.fresh = false;
    let mut i = g.idx as usize;
    while i < cb.insts.len() {
        let ci: &CInst = &cb.insts[i];
        if m.depth > 0 && m.cfg.waves > 1 && matches!(ci.op, Op::Sync(SyncOp::Barrier(_)) | Op::Warp(WarpOp::Bar(_))) {
            return Err(InterpError::Unsupported("a workgroup barrier in a called function of a workgroup of several waves"));
        }
        let wait = match &ci.op {
            Op::Sync(SyncOp::Barrier(_)) => Some(Wait::Bar { id: 0, count: 0, kind: BarKind::Sync }),
            Op::Warp(WarpOp::Bar(kind)) => {
                let id = (first_lane(m, w, g.mask, ci.args[0]) as usize % BARRIERS) as u32;
                let count = first_lane(m, w, g.mask, ci.args[1]) as u32;
                if *kind == BarKind::Arrive {
                    arrived[id as usize] += g.mask.count_ones() as u64;
                    None
                } else {
                    Some(Wait::Bar { id, count, kind: *kind })
                }
            }
            Op::Warp(WarpOp::Join) if lanes_model => {
                let target = lanes_mask(m, w, g.mask, ci.args[0]);
                let want = target & live & !departed(gone, target);
                (want & !g.mask != 0).then_some(Wait::Join { target, region: true, resume: i as u32 + 1 })
            }
            Op::Warp(WarpOp::Sync) if lanes_model => {
                let target = lanes_mask(m, w, g.mask, ci.args[0]);
                (target & live & !g.mask != 0).then_some(Wait::Join { target, region: false, resume: i as u32 + 1 })
            }
            Op::Warp(WarpOp::Leave) if lanes_model => {
                let region = lanes_mask(m, w, g.mask, ci.args[0]);
                gone.push((region, g.mask));
                None
            }
            _ => match ci.mask {
                Some(k) if lanes_model => {
                    let target = lanes_mask(m, w, g.mask, k);
                    (target & live & !g.mask != 0).then_some(Wait::Join { target, region: false, resume: i as u32 })
                }
                _ => None,
            },
        };
        if let Some(wait) = wait {
            g.idx = i as u32;
            g.wait = wait;
            return Ok(Step { groups: [Some(g), None], finished: 0 });
        }
        if matches!(ci.op, Op::Warp(WarpOp::Open)) {
            gone.retain(|(r, _)| *r != g.mask);
        }
        if !matches!(ci.op, Op::Warp(WarpOp::Bar(_) | WarpOp::Join | WarpOp::Sync | WarpOp::Leave)) {
            m.exec(w, g.mask, ci)?;
        }
        i += 1;
    }
    let th = m.threads();
    let base = w * m.ws;
    let blk = rpo[g.rank as usize];
    let go = |to: Block, mask: u64, prev: &mut [Option<Block>]| -> Group {
        for l in (0..m.ws).filter(|l| mask >> l & 1 != 0) {
            prev[base + l] = Some(blk);
        }
        Group { mask, rank: m.rank[to.index()], idx: 0, fresh: true, wait: Wait::Ready }
    };
    Ok(match &cb.term {
        Terminator::Jump(b) => Step { groups: [Some(go(*b, g.mask, prev)), None], finished: 0 },
        Terminator::Branch(c, tb, fb) => {
            m.late_use(w, g.mask, c.index(), "a branch condition")?;
            let taken = (0..m.ws)
                .filter(|l| g.mask >> l & 1 != 0 && m.regs[c.index() * th + base + l] & 1 != 0)
                .fold(0u64, |a, l| a | 1 << l);
            let not = g.mask & !taken;
            if !lanes_model && taken != 0 && not != 0 {
                return Err(InterpError::Divergent(g.rank));
            }
            let t = (taken != 0).then(|| go(*tb, taken, prev));
            let f = (not != 0).then(|| go(*fb, not, prev));
            Step { groups: [t, f], finished: 0 }
        }
        Terminator::Return(vals) => {
            for v in vals {
                m.late_use(w, g.mask, v.index(), "a returned value")?;
            }
            for l in (0..m.ws).filter(|l| g.mask >> l & 1 != 0) {
                let t = base + l;
                m.outputs[t] = vals.iter().map(|v| m.regs[v.index() * th + t]).collect();
            }
            Step { groups: [None, None], finished: g.mask }
        }
    })
}

/// Merge the groups waiting at a join point for the same lanes once every unfinished lane they
/// wait for is there (less those that left the region, for region joins). Groups at one point
/// that wait for different lanes are different joins: in recursive code (calls lifted as jumps
/// into the one function) an inner call's lanes meet at the join its region opened while lanes
/// of the outer call wait at the same instruction for a region that holds them.
fn release_joins(groups: &mut Vec<Group>, live: u64, gone: &mut Departures) -> bool {
    let mut released = false;
    let mut k = 0;
    while k < groups.len() {
        let Wait::Join { resume, target: lanes, region: of_region } = groups[k].wait else {
            k += 1;
            continue;
        };
        let at = (groups[k].rank, groups[k].idx);
        let here = |g: &Group| {
            matches!(g.wait, Wait::Join { target, region, .. } if target == lanes && region == of_region) && (g.rank, g.idx) == at
        };
        let union = groups.iter().filter(|g| here(g)).fold(0u64, |a, g| a | g.mask);
        let ready = groups.iter().filter(|g| here(g)).all(|g| match g.wait {
            Wait::Join { target, region, .. } => {
                let left = if region { departed(gone, target) } else { 0 };
                target & live & !left & !union == 0
            }
            _ => true,
        });
        if !ready {
            k += 1;
            continue;
        }
        // A released region is over: forget who left it.
        for g in groups.iter().filter(|g| here(g)) {
            if let Wait::Join { target, region: true, .. } = g.wait {
                gone.retain(|(r, _)| *r != target);
            }
        }
        groups.retain(|g| !here(g));
        groups.push(Group { mask: union, rank: at.0, idx: resume, fresh: false, wait: Wait::Ready });
        released = true;
        k = 0;
    }
    released
}

/// Release every barrier whose count is reached; bar.red results go to the waiting lanes.
fn release_barriers(m: &mut Machine, blocks: &[CBlock], groups: &mut [Vec<Group>], live: &[u64], arrived: &mut [u64; BARRIERS]) -> bool {
    let total: u64 = live.iter().map(|l| l.count_ones() as u64).sum();
    let th = m.threads();
    let mut released = false;
    for id in 0..BARRIERS as u32 {
        let mut waiting = 0u64;
        let mut count = 0u32;
        let mut pop = 0u64;
        for (w, gs) in groups.iter().enumerate() {
            for g in gs {
                if let Wait::Bar { id: i, count: c, kind } = g.wait {
                    if i == id {
                        waiting += g.mask.count_ones() as u64;
                        count = count.max(c);
                        if kind.is_red() {
                            let ci = &blocks[g.rank as usize].insts[g.idx as usize];
                            pop += (0..m.ws)
                                .filter(|l| g.mask >> l & 1 != 0 && m.regs[ci.args[2] * th + w * m.ws + l] & 1 != 0)
                                .count() as u64;
                        }
                    }
                }
            }
        }
        if waiting == 0 {
            continue;
        }
        let expected = if count == 0 { total } else { count as u64 };
        if waiting + arrived[id as usize] < expected {
            continue;
        }
        arrived[id as usize] = 0;
        released = true;
        for (w, gs) in groups.iter_mut().enumerate() {
            for g in gs.iter_mut() {
                let Wait::Bar { id: i, kind, .. } = g.wait else { continue };
                if i != id {
                    continue;
                }
                if kind.is_red() {
                    let ci = &blocks[g.rank as usize].insts[g.idx as usize];
                    let r = match kind {
                        BarKind::RedPopc => pop,
                        BarKind::RedAnd => (pop == waiting) as u64,
                        _ => (pop != 0) as u64,
                    };
                    for l in (0..m.ws).filter(|l| g.mask >> l & 1 != 0) {
                        m.regs[ci.v * th + w * m.ws + l] = r;
                    }
                }
                g.idx += 1;
                g.wait = Wait::Ready;
            }
        }
    }
    released
}
