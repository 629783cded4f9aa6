//! Operand printing shared by the AMD generations (LLVM AMDGPU syntax).

use crate::spec::{Operand, Tables};
use std::fmt::Write as _;

/// Prints a register range `v[a:b]` / `s[a:b]` or a single register `v5`.
pub fn reg(out: &mut String, prefix: &str, n: u64, size_bits: u16) {
    let cnt = (size_bits as u64).div_ceil(32).max(1);
    if cnt == 1 {
        let _ = write!(out, "{prefix}{n}");
    } else {
        let _ = write!(out, "{prefix}[{}:{}]", n, n + cnt - 1);
    }
}

/// Generic operand print: predefined name, else the raw value.
pub fn generic<Op>(t: &Tables<Op>, out: &mut String, op: &Operand, w: &[u32]) {
    let v = op.field.as_ref().map(|f| f.get(w)).unwrap_or(0);
    let ty = &t.operand_types[op.ty as usize];
    if let Some(n) = ty.lookup(v as i64) {
        out.push_str(n);
    } else {
        let _ = write!(out, "{v}");
    }
}
