//! The AMD operand model: a decoded gfx10 / gfx12 instruction as typed operands
//! (see [`crate::operand`]).
//!
//! Operands come from the spec's operand list of the instruction's encoding, in LLVM's print
//! order; every other field of the encoding (except the encoding's identity bits and the
//! opcode) becomes a modifier, so that [`super::build`] can turn the model back into the same
//! bits. Register counts follow what the instruction reads or writes (image data from DMASK,
//! buffer addresses from OFFEN/IDXEN, ...). Implicit operands and call / return kinds the spec
//! does not carry come from `crates/decoder/data/amd_model.tsv`, matched against each ISA's
//! instructions at build time (`crates/decoder/build/amd_model.rs`, checked in as
//! `src/generated/gfx10_model.rs`, `gfx12_model.rs`; refresh with
//! `ISABRIDGE_UPDATE_GENERATED=1 cargo build --release -p isabridge-decoder`).

use super::operands::Kind;
use super::{Amd, Generation};
use crate::operand::{Access, ConstType, Flow, Inst, Modifier, Operand, OperandKind, Part, RegClass, RegRange, SpecialReg, SrcMods};
use crate::spec::{self, Field};
use crate::{Decoded, Isa};

/// Field names given to the extra address registers of a gfx10 NSA image instruction (the
/// bytes after the first two dwords).
pub const NSA_FIELDS: [&str; 12] =
    ["NSA1", "NSA2", "NSA3", "NSA4", "NSA5", "NSA6", "NSA7", "NSA8", "NSA9", "NSA10", "NSA11", "NSA12"];

/// Names of the bits of dword 0..3 of an encoding that no field covers (a
/// [`Modifier::Named`] when they are set).
pub const RESERVED_FIELDS: [&str; 4] = ["RESERVED0", "RESERVED1", "RESERVED2", "RESERVED3"];

/// Field name of an operand that is the instruction's literal dword.
pub const LITERAL_FIELD: &str = "LITERAL";

/// True for gfx12 numbering (m0 and null swapped, no SRSRC scaling).
fn gfx12(isa: Isa) -> bool {
    isa == Isa::Gfx1201
}

/// The ConstType an operand's data format reads constants as.
pub fn const_type(k: Kind) -> ConstType {
    match k {
        Kind::F16 | Kind::PkF16 => ConstType::F16,
        Kind::BF16 => ConstType::Bf16,
        Kind::F32 => ConstType::F32,
        Kind::F64 => ConstType::F64,
        _ => ConstType::Int,
    }
}

/// The value an inline constant code reads as, at `size` bits of type `ty`.
pub fn inline_bits(code: u32, ty: ConstType, size: u16) -> u64 {
    let int = match code {
        128..=192 => Some((code - 128) as i64),
        193..=208 => Some(-((code - 192) as i64)),
        _ => None,
    };
    if let Some(i) = int {
        let bits = size.clamp(16, 64) as u32;
        return if bits >= 64 { i as u64 } else { (i as u64) & ((1u64 << bits) - 1) };
    }
    // Floats: 0.5, -0.5, 1, -1, 2, -2, 4, -4, 1/(2 pi).
    let idx = code.saturating_sub(240) as usize;
    const F16: [u64; 9] = [0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400, 0x3118];
    const BF16: [u64; 9] = [0x3f00, 0xbf00, 0x3f80, 0xbf80, 0x4000, 0xc000, 0x4080, 0xc080, 0x3e22];
    const F32: [u64; 9] = [
        0x3f000000, 0xbf000000, 0x3f800000, 0xbf800000, 0x40000000, 0xc0000000, 0x40800000, 0xc0800000, 0x3e22f983,
    ];
    const F64: [u64; 9] = [
        0x3fe0000000000000,
        0xbfe0000000000000,
        0x3ff0000000000000,
        0xbff0000000000000,
        0x4000000000000000,
        0xc000000000000000,
        0x4010000000000000,
        0xc010000000000000,
        0x3fc45f306dc9c882,
    ];
    let table = match (ty, size) {
        (ConstType::Bf16, _) => &BF16,
        (ConstType::F16, _) | (_, 16) => &F16,
        (_, 64) => &F64,
        _ => &F32,
    };
    table.get(idx).copied().unwrap_or(0)
}

/// Number of 32-bit registers of an operand of `size` bits.
fn count(size: u16) -> u16 {
    size.div_ceil(32).max(1)
}


