//! One function of gfx1013 machine code to gfx1201 machine code: the chain of the gfx12
//! passes over a byte range.
//!
//! [`translate_function`] decodes the gfx1013 bytes front to back, translates each
//! instruction ([`super::translate_inst_in`], with temporaries reserved above every register the code
//! names), puts an optional entry sequence in front,
//! replaces `s_getpc_b64` by the guest PC ([`super::layout::replace_getpc`]), recomputes the
//! counter waits ([`super::waits::insert_waits`]) and the ALU waits
//! ([`super::hazards::insert_alu_waits`]), and places the result ([`super::layout::place_owned`]).
//! The register counts of the result are the declared ones, raised to every register the
//! translated code names ([`super::layout::Temps`]).
//!
//! Addresses: `addr` is where the gfx1013 bytes sit in the decoder's address space (a code
//! object's `.text` address, or 0 for raw code); branch targets are resolved in it.
//! `FunctionOptions::guest_base` is added to it for the value `s_getpc_b64` would have read
//! (where the guest code is loaded); `FunctionOptions::place_at` is the address of the first
//! gfx1201 byte (branches are PC-relative, so it only sets the instructions' `addr`).

use super::hazards::insert_alu_waits;
use super::layout::{place_owned, replace_getpc, LayoutError, Temps};
use super::waits::{insert_waits, WaitError};
use super::calls::{expand_call_sites, fixups, CallFixup};
use super::expand::ExpandCx;
use std::collections::BTreeMap;
use super::{translate_inst_in, TranslateError, Translated, TranslatedInst};
use isabridge_decoder::{DecodeError, Inst, Isa, IsaPlugin};

/// Settings of one function's translation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FunctionOptions {
    /// Added to a gfx1013 address for the PC value `s_getpc_b64` reads (the guest load bias).
    pub guest_base: u64,
    /// Address the first gfx1201 byte is placed at.
    pub place_at: u64,
    /// VGPRs the gfx1013 code declares (its descriptor or metadata); temporaries go above.
    pub declared_vgprs: u16,
    /// SGPRs the gfx1013 code declares, likewise.
    pub declared_sgprs: u16,
    /// The code runs as wave64 (wave32 otherwise).
    pub wave64: bool,
    /// The gfx1013 MODE register's IEEE bit (the descriptor's ENABLE_IEEE_MODE), None when
    /// unknown: float min / max expand by it ([`super::expand`]).
    pub ieee: Option<bool>,
    /// The gfx1013 MODE register's DX10_CLAMP bit (the descriptor's ENABLE_DX10_CLAMP), None
    /// when unknown: the clamp of a float NaN translates by it ([`super::expand`]).
    pub dx10_clamp: Option<bool>,
}

/// A translated function.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TranslatedFunction {
    /// The gfx1201 bytes and instructions, placed at `FunctionOptions::place_at`.
    pub code: Translated,
    /// VGPRs the translated code needs (declared, named, temporaries).
    pub vgprs: u16,
    /// SGPRs the translated code needs, VCC not counted (declared, named, temporaries).
    pub sgprs: u16,
    /// gfx1013 instructions read.
    pub source_insts: usize,
    /// Call sites whose callee offsets the object's layout writes ([`super::calls::patch`]);
    /// until then their literals in `code` hold a placeholder.
    pub calls: Vec<CallFixup>,
}

