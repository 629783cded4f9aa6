//! The census of a corpus: per shader (function) and in total, what instructions and features
//! the code uses, and for gfx1013 code what a gfx12 translation would have to do with each
//! instruction. The JSON form of [`Census`] is documented in `crates/cli/CENSUS_SCHEMA.md`.
//!
//! Instructions are counted over the code that control-flow recovery reaches ([`crate::cfg`]),
//! so data and padding are not counted as instructions; a function whose CFG cannot be
//! recovered is counted by a linear sweep instead and carries the error.

use crate::cfg::{self, CallTarget, Flow};
use crate::load::{self, Program, WaveSize};
use crate::nv::NvInfo;
use isabridge_decoder::amd::{GFX10, GFX12};
use isabridge_decoder::spec::NvKind;
use isabridge_decoder::{Decoded, Isa, IsaPlugin};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// Version of the JSON schema; bumped on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

/// Counts by name.
pub type Histogram = BTreeMap<String, u64>;

/// What one shader, one ISA or the whole corpus contains.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct Counts {
    /// Instructions counted.
    pub instructions: u64,
    /// Bytes of those instructions.
    pub code_bytes: u64,
    /// Bytes inside functions that control never reaches (data, padding).
    pub data_bytes: u64,
    /// Instructions by lower-case mnemonic (AMD: LLVM's; NVIDIA: base opcode).
    pub opcodes: Histogram,
    /// Instructions by encoding (AMD: ENC_*; NVIDIA: spec form).
    pub encodings: Histogram,
    /// Feature counters (see CENSUS_SCHEMA.md for the list).
    pub features: Histogram,
    /// AMD export targets (`mrt0`, `pos0`, `param3`, ...).
    pub export_targets: Histogram,
    /// AMD interpolation: `<mnemonic> attr<N>`.
    pub interpolation: Histogram,
    /// Resource operands and where they come from (`image.rsrc s[8:15]`, `c[0x0]`, ...).
    pub descriptor_sources: Histogram,
    /// NVIDIA constant-bank reads by bank (`c[0x0]`, `c[0x2]`, `cx[UR]`).
    pub cbuf_banks: Histogram,
    /// NVIDIA instructions with a directed rounding mode (`FADD.RZ`).
    pub directed_rounding: Histogram,
    /// gfx1013 -> gfx12: instructions by category (unchanged, reencoded, renamed, expanded,
    /// unsupported).
    pub gfx12: Histogram,
    /// gfx1013 -> gfx12: the mnemonics in each category other than `unchanged`.
    pub gfx12_ops: BTreeMap<String, Histogram>,
}

fn merge_h(a: &mut Histogram, b: &Histogram) {
    for (k, v) in b {
        *a.entry(k.clone()).or_default() += v;
    }
}

impl Counts {
    /// Adds `o` into `self`.
    pub fn add(&mut self, o: &Counts) {
        self.instructions += o.instructions;
        self.code_bytes += o.code_bytes;
        self.data_bytes += o.data_bytes;
        merge_h(&mut self.opcodes, &o.opcodes);
        merge_h(&mut self.encodings, &o.encodings);
        merge_h(&mut self.features, &o.features);
        merge_h(&mut self.export_targets, &o.export_targets);
        merge_h(&mut self.interpolation, &o.interpolation);
        merge_h(&mut self.descriptor_sources, &o.descriptor_sources);
        merge_h(&mut self.cbuf_banks, &o.cbuf_banks);
        merge_h(&mut self.directed_rounding, &o.directed_rounding);
        merge_h(&mut self.gfx12, &o.gfx12);
        for (k, h) in &o.gfx12_ops {
            merge_h(self.gfx12_ops.entry(k.clone()).or_default(), h);
        }
    }
}

/// The CFG of one shader in numbers.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct CfgSummary {
    /// Basic blocks.
    pub blocks: u64,
    /// Edges.
    pub edges: u64,
    /// Call sites by kind (`direct`, `external`, `fetch_shader`, `indirect`).
    pub calls: Histogram,
    /// Why recovery failed (then the counts come from a linear sweep).
    pub error: Option<String>,
}

