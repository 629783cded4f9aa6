//! The AMD lifter's contract on small programs: what lifts, and the typed error for what does
//! not (ISA, address and the instruction as llvm-objdump-22 prints it). Execution results are
//! checked against RDNA2 hardware by crates/cli/tests/conform_rdna.rs.

use isabridge_decoder::lift::amd::{lift, Options};
use isabridge_decoder::lift::LiftError;
use isabridge_decoder::Isa;
use isabridge_ir::validate::validate;

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn straight_line_code_lifts_to_a_valid_wave_function() {
    // v_lshlrev_b32_e32 v1, 4, v0 ; v_mov_b32_e32 v2, 0xdeaddead ; s_endpgm
    let code = bytes(&[0x34020084, 0x7e0402ff, 0xdeaddead, 0xbf810000]);
    let f = lift(Isa::Gfx1013, &code, 0, &Options::default()).expect("lifts");
    validate(&f).expect("valid IR");
    assert_eq!(f.wave_size, 32);
    assert_eq!(f.model, isabridge_ir::ir::ExecModel::Wave);
    let text = isabridge_ir::text::print(&f);
    assert!(text.contains("lanesel"), "{text}");
}

#[test]
fn unsupported_instructions_are_typed_errors_naming_the_instruction() {
    // s_nop 0 ; v_cvt_off_f32_i4_e32 v1, v0 (no lifter yet) ; s_endpgm
    let code = bytes(&[0xbf800000, 0x7e021d00, 0xbf810000]);
    match lift(Isa::Gfx1013, &code, 0x100, &Options::default()) {
        Err(LiftError::Unsupported { isa, addr, text, .. }) => {
            assert_eq!(isa, Isa::Gfx1013);
            assert_eq!(addr, 0x104);
            assert_eq!(text, "v_cvt_off_f32_i4_e32 v1, v0");
        }
        other => panic!("{other:?}"),
    }
    // Bytes that do not decode, and a branch out of the code.
    assert!(matches!(lift(Isa::Gfx1013, &bytes(&[0xffffffff]), 0, &Options::default()), Err(LiftError::Decode { .. })));
    // s_branch 16 words ahead
    assert!(matches!(
        lift(Isa::Gfx1013, &bytes(&[0xbf820010, 0xbf810000]), 0, &Options::default()),
        Err(LiftError::BranchOutside { target: 0x44, .. })
    ));
}
