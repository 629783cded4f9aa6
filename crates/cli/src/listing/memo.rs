//! The memo of an AMD listing: the printed line of every distinct instruction, as a template
//! the listing copies with the address filled in.

use super::line::{dword_text, TEXT_COLUMN};
use super::PARALLEL_MIN;
use isabridge_decoder::disasm::listed_target;
use isabridge_decoder::{Decoded, IsaPlugin};

/// A table of `n` copies of `zero` (an all-zero value) whose pages are written at once, for
/// tables that are read before they are written (hash tables looked up before they are
/// filled). Zeroed memory from the allocator would be faulted twice per page there: the first
/// read maps the kernel's shared zero page, the first write then copies it.
pub(super) fn written_table<T: Copy>(n: usize, zero: T) -> Vec<T> {
    let mut v = vec![zero; n];
    // A write per page: the compiler turns a plain zero fill back into a zeroed allocation and
    // drops stores of zero into one, so the value stored is hidden from it (`black_box`).
    let step = (4096 / std::mem::size_of::<T>().max(1)).max(1);
    for e in v.iter_mut().step_by(step) {
        *e = std::hint::black_box(zero);
    }
    v
}

/// Printed lines of the distinct instructions of a listing, keyed by the instruction's bytes
/// (AMD text depends on nothing else, so equal instructions print equal lines). Kept small:
/// every byte of it is fresh memory, and on the development VM a fresh page costs about as
/// much as printing three instructions.
pub(super) struct Memo {
    /// Open-addressed slots: entry index + 1, 0 when empty; the length is a power of two.
    pub(super) slots: Vec<u32>,
    /// The distinct instructions met so far.
    pub(super) entries: Vec<MemoEntry>,
    /// Compact line templates of the entries, back to back, then [`ARENA_SLACK`] bytes of
    /// slack (a template is read as one fixed-size window): each the tab and the text, then the
    /// tail after the address digits (`:`, the dwords, the newline when the line has no note).
    /// The padding, `// ` and the digits are not stored: a line is put together from these
    /// two parts, a block of spaces and the address.
    pub(super) arena: Vec<u8>,
    /// Per (instruction, encoding) index, a bit: set when known to have no branch target (bits,
    /// not bools: grown to gfx12's 2,400-odd indices by doubling, a `Vec<bool>` wrote two fresh
    /// pages per thread).
    pub(super) no_target: Vec<u64>,
    /// Printed text of the instruction being inserted (reused).
    pub(super) text: String,
    /// Its comment (see `IsaPlugin::print_noted`; reused).
    pub(super) note: String,
}

/// Longest line template the memo holds (a longer one is printed at every occurrence).
pub(super) const TEMPLATE_MAX: usize = 128;

/// Bytes of the arena read for one template: its text (at most 128 bytes), then a block of 64
/// from the tail's start.
pub(super) const ARENA_SLACK: usize = 192;

/// Spaces that pad a memoised line's text, then `// ` at a variable place over them.
pub(super) const SPACES: [u8; 64] = [b' '; 64];

/// The layout of the line template of an instruction printed as `text` with `n` bytes: `\t`,
/// the text padded to [`TEXT_COLUMN`], `// `, 12 digits, `:` and the dwords, then a newline when
/// `newline`. Returns the line's length and where the digits go; None when it is longer than
/// [`TEMPLATE_MAX`] (or there are no bytes).
#[inline]
pub(super) fn template_shape(text: &str, n: usize, newline: bool) -> Option<(usize, usize)> {
    let head = 1 + text.len().max(TEXT_COLUMN);
    let len = head + 3 + 12 + 1 + 9 * n.div_ceil(4) + newline as usize;
    (n != 0 && len <= TEMPLATE_MAX).then_some((len, head + 3))
}

