//! The AMD lifter on packed 16-bit (VOP3P), SDWA, 16-bit integer and packing-conversion
//! instructions: each program sets v1, v2, v3, runs one instruction and stores v3; the lifted
//! IR runs on the interpreter. Expected words are IEEE / integer facts stated beside each case,
//! or RDNA2-measured rows of fixtures/rdna/vectors.jsonl where named. Whole RDNA2 programs are
//! checked by crates/cli/tests/conform_rdna.rs.

use isabridge_decoder::lift::amd::{lift, Options, SystemValue};
use isabridge_decoder::Isa;
use isabridge_ir::interp::{self, Config, Input, Memory};
use isabridge_ir::validate::validate;

const OUT: u64 = 0x1_0000_0000;

/// `v_mov_b32 vN, lit` for v1..v3.
fn mov(n: u32, lit: u32) -> [u32; 2] {
    [0x7e0002ff | n << 17, lit]
}

/// Run `inst` (its words) after v1 = a, v2 = b, v3 = c; v3 of lane 0 afterwards.
fn run(a: u32, b: u32, c: u32, inst: &[u32]) -> u32 {
    let mut code: Vec<u32> = [mov(1, a), mov(2, b), mov(3, c)].concat();
    code.extend_from_slice(inst);
    // v_lshlrev_b32 v10, 2, v0 ; buffer_store_dword v3, v10, s[0:3], 0 offen ; s_endpgm
    code.extend_from_slice(&[0x34140082, 0xe0701000, 0x8000030a, 0xbf810000]);
    let bytes: Vec<u8> = code.iter().flat_map(|w| w.to_le_bytes()).collect();
    let opts = Options { user_sgprs: 4, vgpr_inputs: vec![SystemValue::LocalIdX], ..Options::default() };
    let f = lift(Isa::Gfx1013, &bytes, 0, &opts).expect("lifts");
    validate(&f).expect("valid IR");
    let size = 32 * 4;
    let mut ins: Vec<Input> =
        [OUT as u32, (OUT >> 32) as u32, size as u32, 0x31016fac].into_iter().map(|w| Input::Uniform(w as u64)).collect();
    ins.push(Input::PerLane((0..32).collect()));
    let mem = Memory { global: vec![(OUT, vec![0; size])], ..Memory::default() };
    let r = interp::run(&f, &Config { wave_size: 32, waves: 1, ..Config::default() }, &ins, mem).expect("runs");
    let b = &r.memory.global[0].1;
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

// f16 bits: 1.5 = 0x3e00, 2.0 = 0x4000, 0.5 = 0x3800, 0.25 = 0x3400, -1.0 = 0xbc00.

#[test]
fn pk_fma_f16_runs_on_both_halves() {
    // v_pk_fma_f16 v3, v1, v2, v3: lo 1.5 * 2 + 0.25 = 3.25 (0x4280), hi 2 * 0.5 - 1 = 0.
    assert_eq!(run(0x4000_3e00, 0x3800_4000, 0xbc00_3400, &[0xcc0e4003, 0x1c0e0501]), 0x0000_4280);
}

#[test]
fn pk_op_sel_and_op_sel_hi_pick_halves() {
    // v_pk_add_f16 v3, v1, v1 op_sel:[0,1] op_sel_hi:[1,0]: lo = v1.lo + v1.hi, hi = v1.hi +
    // v1.lo: 1.5 + 2 = 3.5 (0x4300) in both.
    assert_eq!(run(0x4000_3e00, 0, 0, &[0xcc0f5003, 0x08020301]), 0x4300_4300);
}

#[test]
fn pk_neg_lo_and_neg_hi_negate_one_lane() {
    // v_pk_mul_f16 v3, v1, v2 neg_lo:[1,0] neg_hi:[0,1]: lo -1.5 * 2 = -3 (0xc200), hi 2 * -0.5
    // = -1 (0xbc00).
    assert_eq!(run(0x4000_3e00, 0x3800_4000, 0, &[0xcc104203, 0x38020501]), 0xbc00_c200);
}

#[test]
fn pk_integer_ops() {
    // v_pk_add_u16 v3, v1, v2 clamp: 0xffff + 2 saturates to 0xffff; 3 + 4 = 7.
    assert_eq!(run(0x0003_ffff, 0x0004_0002, 0, &[0xcc0ac003, 0x18020501]), 0x0007_ffff);
    // v_pk_lshlrev_b16 v3, v1, v2: shift amounts 17 (low 4 bits: 1) and 4.
    assert_eq!(run(0x0004_0011, 0x0101_8001, 0, &[0xcc044003, 0x18020501]), 0x1010_0002);
    // v_pk_max_i16 v3, v1, v2: max(-1, 1) = 1, max(-5, -7) = -5.
    assert_eq!(run(0xfffb_ffff, 0xfff9_0001, 0, &[0xcc074003, 0x18020501]), 0xfffb_0001);
}

#[test]
fn sdwa_selects_source_words_and_preserves_the_other_half() {
    // v_add_f16_sdwa v3, v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1
    // src1_sel:WORD_0: 2 + 2 = 4 (0x4400) into the high half; the low half of v3 stays.
    assert_eq!(run(0x4000_3e00, 0x3800_4000, 0xbc00_3400, &[0x640604f9, 0x04051501]), 0x4400_3400);
    // v_mul_u32_u24_sdwa v3, v1, v2 dst_sel:DWORD src0_sel:BYTE_1 src1_sel:WORD_1:
    // 0x12 * 0x0003 = 0x36.
    assert_eq!(run(0x0000_1234, 0x0003_ffff, 0, &[0x160604f9, 0x05010601]), 0x36);
    // v_lshlrev_b32_sdwa v3, v1, v2 dst_sel:BYTE_1 dst_unused:UNUSED_SEXT src0_sel:BYTE_0:
    // 0x41 << 1 = 0x82, its low byte placed in byte 1 and sign-extended above, byte 0 zero.
    assert_eq!(run(0x0000_0001, 0x0000_0041, 0, &[0x340604f9, 0x06000901]), 0xffff_8200);
}

#[test]
fn cvt_norm_i16_f16_matches_rdna2() {
    // v_cvt_norm_i16_f16 v3, v1 (RDNA2 Float16Modifiers rows: 0.5 -> 16384, -2 -> -32767,
    // NaN -> 0, 0.416015625 -> 13632); the high half of v3 keeps its bits.
    let norm = |x: u32| run(x, 0, 0xabcd_0000, &[0x7e06c701]);
    assert_eq!(norm(0x3800), 0xabcd_4000);
    assert_eq!(norm(0xc000), 0xabcd_8001);
    assert_eq!(norm(0x7e00), 0xabcd_0000);
    assert_eq!(norm(0x36a8), 0xabcd_0000 | 13632);
}

#[test]
fn packing_conversions() {
    // v_cvt_pkrtz_f16_f32 v3, v1, v2: 1 + 2^-11 + 2^-12 rounds toward zero to 1.0 (0x3c00;
    // to nearest it would be 0x3c01); -2.0 is 0xc000.
    assert_eq!(run(0x3f80_1800, 0xc000_0000, 0, &[0x5e060501]), 0xc000_3c00);
    // v_cvt_pk_i16_i32 v3, v1, v2: 70000 and -70000 saturate to 0x7fff and 0x8000.
    assert_eq!(run(70000, (-70000i32) as u32, 0, &[0xd76b0003, 0x00020501]), 0x8000_7fff);
    // v_cvt_pknorm_u16_f32 v3, v1, v2: 0.5 * 65535 = 32767.5 rounds to even 32768; 2.0 clamps
    // to 65535.
    assert_eq!(run(0x3f00_0000, 0x4000_0000, 0, &[0xd7690003, 0x00020501]), 0xffff_8000);
    // v_pack_b32_f16 v3, v1, -v2 op_sel:[1,0,0]: v1's high half (2.0), then -(v2.lo) = -2.0.
    assert_eq!(run(0x4000_3e00, 0x3800_4000, 0, &[0xd7110803, 0x40020501]), 0xc000_4000);
}

#[test]
fn sixteen_bit_integer_ops() {
    // v_mad_u16 v3, v1, v2, v3: 300 * 300 + 10 = 90010, low 16 bits 0x5f9a; the high half of
    // v3 (0x0001) stays.
    assert_eq!(run(300, 300, 0x0001_000a, &[0xd7400003, 0x040e0501]), 0x0001_5f9a);
    // v_add_nc_u16 v3, v1, v2 clamp: 0xfff0 + 0x20 saturates to 0xffff.
    assert_eq!(run(0xfff0, 0x20, 0, &[0xd7038003, 0x00020501]), 0x0000_ffff);
    // v_add_nc_u16 v3, v1, v2 op_sel:[1,0,1]: v1.hi + v2.lo = 0xfffe + 0x1170 = 0x116e
    // (wrapped) into the high half; v3's low half stays.
    assert_eq!(run(0xfffe_7960, 0x0001_1170, 0x7fff_ffff, &[0xd7034803, 0x00020501]), 0x116e_ffff);
    // v_cmp_gt_i16 vcc_lo, v1, v2 then v_cndmask_b32 v3, 0, 1, vcc_lo: -1 > 1 is false
    // in 16 bits (the high halves differ and do not count).
    assert_eq!(run(0x0000_ffff, 0x7fff_0001, 0, &[0x7d180501, 0xd5010003, 0x01a90280]), 0);
}

#[test]
fn vop3_op_sel_on_f16_sources_and_destination() {
    // v_max3_f16 v3, v1, v2, v3 op_sel:[1,0,0,1]: max(v1.hi 2.0, v2.lo 2.0, v3.lo 0.25) = 2.0
    // into v3's high half.
    assert_eq!(run(0x4000_3e00, 0x3800_4000, 0xbc00_3400, &[0xd7544803, 0x040e0501]), 0x4000_3400);
    // v_fma_f16 v3, v1, v2, v3 op_sel:[1,1,1,0]: 2.0 * 0.5 + -1.0 = 0 into the low half.
    assert_eq!(run(0x4000_3e00, 0x3800_4000, 0xbc00_3400, &[0xd74b3803, 0x040e0501]), 0xbc00_0000);
}

#[test]
fn movrels_reads_the_register_m0_names() {
    // s_mov_b32 m0, 2 ; v_movrels_b32 v3, v1: v3 = v(1 + 2) = v3.
    assert_eq!(run(1, 2, 0x1234_5678, &[0xbefc0382, 0x7e068701]), 0x1234_5678);
    // v_movrels with M0 = 1 reads v2.
    assert_eq!(run(1, 2, 3, &[0xbefc0381, 0x7e068701]), 2);
}

#[test]
fn gfx10_3_dot_products_are_not_gfx1013_instructions() {
    // RDNA2 Float16Dot's word at 0x18: llvm-mc-22 --disassemble prints `v_dot2c_f32_f16 v10,
    // v4, v5` for gfx1011, gfx1012 and gfx1030 and "invalid instruction encoding" for gfx1013,
    // which has no dot-product instructions; the gfx1013 decoder agrees, and the lifter's
    // error is a typed decode error at that address.
    let code: Vec<u8> = [0xbf800000u32, 0x04140b04, 0xbf810000].iter().flat_map(|w| w.to_le_bytes()).collect();
    match lift(Isa::Gfx1013, &code, 0x14, &Options::default()) {
        Err(isabridge_decoder::lift::LiftError::Decode { isa, addr, .. }) => {
            assert_eq!(isa, Isa::Gfx1013);
            assert_eq!(addr, 0x18);
        }
        other => panic!("{other:?}"),
    }
}
