//! Warp-level matrix instructions of sm_86 with an exact definition, lowered to shuffles and
//! integer arithmetic on each lane's fragment (the IR stays free of matrix ops):
//!
//! - `IMMA.{8816,16832}.{S8,U8}.{S8,U8}[.SAT]`, `IMMA.16864.{S4,U4}.{S4,U4}[.SAT]` and
//!   `BMMA.168256.{AND,XOR}.POPC`: D = A * B + C on s32 accumulators (PTX ISA 9.7.14.5.14
//!   `mma` with integer and single-bit types; `.satfinite` clamps D to the s32 range, without
//!   it the sum wraps; for `.b1`, a product is `popc(a op b)` over 32 bits).
//! - `LDSM.16.{M88,MT88}[.2|.4]`: `ldmatrix.sync.aligned.m8n8{.x1,.x2,.x4}[.trans].b16`
//!   (PTX ISA 9.7.14.5.15).
//! - `MOVM.16.MT88`: `movmatrix.sync.aligned.m8n8.trans.b16` (PTX ISA 9.7.14.5.17).
//!
//! Fragment layouts (PTX ISA 9.7.14.5.x, "Matrix Fragments for mma.mMnNkK"), with
//! g = laneid >> 2 and t = laneid % 4, E elements of `bits` bits in a 32-bit register:
//! A register r holds row g + 8 * (r % (M / 8)), columns 4E * (r / (M / 8)) + E * t + e;
//! B register r holds rows 4E * r + E * t + e of column g; C / D register r holds row
//! g + 8 * (r / 2), column 2t + (r % 2). So each lane gathers the A registers of the four lanes
//! of its group (its rows) and the B registers of the lanes 4n..4n+3 of its two columns n.
//!
//! HMMA (f16 / bf16 / tf32) and DMMA stay typed errors: the PTX ISA does not define the order
//! or the intermediate rounding of their floating-point sums.

use super::{At, Cx};
use crate::lift::LiftError;
use isabridge_ir::ops::int::{IntOp, Overflow, ShiftRule};
use isabridge_ir::ops::lane::{LaneOp, ShflMode};
use isabridge_ir::ops::mem::{MemOp, Space};
use isabridge_ir::{Type, Value};

/// Lift `at` when it is a warp matrix instruction.
pub(crate) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    Some(match name {
        "IMMA" | "BMMA" => int_mma(cx, at, name),
        "LDSM" => ldsm(cx, at),
        "MOVM" => movm(cx, at),
        "HMMA" | "DMMA" => super::mma_float::lift(cx, at, name),
        _ => return None,
    })
}

/// How two 32-bit registers of elements multiply and sum.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Elems {
    /// Four 8-bit integers (signedness of A, of B).
    I8(bool, bool),
    /// Eight 4-bit integers (signedness of A, of B).
    I4(bool, bool),
    /// Thirty-two bits combined by AND (false) or XOR (true), then counted.
    B1(bool),
}

impl Elems {
    fn bits(self) -> u32 {
        match self {
            Elems::I8(..) => 8,
            Elems::I4(..) => 4,
            Elems::B1(_) => 1,
        }
    }
}

fn signed_of(s: &str) -> Option<bool> {
    match s {
        "S8" | "S4" => Some(true),
        "U8" | "U4" => Some(false),
        _ => None,
    }
}

/// The shape (M, K) from the mnemonic's `MNK` suffix (N is 8).
fn shape(at: &At) -> Option<(u32, u32)> {
    Some(match at.one_of(&["8816", "16832", "16864", "168256"])? {
        "8816" => (8, 16),
        "16832" => (16, 32),
        "16864" => (16, 64),
        _ => (16, 256),
    })
}

