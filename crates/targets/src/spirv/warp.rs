//! Warp-synchronous operations of lanes-model functions (NVIDIA SHFL, VOTE, activemask, MATCH,
//! REDUX) in SPIR-V, through the wave model's Workgroup exchange (`super::wave`): one invocation
//! per lane, one workgroup per warp of 32, any subgroup size.
//!
//! Which lanes take part: a lanes-model function runs each lane's own control flow, so the IR's
//! group (the lanes running together, `ops::warp`) is the set of invocations of the workgroup
//! that reach the same exchange. Each exchange first takes a roll call: every invocation that
//! reaches it marks its slot of a presence array with the exchange counter (a per-invocation
//! count of the exchanges it took part in, equal on the invocations that meet at one) and the
//! op, in the same exchange as the op's operand (one workgroup barrier, `Em::publish_at`); the
//! lanes whose mark equals the reader's are the group. A run of shuffles, votes, matches and
//! reductions of one block shares one roll call and one barrier (`super::exchange_batch`). A
//! lane that finished (returned) or never started marks nothing (the preamble clears every
//! slot). A member mask narrows the group as the IR defines it (the op runs on the group's
//! lanes in the mask; the rest of the group reads 0 for a per-lane result).
//!
//! The exchange needs every unfinished invocation of the workgroup to reach it (workgroup
//! barriers): code where lanes that have not finished take different paths to a warp op (a
//! divergent warp op), or a warp op whose group is not all unfinished lanes, is outside what
//! this runs exactly. The capture kernels' warp ops follow an early exit only. A warp size
//! other than 32 is a typed error; native subgroup operations (a device whose subgroups are 32
//! wide) are not emitted yet.

use super::emit::{internal, unsupported, Em, EmitError};
use isabridge_ir::ir::{Function, Value};
use isabridge_ir::ops::lane::{LaneOp, ShflMode};
use isabridge_ir::ops::warp::WarpOp;
use isabridge_ir::types::Type;
use isabridge_ir::Op;
use rspirv::spirv::Word;

/// The exchange array that holds the presence marks.
const MARKS: u32 = 2;

/// Whether lanes-model function `f` has an op that exchanges values between lanes.
pub(super) fn exchanges(f: &Function) -> bool {
    f.layout.iter().flat_map(|&b| f.blocks[b].insts.iter()).any(|&v| match f.insts[v].op {
        Op::Lane(lo) => !matches!(lo, LaneOp::LaneId | LaneOp::WaveSize) && !only_convergence(f, v) && !super::lane_mask::own_bit_only(f, v),
        Op::Warp(w) => w.takes_member_mask() || matches!(w, WarpOp::Bar(k) if k.is_red()),
        _ => false,
    })
}

/// Whether every use of `v` is a convergence op (`converge.join/leave/sync`): those wait and
/// take no part in what a lane computes here, so such a value (the active mask a `WARPSYNC`
/// waits on) is never observed.
fn only_convergence(f: &Function, v: Value) -> bool {
    for &b in &f.layout {
        for &u in &f.blocks[b].insts {
            if f.insts[u].args.contains(&v) && !matches!(f.insts[u].op, Op::Warp(WarpOp::Join | WarpOp::Leave | WarpOp::Sync)) {
                return false;
            }
        }
        if f.blocks[b].term.uses().contains(&v) {
            return false;
        }
    }
    true
}

