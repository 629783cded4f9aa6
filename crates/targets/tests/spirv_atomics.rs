//! Atomics, byte stores to shared memory, lane masks and barriers of lanes-model (NVIDIA)
//! functions, and float atomics of wave-model (AMD) functions, emitted to SPIR-V and run on
//! Vulkan (lavapipe), write what the interpreter computes: the old values returned and the
//! memory afterwards, on random operands with float specials (NaNs, signed zeros, infinities,
//! subnormals) forced in. Each lanes-model atomic has a word of its own, so the lanes' order
//! at a word is all that orders them: lavapipe runs a workgroup's invocations in lane order at
//! each atomic, as the interpreter does (on another device the old values may come in another
//! order).

use isabridge_ir::interp::{self, Config, Input, InterpError, Memory};
use isabridge_ir::text::parse;
use isabridge_ir::Function;
use isabridge_targets::spirv::{emit, BARRIER_COUNT_TRAP};
use isabridge_targets::vulkan::{Dispatch, Vulkan, VulkanError};

mod lavapipe;
use lavapipe::{open, rng};

/// Random bits of a float of `width` bits with `exp_bits` exponent bits, a special value (NaN,
/// infinity, signed zero, subnormal, smallest normal) one time in three.
fn float_bits(seed: &mut u64, width: u32, exp_bits: u32) -> u64 {
    let man = width - 1 - exp_bits;
    let sign = (rng(seed) & 1) << (width - 1);
    let inf = ((1u64 << exp_bits) - 1) << man;
    let r = rng(seed);
    let mag = match r % 12 {
        0 => inf | (1 << (man - 1)) | (r >> 8 & 0xff),
        1 => inf,
        2 => 0,
        3 => (r >> 8) & ((1 << man) - 1),
        _ => (r >> 8) & ((1u64 << (width - 1)) - 1),
    };
    sign | mag
}

/// Run `f` over one workgroup of `rows[0].len()` invocations (rows from the global buffer's
/// address) on Vulkan and on the interpreter, with the global buffer holding `global` at that
/// address; returns (Vulkan outputs and buffer, interpreter outputs and buffer).
type Run = (Result<(Vec<u64>, Vec<u8>), VulkanError>, Result<(Vec<u64>, Vec<u8>), InterpError>);
fn both(vk: &Vulkan, f: &Function, global: &[u8], rows: impl FnOnce(u64) -> Vec<Vec<u64>>) -> Run {
    let k = emit(f).unwrap_or_else(|e| panic!("{e}"));
    let mem = vk.global(&[global]).unwrap_or_else(|e| panic!("{e}"));
    let addr = mem.address(0).unwrap_or(0);
    let rows = rows(addr);
    let n = rows.first().map_or(32, Vec::len);
    let params: Vec<u64> = (0..n).flat_map(|lane| rows.iter().map(move |r| r[lane])).collect();
    let got = vk.run(&k, &Dispatch { invocations: n as u32, params: &params, constant: &[] }).map(|out| {
        let mut back = mem.read(0).unwrap_or_default();
        back.truncate(global.len());
        (out, back)
    });
    let cfg = Config { wave_size: 32, waves: n as u32 / 32, ..Config::default() };
    let inputs: Vec<Input> = rows.iter().map(|r| Input::PerLane(r.clone())).collect();
    let start = Memory { global: vec![(addr, global.to_vec())], shared: vec![0; f.shared_bytes as usize], ..Memory::default() };
    let want = interp::run(f, &cfg, &inputs, start).map(|o| (o.outputs.concat(), o.memory.global[0].1.clone()));
    (got, want)
}

/// Every integer and float atomic kind on global memory (32- and 64-bit words, a byte of a
/// word), atomics on shared memory, byte stores to shared memory, `lanesel` and a masked
/// global store under a ballot, and `bar.red` over the warp.
const LANES: &str = "func @lanes {
  shared 64
