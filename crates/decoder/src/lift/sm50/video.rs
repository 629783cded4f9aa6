//! The Maxwell scalar video instructions on whole 32-bit words, with the meaning the PTX ISA
//! gives the PTX instructions ptxas 12.9 turns into them (PTX ISA, Scalar Video Instructions:
//! vadd / vsub / vabsdiff / vmin / vmax, vshl / vshr, vset): the sources extended to 33 bits
//! by their types, the operation, then `.sat` clamps to the destination type's range (else the
//! low 32 bits), then the secondary `.add` adds c (`.ACC` in SASS).
//!
//! nvdisasm's spelling of the types and modes is not regular (`VADD.SAT` is vadd.s32.s32.s32,
//! `VABSDIFF.SD.ACC` vabsdiff.s32.s32.s32.add), so only the forms whose PTX source is known
//! lift: each row of [`FORMS`] is a PTX instruction of fixtures/nvidia/lift/cc.sm50.ptx
//! (kernels k_vabsdiff, k_vadd, k_vmnmx, k_vset, k_vshl, checked by sm50_cc.rs) and the SASS
//! ptxas made of it. Byte selects on VMNMX lift in the forms [`byte_minmax`] names; other
//! forms, and other byte or halfword selects, are typed errors.

use crate::lift::sm86::{At, Cx};
use crate::lift::LiftError;
use crate::operand::Operand;
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::int::{ICmp, IntOp, Overflow, ShiftRule};
use isabridge_ir::{Type, Value};

/// The operation of a video instruction.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Vop {
    AbsDiff,
    Add,
    Min,
    Max,
    Set(ICmp),
    Shl { clamp: bool },
    Shr { clamp: bool },
}

