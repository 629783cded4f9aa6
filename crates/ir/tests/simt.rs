//! Per-lane (SIMT) control flow with explicit reconvergence: nested divergence, loops with break
//! and continue, early exit, and warp ops (shuffle, vote, match, redux, barriers) inside
//! divergent regions. Each test states what CUDA's semantics give for the equivalent source and
//! computes the expected values independently of the interpreter.

use isabridge_ir::interp::{run, Config, Input, InterpError, Memory};
use isabridge_ir::text::parse;
use isabridge_ir::validate::{validate, ValidateError};

fn go(text: &str, waves: u32, inputs: &[Input], mem: Memory) -> Result<isabridge_ir::interp::Outcome, InterpError> {
    let f = parse(text).expect("parses");
    validate(&f).expect("valid");
    run(&f, &Config { wave_size: 32, waves, max_steps: 100_000, ..Config::default() }, inputs, mem)
}

fn per_lane(f: impl Fn(u64) -> u64) -> Input {
    Input::PerLane((0..64).map(f).collect())
}

fn mask_of(f: impl Fn(u64) -> bool) -> u64 {
    (0..32).filter(|&l| f(l)).fold(0, |a, l| a | 1 << l)
}

/// if (lane < 16) { if (lane & 1) .. else .. } else { if (lane >= 24) .. else .. }: each inner
/// branch sees its own lanes, each half rejoins at its inner join, and the whole warp at the
/// outer one. The final ballot syncs on the full member mask instead of an explicit join.
#[test]
fn nested_divergence_rejoins_at_each_region_end() {
    let text = "func @nested {
bb0:
  %0: i32 = laneid
  %1: uni i32 = const 0x10
  %2: b1 = icmp.ult %0, %1
  %3: uni mask = converge.open
  %60: uni i32 = const 0x1
  %61: uni i32 = const 0x18
  cbr %2, bb1, bb4
bb1:
  %10: uni mask = converge.open
  %11: i32 = and %0, %60
  %12: b1 = icmp.ne %11, %60
  cbr %12, bb2, bb3
bb2:
  %13: uni mask = activemask
  br bb7
bb3:
  %14: uni mask = activemask
  br bb7
bb7:
  %15: mask = phi [bb2: %13], [bb3: %14]
  converge.join %10
  %16: uni mask = activemask
  br bb10
bb4:
  %20: uni mask = converge.open
  %21: b1 = icmp.uge %0, %61
  cbr %21, bb5, bb6
bb5:
  %22: uni mask = activemask
  br bb8
bb6:
  %23: uni mask = activemask
  br bb8
bb8:
  %24: mask = phi [bb5: %22], [bb6: %23]
  converge.join %20
  %25: uni mask = activemask
  br bb10
bb10:
  %30: mask = phi [bb7: %15], [bb8: %24]
  %31: mask = phi [bb7: %16], [bb8: %25]
  %32: uni mask = activemask
  %33: uni mask = const 0xffffffff
  %34: b1 = icmp.ult %0, %61
  %35: uni mask = ballot %34, %33
  %36: uni mask = activemask
  converge.join %3
  %37: uni mask = activemask
  ret %30, %31, %32, %35, %36, %37
}";
    let out = go(text, 1, &[], Memory::default()).expect("runs");
    for (l, o) in out.outputs.iter().enumerate() {
        let l = l as u64;
        let inner = if l < 16 {
            mask_of(|k| k < 16 && k & 1 == l & 1)
        } else {
            mask_of(|k| k >= 16 && (k >= 24) == (l >= 24))
        };
        let half = if l < 16 { 0xffff } else { 0xffff_0000 };
        // Before the member-mask ballot the halves are apart; the ballot syncs them.
        assert_eq!(o, &vec![inner, half, half, 0x00ff_ffff, 0xffff_ffff, 0xffff_ffff], "lane {l}");
    }
}

