//! The differential harness (`isabridge_targets::gfx12::selfcheck`) on the gfx1013 corpus,
//! before the translator exists: the identity translation is `equal` on every kernel the
//! harness can run, and a deliberately changed program (the offset of each kernel's first
//! global store moved by 4 bytes) is `differ`, which shows the check can fail.

use isabridge_decoder::Isa;
use isabridge_targets::gfx12::selfcheck::{selfcheck, Options, Report, Status};
use std::collections::BTreeMap;

fn bin(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/../../fixtures/amd/bin/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// The gfx1013 objects with HSA kernels.
fn objects() -> Vec<String> {
    let mut v = Vec::new();
    for src in ["c_resources", "cl_lanes", "cl_math", "hip_control"] {
        for w in ["w32", "w64"] {
            v.push(format!("{src}.gfx1013-{w}.o"));
        }
    }
    v
}

/// The gfx1013 PAL objects, whose functions are graphics-stage functions (`gfx12::graphics`).
fn graphics_objects() -> Vec<String> {
    let mut v = Vec::new();
    for src in ["gfx_cs", "gfx_sample", "gfx_stages"] {
        for w in ["w32", "w64"] {
            v.push(format!("{src}.gfx1013-{w}.o"));
        }
    }
    v
}

/// A step budget that ends `nested_loops` (which never finishes on the harness's memory image:
/// [`BUDGET_CAUSES`]) quickly; the other kernels finish well within it.
fn opts() -> Options {
    Options { max_steps: 1 << 16, ..Options::default() }
}

fn counts(rs: &[Report]) -> BTreeMap<&'static str, usize> {
    let mut m = BTreeMap::new();
    for r in rs {
        *m.entry(r.status.name()).or_insert(0) += 1;
    }
    m
}

#[test]
fn identity_is_equal() {
    let id = |b: &[u8]| Ok(b.to_vec());
    let mut all = Vec::new();
    for name in objects() {
        let rs = selfcheck(&bin(&name), &id, &opts()).unwrap();
        for r in &rs {
            eprintln!("{name} {}", r.json());
        }
        all.extend(rs.into_iter().map(|r| (name.clone(), r)));
    }
    let reps: Vec<Report> = all.iter().map(|x| x.1.clone()).collect();
    // Every kernel the harness runs is equal; the rest cannot run here, each with its reason
    // (image formats and BVH nodes the dispatch does not provide, calls to OpenCL atomic
    // builtins left undefined in the object, s_sendmsghalt, a loop over by-value bounds past
    // the budget). hip_control `switches` runs since the harness gives gfx1013 kernels their
    // private segment buffer (its recursive fib keeps the caller's pointer on the stack).
    let not_equal: Vec<(&str, &str, &str)> =
        all.iter().filter(|(_, r)| r.status != Status::Equal).map(|(n, r)| (n.as_str(), r.function.as_str(), r.status.name())).collect();
    assert_eq!(
        not_equal,
        [
            ("c_resources.gfx1013-w32.o", "images", "unsupported"),
            ("c_resources.gfx1013-w32.o", "bvh", "unsupported"),
            ("c_resources.gfx1013-w64.o", "images", "unsupported"),
            ("c_resources.gfx1013-w64.o", "bvh", "unsupported"),
            ("cl_lanes.gfx1013-w32.o", "lds_atomics", "unsupported"),
            ("cl_lanes.gfx1013-w32.o", "global_atomics", "unsupported"),
            ("cl_lanes.gfx1013-w32.o", "misc_sys", "unsupported"),
            ("cl_lanes.gfx1013-w64.o", "lds_atomics", "unsupported"),
            ("cl_lanes.gfx1013-w64.o", "global_atomics", "unsupported"),
            ("cl_lanes.gfx1013-w64.o", "misc_sys", "unsupported"),
            ("hip_control.gfx1013-w32.o", "_Z12nested_loopsPfii", "budget"),
            ("hip_control.gfx1013-w64.o", "_Z12nested_loopsPfii", "budget"),
        ]
    );
    assert_eq!(counts(&reps).get("equal"), Some(&756));
}

