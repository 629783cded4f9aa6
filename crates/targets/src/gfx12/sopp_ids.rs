//! gfx1013 instructions whose gfx1201 form carries renumbered ids or another opcode: the
//! workgroup barrier, message and hardware-register ids, the cache invalidations and the real
//! time clock. Each mapping names what shows the equivalence; what is not shown equal is a
//! typed error with the reason.
//! - `s_barrier` -> `s_barrier_signal -1` then `s_barrier_wait -1` (-1: the workgroup
//!   barrier; what LLVM 22 emits for `llvm.amdgcn.s.barrier` on gfx1201).
//! - `buffer_gl0_inv` -> `global_inv scope:SCOPE_SE` and `buffer_gl1_inv` ->
//!   `global_inv scope:SCOPE_SYS`: for a workgroup-scope acquire (WGP mode) llc-22 emits
//!   `buffer_gl0_inv` for gfx1013 and `global_inv scope:SCOPE_SE` for gfx1201; for agent and
//!   system acquires it emits `buffer_gl1_inv; buffer_gl0_inv` for gfx1013 (the two are the
//!   same there) and `SCOPE_DEV` / `SCOPE_SYS` for gfx1201. gfx1013 code cannot tell the two
//!   apart, so the GL1 invalidation takes the wider scope (an invalidation of more lines never
//!   changes a result).
//! - `s_memrealtime` -> `s_sendmsg_rtn_b64 MSG_RTN_GET_REALTIME`: both are LLVM 22's
//!   `llvm.readsteadycounter`, the 64-bit constant-frequency clock. `s_memtime` (the shader
//!   clock, `llvm.readcyclecounter`) has no single gfx1201 equal: LLVM 22 reads it there as
//!   SHADER_CYCLES hardware registers with a retry, whose clock domain is not shown to be
//!   the same; refused.
//! - messages: only MSG_INTERRUPT (id 1 in both generations) is mapped, for `s_sendmsg` and
//!   `s_sendmsghalt`. The ids are those of LLVM's message tables (docs/AMDGPU gfx10_msg.rst
//!   and gfx12_sendmsg.rst; SIDefines.h `ID_GS_PreGFX11`, `ID_GS_DONE_PreGFX11`,
//!   `ID_HS_TESSFACTOR_GFX11Plus`, `ID_DEALLOC_VGPRS_GFX11Plus`): gfx1201 accepts only 1
//!   (MSG_INTERRUPT), 2 (MSG_HS_TESSFACTOR), 3 (MSG_DEALLOC_VGPRS) and 9 (MSG_GS_ALLOC_REQ).
//!   gfx1013's MSG_GS (2, emit / cut) and MSG_GS_DONE (3) have no gfx1201 message (its
//!   geometry work goes through NGG), and their ids now name other messages: re-encoding
//!   `s_sendmsg 3` would free the wave's VGPRs mid-kernel. Dropping MSG_GS_DONE is not shown
//!   to be the same either: no source says what a gfx1013 compute wave's GS_DONE does (the
//!   interpreter records it as a stage event, `message.gsdone`), so it stays a typed error
//!   (cl_lanes `misc_sys`, `__builtin_amdgcn_s_sendmsg(3, 0)`).
//! - hardware registers: only HW_REG_MODE (id 1 in both) bits 0-7, the float round and denorm
//!   fields, which LLVM 22 places at the same bits for both (FP_ROUND 0-3, FP_DENORM 4-7;
//!   gfx1201 names the register HW_REG_WAVE_MODE); gfx1201 dropped or moved the other MODE
//!   bits (DX10_CLAMP, IEEE, exceptions) and the other registers.

use super::map::{gfx12_encoding, gfx12_opcode};
use super::{unsupported, TranslateError, TranslatedInst};
use isabridge_decoder::operand::{Access, ConstType, Flow, Modifier, Operand, OperandKind, SrcMods};
use isabridge_decoder::{Inst, Isa};

/// gfx1201 message id of MSG_RTN_GET_REALTIME.
const MSG_RTN_GET_REALTIME: u64 = 0x83;
/// MSG_INTERRUPT, the same id in both generations.
const MSG_INTERRUPT: u64 = 1;
/// HW_REG_MODE's id in both generations.
const HW_REG_MODE: u64 = 1;

/// The translation of `inst` when it is one of this module's instructions, else None.
pub(super) fn translate(inst: &Inst) -> Option<Result<Vec<TranslatedInst>, TranslateError>> {
    Some(match inst.name {
        "S_BARRIER" => barrier(inst),
        "BUFFER_GL0_INV" => cache_invalidate(inst, 1),
        "BUFFER_GL1_INV" => cache_invalidate(inst, 3),
        "S_MEMREALTIME" => realtime(inst),
        "S_MEMTIME" => Err(unsupported(
            inst,
            "s_memtime reads the shader clock; gfx1201 reads SHADER_CYCLES registers with a retry, not shown to be the same clock",
        )),
        "S_SENDMSG" | "S_SENDMSGHALT" => sendmsg(inst),
        "S_GETREG_B32" | "S_SETREG_B32" | "S_SETREG_IMM32_B32" => hwreg(inst),
        _ => return None,
    })
}

