//! Differential execution of a translation: every kernel of an AMD code object runs twice on
//! the IR interpreter, as the original and as the translation gives it, from one deterministic
//! memory image, and the results are compared (`isabridge selfcheck FILE --via gfx1201`).
//!
//! The harness lives in the library, beside the translator it checks, and takes the translation
//! step as a function argument ([`selfcheck`]): the tests run it with the identity (every corpus
//! kernel must be `equal`) and with a deliberately changed program (it must say `differ`),
//! which proves the check before the translator exists and can fail.
//!
//! The dispatch, the same for both runs:
//! - Each pointer argument (`global_buffer`) points at its own region of [`REGION_BYTES`]
//!   bytes; every region starts filled with [`image_byte`] of each address, so a byte not yet
//!   written reads a value derived from its address. By-value integers get 1 to 64
//!   ([`by_value`]), float-typed ones small deterministic floats; hidden arguments are filled as
//!   the HIP runtime fills them (block counts, group sizes, grid dimensions; others 0).
//! - One workgroup (or `groups` along X) of the kernel's `.reqd_workgroup_size` when the
//!   metadata declares one, else of [`DEFAULT_BLOCK`] work-items (at most its
//!   `.max_flat_workgroup_size`).
//! - Initial SGPRs as the descriptor enables them (kernarg and dispatch pointers, workgroup ids;
//!   on gfx1201 the ids come in TTMP9 / TTMP7), work-item ids in v0-v2.
//! - A step budget per run (`Options::max_steps`, the interpreter's block executions).
//! - The translation (gfx1201 code) runs with late-arriving memory
//!   (`lift_kernel_module_late_memory`): a register read before the wait that covers it is poison.
//!
//! - A gfx1013 kernel that enables the private segment buffer gets one in `s[0:3]`
//!   (`scratch::give_private_segment`), over the interpreter's per-lane scratch of the
//!   kernel's private segment size, where the translation's `scratch_*` land too.
//!
//! Compared: every byte of every region (the arguments' buffers, the dispatch packet and the
//! kernel arguments) after the run, i.e. the final value of every write, and the values and
//! stage events the runs return. Statuses: `equal`; `differ` (with the first difference);
//! `budget` (either run exceeded the step budget); `unsupported` (the translation failed, or
//! the original itself cannot run under this harness: the reason says which).

use isabridge_analysis::amdkernel::{self, ArgKind, Kernel, SgprInput};
use isabridge_analysis::load::Program;
use isabridge_decoder::lift::amd::{kernel_params, lift_kernel_module, lift_kernel_module_late_memory, ttmp_workgroup_id_params, KernelEntry};
use isabridge_decoder::Isa;
use isabridge_ir::interp::{self, Config, Input, InterpError, Memory, Outcome};

/// What a function's check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    /// Both runs wrote the same bytes and returned the same values.
    Equal,
    /// The runs differ (the reason names the first difference).
    Differ,
    /// A run exceeded the step budget.
    Budget,
    /// The function could not be checked (the reason says why).
    Unsupported,
}

impl Status {
    /// The status as `--json` writes it.
    pub fn name(self) -> &'static str {
        match self {
            Status::Equal => "equal",
            Status::Differ => "differ",
            Status::Budget => "budget",
            Status::Unsupported => "unsupported",
        }
    }
}

/// The check of one function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// Function (kernel) name.
    pub function: String,
    /// What the check found.
    pub status: Status,
    /// Why (empty when equal).
    pub reason: String,
}

impl Report {
    /// One JSON object on one line: `{"function":...,"status":...,"reason":...}`.
    pub fn json(&self) -> String {
        format!("{{\"function\":{},\"status\":\"{}\",\"reason\":{}}}", json_str(&self.function), self.status.name(), json_str(&self.reason))
    }
}

fn json_str(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// Harness settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Workgroups to run, along X (1 unless `--groups`).
    pub groups: u32,
    /// Block executions each run may take (the interpreter's `max_steps`).
    pub max_steps: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options { groups: 1, max_steps: 1 << 20 }
    }
}

