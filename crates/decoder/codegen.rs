//! Reads isa-specs XML (AMD's machine-readable ISA schema, the subset in isa-specs/SCHEMA.md) and
//! writes the Rust tables a decoder plugin is built from. Used by build.rs and by tests.

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A parsed spec file.
#[derive(Debug, Default)]
pub struct Spec {
    pub arch: String,
    pub encodings: Vec<Encoding>,
    pub instructions: Vec<Instruction>,
    pub operand_types: Vec<OperandType>,
    /// NVIDIA extension: sm86 scheduling tables (`<OpexTables>`): index -> 512-bit set of the
    /// allowed values of reuse << 5 | yield << 4 | stall.
    pub opex_tables: BTreeMap<u8, [u64; 8]>,
}

/// One encoding (instruction format).
#[derive(Debug, Default)]
pub struct Encoding {
    pub name: String,
    pub bits: u32,
    pub mask: u128,
    pub idents: Vec<u128>,
    pub fields: Vec<Field>,
    /// NVIDIA extension: nvdisasm print template (`<Syntax>`), empty when absent.
    pub syntax: String,
    /// NVIDIA extension: the scheduling bits nvdisasm accepts (`<Scheduling>`), as
    /// `crate::spec::NvTables::sched` packs them; everything allowed (0xf6) when absent.
    pub sched: u16,
}

/// A bit field of an encoding: ranges from least to most significant part.
#[derive(Debug, Default, Clone)]
pub struct Field {
    pub name: String,
    pub ranges: Vec<(u32, u32)>,
}

/// One instruction with every encoding it has.
#[derive(Debug, Default)]
pub struct Instruction {
    pub name: String,
    pub flags: u8,
    pub encs: Vec<InstEnc>,
    /// NVIDIA extension `<SuffixOrder>`: (suffix, rank) in nvdisasm's print order.
    pub suffix_order: Vec<(String, u16)>,
}

/// An instruction in one encoding.
#[derive(Debug, Default)]
pub struct InstEnc {
    pub enc: String,
    pub cond: String,
    pub opcode: u64,
    pub operands: Vec<Operand>,
}

/// One operand of an instruction encoding.
#[derive(Debug, Default)]
pub struct Operand {
    pub field: String,
    pub fmt: String,
    pub ty: String,
    pub size: u32,
    pub input: bool,
    pub output: bool,
    pub implicit: bool,
    /// NVIDIA extension: printed value = field value * scale (`<Scale>`, 1 when absent).
    pub scale: u32,
    /// NVIDIA extension `<OmitZero>`: a trailing number that is not printed when zero.
    pub omit_zero: bool,
}

/// An operand type with its predefined values.
#[derive(Debug, Default)]
pub struct OperandType {
    pub name: String,
    pub values: Vec<(i64, String)>,
}

/// Instruction flag bits (InstructionFlags).
pub const FLAG_BRANCH: u8 = 1;
pub const FLAG_COND_BRANCH: u8 = 2;
pub const FLAG_INDIRECT_BRANCH: u8 = 4;
pub const FLAG_TERMINATOR: u8 = 8;
pub const FLAG_CALL: u8 = 16;
pub const FLAG_RETURN: u8 = 32;
pub const FLAG_NO_JUMP: u8 = 64;
pub const FLAG_STACK_JUMP: u8 = 128;

fn child<'a, 'i>(n: roxmltree::Node<'a, 'i>, name: &str) -> Option<roxmltree::Node<'a, 'i>> {
    n.children().find(|c| c.has_tag_name(name))
}

fn children<'a, 'i>(
    n: roxmltree::Node<'a, 'i>,
    name: &'static str,
) -> impl Iterator<Item = roxmltree::Node<'a, 'i>> {
    n.children().filter(move |c| c.has_tag_name(name))
}

fn text(n: roxmltree::Node, name: &str) -> String {
    child(n, name)
        .and_then(|c| c.text())
        .map(|t| t.trim().to_string())
        .unwrap_or_default()
}

fn parse_num(n: roxmltree::Node) -> Result<u128, String> {
    let t = n.text().unwrap_or("").trim();
    let radix = n.attribute("Radix").unwrap_or("10").parse::<u32>().map_err(|e| e.to_string())?;
    let t = t.trim_start_matches("0x");
    u128::from_str_radix(t, radix).map_err(|e| format!("bad number {t:?}: {e}"))
}

fn is_true(s: Option<&str>) -> bool {
    matches!(s, Some(v) if v.eq_ignore_ascii_case("true"))
}

fn parse_field(f: roxmltree::Node) -> Result<Field, String> {
    let mut ranges = Vec::new();
    if let Some(bl) = child(f, "BitLayout") {
        let mut rs: Vec<(u32, u32, u32)> = Vec::new();
        for (i, r) in children(bl, "Range").enumerate() {
            let order = r.attribute("Order").and_then(|o| o.parse().ok()).unwrap_or(i as u32);
            let count = text(r, "BitCount").parse::<u32>().map_err(|e| e.to_string())?;
            let off = text(r, "BitOffset").parse::<u32>().map_err(|e| e.to_string())?;
            rs.push((order, off, count));
        }
        rs.sort();
        ranges = rs.into_iter().map(|(_, o, c)| (o, c)).collect();
    }
    Ok(Field { name: text(f, "FieldName"), ranges })
}

/// Parses a spec; tolerant of elements outside the subset (AMD's own files parse too).
/// `<Scheduling WriteBarrier=".." ReadBarrier=".." Reuse="0123" | Opex="N"/>` packed as
/// `crate::spec::NvTables::sched`: bit 0 known, 1 write barrier allowed, 2 read barrier allowed,
/// 4-7 the reuse flags allowed, 8-11 the opex table, 12 an opex table is given.
fn parse_sched(n: roxmltree::Node) -> Result<u16, String> {
    let flag = |a: &str| match n.attribute(a) {
        Some(v) if v.eq_ignore_ascii_case("true") => Ok(true),
        Some(v) if v.eq_ignore_ascii_case("false") => Ok(false),
        _ => Err(format!("Scheduling: {a} must be TRUE or FALSE")),
    };
    let mut v = 1 | u16::from(flag("WriteBarrier")?) << 1 | u16::from(flag("ReadBarrier")?) << 2;
    if let Some(r) = n.attribute("Reuse") {
        for c in r.chars() {
            let k = c.to_digit(10).filter(|&k| k < 4).ok_or("Scheduling: Reuse lists flags 0-3")?;
            v |= 1 << (4 + k);
        }
    } else {
        v |= 0xf << 4;
    }
    if let Some(t) = n.attribute("Opex") {
        let t: u16 = t.parse().ok().filter(|&t| t < 16).ok_or("Scheduling: Opex is a table index 0-15")?;
        v |= t << 8 | 1 << 12;
    }
    Ok(v)
}

