//! Whole-section disassembly: the loop behind `isabridge disasm`.

use crate::elf::Label;
use crate::nvidia::control::Control;
use crate::{Decoded, DecodeError, Isa, IsaPlugin};
use std::fmt::Write as _;

/// One disassembled instruction (or undecodable word) of a listing.
#[derive(Debug)]
pub struct Line<'a> {
    /// The symbol the instruction belongs to, or the section name before the first symbol.
    pub function: &'a str,
    /// Byte offset within the section.
    pub offset: u64,
    /// The bytes in memory order.
    pub bytes: &'a [u8],
    /// Text in the reference disassembler's syntax (`.long 0x...` for an undecodable word).
    pub text: &'a str,
    /// False for an undecodable word.
    pub decoded: bool,
    /// NVIDIA scheduling fields (sm50: from the bundle's control word; sm86: bits 105-125).
    pub control: Option<Control>,
}

/// Disassembles `code` (a section at address `base`), calling `f` for every instruction in order.
/// An undecodable word becomes a `.long` line and decoding goes on after it; an instruction cut
/// off by the end of the section is an error.
pub fn disassemble(
    plugin: &dyn IsaPlugin,
    code: &[u8],
    base: u64,
    section: &str,
    labels: &[Label],
    mut f: impl FnMut(&Line<'_>),
) -> Result<(), DecodeError> {
    disassemble_with(plugin, code, base, section, labels, true, |l, _, _| f(l))
}

/// [`disassemble`], also handing `f` each decoded instruction (None for an undecodable word) and
/// the number of labels passed (it changes exactly where `Line::function` may change). Without
/// `control`, sm86 lines have no scheduling fields.
fn disassemble_with(
    plugin: &dyn IsaPlugin,
    code: &[u8],
    base: u64,
    section: &str,
    labels: &[Label],
    control: bool,
    mut f: impl FnMut(&Line<'_>, Option<&Decoded>, usize),
) -> Result<(), DecodeError> {
    if plugin.isa() == Isa::Sm50 {
        return disassemble_sm50(code, base, section, labels, f);
    }
    let control_sm86 = control && plugin.isa() == Isa::Sm86;
    let unit = plugin.unit();
    if !code.len().is_multiple_of(unit) && plugin.isa() == Isa::Sm86 {
        let off = code.len() - code.len() % unit;
        return Err(DecodeError::Truncated { isa: Isa::Sm86, addr: base + off as u64, need: unit, have: code.len() % unit });
    }
    // Decoded a block at a time (`decode_block`, the same instructions as `decode`); where a
    // block comes back empty, the word at `off` goes through `decode` (a `.long` line or an error).
    /// Bytes handed to `decode_block` at a time.
    const BLOCK_BYTES: usize = 4096;
    let mut batch: Vec<Decoded> = Vec::with_capacity(BLOCK_BYTES / 4);
    let mut next = 0usize;
    let mut off = 0usize;
    let mut text = String::with_capacity(128);
    let mut next_label = 0usize;
    let mut function = section;
    while off < code.len() {
        if next == batch.len() {
            batch.clear();
            next = 0;
            plugin.decode_block(&code[off..code.len().min(off + BLOCK_BYTES)], base + off as u64, &mut batch);
        }
        while next_label < labels.len() && labels[next_label].offset <= off as u64 {
            function = &labels[next_label].name;
            next_label += 1;
        }
        let addr = base + off as u64;
        text.clear();
        let r = match batch.get(next) {
            Some(d) => {
                next += 1;
                Ok(*d)
            }
            None => plugin.decode(&code[off..], addr),
        };
        match r {
            Ok(d) => {
                let n = d.len as usize;
                plugin.print(&d, addr, &mut text);
                let control = control_sm86.then(|| Control::sm86(crate::sm86::SM86.word(&d)));
                f(&Line { function, offset: off as u64, bytes: &code[off..off + n], text: &text, decoded: true, control }, Some(&d), next_label);
                off += n;
            }
            Err(DecodeError::Unknown { word, .. }) => {
                let _ = write!(text, ".long 0x{word:08x}");
                f(&Line { function, offset: off as u64, bytes: &code[off..off + unit], text: &text, decoded: false, control: None }, None, next_label);
                off += unit;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Maxwell: 32-byte bundles, each a control word and three instructions. Offsets are the
/// instructions' own (0x8, 0x10, 0x18, 0x28, ...), as nvdisasm prints them; the control word is
/// not a line. A section that is not whole bundles is an error at the first incomplete bundle.
fn disassemble_sm50(
    code: &[u8],
    base: u64,
    section: &str,
    labels: &[Label],
    mut f: impl FnMut(&Line<'_>, Option<&Decoded>, usize),
) -> Result<(), DecodeError> {
    use crate::sm50::{BUNDLE, SM50};
    if !code.len().is_multiple_of(BUNDLE) {
        let off = code.len() - code.len() % BUNDLE;
        return Err(DecodeError::Truncated { isa: Isa::Sm50, addr: base + off as u64, need: BUNDLE, have: code.len() % BUNDLE });
    }
    let mut text = String::with_capacity(128);
    let mut next_label = 0usize;
    let mut function = section;
    let le = |b: &[u8]| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
    for (bi, bundle) in code.chunks_exact(BUNDLE).enumerate() {
        let ctrl = le(bundle);
        for slot in 0..3 {
            let off = bi * BUNDLE + 8 + 8 * slot;
            while next_label < labels.len() && labels[next_label].offset <= off as u64 {
                function = &labels[next_label].name;
                next_label += 1;
            }
            let addr = base + off as u64;
            let bytes = &bundle[8 + 8 * slot..16 + 8 * slot];
            let control = Some(Control::sm50_slot(ctrl, slot));
            text.clear();
            match SM50.decode_slot(le(bytes), ctrl, slot, addr) {
                Ok(d) => {
                    SM50.print(&d, addr, &mut text);
                    f(&Line { function, offset: off as u64, bytes, text: &text, decoded: true, control }, Some(&d), next_label);
                }
                Err(DecodeError::Unknown { .. }) => {
                    let _ = write!(text, ".quad 0x{:016x}", le(bytes));
                    f(&Line { function, offset: off as u64, bytes, text: &text, decoded: false, control }, None, next_label);
                }
                Err(e) => return Err(e),
            }
        }
    }
    Ok(())
}

/// Column llvm-objdump pads the instruction text to before its `// ` comment.
const TEXT_COLUMN: usize = 59;

/// Upper-case hex digit pairs of every byte value.
const HEX_PAIRS: [[u8; 2]; 256] = {
    const D: &[u8; 16] = b"0123456789ABCDEF";
    let mut t = [[0u8; 2]; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = [D[i >> 4], D[i & 15]];
        i += 1;
    }
    t
};

/// The low 48 bits of `addr` as 12 upper-case hex digits (llvm-objdump's offset column).
#[inline]
fn addr_digits(addr: u64) -> [u8; 12] {
    let mut d = [0u8; 12];
    for (k, pair) in d.chunks_exact_mut(2).enumerate() {
        pair.copy_from_slice(&HEX_PAIRS[(addr >> (40 - 8 * k) & 0xff) as usize]);
    }
    d
}

/// ` DWORD`: a space and up to four bytes as one little-endian 32-bit word in upper-case hex
/// (a short word is zero-extended).
#[inline]
fn dword_text(c: &[u8]) -> [u8; 9] {
    let mut x = [0u8; 4];
    let n = c.len().min(4);
    x[..n].copy_from_slice(&c[..n]);
    let mut w = [b' '; 9];
    w[1..].copy_from_slice(&hex8(u32::from_le_bytes(x)));
    w
}

/// Appends `: DWORD DWORD ...`: the bytes as little-endian 32-bit words (see [`dword_text`]).
fn push_words(out: &mut Vec<u8>, bytes: &[u8]) {
    out.push(b':');
    for c in bytes.chunks(4) {
        out.extend_from_slice(&dword_text(c));
    }
}

/// Appends `\t`, the text padded to llvm-objdump's column, and `// `.
fn push_text(out: &mut Vec<u8>, text: &str) {
    const SPACES: &[u8; TEXT_COLUMN] = &[b' '; TEXT_COLUMN];
    out.push(b'\t');
    out.extend_from_slice(text.as_bytes());
    out.extend_from_slice(&SPACES[..TEXT_COLUMN.saturating_sub(text.len())]);
    out.extend_from_slice(b"// ");
}

/// Appends one instruction line in llvm-objdump-22's layout: tab, text padded to 59 columns,
/// `// ` and the 12-digit address, `: ` and the bytes as dwords, then `note` and a newline.
pub fn write_line(out: &mut Vec<u8>, text: &str, addr: u64, bytes: &[u8], note: &str) {
    push_text(out, text);
    out.extend_from_slice(&addr_digits(addr));
    push_words(out, bytes);
    out.extend_from_slice(note.as_bytes());
    out.push(b'\n');
}

/// Appends llvm-objdump's ` <symbol>` / ` <symbol+0xoff>` note for a branch to `target` (an
/// offset in the section): the last label at or before it, else the section start. `labels`
/// are sorted by offset.
fn push_branch_note(out: &mut Vec<u8>, target: u64, section: &str, labels: &[Label]) {
    let i = labels.partition_point(|l| l.offset <= target);
    let (name, start) = match i.checked_sub(1).and_then(|i| labels.get(i)) {
        Some(l) => (&*l.name, l.offset),
        None => (section, 0),
    };
    out.extend_from_slice(b" <");
    out.extend_from_slice(name.as_bytes());
    if target != start {
        let _ = std::io::Write::write_fmt(out, format_args!("+0x{:x}", target - start));
    }
    out.push(b'>');
}

/// Appends the `\n<address> <function>:` header that opens a function's lines (16 lower-case
/// hex digits).
fn push_header(out: &mut Vec<u8>, addr: u64, function: &str) {
    const D: &[u8; 16] = b"0123456789abcdef";
    out.push(b'\n');
    out.extend((0..16).rev().map(|k| D[(addr >> (4 * k) & 15) as usize]));
    out.extend_from_slice(b" <");
    out.extend_from_slice(function.as_bytes());
    out.extend_from_slice(b">:\n");
}

/// Printed lines of the distinct instructions of a listing, keyed by the instruction's bytes
/// (AMD text depends on nothing else, so equal instructions print equal lines). Kept small:
/// every byte of it is fresh memory, and on the development VM a fresh page costs about as
/// much as printing three instructions.
struct Memo {
    /// Open-addressed slots: entry index + 1, 0 when empty; the length is a power of two.
    slots: Vec<u32>,
    /// The distinct instructions met so far.
    entries: Vec<MemoEntry>,
    /// Compact line templates of the entries, back to back, then [`ARENA_SLACK`] bytes of
    /// slack (a template is read as one fixed-size window): each the tab and the text, then the
    /// tail after the address digits (`:`, the dwords, the newline when the line has no note).
    /// The padding, `// ` and the digits are not stored: a line is put together from these
    /// two parts, a block of spaces and the address.
    arena: Vec<u8>,
    /// Per (instruction, encoding) index, a bit: set when known to have no branch target (bits,
    /// not bools: grown to gfx12's 2,400-odd indices by doubling, a `Vec<bool>` wrote two fresh
    /// pages per thread).
    no_target: Vec<u64>,
    /// Printed text of the instruction being inserted (reused).
    text: String,
}

/// Longest line template the memo holds (a longer one is printed at every occurrence).
const TEMPLATE_MAX: usize = 128;

/// Bytes of the arena read for one template: its text (at most 128 bytes), then a block of 64
/// from the tail's start.
const ARENA_SLACK: usize = 192;

/// Spaces that pad a memoised line's text, then `// ` at a variable place over them.
const SPACES: [u8; 64] = [b' '; 64];

/// The layout of the line template of an instruction printed as `text` with `n` bytes: `\t`,
/// the text padded to [`TEXT_COLUMN`], `// `, 12 digits, `:` and the dwords, then a newline when
/// `newline`. Returns the line's length and where the digits go; None when it is longer than
/// [`TEMPLATE_MAX`] (or there are no bytes).
#[inline]
fn template_shape(text: &str, n: usize, newline: bool) -> Option<(usize, usize)> {
    let head = 1 + text.len().max(TEXT_COLUMN);
    let len = head + 3 + 12 + 1 + 9 * n.div_ceil(4) + newline as usize;
    (n != 0 && len <= TEMPLATE_MAX).then_some((len, head + 3))
}

/// Writes the part of a line template after the address digits into `out` (as long as that
/// part): `:`, each dword as [`push_words`] writes it, then a newline when `newline`.
#[inline]
fn template_tail(out: &mut [u8], bytes: &[u8], newline: bool) {
    if let Some(c) = out.first_mut() {
        *c = b':';
    }
    for (k, c) in bytes.chunks(4).enumerate() {
        if let Some(d) = out.get_mut(1 + 9 * k..10 + 9 * k) {
            d.copy_from_slice(&dword_text(c));
        }
    }
    if newline {
        if let Some(c) = out.last_mut() {
            *c = b'\n';
        }
    }
}

/// One distinct instruction and its line template.
#[derive(Clone, Copy)]
struct MemoEntry {
    /// Its first three words (zero past its length): the key, with `ilen` and, for longer
    /// instructions, the bytes after them at `at`.
    key: [u32; 3],
    /// Section offset of its first occurrence.
    at: u32,
    /// Start of its compact template in the arena (see [`Memo::arena`]).
    start: u32,
    /// Line length (at most [`TEMPLATE_MAX`]).
    len: u8,
    /// Where the address digits go in the line (below [`TEMPLATE_MAX`] - 12).
    addr_at: u8,
    /// Length of the tab and text (below [`TEMPLATE_MAX`]); the tail follows them.
    tl: u8,
    /// Instruction length in bytes.
    ilen: u8,
    /// [`BRANCH_REL`] when the line gets the note of a branch target at the instruction's
    /// address plus `rel`; [`BRANCH_ASK`] when the plugin must be asked for each occurrence.
    branch: u8,
    /// Branch target minus the instruction's address (wrapping).
    rel: i32,
}

/// [`MemoEntry::branch`]: no branch target.
const BRANCH_NONE: u8 = 0;
/// [`MemoEntry::branch`]: the target is the address plus `rel`.
const BRANCH_REL: u8 = 1;
/// [`MemoEntry::branch`]: ask the plugin.
const BRANCH_ASK: u8 = 2;

impl Memo {
    /// An empty memo for a section of `code_len` bytes. The arena starts at 256 KiB (or room
    /// for every instruction being distinct, if less): above the allocator's mapping threshold,
    /// so that growing it remaps its pages instead of copying them; the table starts small.
    fn new(code_len: usize) -> Memo {
        let n = (code_len / 4).min(1 << 20);
        let mut arena = Vec::with_capacity((n * 64 + ARENA_SLACK).min(256 << 10));
        arena.resize(ARENA_SLACK, 0);
        Memo {
            // Large sections start where a few thousand distinct instructions fit, without the
            // chain of smaller tables growth would leave behind.
            slots: crate::written_table(if code_len >= PARALLEL_MIN { 1 << 12 } else { 1 << 10 }, 0),
            entries: Vec::with_capacity(n.min(8 << 10)),
            arena,
            no_target: Vec::new(),
            text: String::with_capacity(128),
        }
    }

    #[inline(always)]
    fn hash(w: &[u32; 3], len: u8) -> u64 {
        let a = (w[0] as u64 | (w[1] as u64) << 32).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let b = (w[2] as u64 | (len as u64) << 32).wrapping_mul(0xc2b2_ae3d_27d4_eb4f);
        // Fibonacci hashing: the slot is taken from the well-mixed high bits.
        (a ^ b.rotate_left(29)).wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }

    /// The first three words of `d`.
    #[inline(always)]
    fn key(d: &Decoded) -> [u32; 3] {
        [d.words[0], d.words[1], d.words[2]]
    }

    /// The first slot of hash `h` in a table of `n` (a power of two) slots.
    #[inline(always)]
    fn slot(h: u64, n: usize) -> usize {
        (h >> (64 - n.trailing_zeros())) as usize
    }

    /// True when the instruction at `at` in `code` is `d`, past its first 12 bytes.
    #[inline(never)]
    fn same_tail(code: &[u8], at: usize, d: &Decoded) -> bool {
        let n = d.len as usize;
        match code.get(at + 12..at + n) {
            Some(b) => b.chunks(4).zip(&d.words[3..]).all(|(c, &w)| {
                let mut x = [0u8; 4];
                x[..c.len()].copy_from_slice(c);
                u32::from_le_bytes(x) == w
            }),
            None => false,
        }
    }

    /// The index of `d`'s entry (`d` is the instruction at `off` of `code`), printing it on
    /// first sight; None when its line is too long to memoise.
    #[inline(always)]
    fn get(&mut self, plugin: &dyn IsaPlugin, code: &[u8], off: usize, d: &Decoded) -> Option<usize> {
        let mask = self.slots.len() - 1;
        let key = Self::key(d);
        let mut i = Self::slot(Self::hash(&key, d.len), self.slots.len());
        loop {
            match self.slots.get(i & mask).copied().unwrap_or(0) {
                0 => break,
                s => {
                    if let Some(e) = self.entries.get(s as usize - 1) {
                        if e.key == key && e.ilen == d.len && (d.len <= 12 || Self::same_tail(code, e.at as usize, d)) {
                            return Some(s as usize - 1);
                        }
                    }
                    i = (i + 1) & mask;
                }
            }
        }
        self.insert(plugin, code, off, d, i & mask)
    }

    /// Prints `d` (met for the first time) into a new entry at the empty slot `i`.
    #[inline(never)]
    fn insert(&mut self, plugin: &dyn IsaPlugin, code: &[u8], off: usize, d: &Decoded, i: usize) -> Option<usize> {
        let n = d.len as usize;
        let bytes = code.get(off..off + n)?;
        // Whether an AMD instruction has a target depends on its (instruction, encoding) entry
        // only: the plugin is asked once per entry that has none.
        let ie = d.ienc as usize;
        let known_none = self.no_target.get(ie / 64).is_some_and(|w| w >> (ie % 64) & 1 != 0);
        let (branch, rel) = match if known_none { None } else { plugin.branch_target(d, 0) } {
            None => {
                if self.no_target.len() <= ie / 64 {
                    self.no_target.resize(ie / 64 + 1, 0);
                }
                self.no_target[ie / 64] |= 1 << (ie % 64);
                (BRANCH_NONE, 0)
            }
            // PC-relative (as AMD branches are): the same distance from another address.
            Some(t) if i32::try_from(t as i64).is_ok() && plugin.branch_target(d, 1 << 40) == Some((1u64 << 40).wrapping_add(t)) => {
                (BRANCH_REL, t as i64 as i32)
            }
            Some(_) => (BRANCH_ASK, 0),
        };
        self.text.clear();
        plugin.print(d, 0, &mut self.text);
        let newline = branch == BRANCH_NONE;
        let (len, addr_at) = template_shape(&self.text, n, newline)?;
        if off > u32::MAX as usize {
            return None;
        }
        // The slack at the end becomes this template's start (written in place: the tab and
        // the text, then the tail); slack follows it again.
        let tl = 1 + self.text.len();
        let total = tl + len - (addr_at + 12);
        let start = self.arena.len() - ARENA_SLACK;
        self.arena.resize(self.arena.len() + total, 0);
        if let Some(a) = self.arena.get_mut(start..start + total) {
            a[0] = b'\t';
            a[1..tl].copy_from_slice(self.text.as_bytes());
            template_tail(&mut a[tl..], bytes, newline);
        }
        self.entries.push(MemoEntry {
            key: Self::key(d),
            at: off as u32,
            start: start as u32,
            len: len as u8,
            addr_at: addr_at as u8,
            tl: tl as u8,
            ilen: d.len,
            branch,
            rel,
        });
        if let Some(s) = self.slots.get_mut(i) {
            *s = self.entries.len() as u32;
        }
        if self.entries.len() * 2 > self.slots.len() {
            self.grow();
        }
        Some(self.entries.len() - 1)
    }

    /// Doubles the table.
    fn grow(&mut self) {
        let n = self.slots.len() * 2;
        let mut slots = crate::written_table(n, 0u32);
        for (k, e) in self.entries.iter().enumerate() {
            let mut i = Self::slot(Self::hash(&e.key, e.ilen), n);
            while slots[i] != 0 {
                i = (i + 1) & (n - 1);
            }
            slots[i] = k as u32 + 1;
        }
        self.slots = slots;
    }

    /// The compact template of entry `e` followed by slack: a window of [`ARENA_SLACK`] bytes.
    #[inline(always)]
    fn block(&self, e: &MemoEntry) -> Option<&[u8; ARENA_SLACK]> {
        let s = e.start as usize;
        self.arena.get(s..s + ARENA_SLACK).and_then(|b| b.try_into().ok())
    }
}

/// Writes the text listing of one section in llvm-objdump-22's layout: a header line where the
/// function changes, then one line per instruction with the branch-target note of direct
/// branches. The text goes to `flush` in pieces of about 16 KiB, in order. Errors as in
/// [`disassemble`]; the lines before the error have been passed to `flush`.
///
/// AMD sections of [`AMD_SPLIT_MIN`] bytes or more are listed by two threads: the second from an
/// instruction boundary near half of the section, or, from [`AMD_CHUNKED_MIN`] bytes, both
/// taking parts in turn; the result is the sequential listing byte for byte (see `amd_listing`
/// and `amd_chunked`).
pub fn listing(
    plugin: &dyn IsaPlugin,
    code: &[u8],
    base: u64,
    section: &str,
    labels: &[Label],
    flush: &mut dyn FnMut(&[u8]),
) -> Result<(), DecodeError> {
    if matches!(plugin.isa(), Isa::Gfx1013 | Isa::Gfx1201) {
        return amd_listing(plugin, code, base, section, labels, flush);
    }
    let mut out = Vec::with_capacity(FLUSH_AT + 4096);
    let r = nv_listing(plugin, code, base, section, labels, &mut out, &mut |o: &mut Vec<u8>| {
        flush(o);
        o.clear();
    });
    flush(&out);
    r
}

/// The NVIDIA listing of one section, appended to `out`; `spill` is called whenever `out` holds
/// more than [`FLUSH_AT`] bytes (it may empty it). NVIDIA text reads the address (branch
/// targets): no memo. The NVIDIA plugins print branch targets in the text and give no
/// `branch_target`, so the lines carry no note.
fn nv_listing(
    plugin: &dyn IsaPlugin,
    code: &[u8],
    base: u64,
    section: &str,
    labels: &[Label],
    out: &mut Vec<u8>,
    spill: &mut dyn FnMut(&mut Vec<u8>),
) -> Result<(), DecodeError> {
    nv_listing_at(plugin, code, base, section, labels, (usize::MAX, None), out, spill)
}

/// The NVIDIA listing of the tail `code[from..]` of a section whose lines before `from` (a
/// whole number of instructions, sm50: of bundles) are listed elsewhere: the same lines as that
/// part of [`nv_listing`] of the whole section, a function header only where a label is passed.
#[allow(clippy::too_many_arguments)]
fn nv_listing_from(
    plugin: &dyn IsaPlugin,
    code: &[u8],
    base: u64,
    section: &str,
    labels: &[Label],
    from: usize,
    out: &mut Vec<u8>,
    spill: &mut dyn FnMut(&mut Vec<u8>),
) -> Result<(), DecodeError> {
    if from == 0 {
        return nv_listing(plugin, code, base, section, labels, out, spill);
    }
    // The last line before `from` (sm86 lines are 16 bytes apart; sm50's last line of a bundle
    // is 8 bytes before the next bundle) and the labels passed there: the header state the
    // listing of the whole section has after it.
    let prev = (from - if plugin.isa() == Isa::Sm50 { 8 } else { plugin.unit() }) as u64;
    let k = labels.partition_point(|l| l.offset <= prev);
    let name = k.checked_sub(1).and_then(|k| labels.get(k)).map_or(section, |l| &*l.name);
    // The labels as offsets into the tail (those at or before `from` at its start): the same
    // label counts at every line as in the whole section.
    let moved: Vec<Label<'_>> = labels.iter().map(|l| Label { offset: l.offset.saturating_sub(from as u64), name: std::borrow::Cow::Borrowed(&*l.name) }).collect();
    nv_listing_at(plugin, code.get(from..).unwrap_or(&[]), base + from as u64, section, &moved, (k, Some(name)), out, spill)
}

/// [`nv_listing`] with the header state of the line before `code`: the label count there and
/// the function named by the last header (`(usize::MAX, None)` at a section's start).
#[allow(clippy::too_many_arguments)]
fn nv_listing_at(
    plugin: &dyn IsaPlugin,
    code: &[u8],
    base: u64,
    section: &str,
    labels: &[Label],
    (mut passed, mut last): (usize, Option<&str>),
    out: &mut Vec<u8>,
    spill: &mut dyn FnMut(&mut Vec<u8>),
) -> Result<(), DecodeError> {
    // The function's name is looked at only where a label is passed.
    let mut emit = |out: &mut Vec<u8>, text: &str, addr: u64, bytes: &[u8], k: usize| {
        if k != passed {
            passed = k;
            let name = k.checked_sub(1).and_then(|k| labels.get(k)).map_or(section, |l| &*l.name);
            if last != Some(name) {
                push_header(out, addr, name);
                last = Some(name);
            }
        }
        nv_line(out, text, addr, bytes);
        if out.len() > FLUSH_AT {
            spill(out);
        }
    };
    disassemble_with(plugin, code, base, section, labels, false, |l, _, k| emit(out, l.text, base + l.offset, l.bytes, k))
}

/// [`write_line`] without a note, for instructions of at most 16 bytes in whole words (NVIDIA):
/// the same bytes, built in one fixed-size block (text up to the column) or two (longer text).
#[inline]
fn nv_line(out: &mut Vec<u8>, text: &str, addr: u64, bytes: &[u8]) {
    /// `// `, the address, `:`, up to four words and the newline.
    const TAIL: usize = 3 + 12 + 1 + 4 * 9 + 1;
    /// Where the tail starts in a line whose text fits the column.
    const AT: usize = 1 + TEXT_COLUMN;
    let words = bytes.len() / 4;
    if words > 4 || !bytes.len().is_multiple_of(4) {
        write_line(out, text, addr, bytes, "");
        return;
    }
    let t = text.as_bytes();
    let mut line = [b' '; AT + TAIL];
    let at = if t.len() <= TEXT_COLUMN {
        line[0] = b'\t';
        line[1..1 + t.len()].copy_from_slice(t);
        AT
    } else {
        out.push(b'\t');
        out.extend_from_slice(t);
        0
    };
    let tail = &mut line[at..at + TAIL];
    tail[..3].copy_from_slice(b"// ");
    tail[3..15].copy_from_slice(&addr_digits(addr));
    tail[15] = b':';
    for (k, c) in bytes.chunks_exact(4).enumerate() {
        let i = 17 + 9 * k;
        tail[i..i + 8].copy_from_slice(&hex8(u32::from_le_bytes([c[0], c[1], c[2], c[3]])));
    }
    tail[16 + 9 * words] = b'\n';
    out.extend_from_slice(&line[..at + 17 + 9 * words]);
}

/// A code section to list: name, address, bytes and labels (sorted by offset).
pub type ListSection<'a> = (&'a str, u64, &'a [u8], Vec<Label<'a>>);

/// Writes the listings of `sections` in order, each after its `\nDisassembly of section NAME:\n`
/// line, as [`listing`] does for one; stops at the first error, after the lines before it.
///
/// NVIDIA code objects (a section per kernel) of [`PARALLEL_MIN`] bytes or more, none of whose
/// sections holds half the code, are listed by two threads taking whole sections in turn
/// (`nv_parallel`); other NVIDIA objects of [`NV_SPLIT_MIN`] bytes or more by two threads that
/// cut the code in two halves at an instruction boundary (`nv_split`). Either way the text is
/// handed on in order, the same bytes as the sequential listing.
pub fn listing_sections(
    plugin: &dyn IsaPlugin,
    sections: &[ListSection<'_>],
    flush: &mut dyn FnMut(&[u8]),
) -> Result<(), DecodeError> {
    let total: usize = sections.iter().map(|s| s.2.len()).sum();
    let nvidia = matches!(plugin.isa(), Isa::Sm50 | Isa::Sm86);
    let largest = sections.iter().map(|s| s.2.len()).max().unwrap_or(0);
    if nvidia && total >= NV_SPLIT_MIN && (sections.len() < 2 || total < PARALLEL_MIN || 2 * largest > total) {
        let cpus = crate::cpus::here();
        if crate::cpus::count(&cpus) > 1 {
            if let Some(cut) = nv_cut(plugin, sections, total / 2) {
                return nv_split(plugin, sections, cut, &cpus, flush);
            }
        }
    }
    if !nvidia || sections.len() < 2 || total < PARALLEL_MIN {
        if nvidia {
            // One thread prints it all: its tables need be no larger than the listing.
            crate::nvidia::expect_instructions(total / plugin.unit().max(1));
        }
        for (name, addr, data, labels) in sections {
            flush(format!("\nDisassembly of section {name}:\n").as_bytes());
            listing(plugin, data, *addr, name, labels, flush)?;
        }
        return Ok(());
    }
    nv_parallel(plugin, sections, flush)
}

/// Smallest NVIDIA code object (bytes of code) listed by two threads that cut it in two at an
/// instruction boundary (`nv_split`); larger objects of many sections of which none holds
/// half the code are listed section by section (`nv_parallel`). Was 16 KiB; from 8 KiB,
/// fp64.sm50 (12 KiB) and control.sm86 (11 KiB) list 7-8 % faster (interleaved medians of 101
/// runs; the sixth session found 8 KiB slower, before `spawn_claimable`).
pub const NV_SPLIT_MIN: usize = 8 << 10;

/// Where [`nv_split`] cuts `sections`: the section and the byte offset in it of the instruction
/// boundary (sm50: bundle boundary) nearest after `at` bytes of code, counted over the
/// sections in order. None when a section is not whole instructions (the sequential listing
/// then reports it) or the cut would leave one part empty.
fn nv_cut(plugin: &dyn IsaPlugin, sections: &[ListSection<'_>], at: usize) -> Option<(usize, usize)> {
    let unit = if plugin.isa() == Isa::Sm50 { crate::sm50::BUNDLE } else { plugin.unit() };
    if unit == 0 || sections.iter().any(|s| !s.2.len().is_multiple_of(unit)) {
        return None;
    }
    let mut before = 0usize;
    for (i, s) in sections.iter().enumerate() {
        let len = s.2.len();
        if before + len > at {
            let off = (at - before).div_ceil(unit) * unit;
            return match off {
                0 if i == 0 => None,
                o if o < len => Some((i, o)),
                _ => sections.get(i + 1).map(|_| (i + 1, 0)),
            };
        }
        before += len;
    }
    None
}

/// [`listing_sections`] for NVIDIA on two threads that split the code at `cut` (section, byte
/// offset in it; see [`nv_cut`]): a second thread lists from there to the end into a buffer
/// while this one lists up to there, handing its text on as it goes; then the second part
/// follows. The same bytes as the sequential listing: NVIDIA instructions have one length, so
/// the second part's lines start where the sequential listing's do, and its first function
/// header is decided from the labels before the cut ([`nv_listing_from`]). At an error in the
/// first part the second part is dropped.
fn nv_split(
    plugin: &dyn IsaPlugin,
    sections: &[ListSection<'_>],
    (cs, co): (usize, usize),
    cpus: &crate::cpus::Here,
    flush: &mut dyn FnMut(&[u8]),
) -> Result<(), DecodeError> {
    let claim = std::sync::Arc::new(Claim::new());
    let job = move |_: &std::sync::atomic::AtomicBool| {
        let tail: usize = sections.iter().skip(cs).map(|s| s.2.len()).sum::<usize>() - co;
        let mut out = Vec::with_capacity(text_room(tail));
        let r = nv_part(plugin, sections, (cs, co), (usize::MAX, 0), &mut out, &mut |_| {});
        (out, r)
    };
    // SAFETY: the worker's result is waited for (`Claim::wait`, `Claim::give_up`) on every
    // path where it was not taken back, before `sections` can go.
    let worker = unsafe { spawn_claimable(*cpus, &claim, job) };
    let mut out = Vec::with_capacity(FLUSH_AT + 4096);
    let mut spill = |o: &mut Vec<u8>| {
        flush(o);
        o.clear();
    };
    let r = nv_part(plugin, sections, (0, 0), (cs, co), &mut out, &mut spill);
    let r = match r {
        Ok(()) => match (worker && !claim.take_back()).then(|| claim.wait()).flatten() {
            Some((text, r2)) => {
                spill(&mut out);
                out = text;
                r2
            }
            // The worker never started (it was taken back) or died (a panic) before handing its
            // part over: list it here.
            None => nv_part(plugin, sections, (cs, co), (usize::MAX, 0), &mut out, &mut spill),
        },
        e => {
            claim.give_up(worker);
            e
        }
    };
    flush(&out);
    r
}

/// Bytes to reserve for the listing text of `code` bytes of NVIDIA code kept whole in memory:
/// nvdisasm's layout takes about 9 bytes of text per byte of sm50 code and 7 of sm86 code
/// (fp32.sm50 / fp32.sm86). Reserved at once, so that the buffer is not grown through a chain
/// of copies, each of which touches fresh pages (capacity never written costs nothing: a large
/// block is mapped, and mapped pages are faulted in only when written).
fn text_room(code: usize) -> usize {
    code.saturating_mul(10).saturating_add(4096)
}

/// Starts `f` as the second thread of a listing: it first moves itself off this thread's CPU
/// (a nudge, see cpus.rs), and this thread yields at once, so that the new thread runs where it
/// was queued behind this one instead of waiting there until this one blocks and the two parts
/// running one after the other (cl_math.gfx1013: 1.67 ms median fork to exit without the yield
/// against 1.19 ms, in 200 runs each).
fn spawn_beside<'scope, T: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    cpus: &'scope crate::cpus::Here,
    f: impl FnOnce() -> T + Send + 'scope,
) -> std::thread::ScopedJoinHandle<'scope, T> {
    let handle = scope.spawn(move || {
        crate::cpus::leave(cpus);
        f()
    });
    std::thread::yield_now();
    handle
}

/// Lists `sections` from byte `from.1` of section `from.0` up to byte `to.1` of section
/// `to.0` (exclusive), each section's part after its `Disassembly of section` line when the
/// part starts the section; stops at the first error.
fn nv_part(
    plugin: &dyn IsaPlugin,
    sections: &[ListSection<'_>],
    (fs, fo): (usize, usize),
    (ts, to): (usize, usize),
    out: &mut Vec<u8>,
    spill: &mut dyn FnMut(&mut Vec<u8>),
) -> Result<(), DecodeError> {
    for (i, (name, addr, data, labels)) in sections.iter().enumerate().skip(fs) {
        if i > ts || (i == ts && to == 0) {
            break;
        }
        let data = if i == ts { data.get(..to).unwrap_or(data) } else { data };
        let from = if i == fs { fo } else { 0 };
        if from == 0 {
            push_section_line(out, name);
        }
        nv_listing_from(plugin, data, *addr, name, labels, from, out, spill)?;
    }
    Ok(())
}

/// Appends the `\nDisassembly of section NAME:\n` line that starts a section's listing.
fn push_section_line(out: &mut Vec<u8>, name: &str) {
    out.extend_from_slice(b"\nDisassembly of section ");
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b":\n");
}

/// One section's text and result in [`nv_parallel`].
type Done = (Vec<u8>, Result<(), DecodeError>);

/// Sections [`nv_parallel`] lists ahead of the next one to hand on, at most: the finished
/// buffers waiting are few and are reused (fresh pages cost more than the text they hold).
const AHEAD: usize = 6;

/// The shared state of [`nv_parallel`].
struct Shared {
    /// Finished sections not yet handed on, by index.
    done: Vec<Option<Done>>,
    /// Buffers handed on, to be reused.
    pool: Vec<Vec<u8>>,
    /// The next section nobody has claimed.
    next: usize,
    /// The next section to hand on.
    written: usize,
    /// Set at the first error: claim nothing more.
    stop: bool,
    /// Threads waiting on the condition variable.
    waiting: usize,
}

/// [`listing_sections`] for NVIDIA on two threads: each claims the next section not yet taken
/// (at most [`AHEAD`] past the next one to hand on) and lists it into a buffer; this thread
/// hands the finished buffers on in section order and stops at the first error.
fn nv_parallel(plugin: &dyn IsaPlugin, sections: &[ListSection<'_>], flush: &mut dyn FnMut(&[u8])) -> Result<(), DecodeError> {
    use std::sync::{Condvar, Mutex, MutexGuard};
    let n = sections.len();
    let shared = Mutex::new(Shared { done: (0..n).map(|_| None).collect(), pool: Vec::new(), next: 0, written: 0, stop: false, waiting: 0 });
    let cv = Condvar::new();
    let lock = || shared.lock().unwrap_or_else(|e| e.into_inner());
    /// Waits for a change (or 5 ms).
    fn wait_on<'g>(cv: &Condvar, mut g: MutexGuard<'g, Shared>) -> MutexGuard<'g, Shared> {
        g.waiting += 1;
        let mut g = cv.wait_timeout(g, std::time::Duration::from_millis(5)).map_or_else(|e| e.into_inner().0, |r| r.0);
        g.waiting -= 1;
        g
    }
    let wait = |g| wait_on(&cv, g);
    let wake = |g: MutexGuard<'_, Shared>| {
        let any = g.waiting > 0;
        drop(g);
        if any {
            cv.notify_all();
        }
    };
    let list_one = |i: usize, mut buf: Vec<u8>| -> Done {
        // A long listing: templates pay from the start.
        crate::nvidia::eager_templates(true);
        let (name, addr, data, labels) = &sections[i];
        buf.clear();
        buf.reserve(text_room(data.len()));
        push_section_line(&mut buf, name);
        let r = nv_listing(plugin, data, *addr, name, labels, &mut buf, &mut |_| {});
        (buf, r)
    };
    let cpus = crate::cpus::here();
    std::thread::scope(|scope| {
        let cpus = &cpus;
        let helper = spawn_beside(scope, cpus, move || {
            loop {
                let mut g = lock();
                while !g.stop && g.next < n && g.next >= g.written + AHEAD {
                    g = wait(g);
                }
                if g.stop || g.next >= n {
                    return;
                }
                let i = g.next;
                g.next += 1;
                let buf = g.pool.pop().unwrap_or_default();
                drop(g);
                let d = list_one(i, buf);
                let mut g = lock();
                g.done[i] = Some(d);
                wake(g);
            }
        });
        let mut result = Ok(());
        for i in 0..n {
            let mut g = lock();
            let (buf, r) = loop {
                if let Some(d) = g.done[i].take() {
                    drop(g);
                    break d;
                }
                if g.next < n && g.next < i + AHEAD {
                    // Section i is unclaimed (then j = i), or the helper is on it: list the next.
                    let j = g.next;
                    g.next += 1;
                    let buf = g.pool.pop().unwrap_or_default();
                    drop(g);
                    let d = list_one(j, buf);
                    if j == i {
                        break d;
                    }
                    g = lock();
                    g.done[j] = Some(d);
                } else if helper.is_finished() {
                    // Only if the helper died before handing section i in: list it here.
                    let buf = g.pool.pop().unwrap_or_default();
                    drop(g);
                    break list_one(i, buf);
                } else {
                    g = wait(g);
                }
            };
            flush(&buf);
            let mut g = lock();
            g.pool.push(buf);
            g.written = i + 1;
            if r.is_err() {
                g.stop = true;
                result = r;
            }
            wake(g);
            if result.is_err() {
                break;
            }
        }
        let mut g = lock();
        g.stop = true;
        wake(g);
        let _ = helper.join();
        result
    })
}

/// Listing text is handed on in pieces of about this size. 16 KiB rather than 64: the buffer's
/// pages are faulted in once and reused, and on the development VM a first touch of a page costs
/// about 2 us (fp64.sm50 and cl_lanes 2-4 % faster, interleaved medians of 200 runs).
const FLUSH_AT: usize = 1 << 14;

/// Smallest NVIDIA code object (bytes of code in all) that `nv_parallel` lists section by
/// section on two threads; AMD sections this large also start with a larger memo table.
pub const PARALLEL_MIN: usize = 32 << 10;

/// Smallest AMD section (bytes) that `amd_listing` cuts in two for a second thread. Was 8 KiB
/// (when it listed cl_lanes, 17.5 KiB, and hip_control, 8.3-9.9 KiB, 4-12 % faster than one
/// thread); since the listing's other costs fell, one thread is as fast or faster on all six of
/// those objects: interleaved medians of 81 rounds, cl_lanes 873 / 888 / 906 -> 863 / 876 /
/// 890 us, hip_control 763 / 754 / 799 -> 703 / 668 / 748 us (the second thread's start and
/// exit cost more than its half of a listing this small saves).
pub const AMD_SPLIT_MIN: usize = 32 << 10;

/// Bytes decoded ahead at a time by the AMD listing loop. The batch's records are fresh memory
/// once per thread: 128 of 24 bytes here, one page. 256 of them (two pages) cost 1-3 more page
/// faults a listing (hip_control.gfx1201 76 -> 74, cl_lanes.gfx1013 91 -> 88) for 0.4 % fewer
/// machine instructions (cl_lanes.gfx1013, callgrind: 1.986 M against 1.993 M).
const BATCH_BYTES: usize = 1 << 9;

/// Instruction starts the second thread's first lines are checked against (see [`amd_listing`]).
const SPLICE_STARTS: usize = 64;

/// Where the lines of an AMD listing loop go.
trait Sink {
    /// A function header (`label`: index of the function's label, None for the section).
    fn header(&mut self, addr: u64, label: Option<usize>, name: &str);
    /// The line of instruction `d` at `off`: distinct instruction `k` of `memo`.
    fn entry(&mut self, memo: &Memo, k: usize, d: &Decoded, addr: u64, off: usize);
    /// The line of instruction `d` at `off`, which is not memoised.
    fn printed(&mut self, d: &Decoded, addr: u64, off: usize);
    /// The `.long` line of an undecodable word.
    fn long(&mut self, word: u32, addr: u64, off: usize);
    /// Where the next line starts: lines so far (records) or bytes so far (text).
    fn mark(&self) -> usize;
}

/// Room [`Text`] keeps past [`FLUSH_AT`]: a memoised line is written as one block of this
/// size (its template and slack, then the address digits inside it).
const ROOM: usize = 2 * TEMPLATE_MAX;

/// Size of [`Text`]'s buffer.
const BUF_LEN: usize = FLUSH_AT + ROOM;

/// Eight upper-case hex digits of `x`, most significant first (all digits at once: each
/// nibble spread to a byte, then the letters' offset added where a nibble is above 9).
#[inline(always)]
fn hex8(x: u32) -> [u8; 8] {
    let x = x as u64;
    let x = (x | x << 16) & 0x0000_ffff_0000_ffff;
    let x = (x | x << 8) & 0x00ff_00ff_00ff_00ff;
    let x = (x | x << 4) & 0x0f0f_0f0f_0f0f_0f0f;
    let letters = ((x + 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101;
    (x + 0x3030_3030_3030_3030 + letters * 7).to_be_bytes()
}

/// Lines as text in a fixed buffer, handed to `flush` whenever more than [`FLUSH_AT`] bytes
/// are in it.
struct Text<'a, 'f> {
    /// The text not yet handed on: `buf[..pos]`.
    buf: Box<[u8; BUF_LEN]>,
    /// Bytes in `buf`.
    pos: usize,
    flush: &'f mut dyn FnMut(&[u8]),
    plugin: &'a dyn IsaPlugin,
    code: &'a [u8],
    base: u64,
    section: &'a str,
    labels: &'a [Label<'a>],
    /// Scratch text of a printed instruction.
    text: String,
    /// Scratch bytes of a line built piece by piece.
    line: Vec<u8>,
    /// Bytes handed on so far.
    flushed: usize,
    /// Where full buffers go instead of `flush` (the parts of [`amd_chunked`]).
    keep: Option<Kept<'f>>,
    /// `addr >> 16` of the last memoised line, and its eight digits (they change every 64 KiB).
    hi: u64,
    hi_digits: [u8; 8],
}

/// A text buffer of [`Text`].
type TextBuf = Box<[u8; BUF_LEN]>;

/// A new, zeroed text buffer (pages straight from the allocator).
fn text_buf() -> TextBuf {
    vec![0u8; BUF_LEN].into_boxed_slice().try_into().unwrap_or_else(|_| Box::new([0; BUF_LEN]))
}

/// The full buffers of a [`Text`] that keeps its text (an [`amd_chunked`] part) and where it
/// takes empty ones from.
struct Kept<'p> {
    /// Full buffers and how many bytes of each are text, in order.
    full: Vec<(TextBuf, usize)>,
    /// Buffers handed on and free again.
    pool: &'p std::sync::Mutex<Vec<TextBuf>>,
}

impl Kept<'_> {
    /// An empty buffer: a used one where there is one.
    fn fresh(&self) -> TextBuf {
        self.pool.lock().ok().and_then(|mut p| p.pop()).unwrap_or_else(text_buf)
    }
}

impl<'a, 'f> Text<'a, 'f> {
    fn new(flush: &'f mut dyn FnMut(&[u8]), plugin: &'a dyn IsaPlugin, code: &'a [u8], base: u64, section: &'a str, labels: &'a [Label]) -> Self {
        Text {
            buf: text_buf(),
            pos: 0,
            flush,
            plugin,
            code,
            base,
            section,
            labels,
            text: String::with_capacity(128),
            line: Vec::with_capacity(256),
            flushed: 0,
            keep: None,
            hi: 0,
            hi_digits: hex8(0),
        }
    }

    /// Hands the buffered text on.
    #[inline(never)]
    fn spill(&mut self) {
        let n = self.pos.min(BUF_LEN);
        match self.keep.as_mut() {
            Some(k) => {
                if n > 0 {
                    let fresh = k.fresh();
                    k.full.push((std::mem::replace(&mut self.buf, fresh), n));
                }
            }
            None => (self.flush)(&self.buf[..n]),
        }
        self.flushed += n;
        self.pos = 0;
    }

    /// Appends `self.line`.
    #[inline(never)]
    fn put_line(&mut self) {
        let n = self.line.len();
        if self.pos + n > BUF_LEN {
            self.spill();
        }
        if n > BUF_LEN && self.keep.is_some() {
            // (buffer by buffer)
            let line = std::mem::take(&mut self.line);
            for c in line.chunks(BUF_LEN) {
                self.buf[..c.len()].copy_from_slice(c);
                self.pos = c.len();
                self.spill();
            }
            self.line = line;
        } else if n > BUF_LEN {
            (self.flush)(&self.line);
            self.flushed += n;
        } else {
            self.buf[self.pos..self.pos + n].copy_from_slice(&self.line);
            self.pos += n;
        }
        self.line.clear();
    }

    /// The 12 address digits of `addr` (its low 48 bits): the first eight and the last four
    /// as they lie in memory.
    #[inline(always)]
    fn digits(&mut self, addr: u64) -> (u64, u32) {
        let hi = addr >> 16 & 0xffff_ffff;
        if hi != self.hi {
            self.hi = hi;
            self.hi_digits = hex8(hi as u32);
        }
        let a = HEX_PAIRS[(addr >> 8 & 0xff) as usize];
        let b = HEX_PAIRS[(addr & 0xff) as usize];
        (u64::from_ne_bytes(self.hi_digits), u32::from_ne_bytes([a[0], a[1], b[0], b[1]]))
    }

    /// The line of memo entry `e` at `addr` (`d`: the instruction, when at hand), written as
    /// fixed-size blocks: the text, spaces over the rest of it, `// ` and the address, the
    /// tail (each block overwrites the garbage the one before left past its part).
    #[inline(always)]
    fn entry_line(&mut self, memo: &Memo, e: &MemoEntry, d: Option<&Decoded>, addr: u64, off: usize) {
        let Some(block) = memo.block(e) else { return };
        if self.pos > FLUSH_AT {
            self.spill();
        }
        let pos = self.pos.min(FLUSH_AT);
        let digits = self.digits(addr);
        if let Some(dst) = self.buf[pos..].first_chunk_mut::<ROOM>() {
            let tl = e.tl as usize & (TEMPLATE_MAX - 1);
            let at = (e.addr_at as usize & (TEMPLATE_MAX - 1)).max(3);
            dst[..64].copy_from_slice(&block[..64]);
            if tl > 64 {
                dst[64..128].copy_from_slice(&block[64..128]);
            }
            dst[tl..tl + 64].copy_from_slice(&SPACES);
            dst[at - 3..at].copy_from_slice(b"// ");
            dst[at..at + 8].copy_from_slice(&digits.0.to_ne_bytes());
            dst[at + 8..at + 12].copy_from_slice(&digits.1.to_ne_bytes());
            dst[at + 12..at + 76].copy_from_slice(&block[tl..tl + 64]);
        }
        self.pos = pos + e.len as usize;
        if e.branch != BRANCH_NONE {
            self.branch_end(e, d, addr, off);
        }
    }

    /// The note and newline that end the line of a branch (memo entry `e`).
    #[inline(never)]
    fn branch_end(&mut self, e: &MemoEntry, d: Option<&Decoded>, addr: u64, off: usize) {
        let t = match (e.branch, d) {
            (BRANCH_REL, _) => Some(addr.wrapping_add(e.rel as i64 as u64)),
            (_, Some(d)) => self.plugin.branch_target(d, addr),
            (_, None) => self.plugin.decode(&self.code[off..], addr).ok().and_then(|d| self.plugin.branch_target(&d, addr)),
        };
        self.note(t);
        self.line.push(b'\n');
        self.put_line();
    }

    /// Appends the branch-target note of a branch to `target` to `self.line`.
    fn note(&mut self, target: Option<u64>) {
        if let Some(t) = target.and_then(|t| t.checked_sub(self.base)) {
            push_branch_note(&mut self.line, t, self.section, self.labels);
        }
    }

    /// The line of an instruction that is not memoised.
    #[inline(never)]
    fn printed_line(&mut self, d: &Decoded, addr: u64, off: usize) {
        self.text.clear();
        self.plugin.print(d, addr, &mut self.text);
        let bytes = self.code.get(off..off + d.len as usize).unwrap_or(&[]);
        write_line(&mut self.line, &self.text, addr, bytes, "");
        if let Some(t) = self.plugin.branch_target(d, addr) {
            self.line.pop();
            self.note(Some(t));
            self.line.push(b'\n');
        }
        self.put_line();
    }

    fn finish(&mut self) {
        self.spill();
    }
}

impl Sink for Text<'_, '_> {
    fn header(&mut self, addr: u64, _label: Option<usize>, name: &str) {
        push_header(&mut self.line, addr, name);
        self.put_line();
    }

    #[inline(always)]
    fn entry(&mut self, memo: &Memo, k: usize, d: &Decoded, addr: u64, off: usize) {
        if let Some(e) = memo.entries.get(k) {
            self.entry_line(memo, e, Some(d), addr, off);
        }
    }

    fn printed(&mut self, d: &Decoded, addr: u64, off: usize) {
        self.printed_line(d, addr, off);
    }

    fn long(&mut self, word: u32, addr: u64, off: usize) {
        self.text.clear();
        let _ = write!(self.text, ".long 0x{word:08x}");
        write_line(&mut self.line, &self.text, addr, self.code.get(off..off + 4).unwrap_or(&[]), "");
        self.put_line();
    }

    fn mark(&self) -> usize {
        self.flushed + self.pos
    }
}

/// The second thread's lines in compact form, one `u32` each, turned into text by the first:
/// a memo entry index (below [`REC_PRINT`]), or a tag. Offsets are not stored: each line
/// starts where the previous one ends.
struct Recs(Vec<u32>);

/// [`Recs`]: an instruction that is not memoised (decoded and printed again).
const REC_PRINT: u32 = 1 << 30;
/// [`Recs`]: a `.long` line.
const REC_LONG: u32 = 2 << 30;
/// [`Recs`]: a function header, with the label index in the low 30 bits (all ones: the section).
const REC_HEADER: u32 = 3 << 30;

impl Sink for Recs {
    fn header(&mut self, _addr: u64, label: Option<usize>, _name: &str) {
        self.0.push(REC_HEADER | label.map_or(REC_PRINT - 1, |l| l as u32 & (REC_PRINT - 1)));
    }

    #[inline(always)]
    fn entry(&mut self, _memo: &Memo, k: usize, _d: &Decoded, _addr: u64, _off: usize) {
        self.0.push(k as u32);
    }

    fn printed(&mut self, _d: &Decoded, _addr: u64, _off: usize) {
        self.0.push(REC_PRINT);
    }

    fn long(&mut self, _word: u32, _addr: u64, _off: usize) {
        self.0.push(REC_LONG);
    }

    fn mark(&self) -> usize {
        self.0.len()
    }
}

/// The state of an AMD listing loop besides the offset: everything a line depends on.
struct Run<'a> {
    /// Lines of the distinct instructions seen.
    memo: Memo,
    /// The next label not yet passed.
    next_label: usize,
    /// Offset of the next label (`u64::MAX` when none is left): one compare per line.
    next_at: u64,
    /// The function the current instruction belongs to.
    function: &'a str,
    /// The function of the previous line (a header is written where it differs).
    last: Option<&'a str>,
    /// A label was passed since the last line: compare `function` with `last`.
    changed: bool,
}

/// Where [`Run::run`] stops.
struct Stop<'s> {
    /// `at(off)` is asked only for offsets from here on.
    from: usize,
    /// True at an instruction start where the run stops.
    at: &'s dyn Fn(usize) -> bool,
    /// Set by another thread: stop at the next batch of lines.
    cancel: Option<&'s std::sync::atomic::AtomicBool>,
}

impl<'a> Run<'a> {
    /// The state at offset `from` of a sequential run from 0, guessing that the previous line
    /// belongs to the last label before `from` (exact for `from` = 0: no previous line).
    fn at(section: &'a str, labels: &'a [Label], from: usize, code_len: usize) -> Run<'a> {
        Run::with_memo(section, labels, from, Memo::new(code_len))
    }

    /// [`Run::at`] with the lines of `memo` (a thread's memo carried from one part to the next).
    fn with_memo(section: &'a str, labels: &'a [Label], from: usize, memo: Memo) -> Run<'a> {
        let next_label = labels.partition_point(|l| l.offset <= from as u64);
        let before = labels.partition_point(|l| l.offset < from as u64);
        let name = |k: usize| k.checked_sub(1).and_then(|k| labels.get(k)).map_or(section, |l| &*l.name);
        Run {
            memo,
            next_label,
            next_at: labels.get(next_label).map_or(u64::MAX, |l| l.offset),
            function: name(next_label),
            last: (from > 0).then(|| name(before)),
            changed: true,
        }
    }

    /// Lists instructions from `off` until the end of `code`, or until `stop` says so at an
    /// instruction start; returns the offset where it stopped. With `record`, the first
    /// [`SPLICE_STARTS`] lines are noted as (offset, lines before it, `last` before it).
    #[allow(clippy::too_many_arguments)]
    fn run(
        &mut self,
        plugin: &dyn IsaPlugin,
        code: &[u8],
        base: u64,
        labels: &'a [Label],
        mut off: usize,
        stop: &Stop<'_>,
        sink: &mut impl Sink,
        mut record: Option<&mut Vec<(usize, usize, Option<&'a str>)>>,
    ) -> Result<usize, DecodeError> {
        // Instructions decoded ahead, from offset `off` on: `batch[next..]`.
        let mut batch: Vec<Decoded> = Vec::with_capacity(BATCH_BYTES / 4);
        let mut next = 0usize;
        while off < code.len() && !(off >= stop.from && (stop.at)(off)) {
            if let Some(r) = record.as_deref_mut() {
                if r.len() < SPLICE_STARTS {
                    r.push((off, sink.mark(), self.last));
                }
            }
            if self.next_at <= off as u64 {
                while self.next_label < labels.len() && labels[self.next_label].offset <= off as u64 {
                    self.function = &labels[self.next_label].name;
                    self.next_label += 1;
                }
                self.next_at = labels.get(self.next_label).map_or(u64::MAX, |l| l.offset);
                self.changed = true;
            }
            let addr = base + off as u64;
            // A header where the function's name changes (names are compared only at labels).
            if self.changed {
                if self.last != Some(self.function) {
                    sink.header(addr, self.next_label.checked_sub(1), self.function);
                    self.last = Some(self.function);
                }
                self.changed = false;
            }
            if next == batch.len() {
                if stop.cancel.is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed)) {
                    break;
                }
                // Decode ahead in blocks (cheaper per instruction than one at a time); the
                // block stops before bytes that do not decode, handled one by one below.
                batch.clear();
                next = 0;
                let end = code.len().min(off + BATCH_BYTES);
                plugin.decode_block(&code[off..end], addr, &mut batch);
            }
            if let Some(d) = batch.get(next) {
                next += 1;
                match self.memo.get(plugin, code, off, d) {
                    Some(k) => sink.entry(&self.memo, k, d, addr, off),
                    None => sink.printed(d, addr, off),
                }
                off += d.len as usize;
                if record.as_ref().is_some_and(|r| r.len() < SPLICE_STARTS) {
                    continue;
                }
                // The lines before the next label or stop point, without the checks above.
                let limit = self.next_at.min(stop.from as u64);
                while (off as u64) < limit {
                    let Some(d) = batch.get(next) else { break };
                    next += 1;
                    let addr = base + off as u64;
                    match self.memo.get(plugin, code, off, d) {
                        Some(k) => sink.entry(&self.memo, k, d, addr, off),
                        None => sink.printed(d, addr, off),
                    }
                    off += d.len as usize;
                }
                continue;
            }
            match plugin.decode(&code[off..], addr) {
                Ok(d) => {
                    match self.memo.get(plugin, code, off, &d) {
                        Some(k) => sink.entry(&self.memo, k, &d, addr, off),
                        None => sink.printed(&d, addr, off),
                    }
                    off += d.len as usize;
                }
                Err(DecodeError::Unknown { word, .. }) => {
                    sink.long(word, addr, off);
                    off += 4;
                }
                Err(e) => return Err(e),
            }
        }
        Ok(off)
    }
}

