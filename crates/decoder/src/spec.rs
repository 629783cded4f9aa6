//! Runtime types of the tables generated from isa-specs/ (see `codegen.rs`).

/// A bit field of an encoding; `ranges` are (offset, width) pairs, least significant first.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// Field name from the spec (upper case).
    pub name: &'static str,
    /// (bit offset, bit count) per part, least significant part first.
    pub ranges: &'static [(u8, u8)],
}

impl Field {
    /// Extracts the field from little-endian 32-bit words.
    #[inline(always)]
    pub fn get(&self, w: &[u32]) -> u64 {
        if let [(off, cnt)] = self.ranges {
            return extract(w, *off as u32, *cnt as u32);
        }
        let mut v = 0u64;
        let mut shift = 0u32;
        for &(off, cnt) in self.ranges {
            v |= extract(w, off as u32, cnt as u32) << shift;
            shift += cnt as u32;
        }
        v
    }

    /// Stores `v` into the field (bits above the field width are dropped).
    #[inline]
    pub fn set(&self, w: &mut [u32], mut v: u64) {
        for &(off, cnt) in self.ranges {
            deposit(w, off as u32, cnt as u32, v);
            v >>= cnt;
        }
    }

    /// Total width in bits.
    pub fn width(&self) -> u32 {
        self.ranges.iter().map(|r| r.1 as u32).sum()
    }
}

/// Bits [off, off+cnt) of the little-endian word array (cnt <= 64).
#[inline(always)]
pub fn extract(w: &[u32], off: u32, cnt: u32) -> u64 {
    // Fast path: the field lies within one aligned 64-bit window of two words.
    let i = (off / 32) as usize;
    let b = off % 32;
    if b + cnt <= 64 && cnt < 64 {
        let lo = w.get(i).copied().unwrap_or(0) as u64;
        let hi = w.get(i + 1).copied().unwrap_or(0) as u64;
        return ((lo | hi << 32) >> b) & ((1u64 << cnt) - 1);
    }
    let mut v = 0u64;
    let mut got = 0u32;
    while got < cnt {
        let bit = off + got;
        let word = (bit / 32) as usize;
        let b = bit % 32;
        let take = (32 - b).min(cnt - got);
        let x = (w.get(word).copied().unwrap_or(0) as u64 >> b) & ((1u64 << take) - 1);
        v |= x << got;
        got += take;
    }
    v
}

/// Writes bits [off, off+cnt) of the little-endian word array.
#[inline]
pub fn deposit(w: &mut [u32], off: u32, cnt: u32, v: u64) {
    let mut done = 0u32;
    while done < cnt {
        let bit = off + done;
        let word = (bit / 32) as usize;
        let b = bit % 32;
        let take = (32 - b).min(cnt - done);
        let m = (((1u64 << take) - 1) as u32) << b;
        if let Some(x) = w.get_mut(word) {
            *x = (*x & !m) | ((((v >> done) as u32) << b) & m);
        }
        done += take;
    }
}

/// An instruction encoding (format).
#[derive(Debug)]
pub struct Encoding {
    /// Encoding name from the spec.
    pub name: &'static str,
    /// Encoding width in bits, literals and NSA dwords excluded.
    pub bits: u16,
    /// Identifier mask over the encoding's bits.
    pub mask: u128,
    /// Identifier values; a word belongs here when `w & mask` equals one of them.
    pub idents: &'static [u128],
    /// The opcode field.
    pub op: Option<Field>,
    /// Every field of the encoding.
    pub fields: &'static [Field],
    /// Bit j: some instruction of the encoding has an operand in `fields[j]`.
    pub operand_fields: u64,
    /// Opcode value -> index into `Tables::inst_encodings` (u16::MAX when none).
    pub opmap: &'static [u16],
}

/// One operand of an instruction encoding, in the reference disassembler's order.
#[derive(Debug)]
pub struct Operand {
    /// The field that holds it (one of its encoding's); None for implicit operands.
    pub field: Option<&'static Field>,
    /// Index into `Tables::operand_types`.
    pub ty: u16,
    /// Index into `Tables::data_formats`.
    pub fmt: u16,
    /// Size in bits.
    pub size: u16,
    /// Bit 0 input, bit 1 output, bit 2 implicit.
    pub flags: u8,
}

