//! Calls between functions of one gfx1013 code object, translated to gfx1201.
//!
//! clang computes a call's target as `s_getpc_b64` plus the relocated offset of the callee
//! (`s_add_u32` / `s_addc_u32` with `R_AMDGPU_REL32_LO` / `_HI`), then `s_swappc_b64 d, s[n:n+1]`.
//! The layout replaces `s_getpc_b64` by the *guest* PC ([`super::layout::replace_getpc`]), so that
//! pair would hold a guest address. The machine CFG of the gfx1013 object
//! ([`isabridge_analysis::resolve::amd_transfers`]) resolves every such call to its callee's
//! entry ([`Resolved::calls`]); this module
//! - collects, per kernel, the functions its calls reach ([`closure`]), refusing what it cannot
//!   map: a call whose target is not resolved to a function of the object (a function pointer
//!   the CFG does not resolve), a call of an undefined symbol (an unlinked OpenCL builtin), a
//!   kernel as a callee, and a `s_setpc_b64` that is neither a return through the return
//!   address (`s[30:31]`) nor resolved;
//! - rewrites each call site ([`expand_call_sites`]): the `s_swappc_b64` reads a temporary pair
//!   (the expansion SGPRs, above every register of the call graph) that the four instructions
//!   before it set to the callee's *host* entry, PC-relative as clang writes it for gfx1201
//!   (`s_getpc_b64`, `s_sext_i32_i16` of the high half, `s_add_co_u32` / `s_add_co_ci_u32`
//!   with literals). The literals are written once the object's layout is known
//!   ([`CallFixup`], [`patch`]). The original pair keeps the (guest) value the gfx1013 code
//!   computed, so nothing else the program reads changes;
//! - leaves returns alone: `s_swappc_b64` writes the host return address into `d`, so the
//!   callee's `s_setpc_b64 s[30:31]` returns into the translation.
//!
//! Waits at call boundaries ([`super::waits`], [`super::hazards`]): every counter is waited to
//! zero, and every pending ALU write of a scalar register waited for, before a call and before
//! a return; so a function starts, and code after a call continues, with nothing outstanding.
//! The late-memory interpreter run of `selfcheck --via gfx1201` checks this rule.
//!
//! Registers: a callee shares the caller's register file, so temporaries of every function of
//! a call graph lie above the registers of all of them ([`named_floor`]); the descriptor's
//! counts are the highest of the graph's translations.

use super::{TranslatedInst, TranslateError};
use isabridge_analysis::load::{Function, Section};
use isabridge_decoder::lift::amd::Resolved;
use isabridge_decoder::operand::{Flow, OperandKind};
use isabridge_decoder::{Inst, Isa};
use std::collections::{BTreeMap, BTreeSet};

/// Placeholder of a call site's offset literals until [`patch`] writes them (not an inline
/// constant, so the instruction keeps its literal dword).
const PLACEHOLDER: u32 = 0x8bad_f00d;

/// Why a kernel's calls could not be translated. Names the ISA, the address and the instruction.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{isa} {addr:#x}: {name}: {why}")]
pub struct CallError {
    /// ISA (gfx1013).
    pub isa: Isa,
    /// Address of the instruction.
    pub addr: u64,
    /// Its name.
    pub name: &'static str,
    /// Why.
    pub why: String,
}

/// Whether `inst` transfers control through registers (a call, a return or an indirect jump).
pub fn is_call_or_return(inst: &Inst) -> bool {
    matches!(inst.flow, Flow::Call | Flow::IndirectCall | Flow::Indirect | Flow::Return)
}

/// The function of `functions` that starts at `entry`.
fn function_at(functions: &[Function], entry: u64) -> Option<&Function> {
    functions.iter().find(|f| f.start == entry)
}

/// The callees of the function whose decoded instructions are `insts`, checked as the module
/// notes say: each call's callee entry, in order of first call.
pub fn callees(insts: &[Inst], r: &Resolved, s: &Section, kernels: &BTreeSet<String>) -> Result<Vec<u64>, CallError> {
    let mut out = Vec::new();
    for i in insts.iter().filter(|i| is_call_or_return(i)) {
        let err = |why: String| CallError { isa: i.isa, addr: i.addr, name: i.name, why };
        match i.name {
            "S_SWAPPC_B64" => {
                if let Some(n) = r.external.get(&i.addr) {
                    return Err(err(format!("calls undefined function {n} (the code object is not linked)")));
                }
                let t = *r.calls.get(&i.addr).ok_or_else(|| err("call target not resolved (a function pointer): not translated".into()))?;
                let f = function_at(&s.functions, t).ok_or_else(|| err(format!("calls {t:#x}, which is no function's entry")))?;
                if kernels.contains(&f.name) {
                    return Err(err(format!("calls kernel {}", f.name)));
                }
                if !out.contains(&t) {
                    out.push(t);
                }
            }
            "S_SETPC_B64" if r.returns.contains(&i.addr) => {}
            "S_SETPC_B64" if r.tables.contains_key(&i.addr) => {
                return Err(err("jumps through a table of guest offsets: not translated".into()));
            }
            _ => return Err(err("jump or call target not resolved: not translated".into())),
        }
    }
    Ok(out)
}

