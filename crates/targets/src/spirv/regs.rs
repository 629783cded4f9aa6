//! Machine registers a function still reads or writes after the IR pipeline (`readreg` /
//! `writereg`: those the SSA pass leaves, e.g. written and never read back) as Function
//! variables of the register's type, one per invocation, starting at 0 as the interpreter's
//! register file does; and messages to the host or fixed-function hardware (`message.*`),
//! which a compute dispatch's memory never sees: nothing is emitted for them.

use super::emit::{internal, Em, EmitError};
use isabridge_ir::ir::Value;
use isabridge_ir::ops::stage::StageOp;
use isabridge_ir::Op;
use rspirv::spirv;

impl Em<'_> {
    /// Declare a variable for every register the function reads or writes (in the preamble
    /// block, where Function variables go).
    pub(super) fn declare_regs(&mut self) -> Result<(), EmitError> {
        let f = self.f;
        for &blk in &f.layout {
            for &v in &f.blocks[blk].insts {
                let (Op::ReadReg(r) | Op::WriteReg(r)) = f.insts[v].op else { continue };
                if self.reg_vars.contains_key(&r) {
                    continue;
                }
                let t = f.regs.get(r.0 as usize).ok_or_else(|| internal(format!("register {} is not declared", r.0)))?.ty;
                let ty = self.ty(t)?;
                let zero = self.konst(t, 0)?;
                let pt = self.b.type_pointer(None, spirv::StorageClass::Function, ty);
                let var = self.b.variable(pt, None, spirv::StorageClass::Function, Some(zero));
                self.reg_vars.insert(r, var);
            }
        }
        Ok(())
    }

    /// `readreg`, `writereg` or a message; false when `v` is none of these.
    pub(super) fn reg_inst(&mut self, v: Value) -> Result<bool, EmitError> {
        let data = &self.f.insts[v];
        match data.op {
            Op::ReadReg(r) => {
                let t = data.ty.ok_or_else(|| internal("readreg without a type"))?;
                let var = *self.reg_vars.get(&r).ok_or_else(|| internal("readreg of an undeclared register"))?;
                let ty = self.ty(t)?;
                let x = self.b.load(ty, None, var, None, []).map_err(internal)?;
                self.define(v, x)?;
            }
            Op::WriteReg(r) => {
                let a = data.args[0];
                let var = *self.reg_vars.get(&r).ok_or_else(|| internal("writereg of an undeclared register"))?;
                let x = self.get(a)?;
                let t = self.f.regs.get(r.0 as usize).ok_or_else(|| internal(format!("register {} is not declared", r.0)))?.ty;
                let ty = self.ty(t)?;
                let x = self.kept(var, ty, x)?;
                self.b.store(var, x, None, []).map_err(internal)?;
            }
            Op::Stage(StageOp::Message(_)) => {}
            _ => return Ok(false),
        }
        Ok(true)
    }
}
