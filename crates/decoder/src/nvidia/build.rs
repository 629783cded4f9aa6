//! Building NVIDIA instructions from the operand model.

use super::NvPlugin;
use crate::operand::{BuildError, Inst};
use crate::IsaPlugin;

/// The bytes of `inst` (sm_86, or one sm_50 instruction word).
pub fn build(p: &NvPlugin, inst: &Inst) -> Result<Vec<u8>, BuildError> {
    Err(BuildError::Shape { isa: p.isa(), name: inst.name, why: "building is not implemented yet" })
}

/// The bytes of an sm_50 instruction.
pub fn build_sm50(inst: &Inst) -> Result<Vec<u8>, BuildError> {
    build(&crate::sm50::SM50_INSN, inst)
}
