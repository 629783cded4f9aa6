//! The NVIDIA operand model is complete: every instruction of the committed corpus listings
//! (fixtures/nvidia/ref, nvdisasm 12.8) and of the fuzz sets (fixtures/nvidia/fuzz) is printed
//! again from its [`Inst`] alone (`common/nv_model_print.rs`, which reads no instruction bits
//! and does not call the fast printer) and compared with nvdisasm's text. Words where the fast
//! printer itself differs from nvdisasm (the conformance test's pinned disagreements: 3 sm50
//! random words; words no spec form matches do not decode and are not counted)
//! are left out. Every other difference would be a category (by instruction name) counted in
//! `PINNED`; there are none.

use isabridge_decoder::nvidia::NvPlugin;
use isabridge_decoder::operand::{Access, OperandKind, SpecialReg};
use isabridge_decoder::sm50::{SM50, SM50_INSN};
use isabridge_decoder::sm86::SM86;
use isabridge_decoder::{Decoded, Inst, IsaPlugin};
use std::collections::BTreeMap;

mod common;
#[path = "common/nv_model_print.rs"]
mod nv_model_print;

use nv_model_print::print;
use common::{root, unhex, unpad_nvdisasm as unpad};

/// One word of a reference set: the Decoded, the address to model it at, the reuse flags the
/// fast printer takes, nvdisasm's text.
struct Case {
    d: Decoded,
    addr: u64,
    reuse: u8,
    want: String,
    what: String,
}

fn json_str<'a>(v: &'a serde_json::Value, k: &str) -> &'a str {
    v[k].as_str().unwrap_or("")
}

/// The corpus words of "sm50" or "sm86".
fn corpus(arch: &str) -> Vec<Case> {
    let mut out = Vec::new();
    for v in common::ref_records(arch) {
        let bytes = unhex(json_str(&v, "bytes"));
        let off = v["offset"].as_u64().unwrap();
        let want = unpad(json_str(&v, "text"));
        let what = format!("{}+{off:#x} {}", json_str(&v, "section"), json_str(&v, "bytes"));
        if arch == "sm50" {
            let ctrl = u64::from_str_radix(json_str(&v, "ctrl"), 16).unwrap();
            let inst = u64::from_le_bytes(bytes[..8].try_into().unwrap());
            let slot = (off % 32 / 8) as usize - 1;
            let Ok(d) = SM50.decode_slot(inst, ctrl, slot, off) else { continue };
            let reuse = SM50.control(&d).map(|c| c.reuse).unwrap_or(0);
            out.push(Case { d, addr: off, reuse, want, what });
        } else {
            let Ok(d) = SM86.decode(&bytes, off) else { continue };
            let reuse = isabridge_decoder::nvidia::control::sm86_reuse(u128::from_le_bytes(bytes[..16].try_into().unwrap()));
            out.push(Case { d, addr: off, reuse, want, what });
        }
    }
    out
}

/// The words of fixtures/nvidia/fuzz/`file`.tsv.
fn fuzz(arch: &str, file: &str) -> Vec<Case> {
    tsv(arch, &format!("fuzz/{file}.tsv"))
}

/// The words of fixtures/nvidia/`rel`, a listing in the fuzz-set format.
fn tsv(arch: &str, rel: &str) -> Vec<Case> {
    let text = std::fs::read_to_string(root().join("fixtures/nvidia").join(rel)).unwrap();
    let mut out = Vec::new();
    for line in text.lines() {
        let (ws, want) = line.split_once('\t').unwrap();
        let (a, b) = ws.split_once(' ').unwrap();
        let a = u64::from_str_radix(a.trim_start_matches("0x"), 16).unwrap();
        let b = u64::from_str_radix(b.trim_start_matches("0x"), 16).unwrap();
        let (want, what) = (unpad(want), ws.to_string());
        if arch == "sm50" {
            let Ok(d) = SM50.decode_slot(b, a, 0, 8) else { continue };
            let reuse = SM50.control(&d).map(|c| c.reuse).unwrap_or(0);
            out.push(Case { d, addr: 8, reuse, want, what });
        } else {
            let w = (a as u128) | (b as u128) << 64;
            let Ok(d) = SM86.decode(&w.to_le_bytes(), 0) else { continue };
            out.push(Case { d, addr: 0, reuse: isabridge_decoder::nvidia::control::sm86_reuse(w), want, what });
        }
    }
    out
}

