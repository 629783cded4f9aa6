//! VEXPORT (exports) and VINTERP (parameter interpolation).

use crate::amd::operands::has;
use super::ops::{self, sep};
use super::{fields::ENC_VEXPORT as E, fields::ENC_VINTERP as V, Op};
use crate::amd::operands::{self, bit_list};
use crate::amd::print::Ctx;

/// Prints `export`.
pub fn print_export(c: &Ctx<'_, Op>, out: &mut String) {
    out.push_str(c.mnemonic());
    out.push(' ');
    crate::amd::symbols::exp_target(out, c.f(E::TARGET), true);
    let en = c.f(E::EN);
    let srcs = [c.f(E::VSRC0), c.f(E::VSRC1), c.f(E::VSRC2), c.f(E::VSRC3)];
    for (i, r) in srcs.iter().enumerate() {
        out.push_str(if i == 0 { " " } else { ", " });
        if en >> i & 1 != 0 {
            operands::vgpr(out, *r, 32);
        } else {
            out.push_str("off");
        }
    }
    if c.f(E::DONE) != 0 {
        out.push_str(" done");
    }
    if c.f(E::ROW) != 0 {
        out.push_str(" row_en");
    }
}

/// Prints `v_interp_*` (VINTERP).
pub fn print_vinterp(c: &Ctx<'_, Op>, out: &mut String) {
    out.push_str(c.mnemonic());
    let neg = c.f(V::NEG);
    let mut k = 0;
    for (i, op) in c.ie.operands.iter().enumerate() {
        sep(out, &mut k);
        if i == 0 {
            operands::vgpr(out, c.val(op), op.size);
        } else {
            // LLVM's operands are VGPR_32: anything else carries its note, an inline constant
            // inside `neg(...)`.
            let v = c.val(op);
            let n = neg >> (i - 1) & 1 != 0;
            let wrap = n && operands::is_inline_constant(v);
            out.push_str(if wrap { "neg(" } else if n { "-" } else { "" });
            ops::src(c, out, v, op.size, c.kind(op));
            operands::class_note(out, operands::CLASS_VGPR, v);
            if wrap {
                out.push(')');
            }
        }
    }
    if c.f(V::CLAMP) != 0 {
        out.push_str(" clamp");
    }
    let opsel = c.f(V::OPSEL);
    if opsel != 0 && has(c.mnemonic(), "f16") {
        out.push_str(" op_sel:");
        bit_list(out, opsel as u64, 4);
    }
    out.push_str(" wait_exp:");
    crate::amd::operands::put(out, c.f(V::WAIT_EXP));
}
