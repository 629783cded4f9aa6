//! Launching a cubin kernel as the CUDA driver launches it, on the IR interpreter
//! ([`run_interp`]) or, with feature `vulkan`, as emitted SPIR-V on a Vulkan device
//! ([`run_vulkan`]). Both take the same [`Launch`] and give back global memory at the launch's
//! guest addresses, so their results compare byte for byte.
//!
//! Constant bank 0 holds the launch's block and grid sizes, the stack top and the parameters
//! at the offsets `.nv.info` gives ([`cbank0`]); the special registers S2R reads come in as the
//! lifted function's per-lane parameters (`SystemValue`). On the interpreter, blocks run one
//! after another in x, y, z order, each a call with its warps together (barriers and shared
//! memory shared among them); the global memory one leaves is what the next sees. On Vulkan,
//! the kernel runs as one invocation per thread of the whole grid; each global-memory region
//! becomes a buffer, and a parameter that points into a region is replaced by the buffer's
//! guest address (device address or heap address) at the same offset.
//!
//! The module's own data (`decoder::elf::nvmodule`) comes with every launch, as the driver
//! loads it with the module: its constant banks (bank 3's `__constant__` variables, bank 4's
//! addresses) and its global variables (`__device__`), one region of the launch's global
//! memory at an address the caller picks ([`Launch::globals_at`], bytes from
//! [`globals_image`]), with the module's relocations applied for that address (on Vulkan, for
//! the region's address there). A function pointer is the function's offset in the kernel's
//! code, what ptxas's tables hold and the lifters compare a call's target with.

use isabridge_decoder::elf::nvinfo::KernelAbi;
use isabridge_decoder::lift::sm50;
use isabridge_decoder::lift::sm86::SystemValue;
use isabridge_decoder::Isa;
use isabridge_ir::interp::{self, Config, Input, Memory};
use isabridge_ir::Function;

/// Where the driver puts the launch values in constant bank 0, per ISA (as ptxas reads them:
/// sm_86 code reads ntid.x at c[0x0][0x0] and the stack top at c[0x0][0x28]; sm_50 code at
/// c[0x0][0x8] and c[0x0][0x20], and the base of the generic shared window at c[0x0][0x0]).
struct DriverLayout {
    ntid: u32,
    nctaid: u32,
    stack: u32,
    /// Where the shared window's base goes, with the base (the sm_50 lifter's model of it).
    shared_window: Option<(u32, u32)>,
}

fn layout(isa: Isa) -> DriverLayout {
    match isa {
        Isa::Sm50 => DriverLayout { ntid: 0x8, nctaid: 0x14, stack: 0x20, shared_window: Some((0x0, sm50::SHARED_WINDOW)) },
        _ => DriverLayout { ntid: 0x0, nctaid: 0xc, stack: 0x28, shared_window: None },
    }
}

/// The local stack each thread gets when the kernel's frame is smaller: CUDA's default
/// per-thread stack limit (`cudaLimitStackSize`, 1024 bytes), which recursive code (whose
/// depth ptxas cannot bound, so its frame size is one level's) runs on.
const DEFAULT_STACK_BYTES: u32 = 1024;

/// The local stack bytes per thread kernel `k` runs with.
pub fn stack_bytes(k: &KernelAbi) -> u32 {
    k.frame_bytes.max(DEFAULT_STACK_BYTES)
}

/// The most shared memory (static and dynamic) a block of `isa` may have, in bytes, as the CUDA
/// C++ Programming Guide's compute-capability tables give it: 48 KiB on compute capability 5.0
/// (sm_50), 99 KiB on 8.6 (sm_86, with the kernel's opt-in to more than 48 KiB).
pub fn max_shared_bytes(isa: Isa) -> u32 {
    match isa {
        Isa::Sm50 => 48 << 10,
        _ => 99 << 10,
    }
}

