//! `isabridge selfcheck FILE --via gfx1201 [--json] [--groups N] [--max-steps N]`: run every
//! kernel and graphics-stage function (PAL objects: `gfx12::graphics`, with deterministic stage
//! inputs) of a gfx1013 code object twice on the IR interpreter, as it is and as translated to
//! gfx1201, from one deterministic memory image, and compare what they write
//! (`isabridge::targets::gfx12::selfcheck`).

use crate::Failure;
use isabridge::targets::gfx12::object::translate_for_selfcheck;
use isabridge::targets::gfx12::selfcheck::{selfcheck_refusing, Options, Status};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

/// A `--via` value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Via {
    /// gfx1013 code translated to gfx1201 (`isabridge translate --to gfx1201`).
    Gfx1201,
}

/// Arguments of `isabridge selfcheck`.
#[derive(clap::Args)]
pub struct Args {
    /// A gfx1013 code object.
    file: PathBuf,
    /// The translation to check.
    #[arg(long, value_enum)]
    via: Via,
    /// One JSON object per kernel or function: `{"function": ..., "status": "equal"|"differ"|"budget"|"unsupported", "reason": ...}`.
    #[arg(long)]
    json: bool,
    /// Workgroups to run along X.
    #[arg(long, default_value_t = 1)]
    groups: u32,
    /// Block executions each run may take before the kernel is reported as `budget`.
    #[arg(long, default_value_t = Options::default().max_steps)]
    max_steps: u64,
}

/// Run the command: one line per function; status 0 when every one is `equal`, 1 when some are not (each listed
/// with its reason), 2 when the file cannot be checked.
pub fn run(a: &Args) -> Result<(), Failure> {
    let bytes = std::fs::read(&a.file).map_err(|e| format!("{}: {e}", a.file.display()))?;
    let opts = Options { groups: a.groups, max_steps: a.max_steps };
    let reports = match a.via {
        Via::Gfx1201 => selfcheck_refusing(&bytes, &translate_for_selfcheck, &opts),
    }
    .map_err(|e| format!("{}: {e}", a.file.display()))?;
    let mut out = std::io::stdout().lock();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for r in &reports {
        *counts.entry(r.status.name()).or_default() += 1;
        if a.json {
            writeln!(out, "{}", r.json())?;
        } else if r.reason.is_empty() {
            writeln!(out, "{}\t{}", r.function, r.status.name())?;
        } else {
            writeln!(out, "{}\t{}\t{}", r.function, r.status.name(), r.reason)?;
        }
    }
    let summary: Vec<String> = counts.iter().map(|(s, n)| format!("{n} {s}")).collect();
    eprintln!("{}: {} functions via gfx1201: {}", a.file.display(), reports.len(), summary.join(", "));
    if reports.iter().all(|r| r.status == Status::Equal) {
        Ok(())
    } else {
        Err(Failure::Partial)
    }
}
