//! Float minimum and maximum (`v_min_f32`, `v_max_f32`, `v_min_f64`, `v_max_f64`,
//! `v_min3_f32`, `v_max3_f32`, `v_med3_f32`): gfx1201 has only the IEEE 754-2019
//! minimumNumber / maximumNumber forms (`v_min_num_*`), which differ from gfx1013's on
//! signalling NaNs. The rules, as the AMD lifter defines them (vfloat.rs `min_max_kind`, from
//! the RDNA2 tables F32OutputModifier, F16MinMaxNan and F64Arithmetic):
//! - gfx1013 with MODE.IEEE set, and f64 in either mode: IEEE 754-2008 minNum / maxNum. A
//!   signalling NaN operand wins, the first one, quieted; a quiet NaN is ignored; two quiet NaNs
//!   give the first.
//! - gfx1013 f32 with MODE.IEEE clear: a NaN operand, signalling or quiet, is ignored; two NaNs
//!   give the first unchanged (not quieted).
//! - gfx1201 `v_min_num` / `v_max_num`: a NaN operand is ignored; two NaNs give the first
//!   quieted. Numbers (with -0 < +0) and denormals (flushed on input as MODE says, never on
//!   output) agree with gfx1013 in every case.
//!
//! The sequences, with a temporary lane mask `m` and temporary VGPRs (a source with abs / neg
//! is first copied to a temporary with its sign bit set by integer ops, which is what the
//! modifiers do to any value, NaNs included, so the selects read plain values; the class tests
//! read sources without their modifiers, which change no value's NaN class):
//! - IEEE rule: `m = class(a, sNaN)`, `b' = m ? a : b`, `m = class(b', sNaN)`,
//!   `a' = m ? b' : a`, `d = min_num(a', b')`: a signalling `a` makes both operands `a` (the
//!   result is `a` quieted), else a signalling `b` makes both `b`; otherwise nothing changes.
//! - IEEE clear: `t = min_num(a, b)`, `m = class(t, NaN)`, `d = m ? a : t`: `t` is a NaN only
//!   when both operands are, and then gfx1013 returns `a` as it is.
//!
//! `v_min3` / `v_max3` are two chained two-operand ones in gfx1013 (vfloat.rs `three`), and so
//! are the sequences. `v_med3_f32` is the median unless an operand is a NaN, then `v_min3` of
//! the three: `v_med3_num_f32` gives the median, and three class tests select the `v_min3`
//! sequence's result where an operand is a NaN.
//!
//! Not expanded (typed errors): f16 and packed f16 forms, DPP forms, clamp and output
//! modifiers, f64 constant operands.

use super::expand::{dst_srcs, emit, int_const, plain, scalar, ExpandCx, Src};
use super::map::{MapKind, MapRow};
use super::{unsupported, TranslateError};
use isabridge_decoder::operand::{Modifier, OperandKind, RegClass, RegRange};
use isabridge_decoder::Inst;

/// `v_cmp_class` mask of the signalling NaN class.
const CLASS_SNAN: u16 = 1;
/// `v_cmp_class` mask of both NaN classes.
const CLASS_NAN: u16 = 3;

/// The expansion of a float min / max row; None for other rows.
pub(super) fn expand(inst: &Inst, r: &MapRow, cx: &ExpandCx) -> Option<Result<Vec<Inst>, TranslateError>> {
    if r.kind != MapKind::Rename || !r.gfx12.starts_with("V_") || !r.gfx12.contains("_NUM_") {
        return None;
    }
    Some(min_max(inst, r, cx))
}

/// A sequence under construction.
struct Seq<'a> {
    inst: &'a Inst,
    cx: &'a ExpandCx,
    /// 2 for f64.
    width: u16,
    out: Vec<Inst>,
}

