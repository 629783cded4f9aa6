//! Runs the census of the bundled corpora `N` times on a pool of `THREADS` threads (default 1;
//! for callgrind / perf), files in parallel as in `benches/census.rs`. Run:
//! `cargo run --release -p isabridge-analysis --example census_profile -- [N [THREADS]]`.

use isabridge_analysis::census::{census_bytes, Census};

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let mut files = Vec::new();
    for d in ["fixtures/amd/bin", "fixtures/nvidia/bin"] {
        let mut paths: Vec<_> = std::fs::read_dir(format!("{root}/{d}")).unwrap().flatten().map(|e| e.path()).collect();
        paths.sort();
        for p in paths {
            files.push((p.display().to_string(), std::fs::read(&p).unwrap()));
        }
    }
    let threads: usize = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    pool.install(|| run(&files, n));
}

fn run(files: &[(String, Vec<u8>)], n: usize) {
    use rayon::prelude::*;
    let t = std::time::Instant::now();
    let mut insts = 0;
    for _ in 0..n {
        let c = Census::from_files(files.par_iter().with_max_len(1).map(|(p, b)| census_bytes(p, b, None)).collect());
        insts += c.totals.instructions;
    }
    let s = t.elapsed().as_secs_f64();
    println!("{insts} instructions in {s:.3} s: {:.2} M instructions/s on {} thread(s)", insts as f64 / s / 1e6, rayon::current_num_threads());
}
