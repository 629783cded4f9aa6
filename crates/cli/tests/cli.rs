//! `isabridge disasm` as a whole process: output formats, the one-line errors with exit 2, and
//! the warning of a truncated instruction.

use std::path::PathBuf;
use std::process::Command;

fn fixture(p: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures").join(p)
}

/// The command under test: this build's, or the one ISABRIDGE_BIN names (the static musl
/// release build, from tools/check_release_build.sh).
fn bin() -> String {
    std::env::var("ISABRIDGE_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_isabridge").to_string())
}

fn run(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(bin()).args(args).output().unwrap();
    (o.status.code().unwrap_or(-1), String::from_utf8(o.stdout).unwrap(), String::from_utf8(o.stderr).unwrap())
}

/// The tiny object was assembled by llvm-mc-22; its expected listing is llvm-objdump-22's.
#[test]
fn text_listing_matches_llvm_objdump_layout() {
    let f = fixture("cli/tiny.gfx1013.o");
    let (rc, out, err) = run(&["disasm", f.to_str().unwrap()]);
    assert_eq!(rc, 0, "{err}");
    let body: Vec<&str> = out.lines().skip_while(|l| !l.starts_with("Disassembly")).collect();
    assert_eq!(
        body,
        [
            "Disassembly of section .text:",
            "",
            "0000000000000000 <.text>:",
            "\ts_mov_b32 s0, s1                                           // 000000000000: BE800301",
            "\tv_add_f32_e32 v0, v1, v2                                   // 000000000004: 06000501",
            "\ts_endpgm                                                   // 000000000008: BF810000",
        ]
    );
}

#[test]
fn json_lines_have_function_offset_bytes_text() {
    let f = fixture("cli/invalid_word.gfx1013.bin");
    let (rc, out, err) = run(&["disasm", "--isa", "gfx1013", "--json", f.to_str().unwrap()]);
    assert_eq!(rc, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            r#"{"function":"raw","offset":0,"bytes":"010380be","text":"s_mov_b32 s0, s1"}"#,
            // llvm-objdump-22 prints an undecodable word this way and goes on.
            r#"{"function":"raw","offset":4,"bytes":"ffffffff","text":".long 0xffffffff"}"#,
            r#"{"function":"raw","offset":8,"bytes":"000081bf","text":"s_endpgm"}"#,
        ]
    );
}

fn assert_one_line_error(args: &[&str], needle: &str) {
    let (rc, out, err) = run(args);
    assert_eq!(rc, 2, "stdout {out:?} stderr {err:?}");
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(err.contains(needle), "{err:?} lacks {needle:?}");
}

