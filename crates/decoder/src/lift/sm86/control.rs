//! Reconvergence and warp-synchronous instructions of sm_86 on the IR's convergence regions
//! (`isabridge_ir::ops::warp`):
//!
//! - `BSSY Bx, L` opens a region (its member mask goes to convergence barrier Bx, a per-warp
//!   mask register); `BSYNC Bx` joins it; `BREAK [!]P, Bx` takes the lanes where the guard and
//!   the predicate hold out of it; `BMOV.32.CLEAR Rd, Bx` / `BMOV.32 Bx, Rs` move the mask to
//!   and from a register (clearing Bx).
//! - `WARPSYNC m` waits for the unfinished lanes of `m` (a guarded one: the guarded lanes' `m`).
//! - `SHFL`, `VOTE`/`VOTEU`, `MATCH`, `REDUX` run on the lanes that are together (under the
//!   guard's ballot when guarded); `BAR.SYNC/ARV/RED` are the IR's barriers with id and thread
//!   count, and `B2R.RESULT` reads what the last `BAR.RED` gave.
//! - `CALL.REL` jumps to its target (the caller has put the return address, relative to the
//!   code's start, in a register); `RET.REL Rn, off` goes to the return site whose address
//!   `Rn + off` names ([`ret`]).
//! - `BRA` with a predicate operand, `BRA.DIV` / `BRA.CONV` (taken when the lanes together are
//!   not / are the mask operand's lanes) give branch conditions ([`branch_cond`]).

use super::{At, Cx, B0, BAR_RESULT};
use crate::lift::LiftError;
use crate::operand::{Operand, OperandKind, RegClass, SpecialReg};
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::int::{ICmp, IntOp};
use isabridge_ir::ops::lane::{LaneOp, ShflMode};
use isabridge_ir::ops::warp::{BarKind, ReduxKind, WarpOp};
use isabridge_ir::ops::Op;
use isabridge_ir::ir::Block;
use isabridge_ir::{Type, Value};
use std::collections::HashMap;

/// Lift `at` when it is a control or warp instruction.
pub(crate) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    Some(match name {
        "BSSY" => bssy(cx, at),
        "BSYNC" => bsync(cx, at),
        "BREAK" => brk(cx, at),
        "BMOV" => bmov(cx, at),
        "WARPSYNC" => warpsync(cx, at),
        "SHFL" => shfl(cx, at),
        "VOTE" | "VOTEU" => vote(cx, at),
        "MATCH" => matching(cx, at),
        "REDUX" => redux(cx, at),
        "BAR" => bar(cx, at),
        "B2R" => b2r(cx, at),
        _ => return None,
    })
}

/// The key of convergence barrier register Bn of an operand.
fn barrier_key(cx: &Cx, at: &At, op: &Operand) -> Result<u16, LiftError> {
    match barrier_num(op) {
        Some(n) => Ok(B0 + n),
        None => Err(cx.unsupported(at, &format!("convergence barrier operand {:?}", op.kind))),
    }
}

/// The number n of a convergence barrier operand Bn.
fn barrier_num(op: &Operand) -> Option<u16> {
    match op.kind {
        OperandKind::Field { ty: "OPR_BREG", value } if value < 16 => Some(value as u16),
        _ => None,
    }
}

/// The explicit operands in the order the reference disassembler prints them.
fn operands<'a>(at: &At<'a>) -> Vec<&'a Operand> {
    at.inst.explicit().collect()
}

fn is_pred(op: &Operand) -> bool {
    matches!(op.kind, OperandKind::Reg(r) if matches!(r.class, RegClass::P | RegClass::Up))
        || matches!(op.kind, OperandKind::Special { reg: SpecialReg::Pt | SpecialReg::Upt, .. })
}

/// The convergence barrier operand of `at`.
fn barrier_of(cx: &Cx, at: &At) -> Result<u16, LiftError> {
    let ops: Vec<&Operand> = at.inst.explicit().collect();
    for op in ops {
        if barrier_num(op).is_some() {
            return barrier_key(cx, at, op);
        }
    }
    Err(cx.unsupported(at, "no convergence barrier operand"))
}

fn no_guard(cx: &Cx, at: &At) -> Result<(), LiftError> {
    match cx.guard {
        Some(_) => Err(cx.unsupported(at, "a guarded convergence instruction")),
        None => Ok(()),
    }
}

fn mask_of_i32(cx: &mut Cx, v: Value) -> Value {
    let w = cx.b().conv(ConvOp::IToI { signed: false }, Type::I64, v);
    cx.b().bitcast(Type::Mask, w)
}

fn i32_of_mask(cx: &mut Cx, m: Value) -> Value {
    let w = cx.b().bitcast(Type::I64, m);
    cx.b().conv(ConvOp::IToI { signed: false }, Type::I32, w)
}