impl<'a> Run<'a> {
    /// Lists from `off` to the end of `code` alone into `text`, and hands the text on.
    fn run_alone(&mut self, plugin: &dyn IsaPlugin, code: &[u8], base: u64, labels: &'a [Label], off: usize, text: &mut Text) -> Result<(), DecodeError> {
        let never = |_: usize| false;
        let r = self.run(plugin, code, base, labels, off, &Stop { from: usize::MAX, at: &never, cancel: None }, text, None);
        text.finish();
        r.map(|_| ())
    }
}

/// A value one thread hands to another without the receiver waiting for the sender to exit
/// (joining waited on the thread's teardown, about 0.08 ms on the development VM). The
/// receiver spins for a while before it sleeps: the parts of a listing are cut to end together,
/// and waking a sleeping thread on a VM takes longer still.
struct Handoff<T> {
    ready: std::sync::atomic::AtomicBool,
    /// None until the sender is done; then its value, or None when it ended without one.
    slot: std::sync::Mutex<Option<Option<T>>>,
    done: std::sync::Condvar,
}

/// The sending end of a [`Handoff`]: hands over "no value" when dropped unused (a panic).
struct Putter<'h, T>(&'h Handoff<T>, bool);

/// Yields [`Handoff::take`] makes while the value is not ready before it sleeps on the condition
/// variable: about 0.2 ms (a `sched_yield` took 0.6 us on the development VM, 512 of them in a C
/// loop 293-311 us).
const TAKE_SPINS: u32 = 320;

