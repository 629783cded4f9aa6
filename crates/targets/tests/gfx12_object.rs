//! gfx1013 code objects to gfx1201 code objects (`isabridge_targets::gfx12::object`) over every
//! gfx1013 object of fixtures/amd/bin:
//! - llvm-readelf-22 reads each written object without a warning, and llvm-objdump-22
//!   `--mcpu=gfx1201` decodes every word of its `.text` to exactly our printer's text;
//! - the kernels and graphics-stage functions (PAL objects) that do not translate are typed
//!   errors, pinned with their reasons in
//!   fixtures/amd/gfx12/object_refusals.tsv (`ISABRIDGE_UPDATE_GFX12_COUNTS=1` rewrites it);
//! - the calls of the translated kernels land, as the gfx1201 CFG resolves them, on the
//!   translations of the callees the original's relocations name.

use isabridge_decoder::amd::GFX12;
use isabridge_decoder::IsaPlugin;
use isabridge_targets::gfx12::object::{translate_object, ObjectError};
use object::{Object, ObjectSection};
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every gfx1013 object of fixtures/amd/bin, by file name.
fn objects() -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(root().join("fixtures/amd/bin"))
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.contains(".gfx1013-").then(|| (n, std::fs::read(e.path()).unwrap()))
        })
        .collect();
    v.sort();
    v
}

/// Runs an LLVM tool; None when it is not installed (CI installs it: there a missing tool
/// fails the test).
fn tool(name: &str, args: &[&str]) -> Option<std::process::Output> {
    match std::process::Command::new(name).args(args).output() {
        Ok(o) => Some(o),
        Err(_) if std::env::var_os("CI").is_none() => {
            eprintln!("{name} not installed: skipped");
            None
        }
        Err(e) => panic!("{name}: {e}"),
    }
}

/// The instruction texts of an `llvm-objdump -d` listing (no addresses, encodings, notes).
fn objdump_texts(listing: &str) -> Vec<String> {
    listing
        .lines()
        .filter_map(|l| Some(l.strip_prefix('\t')?.split("//").next().unwrap_or("").trim_end().to_string()))
        .collect()
}

/// Our printer's text of every instruction of the `.text` of `bytes`, front to back.
fn our_texts(bytes: &[u8]) -> Vec<String> {
    let f = object::File::parse(bytes).unwrap();
    let s = f.section_by_name(".text").unwrap();
    let data = s.data().unwrap();
    let mut out = Vec::new();
    let mut off = 0usize;
    while off < data.len() {
        let at = s.address() + off as u64;
        let d = GFX12.decode(&data[off..], at).unwrap_or_else(|e| panic!("our gfx1201 decoder: {e}"));
        let mut t = String::new();
        GFX12.print(&d, at, &mut t);
        out.push(t);
        off += d.len as usize;
    }
    out
}

/// A refusal's reason without the addresses and names that vary per kernel: the error's kind
/// and the instruction's reason.
fn reason(e: &ObjectError) -> String {
    let s = e.to_string();
    // "kernel K: gfx1013 0x...: NAME: reason" (or "function F: ...") -> "NAME: reason".
    let s = s.split_once(": ").map(|x| x.1).unwrap_or(&s).to_string();
    match s.strip_prefix("gfx1013 ") {
        Some(r) => r.split_once(": ").map(|x| x.1.to_string()).unwrap_or(s.clone()),
        None => s,
    }
}

