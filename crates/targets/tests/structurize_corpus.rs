//! Every function the lifters produce from the fixtures corpora — gfx1013 wave32 and wave64
//! and gfx1201 (fixtures/amd/ref), the RDNA2 test programs (fixtures/rdna/vectors.jsonl) and
//! sm_86 (fixtures/nvidia/ref) — structures, both as lifted and after the IR pipeline; the
//! result passes the SPIR-V structure checker and runs the same block and edge sequence as the
//! function's graph under random branch decisions. Prints the counts.

mod common;

use common::structure_and_compare;
use isabridge_decoder::lift::{amd, sm86};
use isabridge_decoder::Isa;
use isabridge_ir::ir::Function;
use isabridge_ir::passes::run_pipeline;
use isabridge_targets::structurize::{Cfg, Stmt};
use std::path::PathBuf;

/// Lower bounds on the functions checked (lifted ones; each is checked as lifted and after the
/// pipeline).
const MIN_AMD: usize = 1159;
const MIN_RDNA: usize = 40;
const MIN_SM86: usize = 81;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Functions of the corpus listings whose file names end in `suffix`: (name, address, bytes).
fn corpus_functions(dir: &str, suffix: &str) -> Vec<(String, u64, Vec<u8>)> {
    let mut out: Vec<(String, u64, Vec<u8>)> = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(root().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    files.sort();
    for p in files {
        let stem = p.file_name().unwrap().to_string_lossy().to_string();
        for line in std::fs::read_to_string(&p).unwrap().lines() {
            let r: serde_json::Value = serde_json::from_str(line).unwrap();
            let name = format!("{stem}:{}", r["function"].as_str().unwrap());
            let off = r["offset"].as_u64().unwrap();
            let hex = r["bytes"].as_str().unwrap();
            let bytes: Vec<u8> = (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect();
            match out.last_mut() {
                Some((n, a, b)) if *n == name && *a + b.len() as u64 == off => b.extend(bytes),
                _ => out.push((name, off, bytes)),
            }
        }
    }
    out
}

/// The RDNA2 test programs' code words.
fn rdna_programs() -> Vec<(String, bool, Vec<u8>)> {
    let text = std::fs::read_to_string(root().join("fixtures/rdna/vectors.jsonl")).unwrap();
    let mut out = Vec::new();
    for line in text.lines() {
        let t: serde_json::Value = serde_json::from_str(line).unwrap();
        for (key, wave64) in [("wave32_code", false), ("wave64_code", true)] {
            let words: Vec<u32> = t[key]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_u64().or_else(|| x.as_str().and_then(|s| u64::from_str_radix(s.trim_start_matches("0x"), 16).ok())))
                        .map(|x| x as u32)
                        .collect()
                })
                .unwrap_or_default();
            if !words.is_empty() {
                out.push((t["name"].as_str().unwrap_or("?").to_string(), wave64, words.iter().flat_map(|w| w.to_le_bytes()).collect()));
            }
        }
    }
    out
}

#[derive(Default, Debug)]
struct Tally {
    functions: usize,
    blocks: usize,
    max_blocks: usize,
    loops: usize,
    dispatchers: u32,
    vars: u32,
}

fn loops(s: &[Stmt]) -> usize {
    s.iter()
        .map(|x| match x {
            Stmt::Loop(b) => 1 + loops(b),
            Stmt::If(_, a, b) => loops(a) + loops(b),
            _ => 0,
        })
        .sum()
}

/// Structure `f` as lifted and after the pipeline; panics with the function's name on failure.
fn check_function(name: &str, f: &Function, t: &mut Tally) {
    let mut o = f.clone();
    run_pipeline(&mut o).unwrap_or_else(|e| panic!("{name}: pipeline: {e}"));
    for (stage, g) in [("lifted", f), ("pipeline", &o)] {
        let cfg = Cfg::from_function(g).unwrap_or_else(|| panic!("{name}: no blocks"));
        let s = structure_and_compare(&cfg, 8, 2000).unwrap_or_else(|e| panic!("{name} ({stage}): {e}"));
        t.functions += 1;
        t.blocks += g.layout.len();
        t.max_blocks = t.max_blocks.max(g.layout.len());
        t.loops += loops(&s.body);
        t.dispatchers += s.dispatchers;
        t.vars += s.vars;
    }
}

#[test]
fn amd_corpus_functions_structure() {
    let mut t = Tally::default();
    let mut lifted = 0;
    for (target, isa, wave64) in [("gfx1013-w32", Isa::Gfx1013, false), ("gfx1013-w64", Isa::Gfx1013, true), ("gfx1201-w32", Isa::Gfx1201, false)] {
        for (name, addr, bytes) in corpus_functions("fixtures/amd/ref", &format!(".{target}.jsonl")) {
            let opts = amd::Options { wave64, user_sgprs: 16, vgpr_inputs: vec![amd::SystemValue::LocalIdX], ..amd::Options::default() };
            if let Ok(f) = amd::lift(isa, &bytes, addr, &opts) {
                lifted += 1;
                check_function(&name, &f, &mut t);
            }
        }
    }
    eprintln!("AMD corpus: {lifted} lifted functions structure as lifted and after the pipeline: {t:?}");
    assert!(lifted >= MIN_AMD, "{lifted} AMD corpus functions lift, {MIN_AMD} pinned");
}

#[test]
fn rdna_test_programs_structure() {
    let mut t = Tally::default();
    let mut lifted = 0;
    for (name, wave64, bytes) in rdna_programs() {
        let opts = amd::Options { wave64, user_sgprs: 8, vgpr_inputs: vec![amd::SystemValue::LocalIdX], ..amd::Options::default() };
        if let Ok(f) = amd::lift(Isa::Gfx1013, &bytes, 0, &opts) {
            lifted += 1;
            check_function(&name, &f, &mut t);
        }
    }
    eprintln!("RDNA2 test programs: {lifted} lifted programs structure as lifted and after the pipeline: {t:?}");
    assert!(lifted >= MIN_RDNA, "{lifted} RDNA2 programs lift, {MIN_RDNA} pinned");
}

#[test]
fn sm86_corpus_functions_structure() {
    let mut t = Tally::default();
    let mut lifted = 0;
    for (name, addr, bytes) in corpus_functions("fixtures/nvidia/ref", ".sm86.jsonl") {
        if let Ok(f) = sm86::lift(Isa::Sm86, &bytes, addr, &sm86::Options::default()) {
            lifted += 1;
            check_function(&name, &f, &mut t);
        }
    }
    eprintln!("sm_86 corpus: {lifted} lifted functions structure as lifted and after the pipeline: {t:?}");
    assert!(lifted >= MIN_SM86, "{lifted} sm_86 corpus functions lift, {MIN_SM86} pinned");
}
