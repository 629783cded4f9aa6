//! What a translation produces: an [`Artifact`] with its format, bytes, entry points and the
//! resources (descriptor bindings) a host sets up to run it.

/// The format of an artifact's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// A SPIR-V 1.5 module (little-endian words) for Vulkan 1.2, one compute entry point.
    Spirv,
    /// An AMDHSA code object for gfx1201 (`.hsaco`), one entry point per kernel.
    Hsaco,
    /// Raw gfx1201 machine code, its first instruction at offset 0; [`Artifact::registers`]
    /// gives the registers it needs.
    Gfx1201Code,
}

/// One entry point of an artifact.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryPoint {
    /// The name the module gives it (`OpEntryPoint`).
    pub name: String,
    /// The guest kernel it translates (symbol name as the code object spells it).
    pub kernel: String,
    /// Invocations per workgroup, x y z (one invocation per guest lane).
    pub workgroup_size: [u32; 3],
    /// The workgroup memory a SPIR-V entry point declares (all zero for gfx1201 code, whose
    /// kernel descriptors carry their own).
    pub workgroup_memory: WorkgroupMemory,
}

/// The workgroup memory (Vulkan `Workgroup` storage) of an entry point, in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorkgroupMemory {
    /// The guest kernel's static workgroup memory: AMD LDS (`group_segment_fixed_size`),
    /// CUDA `__shared__` variables (`.nv.shared`).
    pub static_bytes: u32,
    /// The dynamic shared memory the translation was given
    /// ([`Options::dynamic_shared`](crate::Options::dynamic_shared), CUDA `extern __shared__`),
    /// after the static bytes: the launch must ask for no more.
    pub dynamic_bytes: u32,
    /// All the Workgroup storage the module declares: the guest's, rounded up to whole words,
    /// and the cross-lane exchange's. A device whose `maxComputeSharedMemorySize` is smaller
    /// cannot run it.
    pub total_bytes: u32,
}

/// What a descriptor binding holds.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Resource {
    /// A storage buffer of 64-bit words: invocation `g` (`GlobalInvocationId.x`) reads word
    /// `g * names.len() + n` as its input `n` (its low bits for narrower values).
    InvocationInputs {
        /// What input `n` is, in order (for NVIDIA kernels the special register it stands
        /// for, such as `SR_TID.X`).
        names: Vec<String>,
    },
    /// A storage buffer of 64-bit words: invocation `g` writes its result `i` at word
    /// `g * words + i` (zero extended) when it returns.
    InvocationOutputs {
        /// Result words per invocation.
        words: u32,
    },
    /// A storage buffer of 32-bit words holding the guest's constant banks, bank `k` at byte
    /// `k * bank_bytes`. For an NVIDIA kernel, bank 0 is laid out as the CUDA driver lays it
    /// out (launch sizes, then the kernel arguments at `kernel_args`), and the compiler's
    /// banks (`.nv.constant<N>`) are in [`Artifact::constant_banks`].
    ConstantBanks {
        /// Bytes per bank.
        bank_bytes: u32,
        /// The kernel arguments in bank 0: (byte offset, size in bytes), declaration order.
        kernel_args: Vec<(u32, u32)>,
    },
    /// A storage buffer of two 64-bit words, zero before the dispatch: an invocation that traps
    /// writes the trap code plus one and its invocation index (`GlobalInvocationId.x`).
    TrapRecord,
    /// The heap memory model's one storage buffer of 32-bit words holding all guest global
    /// memory: guest byte `a` is buffer byte `header_bytes + (a - heap_base)`, where
    /// `heap_base` (a multiple of 16 the host chooses) is the 64-bit push constant at byte
    /// `base_offset`; guest pointers are heap addresses. Word `fault_word` becomes nonzero when
    /// an access fell outside the heap or was misaligned (it then read 0 and wrote nothing).
    GuestHeap {
        /// Bytes before guest memory (the fault record).
        header_bytes: u32,
        /// Byte offset of the heap base in the push constants.
        base_offset: u32,
        /// The fault flag's word index.
        fault_word: u32,
    },
}