/// The operand kind of a 9-bit source value (8-bit scalar sources are the low half).
///
/// `lit` is the instruction's literal dword, None when it has none (a 255 is then kept as the
/// raw value: LLVM reads a literal past the end of such an instruction).
pub fn src_kind(isa: Isa, v: u32, size: u16, ty: ConstType, lit: Option<u32>) -> OperandKind {
    let n = count(size);
    let (m0, null) = if gfx12(isa) { (125, 124) } else { (124, 125) };
    let wide = size > 32;
    let special = |reg, part| OperandKind::Special { reg, part };
    match v {
        0..=105 => OperandKind::Reg(RegRange { class: RegClass::Sgpr, first: v as u16, count: n }),
        106 => special(SpecialReg::Vcc, if wide { Part::Whole } else { Part::Lo }),
        107 => special(SpecialReg::Vcc, Part::Hi),
        108..=123 => OperandKind::Reg(RegRange { class: RegClass::Ttmp, first: (v - 108) as u16, count: n }),
        x if x == m0 => special(SpecialReg::M0, Part::Whole),
        x if x == null => special(SpecialReg::Null, Part::Whole),
        126 => special(SpecialReg::Exec, if wide { Part::Whole } else { Part::Lo }),
        127 => special(SpecialReg::Exec, Part::Hi),
        128..=208 | 240..=248 => OperandKind::InlineConst { code: v as u16, bits: inline_bits(v, ty, size), ty },
        230 => special(SpecialReg::FlatScratch, Part::Lo),
        231 => special(SpecialReg::FlatScratch, Part::Hi),
        235 => special(SpecialReg::SharedBase, Part::Whole),
        236 => special(SpecialReg::SharedLimit, Part::Whole),
        237 => special(SpecialReg::PrivateBase, Part::Whole),
        238 => special(SpecialReg::PrivateLimit, Part::Whole),
        239 => special(SpecialReg::PopsExitingWaveId, Part::Whole),
        251 => special(SpecialReg::VccZ, Part::Whole),
        252 => special(SpecialReg::ExecZ, Part::Whole),
        253 => special(SpecialReg::SrcScc, Part::Whole),
        254 => special(SpecialReg::LdsDirect, Part::Whole),
        255 => match lit {
            Some(l) => OperandKind::Literal(l),
            None => OperandKind::Field { ty: "OPR_SRC", value: 255 },
        },
        256..=511 => OperandKind::Reg(RegRange { class: RegClass::Vgpr, first: (v - 256) as u16, count: n }),
        _ => OperandKind::Field { ty: "OPR_SRC", value: v as u64 },
    }
}

/// The 9-bit source value of an operand kind (the inverse of [`src_kind`]), if it has one.
pub fn src_code(isa: Isa, k: &OperandKind) -> Option<u32> {
    let (m0, null) = if gfx12(isa) { (125, 124) } else { (124, 125) };
    Some(match *k {
        OperandKind::Reg(r) => match r.class {
            RegClass::Sgpr if r.first <= 105 => r.first as u32,
            RegClass::Ttmp if r.first < 16 => 108 + r.first as u32,
            RegClass::Vgpr if r.first < 256 => 256 + r.first as u32,
            _ => return None,
        },
        OperandKind::Special { reg, part } => match (reg, part) {
            (SpecialReg::Vcc, Part::Hi) => 107,
            (SpecialReg::Vcc, _) => 106,
            (SpecialReg::Exec, Part::Hi) => 127,
            (SpecialReg::Exec, _) => 126,
            (SpecialReg::M0, _) => m0,
            (SpecialReg::Null, _) => null,
            (SpecialReg::FlatScratch, Part::Hi) => 231,
            (SpecialReg::FlatScratch, _) => 230,
            (SpecialReg::SharedBase, _) => 235,
            (SpecialReg::SharedLimit, _) => 236,
            (SpecialReg::PrivateBase, _) => 237,
            (SpecialReg::PrivateLimit, _) => 238,
            (SpecialReg::PopsExitingWaveId, _) => 239,
            (SpecialReg::VccZ, _) => 251,
            (SpecialReg::ExecZ, _) => 252,
            (SpecialReg::SrcScc, _) => 253,
            (SpecialReg::LdsDirect, _) => 254,
            _ => return None,
        },
        OperandKind::InlineConst { code, .. } => code as u32,
        OperandKind::Literal(_) => 255,
        OperandKind::Field { ty: "OPR_SRC", value } => value as u32,
        _ => return None,
    })
}

/// Which source (0, 1, 2) a VOP field name holds, if it is one.
pub fn src_index(field: &str) -> Option<usize> {
    match field.as_bytes() {
        [b'S', b'R', b'C', d @ b'0'..=b'2'] => Some((d - b'0') as usize),
        [b'V', b'S', b'R', b'C', d @ b'0'..=b'1'] => Some((d - b'0') as usize),
        _ => None,
    }
}

/// The gfx1013 facts of amd_model.tsv (generated by build/amd_model.rs).
mod gfx10_model {
    use super::Extras;
    use crate::operand::{Access, Flow, Part, SpecialReg};
    include!(concat!(env!("OUT_DIR"), "/gfx10_model.rs"));
}

