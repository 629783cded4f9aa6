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
    /// LLVM's warnings met while printing (see [`Notes`]).
    notes: Cell<Notes>,
}

/// LLVM's warnings about an instruction's operands, in the order the printer meets them: a
/// scalar register tuple (SGPR or trap temporary, 64 bits or more) whose first register is not
/// aligned (pairs even, wider tuples a multiple of four). LLVM prints such a tuple from its
/// aligned start and notes the register it was given. At most four are kept, packed in one
/// word (16 bits each: register index, trap-temporary bit, size in dwords; 0 when empty).
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Notes(u64);

impl Notes {
    /// True when there is no warning.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Adds the warning of a misaligned tuple: register `index` (within its file), trap
    /// temporaries or SGPRs, `size_bits` wide.
    fn push(&mut self, index: u32, ttmp: bool, size_bits: u16) {
        let rec = 1 << 15 | (ttmp as u64) << 14 | ((size_bits as u64 / 32) & 0x3f) << 7 | (index as u64 & 0x7f);
        for k in 0..4 {
            if self.0 >> (16 * k) & 0xffff == 0 {
                self.0 |= rec << (16 * k);
                return;
            }
        }
    }

    /// Appends LLVM's comment text for the warnings, back to back as llvm-objdump-22 prints
    /// them (`Warning: SGPR_64: scalar reg isn't aligned 89Warning: ...`).
    pub fn write(self, out: &mut String) {
        for k in 0..4 {
            let rec = (self.0 >> (16 * k) & 0xffff) as u32;
            if rec == 0 {
                return;
            }
            out.push_str(if rec >> 14 & 1 != 0 { "Warning: TTMP_" } else { "Warning: SGPR_" });
            operands::put(out, (rec >> 7 & 0x3f) * 32);
            out.push_str(": scalar reg isn't aligned ");
            operands::put(out, rec & 0x7f);
        }
    }
}

impl<'a, Op> Ctx<'a, Op> {
    /// Builds the context; the literal sits right after the encoding's base words.
    pub fn new(t: &'static Tables<Op>, d: &'a Decoded, names: &'static ScalarNames, addr: u64) -> Self {
        let ie = &t.inst_encodings[d.ienc as usize];
        let e = &t.encodings[d.enc as usize];
        let base = (e.bits as usize) / 32;
        let lit = if (d.len as usize) > base * 4 { d.words[base] } else { 0 };
        Ctx {
            t,
            d,
            ie,
            lit,
            names,
            addr,
            used: Cell::new([0; crate::MAX_WORDS]),
            lit_index: base,
            track: true,
            kinds: &[],
            notes: Cell::new(Notes(0)),
        }
    }

    /// A context for printing only: reads are not recorded, operand kinds come from `kinds`
    /// (one per data format, see [`Kind::table`]).
    pub fn for_print(t: &'static Tables<Op>, d: &'a Decoded, names: &'static ScalarNames, addr: u64, kinds: &'static [Kind]) -> Self {
        Ctx { track: false, kinds, ..Ctx::new(t, d, names, addr) }
    }

    /// LLVM's warnings about the operands printed so far.
    pub fn notes(&self) -> Notes {
        self.notes.get()
    }

    /// Notes a scalar tuple printed from value `v` (a 9-bit source value or scalar register
    /// number) of `size_bits` when LLVM warns about it (see [`Notes`]).
    #[inline(always)]
    pub fn note_tuple(&self, v: u32, size_bits: u16) {
        if size_bits > 32 && v < 128 {
            self.note_tuple_slow(v, size_bits)
        }
    }

    /// [`Ctx::note_tuple`] of a tuple.
    #[inline(never)]
    fn note_tuple_slow(&self, v: u32, size_bits: u16) {
        let base = self.names.ttmp_base;
        let (index, ttmp) = match v {
            0..=105 => (v, false),
            _ if v >= base && v < base + 16 => (v - base, true),
            _ => return,
        };
        let align = if size_bits <= 64 { 2 } else { 4 };
        if index % align != 0 {
            let mut n = self.notes.get();
            n.push(index, ttmp, size_bits);
            self.notes.set(n);
        }
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
        self.note_tuple(v, size);
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

    /// Appends a scalar register operand (noting a misaligned tuple, see [`Notes`]).
    pub fn sreg(&self, out: &mut String, v: u32, size: u16) {
        self.note_tuple(v, size);
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
        self.note_tuple(v, size);
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
