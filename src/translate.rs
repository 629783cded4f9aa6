//! The translation entry point emulators call: [`Translator::translate`] takes guest machine
//! code, the [`Source`] describing it and a [`Target`], and gives an [`Artifact`]. It loads the
//! code (a code object's or cubin's kernel, or raw code), lifts it into the IR, runs the IR
//! pipeline and hands the result to the target's backend. Every failure is an [`Error`] value
//! naming the ISA and kernel, and the lower layer's error (which names the guest address and
//! instruction, or the IR value the backend cannot emit).

use crate::artifact::{Artifact, Binding, EntryPoint, Format, Resource, WorkgroupMemory};
use isabridge_analysis::amdkernel;
use isabridge_analysis::load::Program;
use isabridge_decoder::elf::nvinfo::{self, KernelAbi};
use isabridge_decoder::elf::{self, ElfError};
use isabridge_decoder::lift::amd::{self, KernelEntry, Resolved};
use isabridge_decoder::lift::sm86::{self, SystemValue};
use isabridge_decoder::lift::{sm50, LiftError};
use isabridge_decoder::Isa;
use isabridge_ir::validate::ValidateError;
use isabridge_ir::Function;
use isabridge_targets::spirv::{self, EmitError, MemoryModel};
use std::sync::OnceLock;

/// The pipeline stage guest code runs as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Stage {
    /// A compute kernel (an AMD compute shader or a CUDA kernel).
    Compute,
}

/// How the guest code is packaged.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Container {
    /// Machine code alone, its first instruction at offset 0.
    Raw,
    /// An ELF code object (AMD `.o` / `.hsaco`) or an NVIDIA cubin; `kernel` names the kernel
    /// (plain or C++-mangled name for a cubin), and may be left out when there is one.
    Object {
        /// The kernel to translate.
        kernel: Option<String>,
    },
}

/// What the guest code is: ISA, stage, wave size and packaging.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Source {
    /// The ISA (gfx1013, gfx1201, sm_50 or sm_86).
    pub isa: Isa,
    /// The stage.
    pub stage: Stage,
    /// Lanes per wave: 32 or 64 for AMD code, 32 for NVIDIA code. For a code object it must
    /// equal the kernel descriptor's.
    pub wave: u32,
    /// The packaging.
    pub container: Container,
}

impl Source {
    /// A compute kernel in a code object or cubin.
    pub fn object(isa: Isa, wave: u32, kernel: Option<&str>) -> Source {
        Source { isa, stage: Stage::Compute, wave, container: Container::Object { kernel: kernel.map(str::to_string) } }
    }

    /// A compute kernel given as raw machine code.
    pub fn raw(isa: Isa, wave: u32) -> Source {
        Source { isa, stage: Stage::Compute, wave, container: Container::Raw }
    }
}

/// What to translate to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Target {
    /// A SPIR-V compute module for Vulkan (the `isabridge-targets` SPIR-V backend).
    Spirv,
    /// gfx1201 machine code translated from gfx1013 code instruction by instruction: a code
    /// object ([`Format::Hsaco`](crate::Format::Hsaco)) for a code object, raw code
    /// ([`Format::Gfx1201Code`](crate::Format::Gfx1201Code)) for raw code.
    Gfx1201,
}

impl Target {
    /// The target's name as the command line spells it.
    pub fn name(self) -> &'static str {
        match self {
            Target::Spirv => "spirv",
            Target::Gfx1201 => "gfx1201",
        }
    }
}

/// Translator settings. Every translation runs the whole IR pipeline and the backend's exact
/// arithmetic.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// How SPIR-V modules reach guest global memory: buffer device addresses (the default) or
    /// one heap buffer ([`MemoryModel::Heap`], for hosts without `bufferDeviceAddress` and
    /// for naga/WebGPU).
    pub memory: MemoryModel,
    /// Work-items per guest workgroup of an AMD kernel, run as one Vulkan workgroup of whole
    /// waves sharing the LDS and `s_barrier` (0: one wave per Vulkan workgroup).
    pub workgroup_size: u32,
    /// Bytes of dynamic shared memory of an NVIDIA kernel's launches (CUDA's `extern
    /// __shared__` arrays, the launch's `sharedMemBytes`), placed after its static shared
    /// memory: the SPIR-V module's Workgroup array holds both. Fixed when the module is
    /// emitted (the array's size and every access's bounds check are constants), so a
    /// launch with another size needs another translation. 0 by default.
    pub dynamic_shared: u32,
}