/// The gfx1201 facts of amd_model.tsv (generated by build/amd_model.rs).
mod gfx12_model {
    use super::Extras;
    use crate::operand::{Access, Flow, Part, SpecialReg};
    include!(concat!(env!("OUT_DIR"), "/gfx12_model.rs"));
}

/// Lines of `crates/decoder/data/amd_model.tsv` that match no instruction of the generation they name (a
/// check against typos, for the tests).
#[doc(hidden)]
pub fn unmatched_rules() -> Vec<String> {
    gfx10_model::LINES
        .iter()
        .zip(gfx12_model::LINES)
        .filter(|((g, _, m10), (_, _, m12))| {
            let in10 = *g != "gfx12" && *m10;
            let in12 = *g != "gfx10" && *m12;
            match *g {
                "gfx10" => !in10,
                "gfx12" => !in12,
                _ => !in10 && !in12,
            }
        })
        .map(|((g, pat, _), _)| format!("{g} {pat}"))
        .collect()
}

/// An instruction's implicit operands (access, register, part, size) and flow kind from
/// amd_model.tsv.
type Extras = (&'static [(Access, SpecialReg, Part, u16)], Option<Flow>);

/// The facts of amd_model.tsv for instruction `inst` of `p`'s ISA.
fn extras_of<Op: Generation>(p: &Amd<Op>, inst: u16) -> Option<&'static Extras> {
    let all = if gfx12(p.isa) { gfx12_model::EXTRAS } else { gfx10_model::EXTRAS };
    all.get(inst as usize)
}

/// The instruction's control-flow kind: the spec's flags, with calls, returns and ends from
/// `crates/decoder/data/amd_model.tsv`.
pub fn flow<Op: Generation>(p: &Amd<Op>, d: &Decoded) -> Flow {
    let ie = p.inst_encoding(d);
    let i = &p.tables().instructions[ie.inst as usize];
    if let Some((_, Some(f))) = extras_of(p, ie.inst) {
        return *f;
    }
    let f = i.flags;
    if f & spec::FLAG_TERMINATOR != 0 {
        Flow::End
    } else if f & spec::FLAG_INDIRECT_BRANCH != 0 {
        Flow::Indirect
    } else if f & spec::FLAG_COND_BRANCH != 0 {
        Flow::CondBranch
    } else if f & spec::FLAG_BRANCH != 0 {
        Flow::Branch
    } else {
        Flow::Next
    }
}

/// The encoding's field of this name.
fn field(e: &spec::Encoding, name: &str) -> Option<&'static Field> {
    e.fields.iter().find(|f| f.name == name)
}

/// True when every bit of `f` is an identity bit of the encoding (DPP / SDWA selector values).
fn is_identity(e: &spec::Encoding, f: &Field) -> bool {
    let mut m = [0u32; 4];
    f.set(&mut m, u64::MAX);
    let fm = m[0] as u128 | (m[1] as u128) << 32 | (m[2] as u128) << 64 | (m[3] as u128) << 96;
    fm & !e.mask == 0
}

/// Facts about a decoded instruction the operand sizes depend on.
struct Ctx<'a, Op: 'static> {
    p: &'a Amd<Op>,
    d: &'a Decoded,
    e: &'static spec::Encoding,
    m: &'static str,
}

impl<Op: Generation> Ctx<'_, Op> {
    fn f(&self, name: &str) -> u32 {
        field(self.e, name).map_or(0, |f| f.get(&self.d.words) as u32)
    }
}

/// Data registers of a gfx12 BVH instruction.
fn image_data<Op: Generation>(c: &Ctx<'_, Op>) -> u16 {
    if c.m.starts_with("image_bvh8") || c.m.starts_with("image_bvh_dual") {
        10
    } else {
        4
    }
}

/// The fields a gfx10 image instruction's printed register counts depend on.
fn mimg_fields<Op: Generation>(c: &Ctx<'_, Op>) -> crate::gfx10::mimg::ImageFields {
    crate::gfx10::mimg::ImageFields {
        nsa: c.f("NSA"),
        dim: c.f("DIM") as usize,
        a16: c.f("A16") != 0,
        d16: c.f("D16") != 0,
        dmask: c.f("DMASK"),
        tfe: c.f("TFE") != 0,
        vdata: c.f("VDATA"),
        vaddr: c.f("VADDR"),
        len: c.d.len as u32,
        sampler: c.p.inst_encoding(c.d).operands.iter().any(|o| o.field.is_some_and(|f| f.name == "SSAMP")),
    }
}

