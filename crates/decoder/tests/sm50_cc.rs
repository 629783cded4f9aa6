//! The sm_50 condition-code, 64-bit, conversion and video kernels of
//! fixtures/nvidia/lift/cc.sm50.cubin (PTX from tools/sm50_cc_kernels.py, built by
//! tools/build_sm50_cc_cubin.sh with ptxas 12.9), each lifted whole by the sm_50 lifter and run
//! by the interpreter over 1024 rows; every output word must equal what the PTX ISA defines
//! for the kernel's PTX, computed here in Rust. The SASS they exercise: IADD / IADD.X with
//! negated sources and the carry and zero flags, ISET.X, LEA / LEA.HI.X, SHF.{L,R}.{U64,S64},
//! DSET, I2I, F2F.F64.F64 rounding, F2F.F32.F32.CEIL.SAT, IMAD.HI.SAT, the video ops, the
//! condition-code writers and tests of cc_ops.rs (I2I / FSET / ISET to RZ.CC, CSETP, BRA CC,
//! IMNMX.XHI / XLO), IADD3 with a carry out and ATOM / ATOMS .CAS.

#[path = "common/nv_capture.rs"]
mod nv_capture;

use isabridge_decoder::lift::sm50::{lift, Options};
use isabridge_decoder::Isa;
use nv_capture::{run_kernel, Layout, Row};
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Special words every input slot takes in some rows.
const SPECIAL: [u32; 20] = [
    0, 1, 2, 31, 32, 33, 63, 64, 0x7fff, 0x8000, 0xffff, 0x7fff_ffff, 0x8000_0000, 0x8000_0001, 0xffff_fffe, 0xffff_ffff,
    0x3ff0_0000, 0x7ff0_0000, 0x7ff8_0000, 0xfff0_0000,
];

/// The rows: splitmix64 words with seed 7, with equal low words, special words, small shift
/// amounts and f64 high words near 1.0 and 2^52 mixed in.
fn rows() -> Vec<Row> {
    let mut s: u64 = 7;
    let mut next = || {
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) as u32
    };
    (0..1024u32)
        .map(|i| {
            let (mut a, mut b, mut c) = (next(), next(), next());
            let sp = |k: u32| SPECIAL[(k % SPECIAL.len() as u32) as usize];
            match i % 8 {
                1 => c = a,
                2 => b = sp(i / 8),
                3 => c %= 80,
                4 => (a, b, c) = (sp(i / 8), sp(i / 160), sp(i / 8 + 3)),
                5 => b = 0x3ff0_0000 | (b & 0x001f_ffff),
                6 => b = 0x4320_0000 | (b & 0x007f_ffff),
                7 => (c, a) = (a, c & 0xffff_0000),
                _ => {}
            }
            Row { a, b, c, r0: 0, r1: 0 }
        })
        .collect()
}

fn x_of(r: &Row) -> u64 {
    (r.b as u64) << 32 | r.a as u64
}

fn y_of(r: &Row) -> u64 {
    let yh = if r.c.is_multiple_of(4) { r.b } else { r.a ^ r.c };
    (yh as u64) << 32 | r.c as u64
}

fn split(v: u64) -> (u32, u32) {
    (v as u32, (v >> 32) as u32)
}

/// Bits 0-5: eq, ne, lt, le, gt, ge of two ordered values.
fn cmp_bits<T: PartialOrd>(x: T, y: T) -> u32 {
    [x == y, x != y, x < y, x <= y, x > y, x >= y].iter().enumerate().map(|(i, b)| (*b as u32) << i).sum()
}

/// PTX `set.cmp.u32.f64` for the 14 compares in k_dset's order: the ordered ones are false on
/// NaN, the `u` ones true.
fn dset_bits(x: f64, y: f64) -> u32 {
    let un = x.is_nan() || y.is_nan();
    let o = [x == y, x != y && !un, x < y, x <= y, x > y, x >= y];
    let mut v: Vec<bool> = o.to_vec();
    v.extend(o.iter().map(|b| *b || un));
    v.push(!un);
    v.push(un);
    v.iter().enumerate().map(|(i, b)| (*b as u32) << i).sum()
}

