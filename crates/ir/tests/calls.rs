//! Calls between the functions of a module and to external symbols: recursion on a shared
//! register file, the call-depth limit, undefined symbols as typed errors, linking a symbol by
//! name, validator rejections, the text round trip, and the pass pipeline keeping results.

use isabridge_ir::interp::{run, run_module, Config, Input, InterpError, Memory};
use isabridge_ir::module::{parse_module, print_module, validate_module};
use isabridge_ir::ops::call::Callee;
use isabridge_ir::passes::run_pipeline;
use isabridge_ir::validate::ValidateError;
use isabridge_ir::{Module, Op};

/// main puts each lane's n in $0 and 1 in $1 and calls fact, which multiplies $1 by $0 and
/// calls itself with $0 - 1 until $0 <= 1; main returns $1 = n!.
const FACT: &str = "func @main {
  reg $0: i32
  reg $1: i32
bb0:
  %0: i32 = param 0
  writereg $0, %0
  %1: uni i32 = const 0x1
  writereg $1, %1
  call #1
  %2: i32 = readreg $1
  ret %2
}

func @fact {
  callee
  reg $0: i32
  reg $1: i32
bb0:
  %0: i32 = readreg $0
  %1: uni i32 = const 0x1
  %2: b1 = icmp.ule %0, %1
  cbr %2, bb2, bb1
bb1:
  %3: i32 = readreg $1
  %4: i32 = imul.lo %3, %0
  writereg $1, %4
  %5: i32 = isub %0, %1
  writereg $0, %5
  call #1
  br bb2
bb2:
  ret
}
";

fn fact(n: u64) -> u64 {
    (1..=n.max(1)).fold(1u64, |a, k| a.wrapping_mul(k)) & 0xffff_ffff
}

fn lanes(ws: u64, waves: u64, f: impl Fn(u64) -> u64) -> Vec<u64> {
    (0..ws * waves).map(f).collect()
}

fn run_fact(m: &Module, n: &[u64], max_call_depth: u32) -> Result<Vec<u64>, InterpError> {
    let cfg = Config { wave_size: 32, waves: 2, max_call_depth, ..Config::default() };
    let out = run_module(m, &cfg, &[Input::PerLane(n.to_vec())], Memory::default())?;
    Ok(out.outputs.iter().map(|o| o[0]).collect())
}

#[test]
fn recursion_computes_factorials_per_lane() {
    let m = parse_module(FACT).expect("parses");
    validate_module(&m.functions).expect("valid");
    assert_eq!(print_module(&m), FACT);
    // Lanes recurse to different depths (n = lane % 13): the calls split the lanes per depth.
    let n = lanes(32, 2, |t| t % 13);
    let want: Vec<u64> = n.iter().map(|&k| fact(k)).collect();
    assert_eq!(want[12], 479_001_600);
    assert_eq!(run_fact(&m, &n, 64).expect("runs"), want);
}

#[test]
fn pipeline_keeps_calls_and_results() {
    let m = parse_module(FACT).expect("parses");
    let n = lanes(32, 2, |t| (t * 7) % 15);
    let before = run_fact(&m, &n, 64).expect("runs");
    let mut opt = m.clone();
    for f in &mut opt.functions {
        run_pipeline(f).expect("valid after the pipeline");
    }
    validate_module(&opt.functions).expect("module valid after the pipeline");
    let calls = |m: &Module| {
        m.functions.iter().map(|f| f.layout.iter().flat_map(|b| &f.blocks[*b].insts).filter(|v| matches!(f.insts[**v].op, Op::Call(_))).count()).sum::<usize>()
    };
    assert_eq!(calls(&opt), 2);
    assert_eq!(run_fact(&opt, &n, 64).expect("runs"), before);
    // The optimized module round-trips through text too.
    let text = print_module(&opt);
    assert_eq!(print_module(&parse_module(&text).expect("parses")), text);
}

#[test]
fn call_depth_limit_is_a_typed_error() {
    let m = parse_module(FACT).expect("parses");
    // n = 20 needs 20 nested calls of fact.
    let n = lanes(32, 2, |_| 20);
    assert_eq!(run_fact(&m, &n, 19), Err(InterpError::CallDepth(19)));
    assert_eq!(run_fact(&m, &n, 20).expect("runs")[0], fact(20));
}

