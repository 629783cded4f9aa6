//! Flat and global memory instructions (FLAT -> VFLAT, FLAT_GLBL -> VGLOBAL): the address,
//! data, destination and SADDR operands carry over by position; the 12-bit offset becomes the
//! 24-bit IOFFSET; the cache bits become gfx1201's TH / SCOPE:
//! - an atomic with GLC returns the old value; gfx1201 says so with TH bit 0
//!   (TH_ATOMIC_RETURN);
//! - GLC or DLC on gfx1013 make the access coherent beyond the CU's L0; gfx1201 gets that with
//!   SCOPE_DEV (2), which every atomic also gets (gfx1013 atomics execute in the L2);
//! - SLC is a streaming hint only and is left out.
//!
//! LDS-direct loads (LDS bit) and NV are typed errors. Scratch (FLAT_SCRATCH -> VSCRATCH) is not
//! handled: its addressing depends on the scratch setup the layout owns.

use super::map::MapRow;
use super::{alu, unsupported, TranslateError};
use isabridge_decoder::operand::{Modifier, OperandKind};
use isabridge_decoder::Inst;

/// The gfx1201 form of FLAT or FLAT_GLBL instruction `inst` under map row `r`.
pub(super) fn translate(inst: &Inst, r: &MapRow) -> Result<Inst, TranslateError> {
    let atomic = inst.name.contains("_ATOMIC_");
    // A returning atomic's VDST is not in the spec's operand list of either generation (the
    // decoders add it from GLC / TH): carry the rest by position and put it back where it was.
    let vdst = inst.operands.iter().position(|o| o.field == "VDST" && !o.implicit).filter(|_| atomic);
    let mut out = match vdst {
        Some(k) => {
            let mut rest = inst.clone();
            let d = rest.operands.remove(k);
            let mut out = alu::translate(&rest, r)?;
            out.operands.insert(k, d);
            out
        }
        None => alu::translate(inst, r)?,
    };
    // SADDR `off` is the encoding's null code: 0x7d on gfx1013, 124 on gfx1201.
    for o in out.operands.iter_mut() {
        if let OperandKind::Field { ty: "OFF", value } = &mut o.kind {
            *value = 124;
        }
    }
    let (mut offset, mut glc, mut dlc) = (0u64, false, false);
    for m in &inst.modifiers {
        match *m {
            Modifier::Named("OFFSET", v) => offset = v,
            Modifier::Named("GLC", v) => glc = v != 0,
            Modifier::Named("DLC", v) => dlc = v != 0,
            Modifier::Named("SLC", _) => {}
            // The flat-segment form's unused SADDR holds gfx1013's null code.
            Modifier::Named("SADDR", 0x7d) if inst.encoding == "ENC_FLAT" => {}
            Modifier::Named("LDS", _) => return Err(unsupported(inst, "LDS-direct loads: gfx1201 has none")),
            _ => return Err(unsupported(inst, "a flat/global modifier the translator does not map")),
        }
    }
    // gfx1013 global offsets are 12-bit signed; flat-segment ones are unsigned 11-bit (the sign
    // bit is refused by LLVM's gfx1013 assembler), so a flat offset with bit 11 set is not
    // carried over.
    if inst.encoding == "ENC_FLAT" && offset & 0x800 != 0 {
        return Err(unsupported(inst, "flat-segment offset with bit 11 set"));
    }
    let ioffset = if offset & 0x800 != 0 { (offset | !0xfff) & 0xff_ffff } else { offset };
    let mut mods = Vec::new();
    if inst.encoding == "ENC_FLAT" {
        mods.push(Modifier::Named("SADDR", 124));
    }
    if ioffset != 0 {
        mods.push(Modifier::Named("IOFFSET", ioffset));
    }
    if atomic && glc {
        mods.push(Modifier::Named("TH", 1));
    }
    if atomic || glc || dlc {
        mods.push(Modifier::Named("SCOPE", 2));
    }
    out.modifiers = mods;
    Ok(out)
}
