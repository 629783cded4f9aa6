//! VOP1, VOP2, VOPC, VOP3, VOP3B, VOP3P and their DPP16, DPP8 and SDWA forms.

use crate::amd::operands::{ends, eq, has, starts};
use super::{enc, fields, opr, Op};
use crate::amd::operands::{self, bit_list, Kind};
use crate::amd::print::{hex_mod, Ctx};
use crate::amd::symbols;
use crate::spec::Operand;

/// Prints any vector ALU instruction.
pub fn print(c: &Ctx<'_, Op>, out: &mut String) {
    let e = c.d.enc;
    out.push_str(c.mnemonic());
    if c.ie.operands.is_empty() {
        // v_nop, v_clrexcp: LLVM prints the bare mnemonic in every encoding.
        match e {
            enc::ENC_VOP1_DPP8 => return dpp8(c, out),
            enc::ENC_VOP1_DPP16 => return dpp16(c, out),
            _ => return,
        }
    }
    match e {
        enc::ENC_VOP1 | enc::ENC_VOP2 | enc::ENC_VOPC => {
            if c.has_enc(enc::ENC_VOP3) || c.has_enc(enc::ENC_VOP3B) {
                out.push_str("_e32");
            }
            vop_e32(c, out)
        }
        enc::ENC_VOP3 if c.has_enc(enc::ENC_VINTRP) => {
            out.push_str("_e64");
            interp_e64(c, out)
        }
        enc::ENC_VOP3 | enc::ENC_VOP3B => {
            if c.has_enc(enc::ENC_VOP1) || c.has_enc(enc::ENC_VOP2) || c.has_enc(enc::ENC_VOPC) {
                out.push_str("_e64");
            }
            vop3(c, out)
        }
        enc::ENC_VOP3P => vop3p(c, out),
        enc::ENC_VOP1_DPP16 | enc::ENC_VOP2_DPP16 => {
            out.push_str("_dpp");
            dpp16(c, out)
        }
        enc::ENC_VOP1_DPP8 | enc::ENC_VOP2_DPP8 => {
            out.push_str("_dpp");
            dpp8(c, out)
        }
        _ => {
            out.push_str("_sdwa");
            sdwa(c, out)
        }
    }
}

fn sep(out: &mut String, k: &mut usize) {
    crate::amd::operands::sep(out, *k);
    *k += 1;
}

/// Plain operand: register, source, implicit vcc, literal.
fn plain(c: &Ctx<'_, Op>, op: &Operand, out: &mut String) {
    let v = c.val(op);
    match op.ty {
        opr::OPR_VGPR => operands::vgpr(out, v, op.size),
        opr::OPR_SDST | opr::OPR_SREG => {
            if op.is_implicit() {
                out.push_str("vcc_lo")
            } else {
                // An 8-bit scalar destination names values above 127 like sources do.
                c.src(out, v, op.size, Kind::I32);
                if v >= 128 {
                    operands::sdst_note(out, v);
                }
            }
        }
        opr::OPR_SIMM32 => {
            crate::amd::operands::kimm(out, c.literal());
        }
        _ => {
            c.src(out, v, op.size, c.kind(op));
            operands::source_note(out, c.mnemonic(), op, v);
        }
    }
}

fn vop_e32(c: &Ctx<'_, Op>, out: &mut String) {
    let mut k = 0;
    for op in c.ie.operands {
        sep(out, &mut k);
        plain(c, op, out);
    }
}

