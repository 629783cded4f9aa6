//! The AMD listing: memoised lines, and two threads on large sections (a second thread from
//! the middle, or both taking parts in turn).

use super::cpus;
use super::line::{hex8, push_branch_note, push_comment, push_header, write_line, HEX_PAIRS};
use super::memo::{Memo, MemoEntry, BRANCH_NONE, BRANCH_REL, SPACES, TEMPLATE_MAX};
use super::threads::{spawn_claimable, Claim};
use super::{AMD_CHUNK, AMD_CHUNKED_MIN, AMD_SPLIT_MIN, BATCH_BYTES, FLUSH_AT, PARTS_AHEAD, SPLICE_STARTS};
use isabridge_decoder::disasm::{listed_target, zero_fill, ZERO_FILL_LINE};
use isabridge_decoder::elf::Label;
use isabridge_decoder::{Decoded, DecodeError, IsaPlugin};
use std::fmt::Write as _;

/// Where the lines of an AMD listing loop go.
pub(super) trait Sink {
    /// A function header (`label`: index of the function's label, None for the section).
    fn header(&mut self, addr: u64, label: Option<usize>, name: &str);
    /// The line of instruction `d` at `off`: distinct instruction `k` of `memo`.
    fn entry(&mut self, memo: &Memo, k: usize, d: &Decoded, addr: u64, off: usize);
    /// The line of instruction `d` at `off`, which is not memoised.
    fn printed(&mut self, d: &Decoded, addr: u64, off: usize);
    /// The `.long` line of an undecodable word (`v_illegal` for an all-zero one).
    fn long(&mut self, word: u32, addr: u64, off: usize);
    /// The `\t\t...` line of `n` zero bytes folded (see `disasm::zero_fill`).
    fn zeros(&mut self, addr: u64, off: usize, n: usize);
    /// Where the next line starts: lines so far (records) or bytes so far (text).
    fn mark(&self) -> usize;
}

/// Room [`Text`] keeps past [`FLUSH_AT`]: a memoised line is written as one block of this
/// size (its template and slack, then the address digits inside it).
pub(super) const ROOM: usize = 2 * TEMPLATE_MAX;

/// Size of [`Text`]'s buffer.
pub(super) const BUF_LEN: usize = FLUSH_AT + ROOM;

/// Lines as text in a fixed buffer, handed to `flush` whenever more than [`FLUSH_AT`] bytes
/// are in it.
pub(super) struct Text<'a, 'f> {
    /// The text not yet handed on: `buf[..pos]`.
    pub(super) buf: Box<[u8; BUF_LEN]>,
    /// Bytes in `buf`.
    pub(super) pos: usize,
    pub(super) flush: &'f mut dyn FnMut(&[u8]),
    pub(super) plugin: &'a dyn IsaPlugin,
    pub(super) code: &'a [u8],
    pub(super) base: u64,
    pub(super) section: &'a str,
    pub(super) labels: &'a [Label<'a>],
    /// Scratch text of a printed instruction.
    pub(super) text: String,
    /// Scratch comment of a printed instruction (see `IsaPlugin::print_noted`).
    pub(super) note: String,
    /// Scratch bytes of a line built piece by piece.
    pub(super) line: Vec<u8>,
    /// Bytes handed on so far.
    pub(super) flushed: usize,
    /// Where full buffers go instead of `flush` (the parts of [`amd_chunked`]).
    pub(super) keep: Option<Kept<'f>>,
    /// `addr >> 16` of the last memoised line, and its eight digits (they change every 64 KiB).
    pub(super) hi: u64,
    pub(super) hi_digits: [u8; 8],
}

/// A text buffer of [`Text`].
pub(super) type TextBuf = Box<[u8; BUF_LEN]>;

/// A new, zeroed text buffer (pages straight from the allocator).
pub(super) fn text_buf() -> TextBuf {
    vec![0u8; BUF_LEN].into_boxed_slice().try_into().unwrap_or_else(|_| Box::new([0; BUF_LEN]))
}

/// The full buffers of a [`Text`] that keeps its text (an [`amd_chunked`] part) and where it
/// takes empty ones from.
pub(super) struct Kept<'p> {
    /// Full buffers and how many bytes of each are text, in order.
    pub(super) full: Vec<(TextBuf, usize)>,
    /// Buffers handed on and free again.
    pub(super) pool: &'p std::sync::Mutex<Vec<TextBuf>>,
}

impl Kept<'_> {
    /// An empty buffer: a used one where there is one.
    pub(super) fn fresh(&self) -> TextBuf {
        self.pool.lock().ok().and_then(|mut p| p.pop()).unwrap_or_else(text_buf)
    }
}

