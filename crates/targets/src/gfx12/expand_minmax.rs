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
//! f16 (`v_min_f16`, `v_max_f16`, `v_min3_f16`, `v_max3_f16`, `v_med3_f16`) follows the
//! same rules (vfloat.rs `min_max_kind` and `three` take the format as a parameter) with the
//! f16 forms, classes and sign bit; an f16 op keeps its destination's high half, so a select
//! into the destination goes through a temporary and `v_bfi_b32 d, 0xffff, t, d`.
//!
//! The output modifier: gfx1013 ignores it with MODE.IEEE set (vfloat.rs `omod`), so it is
//! dropped; with IEEE clear the op that gives the result carries it (a NaN passes it
//! unchanged).
//!
//! DPP forms (`v_min_f32_dpp`, ...): the first source is fetched into a temporary by
//! `v_mov_b32_dpp` with the same controls, the sequence runs on it, and the result goes to
//! the destination only in the lanes the DPP op writes (see `Seq::dpp2`).
//!
//! Packed f16 (`v_pk_min_f16`, `v_pk_max_f16`): the f16 sequence once per half (see `packed`).
//!
//! The clamp bit is taken off before the expansion and done after it (expand_outmods.rs).
//!
//! f16 VOP3 op_sel: a source whose high half is selected is first shifted into the low half
//! of a temporary (8, 9, 10 for sources 0, 1, 2), and a result for the destination's high half
//! (op_sel bit 3) is made in temporary 11, shifted up and merged in by
//! `v_bfi_b32 d, 0xffff0000, t, d` (the low half kept), as gfx1013 writes it (vfloat.rs `def16`).
//!
//! Not expanded (typed errors): op_sel on an f16 constant, f16 constants with abs / neg,
//! packed f16 constant operands, f64 constant operands.

use super::expand::{dst_srcs, emit, int_const, plain, scalar, ExpandCx, Src};
use super::map::{MapKind, MapRow};
use super::{unsupported, TranslateError};
use isabridge_decoder::operand::{ConstType, Modifier, OperandKind, RegClass, RegRange, SrcMods};
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
    /// An f16 op: it writes the low half of its destination and keeps the high half.
    f16: bool,
    /// The instruction's destination (temporary 11 for an op_sel high-half result).
    dst: OperandKind,
    /// The output modifier the op that gives the result carries (none with MODE.IEEE set).
    omod: Vec<Modifier>,
    out: Vec<Inst>,
}

