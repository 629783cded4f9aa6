//! A gfx1013 code object to a gfx1201 code object: every kernel translated
//! ([`super::function`]) behind the entry sequence gfx1201 needs, its descriptor converted
//! ([`super::descriptor::from_gfx1013`]) with the translated register counts, its metadata
//! kept, and the result written as a `.hsaco` ([`super::hsaco`]).
//!
//! The entry sequence ([`entry_moves`]) puts the SGPRs a gfx1013 kernel starts with where its
//! code reads them. Both rules are read off clang-22's builds of the same sources for gfx1013
//! and gfx1201 (fixtures/amd/bin):
//! - User SGPRs: gfx1201 loads no private segment buffer (4 SGPRs) and no flat scratch init
//!   (2), so the user SGPRs after them arrive lower ([`super::descriptor::user_sgpr_moves`]):
//!   cl_math `char_add` reads its kernarg pointer in `s[4:5]` on gfx1013
//!   (`s_load_dwordx4 s[0:3], s[4:5], null`) and in `s[0:1]` on gfx1201
//!   (`s_load_b128 s[4:7], s[0:1], 0x0`). The entry copies each one back up.
//! - Workgroup ids: gfx1013 loads the enabled ids into the SGPRs after the user SGPRs;
//!   gfx1201 (architected SGPRs) gives X in TTMP9, Y in TTMP7 bits 0-15 and Z in TTMP7 bits
//!   16-31. `char_add` reads X as s6 on gfx1013 (`v_lshl_or_b32 v4, s6, 8, v0`) and as ttmp9
//!   on gfx1201 (`v_lshl_or_b32 v4, ttmp9, 8, v0`); cl_lanes' gfx1201 build takes Y and Z as
//!   `s_and_b32 s2, ttmp7, 0xffff` and `s_lshr_b32 s1, ttmp7, 16`. The entry writes each id
//!   into its gfx1013 SGPR the same way.
//! - The system SGPRs after the ids (workgroup info, the private segment wave offset) are
//!   copied from where gfx1201 loads them (`Kernel::architected_sgpr_inputs`) to where gfx1013
//!   did. The private segment buffer and flat scratch init have no gfx1201 value: stack
//!   accesses through the buffer become `scratch_*` ([`super::scratch`]; any other use of
//!   `s0`-`s3` beside them is refused when the kernel is found), and a flat scratch set-up is
//!   refused by the instruction translator, which maps no flat scratch register write.
//!
//! Moves go from the highest destination down: every source is at or below its destination
//! (gfx1201's layout is gfx1013's with registers left out), so no move overwrites a later
//! one's source.
//!
//! Calls ([`super::calls`]): the functions a kernel's calls reach are translated once per
//! object (with the register floor of every calling kernel's graph) and placed after the
//! kernels, each under its gfx1013 symbol name (a local function); each call site is
//! re-pointed to its callee's translation once the layout is known. A kernel whose call the
//! gfx1013 CFG does not resolve to a function of the object (a function pointer, an undefined
//! symbol) is refused with a typed error, as is every kernel whose instructions (or whose
//! callees' instructions) do not translate; the object keeps the kernels that do. The
//! descriptor's register counts are the highest of the kernel's and its callees'; its scratch
//! size is the gfx1013 one, which covers the callees' stacks (clang sizes it over the call
//! graph, or marks a dynamic stack for recursion).

use super::descriptor::{from_gfx1013, user_sgpr_moves, RegisterCounts};
use super::calls::{is_call_or_return, named_floor, patch, CallFixup, CallGraph};
use super::function::{decode_gfx1013, translate_insts_with_stack, FunctionError, FunctionOptions};
use super::hsaco::{self, CodeFunction, CodeKernel, CodeObject, HsacoError};
use super::msgpack::Msg;
use super::TranslatedInst;
use isabridge_analysis::amdkernel::{self, Kernel, SgprInput};
use std::collections::{BTreeMap, BTreeSet};
use isabridge_decoder::{Inst, Isa};

