//! gfx1201 images, exports, LDS parameter loads, interpolation and the gfx12-only ALU
//! instructions, lifted and interpreted. Code words are `llvm-mc-22 -triple=amdgcn
//! -mcpu=gfx1201 -show-encoding` of the assembly in each test's comment. Descriptors are built
//! here in the gfx12 T# / S# layout (../shared/facts/amd/descriptor_fields_gfx10_gfx11_gfx12.csv,
//! formats from descriptor_enums.csv). Expected values: the image tests repeat the rules of
//! amd_lift_image.rs (the IR's definitions, no hardware measurement); the interpolation ones
//! the ISA guides' operation definitions (see gfx12_image.rs); the float ones IEEE 754-2019
//! (maximumNumber / minimumNumber) and exact arithmetic.

use isabridge_decoder::lift::amd::{lift, Options, SystemValue};
use isabridge_decoder::lift::LiftError;
use isabridge_decoder::Isa;
use isabridge_ir::interp::{run, Config, Input, InterpError, Memory};
use isabridge_ir::ir::{Function, Terminator};
use isabridge_ir::Builder;

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A gfx12 T# of a linear 2D surface: gfx12 IMG_FMT, size, last level, channel selects x, y,
/// z, w.
fn tdesc(base: u64, format: u32, w: u32, h: u32, last_level: u32) -> [u32; 8] {
    let sel = 4 | 5 << 3 | 6 << 6 | 7 << 9;
    [
        (base >> 8) as u32,
        (base >> 40) as u32 & 0xff | format << 17 | ((w - 1) & 3) << 30,
        (w - 1) >> 2 | (h - 1) << 14,
        sel | last_level << 15 | 9 << 28,
        0,
        0,
        0,
        0,
    ]
}

/// A gfx12 S#: clamp to the last texel on every axis, LOD range [0, max_lod] (8 fraction
/// bits), filters.
fn sdesc(linear: bool, mip_filter: u32, max_lod: u32) -> [u32; 4] {
    let f = linear as u32;
    [2 | 2 << 3 | 2 << 6, max_lod << 13, f << 20 | f << 22 | mip_filter << 26, 0]
}

const IMG_A: u64 = 0x1_0000_0000;
const IMG_B: u64 = 0x1_0001_0000;
const IMG_C: u64 = 0x1_0002_0000;
const IMG_D: u64 = 0x1_0003_0000;