/// for (i = 0; ; i++) { if (i >= lim) break; if (i == skip) continue; acc += i; }
/// The loop's region is opened before it and joined after it; each iteration opens a region for
/// its continue path, which breaking lanes leave. Inside the latch the active mask is the set of
/// lanes still looping; after the loop the whole warp is back together.
#[test]
fn loop_with_break_and_continue() {
    let text = "func @loop {
bb0:
  %0: i32 = param 0
  %1: i32 = param 1
  %2: uni i32 = const 0x0
  %3: uni i32 = const 0x1
  %4: uni mask = converge.open
  %5: uni mask = const 0x0
  br bb1
bb1:
  %10: i32 = phi [bb0: %2], [bb5: %30]
  %11: i32 = phi [bb0: %2], [bb5: %31]
  %12: mask = phi [bb0: %5], [bb5: %33]
  %13: uni mask = converge.open
  %14: b1 = icmp.uge %10, %0
  cbr %14, bb2, bb3
bb2:
  converge.leave %13
  br bb6
bb3:
  %15: b1 = icmp.eq %10, %1
  cbr %15, bb5, bb4
bb4:
  %20: i32 = iadd %11, %10
  br bb5
bb5:
  %31: i32 = phi [bb3: %11], [bb4: %20]
  converge.join %13
  %32: uni mask = activemask
  %33: mask = xor %12, %32
  %30: i32 = iadd %10, %3
  br bb1
bb6:
  converge.join %4
  %40: uni mask = activemask
  ret %11, %12, %40
}";
    let lim = |l: u64| (l * 7) % 11;
    let skip = |l: u64| (l * 5) % 6;
    let out = go(text, 1, &[per_lane(lim), per_lane(skip)], Memory::default()).expect("runs");
    for (l, o) in out.outputs.iter().enumerate() {
        let l = l as u64;
        let acc: u64 = (0..lim(l)).filter(|&i| i != skip(l)).sum();
        let masks = (0..lim(l)).fold(0u64, |a, i| a ^ mask_of(|k| lim(k) > i));
        assert_eq!(o, &vec![acc, masks, 0xffff_ffff], "lane {l}");
    }
}

/// if (lane >= 28) return; inside a region: the join and the full-mask ballot and shuffle that
/// follow wait only for the lanes that did not exit.
#[test]
fn early_exit_leaves_the_warp() {
    let text = "func @exit {
bb0:
  %0: i32 = laneid
  %1: uni i32 = const 0x1c
  %2: uni mask = converge.open
  %3: b1 = icmp.uge %0, %1
  cbr %3, bb1, bb2
bb1:
  %4: uni i32 = const 0xdead
  ret %4, %4, %4
bb2:
  %5: uni i32 = const 0x5
  %6: b1 = icmp.ult %0, %5
  cbr %6, bb3, bb4
bb3:
  br bb4
bb4:
  converge.join %2
  %7: uni mask = activemask
  %8: uni mask = const 0xffffffff
  %9: uni b1 = const 0x1
  %10: uni mask = ballot %9, %8
  %11: uni i32 = const 0x1
  %12: uni i32 = const 0x1f
  %13: i32 = shfl.bfly %0, %11, %12, %8
  ret %7, %10, %13
}";
    let out = go(text, 1, &[], Memory::default()).expect("runs");
    for (l, o) in out.outputs.iter().enumerate() {
        let l = l as u64;
        let want = if l >= 28 { vec![0xdead; 3] } else { vec![0x0fff_ffff, 0x0fff_ffff, l ^ 1] };
        assert_eq!(o, &want, "lane {l}");
    }
}

