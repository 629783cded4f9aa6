//! Memory: LDG / STG (global, `.E` 64-bit addresses), LDS / STS (shared), LDL / STL (local, the
//! IR's per-lane scratch space), LD / ST (generic addresses, taken as global), LDGSTS (a global
//! load stored to shared at once), ATOMG / ATOM / ATOMS / RED as IR atomics, MEMBAR and CCTL as
//! fences; DEPBAR / LDGDEPBAR / ERRBAR wait for memory the interpreter has already completed.
//! Sizes: `.U8` / `.S8` / `.U16` / `.S16` (extended into the register), 32 bits, `.64`, `.128`
//! (consecutive registers). Cache and ordering suffixes change nothing a single program sees.

use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::{Operand, OperandKind, RegRange};
use isabridge_ir::ops::control::SyncOp;
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::int::{IntOp, Overflow, ShiftRule};
use isabridge_ir::ops::mem::{AtomicKind, MemOp, Scope, Space};
use isabridge_ir::ops::Op;
use isabridge_ir::{Type, Value};

/// Lift `at` if it belongs to this family.
pub(crate) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    Some(match name {
        "LDG" | "LDS" | "LDL" | "LD" => load(cx, at, space_of(name)),
        "STG" | "STS" | "STL" | "ST" => store(cx, at, space_of(name)),
        "LDGSTS" => ldgsts(cx, at),
        "ATOMG" | "ATOM" | "ATOMS" | "RED" => atomic(cx, at, name),
        "MEMBAR" => membar(cx, at),
        "CCTL" => cctl(cx, at),
        "DEPBAR" | "LDGDEPBAR" | "ERRBAR" => Ok(()),
        _ => return None,
    })
}

fn space_of(name: &str) -> Space {
    match name {
        "LDS" | "STS" | "ATOMS" => Space::Shared,
        "LDL" | "STL" => Space::Scratch,
        _ => Space::Global,
    }
}

/// The address of a memory operand: 64-bit (i64) in the global space, else a 32-bit offset.
pub(crate) fn address(cx: &mut Cx, at: &At, op: &Operand, space: Space) -> Result<Value, LiftError> {
    let OperandKind::Mem { base, ubase, offset } = op.kind else { return Err(cx.unsupported(at, "memory operand")) };
    let reg = |r: RegRange| Operand { kind: OperandKind::Reg(r), ..*op };
    if space == Space::Global {
        // A register pair (`[R2.64]`) or a 32-bit register zero-extended (`[R12]`).
        let mut a = match base {
            Some(r) if r.count >= 2 => cx.src64(at, &reg(r))?,
            Some(r) => {
                let w = cx.word(at, &reg(r), 0)?;
                cx.b().conv(ConvOp::IToI { signed: false }, Type::I64, w)
            }
            None => cx.k(Type::I64, 0),
        };
        if let Some(u) = ubase {
            let u = cx.src64(at, &reg(u))?;
            a = cx.b().int(IntOp::Add(Overflow::Wrap), Type::I64, &[a, u]);
        }
        let o = cx.k(Type::I64, offset as u64);
        return Ok(cx.b().int(IntOp::Add(Overflow::Wrap), Type::I64, &[a, o]));
    }
    let mut a = match base {
        Some(r) => {
            let w = cx.word(at, &reg(r), 0)?;
            match shared_scale(at) {
                0 => w,
                k => {
                    let sh = cx.k32(k);
                    cx.b().int(IntOp::Shl(ShiftRule::Clamp), Type::I32, &[w, sh])
                }
            }
        }
        None => cx.k32(0),
    };
    if let Some(u) = ubase {
        let u = cx.word(at, &reg(u), 0)?;
        a = cx.b().int(IntOp::Add(Overflow::Wrap), Type::I32, &[a, u]);
    }
    let o = cx.k32(offset as u32);
    Ok(cx.b().int(IntOp::Add(Overflow::Wrap), Type::I32, &[a, o]))
}

