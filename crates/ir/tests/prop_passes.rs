//! Property test: on random programs with machine registers, branches and bounded loops, every
//! pass of the pipeline leaves the interpreter's results unchanged and the IR valid.

use isabridge_ir::interp::{run, Config, Input, Memory};
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::float::{FloatKind, FloatOp};
use isabridge_ir::ops::int::{ICmp, IntOp, Overflow, ShiftRule};
use isabridge_ir::ops::lane::{LaneOp, ShflMode};
use isabridge_ir::soft::{FloatMode, Round};
use isabridge_ir::validate::validate;
use isabridge_ir::{passes, Builder, Function, Reg, Type, Value};
use proptest::prelude::*;

struct Gen(u64);
impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const REGS: u32 = 4;
const COUNTER: Reg = Reg(REGS);

fn pick(g: &mut Gen, pool: &[Value]) -> Value {
    pool[g.below(pool.len() as u64) as usize]
}

fn body(g: &mut Gen, b: &mut Builder, pool: &mut Vec<Value>) {
    for r in 0..REGS {
        if g.below(2) == 0 {
            let v = b.read_reg(Reg(r));
            pool.push(v);
        }
    }
    if pool.is_empty() {
        let v = b.read_reg(Reg(0));
        pool.push(v);
    }
    let i32t = Type::I32;
    for _ in 0..1 + g.below(7) {
        let (x, y, z) = (pick(g, pool), pick(g, pool), pick(g, pool));
        let v = match g.below(9) {
            0 => b.konst(i32t, g.next() & 0xffff_ffff),
            1..=3 => {
                let ops = [
                    IntOp::Add(Overflow::Wrap),
                    IntOp::Sub(Overflow::Wrap),
                    IntOp::MulLo,
                    IntOp::Xor,
                    IntOp::And,
                    IntOp::Or,
                    IntOp::Shl(ShiftRule::Wrap),
                    IntOp::Shr(false, ShiftRule::Clamp),
                    IntOp::Shr(true, ShiftRule::Clamp),
                    IntOp::Min(true),
                    IntOp::Max(false),
                    IntOp::MulHi(true),
                    IntOp::Add(Overflow::SatS),
                ];
                let op = ops[g.below(ops.len() as u64) as usize];
                b.int(op, i32t, &[x, y])
            }
            4 | 5 => {
                let kinds = [FloatKind::Add, FloatKind::Mul, FloatKind::Fma, FloatKind::Div, FloatKind::Sqrt];
                let kind = kinds[g.below(kinds.len() as u64) as usize];
                let mut op = FloatOp::nv(kind, Round::ALL[g.below(4) as usize]);
                op.mode.ftz_in = g.below(2) == 0;
                op.mode.ftz_out = op.mode.ftz_in;
                op.mode.sat = g.below(4) == 0;
                let args: Vec<Value> = [x, y, z][..kind.arity()].iter().map(|a| b.bitcast(Type::F32, *a)).collect();
                let r = b.float(op, Type::F32, &args);
                b.bitcast(i32t, r)
            }
            6 => {
                let c = b.int(IntOp::Cmp(ICmp::Slt), i32t, &[x, y]);
                b.select(i32t, c, y, z)
            }
            7 => {
                let f = b.bitcast(Type::F32, x);
                b.conv(ConvOp::FToI { mode: FloatMode::nv(Round::ALL[g.below(4) as usize]), signed: true }, i32t, f)
            }
            _ => {
                let r = Reg(g.below(REGS as u64) as u32);
                b.write_reg(r, x);
                continue;
            }
        };
        pool.push(v);
    }
    for r in 0..REGS {
        if g.below(3) == 0 {
            let v = pick(g, pool);
            b.write_reg(Reg(r), v);
        }
    }
}

