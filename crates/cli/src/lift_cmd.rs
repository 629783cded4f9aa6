//! `isabridge lift FILE [--function NAME]`: lift each function of a code object (or a raw
//! gfx1013 / gfx1201 dump) into the IR and print its text form. Also the shared step of `lift` and `run`:
//! finding a kernel, its ABI and its resolved calls, and lifting it.
//!
//! A kernel is lifted with the entry state its descriptor gives (user and system SGPRs, EXEC,
//! work-item ids, MODE); a function that is not a kernel is lifted as a call enters it (the
//! first 34 SGPRs as inputs, s[30:31] holding the return address, v0-v2 as inputs), its return
//! ending the program. Calls are inlined, recursive ones call functions printed after the kernel
//! (see `isabridge_decoder::lift::amd::lift_kernel_module`).

use crate::Failure;
use isabridge_analysis::amdkernel::{self, Kernel};
use isabridge_analysis::load::{Program, Section};
use isabridge_decoder::lift::amd::{lift_kernel_module, lift_kernel_module_late_memory, KernelEntry, Options, Resolved};
use isabridge_decoder::{elf, Isa};
use isabridge_ir::Module;
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `isabridge lift`.
#[derive(clap::Args)]
pub struct Args {
    /// A gfx1013 or gfx1201 code object (ELF) or raw dump (with --isa).
    file: PathBuf,
    /// Only this function (a kernel or another function symbol; for a cubin, a kernel by its
    /// plain or C++-mangled name).
    #[arg(long, alias = "kernel")]
    function: Option<String>,
    /// ISA of a raw dump (gfx1013 or gfx1201).
    #[arg(long)]
    isa: Option<String>,
    /// Wave size of a raw dump: 32 or 64.
    #[arg(long, default_value_t = 32)]
    wave: u32,
}

/// SGPRs a called function reads as inputs when lifted on its own (s0-s33: the private
/// segment buffer, the return address in s[30:31], the stack pointer s32).
const CALLEE_SGPRS: u32 = 34;

/// A function of the input ready to lift.
pub struct Target<'p> {
    /// Symbol name.
    pub name: String,
    /// The section holding it.
    pub section: &'p Section,
    /// Its first instruction.
    pub entry: u64,
    /// Its kernel descriptor and metadata, when it is a kernel.
    pub kernel: Option<Kernel>,
}

/// Reads the input: an ELF code object, or a raw dump of `isa`.
pub fn load(bytes: &[u8], isa: Option<&str>) -> Result<Program, Failure> {
    let raw_isa = match isa {
        Some(n) => Some(Isa::from_name(n).ok_or_else(|| format!("unknown ISA {n} (gfx1013 and gfx1201 lift)"))?),
        None => None,
    };
    let p = isabridge_analysis::load(bytes, raw_isa).map_err(|e| e.to_string())?;
    if !matches!(p.isa, Isa::Gfx1013 | Isa::Gfx1201) {
        return Err(format!("{}: only gfx1013 and gfx1201 code lifts here", p.isa).into());
    }
    Ok(p)
}

/// The functions of `p` (all of them, or the one named), kernels with their ABI.
pub fn targets<'p>(bytes: &[u8], p: &'p Program, name: Option<&str>) -> Result<Vec<Target<'p>>, Failure> {
    let kernels = if elf::is_elf(bytes) { amdkernel::kernels(bytes).map_err(|e| e.to_string())? } else { Vec::new() };
    let mut out = Vec::new();
    for s in &p.sections {
        for f in &s.functions {
            if name.is_some_and(|n| n != f.name) {
                continue;
            }
            let kernel = kernels.iter().find(|k| k.name == f.name).cloned();
            out.push(Target { name: f.name.clone(), section: s, entry: f.start, kernel });
        }
    }
    if out.is_empty() {
        let known: Vec<&str> = p.sections.iter().flat_map(|s| s.functions.iter().map(|f| f.name.as_str())).collect();
        return Err(format!("no function {} (functions: {})", name.unwrap_or("?"), known.join(", ")).into());
    }
    Ok(out)
}

