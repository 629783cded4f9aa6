//! gfx1201 memory encodings on the AMD lifter, lifted and run on the IR interpreter: VGLOBAL,
//! VFLAT and VSCRATCH (24-bit signed offsets, SADDR forms, scratch with both a VGPR and an SGPR,
//! d16_hi loads and stores, integer and float atomics with TH's return bit, global_wb /
//! global_inv), SMEM (s_load_b96, a negative IOFFSET with SOFFSET, s_buffer_load and its range
//! check), VDS (the gfx1013 LDS test's program under gfx12 names, with the same expected values,
//! plus ds_cmpstore's gfx12 operand order, float add / max_num, bpermute, append / consume) and
//! VBUFFER (a gfx12 V# with a scaled stride and a gfx12 format code, TBUFFER's gfx12 format
//! numbering, atomics). Code words are llvm-mc-22 -triple=amdgcn -mcpu=gfx1201 -show-encoding's
//! encoding of the listed assembly; expected values follow the RDNA4 ISA guide's instruction
//! definitions (§8.4.1 scalar buffer range, §9 buffer addressing and V#, §11 flat/global/scratch
//! fields, §16.15 DS). A property test lifts corpus memory instructions with random operand
//! dwords: valid IR or a typed error, never a panic.
use isabridge_decoder::lift::amd::{lift, Options, SystemValue};
use isabridge_decoder::Isa;
use isabridge_ir::interp::{self, Config, Input, Memory};
use isabridge_ir::validate::validate;

const BUF0: u64 = 0x1_0000_0000;
const BUF1: u64 = 0x2_0000_0000;

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn word(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
}

/// A raw gfx12 V# over `len` bytes at `base`: dst_sel xyzw, format 32_FLOAT (gfx12 code 22),
/// OOB_SELECT 3 (raw).
fn vsharp(base: u64, len: usize) -> [u32; 4] {
    [base as u32, (base >> 32) as u32 & 0xffff, len as u32, 0x3001_6fac]
}

/// Lift `code` for gfx1201 wave32 with the user SGPRs `sgprs` (s0..) and v0 = lane id, run it on
/// the global buffers with `shared` bytes of LDS and `scratch` bytes of scratch per lane, and
/// return the global buffers after the run.
fn run(code: &[u32], sgprs: &[u32], global: Vec<(u64, Vec<u8>)>, shared: usize, scratch: usize) -> Vec<Vec<u8>> {
    let opts = Options { user_sgprs: sgprs.len() as u32, vgpr_inputs: vec![SystemValue::LocalIdX], ..Options::default() };
    let f = lift(Isa::Gfx1201, &bytes(code), 0, &opts).expect("lifts");
    validate(&f).expect("valid IR");
    let mut ins: Vec<Input> = sgprs.iter().map(|w| Input::Uniform(*w as u64)).collect();
    ins.push(Input::PerLane((0..32).collect()));
    let mem = Memory { global, shared: vec![0; shared], ..Memory::default() };
    let cfg = Config { scratch_bytes: scratch, ..Config::default() };
    let r = interp::run(&f, &cfg, &ins, mem).expect("runs");
    r.memory.global.into_iter().map(|(_, b)| b).collect()
}

