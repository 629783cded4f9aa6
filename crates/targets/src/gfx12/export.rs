//! Exports (EXP -> VEXPORT): the target, the four sources and the DONE / EN fields carry over;
//! the targets whose number and meaning gfx1201 keeps are the colour targets mrt0-7, mrtz and
//! pos0-3 (the same ids in both: llvm-mc-22 assembles them for gfx1013 and gfx1201 to the same
//! TARGET values). gfx1201 has no VM bit: LLVM 22's gfx1013 and gfx1201 builds of the same pixel
//! shaders (fixtures/amd/ref gfx_sample) end with `exp mrt0 ... done vm` and
//! `export mrt0 ... done`, so VM is dropped. Refused: compressed exports (COMPR: gfx1201 has no
//! packed 16-bit exports), parameter exports (gfx1201 passes attributes through memory), and the
//! null, primitive and other targets.

use super::map::MapRow;
use super::{alu, unsupported, TranslateError};
use isabridge_decoder::operand::{Modifier, OperandKind};
use isabridge_decoder::Inst;

/// The gfx1201 form of export `inst` under map row `r`.
pub(super) fn translate(inst: &Inst, r: &MapRow) -> Result<Inst, TranslateError> {
    let target = inst.explicit().find_map(|o| match o.kind {
        OperandKind::Field { ty: "OPR_EXP_TGT", value } => Some(value),
        _ => None,
    });
    match target {
        Some(0..=8 | 12..=15) => {}
        Some(32..=63) => return Err(unsupported(inst, "parameter export: gfx1201 passes attributes through memory")),
        Some(t) => return Err(unsupported(inst, &format!("export target {t}: not the same on gfx1201 (only mrt0-7, mrtz, pos0-3)"))),
        None => return Err(unsupported(inst, "export without a target operand")),
    }
    let mut out = alu::translate(inst, r)?;
    let mut mods = Vec::new();
    for m in &inst.modifiers {
        match *m {
            Modifier::Named("COMPR", v) if v != 0 => return Err(unsupported(inst, "compressed export: gfx1201 has no packed 16-bit exports")),
            Modifier::Named("VM", _) => {}
            Modifier::Named(f @ ("DONE" | "EN"), v) => mods.push(Modifier::Named(f, v)),
            _ => return Err(unsupported(inst, "an export modifier the translator does not map")),
        }
    }
    out.modifiers = mods;
    Ok(out)
}
