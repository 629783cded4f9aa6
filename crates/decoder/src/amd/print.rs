//! The printing context shared by the AMD family printers.

use super::operands::{self, Kind, ScalarNames};
use crate::spec::{Field, InstEncoding, Operand, Tables};
use crate::Decoded;
use std::fmt::Write as _;

/// What a family printer needs: the words, the tables entry, the literal, the register names.
pub struct Ctx<'a, Op: 'static> {
    /// Generated tables.
    pub t: &'static Tables<Op>,
    /// The instruction.
    pub d: &'a Decoded,
    /// Its (instruction, encoding) entry.
    pub ie: &'static InstEncoding<Op>,
    /// The literal dword (0 when none).
    pub lit: u32,
    /// Scalar register numbering.
    pub names: &'static ScalarNames,
    /// Instruction address (branch targets).
    pub addr: u64,
}

impl<'a, Op> Ctx<'a, Op> {
    /// Builds the context; the literal sits right after the encoding's base words.
    pub fn new(t: &'static Tables<Op>, d: &'a Decoded, names: &'static ScalarNames, addr: u64) -> Self {
        let ie = &t.inst_encodings[d.ienc as usize];
        let e = &t.encodings[d.enc as usize];
        let base = (e.bits as usize) / 32;
        let lit = if (d.len as usize) > base * 4 { d.words[base] } else { 0 };
        Ctx { t, d, ie, lit, names, addr }
    }

    /// The words.
    pub fn w(&self) -> &[u32] {
        &self.d.words
    }

    /// A field's value.
    pub fn f(&self, f: Field) -> u32 {
        f.get(&self.d.words) as u32
    }

    /// The lower-case mnemonic.
    pub fn mnemonic(&self) -> &'static str {
        self.t.instructions[self.ie.inst as usize].mnemonic
    }

    /// The name of the encoding.
    pub fn enc_name(&self) -> &'static str {
        self.t.encodings[self.d.enc as usize].name
    }

    /// True when the instruction also has an encoding of this name.
    pub fn has_encoding(&self, name: &str) -> bool {
        self.t.instructions[self.ie.inst as usize]
            .encodings
            .iter()
            .any(|&k| self.t.encodings[self.t.inst_encodings[k as usize].enc as usize].name == name)
    }

    /// The operand type name of an operand.
    pub fn ty(&self, op: &Operand) -> &'static str {
        self.t.operand_types[op.ty as usize].name
    }

    /// The operand's print kind.
    pub fn kind(&self, op: &Operand) -> Kind {
        Kind::of(self.t.data_formats[op.fmt as usize], op.size)
    }

    /// The operand's raw field value.
    pub fn val(&self, op: &Operand) -> u32 {
        op.field.map(|f| f.get(&self.d.words) as u32).unwrap_or(0)
    }

    /// The field name of an operand ("" when implicit).
    pub fn field_name(&self, op: &Operand) -> &'static str {
        op.field.map(|f| f.name).unwrap_or("")
    }

    /// Appends a scalar register operand.
    pub fn sreg(&self, out: &mut String, v: u32, size: u16) {
        operands::sreg(out, self.names, v, size)
    }

    /// Appends a source operand.
    pub fn src(&self, out: &mut String, v: u32, size: u16, kind: Kind) {
        operands::src(out, self.names, v, size, kind, self.lit)
    }
}

/// Appends ` name:0x..` in hex.
pub fn hex_mod(out: &mut String, name: &str, v: u32) {
    let _ = write!(out, " {name}:0x{v:x}");
}
