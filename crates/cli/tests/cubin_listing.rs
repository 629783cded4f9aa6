//! `isabridge disasm` of every bundled cubin equals nvdisasm 12.8's cubin listing
//! (`nvdisasm -c -hex`, fixtures/nvidia/listings, written by tools/build_nvidia_corpus.sh) line
//! for line.

use std::path::PathBuf;
use std::process::Command;

/// The command under test: this build's, or the one ISABRIDGE_BIN names.
fn bin() -> String {
    std::env::var("ISABRIDGE_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_isabridge").to_string())
}

#[test]
fn every_bundled_cubin_lists_as_nvdisasm() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/nvidia");
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(root.join("bin")).unwrap().flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "cubin")).collect();
    files.sort();
    assert_eq!(files.len(), 30, "bundled cubins");
    let mut bad = Vec::new();
    for f in &files {
        let name = f.file_stem().unwrap().to_str().unwrap();
        let want = std::fs::read_to_string(root.join("listings").join(format!("{name}.txt"))).unwrap();
        let o = Command::new(bin()).arg("disasm").arg(f).output().unwrap();
        assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
        let got = String::from_utf8(o.stdout).unwrap();
        let (g, w): (Vec<&str>, Vec<&str>) = (got.lines().collect(), want.lines().collect());
        if let Some(k) = (0..g.len().max(w.len())).find(|&k| g.get(k) != w.get(k)) {
            bad.push(format!("{name} line {}:\n  got  {:?}\n  want {:?}", k + 1, g.get(k), w.get(k)));
        } else if got != want {
            bad.push(format!("{name}: same lines, different bytes"));
        }
    }
    assert!(bad.is_empty(), "{} of {} listings differ:\n{}", bad.len(), files.len(), bad.join("\n"));
}

/// `--objdump-layout` keeps llvm-objdump's layout for a cubin: a function header, then the
/// text, offset and encoding words of each instruction.
#[test]
fn objdump_layout_on_request() {
    let f = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/nvidia/bin/control.sm50.cubin");
    let o = Command::new(bin()).arg("disasm").arg(&f).arg("--objdump-layout").output().unwrap();
    assert!(o.status.success());
    let out = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = out.lines().skip_while(|l| !l.starts_with("Disassembly")).take(4).collect();
    assert_eq!(
        lines,
        [
            "Disassembly of section .text.calls:",
            "",
            "0000000000000008 <calls>:",
            "\tMOV R1, c[0x0][0x20]                                       // 000000000008: 00870001 4C980780",
        ]
    );
}

/// sm_50 scheduling limits hold in every slot of a bundle, not only the first: reuse flag 3
/// set in the control bits of one slot of control.sm50.cubin's first code section
/// (`.text.calls`, file offset 0x17e0). Where nvdisasm 12.8 refuses the word (`nvdisasm -c
/// -hex`: "Unrecognized operation for functional unit 'uC' at address 0x00000030" for slot 1
/// of the bundle at 0x20, XMAD; "... at address 0x000000b8" for slot 2 of the bundle at 0xa0,
/// LOP32I; then "Illegal instruction found", exit 1) the listing shows that instruction as
/// `.quad`; where it accepts the bit (slot 1 at 0x60, LDG; slot 2 at 0x80, ISETP) the listing is
/// nvdisasm's. Every other line is the bundled listing with the new control word.
#[test]
fn sm50_control_bits_checked_in_every_slot() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/nvidia");
    let cubin = std::fs::read(root.join("bin/control.sm50.cubin")).unwrap();
    let listing = std::fs::read_to_string(root.join("listings/control.sm50.txt")).unwrap();
    let text = 0x17e0usize;
    let dir = std::env::temp_dir().join(format!("isabridge-sm50-slots-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // (bundle offset in the section, slot, refused by nvdisasm)
    for (bundle, slot, refused) in [(0x20usize, 1usize, true), (0xa0, 2, true), (0x60, 1, false), (0x80, 2, false)] {
        let at = text + bundle;
        let ctrl = u64::from_le_bytes(cubin[at..at + 8].try_into().unwrap());
        let new = ctrl ^ 1 << (21 * slot + 20);
        let mut m = cubin.clone();
        m[at..at + 8].copy_from_slice(&new.to_le_bytes());
        let f = dir.join(format!("b{bundle:x}s{slot}.cubin"));
        std::fs::write(&f, &m).unwrap();
        let o = Command::new(bin()).arg("disasm").arg(&f).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let got = String::from_utf8(o.stdout).unwrap();
        // The section is the file's first: its lines are the first with their offsets, and the
        // control word's line is the one before the bundle's first instruction.
        let mut want: Vec<String> = listing.lines().map(str::to_string).collect();
        let first_of = |want: &[String], off: usize| want.iter().position(|l| l.contains(&format!("/*{off:04x}*/"))).unwrap();
        let c = first_of(&want, bundle + 8) - 1;
        assert!(want[c].ends_with(&format!("/* 0x{ctrl:016x} */")), "{}", want[c]);
        want[c] = want[c].replace(&format!("{ctrl:016x}"), &format!("{new:016x}"));
        let off = bundle + 8 + 8 * slot;
        let word = u64::from_le_bytes(cubin[text + off..text + off + 8].try_into().unwrap());
        let at = first_of(&want, off);
        let g: Vec<&str> = got.lines().collect();
        assert_eq!(g.len(), want.len());
        for (k, (a, b)) in g.iter().zip(&want).enumerate() {
            if refused && k == at {
                assert!(a.contains(&format!(".quad 0x{word:016x} ;")), "{a}");
            } else {
                assert_eq!(a, b, "bundle {bundle:#x} slot {slot}, line {}", k + 1);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
