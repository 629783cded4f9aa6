//! The IR's exact sampling arithmetic (`ops::sample`) on hand-computed dyadic cases: texel
//! positions and LODs in 8-bit fixed point, f32 lerps with their roundings, the LOD of a
//! squared length through the threshold table, and the table itself against f64.

use isabridge_ir::ops::sample::{len2, lerp, lod_of_len2, max_len2, quantize, LOD_RANGE, LOD_STEPS};

#[test]
fn quantize_floors_to_eight_fractional_bits() {
    assert_eq!(quantize(1.5), 384);
    assert_eq!(quantize(0.5 + 1.0 / 512.0), 128); // below the next 1/256 step: floored
    assert_eq!(quantize(-1.0 / 1024.0), -1); // floor, not truncation
    assert_eq!(quantize(-0.0), 0);
    assert_eq!(quantize(f32::NAN), 0);
    assert_eq!(quantize(1e30), 1 << 32);
    assert_eq!(quantize(f32::NEG_INFINITY), -(1 << 32));
    // A texel position: s = 0.3 on 4 texels is t = 1.2 (f32 1.20000005), q = floor(307.2) - 128
    // = 179: texel 0 and 1 with a = 179 / 256.
    let q = quantize(0.3f32 * 4.0) - 128;
    assert_eq!((q >> 8, q & 255), (0, 179));
}

#[test]
fn lerp_rounds_each_product_and_the_sum_in_f32() {
    let b = |x: f32| x.to_bits();
    // 1 × 3/4 + 3 × 1/4 = 1.5, exact.
    assert_eq!(lerp(b(1.0), b(3.0), 64), b(1.5));
    // a = 0 is v0 itself, whatever v1 is (a NaN or infinity never reaches the sum).
    assert_eq!(lerp(b(2.0), b(f32::INFINITY), 0), b(2.0));
    // (1 + 2^-23) × 255/256 = 255/256 + 1.99 ulp (ulp 2^-24 there): rounds to 255/256 + 2 ulp.
    assert_eq!(lerp(0x3f80_0001, 0, 1), 0x3f7f_0002);
    // Subnormals are kept: 2 × 2^-149 × 1/2 = 2^-149.
    assert_eq!(lerp(2, 0, 128), 1);
    // NaN operands propagate quieted: the first one.
    assert_eq!(lerp(0x7f80_0001, b(1.0), 128), 0x7fc0_0001);
    // Infinity with a non-zero weight on both sides of opposite sign: the invalid sum's NaN.
    assert!(f32::from_bits(lerp(b(f32::INFINITY), b(f32::NEG_INFINITY), 128)).is_nan());
}

#[test]
fn lod_of_squared_length_is_the_table_search() {
    // m = 4: log2 = 2, 128 × 2 = 256 (LOD 1.0, a length of 2 texels).
    assert_eq!(lod_of_len2(4f32.to_bits()), 256);
    assert_eq!(lod_of_len2(2f32.to_bits()), 128);
    assert_eq!(lod_of_len2(1f32.to_bits()), 0);
    assert_eq!(lod_of_len2(0.25f32.to_bits()), -256);
    // At a threshold, and just below it.
    assert_eq!(lod_of_len2(LOD_STEPS[1]), 1);
    assert_eq!(lod_of_len2(LOD_STEPS[1] - 1), 0);
    assert_eq!(lod_of_len2(LOD_STEPS[127] + 1), 127);
    // The top of [1, 2): j = 127. 2 - 2^-23 lies above 2^(127/128).
    assert_eq!(lod_of_len2(0x3fff_ffff), 127);
    // The smallest subnormal, 2^-149.
    assert_eq!(lod_of_len2(1), -149 * 128);
    assert_eq!(lod_of_len2(0), -LOD_RANGE);
    assert_eq!(lod_of_len2(0x7f80_0000), LOD_RANGE);
    assert_eq!(lod_of_len2(0x7fc0_0000), 0);
}

