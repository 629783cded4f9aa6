//! Decode + lift + pass pipeline + SPIR-V emission throughput (issue 29; goal: >= 5 M guest
//! instructions/s per core over the corpora), and its growth with function size. Run:
//! `cargo bench --bench spirv`; `ISABRIDGE_LIFT_CPU=5 cargo bench --bench spirv` runs each
//! workload for 5 seconds of CPU time and prints guest instructions per CPU-second
//! (`common/cpu.rs`). Figures and commands go to BENCHMARKS.md.
//!
//! - `corpus`: every kernel of fixtures/nvidia/bin (sm_50, sm_86) and fixtures/amd/bin
//!   (gfx1013 wave32 and wave64, gfx1201) that the SPIR-V backend translates, as the CLI runs
//!   them: each object read once (`Translator::open`), each kernel translated from it
//!   (`Translator::translate_in(.., Target::Spirv)`); a kernel's guest instructions are those
//!   its symbol spans (functions it calls are not counted, so the figure is a little low where
//!   calls are inlined).
//! - `corpus per kernel`: the same kernels, each through `Translator::translate`, which reads
//!   its object again for every kernel.
//! - `size/N`: one raw gfx1013 wave32 function of about N instructions (a 10-instruction block
//!   of VALU ops, a compare, a select and a global store, repeated, then `s_endpgm`).

#[path = "common/cpu.rs"]
mod cpu;

use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use isabridge::{Isa, Source, Target, Translator};
use std::hint::black_box;
use std::time::Duration;

/// A code object or cubin: its bytes, ISA, and the kernels of it that translate, each with its
/// guest instruction count.
struct Object {
    code: Vec<u8>,
    isa: Isa,
    kernels: Vec<(Source, u64)>,
}

/// Guest instructions in kernel `name`'s symbol range.
fn instructions(p: &isabridge::Program, name: &str) -> u64 {
    let isa = p.isa;
    let plugin = isa.plugin();
    let unit = if matches!(isa, Isa::Gfx1013 | Isa::Gfx1201) { 4 } else { 8 };
    let mut n = 0;
    for s in &p.sections {
        for f in s.functions.iter().filter(|f| f.name == name) {
            let mut at = f.start;
            while at < f.end {
                let o = (at - s.address) as usize;
                match plugin.decode(&s.data[o..(f.end - s.address) as usize], at) {
                    Ok(d) => {
                        n += 1;
                        at += d.len as u64;
                    }
                    Err(_) => at += unit,
                }
            }
        }
    }
    n
}

fn corpus() -> Vec<Object> {
    let root = env!("CARGO_MANIFEST_DIR");
    let t = Translator::default();
    let mut out = Vec::new();
    for (dir, ext) in [("fixtures/nvidia/bin", ".cubin"), ("fixtures/amd/bin", ".o")] {
        let mut paths: Vec<_> = std::fs::read_dir(format!("{root}/{dir}")).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
        paths.retain(|p| p.to_string_lossy().ends_with(ext));
        paths.sort();
        for p in paths {
            let name = p.file_name().unwrap_or_default().to_string_lossy().to_string();
            // NAME.sm86.cubin, NAME.gfx1013-w64.o
            let Some(tag) = name.split('.').nth(1) else { continue };
            let (isa, wave) = tag.split_once("-w").map_or((tag, 32), |(i, w)| (i, w.parse().unwrap_or(32)));
            let Some(isa) = Isa::from_name(isa) else { continue };
            let Ok(code) = std::fs::read(&p) else { continue };
            let (Ok(object), Ok(program)) = (t.open(&code, isa), isabridge::load(&code, None)) else { continue };
            let mut kernels = Vec::new();
            for (k, _) in object.kernels() {
                let src = Source::object(isa, wave, Some(k));
                if t.translate_in(&object, &src, Target::Spirv).is_ok() {
                    kernels.push((src, instructions(&program, k)));
                }
            }
            out.push(Object { code: code.clone(), isa, kernels });
        }
    }
    out
}

