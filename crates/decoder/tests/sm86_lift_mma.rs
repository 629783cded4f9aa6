//! sm_86 warp matrix instructions from the corpus (fixtures/nvidia/ref/tensor.sm86.jsonl)
//! lifted and run on one wave: the fragments are built element by element from the PTX ISA's
//! fragment tables (9.7.14.5.x "Matrix Fragments for mma.mMnNkK", ldmatrix, movmatrix) and the
//! results compared with D = A * B + C computed here.

mod common;

use isabridge_decoder::lift::sm86::{lift, Options, SystemValue};
use isabridge_decoder::Isa;
use isabridge_ir::interp::{run, Config, Input, Memory};

/// The bytes of the first sm_86 corpus instruction whose mnemonic is `mnem`, then EXIT.
fn program(mnem: &str) -> Vec<u8> {
    let (mut code, exit) = common::first_with_exit("sm86", mnem);
    code.extend(exit);
    code
}

/// Run `code` on one wave with per-lane register inputs; the outputs per lane.
fn run_wave(code: &[u8], ins: &[(u16, Vec<u32>)], outs: &[u16], shared: Vec<u8>) -> Vec<Vec<u64>> {
    let opts = Options { reg_inputs: ins.iter().map(|x| x.0).collect(), reg_outputs: outs.to_vec(), ..Options::default() };
    let f = lift(Isa::Sm86, code, 0, &opts).expect("lifts");
    isabridge_ir::validate::validate(&f).expect("valid IR");
    let mut inputs: Vec<Input> = SystemValue::ALL.iter().map(|_| Input::Uniform(0)).collect();
    for (_, v) in ins {
        inputs.push(Input::PerLane(v.iter().map(|x| *x as u64).collect()));
    }
    let mem = Memory { shared, ..Memory::default() };
    run(&f, &Config::default(), &inputs, mem).expect("runs").outputs
}

/// A small deterministic generator.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
}

/// An integer mma case: M x K times K x N (N = 8) with `bits`-bit elements.
struct Case {
    mnem: &'static str,
    m: usize,
    k: usize,
    bits: u32,
    signed: (bool, bool),
    /// Element combination for 1-bit elements: Some(xor).
    b1: Option<bool>,
    sat: bool,
    /// Registers: D, A, B, C.
    regs: (u16, u16, u16, u16),
}

/// Register index and bit position of A's element (row, col) for lane l, by the PTX tables:
/// returns (lane, register, element index within the register).
fn a_place(c: &Case, row: usize, col: usize) -> (usize, usize, usize) {
    let e = 32 / c.bits as usize; // elements per register
    let g = row % 8;
    let t = (col % (4 * e)) / e;
    let i_in = col % e;
    let upper = row >= 8; // groupID + 8
    let kb = col / (4 * e);
    // Element index i over the whole fragment: i = (kb * halves + upper) * e + i_in, the
    // tables' "row = groupID for ai where 0 <= i < e || 2e <= i < 3e" ordering.
    let halves = c.m / 8;
    let reg = kb * halves + upper as usize;
    (4 * g + t, reg, i_in)
}

fn b_place(c: &Case, row: usize, col: usize) -> (usize, usize, usize) {
    let e = 32 / c.bits as usize;
    let kb = row / (4 * e);
    let t = (row % (4 * e)) / e;
    (4 * col + t, kb, row % e)
}

fn c_place(row: usize, col: usize) -> (usize, usize) {
    let g = row % 8;
    let t = col / 2;
    (4 * g + t, 2 * (row / 8) + col % 2)
}

fn elem(c: &Case, signed: bool, raw: u32) -> i64 {
    let mask = if c.bits == 32 { u32::MAX } else { (1u32 << c.bits) - 1 };
    let v = raw & mask;
    if signed && v >> (c.bits - 1) & 1 == 1 {
        v as i64 - (1i64 << c.bits)
    } else {
        v as i64
    }
}

