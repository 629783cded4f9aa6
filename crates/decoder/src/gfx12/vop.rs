//! VOP1, VOP2, VOPC, VOP3, VOP3SD, VOP3P, their DPP16/DPP8 forms (VOP3 DPP in 96 bits) and VOPD.

use super::ops::{self, sep};
use super::{enc, fields, fmt, opr, Op};
use crate::amd::operands::{self, bit_list, eq, has, starts, Kind};
use crate::amd::print::{hex_mod, Ctx};
use crate::spec::Operand;

/// Prints any vector ALU instruction except VOPD.
pub fn print(c: &Ctx<'_, Op>, out: &mut String) {
    let e = c.d.enc;
    out.push_str(c.mnemonic());
    let short = c.has_enc(enc::ENC_VOP1) || c.has_enc(enc::ENC_VOP2) || c.has_enc(enc::ENC_VOPC);
    match e {
        enc::ENC_VOP1 | enc::ENC_VOP2 | enc::ENC_VOPC => {
            if !c.ie.operands.is_empty() && (c.has_enc(enc::ENC_VOP3) || c.has_enc(enc::ENC_VOP3SD)) {
                out.push_str("_e32");
            }
            let mut k = 0;
            for op in c.ie.operands {
                sep(out, &mut k);
                plain(c, op, out);
                lo128_note(c, op, out);
            }
        }
        enc::ENC_VOP3 | enc::ENC_VOP3SD => {
            // (v_nop, v_pipeflush: LLVM prints the bare mnemonic in every encoding)
            if short && !c.ie.operands.is_empty() {
                out.push_str("_e64");
            }
            vop3(c, out, Dpp::None);
        }
        enc::ENC_VOP3P => vop3p(c, out, Dpp::None),
        enc::ENC_VOP1_DPP16 | enc::ENC_VOP2_DPP16 | enc::ENC_VOPC_DPP16 => {
            if e != enc::ENC_VOPC_DPP16 {
                out.push_str("_dpp");
            }
            use fields::ENC_VOP1_DPP16 as F;
            dpp_operands(c, out, [c.f(F::SRC0_NEG), c.f(F::SRC1_NEG)], [c.f(F::SRC0_ABS), c.f(F::SRC1_ABS)]);
            dpp16_ctrl(c, out, Dpp16Fields::E32);
        }
        enc::ENC_VOP1_DPP8 | enc::ENC_VOP2_DPP8 | enc::ENC_VOPC_DPP8 => {
            if e != enc::ENC_VOPC_DPP8 {
                out.push_str("_dpp");
            }
            dpp_operands(c, out, [0, 0], [0, 0]);
            dpp8_ctrl(c, out, false);
        }
        enc::ENC_VOP3_DPP16 | enc::ENC_VOP3SD_DPP16 => {
            out.push_str("_e64_dpp");
            vop3(c, out, Dpp::Dpp16);
        }
        enc::ENC_VOP3_DPP8 | enc::ENC_VOP3SD_DPP8 => {
            out.push_str("_e64_dpp");
            vop3(c, out, Dpp::Dpp8);
        }
        enc::ENC_VOP3P_DPP16 => {
            out.push_str("_e64_dpp");
            vop3p(c, out, Dpp::Dpp16);
        }
        enc::ENC_VOP3P_DPP8 => {
            out.push_str("_e64_dpp");
            vop3p(c, out, Dpp::Dpp8);
        }
        _ => {}
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Dpp {
    None,
    Dpp16,
    Dpp8,
}

/// Plain operand: register, source, implicit vcc, literal.
fn plain(c: &Ctx<'_, Op>, op: &Operand, out: &mut String) {
    let v = c.val(op);
    match op.ty {
        opr::OPR_VGPR => operands::vgpr(out, v, op.size),
        opr::OPR_SDST | opr::OPR_SREG => {
            if op.is_implicit() {
                out.push_str("vcc_lo")
            } else if v >= 128 {
                ops::src(c, out, v, op.size, Kind::I32);
                operands::sdst_note(out, v);
            } else {
                c.sreg(out, v, op.size)
            }
        }
        opr::OPR_SIMM32 => {
            operands::kimm(out, c.lit);
        }
        _ => {
            let kind = if traits(c) & tr::FP8_SRC != 0 { Kind::F16 } else { c.kind(op) };
            ops::src(c, out, v, op.size, kind);
            operands::source_note(out, c.mnemonic(), op, v);
        }
    }
}

use crate::amd::operands::{omod, src_index};

/// Mnemonic facts the vector printer tests, read once per instruction (see [`traits`]).
pub(super) mod tr {
    /// `*ldexp*`, `*_class_f32*`, `*_class_f64*`: the second source takes no float modifiers.
    pub const INT_SRC1: u8 = 1;
    /// `v_cndmask*`: float modifiers whatever the type.
    pub const CNDMASK: u8 = 2;
    /// `v_cvt_pk_f32_fp8*`, `v_cvt_pk_f32_bf8*`: the source prints as f16.
    pub const FP8_SRC: u8 = 4;
    /// `v_alignbit*`, `v_alignbyte*`: the third source prints as i16.
    pub const ALIGN: u8 = 8;
    /// In [`super::OPSEL_VOP3`].
    pub const OPSEL: u8 = 16;
    /// `v_permlane16*`, `v_permlanex16*`.
    pub const PERMLANE16: u8 = 32;
    /// `v_cvt_f32_fp8*`, `v_cvt_f32_bf8*`: op_sel bits 0-1 are `byte_sel` (bit 0 its high bit).
    pub const BYTE_SEL_CVT: u8 = 64;
    /// `v_cvt_sr_fp8_f32*`, `v_cvt_sr_bf8_f32*`: op_sel bits 2-3 are `byte_sel`.
    pub const BYTE_SEL_SR: u8 = 128;
}

/// The [`tr`] bits of a mnemonic (const: see [`TRAITS`]).
const fn traits_of(m: &str) -> u8 {
    let mut t = 0;
    if has(m, "ldexp") || has(m, "_class_f32") || has(m, "_class_f64") {
        t |= tr::INT_SRC1;
    }
    if starts(m, "v_cndmask") {
        t |= tr::CNDMASK;
    }
    if starts(m, "v_cvt_pk_f32_fp8") || starts(m, "v_cvt_pk_f32_bf8") {
        t |= tr::FP8_SRC;
    }
    if starts(m, "v_alignbit") || starts(m, "v_alignbyte") {
        t |= tr::ALIGN;
    }
    let mut k = 0;
    while k < OPSEL_VOP3.len() {
        if eq(m, OPSEL_VOP3[k]) {
            t |= tr::OPSEL;
        }
        k += 1;
    }
    if starts(m, "v_permlane16") || starts(m, "v_permlanex16") {
        t |= tr::PERMLANE16;
    }
    if starts(m, "v_cvt_f32_fp8") || starts(m, "v_cvt_f32_bf8") {
        t |= tr::BYTE_SEL_CVT;
    }
    if starts(m, "v_cvt_sr_fp8_f32") || starts(m, "v_cvt_sr_bf8_f32") {
        t |= tr::BYTE_SEL_SR;
    }
    t
}

/// The [`tr`] bits of every instruction, worked out at compile time.
pub(super) static TRAITS: [u8; super::INSTRUCTIONS.len()] = {
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
fn traits(c: &Ctx<'_, Op>) -> u8 {
    TRAITS.get(c.ie.inst as usize).copied().unwrap_or(0)
}

/// True for a 16-bit (not packed) data format: the instruction takes op_sel.
pub(super) fn is16(_c: &Ctx<'_, Op>, op: &Operand) -> bool {
    // The 16-bit formats that are not packed pairs (names ending in 16, without PK2).
    matches!(op.fmt, fmt::FMT_NUM_B16 | fmt::FMT_NUM_BF16 | fmt::FMT_NUM_F16 | fmt::FMT_NUM_I16 | fmt::FMT_NUM_U16)
}

/// True when source `i` takes float input modifiers.
pub(super) fn float_mods(c: &Ctx<'_, Op>, kind: Kind, i: usize) -> bool {
    float_mods_of(traits(c), kind, i)
}

/// [`float_mods`] of an instruction of traits `t` (const: the print plans work it out at
/// compile time).
pub(super) const fn float_mods_of(t: u8, kind: Kind, i: usize) -> bool {
    if (i == 1 && t & tr::INT_SRC1 != 0) || t & tr::FP8_SRC != 0 {
        // (the fp8 / bf8 pair conversions' source takes none: llvm-mc-22 refuses `|v2|` and
        // prints the source of a word with ABS / NEG set without them)
        return false;
    }
    kind.is_float() || t & tr::CNDMASK != 0
}

/// VOP3 opcodes whose text carries op_sel (LLVM 22 without true16: the VOP3-only 16-bit
/// operations and a few packing ones), sorted; everything else ignores the field.
const OPSEL_VOP3: &[&str] = &[
    "v_add_nc_i16",
    "v_add_nc_u16",
    "v_alignbit_b32",
    "v_alignbyte_b32",
    "v_cvt_pk_bf8_f32",
    "v_cvt_pk_f32_bf8",
    "v_cvt_pk_f32_fp8",
    "v_cvt_pk_fp8_f32",
    "v_cvt_pk_norm_i16_f16",
    "v_cvt_pk_norm_u16_f16",
    "v_div_fixup_f16",
    "v_dot2_bf16_bf16",
    "v_dot2_f16_f16",
    "v_fma_f16",
    "v_mad_i16",
    "v_mad_i32_i16",
    "v_mad_u16",
    "v_mad_u32_u16",
    "v_max3_i16",
    "v_max3_num_f16",
    "v_max3_u16",
    "v_maximum3_f16",
    "v_maximum_f16",
    "v_maximumminimum_f16",
    "v_maxmin_num_f16",
    "v_med3_i16",
    "v_med3_num_f16",
    "v_med3_u16",
    "v_min3_i16",
    "v_min3_num_f16",
    "v_min3_u16",
    "v_minimum3_f16",
    "v_minimum_f16",
    "v_minimummaximum_f16",
    "v_minmax_num_f16",
    "v_pack_b32_f16",
    "v_sub_nc_i16",
    "v_sub_nc_u16",
];

/// True when the VOP3 form of the instruction prints op_sel.
pub(super) fn has_opsel(c: &Ctx<'_, Op>, _has16: bool) -> bool {
    traits(c) & tr::OPSEL != 0
}

/// A source with gfx12 modifiers: `-x`/`neg(imm)`, `|x|`.
pub(super) fn src_mod(c: &Ctx<'_, Op>, out: &mut String, v: u32, size: u16, kind: Kind, neg: bool, abs: bool) {
    // A literal printed as `lit(...)` takes a plain minus sign.
    let imm = (v == 255 && !ops::literal_form(c.lit, kind).0) || (128..=208).contains(&v) || (240..=248).contains(&v);
    if neg && imm && !abs {
        out.push_str("neg(");
        ops::src_mods(c, out, v, size, kind, false, abs);
        out.push(')');
    } else {
        ops::src_mods(c, out, v, size, kind, neg, abs);
    }
}

/// The OPSEL field of a VOP3 instruction as its op_sel shows it: v_dot2_* (packed sources)
/// show only the bits of the third source and the destination.
pub(super) fn vop3_opsel(c: &Ctx<'_, Op>) -> u32 {
    let opsel = c.f(fields::ENC_VOP3::OPSEL);
    if starts(c.mnemonic(), "v_dot2_") {
        opsel & 0b1100
    } else {
        opsel
    }
}

/// Appends ` byte_sel:N` of the fp8/bf8 conversions that keep it in op_sel.
fn byte_sel(c: &Ctx<'_, Op>, out: &mut String) {
    let opsel = c.f(fields::ENC_VOP3::OPSEL);
    let t = traits(c);
    let sel = if t & tr::BYTE_SEL_CVT != 0 {
        (opsel >> 1 & 1) | (opsel & 1) << 1
    } else if t & tr::BYTE_SEL_SR != 0 {
        opsel >> 2 & 3
    } else {
        0
    };
    if sel != 0 {
        out.push_str(" byte_sel:");
        crate::amd::operands::put(out, sel);
    }
}

/// The ` op_sel:[...]` of a VOP3 instruction with `nsrc` sources from its OPSEL field: a bit per
/// source, then the destination's (field bit 3); nothing when the field is 0.
pub(super) fn push_op_sel(out: &mut String, opsel: u32, nsrc: usize) {
    if opsel != 0 {
        out.push_str(" op_sel:");
        let bits = (opsel as u64 & ((1 << nsrc) - 1)) | ((opsel as u64 >> 3 & 1) << nsrc);
        bit_list(out, bits, nsrc + 1);
    }
}

fn vop3(c: &Ctx<'_, Op>, out: &mut String, dpp: Dpp) {
    use fields::ENC_VOP3 as F;
    use fields::ENC_VOP3_DPP16 as D;
    let sd = matches!(c.d.enc, enc::ENC_VOP3SD | enc::ENC_VOP3SD_DPP16 | enc::ENC_VOP3SD_DPP8);
    let neg = c.f(F::NEG);
    let abs = if sd { 0 } else { c.f(F::ABS) };
    let mut k = 0;
    let mut float = false;
    let mut nsrc = 0;
    let mut has16 = false;
    for op in c.ie.operands {
        if op.is_implicit() {
            continue;
        }
        has16 |= is16(c, op);
        sep(out, &mut k);
        match src_index(op) {
            Some(i) => {
                nsrc += 1;
                let kind = if i == 2 && traits(c) & tr::ALIGN != 0 { Kind::I16 } else { c.kind(op) };
                float |= kind.is_float();
                let (n, a) = if float_mods(c, kind, i) { (neg >> i & 1 != 0, abs >> i & 1 != 0) } else { (false, false) };
                let v = if i == 0 && dpp != Dpp::None { 256 + c.f(D::VSRC0) } else { c.val(op) };
                if i == 1 && dpp != Dpp::None && matches!(v, 128..=208 | 240..=255) && c.mnemonic().starts_with("v_fmac_") {
                    // LLVM reads v_fmac's DPP second source as a register operand: a constant
                    // (255 too, no literal dword follows) prints as its code.
                    out.push_str(if n { "-" } else { "" });
                    out.push_str(if a { "|" } else { "" });
                    operands::put_hex(out, v);
                    out.push_str(if a { "|" } else { "" });
                    continue;
                }
                if v == 255 && i < 2 && dpp != Dpp::None && c.mnemonic().starts_with("v_dot2_") {
                    dot2_dpp_literal(c, out, kind, n, a);
                } else {
                    src_mod(c, out, v, op.size, kind, n, a);
                }
                operands::source_note(out, c.mnemonic(), op, v);
            }
            None => {
                float |= op.field.is_some_and(|f| f.name == "VDST") && c.kind(op).is_float();
                plain(c, op, out)
            }
        }
    }
    if traits(c) & tr::PERMLANE16 != 0 {
        // op_sel carries fetch-inactive and bound-control here.
        let opsel = c.f(F::OPSEL) & 3;
        if opsel != 0 {
            out.push_str(" op_sel:");
            bit_list(out, opsel as u64, 2);
        }
    } else if !sd && has_opsel(c, has16) {
        push_op_sel(out, vop3_opsel(c), nsrc);
    }
    byte_sel(c, out);
    if c.f(F::CLAMP) != 0 {
        out.push_str(" clamp");
    }
    if float {
        omod(out, c.f(F::OMOD));
    }
    match dpp {
        Dpp::Dpp16 => dpp16_ctrl(c, out, Dpp16Fields::E64),
        Dpp::Dpp8 => dpp8_ctrl(c, out, true),
        Dpp::None => {}
    }
}

fn vop3p(c: &Ctx<'_, Op>, out: &mut String, dpp: Dpp) {
    use fields::ENC_VOP3P as F;
    use fields::ENC_VOP3P_DPP16 as D;
    let m = c.mnemonic();
    let mix = m.starts_with("v_fma_mix");
    let neg_lo = c.f(F::NEG) as u64;
    let neg_hi = c.f(F::NEG_HI) as u64;
    let mut k = 0;
    let mut nsrc = 0;
    for op in c.ie.operands {
        if op.is_implicit() {
            continue;
        }
        sep(out, &mut k);
        match src_index(op) {
            Some(i) => {
                nsrc += 1;
                let v = if i == 0 && dpp != Dpp::None { 256 + c.f(D::VSRC0) } else { c.val(op) };
                let kind = match c.kind(op) {
                    _ if mix => Kind::F16,
                    Kind::F16 => Kind::PkF16,
                    Kind::I16 => Kind::PkI16,
                    k => k,
                };
                if mix && i == 1 && dpp != Dpp::None && v < 256 {
                    mix_dpp_src1(c, out, v, op.size, kind, neg_lo >> i & 1 != 0, neg_hi >> i & 1 != 0);
                } else if mix {
                    src_mod(c, out, v, op.size, kind, neg_lo >> i & 1 != 0, neg_hi >> i & 1 != 0);
                } else {
                    ops::src(c, out, v, op.size, kind);
                }
                if m.starts_with("v_wmma_") || m.starts_with("v_swmmac_") {
                    matrix_note(out, m, i, v, op.size);
                }
            }
            None => plain(c, op, out),
        }
    }
    let all = (1u64 << nsrc) - 1;
    let opsel = c.f(F::OPSEL) as u64 & all;
    let opsel_hi = (c.f(F::OPSEL_HI) as u64 | (c.f(F::OPSEL_HI2) as u64) << 2) & all;
    let sel = mix || m.starts_with("v_pk_") || m.starts_with("v_dot2");
    if sel && opsel != 0 {
        out.push_str(" op_sel:");
        bit_list(out, opsel, nsrc);
    }
    if sel && ((mix && opsel_hi != 0) || (!mix && opsel_hi != all)) {
        out.push_str(" op_sel_hi:");
        bit_list(out, opsel_hi, nsrc);
    }
    if !mix {
        if neg_lo & all != 0 {
            out.push_str(" neg_lo:");
            bit_list(out, neg_lo & all, nsrc);
        }
        if neg_hi & all != 0 {
            out.push_str(" neg_hi:");
            bit_list(out, neg_hi & all, nsrc);
        }
    }
    if c.f(F::CLAMP) != 0 {
        out.push_str(" clamp");
    }
    match dpp {
        Dpp::Dpp16 => dpp16_ctrl(c, out, Dpp16Fields::E64),
        Dpp::Dpp8 => dpp8_ctrl(c, out, true),
        Dpp::None => {}
    }
}

/// The literal of a `v_dot2_*` DPP packed source (the first two): the whole dword, `lit(...)` when its low half is an
/// inline constant ([`ops::dot2_dpp_literal_is_lit`]), with the float modifiers.
fn dot2_dpp_literal(c: &Ctx<'_, Op>, out: &mut String, kind: Kind, neg: bool, abs: bool) {
    let is_lit = ops::dot2_dpp_literal_is_lit(c.lit, kind);
    let call = neg && !is_lit && !abs;
    out.push_str(if call { "neg(" } else if neg { "-" } else { "" });
    if abs {
        out.push('|');
    }
    if is_lit {
        out.push_str("lit(");
        operands::put_hex(out, c.lit);
        out.push(')');
    } else {
        operands::put_hex(out, c.lit);
    }
    if abs {
        out.push('|');
    }
    if call {
        out.push(')');
    }
}

/// The second source of a `v_fma_mix*` DPP form, which takes VGPRs only: a constant, literal
/// or scalar register prints with LLVM's note inside its modifiers (`neg(35/*Invalid
/// immediate*/)`).
fn mix_dpp_src1(c: &Ctx<'_, Op>, out: &mut String, v: u32, size: u16, kind: Kind, neg: bool, abs: bool) {
    let imm = (v == 255 && !ops::literal_form(c.lit, kind).0) || operands::is_inline_constant(v);
    let call = neg && imm && !abs;
    out.push_str(if call { "neg(" } else if neg { "-" } else { "" });
    if abs {
        out.push('|');
    }
    ops::src(c, out, v, size, kind);
    if v != 124 {
        // (null takes no note)
        operands::class_note(out, operands::CLASS_VGPR, v);
    }
    if abs {
        out.push('|');
    }
    if call {
        out.push(')');
    }
}

/// LLVM's note after a source of `v_wmma_*` / `v_swmmac_*` that takes VGPRs only (the matrices
/// A and B; `v_swmmac`'s index too): a constant or literal, or a scalar register (named by its
/// VGPR tuple class). `v_wmma`'s accumulator takes constants but no scalar registers.
fn matrix_note(out: &mut String, m: &str, i: usize, v: u32, size: u16) {
    let constants_ok = i == 2 && m.starts_with("v_wmma_");
    if operands::is_inline_constant(v) || v == 255 {
        if !constants_ok {
            out.push_str(operands::INVALID_IMMEDIATE);
        }
    } else if v < 256 {
        match size {
            32 => operands::invalid_register(out, "VGPR_32"),
            64 => operands::invalid_register(out, "VReg_64"),
            128 => operands::invalid_register(out, "VReg_128"),
            256 => operands::invalid_register(out, "VReg_256"),
            _ => {}
        }
    }
}

/// Operands of a VOP1/VOP2/VOPC DPP form: sources are VGPRs with optional float modifiers.
fn dpp_operands(c: &Ctx<'_, Op>, out: &mut String, neg: [u32; 2], abs: [u32; 2]) {
    let mut k = 0;
    // v_cndmask_b32's second source with abs: LLVM closes the bars after the mask operand
    // (`|v127, vcc_lo|`).
    let mut close = false;
    for op in c.ie.operands {
        sep(out, &mut k);
        match src_index(op) {
            Some(i) if op.ty == opr::OPR_VGPR || op.ty == opr::OPR_SRC => {
                let kind = c.kind(op);
                let (n, a) = if float_mods(c, kind, i) { (neg[i] != 0, abs[i] != 0) } else { (false, false) };
                if a && i == 1 && traits(c) & tr::CNDMASK != 0 {
                    out.push_str(if n { "-|" } else { "|" });
                    operands::vgpr_mods_lo128(out, c.val(op) & 0xff, op.size, false, false, kind.is_16bit());
                    close = true;
                    continue;
                }
                operands::vgpr_mods_lo128(out, c.val(op) & 0xff, op.size, n, a, kind.is_16bit());
            }
            _ => {
                plain(c, op, out);
                lo128_note(c, op, out);
                if close {
                    out.push('|');
                    close = false;
                }
            }
        }
    }
    if close {
        out.push('|');
    }
}

/// LLVM's note after a 16-bit VGPR operand of a 32-bit form (VOP1/VOP2/VOPC and their DPP)
/// past v127: those operands take only v0-v127 (`VGPR_32_Lo128`; `VS_32_Lo128` for a source
/// that may also be scalar).
fn lo128_note(c: &Ctx<'_, Op>, op: &Operand, out: &mut String) {
    // (the fp8 / bf8 pair conversions' source is a 16-bit one too)
    let fp8_src = traits(c) & tr::FP8_SRC != 0 && op.ty == opr::OPR_SRC;
    if !c.kind(op).is_16bit() && !fp8_src {
        return;
    }
    let v = c.val(op);
    match op.ty {
        opr::OPR_VGPR if v >= 128 => operands::invalid_register(out, "VGPR_32_Lo128"),
        opr::OPR_SRC if v >= 384 => operands::invalid_register(out, "VS_32_Lo128"),
        _ => {}
    }
}

#[derive(Clone, Copy)]
enum Dpp16Fields {
    E32,
    E64,
}

fn dpp16_ctrl(c: &Ctx<'_, Op>, out: &mut String, which: Dpp16Fields) {
    let (ctrl, row, bank, bc, fi) = match which {
        Dpp16Fields::E32 => {
            use fields::ENC_VOP1_DPP16 as F;
            (c.f(F::DPP_CTRL), c.f(F::ROW_MASK), c.f(F::BANK_MASK), c.f(F::BOUND_CTRL), c.f(F::FI))
        }
        Dpp16Fields::E64 => {
            use fields::ENC_VOP3_DPP16 as F;
            (c.f(F::DPP_CTRL), c.f(F::ROW_MASK), c.f(F::BANK_MASK), c.f(F::BOUND_CTRL), c.f(F::FI))
        }
    };
    // LLVM 22 reads the DPP control of these two as it reads a mandatory literal: a value
    // that is an inline constant's code prints as that constant (0x85 as quad_perm of 0x05,
    // 0xc4 (-4) as invalid; llvm-mc-22 shows it for both and for no other DPP instruction).
    let m = c.mnemonic();
    let ctrl = if matches!(which, Dpp16Fields::E64) && (m.starts_with("v_cvt_pk_fp8_f32") || m.starts_with("v_cvt_pk_bf8_f32")) && (128..255).contains(&ctrl) {
        crate::amd::operands::kimm_value(ctrl)
    } else {
        ctrl
    };
    crate::amd::symbols::dpp_ctrl(out, ctrl);
    hex_mod(out, "row_mask", row);
    hex_mod(out, "bank_mask", bank);
    if bc != 0 {
        out.push_str(" bound_ctrl:1");
    }
    if fi != 0 {
        out.push_str(" fi:1");
    }
}

fn dpp8_ctrl(c: &Ctx<'_, Op>, out: &mut String, e64: bool) {
    let (sels, fi) = if e64 {
        use fields::ENC_VOP3_DPP8 as F;
        (
            [F::LANE_SEL0, F::LANE_SEL1, F::LANE_SEL2, F::LANE_SEL3, F::LANE_SEL4, F::LANE_SEL5, F::LANE_SEL6, F::LANE_SEL7],
            c.f(F::SRC0) == 0xea,
        )
    } else {
        use fields::ENC_VOP1_DPP8 as F;
        (
            [F::LANE_SEL0, F::LANE_SEL1, F::LANE_SEL2, F::LANE_SEL3, F::LANE_SEL4, F::LANE_SEL5, F::LANE_SEL6, F::LANE_SEL7],
            c.f(F::SRC0) == 0xea,
        )
    };
    out.push_str(" dpp8:[");
    for (i, s) in sels.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        crate::amd::operands::put(out, c.f(*s));
    }
    out.push(']');
    if fi {
        out.push_str(" fi:1");
    }
}

/// Prints a VOPD dual-issue pair: `v_dual_x ... :: v_dual_y ...`.
pub fn print_vopd(c: &Ctx<'_, Op>, out: &mut String) {
    use fields::ENC_VOPD as F;
    let m = c.mnemonic();
    let (mx, my) = m.split_once("::").unwrap_or((m, ""));
    let vdstx = c.f(F::VDSTX);
    let vdsty = (c.f(F::VDSTY) << 1) | ((vdstx & 1) ^ 1);
    half(c, out, mx, vdstx, c.f(F::SRC0X), c.f(F::VSRC1X));
    out.push_str(" :: ");
    half(c, out, my, vdsty, c.f(F::SRC0Y), c.f(F::VSRC1Y));
}

fn half(c: &Ctx<'_, Op>, out: &mut String, m: &str, vdst: u32, src0: u32, vsrc1: u32) {
    out.push_str(m);
    let kind = if has(m, "_f32") && !has(m, "bf16") && !has(m, "f16") { Kind::F32 } else { Kind::I32 };
    out.push_str(" v");
    crate::amd::operands::put(out, vdst);
    out.push_str(", ");
    ops::src(c, out, src0, 32, kind);
    let lit = |out: &mut String| {
        crate::amd::operands::kimm(out, c.lit);
    };
    match m {
        "v_dual_mov_b32" => {}
        "v_dual_fmaak_f32" => {
            out.push_str(", v");
            crate::amd::operands::put(out, vsrc1);
            out.push_str(", ");
            lit(out);
        }
        "v_dual_fmamk_f32" => {
            out.push_str(", ");
            lit(out);
            out.push_str(", v");
            crate::amd::operands::put(out, vsrc1);
        }
        _ => {
            out.push_str(", v");
            crate::amd::operands::put(out, vsrc1);
        }
    }
}

#[cfg(test)]
mod tests {
    /// `has_opsel` binary-searches the list.
    #[test]
    fn opsel_list_is_sorted() {
        assert!(super::OPSEL_VOP3.windows(2).all(|w| w[0] < w[1]));
    }
}
