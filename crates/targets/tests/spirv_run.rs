//! Emitted SPIR-V run on Vulkan (lavapipe when installed: tools/install_oracles.sh installs
//! mesa-vulkan-drivers) write what the interpreter computes: hand-written integer kernels with
//! selections, loops, early returns and irreducible flow with phis, three-input logic, integer
//! extension and truncation, and global memory, on
//! random inputs, and random control-flow graphs (irreducible ones included) with lanes that
//! diverge; f32 and f64 arithmetic with directed rounding, FTZ and saturation, which runs
//! exactly although lavapipe flushes denormals.

use isabridge_ir::interp::{self, Config, Input, Memory};
use isabridge_ir::text::parse;
use isabridge_targets::spirv::{emit, Kernel};
use isabridge_targets::vulkan::{Dispatch, Vulkan};

fn open() -> Vulkan {
    Vulkan::open(None).unwrap_or_else(|e| panic!("Vulkan (mesa-vulkan-drivers, tools/install_oracles.sh): {e}"))
}

/// Run `k` over `n` invocations with `params` and one global buffer holding `global`; returns
/// the outputs and the buffer afterwards.
fn run(vk: &Vulkan, k: &Kernel, n: usize, params: &[u64], global: &[u8], addr_of: impl FnOnce(u64) -> Vec<u64>) -> Result<(Vec<u64>, Vec<u8>, u64), String> {
    let mem = vk.global(&[global]).map_err(|e| e.to_string())?;
    let addr = mem.address(0).unwrap_or(0);
    let extra = addr_of(addr);
    let params: Vec<u64> = if extra.is_empty() { params.to_vec() } else { extra };
    let out = vk.run(k, &Dispatch { invocations: n as u32, params: &params, constant: &[] }).map_err(|e| e.to_string())?;
    let mut back = mem.read(0).unwrap_or_default();
    back.truncate(global.len());
    Ok((out, back, addr))
}

/// Run `k`, emitted from `f`, over per-lane parameter rows (`rows[p][lane]`, waves of the
/// kernel's workgroup size) on Vulkan and on the interpreter; panics at the first lane whose
/// outputs differ, naming `what()` and the lane's parameters.
fn outputs_equal(vk: &Vulkan, f: &isabridge_ir::Function, k: &Kernel, rows: &[Vec<u64>], what: impl Fn() -> String) {
    let n = rows.first().map_or(k.workgroup_size as usize, |r| r.len());
    let params: Vec<u64> = (0..n).flat_map(|lane| rows.iter().map(move |r| r[lane])).collect();
    let (out, _, _) = run(vk, k, n, &params, &[], |_| Vec::new()).unwrap_or_else(|e| panic!("{}: {e}", what()));
    let cfg = Config { wave_size: k.workgroup_size, waves: n as u32 / k.workgroup_size, ..Config::default() };
    let inputs: Vec<Input> = rows.iter().map(|r| Input::PerLane(r.clone())).collect();
    let want = interp::run(f, &cfg, &inputs, Memory::default()).unwrap_or_else(|e| panic!("{}: interpreter: {e}", what()));
    assert_eq!(want.outputs.len(), n, "{}: every lane returns", what());
    let w = k.outputs as usize;
    for (lane, o) in want.outputs.iter().enumerate() {
        assert_eq!(&out[lane * w..(lane + 1) * w], &o[..], "{} lane {lane}: params {:x?}", what(), rows.iter().map(|r| r[lane]).collect::<Vec<_>>());
    }
}

const INT_KERNELS: [(&str, &str); 5] = [
    (
        "logic",
        "func @logic {
bb0:
  %0: i32 = param 0
  %1: i32 = param 1
  %2: i32 = param 2
  %3: i32 = lop3.202 %0, %1, %2
  %4: i32 = lop3.150 %0, %1, %2
  %5: i64 = iext.s %3
  %6: i64 = iext.u %4
  %7: b1 = icmp.slt %3, %4
  %8: i32 = iext.s %7
  %9: i64 = iadd %5, %6
  %10: i32 = iext.u %9
  %11: b1 = iext.u %0
  %12: i32 = lop3.1 %0, %1, %2
  %13: b1 = iext.u %1
  %14: b1 = xor %11, %13
  %15: b1 = and %14, %7
  %16: b1 = or %15, %11
  %17: b1 = not %16
  ret %9, %8, %10, %11, %12, %17
}",
    ),
    (
        "diamond",
        "func @diamond {
bb0:
  %0: i32 = param 0
  %1: i32 = const 0x10
  %2: b1 = icmp.slt %0, %1
  cbr %2, bb1, bb2
bb1:
  %3: i32 = iadd %0, %1
  br bb3
bb2:
  %4: i32 = isub %0, %1
  br bb3
bb3:
  %5: i32 = phi [bb1: %3], [bb2: %4]
  %6: i32 = xor %5, %0
  ret %6
}",
    ),
    (
        "loop",
        "func @loop {
bb0:
  %0: i32 = param 0
  %1: i32 = const 0x0
  %2: i32 = const 0x1
  %3: i32 = const 0x64
  %8: i32 = const 0x1ff
  %9: i32 = and %0, %8
  br bb1
bb1:
  %4: i32 = phi [bb0: %1], [bb3: %7]
  %5: b1 = icmp.ult %4, %9
  cbr %5, bb2, bb4
bb2:
  %6: b1 = icmp.eq %4, %3
  cbr %6, bb5, bb3
bb3:
  %7: i32 = iadd %4, %2
  br bb1
bb4:
  ret %4
bb5:
  ret %1
}",
    ),
    (
        "irreducible",
        "func @irr {
bb0:
  %0: i32 = param 0
  %1: i32 = const 0x0
  %2: i32 = const 0x1
  %3: i32 = const 0x3
  %4: i32 = const 0x64
  %13: i32 = const 0x1
  %14: i32 = and %0, %13
  %5: b1 = icmp.eq %14, %1
  cbr %5, bb1, bb2
bb1:
  %6: i32 = phi [bb0: %0], [bb2: %10]
  %7: i32 = iadd %6, %2
  %8: b1 = icmp.ult %7, %4
  cbr %8, bb2, bb3
bb2:
  %9: i32 = phi [bb0: %0], [bb1: %7]
  %10: i32 = imul.lo %9, %3
  %11: b1 = icmp.ult %10, %4
  cbr %11, bb1, bb3
bb3:
  %12: i32 = phi [bb1: %7], [bb2: %10]
  ret %12
}",
    ),
    (
        "memory",
        "func @memory {
bb0:
  %0: i64 = param 0
  %1: i32 = param 1
  %2: i32 = load.global %0
  %3: i32 = iadd %2, %1
  %4: i32 = shl.clamp %3, %1
  %5: i32 = shr.s.clamp %2, %1
  %6: i32 = imin.s %4, %5
  %7: i64 = load.global %0
  %8: i64 = shr.u.wrap %7, %7
  %9: b1 = icmp.uge %8, %7
  %10: i32 = const 0x0
  %11: b1 = icmp.slt %6, %10
  cbr %11, bb1, bb2
bb1:
  store.global %0, %6
  br bb2
bb2:
  %12: i32 = select %9, %3, %4
  ret %12, %9, %8
}",
    ),
];

fn rng(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

#[test]
fn integer_kernels_on_vulkan_equal_the_interpreter() {
    let vk = open();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut runs = 0;
    for (name, text) in INT_KERNELS {
        let f = parse(text).unwrap();
        let k = emit(&f).unwrap_or_else(|e| panic!("{name}: {e}"));
        let n = k.workgroup_size as usize;
        for _ in 0..16 {
            let global: Vec<u8> = (0..n * 8).map(|_| rng(&mut seed) as u8).collect();
            let mut rows: Vec<Vec<u64>> = Vec::new();
            let (out, mem, addr) = run(&vk, &k, n, &[], &global, |addr| {
                // Parameter 0 of the memory kernel is a pointer to the lane's 8 bytes.
                rows = (0..k.params)
                    .map(|p| {
                        (0..n as u64)
                            .map(|lane| match (name, p) {
                                ("memory", 0) => addr + 8 * lane,
                                ("memory", 1) => rng(&mut seed) % 40,
                                _ => rng(&mut seed) & 0xffff_ffff,
                            })
                            .collect()
                    })
                    .collect();
                (0..n).flat_map(|lane| rows.iter().map(move |r| r[lane])).collect()
            })
            .unwrap_or_else(|e| panic!("{name}: {e}"));
            let inputs: Vec<Input> = rows.iter().map(|r| Input::PerLane(r.clone())).collect();
            let cfg = Config { wave_size: n as u32, waves: 1, ..Config::default() };
            let want = interp::run(&f, &cfg, &inputs, Memory { global: vec![(addr, global.clone())], ..Memory::default() })
                .unwrap_or_else(|e| panic!("{name}: interpreter: {e}"));
            assert_eq!(want.outputs.len(), n, "{name}: every lane returns");
            for (lane, o) in want.outputs.iter().enumerate() {
                let got = &out[lane * k.outputs as usize..(lane + 1) * k.outputs as usize];
                assert_eq!(got, &o[..], "{name} lane {lane}: params {:?}", rows.iter().map(|r| r[lane]).collect::<Vec<_>>());
            }
            assert_eq!(mem, want.memory.global[0].1, "{name}: global memory");
            runs += 1;
        }
    }
    eprintln!("{} ran {runs} random workgroups of the integer kernels, equal to the interpreter", vk.name());
}

/// Float kernels run exactly whatever the device's float controls (lavapipe reports no
/// denormal preservation): directed rounding, FTZ and saturation on random bit patterns, with
/// subnormal operands and results forced in, equal the interpreter on every lane.
#[test]
fn float_kernels_equal_the_interpreter_on_any_float_controls() {
    let vk = open();
    let f = parse(
        "func @farith {
bb0:
  %0: f32 = param 0
  %1: f32 = param 1
  %2: f32 = param 2
  %3: f32 = fadd.rz %0, %1
  %4: f32 = fmul.rm %0, %1
  %5: f32 = ffma.rp %0, %1, %2
  %6: f32 = fadd.rn.ftz.sat %0, %2
  %7: f32 = ffma.rm.ftz %0, %1, %2
  %8: f32 = fsub.rp %1, %2
  ret %3, %4, %5, %6, %7, %8
}",
    )
    .unwrap();
    let k = emit(&f).unwrap();
    let n = k.workgroup_size as usize * 4;
    let mut seed = 0x51ed_270b_9f1c_44a3u64;
    for round in 0..32 {
        let rows: Vec<Vec<u64>> = (0..3)
            .map(|_| {
                (0..n)
                    .map(|_| {
                        let x = rng(&mut seed);
                        // A third of the operands are subnormal or tiny, so results round there.
                        match x % 3 {
                            0 => (x >> 8) & 0x807f_ffff,
                            1 => (x >> 8) & 0x8cff_ffff,
                            _ => (x >> 8) & 0xffff_ffff,
                        }
                    })
                    .collect()
            })
            .collect();
        outputs_equal(&vk, &f, &k, &rows, || format!("round {round}"));
    }
}

