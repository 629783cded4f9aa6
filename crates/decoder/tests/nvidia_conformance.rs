//! Our text against nvdisasm 12.8 on the committed NVIDIA corpus (fixtures/nvidia/ref) and fuzz
//! sets (fixtures/nvidia/fuzz); encode(decode(w)) == w outside don't-care bits. The listings were
//! written by nvdisasm (tools/build_nvidia_corpus.sh, tools/nvspec); this test needs no CUDA.
//! Every disagreement falls into a named category whose count is pinned in `PINNED` and
//! explained in isa-specs/nvidia/README.md.

use isabridge_decoder::nvidia::NvPlugin;
use isabridge_decoder::sm50::{SM50, SM50_INSN};
use isabridge_decoder::sm86::SM86;
use isabridge_decoder::{Decoded, IsaPlugin};
use std::collections::BTreeMap;

mod common;

use common::{root, unhex};

/// Mismatches per category, with examples.
#[derive(Default)]
struct Report {
    total: usize,
    cats: BTreeMap<String, (usize, Vec<String>)>,
}

impl Report {
    fn add(&mut self, cat: String, example: String) {
        let e = self.cats.entry(cat).or_default();
        e.0 += 1;
        if e.1.len() < 3 || std::env::var_os("ISABRIDGE_REPORT_ALL").is_some() {
            e.1.push(example);
        }
    }
    fn bad(&self) -> usize {
        self.cats.values().map(|v| v.0).sum()
    }
    fn print(&self, what: &str) {
        let bad = self.bad();
        eprintln!(
            "== {what}: {} checked, {} agree ({:.3} %), {} differ",
            self.total,
            self.total - bad,
            100.0 * (self.total - bad) as f64 / self.total.max(1) as f64,
            bad
        );
        let mut v: Vec<_> = self.cats.iter().collect();
        v.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.0.cmp(b.0)));
        for (k, (n, ex)) in v {
            eprintln!("  {k}: {n}");
            for e in ex {
                eprintln!("      {e}");
            }
        }
    }
}

/// The category of a disagreement: the base mnemonic of nvdisasm's text.
fn category(want: &str) -> String {
    let t = want.trim_start_matches(|c| c != ' ' && want.starts_with('@'));
    let t = t.trim_start();
    let m = t.split([' ', '.']).next().unwrap_or("");
    m.to_string()
}

/// nvdisasm pads the sm86 `?PM<n>` tag (bits 102-103) to a column set by the longest text of
/// the listing the word was disassembled in (a listing artefact, not a function of the word);
/// alone, the word prints the tag after one space.
fn unpad_pm(want: &str) -> std::borrow::Cow<'_, str> {
    match want.rfind(" ?PM") {
        Some(i) if want.len() - i == 5 => format!("{} {}", want[..i].trim_end(), &want[i + 1..]).into(),
        _ => want.into(),
    }
}

/// nvdisasm pads a `???<n>` operand (a value it has no name for) to a column that depends on
/// the listing (measured on nvdisasm 12.8: `BMOV.32 ???52, R22` alone, 29 spaces before `???52`
/// beside a longer instruction), so the run of spaces before it is compared as one space.
fn unpad_placeholder(want: &str) -> std::borrow::Cow<'_, str> {
    if !want.contains("  ???") {
        return want.into();
    }
    let mut s = String::with_capacity(want.len());
    for (i, part) in want.split("???").enumerate() {
        if i > 0 {
            while s.ends_with("  ") {
                s.pop();
            }
            s.push_str("???");
        }
        s.push_str(part);
    }
    s.into()
}

fn check(p: &NvPlugin, r: &mut Report, d: Result<Decoded, String>, reuse: u8, addr: u64, want: &str, what: &str) {
    r.total += 1;
    let want = &*unpad_pm(want);
    let want = &*unpad_placeholder(want);
    match d {
        Err(e) => r.add(format!("{} decode-error", category(want)), format!("{what} want {want:?}: {e}")),
        Ok(d) => {
            let mut s = String::new();
            p.print_with(&d, addr, reuse, &mut s);
            if s != want {
                r.add(category(want), format!("{what} {} want {want:?} got {s:?}", p.encoding_name(&d)));
            }
        }
    }
}