fn min_max(inst: &Inst, r: &MapRow, cx: &ExpandCx) -> Result<Vec<Inst>, TranslateError> {
    let f16 = r.gfx12.ends_with("F16");
    if f16 && r.gfx12.starts_with("V_PK_") {
        return packed(inst, r, cx);
    }
    let op_sel = inst.modifiers.iter().find_map(|m| if let Modifier::OpSel(x) = m { Some(*x) } else { None }).unwrap_or(0);
    if op_sel != 0 && !(f16 && r.gfx10_enc == "ENC_VOP3") {
        return Err(unsupported(inst, "minimum / maximum with op_sel outside the f16 VOP3 forms: not expanded"));
    }
    let dpp = matches!(r.gfx10_enc, "ENC_VOP2_DPP16" | "ENC_VOP2_DPP8");
    if !matches!(r.gfx10_enc, "ENC_VOP2" | "ENC_VOP3") && !dpp {
        return Err(unsupported(inst, "minimum / maximum in this encoding: gfx1201's *_num forms treat a signalling NaN otherwise, and no expansion is written"));
    }
    if inst.modifiers.iter().any(|m| matches!(m, Modifier::Clamp)) {
        return Err(unsupported(inst, "minimum / maximum with clamp: gfx1013's clamp of a NaN depends on MODE.DX10_CLAMP, which gfx1201 lacks; not expanded"));
    }
    // gfx1013 ignores the output modifier with MODE.IEEE set (vfloat.rs `omod`); with it clear
    // the gfx1201 op that gives the result carries it (a NaN passes an output modifier
    // unchanged, so the NaN selects need no change).
    let omod: Vec<Modifier> = inst.modifiers.iter().filter(|m| matches!(m, Modifier::Omod(1..))).copied().collect();
    let omod = match (omod.is_empty(), cx.ieee) {
        (true, _) | (false, Some(true)) => Vec::new(),
        (false, Some(false)) => omod,
        (false, None) => return Err(unsupported(inst, "minimum / maximum with an output modifier: the gfx1013 MODE.IEEE bit is unknown (translate_inst_in)")),
    };
    let width = if r.gfx12.ends_with("F64") { 2 } else { 1 };
    // f64 min / max follow the IEEE rule in either mode (vfloat.rs `min_max_kind`).
    let ieee = match (width, cx.ieee) {
        (2, _) => true,
        (_, Some(i)) => i,
        (_, None) => return Err(unsupported(inst, "f32 minimum / maximum: the gfx1013 MODE.IEEE bit is unknown (translate_inst_in)")),
    };
    let (d, s) = dst_srcs(inst)?;
    // A 16-bit operand reads the literal's low half (alu.rs: gfx1201's canonical literal). An
    // f16 float inline constant becomes the literal of its f16 bits: the selects read their
    // operands as 32-bit words, where the same inline constant is the f32 value.
    let lit = |k: OperandKind| match k {
        OperandKind::Literal(x) if f16 => OperandKind::Literal(x & 0xffff),
        OperandKind::InlineConst { bits, ty, .. } if f16 && ty != ConstType::Int => OperandKind::Literal(bits as u32 & 0xffff),
        k => k,
    };
    let mut src: Vec<Src> = s.iter().map(|o| (lit(o.kind), o.mods)).collect();
    // op_sel: a source's selected high half is moved to the low half of temporary 8 + i (the
    // sequences read low halves); a high-half result is made in temporary 11 and merged into
    // the destination's high half (the low half kept).
    let mut pre = Vec::new();
    for (i, x) in src.iter_mut().enumerate() {
        if op_sel >> i & 1 == 0 {
            continue;
        }
        if !matches!(x.0, OperandKind::Reg(_)) {
            return Err(unsupported(inst, "f16 minimum / maximum with op_sel on a constant: not expanded"));
        }
        let t = cx.vtemp(inst, 8 + i as u16, 1)?;
        pre.push(emit(inst, "V_LSHRREV_B32", "ENC_VOP3", &[plain(t), plain(int_const(16)), plain(x.0)], &[])?);
        x.0 = t;
    }
    let hi_dst = op_sel & 8 != 0;
    let dst = if hi_dst { cx.vtemp(inst, 11, 1)? } else { d.kind };
    let two = match (r.gfx12.starts_with("V_MIN"), width, f16) {
        (true, _, true) => "V_MIN_NUM_F16",
        (false, _, true) => "V_MAX_NUM_F16",
        (true, 1, _) => "V_MIN_NUM_F32",
        (true, _, _) => "V_MIN_NUM_F64",
        (false, 1, _) => "V_MAX_NUM_F32",
        (false, _, _) => "V_MAX_NUM_F64",
    };
    let mut q = Seq { inst, cx, width, f16, dst, omod, out: pre };
    match (r.gfx12, src.len()) {
        (_, 2) if dpp => q.dpp2(two, ieee, src[0], src[1])?,
        (_, 2) => q.exact2(two, ieee, src[0], src[1], dst, true)?,
        ("V_MIN3_NUM_F32" | "V_MAX3_NUM_F32" | "V_MIN3_NUM_F16" | "V_MAX3_NUM_F16", 3) => {
            let t = cx.vtemp(inst, 4, 1)?;
            q.exact2(two, ieee, src[0], src[1], t, false)?;
            q.exact2(two, ieee, plain(t), src[2], dst, true)?;
        }
        ("V_MED3_NUM_F32" | "V_MED3_NUM_F16", 3) => q.med3(ieee, &src, dst)?,
        _ => return Err(unsupported(inst, "minimum / maximum operands")),
    }
    if hi_dst {
        q.push("V_LSHLREV_B32", "ENC_VOP2", &[plain(dst), plain(int_const(16)), plain(dst)])?;
        q.push("V_BFI_B32", "ENC_VOP3", &[plain(d.kind), plain(OperandKind::Literal(0xffff_0000)), plain(dst), plain(d.kind)])?;
    }
    Ok(q.out)
}

