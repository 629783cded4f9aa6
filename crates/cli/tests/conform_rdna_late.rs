//! `isabridge conform rdna --late-memory`: the RDNA2-measured vectors run with memory results
//! arriving late (the interpreter's late-arriving-memory model): the gfx10 code with its own
//! `s_waitcnt`s passes every test wave and table, which shows the model is not stricter than
//! the hardware; with every `s_waitcnt` replaced by `s_nop 0`, the waves whose code reads a
//! loaded register in an ALU or address operand fail (38 of 41; the 3 that pass are pinned),
//! while the same code without the model still passes (the model is what shows the missing
//! waits).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn vectors() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/rdna/vectors.jsonl")
}

/// (name, wave, table, passed every checked lane) of each row of `conform rdna --json`.
fn rows(file: &Path, late: bool) -> Vec<(String, u64, String, bool)> {
    let mut args = vec!["conform", "rdna", "--json", "--via", "interp"];
    if late {
        args.push("--late-memory");
    }
    let o = Command::new(env!("CARGO_BIN_EXE_isabridge")).args(&args).arg(file).output().expect("runs");
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| {
            let j: serde_json::Value = serde_json::from_str(l).expect("json line");
            let ok = j["checked"].as_u64().unwrap_or(0) > 0 && j["checked"] == j["passed"];
            (j["name"].as_str().unwrap_or("").to_string(), j["wave"].as_u64().unwrap_or(0), j["table"].as_str().unwrap_or("").to_string(), ok)
        })
        .collect()
}

#[test]
fn every_rdna2_wave_passes_with_late_memory() {
    let r = rows(&vectors(), true);
    let failing: Vec<_> = r.iter().filter(|x| !x.3).collect();
    assert!(failing.is_empty(), "fail with late memory: {failing:?}");
    let waves: BTreeSet<(String, u64)> = r.iter().map(|x| (x.0.clone(), x.1)).collect();
    assert_eq!(waves.len(), 41, "test waves");
    assert_eq!(r.len(), 54, "rows (waves and further float-mode tables)");
}

/// The only waves that still pass with late memory once their `s_waitcnt`s are gone: their
/// code reads loaded registers only as the data of buffer stores, which the model lets
/// through (the RDNA2 rule of `vector_store_data` in the interpreter's late module).
const PASS_WITHOUT_WAITS: &[(&str, u64)] = &[("BufferFormat", 32), ("FormattedStore", 32), ("FormatD16", 32)];

#[test]
fn missing_waits_fail_only_with_late_memory() {
    let text = std::fs::read_to_string(vectors()).unwrap();
    let mut out = String::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let mut t: serde_json::Value = serde_json::from_str(line).unwrap();
        for key in ["wave32_code", "wave64_code"] {
            if let Some(a) = t[key].as_array_mut() {
                for w in a.iter_mut() {
                    // s_waitcnt (SOPP opcode 12) -> s_nop 0.
                    if w.as_u64().is_some_and(|x| x & 0xffff_0000 == 0xbf8c_0000) {
                        *w = serde_json::json!(0xbf80_0000u32);
                    }
                }
            }
        }
        out += &t.to_string();
        out.push('\n');
    }
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let file = dir.join("vectors_without_waits.jsonl");
    std::fs::write(&file, out).unwrap();
    let plain = rows(&file, false);
    assert!(plain.iter().all(|x| x.3), "without late memory every row still passes: {:?}", plain.iter().filter(|x| !x.3).collect::<Vec<_>>());
    let late = rows(&file, true);
    let failing: BTreeSet<(String, u64)> = late.iter().filter(|x| !x.3).map(|x| (x.0.clone(), x.1)).collect();
    let passing: BTreeSet<(String, u64)> = late.iter().map(|x| (x.0.clone(), x.1)).filter(|w| !failing.contains(w)).collect();
    let want: BTreeSet<(String, u64)> = PASS_WITHOUT_WAITS.iter().map(|(n, w)| (n.to_string(), *w)).collect();
    assert_eq!(passing, want, "waves that pass with late memory and no waits");
    assert_eq!(failing.len(), 38, "waves that fail with late memory and no waits");
}