pub fn parse_spec(xml: &str) -> Result<Spec, String> {
    let doc = roxmltree::Document::parse(xml).map_err(|e| e.to_string())?;
    let root = doc.root_element();
    let isa = if root.has_tag_name("ISA") { root } else { child(root, "ISA").ok_or("no <ISA>")? };
    let mut spec = Spec::default();
    if let Some(a) = child(isa, "Architecture") {
        spec.arch = text(a, "ArchitectureName");
    }
    if let Some(ts) = child(isa, "OpexTables") {
        for t in children(ts, "OpexTable") {
            let ix: u8 = t.attribute("Index").and_then(|x| x.parse().ok()).ok_or("OpexTable without Index")?;
            let hex = t.text().unwrap_or("");
            if hex.len() != 128 || !hex.is_ascii() {
                return Err(format!("OpexTable {ix}: 128 hex digits expected"));
            }
            let mut set = [0u64; 8];
            for (k, v) in set.iter_mut().enumerate() {
                let at = 128 - 16 * (k + 1);
                *v = u64::from_str_radix(&hex[at..at + 16], 16).map_err(|e| format!("OpexTable {ix}: {e}"))?;
            }
            spec.opex_tables.insert(ix, set);
        }
    }
    if let Some(encs) = child(isa, "Encodings") {
        for e in children(encs, "Encoding") {
            let mut enc = Encoding {
                name: text(e, "EncodingName"),
                bits: text(e, "BitCount").parse().unwrap_or(32),
                syntax: child(e, "Syntax").and_then(|c| c.text()).unwrap_or("").to_string(),
                sched: 0xf6,
                ..Default::default()
            };
            if let Some(m) = child(e, "EncodingIdentifierMask") {
                enc.mask = parse_num(m)?;
            }
            if let Some(sc) = child(e, "Scheduling") {
                enc.sched = parse_sched(sc).map_err(|x| format!("{}: {x}", enc.name))?;
            }
            if let Some(ids) = child(e, "EncodingIdentifiers") {
                for id in children(ids, "EncodingIdentifier") {
                    enc.idents.push(parse_num(id)?);
                }
            }
            if let Some(bm) = child(e, "MicrocodeFormat").and_then(|m| child(m, "BitMap")) {
                for f in children(bm, "Field") {
                    enc.fields.push(parse_field(f)?);
                }
            }
            spec.encodings.push(enc);
        }
    }
    if let Some(insts) = child(isa, "Instructions") {
        for i in children(insts, "Instruction") {
            let mut inst = Instruction { name: text(i, "InstructionName"), ..Default::default() };
            if let Some(fl) = child(i, "InstructionFlags") {
                for (tag, bit) in [
                    ("IsBranch", FLAG_BRANCH),
                    ("IsConditionalBranch", FLAG_COND_BRANCH),
                    ("IsIndirectBranch", FLAG_INDIRECT_BRANCH),
                    ("IsProgramTerminator", FLAG_TERMINATOR),
                    ("IsCall", FLAG_CALL),
                    ("IsReturn", FLAG_RETURN),
                    ("IsNoJump", FLAG_NO_JUMP),
                    ("IsStackJump", FLAG_STACK_JUMP),
                ] {
                    if text(fl, tag).eq_ignore_ascii_case("true") {
                        inst.flags |= bit;
                    }
                }
            }
            if let Some(so) = child(i, "SuffixOrder") {
                for x in children(so, "Suffix") {
                    let rank = x.attribute("Rank").and_then(|r| r.parse().ok()).unwrap_or(0);
                    inst.suffix_order.push((x.text().unwrap_or("").to_string(), rank));
                }
            }
            if let Some(ies) = child(i, "InstructionEncodings") {
                for ie in children(ies, "InstructionEncoding") {
                    let mut x = InstEnc {
                        enc: text(ie, "EncodingName"),
                        cond: text(ie, "EncodingCondition"),
                        opcode: child(ie, "Opcode").map(parse_num).transpose()?.unwrap_or(0) as u64,
                        ..Default::default()
                    };
                    if let Some(ops) = child(ie, "Operands") {
                        let mut v: Vec<(u32, Operand)> = Vec::new();
                        for (k, o) in children(ops, "Operand").enumerate() {
                            let order =
                                o.attribute("Order").and_then(|s| s.parse().ok()).unwrap_or(k as u32);
                            v.push((
                                order,
                                Operand {
                                    field: text(o, "FieldName"),
                                    fmt: text(o, "DataFormatName"),
                                    ty: text(o, "OperandType"),
                                    size: text(o, "OperandSize").parse().unwrap_or(0),
                                    input: is_true(o.attribute("Input")),
                                    output: is_true(o.attribute("Output")),
                                    implicit: is_true(o.attribute("IsImplicit")),
                                    scale: text(o, "Scale").parse().unwrap_or(1),
                                    omit_zero: text(o, "OmitZero").eq_ignore_ascii_case("true"),
                                },
                            ));
                        }
                        v.sort_by_key(|(k, _)| *k);
                        x.operands = v.into_iter().map(|(_, o)| o).collect();
                    }
                    inst.encs.push(x);
                }
            }
            spec.instructions.push(inst);
        }
    }
    if let Some(ots) = child(isa, "OperandTypes") {
        for t in children(ots, "OperandType") {
            let mut ot = OperandType { name: text(t, "OperandTypeName"), ..Default::default() };
            if let Some(pv) = child(t, "OperandPredefinedValues") {
                for v in children(pv, "PredefinedValue") {
                    let val = text(v, "Value");
                    let val = if let Some(h) = val.strip_prefix("0x") {
                        i64::from_str_radix(h, 16).map_err(|e| e.to_string())?
                    } else {
                        val.parse::<i64>().map_err(|e| format!("{}: {e}", ot.name))?
                    };
                    ot.values.push((val, text(v, "Name")));
                }
            }
            spec.operand_types.push(ot);
        }
    }
    Ok(spec)
}

/// How the generated dispatch table is keyed: bits [lo, lo+bits) of the first 32-bit word.
#[derive(Debug, Clone, Copy)]
pub struct KeyConfig {
    pub lo: u32,
    pub bits: u32,
}

fn ident(s: &str) -> String {
    let mut o: String =
        s.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' }).collect();
    if o.is_empty() || o.as_bytes()[0].is_ascii_digit() {
        o.insert(0, '_');
    }
    o
}

/// Bit `j` of a per-encoding field set (`Encoding::operand_fields`, `InstEncoding::fields`).
fn field_bit(e: &Encoding, j: usize) -> Result<u64, String> {
    u32::try_from(j).ok().and_then(|j| 1u64.checked_shl(j)).ok_or_else(|| format!("{}: more than 64 fields for a field set", e.name))
}

fn field_lit(f: &Field) -> String {
    let r: Vec<String> = f.ranges.iter().map(|(o, c)| format!("({o}, {c})")).collect();
    format!("Field {{ name: {:?}, ranges: &[{}] }}", f.name, r.join(", "))
}

