//! The engine's `listing` (memoised lines, two threads on large sections) gives exactly the
//! text of the library's plain `isabridge_decoder::disasm::listing`, whatever the cut point meets: labels on
//! and off instruction boundaries, repeated names, undecodable words, a truncated last
//! instruction. (The whole-file text is checked against llvm-objdump-22 in the CLI tests.)

use super::super::{listing, AMD_CHUNKED_MIN, AMD_SPLIT_MIN};
use isabridge_decoder::elf::{self, Label};
use isabridge_decoder::{Isa, IsaPlugin};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The plain listing: the library's single-threaded `listing` (one decode and one print per
/// instruction).
fn plain(p: &dyn IsaPlugin, code: &[u8], base: u64, section: &str, labels: &[Label]) -> (Vec<u8>, bool) {
    let mut out = Vec::new();
    let r = isabridge_decoder::disasm::listing(p, code, base, section, labels, &mut |b: &[u8]| out.extend_from_slice(b));
    (out, r.is_ok())
}

fn check(p: &dyn IsaPlugin, code: &[u8], base: u64, section: &str, labels: &[Label], what: &str) {
    let (want, ok) = plain(p, code, base, section, labels);
    let mut got = Vec::new();
    let r = listing(p, code, base, section, labels, &mut |b: &[u8]| got.extend_from_slice(b));
    assert_eq!(r.is_ok(), ok, "{what}: result");
    if got != want {
        let (g, w) = (String::from_utf8_lossy(&got), String::from_utf8_lossy(&want));
        let (i, (a, b)) = g.lines().zip(w.lines()).enumerate().find(|(_, (a, b))| a != b).unwrap_or((0, ("", "")));
        panic!("{what}: {} vs {} bytes; first difference at line {}:\n got:  {a}\n want: {b}", got.len(), want.len(), i + 1);
    }
}

fn text_of(name: &str) -> (Isa, Vec<u8>, Vec<Label<'static>>) {
    let bytes = std::fs::read(root().join("fixtures/amd/bin").join(name)).unwrap();
    let obj = elf::read(&bytes).unwrap();
    let s = obj.sections.into_iter().find(|s| s.name == ".text").unwrap();
    (obj.isa, s.data, s.labels)
}

#[test]
fn corpus_sections_list_as_the_plain_loop() {
    let (mut n, mut cut) = (0, 0);
    for e in std::fs::read_dir(root().join("fixtures/amd/bin")).unwrap().flatten() {
        let bytes = std::fs::read(e.path()).unwrap();
        let obj = elf::read(&bytes).unwrap();
        for s in &obj.sections {
            check(obj.isa.plugin(), &s.data, s.address, &s.name, &s.labels, &e.path().display().to_string());
            n += 1;
            cut += usize::from(s.data.len() >= AMD_SPLIT_MIN);
        }
    }
    assert!(n >= 21);
    // Sections cut in two for a second thread (cl_math).
    assert!(cut >= 3, "{cut}");
}

#[test]
fn any_cut_point_gives_the_sequential_text() {
    for (file, isa) in [("cl_math.gfx1013-w32.o", Isa::Gfx1013), ("cl_math.gfx1201-w32.o", Isa::Gfx1201)] {
        let (got_isa, code, labels) = text_of(file);
        assert_eq!(got_isa, isa);
        assert!(code.len() >= AMD_SPLIT_MIN);
        let p = isa.plugin();
        // No labels: the cut is the middle, on or inside an instruction.
        for shift in (0..32).step_by(4) {
            check(p, &code[shift..], 0, "raw", &[], &format!("{file} shifted {shift}"));
        }
        // Labels moved off their instructions, and every name the same (no headers after the
        // first): the cut lands on a label that is inside an instruction or repeats a name.
        let odd: Vec<Label> = labels.iter().map(|l| Label { offset: l.offset + 4, name: l.name.clone() }).collect();
        check(p, &code, 0, ".text", &odd, &format!("{file} labels + 4"));
        let same: Vec<Label> = labels.iter().map(|l| Label { offset: l.offset, name: "f".into() }).collect();
        check(p, &code, 0x1000, ".text", &same, &format!("{file} one name"));
        // A truncated last instruction: the error and the lines before it.
        let cut = code.len() - 2;
        check(p, &code[..cut], 0, ".text", &labels, &format!("{file} truncated"));
        // Undecodable words around the middle.
        let mut junk = code.clone();
        let mid = (code.len() / 2) & !3;
        for w in junk[mid - 64..mid + 64].chunks_exact_mut(4) {
            w.copy_from_slice(&0xffff_ffffu32.to_le_bytes());
        }
        check(p, &junk, 0, ".text", &[], &format!("{file} junk in the middle"));
    }
}

/// A section of [`AMD_CHUNKED_MIN`] bytes or more, listed in parts by both threads: the copies
/// of cl_math one after another (each function renamed), with labels (parts cut at them) and
/// without, shifted so that the part starts fall inside instructions.
#[test]
fn large_sections_in_parts_give_the_sequential_text() {
    for (file, isa) in [("cl_math.gfx1013-w32.o", Isa::Gfx1013), ("cl_math.gfx1201-w32.o", Isa::Gfx1201)] {
        let (_, one, labels) = text_of(file);
        let copies = AMD_CHUNKED_MIN / one.len() + 1;
        let code: Vec<u8> = (0..copies).flat_map(|_| one.iter().copied()).collect();
        assert!(code.len() >= AMD_CHUNKED_MIN);
        let n = one.len() as u64;
        let all: Vec<Label> = (0..copies as u64)
            .flat_map(|k| labels.iter().map(move |l| Label { offset: l.offset + k * n, name: format!("{}_{k}", l.name).into() }))
            .collect();
        let p = isa.plugin();
        check(p, &code, 0, ".text", &all, &format!("{file} x{copies}"));
        // Labels inside instructions: each part decodes again from every label it meets.
        let odd: Vec<Label> = all.iter().map(|l| Label { offset: l.offset + 4, name: l.name.clone() }).collect();
        check(p, &code, 0, ".text", &odd, &format!("{file} x{copies} labels + 4"));
        for shift in [4, 12] {
            check(p, &code[shift..], 0, "raw", &[], &format!("{file} x{copies} shifted {shift}"));
        }
    }
}

