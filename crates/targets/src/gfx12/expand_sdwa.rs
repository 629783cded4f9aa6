//! SDWA forms (VOP1, VOP2 and VOPC with sub-dword selects): gfx1201 has no SDWA encoding. The
//! sequence does what the AMD lifter's sdwa.rs says the gfx1013 form does, with the op's VOP3
//! form in the middle:
//! - each source whose select is a byte or a word is extracted into a temporary first
//!   (`v_bfe_u32`, `v_bfe_i32` with `sext`); the op reads the temporary with the source's float
//!   abs / neg (which SDWA applies after the select);
//! - the op itself is the VOP3 form of the same instruction (the gfx1013 VOP3 row of the map),
//!   with the clamp and output modifier, VCC operands made explicit (`v_cndmask_b32`'s mask, a
//!   compare's VCC destination);
//! - a destination select other than DWORD, or a 16-bit result (which SDWA zero-extends to
//!   the dword, where VOP3 keeps the register's high half), takes the op's result from a
//!   temporary: `v_bfe_u32` / `v_bfe_i32` to the select's width (UNUSED_PAD / UNUSED_SEXT) and
//!   `v_lshlrev_b32` to its offset, or `v_bfi_b32` into the register's old bits
//!   (UNUSED_PRESERVE).
//!
//! Float min / max (`v_min_f16_sdwa`, ...) run the VOP3 form's min / max sequence
//! (expand_minmax.rs) on the selected sources into the temporary the destination select reads.
//!
//! `v_cmpx_*` (which writes EXEC) and other ops whose VOP3 form is itself an expansion or not a
//! plain re-encode (v_mac_f32, ...) are typed errors.

use super::expand::{emit, int_const, plain, ExpandCx, Src};
use super::map::{gfx12_opcode, gfx12_operands, row, MapKind, MapRow};
use super::{unsupported, TranslateError};
use isabridge_decoder::operand::{Modifier, OperandKind, SpecialReg, SrcMods};
use isabridge_decoder::Inst;

/// The select value that reads or writes the whole dword.
const DWORD: u8 = 6;
/// DST_UNUSED: keep the register's other bits.
const UNUSED_PRESERVE: u8 = 2;
/// DST_UNUSED: fill the bits above the select with the result's sign.
const UNUSED_SEXT: u8 = 1;

/// The expansion of an SDWA row; None for other rows.
pub(super) fn expand(inst: &Inst, r: &MapRow, cx: &ExpandCx) -> Option<Result<Vec<Inst>, TranslateError>> {
    if r.kind != MapKind::Sequence || !r.gfx10_enc.ends_with("_SDWA") {
        return None;
    }
    Some(sdwa(inst, cx))
}

/// Bit offset and width of select `sel` (BYTE_0-3, WORD_0-1); None for DWORD.
fn field(sel: u8) -> Option<(u16, u16)> {
    match sel {
        0..=3 => Some((8 * sel as u16, 8)),
        4 | 5 => Some((16 * (sel as u16 - 4), 16)),
        _ => None,
    }
}

/// The gfx1201 VOP3 (or VOP3SD) instruction that does `inst`'s op without the selects.
fn vop3_row(inst: &Inst) -> Result<&'static MapRow, TranslateError> {
    let r = row(inst.name, "ENC_VOP3")
        .or_else(|| row(inst.name, "ENC_VOP3B"))
        .ok_or_else(|| unsupported(inst, "SDWA: the op has no VOP3 row in the map"))?;
    if !matches!(r.kind, MapKind::Reencode | MapKind::Rename) {
        return Err(unsupported(inst, &format!("SDWA form of an op whose VOP3 form is not a plain re-encode: {}", r.reason)));
    }
    Ok(r)
}

