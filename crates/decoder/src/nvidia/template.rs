//! The second level of the NVIDIA print memo: text templates with holes.
//!
//! Many instructions print the same text except for register numbers and hex immediates. A
//! template is the text of one instruction with those numbers cut out ("holes"); it is keyed by
//! the form, the reuse flags, the instruction bits outside the hole fields and, per hole, the
//! value classes a rule could tell apart (a register's zero name, a zero or power-of-two
//! immediate, an immediate's top bit: these keep the field out of the holes or go into the key).
//!
//! A field is a hole candidate of its form when the template prints it once, after the
//! mnemonic, and its bits belong to no other field and to no structural bit. A candidate stops
//! being one as soon as any print of the form reads it through [`super::Ctx`] (family rules,
//! float immediates): those reads are recorded per form (`FormInfo::read`).
//!
//! A template is made on its first miss: the instruction is printed the slow way (T), then a
//! copy whose holes hold other values of the same classes (T'); each hole's number is found in
//! T' (exactly once, as a whole token), the numbers are cut out, and the template filled with
//! the real values must give T byte for byte, else the key is remembered as not templatable.

use crate::spec::{NvField, NvForm, NvKind, NvPiece};

/// Most hole candidates per form.
pub const MAX_HOLES: usize = 8;

/// How a hole prints.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum HoleKind {
    /// A register-like number after a prefix (`R`, `UR`, `P`, `UP`, `B`), with the value that
    /// prints as a name instead (`RZ`, `PT`...), if any.
    Dec {
        /// The prefix before the digits.
        prefix: &'static str,
        /// The value with a name of its own.
        zero: Option<u64>,
    },
    /// A hex immediate (`0x..`, negative: `-0x..`).
    Hex {
        /// Two's complement of the field width.
        signed: bool,
        /// The printed number is the value times this.
        scale: u64,
    },
}

/// One hole candidate of a form.
#[derive(Clone, Copy, Debug)]
pub struct Cand {
    /// The field's index in the form.
    pub field: u8,
    /// How it prints.
    pub kind: HoleKind,
    /// The field's bits.
    pub mask: u128,
    /// The field's width.
    pub width: u32,
    /// The template leaves the field out when it is zero.
    pub omit_zero: bool,
    /// The field's parts (bit offset, count), least significant first.
    pub ranges: &'static [(u8, u8)],
    /// A field of one part: its offset (else `u8::MAX`).
    pub off: u8,
}

impl Cand {
    /// The field's value in `w` (a single part: one shift and mask).
    #[inline]
    pub fn get(&self, w: u128) -> u64 {
        if self.off != u8::MAX {
            return ((w >> self.off) as u64) & ((1u64 << self.width) - 1);
        }
        let mut v = 0u64;
        let mut shift = 0u32;
        for &(off, cnt) in self.ranges {
            v |= (((w >> off) as u64) & ((1u64 << cnt) - 1)) << shift;
            shift += cnt as u32;
        }
        v
    }
}

