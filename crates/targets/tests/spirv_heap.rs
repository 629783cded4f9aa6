//! The heap memory model on Vulkan (lavapipe): a kernel with 16-, 32- and 64-bit (scalar and vector) global
//! loads and stores, and 16-bit stores of neighbouring lanes into the same words, run with all
//! guest memory in one heap buffer writes exactly the interpreter's memory and outputs on
//! random inputs; an access below the heap, past its end or misaligned is
//! `VulkanError::OutOfHeap`.

use isabridge_ir::interp::{self, Config, Input, Memory};
use isabridge_ir::text::parse;
use isabridge_targets::spirv::{emit_with, EmitOptions, Kernel, MemoryModel};
use isabridge_targets::vulkan::{Dispatch, Vulkan, VulkanError, HEAP_BASE};

const KERNEL: &str = "func @heap {
bb0:
  %0: i64 = param 0
  %1: i32 = param 1
  %2: i64 = param 2
  %3: i32x2 = load.global %0
  %4: i64 = const 0x10
  %5: i64 = iadd %0, %4
  store.global %5, %3
  %6: i64 = const 0x2
  %7: i64 = iadd %0, %6
  %8: i16 = load.global %7
  %9: i64 = const 0x12
  %10: i64 = iadd %0, %9
  store.global %10, %8
  store.global %2, %8
  %11: i64 = const 0x8
  %12: i64 = iadd %0, %11
  %13: i64 = load.global %12
  %14: i64 = iext.u %1
  %15: i64 = iadd %13, %14
  %16: i64 = const 0x18
  %17: i64 = iadd %0, %16
  store.global %17, %15
  %18: i64 = const 0x4
  %19: i64 = iadd %0, %18
  %20: i32 = load.global %19
  %21: i64 = const 0xc
  %22: i64 = iadd %0, %21
  %23: i16x2 = load.global %22
  %24: i64 = const 0x1c
  %25: i64 = iadd %0, %24
  store.global %25, %23
  ret %20, %13
}";

