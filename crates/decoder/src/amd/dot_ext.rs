//! The gfx10.3 dot-product extension of the gfx1013 decoder, for RDNA2 code.
//!
//! gfx1011, gfx1012 and gfx1030 (RDNA2) have dot-product instructions gfx1013 lacks; LLVM
//! decodes them for those targets only. `data/gfx10_3_dot.tsv` lists them, measured with
//! llvm-mc-22 by `tools/amdspec/dot_ext.py`: name, mnemonic, encoding, opcode, operand types,
//! and a gfx1013 instruction of the same encoding (its twin) whose fields, operands, accepted
//! words and printing equal the dot instruction's but for the mnemonic on random words of every
//! form. Those marked `decoded` decode here: the word with the twin's opcode decodes through the
//! gfx1013 tables, and the result keeps the original words. Printing prints the twin's words and
//! puts the dot mnemonic in place of the twin's (LLVM names no `_e32` form of a dot instruction
//! that has no VOP3 form); the operand model is the twin's with the dot instruction's name, its
//! inline constants read as the dot instruction's operand types. `Inst::opcode` stays the
//! twin's table index (the gfx1013 tables have no entry for a dot instruction); encoding keeps
//! a dot word's own bytes.
//!
//! [`GFX10_DOT`] is the plugin: plain gfx1013 ([`super::GFX10`]) keeps rejecting these words as
//! LLVM does for gfx1013.

use super::model::inline_bits;
use super::GFX10;
use crate::operand::{ConstType, OperandKind};
use crate::{BuildError, Decoded, DecodeError, Inst, Isa, IsaPlugin, MAX_WORDS};

/// The measured table.
const TABLE: &str = include_str!("../../data/gfx10_3_dot.tsv");

/// One dot-product instruction of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DotOp {
    /// Upper-case name (`V_DOT2C_F32_F16`).
    pub name: &'static str,
    /// LLVM's mnemonic (`v_dot2c_f32_f16`).
    pub mnemonic: &'static str,
    /// `VOP2` or `VOP3P`.
    pub encoding: &'static str,
    /// Its opcode field.
    pub opcode: u32,
    /// The twin's mnemonic (`v_fmac_f32`).
    pub twin: &'static str,
    /// The twin's opcode field.
    pub twin_opcode: u32,
    /// Operand types, destination first (`f32,f16x2,f16x2`).
    pub types: &'static str,
    /// Whether it decodes (its twin prints and accepts the same words).
    pub decoded: bool,
}

/// Every row of the table.
pub fn table() -> impl Iterator<Item = DotOp> {
    TABLE.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).filter_map(|l| {
        let c: Vec<&'static str> = l.split('\t').collect();
        Some(DotOp {
            name: c.first()?,
            mnemonic: c.get(1)?,
            encoding: c.get(2)?,
            opcode: c.get(3)?.parse().ok()?,
            twin: c.get(4)?,
            twin_opcode: c.get(5)?.parse().ok()?,
            types: c.get(6)?,
            decoded: *c.get(7)? == "decoded",
        })
    })
}

/// The encoding and opcode field of a first word of VOP2 (bit 31 clear, opcode bits 30:25;
/// its DPP and DPP8 forms too) or VOP3P (bits 31:23 = 0x198, opcode bits 22:16).
fn opcode_of(w: u32) -> (&'static str, u32) {
    if w >> 31 == 0 {
        ("VOP2", w >> 25 & 0x3f)
    } else if w >> 23 == 0x198 {
        ("VOP3P", w >> 16 & 0x7f)
    } else {
        ("", 0)
    }
}

/// `w` with its opcode field set to `op`.
fn with_opcode(w: u32, encoding: &str, op: u32) -> u32 {
    match encoding {
        "VOP2" => (w & !(0x3f << 25)) | (op & 0x3f) << 25,
        _ => (w & !(0x7f << 16)) | (op & 0x7f) << 16,
    }
}

/// The decoded row whose encoding and opcode the first word `w` has.
fn row_of(w: u32) -> Option<DotOp> {
    let (enc, op) = opcode_of(w);
    table().find(|r| r.decoded && r.encoding == enc && r.opcode == op)
}

/// gfx1013 with the gfx10.3 dot-product instructions.
#[derive(Debug)]
pub struct Gfx10Dot;

/// The gfx1013 plugin with the gfx10.3 dot-product instructions (RDNA2 code).
pub static GFX10_DOT: Gfx10Dot = Gfx10Dot;

impl Gfx10Dot {
    /// The dot-product instruction `d` is, if it is one.
    pub fn dot_of(&self, d: &Decoded) -> Option<DotOp> {
        row_of(d.words[0])
    }

    /// `d` with its twin's opcode (the words the gfx1013 tables describe).
    fn twin(d: &Decoded, r: &DotOp) -> Decoded {
        let mut t = *d;
        t.words[0] = with_opcode(d.words[0], r.encoding, r.twin_opcode);
        t
    }
}

