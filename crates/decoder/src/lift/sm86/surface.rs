//! Surfaces: `SULD.D.BA`, `SUST.D.BA` and `SURED.D.BA` (PTX `suld.b`, `sust.b`, `sured.b`) as
//! the IR's image load, store and atomic ops on a linear surface.
//!
//! Handles. The instruction's last two immediates are the constant bank and the 32-bit word
//! index of the surface handle: `0x0, 0x5e` reads `c[0x0][0x178]`, the parameter `s3` of
//! fixtures/nvidia/src/texsurf.cu `surfaces` (its parameters start at 0x160: `s1` 0x5a, `s2`
//! 0x5c, `s3` 0x5e, `sa` 0x60 in fixtures/nvidia/listings/texsurf.sm86.txt). NVIDIA's driver
//! owns the header tables such a handle indexes; the IR names no driver, so the binding is
//! explicit instead: **a handle is the global address of the IR image descriptor (the 256-bit
//! T# of `isabridge_ir::ops::image`, eight little-endian words) that describes the surface**.
//! The runner writes that descriptor and passes its address (zero-extended from the 32 bits
//! the instruction reads) as the kernel's surface object. Bank numbers other than 0 stay a
//! typed error. sm_50 (`SULD.D.BA.1D.TRAP R27, [R4], 0x52`) names only the word index, in
//! bank 0: 0x52 is `s1` at 0x148 in fixtures/nvidia/listings/texsurf.sm50.txt (parameters from
//! 0x140); the same file also serves `lift::sm50`.
//!
//! Coordinates. `[Ra]` names the first of consecutive registers: x in Ra, y in Ra+1, the third
//! coordinate (3D depth, 2D-array slice) in Ra+2. texsurf.sm86 loads x into R4, y into R5 and z
//! into R6 before every `SULD [R4]` (texsurf.sm50 likewise), also for `suld.b.a2d` whose PTX vector is `{z, x, y}`:
//! the slice comes last. `.BA` makes x a byte offset: the texel is x / (the access size), the
//! access size being the texel size of the surface format the runner's descriptor must give
//! (32-bit accesses: one 32-bit UINT channel; `.64`: two; `.128`: four; `.U8`: one 8-bit UINT
//! channel). An x that is not a multiple of the access size addresses the texel that holds
//! its first byte (the IR's choice: no hardware measurement covers misaligned x).
//!
//! Formatted stores (`SUST.P`, PTX `sust.p`): ptxas 12.9 gives (kernel `surf_p` of fixtures/nvidia/tex/surface.ptx and
//! a probe with each vector size)
//! `sust.p.2d.v4.b32.trap [s, {x, y}], {a, b, c, d}` as `SUST.P.2D.TRAP [R6], R4, 0x50` with x,
//! y in R6, R7 and a-d in R4-R7, the `.v2` / scalar forms as `.RG` / `.R` with as many data
//! registers, and no `.BA`: x passes unchanged, so coordinates are elements (as the loads'
//! `.BA` x is bytes). Each data word is one channel, which the IR image store converts to the
//! descriptor's format (PTX: the surface's format decides how the `.b32` data is read); the
//! other channels keep their bits.
//!
//! Out of range (PTX ISA, "Surface Instructions": `suld`, `sust`, `sured` clamp modes). The
//! SASS suffix is PTX's mode, as texsurf.cu / texsurf.sm86 pair them: `.trap` -> `.TRAP`,
//! `.clamp` -> no suffix, `.zero` -> `.IGN`.
//! - `.IGN` (`.zero`): loads read zero, stores and reductions are dropped: the IR image op's
//!   own out-of-range rule, so the op is emitted as is.
//! - `.TRAP`: any active lane whose coordinate is outside the surface (x, y, z compared
//!   unsigned with the level-0 sizes of the descriptor, `img.resinfo`) traps with
//!   [`SURFACE_TRAP`] before the access.
//! - no suffix (`.clamp`): each coordinate is clamped (signed) to [0, size - 1] in texels, the
//!   nearest surface location, then accessed.

use super::{At, Cx};
use crate::lift::LiftError;
use crate::operand::{Operand, OperandKind, RegClass, RegRange};
use isabridge_ir::ops::control::SyncOp;
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::image::{ImageDim, ImageKind, ImageOp, LodMode};
use isabridge_ir::ops::int::{ICmp, IntOp, ShiftRule};
use isabridge_ir::ops::mem::{AtomicKind, MemOp, Space};
use isabridge_ir::ops::Op;
use isabridge_ir::{Type, Value};

/// The trap code of a `.TRAP` surface access out of range.
pub const SURFACE_TRAP: u16 = 0x5355;

/// Lift `at` if it belongs to this family.
pub(crate) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    Some(match name {
        "SULD" => access(cx, at, Kind::Load),
        "SUST" => access(cx, at, Kind::Store),
        "SURED" => access(cx, at, Kind::Reduce),
        _ => return None,
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Load,
    Store,
    Reduce,
}

/// Out-of-range behaviour.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Range {
    Trap,
    Ignore,
    Clamp,
}

