//! Generic addresses on sm_50 through `isabridge run --via interp`: the kernels of
//! fixtures/nvidia/generic/generic.sm50.ptx (ptxas 12.9, tools/build_sm50_generic_cubin.sh)
//! point each thread's generic pointer at shared memory (odd threads, `cvta.shared`) or at
//! global memory (even threads), so one `LEA.HI.X P0` / `LD.E ..., P0` / `ST.E ..., P0` (and
//! `@!P0 BRA` to `ATOMS` for the atomic) serves lanes of both spaces. The expected words are
//! what the PTX program means, computed here from the PTX ISA's definitions of its
//! instructions (one block of 128 threads, the global buffer zeroed by `zeros=`).

use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// Run `kernel` over one block of 128 threads with `out` (2 KiB) and `g` (512 bytes) zeroed;
/// the two buffers' words afterwards.
fn run(kernel: &str) -> (Vec<u32>, Vec<u32>) {
    let out = std::env::temp_dir().join(format!("isabridge-nvgeneric-{}-{kernel}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let r = Command::new(env!("CARGO_BIN_EXE_isabridge"))
        .arg("run")
        .arg(root().join("fixtures/nvidia/generic/generic.sm50.cubin"))
        .args(["--via", "interp", "--kernel", kernel, "--grid", "1", "--block", "128"])
        .args(["--arg=zeros=2048", "--arg=zeros=512", "--out"])
        .arg(&out)
        .output()
        .expect("isabridge runs");
    assert!(r.status.success(), "{kernel}: {}", String::from_utf8_lossy(&r.stderr));
    let read = |n: &str| words(&std::fs::read(out.join(n)).expect("output"));
    let got = (read("arg0.bin"), read("arg1.bin"));
    let _ = std::fs::remove_dir_all(&out);
    got
}

#[test]
fn generic_loads_and_stores_reach_shared_or_global_memory_per_lane() {
    let (out, g) = run("k_generic");
    for t in 0..128u32 {
        let odd = t & 1 == 1;
        let w = t.wrapping_mul(0x9e37_79b1);
        // st.u32 [p], w; ld.u32 [p]; ld.shared S[t]; ld.global g[t]; ld.s8 [p+1].
        let want = [w, if odd { w } else { 0xaaaa_0000 | t }, if odd { 0 } else { w }, (w >> 8) as u8 as i8 as i32 as u32];
        assert_eq!(out[4 * t as usize..4 * t as usize + 4], want, "thread {t}");
        assert_eq!(g[t as usize], if odd { 0 } else { w }, "g[{t}]");
    }
}

#[test]
fn a_generic_atomic_branches_to_the_shared_atomic_for_shared_addresses() {
    let (out, g) = run("k_generic_atom");
    for t in 0..128u32 {
        let odd = t & 1 == 1;
        let s0 = 0xaaaa_0000 | t;
        // atom.add.u32 [p], t + 1 returns the old word of S[t] (odd t) or g[t] (even t).
        let want = if odd { [s0, s0 + t + 1, t, t] } else { [t, s0, 2 * t + 1, t] };
        assert_eq!(out[4 * t as usize..4 * t as usize + 4], want, "thread {t}");
        assert_eq!(g[t as usize], want[2], "g[{t}]");
    }
}
