//! What a cubin holds besides its kernels, which the CUDA driver loads with the module and
//! every kernel shares: the module's constant banks (`.nv.constant<N>` with no kernel suffix:
//! bank 3 holds `__constant__` variables, bank 4 addresses the driver writes in, such as that
//! of a `__device__` array, fixtures/nvidia/bin/control.sm86.cubin), its global variables
//! (`__device__`: `.nv.global.init` with their initial bytes, then `.nv.global`, zero-filled),
//! and the relocations of those sections (`.rel.<section>`, `.rela.<section>`).
//!
//! The global variables form one image: `.nv.global.init` at offset 0, `.nv.global` after it at
//! its alignment. A launch places the image at an address of its choosing and applies the
//! relocations for it ([`ModuleData::relocated`]).
//!
//! Function addresses: a relocation naming a function writes the function's offset in its code
//! section, the value ptxas's own tables hold (a whole-program cubin keeps no relocations
//! for function pointers: a `__device__` array of them holds handles, which the calling
//! kernel's constant bank 2 maps to code offsets, and a call through a register goes to that
//! offset from the code's start: `CALL.REL.NOINC R8` on sm_86, `BRX R3` after `PRET` on
//! sm_50). The lifters compare a call's target with those offsets
//! (`lift::sm86::Options::call_targets`).
//!
//! Relocation types (numbers as NVIDIA's cuobjdump names them): R_CUDA_32 (1) and R_CUDA_64
//! (2) write the 32- or 64-bit address, R_CUDA_32_LO (0x46) and R_CUDA_32_HI (0x47) its low or
//! high 32 bits; any other type in a data section, and any relocation of code, is a typed
//! [`RelocError`] when a launch applies them.

use super::nvinfo::{sections, u32_at, u64_at, Section};

/// ELF section type of a symbol table.
const SHT_SYMTAB: u32 = 2;
/// ELF section type of relocations with addends.
const SHT_RELA: u32 = 4;
/// ELF section type of relocations without addends.
const SHT_REL: u32 = 9;
/// ELF section type of a section with no bytes in the file.
const SHT_NOBITS: u32 = 8;
/// ELF symbol type of a function.
const STT_FUNC: u8 = 2;

/// R_CUDA_32: the 32-bit address.
pub const R_CUDA_32: u32 = 1;
/// R_CUDA_64: the 64-bit address.
pub const R_CUDA_64: u32 = 2;
/// R_CUDA_32_LO: the low 32 bits of the address.
pub const R_CUDA_32_LO: u32 = 0x46;
/// R_CUDA_32_HI: the high 32 bits of the address.
pub const R_CUDA_32_HI: u32 = 0x47;

/// Where a relocation writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// The module's constant bank of this number.
    Bank(u8),
    /// The image of the global variables.
    Globals,
}

/// What a relocation's symbol names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A global variable at this offset of the image.
    Global(u64),
    /// A function at this offset of its code section.
    Function(u64),
}

/// One relocation of a module data section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relocation {
    /// The section it writes.
    pub place: Place,
    /// Byte offset in that section.
    pub offset: u64,
    /// Relocation type (`R_CUDA_*`).
    pub kind: u32,
    /// The symbol's name.
    pub symbol: String,
    /// What the symbol is; `None` for one the module does not define as data or code.
    pub target: Option<Target>,
    /// Added to the symbol's address.
    pub addend: i64,
}

/// A relocation a launch cannot apply.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RelocError {
    /// A relocation type not handled here.
    #[error("relocation type {kind:#x} at {section}+{offset:#x} (symbol {symbol}) is not handled (R_CUDA_32, R_CUDA_64, R_CUDA_32_LO, R_CUDA_32_HI are)")]
    Type {
        /// The section written.
        section: String,
        /// Byte offset in it.
        offset: u64,
        /// Relocation type.
        kind: u32,
        /// The symbol named.
        symbol: String,
    },
    /// A symbol the module does not define.
    #[error("relocation at {section}+{offset:#x} names {symbol}, which the module defines as no global variable or function")]
    Symbol {
        /// The section written.
        section: String,
        /// Byte offset in it.
        offset: u64,
        /// The symbol named.
        symbol: String,
    },
    /// A relocation past its section's end.
    #[error("relocation at {section}+{offset:#x} lies past the section's end")]
    Bounds {
        /// The section written.
        section: String,
        /// Byte offset in it.
        offset: u64,
    },
    /// Relocations of the kernel's code or of its own constant banks, which a launch does not
    /// apply (the lifted code would read them unrelocated).
    #[error("{count} relocation(s) of {section}, which are not applied (those of the module's constant banks and global variables are)")]
    Kernel {
        /// The section.
        section: String,
        /// How many relocations it has.
        count: usize,
    },
}

/// The module-wide data of a cubin.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModuleData {
    /// Constant banks shared by the module's kernels: (bank number, bytes as in the file).
    pub banks: Vec<(u8, Vec<u8>)>,
    /// The image of the global variables as in the file (relocations not applied).
    pub globals: Vec<u8>,
    /// The relocations of the banks and of the image.
    pub relocations: Vec<Relocation>,
    /// Kernel sections (code, a kernel's own constant banks) that have relocations: (section
    /// name, how many).
    pub kernel_relocations: Vec<(String, usize)>,
    /// The function symbols: (code section index, offset in it).
    functions: Vec<(usize, u64)>,
}

