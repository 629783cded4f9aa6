//! isabridge's backends. Today: the structurizer ([`structurize`]), which turns the IR's control
//! flow graph into the nested loops and selections that structured targets (SPIR-V, MSL)
//! require, with a checker for SPIR-V's structured control-flow rules; and SPIR-V emission
//! ([`spirv`]) for a first compute subset, and a Vulkan runner ([`vulkan`], feature `vulkan`).

pub mod structurize;
pub mod spirv;
#[cfg(feature = "vulkan")]
pub mod vulkan;