/// Lift `code` for a 32-lane wave with s[0:39] as user SGPRs and run it once.
fn exec(code: &[u32], sgprs: &[u32; 40], global: Vec<(u64, Vec<u8>)>) -> Result<Memory, InterpError> {
    let opts = Options { user_sgprs: 40, vgpr_inputs: vec![SystemValue::LocalIdX], ..Options::default() };
    let f = lift(Isa::Gfx1201, &bytes(code), 0, &opts).expect("lifts");
    isabridge_ir::validate::validate(&f).unwrap();
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

/// Make every return give the final values of the named registers.
fn return_regs(f: &mut Function, names: &[&str]) {
    let regs: Vec<_> = names
        .iter()
        .map(|n| {
            let i = f.regs.iter().position(|r| r.name == *n).unwrap_or_else(|| panic!("register {n}"));
            isabridge_ir::ir::Reg(i as u32)
        })
        .collect();
    let exits: Vec<_> = f.layout.iter().copied().filter(|b| matches!(f.blocks[*b].term, Terminator::Return(_))).collect();
    for b in exits {
        let vals: Vec<_> = regs.iter().map(|r| Builder::new(f, b).read_reg(*r)).collect();
        f.blocks[b].term = Terminator::Return(vals);
    }
}

/// The f16 bits of an f32 that f16 holds exactly (normal numbers only).
fn f16_bits(x: f32) -> u32 {
    let b = x.to_bits();
    assert_eq!(b & 0x1fff, 0, "{x} is not an f16");
    let e = (b >> 23 & 0xff) as i32 - 127 + 15;
    assert!((1..31).contains(&e), "{x} is not a normal f16");
    (b >> 16 & 0x8000) | (e as u32) << 10 | (b >> 13 & 0x3ff)
}

/// image_load of an RGBA8 UNORM 2D image (4×1, gfx12 IMG_FMT 42), stored raw into a 32×1
/// R32G32B32A32_UINT image (IMG_FMT 61). Rule: UNORM8 reads x / 255 rounded to f32; x >= width
/// reads 0 in every channel.
#[test]
fn load_unorm8_and_store() {
    // v_mov_b32_e32 v1, 0 ; image_load v[4:7], [v0, v1], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D ;
    // s_wait_loadcnt 0x0 ; image_store v[4:7], [v0, v1], s[16:23] dmask:0xf dim:SQ_RSRC_IMG_2D ; s_endpgm
    let code = [0x7e020280, 0xd3c00001, 0x00001004, 0x00000100, 0xbfc00000, 0xd3c18001, 0x00002004, 0x00000100, 0xbfb00000];
    let texels: Vec<u8> = vec![0, 51, 102, 255, 1, 2, 3, 4, 128, 127, 254, 253, 10, 20, 30, 40];
    let mut s = [0u32; 40];
    put(&mut s, 8, &tdesc(IMG_A, 42, 4, 1, 0));
    put(&mut s, 16, &tdesc(IMG_B, 61, 32, 1, 0));
    let m = exec(&code, &s, vec![(IMG_A, texels.clone()), (IMG_B, vec![0xee; 32 * 16])]).unwrap();
    for lane in 0..32 {
        for c in 0..4 {
            let want = if lane < 4 { ((texels[4 * lane + c] as f64 / 255.0) as f32).to_bits() } else { 0 };
            assert_eq!(dword(&m, IMG_B, 4 * lane + c), want, "lane {lane} channel {c}");
        }
    }
    // A surface the IR's descriptor layout cannot hold (height 20000) is an error of the op,
    // not a read of another surface.
    put(&mut s, 8, &tdesc(IMG_A, 42, 4, 20000, 0));
    assert!(exec(&code, &s, vec![(IMG_A, texels), (IMG_B, vec![0; 32 * 16])]).is_err());
}

/// image_sample_lz (bilinear, clamp to the last texel) of a 2×1 R32_FLOAT image [0, 1] at
/// s = lane / 8: u = 2s - 0.5, value clamp(u, 0, 1). image_gather4_lz of a 2×2 image
/// [[1, 2], [3, 4]] at (s, 0.5): the texels (i0, j1), (i1, j1), (i1, j0), (i0, j0).
#[test]
fn sample_bilinear_and_gather4() {
    // v_cvt_f32_u32_e32 v2, v0 ; v_mul_f32_e32 v2, 0x3e000000, v2 ; v_mov_b32_e32 v3, 0.5 ;
    // image_sample_lz v1, [v2, v3], s[8:15], s[0:3] dmask:0x1 dim:SQ_RSRC_IMG_2D ; v_mov_b32_e32 v4, 0 ;
    // image_store v1, [v0, v4], s[16:23] dmask:0x1 dim:SQ_RSRC_IMG_2D ;
    // image_gather4_lz v[6:9], [v2, v3], s[24:31], s[0:3] dmask:0x1 dim:SQ_RSRC_IMG_2D ;
    // image_store v[6:9], [v0, v4], s[32:39] dmask:0xf dim:SQ_RSRC_IMG_2D ; s_endpgm
    let code = [
        0x7e040d00, 0x100404ff, 0x3e000000, 0x7e0602f0, 0xe447c001, 0x00001001, 0x00000302, 0x7e080280, 0xd0418001,
        0x00002001, 0x00000400, 0xe44c8001, 0x00003006, 0x00000302, 0xd3c18001, 0x00004006, 0x00000400, 0xbfb00000,
    ];
    let mut s = [0u32; 40];
    put(&mut s, 0, &sdesc(true, 0, 15 * 256));
    put(&mut s, 8, &tdesc(IMG_A, 22, 2, 1, 0));
    put(&mut s, 16, &tdesc(IMG_B, 20, 32, 1, 0));
    put(&mut s, 24, &tdesc(IMG_C, 22, 2, 2, 0));
    put(&mut s, 32, &tdesc(IMG_D, 61, 32, 1, 0));
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
        let i0 = ((lane as f32 / 4.0 - 0.5).floor() as i32).clamp(0, 1) as usize;
        let i1 = ((lane as f32 / 4.0 - 0.5).floor() as i32 + 1).clamp(0, 1) as usize;
        let at = |i: usize, j: usize| (1 + i + 2 * j) as f32;
        let want = [at(i0, 1), at(i1, 1), at(i1, 0), at(i0, 0)];
        for (c, w) in want.iter().enumerate() {
            assert_eq!(f32::from_bits(dword(&m, IMG_D, 4 * lane + c)), *w, "gather, lane {lane} texel {c}");
        }
    }
}

