//! Every instruction of the AMD corpus (fixtures/amd/ref: gfx1013 wave32 and wave64, gfx1201),
//! lifted one at a time: how many lift, and which do not, each with the lifter's reason. Calls
//! and returns (`s_swappc_b64`, `s_setpc_b64`) lift only as part of a whole kernel (calls are
//! inlined, calls of undefined symbols and recursive calls are IR calls): one counts as lifted
//! when some function of its code object that reaches it (its own body or a callee's, calls
//! resolved by the machine CFG) lifts whole through `lift_kernel_module`; otherwise the reason
//! says why that function does not. The
//! list is pinned exactly in fixtures/amd/lift/unsupported.tsv: an instruction that lifted
//! before and fails now is a regression, and one that lifts now leaves the list. `ISABRIDGE_UPDATE_LIFT_COUNTS=1` rewrites the file (read the
//! diff before committing it).

use isabridge_analysis::cfg::CallTarget;
use isabridge_decoder::lift::amd::{lift_kernel_module, lift_one, KernelEntry, Options};
use isabridge_decoder::lift::LiftError;
use isabridge_decoder::Isa;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const TARGETS: [(&str, Isa, bool); 3] =
    [("gfx1013-w32", Isa::Gfx1013, false), ("gfx1013-w64", Isa::Gfx1013, true), ("gfx1201-w32", Isa::Gfx1201, false)];

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

/// The functions of one AMD code object lifted whole: the addresses some function that
/// lifts reaches (with its callees'), and the error of each function that does not lift.
#[derive(Default)]
struct Whole {
    reached: BTreeSet<u64>,
    failed: BTreeMap<String, LiftError>,
}

fn whole_functions(obj: &Path, isa: Isa, wave64: bool) -> Whole {
    let bytes = std::fs::read(obj).unwrap_or_else(|e| panic!("{}: {e}", obj.display()));
    let p = isabridge_analysis::load(&bytes, None).unwrap_or_else(|e| panic!("{}: {e}", obj.display()));
    let mut w = Whole::default();
    for s in &p.sections {
        let r = isabridge_analysis::resolve::amd_transfers(isa, s);
        // Each function's instructions and direct callees, by entry address.
        let mut body: BTreeMap<u64, (Vec<u64>, Vec<u64>)> = BTreeMap::new();
        for f in &s.functions {
            if let Ok(g) = isabridge_analysis::recover(isa, s, f) {
                let callees = g.calls.iter().filter_map(|c| match c.target {
                    CallTarget::Direct(t) => Some(t),
                    _ => None,
                });
                body.insert(f.start, (g.insts.iter().map(|i| i.0).collect(), callees.collect()));
            }
        }
        for f in &s.functions {
            // Whether a function lifts depends on its instructions, not on the entry state;
            // this is the state `isabridge lift` gives a function that is not a kernel.
            let e = KernelEntry { wave64, mode: Options::default().mode, sgprs: 34, workitem_ids: 3, shared_bytes: 0, ttmp_workgroup_ids: [false; 3] };
            match lift_kernel_module(isa, &s.data, s.address, f.start, &f.name, &e, &r) {
                Ok(_) => {
                    let mut work = vec![f.start];
                    let mut seen = BTreeSet::new();
                    while let Some(a) = work.pop() {
                        if seen.insert(a) {
                            if let Some((insts, callees)) = body.get(&a) {
                                w.reached.extend(insts);
                                work.extend(callees);
                            }
                        }
                    }
                }
                Err(err) => {
                    w.failed.insert(f.name.clone(), err);
                }
            }
        }
    }
    w
}

/// A whole-kernel error's reason, with the names of undefined callees and operand values
/// left out (they would split one reason into many rows).
fn short_why(why: &str) -> String {
    if why.starts_with("calls ") {
        "calls a function the code object does not define".into()
    } else {
        why.split(" (").next().unwrap_or(why).to_string()
    }
}

