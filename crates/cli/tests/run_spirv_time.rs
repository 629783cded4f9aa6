//! `isabridge run CUBIN --via spirv --time N` (Mesa lavapipe): the buffers written are the
//! checked dispatch's, equal to the interpreter's, and one line gives the GPU time of the N
//! timed dispatches; `--time` on another path is refused.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `n` small pseudo-random i32 values (a fixed LCG; `predicates` compares them).
fn ints(n: usize, seed: u32) -> Vec<u8> {
    let mut x = seed;
    (0..n)
        .flat_map(|_| {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            ((x >> 16) as i32 % 101 - 50).to_le_bytes()
        })
        .collect()
}

fn run(dir: &Path, extra: &[&str]) -> (Option<i32>, String, String) {
    let a = dir.join("a.bin");
    let b = dir.join("b.bin");
    let out = Command::new(env!("CARGO_BIN_EXE_isabridge"))
        .args(["run", "fixtures/nvidia/bin/special.sm86.cubin", "--kernel", "predicates", "--grid", "2", "--block", "128"])
        .args(["--arg", "zeros=16384", "--arg", &format!("buf={}", a.display()), "--arg", &format!("buf={}", b.display())])
        .args(extra)
        .current_dir(root())
        .output()
        .expect("runs");
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn timed_spirv_run_writes_the_interpreters_buffers_and_a_time() {
    let dir = std::env::temp_dir().join(format!("isabridge-run-time-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.bin"), ints(256, 1)).unwrap();
    std::fs::write(dir.join("b.bin"), ints(256, 2)).unwrap();
    let interp = dir.join("interp");
    let spirv = dir.join("spirv");
    let (rc, _, err) = run(&dir, &["--via", "interp", "--out", interp.to_str().unwrap()]);
    assert_eq!(rc, Some(0), "{err}");
    let (rc, out, err) = run(&dir, &["--via", "spirv", "--time", "3", "--out", spirv.to_str().unwrap()]);
    assert_eq!(rc, Some(0), "{err}");
    let want = std::fs::read(interp.join("arg0.bin")).unwrap();
    assert_eq!(want.len(), 16384);
    assert!(want.iter().any(|&b| b != 0), "the kernel writes its output");
    assert_eq!(std::fs::read(spirv.join("arg0.bin")).unwrap(), want);
    let line = out.lines().find(|l| l.contains("GPU time per dispatch")).unwrap_or_else(|| panic!("no time line: {out}"));
    assert!(line.starts_with("predicates: GPU time per dispatch on llvmpipe"), "{line}");
    assert!(line.ends_with("(3 timed dispatches after the checked one)"), "{line}");
    let median: f64 = line.split("median ").nth(1).and_then(|s| s.split(' ').next()).and_then(|s| s.parse().ok()).expect("a median");
    assert!(median > 0.0, "{line}");
    let (rc, _, err) = run(&dir, &["--via", "interp", "--time", "3", "--out", interp.to_str().unwrap()]);
    assert_eq!(rc, Some(2));
    assert!(err.contains("--time needs --via spirv"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
