//! nvdisasm 12.8's listing of a cubin (`nvdisasm -c -hex`), byte for byte: the ELF header's
//! flags and type, a banner and directives per code section, the function symbols' `.global`
//! / `.weak`, `.type`, `.size` and `.other` lines, `/*offset*/` before each instruction and
//! its encoding after it in a column as wide as the file's longest line needs, branch targets
//! as labels (`.L_x_N`, or the function symbol at the target), the indirect branches of
//! `EIATTR_INDIRECT_BRANCH_TARGETS` with their targets in a note, relocated operands by
//! symbol name and, on sm_50, each bundle's control word on a line of its own and dual-issued
//! pairs in braces.
//!
//! Labels are numbered as nvdisasm numbers them: first the direct branch targets, in the order
//! of the first instruction naming each (sections in file order); then, for each indirect
//! branch of each section, one number for the branch and one per target; then one number per
//! function symbol (symbol table order) for the end its `.size` names. A number is used up
//! even where the place already has a label, which keeps the one it has.

use super::cubin_elf::{CodeSection, Cubin};
use isabridge_decoder::disasm::disassemble_with_printer;
use isabridge_decoder::nvidia::model::relative_target;
use isabridge_decoder::nvidia::NvPrinter;
use isabridge_decoder::{DecodeError, Isa, IsaPlugin};

/// Column where the instruction text starts (after `/*offset*/`, the brace and the guard).
const TEXT_AT: usize = 35;
/// No label at a place.
const NONE: u32 = u32::MAX;

/// One instruction of a section.
struct Ins {
    /// Offset in the section.
    off: u64,
    /// The guard (`@!P0`) and the rest of the text in `Sec::text`.
    guard: (u32, u32),
    rest: (u32, u32),
    /// Printed with `;` right after the text (no stall and no yield) rather than ` ;`.
    tight: bool,
    /// sm_50 dual issue: 1 = first of a pair, 2 = second.
    pair: u8,
    /// The direct branch target (an offset in the section) the text names.
    target: Option<u64>,
    /// The relocated symbol the last operand names.
    reloc: Option<usize>,
}

/// A section being listed.
struct Sec<'a, 'c> {
    s: &'c CodeSection<'a>,
    text: String,
    ins: Vec<Ins>,
    /// Label number at each place (offset / 8; the last entry is the section's end).
    labels: Vec<u32>,
    /// Notes of indirect branches: (instruction offset, note).
    notes: Vec<(u64, String)>,
    /// Offsets of the second instructions of dual-issued pairs, ascending.
    second: Vec<u64>,
    /// The text after the guard as printed (targets named), each a range of `fin`.
    fin: String,
    fin_at: Vec<(u32, u32)>,
}

impl Sec<'_, '_> {
    fn str(&self, r: (u32, u32)) -> &str {
        &self.text[r.0 as usize..(r.0 + r.1) as usize]
    }
    /// The place of offset `a` (see [`place`]).
    fn place(&self, sm50: bool, a: u64) -> usize {
        place(sm50, &|x| self.second.binary_search(&x).is_ok(), a)
    }
    /// Instruction `k`'s text after the guard as printed.
    fn rest(&self, k: usize) -> &str {
        let r = self.fin_at[k];
        &self.fin[r.0 as usize..(r.0 + r.1) as usize]
    }
}

/// Where nvdisasm prints what belongs to offset `a`: sm_50 prints the labels of a bundle's
/// first instruction before the bundle's control word, and those of a dual-issued pair's second
/// instruction before the pair; the place is the offset of that line, over 8.
fn place(sm50: bool, pair_second: &dyn Fn(u64) -> bool, a: u64) -> usize {
    let mut a = a;
    if sm50 {
        if pair_second(a) {
            a -= if a % 32 == 8 { 16 } else { 8 };
        }
        if a % 32 == 8 {
            a -= 8;
        }
    }
    (a / 8) as usize
}

