//! Our text and encodings against LLVM 22 on the committed AMD corpus and probe sets.
//!
//! The reference listings were written by llvm-objdump-22 / llvm-mc-22 (tools/build_amd_corpus.sh,
//! tools/amdspec/probe.py); this test needs no LLVM. Every disagreement falls into a named
//! category whose count is pinned here and listed in isa-specs/README.md.

use isabridge_decoder::{Decoded, Isa, IsaPlugin};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2).map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap()).collect()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Mismatches per category, with a few examples each.
#[derive(Default)]
struct Report {
    total: usize,
    cats: BTreeMap<String, (usize, Vec<String>)>,
}

impl Report {
    fn add(&mut self, cat: String, example: String) {
        let e = self.cats.entry(cat).or_default();
        e.0 += 1;
        if e.1.len() < 4 || std::env::var_os("ISABRIDGE_REPORT_ALL").is_some() {
            e.1.push(example);
        }
    }

    fn counts(&self) -> BTreeMap<String, usize> {
        self.cats.iter().map(|(k, v)| (k.clone(), v.0)).collect()
    }

    fn print(&self, what: &str) {
        let bad: usize = self.cats.values().map(|v| v.0).sum();
        eprintln!("== {what}: {} checked, {} differ", self.total, bad);
        for (k, (n, ex)) in &self.cats {
            eprintln!("  {k}: {n}");
            for e in ex {
                eprintln!("      {e}");
            }
        }
    }
}

fn decode(p: &dyn IsaPlugin, bytes: &[u8]) -> Result<Decoded, String> {
    p.decode(bytes, 0).map_err(|e| e.to_string())
}

/// Checks text against the reference; on a difference, the category is the encoding name.
fn check_text(p: &dyn IsaPlugin, r: &mut Report, bytes: &[u8], want: &str, kind: &str) {
    r.total += 1;
    match decode(p, bytes) {
        Err(e) => r.add(format!("{kind} decode-error"), format!("{} want {want:?}: {e}", hex(bytes))),
        Ok(d) => {
            // Probe lines may carry trailing bytes that llvm-mc decoded as a next instruction:
            // only the instruction's own bytes count (its canonical encoding shows its length).
            let mut s = String::new();
            p.print(&d, 0, &mut s);
            if s != want {
                r.add(format!("{kind} text {}", p.encoding_name(&d)), format!("{} want {want:?} got {s:?}", hex(bytes)));
            }
        }
    }
}

fn probe_report(isa: Isa) -> Option<(Report, Report)> {
    let path = root().join(format!("fixtures/amd/probe/{isa}.tsv"));
    let text = std::fs::read_to_string(path).ok()?;
    let p = isa.plugin();
    let mut tr = Report::default();
    let mut er = Report::default();
    for line in text.lines() {
        let mut it = line.split('\t');
        let (Some(input), Some(canon), Some(want)) = (it.next(), it.next(), it.next()) else { continue };
        let input = unhex(input);
        check_text(p, &mut tr, &input, want, "probe");
        er.total += 1;
        if let Ok(d) = decode(p, &input) {
            let enc = hex(&p.encode(&d));
            if enc != canon {
                er.add(format!("encode {}", p.encoding_name(&d)), format!("{} want {canon} got {enc} ({want})", hex(&input)));
            }
        }
    }
    Some((tr, er))
}

fn corpus_report(isa: Isa) -> Report {
    let dir = root().join("fixtures/amd/ref");
    let mut r = Report::default();
    let mut paths: Vec<_> = std::fs::read_dir(&dir).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    paths.sort();
    let tag = match isa {
        Isa::Gfx1013 => ".gfx1013",
        Isa::Gfx1201 => ".gfx1201",
        Isa::Sm50 | Isa::Sm86 => ".not-amd",
    };
    let p = isa.plugin();
    for path in paths {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !name.contains(tag) || !name.ends_with(".jsonl") {
            continue;
        }
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let bytes = unhex(v["bytes"].as_str().unwrap());
            let want = v["text"].as_str().unwrap();
            if want.starts_with(".long") {
                r.total += 1;
                if decode(p, &bytes).is_ok() {
                    r.add("corpus decodes-invalid".into(), format!("{} want {want:?}", hex(&bytes)));
                }
                continue;
            }
            check_text(p, &mut r, &bytes, want, "corpus");
            // Compiler output is already canonical: encode(decode(bytes)) gives the bytes back.
            if let Ok(d) = decode(p, &bytes) {
                let enc = p.encode(&d);
                if enc != bytes {
                    r.add(format!("corpus encode {}", p.encoding_name(&d)), format!("{} got {} ({want})", hex(&bytes), hex(&enc)));
                }
            }
        }
    }
    r
}

/// Pinned disagreement counts: (ISA, category, count). Each is explained in isa-specs/README.md.
const PINNED: &[(&str, &str, usize)] = &[
    ("gfx1013", "encode ENC_MIMG", 28),
    ("gfx1013", "encode ENC_VOP1", 1),
    ("gfx1013", "encode ENC_VOP1_SDWA", 1),
    ("gfx1013", "encode ENC_VOP2_SDWA", 1),
    ("gfx1013", "encode ENC_VOP3", 40),
    ("gfx1013", "encode ENC_VOP3P", 1),
    ("gfx1013", "encode ENC_VOPC", 8),
    ("gfx1013", "encode ENC_VOPC_SDWA", 6),
    ("gfx1201", "encode ENC_SOPC", 6),
    ("gfx1201", "encode ENC_VOP3", 33),
    // gfx1201: VOP3 / VOP3P DPP forms with a 16-bit literal: the line keeps the input's literal
    // dword (llvm-mc-22 re-encodes these forms without their literal), we write the 16 bits
    // LLVM prints; byte_sel of v_cvt_f32_fp8/bf8 and v_cvt_sr_*8 not modelled.
    ("gfx1201", "encode ENC_VOP3P_DPP16", 3),
    ("gfx1201", "encode ENC_VOP3_DPP16", 66),
    ("gfx1201", "encode ENC_VOP3_DPP8", 64),
];

fn pinned(isa: Isa, prefix: &str) -> BTreeMap<String, usize> {
    PINNED
        .iter()
        .filter(|(i, c, _)| *i == isa.name() && c.starts_with(prefix))
        .map(|(_, c, n)| (c.to_string(), *n))
        .collect()
}

fn run(isa: Isa) {
    let c = corpus_report(isa);
    c.print(&format!("{isa} corpus"));
    assert!(c.total > 1000, "{isa}: the corpus has only {} instructions", c.total);
    let (t, e) = probe_report(isa).unwrap_or_else(|| panic!("{isa}: probe set missing"));
    t.print(&format!("{isa} probe text"));
    e.print(&format!("{isa} probe encode"));
    assert!(t.total > 1000, "{isa}: the probe set has only {} lines", t.total);
    assert_eq!(c.counts(), pinned(isa, "corpus"), "{isa}: corpus disagreements changed");
    assert_eq!(t.counts(), pinned(isa, "probe"), "{isa}: probe text disagreements changed");
    assert_eq!(e.counts(), pinned(isa, "encode"), "{isa}: encode disagreements changed");
}

#[test]
fn gfx1013_matches_llvm() {
    run(Isa::Gfx1013);
}

#[test]
fn gfx1201_matches_llvm() {
    run(Isa::Gfx1201);
}