/// Work-items per workgroup when the kernel declares no `.reqd_workgroup_size`: two waves of
/// 32, enough for barriers and LDS to be shared between waves.
pub const DEFAULT_BLOCK: u32 = 64;
/// Bytes of each argument's region.
pub const REGION_BYTES: usize = 1 << 18;
/// Where the first argument region starts; each next one [`REGION_STRIDE`] higher.
pub const REGION_BASE: u64 = 0x1_0000_0000;
/// Distance between argument regions (a gap after each, so an overrun faults).
pub const REGION_STRIDE: u64 = 0x100_0000;
/// Where the dispatch packet lives.
const DISPATCH_ADDR: u64 = 0x1000;
/// Where the kernel argument segment lives.
const KERNARG_ADDR: u64 = 0x2000;

/// The byte an untouched address holds: one word of a 64-bit mix of the dword's address.
pub fn image_byte(addr: u64) -> u8 {
    let mut x = (addr >> 2).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    x ^= x >> 29;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 32;
    (x >> (8 * (addr & 3))) as u8
}

/// The value of by-value argument number `i` of `size` bytes whose type is `type_name`: floats
/// (`float`, `double`, `half` in the type name) 1.5 + i / 4, other values 1 to 64.
pub fn by_value(i: usize, size: u32, type_name: &str) -> u64 {
    let t = type_name.to_ascii_lowercase();
    let f = 1.5 + i as f64 / 4.0;
    if t.contains("double") && size == 8 {
        f.to_bits()
    } else if t.contains("float") && size == 4 {
        (f as f32).to_bits() as u64
    } else if t.contains("half") && size == 2 {
        // 1.5 + i/4 in binary16 for the first arguments: exponent 15, mantissa (0.5 + i/4) * 1024.
        (15u64 << 10) | ((512 + 256 * i as u64).min(1023))
    } else {
        1 + (i as u64 * 37 + 11) % 64
    }
}

/// The translation step: a code object in, the translated code object out.
pub type Translate<'a> = &'a dyn Fn(&[u8]) -> Result<Vec<u8>, String>;

/// The translation step of a translator that leaves kernels out: the translated code object
/// and, for each kernel it does not hold, why (reported as `unsupported`).
pub type TranslateRefusing<'a> = &'a dyn Fn(&[u8]) -> Result<RefusingTranslation, String>;

/// A translated code object and the kernels it leaves out, each with why.
pub type RefusingTranslation = (Vec<u8>, Vec<(String, String)>);

/// Runs every kernel of `original` and of `translate(original)` and compares them.
pub fn selfcheck(original: &[u8], translate: Translate, opts: &Options) -> Result<Vec<Report>, String> {
    selfcheck_refusing(original, &|b| translate(b).map(|t| (t, Vec::new())), opts)
}

