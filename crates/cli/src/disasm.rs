//! `isabridge disasm`.

use crate::input::Input;
use crate::listing::listing_sections;
use isabridge_decoder::disasm::{disassemble, write_line, Line};
use isabridge_decoder::elf::{self, Label};
use isabridge_decoder::{Isa, IsaPlugin};
use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `isabridge disasm`.
#[derive(clap::Args)]
pub struct Args {
    /// Code object (ELF) or raw instruction dump.
    pub file: PathBuf,
    /// ISA of a raw dump (gfx1013, gfx1201, sm50 or sm86); for ELF files it must match the header.
    #[arg(long, value_parser = parse_isa)]
    pub isa: Option<Isa>,
    /// One JSON object per instruction: function, offset, bytes, text.
    #[arg(long)]
    pub json: bool,
    /// NVIDIA: show each instruction's scheduling fields (stall, yield, write/read barrier, wait
    /// mask, reuse); in JSON as a `control` object.
    #[arg(long)]
    pub control: bool,
    /// NVIDIA cubins: list in llvm-objdump's layout (a function header where the function
    /// changes, then per instruction the text, offset and encoding words, branch targets as
    /// addresses) instead of nvdisasm's cubin listing (`nvdisasm -c -hex`, the default).
    #[arg(long)]
    pub objdump_layout: bool,
}

pub fn parse_isa(s: &str) -> Result<Isa, String> {
    Isa::from_name(s).ok_or_else(|| {
        let all: Vec<_> = Isa::ALL.iter().map(|i| i.name()).collect();
        format!("unknown ISA {s:?}; expected one of {}", all.join(", "))
    })
}

/// A code section: name, address, bytes, labels.
type Section<'a> = (&'a str, u64, &'a [u8], Vec<Label<'a>>);

/// Runs the command; the error is one line for stderr.
pub fn run(a: &Args) -> Result<(), String> {
    let path = a.file.display();
    // The one input of this process: its mapping is left for the exit to take down (unmapping
    // it costs a TLB shootdown across the CPUs the listing ran on).
    let input = std::mem::ManuallyDrop::new(Input::open(&a.file).map_err(|e| format!("{path}: {e}"))?);
    let bytes = input.bytes();
    let is_elf = elf::is_elf(bytes);
    let (isa, sections): (Isa, Vec<Section<'_>>) = if is_elf {
        let (isa, sections) = elf::parse(bytes).map_err(|e| format!("{path}: {e}"))?;
        if let Some(want) = a.isa {
            if want != isa {
                return Err(format!("{path}: the ELF header says {isa}, not {want}"));
            }
        }
        (isa, sections.into_iter().map(|s| (s.name, s.address, s.data, s.labels)).collect())
    } else {
        let isa = a.isa.ok_or_else(|| format!("{path}: not an ELF file; give --isa for a raw dump"))?;
        (isa, vec![("raw", 0u64, bytes, Vec::<Label>::new())])
    };
    let plugin = isa.plugin();
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    let format = match (is_elf, isa) {
        (false, _) => "binary",
        (true, Isa::Sm50 | Isa::Sm86) => "elf64-cuda",
        (true, _) => "elf64-amdgpu",
    };
    if is_elf && matches!(isa, Isa::Sm50 | Isa::Sm86) && !a.json && !a.control && !a.objdump_layout {
        return nv_cubin(plugin, bytes, &path.to_string());
    }
    if !a.json && !a.control {
        // The listing comes in pieces of about 16 KiB, each written at once.
        let mut io_err: Option<std::io::Error> = None;
        let mut flush = |b: &[u8]| {
            if io_err.is_none() && !b.is_empty() {
                if let Err(e) = lock.write_all(b) {
                    io_err = Some(e);
                }
            }
        };
        flush(format!("\n{path}:\tfile format {format}\n").as_bytes());
        let result = listing_sections(plugin, &sections, &mut flush);
        if let Err(e) = lock.flush() {
            io_err.get_or_insert(e);
        }
        result.map_err(|e| format!("{path}: {e}"))?;
        warn_cut_off(plugin, &sections, &path.to_string());
        return match io_err {
            Some(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.to_string()),
            _ => Ok(()),
        };
    }
    let mut out = std::io::BufWriter::with_capacity(1 << 16, lock);
    let mut io_err: Option<std::io::Error> = None;
    if !a.json {
        let _ = writeln!(out, "\n{path}:\tfile format {format}");
    }
    for (name, addr, data, labels) in &sections {
        if !a.json {
            let _ = writeln!(out, "\nDisassembly of section {name}:");
        }
        let mut last_fn: Option<String> = None;
        let mut emit = |l: &Line<'_>| {
            let r = if a.json {
                write_json(&mut out, l, a.control)
            } else {
                // --control: the scheduling fields after the text, in the text column.
                if last_fn.as_deref() != Some(l.function) {
                    last_fn = Some(l.function.to_string());
                    let _ = writeln!(out, "\n{:016x} <{}>:", addr + l.offset, l.function);
                }
                let (text, note) = match l.control {
                    Some(c) => (format!("{:<59}// {c}", l.text), String::new()),
                    None => {
                        let mut note = branch_comment(plugin, l, *addr, name, labels).unwrap_or_default();
                        if !l.note.is_empty() {
                            note.push_str(" ; ");
                            note.push_str(l.note);
                        }
                        (l.text.to_string(), note)
                    }
                };
                let mut line = Vec::with_capacity(128);
                write_line(&mut line, &text, addr + l.offset, l.bytes, &note);
                out.write_all(&line)
            };
            if let Err(e) = r {
                io_err.get_or_insert(e);
            }
        };
        disassemble(plugin, data, *addr, name, labels, &mut emit).map_err(|e| format!("{path}: {e}"))?;
    }
    out.flush().map_err(|e| e.to_string())?;
    warn_cut_off(plugin, &sections, &path.to_string());
    match io_err {
        Some(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.to_string()),
        _ => Ok(()),
    }
}