impl Options {
    /// These options with memory model `memory`.
    pub fn with_memory(mut self, memory: MemoryModel) -> Options {
        self.memory = memory;
        self
    }

    /// These options with guest workgroups of `items` work-items (AMD).
    pub fn with_workgroup_size(mut self, items: u32) -> Options {
        self.workgroup_size = items;
        self
    }

    /// These options with `bytes` of dynamic shared memory (NVIDIA).
    pub fn with_dynamic_shared(mut self, bytes: u32) -> Options {
        self.dynamic_shared = bytes;
        self
    }
}

/// Why a translation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The code object could not be read.
    #[error("{0}")]
    Elf(#[from] ElfError),
    /// The code object's metadata (kernel descriptors, `.nv.info`) could not be read.
    #[error("{isa}: kernel metadata: {why}")]
    Metadata {
        /// ISA.
        isa: Isa,
        /// The reader's reason.
        why: String,
    },
    /// The code object is for another ISA than the source names.
    #[error("the code object is {found}, the source names {expected}")]
    IsaMismatch {
        /// The source's ISA.
        expected: Isa,
        /// The code object's.
        found: Isa,
    },
    /// No kernel of that name.
    #[error("{isa}: no kernel {name} (kernels: {})", known.join(", "))]
    NoKernel {
        /// ISA.
        isa: Isa,
        /// The name asked for.
        name: String,
        /// The kernels the code object has.
        known: Vec<String>,
    },
    /// The code object has several kernels and the source names none (or it has none).
    #[error("{isa}: the code object has {} kernels ({}): name one", known.len(), known.join(", "))]
    KernelNeeded {
        /// ISA.
        isa: Isa,
        /// The kernels the code object has.
        known: Vec<String>,
    },
    /// The kernel's wave size is not the source's.
    #[error("{isa} {kernel}: a wave{found} kernel, the source says wave{expected}")]
    WaveMismatch {
        /// ISA.
        isa: Isa,
        /// Kernel.
        kernel: String,
        /// The source's wave size.
        expected: u32,
        /// The kernel's.
        found: u32,
    },
    /// The guest code could not be lifted (the error names the address and instruction).
    #[error("{kernel}: {source}")]
    Lift {
        /// Kernel.
        kernel: String,
        /// The lifter's error.
        source: LiftError,
    },
    /// The IR pipeline rejected the lifted function (a lifter or pass bug).
    #[error("{isa} {kernel}: IR pipeline: {source}")]
    Pipeline {
        /// ISA.
        isa: Isa,
        /// Kernel.
        kernel: String,
        /// The validator's error.
        source: ValidateError,
    },
    /// The SPIR-V backend cannot emit the lifted kernel (the error names the IR block, value
    /// and operation).
    #[error("{isa} {kernel}: SPIR-V: {source}")]
    Emit {
        /// ISA.
        isa: Isa,
        /// Kernel.
        kernel: String,
        /// The emitter's error.
        source: EmitError,
    },
    /// The gfx1201 translator refused the code (the error names the kernel, address and
    /// instruction).
    #[error("{0}")]
    Gfx1201(isabridge_targets::gfx12::object::ObjectError),
    /// The kernel's static shared memory and the dynamic size asked for exceed what a block
    /// of the ISA may have ([`crate::cuda_launch::max_shared_bytes`]).
    #[error("{isa} {kernel}: {static_bytes} bytes of static and {dynamic_bytes} of dynamic shared memory exceed the {limit} bytes a block may have")]
    SharedMemory {
        /// ISA.
        isa: Isa,
        /// Kernel.
        kernel: String,
        /// The kernel's static shared memory.
        static_bytes: u32,
        /// The dynamic size asked for ([`Options::dynamic_shared`]).
        dynamic_bytes: u32,
        /// The most a block of the ISA may have.
        limit: u32,
    },
    /// A source, target or kernel property this build does not translate.
    #[error("{what}: {why}")]
    Unsupported {
        /// What was asked for.
        what: String,
        /// Why it is not translated.
        why: &'static str,
    },
}

