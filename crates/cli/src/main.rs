//! The `isabridge` command.

mod census;
mod disasm;
mod input;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Translate GPU shader and kernel machine code between ISAs.
#[derive(Parser)]
#[command(name = "isabridge", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Disassemble AMD code objects, NVIDIA cubins or raw instruction dumps.
    ///
    /// ELF files name their processor in the header; raw dumps need --isa. AMD text is LLVM's
    /// syntax in llvm-objdump-22's layout (offset and encoding beside each instruction, branch
    /// targets noted); NVIDIA text is nvdisasm's syntax.
    /// A word that decodes to no instruction is printed as `.long 0x...` and decoding goes on;
    /// an instruction cut off at the end of the input is an error (exit status 2).
    Disasm(disasm::Args),
    /// Take a census of code objects, cubins and raw dumps: opcodes, encodings, features, CFG
    /// shape, and what translating gfx1013 code to gfx12 would need. `--json` for the schema in
    /// CENSUS_SCHEMA.md, `--html FILE` for a report with charts. A malformed file is reported
    /// and the run goes on.
    Census(census::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match cli.command {
        Command::Disasm(a) => disasm::run(&a),
        Command::Census(a) => census::run(&a),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("isabridge: {e}");
            ExitCode::from(2)
        }
    }
}
