//! The IR's exact sampling arithmetic (`ops::sample`) on hand-computed dyadic cases: texel
//! positions and LODs in 8-bit fixed point, f32 lerps with their roundings, the LOD of a
//! squared length through the threshold table, and the table itself against f64; cube maps'
//! faces and face coordinates in both forms.

use isabridge_ir::ops::sample::{cube_direction, cube_face_coord, cube_face_slice, len2, lerp, lod_of_len2, max_len2, quantize, LOD_RANGE, LOD_STEPS};

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

fn bits(x: f32) -> u32 {
    x.to_bits()
}

/// Direction form, CUDA's cubemap table: one direction per face (major component, its sign,
/// s and t), then `((s / |m|) + 1) / 2`, all dyadic and exact. (0.5, 4, -1): face 2 (+y), s =
/// x = 0.5, t = z = -1, |m| = 4: u = (0.125 + 1) / 2 = 0.5625, v = (-0.25 + 1) / 2 = 0.375.
#[test]
fn cube_direction_picks_each_face_by_cudas_table() {
    let cases: [([f32; 3], u32, f32, f32); 6] = [
        // +x: s = -z, t = -y.
        ([1.0, 0.5, -0.25], 0, 0.625, 0.25),
        // -x: s = z, t = -y, |m| = 2.
        ([-2.0, 0.5, 1.0], 1, 0.75, 0.375),
        // +y: s = x, t = z.
        ([0.5, 4.0, -1.0], 2, 0.5625, 0.375),
        // -y: s = x, t = -z.
        ([0.5, -4.0, -1.0], 3, 0.5625, 0.625),
        // +z: s = x, t = -y.
        ([-0.5, 0.25, 2.0], 4, 0.375, 0.4375),
        // -z: s = -x, t = -y.
        ([-0.5, 0.25, -2.0], 5, 0.625, 0.4375),
    ];
    for ([x, y, z], face, u, v) in cases {
        assert_eq!(cube_direction(bits(x), bits(y), bits(z)), (face, bits(u), bits(v)), "({x}, {y}, {z})");
    }
}

/// Ties, which CUDA's strict `>` leaves open: z wins over x and y, then y over x; a major
/// component of -0 is the positive face; the zero direction divides 0 by 0 (a NaN
/// coordinate, which `quantize` reads as 0). And one rounding: (3, 1, 0) is face 0 with t =
/// -1: -1/3 rounds to -0x3eaaaaab = -11184811 × 2^-25, plus 1 is 22369621 × 2^-25, a tie
/// between two f32 neighbours that rounds to the even 11184810 × 2^-24, halved exactly.
#[test]
fn cube_direction_ties_and_roundings() {
    // |x| = |y| = |z|: +z; s = x = 1, t = -y = -1.
    assert_eq!(cube_direction(bits(1.0), bits(1.0), bits(1.0)), (4, bits(1.0), bits(0.0)));
    // |x| = |y| > |z|: y, negative: face 3; s = x = 1, t = -z = -0.5.
    assert_eq!(cube_direction(bits(1.0), bits(-1.0), bits(0.5)), (3, bits(1.0), bits(0.25)));
    // |x| = |z| > |y|, z = -2: face 5; s = -x = -2, t = -y = 0: u = 0, v = 0.5.
    assert_eq!(cube_direction(bits(2.0), bits(0.0), bits(-2.0)), (5, bits(0.0), bits(0.5)));
    let (face, u, v) = cube_direction(bits(0.0), bits(0.0), bits(-0.0));
    assert_eq!(face, 4);
    assert!(f32::from_bits(u).is_nan() && f32::from_bits(v).is_nan());
    assert_eq!(quantize(f32::from_bits(u)), 0);
    let want_v = 11184810.0f32 * 2f32.powi(-25);
    assert_eq!(cube_direction(bits(3.0), bits(1.0), bits(0.0)), (0, bits(0.5), bits(want_v)));
    assert_eq!(bits(want_v), 0x3eaa_aaaa);
}

