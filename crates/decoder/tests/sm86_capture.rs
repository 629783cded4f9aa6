//! The H200 capture kernels (fixtures/hw/capture.cu built for sm_86 by ptxas 12.9:
//! fixtures/hw/capture.sm86.cubin), each kernel `k_<op>` lifted whole by the sm_86 lifter and
//! run by the interpreter as capture.cu launches it (blocks of 128 threads over the 1024 rows;
//! parameters `in`, `out`, `n` in constant bank 0 at 0x160), its output words compared with the
//! H200's (fixtures/hw/ptx_ops_sm90_seed1.txt.gz): bit for bit, or for the approximate ops
//! within the bound hw_ptx.rs documents. Kernels whose control flow the lifter does not take
//! yet (calls, BSSY / BSYNC, warp shuffles) are listed, not failed; the ops that pass are pinned.

use flate2::read::GzDecoder;
use isabridge_decoder::lift::sm86::{lift, Options, SystemValue};
use isabridge_decoder::Isa;
use isabridge_ir::interp::{run, Config, Input, Memory};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

struct Row {
    a: u32,
    b: u32,
    c: u32,
    r0: u32,
    r1: u32,
}

fn rows() -> BTreeMap<String, Vec<Row>> {
    let f = std::fs::File::open(root().join("fixtures/hw/ptx_ops_sm90_seed1.txt.gz")).unwrap();
    let mut s = String::new();
    GzDecoder::new(f).read_to_string(&mut s).unwrap();
    let mut m: BTreeMap<String, Vec<Row>> = BTreeMap::new();
    for line in s.lines().filter(|l| !l.starts_with('#')) {
        let p: Vec<&str> = line.split_whitespace().collect();
        let h = |i: usize| u32::from_str_radix(p[i], 16).unwrap();
        m.entry(p[0].to_string()).or_default().push(Row { a: h(1), b: h(2), c: h(3), r0: h(4), r1: h(5) });
    }
    m
}

use isabridge_ir::accuracy::{error, PTX_APPROX as APPROX};

const IN: u64 = 0x1_0000_0000;
const OUT: u64 = 0x2_0000_0000;
const BLOCK: u32 = 128;

/// Run kernel code over the rows; the output words, or why it could not run.
fn run_kernel(code: &[u8], rows: &[Row]) -> Result<Vec<u32>, String> {
    let f = lift(Isa::Sm86, code, 0, &Options::default()).map_err(|e| e.to_string())?;
    let n = rows.len() as u32;
    let mut cb0 = vec![0u8; 0x200];
    let put = |cb: &mut Vec<u8>, at: usize, v: &[u8]| cb[at..at + v.len()].copy_from_slice(v);
    put(&mut cb0, 0x0, &BLOCK.to_le_bytes()); // ntid.x
    put(&mut cb0, 0x4, &1u32.to_le_bytes());
    put(&mut cb0, 0x8, &1u32.to_le_bytes());
    put(&mut cb0, 0xc, &n.div_ceil(BLOCK).to_le_bytes()); // nctaid.x
    put(&mut cb0, 0x10, &1u32.to_le_bytes());
    put(&mut cb0, 0x14, &1u32.to_le_bytes());
    put(&mut cb0, 0x160, &IN.to_le_bytes());
    put(&mut cb0, 0x168, &OUT.to_le_bytes());
    put(&mut cb0, 0x170, &n.to_le_bytes());
    let input: Vec<u8> = rows.iter().flat_map(|r| [r.a, r.b, r.c]).flat_map(|w| w.to_le_bytes()).collect();
    let mut mem = Memory { global: vec![(IN, input), (OUT, vec![0; rows.len() * 8])], constant: vec![cb0], shared: vec![] };
    let cfg = Config { wave_size: 32, waves: BLOCK / 32, scratch_bytes: 1024, ..Config::default() };
    for block in 0..n.div_ceil(BLOCK) {
        let mut inputs: Vec<Input> = SystemValue::ALL.iter().map(|_| Input::Uniform(0)).collect();
        inputs[SystemValue::TidX.param() as usize] = Input::PerLane((0..BLOCK as u64).collect());
        inputs[SystemValue::CtaidX.param() as usize] = Input::Uniform(block as u64);
        let o = run(&f, &cfg, &inputs, mem).map_err(|e| e.to_string())?;
        mem = o.memory;
    }
    let out = &mem.global.iter().find(|(b, _)| *b == OUT).unwrap().1;
    Ok(out.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect())
}

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
    let cubin = std::fs::read(root().join("fixtures/hw/capture.sm86.cubin")).unwrap();
    let (isa, sections) = isabridge_decoder::elf::parse(&cubin).unwrap();
    assert_eq!(isa, Isa::Sm86);
    let rows = rows();
    let mut passing = Vec::new();
    let mut report = Vec::new();
    for (op, rs) in &rows {
        let suffix = format!("k_{op}PK3RowPji");
        let Some(sec) = sections.iter().find(|s| s.name.ends_with(&suffix) && s.name[..s.name.len() - suffix.len()].ends_with(|c: char| c.is_ascii_digit())) else {
            continue; // absent for sm_86 (fixtures/hw/capture.sm86.absent)
        };
        let out = match run_kernel(sec.data, rs) {
            Ok(o) => o,
            Err(e) => {
                report.push(format!("{op}: {e}"));
                continue;
            }
        };
        let approx = APPROX.iter().find(|x| x.0 == op);
        let mut bad = 0;
        let mut first = None;
        for (i, r) in rs.iter().enumerate() {
            let (g0, g1) = (out[2 * i], out[2 * i + 1]);
            let ok = match approx {
                Some(&(_, m, bound)) => g1 == r.r1 && error(m, r.r0, g0).is_some_and(|e| e <= bound),
                None => (g0, g1) == (r.r0, r.r1),
            };
            if !ok {
                bad += 1;
                first.get_or_insert(format!("{:08x} {:08x} {:08x}: hw {:08x} {:08x} got {:08x} {:08x}", r.a, r.b, r.c, r.r0, r.r1, g0, g1));
            }
        }
        if bad == 0 {
            passing.push(op.clone());
        } else {
            report.push(format!("{op}: {bad} rows differ, first {}", first.unwrap_or_default()));
        }
    }
    eprintln!("{} ops pass: {}", passing.len(), passing.join(" "));
    eprintln!("{}", report.join("\n"));
    let lost: Vec<&&str> = PASSING.iter().filter(|p| !passing.iter().any(|x| x == **p)).collect();
    assert!(lost.is_empty(), "pinned ops no longer pass: {lost:?}");
    assert_eq!(passing.len(), PASSING.len(), "more ops pass: pin them");
}
