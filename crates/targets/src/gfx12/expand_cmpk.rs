//! `s_cmpk_*` (SOPK compares of an SGPR with a 16-bit constant): gfx1201 has none. Each is the
//! SOPC `s_cmp_*` of the same condition with the constant as its second source, sign-extended
//! for the `_i32` forms and zero-extended for the `_u32` ones, as an inline constant where one
//! holds the value (llvm-mc-22's canonical form) and as a literal otherwise. SCC is written as
//! the gfx1013 instruction writes it; nothing else is.

use super::expand::{emit, plain};
use super::map::{MapKind, MapRow};
use super::{unsupported, TranslateError};
use isabridge_decoder::operand::{ConstType, OperandKind};
use isabridge_decoder::Inst;

/// The expansion of an `s_cmpk_*` row; None for other rows.
pub(super) fn expand(inst: &Inst, r: &MapRow) -> Option<Result<Vec<Inst>, TranslateError>> {
    if r.kind != MapKind::Sequence || !r.gfx10.starts_with("S_CMPK_") {
        return None;
    }
    Some(cmpk(inst, r).map(|i| vec![i]))
}

/// The 32-bit constant `v` as a gfx1201 scalar source: an integer inline constant (-16..=64)
/// or a literal.
fn constant(v: u32) -> OperandKind {
    match v as i32 {
        n @ 0..=64 => OperandKind::InlineConst { code: 128 + n as u16, bits: n as u64, ty: ConstType::Int },
        n @ -16..=-1 => OperandKind::InlineConst { code: (192 - n) as u16, bits: n as i64 as u64, ty: ConstType::Int },
        _ => OperandKind::Literal(v),
    }
}

fn cmpk(inst: &Inst, r: &MapRow) -> Result<Inst, TranslateError> {
    let mut ex = inst.explicit();
    let (Some(reg), Some(imm), None) = (ex.next(), ex.next(), ex.next()) else {
        return Err(unsupported(inst, "s_cmpk operands"));
    };
    let OperandKind::Imm(k) = imm.kind else { return Err(unsupported(inst, "s_cmpk without its 16-bit constant")) };
    let k = k as u16;
    let v = if r.gfx10.ends_with("_I32") { k as i16 as i32 as u32 } else { k as u32 };
    let name = format!("S_CMP_{}", &r.gfx10["S_CMPK_".len()..]);
    emit(inst, &name, "ENC_SOPC", &[plain(reg.kind), plain(constant(v))], &[])
}