/// gfx1013's two-operand f16 / f32 min / max (map row `r` of the op's VOP3 form) of `a` and
/// `b`, operands already read into temporaries 4 and up (an SDWA form's selected halves), into
/// temporary `dst`: the sequence of the VOP3 form, with temporaries 0-3 (and 7 for an f16
/// result). No output modifier.
pub(super) fn two(inst: &Inst, r: &MapRow, cx: &ExpandCx, a: Src, b: Src, dst: OperandKind) -> Result<Vec<Inst>, TranslateError> {
    let two = match r.gfx12 {
        "V_MIN_NUM_F16" | "V_MAX_NUM_F16" | "V_MIN_NUM_F32" | "V_MAX_NUM_F32" => r.gfx12,
        _ => return Err(unsupported(inst, "minimum / maximum form without a two-operand expansion")),
    };
    if inst.modifiers.iter().any(|m| matches!(m, Modifier::Omod(1..))) {
        return Err(unsupported(inst, "minimum / maximum with an output modifier in this form: not expanded"));
    }
    let ieee = cx.ieee.ok_or_else(|| unsupported(inst, "minimum / maximum: the gfx1013 MODE.IEEE bit is unknown (translate_inst_in)"))?;
    let mut q = Seq { inst, cx, width: 1, f16: two.ends_with("F16"), dst, omod: Vec::new(), out: Vec::new() };
    q.exact2(two, ieee, a, b, dst, true)?;
    Ok(q.out)
}

/// gfx1013's `v_pk_min_f16` / `v_pk_max_f16`: each half of the result is the f16 min / max
/// (the same rules as the scalar op, vop3p.rs) of the source halves op_sel (low result) and
/// op_sel_hi (high result) select, negated by neg_lo / neg_hi. A selected high half is moved
/// to the low half of a temporary; each result is the f16 sequence's, in a temporary, and the
/// two are packed into the destination.
fn packed(inst: &Inst, r: &MapRow, cx: &ExpandCx) -> Result<Vec<Inst>, TranslateError> {
    let ieee = cx.ieee.ok_or_else(|| unsupported(inst, "f16 minimum / maximum: the gfx1013 MODE.IEEE bit is unknown (translate_inst_in)"))?;
    let (d, s) = dst_srcs(inst)?;
    if s.len() != 2 || s.iter().any(|o| !matches!(o.kind, OperandKind::Reg(_))) {
        return Err(unsupported(inst, "packed f16 minimum / maximum of a constant: not expanded"));
    }
    let bits = |f: fn(&Modifier) -> Option<u8>| inst.modifiers.iter().find_map(f).unwrap_or(0);
    let op_sel = bits(|m| if let Modifier::OpSel(x) = m { Some(*x) } else { None });
    let op_sel_hi = bits(|m| if let Modifier::OpSelHi(x) = m { Some(*x) } else { None });
    let neg_hi = bits(|m| if let Modifier::Named("NEG_HI", v) = m { Some(*v as u8) } else { None });
    let two = if r.gfx12.starts_with("V_PK_MIN") { "V_MIN_NUM_F16" } else { "V_MAX_NUM_F16" };
    let mut q = Seq { inst, cx, width: 1, f16: true, dst: d.kind, omod: Vec::new(), out: Vec::new() };
    let (lo, hi) = (cx.vtemp(inst, 6, 1)?, cx.vtemp(inst, 7, 1)?);
    for (high, res) in [(false, lo), (true, hi)] {
        let sel = if high { op_sel_hi } else { op_sel };
        let mut ops = Vec::new();
        for (i, o) in s.iter().enumerate() {
            let neg = if high { neg_hi >> i & 1 != 0 } else { o.mods.neg };
            let k = if sel >> i & 1 != 0 {
                let t = cx.vtemp(inst, 4 + i as u16, 1)?;
                q.push("V_LSHRREV_B32", "ENC_VOP3", &[plain(t), plain(int_const(16)), plain(o.kind)])?;
                t
            } else {
                o.kind
            };
            ops.push((k, SrcMods { neg, ..SrcMods::default() }));
        }
        q.exact2(two, ieee, ops[0], ops[1], res, true)?;
    }
    let t = cx.vtemp(inst, 4, 1)?;
    q.push("V_LSHLREV_B32", "ENC_VOP2", &[plain(t), plain(int_const(16)), plain(hi)])?;
    q.push("V_BFI_B32", "ENC_VOP3", &[plain(d.kind), plain(OperandKind::Literal(0xffff)), plain(lo), plain(t)])?;
    Ok(q.out)
}

