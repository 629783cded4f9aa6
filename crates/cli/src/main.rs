//! The `isabridge` command.
//!
//! The C `main` is defined here (`no_main`) rather than through Rust's start-up: that start-up
//! reads `/proc/self/maps` to find the main thread's stack guard, a noticeable part of a small
//! file's `isabridge disasm`. What it would also have done is done here: SIGPIPE is ignored,
//! and stdout is flushed before exit. A closed output pipe (`isabridge ... | head`) ends every
//! command quietly with status 0.
//! A stack overflow ends the process with SIGSEGV, without Rust's message.

#![cfg_attr(not(test), no_main)]
#![cfg_attr(test, allow(dead_code))]

#[cfg(any(test, target_env = "musl"))]
mod alloc;
mod amd_gfx12;
mod amd_spirv;
#[cfg(any(test, target_env = "musl"))]
mod c_alloc;
mod census;
mod conform;
mod conform_ptx;
mod cubin;
mod cubin_spirv;
mod memory_arg;
mod disasm;
mod input;
mod lift_cmd;
mod listing;
#[cfg(all(target_arch = "x86_64", any(test, target_env = "musl")))]
mod musl_mem;
mod run;
mod selfcheck;
mod translate;
mod vk;

/// The static musl build's allocator (see alloc.rs).
#[cfg(target_env = "musl")]
#[global_allocator]
static ALLOC: alloc::Alloc = alloc::Alloc::new();

use clap::{Parser, Subcommand};

/// Disassemble GPU machine code (AMD gfx1013 and gfx1201, NVIDIA sm_50 and sm_86) as the
/// vendors' tools print it, take a census of a corpus, lift kernels into the IR and run them,
/// and translate kernels to SPIR-V and to gfx1201 machine code (`translate`, `selfcheck`).
#[derive(Parser)]
#[command(name = "isabridge", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Vulkan device for `--via spirv`, by its index in the Vulkan loader's list (default:
    /// Mesa lavapipe when present, else the first device).
    #[arg(long, global = true, value_name = "N")]
    vk_device: Option<usize>,
}

