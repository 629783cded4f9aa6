//! Wave-model functions ([`ExecModel::Wave`](isabridge_ir::ir::ExecModel::Wave), AMD's EXEC as
//! a value) in SPIR-V: one invocation per lane, one workgroup per wave.
//!
//! Every branch of a wave-model function is uniform, so all invocations of a workgroup take the
//! same path and compute the same wave-uniform values (masks, scalar registers); a per-lane
//! result is merged under its mask with `lanesel` exactly as the IR defines it. Whatever crosses
//! lanes goes through Workgroup memory: each invocation publishes its operand in a slot of an
//! exchange array, then after a workgroup barrier reads the slots it needs; successive
//! exchanges alternate between two banks of arrays, so one barrier per exchange suffices
//! (`Em::publish_at`; one bank and a barrier on both sides for workgroups too large for two).
//! Loops over the lanes (a ballot's gather, lane-by-lane atomics) are SPIR-V loops
//! (`super::lane_loop`). This runs on
//! any subgroup size (lavapipe's 8 lanes, 32 on NVIDIA) for waves of 32 and 64. Memory
//! operations follow the IR's program order across lanes: every store and atomic is followed by
//! a workgroup barrier with acquire-release semantics on buffer and workgroup memory, and
//! atomics run lane by lane in lane order (the interpreter's order).
//!
//! Buffer descriptors hold Vulkan buffer device addresses (PhysicalStorageBuffer64); the
//! descriptor's range check is evaluated per lane, and an inactive or out-of-range lane reads 0
//! and writes nothing. Accesses of 4 and 8 bytes are 4-byte aligned; 1- and 2-byte stores
//! change their bytes of the containing word with two atomics. Global and LDS loads, stores and
//! atomics under the lane mask: [`super::amd_memory`]; formatted buffer access:
//! [`super::amd_format`]. Not emitted yet (typed errors): NVIDIA shuffles. Atomics on
//! device memory and the float rules: [`super::atomic`].

use super::amd_memory::Place;
use super::emit::{internal, unsupported, Em, EmitError};
use isabridge_ir::ir::{ExecModel, Function, Value};
use isabridge_ir::ops::buffer::{BufferKind, BufferOp};
use isabridge_ir::ops::control::SyncOp;
use isabridge_ir::ops::int::IntOp;
use isabridge_ir::ops::lane::{Dpp, LaneOp};
use isabridge_ir::ops::mem::{AtomicKind, MemOp, Space};
use isabridge_ir::types::Type;
use isabridge_ir::Op;
use rspirv::dr::{Builder, Operand};
use rspirv::spirv::{self, Word};

/// The module-level variables of a wave-model function.
pub(super) struct WaveVars {
    /// Lanes per wave.
    ws: u32,
    /// Invocations per workgroup: `ws` times the waves of a guest workgroup
    /// (`super::multi_wave`).
    pub(super) group: u32,
    /// Workgroup array of 64-bit exchange slots: `banks` banks of `per_bank` arrays of `group`
    /// slots (each wave its own slots in each array).
    xchg: Word,
    /// Exchange arrays per bank: 2 (the wave model), 3 (the lanes model's presence marks too).
    per_bank: u32,
    /// Banks: 2 where both fit [`MOST_EXCHANGE_BYTES`], else 1.
    banks: u32,
    /// Two banks: the Private u32 that names the bank of this invocation's latest exchange.
    turn: Option<Word>,
    /// Two banks: the offset (u32 id) of the bank of the exchange being emitted, set by
    /// `Em::publish_at` and used by `Em::slot_ptr`.
    bank_off: Option<Word>,
    /// The next `Em::publish` is already done (its words went with the roll call,
    /// `super::warp`).
    pub(super) prepublished: bool,
    /// Pointer type of one slot.
    p_slot: Word,
    /// Lanes-model functions: the Private u32 exchange counter (see `super::warp`).
    pub(super) epoch: Option<Word>,
    /// Several waves per workgroup: the Workgroup u32 a branch's vote collects in
    /// (`super::multi_wave`).
    pub(super) vote: Option<Word>,
    /// Lanes-model functions: the runs of warp ops that share one exchange
    /// (`super::exchange_batch`).
    pub(super) batches: super::exchange_batch::Plan,
    /// The group (u64) of the roll call of the batch being emitted.
    pub(super) batch_group: Option<Word>,
}

impl WaveVars {
    /// Declare the exchange array for waves of `ws` lanes, `group` invocations per workgroup
    /// (a third array of presence marks and the exchange counter for lanes-model functions).
    pub(super) fn declare(b: &mut Builder, f: &Function, ws: u32, group: u32, t_u32: Word, t_u64: Word) -> WaveVars {
        let lanes = f.model == ExecModel::Lanes;
        // Batches (lanes model) take one array per member besides the marks, in two banks
        // of `BATCH_EXCHANGE_BYTES`, where the function's shared memory leaves room.
        let batching = lanes && f.shared_bytes + BATCH_EXCHANGE_BYTES <= BATCH_SHARED_BYTES;
        let room = if batching { BATCH_EXCHANGE_BYTES } else { MOST_EXCHANGE_BYTES };
        let batches = if batching { super::exchange_batch::plan(f, (room / (2 * 8 * group)).saturating_sub(1)) } else { Default::default() };
        let per_bank = if lanes { 3.max(batches.most + 1) } else { 2 };
        let banks = if 2 * per_bank * group * 8 <= room { 2 } else { 1 };
        let n = b.constant_bit32(t_u32, banks * per_bank * group);
        let arr = b.type_array(t_u64, n);
        let pa = b.type_pointer(None, spirv::StorageClass::Workgroup, arr);
        let xchg = b.variable(pa, None, spirv::StorageClass::Workgroup, None);
        let p_slot = b.type_pointer(None, spirv::StorageClass::Workgroup, t_u64);
        let epoch = lanes.then(|| {
            let pe = b.type_pointer(None, spirv::StorageClass::Private, t_u32);
            let one = b.constant_bit32(t_u32, 1);
            b.variable(pe, None, spirv::StorageClass::Private, Some(one))
        });
        let vote = (group > ws).then(|| {
            let pv = b.type_pointer(None, spirv::StorageClass::Workgroup, t_u32);
            b.variable(pv, None, spirv::StorageClass::Workgroup, None)
        });
        let turn = (banks == 2).then(|| {
            let pt = b.type_pointer(None, spirv::StorageClass::Private, t_u32);
            let zero = b.constant_bit32(t_u32, 0);
            b.variable(pt, None, spirv::StorageClass::Private, Some(zero))
        });
        WaveVars { ws, group, xchg, per_bank, banks, turn, bank_off: None, prepublished: false, p_slot, epoch, vote, batches, batch_group: None }
    }
    /// The Workgroup bytes these variables take (the exchange array and the vote word).
    pub(super) fn workgroup_bytes(&self) -> u32 {
        self.banks * self.per_bank * self.group * 8 + if self.vote.is_some() { 4 } else { 0 }
    }