/// The register counts a gfx12 image instruction (not BVH) prints.
fn g12_image_shape<Op: Generation>(c: &Ctx<'_, Op>) -> crate::gfx12::vimage::Shape {
    let sample = c.e.name == "ENC_VSAMPLE";
    let vaddr = ["VADDR0", "VADDR1", "VADDR2", "VADDR3", "VADDR4"].map(|n| c.f(n));
    let f = crate::gfx12::vimage::ImageFields {
        sample,
        dim: c.f("DIM") as usize & 7,
        a16: c.f("A16") != 0,
        d16: c.f("D16") != 0,
        tfe: c.f("TFE") != 0,
        dmask: c.f("DMASK"),
        vdata: c.f("VDATA"),
        vaddr: &vaddr[..if sample { 4 } else { 5 }],
    };
    crate::gfx12::vimage::shape(c.m, &f)
}

/// gfx12 BVH address groups (registers per VADDR slot).
fn g12_bvh_groups(m: &str, a16: bool) -> &'static [u32] {
    if m.starts_with("image_bvh8") {
        &[2, 2, 3, 3, 1]
    } else if m.starts_with("image_bvh_dual") {
        &[2, 2, 3, 3, 2]
    } else if m.starts_with("image_bvh64") {
        if a16 {
            &[2, 1, 3, 3]
        } else {
            &[2, 1, 3, 3, 3]
        }
    } else if a16 {
        &[1, 1, 3, 3]
    } else {
        &[1, 1, 3, 3, 3]
    }
}

fn vreg(first: u32, n: u16) -> OperandKind {
    OperandKind::Reg(RegRange { class: RegClass::Vgpr, first: first as u16, count: n.max(1) })
}

fn off() -> OperandKind {
    OperandKind::Special { reg: SpecialReg::Null, part: Part::Whole }
}

fn access(flags: u8) -> Access {
    match (flags & 1 != 0, flags & 2 != 0) {
        (true, true) => Access::ReadWrite,
        (false, true) => Access::Write,
        _ => Access::Read,
    }
}

