//! LDS (DS): loads and stores of 8 to 128 bits (the 16-bit forms that read or write one half
//! of a VGPR, `d16` / `d16_hi`), the two-address forms (`read2` / `write2`, offsets in elements,
//! `st64` in 64-element strides), atomics with and without return (32 and 64 bits, `cmpst`,
//! float add/min/max, inc/dec, exchange), `ds_swizzle_b32` (quad-permute and bitmask modes),
//! `ds_append` / `ds_consume`. Addresses are byte offsets into workgroup shared memory: the
//! ADDR VGPR plus the 16-bit immediate offset (OFFSET1:OFFSET0); gfx10 does not bound them by M0.
//! The lanes under EXEC take part; wide accesses are one IR op per dword. `ds_permute_b32` /
//! `ds_bpermute_b32` are cross-lane ops (`lanes.rs`).

use super::mubuf::{read_half, resize, write_half};
use super::{At, Cx, M0};
use crate::lift::LiftError;
use crate::operand::Operand;
use isabridge_ir::ops::int::{IntOp, Overflow};
use isabridge_ir::ops::lane::LaneOp;
use isabridge_ir::ops::mem::{AtomicKind, MemOp, Scope, Space};
use isabridge_ir::ops::Op;
use isabridge_ir::{Type, Value};

/// Lift an LDS instruction; None when `name` is not one handled here.
pub(super) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    let rest = name.strip_prefix("DS_")?;
    if matches!(rest, "PERMUTE_B32" | "BPERMUTE_B32") {
        return None;
    }
    if at.inst.named("GDS").unwrap_or(0) != 0 {
        return Some(Err(cx.unsupported(at, "GDS access")));
    }
    Some(match rest {
        "NOP" => Ok(()),
        "SWIZZLE_B32" => swizzle(cx, at),
        "APPEND" => append(cx, at, false),
        "CONSUME" => append(cx, at, true),
        _ => {
            if let Some(r) = read_write(cx, at, rest) {
                r
            } else if let Some(r) = two_address(cx, at, rest) {
                r
            } else {
                atomic(cx, at, rest)
            }
        }
    })
}

/// The 16-bit immediate offset of single-address forms.
fn offset16(at: &At) -> u32 {
    (at.inst.named("OFFSET1").unwrap_or(0) << 8 | at.inst.named("OFFSET0").unwrap_or(0)) as u32
}

fn add(cx: &mut Cx, a: Value, off: u32) -> Value {
    if off == 0 {
        return a;
    }
    let k = cx.k32(off);
    cx.b().int(IntOp::Add(Overflow::Wrap), Type::I32, &[a, k])
}

fn load(cx: &mut Cx, addr: Value, ty: Type, mask: Value) -> Value {
    cx.b().ins(Op::Mem(MemOp::Load(Space::Shared)), &[addr, mask], Some(ty))
}

fn store(cx: &mut Cx, addr: Value, v: Value, mask: Value) {
    cx.b().ins(Op::Mem(MemOp::Store(Space::Shared)), &[addr, v, mask], None);
}

fn operands<'a>(cx: &Cx, at: &'a At, n: usize) -> Result<Vec<&'a Operand>, LiftError> {
    let s = at.srcs();
    if s.len() < n {
        return Err(cx.unsupported(at, "LDS operands missing"));
    }
    Ok(s)
}

fn dest<'a>(cx: &Cx, at: &'a At) -> Result<&'a Operand, LiftError> {
    at.def().ok_or_else(|| cx.unsupported(at, "LDS destination missing"))
}