/// Writes nvdisasm's listing of cubin `bytes` (ISA of `plugin`) to `flush`.
pub(crate) fn cubin_listing(plugin: &dyn IsaPlugin, bytes: &[u8], flush: &mut dyn FnMut(&[u8])) -> Result<(), String> {
    let cubin = Cubin::parse(bytes).ok_or("malformed ELF file")?;
    let sm50 = plugin.isa() == Isa::Sm50;
    let mut secs = decode_all(plugin, &cubin.code).map_err(|e| e.to_string())?;
    // Function symbols by section: (value, symbol index), in symbol table order.
    let funcs_in = |index: usize| cubin.funcs.iter().enumerate().filter(move |(_, f)| f.section == index);
    let symbol_at = |index: usize, a: u64| funcs_in(index).find(|(_, f)| f.value == a).map(|(k, _)| k);
    let mut next = 0u32;
    // Direct branch targets.
    for sec in &mut secs {
        let size = sec.s.data.len() as u64;
        let targets: Vec<u64> = sec.ins.iter().filter_map(|i| i.target).collect();
        for t in targets {
            if t > size || symbol_at(sec.s.index, t).is_some() {
                continue;
            }
            let p = sec.place(sm50, t);
            if sec.labels[p] == NONE {
                sec.labels[p] = next;
                next += 1;
            }
        }
    }
    // Indirect branches and their targets.
    for sec in &mut secs {
        let second = sec.second.clone();
        let size = sec.s.data.len() as u64;
        let indirect = sec.s.indirect.clone();
        for (at, kind, targets) in indirect {
            let mut take = |a: u64, labels: &mut Vec<u32>| -> Option<u32> {
                let n = next;
                next += 1;
                if a > size {
                    return None;
                }
                let p = place(sm50, &|x| second.binary_search(&x).is_ok(), a);
                if labels[p] == NONE {
                    labels[p] = n;
                }
                Some(labels[p])
            };
            take(at, &mut sec.labels);
            let names: Vec<String> = targets.iter().filter_map(|&t| take(t, &mut sec.labels)).map(|n| format!(".L_x_{n}")).collect();
            let note = if kind == 1 && names.is_empty() { "(*\"INDIRECT_CALL\"*)".to_string() } else { format!("(*\"BRANCH_TARGETS {}\"*)", names.join(",")) };
            sec.notes.push((at, note));
        }
        sec.notes.sort_by_key(|n| n.0);
    }
    // Function ends: a symbol starting there (sm_50: not at a bundle's control word), else a label.
    let mut ends: Vec<String> = Vec::with_capacity(cubin.funcs.len());
    for f in &cubin.funcs {
        let n = next;
        next += 1;
        let end = f.value.wrapping_add(f.size);
        let Some(sec) = secs.iter_mut().find(|s| s.s.index == f.section) else {
            ends.push(String::new());
            continue;
        };
        if !(sm50 && end % 32 == 0) {
            if let Some(k) = symbol_at(f.section, end) {
                ends.push(cubin.funcs[k].name.to_string());
                continue;
            }
        }
        if end > sec.s.data.len() as u64 {
            ends.push(format!("0x{end:x}"));
            continue;
        }
        let p = sec.place(sm50, end);
        if sec.labels[p] == NONE {
            sec.labels[p] = n;
        }
        ends.push(format!(".L_x_{}", sec.labels[p]));
    }
    for sec in &mut secs {
        let mut fin = String::with_capacity(sec.text.len() + sec.text.len() / 8);
        let mut fin_at = Vec::with_capacity(sec.ins.len());
        for i in &sec.ins {
            let at = fin.len() as u32;
            final_rest(&mut fin, sec, i, &cubin, sm50);
            fin_at.push((at, fin.len() as u32 - at));
        }
        sec.fin = fin;
        sec.fin_at = fin_at;
    }
    // The widths: the text column of notes and the encoding column.
    let mut text_w = 0usize;
    for sec in &secs {
        for (k, i) in sec.ins.iter().enumerate() {
            let rest = sec.rest(k);
            let guard = if i.guard.1 > 0 { i.guard.1 as usize + 1 } else { 0 };
            text_w = text_w.max(guard + rest.len() + if i.tight && i.pair != 2 { 1 } else { 2 });
        }
    }
    let mut code_w = text_w + 2;
    for sec in &secs {
        for (k, i) in sec.ins.iter().enumerate() {
            let guard = if i.guard.1 > 0 { i.guard.1 as usize + 1 } else { 0 };
            let close = i.pair == 2;
            match sec.notes.binary_search_by_key(&i.off, |n| n.0) {
                Ok(k) => code_w = code_w.max(text_w + sec.notes[k].1.len() + if close { 10 } else { 2 }),
                Err(_) if close => code_w = code_w.max(guard + sec.rest(k).len() + 10),
                Err(_) => {}
            }
        }
    }
    let mut out: Vec<u8> = Vec::with_capacity(1 << 16);
    header(&mut out, cubin.e_type, cubin.e_flags);
    for sec in &secs {
        write_section(&mut out, sec, &cubin, &ends, sm50, text_w, TEXT_AT + code_w, flush);
        flush(&out);
        out.clear();
    }
    if !cubin.undefined.is_empty() {
        out.extend_from_slice(b"\n\n//--------------------- SYMBOLS --------------------------\n\n");
        for (name, kind, size) in &cubin.undefined {
            let kind = if *kind == 2 { "function" } else { "object" };
            out.extend_from_slice(format!("\t.type\t\t{name},@{kind}\n\t.size\t\t{name},0x{size:x}\n").as_bytes());
        }
    }
    flush(&out);
    Ok(())
}