/// Face form (AMD): a face spans [1, 2], so u = x - 1, rounded once (2^-30 - 1 rounds to
/// -1); the third coordinate rounds to nearest even and
/// names layer n >> 3, face n & 7 (slice 6 × layer + face), clamped to the last slice.
#[test]
fn cube_face_form_coordinates_and_slices() {
    assert_eq!(cube_face_coord(bits(1.5)), bits(0.5));
    assert_eq!(cube_face_coord(bits(1.25)), bits(0.25));
    assert_eq!(cube_face_coord(bits(2.0)), bits(1.0));
    assert_eq!(cube_face_coord(bits(0.25)), bits(-0.75));
    assert_eq!(cube_face_coord(bits(2f32.powi(-30))), bits(-1.0));
    for (f, slices, want) in [
        (2.0f32, 6, 2),
        (2.5, 6, 2),
        (3.5, 6, 4),
        (5.0, 6, 5),
        (6.0, 6, 5),
        (-1.0, 6, 0),
        (f32::NAN, 6, 0),
        (f32::INFINITY, 6, 5),
        // Cube arrays: 8 × layer + face.
        (9.0, 12, 7),
        (13.0, 12, 11),
        (8.0, 12, 6),
        (7.0, 12, 7),
        (100.0, 12, 11),
    ] {
        assert_eq!(cube_face_slice(bits(f), slices), want, "{f} of {slices}");
    }
}

/// `img.sample.cubedir` and `img.sample.cube` on the interpreter: a cube of 2×2 R32_FLOAT faces
/// (slice k holds [10k + 1, 10k + 3; 10k + 5, 10k + 7]), bilinear, clamp to the last texel,
/// LOD 0. Direction (0.5, 4, -1) is face 2 at u = 0.5625, v = 0.375: positions 1.125 and 0.75,
/// q = 160 and 64, so 21 × 96/256 + 23 × 160/256 = 22.25, 25 and 27 give 26.25, and
/// 22.25 × 192/256 + 26.25 × 64/256 = 23.25. The face form (1.5625, 1.375, 2) is the same
/// point (23.25); face coordinate 10 (layer 1, face 2: slice 8) clamps to slice 5: 53.25.
/// A direction with an implicit LOD is an error of the op.
#[test]
fn interpreter_samples_cubes_as_one_face() {
    use isabridge_ir::interp::{run, Config, Input, Memory};
    let base = 0x1000u64;
    // T#: format 22 (R32_FLOAT), width 2, height 2, 6 slices, channel selects x, y, z, w.
    let t = [base >> 8 | 22 << 52 | 1 << 62, 1 << 14 | (4 | 5 << 3 | 6 << 6 | 7 << 9) << 32, 5, 0];
    // S#: clamp to the last texel on every axis, LOD range [0, 0], bilinear filters.
    let s = [2 | 2 << 3 | 2 << 6, (1 << 20 | 1 << 22) as u64];
    let bytes: Vec<u8> = (0..6).flat_map(|k| [1f32, 3.0, 5.0, 7.0].map(|v| v + 10.0 * k as f32)).flat_map(|x| x.to_le_bytes()).collect();
    let cfg = Config { wave_size: 32, waves: 1, ..Config::default() };
    let sample = |dim: &str, lod: &str, c: [[f32; 3]; 2]| {
        let text = format!("func @s {{\nbb0:\n  %0: i64 = param 0\n  %1: i64 = param 1\n  %2: i64 = param 2\n  %3: i64 = param 3\n  %4: i64 = param 4\n  %5: i64 = param 5\n  %6: f32 = param 6\n  %7: f32 = param 7\n  %8: f32 = param 8\n  %9: i32 = img.sample.{dim}.c0{lod} %0, %1, %2, %3, %4, %5, %6, %7, %8\n  ret %9\n}}");
        let f = isabridge_ir::text::parse(&text).unwrap();
        let mut inputs: Vec<Input> = t.iter().chain(&s).map(|&w| Input::Uniform(w)).collect();
        inputs.extend((0..3).map(|k| Input::PerLane((0..32).map(|l| c[l % 2][k].to_bits() as u64).collect())));
        run(&f, &cfg, &inputs, Memory { global: vec![(base, bytes.clone())], ..Memory::default() }).map(|o| o.outputs.iter().map(|v| f32::from_bits(v[0] as u32)).collect::<Vec<f32>>())
    };
    let out = sample("cubedir", ".lz", [[0.5, 4.0, -1.0], [-0.5, 0.25, -2.0]]).unwrap();
    // Face 5 at u = 0.625, v = 0.4375: positions 1.25 and 0.875, q = 192 and 96: 51 × 64/256
    // + 53 × 192/256 = 52.5, 55 and 57 give 56.5, then 52.5 × 160/256 + 56.5 × 96/256 = 54.
    assert_eq!(&out[..2], &[23.25, 54.0]);
    let out = sample("cube", ".lz", [[1.5625, 1.375, 2.0], [1.5625, 1.375, 10.0]]).unwrap();
    assert_eq!(&out[..2], &[23.25, 53.25]);
    let e = sample("cubedir", "", [[0.5, 4.0, -1.0], [0.5, 4.0, -1.0]]).unwrap_err();
    assert!(e.to_string().contains("cube by direction"), "{e}");
}
