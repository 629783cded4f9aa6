//! `isabridge conform rdna --via gfx1201`: the RDNA2 vectors' gfx1013 code translated to
//! gfx1201 (the function chain), lifted back and run with late-arriving memory. Waves that
//! pass every row are pinned (the set may only grow); every other wave fails at translation,
//! never at run time, and is pinned with the first reason.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

/// Waves whose every row passes through gfx1201 today: all of them.
const PASSING: usize = 41;

/// Waves that do not translate yet, with the start of their reason (none).
const FAILING: &[(&str, u64, &str)] = &[];

#[test]
fn rdna_vectors_through_gfx1201() {
    let v = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/rdna/vectors.jsonl");
    let run = |json: bool| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_isabridge"));
        c.args(["conform", "rdna", "--via", "gfx1201"]).arg(&v);
        if json {
            c.arg("--json");
        }
        String::from_utf8_lossy(&c.output().expect("runs").stdout).into_owned()
    };
    let (mut waves, mut bad) = (BTreeSet::new(), BTreeSet::new());
    for l in run(true).lines() {
        let j: serde_json::Value = serde_json::from_str(l).expect("json line");
        let w = (j["name"].as_str().unwrap_or("").to_string(), j["wave"].as_u64().unwrap_or(0));
        if j["checked"] != j["passed"] || j["checked"] == 0 {
            bad.insert(w.clone());
        }
        waves.insert(w);
    }
    let table = run(false);
    for (name, wave) in &bad {
        let pin = FAILING.iter().find(|(n, w, _)| n == name && w == wave).unwrap_or_else(|| panic!("{name} w{wave} fails, not pinned"));
        let line = table.lines().find(|l| l.starts_with(&format!("{name} ")) && l.contains(pin.2));
        assert!(line.is_some(), "{name} w{wave}: no row with the reason {}", pin.2);
    }
    assert_eq!(waves.len(), 41);
    assert_eq!(bad.len(), FAILING.len(), "{bad:?}");
    assert_eq!(waves.len() - bad.len(), PASSING);
}