impl<T> Handoff<T> {
    fn new() -> Self {
        Handoff { ready: std::sync::atomic::AtomicBool::new(false), slot: std::sync::Mutex::new(None), done: std::sync::Condvar::new() }
    }

    fn putter(&self) -> Putter<'_, T> {
        Putter(self, false)
    }

    fn set(&self, v: Option<T>) {
        *self.slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(v);
        self.ready.store(true, std::sync::atomic::Ordering::Release);
        self.done.notify_one();
    }

    /// The value, once the sender is done (None: it ended without one).
    fn take(&self) -> Option<T> {
        // A bounded spin before sleeping, counted in yields rather than timed: the first read
        // of the clock in a process maps two pages of the vDSO (two page faults, about as long
        // as a small listing's whole parallel part).
        for _ in 0..TAKE_SPINS {
            if self.ready.load(std::sync::atomic::Ordering::Acquire) {
                break;
            }
            // Yielding (not pausing) leaves this CPU to the sender where the two share one.
            std::thread::yield_now();
        }
        let mut g = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(v) = g.take() {
                return v;
            }
            g = self.done.wait(g).unwrap_or_else(|e| e.into_inner());
        }
    }
}

impl<T> Putter<'_, T> {
    fn put(mut self, v: T) {
        self.1 = true;
        self.0.set(Some(v));
    }
}

