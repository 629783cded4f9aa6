//! gfx1201 (RDNA4) memory encodings on the gfx1013 family code: VGLOBAL, VFLAT and VSCRATCH
//! (`flat.rs`), SMEM (`smem.rs`), VDS (`ds.rs`, `lanes.rs`), VBUFFER (`mubuf.rs`, `mtbuf.rs`).
//! An instruction lifts under its gfx1013 name (`gfx12_mem_names.rs`, generated from both specs
//! and ACO's opcode rows) after its gfx12 operand fields are renamed to the gfx10 ones the family
//! code reads. What gfx12 changed, with the RDNA4 ISA guide's sections as the source:
//! - Immediate offsets are the 24-bit signed IOFFSET (§8.1 SMEM, §11 FLAT/GLOBAL/SCRATCH; gfx10:
//!   21-bit signed SMEM, 12-bit FLAT): [`flat_address`] and [`ioffset`]. VBUFFER's IOFFSET
//!   "must be non-negative" (§9) and is the buffer op's immediate offset.
//! - SCRATCH adds the VGPR (when SVE is set) and the SGPR (when SADDR is not NULL), where gfx10 takes
//!   one or the other (§11 instruction fields).
//! - TH and SCOPE replace GLC/SLC/DLC. They are cache policy, with no effect on what one wave reads,
//!   except TH[0] of an atomic, which returns the pre-op value (§4.1.1, table 15): lifted as gfx10's
//!   GLC.
//! - `global_inv` / `global_wb` / `global_wbinv` are cache invalidate / write-back ops at a SCOPE
//!   (§4.1.1): fences at that scope.
//! - `ds_cmpstore_*` takes the new value in DATA0 and the compare value in DATA1 (§16.15
//!   DS_CMPSTORE_B32 notes), the other way round from gfx10's `ds_cmpst_*`.
//! - `s_buffer_load` reads only the V#'s base, stride and record count (§8.1), with its own range
//!   rule (§8.4.1): [`smem_vsharp`].
//! - The V# (§9.6 table 57): the 6-bit FORMAT field numbers formats as gfx12's BUF_FMT (converted to
//!   the IR's gfx10 numbering), bits 115:114 scale the stride (×1, ×4, ×8, ×32), and the swizzle
//!   enable is two bits (63:62): [`vsharp_as_gfx10`]. TBUFFER's FORMAT field uses the same
//!   numbering.
//! - Float atomics gfx10 has no global/flat form of (`*_atomic_add_f32`) and the minimumNumber /
//!   maximumNumber atomics (`*_min_num_f32`, `*_max_num_f32`: the IR's fmin/fmax definition) lift
//!   to the IR's float atomics.

use super::flat::Seg;
use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::{Inst, Modifier, OperandKind};
use isabridge_ir::ops::control::SyncOp;
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::int::{ICmp, IntOp, Overflow, ShiftRule};
use isabridge_ir::ops::mem::{AtomicKind, Scope};
use isabridge_ir::ops::Op;
use isabridge_ir::{Type, Value};

/// Whether `inst` is in one of the gfx1201 memory encodings this file lifts.
pub(super) fn is_memory(inst: &Inst) -> bool {
    matches!(inst.encoding, "ENC_VGLOBAL" | "ENC_VFLAT" | "ENC_VSCRATCH" | "ENC_SMEM" | "ENC_VDS" | "ENC_VBUFFER")
}

