//! The gfx1013 (RDNA1, PS5) to gfx1201 (RDNA4) machine-level translator.
//!
//! The pieces, in the order a code object goes through them:
//! - [`translate_inst`]: one gfx1013 instruction, in the decoder's operand model
//!   ([`isabridge_decoder::Inst`]), to the gfx1201 instructions that do the same
//!   ([`TranslatedInst`]s), or a typed [`TranslateError`]. Waits (`s_waitcnt*`) are dropped here
//!   and recomputed by [`waits`]; branches keep their gfx1013 targets and are re-targeted by
//!   [`layout`].
//! - [`waits`]: gfx1201's split counters computed over the CFG; [`hazards`]: the waits and
//!   nops gfx1201 needs between dependent instructions.
//! - [`layout`]: addresses of the translated code, branch offsets, `s_getpc_b64` and temporary
//!   registers.
//! - [`hsaco`]: the code object around the result ([`Translated`]).

mod alu;
mod bvh;
pub mod calls;
pub mod descriptor;
pub mod descriptor_convert;
pub mod function;
mod ds;
pub mod export;
pub mod expand;
mod expand_outmods;
mod expand_cmpk;
mod expand_dot;
mod expand_dpp;
mod expand_interp;
mod expand_mad;
mod expand_minmax;
mod expand_sdwa;
mod expand_soffset;
mod flat;
pub mod graphics;
pub mod hazards;
pub mod hsaco;
pub mod layout;
pub mod map;
pub mod msgpack;
mod quiet;
pub mod object;
pub mod scratch;
pub mod selfcheck;
mod smem;
mod sopp_ids;
mod vbuffer;
mod vimage;
mod vsample;
pub mod waitcheck;
pub mod waits;

use isabridge_decoder::amd::GFX12;
use isabridge_decoder::{BuildError, Inst, Isa, IsaPlugin};
use expand::ExpandCx;
use map::MapKind;

/// One gfx1201 instruction produced for a gfx1013 instruction.
#[derive(Debug, Clone, PartialEq)]
pub struct TranslatedInst {
    /// The gfx1201 instruction in the operand model (`inst.isa` is [`Isa::Gfx1201`]). Its
    /// `addr` is the gfx1013 address of the instruction it came from until [`layout`] places
    /// it; a branch's target operand still holds the gfx1013 target address until then.
    pub inst: Inst,
    /// Address of the gfx1013 instruction this one translates (several gfx1201 instructions
    /// share it when an instruction expands to a sequence).
    pub src_addr: u64,
}

/// Translated code: the gfx1201 bytes and the instructions they hold, in order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Translated {
    /// The gfx1201 machine code, little endian, instructions back to back.
    pub code: Vec<u8>,
    /// The instructions of `code`, in order; `inst.addr` is each one's offset in `code` plus
    /// the load address the layout chose.
    pub insts: Vec<TranslatedInst>,
}

/// Why a gfx1013 instruction could not be translated. Every variant names the ISA, the
/// address and the instruction.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TranslateError {
    /// gfx1201 has no translation for the instruction (yet); `reason` says why.
    #[error("{isa} {addr:#x}: {name}: not translated to gfx1201: {reason}")]
    Unsupported {
        /// ISA of the instruction (gfx1013).
        isa: Isa,
        /// Its address.
        addr: u64,
        /// Its name.
        name: &'static str,
        /// Why.
        reason: String,
    },
    /// The gfx1201 instruction could not be built (an operand the gfx1201 encoding lacks).
    #[error("{isa} {addr:#x}: {name}: {err}")]
    Build {
        /// ISA of the source instruction (gfx1013).
        isa: Isa,
        /// Its address.
        addr: u64,
        /// Its name.
        name: &'static str,
        /// The builder's error.
        err: BuildError,
    },
}

/// The typed error for `inst` with `reason`.
fn unsupported(inst: &Inst, reason: &str) -> TranslateError {
    TranslateError::Unsupported { isa: inst.isa, addr: inst.addr, name: inst.name, reason: reason.to_string() }
}

/// gfx1201 encodings the ALU family translator ([`alu`]) handles.
const ALU_ENCODINGS: &[&str] = &[
    "ENC_SOP1", "ENC_SOP2", "ENC_SOPC", "ENC_SOPK", "ENC_SOPP", "ENC_VOP1", "ENC_VOP2", "ENC_VOPC",
    "ENC_VOP3", "ENC_VOP3SD", "ENC_VOP3P", "ENC_VOP1_DPP16", "ENC_VOP1_DPP8", "ENC_VOP2_DPP16",
    "ENC_VOP2_DPP8", "ENC_VOP3_DPP16", "ENC_VOP3_DPP8", "ENC_VOP3SD_DPP16", "ENC_VOP3SD_DPP8",
];