/// [`selfcheck`] with a translation that may leave kernels out, each with its reason.
pub fn selfcheck_refusing(original: &[u8], translate: TranslateRefusing, opts: &Options) -> Result<Vec<Report>, String> {
    let p = isabridge_analysis::load(original, None).map_err(|e| e.to_string())?;
    let kernels = amdkernel::kernels(original).map_err(|e| e.to_string())?;
    let meta = super::hsaco::kernel_metadata(original);
    let mut reports = Vec::new();
    let mut refused = Vec::new();
    let translated = translate(original).and_then(|(b, r)| {
        refused = r;
        let tp = isabridge_analysis::load(&b, None).map_err(|e| format!("the translation does not load: {e}"))?;
        let tks = amdkernel::kernels(&b).map_err(|e| format!("the translation's kernels do not read: {e}"))?;
        Ok((tp, tks))
    });
    for k in &kernels {
        let status = |status, reason: String| Report { function: k.name.clone(), status, reason };
        if let Some(r) = refused.iter().find(|r| r.0 == k.name) {
            reports.push(status(Status::Unsupported, r.1.clone()));
            continue;
        }
        let (tp, tks) = match &translated {
            Err(e) => {
                reports.push(status(Status::Unsupported, format!("translation failed: {e}")));
                continue;
            }
            Ok((tp, tks)) => (tp, tks),
        };
        let Some(tk) = tks.iter().find(|t| t.name == k.name) else {
            reports.push(status(Status::Unsupported, "the translation has no kernel of this name".into()));
            continue;
        };
        let m = meta.iter().find(|(n, _)| *n == k.name).map(|(_, m)| m);
        let setup = match Dispatch::new(k, m, opts) {
            Ok(s) => s,
            Err(r) => {
                reports.push(status(Status::Unsupported, r));
                continue;
            }
        };
        let a = run_kernel(&p, k, &setup, opts, false);
        // gfx1201 code runs with late-arriving memory: a read before its recomputed wait is
        // poison, so a missing or too weak wait fails the comparison.
        let b = run_kernel(tp, tk, &setup, opts, tp.isa == Isa::Gfx1201);
        let (s, r) = compare(a, b);
        reports.push(status(s, r));
    }
    reports.extend(super::graphics::check_stages(original, &p, translated.as_ref().map(|t| &t.0), &refused, opts));
    Ok(reports)
}

/// The status and reason of a function's two runs (original `a`, translation `b`).
pub(super) fn compare(a: Result<Outcome, RunError>, b: Result<Outcome, RunError>) -> (Status, String) {
    match (a, b) {
        (Err(RunError::Interp(InterpError::StepLimit(n))), _) => (Status::Budget, format!("original: step limit of {n} exceeded")),
        (_, Err(RunError::Interp(InterpError::StepLimit(n)))) => (Status::Budget, format!("translation: step limit of {n} exceeded")),
        (Err(e), _) => (Status::Unsupported, format!("original does not run here: {e}")),
        (Ok(_), Err(e)) => (Status::Differ, format!("translation fails where the original runs: {e}")),
        (Ok(x), Ok(y)) => {
            for ((ax, av), (bx, bv)) in x.memory.global.iter().zip(&y.memory.global) {
                if ax != bx || av.len() != bv.len() {
                    return (Status::Differ, format!("memory layout differs at {ax:#x}"));
                }
                if let Some(i) = av.iter().zip(bv).position(|(p, q)| p != q) {
                    return (Status::Differ, format!("byte at {:#x}: original {:#04x}, translation {:#04x}", ax + i as u64, av[i], bv[i]));
                }
            }
            if x.memory.global.len() != y.memory.global.len() {
                return (Status::Differ, "memory regions differ".into());
            }
            if x.outputs != y.outputs {
                return (Status::Differ, "returned values differ".into());
            }
            if x.stage != y.stage {
                return (Status::Differ, "stage events (exports, messages) differ".into());
            }
            (Status::Equal, String::new())
        }
    }
}

/// Why a run did not finish.
#[derive(Debug)]
pub(super) enum RunError {
    Lift(String),
    Interp(InterpError),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Lift(e) => write!(f, "lift: {e}"),
            RunError::Interp(e) => write!(f, "{e}"),
        }
    }
}

/// The memory image and launch shape shared by both runs of a kernel.
struct Dispatch {
    global: Vec<(u64, Vec<u8>)>,
    block: u32,
    scratch: usize,
}

impl Dispatch {
    fn new(k: &Kernel, meta: Option<&super::msgpack::Msg>, opts: &Options) -> Result<Dispatch, String> {
        let regions = image_regions(k);
        let args = regions.len() - 1 - usize::from(kernarg_bytes(k) > 0);
        let mut addrs: Vec<u64> = (0..args as u64).map(|i| REGION_BASE + i * REGION_STRIDE).collect();
        addrs.push(DISPATCH_ADDR);
        addrs.push(KERNARG_ADDR);
        let image = image_at(k, meta, opts, &addrs)?;
        let mut global = image.global;
        global.sort_by_key(|g| g.0);
        Ok(Dispatch { global, block: image.block, scratch: image.scratch })
    }
}

