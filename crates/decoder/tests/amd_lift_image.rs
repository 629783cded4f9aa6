//! gfx1013 image instructions lifted to the IR's `img.*` ops and interpreted on linear surfaces.
//! The programs were assembled with `llvm-mc-22 -mcpu=gfx1013`; descriptors are built here from
//! the gfx10 T# / S# field layout. Expected values are the IR's definitions stated in
//! `isabridge_ir::ops::image` (UNORM x / 255, bilinear weights, gather order, LOD from the quad's
//! coarse derivatives), which have no AMD hardware measurement behind them; each test names the
//! rule it checks.

use isabridge_decoder::lift::amd::{lift, Options, SystemValue};
use isabridge_decoder::Isa;
use isabridge_ir::interp::{run, Config, Input, InterpError, Memory};

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A gfx10 T# of a linear surface: format, size, last level, channel selects x, y, z, w.
fn tdesc(base: u64, format: u32, w: u32, h: u32, last_level: u32) -> [u32; 8] {
    let sel = 4 | 5 << 3 | 6 << 6 | 7 << 9;
    [
        (base >> 8) as u32,
        (base >> 40) as u32 & 0xff | format << 20 | ((w - 1) & 3) << 30,
        (w - 1) >> 2 | (h - 1) << 14,
        sel | last_level << 16 | 9 << 28,
        0,
        0,
        0,
        0,
    ]
}

/// A gfx10 S#: clamp to the last texel on every axis, LOD range [0, 15], filters.
fn sdesc(linear: bool, mip_filter: u32) -> [u32; 4] {
    let f = linear as u32;
    [2 | 2 << 3 | 2 << 6, (15 * 256) << 12, f << 20 | f << 22 | mip_filter << 26, 0]
}

const IMG_A: u64 = 0x1_0000_0000;
const IMG_B: u64 = 0x1_0001_0000;
const IMG_C: u64 = 0x1_0002_0000;
const IMG_D: u64 = 0x1_0003_0000;

/// Lift `code` for a 32-lane wave with s[0:39] as user SGPRs and run it once.
fn exec(code: &[u32], sgprs: &[u32; 40], global: Vec<(u64, Vec<u8>)>) -> Result<Memory, InterpError> {
    let opts = Options { user_sgprs: 40, vgpr_inputs: vec![SystemValue::LocalIdX], ..Options::default() };
    let f = lift(Isa::Gfx1013, &bytes(code), 0, &opts).expect("lifts");
    let mut ins: Vec<Input> = sgprs.iter().map(|w| Input::Uniform(*w as u64)).collect();
    ins.push(Input::PerLane((0..32).collect()));
    let mem = Memory { global, ..Memory::default() };
    run(&f, &Config::default(), &ins, mem).map(|o| o.memory)
}

fn put(s: &mut [u32; 40], at: usize, words: &[u32]) {
    s[at..at + words.len()].copy_from_slice(words);
}

fn dword(m: &Memory, base: u64, k: usize) -> u32 {
    let (_, b) = m.global.iter().find(|(a, _)| *a == base).unwrap();
    u32::from_le_bytes(b[4 * k..4 * k + 4].try_into().unwrap())
}

/// image_load of an RGBA8 UNORM 2D image (4×1), stored raw into a 32×1 R32G32B32A32_UINT image.
/// Rule: UNORM8 reads x / 255 rounded to f32; x >= width reads 0 in every channel.
#[test]
fn load_unorm8_and_store() {
    let code = [0x7e020280, 0xf0001f08, 0x00020400, 0xf0201f00, 0x00040400, 0xbf810000];
    let texels: Vec<u8> = vec![0, 51, 102, 255, 1, 2, 3, 4, 128, 127, 254, 253, 10, 20, 30, 40];
    let mut s = [0u32; 40];
    put(&mut s, 8, &tdesc(IMG_A, 56, 4, 1, 0));
    put(&mut s, 16, &tdesc(IMG_B, 75, 32, 1, 0));
    let m = exec(&code, &s, vec![(IMG_A, texels.clone()), (IMG_B, vec![0xee; 32 * 16])]).unwrap();
    for lane in 0..32 {
        for c in 0..4 {
            let want = if lane < 4 { ((texels[4 * lane + c] as f64 / 255.0) as f32).to_bits() } else { 0 };
            assert_eq!(dword(&m, IMG_B, 4 * lane + c), want, "lane {lane} channel {c}");
        }
    }
}

