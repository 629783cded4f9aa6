//! sm_86 instructions lifted from corpus bytes (fixtures/nvidia/ref/*.sm86.jsonl) and run on the
//! interpreter: F2FP.MERGE_C, NANOSLEEP, BPT.TRAP and guarded barriers.

use isabridge_decoder::lift::sm86::{lift, Options, SystemValue, P0};
use isabridge_decoder::Isa;
use isabridge_ir::interp::{run, Config, Input, InterpError, Memory};
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

/// The bytes of the first sm_86 corpus instruction whose text is `text`.
fn bytes_of(text: &str) -> Vec<u8> {
    let mut files: Vec<_> = std::fs::read_dir(root().join("fixtures/nvidia/ref"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".sm86.jsonl"))
        .collect();
    files.sort();
    for p in files {
        for line in std::fs::read_to_string(&p).unwrap().lines() {
            let r: serde_json::Value = serde_json::from_str(line).unwrap();
            if r["text"] == text {
                return hex(r["bytes"].as_str().unwrap());
            }
        }
    }
    panic!("no `{text}` in the sm_86 corpus");
}

/// The instructions (by corpus text) followed by EXIT.
fn program(texts: &[&str]) -> Vec<u8> {
    let mut code: Vec<u8> = texts.iter().flat_map(|t| bytes_of(t)).collect();
    code.extend(bytes_of("EXIT"));
    code
}

fn inputs(extra: Vec<Input>) -> Vec<Input> {
    let mut v: Vec<Input> = SystemValue::ALL.iter().map(|_| Input::Uniform(0)).collect();
    v.extend(extra);
    v
}

#[test]
fn f2fp_merge_c_puts_the_converted_value_in_the_low_half() {
    // cvt.rn.relu.bf16.f32 (fixtures/nvidia/src/bf16.cu): round to nearest even, negative to
    // +0, NaN to the canonical NaN (PTX ISA, cvt); the high half is C = RZ.
    let code = program(&["F2FP.RELU.BF16.MERGE_C R10, R4, RZ"]);
    let opts = Options { reg_inputs: vec![4], reg_outputs: vec![10], ..Options::default() };
    let f = lift(Isa::Sm86, &code, 0, &opts).expect("lifts");
    isabridge_ir::validate::validate(&f).expect("valid IR");
    let cases: [(u32, u64); 5] = [
        (0x3fc0_0000, 0x3fc0),      // 1.5
        (0x3f80_8000, 0x3f80),      // 1 + 2^-8: a tie, to even
        (0x3f81_8000, 0x3f82),      // 1 + 3 * 2^-8: a tie, to even (up)
        (0xc000_0000, 0x0000),      // -2 -> +0
        (0x7fc0_0001, 0x7fff),      // NaN -> canonical NaN
    ];
    let ins = Input::PerLane((0..32).map(|l| cases[l % cases.len()].0 as u64).collect());
    let o = run(&f, &Config::default(), &inputs(vec![ins]), Memory::default()).expect("runs");
    for (l, v) in o.outputs.iter().enumerate() {
        assert_eq!(v[0], cases[l % cases.len()].1, "lane {l}: {:#x}", cases[l % cases.len()].0);
    }
}

#[test]
fn nanosleep_lifts_to_nothing_the_program_sees() {
    let code = program(&["NANOSLEEP R6", "NANOSLEEP 0x64"]);
    let opts = Options { reg_inputs: vec![6], reg_outputs: vec![6], ..Options::default() };
    let f = lift(Isa::Sm86, &code, 0, &opts).expect("lifts");
    let o = run(&f, &Config::default(), &inputs(vec![Input::Uniform(77)]), Memory::default()).expect("runs");
    assert!(o.outputs.iter().all(|v| v[0] == 77));
}

#[test]
fn bpt_trap_stops_the_run_with_its_code() {
    let code = program(&["BPT.TRAP 0x1"]);
    let f = lift(Isa::Sm86, &code, 0, &Options::default()).expect("lifts");
    isabridge_ir::validate::validate(&f).expect("valid IR");
    assert_eq!(run(&f, &Config::default(), &inputs(vec![]), Memory::default()).err(), Some(InterpError::Trap(1)));
}

