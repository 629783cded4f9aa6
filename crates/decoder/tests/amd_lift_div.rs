//! The AMD lifter on division helpers and transcendentals: what each lifts to and that the IR
//! validates. Execution results are checked against RDNA2 hardware by
//! crates/cli/tests/conform_rdna.rs (Division_*, DivisionOutputModifiers,
//! DivisionResultModifiers, F64DivisionModifiers, F64Transcendental, NanQuieting, LogNearOne).

use isabridge_decoder::lift::amd::{lift, Options};
use isabridge_decoder::Isa;
use isabridge_ir::validate::validate;

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn lifted_text(words: &[u32], opts: &Options) -> String {
    let f = lift(Isa::Gfx1013, &bytes(words), 0, opts).expect("lifts");
    validate(&f).expect("valid IR");
    isabridge_ir::text::print(&f)
}

#[test]
fn the_f32_division_sequence_lifts_to_the_division_helper_ops() {
    // RDNA2 Division_Macro's code: div_scale ×2, rcp, fma refinement, div_fmas (VCC), div_fixup.
    let code = [
        872546434, 3761250304, 2147484673, 3761250308, 2147484929, 3213639536, 3580695560, 68291333, 3580717577, 68291332,
        2115261704, 3212836864, 3578462219, 600446216, 1444156683, 269882633, 3578462220, 606476040, 1444287756,
        3578462216, 606476040, 3212836864, 3580821512, 70128904, 3579772938, 68291336, 3765444608, 2147551745,
        3212902400,
    ];
    // MODE 0xf0 with DX10_CLAMP and IEEE, as the vector's harness states.
    let opts = Options { user_sgprs: 8, mode: 0xf0 | 1 << 8 | 1 << 9, ..Options::default() };
    let text = lifted_text(&code, &opts);
    for op in ["fdivscale.", "fdivflag ", "fdivfmas.", "fdivfixup.", "approx.rcp"] {
        assert!(text.contains(op), "{op} missing:\n{text}");
    }
    // Denormals kept: no flush on the helpers.
    assert!(!text.contains("fdivscale.ftz"), "{text}");
}

#[test]
fn f64_transcendentals_lift_with_the_2_over_pi_slice() {
    // RDNA2 F64Transcendental's code: v_rcp/v_rsq/v_sqrt_f64, v_trig_preop_f64 (three forms),
    // v_rcp_f64 clamp, v_sqrt_f64 -|x|.
    let code = [
        872546436, 872808582, 3761770496, 2147484673, 3213639536, 2115264260, 2115527428, 2115791108, 3581149200,
        33688836, 3581149202, 33620228, 3581149460, 704777476, 3585048598, 33620228, 3585343768, 570491140, 3765964800,
        2147551747, 3765964816, 2147552771, 3765964832, 2147553795, 3765964848, 2147554819, 3212902400,
    ];
    let text = lifted_text(&code, &Options { user_sgprs: 8, ..Options::default() });
    for op in ["approx.rcp", "approx.rsq", "approx.sqrt", "ftwooverpi."] {
        assert!(text.contains(op), "{op} missing:\n{text}");
    }
}

#[test]
fn f16_div_fixup_and_scale_flags_write_their_registers() {
    // v_div_fixup_f16 v13, v4, v5, v6 clamp ; v_div_scale_f32 v10, s20, v4, v5, v6 ;
    // v_div_fmas_f32 v10, v4, v5, v6 ; s_endpgm
    let code = [0xd75f800d, 0x041a0b04, 0xd56d140a, 0x041a0b04, 0xd56f000a, 0x041a0b04, 0xbf810000];
    let text = lifted_text(&code, &Options::default());
    assert!(text.contains("fdivfixup.sat"), "{text}");
    assert!(text.contains("fdivflag"), "{text}");
    assert!(text.contains("ballot"), "{text}");
    assert!(text.contains("fdivfmas"), "{text}");
}

#[test]
fn class_tests_sines_and_mullit_lift() {
    // v_cmp_class_f32_e64 s0, v1, v2 ; v_cmpx_class_f64_e64 v[2:3], 0x3ff ; v_sin_f32_e32 v1, v0 ;
    // v_mullit_f32 v17, v4, v5, v6 ; s_endpgm
    let code = [
        0xd4880000, 0x00020501, 0xd4b8007e, 0x0001ff02, 0x000003ff, 0x7e026b00, 0xd5500011, 0x041a0b04, 0xbf810000,
    ];
    let text = lifted_text(&code, &Options::default());
    for op in ["fclass", "approx.sinrev", "fmul.rn.ftz.tinyafter.fmz.keepnan"] {
        assert!(text.contains(op), "{op} missing:\n{text}");
    }
}
