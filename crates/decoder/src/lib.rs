//! Spec-generated decoders, encoders and printers for GPU machine code.
//!
//! Each ISA is a plugin behind [`IsaPlugin`]: decode bytes into a [`Decoded`] instruction, print it
//! in the reference disassembler's syntax, and encode it back. The opcode tables, encodings and
//! operand lists come from `isa-specs/` through `build.rs`; no opcode table is written by hand.
//!
//! The library keeps no state between calls: no globals, thread-locals or threads. NVIDIA
//! printing has one piece of state a caller may own: [`nvidia::NvPrinter`], the print memo and
//! text templates that make a long listing fast. [`IsaPlugin::print`] and
//! [`disasm::disassemble`] make a fresh one per call; a caller listing much code keeps one per
//! thread and prints through it ([`nvidia::NvPrinter::print`],
//! [`disasm::disassemble_with_printer`]). Its text is the same either way.

pub mod amd;
pub mod disasm;
pub mod elf;
pub mod gfx10;
pub mod gfx12;
pub mod lift;
pub mod nvidia;
pub mod sm50;
pub mod sm86;
mod error;
pub mod operand;
pub mod spec;

pub use error::DecodeError;
pub use operand::{BuildError, Inst};

/// A table of `n` copies of `zero` (an all-zero value) whose pages are written at once, for
/// tables that are read before they are written (hash tables looked up before they are
/// filled). Zeroed memory from the allocator would be faulted twice per page there: the first
/// read maps the kernel's shared zero page, the first write then copies it (NVIDIA memo:
/// fp32.sm86 226 -> 186 page faults; BENCHMARKS.md, "Summary: eighth session").
pub(crate) fn written_table<T: Copy>(n: usize, zero: T) -> Vec<T> {
    let mut v = vec![zero; n];
    // A write per page: the compiler turns a plain zero fill back into a zeroed allocation and
    // drops stores of zero into one, so the value stored is hidden from it (`black_box`).
    let step = (4096 / std::mem::size_of::<T>().max(1)).max(1);
    for e in v.iter_mut().step_by(step) {
        *e = std::hint::black_box(zero);
    }
    v
}

/// The instruction sets isabridge decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Isa {
    /// AMD RDNA1 gfx1013 (PS5).
    Gfx1013,
    /// AMD RDNA4 gfx1201.
    Gfx1201,
    /// NVIDIA Maxwell sm_50.
    Sm50,
    /// NVIDIA Ampere sm_86.
    Sm86,
}

impl Isa {
    /// Every supported ISA.
    pub const ALL: [Isa; 4] = [Isa::Gfx1013, Isa::Gfx1201, Isa::Sm50, Isa::Sm86];

    /// The name used on the command line and in errors.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Gfx1013 => "gfx1013",
            Isa::Gfx1201 => "gfx1201",
            Isa::Sm50 => "sm50",
            Isa::Sm86 => "sm86",
        }
    }

    /// Parses a command-line name.
    pub fn from_name(s: &str) -> Option<Isa> {
        Isa::ALL.into_iter().find(|i| i.name() == s)
    }

    /// The plugin for this ISA.
    pub fn plugin(self) -> &'static dyn IsaPlugin {
        match self {
            Isa::Gfx1013 => &amd::GFX10,
            Isa::Gfx1201 => &amd::GFX12,
            Isa::Sm50 => &sm50::SM50,
            Isa::Sm86 => &sm86::SM86,
        }
    }
}

impl std::fmt::Display for Isa {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Largest instruction, in 32-bit words, of any ISA.
pub const MAX_WORDS: usize = 6;

/// A decoded instruction: its raw words plus where it sits in the generated tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decoded {
    /// The instruction's words, little endian, zero past `len`.
    pub words: [u32; MAX_WORDS],
    /// Length in bytes.
    pub len: u8,
    /// Index of its encoding in the ISA's tables.
    pub enc: u16,
    /// Index of its (instruction, encoding) pair in the ISA's tables.
    pub ienc: u16,
}

impl Decoded {
    /// The instruction's bytes in memory order.
    pub fn bytes(&self) -> Vec<u8> {
        self.words.iter().flat_map(|w| w.to_le_bytes()).take(self.len as usize).collect()
    }
}

/// A decoded instruction's place and identity without its words (8 bytes), for batch callers
/// that need only identity and length ([`IsaPlugin::decode_block_ids`]); operands are read
/// from the bytes at `off` on demand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct InstId {
    /// Byte offset of the instruction from the start of the bytes given to the call.
    pub off: u32,
    /// Index of its (instruction, encoding) pair in the ISA's tables (as [`Decoded::ienc`]).
    pub ienc: u16,
    /// Length in bytes.
    pub len: u8,
}

