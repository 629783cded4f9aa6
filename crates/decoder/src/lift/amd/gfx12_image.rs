//! gfx1201 images, exports and interpolation on the gfx1013 family code.
//!
//! VIMAGE / VSAMPLE: the instruction is handed to `mimg.rs` / `bvh.rs` with gfx12's fields
//! under the gfx10 names: the address fields VADDR0..VADDR4 (each a register or, the last one,
//! a range; the address dwords in the order gfx10's NSA forms give them) as VADDR and NSA1..4,
//! RSRC as SRSRC, SAMP as SSAMP, bit 0 of an atomic's TH (TH_ATOMIC_RETURN) as GLC; A16, D16,
//! TFE, LWE, UNORM, DMASK and DIM keep their names and meaning. gfx12 renamed the integer
//! image atomics (`_uint` / `_int` suffixes); the float atomics, the `_g16` samples and the
//! `_pck` loads and stores are typed errors.
//!
//! Descriptors: the IR's T# / S# operands are in the gfx10 layout (`isabridge_ir::ops::image`),
//! so the gfx12 words are rewritten into it from the fields of
//! ../shared/facts/amd/descriptor_fields_gfx10_gfx11_gfx12.csv: T# word 1 FORMAT (8 bits at 17)
//! and BASE_LEVEL (5 bits at 25), word 3 LAST_LEVEL (5 bits at 15), word 2 WIDTH_HI and HEIGHT
//! and word 4 DEPTH, BASE_ARRAY move to their gfx10 places; the image format is renumbered from
//! gfx12 IMG_FMT to gfx10 IMG_FORMAT (descriptor_enums.csv: 1-29 keep their numbers, 42-63 add
//! 14; the packed formats 30-41 and the others have no IR format and become 0, an error of the
//! op). A surface larger than the gfx10 fields hold (width or height above 16384, depth or
//! slices above 8192, levels above 15) also becomes format 0: the op fails rather than read a
//! different surface. S# word 1 MIN_LOD / MAX_LOD (13 bits, 8 fraction bits, at 0 and 13)
//! become gfx10's 12-bit fields, saturated at 15.996 (above the last level the IR can hold);
//! the other S# fields and every enumeration (clamp, filter, border colour, channel select)
//! have the same bits on both. The BVH node descriptor of `image_bvh*_intersect_ray` is read as
//! gfx10's (base address, box sorting, node count), which gfx12 keeps at the same bits (PAL's
//! `sq_bvh_rsrc_t` of both: fixtures/facts/amd/bvh_descriptor_gfx10_gfx12.md); the fields only
//! gfx12 has (compressed, wide and 64-byte nodes, instances, pointer flags, the triangle-first
//! and box sorting heuristics) are not modelled: the IR's `ray.node` is gfx10's node format
//! with them 0.
//!
//! VEXPORT (`export`): targets mrt0-7, mrtz, null and pos0-3, as `exp` on gfx1013 (stage.rs);
//! row exports (`row_en`) and the other gfx12 targets are typed errors.
//!
//! VDSDIR and VINTERP, from AMD's RDNA4 guide (DS_PARAM_LOAD, DS_DIRECT_LOAD) and RDNA3.5 guide
//! (the VINTERP opcodes, which gfx12 keeps): the attribute inputs are those of stage.rs
//! (parameter p of channel c of attribute a is function input `ATTR_INPUT_BASE + 12a + 3c + p`,
//! one value per lane, standing for the LDS data M0 points at).
//! - `ds_param_load d, attrA.C` writes lane 4q + k of each quad with P0, P10, P20, 0.0 for
//!   k = 0, 1, 2, 3, in whole-quad mode (every lane of a quad with an active lane).
//! - `ds_direct_load d` reads the dword of LDS at byte address M0[15:0] into every lane,
//!   whole-quad:
//!   M0[18:16] 0 = the low byte, 1 = the low 16 bits, 4 / 5 = the same sign-extended, else the
//!   dword.
//! - `v_interp_p10_f32 d, s0, s1, s2` = fma(s0 of lane 4q+1, s1, s2 of lane 4q);
//!   `v_interp_p2_f32 d, s0, s1, s2` = fma(s0 of lane 4q+2, s1, s2), one f32 rounding under MODE;
//!   the cross-lane reads ignore EXEC. The `_f16_f32` forms read s0 (and s2 for p10) as f16 from
//!   the half op_sel names, converted exactly; p10 writes f32, p2 rounds the f32 fma to f16 and
//!   writes the half op_sel bit 3 names; the `_rtz_` forms round toward zero. `neg` negates a
//!   source, `clamp` clamps the result.

