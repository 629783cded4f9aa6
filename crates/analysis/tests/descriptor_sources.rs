//! Where resource descriptors come from, checked by hand against the llvm-objdump-22 listings
//! in `fixtures/amd/listings/`.

use isabridge_analysis::census::{census_program, Shader};
use isabridge_analysis::load;
use std::path::PathBuf;

fn shader(file: &str, name: &str) -> Shader {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/amd/bin").join(file);
    let prog = load(&std::fs::read(p).unwrap(), None).unwrap();
    let c = census_program(file, &prog);
    c.shaders.into_iter().find(|s| s.name == name).unwrap()
}

fn origins(s: &Shader) -> Vec<(String, u64)> {
    s.counts().descriptor_origins.iter().map(|(k, n)| (k.to_string(), n)).collect()
}

fn pairs(v: &[(&str, u64)]) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = v.iter().map(|(k, n)| (k.to_string(), *n)).collect();
    v.sort();
    v
}

/// c_resources.gfx1013-w32.txt `<images>`: at 0x700 `s_load_dwordx16 s[8:23], s[4:5], null`
/// (SOFFSET null, offset 0) and at 0x70c `s_load_dwordx4 s[0:3], s[4:5], 0x40`; 34 image ops read
/// s[8:15] (dwords 0-7 of the load), 11 read s[16:23] (dwords 8-15: +0x20), 15 samplers s[0:3].
#[test]
fn gfx10_images_from_one_descriptor_table() {
    let s = shader("c_resources.gfx1013-w32.o", "images");
    assert_eq!(
        origins(&s),
        pairs(&[
            ("image.rsrc s[8:15] <- s_load_dwordx16 s[4:5]+0x0", 34),
            ("image.rsrc s[16:23] <- s_load_dwordx16 s[4:5]+0x20", 11),
            ("image.samp s[0:3] <- s_load_dwordx4 s[4:5]+0x40", 15),
        ])
    );
}

/// The same source for gfx1201 (c_resources.gfx1201-w32.txt `<images>`): `s_load_b512 s[4:19],
/// s[0:1], 0x0` and `s_load_b128 s[20:23], s[0:1], 0x40`; VIMAGE/VSAMPLE name the registers
/// directly (`image_load ... s[12:19]` encodes RSRC = 12), unlike gfx10's register / 4.
#[test]
fn gfx12_images_from_one_descriptor_table() {
    let s = shader("c_resources.gfx1201-w32.o", "images");
    assert_eq!(
        origins(&s),
        pairs(&[
            ("image.rsrc s[4:11] <- s_load_b512 s[0:1]+0x0", 34),
            ("image.rsrc s[12:19] <- s_load_b512 s[0:1]+0x20", 11),
            ("image.samp s[20:23] <- s_load_b128 s[0:1]+0x40", 15),
        ])
    );
}

/// c_resources.gfx1013-w32.txt `<scalar_buffers>`: `s_load_dwordx4 s[0:3], s[4:5], null` at
/// 0x304, then six `s_buffer_load_*` and one `buffer_load_dword` through s[0:3].
#[test]
fn scalar_buffer_loads_through_a_loaded_descriptor() {
    let s = shader("c_resources.gfx1013-w32.o", "scalar_buffers");
    assert_eq!(
        origins(&s),
        pairs(&[
            ("buffer.rsrc s[0:3] <- s_load_dwordx4 s[4:5]+0x0", 1),
            ("s_buffer.rsrc s[0:3] <- s_load_dwordx4 s[4:5]+0x0", 6),
        ])
    );
}

/// gfx_sample.gfx1013-w32.txt `<ps_dims>`: six `image_sample ..., s[0:7], s[8:11]` and no write
/// to s0-s11 before them (the only scalar write is `s_mov_b32 s12, exec_lo`): user SGPRs.
#[test]
fn pal_pixel_shader_descriptors_in_user_sgprs() {
    let s = shader("gfx_sample.gfx1013-w32.o", "ps_dims");
    assert_eq!(origins(&s), pairs(&[("image.rsrc s[0:7] <- user", 6), ("image.samp s[8:11] <- user", 6)]));
}

/// hip_control.gfx1013-w32.txt `<_Z7scratchPiPKiPdPKd>`: the scratch descriptor s[0:3] has
/// s0/s1 advanced by `s_add_u32 s0, s0, s9` / `s_addc_u32 s1, s1, 0` (0xf28, 0xf2c) and s2/s3 as
/// passed in; the eight `buffer_store_dword ..., s[0:3]` before the first call see that mix,
/// the 14 after a `s_swappc_b64` are reported as crossing a call.
#[test]
fn scratch_descriptor_patched_in_place_and_across_calls() {
    let s = shader("hip_control.gfx1013-w32.o", "_Z7scratchPiPKiPdPKd");
    assert_eq!(
        origins(&s),
        pairs(&[
            ("buffer.rsrc s[0:3] <- call", 14),
            ("buffer.rsrc s[0:3] <- mixed: s_add_u32 s_addc_u32 user user", 8),
        ])
    );
    // The register-only view is unchanged.
    assert_eq!(s.counts().descriptor_sources.get("buffer.rsrc s[0:3]"), Some(22));
}

/// fixtures/amd/cfg/desc_call.dis: `s_load_dwordx4 s[64:67], s[4:5], null` at 0x0 and
/// `s_load_dwordx4 s[8:11], s[4:5], 0x10` at 0x8, then `s_swappc_b64` at 0x28. After the call:
/// s[64:67] (callee-saved in the AMDGPU calling conventions) still holds the first load; s[8:11]
/// and s[12:15] (clobbered by a callee) come from the call. `s_movreld_b32 s20, s0` at 0x40
/// writes s[20 + M0], so s[24:27] read at 0x44 may be any of its writes.
#[test]
fn origins_across_a_call_and_an_indexed_move() {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/amd/cfg/desc_call.o");
    let prog = load(&std::fs::read(p).unwrap(), None).unwrap();
    let c = census_program("desc_call.o", &prog);
    let s = c.shaders.iter().find(|s| s.name == "cs_desc").unwrap();
    assert_eq!(
        origins(s),
        pairs(&[
            ("buffer.rsrc s[64:67] <- s_load_dwordx4 s[4:5]+0x0", 1),
            ("buffer.rsrc s[8:11] <- call", 1),
            ("buffer.rsrc s[12:15] <- call", 1),
            ("buffer.rsrc s[24:27] <- s_movreld_b32", 1),
        ])
    );
    assert_eq!(s.counts().features.get("movrel"), Some(1));
    assert_eq!(s.cfg.calls.get("direct"), Some(1));
}
