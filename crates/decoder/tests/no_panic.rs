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