impl Seq<'_> {
    fn push(&mut self, name: &str, enc: &str, ops: &[Src]) -> Result<(), TranslateError> {
        self.push_with(name, enc, ops, &[])
    }

    fn push_with(&mut self, name: &str, enc: &str, ops: &[Src], modifiers: &[Modifier]) -> Result<(), TranslateError> {
        let i = emit(self.inst, name, enc, ops, modifiers)?;
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

    /// `dst = m ? b : a`, per 32-bit half (an f16 destination's low half, through a temporary
    /// merged in by `v_bfi_b32`, which keeps its high half).
    fn select(&mut self, dst: OperandKind, a: Src, b: Src) -> Result<(), TranslateError> {
        let m = plain(self.cx.mask(self.inst)?);
        if self.f16 && dst == self.dst {
            let t = self.cx.vtemp(self.inst, 7, 1)?;
            self.push("V_CNDMASK_B32", "ENC_VOP3", &[plain(t), a, b, m])?;
            return self.push("V_BFI_B32", "ENC_VOP3", &[plain(dst), plain(OperandKind::Literal(0xffff)), plain(t), plain(dst)]);
        }
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
        let name = match (self.width, self.f16) {
            (2, _) => "V_CMP_CLASS_F64",
            (_, true) => "V_CMP_CLASS_F16",
            _ => "V_CMP_CLASS_F32",
        };
        self.push(name, "ENC_VOP3", &[m, plain(x.0), plain(int_const(classes))])
    }

    /// `s` with its abs / neg applied, in temporary `slot` (of `width` registers) when it has
    /// any: the sign bit set, cleared or flipped by an integer op (the low half of an f64 is
    /// copied).
    fn materialize(&mut self, s: Src, slot: u16) -> Result<Src, TranslateError> {
        if !s.1.abs && !s.1.neg {
            return Ok(plain(s.0));
        }
        let sign: u32 = if self.f16 { 0x8000 } else { 0x8000_0000 };
        let (op, k) = match (s.1.abs, s.1.neg) {
            (true, true) => ("V_OR_B32", sign),
            (true, false) => ("V_AND_B32", !sign),
            _ => ("V_XOR_B32", sign),
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
            // An f16 constant with abs / neg: which bits an inline constant stands for in an f16
            // operand is not modelled here.
            OperandKind::Literal(_) | OperandKind::InlineConst { .. } if self.f16 => {
                return Err(unsupported(self.inst, "f16 minimum / maximum of a constant with abs / neg: not expanded"))
            }
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
    /// into `dst`, under the IEEE rule or the IEEE-clear one; `last`: it gives the result (and
    /// carries the output modifier).
    fn exact2(&mut self, two: &str, ieee: bool, a: Src, b: Src, dst: OperandKind, last: bool) -> Result<(), TranslateError> {
        let w = self.width;
        let omod = if last { self.omod.clone() } else { Vec::new() };
        if !ieee {
            let t = self.cx.vtemp(self.inst, 0, w)?;
            self.push_with(two, "ENC_VOP3", &[plain(t), a, b], &omod)?;
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
        // VOP3 for an output modifier, and for f16, whose VOP2 form reaches only v0-v127
        // (gfx1201's 16-bit VOP2 register fields).
        let enc = if omod.is_empty() && !self.f16 { "ENC_VOP2" } else { "ENC_VOP3" };
        self.push_with(two, enc, &[plain(dst), plain(ta), plain(tb)], &omod)
    }

    /// gfx1013's DPP min / max: `a` (a VGPR) fetched across lanes as the DPP controls say,
    /// and the destination written only in the lanes the DPP op writes. A lane whose fetch
    /// is disabled (row / bank mask, an invalid or inactive source lane without bound_ctrl /
    /// fetch-inactive) keeps its destination: the same controls move a 1 over a 2 in a
    /// temporary, which stays 2 exactly in those lanes (bound_ctrl's 0 is a write).
    fn dpp2(&mut self, two: &str, ieee: bool, a: Src, b: Src) -> Result<(), TranslateError> {
        let dpp: Vec<Modifier> = self
            .inst
            .modifiers
            .iter()
            .filter(|m| {
                matches!(m, Modifier::DppCtrl(_) | Modifier::RowMask(_) | Modifier::BankMask(_) | Modifier::BoundCtrl | Modifier::FetchInactive | Modifier::Dpp8(_))
            })
            .copied()
            .collect();
        let enc = if self.inst.encoding.contains("DPP8") { "ENC_VOP1_DPP8" } else { "ENC_VOP1_DPP16" };
        let (flag, fetched, res, one) =
            (self.cx.vtemp(self.inst, 4, 1)?, self.cx.vtemp(self.inst, 5, 1)?, self.cx.vtemp(self.inst, 6, 1)?, self.cx.vtemp(self.inst, 7, 1)?);
        self.push("V_MOV_B32", "ENC_VOP1", &[plain(one), plain(int_const(1))])?;
        self.push("V_MOV_B32", "ENC_VOP1", &[plain(flag), plain(int_const(2))])?;
        self.push_with("V_MOV_B32", enc, &[plain(flag), plain(one)], &dpp)?;
        self.push_with("V_MOV_B32", enc, &[plain(fetched), plain(a.0)], &dpp)?;
        self.exact2(two, ieee, (fetched, a.1), b, res, true)?;
        let m = plain(self.cx.mask(self.inst)?);
        self.push("V_CMP_NE_U32", "ENC_VOP3", &[m, plain(int_const(2)), plain(flag)])?;
        let dst = self.dst;
        self.select(dst, plain(dst), plain(res))
    }

    /// gfx1013's `v_med3_f32`: the median, or with a NaN operand `v_min3` of the three.
    fn med3(&mut self, ieee: bool, s: &[Src], dst: OperandKind) -> Result<(), TranslateError> {
        let (t, min3, med) = (self.cx.vtemp(self.inst, 4, 1)?, self.cx.vtemp(self.inst, 5, 1)?, self.cx.vtemp(self.inst, 6, 1)?);
        let (min, med3) = if self.f16 { ("V_MIN_NUM_F16", "V_MED3_NUM_F16") } else { ("V_MIN_NUM_F32", "V_MED3_NUM_F32") };
        self.exact2(min, ieee, s[0], s[1], t, false)?;
        self.exact2(min, ieee, plain(t), s[2], min3, true)?;
        let omod = self.omod.clone();
        self.push_with(med3, "ENC_VOP3", &[plain(med), s[0], s[1], s[2]], &omod)?;
        for (k, x) in s.iter().enumerate() {
            self.class(*x, CLASS_NAN)?;
            let to = if k == 2 { dst } else { med };
            self.select(to, plain(med), plain(min3))?;
        }
        Ok(())
    }
}