/// One descriptor binding of an artifact.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// Descriptor set.
    pub set: u32,
    /// Binding number in the set.
    pub binding: u32,
    /// What the host puts there.
    pub resource: Resource,
}

/// A translated kernel.
///
/// Guest pointers (kernel arguments, values in constant banks, pointers loaded from memory)
/// are Vulkan buffer device addresses (`PhysicalStorageBuffer64`) by default: the host places
/// the guest's global memory in buffers created with `SHADER_DEVICE_ADDRESS` usage and passes
/// their addresses where the guest expects its pointers. In the heap memory model
/// ([`crate::MemoryModel::Heap`]) they are addresses in the [`Resource::GuestHeap`] buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Artifact {
    /// The format of [`Artifact::bytes`].
    pub format: Format,
    /// The module.
    pub bytes: Vec<u8>,
    /// Its entry points.
    pub entry_points: Vec<EntryPoint>,
    /// Its descriptor bindings.
    pub bindings: Vec<Binding>,
    /// The compiler's constant banks the kernel carries (bank number, bytes), which the host
    /// places in the [`Resource::ConstantBanks`] buffer: the kernel's own and its module's
    /// (`.nv.constant3`'s `__constant__` variables, ...) as the cubin holds them; the
    /// module's relocations (an address in bank 4) are the host's to apply, as the CUDA driver
    /// does (`isabridge::cuda_launch` applies them).
    pub constant_banks: Vec<(u8, Vec<u8>)>,
    /// Vulkan features and properties the module needs, by their Vulkan names.
    pub requires: Vec<&'static str>,
    /// Raw machine code: the VGPRs and SGPRs per wave it needs (None for modules and code
    /// objects, which carry their own).
    pub registers: Option<[u32; 2]>,
    /// Kernels of the source a multi-kernel artifact leaves out, each with the reason.
    pub refused: Vec<(String, String)>,
}

impl Artifact {
    /// The module as SPIR-V words (`None` when the format is not SPIR-V or the length is not
    /// whole words).
    pub fn spirv_words(&self) -> Option<Vec<u32>> {
        if self.format != Format::Spirv || !self.bytes.len().is_multiple_of(4) {
            return None;
        }
        Some(self.bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
    }

    /// The module as the SPIR-V backend's [`Kernel`](isabridge_targets::spirv::Kernel), which
    /// the Vulkan runner (`isabridge::targets::vulkan`, feature `vulkan`) runs.
    pub fn spirv_kernel(&self) -> Option<isabridge_targets::spirv::Kernel> {
        let entry = self.entry_points.first()?;
        let mut params = 0;
        let mut outputs = 0;
        for b in &self.bindings {
            match &b.resource {
                Resource::InvocationInputs { names } => params = names.len() as u32,
                Resource::InvocationOutputs { words } => outputs = *words,
                Resource::ConstantBanks { .. } | Resource::TrapRecord | Resource::GuestHeap { .. } => {}
            }
        }
        Some(isabridge_targets::spirv::Kernel {
            words: self.spirv_words()?,
            entry: entry.name.clone(),
            workgroup_size: entry.workgroup_size[0],
            params,
            outputs,
            requires: self.requires.clone(),
            traps: self.bindings.iter().any(|b| b.resource == Resource::TrapRecord),
            memory: if self.binding(|r| matches!(r, Resource::GuestHeap { .. })).is_some() {
                isabridge_targets::spirv::MemoryModel::Heap
            } else {
                isabridge_targets::spirv::MemoryModel::DeviceAddress
            },
            shared_bytes: (entry.workgroup_memory.static_bytes + entry.workgroup_memory.dynamic_bytes).next_multiple_of(4),
            workgroup_bytes: entry.workgroup_memory.total_bytes,
        })
    }

    /// The first binding whose resource passes `is`.
    pub fn binding(&self, is: impl Fn(&Resource) -> bool) -> Option<&Binding> {
        self.bindings.iter().find(|b| is(&b.resource))
    }
}
