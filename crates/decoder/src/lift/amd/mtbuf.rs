//! Typed buffer memory (MTBUF): `tbuffer_load_format_*` / `tbuffer_store_format_*` (d16 forms
//! included) carry the element format in the instruction's FORMAT field, numbered as the
//! descriptor's format field; addressing and the conversions are those of the formatted MUBUF
//! forms (`mubuf.rs`).

use super::{At, Cx};
use crate::lift::LiftError;
use isabridge_ir::ops::buffer::format_of_code;

/// Lift a typed buffer instruction; None when `name` is not one.
pub(super) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    let rest = name.strip_prefix("TBUFFER_")?;
    let code = at.inst.named("FORMAT").unwrap_or(0);
    let Some(format) = u8::try_from(code).ok().and_then(format_of_code) else {
        return Some(Err(cx.unsupported(at, "typed buffer format field names no element format")));
    };
    super::mubuf::format_form(cx, at, rest, Some(format))
}