fn json_str<'a>(v: &'a serde_json::Value, k: &str) -> &'a str {
    v[k].as_str().unwrap_or("")
}

/// Corpus report for "sm50" or "sm86".
fn corpus(arch: &str) -> Report {
    let mut r = Report::default();
    for v in common::ref_records(arch) {
        let bytes = unhex(json_str(&v, "bytes"));
        let off = v["offset"].as_u64().unwrap();
        let want = json_str(&v, "text");
        let what = format!("{}+{off:#x} {}", json_str(&v, "section"), json_str(&v, "bytes"));
        if arch == "sm50" {
            let ctrl = u64::from_str_radix(json_str(&v, "ctrl"), 16).unwrap();
            let inst = u64::from_le_bytes(bytes[..8].try_into().unwrap());
            let slot = (off % 32 / 8) as usize - 1;
            let d = SM50.decode_slot(inst, ctrl, slot, off).map_err(|e| e.to_string());
            let reuse = d.as_ref().ok().and_then(|d| SM50.control(d)).map(|c| c.reuse).unwrap_or(0);
            check(&SM50_INSN, &mut r, d, reuse, off, want, &what);
        } else {
            let d = SM86.decode(&bytes, off).map_err(|e| e.to_string());
            let reuse = isabridge_decoder::nvidia::control::sm86_reuse(u128::from_le_bytes(bytes[..16].try_into().unwrap()));
            check(&SM86, &mut r, d, reuse, off, want, &what);
        }
    }
    r
}

/// Fuzz-set report.
fn fuzz(arch: &str) -> Report {
    fuzz_file(arch, arch)
}

/// Report over fixtures/nvidia/fuzz/`file`.tsv (`sm50_random`: uniformly random words nvdisasm
/// accepts, written by tools/nvspec/random_words.py, not drawn from the spec's forms).
fn fuzz_file(arch: &str, file: &str) -> Report {
    tsv_report(arch, &format!("fuzz/{file}.tsv"))
}

/// Report over fixtures/nvidia/`rel`, a listing in the fuzz-set format.
fn tsv_report(arch: &str, rel: &str) -> Report {
    tsv_path_report(arch, &root().join("fixtures/nvidia").join(rel))
}

/// Report over the listing at `path` in the fuzz-set format (`0x<control> 0x<word>` for sm50,
/// `0x<low> 0x<high>` for sm86, TAB, nvdisasm's text).
fn tsv_path_report(arch: &str, path: &std::path::Path) -> Report {
    let mut r = Report::default();
    let text = std::fs::read_to_string(path).unwrap();
    for line in text.lines() {
        let (ws, want) = line.split_once('\t').unwrap();
        let (a, b) = ws.split_once(' ').unwrap();
        let a = u64::from_str_radix(a.trim_start_matches("0x"), 16).unwrap();
        let b = u64::from_str_radix(b.trim_start_matches("0x"), 16).unwrap();
        let what = ws.to_string();
        if arch == "sm50" {
            let d = SM50.decode_slot(b, a, 0, 8).map_err(|e| e.to_string());
            let reuse = d.as_ref().ok().and_then(|d| SM50.control(d)).map(|c| c.reuse).unwrap_or(0);
            check(&SM50_INSN, &mut r, d, reuse, 8, want, &what);
        } else {
            let w = (a as u128) | (b as u128) << 64;
            let d = SM86.decode(&w.to_le_bytes(), 0).map_err(|e| e.to_string());
            check(&SM86, &mut r, d, isabridge_decoder::nvidia::control::sm86_reuse(w), 0, want, &what);
        }
    }
    r
}

