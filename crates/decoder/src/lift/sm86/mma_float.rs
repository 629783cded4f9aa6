//! Warp-level floating-point matrix multiply-accumulate of sm_86: `HMMA.16816.{F16,F32}`,
//! `HMMA.16816.F32.BF16`, `HMMA.1688.F32`, `HMMA.{1684,1688}.F32.TF32` and `DMMA.884`.
//!
//! Fragments as in [`super::mma`] (PTX ISA 9.7.14.5.x "Matrix Fragments for mma.mMnNkK"); each
//! element D[i][j] is one dot operation over row i of A, column j of B and C[i][j]. How that dot
//! sums and rounds is what the hardware captures of fixtures/hw/mma showed (see [`rule`]).

use super::mma::{add_k, and_k, shl_k, shuffle};
use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::Operand;
use isabridge_ir::ops::lane::LaneOp;
use isabridge_ir::soft::FFmt;
use isabridge_ir::types::Scalar;
use isabridge_ir::{Type, Value};

/// One floating-point matrix instruction form.
#[derive(Clone, Copy)]
struct Form {
    /// Rows of A and D.
    m: u32,
    /// Columns of A, rows of B.
    k: u32,
    /// Input element format (tf32 is f32 storage).
    input: Input,
    /// Accumulator format.
    acc: FFmt,
}

/// How A and B elements are stored in registers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Input {
    /// Two f16 in a register.
    F16,
    /// Two bf16 in a register.
    BF16,
    /// One tf32 in the f32 layout of a register.
    TF32,
    /// One f64 in a register pair.
    F64,
}

impl Input {
    /// Elements per 32-bit register (0 for f64, which takes two registers).
    fn per_reg(self) -> u32 {
        match self {
            Input::F16 | Input::BF16 => 2,
            Input::TF32 => 1,
            Input::F64 => 0,
        }
    }
}

fn form(at: &At, name: &str) -> Option<Form> {
    if name == "DMMA" {
        return at.has("884").then_some(Form { m: 8, k: 4, input: Input::F64, acc: FFmt::F64 });
    }
    let (m, k) = match at.one_of(&["16816", "1688", "1684"])? {
        "16816" => (16, 16),
        "1688" => (16, 8),
        _ => (16, 4),
    };
    let (input, acc) = if at.has("TF32") {
        (Input::TF32, FFmt::F32)
    } else if at.has("BF16") {
        (Input::BF16, FFmt::F32)
    } else if at.has("F32") {
        (Input::F16, FFmt::F32)
    } else if at.has("F16") {
        (Input::F16, FFmt::F16)
    } else {
        return None;
    };
    let ok = match input {
        Input::TF32 => m == 16 && (k == 4 || k == 8),
        Input::F16 => k == 8 || k == 16,
        Input::BF16 => k == 16 || k == 8,
        Input::F64 => false,
    } && !(input == Input::F16 && acc == FFmt::F16 && k != 16 && k != 8);
    ok.then_some(Form { m, k, input, acc })
}

