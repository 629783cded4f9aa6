//! Graphics-stage functions of PAL code objects (`amdgpu_vs`, `amdgpu_ps`, `amdgpu_gs`,
//! `amdgpu_cs` ... under `amdgcn-amd-amdpal`): which functions they are, their translation to
//! gfx1201, and the stage inputs `isabridge selfcheck --via gfx1201` runs them with.
//!
//! Which functions: every function symbol of an object whose `NT_AMDGPU_METADATA` note has
//! `amdpal.pipelines`, kernels (HSA descriptors) excepted. A function that is a hardware
//! stage's `.entry_point_symbol` takes that stage's `.sgpr_count` / `.vgpr_count` (the
//! declared counts temporaries go above) and MODE; another function of the object takes the
//! MODE of the object's stages when they all agree (a PAL pipeline names one function per
//! stage, so the object's other pixel shaders are no stage's entry). MODE comes from the
//! stage's RSRC1 register in `.registers` with the bit layout of COMPUTE_PGM_RSRC1 (FLOAT_MODE
//! bits 12-19, DX10_CLAMP 21, IEEE 23; `amdkernel::Kernel::mode`); the register numbers are
//! LLVM SIDefines.h's byte addresses over 4: SPI_SHADER_PGM_RSRC1_PS 0xB028 (0x2c0a), _VS
//! 0xB128 (0x2c4a), _GS 0xB228 (0x2c8a), COMPUTE_PGM_RSRC1 0xB848 (0x2e12), the numbers the
//! fixtures/amd gfx_stages and gfx_cs notes carry. Without one, the lifter's default MODE.
//! The wave size is the loader's (`Program::entry_wave`, else `object_wave`, else 32).
//!
//! Translation: the function's gfx1013 code through [`super::function::translate_insts`] with
//! no entry sequence. A graphics stage keeps gfx1013's register interface (inputs in the SGPRs
//! and VGPRs the lifter reads), so nothing is moved. VINTRP interpolation becomes
//! `ds_param_load` + VINTERP ([`super::expand`]); what else gfx1201 lacks for the stage
//! (parameter exports, compressed exports enabling half of a 16-bit pair, `v_interp_p1lv_f16`,
//! legacy GS messages) is a typed error of the instruction translator, which refuses the
//! function; compressed colour and null exports get their gfx11+ forms ([`super::export`]). Calls and indirect jumps are refused as
//! for kernels. The translated functions go into the `.text` of the written object as function
//! symbols; the object carries no PAL pipeline metadata (registers, stages) yet.
//!
//! Selfcheck inputs ([`StageInputs`], the same for both runs): one wave, every lane live; the
//! translation runs with late-arriving memory and without MODE's DX10_CLAMP and IEEE bits
//! (gfx1201 has neither; the translator gives gfx1013's behaviour under them, as for kernels);
//! [`STAGE_SGPRS`] SGPRs whose values are descriptors over the memory image: each 4-aligned
//! quad s[4q:4q+3] is a buffer V# over region q (std_buffer_v1 of fixtures/rdna/HARNESS.md),
//! except the SGPRs the function's code names as an image resource (an 8-SGPR T#: a linear
//! 16x16 (x4 slices) 32_32_32_32_FLOAT surface at the start of its region) or sampler (a zero
//! S#: point filtering, wrap, LOD 0). VGPRs v0-v2 (what the lifter reads as inputs): a pixel
//! shader's get floats in [0, 1) (interpolation coordinates), a compute shader's v0 is the lane
//! (thread id x, v1 = v2 = 0), other stages' small integers 0-63. Attribute inputs (the lifter's
//! stand-in for the LDS parameter data, `ATTR_INPUT_BASE + 12a + 3c + p`) are floats in
//! [-32, 32) equal on the four lanes of a quad, as a primitive's attributes are. LDS is 64 KiB
//! of zeros. The memory image: [`STAGE_SGPRS`] / 4 regions of `REGION_BYTES` at
//! `REGION_BASE + q * REGION_STRIDE`, filled with [`super::selfcheck::image_byte`].
//!
//! Compared: memory and return values as for kernels; the stage events of a gfx1201
//! translation after [`super::export::normalise_stage_events`] (the original's null-target
//! data dropped, VM cleared, the packed dwords of a compressed colour target split back into
//! their 16-bit channels), every other event as recorded.

