//! Snapshots (insta) of the IR the AMD lifter writes for one small gfx1013 program per
//! instruction family (and gfx1201 memory and interpolation programs), before any pass runs: register reads and writes, EXEC merges (`lanesel`)
//! and lane masks as the lifter emits them. Each snapshot was read before it was accepted; a
//! change to the lifter that changes them shows here as a diff. The code words are
//! llvm-mc-22 -mcpu=gfx1013's encoding of the assembly in each test's comment.

use isabridge_decoder::lift::amd::{lift, Options};
use isabridge_decoder::Isa;

fn lifted(words: &[u32]) -> String {
    lifted_for(Isa::Gfx1013, words)
}

fn lifted_for(isa: Isa, words: &[u32]) -> String {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let opts = Options { user_sgprs: 12, ..Options::default() };
    let f = lift(isa, &bytes, 0, &opts).expect("lifts");
    isabridge_ir::text::print(&f)
}

/// s_add_u32 s2, s0, s1 ; s_addc_u32 s3, s1, 0 ; s_cselect_b32 s4, s2, s3 ;
/// s_and_saveexec_b32 s5, s4 ; s_cbranch_execz 1 ; s_nop 0 ; s_endpgm
#[test]
fn scalar_alu_saveexec_and_branch() {
    insta::assert_snapshot!(lifted(&[0x80020100, 0x82038001, 0x85040302, 0xbe853c04, 0xbf880001, 0xbf800000, 0xbf810000]));
}

/// gfx1201: ds_param_load v2, attr0.x ; v_interp_p10_f32 v4, v2, v1, v2 ;
/// v_interp_p2_f32 v4, v2, v3, v4 ; export mrt0 v4, off, off, off done ; s_endpgm
#[test]
fn gfx12_param_load_interpolation_and_export() {
    insta::assert_snapshot!(lifted_for(
        Isa::Gfx1201,
        &[0xce000002, 0xcd000004, 0x040a0302, 0xcd010004, 0x04120702, 0xf8000801, 0x00000004, 0xbfb00000]
    ));
}

/// v_add_nc_u32 v1, v0, 4 ; v_perm_b32 v2, v1, v0, 0x0c0d0801 ; v_bfe_i32 v3, v2, 4, 9 ;
/// v_mad_u64_u32 v[4:5], s0, v1, v2, v[2:3] ; s_endpgm
#[test]
fn vector_integer_bits_and_mad64() {
    insta::assert_snapshot!(lifted(&[
        0xd5250001, 0x00010900, 0xd7440002, 0x03fe0101, 0x0c0d0801, 0xd5490003, 0x02250902, 0xd5760004, 0x040a0501,
        0xbf810000
    ]));
}

/// v_cvt_f32_u32 v1, v0 ; v_fma_f32 v2, v1, 0.5, -v1 clamp ; v_mul_f32 v3, v2, v1 mul:2 ;
/// v_cmp_gt_f32 vcc_lo, v3, 1.0 ; v_cndmask_b32 v4, v1, v3, vcc_lo ; s_endpgm
#[test]
fn vector_float_modifiers_and_compare() {
    insta::assert_snapshot!(lifted(&[
        0x7e020d00, 0xd54b8002, 0x8405e101, 0xd5080003, 0x08020302, 0xd404006a, 0x0001e503, 0x02080701, 0xbf810000
    ]));
}

/// v_mov_b32_dpp v1, v0 row_shr:1 bound_ctrl:1 ; v_add_nc_u32_dpp v2, v0, v1 quad_perm:[1,0,3,2] ;
/// v_readlane_b32 s0, v2, 3 ; v_readfirstlane_b32 s1, v1 ; s_endpgm
#[test]
fn cross_lane_dpp_and_readlane() {
    insta::assert_snapshot!(lifted(&[0x7e0202fa, 0xff091100, 0x4a0402fa, 0xff00b100, 0xd7600000, 0x00010702, 0x7e020501, 0xbf810000]));
}

/// The program of `scalar_global_and_buffer_memory` in gfx1201 code (llvm-mc-22 -mcpu=gfx1201):
/// s_load_b64 s[4:5], s[0:1], 0x8 ; s_wait_kmcnt 0x0 ; v_lshlrev_b32 v1, 2, v0 ;
/// global_load_b32 v2, v1, s[4:5] ; s_wait_loadcnt 0x0 ;
/// buffer_store_b32 v2, v1, s[8:11], null offen offset:16 ; s_endpgm. The same IR but for the
/// buffer descriptor, rewritten from gfx12's V# layout into the one the IR reads.
#[test]
fn gfx12_scalar_global_and_buffer_memory() {
    insta::assert_snapshot!(lifted_for(
        Isa::Gfx1201,
        &[0xf4002100, 0xf8000008, 0xbfc70000, 0x30020082, 0xee050004, 0x00000002, 0x00000001, 0xbfc00000, 0xc406807c, 0x40801002, 0x00001001, 0xbfb00000]
    ));
}

/// s_load_dwordx2 s[4:5], s[0:1], 0x8 ; s_waitcnt lgkmcnt(0) ; v_lshlrev_b32 v1, 2, v0 ;
/// global_load_dword v2, v1, s[4:5] ; s_waitcnt vmcnt(0) ;
/// buffer_store_dword v2, v1, s[8:11], 0 offen offset:16 ; s_endpgm
#[test]
fn scalar_global_and_buffer_memory() {
    insta::assert_snapshot!(lifted(&[
        0xf4040100, 0xfa000008, 0xbf8cc07f, 0x34020082, 0xdc308000, 0x02040001, 0xbf8c3f70, 0xe0701010, 0x80020201,
        0xbf810000
    ]));
}

/// v_pk_fma_f16 v1, v0, v0, v0 op_sel:[1,0,0] op_sel_hi:[0,1,1] ;
/// v_add_f16_sdwa v2, v1, v0 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1 src1_sel:WORD_0 ;
/// s_endpgm
#[test]
fn packed_f16_and_sdwa() {
    insta::assert_snapshot!(lifted(&[0xcc0e4801, 0x14020100, 0x640400f9, 0x04051501, 0xbf810000]));
}