/// The left shift sm_86 `LDS`, `STS` and `ATOMS` apply to their register base: bits 78-79 of
/// the instruction, which nvdisasm prints as `.X4`, `.X8` or `.X16` after the base
/// (`crate::sm86::mem`; fixtures/nvidia/listings/memory.sm86.txt `mem_shared`: `LDS.128 R4,
/// [R13.X16]` for PTX `ld.shared.v4.u32 [t * 16]`, `LDS.64 R16, [R13.X8+0x8]` for
/// `ld.shared.u64 [t * 8 + 8]`, R13 holding t). 0 for every other instruction.
fn shared_scale(at: &At) -> u32 {
    if at.inst.isa != crate::Isa::Sm86 || !matches!(at.inst.name, "LDS" | "STS" | "ATOMS") {
        return 0;
    }
    match (at.d.words[2] >> 14) & 3 {
        0 => 0,
        s => s + 1,
    }
}

/// `addr + k` in the address's type.
pub(crate) fn step(cx: &mut Cx, addr: Value, k: u64) -> Value {
    if k == 0 {
        return addr;
    }
    let ty = cx.f.ty(addr).unwrap_or(Type::I32);
    let o = cx.k(ty, k);
    cx.b().int(IntOp::Add(Overflow::Wrap), ty, &[addr, o])
}

/// A memory op under the guard's ballot (when guarded).
pub(crate) fn mem_op(cx: &mut Cx, m: MemOp, args: &[Value], ty: Option<Type>) -> Value {
    let mut a = args.to_vec();
    if let Some(mask) = cx.guard_mask() {
        a.push(mask);
    }
    cx.b().ins(Op::Mem(m), &a, ty)
}

/// The access size: (bytes of the sub-word access, signed) or the number of 32-bit words.
pub(crate) enum Size {
    /// A sub-word access of this type, sign-extended into the register when true.
    Sub(Type, bool),
    /// This many consecutive 32-bit words.
    Words(u16),
}

/// The access size of a load or store from its `.U8` ... `.128` suffix.
pub(crate) fn size_of(at: &At) -> Size {
    match at.one_of(&["U8", "S8", "U16", "S16", "64", "128"]) {
        Some("U8") => Size::Sub(Type::I8, false),
        Some("S8") => Size::Sub(Type::I8, true),
        Some("U16") => Size::Sub(Type::I16, false),
        Some("S16") => Size::Sub(Type::I16, true),
        Some("64") => Size::Words(2),
        Some("128") => Size::Words(4),
        _ => Size::Words(1),
    }
}

/// The memory operand (`[R2+0x10]`) of `at`.
pub(crate) fn mem_operand<'a>(cx: &Cx, at: &At<'a>) -> Result<&'a Operand, LiftError> {
    at.inst.explicit().find(|o| matches!(o.kind, OperandKind::Mem { .. })).ok_or_else(|| cx.unsupported(at, "no memory operand"))
}

/// Load into the first destination: sub-word accesses extended, words into consecutive
/// registers.
fn load(cx: &mut Cx, at: &At, space: Space) -> Result<(), LiftError> {
    let dsts = at.dsts();
    if dsts.len() != 1 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let m = mem_operand(cx, at)?;
    let addr = address(cx, at, m, space)?;
    match size_of(at) {
        Size::Sub(ty, signed) => {
            let v = mem_op(cx, MemOp::Load(space), &[addr], Some(ty));
            let w = cx.b().conv(ConvOp::IToI { signed }, Type::I32, v);
            cx.def_word(at, dsts[0], 0, w)
        }
        Size::Words(n) => {
            for k in 0..n {
                let a = step(cx, addr, 4 * k as u64);
                let v = mem_op(cx, MemOp::Load(space), &[a], Some(Type::I32));
                cx.def_word(at, dsts[0], k, v)?;
            }
            Ok(())
        }
    }
}