    /// The variables the entry point lists.
    pub(super) fn interface(&self) -> Vec<Word> {
        let mut v = vec![self.xchg];
        v.extend(self.epoch);
        v.extend(self.vote);
        v.extend(self.turn);
        v
    }
}

/// The most Workgroup bytes the exchange takes in two banks; a larger workgroup keeps one bank
/// (the exchange's memory stays well inside Vulkan's 16 KiB minimum of
/// `maxComputeSharedMemorySize` beside the guest's LDS).
const MOST_EXCHANGE_BYTES: u32 = 4096;

/// The most Workgroup bytes the exchange takes in two banks when a lanes-model function
/// batches its exchanges (`super::exchange_batch`): 15 members per batch for a warp of 32.
const BATCH_EXCHANGE_BYTES: u32 = 8192;

/// The most Workgroup bytes the guest's shared memory and a batching exchange take together
/// (Vulkan's minimum `maxComputeSharedMemorySize`, 16 KiB, less room for the rest).
const BATCH_SHARED_BYTES: u32 = 12288;

/// Workgroup scope (SPIR-V `Scope`).
const WORKGROUP: u64 = 2;
/// AcquireRelease | UniformMemory | WorkgroupMemory.
const SEMANTICS: u64 = 0x8 | 0x40 | 0x100;

