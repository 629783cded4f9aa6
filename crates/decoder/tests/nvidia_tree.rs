//! The generated decode tree (crate::nvidia::tree) picks the same form as the reference
//! classifier, a scan of every candidate of the opcode key sorted most specific mask first
//! (`NvTables::classify`), on every corpus and fuzz word, on those words with bits flipped, and
//! on random words.

use isabridge_decoder::nvidia::NvPlugin;
use isabridge_decoder::sm50::SM50_INSN;
use isabridge_decoder::sm86::SM86;
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