use super::function::{decode_gfx1013, translate_insts, FunctionOptions, TranslatedFunction};
use super::hsaco::CodeObject;
use super::calls::is_call_or_return;
use super::object::{append_aligned, code_of, ObjectError, TranslatedObject};
use super::selfcheck::{compare, image_byte, Options, Report, RunError, Status, REGION_BASE, REGION_BYTES, REGION_STRIDE};
use isabridge_analysis::amdmeta::{self, Value};
use isabridge_analysis::load::{Program, WaveSize};
use isabridge_decoder::lift::amd::{kernel_params, lift_kernel_module, lift_kernel_module_late_memory, KernelEntry};
use isabridge_decoder::operand::{OperandKind, RegClass};
use isabridge_decoder::{Inst, Isa};
use isabridge_ir::interp::{self, Config, Input, Memory, Outcome};

/// SGPR inputs a graphics-stage function gets in selfcheck (gfx10 has at most 32 user SGPRs).
pub const STAGE_SGPRS: u32 = 32;
/// LDS bytes a graphics-stage function gets in selfcheck (gfx10's most per workgroup).
pub const STAGE_LDS: u32 = 64 * 1024;
/// Attributes whose parameters selfcheck provides (attr0-attr31, what VINTRP can name).
pub const ATTRIBUTES: u32 = 32;
/// First function input holding attribute parameters (the lifter's `ATTR_INPUT_BASE`).
const ATTR_INPUT_BASE: u32 = 1024;
/// gfx10 IMG_FORMAT_32_32_32_32_FLOAT (../shared/facts/amd/descriptor_enums.csv).
const IMG_FORMAT_32_32_32_32_FLOAT: u32 = 77;
/// A buffer V#'s word 3 as fixtures/rdna/HARNESS.md's std_buffer_v1 (channels x-w, 32-bit
/// float format, what the RDNA2 harness and the lifter tests use).
const STD_BUFFER_WORD3: u32 = 0x3101_6fac;

/// A graphics-stage function of a PAL code object (module notes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StageFunction {
    /// Symbol name.
    pub name: String,
    /// The hardware stage (`.ps`, `.vs`, `.gs`, `.cs`, ...) it is the entry of, or that every
    /// stage of the object is; None when the object's stages differ.
    pub stage: Option<String>,
    /// Runs as wave64.
    pub wave64: bool,
    /// MODE at entry (bits 0-7 FLOAT_MODE, 8 DX10_CLAMP, 9 IEEE).
    pub mode: u32,
    /// VGPRs its stage declares (0 when it is no stage's entry).
    pub vgprs: u16,
    /// SGPRs its stage declares (0 when it is no stage's entry).
    pub sgprs: u16,
}

/// One hardware stage of a PAL pipeline.
#[derive(Debug, Clone)]
struct PalStage {
    stage: String,
    symbol: String,
    sgprs: u16,
    vgprs: u16,
    rsrc1: Option<u32>,
}

/// The RSRC1 register (dword number in `.registers`) of a hardware stage (module notes).
fn rsrc1_register(stage: &str) -> Option<i128> {
    Some(match stage {
        ".ps" => 0x2c0a,
        ".vs" => 0x2c4a,
        ".gs" => 0x2c8a,
        ".cs" => 0x2e12,
        _ => return None,
    })
}

/// MODE from an RSRC1 value (`amdkernel::Kernel::mode`'s bits).
fn mode_of_rsrc1(r: u32) -> u32 {
    (r >> 12 & 0xff) | (r >> 21 & 1) << 8 | (r >> 23 & 1) << 9
}

/// The hardware stages of every PAL pipeline in `bytes`; None when it has no `amdpal.pipelines`.
fn pal_stages(bytes: &[u8]) -> Option<Vec<PalStage>> {
    use object::{Object, ObjectSection};
    let file = object::File::parse(bytes).ok()?;
    let mut found = false;
    let mut out = Vec::new();
    for sec in file.sections().filter(|s| s.kind() == object::SectionKind::Note) {
        let Ok(data) = sec.data() else { continue };
        for desc in amdmeta::notes(data, "AMDGPU", amdmeta::NT_AMDGPU_METADATA) {
            let Ok(root) = amdmeta::parse(desc) else { continue };
            let Some(Value::Array(ps)) = root.get("amdpal.pipelines") else { continue };
            found = true;
            for p in ps {
                let reg = |r: i128| match p.get(".registers") {
                    Some(Value::Map(rs)) => rs.iter().find(|(k, _)| k.as_int() == Some(r)).and_then(|(_, v)| v.as_int()).map(|v| v as u32),
                    _ => None,
                };
                let Some(Value::Map(stages)) = p.get(".hardware_stages") else { continue };
                for (stage, st) in stages {
                    let (Some(stage), Some(symbol)) = (stage.as_str(), st.get(".entry_point_symbol").and_then(Value::as_str)) else { continue };
                    let count = |k: &str| st.get(k).and_then(Value::as_int).unwrap_or(0).clamp(0, u16::MAX as i128) as u16;
                    out.push(PalStage {
                        stage: stage.to_string(),
                        symbol: symbol.to_string(),
                        sgprs: count(".sgpr_count"),
                        vgprs: count(".vgpr_count"),
                        rsrc1: rsrc1_register(stage).and_then(reg),
                    });
                }
            }
        }
    }
    found.then_some(out)
}

