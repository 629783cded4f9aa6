//! Cubin kernels on the command line: lifting, listing, and `isabridge run` of a kernel on the
//! IR interpreter or as SPIR-V, launched as the CUDA driver launches it
//! (`isabridge::cuda_launch`).

use crate::Failure;
use isabridge_decoder::elf::nvinfo::KernelAbi;
use isabridge_decoder::lift::sm86::{self, Options};
use isabridge_decoder::lift::sm50;
use isabridge_decoder::Isa;
use isabridge_ir::Function;
pub use isabridge::cuda_launch::{self, Launch};

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
    let opts = Options::of_kernel(k);
    match isa {
        Isa::Sm86 => sm86::lift(isa, code, 0, &opts).map_err(|e| format!("{}: {e}", k.name).into()),
        Isa::Sm50 => sm50::lift(isa, code, 0, &opts).map_err(|e| format!("{}: {e}", k.name).into()),
        _ => Err(format!("{}: {} kernels do not lift yet (sm_50 and sm_86 do)", k.name, isa.name()).into()),
    }
}

/// How `run` executes a cubin kernel.
pub struct Via<'a> {
    /// `interp` or `spirv`.
    pub path: &'a str,
    /// `--time N`: after the checked dispatch, time N more on the Vulkan device.
    pub time: Option<u32>,
    /// `--dynamic-shared BYTES`: the launch's dynamic shared memory per block.
    pub dynamic_shared: u32,
}

/// Run lifted kernel `f` over the launch's grid on the interpreter ([`cuda_launch::run_interp`]).
pub fn launch(isa: Isa, f: &Function, k: &KernelAbi, l: Launch) -> Result<Vec<(u64, Vec<u8>)>, Failure> {
    cuda_launch::run_interp(isa, f, k, l).map_err(Failure::from)
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
    // The module's global variables after the buffers.
    let globals_at = if k.module.needs_globals() {
        global.push((next, cuda_launch::globals_image(k, next)?));
        Some(next)
    } else {
        None
    };
    let l = Launch { grid, block, params, global, globals_at, dynamic_shared: via.dynamic_shared };
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