impl Operand {
    /// True when the instruction reads it.
    pub fn is_input(&self) -> bool {
        self.flags & 1 != 0
    }
    /// True when the instruction writes it.
    pub fn is_output(&self) -> bool {
        self.flags & 2 != 0
    }
    /// True when no field encodes it.
    pub fn is_implicit(&self) -> bool {
        self.flags & 4 != 0
    }
}

/// An instruction in one encoding.
#[derive(Debug)]
pub struct InstEncoding<Op: 'static> {
    /// The instruction.
    pub op: Op,
    /// Index into `Tables::instructions`.
    pub inst: u16,
    /// Index into `Tables::encodings`.
    pub enc: u16,
    /// Opcode value in that encoding.
    pub opcode: u32,
    /// Operands in print order.
    pub operands: &'static [Operand],
    /// Bit j: an operand of this pair is in field j of its encoding (`Encoding::fields`).
    pub fields: u64,
}

/// Instruction flag: a branch.
pub const FLAG_BRANCH: u8 = 1;
/// Instruction flag: a conditional branch.
pub const FLAG_COND_BRANCH: u8 = 2;
/// Instruction flag: an indirect branch or call.
pub const FLAG_INDIRECT_BRANCH: u8 = 4;
/// Instruction flag: ends the program.
pub const FLAG_TERMINATOR: u8 = 8;
/// Instruction flag: a call (NVIDIA `CAL`, `JCAL`, `CALL`).
pub const FLAG_CALL: u8 = 16;
/// Instruction flag: a return (NVIDIA `RET`).
pub const FLAG_RETURN: u8 = 32;
/// Instruction flag: listed as a branch, but never jumps (names a target or touches the
/// reconvergence state: NVIDIA `SSY`, `PBK`, `BSSY`, `BSYNC` ...).
pub const FLAG_NO_JUMP: u8 = 64;
/// Instruction flag: jumps to the target on the reconvergence stack (NVIDIA `SYNC`, `BRK`,
/// `CONT`).
pub const FLAG_STACK_JUMP: u8 = 128;

/// One instruction of the spec.
#[derive(Debug)]
pub struct Instruction {
    /// Upper-case name from the spec.
    pub name: &'static str,
    /// Lower-case mnemonic.
    pub mnemonic: &'static str,
    /// FLAG_* bits.
    pub flags: u8,
    /// Indices into `Tables::inst_encodings`.
    pub encodings: &'static [u16],
    /// Bit k set when the instruction has an encoding of index k (k < 64).
    pub enc_set: u64,
}

/// An operand type and its predefined values.
#[derive(Debug)]
pub struct OperandType {
    /// OPR_* name.
    pub name: &'static str,
    /// (value, name) sorted by value.
    pub values: &'static [(i64, &'static str)],
}

impl OperandType {
    /// The predefined name of `v`, if any.
    pub fn lookup(&self, v: i64) -> Option<&'static str> {
        self.values.binary_search_by_key(&v, |x| x.0).ok().map(|i| self.values[i].1)
    }
}

/// All generated tables of one ISA.
#[derive(Debug)]
pub struct Tables<Op: 'static> {
    /// Architecture name.
    pub arch: &'static str,
    /// Encodings.
    pub encodings: &'static [Encoding],
    /// Instructions, in `Op` order.
    pub instructions: &'static [Instruction],
    /// (instruction, encoding) pairs, by encoding then opcode.
    pub inst_encodings: &'static [InstEncoding<Op>],
    /// Bit i: `inst_encodings[i]` has an `OPR_LABEL` operand (a branch target).
    pub label_iencs: &'static [u64],
    /// Operand types.
    pub operand_types: &'static [OperandType],
    /// Data format names.
    pub data_formats: &'static [&'static str],
    /// Candidate encodings per dispatch key.
    pub dispatch: &'static [&'static [u8]],
    /// Lowest bit of the dispatch key in the first word.
    pub key_lo: u32,
    /// Width of the dispatch key.
    pub key_bits: u32,
}

