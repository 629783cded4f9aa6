//! Decode + lift + pass pipeline throughput for sm_86 code (goal: >= 10 M guest instructions/s
//! per core over the NVIDIA corpus), and its growth with function size. Run:
//! `cargo bench --bench lift_nvidia`. Figures and commands go to BENCHMARKS.md.
//!
//! - `corpus`: every kernel of fixtures/hw/capture.sm86.cubin and every function of the sm_86
//!   corpus (fixtures/nvidia/ref) that lifts whole, lifted and run through
//!   `isabridge::ir::passes::run_pipeline`, one after another on one thread.
//! - `corpus_shared_forms`: the same, through `lift_with` with one form-layout cache for the
//!   whole corpus (what a caller lifting every function of a cubin can keep), so that each
//!   form's template is read once rather than once per function.
//! - `size/N`: one synthetic function of N instructions (the first 8 straight-line
//!   instructions of the capture kernels, repeated, then EXIT), for the growth with size.
//!
//! `ISABRIDGE_LIFT_CPU=5 cargo bench --bench lift_nvidia` instead runs each of them for 5
//! seconds of CPU time and prints guest instructions per CPU-second (`common/cpu.rs`).

#[path = "common/cpu.rs"]
mod cpu;

use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use isabridge::decoder::lift::sm86::{lift, lift_one, lift_with, Options};
use isabridge::decoder::nvidia::model::LayoutCache;
use isabridge::decoder::operand::Flow;
use isabridge::decoder::Isa;
use isabridge::ir::passes::run_pipeline;
use std::hint::black_box;
use std::time::Duration;

fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap_or(0)).collect()
}

/// A function that lifts whole: (address, bytes, instructions).
type Code = (u64, Vec<u8>, u64);

/// The code that lifts whole, and the synthetic function's 8-instruction block.
fn corpus() -> (Vec<Code>, Vec<u8>) {
    let root = env!("CARGO_MANIFEST_DIR");
    let cubin = std::fs::read(format!("{root}/fixtures/hw/capture.sm86.cubin")).unwrap_or_default();
    let mut funcs: Vec<(String, u64, Vec<u8>, u64)> = Vec::new();
    let mut block = Vec::new();
    if let Ok((_, secs)) = isabridge::decoder::elf::parse(&cubin) {
        for s in secs.iter().filter(|s| s.name.contains("k_")) {
            funcs.push((s.name.to_string(), 0, s.data.to_vec(), s.data.len() as u64 / 16));
            for w in s.data.chunks(16) {
                let plugin = Isa::Sm86.plugin();
                let Ok(d) = plugin.decode(w, 0) else { continue };
                if block.len() < 8 * 16 && plugin.flow(&d) == Flow::Next && lift_one(Isa::Sm86, w, 0, &Options::default()).is_ok() && !block.chunks(16).any(|b| b == w) {
                    block.extend_from_slice(w);
                }
            }
        }
    }
    let dir = format!("{root}/fixtures/nvidia/ref");
    let mut paths: Vec<_> = std::fs::read_dir(dir).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    paths.retain(|p| p.to_string_lossy().ends_with(".sm86.jsonl"));
    paths.sort();
    for p in paths {
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        for line in text.lines() {
            let Ok(r) = serde_json::from_str::<serde_json::Value>(line) else { continue };
            let name = format!("{}:{}", p.display(), r["function"].as_str().unwrap_or(""));
            let off = r["offset"].as_u64().unwrap_or(0);
            let b = hex(r["bytes"].as_str().unwrap_or(""));
            match funcs.last_mut() {
                Some((n, a, code, k)) if *n == name && *a + code.len() as u64 == off => {
                    code.extend(b);
                    *k += 1;
                }
                _ => funcs.push((name, off, b, 1)),
            }
        }
    }
    let opts = Options::default();
    let ok = funcs.into_iter().filter(|(_, a, code, _)| lift(Isa::Sm86, code, *a, &opts).is_ok()).map(|(_, a, c, k)| (a, c, k)).collect();
    (ok, block)
}

fn lift_and_optimise(addr: u64, code: &[u8]) -> usize {
    let mut f = lift(Isa::Sm86, code, addr, &Options::default()).expect("lifts");
    run_pipeline(&mut f).expect("valid");
    f.insts.len()
}

/// [`lift_and_optimise`] with the caller's form-layout cache.
fn lift_and_optimise_with(addr: u64, code: &[u8], forms: &mut LayoutCache) -> usize {
    let mut f = lift_with(Isa::Sm86, code, addr, &Options::default(), forms).expect("lifts");
    run_pipeline(&mut f).expect("valid");
    f.insts.len()
}

/// EXIT.
const EXIT: [u8; 16] = [0x4d, 0x79, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x03, 0, 0xea, 0x0f, 0];

/// The synthetic function of about `n` instructions: `block` repeated, then EXIT.
fn synthetic(block: &[u8], n: usize) -> Vec<u8> {
    let reps = n / (block.len() / 16).max(1);
    let mut code: Vec<u8> = (0..reps).flat_map(|_| block.iter().copied()).collect();
    code.extend_from_slice(&EXIT);
    code
}

fn bench(c: &mut Criterion) {
    let (funcs, block) = corpus();
    let count: u64 = funcs.iter().map(|f| f.2).sum();
    let mut g = c.benchmark_group("lift_sm86");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    g.throughput(Throughput::Elements(count));
    g.bench_function(format!("corpus ({} functions)", funcs.len()), |b| {
        b.iter(|| funcs.iter().map(|(a, code, _)| lift_and_optimise(*a, black_box(code))).sum::<usize>())
    });
    let mut forms = LayoutCache::default();
    g.bench_function(format!("corpus_shared_forms ({} functions)", funcs.len()), |b| {
        b.iter(|| funcs.iter().map(|(a, code, _)| lift_and_optimise_with(*a, black_box(code), &mut forms)).sum::<usize>())
    });
    for n in [1_000usize, 10_000, 100_000] {
        let code = synthetic(&block, n);
        g.throughput(Throughput::Elements(code.len() as u64 / 16));
        g.bench_with_input(BenchmarkId::new("size", n), &code, |b, code| b.iter(|| lift_and_optimise(0, black_box(code))));
    }
    g.finish();
}

/// The same workloads, timed in CPU seconds.
fn cpu_rates(secs: f64) {
    let (funcs, block) = corpus();
    let count: u64 = funcs.iter().map(|f| f.2).sum();
    cpu::report(&format!("lift_sm86/corpus ({} functions)", funcs.len()), count, secs, || {
        funcs.iter().map(|(a, code, _)| lift_and_optimise(*a, black_box(code))).sum::<usize>()
    });
    let mut forms = LayoutCache::default();
    cpu::report(&format!("lift_sm86/corpus_shared_forms ({} functions)", funcs.len()), count, secs, || {
        funcs.iter().map(|(a, code, _)| lift_and_optimise_with(*a, black_box(code), &mut forms)).sum::<usize>()
    });
    for n in [1_000usize, 10_000, 100_000] {
        let code = synthetic(&block, n);
        cpu::report(&format!("lift_sm86/size/{n}"), code.len() as u64 / 16, secs, || lift_and_optimise(0, black_box(&code)));
    }
}

criterion_group!(benches, bench);

fn main() {
    if let Some(secs) = cpu::seconds_from_env() {
        cpu_rates(secs);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
