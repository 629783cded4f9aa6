//! Buffer instructions (MUBUF and MTBUF -> VBUFFER): VDATA, VADDR, the descriptor (SRSRC ->
//! RSRC) and SOFFSET carry over by position; OFFEN / IDXEN / TFE keep their names; the 12-bit
//! unsigned offset becomes the 24-bit IOFFSET; the cache bits become TH / SCOPE as in
//! [`super::flat`]:
//! - an atomic with GLC returns the old value: TH bit 0 (TH_ATOMIC_RETURN);
//! - GLC or DLC make the access coherent beyond the CU's L0: SCOPE_DEV (2), which every atomic
//!   also gets (gfx1013 buffer atomics execute in the L2);
//! - SLC is a streaming hint only and is left out.
//!
//! SOFFSET: gfx1201's field is 7 bits, so of gfx1013's inline constants only 0 has a form
//! (`null`, which reads 0); other constants and literals are refused here and go through a
//! temporary SGPR where the caller reserved one (`expand_soffset.rs`). `tbuffer_*` formats are
//! renumbered through [`super::descriptor_convert::buffer_format_gfx12`]; the untyped ops get
//! FORMAT 1, the value LLVM 22's assembler gives them (the field is not read for them). LDS
//! loads, SWZ and the cache invalidations (`buffer_gl*_inv`, see [`super::sopp_ids`]) are
//! refused here. The descriptor the instruction reads is converted by the descriptor pass.

use super::descriptor_convert::buffer_format_gfx12;
use super::map::MapRow;
use super::{alu, unsupported, TranslateError};
use isabridge_decoder::operand::{Modifier, OperandKind, SpecialReg, Part};
use isabridge_decoder::Inst;

/// The gfx1201 form of MUBUF / MTBUF instruction `inst` under map row `r`.
pub(super) fn translate(inst: &Inst, r: &MapRow) -> Result<Inst, TranslateError> {
    let atomic = inst.name.contains("_ATOMIC");
    let mut out = alu::translate(inst, r)?;
    for o in out.operands.iter_mut().filter(|o| o.field == "SOFFSET") {
        match o.kind {
            OperandKind::InlineConst { bits: 0, .. } => o.kind = OperandKind::Special { reg: SpecialReg::Null, part: Part::Whole },
            OperandKind::InlineConst { .. } | OperandKind::Literal(_) => {
                return Err(unsupported(inst, "buffer SOFFSET constant other than 0: gfx1201's 7-bit field has no constants"))
            }
            _ => {}
        }
    }
    let (mut offset, mut glc, mut dlc, mut format) = (0u64, false, false, None);
    let mut flags = Vec::new();
    for m in &inst.modifiers {
        match *m {
            Modifier::Named("OFFSET", v) => offset = v,
            Modifier::Named("GLC", v) => glc = v != 0,
            Modifier::Named("DLC", v) => dlc = v != 0,
            Modifier::Named("SLC", _) => {}
            Modifier::Named(f @ ("OFFEN" | "IDXEN" | "TFE"), v) => flags.push(Modifier::Named(f, v)),
            Modifier::Named("FORMAT", v) => format = Some(v),
            Modifier::Named("LDS", _) => return Err(unsupported(inst, "buffer loads to LDS: gfx1201 has none")),
            _ => return Err(unsupported(inst, "a buffer modifier the translator does not map")),
        }
    }
    let format = match (inst.encoding, format) {
        ("ENC_MTBUF", v) => {
            let v = v.unwrap_or(0);
            u8::try_from(v)
                .ok()
                .and_then(buffer_format_gfx12)
                .ok_or_else(|| unsupported(inst, &format!("tbuffer format {v} has no gfx1201 buffer format")))?
        }
        _ => 1,
    };
    let mut mods = flags;
    if offset != 0 {
        mods.push(Modifier::Named("IOFFSET", offset));
    }
    mods.push(Modifier::Named("FORMAT", u64::from(format)));
    if atomic && glc {
        mods.push(Modifier::Named("TH", 1));
    }
    if atomic || glc || dlc {
        mods.push(Modifier::Named("SCOPE", 2));
    }
    out.modifiers = mods;
    Ok(out)
}
