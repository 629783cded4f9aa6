//! What nvdisasm's cubin listing reads from a cubin besides the code: the ELF header's flags
//! and type, each code section's header fields, the function symbols in symbol-table order,
//! the indirect branch targets of the `.nv.info.<kernel>` sections and the relocations of the
//! code. Every read is bounds-checked: a malformed file gives an error, never a panic.

/// `SHF_EXECINSTR`.
const SHF_EXECINSTR: u64 = 4;
/// `SHT_PROGBITS`.
const SHT_PROGBITS: u32 = 1;
/// `SHT_SYMTAB`.
const SHT_SYMTAB: u32 = 2;
/// `SHT_REL`.
const SHT_REL: u32 = 9;
/// `SHT_CUDA_INFO`: the `.nv.info` sections.
const SHT_CUDA_INFO: u32 = 0x7000_0000;
/// `STT_FUNC`.
const STT_FUNC: u8 = 2;
/// `EIATTR_INDIRECT_BRANCH_TARGETS`: the attribute of `.nv.info.<kernel>` listing each
/// indirect branch (`BRX`, `BRK`, `SYNC`, ...) with its possible targets.
const EIATTR_INDIRECT_BRANCH_TARGETS: u8 = 0x34;
/// `EIFMT_SVAL`: an attribute with a 16-bit size and that many bytes of value.
const EIFMT_SVAL: u8 = 4;

/// One code section of a cubin.
pub(crate) struct CodeSection<'a> {
    /// Index in the section header table.
    pub index: usize,
    /// Section name (`.text.<kernel>`).
    pub name: &'a str,
    /// `sh_flags`.
    pub flags: u64,
    /// `sh_info` (the register count in its top byte).
    pub info: u32,
    /// `sh_addralign`.
    pub align: u64,
    /// The section's bytes.
    pub data: &'a [u8],
    /// Indirect branches: (instruction offset, kind: 1 = call, targets), in table order.
    pub indirect: Vec<(u64, u32, Vec<u64>)>,
    /// Relocations of the code: (offset, symbol name), in table order.
    pub relocs: Vec<(u64, &'a str)>,
}

/// A function symbol.
pub(crate) struct FuncSymbol<'a> {
    /// Symbol name.
    pub name: &'a str,
    /// Index in the section header table of the section it is defined in.
    pub section: usize,
    /// `st_value`: the offset in that section.
    pub value: u64,
    /// `st_size`.
    pub size: u64,
    /// Binding (`STB_LOCAL` 0, `STB_GLOBAL` 1, `STB_WEAK` 2).
    pub bind: u8,
    /// `st_other`.
    pub other: u8,
}

/// The parts of a cubin that its nvdisasm listing shows.
pub(crate) struct Cubin<'a> {
    /// `e_type`.
    pub e_type: u16,
    /// `e_flags`.
    pub e_flags: u32,
    /// Code sections in section header order.
    pub code: Vec<CodeSection<'a>>,
    /// Function symbols in symbol table order.
    pub funcs: Vec<FuncSymbol<'a>>,
    /// Undefined named symbols in symbol table order: (name, type, size).
    pub undefined: Vec<(&'a str, u8, u64)>,
}

/// A section header's fields.
struct Header {
    name: u32,
    kind: u32,
    flags: u64,
    offset: u64,
    size: u64,
    link: u32,
    info: u32,
    align: u64,
}

fn u16_at(b: &[u8], o: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(o..o.checked_add(2)?)?.try_into().ok()?))
}

fn u32_at(b: &[u8], o: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(o..o.checked_add(4)?)?.try_into().ok()?))
}

fn u64_at(b: &[u8], o: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(o..o.checked_add(8)?)?.try_into().ok()?))
}

/// The NUL-terminated name at `off` of string table `t` ("" when it is not valid UTF-8).
fn name_at(t: &[u8], off: u32) -> Option<&str> {
    let s = t.get(off as usize..)?;
    let end = s.iter().position(|&c| c == 0)?;
    Some(std::str::from_utf8(&s[..end]).unwrap_or(""))
}