/// Why a function could not be translated. Every variant names the ISA, the address and,
/// where there is one, the instruction.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FunctionError {
    /// A gfx1013 word does not decode.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// An instruction has no gfx1201 translation.
    #[error(transparent)]
    Translate(#[from] TranslateError),
    /// Waits could not be computed.
    #[error(transparent)]
    Wait(#[from] WaitError),
    /// The code could not be laid out.
    #[error(transparent)]
    Layout(#[from] LayoutError),
}

/// The gfx1013 instructions of `code` at `addr`, front to back.
pub fn decode_gfx1013(code: &[u8], addr: u64) -> Result<Vec<Inst>, DecodeError> {
    decode_with(Isa::Gfx1013.plugin(), code, addr)
}

/// [`decode_gfx1013`] for RDNA2 code: the gfx10.3 dot products decode too
/// (`isabridge_decoder::amd::dot_ext`; the f16 ones translate, `expand_dot.rs`).
pub fn decode_rdna2(code: &[u8], addr: u64) -> Result<Vec<Inst>, DecodeError> {
    decode_with(&isabridge_decoder::amd::dot_ext::GFX10_DOT, code, addr)
}

fn decode_with(p: &dyn IsaPlugin, code: &[u8], addr: u64) -> Result<Vec<Inst>, DecodeError> {
    let mut out = Vec::with_capacity(code.len() / 5);
    let mut off = 0usize;
    while off < code.len() {
        let at = addr.wrapping_add(off as u64);
        let d = p.decode(&code[off..], at)?;
        out.push(p.operands(&d, at));
        off += d.len as usize;
    }
    Ok(out)
}

/// Translates the gfx1013 function `code` at `addr` (see the module notes for the addresses).
pub fn translate_function(code: &[u8], addr: u64, opts: &FunctionOptions) -> Result<TranslatedFunction, FunctionError> {
    let insts = decode_gfx1013(code, addr)?;
    translate_insts(&insts, Vec::new(), opts)
}

/// Translates decoded gfx1013 instructions (in address order) with `entry` (gfx1201
/// instructions, e.g. the moves a kernel's entry needs) in front. The entry instructions
/// carry a `src_addr` at or below the first instruction's address; at it, a branch to the
/// function's first instruction lands on them.
pub fn translate_insts(insts: &[Inst], entry: Vec<TranslatedInst>, opts: &FunctionOptions) -> Result<TranslatedFunction, FunctionError> {
    translate_insts_calling(insts, entry, opts, &BTreeMap::new())
}

/// [`translate_insts`] of a function whose calls `calls` (call site -> callee entry, gfx1013
/// addresses) resolves: each becomes a call of the callee's translation ([`super::calls`]),
/// its offset left for the object's layout ([`TranslatedFunction::calls`]).
pub fn translate_insts_calling(
    insts: &[Inst],
    entry: Vec<TranslatedInst>,
    opts: &FunctionOptions,
    calls: &BTreeMap<u64, u64>,
) -> Result<TranslatedFunction, FunctionError> {
    translate_insts_with_stack(insts, entry, opts, calls, false)
}

/// [`translate_insts_calling`] of a function whose buffer accesses through `s[0:3]` are
/// stack accesses when `stack` is set (the caller checked that with
/// [`super::scratch::uses_private_segment`]): they become `scratch_*` instructions.
pub fn translate_insts_with_stack(
    insts: &[Inst],
    entry: Vec<TranslatedInst>,
    opts: &FunctionOptions,
    calls: &BTreeMap<u64, u64>,
    stack: bool,
) -> Result<TranslatedFunction, FunctionError> {
    // Temporaries for expansions above every register the code names; where none are left,
    // the expansions that need them are typed errors.
    let mut named = Temps::named(insts.iter().chain(entry.iter().map(|t| &t.inst)), opts.declared_vgprs, opts.declared_sgprs);
    let mode = ExpandCx { wave64: opts.wave64, ieee: opts.ieee, dx10_clamp: opts.dx10_clamp, vgprs: None, sgprs: None };
    let cx = ExpandCx::reserve(&mut named, opts.wave64, mode).unwrap_or(mode);
    super::export::check_null_exports(insts)?;
    let mut out = entry;
    out.reserve(insts.len() + insts.len() / 8);
    for inst in insts {
        let stack_access = if stack { super::scratch::translate(inst, &cx) } else { None };
        if let Some(seq) = stack_access {
            out.extend(seq?.into_iter().map(|i| TranslatedInst { inst: i, src_addr: inst.addr }));
            continue;
        }
        out.extend(translate_inst_in(inst, &cx)?);
    }
    let mut conv_temps = Temps::new(&out, opts.declared_vgprs, opts.declared_sgprs);
    let out = super::descriptor_convert::convert_resources(out, &mut conv_temps)?;
    // Without `s_getpc_b64` the replacement would return a copy of the list.
    let out = if out.iter().any(|t| t.inst.name == "S_GETPC_B64") { replace_getpc(&out, opts.guest_base)? } else { out };
    let out = if calls.is_empty() { out } else { expand_call_sites(out, calls, cx.sgprs)? };
    let out = insert_waits(&out)?;
    let out = insert_alu_waits(&out)?;
    let temps = Temps::new(&out, opts.declared_vgprs, opts.declared_sgprs);
    let code = place_owned(out, opts.place_at)?;
    let calls = if calls.is_empty() { Vec::new() } else { fixups(&code.insts, opts.place_at, calls) };
    Ok(TranslatedFunction { code, vgprs: temps.vgprs, sgprs: temps.sgprs, source_insts: insts.len(), calls })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(ws: &[u32]) -> Vec<u8> {
        ws.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    #[test]
    fn a_loop_with_getpc_translates() {
        // gfx1013: s_getpc_b64 s[0:1]; v_add_nc_u32 v1, v1, v0 (VOP2 37); s_cbranch_scc1 -2
        // (back to the add); s_endpgm.
        let code = words(&[0xbe80_1f00, 0x4a02_0300, 0xbf85_fffe, 0xbf81_0000]);
        let opts = FunctionOptions { guest_base: 0x1000, place_at: 0x100, declared_vgprs: 4, declared_sgprs: 8, wave64: false, ieee: None, dx10_clamp: None };
        let f = translate_function(&code, 0x40, &opts).unwrap();
        let names: Vec<&str> = f.code.insts.iter().map(|t| t.inst.name).collect();
        // The add reads EXEC after SALU writes: an ALU wait goes before it (hazards.rs).
        assert_eq!(names, ["S_MOV_B32", "S_MOV_B32", "S_WAIT_ALU", "V_ADD_NC_U32", "S_CBRANCH_SCC1", "S_ENDPGM"]);
        // The guest PC after s_getpc_b64: 0x1000 + 0x40 + 4.
        assert_eq!(&f.code.code[4..8], &0x1044u32.to_le_bytes());
        // The branch still targets the add's translation, which starts with the wait at 0x110
        // (after two 8-byte moves).
        assert_eq!(f.code.insts[4].inst.addr, 0x118);
        assert_eq!(super::super::waits::branch_target(&f.code.insts[4].inst), Some(0x110));
        assert_eq!((f.vgprs, f.sgprs, f.source_insts), (4, 8, 4));
    }

    #[test]
    fn errors_are_typed() {
        let opts = FunctionOptions::default();
        assert!(matches!(translate_function(&[0, 0], 0, &opts), Err(FunctionError::Decode(_))));
        // s_trap 2 is refused (trap handling differs on gfx1201).
        let code = words(&[0xbf92_0002, 0xbf81_0000]);
        assert!(matches!(translate_function(&code, 0, &opts), Err(FunctionError::Translate(_))));
    }
}
