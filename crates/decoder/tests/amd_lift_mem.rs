//! The AMD lifter's memory families on small programs, lifted and run on the IR interpreter:
//! LDS (DS) loads, stores, two-address forms, atomics, swizzles and append/consume; MUBUF
//! byte/short and d16 forms, compare-and-swap and the cache invalidations. Expected values
//! follow the instruction definitions LLVM's assembler syntax documents (swizzle patterns: lane
//! ids; BITMASK_PERM: and/or/xor masks on the 5-bit lane id) and AMD's (read2/write2 offsets in
//! elements, st64 in 64-element strides, cmpst compares DATA0 and stores DATA1, append/consume
//! add/subtract the active-lane count and return the previous value). The formatted buffer
//! conversions are checked against RDNA2 hardware by crates/cli/tests/conform_rdna.rs.

use isabridge_decoder::lift::amd::{lift, Options, SystemValue};
use isabridge_decoder::Isa;
use isabridge_ir::interp::{self, Config, Input, Memory};
use isabridge_ir::validate::validate;

const BUF0: u64 = 0x1_0000_0000;
const BUF1: u64 = 0x2_0000_0000;

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A raw V# over `len` bytes at `base`, as fixtures/rdna/HARNESS.md's std_buffer_v1.
fn vsharp(base: u64, len: usize) -> [u32; 4] {
    [base as u32, (base >> 32) as u32 & 0xffff, len as u32, 0x31016fac]
}

/// Lift `code` for wave32 with s[0:3] over buffer 0 and s[4:7] over buffer 1, run it with
/// `shared` bytes of LDS, and return the buffers after the run.
fn run(code: &[u32], buf0: Vec<u8>, buf1: Vec<u8>, shared: usize) -> (Vec<u8>, Vec<u8>) {
    let opts = Options { user_sgprs: 8, vgpr_inputs: vec![SystemValue::LocalIdX], ..Options::default() };
    let f = lift(Isa::Gfx1013, &bytes(code), 0, &opts).expect("lifts");
    validate(&f).expect("valid IR");
    let mut ins: Vec<Input> =
        vsharp(BUF0, buf0.len()).into_iter().chain(vsharp(BUF1, buf1.len())).map(|w| Input::Uniform(w as u64)).collect();
    ins.push(Input::PerLane((0..32).collect()));
    let mem = Memory { global: vec![(BUF0, buf0), (BUF1, buf1)], shared: vec![0; shared], ..Memory::default() };
    let r = interp::run(&f, &Config::default(), &ins, mem).expect("runs");
    (r.memory.global[0].1.clone(), r.memory.global[1].1.clone())
}

fn word(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
}

#[test]
fn lds_loads_stores_two_address_forms_and_atomics() {
    let code = [
        0x34020082, // v_lshlrev_b32_e32 v1, 2, v0
        0x4a0400ff, 0x00000064, // v_add_nc_u32_e32 v2, 0x64, v0
        0xd8340000, 0x00000201, // ds_write_b32 v1, v2
        0xd83c0201, 0x00020001, // ds_write2st64_b32 v1, v0, v2 offset0:1 offset1:2
        0xbf8cc07f, // s_waitcnt lgkmcnt(0)
        0xd8dc0001, 0x04000001, // ds_read2_b32 v[4:5], v1 offset0:1
        0xd8e00201, 0x06000001, // ds_read2st64_b32 v[6:7], v1 offset0:1 offset1:2
        0xd8e80000, 0x08000001, // ds_read_u8 v8, v1
        0xd8e40200, 0x09000001, // ds_read_i8 v9, v1 offset:512
        0x7e1402ff, 0xdeadbeef, // v_mov_b32_e32 v10, 0xdeadbeef
        0xda9c0000, 0x0a000001, // ds_read_u16_d16_hi v10, v1
        0xd8800000, 0x0b000001, // ds_add_rtn_u32 v11, v1, v0
        0xd8d80000, 0x0c000001, // ds_read_b32 v12, v1
        0x34060086, // v_lshlrev_b32_e32 v3, 6, v0
        0xe0781000, 0x80000403, // buffer_store_dwordx4 v[4:7], v3, s[0:3], 0 offen
        0xe0781010, 0x80000803, // buffer_store_dwordx4 v[8:11], v3, s[0:3], 0 offen offset:16
        0xe0701020, 0x80000c03, // buffer_store_dword v12, v3, s[0:3], 0 offen offset:32
        0xbf810000, // s_endpgm
    ];
    let (out, _) = run(&code, vec![0; 32 * 64], vec![0; 16], 1024);
    for l in 0..32u32 {
        let w = |k: usize| word(&out, l as usize * 16 + k);
        // LDS after the stores: [4l] = 100 + l, [256 + 4l] = l, [512 + 4l] = 100 + l.
        assert_eq!(w(0), if l < 31 { 101 + l } else { 0 }, "read2 offset0:1 (next dword), lane {l}");
        assert_eq!(w(1), 100 + l, "read2 offset1:0, lane {l}");
        assert_eq!(w(2), l, "read2st64 offset0:1 (256 bytes), lane {l}");
        assert_eq!(w(3), 100 + l, "read2st64 offset1:2 (512 bytes), lane {l}");
        assert_eq!(w(4), 100 + l, "read_u8, lane {l}");
        assert_eq!(w(5), (100 + l) as u8 as i8 as i32 as u32, "read_i8 sign-extends, lane {l}");
        assert_eq!(w(6), (100 + l) << 16 | 0xbeef, "read_u16_d16_hi keeps the low half, lane {l}");
        assert_eq!(w(7), 100 + l, "add_rtn returns the old value, lane {l}");
        assert_eq!(w(8), 100 + 2 * l, "add_rtn stored the sum, lane {l}");
    }
}

