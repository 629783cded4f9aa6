//! gfx1201 code objects: the AMDHSA `.hsaco` ELF around translated code, as the ROCm loader
//! takes it and as `ld.lld` links one.
//!
//! The file is a little-endian ELF64 shared object (`ET_DYN`) for `EM_AMDGPU` with OS/ABI
//! `ELFOSABI_AMDGPU_HSA` (64), ABI version 4 (`ELFABIVERSION_AMDGPU_HSA_V6`, what clang-22 writes:
//! every fixtures/amd object has it) and `e_flags` `EF_AMDGPU_MACH_AMDGCN_GFX1201` (0x4e; gfx1201
//! has no XNACK or SRAMECC setting, so no feature bits). Sections, each at a file offset equal
//! to its address:
//!
//! - `.note`: one `NT_AMDGPU_METADATA` note (owner `AMDGPU`, type 32), a MessagePack map with
//!   `amdhsa.version` [1, 2], `amdhsa.target` and `amdhsa.kernels` (one map per kernel).
//! - `.dynsym`, `.hash`, `.dynstr`, `.dynamic`: the dynamic symbol table the loader looks
//!   kernels up in (the global symbols below), with its SysV hash table.
//! - `.rodata`: the 64-byte kernel descriptors, 64-byte aligned.
//! - `.text`: the code, on its own page, 256-byte aligned.
//! - `.symtab` / `.strtab`: every function (`STT_FUNC`; kernels global and protected, other
//!   functions local) and every descriptor (`<name>.kd`, `STT_OBJECT`, global, protected, 64
//!   bytes).
//!
//! Program headers: a read-only `PT_LOAD` from the file start through `.rodata`, an executable
//! one for `.text`, a writable one for `.dynamic`, `PT_DYNAMIC` and `PT_NOTE`.

use super::descriptor::{KernelDescriptor, RegisterCounts, DESCRIPTOR_BYTES};
use super::msgpack::Msg;
use isabridge_analysis::amdmeta;
use isabridge_decoder::elf::{EF_AMDGPU_MACH_GFX1201, EM_AMDGPU};

/// `amdhsa.target` of the code objects written here.
pub const TARGET: &str = "amdgcn-amd-amdhsa--gfx1201";
/// `ELFOSABI_AMDGPU_HSA`.
pub const ELFOSABI_AMDGPU_HSA: u8 = 64;
/// `ELFABIVERSION_AMDGPU_HSA_V6` (code object version 6).
pub const ELFABIVERSION_AMDGPU_HSA_V6: u8 = 4;

/// One function of the code: a named byte range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeFunction {
    /// Symbol name.
    pub name: String,
    /// Offset of its first byte in the code.
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
}

/// One kernel: a function of the code with its descriptor and metadata.
#[derive(Debug, Clone, PartialEq)]
pub struct CodeKernel {
    /// Name of the function that is the kernel's entry.
    pub name: String,
    /// Its descriptor.
    pub descriptor: KernelDescriptor,
    /// The registers its code uses (`.vgpr_count`, `.sgpr_count`).
    pub regs: RegisterCounts,
    /// Its metadata map (`.args`, `.max_flat_workgroup_size`, ...); the keys the descriptor
    /// and `regs` determine are set by [`write()`], others kept.
    pub metadata: Msg,
}

/// What a code object holds.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CodeObject {
    /// The gfx1201 machine code (`.text`).
    pub code: Vec<u8>,
    /// Its functions, kernels included.
    pub functions: Vec<CodeFunction>,
    /// The kernels.
    pub kernels: Vec<CodeKernel>,
}

/// Why a code object could not be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HsacoError {
    /// A kernel names no function of the code.
    #[error("kernel {0}: no function of that name in the code")]
    NoFunction(String),
    /// A function reaches past the end of the code.
    #[error("function {0}: its byte range lies outside the code")]
    OutOfRange(String),
    /// Two functions (or two kernels) share a name.
    #[error("{0}: defined twice")]
    Duplicate(String),
    /// A kernel's metadata is not a map.
    #[error("kernel {0}: its metadata is not a MessagePack map")]
    MetadataNotMap(String),
    /// The code object would not fit 32-bit ELF fields (more than 4 GiB).
    #[error("the code object would exceed 4 GiB")]
    TooLarge,
}