/// f64 arithmetic runs exactly although lavapipe flushes f64 subnormals (done in integer
/// arithmetic): directed rounding on random bit patterns with subnormal operands, products
/// that land in the subnormal range, and fused sums that cancel, equal the interpreter.
#[test]
fn f64_kernels_equal_the_interpreter() {
    let vk = open();
    let f = parse(
        "func @darith {
bb0:
  %0: f64 = param 0
  %1: f64 = param 1
  %2: f64 = param 2
  %3: f64 = fadd.rz %0, %1
  %4: f64 = fmul.rm %0, %1
  %5: f64 = ffma.rp %0, %1, %2
  %6: f64 = ffma.rn %0, %1, %2
  %7: f64 = fsub.rm %1, %2
  %8: f64 = fmul.rn %1, %2
  ret %3, %4, %5, %6, %7, %8
}",
    )
    .unwrap();
    let k = emit(&f).unwrap();
    let n = k.workgroup_size as usize * 4;
    let mut seed = 0x6a09_e667_f3bc_c908u64;
    for round in 0..32 {
        let mut rows: Vec<Vec<u64>> = (0..3)
            .map(|_| {
                (0..n)
                    .map(|_| {
                        let x = rng(&mut seed);
                        let sign = x & (1 << 63);
                        let frac = x & ((1 << 52) - 1);
                        match (x >> 52) % 4 {
                            // Subnormal.
                            0 => sign | frac,
                            // Exponents whose products are near or below the smallest normal.
                            1 => sign | ((0x1e0 + (x >> 56) % 0x40) << 52) | frac,
                            // Near one: sums that cancel.
                            2 => sign | ((0x3c0 + (x >> 56) % 0x80) << 52) | frac,
                            _ => x,
                        }
                    })
                    .collect()
            })
            .collect();
        // Every fifth lane: an addend that cancels the product's rounded value.
        for lane in (0..n).step_by(5) {
            let p = f64::from_bits(rows[0][lane]) * f64::from_bits(rows[1][lane]);
            rows[2][lane] = (-p).to_bits();
        }
        outputs_equal(&vk, &f, &k, &rows, || format!("round {round}"));
    }
}

/// A per-lane kernel over a random graph of `n` nodes (entry 0): each node folds its number
/// into an accumulator, stops after 48 steps, and otherwise branches on a bit of the
/// accumulator, so lanes diverge. Built with register reads and writes, then put in SSA form
/// by the IR pipeline (phis at every join).
fn random_kernel(seed: &mut u64, n: u32) -> isabridge_ir::Function {
    use isabridge_ir::ops::int::{ICmp, IntOp, Overflow, ShiftRule};
    use isabridge_ir::{Builder, Function, Type};
    let mut f = Function::new("random_cfg");
    let acc = f.add_reg(Type::I32, false, "acc");
    let steps = f.add_reg(Type::I32, false, "steps");
    let start = f.add_block();
    let nodes: Vec<_> = (0..n).map(|_| f.add_block()).collect();
    let exit = f.add_block();
    let mut b = Builder::new(&mut f, start);
    let p = b.param(0, Type::I32);
    b.write_reg(acc, p);
    let z = b.konst(Type::I32, 0);
    b.write_reg(steps, z);
    b.jump(nodes[0]);
    for (i, &node) in nodes.iter().enumerate() {
        let kind = rng(seed) % 8;
        let (t, e) = (nodes[(rng(seed) % n as u64) as usize], nodes[(rng(seed) % n as u64) as usize]);
        let decide = f.add_block();
        let mut b = Builder::new(&mut f, node);
        let a = b.read_reg(acc);
        let three = b.konst(Type::I32, 0x9e37);
        let m = b.int(IntOp::MulLo, Type::I32, &[a, three]);
        let k = b.konst(Type::I32, i as u64 + 1);
        let a2 = b.int(IntOp::Add(Overflow::Wrap), Type::I32, &[m, k]);
        b.write_reg(acc, a2);
        let s = b.read_reg(steps);
        let one = b.konst(Type::I32, 1);
        let s2 = b.int(IntOp::Add(Overflow::Wrap), Type::I32, &[s, one]);
        b.write_reg(steps, s2);
        let lim = b.konst(Type::I32, 48);
        let done = b.int(IntOp::Cmp(ICmp::Uge), Type::B1, &[s2, lim]);
        b.branch(done, exit, decide);
        let mut b = Builder::new(&mut f, decide);
        if kind == 0 {
            b.ret(&[a2, s2]);
        } else if kind < 3 {
            b.jump(t);
        } else {
            let sh = b.konst(Type::I32, 13 + (i as u64 % 7));
            let x = b.int(IntOp::Shr(false, ShiftRule::Wrap), Type::I32, &[a2, sh]);
            let bit = b.int(IntOp::And, Type::I32, &[x, one]);
            let c = b.int(IntOp::Cmp(ICmp::Ne), Type::B1, &[bit, z]);
            b.branch(c, t, e);
        }
    }
    let mut b = Builder::new(&mut f, exit);
    let a = b.read_reg(acc);
    let s = b.read_reg(steps);
    b.ret(&[a, s]);
    isabridge_ir::passes::run_pipeline(&mut f).unwrap();
    f
}

#[test]
fn random_control_flow_on_vulkan_equals_the_interpreter() {
    let vk = open();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let (mut kernels, mut dispatchers) = (0, 0);
    for round in 0..120u32 {
        let f = random_kernel(&mut seed, 2 + round % 11);
        let s = isabridge_targets::structurize::structurize_function(&f).unwrap().unwrap();
        dispatchers += s.dispatchers;
        let k = emit(&f).unwrap_or_else(|e| panic!("kernel {round}: {e}"));
        let n = k.workgroup_size as usize;
        let params: Vec<u64> = (0..n).map(|_| rng(&mut seed) & 0xffff_ffff).collect();
        outputs_equal(&vk, &f, &k, &[params], || format!("kernel {round}:\n{}", isabridge_ir::text::print(&f)));
        kernels += 1;
    }
    eprintln!("{}: {kernels} random control-flow kernels ({dispatchers} irreducible regions) equal the interpreter on every lane", vk.name());
}

/// Warp ops of a per-lane function after an early exit and a divergent region that rejoins
/// (`converge.join`): activemask, ballot, shuffles (idx, up, down, bfly, the in-range flag)
/// clamped to the lanes that stay, votes, match and redux with the full member mask, on random
/// warps whose lanes from a random `k` on exit first; equal to the interpreter on every lane.
#[test]
fn warp_ops_after_an_early_exit_equal_the_interpreter() {
    let vk = open();
    let f = parse(
        "func @warp {
bb0:
  %0: i32 = laneid
  %1: i32 = param 0
  %2: i32 = param 1
  %3: i32 = param 2
  %4: b1 = icmp.uge %0, %3
  cbr %4, bb1, bb2
bb1:
  %5: i32 = const 0xdead
  ret %5, %5, %5, %5, %5, %5, %5, %5, %5, %5, %5, %5, %5, %5
bb2:
  %6: mask = converge.open
  %7: i32 = const 0x3
  %8: i32 = and %1, %7
  %9: b1 = icmp.eq %8, %7
  cbr %9, bb3, bb4
bb3:
  br bb4
bb4:
  converge.join %6
  %10: mask = activemask
  %11: mask = const 0xffffffff
  %14: b1 = iext.u %1
  %15: mask = ballot %14, %11
  %17: i32 = const 0x1
  %18: i32 = isub %3, %17
  %19: i32 = shfl.idx %1, %2, %18, %11
  %20: i32 = const 0x0
  %21: i32 = shfl.up %1, %2, %20, %11
  %22: i32 = shfl.down %1, %2, %18, %11
  %23: i32 = shfl.bfly %1, %2, %18, %11
  %24: b1 = shfl.down.pred %1, %2, %18, %11
  %25: b1 = vote.all %14, %11
  %26: b1 = vote.any %14, %11
  %27: b1 = vote.eq %14, %11
  %28: mask = match.any %8, %11
  %29: mask = match.all %8, %11
  %30: i32 = redux.add %1, %11
  %31: i32 = redux.umax %1, %11
  ret %10, %15, %19, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31
}",
    )
    .unwrap();
    isabridge_ir::validate::validate(&f).unwrap();
    let k = emit(&f).unwrap_or_else(|e| panic!("{e}"));
    let warps = 4;
    let n = k.workgroup_size as usize * warps;
    let mut seed = 0x3c6e_f372_fe94_f82bu64;
    for round in 0..16 {
        // Lanes from k on exit: k per warp, 32 (none exit) in warp 0.
        let ks: Vec<u64> = (0..warps).map(|w| if w == 0 { 32 } else { 1 + rng(&mut seed) % 32 }).collect();
        let mut rows: Vec<Vec<u64>> = (0..2).map(|_| (0..n).map(|_| rng(&mut seed) & 0xffff_ffff).collect()).collect();
        // A few rounds make every lane agree, so vote.all, vote.eq and match.all hold.
        if round % 4 == 3 {
            rows[0].iter_mut().for_each(|x| *x = 0x7);
        }
        rows.push((0..n).map(|l| ks[l / 32]).collect());
        outputs_equal(&vk, &f, &k, &rows, || format!("round {round}, k {ks:?}"));
    }
}

/// Exchanges that run in batches (`spirv/exchange_batch.rs`): runs of shuffles, `match`,
/// `vote.eq` and `redux` of one block share one roll call and one barrier, the arithmetic
/// their operands need moving ahead of the run, and a run ends at an operand computed from a
/// member's result and after 15 members; equal to the interpreter on every lane, lanes from a
/// random `k` on exiting first and the shuffles clamped to the lanes that stay (as in
/// [`warp_ops_after_an_early_exit_equal_the_interpreter`]).
/// The module has 4 workgroup barriers (40 with one per exchange): batches of 3, 15, 12 and
/// 10 members.
#[test]
fn batched_exchanges_equal_the_interpreter() {
    let vk = open();
    let mut text = String::from(
        "func @batch {
bb0:
  %0: i32 = laneid
  %1: i32 = param 0
  %2: i32 = param 1
  %3: i32 = param 2
  %4: b1 = icmp.uge %0, %3
  cbr %4, bb1, bb2
bb1:
  %5: i32 = const 0xdead
  ret ",
    );
    let outputs = 40;
    text.push_str(&vec!["%5"; outputs].join(", "));
    text.push_str(
        "
bb2:
  %6: i32 = const 0x1
  %7: i32 = const 0x3
  %8: mask = const 0xffffffff
  %9: i32 = isub %3, %6
  %10: i32 = shfl.idx %1, %2, %9, %8
  %11: i32 = xor %1, %7
  %12: i32 = shfl.bfly %11, %7, %9, %8
  %13: i32 = iadd %1, %2
  %14: b1 = shfl.down.pred %13, %2, %9, %8
  %15: i32 = iadd %10, %12
  %16: i32 = shfl.idx %15, %2, %9, %8
  %17: mask = match.any %11, %8
  %18: b1 = iext.u %13
  %19: b1 = vote.eq %18, %8
  %20: i32 = redux.add %13, %8
  %21: i32 = redux.smax %11, %8
  %22: i32 = redux.umin %13, %8
  %23: i32 = redux.xor %15, %8
",
    );
    // 30 more shuffles, each of its own operand; the 21st's from the 20th's result.
    let mut rets = vec![10, 12, 14, 16, 17, 19, 20, 21, 22, 23];
    let mut next = 24;
    for i in 0..30 {
        let src = if i == 20 { next - 1 } else { 1 };
        text.push_str(&format!("  %{next}: i32 = const {:#x}\n  %{}: i32 = iadd %{src}, %{next}\n  %{}: i32 = shfl.idx %{}, %{next}, %9, %8\n", 3 * i + 1, next + 1, next + 2, next + 1));
        rets.push(next + 2);
        next += 3;
    }
    assert_eq!(rets.len(), outputs);
    text.push_str(&format!("  ret {}\n}}", rets.iter().map(|r| format!("%{r}")).collect::<Vec<_>>().join(", ")));
    let f = parse(&text).unwrap();
    isabridge_ir::validate::validate(&f).unwrap();
    let k = emit(&f).unwrap_or_else(|e| panic!("{e}"));
    // OpControlBarrier (opcode 224) instructions of the module: the preamble has none.
    let barriers = spirv_opcodes(&k.words).filter(|&op| op == 224).count();
    assert_eq!(barriers, 4, "workgroup barriers");
    let warps = 4;
    let n = k.workgroup_size as usize * warps;
    let mut seed = 0x5be0_cd19_137e_2179u64;
    for round in 0..16 {
        let ks: Vec<u64> = (0..warps).map(|w| if w == 0 { 32 } else { 1 + rng(&mut seed) % 32 }).collect();
        let mut rows: Vec<Vec<u64>> = (0..2).map(|_| (0..n).map(|_| rng(&mut seed) & 0xffff_ffff).collect()).collect();
        if round % 4 == 3 {
            rows[0].iter_mut().for_each(|x| *x = 0x7);
        }
        rows.push((0..n).map(|l| ks[l / 32]).collect());
        outputs_equal(&vk, &f, &k, &rows, || format!("round {round}, k {ks:?}"));
    }
}