/// Why a kernel (or the whole object) was not translated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ObjectError {
    /// The input does not load as a gfx1013 code object.
    #[error("not a gfx1013 code object: {0}")]
    Load(String),
    /// A kernel has no function of its name in the code.
    #[error("kernel {0}: no code of that name")]
    NoFunction(String),
    /// A kernel's code did not translate.
    #[error("kernel {kernel}: {err}")]
    Function {
        /// Kernel name.
        kernel: String,
        /// The function translator's error.
        err: Box<FunctionError>,
    },
    /// A kernel's call or jump through a register could not be translated.
    #[error("kernel {kernel}: {isa} {addr:#x}: {name}: {why}")]
    Call {
        /// Kernel name.
        kernel: String,
        /// ISA (gfx1013).
        isa: Isa,
        /// Address of the instruction.
        addr: u64,
        /// Its name.
        name: &'static str,
        /// Why.
        why: String,
    },
    /// A graphics-stage function's code did not translate ([`super::graphics`]).
    #[error("function {function}: {err}")]
    StageFunction {
        /// Function name.
        function: String,
        /// The function translator's error.
        err: Box<FunctionError>,
    },
    /// A graphics-stage function calls or jumps through a register.
    #[error("function {function}: {isa} {addr:#x}: {name}: calls and indirect jumps are not translated (their targets are guest addresses)")]
    StageCall {
        /// Function name.
        function: String,
        /// ISA (gfx1013).
        isa: Isa,
        /// Address of the instruction.
        addr: u64,
        /// Its name.
        name: &'static str,
    },
    /// A function's call names a callee the layout did not place.
    #[error("{0}: a call's callee was not placed")]
    Unplaced(String),
    /// The entry sequence could not be built.
    #[error("kernel {kernel}: entry sequence: {why}")]
    Entry {
        /// Kernel name.
        kernel: String,
        /// Why.
        why: String,
    },
    /// The code object could not be written.
    #[error(transparent)]
    Hsaco(#[from] HsacoError),
}

/// A translated code object.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TranslatedObject {
    /// The gfx1201 `.hsaco` bytes (the kernels that translated).
    pub bytes: Vec<u8>,
    /// Names of the kernels it holds.
    pub kernels: Vec<String>,
    /// Kernels and graphics-stage functions left out, each with its error.
    pub refused: Vec<(String, ObjectError)>,
    /// Names of the graphics-stage functions it holds ([`super::graphics`]).
    pub stages: Vec<String>,
    /// gfx1013 instructions read (of the translated kernels and functions).
    pub source_insts: usize,
    /// gfx1201 instructions written.
    pub insts: usize,
}

/// Alignment of each kernel's code in `.text` (what clang gives kernels).
const KERNEL_ALIGN: usize = 256;
/// `s_nop 0` on gfx1201, the padding between kernels (clang pads with it).
const S_NOP_0: u32 = 0xbf80_0000;

/// Appends `code` to `o` as function `name` at the next [`KERNEL_ALIGN`] boundary (padded with
/// [`S_NOP_0`]), returning its offset.
pub(super) fn append_aligned(o: &mut CodeObject, name: &str, code: &[u8]) -> u64 {
    while !o.code.len().is_multiple_of(KERNEL_ALIGN) {
        o.code.extend_from_slice(&S_NOP_0.to_le_bytes());
    }
    let offset = o.code.len() as u64;
    o.code.extend_from_slice(code);
    o.functions.push(CodeFunction { name: name.to_string(), offset, size: code.len() as u64 });
    offset
}

/// The code of function `name` in `p`: (section, first instruction, bytes).
pub(super) fn code_of<'p>(p: &'p isabridge_analysis::Program, name: &str) -> Option<(&'p isabridge_analysis::load::Section, u64, &'p [u8])> {
    p.sections.iter().find_map(|s| {
        let f = s.functions.iter().find(|f| f.name == name)?;
        let lo = (f.start - s.address) as usize;
        let hi = ((f.end - s.address) as usize).min(s.data.len());
        Some((s, f.start, s.data.get(lo..hi)?))
    })
}

/// gfx1201 instruction from its words at `addr`.
fn gfx12_inst(words: &[u32], addr: u64) -> Option<Inst> {
    let p = Isa::Gfx1201.plugin();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let d = p.decode(&bytes, addr).ok()?;
    Some(p.operands(&d, addr))
}

/// gfx1201 scalar operand code of TTMP`n`.
const fn ttmp(n: u32) -> u32 {
    108 + n
}

