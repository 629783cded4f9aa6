//! `isabridge census`: what a corpus of shaders contains. The work is in
//! `isabridge_analysis::census`; this file finds the files, runs them in parallel, and writes
//! the terminal table, the JSON (schema: `crates/cli/CENSUS_SCHEMA.md`) and the HTML report.

use isabridge_analysis::census::{census_bytes, Census, FileCensus, Histogram};
use isabridge_decoder::Isa;
use rayon::prelude::*;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Arguments of `isabridge census`.
#[derive(clap::Args)]
pub struct Args {
    /// Files and directories (searched recursively) of code objects, cubins or raw dumps.
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

fn collect(p: &Path, out: &mut Vec<PathBuf>) {
    if p.is_dir() {
        let mut v: Vec<PathBuf> = std::fs::read_dir(p).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
        v.sort();
        for q in v {
            collect(&q, out);
        }
    } else {
        out.push(p.to_path_buf());
    }
}

/// Runs the census over `paths` (files in sorted order; the result does not depend on the
/// thread count).
pub fn take(paths: &[PathBuf], isa: Option<Isa>, progress: bool) -> Census {
    let mut files = Vec::new();
    for p in paths {
        collect(p, &mut files);
    }
    let done = AtomicUsize::new(0);
    let total = files.len();
    let results: Vec<FileCensus> = files
        .par_iter()
        .with_max_len(1)
        .map(|p| {
            let name = p.display().to_string();
            let r = match std::fs::read(p) {
                Ok(b) => census_bytes(&name, &b, isa),
                Err(e) => FileCensus { path: name, isa: None, error: Some(e.to_string()), shaders: Vec::new() },
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
    Census::from_files(results)
}

/// Runs the command.
pub fn run(a: &Args) -> Result<(), String> {
    let progress = !a.quiet && !a.json && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let c = take(&a.paths, a.isa, progress);
    for f in &c.files {
        if let Some(e) = &f.error {
            eprintln!("isabridge: {}: {e}", f.path);
        }
    }
    let mut out = std::io::stdout().lock();
    if a.json {
        let s = serde_json::to_string_pretty(&c).map_err(|e| e.to_string())?;
        writeln!(out, "{s}").map_err(|e| e.to_string())?;
    } else {
        out.write_all(table(&c).as_bytes()).map_err(|e| e.to_string())?;
    }
    if let Some(h) = &a.html {
        std::fs::write(h, html(&c)).map_err(|e| format!("{}: {e}", h.display()))?;
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

/// A horizontal bar chart as inline SVG.
fn bars(id: &str, title: &str, items: &[(&str, u64)]) -> String {
    let max = items.iter().map(|x| x.1).max().unwrap_or(1).max(1);
    let h = 18 * items.len() + 30;
    let mut s = format!("<figure><figcaption>{}</figcaption><svg class=\"chart\" id=\"{id}\" width=\"720\" height=\"{h}\" xmlns=\"http://www.w3.org/2000/svg\">", esc(title));
    for (i, (k, v)) in items.iter().enumerate() {
        let y = 20 + i * 18;
        let w = (460 * v / max).max(1);
        let _ = write!(
            s,
            "<text x=\"0\" y=\"{}\" font-size=\"12\">{}</text><rect class=\"bar\" x=\"220\" y=\"{}\" width=\"{w}\" height=\"14\" fill=\"#3b7dd8\"><title>{} {v}</title></rect><text x=\"{}\" y=\"{}\" font-size=\"11\">{v}</text>",
            y + 11,
            esc(k),
            y,
            esc(k),
            224 + w,
            y + 11
        );
    }
    s.push_str("</svg></figure>\n");
    s
}

/// The HTML report: self-contained (inline CSS and SVG, no scripts, no network).
pub fn html(c: &Census) -> String {
    let mut s = String::from("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>isabridge census</title><style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;padding:2px 4px}th.rot{writing-mode:vertical-rl}td.on{background:#3b7dd8;color:#fff}figure{margin:1em 0}</style></head><body>\n<h1>isabridge census</h1>\n");
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