use super::lanes::Valu;
use super::stage::ATTR_INPUT_BASE;
use super::vfloat::{conv_mode, fty, mode, source_mods};
use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::{Inst, Modifier, Operand, OperandKind};
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::float::{FloatKind, FloatOp, Omod};
use isabridge_ir::ops::int::{ICmp, IntOp, ShiftRule};
use isabridge_ir::ops::lane::{Dpp, LaneOp};
use isabridge_ir::ops::mem::{MemOp, Space};
use isabridge_ir::ops::Op;
use isabridge_ir::soft::{FFmt, Round};
use isabridge_ir::{Type, Value};

/// Whether the instruction is one of the encodings this file lifts.
pub(super) fn takes(at: &At) -> bool {
    matches!(at.inst.encoding, "ENC_VIMAGE" | "ENC_VSAMPLE" | "ENC_VEXPORT" | "ENC_VDSDIR" | "ENC_VINTERP")
}

/// Lift a gfx1201 image, export, LDS-parameter or interpolation instruction.
pub(super) fn lift(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    match at.inst.encoding {
        "ENC_VIMAGE" | "ENC_VSAMPLE" => image(cx, at),
        "ENC_VEXPORT" => export(cx, at),
        "ENC_VDSDIR" => match at.inst.name {
            "DS_PARAM_LOAD" => param_load(cx, at),
            "DS_DIRECT_LOAD" => direct_load(cx, at),
            _ => Err(cx.unsupported(at, "VDSDIR opcode")),
        },
        _ => interp(cx, at),
    }
}

/// The gfx10 name of a gfx12 image instruction (only the integer atomics were renamed).
fn gfx10_image_name(name: &str) -> Option<&str> {
    let Some(op) = name.strip_prefix("IMAGE_ATOMIC_") else { return Some(name) };
    Some(match op {
        "SWAP" | "CMPSWAP" | "AND" | "OR" | "XOR" => name,
        "ADD_UINT" => "IMAGE_ATOMIC_ADD",
        "MIN_INT" => "IMAGE_ATOMIC_SMIN",
        "MIN_UINT" => "IMAGE_ATOMIC_UMIN",
        "MAX_INT" => "IMAGE_ATOMIC_SMAX",
        "MAX_UINT" => "IMAGE_ATOMIC_UMAX",
        "INC_UINT" => "IMAGE_ATOMIC_INC",
        "DEC_UINT" => "IMAGE_ATOMIC_DEC",
        _ => return None,
    })
}

/// The instruction with gfx12's image fields under their gfx10 names.
fn as_gfx10(inst: &Inst, atomic: bool) -> Inst {
    let mut i = inst.clone();
    for o in &mut i.operands {
        o.field = match o.field {
            "VADDR0" => "VADDR",
            "VADDR1" => "NSA1",
            "VADDR2" => "NSA2",
            "VADDR3" => "NSA3",
            "VADDR4" => "NSA4",
            "RSRC" => "SRSRC",
            "SAMP" => "SSAMP",
            f => f,
        };
    }
    // Every gfx12 address form lists its dwords field by field, as gfx10's NSA forms do.
    i.modifiers.push(Modifier::Named("NSA", 1));
    if atomic && inst.named("TH").unwrap_or(0) & 1 != 0 {
        i.modifiers.push(Modifier::Named("GLC", 1));
    }
    i
}

fn image(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let name = at.inst.name;
    let mapped = gfx10_image_name(name).ok_or_else(|| cx.unsupported(at, "gfx12 float image atomics do not lift yet"))?;
    let inst = as_gfx10(at.inst, name.starts_with("IMAGE_ATOMIC_"));
    let g = At { inst: &inst, d: at.d };
    if let Some(r) = super::bvh::lift(cx, &g, mapped) {
        return r;
    }
    if let Some(r) = super::mimg::lift(cx, &g, mapped) {
        return r;
    }
    Err(cx.unsupported(at, "gfx12 image instruction without a gfx10 form (g16 samples, pck loads and stores, msaa loads)"))
}

/// Bits `off .. off + len` of `w` (uniform i32).
fn bits(cx: &mut Cx, w: Value, off: u32, len: u32) -> Value {
    let sh = cx.k32(off);
    let s = cx.b().int(IntOp::Shr(false, ShiftRule::Wrap), Type::I32, &[w, sh]);
    let m = cx.k32(((1u64 << len) - 1) as u32);
    cx.b().int(IntOp::And, Type::I32, &[s, m])
}

