//! Shared NVIDIA SASS code: the plugin over spec-generated form tables, template printing,
//! scheduling (control) fields and float immediates. The per-family rules that the templates
//! alone cannot express live in `crate::sm50` and `crate::sm86`.

pub mod build;
pub mod control;
pub mod float;
pub mod model;
pub mod rules;
pub mod template;
pub mod tree;

use crate::spec::{NvField, NvForm, NvKind, NvPiece, NvTables};
use crate::{DecodeError, Decoded, Isa, IsaPlugin};

/// Everything a printer rule may look at: the form, the instruction bits, its address.
#[derive(Clone, Copy)]
pub struct Ctx<'a> {
    /// Tables of the ISA.
    pub t: &'static NvTables,
    /// The instruction's form.
    pub form: &'static NvForm,
    /// The instruction (sm50: the 64-bit word in the low half); rules read it through
    /// [`Ctx::get`], [`Ctx::bits`], [`Ctx::value`] or [`Ctx::word`], which record the bits read
    /// (fields a rule reads are never template holes).
    w: u128,
    /// Address of the instruction; rules read it through [`Ctx::addr`], which marks the text as
    /// address-dependent for the print memo.
    pc: u64,
    /// Reuse flags (bit k: operand slot k), 0 when unknown.
    pub reuse: u8,
    /// Which ISA.
    pub isa: Isa,
    /// The base mnemonic (see [`Ctx::inst`]; the rules ask for it many times per instruction).
    name: &'static str,
    /// What the print of this instruction has read so far (see [`Ctx::word`], [`Ctx::addr`]).
    track: &'a ReadTrack,
}

/// What printing one instruction read through [`Ctx`]: instruction bits and whether the
/// address (the print memo keys the text by what it depends on).
#[derive(Default)]
struct ReadTrack {
    /// Instruction bits read.
    bits: std::cell::Cell<u128>,
    /// The address was read.
    addr: std::cell::Cell<bool>,
}

impl Ctx<'_> {
    /// Value of the field `name`, if the form has it.
    #[inline]
    pub fn get(&self, name: &str) -> Option<u64> {
        self.form.field(name).map(|f| self.value(f))
    }
    /// Value of field `f` (a field of this form).
    #[inline]
    pub fn value(&self, f: &NvField) -> u64 {
        self.mark_read(f.mask());
        f.get(self.w)
    }
    /// Raw bits [off, off+n) of the instruction.
    #[inline]
    pub fn bits(&self, off: u32, n: u32) -> u64 {
        let m = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
        self.mark_read((m as u128).checked_shl(off).unwrap_or(0));
        (self.w.checked_shr(off).unwrap_or(0) as u64) & m
    }
    /// The whole instruction (marks every bit as read).
    #[inline]
    pub fn word(&self) -> u128 {
        self.mark_read(u128::MAX);
        self.w
    }
    /// Address of the instruction (marks the printed text as depending on it: the print memo
    /// then keys it by address too).
    #[inline]
    pub fn addr(&self) -> u64 {
        self.track.addr.set(true);
        self.pc
    }
    /// Base mnemonic.
    #[inline]
    pub fn inst(&self) -> &'static str {
        self.name
    }
}

/// A printed instruction in pieces, so that family rules can edit it.
#[derive(Debug, Default, Clone)]
pub struct Text {
    /// `@P0 ` or empty.
    pub guard: String,
    /// Mnemonic with its suffixes.
    pub mnem: String,
    /// Operands.
    pub ops: Vec<String>,
}

impl Text {
    /// Appends `guard mnem op, op, ...` to `out`.
    pub fn write(&self, out: &mut String) {
        out.push_str(&self.guard);
        out.push_str(&self.mnem);
        for (i, o) in self.ops.iter().enumerate() {
            out.push_str(if i == 0 { " " } else { ", " });
            out.push_str(o);
        }
        while out.ends_with(' ') {
            out.pop();
        }
    }
    /// True when the mnemonic has the suffix `.s` (given without the dot).
    pub fn has(&self, s: &str) -> bool {
        self.suffix(s).is_some()
    }
    /// Removes the first suffix `.s`.
    pub fn remove(&mut self, s: &str) -> bool {
        match self.suffix(s) {
            Some((dot, end)) => {
                self.mnem.replace_range(dot..end, "");
                true
            }
            None => false,
        }
    }
    /// The byte range of the first suffix `.s`, its dot included.
    fn suffix(&self, s: &str) -> Option<(usize, usize)> {
        let m = self.mnem.as_bytes();
        let mut dot = m.iter().position(|&b| b == b'.')?;
        loop {
            let end = m[dot + 1..].iter().position(|&b| b == b'.').map_or(m.len(), |e| dot + 1 + e);
            if &m[dot + 1..end] == s.as_bytes() {
                return Some((dot, end));
            }
            if end == m.len() {
                return None;
            }
            dot = end;
        }
    }

    /// Empties the text, keeping the operand strings' buffers in `pool` for reuse.
    fn recycle(&mut self, pool: &mut Vec<String>) {
        self.guard.clear();
        self.mnem.clear();
        for mut o in self.ops.drain(..) {
            o.clear();
            pool.push(o);
        }
    }
}

/// `b` as text. nvdisasm's text is ASCII, which is checked a word at a time instead of being
/// decoded (a quarter of a template fill's cost); anything else goes through the UTF-8 check.
/// Why the library has this `unsafe`: memo hits and template fills, the printer's hot path on
/// long listings, turn copied bytes back into text for every instruction, and the UTF-8
/// decoder's byte-at-a-time pass over short texts costs more than the ASCII word check; the
/// check right before it is what makes the conversion sound, whatever the bytes are.
#[inline]
fn ascii_or_utf8(b: &[u8]) -> Result<&str, std::str::Utf8Error> {
    if b.is_ascii() {
        // SAFETY: ASCII bytes are valid UTF-8.
        Ok(unsafe { std::str::from_utf8_unchecked(b) })
    } else {
        std::str::from_utf8(b)
    }
}

/// Marker placed after a register whose reuse flag is set; becomes `.reuse`.
const REUSE_MARK: char = '\u{1}';

impl Ctx<'_> {
    /// Records bits of the instruction that printing read (see [`Ctx::word`]).
    #[inline]
    fn mark_read(&self, m: u128) {
        self.track.bits.set(self.track.bits.get() | m);
    }
}

/// The text of one field's value, by its kind (marks the field as read by a rule).
pub fn field_text(ctx: &Ctx, f: &NvField, out: &mut String) {
    ctx.mark_read(f.mask());
    plain_text(ctx, f, out)
}

/// [`field_text`] for the template renderer itself: its reads are plain renderings.
fn plain_text(ctx: &Ctx, f: &NvField, out: &mut String) {
    let v = f.get(ctx.w);
    match f.kind {
        NvKind::Reg => reg(out, "R", v, 255, "RZ"),
        NvKind::Pred => reg(out, "P", v, 7, "PT"),
        NvKind::UReg => reg(out, "UR", v, 63, "URZ"),
        NvKind::UPred => reg(out, "UP", v, 7, "UPT"),
        NvKind::BReg => {
            out.push('B');
            push_dec(out, v);
        }
        NvKind::Lookup => {
            let Some(ty) = ctx.t.operand_types.get(f.ty as usize) else { return };
            match ty.lookup(v as i64) {
                // (most modifiers print nothing: no empty copy)
                Some(s) => {
                    if !s.is_empty() {
                        out.push_str(s)
                    }
                }
                None => {
                    if ty.name.starts_with("OPR_SREG") {
                        out.push_str("SR");
                        push_dec(out, v);
                    } else if !matches!(ty.name, "OPR_NEG" | "OPR_ABS" | "OPR_NOT" | "OPR_INV") {
                        out.push_str(".INVALID");
                        push_dec(out, v);
                    }
                }
            }
        }
        NvKind::UImm => hex(out, v.wrapping_mul(f.scale() as u64) as i64, false),
        NvKind::SImm => {
            let n = f.width();
            let s = if n > 0 && n < 64 && v >> (n - 1) & 1 == 1 { v as i64 - (1i64 << n) } else { v as i64 };
            hex(out, s.wrapping_mul(f.scale() as i64), true)
        }
        NvKind::FImm => float_imm(ctx, f, out),
        NvKind::Other => push_hex(out, v),
    }
}

fn reg(out: &mut String, p: &str, v: u64, z: u64, zn: &str) {
    if v == z {
        out.push_str(zn);
    } else {
        out.push_str(p);
        push_dec(out, v);
    }
}

/// Appends `v` in decimal.
pub fn push_dec(out: &mut String, v: u64) {
    if v < 10 {
        out.push((b'0' + v as u8) as char);
        return;
    }
    if v < 100 {
        out.push((b'0' + (v / 10) as u8) as char);
        out.push((b'0' + (v % 10) as u8) as char);
        return;
    }
    let mut b = [0u8; 20];
    let mut i = b.len();
    let mut v = v;
    while v > 0 {
        i -= 1;
        b[i] = b'0' + (v % 10) as u8;
        v /= 10;
    }
    // ASCII digits: one UTF-8 append.
    out.push_str(std::str::from_utf8(&b[i..]).unwrap_or(""));
}

