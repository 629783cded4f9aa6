//! Pass snapshots, text round trips, typed errors for malformed text and invalid IR.

use isabridge_ir::interp::{run, Config, Input, Memory};
use isabridge_ir::passes::{self, pipeline};
use isabridge_ir::text::{parse, print, ParseErrorKind};
use isabridge_ir::validate::{validate, ValidateError};
use isabridge_ir::{Block, Function, Op, Terminator, Type, Value};

const SAMPLE: &str = "func @sample {
  reg $0: i32
  reg $1: i32
bb0:
  %0: i32 = param 0
  %1: uni i32 = const 0x0
  %2: uni i32 = const 0x4
  writereg $0, %1
  writereg $1, %2
  %3: uni i32 = const 0x3
  %4: uni i32 = const 0x5
  %5: i32 = iadd %3, %4
  %6: i32 = imul.lo %3, %0
  br bb1
bb1:
  %7: i32 = readreg $0
  %8: i32 = iadd %7, %0
  writereg $0, %8
  %9: i32 = readreg $1
  %10: uni i32 = const 0x1
  %11: i32 = isub %9, %10
  writereg $1, %11
  %12: b1 = icmp.ne %11, %1
  cbr %12, bb1, bb2
bb2:
  %13: i32 = readreg $0
  %14: uni b1 = const 0x1
  cbr %14, bb3, bb4
bb3:
  %15: i32 = iadd %13, %5
  writereg $0, %15
  br bb5
bb4:
  writereg $0, %1
  br bb5
bb5:
  %16: i32 = readreg $0
  ret %16
}
";

fn outputs(f: &Function) -> Vec<u64> {
    let lanes: Vec<u64> = (0..64u64).map(|i| i * 0x9e37_79b9 + 7).collect();
    let cfg = Config { wave_size: 32, waves: 2, ..Config::default() };
    let out = run(f, &cfg, &[Input::PerLane(lanes)], Memory::default()).expect("runs");
    out.outputs.iter().map(|o| o[0]).collect()
}

#[test]
fn sample_round_trips_and_computes() {
    let f = parse(SAMPLE).expect("parses");
    validate(&f).expect("valid");
    assert_eq!(print(&f), SAMPLE);
    // Independent expectation: 4 iterations add the input, then 3 + 5 is added.
    let want: Vec<u64> = (0..64u64).map(|i| ((i * 0x9e37_79b9 + 7) as u32).wrapping_mul(4).wrapping_add(8) as u64).collect();
    assert_eq!(outputs(&f), want);
}

#[test]
fn each_pass_snapshot_and_semantics() {
    let mut f = parse(SAMPLE).expect("parses");
    let before = outputs(&f);
    for (name, pass) in pipeline() {
        let changed = pass(&mut f);
        assert!(changed, "{name} should change the sample");
        validate(&f).unwrap_or_else(|e| panic!("after {name}: {e}"));
        assert_eq!(outputs(&f), before, "{name} changed results");
        insta::assert_snapshot!(name, print(&f));
        // The printed form parses back to the same text.
        assert_eq!(print(&parse(&print(&f)).expect("reparse")), print(&f));
    }
    assert!(!f.layout.iter().any(|b| f.blocks[*b].insts.iter().any(|v| matches!(f.insts[*v].op, Op::ReadReg(_) | Op::WriteReg(_)))));
}

#[test]
fn run_pipeline_validates() {
    let mut f = parse(SAMPLE).expect("parses");
    passes::run_pipeline(&mut f).expect("pipeline");
    // Loop header keeps two phis (sum and counter); everything else folded and merged.
    let phis = f.layout.iter().flat_map(|b| f.blocks[*b].insts.iter()).filter(|v| matches!(f.insts[**v].op, Op::Phi(_))).count();
    assert_eq!(phis, 2);
    assert_eq!(f.layout.len(), 3);
}

fn kind(text: &str) -> ParseErrorKind {
    parse(text).expect_err("must not parse").kind
}

#[test]
fn malformed_text_gives_typed_errors() {
    assert_eq!(kind(""), ParseErrorKind::Header);
    assert_eq!(kind("func @x {\nbb0:\n  ret\n"), ParseErrorKind::Header);
    assert_eq!(kind("func @x {\nbb0:\n  %0: i32 = frobnicate\n  ret\n}"), ParseErrorKind::UnknownOp("frobnicate".into()));
    assert_eq!(kind("func @x {\nbb0:\n  %0: i33 = param 0\n  ret\n}"), ParseErrorKind::UnknownType("i33".into()));
    assert_eq!(kind("func @x {\nbb0:\n  ret %9\n}"), ParseErrorKind::UndefinedValue("%9".into()));
    assert_eq!(kind("func @x {\nbb0:\n  br bb7\n}"), ParseErrorKind::UndefinedBlock("bb7".into()));
    assert_eq!(
        kind("func @x {\nbb0:\n  %0: i32 = param 0\n  %0: i32 = param 1\n  ret\n}"),
        ParseErrorKind::DuplicateValue("%0".into())
    );
    assert_eq!(kind("func @x {\nbb0:\n  ret\nbb0:\n  ret\n}"), ParseErrorKind::DuplicateBlock("bb0".into()));
    assert_eq!(kind("func @x {\n  %0: i32 = param 0\nbb0:\n  ret\n}"), ParseErrorKind::NoBlock);
    assert_eq!(kind("func @x {\nbb0:\n  %0: i32 = const 0xzz\n  ret\n}"), ParseErrorKind::Number("0xzz".into()));
    assert_eq!(kind("func @x {\nbb0:\n  %0: i32 = param 0\n}"), ParseErrorKind::NoTerminator("bb0".into()));
    assert_eq!(kind("func @x {\nbb0:\n  %0: i32 = barrier.wg\n  ret\n}"), ParseErrorKind::Result);
    assert_eq!(kind("func @x {\nbb0:\n  cbr %1\n}"), ParseErrorKind::Malformed);
}