impl<T> Drop for Putter<'_, T> {
    fn drop(&mut self) {
        if !self.1 {
            self.0.set(None);
        }
    }
}

/// The AMD listing. A section of [`AMD_SPLIT_MIN`] bytes or more is cut at `g`, the first label
/// within 1/16 after half of it, else that point itself (sections of [`AMD_CHUNKED_MIN`] bytes
/// or more go to `amd_chunked`): a second thread lists from
/// `g` to the end (in compact form) while this one lists from 0. When this thread arrives
/// exactly at one of the second thread's first line starts, with the same previous function,
/// every later line is the same as the second thread's (a line depends only on its offset and
/// that), so the lines are taken from there; otherwise this thread simply goes on to the end.
/// Either way the output is the sequential listing.
fn amd_listing(
    plugin: &dyn IsaPlugin,
    code: &[u8],
    base: u64,
    section: &str,
    labels: &[Label],
    flush: &mut dyn FnMut(&[u8]),
) -> Result<(), DecodeError> {
    let cpus = if code.len() >= AMD_SPLIT_MIN { crate::cpus::here() } else { None };
    if code.len() >= AMD_CHUNKED_MIN && crate::cpus::count(&cpus) > 1 {
        return amd_chunked(plugin, code, base, section, labels, cpus, flush);
    }
    let mut text = Text::new(flush, plugin, code, base, section, labels);
    let mut main = Run::at(section, labels, 0, code.len());
    let never = |_: usize| false;
    let split = (code.len() >= AMD_SPLIT_MIN && code.len() < u32::MAX as usize && crate::cpus::count(&cpus) > 1).then(|| {
        // This thread turns the second one's records into text after that one has finished,
        // so the listing takes about max(this part, the second part) + that text. The second
        // thread starts late (spawning, moving to another CPU: 0.05-2 ms on the development
        // VM; one that has not started when this thread reaches the cut is not waited for,
        // see `spawn_claimable`) and its records cost less than text per line; fork to exit
        // on cl_math.gfx1013, the cut at 7/16, 8/16 and 9/16 gave 1.59, 1.50 and 1.54 ms
        // (tenth percentiles of 200 runs).
        let mid = (code.len() / 2) & !3;
        let i = labels.partition_point(|l| l.offset < mid as u64);
        match labels.get(i) {
            Some(l) if l.offset < (mid + code.len() / 16) as u64 => l.offset as usize,
            _ => mid,
        }
    });
    let Some(g) = split else {
        return main.run_alone(plugin, code, base, labels, 0, &mut text);
    };
    // The second thread's first line starts, found here (decoding is cheap next to printing).
    let mut starts = Vec::with_capacity(SPLICE_STARTS);
    let mut o = g;
    while o < code.len() && starts.len() < SPLICE_STARTS {
        starts.push(o);
        o += match plugin.decode(&code[o..], base + o as u64) {
            Ok(d) => d.len as usize,
            Err(DecodeError::Unknown { .. }) => 4,
            Err(_) => break,
        };
    }
    let last_start = starts.last().copied().unwrap_or(usize::MAX);
    let claim = std::sync::Arc::new(Claim::new());
    let job = move |cancel: &std::sync::atomic::AtomicBool| {
        let mut run = Run::at(section, labels, g, code.len());
        let mut rec = Vec::with_capacity(SPLICE_STARTS);
        // At most a record per 4 bytes of code, and the headers: reserved whole, as a
        // buffer grown by copies touches fresh pages at each step (see `text_room`).
        let mut lines = Recs(Vec::with_capacity((code.len() - g) / 4 + labels.len() + 64));
        let stop = Stop { from: usize::MAX, at: &never, cancel: Some(cancel) };
        let r = run.run(plugin, code, base, labels, g, &stop, &mut lines, Some(&mut rec));
        (r, run.memo, lines, rec)
    };
    // SAFETY: every return below first takes the job back (`Claim::take_back`) or, where the
    // worker has it, waits for its result (`Claim::wait`); only then may `code`, `labels` and
    // `section` go.
    let worker = unsafe { spawn_claimable(cpus, &claim, job) };
    // This thread stops at the first of those starts it meets, or once past them all.
    let at_start = |off: usize| off > last_start || starts.binary_search(&off).is_ok();
    let r = main.run(plugin, code, base, labels, 0, &Stop { from: g, at: &at_start, cancel: None }, &mut text, None);
    let off = match r {
        Ok(off) if off < code.len() => off,
        r => {
            claim.give_up(worker);
            text.finish();
            return r.map(|_| ());
        }
    };
    if off <= last_start && worker && !claim.take_back() {
        // The worker started before this thread got here: its lines from `off` on.
        if let Some((r2, memo, lines, rec)) = claim.wait() {
            if let Some(&(_, pos, _)) = rec.iter().find(|x| x.0 == off && x.2 == main.last) {
                let mut o = off;
                for &l in lines.0.get(pos..).unwrap_or(&[]) {
                    let addr = base + o as u64;
                    match l {
                        REC_HEADER.. => {
                            let name = labels.get((l & (REC_PRINT - 1)) as usize).map_or(section, |l| &*l.name);
                            text.header(addr, None, name);
                        }
                        REC_LONG..REC_HEADER => {
                            let w = code.get(o..o + 4).map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
                            text.long(w, addr, o);
                            o += 4;
                        }
                        REC_PRINT..REC_LONG => match plugin.decode(&code[o..], addr) {
                            Ok(d) => {
                                text.printed_line(&d, addr, o);
                                o += d.len as usize;
                            }
                            Err(_) => break,
                        },
                        k => {
                            let Some(e) = memo.entries.get(k as usize) else { break };
                            text.entry_line(&memo, e, None, addr, o);
                            o += e.ilen as usize;
                        }
                    }
                }
                text.finish();
                return r2.map(|_| ());
            }
        }
    } else {
        // Past every start the worker could splice at, or it never started: it is not
        // waited for (a worker that has started is told to stop, and waited for).
        claim.give_up(worker);
    }
    // No splice: go on alone.
    main.run_alone(plugin, code, base, labels, off, &mut text)
}