/// The callee entries `first`'s calls reach, transitively (recursion included), each once:
/// `callees_of(entry)` gives one function's callees.
pub fn closure(first: &[u64], mut callees_of: impl FnMut(u64) -> Result<Vec<u64>, CallError>) -> Result<Vec<u64>, CallError> {
    let mut seen: Vec<u64> = Vec::new();
    let mut work: Vec<u64> = first.to_vec();
    while let Some(t) = work.pop() {
        if seen.contains(&t) {
            continue;
        }
        seen.push(t);
        work.extend(callees_of(t)?);
    }
    Ok(seen)
}

/// The highest register counts (VGPRs, SGPRs) of `declared` and of every register the
/// functions `graph` (decoded gfx1013 instructions) name: the floor of a call graph's
/// temporaries.
pub fn named_floor<'a>(graph: impl IntoIterator<Item = &'a [Inst]>, declared: (u16, u16)) -> (u16, u16) {
    let mut floor = declared;
    for insts in graph {
        let t = super::layout::Temps::named(insts.iter(), 0, 0);
        floor = (floor.0.max(t.vgprs), floor.1.max(t.sgprs));
    }
    floor
}

/// gfx1201 instruction from its words at `addr`.
fn gfx12(words: &[u32], addr: u64) -> Option<Inst> {
    let p = Isa::Gfx1201.plugin();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let d = p.decode(&bytes, addr).ok()?;
    Some(p.operands(&d, addr))
}

/// `insts` (translated, `s_getpc_b64` already replaced) with every `s_swappc_b64` whose source
/// address is a call site of `calls` rewritten to call through the temporary pair
/// `s[pair:pair+1]` set to the callee's host entry (module notes); the offsets are
/// placeholder literals (`0x8badf00d`) until [`patch`].
pub fn expand_call_sites(insts: Vec<TranslatedInst>, calls: &BTreeMap<u64, u64>, pair: Option<u16>) -> Result<Vec<TranslatedInst>, TranslateError> {
    let mut out = Vec::with_capacity(insts.len() + 8);
    for t in insts {
        if t.inst.name != "S_SWAPPC_B64" || !calls.contains_key(&t.src_addr) {
            out.push(t);
            continue;
        }
        let err = |reason: &str| TranslateError::Unsupported { isa: Isa::Gfx1013, addr: t.src_addr, name: "S_SWAPPC_B64", reason: reason.to_string() };
        let n = pair.ok_or_else(|| err("the call needs two temporary SGPRs and none are free"))? as u32;
        let d = t.inst.defs().find_map(|o| match o.kind {
            OperandKind::Reg(r) if r.count == 2 => Some(r.first as u32),
            _ => None,
        });
        let d = d.ok_or_else(|| err("the call's destination is not an SGPR pair"))?;
        let a = t.inst.addr;
        let words: [&[u32]; 5] = [
            &[0xbe80_4700 | n << 16],
            &[0xbe80_0f00 | (n + 1) << 16 | (n + 1)],
            &[0x8000_ff00 | n << 16 | n, PLACEHOLDER],
            &[0x8200_ff00 | (n + 1) << 16 | (n + 1), PLACEHOLDER],
            &[0xbe80_4900 | d << 16 | n],
        ];
        for w in words {
            let inst = gfx12(w, a).ok_or_else(|| err(&format!("{w:08x?} does not decode as gfx1201")))?;
            out.push(TranslatedInst { inst, src_addr: t.src_addr });
        }
    }
    Ok(out)
}

/// Where a placed call site's offset goes: byte offsets in its function's code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallFixup {
    /// Offset of the address `s_getpc_b64` reads (the instruction after it).
    pub pc: u64,
    /// Offset of the `s_add_co_u32` literal (low half of the offset).
    pub lo: u64,
    /// Offset of the `s_add_co_ci_u32` literal (high half).
    pub hi: u64,
    /// The callee's gfx1013 entry.
    pub callee: u64,
}

