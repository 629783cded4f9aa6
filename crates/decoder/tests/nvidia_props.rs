//! No panic on any bytes: decode, print, encode and whole-section disassembly of random input
//! for sm50 and sm86; decoded words re-encode to themselves outside don't-care bits.

use isabridge_decoder::disasm::disassemble;
use isabridge_decoder::sm50::SM50_INSN;
use isabridge_decoder::sm86::SM86;
use isabridge_decoder::{Isa, IsaPlugin};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 20_000, ..ProptestConfig::default() })]

    #[test]
    fn sm86_any_word(lo in any::<u64>(), hi in any::<u64>(), addr in 0u64..1 << 40) {
        let w = (lo as u128) | (hi as u128) << 64;
        let addr = addr & !15;
        if let Ok(d) = SM86.decode(&w.to_le_bytes(), addr) {
            let mut s = String::new();
            SM86.print(&d, addr, &mut s);
            prop_assert!(!s.is_empty());
            let e = SM86.encode(&d);
            let dc = SM86.dont_care(&d);
            let e = u128::from_le_bytes(e.try_into().unwrap());
            prop_assert_eq!(e & !dc, w & !dc);
        }
    }

    #[test]
    fn sm50_any_word(w in any::<u64>(), ctrl in any::<u64>(), slot in 0usize..3) {
        let addr = 8 + 8 * slot as u64;
        if let Ok(d) = isabridge_decoder::sm50::SM50.decode_slot(w, ctrl, slot, addr) {
            let mut s = String::new();
            isabridge_decoder::sm50::SM50.print(&d, addr, &mut s);
            prop_assert!(!s.is_empty());
            let e = u64::from_le_bytes(SM50_INSN.encode(&d).try_into().unwrap());
            let dc = SM50_INSN.dont_care(&d) as u64;
            prop_assert_eq!(e & !dc, w & !dc);
        }
    }

    #[test]
    fn any_section(bytes in proptest::collection::vec(any::<u8>(), 0..300), base in 0u64..4096) {
        for isa in [Isa::Sm50, Isa::Sm86] {
            let _ = disassemble(isa.plugin(), &bytes, base * 32, "s", &[], |l| { let _ = l.text.len(); });
            for off in 0..bytes.len().min(40) {
                let _ = isa.plugin().decode(&bytes[off..], off as u64);
            }
        }
    }
}
