//! Whole-section disassembly: instructions one by one ([`disassemble`]) and the text listing in
//! llvm-objdump-22's layout ([`listing`], [`listing_sections`]).
//!
//! Plain and single-threaded: one decode and one print per instruction, no threads, no global
//! state. NVIDIA instructions print through an [`NvPrinter`] (its memo and templates), made
//! per call or passed in by the caller ([`disassemble_with_printer`]) to keep its caches from
//! one call to the next. The `isabridge` command lists with a faster engine of its own
//! (crates/cli/src/listing/) whose text is tested to be these functions' byte for byte.

use crate::elf::Label;
use crate::nvidia::control::Control;
use crate::nvidia::NvPrinter;
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
    /// The reference disassembler's comment about the instruction, empty when none (see
    /// [`IsaPlugin::print_noted`]).
    pub note: &'a str,
}

/// Disassembles `code` (a section at address `base`), calling `f` for every instruction in order.
/// An undecodable word becomes a `.long` line and decoding goes on after it. AMD code is
/// listed as llvm-objdump-22 lists it: decoding starts again at every label (an instruction
/// that runs over one is followed by the instruction at the label), and an instruction cut off
/// by the end of the section becomes `.long` / `.byte` lines (see [`cut_off`]); on NVIDIA, a
/// section that is not whole instructions (sm50: bundles) is an error.
pub fn disassemble(
    plugin: &dyn IsaPlugin,
    code: &[u8],
    base: u64,
    section: &str,
    labels: &[Label],
    f: impl FnMut(&Line<'_>),
) -> Result<(), DecodeError> {
    disassemble_with_printer(plugin, &mut NvPrinter::new(), code, base, section, labels, f)
}

/// [`disassemble`] printing NVIDIA instructions through `printer`, whose memo and templates
/// carry over from earlier calls (one printer for the sections of a listing).
pub fn disassemble_with_printer(
    plugin: &dyn IsaPlugin,
    printer: &mut NvPrinter,
    code: &[u8],
    base: u64,
    section: &str,
    labels: &[Label],
    mut f: impl FnMut(&Line<'_>),
) -> Result<(), DecodeError> {
    walk(plugin, printer, code, base, section, labels, true, |l, _, _| f(l))
}

/// [`disassemble_with_printer`], also handing `f` each decoded instruction (None for an
/// undecodable word) and the number of labels passed (it changes exactly where
/// `Line::function` may change). Without `control`, sm86 lines have no scheduling fields.
#[allow(clippy::too_many_arguments)]
fn walk(
    plugin: &dyn IsaPlugin,
    printer: &mut NvPrinter,
    code: &[u8],
    base: u64,
    section: &str,
    labels: &[Label],
    control: bool,
    mut f: impl FnMut(&Line<'_>, Option<&Decoded>, usize),
) -> Result<(), DecodeError> {
    if plugin.isa() == Isa::Sm50 {
        return disassemble_sm50(printer, code, base, section, labels, f);
    }
    let nvidia = plugin.isa() == Isa::Sm86;
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
    let mut note = String::new();
    let mut next_label = 0usize;
    let mut function = section;
    let restarts = matches!(plugin.isa(), Isa::Gfx1013 | Isa::Gfx1201);
    loop {
        // AMD, as llvm-objdump-22: each symbol is decoded from its own start, so an instruction
        // that runs over the next label (a whole instruction still, its bytes read on) is
        // followed by the instruction at that label.
        if restarts && labels.get(next_label).is_some_and(|l| l.offset < off as u64) {
            off = labels[next_label].offset as usize;
            batch.clear();
            next = 0;
        }
        if off >= code.len() {
            break;
        }
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
        note.clear();
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
                if nvidia {
                    printer.print(plugin, &d, addr, &mut text);
                } else {
                    plugin.print_noted(&d, addr, &mut text, &mut note);
                }
                let control = control_sm86.then(|| Control::sm86(crate::sm86::SM86.word(&d)));
                f(&Line { function, offset: off as u64, bytes: &code[off..off + n], text: &text, decoded: true, control, note: &note }, Some(&d), next_label);
                off += n;
            }
            // LLVM decodes an all-zero AMD dword as `v_illegal`.
            Err(DecodeError::Unknown { word: 0, .. }) if restarts => {
                text.push_str("v_illegal");
                f(&Line { function, offset: off as u64, bytes: &code[off..off + unit], text: &text, decoded: false, control: None, note: "" }, None, next_label);
                off += unit;
            }
            Err(DecodeError::Unknown { word, .. }) => {
                let _ = write!(text, ".long 0x{word:08x}");
                f(&Line { function, offset: off as u64, bytes: &code[off..off + unit], text: &text, decoded: false, control: None, note: "" }, None, next_label);
                off += unit;
            }
            // AMD, as llvm-objdump-22: an instruction cut off by the end of the section is its
            // first word as `.long`, and fewer than four bytes left are `.byte`s.
            Err(DecodeError::Truncated { .. }) if restarts => {
                let rest = &code[off..];
                let n = rest.len().min(4);
                if n == 4 {
                    let _ = write!(text, ".long 0x{:08x}", u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]));
                } else {
                    text.push_str(".byte ");
                    for (i, b) in rest.iter().enumerate() {
                        let _ = write!(text, "{}0x{b:02x}", if i > 0 { ", " } else { "" });
                    }
                }
                f(&Line { function, offset: off as u64, bytes: &rest[..n], text: &text, decoded: false, control: None, note: "" }, None, next_label);
                off += n;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// The instruction cut off by the end of an AMD section, as a [`DecodeError::Truncated`]: the
/// listing shows it as `.long` / `.byte` lines (as llvm-objdump-22 does, silently); this tells a
/// caller that wants to warn about it. None when the section ends on an instruction boundary,
/// and for NVIDIA (whose listings end in that error). Decodes only the section's last function
/// (from its last label at least [`crate::MAX_WORDS`] words before the end), printing nothing.
pub fn cut_off(plugin: &dyn IsaPlugin, code: &[u8], base: u64, labels: &[Label]) -> Option<DecodeError> {
    if !matches!(plugin.isa(), Isa::Gfx1013 | Isa::Gfx1201) {
        return None;
    }
    // An instruction that starts before a label this far from the end cannot reach the end.
    let far = code.len().saturating_sub(4 * crate::MAX_WORDS) as u64;
    let k = labels.partition_point(|l| l.offset <= far);
    let (mut off, mut next) = match k.checked_sub(1) {
        Some(i) => (labels[i].offset as usize, i + 1),
        None => (0, 0),
    };
    loop {
        if labels.get(next).is_some_and(|l| l.offset <= off as u64) {
            if labels[next].offset < off as u64 {
                off = labels[next].offset as usize;
            }
            next += 1;
            continue;
        }
        let rest = code.get(off..).filter(|r| !r.is_empty())?;
        match plugin.decode(rest, base + off as u64) {
            Ok(d) => off += (d.len as usize).max(1),
            Err(DecodeError::Unknown { .. }) => off += 4,
            Err(e) => return Some(e),
        }
    }
}

/// Maxwell: 32-byte bundles, each a control word and three instructions. Offsets are the
/// instructions' own (0x8, 0x10, 0x18, 0x28, ...), as nvdisasm prints them; the control word is
/// not a line. A section that is not whole bundles is an error at the first incomplete bundle.
fn disassemble_sm50(
    printer: &mut NvPrinter,
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
                    printer.print(&SM50, &d, addr, &mut text);
                    f(&Line { function, offset: off as u64, bytes, text: &text, decoded: true, control, note: "" }, Some(&d), next_label);
                }
                Err(DecodeError::Unknown { .. }) => {
                    let _ = write!(text, ".quad 0x{:016x}", le(bytes));
                    f(&Line { function, offset: off as u64, bytes, text: &text, decoded: false, control, note: "" }, None, next_label);
                }
                Err(e) => return Err(e),
            }
        }
    }
    Ok(())
}


