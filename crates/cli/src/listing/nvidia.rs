//! The NVIDIA listing: one thread, or two that cut the code in two (`nv_split`) or take
//! whole sections in turn (`nv_parallel`).

use super::cpus;
use super::line::{addr_digits, hex8, push_header, push_section_line, write_line, TEXT_COLUMN};
use super::threads::{spawn_beside, spawn_claimable, Claim};
use super::{text_room, ListSection, AHEAD, FLUSH_AT};
use isabridge_decoder::disasm::disassemble_with_printer;
use isabridge_decoder::elf::Label;
use isabridge_decoder::nvidia::NvPrinter;
use isabridge_decoder::{DecodeError, Isa, IsaPlugin};

/// The NVIDIA listing of one section, printed through `printer` and appended to `out`; `spill`
/// is called whenever `out` holds more than [`FLUSH_AT`] bytes (it may empty it). NVIDIA text
/// reads the address (branch targets): no line memo (the printer has its own). The NVIDIA
/// plugins print branch targets in the text and give no `branch_target`, so the lines carry no
/// note.
#[allow(clippy::too_many_arguments)]
pub(super) fn nv_listing(
    plugin: &dyn IsaPlugin,
    printer: &mut NvPrinter,
    code: &[u8],
    base: u64,
    section: &str,
    labels: &[Label],
    out: &mut Vec<u8>,
    spill: &mut dyn FnMut(&mut Vec<u8>),
) -> Result<(), DecodeError> {
    nv_listing_at(plugin, printer, code, base, section, labels, None, out, spill)
}

