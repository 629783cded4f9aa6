//! Running a lifted cubin kernel as SPIR-V on Vulkan (`--via spirv`): the lifted function goes
//! through the IR pipeline and the SPIR-V emitter, and runs as one invocation per thread of the
//! whole grid. Constant bank 0 is laid out as `cubin::launch` lays it out for the interpreter;
//! the special registers come in as per-invocation parameter words; each global-memory region
//! becomes a Vulkan buffer, and a kernel parameter (or stack value) that points into a region
//! is replaced by the buffer's device address at the same offset.

use crate::cubin::{cbank0, Launch};
use crate::Failure;
use isabridge_decoder::elf::nvinfo::KernelAbi;
use isabridge_decoder::lift::sm86::SystemValue;
use isabridge_decoder::Isa;
use isabridge_ir::Function;
use isabridge_targets::spirv::{EmitOptions, MemoryModel};
use isabridge_targets::vulkan::Dispatch;

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
pub fn launch_timed(isa: Isa, f: &Function, k: &KernelAbi, l: Launch, repeats: u32) -> Result<(Vec<(u64, Vec<u8>)>, Vec<f64>), Failure> {
    launch_model(isa, f, k, l, MemoryModel::DeviceAddress, repeats)
}

fn launch_model(isa: Isa, f: &Function, k: &KernelAbi, l: Launch, memory: MemoryModel, repeats: u32) -> Result<(Vec<(u64, Vec<u8>)>, Vec<f64>), Failure> {
    let mut f = f.clone();
    isabridge_ir::passes::run_pipeline(&mut f).map_err(|e| format!("{}: pipeline: {e}", k.name))?;
    let kernel = isabridge_targets::spirv::emit_with(&f, &EmitOptions { memory }).map_err(|e| format!("{}: SPIR-V: {e}", k.name))?;
    let vk = crate::vk::device()?;
    let contents: Vec<&[u8]> = l.global.iter().map(|(_, v)| v.as_slice()).collect();
    let mem = vk.memory(memory, &contents).map_err(|e| e.to_string())?;
    let relocate = |v: u64| -> u64 {
        for (i, (base, bytes)) in l.global.iter().enumerate() {
            if v >= *base && v - *base < bytes.len().max(1) as u64 {
                return mem.address(i).unwrap_or(0) + (v - base);
            }
        }
        v
    };
    let params: Vec<u64> = l.params.iter().map(|&v| relocate(v)).collect();
    let mut banks = vec![cbank0(isa, k, l.grid, l.block, &params)];
    for (n, bytes) in &k.constant_banks {
        let n = *n as usize;
        if banks.len() <= n {
            banks.resize(n + 1, Vec::new());
        }
        banks[n] = bytes.clone();
    }
    let per_block: u64 = l.block.iter().map(|&d| d as u64).product();
    let blocks: u64 = l.grid.iter().map(|&d| d as u64).product();
    let total = per_block * blocks;
    if total > u32::MAX as u64 / 2 {
        return Err(format!("{}: a grid of {total} threads is too large", k.name).into());
    }
    let np = kernel.params as usize;
    let mut words = Vec::with_capacity(total as usize * np);
    for g in 0..total {
        let (blk, t) = (g / per_block, g % per_block);
        let b = [l.block[0] as u64, l.block[1] as u64];
        let gr = [l.grid[0] as u64, l.grid[1] as u64];
        for p in 0..np {
            words.push(match SystemValue::ALL.get(p) {
                Some(SystemValue::TidX) => t % b[0],
                Some(SystemValue::TidY) => t / b[0] % b[1],
                Some(SystemValue::TidZ) => t / (b[0] * b[1]),
                Some(SystemValue::CtaidX) => blk % gr[0],
                Some(SystemValue::CtaidY) => blk / gr[0] % gr[1],
                Some(SystemValue::CtaidZ) => blk / (gr[0] * gr[1]),
                _ => 0,
            });
        }
    }
    let job = Dispatch { invocations: total as u32, params: &words, constant: &banks };
    vk.run_with(&kernel, &job, &mem).map_err(|e| format!("{}: {e}", k.name))?;
    let mut out = Vec::new();
    for (i, (base, bytes)) in l.global.iter().enumerate() {
        let mut back = mem.read(i).unwrap_or_default();
        back.truncate(bytes.len());
        out.push((*base, back));
    }
    let times = if repeats > 0 { vk.time_with(&kernel, &job, &mem, repeats).map_err(|e| format!("{}: timing: {e}", k.name))? } else { Vec::new() };
    Ok((out, times))
}
