//! Workgroup and per-lane memory in emitted SPIR-V run on Vulkan (lavapipe) write what the
//! interpreter computes: a wave-model (AMD) kernel whose two waves share the LDS across an
//! `s_barrier` as one Vulkan workgroup and keep values in their lanes' scratch; a lanes-model
//! (NVIDIA) kernel with shared memory, `bar.sync` and local memory; several-wave kernels whose
//! waves branch apart (a region with cross-lane ops and scalar results that one wave skips, a
//! loop whose trip count differs per wave), run through the union of the waves' paths; and one
//! whose waves branch apart to an `s_barrier` in one wave's path, which stops with the
//! divergent-waves trap.

use isabridge_ir::interp::{self, Config, Input, Memory};
use isabridge_ir::text::parse;
use isabridge_targets::spirv::{emit_with, EmitOptions, DIVERGENT_WAVES_TRAP};
use isabridge_targets::vulkan::{Dispatch, Vulkan, VulkanError};

fn open() -> Vulkan {
    Vulkan::open(None).unwrap_or_else(|e| panic!("Vulkan (mesa-vulkan-drivers, tools/install_oracles.sh): {e}"))
}

/// Each lane stores param 0 at its workgroup index in the LDS and in its scratch, waits at the
/// barrier, then returns the LDS word of the lane 32 places on (in the other wave), its
/// scratch word, and a byte of the LDS word 5 places on.
const TWO_WAVES: &str = "func @two_waves {
  wave 32
  shared 256
bb0:
  %0: i32 = laneid
  %1: uni i32 = waveid
  %2: uni i32 = const 0x20
  %3: i32 = imad.lo %1, %2, %0
  %4: uni i32 = const 0x4
  %5: i32 = imul.lo %3, %4
  %6: uni mask = const 0xffffffff
  %7: i32 = param 0
  store.shared %5, %7, %6
  %8: uni i32 = const 0xc
  store.scratch %8, %7, %6
  barrier.wg
  %9: i32 = iadd %3, %2
  %10: uni i32 = const 0x3f
  %11: i32 = and %9, %10
  %12: i32 = imul.lo %11, %4
  %13: i32 = load.shared %12, %6
  %14: i32 = load.scratch %8, %6
  %15: uni i32 = const 0x15
  %16: i32 = iadd %5, %15
  %17: uni i32 = const 0xff
  %18: i32 = and %16, %17
  %19: i16 = load.shared %18, %6
  ret %13, %14, %19
}";

/// The lanes-model kernel: shared memory, `bar.sync` over the block, local memory.
const SHARED: &str = "func @shared {
  shared 128
bb0:
  %0: i32 = param 1
  %1: i32 = const 0x4
  %2: i32 = imul.lo %0, %1
  %3: i32 = param 0
  store.shared %2, %3
  %4: i32 = const 0x0
  %5: i32 = const 0x0
  bar.sync %4, %5
  %6: i32 = const 0x1
  %7: i32 = iadd %0, %6
  %8: i32 = const 0x1f
  %9: i32 = and %7, %8
  %10: i32 = imul.lo %9, %1
  %11: i32 = load.shared %10
  %12: i32 = const 0x8
  store.scratch %12, %11
  %13: i64 = load.scratch %12
  ret %11, %13
}";

/// Run `text` (emitted with `opts`) over `n` invocations with per-lane `rows` on Vulkan and on
/// the interpreter (`cfg`, zeroed shared memory of the function's size); the outputs of both.
fn both(vk: &Vulkan, text: &str, opts: &EmitOptions, cfg: &Config, rows: &[Vec<u64>]) -> (Result<Vec<u64>, VulkanError>, Result<Vec<u64>, interp::InterpError>) {
    let f = parse(text).unwrap();
    isabridge_ir::validate::validate(&f).unwrap();
    let k = emit_with(&f, opts).unwrap_or_else(|e| panic!("{e}"));
    let n = (cfg.wave_size * cfg.waves) as usize;
    let params: Vec<u64> = (0..n).flat_map(|lane| rows.iter().map(move |r| r[lane])).collect();
    let got = vk.run(&k, &Dispatch { invocations: n as u32, params: &params, constant: &[] });
    let inputs: Vec<Input> = rows.iter().map(|r| Input::PerLane(r.clone())).collect();
    let mem = Memory { shared: vec![0; f.shared_bytes as usize], ..Memory::default() };
    let want = interp::run(&f, cfg, &inputs, mem).map(|o| o.outputs.concat());
    (got, want)
}

#[test]
fn two_waves_share_the_lds_as_one_workgroup() {
    let vk = open();
    let opts = EmitOptions { workgroup_waves: 2, scratch_bytes: 16, ..EmitOptions::default() };
    let cfg = Config { wave_size: 32, waves: 2, scratch_bytes: 16, ..Config::default() };
    let rows = vec![(0..64u64).map(|l| (0x1234_5600 + l * 0x0102_0304) & 0xffff_ffff).collect::<Vec<_>>()];
    let (got, want) = both(&vk, TWO_WAVES, &opts, &cfg, &rows);
    let (got, want) = (got.unwrap(), want.unwrap());
    assert_eq!(got, want);
    // Lane 0 reads lane 32's word: the other wave's store reached it.
    assert_eq!(got[0], rows[0][32]);
    assert_eq!(got[1], rows[0][0]);
}

