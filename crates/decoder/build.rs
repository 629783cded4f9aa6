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

use std::path::PathBuf;

/// (spec file relative to the workspace root, generated module, dispatch key).
const SPECS: &[(&str, &str, codegen::KeyConfig)] = &[
    ("isa-specs/amd/gfx10.xml", "gfx10", codegen::KeyConfig { lo: 23, bits: 9 }),
    ("isa-specs/amd/gfx12.xml", "gfx12", codegen::KeyConfig { lo: 23, bits: 9 }),
];

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
    // In the workspace: this crate is crates/decoder of it, and isa-specs/ is there.
    let in_workspace = root.join("crates/decoder/build.rs").is_file() && root.join("isa-specs").is_dir();
    if !in_workspace {
        let modules = SPECS.iter().map(|s| s.1).chain(std::iter::once("nv_shared")).chain(NV_SPECS.iter().map(|s| s.1));
        for module in modules {
            let copy = manifest.join(format!("src/generated/{module}.rs"));
            println!("cargo:rerun-if-changed={}", copy.display());
            std::fs::copy(&copy, out.join(format!("{module}.rs"))).unwrap_or_else(|e| panic!("{}: {e}", copy.display()));
        }
        return;
    }
    for (path, module, key) in SPECS {
        let code = codegen::generate(&load(&root, path), path, *key).unwrap_or_else(|e| panic!("{path}: {e}"));
        emit(&out, &manifest, module, &code);
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

/// Writes generated code to OUT_DIR, and to the checked-in copy when asked to refresh it.
fn emit(out: &std::path::Path, manifest: &std::path::Path, module: &str, code: &str) {
    std::fs::write(out.join(format!("{module}.rs")), code).unwrap();
    if std::env::var_os("ISABRIDGE_UPDATE_GENERATED").is_some() {
        std::fs::write(manifest.join(format!("src/generated/{module}.rs")), code).unwrap();
    }
}