/// The module's data with the relocations applied for one placement of its global variables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relocated {
    /// The module's constant banks: (bank number, bytes).
    pub banks: Vec<(u8, Vec<u8>)>,
    /// The image of the global variables.
    pub globals: Vec<u8>,
}

/// One symbol table entry: name, type, section index, value.
struct Symbol<'a> {
    name: &'a str,
    kind: u8,
    section: usize,
    value: u64,
}

fn symbols<'a>(secs: &[Section<'a>]) -> Vec<Symbol<'a>> {
    let Some(symtab) = secs.iter().find(|s| s.kind == SHT_SYMTAB) else { return vec![] };
    let strtab = secs.iter().find(|s| s.name == ".strtab").map_or(&[][..], |s| s.data);
    symtab
        .data
        .chunks_exact(24)
        .map(|e| {
            let at = u32_at(e, 0).unwrap_or(0) as usize;
            let name = strtab.get(at..).and_then(|s| s.split(|c| *c == 0).next()).and_then(|s| std::str::from_utf8(s).ok()).unwrap_or("");
            Symbol { name, kind: e[4] & 0xf, section: u16::from_le_bytes([e[6], e[7]]) as usize, value: u64_at(e, 8).unwrap_or(0) }
        })
        .collect()
}

/// The bank number of a module constant bank section (`.nv.constant3`; not `.nv.constant0.k`).
fn module_bank(name: &str) -> Option<u8> {
    name.strip_prefix(".nv.constant")?.parse().ok()
}