#[derive(Subcommand)]
enum Command {
    /// Disassemble AMD code objects, NVIDIA cubins or raw instruction dumps.
    ///
    /// ELF files name their processor in the header; raw dumps need --isa. AMD text is LLVM's
    /// syntax in llvm-objdump-22's layout (offset and encoding beside each instruction, branch
    /// targets noted). NVIDIA cubins are listed as `nvdisasm -c -hex` lists them (directives,
    /// `.L_x_N` branch labels, sm_50 control words and dual-issue braces, encodings in a column);
    /// --objdump-layout gives llvm-objdump's layout instead, as for raw NVIDIA dumps.
    /// A word that decodes to no instruction is printed as `.long 0x...` and decoding goes on.
    /// AMD code is decoded again from every symbol, as llvm-objdump-22 does, and an instruction
    /// cut off at the end of a section is printed as `.long` / `.byte` with a warning on stderr;
    /// NVIDIA code that is not whole instructions is an error (exit status 2).
    Disasm(disasm::Args),
    /// Take a census of code objects, cubins and raw dumps: opcodes, encodings, features, CFG
    /// shape, and what translating gfx1013 code to gfx12 would need. `--json` for the schema in
    /// CENSUS_SCHEMA.md, `--html FILE` for a report with charts. An input that cannot be read
    /// is reported and the run goes on (exit status 1).
    Census(census::Args),
    /// Run execution vectors through a translation path and compare each checked lane with
    /// the results measured on hardware: `conform rdna VECTORS.jsonl --via interp [--json]`,
    /// `conform ptx-rows ROWS[.gz] --cubin FILE --via interp [--json]`. Exit status 0 only when
    /// every checked lane of every test (every row of every op the cubin has) passes.
    Conform(conform::Args),
    /// Lift gfx1013 functions into the IR and print its text form: `lift FILE [--function
    /// NAME]`. Kernels start from the state their descriptor gives; calls are inlined.
    Lift(lift_cmd::Args),
    /// Run one kernel over a grid on the IR interpreter: `run FILE --via interp --grid X[,Y,Z]
    /// --block X[,Y,Z] [--kernel NAME] [--arg KIND=VALUE]... [--user-sgpr N=VALUE]...
    /// [--buffer ADDR=FILE]... --out DIR`. Afterwards DIR/argN.bin holds the buffer of kernel
    /// argument N and DIR/0xADDR.bin each --buffer placed at ADDR.
    Run(run::Args),
    /// Translate kernels to another target: `translate FILE --to spirv [--kernel NAME] [-o DIR]`
    /// writes DIR/NAME.spv (a SPIR-V 1.5 compute module for Vulkan 1.2) and DIR/NAME.json (its
    /// entry point, workgroup size, descriptor bindings and what each holds, constant banks,
    /// required Vulkan features) per kernel, through the `isabridge::Translator` library facade.
    /// AMD (gfx1013 wave32 / wave64, gfx1201) and NVIDIA (sm_50, sm_86) compute kernels emit;
    /// an op the backend does not emit yet (multisampled sampling, for one) is reported per kernel
    /// with the reason (exit status 1 when some kernels did not translate, 2 when none did).
    /// `translate FILE --to gfx1201 [-o DIR]` translates a gfx1013 code object (its kernels,
    /// the functions they call, and the graphics-stage functions of a PAL object) to a gfx1201
    /// one (DIR/STEM.gfx1201.hsaco), instruction by instruction, refused ones named on stderr.
    Translate(translate::Args),
    /// Check a translation by differential execution: `selfcheck FILE --via gfx1201 [--json]
    /// [--groups N]` runs every kernel (and graphics-stage function, with deterministic stage
    /// inputs) of a gfx1013 code object on the IR interpreter as it is and as translated to
    /// gfx1201 with late-arriving memory, from one deterministic memory image, and compares
    /// every byte written and every export; one line per function: equal, differ, budget or
    /// unsupported, with the reason (exit status 1 unless all are equal).
    Selfcheck(selfcheck::Args),
}

/// Why a command did not end with status 0.
pub enum Failure {
    /// Status 2, with this line on stderr.
    Message(String),
    /// Writing the output failed: status 2 with the error on stderr, or status 0 and nothing
    /// printed when the output is a pipe whose reader has gone (`| head`).
    Io(std::io::Error),
    /// Status 1: the output is written and what went wrong is already on stderr.
    Partial,
}

