//! Inputs as programs: an AMD code object, an NVIDIA cubin or a raw dump, split into functions
//! (shaders, kernels, device functions) with the side data that control-flow recovery needs:
//! relocations (AMD `s_getpc_b64` call targets in relocatable objects), NVIDIA constant bank 2
//! (jump tables read by `BRX`), and the wave size named by an AMD kernel descriptor.

use crate::amdmeta;
use isabridge_decoder::elf;
use isabridge_decoder::Isa;
use object::{Object, ObjectSection, ObjectSymbol, RelocationTarget, SectionKind, SymbolKind};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Why an input could not be turned into a program.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// The ELF reader refused the file.
    #[error("{0}")]
    Elf(#[from] elf::ElfError),
    /// A raw dump given without an ISA.
    #[error("not an ELF file; a raw dump needs --isa")]
    RawWithoutIsa,
    /// An empty raw dump.
    #[error("empty input")]
    Empty,
}

/// Where a relocated 32-bit field points: `symbol + addend - place` once resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reloc {
    /// The symbol's section-relative value, or None when it is undefined in this object.
    pub symbol_value: Option<u64>,
    /// The symbol's name (the section name for section symbols).
    pub symbol: String,
    /// The addend.
    pub addend: i64,
    /// ELF relocation type number.
    pub kind: u32,
}

/// One function: a named byte range of a code section.
#[derive(Debug, Clone)]
pub struct Function {
    /// Symbol name (or the section name when the section has no symbol).
    pub name: String,
    /// Address of the first byte (section-relative, the section's own address added).
    pub start: u64,
    /// One past the last byte.
    pub end: u64,
}

/// One code section and what it holds.
#[derive(Debug, Clone)]
pub struct Section {
    /// Section name.
    pub name: String,
    /// Address of the first byte.
    pub address: u64,
    /// The bytes.
    pub data: Arc<Vec<u8>>,
    /// Functions in address order.
    pub functions: Vec<Function>,
    /// Relocations keyed by the address of the relocated field.
    pub relocs: BTreeMap<u64, Reloc>,
    /// NVIDIA: the bytes of this kernel's constant bank 2 (`.nv.constant2.<kernel>`).
    pub const2: Option<Vec<u8>>,
}

/// Wave size of an AMD kernel, and how it was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WaveSize {
    /// 32 lanes.
    W32,
    /// 64 lanes.
    W64,
}

/// Where an AMD entry point's wave size was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WaveSource {
    /// The HSA kernel descriptor `<name>.kd` (kernel_code_properties bit 10).
    KernelDescriptor,
    /// The HSA metadata note: `amdhsa.kernels[].wavefront_size`.
    HsaMetadata,
    /// The PAL metadata note: the hardware stage's `.wavefront_size`, else its W32_EN register
    /// bit (see [`crate::amdmeta`]).
    PalMetadata,
}

impl WaveSource {
    /// The name used in the census (`kernel_descriptor`, `hsa_metadata`, `pal_metadata`).
    pub fn name(self) -> &'static str {
        match self {
            WaveSource::KernelDescriptor => "kernel_descriptor",
            WaveSource::HsaMetadata => "hsa_metadata",
            WaveSource::PalMetadata => "pal_metadata",
        }
    }
}

/// A decoded input.
#[derive(Debug, Clone)]
pub struct Program {
    /// ISA.
    pub isa: Isa,
    /// Code sections.
    pub sections: Vec<Section>,
    /// AMD: kernel name -> wave size from its HSA kernel descriptor (`<name>.kd`).
    pub kernel_wave: BTreeMap<String, WaveSize>,
    /// AMD: entry point (kernel or PAL stage entry symbol) -> wave size and where it was read;
    /// the kernel descriptor wins over the metadata note.
    pub entry_wave: BTreeMap<String, (WaveSize, WaveSource)>,
    /// AMD: the wave size of every entry point when they all agree (what the other functions of
    /// the object, which are compiled for the same wave size, inherit); None when the object
    /// names no entry point or its entry points disagree.
    pub object_wave: Option<WaveSize>,
}

