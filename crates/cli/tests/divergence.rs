//! Divergence on the interpreter against an NVIDIA GPU: the kernels of
//! fixtures/hw/divergence/diverge.cu (nested divergent branches, loops with break and continue,
//! early exit, SHFL / VOTE / MATCH under explicit member masks inside divergent regions), built
//! for sm_86 and sm_50 by tools/build_divergence_cubins.sh, run through `isabridge run --via
//! interp` over 4 blocks of 128 threads, must write what the same source computed on an NVIDIA
//! H200 (fixtures/hw/divergence/expected/*.bin, captured by tools/capture_divergence.sh; CUDA
//! defines these results independently of scheduling, see diverge.cu). The kernels that do so
//! are pinned per ISA; the rest must still fail, so the pins move only forwards.

use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

const KERNELS: &[&str] = &["k_nested", "k_loop", "k_loop_warp", "k_exit", "k_shfl_seg", "k_match"];

/// Runs one kernel of a divergence cubin; `Ok(true)` when its output equals the H200's.
fn matches_gpu(cubin: &str, kernel: &str) -> Result<bool, String> {
    let dir = root().join("fixtures/hw/divergence");
    let out = std::env::temp_dir().join(format!("isabridge-divergence-{}-{cubin}-{kernel}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let run = Command::new(env!("CARGO_BIN_EXE_isabridge"))
        .arg("run")
        .arg(dir.join(cubin))
        .args(["--via", "interp", "--kernel", kernel, "--grid", "4", "--block", "128"])
        .arg(format!("--arg=buf={}", dir.join("input.bin").display()))
        .args(["--arg=zeros=8192", "--arg=u32=512", "--out"])
        .arg(&out)
        .output()
        .expect("isabridge runs");
    if !run.status.success() {
        return Err(String::from_utf8_lossy(&run.stderr).trim().to_string());
    }
    let got = std::fs::read(out.join("arg1.bin")).map_err(|e| e.to_string())?;
    let want = std::fs::read(dir.join("expected").join(format!("{kernel}.bin"))).expect("expected output");
    let _ = std::fs::remove_dir_all(&out);
    assert_eq!(got.len(), want.len(), "{cubin} {kernel}: output size");
    if got != want {
        let words = |b: &[u8]| b.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect::<Vec<_>>();
        let (g, w) = (words(&got), words(&want));
        let bad = g.iter().zip(&w).filter(|(a, b)| a != b).count();
        let first = g.iter().zip(&w).position(|(a, b)| a != b).unwrap_or(0);
        eprintln!("{cubin} {kernel}: {bad} of {} words differ, first at thread {} word {}: {:#x} want {:#x}",
            w.len(), first / 4, first % 4, g[first], w[first]);
    }
    Ok(got == want)
}

fn check(cubin: &str, kernels: &[&str], passing: &[&str]) {
    let mut now = Vec::new();
    for k in kernels {
        match matches_gpu(cubin, k) {
            Ok(true) => now.push(*k),
            Ok(false) => {}
            Err(e) => eprintln!("{cubin} {k}: {e}"),
        }
    }
    assert_eq!(now, passing, "{cubin}: kernels whose outputs equal the H200's");
}

#[test]
fn sm86_divergence_kernels_equal_the_gpu() {
    check("diverge.sm86.cubin", KERNELS, SM86_PASSING);
}

#[test]
fn sm50_divergence_kernels_equal_the_gpu() {
    // sm_50 has no match.sync: its cubin has no k_match.
    check("diverge.sm50.cubin", &KERNELS[..5], SM50_PASSING);
}

/// sm_86 kernels that equal the GPU on every word.
const SM86_PASSING: &[&str] = &["k_nested", "k_loop", "k_loop_warp", "k_exit", "k_shfl_seg", "k_match"];
/// sm_50 kernels that equal the GPU on every word.
const SM50_PASSING: &[&str] = &["k_nested", "k_loop", "k_loop_warp", "k_exit", "k_shfl_seg"];