/// Store the data operand (the source after the address).
fn store(cx: &mut Cx, at: &At, space: Space) -> Result<(), LiftError> {
    let srcs = at.srcs();
    let m = mem_operand(cx, at)?;
    let data = srcs.iter().find(|o| !matches!(o.kind, OperandKind::Mem { .. })).ok_or_else(|| cx.unsupported(at, "operand shape"))?;
    if srcs.len() != 2 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    let addr = address(cx, at, m, space)?;
    match size_of(at) {
        Size::Sub(ty, _) => {
            let w = cx.word(at, data, 0)?;
            let v = cx.b().conv(ConvOp::IToI { signed: false }, ty, w);
            mem_op(cx, MemOp::Store(space), &[addr, v], None);
        }
        Size::Words(n) => {
            for k in 0..n {
                let a = step(cx, addr, 4 * k as u64);
                let v = cx.word(at, data, k)?;
                mem_op(cx, MemOp::Store(space), &[a, v], None);
            }
        }
    }
    Ok(())
}

/// LDGSTS [shared], [global]: copy 4, 8 or 16 bytes (`.64`, `.128`) from global to shared memory.
fn ldgsts(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let mems: Vec<&Operand> = at.inst.explicit().filter(|o| matches!(o.kind, OperandKind::Mem { .. })).collect();
    if mems.len() != 2 {
        return Err(cx.unsupported(at, "operand shape"));
    }
    if at.has("ZFILL") {
        return Err(cx.unsupported(at, "LDGSTS .ZFILL"));
    }
    let dst = address(cx, at, mems[0], Space::Shared)?;
    let src = address(cx, at, mems[1], Space::Global)?;
    let n = match size_of(at) {
        Size::Words(n) => n,
        Size::Sub(..) => return Err(cx.unsupported(at, "sub-word LDGSTS")),
    };
    for k in 0..n {
        let s = step(cx, src, 4 * k as u64);
        let v = mem_op(cx, MemOp::Load(Space::Global), &[s], Some(Type::I32));
        let d = step(cx, dst, 4 * k as u64);
        mem_op(cx, MemOp::Store(Space::Shared), &[d, v], None);
    }
    Ok(())
}

/// The memory scope of a `.CTA` / `.SM` / `.GPU` / `.SYS` suffix (the device when none).
fn scope_of(at: &At) -> Scope {
    match at.one_of(&["CTA", "SM", "GPU", "SYS"]) {
        Some("CTA" | "SM") => Scope::Workgroup,
        Some("SYS") => Scope::System,
        _ => Scope::Device,
    }
}

