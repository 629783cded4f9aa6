//! The generated decode tree (crate::nvidia::tree) picks the same form as the reference
//! classifier, a scan of every candidate of the opcode key sorted most specific mask first
//! (`NvTables::classify`), on every corpus and fuzz word, on those words with bits flipped, and
//! on random words; and the batch path (`IsaPlugin::decode_block`) gives what `decode` gives.

use isabridge_decoder::nvidia::NvPlugin;
use isabridge_decoder::sm50::{SM50, SM50_INSN};
use isabridge_decoder::sm86::SM86;
use isabridge_decoder::{elf, Decoded, Isa, IsaPlugin};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every instruction word of the committed corpus and fuzz listings of one ISA.
fn words(arch: &str, size: usize) -> Vec<u128> {
    let mut out = Vec::new();
    // Fuzz sets: `0xLOW 0xHIGH<TAB>text` (sm86) or `0xCONTROL 0xWORD<TAB>text` (sm50).
    if let Ok(tsv) = std::fs::read_to_string(root().join(format!("fixtures/nvidia/fuzz/{arch}.tsv"))) {
        for line in tsv.lines() {
            let hexes: Vec<u64> = line
                .split('\t')
                .next()
                .unwrap_or("")
                .split(' ')
                .map(|h| u64::from_str_radix(h.trim_start_matches("0x"), 16).unwrap())
                .collect();
            out.push(match (size, hexes.as_slice()) {
                (8, [.., w]) => *w as u128,
                (_, [lo, hi]) => *lo as u128 | (*hi as u128) << 64,
                _ => panic!("{arch}: bad fuzz line {line}"),
            });
        }
    }
    for dir in ["fixtures/nvidia/ref"] {
        let Ok(rd) = std::fs::read_dir(root().join(dir)) else { continue };
        let mut files: Vec<_> = rd.flatten().map(|e| e.path()).collect();
        files.sort();
        for f in files.iter().filter(|f| f.to_string_lossy().ends_with(&format!(".{arch}.jsonl"))) {
            for line in std::fs::read_to_string(f).unwrap().lines() {
                let Some(i) = line.find("\"bytes\"") else { continue };
                let hex: String = line[i + 7..].chars().skip_while(|c| *c != '"').skip(1).take_while(|c| *c != '"').collect();
                if hex.len() < 2 * size {
                    continue;
                }
                let mut w = 0u128;
                for k in 0..size {
                    w |= (u8::from_str_radix(&hex[2 * k..2 * k + 2], 16).unwrap() as u128) << (8 * k);
                }
                out.push(w);
            }
        }
    }
    out
}

fn reference(p: &NvPlugin, w: u128) -> Option<(u16, u16)> {
    p.t.classify(w).map(|f| (f, p.t.forms[f as usize].inst))
}

fn check(p: &NvPlugin, arch: &str) {
    let size = p.size;
    let all = if size == 8 { u64::MAX as u128 } else { u128::MAX };
    let corpus = words(arch, size);
    assert!(corpus.len() > 5000, "{arch}: corpus words found: {}", corpus.len());
    let mut n = 0usize;
    let mut found = 0usize;
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut test = |w: u128| {
        let want = reference(p, w);
        assert_eq!(p.tree.classify(w), want, "{arch}: word {w:#034x}");
        n += 1;
        found += want.is_some() as usize;
    };
    for &w in &corpus {
        test(w);
        for b in 0..(8 * size) {
            test(w ^ (1u128 << b));
        }
    }
    for _ in 0..1_000_000 {
        let w = ((next() as u128) | (next() as u128) << 64) & all;
        test(w);
    }
    eprintln!("{arch}: {n} words, {found} decode");
}

#[test]
fn tree_matches_reference_sm50() {
    check(&SM50_INSN, "sm50");
}

#[test]
fn tree_matches_reference_sm86() {
    check(&SM86, "sm86");
}

