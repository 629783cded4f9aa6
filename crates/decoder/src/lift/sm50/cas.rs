//! Maxwell compare-and-swap (`ATOM.E.CAS[.64]`, `ATOMS.CAS[.64]`): the encoding has one data
//! register field (bits 20-27, the model's `CAS_RB`); the compare value is the register (pair
//! with `.64`) it names and the new value the register (pair) after it: Rb, Rb+1 for 32 bits,
//! Rb:Rb+1 and Rb+2:Rb+3 for 64. `CAS_SECOND_RZ` makes the new value RZ, `CAS_RZ_FIRST` the
//! compare value RZ and the new one Rb; the width is `CAS_64` (nvdisasm's `.64`, which the
//! form's suffixes do not always carry). ptxas 12.9 puts PTX `atom.cas.b32 d, [a], b, c` in
//! `ATOM.E.CAS d, [a], Rb, Rb+1` with b in Rb and c in Rb+1, and `atom.cas.b64` / the shared
//! forms the same way with pairs (kernels k_cas32, k_cas64, k_cass32, k_cass64 of
//! fixtures/nvidia/lift/cc.sm50.ptx, checked by sm50_cc.rs); the RZ forms follow nvdisasm's
//! spelling (`ATOMS.CAS R3, [R0], RZ, R3`), no kernel here runs them.

use crate::lift::sm86::{At, Cx};
use crate::lift::LiftError;
use crate::operand::{Access, Inst, Operand, OperandKind, Part, RegClass, RegRange, SpecialReg, SrcMods};

/// The data operands of a compare-and-swap, rewritten into `inst` (the compare value, then the
/// new value, after the address), and whether it is 64-bit.
pub(crate) fn data_operands(cx: &Cx, at: &At, inst: &mut Inst) -> Result<bool, LiftError> {
    let g = |n: &str| at.inst.named(n).unwrap_or(0);
    let wide = g("CAS_64") == 1;
    let rb = g("CAS_RB") as u16;
    let n = if wide { 2 } else { 1 };
    let reg = |first: u16| {
        let kind = if first >= 255 {
            OperandKind::Special { reg: SpecialReg::Rz, part: Part::Whole }
        } else {
            OperandKind::Reg(RegRange { class: RegClass::R, first, count: n })
        };
        Operand { access: Access::Read, kind, size: 32 * n, implicit: false, field: "RB", mods: SrcMods::default() }
    };
    let rz = 255;
    let (cmp, new) = match (g("CAS_RZ_FIRST"), g("CAS_SECOND_RZ")) {
        (1, _) if !wide => (rz, rb),
        (1, _) => return Err(cx.unsupported(at, "64-bit compare-and-swap with RZ first")),
        (_, 1) => (rb, rz),
        _ => (rb, rb.saturating_add(n).min(rz)),
    };
    let mpos = inst.operands.iter().position(|o| matches!(o.kind, OperandKind::Mem { .. })).ok_or_else(|| cx.unsupported(at, "operand shape"))?;
    inst.operands.truncate(mpos + 1);
    inst.operands.push(reg(cmp));
    inst.operands.push(reg(new));
    for o in inst.operands[..mpos].iter_mut() {
        if let OperandKind::Reg(r) = &mut o.kind {
            if o.access.writes() && r.class == RegClass::R && r.first < 255 {
                r.count = n;
                o.size = 32 * n;
            }
        }
    }
    Ok(wide)
}