fn bssy(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    no_guard(cx, at)?;
    let key = barrier_of(cx, at)?;
    let r = cx.b().ins(Op::Warp(WarpOp::Open), &[], Some(Type::Mask));
    cx.wr(key, r);
    Ok(())
}

fn bsync(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    no_guard(cx, at)?;
    let key = barrier_of(cx, at)?;
    let r = cx.rd(key);
    cx.b().ins(Op::Warp(WarpOp::Join), &[r], None);
    Ok(())
}

/// BREAK: unguarded, the lanes here leave the region; guarded (or with a predicate operand),
/// only the lanes where both hold, which the lifter separates by a branch ([`guarded`]).
fn brk(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    barrier_of(cx, at)?;
    let saved = cx.guard;
    let mut cond = cx.guard;
    for op in operands(at) {
        if is_pred(op) {
            let p = cx.pred(at, op)?;
            cond = Some(match cond {
                Some(g) => cx.b().int(IntOp::And, Type::B1, &[g, p]),
                None => p,
            });
        }
    }
    cx.guard = cond;
    let r = guarded(cx, at, leave);
    cx.guard = saved;
    r
}

/// The running lanes leave the region of `at`'s convergence barrier.
fn leave(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let key = barrier_of(cx, at)?;
    let r = cx.rd(key);
    cx.b().ins(Op::Warp(WarpOp::Leave), &[r], None);
    Ok(())
}

fn bmov(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    no_guard(cx, at)?;
    let (d, s) = match operands(at).as_slice() {
        [d, s] => (*d, *s),
        _ => return Err(cx.unsupported(at, "BMOV operands")),
    };
    if let Ok(bd) = barrier_key(cx, at, d) {
        // BMOV.32 Bx, Rs
        let v = cx.word(at, s, 0)?;
        let m = mask_of_i32(cx, v);
        cx.wr(bd, m);
        return Ok(());
    }
    let bs = barrier_key(cx, at, s)?;
    if !at.has("32") {
        return Err(cx.unsupported(at, "BMOV other than .32"));
    }
    let m = cx.rd(bs);
    let v = i32_of_mask(cx, m);
    cx.def32(at, d, v)?;
    if at.has("CLEAR") {
        let z = cx.k(Type::Mask, 0);
        cx.wr(bs, z);
    }
    Ok(())
}

fn warpsync(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let src = *operands(at).first().ok_or_else(|| cx.unsupported(at, "WARPSYNC without a mask"))?;
    let v = cx.word(at, src, 0)?;
    let v = match cx.guard {
        Some(g) => {
            let z = cx.k32(0);
            cx.b().select(Type::I32, g, v, z)
        }
        None => v,
    };
    let m = mask_of_i32(cx, v);
    cx.b().ins(Op::Warp(WarpOp::Sync), &[m], None);
    Ok(())
}

/// Arguments plus the guard's ballot as the trailing mask when guarded.
fn with_mask(cx: &mut Cx, mut args: Vec<Value>) -> Vec<Value> {
    if let Some(m) = cx.guard_mask() {
        args.push(m);
    }
    args
}

fn shfl(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let mode = match at.one_of(&["IDX", "UP", "DOWN", "BFLY"]) {
        Some("IDX") => ShflMode::Idx,
        Some("UP") => ShflMode::Up,
        Some("DOWN") => ShflMode::Down,
        Some("BFLY") => ShflMode::Bfly,
        _ => return Err(cx.unsupported(at, "shuffle mode")),
    };
    // SHFL.mode Pd, Rd, Ra, b, c
    let [pd, rd, ra, b, c] = operands(at)[..] else { return Err(cx.unsupported(at, "SHFL operands")) };
    let a = cx.word(at, ra, 0)?;
    let b = cx.word(at, b, 0)?;
    let c = cx.word(at, c, 0)?;
    let args = with_mask(cx, vec![a, b, c]);
    let v = cx.b().lane(LaneOp::Shuffle(mode, false), Type::I32, &args);
    let ok = cx.b().lane(LaneOp::Shuffle(mode, true), Type::B1, &args);
    cx.def_pred(at, pd, ok)?;
    cx.def32(at, rd, v)
}

