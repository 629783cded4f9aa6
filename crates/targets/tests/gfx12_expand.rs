//! gfx1013 -> gfx1201 expansions proven on the interpreter: a gfx1013 program (per-lane inputs
//! written with `v_writelane_b32`, the instruction under test, `s_endpgm`) and its translation
//! ([`translate_inst_in`] of every instruction, placed) are lifted by the AMD lifter and run;
//! the final values of the destination (and of every temporary-free register the test names)
//! must be equal in every lane. The gfx1201 run gets the gfx1013 MODE with DX10_CLAMP and IEEE
//! cleared, as the converted kernel descriptor gives it (descriptor.rs). Each test also shows
//! that the plain one-instruction rename differs on some lane, so the inputs reach the rule the
//! expansion exists for. The instruction's words are llvm-mc-22 -mcpu=gfx1013's encoding of the
//! listed text; the gfx1201 control is llvm-mc-22 -mcpu=gfx1201's.

use isabridge_decoder::amd::GFX10;
use isabridge_decoder::lift::amd::{lift, Options};
use isabridge_decoder::{Isa, IsaPlugin};
use isabridge_ir::interp::{self, Config, Input, Memory};
use isabridge_ir::ir::{Function, Terminator};
use isabridge_ir::Builder;
use isabridge_targets::gfx12::expand::ExpandCx;
use isabridge_targets::gfx12::layout::place;
use isabridge_targets::gfx12::{translate_inst_in, TranslatedInst};
use std::process::Command;

/// Temporaries far above the registers the tests name.
const TEMP_VGPR: u16 = 200;
const TEMP_SGPR: u16 = 100;

/// MODE with f32 denormals flushed, f16/f64 kept, DX10_CLAMP (the lifter's default), and
/// with every denormal kept.
const MODES: [u32; 2] = [0xc0 | 1 << 8, 0xf0 | 1 << 8];
const IEEE: u32 = 1 << 9;

/// llvm-mc-22's encoding of `text` (one instruction a line).
fn asm(mcpu: &str, text: &str) -> Vec<u8> {
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!("echo '{text}' | llvm-mc-22 -triple=amdgcn -mcpu={mcpu} -show-encoding"))
        .output()
        .expect("llvm-mc-22 runs");
    let s = String::from_utf8_lossy(&o.stdout);
    let encs: Vec<&str> = s.split("encoding: [").skip(1).collect();
    assert!(
        encs.len() == text.lines().count() && o.stderr.is_empty(),
        "llvm-mc-22 {mcpu} rejects `{text}`: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    encs.iter()
        .flat_map(|enc| enc.split(']').next().unwrap().split(',').map(|x| u8::from_str_radix(x.trim().trim_start_matches("0x"), 16).unwrap()))
        .collect()
}

/// `v_writelane_b32 v<reg>, <value>, <lane>` (gfx1013 VOP3 0x361 with a literal).
fn writelane(reg: u16, value: u32, lane: u32) -> [u32; 3] {
    [0xd761_0000 | reg as u32, 0xff | (128 + lane) << 9, value]
}

const S_ENDPGM: u32 = 0xbf81_0000;

fn words(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Make every return give the final values of the named registers.
fn return_regs(f: &mut Function, names: &[String]) {
    let regs: Vec<_> = names
        .iter()
        .map(|n| isabridge_ir::ir::Reg(f.regs.iter().position(|r| r.name == *n).unwrap_or_else(|| panic!("register {n}")) as u32))
        .collect();
    let exits: Vec<_> = f.layout.iter().copied().filter(|b| matches!(f.blocks[*b].term, Terminator::Return(_))).collect();
    for b in exits {
        let vals: Vec<_> = regs.iter().map(|r| Builder::new(f, b).read_reg(*r)).collect();
        f.blocks[b].term = Terminator::Return(vals);
    }
}

fn run(isa: Isa, code: &[u8], wave64: bool, mode: u32, outs: &[String]) -> Vec<Vec<u64>> {
    let opts = Options { wave64, mode, ..Options::default() };
    let mut f = lift(isa, code, 0, &opts).unwrap_or_else(|e| panic!("{isa:?} lifts: {e}"));
    return_regs(&mut f, outs);
    let n = if wave64 { 64 } else { 32 };
    let cfg = Config { wave_size: n, waves: 1, ..Config::default() };
    interp::run(&f, &cfg, &[Input::PerLane((0..n as u64).collect())], Memory::default()).expect("runs").outputs
}

/// One differential case: the gfx1013 instruction `text`, its source VGPRs (first register of
/// each 32-bit part), the destination's registers, and the gfx1201 control instruction.
struct Case<'a> {
    text: &'a str,
    srcs: &'a [u16],
    dst: &'a [u16],
    control: &'a str,
    /// An SGPR the instruction reads: each run sets it to the next of [`F32`].
    sgpr: Option<u16>,
    /// The gfx1201 run gets the gfx1013 MODE unchanged (IEEE and DX10_CLAMP kept). For
    /// sequences with gfx1201 float arithmetic inside an expansion (SDWA forms, `v_mad_f32` as
    /// `v_mul_f32` + `v_add_f32`), whose signalling NaNs no quieting after the instruction
    /// reaches (quiet.rs covers whole instructions); a clamp is done by integer ops
    /// (expand_outmods.rs) either way. The min / max and clamp sequences run under the
    /// converted MODE.
    arith: bool,
}



/// Runs `case` on every row of `rows` (one value per source register), `lanes` rows per run,
/// in wave32 and wave64, under each MODE with IEEE clear and set. Returns the rows on which
/// the control differed from gfx1013.
fn check(case: &Case, rows: &[Vec<u32>]) -> usize {
    check_in(case, rows, &MODES)
}

/// [`check`] under the base MODEs `modes` (each with IEEE clear and set).
fn check_in(case: &Case, rows: &[Vec<u32>], modes: &[u32]) -> usize {
    let op10 = asm("gfx1013", case.text);
    // No control where the gfx1201 form does not lift (an empty `control`).
    let control = if case.control.is_empty() { Vec::new() } else { asm("gfx1201", case.control) };
    let outs: Vec<String> = case.dst.iter().map(|r| format!("v{r}")).collect();
    let mut control_differs = 0;
    for wave64 in [false, true] {
        let n = if wave64 { 64 } else { 32 };
        for &base_mode in modes {
            for ieee in [false, true] {
                let mode = base_mode | if ieee { IEEE } else { 0 };
                let cx = ExpandCx { wave64, ieee: Some(ieee), dx10_clamp: Some(mode >> 8 & 1 != 0), vgprs: Some(TEMP_VGPR), sgprs: Some(TEMP_SGPR) };
                for (c, chunk) in rows.chunks(n).enumerate() {
                    let mut w = Vec::new();
                    if let Some(sr) = case.sgpr {
                        // s_mov_b32 s<sr>, <literal> (SOP1 opcode 3).
                        w.extend([0xbe80_03ff | (sr as u32) << 16, F32[c % F32.len()]]);
                    }
                    for (lane, row) in chunk.iter().enumerate() {
                        for (k, &r) in case.srcs.iter().enumerate() {
                            w.extend(writelane(r, row[k], lane as u32));
                        }
                    }
                    let prologue = words(&w);
                    let code10 = [prologue.clone(), op10.clone(), words(&[S_ENDPGM])].concat();
                    // Translate every instruction.
                    let mut t = Vec::new();
                    let mut off = 0usize;
                    while off < code10.len() {
                        let d = GFX10.decode(&code10[off..], off as u64).unwrap();
                        let i = GFX10.operands(&d, off as u64);
                        let v: Vec<TranslatedInst> = translate_inst_in(&i, &cx).unwrap_or_else(|e| panic!("{}: {e}", case.text));
                        t.extend(v);
                        off += d.len as usize;
                    }
                    let code12 = place(&t, 0).expect("places").code;
                    let mode12 = if case.arith { mode } else { mode & !(IEEE | 1 << 8) };
                    let r10 = run(Isa::Gfx1013, &code10, wave64, mode, &outs);
                    let r12 = run(Isa::Gfx1201, &code12, wave64, mode12, &outs);
                    for (lane, row) in chunk.iter().enumerate() {
                        assert_eq!(
                            r12[lane], r10[lane],
                            "`{}` wave64 {wave64} MODE {mode:#x}: lane {lane} inputs {row:08x?}: gfx1201 {:08x?}, gfx1013 {:08x?}",
                            case.text, r12[lane], r10[lane]
                        );
                    }
                    // The control: the prologue's translation, then the rename alone.
                    if control.is_empty() {
                        continue;
                    }
                    let n_pro = t.iter().position(|x| x.src_addr >= prologue.len() as u64).unwrap_or(t.len());
                    let codec = [place(&t[..n_pro], 0).expect("places").code, control.clone(), words(&[0xbfb0_0000])].concat();
                    let rc = run(Isa::Gfx1201, &codec, wave64, mode12, &outs);
                    control_differs += (0..chunk.len()).filter(|&l| rc[l] != r10[l]).count();
                }
            }
        }
    }
    control_differs
}