/// The graphics-stage functions of the code object `bytes` loaded as `p`, in address order
/// (module notes); empty for an object without PAL metadata.
pub fn stage_functions(bytes: &[u8], p: &Program) -> Vec<StageFunction> {
    let Some(stages) = pal_stages(bytes) else { return Vec::new() };
    let kernels: Vec<String> = isabridge_analysis::amdkernel::kernels(bytes).map(|ks| ks.into_iter().map(|k| k.name).collect()).unwrap_or_default();
    let default_mode = isabridge_decoder::lift::amd::Options::default().mode;
    // The stage kind and MODE every stage of the object shares, for the functions no stage names.
    let shared_stage = stages.first().map(|s| s.stage.clone()).filter(|s0| stages.iter().all(|s| s.stage == *s0));
    let modes: Vec<u32> = stages.iter().map(|s| s.rsrc1.map_or(default_mode, mode_of_rsrc1)).collect();
    let shared_mode = modes.first().copied().filter(|m0| modes.iter().all(|m| m == m0));
    let mut out = Vec::new();
    for s in &p.sections {
        for f in &s.functions {
            if kernels.contains(&f.name) {
                continue;
            }
            let own = stages.iter().find(|st| st.symbol == f.name);
            let wave = p.entry_wave.get(&f.name).map(|w| w.0).or(p.object_wave).unwrap_or(WaveSize::W32);
            out.push(StageFunction {
                name: f.name.clone(),
                stage: own.map(|st| st.stage.clone()).or_else(|| shared_stage.clone()),
                wave64: wave == WaveSize::W64,
                mode: match own {
                    Some(st) => st.rsrc1.map_or(default_mode, mode_of_rsrc1),
                    None => shared_mode.unwrap_or(default_mode),
                },
                vgprs: own.map_or(0, |st| st.vgprs),
                sgprs: own.map_or(0, |st| st.sgprs),
            });
        }
    }
    out
}

/// One graphics-stage function translated (module notes).
fn translate_stage(f: &StageFunction, code: &[u8], addr: u64) -> Result<TranslatedFunction, ObjectError> {
    let ferr = |err| ObjectError::StageFunction { function: f.name.clone(), err: Box::new(err) };
    let insts = decode_gfx1013(code, addr).map_err(|e| ferr(e.into()))?;
    if let Some(i) = insts.iter().find(|i| is_call_or_return(i)) {
        return Err(ObjectError::StageCall { function: f.name.clone(), isa: i.isa, addr: i.addr, name: i.name });
    }
    let opts = FunctionOptions {
        guest_base: 0,
        place_at: 0,
        declared_vgprs: f.vgprs,
        declared_sgprs: f.sgprs,
        wave64: f.wave64,
        ieee: Some(f.mode >> 9 & 1 != 0),
        dx10_clamp: Some(f.mode >> 8 & 1 != 0),
    };
    translate_insts(&insts, Vec::new(), &opts).map_err(ferr)
}

/// Translates the graphics-stage functions of `bytes` (loaded as `p`; only the one named
/// `only` when given) into `o`, recording each in `out` (`stages`, or `refused` with its error).
pub(super) fn translate_stages(bytes: &[u8], p: &Program, only: Option<&str>, o: &mut CodeObject, out: &mut TranslatedObject) {
    for f in stage_functions(bytes, p) {
        if only.is_some_and(|n| n != f.name) {
            continue;
        }
        let r = code_of(p, &f.name).ok_or_else(|| ObjectError::NoFunction(f.name.clone()));
        match r.and_then(|(_, addr, code)| translate_stage(&f, code, addr)) {
            Err(e) => out.refused.push((f.name.clone(), e)),
            Ok(t) => {
                append_aligned(o, &f.name, &t.code.code);
                out.stages.push(f.name.clone());
                out.source_insts += t.source_insts;
                out.insts += t.code.insts.len();
            }
        }
    }
}

