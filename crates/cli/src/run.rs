//! `isabridge run FILE --via interp ...`: run one kernel of a gfx1013 or gfx1201 code object
//! (or a raw dump) over a grid of workgroups on the IR interpreter, with buffers from files, and
//! write the buffers back. `--via gfx1201` first translates a gfx1013 code object to gfx1201 and
//! runs the translation, lifted with late-arriving memory. `--via spirv` translates the kernel to
//! SPIR-V (the facade's `Translator`) and runs each workgroup as one Vulkan dispatch over the same
//! dispatch layout, the buffers at their device addresses (so the kernel argument segment and
//! the dispatch packet hold device addresses).
//!
//! The dispatch is laid out as the HSA runtime lays it out: the kernel argument segment (the
//! explicit arguments at the offsets the metadata gives, the hidden ones filled: block counts,
//! group sizes, remainders 0, global offsets 0, grid dimensions; others 0), a dispatch packet
//! (workgroup and grid sizes, segment sizes, kernarg address), and the initial SGPRs the kernel
//! descriptor enables (private segment buffer, dispatch pointer, queue pointer 0, kernarg
//! pointer, dispatch id 0, flat scratch 0, workgroup ids, workgroup info 0, wave scratch offset
//! 0; on gfx1201 the workgroup ids go into TTMP9 / TTMP7 instead). Work-item ids go into
//! v0/v1/v2. Workgroups run one after another in x, y, z order, each a call of the interpreter
//! with its waves together (barriers and LDS shared among them); the global memory one leaves is
//! what the next sees.
//!
//! A raw dump (not ELF) starts with the SGPRs given by `--user-sgpr` (s0 .. the highest named),
//! then workgroup ids X, Y, Z (gfx1201: also in TTMP9 / TTMP7), and v0-v2 as work-item ids; it
//! gets 64 KiB of LDS.

use crate::lift_cmd;
use crate::Failure;
use isabridge_analysis::amdkernel::{ArgKind, SgprInput};
use isabridge_decoder::elf;
use isabridge_decoder::lift::amd::{kernel_params, ttmp_workgroup_id_params, KernelEntry, Options};
use isabridge_decoder::Isa;
use isabridge_ir::interp::{self, Config, Input, Memory};
use std::path::PathBuf;

/// Arguments of `isabridge run`.
#[derive(clap::Args)]
pub struct Args {
    /// A gfx1013 or gfx1201 code object (ELF), an sm_50 or sm_86 cubin, or a raw dump with --isa.
    file: PathBuf,
    /// Translation path: `interp` runs the lifted IR on the reference interpreter; `spirv`
    /// translates the kernel to SPIR-V and runs it on Vulkan (Mesa lavapipe when present, else
    /// the device `--vk-device` names; code objects and cubins, not raw dumps); `gfx1201`
    /// (gfx1013 code objects) translates the kernel to gfx1201 machine code, decodes and lifts
    /// that with late-arriving memory (a read before its recomputed wait is poison) and runs it
    /// on the interpreter.
    #[arg(long, default_value = "interp")]
    via: String,
    /// ISA of a raw dump (gfx1013 or gfx1201).
    #[arg(long)]
    isa: Option<String>,
    /// Wave size of a raw dump (32 or 64); for a code object, it must match the kernel's.
    #[arg(long)]
    wave: Option<u32>,
    /// The kernel to run (needed when the object has several).
    #[arg(long)]
    kernel: Option<String>,
    /// Workgroups per dimension: X[,Y[,Z]].
    #[arg(long)]
    grid: String,
    /// Work-items per workgroup and dimension: X[,Y[,Z]].
    #[arg(long)]
    block: String,
    /// A kernel argument, in declaration order: buf=PATH (a buffer from a file, its address
    /// passed), zeros=BYTES (a zeroed buffer), u32=N, u64=N, i32=N, f32=X (values; numbers in
    /// decimal or 0x hex).
    #[arg(long = "arg", value_name = "KIND=VALUE")]
    args: Vec<String>,
    /// Set initial SGPR N (after the ABI's own values, so it overrides them).
    #[arg(long = "user-sgpr", value_name = "N=VALUE")]
    user_sgprs: Vec<String>,
    /// Place a file's bytes in global memory at ADDR (hex with 0x, or decimal).
    #[arg(long = "buffer", value_name = "ADDR=FILE")]
    buffers: Vec<String>,
    /// Directory for the results: argN.bin (buffer of argument N) and 0xADDR.bin (each --buffer).
    #[arg(long)]
    out: PathBuf,
    /// With `--via spirv` (cubin kernels): after the dispatch whose results are written, run N
    /// more dispatches on the device, each between two GPU timestamps, and print the median,
    /// least and greatest time per dispatch. The buffers in --out are the first dispatch's.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    time: Option<u32>,
    /// Cubin kernels: bytes of dynamic shared memory per block (the launch's `sharedMemBytes`,
    /// what `extern __shared__` arrays address), after the kernel's static shared memory; the
    /// total may be at most what a block of the ISA has (48 KiB on sm_50, 99 KiB on sm_86), and
    /// `--via spirv` needs the device to give a workgroup that much (`maxComputeSharedMemorySize`).
    #[arg(long, value_name = "BYTES", default_value_t = 0)]
    dynamic_shared: u32,
}

