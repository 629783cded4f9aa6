//! An `NvPrinter`'s print memo and text templates (`nvidia/template.rs`) give the uncached
//! printer's text byte for byte: on every NVIDIA word set the conformance tests use (corpus,
//! fuzz sets, extra words), on variants of those words with random register / predicate /
//! immediate fields (the values templates fill in), on random words, and on whole listings of
//! the bundled cubins (and of target/bench/nvbig.300.*.cubin when `tools/bench_nv_disasm.sh`
//! has built them).

use isabridge_decoder::nvidia::{NvPlugin, NvPrinter};
use isabridge_decoder::sm50::{SM50, SM50_INSN};
use isabridge_decoder::sm86::SM86;
use isabridge_decoder::spec::NvKind;
use isabridge_decoder::{disasm, Decoded, IsaPlugin};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

mod common;

use common::{root, unhex};

/// One instruction to print: the word (sm50: in the low half), the sm50 control word and slot.
#[derive(Clone, Copy, Debug)]
struct Word {
    w: u128,
    ctrl: u64,
    slot: usize,
    addr: u64,
}

/// Every word of the conformance sets of `arch`.
fn words(arch: &str) -> Vec<Word> {
    let mut out = Vec::new();
    for v in common::ref_records(arch) {
        let bytes = unhex(v["bytes"].as_str().unwrap());
        let addr = v["offset"].as_u64().unwrap();
        if arch == "sm50" {
            let ctrl = u64::from_str_radix(v["ctrl"].as_str().unwrap(), 16).unwrap();
            let w = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as u128;
            out.push(Word { w, ctrl, slot: (addr % 32 / 8) as usize - 1, addr });
        } else {
            let w = u128::from_le_bytes(bytes[..16].try_into().unwrap());
            out.push(Word { w, ctrl: 0, slot: 0, addr });
        }
    }
    let mut sets = vec![format!("fuzz/{arch}.tsv"), format!("extra/{arch}_words.tsv")];
    if arch == "sm50" {
        sets.push("fuzz/sm50_random.tsv".into());
    }
    for rel in sets {
        for line in std::fs::read_to_string(root().join("fixtures/nvidia").join(rel)).unwrap().lines() {
            let (ws, _) = line.split_once('\t').unwrap();
            let (a, b) = ws.split_once(' ').unwrap();
            let a = u64::from_str_radix(a.trim_start_matches("0x"), 16).unwrap();
            let b = u64::from_str_radix(b.trim_start_matches("0x"), 16).unwrap();
            if arch == "sm50" {
                out.push(Word { w: b as u128, ctrl: a, slot: 0, addr: 8 });
            } else {
                out.push(Word { w: a as u128 | (b as u128) << 64, ctrl: 0, slot: 0, addr: 0 });
            }
        }
    }
    out
}

/// Decodes a word: the plugin that prints it, the instruction and its reuse flags.
fn decode(arch: &str, x: Word) -> Option<(&'static NvPlugin, Decoded, u8)> {
    if arch == "sm50" {
        let d = SM50.decode_slot(x.w as u64, x.ctrl, x.slot, x.addr).ok()?;
        let reuse = SM50.control(&d).map(|c| c.reuse).unwrap_or(0);
        Some((&SM50_INSN, d, reuse))
    } else {
        let d = SM86.decode(&x.w.to_le_bytes(), x.addr).ok()?;
        Some((&SM86, d, isabridge_decoder::nvidia::control::sm86_reuse(x.w)))
    }
}

/// A printer that uses templates from the first instruction (not only after its first 2048).
fn eager() -> NvPrinter {
    let mut p = NvPrinter::new();
    p.eager_templates(true);
    p
}

/// The text through `printer`'s memo and templates, and the slow text.
fn both(printer: &mut NvPrinter, p: &NvPlugin, d: &Decoded, addr: u64, reuse: u8) -> (String, String) {
    let mut fast = String::new();
    printer.print_with(p, d, addr, reuse, &mut fast);
    let mut slow = String::new();
    NvPrinter::uncached().print_with(p, d, addr, reuse, &mut slow);
    (fast, slow)
}

