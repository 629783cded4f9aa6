//! Per-lane evaluation of pure operations: shared by the interpreter and constant folding, so
//! both compute the same bits.

use crate::ops::conv::Elem;
use crate::ops::Op;
use crate::soft::approx;
use crate::types::{Scalar, Type};

fn elem_kind(s: Scalar) -> Elem {
    match s {
        Scalar::F(f) => Elem::F(f),
        s => Elem::I(s.bits()),
    }
}

fn get(v: u64, bits: u32, i: u32) -> u64 {
    let m = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
    (v >> (bits * i)) & m
}

/// Evaluate a pure op on one lane. `ty` is the result type, `src` the first operand's type.
/// Returns None for ops that are not pure per-lane computations.
pub fn eval_pure(op: &Op, ty: Type, src: Type, args: &[u64]) -> Option<u64> {
    let a = |i: usize| args.get(i).copied().unwrap_or(0);
    let n = ty.lanes();
    let eb = ty.elem().bits();
    let map = |f: &dyn Fn(u64, u64, u64, u64) -> u64| -> u64 {
        if n == 1 {
            return f(a(0), a(1), a(2), a(3));
        }
        let mut r = 0u64;
        for i in 0..n {
            let x = f(get(a(0), eb, i), get(a(1), eb, i), get(a(2), eb, i), get(a(3), eb, i));
            r |= (x & get(u64::MAX, eb, 0)) << (eb * i);
        }
        r
    };
    let r = match op {
        Op::Const(c) => *c,
        Op::Undef => 0,
        Op::Float(f) if matches!(f.kind, crate::ops::float::FloatKind::BlockDot(_)) => f.eval_args(ty.float()?, args),
        Op::Float(f) => {
            let fmt = ty.float()?;
            map(&|x, y, z, _| f.eval(fmt, x, y, z))
        }
        Op::FDiv(d) => {
            let fmt = src.float()?;
            if n != 1 {
                return None;
            }
            d.eval(fmt, a(0), a(1), a(2), a(3))
        }
        Op::FCmp(c, ftz) => {
            let fmt = src.float()?;
            c.eval(fmt, *ftz, a(0), a(1)) as u64
        }
        Op::Int(i) => {
            let bits = src.elem().bits();
            if matches!(i, crate::ops::int::IntOp::Cmp(_)) {
                i.eval(bits, a(0), a(1), a(2), a(3))
            } else {
                map(&|x, y, z, w| i.eval(eb, x, y, z, w))
            }
        }
        Op::Conv(c) => {
            let (se, de) = (elem_kind(src.elem()), elem_kind(ty.elem()));
            let sb = src.elem().bits();
            let mut r = 0u64;
            for i in 0..n {
                r |= c.eval(se, de, get(a(0), sb, i)) << (eb * i);
            }
            r
        }
        Op::Approx(f, ftz) => {
            let fmt = ty.float()?;
            map(&|x, _, _, _| approx::eval(*f, fmt, *ftz, x))
        }
        Op::Select => {
            if a(0) & 1 != 0 {
                a(1)
            } else {
                a(2)
            }
        }
        Op::Bitcast => a(0),
        Op::Build => {
            let mut r = 0;
            for i in 0..n {
                r |= get(a(i as usize), eb, 0) << (eb * i);
            }
            r
        }
        Op::Extract(i) => get(a(0), src.elem().bits(), *i as u32),
        Op::Insert(i) => {
            let sb = ty.elem().bits();
            let m = get(u64::MAX, sb, 0) << (sb * *i as u32);
            (a(0) & !m) | ((a(1) << (sb * *i as u32)) & m)
        }
        _ => return None,
    };
    Some(r & ty.mask())
}