/// The instruction in the operand model.
pub fn operands<Op: Generation>(p: &Amd<Op>, d: &Decoded, addr: u64) -> Inst {
    let t = p.tables();
    let ie = p.inst_encoding(d);
    let e = p.encoding(d);
    let ins = &t.instructions[ie.inst as usize];
    let isa = p.isa;
    let w = &d.words;
    let base = e.bits as usize / 32;
    let has_lit = d.len as usize > base * 4 && !(e.name == "ENC_MIMG" && field(e, "NSA").is_some_and(|f| f.get(w) != 0));
    let lit = if has_lit { w.get(base).copied().unwrap_or(0) } else { 0 };
    let lit_opt = has_lit.then_some(lit);
    let enc = e.name;
    let c = Ctx { p, d, e, m: ins.mnemonic };
    let m = ins.mnemonic;
    let g12 = gfx12(isa);
    let mut ops: Vec<Operand> = Vec::new();
    let mut used: Vec<&'static str> = vec!["ENCODING", "OP"];
    let null = if g12 { 124 } else { 125 };
    let push = |ops: &mut Vec<Operand>, access, kind, size, field: &'static str| {
        ops.push(Operand { access, kind, size, implicit: false, field, mods: SrcMods::default() })
    };

    // Returning atomics print a destination the spec's (non-returning) operand list lacks.
    let ret_dst = match enc {
        "ENC_FLAT" | "ENC_FLAT_GLBL" | "ENC_FLAT_SCRATCH" => m.contains("_atomic_") && c.f("GLC") != 0,
        "ENC_VFLAT" | "ENC_VGLOBAL" | "ENC_VSCRATCH" => {
            m.contains("atomic") && c.f("TH") & 1 != 0 && !ie.operands.iter().any(|o| o.field.is_some_and(|f| f.name == "VDST"))
        }
        _ => false,
    };
    if ret_dst {
        if let Some(data) = ie.operands.iter().find(|o| o.field.is_some_and(|f| f.name == "DATA" || f.name == "VDATA")) {
            let size = if m.contains("cmpswap") { data.size / 2 } else { data.size };
            push(&mut ops, Access::Write, vreg(c.f("VDST"), count(size)), size, "VDST");
            used.push("VDST");
        }
    }

    let kinds_of = |o: &spec::Operand| Kind::of(t.data_formats[o.fmt as usize], o.size);
    let sdwa = enc.ends_with("_SDWA");
    let bvh = m.starts_with("image_bvh");
    // gfx10 VOP3 forms of v_interp_p1_f32 / p2_f32 / mov_f32 (the spec lists no attribute).
    let interp_e64 = !g12 && enc == "ENC_VOP3" && m.starts_with("v_interp_") && m.ends_with("_f32");
    for o in ie.operands.iter() {
        let ty = t.operand_types[o.ty as usize].name;
        let acc = access(o.flags);
        let kind = kinds_of(o);
        let cty = const_type(kind);
        let Some(f) = o.field else {
            // Spec operands without a field: VCC of VOPC / carry forms, a fixed literal, attr.
            if enc == "ENC_VOPC_SDWA" && c.f("SD") != 0 {
                // SD selects an explicit scalar destination instead of VCC.
                used.push("SD");
                used.push("SDST");
                let kind = src_kind(isa, c.f("SDST"), 32, ConstType::Int, None);
                push(&mut ops, acc, kind, o.size, "SDST");
                continue;
            }
            let kind = match ty {
                "OPR_SIMM32" => OperandKind::Literal(lit),
                _ if m.starts_with("v_interp") => OperandKind::Field { ty: "OPR_ATTR", value: 0 },
                _ => OperandKind::Special { reg: SpecialReg::Vcc, part: if o.size > 32 { Part::Whole } else { Part::Lo } },
            };
            let implicit = ty != "OPR_SIMM32";
            ops.push(Operand {
                access: acc,
                kind,
                size: o.size,
                implicit,
                field: if implicit { "" } else { LITERAL_FIELD },
                mods: SrcMods::default(),
            });
            continue;
        };
        let name = f.name;
        used.push(name);
        let v = f.get(w) as u32;
        let size = o.size;
        // Family rules for the registers a field names.
        let fam: Option<(OperandKind, u16)> = match (enc, name) {
            ("ENC_VINTRP", _) if ty != "OPR_VGPR" && ty != "OPR_ATTR" => {
                Some((OperandKind::Field { ty: "OPR_INTERP_PARAM", value: v as u64 }, size))
            }
            // The VOP3 form of v_interp_mov_f32: SRC1 selects the parameter.
            ("ENC_VOP3", "SRC1") if interp_e64 && m == "v_interp_mov_f32" => {
                Some((OperandKind::Field { ty: "OPR_INTERP_PARAM", value: v as u64 }, size))
            }
            ("ENC_SMEM", "SBASE") => {
                let b = if g12 && size >= 128 { (v * 2) & !3 } else { v * 2 };
                Some((src_kind(isa, b, size, cty, None), size))
            }
            ("ENC_SMEM", "SDATA") if m.starts_with("s_atc_probe") || m.contains("prefetch") => {
                Some((OperandKind::Imm(v as i64), size))
            }
            ("ENC_SMEM", "SOFFSET") if !m.contains("prefetch") => {
                let kind = if v == null { off() } else { src_kind(isa, v, 32, cty, None) };
                Some((kind, 32))
            }
            ("ENC_SMEM", "IOFFSET") => Some((OperandKind::Imm(sext(v, 24)), 32)),
            ("ENC_MUBUF" | "ENC_MTBUF", "SRSRC") => Some((src_kind(isa, v * 4, 128, cty, None), 128)),
            ("ENC_MIMG", "SRSRC") => Some((src_kind(isa, v * 4, if bvh { 128 } else { 256 }, cty, None), if bvh { 128 } else { 256 })),
            ("ENC_MIMG", "SSAMP") => Some((src_kind(isa, v * 4, 128, cty, None), 128)),
            ("ENC_VIMAGE" | "ENC_VSAMPLE", "RSRC") => {
                let s = if c.f("R128") != 0 && enc == "ENC_VIMAGE" { 128 } else { 256 };
                let s = if bvh { 128 } else { s };
                // (255: the literal dword, as LLVM reads it)
                Some((src_kind(isa, v, s, cty, lit_opt), s))
            }
            ("ENC_VSAMPLE", "SAMP") => Some((src_kind(isa, v, 128, cty, lit_opt), 128)),
            ("ENC_VBUFFER", "RSRC") => Some((src_kind(isa, v, 128, cty, None), 128)),
            ("ENC_FLAT" | "ENC_FLAT_GLBL" | "ENC_FLAT_SCRATCH", "VDST") if c.f("LDS") != 0 => {
                used.pop();
                continue;
            }
            ("ENC_MUBUF", "VDATA") if c.f("LDS") != 0 => {
                used.pop();
                continue;
            }
            ("ENC_MUBUF" | "ENC_MTBUF" | "ENC_VBUFFER", "VADDR") => match (c.f("OFFEN") != 0, c.f("IDXEN") != 0) {
                (false, false) => Some((off(), 32)),
                (true, true) => Some((vreg(v, 2), 64)),
                _ => Some((vreg(v, 1), 32)),
            },
            ("ENC_MUBUF" | "ENC_MTBUF" | "ENC_VBUFFER", "VDATA") => {
                let s = size + if c.f("TFE") != 0 { 32 } else { 0 };
                Some((vreg(v, count(s)), s))
            }
            ("ENC_MUBUF" | "ENC_MTBUF", "SOFFSET") => Some((src_kind(isa, v, 32, ConstType::Int, lit_opt), 32)),
            ("ENC_MIMG", "VDATA") => {
                // The data registers the printer lists (LLVM's count for dmask, d16 and tfe, or
                // the decoded variant's where LLVM keeps that one).
                let n = crate::gfx10::mimg::printed_data(m, &mimg_fields(&c)) as u16;
                Some((vreg(v, n), n * 32))
            }
            ("ENC_VIMAGE" | "ENC_VSAMPLE", "VDATA") => {
                let n = if bvh { image_data(&c) } else { g12_image_shape(&c).data as u16 };
                Some((vreg(v, n), n * 32))
            }
            ("ENC_MIMG", "VADDR") => {
                // The address registers the printer lists (LLVM's count for the dim and a16,
                // or the decoded variant's where that one does not exist), so building keeps
                // every byte it prints.
                let n = crate::gfx10::mimg::printed_addresses(m, &mimg_fields(&c));
                if c.f("NSA") != 0 {
                    for i in 1..n {
                        used.push(NSA_FIELDS[(i - 1) as usize % 12]);
                    }
                    push(&mut ops, acc, vreg(v, 1), 32, name);
                    for i in 1..n {
                        let r = spec::extract(w, 64 + 8 * (i - 1), 8) as u32;
                        push(&mut ops, acc, vreg(r, 1), 32, NSA_FIELDS[(i - 1) as usize % 12]);
                    }
                    continue;
                }
                Some((vreg(v, n as u16), (n * 32) as u16))
            }
            ("ENC_VIMAGE" | "ENC_VSAMPLE", f) if f.starts_with("VADDR") => {
                // The address registers: one operand per slot the instruction reads (the last
                // slot holds the rest of the addresses as a range; BVH forms in fixed groups).
                used.pop();
                const SLOTS: [&str; 5] = ["VADDR0", "VADDR1", "VADDR2", "VADDR3", "VADDR4"];
                let slots: u32 = if enc == "ENC_VSAMPLE" { 4 } else { 5 };
                let a16 = c.f("A16") != 0;
                let counts: Vec<u32> = if bvh {
                    g12_bvh_groups(m, a16).to_vec()
                } else {
                    let n = g12_image_shape(&c).addrs.max(1);
                    (0..n.min(slots)).map(|i| if i == slots - 1 { n - i } else { 1 }).collect()
                };
                for (i, &cnt) in counts.iter().enumerate().take(slots as usize) {
                    let fname = SLOTS[i];
                    if used.contains(&fname) {
                        continue;
                    }
                    used.push(fname);
                    push(&mut ops, acc, vreg(c.f(fname), cnt as u16), (cnt * 32) as u16, fname);
                }
                continue;
            }
            ("ENC_FLAT" | "ENC_FLAT_GLBL" | "ENC_FLAT_SCRATCH", "ADDR") | ("ENC_VFLAT" | "ENC_VGLOBAL" | "ENC_VSCRATCH", "VADDR") => {
                let saddr = c.f("SADDR");
                let saddr_off = if g12 { saddr == null } else { saddr == 0x7d };
                let scratch_off =
                    if g12 { enc == "ENC_VSCRATCH" && c.f("SVE") == 0 } else { enc == "ENC_FLAT_SCRATCH" && !saddr_off };
                if scratch_off {
                    Some((off(), 32))
                } else if (enc == "ENC_FLAT_GLBL" || enc == "ENC_VGLOBAL") && !saddr_off {
                    Some((vreg(v, 1), 32))
                } else {
                    Some((vreg(v, count(size)), size))
                }
            }
            ("ENC_FLAT" | "ENC_FLAT_GLBL" | "ENC_FLAT_SCRATCH" | "ENC_VFLAT" | "ENC_VGLOBAL" | "ENC_VSCRATCH", "SADDR") => {
                let saddr_off = if g12 { v == null } else { v == 0x7d };
                let s = if enc == "ENC_FLAT_GLBL" || enc == "ENC_VGLOBAL" { 64 } else { 32 };
                if saddr_off {
                    Some((OperandKind::Field { ty: "OFF", value: v as u64 }, s))
                } else {
                    Some((src_kind(isa, v, s, ConstType::Int, None), s))
                }
            }
            ("ENC_VOPD", "VDSTY") => {
                let r = (v << 1) | ((c.f("VDSTX") & 1) ^ 1);
                Some((vreg(r, 1), 32))
            }
            ("ENC_EXP" | "ENC_VEXPORT", f) if f.starts_with("VSRC") => {
                // Export sources: `off` for disabled lanes (compressed pairs share a register).
                let i = name.as_bytes().get(4).map_or(0, |b| b.wrapping_sub(b'0')) as u32;
                let en = c.f("EN");
                let compr = c.f("COMPR") != 0;
                // Compressed: VSRC0 carries lanes 0-1 and VSRC1 lanes 2-3 (16 bits each).
                let on = if compr { i < 2 && en >> (2 * i) & 3 != 0 } else { en >> i & 1 != 0 };
                if on {
                    Some((vreg(v, 1), 32))
                } else {
                    Some((OperandKind::Field { ty: "OFF", value: v as u64 }, 32))
                }
            }
            _ if sdwa && src_index(name).is_some() => {
                // SDWA sources: bit 8 of SRC0 / the S1 bit select a scalar operand.
                let i = src_index(name).unwrap_or(0);
                let scalar = if i == 0 { v >> 8 & 1 != 0 } else { c.f("S1") != 0 && enc != "ENC_VOP1_SDWA" };
                if i == 1 {
                    used.push("S1");
                }
                let code = if scalar { v & 0xff } else { 256 + (v & 0xff) };
                Some((src_kind(isa, code, size, cty, lit_opt), size))
            }
            ("ENC_VOPC_SDWA", "SDST") => {
                used.push("SD");
                if c.f("SD") != 0 {
                    Some((src_kind(isa, v, size.max(32), ConstType::Int, None), size))
                } else {
                    Some((OperandKind::Special { reg: SpecialReg::Vcc, part: Part::Lo }, size))
                }
            }
            _ => None,
        };
        let (kind, size) = match fam {
            Some(k) => k,
            None => {
                let kind = match ty {
                    "OPR_SREG" | "OPR_SDST" | "OPR_SSRC" | "OPR_SRC" => {
                        if f.width() >= 9 || v < 256 {
                            let ct = if matches!(ty, "OPR_SSRC" | "OPR_SRC") && f.width() == 8 && e.bits == 32 && !matches!(kind, Kind::F32 | Kind::F64 | Kind::I32 | Kind::I64) {
                                ConstType::Int
                            } else {
                                cty
                            };
                            src_kind(isa, v, size, ct, lit_opt)
                        } else {
                            src_kind(isa, v, size, cty, lit_opt)
                        }
                    }
                    "OPR_VGPR" => {
                        if f.width() >= 9 {
                            src_kind(isa, v, size, cty, lit_opt)
                        } else {
                            vreg(v, count(size))
                        }
                    }
                    "OPR_LABEL" => OperandKind::Label(addr.wrapping_add(4).wrapping_add(((v as u16 as i16 as i64) * 4) as u64)),
                    "OPR_SIMM16" | "OPR_IMM" => OperandKind::Imm(v as i64),
                    "OPR_SIMM32" => OperandKind::Literal(lit),
                    "OPR_SMEM_OFFSET" => OperandKind::Imm(sext(v, f.width())),
                    other => OperandKind::Field { ty: other, value: v as u64 },
                };
                (kind, size)
            }
        };
        push(&mut ops, acc, kind, size, name);
    }
    if interp_e64 {
        // The VOP3 forms of the VINTRP instructions: SRC0 holds the attribute and channel
        // (and the high-half bit), printed after the source as LLVM does.
        used.push("SRC0");
        let a = c.f("SRC0");
        let at = ops.iter().position(|o| o.field == "SRC1").map_or(ops.len(), |k| k + 1);
        ops.insert(
            at,
            Operand { access: Access::Read, kind: OperandKind::Field { ty: "OPR_ATTR", value: a as u64 }, size: 32, implicit: false, field: "SRC0", mods: SrcMods::default() },
        );
    }

    // Source modifiers and the remaining fields.
    let mut mods: Vec<Modifier> = Vec::new();
    let src_op = |ops: &mut Vec<Operand>, i: usize| -> Option<usize> {
        ops.iter().position(|o| !o.implicit && src_index(o.field) == Some(i) && !(o.field == "SRC0" && dpp_src0_marker(e)))
    };
    let mut lane_sel: Option<u32> = None;
    let mut src_sel: Option<(u8, u8)> = None;
    let mut opsel_hi: Option<u32> = None;
    for f in e.fields.iter() {
        if used.contains(&f.name) || is_identity(e, f) {
            continue;
        }
        let v = f.get(w);
        let name = f.name;
        match name {
            "NEG_HI" if m.starts_with("v_fma_mix") => {
                // v_fma_mix*: NEG_HI is the per-source absolute value.
                let mut rest = v;
                for i in 0..3 {
                    if v >> i & 1 != 0 {
                        if let Some(k) = src_op(&mut ops, i) {
                            ops[k].mods.abs = true;
                            rest &= !(1 << i);
                        }
                    }
                }
                if rest != 0 {
                    mods.push(Modifier::Named(name, rest));
                }
            }
            "NEG" | "ABS" => {
                let mut rest = v;
                for i in 0..3 {
                    if v >> i & 1 == 0 {
                        continue;
                    }
                    if let Some(k) = src_op(&mut ops, i) {
                        if name == "NEG" {
                            ops[k].mods.neg = true;
                        } else {
                            ops[k].mods.abs = true;
                        }
                        rest &= !(1 << i);
                    }
                }
                if rest != 0 {
                    mods.push(Modifier::Named(name, rest));
                }
            }
            "SRC0_NEG" | "SRC1_NEG" | "SRC0_ABS" | "SRC1_ABS" | "SRC0_SEXT" | "SRC1_SEXT" => {
                if v == 0 {
                    continue;
                }
                let i = (name.as_bytes()[3] - b'0') as usize;
                match src_op(&mut ops, i) {
                    Some(k) => match &name[5..] {
                        "NEG" => ops[k].mods.neg = true,
                        "ABS" => ops[k].mods.abs = true,
                        _ => ops[k].mods.not = true,
                    },
                    None => mods.push(Modifier::Named(name, v)),
                }
            }
            "CLAMP" if v != 0 => mods.push(Modifier::Clamp),
            "OMOD" if v != 0 => mods.push(Modifier::Omod(v as u8)),
            "OPSEL" if v != 0 => mods.push(Modifier::OpSel(v as u8)),
            "OPSEL_HI" => *opsel_hi.get_or_insert(0) |= v as u32,
            "OPSEL_HI2" => *opsel_hi.get_or_insert(0) |= (v as u32) << 2,
            "DPP_CTRL" => mods.push(Modifier::DppCtrl(v as u16)),
            "ROW_MASK" => mods.push(Modifier::RowMask(v as u8)),
            "BANK_MASK" => mods.push(Modifier::BankMask(v as u8)),
            "BOUND_CTRL" if v != 0 => mods.push(Modifier::BoundCtrl),
            "FI" if v != 0 => mods.push(Modifier::FetchInactive),
            "DST_SEL" => mods.push(Modifier::DstSel(v as u8)),
            "DST_U" => mods.push(Modifier::DstUnused(v as u8)),
            "SRC0_SEL" => src_sel.get_or_insert((0, 0)).0 = v as u8,
            "SRC1_SEL" => src_sel.get_or_insert((0, 0)).1 = v as u8,
            n if n.starts_with("LANE_SEL") => {
                let i = (n.as_bytes()[8] - b'0') as u32;
                *lane_sel.get_or_insert(0) |= (v as u32 & 7) << (3 * i);
            }
            _ if v != 0 => mods.push(Modifier::Named(name, v)),
            _ => {}
        }
    }
    // Bits no field of the encoding covers, kept as they are (llvm-mc's canonical form keeps
    // some of them).
    let mut cover = [0u32; 4];
    for f in e.fields.iter() {
        f.set(&mut cover, u64::MAX);
    }
    for (i, x) in cover.iter_mut().enumerate().take(e.bits as usize / 32) {
        *x |= (e.mask >> (32 * i)) as u32;
        let rest = w[i] & !*x;
        if rest != 0 {
            mods.push(Modifier::Named(RESERVED_FIELDS[i], rest as u64));
        }
    }
    // DPP8 forms tell fetch-inactive by their second identity value.
    if e.idents.len() > 1 && field(e, "FI").is_none() {
        let x = w[0] as u128 | (w[1] as u128) << 32 | (w[2] as u128) << 64;
        if e.idents.get(1).is_some_and(|&i| x & e.mask == i) {
            mods.push(Modifier::FetchInactive);
        }
    }
    if let Some(h) = opsel_hi.filter(|&h| h != 0) {
        mods.push(Modifier::OpSelHi(h as u8));
    }
    if let Some(l) = lane_sel {
        mods.push(Modifier::Dpp8(l));
    }
    if let Some((a, b)) = src_sel {
        mods.push(Modifier::SrcSel(a, b));
    }

    // Implicit operands the spec does not list.
    if let Some((extra, _)) = extras_of(p, ie.inst) {
        for &(access, reg, part, size) in *extra {
            ops.push(Operand {
                access,
                kind: OperandKind::Special { reg, part },
                size,
                implicit: true,
                field: "",
                mods: SrcMods::default(),
            });
        }
    }

    Inst {
        isa,
        addr,
        len: d.len,
        opcode: ie.inst,
        name: ins.name,
        encoding: enc,
        operands: ops,
        modifiers: mods,
        flow: flow(p, d),
        guard: None,
        control: None,
    }
}

/// True when the encoding's SRC0 field is a DPP / SDWA selector (the source is VSRC0).
fn dpp_src0_marker(e: &spec::Encoding) -> bool {
    e.fields.iter().any(|f| f.name == "VSRC0")
}

/// Sign-extends the low `bits` of `v`.
fn sext(v: u32, bits: u32) -> i64 {
    let s = 64 - bits.clamp(1, 64);
    ((v as i64) << s) >> s
}

