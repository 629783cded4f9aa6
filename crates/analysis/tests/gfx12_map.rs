//! The generated gfx1013 -> gfx1201 opcode map: the checked-in copy is what the generator writes,
//! and it has a row for every gfx1013 (instruction, encoding) pair of the decoder's tables.

use isabridge_analysis::gfx12map::{row, rows, MapKind};
use isabridge_decoder::amd::{GFX10, GFX12};
use std::path::Path;
use std::process::Command;

/// `python3 tools/amdspec/gfx12_map.py --check` finds no difference.
#[test]
fn gfx12_map_is_current() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new("python3")
        .arg(root.join("tools/amdspec/gfx12_map.py"))
        .arg("--check")
        .current_dir(&root)
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// One row per gfx1013 table entry; every re-encode/rename row names a gfx1201 instruction that
/// has the named encoding in our gfx1201 tables.
#[test]
fn every_gfx1013_entry_has_a_row() {
    let t10 = GFX10.tables();
    for ie in t10.inst_encodings {
        let name = t10.instructions[ie.inst as usize].name;
        let enc = t10.encodings[ie.enc as usize].name;
        assert!(row(name, enc).is_some(), "no map row for {name} {enc}");
    }
    assert_eq!(rows().len(), t10.inst_encodings.len());
    let t12 = GFX12.tables();
    for r in rows().iter().filter(|r| matches!(r.kind, MapKind::Reencode | MapKind::Rename)) {
        let i = t12.instructions.iter().find(|i| i.name == r.gfx12).unwrap_or_else(|| panic!("{r:?}"));
        assert!(
            i.encodings.iter().any(|&k| t12.encodings[t12.inst_encodings[k as usize].enc as usize].name == r.gfx12_enc),
            "{r:?}: gfx1201 has no such encoding"
        );
        assert_eq!(r.kind == MapKind::Reencode, r.gfx10 == r.gfx12, "{r:?}");
    }
    for r in rows().iter().filter(|r| matches!(r.kind, MapKind::Sequence | MapKind::Unsupported)) {
        assert!(!r.reason.is_empty(), "{r:?}: no reason");
    }
}