/// A kernel's dispatch as this harness lays it out (see the module docs), at addresses the
/// caller chose: the regions in [`image_regions`] order, the workgroup size and the scratch
/// bytes per work-item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// Global memory: (address, bytes) per region, in [`image_regions`] order.
    pub global: Vec<(u64, Vec<u8>)>,
    /// Work-items per workgroup.
    pub block: u32,
    /// Scratch bytes per work-item.
    pub scratch: usize,
    /// The dispatch packet's address.
    pub dispatch: u64,
    /// The kernel argument segment's address.
    pub kernarg: u64,
}

fn kernarg_bytes(k: &Kernel) -> usize {
    k.kernarg_size.max(k.args.iter().map(|x| x.offset + x.size).max().unwrap_or(0)) as usize
}

/// The byte sizes of the regions an [`Image`] of kernel `k` holds, in order: one of
/// [`REGION_BYTES`] per pointer argument, the 64-byte dispatch packet, then the kernel
/// argument segment when it is not empty.
pub fn image_regions(k: &Kernel) -> Vec<usize> {
    let buffers = k.args.iter().filter(|x| matches!(x.kind, ArgKind::GlobalBuffer)).count();
    let mut v = vec![REGION_BYTES; buffers];
    v.push(64);
    if kernarg_bytes(k) > 0 {
        v.push(kernarg_bytes(k));
    }
    v
}

/// The dispatch image of kernel `k` (its metadata map `meta`) with region `i` of
/// [`image_regions`] at `addrs[i]` (one more address, when given, is the kernarg pointer of a
/// kernel without arguments): pointer arguments point at their regions, each region
/// filled with [`image_byte`] of its addresses; by-value and hidden arguments as the module
/// docs say. `opts.groups` workgroups along X.
pub fn image_at(k: &Kernel, meta: Option<&super::msgpack::Msg>, opts: &Options, addrs: &[u64]) -> Result<Image, String> {
    use super::msgpack::Msg;
    let int = |key: &str| match meta.and_then(|m| m.get(key)) {
        Some(Msg::Int(i)) => Some(*i as u64),
        _ => None,
    };
    let reqd = match meta.and_then(|m| m.get(".reqd_workgroup_size")) {
        Some(Msg::Array(xs)) => Some(xs.iter().map(|x| if let Msg::Int(i) = x { *i as u64 } else { 1 }).product::<u64>()),
        _ => None,
    };
    let block = reqd.unwrap_or_else(|| (DEFAULT_BLOCK as u64).min(int(".max_flat_workgroup_size").unwrap_or(1024))).clamp(1, 1024) as u32;
    if opts.groups == 0 {
        return Err("--groups must be 1 or more".into());
    }
    let regions = image_regions(k);
    if addrs.len() < regions.len() {
        return Err(format!("{} regions, {} addresses", regions.len(), addrs.len()));
    }
    // Without kernel arguments, the packet's kernarg address is the next one given (or 0).
    let n = regions.len();
    let (dispatch, kernarg_addr) = if kernarg_bytes(k) > 0 { (addrs[n - 2], addrs[n - 1]) } else { (addrs[n - 1], addrs.get(n).copied().unwrap_or(0)) };
    let mut global = Vec::new();
    let mut kernarg = vec![0u8; kernarg_bytes(k)];
    let mut next = addrs.iter();
    let explicit = k.args.iter().filter(|x| !matches!(x.kind, ArgKind::Hidden(_)));
    for (i, x) in explicit.enumerate() {
        let v = match &x.kind {
            ArgKind::GlobalBuffer => {
                let at = *next.next().ok_or("too few addresses")?;
                global.push((at, (0..REGION_BYTES as u64).map(|o| image_byte(at + o)).collect::<Vec<u8>>()));
                at
            }
            ArgKind::ByValue => by_value(i, x.size, &x.type_name),
            ArgKind::Other(o) => return Err(format!("argument {i} is of kind {o}, which the harness does not provide")),
            ArgKind::Hidden(_) => 0,
        };
        put(&mut kernarg, x.offset as usize, x.size as usize, v);
    }
    let grid = [opts.groups, 1, 1];
    let blk = [block, 1, 1];
    for x in &k.args {
        let ArgKind::Hidden(h) = &x.kind else { continue };
        let d = |s: &str| -> usize { (s.as_bytes()[s.len() - 1].wrapping_sub(b'x') as usize).min(2) };
        let v = match h.as_str() {
            s if s.starts_with("block_count_") => grid[d(s)] as u64,
            s if s.starts_with("group_size_") => blk[d(s)] as u64,
            "grid_dims" => 1,
            _ => 0,
        };
        put(&mut kernarg, x.offset as usize, x.size as usize, v);
    }
    let scratch = private_segment_size(k);
    let mut packet = vec![0u8; 64];
    put(&mut packet, 2, 2, 1);
    put(&mut packet, 4, 2, block as u64);
    put(&mut packet, 6, 2, 1);
    put(&mut packet, 8, 2, 1);
    put(&mut packet, 12, 4, block as u64 * opts.groups as u64);
    put(&mut packet, 16, 4, 1);
    put(&mut packet, 20, 4, 1);
    put(&mut packet, 24, 4, scratch as u64);
    put(&mut packet, 28, 4, k.group_segment_size as u64);
    put(&mut packet, 40, 8, kernarg_addr);
    global.push((dispatch, packet));
    if !kernarg.is_empty() {
        global.push((kernarg_addr, kernarg));
    }
    Ok(Image { global, block, scratch, dispatch, kernarg: kernarg_addr })
}