/// PTX `.sat` on an f32: NaN and values below +0 (-0 too) to +0, above 1.0 to 1.0.
fn sat01(v: f32) -> u32 {
    if v.is_nan() || v.is_sign_negative() {
        0
    } else if v > 1.0 {
        1f32.to_bits()
    } else {
        v.to_bits()
    }
}

/// The PTX-defined (r0, r1) of kernel `k` for one row; None for a row whose result the PTX ISA
/// leaves open (a NaN's payload).
fn model(k: &str, r: &Row) -> Option<(u32, u32)> {
    let (a, b, c) = (r.a, r.b, r.c);
    let (x, y) = (x_of(r), y_of(r));
    let yh = (y >> 32) as u32;
    Some(match k {
        "sub64" => split(x.wrapping_sub(y)),
        "neg64" => split(x.wrapping_neg()),
        "subc96" => {
            // sub.cc / subc.cc / subc: borrows chain through CC.CF.
            let (r0, b1) = a.overflowing_sub(c);
            let (t, o1) = b.overflowing_sub(yh);
            let (r1, o2) = t.overflowing_sub(b1 as u32);
            let t0 = c.wrapping_sub(a).wrapping_sub((o1 || o2) as u32);
            (r0, r1 ^ t0)
        }
        "setp64" | "set64" => (cmp_bits(x as i64, y as i64), cmp_bits(x, y)),
        "shl64" => split(x << (c & 63)),
        "shr64u" => split(x >> (c & 63)),
        "shr64s" => split(((x as i64) >> (c & 63)) as u64),
        "shr64k" => split(x >> 13),
        "shr64n" => split(if c >= 64 { 0 } else { x >> c }),
        "lea64" => split(x.wrapping_add(y << 5)),
        "cvtsat" => {
            let h2 = c as u16 as i16;
            let r0 = a.min(0xffff) | b.min(0xff) << 16;
            let r1 = (h2.max(0) as u32) | ((h2.wrapping_neg() as u16 as u32) << 16);
            (r0, r1)
        }
        "iabs" => ((a as i32).wrapping_abs() as u32, (b as i32).wrapping_abs().wrapping_neg() as u32),
        "dset" => {
            let (dx, dy) = (f64::from_bits(x), f64::from_bits(y));
            let neu = dx != dy;
            (dset_bits(dx, dy), if neu { 1f32.to_bits() } else { 0 })
        }
        "dround" => {
            let dx = f64::from_bits(x);
            if dx.is_nan() {
                return None;
            }
            let w = |v: f64| split(v.to_bits());
            let (c0, c1) = w(dx.ceil());
            let (f0, f1) = w(dx.floor());
            let (n0, n1) = w(dx.round_ties_even());
            let (t0, t1) = w(dx.trunc());
            (c0 ^ f0 ^ n0 ^ t0, c1 ^ f1 ^ n1 << 1 ^ t1 << 2)
        }
        "ceilsat" => {
            let fb = f32::from_bits(b);
            let fb = if fb.is_subnormal() { 0f32.copysign(fb) } else { fb };
            (sat01(f32::from_bits(a).ceil()), sat01(fb.ceil()))
        }
        "madhisat" => {
            // mad.hi{.sat}.s32: the high word of the 64-bit product plus c (clamped to i32).
            let h = (a as i32 as i64 * b as i32 as i64) >> 32;
            let s = h + c as i32 as i64;
            (s.clamp(i32::MIN as i64, i32::MAX as i64) as u32, s as u32)
        }
        "atomftz" | "redftz" => {
            // atom / red .global.add.f32: round to nearest even, subnormal inputs and result
            // flushed to sign-preserving zero (PTX ISA, atom). A NaN sum's payload is left open.
            let flush = |x: u32| if x & 0x7f80_0000 == 0 { x & 0x8000_0000 } else { x };
            let sum = f32::from_bits(flush(b)) + f32::from_bits(flush(a));
            if sum.is_nan() {
                return None;
            }
            (if k == "atomftz" { b } else { c }, flush(sum.to_bits()))
        }
        // The scalar video instructions (PTX ISA, Scalar Video Instructions): the sources
        // extended by their types, the operation, .sat to the destination type, then .add c.
        "vabsdiff" => {
            let (sa, sb) = (a as i32 as i64, b as i32 as i64);
            (((a as i64 - b as i64).unsigned_abs() as u32).wrapping_add(c), ((sa - sb).unsigned_abs() as u32).wrapping_add(c))
        }
        "vadd" => {
            let s = (a as i32 as i64 + b as i32 as i64).clamp(i32::MIN as i64, i32::MAX as i64);
            (s as u32, (a as u64 + b as u64).min(u32::MAX as u64) as u32)
        }
        "vmnmx" => ((a as i32).max(b as i32) as u32, a.min(b).wrapping_add(c)),
        // Byte selects: byte k of a word sign- (s32 types) or zero-extended (u32 types).
        "vmnmx8" => {
            let sb = |w: u32, k: u32| (w >> (8 * k)) as u8 as i8 as i32;
            (sb(a, 1).max(sb(b, 2)) as u32, sb(a, 3).min(sb(c, 1)) as u32)
        }
        "vmnmx8u" => {
            let (ub, sb) = (|w: u32, k: u32| (w >> (8 * k)) & 0xff, |w: u32, k: u32| (w >> (8 * k)) as u8 as i8 as i32);
            (ub(b, 0).max(ub(c, 3)), sb(c, 0).max(sb(a, 3)) as u32)
        }
        "vset" => (((a as i32 as i64) < b as i64) as u32, ((a as i64 >= b as i32 as i64) as u32).wrapping_add(c)),
        "vshl" => (if b >= 32 { 0 } else { a << b }, ((a as i32) >> (b & 31)) as u32),
        "min64" => split((x as i64).min(y as i64) as u64),
        "maxu64" => split(x.max(y)),
        "abs64" => split((x as i64).wrapping_abs() as u64),
        "iadd3cc" => split(x.wrapping_add(y).wrapping_add(x)),
        "fbreak" => {
            // fma.rn.f32 x, x, 0.5, b until the setp.geu / counter `and.pred` fails.
            let (mut fx, fb, mut t1, mut n) = (f32::from_bits(a), f32::from_bits(b), c & 7, 0u32);
            loop {
                fx = fx.mul_add(0.5, fb);
                n += 1;
                let go = (fx >= 0.0 || fx.is_nan()) && t1 != 0;
                t1 = t1.wrapping_sub(1);
                if !go {
                    break;
                }
            }
            if fx.is_nan() {
                return None;
            }
            (n, fx.to_bits())
        }
        "ibreak" => {
            let (mut t0, t1, mut t2, mut n) = (a & 15, b & 15, c & 31, 0u32);
            loop {
                t0 = (t0 + 1) & 15;
                n += 1;
                let go = t0 != t1 && t2 != 0;
                t2 = t2.wrapping_sub(1);
                if !go {
                    break;
                }
            }
            (n, t0)
        }
        "iltloop" => {
            let (mut t0, mut n) = (a, 0u32);
            loop {
                t0 ^= t0 << 3;
                n += 1;
                if !(t0 & 7 != 0 && (t0 as i32) < b as i32 && n < 24) {
                    break;
                }
            }
            (n, t0)
        }
        "divrn" => {
            let (q0, q1) = (f32::from_bits(a) / f32::from_bits(b), f32::from_bits(a) / f32::from_bits(c));
            if q0.is_nan() || q1.is_nan() {
                return None;
            }
            (q0.to_bits(), q1.to_bits())
        }
        // atom.cas: the old word; the new one stored where it equals the compare value.
        "cas32" | "cass32" => {
            let cmp = if c & 1 == 0 { b } else { a };
            (b, if b == cmp { c } else { b })
        }
        "cas64" | "cass64" => {
            let cmp = if c & 1 == 0 { x } else { y };
            let after = if x == cmp { (a as u64) << 32 | c as u64 } else { x };
            let (z0, z1) = split(x ^ after);
            (z0, z1 ^ (c & 1))
        }
        _ => panic!("no model for k_{k}"),
    })
}

