//! Property test: the IR pass pipeline (`isabridge_ir::passes::run_pipeline`) preserves the
//! interpreter's results on lifted AMD code.
//! - The RDNA2 test programs (fixtures/rdna/vectors.jsonl, wave32 and wave64 code) that lift:
//!   random input rows, the results (output buffer) before and after the pipeline are equal.
//! - Every function of the gfx1013 (wave32 and wave64) and gfx1201 corpora (fixtures/amd/ref) that lifts whole: random SGPR
//!   pointers into a buffer of random pointers, lane ids in v0; the runs before and after give
//!   the same outputs and memory, or the same error.

use isabridge_decoder::lift::amd::{lift, Options, SystemValue};
use isabridge_decoder::Isa;
use isabridge_ir::interp::{self, Config, Input, Memory};
use isabridge_ir::ir::Function;
use isabridge_ir::passes::run_pipeline;
use proptest::prelude::*;
use std::path::PathBuf;

const IN_BASE: u64 = 0x1_0000_0000;
const OUT_BASE: u64 = 0x2_0000_0000;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn words(v: &serde_json::Value) -> Vec<u32> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_u64().or_else(|| x.as_str().and_then(|s| u64::from_str_radix(s.trim_start_matches("0x"), 16).ok())))
                .map(|x| x as u32)
                .collect()
        })
        .unwrap_or_default()
}

/// The RDNA2 test programs that lift, with their wave size.
fn rdna_programs() -> Vec<(String, u32, Function)> {
    let text = std::fs::read_to_string(root().join("fixtures/rdna/vectors.jsonl")).unwrap();
    let mut out = Vec::new();
    for line in text.lines() {
        let t: serde_json::Value = serde_json::from_str(line).unwrap();
        if t["harness"]["layout"] != "std_buffer_v1" {
            continue;
        }
        for (key, wave) in [("wave32_code", 32), ("wave64_code", 64)] {
            let code = words(&t[key]);
            if code.is_empty() {
                continue;
            }
            let bytes: Vec<u8> = code.iter().flat_map(|w| w.to_le_bytes()).collect();
            let opts = Options { wave64: wave == 64, user_sgprs: 8, vgpr_inputs: vec![SystemValue::LocalIdX], ..Options::default() };
            if let Ok(f) = lift(Isa::Gfx1013, &bytes, 0, &opts) {
                out.push((t["name"].as_str().unwrap().to_string(), wave, f));
            }
        }
    }
    out
}

/// Run a std_buffer_v1 program on one wave with the given input words (16 per lane).
fn run_rdna(f: &Function, wave: u32, input: &[u32]) -> Result<Vec<u8>, String> {
    let inb: Vec<u8> = input.iter().flat_map(|w| w.to_le_bytes()).collect();
    let outb: Vec<u8> = std::iter::repeat_n(0xdeadbeef_u32.to_le_bytes(), 64 * 16).flatten().collect();
    let desc = |base: u64, n: usize| [base as u32, (base >> 32) as u32, n as u32, 0x31016fac];
    let mut ins: Vec<Input> =
        desc(IN_BASE, inb.len()).into_iter().chain(desc(OUT_BASE, outb.len())).map(|w| Input::Uniform(w as u64)).collect();
    ins.push(Input::PerLane((0..wave as u64).collect()));
    let mem = Memory { global: vec![(IN_BASE, inb), (OUT_BASE, outb)], ..Memory::default() };
    let cfg = Config { wave_size: wave, waves: 1, ..Config::default() };
    interp::run(f, &cfg, &ins, mem).map(|r| r.memory.global[1].1.clone()).map_err(|e| e.to_string())
}

#[test]
fn pipeline_preserves_rdna_programs() {
    let progs = rdna_programs();
    assert!(progs.len() >= 19, "only {} RDNA2 programs lift", progs.len());
    let opt: Vec<Function> = progs
        .iter()
        .map(|(name, _, f)| {
            let mut g = f.clone();
            match std::env::var("PASSES") {
                // Debugging aid: PASSES=ssa,const_fold runs only those passes.
                Ok(list) => {
                    for (n, pass) in isabridge_ir::passes::pipeline() {
                        if list.split(',').any(|x| x == n) {
                            pass(&mut g);
                        }
                    }
                }
                Err(_) => run_pipeline(&mut g).unwrap_or_else(|e| panic!("{name}: {e}")),
            }
            g
        })
        .collect();
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig { cases: 8, ..ProptestConfig::default() });
    runner
        .run(&proptest::collection::vec(any::<u32>(), 64 * 16), |input| {
            for ((name, wave, f), g) in progs.iter().zip(&opt) {
                let a = run_rdna(f, *wave, &input);
                let b = run_rdna(g, *wave, &input);
                if a != b {
                    let first = match (&a, &b) {
                        (Ok(x), Ok(y)) => {
                            let i = x.iter().zip(y).position(|(p, q)| p != q).unwrap_or(0) / 4;
                            format!("word {i} (lane {}, slot {}): {:02x?} before, {:02x?} after", i / 16, i % 16, &x[i * 4..i * 4 + 4], &y[i * 4..i * 4 + 4])
                        }
                        _ => format!("{a:?} before, {b:?} after"),
                    };
                    return Err(TestCaseError::fail(format!("{name} wave{wave}: {first}")));
                }
            }
            Ok(())
        })
        .unwrap();
}