/// A word that is the first and also the second word of an 8-byte VOP3 (`v_fma_f32 v0, s0,
/// -v128, -v82 mul:4`, twice): the second thread, starting between the two words of an
/// instruction, never meets this thread's instruction starts (and ends in a truncated
/// instruction); this thread lists everything alone.
#[test]
fn no_common_start_falls_back_to_one_thread() {
    let pair = [0xd54b_0000u32, 0xd54b_0000];
    let n = (AMD_SPLIT_MIN / 8) | 1; // odd: the middle falls between the two words
    let code: Vec<u8> = (0..n).flat_map(|_| pair).flat_map(|w| w.to_le_bytes()).collect();
    let p = Isa::Gfx1013.plugin();
    assert_eq!(p.decode(&code, 0).unwrap().len, 8);
    assert_eq!(p.decode(&code[4..], 0).unwrap().len, 8);
    check(p, &code, 0, "raw", &[], "out of step");
    let (want, ok) = plain(p, &code, 0, "raw", &[]);
    assert!(ok && want.len() > 40 * n);
}

/// A section listed in parts by both threads (`AMD_CHUNKED_MIN` bytes or more) whose parts
/// never meet the lines before them (the VOP3 pairs above, with the part starts falling between
/// the two words of a pair): this thread lists the rest alone; and the same section with a
/// truncated last instruction and undecodable words at a part start.
#[test]
fn chunked_sections_out_of_step_give_the_sequential_text() {
    let pair = [0xd54b_0000u32, 0xd54b_0000];
    let n = AMD_CHUNKED_MIN / 8 + 1;
    let mut code: Vec<u8> = vec![0, 0, 0xa0, 0xbf]; // one 4-byte s_nop: every later pair out of step
    code.extend((0..n).flat_map(|_| pair).flat_map(|w| w.to_le_bytes()));
    let p = Isa::Gfx1013.plugin();
    check(p, &code, 0, "raw", &[], "out of step, large");
    let mut cut = code.clone();
    cut.truncate(code.len() - 2);
    check(p, &cut, 0, "raw", &[], "out of step, large, truncated");
    let (_, one, labels) = text_of("cl_math.gfx1013-w32.o");
    let copies = AMD_CHUNKED_MIN / one.len() + 1;
    let mut code: Vec<u8> = (0..copies).flat_map(|_| one.iter().copied()).collect();
    for w in code[(16 << 10) - 64..(16 << 10) + 64].chunks_exact_mut(4) {
        w.copy_from_slice(&0xffff_ffffu32.to_le_bytes());
    }
    let k = one.len() as u64;
    let all: Vec<Label> = (0..copies as u64)
        .flat_map(|c| labels.iter().map(move |l| Label { offset: l.offset + c * k, name: format!("{}_{c}", l.name).into() }))
        .collect();
    check(p, &code, 0, ".text", &all, "cl_math copies with junk");
    // Output taken slowly: the second thread stays a bounded number of parts ahead and waits.
    let (want, ok) = plain(p, &code, 0, ".text", &all);
    let mut got = Vec::new();
    let r = listing(p, &code, 0, ".text", &all, &mut |b: &[u8]| {
        std::thread::sleep(std::time::Duration::from_micros(100));
        got.extend_from_slice(b);
    });
    assert_eq!(r.is_ok(), ok);
    assert!(got == want, "slow output: {} vs {} bytes", got.len(), want.len());
}

/// Runs of zero bytes (one `...` line up to the next label) and lone zero dwords (`v_illegal`)
/// across the cut point of a split section, across labels and at part starts of a chunked one.
#[test]
fn zero_runs_give_the_sequential_text() {
    for (file, isa) in [("cl_math.gfx1013-w32.o", Isa::Gfx1013), ("cl_math.gfx1201-w32.o", Isa::Gfx1201)] {
        let (_, one, labels) = text_of(file);
        let p = isa.plugin();
        for copies in [1, AMD_CHUNKED_MIN / one.len() + 1] {
            let mut code: Vec<u8> = (0..copies).flat_map(|_| one.iter().copied()).collect();
            let k = one.len() as u64;
            let all: Vec<Label> = (0..copies as u64)
                .flat_map(|c| labels.iter().map(move |l| Label { offset: l.offset + c * k, name: format!("{}_{c}", l.name).into() }))
                .collect();
            let mid = code.len() / 2;
            let mut zero = |from: usize, n: usize| code[from..from + n].iter_mut().for_each(|b| *b = 0);
            zero(mid - 2048, 4096);
            zero(1000, 4);
            zero(2000, 8);
            zero(3001, 13);
            for c in 1..copies.min(8) {
                zero(c * one.len() - 6, 16);
                zero((16 << 10) * c, 12);
            }
            if let Some(l) = labels.get(labels.len() / 2) {
                zero(l.offset as usize - 8, 24);
            }
            check(p, &code, 0, ".text", &all, &format!("{file} x{copies} with zero runs"));
            check(p, &code, 0, "raw", &[], &format!("{file} x{copies} with zero runs, no labels"));
        }
    }
}