/// Mnemonic facts the vector printer tests, read once per instruction (see [`traits`]).
pub(super) mod tr {
    /// `v_cndmask_b32*`: float modifiers on b32 sources.
    pub const CNDMASK: u16 = 1;
    /// Byte conversions, `*_i4`, `v_sad_u16`: integer sources.
    pub const INT: u16 = 2;
    /// `*_class_*`: the second source is an integer mask.
    pub const CLASS: u16 = 4;
    /// `v_ldexp*`: the second source is an integer exponent.
    pub const LDEXP: u16 = 8;
    /// `v_cvt_pk_u8_f32`: sources after the first are integers.
    pub const CVT_PK_U8: u16 = 16;
    /// `v_mad_i32_i16`, `v_mad_u32_u16`: the third source is a 32-bit integer.
    pub const MAD16: u16 = 32;
    /// `v_interp_*`.
    pub const INTERP: u16 = 64;
    /// `v_permlane*`.
    pub const PERMLANE: u16 = 128;
    /// `v_fma_mix*`.
    pub const FMA_MIX: u16 = 256;
    /// `v_alignbit_b32`, `v_alignbyte_b32`: op_sel although 32-bit.
    pub const ALIGN: u16 = 512;
    /// `v_sad_u16`: no op_sel.
    pub const SAD_U16: u16 = 1024;
}

/// The [`tr`] bits of a mnemonic (const: see [`TRAITS`]).
const fn traits_of(m: &str) -> u16 {
    let mut t = 0;
    if starts(m, "v_cndmask_b32") {
        t |= tr::CNDMASK;
    }
    if has(m, "_ubyte") || ends(m, "_i4") || eq(m, "v_sad_u16") {
        t |= tr::INT;
    }
    if has(m, "_class_") {
        t |= tr::CLASS;
    }
    if starts(m, "v_ldexp") {
        t |= tr::LDEXP;
    }
    if eq(m, "v_cvt_pk_u8_f32") {
        t |= tr::CVT_PK_U8;
    }
    if eq(m, "v_mad_i32_i16") || eq(m, "v_mad_u32_u16") {
        t |= tr::MAD16;
    }
    if starts(m, "v_interp_") {
        t |= tr::INTERP;
    }
    if starts(m, "v_permlane") {
        t |= tr::PERMLANE;
    }
    if starts(m, "v_fma_mix") {
        t |= tr::FMA_MIX;
    }
    if eq(m, "v_alignbit_b32") || eq(m, "v_alignbyte_b32") {
        t |= tr::ALIGN;
    }
    if eq(m, "v_sad_u16") {
        t |= tr::SAD_U16;
    }
    t
}

/// The [`tr`] bits of every instruction, worked out at compile time.
pub(super) static TRAITS: [u16; super::INSTRUCTIONS.len()] = {
    let mut t = [0; super::INSTRUCTIONS.len()];
    let mut i = 0;
    while i < t.len() {
        t[i] = traits_of(super::INSTRUCTIONS[i].mnemonic);
        i += 1;
    }
    t
};

/// The [`tr`] bits of the instruction.
#[inline]
fn traits(c: &Ctx<'_, Op>) -> u16 {
    TRAITS.get(c.ie.inst as usize).copied().unwrap_or(0)
}

/// The kind a source's modifiers follow: v_cndmask_b32 takes float modifiers on its b32 sources,
/// byte conversions and class masks read integers.
fn mod_kind(c: &Ctx<'_, Op>, op: &Operand, i: usize) -> Kind {
    mod_kind_of(traits(c), c.kind(op), i)
}

/// [`mod_kind`] of source `i` of print kind `kind` of an instruction of traits `t` (const: the
/// print plans work it out at compile time).
pub(super) const fn mod_kind_of(t: u16, kind: Kind, i: usize) -> Kind {
    if t & tr::CNDMASK != 0 {
        Kind::F32
    } else if t & tr::INT != 0
        || (i == 1 && t & (tr::CLASS | tr::LDEXP) != 0)
        || (i >= 1 && t & tr::CVT_PK_U8 != 0)
        || (i == 2 && t & tr::MAD16 != 0)
    {
        Kind::I32
    } else {
        kind
    }
}

use crate::amd::operands::{omod, src_index};

