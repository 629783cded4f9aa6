//! gfx1013 -> gfx1201 translation throughput (goal: >= 20 M guest instructions/s per core over
//! the corpus, growth near linear). Run: `cargo bench --bench gfx12`, or
//! `ISABRIDGE_LIFT_CPU=5 cargo bench --bench gfx12` for guest instructions per CPU-second
//! (`common/cpu.rs`). Figures and commands go to BENCHMARKS.md.
//!
//! - `corpus`: every gfx1013 function (wave32 and wave64 listings) of fixtures/amd/ref that
//!   translates whole, through `gfx12::function::translate_function` (decode, translate,
//!   s_getpc, waits, ALU waits, placement), one after another on one thread.
//! - `objects`: every gfx1013 code object of fixtures/amd/bin through
//!   `gfx12::object::translate_object` (the above per kernel, entry sequences, descriptors,
//!   metadata, the .hsaco); instructions counted are those of the kernels it translates.
//! - `size/N`: one synthetic function of N instructions (an ALU block of 8 with a conditional
//!   branch, repeated), for the growth with function size.

#[path = "common/cpu.rs"]
mod cpu;

use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use isabridge::targets::gfx12::function::{translate_function, FunctionOptions};
use isabridge::targets::gfx12::object::translate_object;
use std::hint::black_box;
use std::time::Duration;

fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap_or(0)).collect()
}

fn opts() -> FunctionOptions {
    FunctionOptions { declared_vgprs: 32, declared_sgprs: 32, ..FunctionOptions::default() }
}

/// Functions of the gfx1013 listings that translate whole: (address, bytes, instructions).
fn corpus() -> Vec<(u64, Vec<u8>, u64)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/amd/ref");
    let mut paths: Vec<_> = std::fs::read_dir(dir).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    paths.retain(|p| p.to_string_lossy().contains(".gfx1013-w"));
    paths.sort();
    let mut funcs: Vec<(String, u64, Vec<u8>, u64)> = Vec::new();
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
    funcs.into_iter().filter(|(_, a, code, _)| translate_function(code, *a, &opts()).is_ok()).map(|(_, a, c, k)| (a, c, k)).collect()
}

/// The gfx1013 code objects and the instructions of the kernels that translate.
fn objects() -> (Vec<Vec<u8>>, u64) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/amd/bin");
    let mut paths: Vec<_> = std::fs::read_dir(dir).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    paths.retain(|p| p.to_string_lossy().contains(".gfx1013-w"));
    paths.sort();
    let objs: Vec<Vec<u8>> = paths.iter().filter_map(|p| std::fs::read(p).ok()).collect();
    let insts = objs.iter().filter_map(|o| translate_object(o).ok()).map(|t| t.source_insts as u64).sum();
    (objs, insts)
}

/// `blocks` copies of: s_add_u32 s0, s0, 1 ; v_add_nc_u32 v1, v1, v0 ; v_mul_lo_u32 v2, v1, v0 ;
/// v_cmp_gt_u32 vcc_lo, v2, v1 ; v_cndmask_b32 v3, v1, v2, vcc_lo ; v_xor3_b32 v4, v3, v2, v1 ;
/// s_cmp_eq_u32 s0, 7 ; s_cbranch_scc1 (to the next block); then s_endpgm (llvm-mc-22 words,
/// as benches/lift.rs).
fn synthetic(blocks: usize) -> Vec<u8> {
    let block: [u32; 10] =
        [0x80008100, 0x4a020101, 0xd5690002, 0x00020101, 0x7d880302, 0x02060501, 0xd5780004, 0x04060503, 0xbf068700, 0xbf850000];
    let mut w: Vec<u32> = (0..blocks).flat_map(|_| block).collect();
    w.push(0xbf810000);
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn translate(addr: u64, code: &[u8]) -> usize {
    translate_function(code, addr, &opts()).expect("translates").code.insts.len()
}

fn objects_pass(objs: &[Vec<u8>]) -> usize {
    objs.iter().filter_map(|o| translate_object(black_box(o)).ok()).map(|t| t.bytes.len()).sum()
}

fn bench(c: &mut Criterion) {
    let funcs = corpus();
    let count: u64 = funcs.iter().map(|f| f.2).sum();
    let mut g = c.benchmark_group("gfx1013_to_gfx1201");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    g.throughput(Throughput::Elements(count));
    g.bench_function(format!("corpus ({} functions)", funcs.len()), |b| {
        b.iter(|| funcs.iter().map(|(a, code, _)| translate(*a, black_box(code))).sum::<usize>())
    });
    let (objs, insts) = objects();
    g.throughput(Throughput::Elements(insts));
    g.bench_function(format!("objects ({})", objs.len()), |b| b.iter(|| objects_pass(&objs)));
    for n in [1_000usize, 10_000, 100_000] {
        let blocks = n / 8;
        let code = synthetic(blocks);
        g.throughput(Throughput::Elements(blocks as u64 * 8 + 1));
        g.bench_with_input(BenchmarkId::new("size", n), &code, |b, code| b.iter(|| translate(0, black_box(code))));
    }
    g.finish();
}

/// The same workloads, timed in CPU seconds.
fn cpu_rates(secs: f64) {
    let funcs = corpus();
    let count: u64 = funcs.iter().map(|f| f.2).sum();
    cpu::report(&format!("gfx1013_to_gfx1201/corpus ({} functions)", funcs.len()), count, secs, || {
        funcs.iter().map(|(a, code, _)| translate(*a, black_box(code))).sum::<usize>()
    });
    let (objs, insts) = objects();
    cpu::report(&format!("gfx1013_to_gfx1201/objects ({})", objs.len()), insts, secs, || objects_pass(&objs));
    for n in [1_000usize, 10_000, 100_000] {
        let blocks = n / 8;
        let code = synthetic(blocks);
        cpu::report(&format!("gfx1013_to_gfx1201/size/{n}"), blocks as u64 * 8 + 1, secs, || translate(0, black_box(&code)));
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
