//! LLVM-syntax printer.

use super::Op;
use crate::amd::{operands, Amd, Generation};
use crate::Decoded;

impl Generation for Op {
    fn print(p: &Amd<Self>, d: &Decoded, _addr: u64, out: &mut String) {
        let t = p.tables();
        let ie = p.inst_encoding(d);
        out.push_str(t.instructions[ie.inst as usize].mnemonic);
        for (k, op) in ie.operands.iter().enumerate() {
            out.push_str(if k == 0 { " " } else { ", " });
            operands::generic(t, out, op, &d.words);
        }
    }

    fn canonicalize(_p: &Amd<Self>, _d: &mut Decoded) {}
}