fn rng(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

fn kernel() -> (isabridge_ir::Function, Kernel) {
    let f = parse(KERNEL).unwrap();
    let k = emit_with(&f, &EmitOptions { memory: MemoryModel::Heap, ..EmitOptions::default() }).unwrap();
    assert_eq!(k.memory, MemoryModel::Heap);
    assert!(!k.requires.contains(&"bufferDeviceAddress"));
    (f, k)
}

/// Per-lane parameters: lane `l` reads 16 bytes of region 0 at `32 l` and writes the 16 after
/// them; its 16-bit store into region 1 lands at `2 l`, beside its neighbour's.
fn params(n: usize, r0: u64, r1: u64, seed: &mut u64) -> Vec<Vec<u64>> {
    vec![(0..n as u64).map(|l| r0 + 32 * l).collect(), (0..n).map(|_| rng(seed) & 0xffff_ffff).collect(), (0..n as u64).map(|l| r1 + 2 * l).collect()]
}

fn interleave(rows: &[Vec<u64>], n: usize) -> Vec<u64> {
    (0..n).flat_map(|l| rows.iter().map(move |r| r[l])).collect()
}

#[test]
fn heap_model_memory_equals_the_interpreter() {
    let vk = Vulkan::open(None).unwrap_or_else(|e| panic!("Vulkan (mesa-vulkan-drivers): {e}"));
    let (f, k) = kernel();
    let n = k.workgroup_size as usize;
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..16 {
        let g0: Vec<u8> = (0..32 * n).map(|_| rng(&mut seed) as u8).collect();
        let g1: Vec<u8> = (0..2 * n).map(|_| rng(&mut seed) as u8).collect();
        let mem = vk.heap(&[&g0, &g1]).unwrap();
        let (a0, a1) = (mem.address(0).unwrap(), mem.address(1).unwrap());
        assert_eq!(a0, HEAP_BASE);
        let rows = params(n, a0, a1, &mut seed);
        let out = vk.run_with(&k, &Dispatch { invocations: n as u32, params: &interleave(&rows, n), constant: &[] }, &mem).unwrap();
        let inputs: Vec<Input> = rows.iter().map(|r| Input::PerLane(r.clone())).collect();
        let cfg = Config { wave_size: n as u32, waves: 1, ..Config::default() };
        let want = interp::run(&f, &cfg, &inputs, Memory { global: vec![(a0, g0.clone()), (a1, g1.clone())], ..Memory::default() }).unwrap();
        for (lane, o) in want.outputs.iter().enumerate() {
            assert_eq!(&out[lane * 2..lane * 2 + 2], &o[..], "lane {lane}");
        }
        assert_eq!(mem.read(0).unwrap(), want.memory.global[0].1, "region 0");
        assert_eq!(mem.read(1).unwrap(), want.memory.global[1].1, "region 1");
    }
}

/// Bytes and 16-bit constants in the heap model: i8 loads extended both ways (to i32, i64 and
/// i16), truncations to i8, float to i8 (saturating, NaN to 0) and i8 to float, a select and a
/// constant of i8, byte stores of neighbouring lanes into one word, and 16-bit arithmetic with
/// constants. naga has no 8-bit integers and its reader no 16-bit `OpConstant`: the module
/// carries its i8 values in 32-bit words and makes its 16-bit constants in the function.
const BYTES: &str = "func @bytes {
bb0:
  %0: i64 = param 0
  %1: i32 = param 1
  %2: i8 = load.global %0
  %3: i32 = iext.s %2
  %4: i32 = iext.u %2
  %5: i64 = const 0x1
  %6: i64 = iadd %0, %5
  %7: i8 = load.global %6
  %8: i64 = iext.s %7
  %9: i16 = iext.s %7
  %10: i16 = const 0x8001
  %11: i16 = iadd %9, %10
  %12: i16 = iext.u %7
  %13: i16 = xor %12, %10
  %14: i8 = iext.u %1
  %15: i64 = const 0x2
  %16: i64 = iadd %0, %15
  store.global %16, %14
  %17: f32 = bitcast %1
  %18: i8 = f2i.s.rn %17
  %19: i8 = f2i.u.rz %17
  %20: i64 = const 0x3
  %21: i64 = iadd %0, %20
  store.global %21, %18
  %22: i32 = const 0x64
  %23: b1 = icmp.ult %4, %22
  %24: i8 = const 0xf0
  %25: i8 = select %23, %7, %24
  %26: i64 = const 0x4
  %27: i64 = iadd %0, %26
  store.global %27, %25
  %28: f32 = i2f.s.rn %7
  %29: f32 = i2f.u.rn %2
  %30: i64 = iext.u %19
  %31: i8 = iext.u %11
  %32: i32 = iext.s %31
  %33: i64 = const 0x5
  %34: i64 = iadd %0, %33
  store.global %34, %19
  %35: i64 = const 0x6
  %36: i64 = iadd %0, %35
  store.global %36, %11
  ret %3, %4, %8, %11, %13, %28, %29, %30, %32
}";

