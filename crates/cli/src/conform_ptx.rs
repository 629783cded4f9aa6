//! `isabridge conform ptx-rows ROWS[.gz] --cubin FILE --via interp|spirv [--json]`: run the capture
//! kernels of a cubin (fixtures/hw capture.cu: `k_<op>(const Row* in, u32* out, int n)`, one
//! row `{a, b, c}` per thread, results `out[2i]`, `out[2i+1]`) over every captured row, as
//! capture.cu launches them (blocks of 128 threads, the output filled with 0xA5 first), and
//! compare both result words with the hardware's: bit for bit for exact ops, within the
//! documented error bound for the approximate ones. Ops the cubin lacks are listed as absent.

use crate::cubin::{launch, lift_kernel, Launch};
use crate::Failure;
use isabridge_decoder::elf::{self, nvinfo};
use isabridge_decoder::Isa;
use std::io::{Read, Write};
use std::path::PathBuf;

/// Arguments of `conform ptx-rows`.
#[derive(clap::Args)]
pub struct Args {
    /// The captured rows (text, or gzip when the name ends in .gz): a header line, then
    /// `OP A B C R0 R1` in hex.
    rows: PathBuf,
    /// The cubin with the capture kernels.
    #[arg(long)]
    cubin: PathBuf,
    /// Translation path: `interp` runs the lifted IR on the reference interpreter, `spirv`
    /// emits SPIR-V and runs it on Vulkan (Mesa lavapipe when present).
    #[arg(long, default_value = "interp")]
    via: String,
    /// With `--via spirv`: how the module reaches guest memory (`device` addresses or one
    /// `heap` buffer).
    #[arg(long, value_enum, default_value = "device")]
    memory: crate::memory_arg::Memory,
    /// One JSON line per op instead of the table.
    #[arg(long)]
    json: bool,
    /// Only ops whose name contains this text.
    #[arg(long)]
    only: Option<String>,
}

/// One captured row.
struct Row {
    a: u32,
    b: u32,
    c: u32,
    r0: u32,
    r1: u32,
}

use isabridge_ir::accuracy::{error, PTX_APPROX as APPROX};

/// The rows of each op, in file order.
fn read_rows(path: &PathBuf) -> Result<Vec<(String, Vec<Row>)>, Failure> {
    let raw = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let text = if path.extension().is_some_and(|e| e == "gz") {
        let mut s = String::new();
        flate2::read::GzDecoder::new(&raw[..]).read_to_string(&mut s).map_err(|e| format!("{}: {e}", path.display()))?;
        s
    } else {
        String::from_utf8(raw).map_err(|e| format!("{}: {e}", path.display()))?
    };
    let mut ops: Vec<(String, Vec<Row>)> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        let bad = || format!("{}:{}: expected OP A B C R0 R1 in hex", path.display(), n + 1);
        if f.len() != 6 {
            return Err(bad().into());
        }
        let h = |s: &str| u32::from_str_radix(s, 16).map_err(|_| bad());
        let row = Row { a: h(f[1])?, b: h(f[2])?, c: h(f[3])?, r0: h(f[4])?, r1: h(f[5])? };
        match ops.last_mut() {
            Some((op, rows)) if op == f[0] => rows.push(row),
            _ => ops.push((f[0].to_string(), vec![row])),
        }
    }
    Ok(ops)
}

/// One op's result.
struct Outcome {
    op: String,
    rows: usize,
    passed: usize,
    approx: bool,
    worst: u64,
    /// Why it did not run (absent from the cubin, or a lift or run error).
    note: Option<String>,
    absent: bool,
}

const IN_BASE: u64 = 0x1_0000_0000;
const OUT_BASE: u64 = 0x2_0000_0000;
/// Threads per block, as capture.cu launches its kernels.
const BLOCK: u32 = 128;