/// The kernels whose every row the interpreter computes as the PTX defines (pinned).
const KERNELS: &[&str] = &[
    "abs64", "cas32", "cas64", "cass32", "cass64", "divrn", "fbreak", "iadd3cc", "ibreak", "iltloop", "maxu64", "min64",
    "atomftz", "ceilsat", "cvtsat", "dround", "dset", "iabs", "lea64", "madhisat", "neg64", "redftz", "set64", "setp64", "shl64", "shr64k", "shr64n", "shr64s",
    "shr64u", "sub64", "subc96", "vabsdiff", "vadd", "vmnmx", "vmnmx8", "vmnmx8u", "vset", "vshl",
];

/// Lift and run kernels `names` of `cubin`; a line for each kernel that differs from the model.
fn check(cubin: &str, lay: &Layout, names: &[&str], lift_fn: impl Fn(&[u8]) -> Result<isabridge_ir::Function, isabridge_decoder::lift::LiftError>) -> Vec<String> {
    let bytes = std::fs::read(root().join(cubin)).unwrap();
    let (_, sections) = isabridge_decoder::elf::parse(&bytes).unwrap();
    let kernels = isabridge_decoder::elf::nvinfo::cuda_kernels(&bytes).unwrap();
    let rows = rows();
    let mut bad = Vec::new();
    for k in names {
        let name = format!("k_{k}");
        let sec = sections.iter().find(|s| s.name == format!(".text.{name}")).unwrap_or_else(|| panic!("{name} not in {cubin}"));
        let bank2 = kernels
            .iter()
            .find(|x| x.name == name)
            .and_then(|x| x.constant_banks.iter().find(|(n, _)| *n == 2))
            .map(|(_, b)| b.as_slice())
            .unwrap_or(&[]);
        let out = match lift_fn(sec.data).map_err(|e| e.to_string()).and_then(|f| run_kernel(&f, lay, &rows, bank2)) {
            Ok(o) => o,
            Err(e) => {
                bad.push(format!("{name}: {e}"));
                continue;
            }
        };
        let mut wrong = 0;
        let mut first = None;
        for (i, r) in rows.iter().enumerate() {
            let Some(want) = model(k, r) else { continue };
            let got = (out[2 * i], out[2 * i + 1]);
            if got != want {
                wrong += 1;
                first.get_or_insert(format!("{:08x} {:08x} {:08x}: want {:08x} {:08x} got {:08x} {:08x}", r.a, r.b, r.c, want.0, want.1, got.0, got.1));
            }
        }
        if wrong > 0 {
            bad.push(format!("{name}: {wrong} rows differ, first {}", first.unwrap_or_default()));
        }
    }
    bad
}

#[test]
fn sm50_cc_kernels_compute_what_ptx_defines() {
    let lay = Layout { ntid: 0x8, nctaid: 0x14, stack: 0x20, params: 0x140 };
    let bad = check("fixtures/nvidia/lift/cc.sm50.cubin", &lay, KERNELS, |code| lift(Isa::Sm50, code, 0, &Options::default()));
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The f32 atomic add kernels built for sm_86 (ATOMG / RED `.F32.FTZ.RN`), on the sm_86 lifter.
#[test]
fn sm86_ftz_atomics_compute_what_ptx_defines() {
    let lay = Layout { ntid: 0x0, nctaid: 0xc, stack: 0x28, params: 0x160 };
    let bad = check("fixtures/nvidia/lift/cc.sm86.cubin", &lay, &["atomftz", "redftz"], |code| {
        isabridge_decoder::lift::sm86::lift(Isa::Sm86, code, 0, &Options::default())
    });
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