/// A run of decoded instructions of one section: their texts back to back and the records.
type Part = (String, Vec<Ins>);

/// Decodes bytes `from..to` of a section (whole instructions; sm_50: whole bundles): each
/// instruction's text split at its guard, its scheduling facts (`;` without a space, sm_50 dual
/// issue marks) and its direct branch target. Printed through `printer`.
fn decode_part(plugin: &dyn IsaPlugin, printer: &mut NvPrinter, s: &CodeSection<'_>, from: usize, to: usize) -> Result<Part, DecodeError> {
    let isa = plugin.isa();
    let data = s.data;
    let code = data.get(from..to).unwrap_or(&[]);
    let mut text = String::with_capacity(code.len() * 4);
    let mut ins: Vec<Ins> = Vec::with_capacity(code.len() / 8);
    let word = |o: usize| data.get(o..o + 8).map_or(0, |b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])));
    disassemble_with_printer(plugin, printer, code, from as u64, s.name, &[], |l| {
        let off = from as u64 + l.offset;
        let t = l.text;
        let at = text.len() as u32;
        let (guard, rest) = match t.as_bytes().first() {
            Some(b'@') => match t.bytes().position(|c| c == b' ') {
                Some(sp) => (&t[..sp], &t[sp + 1..]),
                None => ("", t),
            },
            _ => ("", t),
        };
        text.push_str(guard);
        text.push_str(rest);
        // nvdisasm's text of an infinite or not-a-number float operand ends in a space.
        let special_float = matches!(rest.as_bytes().last(), Some(b'F' | b'N')) && ["INF", "QNAN", "SNAN"].iter().any(|x| rest.ends_with(x));
        if special_float {
            text.push(' ');
        }
        let rest_len = (rest.len() + usize::from(special_float)) as u32;
        // Stall and yield bits of the instruction's scheduling fields.
        let ctrl = if isa == Isa::Sm50 {
            let o = off as usize;
            let slot = ((o % 32) / 8).saturating_sub(1);
            (word(o - o % 32) >> (21 * slot)) & 0x1f_ffff
        } else {
            (word(off as usize + 8) >> 41) & 0x1f
        };
        let m = rest.bytes().position(|c| c == b'.' || c == b' ').unwrap_or(rest.len());
        let mnem = &rest[..m];
        let relative = l.decoded && {
            let rel = isa == Isa::Sm86 && matches!(mnem, "CALL" | "RET") && rest[m..].split(' ').next().is_some_and(|x| x.contains(".REL"));
            relative_target(isa, mnem, rel).is_some()
        };
        let target = if relative {
            rest.rfind("0x").and_then(|p| u64::from_str_radix(rest[p + 2..].split(|c: char| !c.is_ascii_hexdigit()).next().unwrap_or(""), 16).ok())
        } else {
            None
        };
        let reloc = if s.relocs.is_empty() { None } else { s.relocs.iter().position(|r| r.0 >= off && r.0 < off + l.bytes.len() as u64) };
        ins.push(Ins {
            off,
            guard: (at, guard.len() as u32),
            rest: (at + guard.len() as u32, rest_len),
            tight: ctrl & 0x1f == 0,
            pair: u8::from(isa == Isa::Sm50 && ctrl & 0x1f == 0x10),
            target,
            reloc,
        });
    })?;
    Ok((text, ins))
}

