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
