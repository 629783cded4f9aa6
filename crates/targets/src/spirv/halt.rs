//! Interrupts to the host (`interrupt`, `interrupt.halt`: AMD `s_sendmsg` / `s_sendmsghalt`
//! with an interrupt message). A compute dispatch has no host to signal: a plain interrupt
//! emits nothing, as the interpreter does nothing for it. A halting one stops the wave until
//! the host resumes it, which no host does: the interpreter ends the run with
//! `InterpError::Halt`, and the module records [`HALT_TRAP`] in the trap buffer and returns,
//! so that the runner reports the dispatch as ended by the halt and none of the wave's later
//! writes happen. A wave runs its scalar code with every lane together, so every invocation of
//! the wave reaches the halt.

use super::emit::{Em, EmitError};

/// The code the trap buffer holds for a wave that halted (`interrupt.halt`).
pub const HALT_TRAP: u16 = 0xfffa;

impl Em<'_> {
    /// Lower `interrupt` (nothing) or `interrupt.halt` (record [`HALT_TRAP`] and return).
    pub(super) fn interrupt(&mut self, halt: bool) -> Result<(), EmitError> {
        if halt {
            self.record_and_return(HALT_TRAP)?;
        }
        Ok(())
    }
}