/// image_atomic_add_uint with TH_ATOMIC_RETURN on an R32_UINT 4×1 image returns the old value
/// and adds 5; lanes past the width read 0 and change nothing. image_get_resinfo at mip 1 of an
/// 8×4 image with levels 0..=1 (gfx12 LAST_LEVEL 1): width 4, height 2, 0, 2 levels.
#[test]
fn atomic_add_and_resinfo() {
    // v_mov_b32_e32 v1, 0 ; v_mov_b32_e32 v4, 5 ;
    // image_atomic_add_uint v4, [v0, v1], s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D th:TH_ATOMIC_RETURN ;
    // image_store v4, [v0, v1], s[16:23] dmask:0x1 dim:SQ_RSRC_IMG_2D ; v_mov_b32_e32 v9, 1 ;
    // image_get_resinfo v[5:8], v9, s[24:31] dmask:0xf dim:SQ_RSRC_IMG_2D ;
    // image_store v[5:8], [v0, v1], s[32:39] dmask:0xf dim:SQ_RSRC_IMG_2D ; s_endpgm
    let code = [
        0x7e020280, 0x7e080285, 0xd0430001, 0x00101004, 0x00000100, 0xd0418001, 0x00002004, 0x00000100, 0x7e120281,
        0xd3c5c001, 0x00003005, 0x00000009, 0xd3c18001, 0x00004005, 0x00000100, 0xbfb00000,
    ];
    let mut s = [0u32; 40];
    put(&mut s, 8, &tdesc(IMG_A, 20, 4, 1, 0));
    put(&mut s, 16, &tdesc(IMG_B, 20, 32, 1, 0));
    put(&mut s, 24, &tdesc(IMG_C, 20, 8, 4, 1));
    put(&mut s, 32, &tdesc(IMG_D, 61, 32, 1, 0));
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

/// image_sample_l at LOD 5 of a 4×1 R32_FLOAT image with levels 1.0, 2.0, 3.0 (4×1, 2×1, 1×1,
/// point filters): the gfx12 S#'s MAX_LOD 1.0 (13 bits at 13) clamps it to level 1; with
/// MAX_LOD 15 the last level (2) bounds it.
#[test]
fn sampler_max_lod() {
    // v_mov_b32_e32 v2, 0.5 ; v_mov_b32_e32 v3, 0.5 ; v_mov_b32_e32 v4, 0x40a00000 ;
    // image_sample_l v1, [v2, v3, v4], s[8:15], s[0:3] dmask:0x1 dim:SQ_RSRC_IMG_2D ;
    // v_mov_b32_e32 v5, 0 ; image_store v1, [v0, v5], s[16:23] dmask:0x1 dim:SQ_RSRC_IMG_2D ; s_endpgm
    let code = [
        0x7e0402f0, 0x7e0602f0, 0x7e0802ff, 0x40a00000, 0xe4474001, 0x00001001, 0x00040302, 0x7e0a0280, 0xd0418001,
        0x00002001, 0x00000500, 0xbfb00000,
    ];
    let img = bytes(&[1f32, 1.0, 1.0, 1.0, 2.0, 2.0, 3.0].map(f32::to_bits));
    for (max_lod, want) in [(256, 2.0f32), (15 * 256, 3.0)] {
        let mut s = [0u32; 40];
        put(&mut s, 0, &sdesc(false, 1, max_lod));
        put(&mut s, 8, &tdesc(IMG_A, 22, 4, 1, 2));
        put(&mut s, 16, &tdesc(IMG_B, 20, 32, 1, 0));
        let m = exec(&code, &s, vec![(IMG_A, img.clone()), (IMG_B, vec![0; 128])]).unwrap();
        for lane in 0..32 {
            assert_eq!(f32::from_bits(dword(&m, IMG_B, lane)), want, "max_lod {max_lod}, lane {lane}");
        }
    }
}

/// image_bvh_intersect_ray (f32 and a16 rays) and image_bvh64_intersect_ray of a box32 node
/// (type 5, index 0) with four children, ray from the origin along (1, 0.5, 0.25), inverse
/// (1, 2, 4), extent 100. Boxes 0, 1 and 3 lie across the ray at x from 2, 5 and 1, box 2 below
/// it (the IR's slab test, see isabridge_ir::ops::ray): sorted (descriptor word 1 bit 31), the
/// hit children come nearest first, then all ones; unsorted, they keep their slots.
#[test]
fn bvh_box_node() {
    // v_mov_b32 v4, 5 ; v_mov_b32 v5, 0x42c80000 ; v_mov_b32 v6..v8, 0 ; v_mov_b32 v9, 1.0 ;
    // v_mov_b32 v10, 0.5 ; v_mov_b32 v11, 0x3e800000 ; v_mov_b32 v12, 1.0 ; v_mov_b32 v13, 2.0 ;
    // v_mov_b32 v14, 4.0 ; image_bvh_intersect_ray v[0:3], [v4, v5, v[6:8], v[9:11], v[12:14]], s[0:3] ;
    // v_mov_b32 v20, 0x38003c00 ; v_mov_b32 v21, 0x3c003400 ; v_mov_b32 v22, 0x44004000 ;
    // image_bvh_intersect_ray v[16:19], [v4, v5, v[6:8], v[20:22]], s[0:3] a16 ; v_mov_b32 v28, 5 ;
    // v_mov_b32 v29, 0 ; image_bvh64_intersect_ray v[24:27], [v[28:29], v5, v[6:8], v[9:11], v[12:14]], s[0:3] ;
    // s_endpgm
    let code = [
        0x7e080285, 0x7e0a02ff, 0x42c80000, 0x7e0c0280, 0x7e0e0280, 0x7e100280, 0x7e1202f2, 0x7e1402f0, 0x7e1602ff,
        0x3e800000, 0x7e1802f2, 0x7e1a02f4, 0x7e1c02f6, 0xd3c64010, 0x0c000000, 0x09060504, 0x7e2802ff, 0x38003c00,
        0x7e2a02ff, 0x3c003400, 0x7e2c02ff, 0x44004000, 0xd3c64050, 0x00000010, 0x14060504, 0x7e380285, 0x7e3a0280,
        0xd3c68010, 0x0c000018, 0x0906051c, 0xbfb00000,
    ];
    const NODES: u64 = 0x2_0000_0000;
    let mut node = vec![0x100u32, 0x200, 0x300, 0x400];
    for b in [[2f32, 0.0, 0.0, 3.0, 10.0, 10.0], [5.0, 0.0, 0.0, 6.0, 10.0, 10.0], [0.0, -10.0, 0.0, 10.0, -5.0, 10.0], [1.0, 0.0, 0.0, 1.5, 10.0, 10.0]] {
        node.extend(b.map(f32::to_bits));
    }
    node.resize(32, 0);
    for (sort, want) in [(true, [0x400, 0x100, 0x200, u32::MAX]), (false, [0x100, 0x200, u32::MAX, 0x400])] {
        let mut f = lift(Isa::Gfx1201, &bytes(&code), 0, &Options { user_sgprs: 4, ..Options::default() }).expect("lifts");
        return_regs(&mut f, &["v0", "v1", "v2", "v3", "v16", "v17", "v18", "v19", "v24", "v25", "v26", "v27"]);
        let desc = [(NODES >> 8) as u32, (sort as u32) << 31, 1, 0];
        let mut ins: Vec<Input> = desc.iter().map(|w| Input::Uniform(*w as u64)).collect();
        ins.push(Input::PerLane((0..32).collect()));
        let mem = Memory { global: vec![(NODES, bytes(&node))], ..Memory::default() };
        let r = run(&f, &Config::default(), &ins, mem).unwrap();
        for (lane, out) in r.outputs.iter().enumerate() {
            let o: Vec<u32> = out.iter().map(|v| *v as u32).collect();
            for (k, form) in ["f32", "a16", "bvh64"].iter().enumerate() {
                assert_eq!(o[4 * k..4 * k + 4], want, "{form}, sort {sort}, lane {lane}");
            }
        }
    }
}

/// Every image_*, export, ds_param_load / ds_direct_load and v_interp_* instruction of the
/// gfx1201 corpus listing lifts on its own (with an s_endpgm after it) into IR the validator
/// accepts.
#[test]
fn corpus_image_stage_instructions_lift() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/amd/ref");
    let (mut lifted, mut failed) = (0, Vec::new());
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if !p.to_string_lossy().contains("gfx1201") {
            continue;
        }
        for line in std::fs::read_to_string(&p).unwrap().lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let text = v["text"].as_str().unwrap_or("");
            if !["image_", "export", "ds_param_load", "ds_direct_load", "v_interp_"].iter().any(|k| text.starts_with(k)) {
                continue;
            }
            let hex = v["bytes"].as_str().unwrap();
            let mut b: Vec<u8> = (0..hex.len() / 2).map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap()).collect();
            b.extend(0xbfb00000u32.to_le_bytes());
            match lift(Isa::Gfx1201, &b, 0, &Options::default()) {
                Ok(f) => {
                    isabridge_ir::validate::validate(&f).unwrap();
                    lifted += 1;
                }
                Err(e) => failed.push(format!("{text}: {e}")),
            }
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
    assert_eq!(lifted, 121, "image, export, parameter-load and interpolation instructions in the gfx1201 listings");
}

