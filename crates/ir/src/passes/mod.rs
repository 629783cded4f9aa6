//! The pass pipeline. [`pipeline`] lists the passes in order; [`run_pipeline`] runs them with the
//! validator between passes in debug builds and tests.

pub mod const_fold;
pub mod dce;
pub mod simplify_cfg;
pub mod ssa;

use crate::ir::{Function, Value};
use crate::validate::{validate, ValidateError};
use std::collections::HashMap;

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
pub(crate) fn resolve(map: &HashMap<Value, Value>, mut v: Value) -> Value {
    let mut n = 0;
    while let Some(&w) = map.get(&v) {
        if w == v || n > 1_000_000 {
            break;
        }
        v = w;
        n += 1;
    }
    v
}

/// Rewrite every use (operands and terminators) through a replacement map.
pub(crate) fn replace_uses(f: &mut Function, map: &HashMap<Value, Value>) {
    if map.is_empty() {
        return;
    }
    for b in f.layout.clone() {
        for v in f.blocks[b].insts.clone() {
            for a in f.insts[v].args.iter_mut() {
                *a = resolve(map, *a);
            }
        }
        f.blocks[b].term.map_uses(|v| resolve(map, v));
    }
}
