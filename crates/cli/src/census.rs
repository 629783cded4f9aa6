//! `isabridge census`: what a corpus of shaders contains. The work is in
//! `isabridge_analysis::census`; this file finds the files, runs them in parallel, and writes
//! the terminal table, the JSON (schema: `crates/cli/CENSUS_SCHEMA.md`) and the HTML report.

use crate::Failure;
use isabridge_analysis::census::{census_bytes_with, Census, CensusScratch, FileCensus, Histogram, Shader, ShaderJob};
use isabridge_decoder::Isa;
use rayon::prelude::*;
use std::collections::HashSet;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Arguments of `isabridge census`.
#[derive(clap::Args)]
#[command(after_help = "Exit status: 0 when every input was read; 1 when the census is written but some \
inputs could not be read (each is named on stderr, and in the output with its error); 2 when a \
PATH does not exist, no file is found, no input could be read, or the output cannot be written.")]
pub struct Args {
    /// Files and directories (searched recursively, symbolic links followed, each file and
    /// directory visited once) of code objects, cubins or raw dumps.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// ISA of raw dumps (gfx1013, gfx1201, sm50 or sm86); ELF files name their own.
    #[arg(long, value_parser = crate::disasm::parse_isa)]
    isa: Option<Isa>,
    /// Write the census as JSON to stdout instead of the table.
    #[arg(long)]
    json: bool,
    /// Also write a self-contained HTML report with charts to this file.
    #[arg(long)]
    html: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

/// One input the walk found: a file to read, or a path it could not look at or list (a dangling
/// link, a directory it may not read) with the reason.
enum Input {
    File(PathBuf),
    Failed(PathBuf, String),
}

/// What identifies a file or directory however it is reached: device and inode where the
/// platform has them, else the canonical path.
#[cfg(unix)]
type Id = (u64, u64);
#[cfg(not(unix))]
type Id = PathBuf;

#[cfg(unix)]
fn id(_: &Path, m: &std::fs::Metadata) -> Option<Id> {
    use std::os::unix::fs::MetadataExt;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn id(p: &Path, _: &std::fs::Metadata) -> Option<Id> {
    std::fs::canonicalize(p).ok()
}

/// Walks `p` in sorted order, following symbolic links; a file or directory already visited
/// (through a link, a link loop, a hard link or a repeated PATH) is skipped.
fn walk(p: &Path, seen: &mut HashSet<Id>, out: &mut Vec<Input>) {
    let m = match std::fs::metadata(p) {
        Ok(m) => m,
        Err(e) if std::fs::symlink_metadata(p).is_ok() => {
            return out.push(Input::Failed(p.to_path_buf(), format!("broken symbolic link: {e}")))
        }
        Err(e) => return out.push(Input::Failed(p.to_path_buf(), e.to_string())),
    };
    if let Some(k) = id(p, &m) {
        if !seen.insert(k) {
            return;
        }
    }
    if !m.is_dir() {
        return out.push(Input::File(p.to_path_buf()));
    }
    // The directory is read to the end and closed before the walk goes down (one open
    // directory at a time, however deep the tree).
    let mut v = Vec::new();
    match std::fs::read_dir(p) {
        Ok(entries) => {
            for e in entries {
                match e {
                    Ok(e) => v.push(e.path()),
                    Err(e) => out.push(Input::Failed(p.to_path_buf(), format!("cannot read directory: {e}"))),
                }
            }
        }
        Err(e) => return out.push(Input::Failed(p.to_path_buf(), format!("cannot read directory: {e}"))),
    }
    v.sort();
    for q in v {
        walk(&q, seen, out);
    }
}

/// The inputs under `paths`, in the order given (directories sorted); an error names a PATH
/// that does not exist or cannot be looked at.
fn inputs(paths: &[PathBuf]) -> Result<Vec<Input>, String> {
    if let Some((p, e)) = paths.iter().find_map(|p| std::fs::metadata(p).err().map(|e| (p, e))) {
        return Err(format!("{}: {e}", p.display()));
    }
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for p in paths {
        walk(p, &mut seen, &mut out);
    }
    Ok(out)
}

/// A file's functions on the rayon pool (a file of many functions is not one long serial
/// task), one [`CensusScratch`] per worker, in address order in the result.
fn in_parallel(jobs: &[ShaderJob<'_>]) -> Vec<Shader> {
    jobs.par_iter().with_min_len(8).map_init(CensusScratch::default, |sc, j| j.run(sc)).collect()
}

/// Runs the census over `paths` (files in sorted order; the result does not depend on the
/// thread count). Paths that do not exist are errors; inputs that cannot be read are in the
/// census with their error.
pub fn take(paths: &[PathBuf], isa: Option<Isa>, progress: bool) -> Result<Census, String> {
    let files = inputs(paths)?;
    let done = AtomicUsize::new(0);
    let total = files.len();
    let results: Vec<FileCensus> = files
        .par_iter()
        .with_max_len(1)
        .map(|input| {
            let r = match input {
                Input::File(p) => {
                    let name = p.display().to_string();
                    match std::fs::read(p) {
                        Ok(b) => census_bytes_with(&name, &b, isa, in_parallel),
                        Err(e) => FileCensus { path: name, isa: None, error: Some(e.to_string()), shaders: Vec::new() },
                    }
                }
                Input::Failed(p, e) => FileCensus { path: p.display().to_string(), isa: None, error: Some(e.clone()), shaders: Vec::new() },
            };
            let n = done.fetch_add(1, Ordering::Relaxed) + 1;
            if progress {
                let w = 30 * n / total.max(1);
                eprint!("\r[{}{}] {n}/{total} files", "#".repeat(w), " ".repeat(30 - w));
            }
            r
        })
        .collect();
    if progress && total > 0 {
        eprintln!();
    }
    Ok(Census::from_files(results))
}

/// Runs the command: the output is written when there is anything to report; the status is
/// as `--help` says.
pub fn run(a: &Args) -> Result<(), Failure> {
    let progress = !a.quiet && !a.json && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let c = take(&a.paths, a.isa, progress)?;
    if c.files.is_empty() {
        let names: Vec<String> = a.paths.iter().map(|p| p.display().to_string()).collect();
        return Err(format!("no input files in {}", names.join(", ")).into());
    }
    let mut err = std::io::stderr().lock();
    for f in &c.files {
        if let Some(e) = &f.error {
            let _ = writeln!(err, "isabridge: {}: {e}", f.path);
        }
    }
    drop(err);
    let text = if a.json { serde_json::to_string_pretty(&c).map_err(|e| e.to_string())? + "\n" } else { table(&c) };
    let mut out = std::io::stdout().lock();
    // The report is written even when stdout is closed early (`| head`).
    let printed = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    if let Some(h) = &a.html {
        std::fs::write(h, html(&c)).map_err(|e| format!("{}: {e}", h.display()))?;
    }
    printed?;
    let (n, failed) = (c.files.len(), c.failed_files as usize);
    if failed == n {
        return Err(if n == 1 { "the input could not be read".to_string() } else { format!("none of the {n} inputs could be read") }.into());
    }
    if failed > 0 {
        let _ = writeln!(std::io::stderr(), "isabridge: {failed} of {n} inputs could not be read");
        return Err(Failure::Partial);
    }
    Ok(())
}

fn top(h: &Histogram, n: usize) -> Vec<(&str, u64)> {
    let mut v: Vec<(&str, u64)> = h.iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    v.truncate(n);
    v
}

/// The terminal table.
pub fn table(c: &Census) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{:<34} {:<28} {:<8} {:<7} {:>7} {:>6} {:>6}  features", "file", "shader", "isa", "wave", "insts", "blocks", "edges");
    for f in &c.files {
        let file = Path::new(&f.path).file_name().map(|x| x.to_string_lossy().into_owned()).unwrap_or_default();
        if let Some(e) = &f.error {
            let _ = writeln!(s, "{file:<34} error: {e}");
            continue;
        }
        for sh in &f.shaders {
            let feats: Vec<String> = top(&sh.counts().features, 4).iter().map(|(k, v)| format!("{k}:{v}")).collect();
            let mut name = sh.name.clone();
            if name.len() > 28 {
                name.truncate(27);
                name.push('~');
            }
            let _ = writeln!(
                s,
                "{file:<34} {name:<28} {:<8} {:<7} {:>7} {:>6} {:>6}  {}{}",
                f.isa.as_deref().unwrap_or(""),
                sh.wave,
                sh.instructions(),
                sh.cfg.blocks,
                sh.cfg.edges,
                feats.join(" "),
                if sh.cfg.error.is_some() { " [cfg error]" } else { "" }
            );
        }
    }
    let _ = writeln!(s);
    for (isa, t) in &c.per_isa {
        let _ = writeln!(s, "{isa}: {} shaders, {} instructions, {} code bytes, {} data bytes", c.shaders_per_isa.get(isa).unwrap_or(&0), t.instructions, t.code_bytes, t.data_bytes);
        let ops: Vec<String> = top(&t.opcodes, 8).iter().map(|(k, v)| format!("{k} {v}")).collect();
        let _ = writeln!(s, "  top opcodes: {}", ops.join(", "));
        let feats: Vec<String> = top(&t.features, 12).iter().map(|(k, v)| format!("{k} {v}")).collect();
        let _ = writeln!(s, "  features: {}", feats.join(", "));
        if !t.gfx12.is_empty() {
            let g: Vec<String> = t.gfx12.iter().map(|(k, v)| format!("{k} {v}")).collect();
            let _ = writeln!(s, "  to gfx12: {}", g.join(", "));
        }
    }
    let _ = writeln!(s, "total: {} files ({} unreadable), {} instructions", c.files.len(), c.failed_files, c.totals.instructions);
    s
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A horizontal bar chart: a grid of label, bar and count per item. The label and count
/// columns are as wide as their widest text and the bars take what is left, so a count is
/// never cut whatever its length or the font.
fn bars(id: &str, title: &str, items: &[(&str, u64)]) -> String {
    let max = items.iter().map(|x| x.1).max().unwrap_or(1).max(1);
    let mut s = format!("<figure><figcaption>{}</figcaption><div class=\"chart\" id=\"{id}\">", esc(title));
    for (k, v) in items {
        // Tenths of a percent of the longest bar (integer arithmetic: no rounding differences).
        let w = (1000 * u128::from(*v) / u128::from(max)).max(1);
        let _ = write!(
            s,
            "<span class=\"label\">{k}</span><span class=\"track\"><span class=\"bar\" style=\"width:{}.{}%\" title=\"{k} {v}\"></span></span><span class=\"num\">{v}</span>",
            w / 10,
            w % 10,
            k = esc(k)
        );
    }
    s.push_str("</div></figure>\n");
    s
}

/// The HTML report: self-contained (inline CSS, no scripts, no network).
pub fn html(c: &Census) -> String {
    let mut s = String::from("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>isabridge census</title><style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;padding:2px 4px}th.rot{writing-mode:vertical-rl}td.on{background:#3b7dd8;color:#fff}figure{margin:1em 0}figcaption{font-weight:bold;margin-bottom:4px}.chart{display:grid;grid-template-columns:max-content minmax(120px,460px) max-content;gap:4px 8px;align-items:center;font-size:12px}.label,.num{white-space:nowrap}.num{font-size:11px;text-align:right;font-variant-numeric:tabular-nums}.bar{display:block;height:14px;min-width:1px;background:#3b7dd8}</style></head><body>\n<h1>isabridge census</h1>\n");
    let _ = writeln!(s, "<p id=\"summary\">{} files, {} shaders, {} instructions.</p>", c.files.len(), c.shaders_per_isa.values().sum::<u64>(), c.totals.instructions);
    for (isa, t) in &c.per_isa {
        let _ = writeln!(s, "<h2>{}</h2>", esc(isa));
        s.push_str(&bars(&format!("opcodes-{isa}"), &format!("{isa}: top opcodes"), &top(&t.opcodes, 25)));
        s.push_str(&bars(&format!("encodings-{isa}"), &format!("{isa}: encodings"), &top(&t.encodings, 15)));
        if !t.gfx12.is_empty() {
            s.push_str(&bars(&format!("gfx12-{isa}"), &format!("{isa}: translating to gfx12"), &top(&t.gfx12, 10)));
        }
    }
    // Feature matrix: shaders x features.
    let mut feats: Vec<&str> = c.totals.features.keys().collect();
    feats.sort();
    s.push_str("<h2>Feature matrix</h2>\n<table id=\"matrix\"><tr><th>shader</th>");
    for f in &feats {
        let _ = write!(s, "<th class=\"rot\">{}</th>", esc(f));
    }
    s.push_str("</tr>\n");
    for f in &c.files {
        let file = Path::new(&f.path).file_name().map(|x| x.to_string_lossy().into_owned()).unwrap_or_default();
        for sh in &f.shaders {
            let _ = write!(s, "<tr><td>{} {}</td>", esc(&file), esc(&sh.name));
            let counts = sh.counts();
            for k in &feats {
                match counts.features.get(k) {
                    Some(v) => {
                        let _ = write!(s, "<td class=\"on\">{v}</td>");
                    }
                    None => s.push_str("<td></td>"),
                }
            }
            s.push_str("</tr>\n");
        }
    }
    s.push_str("</table>\n</body></html>\n");
    s
}