fn vop3(c: &Ctx<'_, Op>, out: &mut String) {
    let vop3b = c.d.enc == enc::ENC_VOP3B;
    let t = traits(c);
    // NEG and ABS are read per source, only where a float source can carry them.
    let neg = |i: usize| c.bits(61 + i as u32, 1) != 0;
    let abs = |i: usize| !vop3b && c.bits(8 + i as u32, 1) != 0;
    let mut k = 0;
    let mut float = false;
    let mut nsrc = 0;
    for op in c.ie.operands {
        if op.is_implicit() {
            continue;
        }
        sep(out, &mut k);
        match src_index(op) {
            Some(i) => {
                nsrc += 1;
                let kind = mod_kind(c, op, i);
                float |= kind.is_float();
                if t & tr::INTERP != 0 && c.field_name(op) == "SRC0" {
                    // VOP3 interpolation: SRC0 holds attribute, channel and the high-half bit.
                    let v = c.val(op);
                    out.push_str("attr");
                    crate::amd::operands::put(out, v & 0x3f);
                    out.push('.');
                    crate::amd::operands::put(out, ["x", "y", "z", "w"][(v >> 6 & 3) as usize]);
                    continue;
                }
                let (n, a) = if kind.is_float() { (neg(i), abs(i)) } else { (false, false) };
                if i == 1 && t & tr::CLASS != 0 {
                    // LLVM keeps the class mask's modifier bits without printing them.
                    let _ = (c.bits(62, 1), vop3b || c.bits(9, 1) != 0);
                }
                if i == 1 && c.val(op) == 255 && c.mnemonic() == "v_ldexp_f16" {
                    // The exponent is a 16-bit integer: its literal prints as one (the inline
                    // constants as for 32 bits).
                    operands::literal(out, c.lit, Kind::I16);
                } else {
                    c.src_mods(out, c.val(op), op.size, kind, n, a);
                }
                operands::source_note(out, c.mnemonic(), op, c.val(op));
            }
            None => plain(c, op, out),
        }
    }
    if !vop3b {
        if t & tr::PERMLANE != 0 {
            // permlane: op_sel holds fetch-inactive and bound-control, two entries.
            let opsel = c.bits(11, 2);
            if opsel != 0 {
                out.push_str(" op_sel:");
                bit_list(out, opsel as u64, 2);
            }
        } else if has_op_sel(c) {
            let opsel = c.f(fields::ENC_VOP3::OPSEL);
            if opsel != 0 {
                out.push_str(" op_sel:");
                // One bit per source, then the destination bit.
                let bits = (opsel as u64 & ((1 << nsrc) - 1)) | ((opsel as u64 >> 3 & 1) << nsrc);
                bit_list(out, bits, nsrc + 1);
            }
        }
    }
    if t & tr::INTERP != 0 && c.bits(40, 1) != 0 {
        out.push_str(" high");
    }
    let clamp = if vop3b { c.f(fields::ENC_VOP3B::CLAMP) } else { c.f(fields::ENC_VOP3::CLAMP) };
    if clamp != 0 {
        out.push_str(" clamp");
    }
    if float || c.ie.operands.iter().any(|op| c.kind(op).is_float()) {
        omod(out, c.bits(59, 2));
    }
}

/// The VOP3 forms of the VINTRP instructions (`v_interp_p1_f32_e64`, `_p2_`, `_mov_`), as LLVM
/// prints them: the destination; SRC1 (the source with its modifiers; `v_interp_mov_f32`'s
/// parameter p10 / p20 / p0); the attribute and channel in SRC0; clamp and omod.
fn interp_e64(c: &Ctx<'_, Op>, out: &mut String) {
    out.push(' ');
    operands::vgpr(out, c.bits(0, 8), 32);
    out.push_str(", ");
    let src1 = c.bits(41, 9);
    if c.mnemonic() == "v_interp_mov_f32" {
        match src1 {
            0 => out.push_str("p10"),
            1 => out.push_str("p20"),
            2 => out.push_str("p0"),
            v => {
                out.push_str("invalid_param_");
                crate::amd::operands::put(out, v);
            }
        }
    } else {
        c.src_mods(out, src1, 32, Kind::F32, c.bits(62, 1) != 0, c.bits(9, 1) != 0);
    }
    let attr = c.bits(32, 9);
    out.push_str(", attr");
    crate::amd::operands::put(out, attr & 0x3f);
    out.push('.');
    crate::amd::operands::put(out, ["x", "y", "z", "w"][(attr >> 6 & 3) as usize]);
    if c.f(fields::ENC_VOP3::CLAMP) != 0 {
        out.push_str(" clamp");
    }
    omod(out, c.bits(59, 2));
}