/// Why a call or return at `addr` in `function` does not lift: its function's whole-kernel
/// error, naming the instruction that fails when it is another one.
fn whole_reason(w: &Whole, function: &str, addr: u64) -> String {
    match w.failed.get(function) {
        Some(LiftError::Unsupported { addr: a, why, .. }) if *a == addr => short_why(why),
        Some(LiftError::Unsupported { text, why, .. }) => {
            format!("its function does not lift whole: {} {}", text.split_whitespace().next().unwrap_or("?"), short_why(why))
        }
        Some(_) => "its function does not lift whole (a decode error or a branch outside it)".into(),
        None => "no function that lifts whole reaches it".into(),
    }
}

fn count(target: &str, isa: Isa, wave64: bool) -> Count {
    let opts = Options { wave64, ..Options::default() };
    let mut c = Count::default();
    let mut files: Vec<_> = std::fs::read_dir(root().join("fixtures/amd/ref"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(&format!(".{target}.jsonl")))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no reference listings for {target}");
    for p in files {
        let name = p.file_name().unwrap().to_string_lossy().replace(".jsonl", ".o");
        let whole = Some(whole_functions(&root().join("fixtures/amd/bin").join(name), isa, wave64));
        for line in std::fs::read_to_string(&p).unwrap().lines() {
            let r: serde_json::Value = serde_json::from_str(line).unwrap();
            let bytes = hex(r["bytes"].as_str().unwrap());
            let addr = r["offset"].as_u64().unwrap();
            let text = r["text"].as_str().unwrap();
            let mnemonic = text.split_whitespace().next().unwrap_or("").to_string();
            c.total += 1;
            match lift_one(isa, &bytes, addr, &opts) {
                Ok(n) => {
                    assert_eq!(n, bytes.len(), "{target} {text}");
                    c.lifted += 1;
                }
                Err(_) if matches!(mnemonic.as_str(), "s_setpc_b64" | "s_swappc_b64") && whole.is_some() => {
                    let w = whole.as_ref().unwrap();
                    if w.reached.contains(&addr) {
                        c.lifted += 1;
                    } else {
                        let why = whole_reason(w, r["function"].as_str().unwrap_or(""), addr);
                        *c.unsupported.entry((mnemonic, why)).or_default() += 1;
                    }
                }
                Err(e) => {
                    let why = match e {
                        LiftError::Unsupported { why, .. } => why,
                        LiftError::Decode { why, .. } => format!("does not decode: {why}"),
                        LiftError::BranchOutside { .. } => "branch outside".into(),
                    };
                    // Reasons name operand kinds with values; keep the kind.
                    let why = why.split(" (").next().unwrap().to_string();
                    *c.unsupported.entry((mnemonic, why)).or_default() += 1;
                }
            }
        }
    }
    c
}

fn render(counts: &[(&str, Count)]) -> String {
    let mut s = String::from(
        "# Instructions of fixtures/amd/ref the AMD lifter does not lift yet, with its reason.\n\
         # Written by `ISABRIDGE_UPDATE_LIFT_COUNTS=1 cargo test --release -p isabridge-decoder --test amd_lift_corpus`.\n",
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
    let counts: Vec<(&str, Count)> = TARGETS.iter().map(|(t, isa, w)| (*t, count(t, *isa, *w))).collect();
    let path = root().join("fixtures/amd/lift/unsupported.tsv");
    let now = render(&counts);
    if std::env::var_os("ISABRIDGE_UPDATE_LIFT_COUNTS").is_some() {
        std::fs::write(&path, &now).unwrap();
    }
    let pinned = std::fs::read_to_string(&path).expect("fixtures/amd/lift/unsupported.tsv");
    for (t, c) in &counts {
        eprintln!("{t}: {} of {} instructions lift", c.lifted, c.total);
    }
    // The pin is exact: an instruction that no longer lifts, or one that lifts now and is still
    // listed, both show as a diff of the file.
    if now != pinned {
        let diff: Vec<String> = {
            let a: std::collections::BTreeSet<&str> = pinned.lines().collect();
            let b: std::collections::BTreeSet<&str> = now.lines().collect();
            a.difference(&b).map(|l| format!("- {l}")).chain(b.difference(&a).map(|l| format!("+ {l}"))).collect()
        };
        panic!("fixtures/amd/lift/unsupported.tsv differs (ISABRIDGE_UPDATE_LIFT_COUNTS=1 rewrites it):\n{}", diff.join("\n"));
    }
}