/// The reference set `set` ("sm50 corpus", "sm86 fuzz", "sm50 random").
fn cases(set: &str) -> Vec<Case> {
    let (arch, kind) = set.split_once(' ').unwrap();
    match kind {
        "corpus" => corpus(arch),
        "random" => fuzz(arch, "sm50_random"),
        "extra" => tsv(arch, &format!("extra/{arch}_words.tsv")),
        _ => fuzz(arch, arch),
    }
}

fn plugin(arch: &str) -> &'static NvPlugin {
    if arch == "sm50" {
        &SM50_INSN
    } else {
        &SM86
    }
}

/// The model of a case (sm50 through the bundle plugin's instruction path).
fn model(arch: &str, c: &Case) -> Inst {
    if arch == "sm50" {
        SM50.operands(&c.d, c.addr)
    } else {
        SM86.operands(&c.d, c.addr)
    }
}

/// (checked, excluded because the fast printer differs, per-category mismatches with examples).
struct Report {
    checked: usize,
    excluded: usize,
    cats: BTreeMap<String, (usize, Vec<String>)>,
}

impl Report {
    fn bad(&self) -> usize {
        self.cats.values().map(|v| v.0).sum()
    }
    fn print(&self, what: &str) {
        eprintln!("== {what}: {} checked ({} excluded: fast printer differs), {} differ", self.checked, self.excluded, self.bad());
        let mut v: Vec<_> = self.cats.iter().collect();
        v.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.0.cmp(b.0)));
        for (k, (n, ex)) in v {
            eprintln!("  {k}: {n}");
            for e in ex {
                eprintln!("      {e}");
            }
        }
    }
}

/// The category of a mismatch: the instruction name.
fn category(inst: &Inst) -> String {
    inst.name.to_string()
}

fn report(set: &str) -> Report {
    let arch = set.split(' ').next().unwrap();
    let p = plugin(arch);
    let mut r = Report { checked: 0, excluded: 0, cats: BTreeMap::new() };
    for c in cases(set) {
        let mut fast = String::new();
        p.print_with(&c.d, c.addr, c.reuse, &mut fast);
        if fast != c.want {
            r.excluded += 1;
            continue;
        }
        r.checked += 1;
        let inst = model(arch, &c);
        let got = print(&inst);
        if got != c.want {
            let e = r.cats.entry(category(&inst)).or_default();
            e.0 += 1;
            if e.1.len() < 3 || std::env::var_os("ISABRIDGE_REPORT_ALL").is_some() {
                e.1.push(format!("{} {}: want {:?} got {:?}", c.what, inst.encoding, c.want, got));
            }
        }
    }
    r
}

const SETS: [&str; 7] = ["sm50 corpus", "sm86 corpus", "sm50 fuzz", "sm86 fuzz", "sm50 random", "sm50 extra", "sm86 extra"];

#[test]
#[ignore = "report only: cargo test -p isabridge-decoder --test nvidia_model -- --ignored --nocapture"]
fn model_print_report() {
    for s in SETS {
        report(s).print(s);
    }
}

/// Per set: (checked, excluded, differing). A change in any count fails: improve the model or
/// its printer, then update the pin.
const PINNED: &[(&str, usize, usize, usize)] = &[
    ("sm50 corpus", 7050, 0, 0),
    ("sm86 corpus", 7296, 0, 0),
    ("sm50 fuzz", 19515, 0, 0),
    ("sm86 fuzz", 10511, 0, 0),
    ("sm50 random", 16353, 0, 0),
    ("sm50 extra", 223, 0, 0),
    ("sm86 extra", 523, 0, 0),
];

#[test]
fn model_prints_as_nvdisasm() {
    for &(set, checked, excluded, differ) in PINNED {
        let r = report(set);
        if r.bad() != differ {
            r.print(set);
        }
        assert_eq!((r.checked, r.excluded, r.bad()), (checked, excluded, differ), "{set}: (checked, excluded, differ)");
    }
}

