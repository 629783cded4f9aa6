//! The kernel ABI of a cubin: for each kernel, where its parameters lie in constant bank 0
//! (`.nv.info.<kernel>`: EIATTR_PARAM_CBANK, EIATTR_KPARAM_INFO), its static shared memory
//! (`.nv.shared.<kernel>`), its register count (EIATTR_REGCOUNT in `.nv.info`, else the high
//! byte of the `.text.<kernel>` section's sh_info) and its local-memory frame
//! (EIATTR_FRAME_SIZE in `.nv.info`).
//!
//! `.nv.info` sections hold a sequence of attributes: a format byte (1 no value, 2 byte value,
//! 3 16-bit value, 4 sized value), an attribute byte, then a 16-bit field that is the value
//! (format 2, 3) or the size of the value bytes that follow (format 4).

use super::nvmodule::ModuleData;
use super::{ElfError, EM_CUDA};

/// EIATTR_FRAME_SIZE: (function symbol, bytes of local memory per thread).
const EIATTR_FRAME_SIZE: u8 = 0x11;
/// EIATTR_PARAM_CBANK: (constant-bank section symbol, offset of the parameters, their size).
const EIATTR_PARAM_CBANK: u8 = 0x0a;
/// EIATTR_KPARAM_INFO: (index, ordinal, offset within the parameters, flags with the size).
const EIATTR_KPARAM_INFO: u8 = 0x17;
/// EIATTR_INDIRECT_BRANCH_TARGETS: per indirect branch, (its offset, its kind: 0 a branch, 1 a
/// call, the number of targets, the target offsets), all u32 (the listing of
/// fixtures/nvidia/calls/calls.sm86.cubin prints the same targets as `BRANCH_TARGETS`;
/// cuobjdump prints kind 1 as `kind_call`: sm_50's call through a function pointer, `BRX` after
/// `PRET`, with no targets, fixtures/nvidia/bin/control.sm50.cubin).
const EIATTR_INDIRECT_BRANCH_TARGETS: u8 = 0x34;
/// The kind of an EIATTR_INDIRECT_BRANCH_TARGETS entry that is a call (`kind_call`).
const INDIRECT_KIND_CALL: u32 = 1;
/// EIATTR_REGCOUNT: (function symbol, registers).
const EIATTR_REGCOUNT: u8 = 0x2f;

/// One kernel parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelParam {
    /// Position in the declaration (0 first).
    pub ordinal: u32,
    /// Byte offset in constant bank 0.
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
}

/// What running a cubin kernel needs to know about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelAbi {
    /// Symbol name (C++-mangled where the source was C++).
    pub name: String,
    /// Index of its `.text.<name>` section.
    pub section: usize,
    /// Parameters in declaration order.
    pub params: Vec<KernelParam>,
    /// Offset of the first parameter in constant bank 0.
    pub param_base: u32,
    /// Bytes of parameters.
    pub param_bytes: u32,
    /// Size of the kernel's constant bank 0 section (driver values and parameters).
    pub cbank0_bytes: u32,
    /// Static shared memory in bytes.
    pub shared_bytes: u32,
    /// Registers per thread.
    pub registers: u32,
    /// Local memory frame per thread in bytes.
    pub frame_bytes: u32,
    /// The compiler's constant banks (`.nv.constant<N>.<name>`, N not 0): bank number and
    /// bytes (sm_50 code reads its literal tables from bank 2).
    pub constant_banks: Vec<(u8, Vec<u8>)>,
    /// The targets of each indirect branch (`BRX`): (its offset in the code, the target
    /// offsets), from EIATTR_INDIRECT_BRANCH_TARGETS.
    pub branch_targets: Vec<(u64, Vec<u64>)>,
    /// The offsets of the indirect calls EIATTR_INDIRECT_BRANCH_TARGETS records as calls
    /// (`kind_call`: sm_50's `BRX` through a function pointer).
    pub indirect_calls: Vec<u64>,
    /// The offsets in the kernel's code of the functions ptxas placed there (its function
    /// symbols other than the kernel's own entry), sorted: where a call through a function
    /// pointer may go.
    pub functions: Vec<u64>,
    /// What the module holds besides its kernels (shared by all of them): its constant banks,
    /// global variables and their relocations.
    pub module: std::sync::Arc<ModuleData>,
}

/// One section header with its bytes (none for NOBITS).
pub(super) struct Section<'a> {
    pub name: &'a str,
    pub kind: u32,
    pub info: u32,
    pub size: u64,
    pub align: u64,
    pub data: &'a [u8],
}