/// ds_param_load puts P0, P10, P20, 0.0 into the four lanes of each quad (here from per-lane
/// inputs, so each lane's own value shows); v_interp_p10_f32 is fma(P10 of lane 4q+1, i, P0 of
/// lane 4q) and v_interp_p2_f32 fma(P20 of lane 4q+2, j, that). The f16 forms with op_sel read
/// the high halves (P0 3.0, P10 0.5, P20 0.25), p10 gives f32, p2 rounds to f16 into the high
/// half and keeps the low half. ds_direct_load with M0 = 0x10008 reads the low 16 bits
/// (USHORT) of the LDS dword at byte 8. The export records each channel and the done mark;
/// MSG_DEALLOC_VGPRS records nothing.
#[test]
fn param_load_interpolation_direct_load_and_export() {
    use isabridge_ir::ops::stage::{StageOp, Target};
    // ds_param_load v2, attr0.x ; ds_param_load v5, attr1.x ; v_cvt_f32_u32_e32 v1, v0 ;
    // v_mov_b32_e32 v3, 0.5 ; v_interp_p10_f32 v4, v2, v1, v2 ; v_interp_p2_f32 v4, v2, v3, v4 ;
    // v_interp_p10_f16_f32 v7, v5, v1, v5 op_sel:[1,0,1,0] ;
    // v_interp_p2_f16_f32 v7, v5, v3, v7 op_sel:[1,0,0,1] ; v_mov_b32_e32 v8, v2 ;
    // s_mov_b32 m0, 0x10008 ; ds_direct_load v9 ; export mrt0 v4, v7, v8, v9 done ;
    // s_sendmsg sendmsg(MSG_DEALLOC_VGPRS) ; s_endpgm
    let code = [
        0xce000002, 0xce000405, 0x7e020d00, 0x7e0602f0, 0xcd000004, 0x040a0302, 0xcd010004, 0x04120702, 0xcd022807,
        0x04160305, 0xcd034807, 0x041e0705, 0x7e100302, 0xbefd00ff, 0x00010008, 0xce100009, 0xf800080f, 0x09080704,
        0xbfb60003, 0xbfb00000,
    ];
    let f = lift(Isa::Gfx1201, &bytes(&code), 0, &Options::default()).expect("lifts");
    isabridge_ir::validate::validate(&f).unwrap();
    let p0 = |l: usize| l as f32;
    let p10 = |l: usize| (l % 8) as f32 * 0.25;
    let p20 = |l: usize| 4.0 + l as f32;
    let mut ins = vec![Input::Uniform(0); 1024 + 24];
    ins[0] = Input::PerLane((0..32).collect());
    ins[1024] = Input::PerLane((0..32).map(|l| p0(l).to_bits() as u64).collect());
    ins[1025] = Input::PerLane((0..32).map(|l| p10(l).to_bits() as u64).collect());
    ins[1026] = Input::PerLane((0..32).map(|l| p20(l).to_bits() as u64).collect());
    ins[1036] = Input::Uniform((f16_bits(3.0) << 16 | f16_bits(1.0)) as u64);
    ins[1037] = Input::Uniform((f16_bits(0.5) << 16 | f16_bits(2.0)) as u64);
    ins[1038] = Input::Uniform((f16_bits(0.25) << 16 | f16_bits(4.0)) as u64);
    let mut shared = vec![0u8; 16];
    shared[8..12].copy_from_slice(&0xdead_beefu32.to_le_bytes());
    let o = run(&f, &Config::default(), &ins, Memory { shared, ..Memory::default() }).unwrap();
    for lane in 0..32usize {
        let q = lane & !3;
        let i = lane as f32;
        let v4 = p20(q + 2).mul_add(0.5, p10(q + 1).mul_add(i, p0(q)));
        let r16 = 0.5f32.mul_add(i, 3.0);
        let v7 = f16_bits(0.25f32.mul_add(0.5, r16)) << 16 | (r16.to_bits() & 0xffff);
        let v8 = [p0(lane), p10(lane), p20(lane), 0.0][lane & 3].to_bits();
        let mine: Vec<(StageOp, u64)> = o.stage.iter().filter(|e| e.thread == lane as u32).map(|e| (e.op, e.value)).collect();
        let want = vec![
            (StageOp::Export { target: Target::Mrt(0), chan: 0 }, v4.to_bits() as u64),
            (StageOp::Export { target: Target::Mrt(0), chan: 1 }, v7 as u64),
            (StageOp::Export { target: Target::Mrt(0), chan: 2 }, v8 as u64),
            (StageOp::Export { target: Target::Mrt(0), chan: 3 }, 0xbeef),
            (StageOp::Done { vm: false }, 0),
        ];
        assert_eq!(mine, want, "lane {lane}");
    }
    assert_eq!(o.stage.len(), 32 * 5, "no message events");
}