fn int_mma(cx: &mut Cx, at: &At, name: &str) -> Result<(), LiftError> {
    let (m, k) = shape(at).ok_or_else(|| cx.unsupported(at, "matrix shape"))?;
    let elems = if name == "BMMA" {
        if !at.has("POPC") {
            return Err(cx.unsupported(at, "BMMA other than .POPC"));
        }
        match at.one_of(&["AND", "XOR"]) {
            Some("AND") => Elems::B1(false),
            Some("XOR") => Elems::B1(true),
            _ => return Err(cx.unsupported(at, "BMMA operation")),
        }
    } else {
        let types: Vec<bool> = at.sfx.iter().filter_map(|s| signed_of(s)).collect();
        let four = at.sfx.iter().any(|s| *s == "S4" || *s == "U4");
        match types[..] {
            [a, b] if four => Elems::I4(a, b),
            [a, b] => Elems::I8(a, b),
            _ => return Err(cx.unsupported(at, "IMMA element types")),
        }
    };
    let expect_k = match elems {
        Elems::I8(..) => [16, 32],
        Elems::I4(..) => [64, 64],
        Elems::B1(_) => [256, 256],
    };
    if !expect_k.contains(&k) {
        return Err(cx.unsupported(at, "matrix shape for these element types"));
    }
    let sat = at.has("SAT");
    if cx.guard.is_some() {
        return Err(cx.unsupported(at, "a guarded matrix multiply"));
    }
    let dsts = at.dsts();
    let srcs = at.srcs();
    let ([d], [a, b, c]) = (&dsts[..], &srcs[..]) else { return Err(cx.unsupported(at, "matrix multiply operands")) };
    let e = 32 / elems.bits();
    let halves = m / 8;
    let kblocks = k / (4 * e);
    let a_regs = halves * kblocks;
    let c_regs = 2 * halves;
    // Read every source register before writing D (D may be C).
    let av: Vec<Value> = (0..a_regs).map(|r| cx.word(at, a, r as u16)).collect::<Result<_, _>>()?;
    let bv: Vec<Value> = (0..kblocks).map(|r| cx.word(at, b, r as u16)).collect::<Result<_, _>>()?;
    let cv: Vec<Value> = (0..c_regs).map(|r| cx.word(at, c, r as u16)).collect::<Result<_, _>>()?;
    let lane = cx.b().lane(LaneOp::LaneId, Type::I32, &[]);
    let t = and_k(cx, lane, 3);
    let group_base = and_k(cx, lane, !3);
    // A of the group's four lanes: rows[h][kb][t'].
    let mut rows = vec![vec![Vec::new(); kblocks as usize]; halves as usize];
    for tt in 0..4 {
        let src = add_k(cx, group_base, tt);
        for h in 0..halves {
            for kb in 0..kblocks {
                let v = shuffle(cx, av[(kb * halves + h) as usize], src);
                rows[h as usize][kb as usize].push(v);
            }
        }
    }
    // B of the lanes 4n + t' for the lane's columns n = 2t and 2t + 1: cols[j][kb][t'].
    let eight_t = shl_k(cx, t, 3);
    let mut cols = vec![vec![Vec::new(); kblocks as usize]; 2];
    for j in 0..2u32 {
        for tt in 0..4 {
            let src = add_k(cx, eight_t, 4 * j + tt);
            for kb in 0..kblocks {
                let v = shuffle(cx, bv[kb as usize], src);
                cols[j as usize][kb as usize].push(v);
            }
        }
    }
    for r in 0..c_regs {
        let (h, j) = ((r / 2) as usize, (r % 2) as usize);
        let mut acc = if sat { cx.k32(0) } else { cv[r as usize] };
        for kb in 0..kblocks as usize {
            for tt in 0..4 {
                acc = dot(cx, elems, rows[h][kb][tt], cols[j][kb][tt], acc);
            }
        }
        if sat {
            // The products' sum fits in s32 (at most 256 * 2^15 in magnitude for 8 bits); one
            // saturating add of C gives the clamped exact result.
            acc = cx.b().int(IntOp::Add(Overflow::SatS), Type::I32, &[cv[r as usize], acc]);
        }
        cx.def_word(at, d, r as u16, acc)?;
    }
    Ok(())
}

