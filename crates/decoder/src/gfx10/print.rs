//! gfx1013 printer in LLVM's syntax: dispatch by encoding to the family printers.

use super::{enc, Op};
use crate::amd::operands::GFX10_SCALARS;
use crate::amd::operands::Kind;
use crate::amd::print::Ctx;
use crate::amd::{Amd, Generation};
use crate::Decoded;

/// The print kind of every data format of the tables (worked out at compile time).
static KINDS: [Kind; super::DATA_FORMATS.len()] = Kind::table(super::DATA_FORMATS);

impl Generation for Op {
    fn print(p: &Amd<Self>, d: &Decoded, addr: u64, out: &mut String) {
        let c = Ctx::for_print(p.tables(), d, &GFX10_SCALARS, addr, &KINDS);
        if !super::fast::print(&c, out) {
            dispatch(&c, out)
        }
    }

    fn print_noted(p: &Amd<Self>, d: &Decoded, addr: u64, out: &mut String, note: &mut String) {
        let c = Ctx::for_print(p.tables(), d, &GFX10_SCALARS, addr, &KINDS);
        if !super::fast::print(&c, out) {
            dispatch(&c, out)
        }
        c.notes().write(note)
    }

    fn canonicalize(p: &Amd<Self>, d: &mut Decoded) {
        super::canon::canonicalize(p, d)
    }

    fn nsa_dwords(p: &Amd<Self>, words: &[u32], ienc: u16) -> usize {
        super::mimg::nsa_dwords(p, words, ienc)
    }
}

/// Prints `d` through the family printers only, without the print plans of `fast.rs`:
/// the reference the plans are checked against (tests, fuzzing). Same text as the plugin's
/// `print`.
pub fn print_reference(d: &Decoded, addr: u64, out: &mut String) {
    let c = Ctx::for_print(&super::TABLES, d, &GFX10_SCALARS, addr, &KINDS);
    dispatch(&c, out)
}

/// Prints through the family printer of the instruction's encoding.
pub fn dispatch(c: &Ctx<'_, Op>, out: &mut String) {
        let d = c.d;
        match d.enc {
            enc::ENC_SOP1 | enc::ENC_SOP2 | enc::ENC_SOPK | enc::ENC_SOPC | enc::ENC_SOPP => {
                super::sop::print(c, out)
            }
            enc::ENC_SMEM => super::smem::print(c, out),
            enc::ENC_DS => super::ds::print(c, out),
            enc::ENC_MUBUF | enc::ENC_MTBUF => super::mubuf::print(c, out),
            enc::ENC_MIMG => super::mimg::print(c, out),
            enc::ENC_FLAT | enc::ENC_FLAT_GLBL | enc::ENC_FLAT_SCRATCH => super::flat::print(c, out),
            enc::ENC_EXP => super::exp::print_exp(c, out),
            enc::ENC_VINTRP => super::exp::print_vintrp(c, out),
            _ => super::vop::print(c, out),
        }
}