/// gfx10 VOP3 op_sel exists on VOP3-only instructions with 16-bit operands (and the byte/bit
/// aligns, as LLVM 22 has them).
fn has_op_sel(c: &Ctx<'_, Op>) -> bool {
    let t = traits(c);
    if t & tr::ALIGN != 0 {
        return true;
    }
    if t & (tr::SAD_U16 | tr::INTERP) != 0 {
        return false;
    }
    if c.has_enc(enc::ENC_VOP1) || c.has_enc(enc::ENC_VOP2) || c.has_enc(enc::ENC_VOPC) {
        return false;
    }
    c.ie.operands.iter().any(|op| src_index(op).is_some() && matches!(c.kind(op), Kind::F16 | Kind::I16))
}

fn vop3p(c: &Ctx<'_, Op>, out: &mut String) {
    use fields::ENC_VOP3P as F;
    // v_fma_mix*: NEG and NEG_HI are per-source neg and abs; op_sel_hi defaults to 0.
    let mix = traits(c) & tr::FMA_MIX != 0;
    let neg = c.f(F::NEG) as u64;
    let neg_hi = c.f(F::NEG_HI) as u64;
    let mut k = 0;
    let mut nsrc = 0;
    for op in c.ie.operands {
        if op.is_implicit() {
            continue;
        }
        sep(out, &mut k);
        match src_index(op) {
            Some(i) if mix => {
                nsrc += 1;
                let (n, a) = (neg >> i & 1 != 0, neg_hi >> i & 1 != 0);
                c.src_mods(out, c.val(op), op.size, Kind::F16, n, a);
            }
            Some(_) => {
                nsrc += 1;
                c.src(out, c.val(op), op.size, c.kind(op));
            }
            None => plain(c, op, out),
        }
    }
    let all = (1u64 << nsrc) - 1;
    let opsel = c.f(F::OPSEL) as u64 & all;
    let opsel_hi = (c.f(F::OPSEL_HI) as u64 | (c.f(F::OPSEL_HI2) as u64) << 2) & all;
    if opsel != 0 {
        out.push_str(" op_sel:");
        bit_list(out, opsel, nsrc);
    }
    if (mix && opsel_hi != 0) || (!mix && opsel_hi != all) {
        out.push_str(" op_sel_hi:");
        bit_list(out, opsel_hi, nsrc);
    }
    if !mix && neg & all != 0 {
        out.push_str(" neg_lo:");
        bit_list(out, neg & all, nsrc);
    }
    if !mix && neg_hi & all != 0 {
        out.push_str(" neg_hi:");
        bit_list(out, neg_hi & all, nsrc);
    }
    if c.f(F::CLAMP) != 0 {
        out.push_str(" clamp");
    }
}

/// Operands of a DPP form: sources come from VSRC0/VSRC1 with optional float modifiers.
fn dpp_operands(c: &Ctx<'_, Op>, out: &mut String, neg: [u32; 2], abs: [u32; 2]) {
    let mut k = 0;
    for op in c.ie.operands {
        sep(out, &mut k);
        match src_index(op) {
            Some(i) if op.ty == opr::OPR_VGPR || op.ty == opr::OPR_SRC => {
                let kind = mod_kind(c, op, i);
                let (n, a) = if kind.is_float() { (neg[i] != 0, abs[i] != 0) } else { (false, false) };
                operands::vgpr_mods(out, c.val(op) & 0xff, op.size, n, a);
            }
            _ => plain(c, op, out),
        }
    }
}

fn dpp16(c: &Ctx<'_, Op>, out: &mut String) {
    use fields::ENC_VOP1_DPP16 as F;
    dpp_operands(
        c,
        out,
        [c.f(F::SRC0_NEG), c.f(F::SRC1_NEG)],
        [c.f(F::SRC0_ABS), c.f(F::SRC1_ABS)],
    );
    symbols::dpp_ctrl(out, c.f(F::DPP_CTRL));
    hex_mod(out, "row_mask", c.f(F::ROW_MASK));
    hex_mod(out, "bank_mask", c.f(F::BANK_MASK));
    if c.f(F::BOUND_CTRL) != 0 {
        out.push_str(" bound_ctrl:1");
    }
    if c.f(F::FI) != 0 {
        out.push_str(" fi:1");
    }
}

