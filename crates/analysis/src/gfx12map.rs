//! What translating a gfx1013 instruction to gfx12 needs, from Mesa ACO's opcode table
//! (`crates/analysis/data/aco_opcodes_all_gens.csv`, a copy of ../shared/facts; repository, path and commit in
//! `fixtures/facts/amd/sources.csv`), matched on (format, gfx10 opcode) as the facts' README
//! asks, until the gfx12 translator's own map exists.
//!
//! Categories:
//! - `unchanged`: gfx12 has the instruction with the same opcode in an encoding of the same
//!   name and bit layout, and LLVM spells it the same.
//! - `renamed`: gfx12 has it; LLVM's gfx12 mnemonic differs (`v_add_nc_u32` stays,
//!   `s_andn2_b32` becomes `s_and_not1_b32`).
//! - `reencoded`: gfx12 has it under the same name, but the opcode or the encoding changed
//!   (MUBUF -> VBUFFER, MIMG -> VIMAGE/VSAMPLE, EXP -> VEXPORT, DS -> VDS, SMEM fields).
//! - `expanded`: gfx12 lacks it but a sequence of gfx12 instructions computes it: SDWA forms
//!   (removed after gfx10), and ALU, scalar and interpolation instructions ACO lists no gfx12
//!   opcode for.
//! - `unsupported`: gfx12 lacks it and it is not ALU (memory, export, ...), or the facts do not
//!   list it.

use isabridge_decoder::amd::{GFX10, GFX12};
use isabridge_decoder::Isa;
use isabridge_decoder::spec::Encoding;
use std::collections::HashMap;
use std::sync::OnceLock;

const CSV: &str = include_str!("../data/aco_opcodes_all_gens.csv");

/// (format, gfx10 opcode) -> gfx12 opcode (-1: absent).
fn table() -> &'static HashMap<(String, i64), i64> {
    static T: OnceLock<HashMap<(String, i64), i64>> = OnceLock::new();
    T.get_or_init(|| {
        let mut m = HashMap::new();
        let mut lines = CSV.lines();
        let head: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
        let col = |n: &str| head.iter().position(|h| *h == n);
        let (Some(cf), Some(c10), Some(c12)) = (col("format"), col("gfx10"), col("gfx12")) else { return m };
        for l in lines {
            let v: Vec<&str> = l.split(',').collect();
            let (Some(f), Some(a), Some(b)) = (v.get(cf), v.get(c10), v.get(c12)) else { continue };
            let (Ok(a), Ok(b)) = (a.parse::<i64>(), b.parse::<i64>()) else { continue };
            if a >= 0 {
                m.entry((f.to_string(), a)).or_insert(b);
            }
        }
        m
    })
}

/// ACO's format name for a gfx10 encoding.
fn aco_format(enc: &str) -> &str {
    let e = enc.strip_prefix("ENC_").unwrap_or(enc);
    match e {
        "VOP3B" => "VOP3",
        "FLAT_SCRATCH" => "SCRATCH",
        "FLAT_GLBL" => "GLOBAL",
        _ => e.split('_').next().unwrap_or(e),
    }
}

/// gfx12 encodings that hold an ACO format's instructions.
fn gfx12_encodings(fmt: &str) -> &'static [&'static str] {
    match fmt {
        "SOP1" => &["ENC_SOP1"],
        "SOP2" => &["ENC_SOP2"],
        "SOPC" => &["ENC_SOPC"],
        "SOPK" => &["ENC_SOPK"],
        "SOPP" => &["ENC_SOPP"],
        "SMEM" => &["ENC_SMEM"],
        "VOP1" => &["ENC_VOP1"],
        "VOP2" => &["ENC_VOP2"],
        "VOPC" => &["ENC_VOPC"],
        "VOP3" => &["ENC_VOP3", "ENC_VOP3SD"],
        "VOP3P" => &["ENC_VOP3P"],
        "DS" => &["ENC_VDS"],
        "MUBUF" | "MTBUF" => &["ENC_VBUFFER"],
        "MIMG" => &["ENC_VIMAGE", "ENC_VSAMPLE"],
        "FLAT" => &["ENC_VFLAT"],
        "GLOBAL" => &["ENC_VGLOBAL"],
        "SCRATCH" => &["ENC_VSCRATCH"],
        "EXP" => &["ENC_VEXPORT"],
        _ => &[],
    }
}

fn same_layout(a: &Encoding, b: &Encoding) -> bool {
    a.name == b.name
        && a.bits == b.bits
        && a.mask == b.mask
        && a.idents == b.idents
        && a.fields.len() == b.fields.len()
        && a.fields.iter().zip(b.fields).all(|(x, y)| x.name == y.name && x.ranges == y.ranges)
}

/// True when [`category`] maps `isa`'s instructions to gfx12: gfx1013, the source ISA of the
/// gfx12 translation (gfx1201 is the target itself; NVIDIA goes through the IR).
pub fn maps(isa: Isa) -> bool {
    isa == Isa::Gfx1013
}