/// Smallest AMD section (bytes) that `amd_chunked` lists: both threads write text, part by
/// part, instead of the first thread turning the second one's records into text after its own
/// half (which made the first thread the slower one on large sections).
pub const AMD_CHUNKED_MIN: usize = 1 << 20;

/// Bytes of code in a part of [`amd_chunked`]: about 60 KiB of text, so that the few text
/// buffers in flight are recycled pages, not fresh ones (parts of 16 KiB took 300 more page
/// faults on big.gfx1013).
const AMD_CHUNK: usize = 4 << 10;

/// Where [`amd_chunked`] cuts a section of `len` bytes: the start of each part (the first is 0),
/// at the first label at least [`AMD_CHUNK`] bytes after the start before it where one lies
/// within another [`AMD_CHUNK`] (a function start: an instruction start, whose previous line's
/// function is known), else at that point itself. A start is only a guess: the part before it
/// decides where the lines really are (see [`amd_chunked`]).
fn chunk_starts(len: usize, labels: &[Label]) -> Vec<usize> {
    let mut v = vec![0];
    let mut at = 0usize;
    // (a last part of at least half a chunk)
    while at + AMD_CHUNK + AMD_CHUNK / 2 < len {
        let want = at + AMD_CHUNK;
        let i = labels.partition_point(|l| l.offset < want as u64);
        let next = match labels.get(i) {
            Some(l) if l.offset < (want + AMD_CHUNK).min(len) as u64 => l.offset as usize,
            _ => want & !3,
        };
        v.push(next);
        at = next;
    }
    v
}

