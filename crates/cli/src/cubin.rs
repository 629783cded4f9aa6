//! Running a cubin kernel on the IR interpreter, as the CUDA driver launches it: constant bank 0
//! holds the launch's block and grid sizes, the stack top and the parameters at the offsets
//! `.nv.info` gives (`elf::nvinfo`); the special registers S2R reads come in as the lifted
//! function's per-lane parameters (`SystemValue`). Blocks run one after another in x, y, z
//! order, each a call of the interpreter with its warps together (barriers and shared memory
//! shared among them); the global memory one leaves is what the next sees.

use crate::Failure;
use isabridge_decoder::elf::nvinfo::KernelAbi;
use isabridge_decoder::lift::sm86::{self, Options, SystemValue};
use isabridge_decoder::lift::sm50;
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

/// The code of kernel `k` (its `.text.<name>` section).
pub fn kernel_code<'a>(bytes: &'a [u8], k: &KernelAbi) -> Result<&'a [u8], Failure> {
    let (_, sections) = isabridge_decoder::elf::parse(bytes).map_err(|e| e.to_string())?;
    let want = format!(".text.{}", k.name);
    sections
        .into_iter()
        .find(|s| s.name == want)
        .map(|s| s.data)
        .ok_or_else(|| format!("{}: no code section {want}", k.name).into())
}

/// Lift kernel `k` of a cubin for `isa`.
pub fn lift_kernel(isa: Isa, bytes: &[u8], k: &KernelAbi) -> Result<Function, Failure> {
    let code = kernel_code(bytes, k)?;
    let opts = Options { branch_targets: k.branch_targets.clone(), ..Options::default() };
    match isa {
        Isa::Sm86 => sm86::lift(isa, code, 0, &opts).map_err(|e| format!("{}: {e}", k.name).into()),
        Isa::Sm50 => sm50::lift(isa, code, 0, &opts).map_err(|e| format!("{}: {e}", k.name).into()),
        _ => Err(format!("{}: {} kernels do not lift yet (sm_50 and sm_86 do)", k.name, isa.name()).into()),
    }
}

/// The local stack each thread gets when the kernel's frame is smaller: CUDA's default
/// per-thread stack limit (`cudaLimitStackSize`, 1024 bytes), which recursive code (whose
/// depth ptxas cannot bound, so its frame size is one level's) runs on.
const DEFAULT_STACK_BYTES: u32 = 1024;

/// The local stack bytes per thread kernel `k` runs with.
fn stack_bytes(k: &KernelAbi) -> u32 {
    k.frame_bytes.max(DEFAULT_STACK_BYTES)
}

/// A launch: grid and block sizes, the parameter bytes (laid out as `.nv.info` says) and the
/// global memory.
pub struct Launch {
    /// Blocks per dimension.
    pub grid: [u32; 3],
    /// Threads per block and dimension.
    pub block: [u32; 3],
    /// Kernel parameters, by ordinal: (bytes, little-endian value).
    pub params: Vec<u64>,
    /// Global memory: (base address, bytes).
    pub global: Vec<(u64, Vec<u8>)>,
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

/// How `run` executes a cubin kernel.
pub struct Via<'a> {
    /// `interp` or `spirv`.
    pub path: &'a str,
    /// `--time N`: after the checked dispatch, time N more on the Vulkan device.
    pub time: Option<u32>,
}

/// Run lifted kernel `f` over the launch's grid; returns the global memory afterwards.
pub fn launch(isa: Isa, f: &Function, k: &KernelAbi, l: Launch) -> Result<Vec<(u64, Vec<u8>)>, Failure> {
    if l.params.len() != k.params.len() {
        return Err(format!("{} takes {} parameters, {} given", k.name, k.params.len(), l.params.len()).into());
    }
    let threads: u64 = l.block.iter().map(|&d| d as u64).product();
    if threads == 0 || !threads.is_multiple_of(32) || threads > 1024 {
        return Err(format!("a block of {threads} threads: the interpreter runs whole warps (a multiple of 32, at most 1024)").into());
    }
    let cbank = cbank0(isa, k, l.grid, l.block, &l.params);
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
    let mut global = l.global;
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
                let mut constant = vec![cbank.clone()];
                for (n, bytes) in &k.constant_banks {
                    let n = *n as usize;
                    if constant.len() <= n {
                        constant.resize(n + 1, Vec::new());
                    }
                    constant[n] = bytes.clone();
                }
                let mem = Memory { global, constant, shared: vec![0; k.shared_bytes as usize] };
                let out = interp::run(f, &cfg, &inputs, mem).map_err(|e| format!("{} block ({x},{y},{z}): {e}", k.name))?;
                global = out.memory.global;
            }
        }
    }
    Ok(global)
}

/// Whether `bytes` is an NVIDIA cubin.
pub fn is_cubin(bytes: &[u8]) -> bool {
    isabridge_decoder::elf::is_elf(bytes) && bytes.get(18..20) == Some(&isabridge_decoder::elf::EM_CUDA.to_le_bytes()[..])
}

