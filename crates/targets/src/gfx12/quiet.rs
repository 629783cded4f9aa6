//! NaN quieting after float arithmetic of gfx1013 code that runs with MODE.IEEE set.
//!
//! With IEEE set, gfx1013's float arithmetic returns a signalling NaN operand quieted (the
//! AMD lifter's vfloat.rs `mode`: f32 NaNs quieted with IEEE on, returned unchanged with it
//! off; `pass_mode`: also the f16 rounding, fract, ldexp and frexp_mant ops; vtrans.rs: the
//! f16 and f32 transcendentals; vdiv.rs: the division helpers; vop3p.rs: the packed f16
//! add, mul and fma). gfx1201 has no IEEE bit: its kernel descriptor clears the bit
//! (descriptor.rs), and the same ops then return a signalling NaN unchanged. After each such
//! op the translation sets the quiet bit (f32 bit 22, f16 bit 9) of a NaN result with integer
//! ops, which leave every other value as it is whatever the float mode (denormals included):
//!
//! `t = d & 0x7fffffff; t = t + 0x007fffff; t = t >> 9; d = (t & 0x00400000) | d`
//!
//! `d & 0x7fffffff` is above 0x7f800000 exactly when `d` is a NaN, and then the sum has bit 31
//! set (it never carries out: at most 0x807ffffe), which the shift moves to bit 22. The f16
//! form is the same on the 16-bit half the op writes (0x7fff, 0x03ff, shift 6, 0x0200; the
//! high half's constants shifted by 16 for a VOP3 op_sel destination), and the packed form on
//! both halves at once (0x7fff7fff, 0x03ff03ff, shift 6, 0x02000200: a half's sum is at most
//! 0x83fe and never carries into the other half). Under IEEE mode the gfx1013 results of
//! these ops are never signalling NaNs, so the sequence changes nothing where gfx1201 also
//! quiets.
//!
//! Not covered (the translation of these stays as before): SDWA forms (a partial
//! destination) and DPP forms that may leave a lane's destination as it was (DPP8, DPP16
//! with a row or bank off or without bound_ctrl: the old value must not be quieted); the sign of an invalid operation's default NaN where the lifter gives +qNaN
//! with IEEE set and -qNaN without (f64 arithmetic, the f16 and f32 transcendentals, the f16
//! rounding / fract / ldexp / frexp_mant ops and the packed f16 ops: `sqrt(-1)`,
//! `inf - inf`), which a fix after the op cannot tell from a propagated -qNaN operand; f16
//! add, mul and fma need nothing (quieted in either mode).

use super::expand::{emit, plain, ExpandCx};
use super::{unsupported, TranslateError};
use isabridge_decoder::operand::{Modifier, OperandKind, RegClass};
use isabridge_decoder::Inst;

/// The NaN layout a quieting sequence works on: magnitude mask, the addend that carries a NaN
/// magnitude into the sign bit, the shift from the sign bit to the quiet bit, the quiet bit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Layout {
    mask: u32,
    add: u32,
    shift: u16,
    quiet: u32,
}

const F32: Layout = Layout { mask: 0x7fff_ffff, add: 0x007f_ffff, shift: 9, quiet: 0x0040_0000 };
const F16_LO: Layout = Layout { mask: 0x7fff, add: 0x03ff, shift: 6, quiet: 0x0200 };
const F16_HI: Layout = Layout { mask: 0x7fff_0000, add: 0x03ff_0000, shift: 6, quiet: 0x0200_0000 };
const PK_F16: Layout = Layout { mask: 0x7fff_7fff, add: 0x03ff_03ff, shift: 6, quiet: 0x0200_0200 };

/// gfx1013 float ops (name without `V_` and the type suffix) whose f32 NaN result MODE.IEEE
/// quiets.
const F32_OPS: &[&str] = &[
    "ADD", "SUB", "SUBREV", "MUL", "MUL_LEGACY", "FMA", "FMAC", "FMAAK", "FMAMK", "FMA_LEGACY", "MAD", "MAC", "MADAK",
    "MADMK", "MAD_LEGACY", "MAC_LEGACY", "FMA_MIX", "MULLIT", "TRUNC", "CEIL", "FLOOR", "RNDNE", "LDEXP", "FRACT", "FREXP_MANT", "RCP",
    "RCP_IFLAG", "RSQ", "SQRT", "LOG", "EXP", "SIN", "COS", "DIV_SCALE", "DIV_FMAS", "DIV_FIXUP",
];