#[test]
fn global_flat_scratch_and_scalar_loads() {
    let code = [
        0xbe900090, // s_mov_b32 s16, 16
        0xf400a304, 0xf8000008, // s_load_b96 s[12:14], s[8:9], 0x8
        0xf40003c4, 0x20fffffc, // s_load_b32 s15, s[8:9], s16 offset:-0x4
        0xf4022480, 0x20000008, // s_buffer_load_b64 s[18:19], s[0:3], s16 offset:0x8
        0xf4020542, 0xf8000014, // s_buffer_load_b32 s21, s[4:7], 0x14
        0xf4020582, 0xf8000020, // s_buffer_load_b32 s22, s[4:7], 0x20
        0xbfc70000, // s_wait_kmcnt 0x0
        0x30020082, // v_lshlrev_b32_e32 v1, 2, v0
        0x30280086, // v_lshlrev_b32_e32 v20, 6, v0
        0xee050008, 0x00000002, 0x00001001, // global_load_b32 v2, v1, s[8:9] offset:16
        0x7e0602ff, 0xdeadbeef, // v_mov_b32_e32 v3, 0xdeadbeef
        0xee08c008, 0x00000003, 0x00000001, // global_load_d16_hi_b16 v3, v1, s[8:9]
        0x7e08020c, // v_mov_b32_e32 v4, s12
        0x7e0a020f, // v_mov_b32_e32 v5, s15
        0x7e160209, // v_mov_b32_e32 v11, s9
        0x4a1402ff, 0x00020000, // v_add_nc_u32_e32 v10, 0x20000, v1
        0xee05007c, 0x00000006, 0xfe00080a, // global_load_b32 v6, v[10:11], off offset:-131064
        0xec05007c, 0x00000007, 0xfe00040a, // flat_load_b32 v7, v[10:11] offset:-131068
        0xbe900088, // s_mov_b32 s16, 8
        0x7e2a0280, // v_mov_b32_e32 v21, 0
        0xed068010, 0x01020000, 0xfffffc15, // scratch_store_b32 v21, v2, s16 offset:-4
        0xed050010, 0x00000008, 0xfffffc00, // scratch_load_b32 v8, off, s16 offset:-4
        0x7e2c0282, // v_mov_b32_e32 v22, 2
        0xed05007c, 0x00020009, 0x00000216, // scratch_load_b32 v9, v22, off offset:2
        0x4a2e0081, // v_add_nc_u32_e32 v23, 1, v0
        0xee0d4008, 0x0b90000c, 0x00008001, // global_atomic_add_u32 v12, v1, v23, s[8:9] offset:128 th:TH_ATOMIC_RETURN
        0x7e3002ff, 0x40100000, // v_mov_b32_e32 v24, 0x40100000
        0xee158008, 0x0c10000d, 0x00010001, // global_atomic_add_f32 v13, v1, v24, s[8:9] offset:256 th:TH_ATOMIC_RETURN
        0x7e3202ff, 0x41200000, // v_mov_b32_e32 v25, 0x41200000
        0xee148008, 0x0c800000, 0x00010001, // global_atomic_max_num_f32 v1, v25, s[8:9] offset:256
        0x7e340287, // v_mov_b32_e32 v26, 7
        0x36380081, // v_and_b32_e32 v28, 1, v0
        0xd655001b, 0x03fe3900, 0x000003f8, // v_add3_u32 v27, v0, v28, 0x3f8
        0xee0d0008, 0x0d10000e, 0x00018001, // global_atomic_cmpswap_b32 v14, v1, v[26:27], s[8:9] offset:384 th:TH_ATOMIC_RETURN
        0x7e1e0213, // v_mov_b32_e32 v15, s19
        0xee0b007c, 0x000c0000, 0x00000000, // global_wb scope:SCOPE_SYS
        0xee0ac07c, 0x00080000, 0x00000000, // global_inv scope:SCOPE_DEV
        0xbfc00000, // s_wait_loadcnt 0x0
        0xee07400a, 0x01000000, 0x00000014, // global_store_b128 v20, v[2:5], s[10:11]
        0xee07400a, 0x03000000, 0x00001014, // global_store_b128 v20, v[6:9], s[10:11] offset:16
        0xee07400a, 0x06000000, 0x00002014, // global_store_b128 v20, v[12:15], s[10:11] offset:32
        0xee09400a, 0x01800000, 0x00003014, // global_store_d16_hi_b16 v20, v3, s[10:11] offset:48
        0xee06000a, 0x01000000, 0x00003214, // global_store_b8 v20, v2, s[10:11] offset:50
        0x7e200212, // v_mov_b32_e32 v16, s18
        0xee06800a, 0x08000000, 0x00003414, // global_store_b32 v20, v16, s[10:11] offset:52
        0x7e220215, // v_mov_b32_e32 v17, s21
        0x7e240216, // v_mov_b32_e32 v18, s22
        0xee06c00a, 0x08800000, 0x00003814, // global_store_b64 v20, v[17:18], s[10:11] offset:56
        0xbfb00000, // s_endpgm
    ];
    // buf0 dwords 0..64: 1000 + i; 64..96: f32 (i - 64) + 0.5; 96..128: 1016 + (i - 96).
    let mut buf0: Vec<u32> = (0..128).map(|i| if i < 64 { 1000 + i } else { 0 }).collect();
    for l in 0..32 {
        buf0[64 + l] = (l as f32 + 0.5).to_bits();
        buf0[96 + l] = 1016 + l as u32;
    }
    let mut sgprs = vsharp(BUF0, 512).to_vec();
    // s[4:7]: stride 16, 2 records, OOB_SELECT 0: s_buffer_load's range is offset < 16 × 2 (§8.4.1).
    sgprs.extend([BUF0 as u32, (BUF0 >> 32) as u32 | 16 << 16, 2, 0xfac | 22 << 12]);
    sgprs.extend([BUF0 as u32, (BUF0 >> 32) as u32, BUF1 as u32, (BUF1 >> 32) as u32]);
    let out = run(&code, &sgprs, vec![(BUF0, bytes(&buf0)), (BUF1, vec![0; 32 * 64])], 0, 16);
    let (b0, b1) = (&out[0], &out[1]);
    for l in 0..32u32 {
        let w = |k: usize| word(b1, l as usize * 16 + k);
        assert_eq!(w(0), 1004 + l, "global_load_b32 with SADDR, lane {l}");
        assert_eq!(w(1), (1000 + l) << 16 | 0xbeef, "global_load_d16_hi_b16 keeps the low half, lane {l}");
        assert_eq!(w(2), 1002, "s_load_b96 dword 0 at +8");
        assert_eq!(w(3), 1003, "s_load_b32 at SOFFSET 16 + IOFFSET -4");
        assert_eq!(w(4), 1002 + l, "global_load_b32 with a 24-bit negative offset, lane {l}");
        assert_eq!(w(5), 1001 + l, "flat_load_b32 with a 24-bit negative offset, lane {l}");
        assert_eq!(w(6), 1004 + l, "scratch VGPR + SGPR + offset, read back through SGPR + offset, lane {l}");
        assert_eq!(w(7), 1004 + l, "scratch VGPR (SVE) + offset, lane {l}");
        assert_eq!(w(8), 1032 + l, "global_atomic_add_u32 returns the old value, lane {l}");
        assert_eq!(w(9), (l as f32 + 0.5).to_bits(), "global_atomic_add_f32 returns the old value, lane {l}");
        assert_eq!(w(10), 1016 + l, "global_atomic_cmpswap_b32 returns the old value, lane {l}");
        assert_eq!(w(11), 1007, "s_buffer_load_b64 dword 1 at SOFFSET 16 + 8");
        assert_eq!(w(12) & 0xffff, (1000 + l) & 0xffff, "global_store_d16_hi_b16, lane {l}");
        assert_eq!(w(12) >> 16, (1004 + l) & 0xff, "global_store_b8 at +50 (byte 51 untouched), lane {l}");
        assert_eq!(w(13), 1006, "s_buffer_load_b64 dword 0");
        assert_eq!(w(14), 1005, "s_buffer_load_b32 at 20 < stride 16 × 2 records");
        assert_eq!(w(15), 0, "s_buffer_load_b32 at 32 is out of range");
        let m = |i: usize| word(b0, i);
        assert_eq!(m(32 + l as usize), 1033 + 2 * l, "atomic add stored old + l + 1, lane {l}");
        let f = f32::from_bits(m(64 + l as usize));
        assert_eq!(f, (l as f32 + 2.75).max(10.0), "add_f32 2.25 then max_num_f32 10.0, lane {l}");
        let swapped = if l % 2 == 0 { 7 } else { 1016 + l };
        assert_eq!(m(96 + l as usize), swapped, "cmpswap stores VDATA[0] where VDATA[1] matched, lane {l}");
    }
}

