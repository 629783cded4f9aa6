//! Interpreter behaviour: workgroups, barriers and shared memory, divergence and active masks,
//! global memory and atomics, constant banks, errors.

use isabridge_ir::interp::{run, Config, Input, InterpError, Memory};
use isabridge_ir::ops::mem::Space;
use isabridge_ir::text::parse;

fn go(text: &str, cfg: &Config, mem: Memory) -> Result<isabridge_ir::interp::Outcome, InterpError> {
    let f = parse(text).expect("parses");
    run(&f, cfg, &[], mem)
}

#[test]
fn barrier_and_shared_memory_across_waves() {
    // Each thread stores its id, waits at the barrier, then reads its neighbour's slot.
    let text = "func @nb {
bb0:
  %0: i32 = laneid
  %1: uni i32 = waveid
  %2: uni i32 = wavesize
  %3: i32 = imad.lo %1, %2, %0
  %4: uni i32 = const 0x4
  %5: i32 = imul.lo %3, %4
  store.shared %5, %3
  barrier.wg
  %6: uni i32 = const 0x1
  %7: i32 = iadd %3, %6
  %8: uni i32 = const 0xff
  %9: i32 = and %7, %8
  %10: i32 = imul.lo %9, %4
  %11: i32 = load.shared %10
  ret %11
}";
    let cfg = Config { wave_size: 64, waves: 4, ..Config::default() };
    let mem = Memory { shared: vec![0; 256 * 4], ..Memory::default() };
    let out = go(text, &cfg, mem).expect("runs");
    let got: Vec<u64> = out.outputs.iter().map(|o| o[0]).collect();
    let want: Vec<u64> = (0..256u64).map(|t| (t + 1) % 256).collect();
    assert_eq!(got, want);
}

#[test]
fn divergent_lanes_see_their_active_mask() {
    // The region opened before the branch rejoins at bb3: the mask there is the whole wave.
    // Without the join the two groups stay apart (lanes rejoin only where the IR says).
    let text = |join: &str| {
        format!(
            "func @div {{
bb0:
  %0: i32 = laneid
  %1: uni i32 = const 0x5
  %2: b1 = icmp.ult %0, %1
  %7: uni mask = converge.open
  cbr %2, bb1, bb2
bb1:
  %3: uni mask = activemask
  br bb3
bb2:
  %4: uni mask = activemask
  br bb3
bb3:
  %5: mask = phi [bb1: %3], [bb2: %4]
  {join}
  %6: uni mask = activemask
  ret %5, %6
}}"
        )
    };
    let cfg = Config { wave_size: 32, waves: 2, ..Config::default() };
    for joined in [true, false] {
        let out = go(&text(if joined { "converge.join %7" } else { "" }), &cfg, Memory::default()).expect("runs");
        for (t, o) in out.outputs.iter().enumerate() {
            let lane = t % 32;
            let want_branch = if lane < 5 { 0x1f } else { 0xffff_ffe0 };
            let want_after = if joined { 0xffff_ffff } else { want_branch };
            assert_eq!(o, &vec![want_branch, want_after], "thread {t} joined {joined}");
        }
    }
}

#[test]
fn global_atomics_and_constant_bank() {
    let text = "func @atom {
bb0:
  %0: uni i64 = const 0x1000
  %1: uni i32 = const 0x4
  %2: i32 = load.const3 %1
  %3: i32 = atomic.add.global.dev %0, %2
  ret %3
}";
    let cfg = Config { wave_size: 32, waves: 3, ..Config::default() };
    let mem = Memory { global: vec![(0x1000, vec![0; 8])], constant: vec![vec![], vec![], vec![], vec![0, 0, 0, 0, 7, 0, 0, 0]], ..Memory::default() };
    let out = go(text, &cfg, mem).expect("runs");
    let total = u32::from_le_bytes(out.memory.global[0].1[..4].try_into().expect("4 bytes"));
    assert_eq!(total, 96 * 7);
    // Old values are 0, 7, 14, ... in thread order (deterministic scheduling).
    let olds: Vec<u64> = out.outputs.iter().map(|o| o[0]).collect();
    assert_eq!(olds, (0..96u64).map(|i| i * 7).collect::<Vec<_>>());
}

#[test]
fn dpp_row_shift_with_bound_ctrl() {
    let text = "func @dpp {
bb0:
  %0: i32 = laneid
  %1: uni i32 = const 0x63
  %2: i32 = dpp.row_shr1 %0, %1
  %3: i32 = dpp.row_shr1.bound0 %0, %1
  %4: i32 = dpp.quad_perm27 %0, %1
  ret %2, %3, %4
}";
    let out = go(text, &Config::default(), Memory::default()).expect("runs");
    for (l, o) in out.outputs.iter().enumerate() {
        let l = l as u64;
        let shr = if l.is_multiple_of(16) { None } else { Some(l - 1) };
        assert_eq!(o[0], shr.unwrap_or(0x63));
        assert_eq!(o[1], shr.unwrap_or(0));
        // quad_perm 27 = 0b00_01_10_11: lane i of a quad reads lane 3 - i.
        assert_eq!(o[2], (l & !3) | (3 - (l & 3)));
    }
}

#[test]
fn errors_are_typed() {
    let oob = "func @oob {
bb0:
  %0: uni i64 = const 0x2000
  %1: i32 = load.global %0
  ret %1
}";
    let err = go(oob, &Config::default(), Memory::default()).expect_err("faults");
    assert_eq!(err, InterpError::OutOfBounds { space: Space::Global, addr: 0x2000, size: 4 });
    let spin = "func @spin {
bb0:
  br bb0
}";
    let cfg = Config { max_steps: 1000, ..Config::default() };
    assert_eq!(go(spin, &cfg, Memory::default()).expect_err("spins"), InterpError::StepLimit(1000));
    let bad = Config { wave_size: 48, ..Config::default() };
    assert!(matches!(go(spin, &bad, Memory::default()), Err(InterpError::Config(_))));
    let f = parse("func @p {\nbb0:\n  %0: i32 = param 0\n  ret %0\n}").expect("parses");
    assert!(matches!(run(&f, &Config::default(), &[Input::PerLane(vec![1; 3])], Memory::default()), Err(InterpError::Config(_))));
}
