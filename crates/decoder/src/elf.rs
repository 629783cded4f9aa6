//! Code objects: AMD HSA/PAL code objects and NVIDIA cubins (ELF), and raw binaries.

use crate::Isa;

pub mod nvinfo;
pub mod nvmodule;
use object::{Object, ObjectSection, ObjectSymbol, SectionKind, SymbolKind};

/// ELF machine number of AMD GPUs.
pub const EM_AMDGPU: u16 = 224;
/// AMD e_flags machine value of gfx1013.
pub const EF_AMDGPU_MACH_GFX1013: u32 = 0x042;
/// AMD e_flags machine value of gfx1201.
pub const EF_AMDGPU_MACH_GFX1201: u32 = 0x04e;

/// ELF machine number of NVIDIA GPUs (cubin).
pub const EM_CUDA: u16 = 190;

/// Why a file could not be read as a code object.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ElfError {
    /// Not an ELF file.
    #[error("not an ELF file")]
    NotElf,
    /// An ELF file for another machine.
    #[error("ELF for machine {machine}, not an AMD GPU (EM_AMDGPU = 224) or NVIDIA GPU (EM_CUDA = 190)")]
    NotGpu {
        /// e_machine.
        machine: u16,
    },
    /// An AMD ELF for a processor this build does not decode.
    #[error("AMD code object for e_flags mach {mach:#x}, which is not gfx1013 or gfx1201")]
    UnsupportedMach {
        /// EF_AMDGPU_MACH.
        mach: u32,
    },
    /// A cubin for an SM version this build does not decode.
    #[error("cubin for sm_{sm}, which is not sm_50 or sm_86")]
    UnsupportedSm {
        /// SM version from e_flags.
        sm: u32,
    },
    /// The ELF has no executable section.
    #[error("ELF has no code section")]
    NoCode,
    /// The ELF is malformed.
    #[error("malformed ELF: {0}")]
    Malformed(String),
}

/// A named position in a code section; the name borrowed from the file's bytes where it can be
/// (a code object can have thousands of labels: a string allocation each was a fifth of the
/// ELF reading of a listing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label<'a> {
    /// Byte offset within the section.
    pub offset: u64,
    /// Symbol name.
    pub name: std::borrow::Cow<'a, str>,
}

/// One executable section.
#[derive(Debug, Clone)]
pub struct CodeSection {
    /// Section name.
    pub name: String,
    /// Section address (0 in relocatable objects).
    pub address: u64,
    /// Section contents.
    pub data: Vec<u8>,
    /// Symbols inside the section, sorted by offset.
    pub labels: Vec<Label<'static>>,
}

/// A code object: its ISA and code sections.
#[derive(Debug, Clone)]
pub struct CodeObject {
    /// The ISA named by the ELF header.
    pub isa: Isa,
    /// Executable sections in file order.
    pub sections: Vec<CodeSection>,
}

/// One executable section, borrowed from the file's bytes (see [`parse`]).
#[derive(Debug, Clone)]
pub struct SectionRef<'a> {
    /// Section name.
    pub name: &'a str,
    /// Section address (0 in relocatable objects).
    pub address: u64,
    /// Section contents.
    pub data: &'a [u8],
    /// Symbols inside the section, sorted by offset.
    pub labels: Vec<Label<'a>>,
}

/// True when the bytes start with the ELF magic.
pub fn is_elf(bytes: &[u8]) -> bool {
    bytes.starts_with(b"\x7fELF")
}

/// Reads an AMD code object or an NVIDIA cubin.
pub fn read(bytes: &[u8]) -> Result<CodeObject, ElfError> {
    let (isa, sections) = parse(bytes)?;
    let sections = sections
        .into_iter()
        .map(|s| CodeSection {
            name: s.name.to_string(),
            address: s.address,
            data: s.data.to_vec(),
            labels: s.labels.into_iter().map(|l| Label { offset: l.offset, name: l.name.into_owned().into() }).collect(),
        })
        .collect();
    Ok(CodeObject { isa, sections })
}

