//! The AMD operand model: a decoded gfx10 / gfx12 instruction as typed operands
//! (see [`crate::operand`]).

use super::{Amd, Generation};
use crate::operand::{Flow, Inst};
use crate::Decoded;

/// The instruction in the operand model.
pub fn operands<Op: Generation>(p: &Amd<Op>, d: &Decoded, addr: u64) -> Inst {
    let ie = p.inst_encoding(d);
    Inst {
        isa: p.isa,
        addr,
        len: d.len,
        opcode: ie.inst,
        name: p.tables().instructions[ie.inst as usize].name,
        encoding: p.encoding(d).name,
        operands: Vec::new(),
        modifiers: Vec::new(),
        flow: flow(p, d),
        guard: None,
        control: None,
    }
}

/// The instruction's control-flow kind.
pub fn flow<Op: Generation>(_p: &Amd<Op>, _d: &Decoded) -> Flow {
    Flow::Next
}
