//! Decode, print and re-encode arbitrary bytes as gfx1201: nothing may panic.
#![no_main]
use isabridge_decoder::{disasm::disassemble, Isa};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let p = Isa::Gfx1201.plugin();
    let mut n = 0usize;
    let _ = disassemble(p, data, 0, "raw", &[], |l| n += l.text.len());
    if let Ok(d) = p.decode(data, 0) {
        // The canonical form (it may gain a literal) decodes to the same instruction.
        let bytes = p.encode(&d);
        let again = p.decode(&bytes, 0).expect("canonical bytes decode");
        assert_eq!(p.name(&again), p.name(&d));
    }
});