/// The fixups of the call sites in `insts` (placed at `base`) that [`expand_call_sites`] wrote.
pub fn fixups(insts: &[TranslatedInst], base: u64, calls: &BTreeMap<u64, u64>) -> Vec<CallFixup> {
    let mut out = Vec::new();
    for (k, t) in insts.iter().enumerate() {
        if t.inst.name != "S_GETPC_B64" {
            continue;
        }
        let Some(&callee) = calls.get(&t.src_addr) else { continue };
        // The sequence is getpc, sext, add, addc; waits may sit between them.
        let mut after = insts[k + 1..].iter().filter(|x| x.src_addr == t.src_addr && !x.inst.name.starts_with("S_WAIT"));
        let add = after.find(|x| x.inst.name == "S_ADD_CO_U32");
        let addc = after.find(|x| x.inst.name == "S_ADD_CO_CI_U32");
        if let (Some(add), Some(addc)) = (add, addc) {
            out.push(CallFixup { pc: t.inst.addr + 4 - base, lo: add.inst.addr + 4 - base, hi: addc.inst.addr + 4 - base, callee });
        }
    }
    out
}

/// Writes the offsets of `fixups` of the function placed at byte `at` of `code`, with each
/// callee's host entry (byte offset in `code`) from `host_entry`; false when a callee has none.
pub fn patch(code: &mut [u8], at: u64, fixups: &[CallFixup], host_entry: impl Fn(u64) -> Option<u64>) -> bool {
    for f in fixups {
        let Some(t) = host_entry(f.callee) else { return false };
        let off = (t as i64 - (at + f.pc) as i64) as u64;
        for (pos, v) in [(f.lo, off as u32), (f.hi, (off >> 32) as u32)] {
            let p = (at + pos) as usize;
            match code.get_mut(p..p + 4) {
                Some(b) => b.copy_from_slice(&v.to_le_bytes()),
                None => return false,
            }
        }
    }
    true
}

/// The calls of one gfx1013 code section: its control transfers resolved by the machine CFG,
/// and the decoded instructions of each function a kernel's calls reach.
pub struct CallGraph<'a> {
    sec: &'a Section,
    /// The resolved transfers ([`isabridge_analysis::resolve::amd_transfers`]).
    pub resolved: Resolved,
    kernels: BTreeSet<String>,
    decoded: BTreeMap<u64, Vec<Inst>>,
}

impl<'a> CallGraph<'a> {
    /// The call graph of section `sec`, whose kernels are named `kernels`.
    pub fn new(sec: &'a Section, kernels: BTreeSet<String>) -> CallGraph<'a> {
        let resolved = isabridge_analysis::resolve::amd_transfers(Isa::Gfx1013, sec);
        CallGraph { sec, resolved, kernels, decoded: BTreeMap::new() }
    }

    /// The section.
    pub fn section(&self) -> &'a Section {
        self.sec
    }

    fn decode(&mut self, entry: u64) -> Result<(), CallError> {
        if self.decoded.contains_key(&entry) {
            return Ok(());
        }
        let f = function_at(&self.sec.functions, entry).ok_or(CallError { isa: Isa::Gfx1013, addr: entry, name: "S_SWAPPC_B64", why: "the callee is no function".into() })?;
        let lo = (f.start - self.sec.address) as usize;
        let hi = ((f.end - self.sec.address) as usize).min(self.sec.data.len());
        let code = self.sec.data.get(lo..hi).unwrap_or(&[]);
        let insts = super::function::decode_gfx1013(code, f.start)
            .map_err(|e| CallError { isa: Isa::Gfx1013, addr: entry, name: "S_SWAPPC_B64", why: format!("callee {}: {e}", f.name) })?;
        self.decoded.insert(entry, insts);
        Ok(())
    }

    /// The callee entries the calls of `insts` (a kernel's) reach, transitively, each once
    /// (empty when it calls nothing).
    pub fn reach(&mut self, insts: &[Inst]) -> Result<Vec<u64>, CallError> {
        let first = callees(insts, &self.resolved, self.sec, &self.kernels)?;
        // A callee's buffer accesses through s[0:3] are stack accesses (the calling convention
        // passes the private segment buffer there): refused here when they do not translate.
        let stack = |insts: &[Inst]| match super::scratch::uses_private_segment(insts, None) {
            Err(TranslateError::Unsupported { isa, addr, name, reason }) => Err(CallError { isa, addr, name, why: reason }),
            Err(e) => Err(CallError { isa: Isa::Gfx1013, addr: insts.first().map_or(0, |i| i.addr), name: "S_SWAPPC_B64", why: e.to_string() }),
            Ok(_) => Ok(()),
        };
        closure(&first, |t| {
            self.decode(t)?;
            stack(&self.decoded[&t])?;
            callees(&self.decoded[&t], &self.resolved, self.sec, &self.kernels)
        })
    }