/// The shared memory bytes a block of launch `l` of kernel `k` has: its static shared memory
/// and the launch's dynamic size; an error past [`max_shared_bytes`].
pub fn block_shared_bytes(isa: Isa, k: &KernelAbi, l: &Launch) -> Result<u32, String> {
    let limit = max_shared_bytes(isa);
    match k.shared_bytes.checked_add(l.dynamic_shared) {
        Some(n) if n <= limit => Ok(n),
        _ => Err(format!("{}: {} bytes of static and {} of dynamic shared memory exceed the {limit} bytes a block may have", k.name, k.shared_bytes, l.dynamic_shared)),
    }
}

/// A launch: grid and block sizes, the parameter values (laid out as `.nv.info` says), the
/// global memory and the dynamic shared memory size.
#[derive(Clone, Debug)]
pub struct Launch {
    /// Blocks per dimension.
    pub grid: [u32; 3],
    /// Threads per block and dimension.
    pub block: [u32; 3],
    /// Kernel parameters, by ordinal (little-endian value; its size is the parameter's).
    pub params: Vec<u64>,
    /// Global memory: (base address, bytes).
    pub global: Vec<(u64, Vec<u8>)>,
    /// Where the module's global variables lie: the base of one of `global`'s regions, which
    /// holds [`globals_image`] for that base. `None` for a module without global variables.
    pub globals_at: Option<u64>,
    /// Bytes of dynamic shared memory per block (`sharedMemBytes`, what CUDA's `extern
    /// __shared__` arrays address), after the kernel's static shared memory.
    pub dynamic_shared: u32,
}

/// The bytes of kernel `k`'s module global variables (`.nv.global.init`, then `.nv.global`
/// zero-filled) placed at `base`, relocated; empty when the module has none.
pub fn globals_image(k: &KernelAbi, base: u64) -> Result<Vec<u8>, String> {
    if !k.module.needs_globals() {
        return Ok(Vec::new());
    }
    k.module.relocated(&k.name, base).map(|r| r.globals).map_err(|e| format!("{}: module data: {e}", k.name))
}

/// Constant bank 0 as the driver fills it for a launch: block and grid sizes, the stack top,
/// the shared window (sm_50) and the parameters.
pub fn cbank0(isa: Isa, k: &KernelAbi, grid: [u32; 3], block: [u32; 3], params: &[u64]) -> Vec<u8> {
    let lay = layout(isa);
    let end = k.params.iter().map(|p| p.offset + p.size).max().unwrap_or(0);
    let mut cbank = vec![0u8; k.cbank0_bytes.max(end).max(0x30) as usize];
    let put = |b: &mut [u8], at: u32, size: u32, v: u64| {
        for i in 0..size.min(8) {
            if let Some(x) = b.get_mut((at + i) as usize) {
                *x = (v >> (8 * i)) as u8;
            }
        }
    };
    for d in 0..3 {
        put(&mut cbank, lay.ntid + 4 * d as u32, 4, block[d] as u64);
        put(&mut cbank, lay.nctaid + 4 * d as u32, 4, grid[d] as u64);
    }
    put(&mut cbank, lay.stack, 4, stack_bytes(k) as u64);
    if let Some((at, base)) = lay.shared_window {
        put(&mut cbank, at, 4, base as u64);
    }
    for (p, v) in k.params.iter().zip(params) {
        put(&mut cbank, p.offset, p.size, *v);
    }
    cbank
}

/// The constant banks of a launch: bank 0 ([`cbank0`]), the kernel's own banks and the
/// module's by number, the module's relocated for its global variables at `globals` (the
/// address of [`Launch::globals_at`]'s region in the memory the kernel runs on).
fn constant_banks(isa: Isa, k: &KernelAbi, l: &Launch, params: &[u64], globals: Option<u64>) -> Result<Vec<Vec<u8>>, String> {
    if k.module.needs_globals() && globals.is_none() {
        return Err(format!("{}: the module has global variables, which the launch does not place (Launch::globals_at)", k.name));
    }
    let module = k.module.relocated(&k.name, globals.unwrap_or(0)).map_err(|e| format!("{}: module data: {e}", k.name))?.banks;
    let mut banks = vec![cbank0(isa, k, l.grid, l.block, params)];
    for (n, bytes) in k.constant_banks.iter().chain(&module) {
        let n = *n as usize;
        if banks.len() <= n {
            banks.resize(n + 1, Vec::new());
        }
        banks[n] = bytes.clone();
    }
    Ok(banks)
}

