//! Integer and float ALU: cross-field spellings the templates cannot express. (Conversions are
//! printed whole by `convert`, video instructions by `video`.)

use crate::nvidia::{rules, Ctx, Text};

/// Applies the ALU rules.
pub fn fix(_ctx: &Ctx, t: &mut Text) {
    rules::single_minus(t);
}