/// The opcodes of a SPIR-V module's instructions (after its 5-word header).
fn spirv_opcodes(words: &[u32]) -> impl Iterator<Item = u32> + '_ {
    let mut at = 5;
    std::iter::from_fn(move || {
        let w = *words.get(at)?;
        at += ((w >> 16) as usize).max(1);
        Some(w & 0xffff)
    })
}

/// A trap ends the run with `VulkanError::Trap` naming the code and the invocation, as the
/// interpreter's run ends with `InterpError::Trap`; without a trapping lane the kernel runs.
#[test]
fn trap_reaches_the_host() {
    let vk = open();
    let f = parse(
        "func @trap {
bb0:
  %0: i32 = param 0
  %1: i32 = const 0x7
  %2: b1 = icmp.eq %0, %1
  cbr %2, bb1, bb2
bb1:
  trap.5
  ret %0
bb2:
  %3: i32 = iadd %0, %1
  ret %3
}",
    )
    .unwrap();
    let k = emit(&f).unwrap();
    assert!(k.traps);
    let n = 64;
    let mut params: Vec<u64> = (0..n as u64).map(|l| l * 3).collect();
    outputs_equal(&vk, &f, &k, &[params.clone()], || "no lane traps".into());
    params[45] = 7;
    let cfg = Config { wave_size: 32, waves: 2, ..Config::default() };
    let want = interp::run(&f, &cfg, &[Input::PerLane(params.clone())], Memory::default());
    assert!(matches!(want, Err(interp::InterpError::Trap(5))), "{want:?}");
    match vk.run(&k, &Dispatch { invocations: n as u32, params: &params, constant: &[] }) {
        Err(isabridge_targets::vulkan::VulkanError::Trap { code: 5, invocation: 45 }) => {}
        other => panic!("{other:?}"),
    }
}
/// A random float bit pattern of `f` bits (`exp_bits` exponent bits): zeros, infinities,
/// NaNs (quiet and signalling), subnormals, values near one and anything.
fn special_bits(seed: &mut u64, width: u32, exp_bits: u32) -> u64 {
    let x = rng(seed);
    let man = width - 1 - exp_bits;
    let sign = (x >> 63) << (width - 1);
    let emax = (1u64 << exp_bits) - 1;
    let frac = (x >> 7) & ((1 << man) - 1);
    let bias = emax >> 1;
    match x % 8 {
        0 => sign,
        1 => sign | emax << man,
        2 => sign | emax << man | frac.max(1),
        3 => sign | frac.max(1),
        4 => sign | ((bias - 4 + (x >> 40) % 8) << man) | frac,
        _ => (x >> 3) & ((1 << (width - 1)) - 1) | sign,
    }
}

/// AMD float operations (ldexp, frexp significand and exponent, f64 round to integral, the
/// division helpers, FMZ and output modifiers) on f16, f32 and f64 random bit patterns with zeros, infinities, NaNs and
/// subnormals equal the interpreter (`soft::ldexp`, `soft::frexp_mant`, `soft::divide`,
/// `ops::float::apply_omod`) on every lane.
#[test]
fn amd_float_kernels_equal_the_interpreter() {
    let vk = open();
    let f = parse(
        "func @amdfloat {
bb0:
  %0: f32 = param 0
  %1: f32 = param 1
  %2: f32 = param 2
  %3: i32 = param 3
  %4: f16 = param 4
  %5: f64 = param 5
  %6: f64 = param 6
  %7: f64 = param 7
  %8: f32 = fldexp.rn.keepnan %0, %3
  %9: i16 = iext.s %3
  %10: i32 = iext.s %9
  %11: f16 = fldexp.rz.sat.keepnan %4, %10
  %12: f64 = fldexp.rm.propnanneg %5, %3
  %13: f32 = ffrexpmant.rn.ftz.tinyafter.keepnan %0
  %14: f64 = ffrexpmant.rn.propnanneg %5
  %15: f32 = fdivscale.ftz.tinyafter.keepnan %0, %1, %2
  %16: b1 = fdivflag %0, %1, %2
  %17: f32 = fdivfmas.ftz.tinyafter.omod2.keepnan %0, %1, %2, %16
  %18: f32 = fdivfixup.keepnan %0, %1, %2
  %19: f64 = fdivscale.propnanneg %5, %6, %7
  %20: b1 = fdivflag %5, %6, %7
  %21: f64 = fdivfmas.propnanneg %5, %6, %7, %20
  %22: f64 = fdivfixup.propnanneg %5, %6, %7
  %23: f16 = fdivfixup.sat.keepnan %4, %4, %4
  %24: f32 = fmul.rn.ftz.tinyafter.fmz.keepnan %0, %1
  %25: f32 = ffma.rm.fmz.omod4.sat.keepnan %0, %1, %2
  %26: f32 = fadd.rn.ftz.tinyafter.omodh.keepnan %0, %1
  %27: f64 = fmul.rp.omod2.propnanneg %5, %6
  %28: f32 = fdivscale.keepnan %1, %1, %0
  %29: b1 = fdivflag %1, %1, %0
  %30: f32 = fdivfmas.rz.keepnan %0, %1, %2, %29
  %31: f64 = fdivfmas.rn.propnanneg %5, %6, %7, %29
  %32: f16 = ffrexpmant.rn.keepnan %4
  %33: f64 = frint.rz.propnanneg %5
  %34: f64 = frint.rn.propnanneg %6
  %35: i32 = frexpexp.ftz.propnan %0
  %36: i32 = frexpexp.propnan %5
  %37: i16 = frexpexp.propnan %4
  ret %8, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37
}",
    )
    .unwrap();
    let k = emit(&f).unwrap_or_else(|e| panic!("{e}"));
    let outs = k.outputs as usize;
    let n = k.workgroup_size as usize * 4;
    let mut seed = 0x3c6e_f372_fe94_f82bu64;
    for round in 0..24 {
        let mut rows: Vec<Vec<u64>> = vec![Vec::new(); 8];
        for _ in 0..n {
            for r in rows.iter_mut().take(3) {
                r.push(special_bits(&mut seed, 32, 8));
            }
            let e = rng(&mut seed);
            rows[3].push(match e % 4 {
                0 => (e >> 8) % 64,
                1 => ((e >> 8) % 400) as u32 as u64 ^ 0xffff_ff00,
                2 => (e >> 8) & 0xffff,
                _ => (e >> 8) & 0xffff_ffff,
            });
            rows[4].push(special_bits(&mut seed, 16, 5));
            for r in rows.iter_mut().skip(5) {
                r.push(special_bits(&mut seed, 64, 11));
            }
        }
        let params: Vec<u64> = (0..n).flat_map(|lane| rows.iter().map(move |r| r[lane])).collect();
        let (out, _, _) = run(&vk, &k, n, &params, &[], |_| Vec::new()).unwrap_or_else(|e| panic!("{e}"));
        let cfg = Config { wave_size: 32, waves: (n / 32) as u32, ..Config::default() };
        let inputs: Vec<Input> = rows.iter().map(|r| Input::PerLane(r.clone())).collect();
        let want = interp::run(&f, &cfg, &inputs, Memory::default()).unwrap();
        for (lane, o) in want.outputs.iter().enumerate() {
            let got = &out[lane * outs..(lane + 1) * outs];
            for (i, (g, w)) in got.iter().zip(o).enumerate() {
                assert_eq!(g, w, "round {round} lane {lane} output {i}: {:x?}", rows.iter().map(|r| r[lane]).collect::<Vec<_>>());
            }
        }
    }
}


/// The f64 reciprocal, square root and reciprocal square root keeping subnormals, and
/// ftwooverpi, on random bit patterns with zeros, infinities, NaNs and subnormals equal the
/// interpreter (`soft::approx::eval`, `soft::trig::two_over_pi_slice`) on every lane.
#[test]
fn f64_roots_and_two_over_pi_equal_the_interpreter() {
    let vk = open();
    let f = parse(
        "func @roots {
bb0:
  %0: f64 = param 0
  %1: i32 = param 1
  %2: f64 = approx.rcp %0
  %3: f64 = approx.rsq %0
  %4: f64 = approx.sqrt %0
  %5: f64 = ftwooverpi.rn.propnanneg %0, %1
  ret %2, %3, %4, %5
}",
    )
    .unwrap();
    let k = emit(&f).unwrap_or_else(|e| panic!("{e}"));
    let n = k.workgroup_size as usize * 4;
    let mut seed = 0xa54f_f53a_5f1d_36f1u64;
    for round in 0..16 {
        let mut rows: Vec<Vec<u64>> = vec![Vec::new(); 2];
        for _ in 0..n {
            rows[0].push(special_bits(&mut seed, 64, 11));
            rows[1].push(rng(&mut seed) & 0xffff_ffff);
        }
        outputs_equal(&vk, &f, &k, &rows, || format!("round {round}"));
    }
}