/// Hand-listed words (fixtures/nvidia/extra, made by `python3 -m nvspec.extra_words`: the
/// disagreements found on large generated cubins and the probes behind their rules) agree with
/// nvdisasm 12.8 on every word.
#[test]
fn extra_words_agree() {
    for arch in ["sm50", "sm86"] {
        let r = tsv_report(arch, &format!("extra/{arch}_words.tsv"));
        r.print(&format!("{arch} extra"));
        assert!(r.total > 0 && r.bad() == 0, "{arch} extra: {} of {} differ", r.bad(), r.total);
    }
}

#[test]
#[ignore = "report only: cargo test --release --test nvidia_conformance -- --ignored --nocapture"]
fn report_all() {
    for arch in ["sm50", "sm86"] {
        corpus(arch).print(&format!("{arch} corpus"));
        fuzz(arch).print(&format!("{arch} fuzz"));
    }
    fuzz_file("sm50", "sm50_random").print("sm50 random");
    for arch in ["sm50", "sm86"] {
        tsv_report(arch, &format!("extra/{arch}_words.tsv")).print(&format!("{arch} extra"));
    }
}

/// Report over any listing in the fuzz-set format, named by `ISABRIDGE_SM86_TSV` or
/// `ISABRIDGE_SM50_TSV` (used to check a rule or new forms on words generated and disassembled by
/// nvdisasm 12.8, tools/nvspec).
#[test]
#[ignore = "probe only: ISABRIDGE_SM86_TSV=file cargo test --release --test nvidia_conformance -- --ignored --nocapture report_tsv"]
fn report_tsv() {
    for (var, arch) in [("ISABRIDGE_SM50_TSV", "sm50"), ("ISABRIDGE_SM86_TSV", "sm86")] {
        if let Some(path) = std::env::var_os(var) {
            tsv_path_report(arch, std::path::Path::new(&path)).print(&format!("{arch} tsv"));
        }
    }
}

/// encode(decode(w)) == w outside the don't-care bits, and the canonical word (don't-care bits
/// zero) decodes to the same form and prints the same text. Returns (checked, failures).
fn roundtrip(arch: &str) -> (usize, Vec<String>) {
    let mut words: Vec<(u128, u64)> = Vec::new(); // (instruction, addr)
    for v in common::ref_records(arch) {
        let b = unhex(json_str(&v, "bytes"));
        let mut w = 0u128;
        for (i, x) in b.iter().enumerate() {
            w |= (*x as u128) << (8 * i);
        }
        words.push((w, v["offset"].as_u64().unwrap()));
    }
    let mut text = std::fs::read_to_string(root().join(format!("fixtures/nvidia/fuzz/{arch}.tsv"))).unwrap();
    if arch == "sm50" {
        text.push_str(&std::fs::read_to_string(root().join("fixtures/nvidia/fuzz/sm50_random.tsv")).unwrap());
    }
    for line in text.lines() {
        let (ws, _) = line.split_once('\t').unwrap();
        let (a, b) = ws.split_once(' ').unwrap();
        let a = u64::from_str_radix(a.trim_start_matches("0x"), 16).unwrap();
        let b = u64::from_str_radix(b.trim_start_matches("0x"), 16).unwrap();
        words.push(if arch == "sm50" { (b as u128, 8) } else { ((a as u128) | (b as u128) << 64, 0) });
    }
    let p: &NvPlugin = if arch == "sm50" { &SM50_INSN } else { &SM86 };
    let size = p.size;
    let mut bad = Vec::new();
    let mut n = 0;
    for (w, addr) in words {
        let Ok(d) = p.decode(&w.to_le_bytes()[..size], addr) else { continue };
        n += 1;
        let enc = p.encode(&d);
        let mut e = 0u128;
        for (i, x) in enc.iter().enumerate() {
            e |= (*x as u128) << (8 * i);
        }
        let dc = p.dont_care(&d);
        if e & !dc != w & !dc || e & dc != 0 {
            bad.push(format!("{w:#x}: encoded {e:#x}"));
            continue;
        }
        let d2 = p.decode(&enc, addr).map_err(|e| e.to_string());
        let (mut s1, mut s2) = (String::new(), String::new());
        p.print_with(&d, addr, 0, &mut s1);
        match d2 {
            Ok(d2) if d2.enc == d.enc => {
                p.print_with(&d2, addr, 0, &mut s2);
                if s1 != s2 {
                    bad.push(format!("{w:#x}: text {s1:?} -> {s2:?} after encode"));
                }
            }
            other => bad.push(format!("{w:#x}: canonical word decodes differently: {other:?}")),
        }
    }
    (n, bad)
}