/// The instructions sorted by name (the `Op` order) and every instruction encoding as
/// (encoding index, instruction index, instruction encoding), in `INST_ENCODINGS` order:
/// grouped per encoding, then by opcode.
#[allow(clippy::type_complexity)]
pub fn ordered(spec: &Spec) -> Result<(Vec<&Instruction>, Vec<(usize, usize, &InstEnc)>), String> {
    let mut enc_index = BTreeMap::new();
    for (i, e) in spec.encodings.iter().enumerate() {
        if enc_index.insert(e.name.as_str(), i).is_some() {
            return Err(format!("duplicate encoding {}", e.name));
        }
    }
    let mut insts: Vec<&Instruction> = spec.instructions.iter().collect();
    insts.sort_by(|a, b| a.name.cmp(&b.name));
    for pair in insts.windows(2) {
        if pair[0].name == pair[1].name {
            return Err(format!("duplicate instruction {}", pair[0].name));
        }
    }
    let mut ienc: Vec<(usize, usize, &InstEnc)> = Vec::new();
    for (k, i) in insts.iter().enumerate() {
        for e in &i.encs {
            let ei = *enc_index.get(e.enc.as_str()).ok_or_else(|| format!("{}: unknown encoding {}", i.name, e.enc))?;
            ienc.push((ei, k, e));
        }
    }
    ienc.sort_by_key(|(e, k, ie)| (*e, ie.opcode, *k));
    Ok((insts, ienc))
}