#[test]
fn lds_under_gfx12_names_and_buffer_stores() {
    let code = [
        0x30020082, // v_lshlrev_b32_e32 v1, 2, v0
        0x4a0400ff, 0x00000064, // v_add_nc_u32_e32 v2, 0x64, v0
        0xd8340000, 0x00000201, // ds_store_b32 v1, v2
        0xd83c0201, 0x00020001, // ds_store_2addr_stride64_b32 v1, v0, v2 offset0:1 offset1:2
        0xbfc60000, // s_wait_dscnt 0x0
        0xd8dc0001, 0x04000001, // ds_load_2addr_b32 v[4:5], v1 offset0:1
        0xd8e00201, 0x06000001, // ds_load_2addr_stride64_b32 v[6:7], v1 offset0:1 offset1:2
        0xd8e80000, 0x08000001, // ds_load_u8 v8, v1
        0xd8e40200, 0x09000001, // ds_load_i8 v9, v1 offset:512
        0x7e1402ff, 0xdeadbeef, // v_mov_b32_e32 v10, 0xdeadbeef
        0xda9c0000, 0x0a000001, // ds_load_u16_d16_hi v10, v1
        0xd8800000, 0x0b000001, // ds_add_rtn_u32 v11, v1, v0
        0xd8d80000, 0x0c000001, // ds_load_b32 v12, v1
        0x7e1a0287, // v_mov_b32_e32 v13, 7
        0xd8c00000, 0x0d0c0d01, // ds_cmpstore_rtn_b32 v13, v1, v13, v12
        0xd8d80000, 0x0e000001, // ds_load_b32 v14, v1
        0x7e1e02ff, 0x3fc00000, // v_mov_b32_e32 v15, 0x3fc00000
        0xd9e40400, 0x10000f01, // ds_add_rtn_f32 v16, v1, v15 offset:1024
        0x7e2402f0, // v_mov_b32_e32 v18, 0.5
        0xd8cc0400, 0x11001201, // ds_max_num_rtn_f32 v17, v1, v18 offset:1024
        0xd8d80400, 0x13000001, // ds_load_b32 v19, v1 offset:1024
        0x3a2a0284, // v_xor_b32_e32 v21, 4, v1
        0xdacc0000, 0x14000215, // ds_bpermute_b32 v20, v21, v2
        0xd8d48039, 0x16000002, // ds_swizzle_b32 v22, v2 offset:swizzle(QUAD_PERM,1,2,3,0)
        0xd8d4041f, 0x17000002, // ds_swizzle_b32 v23, v2 offset:swizzle(SWAP,1)
        0xbefd0080, // s_mov_b32 m0, 0
        0x7e300280, // v_mov_b32_e32 v24, 0
        0x7e3202a8, // v_mov_b32_e32 v25, 40
        0xd8340800, 0x00001918, // ds_store_b32 v24, v25 offset:2048
        0xbe94007e, // s_mov_b32 s20, exec_lo
        0xbefe00ff, 0x0000f0f0, // s_mov_b32 exec_lo, 0xf0f0
        0xd8f80800, 0x1a000000, // ds_append v26 offset:2048
        0xbefe0014, // s_mov_b32 exec_lo, s20
        0xd8f40800, 0x1b000000, // ds_consume v27 offset:2048
        0x30060087, // v_lshlrev_b32_e32 v3, 7, v0
        0xc407407c, 0x40800004, 0x00000003, // buffer_store_b128 v[4:7], v3, s[0:3], null offen
        0xc407407c, 0x40800008, 0x00001003, // buffer_store_b128 v[8:11], v3, s[0:3], null offen offset:16
        0xc407407c, 0x4080000c, 0x00002003, // buffer_store_b128 v[12:15], v3, s[0:3], null offen offset:32
        0xc407407c, 0x40800010, 0x00003003, // buffer_store_b128 v[16:19], v3, s[0:3], null offen offset:48
        0xc407407c, 0x40800014, 0x00004003, // buffer_store_b128 v[20:23], v3, s[0:3], null offen offset:64
        0xc406c07c, 0x4080001a, 0x00005003, // buffer_store_b64 v[26:27], v3, s[0:3], null offen offset:80
        0xbfb00000, // s_endpgm
    ];
    let out = run(&code, &vsharp(BUF0, 32 * 128), vec![(BUF0, vec![0; 32 * 128])], 4096, 0);
    for l in 0..32u32 {
        let w = |k: usize| word(&out[0], l as usize * 32 + k);
        // As amd_lift_mem's gfx1013 program: LDS [4l] = 100 + l, [256 + 4l] = l, [512 + 4l] = 100 + l.
        assert_eq!(w(0), if l < 31 { 101 + l } else { 0 }, "load_2addr offset0:1, lane {l}");
        assert_eq!(w(1), 100 + l, "load_2addr offset1:0, lane {l}");
        assert_eq!(w(2), l, "load_2addr_stride64 offset0:1, lane {l}");
        assert_eq!(w(3), 100 + l, "load_2addr_stride64 offset1:2, lane {l}");
        assert_eq!(w(4), 100 + l, "load_u8, lane {l}");
        assert_eq!(w(5), (100 + l) as u8 as i8 as i32 as u32, "load_i8 sign-extends, lane {l}");
        assert_eq!(w(6), (100 + l) << 16 | 0xbeef, "load_u16_d16_hi keeps the low half, lane {l}");
        assert_eq!(w(7), 100 + l, "add_rtn_u32 returns the old value, lane {l}");
        assert_eq!(w(8), 100 + 2 * l, "add_rtn_u32 stored the sum, lane {l}");
        // ds_cmpstore_rtn_b32 v13, v1, v13, v12: DATA0 (7) is stored where DATA1 (the current value) matches.
        assert_eq!(w(9), 100 + 2 * l, "cmpstore returns the old value, lane {l}");
        assert_eq!(w(10), 7, "cmpstore stored DATA0, lane {l}");
        assert_eq!(w(12), 0, "add_rtn_f32 returns the old value (0), lane {l}");
        assert_eq!(w(13), 1.5f32.to_bits(), "max_num_rtn_f32 returns 0 + 1.5, lane {l}");
        assert_eq!(w(15), 1.5f32.to_bits(), "max_num(1.5, 0.5) kept 1.5, lane {l}");
        assert_eq!(w(16), 100 + (l ^ 1), "bpermute from byte address 4l ^ 4, lane {l}");
        assert_eq!(w(18), 100 + (l & !3) + [1, 2, 3, 0][(l & 3) as usize], "swizzle QUAD_PERM(1,2,3,0), lane {l}");
        assert_eq!(w(19), 100 + (l ^ 1), "swizzle SWAP 1, lane {l}");
        assert_eq!(w(20), if 0xf0f0u32 >> l & 1 != 0 { 40 } else { 0 }, "append under 0xf0f0, lane {l}");
        assert_eq!(w(21), 48, "consume returns the counter before it (40 + 8), lane {l}");
    }
}

