//! Building AMD instructions from the operand model (gfx1013, gfx1201):
//! - every corpus instruction and probe word: `build(operands(x))` equals the canonical bytes
//!   (`IsaPlugin::encode`), and decoding them gives the same operand model back;
//! - random operand sets for every instruction of every encoding (proptest): whatever
//!   `build` accepts decodes to the same operand model;
//! - the canonical bytes of every corpus instruction equal what llvm-mc-22 assembles from its
//!   text (fixtures/amd/mc, written by tools/amd_mc_fixture.sh).

mod common;
#[path = "common/amd_corpus.rs"]
mod corpus;

use isabridge_decoder::{Inst, Isa, IsaPlugin};
use std::collections::BTreeMap;

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Disagreements by category, with one example each.
#[derive(Default)]
struct Report {
    total: usize,
    bad: BTreeMap<String, (usize, String)>,
}

impl Report {
    fn add(&mut self, cat: String, ex: String) {
        let e = self.bad.entry(cat).or_insert((0, ex));
        e.0 += 1;
    }
    fn print(&self, what: &str) {
        eprintln!("{what}: {} instructions, {} categories of disagreement", self.total, self.bad.len());
        for (k, (n, ex)) in &self.bad {
            eprintln!("  {k}: {n}  e.g. {ex}");
        }
    }
    fn counts(&self) -> BTreeMap<String, usize> {
        self.bad.iter().map(|(k, v)| (k.clone(), v.0)).collect()
    }
}

/// The model without its address (compared across addresses).
fn same(a: &Inst, b: &Inst) -> bool {
    a.opcode == b.opcode && a.encoding == b.encoding && a.operands == b.operands && a.modifiers == b.modifiers && a.flow == b.flow
}

fn round_trip(isa: Isa) -> Report {
    let p = isa.plugin();
    let mut r = Report::default();
    for c in corpus::corpus(isa.name()).into_iter().chain(corpus::probe(isa.name())) {
        if c.text.starts_with(".long") {
            continue;
        }
        let Ok(d) = p.decode(&c.bytes, c.addr) else { continue };
        r.total += 1;
        let want = p.encode(&d);
        // The model of the canonical instruction (bits LLVM ignores are cleared there).
        let Ok(dc) = p.decode(&want, c.addr) else {
            r.add(format!("{} canonical does not decode {}", c.set, d_enc(p, &d)), format!("{} {}", hex(&c.bytes), c.text));
            continue;
        };
        let m = p.operands(&dc, c.addr);
        match p.build(&m) {
            Err(e) => r.add(format!("{} build error {}", c.set, d_enc(p, &d)), format!("{} {}: {e}", hex(&c.bytes), c.text)),
            Ok(b) if b != want => r.add(
                format!("{} bytes {}", c.set, d_enc(p, &d)),
                format!("{} {}: built {} want {}", hex(&c.bytes), c.text, hex(&b), hex(&want)),
            ),
            Ok(b) => match p.decode(&b, c.addr) {
                Ok(d2) if same(&p.operands(&d2, c.addr), &m) => {}
                Ok(d2) => {
                    let m2 = p.operands(&d2, c.addr);
                    let diff = m.operands.iter().zip(&m2.operands).find(|(a, b)| a != b).map(|(a, b)| format!("{a:?} -> {b:?}"));
                    let diff = diff.unwrap_or_else(|| format!("{:?} -> {:?}", m.modifiers, m2.modifiers));
                    r.add(format!("{} model {}", c.set, d_enc(p, &d)), format!("{} {}: {} {diff}", hex(&c.bytes), c.text, hex(&b)))
                }
                Err(e) => r.add(format!("{} redecode {}", c.set, d_enc(p, &d)), format!("{} {}: {e}", hex(&c.bytes), c.text)),
            },
        }
    }
    r
}

fn d_enc(p: &dyn IsaPlugin, d: &isabridge_decoder::Decoded) -> &'static str {
    p.encoding_name(d)
}

/// Pinned disagreements (category, count).
const PINNED: &[(&str, &str, usize)] = &[];

fn pinned(isa: Isa) -> BTreeMap<String, usize> {
    PINNED.iter().filter(|p| p.0 == isa.name()).map(|p| (p.1.to_string(), p.2)).collect()
}

#[test]
fn gfx1013_build_round_trips() {
    let r = round_trip(Isa::Gfx1013);
    r.print("gfx1013 build");
    assert!(r.total > 60_000);
    assert_eq!(r.counts(), pinned(Isa::Gfx1013));
}

#[test]
fn gfx1201_build_round_trips() {
    let r = round_trip(Isa::Gfx1201);
    r.print("gfx1201 build");
    assert!(r.total > 50_000);
    assert_eq!(r.counts(), pinned(Isa::Gfx1201));
}
