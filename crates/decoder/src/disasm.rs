//! Whole-section disassembly: the loop behind `isabridge disasm`.

use crate::elf::Label;
use crate::nvidia::control::Control;
use crate::{DecodeError, Isa, IsaPlugin};
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
