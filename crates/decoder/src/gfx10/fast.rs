//! Print plans of the common vector forms (VOP1/VOP2/VOPC in 32 bits, VOP3/VOP3B), worked out
//! at compile time from the tables: per (instruction, encoding) the mnemonic's suffix, each
//! printed operand's bit range, role and print kind (the modifier kind [`super::vop`] gives
//! sources), and whether op_sel and omod can show. Printing one reads the fields straight from
//! the first two words and writes the text without looking anything up by name.
//!
//! What the plans leave out (no operands, interpolation, permlane, DPP/SDWA/VOP3P, operands
//! outside the first 64 bits or in several pieces) goes through [`super::vop::print`], which is
//! also the reference the plans are tested against (`crates/decoder/tests/amd_print_plans.rs`).

use super::{enc, fields, opr, Op, INSTRUCTIONS, INST_ENCODINGS, DATA_FORMATS};
use crate::amd::operands::{self, bit_list, omod, Kind};
use crate::amd::print::Ctx;
use crate::amd::plan::*;

/// The print kind of an operand ([`Ctx::kind`]).
const fn kind(op: &crate::spec::Operand) -> Kind {
    Kind::of(DATA_FORMATS[op.fmt as usize], op.size)
}

/// The role and kind of an operand printed by `plain` in [`super::vop`] (flag 4: implicit).
const fn plain_role(op: &crate::spec::Operand) -> (u8, Kind) {
    match op.ty {
        opr::OPR_VGPR => (R_VGPR, Kind::I32),
        opr::OPR_SDST | opr::OPR_SREG if (op.flags & 4 != 0) => (R_VCC, Kind::I32),
        opr::OPR_SDST | opr::OPR_SREG => (R_SDST, Kind::I32),
        opr::OPR_SIMM32 => (R_SIMM32, Kind::I32),
        _ => (R_SRC, kind(op)),
    }
}

/// True when the instruction has an encoding of index `e`.
const fn has_enc(inst: u16, e: u16) -> bool {
    INSTRUCTIONS[inst as usize].enc_set >> e & 1 != 0
}

/// The LLVM register class of a source operand that takes one register file only.
const fn source_class_of(ie: &crate::spec::InstEncoding<Op>, op: &crate::spec::Operand) -> u8 {
    match src_index(op) {
        Some(s) => crate::amd::operands::source_class(INSTRUCTIONS[ie.inst as usize].mnemonic, s),
        None => 0,
    }
}

/// The plan of one (instruction, encoding) pair.
const fn plan(ie: usize) -> Plan {
    let ie = &INST_ENCODINGS[ie];
    let ops = ie.operands;
    let short = has_enc(ie.inst, enc::ENC_VOP1) || has_enc(ie.inst, enc::ENC_VOP2) || has_enc(ie.inst, enc::ENC_VOPC);
    let form = match ie.enc {
        _ if ops.is_empty() => return NO_PLAN,
        enc::ENC_VOP1 | enc::ENC_VOP2 | enc::ENC_VOPC => F_E32,
        enc::ENC_VOP3 => F_VOP3,
        enc::ENC_VOP3B => F_VOP3_SDST,
        _ => return NO_PLAN,
    };
    let t = super::vop::TRAITS[ie.inst as usize];
    if form != F_E32 && t & (super::vop::tr::INTERP | super::vop::tr::PERMLANE) != 0 {
        return NO_PLAN;
    }
    // v_ldexp_f16's exponent literal prints as a 16-bit one (super::vop::vop3).
    if form != F_E32 && crate::amd::operands::eq(INSTRUCTIONS[ie.inst as usize].mnemonic, "v_ldexp_f16") {
        return NO_PLAN;
    }
    let mut p = Plan { ops: [NO_OP; MAX_OPS], n: 0, form, flags: 0 };
    let mut any_float = false;
    let mut has16 = false;
    let mut i = 0;
    while i < ops.len() {
        let op = &ops[i];
        i += 1;
        any_float |= kind(op).is_float();
        if form != F_E32 && (op.flags & 4 != 0) {
            continue;
        }
        let Some((off, cnt)) = range(op) else { return NO_PLAN };
        let (role, k) = match src_index(op) {
            Some(s) if form != F_E32 => {
                has16 |= matches!(kind(op), Kind::F16 | Kind::I16);
                (R_MSRC0 + s as u8, super::vop::mod_kind_of(t, kind(op), s))
            }
            _ => plain_role(op),
        };
        if form != F_E32 && role >= R_MSRC0 {
            any_float |= k.is_float();
        }
        if p.n as usize == MAX_OPS {
            return NO_PLAN;
        }
        p.ops[p.n as usize] = OpPlan { off, cnt, role, kind: k, mods: false, size: op.size, lo128: false, class: source_class_of(ie, op) };
        p.n += 1;
    }
    let suffix = match form {
        F_E32 => has_enc(ie.inst, enc::ENC_VOP3) || has_enc(ie.inst, enc::ENC_VOP3B),
        _ => short,
    };
    // gfx10 VOP3 op_sel ([`super::vop`]'s has_op_sel): the aligns; not v_sad_u16; only
    // VOP3-only instructions with a 16-bit source.
    let opsel = form == F_VOP3
        && (t & super::vop::tr::ALIGN != 0 || (t & super::vop::tr::SAD_U16 == 0 && !short && has16));
    p.flags = (suffix as u8 * SUFFIX) | (opsel as u8 * OPSEL) | ((form != F_E32 && any_float) as u8 * OMOD);
    p
}

