//! Texture instructions (`TEX`, `TLD`, `TLD4`, `TXD`, `TXQ`, `TMML`; sm_50's `TEXS`, `TLDS`,
//! `TLD4S`) are typed errors with the reason: how the results pack into the destination
//! registers under the channel mask (sm_86 writes two register ranges, `TXQ RZ, R7, ...` one of
//! them), the coordinate register layout per dimension, and how a sampler state is bound to a
//! texture handle are not derived from the listings here. The handle itself would resolve like
//! a surface handle (`surface.rs`: the address of an IR image descriptor).

use super::{At, Cx};
use crate::lift::LiftError;

/// Lift `at` if it belongs to this family.
pub(crate) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    match name {
        "TEX" | "TLD" | "TLD4" | "TXD" | "TXQ" | "TMML" | "TEXS" | "TLDS" | "TLD4S" => Some(Err(cx.unsupported(
            at,
            "texture instruction: result register packing under the channel mask, coordinate layout and sampler binding not derived",
        ))),
        _ => None,
    }
}