impl ModuleData {
    /// The module data of a cubin's sections.
    pub(super) fn read(secs: &[Section<'_>]) -> ModuleData {
        let mut m = ModuleData::default();
        // Where each data section lands: (section index, place, offset of the section there).
        let mut at: Vec<(usize, Place, u64)> = Vec::new();
        for (i, s) in secs.iter().enumerate() {
            if let Some(n) = module_bank(s.name) {
                m.banks.push((n, s.data.to_vec()));
                at.push((i, Place::Bank(n), 0));
            }
        }
        for name in [".nv.global.init", ".nv.global"] {
            if let Some((i, s)) = secs.iter().enumerate().find(|(_, s)| s.name == name) {
                let start = (m.globals.len() as u64).next_multiple_of(s.align.max(1));
                m.globals.resize(start as usize, 0);
                if s.kind == SHT_NOBITS {
                    m.globals.resize((start + s.size) as usize, 0);
                } else {
                    m.globals.extend_from_slice(s.data);
                }
                at.push((i, Place::Globals, start));
            }
        }
        let syms = symbols(secs);
        for y in &syms {
            if y.kind == STT_FUNC && secs.get(y.section).is_some_and(|s| s.name.starts_with(".text.")) {
                m.functions.push((y.section, y.value));
            }
        }
        for s in secs.iter().filter(|s| s.kind == SHT_REL || s.kind == SHT_RELA) {
            let rela = s.kind == SHT_RELA;
            let target = s.info as usize;
            let entries = s.data.chunks_exact(if rela { 24 } else { 16 });
            let Some(tsec) = secs.get(target) else { continue };
            if tsec.name.starts_with(".text.") || (tsec.name.starts_with(".nv.constant") && module_bank(tsec.name).is_none()) {
                m.kernel_relocations.push((tsec.name.to_string(), entries.len()));
                continue;
            }
            let Some(&(_, place, base)) = at.iter().find(|(i, _, _)| *i == target) else { continue };
            for e in entries {
                let offset = u64_at(e, 0).unwrap_or(0);
                let info = u64_at(e, 8).unwrap_or(0);
                let (sym, kind) = ((info >> 32) as usize, info as u32);
                let addend = if rela { u64_at(e, 16).unwrap_or(0) as i64 } else { 0 };
                let y = syms.get(sym);
                let what = y.and_then(|y| {
                    if y.kind == STT_FUNC {
                        return Some(Target::Function(y.value));
                    }
                    let (_, _, b) = at.iter().find(|(i, p, _)| *i == y.section && *p == Place::Globals)?;
                    Some(Target::Global(b + y.value))
                });
                m.relocations.push(Relocation {
                    place,
                    offset: base + offset,
                    kind,
                    symbol: y.map_or("", |y| y.name).to_string(),
                    target: what,
                    addend,
                });
            }
        }
        m
    }

    /// The offsets of the function symbols in code section `section`, but for one at offset 0
    /// (the kernel's entry), sorted.
    pub(super) fn functions_in(&self, section: usize) -> Vec<u64> {
        let mut v: Vec<u64> = self.functions.iter().filter(|(s, o)| *s == section && *o != 0).map(|f| f.1).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The module's constant banks and global-variable image with the relocations applied, the
    /// image placed at address `base`, for a launch of kernel `kernel` (an error where its code
    /// or its own constant banks have relocations). A REL entry (no addend) adds nothing to
    /// the symbol's address.
    pub fn relocated(&self, kernel: &str, base: u64) -> Result<Relocated, RelocError> {
        let own = |s: &str| s.strip_prefix(".nv.constant").or_else(|| s.strip_prefix(".text")).and_then(|r| r.split_once('.')).is_some_and(|(_, k)| k == kernel);
        if let Some((section, count)) = self.kernel_relocations.iter().find(|(s, _)| own(s)) {
            return Err(RelocError::Kernel { section: section.clone(), count: *count });
        }
        let mut banks = self.banks.clone();
        let mut globals = self.globals.clone();
        for r in &self.relocations {
            let section = match r.place {
                Place::Bank(n) => format!(".nv.constant{n}"),
                Place::Globals => "the global variables".to_string(),
            };
            let value = match r.target {
                Some(Target::Global(o)) => base.wrapping_add(o),
                Some(Target::Function(o)) => o,
                None => return Err(RelocError::Symbol { section, offset: r.offset, symbol: r.symbol.clone() }),
            }
            .wrapping_add(r.addend as u64);
            let (bytes, width): (Vec<u8>, usize) = match r.kind {
                R_CUDA_64 => (value.to_le_bytes().to_vec(), 8),
                R_CUDA_32 | R_CUDA_32_LO => ((value as u32).to_le_bytes().to_vec(), 4),
                R_CUDA_32_HI => (((value >> 32) as u32).to_le_bytes().to_vec(), 4),
                kind => return Err(RelocError::Type { section, offset: r.offset, kind, symbol: r.symbol.clone() }),
            };
            let data = match r.place {
                Place::Bank(n) => match banks.iter_mut().find(|b| b.0 == n) {
                    Some(b) => &mut b.1,
                    None => return Err(RelocError::Bounds { section, offset: r.offset }),
                },
                Place::Globals => &mut globals,
            };
            let at = r.offset as usize;
            let Some(dst) = at.checked_add(width).and_then(|end| data.get_mut(at..end)) else {
                return Err(RelocError::Bounds { section, offset: r.offset });
            };
            dst.copy_from_slice(&bytes);
        }
        Ok(Relocated { banks, globals })
    }

    /// Whether any relocation writes the global-variable image or names a global variable
    /// (then a launch must place the image).
    pub fn needs_globals(&self) -> bool {
        !self.globals.is_empty() || self.relocations.iter().any(|r| matches!(r.target, Some(Target::Global(_))))
    }
}

/// The module data of cubin `bytes` (empty for a file whose section headers do not read).
pub fn module_data(bytes: &[u8]) -> ModuleData {
    sections(bytes).map(|s| ModuleData::read(&s)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Vec<u8> {
        std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/nvidia/bin").join(name)).unwrap()
    }

    /// control.sm86: `ops` (4 handles, 8 to 0x20, as `cuobjdump -elf` prints
    /// `.nv.global.init`) and bank 4's R_CUDA_64 to `ops` (`.rel.nv.constant4`: `0x0 ops
    /// R_CUDA_64`); relocated for a base, bank 4 holds the base (ops is at image offset 0).
    #[test]
    fn control_module_globals_and_bank4() {
        for f in ["control.sm86.cubin", "control.sm50.cubin"] {
            let m = module_data(&fixture(f));
            assert_eq!(m.globals.chunks(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect::<Vec<_>>(), [8, 0x10, 0x18, 0x20], "{f}");
            assert_eq!(m.relocations, [Relocation { place: Place::Bank(4), offset: 0, kind: R_CUDA_64, symbol: "ops".into(), target: Some(Target::Global(0)), addend: 0 }], "{f}");
            let r = m.relocated("calls", 0x7000_0000_1000).unwrap();
            assert_eq!(r.banks, [(4, 0x7000_0000_1000u64.to_le_bytes().to_vec())], "{f}");
            assert_eq!(r.globals, m.globals);
            assert!(m.needs_globals());
        }
    }

    /// memory.sm50 / sm86: bank 3 is `ctab` (256 bytes) then `cidx` (64), 0x140 bytes as
    /// readelf gives `.nv.constant3`, no relocations and no global variables.
    #[test]
    fn memory_module_bank3() {
        for f in ["memory.sm86.cubin", "memory.sm50.cubin"] {
            let m = module_data(&fixture(f));
            assert_eq!(m.banks.iter().map(|b| (b.0, b.1.len())).collect::<Vec<_>>(), [(3, 0x140)], "{f}");
            assert!(m.relocations.is_empty() && !m.needs_globals(), "{f}");
        }
    }

    /// A relocation type not handled is a typed error naming it.
    #[test]
    fn unknown_relocation_type_is_an_error() {
        let mut m = module_data(&fixture("control.sm86.cubin"));
        m.relocations[0].kind = 0x38;
        let e = m.relocated("calls", 0).unwrap_err();
        assert_eq!(e, RelocError::Type { section: ".nv.constant4".into(), offset: 0, kind: 0x38, symbol: "ops".into() });
    }
}