/// Checks one word through `printer`; false when it does not decode.
fn check(printer: &mut NvPrinter, arch: &str, x: Word) -> bool {
    let Some((p, d, reuse)) = decode(arch, x) else { return false };
    let (fast, slow) = both(printer, p, &d, x.addr, reuse);
    assert_eq!(fast, slow, "{arch} {:#034x} ctrl {:#x} slot {} ({})", x.w, x.ctrl, x.slot, p.encoding_name(&d));
    true
}

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// `x` with every number field of its form (registers, predicates, immediates) set to a random
/// value, often a special one (0, 1, a power of two, all ones: RZ, PT, URZ, the top bit).
fn variant(arch: &str, x: Word, rng: &mut Rng) -> Word {
    let Some((p, d, _)) = decode(arch, x) else { return x };
    let Some(form) = p.t.forms.get(d.enc as usize) else { return x };
    let mut w = x.w;
    for f in form.fields {
        let number = matches!(f.kind, NvKind::Reg | NvKind::UReg | NvKind::Pred | NvKind::UPred | NvKind::BReg | NvKind::UImm | NvKind::SImm);
        if !number || rng.next().is_multiple_of(4) {
            continue;
        }
        let n = f.width().min(63);
        let all = (1u64 << n) - 1;
        let v = match rng.next() % 8 {
            0 => 0,
            1 => all,
            2 => 1,
            3 => 1 << (rng.next() % u64::from(n.max(1))),
            4 => all >> 1,
            _ => rng.next() & all,
        };
        f.set(&mut w, v);
    }
    let mut ctrl = x.ctrl;
    if rng.next().is_multiple_of(4) {
        // other reuse flags
        if arch == "sm50" {
            ctrl ^= (rng.next() & 0xf) << (17 + 21 * x.slot as u64);
        } else {
            w ^= ((rng.next() & 0xf) as u128) << 122;
        }
    }
    Word { w, ctrl, ..x }
}

fn sets_agree(arch: &str) {
    let ws = words(arch);
    let mut printer = eager();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ arch.len() as u64);
    let mut n = 0usize;
    // Twice over: the second pass prints from filled memo and templates.
    for _ in 0..2 {
        for &x in &ws {
            n += usize::from(check(&mut printer, arch, x));
        }
    }
    for &x in &ws {
        for _ in 0..4 {
            let v = variant(arch, x, &mut rng);
            n += usize::from(check(&mut printer, arch, v));
        }
    }
    let s = printer.template_stats();
    eprintln!("{arch}: {n} prints compared; templates made {}, not templatable {}, hits {}, misses {}", s[0], s[1], s[2], s[3]);
    assert!(n > 5 * ws.len(), "{arch}: {n} of {} words decoded", ws.len());
    assert!(s[2] > 10_000, "{arch}: templates were used {} times", s[2]);
}

/// A printer told to expect a short listing (`expect_instructions`) starts with a small memo and
/// mnemonic cache, which grow as it prints on: the text stays the slow printer's throughout.
fn small_tables_agree(arch: &'static str) {
    let mut printer = NvPrinter::new();
    printer.expect_instructions(16);
    let mut n = 0usize;
    for _ in 0..2 {
        for &x in &words(arch) {
            let Some((p, d, reuse)) = decode(arch, x) else { continue };
            let (fast, slow) = both(&mut printer, p, &d, x.addr, reuse);
            assert_eq!(fast, slow, "{arch} {:#034x}", x.w);
            n += 1;
        }
    }
    assert!(n > 10_000, "{arch}: {n} words");
}

#[test]
fn small_tables_agree_sm50() {
    small_tables_agree("sm50");
}

#[test]
fn small_tables_agree_sm86() {
    small_tables_agree("sm86");
}

#[test]
fn word_sets_agree_sm50() {
    sets_agree("sm50");
}

#[test]
fn word_sets_agree_sm86() {
    sets_agree("sm86");
}

/// The listing of every section of `path` (as `disasm::listing_sections` writes it) printed
/// through `printer` (None: the slow way, uncached).
fn listing(path: &Path, printer: Option<&mut NvPrinter>) -> Vec<u8> {
    let data = std::fs::read(path).unwrap();
    let (isa, sections) = isabridge_decoder::elf::parse(&data).expect("cubin");
    let p = isa.plugin();
    let mut uncached = NvPrinter::uncached();
    let printer = printer.unwrap_or(&mut uncached);
    let mut text = Vec::new();
    for s in &sections {
        text.extend_from_slice(format!("\nDisassembly of section {}:\n", s.name).as_bytes());
        let r = disasm::listing_with_printer(p, printer, s.data, s.address, s.name, &s.labels, &mut |b| text.extend_from_slice(b));
        assert!(r.is_ok(), "{}", path.display());
    }
    text
}

