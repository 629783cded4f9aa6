//! Every instruction of the NVIDIA sm_86 and sm_50 corpora (fixtures/nvidia/ref, nvdisasm 12.8),
//! lifted one at a time by the ISA's lifter: how many lift, and which do not, each with the lifter's reason. The list is pinned
//! exactly in fixtures/nvidia/lift/unsupported.tsv: an instruction that lifted before and fails
//! now is a regression, and one that lifts now leaves the list. `ISABRIDGE_UPDATE_LIFT_COUNTS=1`
//! rewrites the file (read the diff before committing it).

use isabridge_decoder::lift::sm86::Options;
use isabridge_decoder::lift::{sm50, sm86};
use isabridge_decoder::lift::LiftError;
use isabridge_decoder::Isa;
use std::collections::BTreeMap;
use std::path::PathBuf;

const TARGETS: [(&str, Isa); 2] = [("sm86", Isa::Sm86), ("sm50", Isa::Sm50)];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

/// Per target: instructions seen, lifted, and the unsupported ones by (mnemonic, reason).
#[derive(Default)]
struct Count {
    total: u64,
    lifted: u64,
    unsupported: BTreeMap<(String, String), u64>,
}

fn count(target: &str, isa: Isa) -> Count {
    let opts = Options::default();
    let mut c = Count::default();
    let mut files: Vec<_> = std::fs::read_dir(root().join("fixtures/nvidia/ref"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(&format!(".{target}.jsonl")))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no reference listings for {target}");
    for p in files {
        for line in std::fs::read_to_string(&p).unwrap().lines() {
            let r: serde_json::Value = serde_json::from_str(line).unwrap();
            let bytes = hex(r["bytes"].as_str().unwrap());
            let addr = r["offset"].as_u64().unwrap();
            let text = r["text"].as_str().unwrap();
            let mnemonic = text.split_whitespace().find(|w| !w.starts_with('@')).unwrap_or("").to_string();
            c.total += 1;
            let lifted = match isa {
                Isa::Sm50 => sm50::lift_one(isa, &bytes, addr, &opts),
                _ => sm86::lift_one(isa, &bytes, addr, &opts),
            };
            match lifted {
                Ok(n) => {
                    assert_eq!(n, bytes.len(), "{target} {text}");
                    c.lifted += 1;
                }
                Err(e) => {
                    let why = match e {
                        LiftError::Unsupported { why, .. } => why,
                        LiftError::Decode { why, .. } => format!("does not decode: {why}"),
                        LiftError::BranchOutside { .. } => "branch outside".into(),
                    };
                    // Reasons name operand kinds with values; keep the kind.
                    let why = why.split(" (").next().unwrap().split(" {").next().unwrap().to_string();
                    *c.unsupported.entry((mnemonic, why)).or_default() += 1;
                }
            }
        }
    }
    c
}

fn render(counts: &[(&str, Count)]) -> String {
    let mut s = String::from(
        "# Instructions of fixtures/nvidia/ref the NVIDIA lifters do not lift yet, with the reason.\n\
         # Written by `ISABRIDGE_UPDATE_LIFT_COUNTS=1 cargo test --release -p isabridge-decoder --test sm86_lift_corpus`.\n",
    );
    for (t, c) in counts {
        s += &format!("# {t}: {} instructions, {} lift, {} do not\n", c.total, c.lifted, c.total - c.lifted);
    }
    s += "target\tmnemonic\tcount\treason\n";
    for (t, c) in counts {
        for ((m, why), n) in &c.unsupported {
            s += &format!("{t}\t{m}\t{n}\t{why}\n");
        }
    }
    s
}

#[test]
fn corpus_instructions_lift_or_are_pinned_as_unsupported() {
    let counts: Vec<(&str, Count)> = TARGETS.iter().map(|(t, isa)| (*t, count(t, *isa))).collect();
    let path = root().join("fixtures/nvidia/lift/unsupported.tsv");
    let now = render(&counts);
    if std::env::var_os("ISABRIDGE_UPDATE_LIFT_COUNTS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &now).unwrap();
    }
    let pinned = std::fs::read_to_string(&path).expect("fixtures/nvidia/lift/unsupported.tsv");
    for (t, c) in &counts {
        eprintln!("{t}: {} of {} instructions lift", c.lifted, c.total);
    }
    if now != pinned {
        let diff: Vec<String> = {
            let a: std::collections::BTreeSet<&str> = pinned.lines().collect();
            let b: std::collections::BTreeSet<&str> = now.lines().collect();
            a.difference(&b).map(|l| format!("- {l}")).chain(b.difference(&a).map(|l| format!("+ {l}"))).collect()
        };
        panic!("fixtures/nvidia/lift/unsupported.tsv differs (ISABRIDGE_UPDATE_LIFT_COUNTS=1 rewrites it):\n{}", diff.join("\n"));
    }
}
