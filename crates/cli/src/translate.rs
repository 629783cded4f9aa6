//! `isabridge translate FILE --to spirv [--kernel NAME] [-o DIR]`: translate the kernels of a
//! code object or cubin (or raw code with --isa) through the facade (`isabridge::Translator`)
//! and write each module with a JSON sidecar giving its binding layout.

use crate::Failure;
use isabridge::{Artifact, Isa, Resource, Source, Target, Translator};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// A `--to` value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum To {
    /// A SPIR-V compute module per kernel (NAME.spv) and its binding layout (NAME.json).
    Spirv,
    /// gfx1013 code to gfx1201 machine code: a code object gives DIR/STEM.gfx1201.hsaco with
    /// every kernel that translates (or the --kernel one); raw code gives DIR/STEM.gfx1201.bin
    /// and DIR/STEM.gfx1201.json (the registers it needs).
    Gfx1201,
}

/// Arguments of `isabridge translate`.
#[derive(clap::Args)]
pub struct Args {
    /// A gfx1013 or gfx1201 code object, an sm_50 or sm_86 cubin, or raw code with --isa.
    file: PathBuf,
    /// The target: `spirv` (a Vulkan compute module per kernel) or `gfx1201` (a gfx1201 code
    /// object from a gfx1013 one).
    #[arg(long, value_enum)]
    to: To,
    /// Only this kernel (for a cubin, its plain or C++-mangled name); all kernels otherwise.
    #[arg(long)]
    kernel: Option<String>,
    /// Output directory, created if missing.
    #[arg(short = 'o', long = "out", default_value = ".")]
    out: PathBuf,
    /// ISA of raw code (gfx1013, gfx1201, sm_50, sm_86).
    #[arg(long)]
    isa: Option<String>,
    /// Wave size of raw code (32 or 64; NVIDIA code is 32). A code object's kernels carry
    /// their own.
    #[arg(long)]
    wave: Option<u32>,
    /// How the modules reach guest global memory: `device` (buffer device addresses) or
    /// `heap` (one storage buffer; the sidecar names its binding and the heap base).
    #[arg(long, value_enum, default_value = "device")]
    memory: crate::memory_arg::Memory,
    /// `--to spirv` of cubin kernels: bytes of dynamic shared memory per block (CUDA's `extern
    /// __shared__`), after each kernel's static shared memory: the module's Workgroup array
    /// holds both, so it runs launches with at most that many dynamic bytes. The total may be
    /// at most what a block of the ISA has (48 KiB on sm_50, 99 KiB on sm_86). The sidecar's
    /// `workgroup_memory` gives static, dynamic and total Workgroup bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 0)]
    dynamic_shared: u32,
}