/// ATOMG / ATOM / ATOMS [d,] [addr], b [, c]: the old value into d (RED has none); CAS
/// compares with b and stores c. Types: `.S32` (signed min / max), `.64` / `.S64`, 32-bit
/// unsigned otherwise; `.F32` / `.F64` add (round to nearest, denormals kept); `.F16x2` /
/// `.BF16x2` add per half.
fn atomic(cx: &mut Cx, at: &At, name: &str) -> Result<(), LiftError> {
    let space = space_of(name);
    if at.has("CAST") || at.has("POPC") {
        return Err(cx.unsupported(at, "spin-lock and population-count atomics"));
    }
    let pair = at.one_of(&["F16x2", "BF16x2"]);
    if pair.is_some() && (!at.has("ADD") || at.has("FTZ")) {
        return Err(cx.unsupported(at, "packed 16-bit float atomic other than the add"));
    }
    let float = at.one_of(&["F32", "F64"]);
    let ftz = at.has("FTZ");
    if ftz && (float != Some("F32") || !at.has("ADD")) {
        return Err(cx.unsupported(at, "FTZ on an atomic other than the f32 add"));
    }
    let wide = at.has("64") || at.has("S64") || float == Some("F64");
    let signed = at.has("S32") || at.has("S64");
    let op = at.one_of(&["ADD", "MIN", "MAX", "INC", "DEC", "AND", "OR", "XOR", "EXCH", "CAS"]).ok_or_else(|| cx.unsupported(at, "atomic operation"))?;
    let kind = match (op, float) {
        // `.F16x2.RN` / `.BF16x2.RN`: PTX `atom.add.noftz.f16x2` / `.bf16x2` (and `red`).
        ("ADD", None) if pair.is_some() => AtomicKind::FAddPair16 { bf16: pair == Some("BF16x2") },
        // `.FTZ`: PTX `atom.add.f32` / `red.add.f32` on global memory (PTX ISA, atom: "rounds
        // to nearest even and flushes subnormal inputs and results to sign-preserving zero").
        ("ADD", Some(_)) if ftz => AtomicKind::FAddFtz,
        ("ADD", Some(_)) => AtomicKind::FAdd,
        (_, Some(_)) => return Err(cx.unsupported(at, "float atomic other than add")),
        ("ADD", _) => AtomicKind::Add,
        ("MIN", _) => AtomicKind::Min(signed),
        ("MAX", _) => AtomicKind::Max(signed),
        ("INC", _) => AtomicKind::Inc,
        ("DEC", _) => AtomicKind::Dec,
        ("AND", _) => AtomicKind::And,
        ("OR", _) => AtomicKind::Or,
        ("XOR", _) => AtomicKind::Xor,
        ("EXCH", _) => AtomicKind::Exch,
        _ => AtomicKind::CmpExch,
    };
    if wide && matches!(kind, AtomicKind::Inc | AtomicKind::Dec) {
        return Err(cx.unsupported(at, "64-bit INC / DEC"));
    }
    let m = mem_operand(cx, at)?;
    // The operands in order: [PT,] [destination,] address, data.
    let ops: Vec<&Operand> = at.inst.explicit().collect();
    let mpos = ops.iter().position(|o| matches!(o.kind, OperandKind::Mem { .. })).unwrap_or(0);
    let dsts: Vec<&Operand> = at.dsts().into_iter().filter(|o| o.size != 1).collect();
    let data: Vec<&Operand> = ops[mpos + 1..].to_vec();
    let want = if kind == AtomicKind::CmpExch { 2 } else { 1 };
    if data.len() != want || dsts.len() != (name != "RED") as usize {
        return Err(cx.unsupported(at, "operand shape"));
    }
    // `ATOMG.E.CAS ... [R6]`: nvdisasm prints the address of the compare-and-swap without `.64`,
    // yet `.E` makes it the register pair R6:R7, as ptxas's code shows (it computes R7 as the
    // high word of the address just before, and loads through `[R6.64]`;
    // fixtures/hw/capture_atomic.sm86.txt, the scalar f16 add's CAS loop).
    let m = match m.kind {
        OperandKind::Mem { base: Some(r), ubase, offset } if space == Space::Global && kind == AtomicKind::CmpExch && at.has("E") && r.count == 1 => {
            Operand { kind: OperandKind::Mem { base: Some(RegRange { count: 2, ..r }), ubase, offset }, ..*m }
        }
        _ => *m,
    };
    let addr = address(cx, at, &m, space)?;
    let ty = if wide { Type::I64 } else { Type::I32 };
    let mut args = vec![addr];
    for d in &data {
        let v = if wide { cx.src64(at, d)? } else { cx.word(at, d, 0)? };
        args.push(v);
    }
    let old = mem_op(cx, MemOp::Atomic(space, kind, scope_of(at)), &args, Some(ty));
    if let Some(d) = dsts.first() {
        if wide {
            cx.def64(at, d, old)?;
        } else {
            cx.def_word(at, d, 0, old)?;
        }
    }
    Ok(())
}

/// MEMBAR.{SC,ALL}.{CTA,GPU,SYS}: a fence at that scope.
fn membar(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let s = scope_of(at);
    cx.b().ins(Op::Sync(SyncOp::Fence(s)), &[], None);
    Ok(())
}

/// CCTL: cache prefetch (`.PF1`, `.PF2`) changes nothing; invalidations are device fences.
fn cctl(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    if at.has("PF1") || at.has("PF2") {
        return Ok(());
    }
    cx.b().ins(Op::Sync(SyncOp::Fence(Scope::Device)), &[], None);
    Ok(())
}
