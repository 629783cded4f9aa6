//! The AMD MODE register (rounding, denormal, DX10_CLAMP and IEEE fields) and how it maps onto
//! the IR's explicit float semantics.
//!
//! Operand modifiers `abs`/`neg` lower to `fabs.propnan` / `fneg.propnan` (pure sign-bit
//! operations, NaNs included); the result modifiers `omod` and `clamp` are the `omod*` and `sat`
//! fields of the IR's `FloatOp`; `op_sel` picks a 16-bit half, which lowers to `bitcast` to a
//! two-element vector and `extract`/`insert`.

use isabridge_ir::soft::{FFmt, FloatMode, NanRule, Round, Tininess};

/// AMD denormal mode of one format group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Denorm {
    /// Flush input and output denormals.
    FlushInOut,
    /// Keep input denormals, flush output ones.
    FlushOut,
    /// Flush input denormals, keep output ones.
    FlushIn,
    /// Keep denormals.
    None,
}

/// The float fields of the AMD MODE register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AmdMode {
    /// `FP_ROUND[1:0]`: f32 rounding.
    pub round_f32: Round,
    /// `FP_ROUND[3:2]`: f16 and f64 rounding.
    pub round_f16_f64: Round,
    /// `FP_DENORM[1:0]`: f32 denormals.
    pub denorm_f32: Denorm,
    /// `FP_DENORM[3:2]`: f16 and f64 denormals.
    pub denorm_f16_f64: Denorm,
    /// DX10_CLAMP: clamp turns NaN into 0.
    pub dx10_clamp: bool,
    /// IEEE mode: signalling NaNs are quieted and min/max follow IEEE 754-2008.
    pub ieee: bool,
}

fn round_of(bits: u32) -> Round {
    match bits & 3 {
        0 => Round::Rn,
        1 => Round::Rp,
        2 => Round::Rm,
        _ => Round::Rz,
    }
}

fn denorm_of(bits: u32) -> Denorm {
    match bits & 3 {
        0 => Denorm::FlushInOut,
        1 => Denorm::FlushOut,
        2 => Denorm::FlushIn,
        _ => Denorm::None,
    }
}

impl AmdMode {
    /// Decode bits `[9:0]` of the MODE register (FP_ROUND, FP_DENORM, DX10_CLAMP, IEEE).
    pub fn from_bits(v: u32) -> AmdMode {
        AmdMode {
            round_f32: round_of(v),
            round_f16_f64: round_of(v >> 2),
            denorm_f32: denorm_of(v >> 4),
            denorm_f16_f64: denorm_of(v >> 6),
            dx10_clamp: v >> 8 & 1 != 0,
            ieee: v >> 9 & 1 != 0,
        }
    }
    /// The IR float mode of an operation in `fmt` with the clamp bit `clamp`.
    pub fn float_mode(&self, fmt: FFmt, clamp: bool) -> FloatMode {
        let (round, d) = if fmt == FFmt::F32 {
            (self.round_f32, self.denorm_f32)
        } else {
            (self.round_f16_f64, self.denorm_f16_f64)
        };
        FloatMode {
            round,
            ftz_in: matches!(d, Denorm::FlushInOut | Denorm::FlushIn),
            ftz_out: matches!(d, Denorm::FlushInOut | Denorm::FlushOut),
            sat: clamp,
            nan: NanRule::Propagate,
            // RDNA2 F32DenormalFlush: fma(2^-126, -(2^-126 + 2^-149), 2^-126) gives 2^-126 with
            // f32 denormals flushed: the exact result is below 2^-126 but rounds to it.
            tininess: Tininess::AfterRounding,
        }
    }
}
