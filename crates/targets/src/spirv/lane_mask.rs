//! Lane masks in lanes-model functions (NVIDIA) in SPIR-V: `lanesel` and loads and stores that
//! carry a lane-mask operand (the sm_50 generic `LD` / `ST` whose predicate splits the lanes
//! between global and shared memory).
//!
//! One invocation runs each lane, so a mask matters through this lane's bit only: `lanesel`
//! picks its first value where the bit is set, and a masked load or store takes place only
//! there (a load reads 0 elsewhere, as the interpreter's lanes outside the mask do). Values of
//! 1, 2, 4 and 8 bytes; device memory through [`Em::load_bytes`] / [`Em::store_bytes`], shared
//! and local memory through the arrays of `super::local_memory` (an access outside reads 0 and
//! writes nothing). A ballot read only through such masks is the lane's own predicate in its
//! bit, with no exchange (`own_bit_only`): the lifters' guarded accesses take their lanes from
//! a ballot of the guard, and lanes reach those on any path.

use super::amd_memory::Place;
use super::emit::{internal, unsupported, Em, EmitError};
use isabridge_ir::ir::{ExecModel, Function, Value};
use isabridge_ir::ops::lane::LaneOp;
use isabridge_ir::ops::mem::{MemOp, Space};
use isabridge_ir::types::Type;
use isabridge_ir::Op;
use rspirv::spirv::Word;

/// Whether every use of ballot `v` of lanes-model function `f` reads this lane's bit only: the
/// mask operand of a memory op or of `lanesel` (a guarded access's lanes). Such a ballot is
/// the lane's own predicate in its bit ([`Em::own_bit`]): no exchange, so lanes may reach it on
/// any path.
pub(super) fn own_bit_only(f: &Function, v: Value) -> bool {
    if f.model != ExecModel::Lanes || !matches!(f.insts[v].op, Op::Lane(LaneOp::Ballot)) || f.insts[v].args.len() != 1 {
        return false;
    }
    let mut used = false;
    for &b in &f.layout {
        if f.blocks[b].term.uses().contains(&v) {
            return false;
        }
        for &u in &f.blocks[b].insts {
            let d = &f.insts[u];
            for (i, &a) in d.args.iter().enumerate() {
                if a != v {
                    continue;
                }
                used = true;
                let own = match d.op {
                    Op::LaneSelect => i == 0,
                    Op::Mem(m) => i == m.arity(),
                    _ => false,
                };
                if !own {
                    return false;
                }
            }
        }
    }
    used
}

impl Em<'_> {
    /// A ballot of b1 value `p` that only this lane's bit of is read ([`own_bit_only`]): `p` in
    /// this lane's bit (u64).
    pub(super) fn own_bit(&mut self, p: Value) -> Result<Word, EmitError> {
        let x = self.get(p)?;
        let lane = self.lane()?;
        let l = self.b.u_convert(self.t_u64, None, lane).map_err(internal)?;
        let one = self.wc64(1)?;
        let bit = self.b.shift_left_logical(self.t_u64, None, one, l).map_err(internal)?;
        let zero = self.wc64(0)?;
        self.b.select(self.t_u64, None, x, bit, zero).map_err(internal)
    }

    /// `lanesel` or a masked load or store of a lanes-model function; false when `v` is not
    /// one.
    pub(super) fn lanes_masked(&mut self, v: Value) -> Result<bool, EmitError> {
        if self.f.model != ExecModel::Lanes {
            return Ok(false);
        }
        let data = &self.f.insts[v];
        let (op, args, ty) = (data.op.clone(), data.args.clone(), data.ty);
        let text = op.mnemonic();
        let (m, place) = match op {
            Op::LaneSelect => {
                self.lane_select(v, ty, &args)?;
                return Ok(true);
            }
            Op::Mem(m @ (MemOp::Load(s) | MemOp::Store(s))) if args.len() > m.arity() => match s {
                Space::Global => (m, Place::Device),
                Space::Shared => (m, Place::Lds),
                Space::Scratch => (m, Place::Scratch),
                Space::Constant(_) => return Ok(false),
            },
            _ => return Ok(false),
        };
        let t = match m {
            MemOp::Load(_) => ty.ok_or_else(|| internal("a load without a type"))?,
            _ => self.vty(args[1])?,
        };
        if t == Type::B1 || t == Type::Mask || !matches!(t.bits(), 8 | 16 | 32 | 64) {
            return Err(unsupported(self.cur_ir, v.0, text, "masked memory values other than 1, 2, 4 or 8 bytes"));
        }
        let bytes = (t.bits() / 8) as u8;
        let mask = self.get(args[m.arity()])?;
        let lane = self.lane()?;
        let mut go = self.mask_bit(mask, lane)?;
        let zero = self.wc64(0)?;
        let addr = if place == Place::Device {
            self.get(args[0])?
        } else if self.array_bytes(place).is_none() {
            // No such memory: every access is outside it.
            if let MemOp::Load(_) = m {
                let z = self.konst(t, 0)?;
                self.define(v, z)?;
            }
            return Ok(true);
        } else {
            let (addr, inside) = self.array_offset(place, args[0], bytes as u32)?;
            let tb = self.ty(Type::B1)?;
            go = self.b.logical_and(tb, None, go, inside).map_err(internal)?;
            addr
        };
        if let MemOp::Store(_) = m {
            let x = self.word_of(args[1])?;
            self.guarded(go, None, |em| em.store_bytes(place, addr, bytes, x).map(|_| None))?;
            return Ok(true);
        }
        let w = self.guarded(go, Some((self.t_u64, zero)), |em| em.load_bytes(place, addr, bytes).map(Some))?;
        let w = w.ok_or_else(|| internal("a guarded load without a result"))?;
        let r = self.value_of_word(w, t)?;
        self.define(v, r)?;
        Ok(true)
    }
}