/// gfx1013 f16 ops whose NaN result MODE.IEEE quiets (the others quiet in either mode).
const F16_OPS: &[&str] =
    &["TRUNC", "CEIL", "FLOOR", "RNDNE", "LDEXP", "FRACT", "FREXP_MANT", "RCP", "RSQ", "SQRT", "LOG", "EXP", "SIN", "COS", "DIV_FIXUP"];

/// gfx1013 packed f16 ops whose NaN results MODE.IEEE quiets.
const PK_OPS: &[&str] = &["V_PK_ADD_F16", "V_PK_MUL_F16", "V_PK_FMA_F16", "V_PK_FMAC_F16"];

/// The layout of gfx1013 `inst`'s result that needs quieting, None when none does.
fn layout(inst: &Inst) -> Option<Layout> {
    if !inst.encoding.starts_with("ENC_VOP") || inst.encoding.contains("SDWA") || !dpp_writes_every_lane(inst) {
        return None;
    }
    if PK_OPS.contains(&inst.name) {
        return Some(PK_F16);
    }
    let (op, ty) = inst.name.strip_prefix("V_")?.rsplit_once('_')?;
    match ty {
        "F32" if F32_OPS.contains(&op) => Some(F32),
        "F16" if F16_OPS.contains(&op) => {
            let hi = inst.encoding == "ENC_VOP3" && inst.modifiers.iter().any(|m| matches!(m, Modifier::OpSel(x) if x & 8 != 0));
            Some(if hi { F16_HI } else { F16_LO })
        }
        _ => None,
    }
}

/// Whether `inst` writes its destination in every active lane: not a DPP form that may leave a
/// lane out (DPP8, or DPP16 with a row or bank disabled or without bound_ctrl, where an invalid
/// or inactive source lane is not written), whose old value must not be quieted.
pub(super) fn dpp_writes_every_lane(inst: &Inst) -> bool {
    if !inst.encoding.contains("DPP") {
        return true;
    }
    !inst.encoding.contains("DPP8")
        && inst.modifiers.contains(&Modifier::BoundCtrl)
        && !inst.modifiers.iter().any(|m| matches!(m, Modifier::RowMask(x) | Modifier::BankMask(x) if *x != 0xf))
}

/// The gfx1201 instructions that quiet the NaN result of gfx1013 `inst` (already translated)
/// as MODE.IEEE does: none when the IEEE bit is clear or unknown, or `inst` returns no NaN
/// that IEEE mode quiets.
pub(super) fn after(inst: &Inst, cx: &ExpandCx) -> Result<Vec<Inst>, TranslateError> {
    if cx.ieee != Some(true) {
        return Ok(Vec::new());
    }
    let Some(l) = layout(inst) else { return Ok(Vec::new()) };
    let d = inst
        .explicit()
        .find(|o| o.access.writes() && matches!(o.kind, OperandKind::Reg(r) if r.class == RegClass::Vgpr))
        .ok_or_else(|| unsupported(inst, "NaN quieting: no VGPR destination"))?;
    let OperandKind::Reg(r) = d.kind else { unreachable!("a register destination") };
    if r.count != 1 {
        return Err(unsupported(inst, "NaN quieting: a destination of several registers"));
    }
    let d = plain(d.kind);
    let t = plain(cx.vtemp(inst, 0, 1)?);
    let k = |x: u32| plain(OperandKind::Literal(x));
    let shift = plain(super::expand::int_const(l.shift));
    Ok(vec![
        emit(inst, "V_AND_B32", "ENC_VOP2", &[t, k(l.mask), d], &[])?,
        emit(inst, "V_ADD_NC_U32", "ENC_VOP2", &[t, k(l.add), t], &[])?,
        emit(inst, "V_LSHRREV_B32", "ENC_VOP2", &[t, shift, t], &[])?,
        emit(inst, "V_AND_OR_B32", "ENC_VOP3", &[d, t, k(l.quiet), d], &[])?,
    ])
}