/// Issue 30: the graphics-stage functions of the PAL objects under the identity translation:
/// every one the harness runs is `equal` (stage inputs as `gfx12::graphics` gives them, cube
/// sampling included since the IR defines it: `ps_dims`, `ps_flavours`, `ps_gather`), the
/// others (multisampled images, whose harness T# is no multisampled surface) listed with their
/// status.
#[test]
fn graphics_identity_is_equal() {
    let id = |b: &[u8]| Ok(b.to_vec());
    let mut not_equal = Vec::new();
    let mut n = 0;
    for name in graphics_objects() {
        let rs = selfcheck(&bin(&name), &id, &opts()).unwrap();
        for r in rs {
            eprintln!("{name} {}", r.json());
            n += 1;
            if r.status != Status::Equal {
                not_equal.push(format!("{name} {} {}: {}", r.function, r.status.name(), reason_kind(&r.reason)));
            }
        }
    }
    assert_eq!(n, 18, "graphics-stage functions of the six PAL objects");
    // The harness's T# is no multisampled surface (isabridge_ir::ops::image).
    let msaa = "unsupported: original does not run here: unsupported: multisampled image surface";
    let want: Vec<String> = ["w32", "w64"].iter().map(|w| format!("gfx_sample.gfx1013-{w}.o ps_msaa {msaa}")).collect();
    assert_eq!(not_equal, want);
}

/// `bytes` with the offset field (bits 0-11 of the first dword, gfx10 FLAT/GLOBAL encoding) of
/// each kernel's first `global_store*` moved by 4 bytes.
fn move_first_stores(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let p = isabridge_analysis::load(bytes, None).map_err(|e| e.to_string())?;
    let plugin = Isa::Gfx1013.plugin();
    let ks: Vec<String> = isabridge_analysis::amdkernel::kernels(bytes).unwrap().into_iter().map(|k| k.name).collect();
    let mut out = bytes.to_vec();
    let text_off = {
        use object::{Object, ObjectSection};
        let f = object::File::parse(bytes).unwrap();
        let s = f.section_by_name(".text").unwrap();
        s.file_range().unwrap().0 as usize
    };
    let s = &p.sections[0];
    for f in s.functions.iter().filter(|f| ks.contains(&f.name)) {
        let mut at = f.start;
        while at < f.end {
            let o = (at - s.address) as usize;
            let Ok(d) = plugin.decode(&s.data[o..], at) else { break };
            if plugin.name(&d).to_ascii_lowercase().starts_with("global_store") {
                let w = d.words[0];
                let moved = (w & !0xfff) | (w.wrapping_add(4) & 0xfff);
                out[text_off + o..text_off + o + 4].copy_from_slice(&moved.to_le_bytes());
                break;
            }
            at += d.len as u64;
        }
    }
    Ok(out)
}

#[test]
fn a_changed_program_differs() {
    let mut all = Vec::new();
    for name in objects() {
        all.extend(selfcheck(&bin(&name), &move_first_stores, &opts()).unwrap());
    }
    for r in all.iter().filter(|r| r.status == Status::Equal) {
        eprintln!("still equal: {}", r.json());
    }
    // Every kernel that runs differs but `shared_hist` (w32 and w64), which has no global
    // store (it writes with global_atomic_add), so nothing was changed.
    assert_eq!(counts(&all), BTreeMap::from([("budget", 2), ("differ", 754), ("equal", 2), ("unsupported", 10)]));
}

/// A reason without what varies per kernel (kernel names and addresses), for grouping.
fn reason_kind(r: &str) -> String {
    let mut out = Vec::new();
    for part in r.split(": ") {
        if part.starts_with("kernel ") || part.starts_with("function ") || part.starts_with("gfx1013 0x") || part.starts_with("gfx1201 0x") || part.starts_with("byte at ") {
            continue;
        }
        out.push(part);
    }
    out.join(": ")
}