/// Each HSA kernel's metadata map in the code object `bytes` (`amdhsa.kernels`), by kernel
/// name (`.symbol` without `.kd`, else `.name`); empty when there is no such note.
pub fn kernel_metadata(bytes: &[u8]) -> Vec<(String, Msg)> {
    let mut out = Vec::new();
    let Ok(file) = object::File::parse(bytes) else { return out };
    amdmeta::for_each_kernel_map(&file, |name, k| out.push((name.to_string(), Msg::from_value(k))));
    out
}

/// The metadata map of kernel `k` as written: `k.metadata` with the keys its descriptor and
/// register counts determine set, and the keys the format requires that it lacks filled with
/// LLVM's defaults (no arguments, kernarg alignment 8, at most 1024 work-items per group as
/// `amdgpu-flat-work-group-size` defaults to, no spills).
pub fn metadata_of(k: &CodeKernel) -> Result<Msg, HsacoError> {
    let mut m = k.metadata.clone();
    if !matches!(m, Msg::Map(_)) {
        return Err(HsacoError::MetadataNotMap(k.name.clone()));
    }
    let d = &k.descriptor;
    let int = |v: u32| Msg::Int(v as i128);
    m.set(".name", Msg::str(&k.name));
    m.set(".symbol", Msg::Str(format!("{}.kd", k.name)));
    m.set(".kernarg_segment_size", int(d.kernarg_size));
    m.set(".group_segment_fixed_size", int(d.group_segment_fixed_size));
    m.set(".private_segment_fixed_size", int(d.private_segment_fixed_size));
    m.set(".wavefront_size", int(if d.wave32() { 32 } else { 64 }));
    m.set(".sgpr_count", int(k.regs.sgprs));
    m.set(".vgpr_count", int(k.regs.vgprs));
    m.set(".uses_dynamic_stack", Msg::Bool(d.kernel_code_properties & (1 << 11) != 0));
    m.set(".workgroup_processor_mode", int(d.rsrc1 >> 29 & 1));
    m.set_default(".args", Msg::Array(Vec::new()));
    m.set_default(".kernarg_segment_align", int(8));
    m.set_default(".max_flat_workgroup_size", int(1024));
    m.set_default(".sgpr_spill_count", int(0));
    m.set_default(".vgpr_spill_count", int(0));
    Ok(m)
}

/// The `NT_AMDGPU_METADATA` note body of `o`.
pub fn metadata_note(o: &CodeObject) -> Result<Vec<u8>, HsacoError> {
    let kernels = o.kernels.iter().map(metadata_of).collect::<Result<Vec<_>, _>>()?;
    let root = Msg::Map(vec![
        (Msg::str("amdhsa.kernels"), Msg::Array(kernels)),
        (Msg::str("amdhsa.target"), Msg::str(TARGET)),
        (Msg::str("amdhsa.version"), Msg::Array(vec![Msg::Int(1), Msg::Int(2)])),
    ]);
    Ok(root.encode())
}

const PAGE: u64 = 0x1000;
const SHT_PROGBITS: u32 = 1;
const SHT_SYMTAB: u32 = 2;
const SHT_STRTAB: u32 = 3;
const SHT_HASH: u32 = 5;
const SHT_DYNAMIC: u32 = 6;
const SHT_NOTE: u32 = 7;
const SHT_DYNSYM: u32 = 11;
const SHF_WRITE: u64 = 1;
const SHF_ALLOC: u64 = 2;
const SHF_EXECINSTR: u64 = 4;
const PT_LOAD: u32 = 1;
const PT_DYNAMIC: u32 = 2;
const PT_NOTE: u32 = 4;
const PF_X: u32 = 1;
const PF_W: u32 = 2;
const PF_R: u32 = 4;
const STT_OBJECT: u8 = 1;
const STT_FUNC: u8 = 2;
const STB_LOCAL: u8 = 0;
const STB_GLOBAL: u8 = 1;
const STV_PROTECTED: u8 = 3;
const DT_NULL: u64 = 0;
const DT_HASH: u64 = 4;
const DT_STRTAB: u64 = 5;
const DT_SYMTAB: u64 = 6;
const DT_STRSZ: u64 = 10;
const DT_SYMENT: u64 = 11;
const NT_AMDGPU_METADATA: u32 = 32;

