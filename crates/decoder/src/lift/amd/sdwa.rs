//! SDWA (sub-dword addressing) forms of VOP1, VOP2 and VOPC. Each of the first two sources is
//! a byte, a word or the whole dword of its register (src_sel), zero-extended, or
//! sign-extended with `sext`; float abs / neg apply after the select. The result goes to a
//! byte, a word or the whole dword of the destination (dst_sel); the other bits are zero
//! (UNUSED_PAD), the result's sign (UNUSED_SEXT) or the register's old bits
//! (UNUSED_PRESERVE). The instruction families read their sources and write their results
//! through [`super::lanes::Valu::src32`] and [`super::Cx::def_v32`], which call in here.

use super::{At, Cx};
use crate::operand::{Modifier, Operand};
use isabridge_ir::ops::int::{IntOp, ShiftRule};
use isabridge_ir::{Type, Value};

/// Bit offset and width of a select value (0-3: BYTE_0-3, 4-5: WORD_0-1); None for DWORD.
fn field(sel: u8) -> Option<(u32, u32)> {
    match sel {
        0..=3 => Some((8 * sel as u32, 8)),
        4 | 5 => Some((16 * (sel as u32 - 4), 16)),
        _ => None,
    }
}

/// Source `i` of an SDWA instruction after its select; `v` unchanged for other encodings,
/// sources past the second, and DWORD selects.
pub(super) fn src(cx: &mut Cx, at: &At, op: &Operand, i: usize, v: Value) -> Value {
    let Some((s0, s1)) = at.inst.modifiers.iter().find_map(|m| if let Modifier::SrcSel(a, b) = m { Some((*a, *b)) } else { None }) else {
        return v;
    };
    let sel = match i {
        0 => s0,
        1 => s1,
        _ => return v,
    };
    let Some((off, width)) = field(sel) else { return v };
    let o = cx.k32(off);
    let w = cx.k32(width);
    cx.b().int(IntOp::Bfe(op.mods.not), Type::I32, &[v, o, w])
}

/// The word an SDWA instruction writes to its destination, from its result `v` and the
/// register's old bits `old`; `v` unchanged for other encodings and DWORD selects.
pub(super) fn dst(cx: &mut Cx, at: &At, old: Value, v: Value) -> Value {
    let Some(sel) = at.inst.modifiers.iter().find_map(|m| if let Modifier::DstSel(s) = m { Some(*s) } else { None }) else {
        return v;
    };
    let Some((off, width)) = field(sel) else { return v };
    let unused = at.inst.modifiers.iter().find_map(|m| if let Modifier::DstUnused(u) = m { Some(*u) } else { None }).unwrap_or(0);
    let zero = cx.k32(0);
    let w = cx.k32(width);
    let o = cx.k32(off);
    let part = cx.b().int(IntOp::Bfe(unused == 1), Type::I32, &[v, zero, w]);
    let placed = cx.b().int(IntOp::Shl(ShiftRule::Wrap), Type::I32, &[part, o]);
    if unused != 2 {
        return placed;
    }
    let keep = cx.k32(!((((1u64 << width) - 1) as u32) << off));
    let kept = cx.b().int(IntOp::And, Type::I32, &[old, keep]);
    cx.b().int(IntOp::Or, Type::I32, &[kept, placed])
}