/// Why a pinned `differ` kernel differs (by function; w32 and w64 alike): the default NaN of an
/// invalid transcendental, whose sign the translation cannot match from a source. gfx1013
/// runs these kernels with IEEE on, where the lifter gives +qNaN (vtrans.rs `nan_rule`; no
/// RDNA2 table measures an invalid transcendental with IEEE on: NanQuieting's IEEE table has no
/// negative operand); the translation runs under the converted descriptor's MODE, without
/// IEEE, where the lifter gives -qNaN (gfx1013's IEEE-off rule, measured on gfx1013 only:
/// F64Transcendental `v_rsq_f64(-1)`). No source gives gfx1201's default NaN sign.
const DIFFER_CAUSES: &[(&str, &str)] = &[
    ("_Z8f32_mathPfPKfS1_", "v_log_f32 (w32 0x1c78, w64 0x1bb8) of a negative number: +qNaN with gfx1013 IEEE on, -qNaN in the gfx1201 run; gfx1201's sign has no source"),
    ("_Z8f16_mathPDF16_PKDF16_S1_", "v_rsq_f16 (0x1eac) or v_sqrt_f16 (0x1ed4) of a negative number: +qNaN with gfx1013 IEEE on, -qNaN in the gfx1201 run; gfx1201's sign has no source"),
    ("_Z8f64_mathPdPKdS1_", "v_rsq_f64 of sqrt's first step (w32 0x18d8, w64 0x18e0) of a negative number: +qNaN with gfx1013 IEEE on, -qNaN in the gfx1201 run; gfx1201's sign has no source"),
];

/// Why a pinned `budget` kernel runs out of steps (by function; w32 and w64 alike), measured
/// from the source (fixtures/amd/src/hip_control.hip) and the harness's dispatch: `nested_loops(m,
/// rows, cols)` gets rows = 49 and cols = 22 (`selfcheck::by_value`), and work-item r < 49 reads
/// m[r * 22 + c], c < 22, from the address-derived image (`selfcheck::image_byte`, region at
/// `REGION_BASE`). Five of those floats lie in [-1, -0.125] (m[135], m[400], m[443], m[743],
/// m[795]: rows 6, 18, 20, 33, 36), where the source's `while (x < 10.f) x = x * 2.f + 0.125f;`
/// never ends (x + 0.125 < 0 makes each step no larger, down to -inf; -0.125 is a fixed
/// point): the original itself loops forever, so no step budget or per-function budget lets it
/// finish, and other by-value bounds would only pick other rows of the same image.
const BUDGET_CAUSES: &[(&str, &str)] = &[(
    "_Z12nested_loopsPfii",
    "the original never ends: 5 of the 49 x 22 floats it reads lie in [-1, -0.125], where the source's `while (x < 10.f) x = x * 2.f + 0.125f` runs to -inf",
)];

