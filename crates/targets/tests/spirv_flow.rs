//! Control flow the SPIR-V backend had refused, on Vulkan (lavapipe) against the interpreter:
//! modules of several functions with recursion linked into one function (`link_calls`), the
//! explicit return stack's depth trap, a halting interrupt, and the block dot product of
//! NVIDIA's `mma.sync` forms (`fblockdot`) on random and special operands.

use isabridge_ir::interp::{self, Config, Input, InterpError, Memory};
use isabridge_ir::module::parse_module;
use isabridge_ir::passes::run_pipeline;
use isabridge_ir::text::parse;
use isabridge_targets::spirv::{emit, link_calls, EmitError, Kernel, CALL_DEPTH_TRAP, HALT_TRAP, MOST_PENDING_CALLS};
use isabridge_targets::vulkan::{Dispatch, Vulkan, VulkanError};

mod lavapipe;
use lavapipe::{open, rng};

/// The per-lane outputs of `k` on Vulkan over per-lane parameter rows (`rows[p][lane]`).
fn vulkan_outputs(vk: &Vulkan, k: &Kernel, rows: &[Vec<u64>]) -> Result<Vec<Vec<u64>>, VulkanError> {
    let n = rows[0].len();
    let params: Vec<u64> = (0..n).flat_map(|lane| rows.iter().map(move |r| r[lane])).collect();
    let out = vk.run(k, &Dispatch { invocations: n as u32, params: &params, constant: &[] })?;
    Ok(out.chunks(k.outputs as usize).map(|c| c.to_vec()).collect())
}

/// The interpreter's per-lane outputs of `f` over the rows (waves of 32).
fn interp_outputs(f: &isabridge_ir::Function, rows: &[Vec<u64>]) -> Result<Vec<Vec<u64>>, InterpError> {
    let cfg = Config { wave_size: 32, waves: rows[0].len() as u32 / 32, ..Config::default() };
    let inputs: Vec<Input> = rows.iter().map(|r| Input::PerLane(r.clone())).collect();
    Ok(interp::run(f, &cfg, &inputs, Memory::default())?.outputs)
}

/// main puts each lane's n in $0 and 1 in $1 and calls fact, which multiplies $1 by $0 and
/// calls itself with $0 - 1 until $0 <= 1 (crates/ir/tests/calls.rs); after the call main
/// calls twice, which doubles $1 through a second function, so a callee has two call sites.
const FACT: &str = "func @main {
  reg $0: i32
  reg $1: i32
bb0:
  %0: i32 = param 0
  writereg $0, %0
  %1: uni i32 = const 0x1
  writereg $1, %1
  call #1
  call #2
  %2: i32 = readreg $1
  %3: i32 = readreg $0
  ret %2, %3
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
  call #2
  br bb2
bb2:
  ret
}

func @twice {
  callee
  reg $0: i32
  reg $1: i32
bb0:
  %0: i32 = readreg $1
  %1: i32 = iadd %0, %0
  writereg $1, %1
  ret
}
";

/// The linked function (after the IR pipeline) computes what the module computes on the
/// interpreter (recursion of per-lane depth, a callee of several call sites), and its SPIR-V
/// writes the same outputs on Vulkan; a recursion deeper than the return stack traps there
/// with `CALL_DEPTH_TRAP`, where the interpreter stops at its call-depth limit of the same 64.
#[test]
fn linked_calls_equal_the_module_on_the_interpreter_and_vulkan() {
    let m = parse_module(FACT).expect("parses");
    let mut f = link_calls(&m).expect("links");
    run_pipeline(&mut f).expect("pipeline");
    let k = emit(&f).unwrap_or_else(|e| panic!("emit: {e}"));
    let vk = open();
    let n: Vec<u64> = (0..64).map(|t| (t * 7) % 20).collect();
    let rows = [n.clone()];
    let cfg = Config { wave_size: 32, waves: 2, ..Config::default() };
    let want = interp::run_module(&m, &cfg, &[Input::PerLane(n.clone())], Memory::default()).expect("module runs").outputs;
    // fact(n) with a doubling after every multiply: lane 3 (n = 1) is 2, lane 1 (n = 7) is
    // 7! * 2^7.
    assert_eq!(want[3][0], 2);
    assert_eq!(want[1][0], 5040 << 7);
    assert_eq!(interp_outputs(&f, &rows).expect("linked runs"), want);
    assert_eq!(vulkan_outputs(&vk, &k, &rows).expect("vulkan runs"), want);
    // Depth: n = 70 makes 69 nested calls of fact.
    let deep = [(0..64).map(|t| if t == 9 { 70 } else { 3 }).collect::<Vec<u64>>()];
    assert!(matches!(interp::run_module(&m, &cfg, &[Input::PerLane(deep[0].clone())], Memory::default()), Err(InterpError::CallDepth(64))));
    assert_eq!(MOST_PENDING_CALLS, 64);
    match vulkan_outputs(&vk, &k, &deep) {
        Err(VulkanError::Trap { code, invocation: 9 }) if code == CALL_DEPTH_TRAP => {}
        other => panic!("{other:?}"),
    }
}

