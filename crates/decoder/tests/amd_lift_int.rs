//! Vector and scalar integer ops of the AMD lifter, lifted and interpreted on a wave32 and
//! compared with the operation definitions of AMD's RDNA ISA guide (v_perm_b32 selectors,
//! bfe, alignbit, mad_u64_u32 with carry, mbcnt, sad / msad, readlane / writelane, s_bfe,
//! s_ff1, s_flbit, saveexec, 64-bit shifts). No RDNA2 hardware vector covers these; the
//! expected values below are computed from those definitions. The code words are
//! llvm-mc-22 -mcpu=gfx1013's encoding of the listed assembly.

use isabridge_decoder::lift::amd::{lift, Options, SystemValue};
use isabridge_decoder::Isa;
use isabridge_ir::interp::{self, Config, Input, Memory};

const OUT: u64 = 0x2_0000_0000;

/// v_lshlrev_b32 v1, 6, v0 ; v_mul_lo_u32 v2, v0, 0x9e3779b9 ; v_xor_b32 v3, 0x5bd1e995, v2 ;
/// then one result per 4-byte slot of a 64-byte lane record (buffer_store_dword ... offen
/// offset:4k) for: v_perm_b32 v2, v3, 0x0c0d0801 ; v_bfe_i32 v2, v0, 9 ; v_alignbit_b32 v2,
/// v3, v0 ; v_mad_u64_u32 v[10:11], s4, v2, v3, v[2:3] (lo, hi, carry via v_cndmask) ;
/// v_mbcnt_lo_u32_b32 0x55555555, 7 ; v_msad_u8 v2, v3, 100 ; v_sad_u8 v2, v3, 100 ;
/// v_readlane_b32 s5, v2, 5 + v_writelane_b32 v3, s5, 9 ; s_bfe_u32 (0x00f0f000, 0x80006) ;
/// s_ff1_i32_b32 ; s_flbit_i32_b32 ; v_cmp_gt_u32 vcc_lo, 4, v0 + s_and_saveexec_b32 s10
/// (stored under the new EXEC) ; s_mov_b32 exec_lo, s10 ; v_lshlrev_b64 v[10:11], v0, v[2:3]
/// (high word) ; s_endpgm.
const CODE: [u32; 76] = [
    0x34020086, 0xd5690002, 0x0001ff00, 0x9e3779b9, 0x3a0604ff, 0x5bd1e995, 0xd744000a, 0x03fe0702, 0x0c0d0801,
    0xe0701000, 0x80000a01, 0xd549000a, 0x02260102, 0xe0701004, 0x80000a01, 0xd54e000a, 0x04020702, 0xe0701008,
    0x80000a01, 0xd576040a, 0x040a0702, 0xe070100c, 0x80000a01, 0xe0701010, 0x80000b01, 0xd501000a, 0x00110280,
    0xe0701014, 0x80000a01, 0xd765000a, 0x00010eff, 0x55555555, 0xe0701018, 0x80000a01, 0xd571000a, 0x03fe0702,
    0x00000064, 0xe070101c, 0x80000a01, 0xd55a000a, 0x03fe0702, 0x00000064, 0xe0701020, 0x80000a01, 0xd7600005,
    0x00010b02, 0xd7610003, 0x00011205, 0xe0701024, 0x80000301, 0xbe8603ff, 0x00f0f000, 0x9387ff06, 0x00080006,
    0xbe881306, 0xbe891506, 0x7e140207, 0xe0701028, 0x80000a01, 0x7e140208, 0xe070102c, 0x80000a01, 0x7e140209,
    0xe0701030, 0x80000a01, 0x7d880084, 0xbe8a3c6a, 0x7e14020a, 0xe0701034, 0x80000a01, 0xbefe030a, 0xd6ff000a,
    0x00020500, 0xe0701038, 0x80000b01, 0xbf810000,
];

