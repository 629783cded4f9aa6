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