/// Shuffles, votes, match and redux inside the two halves of a divergent branch, each with its
/// half as the member mask: __shfl_down_sync(m, x, 1, 16), __shfl_up_sync(m, x, 2, 16),
/// __match_any_sync(m, x & 3), __reduce_add_sync(m, x), __all_sync(m, x > 3), vote.uni.
#[test]
fn warp_ops_inside_divergent_regions() {
    let text = "func @warp {
bb0:
  %0: i32 = laneid
  %1: i32 = param 0
  %2: uni i32 = const 0x10
  %3: b1 = icmp.ult %0, %2
  %4: uni mask = converge.open
  %5: uni i32 = const 0x101f
  %6: uni i32 = const 0x3
  %7: i32 = and %1, %6
  %8: uni i32 = const 0x3
  %9: b1 = icmp.ugt %1, %8
  cbr %3, bb1, bb2
bb1:
  %10: uni mask = const 0xffff
  %11: uni i32 = const 0x1
  %12: i32 = shfl.down %1, %11, %5, %10
  %13: mask = match.any %7, %10
  %14: i32 = redux.add %1, %10
  %15: b1 = vote.all %9, %10
  %16: b1 = vote.eq %9, %10
  br bb3
bb2:
  %20: uni mask = const 0xffff0000
  %21: uni i32 = const 0x2
  %27: uni i32 = const 0x1000
  %22: i32 = shfl.up %1, %21, %27, %20
  %23: mask = match.any %7, %20
  %24: i32 = redux.add %1, %20
  %25: b1 = vote.all %9, %20
  %26: b1 = vote.eq %9, %20
  br bb3
bb3:
  %30: i32 = phi [bb1: %12], [bb2: %22]
  %31: mask = phi [bb1: %13], [bb2: %23]
  %32: i32 = phi [bb1: %14], [bb2: %24]
  %33: b1 = phi [bb1: %15], [bb2: %25]
  %34: b1 = phi [bb1: %16], [bb2: %26]
  converge.join %4
  ret %30, %31, %32, %33, %34
}";
    // Half 0 has every x > 3 (so vote.all and vote.eq hold); half 1 has a mix.
    let x = |l: u64| if l < 16 { 4 + l * 3 } else { (l * 13) % 9 };
    let out = go(text, 1, &[per_lane(x)], Memory::default()).expect("runs");
    for (l, o) in out.outputs.iter().enumerate() {
        let l = l as u64;
        let half: Vec<u64> = if l < 16 { (0..16).collect() } else { (16..32).collect() };
        let shfl = if l < 16 {
            // down 1 within segments of 16: lane 15 is out of range and reads its own value.
            if l < 15 { x(l + 1) } else { x(l) }
        } else if l - 16 >= 2 {
            x(l - 2)
        } else {
            x(l)
        };
        let matched = half.iter().filter(|&&k| x(k) & 3 == x(l) & 3).fold(0, |a, k| a | 1 << k);
        let sum = half.iter().map(|&k| x(k)).sum::<u64>() & 0xffff_ffff;
        let all = half.iter().all(|&k| x(k) > 3) as u64;
        let eq = (half.iter().all(|&k| x(k) > 3) || half.iter().all(|&k| x(k) <= 3)) as u64;
        assert_eq!(o, &vec![shfl, matched, sum, all, eq], "lane {l}");
    }
    let mixed = (16..32).any(|k| x(k) > 3) && (16..32).any(|k| x(k) <= 3);
    assert!(mixed, "half 1 mixes both votes");
}