/// A function's inputs in selfcheck (module notes): the interpreter's inputs in
/// `kernel_params` order and the memory image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StageInputs {
    /// Function inputs: SGPRs, EXEC, v0-v2, then the attribute parameters.
    pub inputs: Vec<Input>,
    /// Global memory regions (address, bytes).
    pub global: Vec<(u64, Vec<u8>)>,
}

/// A 64-bit mix of `x` (splitmix64's finaliser).
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// What the function's code names the input SGPR of each number as: 1 = image T#, 2 = sampler
/// S#, 0 = nothing special (a V#).
fn sgpr_roles(insts: &[Inst]) -> [u8; STAGE_SGPRS as usize] {
    let mut role = [0u8; STAGE_SGPRS as usize];
    let mimg = |i: &Inst| i.encoding.starts_with("ENC_MIMG");
    for i in insts {
        for o in &i.operands {
            let OperandKind::Reg(r) = o.kind else { continue };
            if r.class != RegClass::Sgpr {
                continue;
            }
            let kind = match o.field {
                "SRSRC" if mimg(i) && r.count == 8 => 1,
                "SSAMP" if mimg(i) => 2,
                _ => continue,
            };
            for n in r.first..r.first + r.count {
                if let Some(x) = role.get_mut(n as usize) {
                    if *x == 0 {
                        *x = kind;
                    }
                }
            }
        }
    }
    role
}

/// The selfcheck inputs of `f`, whose gfx1013 code is `insts` (module notes).
pub fn stage_inputs(f: &StageFunction, insts: &[Inst]) -> StageInputs {
    let entry = stage_entry(f);
    let (s0, exec_p, v0) = kernel_params(&entry);
    let ws: usize = if f.wave64 { 64 } else { 32 };
    let regions = (STAGE_SGPRS / 4) as u64;
    let base = |q: u64| REGION_BASE + q * REGION_STRIDE;
    let global: Vec<(u64, Vec<u8>)> = (0..regions).map(|q| (base(q), (0..REGION_BYTES as u64).map(|a| image_byte(base(q) + a)).collect())).collect();
    let role = sgpr_roles(insts);
    let mut sgpr = [0u32; STAGE_SGPRS as usize];
    for (n, v) in sgpr.iter_mut().enumerate() {
        let b = base(n as u64 / 4);
        *v = [b as u32, (b >> 32) as u32 & 0xffff, REGION_BYTES as u32, STD_BUFFER_WORD3][n % 4];
    }
    let mut n = 0usize;
    while n < sgpr.len() {
        match role[n] {
            1 if n + 8 <= sgpr.len() => {
                // A linear 16 x 16 texel surface (4 slices / depth 4) at its region's start.
                let b = base(n as u64 / 4);
                let (w, h) = (16u32, 16u32);
                let t = [
                    (b >> 8) as u32,
                    (b >> 40) as u32 & 0xff | IMG_FORMAT_32_32_32_32_FLOAT << 20 | ((w - 1) & 3) << 30,
                    (w - 1) >> 2 | (h - 1) << 14,
                    0xfac | 9 << 28,
                    3,
                    0,
                    0,
                    0,
                ];
                sgpr[n..n + 8].copy_from_slice(&t);
                n += 8;
            }
            2 => {
                sgpr[n] = 0;
                n += 1;
            }
            _ => n += 1,
        }
    }
    let mut inputs = vec![Input::Uniform(0); (ATTR_INPUT_BASE + 12 * ATTRIBUTES) as usize];
    for (i, v) in sgpr.iter().enumerate() {
        inputs[s0 as usize + i] = Input::Uniform(*v as u64);
    }
    let exec: u64 = if f.wave64 { u64::MAX } else { 0xffff_ffff };
    inputs[exec_p as usize] = Input::Uniform(exec & 0xffff_ffff);
    inputs[exec_p as usize + 1] = Input::Uniform(exec >> 32);
    let stage = f.stage.as_deref().unwrap_or("");
    for i in 0..3u64 {
        let lanes: Vec<u64> = (0..ws as u64)
            .map(|l| {
                let h = mix(0x5eed_0000 + i * 1000 + l);
                match stage {
                    ".ps" => ((h % 1024) as f32 / 1024.0).to_bits() as u64,
                    ".cs" if i == 0 => l,
                    ".cs" => 0,
                    _ => h % 64,
                }
            })
            .collect();
        inputs[(v0 as u64 + i) as usize] = Input::PerLane(lanes);
    }
    for k in 0..12 * ATTRIBUTES as u64 {
        let lanes: Vec<u64> = (0..ws as u64).map(|l| ((mix(0xa77_0000 + k * 1000 + l / 4) % 4096) as f32 / 64.0 - 32.0).to_bits() as u64).collect();
        inputs[(ATTR_INPUT_BASE as u64 + k) as usize] = Input::PerLane(lanes);
    }
    StageInputs { inputs, global }
}