/// f32 values: signalling and quiet NaNs of both signs and payloads, zeros, denormals,
/// infinities, normal numbers.
const F32: [u32; 16] = [
    0x7f80_0001, 0xff80_0001, 0x7fa0_0000, 0x7fc0_0000, 0xffc0_0001, 0x7fc1_2345, 0x0000_0000, 0x8000_0000, 0x0000_0001,
    0x8000_0001, 0x007f_ffff, 0x3f80_0000, 0xbf80_0000, 0x7f80_0000, 0xff80_0000, 0x7f7f_ffff,
];

/// Every pair of `vals`.
fn pairs(vals: &[u32]) -> Vec<Vec<u32>> {
    vals.iter().flat_map(|&a| vals.iter().map(move |&b| vec![a, b])).collect()
}

/// Every triple of `vals`.
fn triples(vals: &[u32]) -> Vec<Vec<u32>> {
    vals.iter().flat_map(|&a| vals.iter().flat_map(move |&b| vals.iter().map(move |&c| vec![a, b, c]))).collect()
}

#[test]
fn min_max_f32_equal_gfx1013() {
    let rows = pairs(&F32);
    for (text, control) in [
        ("v_min_f32_e32 v20, v10, v11", "v_min_num_f32_e32 v20, v10, v11"),
        ("v_max_f32_e32 v20, v10, v11", "v_max_num_f32_e32 v20, v10, v11"),
        ("v_max_f32_e32 v10, v10, v11", "v_max_num_f32_e32 v10, v10, v11"),
        ("v_min_f32_e32 v11, v10, v11", "v_min_num_f32_e32 v11, v10, v11"),
        ("v_max_f32_e32 v20, v10, v10", "v_max_num_f32_e32 v20, v10, v10"),
        ("v_min_f32_e64 v20, -v10, |v11|", "v_min_num_f32_e64 v20, -v10, |v11|"),
        ("v_max_f32_e64 v20, |v11|, -v10", "v_max_num_f32_e64 v20, |v11|, -v10"),
        ("v_min_f32_e32 v20, 0x7f800001, v11", "v_min_num_f32_e32 v20, 0x7f800001, v11"),
        ("v_max_f32_e64 v20, v10, 0x7fc00000", "v_max_num_f32_e64 v20, v10, 0x7fc00000"),
        ("v_min_f32_e64 v20, v11, 1.0", "v_min_num_f32_e64 v20, v11, 1.0"),
    ] {
        let dst: u16 = text.split_whitespace().nth(1).unwrap().trim_start_matches('v').trim_end_matches(',').parse().unwrap();
        let differs = check(&Case { text, srcs: &[10, 11], dst: &[dst], control, sgpr: None, arith: false }, &rows);
        if !text.contains("1.0") {
            assert!(differs > 0, "`{text}`: the plain rename equals gfx1013 on every lane");
        }
    }
    // Scalar sources (the corpus's `v_max_f32_e64 v3, s7, s7`), one value per run.
    for (text, control) in [
        ("v_max_f32_e64 v20, s7, s7", "v_max_num_f32_e64 v20, s7, s7"),
        ("v_min_f32_e64 v20, s7, v11", "v_min_num_f32_e64 v20, s7, v11"),
        ("v_min_f32_e64 v20, -s7, 0x7f800001", "v_min_num_f32_e64 v20, -s7, 0x7f800001"),
        ("v_max_f32_e64 v20, s7, vcc_lo", "v_max_num_f32_e64 v20, s7, vcc_lo"),
    ] {
        let differs = check(&Case { text, srcs: &[10, 11], dst: &[20], control, sgpr: Some(7), arith: false }, &rows);
        assert!(differs > 0, "`{text}`: the plain rename equals gfx1013 on every lane");
    }
}

#[test]
fn min_max_f64_equal_gfx1013() {
    let f64s: [u64; 12] = [
        0x7ff0_0000_0000_0001, 0xfff0_0000_0000_0001, 0x7ff4_0000_0000_0000, 0x7ff8_0000_0000_0000, 0xfff8_0000_0000_1234,
        0, 0x8000_0000_0000_0000, 1, 0x8000_0000_0000_0001, 0x3ff0_0000_0000_0000, 0x7ff0_0000_0000_0000, 0xfff0_0000_0000_0000,
    ];
    let rows: Vec<Vec<u32>> = f64s
        .iter()
        .flat_map(|&a| f64s.iter().map(move |&b| vec![a as u32, (a >> 32) as u32, b as u32, (b >> 32) as u32]))
        .collect();
    for (text, control) in [
        ("v_min_f64 v[20:21], v[10:11], v[12:13]", "v_min_num_f64_e32 v[20:21], v[10:11], v[12:13]"),
        ("v_max_f64 v[20:21], v[10:11], v[12:13]", "v_max_num_f64_e32 v[20:21], v[10:11], v[12:13]"),
        ("v_max_f64 v[10:11], v[10:11], v[10:11]", "v_max_num_f64_e32 v[10:11], v[10:11], v[10:11]"),
        ("v_min_f64 v[12:13], -v[10:11], |v[12:13]|", "v_min_num_f64_e64 v[12:13], -v[10:11], |v[12:13]|"),
    ] {
        let d = text.split_whitespace().nth(1).unwrap();
        let first: u16 = d.trim_start_matches("v[").split(':').next().unwrap().parse().unwrap();
        let differs = check(&Case { text, srcs: &[10, 11, 12, 13], dst: &[first, first + 1], control, sgpr: None, arith: false }, &rows);
        // max(x, x) quiets a signalling NaN in both (the IEEE rule is gfx1013's for f64).
        if !text.contains("v[10:11], v[10:11]") {
            assert!(differs > 0, "`{text}`: the plain rename equals gfx1013 on every lane");
        }
    }
}