#[test]
fn shared_and_local_memory_of_a_lanes_kernel() {
    let vk = open();
    let opts = EmitOptions { scratch_bytes: 16, ..EmitOptions::default() };
    let cfg = Config { wave_size: 32, waves: 1, scratch_bytes: 16, ..Config::default() };
    let rows = vec![(0..32u64).map(|l| 0xdead_0000 ^ (l * 0x9e37_79b9)).map(|x| x & 0xffff_ffff).collect(), (0..32).collect()];
    let (got, want) = both(&vk, SHARED, &opts, &cfg, &rows);
    let (got, want) = (got.unwrap(), want.unwrap());
    assert_eq!(got, want);
    // Thread 31 reads thread 0's word; the 8-byte local load sees the word and zeros above.
    assert_eq!((got[62], got[63]), (rows[0][0], rows[0][0]));
}

/// Wave 0 runs a region that wave 1 skips (as `s_cbranch_execz` skips it when a wave has no
/// lane left): cross-lane ops (`readlane`, DPP), scalar results that flow on through phis, and
/// LDS stores into wave 1's words, which wave 1 reads after the barrier.
const SKIP: &str = "func @skip {
  wave 32
  shared 256
bb0:
  %0: i32 = laneid
  %1: uni i32 = waveid
  %2: uni i32 = const 0x20
  %3: i32 = imad.lo %1, %2, %0
  %4: uni i32 = const 0x4
  %5: i32 = imul.lo %3, %4
  %6: uni mask = const 0xffffffff
  %7: i32 = param 0
  store.shared %5, %7, %6
  barrier.wg
  %8: uni i32 = const 0x0
  %9: uni b1 = icmp.eq %1, %8
  cbr %9, bb1, bb2
bb1:
  %10: uni i32 = readlane %7, %4, %6
  %11: uni i32 = const 0x7
  %12: uni i32 = iadd %10, %11
  %13: i32 = dpp.row_shr1 %7, %7, %6
  %14: i32 = iadd %13, %12
  %15: uni i32 = const 0x80
  %16: i32 = iadd %5, %15
  store.shared %16, %14, %6
  br bb2
bb2:
  %17: uni i32 = phi [bb0: %8], [bb1: %12]
  %18: i32 = phi [bb0: %7], [bb1: %14]
  barrier.wg
  %19: i32 = load.shared %5, %6
  ret %17, %18, %19
}";

/// A loop whose trip count is 3 in wave 0 and 6 in wave 1, with a DPP and a `readlane` in
/// each iteration and a scalar sum; after it (a block the entry's branch, always taken into the
/// loop, also reaches, so the loop's exit leads past the loop) each lane stores its value in
/// the LDS and, past the barrier, reads the other wave's lane.
const TRIPS: &str = "func @trips {
  wave 32
  shared 256
bb0:
  %0: i32 = laneid
  %1: uni i32 = waveid
  %2: uni i32 = const 0x3
  %3: uni i32 = const 0x1
  %4: uni i32 = iadd %1, %3
  %5: uni i32 = imul.lo %4, %2
  %6: uni mask = const 0xffffffff
  %7: i32 = param 0
  %8: uni i32 = const 0x0
  %27: uni b1 = icmp.ult %8, %5
  cbr %27, bb1, bb2
bb1:
  %9: uni i32 = phi [bb0: %8], [bb1: %15]
  %10: i32 = phi [bb0: %7], [bb1: %13]
  %11: uni i32 = phi [bb0: %8], [bb1: %16]
  %12: i32 = dpp.row_shr1 %10, %10, %6
  %13: i32 = iadd %12, %0
  %14: uni i32 = readlane %13, %9, %6
  %15: uni i32 = iadd %9, %3
  %16: uni i32 = iadd %11, %14
  %17: uni b1 = icmp.ult %15, %5
  cbr %17, bb1, bb2
bb2:
  %28: uni i32 = phi [bb0: %8], [bb1: %15]
  %29: uni i32 = phi [bb0: %8], [bb1: %16]
  %30: i32 = phi [bb0: %7], [bb1: %13]
  %18: uni i32 = const 0x20
  %19: i32 = imad.lo %1, %18, %0
  %20: uni i32 = const 0x4
  %21: i32 = imul.lo %19, %20
  store.shared %21, %30, %6
  barrier.wg
  %22: uni i32 = const 0x80
  %23: i32 = iadd %21, %22
  %24: uni i32 = const 0xff
  %25: i32 = and %23, %24
  %26: i32 = load.shared %25, %6
  ret %28, %29, %30, %26
}";

/// [`TRIPS`] with the code after the loop reached from the loop alone: the structurizer puts
/// it in the loop's exit arm, and the module runs it after the loop, once both waves have left
/// it, so its barrier meets the other wave's.
const TRIPS_EXIT: &str = "func @trips_exit {
  wave 32
  shared 256
