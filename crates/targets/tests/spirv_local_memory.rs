//! Workgroup and per-lane memory in emitted SPIR-V run on Vulkan (lavapipe) write what the
//! interpreter computes: a wave-model (AMD) kernel whose two waves share the LDS across an
//! `s_barrier` as one Vulkan workgroup and keep values in their lanes' scratch; a lanes-model
//! (NVIDIA) kernel with shared memory, `bar.sync` and local memory; and a several-wave kernel
//! whose waves branch apart, which stops with the divergent-waves trap.

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
