//! How llvm-objdump-22 prints mandatory literals: the `K` of the fmaak / fmamk family and, on
//! gfx1201, the DPP control of `v_cvt_pk_fp8_f32_e64_dpp` / `v_cvt_pk_bf8_f32_e64_dpp`, read
//! as if they were source operands (a value that is an inline constant's code prints as that
//! constant). Every expected line is llvm-mc-22's `--disassemble` output for the words.

use isabridge_decoder::Isa;

fn text(isa: Isa, words: &[u32]) -> String {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let p = isa.plugin();
    let d = p.decode(&bytes, 0).unwrap();
    let mut out = String::new();
    p.print(&d, 0, &mut out);
    out
}

#[test]
fn k_literals_print_as_llvm_mc() {
    // v_fmaak_f32 v192, ttmp6, v0, K (5B800072, then K) on both processors.
    for (isa, base) in [(Isa::Gfx1013, "v_fmaak_f32 v192, ttmp6, v0, "), (Isa::Gfx1201, "v_fmaak_f32 v192, ttmp6, v0, ")] {
        for (k, want) in [
            (0x95, "0x15"),
            (0x80, "0x0"),
            (0x7f, "0x7f"),
            (0xc1, "0xffffffff"),
            (0xd0, "0xfffffff0"),
            (0xd1, "0xd1"),
            (0xf0, "0x3f000000"),
            (0xf7, "0xc0800000"),
            (0xf8, "0x3e22f983"),
            (0xf9, "0xf9"),
            (0xff, "0xff"),
            (0x180, "0x180"),
            (0xffffff95, "0xffffff95"),
        ] {
            assert_eq!(text(isa, &[0x5B80_0072, k]), format!("{base}{want}"), "{isa:?} K {k:#x}");
        }
    }
}

#[test]
fn fp8_pack_dpp_control_prints_as_llvm_mc() {
    // v_cvt_pk_bf8_f32_e64_dpp v89, v176, s90 op_sel:[1,0,0] ... row_mask:0xf bank_mask:0x2 fi:1
    let head = "v_cvt_pk_bf8_f32_e64_dpp v89, v176, s90 op_sel:[1,0,0] ";
    let tail = " row_mask:0xf bank_mask:0x2 fi:1";
    for (ctrl, want) in [
        (0x85u32, "quad_perm:[1,1,0,0]"),
        (0x80, "quad_perm:[0,0,0,0]"),
        (0xc0, "quad_perm:[0,0,0,1]"),
        (0xc4, "/* Invalid dpp_ctrl value */"),
        (0xe4, "quad_perm:[0,1,2,3]"),
        (0xf0, "/* Invalid dpp_ctrl value */"),
        (0xfe, "quad_perm:[2,3,3,3]"),
        (0x55, "quad_perm:[1,1,1,1]"),
    ] {
        let w = [0xD76A_0859, 0x0170_B4FA, 0xF204_00B0 | ctrl << 8];
        assert_eq!(text(Isa::Gfx1201, &w), format!("{head}{want}{tail}"), "dpp_ctrl {ctrl:#x}");
    }
    // Other DPP instructions print the control as it is: v_add_f32_e64_dpp v1, v2, v3.
    let w = [0xD503_0001, 0x0002_06FA, 0xFF00_8502];
    assert_eq!(text(Isa::Gfx1201, &w), "v_add_f32_e64_dpp v1, v2, v3 quad_perm:[1,1,0,2] row_mask:0xf bank_mask:0xf");
}