/// Single-address loads and stores.
fn read_write(cx: &mut Cx, at: &At, rest: &str) -> Option<Result<(), LiftError>> {
    // (load, bytes, sign-extend, half, dwords)
    let (load_op, bytes, signed, half, words) = match rest {
        "READ_U8" => (true, 1, false, None, 1),
        "READ_I8" => (true, 1, true, None, 1),
        "READ_U16" => (true, 2, false, None, 1),
        "READ_I16" => (true, 2, true, None, 1),
        "READ_U8_D16" => (true, 1, false, Some(false), 1),
        "READ_U8_D16_HI" => (true, 1, false, Some(true), 1),
        "READ_I8_D16" => (true, 1, true, Some(false), 1),
        "READ_I8_D16_HI" => (true, 1, true, Some(true), 1),
        "READ_U16_D16" => (true, 2, false, Some(false), 1),
        "READ_U16_D16_HI" => (true, 2, false, Some(true), 1),
        "READ_B32" => (true, 4, false, None, 1),
        "READ_B64" => (true, 4, false, None, 2),
        "READ_B96" => (true, 4, false, None, 3),
        "READ_B128" => (true, 4, false, None, 4),
        "WRITE_B8" => (false, 1, false, None, 1),
        "WRITE_B8_D16_HI" => (false, 1, false, Some(true), 1),
        "WRITE_B16" => (false, 2, false, None, 1),
        "WRITE_B16_D16_HI" => (false, 2, false, Some(true), 1),
        "WRITE_B32" => (false, 4, false, None, 1),
        "WRITE_B64" => (false, 4, false, None, 2),
        "WRITE_B96" => (false, 4, false, None, 3),
        "WRITE_B128" => (false, 4, false, None, 4),
        _ => return None,
    };
    Some((|| {
        let s = operands(cx, at, if load_op { 1 } else { 2 })?;
        let base = cx.src32(at, s[0], 0)?;
        let base = add(cx, base, offset16(at));
        let exec = cx.exec();
        let ty = match bytes {
            1 => Type::I8,
            2 => Type::I16,
            _ => Type::I32,
        };
        for k in 0..words {
            let addr = add(cx, base, 4 * k as u32);
            if load_op {
                let d = dest(cx, at)?;
                let r = load(cx, addr, ty, exec);
                match half {
                    None => {
                        let v = if bytes < 4 { resize(cx, r, signed, Type::I32) } else { r };
                        cx.def_v32(at, d, k, v, exec)?;
                    }
                    Some(hi) => {
                        let v = if bytes < 2 { resize(cx, r, signed, Type::I16) } else { r };
                        write_half(cx, at, d, k, hi, v, exec)?;
                    }
                }
            } else {
                let v = match half {
                    Some(hi) => read_half(cx, at, s[1], k, hi)?,
                    None => cx.src32(at, s[1], k)?,
                };
                let v = if ty != if half.is_some() { Type::I16 } else { Type::I32 } { resize(cx, v, false, ty) } else { v };
                store(cx, addr, v, exec);
            }
        }
        Ok(())
    })())
}

/// `read2` / `write2` (and their `st64` forms): two elements of 4 or 8 bytes at ADDR +
/// OFFSET0 × size (× 64) and ADDR + OFFSET1 × size (× 64).
fn two_address(cx: &mut Cx, at: &At, rest: &str) -> Option<Result<(), LiftError>> {
    let (load_op, words, st64) = match rest {
        "READ2_B32" => (true, 1, false),
        "READ2_B64" => (true, 2, false),
        "READ2ST64_B32" => (true, 1, true),
        "READ2ST64_B64" => (true, 2, true),
        "WRITE2_B32" => (false, 1, false),
        "WRITE2_B64" => (false, 2, false),
        "WRITE2ST64_B32" => (false, 1, true),
        "WRITE2ST64_B64" => (false, 2, true),
        _ => return None,
    };
    Some((|| {
        let s = operands(cx, at, if load_op { 1 } else { 3 })?;
        let base = cx.src32(at, s[0], 0)?;
        let exec = cx.exec();
        let scale = 4 * words as u32 * if st64 { 64 } else { 1 };
        for (e, field) in ["OFFSET0", "OFFSET1"].into_iter().enumerate() {
            let off = at.inst.named(field).unwrap_or(0) as u32 * scale;
            for k in 0..words {
                let addr = add(cx, base, off + 4 * k as u32);
                if load_op {
                    let d = dest(cx, at)?;
                    let r = load(cx, addr, Type::I32, exec);
                    cx.def_v32(at, d, e as u16 * words + k, r, exec)?;
                } else {
                    let v = cx.src32(at, s[1 + e], k)?;
                    store(cx, addr, v, exec);
                }
            }
        }
        Ok(())
    })())
}