/// The entry sequence of gfx1013 kernel `k` on gfx1201 (module notes), as (destination SGPR,
/// gfx1201 words) from the highest destination down.
pub fn entry_moves(k: &Kernel) -> Result<Vec<(u32, Vec<u32>)>, String> {
    let old = k.sgpr_inputs();
    let user_old = (k.rsrc2 >> 1 & 31) as usize;
    let moves = user_sgpr_moves(k);
    let user_new = moves.len();
    // gfx1201's system SGPRs: those after the user SGPRs in the architected layout of the
    // converted kernel.
    let new_kernel = Kernel { properties: k.properties & !0x21, rsrc2: (k.rsrc2 & !(31 << 1)) | (user_new as u32) << 1, ..k.clone() };
    let new = new_kernel.architected_sgpr_inputs();
    let mut out: Vec<(u32, Vec<u32>)> = Vec::new();
    let s_mov = |d: u32, src: u32| vec![0xbe80_0000 | d << 16 | src];
    for (from, to) in moves {
        if from != to {
            out.push((from, s_mov(from, to)));
        }
    }
    for (i, x) in old.iter().enumerate().skip(user_old) {
        let d = i as u32;
        let words = match *x {
            SgprInput::WorkgroupId(0) => s_mov(d, ttmp(9)),
            // s_and_b32 d, ttmp7, 0xffff (SOP2 22, literal) and s_lshr_b32 d, ttmp7, 16 (SOP2 10).
            SgprInput::WorkgroupId(1) => vec![0x8b00_ff00 | d << 16 | ttmp(7), 0xffff],
            SgprInput::WorkgroupId(2) => vec![0x8500_9000 | d << 16 | ttmp(7)],
            other => {
                let Some(j) = new.iter().skip(user_new).position(|y| *y == other) else {
                    return Err(format!("gfx1201 does not load {other:?} (s{d} on gfx1013)"));
                };
                let j = (j + user_new) as u32;
                if j > d {
                    return Err(format!("{other:?} arrives in s{j} on gfx1201, above s{d}"));
                }
                if j == d {
                    continue;
                }
                s_mov(d, j)
            }
        };
        out.push((d, words));
    }
    if out.iter().any(|(d, _)| *d >= 106) {
        return Err("a destination is past s105".into());
    }
    out.sort_by_key(|m| std::cmp::Reverse(m.0));
    Ok(out)
}

fn int(m: Option<&Msg>, key: &str) -> Option<u32> {
    match m?.get(key) {
        Some(Msg::Int(i)) => u32::try_from(*i).ok(),
        _ => None,
    }
}

/// The call graph a kernel's translation uses: the resolved call sites (gfx1013 site -> callee
/// entry) and the register floor of the graph's temporaries ([`super::calls::named_floor`]).
type Calling<'a> = Option<(&'a BTreeMap<u64, u64>, (u16, u16))>;

/// The translation options of kernel `k` with its metadata `meta`.
fn kernel_options(k: &Kernel, meta: Option<&Msg>) -> FunctionOptions {
    FunctionOptions {
        guest_base: 0,
        place_at: 0,
        declared_vgprs: int(meta, ".vgpr_count").unwrap_or(0).min(u16::MAX as u32) as u16,
        declared_sgprs: int(meta, ".sgpr_count").unwrap_or(0).min(u16::MAX as u32) as u16,
        wave64: k.wave64(),
        // MODE bit 9 is the descriptor's ENABLE_IEEE_MODE (amdkernel `Kernel::mode`).
        ieee: Some(k.mode() >> 9 & 1 != 0),
        // MODE bit 8 is its ENABLE_DX10_CLAMP.
        dx10_clamp: Some(k.mode() >> 8 & 1 != 0),
    }
}