/// Appends `v` as `0x` and lower-case hex digits.
pub fn push_hex(out: &mut String, v: u64) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push_str("0x");
    let n = (64 - v.leading_zeros()).div_ceil(4).max(1);
    for k in (0..n).rev() {
        out.push(HEX[(v >> (4 * k) & 0xf) as usize] as char);
    }
}

/// The text [`hex`] appends, in `buf` (no allocation).
pub fn hex_text(buf: &mut [u8; 20], v: i64, signed: bool) -> &str {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let neg = signed && v < 0;
    let u = if neg { v.unsigned_abs() } else { v as u64 };
    let n = (64 - u.leading_zeros()).div_ceil(4).max(1) as usize;
    let mut i = 0usize;
    if neg {
        buf[0] = b'-';
        i = 1;
    }
    buf[i] = b'0';
    buf[i + 1] = b'x';
    i += 2;
    for k in (0..n).rev() {
        buf[i] = HEX[(u >> (4 * k) & 0xf) as usize];
        i += 1;
    }
    std::str::from_utf8(&buf[..i]).unwrap_or("")
}

/// `0x..` or `-0x..`.
pub fn hex(out: &mut String, v: i64, signed: bool) {
    if signed && v < 0 {
        out.push('-');
        push_hex(out, v.unsigned_abs());
    } else {
        push_hex(out, v as u64);
    }
}

/// Float immediates: the value's format comes from the instruction family, its bits from the
/// fixed immediate positions of the ISA (the probed field is only the part that varied).
fn float_imm(ctx: &Ctx, f: &NvField, out: &mut String) {
    let name = ctx.inst();
    let lo = f.ranges().first().map(|r| r.0).unwrap_or(0) as u32;
    let double = name.starts_with('D') || is_f64_source(ctx);
    let half = name.starts_with('H');
    match ctx.isa {
        Isa::Sm86 => {
            if half {
                let h = if lo >= 48 { ctx.bits(48, 16) } else { ctx.bits(32, 16) };
                float::push_f16_bits(out, h as u16);
            } else if double {
                float::push_f64_bits(out, ctx.bits(32, 32) << 32);
            } else {
                float::push_f32_bits(out, ctx.bits(32, 32) as u32);
            }
        }
        _ => {
            if f.width() >= 30 || name.ends_with("32I") {
                if half {
                    let h = if lo >= 36 { ctx.bits(36, 16) } else { ctx.bits(20, 16) };
                    float::push_f16_bits(out, h as u16);
                } else {
                    float::push_f32_bits(out, ctx.bits(20, 32) as u32);
                }
            } else {
                let m = ctx.bits(20, 19);
                let s = ctx.bits(56, 1);
                if double {
                    float::push_f64_bits(out, (s << 63) | (m << 44));
                } else {
                    float::push_f32_bits(out, ((s << 31) | (m << 12)) as u32);
                }
            }
        }
    }
}

fn is_f64_source(ctx: &Ctx) -> bool {
    if !matches!(ctx.inst(), "F2F" | "F2I" | "FRND") {
        return false;
    }
    let mut s = String::new();
    render_mnem_only(ctx, &mut s);
    // The source type is the last float type of the mnemonic.
    s.split('.').rev().find(|x| matches!(*x, "F16" | "F32" | "F64")) == Some("F64")
}

fn render_mnem_only(ctx: &Ctx, out: &mut String) {
    for p in ctx.form.pieces() {
        match p {
            NvPiece::Lit(s) => {
                if let Some(i) = s.find(' ') {
                    out.push_str(&s[..i]);
                    return;
                }
                out.push_str(s);
            }
            NvPiece::Field(i) => {
                let f = &ctx.form.fields[i as usize];
                if f.kind != NvKind::FImm {
                    plain_text(ctx, f, out);
                }
            }
        }
    }
}

/// Sorts the mnemonic's suffixes into nvdisasm's order (the spec's `SuffixOrder` ranks; a
/// template keeps the order of its probe example). The sort is stable: suffixes of equal rank
/// keep the template's order. A suffix the spec does not rank (`INVALID6`, `???3`) takes the
/// rank of the ranked spellings its field prints at the same place for other values, else the
/// rank of the suffix before it.
pub fn sort_suffixes(ctx: &Ctx, t: &mut Text) {
    sort_suffixes_in(ctx, t, &mut SortScratch::default());
}

/// Reused buffers of `sort_suffixes`.
#[derive(Default)]
struct SortScratch {
    /// The re-rendered mnemonic.
    buf: String,
    /// One field's text.
    v: String,
    /// Suffixes: (start, end) in `buf`, origin.
    toks: Vec<(usize, usize, Option<Origin>)>,
    /// (rank, suffix index).
    ranked: Vec<(u32, usize)>,
}

fn sort_suffixes_in(ctx: &Ctx, t: &mut Text, sc: &mut SortScratch) {
    let inst = &ctx.t.insts[ctx.form.inst as usize];
    if inst.order.is_empty() || t.mnem.bytes().filter(|&b| b == b'.').count() < 2 {
        return;
    }
    // Re-render the mnemonic, remembering which field printed each suffix.
    let SortScratch { buf, v, toks, ranked } = sc;
    buf.clear();
    toks.clear();
    let mut start = 0usize;
    let mut cur_origin: Option<Origin> = None;
    let (mut seen, mut nseen) = ([0; 8], 0usize);
    for p in ctx.form.pieces() {
        match p {
            NvPiece::Lit(s) => {
                let (s, done) = match s.bytes().position(|b| b == b' ') {
                    Some(i) => (&s[..i], true),
                    None => (s, false),
                };
                for c in s.chars() {
                    if c == '.' {
                        toks.push((start, buf.len(), cur_origin));
                        cur_origin = None;
                        buf.push('.');
                        start = buf.len();
                    } else {
                        buf.push(c);
                    }
                }
                if done {
                    break;
                }
            }
            NvPiece::Field(i) => {
                let f = &ctx.form.fields[i as usize];
                v.clear();
                plain_text(ctx, f, v);
                if f.kind == NvKind::Lookup && v.starts_with('.') {
                    // Two fields of one operand type (`PSETP.AND.XOR`): nvdisasm prints them in
                    // the order of their bits, whatever their ranks.
                    if seen[..nseen].contains(&f.ty) {
                        return;
                    }
                    if nseen < seen.len() {
                        seen[nseen] = f.ty;
                        nseen += 1;
                    }
                    let n = v.bytes().filter(|&b| b == b'.').count();
                    let mut k = 0usize;
                    for c in v.chars() {
                        if c == '.' {
                            toks.push((start, buf.len(), cur_origin));
                            buf.push('.');
                            start = buf.len();
                            cur_origin = Some((i, k, n));
                            k += 1;
                        } else {
                            buf.push(c);
                        }
                    }
                } else {
                    buf.push_str(v);
                }
            }
        }
    }
    toks.push((start, buf.len(), cur_origin));
    if *buf != t.mnem || toks.len() < 3 {
        return;
    }
    ranked.clear();
    let mut prev = 0u32;
    let mut sorted = true;
    for (k, &(a, b, origin)) in toks.iter().enumerate().skip(1) {
        let s = &buf[a..b];
        let r = inst.rank(s).or_else(|| origin.and_then(|o| sibling_rank(ctx, inst, o)));
        let r = r.map(|r| 2 * r as u32 + 1).unwrap_or(prev);
        sorted &= r >= prev;
        prev = r;
        ranked.push((r, k));
    }
    if sorted {
        return; // a stable sort would keep every suffix in place
    }
    ranked.sort_by_key(|x| x.0);
    t.mnem.clear();
    t.mnem.push_str(&buf[toks[0].0..toks[0].1]);
    for &(_, k) in ranked.iter() {
        t.mnem.push('.');
        t.mnem.push_str(&buf[toks[k].0..toks[k].1]);
    }
}

/// Where a suffix came from: (field index, position in the field's spelling, suffixes in it).
type Origin = (u8, usize, usize);

/// The smallest rank among the suffixes that field `fi` prints at position `k` of an `n`-suffix
/// spelling for other values: first among the spellings equal to this value's everywhere but
/// at `k` (`.SKEW.???3` ranks as `.SKEW.U16` / `.SKEW.32`), else among all of them.
fn sibling_rank(ctx: &Ctx, inst: &crate::spec::NvInst, (fi, k, n): Origin) -> Option<u16> {
    let f = &ctx.form.fields[fi as usize];
    let ty = &ctx.t.operand_types[f.ty as usize];
    let own = ty.lookup(f.get(ctx.w) as i64).unwrap_or("");
    let same_rest = |s: &str| {
        let (a, b) = (own.get(1..).unwrap_or(""), s.get(1..).unwrap_or(""));
        a.split('.').zip(b.split('.')).enumerate().all(|(j, (x, y))| j == k || x == y)
    };
    let rank_at = |s: &str| s.get(1..)?.split('.').nth(k).and_then(|x| inst.rank(x));
    let spellings = || ty.values.iter().map(|&x| ty.spelling(x)).filter(|s| s.matches('.').count() == n);
    spellings().filter(|s| same_rest(s)).filter_map(rank_at).min().or_else(|| spellings().filter_map(rank_at).min())
}

