//! `isabridge conform rdna` on the RDNA2-measured vectors (fixtures/rdna/vectors.jsonl): the
//! code (gfx1013 with the gfx10.3 dot products) is lifted, interpreted and every checked lane
//! compared with the hardware's words. Every test and wave is reported, and every further float-mode table of a test as a
//! row of its own; the ones that pass every checked lane today are pinned (the sets may only
//! grow), and so is the number of lanes that pass in all.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

fn vectors() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/rdna/vectors.jsonl")
}

/// Test waves that pass every checked lane on the interpreter today.
const PASSING: [(&str, u64); 41] = [
    ("Dpp8", 32),
    ("Dpp8", 64),
    ("Dpp16RowShareXmask", 32),
    ("Dpp16RowShareXmask", 64),
    ("DsPermute", 32),
    ("Permlane16", 32),
    ("Permlane16", 64),
    ("F32ArithmeticNan", 32),
    ("F32OutputModifier", 32),
    ("F64Rounding", 32),
    ("F64NanConversions", 32),
    ("FmaRounding", 32),
    ("Float16Rounding", 32),
    ("F16MinMaxNan", 32),
    ("MacLegacy", 32),
    ("LdexpF16InlineConstants", 32),
    ("BufferAtomicsIncDec64", 32),
    ("Division_FmaProbe", 32),
    ("Dx10Clamp", 32),
    ("F16MinMaxNan_DenormVop3", 32),
    ("F16MinMaxNan_DenormSdwaHigh", 32),
    ("Float16FmaRounding", 32),
    ("F64Arithmetic", 32),
    ("F64Transcendental", 32),
    ("F64FmaSubnormals", 32),
    ("F64DivisionModifiers", 32),
    ("F32DenormalFlush", 32),
    ("Float16TernaryClamp", 32),
    ("DivisionOutputModifiers", 32),
    ("DivisionResultModifiers", 32),
    ("NanQuieting", 32),
    ("LogNearOne", 32),
    ("Division_Scale", 32),
    ("Division_Macro", 32),
    ("Dpp16Operands", 32),
    ("Float16Modifiers", 32),
    ("BufferFormat", 32),
    ("FormattedStore", 32),
    ("FormatD16", 32),
    ("Bvh64IntersectRay", 32),
    ("Float16Dot", 32),
];

/// Further float-mode tables (wave32) that pass every checked lane today.
const PASSING_TABLES: [(&str, &str); 13] = [
    ("F32ArithmeticNan", "expected32_ieee"),
    ("F32OutputModifier", "expected32_denorm_kept"),
    ("F32OutputModifier", "expected32_ieee"),
    ("Dx10Clamp", "expected32_no_dx10"),
    ("F16MinMaxNan", "expected32_ieee"),
    ("F16MinMaxNan_DenormVop3", "expected32_denorm_kept"),
    ("F16MinMaxNan_DenormVop3", "expected32_ieee"),
    ("F16MinMaxNan_DenormVop3", "expected32_denorm_kept_ieee"),
    ("F16MinMaxNan_DenormSdwaHigh", "expected32_denorm_kept"),
    ("F16MinMaxNan_DenormSdwaHigh", "expected32_ieee"),
    ("F16MinMaxNan_DenormSdwaHigh", "expected32_denorm_kept_ieee"),
    ("NanQuieting", "expected32_ieee"),
    ("Division_Scale", "expected32_denorm_kept"),
];

#[test]
fn rdna_vectors_on_the_interpreter() {
    let o = Command::new(env!("CARGO_BIN_EXE_isabridge"))
        .args(["conform", "rdna", "--json", "--via", "interp"])
        .arg(vectors())
        .output()
        .unwrap();
    let text = String::from_utf8(o.stdout).unwrap();
    let rows: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let main = |r: &serde_json::Value| matches!(r["table"].as_str(), Some("expected32" | "expected64"));
    // Every test and wave the vectors give is reported: 38 tests, 3 of them also in wave64; and
    // the 13 further float-mode tables (IEEE=1, denormals kept, DX10_CLAMP=0).
    assert_eq!(rows.iter().filter(|r| main(r)).count(), 41, "{text}");
    assert_eq!(rows.len(), 41 + 13, "{text}");
    let (mut passing, mut passing_tables) = (BTreeSet::new(), BTreeSet::new());
    let (mut checked, mut passed) = (0, 0);
    for r in &rows {
        assert_eq!(r["via"], "interp");
        let (c, p) = (r["checked"].as_u64().unwrap(), r["passed"].as_u64().unwrap());
        assert!(c > 0 && p <= c, "{r}");
        checked += c;
        passed += p;
        let name = r["name"].as_str().unwrap().to_string();
        if p == c && main(r) {
            passing.insert((name, r["wave"].as_u64().unwrap()));
        } else if p == c {
            passing_tables.insert((name, r["table"].as_str().unwrap().to_string()));
        }
    }
    for (name, wave) in PASSING {
        assert!(passing.contains(&(name.to_string(), wave)), "{name} wave{wave} no longer passes:\n{text}");
    }
    for (name, table) in PASSING_TABLES {
        assert!(passing_tables.contains(&(name.to_string(), table.to_string())), "{name} {table} no longer passes:\n{text}");
    }
    assert!(passed >= 22560, "lanes passing fell to {passed} of {checked}");
    // Exit status 0 only when every checked lane of every test passes.
    let all = passing.len() + passing_tables.len() == rows.len();
    assert_eq!(o.status.code(), Some(if all { 0 } else { 1 }), "{}", String::from_utf8_lossy(&o.stderr));
}