#[test]
fn lds_swizzle_append_consume_and_cmpst() {
    let code = [
        0x4a0400ff, 0x000003e8, // v_add_nc_u32_e32 v2, 0x3e8, v0
        0xd8d48039, 0x04000002, // ds_swizzle_b32 v4, v2 offset:swizzle(QUAD_PERM,1,2,3,0)
        0xd8d4041f, 0x05000002, // ds_swizzle_b32 v5, v2 offset:swizzle(SWAP,1)
        0xd8d40445, 0x06000002, // ds_swizzle_b32 v6, v2 offset:swizzle(BITMASK_PERM,"00p1i")
        0xd8d41c1f, 0x07000002, // ds_swizzle_b32 v7, v2 offset:swizzle(REVERSE,8)
        0xbefc0380, // s_mov_b32 m0, 0
        0x7e020280, // v_mov_b32_e32 v1, 0
        0x7e0602a8, // v_mov_b32_e32 v3, 40
        0xd8340010, 0x00000301, // ds_write_b32 v1, v3 offset:16
        0xbe84037e, // s_mov_b32 s4, exec_lo
        0xbefe03ff, 0x0000f0f0, // s_mov_b32 exec_lo, 0xf0f0
        0xd8f80010, 0x08000000, // ds_append v8 offset:16
        0xbefe0304, // s_mov_b32 exec_lo, s4
        0xd8f40010, 0x09000000, // ds_consume v9 offset:16
        0xd8d80010, 0x0a000001, // ds_read_b32 v10, v1 offset:16
        0x7e160287, // v_mov_b32_e32 v11, 7
        0xd8c00010, 0x0b000a01, // ds_cmpst_rtn_b32 v11, v1, v10, v0 offset:16
        0xd8d80010, 0x0c000001, // ds_read_b32 v12, v1 offset:16
        0x34060086, // v_lshlrev_b32_e32 v3, 6, v0
        0xe0781000, 0x80000403, // buffer_store_dwordx4 v[4:7], v3, s[0:3], 0 offen
        0xe0781010, 0x80000803, // buffer_store_dwordx4 v[8:11], v3, s[0:3], 0 offen offset:16
        0xe0701020, 0x80000c03, // buffer_store_dword v12, v3, s[0:3], 0 offen offset:32
        0xbf810000, // s_endpgm
    ];
    let (out, _) = run(&code, vec![0; 32 * 64], vec![0; 16], 64);
    let mut winners = Vec::new();
    for l in 0..32u32 {
        let w = |k: usize| word(&out, l as usize * 16 + k);
        assert_eq!(w(0), 1000 + (l & !3) + [1, 2, 3, 0][(l & 3) as usize], "QUAD_PERM(1,2,3,0), lane {l}");
        assert_eq!(w(1), 1000 + (l ^ 1), "SWAP 1, lane {l}");
        assert_eq!(w(2), 1000 + (((l & 5) | 2) ^ 1), "BITMASK_PERM 00p1i, lane {l}");
        assert_eq!(w(3), 1000 + (l ^ 7), "REVERSE 8, lane {l}");
        // ds_append under EXEC 0xf0f0: 8 lanes, each gets the counter before (40); others keep 0.
        assert_eq!(w(4), if 0xf0f0u32 >> l & 1 != 0 { 40 } else { 0 }, "append, lane {l}");
        assert_eq!(w(5), 48, "consume returns the counter before it (40 + 8), lane {l}");
        assert_eq!(w(6), 16, "the counter after consume (48 - 32), lane {l}");
        if w(7) == 16 {
            winners.push(l);
        } else {
            assert_eq!(w(7), 0, "cmpst of a lost compare returns what it read, lane {l}");
        }
    }
    // One lane's compare (16) matched and stored its lane id; the others then read that.
    assert_eq!(winners.len(), 1, "{winners:?}");
    for l in 0..32 {
        assert_eq!(word(&out, l * 16 + 8), winners[0]);
    }
}