/// Per-work-item scratch as the HIP runtime sizes it: the descriptor's fixed size, or for a
/// kernel with a dynamic stack the larger of that and the default stack of 1024 bytes per
/// thread (`hipLimitStackSize`; the HIP behaviour LLVM's OpenMP AMDGPU plugin adopted in
/// llvm-project pull request 74080: "Default device stack size: 1024", "in case of a dyn
/// callstack the maximum between user-provided and compiler-default is chosen").
pub fn private_segment_size(k: &Kernel) -> usize {
    let fixed = k.private_segment_size;
    (if k.uses_dynamic_stack() { fixed.max(1024) } else { fixed }) as usize
}

fn put(mem: &mut [u8], at: usize, size: usize, v: u64) {
    for i in 0..size.min(8) {
        if let Some(b) = mem.get_mut(at + i) {
            *b = (v >> (8 * i)) as u8;
        }
    }
}

/// The entry state of kernel `k` on `isa` (gfx1201: architected workgroup ids in TTMPs).
fn entry_of(isa: Isa, k: &Kernel) -> (KernelEntry, Vec<SgprInput>) {
    let architected = isa == Isa::Gfx1201;
    let layout = if architected { k.architected_sgpr_inputs() } else { k.sgpr_inputs() };
    let e = KernelEntry {
        wave64: k.wave64(),
        mode: k.mode(),
        sgprs: layout.len() as u32,
        workitem_ids: k.workitem_ids(),
        shared_bytes: k.group_segment_size,
        ttmp_workgroup_ids: if architected { k.workgroup_ids() } else { [false; 3] },
    };
    (e, layout)
}