/// Section indices that other headers name; the sections are, in order: null, .note, .dynsym,
/// .hash, .dynstr, .rodata, .text, .dynamic, .symtab, .strtab, .shstrtab.
const SEC_DYNSYM: u16 = 2;
const SEC_DYNSTR: u16 = 4;
const SEC_RODATA: u16 = 5;
const SEC_TEXT: u16 = 6;
const SEC_STRTAB: u16 = 9;
const SEC_SHSTRTAB: u16 = 10;
const SECTIONS: u16 = 11;
const PHDRS: u64 = 5;

/// A string table under construction (offset 0 is the empty string).
struct Strings(Vec<u8>);

impl Strings {
    fn new() -> Self {
        Strings(vec![0])
    }
    fn add(&mut self, s: &str) -> u32 {
        let at = self.0.len() as u32;
        self.0.extend_from_slice(s.as_bytes());
        self.0.push(0);
        at
    }
}

/// One symbol before its name is placed in a string table.
struct Sym<'a> {
    name: &'a str,
    value: u64,
    size: u64,
    kind: u8,
    global: bool,
    section: u16,
}

fn sym_bytes(out: &mut Vec<u8>, name: u32, s: &Sym) {
    out.extend_from_slice(&name.to_le_bytes());
    let bind = if s.global { STB_GLOBAL } else { STB_LOCAL };
    out.push(bind << 4 | s.kind);
    out.push(if s.global { STV_PROTECTED } else { 0 });
    out.extend_from_slice(&s.section.to_le_bytes());
    out.extend_from_slice(&s.value.to_le_bytes());
    out.extend_from_slice(&s.size.to_le_bytes());
}

/// The SysV ELF hash of a symbol name.
fn elf_hash(name: &[u8]) -> u32 {
    let mut h: u32 = 0;
    for &c in name {
        h = (h << 4).wrapping_add(c as u32);
        let g = h & 0xf000_0000;
        if g != 0 {
            h ^= g >> 24;
        }
        h &= !g;
    }
    h
}

fn pad_to(out: &mut Vec<u8>, align: u64) {
    let n = (out.len() as u64).next_multiple_of(align);
    out.resize(n as usize, 0);
}

#[allow(clippy::too_many_arguments)]
fn shdr(out: &mut Vec<u8>, name: u32, ty: u32, flags: u64, addr: u64, off: u64, size: u64, link: u32, info: u32, align: u64, entsize: u64) {
    out.extend_from_slice(&name.to_le_bytes());
    out.extend_from_slice(&ty.to_le_bytes());
    out.extend_from_slice(&flags.to_le_bytes());
    out.extend_from_slice(&addr.to_le_bytes());
    out.extend_from_slice(&off.to_le_bytes());
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(&link.to_le_bytes());
    out.extend_from_slice(&info.to_le_bytes());
    out.extend_from_slice(&align.to_le_bytes());
    out.extend_from_slice(&entsize.to_le_bytes());
}

fn phdr(out: &mut Vec<u8>, ty: u32, flags: u32, off: u64, size: u64, memsize: u64, align: u64) {
    out.extend_from_slice(&ty.to_le_bytes());
    out.extend_from_slice(&flags.to_le_bytes());
    out.extend_from_slice(&off.to_le_bytes());
    out.extend_from_slice(&off.to_le_bytes());
    out.extend_from_slice(&off.to_le_bytes());
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(&memsize.to_le_bytes());
    out.extend_from_slice(&align.to_le_bytes());
}