/// The hole candidates of `form` (`mnem_end`: the syntax piece where the operands start; none:
/// no candidates). `other_bits`: bits that may never be holes (scheduling bits).
pub fn candidates(form: &NvForm, mnem_end: Option<usize>, other_bits: u128) -> Box<[Cand]> {
    let Some(start) = mnem_end else { return Box::default() };
    // Per field: times printed, and whether before the operands.
    let mut printed = [0u8; 64];
    let mut early = 0u64;
    for (k, p) in form.pieces().enumerate() {
        if let NvPiece::Field(i) = p {
            if let Some(c) = printed.get_mut(i as usize) {
                *c = c.saturating_add(1);
                if k < start {
                    early |= 1 << i;
                }
            }
        }
    }
    // Bits of two or more fields.
    let (mut seen, mut shared) = (form.mask | other_bits, 0u128);
    for f in form.fields {
        let m = f.mask();
        shared |= seen & m;
        seen |= m;
    }
    let mut out = Vec::new();
    for (fi, f) in form.fields.iter().enumerate().take(64) {
        if out.len() == MAX_HOLES {
            break;
        }
        if fi as i32 == form.pred || fi as i32 == form.pred_neg || printed[fi] != 1 || early >> fi & 1 == 1 {
            continue;
        }
        let kind = match f.kind {
            NvKind::Reg => HoleKind::Dec { prefix: "R", zero: Some(255) },
            NvKind::UReg => HoleKind::Dec { prefix: "UR", zero: Some(63) },
            NvKind::Pred => HoleKind::Dec { prefix: "P", zero: Some(7) },
            NvKind::UPred => HoleKind::Dec { prefix: "UP", zero: Some(7) },
            NvKind::BReg => HoleKind::Dec { prefix: "B", zero: None },
            NvKind::UImm => HoleKind::Hex { signed: false, scale: u64::from(f.scale()) },
            NvKind::SImm => HoleKind::Hex { signed: true, scale: u64::from(f.scale()) },
            NvKind::Other => HoleKind::Hex { signed: false, scale: 1 },
            NvKind::Lookup | NvKind::FImm => continue,
        };
        let width = f.width();
        let min_width = if matches!(kind, HoleKind::Hex { .. }) { 4 } else { 2 };
        if width < min_width || width > 63 {
            continue;
        }
        if let HoleKind::Hex { scale, .. } = kind {
            if scale == 0 || !scale.is_power_of_two() {
                continue;
            }
        }
        let mask = f.mask();
        if shared & mask != 0 {
            continue;
        }
        let off = match f.ranges() {
            [(o, _)] if *o < 128 => *o,
            _ => u8::MAX,
        };
        out.push(Cand { field: fi as u8, kind, mask, width, omit_zero: f.omit_zero(), ranges: f.ranges(), off });
    }
    out.into()
}

/// A hole's value as printed: the number written into the template, and whether the value is
/// special (then the field is no hole for this instruction) and its class bit (top bit of an
/// immediate field). Special: a register's name value (`RZ`, `PT`...), zero where the template
/// leaves the field out; an immediate of zero, a power of two or all ones.
#[inline]
pub fn hole_value(c: &Cand, v: u64) -> (u64, bool, bool) {
    match c.kind {
        HoleKind::Dec { zero, .. } => (v, zero == Some(v) || (c.omit_zero && v == 0), false),
        HoleKind::Hex { signed, scale } => {
            let top = v >> (c.width - 1) & 1 == 1;
            let p = if signed && top { (v as i64 - (1i64 << c.width)).wrapping_mul(scale as i64).unsigned_abs() } else { v.wrapping_mul(scale) };
            // Zero, one, powers of two and all ones: rules tell some of them apart (IMAD
            // aliases, a full channel mask).
            let all = v == (1u64 << c.width) - 1;
            (p, p == 0 || p.is_power_of_two() || all, top)
        }
    }
}

/// One cut of a template: the literal text ends at byte `at`, then hole `hole`'s number.
#[derive(Clone, Copy)]
pub struct Slot {
    /// End of the literal before the number (offset in the template's literal text).
    pub at: u16,
    /// Which hole (index into the form's candidates).
    pub hole: u8,
    /// Hex digits (else decimal).
    pub hex: bool,
}

/// A remembered template key.
#[derive(Clone, Copy, Default)]
pub struct Entry {
    /// The instruction bits outside the holes (0 for an empty entry).
    pub key: u128,
    /// ISA size, form, reuse flags, valid bit (as the exact memo's tag).
    pub tag: u64,
    /// Active holes (bits 0-7) and their class bits (8-15).
    pub holes: u32,
    /// The literal text: start in `Templates::lits`, length.
    pub lit: (u32, u16),
    /// The cuts: start in `Templates::slots`, count.
    pub slots: (u32, u8),
    /// False: the key is not templatable (print the slow way).
    pub ok: bool,
    /// Seen once: `lit` holds that instruction's whole text, `first` indexes its hole numbers
    /// in `Templates::firsts` (the second instance with other numbers makes the template).
    pub pending: bool,
    /// See `pending`.
    pub first: u32,
}

