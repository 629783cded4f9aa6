//! `isabridge::Translator`: thread safety, the artifact's metadata for a cubin kernel, and the
//! typed errors for wrong sources and targets not built yet.

use isabridge::{Artifact, Container, Error, Format, Isa, Options, Resource, Source, Stage, Target, Translator};
use std::path::Path;

fn fixture(rel: &str) -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join(rel)).unwrap()
}

const fn send_sync<T: Send + Sync>() {}
const _: () = {
    send_sync::<Translator>();
    send_sync::<Artifact>();
    send_sync::<Error>();
    send_sync::<Source>();
    send_sync::<isabridge::LoadedObject<'static>>();
};

/// Every kernel of an object from one read (`translate_all`, `open` + `translate_in`) gives
/// what `translate` gives for it alone: the same artifact, or the same error.
#[test]
fn one_read_of_an_object_translates_as_translate_does() {
    let t = Translator::default();
    for (file, isa, wave, at_least) in [("amd/bin/hip_control.gfx1013-w64.o", Isa::Gfx1013, 64, 1), ("amd/bin/cl_lanes.gfx1201-w32.o", Isa::Gfx1201, 32, 1), ("nvidia/bin/fp32.sm86.cubin", Isa::Sm86, 32, 2)] {
        let code = fixture(file);
        let all = t.translate_all(&code, isa, Target::Spirv).unwrap();
        let object = t.open(&code, isa).unwrap();
        assert_eq!(all.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>(), t.kernels(&code, &Source::object(isa, wave, None)).unwrap());
        let mut emitted = 0;
        for (k, got) in &all {
            let src = Source::object(isa, wave, Some(k));
            assert_eq!(object.kernels().find(|(n, _)| n == k).map(|(_, w)| w), Some(wave), "{file} {k}");
            let alone = t.translate(&code, &src, Target::Spirv);
            let from_object = t.translate_in(&object, &src, Target::Spirv);
            match (got, alone, from_object) {
                (Ok(a), Ok(b), Ok(c)) => {
                    assert_eq!(a, &b, "{file} {k}");
                    assert_eq!(a, &c, "{file} {k}");
                    emitted += 1;
                }
                (Err(a), Err(b), Err(c)) => {
                    assert_eq!(a.to_string(), b.to_string(), "{file} {k}");
                    assert_eq!(a.to_string(), c.to_string(), "{file} {k}");
                }
                (a, b, c) => panic!("{file} {k}: translate_all {:?}, translate {:?}, translate_in {:?}", a.is_ok(), b.is_ok(), c.is_ok()),
            }
        }
        assert!(emitted >= at_least, "{file}: {emitted} kernels emitted");
    }
    // A loaded object refuses raw sources and sources of another ISA.
    let code = fixture("nvidia/bin/fp32.sm86.cubin");
    let object = t.open(&code, Isa::Sm86).unwrap();
    assert!(matches!(t.translate_in(&object, &Source::raw(Isa::Sm86, 32), Target::Spirv), Err(Error::Unsupported { .. })));
    assert!(matches!(t.translate_in(&object, &Source::object(Isa::Sm50, 32, Some("fp32_arith")), Target::Spirv), Err(Error::IsaMismatch { expected: Isa::Sm50, found: Isa::Sm86 })));
    assert!(matches!(t.open(&code, Isa::Sm50), Err(Error::IsaMismatch { expected: Isa::Sm50, found: Isa::Sm86 })));
}

#[test]
fn one_translator_serves_several_threads() {
    let t = Translator::new(Options::default());
    let code = fixture("nvidia/bin/fp32.sm86.cubin");
    let src = Source::object(Isa::Sm86, 32, Some("fp32_compare"));
    let first = t.translate(&code, &src, Target::Spirv).unwrap();
    std::thread::scope(|s| {
        let hs: Vec<_> = (0..2).map(|_| s.spawn(|| t.translate(&code, &src, Target::Spirv).unwrap())).collect();
        for h in hs {
            assert_eq!(h.join().unwrap(), first);
        }
    });
}

