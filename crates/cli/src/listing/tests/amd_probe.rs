//! The engine's `listing` on every probe word of each AMD ISA (every opcode of every encoding, random
//! fields): all of them back to back, twice (the second time every line comes from the memo of
//! distinct lines), gives exactly the text of the library's plain `isabridge_decoder::disasm::listing`.

use super::super::{listing, AMD_SPLIT_MIN};
use isabridge_decoder::elf::Label;
use isabridge_decoder::{Isa, IsaPlugin};
use std::path::Path;

/// The plain listing: the library's single-threaded `listing` (one decode and one print per
/// instruction).
fn plain(p: &dyn IsaPlugin, code: &[u8], labels: &[Label]) -> (Vec<u8>, bool) {
    let mut out = Vec::new();
    let r = isabridge_decoder::disasm::listing(p, code, 0, ".text", labels, &mut |b: &[u8]| out.extend_from_slice(b));
    (out, r.is_ok())
}

/// The probe inputs of `isa`, each the bytes of one instruction.
fn probes(isa: Isa) -> Vec<Vec<u8>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../fixtures/amd/probe/{isa}.tsv"));
    let text = std::fs::read_to_string(path).expect("probe set");
    text.lines()
        .filter_map(|l| l.split('\t').next())
        .map(|h| (0..h.len() / 2).map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).unwrap()).collect())
        .collect()
}

#[test]
fn probe_words_list_as_the_plain_loop() {
    for isa in [Isa::Gfx1013, Isa::Gfx1201] {
        let p = isa.plugin();
        let words = probes(isa);
        assert!(words.len() > 10_000, "{isa}: {} probe words", words.len());
        // Each instruction on its own (a decode error or a `.long` must not shift the next
        // one), then all of them back to back, twice, under two labels.
        let mut code = Vec::new();
        for w in &words {
            let (want, ok) = plain(p, w, &[]);
            let mut got = Vec::new();
            let r = listing(p, w, 0, ".text", &[], &mut |b: &[u8]| got.extend_from_slice(b));
            assert_eq!(r.is_ok(), ok, "{isa}: {w:02x?}");
            // (A word cut short is an error either way; the listing has then written the
            // header it would have put before that line.)
            if ok {
                assert_eq!(String::from_utf8_lossy(&got), String::from_utf8_lossy(&want), "{isa}");
                code.extend_from_slice(w);
            }
        }
        let once = code.len() as u64;
        code.extend_from_slice(&code.clone());
        assert!(code.len() >= AMD_SPLIT_MIN);
        let labels = vec![Label { offset: 0, name: "first".into() }, Label { offset: once, name: "second".into() }];
        let (want, ok) = plain(p, &code, &labels);
        assert!(ok);
        let mut got = Vec::new();
        let r = listing(p, &code, 0, ".text", &labels, &mut |b: &[u8]| got.extend_from_slice(b));
        assert!(r.is_ok());
        if got != want {
            let (g, w) = (String::from_utf8_lossy(&got), String::from_utf8_lossy(&want));
            let (i, (a, b)) = g.lines().zip(w.lines()).enumerate().find(|(_, (a, b))| a != b).unwrap_or((0, ("", "")));
            panic!("{isa}: {} vs {} bytes; first difference at line {}:\n got:  {a}\n want: {b}", got.len(), want.len(), i + 1);
        }
        assert!(String::from_utf8_lossy(&got).lines().filter(|l| l.starts_with('\t')).count() >= 2 * (words.len() - 10));
    }
}

/// Every gfx1201 probe line is one whole instruction (tools/amdspec/probe.py takes
/// llvm-objdump-22's length): it decodes and takes exactly its bytes, the v_fmac_*_e64_dpp
/// lines whose second source is a constant (LLVM reads no literal dword there) included.
#[test]
fn gfx1201_probe_lines_decode_whole() {
    let p = Isa::Gfx1201.plugin();
    let words = probes(Isa::Gfx1201);
    let mut errors = Vec::new();
    for w in &words {
        match p.decode(w, 0) {
            Ok(d) => assert_eq!(d.len as usize, w.len(), "{w:02x?}"),
            Err(_) => errors.push(w),
        }
    }
    assert!(errors.is_empty(), "{errors:02x?}");
}