/// image_sample_lz (bilinear, clamp to the last texel) of a 2×1 R32_FLOAT image [0, 1] at
/// s = lane / 8: u = 2s - 0.5, value clamp(u, 0, 1). image_gather4_lz of a 2×2 image
/// [[1, 2], [3, 4]] at (s, 0.5): the texels (i0, j1), (i1, j1), (i1, j0), (i0, j0).
#[test]
fn sample_bilinear_and_gather4() {
    let code = [
        0x7e040d00, 0x100404ff, 0x3e000000, 0x7e0602f0, 0xf09c0108, 0x00020402, 0xf0201100, 0x00040400, 0xf11c0108,
        0x00060802, 0xf0201f00, 0x00080800, 0xbf810000,
    ];
    let mut s = [0u32; 40];
    put(&mut s, 0, &sdesc(true, 0));
    put(&mut s, 8, &tdesc(IMG_A, 22, 2, 1, 0));
    put(&mut s, 16, &tdesc(IMG_B, 20, 32, 1, 0));
    put(&mut s, 24, &tdesc(IMG_C, 22, 2, 2, 0));
    put(&mut s, 32, &tdesc(IMG_D, 75, 32, 1, 0));
    let img_a = bytes(&[0f32.to_bits(), 1f32.to_bits()]);
    let img_c = bytes(&[1f32, 2.0, 3.0, 4.0].map(f32::to_bits));
    let m = exec(
        &code,
        &s,
        vec![(IMG_A, img_a), (IMG_B, vec![0; 32 * 4]), (IMG_C, img_c), (IMG_D, vec![0; 32 * 16])],
    )
    .unwrap();
    for lane in 0..32 {
        let u = lane as f32 / 4.0 - 0.5;
        assert_eq!(f32::from_bits(dword(&m, IMG_B, lane)), u.clamp(0.0, 1.0), "sample, lane {lane}");
        // s = lane / 8 on a 2-texel row: i0 = floor(2s - 0.5), clamped into [0, 1].
        let i0 = ((lane as f32 / 4.0 - 0.5).floor() as i32).clamp(0, 1) as usize;
        let i1 = ((lane as f32 / 4.0 - 0.5).floor() as i32 + 1).clamp(0, 1) as usize;
        let at = |i: usize, j: usize| (1 + i + 2 * j) as f32;
        let want = [at(i0, 1), at(i1, 1), at(i1, 0), at(i0, 0)];
        for (c, w) in want.iter().enumerate() {
            assert_eq!(f32::from_bits(dword(&m, IMG_D, 4 * lane + c)), *w, "gather, lane {lane} texel {c}");
        }
    }
}

/// image_atomic_add (glc) on an R32_UINT 4×1 image returns the old value and adds 5; lanes past
/// the width read 0 and change nothing. image_get_resinfo at mip 1 of an 8×4 image with levels
/// 0..=1: width 4, height 2, 0, 2 levels.
#[test]
fn atomic_add_and_resinfo() {
    let code = [
        0x7e020280, 0x7e080285, 0xf0443108, 0x00020400, 0xf0201100, 0x00040400, 0x7e120281, 0xf0381f08, 0x00060509,
        0xf0201f00, 0x00080500, 0xbf810000,
    ];
    let mut s = [0u32; 40];
    put(&mut s, 8, &tdesc(IMG_A, 20, 4, 1, 0));
    put(&mut s, 16, &tdesc(IMG_B, 20, 32, 1, 0));
    put(&mut s, 24, &tdesc(IMG_C, 20, 8, 4, 1));
    put(&mut s, 32, &tdesc(IMG_D, 75, 32, 1, 0));
    let m = exec(
        &code,
        &s,
        vec![(IMG_A, bytes(&[10, 20, 30, 40])), (IMG_B, vec![0xff; 128]), (IMG_C, vec![]), (IMG_D, vec![0; 512])],
    )
    .unwrap();
    for lane in 0..32 {
        let old = if lane < 4 { 10 * (lane as u32 + 1) } else { 0 };
        assert_eq!(dword(&m, IMG_B, lane), old, "atomic return, lane {lane}");
        assert_eq!([0, 1, 2, 3].map(|c| dword(&m, IMG_D, 4 * lane + c)), [4, 2, 0, 2], "resinfo, lane {lane}");
    }
    for x in 0..4 {
        assert_eq!(dword(&m, IMG_A, x), 10 * (x as u32 + 1) + 5);
    }
}

