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
use isabridge_decoder::spec::{Field, NvKind};
use isabridge_decoder::{Decoded, Isa};
use serde::Serialize;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// Version of the JSON schema; bumped on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

/// Counts by name, sorted by name; serialized as a JSON object. Keys are mostly table names
/// (borrowed, never copied); formatted keys (`image.rsrc s[8:15]`) are owned.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Histogram(Vec<(Cow<'static, str>, u64)>);

impl Histogram {
    /// An empty histogram.
    pub fn new() -> Self {
        Histogram(Vec::new())
    }

    /// Builds from (name, count) pairs in any order; equal names are summed.
    pub fn from_pairs(mut v: Vec<(Cow<'static, str>, u64)>) -> Self {
        v.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let mut out: Vec<(Cow<'static, str>, u64)> = Vec::with_capacity(v.len());
        for (k, n) in v {
            match out.last_mut() {
                Some(l) if l.0 == k => l.1 += n,
                _ => out.push((k, n)),
            }
        }
        Histogram(out)
    }

    /// The count of `k`.
    pub fn get(&self, k: &str) -> Option<u64> {
        self.0.binary_search_by(|x| x.0.as_ref().cmp(k)).ok().map(|i| self.0[i].1)
    }

    /// (name, count) in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, u64)> + '_ {
        self.0.iter().map(|(k, v)| (k.as_ref(), *v))
    }

    /// Names in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> + '_ {
        self.0.iter().map(|x| x.0.as_ref())
    }

    /// Number of names.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Adds `n` to `k`.
    pub fn add(&mut self, k: impl Into<Cow<'static, str>>, n: u64) {
        let k = k.into();
        match self.0.binary_search_by(|x| x.0.as_ref().cmp(k.as_ref())) {
            Ok(i) => self.0[i].1 += n,
            Err(i) => self.0.insert(i, (k, n)),
        }
    }

    /// Adds every count of `o`.
    pub fn merge(&mut self, o: &Histogram) {
        if o.is_empty() {
            return;
        }
        let mut out = Vec::with_capacity(self.0.len() + o.0.len());
        let (mut a, mut b) = (std::mem::take(&mut self.0).into_iter().peekable(), o.0.iter().peekable());
        loop {
            match (a.peek(), b.peek()) {
                (Some(x), Some(y)) => match x.0.cmp(&y.0) {
                    std::cmp::Ordering::Less => out.push(a.next().unwrap()),
                    std::cmp::Ordering::Greater => out.push(b.next().unwrap().clone()),
                    std::cmp::Ordering::Equal => {
                        let (k, n) = a.next().unwrap();
                        out.push((k, n + b.next().unwrap().1));
                    }
                },
                (Some(_), None) => out.push(a.next().unwrap()),
                (None, Some(_)) => out.push(b.next().unwrap().clone()),
                (None, None) => break,
            }
        }
        self.0 = out;
    }
}

impl Serialize for Histogram {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k.as_ref(), v)?;
        }
        m.end()
    }
}

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
    /// AMD: resource operands by where their SGPRs were written
    /// (`image.rsrc s[8:15] <- s_load_dwordx8 s[4:5]+0x20`, `... <- user`; see CENSUS_SCHEMA.md).
    pub descriptor_origins: Histogram,
    /// NVIDIA constant-bank reads by bank (`c[0x0]`, `c[0x2]`, `cx[UR]`).
    pub cbuf_banks: Histogram,
    /// NVIDIA instructions with a directed rounding mode (`FADD.RZ`).
    pub directed_rounding: Histogram,
    /// gfx1013 -> gfx12: instructions by category (unchanged, reencoded, renamed, expanded,
    /// unsupported).
    pub gfx12: Histogram,
    /// gfx1013 -> gfx12: the mnemonics in each category other than `unchanged`.
    pub gfx12_ops: BTreeMap<&'static str, Histogram>,
}

impl Counts {
    /// Adds `o` into `self`.
    pub fn add(&mut self, o: &Counts) {
        self.instructions += o.instructions;
        self.code_bytes += o.code_bytes;
        self.data_bytes += o.data_bytes;
        self.opcodes.merge(&o.opcodes);
        self.encodings.merge(&o.encodings);
        self.features.merge(&o.features);
        self.export_targets.merge(&o.export_targets);
        self.interpolation.merge(&o.interpolation);
        self.descriptor_sources.merge(&o.descriptor_sources);
        self.descriptor_origins.merge(&o.descriptor_origins);
        self.cbuf_banks.merge(&o.cbuf_banks);
        self.directed_rounding.merge(&o.directed_rounding);
        self.gfx12.merge(&o.gfx12);
        for (k, h) in &o.gfx12_ops {
            self.gfx12_ops.entry(k).or_default().merge(h);
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

/// One shader (function symbol, or the whole input for a raw dump). Its named [`Counts`] are
/// built on demand ([`Shader::counts`], and when serialized): the totals need only the counts
/// by table index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shader {
    /// Symbol name.
    pub name: String,
    /// Code section (shared by the shaders of one section).
    pub section: std::sync::Arc<str>,
    /// Address of its first byte.
    pub start: u64,
    /// Size in bytes.
    pub size: u64,
    /// AMD: `wave32`, `wave64` or `unknown`; NVIDIA: `warp32`.
    pub wave: &'static str,
    /// How the wave size was found: `kernel_descriptor`, `instructions`, `isa` or `none`.
    pub wave_source: &'static str,
    /// CFG recovery.
    pub cfg: CfgSummary,
    /// ISA of its code (names the counts).
    isa: Isa,
    /// What it contains, by table index (named by [`Shader::counts`]). Boxed: it is most of a
    /// shader's size, and a file's `Vec<Shader>` of small records stays out of the allocator's
    /// fresh-mapping path (a large vector is mapped anew, and page-faulted, on every run).
    raw: Box<Raw>,
    /// AMD: the wave size the instructions show (exec written by 32- or 64-bit ops only).
    inst_wave: Option<WaveSize>,
}

impl Serialize for Shader {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut m = s.serialize_struct("Shader", 8)?;
        m.serialize_field("name", &self.name)?;
        m.serialize_field("section", &*self.section)?;
        m.serialize_field("start", &self.start)?;
        m.serialize_field("size", &self.size)?;
        m.serialize_field("wave", self.wave)?;
        m.serialize_field("wave_source", self.wave_source)?;
        m.serialize_field("cfg", &self.cfg)?;
        m.serialize_field("counts", &self.counts())?;
        m.end()
    }
}

impl Shader {
    /// What it contains, named (built on each call; cheap for a few shaders, so callers that
    /// need them repeatedly keep the result).
    pub fn counts(&self) -> Counts {
        name_counts(self.isa, &self.raw)
    }

    /// Instructions counted (without naming the other counts).
    pub fn instructions(&self) -> u64 {
        self.raw.instructions
    }