/// One part of an [`amd_chunked`] listing, as the thread that listed it left it.
struct Part<'a> {
    /// The text of its lines, in buffers (and how many bytes of each are text).
    text: Vec<(TextBuf, usize)>,
    /// Its first lines: offset, where the line starts in `text`, function of the line before.
    starts: Vec<(usize, usize, Option<&'a str>)>,
    /// The instruction start where it stopped (at or past the next part's start, or the
    /// section's end), or the error that stopped it.
    end: Result<usize, DecodeError>,
    /// The function of its last line.
    last: Option<&'a str>,
}

/// What the threads of [`amd_chunked`] share.
struct PartsShared<'s, 'a> {
    /// Where each part starts.
    starts: &'s [usize],
    /// The next part no thread has taken.
    next: &'s std::sync::atomic::AtomicUsize,
    /// Set when no more parts are wanted.
    cancel: &'s std::sync::atomic::AtomicBool,
    /// The parts listed and not yet handed on.
    parts: &'s [std::sync::Mutex<Option<Part<'a>>>],
    /// Per part: listed.
    ready: &'s [std::sync::atomic::AtomicBool],
    /// Parts handed on so far (a part is not started before this is within [`PARTS_AHEAD`]).
    written: &'s std::sync::atomic::AtomicUsize,
}

