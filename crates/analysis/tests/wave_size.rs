//! AMD wave sizes read from the kernel descriptor and the metadata note, checked by hand against
//! `llvm-readelf-22 --notes` and `llvm-objdump-22 -s` of the bundled corpus.

use isabridge_analysis::amdmeta;
use isabridge_analysis::load::{load, Program, WaveSize, WaveSource};
use object::{Object, ObjectSection, SectionKind};
use std::path::PathBuf;

fn bin(name: &str) -> Vec<u8> {
    std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/amd/bin").join(name)).unwrap()
}

fn prog(name: &str) -> Program {
    load(&bin(name), None).unwrap()
}

fn entry(p: &Program, n: &str) -> (WaveSize, WaveSource) {
    *p.entry_wave.get(n).unwrap_or_else(|| panic!("no entry {n}"))
}

use WaveSize::{W32, W64};
use WaveSource::{KernelDescriptor, PalMetadata};

/// PAL graphics stages: `.registers` of `llvm-readelf-22 --notes`.
/// gfx_stages w32: 41685 (0xa2d5 VGT_SHADER_STAGES_EN) = 12582912 = 0xc00000 (bit 22 GS_W32_EN,
/// bit 23 VS_W32_EN), 41398 (0xa1b6 SPI_PS_IN_CONTROL) = 32768 (bit 15 PS_W32_EN). The w64 build
/// has neither register. gfx12_stages (gfx1201) w32: 41685 = 8388608 (bit 23 only: no GS stage),
/// 41398 = 32768.
#[test]
fn pal_graphics_stages_from_registers() {
    let p = prog("gfx_stages.gfx1013-w32.o");
    for n in ["vs_main", "ps_interp", "gs_main"] {
        assert_eq!(entry(&p, n), (W32, PalMetadata), "{n}");
    }
    assert_eq!(p.object_wave, Some(W32));
    let p = prog("gfx_stages.gfx1013-w64.o");
    for n in ["vs_main", "ps_interp", "gs_main"] {
        assert_eq!(entry(&p, n), (W64, PalMetadata), "{n}");
    }
    assert_eq!(p.object_wave, Some(W64));
    let p = prog("gfx12_stages.gfx1201-w32.o");
    assert_eq!(entry(&p, "vs_main"), (W32, PalMetadata));
    assert_eq!(entry(&p, "ps_interp"), (W32, PalMetadata));
    assert_eq!(p.entry_wave.len(), 2);
}

/// PAL compute: 11776 (0x2e00 COMPUTE_DISPATCH_INITIATOR) = 32768 (bit 15 CS_W32_EN) in both
/// w32 builds, absent in the w64 build. gfx_sample names one PS entry (`ps_msaa`, 41398 = 32768);
/// the four other pixel shaders of the object inherit its wave size.
#[test]
fn pal_compute_and_single_entry_objects() {
    assert_eq!(entry(&prog("gfx_cs.gfx1013-w32.o"), "cs_main"), (W32, PalMetadata));
    assert_eq!(entry(&prog("gfx_cs.gfx1201-w32.o"), "cs_main"), (W32, PalMetadata));
    assert_eq!(entry(&prog("gfx_cs.gfx1013-w64.o"), "cs_main"), (W64, PalMetadata));
    let p = prog("gfx_sample.gfx1013-w32.o");
    assert_eq!(p.entry_wave.keys().collect::<Vec<_>>(), ["ps_msaa"]);
    assert_eq!(p.object_wave, Some(W32));
    let p = prog("gfx_sample.gfx1013-w64.o");
    assert_eq!(entry(&p, "ps_msaa"), (W64, PalMetadata));
    assert_eq!(p.object_wave, Some(W64));
}

/// HSA: `_Z8switchesPii.kd` is at .rodata+0x40; kernel_code_properties (u16 at +56 = 0x78) reads
/// `09 0c` in the w32 build (0x0c09: bit 10 ENABLE_WAVEFRONT_SIZE32 set) and `09 08` in the w64
/// build (0x0809: clear). The metadata note says `.wavefront_size: 64` for all nine kernels of
/// the w64 build. Device functions (`_Z7collatzj`, LOCAL FUNC) are no entry points.
#[test]
fn hsa_kernel_descriptor_and_metadata_agree() {
    let p = prog("hip_control.gfx1013-w32.o");
    assert_eq!(entry(&p, "_Z8switchesPii"), (W32, KernelDescriptor));
    assert_eq!(p.object_wave, Some(W32));
    let p = prog("hip_control.gfx1013-w64.o");
    assert_eq!(entry(&p, "_Z8switchesPii"), (W64, KernelDescriptor));
    assert_eq!(p.entry_wave.len(), 9);
    assert!(!p.entry_wave.contains_key("_Z7collatzj"));
    assert_eq!(p.object_wave, Some(W64));
    let meta = metadata_waves(&bin("hip_control.gfx1013-w64.o"));
    assert_eq!(meta.len(), 9);
    assert!(meta.iter().all(|(_, w, s)| *w == W64 && *s == amdmeta::MetaSource::HsaMetadata));
    assert!(meta.iter().any(|(n, _, _)| n == "_Z8f16_mathPDF16_PKDF16_S1_"));
}

fn metadata_waves(bytes: &[u8]) -> Vec<(String, WaveSize, amdmeta::MetaSource)> {
    let f = object::File::parse(bytes).unwrap();
    let mut out = Vec::new();
    for s in f.sections().filter(|s| s.kind() == SectionKind::Note) {
        for d in amdmeta::notes(s.data().unwrap(), "AMDGPU", amdmeta::NT_AMDGPU_METADATA) {
            let w = amdmeta::entry_waves(&amdmeta::parse(d).unwrap());
            // The in-place reader the loader uses gives the same answer as the parsed tree.
            assert_eq!(amdmeta::entry_waves_in(d).as_ref(), Ok(&w));
            out.extend(w);
        }
    }
    out
}

/// Over the whole AMD corpus: every HSA kernel's descriptor agrees with its metadata note, every
/// function gets a wave size (entry point or inherited), and the wave size the instructions show
/// (exec written as 32 or 64 bits) never contradicts it.
#[test]
fn every_corpus_function_has_a_consistent_wave_size() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/amd/bin");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()).collect();
    files.sort();
    let mut functions = 0;
    let mut shown = 0;
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let p = load(&bytes, None).unwrap();
        for (n, w, _) in metadata_waves(&bytes) {
            if let Some(kd) = p.kernel_wave.get(&n) {
                assert_eq!(*kd, w, "{} {n}", path.display());
            }
        }
        assert!(p.object_wave.is_some(), "{}", path.display());
        let c = isabridge_analysis::census::census_program("x", &p);
        for s in &c.shaders {
            functions += 1;
            let want = if p.object_wave == Some(W32) { "wave32" } else { "wave64" };
            assert_eq!(s.wave, want, "{} {}", path.display(), s.name);
            assert_ne!(s.wave_source, "instructions");
            if let Some(w) = s.wave_from_instructions() {
                assert_eq!(Some(w), p.object_wave, "{} {}", path.display(), s.name);
                shown += 1;
            }
        }
    }
    assert_eq!(functions, 2318);
    assert!(shown > 100, "{shown}");
}
