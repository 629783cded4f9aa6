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
    if plugin.isa() == Isa::Sm50 {
        return disassemble_sm50(code, base, section, labels, f);
    }
    let unit = plugin.unit();
    if !code.len().is_multiple_of(unit) && plugin.isa() == Isa::Sm86 {
        let off = code.len() - code.len() % unit;
        return Err(DecodeError::Truncated { isa: Isa::Sm86, addr: base + off as u64, need: unit, have: code.len() % unit });
    }
    let mut off = 0usize;
    let mut text = String::with_capacity(128);
    let mut next_label = 0usize;
    let mut function = section;
    while off < code.len() {
        while next_label < labels.len() && labels[next_label].offset <= off as u64 {
            function = &labels[next_label].name;
            next_label += 1;
        }
        let addr = base + off as u64;
        text.clear();
        match plugin.decode(&code[off..], addr) {
            Ok(d) => {
                let n = d.len as usize;
                plugin.print(&d, addr, &mut text);
                let control = (plugin.isa() == Isa::Sm86)
                    .then(|| Control::sm86(crate::sm86::SM86.word(&d)));
                f(&Line { function, offset: off as u64, bytes: &code[off..off + n], text: &text, decoded: true, control });
                off += n;
            }
            Err(DecodeError::Unknown { word, .. }) => {
                let _ = write!(text, ".long 0x{word:08x}");
                f(&Line { function, offset: off as u64, bytes: &code[off..off + unit], text: &text, decoded: false, control: None });
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
    mut f: impl FnMut(&Line<'_>),
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
                    f(&Line { function, offset: off as u64, bytes, text: &text, decoded: true, control });
                }
                Err(DecodeError::Unknown { .. }) => {
                    let _ = write!(text, ".quad 0x{:016x}", le(bytes));
                    f(&Line { function, offset: off as u64, bytes, text: &text, decoded: false, control });
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

/// Appends `: DWORD DWORD ...`: the bytes as little-endian 32-bit words in upper-case hex (a
/// short last word is zero-extended).
fn push_words(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(b": ");
    for (i, c) in bytes.chunks(4).enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        let mut b = [0u8; 4];
        b[..c.len()].copy_from_slice(c);
        for &x in b.iter().rev() {
            out.extend_from_slice(&HEX_PAIRS[x as usize]);
        }
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
        Some(l) => (l.name.as_str(), l.offset),
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

/// Printed lines of the distinct instructions of a listing, keyed by the decoded instruction
/// (AMD text depends on nothing else, so equal instructions print equal lines).
struct Memo {
    /// Open-addressed slots: entry index + 1, 0 when empty; the length is a power of two.
    slots: Vec<u32>,
    /// The distinct instructions met so far.
    entries: Vec<MemoEntry>,
    /// Line templates of the entries, back to back.
    arena: Vec<u8>,
}

/// One distinct instruction and its line template.
struct MemoEntry {
    /// The instruction.
    key: Decoded,
    /// Start of its template in the arena: `\t`, padded text, `// `, 12 placeholder digits for
    /// the address, `: ` and the dwords (no note, no newline).
    start: u32,
    /// Template length.
    len: u32,
    /// Where the address digits go in the template.
    addr_at: u32,
    /// True when the instruction has a branch target (its line gets a note).
    branch: bool,
}

impl Memo {
    fn new() -> Memo {
        Memo { slots: vec![0; 1 << 12], entries: Vec::new(), arena: Vec::new() }
    }

    #[inline]
    fn hash(d: &Decoded) -> u64 {
        let w = &d.words;
        let a = (w[0] as u64 | (w[1] as u64) << 32).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let b = (w[2] as u64 | (w[3] as u64) << 32).wrapping_mul(0xc2b2_ae3d_27d4_eb4f);
        let c = (w[4] as u64 | (w[5] as u64) << 32 | (d.len as u64) << 56).wrapping_mul(0x1656_67b1_9e37_79f9);
        let h = a ^ b.rotate_left(21) ^ c.rotate_left(42);
        h ^ h >> 29
    }

    /// The index of `d`'s entry, printing it on first sight.
    #[inline]
    fn get(&mut self, plugin: &dyn IsaPlugin, d: &Decoded, bytes: &[u8], text: &mut String) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = Self::hash(d) as usize & mask;
        loop {
            match self.slots[i] {
                0 => break,
                s => {
                    if self.entries[s as usize - 1].key == *d {
                        return s as usize - 1;
                    }
                    i = (i + 1) & mask;
                }
            }
        }
        text.clear();
        plugin.print(d, 0, text);
        let start = self.arena.len();
        push_text(&mut self.arena, text);
        let addr_at = (self.arena.len() - start) as u32;
        self.arena.extend_from_slice(&[b'0'; 12]);
        push_words(&mut self.arena, bytes);
        let branch = plugin.branch_target(d, 0).is_some();
        let len = (self.arena.len() - start) as u32;
        self.entries.push(MemoEntry { key: *d, start: start as u32, len, addr_at, branch });
        self.slots[i] = self.entries.len() as u32;
        if self.entries.len() * 2 > self.slots.len() {
            self.grow();
        }
        self.entries.len() - 1
    }

    fn grow(&mut self) {
        let n = self.slots.len() * 2;
        let mut slots = vec![0u32; n];
        for (k, e) in self.entries.iter().enumerate() {
            let mut i = Self::hash(&e.key) as usize & (n - 1);
            while slots[i] != 0 {
                i = (i + 1) & (n - 1);
            }
            slots[i] = k as u32 + 1;
        }
        self.slots = slots;
    }
}

/// Writes the text listing of one section in llvm-objdump-22's layout into `out`: a header
/// line where the function changes, then one line per instruction with the branch-target note
/// of direct branches. `flush` is called with the buffer whenever it holds more than 64 KiB
/// (and may empty it). Errors as in [`disassemble`]; what was listed before stays in `out`.
pub fn listing(
    plugin: &dyn IsaPlugin,
    code: &[u8],
    base: u64,
    section: &str,
    labels: &[Label],
    out: &mut Vec<u8>,
    flush: &mut dyn FnMut(&mut Vec<u8>),
) -> Result<(), DecodeError> {
    const FLUSH_AT: usize = 1 << 16;
    if !matches!(plugin.isa(), Isa::Gfx1013 | Isa::Gfx1201) {
        // NVIDIA text reads the address (branch targets): no memo.
        let mut last: Option<String> = None;
        return disassemble(plugin, code, base, section, labels, |l| {
            let addr = base + l.offset;
            if last.as_deref() != Some(l.function) {
                push_header(out, addr, l.function);
                last = Some(l.function.to_string());
            }
            let target = if l.decoded {
                plugin.decode(l.bytes, addr).ok().and_then(|d| plugin.branch_target(&d, addr))
            } else {
                None
            };
            write_line(out, l.text, addr, l.bytes, "");
            if let Some(t) = target.and_then(|t| t.checked_sub(base)) {
                out.pop();
                push_branch_note(out, t, section, labels);
                out.push(b'\n');
            }
            if out.len() > FLUSH_AT {
                flush(out);
            }
        });
    }
    let mut memo = Memo::new();
    let mut text = String::with_capacity(128);
    let mut off = 0usize;
    let mut next_label = 0usize;
    let mut function = section;
    let mut last: Option<&str> = None;
    let mut changed = true;
    while off < code.len() {
        if next_label < labels.len() && labels[next_label].offset <= off as u64 {
            while next_label < labels.len() && labels[next_label].offset <= off as u64 {
                function = &labels[next_label].name;
                next_label += 1;
            }
            changed = true;
        }
        let addr = base + off as u64;
        // A header where the function's name changes (names are compared only at labels).
        if changed {
            if last != Some(function) {
                push_header(out, addr, function);
                last = Some(function);
            }
            changed = false;
        }
        match plugin.decode(&code[off..], addr) {
            Ok(d) => {
                let n = d.len as usize;
                let k = memo.get(plugin, &d, &code[off..off + n], &mut text);
                let e = &memo.entries[k];
                let at = out.len() + e.addr_at as usize;
                out.extend_from_slice(&memo.arena[e.start as usize..(e.start + e.len) as usize]);
                out[at..at + 12].copy_from_slice(&addr_digits(addr));
                if e.branch {
                    if let Some(t) = plugin.branch_target(&d, addr).and_then(|t| t.checked_sub(base)) {
                        push_branch_note(out, t, section, labels);
                    }
                }
                out.push(b'\n');
                off += n;
            }
            Err(DecodeError::Unknown { word, .. }) => {
                text.clear();
                let _ = write!(text, ".long 0x{word:08x}");
                write_line(out, &text, addr, &code[off..off + 4], "");
                off += 4;
            }
            Err(e) => return Err(e),
        }
        if out.len() > FLUSH_AT {
            flush(out);
        }
    }
    Ok(())
}