/// Most parts of [`amd_chunked`] listed ahead of the first not yet handed on: the text waiting
/// in memory stays under about half a MiB however slowly the output is taken.
const PARTS_AHEAD: usize = 8;

impl<'a> PartsShared<'_, 'a> {
    /// Takes parts and lists them with `text` (which keeps its buffers) and `memo` until none is
    /// left or no more are wanted; `only_one`: one at most, by the thread that hands parts on
    /// (else by the worker, which waits before a part more than [`PARTS_AHEAD`] ahead).
    fn list(&self, text: &mut Text<'a, '_>, memo: &mut Option<Memo>, only_one: bool) {
        use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release};
        while !self.cancel.load(Relaxed) {
            let k = self.next.fetch_add(1, AcqRel);
            let Some(&from) = self.starts.get(k) else { return };
            // (the worker waits; the thread that hands parts on never does: it is what it would
            // wait for)
            while !only_one && k >= self.written.load(Acquire) + PARTS_AHEAD && !self.cancel.load(Relaxed) {
                std::thread::yield_now();
            }
            let until = self.starts.get(k + 1).copied().unwrap_or(usize::MAX);
            let m = memo.take().unwrap_or_else(|| Memo::new(text.code.len()));
            let mut run = Run::with_memo(text.section, text.labels, from, m);
            let mark = text.mark();
            let stop_here = |_: usize| true;
            let stop = Stop { from: until, at: &stop_here, cancel: Some(self.cancel) };
            let mut rec = Vec::with_capacity(SPLICE_STARTS);
            let (plugin, code, base, labels) = (text.plugin, text.code, text.base, text.labels);
            let end = run.run(plugin, code, base, labels, from, &stop, text, Some(&mut rec));
            text.spill();
            for r in rec.iter_mut() {
                r.1 -= mark;
            }
            let full = text.keep.as_mut().map(|k| std::mem::take(&mut k.full)).unwrap_or_default();
            let part = Part { text: full, starts: rec, end, last: run.last };
            *memo = Some(run.memo);
            if let Some(slot) = self.parts.get(k) {
                *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(part);
            }
            if let Some(r) = self.ready.get(k) {
                r.store(true, Release);
            }
            if only_one {
                return;
            }
        }
    }
}

/// A large AMD section, listed in parts of about [`AMD_CHUNK`] bytes that both threads take in
/// turn (an atomic counter), each writing its parts' text into buffers that this thread hands
/// on in order and then gives back for later parts. A line depends only on its offset and the
/// function of the line before it, so part `k`'s text is the sequential listing's from the
/// first of its lines whose offset is where part `k - 1` stopped, with the same function before
/// it; where no such line is among its first [`SPLICE_STARTS`], this thread lists the rest of
/// the section alone. Either way the output is the sequential listing.
fn amd_chunked(
    plugin: &dyn IsaPlugin,
    code: &[u8],
    base: u64,
    section: &str,
    labels: &[Label],
    cpus: crate::cpus::Here,
    flush: &mut dyn FnMut(&[u8]),
) -> Result<(), DecodeError> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::*};
    use std::sync::Mutex;
    let starts = chunk_starts(code.len(), labels);
    let n = starts.len();
    let next = AtomicUsize::new(0);
    let cancel = AtomicBool::new(false);
    let parts: Vec<Mutex<Option<Part>>> = (0..n).map(|_| Mutex::new(None)).collect();
    let ready: Vec<AtomicBool> = (0..n).map(|_| AtomicBool::new(false)).collect();
    // Text buffers handed on, for later parts (their pages are already there).
    let pool: Mutex<Vec<TextBuf>> = Mutex::new(Vec::new());
    let written = AtomicUsize::new(0);
    let shared = PartsShared { starts: &starts, next: &next, cancel: &cancel, parts: &parts, ready: &ready, written: &written };
    // (a `Text` that keeps its buffers never calls its flush)
    let (mut unused, mut unused_too) = (|_: &[u8]| {}, |_: &[u8]| {});
    std::thread::scope(|s| {
        // No worker (the system would not start one): this thread lists every part.
        let worker = std::thread::Builder::new()
            .spawn_scoped(s, || {
                crate::cpus::leave(&cpus);
                let mut text = Text::new(&mut unused_too, plugin, code, base, section, labels);
                text.keep = Some(Kept { full: Vec::new(), pool: &pool });
                shared.list(&mut text, &mut None, false);
            })
            .ok();
        std::thread::yield_now();
        let mut text = Text::new(&mut unused, plugin, code, base, section, labels);
        text.keep = Some(Kept { full: Vec::new(), pool: &pool });
        let mut memo = None;
        // Where the lines handed on so far end, and the function of the last one.
        let (mut end, mut last): (usize, Option<&str>) = (0, None);
        let mut w = 0usize;
        let spliced = loop {
            // Hand on the parts that are ready, in order.
            while w < n && ready[w].load(Acquire) {
                let Some(part) = parts.get(w).and_then(|p| p.lock().unwrap_or_else(|e| e.into_inner()).take()) else {
                    break;
                };
                let Some(&(_, at, _)) = part.starts.iter().find(|x| x.0 == end && x.2 == last) else {
                    break;
                };
                let mut skip = at;
                let mut free = Vec::with_capacity(part.text.len());
                for (b, len) in part.text {
                    if skip < len {
                        flush(b.get(skip..len).unwrap_or(&[]));
                    }
                    skip = skip.saturating_sub(len);
                    free.push(b);
                }
                if let Ok(mut p) = pool.lock() {
                    p.append(&mut free);
                }
                match part.end {
                    Ok(e) => (end, last) = (e, part.last),
                    Err(e) => {
                        cancel.store(true, Relaxed);
                        return Err(e);
                    }
                }
                w += 1;
                written.store(w, Release);
            }
            if w == n {
                break true;
            }
            if ready[w].load(Acquire) {
                // Part `w` does not start where the lines so far end.
                break false;
            }
            let k = next.load(Acquire);
            if k < n && k < w + PARTS_AHEAD {
                shared.list(&mut text, &mut memo, true);
            } else if worker.as_ref().is_none_or(|h| h.is_finished()) {
                // (the worker's last writes are seen after its end is)
                std::sync::atomic::fence(Acquire);
                if !ready[w].load(Acquire) {
                    // A worker that ended without its part.
                    break false;
                }
            } else {
                std::thread::yield_now();
            }
        };
        cancel.store(true, Relaxed);
        if spliced {
            return Ok(());
        }
        // Alone from where the lines so far end.
        drop(text);
        let mut run = Run::with_memo(section, labels, end, memo.unwrap_or_else(|| Memo::new(code.len())));
        run.last = last;
        let mut text = Text::new(flush, plugin, code, base, section, labels);
        run.run_alone(plugin, code, base, labels, end, &mut text)
    })
}

/// What a [`spawn_claimable`] worker and the thread that started it share.
struct Claim<T> {
    /// [`CLAIM_OPEN`], [`CLAIM_WORKER`] or [`CLAIM_CALLER`].
    state: std::sync::atomic::AtomicU8,
    /// Asks a worker that has the job to stop early.
    cancel: std::sync::atomic::AtomicBool,
    /// The worker's result.
    handoff: Handoff<T>,
}

/// [`Claim::state`]: nobody has taken the job yet.
const CLAIM_OPEN: u8 = 0;
/// [`Claim::state`]: the worker started in time and runs the job.
const CLAIM_WORKER: u8 = 1;
/// [`Claim::state`]: the caller took the job back; the worker, when it starts, ends at once.
const CLAIM_CALLER: u8 = 2;

impl<T> Claim<T> {
    fn new() -> Self {
        Claim { state: std::sync::atomic::AtomicU8::new(CLAIM_OPEN), cancel: std::sync::atomic::AtomicBool::new(false), handoff: Handoff::new() }
    }

    /// Takes the job back unless the worker has started it: true when the caller has it (now
    /// or from an earlier call; the worker will then never touch the data the job borrows).
    fn take_back(&self) -> bool {
        use std::sync::atomic::Ordering::{AcqRel, Acquire};
        match self.state.compare_exchange(CLAIM_OPEN, CLAIM_CALLER, AcqRel, Acquire) {
            Ok(_) => true,
            Err(s) => s == CLAIM_CALLER,
        }
    }

    /// The worker's result, once it is done (None: it ended without one).
    fn wait(&self) -> Option<T> {
        self.handoff.take()
    }

    /// Ends the caller's interest in the job: takes it back, or tells the worker to stop and
    /// waits for it (`spawned`: a worker was started at all).
    fn give_up(&self, spawned: bool) {
        if spawned && !self.take_back() {
            self.cancel.store(true, std::sync::atomic::Ordering::Relaxed);
            drop(self.wait());
        }
    }
}