/// `v << off` or-ed into `acc`.
fn put(cx: &mut Cx, acc: Value, v: Value, off: u32) -> Value {
    let sh = cx.k32(off);
    let s = cx.b().int(IntOp::Shl(ShiftRule::Wrap), Type::I32, &[v, sh]);
    cx.b().int(IntOp::Or, Type::I32, &[acc, s])
}

/// `a <= k` (unsigned) as b1.
fn le(cx: &mut Cx, a: Value, k: u32) -> Value {
    let kk = cx.k32(k);
    cx.b().int(IntOp::Cmp(ICmp::Ule), Type::B1, &[a, kk])
}

/// The T# (four i64) and, for sampling, the S# (two i64) in the IR's gfx10 layout.
pub(super) fn descriptors(cx: &mut Cx, at: &At, rsrc: &Operand, samp: Option<&Operand>) -> Result<Vec<Value>, LiftError> {
    let mut t = Vec::new();
    for k in 0..8 {
        t.push(cx.src32(at, rsrc, k)?);
    }
    // Word 1: base address bits 40..47 stay; FORMAT (renumbered) goes to bits 20..28, WIDTH_LO
    // stays at 30..31.
    let fmt = bits(cx, t[1], 17, 8);
    let low = le(cx, fmt, 29);
    let fmt_hi = cx.k32(14);
    let shifted = cx.b().int(IntOp::Add(isabridge_ir::ops::int::Overflow::Wrap), Type::I32, &[fmt, fmt_hi]);
    let k41 = cx.k32(41);
    let above = cx.b().int(IntOp::Cmp(ICmp::Ugt), Type::B1, &[fmt, k41]);
    let in_hi = le(cx, fmt, 63);
    let hi_ok = cx.b().int(IntOp::And, Type::B1, &[above, in_hi]);
    let zero = cx.k32(0);
    let f10 = cx.b().select(Type::I32, hi_ok, shifted, zero);
    let f10 = cx.b().select(Type::I32, low, fmt, f10);
    // Fields that must fit the gfx10 widths, else the format becomes 0.
    let width_hi = bits(cx, t[2], 0, 14);
    let height = bits(cx, t[2], 14, 16);
    let depth = bits(cx, t[4], 0, 14);
    let base_array = bits(cx, t[4], 16, 14);
    let base_level = bits(cx, t[1], 25, 5);
    let last_level = bits(cx, t[3], 15, 5);
    let mut fits = le(cx, width_hi, 0xfff);
    for (v, max) in [(height, 0x3fff), (depth, 0x1fff), (base_array, 0x1fff), (base_level, 15), (last_level, 15)] {
        let c = le(cx, v, max);
        fits = cx.b().int(IntOp::And, Type::B1, &[fits, c]);
    }
    let f10 = cx.b().select(Type::I32, fits, f10, zero);
    let keep1 = cx.k32(0xc000_00ff);
    let w1 = cx.b().int(IntOp::And, Type::I32, &[t[1], keep1]);
    let w1 = put(cx, w1, f10, 20);
    let w2 = put(cx, width_hi, height, 14);
    // Word 3: channel selects (0..11), SW_MODE (20..24), BC_SWIZZLE and TYPE stay; BASE_LEVEL
    // and LAST_LEVEL go to 12..15 and 16..19.
    let keep3 = cx.k32(0xfff0_0fff);
    let w3 = cx.b().int(IntOp::And, Type::I32, &[t[3], keep3]);
    let w3 = put(cx, w3, base_level, 12);
    let w3 = put(cx, w3, last_level, 16);
    let w4 = put(cx, depth, base_array, 16);
    let words = [t[0], w1, w2, w3, w4, t[5], t[6], t[7]];
    let mut out = Vec::new();
    for k in 0..4 {
        out.push(cx.join64(words[2 * k], words[2 * k + 1]));
    }
    if let Some(samp) = samp {
        let mut s = Vec::new();
        for k in 0..4 {
            s.push(cx.src32(at, samp, k)?);
        }
        let min_lod = bits(cx, s[1], 0, 13);
        let max_lod = bits(cx, s[1], 13, 13);
        let cap = cx.k32(0xfff);
        let min_lod = cx.b().int(IntOp::Min(false), Type::I32, &[min_lod, cap]);
        let max_lod = cx.b().int(IntOp::Min(false), Type::I32, &[max_lod, cap]);
        let keep = cx.k32(0xf000_0000);
        let w1 = cx.b().int(IntOp::And, Type::I32, &[s[1], keep]);
        let w1 = cx.b().int(IntOp::Or, Type::I32, &[w1, min_lod]);
        let w1 = put(cx, w1, max_lod, 12);
        out.push(cx.join64(s[0], w1));
        out.push(cx.join64(s[2], s[3]));
    }
    Ok(out)
}

