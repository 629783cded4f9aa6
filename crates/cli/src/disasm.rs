//! `isabridge disasm`.

use isabridge_decoder::disasm::{disassemble, Line};
use isabridge_decoder::elf::{self, Label};
use isabridge_decoder::Isa;
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `isabridge disasm`.
#[derive(clap::Args)]
pub struct Args {
    /// Code object (ELF) or raw instruction dump.
    file: PathBuf,
    /// ISA of a raw dump (gfx1013 or gfx1201); for ELF files it must match the header.
    #[arg(long, value_parser = parse_isa)]
    isa: Option<Isa>,
    /// One JSON object per instruction: function, offset, bytes, text.
    #[arg(long)]
    json: bool,
}

fn parse_isa(s: &str) -> Result<Isa, String> {
    Isa::from_name(s).ok_or_else(|| {
        let all: Vec<_> = Isa::ALL.iter().map(|i| i.name()).collect();
        format!("unknown ISA {s:?}; expected one of {}", all.join(", "))
    })
}

/// Runs the command; the error is one line for stderr.
pub fn run(a: &Args) -> Result<(), String> {
    let path = a.file.display();
    let bytes = std::fs::read(&a.file).map_err(|e| format!("{path}: {e}"))?;
    let (isa, sections) = if elf::is_elf(&bytes) {
        let obj = elf::read(&bytes).map_err(|e| format!("{path}: {e}"))?;
        if let Some(want) = a.isa {
            if want != obj.isa {
                return Err(format!("{path}: the ELF header says {}, not {want}", obj.isa));
            }
        }
        (obj.isa, obj.sections.into_iter().map(|s| (s.name, s.address, s.data, s.labels)).collect())
    } else {
        let isa = a.isa.ok_or_else(|| format!("{path}: not an ELF file; give --isa for a raw dump"))?;
        (isa, vec![("raw".to_string(), 0u64, bytes, Vec::<Label>::new())])
    };
    let plugin = isa.plugin();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut io_err: Option<std::io::Error> = None;
    for (name, addr, data, labels) in &sections {
        if !a.json {
            let _ = writeln!(out, "\nDisassembly of section {name}:");
        }
        let mut last_fn: Option<String> = None;
        let mut emit = |l: &Line<'_>| {
            let r = if a.json {
                write_json(&mut out, l)
            } else {
                if last_fn.as_deref() != Some(l.function) {
                    last_fn = Some(l.function.to_string());
                    let _ = writeln!(out, "\n{:016x} <{}>:", addr + l.offset, l.function);
                }
                write_text(&mut out, l)
            };
            if let Err(e) = r {
                io_err.get_or_insert(e);
            }
        };
        disassemble(plugin, data, *addr, name, labels, &mut emit).map_err(|e| format!("{path}: {e}"))?;
    }
    out.flush().map_err(|e| e.to_string())?;
    match io_err {
        Some(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.to_string()),
        _ => Ok(()),
    }
}

fn write_text(out: &mut impl Write, l: &Line<'_>) -> std::io::Result<()> {
    let mut hex = String::with_capacity(l.bytes.len() / 4 * 9);
    for (i, c) in l.bytes.chunks(4).enumerate() {
        if i > 0 {
            hex.push(' ');
        }
        let w = u32::from_le_bytes([c[0], c.get(1).copied().unwrap_or(0), c.get(2).copied().unwrap_or(0), c.get(3).copied().unwrap_or(0)]);
        hex.push_str(&format!("{w:08X}"));
    }
    writeln!(out, "  {:8x}: {:<60} {}", l.offset, l.text, hex)
}

fn write_json(out: &mut impl Write, l: &Line<'_>) -> std::io::Result<()> {
    let mut hex = String::with_capacity(l.bytes.len() * 2);
    for b in l.bytes {
        hex.push_str(&format!("{b:02x}"));
    }
    let obj = serde_json::json!({
        "function": l.function,
        "offset": l.offset,
        "bytes": hex,
        "text": l.text,
    });
    writeln!(out, "{obj}")
}