#[test]
fn min3_max3_med3_f32_equal_gfx1013() {
    let vals = [0x7f80_0001, 0xffa0_0000, 0x7fc0_0000, 0xffc0_0001, 0x0000_0000, 0x8000_0000, 0x0000_0001, 0x3f80_0000, 0xbf80_0000, 0x7f80_0000];
    let rows = triples(&vals);
    for (text, control) in [
        ("v_min3_f32 v20, v10, v11, v12", "v_min3_num_f32 v20, v10, v11, v12"),
        ("v_max3_f32 v20, v10, -v11, |v12|", "v_max3_num_f32 v20, v10, -v11, |v12|"),
        ("v_med3_f32 v20, v10, v11, v12", "v_med3_num_f32 v20, v10, v11, v12"),
        ("v_med3_f32 v11, v10, v11, 1.0", "v_med3_num_f32 v11, v10, v11, 1.0"),
        ("v_med3_f32 v12, -v10, v11, |v12|", "v_med3_num_f32 v12, -v10, v11, |v12|"),
    ] {
        let dst: u16 = text.split_whitespace().nth(1).unwrap().trim_start_matches('v').trim_end_matches(',').parse().unwrap();
        let differs = check(&Case { text, srcs: &[10, 11, 12], dst: &[dst], control, sgpr: None, arith: false }, &rows);
        assert!(differs > 0, "`{text}`: the plain rename equals gfx1013 on every lane");
    }
}

/// f32 values for arithmetic: NaNs, zeros, denormals (results of products of small numbers
/// land there), infinities, and numbers whose products round differently fused and unfused.
const F32_ARITH: [u32; 16] = [
    0x7f80_0001, 0x7fc0_0000, 0xffc0_0001, 0x0000_0000, 0x8000_0000, 0x0000_0001, 0x8040_0000, 0x1f80_0001, 0x2000_0001,
    0x3f80_0001, 0xbf7f_ffff, 0x3eaa_aaab, 0x4040_0000, 0x7f80_0000, 0xff80_0000, 0x7f7f_ffff,
];

#[test]
fn mad_mac_madak_madmk_equal_gfx1013() {
    let rows = triples(&F32_ARITH[..10]);
    for (text, srcs, dst, control) in [
        ("v_mad_f32 v20, v10, v11, v12", &[10u16, 11, 12][..], 20u16, "v_fma_f32 v20, v10, v11, v12"),
        ("v_mad_f32 v12, -v10, v11, v12", &[10, 11, 12], 12, "v_fma_f32 v12, -v10, v11, v12"),
        ("v_mad_f32 v10, v10, -|v11|, -v12 clamp", &[10, 11, 12], 10, "v_fma_f32 v10, v10, -|v11|, -v12 clamp"),
        ("v_mad_f32 v20, v10, v11, v12 mul:2", &[10, 11, 12], 20, "v_fma_f32 v20, v10, v11, v12 mul:2"),
        ("v_mac_f32_e32 v12, v10, v11", &[10, 11, 12], 12, "v_fmac_f32_e32 v12, v10, v11"),
        ("v_mac_f32_e64 v12, v10, -v11", &[10, 11, 12], 12, "v_fmac_f32_e64 v12, v10, -v11"),
        ("v_madmk_f32 v20, v10, 0x3eaaaaab, v12", &[10, 12], 20, "v_fmamk_f32 v20, v10, 0x3eaaaaab, v12"),
        ("v_madak_f32 v20, v10, v11, 0xbf800002", &[10, 11], 20, "v_fmaak_f32 v20, v10, v11, 0xbf800002"),
        ("v_mad_legacy_f32 v20, v10, v11, v12", &[10, 11, 12], 20, "v_fma_f32 v20, v10, v11, v12"),
        ("v_mac_legacy_f32_e32 v12, v10, v11", &[10, 11, 12], 12, "v_fmac_f32_e32 v12, v10, v11"),
    ] {
        let rows: Vec<Vec<u32>> = rows.iter().map(|r| r[..srcs.len()].to_vec()).collect();
        let differs = check(&Case { text, srcs, dst: &[dst], control, sgpr: None, arith: true }, &rows);
        assert!(differs > 0, "`{text}`: the fused form equals gfx1013 on every lane");
    }
}

/// f16 values in the low half (signalling and quiet NaNs of both signs, zeros, denormals,
/// infinities, numbers), each with a high half the f16 ops must leave alone.
const F16: [u32; 12] = [
    0xabcd_7c01, 0x0000_fd23, 0x1234_7e00, 0xffff_fe01, 0x8000_0000, 0x0001_8000, 0x7c01_0001, 0x0000_8001, 0x5555_3c00,
    0x0000_bc00, 0xaaaa_7c00, 0x0000_fc00,
];

#[test]
fn min_max_f16_equal_gfx1013() {
    let rows = pairs(&F16);
    for (text, control) in [
        ("v_min_f16_e32 v20, v10, v11", "v_min_num_f16_e32 v20, v10, v11"),
        ("v_max_f16_e32 v20, v10, v11", "v_max_num_f16_e32 v20, v10, v11"),
        ("v_min_f16_e32 v11, v10, v11", "v_min_num_f16_e32 v11, v10, v11"),
        ("v_max_f16_e64 v10, -v10, |v11|", "v_max_num_f16_e64 v10, -v10, |v11|"),
        ("v_min_f16_e64 v20, v10, 1.0", "v_min_num_f16_e64 v20, v10, 1.0"),
        ("v_max_f16_e32 v20, 0x7c01, v11", "v_max_num_f16_e32 v20, 0x7c01, v11"),
    ] {
        let dst: u16 = text.split_whitespace().nth(1).unwrap().trim_start_matches('v').trim_end_matches(',').parse().unwrap();
        let differs = check(&Case { text, srcs: &[10, 11], dst: &[dst], control, sgpr: None, arith: false }, &rows);
        assert!(differs > 0, "`{text}`: the plain rename equals gfx1013 on every lane");
    }
    let rows = triples(&F16[..8]);
    for (text, control) in [
        ("v_min3_f16 v20, v10, v11, v12", "v_min3_num_f16 v20, v10, v11, v12"),
        ("v_max3_f16 v12, v10, -v11, v12", "v_max3_num_f16 v12, v10, -v11, v12"),
        ("v_med3_f16 v20, v10, v11, v12", "v_med3_num_f16 v20, v10, v11, v12"),
    ] {
        let dst: u16 = text.split_whitespace().nth(1).unwrap().trim_start_matches('v').trim_end_matches(',').parse().unwrap();
        let differs = check(&Case { text, srcs: &[10, 11, 12], dst: &[dst], control, sgpr: None, arith: false }, &rows);
        assert!(differs > 0, "`{text}`: the plain rename equals gfx1013 on every lane");
    }
}

#[test]
fn min_max_output_modifier_equal_gfx1013() {
    // gfx1013 ignores the output modifier with IEEE set and applies it (f32 denormals flushed)
    // with IEEE clear; the rename applies it whenever the flush allows.
    let rows = pairs(&F32);
    for (text, control) in [
        ("v_min_f32_e64 v20, v10, v11 mul:2", "v_min_num_f32_e64 v20, v10, v11 mul:2"),
        ("v_max3_f32 v20, v10, v11, v12 div:2", "v_max3_num_f32 v20, v10, v11, v12 div:2"),
        ("v_med3_f32 v20, v10, v11, v12 mul:4", "v_med3_num_f32 v20, v10, v11, v12 mul:4"),
    ] {
        let rows: Vec<Vec<u32>> = if text.contains("v12") { triples(&F32[..8]) } else { rows.clone() };
        let srcs: &[u16] = if text.contains("v12") { &[10, 11, 12] } else { &[10, 11] };
        let differs = check(&Case { text, srcs, dst: &[20], control, sgpr: None, arith: false }, &rows);
        assert!(differs > 0, "`{text}`: the plain rename equals gfx1013 on every lane");
    }
}

