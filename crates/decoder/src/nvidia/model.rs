//! The NVIDIA operand model: a decoded sm_50 / sm_86 instruction as typed operands
//! (see [`crate::operand`]).

use super::NvPlugin;
use crate::operand::{Flow, Inst};
use crate::{Decoded, IsaPlugin};

/// The instruction in the operand model.
pub fn operands(p: &NvPlugin, d: &Decoded, addr: u64) -> Inst {
    Inst {
        isa: p.isa(),
        addr,
        len: d.len,
        opcode: d.ienc,
        name: p.name(d),
        encoding: p.encoding_name(d),
        operands: Vec::new(),
        modifiers: Vec::new(),
        flow: flow(p, d),
        guard: None,
        control: None,
    }
}

/// An sm_50 instruction (a bundle's first slot carries the control word) in the operand model.
pub fn operands_sm50(d: &Decoded, addr: u64) -> Inst {
    operands(&crate::sm50::SM50_INSN, d, addr)
}

/// The instruction's control-flow kind.
pub fn flow(_p: &NvPlugin, _d: &Decoded) -> Flow {
    Flow::Next
}