impl<'a, 'f> Text<'a, 'f> {
    pub(super) fn new(flush: &'f mut dyn FnMut(&[u8]), plugin: &'a dyn IsaPlugin, code: &'a [u8], base: u64, section: &'a str, labels: &'a [Label]) -> Self {
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
            note: String::new(),
            line: Vec::with_capacity(256),
            flushed: 0,
            keep: None,
            hi: 0,
            hi_digits: hex8(0),
        }
    }

    /// Hands the buffered text on.
    #[inline(never)]
    pub(super) fn spill(&mut self) {
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
    pub(super) fn put_line(&mut self) {
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
    pub(super) fn digits(&mut self, addr: u64) -> (u64, u32) {
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
    pub(super) fn entry_line(&mut self, memo: &Memo, e: &MemoEntry, d: Option<&Decoded>, addr: u64, off: usize) {
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
    pub(super) fn branch_end(&mut self, e: &MemoEntry, d: Option<&Decoded>, addr: u64, off: usize) {
        let t = match (e.branch, d) {
            (BRANCH_REL, _) => Some(addr.wrapping_add(e.rel as i64 as u64)),
            (_, Some(d)) => listed_target(self.plugin, d, addr),
            (_, None) => self.plugin.decode(&self.code[off..], addr).ok().and_then(|d| listed_target(self.plugin, &d, addr)),
        };
        self.note(t);
        self.line.push(b'\n');
        self.put_line();
    }

    /// Appends the branch-target note of a branch to `target` to `self.line`.
    pub(super) fn note(&mut self, target: Option<u64>) {
        if let Some(t) = target.and_then(|t| t.checked_sub(self.base)) {
            push_branch_note(&mut self.line, t, self.section, self.labels);
        }
    }

    /// The line of an instruction that is not memoised.
    #[inline(never)]
    pub(super) fn printed_line(&mut self, d: &Decoded, addr: u64, off: usize) {
        self.text.clear();
        self.note.clear();
        self.plugin.print_noted(d, addr, &mut self.text, &mut self.note);
        let bytes = self.code.get(off..off + d.len as usize).unwrap_or(&[]);
        write_line(&mut self.line, &self.text, addr, bytes, "");
        if let Some(t) = listed_target(self.plugin, d, addr) {
            self.line.pop();
            self.note(Some(t));
            self.line.push(b'\n');
        }
        if !self.note.is_empty() {
            self.line.pop();
            push_comment(&mut self.line, &self.note);
            self.line.push(b'\n');
        }
        self.put_line();
    }

    pub(super) fn finish(&mut self) {
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
        let bytes = self.code.get(off..).unwrap_or(&[]);
        let bytes = &bytes[..bytes.len().min(4)];
        if bytes.len() == 4 && word == 0 {
            // (LLVM decodes an all-zero dword as `v_illegal`)
            self.text.push_str("v_illegal");
        } else if bytes.len() == 4 {
            let _ = write!(self.text, ".long 0x{word:08x}");
        } else {
            // The last bytes of a section, fewer than a word.
            self.text.push_str(".byte ");
            for (i, b) in bytes.iter().enumerate() {
                let _ = write!(self.text, "{}0x{b:02x}", if i > 0 { ", " } else { "" });
            }
        }
        write_line(&mut self.line, &self.text, addr, bytes, "");
        if bytes.len() == 4 && word != 0 {
            // The warnings LLVM printed about operands it decoded before refusing the word.
            self.note.clear();
            self.plugin.rejected_note(self.code.get(off..).unwrap_or(&[]), addr, &mut self.note);
            if !self.note.is_empty() {
                self.line.pop();
                push_comment(&mut self.line, &self.note);
                self.line.push(b'\n');
            }
        }
        self.put_line();
    }

    fn zeros(&mut self, _addr: u64, _off: usize, _n: usize) {
        self.line.extend_from_slice(ZERO_FILL_LINE);
        self.put_line();
    }

    fn mark(&self) -> usize {
        self.flushed + self.pos
    }
}

/// The second thread's lines in compact form, one `u32` each, turned into text by the first:
/// a memo entry index (below [`REC_PRINT`]), or a tag. Offsets are not stored: each line
/// starts where the previous one ends.
pub(super) struct Recs(pub(super) Vec<u32>);

/// [`Recs`]: an instruction that is not memoised (decoded and printed again).
pub(super) const REC_PRINT: u32 = 1 << 30;

/// [`Recs`]: a `.long` line; with a non-zero count of dwords in the low 30 bits, the `...`
/// line of that many zero dwords.
pub(super) const REC_LONG: u32 = 2 << 30;

/// [`Recs`]: a function header, with the label index in the low 30 bits (all ones: the section).
pub(super) const REC_HEADER: u32 = 3 << 30;

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

    fn zeros(&mut self, _addr: u64, _off: usize, n: usize) {
        // (sections listed in records are under 4 GiB: at most 2^30 dwords)
        self.0.push(REC_LONG | ((n / 4) as u32 & (REC_PRINT - 1)));
    }

    fn mark(&self) -> usize {
        self.0.len()
    }
}

/// The state of an AMD listing loop besides the offset: everything a line depends on.
pub(super) struct Run<'a> {
    /// Lines of the distinct instructions seen.
    pub(super) memo: Memo,
    /// The next label not yet passed.
    pub(super) next_label: usize,
    /// Offset of the next label (`u64::MAX` when none is left): one compare per line.
    pub(super) next_at: u64,
    /// The function the current instruction belongs to.
    pub(super) function: &'a str,
    /// The function of the previous line (a header is written where it differs).
    pub(super) last: Option<&'a str>,
    /// A label was passed since the last line: compare `function` with `last`.
    pub(super) changed: bool,
}

/// Where [`Run::run`] stops.
pub(super) struct Stop<'s> {
    /// `at(off)` is asked only for offsets from here on.
    pub(super) from: usize,
    /// True at an instruction start where the run stops.
    pub(super) at: &'s dyn Fn(usize) -> bool,
    /// Set by another thread: stop at the next batch of lines.
    pub(super) cancel: Option<&'s std::sync::atomic::AtomicBool>,
}