#[test]
fn buffer_loads_formats_and_atomics_through_a_gfx12_vsharp() {
    let code = [
        0x30020084, // v_lshlrev_b32_e32 v1, 4, v0
        0x303c0086, // v_lshlrev_b32_e32 v30, 6, v0
        0xbe8c0084, // s_mov_b32 s12, 4
        0xc405000c, 0x40800002, 0x00000001, // buffer_load_b32 v2, v1, s[0:3], s12 offen
        0xc405007c, 0x80801003, 0x00000400, // buffer_load_b32 v3, v0, s[8:11], null idxen offset:4
        0x4a0800a0, // v_add_nc_u32_e32 v4, 32, v0
        0xc405007c, 0x80801004, 0x00000404, // buffer_load_b32 v4, v4, s[8:11], null idxen offset:4
        0xc400c07c, 0x80801005, 0x00000000, // buffer_load_format_xyzw v[5:8], v0, s[8:11], null idxen
        0xc420407c, 0x55000009, 0x00000001, // tbuffer_load_format_xy v[9:10], v1, s[0:3], null format:[BUF_FMT_8_8_8_8_UNORM] offen
        0x7e160285, // v_mov_b32_e32 v11, 5
        0xc40d407c, 0x4090000b, 0x00000801, // buffer_atomic_add_u32 v11, v1, s[0:3], null offen offset:8 th:TH_ATOMIC_RETURN
        0x7e180289, // v_mov_b32_e32 v12, 9
        0x4a1a00ff, 0x00000bbd, // v_add_nc_u32_e32 v13, 0xbbd, v0
        0xc40d007c, 0x4090000c, 0x00000801, // buffer_atomic_cmpswap_b32 v[12:13], v1, s[0:3], null offen offset:8 th:TH_ATOMIC_RETURN
        0x7e1c02f2, // v_mov_b32_e32 v14, 1.0
        0xc415807c, 0x4090000e, 0x00000c01, // buffer_atomic_add_f32 v14, v1, s[0:3], null offen offset:12 th:TH_ATOMIC_RETURN
        0x7e1e02f6, // v_mov_b32_e32 v15, 4.0
        0xc414407c, 0x4080000f, 0x00000c01, // buffer_atomic_min_num_f32 v15, v1, s[0:3], null offen offset:12
        0xbfc00000, // s_wait_loadcnt 0x0
        0xc407407c, 0x40800802, 0x0000001e, // buffer_store_b128 v[2:5], v30, s[4:7], null offen
        0xc407407c, 0x40800806, 0x0000101e, // buffer_store_b128 v[6:9], v30, s[4:7], null offen offset:16
        0xc407407c, 0x4080080a, 0x0000201e, // buffer_store_b128 v[10:13], v30, s[4:7], null offen offset:32
        0xc406807c, 0x4080080e, 0x0000301e, // buffer_store_b32 v14, v30, s[4:7], null offen offset:48
        0xbfb00000, // s_endpgm
    ];
    // 32 records of 16 bytes: unorm8 x4 (x = 255 on odd lanes, y = 255 where bit 1 is set, z = 0,
    // w = 255), 2000 + i, 3000 + i, f32 i.
    let mut buf0 = Vec::new();
    for i in 0..32u32 {
        buf0.extend([(i & 1) as u8 * 255, (i >> 1 & 1) as u8 * 255, 0, 255]);
        for w in [2000 + i, 3000 + i, (i as f32).to_bits()] {
            buf0.extend(w.to_le_bytes());
        }
    }
    // Structured V# over buf0: stride 4 scaled ×4 (STRIDE_SCALE 1: 16 bytes), 32 records,
    // OOB_SELECT 0 (index < records and offset < stride), format 8_8_8_8_UNORM (gfx12 code 42).
    let structured = [BUF0 as u32, (BUF0 >> 32) as u32 | 4 << 16, 32, 0xfac | 42 << 12 | 1 << 18];
    let mut sgprs = vsharp(BUF0, buf0.len()).to_vec();
    sgprs.extend(vsharp(BUF1, 32 * 64));
    sgprs.extend(structured);
    let out = run(&code, &sgprs, vec![(BUF0, buf0), (BUF1, vec![0; 32 * 64])], 0, 0);
    let one = 1.0f32.to_bits();
    for l in 0..32u32 {
        let w = |k: usize| word(&out[1], l as usize * 16 + k);
        let (x, y) = (if l & 1 != 0 { one } else { 0 }, if l & 2 != 0 { one } else { 0 });
        assert_eq!(w(0), 2000 + l, "raw load at offen + soffset, lane {l}");
        assert_eq!(w(1), 2000 + l, "idxen load through the scaled stride (offset 4 < stride 16), lane {l}");
        assert_eq!(w(2), 0, "index 32 + l is out of range, lane {l}");
        assert_eq!([w(3), w(4), w(5), w(6)], [x, y, 0, one], "load_format_xyzw in the V#'s gfx12 format, lane {l}");
        assert_eq!([w(7), w(8)], [x, y], "tbuffer_load_format_xy in BUF_FMT_8_8_8_8_UNORM, lane {l}");
        assert_eq!(w(9), 3000 + l, "atomic add returns the old value, lane {l}");
        assert_eq!(w(10), 3005 + l, "cmpswap returns the old value, lane {l}");
        assert_eq!(w(11), 3005 + l, "cmpswap's compare register is unchanged, lane {l}");
        assert_eq!(w(12), (l as f32).to_bits(), "atomic add_f32 returns the old value, lane {l}");
        let rec = |k: usize| word(&out[0], l as usize * 4 + k);
        assert_eq!(rec(2), 9, "cmpswap stored the new value, lane {l}");
        assert_eq!(f32::from_bits(rec(3)), (l as f32 + 1.0).min(4.0), "add_f32 1.0 then min_num_f32 4.0, lane {l}");
    }
}