/// v_add_f32, v_mul_f32, v_xor_b32, v_add_nc_u32, v_fma_f32, v_cmp_gt_f32, v_cndmask_b32,
/// v_min_u32, global_store_dword (llvm-mc-22 --mcpu=gfx1013 encodings): 9 instructions.
const BLOCK: [u8; 44] = [
    0x01, 0x01, 0x00, 0x06, 0x00, 0x05, 0x04, 0x10, 0x02, 0x03, 0x06, 0x3a, 0x03, 0x03, 0x02, 0x4a, 0x04, 0x00, 0x4b, 0xd5, 0x00, 0x03, 0x12, 0x04, 0x04, 0x01,
    0x08, 0x7c, 0x00, 0x09, 0x0a, 0x02, 0x05, 0x07, 0x0c, 0x26, 0x00, 0x80, 0x70, 0xdc, 0x08, 0x06, 0x7d, 0x00,
];

/// About `n` instructions: BLOCK repeated, then s_endpgm.
fn synthetic(n: usize) -> (Vec<u8>, u64) {
    let reps = n / 9;
    let mut code: Vec<u8> = (0..reps).flat_map(|_| BLOCK).collect();
    code.extend_from_slice(&[0, 0, 0x81, 0xbf]);
    (code, reps as u64 * 9 + 1)
}

/// Every kernel, each object read once (as `isabridge translate` runs them): SPIR-V bytes.
fn translate_objects(t: &Translator, os: &[Object]) -> usize {
    let mut n = 0;
    for o in os {
        let Ok(object) = t.open(black_box(&o.code), o.isa) else { continue };
        n += o.kernels.iter().map(|(src, _)| t.translate_in(&object, src, Target::Spirv).map_or(0, |a| a.bytes.len())).sum::<usize>();
    }
    n
}

/// Every kernel through `Translator::translate`, its object read again each time.
fn translate_each(t: &Translator, os: &[Object]) -> usize {
    os.iter().flat_map(|o| o.kernels.iter().map(|(src, _)| t.translate(black_box(&o.code), src, Target::Spirv).map_or(0, |a| a.bytes.len()))).sum()
}

/// Kernels and guest instructions of the corpus.
fn counts(os: &[Object]) -> (usize, u64) {
    (os.iter().map(|o| o.kernels.len()).sum(), os.iter().flat_map(|o| &o.kernels).map(|k| k.1).sum())
}

fn translate_raw(t: &Translator, code: &[u8]) -> usize {
    t.translate(black_box(code), &Source::raw(Isa::Gfx1013, 32), Target::Spirv).map_or(0, |a| a.bytes.len())
}

fn bench(c: &mut Criterion) {
    let os = corpus();
    let t = Translator::default();
    let (kernels, count) = counts(&os);
    let mut g = c.benchmark_group("spirv");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    g.throughput(Throughput::Elements(count));
    g.bench_function(format!("corpus ({kernels} kernels)"), |b| b.iter(|| translate_objects(&t, &os)));
    g.bench_function(format!("corpus per kernel ({kernels} kernels)"), |b| b.iter(|| translate_each(&t, &os)));
    for n in [1_000usize, 10_000, 100_000] {
        let (code, insts) = synthetic(n);
        g.throughput(Throughput::Elements(insts));
        g.bench_with_input(BenchmarkId::new("size", n), &code, |b, code| b.iter(|| translate_raw(&t, code)));
    }
    g.finish();
}

/// The same workloads, timed in CPU seconds.
fn cpu_rates(secs: f64) {
    let os = corpus();
    let t = Translator::default();
    let (kernels, count) = counts(&os);
    cpu::report(&format!("spirv/corpus ({kernels} kernels)"), count, secs, || translate_objects(&t, &os));
    cpu::report(&format!("spirv/corpus per kernel ({kernels} kernels)"), count, secs, || translate_each(&t, &os));
    for n in [1_000usize, 10_000, 100_000] {
        let (code, insts) = synthetic(n);
        cpu::report(&format!("spirv/size/{n}"), insts, secs, || translate_raw(&t, &code));
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