/// Writes the Rust tables for one spec. `module_doc` names the source file.
pub fn generate(spec: &Spec, source: &str, key: KeyConfig) -> Result<String, String> {
    let mut o = String::new();
    let w = &mut o;
    writeln!(w, "// @generated by crates/decoder/build.rs from {source}. DO NOT EDIT.").unwrap();
    writeln!(w, "// Regenerate with `cargo build -p isabridge-decoder`; the test `generated_tables_are_current` checks this copy.").unwrap();
    writeln!(w).unwrap();
    writeln!(w, "use crate::spec::*;").unwrap();
    writeln!(w).unwrap();
    writeln!(w, "/// Architecture name from the spec.").unwrap();
    writeln!(w, "pub const ARCH: &str = {:?};", spec.arch).unwrap();

    let (insts, ienc) = ordered(spec)?;
    // Operand types and data formats, interned in sorted order.
    let mut types: BTreeMap<String, usize> = BTreeMap::new();
    for t in &spec.operand_types {
        types.insert(t.name.clone(), 0);
    }
    let mut fmts: BTreeMap<String, usize> = BTreeMap::new();
    for i in &spec.instructions {
        for e in &i.encs {
            for op in &e.operands {
                types.insert(op.ty.clone(), 0);
                fmts.insert(op.fmt.clone(), 0);
            }
        }
    }
    for (k, v) in types.iter_mut().enumerate() {
        *v.1 = k;
    }
    for (k, v) in fmts.iter_mut().enumerate() {
        *v.1 = k;
    }

    writeln!(w, "\n/// Operand type indices (OperandTypeName).").unwrap();
    writeln!(w, "#[allow(dead_code)]\npub mod opr {{").unwrap();
    for (n, k) in &types {
        if !n.is_empty() {
            writeln!(w, "    /// `{n}`.\n    pub const {}: u16 = {k};", ident(n)).unwrap();
        }
    }
    writeln!(w, "}}").unwrap();
    writeln!(w, "\n/// Data format indices (DataFormatName).").unwrap();
    writeln!(w, "#[allow(dead_code)]\npub mod fmt {{").unwrap();
    for (n, k) in &fmts {
        if !n.is_empty() {
            writeln!(w, "    /// `{n}`.\n    pub const {}: u16 = {k};", ident(n)).unwrap();
        }
    }
    writeln!(w, "}}").unwrap();

    writeln!(w, "\n/// Operand types with their predefined values (value, name), sorted by value.").unwrap();
    writeln!(w, "pub static OPERAND_TYPES: &[OperandType] = &[").unwrap();
    for n in types.keys() {
        let mut vals: Vec<(i64, String)> = spec
            .operand_types
            .iter()
            .find(|t| &t.name == n)
            .map(|t| t.values.clone())
            .unwrap_or_default();
        vals.sort();
        vals.dedup_by_key(|v| v.0);
        let vs: Vec<String> = vals.iter().map(|(v, s)| format!("({v}, {s:?})")).collect();
        writeln!(w, "    OperandType {{ name: {n:?}, values: &[{}] }},", vs.join(", ")).unwrap();
    }
    writeln!(w, "];").unwrap();
    writeln!(w, "\n/// Data format names, indexed by the `fmt` constants.").unwrap();
    writeln!(w, "pub static DATA_FORMATS: &[&str] = &[{}];",
        fmts.keys().map(|k| format!("{k:?}")).collect::<Vec<_>>().join(", ")).unwrap();

    // Field constants per encoding.
    writeln!(w, "\n/// The fields of each encoding, as constants for printers and lifters.").unwrap();
    writeln!(w, "#[allow(non_snake_case, dead_code, unused_imports)]\npub mod fields {{\n    use crate::spec::Field;").unwrap();
    for e in &spec.encodings {
        writeln!(w, "    /// Fields of `{}`.\n    pub mod {} {{\n        use super::Field;", e.name, ident(&e.name)).unwrap();
        for f in &e.fields {
            writeln!(w, "        /// `{}`.\n        pub const {}: Field = {};", f.name, ident(&f.name), field_lit(f)).unwrap();
        }
        writeln!(w, "    }}").unwrap();
    }
    writeln!(w, "}}").unwrap();

    writeln!(w, "\n/// Every instruction of the spec.").unwrap();
    writeln!(w, "#[allow(non_camel_case_types, dead_code, clippy::upper_case_acronyms)]\n#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]{}\npub enum Op {{", if insts.is_empty() {""} else {"\n#[repr(u16)]"}).unwrap();
    for (k, i) in insts.iter().enumerate() {
        writeln!(w, "    /// `{}`.\n    {} = {k},", i.name, ident(&i.name)).unwrap();
    }
    writeln!(w, "}}").unwrap();
    writeln!(w, "\n/// `Op` by index.\npub static OPS: &[Op] = &[{}];",
        insts.iter().map(|i| format!("Op::{}", ident(&i.name))).collect::<Vec<_>>().join(", ")).unwrap();

    // Operands name their field by reference (8 bytes, not a 32-byte copy): one static per
    // field of each encoding that an operand uses, written before the pairs.
    let mut used: std::collections::BTreeSet<(usize, usize)> = Default::default();
    let mut lines = Vec::with_capacity(ienc.len());
    // Per encoding: the fields any of its pairs has an operand in (`Encoding::operand_fields`).
    let mut operand_fields = vec![0u64; spec.encodings.len()];
    for (ei, k, ie) in &ienc {
        let enc = &spec.encodings[*ei];
        let mut ops = Vec::new();
        // Bit j: an operand of this pair is in field j of its encoding.
        let mut fields_mask = 0u64;
        for op in &ie.operands {
            let field = if op.field.is_empty() || op.implicit {
                "None".to_string()
            } else {
                let j = enc.fields.iter().position(|f| f.name == op.field).ok_or_else(|| {
                    format!("{} in {}: operand field {} not in encoding", insts[*k].name, enc.name, op.field)
                })?;
                used.insert((*ei, j));
                fields_mask |= field_bit(enc, j)?;
                format!("Some(&EF_{ei}_{j})")
            };
            let flags = (op.input as u8) | ((op.output as u8) << 1) | ((op.implicit as u8) << 2);
            ops.push(format!(
                "Operand {{ field: {field}, ty: {}, fmt: {}, size: {}, flags: {flags} }}",
                types[&op.ty], fmts[&op.fmt], op.size
            ));
        }
        lines.push(format!("    InstEncoding {{ op: Op::{}, inst: {k}, enc: {ei}, opcode: {}, operands: &[{}], fields: {fields_mask:#x} }},",
            ident(&insts[*k].name), ie.opcode, ops.join(", ")));
        operand_fields[*ei] |= fields_mask;
    }
    writeln!(w, "\n/// The fields that operands name (encoding index, field index).").unwrap();
    for &(ei, j) in &used {
        writeln!(w, "static EF_{ei}_{j}: Field = {};", field_lit(&spec.encodings[ei].fields[j])).unwrap();
    }
    writeln!(w, "\n/// Every (instruction, encoding) pair, sorted by encoding and opcode.").unwrap();
    writeln!(w, "pub static INST_ENCODINGS: &[InstEncoding<Op>] = &[").unwrap();
    for l in &lines {
        writeln!(w, "{l}").unwrap();
    }
    writeln!(w, "];").unwrap();

    // The pairs with a label operand (branch targets), as a bit set: asking whether an
    // instruction has a target then reads 360 bytes, not its operands.
    let mut label = vec![0u64; ienc.len().div_ceil(64)];
    for (k, (_, _, ie)) in ienc.iter().enumerate() {
        if ie.operands.iter().any(|o| o.ty == "OPR_LABEL") {
            label[k / 64] |= 1 << (k % 64);
        }
    }
    writeln!(w, "\n/// Bit i: `INST_ENCODINGS[i]` has an `OPR_LABEL` operand.").unwrap();
    writeln!(w, "pub static LABEL_IENCS: &[u64] = &[{}];", label.iter().map(|x| format!("{x:#x}")).collect::<Vec<_>>().join(", ")).unwrap();

    writeln!(w, "\n/// Per instruction: name, lower-case mnemonic, flags, its INST_ENCODINGS indices.").unwrap();
    writeln!(w, "pub static INSTRUCTIONS: &[Instruction] = &[").unwrap();
    for (k, i) in insts.iter().enumerate() {
        let idx: Vec<String> =
            ienc.iter().enumerate().filter(|(_, x)| x.1 == k).map(|(n, _)| n.to_string()).collect();
        let enc_set: u64 = ienc
            .iter()
            .filter(|x| x.1 == k)
            .map(|x| if x.0 < 64 { 1u64 << x.0 } else { 0 })
            .fold(0, |a, b| a | b);
        writeln!(w, "    Instruction {{ name: {:?}, mnemonic: {:?}, flags: {}, encodings: &[{}], enc_set: {enc_set:#x} }},",
            i.name, i.name.to_ascii_lowercase(), i.flags, idx.join(", ")).unwrap();
    }
    writeln!(w, "];").unwrap();

    // Encodings with opcode maps.
    writeln!(w, "\n/// Encoding indices.\n#[allow(dead_code)]\npub mod enc {{").unwrap();
    for (k, e) in spec.encodings.iter().enumerate() {
        writeln!(w, "    /// `{}`.\n    pub const {}: u16 = {k};", e.name, ident(&e.name)).unwrap();
    }
    writeln!(w, "}}").unwrap();
    writeln!(w, "\n/// Every encoding with its opcode map (opcode -> INST_ENCODINGS index, NONE when absent).").unwrap();
    writeln!(w, "pub static ENCODINGS: &[Encoding] = &[").unwrap();
    for (k, e) in spec.encodings.iter().enumerate() {
        let opf = e.fields.iter().find(|f| f.name == "OP");
        let width: u32 = opf.map(|f| f.ranges.iter().map(|r| r.1).sum()).unwrap_or(0);
        if width > 16 {
            return Err(format!("{}: OP field of {width} bits is too wide for a dense map", e.name));
        }
        let mut map = vec![u16::MAX; 1usize << width];
        for (n, (ei, _, ie)) in ienc.iter().enumerate() {
            if *ei == k {
                let slot = map.get_mut(ie.opcode as usize).ok_or_else(|| format!("{}: opcode {} out of range", e.name, ie.opcode))?;
                if *slot != u16::MAX {
                    return Err(format!("{}: opcode {} used twice", e.name, ie.opcode));
                }
                *slot = n as u16;
            }
        }
        // Identifiers that list one value per opcode collapse to the values outside the OP
        // field: the opcode map then decides which opcodes exist.
        let mut opbits: u128 = 0;
        if let Some(f) = opf {
            for &(o, c) in &f.ranges {
                opbits |= ((1u128 << c) - 1) << o;
            }
        }
        let (mask, mut reduced) = if opf.is_some() && e.idents.len() > 1 {
            (e.mask & !opbits, e.idents.iter().map(|v| v & e.mask & !opbits).collect::<Vec<_>>())
        } else {
            (e.mask, e.idents.clone())
        };
        reduced.sort();
        reduced.dedup();
        let idents: Vec<String> = reduced.iter().map(|v| format!("{v:#x}")).collect();
        let fields: Vec<String> = e.fields.iter().map(field_lit).collect();
        writeln!(w, "    Encoding {{ name: {:?}, bits: {}, mask: {:#x}, idents: &[{}], op: {}, fields: &[{}], operand_fields: {:#x}, opmap: &[{}] }},",
            e.name, e.bits, mask, idents.join(", "),
            opf.map(|f| format!("Some({})", field_lit(f))).unwrap_or_else(|| "None".into()),
            fields.join(", "),
            operand_fields[k],
            map.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(",")).unwrap();
    }
    writeln!(w, "];").unwrap();

    // Dispatch on key bits of the first word: candidate encodings, most specific mask first.
    let kmask: u128 = ((1u128 << key.bits) - 1) << key.lo;
    let mut order: Vec<usize> = (0..spec.encodings.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(spec.encodings[i].mask.count_ones()), i));
    let mut lists: Vec<Vec<usize>> = Vec::new();
    for kv in 0..(1u128 << key.bits) {
        let kbits = kv << key.lo;
        let mut l = Vec::new();
        for &i in &order {
            let e = &spec.encodings[i];
            let m = e.mask & kmask;
            if e.idents.iter().any(|id| id & m == kbits & m) {
                l.push(i);
            }
        }
        lists.push(l);
    }
    writeln!(w, "\n/// Candidate encodings per dispatch key (bits {}..{} of the first word).", key.lo, key.lo + key.bits).unwrap();
    writeln!(w, "pub static DISPATCH: &[&[u8]] = &[").unwrap();
    for l in &lists {
        writeln!(w, "    &[{}],", l.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", ")).unwrap();
    }
    writeln!(w, "];").unwrap();
    writeln!(w, "\n/// The tables as one value.").unwrap();
    writeln!(w, "pub static TABLES: Tables<Op> = Tables {{ arch: ARCH, encodings: ENCODINGS, instructions: INSTRUCTIONS, inst_encodings: INST_ENCODINGS, label_iencs: LABEL_IENCS, operand_types: OPERAND_TYPES, data_formats: DATA_FORMATS, dispatch: DISPATCH, key_lo: {}, key_bits: {} }};", key.lo, key.bits).unwrap();
    Ok(o)
}