#[test]
fn ieee_nan_quieting_equal_gfx1013() {
    // Under the converted descriptor's MODE (no IEEE bit) the re-encoded op keeps a
    // signalling NaN that gfx1013 quiets with IEEE set; the quieting after it (quiet.rs)
    // makes every lane equal, and with IEEE clear nothing is added.
    let rows = pairs(&F32_ARITH);
    for (text, srcs, control) in [
        ("v_add_f32_e32 v20, v10, v11", &[10u16, 11][..], "v_add_f32_e32 v20, v10, v11"),
        ("v_mul_f32_e64 v11, -v10, |v11|", &[10, 11], "v_mul_f32_e64 v11, -v10, |v11|"),
        ("v_fma_f32 v20, v10, v11, v10", &[10, 11], "v_fma_f32 v20, v10, v11, v10"),
        ("v_fract_f32_e32 v20, v10", &[10], "v_fract_f32_e32 v20, v10"),
        ("v_trunc_f32_e32 v10, v10", &[10], "v_trunc_f32_e32 v10, v10"),
        (
            "v_add_f32_dpp v20, v10, v11 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:0",
            &[10, 11],
            "v_add_f32_dpp v20, v10, v11 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1",
        ),
    ] {
        let rows: Vec<Vec<u32>> = rows.iter().map(|r| r[..srcs.len()].to_vec()).collect();
        let dst: u16 = text.split_whitespace().nth(1).unwrap().trim_start_matches('v').trim_end_matches(',').parse().unwrap();
        let differs = check(&Case { text, srcs, dst: &[dst], control, sgpr: None, arith: false }, &rows);
        assert!(differs > 0, "`{text}`: the plain re-encode equals gfx1013 on every lane");
    }
    // Without infinities: an invalid f16 operation gives +qNaN with IEEE set and -qNaN
    // without, which the quieting does not change (quiet.rs, not covered).
    let rows = pairs(&F16[..10]);
    for (text, srcs, control) in [
        ("v_pk_add_f16 v20, v10, v11", &[10u16, 11][..], "v_pk_add_f16 v20, v10, v11"),
        ("v_pk_mul_f16 v20, v10, v11 op_sel:[1,0] neg_lo:[1,0]", &[10, 11], "v_pk_mul_f16 v20, v10, v11 op_sel:[1,0] neg_lo:[1,0]"),
        ("v_fract_f16_e32 v20, v10", &[10], "v_fract_f16_e32 v20, v10"),
        ("v_rndne_f16_e32 v20, v10", &[10], "v_rndne_f16_e32 v20, v10"),
    ] {
        let rows: Vec<Vec<u32>> = rows.iter().map(|r| r[..srcs.len()].to_vec()).collect();
        let differs = check(&Case { text, srcs, dst: &[20], control, sgpr: None, arith: false }, &rows);
        assert!(differs > 0, "`{text}`: the plain re-encode equals gfx1013 on every lane");
    }
}

#[test]
fn min_max_dpp_equal_gfx1013() {
    // The destination starts at 0x12345678 in every lane: lanes the DPP controls leave out
    // (row_shr's first lane of each row without bound_ctrl, rows off in row_mask) keep it.
    let rows: Vec<Vec<u32>> = pairs(&F32).into_iter().map(|r| vec![r[0], r[1], 0x1234_5678]).collect();
    for (text, control) in [
        ("v_max_f32_dpp v20, v10, v11 row_shr:1 row_mask:0xf bank_mask:0xf", "v_max_num_f32_dpp v20, v10, v11 row_shr:1 row_mask:0xf bank_mask:0xf"),
        ("v_min_f32_dpp v20, -v10, |v11| quad_perm:[1,0,3,2] row_mask:0x5 bank_mask:0xf", "v_min_num_f32_dpp v20, -v10, |v11| quad_perm:[1,0,3,2] row_mask:0x5 bank_mask:0xf"),
        ("v_max_f32_dpp v20, v10, v11 row_shl:3 row_mask:0xf bank_mask:0xf bound_ctrl:0", "v_max_num_f32_dpp v20, v10, v11 row_shl:3 row_mask:0xf bank_mask:0xf bound_ctrl:1"),
        ("v_min_f32_dpp v20, v10, v11 dpp8:[7,6,5,4,3,2,1,0]", "v_min_num_f32_dpp v20, v10, v11 dpp8:[7,6,5,4,3,2,1,0]"),
        ("v_max_f16_dpp v20, v10, v11 row_mirror row_mask:0xf bank_mask:0xf", "v_max_num_f16_dpp v20, v10, v11 row_mirror row_mask:0xf bank_mask:0xf"),
    ] {
        let f16: Vec<Vec<u32>> = pairs(&F16).into_iter().map(|r| vec![r[0], r[1], 0x1234_5678]).collect();
        let rows = if text.contains("f16") { &f16 } else { &rows };
        let differs = check(&Case { text, srcs: &[10, 11, 20], dst: &[20], control, sgpr: None, arith: false }, rows);
        assert!(differs > 0, "`{text}`: the plain rename equals gfx1013 on every lane");
    }
}

/// Packed f16 pairs and integers whose bytes and words differ: NaNs, infinities, zeros,
/// denormals and normal numbers in each half, bytes with the sign bit set and clear.
const SUBDWORD: [u32; 12] = [
    0x3c00_bc00, 0x7e00_0001, 0x8000_7c00, 0x1234_5678, 0xffff_0080, 0x0000_ffff, 0x4248_c248, 0xfc01_7bff, 0x0400_83ff,
    0x80ff_7f01, 0xc000_3555, 0x00fe_ff00,
];