impl<Op> Tables<Op> {
    /// Finds the encoding and instruction of the words `w` (zero-padded to the widest encoding).
    /// Returns (encoding index, inst_encoding index or None when the opcode is unknown).
    #[inline]
    pub fn classify(&self, w: &[u32]) -> Option<(u16, Option<u16>)> {
        let key = ((w[0] >> self.key_lo) & ((1u32 << self.key_bits) - 1)) as usize;
        let cands = self.dispatch.get(key)?;
        let lo: u128 = w[0] as u128
            | (w.get(1).copied().unwrap_or(0) as u128) << 32
            | (w.get(2).copied().unwrap_or(0) as u128) << 64
            | (w.get(3).copied().unwrap_or(0) as u128) << 96;
        let mut known_encoding = None;
        for &c in cands.iter() {
            let e = &self.encodings[c as usize];
            let x = lo & e.mask;
            let hit = match e.idents {
                [id] => *id == x,
                ids => ids.contains(&x),
            };
            if hit {
                let ie = match &e.op {
                    Some(f) => e.opmap.get(f.get(w) as usize).copied().filter(|&v| v != u16::MAX),
                    None => e.opmap.first().copied().filter(|&v| v != u16::MAX),
                };
                if ie.is_some() {
                    return Some((c as u16, ie));
                }
                known_encoding.get_or_insert((c as u16, None));
            }
        }
        if known_encoding.is_some() {
            return known_encoding;
        }
        None
    }
}

/// How an NVIDIA form field is printed (from its operand type in the spec).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NvKind {
    /// General register `R%d`, 255 = `RZ`.
    Reg,
    /// Predicate `P%d`, 7 = `PT`.
    Pred,
    /// Uniform register `UR%d`, 63 = `URZ`.
    UReg,
    /// Uniform predicate `UP%d`, 7 = `UPT`.
    UPred,
    /// Convergence barrier register `B%d`.
    BReg,
    /// A name from the operand type's predefined values (modifiers, prefixes, special registers).
    Lookup,
    /// Unsigned hex immediate.
    UImm,
    /// Signed hex immediate (two's complement of the field width).
    SImm,
    /// Float immediate.
    FImm,
    /// Not an operand (opcode, guard, scheduling bits).
    Other,
}

/// Most parts (bit ranges) an NVIDIA field has (sm86 has eight fields of five).
pub const NV_MAX_RANGES: usize = 5;

/// One bit field of an NVIDIA instruction form, in 16 bytes: the forms' 46,650 fields are the
/// bulk of the NVIDIA tables, and a short listing's first touch of each 64 KiB of them costs a
/// page fault (its name and literal texts are indices into the shared tables of
/// `nv_shared.rs`).
#[derive(Debug, Clone, Copy)]
pub struct NvField {
    /// (bit offset, bit count) per part, least significant part first; the first `bits & 7`
    /// of them are used.
    pub(crate) r: [(u8, u8); NV_MAX_RANGES],
    /// Index of its name in [`NV_NAMES`].
    pub(crate) name_ix: u16,
    /// Index into `NvTables::operand_types` (for `NvKind::Lookup`).
    pub ty: u16,
    /// How it prints.
    pub kind: NvKind,
    /// Bits 0-2: the number of parts; bits 3-4: log2 of the scale; bit 5: `omit_zero`; bit 6:
    /// `output`; bit 7: `output` and `input` both.
    pub(crate) bits: u8,
}