/// `decode_block` gives what `decode` gives at each offset in turn (the same `Decoded`
/// values, appended after what `out` held, and the same number of bytes), from every offset
/// where the previous block stopped plus one unit.
fn block_matches(p: &dyn IsaPlugin, code: &[u8], base: u64) -> usize {
    let mut off = 0usize;
    let mut total = 0usize;
    while off < code.len() {
        let addr = base.wrapping_add(off as u64);
        let mut want = Vec::new();
        let mut o = off;
        while o < code.len() {
            match p.decode(&code[o..], base.wrapping_add(o as u64)) {
                Ok(d) if d.len > 0 => {
                    o += d.len as usize;
                    want.push(d);
                }
                _ => break,
            }
        }
        let held = Decoded { words: [7; 6], len: 3, enc: 5, ienc: 9 };
        let mut got = vec![held];
        let n = p.decode_block(&code[off..], addr, &mut got);
        assert_eq!(got[0], held, "{}: block at {addr:#x} keeps what out held", p.isa());
        assert_eq!(&got[1..], &want[..], "{}: block at {addr:#x}", p.isa());
        assert_eq!(n, o - off, "{}: bytes of the block at {addr:#x}", p.isa());
        total += want.len();
        off = o + p.unit();
    }
    total
}

/// Code of one ISA: every kernel section of the bundled cubins, then the same bytes with every
/// 13th 64-bit word replaced by random bits, then random bytes.
fn block_inputs(isa: Isa) -> Vec<Vec<u8>> {
    let mut secs = Vec::new();
    let dir = root().join("fixtures/nvidia/bin");
    let mut paths: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        let Ok(obj) = elf::read(&std::fs::read(&path).unwrap()) else { continue };
        if obj.isa == isa {
            secs.extend(obj.sections.into_iter().map(|s| s.data));
        }
    }
    assert!(secs.len() > 10, "{isa}: sections found: {}", secs.len());
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut mixed: Vec<u8> = secs.concat();
    for (k, w) in mixed.chunks_exact_mut(8).enumerate() {
        if k % 13 == 5 {
            w.copy_from_slice(&next().to_le_bytes());
        }
    }
    secs.push(mixed);
    secs.push((0..8192).flat_map(|_| next().to_le_bytes()).collect());
    secs
}

#[test]
fn decode_block_matches_decode() {
    for (p, isa) in [(&SM50 as &dyn IsaPlugin, Isa::Sm50), (&SM50_INSN, Isa::Sm50), (&SM86, Isa::Sm86)] {
        let mut n = 0usize;
        for code in block_inputs(isa) {
            // Misaligned starts, and sm50 starts inside a bundle.
            for base in [0u64, 8, 16, 24, 4, 0x1000] {
                n += block_matches(p, &code, base);
            }
            // A start that leaves a partial instruction at the end.
            n += block_matches(p, &code[..code.len().saturating_sub(3)], 0);
        }
        eprintln!("{isa} ({}): {n} instructions", p.unit());
        assert!(n > 10_000);
    }
}

/// Nodes visited below the root per corpus and fuzz word, and the most common paths (window
/// lowest bit, width): `cargo test --release -p isabridge-decoder --test nvidia_tree -- --ignored --nocapture tree_stats`.
#[test]
#[ignore = "statistics"]
fn tree_stats() {
    for (p, arch) in [(&SM50_INSN, "sm50"), (&SM86, "sm86")] {
        let ws = words(arch, p.size);
        let mut hist = std::collections::BTreeMap::new();
        let mut depth = std::collections::BTreeMap::new();
        for &w in &ws {
            let nodes = p.tree.nodes;
            // A header: window lowest bit (bit 6: high half) and width << 7.
            let window = |h: u16| {
                let x = if h & 64 == 0 { w as u64 } else { (w >> 64) as u64 };
                ((x >> (h & 63)) as u32 & isabridge_decoder::nvidia::tree::mask(u32::from(h))) as usize
            };
            let mut r = nodes[1 + window(nodes[0])];
            let mut path = Vec::new();
            while r & isabridge_decoder::nvidia::tree::LEAF == 0 {
                let h = nodes[r as usize];
                path.push((h & 127, h >> 7 & 15));
                r = nodes[r as usize + 1 + window(h)];
            }
            *depth.entry(path.len()).or_insert(0) += 1;
            *hist.entry(path).or_insert(0) += 1;
        }
        eprintln!("{arch} depth {depth:?}");
        let mut v: Vec<_> = hist.into_iter().collect();
        v.sort_by_key(|x| std::cmp::Reverse(x.1));
        for (k, n) in v.iter().take(15) {
            eprintln!("  {n} {k:?}");
        }
    }
}