/// A raw dump that ends inside an instruction: its first word is a `.long` line (as
/// llvm-objdump-22 lists it), with a warning on stderr, and the exit status is 0.
#[test]
fn truncated_instruction_is_a_long_with_a_warning() {
    let f = fixture("cli/truncated.gfx1013.bin");
    let (rc, out, err) = run(&["disasm", "--isa", "gfx1013", f.to_str().unwrap()]);
    assert_eq!(rc, 0, "{err}");
    let last = out.lines().last().unwrap_or("");
    assert!(last.starts_with("\t.long 0x") && last.contains("// 000000000004: "), "{out}");
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(err.contains("warning") && err.contains("gfx1013: truncated instruction at 0x4: needs 8 bytes, 4 left"), "{err:?}");
    // The same in JSON.
    let (rc, json, err) = run(&["disasm", "--isa", "gfx1013", "--json", f.to_str().unwrap()]);
    assert_eq!(rc, 0, "{err}");
    assert!(json.lines().last().unwrap_or("").contains(r#""offset":4,"bytes":"#), "{json}");
    assert!(err.contains("truncated instruction at 0x4"), "{err:?}");
}

/// Objects with symbols in odd places (inside instructions, at odd offsets, a section cut off
/// inside an instruction; fixtures/amd/edges, assembled by llvm-mc-22): `isabridge disasm`
/// prints what llvm-objdump-22 printed, line for line: decoding starts again at every symbol,
/// and an instruction cut off by the section's end is `.long` / `.byte`, with a warning on
/// stderr and exit status 0.
#[test]
fn symbols_in_odd_places_list_as_llvm_objdump() {
    let dir = fixture("amd/edges");
    let mut names: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.file_name().to_string_lossy().to_string()).collect();
    names.sort();
    let mut n = 0;
    for name in names {
        let Some(stem) = name.strip_suffix(".o") else { continue };
        let want = std::fs::read_to_string(dir.join(format!("{stem}.txt"))).unwrap();
        let o = Command::new(bin()).current_dir(&dir).args(["disasm", &name]).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{name}: {err}");
        assert_eq!(String::from_utf8(o.stdout).unwrap(), want, "{name}");
        // A warning exactly where the section ends inside an instruction.
        assert_eq!(err.contains("truncated instruction"), stem.starts_with("trunc") || stem.starts_with("trailing"), "{name}: {err}");
        n += 1;
    }
    assert_eq!(n, 10, "all edge objects compared");
}

#[test]
fn elf_without_code_is_an_error() {
    let f = fixture("cli/amd_no_code.gfx1013.o");
    assert_one_line_error(&["disasm", f.to_str().unwrap()], "ELF has no code section");
}

#[test]
fn non_amd_elf_is_an_error() {
    let f = fixture("cli/x86.o");
    assert_one_line_error(&["disasm", f.to_str().unwrap()], "ELF for machine 62, not an AMD GPU");
}

#[test]
fn raw_dump_without_isa_is_an_error() {
    let f = fixture("cli/truncated.gfx1013.bin");
    assert_one_line_error(&["disasm", f.to_str().unwrap()], "give --isa");
}

#[test]
fn missing_file_is_an_error() {
    assert_one_line_error(&["disasm", "/nonexistent/x.o"], "/nonexistent/x.o");
}

/// `isabridge disasm FILE` prints exactly what `llvm-objdump-22 -d FILE` printed for every
/// committed AMD corpus object (listings in fixtures/amd/listings, made in the same directory).
#[test]
fn text_output_equals_llvm_objdump_listings() {
    let dir = fixture("amd/bin");
    let mut n = 0;
    let mut names: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.file_name()).collect();
    names.sort();
    for name in names {
        let name = name.to_string_lossy().to_string();
        let Some(stem) = name.strip_suffix(".o") else { continue };
        let want = std::fs::read_to_string(fixture(&format!("amd/listings/{stem}.txt"))).unwrap();
        let o = Command::new(bin()).current_dir(&dir).args(["disasm", &name]).output().unwrap();
        assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
        let got = String::from_utf8(o.stdout).unwrap();
        if got != want {
            let (i, (g, w)) = got.lines().zip(want.lines()).enumerate().find(|(_, (g, w))| g != w).unwrap_or((0, ("", "")));
            panic!("{name}: first difference at line {}:\n ours: {g}\n llvm: {w}", i + 1);
        }
        n += 1;
    }
    assert_eq!(n, 21, "all corpus objects compared");
}

/// `disasm` arguments are read without clap when they are plain (main.rs `quick_disasm`):
/// every order and spelling gives what clap's reading gives, and anything else still reaches
/// clap (its messages, exit 2 for usage errors, 0 for help).
#[test]
fn disasm_arguments_read_alike_with_and_without_clap() {
    let f = fixture("cli/tiny.gfx1013.o");
    let f = f.to_str().unwrap();
    let (rc, json, _) = run(&["disasm", "--json", f]);
    assert_eq!(rc, 0);
    assert!(json.starts_with("{\"function\":\".text\""), "{json}");
    for args in [vec!["disasm", f, "--json"], vec!["disasm", "--isa", "gfx1013", f, "--json"], vec!["disasm", "--json", "--isa=gfx1013", f]] {
        assert_eq!(run(&args), (0, json.clone(), String::new()), "{args:?}");
    }
    let (rc, text, _) = run(&["disasm", f]);
    assert_eq!((rc, text.contains("s_mov_b32 s0, s1")), (0, true));
    // A raw dump read with --isa in both spellings.
    let raw = fixture("cli/invalid_word.gfx1013.bin");
    let raw = raw.to_str().unwrap();
    let (rc, listing, _) = run(&["disasm", "--isa", "gfx1013", raw]);
    assert_eq!((rc, listing.contains(".long 0x")), (0, true), "{listing}");
    assert_eq!(run(&["disasm", raw, "--isa=gfx1013"]), (0, listing, String::new()));
    // Left to clap: unknown options, repeated options, bad ISA names, two files, help.
    for (args, needle) in [
        (vec!["disasm", f, "--bogus"], "unexpected argument '--bogus'"),
        (vec!["disasm", f, "--json", "--json"], "cannot be used multiple times"),
        (vec!["disasm", "--isa", "gfx9", f], "unknown ISA \"gfx9\""),
        (vec!["disasm", f, f], "unexpected argument"),
        (vec!["disasm"], "required arguments were not provided"),
    ] {
        let (rc, out, err) = run(&args);
        assert_eq!((rc, out.as_str()), (2, ""), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    let (rc, help, _) = run(&["disasm", "--help"]);
    assert_eq!(rc, 0);
    assert!(help.contains("Usage: isabridge disasm"), "{help}");
}
