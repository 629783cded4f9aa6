//! llvm-mc's canonical encoding of gfx1201 instructions: bits LLVM does not model come back 0.

use super::Op;
use crate::amd::Amd;
use crate::Decoded;

/// Rewrites `d` into llvm-mc-22's canonical form (after the generic field re-pack).
pub fn canonicalize(_p: &Amd<Op>, _d: &mut Decoded) {}
