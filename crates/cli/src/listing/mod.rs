//! The listing engine of `isabridge disasm`: the text of `isabridge_decoder::disasm::listing`
//! and `listing_sections`, byte for byte, made fast. AMD lines are memoised per distinct
//! instruction (memo.rs) and written from templates (amd.rs); large AMD sections and NVIDIA
//! code objects are listed by two threads (amd.rs, nvidia.rs, threads.rs), the second nudged
//! onto another CPU (cpus.rs, Linux). The tuning constants are here, in one place; the figures
//! behind them are in BENCHMARKS.md.

mod amd;
mod cpus;
mod cubin;
mod cubin_elf;
mod line;
mod memo;
mod nvidia;
mod threads;
#[cfg(test)]
mod tests;

use amd::amd_listing;
pub(crate) use cubin::cubin_listing;
pub(crate) use isabridge_decoder::disasm::ListSection;
use isabridge_decoder::elf::Label;
use isabridge_decoder::nvidia::NvPrinter;
use isabridge_decoder::{DecodeError, Isa, IsaPlugin};
use nvidia::{nv_cut, nv_listing, nv_parallel, nv_split};

/// Writes the text listing of one section in llvm-objdump-22's layout: a header line where the
/// function changes, then one line per instruction with the branch-target note of direct
/// branches. The text goes to `flush` in pieces of about 16 KiB, in order. Errors as in
/// `isabridge_decoder::disasm::disassemble`; the lines before the error have been passed to `flush`.
///
/// AMD sections of [`AMD_SPLIT_MIN`] bytes or more are listed by two threads: the second from an
/// instruction boundary near half of the section, or, from [`AMD_CHUNKED_MIN`] bytes, both
/// taking parts in turn; the result is the sequential listing byte for byte (see `amd_listing`
/// and `amd_chunked`).
pub(crate) fn listing(
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
    nv_flushed(plugin, &mut NvPrinter::new(), code, base, section, labels, flush)
}

/// The NVIDIA [`listing`] of one section, printed through `printer`.
fn nv_flushed(
    plugin: &dyn IsaPlugin,
    printer: &mut NvPrinter,
    code: &[u8],
    base: u64,
    section: &str,
    labels: &[Label],
    flush: &mut dyn FnMut(&[u8]),
) -> Result<(), DecodeError> {
    let mut out = Vec::with_capacity(FLUSH_AT + 4096);
    let r = nv_listing(plugin, printer, code, base, section, labels, &mut out, &mut |o: &mut Vec<u8>| {
        flush(o);
        o.clear();
    });
    flush(&out);
    r
}

