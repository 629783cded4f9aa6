//! isabridge: read GPU shader and kernel machine code as an emulator needs it, and translate
//! it for another target (SPIR-V today, for a first subset).
//!
//! The inputs are AMD gfx1013 (PS5) and gfx1201 code objects (relocatable `.o` or linked
//! `.hsaco`) and NVIDIA Maxwell sm_50 / Ampere sm_86 cubins. This crate is the library an
//! emulator links: it re-exports the workspace crates' public face under one name. It keeps no
//! global configuration and starts no threads; every failure is a typed error value.
//!
//! # Guide
//!
//! 1. **Load a code object.** [`load`] reads an ELF code object or cubin (its header names the
//!    ISA) or a raw dump of a given ISA into a [`Program`]: its ISA and its code [`Section`]s,
//!    each with its [`Function`]s (symbol name, start and end address).
//! 2. **Decode.** [`sweep`] gives a function's instructions front to back as [`Decoded`]
//!    values with their addresses. The ISA's plugin ([`Isa::plugin`], an [`IsaPlugin`])
//!    prints one in the reference disassembler's syntax ([`IsaPlugin::print`]), names it and
//!    encodes it back.
//! 3. **Operands.** [`IsaPlugin::operands`] gives the instruction in the operand model
//!    ([`operand`]): an [`Inst`] with its opcode and name, its operands in order (register
//!    ranges, special registers, inline constants, literals, immediates, constant-bank and
//!    memory operands, branch labels), each read or written, implicit operands after the
//!    explicit ones, typed modifiers, and what it does to control flow ([`operand::Flow`]).
//! 4. **Control flow.** [`recover`] walks a function from its entry through the plugins'
//!    control-flow answers and gives its [`Cfg`]: basic blocks ([`Block`]), edges with their
//!    [`EdgeKind`], call sites, the bytes control never reaches, and reconvergence points. A
//!    jump whose target cannot be found statically is a [`CfgError`], never a guess.
//!
//! ```
//! use isabridge::{load, recover, sweep, EdgeKind, Isa};
//!
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/amd/bin/gfx_sample.gfx1013-w32.o");
//! let program = load(&std::fs::read(path)?, None)?;
//! assert_eq!(program.isa, Isa::Gfx1013);
//! let plugin = program.isa.plugin();
//!
//! // Every function of the object, by symbol name.
//! let section = &program.sections[0];
//! let names: Vec<&str> = section.functions.iter().map(|f| f.name.as_str()).collect();
//! assert_eq!(names, ["ps_dims", "ps_flavours", "ps_gather", "ps_a16_d16", "ps_msaa"]);
//!
//! // One function's instructions: text and operand model.
//! let f = &section.functions[4];
//! let mut count = 0;
//! for (addr, inst) in sweep(program.isa, section, f) {
//!     let inst = inst?;
//!     let mut text = String::new();
//!     plugin.print(&inst, addr, &mut text);
//!     let model = plugin.operands(&inst, addr);
//!     assert_eq!(model.addr, addr);
//!     assert!(text.starts_with(&model.name.to_ascii_lowercase())); // v_mov_b32_e32 ...
//!     count += 1;
//! }
//! assert_eq!(count, 25);
//!
//! // Its control-flow graph: three blocks, a conditional branch around the middle one.
//! let cfg = recover(program.isa, section, f)?;
//! assert_eq!(cfg.blocks.len(), 3);
//! assert_eq!(cfg.successors(0), [1, 2]);
//! assert!(cfg.edges.iter().any(|e| e.2 == EdgeKind::Taken));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! 5. **Translate.** A [`Translator`] turns one kernel into an [`Artifact`] for a [`Target`]:
//!    [`Translator::translate`] takes the code, a [`Source`] (ISA, [`Stage`], wave size, and
//!    whether it is a code object with a kernel name or raw code) and the target. The artifact
//!    carries its [`Format`], bytes, [`EntryPoint`]s and descriptor [`Binding`]s, each saying
//!    what the host puts there ([`Resource`]: per-invocation inputs, results, constant banks
//!    with the kernel arguments' offsets); guest pointers are Vulkan buffer device addresses.
//!    Today [`Target::Spirv`] emits NVIDIA sm_50 / sm_86 kernels within the SPIR-V backend's
//!    subset (`isabridge-targets`); AMD kernels (their wave model), and operations outside the
//!    subset, are an [`Error`] naming the ISA, kernel and what is missing. [`Target::Gfx1201`]
//!    is declared and returns [`Error::Unsupported`] until the gfx12 backend lands. A
//!    translator holds no state besides its [`Options`] and is `Send + Sync`. To translate
//!    several kernels of one code object, read it once with [`Translator::open`] (a
//!    [`LoadedObject`]) and translate each with [`Translator::translate_in`], or all of them
//!    with [`Translator::translate_all`]: the artifacts are the same as `translate` gives.
//!
//! ```
//! use isabridge::{Format, Isa, Options, Resource, Source, Target, Translator};
//!
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/nvidia/bin/special.sm86.cubin");
//! let code = std::fs::read(path)?;
//! let t = Translator::new(Options::default());
//! assert_eq!(t.kernels(&code, &Source::object(Isa::Sm86, 32, None))?, ["predicates", "special_regs"]);
//!
//! let a = t.translate(&code, &Source::object(Isa::Sm86, 32, Some("predicates")), Target::Spirv)?;
//! assert_eq!(a.format, Format::Spirv);
//! assert_eq!(a.spirv_words().unwrap()[0], 0x0723_0203); // the SPIR-V magic number
//! assert_eq!(a.entry_points[0].workgroup_size, [32, 1, 1]);
//! // predicates(int *out, const int *a, const int *b): three pointers in constant bank 0.
//! let banks = a.bindings.iter().find_map(|b| match &b.resource {
//!     Resource::ConstantBanks { kernel_args, .. } => Some(kernel_args.clone()),
//!     _ => None,
//! });
//! assert_eq!(banks, Some(vec![(0x160, 8), (0x168, 8), (0x170, 8)]));
//!
//! // What is not built is a typed error, not a panic.
//! let e = t.translate(&code, &Source::object(Isa::Sm86, 32, Some("predicates")), Target::Gfx1201);
//! assert!(matches!(e, Err(isabridge::Error::Unsupported { .. })));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! `examples/translate.rs` translates a cubin kernel and runs it on Vulkan (feature `vulkan`,
//! which turns on `isabridge-targets`' Vulkan runner, `isabridge::targets::vulkan`; off by default, so an
//! emulator that brings its own Vulkan code links no loader):
//!
//! ```sh
//! cargo run --release --features vulkan --example translate
//! ```
//!
//! `examples/functions.rs` lists a code object's functions with typed operands, and
//! `examples/cfg.rs` prints a function's blocks and edges:
//!
//! ```sh
//! cargo run --example functions -- fixtures/amd/bin/gfx_sample.gfx1013-w32.o
//! cargo run --example cfg -- fixtures/nvidia/bin/control.sm86.cubin loops
//! ```
//!
//! The workspace crates stay reachable whole: [`decoder`] (the ISA plugins, their generated
//! tables, ELF reading), [`analysis`] (CFG recovery, the census) and [`ir`] (the SSA IR, its
//! passes and reference interpreter) and [`targets`] (the backends: structurizer, SPIR-V
//! emitter, Vulkan runner).

mod artifact;
pub mod cuda_launch;
mod translate;
mod translate_gfx12;

pub use isabridge_analysis as analysis;
pub use isabridge_decoder as decoder;
pub use isabridge_ir as ir;
pub use isabridge_targets as targets;

pub use artifact::{Artifact, Binding, EntryPoint, Format, Resource, WorkgroupMemory};
pub use isabridge_targets::spirv::MemoryModel;
pub use translate::{Container, Error, KernelTranslation, LoadedObject, Options, Source, Stage, Target, Translator};

pub use isabridge_analysis::cfg::{self, machine, recover, sweep, Block, CallTarget, Cfg, CfgError, EdgeKind, Machine};
pub use isabridge_analysis::load::{load, Function, LoadError, Program, Section};
pub use isabridge_decoder::operand::{self, Inst};
pub use isabridge_decoder::{DecodeError, Decoded, Isa, IsaPlugin};