/// The buffer every pointer of the corpus runs points into.
const BUF: u64 = 0x1_0000_0000;
const BUF_BYTES: usize = 1 << 18;
/// Lower bounds: corpus functions that lift whole, and random runs of them that end cleanly.
const MIN_LIFTED: usize = 1157;
const MIN_RAN_OK: usize = 872;

/// Functions of one corpus listing: (name, address, bytes), in order.
fn corpus_functions(target: &str) -> Vec<(String, u64, Vec<u8>)> {
    let mut out: Vec<(String, u64, Vec<u8>)> = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(root().join("fixtures/amd/ref"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(&format!(".{target}.jsonl")))
        .collect();
    files.sort();
    for p in files {
        let stem = p.file_name().unwrap().to_string_lossy().to_string();
        for line in std::fs::read_to_string(&p).unwrap().lines() {
            let r: serde_json::Value = serde_json::from_str(line).unwrap();
            let name = format!("{stem}:{}", r["function"].as_str().unwrap());
            let off = r["offset"].as_u64().unwrap();
            let hex = r["bytes"].as_str().unwrap();
            let bytes: Vec<u8> = (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect();
            match out.last_mut() {
                Some((n, a, b)) if *n == name && *a + b.len() as u64 == off => b.extend(bytes),
                _ => out.push((name, off, bytes)),
            }
        }
    }
    out
}

#[test]
fn pipeline_preserves_lifted_corpus_functions() {
    let (mut lifted, mut ran_ok) = (0, 0);
    let mut g = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        g ^= g << 13;
        g ^= g >> 7;
        g ^= g << 17;
        g
    };
    for (target, isa, wave) in [("gfx1013-w32", Isa::Gfx1013, 32u32), ("gfx1013-w64", Isa::Gfx1013, 64), ("gfx1201-w32", Isa::Gfx1201, 32)] {
        for (name, addr, bytes) in corpus_functions(target) {
            let opts = Options { wave64: wave == 64, user_sgprs: 16, vgpr_inputs: vec![SystemValue::LocalIdX], ..Options::default() };
            let f = match lift(isa, &bytes, addr, &opts) {
                Ok(f) => f,
                Err(e) => {
                    if std::env::var_os("SHOW_LIFT_ERRORS").is_some() {
                        eprintln!("{name}: {e}");
                    }
                    continue;
                }
            };
            lifted += 1;
            let mut o = f.clone();
            run_pipeline(&mut o).unwrap_or_else(|e| panic!("{name}: {e}"));
            for _ in 0..4 {
                // Every SGPR pair is a pointer into one buffer whose 64-bit words are pointers
                // into it as well, so kernel-argument loads and the loads through them land.
                let mut ins: Vec<Input> = Vec::new();
                for k in 0..8u64 {
                    let p = BUF + 8 * k + 8 * (next() % 8);
                    ins.push(Input::Uniform(p & 0xffff_ffff));
                    ins.push(Input::Uniform(p >> 32));
                }
                ins.push(Input::PerLane((0..wave as u64).collect()));
                // Each 64-bit word: a pointer into the buffer, or two small integers (sizes,
                // counts and indices).
                let buf: Vec<u8> = (0..BUF_BYTES / 8)
                    .flat_map(|_| {
                        let r = next();
                        let w = if r & 1 == 0 { (BUF + (r >> 8) % (BUF_BYTES as u64 / 2)) & !7 } else { (r >> 8 & 15) | (r >> 16 & 15) << 32 };
                        w.to_le_bytes()
                    })
                    .collect();
                let mem = Memory { global: vec![(BUF, buf)], ..Memory::default() };
                let cfg = Config { wave_size: wave, waves: 1, max_steps: 10_000, ..Config::default() };
                let a = interp::run(&f, &cfg, &ins, mem.clone()).map(|r| (r.outputs, r.memory)).map_err(|e| e.to_string());
                let b = interp::run(&o, &cfg, &ins, mem).map(|r| (r.outputs, r.memory)).map_err(|e| e.to_string());
                ran_ok += a.is_ok() as usize;
                if let (Err(e), Some(_)) = (&a, std::env::var_os("SHOW_RUN_ERRORS")) {
                    eprintln!("run error: {name}: {e}");
                }
                assert_eq!(a, b, "{name} ({target})");
            }
        }
    }
    eprintln!("{lifted} corpus functions lift whole; {ran_ok} of their random runs end without an error");
    assert!(lifted >= MIN_LIFTED, "{lifted} corpus functions lift whole, {MIN_LIFTED} pinned");
    assert!(ran_ok >= MIN_RAN_OK, "{ran_ok} runs end without an error, {MIN_RAN_OK} pinned");
}