/// Reads bytes as a program: an ELF code object or cubin (its header names the ISA), or a raw
/// dump of `raw_isa` (one function covering the whole input).
pub fn load(bytes: &[u8], raw_isa: Option<Isa>) -> Result<Program, LoadError> {
    if !elf::is_elf(bytes) {
        let isa = raw_isa.ok_or(LoadError::RawWithoutIsa)?;
        if bytes.is_empty() {
            return Err(LoadError::Empty);
        }
        let f = Function { name: "raw".into(), start: 0, end: bytes.len() as u64 };
        let s = Section {
            name: "raw".into(),
            address: 0,
            data: Arc::new(bytes.to_vec()),
            functions: vec![f],
            relocs: BTreeMap::new(),
            const2: None,
        };
        return Ok(Program {
            isa,
            sections: vec![s],
            kernel_wave: BTreeMap::new(),
            entry_wave: BTreeMap::new(),
            object_wave: None,
        });
    }
    // One parse of the ELF file: the header checks and ISA of `isabridge_decoder::elf::read`
    // (same errors), then code sections, symbols, relocations and notes from the same parse.
    if bytes.len() < 52 {
        return Err(elf::ElfError::Malformed("header truncated".into()).into());
    }
    let machine = u16::from_le_bytes([bytes[18], bytes[19]]);
    if machine != elf::EM_AMDGPU && machine != elf::EM_CUDA {
        return Err(elf::ElfError::NotGpu { machine }.into());
    }
    let file = object::File::parse(bytes).map_err(|e| elf::ElfError::Malformed(e.to_string()))?;
    let mach = match file.flags() {
        object::FileFlags::Elf { e_flags, .. } => e_flags & 0xff,
        _ => 0,
    };
    let isa = if machine == elf::EM_CUDA {
        match mach {
            50 => Isa::Sm50,
            86 => Isa::Sm86,
            sm => return Err(elf::ElfError::UnsupportedSm { sm }.into()),
        }
    } else {
        match mach {
            elf::EF_AMDGPU_MACH_GFX1013 => Isa::Gfx1013,
            elf::EF_AMDGPU_MACH_GFX1201 => Isa::Gfx1201,
            _ => return Err(elf::ElfError::UnsupportedMach { mach }.into()),
        }
    };
    let amd = matches!(isa, Isa::Gfx1013 | Isa::Gfx1201);
    // Symbols once: text symbols by section index, and AMD kernel descriptors.
    let mut text_syms: BTreeMap<usize, Vec<(u64, u64, String)>> = BTreeMap::new();
    let mut kds = Vec::new();
    for y in file.symbols() {
        let Some(si) = y.section_index() else { continue };
        if y.kind() == SymbolKind::Text {
            text_syms.entry(si.0).or_default().push((y.address(), y.size(), y.name().unwrap_or("").to_string()));
        } else if amd {
            // Only `.kd` names are read as text (most symbols are not kernel descriptors).
            let k = y.name_bytes().ok().and_then(|n| n.strip_suffix(b".kd")).and_then(|k| std::str::from_utf8(k).ok());
            if let Some(k) = k {
                kds.push((k.to_string(), si, y.address()));
            }
        }
    }
    let mut const2_by_name: BTreeMap<&str, object::Section<'_, '_>> = BTreeMap::new();
    if !amd {
        for x in file.sections() {
            if let Ok(n) = x.name() {
                if let Some(k) = n.strip_prefix(".nv.constant2.") {
                    const2_by_name.insert(k, x);
                }
            }
        }
    }
    let mut sections = Vec::new();
    for s in file.sections() {
        if s.kind() != SectionKind::Text || s.size() == 0 {
            continue;
        }
        let name = s.name().unwrap_or("").to_string();
        let data = s.data().map_err(|e| elf::ElfError::Malformed(e.to_string()))?.to_vec();
        let base = s.address();
        let len = data.len() as u64;
        let mut funcs: Vec<(u64, u64, String)> = text_syms
            .remove(&s.index().0)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|(a, size, n)| {
                let off = a.checked_sub(base)?;
                (off < len).then_some((off, size, n))
            })
            .collect();
        funcs.sort();
        funcs.dedup_by_key(|f| f.0);
        let mut functions = Vec::with_capacity(funcs.len());
        for k in 0..funcs.len() {
            let next = funcs.get(k + 1).map(|f| f.0).unwrap_or(len);
            let (off, size, n) = &mut funcs[k];
            let end = if *size > 0 { (*off + *size).min(next) } else { next };
            functions.push(Function { name: std::mem::take(n), start: base + *off, end: base + end });
        }
        if functions.is_empty() {
            functions.push(Function { name: name.clone(), start: base, end: base + len });
        }
        let mut relocs = BTreeMap::new();
        for (at, r) in s.relocations() {
            let (symbol_value, symbol) = match r.target() {
                RelocationTarget::Symbol(i) => match file.symbol_by_index(i) {
                    Ok(y) => {
                        let nm = match y.name() {
                            Ok("") | Err(_) => y
                                .section_index()
                                .and_then(|si| file.section_by_index(si).ok())
                                .and_then(|sec| sec.name().ok().map(str::to_string))
                                .unwrap_or_default(),
                            Ok(n) => n.to_string(),
                        };
                        let v = (!y.is_undefined() && y.section_index() == Some(s.index()))
                            .then(|| y.address());
                        (v, nm)
                    }
                    Err(_) => (None, String::new()),
                },
                RelocationTarget::Section(si) => (
                    (si == s.index()).then_some(base),
                    file.section_by_index(si).ok().and_then(|x| x.name().ok().map(str::to_string)).unwrap_or_default(),
                ),
                _ => (None, String::new()),
            };
            let kind = match r.flags() {
                object::RelocationFlags::Elf { r_type } => r_type,
                _ => 0,
            };
            // A REL section (what llvm-mc writes for amdpal objects) keeps the addend in the
            // relocated field itself: the AMDGPU relocations the walk reads are 32-bit fields.
            let addend = if r.has_implicit_addend() && amd {
                data.get(at as usize..)
                    .and_then(|b| b.get(..4))
                    .map_or(0, |b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i64)
                    .wrapping_add(r.addend())
            } else {
                r.addend()
            };
            relocs.insert(base + at, Reloc { symbol_value, symbol, addend, kind });
        }
        let const2 = name
            .strip_prefix(".text.")
            .and_then(|k| const2_by_name.get(k))
            .and_then(|x| x.data().ok().map(<[u8]>::to_vec));
        sections.push(Section { name, address: base, data: Arc::new(data), functions, relocs, const2 });
    }
    if sections.is_empty() {
        return Err(elf::ElfError::NoCode.into());
    }
    let mut kernel_wave = BTreeMap::new();
    for (k, si, addr) in kds {
        let Ok(sec) = file.section_by_index(si) else { continue };
        let Ok(data) = sec.data() else { continue };
        // AMDHSA kernel descriptor: kernel_code_properties is the u16 at byte 56; bit 10 is
        // ENABLE_WAVEFRONT_SIZE32 (LLVM AMDGPUUsage, "Kernel Descriptor").
        let Some(off) = addr.checked_sub(sec.address()) else { continue };
        let at = off as usize + 56;
        if let Some(b) = data.get(at..at + 2) {
            let props = u16::from_le_bytes([b[0], b[1]]);
            kernel_wave.insert(k, if props & (1 << 10) != 0 { WaveSize::W32 } else { WaveSize::W64 });
        }
    }
    let mut entry_wave: BTreeMap<String, (WaveSize, WaveSource)> = BTreeMap::new();
    if amd {
        for sec in file.sections().filter(|x| x.kind() == SectionKind::Note) {
            let Ok(data) = sec.data() else { continue };
            for desc in amdmeta::notes(data, "AMDGPU", amdmeta::NT_AMDGPU_METADATA) {
                let Ok(waves) = amdmeta::entry_waves_in(desc) else { continue };
                for (name, w, src) in waves {
                    let src = match src {
                        amdmeta::MetaSource::HsaMetadata => WaveSource::HsaMetadata,
                        _ => WaveSource::PalMetadata,
                    };
                    entry_wave.entry(name).or_insert((w, src));
                }
            }
        }
        for (k, w) in &kernel_wave {
            match entry_wave.get_mut(k) {
                Some(e) => *e = (*w, WaveSource::KernelDescriptor),
                None => {
                    entry_wave.insert(k.clone(), (*w, WaveSource::KernelDescriptor));
                }
            }
        }
    }
    let mut sizes = entry_wave.values().map(|x| x.0);
    let object_wave = sizes.next().filter(|w| sizes.all(|x| x == *w));
    Ok(Program { isa, sections, kernel_wave, entry_wave, object_wave })
}