/// All templates of a printer (`super::NvPrinter`).
#[derive(Default)]
pub struct Templates {
    /// Open-addressed table (power-of-two size, at most half full).
    pub table: Vec<Entry>,
    /// Entries in use.
    pub used: usize,
    /// Literal text of every template.
    pub lits: String,
    /// Cuts of every template.
    pub slots: Vec<Slot>,
    /// Hole numbers of the first instance of each pending key.
    pub firsts: Vec<[u64; MAX_HOLES]>,
    /// Counters: (templates made, keys not templatable, template hits, template misses).
    pub stats: [u64; 4],
}

/// Slack after every literal in `Templates::lits` (fixed-size copies read past its end).
pub const LIT_PAD: usize = 16;

/// [`LIT_PAD`] spaces.
const PAD: &str = "                ";

/// `Templates::fill`'s stack buffer.
const FILL_BUF: usize = 256;

/// Copies `len` bytes of `src` from `at` to `buf[n..]` in 16-byte blocks (both have slack);
/// returns the new end.
#[inline(always)]
fn copy_piece(buf: &mut [u8; FILL_BUF], n: usize, src: &[u8], at: usize, len: usize) -> usize {
    let mut k = 0usize;
    while k < len {
        let (Some(d), Some(s)) = (buf.get_mut(n + k..n + k + 16), src.get(at + k..at + k + 16)) else { break };
        d.copy_from_slice(s);
        k += 16;
    }
    n + len
}

/// Writes `v` in decimal at `buf[n..]`; returns the new end.
#[inline(always)]
fn put_dec(buf: &mut [u8; FILL_BUF], n: usize, v: u64) -> usize {
    if v < 10 {
        if let Some(b) = buf.get_mut(n) {
            *b = b'0' + v as u8;
        }
        return n + 1;
    }
    if v < 100 {
        if let Some(b) = buf.get_mut(n..n + 2) {
            b[0] = b'0' + (v / 10) as u8;
            b[1] = b'0' + (v % 10) as u8;
        }
        return n + 2;
    }
    let mut t = [0u8; 20];
    let d = number(&mut t, v, false);
    if let Some(b) = buf.get_mut(n..n + d.len()) {
        b.copy_from_slice(d.as_bytes());
    }
    n + d.len()
}

/// Writes `v`'s hex digits at `buf[n..]`; returns the new end.
#[inline(always)]
fn put_hex(buf: &mut [u8; FILL_BUF], n: usize, v: u64) -> usize {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let k = (64 - v.leading_zeros()).div_ceil(4).max(1) as usize;
    if let Some(b) = buf.get_mut(n..n + k) {
        for (j, d) in b.iter_mut().enumerate() {
            *d = HEX[(v >> (4 * (k - 1 - j)) & 0xf) as usize];
        }
    }
    n + k
}

/// Most entries a printer keeps (then `Templates::bound` starts over).
const MAX_ENTRIES: usize = 1 << 20;

/// Most bytes of template text a printer keeps.
const MAX_TEXT: usize = 64 << 20;

/// Initial table size (log2).
const MIN_BITS: u32 = 8;