fn vote(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    // VOTE.mode Rd, Pd, [!]Ps (Rd RZ when not printed)
    let [rd, pd, ps] = operands(at)[..] else { return Err(cx.unsupported(at, "VOTE operands")) };
    let p = cx.pred(at, ps)?;
    let args = with_mask(cx, vec![p]);
    let reg = Some(rd);
    let flag = match at.one_of(&["ANY", "ALL", "EQ"]) {
        Some("ANY") => cx.b().lane(LaneOp::Any, Type::B1, &args),
        Some("ALL") => cx.b().lane(LaneOp::All, Type::B1, &args),
        Some("EQ") => cx.b().ins(Op::Warp(WarpOp::VoteEq), &args, Some(Type::B1)),
        _ => return Err(cx.unsupported(at, "vote mode")),
    };
    if let Some(r) = reg {
        // The ballot of the predicate over the lanes together.
        let m = cx.b().lane(LaneOp::Ballot, Type::Mask, &args);
        let v = i32_of_mask(cx, m);
        cx.def32(at, r, v)?;
    }
    cx.def_pred(at, pd, flag)
}

fn matching(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    // MATCH.ANY Rd, Ra / MATCH.ALL Pd, Rd, Ra
    let ops = operands(at);
    let preds: Vec<&Operand> = ops.iter().copied().filter(|o| is_pred(o)).collect();
    let regs: Vec<&Operand> = ops.iter().copied().filter(|o| !is_pred(o)).collect();
    let [rd, src] = regs[..] else { return Err(cx.unsupported(at, "MATCH operands")) };
    let a = if at.has("U64") { cx.src64(at, src)? } else { cx.word(at, src, 0)? };
    let args = with_mask(cx, vec![a]);
    if at.has("ANY") {
        let m = cx.b().ins(Op::Warp(WarpOp::MatchAny), &args, Some(Type::Mask));
        let v = i32_of_mask(cx, m);
        return cx.def32(at, rd, v);
    }
    if at.has("ALL") {
        let m = cx.b().ins(Op::Warp(WarpOp::MatchAll), &args, Some(Type::Mask));
        let v = i32_of_mask(cx, m);
        let zero = cx.k32(0);
        let all = cx.b().int(IntOp::Cmp(ICmp::Ne), Type::B1, &[v, zero]);
        if let Some(p) = preds.first() {
            cx.def_pred(at, p, all)?;
        }
        return cx.def32(at, rd, v);
    }
    Err(cx.unsupported(at, "match mode"))
}

/// REDUX: the combining op from the suffixes; no suffix is AND (fixtures/nvidia/src/warp.cu's
/// `redux.sync.and.b32` assembles to `REDUX` in listings/warp.sm86.txt, between `.MAX.S32` and
/// `.OR` in source order).
fn redux(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let signed = at.has("S32");
    let kind = match at.one_of(&["SUM", "MIN", "MAX", "OR", "XOR", "AND"]) {
        Some("SUM") => ReduxKind::Add,
        Some("MIN") if signed => ReduxKind::SMin,
        Some("MIN") => ReduxKind::UMin,
        Some("MAX") if signed => ReduxKind::SMax,
        Some("MAX") => ReduxKind::UMax,
        Some("OR") => ReduxKind::Or,
        Some("XOR") => ReduxKind::Xor,
        _ => ReduxKind::And,
    };
    let [d, s] = operands(at)[..] else { return Err(cx.unsupported(at, "REDUX operands")) };
    let a = cx.word(at, s, 0)?;
    let args = with_mask(cx, vec![a]);
    let v = cx.b().ins(Op::Warp(WarpOp::Redux(kind)), &args, Some(Type::I32));
    cx.def32(at, d, v)
}

/// BAR.SYNC id[, count], BAR.ARV id, count, BAR.RED.{POPC,AND,OR} id[, count], [!]P. The
/// reduction's result goes to a hidden register `B2R.RESULT` reads. Guarded, only the lanes
/// where the guard holds run it ([`guarded`]).
fn bar(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    guarded(cx, at, bar_unguarded)
}

/// Run `body` only on the lanes where the guard holds: a branch to a block of its own, after
/// which the lanes that were together before it wait for each other again
/// (`converge.sync` on their mask: not a region, so no `BREAK` taken meanwhile changes whom it
/// waits for). Unguarded, just `body`.
fn guarded(cx: &mut Cx, at: &At, body: fn(&mut Cx, &At) -> Result<(), LiftError>) -> Result<(), LiftError> {
    let Some(g) = cx.guard else { return body(cx, at) };
    let here = cx.b().lane(LaneOp::ActiveMask, Type::Mask, &[]);
    let yes = cx.f.add_block();
    let after = cx.f.add_block();
    cx.b().branch(g, yes, after);
    cx.block = yes;
    cx.guard = None;
    let r = body(cx, at);
    cx.guard = Some(g);
    r?;
    cx.b().jump(after);
    cx.block = after;
    cx.b().ins(Op::Warp(WarpOp::Sync), &[here], None);
    Ok(())
}