/// Translates guest kernels. Holds only its [`Options`]: one translator may serve any number
/// of threads at once.
#[derive(Clone, Debug, Default)]
pub struct Translator {
    options: Options,
}

/// A lifted kernel and what the artifact's metadata needs from its code object.
struct Lifted {
    name: String,
    f: Function,
    inputs: Vec<String>,
    kernel_args: Vec<(u32, u32)>,
    constant_banks: Vec<(u8, Vec<u8>)>,
    /// Scratch (AMD) or local (NVIDIA) bytes per lane the kernel runs with.
    scratch_bytes: u32,
}

/// A code object or cubin read once by [`Translator::open`] for translating its kernels
/// ([`Translator::translate_in`]): its ISA and kernel metadata, and for AMD code, read on the
/// first kernel translated, its functions and the calls, returns and jump tables the machine
/// control flow of each code section resolves. Sharing it between threads is safe.
#[derive(Debug)]
pub struct LoadedObject<'a> {
    code: &'a [u8],
    isa: Isa,
    kernels: Kernels,
}

/// A loaded object's kernel metadata, and what the AMD lifter needs from the whole object.
#[derive(Debug)]
enum Kernels {
    Nvidia(Vec<KernelAbi>),
    Amd {
        all: Vec<amdkernel::Kernel>,
        /// The loaded program, or why it did not load; read on first use.
        program: OnceLock<Result<AmdProgram, String>>,
    },
}

/// An AMD object's program and each code section's resolved transfers (made on first use).
#[derive(Debug)]
struct AmdProgram {
    program: Program,
    resolved: Vec<OnceLock<Resolved>>,
}

/// One kernel of [`Translator::translate_all`]: its name and its artifact or why it did not
/// translate.
pub type KernelTranslation = (String, Result<Artifact, Error>);

impl LoadedObject<'_> {
    /// The object's ISA.
    pub fn isa(&self) -> Isa {
        self.isa
    }

    /// Its kernels in the order the object lists them, each with its wave size (the AMD kernel
    /// descriptor's; 32 for NVIDIA kernels).
    pub fn kernels(&self) -> impl Iterator<Item = (&str, u32)> + '_ {
        let (nvidia, amd) = match &self.kernels {
            Kernels::Nvidia(all) => (&all[..], &[][..]),
            Kernels::Amd { all, .. } => (&[][..], &all[..]),
        };
        nvidia.iter().map(|k| (k.name.as_str(), 32)).chain(amd.iter().map(|k| (k.name.as_str(), if k.wave64() { 64 } else { 32 })))
    }

    /// The AMD program and its sections' resolved-transfer slots, loaded on first use.
    fn amd_program(&self) -> Result<(&Program, &[OnceLock<Resolved>]), Error> {
        let Kernels::Amd { program, .. } = &self.kernels else {
            return Err(Error::Unsupported { what: format!("{} program", self.isa), why: "only AMD objects load a program" });
        };
        let loaded = program.get_or_init(|| {
            let program = isabridge_analysis::load(self.code, None).map_err(|e| e.to_string())?;
            let resolved = program.sections.iter().map(|_| OnceLock::new()).collect();
            Ok(AmdProgram { program, resolved })
        });
        match loaded {
            Ok(p) => Ok((&p.program, &p.resolved)),
            Err(why) => Err(Error::Metadata { isa: self.isa, why: why.clone() }),
        }
    }
}

impl Translator {
    /// A translator with these settings.
    pub fn new(options: Options) -> Translator {
        Translator { options }
    }

    /// Its settings.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The kernels of a code object or cubin, in the order it lists them (empty for raw code).
    pub fn kernels(&self, code: &[u8], source: &Source) -> Result<Vec<String>, Error> {
        if source.container == Container::Raw {
            return Ok(Vec::new());
        }
        Ok(self.open(code, source.isa)?.kernels().map(|(name, _)| name.to_string()).collect())
    }