const EXTERN: &str = "func @main {
  reg $0: i32
bb0:
  %0: i32 = param 0
  writereg $0, %0
  call \"__ocml_twice\"
  %1: i32 = readreg $0
  ret %1
}
";

const TWICE: &str = "func @__ocml_twice {
  callee
  reg $0: i32
bb0:
  %0: i32 = readreg $0
  %1: i32 = iadd %0, %0
  writereg $0, %1
  ret
}
";

#[test]
fn external_call_is_a_typed_error_unless_linked() {
    let f = isabridge_ir::text::parse(EXTERN).expect("parses");
    assert_eq!(isabridge_ir::text::print(&f), EXTERN);
    let cfg = Config::default();
    let n = lanes(32, 1, |t| t + 5);
    assert_eq!(
        run(&f, &cfg, &[Input::PerLane(n.clone())], Memory::default()).map(|_| ()),
        Err(InterpError::UndefinedSymbol("__ocml_twice".into()))
    );
    // The runner links the symbol by giving the module a function of that name.
    let mut m = Module::new(f);
    m.functions.push(isabridge_ir::text::parse(TWICE).expect("parses"));
    let out = run_module(&m, &cfg, &[Input::PerLane(n.clone())], Memory::default()).expect("runs");
    let got: Vec<u64> = out.outputs.iter().map(|o| o[0]).collect();
    assert_eq!(got, n.iter().map(|x| 2 * x).collect::<Vec<_>>());
}

#[test]
fn validator_rejects_bad_calls() {
    let m = parse_module(FACT).expect("parses");
    let call_in_main = |m: &Module| {
        let f = &m.functions[0];
        f.layout.iter().flat_map(|b| &f.blocks[*b].insts).copied().find(|v| matches!(f.insts[*v].op, Op::Call(_))).unwrap()
    };
    let v = call_in_main(&m);
    // A callee index outside the module.
    let mut bad = m.clone();
    bad.functions[0].insts[v].op = Op::Call(Callee::Func(7));
    assert!(matches!(validate_module(&bad.functions), Err(ValidateError::Call { func: 0, why, .. }) if why.contains("does not have")));
    // A callee not marked as called.
    let mut bad = m.clone();
    bad.functions[1].callee = false;
    assert!(matches!(validate_module(&bad.functions), Err(ValidateError::Call { why, .. }) if why.contains("not marked")));
    // A callee with other registers.
    let mut bad = m.clone();
    bad.functions[1].add_reg(isabridge_ir::Type::I32, false, "extra");
    assert!(matches!(validate_module(&bad.functions), Err(ValidateError::Call { why, .. }) if why.contains("registers")));
    // A callee of another execution model.
    let mut bad = m.clone();
    bad.functions[1].model = isabridge_ir::ir::ExecModel::Wave;
    bad.functions[1].wave_size = 32;
    assert!(validate_module(&bad.functions).is_err());
    // An empty symbol name.
    let mut bad = m.clone();
    bad.functions[0].insts[v].op = Op::Call(Callee::Symbol(String::new()));
    assert!(matches!(validate_module(&bad.functions), Err(ValidateError::Type { .. })));
    // A call with an operand.
    let mut bad = m.clone();
    let k = bad.functions[0].layout[0];
    let first = bad.functions[0].blocks[k].insts[0];
    bad.functions[0].insts[v].args.push(first);
    assert!(matches!(validate_module(&bad.functions), Err(ValidateError::ArgCount { .. })));
    // A linked symbol must fit like a module function.
    let mut bad = Module::new(isabridge_ir::text::parse(EXTERN).expect("parses"));
    let mut twice = isabridge_ir::text::parse(TWICE).expect("parses");
    twice.callee = false;
    bad.functions.push(twice);
    assert!(matches!(validate_module(&bad.functions), Err(ValidateError::Call { .. })));
    // Malformed call text.
    for t in ["call", "call #x", "call \"\"", "call foo"] {
        let text = EXTERN.replace("call \"__ocml_twice\"", t);
        assert!(isabridge_ir::text::parse(&text).is_err(), "{t}");
    }
}
