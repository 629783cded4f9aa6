//! `isabridge conform ptx-rows` over the H200 seed-1 rows with the committed capture cubins
//! (tools/build_capture_cubins.sh): the ops that pass on the interpreter are pinned, the absent
//! ones are those the build could not make for the ISA (fixtures/hw/capture.sm86.absent).

use std::process::Command;

fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `isabridge conform ptx-rows ROWS --cubin CUBIN --via interp --json`: the exit status and one
/// JSON value per op.
fn conform_interp(rows: &str, cubin: &str) -> (std::process::ExitStatus, Vec<serde_json::Value>) {
    let out = Command::new(env!("CARGO_BIN_EXE_isabridge"))
        .args(["conform", "ptx-rows", rows, "--cubin", cubin, "--via", "interp", "--json"])
        .current_dir(root())
        .output()
        .expect("runs");
    let text = String::from_utf8(out.stdout).expect("utf-8");
    (out.status, text.lines().map(|l| serde_json::from_str(l).expect("json line")).collect())
}

/// The sm_86 capture kernels that equal the H200 on all 1024 rows (approximate ops within their
/// documented bound).
const SM86_PASSING: &[&str] = &[
    "rcp_rn", "rcp_rz", "sqrt_rn", "sqrt_rp", "div_rn", "div_rz", "ddiv_rn",
    "add_rn", "add_rz", "add_rm", "add_rp", "add_rn_ftz", "add_rz_ftz", "add_rn_sat", "sub_rn",
    "sub_rm", "mul_rn", "mul_rz", "mul_rm", "mul_rp", "mul_rn_ftz", "mul_rn_sat", "mul_rz_ftz_sat",
    "fma_rn", "fma_rz", "fma_rm", "fma_rp", "fma_rn_ftz", "fma_rn_sat", "fma_rm_ftz", "min_f32",
    "max_f32", "min_nan_f32", "max_nan_f32", "min_ftz_f32", "div_approx", "div_full", "rcp_approx",
    "rcp_approx_ftz", "rsqrt_approx", "sqrt_approx", "sin_approx", "cos_approx", "ex2_approx",
    "ex2_approx_ftz", "lg2_approx", "tanh_approx", "abs_f32", "neg_f32", "abs_ftz_f32", "rni_f32",
    "rzi_f32", "rmi_f32", "rpi_f32", "sat_f32", "ftz_f32", "cvt_rni_s32", "cvt_rzi_s32",
    "cvt_rmi_s32", "cvt_rpi_s32", "cvt_rzi_u32", "cvt_rni_u32", "cvt_rn_f32_s32", "cvt_rz_f32_s32",
    "cvt_rm_f32_s32", "cvt_rp_f32_s32", "cvt_rn_f32_u32", "cvt_rz_f32_u32", "cvt_rn_f16_f32",
    "cvt_rz_f16_f32", "cvt_rm_f16_f32", "cvt_rp_f16_f32", "cvt_rn_bf16_f32", "cvt_rz_bf16_f32",
    "cvt_f32_f16", "cvt_f32_bf16", "setp_eq", "setp_ne", "setp_lt", "setp_le", "setp_gt", "setp_ge",
    "setp_equ", "setp_neu", "setp_ltu", "setp_geu", "setp_num", "setp_nan", "add_s32",
    "add_sat_s32", "sub_s32", "mul_lo_s32", "mul_hi_s32", "mul_hi_u32", "mad_lo_s32", "mad_hi_u32",
    "min_s32", "max_u32", "shl_b32", "shr_s32", "shr_u32", "shf_l_wrap", "shf_r_clamp",
    "shf_r_wrap", "bfe_u32", "bfe_s32", "bfi_b32", "popc_b32", "clz_b32", "brev_b32", "not_b32",
    "prmt_b32", "prmt_f4e", "prmt_rc16", "lop3_e8", "lop3_96", "dp4a_s32", "dp4a_u32",
    "dp2a_lo_s32", "fma_rn_f16x2", "mul_rn_f16x2", "add_f16x2", "add_ftz_f16x2", "min_f16x2",
    "max_nan_f16x2", "fma_relu_f16x2", "fma_bf16x2", "dadd_rn", "dadd_rz", "dadd_rm", "dadd_rp",
    "dmul_rn", "dmul_rz", "dfma_rn", "dfma_rm", "dmin", "shfl_idx", "shfl_up", "shfl_down",
    "shfl_bfly", "shfl_idx_seg8", "vote_ballot",
];

#[test]
fn sm86_capture_kernels_pass_on_the_interpreter() {
    let (status, rows) = conform_interp("fixtures/hw/ptx_ops_sm90_seed1.txt.gz", "fixtures/hw/capture.sm86.cubin");
    assert_eq!(rows.len(), 147, "one line per captured op");
    let absent: Vec<&str> = rows.iter().filter(|r| r["absent"] == true).filter_map(|r| r["op"].as_str()).collect();
    let listed = std::fs::read_to_string(root().join("fixtures/hw/capture.sm86.absent")).expect("absent list");
    let want: Vec<&str> = listed.lines().filter_map(|l| l.split('\t').next()).collect();
    assert_eq!(absent, want);
    let passing: Vec<&str> = rows
        .iter()
        .filter(|r| r["absent"] != true && r["rows"] == 1024 && r["passed"] == r["rows"])
        .filter_map(|r| r["op"].as_str())
        .collect();
    let lost: Vec<&&str> = SM86_PASSING.iter().filter(|p| !passing.contains(p)).collect();
    assert!(lost.is_empty(), "pinned ops no longer pass: {lost:?}");
    assert_eq!(passing.len(), SM86_PASSING.len(), "more ops pass: pin them ({passing:?})");
    for r in &rows {
        assert_eq!(r["via"], "interp");
        assert!(r["approx"].is_boolean());
    }
    // Exit status 0 only when every present op passes (all 142 present sm_86 ops do).
    assert_eq!(status.code(), Some(if passing.len() + absent.len() == 147 { 0 } else { 1 }));
}

/// The packed and scalar f16 atomics captured on an sm_90 GPU (fixtures/hw/ATOMIC.md): the
/// sm_86 build's kernels (ATOMG / REDG `.ADD.F16x2.RN`, and the CAS loop ptxas makes of the
/// scalar f16 add) equal the captured memory word and returned value on all 1,024 rows; the
/// bf16x2 kernel needs sm_90 and is absent from the sm_86 cubin.
#[test]
fn sm86_f16_atomics_pass_on_the_interpreter() {
    let (status, rows) = conform_interp("fixtures/hw/atom_ops_sm90_seed1.txt.gz", "fixtures/hw/capture_atomic.sm86.cubin");
    let absent: Vec<&str> = rows.iter().filter(|r| r["absent"] == true).filter_map(|r| r["op"].as_str()).collect();
    assert_eq!(absent, ["atom_add_noftz_bf16x2"]);
    let passing: Vec<&str> = rows
        .iter()
        .filter(|r| r["absent"] != true && r["rows"] == 1024 && r["passed"] == r["rows"])
        .filter_map(|r| r["op"].as_str())
        .collect();
    assert_eq!(
        passing,
        ["atom_add_noftz_f16x2", "atom_add_noftz_f16x2_near", "red_add_noftz_f16x2", "atom_add_noftz_f16", "atom_add_noftz_f16_near"]
    );
    assert_eq!(status.code(), Some(0));
}