/// One shader (function symbol, or the whole input for a raw dump).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Shader {
    /// Symbol name.
    pub name: String,
    /// Code section.
    pub section: String,
    /// Address of its first byte.
    pub start: u64,
    /// Size in bytes.
    pub size: u64,
    /// AMD: `wave32`, `wave64` or `unknown`; NVIDIA: `warp32`.
    pub wave: String,
    /// How the wave size was found: `kernel_descriptor`, `instructions`, `isa` or `none`.
    pub wave_source: String,
    /// CFG recovery.
    pub cfg: CfgSummary,
    /// What it contains.
    pub counts: Counts,
}

/// One input file.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct FileCensus {
    /// The path as given (directories expanded, sorted).
    pub path: String,
    /// ISA, when the file could be read.
    pub isa: Option<String>,
    /// Why the file could not be read.
    pub error: Option<String>,
    /// Its shaders in address order.
    pub shaders: Vec<Shader>,
}

/// The census of a set of files.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Census {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// Files in path order.
    pub files: Vec<FileCensus>,
    /// Totals per ISA.
    pub per_isa: BTreeMap<String, Counts>,
    /// Totals over everything.
    pub totals: Counts,
    /// Shader counts per ISA.
    pub shaders_per_isa: BTreeMap<String, u64>,
    /// Files that could not be read.
    pub failed_files: u64,
}

impl Census {
    /// Builds totals over per-file results (already in the order to report).
    pub fn from_files(files: Vec<FileCensus>) -> Census {
        let mut per_isa: BTreeMap<String, Counts> = BTreeMap::new();
        let mut totals = Counts::default();
        let mut shaders_per_isa: BTreeMap<String, u64> = BTreeMap::new();
        let mut failed_files = 0;
        for f in &files {
            if f.error.is_some() {
                failed_files += 1;
            }
            let Some(isa) = &f.isa else { continue };
            let e = per_isa.entry(isa.clone()).or_default();
            for s in &f.shaders {
                e.add(&s.counts);
                totals.add(&s.counts);
                *shaders_per_isa.entry(isa.clone()).or_default() += 1;
            }
        }
        Census { schema_version: SCHEMA_VERSION, files, per_isa, totals, shaders_per_isa, failed_files }
    }
}

/// Takes the census of one input's bytes. `path` is only recorded.
pub fn census_bytes(path: &str, bytes: &[u8], raw_isa: Option<Isa>) -> FileCensus {
    match load::load(bytes, raw_isa) {
        Ok(p) => census_program(path, &p),
        Err(e) => FileCensus { path: path.into(), isa: None, error: Some(e.to_string()), shaders: Vec::new() },
    }
}

/// Takes the census of a loaded program.
pub fn census_program(path: &str, p: &Program) -> FileCensus {
    let mut shaders = Vec::new();
    for s in &p.sections {
        for f in &s.functions {
            shaders.push(shader(p, s, f));
        }
    }
    FileCensus { path: path.into(), isa: Some(p.isa.name().into()), error: None, shaders }
}