fn dpp8(c: &Ctx<'_, Op>, out: &mut String) {
    use fields::ENC_VOP1_DPP8 as F;
    dpp_operands(c, out, [0, 0], [0, 0]);
    let sels = [F::LANE_SEL0, F::LANE_SEL1, F::LANE_SEL2, F::LANE_SEL3, F::LANE_SEL4, F::LANE_SEL5, F::LANE_SEL6, F::LANE_SEL7];
    out.push_str(" dpp8:[");
    for (i, s) in sels.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        crate::amd::operands::put(out, c.f(*s));
    }
    out.push(']');
    if c.f(fields::ENC_VOP1_DPP8::SRC0) == 0xea {
        out.push_str(" fi:1");
    }
}

const SEL: [&str; 8] = ["BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD", "7"];
const UNUSED: [&str; 4] = ["UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE", "UNUSED_PAD"];

fn sdwa(c: &Ctx<'_, Op>, out: &mut String) {
    use fields::ENC_VOP2_SDWA as F;
    let vopc = c.d.enc == enc::ENC_VOPC_SDWA;
    let vop1 = c.d.enc == enc::ENC_VOP1_SDWA;
    let neg = [c.f(F::SRC0_NEG), c.f(F::SRC1_NEG)];
    let abs = [c.f(F::SRC0_ABS), c.f(F::SRC1_ABS)];
    let sext = [c.f(F::SRC0_SEXT), c.f(F::SRC1_SEXT)];
    let mut k = 0;
    let mut float = false;
    for op in c.ie.operands {
        sep(out, &mut k);
        if op.is_implicit() {
            // VOPC: SD selects an explicit SGPR destination instead of VCC.
            if vopc && c.f(fields::ENC_VOPC_SDWA::SD) != 0 {
                c.sreg(out, c.f(fields::ENC_VOPC_SDWA::SDST), 32);
            } else {
                out.push_str("vcc_lo");
            }
            continue;
        }
        match src_index(op) {
            Some(i) => {
                let kind = mod_kind(c, op, i);
                float |= kind.is_float();
                let raw = c.val(op);
                // Bit 8 of the SDWA source selects a scalar operand (S0/S1), not a VGPR.
                let scalar = if i == 0 { raw >> 8 & 1 != 0 } else { c.f(F::S1) != 0 && !vop1 };
                let (n, a) = if kind.is_float() { (neg[i] != 0, abs[i] != 0) } else { (false, false) };
                let s = !kind.is_float() && sext[i] != 0;
                if s {
                    out.push_str("sext(");
                }
                if scalar {
                    c.src_mods(out, raw & 0xff, op.size, kind, n, a);
                } else {
                    c.src_mods(out, 256 + (raw & 0xff), op.size, kind, n, a);
                }
                if s {
                    out.push(')');
                }
            }
            None => plain(c, op, out),
        }
    }
    if !vopc {
        if c.f(F::CLAMP) != 0 {
            out.push_str(" clamp");
        }
        if float || c.ie.operands.iter().any(|op| c.kind(op).is_float()) {
            omod(out, c.f(F::OMOD));
        }
        out.push_str(" dst_sel:");
        crate::amd::operands::put(out, SEL[c.f(F::DST_SEL) as usize]);
        out.push_str(" dst_unused:");
        crate::amd::operands::put(out, UNUSED[c.f(F::DST_U) as usize]);
    }
    out.push_str(" src0_sel:");
    crate::amd::operands::put(out, SEL[c.f(F::SRC0_SEL) as usize]);
    if !vop1 {
        out.push_str(" src1_sel:");
        crate::amd::operands::put(out, SEL[c.f(F::SRC1_SEL) as usize]);
    }
}

#[allow(dead_code)]
fn is_float(k: Kind) -> bool {
    k.is_float()
}