/// A random f32 of moderate size (`scale` times a value in [-1, 1) with a random significand),
/// now and then a zero, an infinity, a NaN, a subnormal or any bit pattern (`special_bits`).
fn ray_f32(seed: &mut u64, scale: f32) -> u32 {
    let x = rng(seed);
    if x.is_multiple_of(16) {
        return special_bits(seed, 32, 8) as u32;
    }
    ((((x >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0) as f32 * scale).to_bits()
}

/// BVH node intersection (`ray.node`, `ops::ray::intersect`) on Vulkan equals the interpreter
/// on every lane: random triangle nodes (both vertex orders), f16 and f32 box nodes with sorted
/// and unsorted children, type-7 and out-of-range nodes, rays aimed near the triangles and
/// boxes with random extents (every f32 step rounded, so results near edges are inexact);
/// a node of a type the IR does not define traps on both sides.
#[test]
fn bvh_node_intersection_equals_the_interpreter() {
    let vk = open();
    let mut text = String::from("func @bvh {\nbb0:\n");
    for p in 0..3 {
        text += &format!("  %{p}: i64 = param {p}\n");
    }
    for p in 3..13 {
        text += &format!("  %{p}: f32 = param {p}\n");
    }
    let args = (0..13).map(|p| format!("%{p}")).collect::<Vec<_>>().join(", ");
    for d in 0..4 {
        text += &format!("  %{}: i32 = ray.node.{d} {args}\n", 13 + d);
    }
    text += "  ret %13, %14, %15, %16\n}";
    let f = parse(&text).unwrap();
    let k = emit(&f).unwrap_or_else(|e| panic!("{e}"));
    assert!(k.traps, "an undefined node type traps");
    const NODES: usize = 64;
    let n = k.workgroup_size as usize * 8;
    let mut seed = 0x9d2c_5680_1b87_3e45u64;
    let mut hits = [0usize; 2];
    for round in 0..12 {
        let mut nodes = vec![0u32; NODES * 16];
        for w in nodes.chunks_mut(16) {
            for (i, x) in w.iter_mut().enumerate() {
                *x = match i {
                    // Children, then box bounds as f16 pairs (box16) or f32 (box32 and
                    // triangles share these dwords).
                    0..=3 if rng(&mut seed).is_multiple_of(2) => rng(&mut seed) as u32,
                    _ if rng(&mut seed).is_multiple_of(3) => {
                        let h = |s: &mut u64| isabridge_ir::soft::convert(
                            isabridge_ir::soft::FFmt::F32,
                            isabridge_ir::soft::FFmt::F16,
                            &isabridge_ir::soft::FloatMode::NV_RN,
                            isabridge_ir::soft::Overflow::Ieee,
                            ray_f32(s, 4.0) as u64,
                        ) as u32;
                        h(&mut seed) | h(&mut seed) << 16
                    }
                    _ => ray_f32(&mut seed, 4.0),
                };
            }
        }
        let mem = vk.global(&[&vec![0u8; (NODES + 4) * 64]]).unwrap();
        let addr = mem.address(0).unwrap();
        let base = addr.next_multiple_of(256);
        let bytes: Vec<u8> = nodes.iter().flat_map(|w| w.to_le_bytes()).collect();
        mem.write(0, (base - addr) as usize, &bytes).unwrap();
        let mut rows: Vec<Vec<u64>> = vec![Vec::new(); 13];
        for _ in 0..n {
            let x = rng(&mut seed);
            let last = if x.is_multiple_of(8) { (x >> 8) % NODES as u64 } else { NODES as u64 - 1 };
            let sort = (x >> 20) & 1;
            rows[0].push(base >> 8 | (base >> 40 & 0xff | sort << 31) << 32);
            rows[1].push(last | (x >> 24 & 0x3f) << 42);
            let ty = [0, 1, 4, 5, 7, 0, 1, 4, 5, 5][(x >> 32) as usize % 10];
            let index = (x >> 40) % (NODES as u64 + 1);
            rows[2].push(index << 3 | ty);
            // Origin near 0, direction toward a random point of the node's first vertices.
            let node = &nodes[(index as usize % NODES) * 16..];
            let origin: Vec<u32> = (0..3).map(|_| ray_f32(&mut seed, 0.5)).collect();
            let w: [f32; 3] = [0, 1, 2].map(|_| (rng(&mut seed) % 1000) as f32 / 1000.0);
            let mut dir = [0u32; 3];
            for c in 0..3 {
                let aim = f32::from_bits(node[c]) * w[0] + f32::from_bits(node[3 + c]) * w[1] + f32::from_bits(node[6 + c]) * w[2];
                let d = aim - f32::from_bits(origin[c]);
                dir[c] = if rng(&mut seed).is_multiple_of(12) { ray_f32(&mut seed, 2.0) } else { d.to_bits() };
            }
            let extent = if rng(&mut seed).is_multiple_of(4) { ray_f32(&mut seed, 8.0) } else { f32::INFINITY.to_bits() };
            rows[3].push(extent as u64);
            for c in 0..3 {
                rows[4 + c].push(origin[c] as u64);
                rows[7 + c].push(dir[c] as u64);
                rows[10 + c].push((1.0 / f32::from_bits(dir[c])).to_bits() as u64);
            }
        }
        let params: Vec<u64> = (0..n).flat_map(|lane| rows.iter().map(move |r| r[lane])).collect();
        let out = vk.run_with(&k, &Dispatch { invocations: n as u32, params: &params, constant: &[] }, &mem).unwrap_or_else(|e| panic!("{e}"));
        let cfg = Config { wave_size: k.workgroup_size, waves: (n / k.workgroup_size as usize) as u32, ..Config::default() };
        let inputs: Vec<Input> = rows.iter().map(|r| Input::PerLane(r.clone())).collect();
        let mut buffer = vec![0u8; (NODES + 4) * 64];
        buffer[(base - addr) as usize..][..bytes.len()].copy_from_slice(&bytes);
        let start = Memory { global: vec![(addr, buffer)], ..Memory::default() };
        let want = interp::run(&f, &cfg, &inputs, start.clone()).unwrap_or_else(|e| panic!("interpreter: {e}"));
        for (lane, o) in want.outputs.iter().enumerate() {
            let ty = rows[2][lane] & 7;
            if ty <= 1 {
                hits[0] += 1;
                hits[1] += (o[3] == 1) as usize;
            }
            assert_eq!(&out[lane * 4..lane * 4 + 4], &o[..], "round {round} lane {lane}: params {:x?}", rows.iter().map(|r| r[lane]).collect::<Vec<_>>());
        }
        if round == 0 {
            // Node type 2 in lane 37: both runs stop with an error.
            let mut rows = rows.clone();
            rows[2][37] = 2;
            rows[1][37] = NODES as u64 - 1;
            let params: Vec<u64> = (0..n).flat_map(|lane| rows.iter().map(move |r| r[lane])).collect();
            let inputs: Vec<Input> = rows.iter().map(|r| Input::PerLane(r.clone())).collect();
            assert!(interp::run(&f, &cfg, &inputs, start).is_err());
            match vk.run_with(&k, &Dispatch { invocations: n as u32, params: &params, constant: &[] }, &mem) {
                Err(isabridge_targets::vulkan::VulkanError::Trap { code, invocation: 37 }) if code == isabridge_targets::spirv::RAY_NODE_TRAP => {}
                other => panic!("{other:?}"),
            }
        }
    }
    println!("{} of {} triangle tests hit", hits[1], hits[0]);
    assert!(hits[1] * 5 > hits[0], "the rays hit often enough to test the hit path: {hits:?}");
}

/// `img.resinfo` of every shape and result channel on random linear descriptors with defined
/// formats, random base and last levels and mip operands (in range and past the last level),
/// equals the interpreter on every lane; a tiled descriptor traps on both sides.
#[test]
fn image_resinfo_equals_the_interpreter() {
    use isabridge_ir::ops::image::{Format, ImageDim, ImageKind, ImageOp, LodMode};
    let vk = open();
    let dims = [ImageDim::D1, ImageDim::D2, ImageDim::D3, ImageDim::Cube, ImageDim::D1Array, ImageDim::D2Array, ImageDim::D2Msaa, ImageDim::D2MsaaArray];
    let mut text = String::from("func @resinfo {\nbb0:\n");
    for p in 0..4 {
        text += &format!("  %{p}: i64 = param {p}\n");
    }
    text += "  %4: i32 = param 4\n";
    let mut outs = Vec::new();
    for dim in dims {
        for chan in 0..4 {
            for d16 in [false, true] {
                let op = ImageOp { kind: ImageKind::ResInfo, dim, chan, comp: 0, lod: LodMode::Lod, mip: false, clamp: false, compare: false, offset: false, unorm: false, d16 };
                let v = 5 + outs.len();
                text += &format!("  %{v}: i32 = {} %0, %1, %2, %3, %4\n", isabridge_ir::Op::Image(op).mnemonic());
                outs.push(format!("%{v}"));
            }
        }
    }
    text += &format!("  ret {}\n}}", outs.join(", "));
    let f = parse(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    let k = emit(&f).unwrap_or_else(|e| panic!("{e}"));
    let formats: Vec<u64> = (0..512).filter(|&n| Format::from_number(n).is_some()).map(|n| n as u64).collect();
    let n = k.workgroup_size as usize * 4;
    let mut seed = 0x51ed_270b_27d5_4c11u64;
    for round in 0..6 {
        let mut rows: Vec<Vec<u64>> = vec![Vec::new(); 5];
        for _ in 0..n {
            let x = [rng(&mut seed), rng(&mut seed), rng(&mut seed), rng(&mut seed)];
            let fmt = formats[(x[0] % formats.len() as u64) as usize];
            // Word 1: format; word 3: swizzle mode 0.
            rows[0].push(x[0] & !(0x1ffu64 << 52) | fmt << 52);
            rows[1].push(x[1] & !(0x1fu64 << 52));
            rows[2].push(x[2]);
            rows[3].push(x[3]);
            rows[4].push(rng(&mut seed) % 20);
        }
        let want_ok = |rows: &[Vec<u64>]| {
            let cfg = Config { wave_size: k.workgroup_size, waves: (n / k.workgroup_size as usize) as u32, ..Config::default() };
            let inputs: Vec<Input> = rows.iter().map(|r| Input::PerLane(r.clone())).collect();
            interp::run(&f, &cfg, &inputs, Memory::default())
        };
        let params: Vec<u64> = (0..n).flat_map(|lane| rows.iter().map(move |r| r[lane])).collect();
        let out = vk.run(&k, &Dispatch { invocations: n as u32, params: &params, constant: &[] }).unwrap_or_else(|e| panic!("{e}"));
        let want = want_ok(&rows).unwrap_or_else(|e| panic!("interpreter: {e}"));
        let w = k.outputs as usize;
        for (lane, o) in want.outputs.iter().enumerate() {
            assert_eq!(&out[lane * w..(lane + 1) * w], &o[..], "round {round} lane {lane}: params {:x?}", rows.iter().map(|r| r[lane]).collect::<Vec<_>>());
        }
        if round == 0 {
            let mut rows = rows.clone();
            rows[1][9] |= 1 << 52;
            assert!(want_ok(&rows).is_err());
            let params: Vec<u64> = (0..n).flat_map(|lane| rows.iter().map(move |r| r[lane])).collect();
            match vk.run(&k, &Dispatch { invocations: n as u32, params: &params, constant: &[] }) {
                Err(isabridge_targets::vulkan::VulkanError::Trap { code, invocation: 9 }) if code == isabridge_targets::spirv::IMAGE_TRAP => {}
                other => panic!("{other:?}"),
            }
        }
    }
}

/// The IR text of an image kernel over `ops`: params 0-3 the T#, 4-6 the coordinates, 7 the
/// mip level, 8-11 the store or atomic data; every op's result is returned. A wave-model kernel
/// (`wave`) runs every op under a mask of some lanes.
fn image_kernel(name: &str, wave: bool, ops: &[isabridge_ir::ops::image::ImageOp]) -> String {
    let mut text = format!("func @{name} {{\n");
    if wave {
        text += "  wave 32\n";
    }
    text += "bb0:\n";
    for p in 0..4 {
        text += &format!("  %{p}: i64 = param {p}\n");
    }
    for p in 4..12 {
        text += &format!("  %{p}: i32 = param {p}\n");
    }
    if wave {
        text += "  %12: uni mask = const 0xfff7ffde\n";
    }
    let mut outs = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        let mut args: Vec<String> = (0..4).map(|p| format!("%{p}")).collect();
        args.extend((0..op.dim.coords()).map(|c| format!("%{}", 4 + c)));
        if op.mip {
            args.push("%7".into());
        }
        args.extend((0..op.data_count()).map(|d| format!("%{}", 8 + d)));
        if wave {
            args.push("%12".into());
        }
        let m = isabridge_ir::Op::Image(*op).mnemonic();
        if op.is_store() {
            text += &format!("  {m} {}\n", args.join(", "));
        } else {
            let v = 13 + i;
            text += &format!("  %{v}: i32 = {m} {}\n", args.join(", "));
            outs.push(format!("%{v}"));
        }
    }
    text += &format!("  ret {}\n}}", outs.join(", "));
    text
}

/// Bytes of guest memory each lane's surface owns (every level of the largest descriptor the
/// test makes fits).
const SURFACE_BYTES: u64 = 4096;

/// Per-lane T# words for a linear surface at `base`: `formats` picks the format numbers, sizes
/// up to 8 x 4 x 4 (or 4 slices), random channel selects, base and last levels and base slice.
fn surface_desc(seed: &mut u64, base: u64, formats: &[u32]) -> [u64; 4] {
    let x = rng(seed);
    let format = formats[(x % formats.len() as u64) as usize] as u64;
    let (w, h, d) = (x >> 8 & 7, x >> 11 & 3, x >> 13 & 3);
    let sel = rng(seed) & 0xfff;
    let base_level = x >> 16 & 1;
    let last_level = base_level + (x >> 17 & 3);
    let base_array = x >> 20 & 1;
    let words = [
        base >> 8 & 0xffff_ffff,
        (base >> 40 & 0xff) | format << 20 | (w & 3) << 30,
        w >> 2 | h << 14,
        sel | base_level << 12 | last_level << 16,
        d | base_array << 16,
    ];
    [words[0] | words[1] << 32, words[2] | words[3] << 32, words[4] | (rng(seed) & 0xffff_ffff) << 32, rng(seed)]
}

/// Random data for an image store channel: special f32 bit patterns, values near the
/// normalized and scaled ranges, or any bits.
fn store_data(seed: &mut u64) -> u64 {
    match rng(seed) % 4 {
        0 => special_bits(seed, 32, 8),
        1 => ray_f32(seed, 1.25) as u64,
        2 => ray_f32(seed, 40000.0) as u64,
        _ => rng(seed) & 0xffff_ffff,
    }
}

/// Run image kernel `f` (emitted as `k`) over `rows` on Vulkan and on the interpreter with the
/// buffer of `memory` (its Vulkan memory and address) holding `bytes`, and compare every lane's
/// outputs and the buffer afterwards.
fn image_run_equal(vk: &Vulkan, f: &isabridge_ir::Function, k: &Kernel, rows: &[Vec<u64>], memory: (&isabridge_targets::vulkan::GlobalMemory, u64), bytes: &[u8], what: &str) {
    let (mem, addr) = memory;
    let n = rows[0].len();
    mem.write(0, 0, bytes).unwrap();
    let params: Vec<u64> = (0..n).flat_map(|lane| rows.iter().map(move |r| r[lane])).collect();
    let out = vk.run_with(k, &Dispatch { invocations: n as u32, params: &params, constant: &[] }, mem).unwrap_or_else(|e| panic!("{what}: {e}"));
    let cfg = Config { wave_size: k.workgroup_size, waves: (n / k.workgroup_size as usize) as u32, ..Config::default() };
    let inputs: Vec<Input> = rows.iter().map(|r| Input::PerLane(r.clone())).collect();
    let start = Memory { global: vec![(addr, bytes.to_vec())], ..Memory::default() };
    let want = interp::run(f, &cfg, &inputs, start).unwrap_or_else(|e| panic!("{what}: interpreter: {e}"));
    let w = k.outputs as usize;
    for (lane, o) in want.outputs.iter().enumerate() {
        assert_eq!(&out[lane * w..(lane + 1) * w], &o[..], "{what} lane {lane}: params {:x?}", rows.iter().map(|r| r[lane]).collect::<Vec<_>>());
    }
    let mut got = mem.read(0).unwrap();
    got.truncate(bytes.len());
    let back = &want.memory.global[0].1;
    if let Some(at) = back.iter().zip(&got).position(|(x, y)| x != y) {
        panic!("{what}: memory differs at byte {at:#x}: interpreter {:#04x}, vulkan {:#04x}", back[at], got[at]);
    }
}

/// Image loads, stores and atomics (`img.load`, `img.store`, `img.atomic.*`) of every shape
/// the IR addresses on random linear descriptors (every defined format, random channel
/// selects, sizes, base and last levels, base slices and mip operands; coordinates in and out
/// of range) over random surface bytes equal the interpreter on every lane, in per-lane and
/// wave-model (masked) kernels, with guest memory at device addresses and in the heap model:
/// the loaded channels, and the memory after the stores and atomics. Each lane owns its
/// surface. A tiled descriptor, an undefined format, a
/// multisampled surface and an atomic on a format other than one 32-bit channel trap on both
/// sides.
#[test]
fn image_loads_stores_and_atomics_equal_the_interpreter() {
    use isabridge_ir::ops::image::{Format, ImageDim, ImageKind, ImageOp, LodMode};
    use isabridge_ir::ops::mem::AtomicKind;
    use isabridge_targets::spirv::{emit_with, EmitOptions, MemoryModel};
    use isabridge_targets::vulkan::VulkanError;
    let vk = open();
    let op = |kind, dim, chan, comp, mip, d16| ImageOp { kind, dim, chan, comp, lod: LodMode::Lod, mip, clamp: false, compare: false, offset: false, unorm: false, d16 };
    let dims = [ImageDim::D1, ImageDim::D2, ImageDim::D3, ImageDim::Cube, ImageDim::D1Array, ImageDim::D2Array];
    let mut loads = Vec::new();
    for dim in dims {
        for chan in 0..4 {
            loads.push(op(ImageKind::Load, dim, chan, 0, chan == 1, chan == 3));
        }
    }
    let mut stores = Vec::new();
    for (i, dim) in dims.into_iter().enumerate() {
        let comp = [15, 1, 5, 10, 3, 12][i];
        stores.push(op(ImageKind::Store, dim, 0, comp, i == 2, i == 4));
        for chan in 0..4 {
            stores.push(op(ImageKind::Load, dim, chan, 0, i == 2, false));
        }
    }
    let kinds = [AtomicKind::Add, AtomicKind::Sub, AtomicKind::And, AtomicKind::Or, AtomicKind::Xor, AtomicKind::Exch, AtomicKind::Min(true), AtomicKind::Max(false), AtomicKind::CmpExch];
    let mut atomics: Vec<ImageOp> = kinds.iter().enumerate().map(|(i, &a)| op(ImageKind::Atomic(a), dims[i % 6], 0, 0, i == 3, false)).collect();
    let lanes_atomics = atomics.clone();
    atomics.push(op(ImageKind::Atomic(AtomicKind::Inc), ImageDim::D2, 0, 0, false, false));
    atomics.push(op(ImageKind::Atomic(AtomicKind::Dec), ImageDim::D1, 0, 0, false, false));
    let all: Vec<u32> = (0..512).filter(|&n| Format::from_number(n).is_some()).collect();
    let word32 = [20, 21, 22];
    let n = 64usize;
    let mut seed = 0x1a6e_d00d_5eed_0029u64;
    for (name, wave, ops, formats, memory) in [
        ("loads", false, &loads, &all[..], MemoryModel::DeviceAddress),
        ("loads_wave", true, &loads, &all[..], MemoryModel::DeviceAddress),
        ("stores", false, &stores, &all[..], MemoryModel::DeviceAddress),
        ("stores_wave", true, &stores, &all[..], MemoryModel::DeviceAddress),
        ("stores_wave_heap", true, &stores, &all[..], MemoryModel::Heap),
        ("atomics", false, &lanes_atomics, &word32[..], MemoryModel::DeviceAddress),
        ("atomics_heap", false, &lanes_atomics, &word32[..], MemoryModel::Heap),
        ("atomics_wave", true, &atomics, &word32[..], MemoryModel::DeviceAddress),
    ] {
        let text = image_kernel(name, wave, ops);
        let f = parse(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        let k = emit_with(&f, &EmitOptions { memory, ..EmitOptions::default() }).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(k.traps, "{name}: an undefined descriptor traps");
        let size = (n as u64 + 1) * SURFACE_BYTES;
        let mem = vk.memory(memory, &[&vec![0u8; size as usize]]).unwrap();
        let addr = mem.address(0).unwrap();
        let first = addr.next_multiple_of(256);
        for round in 0..3 {
            let bytes: Vec<u8> = (0..size).map(|_| rng(&mut seed) as u8).collect();
            let mut rows: Vec<Vec<u64>> = vec![Vec::new(); 12];
            for lane in 0..n {
                let t = surface_desc(&mut seed, first + lane as u64 * SURFACE_BYTES, formats);
                for (p, w) in t.into_iter().enumerate() {
                    rows[p].push(w);
                }
                for (p, lim) in [(4, 10), (5, 6), (6, 6), (7, 4)] {
                    rows[p].push(rng(&mut seed) % lim);
                }
                for r in rows.iter_mut().skip(8) {
                    r.push(store_data(&mut seed));
                }
            }
            image_run_equal(&vk, &f, &k, &rows, (&mem, addr), &bytes, &format!("{name} round {round}"));
            if round == 0 {
                // Lane 9: tiled; lane 10: an undefined format (78); lane 11 (atomics): two
                // 16-bit channels (29).
                for (lane, word, bits) in [(9usize, 1usize, 1u64 << 52), (10, 0, 78 << 52), (11, 0, 29 << 52)] {
                    if lane == 11 && !name.starts_with("atomics") {
                        continue;
                    }
                    let mut rows = rows.clone();
                    if word == 0 {
                        rows[0][lane] = rows[0][lane] & !(0x1ffu64 << 52) | bits;
                    } else {
                        rows[1][lane] |= bits;
                    }
                    let params: Vec<u64> = (0..n).flat_map(|l| rows.iter().map(move |r| r[l])).collect();
                    match vk.run_with(&k, &Dispatch { invocations: n as u32, params: &params, constant: &[] }, &mem) {
                        Err(VulkanError::Trap { code, invocation }) if code == isabridge_targets::spirv::IMAGE_TRAP && invocation == lane as u32 => {}
                        other => panic!("{name}: lane {lane}: {other:?}"),
                    }
                    let cfg = Config { wave_size: k.workgroup_size, waves: (n / k.workgroup_size as usize) as u32, ..Config::default() };
                    let inputs: Vec<Input> = rows.iter().map(|r| Input::PerLane(r.clone())).collect();
                    let start = Memory { global: vec![(addr, bytes.clone())], ..Memory::default() };
                    assert!(interp::run(&f, &cfg, &inputs, start).is_err(), "{name}: lane {lane}: the interpreter stops");
                }
            }
        }
    }
    // A multisampled load traps on every lane.
    let text = image_kernel("msaa", false, &[op(ImageKind::Load, ImageDim::D2Msaa, 0, 0, false, false)]);
    let f = parse(&text).unwrap();
    let k = emit(&f).unwrap_or_else(|e| panic!("{e}"));
    let mut params = vec![0u64; 12 * 32];
    for lane in 0..32 {
        params[lane * 12] = 22 << 52;
    }
    match vk.run(&k, &Dispatch { invocations: 32, params: &params, constant: &[] }) {
        Err(VulkanError::Trap { code, .. }) if code == isabridge_targets::spirv::IMAGE_TRAP => {}
        other => panic!("msaa: {other:?}"),
    }
    // Increment and decrement with a limit have no native atomic for per-lane functions.
    let text = image_kernel("inc", false, &[op(ImageKind::Atomic(AtomicKind::Inc), ImageDim::D2, 0, 0, false, false)]);
    let e = emit(&parse(&text).unwrap()).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(e.contains("img.atomic.inc.2d.c0.l") && e.contains("per-lane functions"), "{e}");
}

/// A random operand of `bits` bits: small (shift amounts, counts), an extreme, or anything.
fn narrow_operand(seed: &mut u64, bits: u32) -> u64 {
    let x = rng(seed);
    let m = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
    match x % 6 {
        0 => (x >> 8) % (bits as u64 + 3),
        1 => m,
        2 => m >> 1,
        3 => (m >> 1) + 1,
        _ => (x >> 5) & m,
    }
}

/// 8- and 16-bit integer arithmetic (native Int8 and Int16: wrapping add, sub and mul, both
/// shift rules, min and max, comparisons, saturating add and subtract, high halves,
/// multiply-add, population count, leading zeros, bit reverse, extension and truncation),
/// conversion to and from floats, byte loads and stores next to other lanes' bytes, population count,
/// leading zeros and bit reverse of i64, and `prmt` in
/// every selector mode, on random operands with extremes and small amounts, equal the
/// interpreter (`IntOp::eval`, `ops::int::prmt`) on every lane and in memory.
#[test]
fn narrow_integers_and_byte_permutes_equal_the_interpreter() {
    let vk = open();
    let f = parse(
        "func @narrow {
bb0:
  %0: i8 = param 0
  %1: i8 = param 1
  %2: i16 = param 2
  %3: i16 = param 3
  %4: i8 = iadd %0, %1
  %5: i8 = isub %0, %1
  %6: i8 = imul.lo %0, %1
  %7: i8 = shl.clamp %0, %1
  %8: i8 = shr.s.wrap %0, %1
  %9: i8 = shr.u.clamp %0, %1
  %10: i8 = imin.s %0, %1
  %11: i8 = imax.u %0, %1
  %12: b1 = icmp.slt %0, %1
  %13: b1 = icmp.ugt %0, %1
  %14: i16 = iadd.sats %2, %3
  %15: i16 = isub.satu %2, %3
  %16: i16 = imul.hi.s %2, %3
  %17: i16 = imul.hi.u %2, %3
  %18: i16 = shr.s.clamp %2, %3
  %19: i16 = popc %2
  %20: i8 = popc %0
  %21: i16 = clz %3
  %22: i8 = brev %1
  %23: i32 = iext.s %0
  %24: i16 = iext.u %1
  %25: i8 = iext.u %2
  %26: i16 = imax.s %2, %3
  %27: i8 = iadd.satu %0, %1
  %28: i8 = imad.hi.s %0, %1, %0
  %29: i16 = shl.wrap %2, %3
  %30: b1 = icmp.sge %2, %3
  %31: i8 = isub.sats %0, %1
  %32: i16 = imad.lo %2, %3, %2
  %33: i8 = clz %1
  %34: i16 = brev %2
  %35: i8 = ineg %0
  %36: i8 = lop3.202 %0, %1, %25
  %37: i16 = iext.s %0
  %38: i64 = iext.s %2
  %39: i64 = popc %38
  %40: i64 = iext.u %3
  %41: i64 = clz %40
  %42: i64 = brev %38
  %43: i64 = clz %38
  %44: f32 = i2f.u.rz %1
  %45: f64 = i2f.s.rn %0
  %46: f32 = i2f.s.rn %2
  %47: f32 = const 0x3ebd70a4
  %48: f32 = fmul.rn %46, %47
  %49: i8 = f2i.s.rz %48
  %50: i8 = f2i.u.rn %48
  %51: i8 = f2i.s.rm %46
  ret %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %39, %41, %42, %43, %44, %45, %49, %50, %51
}",
    )
    .unwrap();
    let k = emit(&f).unwrap_or_else(|e| panic!("{e}"));
    assert!(k.requires.contains(&"shaderInt8") && k.requires.contains(&"shaderInt16"), "{:?}", k.requires);
    let n = k.workgroup_size as usize * 4;
    let mut seed = 0x9b05_688c_2b3e_6c1fu64;
    for round in 0..24 {
        let rows: Vec<Vec<u64>> = [8, 8, 16, 16].iter().map(|&bits| (0..n).map(|_| narrow_operand(&mut seed, bits)).collect()).collect();
        outputs_equal(&vk, &f, &k, &rows, || format!("narrow round {round}"));
    }

    let f = parse(
        "func @prmt {
bb0:
  %0: i32 = param 0
  %1: i32 = param 1
  %2: i32 = param 2
  %3: i32 = prmt %0, %1, %2
  %4: i32 = prmt.f4e %0, %1, %2
  %5: i32 = prmt.b4e %0, %1, %2
  %6: i32 = prmt.rc8 %0, %1, %2
  %7: i32 = prmt.ecl %0, %1, %2
  %8: i32 = prmt.ecr %0, %1, %2
  %9: i32 = prmt.rc16 %0, %1, %2
  %10: i32 = prmt.sel8 %0, %1, %2
  ret %3, %4, %5, %6, %7, %8, %9, %10
}",
    )
    .unwrap();
    let k = emit(&f).unwrap_or_else(|e| panic!("{e}"));
    for round in 0..16 {
        let rows: Vec<Vec<u64>> = (0..3)
            .map(|p| {
                (0..n)
                    .map(|_| {
                        let x = rng(&mut seed) & 0xffff_ffff;
                        // Selector bytes 0-15 (every `sel8` case) in most lanes.
                        if p == 2 && !x.is_multiple_of(4) {
                            x & 0x0f0f_0f0f
                        } else {
                            x
                        }
                    })
                    .collect()
            })
            .collect();
        outputs_equal(&vk, &f, &k, &rows, || format!("prmt round {round}"));
    }

    // Bytes: each lane loads its byte, adds its parameter and stores the sum next to its
    // neighbours' bytes (one word holds four lanes' bytes).
    let f = parse(
        "func @bytes {
bb0:
  %0: i64 = param 0
  %1: i8 = param 1
  %2: i8 = load.global %0
  %3: i8 = iadd %2, %1
  store.global %0, %3
  %4: i32 = iext.u %2
  ret %4
}",
    )
    .unwrap();
    let k = emit(&f).unwrap_or_else(|e| panic!("{e}"));
    let n = k.workgroup_size as usize;
    for round in 0..8 {
        let global: Vec<u8> = (0..n).map(|_| rng(&mut seed) as u8).collect();
        let mut rows: Vec<Vec<u64>> = Vec::new();
        let (out, mem, addr) = run(&vk, &k, n, &[], &global, |addr| {
            rows = vec![(0..n as u64).map(|lane| addr + lane).collect(), (0..n).map(|_| rng(&mut seed) & 0xff).collect()];
            (0..n).flat_map(|lane| rows.iter().map(move |r| r[lane])).collect()
        })
        .unwrap_or_else(|e| panic!("bytes: {e}"));
        let inputs: Vec<Input> = rows.iter().map(|r| Input::PerLane(r.clone())).collect();
        let cfg = Config { wave_size: n as u32, waves: 1, ..Config::default() };
        let want = interp::run(&f, &cfg, &inputs, Memory { global: vec![(addr, global.clone())], ..Memory::default() }).unwrap_or_else(|e| panic!("bytes: interpreter: {e}"));
        let outs: Vec<u64> = want.outputs.iter().flatten().copied().collect();
        assert_eq!(out, outs, "bytes round {round}: outputs");
        assert_eq!(mem, want.memory.global[0].1, "bytes round {round}: global memory");
    }
}