/// 64-bit scalar add / subtract / multiply (wrapping, SCC untouched), scalar float add, mul,
/// fmac and conversions (float to u32 rounds toward zero, -3.0 saturates to 0), s_trunc_f32,
/// v_s_rcp_f32 (1 / 4 exactly), the cycle counter (0 on the interpreter) and the split
/// workgroup barrier.
#[test]
fn gfx12_scalar_alu() {
    // s_add_nc_u64 s[4:5], s[0:1], s[2:3] ; s_sub_nc_u64 s[6:7], s[0:1], s[2:3] ;
    // s_mul_u64 s[8:9], s[0:1], s[2:3] ; s_cvt_f32_u32 s10, s2 ; s_mul_f32 s11, s10, 0.5 ;
    // s_add_f32 s12, s11, 1.0 ; s_fmac_f32 s12, s11, 2.0 ; s_cvt_u32_f32 s13, s12 ;
    // s_trunc_f32 s14, 0xc0700000 ; s_cvt_u32_f32 s15, s14 ; v_s_rcp_f32 s16, 4.0 ;
    // s_getreg_b32 s17, hwreg(HW_REG_SHADER_CYCLES_LO) ; s_barrier_signal -1 ; s_barrier_wait 0xffff ;
    // v_mov_b32_e32 v1..v12, s4, s5, s6, s7, s8, s9, s12, s13, s14, s15, s16, s17 ; s_endpgm
    let code = [
        0xa9840200, 0xaa060200, 0xaa880200, 0xbe8a6502, 0xa20bf00a, 0xa00cf20b, 0xa38cf40b, 0xbe8d670c, 0xbe8e62ff,
        0xc0700000, 0xbe8f670e, 0xd6840010, 0x000000f6, 0xb891f81d, 0xbe804ec1, 0xbf94ffff, 0x7e020204, 0x7e040205,
        0x7e060206, 0x7e080207, 0x7e0a0208, 0x7e0c0209, 0x7e0e020c, 0x7e10020d, 0x7e12020e, 0x7e14020f, 0x7e160210,
        0x7e180211, 0xbfb00000,
    ];
    let opts = Options { user_sgprs: 4, ..Options::default() };
    let mut f = lift(Isa::Gfx1201, &bytes(&code), 0, &opts).expect("lifts");
    let text = isabridge_ir::text::print(&f);
    assert_eq!(text.matches("barrier.wg").count(), 1, "one workgroup barrier");
    return_regs(&mut f, &["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12"]);
    let (a, b) = (0xffff_ffff_0000_0003u64, 0x0000_0001_0000_0007u64);
    let ins = vec![
        Input::Uniform(a & 0xffff_ffff),
        Input::Uniform(a >> 32),
        Input::Uniform(b & 0xffff_ffff),
        Input::Uniform(b >> 32),
        Input::PerLane((0..32).collect()),
    ];
    let r = run(&f, &Config::default(), &ins, Memory::default()).unwrap();
    let (sum, diff, prod) = (a.wrapping_add(b), a.wrapping_sub(b), a.wrapping_mul(b));
    // s10 = 7.0, s11 = 3.5, s12 = 4.5, then 3.5 × 2 + 4.5 = 11.5; s13 = 11.
    let want = [
        sum as u32,
        (sum >> 32) as u32,
        diff as u32,
        (diff >> 32) as u32,
        prod as u32,
        (prod >> 32) as u32,
        11.5f32.to_bits(),
        11,
        (-3.0f32).to_bits(),
        0,
        0.25f32.to_bits(),
        0,
    ];
    for (lane, out) in r.outputs.iter().enumerate() {
        let got: Vec<u32> = out.iter().map(|v| *v as u32).collect();
        assert_eq!(got, want, "lane {lane}");
    }
}