    /// The decoded instructions of callee `entry` (one [`CallGraph::reach`] returned).
    pub fn insts(&self, entry: u64) -> &[Inst] {
        self.decoded.get(&entry).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The name of the function at `entry`.
    pub fn name(&self, entry: u64) -> String {
        function_at(&self.sec.functions, entry).map(|f| f.name.clone()).unwrap_or_else(|| format!("fn_{entry:x}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn gfx1013(words: &[u32], addr: u64) -> Vec<Inst> {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        super::super::function::decode_gfx1013(&bytes, addr).unwrap()
    }

    fn section() -> Section {
        let f = |name: &str, start, end| Function { name: name.into(), start, end };
        Section {
            name: ".text".into(),
            address: 0,
            data: Arc::new(vec![0; 0x200]),
            functions: vec![f("k", 0, 0x100), f("callee", 0x100, 0x200)],
            relocs: BTreeMap::new(),
            const2: None,
        }
    }

    #[test]
    fn unresolved_and_undefined_calls_are_refused() {
        // s_swappc_b64 s[30:31], s[4:5] (gfx1013 SOP1 opcode 0x21) at 0x40.
        let call = gfx1013(&[0xbe9e_2104], 0x40);
        let s = section();
        let kernels = BTreeSet::from(["k".to_string()]);
        let e = callees(&call, &Resolved::default(), &s, &kernels).unwrap_err();
        assert_eq!(e.to_string(), "gfx1013 0x40: S_SWAPPC_B64: call target not resolved (a function pointer): not translated");
        let mut r = Resolved::default();
        r.external.insert(0x40, "_Z10atomic_addPU3AS3Vii".into());
        let e = callees(&call, &r, &s, &kernels).unwrap_err();
        assert!(e.why.starts_with("calls undefined function _Z10atomic_addPU3AS3Vii"), "{e}");
        // A target that is no function's entry, then a kernel, then a callee.
        let mut r = Resolved::default();
        r.calls.insert(0x40, 0x104);
        assert!(callees(&call, &r, &s, &kernels).unwrap_err().why.contains("no function's entry"));
        r.calls.insert(0x40, 0);
        assert_eq!(callees(&call, &r, &s, &kernels).unwrap_err().why, "calls kernel k");
        r.calls.insert(0x40, 0x100);
        assert_eq!(callees(&call, &r, &s, &kernels).unwrap(), vec![0x100]);
        // s_setpc_b64 s[4:5] (opcode 0x20), not a return: refused.
        let jump = gfx1013(&[0xbe80_2004], 0x80);
        assert!(callees(&jump, &r, &s, &kernels).unwrap_err().why.contains("not resolved"));
    }

    #[test]
    fn closure_follows_recursion_once() {
        let graph = BTreeMap::from([(1u64, vec![2u64]), (2, vec![2, 3]), (3, vec![1])]);
        let mut c = closure(&[1], |t| Ok(graph[&t].clone())).unwrap();
        c.sort();
        assert_eq!(c, vec![1, 2, 3]);
    }

    #[test]
    fn a_call_site_becomes_a_pc_relative_call_and_is_patched() {
        // s_swappc_b64 s[30:31], s[4:5] at 0x40 calls 0x100; temporaries s[40:41].
        let t = super::super::translate_inst(&gfx1013(&[0xbe9e_2104], 0x40)[0]).unwrap();
        let calls = BTreeMap::from([(0x40u64, 0x100u64)]);
        let out = expand_call_sites(t, &calls, Some(40)).unwrap();
        let names: Vec<&str> = out.iter().map(|t| t.inst.name).collect();
        assert_eq!(names, ["S_GETPC_B64", "S_SEXT_I32_I16", "S_ADD_CO_U32", "S_ADD_CO_CI_U32", "S_SWAPPC_B64"]);
        let placed = super::super::layout::place_owned(out, 0x1000).unwrap();
        let fx = fixups(&placed.insts, 0x1000, &calls);
        // getpc (4 bytes), sext (4), add (4 + literal), addc (4 + literal).
        assert_eq!(fx, vec![CallFixup { pc: 4, lo: 12, hi: 20, callee: 0x100 }]);
        let mut code = vec![0u8; 0x1000];
        code[0x200..0x200 + placed.code.len()].copy_from_slice(&placed.code);
        // The function at byte 0x200, its callee's translation at byte 0x800.
        assert!(patch(&mut code, 0x200, &fx, |c| (c == 0x100).then_some(0x800)));
        let word = |at: usize| u32::from_le_bytes(code[at..at + 4].try_into().unwrap());
        assert_eq!((word(0x200 + 12), word(0x200 + 20)), (0x800 - 0x204, 0));
        // The swappc reads the temporary pair and writes the original return pair.
        assert_eq!(word(0x200 + 24), 0xbe9e_4928);
        assert!(!patch(&mut code, 0x200, &fx, |_| None));
    }
}
