//! The H200 capture kernels built for sm_50 (fixtures/hw/capture.sm50.cubin, 125 of the 147
//! ops; tools/build_capture_cubins.sh), each lifted whole by the sm_50 lifter and run by the
//! interpreter as capture.cu launches it (tests/common/nv_capture.rs; sm_50 code reads ntid.x
//! at c[0x0][0x8], nctaid.x at c[0x0][0x14], the stack top at c[0x0][0x20] and the parameters
//! from c[0x0][0x140]). The ops whose kernels equal the H200 on every row are pinned.

#[path = "common/nv_capture.rs"]
mod nv_capture;

use isabridge_decoder::lift::sm50::{lift, Options};
use isabridge_decoder::Isa;
use nv_capture::{check_cubin, Layout};

/// The ops whose kernels lift and equal the H200 on every row (pinned: a regression fails).
const PASSING: &[&str] = &[
    "abs_f32", "abs_ftz_f32", "add_rm", "add_rn", "add_rn_ftz", "add_rn_sat", "add_rp", "add_rz",
    "add_rz_ftz", "add_s32", "add_sat_s32", "bfe_s32", "bfe_u32", "bfi_b32", "brev_b32", "clz_b32",
    "cos_approx", "cvt_f32_f16", "cvt_rm_f16_f32", "cvt_rm_f32_s32", "cvt_rmi_s32", "cvt_rn_f16_f32",
    "cvt_rn_f32_s32", "cvt_rn_f32_u32", "cvt_rni_s32", "cvt_rni_u32", "cvt_rp_f16_f32", "cvt_rp_f32_s32",
    "cvt_rpi_s32", "cvt_rz_f16_f32", "cvt_rz_f32_s32", "cvt_rz_f32_u32", "cvt_rzi_s32", "cvt_rzi_u32",
    "dadd_rm", "dadd_rn", "dadd_rp", "dadd_rz", "ddiv_rn", "dfma_rm", "dfma_rn", "div_approx", "div_full",
    "div_rz", "dmin", "dmul_rn", "dmul_rz", "div_rn", "ex2_approx", "ex2_approx_ftz", "fma_rm", "fma_rm_ftz", "fma_rn",
    "fma_rn_ftz", "fma_rn_sat", "fma_rp", "fma_rz", "ftz_f32", "lg2_approx", "lop3_96", "lop3_e8",
    "mad_hi_u32", "mad_lo_s32", "max_f32", "max_u32", "min_f32", "min_ftz_f32", "min_s32", "mul_hi_s32",
    "mul_hi_u32", "mul_lo_s32", "mul_rm", "mul_rn", "mul_rn_ftz", "mul_rn_sat", "mul_rp", "mul_rz",
    "mul_rz_ftz_sat", "neg_f32", "not_b32", "popc_b32", "prmt_b32", "prmt_f4e", "prmt_rc16", "rcp_approx",
    "rcp_approx_ftz", "rcp_rn", "rcp_rz", "rmi_f32", "rni_f32", "rpi_f32", "rsqrt_approx", "rzi_f32",
    "sat_f32", "setp_eq", "setp_equ", "setp_ge", "setp_geu", "setp_gt", "setp_le", "setp_lt", "setp_ltu",
    "setp_nan", "setp_ne", "setp_neu", "setp_num", "shf_l_wrap", "shf_r_clamp", "shf_r_wrap", "shfl_bfly",
    "shfl_down", "shfl_idx", "shfl_idx_seg8", "shfl_up", "shl_b32", "shr_s32", "shr_u32", "sin_approx",
    "sqrt_approx", "sqrt_rn", "sqrt_rp", "sub_rm", "sub_rn", "sub_s32", "vote_ballot",
];

#[test]
fn sm50_capture_kernels_compute_what_the_h200_computed() {
    let lay = Layout { ntid: 0x8, nctaid: 0x14, stack: 0x20, params: 0x140 };
    let (passing, report) = check_cubin("fixtures/hw/capture.sm50.cubin", &lay, |code| lift(Isa::Sm50, code, 0, &Options::default()));
    eprintln!("{} ops pass: {}", passing.len(), passing.join(" "));
    eprintln!("{}", report.join("\n"));
    let lost: Vec<&&str> = PASSING.iter().filter(|p| !passing.iter().any(|x| x == **p)).collect();
    assert!(lost.is_empty(), "pinned ops no longer pass: {lost:?}");
    assert_eq!(passing.len(), PASSING.len(), "more ops pass: pin them");
}
