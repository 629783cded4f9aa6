//! The gfx10.3 dot-product extension of the gfx1013 decoder (`amd::dot_ext::GFX10_DOT`): the
//! dot-product words of the RDNA2 Float16Dot vector decode, print as llvm-mc-22 -mcpu=gfx1030
//! prints them, encode back to the same bytes and read their inline constants as their operand
//! types; plain gfx1013 still rejects them, and every other word decodes as on gfx1013.

use isabridge_decoder::amd::dot_ext::{table, GFX10_DOT};
use isabridge_decoder::operand::OperandKind;
use isabridge_decoder::{Isa, IsaPlugin};

/// (words, `llvm-mc-22 -disassemble -triple=amdgcn -mcpu=gfx1030` text) of the dot products in
/// Float16Dot's code (fixtures/rdna/vectors.jsonl).
const WORDS: [(&[u32], &str); 10] = [
    (&[0x04140b04], "v_dot2c_f32_f16 v10, v4, v5"),
    (&[0xcc13400b, 0x1c1a0b04], "v_dot2_f32_f16 v11, v4, v5, v6"),
    (&[0xcc13420c, 0xbc1a0b04], "v_dot2_f32_f16 v12, v4, v5, v6 neg_lo:[1,0,1] neg_hi:[0,1,0]"),
    (&[0xcc13410d, 0x5c1a0b04], "v_dot2_f32_f16 v13, v4, v5, v6 neg_lo:[0,1,0] neg_hi:[1,0,0]"),
    (&[0xcc13480e, 0x141a0b04], "v_dot2_f32_f16 v14, v4, v5, v6 op_sel:[1,0,0] op_sel_hi:[0,1,1]"),
    (&[0xcc13c00f, 0x1c1a0b04], "v_dot2_f32_f16 v15, v4, v5, v6 clamp"),
    (&[0x04200af2], "v_dot2c_f32_f16 v16, 1.0, v5"),
    (&[0x04220aff, 0x40003c00], "v_dot2c_f32_f16 v17, 0x40003c00, v5"),
    (&[0x04240afa, 0xff00b104], "v_dot2c_f32_f16_dpp v18, v4, v5 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf"),
    (&[0xcc135013, 0x0c1a0b04], "v_dot2_f32_f16 v19, v4, v5, v6 op_sel:[0,1,0] op_sel_hi:[1,0,1]"),
];

fn bytes(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn float16dot_words_print_as_llvm_gfx1030() {
    let plain = Isa::Gfx1013.plugin();
    for (w, want) in WORDS {
        let b = bytes(w);
        assert!(plain.decode(&b, 0).is_err(), "{want}: gfx1013 has no dot products");
        let d = GFX10_DOT.decode(&b, 0).unwrap_or_else(|e| panic!("{want}: {e}"));
        assert_eq!(d.len as usize, b.len(), "{want}");
        let mut text = String::new();
        GFX10_DOT.print(&d, 0, &mut text);
        assert_eq!(text, want);
        assert_eq!(GFX10_DOT.encode(&d), b, "{want}");
        let i = GFX10_DOT.operands(&d, 0);
        assert_eq!(i.name, want.split(['_', ' ']).take(4).collect::<Vec<_>>().join("_").to_uppercase().replace("_DPP", ""));
        assert_eq!(GFX10_DOT.build(&i).unwrap(), b, "{want}");
    }
}

#[test]
fn inline_constants_read_as_the_dot_operand_types() {
    // v_dot2c_f32_f16 v16, 1.0, v5: a packed-f16 source reads 1.0 in its low half.
    let d = GFX10_DOT.decode(&bytes(&[0x04200af2]), 0).unwrap();
    let i = GFX10_DOT.operands(&d, 0);
    let c = i.operands.iter().find_map(|o| match o.kind {
        OperandKind::InlineConst { bits, .. } => Some(bits),
        _ => None,
    });
    assert_eq!(c, Some(0x3c00));
    // v_dot2_f32_f16 v1, v4, v5, 1.0: the f32 addend reads 1.0 as f32.
    let d = GFX10_DOT.decode(&bytes(&[0xcc134001, 0x1bca0b04]), 0).unwrap();
    let mut text = String::new();
    GFX10_DOT.print(&d, 0, &mut text);
    assert_eq!(text, "v_dot2_f32_f16 v1, v4, v5, 1.0");
    let i = GFX10_DOT.operands(&d, 0);
    let c: Vec<u64> = i
        .operands
        .iter()
        .filter_map(|o| match o.kind {
            OperandKind::InlineConst { bits, .. } => Some(bits),
            _ => None,
        })
        .collect();
    assert_eq!(c, [0x3f80_0000]);
}

#[test]
fn the_table_lists_the_gfx10_3_dot_products() {
    let names: Vec<&str> = table().map(|r| r.mnemonic).collect();
    assert_eq!(
        names,
        [
            "v_dot2c_f32_f16",
            "v_dot4c_i32_i8",
            "v_dot2_f32_f16",
            "v_dot2_i32_i16",
            "v_dot2_u32_u16",
            "v_dot4_i32_i8",
            "v_dot4_u32_u8",
            "v_dot8_i32_i4",
            "v_dot8_u32_u4"
        ]
    );
    let decoded: Vec<&str> = table().filter(|r| r.decoded).map(|r| r.mnemonic).collect();
    assert_eq!(decoded, ["v_dot2c_f32_f16", "v_dot2_f32_f16", "v_dot2_u32_u16"]);
}

#[test]
fn other_words_decode_as_on_gfx1013() {
    let plain = Isa::Gfx1013.plugin();
    // v_fmac_f32_e32 v10, v4, v5 (the twin itself), s_endpgm, v_dot4c_i32_i8 (not decoded).
    for w in [&[0x56140b04u32][..], &[0xbf810000], &[0x1a140b04]] {
        let b = bytes(w);
        match (plain.decode(&b, 0), GFX10_DOT.decode(&b, 0)) {
            (Ok(x), Ok(y)) => {
                assert_eq!(x, y);
                let (mut p, mut q) = (String::new(), String::new());
                plain.print(&x, 0, &mut p);
                GFX10_DOT.print(&y, 0, &mut q);
                assert_eq!(p, q);
            }
            (Err(_), Err(_)) => {}
            (x, y) => panic!("{w:x?}: gfx1013 {x:?}, with dot products {y:?}"),
        }
    }
}

#[test]
fn random_words_decode_or_fail_without_panics() {
    // Random first words with the dot opcodes forced in half of them; every decoded word
    // prints and has operands, and a dot-product word encodes back to its bytes.
    let mut x = 0x2701_dead_beef_u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x as u32
    };
    for i in 0..20_000 {
        let mut w = [next(), next(), next(), next()];
        match i % 4 {
            0 => w[0] = (w[0] & 0x01ff_ffff) | 2 << 25,
            1 => w[0] = (w[0] & 0x0000_ffff) | 0xcc13_0000,
            _ => {}
        }
        let b = bytes(&w);
        if let Ok(d) = GFX10_DOT.decode(&b, 0) {
            let mut t = String::new();
            GFX10_DOT.print(&d, 0, &mut t);
            let _ = GFX10_DOT.operands(&d, 0);
            if GFX10_DOT.dot_of(&d).is_some() {
                assert_eq!(GFX10_DOT.encode(&d), b[..d.len as usize], "{t}");
            }
        }
    }
}
