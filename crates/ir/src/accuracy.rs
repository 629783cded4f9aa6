//! How far an approximate result may lie from the hardware's: the error metrics and the
//! documented bounds of the approximate PTX operations, shared by every comparison against
//! the H200 captures (`isabridge conform ptx-rows` and the capture tests).

/// How an approximate op's error is measured against the hardware.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Distance in units in the last place of f32.
    Ulp,
    /// Absolute error, in units of 2^-24.
    Abs24,
    /// The smaller of the ulp distance and the absolute error in units of 2^-24 (for functions
    /// whose result crosses zero, where a relative measure is meaningless).
    UlpOrAbs24,
}

/// The approximate PTX ops and their error bounds in the metric's units: the PTX ISA's
/// documented accuracy of each instruction.
pub const PTX_APPROX: &[(&str, Metric, u64)] = &[
    ("rcp_approx", Metric::Ulp, 1),
    ("rcp_approx_ftz", Metric::Ulp, 1),
    ("sqrt_approx", Metric::Ulp, 2),
    ("rsqrt_approx", Metric::Ulp, 2),
    ("ex2_approx", Metric::Ulp, 2),
    ("ex2_approx_ftz", Metric::Ulp, 2),
    ("lg2_approx", Metric::UlpOrAbs24, 4),
    ("tanh_approx", Metric::UlpOrAbs24, 4096),
    ("sin_approx", Metric::Abs24, 12),
    ("cos_approx", Metric::Abs24, 12),
    ("div_approx", Metric::Ulp, 2),
    ("div_full", Metric::Ulp, 2),
];

/// The f32 bits as a signed position on the number line (ulp distance is a difference).
fn ord(x: u32) -> i64 {
    if x & 0x8000_0000 != 0 {
        -((x & 0x7fff_ffff) as i64)
    } else {
        x as i64
    }
}

fn is_nan32(x: u32) -> bool {
    x & 0x7fff_ffff > 0x7f80_0000
}

/// Error of f32 bits `got` against the hardware's `hw` in `metric`'s units; None when one is a
/// NaN and the other is not (two NaNs are equal).
pub fn error(metric: Metric, hw: u32, got: u32) -> Option<u64> {
    if is_nan32(hw) || is_nan32(got) {
        return (is_nan32(hw) && is_nan32(got)).then_some(0);
    }
    match metric {
        Metric::UlpOrAbs24 => Some(error(Metric::Ulp, hw, got)?.min(error(Metric::Abs24, hw, got)?)),
        Metric::Ulp => Some((ord(hw) - ord(got)).unsigned_abs()),
        Metric::Abs24 => {
            let (h, g) = (f32::from_bits(hw) as f64, f32::from_bits(got) as f64);
            if h.is_infinite() || g.is_infinite() {
                return (h == g).then_some(0);
            }
            Some(((h - g).abs() * (1u64 << 24) as f64).ceil() as u64)
        }
    }
}