fn rd<const N: usize>(b: &[u8], at: usize) -> Option<[u8; N]> {
    b.get(at..at.checked_add(N)?)?.try_into().ok()
}
fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    rd::<2>(b, at).map(u16::from_le_bytes)
}
pub(super) fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    rd::<4>(b, at).map(u32::from_le_bytes)
}
pub(super) fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    rd::<8>(b, at).map(u64::from_le_bytes)
}

/// The section headers of a 64-bit little-endian ELF.
pub(super) fn sections(b: &[u8]) -> Option<Vec<Section<'_>>> {
    if b.get(4) != Some(&2) || b.get(5) != Some(&1) {
        return None;
    }
    let shoff = usize::try_from(u64_at(b, 0x28)?).ok()?;
    let shentsize = u16_at(b, 0x3a)? as usize;
    let shnum = u16_at(b, 0x3c)? as usize;
    let shstrndx = u16_at(b, 0x3e)? as usize;
    if shentsize < 64 {
        return None;
    }
    let hdr = |i: usize| -> Option<(u32, u32, u64, u64, u32, u64)> {
        let h = shoff.checked_add(i.checked_mul(shentsize)?)?;
        Some((u32_at(b, h)?, u32_at(b, h + 4)?, u64_at(b, h + 24)?, u64_at(b, h + 32)?, u32_at(b, h + 44)?, u64_at(b, h + 48)?))
    };
    let bytes = |kind: u32, off: u64, size: u64| -> &[u8] {
        if kind == 8 {
            return &[];
        }
        let (Ok(o), Ok(s)) = (usize::try_from(off), usize::try_from(size)) else { return &[] };
        o.checked_add(s).and_then(|e| b.get(o..e)).unwrap_or(&[])
    };
    let (_, skind, soff, ssize, _, _) = hdr(shstrndx)?;
    let strtab = bytes(skind, soff, ssize);
    let mut out = Vec::with_capacity(shnum);
    for i in 0..shnum {
        let (name, kind, off, size, info, align) = hdr(i)?;
        let name = strtab
            .get(name as usize..)
            .and_then(|s| s.split(|c| *c == 0).next())
            .and_then(|s| std::str::from_utf8(s).ok())
            .unwrap_or("");
        out.push(Section { name, kind, info, size, align, data: bytes(kind, off, size) });
    }
    Some(out)
}

/// The attributes of a `.nv.info` section: (attribute, 16-bit field, value bytes).
fn attributes(d: &[u8]) -> Vec<(u8, u16, &[u8])> {
    let mut out = Vec::new();
    let mut i = 0;
    while i + 4 <= d.len() {
        let (fmt, attr) = (d[i], d[i + 1]);
        let field = u16::from_le_bytes([d[i + 2], d[i + 3]]);
        i += 4;
        if fmt == 4 {
            let end = (i + field as usize).min(d.len());
            out.push((attr, field, &d[i..end]));
            i = end;
        } else {
            out.push((attr, field, &[][..]));
        }
    }
    out
}

/// The entries of an EIATTR_INDIRECT_BRANCH_TARGETS value: (offset, kind, targets); a
/// truncated entry ends the list.
fn branch_targets(v: &[u8]) -> Vec<(u64, u32, Vec<u64>)> {
    let mut out = Vec::new();
    let mut i = 0;
    while let (Some(at), Some(kind), Some(n)) = (u32_at(v, i), u32_at(v, i + 4), u32_at(v, i + 8)) {
        let targets: Option<Vec<u64>> = (0..n as usize).map(|j| u32_at(v, i + 12 + 4 * j).map(u64::from)).collect();
        let Some(targets) = targets else { break };
        out.push((u64::from(at), kind, targets));
        i += 12 + 4 * n as usize;
    }
    out
}

/// The symbols of `.symtab`: (name, section index).
fn symbols<'a>(secs: &[Section<'a>]) -> Vec<(&'a str, usize)> {
    let Some(symtab) = secs.iter().find(|s| s.kind == 2) else { return vec![] };
    let strtab = secs.iter().find(|s| s.name == ".strtab").map_or(&[][..], |s| s.data);
    symtab
        .data
        .chunks_exact(24)
        .map(|e| {
            let name = u32::from_le_bytes([e[0], e[1], e[2], e[3]]) as usize;
            let shndx = u16::from_le_bytes([e[6], e[7]]) as usize;
            let name = strtab
                .get(name..)
                .and_then(|s| s.split(|c| *c == 0).next())
                .and_then(|s| std::str::from_utf8(s).ok())
                .unwrap_or("");
            (name, shndx)
        })
        .collect()
}