/// `acc` plus the sum of the element products of the registers `a` and `b`, wrapping.
fn dot(cx: &mut Cx, elems: Elems, a: Value, b: Value, acc: Value) -> Value {
    match elems {
        Elems::I8(sa, sb) => cx.b().int(IntOp::Dp4a(sa, sb), Type::I32, &[a, b, acc]),
        Elems::I4(sa, sb) => {
            let mut acc = acc;
            let len = cx.k32(4);
            for i in 0..8 {
                let pos = cx.k32(4 * i);
                let x = cx.b().int(IntOp::Bfe(sa), Type::I32, &[a, pos, len]);
                let y = cx.b().int(IntOp::Bfe(sb), Type::I32, &[b, pos, len]);
                acc = cx.b().int(IntOp::MadLo, Type::I32, &[x, y, acc]);
            }
            acc
        }
        Elems::B1(xor) => {
            let op = if xor { IntOp::Xor } else { IntOp::And };
            let x = cx.b().int(op, Type::I32, &[a, b]);
            let n = cx.b().int(IntOp::Popc, Type::I32, &[x]);
            cx.b().int(IntOp::Add(Overflow::Wrap), Type::I32, &[acc, n])
        }
    }
}

/// Register `v` of lane `src` (a per-lane lane index, 0..31).
pub(super) fn shuffle(cx: &mut Cx, v: Value, src: Value) -> Value {
    let c = cx.k32(0x1f);
    cx.b().lane(LaneOp::Shuffle(ShflMode::Idx, false), Type::I32, &[v, src, c])
}

pub(super) fn and_k(cx: &mut Cx, v: Value, k: u32) -> Value {
    let k = cx.k32(k);
    cx.b().int(IntOp::And, Type::I32, &[v, k])
}

pub(super) fn add_k(cx: &mut Cx, v: Value, k: u32) -> Value {
    if k == 0 {
        return v;
    }
    let k = cx.k32(k);
    cx.b().int(IntOp::Add(Overflow::Wrap), Type::I32, &[v, k])
}

pub(super) fn shl_k(cx: &mut Cx, v: Value, k: u32) -> Value {
    let k = cx.k32(k);
    cx.b().int(IntOp::Shl(ShiftRule::Clamp), Type::I32, &[v, k])
}

fn shr_k(cx: &mut Cx, v: Value, k: u32) -> Value {
    let k = cx.k32(k);
    cx.b().int(IntOp::Shr(false, ShiftRule::Clamp), Type::I32, &[v, k])
}

/// The number of 8x8 matrices from `.2` / `.4` (one without).
fn matrices(at: &At) -> u16 {
    match at.one_of(&["2", "4"]) {
        Some("2") => 2,
        Some("4") => 4,
        _ => 1,
    }
}