impl NvField {
    /// Field name from the spec.
    #[inline]
    pub fn name(&self) -> &'static str {
        NV_NAMES.get(self.name_ix as usize).copied().unwrap_or("")
    }

    /// (bit offset, bit count) per part, least significant part first.
    #[inline]
    pub fn ranges(&self) -> &[(u8, u8)] {
        &self.r[..(self.bits & 7).min(NV_MAX_RANGES as u8) as usize]
    }

    /// The printed number is the value times this.
    #[inline]
    pub fn scale(&self) -> u16 {
        1 << (self.bits >> 3 & 3)
    }

    /// A trailing number that nvdisasm leaves out (with its comma) when it is zero.
    #[inline]
    pub fn omit_zero(&self) -> bool {
        self.bits & 32 != 0
    }

    /// The instruction writes this operand (the spec's `Output` attribute).
    #[inline]
    pub fn output(&self) -> bool {
        self.bits & 64 != 0
    }

    /// The instruction reads and writes this operand (`Input` and `Output` both).
    #[inline]
    pub fn read_write(&self) -> bool {
        self.bits & 128 != 0
    }

    /// Extracts the field from a 128-bit instruction.
    #[inline]
    pub fn get(&self, w: u128) -> u64 {
        let mut v = 0u64;
        let mut shift = 0u32;
        for &(off, cnt) in self.ranges() {
            v |= (((w >> off) as u64) & ((1u64 << cnt) - 1)) << shift;
            shift += cnt as u32;
        }
        v
    }

    /// Stores `v` into the field of a 128-bit instruction (bits above its width are dropped).
    #[inline]
    pub fn set(&self, w: &mut u128, mut v: u64) {
        for &(off, cnt) in self.ranges() {
            let m = ((1u128 << cnt) - 1) << off;
            *w = (*w & !m) | (((v as u128) << off) & m);
            v >>= cnt;
        }
    }

    /// Total width in bits.
    pub fn width(&self) -> u32 {
        self.ranges().iter().map(|r| r.1 as u32).sum()
    }

    /// The bits of the field as a mask.
    pub fn mask(&self) -> u128 {
        self.ranges().iter().fold(0u128, |m, &(o, c)| m | (((1u128 << c) - 1) << o))
    }
}

/// A piece of a form's print template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NvPiece {
    /// Literal text.
    Lit(&'static str),
    /// The text of the field with this index in `NvForm::fields`.
    Field(u8),
}

/// A piece of a form's print template as stored, in two bytes: [`NV_LIT`] plus the offset
/// (above [`NV_LIT_LEN_BITS`]) and length (below) of its text in `NvForm::text`, or a field
/// index (see [`NvSyntax::get`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NvSyntax(pub(crate) u16);

/// Flag of an [`NvSyntax`] that is literal text.
pub const NV_LIT: u16 = 1 << 15;
/// Bits of a literal [`NvSyntax`]'s length; its offset in `NvForm::text` lies above them.
pub const NV_LIT_LEN_BITS: u16 = 6;

impl NvSyntax {
    /// The piece, its literal text taken from `text` (its form's `NvForm::text`).
    #[inline]
    pub fn get(self, text: &'static str) -> NvPiece {
        if self.0 & NV_LIT != 0 {
            let at = ((self.0 & !NV_LIT) >> NV_LIT_LEN_BITS) as usize;
            let len = (self.0 & ((1 << NV_LIT_LEN_BITS) - 1)) as usize;
            NvPiece::Lit(text.get(at..at + len).unwrap_or(""))
        } else {
            NvPiece::Field(self.0 as u8)
        }
    }
}

/// An NVIDIA operand type with its predefined values (value, spelling), in 8 bytes a value:
/// the spellings are ranges of the type's `text`.
#[derive(Debug)]
pub struct NvOperandType {
    /// OPR_* name.
    pub name: &'static str,
    /// The spellings of the values, back to back.
    pub text: &'static str,
    /// Sorted by value.
    pub values: &'static [NvValue],
}

/// One predefined value of an [`NvOperandType`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NvValue {
    /// The field value.
    pub(crate) v: i32,
    /// Offset of its spelling in `NvOperandType::text`.
    pub(crate) at: u16,
    /// Length of its spelling.
    pub(crate) len: u16,
}

impl NvValue {
    /// The field value.
    #[inline]
    pub fn value(self) -> i64 {
        self.v as i64
    }
}

impl NvOperandType {
    /// The spelling of `x`, one of this type's values.
    #[inline]
    pub fn spelling(&self, x: NvValue) -> &'static str {
        self.text.get(x.at as usize..x.at as usize + x.len as usize).unwrap_or("")
    }

    /// The predefined spelling of `v`, if any.
    #[inline]
    pub fn lookup(&self, v: i64) -> Option<&'static str> {
        // Most value lists are dense from 0: the value as an index first.
        if let Some(x) = usize::try_from(v).ok().and_then(|i| self.values.get(i)).filter(|x| x.value() == v) {
            return Some(self.spelling(*x));
        }
        let v = i32::try_from(v).ok()?;
        self.values.binary_search_by_key(&v, |x| x.v).ok().map(|i| self.spelling(self.values[i]))
    }
}