/// Reads an AMD code object or an NVIDIA cubin without copying its code: the ISA and the
/// executable sections in file order, each borrowing its name and bytes from `bytes`.
pub fn parse<'a>(bytes: &'a [u8]) -> Result<(Isa, Vec<SectionRef<'a>>), ElfError> {
    if !is_elf(bytes) {
        return Err(ElfError::NotElf);
    }
    if bytes.len() < 52 {
        return Err(ElfError::Malformed("header truncated".into()));
    }
    let machine = u16::from_le_bytes([bytes[18], bytes[19]]);
    if machine != EM_AMDGPU && machine != EM_CUDA {
        return Err(ElfError::NotGpu { machine });
    }
    let file = object::File::parse(bytes).map_err(|e| ElfError::Malformed(e.to_string()))?;
    let mach = match file.flags() {
        object::FileFlags::Elf { e_flags, .. } => e_flags & 0xff,
        _ => 0,
    };
    let isa = if machine == EM_CUDA {
        // cubin: the SM version is the low byte of e_flags (0x32 = sm_50, 0x56 = sm_86); each
        // kernel has its own `.text.<name>` section.
        match mach {
            50 => Isa::Sm50,
            86 => Isa::Sm86,
            sm => return Err(ElfError::UnsupportedSm { sm }),
        }
    } else {
        match mach {
            EF_AMDGPU_MACH_GFX1013 => Isa::Gfx1013,
            EF_AMDGPU_MACH_GFX1201 => Isa::Gfx1201,
            _ => return Err(ElfError::UnsupportedMach { mach }),
        }
    };
    // Labels of every section in one pass over the symbols (a cubin has a section per kernel:
    // filtering all symbols for each section would be quadratic).
    let mut by_section: Vec<Vec<(u64, &str)>> = Vec::new();
    let mut add = |i: usize, a: u64, n: &'a str| {
        if by_section.len() <= i {
            by_section.resize_with(i + 1, Vec::new);
        }
        by_section[i].push((a, n));
    };
    // ELF64 names are read from the string tables here: `object` finds their ends with the
    // `memchr` crate, whose first call asks the CPU for its features (trapped by a VM).
    let mut shstrtab: &[u8] = &[];
    match &file {
        object::File::Elf64(f) => {
            use object::read::elf::{FileHeader as _, SectionHeader as _};
            let endian = f.endian();
            shstrtab = f
                .elf_header()
                .shstrndx(endian, f.data())
                .ok()
                .and_then(|i| f.elf_section_table().section(object::SectionIndex(i as usize)).ok())
                .and_then(|h| h.data(endian, f.data()).ok())
                .unwrap_or(&[]);
            elf64_labels(f, &mut add)
        }
        _ => generic_labels(&file, &mut add),
    }
    let mut sections = Vec::new();
    for s in file.sections() {
        if s.kind() != SectionKind::Text || s.size() == 0 {
            continue;
        }
        let data = s.data().map_err(|e| ElfError::Malformed(e.to_string()))?;
        let name = match &file {
            object::File::Elf64(f) => {
                use object::read::elf::SectionHeader as _;
                let h = f.elf_section_table().section(s.index()).ok();
                let n = h.and_then(|h| c_str(shstrtab, h.sh_name(f.endian())));
                n.and_then(utf8).unwrap_or("")
            }
            _ => s.name().unwrap_or(""),
        };
        let syms = by_section.get(s.index().0).map_or(&[][..], |v| v.as_slice());
        let mut labels: Vec<Label<'a>> = syms
            .iter()
            .filter_map(|&(a, n)| Some(Label { offset: a.checked_sub(s.address())?, name: n.into() }))
            .collect();
        let order = |a: &Label<'_>, b: &Label<'_>| a.offset.cmp(&b.offset).then_with(|| a.name.cmp(&b.name));
        // Symbol tables usually list a section's symbols in address order already.
        if !labels.is_sorted_by(|a, b| order(a, b).is_le()) {
            labels.sort_by(order);
        }
        labels.dedup_by_key(|l| l.offset);
        sections.push(SectionRef { name, address: s.address(), data, labels });
    }
    if sections.is_empty() {
        return Err(ElfError::NoCode);
    }
    Ok((isa, sections))
}

/// Calls `add(section index, address, name)` for every named symbol of a function or of no
/// particular type (what `object` calls `Text` and `Unknown`) defined in a section.
fn generic_labels<'a>(file: &object::File<'a>, add: &mut impl FnMut(usize, u64, &'a str)) {
    for y in file.symbols() {
        if !matches!(y.kind(), SymbolKind::Text | SymbolKind::Unknown | SymbolKind::Label) {
            continue;
        }
        let Some(i) = y.section_index() else { continue };
        let Ok(n) = y.name() else { continue };
        if n.is_empty() {
            continue;
        }
        add(i.0, y.address(), n);
    }
}