/// The index of the region [`Launch::globals_at`] names, if any (an error when none of the
/// launch's regions starts there).
fn globals_region(k: &KernelAbi, l: &Launch) -> Result<Option<usize>, String> {
    let Some(at) = l.globals_at else { return Ok(None) };
    match l.global.iter().position(|(b, _)| *b == at) {
        Some(i) => Ok(Some(i)),
        None => Err(format!("{}: the module's global variables at {at:#x}: no region of the launch starts there", k.name)),
    }
}

/// Run lifted kernel `f` (as the lifter gives it) over the launch's grid on the interpreter;
/// returns the global memory afterwards.
pub fn run_interp(isa: Isa, f: &Function, k: &KernelAbi, l: Launch) -> Result<Vec<(u64, Vec<u8>)>, String> {
    if l.params.len() != k.params.len() {
        return Err(format!("{} takes {} parameters, {} given", k.name, k.params.len(), l.params.len()));
    }
    let threads: u64 = l.block.iter().map(|&d| d as u64).product();
    if threads == 0 || !threads.is_multiple_of(32) || threads > 1024 {
        return Err(format!("a block of {threads} threads: the interpreter runs whole warps (a multiple of 32, at most 1024)"));
    }
    globals_region(k, &l)?;
    let shared = block_shared_bytes(isa, k, &l)?;
    let constant = constant_banks(isa, k, &l, &l.params, l.globals_at)?;
    let warps = (threads / 32) as u32;
    let cfg = Config { wave_size: 32, waves: warps, scratch_bytes: stack_bytes(k) as usize, ..Config::default() };
    let n = threads as usize;
    let tid = |dim: usize| -> Input {
        Input::PerLane(
            (0..n as u64)
                .map(|t| match dim {
                    0 => t % l.block[0] as u64,
                    1 => t / l.block[0] as u64 % l.block[1] as u64,
                    _ => t / (l.block[0] as u64 * l.block[1] as u64),
                })
                .collect(),
        )
    };
    let mut global = l.global.clone();
    for z in 0..l.grid[2] {
        for y in 0..l.grid[1] {
            for x in 0..l.grid[0] {
                let inputs: Vec<Input> = SystemValue::ALL
                    .iter()
                    .map(|s| match s {
                        SystemValue::TidX => tid(0),
                        SystemValue::TidY => tid(1),
                        SystemValue::TidZ => tid(2),
                        SystemValue::CtaidX => Input::Uniform(x as u64),
                        SystemValue::CtaidY => Input::Uniform(y as u64),
                        SystemValue::CtaidZ => Input::Uniform(z as u64),
                        _ => Input::Uniform(0),
                    })
                    .collect();
                let mem = Memory { global, constant: constant.clone(), shared: vec![0; shared as usize] };
                let out = interp::run(f, &cfg, &inputs, mem).map_err(|e| format!("{} block ({x},{y},{z}): {e}", k.name))?;
                global = out.memory.global;
            }
        }
    }
    Ok(global)
}

/// Run `kernel` (emitted from kernel `k`'s lifted function after the IR pipeline) over the
/// launch's grid on Vulkan device `vk`, one invocation per thread; returns the global memory
/// afterwards, at the launch's guest addresses.
#[cfg(feature = "vulkan")]
pub fn run_vulkan(vk: &isabridge_targets::vulkan::Vulkan, isa: Isa, kernel: &isabridge_targets::spirv::Kernel, k: &KernelAbi, l: Launch) -> Result<Vec<(u64, Vec<u8>)>, String> {
    let contents: Vec<&[u8]> = l.global.iter().map(|(_, v)| v.as_slice()).collect();
    let mem = vk.memory(kernel.memory, &contents).map_err(|e| e.to_string())?;
    run_vulkan_in(vk, &mem, isa, kernel, k, &l)
}

