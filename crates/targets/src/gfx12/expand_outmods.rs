//! The output modifiers of gfx1013 float ops: the output modifier (taken off where gfx1013
//! ignores it, [`split`]) and the clamp bit. gfx1013's clamp turns a result into [0, 1]: a negative
//! value (-0 included) becomes +0, a value above 1.0 becomes 1.0, and a NaN becomes +0 with
//! MODE.DX10_CLAMP set and stays as it is with DX10_CLAMP clear (the AMD lifter's vfloat.rs
//! `nan_survives_clamp` / `clamp_keeping_nan`, from the RDNA2 table Dx10Clamp
//! `expected32_no_dx10`; the IR's `saturate01`). The division helpers, the cube ops and
//! `v_trig_preop_f64` clamp with the op's own saturation, which turns a NaN into +0 whatever
//! DX10_CLAMP ([`NAN_TO_ZERO`]: vdiv.rs, cube.rs, vtrans.rs). gfx1201 has no DX10_CLAMP, and
//! no source says what its clamp bit does to a NaN, so the translation does not use it: the op
//! is translated without the clamp bit (its NaN quieting included, quiet.rs) and the result is
//! clamped with integer ops and a class test, which mean the same on both ISAs whatever the
//! float mode:
//!
//! `t = max_i32(d, 0)` (a set sign bit, -0 and negative NaNs included, gives 0);
//! `t = min_u32(t, ONE)` (positive values are ordered as their bits: above 1.0, +inf and
//! positive NaNs give 1.0); `m = class(d, NaN)`; `d = m ? NAN : t`, where NAN is 0 or `d`.
//!
//! f16 works on the half the op writes, sign-extended into a temporary by `v_bfe_i32` and merged
//! back by `v_bfi_b32` (the other half kept); packed f16 on both halves in turn. f64 tests the
//! sign with a class test (negative classes give 0 in both words) and the magnitude on the high
//! word (`0x3ff00000 <= hi`: the value is 1.0 or more, and becomes 1.0).
//!
//! SDWA forms clamp the op's result before their destination select (expand_sdwa.rs). DPP
//! forms that may leave a lane's destination unwritten (DPP8, DPP16 with a row or bank off or
//! without bound_ctrl: the old value must not be clamped) and ops whose result is not one of
//! these float layouts (packed conversions, mixed-precision ops, dot products) are typed errors
//! when clamped; integer clamps (saturation) carry over unchanged.

use super::expand::{emit, int_const, plain, ExpandCx, Src};
use super::{unsupported, TranslateError};
use isabridge_decoder::operand::{Modifier, OperandKind, RegClass, RegRange};
use isabridge_decoder::Inst;

/// gfx1013 ops (name without `V_` and the type suffix) whose clamp turns a NaN into +0 in
/// either DX10_CLAMP mode.
const NAN_TO_ZERO: &[&str] = &["DIV_SCALE", "DIV_FMAS", "DIV_FIXUP", "CUBEID", "CUBESC", "CUBETC", "CUBEMA", "TRIG_PREOP"];

/// `v_cmp_class` mask of both NaN classes.
const CLASS_NAN: u16 = 3;
/// `v_cmp_class` mask of the negative classes (-inf, -normal, -denormal, -0).
const CLASS_NEGATIVE: u16 = 0x3c;

/// Where a clamped op's float result lies in its destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    F32,
    /// f16 in the low half, or the high half (a VOP3 op_sel destination).
    F16 { hi: bool },
    /// Two f16 halves.
    PkF16,
    F64,
}

/// The layout of gfx1013 `inst`'s float result; None for an integer (or no) result.
fn layout(inst: &Inst) -> Result<Option<Layout>, TranslateError> {
    let Some(base) = inst.name.strip_prefix("V_") else { return Ok(None) };
    if base.starts_with("CMP") {
        return Ok(None);
    }
    if let Some(op) = base.strip_prefix("PK_") {
        return Ok(op.ends_with("_F16").then_some(Layout::PkF16));
    }
    // The first type part names the result (V_CVT_F16_F32, V_FREXP_EXP_I32_F32, V_ADD_F32).
    let ty = base.split('_').find(|p| p.len() > 1 && matches!(p.as_bytes()[0], b'F' | b'I' | b'U' | b'B') && p[1..].parse::<u16>().is_ok());
    let float = matches!(ty, Some("F16" | "F32" | "F64"));
    if float && (base.contains("PK") || (base.contains("MIX") && base != "FMA_MIX_F32") || base.starts_with("DOT")) {
        return Err(unsupported(inst, "clamp of a packed, mixed-precision or dot-product float result: not expanded"));
    }
    Ok(match ty {
        Some("F32") => Some(Layout::F32),
        Some("F64") => Some(Layout::F64),
        Some("F16") => {
            let hi = inst.encoding == "ENC_VOP3" && inst.modifiers.iter().any(|m| matches!(m, Modifier::OpSel(x) if x & 8 != 0));
            Some(Layout::F16 { hi })
        }
        _ => None,
    })
}