#[inline]
fn hash(key: u128, tag: u64, holes: u32) -> u64 {
    (key as u64 ^ ((key >> 64) as u64).rotate_left(29) ^ tag.rotate_left(41) ^ u64::from(holes)).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

impl Templates {
    /// Forgets every template when the store has grown past its bounds (a long-running
    /// process printing ever new instructions); call it where no slot index is held.
    #[inline]
    pub fn bound(&mut self) {
        if self.used > MAX_ENTRIES || self.lits.len() > MAX_TEXT {
            self.table.clear();
            self.used = 0;
            self.lits.clear();
            self.slots.clear();
            self.firsts.clear();
        }
    }

    /// The slot of a key's entry, if any.
    #[inline]
    pub fn find(&self, key: u128, tag: u64, holes: u32) -> Option<usize> {
        let n = self.table.len();
        if n == 0 {
            return None;
        }
        let mut i = (hash(key, tag, holes) >> (64 - n.trailing_zeros())) as usize;
        loop {
            let e = self.table.get(i)?;
            if e.tag == 0 {
                return None;
            }
            if e.key == key && e.tag == tag && e.holes == holes {
                return Some(i);
            }
            i = (i + 1) & (n - 1);
        }
    }

    /// Adds an entry, or replaces the one of its key in slot `at`.
    pub fn put(&mut self, at: Option<usize>, e: Entry) {
        match at.and_then(|i| self.table.get_mut(i)) {
            Some(x) => *x = e,
            None => self.insert(e),
        }
    }

    /// Remembers the first instance of a key: its text `t` and hole numbers `vals`.
    pub fn remember(&mut self, key: u128, tag: u64, holes: u32, vals: &[u64; MAX_HOLES], t: &str) {
        if t.len() >= u16::MAX as usize || self.firsts.len() >= u32::MAX as usize {
            return;
        }
        let lit = (self.lits.len() as u32, t.len() as u16);
        self.lits.push_str(t);
        self.lits.push_str(PAD);
        self.firsts.push(*vals);
        let first = (self.firsts.len() - 1) as u32;
        self.insert(Entry { key, tag, holes, lit, ok: true, pending: true, first, ..Entry::default() });
    }

    /// The text and hole numbers of a pending entry.
    pub fn first(&self, e: &Entry) -> (&str, [u64; MAX_HOLES]) {
        let t = self.lits.get(e.lit.0 as usize..e.lit.0 as usize + e.lit.1 as usize).unwrap_or("");
        (t, self.firsts.get(e.first as usize).copied().unwrap_or([u64::MAX; MAX_HOLES]))
    }

    /// Adds an entry (the key must not be in the table yet).
    fn insert(&mut self, e: Entry) {
        if self.table.is_empty() {
            self.table = vec![Entry::default(); 1 << MIN_BITS];
        }
        if 2 * (self.used + 1) > self.table.len() {
            let n = self.table.len() * 2;
            let old = std::mem::replace(&mut self.table, vec![Entry::default(); n]);
            self.used = 0;
            for x in old.into_iter().filter(|x| x.tag != 0) {
                self.place(x);
            }
        }
        self.place(e);
    }

    fn place(&mut self, e: Entry) {
        let n = self.table.len();
        let mut i = (hash(e.key, e.tag, e.holes) >> (64 - n.trailing_zeros())) as usize;
        while self.table.get(i).is_some_and(|x| x.tag != 0) {
            i = (i + 1) & (n - 1);
        }
        if let Some(x) = self.table.get_mut(i) {
            *x = e;
            self.used += 1;
        }
    }

    /// Remembers a key as not templatable (`at`: its pending entry).
    pub fn refuse(&mut self, at: Option<usize>, key: u128, tag: u64, holes: u32) {
        self.stats[1] += 1;
        self.put(at, Entry { key, tag, holes, ok: false, ..Entry::default() });
    }

    /// Appends the text of template `e` with the hole numbers `vals` to `out`: built in a
    /// stack buffer with fixed-size copies (every literal in `lits` is followed by
    /// [`LIT_PAD`] bytes of slack), appended once.
    #[inline]
    pub fn fill(&self, e: &Entry, vals: &[u64; MAX_HOLES], out: &mut String) {
        let slots = self.slots.get(e.slots.0 as usize..e.slots.0 as usize + e.slots.1 as usize).unwrap_or(&[]);
        let lits = self.lits.as_bytes();
        let base = e.lit.0 as usize;
        let len = e.lit.1 as usize;
        if len + 20 * slots.len() + 2 * LIT_PAD > FILL_BUF || base + len + LIT_PAD > lits.len() {
            return self.fill_slow(e, vals, out);
        }
        let mut buf = [0u8; FILL_BUF];
        let mut n = 0usize;
        let mut pos = 0usize;
        for s in slots {
            let end = (s.at as usize).min(len);
            n = copy_piece(&mut buf, n, lits, base + pos, end.saturating_sub(pos));
            let v = vals.get(s.hole as usize).copied().unwrap_or(0);
            n = if s.hex { put_hex(&mut buf, n, v) } else { put_dec(&mut buf, n, v) };
            pos = end;
        }
        n = copy_piece(&mut buf, n, lits, base + pos, len.saturating_sub(pos));
        out.push_str(super::ascii_or_utf8(buf.get(..n).unwrap_or(&[])).unwrap_or(""));
    }

    /// [`Templates::fill`] piece by piece (texts too long for its buffer).
    fn fill_slow(&self, e: &Entry, vals: &[u64; MAX_HOLES], out: &mut String) {
        let lits = self.lits.get(e.lit.0 as usize..e.lit.0 as usize + e.lit.1 as usize).unwrap_or("");
        let slots = self.slots.get(e.slots.0 as usize..e.slots.0 as usize + e.slots.1 as usize).unwrap_or(&[]);
        let mut pos = 0usize;
        for s in slots {
            out.push_str(lits.get(pos..s.at as usize).unwrap_or(""));
            let v = vals.get(s.hole as usize).copied().unwrap_or(0);
            if s.hex {
                push_hex_digits(out, v);
            } else {
                super::push_dec(out, v);
            }
            pos = s.at as usize;
        }
        out.push_str(lits.get(pos..).unwrap_or(""));
    }

    /// Whether template `e` filled with `vals` gives `t`.
    fn fills_to(&self, e: &Entry, vals: &[u64; MAX_HOLES], t: &str) -> bool {
        let lits = self.lits.get(e.lit.0 as usize..e.lit.0 as usize + e.lit.1 as usize).unwrap_or("");
        let slots = self.slots.get(e.slots.0 as usize..e.slots.0 as usize + e.slots.1 as usize).unwrap_or(&[]);
        let (mut pos, mut rest) = (0usize, t);
        let mut buf = [0u8; 20];
        for s in slots {
            let lit = lits.get(pos..s.at as usize).unwrap_or("");
            let num = number(&mut buf, vals.get(s.hole as usize).copied().unwrap_or(0), s.hex);
            let Some(r) = rest.strip_prefix(lit).and_then(|r| r.strip_prefix(num)) else { return false };
            rest = r;
            pos = s.at as usize;
        }
        rest == lits.get(pos..).unwrap_or("")
    }

    /// Makes the template of `tp` (the text with perturbed hole numbers `pvals`, of kinds
    /// `kinds`; holes not in `active` are absent) and checks that filled with `vals` it gives
    /// `t`; adds the entry (in slot `at` when the key has one) and returns true, else changes
    /// nothing and returns false.
    #[allow(clippy::too_many_arguments)]
    pub fn make(&mut self, at: Option<usize>, key: u128, tag: u64, holes: u32, cands: &[Cand], pvals: &[u64; MAX_HOLES], vals: &[u64; MAX_HOLES], tp: &str, t: &str) -> bool {
        let mut cuts: Vec<(usize, usize, u8, bool)> = Vec::with_capacity(MAX_HOLES);
        let mut ok = tp.len() < u16::MAX as usize;
        for (h, c) in cands.iter().enumerate() {
            if !ok {
                break;
            }
            if holes >> h & 1 == 0 {
                continue;
            }
            let (prefix, hex) = match c.kind {
                HoleKind::Dec { prefix, .. } => (prefix, false),
                HoleKind::Hex { .. } => ("0x", true),
            };
            let mut buf = [0u8; 20];
            let digits = number(&mut buf, pvals[h], hex);
            match find_token(tp, prefix, digits, hex) {
                Some(at) => cuts.push((at + prefix.len(), digits.len(), h as u8, hex)),
                None => ok = false,
            }
        }
        cuts.sort_by_key(|c| c.0);
        ok &= cuts.windows(2).all(|w| w[0].0 + w[0].1 <= w[1].0);
        let lit_start = self.lits.len();
        let slot_start = self.slots.len();
        if ok {
            let mut pos = 0usize;
            for &(at, len, hole, hex) in &cuts {
                self.lits.push_str(tp.get(pos..at).unwrap_or(""));
                self.slots.push(Slot { at: (self.lits.len() - lit_start) as u16, hole, hex });
                pos = at + len;
            }
            self.lits.push_str(tp.get(pos..).unwrap_or(""));
        }
        let e = Entry {
            key,
            tag,
            holes,
            lit: (lit_start as u32, (self.lits.len() - lit_start) as u16),
            slots: (slot_start as u32, (self.slots.len() - slot_start) as u8),
            ok,
            pending: false,
            first: 0,
        };
        if ok {
            // Filled with the real numbers it must give T: compare piece by piece.
            ok = self.fills_to(&e, vals, t);
        }
        if !ok {
            self.lits.truncate(lit_start);
            self.slots.truncate(slot_start);
            return false;
        }
        self.lits.push_str(PAD);
        self.stats[0] += 1;
        self.put(at, e);
        true
    }
}

/// The digits of `v` (hex or decimal) in `buf`.
fn number(buf: &mut [u8; 20], v: u64, hex: bool) -> &str {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let (base, mut v) = (if hex { 16 } else { 10 }, v);
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = HEX[(v % base) as usize];
        v /= base;
        if v == 0 || i == 0 {
            break;
        }
    }
    std::str::from_utf8(&buf[i..]).unwrap_or("")
}