/// An IR image op with the fields a surface access uses.
fn image(kind: ImageKind, dim: ImageDim, chan: u8, comp: u8) -> ImageOp {
    ImageOp { kind, dim, chan, comp, lod: LodMode::Lod, mip: false, clamp: false, compare: false, offset: false, unorm: false, d16: false }
}

/// The surface descriptor words of the handle the instruction names: four i64.
pub(crate) fn descriptor(cx: &mut Cx, at: &At, bank: Option<&Operand>, index: &Operand) -> Result<[Value; 4], LiftError> {
    let bank = bank.map_or(OperandKind::Imm(0), |b| b.kind);
    let (OperandKind::Imm(0), OperandKind::Imm(k)) = (bank, index.kind) else {
        return Err(cx.unsupported(at, "surface or texture handle outside constant bank 0 (meaning not derived)"));
    };
    let off = cx.k32((k as u32).wrapping_mul(4));
    let h = cx.b().load(MemOp::Load(Space::Constant(0)), Type::I32, off);
    let addr = cx.b().conv(ConvOp::IToI { signed: false }, Type::I64, h);
    let mut words = [addr; 4];
    for (k, w) in words.iter_mut().enumerate() {
        let o = cx.k(Type::I64, 8 * k as u64);
        let a = cx.b().int(IntOp::Add(isabridge_ir::ops::int::Overflow::Wrap), Type::I64, &[addr, o]);
        *w = super::mem::mem_op(cx, MemOp::Load(Space::Global), &[a], Some(Type::I64));
    }
    Ok(words)
}

/// Register `first + k` of a register range as an operand.
fn reg(r: RegRange, k: u16, like: &Operand) -> Operand {
    Operand { kind: OperandKind::Reg(RegRange { class: r.class, first: r.first + k, count: 1 }), ..*like }
}

/// The mnemonic's suffixes as the ISA's printer spells them (`SULD.D.BA.1D.TRAP` gives `D`,
/// `BA`, `1D`, `TRAP`): the spelling of the listings the rules above come from, on sm_50 and
/// sm_86 alike.
struct Suffixes(String);

impl Suffixes {
    fn of(cx: &Cx, at: &At) -> Suffixes {
        let mut text = String::new();
        cx.isa.plugin().print(at.d, at.inst.addr, &mut text);
        let m = text.split_whitespace().find(|w| !w.starts_with('@')).unwrap_or("");
        Suffixes(m.split_once('.').map_or("", |(_, s)| s).to_string())
    }
    fn has(&self, s: &str) -> bool {
        self.0.split('.').any(|x| x == s)
    }
    fn one_of<'n>(&self, names: &[&'n str]) -> Option<&'n str> {
        self.0.split('.').find_map(|x| names.iter().find(|n| **n == x).copied())
    }
}