/// Calls, returns and jump tables of every function of `s`, resolved by the machine CFG.
pub fn resolve(isa: Isa, s: &Section) -> Resolved {
    isabridge_analysis::resolve::amd_transfers(isa, s)
}

/// The entry state of a target: its kernel ABI, or a call's entry for other functions.
pub fn entry_of(isa: Isa, t: &Target, wave64: bool) -> KernelEntry {
    match &t.kernel {
        Some(k) => KernelEntry {
            wave64: k.wave64(),
            mode: k.mode(),
            sgprs: sgpr_inputs(isa, k).len() as u32,
            workitem_ids: k.workitem_ids(),
            shared_bytes: k.group_segment_size,
            ttmp_workgroup_ids: if architected_sgprs(isa) { k.workgroup_ids() } else { [false; 3] },
        },
        None => KernelEntry {
            wave64,
            mode: Options::default().mode,
            sgprs: CALLEE_SGPRS,
            workitem_ids: 3,
            shared_bytes: 0,
            ttmp_workgroup_ids: [false; 3],
        },
    }
}

/// gfx12 has architected SGPRs: workgroup ids come in TTMP9 / TTMP7, not in SGPRs.
fn architected_sgprs(isa: Isa) -> bool {
    isa == Isa::Gfx1201
}

/// The SGPRs a kernel of `isa` gets at entry, s0 first.
pub fn sgpr_inputs(isa: Isa, k: &Kernel) -> Vec<isabridge_analysis::amdkernel::SgprInput> {
    if architected_sgprs(isa) {
        k.architected_sgpr_inputs()
    } else {
        k.sgpr_inputs()
    }
}

/// Lift one target: the kernel, then the functions its recursive calls call; with `late`, every
/// memory result arrives late (`run --via gfx1201`: a register read before the wait that covers
/// it is poison).
pub fn lift_target(isa: Isa, t: &Target, e: &KernelEntry, r: &Resolved, late: bool) -> Result<Module, Failure> {
    let lift = if late { lift_kernel_module_late_memory } else { lift_kernel_module };
    lift(isa, &t.section.data, t.section.address, t.entry, &t.name, e, r).map_err(|e| Failure::Message(e.to_string()))
}

/// Run the command.
pub fn run(a: &Args) -> Result<(), Failure> {
    let bytes = std::fs::read(&a.file).map_err(|e| format!("{}: {e}", a.file.display()))?;
    if crate::cubin::is_cubin(&bytes) {
        return crate::cubin::print_lifted(&bytes, a.function.as_deref(), &mut std::io::stdout().lock());
    }
    if a.wave != 32 && a.wave != 64 {
        return Err(format!("--wave must be 32 or 64, not {}", a.wave).into());
    }
    let p = load(&bytes, a.isa.as_deref())?;
    let ts = targets(&bytes, &p, a.function.as_deref())?;
    let mut out = std::io::stdout().lock();
    let mut failed = false;
    let mut resolved: Vec<(u64, Resolved)> = Vec::new();
    for t in &ts {
        let r = match resolved.iter().find(|(a, _)| *a == t.section.address) {
            Some((_, r)) => r.clone(),
            None => {
                let r = resolve(p.isa, t.section);
                resolved.push((t.section.address, r.clone()));
                r
            }
        };
        let e = entry_of(p.isa, t, a.wave == 64 || p.object_wave == Some(isabridge_analysis::load::WaveSize::W64));
        writeln!(out, "; {} ({}, wave{}, {} SGPR inputs)", t.name, if t.kernel.is_some() { "kernel" } else { "function" }, if e.wave64 { 64 } else { 32 }, e.sgprs)?;
        match lift_target(p.isa, t, &e, &r, false) {
            Ok(m) => writeln!(out, "{}", isabridge_ir::module::print_module(&m))?,
            Err(Failure::Message(m)) => {
                writeln!(out, "; not lifted: {m}\n")?;
                eprintln!("isabridge: {}: {m}", t.name);
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