/// Writes the part of a line template after the address digits into `out` (as long as that
/// part): `:`, each dword as [`push_words`] writes it, then a newline when `newline`.
#[inline]
pub(super) fn template_tail(out: &mut [u8], bytes: &[u8], newline: bool) {
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
pub(super) struct MemoEntry {
    /// Its first three words (zero past its length): the key, with `ilen` and, for longer
    /// instructions, the bytes after them at `at`.
    pub(super) key: [u32; 3],
    /// Section offset of its first occurrence.
    pub(super) at: u32,
    /// Start of its compact template in the arena (see [`Memo::arena`]).
    pub(super) start: u32,
    /// Line length (at most [`TEMPLATE_MAX`]).
    pub(super) len: u8,
    /// Where the address digits go in the line (below [`TEMPLATE_MAX`] - 12).
    pub(super) addr_at: u8,
    /// Length of the tab and text (below [`TEMPLATE_MAX`]); the tail follows them.
    pub(super) tl: u8,
    /// Instruction length in bytes.
    pub(super) ilen: u8,
    /// [`BRANCH_REL`] when the line gets the note of a branch target at the instruction's
    /// address plus `rel`; [`BRANCH_ASK`] when the plugin must be asked for each occurrence.
    pub(super) branch: u8,
    /// Branch target minus the instruction's address (wrapping).
    pub(super) rel: i32,
}

/// [`MemoEntry::branch`]: no branch target.
pub(super) const BRANCH_NONE: u8 = 0;

/// [`MemoEntry::branch`]: the target is the address plus `rel`.
pub(super) const BRANCH_REL: u8 = 1;

/// [`MemoEntry::branch`]: ask the plugin.
pub(super) const BRANCH_ASK: u8 = 2;

impl Memo {
    /// An empty memo for a section of `code_len` bytes. The arena starts at 256 KiB (or room
    /// for every instruction being distinct, if less): above the allocator's mapping threshold,
    /// so that growing it remaps its pages instead of copying them; the table starts small.
    pub(super) fn new(code_len: usize) -> Memo {
        let n = (code_len / 4).min(1 << 20);
        let mut arena = Vec::with_capacity((n * 64 + ARENA_SLACK).min(256 << 10));
        arena.resize(ARENA_SLACK, 0);
        Memo {
            // Large sections start where a few thousand distinct instructions fit, without the
            // chain of smaller tables growth would leave behind.
            slots: super::memo::written_table(if code_len >= PARALLEL_MIN { 1 << 12 } else { 1 << 10 }, 0),
            entries: Vec::with_capacity(n.min(8 << 10)),
            arena,
            no_target: Vec::new(),
            text: String::with_capacity(128),
            note: String::new(),
        }
    }

    #[inline(always)]
    pub(super) fn hash(w: &[u32; 3], len: u8) -> u64 {
        let a = (w[0] as u64 | (w[1] as u64) << 32).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let b = (w[2] as u64 | (len as u64) << 32).wrapping_mul(0xc2b2_ae3d_27d4_eb4f);
        // Fibonacci hashing: the slot is taken from the well-mixed high bits.
        (a ^ b.rotate_left(29)).wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }

    /// The first three words of `d`.
    #[inline(always)]
    pub(super) fn key(d: &Decoded) -> [u32; 3] {
        [d.words[0], d.words[1], d.words[2]]
    }

    /// The first slot of hash `h` in a table of `n` (a power of two) slots.
    #[inline(always)]
    pub(super) fn slot(h: u64, n: usize) -> usize {
        (h >> (64 - n.trailing_zeros())) as usize
    }

    /// True when the instruction at `at` in `code` is `d`, past its first 12 bytes.
    #[inline(never)]
    pub(super) fn same_tail(code: &[u8], at: usize, d: &Decoded) -> bool {
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
    pub(super) fn get(&mut self, plugin: &dyn IsaPlugin, code: &[u8], off: usize, d: &Decoded) -> Option<usize> {
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
    pub(super) fn insert(&mut self, plugin: &dyn IsaPlugin, code: &[u8], off: usize, d: &Decoded, i: usize) -> Option<usize> {
        let n = d.len as usize;
        let bytes = code.get(off..off + n)?;
        // Whether an AMD instruction has a target depends on its (instruction, encoding) entry
        // only: the plugin is asked once per entry that has none.
        let ie = d.ienc as usize;
        let known_none = self.no_target.get(ie / 64).is_some_and(|w| w >> (ie % 64) & 1 != 0);
        let (branch, rel) = match if known_none { None } else { listed_target(plugin, d, 0) } {
            None => {
                if self.no_target.len() <= ie / 64 {
                    self.no_target.resize(ie / 64 + 1, 0);
                }
                self.no_target[ie / 64] |= 1 << (ie % 64);
                (BRANCH_NONE, 0)
            }
            // PC-relative (as AMD branches are): the same distance from another address.
            Some(t) if i32::try_from(t as i64).is_ok() && listed_target(plugin, d, 1 << 40) == Some((1u64 << 40).wrapping_add(t)) => {
                (BRANCH_REL, t as i64 as i32)
            }
            Some(_) => (BRANCH_ASK, 0),
        };
        self.text.clear();
        plugin.print_noted(d, 0, &mut self.text, &mut self.note);
        if !self.note.is_empty() {
            // (a line with a comment is printed at each occurrence)
            self.note.clear();
            return None;
        }
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
    pub(super) fn grow(&mut self) {
        let n = self.slots.len() * 2;
        let mut slots = super::memo::written_table(n, 0u32);
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
    pub(super) fn block(&self, e: &MemoEntry) -> Option<&[u8; ARENA_SLACK]> {
        let s = e.start as usize;
        self.arena.get(s..s + ARENA_SLACK).and_then(|b| b.try_into().ok())
    }
}