impl Em<'_> {
    pub(super) fn ws(&self) -> u32 {
        self.wave.as_ref().map(|w| w.ws).unwrap_or(32)
    }

    pub(super) fn wc32(&mut self, x: u32) -> Result<Word, EmitError> {
        self.konst(Type::I32, x as u64)
    }

    pub(super) fn wc64(&mut self, x: u64) -> Result<Word, EmitError> {
        self.konst(Type::I64, x)
    }

    /// This invocation's lane (u32).
    pub(super) fn lane(&mut self) -> Result<Word, EmitError> {
        let g = self.b.u_convert(self.t_u32, None, self.gid).map_err(internal)?;
        let m = self.wc32(self.ws() - 1)?;
        self.b.bitwise_and(self.t_u32, None, g, m).map_err(internal)
    }

    /// The mask of every lane of the wave.
    pub(super) fn full_mask(&mut self) -> Result<Word, EmitError> {
        let ws = self.ws();
        self.wc64(if ws >= 64 { u64::MAX } else { (1u64 << ws) - 1 })
    }

    /// Bit `lane` (u32) of `mask` (u64) as a b1.
    pub(super) fn mask_bit(&mut self, mask: Word, lane: Word) -> Result<Word, EmitError> {
        let l = self.b.u_convert(self.t_u64, None, lane).map_err(internal)?;
        let s = self.b.shift_right_logical(self.t_u64, None, mask, l).map_err(internal)?;
        let one = self.wc64(1)?;
        let bit = self.b.bitwise_and(self.t_u64, None, s, one).map_err(internal)?;
        let tb = self.ty(Type::B1)?;
        let zero = self.wc64(0)?;
        self.b.i_not_equal(tb, None, bit, zero).map_err(internal)
    }

    /// A workgroup barrier that also orders buffer and workgroup memory.
    pub(super) fn barrier(&mut self) -> Result<(), EmitError> {
        let scope = self.wc32(WORKGROUP as u32)?;
        let sem = self.wc32(SEMANTICS as u32)?;
        self.b.control_barrier(scope, scope, sem).map_err(internal)
    }

    /// Publish this lane's words (u64) in exchange arrays 0.. ([`Em::publish_at`]); nothing
    /// when the roll call before already published them (`WaveVars::prepublished`).
    pub(super) fn publish(&mut self, vals: &[Word]) -> Result<(), EmitError> {
        if let Some(w) = self.wave.as_mut().filter(|w| w.prepublished) {
            w.prepublished = false;
            return Ok(());
        }
        let words: Vec<(u32, Word)> = vals.iter().enumerate().map(|(k, &v)| (k as u32, v)).collect();
        self.publish_at(&words)
    }

    /// Publish this lane's words (u64) in the exchange arrays named, for the lanes to read
    /// after it ([`Em::fetch`]). With two banks, each exchange takes the other bank and one
    /// barrier after the stores: a lane writes a bank again only two exchanges later, past the
    /// barrier of the exchange between, which every lane reaches after its reads of this one.
    /// With one bank, a barrier before the stores keeps them from the reads of the exchange
    /// before, and one after.
    pub(super) fn publish_at(&mut self, words: &[(u32, Word)]) -> Result<(), EmitError> {
        let banked = self.wave.as_ref().and_then(|w| w.turn.map(|t| (t, w.per_bank * w.group)));
        match banked {
            Some((turn, size)) => {
                let t = self.b.load(self.t_u32, None, turn, None, []).map_err(internal)?;
                let one = self.wc32(1)?;
                let t = self.b.bitwise_xor(self.t_u32, None, t, one).map_err(internal)?;
                self.b.store(turn, t, None, []).map_err(internal)?;
                let size = self.wc32(size)?;
                let off = self.b.i_mul(self.t_u32, None, t, size).map_err(internal)?;
                if let Some(w) = self.wave.as_mut() {
                    w.bank_off = Some(off);
                }
            }
            None => self.barrier()?,
        }
        let lane = self.lane()?;
        for &(k, v) in words {
            let p = self.slot_ptr(k, lane)?;
            self.b.store(p, v, None, []).map_err(internal)?;
        }
        self.barrier()
    }

    /// Clear this lane's slot of exchange array `k` in every bank (the preamble).
    pub(super) fn clear_slot(&mut self, k: u32) -> Result<(), EmitError> {
        let (banks, size) = self.wave.as_ref().map_or((1, 0), |w| (w.banks, w.per_bank * w.group));
        let lane = self.lane()?;
        let z = self.wc64(0)?;
        for bank in 0..banks {
            let off = self.wc32(bank * size)?;
            let saved = self.wave.as_mut().and_then(|w| w.bank_off.replace(off));
            let p = self.slot_ptr(k, lane)?;
            if let Some(w) = self.wave.as_mut() {
                w.bank_off = saved;
            }
            self.b.store(p, z, None, []).map_err(internal)?;
        }
        Ok(())
    }

    pub(super) fn slot_ptr(&mut self, k: u32, lane: Word) -> Result<Word, EmitError> {
        let (xchg, p_slot) = match &self.wave {
            Some(w) => (w.xchg, w.p_slot),
            None => return Err(internal("exchange outside a wave-model function")),
        };
        // This wave's slots: those of the invocations of its wave in the workgroup.
        let group = self.wave.as_ref().map_or(self.ws(), |w| w.group);
        let off = self.wc32(k * group)?;
        let mut idx = self.b.i_add(self.t_u32, None, lane, off).map_err(internal)?;
        if let Some(bank) = self.wave.as_ref().and_then(|w| w.bank_off) {
            idx = self.b.i_add(self.t_u32, None, idx, bank).map_err(internal)?;
        }
        if group != self.ws() {
            let local = self.local_index()?;
            let not_lane = self.wc32(!(self.ws() - 1))?;
            let base = self.b.bitwise_and(self.t_u32, None, local, not_lane).map_err(internal)?;
            idx = self.b.i_add(self.t_u32, None, idx, base).map_err(internal)?;
        }
        self.b.access_chain(p_slot, None, xchg, [idx]).map_err(internal)
    }

    /// Lane `lane`'s (u32, below the wave size) published word of array `k`.
    pub(super) fn fetch(&mut self, k: u32, lane: Word) -> Result<Word, EmitError> {
        let p = self.slot_ptr(k, lane)?;
        self.b.load(self.t_u64, None, p, None, []).map_err(internal)
    }

    /// Run `body` only where `cond` holds: a selection construct in the middle of the current
    /// block. Values defined before stay usable after it (the merge block is dominated by the
    /// current one); `body`'s result (of SPIR-V type `ty`) merges with `zero` elsewhere.
    pub(super) fn guarded(
        &mut self,
        cond: Word,
        merge_ty: Option<(Word, Word)>,
        body: impl FnOnce(&mut Self) -> Result<Option<Word>, EmitError>,
    ) -> Result<Option<Word>, EmitError> {
        let (then_l, merge_l) = (self.b.id(), self.b.id());
        let (from, region) = (self.cur, self.region);
        self.b.selection_merge(merge_l, spirv::SelectionControl::NONE).map_err(internal)?;
        self.b.branch_conditional(cond, then_l, merge_l, []).map_err(internal)?;
        self.cur = self.b.begin_block(Some(then_l)).map_err(internal)?;
        // The body's values are its own; the merge block continues `from`'s region.
        self.region = self.cur;
        let r = body(self)?;
        let then_end = self.cur;
        self.b.branch(merge_l).map_err(internal)?;
        self.cur = self.b.begin_block(Some(merge_l)).map_err(internal)?;
        self.region = region;
        match (merge_ty, r) {
            (Some((ty, zero)), Some(x)) => Ok(Some(self.b.phi(ty, None, [(x, then_end), (zero, from)]).map_err(internal)?)),
            _ => Ok(None),
        }
    }

    /// `lanesel` (`v`, of type `ty`, on `args`: mask, then the value where the lane's bit is
    /// set and where it is clear): this invocation's lane bit of the mask selects.
    pub(super) fn lane_select(&mut self, v: Value, ty: Option<Type>, args: &[Value]) -> Result<(), EmitError> {
        let t = ty.ok_or_else(|| internal("lanesel without a type"))?;
        let (m, x, y) = (self.get(args[0])?, self.get(args[1])?, self.get(args[2])?);
        let lane = self.lane()?;
        let bit = self.mask_bit(m, lane)?;
        let tw = self.ty(t)?;
        let r = self.b.select(tw, None, bit, x, y).map_err(internal)?;
        self.define(v, r)
    }

    /// Emit a wave-model operation; false when `v` is not one (the common path emits it).
    pub(super) fn wave_inst(&mut self, v: Value) -> Result<bool, EmitError> {
        let data = &self.f.insts[v];
        let (op, args, ty) = (data.op.clone(), data.args.clone(), data.ty);
        match op {
            Op::LaneSelect => self.lane_select(v, ty, &args)?,
            Op::Lane(lo) => {
                let t = ty.ok_or_else(|| internal("lane op without a type"))?;
                let mask = self.mask_arg(&args, lo.arity())?;
                let r = self.lane_op(v, lo, &args, t, mask)?;
                self.define(v, r)?;
            }
            Op::Buffer(bo) => {
                let r = self.buffer_op(bo, &args, ty)?;
                if let Some(r) = r {
                    self.define(v, r)?;
                }
            }
            // Lane masks are 64-bit integers here.
            Op::Int(io) if self.is_mask_int(&args, ty) => self.mask_int(v, io, &args, ty)?,
            Op::Sync(SyncOp::Barrier(_)) => self.wave_barrier()?,
            Op::Sync(SyncOp::Fence(_) | SyncOp::Wait(_) | SyncOp::Sleep(_) | SyncOp::Priority(_)) => {}
            Op::Mem(MemOp::Load(Space::Constant(_))) => return Ok(false),
            Op::Mem(m) => {
                if let Some(r) = self.wave_mem(v, m, &args, ty)? {
                    self.define(v, r)?;
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Whether an integer op with these operands and result type works on lane masks.
    pub(super) fn is_mask_int(&self, args: &[Value], ty: Option<Type>) -> bool {
        ty == Some(Type::Mask) || args.first().is_some_and(|&x| self.f.ty(x) == Some(Type::Mask))
    }

    /// An integer op on lane masks, which are 64-bit integers here.
    pub(super) fn mask_int(&mut self, v: Value, io: IntOp, args: &[Value], ty: Option<Type>) -> Result<(), EmitError> {
        let mut a = Vec::with_capacity(args.len());
        for &x in args {
            a.push(self.get(x)?);
        }
        let at = if matches!(io, IntOp::Cmp(_)) || ty == Some(Type::Mask) { Type::I64 } else { ty.unwrap_or(Type::I64) };
        let r = self.int(io, v, at, &a)?;
        self.define(v, r)
    }

    /// The mask operand of an op with `arity` fixed operands (the full wave when absent).
    /// Empty where the wave is off (`super::wave_union`).
    pub(super) fn mask_arg(&mut self, args: &[Value], arity: usize) -> Result<Word, EmitError> {
        let m = match args.get(arity) {
            Some(&m) => self.get(m)?,
            None => self.full_mask()?,
        };
        let Some(on) = self.running()? else { return Ok(m) };
        let zero = self.wc64(0)?;
        self.b.select(self.t_u64, None, on, m, zero).map_err(internal)
    }

    pub(super) fn word_of(&mut self, v: Value) -> Result<Word, EmitError> {
        let t = self.vty(v)?;
        let x = self.get(v)?;
        if t == Type::Mask {
            return Ok(x);
        }
        self.value_to_word(x, t)
    }

    pub(super) fn value_of_word(&mut self, w: Word, t: Type) -> Result<Word, EmitError> {
        if t == Type::Mask {
            return Ok(w);
        }
        self.word_to_value(w, t)
    }

    /// Lane `s` (u32) when it exists and is in `mask`, as a b1.
    fn source_ok(&mut self, s: Word, mask: Word) -> Result<Word, EmitError> {
        let tb = self.ty(Type::B1)?;
        let ws = self.wc32(self.ws())?;
        let inside = self.b.u_less_than(tb, None, s, ws).map_err(internal)?;
        let m = self.wc32(self.ws() - 1)?;
        let sc = self.b.bitwise_and(self.t_u32, None, s, m).map_err(internal)?;
        let on = self.mask_bit(mask, sc)?;
        self.b.logical_and(tb, None, inside, on).map_err(internal)
    }

    /// Word of lane `s` (any u32; read modulo the wave size).
    fn fetch_any(&mut self, k: u32, s: Word) -> Result<Word, EmitError> {
        let m = self.wc32(self.ws() - 1)?;
        let sc = self.b.bitwise_and(self.t_u32, None, s, m).map_err(internal)?;
        self.fetch(k, sc)
    }

    /// The DPP source of this lane relative to its row, or `u32::MAX`.
    fn dpp_source(&mut self, d: Dpp, lane: Word) -> Result<Word, EmitError> {
        // The pattern's source, relative to the lane's 16-lane row, depends on the lane's
        // position in the row only (`Dpp::source` keeps quads, halves and eights in the row).
        let fifteen = self.wc32(15)?;
        let i = self.b.bitwise_and(self.t_u32, None, lane, fifteen).map_err(internal)?;
        let not15 = self.wc32(!15)?;
        let row = self.b.bitwise_and(self.t_u32, None, lane, not15).map_err(internal)?;
        let tb = self.ty(Type::B1)?;
        let mut rel = self.wc32(u32::MAX)?;
        for k in 0..16u32 {
            let Some(s) = d.source(k) else { continue };
            let kc = self.wc32(k)?;
            let here = self.b.i_equal(tb, None, i, kc).map_err(internal)?;
            let sc = self.wc32(s)?;
            rel = self.b.select(self.t_u32, None, here, sc, rel).map_err(internal)?;
        }
        let none = self.wc32(u32::MAX)?;
        let absent = self.b.i_equal(tb, None, rel, none).map_err(internal)?;
        let abs = self.b.i_add(self.t_u32, None, row, rel).map_err(internal)?;
        self.b.select(self.t_u32, None, absent, none, abs).map_err(internal)
    }

    /// Lane op `lo` (value `v`, result type `t`) on the lanes of `mask` (u64).
    pub(super) fn lane_op(&mut self, v: Value, lo: LaneOp, args: &[Value], t: Type, mask: Word) -> Result<Word, EmitError> {
        let lane = self.lane()?;
        let tb = self.ty(Type::B1)?;
        let ws = self.ws();
        let r = match lo {
            LaneOp::LaneId => {
                let tw = self.ty(t)?;
                return self.cast(lane, self.t_u32, tw);
            }
            LaneOp::WaveId => {
                // The wave's index in its guest workgroup: of the Vulkan workgroup when that
                // holds several waves, else of the dispatch (its waves run as workgroups).
                let several = self.wave.as_ref().is_some_and(|w| w.group > ws);
                let g = if several { self.local_index()? } else { self.b.u_convert(self.t_u32, None, self.gid).map_err(internal)? };
                let sh = self.wc32(ws.trailing_zeros())?;
                let w = self.b.shift_right_logical(self.t_u32, None, g, sh).map_err(internal)?;
                let tw = self.ty(t)?;
                return self.cast(w, self.t_u32, tw);
            }
            LaneOp::WaveSize => return self.konst(t, ws as u64),
            LaneOp::ActiveMask => return self.full_mask(),
            LaneOp::Ballot | LaneOp::All | LaneOp::Any => {
                let x = self.word_of(args[0])?;
                self.publish(&[x])?;
                let one = self.wc64(1)?;
                let zero = self.wc64(0)?;
                let acc = self.lane_loop(ws, zero, |em, i, acc| {
                    let w = em.fetch(0, i)?;
                    let bit = em.b.bitwise_and(em.t_u64, None, w, one).map_err(internal)?;
                    let sh = em.b.u_convert(em.t_u64, None, i).map_err(internal)?;
                    let at = em.b.shift_left_logical(em.t_u64, None, bit, sh).map_err(internal)?;
                    let a = em.b.load(em.t_u64, None, acc, None, []).map_err(internal)?;
                    let a = em.b.bitwise_or(em.t_u64, None, a, at).map_err(internal)?;
                    em.b.store(acc, a, None, []).map_err(internal)
                })?;
                let ballot = self.b.bitwise_and(self.t_u64, None, acc, mask).map_err(internal)?;
                let b = match lo {
                    LaneOp::Ballot => return self.value_of_word(ballot, t),
                    LaneOp::All => self.b.i_equal(tb, None, ballot, mask).map_err(internal)?,
                    _ => {
                        let z = self.wc64(0)?;
                        self.b.i_not_equal(tb, None, ballot, z).map_err(internal)?
                    }
                };
                return self.bool_result(b, t);
            }
            LaneOp::ReadLane => {
                let x = self.word_of(args[0])?;
                self.publish(&[x])?;
                let l = self.get(args[1])?;
                let l = self.low_u32(args[1], l)?;
                let w = self.fetch_any(0, l)?;
                return self.value_of_word(w, t);
            }
            LaneOp::ReadFirstLane => {
                let x = self.word_of(args[0])?;
                self.publish(&[x])?;
                // The lowest lane of the mask: the lanes from the highest down, each in the
                // mask taking the place.
                let zero = self.wc64(0)?;
                let top = self.wc32(ws - 1)?;
                let r = self.lane_loop(ws, zero, |em, l, r| {
                    let i = em.b.i_sub(em.t_u32, None, top, l).map_err(internal)?;
                    let on = em.mask_bit(mask, i)?;
                    let w = em.fetch(0, i)?;
                    let prev = em.b.load(em.t_u64, None, r, None, []).map_err(internal)?;
                    let x = em.b.select(em.t_u64, None, on, w, prev).map_err(internal)?;
                    em.b.store(r, x, None, []).map_err(internal)
                })?;
                return self.value_of_word(r, t);
            }
            LaneOp::Dpp(d, bound0) => {
                let x = self.word_of(args[0])?;
                self.publish(&[x])?;
                let s = self.dpp_source(d, lane)?;
                let ok = self.source_ok(s, mask)?;
                let w = self.fetch_any(0, s)?;
                let other = if bound0 { self.wc64(0)? } else { self.word_of(args[1])? };
                self.b.select(self.t_u64, None, ok, w, other).map_err(internal)?
            }
            LaneOp::DppValid(d) => {
                let s = self.dpp_source(d, lane)?;
                let ok = self.source_ok(s, mask)?;
                return self.bool_result(ok, t);
            }
            LaneOp::Permlane16 { cross, bound0 } => {
                let x = self.word_of(args[0])?;
                self.publish(&[x])?;
                let (lo_w, hi_w) = (self.word_of(args[2])?, self.word_of(args[3])?);
                let (m32, k32) = (self.wc64(0xffff_ffff)?, self.wc64(32)?);
                let lo32 = self.b.bitwise_and(self.t_u64, None, lo_w, m32).map_err(internal)?;
                let hi = self.b.shift_left_logical(self.t_u64, None, hi_w, k32).map_err(internal)?;
                let sel = self.b.bitwise_or(self.t_u64, None, hi, lo32).map_err(internal)?;
                let (fifteen, four) = (self.wc32(15)?, self.wc32(4)?);
                let i = self.b.bitwise_and(self.t_u32, None, lane, fifteen).map_err(internal)?;
                let sh = self.b.i_mul(self.t_u32, None, i, four).map_err(internal)?;
                let sh64 = self.b.u_convert(self.t_u64, None, sh).map_err(internal)?;
                let nib = self.b.shift_right_logical(self.t_u64, None, sel, sh64).map_err(internal)?;
                let nib = self.b.u_convert(self.t_u32, None, nib).map_err(internal)?;
                let nib = self.b.bitwise_and(self.t_u32, None, nib, fifteen).map_err(internal)?;
                let mut row = self.b.shift_right_logical(self.t_u32, None, lane, four).map_err(internal)?;
                if cross {
                    let one = self.wc32(1)?;
                    row = self.b.bitwise_xor(self.t_u32, None, row, one).map_err(internal)?;
                }
                let base = self.b.shift_left_logical(self.t_u32, None, row, four).map_err(internal)?;
                let s = self.b.i_add(self.t_u32, None, base, nib).map_err(internal)?;
                let ok = self.source_ok(s, mask)?;
                let w = self.fetch_any(0, s)?;
                let other = if bound0 { self.wc64(0)? } else { self.word_of(args[1])? };
                self.b.select(self.t_u64, None, ok, w, other).map_err(internal)?
            }
            LaneOp::Bpermute { halves } => {
                let x = self.word_of(args[0])?;
                self.publish(&[x])?;
                let a = self.get(args[1])?;
                let a = self.low_u32(args[1], a)?;
                let s = self.permute_lane(a, lane, halves)?;
                let ok = self.source_ok(s, mask)?;
                let w = self.fetch_any(0, s)?;
                let z = self.wc64(0)?;
                self.b.select(self.t_u64, None, ok, w, z).map_err(internal)?
            }
            LaneOp::Permute { halves } => {
                let x = self.word_of(args[0])?;
                let a = self.get(args[1])?;
                let a32 = self.low_u32(args[1], a)?;
                let a64 = self.b.u_convert(self.t_u64, None, a32).map_err(internal)?;
                self.publish(&[x, a64])?;
                // The highest active lane writing this lane wins.
                let mut r = self.wc64(0)?;
                for k in 0..ws {
                    let kc = self.wc32(k)?;
                    let on = self.mask_bit(mask, kc)?;
                    let ak = self.fetch(1, kc)?;
                    let ak = self.b.u_convert(self.t_u32, None, ak).map_err(internal)?;
                    let d = self.permute_lane(ak, kc, halves)?;
                    let here = self.b.i_equal(tb, None, d, lane).map_err(internal)?;
                    let take = self.b.logical_and(tb, None, on, here).map_err(internal)?;
                    let xk = self.fetch(0, kc)?;
                    r = self.b.select(self.t_u64, None, take, xk, r).map_err(internal)?;
                }
                r
            }
            LaneOp::Shuffle(..) => return Err(unsupported(self.cur_ir, v.0, Op::Lane(lo).mnemonic(), "shuffles in wave-model functions")),
        };
        // Per-lane results of lanes outside the op's mask read 0.
        let on = self.mask_bit(mask, lane)?;
        let z = self.wc64(0)?;
        let r = self.b.select(self.t_u64, None, on, r, z).map_err(internal)?;
        self.value_of_word(r, t)
    }

    pub(super) fn bool_result(&mut self, b: Word, t: Type) -> Result<Word, EmitError> {
        if t == Type::B1 {
            return Ok(b);
        }
        let (one, zero) = (self.konst(t, 1)?, self.konst(t, 0)?);
        let tw = self.ty(t)?;
        self.b.select(tw, None, b, one, zero).map_err(internal)
    }

    /// The low 32 bits of value `v` (id `x`) as a u32.
    pub(super) fn low_u32(&mut self, v: Value, x: Word) -> Result<Word, EmitError> {
        let t = self.vty(v)?;
        let w = if t == Type::Mask { x } else { self.value_to_word(x, t)? };
        self.b.u_convert(self.t_u32, None, w).map_err(internal)
    }

    /// The lane a permute reaches from byte address `a` (u32) for lane `lane`.
    fn permute_lane(&mut self, a: Word, lane: Word, halves: bool) -> Result<Word, EmitError> {
        let two = self.wc32(2)?;
        let i = self.b.shift_right_logical(self.t_u32, None, a, two).map_err(internal)?;
        if halves {
            let (m31, n31) = (self.wc32(31)?, self.wc32(!31)?);
            let lo = self.b.bitwise_and(self.t_u32, None, i, m31).map_err(internal)?;
            let hi = self.b.bitwise_and(self.t_u32, None, lane, n31).map_err(internal)?;
            self.b.bitwise_or(self.t_u32, None, hi, lo).map_err(internal)
        } else {
            let m = self.wc32(self.ws() - 1)?;
            self.b.bitwise_and(self.t_u32, None, i, m).map_err(internal)
        }
    }

    /// A pointer to the u32 at `addr` (u64, 4-byte aligned) of `place`: PhysicalStorageBuffer
    /// for device memory, the LDS array for workgroup memory.
    pub(super) fn word_ptr(&mut self, place: Place, addr: Word) -> Result<Word, EmitError> {
        if place != Place::Device {
            return self.array_word_ptr(place, addr);
        }
        if self.heap.is_some() {
            return self.heap_atomic_ptr(addr);
        }
        let pt = self.b.type_pointer(None, spirv::StorageClass::PhysicalStorageBuffer, self.t_u32);
        self.b.convert_u_to_ptr(pt, None, addr).map_err(internal)
    }

    /// Load the u32 at `addr` (u64, 4-byte aligned) of `place`.
    pub(super) fn load_word(&mut self, place: Place, addr: Word) -> Result<Word, EmitError> {
        if place == Place::Device && self.heap.is_some() {
            return self.heap_load_word(addr);
        }
        let p = self.word_ptr(place, addr)?;
        if place != Place::Device {
            // A logical pointer: no alignment operand (naga's reader takes none there).
            return self.b.load(self.t_u32, None, p, None, []).map_err(internal);
        }
        self.b.load(self.t_u32, None, p, Some(spirv::MemoryAccess::ALIGNED), [Operand::LiteralBit32(4)]).map_err(internal)
    }

    pub(super) fn store_word(&mut self, place: Place, addr: Word, x: Word) -> Result<(), EmitError> {
        if place == Place::Device && self.heap.is_some() {
            return self.heap_store_word(addr, x);
        }
        let p = self.word_ptr(place, addr)?;
        if place != Place::Device {
            return self.b.store(p, x, None, []).map_err(internal);
        }
        self.b.store(p, x, Some(spirv::MemoryAccess::ALIGNED), [Operand::LiteralBit32(4)]).map_err(internal)
    }

    /// Load `bytes` (1, 2, 4, 8) at `addr` (u64) of `place` as a zero-extended u64.
    pub(super) fn load_bytes(&mut self, place: Place, addr: Word, bytes: u8) -> Result<Word, EmitError> {
        let not3 = self.wc64(!3)?;
        let a4 = self.b.bitwise_and(self.t_u64, None, addr, not3).map_err(internal)?;
        let w0 = self.load_word(place, a4)?;
        let w0 = self.b.u_convert(self.t_u64, None, w0).map_err(internal)?;
        match bytes {
            8 => {
                let four = self.wc64(4)?;
                let a1 = self.b.i_add(self.t_u64, None, a4, four).map_err(internal)?;
                let w1 = self.load_word(place, a1)?;
                let w1 = self.b.u_convert(self.t_u64, None, w1).map_err(internal)?;
                let k32 = self.wc64(32)?;
                let hi = self.b.shift_left_logical(self.t_u64, None, w1, k32).map_err(internal)?;
                self.b.bitwise_or(self.t_u64, None, hi, w0).map_err(internal)
            }
            4 => Ok(w0),
            _ => {
                let (three, eight) = (self.wc64(3)?, self.wc64(8)?);
                let byte = self.b.bitwise_and(self.t_u64, None, addr, three).map_err(internal)?;
                let sh = self.b.i_mul(self.t_u64, None, byte, eight).map_err(internal)?;
                let x = self.b.shift_right_logical(self.t_u64, None, w0, sh).map_err(internal)?;
                let m = self.wc64((1u64 << (8 * bytes as u64)) - 1)?;
                self.b.bitwise_and(self.t_u64, None, x, m).map_err(internal)
            }
        }
    }

    /// Store the low `bytes` of `x` (u64) at `addr` (u64) of `place`.
    pub(super) fn store_bytes(&mut self, place: Place, addr: Word, bytes: u8, x: Word) -> Result<(), EmitError> {
        let not3 = self.wc64(!3)?;
        let a4 = self.b.bitwise_and(self.t_u64, None, addr, not3).map_err(internal)?;
        let lo = self.b.u_convert(self.t_u32, None, x).map_err(internal)?;
        match bytes {
            8 => {
                self.store_word(place, a4, lo)?;
                let (four, k32) = (self.wc64(4)?, self.wc64(32)?);
                let a1 = self.b.i_add(self.t_u64, None, a4, four).map_err(internal)?;
                let h = self.b.shift_right_logical(self.t_u64, None, x, k32).map_err(internal)?;
                let h = self.b.u_convert(self.t_u32, None, h).map_err(internal)?;
                self.store_word(place, a1, h)
            }
            4 => self.store_word(place, a4, lo),
            _ => {
                // Other lanes may write the other bytes of the word: clear and set this
                // access's bits with atomics.
                let (three, eight) = (self.wc32(3)?, self.wc32(8)?);
                let a32 = self.b.u_convert(self.t_u32, None, addr).map_err(internal)?;
                let byte = self.b.bitwise_and(self.t_u32, None, a32, three).map_err(internal)?;
                let sh = self.b.i_mul(self.t_u32, None, byte, eight).map_err(internal)?;
                let m = self.wc32(((1u64 << (8 * bytes as u64)) - 1) as u32)?;
                let fm = self.b.shift_left_logical(self.t_u32, None, m, sh).map_err(internal)?;
                let keep = self.b.not(self.t_u32, None, fm).map_err(internal)?;
                let xm = self.b.bitwise_and(self.t_u32, None, lo, m).map_err(internal)?;
                let set = self.b.shift_left_logical(self.t_u32, None, xm, sh).map_err(internal)?;
                if place == Place::Scratch {
                    // The lane's own word: read, change, write.
                    let old = self.load_word(place, a4)?;
                    let kept = self.b.bitwise_and(self.t_u32, None, old, keep).map_err(internal)?;
                    let new = self.b.bitwise_or(self.t_u32, None, kept, set).map_err(internal)?;
                    return self.store_word(place, a4, new);
                }
                let p = self.word_ptr(place, a4)?;
                let (scope, sem) = (self.wc32(1)?, self.wc32(0)?);
                self.b.atomic_and(self.t_u32, None, p, scope, sem, keep).map_err(internal)?;
                self.b.atomic_or(self.t_u32, None, p, scope, sem, set).map_err(internal)?;
                Ok(())
            }
        }
    }

    /// The byte offset of a buffer access inside its buffer (u64): `plain` (stride × index +
    /// offset) for an unswizzled descriptor, and for a swizzled one (word 1 bit 31) the RDNA
    /// ISA's swizzled addressing with 4-byte elements, as `BufferDesc::address` computes it:
    /// `(index / k × stride + offset / 4) × k × 4 + index % k × 4 + offset % 4`, with `k` the
    /// index stride (8 << word 3 bits 21-22).
    fn swizzled_within(&mut self, d: &DescFields, plain: Word, stride: Word, index: Word, offset: Word) -> Result<Word, EmitError> {
        let t64 = self.t_u64;
        let (eight, two, k3) = (self.wc64(8)?, self.wc64(2)?, self.wc64(3)?);
        let b = &mut self.b;
        let f = b.u_convert(t64, None, d.index_stride).map_err(internal)?;
        let k = b.shift_left_logical(t64, None, eight, f).map_err(internal)?;
        let msb = b.u_div(t64, None, index, k).map_err(internal)?;
        let lsb = b.u_mod(t64, None, index, k).map_err(internal)?;
        let row = b.i_mul(t64, None, msb, stride).map_err(internal)?;
        let dw = b.shift_right_logical(t64, None, offset, two).map_err(internal)?;
        let row = b.i_add(t64, None, row, dw).map_err(internal)?;
        let row = b.i_mul(t64, None, row, k).map_err(internal)?;
        let row = b.shift_left_logical(t64, None, row, two).map_err(internal)?;
        let col = b.shift_left_logical(t64, None, lsb, two).map_err(internal)?;
        let low = b.bitwise_and(t64, None, offset, k3).map_err(internal)?;
        let w = b.i_add(t64, None, row, col).map_err(internal)?;
        let w = b.i_add(t64, None, w, low).map_err(internal)?;
        b.select(t64, None, d.swizzle, w, plain).map_err(internal)
    }

    /// The descriptor fields a buffer access reads (words `a[0..4]`), each extracted once.
    fn desc_fields(&mut self, a: &[Word]) -> Result<DescFields, EmitError> {
        let t32 = self.t_u32;
        let tb = self.ty(Type::B1)?;
        let (k31, k16, k3fff, k23, k21, one, three) = (self.wc32(31)?, self.wc32(16)?, self.wc32(0x3fff)?, self.wc32(23)?, self.wc32(21)?, self.wc32(1)?, self.wc32(3)?);
        let b = &mut self.b;
        let swz = b.shift_right_logical(t32, None, a[1], k31).map_err(internal)?;
        let swizzle = b.i_equal(tb, None, swz, one).map_err(internal)?;
        let s1 = b.shift_right_logical(t32, None, a[1], k16).map_err(internal)?;
        let stride = b.bitwise_and(t32, None, s1, k3fff).map_err(internal)?;
        let tid = b.shift_right_logical(t32, None, a[3], k23).map_err(internal)?;
        let add_tid = b.bitwise_and(t32, None, tid, one).map_err(internal)?;
        let f = b.shift_right_logical(t32, None, a[3], k21).map_err(internal)?;
        let index_stride = b.bitwise_and(t32, None, f, three).map_err(internal)?;
        Ok(DescFields { swizzle, stride, add_tid, index_stride })
    }

    /// The address of a buffer access (u64) and whether it takes place (b1): the lane is in
    /// the mask and the descriptor's range check passes (`BufferDesc::address`).
    fn buffer_address(&mut self, bo: BufferOp, a: &[Word], mask: Word) -> Result<(Word, Word, DescFields), EmitError> {
        let (t32, t64) = (self.t_u32, self.t_u64);
        let tb = self.ty(Type::B1)?;
        let lane = self.lane()?;
        let d = self.desc_fields(a)?;
        let (stride, tid) = (d.stride, d.add_tid);
        let (kffff, k28, three) = (self.wc32(0xffff)?, self.wc32(28)?, self.wc32(3)?);
        let b = &mut self.b;
        let d1hi = b.bitwise_and(t32, None, a[1], kffff).map_err(internal)?;
        let records = a[2];
        let oob = b.shift_right_logical(t32, None, a[3], k28).map_err(internal)?;
        let oob = b.bitwise_and(t32, None, oob, three).map_err(internal)?;
        let zero = self.wc32(0)?;
        let index = if bo.idxen { a[4] } else { zero };
        let tidc = self.b.i_mul(t32, None, tid, lane).map_err(internal)?;
        let index = self.b.i_add(t32, None, index, tidc).map_err(internal)?;
        let imm = self.wc32(bo.offset)?;
        let offset = if bo.offen { a[5] } else { zero };
        let offset = self.b.i_add(t32, None, offset, imm).map_err(internal)?;
        let b = &mut self.b;
        let stride64 = b.u_convert(t64, None, stride).map_err(internal)?;
        let index64 = b.u_convert(t64, None, index).map_err(internal)?;
        let offset64 = b.u_convert(t64, None, offset).map_err(internal)?;
        let records64 = b.u_convert(t64, None, records).map_err(internal)?;
        let si = b.i_mul(t64, None, stride64, index64).map_err(internal)?;
        let plain = b.i_add(t64, None, si, offset64).map_err(internal)?;
        let within = self.swizzled_within(&d, plain, stride64, index64, offset64)?;
        let b = &mut self.b;
        let idx_out = b.u_greater_than_equal(tb, None, index, records).map_err(internal)?;
        let off_out = b.u_greater_than_equal(tb, None, offset, stride).map_err(internal)?;
        let out0 = b.logical_or(tb, None, idx_out, off_out).map_err(internal)?;
        let out2 = b.i_equal(tb, None, records, zero).map_err(internal)?;
        let out3 = b.u_greater_than_equal(tb, None, within, records64).map_err(internal)?;
        let (c0, c1, c2) = (self.wc32(0)?, self.wc32(1)?, self.wc32(2)?);
        let b = &mut self.b;
        let is0 = b.i_equal(tb, None, oob, c0).map_err(internal)?;
        let is1 = b.i_equal(tb, None, oob, c1).map_err(internal)?;
        let is2 = b.i_equal(tb, None, oob, c2).map_err(internal)?;
        let o = b.select(tb, None, is2, out2, out3).map_err(internal)?;
        let o = b.select(tb, None, is1, idx_out, o).map_err(internal)?;
        let out = b.select(tb, None, is0, out0, o).map_err(internal)?;
        let inside = b.logical_not(tb, None, out).map_err(internal)?;
        let on = self.mask_bit(mask, lane)?;
        let go = self.b.logical_and(tb, None, inside, on).map_err(internal)?;
        let k32 = self.wc64(32)?;
        let m48 = self.wc64((1 << 48) - 1)?;
        let b = &mut self.b;
        let lo = b.u_convert(t64, None, a[0]).map_err(internal)?;
        let hi = b.u_convert(t64, None, d1hi).map_err(internal)?;
        let hi = b.shift_left_logical(t64, None, hi, k32).map_err(internal)?;
        let base = b.bitwise_or(t64, None, hi, lo).map_err(internal)?;
        let so = b.u_convert(t64, None, a[6]).map_err(internal)?;
        let addr = b.i_add(t64, None, base, so).map_err(internal)?;
        let addr = b.i_add(t64, None, addr, within).map_err(internal)?;
        let addr = b.bitwise_and(t64, None, addr, m48).map_err(internal)?;
        Ok((addr, go, d))
    }

    fn buffer_op(&mut self, bo: BufferOp, args: &[Value], ty: Option<Type>) -> Result<Option<Word>, EmitError> {
        let n = bo.arity();
        let mask = self.mask_arg(args, n)?;
        let mut a = Vec::with_capacity(7);
        for &x in &args[..7] {
            let w = self.get(x)?;
            a.push(self.low_u32(x, w)?);
        }
        let (addr, go, fields) = self.buffer_address(bo, &a, mask)?;
        let place = self.buffer_place(bo, &fields, addr, go)?;
        let go = place.device;
        if let BufferKind::LoadFormat { .. } | BufferKind::StoreFormat { .. } = bo.kind {
            let word = self.buffer_format(bo, args, &a, addr, go)?;
            return match (word, ty) {
                (Some(w), Some(t)) => Ok(Some(self.value_of_word(w, t)?)),
                _ => Ok(None),
            };
        }
        let zero = self.wc64(0)?;
        let t64 = self.t_u64;
        let word = match bo.kind {
            BufferKind::Load => {
                let d = self.guarded(go, Some((t64, zero)), |em| em.load_bytes(Place::Device, addr, bo.bytes).map(Some))?;
                match (d, place.scratch) {
                    (Some(d), Some((byte, sgo))) => {
                        let s = self.guarded(sgo, Some((t64, zero)), |em| em.load_bytes(Place::Scratch, byte, bo.bytes).map(Some))?;
                        // At most one of the two took place; the other is 0.
                        Some(self.b.bitwise_or(t64, None, d, s.unwrap_or(zero)).map_err(internal)?)
                    }
                    (d, _) => d,
                }
            }
            BufferKind::Store => {
                let x = self.word_of(args[7])?;
                self.guarded(go, None, |em| em.store_bytes(Place::Device, addr, bo.bytes, x).map(|_| None))?;
                if let Some((byte, sgo)) = place.scratch {
                    self.guarded(sgo, None, |em| em.store_bytes(Place::Scratch, byte, bo.bytes, x).map(|_| None))?;
                }
                self.barrier()?;
                None
            }
            BufferKind::Atomic(k) => {
                let x = self.word_of(args[7])?;
                let s = if n > 8 { self.word_of(args[8])? } else { zero };
                let d = self.buffer_atomic(Place::Device, k, bo.bytes, addr, go, x, s)?;
                match place.scratch {
                    Some((byte, sgo)) => {
                        let p = self.private_atomic(k, bo.bytes, byte, sgo, x, s)?;
                        Some(self.b.bitwise_or(t64, None, d, p).map_err(internal)?)
                    }
                    None => Some(d),
                }
            }
            _ => None,
        };
        match (word, ty) {
            (Some(w), Some(t)) => Ok(Some(self.value_of_word(w, t)?)),
            _ => Ok(None),
        }
    }

    /// A read-modify-write as `atomic_apply` defines it, lane by lane in lane order (a barrier
    /// between lanes; over every wave of a several-wave workgroup in turn), returning the old
    /// value (0 where the lane does not take part). One loop over the lanes
    /// (`super::lane_loop`): each turn, the lane whose turn it is runs the read-modify-write and
    /// keeps the old value.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn buffer_atomic(&mut self, place: Place, k: AtomicKind, bytes: u8, addr: Word, go: Word, x: Word, swap: Word) -> Result<Word, EmitError> {
        let tb = self.ty(Type::B1)?;
        let lane = self.lane()?;
        let zero = self.wc64(0)?;
        let bits = 8 * bytes as u32;
        let m = self.wc64(if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 })?;
        // Several waves in the workgroup: every invocation of it in turn, wave by wave (the
        // interpreter runs one wave's access before the next wave's).
        let group = self.wave.as_ref().map_or(self.ws(), |w| w.group);
        let me = if group > self.ws() { self.local_index()? } else { lane };
        self.lane_loop(group, zero, |em, l, kept| {
            let mine = em.b.i_equal(tb, None, me, l).map_err(internal)?;
            let now = em.b.logical_and(tb, None, mine, go).map_err(internal)?;
            em.guarded(now, None, |em| {
                let old = if place == Place::Device && !(bytes == 8 && em.heap.is_some()) {
                    em.word_rmw(place, k, bytes, addr, x, swap, m)?
                } else {
                    let old = em.load_bytes(place, addr, bytes)?;
                    let new = em.atomic_new(k, bits, old, x, swap, m)?;
                    em.store_bytes(place, addr, bytes, new)?;
                    old
                };
                em.b.store(kept, old, None, []).map_err(internal)?;
                Ok(None)
            })?;
            em.barrier()
        })
    }

    /// `atomic_apply(k, bits, old, v, swap)` on u64 words (`m` masks `bits`).
    pub(super) fn atomic_new(&mut self, k: AtomicKind, bits: u32, old: Word, v: Word, swap: Word, m: Word) -> Result<Word, EmitError> {
        let t = self.t_u64;
        let tb = self.ty(Type::B1)?;
        let om = self.b.bitwise_and(t, None, old, m).map_err(internal)?;
        let vm = self.b.bitwise_and(t, None, v, m).map_err(internal)?;
        let one = self.wc64(1)?;
        let sext = |em: &mut Self, x: Word| -> Result<Word, EmitError> {
            let sh = em.wc64(64 - bits as u64)?;
            let l = em.b.shift_left_logical(t, None, x, sh).map_err(internal)?;
            em.b.shift_right_arithmetic(t, None, l, sh).map_err(internal)
        };
        let b_r = match k {
            AtomicKind::Add => self.b.i_add(t, None, old, v),
            AtomicKind::Sub => self.b.i_sub(t, None, old, v),
            AtomicKind::And => self.b.bitwise_and(t, None, old, v),
            AtomicKind::Or => self.b.bitwise_or(t, None, old, v),
            AtomicKind::Xor => self.b.bitwise_xor(t, None, old, v),
            AtomicKind::Exch => Ok(v),
            AtomicKind::Min(s) | AtomicKind::Max(s) => {
                let (x, y) = if s { (sext(self, old)?, sext(self, v)?) } else { (om, vm) };
                let lt = if s { self.b.s_less_than(tb, None, x, y) } else { self.b.u_less_than(tb, None, x, y) }.map_err(internal)?;
                let (p, q) = if matches!(k, AtomicKind::Min(_)) { (x, y) } else { (y, x) };
                self.b.select(t, None, lt, p, q)
            }
            AtomicKind::Inc => {
                let ge = self.b.u_greater_than_equal(tb, None, om, vm).map_err(internal)?;
                let inc = self.b.i_add(t, None, old, one).map_err(internal)?;
                let z = self.wc64(0)?;
                self.b.select(t, None, ge, z, inc)
            }
            AtomicKind::Dec => {
                let z = self.wc64(0)?;
                let is0 = self.b.i_equal(tb, None, om, z).map_err(internal)?;
                let gt = self.b.u_greater_than(tb, None, om, vm).map_err(internal)?;
                let wrap = self.b.logical_or(tb, None, is0, gt).map_err(internal)?;
                let dec = self.b.i_sub(t, None, old, one).map_err(internal)?;
                self.b.select(t, None, wrap, v, dec)
            }
            AtomicKind::CmpExch => {
                let eq = self.b.i_equal(tb, None, om, vm).map_err(internal)?;
                self.b.select(t, None, eq, swap, old)
            }
            _ => {
                let r = self.float_atomic_new(k, bits, om, vm)?;
                return self.b.bitwise_and(t, None, r, m).map_err(internal);
            }
        };
        let r = b_r.map_err(internal)?;
        self.b.bitwise_and(t, None, r, m).map_err(internal)
    }
}

/// Fields of a buffer descriptor, as SPIR-V values (`Em::desc_fields`).
pub(super) struct DescFields {
    /// SWIZZLE_ENABLE (word 1 bit 31), b1.
    pub swizzle: Word,
    /// Record stride in bytes (word 1 bits 16-29), u32.
    pub stride: Word,
    /// ADD_TID_ENABLE (word 3 bit 23), u32 0 or 1.
    pub add_tid: Word,
    /// The INDEX_STRIDE field (word 3 bits 21-22: 8 << field), u32.
    pub index_stride: Word,
}