/// Scalar float compares set SCC: s_cmp_lt_f32 (ordered) and s_cmp_nge_f32 (unordered or
/// less: true for a NaN operand).
#[test]
fn gfx12_scalar_float_compares() {
    // s_cmp_lt_f32 s0, 1.0 ; s_cselect_b32 s1, 5, 7 ; s_cmp_nge_f32 s2, 0.5 ; s_cselect_b32 s3, 5, 7 ;
    // v_mov_b32_e32 v1, s1 ; v_mov_b32_e32 v2, s3 ; s_endpgm
    let code = [0xbf41f200, 0x98018785, 0xbf49f002, 0x98038785, 0x7e020201, 0x7e040203, 0xbfb00000];
    for (s0, s2, want) in [(0.5f32, f32::NAN, [5, 5]), (2.0, 1.0, [7, 7]), (f32::NAN, 0.25, [7, 5])] {
        let mut f = lift(Isa::Gfx1201, &bytes(&code), 0, &Options { user_sgprs: 3, ..Options::default() }).expect("lifts");
        return_regs(&mut f, &["v1", "v2"]);
        let ins = vec![
            Input::Uniform(s0.to_bits() as u64),
            Input::Uniform(0),
            Input::Uniform(s2.to_bits() as u64),
            Input::PerLane((0..32).collect()),
        ];
        let r = run(&f, &Config::default(), &ins, Memory::default()).unwrap();
        for out in &r.outputs {
            assert_eq!([out[0] as u32, out[1] as u32], want, "s0 {s0}, s2 {s2}");
        }
    }
}

