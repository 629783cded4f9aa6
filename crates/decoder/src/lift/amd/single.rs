//! Lifting one instruction on its own: whether the lifter knows it, without a whole program
//! around it. The corpus counts (lifted and unsupported instructions per ISA) and the census
//! use it; a program lifts with [`super::lift`].

use super::{sop, unsupported_at, At, Cx, Options};
use crate::lift::LiftError;
use crate::operand::Flow;
use crate::Isa;
use isabridge_ir::ir::{ExecModel, Function};

/// Lift the instruction at the start of `bytes` (at address `addr`) into a scratch function.
/// Returns its length in bytes, or the error a whole-program lift would give for it. Branch
/// targets are not checked (they lie outside a single instruction).
pub fn lift_one(isa: Isa, bytes: &[u8], addr: u64, opts: &Options) -> Result<usize, LiftError> {
    super::check_isa(isa, addr)?;
    let plugin = isa.plugin();
    let d = plugin.decode(bytes, addr).map_err(|e| LiftError::Decode { isa, addr, why: e.to_string() })?;
    let inst = plugin.operands(&d, addr);
    let mut f = Function::new("one");
    f.model = ExecModel::Wave;
    f.wave_size = if opts.wave64 { 64 } else { 32 };
    let block = f.add_block();
    let mut cx = Cx { f: &mut f, block, isa, wave64: opts.wave64, mode: opts.mode, regs: Default::default() };
    cx.prologue(opts);
    let mut at = At { inst: &inst, d: &d };
    match inst.flow {
        Flow::Next | Flow::End => cx.lift_inst(&mut at)?,
        Flow::Branch => {}
        Flow::CondBranch => {
            sop::branch_condition(&mut cx, &at)?;
        }
        _ => return Err(unsupported_at(isa, &inst, &d, "calls and returns lift only in a whole kernel (lift_kernel inlines them)")),
    }
    Ok(d.len as usize)
}