fn program(seed: u64) -> Function {
    let mut g = Gen(seed | 1);
    let mut f = Function::new("rand");
    f.regs = vec![isabridge_ir::ir::RegInfo::lane(Type::I32); REGS as usize + 1];
    let nblocks = 2 + g.below(6) as usize;
    let blocks: Vec<_> = (0..nblocks).map(|_| f.add_block()).collect();
    for (i, &blk) in blocks.iter().enumerate() {
        let mut b = Builder::new(&mut f, blk);
        let mut pool = Vec::new();
        if i == 0 {
            let p0 = b.param(0, Type::I32);
            let p1 = b.param(1, Type::I32);
            let lane = b.lane(LaneOp::LaneId, Type::I32, &[]);
            let k = b.konst(Type::I32, g.below(32));
            let c = b.konst(Type::I32, 0x1f);
            let sh = b.lane(LaneOp::Shuffle(ShflMode::Bfly, false), Type::I32, &[p0, k, c]);
            let n = b.konst(Type::I32, 1 + g.below(3));
            b.write_reg(COUNTER, n);
            b.write_reg(Reg(0), p0);
            b.write_reg(Reg(1), p1);
            b.write_reg(Reg(2), lane);
            b.write_reg(Reg(3), sh);
            pool.extend([p0, p1, lane, sh]);
        }
        body(&mut g, &mut b, &mut pool);
        if i + 1 == nblocks {
            let outs: Vec<Value> = (0..REGS).map(|r| b.read_reg(Reg(r))).collect();
            b.ret(&outs);
            continue;
        }
        match g.below(4) {
            0 => b.jump(blocks[i + 1]),
            1 | 2 => {
                let (x, y) = (pick(&mut g, &pool), pick(&mut g, &pool));
                let c = b.int(IntOp::Cmp(ICmp::Ult), Type::I32, &[x, y]);
                let t = blocks[i + 1 + g.below((nblocks - i - 1) as u64) as usize];
                b.branch(c, t, blocks[i + 1]);
            }
            _ if i == 0 => b.jump(blocks[1]),
            _ => {
                // Bounded back edge: taken while the shared counter is positive.
                let cnt = b.read_reg(COUNTER);
                let zero = b.konst(Type::I32, 0);
                let one = b.konst(Type::I32, 1);
                let pos = b.int(IntOp::Cmp(ICmp::Ugt), Type::I32, &[cnt, zero]);
                let dec = b.int(IntOp::Sub(Overflow::Wrap), Type::I32, &[cnt, one]);
                let next = b.select(Type::I32, pos, dec, cnt);
                b.write_reg(COUNTER, next);
                // Never back to the entry, which initializes the counter.
                let h = blocks[1 + g.below(i as u64) as usize];
                b.branch(pos, h, blocks[i + 1]);
            }
        }
    }
    f
}

fn outputs(f: &Function, inputs: &[Input]) -> Vec<Vec<u64>> {
    let cfg = Config { wave_size: 32, waves: 2, max_steps: 100_000, ..Config::default() };
    run(f, &cfg, inputs, Memory::default()).expect("runs").outputs
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]
    #[test]
    fn passes_preserve_results(seed in any::<u64>(), a in proptest::collection::vec(any::<u32>(), 64), b in proptest::collection::vec(any::<u32>(), 64)) {
        let mut f = program(seed);
        prop_assert!(validate(&f).is_ok(), "{:?}", validate(&f));
        let inputs = [
            Input::PerLane(a.iter().map(|x| *x as u64).collect()),
            Input::PerLane(b.iter().map(|x| *x as u64).collect()),
        ];
        let want = outputs(&f, &inputs);
        for (name, pass) in passes::pipeline() {
            pass(&mut f);
            prop_assert!(validate(&f).is_ok(), "after {}: {:?}\n{}", name, validate(&f), isabridge_ir::text::print(&f));
            prop_assert_eq!(&outputs(&f, &inputs), &want, "after {}", name);
        }
        // A second run of the pipeline changes nothing observable either.
        passes::run_pipeline(&mut f).expect("valid");
        prop_assert_eq!(&outputs(&f, &inputs), &want);
    }
}

/// A fixed set of seeds (set PROP_SEEDS for more, PROP_PRINT to print each program).
#[test]
fn fixed_seeds_preserve_results() {
    let n: u64 = std::env::var("PROP_SEEDS").ok().and_then(|v| v.parse().ok()).unwrap_or(40);
    let inputs = [Input::PerLane((0..64).collect()), Input::PerLane((0..64).map(|x| x * 977).collect())];
    for seed in 0..n {
        let mut f = program(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        if std::env::var("PROP_PRINT").is_ok() {
            eprintln!("{}", isabridge_ir::text::print(&f));
        }
        let want = outputs(&f, &inputs);
        for (name, pass) in passes::pipeline() {
            pass(&mut f);
            assert!(validate(&f).is_ok());
            assert_eq!(outputs(&f, &inputs), want, "{name}");
        }
    }
}