/// A known form: (mnemonic, its suffixes as the operand model spells them (with types
/// nvdisasm leaves out), operation, signed destination, signed a, signed b,
/// saturate, secondary add).
type Form = (&'static str, &'static [&'static str], Vop, bool, bool, bool, bool, bool);

/// The forms (see the module comment); the PTX each comes from is in the comment before it.
const FORMS: &[Form] = &[
    // vabsdiff.u32.u32.u32.add
    ("VABSDIFF", &["U32", "U32", "U32", "ACC"], Vop::AbsDiff, false, false, false, false, true),
    // vabsdiff.s32.s32.s32.add
    ("VABSDIFF", &["SD", "U32", "ACC"], Vop::AbsDiff, true, true, true, false, true),
    // vadd.s32.s32.s32.sat
    ("VADD", &["SAT"], Vop::Add, true, true, true, true, false),
    // vadd.u32.u32.u32.sat
    ("VADD", &["U32", "U32", "UD", "SAT"], Vop::Add, false, false, false, true, false),
    // vmax.s32.s32.s32
    ("VMNMX", &["MX"], Vop::Max, true, true, true, false, false),
    // vmin.u32.u32.u32.add
    ("VMNMX", &["UD", "ACC", "U32", "U32"], Vop::Min, false, false, false, false, true),
    // vset.s32.u32.lt
    ("VSET", &["LT", "S32", "U32", "U32"], Vop::Set(ICmp::Slt), false, true, false, false, false),
    // vset.u32.s32.ge.add
    ("VSET", &["GE", "U32", "S32", "U32", "ACC"], Vop::Set(ICmp::Sge), false, false, true, false, true),
    // vshl.u32.u32.u32.clamp
    ("VSHL", &["UD", "U32", "U32", "U32"], Vop::Shl { clamp: true }, false, false, false, false, false),
    // vshr.s32.s32.u32.wrap
    ("VSHR", &["W", "U32"], Vop::Shr { clamp: false }, true, true, false, false, false),
];

/// Lift `at` if it is a video instruction.
pub(crate) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    matches!(name, "VABSDIFF" | "VADD" | "VMNMX" | "VSET" | "VSHL" | "VSHR").then(|| video(cx, at, name))
}

fn video(cx: &mut Cx, at: &At, name: &str) -> Result<(), LiftError> {
    if name == "VMNMX" {
        if let Some(r) = byte_minmax(cx, at) {
            return r;
        }
    }
    let sfx: Vec<&str> = at.sfx.iter().copied().filter(|s| *s != "REUSE").collect();
    let Some(&(_, _, op, dsigned, asigned, bsigned, sat, acc)) = FORMS.iter().find(|f| f.0 == name && f.1 == sfx.as_slice()) else {
        return Err(cx.unsupported(at, "video instruction form not derived"));
    };
    let (dsts, srcs) = (at.dsts(), at.srcs());
    if dsts.len() != 1 || srcs.len() != 3 || super::writes_cc(at) || srcs.iter().any(|o| o.mods.neg || o.mods.not || o.mods.abs) {
        return Err(cx.unsupported(at, "operand shape"));
    }
    if ["SEL_RA", "SEL_RB", "BA", "BB"].iter().any(|f| at.inst.named(f).unwrap_or(0) != 0) {
        return Err(cx.unsupported(at, "video instruction with a byte or halfword select"));
    }
    let ta = ext(cx, at, srcs[0], asigned)?;
    let tb = ext(cx, at, srcs[1], bsigned)?;
    let i64op = |cx: &mut Cx, o: IntOp, x: Value, y: Value| cx.b().int(o, Type::I64, &[x, y]);
    let t = match op {
        Vop::AbsDiff => {
            let d = i64op(cx, IntOp::Sub(Overflow::Wrap), ta, tb);
            let n = i64op(cx, IntOp::Sub(Overflow::Wrap), tb, ta);
            i64op(cx, IntOp::Max(true), d, n)
        }
        Vop::Add => i64op(cx, IntOp::Add(Overflow::Wrap), ta, tb),
        Vop::Min => i64op(cx, IntOp::Min(true), ta, tb),
        Vop::Max => i64op(cx, IntOp::Max(true), ta, tb),
        Vop::Set(k) => {
            let r = cx.b().int(IntOp::Cmp(k), Type::I64, &[ta, tb]);
            cx.b().conv(ConvOp::IToI { signed: false }, Type::I64, r)
        }
        Vop::Shl { clamp } | Vop::Shr { clamp } => {
            let b = cx.word(at, srcs[1], 0)?;
            let n = if clamp {
                let k = cx.k32(32);
                cx.b().int(IntOp::Min(false), Type::I32, &[b, k])
            } else {
                let k = cx.k32(31);
                cx.b().int(IntOp::And, Type::I32, &[b, k])
            };
            let n = cx.b().conv(ConvOp::IToI { signed: false }, Type::I64, n);
            let o = if matches!(op, Vop::Shl { .. }) { IntOp::Shl(ShiftRule::Clamp) } else { IntOp::Shr(true, ShiftRule::Clamp) };
            i64op(cx, o, ta, n)
        }
    };
    let t = if sat {
        let (lo, hi) = if dsigned { (i32::MIN as i64, i32::MAX as i64) } else { (0, u32::MAX as i64) };
        let lo = cx.k(Type::I64, lo as u64);
        let hi = cx.k(Type::I64, hi as u64);
        let t = i64op(cx, IntOp::Max(true), t, lo);
        i64op(cx, IntOp::Min(true), t, hi)
    } else {
        t
    };
    let mut r = cx.b().conv(ConvOp::IToI { signed: false }, Type::I32, t);
    if acc {
        let c = cx.word(at, srcs[2], 0)?;
        r = cx.b().int(IntOp::Add(Overflow::Wrap), Type::I32, &[r, c]);
    }
    cx.def32(at, dsts[0], r)
}

/// A 32-bit source extended to i64 by its type.
fn ext(cx: &mut Cx, at: &At, op: &Operand, signed: bool) -> Result<Value, LiftError> {
    let w = cx.word(at, op, 0)?;
    Ok(cx.b().conv(ConvOp::IToI { signed }, Type::I64, w))
}

/// VMNMX on selected bytes, in the forms ptxas 12.9 makes of PTX's byte selects (kernels
/// k_vmnmx8 and k_vmnmx8u of fixtures/nvidia/lift/cc.sm50.ptx, checked by sm50_cc.rs):
/// `vmax.s32.s32.s32 d, a.b1, b.b2` is `VMNMX.S8.S8.MX d, a.B1, b.B2, RZ`, `vmin.s32.s32.s32`
/// the same without `.MX`, `vmax.u32.u32.u32 d, b.b0, c.b3` is `VMNMX.UD.U8.U8.MX d, b, c.B3,
/// RZ` (byte 0 is not printed). PTX: the selected bytes are sign- or zero-extended by the
/// source types, then compared; the result fits the destination type. None for other forms.
fn byte_minmax(cx: &mut Cx, at: &At) -> Option<Result<(), LiftError>> {
    let mut text = String::new();
    cx.isa.plugin().print(at.d, at.inst.addr, &mut text);
    let text = text.trim().trim_end_matches(';').trim();
    let text = if text.starts_with('@') { text.split_once(' ').map_or("", |(_, r)| r.trim()) } else { text };
    let (m, rest) = text.split_once(' ')?;
    let (signed, max) = match m {
        "VMNMX.S8.S8.MX" => (true, true),
        "VMNMX.S8.S8" => (true, false),
        "VMNMX.UD.U8.U8.MX" => (false, true),
        _ => return None,
    };
    let toks: Vec<&str> = rest.split(',').map(str::trim).collect();
    let sel = |t: &str| -> Option<u32> {
        let t = t.trim_end_matches(".reuse");
        match t.rsplit_once(".B") {
            Some((_, k)) => k.parse::<u32>().ok().filter(|k| *k < 4),
            None => Some(0),
        }
    };
    Some((|| {
        let (dsts, srcs) = (at.dsts(), at.srcs());
        if toks.len() != 4 || toks[3] != "RZ" || dsts.len() != 1 || srcs.len() != 3 || super::writes_cc(at) || srcs.iter().any(|o| o.mods.neg || o.mods.not || o.mods.abs) {
            return Err(cx.unsupported(at, "operand shape"));
        }
        let (Some(ka), Some(kb)) = (sel(toks[1]), sel(toks[2])) else {
            return Err(cx.unsupported(at, "video byte select"));
        };
        let mut v = Vec::new();
        for (o, k) in [(srcs[0], ka), (srcs[1], kb)] {
            let w = cx.word(at, o, 0)?;
            let up = cx.k32(24 - 8 * k);
            let down = cx.k32(24);
            let w = cx.b().int(IntOp::Shl(ShiftRule::Clamp), Type::I32, &[w, up]);
            v.push(cx.b().int(IntOp::Shr(signed, ShiftRule::Clamp), Type::I32, &[w, down]));
        }
        let op = if max { IntOp::Max(signed) } else { IntOp::Min(signed) };
        let r = cx.b().int(op, Type::I32, &v);
        cx.def32(at, dsts[0], r)
    })())
}