/// gfx1013 `inst` without the output modifiers gfx1201 would apply otherwise, and the gfx1201
/// instructions that clamp its result afterwards as gfx1013 does (none when it has no clamp
/// bit, its clamp is an integer one, or it is an SDWA form: expand_sdwa.rs clamps the op's
/// result before the destination select, with [`sequence`]). With MODE.IEEE set gfx1013
/// ignores the output modifier (vfloat.rs `omod`), and gfx1201 (no IEEE bit) would apply it:
/// it is taken off.
pub(super) fn split(inst: &Inst, cx: &ExpandCx) -> Result<(Inst, Vec<Inst>), TranslateError> {
    let mut op = inst.clone();
    if cx.ieee == Some(true) && inst.encoding.starts_with("ENC_VOP") {
        op.modifiers.retain(|m| !matches!(m, Modifier::Omod(1..)));
    }
    if !inst.modifiers.contains(&Modifier::Clamp) || !inst.encoding.starts_with("ENC_VOP") || inst.encoding.contains("SDWA") {
        return Ok((op, Vec::new()));
    }
    // The gfx10.3 f32 dot products ignore the clamp bit (dot.rs, from the RDNA2 Float16Dot
    // vectors: `v_dot2 clamp` equals `v_dot2` on every lane): it is taken off.
    if inst.name.starts_with("V_DOT2") && inst.name.ends_with("_F32_F16") {
        op.modifiers.retain(|m| *m != Modifier::Clamp);
        return Ok((op, Vec::new()));
    }
    let Some(l) = layout(inst)? else { return Ok((op, Vec::new())) };
    if !super::quiet::dpp_writes_every_lane(inst) {
        return Err(unsupported(inst, "clamp of a float result in a DPP form that may leave a lane unwritten: not expanded"));
    }
    let d = inst
        .explicit()
        .find(|o| o.access.writes() && matches!(o.kind, OperandKind::Reg(r) if r.class == RegClass::Vgpr))
        .ok_or_else(|| unsupported(inst, "clamp: no VGPR destination"))?;
    let OperandKind::Reg(r) = d.kind else { unreachable!("a register destination") };
    if r.count != if l == Layout::F64 { 2 } else { 1 } {
        return Err(unsupported(inst, "clamp: the destination's size does not match the op's type"));
    }
    let seq = sequence(inst, cx, r.first)?.unwrap_or_default();
    op.modifiers.retain(|m| *m != Modifier::Clamp);
    Ok((op, seq))
}

/// The gfx1201 instructions that clamp gfx1013 `inst`'s float result, unclamped in the VGPRs
/// from `first` on (laid out as `inst` writes it), as `inst`'s clamp bit does; None when its
/// result is no float. They use temporaries 0 and 1 and the lane mask.
pub(super) fn sequence(inst: &Inst, cx: &ExpandCx, first: u16) -> Result<Option<Vec<Inst>>, TranslateError> {
    let Some(l) = layout(inst)? else { return Ok(None) };
    let op = inst.name.strip_prefix("V_").and_then(|n| n.rsplit_once('_')).map_or("", |(op, _)| op);
    let keep_nan = if NAN_TO_ZERO.contains(&op) {
        false
    } else {
        match cx.dx10_clamp {
            Some(dx10) => !dx10,
            None => return Err(unsupported(inst, "clamp of a float result: the gfx1013 MODE.DX10_CLAMP bit is unknown (translate_inst_in)")),
        }
    };
    let mut c = Clamp { inst, cx, keep_nan, out: Vec::new() };
    match l {
        Layout::F32 => c.f32(first)?,
        Layout::F16 { hi } => c.f16(first, if hi { 16 } else { 0 })?,
        Layout::PkF16 => {
            c.f16(first, 0)?;
            c.f16(first, 16)?;
        }
        Layout::F64 => c.f64(first)?,
    }
    Ok(Some(c.out))
}

/// A clamp sequence under construction.
struct Clamp<'a> {
    inst: &'a Inst,
    cx: &'a ExpandCx,
    /// A NaN result stays (DX10_CLAMP clear) rather than becoming +0.
    keep_nan: bool,
    out: Vec<Inst>,
}

