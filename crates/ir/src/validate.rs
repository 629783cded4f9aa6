//! The validator: structural, SSA and type rules. Runs between passes in debug builds and tests.

use crate::ir::{Block, Function, Terminator, Value};
use crate::ops::conv::ConvOp;
use crate::ops::fdiv::{FDivKind, FDivOp};
use crate::ops::float::FloatKind;
use crate::ops::int::IntOp;
use crate::ops::lane::LaneOp;
use crate::ops::mem::{MemOp, Space};
use crate::ops::warp::{BarKind, WarpOp};
use crate::ops::Op;
use crate::types::{Scalar, Type};
use thiserror::Error;

/// A reason the IR is invalid.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ValidateError {
    /// The function has no blocks.
    #[error("function has no entry block")]
    NoEntry,
    /// A block handle that does not exist or is not in the layout.
    #[error("reference to unknown or deleted block {0:?}")]
    UnknownBlock(Block),
    /// A block listed twice in the layout.
    #[error("block {0:?} appears twice in the layout")]
    DuplicateBlock(Block),
    /// A value handle that does not exist or is not placed in a block.
    #[error("{user:?} uses unknown or unplaced value {used:?}")]
    UnknownValue {
        /// The using instruction (or the block's terminator as its block's first value).
        user: Value,
        /// The used value.
        used: Value,
    },
    /// An instruction placed in more than one block or twice.
    #[error("{0:?} is placed more than once")]
    PlacedTwice(Value),
    /// A use that its definition does not dominate.
    #[error("{user:?} uses {used:?} before its definition dominates it")]
    NotDominated {
        /// The user.
        user: Value,
        /// The used value.
        used: Value,
    },
    /// Wrong operand count.
    #[error("{inst:?} ({op}) expects {expected} operands, has {found}")]
    ArgCount {
        /// The instruction.
        inst: Value,
        /// Its mnemonic.
        op: String,
        /// Expected count.
        expected: usize,
        /// Actual count.
        found: usize,
    },
    /// A type rule of an operation is broken.
    #[error("{inst:?} ({op}): {why}")]
    Type {
        /// The instruction.
        inst: Value,
        /// Its mnemonic.
        op: String,
        /// What is wrong.
        why: &'static str,
    },
    /// A phi after a non-phi instruction.
    #[error("phi {0:?} is not at the start of its block")]
    PhiNotAtStart(Value),
    /// Phi incoming blocks differ from the block's predecessors.
    #[error("phi {0:?} incoming blocks do not match the predecessors")]
    PhiPreds(Value),
    /// A register index out of range.
    #[error("{0:?} names an unknown register")]
    UnknownReg(Value),
    /// A block with a non-b1 branch condition.
    #[error("branch condition of {0:?} is not b1")]
    BranchCond(Block),
    /// A wave-model function branching on a value that is not uniform.
    #[error("branch condition of {0:?} is not uniform in a wave-model function")]
    DivergentBranch(Block),
    /// A call that its module cannot make (see [`crate::module::validate_module`]).
    #[error("function {func}, {inst:?}: {why}")]
    Call {
        /// The calling function's index in its module.
        func: usize,
        /// The call.
        inst: Value,
        /// What is wrong.
        why: &'static str,
    },
    /// A problem inside a function of a module other than its entry.
    #[error("function {0}: {1}")]
    InFunction(usize, Box<ValidateError>),
}

fn terr(f: &Function, v: Value, why: &'static str) -> ValidateError {
    ValidateError::Type { inst: v, op: f.insts[v].op.mnemonic(), why }
}

