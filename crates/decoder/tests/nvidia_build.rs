//! Building NVIDIA instructions from the operand model: build(operands(x)) == encode(x) for
//! every corpus and fuzz word (sm50 bundle starts with their control word); for random field
//! values of every form of both specs, operands(decode(build(inst))) == inst; and for models
//! whose registers and immediates were changed in the `Inst` itself, the same.

use isabridge_decoder::sm50::{SM50, SM50_INSN, TABLES as T50};
use isabridge_decoder::sm86::{SM86, TABLES as T86};
use isabridge_decoder::{Decoded, IsaPlugin};
use proptest::prelude::*;

mod common;

use common::{root, unhex};

fn json_str<'a>(v: &'a serde_json::Value, k: &str) -> &'a str {
    v[k].as_str().unwrap_or("")
}

/// (decoded, address) of every corpus and fuzz word of `arch`.
fn words(arch: &str) -> Vec<(Decoded, u64)> {
    let mut out = Vec::new();
    for v in common::ref_records(arch) {
        let bytes = unhex(json_str(&v, "bytes"));
        let off = v["offset"].as_u64().unwrap();
        if arch == "sm50" {
            let ctrl = u64::from_str_radix(json_str(&v, "ctrl"), 16).unwrap();
            let inst = u64::from_le_bytes(bytes[..8].try_into().unwrap());
            if off % 32 == 8 {
                // A bundle start: the control word and the first instruction.
                let mut b = ctrl.to_le_bytes().to_vec();
                b.extend_from_slice(&inst.to_le_bytes());
                if let Ok(d) = SM50.decode(&b, off - 8) {
                    out.push((d, off - 8));
                }
            } else if let Ok(d) = SM50.decode_slot(inst, ctrl, (off % 32 / 8) as usize - 1, off) {
                out.push((d, off));
            }
        } else if let Ok(d) = SM86.decode(&bytes, off) {
            out.push((d, off));
        }
    }
    let mut files = vec![arch.to_string()];
    if arch == "sm50" {
        files.push("sm50_random".into());
    }
    for file in files {
        let text = std::fs::read_to_string(root().join(format!("fixtures/nvidia/fuzz/{file}.tsv"))).unwrap();
        for line in text.lines() {
            let (ws, _) = line.split_once('\t').unwrap();
            let (a, b) = ws.split_once(' ').unwrap();
            let a = u64::from_str_radix(a.trim_start_matches("0x"), 16).unwrap();
            let b = u64::from_str_radix(b.trim_start_matches("0x"), 16).unwrap();
            if arch == "sm50" {
                if let Ok(d) = SM50.decode_slot(b, a, 0, 8) {
                    out.push((d, 8));
                }
            } else {
                let w = (a as u128) | (b as u128) << 64;
                if let Ok(d) = SM86.decode(&w.to_le_bytes(), 0) {
                    out.push((d, 0));
                }
            }
        }
    }
    out
}

fn plugin(arch: &str) -> &'static dyn IsaPlugin {
    if arch == "sm50" {
        &SM50
    } else {
        &SM86
    }
}

/// build(operands(x)) == encode(x); returns (checked, failures).
fn roundtrip(arch: &str) -> (usize, Vec<String>) {
    let p = plugin(arch);
    let mut bad = Vec::new();
    let ws = words(arch);
    for (d, addr) in &ws {
        let inst = p.operands(d, *addr);
        let want = p.encode(d);
        match p.build(&inst) {
            Ok(b) if b == want => {}
            Ok(b) => bad.push(format!("{} {:02x?}: built {:02x?}", inst.encoding, want, b)),
            Err(e) => bad.push(format!("{} {:02x?}: {e}", inst.encoding, want)),
        }
    }
    (ws.len(), bad)
}

#[test]
fn build_equals_encode_sm50() {
    let (n, bad) = roundtrip("sm50");
    assert!(n > 40_000, "{n}");
    assert!(bad.is_empty(), "{} of {n} differ, e.g. {:#?}", bad.len(), &bad[..bad.len().min(8)]);
}

#[test]
fn build_equals_encode_sm86() {
    let (n, bad) = roundtrip("sm86");
    assert!(n > 17_000, "{n}");
    assert!(bad.is_empty(), "{} of {n} differ, e.g. {:#?}", bad.len(), &bad[..bad.len().min(8)]);
}

