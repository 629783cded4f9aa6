//! Mutated AMD words against llvm-objdump-22: what LLVM rejects we reject, what it decodes we
//! decode to the same text.
//!
//! The sets (fixtures/amd/mutated/<cpu>.tsv) are corpus instructions and probe words with bits
//! flipped or fields set at random, each with llvm-objdump-22's text, written by
//! tools/amdspec/mutate.py; this test needs no LLVM. Each word is decoded with `s_nop 0` dwords
//! after it, as llvm-objdump-22 saw it. Counted per set:
//!
//! - false accepts: LLVM prints `.long`, we decode an instruction (goal: at most 0.1 % of the
//!   words LLVM rejects, none among the mutated probe words; none today, pinned);
//! - false rejects: LLVM decodes, we do not;
//! - length and text differences where both decode (pinned).

use isabridge_decoder::{Decoded, Isa};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2).map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap()).collect()
}

/// `s_nop 0`, the padding after every mutated word in the reference objects.
const NOP: [u8; 4] = [0x00, 0x00, 0x80, 0xbf];

/// Counts of one set.
#[derive(Default, Debug)]
struct Counts {
    words: usize,
    rejected: usize,
    false_accept: usize,
    false_accept_probe: usize,
    false_reject: usize,
    /// Both decode, lengths differ.
    length: usize,
    /// Text differences where both decode, per category.
    text: BTreeMap<String, usize>,
    /// `decode` and `decode_block` disagree.
    block: usize,
}

fn measure(isa: Isa) -> Counts {
    let path = root().join(format!("fixtures/amd/mutated/{isa}.tsv"));
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let p = isa.plugin();
    let verbose = std::env::var_os("ISABRIDGE_REJECT_VERBOSE").is_some();
    let mut c = Counts::default();
    let mut s = String::new();
    let mut block: Vec<Decoded> = Vec::new();
    for line in src.lines().filter(|l| !l.starts_with('#')) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (hex, origin, len, want) = (cols[0], cols[1], cols[2].parse::<usize>().unwrap(), cols[3]);
        let mut bytes = unhex(hex);
        for _ in 0..8 {
            bytes.extend_from_slice(&NOP);
        }
        c.words += 1;
        let rejected = want.starts_with(".long");
        c.rejected += rejected as usize;
        let got = p.decode(&bytes, 0);
        block.clear();
        p.decode_block(&bytes, 0, &mut block);
        if block.first().copied() != got.as_ref().ok().copied() {
            c.block += 1;
            if verbose {
                eprintln!("block {isa} {hex}: decode {got:?} decode_block {:?}", block.first());
            }
        }
        match (got, rejected) {
            (Err(_), true) => {}
            (Ok(d), true) => {
                c.false_accept += 1;
                c.false_accept_probe += (origin == "probe") as usize;
                if verbose {
                    s.clear();
                    p.print(&d, 0, &mut s);
                    eprintln!("false-accept {isa} {origin} {hex} {} {s}", p.encoding_name(&d));
                }
            }
            (Err(e), false) => {
                c.false_reject += 1;
                if verbose {
                    eprintln!("false-reject {isa} {origin} {hex} want {want:?}: {e}");
                }
            }
            (Ok(d), false) => {
                if d.len as usize != len {
                    c.length += 1;
                }
                s.clear();
                p.print(&d, 0, &mut s);
                if s != want {
                    let mn = want.split(' ').next().unwrap_or("");
                    *c.text.entry(format!("{} {mn}", p.encoding_name(&d))).or_default() += 1;
                    if verbose {
                        eprintln!("text {isa} {origin} {hex} want {want:?} got {s:?}");
                    }
                }
            }
        }
    }
    if verbose {
        eprintln!("== {isa} mutated: {c:#?}");
    }
    c
}

/// Pinned counts of one set (what `measure` finds today; the goal is at most 0.1 % of the
/// rejected words for false accepts and none among the mutated probe words).
struct Pinned {
    false_accept: usize,
    length: usize,
    text: usize,
}

fn check(isa: Isa, pin: Pinned) {
    let c = measure(isa);
    let diffs: usize = c.text.values().sum();
    eprintln!(
        "{isa}: {} words, {} rejected by LLVM; false accepts {} ({:.2} % of rejected; {} of mutated probe words), \
         false rejects {}, length differences {}, text differences {}",
        c.words,
        c.rejected,
        c.false_accept,
        100.0 * c.false_accept as f64 / c.rejected.max(1) as f64,
        c.false_accept_probe,
        c.false_reject,
        c.length,
        diffs
    );
    assert!(c.words > 10_000, "{isa}: set too small");
    assert_eq!(c.block, 0, "{isa}: decode and decode_block disagree");
    // Never more than pinned; lower the pins when a change brings a count down.
    assert!(c.false_accept <= pin.false_accept, "{isa}: false accepts {} > {}", c.false_accept, pin.false_accept);
    assert_eq!(c.false_accept_probe, 0, "{isa}: probe false accepts");
    // Every word LLVM decodes, we decode.
    assert_eq!(c.false_reject, 0, "{isa}: false rejects");
    assert_eq!(c.length, pin.length, "{isa}: lengths differ");
    assert_eq!(diffs, pin.text, "{isa}: text differences {:?}", c.text);
}

#[test]
fn gfx1013_rejects_what_llvm_rejects() {
    // Before amd/reject.rs: 4,165 false accepts of 8,760 rejected words (2,749 probe).
    check(Isa::Gfx1013, Pinned { false_accept: 0, length: 0, text: 5 });
}

#[test]
fn gfx1201_rejects_what_llvm_rejects() {
    // Before amd/reject.rs: 4,898 false accepts of 9,981 rejected words (3,756 probe).
    check(Isa::Gfx1201, Pinned { false_accept: 0, length: 0, text: 10 });
}
