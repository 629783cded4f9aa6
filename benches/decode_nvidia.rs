//! NVIDIA decode-only throughput over the bundled cubins (goal: >= 200 M instructions/s per
//! core), and decode + print. Run: `cargo bench --bench decode_nvidia`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use isabridge::decoder::sm50::{BUNDLE, SM50};
use isabridge::decoder::sm86::SM86;
use isabridge::decoder::{elf, Isa, IsaPlugin};
use std::hint::black_box;

/// Every kernel section of the corpus cubins of one ISA.
fn corpus(isa: Isa) -> Vec<Vec<u8>> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/nvidia/bin");
    let mut out = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(dir).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    paths.sort();
    for p in paths {
        let Ok(bytes) = std::fs::read(&p) else { continue };
        if let Ok(obj) = elf::read(&bytes) {
            if obj.isa == isa {
                out.extend(obj.sections.into_iter().map(|s| s.data));
            }
        }
    }
    out
}

fn le(b: &[u8]) -> u64 {
    u64::from_le_bytes(b[..8].try_into().unwrap())
}

/// sm50: every instruction of every bundle. Returns the number decoded.
fn decode_sm50(code: &[u8]) -> u64 {
    let mut n = 0;
    for b in code.chunks_exact(BUNDLE) {
        let ctrl = le(b);
        for k in 0..3 {
            if SM50.decode_slot(le(&b[8 + 8 * k..]), ctrl, k, 0).is_ok() {
                n += 1;
            }
        }
    }
    n
}

/// sm86: every 16-byte instruction.
fn decode_sm86(code: &[u8]) -> u64 {
    let mut n = 0;
    for (i, c) in code.chunks_exact(16).enumerate() {
        if SM86.decode(c, 16 * i as u64).is_ok() {
            n += 1;
        }
    }
    n
}

fn bench(c: &mut Criterion) {
    for isa in [Isa::Sm50, Isa::Sm86] {
        let secs = corpus(isa);
        let f = if isa == Isa::Sm50 { decode_sm50 } else { decode_sm86 };
        let count: u64 = secs.iter().map(|s| f(s)).sum();
        let mut g = c.benchmark_group(format!("{isa}"));
        g.throughput(Throughput::Elements(count));
        g.bench_function("decode", |b| b.iter(|| secs.iter().map(|s| f(black_box(s))).sum::<u64>()));
        g.bench_function("decode+print", |b| {
            let mut text = String::new();
            let p = isa.plugin();
            b.iter(|| {
                let mut n = 0usize;
                for s in &secs {
                    let _ = isabridge::decoder::disasm::disassemble(p, s, 0, "s", &[], |l| {
                        text.clear();
                        text.push_str(l.text);
                        n += 1;
                    });
                }
                n
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