/// v_max_num / v_min_num are maximumNumber / minimumNumber: a signalling NaN operand is
/// ignored, two NaNs give a quiet NaN, -0 < +0 (f32 and f64); v_med3_num is the median, or with
/// a NaN operand the minimum of the others; a VOPD pair of v_dual_cndmask_b32 (selecting by
/// VCC: lanes 0-3, where 4 > lane) and v_dual_max_num_f32.
#[test]
fn num_min_max_med3_and_vopd_cndmask() {
    // v_mov_b32 v1, 1.0 ; v_max_num_f32 v3, 0x7fa00000, v1 ; v_mov_b32 v16, 0 ;
    // v_min_num_f32 v4, 0x80000000, v16 ; v_max_num_f32 v17, 0x80000000, v16 ;
    // v_mov_b32 v19, 0x7fa00000 ; v_max_num_f32 v18, 0x7fc00001, v19 ; v_mov_b32 v20, 1.0 ;
    // v_mov_b32 v21, 2.0 ; v_med3_num_f32 v5, 0x40400000, v20, v21 ; v_mov_b32 v22, 0x7fc00000 ;
    // v_med3_num_f32 v24, v22, 0x40a00000, v20 ; v_mov_b32 v8, 1 ; v_mov_b32 v9, 0x7ff00000 ;
    // v_mov_b32 v10, 0 ; v_mov_b32 v11, 2.0 ; v_max_num_f64 v[6:7], v[8:9], v[10:11] ;
    // v_mov_b32 v25, 10 ; v_mov_b32 v26, 20 ; v_mov_b32 v27, 0x7fa00000 ; v_mov_b32 v28, 4.0 ;
    // v_cmp_gt_u32 vcc_lo, 4, v0 ;
    // v_dual_cndmask_b32 v13, v25, v26 :: v_dual_max_num_f32 v14, v27, v28 ; s_endpgm
    let code = [
        0x7e0202f2, 0x2c0602ff, 0x7fa00000, 0x7e200280, 0x2a0820ff, 0x80000000, 0x2c2220ff, 0x80000000, 0x7e2602ff,
        0x7fa00000, 0x2c2426ff, 0x7fc00001, 0x7e2802f2, 0x7e2a02f4, 0xd6310005, 0x045628ff, 0x40400000, 0x7e2c02ff,
        0x7fc00000, 0xd6310018, 0x0451ff16, 0x40a00000, 0x7e100281, 0x7e1202ff, 0x7ff00000, 0x7e140280, 0x7e1602f4,
        0x1c0c1508, 0x7e32028a, 0x7e340294, 0x7e3602ff, 0x7fa00000, 0x7e3802f6, 0x7c980084, 0xca543519, 0x0d0e391b,
        0xbfb00000,
    ];
    let mut f = lift(Isa::Gfx1201, &bytes(&code), 0, &Options::default()).expect("lifts");
    return_regs(&mut f, &["v3", "v4", "v17", "v18", "v5", "v24", "v6", "v7", "v13", "v14"]);
    let r = run(&f, &Config::default(), &[Input::PerLane((0..32).collect())], Memory::default()).unwrap();
    for (lane, out) in r.outputs.iter().enumerate() {
        let o: Vec<u32> = out.iter().map(|v| *v as u32).collect();
        assert_eq!(o[0], 1f32.to_bits(), "max(sNaN, 1)");
        assert_eq!(o[1], 0x8000_0000, "min(-0, +0)");
        assert_eq!(o[2], 0, "max(-0, +0)");
        assert!(o[3] & 0x7fc0_0000 == 0x7fc0_0000, "max(qNaN, sNaN) is a quiet NaN: {:#x}", o[3]);
        assert_eq!(o[4], 2f32.to_bits(), "med3(3, 1, 2)");
        assert_eq!(o[5], 1f32.to_bits(), "med3(NaN, 5, 1)");
        assert_eq!((o[6], o[7]), (0, 0x4000_0000), "max f64(sNaN, 2)");
        assert_eq!(o[8], if lane < 4 { 20 } else { 10 }, "cndmask, lane {lane}");
        assert_eq!(o[9], 4f32.to_bits(), "dual max(sNaN, 4)");
    }
}

/// Instructions this lifter does not define stay typed errors naming the instruction: a float
/// image atomic, an export with row_en.
#[test]
fn undefined_image_and_export_forms_are_typed_errors() {
    // image_atomic_add_flt v4, [v0, v1], s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D ; s_endpgm
    // export pos0 v0, v1, v2, v3 done row_en ; s_endpgm
    for code in [vec![0xd060c001u32, 0x00001004, 0x00000100, 0xbfb00000], vec![0xf80028cf, 0x03020100, 0xbfb00000]] {
        match lift(Isa::Gfx1201, &bytes(&code), 0, &Options::default()) {
            Err(LiftError::Unsupported { isa: Isa::Gfx1201, addr: 0, text, .. }) => assert!(!text.is_empty()),
            other => panic!("{other:?}"),
        }
    }
}
