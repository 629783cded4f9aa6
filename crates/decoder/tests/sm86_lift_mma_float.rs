//! sm_86 floating-point matrix instructions from the corpus (fixtures/nvidia/ref/*.sm86.jsonl),
//! lifted and run on one wave per captured case of fixtures/hw/mma/rows.sm90.bin.gz (what
//! `mma.sync.aligned` gave on an sm_90 GPU (an H100) for those A, B, C; fixtures/hw/mma/mma_capture.cu): every
//! D element must equal the captured bits.

mod common;

use isabridge_decoder::lift::sm86::{lift, Options, SystemValue};
use isabridge_decoder::Isa;
use isabridge_ir::interp::{run, Config, Input, Memory};
use std::io::Read;

/// The bytes of the first sm_86 corpus instruction whose mnemonic is `mnem`, and of EXIT.
fn corpus_inst(mnem: &str) -> (Vec<u8>, Vec<u8>) {
    common::first_with_exit("sm86", mnem)
}

/// One captured kind (the `kind` ids of mma_capture.cu).
struct Kind {
    id: u32,
    mnem: &'static str,
    /// Registers D, A, B, C of the instruction the test runs.
    regs: (u16, u16, u16, u16),
}

const KINDS: [Kind; 7] = [
    // The corpus instruction reads C from A's registers (R4); the test gives it R8 (byte 8 of
    // the encoding is the C register), so C can differ from A.
    Kind { id: 0, mnem: "HMMA.16816.F16", regs: (32, 4, 2, 8) },
    Kind { id: 1, mnem: "HMMA.16816.F32", regs: (12, 4, 2, 8) },
    Kind { id: 2, mnem: "HMMA.16816.F32.BF16", regs: (28, 4, 2, 8) },
    Kind { id: 3, mnem: "HMMA.1684.F32.TF32", regs: (16, 4, 2, 8) },
    Kind { id: 4, mnem: "HMMA.1688.F32.TF32", regs: (24, 4, 2, 8) },
    Kind { id: 5, mnem: "HMMA.1688.F32", regs: (20, 4, 2, 8) },
    Kind { id: 6, mnem: "DMMA.884", regs: (36, 42, 44, 36) },
];

/// One captured case: A (M x K), B (K x N), C and D (M x N), element bits row-major.
struct Case {
    a: Vec<u64>,
    b: Vec<u64>,
    c: Vec<u64>,
    d: Vec<u64>,
}

struct Capture {
    m: usize,
    n: usize,
    k: usize,
    ab: usize,
    cd: usize,
    cases: Vec<Case>,
}

fn read_captures() -> Vec<(u32, Capture)> {
    let path = common::root().join("fixtures/hw/mma/rows.sm90.bin.gz");
    let mut data = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&path).unwrap()).read_to_end(&mut data).unwrap();
    let mut off = 0;
    let u32_at = |o: usize| u32::from_le_bytes(data[o..o + 4].try_into().unwrap());
    let mut out = Vec::new();
    while off < data.len() {
        let h: Vec<u32> = (0..8).map(|i| u32_at(off + 4 * i)).collect();
        off += 32;
        assert_eq!(h[0], 0x414d_4d41, "capture header");
        let (m, n, k, ab, cd) = (h[2] as usize, h[3] as usize, h[4] as usize, h[5] as usize, h[6] as usize);
        let mut mat = |count: usize, sz: usize| -> Vec<u64> {
            let v = (0..count)
                .map(|i| {
                    let s = off + i * sz;
                    data[s..s + sz].iter().rev().fold(0u64, |acc, b| acc << 8 | *b as u64)
                })
                .collect();
            off += count * sz;
            v
        };
        let mut cases = Vec::new();
        for _ in 0..h[7] {
            let a = mat(m * k, ab);
            let b = mat(k * n, ab);
            let c = mat(m * n, cd);
            let d = mat(m * n, cd);
            cases.push(Case { a, b, c, d });
        }
        out.push((h[1], Capture { m, n, k, ab, cd, cases }));
    }
    out
}

/// Per-lane register words of A, B and C.
type Fragments = (Vec<Vec<u32>>, Vec<Vec<u32>>, Vec<Vec<u32>>);