bb0:
  %0: i32 = laneid
  %1: uni i32 = waveid
  %2: uni i32 = const 0x3
  %3: uni i32 = const 0x1
  %4: uni i32 = iadd %1, %3
  %5: uni i32 = imul.lo %4, %2
  %6: uni mask = const 0xffffffff
  %7: i32 = param 0
  %8: uni i32 = const 0x0
  br bb1
bb1:
  %9: uni i32 = phi [bb0: %8], [bb1: %15]
  %10: i32 = phi [bb0: %7], [bb1: %13]
  %11: uni i32 = phi [bb0: %8], [bb1: %16]
  %12: i32 = dpp.row_shr1 %10, %10, %6
  %13: i32 = iadd %12, %0
  %14: uni i32 = readlane %13, %9, %6
  %15: uni i32 = iadd %9, %3
  %16: uni i32 = iadd %11, %14
  %17: uni b1 = icmp.ult %15, %5
  cbr %17, bb1, bb2
bb2:
  %18: uni i32 = const 0x20
  %19: i32 = imad.lo %1, %18, %0
  %20: uni i32 = const 0x4
  %21: i32 = imul.lo %19, %20
  store.shared %21, %13, %6
  barrier.wg
  %22: uni i32 = const 0x80
  %23: i32 = iadd %21, %22
  %24: uni i32 = const 0xff
  %25: i32 = and %23, %24
  %26: i32 = load.shared %25, %6
  ret %15, %16, %13, %26
}";

#[test]
fn a_region_one_wave_skips_runs_as_the_interpreter_runs_it() {
    let vk = open();
    let opts = EmitOptions { workgroup_waves: 2, ..EmitOptions::default() };
    let cfg = Config { wave_size: 32, waves: 2, ..Config::default() };
    let rows = vec![(0..64u64).map(|l| (0x0bad_f00d ^ (l * 0x9e37_79b9)) & 0xffff_ffff).collect::<Vec<_>>()];
    let (got, want) = both(&vk, SKIP, &opts, &cfg, &rows);
    let (got, want) = (got.unwrap(), want.unwrap());
    assert_eq!(got, want);
    // Wave 0 ran the region (lane 4's word plus 7), wave 1 did not; wave 1's lanes read what
    // wave 0 stored in their words.
    let r = (rows[0][4] + 7) & 0xffff_ffff;
    assert_eq!((got[0], got[3 * 32]), (r, 0));
    assert_eq!(got[3 * 32 + 1], rows[0][32]);
    assert_eq!(got[3 * 32 + 2], got[1]);
}

#[test]
fn a_loop_with_a_trip_count_per_wave_runs_as_the_interpreter_runs_it() {
    let vk = open();
    let opts = EmitOptions { workgroup_waves: 2, ..EmitOptions::default() };
    let cfg = Config { wave_size: 32, waves: 2, ..Config::default() };
    let rows = vec![(0..64u64).map(|l| (0x1357_9bdf ^ (l * 0x0101_0101)) & 0xffff_ffff).collect::<Vec<_>>()];
    for text in [TRIPS, TRIPS_EXIT] {
        let (got, want) = both(&vk, text, &opts, &cfg, &rows);
        let (got, want) = (got.unwrap(), want.unwrap());
        assert_eq!(got, want);
        // The trip counts: 3 in wave 0, 6 in wave 1.
        assert_eq!((got[0], got[4 * 32]), (3, 6));
    }
}

/// Wave 0 reaches an `s_barrier` in a branch that wave 1 does not take (wave 1 returns after
/// it): the hardware pairs it with no barrier of wave 1's path here, and the module, which
/// runs wave 0's arm while wave 1 is off but has not ended, records the divergent-waves trap
/// rather than a result.
#[test]
fn waves_that_branch_apart_stop_with_the_divergent_waves_trap() {
    let vk = open();
    // Wave 0 takes bb1, wave 1 bb2: a branch that is uniform in each wave but not across them.
    let text = "func @apart {
  wave 32
  shared 16
bb0:
  %0: uni i32 = waveid
  %1: uni i32 = const 0x0
  %2: uni b1 = icmp.eq %0, %1
  cbr %2, bb1, bb2
bb1:
  barrier.wg
  %3: i32 = const 0x1
  ret %3
bb2:
  %4: i32 = const 0x2
  ret %4
}";
    let opts = EmitOptions { workgroup_waves: 2, ..EmitOptions::default() };
    let cfg = Config { wave_size: 32, waves: 2, ..Config::default() };
    let (got, want) = both(&vk, text, &opts, &cfg, &[]);
    assert!(want.is_ok(), "the interpreter runs the waves apart: {want:?}");
    match got {
        Err(VulkanError::Trap { code, .. }) => assert_eq!(code, DIVERGENT_WAVES_TRAP),
        other => panic!("{other:?}"),
    }
    // One wave per workgroup runs it as the interpreter does.
    let (got, want) = both(&vk, text, &EmitOptions::default(), &cfg, &[]);
    assert_eq!(got.unwrap(), want.unwrap());
}