impl From<String> for Failure {
    fn from(m: String) -> Self {
        Failure::Message(m)
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Self {
        Failure::Io(e)
    }
}

/// The exit status of a command's result, its error (if any) printed on stderr.
fn status(r: Result<(), Failure>) -> std::ffi::c_int {
    match r {
        Ok(()) => 0,
        Err(Failure::Partial) => 1,
        Err(Failure::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        // A command that reports its write errors as text (disasm): when nobody reads the
        // output any more, that is why it stopped.
        Err(Failure::Message(_)) if output_closed() => 0,
        Err(Failure::Io(e)) => {
            eprintln!("isabridge: {e}");
            2
        }
        Err(Failure::Message(m)) => {
            eprintln!("isabridge: {m}");
            2
        }
    }
}

/// Whether stdout is a pipe or socket whose reading end is closed (poll reports an error on
/// it then).
#[cfg(target_os = "linux")]
fn output_closed() -> bool {
    let mut p = libc::pollfd { fd: 1, events: 0, revents: 0 };
    // SAFETY: one valid pollfd, no timeout.
    let n = unsafe { libc::poll(&mut p, 1, 0) };
    n == 1 && p.revents & libc::POLLERR != 0
}

#[cfg(not(target_os = "linux"))]
fn output_closed() -> bool {
    false
}

/// The process entry point: runs the command, returns the exit status (see [`status`]).
#[cfg(not(test))]
#[no_mangle]
#[allow(clippy::not_unsafe_ptr_arg_deref)] // the C runtime's argv, read once by `args`
pub extern "C" fn main(argc: std::ffi::c_int, argv: *const *const std::ffi::c_char) -> std::ffi::c_int {
    // (libc is a dependency on Linux only; elsewhere a closed pipe ends the process)
    #[cfg(target_os = "linux")]
    // SAFETY: sets the disposition of one signal to "ignore", as Rust's start-up does.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    // SAFETY: argc and argv are what the C runtime passes to main: argc NUL-terminated strings.
    let args = unsafe { args(argc, argv) };
    let r = match quick_disasm(&args) {
        Some(a) => disasm::run(&a).map_err(Failure::from),
        None => match Cli::try_parse_from(&args) {
            Ok(cli) => {
                vk::set_device_index(cli.vk_device);
                match cli.command {
                    Command::Disasm(a) => disasm::run(&a).map_err(Failure::from),
                    Command::Census(a) => census::run(&a),
                    Command::Conform(a) => conform::run(&a),
                    Command::Lift(a) => lift_cmd::run(&a),
                    Command::Run(a) => run::run(&a),
                    Command::Translate(a) => translate::run(&a),
                    Command::Selfcheck(a) => selfcheck::run(&a),
                }
            }
            // --help and --version print and exit 0; usage errors print and exit 2.
            Err(e) => e.exit(),
        },
    };
    // What Rust's shutdown would do; an error here (a closed pipe) is not reported, as there.
    let _ = std::io::Write::flush(&mut std::io::stdout());
    status(r)
}

/// The command line from C's `argc`/`argv` (`std::env::args` is empty without Rust's start-up
/// on some C libraries, musl among them).
///
/// # Safety
/// `argv` must point to `argc` pointers to NUL-terminated strings.
#[cfg(not(test))]
unsafe fn args(argc: std::ffi::c_int, argv: *const *const std::ffi::c_char) -> Vec<std::ffi::OsString> {
    #[cfg(unix)]
    use std::os::unix::ffi::OsStrExt;
    (0..usize::try_from(argc).unwrap_or(0))
        .map(|i| {
            // SAFETY: i < argc, so argv[i] is one of the strings (the caller's contract).
            let s = unsafe { std::ffi::CStr::from_ptr(*argv.add(i)) };
            #[cfg(unix)]
            let s = std::ffi::OsStr::from_bytes(s.to_bytes()).to_os_string();
            #[cfg(not(unix))]
            let s = std::ffi::OsString::from(s.to_string_lossy().into_owned());
            s
        })
        .collect()
}

/// The arguments of the common `isabridge disasm FILE [--isa NAME] [--json] [--control]
/// [--objdump-layout]`,
/// read without building clap's command (building it is a tenth of a small file's whole run);
/// None for anything else (help, other commands, unknown or repeated options, an invalid ISA,
/// a file name starting with `-`), which clap then reads and reports.
fn quick_disasm(args: &[std::ffi::OsString]) -> Option<disasm::Args> {
    let mut args = args.iter().skip(1).cloned();
    if args.next()? != "disasm" {
        return None;
    }
    let (mut file, mut isa, mut json, mut control, mut objdump_layout) = (None, None, false, false, false);
    while let Some(a) = args.next() {
        let s = a.to_str();
        match s {
            Some("--json") if !json => json = true,
            Some("--control") if !control => control = true,
            Some("--objdump-layout") if !objdump_layout => objdump_layout = true,
            Some("--isa") if isa.is_none() => isa = Some(disasm::parse_isa(args.next()?.to_str()?).ok()?),
            Some(v) if v.starts_with("--isa=") && isa.is_none() => isa = Some(disasm::parse_isa(&v[6..]).ok()?),
            _ if file.is_none() && !a.as_encoded_bytes().starts_with(b"-") && !a.is_empty() => file = Some(a.into()),
            _ => return None,
        }
    }
    Some(disasm::Args { file: file?, isa, json, control, objdump_layout })
}