fn bar_unguarded(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let kind = if at.has("SYNC") {
        BarKind::Sync
    } else if at.has("ARV") {
        BarKind::Arrive
    } else if at.has("RED") {
        match at.one_of(&["POPC", "AND", "OR"]) {
            Some("POPC") => BarKind::RedPopc,
            Some("AND") => BarKind::RedAnd,
            Some("OR") => BarKind::RedOr,
            _ => return Err(cx.unsupported(at, "barrier reduction")),
        }
    } else {
        return Err(cx.unsupported(at, "barrier kind"));
    };
    let mut nums = Vec::new();
    let mut pred = None;
    for op in operands(at) {
        if is_pred(op) {
            pred = Some(cx.pred(at, op)?);
        } else {
            nums.push(cx.word(at, op, 0)?);
        }
    }
    let id = match nums.first() {
        Some(v) => *v,
        None => return Err(cx.unsupported(at, "barrier without an id")),
    };
    let count = match nums.get(1) {
        Some(v) => *v,
        None => cx.k32(0),
    };
    if kind.is_red() {
        let p = pred.ok_or_else(|| cx.unsupported(at, "barrier reduction without a predicate"))?;
        let ty = if kind == BarKind::RedPopc { Type::I32 } else { Type::B1 };
        let r = cx.b().ins(Op::Warp(WarpOp::Bar(kind)), &[id, count, p], Some(ty));
        let r = if ty == Type::B1 { cx.b1_to_i32(r) } else { r };
        cx.wr(BAR_RESULT, r);
    } else {
        cx.b().ins(Op::Warp(WarpOp::Bar(kind)), &[id, count], None);
    }
    Ok(())
}

/// B2R.RESULT Rd[, Pd]: the last barrier reduction's value (the count, or 1 / 0).
fn b2r(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    if !at.has("RESULT") {
        return Err(cx.unsupported(at, "B2R other than .RESULT"));
    }
    let v = cx.rd(BAR_RESULT);
    let dsts = operands(at);
    let Some(d) = dsts.first().copied() else { return Err(cx.unsupported(at, "B2R operands")) };
    cx.def32(at, d, v)?;
    if let Some(p) = dsts.get(1).copied() {
        let zero = cx.k32(0);
        let nz = cx.b().int(IntOp::Cmp(ICmp::Ne), Type::B1, &[v, zero]);
        cx.def_pred(at, p, nz)?;
    }
    Ok(())
}

/// The condition a branch adds to its guard: for `BRA.DIV` / `BRA.CONV`, whether the lanes
/// together differ from / equal the mask operand's lanes; for a predicate operand
/// (`@P0 BRA [!]P1, L`), that predicate: the branch is taken per lane where the guard and the
/// predicate both hold (the capture kernels show it: k_ddiv_rn's `@P0 BRA P1` skips the slow
/// path only when the quotient estimate and the divisor are both in range, k_div_rn's
/// `@!P1 BRA !P2` goes to the NaN result only when divisor and dividend are both infinite; the
/// H200 rows of both ops agree). None for a plain branch.
pub(crate) fn branch_cond(cx: &mut Cx, at: &At) -> Result<Option<Value>, LiftError> {
    let div = at.has("DIV");
    let conv = at.has("CONV");
    let mut cond = None;
    for op in operands(at) {
        if is_pred(op) {
            let p = cx.pred(at, op)?;
            cond = Some(match cond {
                Some(c) => cx.b().int(IntOp::And, Type::B1, &[c, p]),
                None => p,
            });
            continue;
        }
        if (div || conv) && !matches!(op.kind, OperandKind::Label(_)) {
            let v = cx.src_int(at, op)?;
            let want = mask_of_i32(cx, v);
            let here = cx.b().lane(LaneOp::ActiveMask, Type::Mask, &[]);
            let cmp = if div { ICmp::Ne } else { ICmp::Eq };
            let a = cx.b().bitcast(Type::I64, here);
            let b = cx.b().bitcast(Type::I64, want);
            let c = cx.b().int(IntOp::Cmp(cmp), Type::B1, &[a, b]);
            cond = Some(match cond {
                Some(p) => cx.b().int(IntOp::And, Type::B1, &[p, c]),
                None => c,
            });
        }
    }
    Ok(cond)
}

/// `RET.REL Rn, off`: go to the return site (the address after a direct call of the code,
/// `sites`) that `Rn + off` names (`indirect::jump`: the caller computed it, `MOV Rn, site`
/// before its `CALL`; an address no site is traps). A guarded return falls through to `fall`
/// where the guard is false.
pub(crate) fn ret(
    cx: &mut Cx,
    at: &At,
    base: u64,
    sites: &[u64],
    blocks: &HashMap<u64, Block>,
    fall: Block,
    exit: Block,
) -> Result<(), LiftError> {
    super::indirect::jump(cx, at, base, sites, blocks, fall, exit)
}