    /// AMD: the wave size the instructions alone show (`*_saveexec_b32` or a 32-bit op writing
    /// `exec_lo` -> 32; the 64-bit forms -> 64), whatever `wave` says; None when they show none
    /// or both.
    pub fn wave_from_instructions(&self) -> Option<WaveSize> {
        self.inst_wave
    }
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
        let failed_files = files.iter().filter(|f| f.error.is_some()).count() as u64;
        let mut per: BTreeMap<&'static str, RawTotal> = BTreeMap::new();
        for f in &files {
            if let Some(isa) = f.isa.as_deref().and_then(Isa::from_name) {
                let e = per.entry(isa.name()).or_insert_with(|| RawTotal::new(isa));
                for s in &f.shaders {
                    e.add(&s.raw);
                }
                e.shaders += f.shaders.len() as u64;
            }
        }
        let shaders_per_isa: BTreeMap<String, u64> =
            per.iter().filter(|(_, t)| t.shaders > 0).map(|(k, t)| (k.to_string(), t.shaders)).collect();
        let mut per_isa = BTreeMap::new();
        let mut totals = Counts::default();
        for (k, t) in per {
            let c = t.finish();
            totals.add(&c);
            per_isa.insert(k.to_string(), c);
        }
        Census { schema_version: SCHEMA_VERSION, files, per_isa, totals, shaders_per_isa, failed_files }
    }
}

/// Buffers the census reuses between shaders: per-opcode counters and the CFG walk's
/// buffers. It holds no results; keep one per worker (see [`census_bytes_with`]).
#[derive(Default)]
pub struct CensusScratch {
    /// Per table index, a counter (all zero between shaders).
    count: Vec<u32>,
    /// The indices a shader counted, in the order first seen.
    seen: Vec<u16>,
    cfg: cfg::CfgScratch,
}

/// One function of a loaded program whose census is still to be taken (see
/// [`census_bytes_with`]).
pub struct ShaderJob<'a> {
    p: &'a Program,
    s: &'a load::Section,
    f: &'a load::Function,
    section: &'a std::sync::Arc<str>,
    names: bool,
}

impl ShaderJob<'_> {
    /// Takes the function's census with the buffers of `sc`.
    pub fn run(&self, sc: &mut CensusScratch) -> Shader {
        shader(self.p, self.s, self.f, self.section, self.names, sc)
    }
}

/// Takes the census of one input's bytes, one function after the other. `path` is only
/// recorded.
pub fn census_bytes(path: &str, bytes: &[u8], raw_isa: Option<Isa>) -> FileCensus {
    census_bytes_with(path, bytes, raw_isa, in_order)
}