#[test]
fn garbage_text_never_panics() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let alphabet: Vec<char> = "func@{}%$:=,.[]bb0123 uni i32 f32 param const fadd.rn br cbr ret phi\n".chars().collect();
    for _ in 0..3000 {
        let mut s = String::new();
        for _ in 0..(seed % 80) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            s.push(alphabet[(seed % alphabet.len() as u64) as usize]);
        }
        if let Ok(f) = parse(&s) {
            let _ = validate(&f);
        }
        // Mutations of a valid text.
        let mut t: Vec<char> = SAMPLE.chars().collect();
        let i = (seed % t.len() as u64) as usize;
        t[i] = alphabet[(seed >> 20) as usize % alphabet.len()];
        let t: String = t.into_iter().collect();
        if let Ok(f) = parse(&t) {
            let _ = validate(&f);
        }
    }
}

fn one_block(ops: &[(Op, Vec<Value>, Option<Type>)]) -> Function {
    let mut f = Function::new("v");
    let b = f.add_block();
    for (op, args, ty) in ops {
        f.append(b, op.clone(), args, *ty);
    }
    f
}

#[test]
fn invalid_ir_gives_typed_errors() {
    use isabridge_ir::ops::float::{FloatKind, FloatOp};
    use isabridge_ir::soft::Round;
    assert_eq!(validate(&Function::new("e")), Err(ValidateError::NoEntry));
    // Operand count.
    let f = one_block(&[(Op::Param(0), vec![], Some(Type::F32)), (Op::Float(FloatOp::nv(FloatKind::Add, Round::Rn)), vec![Value(0)], Some(Type::F32))]);
    assert!(matches!(validate(&f), Err(ValidateError::ArgCount { expected: 2, found: 1, .. })));
    // Type mismatch.
    let f = one_block(&[(Op::Param(0), vec![], Some(Type::I32)), (Op::Float(FloatOp::nv(FloatKind::Add, Round::Rn)), vec![Value(0), Value(0)], Some(Type::F32))]);
    assert!(matches!(validate(&f), Err(ValidateError::Type { .. })));
    // Use before definition.
    let f = one_block(&[(Op::Bitcast, vec![Value(1)], Some(Type::F32)), (Op::Param(0), vec![], Some(Type::I32))]);
    assert!(matches!(validate(&f), Err(ValidateError::NotDominated { .. })));
    // Unknown value.
    let f = one_block(&[(Op::Bitcast, vec![Value(5)], Some(Type::F32))]);
    assert!(matches!(validate(&f), Err(ValidateError::UnknownValue { .. })));
    // Unknown register.
    let f = one_block(&[(Op::ReadReg(isabridge_ir::Reg(3)), vec![], Some(Type::I32))]);
    assert!(matches!(validate(&f), Err(ValidateError::UnknownReg(_))));
    // Branch to a missing block; non-b1 branch condition.
    let mut f = one_block(&[(Op::Param(0), vec![], Some(Type::I32))]);
    let b0 = f.layout[0];
    f.blocks[b0].term = Terminator::Jump(Block(9));
    assert_eq!(validate(&f), Err(ValidateError::UnknownBlock(Block(9))));
    f.blocks[b0].term = Terminator::Branch(Value(0), b0, b0);
    assert_eq!(validate(&f), Err(ValidateError::BranchCond(b0)));
    // Phi with wrong incoming blocks.
    let mut f = one_block(&[(Op::Param(0), vec![], Some(Type::I32))]);
    let b1 = f.add_block();
    f.blocks[b0].term = Terminator::Jump(b1);
    let p = f.append(b1, Op::Phi(vec![b1]), &[Value(0)], Some(Type::I32));
    assert_eq!(validate(&f), Err(ValidateError::PhiPreds(p)));
    // The interpreter refuses invalid IR with the validator's error.
    let r = run(&f, &Config::default(), &[], Memory::default());
    assert!(matches!(r, Err(isabridge_ir::interp::InterpError::Invalid(ValidateError::PhiPreds(_)))));
}
