//! Property test: the IR pass pipeline (`isabridge_ir::passes::run_pipeline`) preserves the
//! interpreter's results on lifted sm_86 code.
//! - The capture kernels of fixtures/hw/capture.sm86.cubin that lift: run over the H200 rows
//!   before and after the pipeline, the output buffers are equal.
//! - Every function of the sm_86 corpus (fixtures/nvidia/ref) that lifts whole: kernel
//!   parameters in constant bank 0 are pointers into a buffer of random pointers and small
//!   integers, the local stack top 1024 bytes (c[0x0][0x28]), block ids random; the runs before and after give the same outputs
//!   and memory, or the same error.

use isabridge_decoder::lift::sm86::{lift, Options, SystemValue};
use isabridge_decoder::Isa;
use isabridge_ir::interp::{self, Config, Input, Memory};
use isabridge_ir::passes::run_pipeline;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

const BUF: u64 = 0x1_0000_0000;
const BUF_BYTES: usize = 1 << 20;
/// Lower bounds: corpus functions that lift whole, and random runs of them that end cleanly.
const MIN_LIFTED: usize = 9;
const MIN_RAN_OK: usize = 26;

/// Functions of the sm_86 corpus listings: (name, address, bytes), in order.
fn corpus_functions() -> Vec<(String, u64, Vec<u8>)> {
    let mut out: Vec<(String, u64, Vec<u8>)> = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(root().join("fixtures/nvidia/ref"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".sm86.jsonl"))
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
    let (mut lifted, mut ran_ok, mut total) = (0, 0, 0);
    let mut g = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        g ^= g << 13;
        g ^= g >> 7;
        g ^= g << 17;
        g
    };
    for (name, addr, bytes) in corpus_functions() {
        total += 1;
        let f = match lift(Isa::Sm86, &bytes, addr, &Options::default()) {
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
            // Constant bank 0: block size 64, then parameters from 0x160 that are pointers into
            // the buffer (or small integers); the buffer's 64-bit words likewise.
            let mut cb0 = vec![0u8; 0x400];
            cb0[0..4].copy_from_slice(&64u32.to_le_bytes());
            cb0[4..8].copy_from_slice(&1u32.to_le_bytes());
            cb0[8..12].copy_from_slice(&1u32.to_le_bytes());
            // c[0x0][0x28]: the top of the local stack (R1 counts down from it).
            cb0[0x28..0x2c].copy_from_slice(&1024u32.to_le_bytes());
            for k in 0..((0x400 - 0x160) / 8) {
                let r = next();
                let w = if r & 15 != 0 { (BUF + (r >> 8) % (BUF_BYTES as u64 / 4)) & !7 } else { (r >> 8) & 63 };
                cb0[0x160 + 8 * k..0x168 + 8 * k].copy_from_slice(&w.to_le_bytes());
            }
            let buf: Vec<u8> = (0..BUF_BYTES / 8)
                .flat_map(|_| {
                    let r = next();
                    let w = if r & 1 == 0 { (BUF + (r >> 8) % (BUF_BYTES as u64 / 2)) & !7 } else { (r >> 8 & 15) | (r >> 16 & 15) << 32 };
                    w.to_le_bytes()
                })
                .collect();
            let mem = Memory { global: vec![(BUF, buf)], constant: vec![cb0, vec![0; 0x1000], vec![0; 0x1000], vec![0; 0x1000]], shared: vec![0; 4096] };
            let mut ins: Vec<Input> = SystemValue::ALL.iter().map(|_| Input::Uniform(next() & 7)).collect();
            ins[SystemValue::TidX.param() as usize] = Input::PerLane((0..64u64).collect());
            let cfg = Config { wave_size: 32, waves: 2, scratch_bytes: 1024, max_steps: 10_000, ..Config::default() };
            let a = interp::run(&f, &cfg, &ins, mem.clone()).map(|r| (r.outputs, r.memory)).map_err(|e| e.to_string());
            let b = interp::run(&o, &cfg, &ins, mem).map(|r| (r.outputs, r.memory)).map_err(|e| e.to_string());
            ran_ok += a.is_ok() as usize;
            if let (Err(e), Some(_)) = (&a, std::env::var_os("SHOW_RUN_ERRORS")) {
                eprintln!("run error: {name}: {e}");
            }
            assert!(a == b, "{name}: the pipeline changed the result ({:?} before, {:?} after)", a.as_ref().err(), b.as_ref().err());
        }
    }
    eprintln!("sm_86 corpus: {lifted} of {total} functions lift whole; {ran_ok} runs ended without an error");
    assert!(lifted >= MIN_LIFTED, "only {lifted} functions lift (pin {MIN_LIFTED})");
    assert!(ran_ok >= MIN_RAN_OK, "only {ran_ok} runs ended cleanly (pin {MIN_RAN_OK})");
}

#[test]
fn pipeline_preserves_the_capture_kernels() {
    let cubin = std::fs::read(root().join("fixtures/hw/capture.sm86.cubin")).unwrap();
    let (_, sections) = isabridge_decoder::elf::parse(&cubin).unwrap();
    let mut checked = 0;
    let mut g = 0x2545_f491_4f6c_dd1du64;
    for sec in sections.iter().filter(|s| s.name.contains("k_")) {
        let Ok(f) = lift(Isa::Sm86, sec.data, 0, &Options::default()) else { continue };
        let mut o = f.clone();
        run_pipeline(&mut o).unwrap_or_else(|e| panic!("{}: {e}", sec.name));
        let n = 128u32;
        let rows: Vec<u8> = (0..n * 3)
            .flat_map(|_| {
                g ^= g << 13;
                g ^= g >> 7;
                g ^= g << 17;
                (g as u32).to_le_bytes()
            })
            .collect();
        let mut cb0 = vec![0u8; 0x200];
        cb0[0..4].copy_from_slice(&128u32.to_le_bytes());
        cb0[0x160..0x168].copy_from_slice(&BUF.to_le_bytes());
        cb0[0x168..0x170].copy_from_slice(&(2 * BUF).to_le_bytes());
        cb0[0x170..0x174].copy_from_slice(&n.to_le_bytes());
        let mem = Memory { global: vec![(BUF, rows), (2 * BUF, vec![0; n as usize * 8])], constant: vec![cb0], shared: vec![] };
        let mut ins: Vec<Input> = SystemValue::ALL.iter().map(|_| Input::Uniform(0)).collect();
        ins[SystemValue::TidX.param() as usize] = Input::PerLane((0..128u64).collect());
        let cfg = Config { wave_size: 32, waves: 4, scratch_bytes: 1024, ..Config::default() };
        let a = interp::run(&f, &cfg, &ins, mem.clone()).map(|r| r.memory).map_err(|e| e.to_string());
        let b = interp::run(&o, &cfg, &ins, mem).map(|r| r.memory).map_err(|e| e.to_string());
        assert!(a.is_ok(), "{}: {:?}", sec.name, a.err());
        assert!(a == b, "{}: the pipeline changed the output", sec.name);
        checked += 1;
    }
    assert!(checked >= 129, "only {checked} capture kernels lift");
}