/// Immediate dominators (by block index) of the blocks reachable from the entry.
pub fn dominators(f: &Function) -> Vec<Option<Block>> {
    let rpo = f.reverse_postorder();
    let mut order = vec![usize::MAX; f.blocks.len()];
    for (i, b) in rpo.iter().enumerate() {
        order[b.index()] = i;
    }
    let preds = f.predecessors();
    let mut idom: Vec<Option<Block>> = vec![None; f.blocks.len()];
    let Some(entry) = f.entry() else { return idom };
    idom[entry.index()] = Some(entry);
    let mut changed = true;
    while changed {
        changed = false;
        for &b in rpo.iter().skip(1) {
            let mut new: Option<Block> = None;
            for &p in &preds[b.index()] {
                if idom[p.index()].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => p,
                    Some(mut x) => {
                        let mut y = p;
                        while x != y {
                            while order[x.index()] > order[y.index()] {
                                x = idom[x.index()].unwrap_or(entry);
                            }
                            while order[y.index()] > order[x.index()] {
                                y = idom[y.index()].unwrap_or(entry);
                            }
                        }
                        x
                    }
                });
            }
            if new.is_some() && idom[b.index()] != new {
                idom[b.index()] = new;
                changed = true;
            }
        }
    }
    idom
}

fn dominates(idom: &[Option<Block>], a: Block, mut b: Block) -> bool {
    loop {
        if a == b {
            return true;
        }
        match idom[b.index()] {
            Some(p) if p != b => b = p,
            _ => return false,
        }
    }
}

/// Check the function. Returns the first problem found.
pub fn validate(f: &Function) -> Result<(), ValidateError> {
    if f.layout.is_empty() {
        return Err(ValidateError::NoEntry);
    }
    let nb = f.blocks.len();
    let mut in_layout = vec![false; nb];
    for &b in &f.layout {
        if b.index() >= nb {
            return Err(ValidateError::UnknownBlock(b));
        }
        if in_layout[b.index()] {
            return Err(ValidateError::DuplicateBlock(b));
        }
        in_layout[b.index()] = true;
    }
    // Placement.
    let ni = f.insts.len();
    let mut place: Vec<Option<(Block, usize)>> = vec![None; ni];
    for &b in &f.layout {
        for (i, &v) in f.blocks[b].insts.iter().enumerate() {
            if v.index() >= ni {
                return Err(ValidateError::UnknownValue { user: v, used: v });
            }
            if place[v.index()].is_some() {
                return Err(ValidateError::PlacedTwice(v));
            }
            place[v.index()] = Some((b, i));
        }
        for s in f.blocks[b].term.successor_iter() {
            if s.index() >= nb || !in_layout[s.index()] {
                return Err(ValidateError::UnknownBlock(s));
            }
        }
    }
    let preds = f.predecessors();
    let idom = dominators(f);
    let reachable = |b: Block| idom[b.index()].is_some();
    let check_use = |user: Value, used: Value, at: (Block, usize)| -> Result<Type, ValidateError> {
        let Some(Some((db, di))) = place.get(used.index()) else {
            return Err(ValidateError::UnknownValue { user, used });
        };
        let Some(ty) = f.insts[used].ty else {
            return Err(ValidateError::UnknownValue { user, used });
        };
        if reachable(at.0) {
            let ok = if *db == at.0 { *di < at.1 } else { reachable(*db) && dominates(&idom, *db, at.0) };
            if !ok {
                return Err(ValidateError::NotDominated { user, used });
            }
        }
        Ok(ty)
    };
    let mut tys: Vec<Type> = Vec::new();
    for &b in &f.layout {
        let bd = &f.blocks[b];
        let mut seen_non_phi = false;
        for (i, &v) in bd.insts.iter().enumerate() {
            let inst = &f.insts[v];
            if let Some(t) = inst.ty {
                if !t.is_valid() {
                    return Err(terr(f, v, "invalid result type"));
                }
            }
            if let Op::Phi(inc) = &inst.op {
                if seen_non_phi {
                    return Err(ValidateError::PhiNotAtStart(v));
                }
                if inc.len() != inst.args.len() {
                    return Err(ValidateError::PhiPreds(v));
                }
                let mut a = inc.clone();
                a.sort();
                let mut p = preds[b.index()].clone();
                p.sort();
                if a != p {
                    return Err(ValidateError::PhiPreds(v));
                }
                let ty = inst.ty.ok_or_else(|| terr(f, v, "phi needs a type"))?;
                for (pb, &arg) in inc.iter().zip(&inst.args) {
                    let end = (*pb, f.blocks[*pb].insts.len());
                    if check_use(v, arg, end)? != ty {
                        return Err(terr(f, v, "phi operand type differs"));
                    }
                }
                continue;
            }
            seen_non_phi = true;
            tys.clear();
            for &a in &inst.args {
                tys.push(check_use(v, a, (b, i))?);
            }
            check_types(f, v, &tys)?;
        }
        match &bd.term {
            Terminator::Branch(c, ..) => {
                let user = bd.insts.first().copied().unwrap_or(*c);
                let t = check_use(user, *c, (b, bd.insts.len()))?;
                if t != Type::B1 {
                    return Err(ValidateError::BranchCond(b));
                }
                if f.model == crate::ir::ExecModel::Wave && !f.insts[*c].uniform {
                    return Err(ValidateError::DivergentBranch(b));
                }
            }
            Terminator::Return(vals) => {
                for &r in vals {
                    let user = bd.insts.first().copied().unwrap_or(r);
                    check_use(user, r, (b, bd.insts.len()))?;
                }
            }
            Terminator::Jump(_) => {}
        }
    }
    Ok(())
}