/// nvdisasm's listing of a cubin (`nvdisasm -c -hex`) on stdout.
fn nv_cubin(plugin: &dyn IsaPlugin, bytes: &[u8], path: &str) -> Result<(), String> {
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    let mut io_err: Option<std::io::Error> = None;
    let mut flush = |b: &[u8]| {
        if io_err.is_none() && !b.is_empty() {
            if let Err(e) = lock.write_all(b) {
                io_err = Some(e);
            }
        }
    };
    let result = crate::listing::cubin_listing(plugin, bytes, &mut flush);
    if let Err(e) = lock.flush() {
        io_err.get_or_insert(e);
    }
    result.map_err(|e| format!("{path}: {e}"))?;
    match io_err {
        Some(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.to_string()),
        _ => Ok(()),
    }
}

/// A warning on stderr for each AMD section whose last instruction is cut off by its end (the
/// listing shows its bytes as `.long` / `.byte`, as llvm-objdump-22 does without a word).
fn warn_cut_off(plugin: &dyn IsaPlugin, sections: &[Section<'_>], path: &str) {
    for (_, addr, data, labels) in sections {
        if let Some(e) = isabridge_decoder::disasm::cut_off(plugin, data, *addr, labels) {
            eprintln!("isabridge: warning: {path}: {e} (listed as .long / .byte)");
        }
    }
}

/// llvm-objdump's ` <symbol+0xoff>` note after a direct branch: the symbol at or before the
/// target in the same section.
fn branch_comment(plugin: &dyn IsaPlugin, l: &Line<'_>, base: u64, section: &str, labels: &[Label]) -> Option<String> {
    if !l.decoded {
        return None;
    }
    let pc = base + l.offset;
    let d = plugin.decode(l.bytes, pc).ok()?;
    let target = isabridge_decoder::disasm::listed_target(plugin, &d, pc)?.checked_sub(base)?;
    let (name, start) = match labels.iter().rev().find(|x| x.offset <= target) {
        Some(x) => (&*x.name, x.offset),
        None => (section, 0),
    };
    Some(if target == start { format!(" <{name}>") } else { format!(" <{name}+0x{:x}>", target - start) })
}

/// One JSON object, keys in a fixed order: function, offset, bytes, text.
fn write_json(out: &mut impl Write, l: &Line<'_>, control: bool) -> std::io::Result<()> {
    let mut hex = String::with_capacity(l.bytes.len() * 2);
    for b in l.bytes {
        let _ = write!(hex, "{b:02x}");
    }
    let function = serde_json::to_string(l.function).unwrap_or_default();
    let text = serde_json::to_string(l.text).unwrap_or_default();
    match l.control.filter(|_| control) {
        Some(c) => writeln!(
            out,
            "{{\"function\":{function},\"offset\":{},\"bytes\":\"{hex}\",\"text\":{text},\"control\":{{\"stall\":{},\"yield\":{},\"wrbar\":{},\"rdbar\":{},\"wait\":{},\"reuse\":{}}}}}",
            l.offset, c.stall, c.yield_ as u8, c.wrbar, c.rdbar, c.wait, c.reuse
        ),
        None => writeln!(out, "{{\"function\":{function},\"offset\":{},\"bytes\":\"{hex}\",\"text\":{text}}}", l.offset),
    }
}