fn run_kernel(p: &Program, k: &Kernel, d: &Dispatch, opts: &Options, late: bool) -> Result<Outcome, RunError> {
    let (entry, _) = entry_of(p.isa, k);
    let (sec, start) = p
        .sections
        .iter()
        .find_map(|s| s.functions.iter().find(|f| f.name == k.name).map(|f| (s, f.start)))
        .ok_or_else(|| RunError::Lift(format!("no function {}", k.name)))?;
    let r = isabridge_analysis::resolve::amd_transfers(p.isa, sec);
    let lift = if late { lift_kernel_module_late_memory } else { lift_kernel_module };
    let m = lift(p.isa, &sec.data, sec.address, start, &k.name, &entry, &r).map_err(|e| RunError::Lift(e.to_string()))?;
    let mut mem = Memory { global: d.global.clone(), constant: Vec::new(), shared: Vec::new() };
    let mut last = None;
    for gx in 0..opts.groups {
        let image = Image { global: Vec::new(), block: d.block, scratch: d.scratch, dispatch: DISPATCH_ADDR, kernarg: KERNARG_ADDR };
        let (mut cfg, inputs) = workgroup_inputs(p.isa, k, &image, [gx, 0, 0]);
        cfg.max_steps = opts.max_steps;
        mem.shared = vec![0; entry.shared_bytes as usize];
        let o = interp::run_module(&m, &cfg, &inputs, mem).map_err(RunError::Interp)?;
        mem = o.memory.clone();
        last = Some(o);
    }
    last.ok_or_else(|| RunError::Lift("no workgroup ran".into()))
}

/// The interpreter's configuration and the lifted kernel's inputs (`kernel_params` order) for
/// workgroup `group` of a dispatch of kernel `k` on `isa` laid out as `image` says: initial
/// SGPRs as the descriptor enables them (dispatch and kernarg pointers, private segment size,
/// workgroup ids; on gfx1201 the ids in TTMP9 / TTMP7; on gfx1013 the private segment buffer,
/// `scratch::give_private_segment`), EXEC of each wave's live lanes, and the work-item id
/// along X in v0.
pub fn workgroup_inputs(isa: Isa, k: &Kernel, image: &Image, group: [u32; 3]) -> (Config, Vec<Input>) {
    let (entry, layout) = entry_of(isa, k);
    let ws: u32 = if entry.wave64 { 64 } else { 32 };
    let waves = image.block.div_ceil(ws);
    let cfg = Config { wave_size: ws, waves, scratch_bytes: image.scratch.next_multiple_of(16), ..Config::default() };
    let (s0, exec_p, v0) = kernel_params(&entry);
    let lanes = (waves * ws) as usize;
    let mut exec_lo = vec![0u64; lanes];
    let mut exec_hi = vec![0u64; lanes];
    for w in 0..waves as usize {
        let live = (image.block as usize).saturating_sub(w * ws as usize).min(ws as usize);
        let m: u64 = if live == 64 { u64::MAX } else { (1u64 << live) - 1 };
        for l in 0..ws as usize {
            exec_lo[w * ws as usize + l] = m & 0xffff_ffff;
            exec_hi[w * ws as usize + l] = m >> 32;
        }
    }
    let ids: Vec<u64> = (0..lanes as u64).map(|t| t % image.block as u64).collect();
    let g = group;
    let mut inputs = vec![Input::Uniform(0); (v0 + 3) as usize];
    if entry.ttmp_workgroup_ids.iter().any(|e| *e) {
        let wg = ttmp_workgroup_id_params(&entry);
        inputs.resize(wg as usize + 3, Input::Uniform(0));
        for dim in 0..3 {
            inputs[(wg + dim) as usize] = Input::Uniform(g[dim as usize] as u64);
        }
    }
    for (i, s) in layout.iter().enumerate() {
        let v: u64 = match *s {
            SgprInput::DispatchPtr(n) => image.dispatch >> (32 * n as u64),
            SgprInput::KernargSegmentPtr(n) => image.kernarg >> (32 * n as u64),
            SgprInput::PrivateSegmentSize => image.scratch as u64,
            SgprInput::WorkgroupId(dim) => g[dim as usize] as u64,
            _ => 0,
        };
        inputs[(s0 as usize) + i] = Input::Uniform(v & 0xffff_ffff);
    }
    if isa == Isa::Gfx1013 {
        super::scratch::give_private_segment(k, s0 as usize, &mut inputs);
    }
    inputs[exec_p as usize] = Input::PerLane(exec_lo);
    inputs[exec_p as usize + 1] = Input::PerLane(exec_hi);
    inputs[v0 as usize] = Input::PerLane(ids);
    (cfg, inputs)
}