/// `fclass` of f16, f32 and f64 and the four cube-map ops on f32 (with FTZ and directed
/// rounding of the doubled major axis) on random bit patterns with zeros, infinities, NaNs
/// (quiet and signalling), subnormals and ties between the axes' magnitudes equal the
/// interpreter (`soft::class`, `ops::float::CubeKind`) on every lane.
#[test]
fn float_class_and_cube_map_ops_equal_the_interpreter() {
    let vk = open();
    let f = parse(
        "func @classcube {
bb0:
  %0: f32 = param 0
  %1: f32 = param 1
  %2: f32 = param 2
  %3: f16 = param 3
  %4: f64 = param 4
  %5: i32 = fclass %0
  %6: i32 = fclass %3
  %7: i32 = fclass %4
  %8: f32 = fcubeid.rn %0, %1, %2
  %9: f32 = fcubesc.rn %0, %1, %2
  %10: f32 = fcubetc.rn %0, %1, %2
  %11: f32 = fcubema.rn %0, %1, %2
  %12: f32 = fcubeid.rn.ftz %0, %1, %2
  %13: f32 = fcubesc.rn.ftz %0, %1, %2
  %14: f32 = fcubema.rz.ftz.sat %0, %1, %2
  %15: f32 = fcubema.rn.qnan %0, %1, %2
  %16: i16 = fclass %3
  ret %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16
}",
    )
    .unwrap();
    let k = emit(&f).unwrap_or_else(|e| panic!("{e}"));
    let n = k.workgroup_size as usize * 4;
    let mut seed = 0x1f83_d9ab_fb41_bd6bu64;
    for round in 0..24 {
        let mut rows: Vec<Vec<u64>> = vec![Vec::new(); 5];
        for _ in 0..n {
            let mut xyz = [0; 3].map(|_| special_bits(&mut seed, 32, 8));
            // Ties: an axis of the same magnitude as another, either sign.
            let t = rng(&mut seed);
            if t.is_multiple_of(3) {
                let (from, to) = ((t >> 8) as usize % 3, (t >> 16) as usize % 3);
                xyz[to] = xyz[from] ^ ((t >> 24) & 1) << 31;
            }
            for (r, x) in rows.iter_mut().zip(xyz) {
                r.push(x);
            }
            rows[3].push(special_bits(&mut seed, 16, 5));
            rows[4].push(special_bits(&mut seed, 64, 11));
        }
        outputs_equal(&vk, &f, &k, &rows, || format!("class and cube round {round}"));
    }
}