/// A section from its decoded parts, in order: dual-issued pairs marked (an instruction marked
/// for dual issue and the one after it).
fn finish_section<'a, 'c>(s: &'c CodeSection<'a>, parts: Vec<Part>) -> Sec<'a, 'c> {
    let mut parts = parts.into_iter();
    let (mut text, mut ins) = parts.next().unwrap_or_default();
    for (t, v) in parts {
        let shift = text.len() as u32;
        text.push_str(&t);
        ins.extend(v.into_iter().map(|mut i| {
            i.guard.0 += shift;
            i.rest.0 += shift;
            i
        }));
    }
    let mut k = 0;
    while k < ins.len() {
        if ins[k].pair == 1 && k + 1 < ins.len() {
            ins[k + 1].pair = 2;
            k += 2;
        } else {
            ins[k].pair = 0;
            k += 1;
        }
    }
    let second = ins.iter().filter(|i| i.pair == 2).map(|i| i.off).collect();
    Sec { s, text, labels: vec![NONE; s.data.len() / 8 + 1], ins, notes: Vec::new(), second, fin: String::new(), fin_at: Vec::new() }
}

/// Decodes every code section; from [`SPLIT_MIN`] bytes of code on, a second thread decodes
/// the second half (cut at an instruction boundary, sm_50: a bundle boundary).
fn decode_all<'a, 'c>(plugin: &dyn IsaPlugin, code: &'c [CodeSection<'a>]) -> Result<Vec<Sec<'a, 'c>>, DecodeError> {
    let unit = if plugin.isa() == Isa::Sm50 { 32 } else { plugin.unit().max(1) };
    let total: usize = code.iter().map(|s| s.data.len()).sum();
    // Where the cut falls: (section, offset in it).
    let mut cut = (code.len(), 0usize);
    if total >= SPLIT_MIN && code.iter().all(|s| s.data.len() % unit == 0) {
        let mut before = 0usize;
        for (i, s) in code.iter().enumerate() {
            if before + s.data.len() > total / 2 {
                cut = (i, (total / 2 - before).div_ceil(unit) * unit);
                break;
            }
            before += s.data.len();
        }
    }
    let (cs, co) = cut;
    // The parts of each half: (section, from, to).
    let first: Vec<(usize, usize, usize)> = code.iter().enumerate().take(cs + 1).filter_map(|(i, s)| {
        let to = if i == cs { co.min(s.data.len()) } else { s.data.len() };
        (to > 0).then_some((i, 0, to))
    }).collect();
    let second: Vec<(usize, usize, usize)> = code.iter().enumerate().skip(cs).filter_map(|(i, s)| {
        let from = if i == cs { co.min(s.data.len()) } else { 0 };
        (from < s.data.len()).then_some((i, from, s.data.len()))
    }).collect();
    // Each thread prints through a printer of its own. Neither uses templates from the start
    // (`NvPrinter::eager_templates`): on the bundled cubins, with at most a few thousand
    // instructions a thread, they cost more prints than they save.
    let run = |printer: &mut NvPrinter, parts: &[(usize, usize, usize)]| -> Result<Vec<(usize, Part)>, DecodeError> {
        parts.iter().map(|&(i, f, t)| decode_part(plugin, printer, &code[i], f, t).map(|p| (i, p))).collect()
    };
    let mut printer = NvPrinter::new();
    let (a, b) = if second.is_empty() || first.is_empty() {
        printer.expect_instructions(total / plugin.unit().max(1));
        (run(&mut printer, &first)?, run(&mut printer, &second)?)
    } else {
        std::thread::scope(|scope| {
            let helper = scope.spawn(|| run(&mut NvPrinter::new(), &second));
            let a = run(&mut printer, &first);
            let b = helper.join().unwrap_or_else(|_| run(&mut printer, &second));
            Ok::<_, DecodeError>((a?, b?))
        })?
    };
    let mut by_section: Vec<Vec<Part>> = code.iter().map(|_| Vec::new()).collect();
    for (i, p) in a.into_iter().chain(b) {
        by_section[i].push(p);
    }
    Ok(code.iter().zip(by_section).map(|(s, parts)| finish_section(s, parts)).collect())
}

/// Smallest cubin (bytes of code) whose sections two threads decode (see [`decode_all`]).
const SPLIT_MIN: usize = 8 << 10;

/// Appends the instruction's text after the guard, with its branch target or relocated operand
/// named, to `out`.
fn final_rest(out: &mut String, sec: &Sec<'_, '_>, i: &Ins, cubin: &Cubin<'_>, sm50: bool) {
    let rest = sec.str(i.rest);
    // The name: a symbol's (Ok) or a label's number (Err).
    let name: Option<Result<&str, u32>> = if let Some(t) = i.target {
        let sym = cubin.funcs.iter().find(|f| f.section == sec.s.index && f.value == t).map(|f| Ok(f.name));
        sym.or_else(|| (t <= sec.s.data.len() as u64).then(|| sec.labels[sec.place(sm50, t)]).filter(|&n| n != NONE).map(Err))
    } else {
        i.reloc.map(|r| Ok(sec.s.relocs[r].1))
    };
    match name.and_then(|n| Some((n, rest.rfind("0x")?))) {
        Some((n, p)) => {
            let end = p + 2 + rest[p + 2..].find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(rest.len() - p - 2);
            out.push_str(&rest[..p]);
            out.push_str("`(");
            match n {
                Ok(name) => out.push_str(name),
                Err(n) => {
                    out.push_str(".L_x_");
                    isabridge_decoder::nvidia::push_dec(out, u64::from(n));
                }
            }
            out.push(')');
            out.push_str(&rest[end..]);
        }
        _ => out.push_str(rest),
    }
}