/// An encoding field's value (modifier, or a field operand).
fn field(at: &At, name: &str) -> Option<u64> {
    at.inst.named(name).or_else(|| {
        at.inst.operands.iter().find(|o| o.field == name).and_then(|o| match o.kind {
            OperandKind::Field { value, .. } => Some(value),
            _ => None,
        })
    })
}

fn export(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    if field(at, "ROW").unwrap_or(0) != 0 {
        return Err(cx.unsupported(at, "row exports (row_en) do not lift"));
    }
    let t = field(at, "TARGET").unwrap_or(0);
    if !matches!(t, 0..=9 | 12..=15) {
        return Err(cx.unsupported(at, "gfx12 export targets other than mrt0-7, mrtz, null, pos0-3"));
    }
    super::stage::export(cx, at)
}

/// The mask of the lanes of every quad that has an active lane.
fn whole_quads(cx: &mut Cx) -> Value {
    let exec = cx.exec();
    let x = cx.b().bitcast(Type::I64, exec);
    let mut any = x;
    for k in [1u64, 2] {
        let sh = cx.k(Type::I64, k);
        let t = cx.b().int(IntOp::Shr(false, ShiftRule::Wrap), Type::I64, &[any, sh]);
        any = cx.b().int(IntOp::Or, Type::I64, &[any, t]);
    }
    let lsb = cx.k(Type::I64, 0x1111_1111_1111_1111);
    let q = cx.b().int(IntOp::And, Type::I64, &[any, lsb]);
    let f = cx.k(Type::I64, 0xf);
    let w = cx.b().int(IntOp::MulLo, Type::I64, &[q, f]);
    cx.b().bitcast(Type::Mask, w)
}

fn param_load(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let d = at.field("VDST").copied().ok_or_else(|| cx.unsupported(at, "no VDST"))?;
    let a = field(at, "ATTR").unwrap_or(0) as u32;
    let c = field(at, "ATTRCHAN").unwrap_or(0) as u32;
    let mut p = Vec::new();
    for k in 0..3 {
        p.push(cx.b().param(ATTR_INPUT_BASE + 12 * a + 3 * c + k, Type::I32));
    }
    let lane = cx.b().lane(LaneOp::LaneId, Type::I32, &[]);
    let three = cx.k32(3);
    let k = cx.b().int(IntOp::And, Type::I32, &[lane, three]);
    let mut r = cx.k32(0);
    for (i, v) in p.into_iter().enumerate() {
        let ki = cx.k32(i as u32);
        let is = cx.b().int(IntOp::Cmp(ICmp::Eq), Type::B1, &[k, ki]);
        r = cx.b().select(Type::I32, is, v, r);
    }
    let m = whole_quads(cx);
    cx.def_v32(at, &d, 0, r, m)
}

fn direct_load(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let d = at.field("VDST").copied().ok_or_else(|| cx.unsupported(at, "no VDST"))?;
    let m0 = cx.rd(super::M0);
    let addr = bits(cx, m0, 0, 16);
    let ty = bits(cx, m0, 16, 3);
    let m = whole_quads(cx);
    let w = cx.b().ins(Op::Mem(MemOp::Load(Space::Shared)), &[addr, m], Some(Type::I32));
    let narrow = |cx: &mut Cx, w: Value, bits_: u32, signed: bool| {
        let sh = cx.k32(32 - bits_);
        let l = cx.b().int(IntOp::Shl(ShiftRule::Wrap), Type::I32, &[w, sh]);
        cx.b().int(IntOp::Shr(signed, ShiftRule::Wrap), Type::I32, &[l, sh])
    };
    let mut r = w;
    for (code, b, s) in [(0u32, 8u32, false), (1, 16, false), (4, 8, true), (5, 16, true)] {
        let v = narrow(cx, w, b, s);
        let kc = cx.k32(code);
        let is = cx.b().int(IntOp::Cmp(ICmp::Eq), Type::B1, &[ty, kc]);
        r = cx.b().select(Type::I32, is, v, r);
    }
    cx.def_v32(at, &d, 0, r, m)
}

