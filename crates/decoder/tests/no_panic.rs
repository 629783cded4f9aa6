//! Property test: no input bytes make the decoders, printers or encoders panic, and every
//! decoded instruction re-encodes to its own length.

use isabridge_decoder::{disasm::disassemble, Isa};
use proptest::prelude::*;

fn check(isa: Isa, bytes: &[u8]) {
    let p = isa.plugin();
    let mut lines = 0usize;
    let r = disassemble(p, bytes, 0x1000, "raw", &[], |l| {
        assert!(!l.text.is_empty());
        assert!(!l.bytes.is_empty());
        lines += 1;
    });
    if r.is_ok() {
        assert!(lines > 0 || bytes.is_empty());
    }
    if let Ok(d) = p.decode(bytes, 0) {
        // The operand model is total, and building it back never panics.
        let m = p.operands(&d, 0x1000);
        assert_eq!(m.flow, p.flow(&d));
        let _ = p.build(&m);
        let enc = p.encode(&d);
        // The canonical form (it may gain a literal) decodes to the same instruction.
        let again = p.decode(&enc, 0).expect("canonical bytes decode");
        assert_eq!(p.name(&again), p.name(&d));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]
    #[test]
    fn random_words_gfx1013(words in proptest::collection::vec(any::<u32>(), 1..8)) {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        check(Isa::Gfx1013, &bytes);
    }

    #[test]
    fn random_words_gfx1201(words in proptest::collection::vec(any::<u32>(), 1..8)) {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        check(Isa::Gfx1201, &bytes);
    }

    #[test]
    fn random_bytes_any_length(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
        check(Isa::Gfx1013, &bytes);
        check(Isa::Gfx1201, &bytes);
    }
}

/// Found by cargo-fuzz: v_interp_p2_f16's SRC0 holds the attribute (printed as attrN.c), yet a
/// value of 255 there still makes the word carry a literal; the canonical form must keep it.
#[test]
fn canonical_form_keeps_a_literal_the_length_depends_on() {
    let bytes = [0x62, 0x4d, 0x5a, 0xd7, 0xff, 0x24, 0x7d, 0x5f, 0x46, 0xff, 0xff, 0x24];
    let p = Isa::Gfx1013.plugin();
    // llvm-mc-22 --disassemble (gfx1013) answers `invalid instruction encoding` for these
    // 8 bytes (bits v_interp_p2_f16 leaves clear are set): since amd/reject.rs the word is no
    // instruction here either. The re-encoding property this word once exercised needs a word
    // LLVM accepts; until one is found it is not covered by this test.
    assert!(p.decode(&bytes, 0).is_err(), "LLVM rejects this word");
}

/// The upper-half lookup table the AMD decoders try first picks the same encoding and
/// instruction as the full classification, on random words.
fn fast_path_agrees<Op: isabridge_decoder::amd::Generation>(p: &isabridge_decoder::amd::Amd<Op>, words: &[u32]) {
    let mut w = [0u32; isabridge_decoder::MAX_WORDS];
    w[..words.len()].copy_from_slice(words);
    let bytes: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
    let slow = p.tables().classify(&w);
    match p.decode_inst(&bytes, 0) {
        Ok(d) => assert_eq!(slow, Some((d.enc, Some(d.ienc))), "{words:08x?}"),
        Err(isabridge_decoder::DecodeError::Unknown { .. }) => {
            // Words LLVM rejects (reserved bits or operand values: amd/reject.rs).
            if let Some((_, Some(ienc))) = slow {
                assert!(p.rejects(ienc, &w), "{words:08x?}: slow path decodes it")
            }
        }
        Err(_) => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(50_000))]
    #[test]
    fn amd_fast_classification_equals_full_classification(words in proptest::collection::vec(any::<u32>(), 6)) {
        fast_path_agrees(&isabridge_decoder::amd::GFX10, &words);
        fast_path_agrees(&isabridge_decoder::amd::GFX12, &words);
    }
}