/// The position of the only whole-token occurrence of `prefix` + `digits` in `s` (not inside a
/// longer name or number), None when there is none or more than one.
fn find_token(s: &str, prefix: &str, digits: &str, hex: bool) -> Option<usize> {
    let b = s.as_bytes();
    let n = prefix.len() + digits.len();
    let mut found = None;
    let mut i = 0usize;
    let first = prefix.as_bytes().first().copied().unwrap_or(0);
    while i + n <= b.len() {
        if b[i] == first && b[i..].starts_with(prefix.as_bytes()) && b[i + prefix.len()..].starts_with(digits.as_bytes()) {
            let before = i.checked_sub(1).map(|j| b[j]);
            let after = b.get(i + n).copied();
            let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
            let clean_before = !before.is_some_and(word);
            let clean_after = !after.is_some_and(|c| word(c) || (hex && c.is_ascii_hexdigit()));
            if clean_before && clean_after {
                if found.is_some() {
                    return None;
                }
                found = Some(i);
            }
        }
        i += 1;
    }
    found
}

/// Appends lower-case hex digits of `v` (no `0x`).
#[inline]
pub fn push_hex_digits(out: &mut String, v: u64) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let n = (64 - v.leading_zeros()).div_ceil(4).max(1) as usize;
    let mut b = [0u8; 16];
    for (k, d) in b[..n].iter_mut().enumerate() {
        *d = HEX[(v >> (4 * (n - 1 - k)) & 0xf) as usize];
    }
    out.push_str(std::str::from_utf8(&b[..n]).unwrap_or(""));
}