fn run_op(isa: Isa, bytes: &[u8], k: &nvinfo::KernelAbi, op: &str, rows: &[Row], via: &str, memory: crate::memory_arg::Memory) -> Result<Outcome, Failure> {
    let f = lift_kernel(isa, bytes, k)?;
    let n = rows.len();
    let input: Vec<u8> = rows.iter().flat_map(|r| [r.a, r.b, r.c]).flat_map(u32::to_le_bytes).collect();
    let l = Launch {
        grid: [(n as u32).div_ceil(BLOCK), 1, 1],
        block: [BLOCK, 1, 1],
        params: vec![IN_BASE, OUT_BASE, n as u64],
        global: vec![(IN_BASE, input), (OUT_BASE, vec![0xa5; 8 * n])],
        globals_at: None,
        dynamic_shared: 0,
    };
    let mem = if via == "spirv" { crate::cubin_spirv::launch_in(isa, &f, k, l, memory.model())? } else { launch(isa, &f, k, l)? };
    let out = mem.iter().find(|(b, _)| *b == OUT_BASE).map(|(_, v)| v.as_slice()).unwrap_or(&[]);
    let word = |i: usize| out.get(4 * i..4 * i + 4).map_or(0, |w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
    let approx = APPROX.iter().find(|x| x.0 == op);
    let mut o = Outcome { op: op.into(), rows: n, passed: 0, approx: approx.is_some(), worst: 0, note: None, absent: false };
    for (i, r) in rows.iter().enumerate() {
        let (g0, g1) = (word(2 * i), word(2 * i + 1));
        let ok = match approx {
            Some(&(_, metric, bound)) => {
                let e = error(metric, r.r0, g0).unwrap_or(u64::MAX);
                o.worst = o.worst.max(e);
                e <= bound && g1 == r.r1
            }
            None => (g0, g1) == (r.r0, r.r1),
        };
        if ok {
            o.passed += 1;
        } else if o.note.is_none() {
            o.note = Some(format!("{:08x} {:08x} {:08x}: hw {:08x} {:08x}, got {g0:08x} {g1:08x}", r.a, r.b, r.c, r.r0, r.r1));
        }
    }
    Ok(o)
}

/// Run the command.
pub fn run(a: &Args) -> Result<(), Failure> {
    if a.via != "interp" && a.via != "spirv" {
        return Err(format!("--via {}: `interp` or `spirv`", a.via).into());
    }
    let bytes = std::fs::read(&a.cubin).map_err(|e| format!("{}: {e}", a.cubin.display()))?;
    let (isa, _) = elf::parse(&bytes).map_err(|e| format!("{}: {e}", a.cubin.display()))?;
    let kernels = nvinfo::cuda_kernels(&bytes).map_err(|e| format!("{}: {e}", a.cubin.display()))?;
    let ops = read_rows(&a.rows)?;
    let mut out = std::io::stdout().lock();
    if !a.json {
        writeln!(out, "{:<20} {:>6} {:>6} {:>7}  note", "op", "rows", "passed", "worst")?;
    }
    let mut all_pass = true;
    for (op, rows) in &ops {
        if a.only.as_ref().is_some_and(|o| !op.contains(o.as_str())) {
            continue;
        }
        let o = match nvinfo::find_kernel(&kernels, &format!("k_{op}")) {
            None => Outcome { op: op.clone(), rows: rows.len(), passed: 0, approx: false, worst: 0, note: None, absent: true },
            Some(k) => run_op(isa, &bytes, k, op, rows, &a.via, a.memory).unwrap_or_else(|e| Outcome {
                op: op.clone(),
                rows: rows.len(),
                passed: 0,
                approx: APPROX.iter().any(|x| x.0 == op),
                worst: 0,
                note: Some(match e {
                    Failure::Message(m) => m,
                    _ => "failed".into(),
                }),
                absent: false,
            }),
        };
        if !o.absent {
            all_pass &= o.passed == o.rows;
        }
        if a.json {
            let mut j = serde_json::json!({"op": o.op, "via": a.via, "rows": o.rows, "passed": o.passed, "approx": o.approx});
            if o.absent {
                j["absent"] = true.into();
            }
            if let Some(n) = &o.note {
                j["note"] = n.clone().into();
            }
            writeln!(out, "{j}")?;
        } else {
            let note = if o.absent { "absent from the cubin".to_string() } else { o.note.clone().unwrap_or_default() };
            let ran = o.passed > 0 || o.note.as_ref().is_some_and(|n| n.contains(", got "));
            let worst = if o.approx && ran { o.worst.to_string() } else { "-".into() };
            writeln!(out, "{:<20} {:>6} {:>6} {:>7}  {}", o.op, o.rows, o.passed, worst, note)?;
        }
    }
    if all_pass {
        Ok(())
    } else {
        Err(Failure::Partial)
    }
}
