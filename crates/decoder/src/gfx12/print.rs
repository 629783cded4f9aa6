//! LLVM-syntax printer.

use super::Op;
use crate::amd::{Amd, Generation};
use crate::Decoded;

impl Generation for Op {
    fn print(p: &Amd<Self>, d: &Decoded, _addr: u64, out: &mut String) {
        let t = p.tables();
        let ie = p.inst_encoding(d);
        out.push_str(t.instructions[ie.inst as usize].mnemonic);
        for (k, op) in ie.operands.iter().enumerate() {
            out.push_str(if k == 0 { " " } else { ", " });
            let v = op.field.map(|f| f.get(&d.words)).unwrap_or(0);
            match t.operand_types[op.ty as usize].lookup(v as i64) {
                Some(n) => out.push_str(n),
                None => out.push_str(&v.to_string()),
            }
        }
    }

    fn nsa_dwords(_p: &Amd<Self>, _words: &[u32], _ienc: u16) -> usize {
        0
    }

    fn canonicalize(_p: &Amd<Self>, _d: &mut Decoded) {}
}
