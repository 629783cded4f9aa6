//! The AMD decoders' table-driven fast path (upper-half table, decision nodes, packed lengths,
//! `decode_block`) against a reference decode written from the spec tables alone:
//! `Tables::classify` (the candidate walk), the encoding width, the literal rule (an
//! `OPR_SIMM32` operand, or a source field whose value 255 the operand type names "literal";
//! never in DPP/SDWA forms) and NSA dwords. Inputs: every corpus instruction, every probe
//! word, random words, and random low bits under every upper half the corpus and probes use.

use isabridge_decoder::amd::{Amd, Generation, GFX10, GFX12};
use isabridge_decoder::{elf, Decoded, DecodeError, InstId, Isa, IsaPlugin, MAX_WORDS};
use proptest::prelude::*;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The reference decode of a 6-word window (None: no instruction).
fn reference<Op: Generation>(p: &Amd<Op>, w: &[u32; MAX_WORDS]) -> Option<(u16, u16, usize)> {
    let t = p.tables();
    let (enc, ienc) = match t.classify(w)? {
        (e, Some(i)) => (e, i),
        _ => return None,
    };
    if p.rejects(ienc, w) {
        return None; // reserved bits or operand values (amd/reject.rs, tests/amd_reject.rs)
    }
    let e = &t.encodings[enc as usize];
    let mut len = e.bits as usize / 8;
    if let Some(f) = e.fields.iter().find(|f| f.name == "NSA") {
        if f.get(w) != 0 {
            len += 4 * Op::nsa_dwords(p, w, ienc);
        }
    }
    let ie = &t.inst_encodings[ienc as usize];
    // gfx12 VOP3 DPP forms take a literal dword after the DPP dword.
    if !e.name.contains("SDWA") && (!e.name.contains("DPP") || e.name.starts_with("ENC_VOP3")) {
        let lit = ie.operands.iter().any(|op| {
            let ty = &t.operand_types[op.ty as usize];
            ty.name == "OPR_SIMM32"
                || op.field.is_some_and(|f| f.ranges.len() == 1 && isabridge_decoder::amd::selects_literal(t, ie, op) && f.get(w) == 255)
        });
        if lit {
            len += 4;
        }
    }
    Some((enc, ienc, len))
}

/// `decode_inst` equals the reference decode on `words` (as a full window and cut to
/// every shorter length).
fn agrees<Op: Generation>(p: &Amd<Op>, words: &[u32; MAX_WORDS]) {
    let bytes: Vec<u8> = words.iter().flat_map(|x| x.to_le_bytes()).collect();
    for cut in [24, 20, 16, 12, 8, 4] {
        // The decoder sees the words that are there, zero past them.
        let mut seen = [0u32; MAX_WORDS];
        seen[..cut / 4].copy_from_slice(&words[..cut / 4]);
        let want = reference(p, &seen);
        let got = p.decode_inst(&bytes[..cut], 0);
        match (want, got) {
            (Some((enc, ienc, len)), Ok(d)) => {
                assert!(len <= cut, "{words:08x?}");
                assert_eq!((d.enc, d.ienc, d.len as usize), (enc, ienc, len), "{words:08x?} cut {cut}");
                let mut w = [0u32; MAX_WORDS];
                w[..len / 4].copy_from_slice(&words[..len / 4]);
                assert_eq!(d.words, w);
            }
            (Some((_, _, len)), Err(DecodeError::Truncated { need, .. })) => {
                assert!(len > cut && need == len, "{words:08x?} cut {cut}: needs {need}, reference {len}")
            }
            (None, Err(DecodeError::Unknown { .. })) => {}
            (want, got) => panic!("{words:08x?} cut {cut}: reference {want:?}, decoder {got:?}"),
        }
    }
}

/// Every 6-word window starting at an instruction of the corpus, and every probe word.
fn inputs(isa: Isa) -> Vec<[u32; MAX_WORDS]> {
    let mut out = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(root().join("fixtures/amd/bin"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    paths.sort();
    for path in paths {
        let obj = elf::read(&std::fs::read(&path).unwrap()).unwrap();
        if obj.isa != isa {
            continue;
        }
        for s in obj.sections {
            let mut d = s.data.clone();
            d.resize(d.len() + 4 * MAX_WORDS, 0);
            for off in (0..s.data.len()).step_by(4) {
                out.push(std::array::from_fn(|i| {
                    u32::from_le_bytes(d[off + 4 * i..off + 4 * i + 4].try_into().unwrap())
                }));
            }
        }
    }
    let probe = std::fs::read_to_string(root().join(format!("fixtures/amd/probe/{isa}.tsv"))).unwrap();
    for line in probe.lines() {
        let hex = line.split('\t').next().unwrap();
        let mut b: Vec<u8> = (0..hex.len() / 2).map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap()).collect();
        b.resize(4 * MAX_WORDS, 0);
        out.push(std::array::from_fn(|i| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap())));
    }
    out
}

