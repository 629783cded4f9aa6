//! Control flow and reconvergence of sm_50 on the IR's convergence regions
//! (`isabridge_ir::ops::warp`):
//!
//! - `SSY L`, `PBK L`, `PCNT L` open a region (`converge.open`; its mask goes to the region's
//!   register), and the block at L starts with its `converge.join`.
//! - `SYNC`, `BRK`, `CONT` send the lanes that run them (under the guard) to the end of the
//!   region they pop, after leaving (`converge.leave`) the regions opened inside it that hold
//!   them; the lanes wait there at the join for the region's other lanes.
//! - `BRA L` jumps, `EXIT` ends the lane, `CAL L` pushes its return site on [`RET_STACK`] and
//!   jumps, `RET` pops the innermost site and goes there (to the exit when none is pending).
//! - Condition-code forms (`BRA CC.EQ`, `BRK CC.NE`, ...) are typed errors.

use super::{Layout, RegionKind, RET_STACK};
use crate::lift::sm86::{At, Cx};
use crate::lift::sm86::target;
use crate::lift::LiftError;
use crate::operand::OperandKind;
use isabridge_ir::ir::Block;
use isabridge_ir::ops::int::{ICmp, IntOp, ShiftRule};
use isabridge_ir::ops::warp::WarpOp;
use isabridge_ir::ops::Op;
use isabridge_ir::Type;

/// Lift `at` when it opens a reconvergence region.
pub(crate) fn lift(cx: &mut Cx, at: &At, name: &str, lay: &Layout) -> Option<Result<(), LiftError>> {
    matches!(name, "SSY" | "PBK" | "PCNT").then(|| open(cx, at, lay))
}

fn open(cx: &mut Cx, at: &At, lay: &Layout) -> Result<(), LiftError> {
    if cx.guard.is_some() {
        return Err(cx.unsupported(at, "a guarded reconvergence push"));
    }
    if at.inst.explicit().any(|o| !matches!(o.kind, OperandKind::Label(_))) {
        return Err(cx.unsupported(at, "a push whose target is not a direct address"));
    }
    let Some(r) = lay.regions.iter().find(|r| r.at == at.inst.addr) else {
        return Err(cx.unsupported(at, "no region for this push"));
    };
    let m = cx.b().ins(Op::Warp(WarpOp::Open), &[], Some(Type::Mask));
    cx.wr(r.key, m);
    Ok(())
}

/// The joins of the regions that end at `addr`, at the start of its block.
pub(crate) fn joins_at(cx: &mut Cx, lay: &Layout, addr: u64) {
    for r in lay.regions.iter().filter(|r| r.target == addr) {
        let m = cx.rd(r.key);
        cx.b().ins(Op::Warp(WarpOp::Join), &[m], None);
    }
}

/// Lift an instruction that ends a block (anything but fall-through flow).
pub(crate) fn terminator(cx: &mut Cx, at: &At, lay: &Layout) -> Result<(), LiftError> {
    let next = at.inst.addr + at.inst.len as u64;
    let fall = lay.blocks.get(&next).copied().unwrap_or(lay.exit);
    let labels_only = at.inst.explicit().all(|o| matches!(o.kind, OperandKind::Label(_)));
    if !labels_only || at.sfx.iter().any(|s| s.starts_with("CC") || s.starts_with("???")) {
        return Err(cx.unsupported(at, "a condition-code or register form of a branch"));
    }
    match at.inst.name {
        "EXIT" => {
            go(cx, lay.exit, fall, |_| {});
            Ok(())
        }
        "BRA" => {
            let t = target(at.inst).ok_or_else(|| cx.unsupported(at, "branch without a direct target"))?;
            let to = *lay.blocks.get(&t).ok_or_else(|| cx.unsupported(at, "branch target is not a block"))?;
            go(cx, to, fall, |_| {});
            Ok(())
        }
        "SYNC" | "BRK" | "CONT" => {
            let kind = match at.inst.name {
                "SYNC" => RegionKind::Sync,
                "BRK" => RegionKind::Break,
                _ => RegionKind::Cont,
            };
            let (r, inner) = lay.pop(kind, at.inst.addr).ok_or_else(|| cx.unsupported(at, "no region for this pop"))?;
            let to = *lay.blocks.get(&r.target).ok_or_else(|| cx.unsupported(at, "region end is not a block"))?;
            go(cx, to, fall, |cx| {
                for o in &inner {
                    let m = cx.rd(o.key);
                    cx.b().ins(Op::Warp(WarpOp::Leave), &[m], None);
                }
            });
            Ok(())
        }
        "CAL" => call(cx, at, lay),
        "RET" => ret(cx, at, lay, fall),
        _ => Err(cx.unsupported(at, "no lifter for this control instruction yet")),
    }
}

/// Jump to `to` where the guard holds (after `pre` there), else to `fall`.
fn go(cx: &mut Cx, to: Block, fall: Block, pre: impl FnOnce(&mut Cx)) {
    if let Some(g) = cx.guard {
        let take = cx.f.add_block();
        cx.b().branch(g, take, fall);
        cx.block = take;
        cx.guard = None;
    }
    pre(cx);
    cx.b().jump(to);
}

/// CAL L: push the return site's number, jump to L.
fn call(cx: &mut Cx, at: &At, lay: &Layout) -> Result<(), LiftError> {
    if cx.guard.is_some() {
        return Err(cx.unsupported(at, "a guarded call"));
    }
    let next = at.inst.addr + at.inst.len as u64;
    let n = lay.ret_sites.iter().position(|s| *s == next).ok_or_else(|| cx.unsupported(at, "no return site"))? as u32 + 1;
    let t = target(at.inst).ok_or_else(|| cx.unsupported(at, "call without a direct target"))?;
    let to = *lay.blocks.get(&t).ok_or_else(|| cx.unsupported(at, "call target is not a block"))?;
    let s = cx.rd(RET_STACK);
    let eight = cx.k32(8);
    let s = cx.b().int(IntOp::Shl(ShiftRule::Clamp), Type::I32, &[s, eight]);
    let k = cx.k32(n);
    let s = cx.b().int(IntOp::Or, Type::I32, &[s, k]);
    cx.wr(RET_STACK, s);
    cx.b().jump(to);
    Ok(())
}

/// RET: pop the innermost pending return site and go there; none pending ends the lane.
fn ret(cx: &mut Cx, _at: &At, lay: &Layout, fall: Block) -> Result<(), LiftError> {
    if let Some(g) = cx.guard {
        let take = cx.f.add_block();
        cx.b().branch(g, take, fall);
        cx.block = take;
        cx.guard = None;
    }
    let s = cx.rd(RET_STACK);
    let m = cx.k32(0xff);
    let n = cx.b().int(IntOp::And, Type::I32, &[s, m]);
    let eight = cx.k32(8);
    let rest = cx.b().int(IntOp::Shr(false, ShiftRule::Clamp), Type::I32, &[s, eight]);
    cx.wr(RET_STACK, rest);
    for (i, site) in lay.ret_sites.iter().enumerate() {
        let to = lay.blocks.get(site).copied().unwrap_or(lay.exit);
        let k = cx.k32(i as u32 + 1);
        let c = cx.b().int(IntOp::Cmp(ICmp::Eq), Type::I32, &[n, k]);
        let no = cx.f.add_block();
        cx.b().branch(c, to, no);
        cx.block = no;
    }
    cx.b().jump(lay.exit);
    Ok(())
}