/// One kernel's translation (decoded gfx1013 `insts` at `addr`): the placed code and its
/// register counts. `calling`: the kernel's calls, None when it makes none; `stack`: its
/// buffer accesses through `s[0:3]` are stack accesses ([`super::scratch`]).
fn translate_kernel(k: &Kernel, insts: &[Inst], addr: u64, meta: Option<&Msg>, calling: Calling, stack: bool) -> Result<(super::function::TranslatedFunction, RegisterCounts), ObjectError> {
    let ferr = |err: FunctionError| ObjectError::Function { kernel: k.name.clone(), err: Box::new(err) };
    if calling.is_none() {
        if let Some(i) = insts.iter().find(|i| is_call_or_return(i)) {
            return Err(ObjectError::Call { kernel: k.name.clone(), isa: i.isa, addr: i.addr, name: i.name, why: "a call or indirect jump outside a resolved call graph".into() });
        }
    }
    // The entry instructions take the kernel's address as their source address, so a branch to
    // the first instruction would land on them: such a kernel is refused.
    let entry_addr = addr;
    if let Some(b) = insts.iter().find(|i| super::waits::branch_target(i) == Some(addr)) {
        let why = format!("{} {:#x}: {}: branches to the kernel's first instruction", b.isa, b.addr, b.name);
        return Err(ObjectError::Entry { kernel: k.name.clone(), why });
    }
    let mut entry = Vec::new();
    for (_, words) in entry_moves(k).map_err(|why| ObjectError::Entry { kernel: k.name.clone(), why })? {
        let inst = gfx12_inst(&words, entry_addr).ok_or_else(|| ObjectError::Entry { kernel: k.name.clone(), why: format!("{words:08x?} does not decode as gfx1201") })?;
        entry.push(TranslatedInst { inst, src_addr: entry_addr });
    }
    let mut opts = kernel_options(k, meta);
    let empty = BTreeMap::new();
    let calls = match calling {
        Some((calls, floor)) => {
            opts.declared_vgprs = opts.declared_vgprs.max(floor.0);
            opts.declared_sgprs = opts.declared_sgprs.max(floor.1);
            calls
        }
        None => &empty,
    };
    let f = translate_insts_with_stack(insts, entry, &opts, calls, stack).map_err(ferr)?;
    let regs = RegisterCounts { vgprs: f.vgprs as u32, sgprs: f.sgprs as u32 };
    Ok((f, regs))
}

/// Translates every kernel (and graphics-stage function, [`super::graphics`]) of the gfx1013
/// code object `bytes` and writes the gfx1201 code object of those that translate (module
/// notes). An input that is not a gfx1013 code object is an error; a kernel or function that
/// does not translate is listed in `refused`.
pub fn translate_object(bytes: &[u8]) -> Result<TranslatedObject, ObjectError> {
    translate_kernels(bytes, None)
}

/// A kernel found in the code, decoded, with the callees its calls reach.
struct Found<'a> {
    k: &'a Kernel,
    meta: Option<&'a Msg>,
    addr: u64,
    insts: Vec<Inst>,
    /// Callee entries (gfx1013), empty when the kernel calls nothing.
    callees: Vec<u64>,
    /// Its buffer accesses through `s[0:3]` are stack accesses ([`stack_of_kernel`]).
    stack: bool,
}

/// Whether kernel `k` (decoded `insts`) addresses a stack through the private segment buffer
/// it enables ([`super::scratch::uses_private_segment`], with its wave offset SGPR); false when
/// it enables none (then `s[0:3]` is whatever the kernel put there).
fn stack_of_kernel(k: &Kernel, insts: &[Inst]) -> Result<bool, ObjectError> {
    if k.properties & 1 == 0 {
        return Ok(false);
    }
    let wave_offset = k.sgpr_inputs().iter().position(|x| *x == SgprInput::PrivateSegmentWaveOffset).map(|n| n as u16);
    super::scratch::uses_private_segment(insts, wave_offset).map_err(|e| ObjectError::Function { kernel: k.name.clone(), err: Box::new(e.into()) })
}

/// Kernels of `kernels` found in the code of `p` and decoded, with their call graphs
/// ([`super::calls::CallGraph`], one for the section that holds the kernels that call); the
/// others refused into `refused`. `names`: every kernel of the object (none is a callee).
fn find_kernels<'a>(
    p: &'a isabridge_analysis::Program,
    kernels: &'a [Kernel],
    meta: &'a [(String, Msg)],
    names: &BTreeSet<String>,
    refused: &mut Vec<(String, ObjectError)>,
) -> (Vec<Found<'a>>, Option<CallGraph<'a>>) {
    let mut found = Vec::new();
    let mut graph: Option<CallGraph<'a>> = None;
    for k in kernels {
        let m = meta.iter().find(|(n, _)| *n == k.name).map(|(_, m)| m);
        let Some((s, start, code)) = code_of(p, &k.name) else {
            refused.push((k.name.clone(), ObjectError::NoFunction(k.name.clone())));
            continue;
        };
        let insts = match decode_gfx1013(code, start) {
            Ok(i) => i,
            Err(e) => {
                refused.push((k.name.clone(), ObjectError::Function { kernel: k.name.clone(), err: Box::new(e.into()) }));
                continue;
            }
        };
        let stack = match stack_of_kernel(k, &insts) {
            Ok(s) => s,
            Err(e) => {
                refused.push((k.name.clone(), e));
                continue;
            }
        };
        let mut callees = Vec::new();
        if insts.iter().any(is_call_or_return) {
            if graph.as_ref().is_some_and(|g| !std::ptr::eq(g.section(), s)) {
                refused.push((k.name.clone(), ObjectError::Entry { kernel: k.name.clone(), why: "calls in a second code section".into() }));
                continue;
            }
            let g = graph.get_or_insert_with(|| CallGraph::new(s, names.clone()));
            match g.reach(&insts) {
                Ok(c) => callees = c,
                Err(e) => {
                    refused.push((k.name.clone(), ObjectError::Call { kernel: k.name.clone(), isa: e.isa, addr: e.addr, name: e.name, why: e.why }));
                    continue;
                }
            }
        }
        found.push(Found { k, meta: m, addr: start, insts, callees, stack });
    }
    (found, graph)
}