/// [`generic_labels`] reading the ELF64 symbol table directly (the same symbols, without the
/// generic symbol API's work per symbol).
fn elf64_labels<'a>(f: &object::read::elf::ElfFile64<'a>, add: &mut impl FnMut(usize, u64, &'a str)) {
    use object::elf;
    use object::read::elf::Sym as _;
    use object::read::elf::SectionHeader as _;
    let endian = f.endian();
    let table = f.elf_symbol_table();
    let strtab = f
        .elf_section_table()
        .section(table.string_section())
        .ok()
        .and_then(|h| h.data(endian, f.data()).ok())
        .unwrap_or(&[]);
    for (k, y) in table.symbols().iter().enumerate().skip(1) {
        // Not data, section, file, common or thread-local symbols (object's Data, Section,
        // File, Data and Tls kinds).
        if matches!(y.st_type(), elf::STT_OBJECT | elf::STT_SECTION | elf::STT_FILE | elf::STT_COMMON | elf::STT_TLS) {
            continue;
        }
        let i = match y.st_shndx(endian) {
            elf::SHN_UNDEF => continue,
            elf::SHN_XINDEX => match table.shndx(endian, object::SymbolIndex(k)) {
                Some(0) | None => continue,
                Some(i) => i as usize,
            },
            i if i < elf::SHN_LORESERVE => i as usize,
            _ => continue,
        };
        let Some(n) = c_str(strtab, y.st_name(endian)).and_then(utf8) else { continue };
        if n.is_empty() {
            continue;
        }
        add(i, y.st_value(endian), n);
    }
}

/// The NUL-terminated string at `offset` of a string table (None when it runs past the end),
/// looked for eight bytes at a time (kernel names run to dozens of bytes, thousands of them).
fn c_str(table: &[u8], offset: u32) -> Option<&[u8]> {
    let t = table.get(offset as usize..)?;
    let mut i = 0;
    while let Some(c) = t.get(i..i + 8).and_then(|c| <[u8; 8]>::try_from(c).ok()) {
        let x = u64::from_le_bytes(c);
        // The lowest byte whose high bit this sets is the first zero byte (later ones may be
        // false alarms from the borrow, earlier ones cannot).
        let zero = x.wrapping_sub(0x0101_0101_0101_0101) & !x & 0x8080_8080_8080_8080;
        if zero != 0 {
            return Some(&t[..i + (zero.trailing_zeros() / 8) as usize]);
        }
        i += 8;
    }
    Some(&t[..i + t[i..].iter().position(|&b| b == 0)?])
}

/// `n` as text: ASCII (checked a word at a time) or otherwise valid UTF-8.
///
/// Why a library uses `unsafe` here: every symbol name of a code object passes through this
/// function when a listing is made, and the ASCII check already proves the bytes are UTF-8;
/// `from_utf8` would scan them a second time.
fn utf8(n: &[u8]) -> Option<&str> {
    if n.is_ascii() {
        // SAFETY: ASCII bytes are valid UTF-8.
        Some(unsafe { std::str::from_utf8_unchecked(n) })
    } else {
        std::str::from_utf8(n).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every string length and position, with and without a terminator, and non-ASCII text.
    #[test]
    fn strings_of_a_table() {
        let mut t = Vec::new();
        let mut at = Vec::new();
        for n in 0..40usize {
            at.push((t.len() as u32, n));
            t.extend((0..n).map(|k| b'a' + (k % 26) as u8));
            t.push(0);
        }
        for &(o, n) in &at {
            assert_eq!(c_str(&t, o).map(|s| s.len()), Some(n));
            if n > 0 {
                assert_eq!(c_str(&t, o + 1).map(|s| s.len()), Some(n - 1));
            }
        }
        assert_eq!(c_str(b"abc", 0), None);
        assert_eq!(c_str(b"abcdefghijk", 2), None);
        assert_eq!(c_str(b"abc\0", 4), None);
        assert_eq!(utf8("é\u{1}x".as_bytes()), Some("é\u{1}x"));
        assert_eq!(utf8(b"\xff"), None);
    }

    /// The direct ELF64 walk finds the same labels, in the same order, as the generic symbol
    /// API on every bundled AMD code object and cubin.
    #[test]
    fn elf64_walk_equals_generic_symbols() {
        let mut files = 0;
        for dir in ["fixtures/amd/bin", "fixtures/nvidia/bin"] {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(dir);
            for e in std::fs::read_dir(dir).expect("fixtures").flatten() {
                let bytes = std::fs::read(e.path()).expect("file");
                let Ok(file) = object::File::parse(&bytes[..]) else { continue };
                let object::File::Elf64(f) = &file else { continue };
                let (mut a, mut b) = (Vec::new(), Vec::new());
                elf64_labels(f, &mut |i, x, n| a.push((i, x, n.to_string())));
                generic_labels(&file, &mut |i, x, n| b.push((i, x, n.to_string())));
                assert!(!a.is_empty(), "{}", e.path().display());
                assert_eq!(a, b, "{}", e.path().display());
                files += 1;
            }
        }
        assert!(files >= 30, "{files} files");
    }
}
