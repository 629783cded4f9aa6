//! The Maxwell condition code (CC) as this lifter models it: two of its four flags, each an
//! i32 register holding 0 or 1.
//! - Carry ([`CC_CARRY`]): bit 32 of the 33-bit sum an adder with a `.CC` destination formed
//!   (IADD, IADD32I, ISCADD, LEA, LEA.HI). A source negated with `-` enters as `~x + 1`, so a
//!   subtraction without borrow carries out. An instruction with `.X` adds the carry in; its
//!   negated sources enter as `~x` alone (the carry in is the `+ 1` of a borrow-free
//!   subtraction). ptxas 12.9 lowers PTX `sub.s64` / `neg.s64` on sm_50 to
//!   `IADD lo.CC, a, -b` / `IADD.X hi, c, -d` (kernels k_sub64 / k_neg64 of
//!   fixtures/nvidia/lift/cc.sm50.ptx); sm50_cc.rs checks the PTX results on them.
//! - Zero ([`CC_ZERO`]): whether the 32-bit result of that adder is zero. An adder with `.X`
//!   and a `.CC` destination keeps it only while its own result is zero too (the 64-bit zero
//!   test the compares below make); no kernel here shows that chained form.
//! - `ISET.cmp.X` / `ISETP.cmp.X` a, b compare the high words of two 64-bit values whose low
//!   words the adder before them subtracted: the difference a - b - (1 - carry) (in 34 bits,
//!   signed or unsigned by the compare's type) decides LT / GE, and with the zero flag EQ / NE
//!   / LE / GT. ptxas 12.9 lowers PTX `set.cmp.{s64,u64}` and `setp.cmp.{s64,u64}` to
//!   `IADD RZ.CC, lo_a, -lo_b` then `ISET.cmp.X hi_a, hi_b` (k_set64, k_setp64).
//! - The sign flag: bit 31 of the adder's result (no kernel here tests it after an adder).
//!   The other writers (FSET, ISET, I2I, LOP, IMNMX.XHI with a `.CC` destination) and the
//!   tests (CSETP, `BRA CC.cond`, IMNMX.XLO) are in cc_ops.rs; the overflow flag is not
//!   modelled.

use super::{CC_CARRY, CC_SIGN, CC_ZERO};
use crate::lift::sm86::{At, Cx};
use crate::lift::LiftError;
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::int::{ICmp, IntOp, Overflow, ShiftRule};
use isabridge_ir::{Type, Value};

/// Set the carry and zero flags from an adder's i64 sum `s` (its low word is the result);
/// `chained`: the adder read the carry in (`.X`).
pub(crate) fn write_add_flags(cx: &mut Cx, s: Value, chained: bool) {
    let (lo, hi) = cx.split64(s);
    let one = cx.k32(1);
    let c = cx.b().int(IntOp::And, Type::I32, &[hi, one]);
    let zero = cx.k32(0);
    let z = cx.b().int(IntOp::Cmp(ICmp::Eq), Type::I32, &[lo, zero]);
    let mut z = cx.b1_to_i32(z);
    if chained {
        let zin = cx.rd(CC_ZERO);
        z = cx.b().int(IntOp::And, Type::I32, &[z, zin]);
    }
    cx.wr(CC_CARRY, c);
    cx.wr(CC_ZERO, z);
    let k = cx.k32(31);
    let s = cx.b().int(IntOp::Shr(false, ShiftRule::Clamp), Type::I32, &[lo, k]);
    cx.wr(CC_SIGN, s);
}

/// The b1 result of `cmp` (`F`, `LT`, `EQ`, `LE`, `GT`, `NE`, `GE`, `T`) of a 64-bit compare's
/// high words `a`, `b` through the condition code (see the module comment).
pub(crate) fn compare_x(cx: &mut Cx, at: &At, cmp: &str, signed: bool, a: Value, b: Value) -> Result<Value, LiftError> {
    let ext = ConvOp::IToI { signed };
    let a = cx.b().conv(ext, Type::I64, a);
    let b = cx.b().conv(ext, Type::I64, b);
    let c = cx.rd(CC_CARRY);
    let c = cx.b().conv(ConvOp::IToI { signed: false }, Type::I64, c);
    let one = cx.k(Type::I64, 1);
    let d = cx.b().int(IntOp::Sub(Overflow::Wrap), Type::I64, &[a, b]);
    let d = cx.b().int(IntOp::Add(Overflow::Wrap), Type::I64, &[d, c]);
    let d = cx.b().int(IntOp::Sub(Overflow::Wrap), Type::I64, &[d, one]);
    let zero = cx.k(Type::I64, 0);
    let lt = cx.b().int(IntOp::Cmp(ICmp::Slt), Type::I64, &[d, zero]);
    let hi_eq = cx.b().int(IntOp::Cmp(ICmp::Eq), Type::I64, &[d, zero]);
    let z = cx.rd(CC_ZERO);
    let z0 = cx.k32(0);
    let z = cx.b().int(IntOp::Cmp(ICmp::Ne), Type::I32, &[z, z0]);
    let eq = cx.b().int(IntOp::And, Type::B1, &[hi_eq, z]);
    let le = cx.b().int(IntOp::Or, Type::B1, &[lt, eq]);
    Ok(match cmp {
        "LT" => lt,
        "GE" => cx.not1(lt),
        "EQ" => eq,
        "NE" => cx.not1(eq),
        "LE" => le,
        "GT" => cx.not1(le),
        "F" => cx.k(Type::B1, 0),
        "T" => cx.k(Type::B1, 1),
        _ => return Err(cx.unsupported(at, "compare")),
    })
}