#[test]
fn cubin_kernel_artifact() {
    let t = Translator::default();
    let code = fixture("nvidia/bin/special.sm50.cubin");
    let a = t.translate(&code, &Source::object(Isa::Sm50, 32, Some("predicates")), Target::Spirv).unwrap();
    assert_eq!(a.format, Format::Spirv);
    assert_eq!(a.bytes.len() % 4, 0);
    assert_eq!(a.spirv_words().unwrap()[0], 0x0723_0203);
    assert_eq!(a.entry_points.len(), 1);
    assert_eq!(a.entry_points[0].kernel, "predicates");
    let sets: Vec<(u32, u32)> = a.bindings.iter().map(|b| (b.set, b.binding)).collect();
    // Every module has the trap record at binding 3 (a loop a device ends early traps).
    assert_eq!(sets, [(0, 0), (0, 1), (0, 2), (0, 3)]);
    // sm_50 kernel parameters start at c[0x0][0x140] (three pointers).
    match &a.bindings[2].resource {
        Resource::ConstantBanks { kernel_args, bank_bytes } => {
            assert_eq!(kernel_args, &[(0x140, 8), (0x148, 8), (0x150, 8)]);
            assert_eq!(*bank_bytes, 0x1_0000);
        }
        r => panic!("{r:?}"),
    }
    match &a.bindings[0].resource {
        Resource::InvocationInputs { names } => assert_eq!(names, &["SR_TID.X", "SR_TID.Y", "SR_TID.Z", "SR_CTAID.X"]),
        r => panic!("{r:?}"),
    }
    let k = a.spirv_kernel().unwrap();
    assert_eq!(k.entry, a.entry_points[0].name);
}

#[test]
fn wrong_sources_and_unbuilt_targets_are_typed_errors() {
    let t = Translator::default();
    let cubin = fixture("nvidia/bin/special.sm86.cubin");
    let src = |k: Option<&str>| Source::object(Isa::Sm86, 32, k);
    match t.translate(&cubin, &src(Some("nope")), Target::Spirv) {
        Err(Error::NoKernel { name, known, .. }) => {
            assert_eq!(name, "nope");
            assert_eq!(known, ["predicates", "special_regs"]);
        }
        r => panic!("{r:?}"),
    }
    assert!(matches!(t.translate(&cubin, &src(None), Target::Spirv), Err(Error::KernelNeeded { .. })));
    assert!(matches!(t.translate(&cubin, &Source::object(Isa::Sm50, 32, Some("predicates")), Target::Spirv), Err(Error::IsaMismatch { expected: Isa::Sm50, found: Isa::Sm86 })));
    assert!(matches!(t.translate(&cubin, &src(Some("predicates")), Target::Gfx1201), Err(Error::Unsupported { .. })));
    // A wave64 code object given as wave32.
    let amd = fixture("amd/bin/cl_math.gfx1013-w64.o");
    let k = t.kernels(&amd, &Source::object(Isa::Gfx1013, 64, None)).unwrap();
    match t.translate(&amd, &Source::object(Isa::Gfx1013, 32, Some(&k[0])), Target::Spirv) {
        Err(Error::WaveMismatch { expected: 32, found: 64, .. }) => {}
        r => panic!("{r:?}"),
    }
    // An instruction the lifter does not take names ISA, address and instruction: the `calls`
    // kernel's code as a raw dump, without the .nv.info record that makes its BRX a call
    // through a function pointer (from the cubin, it lifts).
    let cubin50 = fixture("nvidia/bin/control.sm50.cubin");
    let abi = isabridge::decoder::elf::nvinfo::cuda_kernels(&cubin50).unwrap();
    let calls = isabridge::decoder::elf::nvinfo::find_kernel(&abi, "calls").unwrap();
    let e = t.translate(section_bytes(&cubin50, calls.section), &Source::raw(Isa::Sm50, 32), Target::Spirv).unwrap_err();
    assert!(matches!(e, Error::Lift { .. }));
    assert!(e.to_string().contains("sm50: 0x120: BRX R3 -0x130: "), "{e}");
    // Raw code: garbage is an error, not a panic.
    let raw = Source::raw(Isa::Sm86, 32);
    assert_eq!(raw.container, Container::Raw);
    assert_eq!(raw.stage, Stage::Compute);
    assert!(t.translate(&[0xff; 16], &raw, Target::Spirv).is_err());
    assert!(t.translate(&[], &raw, Target::Spirv).is_err());
    assert!(t.translate(&[1, 2, 3], &Source::raw(Isa::Gfx1013, 32), Target::Spirv).is_err());
}

/// The bytes of ELF64 section `index` of `elf` (the section header table's offset and size fields).
fn section_bytes(elf: &[u8], index: usize) -> &[u8] {
    let u16_at = |o: usize| u16::from_le_bytes(elf[o..o + 2].try_into().unwrap()) as usize;
    let u64_at = |o: usize| u64::from_le_bytes(elf[o..o + 8].try_into().unwrap()) as usize;
    let header = u64_at(0x28) + index * u16_at(0x3a);
    let (offset, size) = (u64_at(header + 0x18), u64_at(header + 0x20));
    &elf[offset..offset + size]
}