fn min_max(inst: &Inst, r: &MapRow, cx: &ExpandCx) -> Result<Vec<Inst>, TranslateError> {
    if r.gfx12.ends_with("F16") {
        return Err(unsupported(inst, "f16 minimum / maximum: gfx1201's *_num forms treat a signalling NaN otherwise, and no f16 expansion is written"));
    }
    if !matches!(r.gfx10_enc, "ENC_VOP2" | "ENC_VOP3") {
        return Err(unsupported(inst, "DPP minimum / maximum: gfx1201's *_num forms treat a signalling NaN otherwise, and no DPP expansion is written"));
    }
    if inst.modifiers.iter().any(|m| matches!(m, Modifier::Clamp | Modifier::Omod(1..))) {
        return Err(unsupported(inst, "minimum / maximum with clamp or an output modifier: not expanded"));
    }
    let width = if r.gfx12.ends_with("F64") { 2 } else { 1 };
    // f64 min / max follow the IEEE rule in either mode (vfloat.rs `min_max_kind`).
    let ieee = match (width, cx.ieee) {
        (2, _) => true,
        (_, Some(i)) => i,
        (_, None) => return Err(unsupported(inst, "f32 minimum / maximum: the gfx1013 MODE.IEEE bit is unknown (translate_inst_in)")),
    };
    let (d, s) = dst_srcs(inst)?;
    let src: Vec<Src> = s.iter().map(|o| (o.kind, o.mods)).collect();
    let two = match (r.gfx12.starts_with("V_MIN"), width) {
        (true, 1) => "V_MIN_NUM_F32",
        (true, _) => "V_MIN_NUM_F64",
        (false, 1) => "V_MAX_NUM_F32",
        (false, _) => "V_MAX_NUM_F64",
    };
    let mut q = Seq { inst, cx, width, out: Vec::new() };
    match (r.gfx12, src.len()) {
        (_, 2) => q.exact2(two, ieee, src[0], src[1], d.kind)?,
        ("V_MIN3_NUM_F32" | "V_MAX3_NUM_F32", 3) => {
            let t = cx.vtemp(inst, 4, 1)?;
            q.exact2(two, ieee, src[0], src[1], t)?;
            q.exact2(two, ieee, plain(t), src[2], d.kind)?;
        }
        ("V_MED3_NUM_F32", 3) => q.med3(ieee, &src, d.kind)?,
        _ => return Err(unsupported(inst, "minimum / maximum operands")),
    }
    Ok(q.out)
}