fn access(cx: &mut Cx, at: &At, kind: Kind) -> Result<(), LiftError> {
    let sfx = Suffixes::of(cx, at);
    // A formatted store (`SUST.P`, see the module comment): element coordinates, one data
    // register per channel that the suffix names.
    let formatted = kind == Kind::Store && sfx.has("P") && !sfx.has("BA") && !sfx.has("D");
    if !formatted && (!sfx.has("BA") || !sfx.has("D")) {
        return Err(cx.unsupported(at, "formatted .P load or reduction, or element-addressed surface access: how its register data packs into the surface format is not derived"));
    }
    let dim = match sfx.one_of(&["1D", "2D", "3D", "1D_ARRAY", "2D_ARRAY", "1D_BUFFER"]) {
        Some("1D") => ImageDim::D1,
        Some("2D") => ImageDim::D2,
        Some("3D") => ImageDim::D3,
        Some("2D_ARRAY") => ImageDim::D2Array,
        _ => return Err(cx.unsupported(at, "surface dimension other than 1D, 2D, 3D, 2D_ARRAY (register layout not derived)")),
    };
    let range = match sfx.one_of(&["TRAP", "IGN"]) {
        Some("TRAP") => Range::Trap,
        Some(_) => Range::Ignore,
        None => Range::Clamp,
    };
    // (texel bytes as log2, 32-bit words moved)
    let (shift, words) = match sfx.one_of(&["U8", "S8", "U16", "S16", "64", "128", "R", "RG", "RGB", "RGBA"]) {
        _ if formatted => match sfx.one_of(&["R", "RG", "RGB", "RGBA", "U8", "S8", "U16", "S16", "64", "128"]) {
            Some("R") => (0, 1),
            Some("RG") => (0, 2),
            Some("RGB") => (0, 3),
            None | Some("RGBA") => (0, 4),
            _ => return Err(cx.unsupported(at, "formatted surface store with a size suffix (not derived)")),
        },
        None => (2u32, 1u16),
        Some("64") => (3, 2),
        Some("128") => (4, 4),
        Some("U8") if kind == Kind::Load => (0, 1),
        _ => return Err(cx.unsupported(at, "surface access size (signed or 16-bit sub-word forms not derived)")),
    };
    let ops: Vec<&Operand> = at.inst.explicit().collect();
    // sm_86 names the handle by bank and word index, sm_50 by the word index alone.
    let (mem, data, bank, index) = match (kind, &ops[..]) {
        (Kind::Load, [d, m, b, i]) => (*m, *d, Some(*b), *i),
        (Kind::Load, [d, m, i]) => (*m, *d, None, *i),
        (_, [m, d, b, i]) if kind != Kind::Load => (*m, *d, Some(*b), *i),
        (_, [m, d, i]) if kind != Kind::Load => (*m, *d, None, *i),
        _ => return Err(cx.unsupported(at, "surface operand shape")),
    };
    let OperandKind::Mem { base: Some(ra), ubase: None, offset: 0 } = mem.kind else {
        return Err(cx.unsupported(at, "surface coordinate operand other than [Ra]"));
    };
    let OperandKind::Reg(rd) = data.kind else {
        return Err(cx.unsupported(at, "surface data operand other than a register"));
    };
    if ra.class != RegClass::R || rd.class != RegClass::R {
        return Err(cx.unsupported(at, "surface operands in uniform registers"));
    }
    let atomic = if kind == Kind::Reduce {
        let signed = sfx.has("S32");
        Some(match sfx.one_of(&["ADD", "MIN", "MAX", "AND", "OR", "XOR", "INC", "DEC", "EXCH"]) {
            Some("ADD") => AtomicKind::Add,
            Some("MIN") => AtomicKind::Min(signed),
            Some("MAX") => AtomicKind::Max(signed),
            Some("AND") => AtomicKind::And,
            Some("OR") => AtomicKind::Or,
            Some("XOR") => AtomicKind::Xor,
            Some("INC") => AtomicKind::Inc,
            Some("DEC") => AtomicKind::Dec,
            Some("EXCH") => AtomicKind::Exch,
            _ => return Err(cx.unsupported(at, "surface reduction operation")),
        })
    } else {
        None
    };
    if atomic.is_some() && words != 1 {
        return Err(cx.unsupported(at, "64-bit surface reduction (the IR's image atomics are 32-bit)"));
    }
    let t = descriptor(cx, at, bank, index)?;
    let mut coords = Vec::new();
    for k in 0..dim.coords() as u16 {
        coords.push(cx.word(at, &reg(ra, k, mem), 0)?);
    }
    if shift != 0 {
        let s = cx.k32(shift);
        coords[0] = cx.b().int(IntOp::Shr(true, ShiftRule::Clamp), Type::I32, &[coords[0], s]);
    }
    let mask = cx.guard_mask();
    if range != Range::Ignore {
        let zero = cx.k32(0);
        let mut out = None;
        for (k, c) in coords.iter_mut().enumerate() {
            let mut args = t.to_vec();
            args.push(zero);
            args.extend(mask);
            let size = cx.b().ins(Op::Image(image(ImageKind::ResInfo, dim, k as u8, 0)), &args, Some(Type::I32));
            if range == Range::Clamp {
                let one = cx.k32(1);
                let last = cx.b().int(IntOp::Sub(isabridge_ir::ops::int::Overflow::Wrap), Type::I32, &[size, one]);
                let lo = cx.b().int(IntOp::Max(true), Type::I32, &[*c, zero]);
                *c = cx.b().int(IntOp::Min(true), Type::I32, &[lo, last]);
            } else {
                let o = cx.b().int(IntOp::Cmp(ICmp::Uge), Type::B1, &[*c, size]);
                out = Some(match out {
                    None => o,
                    Some(p) => cx.b().int(IntOp::Or, Type::B1, &[p, o]),
                });
            }
        }
        if let Some(mut o) = out {
            if let Some(g) = cx.guard {
                o = cx.b().int(IntOp::And, Type::B1, &[o, g]);
            }
            let yes = cx.f.add_block();
            let after = cx.f.add_block();
            cx.b().branch(o, yes, after);
            cx.block = yes;
            cx.b().ins(Op::Sync(SyncOp::Trap(SURFACE_TRAP)), &[], None);
            cx.b().jump(after);
            cx.block = after;
        }
    }
    let mut args = t.to_vec();
    args.extend(&coords);
    match kind {
        Kind::Load => {
            for k in 0..words {
                let mut a = args.clone();
                a.extend(mask);
                let v = cx.b().ins(Op::Image(image(ImageKind::Load, dim, k as u8, 0)), &a, Some(Type::I32));
                cx.def_word(at, &reg(rd, k, data), 0, v)?;
            }
        }
        Kind::Store => {
            for k in 0..4 {
                let v = if k < words { cx.word(at, &reg(rd, k, data), 0)? } else { cx.k32(0) };
                args.push(v);
            }
            args.extend(mask);
            cx.b().ins(Op::Image(image(ImageKind::Store, dim, 0, ((1u16 << words) - 1) as u8)), &args, None);
        }
        Kind::Reduce => {
            let v = cx.word(at, &reg(rd, 0, data), 0)?;
            args.push(v);
            args.extend(mask);
            let a = atomic.ok_or_else(|| cx.unsupported(at, "surface reduction operation"))?;
            cx.b().ins(Op::Image(image(ImageKind::Atomic(a), dim, 0, 0)), &args, Some(Type::I32));
        }
    }
    Ok(())
}
