//! Control flow and reconvergence of sm_50 on the IR's convergence regions
//! (`isabridge_ir::ops::warp`):
//!
//! - `SSY L`, `PBK L`, `PCNT L` open a region (`converge.open`; its mask goes to the region's
//!   register), and the block at L starts with its `converge.join`.
//! - `SYNC`, `BRK`, `CONT` send the lanes that run them (under the guard) to the end of the
//!   region they pop, after leaving (`converge.leave`) the regions still open above it
//!   (`Layout::pop`); the lanes wait there at the join for the region's other lanes.
//! - `BRA L` jumps, `EXIT` ends the lane, `CAL L` pushes its return site on the per-lane
//!   return stack ([`RET_STACK`]) and jumps, `PRET L` pushes L as a return site (the call
//!   through a register that follows it returns there), `RET` pops the innermost site and goes
//!   there (to the exit when none is pending). A push onto a full stack traps.
//! - `BRX Rn, off` jumps per lane to the target `Rn + off` names among the ones ptxas recorded
//!   for it (`sm86::indirect`); without recorded targets it is a typed error.
//! - `BRA CC.cond, L` branches where the guard and the condition-code test hold (cc_ops.rs);
//!   the other condition-code forms (`BRK CC.NE`, `SYNC CC.*`, ...) are typed errors.

use super::{ret_stack_key, Layout, RegionKind, RET_STACK, RET_STACK_TRAP, RET_STACK_WORDS};
use isabridge_ir::ops::control::SyncOp;
use crate::lift::sm86::{At, Cx};
use crate::lift::sm86::target;
use crate::lift::LiftError;
use crate::operand::OperandKind;
use crate::spec::NvPiece;
use isabridge_ir::ir::Block;
use isabridge_ir::ops::int::{ICmp, IntOp, ShiftRule};
use isabridge_ir::ops::warp::WarpOp;
use isabridge_ir::ops::Op;
use isabridge_ir::{Type, Value};

/// Lift `at` when it opens a reconvergence region.
pub(crate) fn lift(cx: &mut Cx, at: &At, name: &str, lay: &Layout) -> Option<Result<(), LiftError>> {
    match name {
        "SSY" | "PBK" | "PCNT" => Some(open(cx, at, lay)),
        "PRET" => Some(pret(cx, at, lay)),
        _ => None,
    }
}

