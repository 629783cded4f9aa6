//! Loops a device ended early. Mesa's llvmpipe (lavapipe) stops every loop of a shader once
//! the loops' back-edges together have run 65,535 times (`LP_MAX_TGSI_LOOP_ITERATIONS`,
//! "maximum iterations before loop termination, shared between every loop"): the invocations
//! leave the loop as if they had broken out of it and run on, so a long kernel would end
//! with results the guest never computed and no error. The module notices it exactly: every
//! loop it emits records how it was left, and a loop left without taking one of its exits
//! marks the invocation cut; a cut invocation records [`LOOP_LIMIT_TRAP`] when it returns or
//! traps (instead of the trap it reaches, whose cause may be the cut itself).
//!
//! - The structured loops of the function: each loop header stores 0 in a Private word
//!   `left`, each branch to a loop's merge block stores 1 where it is taken, and each merge
//!   block adds `left == 0` to the Private word `cut` and clears `left`
//!   ([`Em::loop_left`], [`Em::loop_merged`]).
//! - The emitter's own counted loops (lane loops, compare-exchange loops, the zeroing of
//!   workgroup memory): at the merge, the loop's condition to go on still holding means the
//!   loop was cut ([`Em::loop_cut_where`]).
//!
//! None of this adds control flow inside a loop (a header must stay the block that declares
//! its loop), and on a device without such a limit `cut` stays 0.
//!
//! What it cannot see: where llvmpipe ends the invocations at the limit instead of letting them
//! run on (seen with a single loop in a kernel's body, `crates/targets/tests/vulkan_timeout.rs`),
//! they reach neither a return nor a trap and write nothing after the loop; a completion word
//! per invocation, checked by the runner, would catch that case.

use super::emit::{internal, Em, EmitError};
use isabridge_ir::types::Type;
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{self, Word};

/// Trap code of an invocation that left a loop the device ended early (see the module docs).
pub const LOOP_LIMIT_TRAP: u16 = 0xfff6;

impl Em<'_> {
    /// A module-level Private u32 variable that starts at 0 (listed in the entry point's
    /// interface at the end of emission).
    fn zeroed_private_u32(&mut self) -> Result<Word, EmitError> {
        let zero = self.wc32(0)?;
        let p = self.b.type_pointer(None, spirv::StorageClass::Private, self.t_u32);
        let id = self.b.id();
        let var = Instruction::new(spirv::Op::Variable, Some(p), Some(id), vec![Operand::StorageClass(spirv::StorageClass::Private), Operand::IdRef(zero)]);
        self.b.module_mut().types_global_values.push(var);
        self.private_vars.push(id);
        Ok(id)
    }

    /// The Private words `left` and `cut`, declared on first use.
    pub(super) fn loop_words(&mut self) -> Result<(Word, Word), EmitError> {
        if let Some(w) = self.loop_words {
            return Ok(w);
        }
        let w = (self.zeroed_private_u32()?, self.zeroed_private_u32()?);
        self.loop_words = Some(w);
        Ok(w)
    }

    /// Record how the current block leaves its loop: `left` (u32 0 or 1) is 1 where the
    /// branch about to be emitted goes to a loop's merge block.
    pub(super) fn loop_left(&mut self, left: Word) -> Result<(), EmitError> {
        let (var, _) = self.loop_words()?;
        self.b.store(var, left, None, []).map_err(internal)
    }

    /// At the start of a loop's merge block: the invocation is cut where it arrived without
    /// taking an exit; `left` is cleared for the enclosing loop.
    pub(super) fn loop_merged(&mut self) -> Result<(), EmitError> {
        let (left, cut) = self.loop_words()?;
        let zero = self.wc32(0)?;
        let tb = self.ty(Type::B1)?;
        let l = self.b.load(self.t_u32, None, left, None, []).map_err(internal)?;
        let missed = self.b.i_equal(tb, None, l, zero).map_err(internal)?;
        self.cut_where(missed, cut)?;
        self.b.store(left, zero, None, []).map_err(internal)
    }

    /// At the merge of one of the emitter's own loops: the invocation is cut where `more`
    /// (b1, the loop's condition to go on, computed in its header) still holds.
    pub(super) fn loop_cut_where(&mut self, more: Word) -> Result<(), EmitError> {
        let (_, cut) = self.loop_words()?;
        self.cut_where(more, cut)
    }

    fn cut_where(&mut self, c: Word, cut: Word) -> Result<(), EmitError> {
        let (zero, one) = (self.wc32(0)?, self.wc32(1)?);
        let bit = self.b.select(self.t_u32, None, c, one, zero).map_err(internal)?;
        let old = self.b.load(self.t_u32, None, cut, None, []).map_err(internal)?;
        let new = self.b.bitwise_or(self.t_u32, None, old, bit).map_err(internal)?;
        self.b.store(cut, new, None, []).map_err(internal)
    }

    /// The trap word (code + 1, u64) an invocation about to record `code` writes:
    /// [`LOOP_LIMIT_TRAP`]'s where it was cut.
    pub(super) fn trap_word(&mut self, code: u16) -> Result<Word, EmitError> {
        let c = self.konst(Type::I64, code as u64 + 1)?;
        let Some((_, cut)) = self.loop_words else { return Ok(c) };
        let lim = self.konst(Type::I64, LOOP_LIMIT_TRAP as u64 + 1)?;
        let zero = self.wc32(0)?;
        let tb = self.ty(Type::B1)?;
        let x = self.b.load(self.t_u32, None, cut, None, []).map_err(internal)?;
        let was = self.b.i_not_equal(tb, None, x, zero).map_err(internal)?;
        self.b.select(self.t_u64, None, was, lim, c).map_err(internal)
    }

    /// Before a normal return: a cut invocation records [`LOOP_LIMIT_TRAP`].
    pub(super) fn trap_if_cut(&mut self) -> Result<(), EmitError> {
        let Some((_, cut)) = self.loop_words else { return Ok(()) };
        let zero = self.wc32(0)?;
        let tb = self.ty(Type::B1)?;
        let x = self.b.load(self.t_u32, None, cut, None, []).map_err(internal)?;
        let was = self.b.i_not_equal(tb, None, x, zero).map_err(internal)?;
        self.trap_when(was, LOOP_LIMIT_TRAP)
    }
}