#[test]
fn corpus_and_probe_words_decode_as_the_reference() {
    let a = inputs(Isa::Gfx1013);
    let b = inputs(Isa::Gfx1201);
    assert!(a.len() > 59_446 && b.len() > 41_631, "{} {}", a.len(), b.len());
    for w in &a {
        agrees(&GFX10, w);
    }
    for w in &b {
        agrees(&GFX12, w);
    }
}

/// `decode_block` gives what `decode` gives, instruction by instruction, on every corpus
/// section (a block stops at a word that does not decode; the caller steps over it).
fn block_equals_loop(p: &dyn IsaPlugin, code: &[u8]) -> usize {
    let mut want: Vec<Decoded> = Vec::new();
    let mut stops = Vec::new();
    let mut off = 0;
    while off < code.len() {
        match p.decode(&code[off..], off as u64) {
            Ok(d) => {
                off += d.len as usize;
                want.push(d);
            }
            Err(_) => {
                stops.push(off);
                off += 4;
            }
        }
    }
    let mut got = Vec::new();
    let mut off = 0;
    let mut got_stops = Vec::new();
    while off < code.len() {
        off += p.decode_block(&code[off..], off as u64, &mut got);
        if off < code.len() {
            got_stops.push(off);
            off += 4;
        }
    }
    assert_eq!(got, want);
    assert_eq!(got_stops, stops);
    want.len()
}

#[test]
fn decode_block_equals_per_instruction_decode_on_the_corpus() {
    for (isa, count) in [(Isa::Gfx1013, 59_446), (Isa::Gfx1201, 41_631)] {
        let mut n = 0;
        for e in std::fs::read_dir(root().join("fixtures/amd/bin")).unwrap().flatten() {
            let obj = elf::read(&std::fs::read(e.path()).unwrap()).unwrap();
            if obj.isa == isa {
                for s in &obj.sections {
                    n += block_equals_loop(isa.plugin(), &s.data);
                }
            }
        }
        // The listings count every instruction once (reference: llvm-objdump-22 listings).
        assert_eq!(n, count, "{isa}");
    }
}

/// Every code section of the bundled objects of `isa`, laid end to end.
fn corpus_code(isa: Isa) -> Vec<u8> {
    let mut code = Vec::new();
    for e in std::fs::read_dir(root().join("fixtures/amd/bin")).unwrap().flatten() {
        let obj = elf::read(&std::fs::read(e.path()).unwrap()).unwrap();
        if obj.isa == isa {
            for s in &obj.sections {
                code.extend_from_slice(&s.data);
            }
        }
    }
    code
}

/// One `decode_block` call over every corpus section of an ISA laid end to end (far more than
/// the 4,096 instructions `decode_block` writes between two capacity checks), into a vector
/// that already holds instructions: the same as decoding one instruction at a time.
#[test]
fn decode_block_over_long_runs_and_non_empty_vectors() {
    for isa in [Isa::Gfx1013, Isa::Gfx1201] {
        let code = corpus_code(isa);
        let n = block_equals_loop(isa.plugin(), &code);
        assert!(n > 3 * 4096, "{isa}: {n}");
        // Appending after existing instructions keeps them.
        let first = isa.plugin().decode(&code, 0).unwrap();
        let mut out = vec![first; 3];
        let used = isa.plugin().decode_block(&code, 0, &mut out);
        assert!(used > 0 && out.len() > 3 && out[..4].iter().all(|d| *d == first), "{isa}");
    }
}