/// A gfx1201 instruction `name` in encoding `enc` with `operands` and `modifiers`, at the
/// address of `src`.
fn make(src: &Inst, name: &str, enc: &str, operands: Vec<Operand>, modifiers: Vec<Modifier>) -> Result<TranslatedInst, TranslateError> {
    let (opcode, name) = gfx12_opcode(name).ok_or_else(|| unsupported(src, "the gfx1201 tables lack the instruction"))?;
    let encoding = gfx12_encoding(enc).ok_or_else(|| unsupported(src, "the gfx1201 tables lack the encoding"))?;
    let inst = Inst { isa: Isa::Gfx1201, addr: src.addr, len: 0, opcode, name, encoding, operands, modifiers, flow: Flow::Next, guard: None, control: None };
    Ok(TranslatedInst { inst, src_addr: src.addr })
}

/// An explicit operand.
fn op(access: Access, field: &'static str, kind: OperandKind, size: u16) -> Operand {
    Operand { access, kind, size, implicit: false, field, mods: SrcMods::default() }
}

fn barrier(inst: &Inst) -> Result<Vec<TranslatedInst>, TranslateError> {
    let minus_one = OperandKind::InlineConst { code: 193, bits: 0xffff_ffff, ty: ConstType::Int };
    Ok(vec![
        make(inst, "S_BARRIER_SIGNAL", "ENC_SOP1", vec![op(Access::Read, "SSRC0", minus_one, 32)], Vec::new())?,
        make(inst, "S_BARRIER_WAIT", "ENC_SOPP", vec![op(Access::Read, "SIMM16", OperandKind::Imm(0xffff), 16)], Vec::new())?,
    ])
}

/// `global_inv` with gfx1201 scope `scope` (1 SE, 2 DEV, 3 SYS).
fn cache_invalidate(inst: &Inst, scope: u64) -> Result<Vec<TranslatedInst>, TranslateError> {
    Ok(vec![make(inst, "GLOBAL_INV", "ENC_VGLOBAL", Vec::new(), vec![Modifier::Named("SCOPE", scope), Modifier::Named("SADDR", 124)])?])
}

fn realtime(inst: &Inst) -> Result<Vec<TranslatedInst>, TranslateError> {
    let dst = inst.operands.iter().find(|o| !o.implicit && o.access.writes()).ok_or_else(|| unsupported(inst, "s_memrealtime without a destination"))?;
    let msg = OperandKind::Field { ty: "OPR_SENDMSG", value: MSG_RTN_GET_REALTIME };
    Ok(vec![make(
        inst,
        "S_SENDMSG_RTN_B64",
        "ENC_SOP1",
        vec![op(Access::Write, "SDST", dst.kind, 64), op(Access::Read, "SSRC0", msg, 32)],
        Vec::new(),
    )?])
}

/// The value of the explicit `ty` field operand of `inst`.
fn field(inst: &Inst, ty: &str) -> Option<u64> {
    inst.explicit().find_map(|o| match o.kind {
        OperandKind::Field { ty: t, value } if t == ty => Some(value),
        _ => None,
    })
}

fn sendmsg(inst: &Inst) -> Result<Vec<TranslatedInst>, TranslateError> {
    match field(inst, "OPR_SENDMSG") {
        Some(MSG_INTERRUPT) => {
            let mut out = inst.clone();
            let (opcode, name) = gfx12_opcode(inst.name).ok_or_else(|| unsupported(inst, "the gfx1201 tables lack the instruction"))?;
            out.isa = Isa::Gfx1201;
            out.opcode = opcode;
            out.name = name;
            out.encoding = gfx12_encoding(inst.encoding).ok_or_else(|| unsupported(inst, "the gfx1201 tables lack the encoding"))?;
            Ok(vec![TranslatedInst { inst: out, src_addr: inst.addr }])
        }
        Some(v) => Err(unsupported(inst, &message_reason(v))),
        None => Err(unsupported(inst, "message operand not an id")),
    }
}

/// Why gfx1013 message `v` (SIMM16: id in bits 3:0, operation in 6:4, stream in 9:8) is not
/// translated.
fn message_reason(v: u64) -> String {
    let what = match v & 0xf {
        2 => "gfx10 MSG_GS (geometry emit / cut), which gfx1201 lacks (NGG); its id 2 is MSG_HS_TESSFACTOR there",
        3 => "gfx10 MSG_GS_DONE, which gfx1201 lacks; its id 3 is MSG_DEALLOC_VGPRS there, and no source shows dropping it the same",
        _ => "other ids changed meaning on gfx1201",
    };
    format!("message {v:#x}: {what} (only MSG_INTERRUPT is mapped)")
}

fn hwreg(inst: &Inst) -> Result<Vec<TranslatedInst>, TranslateError> {
    let v = field(inst, "OPR_HWREG").ok_or_else(|| unsupported(inst, "hardware-register operand not an id"))?;
    // SIMM16: id in bits 5:0, offset in 10:6, size - 1 in 15:11.
    let (id, offset, size) = (v & 0x3f, (v >> 6) & 0x1f, ((v >> 11) & 0x1f) + 1);
    if id != HW_REG_MODE || offset + size > 8 {
        return Err(unsupported(
            inst,
            &format!("hwreg id {id} bits {offset}..{}: only HW_REG_MODE bits 0-7 (round and denorm) are the same on gfx1201", offset + size),
        ));
    }
    let mut out = inst.clone();
    let (opcode, name) = gfx12_opcode(inst.name).ok_or_else(|| unsupported(inst, "the gfx1201 tables lack the instruction"))?;
    out.isa = Isa::Gfx1201;
    out.opcode = opcode;
    out.name = name;
    out.encoding = gfx12_encoding(inst.encoding).ok_or_else(|| unsupported(inst, "the gfx1201 tables lack the encoding"))?;
    Ok(vec![TranslatedInst { inst: out, src_addr: inst.addr }])
}
