//! `isabridge translate` as a whole process: a module and its JSON sidecar per kernel (modules
//! that spirv-val accepts), progress and per-kernel reasons on stderr, the exit statuses, and
//! `--to gfx1201` on a gfx1013 code object (a gfx1201 code object that llvm-readelf-22 reads) and
//! refusing other ISAs.

use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(p: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures").join(p).to_string_lossy().into_owned()
}

fn run(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_isabridge")).args(args).output().unwrap();
    (o.status.code().unwrap_or(-1), String::from_utf8(o.stdout).unwrap(), String::from_utf8(o.stderr).unwrap())
}

fn out_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("translate").join(name);
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn spirv_val(path: &Path) {
    let o = Command::new("spirv-val").args(["--target-env", "vulkan1.2"]).arg(path).output().expect("spirv-val (tools/install_oracles.sh)");
    assert!(o.status.success(), "{}: {}{}", path.display(), String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
}

#[test]
fn one_kernel_writes_a_module_and_its_sidecar() {
    let dir = out_dir("one");
    let (rc, out, err) = run(&["translate", &fixture("nvidia/bin/special.sm86.cubin"), "--to", "spirv", "--kernel", "predicates", "-o", dir.to_str().unwrap()]);
    assert_eq!(rc, 0, "{err}");
    assert_eq!(out, "");
    spirv_val(&dir.join("predicates.spv"));
    let j: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("predicates.json")).unwrap()).unwrap();
    assert_eq!(j["kernel"], "predicates");
    assert_eq!(j["isa"], "sm86");
    assert_eq!(j["format"], "spirv");
    assert_eq!(j["workgroup_size"], serde_json::json!([32, 1, 1]));
    let b = j["bindings"].as_array().unwrap();
    assert_eq!(b.iter().map(|b| (b["binding"].as_u64().unwrap(), b["holds"].as_str().unwrap())).collect::<Vec<_>>(), [(0, "invocation_inputs"), (1, "invocation_outputs"), (2, "constant_banks"), (3, "trap_record")]);
    // predicates(int *out, const int *a, const int *b): sm_86 parameters from c[0x0][0x160].
    assert_eq!(b[2]["kernel_args"], serde_json::json!([{"offset": 0x160, "size": 8}, {"offset": 0x168, "size": 8}, {"offset": 0x170, "size": 8}]));
    assert_eq!(b[0]["names"][0], "SR_TID.X");
}

#[test]
fn every_kernel_with_progress_and_reasons() {
    let dir = out_dir("all");
    let (rc, _, err) = run(&["translate", &fixture("nvidia/bin/texsurf.sm86.cubin"), "--to", "spirv", "-o", dir.to_str().unwrap()]);
    // texsurf.sm86.cubin: both kernels emit (`textures` samples a cube by direction).
    assert_eq!(rc, 0, "{err}");
    assert!(err.contains("[1] surfaces: "), "{err}");
    assert!(err.contains("[2] textures: "), "{err}");
    assert!(err.contains("2 of 2 kernels translated to spirv in "), "{err}");
    spirv_val(&dir.join("surfaces.spv"));
    spirv_val(&dir.join("textures.spv"));
    assert!(dir.join("surfaces.json").exists());
    // cl_lanes.gfx1013-w32.o: `lds_atomics` and `global_atomics` call OpenCL builtins the
    // object leaves undefined: refused with the reason, the other 8 translate.
    let (rc, _, err) = run(&["translate", &fixture("amd/bin/cl_lanes.gfx1013-w32.o"), "--to", "spirv", "-o", dir.to_str().unwrap()]);
    assert_eq!(rc, 1, "{err}");
    assert!(err.contains("] lds_atomics: not translated: gfx1013 lds_atomics: SPIR-V: "), "{err}");
    assert!(err.contains("calls undefined function _Z10atomic_addPU3AS3Vii"), "{err}");
    assert!(err.contains("8 of 10 kernels translated to spirv in "), "{err}");
    assert!(!dir.join("lds_atomics.spv").exists());
    // control.sm86.cubin: all 5 kernels, `calls` (calls through `__device__` function
    // pointers) included.
    let (rc, _, err) = run(&["translate", &fixture("nvidia/bin/control.sm86.cubin"), "--to", "spirv", "-o", dir.to_str().unwrap()]);
    assert_eq!(rc, 0, "{err}");
    assert!(err.contains("5 of 5 kernels translated to spirv in "), "{err}");
    spirv_val(&dir.join("calls.spv"));
}

#[test]
fn errors_and_the_gfx1201_target() {
    let dir = out_dir("errors");
    let d = dir.to_str().unwrap();
    let (rc, _, err) = run(&["translate", &fixture("nvidia/bin/special.sm86.cubin"), "--to", "gfx1201", "--kernel", "predicates", "-o", d]);
    assert_eq!(rc, 2);
    assert!(err.contains("sm86 to gfx1201: the gfx1201 translator reads gfx1013 code"), "{err}");
    let (rc, _, err) = run(&["translate", &fixture("nvidia/bin/special.sm86.cubin"), "--to", "spirv", "--kernel", "nope", "-o", d]);
    assert_eq!(rc, 2);
    assert!(err.contains("no kernel nope (kernels: predicates, special_regs)"), "{err}");
    let (rc, _, err) = run(&["translate", &fixture("nvidia/bin/special.sm86.cubin"), "--to", "metal", "-o", d]);
    assert_eq!(rc, 2);
    assert!(err.contains("spirv") && err.contains("gfx1201"), "{err}");
    let (rc, out, _) = run(&["translate", "--help"]);
    assert_eq!(rc, 0);
    assert!(out.contains("gfx1201"), "{out}");
}