/// The plan of every (instruction, encoding) pair, worked out at compile time.
static PLANS: [Plan; INST_ENCODINGS.len()] = {
    let mut t = [NO_PLAN; INST_ENCODINGS.len()];
    let mut i = 0;
    while i < t.len() {
        t[i] = plan(i);
        i += 1;
    }
    t
};

/// True when the instruction has a plan ([`print`] prints it).
#[cfg(test)]
#[inline]
pub fn has_plan(ienc: u16) -> bool {
    PLANS.get(ienc as usize).is_some_and(|p| p.form != F_NONE)
}

/// Prints the instruction from its plan; false (nothing written) when it has none.
#[inline(never)]
pub fn print(c: &Ctx<'_, Op>, out: &mut String) -> bool {
    let Some(p) = PLANS.get(c.d.ienc as usize) else { return false };
    if p.form == F_NONE {
        return false;
    }
    out.push_str(c.mnemonic());
    if p.flags & SUFFIX != 0 {
        operands::put_packed(out, if p.form == F_E32 { PACKED_E32 } else { PACKED_E64 });
    }
    let w = &c.d.words;
    let x = w[0] as u64 | (w[1] as u64) << 32;
    let vop3b = p.form == F_VOP3_SDST;
    let mut nsrc = 0;
    for (k, op) in p.ops.iter().take(p.n as usize).enumerate() {
        operands::sep(out, k);
        let v = (x >> op.off) as u32 & ((1u32 << op.cnt) - 1);
        match op.role {
            R_VGPR => operands::vgpr(out, v, op.size),
            R_VCC => out.push_str("vcc_lo"),
            R_SDST => {
                c.src(out, v, op.size, Kind::I32);
                if v >= 128 {
                    operands::sdst_note(out, v);
                }
            }
            R_SIMM32 => operands::kimm(out, c.lit),
            R_SRC => {
                c.src(out, v, op.size, op.kind);
                if op.class != 0 {
                    operands::class_note(out, op.class, v);
                }
            }
            r => {
                nsrc += 1;
                let i = (r - R_MSRC0) as u32;
                let (n, a) = if op.kind.is_float() {
                    (x >> (61 + i) & 1 != 0, !vop3b && x >> (8 + i) & 1 != 0)
                } else {
                    (false, false)
                };
                c.src_mods(out, v, op.size, op.kind, n, a);
                if op.class != 0 {
                    operands::class_note(out, op.class, v);
                }
            }
        }
    }
    if p.form == F_E32 {
        return true;
    }
    if p.flags & OPSEL != 0 {
        let opsel = c.f(fields::ENC_VOP3::OPSEL);
        if opsel != 0 {
            out.push_str(" op_sel:");
            // One bit per source, then the destination bit.
            let bits = (opsel as u64 & ((1 << nsrc) - 1)) | ((opsel as u64 >> 3 & 1) << nsrc);
            bit_list(out, bits, nsrc + 1);
        }
    }
    let clamp = if vop3b { c.f(fields::ENC_VOP3B::CLAMP) } else { c.f(fields::ENC_VOP3::CLAMP) };
    if clamp != 0 {
        out.push_str(" clamp");
    }
    if p.flags & OMOD != 0 {
        omod(out, (x >> 59) as u32 & 3);
    }
    true
}

/// `_e32`, packed for [`operands::put_packed`].
const PACKED_E32: u64 = 4 << 56 | u32::from_le_bytes(*b"_e32") as u64;
/// `_e64`, packed for [`operands::put_packed`].
const PACKED_E64: u64 = 4 << 56 | u32::from_le_bytes(*b"_e64") as u64;

#[cfg(test)]
mod tests {
    use super::super::{enc, INST_ENCODINGS};

    /// Every VOP1/VOP2/VOPC form with operands, and every VOP3/VOP3B form but interpolation,
    /// permlane and v_ldexp_f16 (whose exponent literal prints as a 16-bit one), has a plan.
    #[test]
    fn the_common_vector_forms_have_plans() {
        for (i, ie) in INST_ENCODINGS.iter().enumerate() {
            let t = super::super::vop::TRAITS[ie.inst as usize];
            let want = !ie.operands.is_empty()
                && match ie.enc {
                    enc::ENC_VOP1 | enc::ENC_VOP2 | enc::ENC_VOPC => true,
                    enc::ENC_VOP3 | enc::ENC_VOP3B => {
                        t & (super::super::vop::tr::INTERP | super::super::vop::tr::PERMLANE) == 0
                            && !crate::amd::operands::eq(super::super::INSTRUCTIONS[ie.inst as usize].mnemonic, "v_ldexp_f16")
                    }
                    _ => false,
                };
            assert_eq!(super::has_plan(i as u16), want, "{i}");
        }
    }
}
