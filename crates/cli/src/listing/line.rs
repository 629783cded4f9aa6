//! The text of listing lines in llvm-objdump-22's layout, byte by byte (the same bytes as
//! `isabridge_decoder::disasm::write_line`, written without the formatting machinery).

use isabridge_decoder::elf::Label;

/// Column llvm-objdump pads the instruction text to before its `// ` comment.
pub(super) const TEXT_COLUMN: usize = 59;

/// Upper-case hex digit pairs of every byte value.
pub(super) const HEX_PAIRS: [[u8; 2]; 256] = {
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
pub(super) fn addr_digits(addr: u64) -> [u8; 12] {
    let mut d = [0u8; 12];
    for (k, pair) in d.chunks_exact_mut(2).enumerate() {
        pair.copy_from_slice(&HEX_PAIRS[(addr >> (40 - 8 * k) & 0xff) as usize]);
    }
    d
}

/// ` DWORD`: a space and up to four bytes as one little-endian 32-bit word in upper-case hex
/// (a short word is zero-extended).
#[inline]
pub(super) fn dword_text(c: &[u8]) -> [u8; 9] {
    let mut x = [0u8; 4];
    let n = c.len().min(4);
    x[..n].copy_from_slice(&c[..n]);
    let mut w = [b' '; 9];
    w[1..].copy_from_slice(&hex8(u32::from_le_bytes(x)));
    w
}

/// Appends `: DWORD DWORD ...`: the bytes as little-endian 32-bit words (see [`dword_text`]).
pub(super) fn push_words(out: &mut Vec<u8>, bytes: &[u8]) {
    out.push(b':');
    if bytes.len() < 4 {
        // (the `.byte` line of a section's last bytes: one by one)
        for &b in bytes {
            out.push(b' ');
            out.extend_from_slice(&HEX_PAIRS[b as usize]);
        }
        return;
    }
    for c in bytes.chunks(4) {
        out.extend_from_slice(&dword_text(c));
    }
}

/// Appends `\t`, the text padded to llvm-objdump's column, and `// `.
pub(super) fn push_text(out: &mut Vec<u8>, text: &str) {
    const SPACES: &[u8; TEXT_COLUMN] = &[b' '; TEXT_COLUMN];
    out.push(b'\t');
    out.extend_from_slice(text.as_bytes());
    out.extend_from_slice(&SPACES[..TEXT_COLUMN.saturating_sub(text.len())]);
    out.extend_from_slice(b"// ");
}

/// Appends one instruction line in llvm-objdump-22's layout: tab, text padded to 59 columns,
/// `// ` and the 12-digit address, `: ` and the bytes as dwords, then `note` and a newline.
pub(super) fn write_line(out: &mut Vec<u8>, text: &str, addr: u64, bytes: &[u8], note: &str) {
    push_text(out, text);
    out.extend_from_slice(&addr_digits(addr));
    push_words(out, bytes);
    out.extend_from_slice(note.as_bytes());
    out.push(b'\n');
}

/// Appends ` ; ` and `comment`: the comment llvm-objdump prints after an instruction's words
/// (see `IsaPlugin::print_noted`).
pub(super) fn push_comment(out: &mut Vec<u8>, comment: &str) {
    out.extend_from_slice(b" ; ");
    out.extend_from_slice(comment.as_bytes());
}

/// Appends llvm-objdump's ` <symbol>` / ` <symbol+0xoff>` note for a branch to `target` (an
/// offset in the section): the last label at or before it, else the section start. `labels`
/// are sorted by offset.
pub(super) fn push_branch_note(out: &mut Vec<u8>, target: u64, section: &str, labels: &[Label]) {
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
pub(super) fn push_header(out: &mut Vec<u8>, addr: u64, function: &str) {
    const D: &[u8; 16] = b"0123456789abcdef";
    out.push(b'\n');
    out.extend((0..16).rev().map(|k| D[(addr >> (4 * k) & 15) as usize]));
    out.extend_from_slice(b" <");
    out.extend_from_slice(function.as_bytes());
    out.extend_from_slice(b">:\n");
}

/// Appends the `\nDisassembly of section NAME:\n` line that starts a section's listing.
pub(super) fn push_section_line(out: &mut Vec<u8>, name: &str) {
    out.extend_from_slice(b"\nDisassembly of section ");
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b":\n");
}

/// Eight upper-case hex digits of `x`, most significant first (all digits at once: each
/// nibble spread to a byte, then the letters' offset added where a nibble is above 9).
#[inline(always)]
pub(super) fn hex8(x: u32) -> [u8; 8] {
    let x = x as u64;
    let x = (x | x << 16) & 0x0000_ffff_0000_ffff;
    let x = (x | x << 8) & 0x00ff_00ff_00ff_00ff;
    let x = (x | x << 4) & 0x0f0f_0f0f_0f0f_0f0f;
    let letters = ((x + 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101;
    (x + 0x3030_3030_3030_3030 + letters * 7).to_be_bytes()
}