/// A value for hole `c` other than `real`, of the same class (not special, the same top bit),
/// not in `avoid`; `seed` picks among several.
pub fn perturb(c: &Cand, real: u64, avoid: &[u64], seed: u32) -> Option<u64> {
    const DEC: [u64; 12] = [173, 46, 219, 38, 131, 59, 204, 26, 157, 53, 242, 11];
    const PRED: [u64; 7] = [5, 3, 6, 1, 4, 2, 0];
    const PAT: [u64; 4] = [0x5a3c_96e1_2d4b_78f1, 0x2b7d_4e95_c3a1_6f3d, 0x63e5_a7d9_1b2f_4c87, 0x1d9b_3f57_e6a4_c2b5];
    let top = c.width - 1;
    let fits = |v: u64| v >> c.width == 0;
    let (_, special, cls) = hole_value(c, real);
    if special {
        return None;
    }
    let good = |v: u64| {
        let (_, s, k) = hole_value(c, v);
        fits(v) && !s && k == cls && v != real && !avoid.contains(&v)
    };
    match c.kind {
        HoleKind::Dec { .. } => {
            let list: &[u64] = if c.width <= 3 { &PRED } else { &DEC };
            let n = list.len();
            (0..n).map(|k| list[(k + seed as usize) % n]).chain(0..(1u64 << c.width.min(12))).find(|&v| good(v))
        }
        HoleKind::Hex { .. } => (0..8u32)
            .map(|k| {
                let p = PAT[((k + seed) % 4) as usize].rotate_left(7 * k);
                let low = if top == 0 { 0 } else { p & ((1u64 << top) - 1) };
                low | u64::from(cls) << top
            })
            .find(|&v| good(v)),
    }
}

/// The field a hole stands for.
#[inline]
pub fn field<'a>(form: &'a NvForm, c: &Cand) -> Option<&'a NvField> {
    form.fields.get(c.field as usize)
}
