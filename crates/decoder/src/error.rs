//! Decoder errors.

use crate::Isa;

/// Why bytes could not be decoded. Every variant names the ISA and the address.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The input ends inside an instruction.
    #[error("{isa}: truncated instruction at {addr:#x}: needs {need} bytes, {have} left")]
    Truncated {
        /// ISA.
        isa: Isa,
        /// Address of the instruction.
        addr: u64,
        /// Bytes the instruction needs.
        need: usize,
        /// Bytes available.
        have: usize,
    },
    /// No instruction of the ISA has this encoding.
    #[error("{isa}: no instruction at {addr:#x}: word {word:#010x}")]
    Unknown {
        /// ISA.
        isa: Isa,
        /// Address of the word.
        addr: u64,
        /// The first 32-bit word.
        word: u32,
    },
    /// The address is not aligned to the ISA's instruction unit.
    #[error("{isa}: misaligned input at {addr:#x}: instructions are {unit}-byte aligned")]
    Misaligned {
        /// ISA.
        isa: Isa,
        /// Address.
        addr: u64,
        /// Alignment.
        unit: usize,
    },
}
