//! gfx1201 code on the AMD lifter: ALU instructions under their gfx12 names (s_add_co_u32,
//! s_add_co_ci_u32, s_and_not1_b32), a VOPD pair whose second half reads the first half's
//! destination (both halves read before either writes), and gfx12's waits. Code words are
//! llvm-mc-22 -mcpu=gfx1201's encoding of the listed assembly; the results are read back from
//! the registers at the end of the program.

use isabridge_decoder::lift::amd::{lift, Options};
use isabridge_decoder::lift::LiftError;
use isabridge_decoder::Isa;
use isabridge_ir::interp::{self, Config, Input, Memory};
use isabridge_ir::ir::{Function, Terminator};
use isabridge_ir::Builder;

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

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn gfx12_alu_names_vopd_and_waits_lift_and_run() {
    // v_cvt_f32_u32 v0, v0 ; v_mov_b32 v1, 0x40400000 ; v_mov_b32 v3, 1.0 ;
    // v_dual_mov_b32 v0, v1 :: v_dual_add_f32 v7, v0, v3 ; s_mov_b32 s0, -1 ;
    // s_add_co_u32 s1, s0, 5 ; s_add_co_ci_u32 s2, 0, 0 ; s_and_not1_b32 s3, 0xff, 0x0f ;
    // v_mov_b32 v4, s1 ; v_mov_b32 v5, s2 ; v_mov_b32 v6, s3 ; v_mov_b32 v2, v7 ;
    // s_wait_loadcnt 0x0 ; s_delay_alu instid0(VALU_DEP_1) ; s_endpgm
    let code = [
        0x7e000d00, 0x7e0202ff, 0x40400000, 0x7e0602f2, 0xca080101, 0x00060700, 0xbe8000c1, 0x80018500, 0x82028080,
        0x91038fff, 0x000000ff, 0x7e080201, 0x7e0a0202, 0x7e0c0203, 0x7e040307, 0xbfc00000, 0xbf870001, 0xbfb00000,
    ];
    let mut f = lift(Isa::Gfx1201, &bytes(&code), 0, &Options::default()).expect("lifts");
    return_regs(&mut f, &["v0", "v2", "v4", "v5", "v6"]);
    let r = interp::run(&f, &Config { wave_size: 32, waves: 1, ..Config::default() }, &[Input::PerLane((0..32).collect())], Memory::default())
        .expect("runs");
    for (lane, out) in r.outputs.iter().enumerate() {
        // v0 = 3.0 (the X half); v7 = the old v0 (lane as f32) + 1.0 (the Y half read before X wrote).
        assert_eq!(out[0] as u32, 3.0f32.to_bits(), "lane {lane}");
        assert_eq!(out[1] as u32, (lane as f32 + 1.0).to_bits(), "lane {lane}");
        // 0xffffffff + 5 = 4 with carry; 0 + 0 + carry = 1; 0xff & !0x0f = 0xf0.
        assert_eq!((out[2] as u32, out[3] as u32, out[4] as u32), (4, 1, 0xf0), "lane {lane}");
    }
}

#[test]
fn gfx12_memory_encodings_are_typed_errors() {
    // global_atomic_pk_add_f16 v1, v[2:3], v4, off th:TH_ATOMIC_RETURN (no packed float atomics)
    let code = bytes(&[0xee16407c, 0x02100001, 0x00000002, 0xbfb00000]);
    match lift(Isa::Gfx1201, &code, 0x40, &Options::default()) {
        Err(LiftError::Unsupported { isa, addr, text, why }) => {
            assert_eq!((isa, addr), (Isa::Gfx1201, 0x40));
            assert_eq!(text, "global_atomic_pk_add_f16 v1, v[2:3], v4, off th:TH_ATOMIC_RETURN");
            assert!(why.contains("ENC_VGLOBAL"), "{why}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn gfx12_mem_names_are_current() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let o = std::process::Command::new("python3")
        .arg(root.join("tools/amdspec/gfx12_mem_names.py"))
        .arg("--check")
        .current_dir(&root)
        .output()
        .expect("python3 runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn gfx12_names_are_current() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let o = std::process::Command::new("python3")
        .arg(root.join("tools/amdspec/gfx12_names.py"))
        .arg("--check")
        .current_dir(&root)
        .output()
        .expect("python3 runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}
