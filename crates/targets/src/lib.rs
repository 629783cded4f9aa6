//! isabridge's backends. Today: the structurizer ([`structurize`]), which turns the IR's control
//! flow graph into the nested loops and selections that structured targets (SPIR-V, MSL)
//! require, with a checker for SPIR-V's structured control-flow rules; and SPIR-V emission
//! ([`spirv`]) for a first compute subset, a Vulkan runner (`vulkan`, behind the feature `vulkan`), and the
//! gfx1013 to gfx1201 machine-level translator ([`gfx12`]).

pub mod structurize;
pub mod spirv;
pub mod gfx12;
#[cfg(feature = "vulkan")]
pub mod vulkan;