/// A whole listing of `path` the slow way, through one printer's memo and templates, the same
/// printer again, and the library's plain `listing_sections`: all four equal. Returns the
/// printer.
fn listing_agrees(path: &Path) -> NvPrinter {
    let slow = listing(path, None);
    let mut printer = eager();
    let fast = listing(path, Some(&mut printer));
    let again = listing(path, Some(&mut printer));
    assert!(slow == fast && fast == again, "{}: listings differ", path.display());
    let data = std::fs::read(path).unwrap();
    let (isa, sections) = isabridge_decoder::elf::parse(&data).expect("cubin");
    let list: Vec<disasm::ListSection> = sections.iter().map(|s| (s.name, s.address, s.data, s.labels.clone())).collect();
    let mut plain = Vec::new();
    disasm::listing_sections(isa.plugin(), &list, &mut |b| plain.extend_from_slice(b)).unwrap();
    assert!(plain == slow, "{}: the plain listing differs", path.display());
    printer
}

#[test]
fn listings_agree() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("fixtures/nvidia/bin")).unwrap().flatten().map(|e| e.path()).collect();
    files.sort();
    for f in files.iter().filter(|f| f.extension().is_some_and(|e| e == "cubin")) {
        listing_agrees(f);
    }
}

/// The large generated cubins (`tools/bench_nv_disasm.sh` builds them into target/bench; the
/// test passes without them).
#[test]
fn large_listings_agree() {
    for arch in ["sm50", "sm86"] {
        let f = root().join(format!("target/bench/nvbig.300.{arch}.cubin"));
        if f.exists() {
            let d = listing_agrees(&f).template_stats();
            eprintln!("{arch} nvbig, two listings through one printer: templates made {}, keys not templatable {}, template hits {}, misses {}", d[0], d[1], d[2], d[3]);
        }
    }
}

thread_local! {
    /// The printer the property tests print through: its memo and templates fill over the
    /// cases of a test (test code; the library keeps no such state).
    static PRINTER: std::cell::RefCell<NvPrinter> = std::cell::RefCell::new(eager());
}

/// [`check`] through this test thread's [`PRINTER`].
fn check_shared(arch: &str, x: Word) -> bool {
    PRINTER.with(|p| check(&mut p.borrow_mut(), arch, x))
}

fn words_of(arch: &str) -> &'static [Word] {
    static SM50_WORDS: std::sync::OnceLock<Vec<Word>> = std::sync::OnceLock::new();
    static SM86_WORDS: std::sync::OnceLock<Vec<Word>> = std::sync::OnceLock::new();
    if arch == "sm50" {
        SM50_WORDS.get_or_init(|| words("sm50"))
    } else {
        SM86_WORDS.get_or_init(|| words("sm86"))
    }
}

proptest! {
    // PROPTEST_CASES=N for a longer run.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(4000),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Random words that decode: memo and templates give the slow text.
    #[test]
    fn random_words_agree(lo in any::<u64>(), hi in any::<u64>(), ctrl in any::<u64>(), slot in 0usize..3) {
        check_shared("sm50", Word { w: lo as u128, ctrl, slot, addr: 8 * (slot as u64 + 1) });
        check_shared("sm86", Word { w: lo as u128 | (hi as u128) << 64, ctrl: 0, slot: 0, addr: 0 });
    }

    /// Variants of conformance words with random number fields: memo and templates give the
    /// slow text (these are the values templates fill in).
    #[test]
    fn varied_words_agree(k in any::<usize>(), seed in 1u64.., rounds in 1usize..6) {
        let mut rng = Rng(seed);
        for arch in ["sm50", "sm86"] {
            let ws = words_of(arch);
            let x = ws[k % ws.len()];
            for _ in 0..rounds {
                check_shared(arch, variant(arch, x, &mut rng));
            }
        }
    }
}
