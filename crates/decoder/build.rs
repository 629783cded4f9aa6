//! Generates the decoder tables of every ISA plugin from isa-specs/ (roxmltree).
//! Output goes to OUT_DIR; a checked-in copy lives in src/generated/ for review, and the test
//! `generated_tables_are_current` fails when the two differ.
//!
//! The specs (32 MB of XML) live in the workspace, not in this crate. Built inside the workspace,
//! the tables are generated from them; built from the packaged crate (`cargo package`,
//! crates.io), where there is no workspace around it, the checked-in copies in src/generated/
//! are the tables (the test above keeps them equal to what the specs generate).

#[path = "codegen.rs"]
#[allow(dead_code)]
mod codegen;
#[path = "build/amd_model.rs"]
mod amd_model;
#[path = "build/amd_reject.rs"]
mod amd_reject;

use std::path::PathBuf;

/// (spec file relative to the workspace root, generated module, dispatch key). Each AMD ISA
/// also gets `<module>_reject` (build/amd_reject.rs, from `src/amd/reject_<module>.tsv`) and
/// `<module>_model` (build/amd_model.rs, from `data/amd_model.tsv`).
const SPECS: &[(&str, &str, codegen::KeyConfig)] = &[
    ("isa-specs/amd/gfx10.xml", "gfx10", codegen::KeyConfig { lo: 23, bits: 9 }),
    ("isa-specs/amd/gfx12.xml", "gfx12", codegen::KeyConfig { lo: 23, bits: 9 }),
];

/// The AMD operand model's facts (build/amd_model.rs reads them), relative to this crate.
const AMD_MODEL: &str = "data/amd_model.tsv";

/// NVIDIA specs: (spec file, generated module, dispatch key on the opcode bits).
const NV_SPECS: &[(&str, &str, codegen::NvKeyConfig)] = &[
    ("isa-specs/nvidia/sm50.xml", "sm50", codegen::NvKeyConfig { lo: 51, bits: 13 }),
    ("isa-specs/nvidia/sm86.xml", "sm86", codegen::NvKeyConfig { lo: 0, bits: 12 }),
];

fn main() {
    println!("cargo:rerun-if-env-changed=ISABRIDGE_UPDATE_GENERATED");
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest.join("../..");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    println!("cargo:rerun-if-changed=codegen.rs");
    println!("cargo:rerun-if-changed=build/amd_model.rs");
    println!("cargo:rerun-if-changed=build/amd_reject.rs");
    // In the workspace: this crate is crates/decoder of it, and isa-specs/ is there.
    let in_workspace = root.join("crates/decoder/build.rs").is_file() && root.join("isa-specs").is_dir();
    if !in_workspace {
        let amd = SPECS.iter().flat_map(|s| [s.1.to_string(), format!("{}_reject", s.1), format!("{}_model", s.1)]);
        let nv = std::iter::once("nv_shared").chain(NV_SPECS.iter().map(|s| s.1)).map(String::from);
        for module in amd.chain(nv) {
            let copy = manifest.join(format!("src/generated/{module}.rs"));
            println!("cargo:rerun-if-changed={}", copy.display());
            std::fs::copy(&copy, out.join(format!("{module}.rs"))).unwrap_or_else(|e| panic!("{}: {e}", copy.display()));
        }
        return;
    }
    let model = read(&manifest, AMD_MODEL);
    for (path, module, key) in SPECS {
        let spec = load(&root, path);
        let code = codegen::generate(&spec, path, *key).unwrap_or_else(|e| panic!("{path}: {e}"));
        emit(&out, &manifest, module, &code);
        let tsv = format!("src/amd/reject_{module}.tsv");
        let bits = read(&manifest, &tsv);
        let sources = format!("{path} and crates/decoder/{tsv}");
        let code = amd_reject::generate(&spec, &bits, &sources).unwrap_or_else(|e| panic!("{path}: {e}"));
        emit(&out, &manifest, &format!("{module}_reject"), &code);
        let sources = format!("{path} and crates/decoder/{AMD_MODEL}");
        let code = amd_model::generate(&spec, module, &model, &sources).unwrap_or_else(|e| panic!("{path}: {e}"));
        emit(&out, &manifest, &format!("{module}_model"), &code);
    }
    let nv: Vec<codegen::Spec> = NV_SPECS.iter().map(|(path, _, _)| load(&root, path)).collect();
    let refs: Vec<&codegen::Spec> = nv.iter().collect();
    let shared = codegen::NvShared::new(&refs).unwrap_or_else(|e| panic!("NVIDIA specs: {e}"));
    let sources: Vec<&str> = NV_SPECS.iter().map(|s| s.0).collect();
    emit(&out, &manifest, "nv_shared", &shared.code(&sources));
    for ((path, module, key), spec) in NV_SPECS.iter().zip(&nv) {
        let code = codegen::generate_nv(spec, path, *key, &shared).unwrap_or_else(|e| panic!("{path}: {e}"));
        emit(&out, &manifest, module, &code);
    }
}

/// Parses one spec. A spec that is not there yet gives an empty table set: every word is then
/// an "unknown instruction" error at run time, never a wrong decode.
fn load(root: &std::path::Path, path: &str) -> codegen::Spec {
    let full = root.join(path);
    println!("cargo:rerun-if-changed={}", full.display());
    match std::fs::read_to_string(&full) {
        Ok(xml) => codegen::parse_spec(&xml).unwrap_or_else(|e| panic!("{path}: {e}")),
        Err(_) => {
            println!("cargo:warning={path} is missing: its decoder has no instructions");
            codegen::Spec::default()
        }
    }
}

/// Reads a data file of this crate (a build input: watched for changes).
fn read(manifest: &std::path::Path, path: &str) -> String {
    let full = manifest.join(path);
    println!("cargo:rerun-if-changed={}", full.display());
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

/// Writes generated code to OUT_DIR, and to the checked-in copy when asked to refresh it.
fn emit(out: &std::path::Path, manifest: &std::path::Path, module: &str, code: &str) {
    std::fs::write(out.join(format!("{module}.rs")), code).unwrap();
    if std::env::var_os("ISABRIDGE_UPDATE_GENERATED").is_some() {
        std::fs::write(manifest.join(format!("src/generated/{module}.rs")), code).unwrap();
    }
}