fn check(c: &Case, seed: u64, c_big: bool) {
    let mut rng = Gen(seed);
    let n = 8;
    let a: Vec<Vec<u32>> = (0..c.m).map(|_| (0..c.k).map(|_| rng.next() & ((1u64 << c.bits) - 1) as u32).collect()).collect();
    let b: Vec<Vec<u32>> = (0..c.k).map(|_| (0..n).map(|_| rng.next() & ((1u64 << c.bits) - 1) as u32).collect()).collect();
    let cm: Vec<Vec<i32>> = (0..c.m)
        .map(|_| (0..n).map(|_| if c_big { (0x7fff_0000u32 | rng.next() & 0xffff) as i32 * if rng.next() & 1 == 1 { -1 } else { 1 } } else { rng.next() as i32 }).collect())
        .collect();
    let a_regs = (c.m / 8) * (c.k / (128 / c.bits as usize));
    let b_regs = c.k / (128 / c.bits as usize);
    let c_regs = 2 * (c.m / 8);
    let mut av = vec![vec![0u32; 32]; a_regs];
    let mut bv = vec![vec![0u32; 32]; b_regs];
    let mut cv = vec![vec![0u32; 32]; c_regs];
    for (r, row) in a.iter().enumerate() {
        for (k, x) in row.iter().enumerate() {
            let (l, reg, i) = a_place(c, r, k);
            av[reg][l] |= x << (i as u32 * c.bits);
        }
    }
    for (k, row) in b.iter().enumerate() {
        for (col, x) in row.iter().enumerate() {
            let (l, reg, i) = b_place(c, k, col);
            bv[reg][l] |= x << (i as u32 * c.bits);
        }
    }
    for (r, row) in cm.iter().enumerate() {
        for (col, x) in row.iter().enumerate() {
            let (l, reg) = c_place(r, col);
            cv[reg][l] = *x as u32;
        }
    }
    let (d0, a0, b0, c0) = c.regs;
    let mut ins: Vec<(u16, Vec<u32>)> = Vec::new();
    ins.extend(av.iter().enumerate().map(|(i, v)| (a0 + i as u16, v.clone())));
    ins.extend(bv.iter().enumerate().map(|(i, v)| (b0 + i as u16, v.clone())));
    ins.extend(cv.iter().enumerate().map(|(i, v)| (c0 + i as u16, v.clone())));
    let outs: Vec<u16> = (0..c_regs as u16).map(|i| d0 + i).collect();
    let got = run_wave(&program(c.mnem), &ins, &outs, vec![]);
    for r in 0..c.m {
        for col in 0..n {
            let mut sum: i64 = cm[r][col] as i64;
            for k in 0..c.k {
                sum += match c.b1 {
                    Some(xor) => {
                        let (x, y) = (a[r][k] & 1, b[k][col] & 1);
                        (if xor { x ^ y } else { x & y }) as i64
                    }
                    None => elem(c, c.signed.0, a[r][k]) * elem(c, c.signed.1, b[k][col]),
                };
            }
            let want = if c.sat { sum.clamp(i32::MIN as i64, i32::MAX as i64) as i32 } else { sum as i32 };
            let (l, reg) = c_place(r, col);
            assert_eq!(got[l][reg] as u32, want as u32, "{}: D[{r}][{col}] (lane {l}, register {reg})", c.mnem);
        }
    }
}