/// The first dword of every gfx1201 corpus instruction in a memory encoding (SMEM, VDS, VBUFFER,
/// VFLAT, VSCRATCH, VGLOBAL, by its top byte), distinct.
fn corpus_memory_first_words() -> &'static [u32] {
    static WORDS: std::sync::OnceLock<Vec<u32>> = std::sync::OnceLock::new();
    WORDS.get_or_init(|| {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/amd/ref");
        let mut out = std::collections::BTreeSet::new();
        for e in std::fs::read_dir(root).expect("fixtures/amd/ref") {
            let p = e.expect("entry").path();
            if !p.to_string_lossy().ends_with(".gfx1201-w32.jsonl") {
                continue;
            }
            for line in std::fs::read_to_string(&p).expect("corpus listing").lines() {
                let r: serde_json::Value = serde_json::from_str(line).expect("json row");
                let hex = r["bytes"].as_str().expect("bytes");
                let byte = |k: usize| u32::from_str_radix(&hex[2 * k..2 * k + 2], 16).expect("hex");
                let word = byte(0) | byte(1) << 8 | byte(2) << 16 | byte(3) << 24;
                if matches!(word >> 24, 0xf4 | 0xd8..=0xdb | 0xc4 | 0xc5 | 0xec..=0xee) {
                    out.insert(word);
                }
            }
        }
        out.into_iter().collect()
    })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20_000))]
    /// A corpus memory instruction's first dword (opcode and fields) with random operand dwords
    /// after it never makes the lifter panic: it lifts to valid IR or gives a typed error.
    #[test]
    fn mutated_memory_instructions_lift_to_valid_ir_or_a_typed_error(
        pick in proptest::prelude::any::<proptest::sample::Index>(),
        words in proptest::collection::vec(proptest::prelude::any::<u32>(), 2),
        wave64 in proptest::prelude::any::<bool>(),
    ) {
        let firsts = corpus_memory_first_words();
        let code = [*pick.get(firsts), words[0], words[1], 0xbfb0_0000];
        let opts = Options { wave64, user_sgprs: 16, ..Options::default() };
        if let Ok(f) = lift(Isa::Gfx1201, &bytes(&code), 0, &opts) {
            if let Err(e) = validate(&f) {
                return Err(proptest::test_runner::TestCaseError::fail(format!("{code:08x?}: {e:?}")));
            }
        }
    }
}