/// Column llvm-objdump pads the instruction text to before its `// ` comment.
pub const TEXT_COLUMN: usize = 59;

/// Appends one instruction line in llvm-objdump-22's layout: tab, text padded to 59 columns,
/// `// ` and the address (its low 48 bits as 12 upper-case hex digits), `:` and the bytes as
/// little-endian 32-bit words (` XXXXXXXX` each, a short last word zero-extended; fewer than
/// four bytes one by one, ` XX`), then `note` and a newline.
pub fn write_line(out: &mut Vec<u8>, text: &str, addr: u64, bytes: &[u8], note: &str) {
    out.push(b'\t');
    out.extend_from_slice(text.as_bytes());
    out.resize(out.len() + TEXT_COLUMN.saturating_sub(text.len()), b' ');
    let _ = std::io::Write::write_fmt(out, format_args!("// {:012X}:", addr & 0xffff_ffff_ffff));
    if bytes.len() < 4 {
        // (the `.byte` line of a section's last bytes)
        for b in bytes {
            let _ = std::io::Write::write_fmt(out, format_args!(" {b:02X}"));
        }
    }
    for c in bytes.chunks(4).filter(|_| bytes.len() >= 4) {
        let mut x = [0u8; 4];
        x[..c.len()].copy_from_slice(c);
        let _ = std::io::Write::write_fmt(out, format_args!(" {:08X}", u32::from_le_bytes(x)));
    }
    out.extend_from_slice(note.as_bytes());
    out.push(b'\n');
}