#[test]
fn a_guarded_barrier_waits_only_for_the_lanes_whose_guard_holds() {
    // fixtures/nvidia/src/barriers.cu: `if (t < 64) bar.arrive 3, 128; else bar.sync 3, 128;`
    // is `@!P1 BAR.ARV 0x3, 0x80` then `@P1 BAR.SYNC.DEFER_BLOCKING 0x3, 0x80`.
    let code = program(&["@!P1 BAR.ARV 0x3, 0x80", "@P1 BAR.SYNC.DEFER_BLOCKING 0x3, 0x80"]);
    let opts = Options { reg_inputs: vec![P0 + 1], ..Options::default() };
    let f = lift(Isa::Sm86, &code, 0, &opts).expect("lifts");
    isabridge_ir::validate::validate(&f).expect("valid IR");
    let cfg = Config { wave_size: 32, waves: 4, ..Config::default() };
    // Waves 0-1 (t < 64) arrive, waves 2-3 wait: 128 threads, the barrier completes.
    let p1 = Input::PerLane((0..128).map(|t| (t >= 64) as u64).collect());
    run(&f, &cfg, &inputs(vec![p1]), Memory::default()).expect("the barrier completes");
    // Two waves that both wait and none that arrives: the count of 128 is never reached.
    let half = Config { waves: 2, ..cfg };
    let p1 = Input::PerLane((0..64).map(|_| 1).collect());
    assert_eq!(run(&f, &half, &inputs(vec![p1]), Memory::default()).err(), Some(InterpError::Deadlock));
}

/// Run `code` on one wave of 32 lanes with per-lane register inputs and shared memory; the
/// per-lane outputs and the shared memory afterwards.
fn run_shared(code: &[u8], ins: &[(u16, Vec<u64>)], outs: &[u16], shared: Vec<u8>) -> (Vec<Vec<u64>>, Vec<u8>) {
    let opts = Options { reg_inputs: ins.iter().map(|x| x.0).collect(), reg_outputs: outs.to_vec(), ..Options::default() };
    let f = lift(Isa::Sm86, code, 0, &opts).expect("lifts");
    isabridge_ir::validate::validate(&f).expect("valid IR");
    let extra = ins.iter().map(|(_, v)| Input::PerLane(v.clone())).collect();
    let o = run(&f, &Config::default(), &inputs(extra), Memory { shared, ..Memory::default() }).expect("runs");
    (o.outputs, o.memory.shared)
}

#[test]
fn atoms_popc_inc_adds_the_number_of_lanes() {
    let mut shared = vec![0u8; 64];
    shared[0x2c..0x30].copy_from_slice(&5u32.to_le_bytes());
    let (_, mem) = run_shared(&program(&["ATOMS.POPC.INC.32 RZ, [URZ+0x2c]"]), &[], &[], shared);
    assert_eq!(u32::from_le_bytes(mem[0x2c..0x30].try_into().unwrap()), 5 + 32);
}

#[test]
fn atoms_cast_spin_stores_where_the_compare_holds_and_says_so() {
    // 32-bit: only lane 3 expects the 7 in memory; it stores 103 and gets 1, the others 0.
    let mut shared = vec![0u8; 128];
    shared[0x28..0x2c].copy_from_slice(&7u32.to_le_bytes());
    let cmp = (0..32).map(|l| if l == 3 { 7 } else { 8 }).collect();
    let new = (0..32).map(|l| 100 + l).collect();
    let (out, mem) = run_shared(&program(&["ATOMS.CAST.SPIN R5, [0x28], R4, R5"]), &[(4, cmp), (5, new)], &[5], shared.clone());
    for (l, v) in out.iter().enumerate() {
        assert_eq!(v[0], (l == 3) as u64, "lane {l}");
    }
    assert_eq!(u32::from_le_bytes(mem[0x28..0x2c].try_into().unwrap()), 103);
    // 64-bit at [R7] = 0x40: lane 5 expects 0x1_0000_0002 and stores {lane, 0xabc}.
    shared[0x40..0x48].copy_from_slice(&0x1_0000_0002u64.to_le_bytes());
    let addr = vec![0x40; 32];
    let lo = (0..32).map(|l| if l == 5 { 2 } else { 0 }).collect();
    let hi = (0..32).map(|l| if l == 5 { 1 } else { 0 }).collect();
    let nlo = (0..32).collect();
    let nhi = vec![0xabc; 32];
    let code = program(&["ATOMS.CAST.SPIN.64 R14, [R7], R12, R14"]);
    let (out, mem) = run_shared(&code, &[(7, addr), (12, lo), (13, hi), (14, nlo), (15, nhi)], &[14, 15], shared);
    for (l, v) in out.iter().enumerate() {
        assert_eq!((v[0], v[1]), ((l == 5) as u64, 0), "lane {l}");
    }
    assert_eq!(u64::from_le_bytes(mem[0x40..0x48].try_into().unwrap()), 0xabc_0000_0005);
}