    /// The IR function one kernel of `code` lifts to, as [`Translator::translate`] lifts it
    /// (before the IR pipeline): what the reference interpreter runs.
    pub fn lift(&self, code: &[u8], source: &Source) -> Result<Function, Error> {
        Ok(match source.container {
            Container::Raw => lift_raw(code, source)?,
            Container::Object { .. } => {
                check_source_wave(source)?;
                lift_object(&self.open(code, source.isa)?, source)?
            }
        }
        .f)
    }

    /// Translate one kernel of `code` to `target`.
    pub fn translate(&self, code: &[u8], source: &Source, target: Target) -> Result<Artifact, Error> {
        if source.stage != Stage::Compute {
            return Err(Error::Unsupported { what: format!("{:?} stage", source.stage), why: "only compute kernels translate" });
        }
        match target {
            Target::Spirv => {}
            Target::Gfx1201 => return self.gfx1201(code, source),
        }
        let l = match source.container {
            Container::Raw => lift_raw(code, source)?,
            Container::Object { .. } => {
                check_source_wave(source)?;
                lift_object(&self.open(code, source.isa)?, source)?
            }
        };
        self.finish(source, l)
    }

    /// Read a code object or cubin of `isa` once (its header, kernel metadata, and for AMD
    /// code its functions and the calls and returns their control flow resolves) for
    /// translating any number of its kernels with [`Translator::translate_in`].
    pub fn open<'a>(&self, code: &'a [u8], isa: Isa) -> Result<LoadedObject<'a>, Error> {
        check_object_isa(code, isa)?;
        let kernels = if is_nvidia(isa) {
            Kernels::Nvidia(cuda_kernels(code, isa)?)
        } else {
            Kernels::Amd { all: amd_kernels(code, isa)?, program: OnceLock::new() }
        };
        Ok(LoadedObject { code, isa, kernels })
    }

    /// Translate the kernel `source` names from an object read by [`Translator::open`]: the
    /// same artifact and errors as [`Translator::translate`] on the object's bytes, without
    /// reading the object again. `source` must name a code object of the object's ISA.
    pub fn translate_in(&self, object: &LoadedObject<'_>, source: &Source, target: Target) -> Result<Artifact, Error> {
        if source.container == Container::Raw {
            return Err(Error::Unsupported { what: "raw code".into(), why: "a loaded object translates its kernels; raw code goes to Translator::translate" });
        }
        if source.stage != Stage::Compute {
            return Err(Error::Unsupported { what: format!("{:?} stage", source.stage), why: "only compute kernels translate" });
        }
        match target {
            Target::Spirv => {}
            Target::Gfx1201 => return self.gfx1201(object.code, source),
        }
        check_source_wave(source)?;
        if source.isa != object.isa {
            return Err(Error::IsaMismatch { expected: source.isa, found: object.isa });
        }
        self.finish(source, lift_object(object, source)?)
    }

    /// Translate every kernel of the code object or cubin `code` of `isa` to `target`, each at
    /// the wave size its descriptor gives, from one read of the object: each kernel's name
    /// and its artifact or error, in the order [`Translator::kernels`] lists them.
    pub fn translate_all(&self, code: &[u8], isa: Isa, target: Target) -> Result<Vec<KernelTranslation>, Error> {
        let object = self.open(code, isa)?;
        Ok(object
            .kernels()
            .map(|(name, wave)| {
                let source = Source::object(isa, wave, Some(name));
                (name.to_string(), self.translate_in(&object, &source, target))
            })
            .collect())
    }

    /// Translate to gfx1201 code (AMD code, which takes no dynamic shared memory).
    fn gfx1201(&self, code: &[u8], source: &Source) -> Result<Artifact, Error> {
        if self.options.dynamic_shared != 0 {
            return Err(Error::Unsupported { what: format!("{} bytes of dynamic shared memory for gfx1201", self.options.dynamic_shared), why: "dynamic shared memory is given to NVIDIA kernels only" });
        }
        crate::translate_gfx12::translate(code, source)
    }

    /// Run the IR pipeline on a lifted kernel and emit it as a SPIR-V artifact.
    fn finish(&self, source: &Source, mut l: Lifted) -> Result<Artifact, Error> {
        let isa = source.isa;
        let (static_bytes, dynamic_bytes) = (l.f.shared_bytes, self.options.dynamic_shared);
        l.f.shared_bytes = shared_bytes(isa, &l.name, static_bytes, dynamic_bytes)?;
        isabridge_ir::passes::run_pipeline(&mut l.f).map_err(|e| Error::Pipeline { isa, kernel: l.name.clone(), source: e })?;
        let k = spirv::emit_with(&l.f, &spirv::EmitOptions { memory: self.options.memory, scratch_bytes: l.scratch_bytes, workgroup_waves: self.options.workgroup_size.div_ceil(source.wave.max(1)) }).map_err(|e| Error::Emit { isa, kernel: l.name.clone(), source: e })?;
        let mut inputs = l.inputs;
        inputs.resize_with(k.params as usize, String::new);
        for (n, name) in inputs.iter_mut().enumerate() {
            if name.is_empty() {
                *name = format!("input {n}");
            }
        }
        Ok(Artifact {
            format: Format::Spirv,
            bytes: k.words.iter().flat_map(|w| w.to_le_bytes()).collect(),
            entry_points: vec![EntryPoint {
                name: k.entry.clone(),
                kernel: l.name,
                workgroup_size: [k.workgroup_size, 1, 1],
                workgroup_memory: WorkgroupMemory { static_bytes, dynamic_bytes, total_bytes: k.workgroup_bytes },
            }],
            bindings: vec![
                Binding { set: 0, binding: spirv::PARAMS_BINDING, resource: Resource::InvocationInputs { names: inputs } },
                Binding { set: 0, binding: spirv::OUTPUTS_BINDING, resource: Resource::InvocationOutputs { words: k.outputs } },
                Binding {
                    set: 0,
                    binding: spirv::CONSTANT_BINDING,
                    resource: Resource::ConstantBanks { bank_bytes: spirv::CONSTANT_BANK_BYTES, kernel_args: l.kernel_args },
                },
            ]
            .into_iter()
            .chain(k.traps.then_some(Binding { set: 0, binding: spirv::TRAP_BINDING, resource: Resource::TrapRecord }))
            .chain((k.memory == MemoryModel::Heap).then_some(Binding {
                set: 0,
                binding: spirv::HEAP_BINDING,
                resource: Resource::GuestHeap { header_bytes: spirv::HEAP_HEADER_WORDS * 4, base_offset: spirv::HEAP_BASE_OFFSET, fault_word: spirv::HEAP_FAULT_WORD },
            }))
            .collect(),
            constant_banks: l.constant_banks,
            requires: k.requires,
            registers: None,
            refused: Vec::new(),
        })
    }
}

