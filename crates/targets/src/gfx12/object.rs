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
//!   did. The private segment buffer and flat scratch init have no gfx1201 value; a kernel
//!   whose code reads them is not caught here (its scratch set-up is refused by the
//!   instruction translator, which maps no flat scratch register write).
//!
//! Moves go from the highest destination down: every source is at or below its destination
//! (gfx1201's layout is gfx1013's with registers left out), so no move overwrites a later
//! one's source.
//!
//! Calls are not translated: a call's target is computed from `s_getpc_b64`, which the
//! translation replaces by the guest PC, so it would jump into the gfx1013 code. A kernel that
//! calls (or jumps through a register) is refused with a typed error, as is every kernel
//! whose instructions do not translate; the object keeps the kernels that do.

use super::descriptor::{from_gfx1013, user_sgpr_moves, RegisterCounts};
use super::function::{decode_gfx1013, translate_insts, FunctionError, FunctionOptions};
use super::hsaco::{self, CodeFunction, CodeKernel, CodeObject, HsacoError};
use super::msgpack::Msg;
use super::TranslatedInst;
use isabridge_analysis::amdkernel::{self, Kernel, SgprInput};
use isabridge_decoder::operand::Flow;
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
    /// A kernel calls or jumps through a register.
    #[error("kernel {kernel}: {isa} {addr:#x}: {name}: calls and indirect jumps are not translated (their targets are guest addresses)")]
    Call {
        /// Kernel name.
        kernel: String,
        /// ISA (gfx1013).
        isa: Isa,
        /// Address of the instruction.
        addr: u64,
        /// Its name.
        name: &'static str,
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
pub(super) const KERNEL_ALIGN: usize = 256;
/// `s_nop 0` on gfx1201, the padding between kernels (clang pads with it).
pub(super) const S_NOP_0: u32 = 0xbf80_0000;

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

/// One kernel's translation: the placed code and its register counts.
fn translate_kernel(k: &Kernel, code: &[u8], addr: u64, meta: Option<&Msg>) -> Result<(super::function::TranslatedFunction, RegisterCounts), ObjectError> {
    let ferr = |err: FunctionError| ObjectError::Function { kernel: k.name.clone(), err: Box::new(err) };
    let insts = decode_gfx1013(code, addr).map_err(|e| ferr(e.into()))?;
    if let Some(i) = insts.iter().find(|i| matches!(i.flow, Flow::Call | Flow::IndirectCall | Flow::Indirect | Flow::Return)) {
        return Err(ObjectError::Call { kernel: k.name.clone(), isa: i.isa, addr: i.addr, name: i.name });
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
    let opts = FunctionOptions {
        guest_base: 0,
        place_at: 0,
        declared_vgprs: int(meta, ".vgpr_count").unwrap_or(0).min(u16::MAX as u32) as u16,
        declared_sgprs: int(meta, ".sgpr_count").unwrap_or(0).min(u16::MAX as u32) as u16,
        wave64: k.wave64(),
        // MODE bit 9 is the descriptor's ENABLE_IEEE_MODE (amdkernel `Kernel::mode`).
        ieee: Some(k.mode() >> 9 & 1 != 0),
        // MODE bit 8 is its ENABLE_DX10_CLAMP.
        dx10_clamp: Some(k.mode() >> 8 & 1 != 0),
    };
    let f = translate_insts(&insts, entry, &opts).map_err(ferr)?;
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

/// [`translate_object`] for the kernel or graphics-stage function named `only` (all of them
/// when None); a name the object has neither of is [`ObjectError::NoFunction`].
pub fn translate_kernels(bytes: &[u8], only: Option<&str>) -> Result<TranslatedObject, ObjectError> {
    let p = isabridge_analysis::load(bytes, None).map_err(|e| ObjectError::Load(e.to_string()))?;
    if p.isa != Isa::Gfx1013 {
        return Err(ObjectError::Load(format!("the object is {}", p.isa)));
    }
    let mut kernels = amdkernel::kernels(bytes).map_err(|e| ObjectError::Load(e.to_string()))?;
    if let Some(name) = only {
        kernels.retain(|k| k.name == name);
        if kernels.is_empty() && !super::graphics::stage_functions(bytes, &p).iter().any(|f| f.name == name) {
            return Err(ObjectError::NoFunction(name.to_string()));
        }
    }
    let meta = hsaco::kernel_metadata(bytes);
    let mut out = TranslatedObject::default();
    let mut o = CodeObject::default();
    for k in &kernels {
        let m = meta.iter().find(|(n, _)| *n == k.name).map(|(_, m)| m);
        let found = p.sections.iter().find_map(|s| s.functions.iter().find(|f| f.name == k.name).map(|f| (s, f)));
        let Some((s, f)) = found else {
            out.refused.push((k.name.clone(), ObjectError::NoFunction(k.name.clone())));
            continue;
        };
        let lo = (f.start - s.address) as usize;
        let hi = ((f.end - s.address) as usize).min(s.data.len());
        let r = s.data.get(lo..hi).ok_or_else(|| ObjectError::NoFunction(k.name.clone()));
        match r.and_then(|code| translate_kernel(k, code, f.start, m)) {
            Err(e) => out.refused.push((k.name.clone(), e)),
            Ok((t, regs)) => {
                while o.code.len() % KERNEL_ALIGN != 0 {
                    o.code.extend_from_slice(&S_NOP_0.to_le_bytes());
                }
                let offset = o.code.len() as u64;
                let size = t.code.code.len() as u64;
                o.code.extend_from_slice(&t.code.code);
                o.functions.push(CodeFunction { name: k.name.clone(), offset, size });
                let descriptor = from_gfx1013(k, regs, size);
                let metadata = m.cloned().unwrap_or(Msg::Map(Vec::new()));
                o.kernels.push(CodeKernel { name: k.name.clone(), descriptor, regs, metadata });
                out.kernels.push(k.name.clone());
                out.source_insts += t.source_insts;
                out.insts += t.code.insts.len();
            }
        }
    }
    super::graphics::translate_stages(bytes, &p, only, &mut o, &mut out);
    out.bytes = hsaco::write(&o)?;
    Ok(out)
}

/// The translation step of `isabridge selfcheck --via gfx1201`
/// ([`super::selfcheck::selfcheck_refusing`]): the translated code object and each refused
/// kernel with its error's text.
pub fn translate_for_selfcheck(bytes: &[u8]) -> Result<super::selfcheck::RefusingTranslation, String> {
    let t = translate_object(bytes).map_err(|e| e.to_string())?;
    Ok((t.bytes, t.refused.into_iter().map(|(k, e)| (k, e.to_string())).collect()))
}