/// Control flow from the spec's flags, on every corpus instruction: each kind where nvdisasm's
/// mnemonic says it must be.
#[test]
fn flow_kinds() {
    use isabridge_decoder::operand::Flow;
    for arch in ["sm50", "sm86"] {
        let p: &dyn IsaPlugin = if arch == "sm50" { &SM50 } else { &SM86 };
        let mut seen = BTreeMap::new();
        for c in corpus(arch) {
            let f = p.flow(&c.d);
            let i = model(arch, &c);
            assert_eq!(f, i.flow);
            let base = c.want.trim_start_matches(|ch| ch != ' ' && c.want.starts_with('@')).trim_start();
            let m = base.split([' ', '.']).next().unwrap_or("");
            let want = match m {
                "EXIT" | "KIL" | "KILL" => Flow::End,
                "RET" => Flow::Return,
                "CAL" | "JCAL" => Flow::Call,
                "CALL" if base.contains(".REL") && !base.contains(" R") => Flow::Call,
                "CALL" => Flow::IndirectCall,
                "BRX" | "JMX" | "SYNC" | "BRK" | "CONT" => Flow::Indirect,
                "BRA" | "JMP" if c.want.starts_with('@') || base.contains(" P") || base.contains(" !P") => Flow::CondBranch,
                "BRA" | "JMP" => Flow::Branch,
                _ => Flow::Next,
            };
            if m == "BRA" && want == Flow::CondBranch && f == Flow::Branch {
                // sm86 `BRA !P0, target` takes its condition as an operand, not a guard.
                *seen.entry(format!("{arch} BRA predicate operand")).or_insert(0) += 1;
                continue;
            }
            assert_eq!(f, want, "{arch} {}: {:?}", c.want, i.name);
            *seen.entry(format!("{arch} {want:?}")).or_insert(0) += 1;
        }
        eprintln!("{seen:?}");
        assert!(seen.keys().any(|k| k.ends_with("End")) && seen.keys().any(|k| k.ends_with("Call")));
    }
}

/// Implicit operands on known words.
#[test]
fn implicit_cc_and_flow() {
    let mut cc_w = 0;
    let mut cc_r = 0;
    for c in corpus("sm50") {
        let i = model("sm50", &c);
        for o in i.implicit() {
            if let OperandKind::Special { reg: SpecialReg::Cc, .. } = o.kind {
                if o.access == Access::Write {
                    cc_w += 1;
                } else {
                    cc_r += 1;
                }
            }
        }
    }
    assert!(cc_w > 0 && cc_r > 0, "CC writes {cc_w}, reads {cc_r}");
    // Stores write no operand; loads and ALU instructions write their first one; a destination
    // read again (`FFMA32I R7, R3, 0x1, R7`) is read there.
    for arch in ["sm50", "sm86"] {
        for c in corpus(arch) {
            let i = model(arch, &c);
            let ops: Vec<_> = i.explicit().collect();
            if matches!(i.name, "STG" | "STS" | "STL" | "ST" | "RED") {
                assert!(ops.iter().all(|o| !o.access.writes()), "{}", c.want);
            }
            if matches!(i.name, "LDG" | "LDS" | "LDC" | "FFMA" | "IADD3" | "MOV" | "S2R" | "FADD") {
                let is_pred = |o: &&&isabridge_decoder::operand::Operand| match o.kind {
                    OperandKind::Reg(r) => matches!(r.class, isabridge_decoder::operand::RegClass::P | isabridge_decoder::operand::RegClass::Up),
                    OperandKind::Special { reg, .. } => matches!(reg, SpecialReg::Pt | SpecialReg::Upt),
                    _ => false,
                };
                assert!(ops.first().is_some_and(|o| o.access == Access::Write), "{}", c.want);
                assert!(ops.iter().skip(1).filter(|o| !is_pred(o)).all(|o| !o.access.writes()), "{}", c.want);
                // `IADD3 R14, P0, ...`: the carry-out is written.
                if i.name == "IADD3" && ops.get(1).is_some_and(|o| is_pred(&o)) {
                    assert!(ops[1].access == Access::Write, "{}", c.want);
                }
            }
        }
    }
}

mod no_panic {
    use isabridge_decoder::sm50::SM50;
    use isabridge_decoder::sm86::SM86;
    use isabridge_decoder::IsaPlugin;
    use proptest::prelude::*;