/// The entry state selfcheck lifts `f` with (both ISAs alike: no architected workgroup ids).
fn stage_entry(f: &StageFunction) -> KernelEntry {
    KernelEntry { wave64: f.wave64, mode: f.mode, sgprs: STAGE_SGPRS, workitem_ids: 3, shared_bytes: STAGE_LDS, ttmp_workgroup_ids: [false; 3] }
}

/// Runs `f` as `p` holds it on `inputs` (`late`: memory results arrive late).
fn run_stage(p: &Program, f: &StageFunction, inputs: &StageInputs, opts: &Options, late: bool) -> Result<Outcome, RunError> {
    let (sec, start, _) = code_of(p, &f.name).ok_or_else(|| RunError::Lift(format!("no function {}", f.name)))?;
    let r = isabridge_analysis::resolve::amd_transfers(p.isa, sec);
    let lift = if late { lift_kernel_module_late_memory } else { lift_kernel_module };
    let m = lift(p.isa, &sec.data, sec.address, start, &f.name, &stage_entry(f), &r).map_err(|e| RunError::Lift(e.to_string()))?;
    let cfg = Config { wave_size: if f.wave64 { 64 } else { 32 }, waves: 1, scratch_bytes: 0, max_steps: opts.max_steps, ..Config::default() };
    let mem = Memory { global: inputs.global.clone(), constant: Vec::new(), shared: vec![0; STAGE_LDS as usize] };
    interp::run_module(&m, &cfg, &inputs.inputs, mem).map_err(RunError::Interp)
}

/// The selfcheck of every graphics-stage function of `original` (loaded as `p`) against
/// `translated` (its translation, loaded; or why there is none); `refused` names the functions
/// the translation left out, each with why.
pub(super) fn check_stages(original: &[u8], p: &Program, translated: Result<&Program, &String>, refused: &[(String, String)], opts: &Options) -> Vec<Report> {
    let mut out = Vec::new();
    for f in stage_functions(original, p) {
        let status = |status, reason: String| Report { function: f.name.clone(), status, reason };
        if let Some(r) = refused.iter().find(|r| r.0 == f.name) {
            out.push(status(Status::Unsupported, r.1.clone()));
            continue;
        }
        let tp = match translated {
            Err(e) => {
                out.push(status(Status::Unsupported, format!("translation failed: {e}")));
                continue;
            }
            Ok(tp) => tp,
        };
        if code_of(tp, &f.name).is_none() {
            out.push(status(Status::Unsupported, "the translation has no function of this name".into()));
            continue;
        }
        let insts = match code_of(p, &f.name).map(|(_, addr, code)| decode_gfx1013(code, addr)) {
            Some(Ok(i)) => i,
            Some(Err(e)) => {
                out.push(status(Status::Unsupported, format!("original does not decode: {e}")));
                continue;
            }
            None => {
                out.push(status(Status::Unsupported, "no code of this name".into()));
                continue;
            }
        };
        let inputs = stage_inputs(&f, &insts);
        let a = run_stage(p, &f, &inputs, opts, false);
        // gfx1201 has no DX10_CLAMP or IEEE bit (the translation gives gfx1013's behaviour
        // under them itself, as for kernels: descriptor.rs clears both).
        let late = tp.isa == Isa::Gfx1201;
        let g = StageFunction { mode: if late { f.mode & !(3 << 8) } else { f.mode }, ..f.clone() };
        let mut b = run_stage(tp, &g, &inputs, opts, late);
        let mut a = a;
        if let (true, Ok(x), Ok(y)) = (late, &mut a, &mut b) {
            super::export::normalise_stage_events(&insts, &mut x.stage, &mut y.stage);
        }
        let (s, r) = compare(a, b);
        out.push(status(s, r));
    }
    out
}