/// Where the dispatch packet lives.
const DISPATCH_ADDR: u64 = 0x1000;
/// Where the kernel argument segment lives.
const KERNARG_ADDR: u64 = 0x2000;
/// Where argument buffers start.
const BUFFER_BASE: u64 = 0x1_0000_0000;

fn num(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let r = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => t.parse::<u64>().ok().or_else(|| t.parse::<i64>().ok().map(|v| v as u64)),
    };
    r.ok_or_else(|| format!("not a number: {s}"))
}

fn dims(s: &str, what: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("--{what} takes X[,Y[,Z]], not {s}"));
    }
    let mut d = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        let v = num(p).map_err(|e| format!("--{what}: {e}"))?;
        if v == 0 || v > u32::MAX as u64 {
            return Err(format!("--{what}: each size must be 1 or more, not {p}"));
        }
        d[i] = v as u32;
    }
    Ok(d)
}

/// One kernel argument as given on the command line.
enum ArgValue {
    /// A buffer (its bytes); the argument is its address.
    Buffer(Vec<u8>),
    /// A value of this many bytes.
    Value(u64, u32),
}

fn parse_arg(s: &str) -> Result<ArgValue, String> {
    let (k, v) = s.split_once('=').ok_or_else(|| format!("--arg {s}: expected KIND=VALUE"))?;
    Ok(match k {
        "buf" => ArgValue::Buffer(std::fs::read(v).map_err(|e| format!("--arg {s}: {v}: {e}"))?),
        "zeros" => ArgValue::Buffer(vec![0; num(v).map_err(|e| format!("--arg {s}: {e}"))? as usize]),
        "u32" | "i32" => ArgValue::Value(num(v).map_err(|e| format!("--arg {s}: {e}"))? & 0xffff_ffff, 4),
        "u64" => ArgValue::Value(num(v).map_err(|e| format!("--arg {s}: {e}"))?, 8),
        "f32" => ArgValue::Value(v.parse::<f32>().map_err(|_| format!("--arg {s}: not a float"))?.to_bits() as u64, 4),
        _ => return Err(format!("--arg {s}: unknown kind {k} (buf, zeros, u32, i32, u64, f32)")),
    })
}

fn put(mem: &mut [u8], at: usize, size: usize, v: u64) {
    for i in 0..size.min(8) {
        if let Some(b) = mem.get_mut(at + i) {
            *b = (v >> (8 * i)) as u8;
        }
    }
}