/// Lift a gfx1201 memory instruction.
pub(super) fn lift(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let name = at.inst.name;
    match name {
        "GLOBAL_INV" | "GLOBAL_WB" | "GLOBAL_WBINV" => {
            let scope = match at.inst.named("SCOPE").unwrap_or(0) {
                0 => Scope::Workgroup,
                3 => Scope::System,
                _ => Scope::Device,
            };
            cx.b().ins(Op::Sync(SyncOp::Fence(scope)), &[], None);
            return Ok(());
        }
        // Prefetches only warm caches.
        "S_PREFETCH_INST" | "S_PREFETCH_INST_PC_REL" | "S_PREFETCH_DATA" | "S_BUFFER_PREFETCH_DATA"
        | "S_PREFETCH_DATA_PC_REL" => return Ok(()),
        _ => {}
    }
    let inst = gfx10_fields(at.inst);
    let norm = At { inst: &inst, d: at.d };
    if let Some((seg, kind)) = float_flat_atomic(name) {
        return super::flat::atomic(cx, &norm, seg, kind, false);
    }
    if name == "BUFFER_ATOMIC_ADD_F32" {
        return super::mubuf::atomic(cx, &norm, AtomicKind::FAdd, false);
    }
    let gfx10 = match name {
        "S_LOAD_B96" => Some("S_LOAD_DWORDX3"),
        "S_BUFFER_LOAD_B96" => Some("S_BUFFER_LOAD_DWORDX3"),
        "DS_CMPSTORE_B32" => Some("DS_CMPST_B32"),
        "DS_CMPSTORE_B64" => Some("DS_CMPST_B64"),
        "DS_CMPSTORE_RTN_B32" => Some("DS_CMPST_RTN_B32"),
        "DS_CMPSTORE_RTN_B64" => Some("DS_CMPST_RTN_B64"),
        _ => super::gfx12_mem_names::gfx10_name(name),
    };
    let Some(gfx10) = gfx10 else {
        return Err(cx.unsupported(at, &format!("gfx1201 {} instruction without a lifter yet", at.inst.encoding)));
    };
    let mut norm = norm;
    cx.lift_named(&mut norm, gfx10)
}

/// The global or flat float atomic `name` names, if it is one.
fn float_flat_atomic(name: &str) -> Option<(Seg, AtomicKind)> {
    let (seg, rest) = if let Some(r) = name.strip_prefix("GLOBAL_ATOMIC_") {
        (Seg::Global, r)
    } else {
        (Seg::Flat, name.strip_prefix("FLAT_ATOMIC_")?)
    };
    let kind = match rest {
        "ADD_F32" => AtomicKind::FAdd,
        "MIN_NUM_F32" => AtomicKind::FMin,
        "MAX_NUM_F32" => AtomicKind::FMax,
        _ => return None,
    };
    Some((seg, kind))
}

/// A copy of `inst` with the operand fields and flags the gfx10 family code reads.
fn gfx10_fields(inst: &Inst) -> Inst {
    let mut i = inst.clone();
    let flat = matches!(inst.encoding, "ENC_VGLOBAL" | "ENC_VFLAT" | "ENC_VSCRATCH");
    let buffer = inst.encoding == "ENC_VBUFFER";
    for o in &mut i.operands {
        o.field = match (o.field, flat, buffer) {
            ("VADDR", true, _) => "ADDR",
            ("VDATA", true, _) => "DATA",
            ("RSRC", _, true) => "SRSRC",
            (f, ..) => f,
        };
    }
    if inst.encoding == "ENC_VDS" && inst.name.starts_with("DS_CMPSTORE_") {
        // gfx10's ds_cmpst reads the compare value first.
        let d0 = i.operands.iter().position(|o| o.field == "DATA0");
        let d1 = i.operands.iter().position(|o| o.field == "DATA1");
        if let (Some(a), Some(b)) = (d0, d1) {
            i.operands.swap(a, b);
        }
    }
    let atomic = inst.name.contains("_ATOMIC_");
    let mut mods = Vec::with_capacity(i.modifiers.len() + 1);
    for m in &i.modifiers {
        match *m {
            Modifier::Named("TH", th) if atomic && th & 1 != 0 => mods.push(Modifier::Named("GLC", 1)),
            Modifier::Named("IOFFSET", v) if buffer => mods.push(Modifier::Named("OFFSET", v)),
            Modifier::Named("FORMAT", v) if buffer => {
                let code = super::gfx12_mem_names::BUF_FMT_TO_GFX10.get(v as usize).copied().unwrap_or(0);
                mods.push(Modifier::Named("FORMAT", code as u64));
            }
            m => mods.push(m),
        }
    }
    i.modifiers = mods;
    i
}

/// The 24-bit signed IOFFSET of a gfx12 SMEM, flat, global or scratch instruction, as a 32-bit
/// two's-complement value; None when the instruction has no IOFFSET field (gfx10) or it is zero.
pub(super) fn ioffset(at: &At) -> Option<u32> {
    at.inst.named("IOFFSET").map(|raw| (((raw as u32) << 8) as i32 >> 8) as u32)
}

