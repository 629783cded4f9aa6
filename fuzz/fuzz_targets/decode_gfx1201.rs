//! Decode, print and re-encode arbitrary bytes as gfx1201: nothing may panic; the batch decoder
//! and the text listing agree with decoding one instruction at a time; the print plans print
//! what the family printers print.
#![no_main]
use isabridge_decoder::{disasm, disasm::disassemble, Isa};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let p = Isa::Gfx1201.plugin();
    let mut n = 0usize;
    let _ = disassemble(p, data, 0, "raw", &[], |l| n += l.text.len());
    let mut text = Vec::new();
    let _ = disasm::listing(p, data, 0, "raw", &[], &mut |b| text.extend_from_slice(b));
    // decode_block stops where one-at-a-time decoding would fail, with the same instructions.
    let mut block = Vec::new();
    let used = p.decode_block(data, 0, &mut block);
    let mut off = 0usize;
    for d in &block {
        let one = p.decode(&data[off..], off as u64).expect("an instruction of decode_block decodes alone");
        assert_eq!(one, *d);
        off += d.len as usize;
    }
    assert_eq!(off, used);
    assert!(used == data.len() || p.decode(&data[used..], used as u64).is_err());
    if let Ok(d) = p.decode(data, 0) {
        let (mut planned, mut reference) = (String::new(), String::new());
        p.print(&d, 0, &mut planned);
        isabridge_decoder::gfx12::print_reference(&d, 0, &mut reference);
        assert_eq!(planned, reference);
        // The canonical form (it may gain a literal) decodes to the same instruction.
        let bytes = p.encode(&d);
        let again = p.decode(&bytes, 0).expect("canonical bytes decode");
        assert_eq!(p.name(&again), p.name(&d));
    }
});