/// SDWA forms: the corpus's (selects of sources, dst_sel DWORD with UNUSED_PAD, compares to an
/// SGPR and to VCC, sext) and every destination select and unused mode. A compare's mask is
/// read back with v_cndmask_b32 (the gfx1201 control does the same).
#[test]
fn sdwa_equal_gfx1013() {
    let rows = pairs(&SUBDWORD);
    for (text, control, arith) in [
        (
            "v_add_f16_sdwa v20, v10, v11 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD",
            "v_add_f16_e64 v20, v10, v11",
            true,
        ),
        (
            "v_add_f16_sdwa v11, v10, v11 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:WORD_1",
            "v_add_f16_e64 v11, v10, v11",
            true,
        ),
        (
            "v_cmp_ge_f16_sdwa s4, v10, v11 src0_sel:WORD_1 src1_sel:WORD_1\nv_cndmask_b32_e64 v20, 0, 1, s4",
            "v_cmp_ge_f16_e64 s4, v10, v11\nv_cndmask_b32_e64 v20, 0, 1, s4",
            false,
        ),
        (
            "v_cmp_ge_f16_sdwa vcc_lo, v10, v11 src0_sel:WORD_1 src1_sel:WORD_1\nv_cndmask_b32_e64 v20, 0, 1, vcc_lo",
            "v_cmp_ge_f16_e64 vcc_lo, v10, v11\nv_cndmask_b32_e64 v20, 0, 1, vcc_lo",
            false,
        ),
        (
            "v_cmp_ne_u16_sdwa s4, v10, v11 src0_sel:DWORD src1_sel:BYTE_0\nv_cndmask_b32_e64 v20, 0, 1, s4",
            "v_cmp_ne_u16_e64 s4, v10, v11\nv_cndmask_b32_e64 v20, 0, 1, s4",
            false,
        ),
        (
            "v_cmp_gt_u32_e64 vcc_lo, v10, v11\nv_cndmask_b32_sdwa v20, v10, v11, vcc_lo dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:WORD_1",
            "v_cmp_gt_u32_e64 vcc_lo, v10, v11\nv_cndmask_b32_e64 v20, v10, v11, vcc_lo",
            false,
        ),
        (
            "v_cvt_f32_f16_sdwa v20, v10 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1",
            "v_cvt_f32_f16_e64 v20, v10",
            true,
        ),
        ("v_cvt_f32_u32_sdwa v10, v10 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_0", "v_cvt_f32_u32_e64 v10, v10", true),
        (
            "v_lshlrev_b32_sdwa v20, v10, v11 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:BYTE_0",
            "v_lshlrev_b32_e64 v20, v10, v11",
            false,
        ),
        (
            "v_mul_i32_i24_sdwa v11, sext(v10), v11 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_0 src1_sel:DWORD",
            "v_mul_i32_i24_e64 v11, v10, v11",
            false,
        ),
        (
            "v_mul_u32_u24_sdwa v20, v10, v11 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_0 src1_sel:DWORD",
            "v_mul_u32_u24_e64 v20, v10, v11",
            false,
        ),
        (
            "v_xor_b32_sdwa v20, v10, v11 dst_sel:BYTE_1 dst_unused:UNUSED_PAD src0_sel:BYTE_3 src1_sel:BYTE_0",
            "v_xor_b32_e64 v20, v10, v11",
            false,
        ),
        (
            "v_mul_i32_i24_sdwa v20, sext(v10), sext(v11) dst_sel:WORD_1 dst_unused:UNUSED_SEXT src0_sel:BYTE_2 src1_sel:WORD_1",
            "v_mul_i32_i24_e64 v20, v10, v11",
            false,
        ),
        (
            "v_mul_f32_sdwa v11, -v10, |v11| clamp dst_sel:BYTE_2 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1 src1_sel:BYTE_0",
            "v_mul_f32_e64 v11, -v10, |v11| clamp",
            true,
        ),
        (
            "v_cvt_f16_f32_sdwa v11, -v10 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:DWORD",
            "v_cvt_f16_f32_e64 v11, -v10",
            true,
        ),
        ("v_cvt_f16_f32_sdwa v11, v10 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD", "v_cvt_f16_f32_e64 v11, v10", true),
    ] {
        let dst: u16 = text.lines().last().unwrap().split_whitespace().nth(1).unwrap().trim_start_matches('v').trim_end_matches(',').parse().unwrap();
        let differs = check(&Case { text, srcs: &[10, 11], dst: &[dst], control, sgpr: None, arith }, &rows);
        assert!(differs > 0, "`{text}`: the op without its selects equals gfx1013 on every lane");
    }
}

/// `s_cmpk_*` as `s_cmp_*` with the constant extended as the gfx1013 form does (sign for
/// `_i32`, zero for `_u32`): SCC is read back with s_cselect_b32 and a move to a VGPR; each run
/// sets s7 to the next of [`F32`] (zeros, signed and unsigned extremes). The control extends
/// the constant the other way, except where both extensions give the same value.
#[test]
fn s_cmpk_equal_gfx1013() {
    let rows = vec![vec![0u32, 0]; 16 * 64];
    let tail = "\ns_cselect_b32 s8, 1, 0\nv_mov_b32_e32 v20, s8";
    for (cmp, control, differs) in [
        ("s_cmpk_lt_i32 s7, 0x8000", "s_cmp_lt_i32 s7, 0x8000", true),
        ("s_cmpk_le_i32 s7, 0xfff0", "s_cmp_le_i32 s7, 0xfff0", true),
        ("s_cmpk_gt_u32 s7, 0xfff0", "s_cmp_gt_u32 s7, -16", true),
        ("s_cmpk_ge_u32 s7, 0x1", "s_cmp_ge_u32 s7, 1", false),
        ("s_cmpk_lg_u32 s7, 0x3e6", "s_cmp_lg_u32 s7, 0x3e6", false),
        ("s_cmpk_eq_i32 s7, 0", "s_cmp_eq_i32 s7, 0", false),
    ] {
        let (text, control) = (format!("{cmp}{tail}"), format!("{control}{tail}"));
        let n = check(&Case { text: &text, srcs: &[10, 11], dst: &[20], control: &control, sgpr: Some(7), arith: false }, &rows);
        assert_eq!(n > 0, differs, "`{cmp}`: the control differs on {n} lanes");
    }
}

/// DPP16 forms gfx1201 has only without DPP (`v_pk_fmac_f16`): quad_perm, a row shift whose
/// first lanes have no source (not written without bound_ctrl, reading 0 with it), and row and
/// bank masks that keep lanes from writing. The control is gfx1201's v_pk_fmac_f16 without DPP.
#[test]
fn dpp16_without_gfx1201_dpp_form_equal_gfx1013() {
    // v10 changes from lane to lane, so that lanes of a row read different sources.
    let rows: Vec<Vec<u32>> = pairs(&SUBDWORD).into_iter().map(|r| vec![r[1], r[0], r[1] ^ 0x0101_0101]).collect();
    for text in [
        "v_pk_fmac_f16_dpp v12, v10, v11 quad_perm:[3,2,0,1] row_mask:0xf bank_mask:0xf",
        "v_pk_fmac_f16_dpp v12, v10, v11 row_shr:1 row_mask:0xf bank_mask:0xf",
        "v_pk_fmac_f16_dpp v12, v10, v11 row_shr:3 row_mask:0xf bank_mask:0xf bound_ctrl:0",
        "v_pk_fmac_f16_dpp v12, v10, v11 quad_perm:[1,0,3,2] row_mask:0x5 bank_mask:0xa",
        "v_pk_fmac_f16_dpp v10, v10, v11 row_ror:5 row_mask:0xe bank_mask:0x7",
    ] {
        let dst: u16 = text.split_whitespace().nth(1).unwrap().trim_start_matches('v').trim_end_matches(',').parse().unwrap();
        let control = format!("v_pk_fmac_f16 v{dst}, v10, v11");
        let differs = check(&Case { text, srcs: &[10, 11, 12], dst: &[dst], control: &control, sgpr: None, arith: true }, &rows);
        assert!(differs > 0, "`{text}`: the op without DPP equals gfx1013 on every lane");
    }
}

