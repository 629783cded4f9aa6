//! `--dynamic-shared BYTES` on `isabridge run` and `isabridge translate --to spirv`: the dynamic
//! shared memory of a cubin kernel's launch (CUDA's `extern __shared__`), after its static
//! shared memory. fixtures/nvidia/src/memory.cu `mem_shared` (4,864 static bytes) reads
//! `dyn_smem[(t + n) & 255]`: 1,024 dynamic bytes. What the kernel then writes is checked
//! against a model of its source in tests/dynamic_shared.rs; here the flag's values and errors.

use std::path::{Path, PathBuf};
use std::process::Command;

fn cubin(isa: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../fixtures/nvidia/bin/memory.{isa}.cubin")).to_string_lossy().into_owned()
}

fn out_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("dynamic_shared").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `isabridge ARGS...`: exit status and stderr.
fn isabridge(args: &[&str]) -> (i32, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_isabridge")).args(args).output().unwrap();
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// `isabridge run` of `mem_shared` (2 blocks of 32, n = 5) via `via` with `extra` flags.
fn run_mem_shared(isa: &str, via: &str, extra: &[&str]) -> (i32, String) {
    let dir = out_dir(&format!("run-{isa}-{via}-{}", extra.join("_")));
    let input = dir.join("in.bin");
    std::fs::write(&input, (0..1024u32).flat_map(|i| (i as f32 * 0.5).to_le_bytes()).collect::<Vec<u8>>()).unwrap();
    let (f, inp, out) = (cubin(isa), format!("--arg=buf={}", input.display()), dir.join("out"));
    let mut args = vec!["run", &f, "--via", via, "--kernel", "mem_shared", "--grid", "2", "--block", "32", "--arg=zeros=4096", &inp, "--arg=i32=5", "--out", out.to_str().unwrap()];
    args.extend(extra);
    isabridge(&args)
}

#[test]
fn run_takes_the_dynamic_shared_size() {
    for isa in ["sm50", "sm86"] {
        let (rc, err) = run_mem_shared(isa, "interp", &[]);
        assert_eq!(rc, 2);
        assert!(err.contains("mem_shared block (0,0,0): out-of-bounds Shared access of 4 bytes at 0x1300"), "{err}");
        for via in ["interp", "spirv"] {
            let (rc, err) = run_mem_shared(isa, via, &["--dynamic-shared", "1024"]);
            assert_eq!(rc, 0, "{isa} {via}: {err}");
        }
    }
    // Past a block's shared memory: 48 KiB on sm_50, 99 KiB on sm_86.
    let (rc, err) = run_mem_shared("sm50", "interp", &["--dynamic-shared", "44289"]);
    assert_eq!(rc, 2);
    assert!(err.contains("mem_shared: 4864 bytes of static and 44289 of dynamic shared memory exceed the 49152 bytes a block may have"), "{err}");
    let (rc, err) = run_mem_shared("sm86", "spirv", &["--dynamic-shared", "96513"]);
    assert_eq!(rc, 2);
    assert!(err.contains("exceed the 101376 bytes a block may have"), "{err}");
    // Within sm_86's block but past what the Vulkan device gives a workgroup (lavapipe: 32 KiB).
    let (rc, err) = run_mem_shared("sm86", "spirv", &["--dynamic-shared", "65536"]);
    assert_eq!(rc, 2);
    assert!(err.contains("(maxComputeSharedMemorySize), the kernel declares 71936"), "{err}");
    // Not a byte count: clap's usage error.
    for bad in ["-4", "1k", "4294967296", ""] {
        let (rc, err) = run_mem_shared("sm50", "interp", &[&format!("--dynamic-shared={bad}")]);
        assert_eq!(rc, 2, "{bad}");
        assert!(err.contains("--dynamic-shared <BYTES>"), "{bad}: {err}");
    }
    // AMD code objects have no such launch property.
    let amd = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/amd/bin/cl_lanes.gfx1013-w32.o");
    let out = out_dir("amd");
    let (rc, err) = isabridge(&["run", amd.to_str().unwrap(), "--kernel", "lds_reduce", "--grid", "1", "--block", "32", "--dynamic-shared", "4", "--out", out.to_str().unwrap()]);
    assert_eq!(rc, 2);
    assert!(err.contains("--dynamic-shared sets the dynamic shared memory of cubin kernels' launches"), "{err}");
}

#[test]
fn translate_sizes_the_workgroup_array_and_the_sidecar_says_so() {
    let dir = out_dir("translate");
    let (rc, err) = isabridge(&["translate", &cubin("sm50"), "--to", "spirv", "--kernel", "mem_shared", "--dynamic-shared", "1024", "-o", dir.to_str().unwrap()]);
    assert_eq!(rc, 0, "{err}");
    let o = Command::new("spirv-val").args(["--target-env", "vulkan1.2"]).arg(dir.join("mem_shared.spv")).output().expect("spirv-val (tools/install_oracles.sh)");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("mem_shared.json")).unwrap()).unwrap();
    // sm_50 `mem_shared` has no cross-lane exchange: its Workgroup memory is the guest's.
    assert_eq!(j["workgroup_memory"], serde_json::json!({"static_bytes": 4864, "dynamic_bytes": 1024, "total_bytes": 5888}));
    let (rc, err) = isabridge(&["translate", &cubin("sm50"), "--to", "spirv", "--kernel", "mem_shared", "--dynamic-shared", "50000", "-o", dir.to_str().unwrap()]);
    assert_eq!(rc, 2);
    assert!(err.contains("sm50 mem_shared: 4864 bytes of static and 50000 of dynamic shared memory exceed the 49152 bytes a block may have"), "{err}");
    let (rc, err) = isabridge(&["translate", &cubin("sm50"), "--to", "gfx1201", "--dynamic-shared", "4", "-o", dir.to_str().unwrap()]);
    assert_eq!(rc, 2);
    assert!(err.contains("--dynamic-shared applies to --to spirv"), "{err}");
}
