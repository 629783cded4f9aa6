//! Census throughput over the bundled corpora (goal: >= 20 M instructions/s on 2 cores):
//! load, recover every function's CFG, count. Files run in parallel on a 2-thread pool.
//! Run: `cargo bench --bench census`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use isabridge_analysis::census::{census_bytes, Census};
use std::hint::black_box;

fn corpus() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for d in ["fixtures/amd/bin", "fixtures/nvidia/bin"] {
        let dir = format!("{}/{d}", env!("CARGO_MANIFEST_DIR"));
        let mut paths: Vec<_> = std::fs::read_dir(dir).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
        paths.sort();
        for p in paths {
            if let Ok(b) = std::fs::read(&p) {
                out.push((p.display().to_string(), b));
            }
        }
    }
    out
}

fn run(files: &[(String, Vec<u8>)]) -> Census {
    use rayon::prelude::*;
    Census::from_files(files.par_iter().with_max_len(1).map(|(p, b)| census_bytes(p, b, None)).collect())
}

fn bench(c: &mut Criterion) {
    let files = corpus();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let n = pool.install(|| run(&files)).totals.instructions;
    let mut g = c.benchmark_group("census");
    g.throughput(Throughput::Elements(n));
    g.bench_function("corpus_2_threads", |b| b.iter(|| pool.install(|| run(black_box(&files))).totals.instructions));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