/// Renders the form's template (guard excluded) into `out`, marking reused registers.
pub fn render_template(ctx: &Ctx, reuse_slots: &[u8], out: &mut String) {
    render_in(ctx, reuse_slots, None, (0, 0), out)
}

/// `render_template`, with the form's precomputed facts when known, from piece `from.0` of
/// the template (of a literal: from its byte `from.1`).
fn render_in(ctx: &Ctx, reuse_slots: &[u8], info: Option<&FormInfo>, from: (usize, usize), out: &mut String) {
    for (k, p) in ctx.form.pieces().enumerate().skip(from.0) {
        match p {
            NvPiece::Lit(s) if k == from.0 => out.push_str(s.get(from.1..).unwrap_or("")),
            NvPiece::Lit(s) => out.push_str(s),
            NvPiece::Field(i) => {
                let f = &ctx.form.fields[i as usize];
                if f.omit_zero() && f.get(ctx.w) == 0 {
                    if out.ends_with(", ") {
                        out.truncate(out.len() - 2);
                    }
                    continue;
                }
                plain_text(ctx, f, out);
                if f.kind == NvKind::Reg && ctx.reuse != 0 {
                    let off = f.ranges().first().map(|r| r.0).unwrap_or(0);
                    let slot = if ctx.isa == Isa::Sm86 {
                        match info {
                            Some(x) => x.reuse.get(i as usize).copied().filter(|&k| k != u8::MAX).map(usize::from),
                            None => probed_reuse_bit(ctx.form, f.name()),
                        }
                    } else {
                        reuse_slots.iter().position(|&s| s == off)
                    };
                    if let Some(k) = slot {
                        if ctx.reuse >> k & 1 == 1 && !out.ends_with(REUSE_MARK) {
                            out.push(REUSE_MARK);
                        }
                    }
                }
            }
        }
    }
}

/// sm86: the reuse bit (0-3, bits 122-125) that flags register field `name`, from the spec's
/// probed `REUSE_<name>` fields.
fn probed_reuse_bit(form: &NvForm, name: &str) -> Option<usize> {
    form.fields.iter().find_map(|x| {
        let n = x.name().strip_prefix("REUSE_")?;
        (n == name).then(|| x.ranges().first().map(|r| r.0 as usize).unwrap_or(122).saturating_sub(122))
    })
}

/// Splits rendered text into mnemonic and operands (commas inside brackets do not split) and
/// applies the memory-operand rule (`[R2+0x0]` -> `[R2]`, `[RZ+0x10]` -> `[0x10]`).
pub fn split(s: &str, t: &mut Text) {
    split_pooled(s, t, &mut Vec::new());
}

