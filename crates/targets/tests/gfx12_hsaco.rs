//! The gfx1201 code object writer (`isabridge_targets::gfx12::hsaco`) against clang-22's
//! gfx1201 builds of the corpus (fixtures/amd/bin): a rewritten object reads back through our
//! loader with equal kernels, metadata and code; llvm-readelf-22 and llvm-objdump-22 accept it;
//! and gfx1013 descriptors converted by `descriptor::from_gfx1013` equal clang's gfx1201 ones in
//! every field that does not depend on the compiled code.

use isabridge_analysis::amdkernel;
use isabridge_targets::gfx12::descriptor::{self, KernelDescriptor, RegisterCounts};
use isabridge_targets::gfx12::hsaco::{self, CodeFunction, CodeKernel, CodeObject};
use isabridge_targets::gfx12::msgpack::Msg;
use object::{Object, ObjectSection, ObjectSymbol};

fn bin(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/../../fixtures/amd/bin/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// Sources with HSA kernels built for gfx1013 and gfx1201 (the other gfx1201 objects are PAL
/// shaders without kernel descriptors).
const HSA_SOURCES: [&str; 4] = ["c_resources", "cl_lanes", "cl_math", "hip_control"];

/// Each `.kd` symbol's 64 bytes in `bytes`, by kernel name.
fn descriptors(bytes: &[u8]) -> Vec<(String, KernelDescriptor, i64, u64)> {
    let f = object::File::parse(bytes).unwrap();
    let mut out = Vec::new();
    for y in f.symbols() {
        let Some(k) = y.name().unwrap().strip_suffix(".kd") else { continue };
        let s = f.section_by_index(y.section_index().unwrap()).unwrap();
        let at = (y.address() - s.address()) as usize;
        let (d, e) = KernelDescriptor::decode(&s.data().unwrap()[at..]).unwrap();
        out.push((k.to_string(), d, e, y.address()));
    }
    out
}

fn int(m: &Msg, k: &str) -> u32 {
    match m.get(k) {
        Some(Msg::Int(i)) => *i as u32,
        _ => panic!("no integer {k}"),
    }
}

/// The code object of a clang-built relocatable gfx1201 object, rebuilt from its parts.
fn rebuild(bytes: &[u8]) -> CodeObject {
    let p = isabridge_analysis::load(bytes, None).unwrap();
    assert_eq!(p.sections.len(), 1, "one code section");
    let s = &p.sections[0];
    let functions = s.functions.iter().map(|f| CodeFunction { name: f.name.clone(), offset: f.start - s.address, size: f.end - f.start }).collect();
    let meta = hsaco::kernel_metadata(bytes);
    let kernels = descriptors(bytes)
        .into_iter()
        .map(|(name, d, _, _)| {
            let m = meta.iter().find(|(n, _)| *n == name).map(|(_, m)| m.clone()).unwrap();
            let regs = RegisterCounts { vgprs: int(&m, ".vgpr_count"), sgprs: int(&m, ".sgpr_count") };
            CodeKernel { name, descriptor: d, regs, metadata: m }
        })
        .collect();
    CodeObject { code: s.data.to_vec(), functions, kernels }
}

#[test]
fn rewritten_gfx1201_objects_read_back_equal() {
    for src in HSA_SOURCES {
        let name = format!("{src}.gfx1201-w32.o");
        let orig = bin(&name);
        let o = rebuild(&orig);
        let out = hsaco::write(&o).unwrap();
        // Kernels (descriptor fields and argument lists) through the loader `run` uses.
        assert_eq!(amdkernel::kernels(&out).unwrap(), amdkernel::kernels(&orig).unwrap(), "{name}");
        // Metadata maps key for key.
        assert_eq!(hsaco::kernel_metadata(&out), hsaco::kernel_metadata(&orig), "{name}");
        // Descriptors byte for byte but the entry offset, which points at the kernel.
        let (a, b) = (descriptors(&orig), descriptors(&out));
        assert_eq!(a.len(), b.len());
        let p = isabridge_analysis::load(&out, None).unwrap();
        for ((n, d, _, _), (m, e, off, kd)) in a.iter().zip(&b) {
            assert_eq!((n, d), (m, e), "{name}");
            let f = p.sections[0].functions.iter().find(|f| f.name == *n).unwrap();
            assert_eq!(kd.wrapping_add(*off as u64), f.start, "{name} {n}: entry offset");
        }
        // Code and functions.
        let q = isabridge_analysis::load(&orig, None).unwrap();
        assert_eq!(p.isa, q.isa);
        assert_eq!(p.sections[0].data, q.sections[0].data, "{name}");
        let names = |p: &isabridge_analysis::Program| p.sections[0].functions.iter().map(|f| (f.name.clone(), f.end - f.start)).collect::<Vec<_>>();
        assert_eq!(names(&p), names(&q), "{name}");
    }
}

#[test]
fn gfx1013_descriptors_convert_like_clang() {
    // With the register counts and code size of clang's gfx1201 build, the converted gfx1013
    // descriptor equals clang's gfx1201 descriptor in every field: the sizes, the float modes,
    // WGP/MEM_ORDERED/FWD_PROGRESS, the user SGPRs without the private segment buffer, the
    // workgroup and work-item id enables, the wave size, the granules and INST_PREF_SIZE.
    let mut checked = 0;
    let mut differ = Vec::new();
    for src in HSA_SOURCES {
        let b12 = bin(&format!("{src}.gfx1201-w32.o"));
        let d12 = descriptors(&b12);
        let meta12 = hsaco::kernel_metadata(&b12);
        let p12 = isabridge_analysis::load(&b12, None).unwrap();
        for w in ["w32", "w64"] {
            let b13 = bin(&format!("{src}.gfx1013-{w}.o"));
            for k in &amdkernel::kernels(&b13).unwrap() {
                let Some((_, clang, _, _)) = d12.iter().find(|x| x.0 == k.name) else { continue };
                let m = &meta12.iter().find(|x| x.0 == k.name).unwrap().1;
                let f = p12.sections[0].functions.iter().find(|f| f.name == k.name).unwrap();
                // clang's gfx1201 build is wave32: compare the wave32 gfx1013 build in full, the
                // wave64 one with its wave size (and so the VGPR granule) set aside.
                let mut regs = RegisterCounts { vgprs: int(m, ".vgpr_count"), sgprs: int(m, ".sgpr_count") };
                if w == "w64" {
                    regs.vgprs = regs.vgprs.div_ceil(8) * 4;
                }
                let mut d = descriptor::from_gfx1013(k, regs, f.end - f.start);
                if w == "w64" {
                    d.kernel_code_properties |= 1 << 10;
                }
                checked += 1;
                if d != *clang {
                    differ.push(format!("{src} {w} {}: ours {d:x?}\n  clang {clang:x?}", k.name));
                }
            }
        }
    }
    assert!(checked > 200, "{checked}");
    assert!(differ.is_empty(), "{} of {checked} differ:\n{}", differ.len(), differ.join("\n"));
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

/// The instructions of an `llvm-objdump -d` listing without addresses, encodings and branch
/// notes: `<function>:` lines and instruction texts.
fn instructions(listing: &str) -> Vec<String> {
    listing
        .lines()
        .filter_map(|l| {
            if let Some(i) = l.find(" <") {
                if l.ends_with(">:") {
                    return Some(l[i + 1..].to_string());
                }
            }
            let t = l.strip_prefix('\t')?;
            Some(t.split("//").next().unwrap_or("").trim_end().to_string())
        })
        .collect()
}

/// The notes part of `llvm-readelf --notes` (from the owner line on).
fn notes_text(s: &str) -> String {
    s.lines().skip_while(|l| !l.trim_start().starts_with("Owner")).collect::<Vec<_>>().join("\n")
}

#[test]
fn llvm_tools_accept_the_code_objects() {
    let dir = std::env::temp_dir().join(format!("isabridge-gfx12-hsaco-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for src in HSA_SOURCES {
        let name = format!("{src}.gfx1201-w32.o");
        let orig_path = format!("{}/../../fixtures/amd/bin/{name}", env!("CARGO_MANIFEST_DIR"));
        let out = hsaco::write(&rebuild(&bin(&name))).unwrap();
        let path = dir.join(format!("{src}.hsaco"));
        std::fs::write(&path, &out).unwrap();
        let p = path.to_str().unwrap();
        let Some(r) = tool("llvm-readelf-22", &["-h", "-l", "-S", "-s", "--dyn-syms", "--notes", "-W", p]) else { return };
        let text = String::from_utf8_lossy(&r.stdout);
        assert!(r.status.success() && r.stderr.is_empty(), "{name}: llvm-readelf-22: {}", String::from_utf8_lossy(&r.stderr));
        assert!(text.contains("gfx1201") && text.contains("DYN (Shared object file)"), "{name}");
        let orig = tool("llvm-readelf-22", &["--notes", &orig_path]).unwrap();
        assert_eq!(notes_text(&text), notes_text(&String::from_utf8_lossy(&orig.stdout)), "{name}: metadata as llvm-readelf-22 prints it");
        let d = tool("llvm-objdump-22", &["-d", "--mcpu=gfx1201", p]).unwrap();
        assert!(d.status.success() && d.stderr.is_empty(), "{name}: llvm-objdump-22: {}", String::from_utf8_lossy(&d.stderr));
        let o = tool("llvm-objdump-22", &["-d", "--mcpu=gfx1201", &orig_path]).unwrap();
        let (a, b) = (instructions(&String::from_utf8_lossy(&d.stdout)), instructions(&String::from_utf8_lossy(&o.stdout)));
        assert!(a.len() > 100, "{name}: {} lines", a.len());
        assert_eq!(a, b, "{name}: llvm-objdump-22 -d lists the same functions and instructions");
    }
    std::fs::remove_dir_all(&dir).ok();
}
