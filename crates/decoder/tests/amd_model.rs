//! The AMD operand model is complete: every corpus instruction and probe word of gfx1013 and
//! gfx1201, printed from its operand model alone (tests/common/amd_model_print.rs, a small
//! printer over `Inst`), equals llvm-objdump-22's text. Every disagreement is a named category
//! with its count, pinned below.

#[path = "common/amd_corpus.rs"]
mod corpus;
#[path = "common/amd_model_print.rs"]
mod model_print;

use isabridge_decoder::operand::{Flow, OperandKind, SpecialReg};
use isabridge_decoder::Isa;
use std::collections::BTreeMap;

#[derive(Default)]
struct Report {
    total: usize,
    bad: BTreeMap<String, (usize, String)>,
}

impl Report {
    fn add(&mut self, cat: String, ex: String) {
        self.bad.entry(cat).or_insert((0, ex)).0 += 1;
    }
    fn print(&self, what: &str) {
        let n: usize = self.bad.values().map(|v| v.0).sum();
        eprintln!("{what}: {} instructions, {} equal, {} in {} categories", self.total, self.total - n, n, self.bad.len());
        for (k, (n, ex)) in &self.bad {
            eprintln!("  {k}: {n}  e.g. {ex}");
        }
    }
    fn counts(&self) -> BTreeMap<String, usize> {
        self.bad.iter().map(|(k, v)| (k.clone(), v.0)).collect()
    }
}

fn reprint(isa: Isa) -> Report {
    let p = isa.plugin();
    let mut r = Report::default();
    for c in corpus::corpus(isa.name()).into_iter().chain(corpus::probe(isa.name())) {
        if c.text.starts_with(".long") {
            continue;
        }
        let Ok(d) = p.decode(&c.bytes, c.addr) else { continue };
        // Words our fast printer disagrees on (pinned by amd_conformance) form their own
        // categories.
        let mut fast = String::new();
        p.print(&d, c.addr, &mut fast);
        r.total += 1;
        let m = p.operands(&d, c.addr);
        let text = model_print::print(isa, &m);
        if text != c.text {
            let also = if fast != c.text { " (fast printer differs too)" } else { "" };
            r.add(format!("{} {}{also}", c.set, m.encoding), format!("{:02x?} want {:?} got {:?}", c.bytes, c.text, text));
        }
    }
    r
}

/// Pinned disagreements (isa, category, count): none. On every corpus and probe instruction of
/// both processors the model prints the reference.
const PINNED: &[(&str, &str, usize)] = &[];

fn pinned(isa: Isa) -> BTreeMap<String, usize> {
    PINNED.iter().filter(|p| p.0 == isa.name()).map(|p| (p.1.to_string(), p.2)).collect()
}

#[test]
fn gfx1013_model_reprints_the_reference() {
    let r = reprint(Isa::Gfx1013);
    r.print("gfx1013 model print");
    assert!(r.total > 60_000);
    assert_eq!(r.counts(), pinned(Isa::Gfx1013));
}

#[test]
fn gfx1201_model_reprints_the_reference() {
    let r = reprint(Isa::Gfx1201);
    r.print("gfx1201 model print");
    assert!(r.total > 50_000);
    assert_eq!(r.counts(), pinned(Isa::Gfx1201));
}