/// Run the command: status 0 when every kernel translated, 1 when some did not (each named on
/// stderr with its reason), 2 when none could be (or the input could not be read).
pub fn run(a: &Args) -> Result<(), Failure> {
    let bytes = std::fs::read(&a.file).map_err(|e| format!("{}: {e}", a.file.display()))?;
    let target = match a.to {
        To::Spirv => Target::Spirv,
        To::Gfx1201 => Target::Gfx1201,
    };
    let t = Translator::new(isabridge::Options::default().with_memory(a.memory.model()).with_dynamic_shared(a.dynamic_shared));
    let raw = !isabridge::decoder::elf::is_elf(&bytes);
    let isa = match (&a.isa, raw) {
        (Some(n), _) => Isa::from_name(n).ok_or_else(|| format!("unknown ISA {n} (gfx1013, gfx1201, sm_50, sm_86)"))?,
        (None, false) => isabridge::decoder::elf::parse(&bytes).map_err(|e| format!("{}: {e}", a.file.display()))?.0,
        (None, true) => return Err(format!("{}: not an ELF file; raw code needs --isa", a.file.display()).into()),
    };
    if target == Target::Gfx1201 {
        if a.dynamic_shared != 0 {
            return Err("--dynamic-shared applies to --to spirv (NVIDIA kernels)".to_string().into());
        }
        return run_gfx1201(a, &bytes, isa, raw);
    }
    // A code object is read once for all its kernels.
    let object = if raw { None } else { Some(t.open(&bytes, isa).map_err(|e| format!("{}: {e}", a.file.display()))?) };
    let sources: Vec<(String, Source)> = match &object {
        None => {
            let name = a.kernel.clone().unwrap_or_else(|| a.file.file_stem().map_or("code".into(), |s| s.to_string_lossy().into_owned()));
            vec![(name, Source::raw(isa, a.wave.unwrap_or(32)))]
        }
        Some(o) => {
            let names = match &a.kernel {
                Some(k) => vec![k.clone()],
                None => o.kernels().map(|(k, _)| k.to_string()).collect(),
            };
            if names.is_empty() {
                return Err(format!("{}: no compute kernels", a.file.display()).into());
            }
            names.into_iter().map(|k| (k.clone(), Source::object(isa, 32, Some(&k)))).collect()
        }
    };
    std::fs::create_dir_all(&a.out).map_err(|e| format!("{}: {e}", a.out.display()))?;
    let (mut written, mut failed) = (0usize, 0usize);
    let many = sources.len() > 1;
    for (i, (name, mut source)) in sources.into_iter().enumerate() {
        if let (Some(o), None) = (&object, a.wave) {
            source.wave = o.kernels().find(|(k, _)| *k == name).map_or(32, |(_, w)| w);
        } else if let Some(w) = a.wave {
            source.wave = w;
        }
        let translated = match &object {
            Some(o) => t.translate_in(o, &source, target),
            None => t.translate(&bytes, &source, target),
        };
        match translated {
            Ok(art) => {
                let base = a.out.join(file_stem(&name));
                write(&base.with_extension("spv"), &art.bytes)?;
                let side = serde_json::to_string_pretty(&sidecar(&art, &source)).map_err(|e| e.to_string())?;
                write(&base.with_extension("json"), format!("{side}\n").as_bytes())?;
                written += 1;
                if many {
                    eprintln!("[{}] {name}: {}", i + 1, base.with_extension("spv").display());
                }
            }
            Err(e) if !many => return Err(format!("{}: {e}", a.file.display()).into()),
            Err(e) => {
                failed += 1;
                eprintln!("[{}] {name}: not translated: {e}", i + 1);
            }
        }
    }
    if many {
        eprintln!("{written} of {} kernels translated to {} in {}", written + failed, target.name(), a.out.display());
    }
    match (written, failed) {
        (_, 0) => Ok(()),
        (0, _) => Err(format!("{}: no kernel translated", a.file.display()).into()),
        _ => Err(Failure::Partial),
    }
}

/// `--to gfx1201`: one code object (or raw code) in, one out; refused kernels named on
/// stderr with their reasons.
fn run_gfx1201(a: &Args, bytes: &[u8], isa: Isa, raw: bool) -> Result<(), Failure> {
    let stem = a.file.file_stem().map_or("code".into(), |s| s.to_string_lossy().into_owned());
    let mut source = if raw { Source::raw(isa, a.wave.unwrap_or(32)) } else { Source::object(isa, 32, a.kernel.as_deref()) };
    if let (Some(k), false) = (&a.kernel, raw) {
        source.wave = a.wave.or_else(|| kernel_wave(bytes, isa, k)).unwrap_or(32);
    }
    let art = Translator::default().translate(bytes, &source, Target::Gfx1201).map_err(|e| format!("{}: {e}", a.file.display()))?;
    std::fs::create_dir_all(&a.out).map_err(|e| format!("{}: {e}", a.out.display()))?;
    let base = a.out.join(format!("{}.gfx1201", file_stem(&stem)));
    if raw {
        write(&base.with_extension("gfx1201.bin"), &art.bytes)?;
        let [vgprs, sgprs] = art.registers.unwrap_or([0, 0]);
        let side = json!({"isa": "gfx1201", "source_isa": isa.name(), "wave": source.wave, "vgprs": vgprs, "sgprs": sgprs, "entry_offset": 0});
        write(&base.with_extension("gfx1201.json"), format!("{}\n", serde_json::to_string_pretty(&side).map_err(|e| e.to_string())?).as_bytes())?;
        eprintln!("{}", base.with_extension("gfx1201.bin").display());
        return Ok(());
    }
    let path = base.with_extension("gfx1201.hsaco");
    write(&path, &art.bytes)?;
    for (k, why) in &art.refused {
        eprintln!("{k}: not translated: {why}");
    }
    let total = art.entry_points.len() + art.refused.len();
    eprintln!("{} of {total} kernels translated to gfx1201 in {}", art.entry_points.len(), path.display());
    if art.refused.is_empty() {
        Ok(())
    } else {
        Err(Failure::Partial)
    }
}

