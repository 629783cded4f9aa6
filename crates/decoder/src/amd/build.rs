//! Building AMD instructions from the operand model.

use super::{Amd, Generation};
use crate::operand::{BuildError, Inst};

/// The bytes of `inst`.
pub fn build<Op: Generation>(p: &Amd<Op>, inst: &Inst) -> Result<Vec<u8>, BuildError> {
    Err(BuildError::Shape { isa: p.isa, name: inst.name, why: "building is not implemented yet" })
}