impl<'a> Run<'a> {
    /// The state at offset `from` of a sequential run from 0, guessing that the previous line
    /// belongs to the last label before `from` (exact for `from` = 0: no previous line).
    pub(super) fn at(section: &'a str, labels: &'a [Label], from: usize, code_len: usize) -> Run<'a> {
        Run::with_memo(section, labels, from, Memo::new(code_len))
    }

    /// [`Run::at`] with the lines of `memo` (a thread's memo carried from one part to the next).
    pub(super) fn with_memo(section: &'a str, labels: &'a [Label], from: usize, memo: Memo) -> Run<'a> {
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
    pub(super) fn run(
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
        loop {
            // Decoding starts again at every label (see `isabridge_decoder::disasm::disassemble`):
            // after an instruction that ran over one, the next line is at the label.
            if self.next_at < off as u64 {
                off = self.next_at as usize;
                batch.clear();
                next = 0;
            }
            if off >= code.len() || (off >= stop.from && (stop.at)(off)) {
                break;
            }
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
                    // A run of zero bytes up to the next label is one `...` line.
                    let n = if word == 0 { zero_fill(code, off, self.next_at.min(code.len() as u64) as usize) } else { 0 };
                    if n > 0 {
                        sink.zeros(addr, off, n);
                        off += n;
                    } else {
                        sink.long(word, addr, off);
                        off += 4;
                    }
                }
                // Cut off by the section's end: its first word as `.long`, or the last bytes
                // as `.byte` (see `Text::long`).
                Err(DecodeError::Truncated { .. }) => {
                    let w = code.get(off..off + 4).map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
                    sink.long(w, addr, off);
                    off = code.len().min(off + 4);
                }
                Err(e) => return Err(e),
            }
        }
        Ok(off)
    }
}

impl<'a> Run<'a> {
    /// Lists from `off` to the end of `code` alone into `text`, and hands the text on.
    pub(super) fn run_alone(&mut self, plugin: &dyn IsaPlugin, code: &[u8], base: u64, labels: &'a [Label], off: usize, text: &mut Text) -> Result<(), DecodeError> {
        let never = |_: usize| false;
        let r = self.run(plugin, code, base, labels, off, &Stop { from: usize::MAX, at: &never, cancel: None }, text, None);
        text.finish();
        r.map(|_| ())
    }
}

/// Where the line after one that ends at `o` starts: `o`, or the first label not yet passed
/// (`labels[*next]`) where the line ran over it (decoding starts again at every label); moves
/// `next` past the labels at or before that place.
fn restart_at(labels: &[Label], mut o: usize, next: &mut usize) -> usize {
    while let Some(l) = labels.get(*next) {
        if l.offset < o as u64 {
            o = l.offset as usize;
        }
        if l.offset > o as u64 {
            break;
        }
        *next += 1;
    }
    o
}