/// How an NVIDIA table is keyed: bits [lo, lo+bits) of the 128-bit little-endian instruction
/// (sm86: 0..12, sm50: 51..64 of the 64-bit instruction word).
#[derive(Debug, Clone, Copy)]
pub struct NvKeyConfig {
    pub lo: u32,
    pub bits: u32,
}

fn nv_kind(ty: &str) -> &'static str {
    match ty {
        "OPR_REG" => "Reg",
        "OPR_PRED" => "Pred",
        "OPR_UREG" => "UReg",
        "OPR_UPRED" => "UPred",
        "OPR_BREG" => "BReg",
        "OPR_UIMM" => "UImm",
        "OPR_SIMM" => "SImm",
        "OPR_FIMM" => "FImm",
        "" => "Other",
        _ => "Lookup",
    }
}

/// A piece of an NVIDIA print template: literal text or a field index.
enum NvSrcPiece<'a> {
    Lit(&'a str),
    Field(usize),
}

/// The print template of encoding `e` in pieces: literal runs and `{FIELD}` references.
fn nv_pieces(e: &Encoding) -> Vec<NvSrcPiece<'_>> {
    let mut pieces = Vec::new();
    let mut rest = e.syntax.as_str();
    while let Some(a) = rest.find('{') {
        let Some(b) = rest[a..].find('}').map(|b| a + b) else { break };
        let name = &rest[a + 1..b];
        // `{3}` (DEPBAR's barrier set) is literal text, not a field.
        let Some(fi) = e.fields.iter().position(|f| f.name == name) else {
            pieces.push(NvSrcPiece::Lit(&rest[..=b]));
            rest = &rest[b + 1..];
            continue;
        };
        if a > 0 {
            pieces.push(NvSrcPiece::Lit(&rest[..a]));
        }
        pieces.push(NvSrcPiece::Field(fi));
        rest = &rest[b + 1..];
    }
    if !rest.is_empty() {
        pieces.push(NvSrcPiece::Lit(rest));
    }
    pieces
}

/// The offset of `s` in `text`, where it is appended unless `text` already holds it (the
/// literal texts of one NVIDIA form or operand type, each stored once).
fn place_text(text: &mut String, s: &str) -> usize {
    text.find(s).unwrap_or_else(|| {
        text.push_str(s);
        text.len() - s.len()
    })
}

/// The field names of every NVIDIA spec, which their tables name by index (`nv_shared.rs`:
/// `NV_NAMES`, sorted).
#[derive(Default)]
pub struct NvShared {
    names: BTreeMap<String, usize>,
}

/// Flag of a template piece that is literal text (`crate::spec::NV_LIT`).
const NV_LIT: usize = 1 << 15;
/// Bits of a literal piece's length (above them: its offset in the form's text;
/// `crate::spec::NV_LIT_LEN_BITS`).
const NV_LIT_LEN_BITS: usize = 6;
/// Longest literal piece.
const NV_LIT_MAX_LEN: usize = (1 << NV_LIT_LEN_BITS) - 1;
/// Longest text of a form's literal pieces (the offset bits below the literal flag).
const NV_FORM_TEXT_MAX: usize = NV_LIT >> NV_LIT_LEN_BITS;

impl NvShared {
    /// The field names of `specs`.
    pub fn new(specs: &[&Spec]) -> Result<NvShared, String> {
        let mut t = NvShared::default();
        for spec in specs {
            for e in &spec.encodings {
                for f in &e.fields {
                    t.names.insert(f.name.clone(), 0);
                }
            }
        }
        if t.names.len() > u16::MAX as usize {
            return Err(format!("{} field names: too many for 16-bit indices", t.names.len()));
        }
        for (k, v) in t.names.values_mut().enumerate() {
            *v = k;
        }
        Ok(t)
    }

    /// The generated `nv_shared.rs`.
    pub fn code(&self, sources: &[&str]) -> String {
        let mut o = String::new();
        let w = &mut o;
        writeln!(w, "// @generated by crates/decoder/build.rs from {}. DO NOT EDIT.", sources.join(", ")).unwrap();
        writeln!(w, "// Regenerate with `ISABRIDGE_UPDATE_GENERATED=1 cargo build -p isabridge-decoder`; the test `generated_tables_are_current` checks this copy.").unwrap();
        writeln!(w, "\n/// Field names of the NVIDIA forms, sorted (`NvField::name`).").unwrap();
        writeln!(w, "pub static NV_NAMES: &[&str] = &[").unwrap();
        for n in self.names.keys() {
            writeln!(w, "    {n:?},").unwrap();
        }
        writeln!(w, "];").unwrap();
        o
    }
}