/// Counters gathered while walking one shader; names are made once at the end.
struct Acc {
    isa: Isa,
    /// Table index of every counted instruction (sorted and counted at the end).
    by_index: Vec<u16>,
    features: BTreeMap<&'static str, u64>,
    export_targets: BTreeMap<u32, u64>,
    interp: BTreeMap<(u16, u32), u64>,
    descriptors: BTreeMap<(&'static str, u32, u32), u64>,
    cbuf_banks: BTreeMap<Option<u32>, u64>,
    rounding: BTreeMap<(u16, &'static str), u64>,
    w32: u64,
    w64: u64,
    instructions: u64,
    code_bytes: u64,
}

fn shader(p: &Program, s: &load::Section, f: &load::Function) -> Shader {
    let isa = p.isa;
    let mut acc = Acc {
        isa,
        by_index: Vec::with_capacity(((f.end - f.start) / 8) as usize),
        features: BTreeMap::new(),
        export_targets: BTreeMap::new(),
        interp: BTreeMap::new(),
        descriptors: BTreeMap::new(),
        cbuf_banks: BTreeMap::new(),
        rounding: BTreeMap::new(),
        w32: 0,
        w64: 0,
        instructions: 0,
        code_bytes: 0,
    };
    let mut summary = CfgSummary::default();
    let mut data_bytes = 0;
    match cfg::recover(isa, s, f) {
        Ok(g) => {
            summary.blocks = g.blocks.len() as u64;
            summary.edges = g.edges.len() as u64;
            for c in &g.calls {
                let k = match c.target {
                    CallTarget::Direct(_) => "direct",
                    CallTarget::External(_) => "external",
                    CallTarget::FetchShader(_) => "fetch_shader",
                    CallTarget::Indirect(_) | CallTarget::Pending => "indirect",
                };
                *summary.calls.entry(k.into()).or_default() += 1;
            }
            data_bytes = g.data.iter().map(|(a, b)| b - a).sum();
            for (addr, d, flow) in &g.insts {
                inst(&mut acc, s, *addr, d);
                flow_features(&mut acc, flow);
            }
        }
        Err(e) => {
            summary.error = Some(e.to_string());
            sweep(&mut acc, s, f);
        }
    }
    let (wave, wave_source) = match isa {
        Isa::Sm50 | Isa::Sm86 => ("warp32", "isa"),
        _ => match p.kernel_wave.get(&f.name) {
            Some(WaveSize::W32) => ("wave32", "kernel_descriptor"),
            Some(WaveSize::W64) => ("wave64", "kernel_descriptor"),
            None if acc.w32 > 0 && acc.w64 == 0 => ("wave32", "instructions"),
            None if acc.w64 > 0 && acc.w32 == 0 => ("wave64", "instructions"),
            None => ("unknown", "none"),
        },
    };
    let mut counts = finish(acc);
    counts.data_bytes = data_bytes;
    Shader {
        name: f.name.clone(),
        section: s.name.clone(),
        start: f.start,
        size: f.end - f.start,
        wave: wave.into(),
        wave_source: wave_source.into(),
        cfg: summary,
        counts,
    }
}

/// Counts a function front to back (used when its CFG cannot be recovered).
fn sweep(acc: &mut Acc, s: &load::Section, f: &load::Function) {
    let isa = acc.isa;
    let mut a = f.start;
    if isa == Isa::Sm50 && a.is_multiple_of(32) {
        a += 8;
    }
    let code = cfg::Code { isa, section: s, start: f.start, end: f.end };
    while a < f.end {
        let d = match isa {
            Isa::Sm50 => {
                use cfg::sm50::Sm50;
                let r = <Sm50 as SweepDecode>::dec(&code, a);
                let next = Sm50::next_addr(a);
                if let Ok(d) = r {
                    inst(acc, s, a, &d);
                } else {
                    *acc.features.entry("undecodable_words").or_default() += 1;
                }
                a = next;
                continue;
            }
            Isa::Sm86 => crate::nv::plugin(isa).decode(code.bytes_at(a), a),
            Isa::Gfx1013 => GFX10.decode(code.bytes_at(a), a),
            Isa::Gfx1201 => GFX12.decode(code.bytes_at(a), a),
        };
        match d {
            Ok(d) => {
                inst(acc, s, a, &d);
                a += d.len as u64;
            }
            Err(_) => {
                *acc.features.entry("undecodable_words").or_default() += 1;
                a += if isa == Isa::Sm86 { 16 } else { 4 };
            }
        }
    }
}

/// Access to the Maxwell slot decoder for the sweep.
trait SweepDecode {
    fn dec(code: &cfg::Code<'_>, a: u64) -> Result<Decoded, cfg::CfgError>;
}

impl SweepDecode for cfg::sm50::Sm50 {
    fn dec(code: &cfg::Code<'_>, a: u64) -> Result<Decoded, cfg::CfgError> {
        <cfg::sm50::Sm50 as cfg::Family>::decode(code, a)
    }
}

fn flow_features(acc: &mut Acc, flow: &Flow) {
    let k = match flow {
        Flow::Call(CallTarget::FetchShader(_)) => "fetch_shader_call",
        Flow::Table(_) => "jump_table",
        _ => return,
    };
    *acc.features.entry(k).or_default() += 1;
}

/// Per-instruction classes, computed once per ISA.
mod class {
    pub const SDWA: u32 = 1;
    pub const DPP16: u32 = 2;
    pub const DPP8: u32 = 4;
    pub const IMAGE: u32 = 8;
    pub const BUFFER: u32 = 16;
    pub const LDS: u32 = 32;
    pub const EXPORT: u32 = 64;
    pub const INTERP: u32 = 128;
    pub const SMEM: u32 = 256;
    pub const FLAT: u32 = 512;
    pub const GLOBAL: u32 = 1024;
    pub const SCRATCH: u32 = 2048;
    pub const GETPC: u32 = 4096;
    pub const SETPC: u32 = 8192;
    pub const SWAPPC: u32 = 16384;
    pub const EXEC32: u32 = 32768;
    pub const EXEC64: u32 = 65536;
    pub const SOP_B32: u32 = 1 << 17;
    pub const SOP_B64: u32 = 1 << 18;
    pub const BRANCH: u32 = 1 << 19;
    pub const ENDPGM: u32 = 1 << 20;
    pub const PARAM_LOAD: u32 = 1 << 21;
    pub const FIELD_WORK: u32 = IMAGE | BUFFER | EXPORT | INTERP | SMEM | SOP_B32 | SOP_B64;
}

fn amd_classes(isa: Isa) -> &'static [u32] {
    static C10: OnceLock<Vec<u32>> = OnceLock::new();
    static C12: OnceLock<Vec<u32>> = OnceLock::new();
    macro_rules! build {
        ($p:expr) => {{
            let t = $p.tables();
            t.inst_encodings
                .iter()
                .map(|ie| {
                    let e = t.encodings[ie.enc as usize].name;
                    let n = t.instructions[ie.inst as usize].name;
                    amd_class(e, n)
                })
                .collect()
        }};
    }
    if isa == Isa::Gfx1201 {
        C12.get_or_init(|| build!(GFX12))
    } else {
        C10.get_or_init(|| build!(GFX10))
    }
}

fn amd_class(enc: &str, name: &str) -> u32 {
    use class::*;
    let mut c = 0;
    if enc.ends_with("_SDWA") {
        c |= SDWA;
    }
    if enc.ends_with("_DPP16") {
        c |= DPP16;
    }
    if enc.ends_with("_DPP8") {
        c |= DPP8;
    }
    c |= match enc {
        "ENC_MIMG" | "ENC_VIMAGE" | "ENC_VSAMPLE" => IMAGE,
        "ENC_MUBUF" | "ENC_MTBUF" | "ENC_VBUFFER" => BUFFER,
        "ENC_DS" | "ENC_VDS" => LDS,
        "ENC_EXP" | "ENC_VEXPORT" => EXPORT,
        "ENC_VINTRP" | "ENC_VINTERP" => INTERP,
        "ENC_VDSDIR" => PARAM_LOAD,
        "ENC_SMEM" => SMEM,
        "ENC_FLAT" | "ENC_VFLAT" => FLAT,
        "ENC_FLAT_GLBL" | "ENC_VGLOBAL" => GLOBAL,
        "ENC_FLAT_SCRATCH" | "ENC_VSCRATCH" => SCRATCH,
        _ => 0,
    };
    if name == "S_GETPC_B64" {
        c |= GETPC;
    }
    if name == "S_SETPC_B64" {
        c |= SETPC;
    }
    if name == "S_SWAPPC_B64" {
        c |= SWAPPC;
    }
    if name.starts_with("S_ENDPGM") {
        c |= ENDPGM;
    }
    if name.starts_with("S_CBRANCH") || name == "S_BRANCH" {
        c |= BRANCH;
    }
    if name.contains("SAVEEXEC_B32") {
        c |= EXEC32;
    } else if name.contains("SAVEEXEC_B64") {
        c |= EXEC64;
    } else if matches!(enc, "ENC_SOP1" | "ENC_SOP2") {
        if name.ends_with("_B32") {
            c |= SOP_B32;
        } else if name.ends_with("_B64") {
            c |= SOP_B64;
        }
    }
    c
}

fn bump(acc: &mut Acc, k: &'static str) {
    *acc.features.entry(k).or_default() += 1;
}

fn inst(acc: &mut Acc, s: &load::Section, addr: u64, d: &Decoded) {
    acc.instructions += 1;
    acc.code_bytes += if acc.isa == Isa::Sm50 { 8 } else { d.len as u64 };
    match acc.isa {
        Isa::Gfx1013 | Isa::Gfx1201 => amd_inst(acc, d),
        _ => nv_inst(acc, s, addr, d),
    }
}

fn amd_inst(acc: &mut Acc, d: &Decoded) {
    use class::*;
    let i = d.ienc as usize;
    acc.by_index.push(d.ienc);
    let c = amd_classes(acc.isa).get(i).copied().unwrap_or(0);
    if c & FIELD_WORK == 0 {
        if c & EXEC32 != 0 {
            acc.w32 += 1;
        } else if c & EXEC64 != 0 {
            acc.w64 += 1;
        }
        return;
    }
    let inf = cfg::amd::info(acc.isa, d);
    let fld = |n: &str| inf.field(d, n);
    if c & (SOP_B32 | SOP_B64) != 0 {
        // Writing EXEC_LO (126) with a 32-bit op, or EXEC with a 64-bit op, shows the wave size.
        if fld("SDST") == Some(126) {
            if c & SOP_B32 != 0 {
                acc.w32 += 1;
            } else {
                acc.w64 += 1;
            }
        }
        return;
    }
    if c & IMAGE != 0 {
        if let Some(r) = fld("SRSRC").or_else(|| fld("RSRC")) {
            let n = if fld("R128") == Some(1) { 4 } else { 8 };
            *acc.descriptors.entry(("image.rsrc", (r * 4) as u32, n)).or_default() += 1;
        }
        if inf.operands.iter().any(|o| o.field.is_some_and(|f| f.name == "SSAMP" || f.name == "SAMP")) {
            if let Some(r) = fld("SSAMP").or_else(|| fld("SAMP")) {
                *acc.descriptors.entry(("image.samp", (r * 4) as u32, 4)).or_default() += 1;
            }
        }
    }
    if c & BUFFER != 0 {
        if let Some(r) = fld("SRSRC").or_else(|| fld("RSRC")) {
            *acc.descriptors.entry(("buffer.rsrc", (r * 4) as u32, 4)).or_default() += 1;
        }
    }
    if c & SMEM != 0 && inf.name.starts_with("S_BUFFER_") {
        if let Some(r) = fld("SBASE") {
            *acc.descriptors.entry(("s_buffer.rsrc", (r * 2) as u32, 4)).or_default() += 1;
        }
    }
    if c & EXPORT != 0 {
        if let Some(t) = fld("TARGET").or_else(|| fld("TGT")) {
            *acc.export_targets.entry(t as u32).or_default() += 1;
        }
    }
    if c & INTERP != 0 {
        if let Some(a) = fld("ATTR") {
            *acc.interp.entry((d.ienc, a as u32)).or_default() += 1;
        }
    }
}

/// Per NVIDIA form: (uniform-register field indices, has a cbuf operand, rounding fields).
struct NvFormFacts {
    uniform: Vec<(usize, u64)>,
    cbuf: bool,
    rounding: Vec<usize>,
}

fn nv_facts(isa: Isa) -> &'static [NvFormFacts] {
    static F50: OnceLock<Vec<NvFormFacts>> = OnceLock::new();
    static F86: OnceLock<Vec<NvFormFacts>> = OnceLock::new();
    let build = || {
        let t = crate::nv::plugin(isa).t;
        t.forms
            .iter()
            .map(|f| NvFormFacts {
                uniform: f
                    .fields
                    .iter()
                    .enumerate()
                    .filter_map(|(i, x)| match x.kind {
                        NvKind::UReg => Some((i, 63)),
                        NvKind::UPred => Some((i, 7)),
                        _ => None,
                    })
                    .collect(),
                cbuf: f.syntax.iter().any(|p| matches!(p, isabridge_decoder::spec::NvPiece::Lit(s) if s.contains("c[") || s.contains("cx["))),
                rounding: f
                    .fields
                    .iter()
                    .enumerate()
                    .filter(|(_, x)| {
                        x.kind == NvKind::Lookup
                            && t.operand_types.get(x.ty as usize).is_some_and(|ty| {
                                ty.values.iter().any(|v| matches!(v.1.trim_start_matches('.'), "RZ" | "RM" | "RP"))
                            })
                    })
                    .map(|(i, _)| i)
                    .collect(),
            })
            .collect()
    };
    if isa == Isa::Sm50 {
        F50.get_or_init(build)
    } else {
        F86.get_or_init(build)
    }
}

fn nv_inst(acc: &mut Acc, _s: &load::Section, _addr: u64, d: &Decoded) {
    let i = d.enc as usize;
    acc.by_index.push(d.enc);
    let Some(inf) = NvInfo::new(acc.isa, d) else { return };
    if inf.predicated() {
        bump(acc, "predicated");
    }
    let Some(ff) = nv_facts(acc.isa).get(i) else { return };
    if ff.uniform.iter().any(|&(k, none)| inf.form.fields[k].get(inf.w) != none) {
        bump(acc, "uniform_registers");
    }
    if ff.cbuf {
        if let Some(c) = inf.cbuf() {
            *acc.cbuf_banks.entry(c.bank).or_default() += 1;
        }
    }
    for &k in &ff.rounding {
        let f = &inf.form.fields[k];
        if let Some(n) = inf.t.operand_types.get(f.ty as usize).and_then(|t| t.lookup(f.get(inf.w) as i64)) {
            let n = n.trim_start_matches('.');
            if matches!(n, "RZ" | "RM" | "RP") {
                let n: &'static str = match n {
                    "RZ" => "RZ",
                    "RM" => "RM",
                    _ => "RP",
                };
                *acc.rounding.entry((d.enc, n)).or_default() += 1;
            }
        }
    }
}