bb0:
  %0: i64 = param 0
  %1: i32 = param 1
  %2: i32 = param 2
  %3: i32 = param 3
  %4: i64 = param 4
  %5: i32 = param 5
  %6: i64 = param 6
  %7: i32 = param 7
  %10: i64 = const 0x4
  %11: i64 = iadd %0, %10
  %12: i64 = const 0x8
  %13: i64 = iadd %0, %12
  %14: i64 = const 0xc
  %15: i64 = iadd %0, %14
  %16: i64 = const 0x10
  %17: i64 = iadd %0, %16
  %18: i64 = const 0x14
  %19: i64 = iadd %0, %18
  %20: i64 = const 0x18
  %21: i64 = iadd %0, %20
  %22: i64 = const 0x1c
  %23: i64 = iadd %0, %22
  %24: i64 = const 0x20
  %25: i64 = iadd %0, %24
  %26: i64 = const 0x28
  %27: i64 = iadd %0, %26
  %28: i64 = const 0x30
  %29: i64 = iadd %0, %28
  %30: i64 = const 0x39
  %31: i64 = iadd %0, %30
  %32: i64 = const 0x3c
  %33: i64 = iadd %0, %32
  %40: i32 = atomic.add.global.dev %0, %1
  %41: i32 = atomic.umin.global.dev %11, %1
  %42: i32 = atomic.inc.global.dev %13, %2
  %43: i32 = atomic.cas.global.dev %15, %5, %2
  %44: i32 = atomic.fadd.global.dev %17, %3
  %45: i32 = atomic.fmin.global.dev %19, %3
  %46: i32 = atomic.fmax.global.dev %21, %3
  %47: i32 = atomic.faddftz.global.dev %23, %3
  %48: i32 = atomic.fadd2xf16.global.dev %25, %7
  %49: i64 = atomic.add.global.dev %27, %4
  %50: i64 = atomic.fadd.global.dev %29, %6
  %51: i8 = iext.u %1
  %52: i8 = atomic.add.global.dev %31, %51
  %53: i32 = atomic.dec.global.dev %33, %2
  %60: i32 = const 0x0
  %61: i32 = atomic.add.shared.dev %60, %1
  %62: i32 = const 0x4
  %63: i32 = atomic.fmax.shared.dev %62, %3
  %64: i32 = const 0x8
  %65: i32 = atomic.smax.shared.dev %64, %1
  %66: i32 = const 0xc
  %67: i32 = atomic.cas.shared.dev %66, %5, %2
  %68: i32 = const 0x30
  %69: i64 = atomic.add.shared.dev %68, %4
  %70: i32 = laneid
  %71: i32 = const 0x10
  %72: i32 = iadd %70, %71
  store.shared %72, %51
  %73: i32 = const 0x0
  bar.sync %73, %73
  %74: i32 = const 0x1c
  %75: i32 = and %72, %74
  %76: i32 = load.shared %75
  %80: i32 = const 0x1
  %81: i32 = and %1, %80
  %82: b1 = icmp.eq %81, %80
  %83: i32 = bar.red.popc %73, %73, %82
  %84: b1 = bar.red.and %73, %73, %82
  %85: b1 = bar.red.or %73, %73, %82
  %86: mask = const 0xffffffff
  %87: mask = ballot %82, %86
  %88: i32 = lanesel %87, %1, %2
  %89: i32 = const 0x4
  %90: i32 = imul.lo %70, %89
  %91: i64 = iext.u %90
  %92: i64 = const 0x40
  %93: i64 = iadd %0, %92
  %94: i64 = iadd %93, %91
  store.global %94, %2, %87
  %95: i32 = load.global %94, %87
  ret %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %52, %53, %61, %63, %65, %67, %69, %76, %83, %84, %85, %88, %95
}";

#[test]
fn lanes_atomics_byte_stores_masks_and_barrier_reductions_equal_the_interpreter() {
    let vk = open();
    let f = parse(LANES).unwrap();
    isabridge_ir::validate::validate(&f).unwrap();
    let mut seed = 0x1234_5678_9abc_def0u64;
    for round in 0..12 {
        let mut global: Vec<u8> = (0..0xc0).map(|_| rng(&mut seed) as u8).collect();
        // Float words start as floats with specials; the cas words as one of the compared values.
        for at in [0x10, 0x14, 0x18, 0x1c] {
            let x = float_bits(&mut seed, 32, 8) as u32;
            global[at..at + 4].copy_from_slice(&x.to_le_bytes());
        }
        global[0x30..0x38].copy_from_slice(&float_bits(&mut seed, 64, 11).to_le_bytes());
        global[0x0c..0x10].copy_from_slice(&1u32.to_le_bytes());
        // Inc / dec wrap at small limits; every lane agrees on a third of the rounds.
        let same = round % 3 == 2;
        let (s2, s7) = (rng(&mut seed), rng(&mut seed));
        let (got, want) = both(&vk, &f, &global, |addr| {
            let mut row = |g: &mut dyn FnMut(&mut u64) -> u64| (0..32).map(|_| g(&mut seed)).collect::<Vec<u64>>();
            vec![
                vec![addr; 32],
                row(&mut |s| rng(s) & 0xffff_ffff),
                row(&mut |s| if same { s2 % 40 } else { rng(s) % 40 }),
                row(&mut |s| float_bits(s, 32, 8)),
                row(&mut |s| rng(s)),
                row(&mut |s| rng(s) % 3),
                row(&mut |s| float_bits(s, 64, 11)),
                row(&mut |s| if same { s7 & 0xffff_ffff } else { float_bits(s, 16, 5) | float_bits(s, 16, 5) << 16 }),
            ]
        });
        let (got, want) = (got.unwrap_or_else(|e| panic!("round {round}: vulkan: {e}")), want.unwrap_or_else(|e| panic!("round {round}: interpreter: {e}")));
        for lane in 0..32 {
            let w = want.0.len() / 32;
            assert_eq!(&got.0[lane * w..(lane + 1) * w], &want.0[lane * w..(lane + 1) * w], "round {round}, lane {lane}");
        }
        assert_eq!(got.1, want.1, "round {round}: global memory");
    }
}

