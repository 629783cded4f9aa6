//! Mutated NVIDIA words against nvdisasm 12.8: what nvdisasm refuses we refuse, what it prints
//! we print the same.
//!
//! The sets (fixtures/nvidia/mutated/sm50.tsv, sm86.tsv) are the distinct corpus instructions
//! with one to three bits flipped (sm50: instruction bits and the slot's control bits), each
//! with nvdisasm 12.8's text or its refusal, written by `tools/nvspec/mutated.py`; this test
//! needs no CUDA. Each word is decoded at the address nvdisasm disassembled it at (sm50: in its
//! slot, with its bundle's control word). Counted per set:
//!
//! - equal: nvdisasm prints the word and we print the same text, or it refuses the word and
//!   so do we (goal: at least 99.9 % of the words);
//! - text differences: both print, the texts differ (category: nvdisasm's base mnemonic);
//! - false accepts: nvdisasm refuses the word, we print it (category: our base mnemonic);
//! - false rejects: nvdisasm prints the word, we refuse it (category: nvdisasm's mnemonic).
//!
//! `cargo test --release -p isabridge-decoder --test nvidia_mutated -- --ignored --nocapture`
//! lists the categories with examples (`ISABRIDGE_REPORT_ALL=1`: every example).

use isabridge_decoder::nvidia::control::sm86_reuse;
use isabridge_decoder::nvidia::NvPlugin;
use isabridge_decoder::sm50::{SM50, SM50_INSN};
use isabridge_decoder::sm86::SM86;
use isabridge_decoder::{Decoded, IsaPlugin};
use std::collections::BTreeMap;

mod common;

/// Counts of one set, with up to three examples per category.
#[derive(Default)]
struct Counts {
    words: usize,
    refused: usize,
    equal: usize,
    text: BTreeMap<String, (usize, Vec<String>)>,
    false_accept: BTreeMap<String, (usize, Vec<String>)>,
    false_reject: BTreeMap<String, (usize, Vec<String>)>,
}

fn add(m: &mut BTreeMap<String, (usize, Vec<String>)>, cat: String, example: String) {
    let e = m.entry(cat).or_default();
    e.0 += 1;
    if e.1.len() < 3 || std::env::var_os("ISABRIDGE_REPORT_ALL").is_some() {
        e.1.push(example);
    }
}

fn total(m: &BTreeMap<String, (usize, Vec<String>)>) -> usize {
    m.values().map(|v| v.0).sum()
}

/// The base mnemonic of a text (guard and suffixes left out).
fn base(text: &str) -> String {
    let t = if text.starts_with('@') { text.split_once(' ').map_or("", |x| x.1) } else { text };
    t.split([' ', '.']).next().unwrap_or("").to_string()
}

/// The word decoded as nvdisasm saw it, and the reuse flags its printer takes.
fn decode(arch: &str, w: &common::MutatedWord) -> (&'static NvPlugin, Result<Decoded, String>, u8) {
    if arch == "sm50" {
        let slot = (w.addr % 32 / 8) as usize - 1;
        let d = SM50.decode_slot(w.hi, w.lo, slot, w.addr).map_err(|e| e.to_string());
        let reuse = d.as_ref().ok().and_then(|d| SM50.control(d)).map_or(0, |c| c.reuse);
        (&SM50_INSN, d, reuse)
    } else {
        let x = w.lo as u128 | (w.hi as u128) << 64;
        (&SM86, SM86.decode(&x.to_le_bytes(), w.addr).map_err(|e| e.to_string()), sm86_reuse(x))
    }
}