/// AMD export target names (RDNA ISA guide, EXP: 0-7 MRT0-7, 8 MRTZ, 9 NULL, 12-15 POS0-3,
/// 32-63 PARAM0-31; gfx11+ adds 20 DUAL_SRC_BLEND0/21 ..1 and 21+ prims on gfx12 is not needed
/// for gfx1013 input).
fn export_name(t: u32) -> String {
    match t {
        0..=7 => format!("mrt{t}"),
        8 => "mrtz".into(),
        9 => "null".into(),
        12..=15 => format!("pos{}", t - 12),
        20 => "prim".into(),
        32..=63 => format!("param{}", t - 32),
        _ => format!("target{t}"),
    }
}

/// (table index, count) pairs in index order.
fn runs(mut v: Vec<u16>) -> Vec<(usize, u64)> {
    v.sort_unstable();
    let mut out: Vec<(usize, u64)> = Vec::new();
    for x in v {
        match out.last_mut() {
            Some(l) if l.0 == x as usize => l.1 += 1,
            _ => out.push((x as usize, 1)),
        }
    }
    out
}

fn finish(mut acc: Acc) -> Counts {
    let counted = runs(std::mem::take(&mut acc.by_index));
    let mut c = Counts { instructions: acc.instructions, code_bytes: acc.code_bytes, ..Default::default() };
    for (k, v) in &acc.features {
        c.features.insert((*k).into(), *v);
    }
    match acc.isa {
        Isa::Gfx1013 | Isa::Gfx1201 => {
            use class::*;
            let classes = amd_classes(acc.isa);
            let names = |i: usize| -> (&'static str, &'static str) {
                macro_rules! n {
                    ($p:expr) => {{
                        let t = $p.tables();
                        let ie = &t.inst_encodings[i];
                        (t.instructions[ie.inst as usize].mnemonic, t.encodings[ie.enc as usize].name)
                    }};
                }
                if acc.isa == Isa::Gfx1201 {
                    n!(GFX12)
                } else {
                    n!(GFX10)
                }
            };
            for &(i, n) in &counted {
                let (m, e) = names(i);
                *c.opcodes.entry(m.into()).or_default() += n;
                *c.encodings.entry(e.into()).or_default() += n;
                let cl = classes[i];
                for (bit, k) in [
                    (SDWA, "sdwa"),
                    (DPP16, "dpp16"),
                    (DPP8, "dpp8"),
                    (IMAGE, "image"),
                    (BUFFER, "buffer"),
                    (LDS, "lds"),
                    (EXPORT, "export"),
                    (INTERP, "interp"),
                    (PARAM_LOAD, "param_load"),
                    (SMEM, "smem"),
                    (FLAT, "flat"),
                    (GLOBAL, "global"),
                    (SCRATCH, "scratch"),
                    (GETPC, "getpc"),
                    (SETPC, "setpc"),
                    (SWAPPC, "swappc"),
                    (BRANCH, "branch"),
                    (ENDPGM, "endpgm"),
                ] {
                    if cl & bit != 0 {
                        *c.features.entry(k.into()).or_default() += n;
                    }
                }
                if acc.isa == Isa::Gfx1013 {
                    let (cat, name) = crate::gfx12map::category(i);
                    *c.gfx12.entry(cat.into()).or_default() += n;
                    if cat != "unchanged" {
                        *c.gfx12_ops.entry(cat.into()).or_default().entry(name.into()).or_default() += n;
                    }
                }
            }
            for (t, n) in acc.export_targets {
                *c.export_targets.entry(export_name(t)).or_default() += n;
            }
            for ((ienc, a), n) in acc.interp {
                let (m, _) = names(ienc as usize);
                *c.interpolation.entry(format!("{m} attr{a}")).or_default() += n;
            }
            for ((k, base, len), n) in acc.descriptors {
                *c.descriptor_sources.entry(format!("{k} s[{base}:{}]", base + len - 1)).or_default() += n;
            }
        }
        _ => {
            let t = crate::nv::plugin(acc.isa).t;
            for &(i, n) in &counted {
                let f = &t.forms[i];
                let name = t.insts.get(f.inst as usize).map(|x| x.name).unwrap_or("?");
                *c.opcodes.entry(name.into()).or_default() += n;
                *c.encodings.entry(f.name.into()).or_default() += n;
                let cf = match name {
                    "BRA" | "BRX" | "JMP" | "JMX" | "SSY" | "SYNC" | "PBK" | "BRK" | "PCNT" | "CONT" | "CAL" | "JCAL"
                    | "PRET" | "RET" | "EXIT" | "BSSY" | "BSYNC" | "WARPSYNC" | "CALL" | "BREAK" | "KIL" | "KILL" => {
                        Some(name)
                    }
                    _ => None,
                };
                if let Some(k) = cf {
                    *c.features.entry(format!("cf.{}", k.to_ascii_lowercase())).or_default() += n;
                }
                let cls = match name {
                    "TEX" | "TEXS" | "TLD" | "TLDS" | "TLD4" | "TLD4S" | "TXQ" | "TMML" | "TXD" | "SULD" | "SUST"
                    | "SUATOM" | "SURED" => Some("image"),
                    "LDS" | "STS" | "ATOMS" => Some("lds"),
                    "LDG" | "STG" | "ATOMG" | "RED" | "LD" | "ST" | "ATOM" => Some("global"),
                    "LDL" | "STL" => Some("local"),
                    "LDC" | "ULDC" => Some("constant_load"),
                    _ => None,
                };
                if let Some(k) = cls {
                    *c.features.entry(k.into()).or_default() += n;
                }
            }
            for (b, n) in acc.cbuf_banks {
                let k = match b {
                    Some(b) => format!("c[{b:#x}]"),
                    None => "cx[UR]".into(),
                };
                *c.cbuf_banks.entry(k.clone()).or_default() += n;
                *c.descriptor_sources.entry(k).or_default() += n;
            }
            for ((form, m), n) in acc.rounding {
                let name = t.insts.get(t.forms[form as usize].inst as usize).map(|x| x.name).unwrap_or("?");
                *c.directed_rounding.entry(format!("{name}.{m}")).or_default() += n;
            }
        }
    }
    c
}
