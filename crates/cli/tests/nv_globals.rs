//! A cubin's module data on `isabridge run`: fixtures/nvidia/src/memory.cu `mem_const` reads its
//! `__constant__` arrays from the module's constant bank 3 (`.nv.constant3`), and
//! fixtures/nvidia/src/control.cu `calls` calls through `ops`, a `__device__` array of function
//! pointers (`.nv.global.init`) whose address the module's constant bank 4 holds (relocation
//! R_CUDA_64 to `ops`): on sm_86 `CALL.REL.NOINC R8`, on sm_50 `PRET` then `BRX R3`. Both run
//! over 2 blocks of 64 threads, on the interpreter and as SPIR-V on lavapipe, and must write what
//! a Rust model of the CUDA source computes.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Threads of a run: 2 blocks of 64.
const THREADS: usize = 128;

/// xorshift32: the inputs' bits.
fn rng(s: &mut u32) -> u32 {
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    *s
}

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// `isabridge run FILE --kernel K --via VIA --grid 2 --block 64` with `args` (`--arg=` values,
/// `buf=` values naming files written from `buffers`, in order); returns argument 0's buffer
/// as words.
fn run(cubin: &str, kernel: &str, via: &str, buffers: &[Vec<u8>], args: &[String]) -> Result<Vec<u32>, String> {
    let dir = std::env::temp_dir().join(format!("isabridge-nvglobals-{}-{cubin}-{kernel}-{via}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_isabridge"));
    cmd.arg("run").arg(root().join("fixtures/nvidia/bin").join(cubin)).args(["--via", via, "--kernel", kernel, "--grid", "2", "--block", "64"]);
    cmd.arg(format!("--arg=zeros={}", 4 * THREADS));
    for (i, b) in buffers.iter().enumerate() {
        let p = dir.join(format!("in{i}.bin"));
        std::fs::write(&p, b).unwrap();
        cmd.arg(format!("--arg=buf={}", p.display()));
    }
    cmd.args(args).arg("--out").arg(dir.join("out"));
    let out = cmd.output().expect("isabridge runs");
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
    }
    let got = std::fs::read(dir.join("out/arg0.bin")).expect("output");
    let _ = std::fs::remove_dir_all(&dir);
    Ok(got.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

/// Each thread's word must equal the model's (bit for bit).
fn check(what: &str, got: &[u32], want: impl Fn(usize) -> f32) {
    assert_eq!(got.len(), THREADS, "{what}: output size");
    for (i, g) in got.iter().enumerate() {
        assert_eq!(*g, want(i).to_bits(), "{what}: thread {i}: {} (bits {g:#010x}), want {}", f32::from_bits(*g), want(i));
    }
}

/// `mem_const(out, in, p0, p1, sel)`: `ctab` and `cidx` have no initializer (bank 3 is 0x140
/// zero bytes) and no host code sets them, so every `ctab` read is 0.0 and `cidx[..]` 0:
/// out[i] = (0 + 0 * p0 + (float)p1 + ctab[0] + ctab[2]) + (float)sel + in[i].
#[test]
fn mem_const_reads_the_module_constant_bank() {
    let mut s = 0x2545_f491;
    let input: Vec<f32> = (0..THREADS).map(|_| (rng(&mut s) % 20001) as f32 / 100.0 - 100.0).collect();
    let (p0, p1, sel) = (1.5f32, 2.25f64, 7u32);
    let args = [format!("--arg=f32={p0}"), format!("--arg=u64={:#x}", p1.to_bits()), format!("--arg=u32={sel}")];
    let model = |i: usize| {
        let mut x = 0.0f32 + 0.0 * p0 + p1 as f32;
        x += 0.0;
        x += 0.0;
        x += sel as f32;
        x + input[i]
    };
    for cubin in ["memory.sm86.cubin", "memory.sm50.cubin"] {
        for via in ["interp", "spirv"] {
            let got = run(cubin, "mem_const", via, &[bytes(&input.iter().map(|f| f.to_bits()).collect::<Vec<_>>())], &args).unwrap_or_else(|e| panic!("{cubin} {via}: {e}"));
            check(&format!("{cubin} mem_const --via {via}"), &got, model);
        }
    }
}

fn poly(x: f32, n: u32) -> f32 {
    // ptxas contracts `r * x + k` into FFMA.
    (0..n).fold(0.0f32, |r, k| r.mul_add(x, k as f32))
}

fn fib(n: u32) -> u32 {
    if n < 2 {
        n
    } else {
        fib(n - 1) + fib(n - 2)
    }
}

/// `calls(out, in, sel, n)`: out[i] = ops[sel[i] & 3](poly(x, n) + fib(sel[i] & 15), x) with
/// ops = {add, mul, sub, div}, x = in[i]; every thread's `sel` differs, so the lanes of a warp
/// call all four functions.
#[test]
fn calls_through_module_function_pointers() {
    let mut s = 0x9e37_79b9;
    let input: Vec<f32> = (0..THREADS).map(|_| (1 + rng(&mut s) % 4000) as f32 / 1000.0 * if rng(&mut s) & 1 == 0 { 1.0 } else { -1.0 }).collect();
    let sel: Vec<u32> = (0..THREADS).map(|_| rng(&mut s) % 64).collect();
    let n = 5;
    let model = |i: usize| {
        let x = input[i];
        let r = poly(x, n) + fib(sel[i] & 15) as f32;
        match sel[i] & 3 {
            0 => r + x,
            1 => r * x,
            2 => r - x,
            _ => r / x,
        }
    };
    let buffers = [bytes(&input.iter().map(|f| f.to_bits()).collect::<Vec<_>>()), bytes(&sel)];
    for cubin in ["control.sm86.cubin", "control.sm50.cubin"] {
        for via in ["interp", "spirv"] {
            let got = run(cubin, "calls", via, &buffers, &[format!("--arg=u32={n}")]).unwrap_or_else(|e| panic!("{cubin} {via}: {e}"));
            check(&format!("{cubin} calls --via {via}"), &got, model);
        }
    }
}