/// Starts `job` on a second thread beside this one (see [`spawn_beside`]), which runs it only
/// if it starts before the caller takes the job back ([`Claim::take_back`]): on this VM a
/// thread queued for the other CPU started 0.05-2 ms after it was made (the CPU was asleep),
/// while the caller's own part of a mid-size listing takes about 0.2 ms, so a caller that
/// waited for it lost more than the split gained (cl_lanes.gfx1013: the worker began 0.43 ms
/// after it was made, 0.24 ms after this thread had finished its half). The thread is never
/// joined: one that starts too late ends at once, touching only `claim`. False when no thread
/// could be made (the caller does the job).
///
/// # Safety
/// `job` may borrow the caller's data. Unless [`Claim::take_back`] returned true, the caller
/// must wait for the result ([`Claim::wait`], [`Claim::give_up`]) before that data goes; and
/// dropping `job` unrun must not touch it (it holds references and plain values).
unsafe fn spawn_claimable<'a, T: Send + 'a>(
    cpus: crate::cpus::Here,
    claim: &std::sync::Arc<Claim<T>>,
    job: impl FnOnce(&std::sync::atomic::AtomicBool) -> T + Send + 'a,
) -> bool {
    let c = std::sync::Arc::clone(claim);
    let f = move || {
        crate::cpus::leave(&cpus);
        use std::sync::atomic::Ordering::{AcqRel, Acquire};
        if c.state.compare_exchange(CLAIM_OPEN, CLAIM_WORKER, AcqRel, Acquire).is_err() {
            return; // too late: the caller has the job
        }
        // A panic of the job hands over "no result" (the putter's drop).
        let put = c.handoff.putter();
        put.put(job(&c.cancel));
    };
    // SAFETY: the closure borrows what `job` borrows; the caller's contract keeps that alive
    // for as long as the closure can touch it (only after winning the claim).
    let made = unsafe { std::thread::Builder::new().spawn_unchecked(f) }.is_ok();
    if made {
        std::thread::yield_now();
    }
    made
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    /// Waits (at most 10 s) until the worker of `c` has taken its job.
    fn worker_started<T>(c: &Claim<T>) -> bool {
        let t = std::time::Instant::now();
        while c.state.load(Ordering::Acquire) != CLAIM_WORKER {
            if t.elapsed() > std::time::Duration::from_secs(10) {
                return false;
            }
            std::thread::yield_now();
        }
        true
    }

    /// A job taken back before its worker starts never runs, and taking it back again (or
    /// giving it up after) neither fails nor waits (a second `give_up` once waited forever).
    #[test]
    fn claim_taken_back_never_runs() {
        let ran = Arc::new(AtomicBool::new(false));
        let claim = Arc::new(Claim::<u32>::new());
        // Taken back before the thread exists: it cannot win.
        assert!(claim.take_back());
        let r = Arc::clone(&ran);
        // SAFETY: the job borrows nothing.
        let spawned = unsafe { spawn_claimable(None, &claim, move |_: &AtomicBool| {
            r.store(true, Ordering::SeqCst);
            1
        }) };
        assert!(spawned);
        assert!(claim.take_back());
        claim.give_up(spawned);
        claim.give_up(spawned);
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(!ran.load(Ordering::SeqCst));
        assert_eq!(claim.state.load(Ordering::SeqCst), CLAIM_CALLER);
    }

    /// A worker that started in time keeps its job: taking it back fails and its result
    /// arrives; one told to stop sees the flag.
    #[test]
    fn claim_started_worker_delivers() {
        let claim = Arc::new(Claim::<u64>::new());
        let go = Arc::new(AtomicBool::new(false));
        let g = Arc::clone(&go);
        // SAFETY: the job borrows nothing.
        let spawned = unsafe {
            spawn_claimable(None, &claim, move |cancel: &AtomicBool| {
                while !g.load(Ordering::SeqCst) && !cancel.load(Ordering::SeqCst) {
                    std::thread::yield_now();
                }
                if cancel.load(Ordering::SeqCst) { 7 } else { 41 }
            })
        };
        assert!(spawned && worker_started(&claim));
        assert!(!claim.take_back());
        go.store(true, Ordering::SeqCst);
        assert_eq!(claim.wait(), Some(41));

        let claim = Arc::new(Claim::<u64>::new());
        // SAFETY: the job borrows nothing.
        let spawned = unsafe {
            spawn_claimable(None, &claim, move |cancel: &AtomicBool| {
                while !cancel.load(Ordering::SeqCst) {
                    std::thread::yield_now();
                }
                7
            })
        };
        assert!(spawned && worker_started(&claim));
        // Gives up: the worker is told to stop, and waited for.
        claim.give_up(spawned);
        assert!(claim.handoff.ready.load(Ordering::SeqCst));
    }

    /// A worker whose job panics hands over no result instead of leaving the caller waiting.
    #[test]
    fn claim_panicking_worker_hands_over_none() {
        let claim = Arc::new(Claim::<u8>::new());
        // SAFETY: the job borrows nothing.
        let spawned = unsafe { spawn_claimable(None, &claim, move |_: &AtomicBool| -> u8 { panic!("job failed") }) };
        assert!(spawned && worker_started(&claim));
        assert_eq!(claim.wait(), None);
    }

    /// The sections of every bundled cubin of one ISA, in file order.
    fn bundled(isa: Isa) -> Vec<Vec<u8>> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/nvidia/bin");
        let suffix = if isa == Isa::Sm50 { ".sm50.cubin" } else { ".sm86.cubin" };
        let mut names: Vec<_> = std::fs::read_dir(dir).expect("fixtures").filter_map(|e| e.ok()).map(|e| e.path()).collect();
        names.retain(|p| p.to_string_lossy().ends_with(suffix));
        names.sort();
        names.iter().map(|p| std::fs::read(p).expect("cubin")).collect()
    }

    /// The text of `listing_sections`, and the sequential text of the same sections.
    fn both(isa: Isa, sections: &[ListSection<'_>]) -> (Done, Done) {
        let plugin = isa.plugin();
        let mut par = Vec::new();
        let rp = listing_sections(plugin, sections, &mut |b| par.extend_from_slice(b));
        ((par, rp), sequential(isa, sections))
    }

    /// The listing of `sections` one section after the other, by `listing`, up to the first error.
    fn sequential(isa: Isa, sections: &[ListSection<'_>]) -> Done {
        let plugin = isa.plugin();
        let mut seq = Vec::new();
        let mut rs = Ok(());
        for (name, addr, data, labels) in sections {
            seq.extend_from_slice(format!("\nDisassembly of section {name}:\n").as_bytes());
            rs = listing(plugin, data, *addr, name, labels, &mut |b| seq.extend_from_slice(b));
            if rs.is_err() {
                break;
            }
        }
        (seq, rs)
    }

    /// [`nv_split`] at every cut [`nv_cut`] can give (every bundle / every fourth sm86
    /// instruction, and every cut at and around a label) gives the sequential text of each
    /// bundled cubin, and of all of an ISA's sections as one object; with a truncated section in
    /// either part, the same lines and the same error.
    #[test]
    fn cut_listing_gives_the_sequential_text() {
        for isa in [Isa::Sm50, Isa::Sm86] {
            let plugin = isa.plugin();
            let unit = if isa == Isa::Sm50 { crate::sm50::BUNDLE } else { 16 };
            let files = bundled(isa);
            let mut all: Vec<ListSection<'_>> = Vec::new();
            let mut objects: Vec<Vec<ListSection<'_>>> = Vec::new();
            for f in &files {
                let (_, s) = crate::elf::parse(f).expect("cubin");
                let s: Vec<ListSection<'_>> = s.into_iter().map(|s| (s.name, s.address, s.data, s.labels)).collect();
                all.extend(s.iter().cloned());
                objects.push(s);
            }
            objects.push(all);
            let all_at = objects.len() - 1;
            // Corpus code with every fifth 32-bit word random (instructions, odd forms and
            // `.long` / `.quad` lines) in three sections with labels at random instruction
            // starts, and one section holding all of it.
            let mut x = 0x9e37_79b9_7f4a_7c15u64 ^ unit as u64;
            let code: Vec<u8> = objects[all_at].iter().flat_map(|s| s.2.iter().copied()).take(3 * 64 * unit).collect();
            let noise: Vec<u8> = code
                .chunks(4)
                .enumerate()
                .flat_map(|(i, w)| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let r = if i % 5 == 4 { (x as u32).to_le_bytes() } else { [w[0], w[1], w[2], w[3]] };
                    r.into_iter()
                })
                .collect();
            assert_eq!(noise.len(), 3 * 64 * unit);
            let names = ["rand0", "rand1", "rand2"];
            let mut random: Vec<ListSection<'_>> = Vec::new();
            for (k, part) in noise.chunks(64 * unit).enumerate() {
                let mut at: Vec<(u64, &str)> =
                    (0..4u64).map(|j| (((x >> (8 * j)) % 64) * unit as u64 + if isa == Isa::Sm50 { 8 } else { 0 }, names[(k + j as usize) % 3])).collect();
                at.sort();
                at.dedup_by_key(|a| a.0);
                let labels = at.into_iter().map(|(offset, name)| Label { offset, name: std::borrow::Cow::Borrowed(name) }).collect();
                random.push((names[k], 0x1000 * k as u64, part, labels));
            }
            objects.push(random);
            objects.push(vec![(".text.noise", 0, &noise[..], Vec::new())]);
            let mut cuts_tried = 0;
            for (n, sections) in objects.iter().enumerate() {
                let (seq, rs) = sequential(isa, sections);
                assert!(rs.is_ok());
                if sections.first().is_some_and(|s| s.0 == "rand0") {
                    // The random sections list both instructions and words that are none, under
                    // their labels' headers.
                    let text = String::from_utf8_lossy(&seq);
                    let none = |l: &str| l.contains(".long 0x") || l.contains(".quad 0x");
                    assert!(text.contains(" <rand1>:\n") && text.lines().any(none), "{isa}: {text}");
                    assert!(text.lines().filter(|l| l.starts_with('\t') && !none(l)).count() > 20, "{isa}: {text}");
                }
                let total: usize = sections.iter().map(|s| s.2.len()).sum();
                // Label offsets in the concatenated code, to cut at and around them.
                let mut near = Vec::new();
                let mut before = 0usize;
                for s in sections {
                    for l in &s.3 {
                        let o = before + l.offset as usize;
                        near.extend([o.saturating_sub(unit), o, o + 1, o + unit]);
                    }
                    before += s.2.len();
                }
                let step = if n == all_at { total / 97 } else { unit * if isa == Isa::Sm50 { 1 } else { 4 } };
                let ats: Vec<usize> = (0..total).step_by(step.max(unit)).chain(near).collect();
                for at in ats {
                    let Some(cut) = nv_cut(plugin, sections, at) else { continue };
                    cuts_tried += 1;
                    let mut par = Vec::new();
                    let r = nv_split(plugin, sections, cut, &None, &mut |b| par.extend_from_slice(b));
                    assert!(r.is_ok(), "{isa} object {n} cut {cut:?}");
                    assert!(par == seq, "{isa} object {n} cut {cut:?}: {}", String::from_utf8_lossy(&par[..par.len().min(400)]));
                }
            }
            assert!(cuts_tried > 500, "{isa}: {cuts_tried} cuts");
            // An error in either part: the same lines before it, the same error.
            let mut sections = objects.swap_remove(all_at);
            assert!(sections.len() > 20, "{isa}: {} sections", sections.len());
            let k = sections.len() / 2;
            let short = sections[k].2.len() - 8;
            for cut in [(k / 2, 0), (k, 0), (k + 1 + (sections.len() - k) / 2, 0)] {
                let mut s = sections.clone();
                s[k].2 = &s[k].2[..short];
                let (seq, rs) = sequential(isa, &s);
                assert!(rs.is_err());
                let mut par = Vec::new();
                let r = nv_split(plugin, &s, cut, &None, &mut |b| par.extend_from_slice(b));
                assert_eq!(r, rs, "{isa} cut {cut:?}");
                assert!(par == seq, "{isa} cut {cut:?}");
            }
            // nv_cut refuses what is not whole instructions.
            sections[k].2 = &sections[k].2[..short];
            assert_eq!(nv_cut(plugin, &sections, 1000), None);
        }
    }

    #[test]
    fn two_threads_give_the_sequential_text() {
        for isa in [Isa::Sm50, Isa::Sm86] {
            let files = bundled(isa);
            let mut sections: Vec<ListSection<'_>> = Vec::new();
            for f in &files {
                let (_, s) = crate::elf::parse(f).expect("cubin");
                sections.extend(s.into_iter().map(|s| (s.name, s.address, s.data, s.labels)));
            }
            let bytes: usize = sections.iter().map(|s| s.2.len()).sum();
            assert!(bytes >= PARALLEL_MIN && sections.len() > 20, "{isa}: {bytes} bytes");
            let ((par, rp), (seq, rs)) = both(isa, &sections);
            assert!(rp.is_ok() && rs.is_ok());
            assert_eq!(par, seq, "{isa}");
            let text = String::from_utf8_lossy(&par);
            assert_eq!(text.matches("Disassembly of section").count(), sections.len());
            // An error in a middle section: the same lines before it, the same error.
            let k = sections.len() / 2;
            let cut = sections[k].2.len() - 8;
            sections[k].2 = &sections[k].2[..cut];
            let ((par, rp), (seq, rs)) = both(isa, &sections);
            assert!(rp.is_err());
            assert_eq!(rp, rs);
            assert_eq!(par, seq, "{isa}");
        }
    }
}