fn check_types(f: &Function, v: Value, tys: &[Type]) -> Result<(), ValidateError> {
    let inst = &f.insts[v];
    let op = &inst.op;
    let n = tys.len();
    let masked = op.takes_mask() && op.arity().is_some_and(|k| n == k + 1);
    if masked && tys[n - 1] != Type::Mask {
        return Err(terr(f, v, "the operand after the last one must be the lane mask"));
    }
    if f.model == crate::ir::ExecModel::Wave && op.takes_mask() && !masked && !matches!(op, Op::Lane(l) if !l.needs_mask()) {
        return Err(terr(f, v, "in a wave-model function this op names its lane mask"));
    }
    let tys = if masked { &tys[..n - 1] } else { tys };
    let n = tys.len();
    if let Some(k) = op.arity() {
        if k != n {
            return Err(ValidateError::ArgCount { inst: v, op: op.mnemonic(), expected: k, found: n });
        }
    }
    let e = |why| Err(terr(f, v, why));
    if op.is_void() {
        if inst.ty.is_some() {
            return e("operation has no result");
        }
    } else if inst.ty.is_none() {
        return e("missing result type");
    }
    let ty = inst.ty.unwrap_or(Type::B1);
    let all_same = tys.iter().all(|t| *t == ty);
    match op {
        Op::Sync(crate::ops::control::SyncOp::Wait(w)) => {
            if let Some(why) = w.problem() {
                return e(why);
            }
        }
        Op::Pending(p) => {
            if let Some(why) = p.problem() {
                return e(why);
            }
            if tys[0] != ty {
                return e("a pending result has its operand's type");
            }
        }
        Op::Phi(_) | Op::Param(_) | Op::Const(_) | Op::Undef | Op::Sync(_) => {}
        Op::ReadReg(r) => {
            if f.reg_ty(*r) != Some(ty) {
                return Err(ValidateError::UnknownReg(v));
            }
        }
        Op::WriteReg(r) => match f.reg_ty(*r).as_ref() {
            None => return Err(ValidateError::UnknownReg(v)),
            Some(t) if *t != tys[0] => return e("register type differs from the value"),
            _ => {}
        },
        Op::Float(fo) => {
            let Some(fmt) = ty.float() else { return e("float op on a non-float type") };
            if fo.kind == FloatKind::TwoOverPiSlice {
                if tys[0] != ty || tys[1] != Type::I32 || ty != Type::S(Scalar::F(crate::soft::FFmt::F64)) {
                    return e("ftwooverpi takes an f64 of the result type and an i32");
                }
            } else if fo.kind == FloatKind::Dot2 {
                let pair = Type::V(Scalar::F(crate::soft::FFmt::F16), 2);
                if tys[0] != pair || tys[1] != pair || tys[2] != ty || ty != Type::F32 {
                    return e("fdot2 takes two <2 x f16> and an f32, and gives f32");
                }
            } else if let FloatKind::BlockDot(d) = fo.kind {
                if let Some(why) = d.problem() {
                    return e(why);
                }
                let el = Type::S(Scalar::F(d.elem));
                if ty.lanes() != 1 || tys[..2 * d.terms as usize].iter().any(|t| *t != el) || tys[2 * d.terms as usize] != ty {
                    return e("fblockdot takes n a's and n b's of its element format and c of the result type");
                }
            } else if fo.kind == FloatKind::Ldexp {
                if tys[0] != ty || tys[1] != Type::I32 || ty.lanes() != 1 {
                    return e("fldexp takes a scalar float of the result type and an i32");
                }
            } else if !all_same {
                return e("operand types differ from the result");
            }
            if matches!(fmt, crate::soft::FFmt::E4M3 | crate::soft::FFmt::E5M2) {
                return e("FP8 has no arithmetic; convert first");
            }
            if fo.fmz && !matches!(fo.kind, FloatKind::Mul | FloatKind::Fma) {
                return e("fmz applies to mul and fma only");
            }
        }
        Op::FDiv(d) => {
            let src = tys[0];
            if !matches!(src, Type::S(Scalar::F(f)) if d.kind.takes(f)) {
                return e("division helpers take scalar f32 or f64 (fdivfixup also f16)");
            }
            if tys[..3].iter().any(|t| *t != src) {
                return e("division helper operands 0-2 have one float type");
            }
            let want = if d.kind == FDivKind::Flag { Type::B1 } else { src };
            if ty != want {
                return e("fdivflag gives b1; the other division helpers give their operands' type");
            }
            if d.kind == FDivKind::Fmas && tys[3] != Type::B1 {
                return e("fdivfmas takes its flag as b1");
            }
            if d.kind == FDivKind::Flag && *d != FDivOp::flag() {
                return e("fdivflag has no float mode or output modifier");
            }
        }
        Op::FCmp(..) => {
            if ty != Type::B1 || tys[0] != tys[1] || !matches!(tys[0], Type::S(Scalar::F(_))) {
                return e("fcmp compares two scalar floats of one type into b1");
            }
        }
        Op::Int(io) => {
            if let IntOp::Cmp(_) = io {
                if ty != Type::B1 || tys[0] != tys[1] || !(tys[0].is_int() || tys[0] == Type::B1) || tys[0].lanes() != 1 {
                    return e("icmp compares two scalar integers of one type into b1");
                }
            } else {
                let logic = matches!(io, IntOp::And | IntOp::Or | IntOp::Xor | IntOp::Not | IntOp::Lop3(_));
                let ok_ty = ty.is_int() || ty == Type::Mask || (logic && ty == Type::B1);
                if !ok_ty || !all_same {
                    return e("integer op needs integer operands of the result type");
                }
                if matches!(io, IntOp::Prmt(_) | IntOp::Dp4a(..) | IntOp::Dp2a(..)) && ty != Type::I32 {
                    return e("prmt/dp4a/dp2a are 32-bit");
                }
            }
        }
        Op::Conv(c) => {
            let s = tys[0];
            if s.lanes() != ty.lanes() {
                return e("conversion keeps the element count");
            }
            let ok = match c {
                ConvOp::FToF { .. } => s.float().is_some() && ty.float().is_some(),
                ConvOp::FToI { .. } | ConvOp::FrexpExp { .. } | ConvOp::Class => s.float().is_some() && ty.is_int(),
                ConvOp::IToF { .. } => s.is_int() && ty.float().is_some(),
                ConvOp::IToI { .. } => (s.is_int() || s == Type::B1) && (ty.is_int() || ty == Type::B1),
            };
            if !ok {
                return e("conversion between the wrong kinds of type");
            }
        }
        Op::Approx(..) => {
            if ty.float().is_none() || !all_same {
                return e("approximate op on non-float or mixed types");
            }
        }
        Op::Select => {
            if tys[0] != Type::B1 || tys[1] != ty || tys[2] != ty {
                return e("select takes b1, then two operands of the result type");
            }
        }
        Op::LaneSelect => {
            if tys[0] != Type::Mask || tys[1] != ty || tys[2] != ty {
                return e("lanesel takes a mask, then two operands of the result type");
            }
        }
        Op::Buffer(bo) => {
            if tys.iter().take(7).any(|t| *t != Type::I32) {
                return e("buffer ops take four descriptor words, index, offset and soffset as i32");
            }
            let data = match bo.kind {
                crate::ops::buffer::BufferKind::Load => Some(ty),
                crate::ops::buffer::BufferKind::Store => Some(tys[7]),
                crate::ops::buffer::BufferKind::Atomic(_) => {
                    if tys[7..].iter().any(|t| *t != ty) || !ty.is_int() {
                        return e("buffer atomics take integer data of the result type");
                    }
                    Some(ty)
                }
                _ => None,
            };
            let data = match bo.kind {
                crate::ops::buffer::BufferKind::LoadFormat { format, comp, half } => {
                    if format.is_some_and(|f| !f.is_valid()) || comp > 3 {
                        return e("formatted buffer load: invalid format or component");
                    }
                    if ty != if half { Type::I16 } else { Type::I32 } {
                        return e("formatted buffer loads give i32, or i16 when half");
                    }
                    Some(ty)
                }
                crate::ops::buffer::BufferKind::StoreFormat { format, comps, half } => {
                    if format.is_some_and(|f| !f.is_valid()) || !(1..=4).contains(&comps) {
                        return e("formatted buffer store: invalid format or component count");
                    }
                    let want = if half { Type::I16 } else { Type::I32 };
                    if tys[7..7 + comps as usize].iter().any(|t| *t != want) {
                        return e("formatted buffer stores take i32 data, or i16 when half");
                    }
                    Some(want)
                }
                _ => data,
            };
            if data.is_some_and(|t| t.bits() != bo.bytes as u32 * 8) {
                return e("buffer access width differs from the data type");
            }
        }
        Op::Stage(_) => {
            if tys.iter().any(|t| t.lanes() != 1 || t.bits() > 32 || *t == Type::B1) {
                return e("an export takes one scalar of 8 to 32 bits");
            }
        }
        Op::Image(io) => {
            if io.operand_types() != tys {
                return e("image operand types differ from the op's (descriptors i64, addresses and data as its flags say)");
            }
            if !io.is_store() && ty != Type::I32 {
                return e("image ops give one i32 channel");
            }
            if io.chan > 3 || (matches!(io.kind, crate::ops::image::ImageKind::Gather) && io.comp > 3) {
                return e("image channel or gathered component out of range");
            }
        }
        Op::Ray(_) => {
            if ty != Type::I32 || tys[..3].iter().any(|t| *t != Type::I64) || tys[3..].iter().any(|t| *t != Type::F32) {
                return e("ray.node takes two i64 descriptor halves, an i64 node pointer and ten f32, giving i32");
            }
        }
        Op::Bitcast => {
            if tys[0].bits() != ty.bits() {
                return e("bitcast changes the width");
            }
        }
        Op::Build => {
            if ty.lanes() < 2 || n != ty.lanes() as usize || tys.iter().any(|t| *t != Type::S(ty.elem())) {
                return e("build needs one scalar per vector element");
            }
        }
        Op::Extract(i) => {
            if tys[0].lanes() < 2 || *i as u32 >= tys[0].lanes() || ty != Type::S(tys[0].elem()) {
                return e("extract index or type wrong");
            }
        }
        Op::Insert(i) => {
            if ty.lanes() < 2 || *i as u32 >= ty.lanes() || tys[0] != ty || tys[1] != Type::S(ty.elem()) {
                return e("insert index or type wrong");
            }
        }
        Op::Mem(m) => {
            let want = if m.space() == Space::Global { Type::I64 } else { Type::I32 };
            if tys[0] != want {
                return e("address type must be i64 (global) or i32 (other spaces)");
            }
            match m {
                MemOp::Load(_) => {}
                MemOp::Store(_) => {}
                MemOp::Atomic(_, k, _) => {
                    if !ty.is_int() || ty.lanes() != 1 || tys[1..].iter().any(|t| *t != ty) {
                        return e("atomics work on scalar integers of the result type");
                    }
                    if matches!(k, crate::ops::mem::AtomicKind::FAddPair16 { .. }) && ty != Type::I32 {
                        return e("a packed 16-bit float atomic works on i32");
                    }
                }
            }
        }
        Op::Lane(l) => {
            let ok = match l {
                LaneOp::LaneId | LaneOp::WaveId | LaneOp::WaveSize => ty == Type::I32,
                LaneOp::ActiveMask => ty == Type::Mask,
                LaneOp::Ballot => ty == Type::Mask && tys[0] == Type::B1,
                LaneOp::All | LaneOp::Any => ty == Type::B1 && tys[0] == Type::B1,
                LaneOp::ReadLane => tys[0] == ty && tys[1] == Type::I32,
                LaneOp::ReadFirstLane => tys[0] == ty,
                LaneOp::Shuffle(_, p) => {
                    tys[1] == Type::I32 && tys[2] == Type::I32 && if *p { ty == Type::B1 } else { tys[0] == ty }
                }
                LaneOp::Dpp(..) => tys[0] == ty && tys[1] == ty,
                LaneOp::DppValid(_) => ty == Type::B1,
                LaneOp::Permlane16 { .. } => {
                    tys[0] == ty && tys[1] == ty && tys[2] == Type::I32 && tys[3] == Type::I32
                }
                LaneOp::Bpermute { .. } | LaneOp::Permute { .. } => tys[0] == ty && tys[1] == Type::I32,
            };
            if !ok {
                return e("cross-lane operand or result types wrong");
            }
        }
        Op::Warp(w) => check_warp(f, v, *w, ty, tys)?,
        Op::Call(c) => {
            if let crate::ops::call::Callee::Symbol(s) = c {
                if !crate::ops::call::symbol_ok(s) {
                    return e("a called symbol is a non-empty name of printable characters without quotes or spaces");
                }
            }
        }
    }
    Ok(())
}

