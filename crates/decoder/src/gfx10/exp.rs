//! EXP (exports) and VINTRP (parameter interpolation).

use super::{fields::ENC_EXP as E, fields::ENC_VINTRP as I, Op};
use crate::amd::operands;
use crate::amd::print::Ctx;
use crate::amd::symbols;

/// Prints `exp`.
pub fn print_exp(c: &Ctx<'_, Op>, out: &mut String) {
    out.push_str(c.mnemonic());
    out.push(' ');
    symbols::exp_target(out, c.f(E::TARGET), false);
    let en = c.f(E::EN);
    let compr = c.f(E::COMPR) != 0;
    let srcs = [c.f(E::VSRC0), c.f(E::VSRC1), c.f(E::VSRC2), c.f(E::VSRC3)];
    for i in 0..4 {
        out.push_str(if i == 0 { " " } else { ", " });
        // Compressed exports send two registers: slot i shows VSRC(i/2).
        let (on, reg) = if compr { (en >> i & 1 != 0, srcs[i / 2]) } else { (en >> i & 1 != 0, srcs[i]) };
        if on {
            operands::vgpr(out, reg, 32);
        } else {
            out.push_str("off");
        }
    }
    if c.f(E::DONE) != 0 {
        out.push_str(" done");
    }
    if compr {
        out.push_str(" compr");
    }
    if c.f(E::VM) != 0 {
        out.push_str(" vm");
    }
}

/// Prints `v_interp_*`.
pub fn print_vintrp(c: &Ctx<'_, Op>, out: &mut String) {
    out.push_str(c.mnemonic());
    if c.has_enc(super::enc::ENC_VOP3) {
        out.push_str("_e32");
    }
    for (k, op) in c.ie.operands.iter().enumerate() {
        crate::amd::operands::sep(out, k);
        match op.ty {
            super::opr::OPR_ATTR => {
                let chan = ["x", "y", "z", "w"][c.f(I::ATTRCHAN) as usize & 3];
                out.push_str("attr");
                crate::amd::operands::put(out, c.f(I::ATTR));
                out.push('.');
                crate::amd::operands::put(out, chan);
            }
            super::opr::OPR_VGPR => operands::vgpr(out, c.val(op), op.size),
            _ => {
                // v_interp_mov_f32's source selects a parameter slot.
                let p = c.val(op);
                out.push_str(match p {
                    0 => "p10",
                    1 => "p20",
                    2 => "p0",
                    _ => "",
                });
                if p > 2 {
                    out.push_str("invalid_param_");
                    crate::amd::operands::put(out, p);
                }
            }
        }
    }
}
