//! Lifting: decoded machine code to the shared IR (`isabridge-ir`), one ISA frontend per module,
//! one file per instruction family inside it. Every instruction's meaning is written once, here;
//! the interpreter and every backend read it from the IR.
//!
//! A lifter reads the operand model ([`crate::operand`]), never raw fields or printed text.
//! Anything it does not know is a [`LiftError`] naming the ISA, the address and the instruction.

pub mod amd;
pub(crate) mod reg_keys;
pub mod sm50;
pub mod sm86;
mod nv_driver;

use crate::Isa;

/// Why a program could not be lifted. Names the ISA, the address and the instruction.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LiftError {
    /// The bytes at `addr` do not decode.
    #[error("{isa}: {addr:#x}: cannot decode: {why}")]
    Decode {
        /// ISA.
        isa: Isa,
        /// Address.
        addr: u64,
        /// The decoder's reason.
        why: String,
    },
    /// The instruction decodes but has no lifter (yet), or uses a form the lifter rejects.
    #[error("{isa}: {addr:#x}: {text}: {why}")]
    Unsupported {
        /// ISA.
        isa: Isa,
        /// Address.
        addr: u64,
        /// The instruction as the reference disassembler prints it.
        text: String,
        /// What is missing.
        why: String,
    },
    /// A branch leaves the code given to the lifter.
    #[error("{isa}: {addr:#x}: branch to {target:#x} outside the code")]
    BranchOutside {
        /// ISA.
        isa: Isa,
        /// Address of the branch.
        addr: u64,
        /// Its target.
        target: u64,
    },
}
