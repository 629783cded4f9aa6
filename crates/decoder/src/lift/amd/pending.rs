//! Late-arriving memory results ([`Pending`]): with [`super::lift_late_memory`], every memory
//! result an instruction uses (to write its registers) goes through a pending op naming the
//! kind of outstanding operation the machine counts it as, so the interpreter can hold the
//! registers back until a wait retires it.
//!
//! Kinds, by the counters the gfx10 and gfx12 waits name (waits.rs): scalar memory (SMEM)
//! `scalar`; LDS, including the DS-encoded cross-lane ops (`ds_bpermute`, `ds_swizzle`, which
//! the LDS unit returns) and the LDS path of a FLAT access, `shared`; image sample, gather and
//! LOD queries `sample`; BVH intersections `bvh`; every other vector memory result (buffer,
//! global, scratch, flat, image loads, atomics that return) `load`; gfx12's LDS parameter and
//! direct loads (VDSDIR: `ds_param_load`, `ds_direct_load`), which gfx12 counts on expcnt
//! (waits.rs), `attribute`. One machine instruction is one event: its first result starts it
//! and the others join it.

use super::{At, Cx};
use isabridge_ir::ops::control::{Pending, WaitKinds};
use isabridge_ir::ops::mem::{MemOp, Space};
use isabridge_ir::ops::Op;
use isabridge_ir::{InstData, Value};

/// The kind a memory result of `op`, lifted from `at`, arrives as; None when `op` gives no
/// memory result.
fn kind(at: &At, op: &Op) -> Option<WaitKinds> {
    let enc = at.inst.encoding;
    let smem = enc.contains("SMEM");
    let ds = matches!(enc, "ENC_DS" | "ENC_VDS");
    Some(match op {
        _ if smem && matches!(op, Op::Mem(_) | Op::Buffer(_)) => WaitKinds::SCALAR,
        Op::Mem(_) | Op::Param(_) if enc == "ENC_VDSDIR" => WaitKinds::ATTRIBUTE,
        Op::Mem(MemOp::Store(_)) => return None,
        Op::Mem(m) => match m.space() {
            Space::Shared => WaitKinds::SHARED,
            Space::Constant(_) => WaitKinds::SCALAR,
            Space::Global | Space::Scratch => WaitKinds::LOAD,
        },
        Op::Buffer(b) if !b.is_store() => WaitKinds::LOAD,
        Op::Image(i) if !i.is_store() => {
            if i.samples() {
                WaitKinds::SAMPLE
            } else {
                WaitKinds::LOAD
            }
        }
        Op::Ray(_) => WaitKinds::BVH,
        Op::Lane(_) if ds => WaitKinds::SHARED,
        _ => return None,
    })
}

/// Put a pending op after every memory result that the IR lifted from `at` (values `first..`)
/// uses: the memory op moves to a new value just before, and the pending op takes its place,
/// so every use reads the pending result. A memory result that only feeds another one of the
/// same instruction (the LDS atomic of `ds_append` whose old value `readfirstlane` broadcasts,
/// the lane exchanges inside one `ds_permute`) is internal to the instruction and stays
/// unmarked: the machine returns only the last one to registers.
pub(super) fn mark(cx: &mut Cx, at: &At, first: usize) {
    let end = cx.f.insts.len();
    let is_result = |cx: &Cx, i: usize| {
        let v = Value(i as u32);
        kind(at, &cx.f.insts[v].op).is_some()
            && cx.f.insts[v].ty.is_some()
            && (i + 1..end).any(|u| cx.f.insts[Value(u as u32)].args.contains(&v))
    };
    // Values of the instruction that flow into a later memory result of it.
    let mut feeds = vec![false; end - first];
    for i in (first..end).rev() {
        if feeds[i - first] || is_result(cx, i) {
            for a in &cx.f.insts[Value(i as u32)].args {
                if let Some(f) = (a.0 as usize).checked_sub(first).and_then(|j| feeds.get_mut(j)) {
                    *f = true;
                }
            }
        }
    }
    let mut join = false;
    for i in first..end {
        let v = Value(i as u32);
        if feeds[i - first] || !is_result(cx, i) {
            continue;
        }
        let Some(k) = kind(at, &cx.f.insts[v].op) else { continue };
        let Some((b, pos)) = cx.f.layout.iter().rev().find_map(|b| cx.f.blocks[*b].insts.iter().rposition(|x| *x == v).map(|p| (*b, p))) else {
            continue;
        };
        let d = cx.f.insts[v].clone();
        let m = cx.f.create(d.op, d.args, d.ty, d.uniform);
        cx.f.insts[v] = InstData { op: Op::Pending(Pending { kinds: k, join }), args: vec![m], ty: d.ty, uniform: d.uniform };
        cx.f.blocks[b].insts.insert(pos, m);
        join = true;
    }
}