#[test]
fn heap_model_bytes_equal_the_interpreter() {
    let vk = Vulkan::open(None).unwrap_or_else(|e| panic!("Vulkan (mesa-vulkan-drivers): {e}"));
    let f = parse(BYTES).unwrap();
    let k = emit_with(&f, &EmitOptions { memory: MemoryModel::Heap, ..EmitOptions::default() }).unwrap();
    assert!(!k.requires.contains(&"shaderInt8"), "{:?}", k.requires);
    // No 8-bit type and no 16-bit constant in the module.
    let words = &k.words;
    let mut i = 5;
    while i < words.len() {
        let (count, op) = ((words[i] >> 16) as usize, words[i] & 0xffff);
        // OpTypeInt (21) of 8 bits; OpConstant (43) of a 16-bit type.
        assert!(!(op == 21 && words[i + 2] == 8), "an 8-bit integer type");
        if op == 43 {
            let ty = words[i + 1];
            let def = (5..words.len()).find(|&j| words[j] & 0xffff == 21 && words[j + 1] == ty);
            assert!(def.is_none_or(|j| words[j + 2] != 16), "a 16-bit OpConstant");
        }
        i += count.max(1);
    }
    let n = k.workgroup_size as usize;
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for round in 0..16 {
        let g0: Vec<u8> = (0..8 * n).map(|_| rng(&mut seed) as u8).collect();
        let mem = vk.heap(&[&g0]).unwrap();
        let a0 = mem.address(0).unwrap();
        // Lane l's 8 bytes at 8 l; its float: random bits, or in i8 / u8 range and beyond.
        let floats = |l: u64, r: u64| match (round as u64 + l) % 4 {
            0 => r & 0xffff_ffff,
            1 => (((r % 600) as f32 - 300.0) * 1.25).to_bits() as u64,
            2 => [f32::NAN, f32::INFINITY, -0.0, 255.5, -128.5, 127.5][(r % 6) as usize].to_bits() as u64,
            _ => (r as i32 as f32 / 1e7).to_bits() as u64,
        };
        let rows = vec![(0..n as u64).map(|l| a0 + 8 * l).collect::<Vec<u64>>(), (0..n as u64).map(|l| floats(l, rng(&mut seed))).collect()];
        let out = vk.run_with(&k, &Dispatch { invocations: n as u32, params: &interleave(&rows, n), constant: &[] }, &mem).unwrap();
        let inputs: Vec<Input> = rows.iter().map(|r| Input::PerLane(r.clone())).collect();
        let cfg = Config { wave_size: n as u32, waves: 1, ..Config::default() };
        let want = interp::run(&f, &cfg, &inputs, Memory { global: vec![(a0, g0.clone())], ..Memory::default() }).unwrap();
        for (lane, o) in want.outputs.iter().enumerate() {
            assert_eq!(&out[lane * 9..lane * 9 + 9], &o[..], "round {round}, lane {lane}");
        }
        assert_eq!(mem.read(0).unwrap(), want.memory.global[0].1, "round {round}: region 0");
    }
}

#[test]
fn heap_faults_are_typed_errors() {
    let vk = Vulkan::open(None).unwrap_or_else(|e| panic!("Vulkan (mesa-vulkan-drivers): {e}"));
    let (_, k) = kernel();
    let n = k.workgroup_size as usize;
    let mut seed = 7u64;
    let g0 = vec![0u8; 32 * n];
    let g1 = vec![0u8; 2 * n];
    // Lane 5's pointer: below the heap, past its end, misaligned (by 2 for its 8-byte
    // accesses); then no fault.
    let bad = |a0: u64, a1: u64| [Some(HEAP_BASE - 32), Some(a1 + 0x1000_0000), Some(a0 + 32 * 5 + 2), None];
    let mut results = Vec::new();
    for i in 0..4 {
        let mem = vk.heap(&[&g0, &g1]).unwrap();
        let (a0, a1) = (mem.address(0).unwrap(), mem.address(1).unwrap());
        let mut rows = params(n, a0, a1, &mut seed);
        if let Some(p) = bad(a0, a1)[i] {
            rows[0][5] = p;
        }
        let r = vk.run_with(&k, &Dispatch { invocations: n as u32, params: &interleave(&rows, n), constant: &[] }, &mem);
        results.push(r.map(|_| ()));
    }
    assert_eq!(results, [Err(VulkanError::OutOfHeap), Err(VulkanError::OutOfHeap), Err(VulkanError::OutOfHeap), Ok(())]);
    // A heap-model kernel run without heap memory is an interface error.
    let r = vk.run(&k, &Dispatch { invocations: 1, params: &[0, 0, 0], constant: &[] });
    assert!(matches!(r, Err(VulkanError::Interface(_))), "{r:?}");
}
