//! VDS (LDS operations) and VDSDIR (LDS direct and parameter loads).

use crate::amd::operands::has;
use super::ops::sep;
use super::{fields::ENC_VDS as F, fields::ENC_VDSDIR as D, Op};
use crate::amd::operands;
use crate::amd::print::Ctx;

/// Prints an LDS instruction.
pub fn print(c: &Ctx<'_, Op>, out: &mut String) {
    let m = c.mnemonic();
    out.push_str(m);
    let mut k = 0;
    for op in c.ie.operands {
        sep(out, &mut k);
        operands::vgpr(out, c.val(op), op.size);
    }
    let o0 = c.f(F::OFFSET0);
    let o1 = c.f(F::OFFSET1);
    if has(m, "2addr") || has(m, "xchg2") {
        if o0 != 0 {
            out.push_str(" offset0:");
            crate::amd::operands::put(out, o0);
        }
        if o1 != 0 {
            out.push_str(" offset1:");
            crate::amd::operands::put(out, o1);
        }
    } else {
        let off = o0 | o1 << 8;
        if m == "ds_swizzle_b32" && off != 0 {
            out.push_str(" offset:");
            crate::amd::symbols::ds_swizzle(out, off);
        } else if off != 0 {
            out.push_str(" offset:");
            crate::amd::operands::put(out, off);
        }
    }
}

/// Prints `ds_direct_load` / `ds_param_load` with their wait fields.
pub fn print_dir(c: &Ctx<'_, Op>, out: &mut String) {
    out.push_str(c.mnemonic());
    let mut k = 0;
    for op in c.ie.operands {
        sep(out, &mut k);
        if c.ty(op) == "OPR_ATTR" {
            let chan = ["x", "y", "z", "w"][c.f(D::ATTRCHAN) as usize & 3];
            out.push_str("attr");
            crate::amd::operands::put(out, c.f(D::ATTR));
            out.push('.');
            crate::amd::operands::put(out, chan);
        } else {
            operands::vgpr(out, c.val(op), op.size);
        }
    }
    out.push_str(" wait_va_vdst:");
    crate::amd::operands::put(out, c.f(D::WAIT_VA_VDST));
    out.push_str(" wait_vm_vsrc:");
    crate::amd::operands::put(out, c.f(D::WAIT_VM_VSRC));
}