/// The code object file of `o`.
pub fn write(o: &CodeObject) -> Result<Vec<u8>, HsacoError> {
    // Checks: names unique, ranges inside the code, kernels naming functions.
    for (i, f) in o.functions.iter().enumerate() {
        if o.functions[..i].iter().any(|g| g.name == f.name) {
            return Err(HsacoError::Duplicate(f.name.clone()));
        }
        if f.offset.checked_add(f.size).is_none_or(|e| e > o.code.len() as u64) {
            return Err(HsacoError::OutOfRange(f.name.clone()));
        }
    }
    for (i, k) in o.kernels.iter().enumerate() {
        if o.kernels[..i].iter().any(|g| g.name == k.name) {
            return Err(HsacoError::Duplicate(k.name.clone()));
        }
        if !o.functions.iter().any(|f| f.name == k.name) {
            return Err(HsacoError::NoFunction(k.name.clone()));
        }
    }
    let note_desc = metadata_note(o)?;
    let kd_names: Vec<String> = o.kernels.iter().map(|k| format!("{}.kd", k.name)).collect();
    let is_kernel = |n: &str| o.kernels.iter().any(|k| k.name == n);

    // Layout.
    let mut at = 64 + PHDRS * 56;
    let note_off = at.next_multiple_of(4);
    let note_size = 12 + 8 + (note_desc.len() as u64).next_multiple_of(4);
    at = note_off + note_size;
    let ndyn = 1 + 2 * o.kernels.len() as u64;
    let dynsym_off = at.next_multiple_of(8);
    at = dynsym_off + 24 * ndyn;
    let hash_off = at.next_multiple_of(4);
    at = hash_off + 4 * (2 + 2 * ndyn);
    let mut dynstr = Strings::new();
    let dyn_names: Vec<u32> = o.kernels.iter().zip(&kd_names).flat_map(|(k, kd)| [dynstr.add(&k.name), dynstr.add(kd)]).collect();
    let dynstr_off = at;
    at = dynstr_off + dynstr.0.len() as u64;
    let rodata_off = at.next_multiple_of(64);
    let rodata_size = (DESCRIPTOR_BYTES * o.kernels.len()) as u64;
    at = rodata_off + rodata_size;
    let text_off = at.next_multiple_of(PAGE);
    let text_size = o.code.len() as u64;
    at = text_off + text_size;
    let dynamic_off = at.next_multiple_of(PAGE);
    let dynamic_size = 16 * 6;
    if dynamic_off + dynamic_size > u32::MAX as u64 {
        return Err(HsacoError::TooLarge);
    }

    // Symbols: local functions, then each kernel and its descriptor (global).
    let mut syms: Vec<Sym> = Vec::new();
    for f in o.functions.iter().filter(|f| !is_kernel(&f.name)) {
        syms.push(Sym { name: &f.name, value: text_off + f.offset, size: f.size, kind: STT_FUNC, global: false, section: SEC_TEXT });
    }
    let first_global = 1 + syms.len() as u32;
    let mut globals: Vec<Sym> = Vec::new();
    for (i, (k, kd)) in o.kernels.iter().zip(&kd_names).enumerate() {
        let f = o.functions.iter().find(|f| f.name == k.name).ok_or_else(|| HsacoError::NoFunction(k.name.clone()))?;
        globals.push(Sym { name: &k.name, value: text_off + f.offset, size: f.size, kind: STT_FUNC, global: true, section: SEC_TEXT });
        let kd_addr = rodata_off + (i * DESCRIPTOR_BYTES) as u64;
        globals.push(Sym { name: kd, value: kd_addr, size: DESCRIPTOR_BYTES as u64, kind: STT_OBJECT, global: true, section: SEC_RODATA });
    }

    let mut out = Vec::with_capacity((dynamic_off + dynamic_size) as usize + 4096);
    // ELF header.
    out.extend_from_slice(&[0x7f, b'E', b'L', b'F', 2, 1, 1, ELFOSABI_AMDGPU_HSA, ELFABIVERSION_AMDGPU_HSA_V6, 0, 0, 0, 0, 0, 0, 0]);
    out.extend_from_slice(&3u16.to_le_bytes()); // ET_DYN
    out.extend_from_slice(&EM_AMDGPU.to_le_bytes());
    out.extend_from_slice(&1u32.to_le_bytes());
    out.extend_from_slice(&0u64.to_le_bytes()); // e_entry
    out.extend_from_slice(&64u64.to_le_bytes()); // e_phoff
    let shoff_at = out.len();
    out.extend_from_slice(&0u64.to_le_bytes()); // e_shoff, patched below
    out.extend_from_slice(&EF_AMDGPU_MACH_GFX1201.to_le_bytes());
    for v in [64u16, 56, PHDRS as u16, 64, SECTIONS, SEC_SHSTRTAB] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    // Program headers.
    phdr(&mut out, PT_LOAD, PF_R, 0, rodata_off + rodata_size, rodata_off + rodata_size, PAGE);
    phdr(&mut out, PT_LOAD, PF_R | PF_X, text_off, text_size, text_size, PAGE);
    phdr(&mut out, PT_LOAD, PF_R | PF_W, dynamic_off, dynamic_size, dynamic_size, PAGE);
    phdr(&mut out, PT_DYNAMIC, PF_R | PF_W, dynamic_off, dynamic_size, dynamic_size, 8);
    phdr(&mut out, PT_NOTE, PF_R, note_off, note_size, note_size, 4);
    // .note
    pad_to(&mut out, 4);
    out.extend_from_slice(&7u32.to_le_bytes());
    out.extend_from_slice(&(note_desc.len() as u32).to_le_bytes());
    out.extend_from_slice(&NT_AMDGPU_METADATA.to_le_bytes());
    out.extend_from_slice(b"AMDGPU\0\0");
    out.extend_from_slice(&note_desc);
    pad_to(&mut out, 4);
    // .dynsym
    pad_to(&mut out, 8);
    out.extend_from_slice(&[0u8; 24]);
    for (s, n) in globals.iter().zip(&dyn_names) {
        sym_bytes(&mut out, *n, s);
    }
    // .hash: one bucket per symbol.
    pad_to(&mut out, 4);
    let mut buckets = vec![0u32; ndyn as usize];
    let mut chains = vec![0u32; ndyn as usize];
    for (i, s) in globals.iter().enumerate() {
        let idx = i as u32 + 1;
        let b = (elf_hash(s.name.as_bytes()) % ndyn as u32) as usize;
        chains[idx as usize] = buckets[b];
        buckets[b] = idx;
    }
    for v in [ndyn as u32, ndyn as u32].iter().chain(&buckets).chain(&chains) {
        out.extend_from_slice(&v.to_le_bytes());
    }
    // .dynstr
    out.extend_from_slice(&dynstr.0);
    // .rodata
    pad_to(&mut out, 64);
    for (i, k) in o.kernels.iter().enumerate() {
        let f = o.functions.iter().find(|f| f.name == k.name).ok_or_else(|| HsacoError::NoFunction(k.name.clone()))?;
        let kd_addr = rodata_off + (i * DESCRIPTOR_BYTES) as u64;
        let entry = (text_off + f.offset) as i64 - kd_addr as i64;
        out.extend_from_slice(&k.descriptor.encode(entry));
    }
    // .text
    pad_to(&mut out, PAGE);
    out.extend_from_slice(&o.code);
    // .dynamic
    pad_to(&mut out, PAGE);
    for (tag, v) in [
        (DT_HASH, hash_off),
        (DT_SYMTAB, dynsym_off),
        (DT_STRTAB, dynstr_off),
        (DT_STRSZ, dynstr.0.len() as u64),
        (DT_SYMENT, 24),
        (DT_NULL, 0),
    ] {
        out.extend_from_slice(&tag.to_le_bytes());
        out.extend_from_slice(&v.to_le_bytes());
    }
    debug_assert_eq!(out.len() as u64, dynamic_off + dynamic_size);
    // .symtab and .strtab
    pad_to(&mut out, 8);
    let symtab_off = out.len() as u64;
    let mut strtab = Strings::new();
    out.extend_from_slice(&[0u8; 24]);
    for s in syms.iter().chain(&globals) {
        let n = strtab.add(s.name);
        sym_bytes(&mut out, n, s);
    }
    let symtab_size = out.len() as u64 - symtab_off;
    let strtab_off = out.len() as u64;
    out.extend_from_slice(&strtab.0);
    // .shstrtab
    let mut shstr = Strings::new();
    let names: Vec<u32> = [".note", ".dynsym", ".hash", ".dynstr", ".rodata", ".text", ".dynamic", ".symtab", ".strtab", ".shstrtab"]
        .iter()
        .map(|n| shstr.add(n))
        .collect();
    let shstr_off = out.len() as u64;
    out.extend_from_slice(&shstr.0);
    // Section headers.
    pad_to(&mut out, 8);
    let shoff = out.len() as u64;
    if shoff + SECTIONS as u64 * 64 > u32::MAX as u64 {
        return Err(HsacoError::TooLarge);
    }
    out[shoff_at..shoff_at + 8].copy_from_slice(&shoff.to_le_bytes());
    shdr(&mut out, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    shdr(&mut out, names[0], SHT_NOTE, SHF_ALLOC, note_off, note_off, note_size, 0, 0, 4, 0);
    shdr(&mut out, names[1], SHT_DYNSYM, SHF_ALLOC, dynsym_off, dynsym_off, 24 * ndyn, SEC_DYNSTR as u32, 1, 8, 24);
    shdr(&mut out, names[2], SHT_HASH, SHF_ALLOC, hash_off, hash_off, 4 * (2 + 2 * ndyn), SEC_DYNSYM as u32, 0, 4, 4);
    shdr(&mut out, names[3], SHT_STRTAB, SHF_ALLOC, dynstr_off, dynstr_off, dynstr.0.len() as u64, 0, 0, 1, 0);
    shdr(&mut out, names[4], SHT_PROGBITS, SHF_ALLOC, rodata_off, rodata_off, rodata_size, 0, 0, 64, 0);
    shdr(&mut out, names[5], SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, text_off, text_off, text_size, 0, 0, 256, 0);
    shdr(&mut out, names[6], SHT_DYNAMIC, SHF_ALLOC | SHF_WRITE, dynamic_off, dynamic_off, dynamic_size, SEC_DYNSTR as u32, 0, 8, 16);
    shdr(&mut out, names[7], SHT_SYMTAB, 0, 0, symtab_off, symtab_size, SEC_STRTAB as u32, first_global, 8, 24);
    shdr(&mut out, names[8], SHT_STRTAB, 0, 0, strtab_off, strtab.0.len() as u64, 0, 0, 1, 0);
    shdr(&mut out, names[9], SHT_STRTAB, 0, 0, shstr_off, shstr.0.len() as u64, 0, 0, 1, 0);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sysv_hash_of_known_names() {
        // Values of the System V ABI hash function ("printf" is the classic example).
        assert_eq!(elf_hash(b""), 0);
        assert_eq!(elf_hash(b"printf"), 0x0779_05a6);
    }

    #[test]
    fn errors_are_typed() {
        let f = |name: &str, offset, size| CodeFunction { name: name.into(), offset, size };
        let k = |name: &str| CodeKernel {
            name: name.into(),
            descriptor: KernelDescriptor::default(),
            regs: RegisterCounts::default(),
            metadata: Msg::Map(Vec::new()),
        };
        let o = CodeObject { code: vec![0; 8], functions: vec![f("a", 0, 16)], kernels: vec![] };
        assert_eq!(write(&o), Err(HsacoError::OutOfRange("a".into())));
        let o = CodeObject { code: vec![0; 8], functions: vec![f("a", 0, 4), f("a", 4, 4)], kernels: vec![] };
        assert_eq!(write(&o), Err(HsacoError::Duplicate("a".into())));
        let o = CodeObject { code: vec![0; 8], functions: vec![f("a", 0, 4)], kernels: vec![k("b")] };
        assert_eq!(write(&o), Err(HsacoError::NoFunction("b".into())));
        let mut bad = k("a");
        bad.metadata = Msg::Nil;
        let o = CodeObject { code: vec![0; 8], functions: vec![f("a", 0, 4)], kernels: vec![bad] };
        assert_eq!(write(&o), Err(HsacoError::MetadataNotMap("a".into())));
        let o = CodeObject { code: vec![0; 8], functions: vec![f("a", 0, 8)], kernels: vec![k("a")] };
        assert!(write(&o).is_ok());
    }
}