fn vgpr(first: u16) -> OperandKind {
    OperandKind::Reg(RegRange { class: RegClass::Vgpr, first, count: 1 })
}

fn lit(x: u32) -> Src {
    plain(OperandKind::Literal(x))
}

impl Clamp<'_> {
    fn push(&mut self, name: &str, enc: &str, ops: &[Src]) -> Result<(), TranslateError> {
        let i = emit(self.inst, name, enc, ops, &[])?;
        self.out.push(i);
        Ok(())
    }

    /// `v_cmp_class_<ty> m, x, classes`.
    fn class(&mut self, ty: &str, x: OperandKind, classes: u16) -> Result<(), TranslateError> {
        let m = plain(self.cx.mask(self.inst)?);
        self.push(&format!("V_CMP_CLASS_{ty}"), "ENC_VOP3", &[m, plain(x), plain(int_const(classes))])
    }

    /// `dst = m ? b : a`.
    fn select(&mut self, dst: OperandKind, a: Src, b: Src) -> Result<(), TranslateError> {
        let m = plain(self.cx.mask(self.inst)?);
        self.push("V_CNDMASK_B32", "ENC_VOP3", &[plain(dst), a, b, m])
    }

    /// The value a NaN result gives: itself (`x`) or +0.
    fn nan(&self, x: OperandKind) -> Src {
        plain(if self.keep_nan { x } else { int_const(0) })
    }

    fn f32(&mut self, d: u16) -> Result<(), TranslateError> {
        let (d, t) = (vgpr(d), self.cx.vtemp(self.inst, 1, 1)?);
        self.push("V_MAX_I32", "ENC_VOP2", &[plain(t), plain(int_const(0)), plain(d)])?;
        self.push("V_MIN_U32", "ENC_VOP2", &[plain(t), lit(0x3f80_0000), plain(t)])?;
        self.class("F32", d, CLASS_NAN)?;
        let nan = self.nan(d);
        self.select(d, plain(t), nan)
    }

    /// The f16 at bit `off` (0 or 16) of `d`.
    fn f16(&mut self, d: u16, off: u16) -> Result<(), TranslateError> {
        let (d, x, t) = (vgpr(d), self.cx.vtemp(self.inst, 0, 1)?, self.cx.vtemp(self.inst, 1, 1)?);
        self.push("V_BFE_I32", "ENC_VOP3", &[plain(x), plain(d), plain(int_const(off)), plain(int_const(16))])?;
        self.push("V_MAX_I32", "ENC_VOP2", &[plain(t), plain(int_const(0)), plain(x)])?;
        self.push("V_MIN_U32", "ENC_VOP2", &[plain(t), lit(0x3c00), plain(t)])?;
        self.class("F16", x, CLASS_NAN)?;
        let nan = self.nan(x);
        self.select(t, plain(t), nan)?;
        if off > 0 {
            self.push("V_LSHLREV_B32", "ENC_VOP2", &[plain(t), plain(int_const(off)), plain(t)])?;
        }
        self.push("V_BFI_B32", "ENC_VOP3", &[plain(d), lit(0xffff << off), plain(t), plain(d)])
    }

    fn f64(&mut self, d: u16) -> Result<(), TranslateError> {
        let pair = OperandKind::Reg(RegRange { class: RegClass::Vgpr, first: d, count: 2 });
        let (lo, hi) = (vgpr(d), vgpr(d + 1));
        let (tl, th) = (self.cx.vtemp(self.inst, 0, 1)?, self.cx.vtemp(self.inst, 1, 1)?);
        let zero = plain(int_const(0));
        // Negative values (and -0) give +0.
        self.class("F64", pair, CLASS_NEGATIVE)?;
        self.select(tl, plain(lo), zero)?;
        self.select(th, plain(hi), zero)?;
        // 1.0 or more (+inf and positive NaNs too) gives 1.0.
        let m = plain(self.cx.mask(self.inst)?);
        self.push("V_CMP_LE_U32", "ENC_VOP3", &[m, lit(0x3ff0_0000), plain(th)])?;
        self.select(tl, plain(tl), zero)?;
        self.select(th, plain(th), lit(0x3ff0_0000))?;
        self.class("F64", pair, CLASS_NAN)?;
        let (nl, nh) = (self.nan(lo), self.nan(hi));
        self.select(lo, plain(tl), nl)?;
        self.select(hi, plain(th), nh)
    }
}