/// image_sample with implicit derivatives: s = lane / 2 on an 8-wide image gives d/dx = 4
/// texels and d/dy = 8 (lane 2 - lane 0 of the quad), LOD log2(8) = 3, clamped to the last
/// level 1 (point mip filter): every lane reads level 1's value 2.0. image_sample_b with bias
/// -4: LOD -1, clamped to the sampler's minimum 0: level 0's value 1.0. A tiled surface (swizzle
/// mode 1) is an error of the op.
#[test]
fn sample_implicit_lod_and_tiled_error() {
    let code = [
        0x7e040d00, 0x100404f0, 0x7e060280, 0x7e0a02f7, 0xf0800108, 0x00020602, 0xf094010a, 0x00020705, 0x00000302,
        0xf0201300, 0x00040600, 0xbf810000,
    ];
    let mut s = [0u32; 40];
    put(&mut s, 0, &sdesc(false, 1));
    put(&mut s, 8, &tdesc(IMG_A, 22, 8, 1, 1));
    put(&mut s, 16, &tdesc(IMG_B, 75, 32, 1, 0));
    let mut img = vec![1f32; 8];
    img.extend([2f32; 4]);
    let img = bytes(&img.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
    let m = exec(&code, &s, vec![(IMG_A, img.clone()), (IMG_B, vec![0; 512])]).unwrap();
    for lane in 0..32 {
        assert_eq!(f32::from_bits(dword(&m, IMG_B, 4 * lane)), 2.0, "implicit LOD, lane {lane}");
        assert_eq!(f32::from_bits(dword(&m, IMG_B, 4 * lane + 1)), 1.0, "biased LOD, lane {lane}");
    }
    s[11] |= 1 << 20;
    let e = exec(&code, &s, vec![(IMG_A, img), (IMG_B, vec![0; 512])]).unwrap_err();
    assert!(matches!(e, InterpError::Unsupported(w) if w.contains("tiled")), "{e}");
}

/// Every image_* instruction of the gfx1013 corpus listing lifts on its own (NSA and range
/// addresses, a16, d16, tfe, dmask, unorm, dim), or fails with a typed error naming it.
#[test]
fn corpus_image_instructions_lift() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/amd/ref");
    let (mut lifted, mut failed) = (0, Vec::new());
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if !p.to_string_lossy().contains("gfx1013") {
            continue;
        }
        for line in std::fs::read_to_string(&p).unwrap().lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let text = v["text"].as_str().unwrap_or("");
            if !text.starts_with("image_") {
                continue;
            }
            let hex = v["bytes"].as_str().unwrap();
            let mut b: Vec<u8> = (0..hex.len() / 2).map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap()).collect();
            b.extend(0xbf810000u32.to_le_bytes());
            match lift(Isa::Gfx1013, &b, 0, &Options::default()) {
                Ok(f) => {
                    isabridge_ir::validate::validate(&f).unwrap();
                    lifted += 1;
                }
                Err(e) => failed.push(format!("{text}: {e}")),
            }
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
    assert_eq!(lifted, 186, "image instructions in the gfx1013 listings");
}

/// Graphics-stage instructions on given stage inputs. Attribute a, channel c, parameter p is
/// input 1024 + 12a + 3c + p: attr0.x has P0 = 1, P10 = 2, P20 = 4, so `v_interp_p1_f32` at
/// i = lane gives fma(i, 2, 1) and `v_interp_p2_f32` at j = 0.5 adds fma(0.5, 4, ·): 2·lane + 3;
/// `v_interp_mov_f32 p0, attr1.y` reads input 1039. Exports are recorded per lane (`compr`
/// splits a register into its 16-bit halves), `done vm` too; each `s_sendmsg` GS message once
/// per wave: emit on stream 0, cut on stream 1, GS done.
#[test]
fn interpolation_exports_and_gs_messages() {
    use isabridge_ir::ops::stage::{Message, StageOp, Target};
    let code = [
        0x7e080d00, 0x7e0a02f0, 0xc8080004, 0xc8090005, 0xc80e0502, 0x7e0c02ff, 0x3c004000, 0xf8000003, 0x00000302,
        0xf8000413, 0x00000006, 0xf8001890, 0x00000000, 0xbf900022, 0xbf900112, 0xbf900003, 0xbf810000,
    ];
    let f = lift(Isa::Gfx1013, &bytes(&code), 0, &Options::default()).expect("lifts");
    let mut ins = vec![Input::Uniform(0); 1024 + 24];
    ins[0] = Input::PerLane((0..32).collect());
    ins[1024] = Input::Uniform(1f32.to_bits() as u64);
    ins[1025] = Input::Uniform(2f32.to_bits() as u64);
    ins[1026] = Input::Uniform(4f32.to_bits() as u64);
    ins[1039] = Input::PerLane((0..32).map(|l| (10.0 * l as f32).to_bits() as u64).collect());
    let o = run(&f, &Config::default(), &ins, Memory::default()).unwrap();
    for lane in 0..32u32 {
        let mine: Vec<(StageOp, u64)> = o.stage.iter().filter(|e| e.thread == lane && !matches!(e.op, StageOp::Message(_))).map(|e| (e.op, e.value)).collect();
        let want = vec![
            (StageOp::Export { target: Target::Mrt(0), chan: 0 }, (2.0 * lane as f32 + 3.0).to_bits() as u64),
            (StageOp::Export { target: Target::Mrt(0), chan: 1 }, (10.0 * lane as f32).to_bits() as u64),
            (StageOp::Export { target: Target::Mrt(1), chan: 0 }, 0x4000),
            (StageOp::Export { target: Target::Mrt(1), chan: 1 }, 0x3c00),
            (StageOp::Done { vm: true }, 0),
        ];
        assert_eq!(mine, want, "lane {lane}");
    }
    let msgs: Vec<(u32, StageOp)> = o.stage.iter().filter(|e| matches!(e.op, StageOp::Message(_))).map(|e| (e.thread, e.op)).collect();
    assert_eq!(
        msgs,
        vec![
            (0, StageOp::Message(Message::Emit(0))),
            (0, StageOp::Message(Message::Cut(1))),
            (0, StageOp::Message(Message::GsDone))
        ]
    );
}

