//! Which reconvergence regions each `SYNC` / `BRK` / `CONT` pops and unwinds, from the
//! per-warp stack the code builds as it runs (Maxwell's SSY/PBK/PCNT tokens).
//!
//! On the hardware a pop is dynamic: `SYNC` (`BRK`, `CONT`) ends the innermost region of its
//! kind on the stack, and the tokens above it are unwound (the lanes that run the pop leave
//! those regions). Code ranges do not say which regions are open: ptxas places a break path
//! after the end of the region it breaks out of (`SSY L1; @!P0 SYNC; BRA L3; L1: ...; L3: BRK`,
//! where the `BRK` at L3 lies outside the range of the `SSY` yet runs inside its region).
//!
//! This pass follows every path from the entry and from every `CAL` target (a callee starts
//! with its own, empty, stack), pushing at each push and popping at each pop, and records at
//! each pop the region it ends and the regions above it. A region's target, reached by any
//! path, ends the regions ending there that are on top (the lifter joins them there). A pop
//! reached with stacks that disagree on what it pops is a typed error; a pop that no path
//! reaches with a region of its kind open (in a callee, a region its caller opened) is not
//! recorded, and the lifter takes the code-range rule for it.

use super::{Layout, RegionKind};
use crate::lift::sm86::target;
use crate::lift::LiftError;
use crate::operand::{Flow, Inst, OperandKind};
use crate::Decoded;
use std::collections::HashMap;

/// Open regions, innermost last, as indices into [`Layout::regions`].
type Stack = Vec<usize>;

/// Distinct stacks followed per instruction before the code is refused.
const MAX_STACKS: usize = 16;

/// For each pop (by address) reached with a region of its kind open: the region it ends and the
/// regions above it (innermost first), as indices into `lay.regions`.
pub(crate) fn pops(lay: &Layout, insts: &[(Inst, Decoded)], err: impl Fn(&Inst, &Decoded, &str) -> LiftError) -> Result<HashMap<u64, (usize, Vec<usize>)>, LiftError> {
    let index: HashMap<u64, usize> = insts.iter().enumerate().map(|(k, (i, _))| (i.addr, k)).collect();
    let region_at: HashMap<u64, usize> = lay.regions.iter().enumerate().map(|(k, r)| (r.at, k)).collect();
    let mut seen: Vec<Vec<Stack>> = vec![Vec::new(); insts.len()];
    let mut work: Vec<(usize, Stack)> = Vec::new();
    let mut out: HashMap<u64, (usize, Vec<usize>)> = HashMap::new();
    let mut clash: Vec<u64> = Vec::new();
    // Entry points: the code's start and every call target.
    let mut entries = vec![lay.base];
    entries.extend(insts.iter().filter(|(i, _)| i.flow == Flow::Call).filter_map(|(i, _)| target(i)));
    let arrive = |addr: u64, mut s: Stack, work: &mut Vec<(usize, Stack)>| {
        let Some(&k) = index.get(&addr) else { return };
        while s.last().is_some_and(|&r| lay.regions[r].target == addr) {
            s.pop();
        }
        work.push((k, s));
    };
    for e in entries {
        arrive(e, Vec::new(), &mut work);
    }
    while let Some((k, mut s)) = work.pop() {
        if seen[k].contains(&s) {
            continue;
        }
        let (i, d) = &insts[k];
        if seen[k].len() >= MAX_STACKS {
            return Err(err(i, d, "reconvergence regions open here differ between too many paths"));
        }
        seen[k].push(s.clone());
        let next = i.addr + i.len as u64;
        let guarded = i.guard.is_some();
        match (i.name, i.flow) {
            ("SSY" | "PBK" | "PCNT", _) => {
                if let Some(&r) = region_at.get(&i.addr) {
                    s.push(r);
                }
                arrive(next, s, &mut work);
            }
            ("SYNC" | "BRK" | "CONT", _) => {
                let kind = match i.name {
                    "SYNC" => RegionKind::Sync,
                    "BRK" => RegionKind::Break,
                    _ => RegionKind::Cont,
                };
                if guarded {
                    arrive(next, s.clone(), &mut work);
                }
                let Some(j) = s.iter().rposition(|&r| lay.regions[r].kind == kind) else { continue };
                let popped = s[j];
                let inner: Vec<usize> = s[j + 1..].iter().rev().copied().collect();
                match out.get(&i.addr) {
                    Some(prev) if *prev != (popped, inner.clone()) => clash.push(i.addr),
                    Some(_) => {}
                    None => {
                        out.insert(i.addr, (popped, inner));
                    }
                }
                s.truncate(j);
                arrive(lay.regions[popped].target, s, &mut work);
            }
            ("PRET", _) => {
                if let Some(t) = target(i) {
                    arrive(t, s.clone(), &mut work);
                }
                arrive(next, s, &mut work);
            }
            (_, Flow::Next | Flow::Call | Flow::IndirectCall) => arrive(next, s, &mut work),
            (_, Flow::Branch | Flow::CondBranch) => {
                let conditional = guarded || i.flow == Flow::CondBranch || i.explicit().any(|o| !matches!(o.kind, OperandKind::Label(_)));
                if let Some(t) = target(i) {
                    arrive(t, s.clone(), &mut work);
                }
                if conditional {
                    arrive(next, s, &mut work);
                }
            }
            (_, Flow::Indirect) => {
                if let Some((_, ts)) = lay.branch_targets.iter().find(|(a, _)| *a == i.addr) {
                    for t in ts {
                        arrive(*t, s.clone(), &mut work);
                    }
                }
                if guarded {
                    arrive(next, s, &mut work);
                }
            }
            (_, Flow::Return | Flow::End) => {
                if guarded {
                    arrive(next, s, &mut work);
                }
            }
        }
    }
    if let Some(a) = clash.first() {
        let (i, d) = &insts[index[a]];
        return Err(err(i, d, "a pop that ends different reconvergence regions on different paths"));
    }
    Ok(out)
}
