//! `isabridge conform ptx-rows --via spirv` over the H200 seed-1 rows with the committed sm_86
//! and sm_50 capture cubins, on Vulkan (Mesa lavapipe: tools/install_oracles.sh): every present
//! op, the warp shuffles and votes included, equals the H200 on all 1024 rows, as it does on
//! the interpreter.

use std::process::Command;

fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn check(isa: &str, present: usize) {
    let out = Command::new(env!("CARGO_BIN_EXE_isabridge"))
        .args(["conform", "ptx-rows", "fixtures/hw/ptx_ops_sm90_seed1.txt.gz", "--cubin", &format!("fixtures/hw/capture.{isa}.cubin")])
        .args(["--via", "spirv", "--json"])
        .current_dir(root())
        .output()
        .expect("runs");
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let rows: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).expect("json line")).collect();
    assert_eq!(rows.len(), 147, "one line per captured op: {}", String::from_utf8_lossy(&out.stderr));
    let ran: Vec<&serde_json::Value> = rows.iter().filter(|r| r["absent"] != true).collect();
    assert_eq!(ran.len(), present);
    let failing: Vec<String> = ran.iter().filter(|r| r["passed"] != r["rows"]).map(|r| format!("{} ({})", r["op"], r["note"])).collect();
    assert!(failing.is_empty(), "{isa}: fail on SPIR-V: {failing:?}");
    for r in &rows {
        assert_eq!(r["via"], "spirv");
    }
    eprintln!("{isa}: {present} of {present} present ops equal the H200 through SPIR-V on lavapipe");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn sm86_capture_kernels_through_spirv() {
    check("sm86", 142);
}

#[test]
fn sm50_capture_kernels_through_spirv() {
    check("sm50", 125);
}
