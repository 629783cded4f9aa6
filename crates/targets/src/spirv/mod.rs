//! SPIR-V emission (rspirv) for a first compute subset of the IR; see [`emit`] for what it
//! covers and the binding layout. Everything outside the subset is [`EmitError::Unsupported`],
//! naming the block, value and operation.

mod emit;

pub use emit::{emit, EmitError, Kernel, PARAMS_BINDING, OUTPUTS_BINDING};