#[test]
fn float_clamp_equal_gfx1013() {
    // gfx1013's clamp of a NaN gives +0 with DX10_CLAMP and the NaN without; the translation
    // clamps after the op with integer ops (expand_clamp.rs). Every MODE of `check` with
    // DX10_CLAMP set and clear.
    let modes = [MODES[0], MODES[0] & !(1 << 8), MODES[1], MODES[1] & !(1 << 8)];
    let rows = pairs(&F32_ARITH);
    for (text, control) in [
        ("v_add_f32_e64 v20, v10, v11 clamp", "v_add_f32_e64 v20, v10, v11 clamp"),
        ("v_mul_f32_e64 v11, -v10, v11 clamp mul:2", "v_mul_f32_e64 v11, -v10, v11 clamp mul:2"),
        ("v_max_f32_e64 v20, v10, v11 clamp", "v_max_num_f32_e64 v20, v10, v11 clamp"),
        ("v_med3_f32 v20, v10, v11, 0.5 clamp", "v_med3_num_f32 v20, v10, v11, 0.5 clamp"),
        ("v_fract_f32_e64 v20, v10 clamp", "v_fract_f32_e64 v20, v10 clamp"),
    ] {
        let dst: u16 = text.split_whitespace().nth(1).unwrap().trim_start_matches('v').trim_end_matches(',').parse().unwrap();
        let differs = check_in(&Case { text, srcs: &[10, 11], dst: &[dst], control, sgpr: None, arith: false }, &rows, &modes);
        assert!(differs > 0, "`{text}`: gfx1201's clamp bit equals gfx1013 on every lane");
    }
    // f16 (low half, high half, packed); without infinities: an invalid packed op gives +qNaN
    // with IEEE set and -qNaN without (quiet.rs, not covered).
    let rows = pairs(&F16[..10]);
    for (text, control) in [
        ("v_add_f16_e64 v20, v10, v11 clamp", "v_add_f16_e64 v20, v10, v11 clamp"),
        ("v_max_f16_e64 v20, v10, v11 clamp", "v_max_num_f16_e64 v20, v10, v11 clamp"),
        ("v_min_f16_e64 v20, v10, v11 clamp", "v_min_num_f16_e64 v20, v10, v11 clamp"),
        ("v_fma_f16 v20, v10, v11, v10 op_sel:[0,0,0,1] clamp", "v_fma_f16 v20, v10, v11, v10 op_sel:[0,0,0,1] clamp"),
        ("v_pk_mul_f16 v20, v10, v11 op_sel:[0,1] op_sel_hi:[1,0] clamp", "v_pk_mul_f16 v20, v10, v11 op_sel:[0,1] op_sel_hi:[1,0] clamp"),
        ("v_pk_add_f16 v20, v10, v11 clamp", "v_pk_add_f16 v20, v10, v11 clamp"),
    ] {
        let rows: Vec<Vec<u32>> = rows.iter().map(|r| vec![r[0], r[1], 0x1234_5678]).collect();
        let differs = check_in(&Case { text, srcs: &[10, 11, 20], dst: &[20], control, sgpr: None, arith: false }, &rows, &modes);
        assert!(differs > 0, "`{text}`: gfx1201's clamp bit equals gfx1013 on every lane");
    }
    // f64, without infinities (an invalid f64 op's NaN sign follows IEEE, quiet.rs).
    let f64s: [u64; 10] = [
        0x7ff0_0000_0000_0001, 0xfff0_0000_0000_0001, 0x7ff8_0000_0000_0000, 0xfff8_0000_0000_1234, 0, 0x8000_0000_0000_0000, 1,
        0x3ff0_0000_0000_0000, 0x3ff0_0000_0000_0001, 0xbfe0_0000_0000_0000,
    ];
    let rows: Vec<Vec<u32>> = f64s
        .iter()
        .flat_map(|&a| f64s.iter().map(move |&b| vec![a as u32, (a >> 32) as u32, b as u32, (b >> 32) as u32]))
        .collect();
    for (text, control) in [
        ("v_add_f64 v[20:21], v[10:11], v[12:13] clamp", "v_add_f64_e64 v[20:21], v[10:11], v[12:13] clamp"),
        ("v_max_f64 v[20:21], v[10:11], v[12:13] clamp", "v_max_num_f64_e64 v[20:21], v[10:11], v[12:13] clamp"),
    ] {
        let differs = check_in(&Case { text, srcs: &[10, 11, 12, 13], dst: &[20, 21], control, sgpr: None, arith: false }, &rows, &modes);
        assert!(differs > 0, "`{text}`: gfx1201's clamp bit equals gfx1013 on every lane");
    }
}

#[test]
fn packed_min_max_f16_equal_gfx1013() {
    // gfx1201's v_pk_max_num_f16 / v_pk_min_num_f16 do not lift, so there is no control; the
    // rows are those of the scalar f16 test (whose control differs), one pair per half.
    let rows: Vec<Vec<u32>> = pairs(&F16).into_iter().map(|r| vec![r[0], r[1].rotate_left(16)]).collect();
    for text in [
        "v_pk_max_f16 v20, v10, v11",
        "v_pk_min_f16 v20, v10, v11 op_sel:[0,1] op_sel_hi:[1,0] neg_lo:[1,0] neg_hi:[0,1]",
        "v_pk_max_f16 v11, v10, v11 op_sel:[1,1] op_sel_hi:[0,0]",
    ] {
        let dst: u16 = text.split_whitespace().nth(1).unwrap().trim_start_matches('v').trim_end_matches(',').parse().unwrap();
        check(&Case { text, srcs: &[10, 11], dst: &[dst], control: "", sgpr: None, arith: false }, &rows);
    }
}

/// SDWA float min / max (F16MinMaxNan_DenormSdwaHigh's forms): the min / max sequence on the
/// selected halves, then the destination select. The f16 values sit in the selected half of
/// each source, the destination starts at 0x12345678 (UNUSED_PRESERVE keeps its other half).
#[test]
fn sdwa_min_max_equal_gfx1013() {
    let rows: Vec<Vec<u32>> = pairs(&F16).into_iter().map(|r| vec![r[0] << 16 | 0x1234, r[1].rotate_left(16), 0x1234_5678]).collect();
    for (text, control) in [
        ("v_min_f16_sdwa v20, v10, v11 dst_sel:WORD_0 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1 src1_sel:WORD_1", "v_min_num_f16_e64 v20, v10, v11"),
        ("v_max_f16_sdwa v20, |v10|, -v11 dst_sel:WORD_0 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1 src1_sel:WORD_1", "v_max_num_f16_e64 v20, |v10|, -v11"),
        ("v_min_f16_sdwa v20, -v10, |v11| dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:WORD_0", "v_min_num_f16_e64 v20, -v10, |v11|"),
        ("v_max_f16_sdwa v11, v10, v11 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:WORD_1", "v_max_num_f16_e64 v11, v10, v11"),
    ] {
        let dst: u16 = text.split_whitespace().nth(1).unwrap().trim_start_matches('v').trim_end_matches(',').parse().unwrap();
        let differs = check(&Case { text, srcs: &[10, 11, 20], dst: &[dst], control, sgpr: None, arith: false }, &rows);
        assert!(differs > 0, "`{text}`: the op without its selects equals gfx1013 on every lane");
    }
    let rows: Vec<Vec<u32>> = pairs(&F32).into_iter().map(|r| vec![r[0], r[1], 0x1234_5678]).collect();
    let text = "v_max_f32_sdwa v20, v10, -v11 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:DWORD";
    let differs = check(&Case { text, srcs: &[10, 11, 20], dst: &[20], control: "v_max_num_f32_e64 v20, v10, -v11", sgpr: None, arith: false }, &rows);
    assert!(differs > 0, "`{text}`: the op without its selects equals gfx1013 on every lane");
}