/// The gfx1201 instructions that do what `inst` (a gfx1013 instruction) does.
///
/// Waits (`s_waitcnt*`) translate to nothing: [`waits`] recomputes gfx1201's. Instructions the
/// map classifies as sequences or unsupported, and memory instructions (whose cache and
/// address fields need their own mapping), are typed errors for now. Every returned instruction
/// builds with the gfx1201 builder.
///
/// Expansions that need temporaries or the gfx1013 float mode are typed errors here:
/// [`translate_inst_in`] gives them.
pub fn translate_inst(inst: &Inst) -> Result<Vec<TranslatedInst>, TranslateError> {
    translate_inst_in(inst, &ExpandCx::default())
}

/// [`translate_inst`] with what expansions may use ([`ExpandCx`]: the gfx1013 MODE.IEEE bit
/// and temporary registers the caller reserved above the program's).
pub fn translate_inst_in(inst: &Inst, cx: &ExpandCx) -> Result<Vec<TranslatedInst>, TranslateError> {
    // A float clamp is done after the op (and its quieting) without gfx1201's clamp bit.
    let (op, clamp) = expand_outmods::split(inst, cx)?;
    let mut out = translate_one(&op, cx)?;
    let quiet = quiet::after(&op, cx)?;
    out.extend(quiet.into_iter().chain(clamp).map(|i| TranslatedInst { inst: i, src_addr: inst.addr }));
    Ok(out)
}

/// [`translate_inst_in`] without the NaN quieting of [`quiet`].
fn translate_one(inst: &Inst, cx: &ExpandCx) -> Result<Vec<TranslatedInst>, TranslateError> {
    if inst.isa != Isa::Gfx1013 {
        return Err(unsupported(inst, "the gfx1201 translator reads gfx1013 code"));
    }
    if let Some(out) = sopp_ids::translate(inst) {
        return built(inst, out?);
    }
    if let Some(seq) = expand_dot::expand(inst) {
        return Ok(seq?.into_iter().map(|i| TranslatedInst { inst: i, src_addr: inst.addr }).collect());
    }
    let r = map::row(inst.name, inst.encoding).ok_or_else(|| unsupported(inst, "no row in the gfx1013 -> gfx1201 map"))?;
    if let Some(seq) = expand::expand(inst, r, cx) {
        return Ok(seq?.into_iter().map(|i| TranslatedInst { inst: i, src_addr: inst.addr }).collect());
    }
    let out = match r.kind {
        MapKind::Sequence if inst.name.starts_with("S_WAITCNT") => return Ok(Vec::new()),
        MapKind::Sequence => return Err(unsupported(inst, &format!("expansion not written yet: {}", r.reason))),
        MapKind::Unsupported => return Err(unsupported(inst, r.reason)),
        MapKind::Reencode | MapKind::Rename if ALU_ENCODINGS.contains(&r.gfx12_enc) => alu::translate(inst, r)?,
        MapKind::Reencode | MapKind::Rename if r.gfx12_enc == "ENC_VDS" => ds::translate(inst, r)?,
        MapKind::Reencode | MapKind::Rename if matches!(r.gfx12_enc, "ENC_VFLAT" | "ENC_VGLOBAL") => flat::translate(inst, r)?,
        MapKind::Reencode | MapKind::Rename if r.gfx12_enc == "ENC_SMEM" => smem::translate(inst, r)?,
        MapKind::Reencode | MapKind::Rename if r.gfx12_enc == "ENC_VBUFFER" => vbuffer::translate(inst, r)?,
        MapKind::Reencode | MapKind::Rename if r.gfx12_enc == "ENC_VEXPORT" => export::translate(inst, r)?,
        MapKind::Reencode | MapKind::Rename if r.gfx12_enc == "ENC_VIMAGE" => vimage::translate(inst, r)?,
        MapKind::Reencode | MapKind::Rename if r.gfx12_enc == "ENC_VSAMPLE" => vsample::translate(inst, r)?,
        MapKind::Reencode | MapKind::Rename => {
            return Err(unsupported(inst, &format!("{} field mapping not written yet", r.gfx12_enc.trim_start_matches("ENC_"))))
        }
    };
    GFX12
        .build(&out)
        .map_err(|err| TranslateError::Build { isa: inst.isa, addr: inst.addr, name: inst.name, err })?;
    Ok(vec![TranslatedInst { inst: out, src_addr: inst.addr }])
}

/// `out` after checking that every instruction builds with the gfx1201 builder.
fn built(inst: &Inst, out: Vec<TranslatedInst>) -> Result<Vec<TranslatedInst>, TranslateError> {
    for t in &out {
        GFX12
            .build(&t.inst)
            .map_err(|err| TranslateError::Build { isa: inst.isa, addr: inst.addr, name: inst.name, err })?;
    }
    Ok(out)
}
