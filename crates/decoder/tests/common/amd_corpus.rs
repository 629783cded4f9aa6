//! The AMD reference instructions the operand-model tests walk: every instruction of the
//! committed corpus listings (fixtures/amd/ref) and every probe word (fixtures/amd/probe), with
//! the reference text.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Bytes of a hex string.
pub fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2).map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap()).collect()
}

/// One reference instruction.
pub struct Case {
    /// "corpus" or "probe".
    pub set: &'static str,
    /// Address (corpus: offset in its section; probe: 0).
    pub addr: u64,
    /// Instruction bytes.
    pub bytes: Vec<u8>,
    /// llvm-objdump-22's text.
    pub text: String,
}

/// Every corpus instruction of `isa` ("gfx1013" or "gfx1201").
pub fn corpus(isa: &str) -> Vec<Case> {
    let dir = root().join("fixtures/amd/ref");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
    files.sort();
    let mut out = Vec::new();
    for f in files.iter().filter(|f| f.to_string_lossy().contains(&format!(".{isa}-"))) {
        for line in std::fs::read_to_string(f).unwrap().lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            out.push(Case {
                set: "corpus",
                addr: v["offset"].as_u64().unwrap(),
                bytes: unhex(v["bytes"].as_str().unwrap()),
                text: v["text"].as_str().unwrap().to_string(),
            });
        }
    }
    out
}

/// Every probe word of `isa` (input bytes and reference text).
pub fn probe(isa: &str) -> Vec<Case> {
    let path = root().join(format!("fixtures/amd/probe/{isa}.tsv"));
    let mut out = Vec::new();
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() < 3 {
            continue;
        }
        out.push(Case { set: "probe", addr: 0, bytes: unhex(cols[0]), text: cols[2].to_string() });
    }
    out
}