/// PRET L: push L as a return site.
fn pret(cx: &mut Cx, at: &At, lay: &Layout) -> Result<(), LiftError> {
    if cx.guard.is_some() {
        return Err(cx.unsupported(at, "a guarded PRET"));
    }
    let t = target(at.inst).ok_or_else(|| cx.unsupported(at, "PRET without a direct target"))?;
    let n = lay.ret_sites.iter().position(|s| *s == t).ok_or_else(|| cx.unsupported(at, "no return site"))? as u32 + 1;
    push(cx, n);
    Ok(())
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
    if at.inst.name == "BRX" && !at.sfx.iter().any(|s| s.starts_with("CC")) {
        let Some((_, t)) = lay.branch_targets.iter().find(|(a, _)| *a == at.inst.addr) else {
            return Err(cx.unsupported(at, "an indirect branch whose targets are not known"));
        };
        return crate::lift::sm86::indirect::jump(cx, at, lay.base, t, &lay.blocks, fall, lay.exit);
    }
    let cc_test = cc_test_name(at);
    if let (Some(t), "BRA") = (cc_test, at.inst.name) {
        let t = super::cc_ops::test(cx, at, t)?;
        cx.guard = Some(match cx.guard {
            Some(g) => cx.b().int(IntOp::And, Type::B1, &[g, t]),
            None => t,
        });
    }
    let labels_only = at.inst.explicit().all(|o| matches!(o.kind, OperandKind::Label(_)) || (cc_test.is_some() && o.field == "OPV"));
    if !labels_only || (cc_test.is_some() && at.inst.name != "BRA") || at.sfx.iter().any(|s| s.starts_with("CC") || s.starts_with("???")) {
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

/// The condition-code test a form names after `CC.` (`BRA CC.NEU, L`: NEU), from its template
/// literal or the field that follows it.
fn cc_test_name(at: &At) -> Option<&'static str> {
    let t = &crate::sm50::TABLES;
    let form = t.forms.get(at.d.enc as usize)?;
    let mut after_cc = false;
    for p in form.pieces() {
        match p {
            NvPiece::Lit(x) => {
                if let Some(i) = x.find("CC.") {
                    let rest = &x[i + 3..];
                    let name: &str = rest.split([',', ' ']).next().unwrap_or("");
                    if !name.is_empty() {
                        return ["EQ"].into_iter().find(|n| *n == name);
                    }
                    after_cc = true;
                }
            }
            NvPiece::Field(i) if after_cc => {
                let f = form.fields.get(i as usize)?;
                let v = at.inst.named(f.name())?;
                return t.operand_types.get(f.ty as usize)?.lookup(v as i64);
            }
            NvPiece::Field(_) => {}
        }
    }
    None
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
    push(cx, n);
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
    let n = pop(cx);
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

/// Push return site number `n` (1-based) on the return stack: every word shifts up eight bits,
/// taking the top byte of the word below; a lane whose deepest word's top byte is in use
/// traps first (the stack is full).
fn push(cx: &mut Cx, n: u32) {
    let last = cx.rd(ret_stack_key(RET_STACK_WORDS - 1));
    let top = cx.k32(0xff00_0000);
    let used = cx.b().int(IntOp::And, Type::I32, &[last, top]);
    let zero = cx.k32(0);
    let full = cx.b().int(IntOp::Cmp(ICmp::Ne), Type::B1, &[used, zero]);
    let trap = cx.f.add_block();
    let go = cx.f.add_block();
    cx.b().branch(full, trap, go);
    cx.block = trap;
    cx.b().ins(Op::Sync(SyncOp::Trap(RET_STACK_TRAP)), &[], None);
    cx.b().jump(go);
    cx.block = go;
    let eight = cx.k32(8);
    let twenty_four = cx.k32(24);
    let mut carry = cx.k32(n);
    for j in 0..RET_STACK_WORDS {
        let w = cx.rd(ret_stack_key(j));
        let out = cx.b().int(IntOp::Shr(false, ShiftRule::Clamp), Type::I32, &[w, twenty_four]);
        let w = cx.b().int(IntOp::Shl(ShiftRule::Clamp), Type::I32, &[w, eight]);
        let w = cx.b().int(IntOp::Or, Type::I32, &[w, carry]);
        cx.wr(ret_stack_key(j), w);
        carry = out;
    }
}

/// Pop the innermost return site number (0 when none is pending): every word shifts down
/// eight bits, taking the low byte of the word above.
fn pop(cx: &mut Cx) -> Value {
    let eight = cx.k32(8);
    let twenty_four = cx.k32(24);
    let low = cx.k32(0xff);
    let first = cx.rd(RET_STACK);
    let n = cx.b().int(IntOp::And, Type::I32, &[first, low]);
    for j in 0..RET_STACK_WORDS {
        let w = cx.rd(ret_stack_key(j));
        let w = cx.b().int(IntOp::Shr(false, ShiftRule::Clamp), Type::I32, &[w, eight]);
        let w = if j + 1 < RET_STACK_WORDS {
            let above = cx.rd(ret_stack_key(j + 1));
            let b = cx.b().int(IntOp::And, Type::I32, &[above, low]);
            let b = cx.b().int(IntOp::Shl(ShiftRule::Clamp), Type::I32, &[b, twenty_four]);
            cx.b().int(IntOp::Or, Type::I32, &[w, b])
        } else {
            w
        };
        cx.wr(ret_stack_key(j), w);
    }
    n
}