/// The IR text of a sampling kernel over `ops`: params 0-3 the T#, 4-5 the S#, 6 the packed
/// texel offset, 7 the depth-compare reference, 8-13 the derivatives, 14-16 the coordinates,
/// 17 the LOD (or bias), 18 the LOD clamp (each op takes the ones its form names); every op's result is
/// returned. A wave-model kernel (`wave`) runs every op under a mask of some lanes.
fn sample_kernel(name: &str, wave: bool, ops: &[isabridge_ir::ops::image::ImageOp]) -> String {
    use isabridge_ir::ops::image::LodMode;
    let mut text = format!("func @{name} {{\n");
    if wave {
        text += "  wave 32\n";
    }
    text += "bb0:\n";
    for p in 0..6 {
        text += &format!("  %{p}: i64 = param {p}\n");
    }
    text += "  %6: i32 = param 6\n";
    for p in 7..19 {
        text += &format!("  %{p}: f32 = param {p}\n");
    }
    if wave {
        text += "  %19: uni mask = const 0xfff7ffde\n";
    }
    let mut outs = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        let mut args: Vec<String> = (0..6).map(|p| format!("%{p}")).collect();
        if op.offset {
            args.push("%6".into());
        }
        if op.lod == LodMode::Bias {
            args.push("%17".into());
        }
        if op.compare {
            args.push("%7".into());
        }
        if op.lod == LodMode::Grad {
            let g = op.dim.grads();
            args.extend((0..2 * g).map(|k| format!("%{}", 8 + k)));
        }
        args.extend((0..op.dim.coords()).map(|c| format!("%{}", 14 + c)));
        if op.lod == LodMode::Lod {
            args.push("%17".into());
        }
        if op.clamp {
            args.push("%18".into());
        }
        if wave {
            args.push("%19".into());
        }
        let v = 20 + i;
        text += &format!("  %{v}: i32 = {} {}\n", isabridge_ir::Op::Image(*op).mnemonic(), args.join(", "));
        outs.push(format!("%{v}"));
    }
    text += &format!("  ret {}\n}}", outs.join(", "));
    text
}

/// Random S# words: any address modes, compare function, filters (point or bilinear, z and
/// mip filters), border colour types 0-2, LOD ranges and bias in 8-bit fixed point, and now
/// and then unnormalized coordinates.
fn sampler_desc(seed: &mut u64) -> [u64; 2] {
    let x = rng(seed);
    let y = rng(seed);
    let w0 = (x & 0x1ff) | (x >> 9 & 7) << 12 | u64::from(x >> 12 & 15 == 0) << 15;
    let min_lod = y & 0x3ff;
    let max_lod = (min_lod + (y >> 10 & 0x7ff)).min(0xfff);
    let w1 = min_lod | max_lod << 12;
    let bias = (y >> 24 & 0x7ff).wrapping_sub(0x400) & 0x3fff;
    let w2 = bias | (x >> 16 & 1) << 20 | (x >> 17 & 1) << 22 | (x >> 18 & 3) << 24 | (x >> 20 & 3) << 26;
    let w3 = ((x >> 22) % 3) << 30;
    [w0 | w1 << 32, w2 | w3 << 32]
}