/// `decode_block_ids` records exactly what `decode_block` decodes (offset from the start of
/// the bytes, identity, length) and returns the same length, call after call over `code`.
fn ids_equal_blocks(p: &dyn IsaPlugin, code: &[u8]) -> usize {
    let mut off = 0;
    let mut n = 0;
    while off < code.len() {
        let mut want: Vec<Decoded> = Vec::new();
        let used = p.decode_block(&code[off..], off as u64, &mut want);
        let mut got: Vec<InstId> = vec![InstId::default()]; // appended after what is there
        assert_eq!(p.decode_block_ids(&code[off..], off as u64, &mut got), used);
        let mut at = 0u32;
        let want: Vec<InstId> = want
            .iter()
            .map(|d| {
                let r = InstId { off: at, ienc: d.ienc, len: d.len };
                at += d.len as u32;
                r
            })
            .collect();
        assert_eq!(got[0], InstId::default());
        assert_eq!(got[1..], want[..]);
        n += want.len();
        off += used + 4;
    }
    n
}

#[test]
fn decode_block_ids_equals_decode_block_on_the_corpus() {
    for isa in [Isa::Gfx1013, Isa::Gfx1201] {
        let code = corpus_code(isa);
        assert!(ids_equal_blocks(isa.plugin(), &code) > 3 * 4096, "{isa}");
    }
}

/// Distinct upper halves of the first word of every corpus and probe input of one ISA.
fn upper_halves(isa: Isa) -> Vec<u32> {
    let mut v: Vec<u32> = inputs(isa).iter().map(|w| w[0] >> 16).collect();
    v.sort();
    v.dedup();
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100_000))]
    #[test]
    fn random_words_decode_as_the_reference(words in proptest::array::uniform6(any::<u32>())) {
        agrees(&GFX10, &words);
        agrees(&GFX12, &words);
    }

    #[test]
    fn random_low_bits_under_known_upper_halves(
        k in any::<prop::sample::Index>(),
        mut words in proptest::array::uniform6(any::<u32>()),
    ) {
        static HALVES: std::sync::OnceLock<(Vec<u32>, Vec<u32>)> = std::sync::OnceLock::new();
        let (a, b) = HALVES.get_or_init(|| (upper_halves(Isa::Gfx1013), upper_halves(Isa::Gfx1201)));
        let w0 = words[0];
        words[0] = (a[k.index(a.len())] << 16) | (w0 & 0xffff);
        agrees(&GFX10, &words);
        words[0] = (b[k.index(b.len())] << 16) | (w0 & 0xffff);
        agrees(&GFX12, &words);
    }

    #[test]
    fn decode_block_equals_per_instruction_decode_on_random_bytes(
        bytes in proptest::collection::vec(any::<u8>(), 0..64),
    ) {
        block_equals_loop(Isa::Gfx1013.plugin(), &bytes);
        block_equals_loop(Isa::Gfx1201.plugin(), &bytes);
    }

    #[test]
    fn decode_block_ids_equals_decode_block_on_random_bytes(
        bytes in proptest::collection::vec(any::<u8>(), 0..64),
    ) {
        // The AMD loops and the trait's default (NVIDIA).
        for isa in Isa::ALL {
            ids_equal_blocks(isa.plugin(), &bytes);
        }
    }
}

/// The checked-in decision trees (src/generated/gfx10_tree.rs, gfx12_tree.rs) are what
/// `Amd::tree_source` works out from the generated tables now, and the decoders use them.
/// Refresh: `ISABRIDGE_UPDATE_GENERATED=1 cargo test --release -p isabridge-decoder --test amd_fast tree`.
#[test]
fn prebuilt_trees_are_current() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/generated");
    let sources = [(isabridge_decoder::amd::GFX10.tree_source(), "gfx10_tree.rs"), (isabridge_decoder::amd::GFX12.tree_source(), "gfx12_tree.rs")];
    for (now, name) in &sources {
        assert!(now.starts_with("// @generated") && now.contains("DO NOT EDIT"));
        let path = dir.join(name);
        if std::env::var_os("ISABRIDGE_UPDATE_GENERATED").is_some() {
            std::fs::write(&path, now).unwrap();
            continue;
        }
        let checked_in = std::fs::read_to_string(&path).unwrap();
        assert!(
            *now == checked_in,
            "src/generated/{name} is stale: run ISABRIDGE_UPDATE_GENERATED=1 cargo test --release -p isabridge-decoder --test amd_fast tree, then rebuild"
        );
    }
    if std::env::var_os("ISABRIDGE_UPDATE_GENERATED").is_none() {
        assert!(isabridge_decoder::amd::GFX10.uses_prebuilt());
        assert!(isabridge_decoder::amd::GFX12.uses_prebuilt());
    }
}
