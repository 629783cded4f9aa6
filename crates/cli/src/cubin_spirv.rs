//! Running a lifted cubin kernel as SPIR-V on Vulkan (`--via spirv`): the lifted function goes
//! through the IR pipeline and the SPIR-V emitter, and runs on this thread's device
//! (`crate::vk`) as `isabridge::cuda_launch` launches it: one invocation per thread of the
//! whole grid, each global-memory region a Vulkan buffer, a kernel parameter that points into a
//! region replaced by the buffer's guest address at the same offset.

use crate::cubin::Launch;
use crate::Failure;
use isabridge::cuda_launch::{run_vulkan_in, VulkanInputs};
use isabridge_decoder::elf::nvinfo::KernelAbi;
use isabridge_decoder::Isa;
use isabridge_ir::Function;
use isabridge_targets::spirv::{EmitOptions, MemoryModel};

/// The global memory after a launch (at its guest addresses) and each timed dispatch's
/// nanoseconds.
pub type Timed = (Vec<(u64, Vec<u8>)>, Vec<f64>);

/// Run lifted kernel `f` over the launch's grid on the Vulkan device (lavapipe by default);
/// returns the global memory afterwards, at the launch's guest addresses.
pub fn launch(isa: Isa, f: &Function, k: &KernelAbi, l: Launch) -> Result<Vec<(u64, Vec<u8>)>, Failure> {
    launch_in(isa, f, k, l, MemoryModel::DeviceAddress)
}

/// [`launch`] with the module emitted for memory model `memory` (heap: every region in one
/// heap buffer, pointers relocated to heap addresses).
pub fn launch_in(isa: Isa, f: &Function, k: &KernelAbi, l: Launch, memory: MemoryModel) -> Result<Vec<(u64, Vec<u8>)>, Failure> {
    launch_model(isa, f, k, l, memory, 0).map(|r| r.0)
}

/// [`launch`], then `repeats` more dispatches timed on the device: the memory after the first
/// dispatch and each timed dispatch's nanoseconds.
pub fn launch_timed(isa: Isa, f: &Function, k: &KernelAbi, l: Launch, repeats: u32) -> Result<Timed, Failure> {
    launch_model(isa, f, k, l, MemoryModel::DeviceAddress, repeats)
}

fn launch_model(isa: Isa, f: &Function, k: &KernelAbi, l: Launch, memory: MemoryModel, repeats: u32) -> Result<Timed, Failure> {
    let mut f = f.clone();
    f.shared_bytes = isabridge::cuda_launch::block_shared_bytes(isa, k, &l)?;
    isabridge_ir::passes::run_pipeline(&mut f).map_err(|e| format!("{}: pipeline: {e}", k.name))?;
    let opts = EmitOptions { memory, scratch_bytes: isabridge::cuda_launch::stack_bytes(k), ..EmitOptions::default() };
    let kernel = isabridge_targets::spirv::emit_with(&f, &opts).map_err(|e| format!("{}: SPIR-V: {e}", k.name))?;
    let vk = crate::vk::device()?;
    let contents: Vec<&[u8]> = l.global.iter().map(|(_, v)| v.as_slice()).collect();
    let mem = vk.memory(memory, &contents).map_err(|e| e.to_string())?;
    let out = run_vulkan_in(vk, &mem, isa, &kernel, k, &l)?;
    if repeats == 0 {
        return Ok((out, Vec::new()));
    }
    // The timed dispatches pass what the checked one passed.
    let inputs = VulkanInputs::new(&mem, isa, &kernel, k, &l)?;
    let times = vk.time_with(&kernel, &inputs.dispatch(), &mem, repeats).map_err(|e| format!("{}: timing: {e}", k.name))?;
    Ok((out, times))
}