/// Per-lane 32-bit registers (A, B, C) of a case, by the PTX ISA fragment tables: with
/// g = lane / 4, t = lane % 4 and E = 4 / element bytes, A register r holds row g + 8(r % 2),
/// columns 4E(r / 2) + Et + e; B register r rows 4Er + Et + e of column g; an f32 C register r
/// row g + 8(r / 2), column 2t + r % 2; an f16 C register r row g + 8r, columns 2t, 2t + 1. For
/// f64 (m8n8k4): A[g][t], B[t][g], C[g][2t + i] in register pair i.
fn fragments(cap: &Capture, case: &Case) -> Fragments {
    let (n, k) = (cap.n, cap.k);
    if cap.ab == 8 {
        let mut a = vec![vec![0u32; 32]; 2];
        let mut b = vec![vec![0u32; 32]; 2];
        let mut c = vec![vec![0u32; 32]; 4];
        for l in 0..32 {
            let (g, t) = (l / 4, l % 4);
            let (x, y) = (case.a[g * k + t], case.b[t * n + g]);
            a[0][l] = x as u32;
            a[1][l] = (x >> 32) as u32;
            b[0][l] = y as u32;
            b[1][l] = (y >> 32) as u32;
            for i in 0..2 {
                let z = case.c[g * n + 2 * t + i];
                c[2 * i][l] = z as u32;
                c[2 * i + 1][l] = (z >> 32) as u32;
            }
        }
        return (a, b, c);
    }
    let e = 4 / cap.ab;
    let bits = 8 * cap.ab as u32;
    let a_regs = 2 * k / (4 * e);
    let b_regs = k / (4 * e);
    let c_regs = if cap.cd == 2 { 2 } else { 4 };
    let mut a = vec![vec![0u32; 32]; a_regs];
    let mut b = vec![vec![0u32; 32]; b_regs];
    let mut c = vec![vec![0u32; 32]; c_regs];
    for l in 0..32 {
        let (g, t) = (l / 4, l % 4);
        for (r, reg) in a.iter_mut().enumerate() {
            for i in 0..e {
                let (row, col) = (g + 8 * (r % 2), 4 * e * (r / 2) + e * t + i);
                reg[l] |= (case.a[row * k + col] as u32) << (bits * i as u32);
            }
        }
        for (r, reg) in b.iter_mut().enumerate() {
            for i in 0..e {
                let row = 4 * e * r + e * t + i;
                reg[l] |= (case.b[row * n + g] as u32) << (bits * i as u32);
            }
        }
        for (r, reg) in c.iter_mut().enumerate() {
            reg[l] = if cap.cd == 2 {
                let row = g + 8 * r;
                case.c[row * n + 2 * t] as u32 | (case.c[row * n + 2 * t + 1] as u32) << 16
            } else {
                case.c[(g + 8 * (r / 2)) * n + 2 * t + r % 2] as u32
            };
        }
    }
    (a, b, c)
}

/// D[row][col] from the per-lane output registers (the inverse of the C layout).
fn d_elem(cap: &Capture, out: &[Vec<u64>], row: usize, col: usize) -> u64 {
    if cap.cd == 8 {
        let (l, i) = (4 * row + col / 2, col % 2);
        return out[l][2 * i] & 0xffff_ffff | (out[l][2 * i + 1] & 0xffff_ffff) << 32;
    }
    let (g, t) = (row % 8, col / 2);
    let l = 4 * g + t;
    if cap.cd == 2 {
        (out[l][row / 8] >> (16 * (col % 2))) & 0xffff
    } else {
        out[l][2 * (row / 8) + col % 2] & 0xffff_ffff
    }
}

#[test]
fn float_mma_reproduces_every_captured_element() {
    let caps = read_captures();
    assert_eq!(caps.len(), KINDS.len(), "one capture per kind");
    for kind in &KINDS {
        let (_, cap) = caps.iter().find(|(id, _)| *id == kind.id).expect("kind captured");
        let (mut inst, exit) = corpus_inst(kind.mnem);
        inst[8] = kind.regs.3 as u8;
        let mut code = inst.clone();
        code.extend(exit);
        let (d0, a0, b0, c0) = kind.regs;
        let (na, nb, nc) = {
            let (a, b, c) = fragments(cap, &cap.cases[0]);
            (a.len() as u16, b.len() as u16, c.len() as u16)
        };
        let mut reg_inputs: Vec<u16> = (0..na).map(|i| a0 + i).collect();
        reg_inputs.extend((0..nb).map(|i| b0 + i));
        reg_inputs.extend((0..nc).map(|i| c0 + i));
        let reg_outputs: Vec<u16> = (0..nc).map(|i| d0 + i).collect();
        let opts = Options { reg_inputs, reg_outputs, ..Options::default() };
        let f = lift(Isa::Sm86, &code, 0, &opts).unwrap_or_else(|e| panic!("{}: {e}", kind.mnem));
        isabridge_ir::validate::validate(&f).expect("valid IR");
        let mut bad = Vec::new();
        let mut total = 0;
        for (ci, case) in cap.cases.iter().enumerate() {
            let (a, b, c) = fragments(cap, case);
            let mut inputs: Vec<Input> = SystemValue::ALL.iter().map(|_| Input::Uniform(0)).collect();
            for r in a.iter().chain(&b).chain(&c) {
                inputs.push(Input::PerLane(r.iter().map(|x| *x as u64).collect()));
            }
            let out = run(&f, &Config::default(), &inputs, Memory::default()).expect("runs").outputs;
            for row in 0..cap.m {
                for col in 0..cap.n {
                    total += 1;
                    let got = d_elem(cap, &out, row, col);
                    let want = case.d[row * cap.n + col];
                    if got != want {
                        bad.push(format!("case {ci} D[{row}][{col}]: got {got:#x}, hardware {want:#x}"));
                    }
                }
            }
        }
        assert!(bad.is_empty(), "{}: {} of {total} elements differ, first: {:?}", kind.mnem, bad.len(), &bad[..bad.len().min(8)]);
    }
}