#[test]
fn gfx1013_object_to_gfx1201() {
    let dir = out_dir("gfx1201");
    let d = dir.to_str().unwrap();
    let (rc, _, err) = run(&["translate", &fixture("amd/bin/hip_control.gfx1013-w32.o"), "--to", "gfx1201", "-o", d]);
    // `scratch` sets the flat scratch registers itself (s_setreg_b32 of FLAT_SCR), which
    // gfx1201 does not take: refused (fixtures/amd/gfx12/object_refusals.tsv). Kernels whose
    // stack goes through the private segment buffer (`switches`: recursion) and those that
    // call functions translate.
    assert_eq!(rc, 1, "{err}");
    assert!(err.contains("_Z7scratchPiPKiPdPKd: not translated: kernel _Z7scratchPiPKiPdPKd: gfx1013 0xf0c: S_SETREG_B32: "), "{err}");
    assert!(err.contains("8 of 9 kernels translated to gfx1201"), "{err}");
    assert!(!err.contains("_Z8switchesPii") && !err.contains("_Z9particlesP8ParticlePfi") && !err.contains("_Z14indirect_callsPiPKiS1_"), "{err}");
    let path = dir.join("hip_control.gfx1013-w32.gfx1201.hsaco");
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(isabridge::decoder::elf::parse(&bytes).unwrap().0, isabridge::Isa::Gfx1201);
    let (rc, out, err) = run(&["selfcheck", &fixture("amd/bin/cl_math.gfx1013-w32.o"), "--via", "gfx1201", "--json"]);
    // Every kernel of cl_math equals the original (the NaN results gfx1013's IEEE mode quiets
    // are quieted after the op in the translation): exit status 0.
    assert_eq!(rc, 0, "{err}");
    let first: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(first["function"], "char_add");
    assert_eq!(first["status"], "equal");
    assert!(out.lines().any(|l| l.contains("\"float2_add\",\"status\":\"equal\"")), "{out}");
    assert_eq!(out.lines().count(), 360);
    assert!(out.lines().all(|l| l.contains("\"status\":\"equal\"")), "{out}");
    assert!(err.contains("360 functions via gfx1201: 360 equal"), "{err}");
}

/// Issue 30: a PAL object's graphics-stage functions. `selfcheck --via gfx1201` prints one line
/// per function: gfx_stages' three are refused by the translator, each with the instruction
/// gfx1201 lacks (a parameter export; a compressed export enabling half of each 16-bit pair,
/// after the interpolation and a whole-pair compressed export, which translate; a legacy GS
/// message); gfx_cs' compute shader is equal. `translate --to gfx1201` writes the compute shader's code object.
#[test]
fn graphics_stage_functions_selfcheck_and_translate() {
    let (rc, out, err) = run(&["selfcheck", &fixture("amd/bin/gfx_stages.gfx1013-w32.o"), "--via", "gfx1201"]);
    assert_eq!(rc, 1, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(lines[0].starts_with("vs_main\tunsupported\tfunction vs_main: gfx1013 0x7c: EXP: not translated to gfx1201: parameter export"), "{out}");
    assert!(lines[1].starts_with("ps_interp\tunsupported\tfunction ps_interp: gfx1013 0x1c0: EXP: not translated to gfx1201: compressed export with EN 0x5"), "{out}");
    assert!(lines[2].starts_with("gs_main\tunsupported\tfunction gs_main: gfx1013 0x220: S_SENDMSG: not translated to gfx1201: message 0x22"), "{out}");
    assert!(err.contains("3 functions via gfx1201: 3 unsupported"), "{err}");
    let (rc, out, err) = run(&["selfcheck", &fixture("amd/bin/gfx_cs.gfx1013-w64.o"), "--via", "gfx1201", "--json"]);
    assert_eq!(rc, 0, "{err}");
    assert_eq!(out, "{\"function\":\"cs_main\",\"status\":\"equal\",\"reason\":\"\"}\n");
    let dir = out_dir("gfx1201_pal");
    let (rc, _, err) = run(&["translate", &fixture("amd/bin/gfx_cs.gfx1013-w32.o"), "--to", "gfx1201", "-o", dir.to_str().unwrap()]);
    assert_eq!(rc, 0, "{err}");
    let bytes = std::fs::read(dir.join("gfx_cs.gfx1013-w32.gfx1201.hsaco")).unwrap();
    let p = isabridge::analysis::load(&bytes, None).unwrap();
    assert_eq!(p.isa, isabridge::Isa::Gfx1201);
    assert!(p.sections.iter().any(|s| s.functions.iter().any(|f| f.name == "cs_main")));
}