/// An AMD kernel's wave size from its descriptor (NVIDIA kernels are 32 wide).
fn kernel_wave(bytes: &[u8], isa: Isa, name: &str) -> Option<u32> {
    if !matches!(isa, Isa::Gfx1013 | Isa::Gfx1201) {
        return Some(32);
    }
    let ks = isabridge::analysis::amdkernel::kernels(bytes).ok()?;
    ks.iter().find(|k| k.name == name).map(|k| if k.wave64() { 64 } else { 32 })
}

/// A file name for a kernel: its name with characters other than letters, digits, `_`, `-`
/// and `.` replaced by `_`.
fn file_stem(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') { c } else { '_' }).collect()
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()).into())
}

/// The JSON sidecar of a module: what it translates, its entry point and binding layout.
fn sidecar(a: &Artifact, source: &Source) -> Value {
    let e = &a.entry_points[0];
    let bindings: Vec<Value> = a
        .bindings
        .iter()
        .map(|b| {
            let mut v = match &b.resource {
                Resource::InvocationInputs { names } => json!({"holds": "invocation_inputs", "word_bits": 64, "names": names}),
                Resource::InvocationOutputs { words } => json!({"holds": "invocation_outputs", "word_bits": 64, "words": words}),
                Resource::ConstantBanks { bank_bytes, kernel_args } => json!({
                    "holds": "constant_banks",
                    "bank_bytes": bank_bytes,
                    "kernel_args": kernel_args.iter().map(|(o, s)| json!({"offset": o, "size": s})).collect::<Vec<_>>(),
                }),
                Resource::TrapRecord => json!({"holds": "trap_record", "word_bits": 64, "words": 2}),
                Resource::GuestHeap { header_bytes, base_offset, fault_word } => json!({
                    "holds": "guest_heap",
                    "word_bits": 32,
                    "header_bytes": header_bytes,
                    "heap_base": {"push_constant_offset": base_offset, "bits": 64},
                    "fault_word": fault_word,
                }),
                _ => json!({"holds": "other"}),
            };
            v["set"] = json!(b.set);
            v["binding"] = json!(b.binding);
            v
        })
        .collect();
    let banks: Vec<Value> = a
        .constant_banks
        .iter()
        .map(|(n, bytes)| json!({"bank": n, "hex": bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()}))
        .collect();
    json!({
        "kernel": e.kernel,
        "isa": source.isa.name(),
        "wave": source.wave,
        "format": "spirv",
        "spirv_version": "1.5",
        "environment": "vulkan1.2",
        "entry_point": e.name,
        "workgroup_size": e.workgroup_size,
        "workgroup_memory": {
            "static_bytes": e.workgroup_memory.static_bytes,
            "dynamic_bytes": e.workgroup_memory.dynamic_bytes,
            "total_bytes": e.workgroup_memory.total_bytes,
        },
        "global_memory": if a.binding(|r| matches!(r, Resource::GuestHeap { .. })).is_some() {
            "heap buffer (guest address a at heap word (a - heap_base) / 4 after the header)"
        } else {
            "buffer device addresses (PhysicalStorageBuffer64)"
        },
        "bindings": bindings,
        "constant_banks": banks,
        "requires": a.requires,
    })
}