/// The NVIDIA listing of the tail `code[from..]` of a section whose lines before `from` (a
/// whole number of instructions, sm50: of bundles) are listed elsewhere: the same lines as that
/// part of [`nv_listing`] of the whole section, a function header only where a label is passed.
#[allow(clippy::too_many_arguments)]
pub(super) fn nv_listing_from(
    plugin: &dyn IsaPlugin,
    printer: &mut NvPrinter,
    code: &[u8],
    base: u64,
    section: &str,
    labels: &[Label],
    from: usize,
    out: &mut Vec<u8>,
    spill: &mut dyn FnMut(&mut Vec<u8>),
) -> Result<(), DecodeError> {
    if from == 0 {
        return nv_listing(plugin, printer, code, base, section, labels, out, spill);
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
    nv_listing_at(plugin, printer, code.get(from..).unwrap_or(&[]), base + from as u64, section, &moved, Some(name), out, spill)
}

/// [`nv_listing`] with the header state of the line before `code`: the function named by the
/// last header (None at a section's start).
#[allow(clippy::too_many_arguments)]
pub(super) fn nv_listing_at(
    plugin: &dyn IsaPlugin,
    printer: &mut NvPrinter,
    code: &[u8],
    base: u64,
    section: &str,
    labels: &[Label],
    last: Option<&str>,
    out: &mut Vec<u8>,
    spill: &mut dyn FnMut(&mut Vec<u8>),
) -> Result<(), DecodeError> {
    // The function of the last header, and the place of the last line's function name: names
    // are compared only where that changes (where a label is passed).
    let mut last: Option<String> = last.map(str::to_owned);
    let mut seen = (0usize, 0usize);
    disassemble_with_printer(plugin, printer, code, base, section, labels, |l| {
        let addr = base + l.offset;
        let here = (l.function.as_ptr() as usize, l.function.len());
        if here != seen {
            seen = here;
            if last.as_deref() != Some(l.function) {
                push_header(out, addr, l.function);
                last = Some(l.function.to_owned());
            }
        }
        nv_line(out, l.text, addr, l.bytes);
        if out.len() > FLUSH_AT {
            spill(out);
        }
    })
}

/// [`write_line`] without a note, for instructions of at most 16 bytes in whole words (NVIDIA):
/// the same bytes, built in one fixed-size block (text up to the column) or two (longer text).
#[inline]
pub(super) fn nv_line(out: &mut Vec<u8>, text: &str, addr: u64, bytes: &[u8]) {
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

/// Where [`nv_split`] cuts `sections`: the section and the byte offset in it of the instruction
/// boundary (sm50: bundle boundary) nearest after `at` bytes of code, counted over the
/// sections in order. None when a section is not whole instructions (the sequential listing
/// then reports it) or the cut would leave one part empty.
pub(super) fn nv_cut(plugin: &dyn IsaPlugin, sections: &[ListSection<'_>], at: usize) -> Option<(usize, usize)> {
    let unit = if plugin.isa() == Isa::Sm50 { isabridge_decoder::sm50::BUNDLE } else { plugin.unit() };
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
pub(super) fn nv_split(
    plugin: &dyn IsaPlugin,
    sections: &[ListSection<'_>],
    (cs, co): (usize, usize),
    cpus: &cpus::Here,
    flush: &mut dyn FnMut(&[u8]),
) -> Result<(), DecodeError> {
    let claim = std::sync::Arc::new(Claim::new());
    let job = move |_: &std::sync::atomic::AtomicBool| {
        let tail: usize = sections.iter().skip(cs).map(|s| s.2.len()).sum::<usize>() - co;
        let mut out = Vec::with_capacity(text_room(tail));
        let r = nv_part(plugin, &mut NvPrinter::new(), sections, (cs, co), (usize::MAX, 0), &mut out, &mut |_| {});
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
    let mut printer = NvPrinter::new();
    let r = nv_part(plugin, &mut printer, sections, (0, 0), (cs, co), &mut out, &mut spill);
    let r = match r {
        Ok(()) => match (worker && !claim.take_back()).then(|| claim.wait()).flatten() {
            Some((text, r2)) => {
                spill(&mut out);
                out = text;
                r2
            }
            // The worker never started (it was taken back) or died (a panic) before handing its
            // part over: list it here.
            None => nv_part(plugin, &mut printer, sections, (cs, co), (usize::MAX, 0), &mut out, &mut spill),
        },
        e => {
            claim.give_up(worker);
            e
        }
    };
    flush(&out);
    r
}

/// Lists `sections` from byte `from.1` of section `from.0` up to byte `to.1` of section
/// `to.0` (exclusive), each section's part after its `Disassembly of section` line when the
/// part starts the section, printed through `printer`; stops at the first error.
pub(super) fn nv_part(
    plugin: &dyn IsaPlugin,
    printer: &mut NvPrinter,
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
        nv_listing_from(plugin, printer, data, *addr, name, labels, from, out, spill)?;
    }
    Ok(())
}

/// One section's text and result in [`nv_parallel`].
pub(super) type Done = (Vec<u8>, Result<(), DecodeError>);

/// The shared state of [`nv_parallel`].
pub(super) struct Shared {
    /// Finished sections not yet handed on, by index.
    pub(super) done: Vec<Option<Done>>,
    /// Buffers handed on, to be reused.
    pub(super) pool: Vec<Vec<u8>>,
    /// The next section nobody has claimed.
    pub(super) next: usize,
    /// The next section to hand on.
    pub(super) written: usize,
    /// Set at the first error: claim nothing more.
    pub(super) stop: bool,
    /// Threads waiting on the condition variable.
    pub(super) waiting: usize,
}

/// [`listing_sections`] for NVIDIA on two threads: each claims the next section not yet taken
/// (at most [`AHEAD`] past the next one to hand on) and lists it into a buffer; this thread
/// hands the finished buffers on in section order and stops at the first error.
pub(super) fn nv_parallel(plugin: &dyn IsaPlugin, sections: &[ListSection<'_>], flush: &mut dyn FnMut(&[u8])) -> Result<(), DecodeError> {
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
    let list_one = |printer: &mut NvPrinter, i: usize, mut buf: Vec<u8>| -> Done {
        let (name, addr, data, labels) = &sections[i];
        buf.clear();
        buf.reserve(text_room(data.len()));
        push_section_line(&mut buf, name);
        let r = nv_listing(plugin, printer, data, *addr, name, labels, &mut buf, &mut |_| {});
        (buf, r)
    };
    // Each thread prints through a printer of its own; a long listing: templates pay from the
    // start.
    let eager = || {
        let mut p = NvPrinter::new();
        p.eager_templates(true);
        p
    };
    let cpus = cpus::here();
    std::thread::scope(|scope| {
        let cpus = &cpus;
        let helper = spawn_beside(scope, cpus, move || {
            let mut printer = eager();
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
                let d = list_one(&mut printer, i, buf);
                let mut g = lock();
                g.done[i] = Some(d);
                wake(g);
            }
        });
        let mut printer = eager();
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
                    let d = list_one(&mut printer, j, buf);
                    if j == i {
                        break d;
                    }
                    g = lock();
                    g.done[j] = Some(d);
                } else if helper.is_finished() {
                    // Only if the helper died before handing section i in: list it here.
                    let buf = g.pool.pop().unwrap_or_default();
                    drop(g);
                    break list_one(&mut printer, i, buf);
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