/// The inline constant type and element width of an operand type of the table.
fn const_type(ty: &str) -> (ConstType, u16) {
    let (scalar, lanes) = ty.split_once('x').unwrap_or((ty, "1"));
    let bits: u16 = scalar.trim_start_matches(|c: char| c.is_ascii_alphabetic()).parse().unwrap_or(32);
    let packed = lanes != "1";
    match scalar.as_bytes().first() {
        Some(b'f') if bits == 16 => (ConstType::F16, 32),
        Some(b'f') => (ConstType::F32, 32),
        _ => (ConstType::Int, if packed { bits.max(16) } else { 32 }),
    }
}

impl IsaPlugin for Gfx10Dot {
    fn isa(&self) -> Isa {
        Isa::Gfx1013
    }

    fn unit(&self) -> usize {
        4
    }

    fn decode(&self, bytes: &[u8], addr: u64) -> Result<Decoded, DecodeError> {
        let err = match GFX10.decode(bytes, addr) {
            Ok(d) => return Ok(d),
            Err(e) => e,
        };
        let Some(first) = bytes.first_chunk::<4>().map(|b| u32::from_le_bytes(*b)) else { return Err(err) };
        let Some(r) = row_of(first) else { return Err(err) };
        let mut b = [0u8; MAX_WORDS * 4];
        let n = bytes.len().min(b.len());
        b[..n].copy_from_slice(&bytes[..n]);
        b[..4].copy_from_slice(&with_opcode(first, r.encoding, r.twin_opcode).to_le_bytes());
        let mut d = GFX10.decode(&b[..n], addr).map_err(|_| err)?;
        d.words[0] = first;
        Ok(d)
    }

    fn print(&self, inst: &Decoded, addr: u64, out: &mut String) {
        self.print_noted(inst, addr, out, &mut String::new())
    }

    fn print_noted(&self, inst: &Decoded, addr: u64, out: &mut String, note: &mut String) {
        let Some(r) = self.dot_of(inst) else { return GFX10.print_noted(inst, addr, out, note) };
        let mut text = String::new();
        GFX10.print_noted(&Self::twin(inst, &r), addr, &mut text, note);
        let (head, rest) = text.split_once(' ').unwrap_or((text.as_str(), ""));
        let suffix = head.strip_prefix(r.twin).unwrap_or("");
        out.push_str(r.mnemonic);
        if suffix != "_e32" {
            out.push_str(suffix);
        }
        if !rest.is_empty() {
            out.push(' ');
            out.push_str(rest);
        }
    }

    /// A dot-product word encodes as its own bytes: the twin's canonical form may fold a
    /// literal into an inline constant of the twin's operand type, which reads otherwise in the
    /// dot instruction's (an f32 4.0 literal is no packed-f16 4.0), and LLVM's canonical
    /// encoding of the dot words is not measured.
    fn encode(&self, inst: &Decoded) -> Vec<u8> {
        match self.dot_of(inst) {
            Some(_) => inst.bytes(),
            None => GFX10.encode(inst),
        }
    }

    fn name(&self, inst: &Decoded) -> &'static str {
        self.dot_of(inst).map_or_else(|| GFX10.name(inst), |r| r.name)
    }

    fn encoding_name(&self, inst: &Decoded) -> &'static str {
        GFX10.encoding_name(inst)
    }

    fn branch_target(&self, inst: &Decoded, addr: u64) -> Option<u64> {
        GFX10.branch_target(inst, addr)
    }

    fn operands(&self, inst: &Decoded, addr: u64) -> Inst {
        let Some(r) = self.dot_of(inst) else { return GFX10.operands(inst, addr) };
        let mut i = GFX10.operands(&Self::twin(inst, &r), addr);
        i.name = r.name;
        let mut types = r.types.split(',');
        for o in i.operands.iter_mut().filter(|o| !o.implicit) {
            let Some(ty) = types.next() else { break };
            if let OperandKind::InlineConst { code, .. } = o.kind {
                let (ct, size) = const_type(ty);
                o.kind = OperandKind::InlineConst { code, bits: inline_bits(code as u32, ct, size), ty: ct };
            }
        }
        i
    }

    fn flow(&self, inst: &Decoded) -> crate::operand::Flow {
        GFX10.flow(inst)
    }

    fn build(&self, inst: &Inst) -> Result<Vec<u8>, BuildError> {
        let Some(r) = table().find(|r| r.decoded && r.name == inst.name) else { return GFX10.build(inst) };
        let mut twin = inst.clone();
        let t = GFX10.tables().instructions.get(inst.opcode as usize);
        twin.name = t.ok_or(BuildError::UnknownOpcode { isa: Isa::Gfx1013, name: inst.name, opcode: inst.opcode })?.name;
        let mut b = GFX10.build(&twin)?;
        if let Some(w) = b.first_chunk_mut::<4>() {
            *w = with_opcode(u32::from_le_bytes(*w), r.encoding, r.opcode).to_le_bytes();
        }
        Ok(b)
    }
}
