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