/// Atomics: `DS_<op>[_RTN]_<type>` with op ADD, SUB, INC, DEC, MIN, MAX, AND, OR, XOR, CMPST,
/// WRXCHG and type U32, I32, B32, F32 or the 64-bit ones.
fn atomic(cx: &mut Cx, at: &At, rest: &str) -> Result<(), LiftError> {
    let unsupported = |cx: &Cx| cx.unsupported(at, "no lifter for this LDS instruction yet");
    let Some((head, ty)) = rest.rsplit_once('_') else { return Err(unsupported(cx)) };
    let (op, rtn) = match head.strip_suffix("_RTN") {
        Some(op) => (op, true),
        None => (head, false),
    };
    let (wide, float, signed) = match ty {
        "U32" | "B32" => (false, false, false),
        "I32" => (false, false, true),
        "F32" => (false, true, false),
        "U64" | "B64" => (true, false, false),
        "I64" => (true, false, true),
        "F64" => (true, true, false),
        _ => return Err(unsupported(cx)),
    };
    let kind = match (op, float) {
        ("ADD", false) => AtomicKind::Add,
        ("ADD", true) => AtomicKind::FAdd,
        ("SUB", false) => AtomicKind::Sub,
        ("INC", false) => AtomicKind::Inc,
        ("DEC", false) => AtomicKind::Dec,
        ("MIN", false) => AtomicKind::Min(signed),
        ("MAX", false) => AtomicKind::Max(signed),
        ("MIN", true) => AtomicKind::FMin,
        ("MAX", true) => AtomicKind::FMax,
        ("AND", false) => AtomicKind::And,
        ("OR", false) => AtomicKind::Or,
        ("XOR", false) => AtomicKind::Xor,
        ("CMPST", false) => AtomicKind::CmpExch,
        ("WRXCHG", false) => AtomicKind::Exch,
        _ => return Err(unsupported(cx)),
    };
    let cmp = kind == AtomicKind::CmpExch;
    let s = operands(cx, at, if cmp { 3 } else { 2 })?;
    let base = cx.src32(at, s[0], 0)?;
    let addr = add(cx, base, offset16(at));
    let exec = cx.exec();
    let value = |cx: &mut Cx, op: &Operand| -> Result<Value, LiftError> {
        if wide {
            let lo = cx.src32(at, op, 0)?;
            let hi = cx.src32(at, op, 1)?;
            Ok(cx.join64(lo, hi))
        } else {
            cx.src32(at, op, 0)
        }
    };
    // cmpst: DATA0 is the compare value, DATA1 the new one (the IR's operand order).
    let mut args = vec![addr, value(cx, s[1])?];
    if cmp {
        args.push(value(cx, s[2])?);
    }
    args.push(exec);
    let ity = if wide { Type::I64 } else { Type::I32 };
    let m = MemOp::Atomic(Space::Shared, kind, Scope::Workgroup);
    let r = cx.b().ins(Op::Mem(m), &args, Some(ity));
    if rtn {
        let d = dest(cx, at)?;
        if wide {
            let (lo, hi) = cx.split64(r);
            cx.def_v32(at, d, 0, lo, exec)?;
            cx.def_v32(at, d, 1, hi, exec)?;
        } else {
            cx.def_v32(at, d, 0, r, exec)?;
        }
    }
    Ok(())
}

