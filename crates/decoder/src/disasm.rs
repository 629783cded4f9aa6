//! Whole-section disassembly: the loop behind `isabridge disasm`.

use crate::elf::Label;
use crate::{DecodeError, IsaPlugin};
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
    let unit = plugin.unit();
    let mut off = 0usize;
    let mut text = String::with_capacity(128);
    let mut next_label = 0usize;
    let mut function = section;
    if code.len() % unit != 0 {
        // The tail that does not fill a unit is reported as truncated when reached.
    }
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
                f(&Line { function, offset: off as u64, bytes: &code[off..off + n], text: &text, decoded: true });
                off += n;
            }
            Err(DecodeError::Unknown { word, .. }) => {
                let _ = write!(text, ".long 0x{word:08x}");
                f(&Line { function, offset: off as u64, bytes: &code[off..off + unit], text: &text, decoded: false });
                off += unit;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