#[test]
fn gfx1013_objects_translate_and_llvm_reads_them() {
    let dir = std::env::temp_dir().join(format!("isabridge-gfx12-object-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut table = std::collections::BTreeMap::<(String, String), usize>::new();
    let (mut kernels, mut translated, mut src_insts, mut out_insts, mut words) = (0, 0, 0, 0, 0);
    for (name, bytes) in objects() {
        let t = match translate_object(&bytes) {
            Ok(t) => t,
            Err(e) => {
                *table.entry(("object".into(), format!("{name}: {e}"))).or_default() += 1;
                continue;
            }
        };
        kernels += t.kernels.len() + t.stages.len() + t.refused.len();
        translated += t.kernels.len() + t.stages.len();
        src_insts += t.source_insts;
        out_insts += t.insts;
        for (_, e) in &t.refused {
            let what = if matches!(e, ObjectError::StageFunction { .. } | ObjectError::StageCall { .. }) { "function" } else { "kernel" };
            *table.entry((what.into(), reason(e))).or_default() += 1;
        }
        let path = dir.join(name.replace(".o", ".hsaco"));
        std::fs::write(&path, &t.bytes).unwrap();
        let p = path.to_str().unwrap();
        let Some(r) = tool("llvm-readelf-22", &["-h", "-l", "-S", "-s", "--dyn-syms", "--notes", "-W", p]) else { return };
        assert!(r.status.success() && r.stderr.is_empty(), "{name}: llvm-readelf-22: {}", String::from_utf8_lossy(&r.stderr));
        let d = tool("llvm-objdump-22", &["-d", "--mcpu=gfx1201", p]).unwrap();
        assert!(d.status.success() && d.stderr.is_empty(), "{name}: llvm-objdump-22: {}", String::from_utf8_lossy(&d.stderr));
        let theirs = objdump_texts(&String::from_utf8_lossy(&d.stdout));
        let ours = our_texts(&t.bytes);
        words += ours.len();
        assert_eq!(ours.len(), theirs.len(), "{name}: instruction count");
        for (k, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            assert_eq!(a, b, "{name}: instruction {k}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    let mut now = format!(
        "# gfx1013 kernels and graphics-stage functions of fixtures/amd/bin the object translator leaves out, by reason (and objects it refuses).\n\
         # Written by `ISABRIDGE_UPDATE_GFX12_COUNTS=1 cargo test --release -p isabridge-targets --test gfx12_object`.\n\
         # {kernels} kernels and functions: {translated} translated ({src_insts} gfx1013 instructions -> {out_insts} gfx1201); {} refused\n\
         what\tcount\treason\n",
        kernels - translated
    );
    for ((what, r), n) in &table {
        now.push_str(&format!("{what}\t{n}\t{r}\n"));
    }
    eprintln!("{now}\n{words} instructions decoded by llvm-objdump-22 as by us");
    let path = root().join("fixtures/amd/gfx12/object_refusals.tsv");
    if std::env::var_os("ISABRIDGE_UPDATE_GFX12_COUNTS").is_some() {
        std::fs::write(&path, &now).unwrap();
    }
    let pinned = std::fs::read_to_string(&path).expect("fixtures/amd/gfx12/object_refusals.tsv");
    assert!(now == pinned, "fixtures/amd/gfx12/object_refusals.tsv differs (ISABRIDGE_UPDATE_GFX12_COUNTS=1 rewrites it):\n{now}");
}

/// Issue 30: the graphics-stage functions of a PAL object as `gfx12::graphics` reads them off
/// its metadata note (the values llvm-readelf-22 --notes prints): each hardware stage's
/// `.entry_point_symbol` with its `.sgpr_count` / `.vgpr_count`, the wave size, and MODE from
/// the stage's RSRC1 register: FLOAT_MODE 0xf0, DX10_CLAMP on, IEEE off (0x1f0) from
/// 0x22f0001 / 0x22f0002 (PS, 11274), 0x82f0001 / 0x82f0003 (VS, 11338), 0xa2f0000 (GS, 11402).
/// The other functions of an object whose stages are all pixel shaders (gfx_sample) take that
/// stage and its MODE, with no declared counts; an HSA object has none.
#[test]
fn stage_functions_read_the_pal_metadata() {
    use isabridge_targets::gfx12::graphics::stage_functions;
    let read = |n: &str| std::fs::read(root().join("fixtures/amd/bin").join(n)).unwrap();
    type Row<'a> = (&'a str, Option<&'a str>, bool, u32, u16, u16);
    for (w, wave64) in [("w32", false), ("w64", true)] {
        let bytes = read(&format!("gfx_stages.gfx1013-{w}.o"));
        let p = isabridge_analysis::load(&bytes, None).unwrap();
        let fs = stage_functions(&bytes, &p);
        let got: Vec<Row> = fs.iter().map(|f| (f.name.as_str(), f.stage.as_deref(), f.wave64, f.mode, f.sgprs, f.vgprs)).collect();
        let want: [Row; 3] = [
            ("vs_main", Some(".vs"), wave64, 0x1f0, 8, 13),
            ("ps_interp", Some(".ps"), wave64, 0x1f0, 1, 11),
            ("gs_main", Some(".gs"), wave64, 0x1f0, 5, 3),
        ];
        assert_eq!(got, want, "{w}");
        let bytes = read(&format!("gfx_sample.gfx1013-{w}.o"));
        let p = isabridge_analysis::load(&bytes, None).unwrap();
        let fs = stage_functions(&bytes, &p);
        let names: Vec<&str> = fs.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["ps_dims", "ps_flavours", "ps_gather", "ps_a16_d16", "ps_msaa"], "{w}");
        for f in &fs {
            assert_eq!((f.stage.as_deref(), f.wave64, f.mode), (Some(".ps"), wave64, 0x1f0), "{w} {}", f.name);
            assert_eq!(f.sgprs == 0, f.name != "ps_msaa", "{w} {}: only the stage's entry has declared counts", f.name);
        }
    }
    let bytes = read("cl_math.gfx1013-w32.o");
    let p = isabridge_analysis::load(&bytes, None).unwrap();
    assert!(stage_functions(&bytes, &p).is_empty());
}

/// The (caller, callee) names of every call site of the `.text` of code object `bytes` that
/// the machine CFG resolves, sorted.
fn call_pairs(bytes: &[u8]) -> Vec<(String, String)> {
    let p = isabridge_analysis::load(bytes, None).unwrap();
    let s = p.sections.iter().find(|s| s.name == ".text").unwrap();
    let r = isabridge_analysis::resolve::amd_transfers(p.isa, s);
    let name = |pred: &dyn Fn(&isabridge_analysis::load::Function) -> bool| s.functions.iter().find(|f| pred(f)).unwrap().name.clone();
    let mut v: Vec<(String, String)> = r.calls.iter().map(|(site, t)| (name(&|f| f.start <= *site && *site < f.end), name(&|f| f.start == *t))).collect();
    v.sort();
    v
}

#[test]
fn translated_calls_land_on_the_translated_callees() {
    // hip_control: `particles` calls dist2, `indirect_calls` op_add / op_mul / op_max (clang
    // devirtualized the function pointer), `switches` fib (recursive, its stack in scratch),
    // classify and collatz, fib itself; `scratch` is refused (its flat scratch set-up), so its calls are
    // not in the translation.
    for name in ["hip_control.gfx1013-w32.o", "hip_control.gfx1013-w64.o"] {
        let bytes = std::fs::read(root().join("fixtures/amd/bin").join(name)).unwrap();
        let t = translate_object(&bytes).unwrap();
        // The functions of the translation: its kernels and the callees placed after them.
        let tp = isabridge_analysis::load(&t.bytes, None).unwrap();
        let present: Vec<String> = tp.sections.iter().flat_map(|s| s.functions.iter().map(|f| f.name.clone())).collect();
        // The oracle: the calls of the original, resolved through its relocations.
        let mut want = call_pairs(&bytes);
        want.retain(|(caller, _)| present.contains(caller));
        let pairs = |v: &[(&str, &str)]| v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect::<Vec<_>>();
        assert_eq!(
            want,
            pairs(&[
                ("_Z14indirect_callsPiPKiS1_", "_Z6op_addii"),
                ("_Z14indirect_callsPiPKiS1_", "_Z6op_maxii"),
                ("_Z14indirect_callsPiPKiS1_", "_Z6op_mulii"),
                ("_Z3fibi", "_Z3fibi"),
                ("_Z8switchesPii", "_Z3fibi"),
                ("_Z8switchesPii", "_Z7collatzj"),
                ("_Z8switchesPii", "_Z8classifyi"),
                ("_Z9particlesP8ParticlePfi", "_Z5dist2RK8ParticleS1_"),
            ]),
            "{name}"
        );
        // The translation's calls, resolved by the gfx1201 CFG from the PC-relative sequence.
        assert_eq!(call_pairs(&t.bytes), want, "{name}");
    }
}