impl Seq<'_> {
    fn push(&mut self, name: &str, enc: &str, ops: &[Src]) -> Result<(), TranslateError> {
        let i = emit(self.inst, name, enc, ops, &[])?;
        self.out.push(i);
        Ok(())
    }

    /// The 32-bit half `hi` of an f64 source (its sign modifiers on the high half only).
    fn half(&self, s: Src, hi: bool) -> Result<Src, TranslateError> {
        if self.width == 1 {
            return Ok(s);
        }
        let OperandKind::Reg(r) = s.0 else {
            return Err(unsupported(self.inst, "f64 minimum / maximum of a constant or special register: not expanded"));
        };
        let k = OperandKind::Reg(RegRange { class: r.class, first: r.first + hi as u16, count: 1 });
        Ok((k, if hi { s.1 } else { Default::default() }))
    }

    /// `dst = m ? b : a`, per 32-bit half.
    fn select(&mut self, dst: OperandKind, a: Src, b: Src) -> Result<(), TranslateError> {
        let m = plain(self.cx.mask(self.inst)?);
        for hi in 0..self.width {
            let OperandKind::Reg(r) = dst else { return Err(unsupported(self.inst, "destination")) };
            let d = OperandKind::Reg(RegRange { class: r.class, first: r.first + hi, count: 1 });
            let (x, y) = (self.half(a, hi == 1)?, self.half(b, hi == 1)?);
            self.push("V_CNDMASK_B32", "ENC_VOP3", &[plain(d), x, y, m])?;
        }
        Ok(())
    }

    /// `m = class(x, classes)` (the NaN classes do not depend on the sign: `x`'s modifiers are
    /// left out).
    fn class(&mut self, x: Src, classes: u16) -> Result<(), TranslateError> {
        let m = plain(self.cx.mask(self.inst)?);
        let name = if self.width == 2 { "V_CMP_CLASS_F64" } else { "V_CMP_CLASS_F32" };
        self.push(name, "ENC_VOP3", &[m, plain(x.0), plain(int_const(classes))])
    }

    /// `s` with its abs / neg applied, in temporary `slot` (of `width` registers) when it has
    /// any: the sign bit set, cleared or flipped by an integer op (the low half of an f64 is
    /// copied).
    fn materialize(&mut self, s: Src, slot: u16) -> Result<Src, TranslateError> {
        if !s.1.abs && !s.1.neg {
            return Ok(plain(s.0));
        }
        let (op, k) = match (s.1.abs, s.1.neg) {
            (true, true) => ("V_OR_B32", 0x8000_0000),
            (true, false) => ("V_AND_B32", 0x7fff_ffff),
            _ => ("V_XOR_B32", 0x8000_0000),
        };
        let t = self.cx.vtemp(self.inst, slot, self.width)?;
        let OperandKind::Reg(tr) = t else { unreachable!("temporaries are registers") };
        let reg = |hi: u16| OperandKind::Reg(RegRange { class: RegClass::Vgpr, first: tr.first + hi, count: 1 });
        if self.width == 2 {
            let (lo, _) = self.half(plain(s.0), false)?;
            self.push("V_MOV_B32", "ENC_VOP1", &[plain(reg(0)), plain(lo)])?;
        }
        let (hi, _) = self.half(plain(s.0), self.width == 2)?;
        let sign = match hi {
            // A constant (f32 only: f64 constants are refused by `half`): its value with the
            // modifiers applied.
            OperandKind::Literal(x) => Some(x),
            OperandKind::InlineConst { bits, .. } => Some(bits as u32),
            _ => None,
        };
        let d = plain(reg(self.width - 1));
        match sign {
            Some(x) => {
                let v = match op {
                    "V_OR_B32" => x | k,
                    "V_AND_B32" => x & k,
                    _ => x ^ k,
                };
                self.push("V_MOV_B32", "ENC_VOP1", &[d, plain(OperandKind::Literal(v))])?
            }
            None => self.push(op, "ENC_VOP3", &[d, plain(OperandKind::Literal(k)), plain(hi)])?,
        }
        Ok(plain(t))
    }

    /// gfx1013's two-operand min / max (`two` names the gfx1201 `_num` form) of `a` and `b`
    /// into `dst`, under the IEEE rule or the IEEE-clear one.
    fn exact2(&mut self, two: &str, ieee: bool, a: Src, b: Src, dst: OperandKind) -> Result<(), TranslateError> {
        let w = self.width;
        if !ieee {
            let t = self.cx.vtemp(self.inst, 0, w)?;
            self.push(two, "ENC_VOP3", &[plain(t), a, b])?;
            let a = self.materialize(a, 3 * w)?;
            self.class(plain(t), CLASS_NAN)?;
            return self.select(dst, plain(t), a);
        }
        let a = self.materialize(a, 3 * w)?;
        let mut b = self.materialize(b, 2 * w)?;
        // A select reads both sources and the mask: at most two constant-bus reads.
        if scalar(&a.0) && scalar(&b.0) && a.0 != b.0 {
            let c = self.cx.vtemp(self.inst, 2 * w, w)?;
            for hi in 0..w {
                let OperandKind::Reg(cr) = c else { unreachable!("temporaries are registers") };
                let ch = OperandKind::Reg(RegRange { class: RegClass::Vgpr, first: cr.first + hi, count: 1 });
                let (bh, _) = self.half(plain(b.0), hi == 1)?;
                self.push("V_MOV_B32", "ENC_VOP1", &[plain(ch), plain(bh)])?;
            }
            b = plain(c);
        }
        let ta = self.cx.vtemp(self.inst, 0, w)?;
        let tb = self.cx.vtemp(self.inst, w, w)?;
        self.class(a, CLASS_SNAN)?;
        self.select(tb, b, a)?;
        self.class(plain(tb), CLASS_SNAN)?;
        self.select(ta, a, plain(tb))?;
        self.push(two, "ENC_VOP2", &[plain(dst), plain(ta), plain(tb)])
    }

    /// gfx1013's `v_med3_f32`: the median, or with a NaN operand `v_min3` of the three.
    fn med3(&mut self, ieee: bool, s: &[Src], dst: OperandKind) -> Result<(), TranslateError> {
        let (t, min3, med) = (self.cx.vtemp(self.inst, 4, 1)?, self.cx.vtemp(self.inst, 5, 1)?, self.cx.vtemp(self.inst, 6, 1)?);
        self.exact2("V_MIN_NUM_F32", ieee, s[0], s[1], t)?;
        self.exact2("V_MIN_NUM_F32", ieee, plain(t), s[2], min3)?;
        self.push("V_MED3_NUM_F32", "ENC_VOP3", &[plain(med), s[0], s[1], s[2]])?;
        for (k, x) in s.iter().enumerate() {
            self.class(*x, CLASS_NAN)?;
            let to = if k == 2 { dst } else { med };
            self.select(to, plain(med), plain(min3))?;
        }
        Ok(())
    }
}
