//! NVIDIA decode-only throughput over the code sections of the bundled cubins (goal: >= 200 M
//! instructions/s per core), and decode + print. Run: `cargo bench --bench decode_nvidia`.
//!
//! `decode` is `IsaPlugin::decode_block` over every section in 4 KiB batches (sm50 through
//! [`SM50`], bundles: a bundle's control word is decoded with its slot 0), one `Decoded` (form,
//! instruction, length, words) per instruction appended to a reused vector, then a checksum of
//! the forms, lengths and first words; an undecodable word is stepped over. The throughput counts
//! instructions (three per sm50 bundle), not control words.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use isabridge::decoder::sm50::SM50;
use isabridge::decoder::sm86::SM86;
use isabridge::decoder::{elf, Decoded, Isa, IsaPlugin};
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

/// One decode pass over the sections: (checksum, instructions decoded).
#[inline(never)]
fn decode_all(p: &dyn IsaPlugin, secs: &[Vec<u8>], out: &mut Vec<Decoded>) -> (u64, u64) {
    let (mut sum, mut n) = (0u64, 0u64);
    for s in secs {
        let mut off = 0usize;
        while off < s.len() {
            out.clear();
            // 4 KiB batches, as the disassembler calls it (disasm.rs `BATCH_BYTES`).
            let end = s.len().min(off + (4 << 10));
            off += p.decode_block(&s[off..end], off as u64, out);
            n += out.len() as u64;
            sum = out.iter().fold(sum, |a, d| {
                a.rotate_left(5) ^ (d.enc as u64 | (d.ienc as u64) << 16 | (d.len as u64) << 32 | (d.words[0] as u64) << 40)
            });
            if off < end {
                off += p.unit(); // stopped before a word that does not decode
            }
        }
    }
    (sum, n)
}

fn bench(c: &mut Criterion) {
    for isa in [Isa::Sm50, Isa::Sm86] {
        let secs = corpus(isa);
        let p: &dyn IsaPlugin = if isa == Isa::Sm50 { &SM50 } else { &SM86 };
        let mut out = Vec::new();
        let want = decode_all(p, &secs, &mut out);
        // sm50: a Decoded at a bundle start covers the control word and slot 0.
        let count = want.1;
        let mut g = c.benchmark_group(format!("{isa}"));
        g.throughput(Throughput::Elements(count));
        g.bench_function("decode", |b| {
            b.iter(|| {
                let got = decode_all(p, black_box(&secs), &mut out);
                assert_eq!(got, want);
                got
            })
        });
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