/// One ISA: decode, print, encode.
pub trait IsaPlugin: Sync {
    /// Which ISA this is.
    fn isa(&self) -> Isa;
    /// Smallest instruction size in bytes (the step after an undecodable word).
    fn unit(&self) -> usize;
    /// Decodes the instruction at the start of `bytes`; `addr` is only used in errors.
    fn decode(&self, bytes: &[u8], addr: u64) -> Result<Decoded, DecodeError>;
    /// Decodes consecutive instructions from the start of `bytes` (the first one at `base_addr`)
    /// and appends them to `out`, stopping at the end or before the first bytes that do not
    /// decode (see [`IsaPlugin::decode`] for why). Returns the number of bytes decoded.
    fn decode_block(&self, bytes: &[u8], base_addr: u64, out: &mut Vec<Decoded>) -> usize {
        let mut off = 0usize;
        while let Some(rest) = bytes.get(off..).filter(|r| !r.is_empty()) {
            match self.decode(rest, base_addr.wrapping_add(off as u64)) {
                Ok(d) if d.len > 0 => {
                    off += d.len as usize;
                    out.push(d);
                }
                _ => break,
            }
        }
        off
    }
    /// [`IsaPlugin::decode_block`] recording each instruction as an [`InstId`] (offset,
    /// identity, length) instead of a [`Decoded`]: the same instructions, the same return
    /// value. Offsets count from the start of `bytes`; at most 4 GiB are decoded per call.
    fn decode_block_ids(&self, bytes: &[u8], base_addr: u64, out: &mut Vec<InstId>) -> usize {
        let bytes = bytes.get(..u32::MAX as usize).unwrap_or(bytes);
        let mut v = Vec::new();
        let used = self.decode_block(bytes, base_addr, &mut v);
        let mut off = 0u32;
        for d in v {
            out.push(InstId { off, ienc: d.ienc, len: d.len });
            off = off.wrapping_add(d.len as u32);
        }
        used
    }
    /// Appends the instruction's text in the reference disassembler's syntax. `addr` is the
    /// instruction's address, used for branch targets.
    fn print(&self, inst: &Decoded, addr: u64, out: &mut String);
    /// [`IsaPlugin::print`], and the reference disassembler's comment about the instruction
    /// appended to `note` (AMD: LLVM's `Warning: ...` text that llvm-objdump-22 prints after
    /// ` ; ` past the words, such as `Warning: SGPR_64: scalar reg isn't aligned 89`); nothing
    /// is appended when there is none.
    fn print_noted(&self, inst: &Decoded, addr: u64, out: &mut String, _note: &mut String) {
        self.print(inst, addr, out)
    }
    /// The reference disassembler's comment on a word it rejects (printed as `.long`),
    /// appended to `note`: llvm-objdump-22 keeps the warnings about the operands it decoded
    /// before the one it refused (`.long 0x... ; Warning: SGPR_128: ...`). Nothing by default.
    fn rejected_note(&self, _bytes: &[u8], _addr: u64, _note: &mut String) {}
    /// The canonical bytes of the instruction.
    fn encode(&self, inst: &Decoded) -> Vec<u8>;
    /// Upper-case instruction name of a decoded instruction.
    fn name(&self, inst: &Decoded) -> &'static str;
    /// Name of its encoding.
    fn encoding_name(&self, inst: &Decoded) -> &'static str;
    /// The absolute target of a direct branch or call at `addr`, if the instruction is one.
    fn branch_target(&self, _inst: &Decoded, _addr: u64) -> Option<u64> {
        None
    }
    /// The instruction in the operand model: opcode, typed operands (explicit and implicit),
    /// modifiers and control-flow kind. `addr` is the instruction's address (branch targets).
    fn operands(&self, inst: &Decoded, addr: u64) -> Inst;
    /// What the instruction does to control flow, from the spec (the same as
    /// `operands(inst, addr).flow`, without building the operand list).
    fn flow(&self, inst: &Decoded) -> operand::Flow;
    /// The bytes of an instruction given in the operand model (the inverse of
    /// [`IsaPlugin::operands`]: `decode(build(x))` gives `x` back).
    fn build(&self, inst: &Inst) -> Result<Vec<u8>, BuildError>;
}

#[cfg(test)]
mod tests {
    /// `written_table` holds exactly `n` zero values, for element sizes that divide a page and
    /// that do not, and lengths around a page's worth of elements.
    #[test]
    fn written_table_is_n_zeros() {
        for n in [0usize, 1, 63, 64, 65, 1000, 4096] {
            let a = super::written_table(n, [0u64; 8]);
            assert_eq!(a.len(), n);
            assert!(a.iter().all(|e| *e == [0u64; 8]));
            let b = super::written_table(n, 0u32);
            assert_eq!(b.len(), n);
            assert!(b.iter().all(|&e| e == 0));
            let c = super::written_table(n, [0u8; 24]);
            assert_eq!(c.len(), n);
            assert!(c.iter().all(|e| e.iter().all(|&x| x == 0)));
        }
    }
}