/// A value defined before a call and used after it is refused: a recursive activation would
/// have redefined it.
#[test]
fn a_value_used_across_a_call_is_refused() {
    let text = FACT.replace("  call #1\n  call #2\n  br bb2", "  call #1\n  %6: i32 = iadd %4, %5\n  writereg $1, %6\n  br bb2");
    let m = parse_module(&text).expect("parses");
    match link_calls(&m) {
        Err(EmitError::Unsupported { why, .. }) => assert!(why.contains("used after a call"), "{why}"),
        other => panic!("{other:?}"),
    }
}

/// `interrupt.halt` ends the run: the interpreter reports the halt and the module records
/// `HALT_TRAP`; a plain interrupt does nothing.
#[test]
fn a_halting_interrupt_ends_the_run() {
    let f = parse(
        "func @halt {
bb0:
  %0: i32 = param 0
  interrupt
  %1: i32 = const 0x3
  %2: i32 = iadd %0, %1
  interrupt.halt
  ret %2
}",
    )
    .unwrap();
    let k = emit(&f).unwrap_or_else(|e| panic!("emit: {e}"));
    assert!(k.traps);
    let rows = [(0..32).collect::<Vec<u64>>()];
    assert!(matches!(interp_outputs(&f, &rows), Err(InterpError::Halt)));
    match vulkan_outputs(&open(), &k, &rows) {
        Err(VulkanError::Trap { code, .. }) if code == HALT_TRAP => {}
        other => panic!("{other:?}"),
    }
}

/// An element of a 16-bit float format (`exp_bits` exponent bits, f16 or bf16) or an f32:
/// zeros, infinities, NaNs, subnormals, and values of a narrow exponent range (so that terms
/// cancel and truncate against each other).
fn element(seed: &mut u64, width: u32, exp_bits: u32) -> u64 {
    let x = rng(seed);
    let man = width - 1 - exp_bits;
    let all = (1u64 << width) - 1;
    let sign = (x >> 63) << (width - 1);
    let bias = (1u64 << (exp_bits - 1)) - 1;
    match x % 16 {
        0 => sign,
        1 => sign | (((1 << exp_bits) - 1) << man),
        2 => sign | (((1 << exp_bits) - 1) << man) | ((x >> 8) & ((1 << man) - 1)).max(1),
        3 => sign | ((x >> 8) & ((1 << man) - 1)),
        4..=6 => (x >> 8) & all,
        _ => sign | ((bias - 3 + (x >> 20) % 7) << man) | ((x >> 8) & ((1 << man) - 1)),
    }
}

/// `fblockdot` in the forms the sm_86 lifter gives `mma.sync` (16 f16 or bf16 products, or 8
/// tf32 ones, into an f32 accumulator rounding toward zero or an f16 one rounding to nearest)
/// writes the interpreter's bits on Vulkan for random and special operands.
#[test]
fn block_dot_products_equal_the_interpreter() {
    let vk = open();
    // (element type, element width and exponent bits, n, frac, result type, result width and
    // exponent bits, rounding)
    let forms = [
        ("f16", 16, 5, 16, 10, "f32", 32, 8, "rz"),
        ("bf16", 16, 8, 16, 7, "f32", 32, 8, "rz"),
        ("f32", 32, 8, 8, 10, "f32", 32, 8, "rz"),
        ("f16", 16, 5, 16, 10, "f16", 16, 5, "rn"),
    ];
    let mut seed = 0x0b10_cd07_u64;
    for (elem, ew, ee, n, frac, res, rw, re, round) in forms {
        let mut text = String::from("func @dot {\nbb0:\n");
        for i in 0..2 * n {
            text += &format!("  %{i}: {elem} = param {i}\n");
        }
        text += &format!("  %{}: {res} = param {}\n", 2 * n, 2 * n);
        let args: Vec<String> = (0..=2 * n).map(|i| format!("%{i}")).collect();
        text += &format!("  %{}: {res} = fblockdot.n{n}.{elem}.frac{frac}.keep25.{round} {}\n  ret %{}\n}}", 2 * n + 1, args.join(", "), 2 * n + 1);
        let f = parse(&text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
        let k = emit(&f).unwrap_or_else(|e| panic!("{elem} into {res}: {e}"));
        for round_no in 0..8 {
            let lanes = 256;
            let mut rows: Vec<Vec<u64>> = (0..2 * n).map(|_| (0..lanes).map(|_| element(&mut seed, ew, ee)).collect()).collect();
            // Specials are rare per dot product: most lanes take finite elements only.
            for lane in 0..lanes {
                if lane % 4 != 0 {
                    for row in rows.iter_mut() {
                        let bias = (1u64 << (ee - 1)) - 1;
                        let man = ew - 1 - ee;
                        let x = rng(&mut seed);
                        row[lane] = ((x >> 63) << (ew - 1)) | ((bias - 4 + (x >> 20) % 9) << man) | ((x >> 8) & ((1 << man) - 1));
                    }
                }
            }
            rows.push((0..lanes).map(|_| element(&mut seed, rw, re)).collect());
            let want = interp_outputs(&f, &rows).expect("interpreter");
            let got = vulkan_outputs(&vk, &k, &rows).expect("vulkan");
            for (lane, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g, w, "{elem} into {res} round {round_no} lane {lane}: operands {:x?}", rows.iter().map(|r| r[lane]).collect::<Vec<_>>());
            }
            assert_eq!(got.len(), lanes);
        }
    }
}
