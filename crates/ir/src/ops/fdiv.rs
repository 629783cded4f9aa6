//! Division helper ops: the scaling, post-scaled fma and special-case steps that surround a
//! Newton–Raphson quotient (exact definitions in [`crate::soft::divide`]).
//!
//! | op | operands | result |
//! |----|----------|--------|
//! | `fdivscale` | x, den, num (float T) | x scaled by 2^±K, or NaN for a zero den/num |
//! | `fdivflag` | x, den, num (float T) | b1: the quotient of the scaled operands needs post-scaling |
//! | `fdivfmas` | a, b, c (float T), flag (b1) | fma(a, b, c), × 2^±K when flag |
//! | `fdivfixup` | q, den, num (float T) | q with the special cases of num / den applied |
//!
//! T is f32 or f64 (`fdivfixup` also f16); each op but `fdivflag` carries a float mode and an
//! output modifier applied to its rounded result.

use super::float::{apply_omod, FloatKind, FloatOp, Omod};
use crate::soft::{self, divide, FFmt, FloatMode, Round};

/// Which division helper.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FDivKind {
    /// Scale x for the division num / den ([`divide::scale`]).
    Scale,
    /// The post-scaling flag of [`FDivKind::Scale`] ([`divide::scale_flag`]).
    Flag,
    /// fma with post-scaling under a flag ([`divide::fma_post`]).
    Fmas,
    /// The special cases of a quotient ([`divide::fixup`]).
    Fixup,
}

impl FDivKind {
    const ALL: [(FDivKind, &'static str); 4] = [
        (FDivKind::Scale, "fdivscale"),
        (FDivKind::Flag, "fdivflag"),
        (FDivKind::Fmas, "fdivfmas"),
        (FDivKind::Fixup, "fdivfixup"),
    ];
    /// Text name.
    pub fn name(self) -> &'static str {
        FDivKind::ALL.iter().find(|(k, _)| *k == self).map(|(_, n)| *n).unwrap_or("?")
    }
    /// Number of operands.
    pub const fn arity(self) -> usize {
        match self {
            FDivKind::Fmas => 4,
            _ => 3,
        }
    }
    /// Whether the op is defined on values of `fmt`.
    pub fn takes(self, fmt: FFmt) -> bool {
        match self {
            FDivKind::Fixup => matches!(fmt, FFmt::F16 | FFmt::F32 | FFmt::F64),
            _ => divide::scale_k(fmt).is_some(),
        }
    }
}

/// A division helper with its float mode (rounding, FTZ, saturation, NaN rule) and output
/// modifier (applied to the rounded result before saturation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FDivOp {
    /// The helper.
    pub kind: FDivKind,
    /// Rounding, FTZ, saturation and NaN rule.
    pub mode: FloatMode,
    /// Output modifier.
    pub omod: Omod,
}

impl FDivOp {
    /// Evaluate on one element of `fmt` (the operands' format); `flag` is operand 3 of
    /// `fdivfmas`. `fdivflag` gives 0 or 1.
    pub fn eval(&self, fmt: FFmt, a: u64, b: u64, c: u64, flag: u64) -> u64 {
        let mode = FloatMode { sat: false, ..self.mode };
        let r = match self.kind {
            FDivKind::Flag => return divide::scale_flag(fmt, a, b, c) as u64,
            FDivKind::Scale => divide::scale(fmt, &mode, a, b, c),
            FDivKind::Fmas => divide::fma_post(fmt, &mode, a, b, c, flag & 1 != 0),
            FDivKind::Fixup => divide::fixup(fmt, &mode, a, b, c),
        };
        let r = apply_omod(fmt, &mode, self.omod, r);
        if self.mode.sat {
            soft::saturate01(fmt, r)
        } else {
            r
        }
    }

    /// The modifiers as a float op prints them (no rounding shown when it is `rn`).
    fn as_float(&self) -> FloatOp {
        FloatOp { kind: FloatKind::Canon, mode: self.mode, fmz: false, relu: false, omod: self.omod }
    }

    /// Text mnemonic, e.g. `fdivfmas.ftz.omod2.keepnan`.
    pub fn mnemonic(&self) -> String {
        if self.kind == FDivKind::Flag {
            return self.kind.name().into();
        }
        let f = self.as_float().mnemonic();
        format!("{}{}", self.kind.name(), f.strip_prefix("fcanon").unwrap_or(""))
    }

    /// Parse a mnemonic split at dots.
    pub fn parse(base: &str, mods: &[&str]) -> Option<FDivOp> {
        let kind = FDivKind::ALL.iter().find(|(_, n)| *n == base)?.0;
        if kind == FDivKind::Flag {
            return mods.is_empty().then_some(FDivOp::flag());
        }
        let f = FloatOp::parse("fcanon", mods)?;
        if f.fmz || f.relu {
            return None;
        }
        Some(FDivOp { kind, mode: f.mode, omod: f.omod })
    }

    /// The `fdivflag` op (its mode is unused and fixed).
    pub const fn flag() -> FDivOp {
        FDivOp { kind: FDivKind::Flag, mode: FloatMode::nv(Round::Rn), omod: Omod::None }
    }
}
