//! What the NVIDIA test binaries share: the repository root, hex parsing and the committed
//! nvdisasm reference listings (fixtures/nvidia/ref).
#![allow(dead_code)] // each test binary uses its own subset

use std::path::{Path, PathBuf};

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Bytes of a hex string (two digits per byte).
pub fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2).map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap()).collect()
}

/// Every record of fixtures/nvidia/ref/*.`arch`.jsonl (one per instruction), files in name order.
pub fn ref_records(arch: &str) -> Vec<serde_json::Value> {
    let dir = root().join("fixtures/nvidia/ref");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
    files.sort();
    let suffix = format!(".{arch}.jsonl");
    let mut out = Vec::new();
    for f in files.iter().filter(|f| f.to_string_lossy().ends_with(&suffix)) {
        for line in std::fs::read_to_string(f).unwrap().lines() {
            out.push(serde_json::from_str(line).unwrap());
        }
    }
    out
}

/// The bytes of the first `arch` corpus instruction whose mnemonic is `mnem`, and of the first
/// EXIT (to end a one-instruction program).
pub fn first_with_exit(arch: &str, mnem: &str) -> (Vec<u8>, Vec<u8>) {
    let recs = ref_records(arch);
    let bytes = |want: &dyn Fn(&str) -> bool| {
        recs.iter().find(|r| want(r["text"].as_str().unwrap())).map(|r| unhex(r["bytes"].as_str().unwrap()))
    };
    let found = bytes(&|t| t.split_whitespace().next() == Some(mnem)).unwrap_or_else(|| panic!("no {mnem} in the {arch} corpus"));
    (found, bytes(&|t| t == "EXIT").expect("an EXIT in the corpus"))
}

/// nvdisasm's text with the listing-dependent padding taken out: the sm86 `?PM<n>` tag and a
/// `???<n>` operand are padded to a column set by the longest text of the listing the word was
/// disassembled in (measured on nvdisasm 12.8); alone, the word prints one space before them.
pub fn unpad_nvdisasm(want: &str) -> String {
    let mut w = want.to_string();
    if let Some(i) = w.rfind(" ?PM") {
        if w.len() - i == 5 {
            w = format!("{} {}", w[..i].trim_end(), &w[i + 1..]);
        }
    }
    if w.contains("  ???") {
        let mut s = String::new();
        for (i, part) in w.split("???").enumerate() {
            if i > 0 {
                while s.ends_with("  ") {
                    s.pop();
                }
                s.push_str("???");
            }
            s.push_str(part);
        }
        w = s;
    }
    w
}

/// One line of a mutated word set (fixtures/nvidia/mutated/`arch`.tsv, tools/nvspec/mutated.py).
pub struct MutatedWord {
    /// The address nvdisasm disassembled the word at.
    pub addr: u64,
    /// sm50: the bundle's control word; sm86: bits 0-63.
    pub lo: u64,
    /// sm50: the instruction word; sm86: bits 64-127.
    pub hi: u64,
    /// The flipped bits, as the tool wrote them.
    pub flips: String,
    /// nvdisasm printed the word (else it refused it).
    pub ok: bool,
    /// nvdisasm's text (padding taken out), or its error message.
    pub text: String,
}

/// Every word of fixtures/nvidia/mutated/`arch`.tsv.
pub fn mutated_words(arch: &str) -> Vec<MutatedWord> {
    let path = root().join(format!("fixtures/nvidia/mutated/{arch}.tsv"));
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let hex = |s: &str| u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap();
    src.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            let (lo, hi) = c[1].split_once(' ').unwrap();
            let ok = c[3] == "ok";
            MutatedWord {
                addr: hex(c[0]),
                lo: hex(lo),
                hi: hex(hi),
                flips: c[2].to_string(),
                ok,
                text: if ok { unpad_nvdisasm(c[4]) } else { c[4].to_string() },
            }
        })
        .collect()
}