/// The kernels of a cubin (all, or the one named, plainly or C++-mangled).
fn kernels(bytes: &[u8], name: Option<&str>) -> Result<Vec<KernelAbi>, Failure> {
    let ks = isabridge_decoder::elf::nvinfo::cuda_kernels(bytes).map_err(|e| e.to_string())?;
    match name {
        None => Ok(ks),
        Some(n) => match isabridge_decoder::elf::nvinfo::find_kernel(&ks, n) {
            Some(k) => Ok(vec![k.clone()]),
            None => {
                let names: Vec<&str> = ks.iter().map(|k| k.name.as_str()).collect();
                Err(format!("no kernel {n} (kernels: {})", names.join(", ")).into())
            }
        },
    }
}

/// `isabridge lift` of a cubin: each kernel (or the one named) as IR text.
pub fn print_lifted(bytes: &[u8], name: Option<&str>, out: &mut dyn std::io::Write) -> Result<(), Failure> {
    let (isa, _) = isabridge_decoder::elf::parse(bytes).map_err(|e| e.to_string())?;
    let mut failed = false;
    for k in kernels(bytes, name)? {
        writeln!(
            out,
            "; {} (kernel, {} parameters at c[0x0][{:#x}], {} registers, {} bytes shared)",
            k.name,
            k.params.len(),
            k.param_base,
            k.registers,
            k.shared_bytes
        )?;
        match lift_kernel(isa, bytes, &k) {
            Ok(f) => writeln!(out, "{}", isabridge_ir::text::print(&f))?,
            Err(Failure::Message(m)) => {
                writeln!(out, "; not lifted: {m}\n")?;
                eprintln!("isabridge: {m}");
                failed = true;
            }
            Err(e) => return Err(e),
        }
    }
    if failed {
        Err(Failure::Partial)
    } else {
        Ok(())
    }
}

/// A kernel argument from the command line: a buffer (its address is passed) or a value.
pub enum CliArg {
    /// Buffer bytes.
    Buffer(Vec<u8>),
    /// A value of this many bytes.
    Value(u64, u32),
}

/// Where argument buffers start.
const BUFFER_BASE: u64 = 0x1_0000_0000;

/// `isabridge run` of a cubin kernel: arguments in declaration order, buffers written back to
/// `DIR/argN.bin`.
pub fn run_cli(bytes: &[u8], name: Option<&str>, grid: [u32; 3], block: [u32; 3], args: Vec<CliArg>, out: &std::path::Path, via: &Via) -> Result<(), Failure> {
    let (isa, _) = isabridge_decoder::elf::parse(bytes).map_err(|e| e.to_string())?;
    let ks = kernels(bytes, name)?;
    let [k] = &ks[..] else {
        let names: Vec<&str> = ks.iter().map(|k| k.name.as_str()).collect();
        return Err(format!("several kernels, name one with --kernel: {}", names.join(", ")).into());
    };
    if args.len() != k.params.len() {
        let want: Vec<String> = k.params.iter().map(|p| format!("{} bytes", p.size)).collect();
        return Err(format!("kernel {} takes {} arguments, {} given: {}", k.name, k.params.len(), args.len(), want.join(", ")).into());
    }
    let f = lift_kernel(isa, bytes, k)?;
    let mut global = Vec::new();
    let mut params = Vec::new();
    let mut bufs = Vec::new();
    let mut next = BUFFER_BASE;
    for (i, (a, p)) in args.into_iter().zip(&k.params).enumerate() {
        match a {
            CliArg::Buffer(b) => {
                if p.size != 8 {
                    return Err(format!("argument {i} is {} bytes, not a pointer", p.size).into());
                }
                params.push(next);
                bufs.push((i, next));
                let len = b.len() as u64;
                global.push((next, b));
                next += len.div_ceil(0x1000).max(1) * 0x1000 + 0x1000;
            }
            CliArg::Value(v, size) => {
                if size != p.size {
                    return Err(format!("argument {i} is {} bytes, the value given {size}", p.size).into());
                }
                params.push(v);
            }
        }
    }
    let l = Launch { grid, block, params, global };
    let mem = match via.time {
        Some(repeats) if via.path == "spirv" => {
            let (mem, ns) = crate::cubin_spirv::launch_timed(isa, &f, k, l, repeats)?;
            let mut sorted = ns.clone();
            sorted.sort_by(f64::total_cmp);
            let us = |v: f64| v / 1000.0;
            println!(
                "{}: GPU time per dispatch on {}: median {:.2} us, min {:.2} us, max {:.2} us ({} timed dispatches after the checked one)",
                k.name,
                crate::vk::device().map(|d| d.name().to_string()).unwrap_or_default(),
                us(sorted[sorted.len() / 2]),
                us(sorted[0]),
                us(sorted[sorted.len() - 1]),
                sorted.len()
            );
            mem
        }
        Some(_) => return Err("--time needs --via spirv".to_string().into()),
        None if via.path == "spirv" => crate::cubin_spirv::launch(isa, &f, k, l)?,
        None => launch(isa, &f, k, l)?,
    };
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    for (i, addr) in bufs {
        let p = out.join(format!("arg{i}.bin"));
        let data = mem.iter().find(|(g, _)| *g == addr).map(|(_, v)| v.as_slice()).unwrap_or(&[]);
        std::fs::write(&p, data).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    println!("{}: {} block(s) of {} thread(s)", k.name, grid.iter().map(|&g| g as u64).product::<u64>(), block.iter().map(|&b| b as u64).product::<u64>());
    Ok(())
}
