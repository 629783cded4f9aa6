//! Scalar memory (SMEM): `s_load_dword*` from a 64-bit base in an SGPR pair and
//! `s_buffer_load_dword*` through a V# in four SGPRs, one IR op per dword; `s_memtime` /
//! `s_memrealtime` as defined values; `s_dcache_inv` / `s_gl1_inv` as device-scope fences.
//!
//! The address is the base plus the signed 21-bit immediate `OFFSET` plus the SGPR named by
//! `SOFFSET` (none when it is `null`); SMEM ignores the two low address bits (dword accesses).
//! Scalar loads run whatever EXEC holds, so they name the all-lanes mask; their results are the
//! same on every lane.
//!
//! The interpreter has no clock: `s_memtime` and `s_memrealtime` read 0 (a defined value, so
//! a program that measures time runs deterministically; it only ever sees zero elapsed time).

use super::{At, Cx};
use crate::lift::LiftError;
use isabridge_ir::ops::buffer::{BufferKind, BufferOp};
use isabridge_ir::ops::control::SyncOp;
use isabridge_ir::ops::int::IntOp;
use isabridge_ir::ops::mem::{MemOp, Scope, Space};
use isabridge_ir::ops::Op;
use isabridge_ir::{Type, Value};

/// Lift a scalar memory instruction; None when `name` is not one.
pub(super) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    let words = |s: &str| match s {
        "" => Some(1),
        "X2" => Some(2),
        "X3" => Some(3),
        "X4" => Some(4),
        "X8" => Some(8),
        "X16" => Some(16),
        _ => None,
    };
    if let Some(rest) = name.strip_prefix("S_LOAD_DWORD") {
        return Some(load(cx, at, words(rest)?));
    }
    if let Some(rest) = name.strip_prefix("S_BUFFER_LOAD_DWORD") {
        return Some(buffer_load(cx, at, words(rest)?));
    }
    Some(match name {
        "S_MEMTIME" | "S_MEMREALTIME" => clock(cx, at),
        "S_DCACHE_INV" | "S_GL1_INV" => {
            cx.b().ins(Op::Sync(SyncOp::Fence(Scope::Device)), &[], None);
            Ok(())
        }
        _ => return None,
    })
}

/// The byte offset the instruction adds to its base: the immediate plus the SOFFSET SGPR.
fn offset(cx: &mut Cx, at: &At) -> Result<Value, LiftError> {
    let raw = at.inst.named("OFFSET").unwrap_or(0) as u32;
    let imm = super::gfx12_mem::ioffset(at).unwrap_or(((raw << 11) as i32 >> 11) as u32);
    let mut off = cx.k32(imm);
    if let Some(so) = at.field("SOFFSET").copied() {
        if cx.key_of(&so, 0).is_some() || matches!(so.kind, crate::operand::OperandKind::Literal(_)) {
            let s = cx.src32(at, &so, 0)?;
            off = cx.b().int(IntOp::Add(isabridge_ir::ops::int::Overflow::Wrap), Type::I32, &[off, s]);
        }
    }
    Ok(off)
}

fn all_lanes(cx: &mut Cx) -> Value {
    cx.k(Type::Mask, u64::MAX)
}

fn load(cx: &mut Cx, at: &At, words: u16) -> Result<(), LiftError> {
    let base = at.field("SBASE").copied().ok_or_else(|| cx.unsupported(at, "SMEM base missing"))?;
    let dst = at.field("SDATA").copied().ok_or_else(|| cx.unsupported(at, "SMEM destination missing"))?;
    let lo = cx.src32(at, &base, 0)?;
    let hi = cx.src32(at, &base, 1)?;
    let base = cx.join64(lo, hi);
    let off = offset(cx, at)?;
    let off64 = cx.b().conv(isabridge_ir::ops::conv::ConvOp::IToI { signed: false }, Type::I64, off);
    let addr = cx.b().int(IntOp::Add(isabridge_ir::ops::int::Overflow::Wrap), Type::I64, &[base, off64]);
    let align = cx.k(Type::I64, !3u64);
    let addr = cx.b().int(IntOp::And, Type::I64, &[addr, align]);
    let mask = all_lanes(cx);
    let mut vals = Vec::with_capacity(words as usize);
    for k in 0..words {
        let d = cx.k(Type::I64, 4 * k as u64);
        let a = cx.b().int(IntOp::Add(isabridge_ir::ops::int::Overflow::Wrap), Type::I64, &[addr, d]);
        let v = cx.b().ins(Op::Mem(MemOp::Load(Space::Global)), &[a, mask], Some(Type::I32));
        vals.push(v);
    }
    // Every dword is read before any is written: the destination may overlap the base.
    for (k, v) in vals.into_iter().enumerate() {
        cx.def_s32(at, &dst, k as u16, v)?;
    }
    Ok(())
}

fn buffer_load(cx: &mut Cx, at: &At, words: u16) -> Result<(), LiftError> {
    let base = at.field("SBASE").copied().ok_or_else(|| cx.unsupported(at, "SMEM descriptor missing"))?;
    let dst = at.field("SDATA").copied().ok_or_else(|| cx.unsupported(at, "SMEM destination missing"))?;
    let mut args = Vec::with_capacity(9);
    for k in 0..4 {
        args.push(cx.src32(at, &base, k)?);
    }
    if cx.isa == crate::Isa::Gfx1201 {
        super::gfx12_mem::smem_vsharp(cx, &mut args);
    }
    let off = offset(cx, at)?;
    let align = cx.k32(!3u32);
    let off = cx.b().int(IntOp::And, Type::I32, &[off, align]);
    let zero = cx.k32(0);
    // The offset goes in the per-lane offset slot (`offen`), which the range check sees.
    args.extend([zero, off, zero]);
    let mask = all_lanes(cx);
    let mut vals = Vec::with_capacity(words as usize);
    for k in 0..words {
        let bo = BufferOp { kind: BufferKind::Load, bytes: 4, offset: 4 * k as u32, idxen: false, offen: true };
        let mut a = args.clone();
        a.push(mask);
        vals.push(cx.b().ins(Op::Buffer(bo), &a, Some(Type::I32)));
    }
    for (k, v) in vals.into_iter().enumerate() {
        cx.def_s32(at, &dst, k as u16, v)?;
    }
    Ok(())
}

fn clock(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let dst = at.field("SDATA").copied().ok_or_else(|| cx.unsupported(at, "SMEM destination missing"))?;
    let z = cx.k32(0);
    cx.def_s32(at, &dst, 0, z)?;
    cx.def_s32(at, &dst, 1, z)
}