#[test]
fn squared_lengths_round_in_f32() {
    // (0.01 × 64)^2 + 0: 0.01f32 × 64 = 0.64000001 (exact scaling), squared rounds in f32.
    let g = 0.01f32;
    let want = (g * 64.0) * (g * 64.0);
    assert_eq!(len2(&[g, 0.0], &[64.0, 64.0]), want.to_bits());
    // Sums in axis order: 3² + 4² = 25.
    assert_eq!(len2(&[3.0, 4.0], &[1.0, 1.0]), 25f32.to_bits());
    assert_eq!(max_len2(25f32.to_bits(), 16f32.to_bits()), 25f32.to_bits());
    assert_eq!(max_len2(1, 0x7fc0_0000), 0x7fc0_0000);
}

/// Each threshold is 2^(j/128) rounded to nearest f32: the f64 power (within an f64 ulp or
/// two of the exact value) is far enough from every f32 rounding midpoint that its f32
/// rounding is the exact value's.
#[test]
fn lod_steps_are_the_rounded_powers() {
    for (j, &t) in LOD_STEPS.iter().enumerate() {
        let p = 2f64.powf(j as f64 / 128.0);
        assert_eq!((p as f32).to_bits(), t, "step {j}");
        // Distance to the nearest midpoint between f32 neighbours, in units of the f32 ulp
        // (2^-23 in [1, 2)).
        let ulps = (p - 1.0) * (1u64 << 23) as f64;
        let frac = ulps - ulps.floor();
        assert!((frac - 0.5).abs() > 1e-6, "step {j}: within 1e-6 ulp of a midpoint");
    }
}

/// `img.sample.1d.c0.lz` on the interpreter: a 2×1 R32_FLOAT surface [1.0, 3.0], bilinear,
/// clamp to the last texel. s = 0.3: t = 0.6 (f32 0.60000002), q = floor(153.6) - 128 = 25,
/// so 1 × 231/256 + 3 × 25/256 = 306/256 = 1.1953125 (the unquantized weight 0.1 gave
/// 1.2); s = 0.25: q = 0, texel 0 alone; s = 0.5: q = 128, the mean 2.0; s = 0.9: t = 1.8,
/// q = 332, texel 1 and the clamped texel 2 (= 1): 3.0.
#[test]
fn interpreter_samples_with_quantized_weights() {
    use isabridge_ir::interp::{run, Config, Input, Memory};
    let text = "func @s {\nbb0:\n  %0: i64 = param 0\n  %1: i64 = param 1\n  %2: i64 = param 2\n  %3: i64 = param 3\n  %4: i64 = param 4\n  %5: i64 = param 5\n  %6: f32 = param 6\n  %7: i32 = img.sample.1d.c0.lz %0, %1, %2, %3, %4, %5, %6\n  ret %7\n}";
    let f = isabridge_ir::text::parse(text).unwrap();
    let base = 0x1000u64;
    // T#: base, format 22 (R32_FLOAT), width 2, height 1, channel selects x, y, z, w.
    let t = [base >> 8 | 22 << 52 | 1 << 62, (4 | 5 << 3 | 6 << 6 | 7 << 9) << 32, 0, 0];
    // S#: clamp to the last texel on every axis, LOD range [0, 0], bilinear filters.
    let s = [2 | 2 << 3 | 2 << 6, (1 << 20 | 1 << 22) as u64];
    let coords = [0.3f32, 0.25, 0.5, 0.9];
    let mut inputs: Vec<Input> = t.iter().chain(&s).map(|&w| Input::Uniform(w)).collect();
    inputs.push(Input::PerLane((0..32).map(|l| coords[l % 4].to_bits() as u64).collect()));
    let bytes: Vec<u8> = [1f32, 3.0].iter().flat_map(|x| x.to_le_bytes()).collect();
    let cfg = Config { wave_size: 32, waves: 1, ..Config::default() };
    let out = run(&f, &cfg, &inputs, Memory { global: vec![(base, bytes)], ..Memory::default() }).unwrap();
    let want = [1.1953125f32, 1.0, 2.0, 3.0];
    for (lane, o) in out.outputs.iter().enumerate() {
        assert_eq!(o[0] as u32, want[lane % 4].to_bits(), "lane {lane}");
    }
}