/// Run the command.
pub fn run(a: &Args) -> Result<(), Failure> {
    if !["interp", "spirv", "gfx1201"].contains(&a.via.as_str()) {
        return Err(format!("--via {}: `interp`, `spirv` or `gfx1201`", a.via).into());
    }
    let grid = dims(&a.grid, "grid")?;
    let block = dims(&a.block, "block")?;
    let bytes = std::fs::read(&a.file).map_err(|e| format!("{}: {e}", a.file.display()))?;
    if crate::cubin::is_cubin(&bytes) {
        let given = a.args.iter().map(|s| parse_arg(s)).collect::<Result<Vec<_>, _>>()?;
        let given = given
            .into_iter()
            .map(|v| match v {
                ArgValue::Buffer(b) => crate::cubin::CliArg::Buffer(b),
                ArgValue::Value(v, n) => crate::cubin::CliArg::Value(v, n),
            })
            .collect();
        let via = crate::cubin::Via { path: &a.via, time: a.time, dynamic_shared: a.dynamic_shared };
        return crate::cubin::run_cli(&bytes, a.kernel.as_deref(), grid, block, given, &a.out, &via);
    }
    if a.dynamic_shared != 0 {
        return Err("--dynamic-shared sets the dynamic shared memory of cubin kernels' launches".to_string().into());
    }
    if a.time.is_some() {
        return Err("--time times cubin kernels run --via spirv".to_string().into());
    }
    let spirv = a.via == "spirv";
    let late = a.via == "gfx1201";
    let bytes = if late { translated_object(&bytes, a.kernel.as_deref())? } else { bytes };
    let is_elf = elf::is_elf(&bytes);
    if !is_elf && a.isa.is_none() {
        return Err("a raw dump needs --isa".to_string().into());
    }
    if spirv && !is_elf {
        return Err("--via spirv runs code objects (raw gfx1013 code: `conform rdna --via spirv`)".to_string().into());
    }
    if spirv && !a.buffers.is_empty() {
        return Err("--buffer places memory at fixed guest addresses, which a Vulkan run cannot give (it places its buffers itself): pass buffers with --arg buf=FILE".to_string().into());
    }
    let p = lift_cmd::load(&bytes, a.isa.as_deref())?;
    let mut ts = lift_cmd::targets(&bytes, &p, a.kernel.as_deref())?;
    if is_elf {
        ts.retain(|t| t.kernel.is_some());
        if ts.is_empty() {
            return Err(format!("{} is not a kernel", a.kernel.as_deref().unwrap_or("?")).into());
        }
    }
    if ts.len() > 1 {
        let names: Vec<&str> = ts.iter().map(|t| t.name.as_str()).collect();
        return Err(format!("several kernels, name one with --kernel: {}", names.join(", ")).into());
    }
    let t = &ts[0];
    let mut user: Vec<(u32, u64)> = Vec::new();
    for s in &a.user_sgprs {
        let (n, v) = s.split_once('=').ok_or_else(|| format!("--user-sgpr {s}: expected N=VALUE"))?;
        let n = num(n)?;
        if n > 105 {
            return Err(format!("--user-sgpr {s}: SGPRs are s0-s105").into());
        }
        user.push((n as u32, num(v)? & 0xffff_ffff));
    }
    let (entry, layout) = match &t.kernel {
        Some(k) => {
            let e = lift_cmd::entry_of(p.isa, t, false);
            if let Some(w) = a.wave {
                if w != if e.wave64 { 64 } else { 32 } {
                    return Err(format!("--wave {w}: kernel {} is compiled for wave{}", t.name, if e.wave64 { 64 } else { 32 }).into());
                }
            }
            (e, lift_cmd::sgpr_inputs(p.isa, k))
        }
        None => {
            let wave = a.wave.unwrap_or(32);
            if wave != 32 && wave != 64 {
                return Err(format!("--wave must be 32 or 64, not {wave}").into());
            }
            let n = user.iter().map(|u| u.0 + 1).max().unwrap_or(0);
            let mut l: Vec<SgprInput> = (0..n).map(|_| SgprInput::WorkgroupInfo).collect();
            l.extend((0..3).map(SgprInput::WorkgroupId));
            let e = KernelEntry {
                wave64: wave == 64,
                mode: Options::default().mode,
                sgprs: l.len() as u32,
                workitem_ids: 3,
                shared_bytes: 65536,
                ttmp_workgroup_ids: [p.isa == Isa::Gfx1201; 3],
            };
            (e, l)
        }
    };
    // The grid.
    let ws: u32 = if entry.wave64 { 64 } else { 32 };
    let threads = block[0] as u64 * block[1] as u64 * block[2] as u64;
    if threads > 1024 {
        return Err(format!("--block {}: at most 1024 work-items per workgroup", a.block).into());
    }
    let waves = (threads as u32).div_ceil(ws);

    let mut kernarg = vec![0u8; t.kernel.as_ref().map_or(0, |k| k.kernarg_size.max(k.args.iter().map(|x| x.offset + x.size).max().unwrap_or(0))) as usize];
    let given: Vec<ArgValue> = a.args.iter().map(|s| parse_arg(s)).collect::<Result<_, _>>()?;
    // Where the dispatch's memory lives: the interpreter's fixed guest addresses, or Vulkan
    // buffers (the argument buffers, the dispatch packet, the kernel argument segment, in that
    // order) at their device addresses, which the module's guest pointers are.
    let device = if spirv {
        let sizes: Vec<usize> = given
            .iter()
            .filter_map(|v| if let ArgValue::Buffer(b) = v { Some(b.len().max(4)) } else { None })
            .chain([64, kernarg.len().max(4)])
            .collect();
        Some(VulkanRun::new(&bytes, p.isa, ws, waves, &t.name, &sizes)?)
    } else {
        None
    };
    let region_address = |i: usize| device.as_ref().and_then(|d| d.mem.address(i));
    let nbufs = given.iter().filter(|v| matches!(v, ArgValue::Buffer(_))).count();
    let dispatch_addr = region_address(nbufs).unwrap_or(DISPATCH_ADDR);
    let kernarg_addr = region_address(nbufs + 1).unwrap_or(KERNARG_ADDR);
    let m = match device {
        Some(_) => None,
        None => {
            let r = lift_cmd::resolve(p.isa, t.section);
            Some(lift_cmd::lift_target(p.isa, t, &entry, &r, late)?)
        }
    };

    // Global memory: buffers of the arguments, then --buffer placements.
    let mut global: Vec<(u64, Vec<u8>)> = Vec::new();
    let mut arg_bufs: Vec<(usize, u64)> = Vec::new();
    let mut next = BUFFER_BASE;
    if let Some(k) = &t.kernel {
        let explicit: Vec<_> = k.args.iter().filter(|x| !matches!(x.kind, ArgKind::Hidden(_))).collect();
        if explicit.len() != given.len() {
            let want: Vec<String> = explicit.iter().map(|x| format!("{} ({} bytes, {:?})", x.type_name, x.size, x.kind)).collect();
            return Err(format!("kernel {} takes {} arguments, {} given: {}", t.name, explicit.len(), given.len(), want.join(", ")).into());
        }
        for (i, (x, v)) in explicit.iter().zip(given).enumerate() {
            let (val, size) = match v {
                ArgValue::Buffer(b) => {
                    let addr = region_address(arg_bufs.len()).unwrap_or(next);
                    next += (b.len() as u64).div_ceil(0x1000).max(1) * 0x1000 + 0x1000;
                    global.push((addr, b));
                    arg_bufs.push((i, addr));
                    (addr, 8)
                }
                ArgValue::Value(v, s) => (v, s),
            };
            if x.size != size && !(x.size == 8 && size == 4) {
                return Err(format!("argument {i} ({}) is {} bytes, the value given {size}", x.type_name, x.size).into());
            }
            put(&mut kernarg, x.offset as usize, x.size as usize, val);
        }
        let ndims = if grid[2] > 1 || block[2] > 1 { 3 } else if grid[1] > 1 || block[1] > 1 { 2 } else { 1 };
        for x in &k.args {
            let ArgKind::Hidden(h) = &x.kind else { continue };
            let d = |s: &str| -> usize { (s.as_bytes()[s.len() - 1] - b'x') as usize };
            let v = match h.as_str() {
                s if s.starts_with("block_count_") => grid[d(s)] as u64,
                s if s.starts_with("group_size_") => block[d(s)] as u64,
                "grid_dims" => ndims,
                _ => 0,
            };
            put(&mut kernarg, x.offset as usize, x.size as usize, v);
        }
    } else if !given.is_empty() {
        return Err("--arg needs a code object with kernel metadata; a raw dump takes --user-sgpr and --buffer".to_string().into());
    }
    let mut placed: Vec<(u64, usize)> = Vec::new();
    for s in &a.buffers {
        let (addr, path) = s.split_once('=').ok_or_else(|| format!("--buffer {s}: expected ADDR=FILE"))?;
        let addr = num(addr)?;
        let b = std::fs::read(path).map_err(|e| format!("--buffer {s}: {path}: {e}"))?;
        let end = addr + b.len() as u64;
        if global.iter().any(|(g, v)| addr < g + v.len() as u64 && *g < end) || (addr < kernarg_addr + kernarg.len() as u64 + 0x100 && dispatch_addr < end) {
            return Err(format!("--buffer {s}: overlaps another buffer or the dispatch data at 0x1000-0x{:x}", KERNARG_ADDR + kernarg.len() as u64).into());
        }
        placed.push((addr, global.len()));
        global.push((addr, b));
    }
    let mut packet = vec![0u8; 64];
    put(&mut packet, 2, 2, if grid[2] > 1 || block[2] > 1 { 3 } else if grid[1] > 1 || block[1] > 1 { 2 } else { 1 });
    for d in 0..3 {
        put(&mut packet, 4 + 2 * d, 2, block[d] as u64);
        put(&mut packet, 12 + 4 * d, 4, (block[d] as u64) * grid[d] as u64);
    }
    // Per-work-item scratch as the HIP runtime sizes it (`selfcheck::private_segment_size`).
    let scratch = t.kernel.as_ref().map_or(1024, isabridge_targets::gfx12::selfcheck::private_segment_size);
    put(&mut packet, 24, 4, scratch as u64);
    put(&mut packet, 28, 4, entry.shared_bytes as u64);
    put(&mut packet, 40, 8, kernarg_addr);
    global.push((dispatch_addr, packet));
    if !kernarg.is_empty() || device.is_some() {
        global.push((kernarg_addr, kernarg));
    }
    if let Some(d) = &device {
        for (i, (_, b)) in global.iter().enumerate() {
            d.mem.write(i, 0, b).ok_or_else(|| "a region does not fit its Vulkan buffer".to_string())?;
        }
    }

    let cfg = Config { wave_size: ws, waves, scratch_bytes: scratch.next_multiple_of(16), ..Config::default() };
    let (s0, exec_p, v0) = kernel_params(&entry);
    let lanes = (waves * ws) as usize;
    let mut exec_lo = vec![0u64; lanes];
    let mut exec_hi = vec![0u64; lanes];
    let mut ids = [vec![0u64; lanes], vec![0u64; lanes], vec![0u64; lanes]];
    for w in 0..waves as usize {
        let live = (threads as usize).saturating_sub(w * ws as usize).min(ws as usize);
        let m: u64 = if live == 64 { u64::MAX } else { (1u64 << live) - 1 };
        for l in 0..ws as usize {
            exec_lo[w * ws as usize + l] = m & 0xffff_ffff;
            exec_hi[w * ws as usize + l] = m >> 32;
        }
    }
    for (t, _) in exec_lo.clone().iter().enumerate() {
        let t64 = t as u64;
        ids[0][t] = t64 % block[0] as u64;
        ids[1][t] = (t64 / block[0] as u64) % block[1] as u64;
        ids[2][t] = t64 / (block[0] as u64 * block[1] as u64);
    }
    let mut mem = Memory { global, constant: Vec::new(), shared: Vec::new() };
    let mut lane_ops = 0u64;
    for gz in 0..grid[2] {
        for gy in 0..grid[1] {
            for gx in 0..grid[0] {
                let g = [gx, gy, gz];
                let mut inputs = vec![Input::Uniform(0); (v0 + 3) as usize];
                if entry.ttmp_workgroup_ids.iter().any(|e| *e) {
                    let wg = ttmp_workgroup_id_params(&entry);
                    inputs.resize(wg as usize + 3, Input::Uniform(0));
                    for d in 0..3 {
                        inputs[(wg + d) as usize] = Input::Uniform(g[d as usize] as u64);
                    }
                }
                for (i, s) in layout.iter().enumerate() {
                    let v: u64 = match *s {
                        SgprInput::DispatchPtr(n) => dispatch_addr >> (32 * n as u64),
                        SgprInput::KernargSegmentPtr(n) => kernarg_addr >> (32 * n as u64),
                        SgprInput::PrivateSegmentSize => scratch as u64,
                        SgprInput::WorkgroupId(d) => g[d as usize] as u64,
                        _ => 0,
                    };
                    inputs[(s0 as usize) + i] = Input::Uniform(v & 0xffff_ffff);
                }
                // A gfx1013 kernel's private segment buffer (its stack's V#), over the
                // interpreter's per-lane scratch.
                if let (Isa::Gfx1013, Some(k)) = (p.isa, &t.kernel) {
                    isabridge_targets::gfx12::scratch::give_private_segment(k, s0 as usize, &mut inputs);
                }
                for (n, v) in &user {
                    if *n < entry.sgprs {
                        inputs[(s0 + n) as usize] = Input::Uniform(*v);
                    }
                }
                inputs[exec_p as usize] = Input::PerLane(exec_lo.clone());
                inputs[exec_p as usize + 1] = Input::PerLane(exec_hi.clone());
                for d in 0..3 {
                    inputs[(v0 + d) as usize] = Input::PerLane(ids[d as usize].clone());
                }
                if let Some(d) = &device {
                    d.run(&inputs, (waves * ws) as usize).map_err(|e| format!("kernel {} workgroup ({gx},{gy},{gz}): {e}", t.name))?;
                    continue;
                }
                mem.shared = vec![0; entry.shared_bytes as usize];
                let m = m.as_ref().ok_or_else(|| "no lifted module".to_string())?;
                let o = interp::run_module(m, &cfg, &inputs, mem)
                    .map_err(|e| format!("kernel {} workgroup ({gx},{gy},{gz}): {e}", t.name))?;
                lane_ops += o.lane_ops;
                mem = o.memory;
            }
        }
    }
    if let Some(d) = &device {
        for (i, (_, b)) in mem.global.iter_mut().enumerate() {
            let n = b.len();
            *b = d.mem.read(i).unwrap_or_default();
            b.truncate(n);
        }
    }
    std::fs::create_dir_all(&a.out).map_err(|e| format!("{}: {e}", a.out.display()))?;
    let find = |addr: u64| mem.global.iter().find(|(g, _)| *g == addr).map(|(_, v)| v.as_slice()).unwrap_or(&[]);
    for (i, addr) in &arg_bufs {
        let p = a.out.join(format!("arg{i}.bin"));
        std::fs::write(&p, find(*addr)).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    for (addr, _) in &placed {
        let p = a.out.join(format!("0x{addr:x}.bin"));
        std::fs::write(&p, find(*addr)).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    let work = match &device {
        Some(d) => format!("as SPIR-V on {}", d.vk.name()),
        None => format!("{lane_ops} lane-instructions"),
    };
    println!("{}: {} workgroup(s) of {} work-item(s) in {} wave{} wave(s) each, {work}", t.name, grid[0] as u64 * grid[1] as u64 * grid[2] as u64, threads, waves, ws);
    Ok(())
}

/// `--via spirv` for a code object: the kernel translated to SPIR-V (one Vulkan workgroup per
/// guest workgroup, its waves together) and the dispatch's global memory as Vulkan buffers.
struct VulkanRun {
    vk: &'static isabridge_targets::vulkan::Vulkan,
    kernel: isabridge_targets::spirv::Kernel,
    mem: isabridge_targets::vulkan::GlobalMemory<'static>,
}

impl VulkanRun {
    /// Translates kernel `name` of code object `bytes` for guest workgroups of `waves` waves of
    /// `ws` lanes, and makes buffers of `sizes` bytes for its memory model.
    fn new(bytes: &[u8], isa: Isa, ws: u32, waves: u32, name: &str, sizes: &[usize]) -> Result<VulkanRun, Failure> {
        use isabridge::{Options, Source, Target, Translator};
        let options = if waves > 1 { Options::default().with_workgroup_size(ws * waves) } else { Options::default() };
        let artifact = Translator::new(options).translate(bytes, &Source::object(isa, ws, Some(name)), Target::Spirv).map_err(|e| e.to_string())?;
        let kernel = artifact.spirv_kernel().ok_or_else(|| "the translation holds no SPIR-V kernel".to_string())?;
        if !(ws * waves).is_multiple_of(kernel.workgroup_size) {
            return Err(format!("a Vulkan workgroup of {} invocations for {waves} wave(s) of {ws}", kernel.workgroup_size).into());
        }
        let vk = crate::vk::device()?;
        let zeros: Vec<Vec<u8>> = sizes.iter().map(|&n| vec![0; n]).collect();
        let contents: Vec<&[u8]> = zeros.iter().map(Vec::as_slice).collect();
        let mem = vk.memory(kernel.memory, &contents).map_err(|e| format!("vulkan memory: {e}"))?;
        Ok(VulkanRun { vk, kernel, mem })
    }

    /// Runs one guest workgroup of `total` lanes with the interpreter's `inputs` (uniform values
    /// to every lane, per-lane values lane by lane).
    fn run(&self, inputs: &[Input], total: usize) -> Result<(), String> {
        let words: Vec<u64> = (0..total)
            .flat_map(|g| {
                (0..self.kernel.params as usize).map(move |p| match inputs.get(p) {
                    Some(Input::Uniform(v)) => *v,
                    Some(Input::PerLane(vs)) => vs.get(g).copied().unwrap_or(0),
                    _ => 0,
                })
            })
            .collect();
        let job = isabridge_targets::vulkan::Dispatch { invocations: total as u32, params: &words, constant: &[] };
        match self.vk.run_with(&self.kernel, &job, &self.mem) {
            Ok(_) => Ok(()),
            Err(isabridge_targets::vulkan::VulkanError::Trap { code, .. }) if code == isabridge_targets::spirv::HALT_TRAP => Err("the kernel halts (s_sendmsghalt)".into()),
            Err(e) => Err(format!("vulkan: {e}")),
        }
    }
}

/// `--via gfx1201`: the gfx1201 code object of the gfx1013 code object `bytes` (the named
/// kernel, or every kernel); a kernel the translator refuses is an error naming it.
fn translated_object(bytes: &[u8], kernel: Option<&str>) -> Result<Vec<u8>, Failure> {
    if !elf::is_elf(bytes) {
        return Err("--via gfx1201 runs gfx1013 code objects (raw gfx1013 code: `conform rdna --via gfx1201`)".to_string().into());
    }
    let t = isabridge_targets::gfx12::object::translate_kernels(bytes, kernel).map_err(|e| format!("gfx1201 translation: {e}"))?;
    match t.refused.first() {
        Some((_, e)) if kernel.is_some() || t.kernels.is_empty() => Err(format!("not translated to gfx1201: {e}").into()),
        _ => Ok(t.bytes),
    }
}