/// VINTRP interpolation (expand_interp.rs): `v_interp_p1_f32`, `v_interp_p2_f32` and
/// `v_interp_mov_f32` (p0, p10, p20) against `ds_param_load` + `v_interp_p10_f32` /
/// `v_interp_p2_f32` / `v_mov_b32_dpp`, and the 16-bit `v_interp_p1ll_f16` / `v_interp_p2_f16`
/// (low and high halves) against `v_interp_p10_f16_f32` / `v_interp_p2_f16_f32`, in wave32 and wave64, under each MODE (the same for
/// both runs). The attribute parameters (the lifter's function inputs from 1024) differ per quad
/// and are equal within one, as a primitive's are; the I / J coordinates and the p2
/// accumulator come from [`F32`] (NaNs, infinities, denormals), a different one per lane. The
/// gfx1201 words are llvm-mc-22 -mcpu=gfx1201's encoding of the sequence's text.
#[test]
fn vintrp_interpolation_equal_gfx1013() {
    const ATTR_BASE: usize = 1024;
    let attr_val = |k: usize, quad: usize| -> u64 { ((((k * 7 + quad * 13) % 64) as f32 - 32.0) * 0.375).to_bits() as u64 };
    let load = |a: &str| format!("ds_param_load v200, {a} wait_va_vdst:0 wait_vm_vsrc:0\n");
    let dpp = |k: u32| format!("quad_perm:[{k},{k},{k},{k}] row_mask:0xf bank_mask:0xf fi:1");
    for (text, gfx12) in [
        ("v_interp_p1_f32_e32 v6, v0, attr3.z", load("attr3.z") + "v_interp_p10_f32 v6, v200, v0, v200 wait_exp:7"),
        ("v_interp_p2_f32_e32 v6, v1, attr3.z", load("attr3.z") + "v_interp_p2_f32 v6, v200, v1, v6 wait_exp:7"),
        ("v_interp_p1_f32_e32 v0, v0, attr31.w", load("attr31.w") + "v_interp_p10_f32 v0, v200, v0, v200 wait_exp:7"),
        ("v_interp_mov_f32_e32 v6, p0, attr1.x", load("attr1.x") + "v_mov_b32_dpp v6, v200 " + &dpp(0)),
        ("v_interp_mov_f32_e32 v6, p10, attr1.y", load("attr1.y") + "v_mov_b32_dpp v6, v200 " + &dpp(1)),
        ("v_interp_mov_f32_e32 v6, p20, attr0.z", load("attr0.z") + "v_mov_b32_dpp v6, v200 " + &dpp(2)),
        ("v_interp_p1ll_f16 v7, v0, attr2.x", load("attr2.x") + "v_interp_p10_f16_f32 v7, v200, v0, v200 wait_exp:7"),
        ("v_interp_p1ll_f16 v8, v0, attr2.y high", load("attr2.y") + "v_interp_p10_f16_f32 v8, v200, v0, v200 op_sel:[1,0,1,0] wait_exp:7"),
        ("v_interp_p1ll_f16 v7, v0, attr5.z", load("attr5.z") + "v_interp_p10_f16_f32 v7, v200, v0, v200 wait_exp:7"),
        ("v_interp_p2_f16 v7, v1, attr2.x, v7", load("attr2.x") + "v_interp_p2_f16_f32 v7, v200, v1, v7 wait_exp:7"),
        ("v_interp_p2_f16 v8, v1, attr2.y, v6 high", load("attr2.y") + "v_interp_p2_f16_f32 v8, v200, v1, v6 op_sel:[1,0,0,0] wait_exp:7"),
    ] {
        let op10 = asm("gfx1013", text);
        // The sequence is llvm-mc-22's encoding of the expected gfx1201 text.
        let cx = ExpandCx { vgprs: Some(TEMP_VGPR), sgprs: Some(TEMP_SGPR), ..ExpandCx::default() };
        let d = GFX10.decode(&op10, 0).unwrap();
        let seq = translate_inst_in(&GFX10.operands(&d, 0), &cx).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(place(&seq, 0).expect("places").code, asm("gfx1201", &gfx12), "{text}");
        let dst: u16 = text.split_whitespace().nth(1).unwrap().trim_start_matches('v').trim_end_matches(',').parse().unwrap();
        let outs = vec![format!("v{dst}")];
        for wave64 in [false, true] {
            let n: usize = if wave64 { 64 } else { 32 };
            for &mode in &MODES {
                let cx = ExpandCx { wave64, ieee: Some(false), dx10_clamp: Some(mode >> 8 & 1 != 0), vgprs: Some(TEMP_VGPR), sgprs: Some(TEMP_SGPR) };
                let mut w = Vec::new();
                for lane in 0..n as u32 {
                    for (k, r) in [0u16, 1, 6, 7, 8].into_iter().enumerate() {
                        w.extend(writelane(r, F32[(lane as usize * 3 + k * 5) % F32.len()], lane));
                    }
                }
                let code10 = [words(&w), op10.clone(), words(&[S_ENDPGM])].concat();
                let mut t = Vec::new();
                let mut off = 0usize;
                while off < code10.len() {
                    let d = GFX10.decode(&code10[off..], off as u64).unwrap();
                    t.extend(translate_inst_in(&GFX10.operands(&d, off as u64), &cx).unwrap_or_else(|e| panic!("{text}: {e}")));
                    off += d.len as usize;
                }
                let names: Vec<&str> = t.iter().filter(|x| x.src_addr >= (code10.len() - op10.len() - 4) as u64).map(|x| x.inst.name).collect();
                assert_eq!(names[0], "DS_PARAM_LOAD", "{text}");
                let code12 = place(&t, 0).expect("places").code;
                let mut inputs = vec![Input::Uniform(0); ATTR_BASE + 12 * 32];
                inputs[0] = Input::PerLane((0..n as u64).collect());
                for (k, x) in inputs.iter_mut().enumerate().skip(ATTR_BASE) {
                    *x = Input::PerLane((0..n).map(|l| attr_val(k - ATTR_BASE, l / 4)).collect());
                }
                let go = |isa: Isa, code: &[u8]| {
                    let opts = Options { wave64, mode, ..Options::default() };
                    let mut f = lift(isa, code, 0, &opts).unwrap_or_else(|e| panic!("{isa:?} lifts: {e}"));
                    return_regs(&mut f, &outs);
                    let cfg = Config { wave_size: n as u32, waves: 1, ..Config::default() };
                    interp::run(&f, &cfg, &inputs, Memory::default()).expect("runs").outputs
                };
                let (r10, r12) = (go(Isa::Gfx1013, &code10), go(Isa::Gfx1201, &code12));
                for lane in 0..n {
                    assert_eq!(r12[lane], r10[lane], "`{text}` wave64 {wave64} MODE {mode:#x}: lane {lane}");
                }
                // The inputs reach the parameters: the quads do not all give one value.
                assert!((4..n).step_by(4).any(|l| r10[l] != r10[0]), "`{text}`: every quad alike");
            }
        }
    }
}

/// f16 `v_min3` / `v_max3` / `v_med3` with VOP3 op_sel (Float16TernaryClamp's forms), with and
/// without clamp: each source holds two different f16 values of the triple (the one op_sel
/// selects, the other in the other half), the destination starts at 0x12345678 (a high-half
/// result keeps its low half, and the other way round). Under every DX10_CLAMP and IEEE mode.
#[test]
fn min3_max3_med3_f16_op_sel_equal_gfx1013() {
    let modes = [MODES[0], MODES[0] & !(1 << 8), MODES[1], MODES[1] & !(1 << 8)];
    let rows: Vec<Vec<u32>> = triples(&F16[..8])
        .into_iter()
        .map(|r| {
            let h = |i: usize| r[i] & 0xffff;
            vec![h(0) << 16 | h(1), h(1) << 16 | h(2), h(2) << 16 | h(0), 0x1234_5678]
        })
        .collect();
    for (text, control) in [
        ("v_max3_f16 v20, -v10, |v11|, v12 op_sel:[1,1,1,1] clamp", "v_max3_num_f16 v20, -v10, |v11|, v12 op_sel:[1,1,1,1] clamp"),
        ("v_min3_f16 v20, v11, -v10, v12 op_sel:[1,0,1,0] clamp", "v_min3_num_f16 v20, v11, -v10, v12 op_sel:[1,0,1,0] clamp"),
        ("v_med3_f16 v20, v10, v11, -|v12| op_sel:[0,1,1,1] clamp", "v_med3_num_f16 v20, v10, v11, -|v12| op_sel:[0,1,1,1] clamp"),
        ("v_med3_f16 v20, v10, v11, v12 op_sel:[1,1,0,0]", "v_med3_num_f16 v20, v10, v11, v12 op_sel:[1,1,0,0]"),
        ("v_min3_f16 v12, v10, v11, v12 op_sel:[0,0,1,1]", "v_min3_num_f16 v12, v10, v11, v12 op_sel:[0,0,1,1]"),
    ] {
        let dst: u16 = text.split_whitespace().nth(1).unwrap().trim_start_matches('v').trim_end_matches(',').parse().unwrap();
        let differs = check_in(&Case { text, srcs: &[10, 11, 12, 20], dst: &[dst], control, sgpr: None, arith: false }, &rows, &modes);
        assert!(differs > 0, "`{text}`: the plain rename equals gfx1013 on every lane");
    }
}

