//! sm_50's call through a function pointer: `PRET L` pushes the return site L, then `BRX Rn,
//! off` jumps to the function at `Rn + off` from the code's start (`BRX R3 -0x130` at 0x128 is
//! R3 itself: ptxas's table of function offsets in constant bank 2 holds offsets from the
//! code's start, fixtures/nvidia/bin/control.sm50.cubin). ptxas records such a `BRX` in
//! `.nv.info` as an indirect branch of kind `kind_call` with no targets
//! ([`Options::indirect_calls`]). Each lane goes to the function among
//! [`Options::call_targets`] whose offset its address is (`sm86::indirect::jump`); an address
//! that is none traps with [`crate::lift::sm86::UNKNOWN_TARGET_TRAP`]. The function's `RET`
//! pops the return site like a `CAL`'s.
//!
//! [`Options::indirect_calls`]: super::Options::indirect_calls
//! [`Options::call_targets`]: super::Options::call_targets

use super::Layout;
use crate::lift::sm86::{indirect, At, Cx};
use crate::lift::LiftError;

/// Whether `at` is a `BRX` that `indirect_calls` (offsets from `base`) records as a call. The
/// decoder gives the first instruction of a bundle the bundle's address (its control word's),
/// `.nv.info` the instruction's own, eight bytes further.
pub(crate) fn is_call(at: &At, base: u64, indirect_calls: &[u64]) -> bool {
    let off = at.inst.addr.wrapping_sub(base);
    at.inst.name == "BRX" && indirect_calls.iter().any(|&c| c == off || (off.is_multiple_of(32) && c == off + 8))
}

/// Lift the indirect call `at`: a jump per lane to the function among `calls` (addresses) that
/// its target names.
pub(crate) fn call(cx: &mut Cx, at: &At, lay: &Layout, calls: &[u64]) -> Result<(), LiftError> {
    if calls.is_empty() {
        return Err(cx.unsupported(at, "an indirect call whose targets are not known"));
    }
    let next = at.inst.addr + at.inst.len as u64;
    let fall = lay.blocks.get(&next).copied().unwrap_or(lay.exit);
    indirect::jump(cx, at, lay.base, calls, &lay.blocks, fall, lay.exit)
}