impl Em<'_> {
    /// Clear this lane's presence mark (the preamble, before any invocation returns).
    pub(super) fn warp_preamble(&mut self) -> Result<(), EmitError> {
        if self.wave.as_ref().and_then(|w| w.epoch).is_none() {
            return Ok(());
        }
        self.clear_slot(MARKS)
    }

    /// The roll call at the op of value `site`: the mask (u64) of the lanes that reach this
    /// exchange there.
    pub(super) fn present(&mut self, site: Value) -> Result<Word, EmitError> {
        self.present_with(site, &[])
    }

    /// The roll call at the op of value `site` ([`Em::present`]), publishing this lane's
    /// words (u64) in exchange arrays 0.. with the mark in the same exchange, for the op's
    /// [`Em::fetch`]es.
    pub(super) fn present_with(&mut self, site: Value, vals: &[Word]) -> Result<Word, EmitError> {
        let words: Vec<(u32, Word)> = vals.iter().enumerate().map(|(k, &v)| (k as u32, v)).collect();
        self.roll_call(site, words)
    }

    /// The roll call at the op of value `site` ([`Em::present`]), publishing this lane's
    /// words (u64) in the exchange arrays named, with the mark in the same exchange.
    fn roll_call(&mut self, site: Value, mut words: Vec<(u32, Word)>) -> Result<Word, EmitError> {
        let Some(epoch) = self.wave.as_ref().and_then(|w| w.epoch) else {
            return Err(internal("a warp exchange without its counter"));
        };
        let e = self.b.load(self.t_u32, None, epoch, None, []).map_err(internal)?;
        // The mark: the counter in the high word, the op in the low one (lanes at another op
        // are in another group).
        let e64 = self.b.u_convert(self.t_u64, None, e).map_err(internal)?;
        let k32 = self.wc64(32)?;
        let hi = self.b.shift_left_logical(self.t_u64, None, e64, k32).map_err(internal)?;
        let at = self.wc64(site.0 as u64)?;
        let e64 = self.b.bitwise_or(self.t_u64, None, hi, at).map_err(internal)?;
        words.push((MARKS, e64));
        self.publish_at(&words)?;
        let tb = self.ty(Type::B1)?;
        let (zero, one) = (self.wc64(0)?, self.wc64(1)?);
        let acc = self.lane_loop(self.ws(), zero, |em, i, acc| {
            let w = em.fetch(MARKS, i)?;
            let here = em.b.i_equal(tb, None, w, e64).map_err(internal)?;
            let sh = em.b.u_convert(em.t_u64, None, i).map_err(internal)?;
            let bit = em.b.shift_left_logical(em.t_u64, None, one, sh).map_err(internal)?;
            let add = em.b.select(em.t_u64, None, here, bit, zero).map_err(internal)?;
            let a = em.b.load(em.t_u64, None, acc, None, []).map_err(internal)?;
            let a = em.b.bitwise_or(em.t_u64, None, a, add).map_err(internal)?;
            em.b.store(acc, a, None, []).map_err(internal)
        })?;
        let next = self.wc32(1)?;
        let e1 = self.b.i_add(self.t_u32, None, e, next).map_err(internal)?;
        self.b.store(epoch, e1, None, []).map_err(internal)?;
        Ok(acc)
    }

    /// The lanes an op with `arity` fixed operands runs on: the group, narrowed by the member
    /// mask operand when there is one.
    /// `vals` are published with the roll call ([`Em::present_with`]).
    /// A member of a batch (`super::exchange_batch`) takes the batch's roll call, which its
    /// first op takes with every member's operand.
    fn warp_group(&mut self, site: Value, args: &[Value], arity: usize, vals: &[Word]) -> Result<Word, EmitError> {
        let group = match self.batch_member(site) {
            None => self.present_with(site, vals)?,
            Some(m) if m.first == site => {
                let members = self.wave.as_ref().and_then(|w| w.batches.batches.get(&site)).cloned().unwrap_or_default();
                let mut words = Vec::with_capacity(members.len());
                for (k, &u) in members.iter().enumerate() {
                    let x = self.f.insts[u].args[0];
                    words.push((super::exchange_batch::array_of(k as u32), self.word_of(x)?));
                }
                let g = self.roll_call(site, words)?;
                if let Some(w) = self.wave.as_mut() {
                    w.batch_group = Some(g);
                }
                g
            }
            Some(_) => self.wave.as_ref().and_then(|w| w.batch_group).ok_or_else(|| internal("a batched exchange before its batch's first"))?,
        };
        match args.get(arity) {
            Some(&m) => {
                let mw = self.word_of(m)?;
                self.b.bitwise_and(self.t_u64, None, group, mw).map_err(internal)
            }
            None => Ok(group),
        }
    }

    /// The batch op `v` is a member of, if any.
    fn batch_member(&self, v: Value) -> Option<super::exchange_batch::Member> {
        self.wave.as_ref().and_then(|w| w.batches.members.get(&v)).copied()
    }

    /// The exchange array op `v` publishes its operand in: its batch member's, else 0.
    fn operand_array(&self, v: Value) -> u32 {
        self.batch_member(v).map_or(0, |m| m.array)
    }

    /// Emit a warp op of a lanes-model function; false when `v` is not one.
    pub(super) fn warp_inst(&mut self, v: Value) -> Result<bool, EmitError> {
        let data = &self.f.insts[v];
        let (op, args, ty) = (data.op.clone(), data.args.clone(), data.ty);
        let text = op.mnemonic();
        match op {
            Op::Int(io) if self.is_mask_int(&args, ty) => self.mask_int(v, io, &args, ty)?,
            Op::Lane(lo) => {
                let t = ty.ok_or_else(|| internal("lane op without a type"))?;
                if self.ws() != 32 {
                    return Err(unsupported(self.cur_ir, v.0, text, "warp ops of lanes-model functions whose warp is not 32 lanes"));
                }
                let r = match lo {
                    LaneOp::ActiveMask => {
                        let m = if only_convergence(self.f, v) { self.wc64(0)? } else { self.present(v)? };
                        self.value_of_word(m, t)?
                    }
                    LaneOp::LaneId | LaneOp::WaveSize => {
                        let all = self.full_mask()?;
                        self.lane_op(v, lo, &args, t, all)?
                    }
                    LaneOp::Shuffle(mode, pred) => self.shuffle(v, &args, t, mode, pred)?,
                    LaneOp::Ballot if super::lane_mask::own_bit_only(self.f, v) => self.own_bit(args[0])?,
                    LaneOp::Ballot | LaneOp::All | LaneOp::Any | LaneOp::ReadLane | LaneOp::ReadFirstLane => {
                        // The operand `lane_op` publishes goes with the roll call.
                        let x = self.word_of(args[0])?;
                        let group = self.warp_group(v, &args, lo.arity(), &[x])?;
                        if let Some(w) = self.wave.as_mut() {
                            w.prepublished = true;
                        }
                        self.lane_op(v, lo, &args, t, group)?
                    }
                    _ => return Err(unsupported(self.cur_ir, v.0, text, "AMD lane permutes in lanes-model functions")),
                };
                self.define(v, r)?;
            }
            Op::Warp(w @ (WarpOp::VoteEq | WarpOp::MatchAny | WarpOp::MatchAll | WarpOp::Redux(_))) => {
                let t = ty.ok_or_else(|| internal("warp op without a type"))?;
                let r = self.warp_value(v, w, &args, t)?;
                self.define(v, r)?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// `shfl` (`ops::lane::shfl_source`): the source lane's operand 0, or with `pred` whether
    /// the source is in range; lanes outside the member mask read 0.
    fn shuffle(&mut self, v: Value, args: &[Value], t: Type, mode: ShflMode, pred: bool) -> Result<Word, EmitError> {
        let x = self.word_of(args[0])?;
        let group = self.warp_group(v, args, 3, &[x])?;
        let (u, tb) = (self.t_u32, self.ty(Type::B1)?);
        let lane = self.lane()?;
        let b = self.get(args[1])?;
        let b = self.low_u32(args[1], b)?;
        let c = self.get(args[2])?;
        let c = self.low_u32(args[2], c)?;
        let (k31, k8) = (self.wc32(31)?, self.wc32(8)?);
        let bb = &mut self.b;
        let b5 = bb.bitwise_and(u, None, b, k31).map_err(internal)?;
        let clamp = bb.bitwise_and(u, None, c, k31).map_err(internal)?;
        let seg = bb.shift_right_logical(u, None, c, k8).map_err(internal)?;
        let seg = bb.bitwise_and(u, None, seg, k31).map_err(internal)?;
        let nseg = bb.not(u, None, seg).map_err(internal)?;
        let min = bb.bitwise_and(u, None, lane, seg).map_err(internal)?;
        let cl = bb.bitwise_and(u, None, clamp, nseg).map_err(internal)?;
        let max = bb.bitwise_or(u, None, min, cl).map_err(internal)?;
        let (j, ok) = match mode {
            ShflMode::Up => {
                let j = bb.i_sub(u, None, lane, b5).map_err(internal)?;
                (j, bb.s_greater_than_equal(tb, None, j, max).map_err(internal)?)
            }
            ShflMode::Down | ShflMode::Bfly | ShflMode::Idx => {
                let j = match mode {
                    ShflMode::Down => bb.i_add(u, None, lane, b5),
                    ShflMode::Bfly => bb.bitwise_xor(u, None, lane, b5),
                    _ => {
                        let lo = bb.bitwise_and(u, None, b5, nseg).map_err(internal)?;
                        bb.bitwise_or(u, None, min, lo)
                    }
                }
                .map_err(internal)?;
                (j, bb.u_less_than_equal(tb, None, j, max).map_err(internal)?)
            }
        };
        let src = self.b.select(u, None, ok, j, lane).map_err(internal)?;
        let r = if pred {
            let (one, zero) = (self.wc64(1)?, self.wc64(0)?);
            self.b.select(self.t_u64, None, ok, one, zero).map_err(internal)?
        } else {
            let k = self.operand_array(v);
            self.fetch(k, src)?
        };
        let on = self.mask_bit(group, lane)?;
        let z = self.wc64(0)?;
        let r = self.b.select(self.t_u64, None, on, r, z).map_err(internal)?;
        self.value_of_word(r, t)
    }

    /// `vote.eq`, `match.any/all`, `redux.*` as `interp::warp` defines them, on the group.
    fn warp_value(&mut self, v: Value, w: WarpOp, args: &[Value], t: Type) -> Result<Word, EmitError> {
        let x = self.word_of(args[0])?;
        let group = self.warp_group(v, args, 1, &[x])?;
        let tb = self.ty(Type::B1)?;
        let (u64t, zero) = (self.t_u64, self.wc64(0)?);
        let lane = self.lane()?;
        let arr = self.operand_array(v);
        let mine = self.fetch(arr, lane)?;
        let r = match w {
            WarpOp::VoteEq => {
                // Equal on every lane: no lane of the group differs from this lane's bit.
                let one = self.wc64(1)?;
                let my = self.b.bitwise_and(u64t, None, mine, one).map_err(internal)?;
                // 1 while every lane so far agrees.
                self.lane_loop(self.ws(), one, |em, i, same| {
                    let on = em.mask_bit(group, i)?;
                    let xi = em.fetch(arr, i)?;
                    let bi = em.b.bitwise_and(u64t, None, xi, one).map_err(internal)?;
                    let eq = em.b.i_equal(tb, None, bi, my).map_err(internal)?;
                    let off = em.b.logical_not(tb, None, on).map_err(internal)?;
                    let ok = em.b.logical_or(tb, None, off, eq).map_err(internal)?;
                    let s = em.b.load(u64t, None, same, None, []).map_err(internal)?;
                    let s = em.b.select(u64t, None, ok, s, zero).map_err(internal)?;
                    em.b.store(same, s, None, []).map_err(internal)
                })?
            }
            WarpOp::MatchAny | WarpOp::MatchAll => {
                let one = self.wc64(1)?;
                let eqm = self.lane_loop(self.ws(), zero, |em, i, eqm| {
                    let on = em.mask_bit(group, i)?;
                    let xi = em.fetch(arr, i)?;
                    let eq = em.b.i_equal(tb, None, xi, mine).map_err(internal)?;
                    let take = em.b.logical_and(tb, None, on, eq).map_err(internal)?;
                    let sh = em.b.u_convert(u64t, None, i).map_err(internal)?;
                    let bit = em.b.shift_left_logical(u64t, None, one, sh).map_err(internal)?;
                    let add = em.b.select(u64t, None, take, bit, zero).map_err(internal)?;
                    let m = em.b.load(u64t, None, eqm, None, []).map_err(internal)?;
                    let m = em.b.bitwise_or(u64t, None, m, add).map_err(internal)?;
                    em.b.store(eqm, m, None, []).map_err(internal)
                })?;
                if w == WarpOp::MatchAny {
                    eqm
                } else {
                    // All equal: every lane of the group equals this one.
                    let all = self.b.i_equal(tb, None, eqm, group).map_err(internal)?;
                    self.b.select(u64t, None, all, group, zero).map_err(internal)?
                }
            }
            WarpOp::Redux(k) => {
                // One loop over the lanes; the accumulator holds the reduction in its low word
                // and, in bit 32, whether a lane of the group has started it.
                let u = self.t_u32;
                let (k32, started) = (self.wc64(32)?, self.wc64(1 << 32)?);
                let acc = self.lane_loop(self.ws(), zero, |em, i, acc| {
                    let on = em.mask_bit(group, i)?;
                    let xi = em.fetch(arr, i)?;
                    let xi = em.b.u_convert(u, None, xi).map_err(internal)?;
                    let a = em.b.load(u64t, None, acc, None, []).map_err(internal)?;
                    let prev = em.b.u_convert(u, None, a).map_err(internal)?;
                    let hi = em.b.shift_right_logical(u64t, None, a, k32).map_err(internal)?;
                    let have = em.b.i_not_equal(tb, None, hi, zero).map_err(internal)?;
                    let comb = em.redux_step(k, prev, xi)?;
                    // The first lane of the group starts the reduction.
                    let start = em.b.select(u, None, have, comb, xi).map_err(internal)?;
                    let next = em.b.u_convert(u64t, None, start).map_err(internal)?;
                    let next = em.b.bitwise_or(u64t, None, next, started).map_err(internal)?;
                    let a = em.b.select(u64t, None, on, next, a).map_err(internal)?;
                    em.b.store(acc, a, None, []).map_err(internal)
                })?;
                let a = self.b.u_convert(u, None, acc).map_err(internal)?;
                self.b.u_convert(u64t, None, a).map_err(internal)?
            }
            _ => return Err(internal("not a valued warp op")),
        };
        // Lanes of the group outside the member mask read 0.
        let on = self.mask_bit(group, lane)?;
        let r = self.b.select(u64t, None, on, r, zero).map_err(internal)?;
        self.value_of_word(r, t)
    }

    /// One step of a reduction on u32 words.
    fn redux_step(&mut self, k: isabridge_ir::ops::warp::ReduxKind, a: Word, x: Word) -> Result<Word, EmitError> {
        use isabridge_ir::ops::warp::ReduxKind as R;
        let (u, tb) = (self.t_u32, self.ty(Type::B1)?);
        let b = &mut self.b;
        let r = match k {
            R::Add => b.i_add(u, None, a, x),
            R::And => b.bitwise_and(u, None, a, x),
            R::Or => b.bitwise_or(u, None, a, x),
            R::Xor => b.bitwise_xor(u, None, a, x),
            R::UMin | R::UMax | R::SMin | R::SMax => {
                let lt = match k {
                    R::UMin | R::UMax => b.u_less_than(tb, None, a, x),
                    _ => b.s_less_than(tb, None, a, x),
                }
                .map_err(internal)?;
                let (p, q) = if matches!(k, R::UMin | R::SMin) { (a, x) } else { (x, a) };
                b.select(u, None, lt, p, q)
            }
        };
        r.map_err(internal)
    }
}