/// The address of a gfx12 flat, global or scratch access: i64 for flat and global, the i32
/// offset in the lane's scratch for scratch (§11 instruction fields).
pub(super) fn flat_address(cx: &mut Cx, at: &At, seg: Seg) -> Result<Value, LiftError> {
    let imm = ioffset(at).unwrap_or(0);
    let is_off = |o: &crate::operand::Operand| {
        matches!(o.kind, OperandKind::Field { ty: "OFF", .. } | OperandKind::Special { reg: crate::operand::SpecialReg::Null, .. })
    };
    let vaddr = at.field("ADDR").copied().filter(|o| !is_off(o));
    let saddr = at.field("SADDR").copied().filter(|o| !is_off(o));
    let add = |cx: &mut Cx, ty: Type, a: Value, b: Value| cx.b().int(IntOp::Add(Overflow::Wrap), ty, &[a, b]);
    if seg == Seg::Scratch {
        let mut a = cx.k32(imm);
        if at.inst.named("SVE").unwrap_or(0) != 0 {
            let v = vaddr.ok_or_else(|| cx.unsupported(at, "scratch VGPR offset missing"))?;
            let v = cx.src32(at, &v, 0)?;
            a = add(cx, Type::I32, v, a);
        }
        if let Some(s) = saddr {
            let s = cx.src32(at, &s, 0)?;
            a = add(cx, Type::I32, s, a);
        }
        return Ok(a);
    }
    if seg == Seg::Flat && at.inst.named("SADDR").is_some_and(|s| s != 0x7c) {
        // §15.10: a flat SADDR other than NULL selects GVS addressing.
        return Err(cx.unsupported(at, "flat access with an SGPR address (GVS)"));
    }
    let v = vaddr.ok_or_else(|| cx.unsupported(at, "flat address missing"))?;
    let base = match saddr {
        Some(s) if seg == Seg::Global => {
            let lo = cx.src32(at, &s, 0)?;
            let hi = cx.src32(at, &s, 1)?;
            let sb = cx.join64(lo, hi);
            let off = cx.src32(at, &v, 0)?;
            let off = cx.b().conv(ConvOp::IToI { signed: false }, Type::I64, off);
            add(cx, Type::I64, sb, off)
        }
        _ => {
            let lo = cx.src32(at, &v, 0)?;
            let hi = cx.src32(at, &v, 1)?;
            cx.join64(lo, hi)
        }
    };
    let k = cx.k(Type::I64, imm as i32 as i64 as u64);
    Ok(add(cx, Type::I64, base, k))
}

/// The V# of a gfx12 `s_buffer_load` rewritten for the IR's buffer op: SMEM reads only the base,
/// stride and record count, and a dword is out of range when its offset is at least
/// (stride, or 1 when 0) × records (§8.1 SBASE, §8.4.1): a raw descriptor (range rule 3) over that
/// many bytes (saturated to 32 bits), without stride, format, swizzle or lane-id index.
pub(super) fn smem_vsharp(cx: &mut Cx, w: &mut [Value]) {
    let int = |cx: &mut Cx, op: IntOp, a: Value, b: Value| cx.b().int(op, Type::I32, &[a, b]);
    let sixteen = cx.k32(16);
    let stride = int(cx, IntOp::Shr(false, ShiftRule::Wrap), w[1], sixteen);
    let mask = cx.k32(0x3fff);
    let stride = int(cx, IntOp::And, stride, mask);
    let zero = cx.k32(0);
    let one = cx.k32(1);
    let none = cx.b().int(IntOp::Cmp(ICmp::Eq), Type::B1, &[stride, zero]);
    let stride = cx.b().select(Type::I32, none, one, stride);
    let lo = int(cx, IntOp::MulLo, stride, w[2]);
    let hi = int(cx, IntOp::MulHi(false), stride, w[2]);
    let over = cx.b().int(IntOp::Cmp(ICmp::Ne), Type::B1, &[hi, zero]);
    let all = cx.k32(u32::MAX);
    w[2] = cx.b().select(Type::I32, over, all, lo);
    let base_hi = cx.k32(0xffff);
    w[1] = int(cx, IntOp::And, w[1], base_hi);
    w[3] = cx.k32(3 << 28);
}

