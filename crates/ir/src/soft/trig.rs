//! Slices of 2/π for the argument reduction of trigonometric functions (Payne–Hanek): the
//! reduction multiplies a huge x by successive 53-bit pieces of 2/π, each scaled to its place.

use super::{finish, round_pack, FFmt, FloatMode, Overflow};

/// floor(2/π × 2^1201): the first 1201 fraction bits of 2/π, least significant 64-bit limb
/// first (2/π = 0.101000101111100110000011011011100100111001000100000101010010100...b).
pub const TWO_OVER_PI_1201: [u64; 19] = [
    0xba10ac06608df8f6,
    0x25d4d7f6bf623f1a,
    0xe2f67a0e73ef14a5,
    0xd45aea4f758fd7cb,
    0x136e9e8c7ecd3cbf,
    0xda3eda6cfd9e4f96,
    0x301fde5e2316b414,
    0x50763ff12fffbc0b,
    0x73e93908bf177bf2,
    0xfc827323ac7306a6,
    0x8909d338e04d68be,
    0x4e7dd1046bea5d76,
    0x2439fc3bd6396253,
    0xa5c00c925dd413a3,
    0x8ac36e48dc74849b,
    0x2083fca2c757bd77,
    0xbb81b6c52b327887,
    0x2a53f84eafa3ea69,
    0x000145f306dc9c88
];

/// Bit i (0 = least significant) of [`TWO_OVER_PI_1201`].
fn bit(i: i64) -> u64 {
    if !(0..1201).contains(&i) {
        return 0;
    }
    TWO_OVER_PI_1201[(i / 64) as usize] >> (i % 64) & 1
}

/// The 53-bit slice of 2/π selected by `seg` (its low 5 bits) for an f64 `x`, as an f64:
/// with e the biased exponent field of x, the slice starts `shift` = 53·seg (+ e - 1077 when
/// e > 1077) bits below the binary point, and its value is that 53-bit integer × 2^(-53 - shift)
/// (× 2^128 more when e >= 1968, keeping the result in range). The sign of x is ignored.
/// Rounded (only when the value is subnormal) and flushed by `mode`.
pub fn two_over_pi_slice(mode: &FloatMode, x: u64, seg: u32) -> u64 {
    let e = (x >> 52 & 0x7ff) as i64;
    let mut shift = (seg & 31) as i64 * 53;
    if e > 1077 {
        shift += e - 1077;
    }
    // Bits 1200 - shift down to 1148 - shift of the 1201-bit integer.
    let mut r: u128 = 0;
    for k in 0..53 {
        r = r << 1 | bit(1200 - shift - k) as u128;
    }
    let mut scale = -53 - shift as i32;
    if e >= 1968 {
        scale += 128;
    }
    if r == 0 {
        return finish(FFmt::F64, mode, 0);
    }
    finish(FFmt::F64, mode, round_pack(FFmt::F64, false, scale, r, false, mode.round, Overflow::Ieee))
}