#[test]
fn encode_decode_roundtrip_sm50() {
    let (n, bad) = roundtrip("sm50");
    assert!(n > 10_000, "{n} words checked");
    assert!(bad.is_empty(), "{} of {n} fail, e.g. {:?}", bad.len(), &bad[..bad.len().min(5)]);
}

#[test]
fn encode_decode_roundtrip_sm86() {
    let (n, bad) = roundtrip("sm86");
    assert!(n > 10_000, "{n} words checked");
    assert!(bad.is_empty(), "{} of {n} fail, e.g. {:?}", bad.len(), &bad[..bad.len().min(5)]);
}

/// The checked-in copies of the generated tables equal what build.rs generates now.
#[test]
fn generated_nvidia_tables_are_current() {
    for (now, checked_in, name) in [
        (include_str!(concat!(env!("OUT_DIR"), "/sm50.rs")), include_str!("../src/generated/sm50.rs"), "sm50"),
        (include_str!(concat!(env!("OUT_DIR"), "/sm86.rs")), include_str!("../src/generated/sm86.rs"), "sm86"),
    ] {
        assert!(now.starts_with("// @generated") && now.contains("DO NOT EDIT"));
        assert!(now == checked_in, "src/generated/{name}.rs is stale: run ISABRIDGE_UPDATE_GENERATED=1 cargo build -p isabridge-decoder");
    }
}

/// Final counts: (report, checked, differing, of which "no form in the spec" decode errors).
/// Categories (by mnemonic) are listed with examples by `report_all` and explained in
/// isa-specs/nvidia/README.md ("Decoder agreement"). A change in any count fails here: improve
/// the printer, then update the pin.
const PINNED: &[(&str, usize, usize, usize)] = &[
    ("sm50 corpus", 7050, 0, 0),
    ("sm50 fuzz", 19515, 0, 0),
    ("sm50 random", 16353, 0, 0),
    ("sm86 corpus", 7296, 0, 0),
    ("sm86 fuzz", 10511, 0, 0),
];

#[test]
fn pinned_disagreements() {
    for &(what, checked, differ, no_form) in PINNED {
        let (arch, set) = what.split_once(' ').unwrap();
        let r = match set {
            "corpus" => corpus(arch),
            "random" => fuzz_file(arch, &format!("{arch}_random")),
            _ => fuzz(arch),
        };
        let errs: usize = r.cats.iter().filter(|(k, _)| k.ends_with("decode-error")).map(|(_, v)| v.0).sum();
        assert_eq!((r.total, r.bad(), errs), (checked, differ, no_form), "{what}: (checked, differ, no-form)");
    }
}

/// One pass of `IsaPlugin::decode` (one call per instruction, a `Result` each) over `buf`;
/// returns the checksum of what it decoded (see `sum`) and the number of instructions.
#[inline(never)]
fn pass_decode(p: &NvPlugin, buf: &[u8]) -> (u64, usize) {
    let (mut sum, mut n) = (0u64, 0usize);
    for c in buf.chunks_exact(p.size) {
        if let Ok(d) = p.decode(c, 0) {
            sum = mix(sum, &d);
            n += 1;
        }
    }
    (sum, n)
}

/// Bytes of code per `decode_block` call, as the disassembler batches them (disasm.rs
/// `BATCH_BYTES`).
const BATCH: usize = 4 << 10;