/// Lift `HMMA` / `DMMA`.
pub(crate) fn lift(cx: &mut Cx, at: &At, name: &str) -> Result<(), LiftError> {
    let f = form(at, name).ok_or_else(|| cx.unsupported(at, "floating-point matrix multiply form"))?;
    if cx.guard.is_some() {
        return Err(cx.unsupported(at, "a guarded matrix multiply"));
    }
    let dsts = at.dsts();
    let srcs = at.srcs();
    let ([d], [a, b, c]) = (&dsts[..], &srcs[..]) else { return Err(cx.unsupported(at, "matrix multiply operands")) };
    if f.input == Input::F64 {
        return dmma(cx, at, d, a, b, c);
    }
    let e = f.input.per_reg();
    let halves = f.m / 8;
    let kblocks = f.k / (4 * e);
    let a_regs = halves * kblocks;
    let c_regs = if f.acc == FFmt::F16 { halves } else { 2 * halves };
    // Read every source register before writing D (D may be C).
    let av: Vec<Value> = (0..a_regs).map(|r| cx.word(at, a, r as u16)).collect::<Result<_, _>>()?;
    let bv: Vec<Value> = (0..kblocks).map(|r| cx.word(at, b, r as u16)).collect::<Result<_, _>>()?;
    let cv: Vec<Value> = (0..c_regs).map(|r| cx.word(at, c, r as u16)).collect::<Result<_, _>>()?;
    let lane = cx.b().lane(LaneOp::LaneId, Type::I32, &[]);
    let t = and_k(cx, lane, 3);
    let group_base = and_k(cx, lane, !3);
    // Row h of the lane's group (g + 8h), element k: register (k / 4E) * halves + h of lane
    // 4g + (k % 4E) / E, element k % E.
    let mut rows: Vec<Vec<Value>> = vec![Vec::new(); halves as usize];
    for (h, row) in rows.iter_mut().enumerate() {
        let mut words = vec![Vec::new(); kblocks as usize];
        for tt in 0..4 {
            let src = add_k(cx, group_base, tt);
            for (kb, w) in words.iter_mut().enumerate() {
                let v = shuffle(cx, av[kb * halves as usize + h], src);
                w.push(v);
            }
        }
        for k in 0..f.k {
            let w = words[(k / (4 * e)) as usize][((k % (4 * e)) / e) as usize];
            row.push(element(cx, f.input, w, k % e));
        }
    }
    // Column 2t + j, element k: register k / 4E of lane 4(2t + j) + (k % 4E) / E, element k % E.
    let eight_t = shl_k(cx, t, 3);
    let mut cols: Vec<Vec<Value>> = vec![Vec::new(); 2];
    for (j, col) in cols.iter_mut().enumerate() {
        let mut words = vec![Vec::new(); kblocks as usize];
        for tt in 0..4 {
            let src = add_k(cx, eight_t, 4 * j as u32 + tt);
            for (kb, w) in words.iter_mut().enumerate() {
                let v = shuffle(cx, bv[kb], src);
                w.push(v);
            }
        }
        for k in 0..f.k {
            let w = words[(k / (4 * e)) as usize][((k % (4 * e)) / e) as usize];
            col.push(element(cx, f.input, w, k % e));
        }
    }
    if f.acc == FFmt::F16 {
        // C / D register h: row g + 8h, columns 2t (low half) and 2t + 1.
        let pair = Type::V(Scalar::F(FFmt::F16), 2);
        for h in 0..halves as usize {
            let cp = cx.b().bitcast(pair, cv[h]);
            let mut out = Vec::new();
            for (j, col) in cols.iter().enumerate() {
                let cj = cx.b().extract(Type::F16, cp, j as u8);
                out.push(rule::dot(cx, f, &rows[h], col, cj));
            }
            let p = cx.b().build(pair, &out);
            let w = cx.b().bitcast(Type::I32, p);
            cx.def_word(at, d, h as u16, w)?;
        }
    } else {
        // C / D register r: row g + 8(r / 2), column 2t + r % 2.
        for r in 0..c_regs as usize {
            let cf = cx.b().bitcast(Type::F32, cv[r]);
            let v = rule::dot(cx, f, &rows[r / 2], &cols[r % 2], cf);
            let w = cx.b().bitcast(Type::I32, v);
            cx.def_word(at, d, r as u16, w)?;
        }
    }
    Ok(())
}