/// Image sampling and gather (`img.sample`, `img.gather`: explicit LOD, LOD zero and
/// derivative LODs, and in wave-model kernels implicit LODs from the lane quad, biased ones and
/// get-LOD; offsets, depth compares, LOD clamps, d16 and texel coordinates; 1D, 2D, 3D and
/// array shapes) on random linear descriptors of the float-like formats over random
/// surface bytes, with random samplers and coordinates (inside and around [0, 1], huge and
/// special values), equal the interpreter's exact definition (`ops::sample`) on every lane,
/// per-lane and wave-model kernels. An integer format under `img.sample` and a border-colour
/// table trap on both sides; derivative LODs of a cube direction and implicit LODs in per-lane
/// kernels are typed errors (cubes: [`cube_sampling_equals_the_interpreter`]).
#[test]
fn image_sampling_and_gather_equal_the_interpreter() {
    use isabridge_ir::ops::image::{Format, ImageDim, ImageKind, ImageOp, LodMode};
    use isabridge_targets::vulkan::VulkanError;
    let vk = open();
    let op = |kind, dim, chan: u8, lod| ImageOp { kind, dim, chan, comp: 0, lod, mip: false, clamp: false, compare: false, offset: false, unorm: false, d16: false };
    let dims = [ImageDim::D1, ImageDim::D2, ImageDim::D3, ImageDim::D1Array, ImageDim::D2Array];
    let mut samples = Vec::new();
    let mut gathers = Vec::new();
    for (i, dim) in dims.into_iter().enumerate() {
        for (j, lod) in [LodMode::Lod, LodMode::Zero, LodMode::Grad].into_iter().enumerate() {
            let chan = ((i + j) % 4) as u8;
            samples.push(op(ImageKind::Sample, dim, chan, lod));
            let k = i * 3 + j;
            samples.push(ImageOp { offset: k % 2 == 0, clamp: k % 3 == 0, compare: k % 4 == 1, unorm: k % 5 == 2, d16: k % 7 == 3, ..op(ImageKind::Sample, dim, 3 - chan, lod) });
        }
        for chan in 0..4u8 {
            let lod = if chan % 2 == 0 { LodMode::Zero } else { LodMode::Lod };
            gathers.push(ImageOp { comp: (chan + i as u8) % 4, offset: chan == 1, compare: chan == 2, ..op(ImageKind::Gather, dim, chan, lod) });
        }
    }
    // Implicit LODs (the lane quad's derivatives, the bias operand) and get-LOD: wave-model
    // kernels only.
    let mut quad = samples.clone();
    for (i, dim) in dims.into_iter().enumerate() {
        quad.push(op(ImageKind::Sample, dim, i as u8 % 4, LodMode::Implicit));
        quad.push(ImageOp { clamp: i % 2 == 0, ..op(ImageKind::Sample, dim, 3 - i as u8 % 4, LodMode::Bias) });
        quad.push(op(ImageKind::GetLod, dim, 0, LodMode::Implicit));
        quad.push(op(ImageKind::GetLod, dim, 1, LodMode::Implicit));
    }
    let floats: Vec<u32> = (0..512).filter(|&n| Format::from_number(n).is_some_and(|f| !f.is_int())).collect();
    let all: Vec<u32> = (0..512).filter(|&n| Format::from_number(n).is_some()).collect();
    let n = 64usize;
    let mut seed = 0x5a3b_1e00_0029_7e57u64;
    let coord = |seed: &mut u64| -> u64 {
        let x = rng(seed);
        match x % 8 {
            0 => special_bits(seed, 32, 8),
            1 => (x >> 8) % 64 * 1024 % 0x10_0000 / 16 + 0x4000_0000 * (x >> 40 & 1),
            2 => ray_f32(seed, 12.0) as u64,
            _ => ((((x >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 0.5) as f32).to_bits() as u64,
        }
    };
    // A few ops a kernel: each op is long straight-line code (up to 16 texel reads with every
    // format's conversions, and the exact f32 lerps), which lavapipe compiles slowly.
    let mut kernels = Vec::new();
    for (name, wave, ops, formats) in [
        ("samples", false, &samples, &floats[..]),
        ("samples_wave", true, &quad, &floats[..]),
        ("gathers", false, &gathers, &all[..]),
        ("gathers_wave", true, &gathers, &all[..]),
    ] {
        for (i, chunk) in ops.chunks(3).enumerate() {
            kernels.push((format!("{name}_{i}"), wave, chunk.to_vec(), formats, i == 0));
        }
    }
    for (name, wave, ops, formats, first_chunk) in kernels {
        let name = name.as_str();
        let text = sample_kernel(name, wave, &ops);
        let f = parse(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        let started = std::time::Instant::now();
        let k = emit(&f).unwrap_or_else(|e| panic!("{name}: {e}"));
        println!("{name}: {} words", k.words.len());
        assert!(k.traps, "{name}: an undefined descriptor traps");
        let size = (n as u64 + 1) * SURFACE_BYTES;
        let mem = vk.memory(isabridge_targets::spirv::MemoryModel::DeviceAddress, &[&vec![0u8; size as usize]]).unwrap();
        let addr = mem.address(0).unwrap();
        let first = addr.next_multiple_of(256);
        for round in 0..1 {
            let bytes: Vec<u8> = (0..size).map(|_| rng(&mut seed) as u8).collect();
            let mut rows: Vec<Vec<u64>> = vec![Vec::new(); 19];
            for lane in 0..n {
                let t = surface_desc(&mut seed, first + lane as u64 * SURFACE_BYTES, formats);
                // Border-colour tables trap; lane 9 gets one in round 1 below.
                push_sampling_rows(&mut seed, &mut rows, t);
                for r in rows.iter_mut().take(17).skip(14) {
                    r.push(coord(&mut seed));
                }
                for r in rows.iter_mut().skip(17) {
                    let x = rng(&mut seed);
                    r.push(if x.is_multiple_of(8) { special_bits(&mut seed, 32, 8) } else { ray_f32(&mut seed, 5.0) as u64 });
                }
            }
            image_run_equal(&vk, &f, &k, &rows, (&mem, addr), &bytes, &format!("{name} round {round}"));
            println!("{name} round {round}: {:.1} s", started.elapsed().as_secs_f64());
            if first_chunk {
                // Lane 9: a border-colour table; lane 10 (samples): an integer format (20).
                for (lane, p, bits) in [(9usize, 5usize, 3u64 << 62), (10, 0, 20 << 52)] {
                    if lane == 10 && name.starts_with("gathers") {
                        continue;
                    }
                    let mut rows = rows.clone();
                    rows[p][lane] = if p == 0 { rows[0][lane] & !(0x1ffu64 << 52) | bits } else { rows[p][lane] | bits };
                    let params: Vec<u64> = (0..n).flat_map(|l| rows.iter().map(move |r| r[l])).collect();
                    match vk.run_with(&k, &Dispatch { invocations: n as u32, params: &params, constant: &[] }, &mem) {
                        Err(VulkanError::Trap { code, invocation }) if code == isabridge_targets::spirv::IMAGE_TRAP && invocation == lane as u32 => {}
                        other => panic!("{name}: lane {lane}: {other:?}"),
                    }
                    let cfg = Config { wave_size: k.workgroup_size, waves: (n / k.workgroup_size as usize) as u32, ..Config::default() };
                    let inputs: Vec<Input> = rows.iter().map(|r| Input::PerLane(r.clone())).collect();
                    let start = Memory { global: vec![(addr, bytes.clone())], ..Memory::default() };
                    assert!(interp::run(&f, &cfg, &inputs, start).is_err(), "{name}: lane {lane}: the interpreter stops");
                }
            }
        }
    }
    // Typed errors: derivative LODs of a cube direction, implicit LODs and get-LOD name the op.
    for (o, why) in [
        (op(ImageKind::Sample, ImageDim::CubeDir, 0, LodMode::Grad), "cube by direction"),
        (op(ImageKind::Sample, ImageDim::D2, 0, LodMode::Implicit), "implicit derivatives"),
        (op(ImageKind::GetLod, ImageDim::D2, 0, LodMode::Implicit), "implicit derivatives"),
    ] {
        let text = sample_kernel("refused", false, &[o]);
        let e = emit(&parse(&text).unwrap()).err().map(|e| e.to_string()).unwrap_or_default();
        let m = isabridge_ir::Op::Image(o).mnemonic();
        assert!(e.contains(&m) && e.contains(why), "{m}: {e}");
    }
}

/// Regression (sm_86 / sm_50 `fp64_arith`, `div.rn.f64` of 0xc37103e62a6b1940 by
/// 0x7fda026af9e78e83): ptxas's inline division tests `0 × b.hi + q.hi` (an f32 `FFMA RZ`)
/// for a NaN, which the high word of a huge divisor is, to take the slow path.
#[test]
fn f32_fma_of_a_constant_zero_and_a_nan_is_a_nan() {
    let vk = open();
    let f = parse(
        "func @fmanan {
bb0:
  %0: f32 = param 0
  %1: f32 = param 1
  %2: f32 = param 2
  %3: uni i32 = const 0x0
  %4: uni f32 = bitcast %3
  %5: f32 = ffma.rn %4, %0, %1
  %6: f32 = ffma.rn %2, %0, %1
  %7: f32 = fmul.rn %4, %0
  %8: uni i32 = const 0x100000
  %9: uni f32 = bitcast %8
  %10: b1 = fcmp.gt %5, %9
  ret %5, %6, %7, %10
}",
    )
    .unwrap();
    let k = emit(&f).unwrap();
    let n = k.workgroup_size as usize;
    let rows = vec![vec![0x7fda_026a; n], vec![0x0384_ef28; n], vec![0; n]];
    outputs_equal(&vk, &f, &k, &rows, || "0 × NaN + x".into());
}

/// An f64 bit pattern in the ranges where f64 emission is hard: zeros, infinities, NaNs,
/// subnormals, the largest and smallest normal exponents, values near one, near 2^31 and 2^63
/// (integer conversion limits), and anything.
fn hard_f64(seed: &mut u64) -> u64 {
    let x = rng(seed);
    let sign = x & (1 << 63);
    let frac = (x >> 3) & ((1 << 52) - 1);
    let near = |e: u64| sign | ((e + (x >> 55) % 8 - 4) << 52) | frac;
    match x % 12 {
        0..=4 => special_bits(seed, 64, 11),
        5 => near(0x7fb),
        6 => near(5),
        7 => near(1023 + 31),
        8 => near(1023 + 63),
        9 => near(1023 + 52),
        10 => sign | frac >> ((x >> 56) % 52),
        _ => near(0x3ff),
    }
}

/// Every f64 op the IR has (add, sub, mul and fma in each rounding direction and NaN rule,
/// min / max, round to integral, abs / neg, the reciprocal and reciprocal square root with and
/// without flushing, conversions to and from f32 and 32- and 64-bit integers, comparisons), and
/// f32 ops with a constant ±0 or one operand (ldexp of -0 too), over 2,048 operand rows (64 waves) concentrated in the hard
/// ranges (subnormal operands and results, products and sums at the overflow and underflow
/// thresholds, exponent extremes, NaN, infinities, ±0, fused sums that cancel), equal the
/// interpreter bit for bit in one dispatch.
#[test]
fn f64_ops_on_hard_operands_equal_the_interpreter() {
    let vk = open();
    let f = parse(
        "func @f64hard {
bb0:
  %0: f64 = param 0
  %1: f64 = param 1
  %2: f64 = param 2
  %3: f32 = param 3
  %4: i64 = param 4
  %5: i32 = param 5
  %6: f64 = fadd.rn.nvnan64 %0, %1
  %7: f64 = fadd.rz.nvnan64 %0, %1
  %8: f64 = fsub.rm.nvnan64 %0, %1
  %9: f64 = fsub.rp.nvnan64 %0, %1
  %10: f64 = fmul.rn.nvnan64 %0, %1
  %11: f64 = fmul.rz.nvnan64 %0, %1
  %12: f64 = fmul.rm.nvnan64 %0, %1
  %13: f64 = fmul.rp.nvnan64 %0, %1
  %14: f64 = ffma.rn.nvnan64 %0, %1, %2
  %15: f64 = ffma.rz.nvnan64 %0, %1, %2
  %16: f64 = ffma.rm.nvnan64 %0, %1, %2
  %17: f64 = ffma.rp.nvnan64 %0, %1, %2
  %18: f64 = ffma.rn.keepnan %0, %1, %2
  %19: f64 = fmul.rn.propnanneg %0, %1
  %20: f64 = fmin %0, %1
  %21: f64 = fmax %0, %1
  %22: f64 = fminimum %0, %1
  %23: f64 = fmax2008 %0, %1
  %24: f64 = frint.rn %0
  %25: f64 = frint.rz %0
  %26: f64 = frint.rm %0
  %27: f64 = frint.rp %0
  %28: f64 = fabs %0
  %29: f64 = fneg %0
  %30: f64 = approx.rcp %0
  %31: f64 = approx.rcp.ftz %0
  %32: f64 = approx.rsq %0
  %33: f64 = approx.rsq.ftz %0
  %34: f32 = fcvt.rn %0
  %35: f32 = fcvt.rz %0
  %36: f32 = fcvt.rm %0
  %37: f32 = fcvt.rp.ftz %0
  %38: f64 = fcvt.rn %3
  %39: f64 = fcvt.rn.ftz %3
  %40: i32 = f2i.s.rn %0
  %41: i32 = f2i.u.rz %0
  %42: i64 = f2i.s.rm %0
  %43: i64 = f2i.u.rp %0
  %44: f64 = i2f.s.rn %4
  %45: f64 = i2f.u.rz %4
  %46: f64 = i2f.s.rm %5
  %47: f64 = i2f.u.rp %5
  %48: b1 = fcmp.lt %0, %1
  %49: b1 = fcmp.equ %0, %1
  %50: b1 = fcmp.ge %0, %2
  %51: b1 = fcmp.nan %0, %1
  %52: uni i64 = const 0x0
  %53: uni f64 = bitcast %52
  %54: f64 = fmul.rn.nvnan64 %0, %53
  %55: f64 = ffma.rn.nvnan64 %53, %0, %1
  %56: f64 = fadd.rm.nvnan64 %0, %53
  %57: uni i32 = const 0x0
  %58: uni f32 = bitcast %57
  %59: f32 = fcvt.rn %1
  %60: f32 = ffma.rn %58, %3, %59
  %61: f32 = ffma.rz %3, %58, %59
  %62: f32 = fmul.rn %58, %3
  %63: f32 = fmul.rm %3, %58
  %64: f32 = fadd.rm %3, %58
  %65: f32 = fsub.rn %58, %3
  %66: uni i32 = const 0x3f800000
  %67: uni f32 = bitcast %66
  %68: f32 = ffma.rn %67, %3, %59
  %69: f32 = fmul.rp %3, %67
  %70: f32 = ffma.rm.keepnan %58, %3, %59
  %71: f32 = ffma.rn %3, %59, %58
  %72: b1 = fcmp.gt %60, %58
  %73: b1 = fcmp.neu %3, %58
  %74: b1 = fcmp.geu %58, %60
  %75: uni i32 = const 0x80000000
  %76: uni f32 = bitcast %75
  %77: f32 = fldexp.rn.keepnan %76, %5
  %78: f32 = fmul.rn %76, %3
  %79: f32 = ffma.rn %3, %76, %59
  ret %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %54, %55, %56, %60, %61, %62, %63, %64, %65, %68, %69, %70, %71, %72, %73, %74, %77, %78, %79
}",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let k = emit(&f).unwrap_or_else(|e| panic!("{e}"));
    // 64 waves, the interpreter's most.
    let n = k.workgroup_size as usize * 64;
    let mut seed = 0x3c6e_f372_fe94_f82bu64;
    let mut rows: Vec<Vec<u64>> = (0..6).map(|_| Vec::with_capacity(n)).collect();
    for lane in 0..n {
        let a = hard_f64(&mut seed);
        let mut b = hard_f64(&mut seed);
        let x = rng(&mut seed);
        // A third of the products land at the overflow or underflow threshold: b's exponent
        // from a's, so the sum of the two is near 2046 + 1023 or 1 - 52 + 1023.
        let ea = (a >> 52) & 0x7ff;
        if x.is_multiple_of(3) && ea != 0 && ea != 0x7ff {
            let target = [0x7ff + 0x3ff, 0x3ff + 1, 0x3ff - 52, 0x3ff - 1][(x >> 8) as usize % 4];
            let eb = (target as i64 - ea as i64 + ((x >> 16) % 5) as i64 - 2).clamp(1, 0x7fe) as u64;
            b = (b & !(0x7ff << 52)) | (eb << 52);
        }
        let p = f64::from_bits(a) * f64::from_bits(b);
        // Every fourth lane an addend that cancels the product's rounded value, else hard.
        let c = if lane % 4 == 1 { (-p).to_bits() } else { hard_f64(&mut seed) };
        let narrow = special_bits(&mut seed, 32, 8);
        let int = match (x >> 24) % 4 {
            0 => rng(&mut seed),
            1 => rng(&mut seed) >> ((x >> 32) % 64),
            2 => (1u64 << ((x >> 32) % 64)).wrapping_add((x >> 40) % 3).wrapping_sub(1),
            _ => (rng(&mut seed) >> ((x >> 32) % 64)).wrapping_neg(),
        };
        for (row, v) in rows.iter_mut().zip([a, b, c, narrow, int, int & 0xffff_ffff]) {
            row.push(v);
        }
    }
    // The division of issue 29's fp64_arith: the high words of its quotient check.
    rows[0][0] = 0xc371_03e6_2a6b_1940;
    rows[1][0] = 0x7fda_026a_f9e7_8e83;
    rows[3][1] = 0x7fda_026a;
    outputs_equal(&vk, &f, &k, &rows, || "f64 ops".into());
}

/// One lane's rows 0 to 13 of the sampling kernels (the same draws from `seed`, in the same
/// order, for the plain and the cube sampling tests): the T# `t` (rows 0 to 3), a random S#
/// without a border-colour table (those trap; rows 4, 5), a random word of three 6-bit fields
/// (row 6), an f32 of magnitude up to 1.5 (row 7) and six f32 operands, a quarter of them
/// special values (rows 8 to 13).
fn push_sampling_rows(seed: &mut u64, rows: &mut [Vec<u64>], t: [u64; 4]) {
    for (p, w) in t.into_iter().enumerate() {
        rows[p].push(w);
    }
    let mut s = sampler_desc(seed);
    if s[1] >> 62 == 3 {
        s[1] &= !(1 << 62);
    }
    rows[4].push(s[0]);
    rows[5].push(s[1]);
    rows[6].push(rng(seed) & 0x3f_3f3f);
    rows[7].push(ray_f32(seed, 1.5) as u64);
    for r in rows.iter_mut().take(14).skip(8) {
        let x = rng(seed);
        r.push(if x.is_multiple_of(4) { special_bits(seed, 32, 8) } else { ray_f32(seed, 0.5 * (x >> 8 & 7) as f32) as u64 });
    }
}

/// Cube sampling in both forms (`ops::sample`: one face as a 2D array slice): the face form
/// (`img.*.cube`: face coordinates around [1, 2], face ids and cube-array slices 8 × layer +
/// face, fractions and special values) with explicit, zero and derivative LODs, offsets,
/// compares and clamps, gather, and in a wave-model kernel implicit LODs and get-LOD; the
/// direction form (`img.*.cubedir`: directions with ties, zeros and special components) with
/// explicit and zero LODs and gather; on random linear descriptors of 6 to 12 slices, random
/// samplers and surface bytes: every lane equals the interpreter.
#[test]
fn cube_sampling_equals_the_interpreter() {
    use isabridge_ir::ops::image::{Format, ImageDim, ImageKind, ImageOp, LodMode};
    let vk = open();
    let op = |kind, dim, chan: u8, lod| ImageOp { kind, dim, chan, comp: 0, lod, mip: false, clamp: false, compare: false, offset: false, unorm: false, d16: false };
    let (cube, dir) = (ImageDim::Cube, ImageDim::CubeDir);
    let lanes = [
        op(ImageKind::Sample, cube, 0, LodMode::Lod),
        ImageOp { offset: true, compare: true, ..op(ImageKind::Sample, cube, 1, LodMode::Zero) },
        ImageOp { clamp: true, ..op(ImageKind::Sample, cube, 2, LodMode::Grad) },
        ImageOp { comp: 1, ..op(ImageKind::Gather, cube, 3, LodMode::Zero) },
        op(ImageKind::Sample, dir, 3, LodMode::Lod),
        ImageOp { offset: true, d16: true, ..op(ImageKind::Sample, dir, 0, LodMode::Zero) },
        ImageOp { compare: true, ..op(ImageKind::Sample, dir, 1, LodMode::Lod) },
        ImageOp { comp: 2, ..op(ImageKind::Gather, dir, 1, LodMode::Lod) },
    ];
    let quad = [
        op(ImageKind::Sample, cube, 0, LodMode::Implicit),
        ImageOp { clamp: true, ..op(ImageKind::Sample, cube, 3, LodMode::Bias) },
        op(ImageKind::GetLod, cube, 0, LodMode::Implicit),
        op(ImageKind::GetLod, cube, 1, LodMode::Implicit),
    ];
    let floats: Vec<u32> = (0..512).filter(|&n| Format::from_number(n).is_some_and(|f| !f.is_int())).collect();
    let all: Vec<u32> = (0..512).filter(|&n| Format::from_number(n).is_some()).collect();
    let n = 64usize;
    let mut seed = 0xc0be_5a3b_0029_0006u64;
    let mut kernels = Vec::new();
    for (name, wave, ops) in [("cubes", false, &lanes[..]), ("cubes_wave", true, &quad[..])] {
        for (i, chunk) in ops.chunks(2).enumerate() {
            kernels.push((format!("{name}_{i}"), wave, chunk.to_vec()));
        }
    }
    for (name, wave, ops) in kernels {
        let name = name.as_str();
        let text = sample_kernel(name, wave, &ops);
        let f = parse(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        let started = std::time::Instant::now();
        let k = emit(&f).unwrap_or_else(|e| panic!("{name}: {e}"));
        let formats = if ops.iter().any(|o| o.kind == ImageKind::Sample) { &floats[..] } else { &all[..] };
        let size = (n as u64 + 2) * SURFACE_BYTES;
        let mem = vk.memory(isabridge_targets::spirv::MemoryModel::DeviceAddress, &[&vec![0u8; size as usize]]).unwrap();
        let addr = mem.address(0).unwrap();
        let first = addr.next_multiple_of(256);
        let bytes: Vec<u8> = (0..size).map(|_| rng(&mut seed) as u8).collect();
        let mut rows: Vec<Vec<u64>> = vec![Vec::new(); 19];
        for lane in 0..n {
            let mut t = surface_desc(&mut seed, first + lane as u64 * SURFACE_BYTES, formats);
            // At most 4 texels a row, and 6, 7 or 12 slices (the last slice field).
            t[1] &= !1;
            t[2] = t[2] & !0x1fff | [5, 6, 11][(rng(&mut seed) % 3) as usize];
            push_sampling_rows(&mut seed, &mut rows, t);
            let x = rng(&mut seed);
            let uniform = |seed: &mut u64, lo: f64, hi: f64| ((lo + (rng(seed) >> 11) as f64 / (1u64 << 53) as f64 * (hi - lo)) as f32).to_bits() as u64;
            let c: [u64; 3] = if ops[0].dim == cube {
                // Face coordinates around [1, 2]; the face: an integer 0..16 or a fraction.
                let face = if x.is_multiple_of(3) { uniform(&mut seed, -1.0, 16.0) } else { (((x >> 8) % 16) as f32).to_bits() as u64 };
                [uniform(&mut seed, 0.75, 2.25), uniform(&mut seed, 0.75, 2.25), face]
            } else {
                let mut d = [0; 3].map(|_| uniform(&mut seed, -2.0, 2.0));
                match x % 8 {
                    // Ties of the major magnitude, and zero components.
                    0 => d[1] = d[0] ^ (x >> 8 & 1) << 31,
                    1 => d[2] = d[0] ^ (x >> 8 & 1) << 31,
                    2 => d[(x >> 8) as usize % 3] = (x >> 10 & 1) << 31,
                    3 => d[(x >> 8) as usize % 3] = special_bits(&mut seed, 32, 8),
                    4 => d = [0, 1 << 31, 0],
                    _ => {}
                }
                d
            };
            for (k, v) in c.into_iter().enumerate() {
                rows[14 + k].push(v);
            }
            for r in rows.iter_mut().skip(17) {
                let x = rng(&mut seed);
                r.push(if x.is_multiple_of(8) { special_bits(&mut seed, 32, 8) } else { ray_f32(&mut seed, 5.0) as u64 });
            }
        }
        image_run_equal(&vk, &f, &k, &rows, (&mem, addr), &bytes, name);
        println!("{name}: {} words, {:.1} s", k.words.len(), started.elapsed().as_secs_f64());
    }
}