/// Implicit operands and flow kinds of a few instructions, against the ISA manuals.
#[test]
fn implicit_operands_and_flow() {
    let g10 = Isa::Gfx1013.plugin();
    let has = |bytes: &[u8], reg: SpecialReg, write: bool| {
        let d = g10.decode(bytes, 0).unwrap();
        g10.operands(&d, 0).implicit().any(|o| matches!(o.kind, OperandKind::Special { reg: r, .. } if r == reg) && o.access.writes() == write)
    };
    // s_add_u32 s0, s1, s2 writes SCC.
    assert!(has(&[0x01, 0x02, 0x00, 0x80], SpecialReg::Scc, true));
    // s_cselect_b32 s0, s1, s2 reads SCC.
    assert!(has(&[0x01, 0x02, 0x00, 0x85], SpecialReg::Scc, false));
    // s_and_saveexec_b64 s[0:1], s[2:3] writes EXEC and SCC.
    assert!(has(&[0x02, 0x24, 0x80, 0xbe], SpecialReg::Exec, true));
    assert!(has(&[0x02, 0x24, 0x80, 0xbe], SpecialReg::Scc, true));
    let flow = |bytes: &[u8]| g10.flow(&g10.decode(bytes, 0).unwrap());
    assert_eq!(flow(&[0x00, 0x00, 0x81, 0xbf]), Flow::End); // s_endpgm
    assert_eq!(flow(&[0x00, 0x00, 0x82, 0xbf]), Flow::Branch); // s_branch
    assert_eq!(flow(&[0x00, 0x00, 0x85, 0xbf]), Flow::CondBranch); // s_cbranch_scc0
    assert_eq!(flow(&[0x00, 0x20, 0x80, 0xbe]), Flow::Indirect); // s_setpc_b64 s[0:1]
    assert_eq!(flow(&[0x02, 0x21, 0x80, 0xbe]), Flow::IndirectCall); // s_swappc_b64 s[0:1], s[2:3]
}

/// Every rule of crates/decoder/data/amd_model.tsv names instructions that exist.
#[test]
fn model_table_rules_match_instructions() {
    assert_eq!(isabridge_decoder::amd::model::unmatched_rules(), Vec::<String>::new());
}

/// Scaled fields come back as register numbers, constants with their value and type.
#[test]
fn operand_kinds() {
    use isabridge_decoder::operand::{ConstType, RegClass, RegRange};
    let p = Isa::Gfx1013.plugin();
    // s_load_dwordx8 s[8:15], s[4:5], null
    let d = p.decode(&[0x02, 0x02, 0x0c, 0xf4, 0x00, 0x00, 0x00, 0xfa], 0).unwrap();
    let m = p.operands(&d, 0);
    let kinds: Vec<OperandKind> = m.explicit().map(|o| o.kind).collect();
    assert_eq!(
        kinds,
        [
            OperandKind::Reg(RegRange { class: RegClass::Sgpr, first: 8, count: 8 }),
            OperandKind::Reg(RegRange { class: RegClass::Sgpr, first: 4, count: 2 }),
            OperandKind::Special { reg: SpecialReg::Null, part: isabridge_decoder::operand::Part::Whole },
        ]
    );
    assert!(m.defs().next().is_some_and(|o| o.field == "SDATA"));
    // v_add_f32_e32 v0, 1.0, v1 and v_add_f32_e32 v0, 0x41200000, v1 (a literal)
    let d = p.decode(&[0xf2, 0x02, 0x00, 0x06], 0).unwrap();
    let src0 = p.operands(&d, 0).explicit().nth(1).unwrap().kind;
    assert_eq!(src0, OperandKind::InlineConst { code: 242, bits: 0x3f80_0000, ty: ConstType::F32 });
    let d = p.decode(&[0xff, 0x02, 0x00, 0x06, 0x00, 0x00, 0x20, 0x41], 0).unwrap();
    let m = p.operands(&d, 0);
    assert_eq!(m.explicit().nth(1).unwrap().kind, OperandKind::Literal(0x4120_0000));
    assert_eq!(p.build(&m).unwrap(), vec![0xff, 0x02, 0x00, 0x06, 0x00, 0x00, 0x20, 0x41]);
    // s_cbranch_scc0 with SIMM16 -2 at 0x100 jumps to 0x100 + 4 - 8.
    let d = p.decode(&[0xfe, 0xff, 0x84, 0xbf], 0x100).unwrap();
    let m = p.operands(&d, 0x100);
    assert_eq!(m.explicit().next().unwrap().kind, OperandKind::Label(0xfc));
    assert_eq!(m.flow, Flow::CondBranch);
}