#[test]
fn integer_and_single_bit_mma_equal_a_times_b_plus_c() {
    let cases = [
        Case { mnem: "IMMA.16832.S8.S8", m: 16, k: 32, bits: 8, signed: (true, true), b1: None, sat: false, regs: (16, 4, 2, 12) },
        Case { mnem: "IMMA.16832.U8.S8.SAT", m: 16, k: 32, bits: 8, signed: (false, true), b1: None, sat: true, regs: (20, 4, 2, 12) },
        Case { mnem: "IMMA.8816.S8.S8", m: 8, k: 16, bits: 8, signed: (true, true), b1: None, sat: false, regs: (12, 4, 2, 12) },
        Case { mnem: "IMMA.16864.S4.S4", m: 16, k: 64, bits: 4, signed: (true, true), b1: None, sat: false, regs: (24, 4, 2, 12) },
        Case { mnem: "BMMA.168256.XOR.POPC", m: 16, k: 256, bits: 1, signed: (false, false), b1: Some(true), sat: false, regs: (28, 4, 2, 12) },
        Case { mnem: "BMMA.168256.AND.POPC", m: 16, k: 256, bits: 1, signed: (false, false), b1: Some(false), sat: false, regs: (32, 4, 2, 12) },
    ];
    for (i, c) in cases.iter().enumerate() {
        check(c, 1 + i as u64, false);
    }
    // Accumulators near the s32 limits: .SAT clamps, the others wrap.
    check(&cases[0], 99, true);
    check(&cases[1], 99, true);
}

/// The 16-bit element (matrix i, row r, column c) the ldmatrix test stores.
fn mat_elem(i: usize, r: usize, c: usize) -> u32 {
    0x8000 | (i as u32) << 12 | (r as u32) << 8 | (c as u32 * 3)
}

/// Shared memory with four 8x8 matrices of 16-bit elements: matrix i row r at 256i + 32r.
fn matrices_in_shared() -> (Vec<u8>, Vec<u32>) {
    let mut mem = vec![0u8; 1024];
    for i in 0..4 {
        for r in 0..8 {
            for c in 0..8 {
                let a = 256 * i + 32 * r + 2 * c;
                mem[a..a + 2].copy_from_slice(&(mat_elem(i, r, c) as u16).to_le_bytes());
            }
        }
    }
    // Lane 8i + r gives the address of matrix i's row r.
    let addrs = (0..32).map(|l| (256 * (l / 8) + 32 * (l % 8)) as u32).collect();
    (mem, addrs)
}

#[test]
fn ldsm_loads_each_lanes_fragment_of_the_matrices() {
    let (mem, addrs) = matrices_in_shared();
    // LDSM.16.M88.4 R4, [R21]: ldmatrix .x4: lane l, register i: row l/4, columns 2(l%4) and +1.
    let got = run_wave(&program("LDSM.16.M88.4"), &[(21, addrs.clone())], &[4, 5, 6, 7], mem.clone());
    for (l, regs) in got.iter().enumerate() {
        for (i, v) in regs.iter().enumerate() {
            let want = mat_elem(i, l / 4, 2 * (l % 4)) | mat_elem(i, l / 4, 2 * (l % 4) + 1) << 16;
            assert_eq!(*v as u32, want, "lane {l} matrix {i}");
        }
    }
    // LDSM.16.MT88 R12, [R21]: ldmatrix .x1 .trans: lane l: rows 2(l%4) and +1, column l/4.
    let got = run_wave(&program("LDSM.16.MT88"), &[(21, addrs)], &[12], mem);
    for (l, regs) in got.iter().enumerate() {
        let want = mat_elem(0, 2 * (l % 4), l / 4) | mat_elem(0, 2 * (l % 4) + 1, l / 4) << 16;
        assert_eq!(regs[0] as u32, want, "lane {l}");
    }
}

#[test]
fn movm_transposes_the_warps_8x8_matrix() {
    // MOVM.16.MT88 R3, R4: lane l holds row l/4, columns 2(l%4) and +1; afterwards the same
    // places of the transpose.
    let a: Vec<u32> = (0..32).map(|l| mat_elem(1, l / 4, 2 * (l % 4)) | mat_elem(1, l / 4, 2 * (l % 4) + 1) << 16).collect();
    let got = run_wave(&program("MOVM.16.MT88"), &[(4, a)], &[3], vec![]);
    for (l, regs) in got.iter().enumerate() {
        let want = mat_elem(1, 2 * (l % 4), l / 4) | mat_elem(1, 2 * (l % 4) + 1, l / 4) << 16;
        assert_eq!(regs[0] as u32, want, "lane {l}");
    }
}
