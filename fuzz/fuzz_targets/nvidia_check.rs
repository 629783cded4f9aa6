//! The check both NVIDIA fuzz targets run on their input: decode, print and re-encode it as
//! `isa` (whole sections and single instructions); nothing may panic, encoding keeps every bit
//! outside the don't-care bits, and the listing through the print memo and its templates equals
//! the slow printer's (the memo and templates persist from one input to the next, so later
//! inputs fill templates made by earlier ones).
use isabridge_decoder::nvidia::NvPrinter;
use isabridge_decoder::{disasm, disasm::disassemble, Isa};
use std::cell::RefCell;

thread_local! {
    /// The printer whose memo and templates carry over from one input to the next.
    static PRINTER: RefCell<NvPrinter> = RefCell::new({
        let mut p = NvPrinter::new();
        p.eager_templates(true);
        p
    });
}

/// Runs the check on `data` as `isa` (sm50 or sm86); panics on any disagreement.
pub fn check(isa: Isa, data: &[u8]) {
    let p = isa.plugin();
    let mut n = 0usize;
    let _ = disassemble(p, data, 0, "raw", &[], |l| n += l.text.len());
    let mut text = Vec::new();
    let r = PRINTER.with(|printer| {
        disasm::listing_with_printer(p, &mut printer.borrow_mut(), data, 0, "raw", &[], &mut |b| text.extend_from_slice(b))
    });
    let mut slow = Vec::new();
    let rs = disasm::listing_with_printer(p, &mut NvPrinter::uncached(), data, 0, "raw", &[], &mut |b| slow.extend_from_slice(b));
    assert_eq!(r, rs);
    assert!(text == slow, "templates: {:?}\nslow: {:?}", String::from_utf8_lossy(&text), String::from_utf8_lossy(&slow));
    if let Ok(d) = p.decode(data, 0) {
        let mut s = String::new();
        p.print(&d, 0, &mut s);
        let bytes = p.encode(&d);
        assert_eq!(bytes.len(), d.len as usize);
        let e = p.decode(&bytes, 0).expect("canonical bytes decode");
        assert_eq!(e.enc, d.enc);
    }
}