/// [`translate_object`] for the kernel or graphics-stage function named `only` (all of them
/// when None); a name the object has neither of is [`ObjectError::NoFunction`].
pub fn translate_kernels(bytes: &[u8], only: Option<&str>) -> Result<TranslatedObject, ObjectError> {
    let p = isabridge_analysis::load(bytes, None).map_err(|e| ObjectError::Load(e.to_string()))?;
    if p.isa != Isa::Gfx1013 {
        return Err(ObjectError::Load(format!("the object is {}", p.isa)));
    }
    let mut kernels = amdkernel::kernels(bytes).map_err(|e| ObjectError::Load(e.to_string()))?;
    let names: BTreeSet<String> = kernels.iter().map(|k| k.name.clone()).collect();
    if let Some(name) = only {
        kernels.retain(|k| k.name == name);
        if kernels.is_empty() && !super::graphics::stage_functions(bytes, &p).iter().any(|f| f.name == name) {
            return Err(ObjectError::NoFunction(name.to_string()));
        }
    }
    let meta = hsaco::kernel_metadata(bytes);
    let mut out = TranslatedObject::default();
    let mut o = CodeObject::default();
    let (found, graph) = find_kernels(&p, &kernels, &meta, &names, &mut out.refused);
    let callees = graph.as_ref().map(|g| translate_callees(g, &found)).unwrap_or_default();
    // Kernels first (each with its call fixups), then the callees they use.
    let mut placed: Vec<(u64, Vec<CallFixup>)> = Vec::new();
    let mut used: BTreeSet<u64> = BTreeSet::new();
    for fk in &found {
        let k = fk.k;
        let calling = graph.as_ref().filter(|_| !fk.callees.is_empty()).map(|g| (&g.resolved.calls, callees.floor));
        let r = translate_kernel(k, &fk.insts, fk.addr, fk.meta, calling, fk.stack).and_then(|(t, regs)| {
            let mut regs = regs;
            for c in &fk.callees {
                match callees.get(*c, k) {
                    Ok(f) => regs = RegisterCounts { vgprs: regs.vgprs.max(f.vgprs as u32), sgprs: regs.sgprs.max(f.sgprs as u32) },
                    Err(why) => return Err(ObjectError::Entry { kernel: k.name.clone(), why }),
                }
            }
            Ok((t, regs))
        });
        match r {
            Err(e) => out.refused.push((k.name.clone(), e)),
            Ok((t, regs)) => {
                let size = t.code.code.len() as u64;
                let offset = append_aligned(&mut o, &k.name, &t.code.code);
                placed.push((offset, t.calls));
                used.extend(fk.callees.iter().copied());
                let descriptor = from_gfx1013(k, regs, size);
                let metadata = fk.meta.cloned().unwrap_or(Msg::Map(Vec::new()));
                o.kernels.push(CodeKernel { name: k.name.clone(), descriptor, regs, metadata });
                out.kernels.push(k.name.clone());
                out.source_insts += t.source_insts;
                out.insts += t.code.insts.len();
            }
        }
    }
    place_callees(&mut o, &mut out, &callees, &used, placed)?;
    super::graphics::translate_stages(bytes, &p, only, &mut o, &mut out);
    out.bytes = hsaco::write(&o)?;
    Ok(out)
}

