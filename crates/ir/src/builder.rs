//! A cursor for building functions: what lifters use to emit IR.

use crate::ir::{Block, Function, Reg, Terminator, Value};
use crate::ops::conv::ConvOp;
use crate::ops::float::{FCmp, FloatOp};
use crate::ops::int::IntOp;
use crate::ops::lane::LaneOp;
use crate::ops::mem::MemOp;
use crate::ops::Op;
use crate::soft::approx::ApproxFn;
use crate::types::Type;

/// Appends instructions to the current block of a function.
pub struct Builder<'f> {
    /// The function being built.
    pub func: &'f mut Function,
    /// The block instructions go to.
    pub block: Block,
}

impl<'f> Builder<'f> {
    /// Start building at the end of `block`.
    pub fn new(func: &'f mut Function, block: Block) -> Builder<'f> {
        Builder { func, block }
    }
    /// Append any instruction. Its result is marked uniform when the op gives every lane the
    /// same value ([`Op::uniform_result`]).
    pub fn ins(&mut self, op: Op, args: &[Value], ty: Option<Type>) -> Value {
        let uniform = op.uniform_result(args.iter().all(|a| self.func.insts.get(*a).is_some_and(|i| i.uniform)));
        let v = self.func.append(self.block, op, args, ty);
        self.func.insts[v].uniform = uniform;
        v
    }
    /// A lane-select (merge under a mask).
    pub fn lanesel(&mut self, ty: Type, mask: Value, on: Value, off: Value) -> Value {
        self.ins(Op::LaneSelect, &[mask, on, off], Some(ty))
    }
    /// Per-lane input `n`.
    pub fn param(&mut self, n: u32, ty: Type) -> Value {
        self.ins(Op::Param(n), &[], Some(ty))
    }
    /// A uniform constant.
    pub fn konst(&mut self, ty: Type, bits: u64) -> Value {
        let v = self.ins(Op::Const(bits & ty.mask()), &[], Some(ty));
        self.func.insts[v].uniform = true;
        v
    }
    /// Float operation.
    pub fn float(&mut self, op: FloatOp, ty: Type, args: &[Value]) -> Value {
        self.ins(Op::Float(op), args, Some(ty))
    }
    /// Float comparison.
    pub fn fcmp(&mut self, c: FCmp, ftz: bool, a: Value, b: Value) -> Value {
        self.ins(Op::FCmp(c, ftz), &[a, b], Some(Type::B1))
    }
    /// Integer operation.
    pub fn int(&mut self, op: IntOp, ty: Type, args: &[Value]) -> Value {
        let ty = if matches!(op, IntOp::Cmp(_)) { Type::B1 } else { ty };
        self.ins(Op::Int(op), args, Some(ty))
    }
    /// Conversion to `ty`.
    pub fn conv(&mut self, op: ConvOp, ty: Type, a: Value) -> Value {
        self.ins(Op::Conv(op), &[a], Some(ty))
    }
    /// Approximate function.
    pub fn approx(&mut self, f: ApproxFn, ftz: bool, ty: Type, a: Value) -> Value {
        self.ins(Op::Approx(f, ftz), &[a], Some(ty))
    }
    /// Reinterpret bits.
    pub fn bitcast(&mut self, ty: Type, a: Value) -> Value {
        self.ins(Op::Bitcast, &[a], Some(ty))
    }
    /// Select.
    pub fn select(&mut self, ty: Type, c: Value, a: Value, b: Value) -> Value {
        self.ins(Op::Select, &[c, a, b], Some(ty))
    }
    /// Build a vector.
    pub fn build(&mut self, ty: Type, elems: &[Value]) -> Value {
        self.ins(Op::Build, elems, Some(ty))
    }
    /// Extract an element.
    pub fn extract(&mut self, ty: Type, v: Value, i: u8) -> Value {
        self.ins(Op::Extract(i), &[v], Some(ty))
    }
    /// Cross-lane op.
    pub fn lane(&mut self, op: LaneOp, ty: Type, args: &[Value]) -> Value {
        self.ins(Op::Lane(op), args, Some(ty))
    }
    /// Load.
    pub fn load(&mut self, m: MemOp, ty: Type, addr: Value) -> Value {
        self.ins(Op::Mem(m), &[addr], Some(ty))
    }
    /// Store.
    pub fn store(&mut self, m: MemOp, addr: Value, v: Value) -> Value {
        self.ins(Op::Mem(m), &[addr, v], None)
    }
    /// Read a machine register.
    pub fn read_reg(&mut self, r: Reg) -> Value {
        let ty = self.func.reg_ty(r);
        let uniform = self.func.regs.get(r.0 as usize).is_some_and(|i| i.uniform);
        let v = self.ins(Op::ReadReg(r), &[], ty);
        self.func.insts[v].uniform = uniform;
        v
    }
    /// Write a machine register.
    pub fn write_reg(&mut self, r: Reg, v: Value) -> Value {
        self.ins(Op::WriteReg(r), &[v], None)
    }
    /// End the block with a return.
    pub fn ret(&mut self, vals: &[Value]) {
        self.func.blocks[self.block].term = Terminator::Return(vals.to_vec());
    }
    /// End the block with a jump.
    pub fn jump(&mut self, to: Block) {
        self.func.blocks[self.block].term = Terminator::Jump(to);
    }
    /// End the block with a conditional branch.
    pub fn branch(&mut self, c: Value, t: Block, f: Block) {
        self.func.blocks[self.block].term = Terminator::Branch(c, t, f);
    }
}