/// [`census_bytes`] with the functions' census taken by `run`, which gets every function's
/// [`ShaderJob`] and returns their [`Shader`]s in the same order: a caller with threads of
/// its own runs them in parallel (one [`CensusScratch`] per worker); the library runs none.
pub fn census_bytes_with<R>(path: &str, bytes: &[u8], raw_isa: Option<Isa>, run: R) -> FileCensus
where
    R: FnOnce(&[ShaderJob<'_>]) -> Vec<Shader>,
{
    match load::load(bytes, raw_isa) {
        Ok(mut p) => {
            // The program is ours: its symbol names move into the shaders instead of being copied.
            let mut fc = census_program_with(path, &p, false, run);
            let mut names = p.sections.iter_mut().flat_map(|s| s.functions.iter_mut().map(|f| std::mem::take(&mut f.name)));
            for (sh, n) in fc.shaders.iter_mut().zip(&mut names) {
                sh.name = n;
            }
            fc
        }
        Err(e) => FileCensus { path: path.into(), isa: None, error: Some(e.to_string()), shaders: Vec::new() },
    }
}

/// Takes the census of a loaded program, one function after the other, in address order.
pub fn census_program(path: &str, p: &Program) -> FileCensus {
    census_program_with(path, p, true, in_order)
}

/// Runs the jobs one after the other with one [`CensusScratch`].
fn in_order(jobs: &[ShaderJob<'_>]) -> Vec<Shader> {
    let mut sc = CensusScratch::default();
    jobs.iter().map(|j| j.run(&mut sc)).collect()
}

/// [`census_program`] with the functions run by `run`; without `names`, the shaders' names are
/// left empty for the caller to fill in (in the order of `p`'s sections and functions).
fn census_program_with<R>(path: &str, p: &Program, names: bool, run: R) -> FileCensus
where
    R: FnOnce(&[ShaderJob<'_>]) -> Vec<Shader>,
{
    // Each section's name once, shared by its shaders.
    let section_names: Vec<std::sync::Arc<str>> = p.sections.iter().map(|s| std::sync::Arc::from(s.name.as_str())).collect();
    let jobs: Vec<ShaderJob<'_>> = p
        .sections
        .iter()
        .zip(&section_names)
        .flat_map(|(s, n)| s.functions.iter().map(move |f| ShaderJob { p, s, f, section: n, names }))
        .collect();
    let shaders = run(&jobs);
    FileCensus { path: path.into(), isa: Some(p.isa.name().into()), error: None, shaders }
}

/// Feature counter names; a shader counts them in an array indexed by position.
const FEATURES: [&str; 48] = [
    "branch",
    "buffer",
    "cf.bra",
    "cf.break",
    "cf.brk",
    "cf.brx",
    "cf.bssy",
    "cf.bsync",
    "cf.cal",
    "cf.call",
    "cf.cont",
    "cf.exit",
    "cf.jcal",
    "cf.jmp",
    "cf.jmx",
    "cf.kil",
    "cf.kill",
    "cf.pbk",
    "cf.pcnt",
    "cf.pret",
    "cf.ret",
    "cf.ssy",
    "cf.sync",
    "cf.warpsync",
    "constant_load",
    "dpp16",
    "dpp8",
    "endpgm",
    "export",
    "fetch_shader_call",
    "flat",
    "getpc",
    "global",
    "image",
    "interp",
    "jump_table",
    "lds",
    "local",
    "movrel",
    "param_load",
    "predicated",
    "scratch",
    "sdwa",
    "setpc",
    "smem",
    "swappc",
    "undecodable_words",
    "uniform_registers",
];
const NF: usize = FEATURES.len();
const _: () = assert!(NF <= 64, "feature sets are u64 bit sets");

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The index of a feature name (a compile-time error for an unknown name).
const fn feat(n: &str) -> usize {
    let mut i = 0;
    while i < NF {
        if str_eq(FEATURES[i], n) {
            return i;
        }
        i += 1;
    }
    panic!("unknown feature name")
}

fn feat_id(n: &str) -> Option<usize> {
    FEATURES.iter().position(|f| *f == n)
}

const F_PREDICATED: usize = feat("predicated");
const F_UNIFORM: usize = feat("uniform_registers");
const F_UNDECODABLE: usize = feat("undecodable_words");
const F_FETCH_CALL: usize = feat("fetch_shader_call");
const F_JUMP_TABLE: usize = feat("jump_table");

/// A resource operand, its registers and where their value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct DescKey {
    kind: &'static str,
    base: u32,
    len: u32,
    origin: Origin,
}

/// Which instruction wrote the SGPRs of a resource operand, found by walking the CFG backwards
/// from the use (every path).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Origin {
    /// Not traced (the function's CFG could not be recovered).
    Unknown,
    /// No instruction of the function writes them before the use: user SGPRs (or arguments).
    User,
    /// All registers from one scalar memory load (`s_load_*`, `s_buffer_load_*`): its table
    /// entry, its SBASE register, and the byte offset of the operand's first register within
    /// the loaded data (immediate offset + 4 x register position) plus an SOFFSET register.
    Load { ienc: u16, sbase: u8, offset: i64, soffset: Option<u8> },
    /// All registers from one other instruction (its table entry).
    Other(u16),
    /// Clobbered by a call (`s_swappc_b64`) between the write and the use.
    Call,
    /// Registers from different writers: per register (up to 8) a table entry or one of
    /// [`MIX_USER`], [`MIX_CALL`], [`MIX_PATHS`]; unused slots [`MIX_NONE`].
    Mixed([u16; 8]),
}

/// In [`Origin::Mixed`]: not written in the function.
const MIX_USER: u16 = u16::MAX;
/// In [`Origin::Mixed`]: a call.
const MIX_CALL: u16 = u16::MAX - 1;
/// In [`Origin::Mixed`]: different writers on different paths.
const MIX_PATHS: u16 = u16::MAX - 2;
/// In [`Origin::Mixed`]: past the operand's registers.
const MIX_NONE: u16 = u16::MAX - 3;

/// Counts of one shader (or one ISA's total) by table index, before names are attached.
/// Small maps are vectors sorted by key.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Raw {
    /// (instruction table index, count): AMD (instruction, encoding) pair; NVIDIA form. In no
    /// particular order (a shader's: as first seen; a total's: by index).
    runs: Vec<(u16, u64)>,
    features: [u64; NF],
    export_targets: Vec<(u32, u64)>,
    interp: Vec<((u16, u32), u64)>,
    descriptors: Vec<(DescKey, u64)>,
    cbuf_banks: Vec<(Option<u32>, u64)>,
    rounding: Vec<((u16, &'static str), u64)>,
    instructions: u64,
    code_bytes: u64,
    data_bytes: u64,
}

impl Default for Raw {
    fn default() -> Self {
        Raw {
            runs: Vec::new(),
            features: [0; NF],
            export_targets: Vec::new(),
            interp: Vec::new(),
            descriptors: Vec::new(),
            cbuf_banks: Vec::new(),
            rounding: Vec::new(),
            instructions: 0,
            code_bytes: 0,
            data_bytes: 0,
        }
    }
}

fn bump_small<K: PartialEq>(v: &mut Vec<(K, u64)>, k: K) {
    match v.iter_mut().find(|x| x.0 == k) {
        Some(x) => x.1 += 1,
        None => v.push((k, 1)),
    }
}

/// One ISA's totals being summed: a dense vector over the instruction table.
struct RawTotal {
    isa: Isa,
    dense: Vec<u64>,
    features: [u64; NF],
    export_targets: BTreeMap<u32, u64>,
    interp: BTreeMap<(u16, u32), u64>,
    descriptors: BTreeMap<DescKey, u64>,
    cbuf_banks: BTreeMap<Option<u32>, u64>,
    rounding: BTreeMap<(u16, &'static str), u64>,
    instructions: u64,
    code_bytes: u64,
    data_bytes: u64,
    /// Shaders summed.
    shaders: u64,
}

fn add_map<K: Ord + Copy>(m: &mut BTreeMap<K, u64>, v: &[(K, u64)]) {
    for &(k, n) in v {
        *m.entry(k).or_default() += n;
    }
}

impl RawTotal {
    fn new(isa: Isa) -> Self {
        RawTotal {
            isa,
            dense: Vec::new(),
            features: [0; NF],
            export_targets: BTreeMap::new(),
            interp: BTreeMap::new(),
            descriptors: BTreeMap::new(),
            cbuf_banks: BTreeMap::new(),
            rounding: BTreeMap::new(),
            instructions: 0,
            code_bytes: 0,
            data_bytes: 0,
            shaders: 0,
        }
    }

    fn add(&mut self, r: &Raw) {
        for &(i, n) in &r.runs {
            let i = i as usize;
            if i >= self.dense.len() {
                self.dense.resize(i + 1, 0);
            }
            self.dense[i] += n;
        }
        for (a, b) in self.features.iter_mut().zip(&r.features) {
            *a += b;
        }
        add_map(&mut self.export_targets, &r.export_targets);
        add_map(&mut self.interp, &r.interp);
        add_map(&mut self.descriptors, &r.descriptors);
        add_map(&mut self.cbuf_banks, &r.cbuf_banks);
        add_map(&mut self.rounding, &r.rounding);
        self.instructions += r.instructions;
        self.code_bytes += r.code_bytes;
        self.data_bytes += r.data_bytes;
    }

    fn finish(self) -> Counts {
        let raw = Raw {
            runs: self.dense.iter().enumerate().filter(|x| *x.1 > 0).map(|(i, n)| (i as u16, *n)).collect(),
            features: self.features,
            export_targets: self.export_targets.into_iter().collect(),
            interp: self.interp.into_iter().collect(),
            descriptors: self.descriptors.into_iter().collect(),
            cbuf_banks: self.cbuf_banks.into_iter().collect(),
            rounding: self.rounding.into_iter().collect(),
            instructions: self.instructions,
            code_bytes: self.code_bytes,
            data_bytes: self.data_bytes,
        };
        name_counts(self.isa, &raw)
    }
}

/// Counters gathered while walking one shader.
struct Acc {
    isa: Isa,
    /// Per table index, the instructions counted so far (the caller's [`CensusScratch`], all
    /// zero between shaders), and the indices seen, in the order first seen.
    count: Vec<u32>,
    seen: Vec<u16>,
    raw: Raw,
    w32: u64,
    w64: u64,
    /// Index into the CFG's instructions of the instruction being counted.
    at: usize,
    /// Resource operands seen: (instruction index, operand), origin still Unknown.
    desc_uses: Vec<(usize, DescKey)>,
}

impl Acc {
    /// Counts one instruction of table index `i`.
    #[inline]
    fn bump(&mut self, i: u16) {
        let k = i as usize;
        if k >= self.count.len() {
            self.count.resize(k + 1, 0);
        }
        let c = &mut self.count[k];
        if *c == 0 {
            self.seen.push(i);
        }
        *c += 1;
    }
}

fn shader(p: &Program, s: &load::Section, f: &load::Function, section: &std::sync::Arc<str>, name: bool, sc: &mut CensusScratch) -> Shader {
    let isa = p.isa;
    let count = std::mem::take(&mut sc.count);
    let mut seen = std::mem::take(&mut sc.seen);
    seen.clear();
    let mut acc = Acc {
        isa,
        count,
        seen,
        raw: Raw::default(),
        w32: 0,
        w64: 0,
        at: 0,
        desc_uses: Vec::new(),
    };
    let entry_wave = p.entry_wave.get(&f.name).copied();
    let known_wave = entry_wave.map(|x| x.0).or(p.object_wave);
    let mut summary = CfgSummary::default();
    match cfg::recover_in(isa, s, f, &mut sc.cfg) {
        Ok(g) => {
            summary.blocks = g.blocks.len() as u64;
            summary.edges = g.edges.len() as u64;
            let mut calls: Vec<(&'static str, u64)> = Vec::new();
            for c in &g.calls {
                let k = match c.target {
                    CallTarget::Direct(_) => "direct",
                    CallTarget::External(_) => "external",
                    CallTarget::FetchShader(_) => "fetch_shader",
                    CallTarget::Indirect(_) | CallTarget::Pending => "indirect",
                };
                bump_small(&mut calls, k);
            }
            summary.calls = Histogram::from_pairs(calls.into_iter().map(|(k, n)| (Cow::Borrowed(k), n)).collect());
            acc.raw.data_bytes = g.data.iter().map(|(a, b)| b - a).sum();
            if cfg::machine(isa).vendor() == cfg::Vendor::Amd {
                let tab = amd_tab(isa);
                for (k, (_, d, flow)) in g.insts.iter().enumerate() {
                    acc.at = k;
                    amd_inst(&mut acc, tab, d);
                    flow_features(&mut acc, flow);
                }
                let uses = std::mem::take(&mut acc.desc_uses);
                if !uses.is_empty() {
                    let mut tracer = Tracer::new(&g, tab, known_wave != Some(WaveSize::W32));
                    for (k, mut key) in uses {
                        key.origin = tracer.origin(k, key.base, key.len);
                        bump_small(&mut acc.raw.descriptors, key);
                    }
                }
            } else {
                let tab = nv_tab(isa);
                for (_, d, flow) in &g.insts {
                    nv_inst(&mut acc, tab, d);
                    flow_features(&mut acc, flow);
                }
            }
            sc.cfg.recycle(g);
        }
        Err(e) => {
            summary.error = Some(e.to_string());
            sweep(&mut acc, s, f);
            for (_, key) in std::mem::take(&mut acc.desc_uses) {
                bump_small(&mut acc.raw.descriptors, key);
            }
        }
    }
    let inst_wave = match (acc.w32 > 0, acc.w64 > 0) {
        (true, false) => Some(WaveSize::W32),
        (false, true) => Some(WaveSize::W64),
        _ => None,
    };
    let (wave, wave_source) = match cfg::machine(isa).fixed_lanes() {
        Some(_) => ("warp32", "isa"),
        None => match entry_wave.map(|x| (x.0, x.1.name())).or(p.object_wave.map(|w| (w, "object"))) {
            Some((WaveSize::W32, src)) => ("wave32", src),
            Some((WaveSize::W64, src)) => ("wave64", src),
            None => match inst_wave {
                Some(WaveSize::W32) => ("wave32", "instructions"),
                Some(WaveSize::W64) => ("wave64", "instructions"),
                None => ("unknown", "none"),
            },
        },
    };
    let mut raw = acc.raw;
    // By index, in the order first seen (named and sorted only when asked: Shader::counts).
    let mut count = acc.count;
    raw.runs = acc.seen.iter().map(|&i| (i, std::mem::take(&mut count[i as usize]) as u64)).collect();
    (sc.count, sc.seen) = (count, acc.seen);
    raw.export_targets.sort_unstable();
    raw.interp.sort_unstable();
    raw.descriptors.sort_unstable();
    raw.cbuf_banks.sort_unstable();
    raw.rounding.sort_unstable();
    Shader {
        name: if name { f.name.clone() } else { String::new() },
        section: section.clone(),
        start: f.start,
        size: f.end - f.start,
        wave,
        wave_source,
        cfg: summary,
        isa,
        raw: Box::new(raw),
        inst_wave,
    }
}

fn inst(acc: &mut Acc, d: &Decoded) {
    if cfg::machine(acc.isa).vendor() == cfg::Vendor::Amd {
        amd_inst(acc, amd_tab(acc.isa), d)
    } else {
        nv_inst(acc, nv_tab(acc.isa), d)
    }
}

/// Counts a function front to back (used when its CFG cannot be recovered).
fn sweep(acc: &mut Acc, s: &load::Section, f: &load::Function) {
    let m = cfg::machine(acc.isa);
    let code = cfg::Code { isa: acc.isa, section: s, start: f.start, end: f.end };
    let mut a = m.first(f.start);
    while a < f.end {
        match m.decode_at(&code, a) {
            Ok(d) => {
                inst(acc, &d);
                a = m.next(a, &d);
            }
            Err(_) => {
                acc.raw.features[F_UNDECODABLE] += 1;
                a = m.skip(a);
            }
        }
    }
}

fn flow_features(acc: &mut Acc, flow: &Flow) {
    match flow {
        Flow::Call(CallTarget::FetchShader(_)) => acc.raw.features[F_FETCH_CALL] += 1,
        Flow::Table(_) => acc.raw.features[F_JUMP_TABLE] += 1,
        _ => {}
    }
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
    /// The instruction has a sampler operand.
    pub const HAS_SAMP: u32 = 1 << 22;
    /// `s_buffer_load_*` / `s_buffer_store_*`: SBASE is a buffer descriptor.
    pub const S_BUFFER: u32 = 1 << 23;
    /// `s_movrel*` / `v_movrel*`: a register chosen at run time by M0.
    pub const MOVREL: u32 = 1 << 24;
    pub const FIELD_WORK: u32 = IMAGE | BUFFER | EXPORT | INTERP | S_BUFFER | SOP_B32 | SOP_B64;
    /// (class bit, feature name) of the classes counted as features.
    pub const FEATURE_BITS: [(u32, &str); 19] = [
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
        (MOVREL, "movrel"),
    ];
}

/// The fields the census reads, per AMD encoding.
#[derive(Default, Clone, Copy)]
struct AmdFields {
    sdst: Option<Field>,
    rsrc: Option<Field>,
    samp: Option<Field>,
    r128: Option<Field>,
    sbase: Option<Field>,
    target: Option<Field>,
    attr: Option<Field>,
    sdata: Option<Field>,
    offset: Option<Field>,
    soffset: Option<Field>,
}

/// In [`SDef::regs`]: every SGPR from the field's register up (an M0-indexed write).
const SDEF_FROM: u8 = u8::MAX;

/// SGPRs that a call preserves: callee-saved in both AMDGPU calling conventions that LLVM uses for
/// calls between functions, the C convention (`CSR_AMDGPU_SGPRs`: s30-s39, s48-s55, s64-s71,
/// s80-s87, s96-s105; earlier LLVM releases saved s32-s105) and `amdgpu_gfx`
/// (`CSR_AMDGPU_SI_Gfx_SGPRs`: s4-s31, s64-s105): s64-s71, s80-s87 and s96-s105. s[30:31] is
/// callee-saved too but holds the return address the call itself writes. A fetch-shader call
/// (driver code, no LLVM convention) preserves nothing.
const CALL_PRESERVED: u128 = (0xffu128 << 64) | (0xffu128 << 80) | (0x3ffu128 << 96);

/// An SGPR an instruction writes: its field, how many registers (a lane mask counts as 0: one
/// register in wave32, two in wave64; [`SDEF_FROM`]: all from the field up).
#[derive(Clone, Copy)]
struct SDef {
    field: Field,
    regs: u8,
}

/// Names sorted, and each table entry's rank among them.
struct Ranked {
    names: Vec<&'static str>,
    rank: Vec<u16>,
}

impl Ranked {
    fn new(per_entry: Vec<&'static str>) -> Ranked {
        let mut names = per_entry.clone();
        names.sort_unstable();
        names.dedup();
        let rank: Vec<u16> = per_entry.iter().map(|n| names.binary_search(n).unwrap_or(0) as u16).collect();
        Ranked { names, rank }
    }

    /// Names (rank, count) pairs that come in rank order, adding up the counts of equal ranks.
    fn merge_ranked(&self, len: usize, ranked: impl Iterator<Item = (u16, u64)>) -> Histogram {
        let mut out: Vec<(Cow<'static, str>, u64)> = Vec::with_capacity(len);
        let mut last = u16::MAX;
        for (r, n) in ranked {
            if r == last {
                if let Some(l) = out.last_mut() {
                    l.1 += n;
                }
            } else {
                out.push((Cow::Borrowed(self.names.get(r as usize).copied().unwrap_or("?")), n));
                last = r;
            }
        }
        Histogram(out)
    }

    /// Histogram of `runs` (entry index, count) by name.
    fn histogram(&self, runs: &[(u16, u64)]) -> Histogram {
        self.histogram_of(runs.iter().copied())
    }

    /// Histogram of (entry index, count) pairs by name.
    fn histogram_of(&self, runs: impl Iterator<Item = (u16, u64)>) -> Histogram {
        // Most shaders use a few dozen entries: sort their ranks on the stack.
        let mut small = [(0u16, 0u64); 64];
        let mut big = Vec::new();
        let mut len = 0;
        for (i, n) in runs {
            let r = (self.rank.get(i as usize).copied().unwrap_or(0), n);
            if len < small.len() {
                small[len] = r;
            } else {
                if big.is_empty() {
                    big.extend_from_slice(&small);
                }
                big.push(r);
            }
            len += 1;
        }
        let v: &mut [(u16, u64)] = if big.is_empty() { &mut small[..len] } else { &mut big };
        v.sort_unstable_by_key(|x| x.0);
        self.merge_ranked(v.len(), v.iter().copied())
    }
}

/// Per-ISA facts of AMD instructions, computed once.
struct AmdTab {
    class: Vec<u32>,
    /// Per entry: the features it counts towards, as a bit set over FEATURES.
    feats: Vec<u64>,
    enc: Vec<u16>,
    fields: Vec<AmdFields>,
    opcodes: Ranked,
    encodings: Ranked,
    mnemonic: Vec<&'static str>,
    /// gfx1013 only: (category index into GFX12_CATS, mnemonic) per entry.
    gfx12: Vec<(u8, &'static str)>,
    /// gfx1013 only: the gfx12 mnemonics ranked.
    gfx12_names: Ranked,
    /// Per entry: the SGPR fields it writes.
    sdefs: Vec<Vec<SDef>>,
    /// Per entry: an `s_load_*` / `s_buffer_load_*`.
    smem_load: Vec<bool>,
    /// Encoding of `null` as a scalar operand (gfx10 125, gfx12 124).
    sgpr_null: u64,
}

const GFX12_CATS: [&str; 5] = ["expanded", "reencoded", "renamed", "unchanged", "unsupported"];

fn amd_tab(isa: Isa) -> &'static AmdTab {
    static T10: OnceLock<AmdTab> = OnceLock::new();
    static T12: OnceLock<AmdTab> = OnceLock::new();
    macro_rules! build {
        ($p:expr) => {{
            let t = $p.tables();
            let class: Vec<u32> = t
                .inst_encodings
                .iter()
                .map(|ie| {
                    let e = t.encodings[ie.enc as usize].name;
                    let n = t.instructions[ie.inst as usize].name;
                    let mut c = amd_class(e, n);
                    if ie.operands.iter().any(|o| o.field.is_some_and(|f| f.name == "SSAMP" || f.name == "SAMP")) {
                        c |= class::HAS_SAMP;
                    }
                    c
                })
                .collect();
            let fields = t
                .encodings
                .iter()
                .map(|e| {
                    let f = |n: &str| e.fields.iter().find(|x| x.name == n).copied();
                    AmdFields {
                        sdst: f("SDST"),
                        rsrc: f("SRSRC").or_else(|| f("RSRC")),
                        samp: f("SSAMP").or_else(|| f("SAMP")),
                        r128: f("R128"),
                        sbase: f("SBASE"),
                        target: f("TARGET").or_else(|| f("TGT")),
                        attr: f("ATTR"),
                        sdata: f("SDATA"),
                        offset: f("OFFSET").or_else(|| f("IOFFSET")),
                        soffset: f("SOFFSET"),
                    }
                })
                .collect();
            let mnemonic: Vec<&'static str> =
                t.inst_encodings.iter().map(|ie| t.instructions[ie.inst as usize].mnemonic).collect();
            let sdefs = t
                .inst_encodings
                .iter()
                .map(|ie| {
                    let enc = t.encodings[ie.enc as usize].name;
                    let mn = t.instructions[ie.inst as usize].mnemonic;
                    ie.operands
                        .iter()
                        .filter(|o| o.is_output())
                        .filter(|o| matches!(t.operand_types[o.ty as usize].name, "OPR_SREG" | "OPR_SDST"))
                        .filter_map(|o| {
                            let field = o.field?;
                            // A 32-bit scalar result of a VOP3 compare or carry op is a lane mask.
                            let mask = enc.starts_with("ENC_VOP3") && o.size == 32 && !mn.starts_with("v_read");
                            // `s_movreld_*` writes s[SDST + M0]: any SGPR from SDST up.
                            let regs = if mn.starts_with("s_movreld") {
                                SDEF_FROM
                            } else if mask {
                                0
                            } else {
                                o.size.div_ceil(32).max(1) as u8
                            };
                            Some(SDef { field: *field, regs })
                        })
                        .collect::<Vec<_>>()
                })
                .collect();
            let smem_load = t
                .inst_encodings
                .iter()
                .map(|ie| {
                    let mn = t.instructions[ie.inst as usize].mnemonic;
                    t.encodings[ie.enc as usize].name == "ENC_SMEM"
                        && (mn.starts_with("s_load_") || mn.starts_with("s_buffer_load_"))
                })
                .collect();
            let gfx12: Vec<(u8, &'static str)> = if crate::gfx12map::maps(isa) {
                (0..t.inst_encodings.len())
                    .map(|i| {
                        let (cat, name) = crate::gfx12map::category(i);
                        (GFX12_CATS.iter().position(|c| *c == cat).unwrap_or(4) as u8, name)
                    })
                    .collect()
            } else {
                Vec::new()
            };
            let feats = class
                .iter()
                .map(|&cl| {
                    class::FEATURE_BITS
                        .iter()
                        .filter(|(bit, _)| cl & bit != 0)
                        .filter_map(|(_, k)| feat_id(k))
                        .fold(0u64, |m, f| m | 1 << f)
                })
                .collect();
            let gfx12_names = Ranked::new(gfx12.iter().map(|x: &(u8, &'static str)| x.1).collect());
            AmdTab {
                gfx12_names,
                feats,
                class,
                enc: t.inst_encodings.iter().map(|ie| ie.enc).collect(),
                fields,
                opcodes: Ranked::new(mnemonic.clone()),
                encodings: Ranked::new(t.inst_encodings.iter().map(|ie| t.encodings[ie.enc as usize].name).collect()),
                mnemonic,
                gfx12,
                sdefs,
                smem_load,
                sgpr_null: cfg::machine(isa).null_sgpr().map_or(125, u64::from),
            }
        }};
    }
    if isa == Isa::Gfx1201 {
        T12.get_or_init(|| build!(GFX12))
    } else {
        T10.get_or_init(|| build!(GFX10))
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
    if enc == "ENC_SMEM" && name.starts_with("S_BUFFER_") {
        c |= S_BUFFER;
    }
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
    if name.starts_with("S_MOVREL") || name.starts_with("V_MOVREL") {
        c |= MOVREL;
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

#[inline(always)]
fn amd_inst(acc: &mut Acc, tab: &AmdTab, d: &Decoded) {
    use class::*;
    acc.raw.instructions += 1;
    acc.raw.code_bytes += d.len as u64;
    let i = d.ienc as usize;
    acc.bump(d.ienc);
    let c = tab.class.get(i).copied().unwrap_or(0);
    if c & (EXEC32 | EXEC64) != 0 {
        if c & EXEC32 != 0 {
            acc.w32 += 1;
        } else {
            acc.w64 += 1;
        }
        return;
    }
    if c & FIELD_WORK == 0 {
        return;
    }
    let fl = &tab.fields[tab.enc[i] as usize];
    let get = |f: &Option<Field>| f.as_ref().map(|f| f.get(&d.words));
    if c & (SOP_B32 | SOP_B64) != 0 {
        // Writing EXEC_LO (126) with a 32-bit op, or EXEC with a 64-bit op, shows the wave size.
        if get(&fl.sdst) == Some(126) {
            if c & SOP_B32 != 0 {
                acc.w32 += 1;
            } else {
                acc.w64 += 1;
            }
        }
        return;
    }
    let at = acc.at;
    let mut desc = |kind: &'static str, base: u64, len: u32| {
        acc.desc_uses.push((at, DescKey { kind, base: base as u32, len, origin: Origin::Unknown }));
    };
    if c & IMAGE != 0 {
        if let Some(r) = get(&fl.rsrc) {
            desc("image.rsrc", r * reg_scale(&fl.rsrc), if get(&fl.r128) == Some(1) { 4 } else { 8 });
        }
        if c & HAS_SAMP != 0 {
            if let Some(r) = get(&fl.samp) {
                desc("image.samp", r * reg_scale(&fl.samp), 4);
            }
        }
    }
    if c & BUFFER != 0 {
        if let Some(r) = get(&fl.rsrc) {
            desc("buffer.rsrc", r * reg_scale(&fl.rsrc), 4);
        }
    }
    if c & S_BUFFER != 0 {
        if let Some(r) = get(&fl.sbase) {
            desc("s_buffer.rsrc", r * 2, 4);
        }
    }
    if c & EXPORT != 0 {
        if let Some(t) = get(&fl.target) {
            bump_small(&mut acc.raw.export_targets, t as u32);
        }
    }
    if c & INTERP != 0 {
        if let Some(a) = get(&fl.attr) {
            bump_small(&mut acc.raw.interp, (d.ienc, a as u32));
        }
    }
}

/// Highest SGPR number + 1 (s0-s105 on gfx10 and gfx12; higher codes are VCC, TTMPs, M0, ...).
const NUM_SGPRS: u32 = 106;

/// What wrote one SGPR, as seen from a use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Def {
    /// Nothing on this path: the function's entry.
    Entry,
    /// The instruction at this index.
    Inst(usize),
    /// A call at this index.
    Call,
}

/// Finds what wrote the SGPRs of resource operands, walking one CFG backwards.
struct Tracer<'a> {
    g: &'a cfg::Cfg,
    tab: &'a AmdTab,
    /// Lane masks take two SGPRs (wave64 or unknown wave size).
    wide_masks: bool,
    /// Predecessors of block `b`: `pred_list[pred_start[b]..pred_start[b + 1]]`, in edge order.
    pred_start: Vec<u32>,
    pred_list: Vec<u32>,
    /// Entry block.
    entry: Option<usize>,
    /// Per instruction index, the SGPRs it writes as a 128-bit set (computed on demand).
    writes: Vec<Option<u128>>,
    /// Per block: the search (`stamp`) that last queued it.
    seen: Vec<u32>,
    stamp: u32,
    /// The backward search's work list and result, kept between searches.
    work: Vec<usize>,
    out: Vec<Def>,
}

impl<'a> Tracer<'a> {
    fn new(g: &'a cfg::Cfg, tab: &'a AmdTab, wide_masks: bool) -> Self {
        let n = g.blocks.len();
        let mut pred_start = vec![0u32; n + 1];
        for &(_, b, _) in &g.edges {
            pred_start[b + 1] += 1;
        }
        for i in 0..n {
            pred_start[i + 1] += pred_start[i];
        }
        let mut fill = pred_start.clone();
        let mut pred_list = vec![0u32; g.edges.len()];
        for &(a, b, _) in &g.edges {
            pred_list[fill[b] as usize] = a as u32;
            fill[b] += 1;
        }
        Tracer {
            g,
            tab,
            wide_masks,
            pred_start,
            pred_list,
            entry: g.block_at(g.entry),
            writes: vec![None; g.insts.len()],
            seen: vec![0; n],
            stamp: 0,
            work: Vec::new(),
            out: Vec::new(),
        }
    }

    /// The SGPRs instruction `k` writes; all of them for a call.
    #[inline(always)]
    fn writes(&mut self, k: usize) -> u128 {
        match self.writes[k] {
            Some(w) => w,
            None => self.writes_of(k),
        }
    }

    /// [`Tracer::writes`] of an instruction not yet looked at.
    #[inline(never)]
    fn writes_of(&mut self, k: usize) -> u128 {
        let (_, d, flow) = &self.g.insts[k];
        let all = (1u128 << NUM_SGPRS) - 1;
        let mut m = match flow {
            Flow::Call(CallTarget::FetchShader(_)) | Flow::CallPret(_) => all,
            Flow::Call(_) => all & !CALL_PRESERVED,
            _ => 0,
        };
        if let Some(defs) = self.tab.sdefs.get(d.ienc as usize) {
            for sd in defs {
                let r = sd.field.get(&d.words) as u32;
                let n = match sd.regs {
                    0 if self.wide_masks => 2,
                    0 => 1,
                    SDEF_FROM => NUM_SGPRS.saturating_sub(r),
                    n => n as u32,
                };
                for x in r..(r + n).min(NUM_SGPRS) {
                    m |= 1 << x;
                }
            }
        }
        self.writes[k] = Some(m);
        m
    }

    fn block_of(&self, k: usize) -> usize {
        self.g.blocks.partition_point(|b| b.end <= k)
    }

    /// Every write of SGPR `r` that reaches instruction `k`, into `self.out` (each once).
    fn defs(&mut self, k: usize, r: u32) {
        let bit = 1u128 << r;
        self.out.clear();
        let b0 = self.block_of(k);
        let first = self.g.blocks.get(b0).map_or(0, |b| b.first);
        if let Some(j) = (first..k).rev().find(|&j| self.writes(j) & bit != 0) {
            let d = self.def_at(j);
            self.out.push(d);
            return;
        }
        if self.stamp == u32::MAX {
            self.seen.iter_mut().for_each(|x| *x = 0);
            self.stamp = 0;
        }
        self.stamp += 1;
        let stamp = self.stamp;
        let push = |out: &mut Vec<Def>, d: Def| {
            if !out.contains(&d) {
                out.push(d)
            }
        };
        self.work.clear();
        self.work.push(b0);
        let mut top = true;
        while let Some(b) = self.work.pop() {
            if !top {
                let blk = &self.g.blocks[b];
                let (lo, hi) = (blk.first, blk.end);
                if let Some(j) = (lo..hi).rev().find(|&j| self.writes(j) & bit != 0) {
                    let d = self.def_at(j);
                    push(&mut self.out, d);
                    continue;
                }
            }
            top = false;
            let (ps, pe) = (self.pred_start[b] as usize, self.pred_start[b + 1] as usize);
            if Some(b) == self.entry || ps == pe {
                push(&mut self.out, Def::Entry);
            }
            for i in ps..pe {
                let p = self.pred_list[i] as usize;
                if self.seen[p] != stamp {
                    self.seen[p] = stamp;
                    self.work.push(p);
                }
            }
        }
    }

    fn def_at(&self, j: usize) -> Def {
        if matches!(self.g.insts[j].2, Flow::Call(_) | Flow::CallPret(_)) {
            Def::Call
        } else {
            Def::Inst(j)
        }
    }

    /// Where the registers `s[base..base+len]` read at instruction `k` come from.
    fn origin(&mut self, k: usize, base: u32, len: u32) -> Origin {
        let mut per = [MIX_NONE; 8];
        let mut one: Option<Def> = None;
        let mut same = true;
        // One backward scan of the use's own block for all the registers: most are written
        // there (the last write before `k` is what `defs` would find first).
        let mut near: [Option<Def>; 8] = [None; 8];
        let mut left: u128 = 0;
        for r in (base..base + len.min(8)).filter(|&r| r < NUM_SGPRS) {
            left |= 1 << r;
        }
        let first = self.g.blocks.get(self.block_of(k)).map_or(0, |b| b.first);
        let mut j = k;
        while left != 0 && j > first {
            j -= 1;
            let hit = self.writes(j) & left;
            if hit != 0 {
                let d = self.def_at(j);
                for (i, r) in (base..base + len.min(8)).enumerate() {
                    if r < NUM_SGPRS && hit >> r & 1 != 0 {
                        near[i] = Some(d);
                    }
                }
                left &= !hit;
            }
        }
        for (i, r) in (base..base + len.min(8)).enumerate() {
            if let Some(d) = near[i] {
                self.out.clear();
                self.out.push(d);
            } else if r < NUM_SGPRS {
                self.defs(k, r);
            } else {
                self.out.clear();
            }
            let d = &self.out;
            per[i] = match d.as_slice() {
                [Def::Entry] => MIX_USER,
                [Def::Call] => MIX_CALL,
                [Def::Inst(j)] => self.g.insts[*j].1.ienc,
                _ => MIX_PATHS,
            };
            match (d.as_slice(), one) {
                ([d], None) => one = Some(*d),
                ([d], Some(o)) if *d == o => {}
                _ => same = false,
            }
        }
        if !same {
            return Origin::Mixed(per);
        }
        match one {
            Some(Def::Entry) => Origin::User,
            Some(Def::Call) => Origin::Call,
            Some(Def::Inst(j)) => {
                let d = &self.g.insts[j].1;
                let i = d.ienc as usize;
                if !self.tab.smem_load.get(i).copied().unwrap_or(false) {
                    return Origin::Other(d.ienc);
                }
                let fl = &self.tab.fields[self.tab.enc[i] as usize];
                let get = |f: &Option<Field>| f.as_ref().map(|f| f.get(&d.words));
                let (Some(sdata), Some(sbase)) = (get(&fl.sdata), get(&fl.sbase)) else { return Origin::Other(d.ienc) };
                let off = match fl.offset {
                    Some(f) => {
                        let bits: u32 = f.ranges.iter().map(|r| r.1 as u32).sum();
                        let v = f.get(&d.words) as i64;
                        // Signed: 21 bits on gfx10, 24 on gfx12.
                        (v << (64 - bits)) >> (64 - bits)
                    }
                    None => 0,
                };
                let soffset = get(&fl.soffset).filter(|&v| v != self.tab.sgpr_null && v < NUM_SGPRS as u64);
                Origin::Load {
                    ienc: d.ienc,
                    sbase: (sbase * 2) as u8,
                    offset: off + 4 * (base as i64 - sdata as i64),
                    soffset: soffset.map(|v| v as u8),
                }
            }
            None => Origin::Mixed(per),
        }
    }
}

/// `user`, `mixed`, `call`, `unknown`, a mnemonic, or `s_load_dwordx8 s[4:5]+0x20` (SBASE of
/// a buffer load as `s[a:a+3]`, a register offset as `+s23`).
fn origin_name(tab: &AmdTab, o: Origin) -> String {
    match o {
        Origin::Unknown => "unknown".into(),
        Origin::User => "user".into(),
        Origin::Call => "call".into(),
        Origin::Mixed(per) => {
            let mut s = String::from("mixed:");
            for c in per.into_iter().take_while(|c| *c != MIX_NONE) {
                s.push(' ');
                s += match c {
                    MIX_USER => "user",
                    MIX_CALL => "call",
                    MIX_PATHS => "paths",
                    i => tab.mnemonic.get(i as usize).copied().unwrap_or("?"),
                };
            }
            s
        }
        Origin::Other(i) => tab.mnemonic.get(i as usize).copied().unwrap_or("?").into(),
        Origin::Load { ienc, sbase, offset, soffset } => {
            let mn = tab.mnemonic.get(ienc as usize).copied().unwrap_or("?");
            let n = if mn.starts_with("s_buffer") { 4 } else { 2 };
            let mut s = format!("{mn} s[{}:{}]", sbase, sbase as u32 + n - 1);
            if let Some(r) = soffset {
                s += &format!("+s{r}");
            }
            if offset < 0 {
                s += &format!("-{:#x}", -offset);
            } else {
                s += &format!("+{offset:#x}");
            }
            s
        }
    }
}

/// How a resource field names its first SGPR: gfx10 MIMG/MUBUF/MTBUF SRSRC and SSAMP are 5-bit
/// fields holding the register number / 4; gfx12 VIMAGE/VSAMPLE/VBUFFER RSRC and SAMP are 9-bit
/// fields holding the register number itself.
fn reg_scale(f: &Option<Field>) -> u64 {
    match f {
        Some(f) if f.ranges.iter().map(|r| r.1 as u32).sum::<u32>() == 5 => 4,
        _ => 1,
    }
}

/// Per NVIDIA form: facts the census reads.
struct NvFormFacts {
    /// Whether an instruction is predicated, from its bits.
    guard: crate::nv::GuardTest,
    /// Uniform-register fields and their "none" value.
    uniform: Vec<(usize, u64)>,
    /// The constant-bank operand's bank field ([`crate::nv::cbuf_bank_field`]).
    cbuf: Option<Option<usize>>,
    rounding: Vec<usize>,
    /// Feature of a control-flow instruction (`cf.bra`).
    cf: Option<usize>,
    /// Memory-class feature (`image`, `lds`, `global`, `local`, `constant_load`).
    class: Option<usize>,
}

struct NvTab {
    forms: Vec<NvFormFacts>,
    opcodes: Ranked,
    encodings: Ranked,
}

fn nv_tab(isa: Isa) -> &'static NvTab {
    static F50: OnceLock<NvTab> = OnceLock::new();
    static F86: OnceLock<NvTab> = OnceLock::new();
    let build = || {
        let t = crate::nv::plugin(isa).t;
        let name = |f: &isabridge_decoder::spec::NvForm| t.insts.get(f.inst as usize).map(|x| x.name).unwrap_or("?");
        let forms = t
            .forms
            .iter()
            .map(|f| {
                let n = name(f);
                let cf = match n {
                    "BRA" | "BRX" | "JMP" | "JMX" | "SSY" | "SYNC" | "PBK" | "BRK" | "PCNT" | "CONT" | "CAL" | "JCAL"
                    | "PRET" | "RET" | "EXIT" | "BSSY" | "BSYNC" | "WARPSYNC" | "CALL" | "BREAK" | "KIL" | "KILL" => {
                        feat_id(&format!("cf.{}", n.to_ascii_lowercase()))
                    }
                    _ => None,
                };
                let class = match n {
                    "TEX" | "TEXS" | "TLD" | "TLDS" | "TLD4" | "TLD4S" | "TXQ" | "TMML" | "TXD" | "SULD" | "SUST"
                    | "SUATOM" | "SURED" => feat_id("image"),
                    "LDS" | "STS" | "ATOMS" => feat_id("lds"),
                    "LDG" | "STG" | "ATOMG" | "RED" | "LD" | "ST" | "ATOM" => feat_id("global"),
                    "LDL" | "STL" => feat_id("local"),
                    "LDC" | "ULDC" => feat_id("constant_load"),
                    _ => None,
                };
                NvFormFacts {
                    guard: crate::nv::guard_test(f),
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
                    cbuf: crate::nv::cbuf_bank_field(f),
                    rounding: f
                        .fields
                        .iter()
                        .enumerate()
                        .filter(|(_, x)| {
                            x.kind == NvKind::Lookup
                                && t.operand_types.get(x.ty as usize).is_some_and(|ty| {
                                    ty.values.iter().any(|&v| matches!(ty.spelling(v).trim_start_matches('.'), "RZ" | "RM" | "RP"))
                                })
                        })
                        .map(|(i, _)| i)
                        .collect(),
                    cf,
                    class,
                }
            })
            .collect();
        NvTab {
            forms,
            opcodes: Ranked::new(t.forms.iter().map(|f| name(f)).collect()),
            encodings: Ranked::new(t.forms.iter().map(|f| f.name).collect()),
        }
    };
    if isa == Isa::Sm50 {
        F50.get_or_init(build)
    } else {
        F86.get_or_init(build)
    }
}

#[inline(always)]
fn nv_inst(acc: &mut Acc, tab: &NvTab, d: &Decoded) {
    acc.raw.instructions += 1;
    acc.raw.code_bytes += cfg::machine(acc.isa).code_bytes(d);
    let i = d.enc as usize;
    acc.bump(d.enc);
    let Some(inf) = NvInfo::new(acc.isa, d) else { return };
    let Some(ff) = tab.forms.get(i) else { return };
    if ff.guard.predicated(inf.w) {
        acc.raw.features[F_PREDICATED] += 1;
    }
    if ff.uniform.iter().any(|&(k, none)| inf.form.fields[k].get(inf.w) != none) {
        acc.raw.features[F_UNIFORM] += 1;
    }
    if let Some(bank) = ff.cbuf {
        // What `inf.cbuf()` gives as the bank, from the field found once per form.
        bump_small(&mut acc.raw.cbuf_banks, bank.map(|k| inf.form.fields[k].get(inf.w) as u32));
    }
    for &k in &ff.rounding {
        let f = &inf.form.fields[k];
        if let Some(n) = inf.t.operand_types.get(f.ty as usize).and_then(|t| t.lookup(f.get(inf.w) as i64)) {
            let n: &'static str = match n.trim_start_matches('.') {
                "RZ" => "RZ",
                "RM" => "RM",
                "RP" => "RP",
                _ => continue,
            };
            bump_small(&mut acc.raw.rounding, (d.enc, n));
        }
    }
}

/// AMD export target names (RDNA ISA guide, EXP: 0-7 MRT0-7, 8 MRTZ, 9 NULL, 12-15 POS0-3,
/// 32-63 PARAM0-31; gfx11+ adds 20 DUAL_SRC_BLEND0/21 ..1 and 21+ prims on gfx12 is not needed
/// for gfx1013 input).
fn export_name(t: u32) -> Cow<'static, str> {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    let names = NAMES.get_or_init(|| {
        (0..64u32)
            .map(|t| match t {
                0..=7 => format!("mrt{t}"),
                8 => "mrtz".into(),
                9 => "null".into(),
                12..=15 => format!("pos{}", t - 12),
                20 => "prim".into(),
                32..=63 => format!("param{}", t - 32),
                _ => format!("target{t}"),
            })
            .collect()
    });
    match names.get(t as usize) {
        Some(n) => Cow::Borrowed(n.as_str()),
        None => Cow::Owned(format!("target{t}")),
    }
}

/// Attaches names to raw counts.
fn name_counts(isa: Isa, r: &Raw) -> Counts {
    let mut c = Counts {
        instructions: r.instructions,
        code_bytes: r.code_bytes,
        data_bytes: r.data_bytes,
        ..Default::default()
    };
    let mut features = r.features;
    match cfg::machine(isa).vendor() {
        cfg::Vendor::Amd => {
            let tab = amd_tab(isa);
            c.opcodes = tab.opcodes.histogram(&r.runs);
            c.encodings = tab.encodings.histogram(&r.runs);
            let mut cats = [0u64; 5];
            for &(i, n) in &r.runs {
                let mut m = tab.feats[i as usize];
                while m != 0 {
                    features[m.trailing_zeros() as usize] += n;
                    m &= m - 1;
                }
                if let Some(&(cat, _)) = tab.gfx12.get(i as usize) {
                    cats[cat as usize] += n;
                }
            }
            if !tab.gfx12.is_empty() {
                c.gfx12 = Histogram(
                    GFX12_CATS.iter().zip(cats).filter(|x| x.1 > 0).map(|(k, n)| (Cow::Borrowed(*k), n)).collect(),
                );
                for (cat, k) in GFX12_CATS.iter().enumerate() {
                    if cats[cat] == 0 || *k == "unchanged" {
                        continue;
                    }
                    let of_cat = r.runs.iter().copied().filter(|&(i, _)| tab.gfx12.get(i as usize).is_some_and(|x| x.0 as usize == cat));
                    c.gfx12_ops.insert(k, tab.gfx12_names.histogram_of(of_cat));
                }
            }
            c.export_targets = Histogram::from_pairs(r.export_targets.iter().map(|&(t, n)| (export_name(t), n)).collect());
            c.interpolation = Histogram::from_pairs(
                r.interp
                    .iter()
                    .map(|&((ienc, a), n)| (Cow::Owned(format!("{} attr{a}", tab.mnemonic[ienc as usize])), n))
                    .collect(),
            );
            c.descriptor_sources = Histogram::from_pairs(
                r.descriptors
                    .iter()
                    .map(|(k, n)| (Cow::Owned(format!("{} s[{}:{}]", k.kind, k.base, k.base + k.len - 1)), *n))
                    .collect(),
            );
            c.descriptor_origins = Histogram::from_pairs(
                r.descriptors
                    .iter()
                    .map(|(k, n)| {
                        let o = origin_name(tab, k.origin);
                        (Cow::Owned(format!("{} s[{}:{}] <- {o}", k.kind, k.base, k.base + k.len - 1)), *n)
                    })
                    .collect(),
            );
        }
        cfg::Vendor::Nvidia => {
            let tab = nv_tab(isa);
            let t = crate::nv::plugin(isa).t;
            c.opcodes = tab.opcodes.histogram(&r.runs);
            c.encodings = tab.encodings.histogram(&r.runs);
            for &(i, n) in &r.runs {
                let ff = &tab.forms[i as usize];
                for f in [ff.cf, ff.class].into_iter().flatten() {
                    features[f] += n;
                }
            }
            let bank = |b: Option<u32>| -> Cow<'static, str> {
                match b {
                    Some(b) => Cow::Owned(format!("c[{b:#x}]")),
                    None => Cow::Borrowed("cx[UR]"),
                }
            };
            c.cbuf_banks = Histogram::from_pairs(r.cbuf_banks.iter().map(|&(b, n)| (bank(b), n)).collect());
            c.descriptor_sources = c.cbuf_banks.clone();
            c.directed_rounding = Histogram::from_pairs(
                r.rounding
                    .iter()
                    .map(|&((form, m), n)| {
                        let name = t.insts.get(t.forms[form as usize].inst as usize).map(|x| x.name).unwrap_or("?");
                        (Cow::Owned(format!("{name}.{m}")), n)
                    })
                    .collect(),
            );
        }
    }
    c.features = Histogram(
        FEATURES.iter().zip(features).filter(|x| x.1 > 0).map(|(k, n)| (Cow::Borrowed(*k), n)).collect(),
    );
    c
}

#[cfg(test)]
mod tests {
    #[test]
    fn feature_names_are_sorted_and_unique() {
        assert!(super::FEATURES.windows(2).all(|w| w[0] < w[1]));
    }
}
