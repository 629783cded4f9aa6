//! isabridge: translate GPU shader and kernel machine code between ISAs.
//!
//! This facade re-exports the workspace crates that emulators link.

pub use isabridge_decoder as decoder;
pub use isabridge_ir as ir;