/// One pass of `IsaPlugin::decode_block` (the batch path) over `buf` in 4 KiB batches: each
/// batch's instructions are appended to `out` (emptied first, its capacity kept), then folded
/// into the checksum; an undecodable word is stepped over.
#[inline(never)]
fn pass_block(p: &NvPlugin, buf: &[u8], out: &mut Vec<Decoded>) -> (u64, usize) {
    let (mut sum, mut n) = (0u64, 0usize);
    let mut off = 0usize;
    while off < buf.len() {
        out.clear();
        let end = buf.len().min(off + BATCH);
        off += p.decode_block(&buf[off..end], off as u64, out);
        sum = out.iter().fold(sum, mix);
        n += out.len();
        if off < end {
            off += p.size; // stopped before a word that does not decode
        }
    }
    (sum, n)
}

/// Checksum step: the form, instruction, length and first word of a decoded instruction.
#[inline(always)]
fn mix(sum: u64, d: &Decoded) -> u64 {
    let x = d.enc as u64 | (d.ienc as u64) << 16 | (d.len as u64) << 32 | (d.words[0] as u64) << 40;
    sum.rotate_left(5) ^ x
}

/// Decode speed on one core: every corpus instruction (fixtures/nvidia/ref; sm50: the 64-bit
/// instruction words without control words, `SM50_INSN`) decoded into a `Decoded` (form,
/// instruction, length, words) 200 times per path (`decode_block`: in 4 KiB batches, as the
/// disassembler calls it; `decode`: one call per instruction), then decoded and printed once.
/// Both paths must give the same checksum. The decode+print figure is one pass of `decode` and
/// `print`. Run with
/// `cargo test --release -p isabridge-decoder --test nvidia_conformance -- --ignored --nocapture decode_speed`.
#[test]
#[ignore = "benchmark: prints instructions per second"]
fn decode_speed() {
    // ISABRIDGE_ARCH=sm50 or sm86: that one only; ISABRIDGE_REPS: passes (200).
    let only = std::env::var("ISABRIDGE_ARCH").ok().filter(|a| !a.is_empty());
    for arch in ["sm50", "sm86"].into_iter().filter(|a| only.as_deref().is_none_or(|o| o == *a)) {
        let p: &NvPlugin = if arch == "sm50" { &SM50_INSN } else { &SM86 };
        let mut buf: Vec<u8> = Vec::new();
        for v in common::ref_records(arch) {
            buf.extend_from_slice(&unhex(json_str(&v, "bytes"))[..p.size]);
        }
        let n = buf.len() / p.size;
        let reps: usize = std::env::var("ISABRIDGE_REPS").ok().and_then(|r| r.parse().ok()).unwrap_or(200);
        let mut out: Vec<Decoded> = Vec::with_capacity(n);
        let want = pass_decode(p, &buf);
        assert_eq!(want.1, n, "{arch}: every corpus instruction decodes");
        assert_eq!(pass_block(p, &buf, &mut out), want, "{arch}: decode_block gives what decode gives");
        for (path, block) in [("decode_block", true), ("decode", false)] {
            let t = std::time::Instant::now();
            for _ in 0..reps {
                let got = if block {
                    pass_block(p, std::hint::black_box(&buf), &mut out)
                } else {
                    pass_decode(p, std::hint::black_box(&buf))
                };
                assert_eq!(std::hint::black_box(got), want);
            }
            let s = t.elapsed().as_secs_f64();
            eprintln!("{arch}: {path} {:.1} M instructions/s ({n} instructions x {reps})", (n * reps) as f64 / s / 1e6);
        }
        let t = std::time::Instant::now();
        let mut text = String::new();
        for c in buf.chunks_exact(p.size) {
            if let Ok(d) = p.decode(c, 0) {
                text.clear();
                p.print(&d, 0, &mut text);
            }
        }
        let s = t.elapsed().as_secs_f64();
        eprintln!("{arch}: decode+print {:.2} M instructions/s", n as f64 / s / 1e6);
    }
}
