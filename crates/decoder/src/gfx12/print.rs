//! gfx1201 printer in LLVM's syntax: dispatch by encoding to the family printers.

use super::{enc, Op};
use crate::amd::operands::GFX12_SCALARS;
use crate::amd::operands::Kind;
use crate::amd::print::Ctx;
use crate::amd::{Amd, Generation};
use crate::Decoded;

/// The print kind of every data format of the tables (worked out at compile time).
static KINDS: [Kind; super::DATA_FORMATS.len()] = Kind::table(super::DATA_FORMATS);

impl Generation for Op {
    fn print(p: &Amd<Self>, d: &Decoded, addr: u64, out: &mut String) {
        let c = Ctx::for_print(p.tables(), d, &GFX12_SCALARS, addr, &KINDS);
        if !super::fast::print(&c, out) {
            dispatch(&c, out)
        }
    }

    fn print_noted(p: &Amd<Self>, d: &Decoded, addr: u64, out: &mut String, note: &mut String) {
        let c = Ctx::for_print(p.tables(), d, &GFX12_SCALARS, addr, &KINDS);
        if !super::fast::print(&c, out) {
            dispatch(&c, out)
        }
        c.notes().write(note)
    }

    fn canonicalize(p: &Amd<Self>, d: &mut Decoded) {
        super::canon::canonicalize(p, d)
    }

    fn nsa_dwords(_p: &Amd<Self>, _words: &[u32], _ienc: u16) -> usize {
        // gfx12 image addresses sit in fixed fields of VIMAGE/VSAMPLE: no NSA dwords.
        0
    }
}

/// Prints `d` through the family printers only, without the print plans of `fast.rs`:
/// the reference the plans are checked against (tests, fuzzing). Same text as the plugin's
/// `print`.
pub fn print_reference(d: &Decoded, addr: u64, out: &mut String) {
    let c = Ctx::for_print(&super::TABLES, d, &GFX12_SCALARS, addr, &KINDS);
    dispatch(&c, out)
}

/// Prints through the family printer of the instruction's encoding.
fn dispatch(c: &Ctx<'_, Op>, out: &mut String) {
    let d = c.d;
    match d.enc {
        enc::ENC_SOP1 | enc::ENC_SOP2 | enc::ENC_SOPK | enc::ENC_SOPC | enc::ENC_SOPP => {
            super::sop::print(c, out)
        }
        enc::ENC_SMEM => super::smem::print(c, out),
        enc::ENC_VDS => super::vds::print(c, out),
        enc::ENC_VDSDIR => super::vds::print_dir(c, out),
        enc::ENC_VBUFFER => super::vbuffer::print(c, out),
        enc::ENC_VIMAGE | enc::ENC_VSAMPLE => super::vimage::print(c, out),
        enc::ENC_VFLAT | enc::ENC_VGLOBAL | enc::ENC_VSCRATCH => super::vflat::print(c, out),
        enc::ENC_VEXPORT => super::vexport::print_export(c, out),
        enc::ENC_VINTERP => super::vexport::print_vinterp(c, out),
        enc::ENC_VOPD => super::vop::print_vopd(c, out),
        _ => super::vop::print(c, out),
    }
}