/// Source `op` of lane 4q + `k` of each quad, whatever EXEC holds.
fn quad_lane(cx: &mut Cx, at: &At, op: &Operand, k: u32) -> Result<Value, LiftError> {
    let v = cx.src32(at, op, 0)?;
    let sel = (0..8).fold(0u32, |s, l| s | ((l & 4) + k) << (3 * l));
    let all = cx.k(Type::Mask, u64::MAX);
    let zero = cx.k32(0);
    Ok(cx.b().lane(LaneOp::Dpp(Dpp::Lanes8(sel), true), Type::I32, &[v, zero, all]))
}

/// An f16 half of `w` converted exactly to f32.
fn half_f32(cx: &mut Cx, w: Value, high: bool) -> Value {
    let h = super::vop3p::half(cx, w, high);
    let h = cx.b().bitcast(fty(FFmt::F16), h);
    let mut m = conv_mode(cx, FFmt::F32);
    m.ftz_in = conv_mode(cx, FFmt::F16).ftz_in;
    m.ftz_out = false;
    cx.b().conv(ConvOp::FToF { mode: m, satfinite: false }, Type::F32, h)
}

fn interp(cx: &mut Cx, at: &At) -> Result<(), LiftError> {
    let name = at.inst.name;
    let (p2, f16, rtz) = (name.contains("_P2_"), name.contains("_F16_"), name.contains("_RTZ_"));
    if !name.starts_with("V_INTERP_") {
        return Err(cx.unsupported(at, "VINTERP opcode"));
    }
    let valu = Valu::new(cx, at)?;
    let d = at.field("VDST").copied().ok_or_else(|| cx.unsupported(at, "no VDST"))?;
    let s: Vec<Operand> = at.srcs().into_iter().copied().collect();
    if s.len() < 3 {
        return Err(cx.unsupported(at, "interpolation operands"));
    }
    let op_sel = super::vfloat::vop3_op_sel(at) | at.inst.modifiers.iter().find_map(|m| if let Modifier::OpSel(x) = m { Some(*x) } else { None }).unwrap_or(0);
    let read = |cx: &mut Cx, i: usize, lane: Option<u32>| -> Result<Value, LiftError> {
        let w = match lane {
            Some(k) => quad_lane(cx, at, &s[i], k)?,
            None => cx.src32(at, &s[i], 0)?,
        };
        let v = if f16 && !(i == 1 || (i == 2 && p2)) {
            half_f32(cx, w, op_sel >> i & 1 != 0)
        } else {
            cx.b().bitcast(Type::F32, w)
        };
        Ok(source_mods(cx, &s[i], v, FFmt::F32))
    };
    let a = read(cx, 0, Some(if p2 { 2 } else { 1 }))?;
    let b = read(cx, 1, None)?;
    let c = read(cx, 2, if p2 { None } else { Some(0) })?;
    let clamp = at.has(Modifier::Clamp);
    let narrow = f16 && p2;
    let mut m = mode(cx, FFmt::F32, clamp && !narrow);
    if rtz {
        m.round = Round::Rz;
    }
    let fma = FloatOp { kind: FloatKind::Fma, mode: m, fmz: false, relu: false, omod: Omod::None };
    let r = cx.b().float(fma, Type::F32, &[a, b, c]);
    if !narrow {
        let w = cx.b().bitcast(Type::I32, r);
        return cx.def_v32(at, &d, 0, w, valu.mask);
    }
    let mut cm = super::vfloat::conv_mode(cx, FFmt::F16);
    cm.ftz_in = conv_mode(cx, FFmt::F32).ftz_in;
    cm.sat = clamp;
    if rtz {
        cm.round = Round::Rz;
    }
    let h = cx.b().conv(ConvOp::FToF { mode: cm, satfinite: false }, fty(FFmt::F16), r);
    let h = cx.b().bitcast(Type::I16, h);
    let h = cx.b().conv(ConvOp::IToI { signed: false }, Type::I32, h);
    let key = cx.key_of(&d, 0).ok_or_else(|| cx.unsupported(at, "destination"))?;
    let old = cx.rd(key);
    let high = op_sel >> 3 & 1 != 0;
    let (keep, h) = if high {
        let k = cx.k32(16);
        (0xffff, cx.b().int(IntOp::Shl(ShiftRule::Wrap), Type::I32, &[h, k]))
    } else {
        (0xffff_0000, h)
    };
    let km = cx.k32(keep);
    let kept = cx.b().int(IntOp::And, Type::I32, &[old, km]);
    let w = cx.b().int(IntOp::Or, Type::I32, &[kept, h]);
    cx.def_v32(at, &d, 0, w, valu.mask)
}