impl<'a> Cubin<'a> {
    /// Reads a little-endian ELF64 cubin; None when a header, table or name lies outside the file.
    pub(crate) fn parse(b: &'a [u8]) -> Option<Cubin<'a>> {
        if b.get(..4)? != b"\x7fELF" || *b.get(4)? != 2 || *b.get(5)? != 1 {
            return None;
        }
        let e_type = u16_at(b, 16)?;
        let e_flags = u32_at(b, 48)?;
        let shoff = usize::try_from(u64_at(b, 40)?).ok()?;
        let shentsize = u16_at(b, 58)? as usize;
        let shnum = u16_at(b, 60)? as usize;
        let shstrndx = u16_at(b, 62)? as usize;
        if shentsize < 64 {
            return None;
        }
        let mut sh = Vec::with_capacity(shnum);
        for i in 0..shnum {
            let o = shoff.checked_add(i.checked_mul(shentsize)?)?;
            sh.push(Header {
                name: u32_at(b, o)?,
                kind: u32_at(b, o + 4)?,
                flags: u64_at(b, o + 8)?,
                offset: u64_at(b, o + 24)?,
                size: u64_at(b, o + 32)?,
                link: u32_at(b, o + 40)?,
                info: u32_at(b, o + 44)?,
                align: u64_at(b, o + 48)?,
            });
        }
        let data = |h: &Header| -> Option<&'a [u8]> {
            if h.kind == 8 {
                return Some(&[]);
            }
            let s = usize::try_from(h.offset).ok()?;
            b.get(s..s.checked_add(usize::try_from(h.size).ok()?)?)
        };
        let shstr = data(sh.get(shstrndx)?)?;
        let mut code = Vec::new();
        for (index, h) in sh.iter().enumerate() {
            if h.kind == SHT_PROGBITS && h.flags & SHF_EXECINSTR != 0 && h.size > 0 {
                code.push(CodeSection {
                    index,
                    name: name_at(shstr, h.name)?,
                    flags: h.flags,
                    info: h.info,
                    align: h.align,
                    data: data(h)?,
                    indirect: Vec::new(),
                    relocs: Vec::new(),
                });
            }
        }
        let mut funcs = Vec::new();
        let mut undefined = Vec::new();
        let mut symbols: Vec<&'a str> = Vec::new();
        if let Some(h) = sh.iter().find(|h| h.kind == SHT_SYMTAB) {
            let t = data(h)?;
            let strtab = data(sh.get(h.link as usize)?)?;
            for e in t.chunks_exact(24) {
                let name = name_at(strtab, u32_at(e, 0)?)?;
                symbols.push(name);
                let (info, other, shndx) = (e[4], e[5], u16_at(e, 6)? as usize);
                if shndx == 0 && !name.is_empty() {
                    undefined.push((name, info & 15, u64_at(e, 16)?));
                }
                if info & 15 == STT_FUNC {
                    funcs.push(FuncSymbol { name, section: shndx, value: u64_at(e, 8)?, size: u64_at(e, 16)?, bind: info >> 4, other });
                }
            }
        }
        for h in &sh {
            let Some(c) = code.iter_mut().find(|c| c.index == h.info as usize) else { continue };
            if h.kind == SHT_CUDA_INFO {
                c.indirect = indirect_branches(data(h)?)?;
            } else if h.kind == SHT_REL {
                for e in data(h)?.chunks_exact(16) {
                    let sym = (u64_at(e, 8)? >> 32) as usize;
                    c.relocs.push((u64_at(e, 0)?, symbols.get(sym).copied().unwrap_or("")));
                }
            }
        }
        Some(Cubin { e_type, e_flags, code, funcs, undefined })
    }
}

/// The `EIATTR_INDIRECT_BRANCH_TARGETS` entries of a `.nv.info.<kernel>` section: each an
/// instruction offset, a kind, a count and that many target offsets (32-bit words).
fn indirect_branches(d: &[u8]) -> Option<Vec<(u64, u32, Vec<u64>)>> {
    let mut out = Vec::new();
    let mut i = 0usize;
    while i + 4 <= d.len() {
        let (format, attr) = (d[i], d[i + 1]);
        if format != EIFMT_SVAL {
            i += 4;
            continue;
        }
        let size = u16_at(d, i + 2)? as usize;
        let v = d.get(i + 4..i + 4 + size)?;
        i += 4 + size;
        if attr != EIATTR_INDIRECT_BRANCH_TARGETS {
            continue;
        }
        let mut k = 0usize;
        while k + 12 <= v.len() {
            let (at, kind, n) = (u32_at(v, k)?, u32_at(v, k + 4)?, u32_at(v, k + 8)? as usize);
            k += 12;
            let targets = (0..n).map(|j| u32_at(v, k + 4 * j).map(u64::from)).collect::<Option<Vec<_>>>()?;
            k += 4 * n;
            out.push((u64::from(at), kind, targets));
        }
    }
    Some(out)
}
