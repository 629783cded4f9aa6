//! The H200 capture kernels (fixtures/hw/capture.cu built for sm_86 by ptxas 12.9:
//! fixtures/hw/capture.sm86.cubin), each kernel `k_<op>` lifted whole by the sm_86 lifter and
//! run by the interpreter as capture.cu launches it (tests/common/nv_capture.rs: blocks of 128
//! threads over the 1024 rows; sm_86 code reads ntid.x at c[0x0][0x0], nctaid.x at c[0x0][0xc],
//! the stack top at c[0x0][0x28] and the parameters `in`, `out`, `n` from c[0x0][0x160]), its
//! output words compared with the H200's (fixtures/hw/ptx_ops_sm90_seed1.txt.gz): bit for bit,
//! or for the approximate ops within the bound `isabridge_ir::accuracy` documents. The ops that
//! pass are pinned.

#[path = "common/nv_capture.rs"]
mod nv_capture;

use isabridge_decoder::lift::sm86::{lift, Options};
use isabridge_decoder::Isa;
use nv_capture::{check_cubin, Layout};

/// The ops whose kernels lift and equal the H200 on every row (pinned: a regression fails).
const PASSING: &[&str] = &[
    "rcp_rn", "rcp_rz", "sqrt_rn", "sqrt_rp", "div_rn", "div_rz", "ddiv_rn",
    "abs_f32", "abs_ftz_f32", "add_f16x2", "add_ftz_f16x2", "add_rm", "add_rn", "add_rn_ftz",
    "add_rn_sat", "add_rp", "add_rz", "add_rz_ftz", "add_s32", "add_sat_s32", "bfe_s32", "bfe_u32",
    "bfi_b32", "brev_b32", "clz_b32", "cos_approx", "cvt_f32_bf16", "cvt_f32_f16", "cvt_rm_f16_f32",
    "cvt_rm_f32_s32", "cvt_rmi_s32", "cvt_rn_bf16_f32", "cvt_rn_f16_f32", "cvt_rn_f32_s32",
    "cvt_rn_f32_u32", "cvt_rni_s32", "cvt_rni_u32", "cvt_rp_f16_f32", "cvt_rp_f32_s32",
    "cvt_rpi_s32", "cvt_rz_bf16_f32", "cvt_rz_f16_f32", "cvt_rz_f32_s32", "cvt_rz_f32_u32",
    "cvt_rzi_s32", "cvt_rzi_u32", "dadd_rm", "dadd_rn", "dadd_rp", "dadd_rz", "dfma_rm", "dfma_rn",
    "div_approx", "div_full", "dmin", "dmul_rn", "dmul_rz", "dp2a_lo_s32", "dp4a_s32", "dp4a_u32",
    "ex2_approx", "ex2_approx_ftz", "fma_bf16x2", "fma_relu_f16x2", "fma_rm", "fma_rm_ftz",
    "fma_rn", "fma_rn_f16x2", "fma_rn_ftz", "fma_rn_sat", "fma_rp", "fma_rz", "ftz_f32",
    "lg2_approx", "lop3_96", "lop3_e8", "mad_hi_u32", "mad_lo_s32", "max_f32", "max_nan_f16x2",
    "max_nan_f32", "max_u32", "min_f16x2", "min_f32", "min_ftz_f32", "min_nan_f32", "min_s32",
    "mul_hi_s32", "mul_hi_u32", "mul_lo_s32", "mul_rm", "mul_rn", "mul_rn_f16x2", "mul_rn_ftz",
    "mul_rn_sat", "mul_rp", "mul_rz", "mul_rz_ftz_sat", "neg_f32", "not_b32", "popc_b32",
    "prmt_b32", "prmt_f4e", "prmt_rc16", "rcp_approx", "rcp_approx_ftz", "rmi_f32", "rni_f32",
    "rpi_f32", "rsqrt_approx", "rzi_f32", "sat_f32", "setp_eq", "setp_equ", "setp_ge", "setp_geu",
    "setp_gt", "setp_le", "setp_lt", "setp_ltu", "setp_nan", "setp_ne", "setp_neu", "setp_num",
    "shf_l_wrap", "shf_r_clamp", "shf_r_wrap", "shfl_bfly", "shfl_down", "shfl_idx",
    "shfl_idx_seg8", "shfl_up", "shl_b32", "shr_s32", "shr_u32", "sin_approx", "sqrt_approx",
    "sub_rm", "sub_rn", "sub_s32", "tanh_approx", "vote_ballot",
];

#[test]
fn capture_kernels_compute_what_the_h200_computed() {
    let lay = Layout { ntid: 0x0, nctaid: 0xc, stack: 0x28, params: 0x160 };
    let (passing, report) = check_cubin("fixtures/hw/capture.sm86.cubin", &lay, |code| lift(Isa::Sm86, code, 0, &Options::default()));
    eprintln!("{} ops pass: {}", passing.len(), passing.join(" "));
    eprintln!("{}", report.join("\n"));
    let lost: Vec<&&str> = PASSING.iter().filter(|p| !passing.iter().any(|x| x == **p)).collect();
    assert!(lost.is_empty(), "pinned ops no longer pass: {lost:?}");
    assert_eq!(passing.len(), PASSING.len(), "more ops pass: pin them");
}
