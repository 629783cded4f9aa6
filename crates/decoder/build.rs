//! Generates the decoder tables of every ISA plugin from isa-specs/ (roxmltree).
//! Output goes to OUT_DIR; a checked-in copy lives in src/generated/ for review, and the test
//! `generated_tables_are_current` fails when the two differ.

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
    for (path, module, key) in SPECS {
        let full = root.join(path);
        println!("cargo:rerun-if-changed={}", full.display());
        // A spec that is not there yet gives an empty table set: every word is then an
        // "unknown instruction" error at run time, never a wrong decode.
        let spec = match std::fs::read_to_string(&full) {
            Ok(xml) => codegen::parse_spec(&xml).unwrap_or_else(|e| panic!("{path}: {e}")),
            Err(_) => {
                println!("cargo:warning={path} is missing: its decoder has no instructions");
                codegen::Spec::default()
            }
        };
        let code = codegen::generate(&spec, path, *key).unwrap_or_else(|e| panic!("{path}: {e}"));
        std::fs::write(out.join(format!("{module}.rs")), &code).unwrap();
        if std::env::var_os("ISABRIDGE_UPDATE_GENERATED").is_some() {
            std::fs::write(manifest.join(format!("src/generated/{module}.rs")), &code).unwrap();
        }
    }
    for (path, module, key) in NV_SPECS {
        let full = root.join(path);
        println!("cargo:rerun-if-changed={}", full.display());
        let spec = match std::fs::read_to_string(&full) {
            Ok(xml) => codegen::parse_spec(&xml).unwrap_or_else(|e| panic!("{path}: {e}")),
            Err(_) => {
                println!("cargo:warning={path} is missing: its decoder has no instructions");
                codegen::Spec::default()
            }
        };
        let code = codegen::generate_nv(&spec, path, *key).unwrap_or_else(|e| panic!("{path}: {e}"));
        std::fs::write(out.join(format!("{module}.rs")), &code).unwrap();
        if std::env::var_os("ISABRIDGE_UPDATE_GENERATED").is_some() {
            std::fs::write(manifest.join(format!("src/generated/{module}.rs")), &code).unwrap();
        }
    }
}