mod nv_shared {
    include!(concat!(env!("OUT_DIR"), "/nv_shared.rs"));
}
pub use nv_shared::NV_NAMES;

/// One NVIDIA instruction name.
#[derive(Debug)]
pub struct NvInst {
    /// Base mnemonic.
    pub name: &'static str,
    /// FLAG_* bits.
    pub flags: u8,
    /// nvdisasm's suffix order (the spec's `SuffixOrder`): (suffix, rank), sorted by suffix.
    /// Suffixes of equal rank keep the template's order.
    pub order: &'static [(&'static str, u16)],
}

impl NvInst {
    /// The rank of suffix `s` (without the dot), if the spec orders it.
    pub fn rank(&self, s: &str) -> Option<u16> {
        self.order.binary_search_by(|x| x.0.cmp(s)).ok().map(|i| self.order[i].1)
    }
}

/// One NVIDIA instruction form (an Encoding of the spec).
#[derive(Debug)]
pub struct NvForm {
    /// Encoding name.
    pub name: &'static str,
    /// Index into `NvTables::insts`.
    pub inst: u16,
    /// Value of the opcode bits (the spec's Opcode).
    pub opcode: u32,
    /// Structural bits.
    pub mask: u128,
    /// Their value.
    pub ident: u128,
    /// Index of the `PRED` field, -1 when none.
    pub pred: i32,
    /// Index of the `PRED_NEG` field, -1 when none.
    pub pred_neg: i32,
    /// Every field.
    pub fields: &'static [NvField],
    /// The texts of the template's literal pieces (see [`NvSyntax`]).
    pub text: &'static str,
    /// The print template (see [`NvForm::pieces`]).
    pub syntax: &'static [NvSyntax],
}

impl NvForm {
    /// The field named `name`.
    pub fn field(&self, name: &str) -> Option<&'static NvField> {
        self.fields.iter().find(|f| f.name() == name)
    }

    /// The pieces of the print template, in order.
    #[inline]
    pub fn pieces(&self) -> impl ExactSizeIterator<Item = NvPiece> + Clone + 'static {
        let text = self.text;
        self.syntax.iter().map(move |p| p.get(text))
    }

    /// Piece `k` of the print template.
    #[inline]
    pub fn piece(&self, k: usize) -> Option<NvPiece> {
        self.syntax.get(k).map(|p| p.get(self.text))
    }
}

/// All generated tables of one NVIDIA ISA.
#[derive(Debug)]
pub struct NvTables {
    /// Architecture name.
    pub arch: &'static str,
    /// Forms (each a constant of its own: see `FORMS` in the generated tables).
    pub forms: &'static [&'static NvForm],
    /// Instruction names.
    pub insts: &'static [NvInst],
    /// Operand types with predefined values.
    pub operand_types: &'static [NvOperandType],
    /// Distinct candidate lists.
    pub dispatch_lists: &'static [&'static [u16]],
    /// Key value -> index into `dispatch_lists`.
    pub dispatch: &'static [u16],
    /// Lowest bit of the key.
    pub key_lo: u32,
    /// Width of the key.
    pub key_bits: u32,
    /// Per form: the scheduling bits nvdisasm 12.8 accepts (`<Scheduling>` in the spec; 0xf6
    /// when it has none: everything): bit 0 given in the spec, 1 a write barrier allowed, 2 a
    /// read barrier allowed, 4-7 the reuse flags allowed, 8-11 the opex table, 12 an opex
    /// table is given.
    pub sched: &'static [u16],
    /// sm86 opex tables: bit v set when reuse << 5 | yield << 4 | stall = v is allowed.
    pub opex: &'static [[u64; 8]],
}

impl NvTables {
    /// The form of instruction `w`: the first candidate (most mask bits) whose identifier matches.
    #[inline]
    pub fn classify(&self, w: u128) -> Option<u16> {
        let key = ((w >> self.key_lo) as u64 & ((1u64 << self.key_bits) - 1)) as usize;
        let list = self.dispatch_lists.get(*self.dispatch.get(key)? as usize)?;
        for &c in list.iter() {
            let f = &self.forms[c as usize];
            if w & f.mask == f.ident {
                return Some(c);
            }
        }
        None
    }
}