/// A random word of form `f` (its identifier, random other bits): the model of what it decodes
/// to builds back to bytes whose model is the same.
fn check_form(sm86: bool, f: usize, lo: u64, hi: u64, ctrl: u64, addr: u64) -> Result<(), TestCaseError> {
    let t = if sm86 { &T86 } else { &T50 };
    let form = t.forms[f];
    let r = (lo as u128) | (hi as u128) << 64;
    let w = (r & !form.mask) | form.ident;
    // (control bits the form accepts: sm86 neutral, sm50 without barriers and reuse flag 3)
    let w = if sm86 { (w & !(0x1f_ffffu128 << 105)) | NEUTRAL_CTRL << 105 } else { w };
    let ctrl = (ctrl | 0x7e0) & !(1 << 20);
    let (d, p): (Decoded, &dyn IsaPlugin) = if sm86 {
        match SM86.decode(&w.to_le_bytes(), addr * 16) {
            Ok(d) => (d, &SM86),
            Err(_) => return Ok(()),
        }
    } else {
        match SM50.decode_slot(w as u64, ctrl, 0, addr * 8) {
            Ok(d) => (d, &SM50),
            Err(_) => return Ok(()),
        }
    };
    let a = if sm86 { addr * 16 } else { addr * 8 };
    let inst = p.operands(&d, a);
    let bytes = p.build(&inst).map_err(|e| TestCaseError::fail(format!("{e}")))?;
    prop_assert_eq!(&bytes, &p.encode(&d), "{} {:#x}", inst.encoding, w);
    let d2 = if sm86 {
        SM86.decode(&bytes, a)
    } else {
        SM50.decode_slot(u64::from_le_bytes(bytes[..8].try_into().unwrap()), ctrl, 0, a)
    }
    .map_err(|e| TestCaseError::fail(format!("{e}")))?;
    let inst2 = p.operands(&d2, a);
    prop_assert_eq!(inst2, inst);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

    #[test]
    fn random_fields_round_trip_sm50(f in 0..T50.forms.len(), lo in any::<u64>(), ctrl in any::<u64>(), addr in 0u64..1 << 20) {
        check_form(false, f, lo, 0, ctrl, addr)?;
    }

    #[test]
    fn random_fields_round_trip_sm86(f in 0..T86.forms.len(), lo in any::<u64>(), hi in any::<u64>(), addr in 0u64..1 << 20) {
        check_form(true, f, lo, hi, 0, addr)?;
    }
}

/// Every form of both specs, one random word each (a fixed seed): none fails to build.
#[test]
fn every_form_builds() {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut fails = Vec::new();
    for (sm86, n) in [(false, T50.forms.len()), (true, T86.forms.len())] {
        for f in 0..n {
            for _ in 0..4 {
                let (lo, hi, c) = (next(), next(), next());
                if let Err(e) = check_form(sm86, f, lo, hi, c, 0x100) {
                    fails.push(format!("{}: {e}", if sm86 { T86.forms[f].name } else { T50.forms[f].name }));
                }
            }
        }
    }
    assert!(fails.is_empty(), "{} failures, e.g. {:#?}", fails.len(), &fails[..fails.len().min(10)]);
    let _ = SM50_INSN.size;
}

/// Prints the model, the form's fields and both encodings of one word (a debugging aid:
/// `W=0x... [ARCH=sm86] cargo test --test nvidia_build debug_word -- --ignored --nocapture`).
#[test]
#[ignore = "debugging aid"]
fn debug_word() {
    let Some(w) = std::env::var("W").ok() else { return };
    let w = u128::from_str_radix(w.trim_start_matches("0x"), 16).unwrap();
    let sm86 = std::env::var("ARCH").map(|a| a == "sm86").unwrap_or(false);
    let (d, p): (Decoded, &dyn IsaPlugin) = if sm86 { (SM86.decode(&w.to_le_bytes(), 0).unwrap(), &SM86) } else { (SM50.decode_slot(w as u64, 0, 0, 0).unwrap(), &SM50) };
    let inst = p.operands(&d, 0);
    eprintln!("{inst:#?}");
    let t = if sm86 { &T86 } else { &T50 };
    let form = t.forms[d.enc as usize];
    for f in form.fields {
        eprintln!("{} {:?} {:?} = {:#x}", f.name(), f.kind, f.ranges(), f.get(w));
    }
    eprintln!("{:02x?}\n{:02x?}", p.build(&inst), p.encode(&d));
}

/// Control bits every form accepts (stall 0, no yield, no barriers, no wait, no reuse).
const NEUTRAL_CTRL: u128 = 0x7e0;