    /// Every instruction the decoders produce from `bytes` (at every offset `decode` accepts):
    /// operands, flow, build and the model printer return without a panic, and build gives
    /// back what encode gives.
    fn all(p: &dyn IsaPlugin, bytes: &[u8], base: u64) {
        let mut off = 0usize;
        while off < bytes.len() {
            match p.decode(&bytes[off..], base + off as u64) {
                Ok(d) => {
                    let inst = p.operands(&d, base + off as u64);
                    let _ = p.flow(&d);
                    let _ = super::nv_model_print::print(&inst);
                    let b = p.build(&inst);
                    assert_eq!(b.as_deref().ok(), Some(&p.encode(&d)[..]), "{}", inst.encoding);
                    off += d.len.max(1) as usize;
                }
                Err(_) => off += p.unit(),
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

        #[test]
        fn random_bytes_sm50(bytes in proptest::collection::vec(any::<u8>(), 0..256), bundle in 0u64..4) {
            all(&SM50, &bytes, bundle * 8);
        }

        #[test]
        fn random_bytes_sm86(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
            all(&SM86, &bytes, 0);
        }
    }
}

/// Typed modifiers agree with nvdisasm's suffixes on every corpus instruction: `.RM` / `.RP` /
/// `.RZ` (and `.FLOOR` / `.CEIL` / `.TRUNC`) are `Round`, `.FTZ` `Ftz`, `.SAT` `Clamp`, `.FMZ`
/// `Fmz`, and a typed modifier is never there without its suffix.
#[test]
fn typed_modifiers() {
    use isabridge_decoder::operand::Modifier;
    for arch in ["sm50", "sm86"] {
        for c in corpus(arch) {
            let i = model(arch, &c);
            let text = c.want.trim_start_matches(|ch| ch != ' ' && c.want.starts_with('@')).trim_start();
            let mnem = text.split(' ').next().unwrap_or("");
            let has = |s: &str| mnem.split('.').skip(1).any(|x| x == s);
            let round = [("RM", 1), ("RP", 2), ("RZ", 3), ("FLOOR", 1), ("CEIL", 2), ("TRUNC", 3)]
                .iter()
                .find(|(s, _)| has(s))
                .map(|x| x.1);
            let typed_round = i.modifiers.iter().find_map(|m| match m {
                Modifier::Round(r) if *r != 0 => Some(*r),
                _ => None,
            });
            assert_eq!(typed_round, round, "{arch} {}", c.want);
            for (s, m) in [("FTZ", Modifier::Ftz), ("SAT", Modifier::Clamp), ("FMZ", Modifier::Fmz)] {
                assert_eq!(i.modifiers.contains(&m), has(s), "{arch} {} {s}", c.want);
            }
        }
    }
}

/// Register counts on corpus instructions: `.64` / `.128` loads' data registers, 64-bit address
/// pairs (`[R2.64]`), double-precision operands.
#[test]
fn register_counts() {
    use isabridge_decoder::operand::RegClass;
    let count = |o: &isabridge_decoder::operand::Operand| match o.kind {
        OperandKind::Reg(r) if r.class == RegClass::R => Some(r.count),
        OperandKind::Mem { base: Some(r), .. } => Some(r.count),
        _ => None,
    };
    let mut checked = 0;
    for arch in ["sm50", "sm86"] {
        for c in corpus(arch) {
            let i = model(arch, &c);
            let text = c.want.trim_start_matches(|ch| ch != ' ' && c.want.starts_with('@')).trim_start();
            let mnem = text.split(' ').next().unwrap_or("");
            let ops: Vec<_> = i.explicit().collect();
            if (mnem.starts_with("LDG.E.64") || mnem.starts_with("LDG.E.128")) && !ops.is_empty() {
                let want = if mnem.contains(".128") { 4 } else { 2 };
                assert_eq!(count(ops[0]), Some(want), "{}", c.want);
                checked += 1;
            }
            if text.contains(".64]") || text.contains(".64+") {
                let pair = ops.iter().any(|o| matches!(o.kind, OperandKind::Mem { base: Some(r), .. } if r.count == 2));
                assert!(pair, "{}", c.want);
                checked += 1;
            }
            if matches!(i.name, "DADD" | "DMUL" | "DFMA") {
                assert!(ops.iter().filter_map(|o| count(o)).all(|n| n == 2), "{}", c.want);
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "{checked}");
}