fn sdwa(inst: &Inst, cx: &ExpandCx) -> Result<Vec<Inst>, TranslateError> {
    if inst.name.starts_with("V_CMPX") {
        return Err(unsupported(inst, "SDWA v_cmpx (writes EXEC): no expansion written"));
    }
    let r3 = vop3_row(inst)?;
    // An op whose VOP3 form is itself an expansion is not the plain VOP3 op: float min / max
    // (gfx1201's *_num forms treat NaNs otherwise) run their sequence on the selected sources
    // (temporaries 4 and 5) into temporary 6; others are typed errors.
    let minmax = r3.gfx12.contains("_NUM_");
    if !minmax && super::expand::expand(inst, r3, cx).is_some() {
        return Err(unsupported(inst, &format!("SDWA form of an op whose VOP3 form is expanded ({}): no SDWA expansion of it", r3.gfx12)));
    }
    let (src_slot, result_slot) = if minmax { (4, 6) } else { (0, 2) };
    let is_vcc = |k: &OperandKind| matches!(k, OperandKind::Special { reg: SpecialReg::Vcc, .. });
    // Destinations: the explicit ones, then VCC where the form writes it implicitly; sources
    // likewise (the mask of v_cndmask_b32, the carry-in of the carry ops).
    let dsts: Vec<_> = inst
        .operands
        .iter()
        .filter(|o| o.access.writes() && (!o.implicit || is_vcc(&o.kind)))
        .copied()
        .collect();
    let srcs: Vec<_> = inst
        .operands
        .iter()
        .filter(|o| o.access.reads() && !o.access.writes() && (!o.implicit || is_vcc(&o.kind)))
        .copied()
        .collect();
    let mut dsts = dsts.into_iter();
    let d = dsts.next().ok_or_else(|| unsupported(inst, "SDWA: no destination"))?;
    let more_dsts: Vec<Src> = dsts.map(|o| plain(o.kind)).collect();
    let (sel0, sel1) = inst
        .modifiers
        .iter()
        .find_map(|m| if let Modifier::SrcSel(a, b) = m { Some((*a, *b)) } else { None })
        .unwrap_or((DWORD, DWORD));
    let dst_sel = inst.modifiers.iter().find_map(|m| if let Modifier::DstSel(s) = m { Some(*s) } else { None });
    let unused = inst.modifiers.iter().find_map(|m| if let Modifier::DstUnused(u) = m { Some(*u) } else { None }).unwrap_or(0);
    let mut out = Vec::new();
    // The sources after their selects.
    let mut ops: Vec<Src> = Vec::new();
    for (i, s) in srcs.iter().enumerate() {
        let sel = [sel0, sel1].get(i).copied().unwrap_or(DWORD);
        let mods = SrcMods { not: false, ..s.mods };
        match field(sel) {
            Some((off, width)) => {
                let t = cx.vtemp(inst, src_slot + i as u16, 1)?;
                let bfe = if s.mods.not { "V_BFE_I32" } else { "V_BFE_U32" };
                out.push(emit(inst, bfe, "ENC_VOP3", &[plain(t), plain(s.kind), plain(int_const(off)), plain(int_const(width))], &[])?);
                ops.push((t, mods));
            }
            None => ops.push((s.kind, mods)),
        }
    }
    let (opcode, _) = gfx12_opcode(r3.gfx12).ok_or_else(|| unsupported(inst, "the map names a gfx1201 instruction the tables lack"))?;
    // A 16-bit result: SDWA zero-extends it to the dword (the lifter's def16).
    let half = dst_sel.is_some() && gfx12_operands(opcode, r3.gfx12_enc).and_then(|o| o.first().map(|&(_, h)| h)).unwrap_or(false);
    // What the destination select keeps of the result: (offset, width, unused).
    let place = match dst_sel.and_then(field) {
        Some((off, width)) => Some((off, width, unused)),
        None if half => Some((0, 16, 0)),
        None => None,
    };
    let mut mods: Vec<Modifier> = inst.modifiers.iter().filter(|m| matches!(m, Modifier::Clamp | Modifier::Omod(_))).copied().collect();
    let result = match place {
        Some(_) => cx.vtemp(inst, result_slot, 1)?,
        None if minmax => cx.vtemp(inst, result_slot, 1)?,
        None => d.kind,
    };
    // A float clamp is done on the op's result (expand_outmods.rs), before the destination select.
    let clamp = match result {
        OperandKind::Reg(rr) if mods.contains(&Modifier::Clamp) => super::expand_outmods::sequence(inst, cx, rr.first)?,
        _ => None,
    };
    if clamp.is_some() {
        mods.retain(|m| *m != Modifier::Clamp);
    }
    if minmax {
        if !mods.is_empty() {
            return Err(unsupported(inst, "SDWA minimum / maximum with clamp or an output modifier: not expanded"));
        }
        let [a, b] = ops[..] else { return Err(unsupported(inst, "SDWA minimum / maximum operands")) };
        out.extend(super::expand_minmax::two(inst, r3, cx, a, b, result)?);
    } else {
        let mut all = vec![plain(result)];
        all.extend(more_dsts);
        all.extend(ops);
        out.push(emit(inst, r3.gfx12, r3.gfx12_enc, &all, &mods)?);
    }
    out.extend(clamp.unwrap_or_default());
    let Some((off, width, unused)) = place else {
        if minmax {
            out.push(emit(inst, "V_MOV_B32", "ENC_VOP1", &[plain(d.kind), plain(result)], &[])?);
        }
        return Ok(out);
    };
    let (c0, cw, coff) = (plain(int_const(0)), plain(int_const(width)), plain(int_const(off)));
    if unused == UNUSED_PRESERVE {
        if off > 0 {
            out.push(emit(inst, "V_LSHLREV_B32", "ENC_VOP3", &[plain(result), coff, plain(result)], &[])?);
        }
        let mask = (((1u64 << width) - 1) as u32) << off;
        out.push(emit(inst, "V_BFI_B32", "ENC_VOP3", &[plain(d.kind), plain(OperandKind::Literal(mask)), plain(result), plain(d.kind)], &[])?);
        return Ok(out);
    }
    let bfe = if unused == UNUSED_SEXT { "V_BFE_I32" } else { "V_BFE_U32" };
    if off == 0 {
        out.push(emit(inst, bfe, "ENC_VOP3", &[plain(d.kind), plain(result), c0, cw], &[])?);
    } else {
        out.push(emit(inst, bfe, "ENC_VOP3", &[plain(result), plain(result), c0, cw], &[])?);
        out.push(emit(inst, "V_LSHLREV_B32", "ENC_VOP3", &[plain(d.kind), coff, plain(result)], &[])?);
    }
    Ok(out)
}