fn run() -> Vec<[u32; 16]> {
    let bytes: Vec<u8> = CODE.iter().flat_map(|w| w.to_le_bytes()).collect();
    let opts = Options { user_sgprs: 4, vgpr_inputs: vec![SystemValue::LocalIdX], ..Options::default() };
    let f = lift(Isa::Gfx1013, &bytes, 0, &opts).expect("lifts");
    let size = 32 * 64;
    let desc = [OUT as u32, (OUT >> 32) as u32, size as u32, 0x31016fac];
    let mut ins: Vec<Input> = desc.iter().map(|w| Input::Uniform(*w as u64)).collect();
    ins.push(Input::PerLane((0..32).collect()));
    let out: Vec<u8> = std::iter::repeat_n(0xdeadbeef_u32.to_le_bytes(), size / 4).flatten().collect();
    let mem = Memory { global: vec![(OUT, out)], ..Memory::default() };
    let r = interp::run(&f, &Config { wave_size: 32, waves: 1, ..Config::default() }, &ins, mem).expect("runs");
    let o = &r.memory.global[0].1;
    (0..32)
        .map(|l| std::array::from_fn(|k| u32::from_le_bytes(o[l * 64 + k * 4..l * 64 + k * 4 + 4].try_into().unwrap())))
        .collect()
}

/// v_perm_b32 byte select over {S0, S1} (S1 the low word): 0-7 a byte, 8-11 the sign of byte
/// 1, 3, 5, 7 replicated, 12 zero, 13+ 0xff.
fn perm(s0: u32, s1: u32, sel: u32) -> u32 {
    let x = (s0 as u64) << 32 | s1 as u64;
    let byte = |i: u32| (x >> (8 * i)) as u32 & 0xff;
    (0..4).fold(0, |r, k| {
        let s = sel >> (8 * k) & 0xff;
        let v = match s {
            0..=7 => byte(s),
            8..=11 => {
                if byte(2 * (s - 8) + 1) & 0x80 != 0 {
                    0xff
                } else {
                    0
                }
            }
            12 => 0,
            _ => 0xff,
        };
        r | v << (8 * k)
    })
}

fn sad(a: u32, b: u32, masked: bool) -> u32 {
    (0..4)
        .map(|k| {
            let (x, y) = (a >> (8 * k) & 0xff, b >> (8 * k) & 0xff);
            if masked && y == 0 {
                0
            } else {
                x.abs_diff(y)
            }
        })
        .sum()
}

#[test]
fn integer_ops_follow_the_isa_definitions() {
    let got = run();
    let a = |l: u32| l.wrapping_mul(0x9e3779b9);
    let b = |l: u32| 0x5bd1e995 ^ a(l);
    for l in 0..32u32 {
        let (x, y) = (a(l), b(l));
        let g = got[l as usize];
        assert_eq!(g[0], perm(x, y, 0x0c0d0801), "v_perm_b32 lane {l}");
        // v_bfe_i32: 9 bits from offset l, sign-extended (bits past 31 repeat bit 31).
        let wide = (x as i32 as i64) >> l;
        let want_bfe = ((wide << 55) >> 55) as u32;
        assert_eq!(g[1], want_bfe, "v_bfe_i32 lane {l}");
        assert_eq!(g[2], (((x as u64) << 32 | y as u64) >> (l & 31)) as u32, "v_alignbit_b32 lane {l}");
        let c = (y as u64) << 32 | x as u64;
        let full = x as u128 * y as u128 + c as u128;
        assert_eq!((g[3], g[4], g[5]), (full as u32, (full >> 32) as u32, (full >> 64) as u32), "v_mad_u64_u32 lane {l}");
        assert_eq!(g[6], (0x55555555u32 & ((1u64 << l) - 1) as u32).count_ones() + 7, "v_mbcnt_lo lane {l}");
        assert_eq!(g[7], sad(x, y, true) + 100, "v_msad_u8 lane {l}");
        assert_eq!(g[8], sad(x, y, false) + 100, "v_sad_u8 lane {l}");
        assert_eq!(g[9], if l == 9 { a(5) } else { y }, "v_writelane of v_readlane lane {l}");
        assert_eq!(g[10], 0x00f0f000 >> 6 & 0xff, "s_bfe_u32");
        assert_eq!(g[11], 12, "s_ff1_i32_b32");
        assert_eq!(g[12], 8, "s_flbit_i32_b32");
        assert_eq!(g[13], if l < 4 { u32::MAX } else { 0xdeadbeef }, "s_and_saveexec_b32 lane {l}");
        // v3 is the writelane result by now.
        let c2 = (g[9] as u64) << 32 | x as u64;
        assert_eq!(g[14], ((c2 << l) >> 32) as u32, "v_lshlrev_b64 lane {l}");
    }
}
