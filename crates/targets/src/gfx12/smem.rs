//! Scalar memory loads (SMEM -> SMEM): `s_load_*` and `s_buffer_load_*`. SDATA, SBASE and
//! SOFFSET carry over by position (an absent SOFFSET is `null` in both generations); the
//! immediate offset moves to gfx1201's 24-bit IOFFSET; the cache bits become SCOPE:
//! - gfx1013's offset field is 21 bits; `s_load_*` reads it signed, `s_buffer_load_*` unsigned
//!   in 20 bits (LLVM 22's legality rules for the two generations: gfx10 buffer offsets are
//!   `isUInt<20>`, other offsets `isInt<21>`; gfx12 offsets are `isInt<24>` and buffer offsets
//!   must not be negative). A buffer offset with bit 20 set has no gfx1201 form and is refused.
//! - GLC or DLC make a gfx1013 scalar load bypass the scalar cache's stale lines (coherent at
//!   device level); gfx1201 says so with SCOPE_DEV (2), the scope [`super::flat`] gives the
//!   vector accesses with the same bits.
//!
//! The descriptor an `s_buffer_load_*` reads is the gfx1013 V#; converting it is the job of
//! the descriptor pass, not of this encoding map.

use super::map::MapRow;
use super::{alu, unsupported, TranslateError};
use isabridge_decoder::operand::Modifier;
use isabridge_decoder::Inst;

/// The gfx1201 form of SMEM load `inst` under map row `r`.
pub(super) fn translate(inst: &Inst, r: &MapRow) -> Result<Inst, TranslateError> {
    let buffer = inst.name.starts_with("S_BUFFER_");
    if !(inst.name.starts_with("S_LOAD_") || buffer) {
        return Err(unsupported(inst, "scalar memory op other than a load: no field mapping"));
    }
    let mut out = alu::translate(inst, r)?;
    let (mut offset, mut coherent) = (0u64, false);
    for m in &inst.modifiers {
        match *m {
            Modifier::Named("OFFSET", v) => offset = v & 0x1f_ffff,
            Modifier::Named("GLC" | "DLC", v) => coherent |= v != 0,
            _ => return Err(unsupported(inst, "an SMEM modifier the translator does not map")),
        }
    }
    let ioffset = match (offset & 0x10_0000 != 0, buffer) {
        (false, _) => offset,
        (true, false) => (offset | !0x1f_ffff) & 0xff_ffff,
        (true, true) => return Err(unsupported(inst, "s_buffer_load offset with bit 20 set: gfx1201 buffer offsets are not negative")),
    };
    let mut mods = Vec::new();
    if ioffset != 0 {
        mods.push(Modifier::Named("IOFFSET", ioffset));
    }
    if coherent {
        mods.push(Modifier::Named("SCOPE", 2));
    }
    out.modifiers = mods;
    Ok(out)
}