/// The translated callees of an object: by gfx1013 entry, the translation or why it failed,
/// and the register floor they were translated with.
#[derive(Default)]
struct Callees {
    by_entry: BTreeMap<u64, (String, Result<super::function::TranslatedFunction, String>, FunctionOptions)>,
    floor: (u16, u16),
}

impl Callees {
    /// Callee `entry`'s translation as kernel `k` calls it (its MODE and wave size).
    fn get(&self, entry: u64, k: &Kernel) -> Result<&super::function::TranslatedFunction, String> {
        let (name, r, opts) = self.by_entry.get(&entry).ok_or_else(|| format!("callee {entry:#x} was not translated"))?;
        let f = r.as_ref().map_err(|e| format!("calls {name}: {e}"))?;
        let mine = kernel_options(k, None);
        if (mine.wave64, mine.ieee, mine.dx10_clamp) != (opts.wave64, opts.ieee, opts.dx10_clamp) {
            return Err(format!("calls {name}, translated for another kernel's wave size or MODE"));
        }
        Ok(f)
    }
}

/// Every callee the found kernels reach, translated once with the register floor of all of
/// them ([`super::calls::named_floor`]) and the wave size and MODE of the first kernel that
/// calls it.
fn translate_callees(g: &CallGraph, found: &[Found]) -> Callees {
    let calling: Vec<&Found> = found.iter().filter(|f| !f.callees.is_empty()).collect();
    let mut floor = (0u16, 0u16);
    for f in &calling {
        let o = kernel_options(f.k, f.meta);
        let graph = std::iter::once(f.insts.as_slice()).chain(f.callees.iter().map(|c| g.insts(*c)));
        let fl = named_floor(graph, (o.declared_vgprs, o.declared_sgprs));
        floor = (floor.0.max(fl.0), floor.1.max(fl.1));
    }
    let mut out = Callees { by_entry: BTreeMap::new(), floor };
    for f in &calling {
        for &c in &f.callees {
            if out.by_entry.contains_key(&c) {
                continue;
            }
            let mut opts = kernel_options(f.k, None);
            (opts.declared_vgprs, opts.declared_sgprs) = floor;
            // The calling convention passes the private segment buffer in s[0:3]
            // (`CallGraph::reach` refused callees whose use of it does not translate).
            let stack = super::scratch::uses_private_segment(g.insts(c), None).unwrap_or(false);
            let r = translate_insts_with_stack(g.insts(c), Vec::new(), &opts, &g.resolved.calls, stack).map_err(|e| e.to_string());
            out.by_entry.insert(c, (g.name(c), r, opts));
        }
    }
    out
}

/// Appends the `used` callees to `o` after the kernels and writes the call offsets of every
/// placed function (`placed`: kernels' code offsets and fixups).
fn place_callees(o: &mut CodeObject, out: &mut TranslatedObject, callees: &Callees, used: &BTreeSet<u64>, mut placed: Vec<(u64, Vec<CallFixup>)>) -> Result<(), ObjectError> {
    let mut host: BTreeMap<u64, u64> = BTreeMap::new();
    for &c in used {
        let Some((name, Ok(f), _)) = callees.by_entry.get(&c) else { continue };
        let offset = o.code.len() as u64;
        o.code.extend_from_slice(&f.code.code);
        o.functions.push(CodeFunction { name: name.clone(), offset, size: f.code.code.len() as u64 });
        host.insert(c, offset);
        placed.push((offset, f.calls.clone()));
        out.source_insts += f.source_insts;
        out.insts += f.code.insts.len();
    }
    for (at, fixups) in &placed {
        if !patch(&mut o.code, *at, fixups, |c| host.get(&c).copied()) {
            let function = o.functions.iter().find(|f| f.offset == *at).map(|f| f.name.clone()).unwrap_or_default();
            return Err(ObjectError::Unplaced(function));
        }
    }
    Ok(())
}

/// The translation step of `isabridge selfcheck --via gfx1201`
/// ([`super::selfcheck::selfcheck_refusing`]): the translated code object and each refused
/// kernel with its error's text.
pub fn translate_for_selfcheck(bytes: &[u8]) -> Result<super::selfcheck::RefusingTranslation, String> {
    let t = translate_object(bytes).map_err(|e| e.to_string())?;
    Ok((t.bytes, t.refused.into_iter().map(|(k, e)| (k, e.to_string())).collect()))
}