/// Writes the NVIDIA tables of one spec: every Encoding is one instruction form with its
/// print template (`<Syntax>`), its fields typed by the operand list, and a dispatch table on
/// the primary opcode bits whose candidate lists are sorted most specific mask first. Field
/// names, template literals and value spellings are indices into `shared` (made from every
/// NVIDIA spec, this one included).
pub fn generate_nv(spec: &Spec, source: &str, key: NvKeyConfig, shared: &NvShared) -> Result<String, String> {
    let mut o = String::new();
    let w = &mut o;
    writeln!(w, "// @generated by crates/decoder/build.rs from {source}. DO NOT EDIT.").unwrap();
    writeln!(w, "// Regenerate with `cargo build -p isabridge-decoder`; the test `generated_tables_are_current` checks this copy.").unwrap();
    writeln!(w).unwrap();
    writeln!(w, "use crate::spec::*;").unwrap();
    writeln!(w).unwrap();
    writeln!(w, "/// Architecture name from the spec.").unwrap();
    writeln!(w, "pub const ARCH: &str = {:?};", spec.arch).unwrap();

    // Operand types (for predefined values), sorted by name.
    let mut types: BTreeMap<String, usize> = BTreeMap::new();
    for t in &spec.operand_types {
        types.insert(t.name.clone(), 0);
    }
    for i in &spec.instructions {
        for e in &i.encs {
            for op in &e.operands {
                types.insert(op.ty.clone(), 0);
            }
        }
    }
    for (k, v) in types.iter_mut().enumerate() {
        *v.1 = k;
    }
    writeln!(w, "\n/// Operand types with their predefined values (value, name), sorted by value.").unwrap();
    writeln!(w, "pub static OPERAND_TYPES: &[NvOperandType] = &[").unwrap();
    for n in types.keys() {
        let mut vals: Vec<(i64, String)> =
            spec.operand_types.iter().find(|t| &t.name == n).map(|t| t.values.clone()).unwrap_or_default();
        vals.sort();
        vals.dedup_by_key(|v| v.0);
        // The spellings back to back in one text of the type's own (a listing reads the types
        // it prints near the forms that print them, not in a table of every spelling).
        let mut vs = Vec::new();
        let mut text = String::new();
        for (v, s) in &vals {
            let v = i32::try_from(*v).map_err(|_| format!("{n}: value {v} does not fit 32 bits"))?;
            let at = place_text(&mut text, s);
            let (Ok(at), Ok(len)) = (u16::try_from(at), u16::try_from(s.len())) else {
                return Err(format!("{n}: spellings longer than 64 KiB"));
            };
            vs.push(format!("NvValue {{ v: {v}, at: {at}, len: {len} }}"));
        }
        writeln!(w, "    NvOperandType {{ name: {n:?}, text: {text:?}, values: &[{}] }},", vs.join(", ")).unwrap();
    }
    writeln!(w, "];").unwrap();

    // Instruction names, sorted; each form points at one.
    let mut insts: Vec<&Instruction> = spec.instructions.iter().collect();
    insts.sort_by(|a, b| a.name.cmp(&b.name));
    let mut form_of: BTreeMap<&str, (usize, &InstEnc)> = BTreeMap::new();
    for (k, i) in insts.iter().enumerate() {
        for e in &i.encs {
            if form_of.insert(e.enc.as_str(), (k, e)).is_some() {
                return Err(format!("encoding {} used by two instructions", e.enc));
            }
        }
    }
    writeln!(w, "\n/// Instruction names (base mnemonics), sorted.").unwrap();
    writeln!(w, "pub static INSTS: &[NvInst] = &[").unwrap();
    for i in &insts {
        let mut order = i.suffix_order.clone();
        order.sort();
        let order: Vec<String> = order.iter().map(|(x, r)| format!("({x:?}, {r})")).collect();
        writeln!(w, "    NvInst {{ name: {:?}, flags: {}, order: &[{}] }},", i.name, i.flags, order.join(", ")).unwrap();
    }
    writeln!(w, "];").unwrap();

    // Each form is a constant of its own (here: a section of its own), reached through a table
    // of references: the release build's layout (tools/lld_wrap.sh) then places the forms a
    // listing prints together, where one array spread them over 160-210 KiB.
    writeln!(w, "\n/// Every instruction form (Encoding) with its template and typed fields.").unwrap();
    writeln!(w, "pub static FORMS: &[&NvForm] = &[").unwrap();
    for e in &spec.encodings {
        let (k, ie) = *form_of.get(e.name.as_str()).ok_or_else(|| format!("encoding {} has no instruction", e.name))?;
        if e.idents.len() != 1 {
            return Err(format!("{}: NVIDIA forms have exactly one identifier", e.name));
        }
        let mut fields = Vec::new();
        for f in &e.fields {
            let op = ie.operands.iter().find(|o| o.field == f.name);
            let (kind, ty, scale, omit_zero, output, input) = match op {
                Some(o) => (nv_kind(&o.ty), types[&o.ty], o.scale.max(1), o.omit_zero, o.output, o.input),
                None => ("Other", 0, 1, false, false, true),
            };
            if f.ranges.len() > NV_MAX_RANGES {
                return Err(format!("{}: field {} has {} parts (at most {NV_MAX_RANGES})", e.name, f.name, f.ranges.len()));
            }
            let log = match scale {
                1 => 0,
                2 => 1,
                4 => 2,
                8 => 3,
                _ => return Err(format!("{}: field {} has scale {scale} (1, 2, 4 or 8)", e.name, f.name)),
            };
            let mut r: Vec<String> = f.ranges.iter().map(|(o, c)| format!("({o}, {c})")).collect();
            r.resize(NV_MAX_RANGES, "(0, 0)".into());
            let bits = f.ranges.len() | log << 3 | usize::from(omit_zero) << 5 | usize::from(output) << 6 | usize::from(output && input) << 7;
            fields.push(format!("NvField {{ r: [{}], name_ix: {}, ty: {ty}, kind: NvKind::{kind}, bits: {bits} }}", r.join(", "), shared.names[&f.name]));
        }
        // The literal pieces' texts back to back (a repeated one once), in the form's own text.
        let mut pieces = Vec::new();
        let mut text = String::new();
        for p in nv_pieces(e) {
            pieces.push(match p {
                NvSrcPiece::Lit(l) => {
                    let at = place_text(&mut text, l);
                    if l.len() > NV_LIT_MAX_LEN || at + l.len() > NV_FORM_TEXT_MAX {
                        return Err(format!("{}: template literal {l:?} past the {NV_FORM_TEXT_MAX} bytes of a form's text", e.name));
                    }
                    format!("NvSyntax({:#x})", NV_LIT | at << NV_LIT_LEN_BITS | l.len())
                }
                // (`NvPiece::Field` holds a u8)
                NvSrcPiece::Field(fi) if fi <= u8::MAX as usize => format!("NvSyntax({fi})"),
                NvSrcPiece::Field(_) => return Err(format!("{}: more than 256 fields", e.name)),
            });
        }
        let fidx = |n: &str| e.fields.iter().position(|f| f.name == n).map(|i| i as i32).unwrap_or(-1);
        writeln!(
            w,
            "    &NvForm {{ name: {:?}, inst: {k}, opcode: {}, mask: {:#x}, ident: {:#x}, pred: {}, pred_neg: {}, fields: &[{}], text: {text:?}, syntax: &[{}] }},",
            e.name,
            ie.opcode,
            e.mask,
            e.idents[0] & e.mask,
            fidx("PRED"),
            fidx("PRED_NEG"),
            fields.join(", "),
            pieces.join(", ")
        )
        .unwrap();
    }
    writeln!(w, "];").unwrap();

    // Dispatch: key value -> list of candidate forms, most mask bits first; lists deduplicated.
    let kmask: u128 = ((1u128 << key.bits) - 1) << key.lo;
    let mut order: Vec<usize> = (0..spec.encodings.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(spec.encodings[i].mask.count_ones()), i));
    let mut lists: Vec<Vec<usize>> = Vec::new();
    let mut list_ix: BTreeMap<Vec<usize>, usize> = BTreeMap::new();
    let mut keys = Vec::new();
    for kv in 0..(1u128 << key.bits) {
        let kbits = kv << key.lo;
        let mut l = Vec::new();
        for &i in &order {
            let e = &spec.encodings[i];
            let m = e.mask & kmask;
            if e.idents[0] & m == kbits & m {
                l.push(i);
            }
        }
        let n = lists.len();
        let ix = *list_ix.entry(l.clone()).or_insert(n);
        if ix == n {
            lists.push(l);
        }
        keys.push(ix);
    }
    writeln!(w, "\n/// Distinct candidate lists (form indices, most specific mask first).").unwrap();
    writeln!(w, "pub static DISPATCH_LISTS: &[&[u16]] = &[").unwrap();
    for l in &lists {
        writeln!(w, "    &[{}],", l.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", ")).unwrap();
    }
    writeln!(w, "];").unwrap();
    writeln!(w, "\n/// Dispatch key (bits {}..{}) -> index into DISPATCH_LISTS.", key.lo, key.lo + key.bits).unwrap();
    writeln!(w, "pub static DISPATCH: &[u16] = &[").unwrap();
    for ch in keys.chunks(32) {
        writeln!(w, "    {},", ch.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", ")).unwrap();
    }
    writeln!(w, "];").unwrap();
    // Decode tree: the dispatch key at the root, then windows that split long candidate lists.
    let inst_of: Vec<usize> = spec.encodings.iter().map(|e| form_of.get(e.name.as_str()).map(|x| x.0).unwrap_or(0)).collect();
    let (nodes, cands) = nv_tree(spec, &order, key);
    // 16-bit nodes: offsets and candidate indices below the leaf flag, headers of 11 bits.
    if nodes.len() > NV_LEAF as usize || cands.len() > NV_LEAF as usize {
        return Err(format!("decode tree of {} nodes and {} candidates: too large for 16-bit references", nodes.len(), cands.len()));
    }
    writeln!(w, "\n/// Decode tree nodes (crate::nvidia::tree): header (window lo | width << 7), then 2^width children.").unwrap();
    writeln!(w, "pub static TREE_NODES: &[u16] = &[").unwrap();
    for ch in nodes.chunks(16) {
        writeln!(w, "    {},", ch.iter().map(|v| format!("{v:#x}")).collect::<Vec<_>>().join(", ")).unwrap();
    }
    writeln!(w, "];").unwrap();
    let wide = spec.encodings.iter().any(|e| e.mask >> 64 != 0 || e.idents[0] >> 64 != 0);
    if wide {
        writeln!(w, "\n/// Candidate lists of the decode tree's leaves.").unwrap();
        writeln!(w, "pub static TREE_CANDS: &[crate::nvidia::tree::NvCand] = &[").unwrap();
        for &(c, last) in &cands {
            let Some(c) = c else {
                writeln!(w, "    crate::nvidia::tree::NvCand {{ mask_lo: 0x0, ident_lo: 0x1, form: 0, inst: 0, last: true, mask_hi: 0x0, ident_hi: 0x0 }},").unwrap();
                continue;
            };
            let e = &spec.encodings[c];
            writeln!(
                w,
                "    crate::nvidia::tree::NvCand {{ mask_lo: {:#x}, ident_lo: {:#x}, form: {c}, inst: {}, last: {last}, mask_hi: {:#x}, ident_hi: {:#x} }},",
                e.mask as u64,
                (e.idents[0] & e.mask) as u64,
                inst_of[c],
                (e.mask >> 64) as u64,
                ((e.idents[0] & e.mask) >> 64) as u64,
            )
            .unwrap();
        }
        writeln!(w, "];").unwrap();
        writeln!(w, "\n/// The decode tree.").unwrap();
        writeln!(w, "pub static TREE: crate::nvidia::tree::NvTree = crate::nvidia::tree::NvTree {{ nodes: TREE_NODES, cands: TREE_CANDS, narrow: &[], matches: &[], wide: true }};").unwrap();
    } else {
        // Candidates of 4 bytes (form, instruction, last flag); the bits to compare once per
        // form, the one past the last form matching no word (the empty leaf's candidate).
        let n = spec.encodings.len();
        if n >= 1 << 16 || inst_of.iter().any(|&i| i >= 1 << 15) {
            return Err(format!("{n} forms: too many for the decode tree's 16-bit form and 15-bit instruction indices"));
        }
        writeln!(w, "\n/// Candidate lists of the decode tree's leaves (crate::nvidia::tree::NARROW_LAST).").unwrap();
        writeln!(w, "pub static TREE_NARROW: &[u32] = &[").unwrap();
        let words: Vec<u32> = cands
            .iter()
            .map(|&(c, last)| match c {
                Some(c) => c as u32 | (inst_of[c] as u32) << 16 | u32::from(last) << 31,
                None => n as u32 | 1 << 31,
            })
            .collect();
        for ch in words.chunks(16) {
            writeln!(w, "    {},", ch.iter().map(|v| format!("{v:#x}")).collect::<Vec<_>>().join(", ")).unwrap();
        }
        writeln!(w, "];").unwrap();
        writeln!(w, "\n/// Per form: the structural bits and their value (one more entry that matches no word).").unwrap();
        writeln!(w, "pub static TREE_MATCHES: &[[u64; 2]] = &[").unwrap();
        for e in &spec.encodings {
            writeln!(w, "    [{:#x}, {:#x}],", e.mask as u64, (e.idents[0] & e.mask) as u64).unwrap();
        }
        writeln!(w, "    [0x0, 0x1],").unwrap();
        writeln!(w, "];").unwrap();
        writeln!(w, "\n/// The decode tree.").unwrap();
        writeln!(w, "pub static TREE: crate::nvidia::tree::NvTree = crate::nvidia::tree::NvTree {{ nodes: TREE_NODES, cands: &[], narrow: TREE_NARROW, matches: TREE_MATCHES, wide: false }};").unwrap();
    }
    writeln!(w, "\n/// Per form: the scheduling bits nvdisasm accepts (crate::spec::NvTables::sched).").unwrap();
    writeln!(w, "pub static SCHED: &[u16] = &[").unwrap();
    for ch in spec.encodings.chunks(16) {
        writeln!(w, "    {},", ch.iter().map(|e| format!("{:#x}", e.sched)).collect::<Vec<_>>().join(", ")).unwrap();
    }
    writeln!(w, "];").unwrap();
    let n_opex = spec.opex_tables.keys().next_back().map_or(0, |&k| usize::from(k) + 1);
    writeln!(w, "\n/// Opex tables: allowed values of reuse << 5 | yield << 4 | stall (crate::spec::NvTables::opex).").unwrap();
    writeln!(w, "pub static OPEX: &[[u64; 8]] = &[").unwrap();
    for k in 0..n_opex {
        let set = spec.opex_tables.get(&(k as u8)).ok_or_else(|| format!("OpexTable {k} missing"))?;
        writeln!(w, "    [{}],", set.iter().map(|v| format!("{v:#x}")).collect::<Vec<_>>().join(", ")).unwrap();
    }
    writeln!(w, "];").unwrap();
    for e in &spec.encodings {
        if e.sched & 1 << 12 != 0 && usize::from(e.sched >> 8 & 0xf) >= n_opex {
            return Err(format!("{}: opex table {} missing", e.name, e.sched >> 8 & 0xf));
        }
    }
    writeln!(w, "\n/// The tables as one value.").unwrap();
    writeln!(w, "pub static TABLES: NvTables = NvTables {{ arch: ARCH, forms: FORMS, insts: INSTS, operand_types: OPERAND_TYPES, dispatch_lists: DISPATCH_LISTS, dispatch: DISPATCH, key_lo: {}, key_bits: {}, sched: SCHED, opex: OPEX }};", key.lo, key.bits).unwrap();
    Ok(o)
}