/// (category, gfx10 mnemonic) of the gfx10 (instruction, encoding) index `ienc`.
pub fn category(ienc: usize) -> (&'static str, &'static str) {
    static C: OnceLock<Vec<&'static str>> = OnceLock::new();
    let t10 = GFX10.tables();
    let Some(ie) = t10.inst_encodings.get(ienc) else { return ("unsupported", "?") };
    let mn = t10.instructions[ie.inst as usize].mnemonic;
    let cats = C.get_or_init(|| (0..t10.inst_encodings.len()).map(compute).collect());
    (cats[ienc], mn)
}

fn compute(ienc: usize) -> &'static str {
    let t10 = GFX10.tables();
    let t12 = GFX12.tables();
    let ie = &t10.inst_encodings[ienc];
    let enc = &t10.encodings[ie.enc as usize];
    if enc.name.ends_with("_SDWA") {
        return "expanded";
    }
    let inst = &t10.instructions[ie.inst as usize];
    // The VOP3 (e64) form of a VOP1/VOP2/VOPC instruction: ACO lists it under the short format.
    let mut fmt = aco_format(enc.name);
    let mut opcode = ie.opcode as i64;
    if fmt == "VOP3" || enc.name.contains("DPP") {
        for &k in inst.encodings {
            let o = &t10.inst_encodings[k as usize];
            let f = aco_format(t10.encodings[o.enc as usize].name);
            if matches!(f, "VOP1" | "VOP2" | "VOPC") && !t10.encodings[o.enc as usize].name.contains('_') {
                fmt = f;
                opcode = o.opcode as i64;
                break;
            }
        }
    }
    let Some(&op12) = table().get(&(fmt.to_string(), opcode)) else { return "unsupported" };
    if op12 < 0 {
        return if matches!(fmt, "VOP1" | "VOP2" | "VOPC" | "VOP3" | "VOP3P" | "SOP1" | "SOP2" | "SOPC" | "SOPK" | "SOPP" | "VINTRP") {
            "expanded"
        } else {
            "unsupported"
        };
    }
    // The gfx12 instruction at that opcode in the counterpart encoding.
    let mut found = None;
    for en in gfx12_encodings(fmt) {
        let Some(ei) = t12.encodings.iter().position(|e| e.name == *en) else { continue };
        let e12 = &t12.encodings[ei];
        if let Some(&k) = e12.opmap.get(op12 as usize) {
            if k != u16::MAX {
                found = Some((e12, &t12.inst_encodings[k as usize]));
                break;
            }
        }
    }
    let Some((e12, ie12)) = found else { return "reencoded" };
    let name12 = t12.instructions[ie12.inst as usize].mnemonic;
    if name12 != inst.mnemonic {
        return "renamed";
    }
    // Compare the encoding the instruction actually uses with gfx12's of the same name.
    let actual12 = t12.encodings.iter().find(|e| e.name == enc.name);
    if op12 != opcode || actual12.is_none_or(|e| !same_layout(enc, e)) || (e12.name != enc.name && fmt != "VOP3") {
        return "reencoded";
    }
    "unchanged"
}

#[path = "gfx12_map_table.rs"]
mod table;

/// How a gfx1013 instruction gets to gfx1201 (the generated map, `tools/amdspec/gfx12_map.py`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MapKind {
    /// gfx1201 has the instruction under the same name; only the encoding changes.
    Reencode,
    /// gfx1201 has the same operation under another name.
    Rename,
    /// gfx1201 lacks it; a sequence of gfx1201 instructions computes it (or it is dropped, as
    /// waits are).
    Sequence,
    /// gfx1201 lacks it and no expansion is known.
    Unsupported,
}

impl MapKind {
    /// The kind's name in reports (`reencode`, `rename`, `sequence`, `unsupported`).
    pub fn name(self) -> &'static str {
        match self {
            MapKind::Reencode => "reencode",
            MapKind::Rename => "rename",
            MapKind::Sequence => "sequence",
            MapKind::Unsupported => "unsupported",
        }
    }
}

/// One row of the gfx1013 -> gfx1201 opcode map: a gfx1013 (instruction, encoding) pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MapRow {
    /// gfx1013 instruction name (the spec's, upper case).
    pub gfx10: &'static str,
    /// gfx1013 encoding name.
    pub gfx10_enc: &'static str,
    /// How it maps.
    pub kind: MapKind,
    /// gfx1201 instruction name (re-encode and rename rows; empty otherwise).
    pub gfx12: &'static str,
    /// gfx1201 encoding name (re-encode and rename rows; empty otherwise).
    pub gfx12_enc: &'static str,
    /// Why a row is a sequence or unsupported, or what to watch in a re-encode/rename row.
    pub reason: &'static str,
}

/// Every row of the generated gfx1013 -> gfx1201 map, sorted by (gfx10, gfx10_enc).
pub fn rows() -> &'static [MapRow] {
    table::ROWS
}

/// The map row of gfx1013 instruction `name` in encoding `enc`.
pub fn row(name: &str, enc: &str) -> Option<&'static MapRow> {
    let r = table::ROWS;
    // Names compared byte by byte inline (the order of `str`): cheaper than `memcmp` calls here.
    let key = |a: &str, b: &str| a.bytes().cmp(b.bytes());
    r.binary_search_by(|x| key(x.gfx10, name).then_with(|| key(x.gfx10_enc, enc))).ok().map(|i| &r[i])
}
