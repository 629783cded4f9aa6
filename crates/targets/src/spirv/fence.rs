//! Memory fences (`fence.<scope>`, NVIDIA MEMBAR / `fence.dev`) of per-lane functions: one
//! `OpMemoryBarrier` at device scope ordering the invocation's buffer accesses (acquire and
//! release on uniform memory), whatever the guest scope, since a wider fence is still one the
//! guest's scope allows. The interpreter completes every access in program order, so a fence
//! changes no value there; on the device it keeps the order other invocations may observe.

use super::emit::{internal, Em, EmitError};

/// Device scope (SPIR-V `Scope`).
const DEVICE: u32 = 1;
/// AcquireRelease | UniformMemory.
const SEMANTICS: u32 = 0x8 | 0x40;

impl Em<'_> {
    /// A memory fence: `OpMemoryBarrier` at device scope.
    pub(super) fn fence(&mut self) -> Result<(), EmitError> {
        let scope = self.wc32(DEVICE)?;
        let sem = self.wc32(SEMANTICS)?;
        self.b.memory_barrier(scope, sem).map_err(internal)
    }
}