/// `.headerflags` and `.elftype`.
fn header(out: &mut Vec<u8>, e_type: u16, flags: u32) {
    let mut f = Vec::new();
    if flags & 0x100 != 0 {
        f.push("EF_CUDA_TEXMODE_UNIFIED".to_string());
    }
    if flags & 0x200 != 0 {
        f.push("EF_CUDA_TEXMODE_INDEPENDANT".to_string());
    }
    if flags & 0x400 != 0 {
        f.push("EF_CUDA_64BIT_ADDRESS".to_string());
    }
    f.push(format!("EF_CUDA_SM{}", flags & 0xff));
    f.push(format!("EF_CUDA_VIRTUAL_SM(EF_CUDA_SM{})", (flags >> 16) & 0xff));
    let t = match e_type {
        1 => "ET_REL",
        2 => "ET_EXEC",
        3 => "ET_DYN",
        _ => "ET_NONE",
    };
    out.extend_from_slice(format!("\t.headerflags\t@\"{}\"\n\t.elftype\t@\"{t}\"\n", f.join(" ")).as_bytes());
}

/// Appends `n` spaces (copied from a block of them: `resize` writes byte by byte).
fn push_spaces(out: &mut Vec<u8>, mut n: usize) {
    const SPACES: [u8; 256] = [b' '; 256];
    while n > 0 {
        let k = n.min(SPACES.len());
        out.extend_from_slice(&SPACES[..k]);
        n -= k;
    }
}

/// Spaces up to column `col` of the line that `out` ends in.
fn pad_to(out: &mut Vec<u8>, line_start: usize, col: usize) {
    let have = out.len() - line_start;
    push_spaces(out, col.saturating_sub(have));
}

/// Appends `n` in decimal.
fn push_dec(out: &mut Vec<u8>, n: u32) {
    let mut b = [0u8; 10];
    let mut k = b.len();
    let mut n = n;
    loop {
        k -= 1;
        b[k] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&b[k..]);
}

/// Lower-case hex digits.
const HEX: &[u8; 16] = b"0123456789abcdef";

/// The two lower-case hex digits of every byte value.
const HEX_PAIRS: [[u8; 2]; 256] = {
    let mut t = [[0u8; 2]; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = [HEX[i >> 4], HEX[i & 15]];
        i += 1;
    }
    t
};

/// `/* 0x%016x */` and a newline.
fn push_word(out: &mut Vec<u8>, w: u64) {
    let mut b = *b"/* 0x0000000000000000 */\n";
    for (d, &x) in b[5..21].chunks_exact_mut(2).zip(&w.to_be_bytes()) {
        d.copy_from_slice(&HEX_PAIRS[x as usize]);
    }
    out.extend_from_slice(&b);
}

/// An encoding word on a line of its own, at column `col`.
fn word_line(out: &mut Vec<u8>, col: usize, w: u64) {
    push_spaces(out, col);
    push_word(out, w);
}

/// `        /*%04x*/         ` and the brace column.
fn push_offset(out: &mut Vec<u8>, off: u64, brace: u8) {
    out.extend_from_slice(b"        /*");
    let digits = (((64 - off.leading_zeros()) as usize).div_ceil(4)).max(4);
    for k in (0..digits).rev() {
        out.push(HEX[(off >> (4 * k)) as usize & 15]);
    }
    out.extend_from_slice(b"*/         ");
    out.push(brace);
}