/// The shared memory of kernel `kernel` of `isa` with `dynamic` bytes of dynamic shared memory
/// after its `fixed` static bytes: an error for an AMD kernel given dynamic bytes, and for a
/// total past what a block of the ISA may have.
fn shared_bytes(isa: Isa, kernel: &str, fixed: u32, dynamic: u32) -> Result<u32, Error> {
    if dynamic == 0 {
        return Ok(fixed);
    }
    if !is_nvidia(isa) {
        return Err(Error::Unsupported { what: format!("{isa} {kernel}: {dynamic} bytes of dynamic shared memory"), why: "dynamic shared memory is given to NVIDIA kernels only" });
    }
    let limit = crate::cuda_launch::max_shared_bytes(isa);
    match fixed.checked_add(dynamic) {
        Some(total) if total <= limit => Ok(total),
        _ => Err(Error::SharedMemory { isa, kernel: kernel.to_string(), static_bytes: fixed, dynamic_bytes: dynamic, limit }),
    }
}

fn is_nvidia(isa: Isa) -> bool {
    matches!(isa, Isa::Sm50 | Isa::Sm86)
}

/// The code object's ISA must be the source's.
fn check_object_isa(code: &[u8], isa: Isa) -> Result<(), Error> {
    let (found, _) = elf::parse(code)?;
    if found != isa {
        return Err(Error::IsaMismatch { expected: isa, found });
    }
    Ok(())
}