fn measure(arch: &str) -> Counts {
    let mut c = Counts::default();
    let mut s = String::new();
    for w in common::mutated_words(arch) {
        c.words += 1;
        c.refused += !w.ok as usize;
        let (p, d, reuse) = decode(arch, &w);
        let what = format!("{:#x} {:#018x} {:#018x} flips {}", w.addr, w.lo, w.hi, w.flips);
        match (d, w.ok) {
            (Err(_), false) => c.equal += 1,
            (Err(e), true) => add(&mut c.false_reject, base(&w.text), format!("{what}: want {:?}: {e}", w.text)),
            (Ok(d), ok) => {
                s.clear();
                p.print_with(&d, w.addr, reuse, &mut s);
                if !ok {
                    add(&mut c.false_accept, base(&s), format!("{what}: {} {s:?} ({})", p.encoding_name(&d), w.text));
                } else if s == w.text {
                    c.equal += 1;
                } else {
                    add(&mut c.text, base(&w.text), format!("{what}: {} want {:?} got {s:?}", p.encoding_name(&d), w.text));
                }
            }
        }
    }
    c
}

fn print_cats(what: &str, m: &BTreeMap<String, (usize, Vec<String>)>) {
    eprintln!("  {what}: {}", total(m));
    let mut v: Vec<_> = m.iter().collect();
    v.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.0.cmp(b.0)));
    for (k, (n, ex)) in v {
        eprintln!("    {k}: {n}");
        for e in ex {
            eprintln!("        {e}");
        }
    }
}

fn summary(arch: &str, c: &Counts) -> String {
    format!(
        "{arch} mutated: {} words ({} refused by nvdisasm), {} equal ({:.3} %), text differences {}, \
         false accepts {}, false rejects {}",
        c.words,
        c.refused,
        c.equal,
        100.0 * c.equal as f64 / c.words.max(1) as f64,
        total(&c.text),
        total(&c.false_accept),
        total(&c.false_reject)
    )
}

#[test]
#[ignore = "report only: cargo test --release -p isabridge-decoder --test nvidia_mutated -- --ignored --nocapture"]
fn report() {
    for arch in ["sm50", "sm86"] {
        let c = measure(arch);
        eprintln!("== {}", summary(arch, &c));
        print_cats("text differences", &c.text);
        print_cats("false accepts", &c.false_accept);
        print_cats("false rejects", &c.false_reject);
        let pin = |m: &BTreeMap<String, (usize, Vec<String>)>| {
            m.iter().map(|(k, v)| format!("({k:?}, {})", v.0)).collect::<Vec<_>>().join(", ")
        };
        eprintln!(
            "  pin: Pinned {{ text: &[{}], false_accept: &[{}], false_reject: &[{}], goal: .. }}",
            pin(&c.text),
            pin(&c.false_accept),
            pin(&c.false_reject)
        );
    }
}

/// Pinned counts of one set: (text differences, false accepts, false rejects) per category;
/// `goal`: the set is at 99.9 % equal or more (asserted from then on).
struct Pinned {
    text: &'static [(&'static str, usize)],
    false_accept: &'static [(&'static str, usize)],
    false_reject: &'static [(&'static str, usize)],
    goal: bool,
}

fn check(arch: &str, pin: Pinned) {
    let c = measure(arch);
    eprintln!("{}", summary(arch, &c));
    assert!(c.words > 10_000 && c.refused > 1_000, "{arch}: set too small");
    for (what, got, want) in [
        ("text differences", &c.text, pin.text),
        ("false accepts", &c.false_accept, pin.false_accept),
        ("false rejects", &c.false_reject, pin.false_reject),
    ] {
        let got: Vec<(&str, usize)> = got.iter().map(|(k, v)| (k.as_str(), v.0)).collect();
        assert_eq!(got, want, "{arch}: {what} per category");
    }
    if pin.goal {
        assert!(c.equal * 1000 >= c.words * 999, "{arch}: {} of {} equal, below 99.9 %", c.equal, c.words);
    }
}

#[test]
fn sm50_mutated_words_equal_nvdisasm() {
    check(
        "sm50",
        Pinned {
            text: &[],
            false_accept: &[("SUATOM", 1)],
            false_reject: &[],
            goal: true,
        },
    );
}

#[test]
fn sm86_mutated_words_equal_nvdisasm() {
    check(
        "sm86",
        Pinned {
            text: &[],
            false_accept: &[],
            false_reject: &[],
            goal: true,
        },
    );
}