/// LDSM.16.M88[.n] d, [a]: matrix i's row r starts at the shared address lane 8i + r gives;
/// lane l gets in d+i the two 16-bit elements (row l/4, columns 2(l%4), 2(l%4)+1) of matrix
/// i. With MT88 (`.trans`) it gets the elements (rows 2(l%4), 2(l%4)+1, column l/4).
fn ldsm(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    if !at.has("16") {
        return Err(cx.unsupported(at, "LDSM element size other than 16 bits"));
    }
    let trans = at.has("MT88");
    if !trans && !at.has("M88") {
        return Err(cx.unsupported(at, "LDSM shape"));
    }
    if cx.guard.is_some() {
        return Err(cx.unsupported(at, "a guarded matrix load"));
    }
    let dsts = at.dsts();
    let [d] = dsts[..] else { return Err(cx.unsupported(at, "LDSM operands")) };
    let mem = at.inst.explicit().find(|o| matches!(o.kind, crate::operand::OperandKind::Mem { .. }));
    let Some(mem) = mem else { return Err(cx.unsupported(at, "LDSM without an address")) };
    let addr = super::mem::address(cx, at, mem, Space::Shared)?;
    let lane = cx.b().lane(LaneOp::LaneId, Type::I32, &[]);
    let q = shr_k(cx, lane, 2);
    let t = and_k(cx, lane, 3);
    let mut out = Vec::new();
    for i in 0..matrices(at) as u32 {
        let v = if trans {
            // Rows 2t and 2t + 1, column q: two 16-bit loads.
            let two_t = shl_k(cx, t, 1);
            let col = shl_k(cx, q, 1);
            let mut halves = Vec::new();
            for j in 0..2 {
                let r = add_k(cx, two_t, 8 * i + j);
                let row = shuffle(cx, addr, r);
                let a = cx.b().int(IntOp::Add(Overflow::Wrap), Type::I32, &[row, col]);
                let h = cx.b().ins(isabridge_ir::ops::Op::Mem(MemOp::Load(Space::Shared)), &[a], Some(Type::I16));
                halves.push(cx.b().conv(isabridge_ir::ops::conv::ConvOp::IToI { signed: false }, Type::I32, h));
            }
            let hi = shl_k(cx, halves[1], 16);
            cx.b().int(IntOp::Or, Type::I32, &[halves[0], hi])
        } else {
            // Row q, columns 2t and 2t + 1: one 32-bit load at byte 4t of the row.
            let r = add_k(cx, q, 8 * i);
            let row = shuffle(cx, addr, r);
            let off = shl_k(cx, t, 2);
            let a = cx.b().int(IntOp::Add(Overflow::Wrap), Type::I32, &[row, off]);
            cx.b().ins(isabridge_ir::ops::Op::Mem(MemOp::Load(Space::Shared)), &[a], Some(Type::I32))
        };
        out.push(v);
    }
    for (i, v) in out.into_iter().enumerate() {
        cx.def_word(at, d, i as u16, v)?;
    }
    Ok(())
}

/// MOVM.16.MT88 d, a: d is the transpose of the 8x8 matrix of 16-bit elements whose row l/4,
/// columns 2(l%4) and 2(l%4)+1, lane l holds in a; lane l gets elements (rows 2(l%4) and
/// 2(l%4)+1, column l/4), element (R, C) being half C % 2 of lane 4R + C/2's register.
fn movm(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    if !at.has("16") || !at.has("MT88") {
        return Err(cx.unsupported(at, "MOVM other than .16.MT88"));
    }
    if cx.guard.is_some() {
        return Err(cx.unsupported(at, "a guarded matrix move"));
    }
    let (dsts, srcs) = (at.dsts(), at.srcs());
    let ([d], [a]) = (&dsts[..], &srcs[..]) else { return Err(cx.unsupported(at, "MOVM operands")) };
    let v = cx.word(at, a, 0)?;
    let lane = cx.b().lane(LaneOp::LaneId, Type::I32, &[]);
    let q = shr_k(cx, lane, 2);
    let t = and_k(cx, lane, 3);
    // Source lane 4R + C/2 = 8t + 4j + q/2; half q % 2.
    let eight_t = shl_k(cx, t, 3);
    let q2 = shr_k(cx, q, 1);
    let base = cx.b().int(IntOp::Add(Overflow::Wrap), Type::I32, &[eight_t, q2]);
    let odd = and_k(cx, q, 1);
    let shift = shl_k(cx, odd, 4);
    let mut halves = Vec::new();
    for j in 0..2 {
        let src = add_k(cx, base, 4 * j);
        let w = shuffle(cx, v, src);
        let s = cx.b().int(IntOp::Shr(false, ShiftRule::Clamp), Type::I32, &[w, shift]);
        halves.push(and_k(cx, s, 0xffff));
    }
    let hi = shl_k(cx, halves[1], 16);
    let r = cx.b().int(IntOp::Or, Type::I32, &[halves[0], hi]);
    cx.def_word(at, d, 0, r)
}
