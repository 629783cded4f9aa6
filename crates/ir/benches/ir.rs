//! Benchmarks: interpreter throughput (lane-ops/s) and construction + the whole pass pipeline on
//! programs of 1k, 10k and 100k instructions.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use isabridge_ir::interp::{run, Config, Input, Memory};
use isabridge_ir::ops::int::{ICmp, IntOp, Overflow, ShiftRule};
use isabridge_ir::{passes, Builder, Function, Reg, Type};

/// A loop of 16 integer ops per iteration, `iters` iterations, per lane.
fn loop_kernel(iters: u64) -> Function {
    let mut f = Function::new("bench_loop");
    let (b0, b1, b2) = (f.add_block(), f.add_block(), f.add_block());
    let mut b = Builder::new(&mut f, b0);
    let x0 = b.param(0, Type::I32);
    b.jump(b1);
    let mut b = Builder::new(&mut f, b1);
    let i = b.ins(isabridge_ir::Op::Phi(vec![b0, b1]), &[], Some(Type::I32));
    let x = b.ins(isabridge_ir::Op::Phi(vec![b0, b1]), &[], Some(Type::I32));
    let k = b.konst(Type::I32, 0x9e37_79b9);
    let one = b.konst(Type::I32, 1);
    let five = b.konst(Type::I32, 5);
    let mut v = x;
    for j in 0..12 {
        let op = match j % 4 {
            0 => IntOp::MulLo,
            1 => IntOp::Xor,
            2 => IntOp::Add(Overflow::Wrap),
            _ => IntOp::Shr(false, ShiftRule::Wrap),
        };
        let rhs = if j % 4 == 3 { five } else { k };
        v = b.int(op, Type::I32, &[v, rhs]);
    }
    let inext = b.int(IntOp::Add(Overflow::Wrap), Type::I32, &[i, one]);
    let n = b.konst(Type::I32, iters);
    let c = b.int(IntOp::Cmp(ICmp::Ult), Type::I32, &[inext, n]);
    b.branch(c, b1, b2);
    let zero = f.blocks[b0].insts[0];
    let z = f.create(isabridge_ir::Op::Const(0), vec![], Some(Type::I32), true);
    f.blocks[b0].insts.insert(0, z);
    let _ = zero;
    f.insts[i].args = vec![z, inext];
    f.insts[x].args = vec![x0, v];
    let mut b = Builder::new(&mut f, b2);
    b.ret(&[v]);
    f
}

/// A pre-SSA program of about `n` instructions: chained diamonds that read and write 8 registers.
fn big_program(n: usize) -> Function {
    let mut f = Function::new("big");
    f.regs = vec![isabridge_ir::ir::RegInfo::lane(Type::I32); 8];
    let per = 24usize;
    let diamonds = n.div_ceil(per * 3).max(1);
    let entry = f.add_block();
    let mut b = Builder::new(&mut f, entry);
    let p = b.param(0, Type::I32);
    for r in 0..8 {
        b.write_reg(Reg(r), p);
    }
    let mut cur = entry;
    let mut seed = 1u32;
    for _ in 0..diamonds {
        let (t, e, j) = (f.add_block(), f.add_block(), f.add_block());
        let mut b = Builder::new(&mut f, cur);
        let a = b.read_reg(Reg(0));
        let k = b.konst(Type::I32, 7);
        let c = b.int(IntOp::Cmp(ICmp::Ult), Type::I32, &[a, k]);
        b.branch(c, t, e);
        for blk in [t, e, j] {
            let mut b = Builder::new(&mut f, blk);
            let mut vals = Vec::new();
            for q in 0..per / 3 {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                let r = Reg(seed % 8);
                let x = b.read_reg(r);
                let y = if q % 2 == 0 { b.konst(Type::I32, seed as u64 & 0xff) } else { vals.last().copied().unwrap_or(x) };
                let z = b.int(IntOp::Add(Overflow::Wrap), Type::I32, &[x, y]);
                b.write_reg(Reg((seed >> 8) % 8), z);
                vals.push(z);
            }
            if blk != j {
                b.jump(j);
            }
        }
        cur = j;
    }
    let mut b = Builder::new(&mut f, cur);
    let outs: Vec<_> = (0..8).map(|r| b.read_reg(Reg(r))).collect();
    b.ret(&outs);
    f
}

fn interpreter(c: &mut Criterion) {
    let f = loop_kernel(64);
    let cfg = Config { wave_size: 64, waves: 8, ..Config::default() };
    let inputs = [Input::PerLane((0..512).collect())];
    let lane_ops = run(&f, &cfg, &inputs, Memory::default()).expect("runs").lane_ops;
    let mut g = c.benchmark_group("interpreter");
    g.throughput(Throughput::Elements(lane_ops));
    g.bench_function("int_loop_8x64_lanes", |b| b.iter(|| run(&f, &cfg, &inputs, Memory::default()).expect("runs")));
    g.finish();
}

fn pipeline(c: &mut Criterion) {
    let mut g = c.benchmark_group("build_and_pipeline");
    g.sample_size(10);
    for n in [1_000usize, 10_000, 100_000] {
        let count = big_program(n).inst_count() as u64;
        g.throughput(Throughput::Elements(count));
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            b.iter(|| {
                let mut f = big_program(n);
                passes::run_pipeline(&mut f).expect("valid");
                f
            })
        });
    }
    g.finish();
}

criterion_group!(benches, interpreter, pipeline);
criterion_main!(benches);