/// A gfx12 V# rewritten into the descriptor layout the IR reads (gfx10's): the format code
/// renumbered, a scaled stride multiplied out, and swizzling marked in bit 31 of word 1 when the
/// gfx12 swizzle enable (word 1 bits 31:30) is set or the scaled stride does not fit the 14-bit
/// stride field (the IR's interpreter refuses swizzled descriptors without ADD_TID_ENABLE, which a
/// refused one loses, so neither runs silently wrong).
pub(super) fn vsharp_as_gfx10(cx: &mut Cx, w: &mut [Value]) {
    let int = |cx: &mut Cx, op: IntOp, a: Value, b: Value| cx.b().int(op, Type::I32, &[a, b]);
    let shr = |cx: &mut Cx, a: Value, n: u32| {
        let k = cx.k32(n);
        int(cx, IntOp::Shr(false, ShiftRule::Wrap), a, k)
    };
    let and = |cx: &mut Cx, a: Value, m: u32| {
        let k = cx.k32(m);
        int(cx, IntOp::And, a, k)
    };
    let (w1, w3) = (w[1], w[3]);
    // Stride × 1, 4, 8 or 32 (word 3 bits 19:18).
    let scale = shr(cx, w3, 18);
    let scale = and(cx, scale, 3);
    let mut shift = cx.k32(0);
    for (code, s) in [(1u32, 2u32), (2, 3), (3, 5)] {
        let c = cx.k32(code);
        let is = cx.b().int(IntOp::Cmp(ICmp::Eq), Type::B1, &[scale, c]);
        let sv = cx.k32(s);
        shift = cx.b().select(Type::I32, is, sv, shift);
    }
    let stride = shr(cx, w1, 16);
    let stride = and(cx, stride, 0x3fff);
    let stride = int(cx, IntOp::Shl(ShiftRule::Wrap), stride, shift);
    let limit = cx.k32(0x3fff);
    let too_wide = cx.b().int(IntOp::Cmp(ICmp::Ugt), Type::B1, &[stride, limit]);
    let swz = shr(cx, w1, 30);
    let zero = cx.k32(0);
    let swizzled = cx.b().int(IntOp::Cmp(ICmp::Ne), Type::B1, &[swz, zero]);
    let refuse = cx.b().int(IntOp::Or, Type::B1, &[too_wide, swizzled]);
    let bit31 = cx.k32(1 << 31);
    let swz_bit = cx.b().select(Type::I32, refuse, bit31, zero);
    let base_hi = and(cx, w1, 0xffff);
    let stride = and(cx, stride, 0x3fff);
    let sixteen = cx.k32(16);
    let stride = int(cx, IntOp::Shl(ShiftRule::Wrap), stride, sixteen);
    let n1 = int(cx, IntOp::Or, base_hi, stride);
    w[1] = int(cx, IntOp::Or, n1, swz_bit);
    // Format: gfx12 BUF_FMT (6 bits at 12) to the gfx10 code (7 bits at 12), by the runs of equal
    // distance between the two numberings in the generated table.
    let code = shr(cx, w3, 12);
    let code = and(cx, code, 63);
    let mut gfx10 = code;
    let table = &super::gfx12_mem_names::BUF_FMT_TO_GFX10;
    let mut run = 0i32;
    for (c, &g) in table.iter().enumerate().skip(1) {
        let d = g as i32 - c as i32;
        if d == run {
            continue;
        }
        run = d;
        let at = cx.k32(c as u32);
        let ge = cx.b().int(IntOp::Cmp(ICmp::Uge), Type::B1, &[code, at]);
        let dk = cx.k32(d as u32);
        let moved = int(cx, IntOp::Add(Overflow::Wrap), code, dk);
        gfx10 = cx.b().select(Type::I32, ge, moved, gfx10);
    }
    let keep = and(cx, w3, !(0x7f << 12));
    // A refused descriptor also loses ADD_TID_ENABLE (bit 23), so it never reads as the one
    // swizzled form the interpreter runs (a gfx10 private segment buffer's,
    // `BufferDesc::private_swizzle`).
    let no_tid = cx.k32(!(1 << 23));
    let all = cx.k32(u32::MAX);
    let tid_mask = cx.b().select(Type::I32, refuse, no_tid, all);
    let keep = int(cx, IntOp::And, keep, tid_mask);
    let twelve = cx.k32(12);
    let placed = int(cx, IntOp::Shl(ShiftRule::Wrap), gfx10, twelve);
    w[3] = int(cx, IntOp::Or, keep, placed);
}