/// `split`, taking the operand strings from `pool` (cleared buffers) while it has some.
fn split_pooled(s: &str, t: &mut Text, pool: &mut Vec<String>) {
    let (m, rest) = match s.bytes().position(|b| b == b' ') {
        Some(i) => (&s[..i], &s[i + 1..]),
        None => (s, ""),
    };
    t.mnem.push_str(m);
    // Delimiters are ASCII, so byte positions are character boundaries.
    let b = rest.as_bytes();
    let mut depth = 0i32;
    let mut start = 0usize;
    let mut i = 0usize;
    // The operand being split holds a `[` (else `fix_operand` has nothing to do).
    let mut bracket = false;
    while i < b.len() {
        if !SPLIT_SPECIAL[b[i] as usize] {
            i += 1;
            continue;
        }
        match b[i] {
            b'[' => {
                depth += 1;
                bracket = true;
            }
            b'(' | b'{' => depth += 1,
            b']' | b')' | b'}' => depth -= 1,
            b',' if depth == 0 && b.get(i + 1) == Some(&b' ') => {
                push_operand(t, pool, &rest[start..i], bracket);
                bracket = false;
                i += 2;
                start = i;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    if start < b.len() || !rest.is_empty() {
        push_operand(t, pool, &rest[start..], bracket);
    }
}

/// The bytes `split` looks at: brackets and the comma.
const SPLIT_SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    let mut k = 0;
    let s = b"[({])},";
    while k < s.len() {
        t[s[k] as usize] = true;
        k += 1;
    }
    t
};

/// Adds operand `o` (`bracket`: it holds a `[`, the memory-operand rule may apply).
fn push_operand(t: &mut Text, pool: &mut Vec<String>, o: &str, bracket: bool) {
    let mut s = pool.pop().unwrap_or_default();
    s.push_str(o);
    if bracket {
        fix_operand(&mut s);
    }
    t.ops.push(s);
}

fn fix_operand(o: &mut String) {
    if !o.contains('[') {
        return;
    }
    // A base of RZ disappears (`[RZ+0x10]` -> `[0x10]`, `c[RZ+0x0]` -> `c[0x0]`); a zero
    // offset after a real register does too (`[R2+0x0]` -> `[R2]`).
    // An absent base with a zero offset prints as `[RZ]` (not so inside a constant operand).
    let mut keep_rz = None;
    if let Some(i) = find_bytes(o, b"[RZ+0x0]") {
        if !o[..i].contains(['c', ']']) {
            keep_rz = Some(i);
        }
    }
    if keep_rz.is_none() && find_bytes(o, b"[RZ+").is_none() && find_bytes(o, b"+0x0]").is_none() {
        return;
    }
    let mut r = String::with_capacity(o.len());
    let mut rest: &str = o;
    let mut at = 0usize;
    while !rest.is_empty() {
        if keep_rz == Some(at) {
            // `[RZ+0x0]` stays `[RZ]`.
            r.push_str("[RZ]");
            rest = &rest[8..];
            at += 8;
        } else if let Some(x) = rest.strip_prefix("[RZ+") {
            r.push('[');
            rest = x;
            at += 4;
        } else if let Some(x) = rest.strip_prefix("+0x0]") {
            r.push(']');
            rest = x;
            at += 5;
        } else {
            let c = rest.chars().next().unwrap_or(' ');
            r.push(c);
            rest = &rest[c.len_utf8()..];
            at += c.len_utf8();
        }
    }
    *o = r;
}

/// The first position of `pat` in `s` (a plain scan: cheaper than `str::find` on the short
/// strings of an operand).
#[inline]
pub fn find_bytes(s: &str, pat: &[u8]) -> Option<usize> {
    let b = s.as_bytes();
    let first = *pat.first()?;
    if b.len() < pat.len() {
        return None;
    }
    (0..=b.len() - pat.len()).find(|&i| b[i] == first && &b[i..i + pat.len()] == pat)
}

/// How many non-overlapping times `pat` occurs in `s` (as `str::matches(..).count()`).
pub fn count_bytes(s: &str, pat: &[u8]) -> usize {
    let b = s.as_bytes();
    let (mut n, mut i) = (0, 0);
    if pat.is_empty() {
        return s.matches("").count();
    }
    let first = pat[0];
    while i + pat.len() <= b.len() {
        // (the first byte alone rules most places out, without a slice compare)
        if b[i] == first && &b[i..i + pat.len()] == pat {
            n += 1;
            i += pat.len();
        } else {
            i += 1;
        }
    }
    n
}

/// Removes every non-overlapping occurrence of `pat`, left to right (as
/// `*s = s.replace(pat, "")`, without a new allocation).
pub fn remove_all(s: &mut String, pat: &str) {
    let Some(first) = find_bytes(s, pat.as_bytes()) else { return };
    let mut r = String::with_capacity(s.len());
    r.push_str(&s[..first]);
    let mut rest = &s[first + pat.len()..];
    while let Some(i) = find_bytes(rest, pat.as_bytes()) {
        r.push_str(&rest[..i]);
        rest = &rest[i + pat.len()..];
    }
    r.push_str(rest);
    *s = r;
}

/// `.reuse` goes after the register's closing `|`; on sm50 also after its `.H1`-style suffixes.
fn place_reuse(o: &mut String, after_suffix: bool) {
    if !o.as_bytes().contains(&(REUSE_MARK as u8)) {
        return;
    }
    while let Some(i) = o.find(REUSE_MARK) {
        o.remove(i);
        let mut j = i;
        let b = o.as_bytes();
        loop {
            while j < b.len() && b[j] == b'|' {
                j += 1;
            }
            if after_suffix && j < b.len() && b[j] == b'.' && j + 1 < b.len() && b[j + 1].is_ascii_uppercase() {
                j += 1;
                while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                    j += 1;
                }
                continue;
            }
            break;
        }
        o.insert_str(j, ".reuse");
    }
}

/// The guard prefix: `@P0 `, `@!UP1 `..., empty for PT.
pub fn guard(ctx: &Ctx, out: &mut String) {
    if ctx.form.pred < 0 {
        return;
    }
    let p = ctx.form.fields[ctx.form.pred as usize].get(ctx.w);
    let n = if ctx.form.pred_neg >= 0 { ctx.form.fields[ctx.form.pred_neg as usize].get(ctx.w) } else { 0 };
    if p == 7 && n == 0 {
        return;
    }
    let name = ctx.inst();
    let u = ctx.isa == Isa::Sm86 && (name.starts_with('U') || name == "S2UR");
    out.push('@');
    if n != 0 {
        out.push('!');
    }
    out.push_str(if u { "UP" } else { "P" });
    if p == 7 {
        out.push('T');
    } else {
        push_dec(out, p);
    }
    out.push(' ');
}

/// Buffers that printing reuses from one instruction to the next (no allocation per
/// instruction once they have grown).
#[derive(Default)]
struct Scratch {
    /// The rendered template.
    s: String,
    /// The text in pieces.
    t: Text,
    /// Operand strings to reuse.
    pool: Vec<String>,
    /// Buffers of the suffix sort.
    sort: SortScratch,
    /// Texts of recent instructions (set-associative by a hash of the key).
    memo: Vec<MemoEntry>,
    /// The memo's texts longer than [`MEMO_INLINE`].
    arena: Vec<u8>,
    /// Memo misses since it last grew.
    misses: usize,
    /// Memo hits since it last grew.
    hits: usize,
    /// Form facts, filled at first use: [sm50, sm86].
    info: [Infos; 2],
    /// Sorted mnemonics by form and mnemonic field values.
    mnems: Vec<MnemEntry>,
    /// The texts of `mnems`, back to back (replaced entries leave theirs behind, up to
    /// [`MNEM_TEXT_MAX`] bytes).
    mnem_text: String,
    /// Text templates with holes (the memo's first level on long listings).
    tm: template::Templates,
    /// Instructions printed through the memo.
    printed: usize,
    /// Use templates from the first instruction (see [`NvPrinter::eager_templates`]).
    eager: bool,
    /// Instructions the listing about to be printed has (0: not known; see
    /// [`NvPrinter::expect_instructions`]): the memo and the mnemonic cache start no larger than it needs.
    hint: usize,
}

/// log2 of the smallest power of two >= `n` (0 for 0 and 1).
fn ceil_log2(n: usize) -> u32 {
    usize::BITS - n.saturating_sub(1).leading_zeros()
}

/// Instructions a printer prints through the exact memo alone before it uses templates.
const TEMPLATES_AFTER: usize = 2048;

/// One remembered text of the print memo, as eight words (all zero: empty): the key (words
/// 0-1), the address (word 2, used when the text depends on it), the tag (word 3, low half, see
/// [`memo_tag`]; 0: empty; bit 2: the text depends on the address) and the text's length (word
/// 3, bits 32-39); a text of up to [`MEMO_INLINE`] bytes is in words 4-7, a longer one in
/// `Scratch::arena` at the offset in word 4.
type MemoEntry = [u64; 8];

/// Longest memo text kept inside its entry.
const MEMO_INLINE: usize = 32;

/// Tag bit of a memo entry whose text depends on the address.
const MEMO_BY_ADDR: u32 = 4;

/// Bytes of long memo texts kept before the memo starts over (a long-running process).
const MEMO_ARENA_MAX: usize = 1 << 20;

/// The memo's tag of an instruction: form, reuse flags, ISA (sm86) and a valid bit.
#[inline]
fn memo_tag(enc: u16, reuse: u8, sm86: bool) -> u32 {
    (enc as u32) << 16 | (reuse as u32) << 8 | u32::from(sm86) << 1 | 1
}

/// The key of a memo entry.
#[inline]
fn memo_key(e: &MemoEntry) -> u128 {
    e[0] as u128 | (e[1] as u128) << 64
}

/// Entries of one memo set (the memo is set-associative, most recently used first).
const MEMO_WAYS: usize = 4;
/// log2 of the memo's entries at first use. It grows by 4x when the misses since the last
/// growth pass twice its size (below [`MEMO_EARLY_BITS`], and only while at least a fifth of
/// the lookups hit: a listing of mostly distinct instructions gains nothing) or 8x its size
/// (above): a larger memo costs page faults, worth it only on longer listings.
const MEMO_MIN_BITS: u32 = 8;
/// log2 of the size up to which the memo grows early.
const MEMO_EARLY_BITS: u32 = 10;
/// log2 of the memo's largest size.
const MEMO_MAX_BITS: u32 = 14;

/// The first entry of the memo set of (key, tag) in a memo of 2^bits entries.
#[inline]
fn memo_slot(key: u128, tag: u32, bits: u32) -> usize {
    let h = (key as u64 ^ ((key >> 64) as u64).rotate_left(29) ^ u64::from(tag)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (h >> (64 - bits)) as usize & !(MEMO_WAYS - 1)
}

/// sm86 scheduling bits 105-121 (stall, yield, barriers): no template prints them.
const SCHED_BITS: u128 = ((1u128 << 17) - 1) << 105;

/// Facts of one form that printing needs, computed at its first use.
struct FormInfo {
    /// sm86: a printed field reads scheduling bits (then they are part of the memo key).
    sched: bool,
    /// sm86: per field, the reuse bit that flags it (`probed_reuse_bit`), `u8::MAX` for none.
    reuse: Box<[u8]>,
    /// Where the mnemonic ends: the template piece holding the first space and the space's
    /// byte in it (past the end: no operands), and the fields printed before it. None when a
    /// field before it could print a space or a reuse mark (then the mnemonic is not cached).
    mnem: Option<MnemSplit>,
    /// Template hole candidates (fields printed once after the mnemonic, in no other field),
    /// found at the form's first print through templates (`cands_done`).
    cands: Box<[template::Cand]>,
    /// `cands` has been computed.
    cands_done: bool,
    /// Bits that any print of this form read through [`Ctx`] (rules, float immediates): no
    /// candidate overlapping them is a hole.
    read: u128,
    /// The bits of the printed fields and the guard: with `read`, all that the text can
    /// depend on besides the reuse flags and the address.
    relevant: u128,
    /// `relevant | read`.
    key_mask: u128,
    /// The candidates that `read` leaves (bit k: `cands[k]`).
    allowed: u32,
}

/// The facts of the forms an ISA's listing has met: a 16-bit index per form (one page for
/// either ISA's 1,650-1,887 forms) into a list of the facts, instead of a pointer per form
/// (13-15 KiB, four fresh pages written at the first instruction of every listing).
#[derive(Default)]
struct Infos {
    /// Per form index, 1 + its place in `list` (0: not met yet); sized at first use.
    index: Vec<u16>,
    /// The facts, in the order the forms were met.
    list: Vec<FormInfo>,
}

impl Infos {
    /// Makes the facts of form `enc` (of `forms` forms) with `make` unless they exist; the
    /// first call makes room for [`FORM_ROOM`] forms' facts at once (for `hint` where a listing
    /// of fewer instructions is announced; 0: none is).
    #[inline]
    fn ensure(&mut self, enc: u16, forms: usize, hint: usize, make: impl FnOnce() -> FormInfo) {
        if self.index.len() != forms {
            // (one write per page: read first, a fresh page would fault twice)
            self.index = crate::written_table(forms, 0u16);
            self.list.clear();
            self.list.reserve(if hint == 0 { FORM_ROOM } else { hint.min(FORM_ROOM) });
        }
        if let Some(k @ 0) = self.index.get_mut(enc as usize) {
            if let Ok(n) = u16::try_from(self.list.len() + 1) {
                self.list.push(make());
                *k = n;
            }
        }
    }
    /// The facts of form `enc`, if made.
    #[inline]
    fn get(&self, enc: u16) -> Option<&FormInfo> {
        let k = *self.index.get(enc as usize)?;
        self.list.get(usize::from(k).checked_sub(1)?)
    }
    /// The facts of form `enc`, if made, for changing.
    #[inline]
    fn get_mut(&mut self, enc: u16) -> Option<&mut FormInfo> {
        let k = *self.index.get(enc as usize)?;
        self.list.get_mut(usize::from(k).checked_sub(1)?)
    }
}

/// Forms whose facts [`Infos`] makes room for at once (fewer where a shorter listing is
/// announced). A printer of the bundled listings meets at most 84 forms (control.sm86; int.sm86
/// 66, tensor.sm50 16); grown one doubling at a time from 4, the list's copies wrote about
/// twice the pages (144 bytes a form) its last size needs.
const FORM_ROOM: usize = 128;

/// The candidates (bit k: `cands[k]`) that no recorded read overlaps.
fn allowed(cands: &[template::Cand], read: u128) -> u32 {
    cands.iter().enumerate().filter(|(_, c)| c.mask & read == 0).fold(0, |a, (k, _)| a | 1 << k)
}

/// The mnemonic part of a template.
struct MnemSplit {
    /// (piece, byte) where the operand part starts (at the space).
    at: (usize, usize),
    /// The fields printed in the mnemonic (at most `MNEM_FIELDS`).
    fields: Box<[u8]>,
    /// Their bits: the instruction word masked by this is the key of the mnemonic cache (the
    /// field values are a function of these bits).
    mask: u128,
}

/// Most fields a cached mnemonic may depend on.
const MNEM_FIELDS: usize = 6;

impl FormInfo {
    fn new(form: &NvForm, sm86: bool) -> FormInfo {
        let sched = sm86
            && form.pieces().any(|x| match x {
                NvPiece::Field(i) => form.fields.get(i as usize).is_some_and(|f| f.mask() & SCHED_BITS != 0),
                NvPiece::Lit(_) => false,
            });
        let reuse = if sm86 {
            // `probed_reuse_bit` of every field, from one pass over the `REUSE_` fields.
            let probed: Vec<(&str, usize)> = form
                .fields
                .iter()
                .filter_map(|x| {
                    let n = x.name().strip_prefix("REUSE_")?;
                    Some((n, x.ranges().first().map(|r| r.0 as usize).unwrap_or(122).saturating_sub(122)))
                })
                .collect();
            form.fields
                .iter()
                .map(|f| probed.iter().find(|p| p.0 == f.name()).map_or(u8::MAX, |p| p.1.min(254) as u8))
                .collect()
        } else {
            Box::default()
        };
        let mnem = mnem_split(form);
        let mut relevant = 0u128;
        for p in form.pieces() {
            if let NvPiece::Field(i) = p {
                relevant |= form.fields.get(i as usize).map_or(0, |f| f.mask());
            }
        }
        for i in [form.pred, form.pred_neg] {
            relevant |= usize::try_from(i).ok().and_then(|i| form.fields.get(i)).map_or(0, |f| f.mask());
        }
        FormInfo { sched, reuse, mnem, cands: Box::default(), cands_done: false, read: 0, relevant, key_mask: relevant, allowed: 0 }
    }
}

/// The mnemonic part of `form`'s template, when its fields print no space (fixed-spelling
/// lookups, hex numbers).
fn mnem_split(form: &NvForm) -> Option<MnemSplit> {
    let mut fields = Vec::new();
    for (k, p) in form.pieces().enumerate() {
        match p {
            NvPiece::Lit(s) => {
                if let Some(i) = s.find(' ') {
                    return Some(MnemSplit { at: (k, i), mask: fields_mask(form, &fields), fields: fields.into() });
                }
            }
            NvPiece::Field(i) => {
                let f = form.fields.get(i as usize)?;
                let plain = match f.kind {
                    // (a lookup's spelling is checked for spaces when an entry is cached)
                    NvKind::Lookup => true,
                    NvKind::Other | NvKind::UImm | NvKind::SImm => true,
                    _ => false,
                };
                if !plain || fields.len() == MNEM_FIELDS {
                    return None;
                }
                fields.push(i);
            }
        }
    }
    Some(MnemSplit { at: (form.syntax.len(), 0), mask: fields_mask(form, &fields), fields: fields.into() })
}

/// The bits of fields `fields` of `form`.
fn fields_mask(form: &NvForm, fields: &[u8]) -> u128 {
    fields.iter().filter_map(|&i| form.fields.get(i as usize)).fold(0, |m, f| m | f.mask())
}

/// One cached mnemonic: the sorted mnemonic of a form for the values of its mnemonic fields.
/// 32 bytes, so that the full cache is two pages (written at its first use), not five as with
/// the field values and a `String` in each entry.
#[derive(Default, Clone, Copy)]
struct MnemEntry {
    /// The instruction's bits of the mnemonic fields (`MnemSplit::mask`).
    key: u128,
    /// Form index + 1 (0: empty), the ISA's instruction size above bit 16.
    tag: u32,
    /// Where the mnemonic (with its suffixes in order) is in `Scratch::mnem_text`.
    at: u32,
    /// Its length in bytes.
    len: u32,
}

/// Bytes of `Scratch::mnem_text` after which the mnemonic cache starts over.
const MNEM_TEXT_MAX: usize = 64 << 10;

/// log2 of the mnemonic cache's entries (direct-mapped).
const MNEM_BITS: u32 = 8;

/// What `print_template` did.
enum Printed {
    /// Printed through a template (or the text is now one).
    Done,
    /// Printed the slow way: the exact memo should keep the text (true: it depends on the
    /// address).
    Memo(bool),
}

/// Kinds whose numbers could be mistaken for each other in a text (`P3` of a guard and of an
/// operand).
fn same_family(a: NvKind, b: NvKind) -> bool {
    let fam = |k: NvKind| match k {
        NvKind::Pred | NvKind::UPred => 1,
        NvKind::Reg | NvKind::UReg => 2,
        NvKind::BReg => 3,
        _ => 4,
    };
    fam(a) == fam(b)
}

/// An NVIDIA printer that remembers what it has printed: the print memo (the text of recent
/// instructions), text templates with holes for register and immediate numbers, a cache of
/// sorted mnemonics and the buffers printing reuses. It prints the same text as
/// [`IsaPlugin::print`] (which makes a fresh, uncached one per call), faster over a listing.
/// Owned by the caller: one per thread that prints (it is `Send`, not shared); it prints
/// either NVIDIA ISA.
#[derive(Default)]
pub struct NvPrinter {
    /// What printing keeps from one instruction to the next.
    sc: Scratch,
    /// Every instruction the slow way: no memo, templates or mnemonic cache.
    uncached: bool,
}

impl NvPrinter {
    /// A printer with empty caches; templates are used after its first 2,048 instructions.
    pub fn new() -> NvPrinter {
        NvPrinter::default()
    }

    /// A printer that prints every instruction the slow way and keeps nothing between
    /// instructions but buffers: the reference the memo and templates are tested against.
    pub fn uncached() -> NvPrinter {
        NvPrinter { uncached: true, ..NvPrinter::default() }
    }

    /// Tells the printer that a long listing follows: use templates from the first instruction
    /// (else only after its first 2,048 instructions; the text is the same).
    pub fn eager_templates(&mut self, on: bool) {
        self.sc.eager = on;
    }

    /// Tells the printer, before its first instruction, that a listing of about `n`
    /// instructions follows: the print memo and the mnemonic cache then start no larger than
    /// such a listing needs (they grow on longer work; the text is the same). 0: not known.
    pub fn expect_instructions(&mut self, n: usize) {
        self.sc.hint = n;
    }

    /// Template counters: templates made, keys found not templatable, template hits, template
    /// misses.
    pub fn template_stats(&self) -> [u64; 4] {
        self.sc.tm.stats
    }

    /// Prints instruction `d` of `plugin` at `addr`, as `plugin.print` does. sm50 and sm86 go
    /// through this printer's caches; another ISA's instruction through `plugin.print`.
    pub fn print(&mut self, plugin: &dyn IsaPlugin, d: &Decoded, addr: u64, out: &mut String) {
        match plugin.isa() {
            Isa::Sm50 => {
                // As `Sm50::print`: the reuse flags from the bundle's control word; a Decoded
                // at a bundle start holds the control word before the instruction.
                let reuse = crate::sm50::SM50.control(d).map_or(0, |c| c.reuse);
                let addr = if d.len == 16 { addr + 8 } else { addr };
                self.print_with(&crate::sm50::SM50_INSN, d, addr, reuse, out)
            }
            Isa::Sm86 => {
                let p = &crate::sm86::SM86;
                self.print_with(p, d, addr, control::sm86_reuse(p.word(d)), out)
            }
            _ => plugin.print(d, addr, out),
        }
    }

    /// Prints instruction `d` of `p` at `addr` with explicit reuse flags (bit k: operand slot
    /// k), as [`NvPlugin::print_with`] does.
    pub fn print_with(&mut self, p: &NvPlugin, d: &Decoded, addr: u64, reuse: u8, out: &mut String) {
        let Some(form) = p.t.forms.get(d.enc as usize) else { return };
        let name = p.t.insts.get(form.inst as usize).map_or("", |i| i.name);
        let track = ReadTrack::default();
        let ctx = Ctx { t: p.t, form, w: p.word(d), pc: addr, reuse, isa: p.isa, name, track: &track };
        if self.uncached {
            p.print_in(&ctx, d.enc, &mut self.sc, out)
        } else {
            p.print_memo(&ctx, d.enc, &mut self.sc, out)
        }
    }
}

/// A family rule: edits the generic text of an instruction.
pub type Fixup = fn(&Ctx, &mut Text);

/// One NVIDIA ISA as a plugin.
pub struct NvPlugin {
    /// Which ISA.
    pub isa: Isa,
    /// Its generated tables.
    pub t: &'static NvTables,
    /// Its generated decode tree (the same forms as `t`).
    pub tree: &'static tree::NvTree,
    /// Bit offsets of the register fields of operand slots a, b, c (reuse flags 0, 1, 2), for
    /// [`render_template`] (the printer marks sm86 registers from the probed `REUSE_` fields,
    /// and sm50's family rule places its own).
    pub reuse_slots: &'static [u8],
    /// The family rules.
    pub fixup: Fixup,
    /// Instruction size in bytes.
    pub size: usize,
}

impl NvPlugin {
    /// The instruction of a Decoded as one 128-bit value.
    #[inline]
    pub fn word(&self, d: &Decoded) -> u128 {
        let w = &d.words;
        if self.size == 8 {
            w[0] as u128 | (w[1] as u128) << 32
        } else {
            w[0] as u128 | (w[1] as u128) << 32 | (w[2] as u128) << 64 | (w[3] as u128) << 96
        }
    }

    /// Decodes one instruction given as a 128-bit value (sm50: the word in the low half).
    #[inline]
    pub fn decode_word(&self, w: u128, addr: u64) -> Result<Decoded, DecodeError> {
        match self.classify(w) {
            Some((f, inst)) if self.size == 8 || self.sched_ok(f, w) => {
                let mut words = [0u32; crate::MAX_WORDS];
                words[0] = w as u32;
                words[1] = (w >> 32) as u32;
                if self.size == 16 {
                    words[2] = (w >> 64) as u32;
                    words[3] = (w >> 96) as u32;
                }
                Ok(Decoded { words, len: self.size as u8, enc: f, ienc: inst })
            }
            _ => Err(DecodeError::Unknown { isa: self.isa, addr, word: w as u32 }),
        }
    }

    /// Decodes consecutive instructions (see [`IsaPlugin::decode_block`]): one tree walk per
    /// instruction, written into slots of `out` made up front (then cut back to what decoded);
    /// a word the tree does not know goes through [`Self::classify`] (the sm86 `?PM` retry), and
    /// the block stops at the first word that does not decode or at a misaligned start, where
    /// `decode` would return an error. `WIDE`: 16-byte instructions (the tree is wide).
    #[inline(always)]
    fn block<const WIDE: bool>(&self, bytes: &[u8], base_addr: u64, out: &mut Vec<Decoded>) -> usize {
        let n = if WIDE { 16 } else { 8 };
        if base_addr & (n as u64 - 1) != 0 {
            return 0;
        }
        let walk = self.tree.walk();
        let mut off = 0usize;
        // Up to BLOCK instructions at a time: a block that stops early has not zeroed slots
        // for the whole input.
        const BLOCK: usize = 512;
        loop {
            let want = (bytes.len() - off.min(bytes.len())) / n;
            let want = want.min(BLOCK);
            if want == 0 {
                return off;
            }
            let start = out.len();
            out.resize(start + want, Decoded { words: [0; crate::MAX_WORDS], len: 0, enc: 0, ienc: 0 });
            let mut done = 0usize;
            let rest = bytes.get(off..).unwrap_or_default();
            for (slot, c) in out[start..].iter_mut().zip(rest.chunks_exact(n)) {
                let (lo, hi) = if WIDE {
                    // One 128-bit load.
                    let Some(b) = c.first_chunk::<16>() else { break };
                    let w = u128::from_le_bytes(*b);
                    (w as u64, (w >> 64) as u64)
                } else {
                    let Some(b) = c.first_chunk::<8>() else { break };
                    (u64::from_le_bytes(*b), 0)
                };
                let (enc, ienc) = match walk.classify::<WIDE>(lo, hi) {
                    Some(x) => x,
                    None => match self.classify(lo as u128 | (hi as u128) << 64) {
                        Some(x) => x,
                        None => break,
                    },
                };
                if WIDE && !self.sched_ok(enc, lo as u128 | (hi as u128) << 64) {
                    break;
                }
                let mut words = [lo as u32, (lo >> 32) as u32, 0, 0, 0, 0];
                if WIDE {
                    // Straight from the bytes: one 16-byte copy.
                    for (w, b) in words.iter_mut().zip(c.chunks_exact(4)) {
                        *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                    }
                }
                *slot = Decoded { words, len: n as u8, enc, ienc };
                done += 1;
            }
            out.truncate(start + done);
            off += done * n;
            if done < want {
                return off;
            }
        }
    }

    /// Whether nvdisasm accepts the scheduling bits (105-125) of 16-byte instruction `w` of form
    /// `f` ([`control::sched_ok`]).
    #[inline(always)]
    fn sched_ok(&self, f: u16, w: u128) -> bool {
        let s = self.t.sched.get(usize::from(f)).copied().unwrap_or(0xf6);
        control::sched_ok(s, self.t.opex, (w >> 105) as u32 & 0x1f_ffff)
    }

    /// The form and instruction of a word. sm86: a word no form matches whose bits 102-103
    /// (nvdisasm's `?PM1`..`?PM3` tag) are set is the form of the word without them.
    #[inline]
    fn classify(&self, w: u128) -> Option<(u16, u16)> {
        let walk = self.tree.walk();
        if self.size == 8 {
            return walk.classify::<false>(w as u64, 0);
        }
        match walk.classify::<true>(w as u64, (w >> 64) as u64) {
            None if w & crate::sm86::PM_BITS != 0 => {
                let w = w & !crate::sm86::PM_BITS;
                walk.classify::<true>(w as u64, (w >> 64) as u64)
            }
            r => r,
        }
    }

    /// Prints with explicit reuse flags, remembering nothing (an [`NvPrinter`] of the caller's
    /// remembers what it printed, for listings).
    pub fn print_with(&self, d: &Decoded, addr: u64, reuse: u8, out: &mut String) {
        NvPrinter::uncached().print_with(self, d, addr, reuse, out)
    }

    /// `print_in` through the templates (`template.rs`), else through the exact memo: the text
    /// is a function of the form, the instruction bits (sm86: without the scheduling bits
    /// 105-121, which no template prints), the reuse flags and, for the forms whose rules read
    /// it, the address.
    fn print_memo(&self, ctx: &Ctx, enc: u16, sc: &mut Scratch, out: &mut String) {
        let sm86 = self.size == 16;
        sc.info[usize::from(sm86)].ensure(enc, self.t.forms.len(), sc.hint, || FormInfo::new(ctx.form, sm86));
        // The instruction size tells the ISAs apart (the scratch is shared).
        let tag = (self.size as u64) << 32 | (enc as u64) << 16 | (ctx.reuse as u64) << 8 | 1;
        let start = out.len();
        // Templates pay on long listings only: the first instructions of a printer go through
        // the exact memo alone (a template costs a second slow print before it is used).
        sc.printed += 1;
        let tpl = if sc.eager || sc.printed > TEMPLATES_AFTER { self.print_template(ctx, enc, tag, sc, out) } else { None };
        let by_addr = match tpl {
            Some(Printed::Done) => return,
            Some(Printed::Memo(a)) => Some(a),
            None => None,
        };
        let info = sc.info[usize::from(sm86)].get(enc);
        let key = if sm86 && info.is_some_and(|x| !x.sched) { ctx.w & !SCHED_BITS } else { ctx.w };
        let mtag = memo_tag(enc, ctx.reuse, sm86);
        if sc.memo.is_empty() {
            // A short listing needs no more entries than it has instructions (each fresh page
            // of a table costs a fault, 2-4 us on the development VM).
            let bits = if sc.hint == 0 { MEMO_MIN_BITS } else { ceil_log2(sc.hint).clamp(4, MEMO_MIN_BITS) };
            sc.memo = crate::written_table(1 << bits, [0u64; 8]);
        }
        let set = memo_slot(key, mtag, sc.memo.len().trailing_zeros());
        let by_addr = match by_addr {
            Some(a) => a,
            None => {
                if let Some(ways) = sc.memo.get_mut(set..set + MEMO_WAYS) {
                    let hit = ways.iter().position(|e| {
                        let t = e[3] as u32;
                        memo_key(e) == key && t & !MEMO_BY_ADDR == mtag && (t & MEMO_BY_ADDR == 0 || e[2] == ctx.pc)
                    });
                    if let Some(j) = hit {
                        sc.hits += 1;
                        // Most recently used first.
                        ways[..=j].rotate_right(1);
                        let e = &ways[0];
                        let len = (e[3] >> 32) as u8 as usize;
                        let mut buf = [0u8; MEMO_INLINE];
                        let bytes = if len <= MEMO_INLINE {
                            for (d, w) in buf.chunks_exact_mut(8).zip(&e[4..8]) {
                                d.copy_from_slice(&w.to_le_bytes());
                            }
                            buf.get(..len)
                        } else {
                            sc.arena.get(e[4] as usize..e[4] as usize + len)
                        };
                        // The bytes were copied from a `str` whole (ASCII or not, cut nowhere).
                        if let Some(Ok(text)) = bytes.map(ascii_or_utf8) {
                            out.push_str(text);
                            return;
                        }
                    }
                }
                self.print_slow(ctx, enc, sc, out).0
            }
        };
        sc.misses += 1;
        let len = sc.memo.len();
        let early = len < 1 << MEMO_EARLY_BITS;
        let grow = if early { sc.misses > 2 * len && 4 * sc.hits >= sc.misses } else { sc.misses > 8 * len };
        if grow && len < 1 << MEMO_MAX_BITS {
            // A longer listing: a 4x larger memo (small listings keep the small one).
            let bits = len.trailing_zeros() + 2;
            let mut big = crate::written_table(1 << bits, [0u64; 8]);
            // Least recently used first: each set of the new memo keeps its most recent.
            for e in sc.memo.chunks(MEMO_WAYS).flat_map(|w| w.iter().rev()).filter(|e| e[3] as u32 != 0) {
                let s = memo_slot(memo_key(e), e[3] as u32 & !MEMO_BY_ADDR, bits);
                if let Some(w) = big.get_mut(s..s + MEMO_WAYS) {
                    w.rotate_right(1);
                    w[0] = *e;
                }
            }
            sc.memo = big;
            sc.misses = 0;
            sc.hits = 0;
            return;
        }
        let text = out.as_bytes().get(start..).unwrap_or(&[]);
        let Ok(n) = u8::try_from(text.len()) else { return };
        if text.len() > MEMO_INLINE && sc.arena.len() + text.len() > MEMO_ARENA_MAX {
            // Start over (the arena keeps the texts of evicted entries too).
            sc.arena.clear();
            sc.memo.iter_mut().for_each(|e| *e = [0; 8]);
        }
        if let Some(w) = sc.memo.get_mut(set..set + MEMO_WAYS) {
            w.rotate_right(1);
            let tag = mtag | if by_addr { MEMO_BY_ADDR } else { 0 };
            let mut e = [key as u64, (key >> 64) as u64, ctx.pc, u64::from(tag) | u64::from(n) << 32, 0, 0, 0, 0];
            if text.len() <= MEMO_INLINE {
                let mut buf = [0u8; MEMO_INLINE];
                buf[..text.len()].copy_from_slice(text);
                for (d, b) in e[4..8].iter_mut().zip(buf.chunks_exact(8)) {
                    *d = u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
                }
            } else {
                e[4] = sc.arena.len() as u64;
                sc.arena.extend_from_slice(text);
            }
            w[0] = e;
        }
    }

    /// `print_in` recording what it read: whether the address, and the instruction bits read
    /// through [`Ctx`] (added to the form's `read`).
    fn print_slow(&self, ctx: &Ctx, enc: u16, sc: &mut Scratch, out: &mut String) -> (bool, u128) {
        ctx.track.addr.set(false);
        ctx.track.bits.set(0);
        self.print_in(ctx, enc, sc, out);
        let by_addr = ctx.track.addr.get();
        let read = ctx.track.bits.get();
        if let Some(i) = sc.info[usize::from(self.size == 16)].get_mut(enc) {
            if read & !i.read != 0 {
                i.read |= read;
                i.allowed = allowed(&i.cands, i.read);
                i.key_mask = i.relevant | i.read;
            }
        }
        (by_addr, read)
    }

    /// Prints through a template (see `template.rs`): None when the instruction's key is not
    /// templatable (nothing printed), else what was printed and how (`tag`: the memo's).
    fn print_template(&self, ctx: &Ctx, enc: u16, tag: u64, sc: &mut Scratch, out: &mut String) -> Option<Printed> {
        sc.tm.bound();
        let sm86 = self.size == 16;
        if let Some(x) = sc.info[usize::from(sm86)].get_mut(enc) {
            if !x.cands_done {
                // Only templates need the candidates: found at the form's first template print.
                x.cands_done = true;
                x.cands = template::candidates(ctx.form, x.mnem.as_ref().map(|m| m.at.0), if sm86 { SCHED_BITS } else { 0 });
                x.allowed = allowed(&x.cands, x.read);
            }
        }
        let info = sc.info[usize::from(sm86)].get(enc)?;
        let mut vals = [0u64; template::MAX_HOLES];
        let mut raw = [0u64; template::MAX_HOLES];
        let (mut active, mut cls, mut hole_mask) = (0u32, 0u32, 0u128);
        let mut left = info.allowed;
        while left != 0 {
            let h = left.trailing_zeros() as usize;
            left &= left - 1;
            let Some(c) = info.cands.get(h) else { break };
            let v = c.get(ctx.w);
            let (p, special, top) = template::hole_value(c, v);
            if special {
                continue;
            }
            active |= 1 << h;
            cls |= u32::from(top) << h;
            vals[h] = p;
            raw[h] = v;
            hole_mask |= c.mask;
        }
        // The bits the text can depend on: printed fields and what printing read through `Ctx`.
        let relevant = info.key_mask;
        let tkey = ctx.w & relevant & !hole_mask;
        let holes = active | cls << 8;
        let at = sc.tm.find(tkey, tag, holes);
        if let Some(e) = at.and_then(|i| sc.tm.table.get(i)).copied() {
            if !e.ok {
                return None;
            }
            if !e.pending {
                sc.tm.stats[2] += 1;
                sc.tm.fill(&e, &vals, out);
                return Some(Printed::Done);
            }
            let (t1, v1) = sc.tm.first(&e);
            if v1 == vals {
                // The same numbers as the first instance: its text.
                out.push_str(t1);
                sc.tm.stats[2] += 1;
                return Some(Printed::Done);
            }
        }
        // A miss: the slow text T.
        sc.tm.stats[3] += 1;
        // The candidates, out of the form's facts while printing (which needs the scratch).
        let sm86 = usize::from(self.size == 16);
        let cands = sc.info[sm86].get_mut(enc).map(|x| std::mem::take(&mut x.cands)).unwrap_or_default();
        let r = self.template_miss(ctx, enc, tag, sc, out, &cands, (tkey, holes, at), (active, hole_mask, relevant), (&vals, &raw));
        if let Some(x) = sc.info[sm86].get_mut(enc) {
            x.cands = cands;
            x.allowed = allowed(&x.cands, x.read);
        }
        r
    }

    /// A template miss of `print_template`: prints the slow way and makes, or prepares, the
    /// template of the key.
    #[allow(clippy::too_many_arguments)]
    fn template_miss(
        &self,
        ctx: &Ctx,
        enc: u16,
        tag: u64,
        sc: &mut Scratch,
        out: &mut String,
        cands: &[template::Cand],
        (tkey, holes, at): (u128, u32, Option<usize>),
        (active, hole_mask, relevant): (u32, u128, u128),
        (vals, raw): (&[u64; template::MAX_HOLES], &[u64; template::MAX_HOLES]),
    ) -> Option<Printed> {
        let start = out.len();
        let (by_addr, read) = self.print_slow(ctx, enc, sc, out);
        if by_addr {
            sc.tm.refuse(at, tkey, tag, holes);
            return Some(Printed::Memo(true));
        }
        if read & (hole_mask | !relevant) != 0 {
            // Printing read a hole or a bit outside the key: the form's `read` grew, and its
            // keys with it.
            return Some(Printed::Memo(false));
        }
        let t = out.get(start..).unwrap_or("");
        if active == 0 {
            sc.tm.make(at, tkey, tag, 0, cands, vals, vals, t, t);
            return Some(Printed::Done);
        }
        let Some(pending) = at.and_then(|i| sc.tm.table.get(i)).copied() else {
            // The first instance: remember its text; the second makes the template.
            sc.tm.remember(tkey, tag, holes, vals, t);
            return Some(Printed::Done);
        };
        // The second instance: the first one's text is T' when every hole number differs.
        let (t1, v1) = sc.tm.first(&pending);
        if (0..template::MAX_HOLES).all(|h| active >> h & 1 == 0 || v1[h] != vals[h]) {
            let t1 = t1.to_string();
            if sc.tm.make(at, tkey, tag, holes, cands, &v1, vals, &t1, t) {
                return Some(Printed::Done);
            }
        }
        // Else a text T' with other hole numbers.
        let mut w2 = ctx.w;
        let mut pvals = [0u64; template::MAX_HOLES];
        let mut chosen: Vec<(template::HoleKind, u64)> = Vec::with_capacity(template::MAX_HOLES);
        for (h, c) in cands.iter().enumerate() {
            if active >> h & 1 == 0 {
                continue;
            }
            let Some(f) = template::field(ctx.form, c) else { return Some(Printed::Memo(false)) };
            // Other numbers of the same kind in the text: the perturbed number must differ.
            let mut avoid: Vec<u64> = Vec::with_capacity(ctx.form.fields.len() + chosen.len());
            avoid.extend(ctx.form.fields.iter().filter(|g| same_family(g.kind, f.kind)).map(|g| g.get(ctx.w)));
            avoid.extend(chosen.iter().filter(|x| x.0 == c.kind).map(|x| x.1));
            let Some(pv) = template::perturb(c, raw[h], &avoid, 0) else {
                sc.tm.refuse(at, tkey, tag, holes);
                return Some(Printed::Memo(false));
            };
            chosen.push((c.kind, pv));
            f.set(&mut w2, pv);
            pvals[h] = template::hole_value(c, pv).0;
        }
        let ctx2 = Ctx { w: w2, ..*ctx };
        let mut tp = String::new();
        let (by_addr2, read2) = self.print_slow(&ctx2, enc, sc, &mut tp);
        if read2 & (hole_mask | !relevant) != 0 {
            return Some(Printed::Memo(false));
        }
        let t = out.get(start..).unwrap_or("");
        if by_addr2 {
            sc.tm.refuse(at, tkey, tag, holes);
            return Some(Printed::Memo(false));
        }
        if !sc.tm.make(at, tkey, tag, holes, cands, &pvals, vals, &tp, t) {
            sc.tm.refuse(at, tkey, tag, holes);
        }
        Some(Printed::Memo(false))
    }

    fn print_in(&self, ctx: &Ctx, enc: u16, sc: &mut Scratch, out: &mut String) {
        let Scratch { s, t, pool, sort, info, mnems, mnem_text, hint, printed, .. } = sc;
        t.recycle(pool);
        s.clear();
        let info = info[usize::from(self.size == 16)].get(enc);
        // The mnemonic cache: a hit gives the sorted mnemonic; only the operands are rendered.
        let mut cached = None;
        if let Some(ms) = info.and_then(|x| x.mnem.as_ref()) {
            let key = ctx.w & ms.mask;
            let mut h = (enc as u64) << 8 | self.size as u64;
            for half in [key as u64, (key >> 64) as u64] {
                h = (h ^ half).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            }
            // Sized for a short listing where one is announced (`hint`); full size once a
            // printer has printed four times as many instructions as it holds.
            let full = 1usize << MNEM_BITS;
            if mnems.is_empty() || (mnems.len() < full && *printed > 4 * mnems.len()) {
                let bits = if *hint == 0 || !mnems.is_empty() { MNEM_BITS } else { (ceil_log2(*hint) + 1).clamp(4, MNEM_BITS) };
                *mnems = crate::written_table(1 << bits, MnemEntry::default());
                mnem_text.clear();
            }
            let bits = mnems.len().trailing_zeros();
            let slot = (h.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - bits)) as usize;
            let tag = (self.size as u32) << 16 | (enc as u32 + 1);
            cached = Some((slot, tag, key, ms.at));
        }
        let hit = match cached {
            Some((slot, tag, key, _)) => mnems
                .get(slot)
                .filter(|e| e.tag == tag && e.key == key)
                .and_then(|e| mnem_text.get(e.at as usize..(e.at + e.len) as usize)),
            None => None,
        };
        let reuse_info = if self.size == 16 { info } else { None };
        // No marks by slot offset (`reuse_slots`): sm86 marks from its probed `REUSE_` fields
        // (`FormInfo::reuse`), and sm50's first rule (`sm50::reuse`) removes every `.reuse`
        // and places its own, so marks made here would only be removed again.
        if let (Some(e), Some((_, _, _, at))) = (hit, cached) {
            t.mnem.push_str(e);
            render_in(ctx, &[], reuse_info, at, s);
        } else {
            render_in(ctx, &[], reuse_info, (0, 0), s);
        }
        guard(ctx, &mut t.guard);
        split_pooled(s, t, pool);
        if ctx.reuse != 0 {
            // (reuse marks are written only for a set flag)
            for o in t.ops.iter_mut() {
                place_reuse(o, self.size == 8);
            }
        }
        if hit.is_none() {
            sort_suffixes_in(ctx, t, sort);
            // Cached only when no mnemonic field printed a space (the mnemonic then ends at the
            // template's space for these values).
            let fields = info.and_then(|x| x.mnem.as_ref()).map_or(&[][..], |m| &m.fields[..]);
            let mut spaced = false;
            for &fi in fields {
                if let Some(f) = ctx.form.fields.get(fi as usize) {
                    sort.v.clear();
                    plain_text(ctx, f, &mut sort.v);
                    spaced |= sort.v.contains([' ', REUSE_MARK]);
                }
            }
            if let Some((slot, tag, key, _)) = cached.filter(|_| !spaced) {
                if mnem_text.len() + t.mnem.len() > MNEM_TEXT_MAX {
                    // Start over: the texts of replaced entries have filled the store.
                    mnems.fill(MnemEntry::default());
                    mnem_text.clear();
                }
                if let (Some(e), Ok(at), Ok(len)) = (mnems.get_mut(slot), u32::try_from(mnem_text.len()), u32::try_from(t.mnem.len())) {
                    *e = MnemEntry { key, tag, at, len };
                    mnem_text.push_str(&t.mnem);
                }
            }
        }
        (self.fixup)(ctx, t);
        t.write(out);
    }

    /// The canonical instruction: structural bits plus every field the form has; bits outside
    /// all fields are don't-care and come out zero.
    pub fn canonical(&self, d: &Decoded) -> u128 {
        self.word(d) & self.keep_final(d)
    }

    /// `keep`, plus the identifier bits of any more specific form that the zeroed word would
    /// otherwise fall into (those bits are don't-care for this form only while they keep the
    /// word out of the other one).
    fn keep_final(&self, d: &Decoded) -> u128 {
        self.keep_final_from(d, self.keep(d))
    }

    /// [`Self::keep_final`] from `keep`, the form's [`Self::keep`] (the same for every word of
    /// the form, so a caller may keep it per form).
    fn keep_final_from(&self, d: &Decoded, mut keep: u128) -> u128 {
        let w = self.word(d);
        for _ in 0..8 {
            match self.classify(w & keep) {
                Some((f, _)) if f == d.enc => return keep,
                Some((f, _)) => keep |= self.t.forms.get(f as usize).map(|x| x.mask).unwrap_or(u128::MAX),
                None => break,
            }
        }
        if self.size == 8 { u64::MAX as u128 } else { u128::MAX }
    }

    /// The bits that matter: structural bits, every field of the form, and the fixed
    /// immediate / branch-offset positions the printer rules read.
    fn keep(&self, d: &Decoded) -> u128 {
        let Some(form) = self.t.forms.get(d.enc as usize) else { return u128::MAX };
        let mut keep = form.mask;
        for f in form.fields {
            keep |= f.mask();
            if f.kind == NvKind::FImm {
                keep |= if self.size == 8 { (((1u128 << 32) - 1) << 20) | 1 << 56 } else { ((1u128 << 32) - 1) << 32 };
            }
        }
        let inst = &self.t.insts[form.inst as usize];
        // Branch targets: sm50 bits 20.. (24 or 32 wide); sm86 bits 32-80 (the printer reads
        // the word offset from bits 34-80), also for BSSY, which is not flagged a branch.
        if inst.flags & crate::spec::FLAG_BRANCH != 0 || inst.name == "BSSY" {
            let n = if inst.name == "JMX" { 32 } else { 24 };
            keep |= if self.size == 8 { ((1u128 << n) - 1) << 20 } else { ((1u128 << 49) - 1) << 32 };
        }
        if self.isa == Isa::Sm50 {
            keep |= crate::sm50::printed_bits(inst.name) as u128;
        }
        if self.size == 16 {
            keep |= ((1u128 << 21) - 1) << 105;
            // bits the sm86 printer rules read outside the form's fields
            keep |= crate::sm86::rule_bits(inst.name);
        }
        keep & if self.size == 8 { u64::MAX as u128 } else { u128::MAX }
    }

    /// Bits the spec marks as don't-care for this form (encode writes them as zero).
    pub fn dont_care(&self, d: &Decoded) -> u128 {
        self.dont_care_from(d, self.keep(d))
    }

    /// [`Self::dont_care`] from the form's [`Self::keep`], worked out before.
    pub(crate) fn dont_care_from(&self, d: &Decoded, keep: u128) -> u128 {
        let all = if self.size == 8 { u64::MAX as u128 } else { u128::MAX };
        all & !self.keep_final_from(d, keep)
    }
}

impl IsaPlugin for NvPlugin {
    fn isa(&self) -> Isa {
        self.isa
    }
    fn unit(&self) -> usize {
        self.size
    }
    #[inline]
    fn decode(&self, bytes: &[u8], addr: u64) -> Result<Decoded, DecodeError> {
        // The size is 8 or 16: alignment is a mask test (no division).
        if addr & (self.size as u64 - 1) != 0 {
            return Err(DecodeError::Misaligned { isa: self.isa, addr, unit: self.size });
        }
        let w = match (self.size, bytes.first_chunk::<16>(), bytes.first_chunk::<8>()) {
            (16, Some(b), _) => u128::from_le_bytes(*b),
            (8, _, Some(b)) => u64::from_le_bytes(*b) as u128,
            _ => return Err(DecodeError::Truncated { isa: self.isa, addr, need: self.size, have: bytes.len() }),
        };
        self.decode_word(w, addr)
    }
    fn decode_block(&self, bytes: &[u8], base_addr: u64, out: &mut Vec<Decoded>) -> usize {
        if self.size == 16 {
            self.block::<true>(bytes, base_addr, out)
        } else {
            self.block::<false>(bytes, base_addr, out)
        }
    }
    fn print(&self, inst: &Decoded, addr: u64, out: &mut String) {
        let reuse = if self.size == 16 { control::sm86_reuse(self.word(inst)) } else { 0 };
        self.print_with(inst, addr, reuse, out)
    }
    fn encode(&self, inst: &Decoded) -> Vec<u8> {
        self.canonical(inst).to_le_bytes()[..self.size].to_vec()
    }
    fn name(&self, inst: &Decoded) -> &'static str {
        self.t.insts.get(inst.ienc as usize).map(|i| i.name).unwrap_or("")
    }
    fn encoding_name(&self, inst: &Decoded) -> &'static str {
        self.t.forms.get(inst.enc as usize).map(|f| f.name).unwrap_or("")
    }
    fn operands(&self, inst: &Decoded, addr: u64) -> crate::Inst {
        model::operands(self, inst, addr)
    }
    fn flow(&self, inst: &Decoded) -> crate::operand::Flow {
        model::flow(self, inst)
    }
    fn build(&self, inst: &crate::Inst) -> Result<Vec<u8>, crate::BuildError> {
        build::build(self, inst)
    }
}