/// The AMD listing. A section of [`AMD_SPLIT_MIN`] bytes or more is cut at `g`, the first label
/// within 1/16 after half of it, else that point itself (sections of [`AMD_CHUNKED_MIN`] bytes
/// or more go to `amd_chunked`): a second thread lists from
/// `g` to the end (in compact form) while this one lists from 0. When this thread arrives
/// exactly at one of the second thread's first line starts, with the same previous function,
/// every later line is the same as the second thread's (a line depends only on its offset and
/// that), so the lines are taken from there; otherwise this thread simply goes on to the end.
/// Either way the output is the sequential listing.
pub(super) fn amd_listing(
    plugin: &dyn IsaPlugin,
    code: &[u8],
    base: u64,
    section: &str,
    labels: &[Label],
    flush: &mut dyn FnMut(&[u8]),
) -> Result<(), DecodeError> {
    let cpus = if code.len() >= AMD_SPLIT_MIN { cpus::here() } else { None };
    if code.len() >= AMD_CHUNKED_MIN && cpus::count(&cpus) > 1 {
        return amd_chunked(plugin, code, base, section, labels, cpus, flush);
    }
    let mut text = Text::new(flush, plugin, code, base, section, labels);
    let mut main = Run::at(section, labels, 0, code.len());
    let never = |_: usize| false;
    let split = (code.len() >= AMD_SPLIT_MIN && code.len() < u32::MAX as usize && cpus::count(&cpus) > 1).then(|| {
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
    let mut nl = labels.partition_point(|l| l.offset <= g as u64);
    while o < code.len() && starts.len() < SPLICE_STARTS {
        starts.push(o);
        o += match plugin.decode(&code[o..], base + o as u64) {
            Ok(d) => d.len as usize,
            Err(DecodeError::Unknown { word: 0, .. }) => {
                zero_fill(code, o, labels.get(nl).map_or(code.len(), |l| l.offset as usize)).max(4)
            }
            Err(DecodeError::Unknown { .. }) => 4,
            Err(_) => break,
        };
        o = restart_at(labels, o, &mut nl);
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
                let mut nl = labels.partition_point(|l| l.offset <= off as u64);
                for &l in lines.0.get(pos..).unwrap_or(&[]) {
                    o = restart_at(labels, o, &mut nl);
                    let addr = base + o as u64;
                    match l {
                        REC_HEADER.. => {
                            let name = labels.get((l & (REC_PRINT - 1)) as usize).map_or(section, |l| &*l.name);
                            text.header(addr, None, name);
                        }
                        REC_LONG..REC_HEADER => {
                            let zeros = (l & (REC_PRINT - 1)) as usize * 4;
                            if zeros > 0 {
                                text.zeros(addr, o, zeros);
                                o = code.len().min(o + zeros);
                            } else {
                                let w = code.get(o..o + 4).map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
                                text.long(w, addr, o);
                                o = code.len().min(o + 4);
                            }
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

/// Where [`amd_chunked`] cuts a section of `len` bytes: the start of each part (the first is 0),
/// at the first label at least [`AMD_CHUNK`] bytes after the start before it where one lies
/// within another [`AMD_CHUNK`] (a function start: an instruction start, whose previous line's
/// function is known), else at that point itself. A start is only a guess: the part before it
/// decides where the lines really are (see [`amd_chunked`]).
pub(super) fn chunk_starts(len: usize, labels: &[Label]) -> Vec<usize> {
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
pub(super) struct Part<'a> {
    /// The text of its lines, in buffers (and how many bytes of each are text).
    pub(super) text: Vec<(TextBuf, usize)>,
    /// Its first lines: offset, where the line starts in `text`, function of the line before.
    pub(super) starts: Vec<(usize, usize, Option<&'a str>)>,
    /// The instruction start where it stopped (at or past the next part's start, or the
    /// section's end), or the error that stopped it.
    pub(super) end: Result<usize, DecodeError>,
    /// The function of its last line.
    pub(super) last: Option<&'a str>,
}

/// What the threads of [`amd_chunked`] share.
pub(super) struct PartsShared<'s, 'a> {
    /// Where each part starts.
    pub(super) starts: &'s [usize],
    /// The next part no thread has taken.
    pub(super) next: &'s std::sync::atomic::AtomicUsize,
    /// Set when no more parts are wanted.
    pub(super) cancel: &'s std::sync::atomic::AtomicBool,
    /// The parts listed and not yet handed on.
    pub(super) parts: &'s [std::sync::Mutex<Option<Part<'a>>>],
    /// Per part: listed.
    pub(super) ready: &'s [std::sync::atomic::AtomicBool],
    /// Parts handed on so far (a part is not started before this is within [`PARTS_AHEAD`]).
    pub(super) written: &'s std::sync::atomic::AtomicUsize,
}

impl<'a> PartsShared<'_, 'a> {
    /// Takes parts and lists them with `text` (which keeps its buffers) and `memo` until none is
    /// left or no more are wanted; `only_one`: one at most, by the thread that hands parts on
    /// (else by the worker, which waits before a part more than [`PARTS_AHEAD`] ahead).
    pub(super) fn list(&self, text: &mut Text<'a, '_>, memo: &mut Option<Memo>, only_one: bool) {
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
pub(super) fn amd_chunked(
    plugin: &dyn IsaPlugin,
    code: &[u8],
    base: u64,
    section: &str,
    labels: &[Label],
    cpus: cpus::Here,
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
                cpus::leave(&cpus);
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