/// An f16 that holds the normal f32 `x` exactly.
fn f16_exact(x: f32) -> u32 {
    let b = x.to_bits();
    let (sign, exp, man) = (b >> 31, (b >> 23 & 0xff) as i32 - 127 + 15, b & 0x7f_ffff);
    assert!((1..31).contains(&exp) && man & 0x1fff == 0, "{x} is not a normal f16");
    sign << 15 | (exp as u32) << 10 | man >> 13
}

/// 16-bit interpolation after the ISA guide's definitions (stage.rs), at i = lane, j = 0.5:
/// attr2.x holds P0 = 1, P10 = 2, P20 = 4 in its low halves, attr2.y P0 = 3, P10 = 0.5,
/// P20 = -2 in its high halves. `v_interp_p1ll_f16` gives the f32 2·lane + 1 and
/// 0.5·lane + 3; `v_interp_p2_f16` the f16 2·lane + 3 and 0.5·lane + 2 in the low half, the
/// high half keeping p1's bits; `v_interp_p1lv_f16 v9, v0, attr0.x, v10 high` takes P10 = 4
/// from attr0.x's high half and P0 = 1 from v10's high half: 4·lane + 1.
#[test]
fn f16_interpolation() {
    use isabridge_ir::ops::stage::{StageOp, Target};
    let code = [
        0x7e000d00, 0x7e0202f0, 0x7e1402ff, 0x3c000000, 0xd7420007, 0x00020002, 0xd7420008, 0x00020142, 0xd75a0007,
        0x041e0202, 0xd75a0008, 0x04220342, 0xd7430009, 0x042a0100, 0xf800180f, 0x09090807, 0xbf810000,
    ];
    let f = lift(Isa::Gfx1013, &bytes(&code), 0, &Options::default()).expect("lifts");
    isabridge_ir::validate::validate(&f).unwrap();
    let mut ins = vec![Input::Uniform(0); 1024 + 36];
    ins[0] = Input::PerLane((0..32).collect());
    let pair = |lo: f32, hi: f32| Input::Uniform((f16_exact(lo) | f16_exact(hi) << 16) as u64);
    ins[1025] = pair(7.0, 4.0); // attr0.x P10
    ins[1048] = pair(1.0, 9.0); // attr2.x P0
    ins[1049] = pair(2.0, 9.0); // attr2.x P10
    ins[1050] = pair(4.0, 9.0); // attr2.x P20
    ins[1051] = pair(9.0, 3.0); // attr2.y P0
    ins[1052] = pair(9.0, 0.5); // attr2.y P10
    ins[1053] = pair(9.0, -2.0); // attr2.y P20
    let o = run(&f, &Config::default(), &ins, Memory::default()).unwrap();
    for lane in 0..32u32 {
        let l = lane as f32;
        let v7 = f16_exact(2.0 * l + 3.0) | (2.0 * l + 1.0).to_bits() & 0xffff_0000;
        let v8 = f16_exact(0.5 * l + 2.0) | (0.5 * l + 3.0).to_bits() & 0xffff_0000;
        let v9 = (4.0 * l + 1.0).to_bits();
        let mine: Vec<(StageOp, u64)> = o.stage.iter().filter(|e| e.thread == lane).map(|e| (e.op, e.value)).collect();
        let want = vec![
            (StageOp::Export { target: Target::Mrt(0), chan: 0 }, v7 as u64),
            (StageOp::Export { target: Target::Mrt(0), chan: 1 }, v8 as u64),
            (StageOp::Export { target: Target::Mrt(0), chan: 2 }, v9 as u64),
            (StageOp::Export { target: Target::Mrt(0), chan: 3 }, v9 as u64),
            (StageOp::Done { vm: true }, 0),
        ];
        assert_eq!(mine, want, "lane {lane}");
    }
}