fn cuda_kernels(code: &[u8], isa: Isa) -> Result<Vec<KernelAbi>, Error> {
    nvinfo::cuda_kernels(code).map_err(|e| Error::Metadata { isa, why: e.to_string() })
}

fn amd_kernels(code: &[u8], isa: Isa) -> Result<Vec<amdkernel::Kernel>, Error> {
    amdkernel::kernels(code).map_err(|e| Error::Metadata { isa, why: e.to_string() })
}

/// Pick the kernel `want` names (by `matches`), or the only one.
fn pick<'k, K>(isa: Isa, all: &'k [K], want: Option<&str>, name: impl Fn(&K) -> &str, matches: impl Fn(&K, &str) -> bool) -> Result<&'k K, Error> {
    let known = || all.iter().map(|k| name(k).to_string()).collect::<Vec<_>>();
    match want {
        Some(w) => all.iter().find(|k| matches(k, w)).ok_or_else(|| Error::NoKernel { isa, name: w.to_string(), known: known() }),
        None if all.len() == 1 => Ok(&all[0]),
        None => Err(Error::KernelNeeded { isa, known: known() }),
    }
}

fn check_wave(source: &Source, kernel: &str, found: u32) -> Result<(), Error> {
    if source.wave != found {
        return Err(Error::WaveMismatch { isa: source.isa, kernel: kernel.to_string(), expected: source.wave, found });
    }
    Ok(())
}

/// The special register an NVIDIA lifted function's parameter `SystemValue::ALL[n]` stands for.
fn system_value_name(v: SystemValue) -> String {
    match v {
        SystemValue::TidX => "SR_TID.X".into(),
        SystemValue::TidY => "SR_TID.Y".into(),
        SystemValue::TidZ => "SR_TID.Z".into(),
        SystemValue::CtaidX => "SR_CTAID.X".into(),
        SystemValue::CtaidY => "SR_CTAID.Y".into(),
        SystemValue::CtaidZ => "SR_CTAID.Z".into(),
        SystemValue::ClockLo => "SR_CLOCKLO".into(),
        SystemValue::ClockHi => "SR_CLOCKHI".into(),
        SystemValue::GlobalTimerLo => "SR_GLOBALTIMERLO".into(),
        SystemValue::GlobalTimerHi => "SR_GLOBALTIMERHI".into(),
        SystemValue::SharedMemSize => "SR_SMEMSZ".into(),
        SystemValue::VirtId => "SR_VIRTID".into(),
        SystemValue::VirtualSmId => "SR_VIRTUALSMID".into(),
        SystemValue::VirtCfg => "SR_VIRTCFG".into(),
        SystemValue::PerfCounter(n) => format!("SR_PM{n}"),
    }
}

/// The source's wave size must be one the ISA has: 32 for NVIDIA code, 32 or 64 for AMD code.
fn check_source_wave(source: &Source) -> Result<(), Error> {
    if is_nvidia(source.isa) {
        return check_wave(source, "code", 32);
    }
    if !matches!(source.wave, 32 | 64) {
        return Err(Error::Unsupported { what: format!("{} wave{}", source.isa, source.wave), why: "AMD waves are 32 or 64 lanes" });
    }
    Ok(())
}

/// Lift raw machine code (at address 0) as kernel `code`.
fn lift_raw(code: &[u8], source: &Source) -> Result<Lifted, Error> {
    check_source_wave(source)?;
    let isa = source.isa;
    let lifted = |f, inputs| Lifted { name: "code".into(), f, inputs, kernel_args: Vec::new(), constant_banks: Vec::new(), scratch_bytes: 0 };
    let lift_error = |e| Error::Lift { kernel: "code".into(), source: e };
    match isa {
        Isa::Sm50 => Ok(lifted(sm50::lift(isa, code, 0, &sm86::Options::default()).map_err(lift_error)?, nvidia_inputs())),
        Isa::Sm86 => Ok(lifted(sm86::lift(isa, code, 0, &sm86::Options::default()).map_err(lift_error)?, nvidia_inputs())),
        _ => {
            let opts = amd::Options { wave64: source.wave == 64, ..amd::Options::default() };
            Ok(lifted(amd::lift(isa, code, 0, &opts).map_err(lift_error)?, Vec::new()))
        }
    }
}

