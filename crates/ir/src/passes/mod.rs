//! The pass pipeline. [`pipeline`] lists the passes in order; [`run_pipeline`] runs them with the
//! validator between passes in debug builds and tests.

pub mod const_fold;
pub mod dce;
pub mod simplify_cfg;
pub mod ssa;
mod value_map;

use crate::ir::{Function, Value};
use crate::validate::{validate, ValidateError};
pub(crate) use value_map::{IntMap, ValueMap};

/// A pass: rewrites the function, returns whether it changed anything.
pub type Pass = fn(&mut Function) -> bool;

/// The passes, in the order they run.
pub fn pipeline() -> Vec<(&'static str, Pass)> {
    vec![
        ("ssa", ssa::run as Pass),
        ("const_fold", const_fold::run),
        ("simplify_cfg", simplify_cfg::run),
        ("dce", dce::run),
    ]
}

/// Run the whole pipeline. The input may contain register reads and writes; validation runs
/// after every pass when debug assertions are on (always at the end).
pub fn run_pipeline(f: &mut Function) -> Result<(), ValidateError> {
    for (_, pass) in pipeline() {
        pass(f);
        if cfg!(debug_assertions) {
            validate(f)?;
        }
    }
    validate(f)
}

/// Follow a replacement map to its end.
#[inline]
pub(crate) fn resolve(map: &ValueMap, mut v: Value) -> Value {
    let mut n = 0;
    while let Some(w) = map.get(v) {
        if w == v || n > 1_000_000 {
            break;
        }
        v = w;
        n += 1;
    }
    v
}

/// Rewrite every use (operands and terminators) through a replacement map.
pub(crate) fn replace_uses(f: &mut Function, map: &ValueMap) {
    if map.is_empty() {
        return;
    }
    let Function { layout, blocks, insts, .. } = f;
    for &b in layout.iter() {
        let bd = &mut blocks[b];
        for &v in &bd.insts {
            for a in insts[v].args.iter_mut() {
                *a = resolve(map, *a);
            }
        }
        bd.term.map_uses(|v| resolve(map, v));
    }
}
