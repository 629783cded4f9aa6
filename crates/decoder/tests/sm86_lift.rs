//! The sm_86 lifter against the H200 captures: real instructions of the sm_86 corpus
//! (fixtures/nvidia/ref, ptxas output), each lifted with its source registers as inputs and its
//! destination as the output, run by the interpreter over the 1024 captured rows of the PTX
//! operation it implements (fixtures/hw/ptx_ops_sm90_seed1.txt.gz), compared bit for bit.
//! The instruction's own operand order takes the row's a, b, c: `FSETP.GT P0, PT, R3, R5, PT`
//! computes setp.gt(a, b) whichever PTX source ptxas put in R3.

use flate2::read::GzDecoder;
use isabridge_decoder::lift::sm86::{lift, Options, SystemValue, P0};
use isabridge_decoder::lift::LiftError;
use isabridge_decoder::operand::{Inst, OperandKind, RegClass, SpecialReg};
use isabridge_decoder::sm86::SM86;
use isabridge_decoder::{Isa, IsaPlugin};
use isabridge_ir::interp::{run, Config, Input, Memory};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

/// Every instruction of the sm_86 corpus: (reference text, bytes).
fn corpus() -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(root().join("fixtures/nvidia/ref"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".sm86.jsonl"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for p in files {
        for line in std::fs::read_to_string(&p).unwrap().lines() {
            let r: serde_json::Value = serde_json::from_str(line).unwrap();
            out.push((r["text"].as_str().unwrap().to_string(), hex(r["bytes"].as_str().unwrap())));
        }
    }
    out
}

#[derive(Clone, Copy)]
struct Row {
    a: u32,
    b: u32,
    c: u32,
    r0: u32,
    r1: u32,
}

fn rows() -> BTreeMap<String, Vec<Row>> {
    let f = std::fs::File::open(root().join("fixtures/hw/ptx_ops_sm90_seed1.txt.gz")).unwrap();
    let mut s = String::new();
    GzDecoder::new(f).read_to_string(&mut s).unwrap();
    let mut m: BTreeMap<String, Vec<Row>> = BTreeMap::new();
    for line in s.lines().filter(|l| !l.starts_with('#')) {
        let p: Vec<&str> = line.split_whitespace().collect();
        let h = |i: usize| u32::from_str_radix(p[i], 16).unwrap();
        m.entry(p[0].to_string()).or_default().push(Row { a: h(1), b: h(2), c: h(3), r0: h(4), r1: h(5) });
    }
    m
}

/// What a source operand of the wanted instruction must be.
#[derive(Clone, Copy, PartialEq, Debug)]
#[allow(dead_code)] // forms the integer cases use
enum S {
    /// A register (no modifiers) taking row input 0 (a), 1 (b) or 2 (c).
    R(usize),
    /// A negated register taking row input n.
    NegR(usize),
    /// RZ.
    Rz,
    /// PT.
    Pt,
    /// !PT.
    NotPt,
    /// This immediate.
    Imm(i64),
}

fn matches(o: &isabridge_decoder::operand::Operand, want: S) -> bool {
    let m = o.mods;
    let plain = !m.neg && !m.abs && !m.not;
    match (want, o.kind) {
        (S::R(_), OperandKind::Reg(r)) => r.class == RegClass::R && r.first < 255 && plain,
        (S::NegR(_), OperandKind::Reg(r)) => r.class == RegClass::R && r.first < 255 && m.neg && !m.abs && !m.not,
        (S::Rz, OperandKind::Special { reg: SpecialReg::Rz, .. }) => plain,
        (S::Pt, OperandKind::Special { reg: SpecialReg::Pt, .. }) => plain,
        (S::NotPt, OperandKind::Special { reg: SpecialReg::Pt, .. }) => m.not,
        (S::Imm(x), OperandKind::Imm(y)) => x == y,
        _ => false,
    }
}

/// The first corpus instruction spelled `mnem` (guard-free), whose sources are `srcs` with
/// distinct registers, whose first destination is a register (or predicate) and whose other
/// destinations are PT. Returns its bytes, the input register keys (in row order) and the
/// output key.
fn find(corpus: &[(String, Vec<u8>)], mnem: &str, srcs: &[S]) -> (Vec<u8>, Vec<u16>, u16, String) {
    for (text, bytes) in corpus {
        if text.split_whitespace().next() != Some(mnem) {
            continue;
        }
        let Ok(d) = SM86.decode(bytes, 0) else { continue };
        let inst: Inst = SM86.operands(&d, 0);
        let dsts: Vec<_> = inst.explicit().filter(|o| o.access.writes()).collect();
        let ss: Vec<_> = inst.explicit().filter(|o| !o.access.writes()).collect();
        if ss.len() != srcs.len() || !ss.iter().zip(srcs).all(|(o, w)| matches(o, *w)) {
            continue;
        }
        let out = match dsts.first().map(|o| o.kind) {
            Some(OperandKind::Reg(r)) if r.class == RegClass::R && r.first < 255 => r.first,
            Some(OperandKind::Reg(r)) if r.class == RegClass::P && r.first < 7 => P0 + r.first,
            _ => continue,
        };
        if !dsts[1..].iter().all(|o| matches!(o.kind, OperandKind::Special { reg: SpecialReg::Pt, .. })) {
            continue;
        }
        let mut ins: Vec<(usize, u16)> = Vec::new();
        for (o, w) in ss.iter().zip(srcs) {
            if let (S::R(k) | S::NegR(k), OperandKind::Reg(r)) = (w, o.kind) {
                ins.push((*k, r.first));
            }
        }
        ins.sort();
        let regs: Vec<u16> = ins.iter().map(|x| x.1).collect();
        let mut uniq = regs.clone();
        uniq.sort();
        uniq.dedup();
        if uniq.len() != regs.len() || ins.iter().enumerate().any(|(i, x)| x.0 != i) {
            continue;
        }
        return (bytes.clone(), regs, out, text.clone());
    }
    panic!("no {mnem} with sources {srcs:?} in the sm_86 corpus");
}

fn exit_word(corpus: &[(String, Vec<u8>)]) -> Vec<u8> {
    corpus.iter().find(|(t, _)| t == "EXIT").unwrap().1.clone()
}

/// Run the instruction over the rows: returns per row the output register's value.
fn run_rows(code: &[u8], ins: &[u16], out: u16, rows: &[Row]) -> Vec<u64> {
    let opts = Options { reg_inputs: ins.to_vec(), reg_outputs: vec![out], ..Options::default() };
    let f = lift(Isa::Sm86, code, 0, &opts).expect("lifts");
    isabridge_ir::validate::validate(&f).expect("valid IR");
    let mut inputs: Vec<Input> = SystemValue::ALL.iter().map(|_| Input::Uniform(0)).collect();
    let cols: [fn(&Row) -> u32; 3] = [|r| r.a, |r| r.b, |r| r.c];
    for col in cols.iter().take(ins.len()) {
        inputs.push(Input::PerLane(rows.iter().map(|r| col(r) as u64).collect()));
    }
    let cfg = Config { wave_size: 32, waves: (rows.len() / 32) as u32, ..Config::default() };
    let o = run(&f, &cfg, &inputs, Memory::default()).expect("runs");
    o.outputs.iter().map(|v| v[0]).collect()
}

/// (captured op, SASS mnemonic, its sources).
const CASES: &[(&str, &str, &[S])] = &[
    ("add_rn", "FADD", &[S::R(0), S::R(1)]),
    ("add_rz", "FADD.RZ", &[S::R(0), S::R(1)]),
    ("add_rm", "FADD.RM", &[S::R(0), S::R(1)]),
    ("add_rp", "FADD.RP", &[S::R(0), S::R(1)]),
    ("add_rn_ftz", "FADD.FTZ", &[S::R(0), S::R(1)]),
    ("add_rz_ftz", "FADD.FTZ.RZ", &[S::R(0), S::R(1)]),
    ("add_rn_sat", "FADD.SAT", &[S::R(0), S::R(1)]),
    ("sub_rn", "FADD", &[S::R(0), S::NegR(1)]),
    ("mul_rn", "FMUL", &[S::R(0), S::R(1)]),
    ("mul_rz", "FMUL.RZ", &[S::R(0), S::R(1)]),
    ("mul_rm", "FMUL.RM", &[S::R(0), S::R(1)]),
    ("mul_rp", "FMUL.RP", &[S::R(0), S::R(1)]),
    ("mul_rn_ftz", "FMUL.FTZ", &[S::R(0), S::R(1)]),
    ("mul_rn_sat", "FMUL.SAT", &[S::R(0), S::R(1)]),
    ("mul_rz_ftz_sat", "FMUL.FTZ.RZ.SAT", &[S::R(0), S::R(1)]),
    ("fma_rn", "FFMA", &[S::R(0), S::R(1), S::R(2)]),
    ("fma_rz", "FFMA.RZ", &[S::R(0), S::R(1), S::R(2)]),
    ("fma_rm", "FFMA.RM", &[S::R(0), S::R(1), S::R(2)]),
    ("fma_rp", "FFMA.RP", &[S::R(0), S::R(1), S::R(2)]),
    ("fma_rn_ftz", "FFMA.FTZ", &[S::R(0), S::R(1), S::R(2)]),
    ("fma_rn_sat", "FFMA.SAT", &[S::R(0), S::R(1), S::R(2)]),
    ("fma_rm_ftz", "FFMA.FTZ.RM", &[S::R(0), S::R(1), S::R(2)]),
    ("min_f32", "FMNMX", &[S::R(0), S::R(1), S::Pt]),
    ("max_f32", "FMNMX", &[S::R(0), S::R(1), S::NotPt]),
    ("min_nan_f32", "FMNMX.NAN", &[S::R(0), S::R(1), S::Pt]),
    ("max_nan_f32", "FMNMX.NAN", &[S::R(0), S::R(1), S::NotPt]),
    ("min_ftz_f32", "FMNMX.FTZ", &[S::R(0), S::R(1), S::Pt]),
    ("setp_ge", "FSETP.GE.AND", &[S::R(0), S::R(1), S::Pt]),
    ("setp_gt", "FSETP.GT.AND", &[S::R(0), S::R(1), S::Pt]),
    ("setp_lt", "FSETP.LT.AND", &[S::R(0), S::R(1), S::Pt]),
    ("setp_ne", "FSETP.NE.AND", &[S::R(0), S::R(1), S::Pt]),
    ("setp_neu", "FSETP.NEU.AND", &[S::R(0), S::R(1), S::Pt]),
    ("setp_geu", "FSETP.GEU.AND", &[S::R(0), S::R(1), S::Pt]),
    ("setp_nan", "FSETP.NAN.AND", &[S::R(0), S::R(1), S::Pt]),
];

#[test]
fn corpus_instructions_compute_what_the_h200_computed() {
    let corpus = corpus();
    let rows = rows();
    let exit = exit_word(&corpus);
    let mut failures = Vec::new();
    for (op, mnem, srcs) in CASES {
        let (mut code, ins, out, text) = find(&corpus, mnem, srcs);
        code.extend_from_slice(&exit);
        let rs = &rows[*op];
        let got = run_rows(&code, &ins, out, rs);
        let bad: Vec<String> = rs
            .iter()
            .zip(&got)
            .filter(|(r, g)| **g as u32 != r.r0 || r.r1 != 0)
            .take(3)
            .map(|(r, g)| format!("{:08x} {:08x} {:08x}: hw {:08x} got {:08x}", r.a, r.b, r.c, r.r0, *g as u32))
            .collect();
        if !bad.is_empty() {
            failures.push(format!("{op} via `{text}`: {}", bad.join("; ")));
        }
    }
    assert!(failures.is_empty(), "{} ops differ:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn a_guard_selects_the_result_per_lane() {
    // @P0 FADD R2, R3, R4 on lanes where P0 is set; R2 keeps its input elsewhere.
    let corpus = corpus();
    let (fadd, ins, out, _) = find(&corpus, "FADD", &[S::R(0), S::R(1)]);
    let mut code = fadd.clone();
    // Set the guard field (bits 12-14 predicate, 15 negate) to P0.
    let w = u128::from_le_bytes(code[..16].try_into().unwrap()) & !(0xf << 12);
    code[..16].copy_from_slice(&w.to_le_bytes());
    code.extend_from_slice(&exit_word(&corpus));
    let mut regs = ins.clone();
    regs.push(out);
    regs.push(P0);
    let opts = Options { reg_inputs: regs, reg_outputs: vec![out], ..Options::default() };
    let f = lift(Isa::Sm86, &code, 0, &opts).expect("lifts");
    let mut inputs: Vec<Input> = SystemValue::ALL.iter().map(|_| Input::Uniform(0)).collect();
    inputs.push(Input::Uniform(0x3f80_0000)); // 1.0
    inputs.push(Input::Uniform(0x4000_0000)); // 2.0
    inputs.push(Input::Uniform(0xdead_beef)); // the old destination
    inputs.push(Input::PerLane((0..32).map(|l| l & 1).collect()));
    let o = run(&f, &Config::default(), &inputs, Memory::default()).expect("runs");
    for (l, v) in o.outputs.iter().enumerate() {
        assert_eq!(v[0], if l & 1 == 1 { 0x4040_0000 } else { 0xdead_beef }, "lane {l}");
    }
}

#[test]
fn unsupported_instructions_are_typed_errors_naming_isa_address_and_instruction() {
    // Every corpus instruction lifts; the corpus' sm_50 PSET with a `.CC` destination (bit 47
    // set; nvdisasm 12.8 prints `PSET.AND.AND R20.CC, P0, PT, PT`) does not, and the NVIDIA
    // lifters share this error path.
    let bytes = 0x5088_8380_e007_0014u64.to_le_bytes().to_vec();
    match isabridge_decoder::lift::sm50::lift_one(Isa::Sm50, &bytes, 0x48, &Options::default()) {
        Err(LiftError::Unsupported { isa, addr, text, .. }) => {
            assert_eq!(isa, Isa::Sm50);
            assert_eq!(addr, 0x48);
            assert_eq!(text, "PSET.AND.AND R20.CC, P0, PT, PT");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(lift(Isa::Gfx1013, &bytes, 0, &Options::default()), Err(LiftError::Unsupported { .. })));
}

/// Run the first corpus instruction spelled `mnem` with sources `srcs` on one lane with the
/// given inputs (in row order); its output register.
fn run_one(corpus: &[(String, Vec<u8>)], mnem: &str, srcs: &[S], inputs: &[u32]) -> u32 {
    let (mut code, ins, out, _) = find(corpus, mnem, srcs);
    code.extend_from_slice(&exit_word(corpus));
    let row = Row { a: inputs[0], b: *inputs.get(1).unwrap_or(&0), c: *inputs.get(2).unwrap_or(&0), r0: 0, r1: 0 };
    let rows: Vec<Row> = (0..32).map(|_| Row { ..row }).collect();
    run_rows(&code, &ins, out, &rows)[0] as u32
}

#[test]
fn sad_is_the_absolute_difference_plus_c() {
    // PTX sad.u32 / sad.s32 (d = c + |a - b|) compile to VABSDIFF.U32 / VABSDIFF
    // (fixtures/nvidia int.sm86).
    let corpus = corpus();
    let rrr = [S::R(0), S::R(1), S::R(2)];
    assert_eq!(run_one(&corpus, "VABSDIFF.U32", &rrr, &[5, 9, 100]), 104);
    assert_eq!(run_one(&corpus, "VABSDIFF.U32", &rrr, &[0xffff_ffff, 1, 0]), 0xffff_fffe);
    assert_eq!(run_one(&corpus, "VABSDIFF", &rrr, &[0xffff_ffff, 1, 7]), 9);
}
