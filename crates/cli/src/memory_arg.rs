//! The `--memory` argument of the SPIR-V paths: how emitted modules reach guest global memory.

use isabridge_targets::spirv::MemoryModel;

/// A `--memory` value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Memory {
    /// Guest pointers are Vulkan buffer device addresses (PhysicalStorageBuffer64).
    #[default]
    Device,
    /// All guest memory in one storage buffer; guest pointers are heap addresses (no buffer
    /// device addresses needed; the modules naga reads).
    Heap,
}

impl Memory {
    /// The emitter's memory model.
    pub fn model(self) -> MemoryModel {
        match self {
            Memory::Device => MemoryModel::DeviceAddress,
            Memory::Heap => MemoryModel::Heap,
        }
    }
}
