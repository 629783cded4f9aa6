//! Every instruction of each AMD spec file occurs in its probe set (decoded by our decoder from
//! the llvm-mc-22 listing's bytes), so the conformance test exercises all of them.

use isabridge_decoder::{amd, Isa};
use std::collections::BTreeSet;
use std::path::Path;

fn probe_names(isa: Isa) -> BTreeSet<&'static str> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../fixtures/amd/probe/{isa}.tsv"));
    let text = std::fs::read_to_string(path).expect("probe set");
    let p = isa.plugin();
    let mut names = BTreeSet::new();
    for line in text.lines() {
        let hex = line.split('\t').next().unwrap();
        let bytes: Vec<u8> = (0..hex.len() / 2).map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap()).collect();
        if let Ok(d) = p.decode(&bytes, 0) {
            names.insert(p.name(&d));
        }
    }
    names
}

fn check(isa: Isa, all: impl Iterator<Item = &'static str>) {
    let seen = probe_names(isa);
    let all: BTreeSet<&str> = all.collect();
    let missing: Vec<_> = all.difference(&seen).collect();
    assert!(all.len() > 1000, "{isa}: only {} instructions in the spec", all.len());
    assert!(missing.is_empty(), "{isa}: {} spec instructions never occur in the probe set: {missing:?}", missing.len());
}

#[test]
fn gfx1013_probe_set_covers_the_spec() {
    check(Isa::Gfx1013, amd::GFX10.tables().instructions.iter().map(|i| i.name));
}

#[test]
fn gfx1201_probe_set_covers_the_spec() {
    check(Isa::Gfx1201, amd::GFX12.tables().instructions.iter().map(|i| i.name));
}