/// [`run_vulkan`] in memory `mem` already made on `vk` for `kernel`'s memory model, whose
/// regions are the launch's global regions in order, holding their bytes. A launch whose
/// regions sit at `mem`'s own addresses needs no relocation: the interpreter and the device
/// then see the same pointers wherever the kernel keeps them.
#[cfg(feature = "vulkan")]
pub fn run_vulkan_in(
    vk: &isabridge_targets::vulkan::Vulkan,
    mem: &isabridge_targets::vulkan::GlobalMemory,
    isa: Isa,
    kernel: &isabridge_targets::spirv::Kernel,
    k: &KernelAbi,
    l: &Launch,
) -> Result<Vec<(u64, Vec<u8>)>, String> {
    // The module's Workgroup array must hold the block's shared memory (an access past it
    // would read 0 there, where the interpreter stops).
    let shared = block_shared_bytes(isa, k, l)?;
    if kernel.shared_bytes < shared {
        return Err(format!("{}: the module has {} bytes of shared memory, the launch needs {shared} ({} of them dynamic: translate with that dynamic size)", k.name, kernel.shared_bytes, l.dynamic_shared));
    }
    // The module's global variables, relocated for their region's address in `mem` where
    // that is not the launch's.
    if let Some(i) = globals_region(k, l)? {
        let at = mem.address(i).unwrap_or(0);
        if Some(at) != l.globals_at {
            let image = globals_image(k, at)?;
            mem.write(i, 0, &image).ok_or_else(|| format!("{}: the module's global variables do not fit their region", k.name))?;
        }
    }
    let job = VulkanInputs::new(mem, isa, kernel, k, l)?;
    vk.run_with(kernel, &job.dispatch(), mem).map_err(|e| format!("{}: {e}", k.name))?;
    Ok(read_back(mem, l))
}

/// What a Vulkan dispatch of a launch passes: the invocation count, each invocation's
/// parameter words (the special registers) and the constant banks.
#[cfg(feature = "vulkan")]
pub struct VulkanInputs {
    /// Invocations: one per thread of the grid.
    pub invocations: u32,
    /// `kernel.params` words per invocation.
    pub words: Vec<u64>,
    /// Constant banks by number; bank 0's pointer parameters relocated into `mem`.
    pub banks: Vec<Vec<u8>>,
}

#[cfg(feature = "vulkan")]
impl VulkanInputs {
    /// The inputs of launch `l` of `kernel` (kernel `k`'s) in memory `mem` (the launch's
    /// regions in order): a parameter that points into a region gets that region's address in
    /// `mem` at the same offset.
    pub fn new(mem: &isabridge_targets::vulkan::GlobalMemory, isa: Isa, kernel: &isabridge_targets::spirv::Kernel, k: &KernelAbi, l: &Launch) -> Result<VulkanInputs, String> {
        let relocate = |v: u64| -> u64 {
            for (i, (base, bytes)) in l.global.iter().enumerate() {
                if v >= *base && v - *base < bytes.len().max(1) as u64 {
                    return mem.address(i).unwrap_or(0) + (v - base);
                }
            }
            v
        };
        let params: Vec<u64> = l.params.iter().map(|&v| relocate(v)).collect();
        let banks = constant_banks(isa, k, l, &params, l.globals_at.map(relocate))?;
        let per_block: u64 = l.block.iter().map(|&d| d as u64).product();
        let blocks: u64 = l.grid.iter().map(|&d| d as u64).product();
        let total = per_block * blocks;
        if total > u32::MAX as u64 / 2 {
            return Err(format!("{}: a grid of {total} threads is too large", k.name));
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
        Ok(VulkanInputs { invocations: total as u32, words, banks })
    }

    /// The dispatch these inputs describe.
    pub fn dispatch(&self) -> isabridge_targets::vulkan::Dispatch<'_> {
        isabridge_targets::vulkan::Dispatch { invocations: self.invocations, params: &self.words, constant: &self.banks }
    }
}

/// The launch's global regions as `mem` holds them now, at the launch's guest addresses.
#[cfg(feature = "vulkan")]
pub fn read_back(mem: &isabridge_targets::vulkan::GlobalMemory, l: &Launch) -> Vec<(u64, Vec<u8>)> {
    let mut out = Vec::new();
    for (i, (base, bytes)) in l.global.iter().enumerate() {
        let mut back = mem.read(i).unwrap_or_default();
        back.truncate(bytes.len());
        out.push((*base, back));
    }
    out
}
