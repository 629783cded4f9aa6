//! The NVIDIA engine against the plain listing: `nv_split` at every cut, `nv_parallel` on
//! the bundled cubins, with errors in either part.

use super::super::nvidia::{nv_cut, nv_split, Done};
use super::super::{listing_sections, ListSection, PARALLEL_MIN};
use isabridge_decoder::elf::Label;
use isabridge_decoder::Isa;

/// The sections of every bundled cubin of one ISA, in file order.
fn bundled(isa: Isa) -> Vec<Vec<u8>> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/nvidia/bin");
    let suffix = if isa == Isa::Sm50 { ".sm50.cubin" } else { ".sm86.cubin" };
    let mut names: Vec<_> = std::fs::read_dir(dir).expect("fixtures").filter_map(|e| e.ok()).map(|e| e.path()).collect();
    names.retain(|p| p.to_string_lossy().ends_with(suffix));
    names.sort();
    names.iter().map(|p| std::fs::read(p).expect("cubin")).collect()
}

/// The engine's text of `listing_sections`, and the plain text of the same sections.
fn both(isa: Isa, sections: &[ListSection<'_>]) -> (Done, Done) {
    let plugin = isa.plugin();
    let mut par = Vec::new();
    let rp = listing_sections(plugin, sections, &mut |b| par.extend_from_slice(b));
    ((par, rp), sequential(isa, sections))
}

/// The plain listing of `sections` (the library's single-threaded `listing_sections`), up to
/// the first error.
fn sequential(isa: Isa, sections: &[ListSection<'_>]) -> Done {
    let mut seq = Vec::new();
    let rs = isabridge_decoder::disasm::listing_sections(isa.plugin(), sections, &mut |b| seq.extend_from_slice(b));
    (seq, rs)
}

/// [`nv_split`] at every cut [`nv_cut`] can give (every bundle / every fourth sm86
/// instruction, and every cut at and around a label) gives the sequential text of each
/// bundled cubin, and of all of an ISA's sections as one object; with a truncated section in
/// either part, the same lines and the same error.
#[test]
fn cut_listing_gives_the_sequential_text() {
    for isa in [Isa::Sm50, Isa::Sm86] {
        let plugin = isa.plugin();
        let unit = if isa == Isa::Sm50 { isabridge_decoder::sm50::BUNDLE } else { 16 };
        let files = bundled(isa);
        let mut all: Vec<ListSection<'_>> = Vec::new();
        let mut objects: Vec<Vec<ListSection<'_>>> = Vec::new();
        for f in &files {
            let (_, s) = isabridge_decoder::elf::parse(f).expect("cubin");
            let s: Vec<ListSection<'_>> = s.into_iter().map(|s| (s.name, s.address, s.data, s.labels)).collect();
            all.extend(s.iter().cloned());
            objects.push(s);
        }
        objects.push(all);
        let all_at = objects.len() - 1;
        // Corpus code with every fifth 32-bit word random (instructions, odd forms and
        // `.long` / `.quad` lines) in three sections with labels at random instruction
        // starts, and one section holding all of it.
        let mut x = 0x9e37_79b9_7f4a_7c15u64 ^ unit as u64;
        let code: Vec<u8> = objects[all_at].iter().flat_map(|s| s.2.iter().copied()).take(3 * 64 * unit).collect();
        let noise: Vec<u8> = code
            .chunks(4)
            .enumerate()
            .flat_map(|(i, w)| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let r = if i % 5 == 4 { (x as u32).to_le_bytes() } else { [w[0], w[1], w[2], w[3]] };
                r.into_iter()
            })
            .collect();
        assert_eq!(noise.len(), 3 * 64 * unit);
        let names = ["rand0", "rand1", "rand2"];
        let mut random: Vec<ListSection<'_>> = Vec::new();
        for (k, part) in noise.chunks(64 * unit).enumerate() {
            let mut at: Vec<(u64, &str)> =
                (0..4u64).map(|j| (((x >> (8 * j)) % 64) * unit as u64 + if isa == Isa::Sm50 { 8 } else { 0 }, names[(k + j as usize) % 3])).collect();
            at.sort();
            at.dedup_by_key(|a| a.0);
            let labels = at.into_iter().map(|(offset, name)| Label { offset, name: std::borrow::Cow::Borrowed(name) }).collect();
            random.push((names[k], 0x1000 * k as u64, part, labels));
        }
        objects.push(random);
        objects.push(vec![(".text.noise", 0, &noise[..], Vec::new())]);
        let mut cuts_tried = 0;
        for (n, sections) in objects.iter().enumerate() {
            let (seq, rs) = sequential(isa, sections);
            assert!(rs.is_ok());
            if sections.first().is_some_and(|s| s.0 == "rand0") {
                // The random sections list both instructions and words that are none, under
                // their labels' headers.
                let text = String::from_utf8_lossy(&seq);
                let none = |l: &str| l.contains(".long 0x") || l.contains(".quad 0x");
                assert!(text.contains(" <rand1>:\n") && text.lines().any(none), "{isa}: {text}");
                assert!(text.lines().filter(|l| l.starts_with('\t') && !none(l)).count() > 20, "{isa}: {text}");
            }
            let total: usize = sections.iter().map(|s| s.2.len()).sum();
            // Label offsets in the concatenated code, to cut at and around them.
            let mut near = Vec::new();
            let mut before = 0usize;
            for s in sections {
                for l in &s.3 {
                    let o = before + l.offset as usize;
                    near.extend([o.saturating_sub(unit), o, o + 1, o + unit]);
                }
                before += s.2.len();
            }
            let step = if n == all_at { total / 97 } else { unit * if isa == Isa::Sm50 { 1 } else { 4 } };
            let ats: Vec<usize> = (0..total).step_by(step.max(unit)).chain(near).collect();
            for at in ats {
                let Some(cut) = nv_cut(plugin, sections, at) else { continue };
                cuts_tried += 1;
                let mut par = Vec::new();
                let r = nv_split(plugin, sections, cut, &None, &mut |b| par.extend_from_slice(b));
                assert!(r.is_ok(), "{isa} object {n} cut {cut:?}");
                assert!(par == seq, "{isa} object {n} cut {cut:?}: {}", String::from_utf8_lossy(&par[..par.len().min(400)]));
            }
        }
        assert!(cuts_tried > 500, "{isa}: {cuts_tried} cuts");
        // An error in either part: the same lines before it, the same error.
        let mut sections = objects.swap_remove(all_at);
        assert!(sections.len() > 20, "{isa}: {} sections", sections.len());
        let k = sections.len() / 2;
        let short = sections[k].2.len() - 8;
        for cut in [(k / 2, 0), (k, 0), (k + 1 + (sections.len() - k) / 2, 0)] {
            let mut s = sections.clone();
            s[k].2 = &s[k].2[..short];
            let (seq, rs) = sequential(isa, &s);
            assert!(rs.is_err());
            let mut par = Vec::new();
            let r = nv_split(plugin, &s, cut, &None, &mut |b| par.extend_from_slice(b));
            assert_eq!(r, rs, "{isa} cut {cut:?}");
            assert!(par == seq, "{isa} cut {cut:?}");
        }
        // nv_cut refuses what is not whole instructions.
        sections[k].2 = &sections[k].2[..short];
        assert_eq!(nv_cut(plugin, &sections, 1000), None);
    }
}

#[test]
fn two_threads_give_the_sequential_text() {
    for isa in [Isa::Sm50, Isa::Sm86] {
        let files = bundled(isa);
        let mut sections: Vec<ListSection<'_>> = Vec::new();
        for f in &files {
            let (_, s) = isabridge_decoder::elf::parse(f).expect("cubin");
            sections.extend(s.into_iter().map(|s| (s.name, s.address, s.data, s.labels)));
        }
        let bytes: usize = sections.iter().map(|s| s.2.len()).sum();
        assert!(bytes >= PARALLEL_MIN && sections.len() > 20, "{isa}: {bytes} bytes");
        let ((par, rp), (seq, rs)) = both(isa, &sections);
        assert!(rp.is_ok() && rs.is_ok());
        assert_eq!(par, seq, "{isa}");
        let text = String::from_utf8_lossy(&par);
        assert_eq!(text.matches("Disassembly of section").count(), sections.len());
        // An error in a middle section: the same lines before it, the same error.
        let k = sections.len() / 2;
        let cut = sections[k].2.len() - 8;
        sections[k].2 = &sections[k].2[..cut];
        let ((par, rp), (seq, rs)) = both(isa, &sections);
        assert!(rp.is_err());
        assert_eq!(rp, rs);
        assert_eq!(par, seq, "{isa}");
    }
}