/// The gfx1201 translation of every instruction of the gfx1013 program `code10`, placed at 0.
fn translate_program(code10: &[u8], cx: &ExpandCx) -> Vec<u8> {
    let mut t = Vec::new();
    let mut off = 0usize;
    while off < code10.len() {
        let d = GFX10.decode(&code10[off..], off as u64).unwrap();
        t.extend(translate_inst_in(&GFX10.operands(&d, off as u64), cx).unwrap_or_else(|e| panic!("{off:#x}: {e}")));
        off += d.len as usize;
    }
    place(&t, 0).expect("places").code
}

/// Exports (export.rs): a compressed colour export becomes the plain export of its two packed
/// dwords (EN pair 2k-2k+1 -> bit k), a null export with done becomes
/// `export mrt0 off, off, off, off done` (LLVM 22's own gfx1201 form of the kill path,
/// fixtures/amd/bin gfx12_sample), VM is dropped. The gfx1013 words are llvm-mc-22
/// -mcpu=gfx1013's encoding of the text, the expected words llvm-mc-22 -mcpu=gfx1201's.
#[test]
fn export_words_match_llvm_mc() {
    for (text, gfx12) in [
        ("exp mrt1 v16, v16, v17, v17 compr vm", "export mrt1 v16, v17, off, off"),
        ("exp mrt0 v3, v3, off, off done compr", "export mrt0 v3, off, off, off done"),
        ("exp mrt7 off, off, v4, v4 compr", "export mrt7 off, v4, off, off"),
        ("exp null off, off, off, off done vm", "export mrt0 off, off, off, off done"),
        ("exp null v5, off, off, off done vm", "export mrt0 off, off, off, off done"),
        ("exp mrt0 v1, v0, v3, v2 done vm", "export mrt0 v1, v0, v3, v2 done"),
        ("exp pos0 v4, v5, v6, v7 done", "export pos0 v4, v5, v6, v7 done"),
    ] {
        let code = translate_program(&asm("gfx1013", text), &ExpandCx::default());
        assert_eq!(code, asm("gfx1201", gfx12), "{text}");
    }
    // Refused, each with its reason: half a compressed pair (gfx_stages ps_interp's
    // `exp mrt2 v10, off, v4, off compr`, EN 0x5, words from the fixture: llvm-mc-22 assembles
    // only whole pairs), a null export without done, a compressed mrtz export.
    let refused = [
        (words(&[0xf800_0425, 0x0000_040a]), "EN 0x5"),
        (asm("gfx1013", "exp null off, off, off, off vm"), "without done"),
        (asm("gfx1013", "exp mrtz v1, v1, v2, v2 compr"), "compressed mrtz"),
    ];
    for (code, why) in refused {
        let d = GFX10.decode(&code, 0).unwrap();
        let e = translate_inst_in(&GFX10.operands(&d, 0), &ExpandCx::default()).err().unwrap_or_else(|| panic!("{why}: translated"));
        assert!(e.to_string().contains("EXP") && e.to_string().contains(why), "{why}: {e}");
    }
}

/// A compressed export and a null export with done, run on the interpreter as gfx1013 code and
/// as its translation (wave32 and wave64): after `export::normalise_stage_events` the recorded
/// events are equal, and they hold every lane's four 16-bit halves on channels 0-3 of mrt1 and
/// the done mark. A gfx1013 program exporting the two dwords swapped translates to events that
/// are not equal to the original's, so the normalised comparison sees the halves.
#[test]
fn exports_run_equal_after_normalisation() {
    use isabridge_ir::ops::stage::{StageOp, Target};
    use isabridge_targets::gfx12::export::normalise_stage_events;
    let exps = "exp mrt1 v2, v2, v3, v3 compr vm\nexp null v5, off, off, off done vm";
    let swapped = "exp mrt1 v3, v3, v2, v2 compr vm\nexp null v5, off, off, off done vm";
    // The packed dwords of v2 and v3 in each lane (halves differing per lane and per half).
    let packed = |reg: u32, l: u32| if reg == 2 { 0x3c00_0000 | (l * 0x0001_0003) } else { 0xbc00_4000 ^ (l * 0x0101_0707) };
    for wave64 in [false, true] {
        let n: u32 = if wave64 { 64 } else { 32 };
        let mut w = Vec::new();
        for lane in 0..n {
            w.extend(writelane(2, packed(2, lane), lane));
            w.extend(writelane(3, packed(3, lane), lane));
            w.extend(writelane(5, lane, lane));
        }
        let program = |e: &str| [words(&w), asm("gfx1013", e), words(&[S_ENDPGM])].concat();
        let events = |isa: Isa, code: &[u8]| {
            let opts = Options { wave64, ..Options::default() };
            let f = lift(isa, code, 0, &opts).unwrap_or_else(|e| panic!("{isa:?} lifts: {e}"));
            let cfg = Config { wave_size: n, waves: 1, ..Config::default() };
            interp::run(&f, &cfg, &[Input::PerLane((0..n as u64).collect())], Memory::default()).expect("runs").stage
        };
        let code10 = program(exps);
        let insts: Vec<_> = {
            let mut v = Vec::new();
            let mut off = 0usize;
            while off < code10.len() {
                let d = GFX10.decode(&code10[off..], off as u64).unwrap();
                v.push(GFX10.operands(&d, off as u64));
                off += d.len as usize;
            }
            v
        };
        let cx = ExpandCx { wave64, ..ExpandCx::default() };
        let mut a = events(Isa::Gfx1013, &code10);
        let mut b = events(Isa::Gfx1201, &translate_program(&code10, &cx));
        assert_eq!(a.iter().filter(|e| matches!(e.op, StageOp::Export { target: Target::Null, .. })).count(), n as usize, "wave64 {wave64}");
        normalise_stage_events(&insts, &mut a, &mut b);
        assert_eq!(b, a, "wave64 {wave64}");
        for (chan, shift, reg) in [(0u8, 0u32, 2u32), (1, 16, 2), (2, 0, 3), (3, 16, 3)] {
            let got: Vec<u64> = a.iter().filter(|e| e.op == StageOp::Export { target: Target::Mrt(1), chan }).map(|e| e.value).collect();
            let want: Vec<u64> = (0..n).map(|l| (packed(reg, l) >> shift & 0xffff) as u64).collect();
            assert_eq!(got, want, "wave64 {wave64}: mrt1 channel {chan}");
        }
        assert_eq!(a.iter().filter(|e| matches!(e.op, StageOp::Done { vm: false })).count(), n as usize, "wave64 {wave64}");
        let mut a = events(Isa::Gfx1013, &code10);
        let mut c = events(Isa::Gfx1201, &translate_program(&program(swapped), &cx));
        normalise_stage_events(&insts, &mut a, &mut c);
        assert_ne!(c, a, "wave64 {wave64}: swapped dwords compare equal");
    }
}
