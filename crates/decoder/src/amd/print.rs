//! The printing context shared by the AMD family printers.

use super::operands::{self, Kind, ScalarNames};
use crate::spec::{Field, InstEncoding, Operand, Tables};
use crate::Decoded;
use std::cell::Cell;

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
    /// Bits the printer read: everything else is a don't-care for the canonical encoding.
    used: Cell<[u32; crate::MAX_WORDS]>,
    /// Index of the literal dword (the encoding's base size in dwords).
    lit_index: usize,
    /// Whether reads are recorded in `used` (canonical encoding only; printing skips it).
    track: bool,
    /// Print kind per data format of the tables (size 32), when the caller has them.
    kinds: &'static [Kind],
}

impl<'a, Op> Ctx<'a, Op> {
    /// Builds the context; the literal sits right after the encoding's base words.
    pub fn new(t: &'static Tables<Op>, d: &'a Decoded, names: &'static ScalarNames, addr: u64) -> Self {
        let ie = &t.inst_encodings[d.ienc as usize];
        let e = &t.encodings[d.enc as usize];
        let base = (e.bits as usize) / 32;
        let lit = if (d.len as usize) > base * 4 { d.words[base] } else { 0 };
        Ctx { t, d, ie, lit, names, addr, used: Cell::new([0; crate::MAX_WORDS]), lit_index: base, track: true, kinds: &[] }
    }

    /// A context for printing only: reads are not recorded, operand kinds come from `kinds`
    /// (one per data format, see [`Kind::table`]).
    pub fn for_print(t: &'static Tables<Op>, d: &'a Decoded, names: &'static ScalarNames, addr: u64, kinds: &'static [Kind]) -> Self {
        Ctx { track: false, kinds, ..Ctx::new(t, d, names, addr) }
    }

    /// The bits read so far (see [`Ctx::f`], [`Ctx::val`], [`Ctx::bits`]).
    pub fn used(&self) -> [u32; crate::MAX_WORDS] {
        self.used.get()
    }

    #[inline(always)]
    fn mark(&self, f: Field) {
        if self.track {
            self.mark_slow(f)
        }
    }

    /// [`Ctx::mark`] when tracking.
    #[inline(never)]
    fn mark_slow(&self, f: Field) {
        let mut u = self.used.get();
        f.set(&mut u, u64::MAX);
        self.used.set(u);
    }

    /// Reads bits [off, off+cnt) of the words, marking them used.
    pub fn bits(&self, off: u32, cnt: u32) -> u32 {
        if self.track {
            let mut u = self.used.get();
            crate::spec::deposit(&mut u, off, cnt, u64::MAX);
            self.used.set(u);
        }
        crate::spec::extract(&self.d.words, off, cnt) as u32
    }

    /// The literal dword, marking it used.
    pub fn literal(&self) -> u32 {
        self.literal_bits(u32::MAX)
    }

    /// The literal dword, marking only the bits in `mask` used.
    pub fn literal_bits(&self, mask: u32) -> u32 {
        if self.track {
            let mut u = self.used.get();
            if let Some(x) = u.get_mut(self.lit_index) {
                *x |= mask;
            }
            self.used.set(u);
        }
        self.lit
    }

    /// Reads a source's literal: a 16-bit operand that is not printed as lit() uses the low half.
    fn src_literal(&self, v: u32, kind: Kind) -> u32 {
        if v != 255 {
            return 0;
        }
        // Only 32-bit encodings (VOP1/VOP2/VOPC) drop a 16-bit literal's upper half.
        // (and so do VOP3 forms of them; VOP3-only instructions keep the whole dword).
        let half = matches!(kind, Kind::F16 | Kind::I16 | Kind::BF16)
            && !operands::inlinable16(self.lit)
            && (self.lit_index == 1
                || self.has_encoding("ENC_VOP1")
                || self.has_encoding("ENC_VOP2")
                || self.has_encoding("ENC_VOPC"));
        self.literal_bits(if half { 0xffff } else { u32::MAX })
    }

    /// Appends a source with modifiers (see [`operands::src_mods`]).
    #[inline]
    pub fn src_mods(&self, out: &mut String, v: u32, size: u16, kind: Kind, neg: bool, abs: bool) {
        if !(neg | abs) {
            return self.src(out, v, size, kind);
        }
        let lit = self.src_literal(v, kind);
        operands::src_mods(out, self.names, v, size, kind, lit, neg, abs)
    }

    /// The words.
    pub fn w(&self) -> &[u32] {
        &self.d.words
    }

    /// A field's value.
    #[inline(always)]
    pub fn f(&self, f: Field) -> u32 {
        self.mark(f);
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

    /// True when the instruction also has the encoding of index `enc` (< 64).
    pub fn has_enc(&self, enc: u16) -> bool {
        self.t.instructions[self.ie.inst as usize].enc_set >> enc & 1 != 0
    }

    /// The operand type name of an operand.
    pub fn ty(&self, op: &Operand) -> &'static str {
        self.t.operand_types[op.ty as usize].name
    }

    /// The operand's print kind.
    #[inline]
    pub fn kind(&self, op: &Operand) -> Kind {
        match self.kinds.get(op.fmt as usize) {
            Some(&Kind::I32) if op.size == 64 => Kind::I64,
            Some(&k) => k,
            None => Kind::of(self.t.data_formats[op.fmt as usize], op.size),
        }
    }

    /// The operand's raw field value.
    #[inline(always)]
    pub fn val(&self, op: &Operand) -> u32 {
        op.field.map(|f| self.f(*f)).unwrap_or(0)
    }

    /// The field name of an operand ("" when implicit).
    pub fn field_name(&self, op: &Operand) -> &'static str {
        op.field.map(|f| f.name).unwrap_or("")
    }

    /// Appends a scalar register operand.
    pub fn sreg(&self, out: &mut String, v: u32, size: u16) {
        operands::sreg(out, self.names, v, size)
    }

    /// Appends a source operand: a 32-bit register or inline integer from the name table, the
    /// rest through [`operands::src`].
    #[inline]
    pub fn src(&self, out: &mut String, v: u32, size: u16, kind: Kind) {
        if size <= 32 {
            match self.names.src32.get(v as usize) {
                Some(&p) if p != 0 => return operands::put_packed(out, p),
                _ => {}
            }
        }
        self.src_slow(out, v, size, kind)
    }

    /// [`Ctx::src`] of what the name table does not hold.
    #[inline(never)]
    fn src_slow(&self, out: &mut String, v: u32, size: u16, kind: Kind) {
        let lit = self.src_literal(v, kind);
        operands::src(out, self.names, v, size, kind, lit)
    }
}

/// Appends ` name:0x..` in hex.
pub fn hex_mod(out: &mut String, name: &str, v: u32) {
    out.push(' ');
    crate::amd::operands::put(out, name);
    out.push(':');
    crate::amd::operands::put_hex(out, v);
}