/// The branch target llvm-objdump-22 notes after an instruction's line: the plugin's
/// [`IsaPlugin::branch_target`], except a call's (LLVM evaluates a target only where it is the
/// first operand, and `s_call_b64`'s comes after its register).
pub fn listed_target(plugin: &dyn IsaPlugin, d: &Decoded, addr: u64) -> Option<u64> {
    plugin.branch_target(d, addr).filter(|_| plugin.flow(d) != crate::operand::Flow::Call)
}

/// The number of zero bytes at `code[off..end]` (`end`: the next symbol or the section's end)
/// that llvm-objdump folds into one `\t\t...` line ([`ZERO_FILL_LINE`]): a run of at least 8
/// zero bytes, less its last bytes past a multiple of 4; 0 when there is no such run.
pub fn zero_fill(code: &[u8], off: usize, end: usize) -> usize {
    let run = code.get(off..end.min(code.len())).map_or(0, |b| b.iter().take_while(|&&x| x == 0).count());
    if run < 8 {
        0
    } else {
        run & !3
    }
}

/// The line llvm-objdump prints for a run of zero bytes (see [`zero_fill`]).
pub const ZERO_FILL_LINE: &[u8] = b"\t\t...\n";

/// llvm-objdump's ` <symbol>` / ` <symbol+0xoff>` note for a branch to `target` (an offset in
/// the section): the last label at or before it, else the section start. `labels` are sorted
/// by offset.
pub fn branch_note(target: u64, section: &str, labels: &[Label]) -> String {
    let i = labels.partition_point(|l| l.offset <= target);
    let (name, start) = match i.checked_sub(1).and_then(|i| labels.get(i)) {
        Some(l) => (&*l.name, l.offset),
        None => (section, 0),
    };
    if target == start {
        format!(" <{name}>")
    } else {
        format!(" <{name}+0x{:x}>", target - start)
    }
}

/// Writes the text listing of one section in llvm-objdump-22's layout to `flush`: a
/// `\n<address> <function>:` header where the function's name changes, then one line per
/// instruction ([`write_line`]) with the [`branch_note`] of direct branches ([`listed_target`])
/// and the instruction's comment ([`Line::note`]); AMD runs of zero bytes fold into one line
/// ([`zero_fill`]). The text comes in
/// pieces of about 16 KiB, in order. Errors as in [`disassemble`]; the lines before the error
/// have been passed to `flush`.
pub fn listing(
    plugin: &dyn IsaPlugin,
    code: &[u8],
    base: u64,
    section: &str,
    labels: &[Label],
    flush: &mut dyn FnMut(&[u8]),
) -> Result<(), DecodeError> {
    listing_with_printer(plugin, &mut NvPrinter::new(), code, base, section, labels, flush)
}