#[test]
fn buffer_byte_short_d16_forms_cmpswap_and_invalidations() {
    let code = [
        0x34020082, // v_lshlrev_b32_e32 v1, 2, v0
        0xe0241000, 0x80000401, // buffer_load_sbyte v4, v1, s[0:3], 0 offen
        0xe0281001, 0x80000501, // buffer_load_ushort v5, v1, s[0:3], 0 offen offset:1
        0x7e0c02ff, 0x11112222, // v_mov_b32_e32 v6, 0x11112222
        0xe0841003, 0x80000601, // buffer_load_ubyte_d16_hi v6, v1, s[0:3], 0 offen offset:3
        0x7e0e0285, // v_mov_b32_e32 v7, 5
        0x7e1002ff, 0xaabbccdd, // v_mov_b32_e32 v8, 0xaabbccdd
        0xe0c45000, 0x80000701, // buffer_atomic_cmpswap v[7:8], v1, s[0:3], 0 offen glc
        0x7e1202ff, 0x12345678, // v_mov_b32_e32 v9, 0x12345678
        0xe0601080, 0x80000901, // buffer_store_byte v9, v1, s[0:3], 0 offen offset:128
        0xe06c1082, 0x80000901, // buffer_store_short_d16_hi v9, v1, s[0:3], 0 offen offset:130
        0xe1c40000, 0x00000000, // buffer_gl0_inv
        0xe1c80000, 0x00000000, // buffer_gl1_inv
        0x34060084, // v_lshlrev_b32_e32 v3, 4, v0
        0xe0781000, 0x80010403, // buffer_store_dwordx4 v[4:7], v3, s[4:7], 0 offen
        0xbf810000, // s_endpgm
    ];
    let input = |l: u32| if l == 0 { 0xaabbccdd } else { 0x80c0_e0f0u32.wrapping_add(l * 0x0103_0507) };
    let buf0: Vec<u8> = (0..64u32).flat_map(|i| if i < 32 { input(i) } else { 0 }.to_le_bytes()).collect();
    let (mem, out) = run(&code, buf0, vec![0; 32 * 16], 0);
    for l in 0..32u32 {
        let x = input(l);
        let w = |k: usize| word(&out, l as usize * 4 + k);
        assert_eq!(w(0), x as u8 as i8 as i32 as u32, "load_sbyte, lane {l}");
        assert_eq!(w(1), x >> 8 & 0xffff, "load_ushort at offset 1, lane {l}");
        assert_eq!(w(2), (x >> 24) << 16 | 0x2222, "load_ubyte_d16_hi keeps the low half, lane {l}");
        assert_eq!(w(3), x, "cmpswap glc returns the old value, lane {l}");
        assert_eq!(word(&mem, l as usize), if l == 0 { 5 } else { x }, "cmpswap stores on a match only, lane {l}");
        assert_eq!(word(&mem, 32 + l as usize), 0x1234_0078, "store_byte and store_short_d16_hi, lane {l}");
    }
}

#[test]
fn formatted_buffer_ops_print_and_parse() {
    use isabridge_ir::ops::buffer::{format_of_code, BufferKind, BufferOp};
    use isabridge_ir::ops::format::{Format, NumFormat};
    // gfx10 format codes (shared/facts/amd/descriptor_enums.csv): 36 10_11_11_FLOAT (x in the
    // low 11 bits), 51 2_10_10_10_SNORM, 56 8_8_8_8_UNORM, 0 invalid.
    assert_eq!(format_of_code(36), Some(Format { widths: [11, 11, 10, 0], num: NumFormat::Float }));
    assert_eq!(format_of_code(51), Some(Format { widths: [10, 10, 10, 2], num: NumFormat::Snorm }));
    assert_eq!(format_of_code(56), Some(Format { widths: [8, 8, 8, 8], num: NumFormat::Unorm }));
    assert_eq!(format_of_code(0), None);
    for code in 1..=77u8 {
        if let Some(f) = format_of_code(code) {
            assert!(f.is_valid(), "code {code}: {f:?}");
            let kinds = [
                BufferKind::LoadFormat { format: Some(f), comp: 2, half: true },
                BufferKind::StoreFormat { format: Some(f), comps: 3, half: false },
                BufferKind::LoadFormat { format: None, comp: 0, half: false },
            ];
            for kind in kinds {
                let bo = BufferOp { kind, bytes: 4, offset: 12, idxen: false, offen: true };
                let m = bo.mnemonic();
                let parts: Vec<&str> = m.split('.').collect();
                assert_eq!(BufferOp::parse(parts[0], &parts[1..]), Some(bo), "{m}");
            }
        }
    }
}