/// Most parts of an NVIDIA field (`crate::spec::NV_MAX_RANGES`).
const NV_MAX_RANGES: usize = 5;

/// Leaf flag of a decode-tree child reference (crate::nvidia::tree::LEAF).
const NV_LEAF: u32 = 1 << 15;
/// Widest window of a non-root tree node.
const NV_MAX_WINDOW: u32 = 8;
/// Cost of a tree node in candidate checks (the tree builder's cost model).
const NV_NODE_COST: f64 = 1.5;

/// Builds the decode tree of an NVIDIA spec: the root reads the dispatch key; a child whose
/// candidate list (most specific mask first) has more than one form reads the window of at most
/// `NV_MAX_WINDOW` bits that leaves the longest child list shortest (then the fewest entries,
/// then the narrowest window), as long as that shortens the list. A form whose mask leaves a
/// window bit open goes into every child it can match, in the same order, so the first match in
/// the final list is the first match in the whole sorted list. Returns the node words and the
/// leaves' candidates (form index, none for the one that matches nothing; last of its leaf).
fn nv_tree(spec: &Spec, order: &[usize], key: NvKeyConfig) -> (Vec<u32>, Vec<(Option<usize>, bool)>) {
    struct Build<'a> {
        spec: &'a Spec,
        bits: u32,
        nodes: Vec<u32>,
        cands: Vec<(Option<usize>, bool)>,
        leaves: BTreeMap<Vec<usize>, u32>,
        subtrees: BTreeMap<Vec<usize>, u32>,
    }
    impl Build<'_> {
        fn mi(&self, i: usize) -> (u128, u128) {
            let e = &self.spec.encodings[i];
            (e.mask, e.idents[0] & e.mask)
        }
        /// The children lists of `l` under window (lo, k).
        fn split(&self, l: &[usize], lo: u32, k: u32) -> Vec<Vec<usize>> {
            let km = (1u128 << k) - 1;
            let mut out = vec![Vec::new(); 1 << k];
            for &i in l {
                let (m, id) = self.mi(i);
                let (cm, ci) = ((m >> lo) & km, (id >> lo) & km);
                for (v, child) in out.iter_mut().enumerate() {
                    if v as u128 & cm == ci {
                        child.push(i);
                    }
                }
            }
            out
        }
        fn leaf(&mut self, l: Vec<usize>) -> u32 {
            if l.is_empty() {
                return NV_LEAF; // candidate 0: the one that matches nothing
            }
            if let Some(&r) = self.leaves.get(&l) {
                return r;
            }
            let r = NV_LEAF | self.cands.len() as u32;
            let n = l.len();
            self.cands.extend(l.iter().enumerate().map(|(k, &i)| (Some(i), k + 1 == n)));
            self.leaves.insert(l, r);
            r
        }
        fn node(&mut self, lo: u32, k: u32, children: Vec<Vec<usize>>) -> u32 {
            let refs: Vec<u32> = children.into_iter().map(|c| self.child(c)).collect();
            let at = self.nodes.len() as u32;
            self.nodes.push(lo | k << 7);
            self.nodes.extend_from_slice(&refs);
            at
        }
        fn child(&mut self, l: Vec<usize>) -> u32 {
            if l.len() <= 1 {
                return self.leaf(l);
            }
            if let Some(&r) = self.subtrees.get(&l) {
                return r;
            }
            // Bits some candidate tests with value 0 and another with value 1, or that some
            // test and others leave open: only windows starting at one of those can split.
            let mut useful = Vec::new();
            for b in 0..self.bits {
                let (mut tested, mut open, mut one, mut zero) = (false, false, false, false);
                for &i in &l {
                    let (m, id) = self.mi(i);
                    if m >> b & 1 == 1 {
                        tested = true;
                        if id >> b & 1 == 1 {
                            one = true;
                        } else {
                            zero = true;
                        }
                    } else {
                        open = true;
                    }
                }
                if tested && (open || (one && zero)) {
                    useful.push(b);
                }
            }
            // Cost model (forms equally likely, open window bits uniform): a node costs
            // NV_NODE_COST checks for every form; a form at position p of a leaf costs p checks.
            let leaf_cost: f64 = (1..=l.len()).map(|p| p as f64).sum();
            let mut best: Option<(f64, u32, u32)> = None;
            for &lo in &useful {
                // A window stays inside one 64-bit half of the instruction.
                let room = 64 - lo % 64;
                for k in 1..=NV_MAX_WINDOW.min(self.bits - lo).min(room) {
                    let ch = self.split(&l, lo, k);
                    // Every child must be shorter, or the recursion would not end.
                    if ch.iter().any(|c| c.len() >= l.len()) {
                        continue;
                    }
                    let km = (1u128 << k) - 1;
                    let mut cost = NV_NODE_COST * l.len() as f64;
                    for child in &ch {
                        for (p, &i) in child.iter().enumerate() {
                            let open = k - ((self.mi(i).0 >> lo) & km).count_ones();
                            cost += (p + 1) as f64 / (1u64 << open) as f64;
                        }
                    }
                    if best.is_none_or(|(c, _, _)| cost < c - 1e-9) {
                        best = Some((cost, lo, k));
                    }
                }
            }
            let r = match best {
                Some((cost, lo, k)) if cost < leaf_cost - 1e-9 => {
                    let ch = self.split(&l, lo, k);
                    self.node(lo, k, ch)
                }
                _ => self.leaf(l.clone()),
            };
            self.subtrees.insert(l, r);
            r
        }
    }
    let bits = spec.encodings.iter().map(|e| e.bits).max().unwrap_or(64).min(128);
    let mut b = Build { spec, bits, nodes: Vec::new(), cands: vec![(None, true)], leaves: BTreeMap::new(), subtrees: BTreeMap::new() };
    // The root first, at offset 0: its children are filled in once built. Its window lies in
    // bits 0-63 (the walk reads it from the low half).
    assert!(key.lo + key.bits <= 64, "the dispatch key lies in bits 0-63");
    b.nodes.push(key.lo | key.bits << 7);
    b.nodes.extend(std::iter::repeat_n(NV_LEAF, 1 << key.bits));
    let root: Vec<Vec<usize>> = b.split(order, key.lo, key.bits);
    for (v, l) in root.into_iter().enumerate() {
        let r = b.child(l);
        b.nodes[1 + v] = r;
    }
    (b.nodes, b.cands)
}
