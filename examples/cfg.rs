//! Recovers the control-flow graph of a code object's functions (or of the ones named) and
//! prints each function's blocks with their instructions' addresses and their edges, call
//! sites, the byte ranges control never reaches, and reconvergence points.
//!
//! ```sh
//! cargo run --example cfg -- fixtures/amd/bin/gfx_sample.gfx1013-w32.o ps_msaa
//! cargo run --example cfg -- fixtures/nvidia/bin/jumptable.sm86.cubin
//! ```

use isabridge::{load, recover, CallTarget};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: cfg FILE [FUNCTION...]");
        return ExitCode::from(2);
    };
    let wanted = &args[1..];
    let program = match std::fs::read(path).map_err(|e| e.to_string()).and_then(|b| load(&b, None).map_err(|e| e.to_string())) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::from(2);
        }
    };
    let mut found = false;
    for section in &program.sections {
        for f in section.functions.iter().filter(|f| wanted.is_empty() || wanted.contains(&f.name)) {
            found = true;
            println!("{} {} [{:#x}, {:#x})", program.isa, f.name, f.start, f.end);
            let cfg = match recover(program.isa, section, f) {
                Ok(g) => g,
                Err(e) => {
                    println!("  not recovered: {e}");
                    continue;
                }
            };
            println!("  {} blocks, {} edges, {} instructions reached", cfg.blocks.len(), cfg.edges.len(), cfg.insts.len());
            for (k, b) in cfg.blocks.iter().enumerate() {
                let out: Vec<String> = cfg
                    .edges
                    .iter()
                    .filter(|e| e.0 == k)
                    .map(|&(_, to, kind)| format!("{to} ({kind:?})"))
                    .collect();
                println!(
                    "  block {k}: {:#x}..={:#x}, {} instructions -> {}",
                    b.start,
                    b.last,
                    b.end - b.first,
                    if out.is_empty() { "none".to_string() } else { out.join(", ") }
                );
            }
            for c in &cfg.calls {
                match &c.target {
                    CallTarget::Direct(t) => println!("  call at {:#x}: {t:#x}", c.site),
                    other => println!("  call at {:#x}: {other:?}", c.site),
                }
            }
            for (lo, hi) in &cfg.data {
                println!("  not reached: [{lo:#x}, {hi:#x})");
            }
            if !cfg.reconvergence.is_empty() {
                let r: Vec<String> = cfg.reconvergence.iter().map(|a| format!("{a:#x}")).collect();
                println!("  reconvergence points: {}", r.join(", "));
            }
        }
    }
    if !found {
        eprintln!("{path}: no function named {}", wanted.join(", "));
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}
