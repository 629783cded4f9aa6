//! gfx1201 (RDNA4) on the gfx1013 family code: scalar and vector ALU instructions lift under
//! their gfx1013 name where only the name changed (`gfx12_names.rs`, generated from the specs
//! and ACO's opcode table); gfx12's split counter waits lift as IR waits (`waits.rs`), and
//! the ALU dependency waits (`s_wait_alu`, `s_delay_alu`) to nothing. Image, export,
//! LDS-parameter and interpolation encodings lift in `gfx12_image.rs`, memory encodings in
//! `gfx12_mem.rs`, gfx12-only ALU instructions in `gfx12_alu.rs`.
//! VOPD dual-issue pairs lift as their two halves; both read their sources before either
//! writes, so a half that reads the other's destination goes first.

use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::{Access, Inst, Operand, OperandKind, Part, SpecialReg};

/// The name the family code knows a gfx1201 instruction by; None for an ALU dependency or
/// event wait (nothing to lift).
pub(super) fn family_name(cx: &Cx, at: &At) -> Result<Option<&'static str>, LiftError> {
    let enc = cx.isa.plugin().encoding_name(at.d);
    if !(enc.starts_with("ENC_SOP") || enc.starts_with("ENC_VOP")) || enc == "ENC_VOPD" {
        return Err(cx.unsupported(at, &format!("gfx1201 {enc} instructions do not lift yet")));
    }
    let name = at.inst.name;
    // ALU dependency waits and event waits order no memory operation (see waits.rs); the
    // counter waits lift as IR waits.
    if matches!(name, "S_WAIT_ALU" | "S_DELAY_ALU" | "S_WAIT_EVENT") {
        return Ok(None);
    }
    Ok(Some(super::gfx12_names::gfx10_name(name).unwrap_or(name)))
}

/// A VOPD pair: the X and Y halves as two gfx1013 VOP2/VOP1 instructions.
pub(super) fn vopd(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let mut names = at.inst.name.split("::");
    let (Some(nx), Some(ny)) = (names.next(), names.next()) else {
        return Err(cx.unsupported(at, "VOPD name"));
    };
    let half = |other: char| -> Inst {
        let mut i = at.inst.clone();
        i.operands.retain(|o| !o.field.ends_with(other) || o.field.is_empty());
        i
    };
    let (mut ix, mut iy) = (half('Y'), half('X'));
    // v_dual_cndmask_b32 selects by VCC, which the pair's fields do not name.
    for (i, n) in [(&mut ix, nx), (&mut iy, ny)] {
        if n == "V_DUAL_CNDMASK_B32" {
            let vcc = OperandKind::Special { reg: SpecialReg::Vcc, part: Part::Whole };
            i.operands.push(Operand { access: Access::Read, kind: vcc, size: 32, implicit: true, field: "", mods: Default::default() });
        }
    }
    let dst = |i: &Inst| i.operands.iter().find(|o| !o.implicit && o.access.writes()).map(|o| o.kind);
    let reads = |i: &Inst, d: Option<OperandKind>| {
        i.operands.iter().any(|o| o.access.reads() && !o.implicit && d.is_some_and(|d| o.kind == d))
    };
    let (dx, dy) = (dst(&ix), dst(&iy));
    let (y_reads_x, x_reads_y) = (reads(&iy, dx), reads(&ix, dy));
    if y_reads_x && x_reads_y {
        return Err(cx.unsupported(at, "VOPD halves that read each other's destination"));
    }
    let order = if y_reads_x { [(iy, ny), (ix, nx)] } else { [(ix, nx), (iy, ny)] };
    for (inst, name) in order {
        let base = format!("V_{}", name.strip_prefix("V_DUAL_").unwrap_or(name));
        let mapped = super::gfx12_names::gfx10_name(&base).map(str::to_string).unwrap_or(base);
        let mut half = At { inst: &inst, d: at.d };
        cx.lift_named(&mut half, &mapped)?;
    }
    Ok(())
}