/// The invocation inputs of an NVIDIA lifted function: its parameters' special registers.
fn nvidia_inputs() -> Vec<String> {
    SystemValue::ALL.iter().map(|&v| system_value_name(v)).collect()
}

/// Lift the kernel `source` names (its wave size already checked against the ISA's).
fn lift_object(object: &LoadedObject<'_>, source: &Source) -> Result<Lifted, Error> {
    let isa = object.isa;
    let want = match &source.container {
        Container::Object { kernel } => kernel.as_deref(),
        Container::Raw => None,
    };
    match &object.kernels {
        Kernels::Nvidia(all) => {
            let k = pick(isa, all, want, |k| &k.name, |k, w| nvinfo::find_kernel(std::slice::from_ref(k), w).is_some())?;
            let (_, sections) = elf::parse(object.code)?;
            let text = format!(".text.{}", k.name);
            let body = sections.iter().find(|s| s.name == text).map(|s| s.data).ok_or_else(|| Error::Metadata { isa, why: format!("{}: no code section {text}", k.name) })?;
            let opts = sm86::Options::of_kernel(k);
            let mut f = match isa {
                Isa::Sm50 => sm50::lift(isa, body, 0, &opts),
                _ => sm86::lift(isa, body, 0, &opts),
            }
            .map_err(|e| Error::Lift { kernel: k.name.clone(), source: e })?;
            f.shared_bytes = k.shared_bytes;
            Ok(Lifted {
                name: k.name.clone(),
                f,
                inputs: nvidia_inputs(),
                kernel_args: k.params.iter().map(|p| (p.offset, p.size)).collect(),
                constant_banks: k.constant_banks.clone(),
                scratch_bytes: crate::cuda_launch::stack_bytes(k),
            })
        }
        Kernels::Amd { all, .. } => {
            let k = pick(isa, all, want, |k| &k.name, |k, w| k.name == w)?;
            check_wave(source, &k.name, if k.wave64() { 64 } else { 32 })?;
            let (program, resolved) = object.amd_program()?;
            let (section, entry) = program
                .sections
                .iter()
                .enumerate()
                .find_map(|(i, s)| s.functions.iter().find(|f| f.name == k.name).map(|f| (i, f.start)))
                .ok_or_else(|| Error::Metadata { isa, why: format!("{}: no function symbol", k.name) })?;
            let s = &program.sections[section];
            let r = resolved[section].get_or_init(|| isabridge_analysis::resolve::amd_transfers(isa, s));
            let e = amd_kernel_entry(isa, k);
            let mut m = amd::lift_kernel_module(isa, &s.data, s.address, entry, &k.name, &e, r).map_err(|e| Error::Lift { kernel: k.name.clone(), source: e })?;
            // Several functions (recursive calls) become one, calls and returns jumps through a
            // return stack (`spirv::link_calls`: SPIR-V forbids recursion).
            let f = if m.functions.len() == 1 { m.functions.remove(0) } else { spirv::link_calls(&m).map_err(|e| Error::Emit { isa, kernel: k.name.clone(), source: e })? };
            Ok(Lifted {
                name: k.name.clone(),
                f,
                inputs: Vec::new(),
                kernel_args: Vec::new(),
                constant_banks: Vec::new(),
                scratch_bytes: u32::try_from(isabridge_targets::gfx12::selfcheck::private_segment_size(k)).unwrap_or(u32::MAX),
            })
        }
    }
}

/// The entry state of an AMD kernel as its descriptor gives it (gfx12 has architected SGPRs:
/// the workgroup ids come in TTMP9 / TTMP7, not in SGPRs).
pub(crate) fn amd_kernel_entry(isa: Isa, k: &amdkernel::Kernel) -> KernelEntry {
    let architected = isa == Isa::Gfx1201;
    KernelEntry {
        wave64: k.wave64(),
        mode: k.mode(),
        sgprs: if architected { k.architected_sgpr_inputs().len() } else { k.sgpr_inputs().len() } as u32,
        workitem_ids: k.workitem_ids(),
        shared_bytes: k.group_segment_size,
        ttmp_workgroup_ids: if architected { k.workgroup_ids() } else { [false; 3] },
    }
}