/// The kernels of a cubin with their ABI, in section order.
pub fn cuda_kernels(bytes: &[u8]) -> Result<Vec<KernelAbi>, ElfError> {
    if !super::is_elf(bytes) {
        return Err(ElfError::NotElf);
    }
    let machine = u16_at(bytes, 18).unwrap_or(0);
    if machine != EM_CUDA {
        return Err(ElfError::NotGpu { machine });
    }
    let secs = sections(bytes).ok_or_else(|| ElfError::Malformed("section headers".into()))?;
    let syms = symbols(&secs);
    let module = std::sync::Arc::new(ModuleData::read(&secs));
    let global_info: Vec<(u8, u16, &[u8])> =
        secs.iter().filter(|s| s.name == ".nv.info").flat_map(|s| attributes(s.data)).collect();
    let mut out = Vec::new();
    for (i, s) in secs.iter().enumerate() {
        let Some(name) = s.name.strip_prefix(".text.") else { continue };
        if s.kind != 1 {
            continue;
        }
        let sym = syms.iter().position(|(n, shndx)| *n == name && *shndx == i);
        let mut k = KernelAbi {
            name: name.to_string(),
            section: i,
            params: Vec::new(),
            param_base: 0,
            param_bytes: 0,
            cbank0_bytes: 0,
            shared_bytes: 0,
            registers: s.info >> 24,
            frame_bytes: 0,
            constant_banks: Vec::new(),
            branch_targets: Vec::new(),
            indirect_calls: Vec::new(),
            functions: module.functions_in(i),
            module: module.clone(),
        };
        k.constant_banks.extend(module.banks.iter().cloned());
        for t in &secs {
            if t.name.strip_prefix(".nv.shared.") == Some(name) {
                k.shared_bytes = u32::try_from(t.size).unwrap_or(u32::MAX);
            }
            if t.name.strip_prefix(".nv.constant0.") == Some(name) {
                k.cbank0_bytes = u32::try_from(t.size).unwrap_or(u32::MAX);
            }
            if let Some((bank, rest)) = t.name.strip_prefix(".nv.constant").and_then(|r| r.split_once('.')) {
                if rest == name && bank != "0" {
                    if let Ok(n) = bank.parse::<u8>() {
                        k.constant_banks.push((n, t.data.to_vec()));
                    }
                }
            }
        }
        if let Some(info) = secs.iter().find(|t| t.name.strip_prefix(".nv.info.") == Some(name)) {
            for (attr, _, v) in attributes(info.data) {
                match attr {
                    EIATTR_PARAM_CBANK => {
                        k.param_base = u16_at(v, 4).unwrap_or(0) as u32;
                        k.param_bytes = u16_at(v, 6).unwrap_or(0) as u32;
                    }
                    EIATTR_KPARAM_INFO => {
                        let (Some(ordinal), Some(off), Some(flags)) = (u16_at(v, 4), u16_at(v, 6), u32_at(v, 8)) else {
                            continue;
                        };
                        k.params.push(KernelParam { ordinal: ordinal as u32, offset: off as u32, size: (flags >> 18) & 0x3fff });
                    }
                    EIATTR_INDIRECT_BRANCH_TARGETS => {
                        for (at, kind, targets) in branch_targets(v) {
                            if kind == INDIRECT_KIND_CALL && targets.is_empty() {
                                k.indirect_calls.push(at);
                            } else {
                                k.branch_targets.push((at, targets));
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        for p in &mut k.params {
            p.offset += k.param_base;
        }
        k.params.sort_by_key(|p| p.ordinal);
        if let Some(sym) = sym {
            for (attr, _, v) in &global_info {
                if u32_at(v, 0) != Some(sym as u32) {
                    continue;
                }
                match *attr {
                    EIATTR_REGCOUNT => k.registers = u32_at(v, 4).unwrap_or(0),
                    EIATTR_FRAME_SIZE => k.frame_bytes = u32_at(v, 4).unwrap_or(0),
                    _ => {}
                }
            }
        }
        out.push(k);
    }
    Ok(out)
}

/// The cubin kernel named `name`: its symbol exactly, else the one whose demangled name's
/// identifier is `name` (`k_add_rn` finds `_Z8k_add_rnPK3RowPji`).
pub fn find_kernel<'k>(kernels: &'k [KernelAbi], name: &str) -> Option<&'k KernelAbi> {
    kernels.iter().find(|k| k.name == name).or_else(|| kernels.iter().find(|k| mangled_ident(&k.name) == Some(name)))
}

/// The identifier of a C++-mangled name of a function at namespace scope (`_Z<len><ident>...`).
pub fn mangled_ident(sym: &str) -> Option<&str> {
    let rest = sym.strip_prefix("_Z")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let len: usize = rest.get(..digits)?.parse().ok()?;
    rest.get(digits..digits.checked_add(len)?)
}