/// Types and execution model of the reconvergence and warp-synchronous ops.
fn check_warp(f: &Function, v: Value, w: WarpOp, ty: Type, tys: &[Type]) -> Result<(), ValidateError> {
    let e = |why| Err(terr(f, v, why));
    if matches!(w, WarpOp::Open | WarpOp::Join | WarpOp::Leave | WarpOp::Sync) && f.model != crate::ir::ExecModel::Lanes {
        return e("convergence regions exist only in lanes-model functions");
    }
    let ok = match w {
        WarpOp::Open => ty == Type::Mask,
        WarpOp::Join | WarpOp::Leave | WarpOp::Sync => tys[0] == Type::Mask,
        WarpOp::VoteEq => ty == Type::B1 && tys[0] == Type::B1,
        WarpOp::MatchAny | WarpOp::MatchAll => ty == Type::Mask && (tys[0] == Type::I32 || tys[0] == Type::I64),
        WarpOp::Redux(_) => ty == Type::I32 && tys[0] == Type::I32,
        WarpOp::Bar(k) => {
            let ids = tys[0] == Type::I32 && tys[1] == Type::I32;
            match k {
                BarKind::Sync | BarKind::Arrive => ids,
                BarKind::RedPopc => ids && tys[2] == Type::B1 && ty == Type::I32,
                BarKind::RedAnd | BarKind::RedOr => ids && tys[2] == Type::B1 && ty == Type::B1,
            }
        }
    };
    if !ok {
        return e("warp op operand or result types wrong (open gives a mask, join takes one; match gives a mask of an i32/i64; redux is i32; bar takes i32 id and count)");
    }
    Ok(())
}
