//! Calls, returns and indirect branches on the interpreter: the kernels of
//! fixtures/nvidia/calls/calls.cu (non-inlined functions called under divergence and in loops
//! of per-lane trip counts, recursion of per-lane depth, switches ptxas turns into jump tables
//! and `BRX`), built for sm_86 and sm_50 by tools/build_call_cubins.sh, run through `isabridge
//! run --via interp` over 4 blocks of 128 threads on the divergence kernels' input, must write
//! what a Rust model of the CUDA source computes (the kernels use no warp operations, so CUDA
//! defines every result per thread).

use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn mix(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846ca68b);
    x ^= x >> 16;
    x
}

fn step(x: u32, k: u32) -> u32 {
    mix(x.wrapping_add(k)) ^ k.wrapping_mul(0x9e3779b9)
}

fn rec(d: u32, x: u32) -> u32 {
    if d == 0 {
        return x;
    }
    mix(rec(d - 1, x ^ d)).wrapping_add(d)
}

fn fib(k: u32) -> u32 {
    if k < 2 {
        k
    } else {
        fib(k - 1).wrapping_add(fib(k - 2))
    }
}

/// The four output words of one thread, per kernel, as calls.cu computes them.
fn model(kernel: &str, x: u32) -> [u32; 4] {
    match kernel {
        "k_call_div" => {
            let a = if x & 1 != 0 { step(x, 1) } else { step(x ^ 0x55, 2) };
            let mut b = 0u32;
            for i in 0..(x & 7) {
                b = step(b ^ x, i);
            }
            let mut c = a.wrapping_add(b);
            if x & 2 != 0 {
                c = step(c, 7);
            }
            [a, b, c, x & 7]
        }
        "k_recurse" => {
            let d = x & 15;
            let r = rec(d, x);
            let f = fib(((x >> 4) & 7) + ((x >> 7) & 3));
            [r, f, d, r ^ f]
        }
        "k_switch" => {
            let r = match x % 12 {
                0 => x.wrapping_add(11),
                1 => x.wrapping_mul(3),
                2 => x ^ 0xdeadbeef,
                3 => x >> 3,
                4 => x << 5,
                5 => mix(x),
                6 => x.wrapping_sub(1000),
                7 => !x,
                8 => x.wrapping_mul(x),
                9 => x | 0x0f0f0f0f,
                10 => x & 0xff00ff00,
                _ => x.wrapping_add(x >> 7),
            };
            let s = match (x >> 8) & 7 {
                0 => step(r, 1),
                1 => r.wrapping_add(17),
                2 => step(r, 2) ^ r,
                3 => r.wrapping_mul(9),
                4 => r >> 11,
                5 => step(r ^ 5, 5),
                6 => r.wrapping_sub(x),
                _ => r ^ (r << 3),
            };
            [r, s, x % 12, (x >> 8) & 7]
        }
        _ => unreachable!("no model for {kernel}"),
    }
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

const KERNELS: [&str; 3] = ["k_call_div", "k_recurse", "k_switch"];

/// Runs one kernel of a calls cubin: `Ok` when every thread's words equal the model's, else
/// why not (the first thread that differs, or the run's error).
fn run(cubin: &str, kernel: &str) -> Result<(), String> {
    let input = root().join("fixtures/hw/divergence/input.bin");
    let out = std::env::temp_dir().join(format!("isabridge-nvcalls-{}-{cubin}-{kernel}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let run = Command::new(env!("CARGO_BIN_EXE_isabridge"))
        .arg("run")
        .arg(root().join("fixtures/nvidia/calls").join(cubin))
        .args(["--via", "interp", "--kernel", kernel, "--grid", "4", "--block", "128"])
        .arg(format!("--arg=buf={}", input.display()))
        .args(["--arg=zeros=8192", "--arg=u32=512", "--out"])
        .arg(&out)
        .output()
        .expect("isabridge runs");
    if !run.status.success() {
        return Err(String::from_utf8_lossy(&run.stderr).trim().to_string());
    }
    let got = words(&std::fs::read(out.join("arg1.bin")).expect("output"));
    let _ = std::fs::remove_dir_all(&out);
    let inp = words(&std::fs::read(&input).expect("input"));
    assert_eq!(got.len(), 4 * inp.len(), "{cubin} {kernel}: output size");
    for (g, x) in inp.iter().enumerate() {
        let want = model(kernel, *x);
        if got[4 * g..4 * g + 4] != want {
            return Err(format!("thread {g}, input {x:#x}: {:x?}, want {want:x?}", &got[4 * g..4 * g + 4]));
        }
    }
    Ok(())
}

/// The kernels of `cubin` that equal the model must be exactly `passing` (the others still
/// fail, so the pin moves only forwards).
fn check(cubin: &str, passing: &[&str]) {
    let mut now = Vec::new();
    for k in KERNELS {
        match run(cubin, k) {
            Ok(()) => now.push(k),
            Err(e) => eprintln!("{cubin} {k}: {e}"),
        }
    }
    assert_eq!(now, passing, "{cubin}: kernels that equal the model");
}

#[test]
fn sm86_call_kernels_equal_the_model() {
    check("calls.sm86.cubin", SM86_PASSING);
}

#[test]
fn sm50_call_kernels_equal_the_model() {
    check("calls.sm50.cubin", SM50_PASSING);
}

/// sm_86 kernels that equal the model on every word.
const SM86_PASSING: &[&str] = &["k_call_div", "k_recurse", "k_switch"];
/// sm_50 kernels that equal the model on every word (k_recurse keeps a predicate across its
/// calls with `PSET.AND.AND`).
const SM50_PASSING: &[&str] = &["k_call_div", "k_recurse", "k_switch"];
