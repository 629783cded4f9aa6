//! Decode-only throughput over the bundled AMD corpus (goal: >= 200 M instructions/s per core),
//! and decode + print for comparison. Run: `cargo bench --bench decode`.
//!
//! Per ISA: `decode` calls `dyn IsaPlugin::decode` once per instruction; `decode_block` calls
//! `dyn IsaPlugin::decode_block` once per run of decodable instructions (the batch API);
//! `decode+print` decodes one instruction at a time and prints it.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use isabridge::decoder::{elf, Decoded, Isa, IsaPlugin};
use std::hint::black_box;

/// Every code section of the corpus objects of one ISA, concatenated per section.
fn corpus(isa: Isa) -> Vec<Vec<u8>> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/amd/bin");
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

/// Decodes a section front to back; undecodable words advance by one unit. Returns the count.
fn decode_all(p: &dyn IsaPlugin, code: &[u8]) -> u64 {
    let mut off = 0;
    let mut n = 0;
    while off < code.len() {
        off += match p.decode(&code[off..], off as u64) {
            Ok(d) => d.len as usize,
            Err(_) => 4,
        };
        n += 1;
    }
    n
}

/// The same walk through the batch API: one call per run of decodable instructions. Returns
/// the count; a checksum of every decoded instruction's identity keeps the results from being
/// optimised away (lengths, literals included, decide where the walk goes next).
fn decode_blocks(p: &dyn IsaPlugin, code: &[u8], buf: &mut Vec<Decoded>) -> u64 {
    let mut off = 0;
    let mut n = 0;
    let mut sum = 0u64;
    while off < code.len() {
        buf.clear();
        off += p.decode_block(&code[off..], off as u64, buf);
        n += buf.len() as u64;
        sum = buf.iter().fold(sum, |a, d| a.wrapping_add(d.ienc as u64));
        if off < code.len() {
            off += 4; // a word that does not decode
            n += 1;
        }
    }
    black_box(sum);
    n
}

fn bench(c: &mut Criterion) {
    for isa in Isa::ALL {
        let secs = corpus(isa);
        let p = isa.plugin();
        let count: u64 = secs.iter().map(|s| decode_all(p, s)).sum();
        if count == 0 {
            continue;
        }
        let mut g = c.benchmark_group(format!("{isa}"));
        g.throughput(Throughput::Elements(count));
        g.bench_function("decode", |b| {
            b.iter(|| secs.iter().map(|s| decode_all(p, black_box(s))).sum::<u64>())
        });
        g.bench_function("decode_block", |b| {
            let mut buf = Vec::new();
            b.iter(|| secs.iter().map(|s| decode_blocks(p, black_box(s), &mut buf)).sum::<u64>())
        });
        g.bench_function("decode+print", |b| {
            let mut text = String::new();
            b.iter(|| {
                for s in &secs {
                    let mut off = 0;
                    while off < s.len() {
                        off += match p.decode(&s[off..], off as u64) {
                            Ok(d) => {
                                text.clear();
                                p.print(&d, off as u64, &mut text);
                                d.len as usize
                            }
                            Err(_) => 4,
                        };
                    }
                }
                black_box(text.len())
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