/// `ds_swizzle_b32`: offset bit 15 set, quad-permute (lane reads lane 4⌊l/4⌋ + offset[2i+1:2i]
/// for i = l mod 4); bit 15 clear, bitmask mode within each 32 lanes: lane l
/// reads ((l & and) | or) ^ xor with and = offset[4:0], or = offset[9:5], xor = offset[14:10].
/// An inactive source lane reads 0 (the IR's backward permute). The rotate (0xc000 |
/// direction << 10 | amount << 5) and FFT (0xe000 | pattern) modes LLVM encodes for gfx9+ are
/// typed errors: their lane maps are in no source at hand (the ISA XML has no descriptions).
fn swizzle(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let d = dest(cx, at)?;
    let s = operands(cx, at, 1)?;
    let off = offset16(at);
    if off >= 0xe000 {
        return Err(cx.unsupported(at, "ds_swizzle FFT mode"));
    }
    if off >= 0xc000 {
        return Err(cx.unsupported(at, "ds_swizzle rotate mode"));
    }
    let lane = cx.b().lane(LaneOp::LaneId, Type::I32, &[]);
    let k = |cx: &mut Cx, x: u32| cx.k32(x);
    let src = if off & 0x8000 != 0 {
        let three = k(cx, 3);
        let i = cx.b().int(IntOp::And, Type::I32, &[lane, three]);
        let one = k(cx, 1);
        let sh = cx.b().int(IntOp::Shl(isabridge_ir::ops::int::ShiftRule::Wrap), Type::I32, &[i, one]);
        let pattern = k(cx, off & 0xff);
        let sel = cx.b().int(IntOp::Shr(false, isabridge_ir::ops::int::ShiftRule::Wrap), Type::I32, &[pattern, sh]);
        let sel = cx.b().int(IntOp::And, Type::I32, &[sel, three]);
        let not3 = k(cx, !3);
        let quad = cx.b().int(IntOp::And, Type::I32, &[lane, not3]);
        cx.b().int(IntOp::Or, Type::I32, &[quad, sel])
    } else {
        let (and, or, xor) = (off & 31, off >> 5 & 31, off >> 10 & 31);
        let m = k(cx, !31 | and);
        let a = cx.b().int(IntOp::And, Type::I32, &[lane, m]);
        let o = k(cx, or);
        let a = cx.b().int(IntOp::Or, Type::I32, &[a, o]);
        let x = k(cx, xor);
        cx.b().int(IntOp::Xor, Type::I32, &[a, x])
    };
    let two = k(cx, 2);
    let byte = cx.b().int(IntOp::Shl(isabridge_ir::ops::int::ShiftRule::Wrap), Type::I32, &[src, two]);
    let v = cx.src32(at, s[0], 0)?;
    let exec = cx.exec();
    let r = cx.b().lane(LaneOp::Bpermute { halves: false }, Type::I32, &[v, byte, exec]);
    cx.def_v32(at, d, 0, r, exec)
}

/// `ds_append` / `ds_consume`: one atomic add (subtract) of the number of active lanes at LDS
/// byte M0[15:0] + offset; every active lane gets the value before it.
fn append(cx: &mut Cx, at: &At, consume: bool) -> Result<(), LiftError> {
    let d = dest(cx, at)?;
    let exec = cx.exec();
    let bits = cx.b().bitcast(Type::I64, exec);
    let n = cx.b().int(IntOp::Popc, Type::I64, &[bits]);
    let n = resize(cx, n, false, Type::I32);
    let m0 = cx.rd(M0);
    let lo = cx.k32(0xffff);
    let base = cx.b().int(IntOp::And, Type::I32, &[m0, lo]);
    let addr = add(cx, base, offset16(at));
    // Only the first active lane performs the update.
    let neg = cx.b().int(IntOp::Neg, Type::Mask, &[exec]);
    let first = cx.b().int(IntOp::And, Type::Mask, &[exec, neg]);
    let kind = if consume { AtomicKind::Sub } else { AtomicKind::Add };
    let m = MemOp::Atomic(Space::Shared, kind, Scope::Workgroup);
    let old = cx.b().ins(Op::Mem(m), &[addr, n, first], Some(Type::I32));
    let r = cx.b().lane(LaneOp::ReadFirstLane, Type::I32, &[old, exec]);
    cx.def_v32(at, d, 0, r, exec)
}