/// Operand sets changed in the model itself: registers and immediates of a decoded form's
/// `Inst` get random values that fit their fields; building that `Inst` and decoding the bytes
/// gives the same `Inst` back (when the bytes still decode to the same form: a value can select
/// a more specific form, as `RZ` does).
fn check_edit(sm86: bool, f: usize, lo: u64, hi: u64, seed: u64) -> Result<bool, TestCaseError> {
    use isabridge_decoder::operand::{OperandKind, RegClass};
    let t = if sm86 { &T86 } else { &T50 };
    let form = t.forms[f];
    let r = (lo as u128) | (hi as u128) << 64;
    // (scheduling bits neutral: no barriers, stall 0, no reuse, which every form accepts)
    let w = (r & !form.mask) | form.ident;
    let w = if sm86 { (w & !(0x1f_ffffu128 << 105)) | NEUTRAL_CTRL << 105 } else { w };
    let p: &dyn IsaPlugin = if sm86 { &SM86 } else { &SM50 };
    let d = if sm86 { SM86.decode(&w.to_le_bytes(), 0x200) } else { SM50.decode_slot(w as u64, NEUTRAL_CTRL as u64, 0, 0x200) };
    let Ok(d) = d else { return Ok(false) };
    let mut inst = p.operands(&d, 0x200);
    let mut x = seed | 1;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let tf = if sm86 { &T86 } else { &T50 };
    let Some(fm) = tf.forms.iter().find(|f| f.name == inst.encoding) else { return Ok(false) };
    // One new value per field (a field printed twice, a destination read again, is one value).
    let mut chosen: Vec<(&str, u64)> = Vec::new();
    for o in inst.operands.iter_mut().filter(|o| !o.implicit) {
        let Some(fd) = fm.field(o.field) else { continue };
        let v = match chosen.iter().find(|c| c.0 == o.field) {
            Some(c) => c.1,
            None => {
                let v = next();
                chosen.push((o.field, v));
                v
            }
        };
        match &mut o.kind {
            OperandKind::Reg(rr) if rr.class == RegClass::R && fd.width() == 8 => rr.first = (v % 255) as u16,
            OperandKind::Reg(rr) if rr.class == RegClass::P && fd.width() == 3 => rr.first = (v % 7) as u16,
            // (a number nvdisasm leaves out at zero is never made zero: the model has no operand then)
            OperandKind::Imm(x) if fd.kind == isabridge_decoder::spec::NvKind::UImm && fd.width() < 32 => {
                let m = (1u64 << fd.width()) - 1;
                let v = if fd.omit_zero() { (v & m).max(1) } else { v & m };
                *x = (v * fd.scale() as u64) as i64
            }
            _ => {}
        }
    }
    let bytes = p.build(&inst).map_err(|e| TestCaseError::fail(format!("{e}")))?;
    let d2 = if sm86 {
        SM86.decode(&bytes, 0x200)
    } else {
        SM50.decode_slot(u64::from_le_bytes(bytes[..8].try_into().unwrap()), NEUTRAL_CTRL as u64, 0, 0x200)
    };
    let Ok(d2) = d2 else { return Ok(false) };
    let inst2 = p.operands(&d2, 0x200);
    if inst2.encoding != inst.encoding {
        return Ok(false);
    }
    // Reuse flags follow the registers' slots; the model's other facts must be equal.
    prop_assert_eq!(&inst2.operands.iter().map(|o| o.kind).collect::<Vec<_>>(), &inst.operands.iter().map(|o| o.kind).collect::<Vec<_>>(), "{}", inst.encoding);
    // (the named facts of the families printed from their bits are read from the word, not
    // built from: only the form's own fields are compared)
    let own = |i: &isabridge_decoder::Inst| {
        i.modifiers
            .iter()
            .filter(|m| !matches!(m, isabridge_decoder::operand::Modifier::Named(n, _) if fm.field(n).is_none()))
            .copied()
            .collect::<Vec<_>>()
    };
    prop_assert_eq!(own(&inst2), own(&inst), "{}", inst.encoding);
    prop_assert_eq!(inst2.guard, inst.guard);
    Ok(true)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

    #[test]
    fn edited_operands_round_trip_sm50(f in 0..T50.forms.len(), lo in any::<u64>(), seed in any::<u64>()) {
        check_edit(false, f, lo, 0, seed)?;
    }

    #[test]
    fn edited_operands_round_trip_sm86(f in 0..T86.forms.len(), lo in any::<u64>(), hi in any::<u64>(), seed in any::<u64>()) {
        check_edit(true, f, lo, hi, seed)?;
    }
}

/// Every form, edited operands: most keep their form and round-trip (the count is a floor).
#[test]
fn every_form_edits() {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let (mut ok, mut n) = (0usize, 0usize);
    for (sm86, count) in [(false, T50.forms.len()), (true, T86.forms.len())] {
        for f in 0..count {
            for _ in 0..2 {
                n += 1;
                let (lo, hi, s) = (next(), next(), next());
                match check_edit(sm86, f, lo, hi, s) {
                    Ok(true) => ok += 1,
                    Ok(false) => {}
                    Err(e) => panic!("{}: {e}", if sm86 { T86.forms[f].name } else { T50.forms[f].name }),
                }
            }
        }
    }
    eprintln!("{ok} of {n} edited instructions kept their form and round-tripped");
    assert!(ok * 10 > n * 7, "{ok} of {n}");
}