/// [`listing`] printing NVIDIA instructions through `printer` (see
/// [`disassemble_with_printer`]).
pub fn listing_with_printer(
    plugin: &dyn IsaPlugin,
    printer: &mut NvPrinter,
    code: &[u8],
    base: u64,
    section: &str,
    labels: &[Label],
    flush: &mut dyn FnMut(&[u8]),
) -> Result<(), DecodeError> {
    let mut out = Vec::with_capacity(PIECE + 4096);
    let mut last: Option<String> = None;
    let amd = matches!(plugin.isa(), Isa::Gfx1013 | Isa::Gfx1201);
    // The end of the zero run folded into the last `...` line.
    let mut zeros_end = 0u64;
    let r = walk(plugin, printer, code, base, section, labels, false, |l, d, passed| {
        if l.offset < zeros_end {
            return;
        }
        let addr = base + l.offset;
        if last.as_deref() != Some(l.function) {
            let _ = std::io::Write::write_fmt(&mut out, format_args!("\n{addr:016x} <{}>:\n", l.function));
            last = Some(l.function.to_string());
        }
        if amd && !l.decoded && l.bytes == [0; 4] {
            let end = labels.get(passed).map_or(code.len(), |x| x.offset as usize);
            let n = zero_fill(code, l.offset as usize, end);
            if n > 0 {
                out.extend_from_slice(ZERO_FILL_LINE);
                zeros_end = l.offset + n as u64;
                return;
            }
        }
        let mut note = d
            .and_then(|d| listed_target(plugin, d, addr))
            .and_then(|t| t.checked_sub(base))
            .map(|t| branch_note(t, section, labels))
            .unwrap_or_default();
        if !l.note.is_empty() {
            note.push_str(" ; ");
            note.push_str(l.note);
        }
        write_line(&mut out, l.text, addr, l.bytes, &note);
        if out.len() >= PIECE {
            flush(&out);
            out.clear();
        }
    });
    flush(&out);
    r
}

/// Bytes of text [`listing`] gathers before it hands them on.
const PIECE: usize = 16 << 10;

/// A code section to list: name, address, bytes and labels (sorted by offset).
pub type ListSection<'a> = (&'a str, u64, &'a [u8], Vec<Label<'a>>);

/// Writes the listings of `sections` in order, each after its `\nDisassembly of section NAME:\n`
/// line, as [`listing`] does for one; stops at the first error, after the lines before it.
pub fn listing_sections(
    plugin: &dyn IsaPlugin,
    sections: &[ListSection<'_>],
    flush: &mut dyn FnMut(&[u8]),
) -> Result<(), DecodeError> {
    let mut printer = NvPrinter::new();
    for (name, addr, data, labels) in sections {
        flush(format!("\nDisassembly of section {name}:\n").as_bytes());
        listing_with_printer(plugin, &mut printer, data, *addr, name, labels, flush)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layout of a line: text padded to the column (a longer text unpadded), 12 address
    /// digits of the low 48 bits, words zero-extended, the note.
    #[test]
    fn line_layout() {
        let mut out = Vec::new();
        write_line(&mut out, "s_nop 0", 0x1_2345_6789_abcd, &[1, 2, 3, 4, 5, 6], " <f>");
        let want = format!("\ts_nop 0{}// 23456789ABCD: 04030201 00000605 <f>\n", " ".repeat(52));
        assert_eq!(String::from_utf8(out).unwrap(), want);
        let long = "x".repeat(70);
        let mut out = Vec::new();
        write_line(&mut out, &long, 0x10, &[0xff; 4], "");
        assert_eq!(String::from_utf8(out).unwrap(), format!("\t{long}// 000000000010: FFFFFFFF\n"));
        let mut out = Vec::new();
        write_line(&mut out, ".byte 0x34, 0x12", 0xc, &[0x34, 0x12], "");
        assert_eq!(String::from_utf8(out).unwrap(), format!("\t.byte 0x34, 0x12{}// 00000000000C: 34 12\n", " ".repeat(43)));
    }

    /// Branch notes name the last label at or before the target, else the section.
    #[test]
    fn notes() {
        let labels = [Label { offset: 8, name: "f".into() }, Label { offset: 0x20, name: "g".into() }];
        assert_eq!(branch_note(4, ".text", &labels), " <.text+0x4>");
        assert_eq!(branch_note(8, ".text", &labels), " <f>");
        assert_eq!(branch_note(0x1c, ".text", &labels), " <f+0x14>");
        assert_eq!(branch_note(0x20, ".text", &labels), " <g>");
    }
}