/// One section's banner, directives and lines.
#[allow(clippy::too_many_arguments)]
fn write_section(out: &mut Vec<u8>, sec: &Sec<'_, '_>, cubin: &Cubin<'_>, ends: &[String], sm50: bool, text_w: usize, col: usize, flush: &mut dyn FnMut(&[u8])) {
    let s = sec.s;
    let mut d = format!("\n\n//--------------------- {:<25} --------------------------\n\t.section\t{},\"", s.name, s.name);
    for (bit, c) in [(2u64, 'a'), (1, 'w'), (4, 'x')] {
        if s.flags & bit != 0 {
            d.push(c);
        }
    }
    d.push_str("\",@progbits\n");
    let barriers = (s.flags >> 20) & 0x7f;
    if barriers != 0 {
        d.push_str(&format!("\t.sectionflags\t@\"SHF_BARRIERS={barriers}\"\n"));
    }
    d.push_str(&format!("\t.sectioninfo\t@\"SHI_REGISTERS={}\"\n\t.align\t{}\n", s.info >> 24, s.align));
    out.extend_from_slice(d.as_bytes());
    // Function symbols by place, in symbol table order.
    let mut syms: Vec<(usize, usize)> =
        cubin.funcs.iter().enumerate().filter(|(_, f)| f.section == s.index && f.value <= s.data.len() as u64).map(|(k, f)| (sec.place(sm50, f.value), k)).collect();
    syms.sort_by_key(|x| x.0);
    let mut next_sym = 0usize;
    let mut pending: Option<u64> = None;
    // Labels, symbols and the section's own label at place `p`, then a pending encoding.
    let mut point = |out: &mut Vec<u8>, p: usize, pending: &mut Option<u64>| {
        if let Some(&n) = sec.labels.get(p).filter(|&&n| n != NONE) {
            out.extend_from_slice(b".L_x_");
            push_dec(out, n);
            out.extend_from_slice(b":\n");
        }
        while next_sym < syms.len() && syms[next_sym].0 <= p {
            let k = syms[next_sym].1;
            let f = &cubin.funcs[k];
            let bind = match f.bind {
                2 => ".weak",
                0 => ".local",
                _ => ".global",
            };
            let mut h = format!("        {bind:<16}{n}\n        {:<16}{n},@function\n        {:<16}{n},({} - {n})\n", ".type", ".size", ends[k], n = f.name);
            if f.other != 0 {
                let mut o = Vec::new();
                if f.other & 0x10 != 0 {
                    o.push("STO_CUDA_ENTRY");
                }
                o.push(["STV_DEFAULT", "STV_INTERNAL", "STV_HIDDEN", "STV_PROTECTED"][(f.other & 3) as usize]);
                h.push_str(&format!("        {:<16}{},@\"{}\"\n", ".other", f.name, o.join(" ")));
            }
            h.push_str(f.name);
            h.push_str(":\n");
            out.extend_from_slice(h.as_bytes());
            next_sym += 1;
        }
        if p == 0 {
            out.extend_from_slice(format!("{}:\n", s.name).as_bytes());
        }
        if let Some(w) = pending.take() {
            word_line(out, col, w);
        }
    };
    let word = |o: u64| s.data.get(o as usize..o as usize + 8).map_or(0, |b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])));
    for (k, i) in sec.ins.iter().enumerate() {
        if sm50 && i.off % 32 == 8 {
            point(out, ((i.off - 8) / 8) as usize, &mut pending);
            word_line(out, col, word(i.off - 8));
        } else if i.pair != 2 {
            point(out, (i.off / 8) as usize, &mut pending);
        }
        let start = out.len();
        push_offset(out, i.off, if i.pair == 1 { b'{' } else { b' ' });
        let guard = sec.str(i.guard).as_bytes();
        push_spaces(out, 8usize.saturating_sub(guard.len()));
        out.extend_from_slice(guard);
        out.push(b' ');
        out.extend_from_slice(sec.rest(k).as_bytes());
        let note = sec.notes.binary_search_by_key(&i.off, |n| n.0).ok().map(|k| &sec.notes[k].1);
        if let Some(note) = note {
            pad_to(out, start, TEXT_AT + text_w);
            out.extend_from_slice(note.as_bytes());
            out.extend_from_slice(if i.pair == 2 { b"        }" } else { b";" });
        } else if i.pair == 2 {
            out.extend_from_slice(b"         }");
        } else {
            out.extend_from_slice(if i.tight { b";" } else { b" ;" });
        }
        if i.pair == 2 {
            out.push(b'\n');
            pending = Some(word(i.off));
        } else {
            pad_to(out, start, col);
            push_word(out, word(i.off));
        }
        if !sm50 {
            word_line(out, col, word(i.off + 8));
        }
        if out.len() > super::FLUSH_AT {
            flush(out);
            out.clear();
        }
    }
    point(out, s.data.len() / 8, &mut pending);
}