/// `DMMA.884 d, a, b, c`: lane 4g + t holds A[g][t] and B[t][g] (one f64 each) and
/// C / D[g][2t + i] in register pair i.
fn dmma(cx: &mut Cx, at: &At, d: &Operand, a: &Operand, b: &Operand, c: &Operand) -> Result<(), LiftError> {
    let aw = [cx.word(at, a, 0)?, cx.word(at, a, 1)?];
    let bw = [cx.word(at, b, 0)?, cx.word(at, b, 1)?];
    let cw: Vec<Value> = (0..4).map(|r| cx.word(at, c, r)).collect::<Result<_, _>>()?;
    let lane = cx.b().lane(LaneOp::LaneId, Type::I32, &[]);
    let t = and_k(cx, lane, 3);
    let group_base = and_k(cx, lane, !3);
    let mut row = Vec::new();
    for tt in 0..4 {
        let src = add_k(cx, group_base, tt);
        let lo = shuffle(cx, aw[0], src);
        let hi = shuffle(cx, aw[1], src);
        let v = cx.join64(lo, hi);
        row.push(cx.b().bitcast(Type::F64, v));
    }
    let eight_t = shl_k(cx, t, 3);
    let f = Form { m: 8, k: 4, input: Input::F64, acc: FFmt::F64 };
    let mut out = Vec::new();
    for j in 0..2u32 {
        let mut col = Vec::new();
        for tt in 0..4 {
            let src = add_k(cx, eight_t, 4 * j + tt);
            let lo = shuffle(cx, bw[0], src);
            let hi = shuffle(cx, bw[1], src);
            let v = cx.join64(lo, hi);
            col.push(cx.b().bitcast(Type::F64, v));
        }
        let cj = cx.join64(cw[2 * j as usize], cw[2 * j as usize + 1]);
        let cj = cx.b().bitcast(Type::F64, cj);
        out.push(rule::dot(cx, f, &row, &col, cj));
    }
    for (j, v) in out.into_iter().enumerate() {
        let w = cx.b().bitcast(Type::I64, v);
        let (lo, hi) = cx.split64(w);
        cx.def_word(at, d, 2 * j as u16, lo)?;
        cx.def_word(at, d, 2 * j as u16 + 1, hi)?;
    }
    Ok(())
}

/// Element `i` of the 32-bit register `w` as a float of the input format.
fn element(cx: &mut Cx, input: Input, w: Value, i: u32) -> Value {
    match input {
        Input::F16 | Input::BF16 => {
            let s = if input == Input::F16 { FFmt::F16 } else { FFmt::BF16 };
            let p = cx.b().bitcast(Type::V(Scalar::F(s), 2), w);
            cx.b().extract(Type::S(Scalar::F(s)), p, i as u8)
        }
        _ => cx.b().bitcast(Type::F32, w),
    }
}

mod rule {
    use super::{Cx, Form, Input};
    use isabridge_ir::ops::float::{FloatKind, FloatOp};
    use isabridge_ir::soft::blockdot::BlockDot;
    use isabridge_ir::soft::{FFmt, NanRule, Round};
    use isabridge_ir::{Type, Value};

    /// Products per fused block, bits kept under the largest term's exponent, and the rounding
    /// of the block's sum into the accumulator. Measured on sm_90 (fixtures/hw/mma, every
    /// element of 576 cases per form): the whole k of the instruction is one block, 25 bits are
    /// kept, f32 accumulators round toward zero and f16 ones to nearest; f64 is a chain of
    /// fused multiply-adds in k order.
    fn params(f: Form) -> (u32, u8, Round) {
        match (f.input, f.acc) {
            (Input::F64, _) => (1, 0, Round::Rn),
            (_, FFmt::F16) => (f.k, 25, Round::Rn),
            _ => (f.k, 25, Round::Rz),
        }
    }

    /// D = the dot of `a` and `b` plus `c`, as the hardware sums it.
    pub(super) fn dot(cx: &mut Cx, f: Form, a: &[Value], b: &[Value], c: Value) -> Value {
        let (block, keep, round) = params(f);
        let acc_ty = if f.acc == FFmt::F16 { Type::F16 } else if f.acc == FFmt::F64 { Type::F64 } else { Type::F32 };
        if f.input == Input::F64 {
            // A chain of fused multiply-adds in k order.
            let mut op = FloatOp::nv(FloatKind::Fma, round);
            op.mode.nan = NanRule::NvF64Mma;
            return a.iter().zip(b).fold(c, |acc, (x, y)| cx.b().float(op, acc_ty, &[*x, *y, acc]));
        }
        let (elem, frac) = match f.input {
            Input::F16 => (FFmt::F16, 10),
            Input::BF16 => (FFmt::BF16, 7),
            _ => (FFmt::F32, 10),
        };
        let mut acc = c;
        for (ac, bc) in a.chunks(block as usize).zip(b.chunks(block as usize)) {
            let d = BlockDot { terms: ac.len() as u8, elem, frac, keep };
            let op = FloatOp::nv(FloatKind::BlockDot(d), round);
            let mut args: Vec<Value> = ac.to_vec();
            args.extend_from_slice(bc);
            args.push(acc);
            acc = cx.b().float(op, acc_ty, &args);
        }
        acc
    }
}