/// Writes the listings of `sections` in order, each after its `\nDisassembly of section NAME:\n`
/// line, as [`listing`] does for one; stops at the first error, after the lines before it.
///
/// NVIDIA code objects (a section per kernel) of [`PARALLEL_MIN`] bytes or more, none of whose
/// sections holds half the code, are listed by two threads taking whole sections in turn
/// (`nv_parallel`); other NVIDIA objects of [`NV_SPLIT_MIN`] bytes or more by two threads that
/// cut the code in two halves at an instruction boundary (`nv_split`). Either way the text is
/// handed on in order, the same bytes as the sequential listing.
pub(crate) fn listing_sections(
    plugin: &dyn IsaPlugin,
    sections: &[ListSection<'_>],
    flush: &mut dyn FnMut(&[u8]),
) -> Result<(), DecodeError> {
    let total: usize = sections.iter().map(|s| s.2.len()).sum();
    let nvidia = matches!(plugin.isa(), Isa::Sm50 | Isa::Sm86);
    let largest = sections.iter().map(|s| s.2.len()).max().unwrap_or(0);
    if nvidia && total >= NV_SPLIT_MIN && (sections.len() < 2 || total < PARALLEL_MIN || 2 * largest > total) {
        let cpus = cpus::here();
        if cpus::count(&cpus) > 1 {
            if let Some(cut) = nv_cut(plugin, sections, total / 2) {
                return nv_split(plugin, sections, cut, &cpus, flush);
            }
        }
    }
    if !nvidia || sections.len() < 2 || total < PARALLEL_MIN {
        // One thread prints it all: its tables need be no larger than the listing.
        let mut printer = NvPrinter::new();
        printer.expect_instructions(total / plugin.unit().max(1));
        for (name, addr, data, labels) in sections {
            flush(format!("\nDisassembly of section {name}:\n").as_bytes());
            if nvidia {
                nv_flushed(plugin, &mut printer, data, *addr, name, labels, flush)?;
            } else {
                listing(plugin, data, *addr, name, labels, flush)?;
            }
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
const NV_SPLIT_MIN: usize = 8 << 10;

/// Bytes to reserve for the listing text of `code` bytes of NVIDIA code kept whole in memory:
/// nvdisasm's layout takes about 9 bytes of text per byte of sm50 code and 7 of sm86 code
/// (fp32.sm50 / fp32.sm86). Reserved at once, so that the buffer is not grown through a chain
/// of copies, each of which touches fresh pages (capacity never written costs nothing: a large
/// block is mapped, and mapped pages are faulted in only when written).
fn text_room(code: usize) -> usize {
    code.saturating_mul(10).saturating_add(4096)
}

/// Sections `nv_parallel` lists ahead of the next one to hand on, at most: the finished
/// buffers waiting are few and are reused (fresh pages cost more than the text they hold).
const AHEAD: usize = 6;

/// Listing text is handed on in pieces of about this size. 16 KiB rather than 64: the buffer's
/// pages are faulted in once and reused, and on the development VM a first touch of a page costs
/// about 2 us (fp64.sm50 and cl_lanes 2-4 % faster, interleaved medians of 200 runs).
const FLUSH_AT: usize = 1 << 14;

/// Smallest NVIDIA code object (bytes of code in all) that `nv_parallel` lists section by
/// section on two threads; AMD sections this large also start with a larger memo table.
const PARALLEL_MIN: usize = 32 << 10;

/// Smallest AMD section (bytes) that `amd_listing` cuts in two for a second thread. Was 8 KiB
/// (when it listed cl_lanes, 17.5 KiB, and hip_control, 8.3-9.9 KiB, 4-12 % faster than one
/// thread); since the listing's other costs fell, one thread is as fast or faster on all six of
/// those objects: interleaved medians of 81 rounds, cl_lanes 873 / 888 / 906 -> 863 / 876 /
/// 890 us, hip_control 763 / 754 / 799 -> 703 / 668 / 748 us (the second thread's start and
/// exit cost more than its half of a listing this small saves).
const AMD_SPLIT_MIN: usize = 32 << 10;

/// Bytes decoded ahead at a time by the AMD listing loop. The batch's records are fresh memory
/// once per thread: 128 of 24 bytes here, one page. 256 of them (two pages) cost 1-3 more page
/// faults a listing (hip_control.gfx1201 76 -> 74, cl_lanes.gfx1013 91 -> 88) for 0.4 % fewer
/// machine instructions (cl_lanes.gfx1013, callgrind: 1.986 M against 1.993 M).
const BATCH_BYTES: usize = 1 << 9;

/// Instruction starts the second thread's first lines are checked against (see `amd_listing`).
const SPLICE_STARTS: usize = 64;

/// Yields `Handoff::take` makes while the value is not ready before it sleeps on the condition
/// variable: about 0.2 ms (a `sched_yield` took 0.6 us on the development VM, 512 of them in a C
/// loop 293-311 us).
const TAKE_SPINS: u32 = 320;

/// Smallest AMD section (bytes) that `amd_chunked` lists: both threads write text, part by
/// part, instead of the first thread turning the second one's records into text after its own
/// half (which made the first thread the slower one on large sections).
const AMD_CHUNKED_MIN: usize = 1 << 20;

/// Bytes of code in a part of `amd_chunked`: about 60 KiB of text, so that the few text
/// buffers in flight are recycled pages, not fresh ones (parts of 16 KiB took 300 more page
/// faults on big.gfx1013).
const AMD_CHUNK: usize = 4 << 10;

/// Most parts of `amd_chunked` listed ahead of the first not yet handed on: the text waiting
/// in memory stays under about half a MiB however slowly the output is taken.
const PARTS_AHEAD: usize = 8;