/// Producer and consumer on named barrier 1 (wave 0 stores, then arrives; wave 1 waits with a
/// count of 64 threads, then loads), then bar.red.popc / and / or on barrier 0 over the whole
/// workgroup of 64 threads.
#[test]
fn named_barriers_arrive_and_reduce() {
    let text = "func @bar {
bb0:
  %0: i32 = laneid
  %1: uni i32 = waveid
  %2: uni i32 = const 0x0
  %3: uni i32 = const 0x1
  %4: uni i32 = const 0x40
  %5: uni i32 = const 0x4
  %6: i32 = imul.lo %0, %5
  %7: b1 = icmp.eq %1, %2
  cbr %7, bb1, bb2
bb1:
  %10: uni i32 = const 0x100
  %11: i32 = iadd %0, %10
  store.shared %6, %11
  bar.arrive %3, %4
  br bb3
bb2:
  bar.sync %3, %4
  %20: i32 = load.shared %6
  br bb3
bb3:
  %30: i32 = phi [bb1: %2], [bb2: %20]
  %31: i32 = and %0, %3
  %32: b1 = icmp.eq %31, %3
  %33: i32 = bar.red.popc %2, %2, %32
  %34: b1 = icmp.ult %0, %4
  %35: b1 = bar.red.and %2, %2, %34
  %36: b1 = bar.red.and %2, %2, %32
  %37: b1 = bar.red.or %2, %2, %32
  ret %30, %33, %35, %36, %37
}";
    let mem = Memory { shared: vec![0; 128], ..Memory::default() };
    let out = go(text, 2, &[], mem).expect("runs");
    for (t, o) in out.outputs.iter().enumerate() {
        let l = t as u64 % 32;
        let loaded = if t >= 32 { 0x100 + l } else { 0 };
        assert_eq!(o, &vec![loaded, 32, 1, 0, 1], "thread {t}");
    }
}

/// A join that can never complete (lanes wait at two different joins for each other) is a
/// typed error, and regions exist only in lanes-model functions.
#[test]
fn deadlock_and_model_are_checked() {
    let text = "func @dead {
bb0:
  %0: i32 = laneid
  %1: uni i32 = const 0x10
  %2: b1 = icmp.ult %0, %1
  %3: uni mask = converge.open
  cbr %2, bb1, bb2
bb1:
  converge.join %3
  ret
bb2:
  converge.join %3
  ret
}";
    assert_eq!(go(text, 1, &[], Memory::default()).map(|_| ()), Err(InterpError::Deadlock));
    let wave = "func @w {
  wave 32
bb0:
  %0: uni mask = converge.open
  ret
}";
    let f = parse(wave).expect("parses");
    assert!(matches!(validate(&f), Err(ValidateError::Type { .. })));
}

/// Two regions meet at one join instruction (as an inner and an outer call's regions do in
/// recursive code lifted as jumps): the lower half opens region A and the upper half region B;
/// A's odd lanes and B's lanes (in two groups, split by a branch) reach the join, while A's
/// even lanes first sync with B (`converge.sync` over B and A's even lanes), which B reaches
/// only after its join. B's join is complete without A's lanes, so it goes on; then the sync
/// completes and A's even lanes complete A's join. (Waiting until every group at the instruction were complete would
/// deadlock.) Each half leaves as one group: its active mask at the end.
#[test]
fn different_regions_joining_at_one_instruction_are_apart() {
    let text = "func @apart {
bb0:
  %0: i32 = laneid
  %1: uni i32 = const 0x10
  %2: b1 = icmp.ult %0, %1
  %60: uni i32 = const 0x1
  %13: uni mask = const 0xffff5555
  cbr %2, bb1, bb2
bb1:
  %10: uni mask = converge.open
  %11: i32 = and %0, %60
  %12: b1 = icmp.ne %11, %60
  cbr %12, bb3, bb4
bb3:
  br bb6
bb4:
  br bb5
bb2:
  %20: uni mask = converge.open
  %21: uni i32 = const 0x18
  %22: b1 = icmp.ult %0, %21
  cbr %22, bb10, bb11
bb10:
  br bb5
bb11:
  br bb5
bb5:
  %30: mask = phi [bb4: %10], [bb10: %20], [bb11: %20], [bb7: %50]
  converge.join %30
  cbr %2, bb8, bb9
bb9:
  br bb6
bb6:
  %50: mask = phi [bb3: %10], [bb9: %30]
  converge.sync %13
  cbr %2, bb7, bb8
bb7:
  br bb5
bb8:
  %40: uni mask = activemask
  ret %40
}";
    let out = go(text, 1, &[], Memory::default()).expect("runs");
    for (l, o) in out.outputs.iter().enumerate() {
        let half = if l < 16 { 0xffff } else { 0xffff_0000 };
        assert_eq!(o, &vec![half], "lane {l}");
    }
}