/// The real gfx1201 translation (`gfx12::object`), as `isabridge selfcheck --via gfx1201`
/// runs it, over the gfx1013 corpus: per status and reason, pinned in
/// fixtures/amd/gfx12/selfcheck.tsv (`ISABRIDGE_UPDATE_GFX12_COUNTS=1` rewrites it); every
/// `differ` and `budget` kernel is listed by name with its cause ([`DIFFER_CAUSES`],
/// [`BUDGET_CAUSES`]).
#[test]
fn gfx1201_translation_statuses_are_pinned() {
    use isabridge_targets::gfx12::object::translate_for_selfcheck;
    use isabridge_targets::gfx12::selfcheck::selfcheck_refusing;
    let mut groups: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut named = Vec::new();
    let mut all = Vec::new();
    for name in objects().into_iter().chain(graphics_objects()) {
        let rs = selfcheck_refusing(&bin(&name), &translate_for_selfcheck, &opts()).unwrap();
        for r in &rs {
            *groups.entry((r.status.name().to_string(), reason_kind(&r.reason))).or_default() += 1;
            if matches!(r.status, Status::Differ | Status::Budget) {
                let causes = if r.status == Status::Differ { DIFFER_CAUSES } else { BUDGET_CAUSES };
                let cause = causes.iter().find(|(f, _)| *f == r.function).map(|(_, c)| *c);
                let cause = cause.unwrap_or_else(|| panic!("{name} {}: a {} without a cause", r.function, r.status.name()));
                let cause = format!("\t{cause}");
                named.push(format!("{}\t{name}\t{}\t{}{cause}", r.status.name(), r.function, r.reason));
            }
        }
        all.extend(rs);
    }
    let c = counts(&all);
    let mut now = format!(
        "# isabridge selfcheck --via gfx1201 over the gfx1013 objects of fixtures/amd/bin (hip_control, cl_lanes, cl_math, c_resources kernels; gfx_cs, gfx_sample, gfx_stages graphics-stage functions; w32 and w64), step budget 65536; the translation runs with late-arriving memory.\n\
         # Written by `ISABRIDGE_UPDATE_GFX12_COUNTS=1 cargo test --release -p isabridge-targets --test gfx12_selfcheck`.\n\
         # {} functions: {c:?}\n\
         status\tcount\treason\n",
        all.len()
    );
    for ((s, r), n) in &groups {
        now.push_str(&format!("{s}\t{n}\t{r}\n"));
    }
    now.push_str("# differ and budget functions\n");
    for l in &named {
        now.push_str(&format!("{l}\n"));
    }
    let path = format!("{}/../../fixtures/amd/gfx12/selfcheck.tsv", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("ISABRIDGE_UPDATE_GFX12_COUNTS").is_some() {
        std::fs::write(&path, &now).unwrap();
    }
    let pinned = std::fs::read_to_string(&path).expect("fixtures/amd/gfx12/selfcheck.tsv");
    assert!(now == pinned, "fixtures/amd/gfx12/selfcheck.tsv differs (ISABRIDGE_UPDATE_GFX12_COUNTS=1 rewrites it):\n{now}");
}

/// The translated kernel `kernel` of `object` with its first recomputed wait named `wait`
/// replaced by `s_nop 0` (the same four bytes, so no address moves), and the wait's address.
fn without_first_wait(object: &[u8], kernel: &str, wait: &str) -> (Vec<u8>, u64) {
    without_wait(object, kernel, wait, None)
}

/// [`without_first_wait`], or with `before` the last `wait` before the first instruction named
/// `before`.
fn without_wait(object: &[u8], kernel: &str, wait: &str, before: Option<&str>) -> (Vec<u8>, u64) {
    use isabridge_targets::gfx12::object::translate_kernels;
    let t = translate_kernels(object, Some(kernel)).unwrap();
    assert!(t.refused.is_empty(), "{kernel}: {:?}", t.refused.iter().map(|r| r.1.to_string()).collect::<Vec<_>>());
    let p = isabridge_analysis::load(&t.bytes, None).unwrap();
    let plugin = Isa::Gfx1201.plugin();
    for s in &p.sections {
        for f in s.functions.iter().filter(|f| f.name == kernel) {
            let patch = |off: usize, a: u64| {
                // The section's bytes sit once in the file: find them and patch the word.
                let at = t.bytes.windows(s.data.len()).position(|w| w == s.data.as_slice()).expect("section bytes in the file");
                let mut out = t.bytes.clone();
                out[at + off..at + off + 4].copy_from_slice(&0xbf80_0000u32.to_le_bytes());
                (out, a)
            };
            let mut last = None;
            let mut a = f.start;
            while a < f.end {
                let off = (a - s.address) as usize;
                let d = plugin.decode(&s.data[off..], a).unwrap();
                let name = plugin.operands(&d, a).name;
                if name == wait {
                    assert_eq!(d.len, 4, "{wait} at {a:#x}");
                    if before.is_none() {
                        return patch(off, a);
                    }
                    last = Some((off, a));
                }
                if Some(name) == before {
                    let (off, a) = last.unwrap_or_else(|| panic!("{kernel}: no {wait} before {name}"));
                    return patch(off, a);
                }
                a += d.len as u64;
            }
        }
    }
    panic!("{kernel}: no {wait} in the translation");
}

/// The wait before a call (every counter waited to zero, `calls.rs`): deleting the loadcnt
/// wait before hip_control `indirect_calls`' first call lets the callee read the loaded
/// `b[i]` before it arrives, and selfcheck reports `differ` (poison), while the translation
/// as made is `equal`.
#[test]
fn deleting_the_wait_before_a_call_makes_selfcheck_differ() {
    use isabridge_targets::gfx12::object::translate_kernels;
    use isabridge_targets::gfx12::selfcheck::selfcheck_refusing;
    let object = bin("hip_control.gfx1013-w32.o");
    let kernel = "_Z14indirect_callsPiPKiS1_";
    let status = |translate: isabridge_targets::gfx12::selfcheck::TranslateRefusing| {
        let rs = selfcheck_refusing(&object, translate, &opts()).unwrap();
        rs.into_iter().find(|r| r.function == kernel).unwrap()
    };
    let kept = status(&|b| Ok((translate_kernels(b, Some(kernel)).map_err(|e| e.to_string())?.bytes, Vec::new())));
    assert_eq!(kept.status, Status::Equal, "as translated: {}", kept.reason);
    let (patched, at) = without_wait(&object, kernel, "S_WAIT_LOADCNT", Some("S_SWAPPC_B64"));
    let r = status(&|_| Ok((patched.clone(), Vec::new())));
    assert_eq!(r.status, Status::Differ, "without the S_WAIT_LOADCNT at {at:#x}: {}", r.reason);
    assert!(r.reason.contains("poison"), "without the S_WAIT_LOADCNT at {at:#x}: {}", r.reason);
}

/// Issue 30: for each counter the corpus translation waits on, deleting one recomputed wait
/// that guards a later read makes `selfcheck` report `differ` (the read is poison under
/// late-arriving memory), while the translation as made is `equal`. The kernels and waits are
/// cl_lanes' `lanes` (kmcnt before the kernel arguments are used, loadcnt before the loaded
/// value is swizzled) and `append_consume` (dscnt before the ds_append / ds_consume results are
/// added). Counters not shown here: storecnt, samplecnt, bvhcnt, expcnt (gfx12_late_memory.rs
/// says why).
#[test]
fn deleting_a_recomputed_wait_makes_selfcheck_differ() {
    use isabridge_targets::gfx12::object::translate_kernels;
    use isabridge_targets::gfx12::selfcheck::selfcheck_refusing;
    let object = bin("cl_lanes.gfx1013-w32.o");
    for (kernel, wait) in [("lanes", "S_WAIT_KMCNT"), ("lanes", "S_WAIT_LOADCNT"), ("append_consume", "S_WAIT_DSCNT")] {
        let status = |translate: isabridge_targets::gfx12::selfcheck::TranslateRefusing| {
            let rs = selfcheck_refusing(&object, translate, &opts()).unwrap();
            rs.into_iter().find(|r| r.function == kernel).unwrap()
        };
        let kept = status(&|b| Ok((translate_kernels(b, Some(kernel)).map_err(|e| e.to_string())?.bytes, Vec::new())));
        assert_eq!(kept.status, Status::Equal, "{kernel} as translated: {}", kept.reason);
        let (patched, at) = without_first_wait(&object, kernel, wait);
        let r = status(&|_| Ok((patched.clone(), Vec::new())));
        assert_eq!(r.status, Status::Differ, "{kernel} without its {wait} at {at:#x}: {}", r.reason);
        assert!(r.reason.contains("poison"), "{kernel} without its {wait} at {at:#x}: {}", r.reason);
    }
}