/// A barrier over part of the block: with a count of 64 threads in a block of one warp it never
/// completes (the interpreter stops with a deadlock), and the module records
/// `BARRIER_COUNT_TRAP`; a count given at run time is checked there (the block's 32 threads
/// run through).
#[test]
fn barriers_over_part_of_the_block_trap() {
    let vk = open();
    let text = "func @partial {
bb0:
  %0: i32 = param 0
  %1: i32 = const 0x2
  bar.sync %1, %0
  %2: i32 = iadd %0, %1
  ret %2
}";
    let f = parse(text).unwrap();
    isabridge_ir::validate::validate(&f).unwrap();
    for (count, ok) in [(32u64, true), (0, true), (64, false)] {
        let (got, want) = both(&vk, &f, &[0; 4], |_| vec![vec![count; 32]]);
        if ok {
            let (got, want) = (got.unwrap(), want.unwrap());
            assert_eq!(got.0, want.0, "count {count}");
            assert_eq!(got.0[0], count + 2);
        } else {
            assert!(matches!(want, Err(InterpError::Deadlock)), "count {count}: the interpreter deadlocks: {want:?}");
            match got {
                Err(VulkanError::Trap { code, .. }) => assert_eq!(code, BARRIER_COUNT_TRAP),
                other => panic!("count {count}: no barrier trap: {other:?}"),
            }
        }
    }
}

/// Float atomics of a wave-model function on the LDS and on device memory (buffer
/// descriptors hold device addresses): fadd, fmin, fmax and the packed f16 add, lane by lane.
const WAVE_FLOAT: &str = "func @wave_float {
  wave 32
  shared 16
bb0:
  %0: uni i64 = param 0
  %1: i32 = param 1
  %2: i32 = param 2
  %3: uni mask = const 0xffffffff
  %4: uni i32 = const 0x0
  %5: i32 = atomic.fadd.shared.dev %4, %1, %3
  %6: uni i32 = const 0x4
  %7: i32 = atomic.fmin.shared.dev %6, %1, %3
  %8: i32 = atomic.fadd.global.dev %0, %1, %3
  %9: uni i64 = const 0x4
  %10: uni i64 = iadd %0, %9
  %11: i32 = atomic.fmax.global.dev %10, %1, %3
  %12: uni i64 = const 0x8
  %13: uni i64 = iadd %0, %12
  %14: i32 = atomic.fadd2xbf16.global.dev %13, %2, %3
  %15: i32 = load.shared %4, %3
  ret %5, %7, %8, %11, %14, %15
}";

#[test]
fn wave_float_atomics_equal_the_interpreter() {
    let vk = open();
    let f = parse(WAVE_FLOAT).unwrap();
    isabridge_ir::validate::validate(&f).unwrap();
    let mut seed = 0x0fed_cba9_8765_4321u64;
    for round in 0..12 {
        let mut global = vec![0u8; 12];
        for at in [0, 4, 8] {
            let x = float_bits(&mut seed, 32, 8) as u32;
            global[at..at + 4].copy_from_slice(&x.to_le_bytes());
        }
        let (got, want) = both(&vk, &f, &global, |addr| {
            vec![vec![addr; 32], (0..32).map(|_| float_bits(&mut seed, 32, 8)).collect(), (0..32).map(|_| float_bits(&mut seed, 16, 8) | float_bits(&mut seed, 16, 8) << 16).collect()]
        });
        let (got, want) = (got.unwrap_or_else(|e| panic!("round {round}: vulkan: {e}")), want.unwrap_or_else(|e| panic!("round {round}: interpreter: {e}")));
        assert_eq!(got, want, "round {round}");
    }
}
