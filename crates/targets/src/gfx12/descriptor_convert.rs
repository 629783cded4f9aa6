//! Descriptor conversion gfx1013 -> gfx1201 (the compute part): the buffer format enum,
//! the buffer resource (V#) and the sampler (S#), as words ([`buffer_rsrc_gfx12`],
//! [`sampler_gfx12`]) and as gfx1201 scalar instructions that convert a V# held in SGPRs just
//! before an instruction reads it ([`buffer_rsrc_ops`], placed by [`convert_resources`]). Bit positions and widths are those of
//! the AMD fact tables (`shared/facts/amd/descriptor_fields_gfx10_gfx11_gfx12.csv`), format
//! numbers those of `descriptor_enums.csv` (gfx10 `IMG_FORMAT`, which is also the buffer
//! format, to gfx12 `BUF_FMT`, matched by name).
//!
//! What has no gfx1201 equal is a typed [`DescriptorError`], never a guess: swizzled buffers
//! (gfx1013 SWIZZLE_ENABLE; gfx1201's field is two bits whose values the tables do not give),
//! buffer formats gfx1201 lacks, samplers with DERIV_ADJUST_EN (their words 2 and 3 hold other
//! fields), BLEND_ZERO_PRT or MIP_POINT_PRECLAMP (no gfx1201 field).

use super::function::FunctionError;
use super::layout::Temps;
use super::map::{gfx12_encoding, gfx12_opcode};
use super::{TranslateError, TranslatedInst};
use isabridge_decoder::operand::{Access, ConstType, Flow, Operand, OperandKind, RegClass, RegRange, SrcMods};
use isabridge_decoder::{Inst, Isa};

/// Why a gfx1013 descriptor has no gfx1201 equal.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DescriptorError {
    /// The buffer is swizzled (V# word 1 bit 31).
    #[error("swizzled buffer (SWIZZLE_ENABLE): gfx1201's swizzle field has no known equal")]
    Swizzled,
    /// The buffer format has no gfx1201 number.
    #[error("buffer format {0} has no gfx1201 equal")]
    Format(u8),
    /// The V# TYPE field is not a buffer.
    #[error("descriptor type {0} is not a buffer")]
    NotBuffer(u8),
    /// A sampler field gfx1201 lacks is set.
    #[error("sampler field {0} is set; gfx1201 has no such field")]
    SamplerField(&'static str),
}

/// gfx1013 buffer format -> gfx1201 buffer format, for every name both tables have.
const BUF_FORMAT_GFX10_GFX12: [(u8, u8); 64] = [
    (0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6), (7, 7), (8, 8), (9, 9),
    (10, 10), (11, 11), (12, 12), (13, 13), (14, 14), (15, 15), (16, 16), (17, 17), (18, 18), (19, 19),
    (20, 20), (21, 21), (22, 22), (23, 23), (24, 24), (25, 25), (26, 26), (27, 27), (28, 28), (29, 29),
    (36, 30), (43, 31), (44, 32), (45, 33), (48, 34), (49, 35), (50, 36), (51, 37), (52, 38), (53, 39),
    (54, 40), (55, 41), (56, 42), (57, 43), (58, 44), (59, 45), (60, 46), (61, 47), (62, 48), (63, 49),
    (64, 50), (65, 51), (66, 52), (67, 53), (68, 54), (69, 55), (70, 56), (71, 57), (72, 58), (73, 59),
    (74, 60), (75, 61), (76, 62), (77, 63),
];

/// The gfx1201 buffer format (`BUF_FMT_*`) with the same name as gfx1013 buffer format `f`
/// (`IMG_FORMAT_*` numbering), or None where gfx1201 has no such format (the 10_11_11 and
/// 11_11_10 integer and normalised forms, 10_10_10_2 scaled).
pub fn buffer_format_gfx12(f: u8) -> Option<u8> {
    BUF_FORMAT_GFX10_GFX12.iter().find(|&&(a, _)| a == f).map(|&(_, b)| b)
}

/// The bits `[off, off + width)` of `w`.
fn bits(w: u32, off: u32, width: u32) -> u32 {
    (w >> off) & ((1u64 << width) - 1) as u32
}

/// gfx1013 buffer resource (V#) `w` as gfx1201 reads the same buffer. Words 0 and 2 (base
/// address, record count) and word 1's base-high and stride keep their places; word 3 keeps the
/// destination selects, index stride, ADD_TID, OOB_SELECT and TYPE at their bits, renumbers the
/// format (7 bits -> 6 bits at bit 12), and clears what gfx1201 reads otherwise: bit 24
/// (gfx1013 RESOURCE_LEVEL, gfx1201 WRITE_COMPRESS_ENABLE), bits 18-20 (gfx1201 STRIDE_SCALE
/// 18-19: stride x1) and 25-27 (gfx1201 compression). Word 1 bit 30 (CACHE_SWIZZLE, a cache
/// hint) is dropped.
pub fn buffer_rsrc_gfx12(w: [u32; 4]) -> Result<[u32; 4], DescriptorError> {
    if bits(w[3], 30, 2) != 0 {
        return Err(DescriptorError::NotBuffer(bits(w[3], 30, 2) as u8));
    }
    if bits(w[1], 31, 1) != 0 {
        return Err(DescriptorError::Swizzled);
    }
    let f10 = bits(w[3], 12, 7) as u8;
    let f12 = buffer_format_gfx12(f10).ok_or(DescriptorError::Format(f10))?;
    let w1 = w[1] & 0x3fff_ffff;
    let w3 = (w[3] & W3_KEEP) | (u32::from(f12) << 12);
    Ok([w[0], w1, w[2], w3])
}

/// Word 3 bits that mean the same in both generations: DST_SEL_X..W (0-11), INDEX_STRIDE and
/// ADD_TID_ENABLE (21-23), OOB_SELECT and TYPE (28-31).
const W3_KEEP: u32 = 0xf0e0_0fff;

/// gfx1013 sampler (S#) `w` as gfx1201 reads the same sampler. Word 0 is the same field for
/// field. Word 1: MIN_LOD and MAX_LOD (12 bits at 0 and 12) move to 13-bit fields at 0 and 13,
/// zero-extended (both count 1/256 of a level), PERF_Z stays at 28, PERF_MIP (4 bits at 24)
/// moves to word 2 bits 30-31 (its bits 1:0) and word 3 bits 0-1 (its bits 3:2). Word 2 keeps
/// LOD_BIAS .. MIP_FILTER (0-27) and ANISO_OVERRIDE (29). Word 3: BORDER_COLOR_PTR moves from
/// bit 0 to bit 18, BORDER_COLOR_TYPE stays at 30.
pub fn sampler_gfx12(w: [u32; 4]) -> Result<[u32; 4], DescriptorError> {
    for (word, bit, name) in [(2, 31, "DERIV_ADJUST_EN"), (2, 30, "BLEND_ZERO_PRT"), (2, 28, "MIP_POINT_PRECLAMP")] {
        if bits(w[word], bit, 1) != 0 {
            return Err(DescriptorError::SamplerField(name));
        }
    }
    let perf_mip = bits(w[1], 24, 4);
    let w1 = bits(w[1], 0, 12) | (bits(w[1], 12, 12) << 13) | (bits(w[1], 28, 4) << 28);
    let w2 = (w[2] & 0x2fff_ffff) | ((perf_mip & 3) << 30);
    let w3 = (perf_mip >> 2) | (bits(w[3], 0, 12) << 18) | (bits(w[3], 30, 2) << 30);
    Ok([w[0], w1, w2, w3])
}

/// Registers [`buffer_rsrc_ops`] works in: four aligned SGPRs for the converted V# and four
/// single SGPRs for intermediate values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RsrcTemps {
    /// Four SGPRs (first one a multiple of 4) that receive the converted V#.
    pub rsrc: RegRange,
    /// First of four SGPRs for the format code, its conversion, a difference and the saved SCC.
    pub scratch: u16,
}

/// gfx1201 scalar instructions, placed just before an instruction that reads the gfx1013 V#
/// in `src` (four SGPRs), that write the gfx1201 V# [`buffer_rsrc_gfx12`] gives into
/// `temps.rsrc` (the instruction then reads `temps.rsrc`; `src` keeps the gfx1013 V#). SCC is
/// saved and restored. At run time the value cannot be refused, so what
/// [`buffer_rsrc_gfx12`] refuses is carried as follows: a format without a gfx1201 number
/// becomes BUF_FMT_INVALID (0), which gfx1201, like gfx1013, reads as no format; word 1's
/// SWIZZLE_ENABLE bit is kept (bit 31, where gfx1201 reads two swizzle bits), so a swizzled
/// buffer stays marked swizzled rather than read as a linear one.
pub fn buffer_rsrc_ops(src: RegRange, temps: RsrcTemps, addr: u64) -> Vec<Inst> {
    let s = |k: u16| sgpr(k);
    let (f, g, d, scc) = (temps.scratch, temps.scratch + 1, temps.scratch + 2, temps.scratch + 3);
    let t = temps.rsrc.first;
    let mut v = vec![
        // scc_saved = SCC
        sop2(addr, "S_CSELECT_B32", s(scc), int(1), int(0)),
        sop1(addr, "S_MOV_B32", s(t), sgpr(src.first)),
        // Word 1 without CACHE_SWIZZLE (bit 30).
        sop2(addr, "S_AND_B32", s(t + 1), sgpr(src.first + 1), lit(0xbfff_ffff)),
        sop1(addr, "S_MOV_B32", s(t + 2), sgpr(src.first + 2)),
        // f = gfx1013 format (7 bits at 12); g = its gfx1201 number.
        sop2(addr, "S_BFE_U32", s(f), sgpr(src.first + 3), lit((7 << 16) | 12)),
        sop1(addr, "S_MOV_B32", s(g), sgpr(f)),
    ];
    // The table's runs: formats 0-29 keep their number, 36 -> 30, 43-45 -> 31-33, 48-77 -> 34-63;
    // the others have none (-> 0).
    let cmp = |v: &mut Vec<Inst>, op: &'static str, k: u32| v.push(sopc(addr, op, sgpr(f), int_or_lit(k)));
    cmp(&mut v, "S_CMP_GT_U32", 29);
    v.push(sop2(addr, "S_CSELECT_B32", s(g), int(0), sgpr(g)));
    cmp(&mut v, "S_CMP_EQ_U32", 36);
    v.push(sop2(addr, "S_CSELECT_B32", s(g), int_or_lit(30), sgpr(g)));
    for (from, to, delta) in [(43u32, 45u32, 12u32), (48, 77, 14)] {
        v.push(sop2(addr, "S_SUB_CO_U32", s(d), sgpr(f), int_or_lit(delta)));
        cmp(&mut v, "S_CMP_GE_U32", from);
        v.push(sop2(addr, "S_CSELECT_B32", s(g), sgpr(d), sgpr(g)));
        cmp(&mut v, "S_CMP_GT_U32", to);
        v.push(sop2(addr, "S_CSELECT_B32", s(g), int(0), sgpr(g)));
    }
    v.extend([
        sop2(addr, "S_LSHL_B32", s(g), sgpr(g), int_or_lit(12)),
        sop2(addr, "S_AND_B32", s(t + 3), sgpr(src.first + 3), lit(W3_KEEP)),
        sop2(addr, "S_OR_B32", s(t + 3), sgpr(t + 3), sgpr(g)),
        // SCC = scc_saved
        sopc(addr, "S_CMP_LG_U32", sgpr(scc), int(0)),
    ]);
    v
}

fn sgpr(k: u16) -> OperandKind {
    OperandKind::Reg(RegRange { class: RegClass::Sgpr, first: k, count: 1 })
}

/// An inline integer constant (0..=64).
fn int(k: u32) -> OperandKind {
    OperandKind::InlineConst { code: 128 + k as u16, bits: u64::from(k), ty: ConstType::Int }
}

fn lit(k: u32) -> OperandKind {
    OperandKind::Literal(k)
}

fn int_or_lit(k: u32) -> OperandKind {
    if k <= 64 {
        int(k)
    } else {
        lit(k)
    }
}

fn operand(access: Access, field: &'static str, kind: OperandKind) -> Operand {
    Operand { access, kind, size: 32, implicit: false, field, mods: SrcMods::default() }
}

fn make(addr: u64, name: &str, enc: &str, operands: Vec<Operand>) -> Inst {
    // Every name and encoding here is in the gfx1201 tables (the unit test builds each).
    let (opcode, name) = gfx12_opcode(name).unwrap_or((u16::MAX, "?"));
    let encoding = gfx12_encoding(enc).unwrap_or("?");
    Inst { isa: Isa::Gfx1201, addr, len: 0, opcode, name, encoding, operands, modifiers: Vec::new(), flow: Flow::Next, guard: None, control: None }
}

fn sop1(addr: u64, name: &str, dst: OperandKind, a: OperandKind) -> Inst {
    make(addr, name, "ENC_SOP1", vec![operand(Access::Write, "SDST", dst), operand(Access::Read, "SSRC0", a)])
}

fn sop2(addr: u64, name: &str, dst: OperandKind, a: OperandKind, b: OperandKind) -> Inst {
    make(addr, name, "ENC_SOP2", vec![operand(Access::Write, "SDST", dst), operand(Access::Read, "SSRC0", a), operand(Access::Read, "SSRC1", b)])
}

fn sopc(addr: u64, name: &str, a: OperandKind, b: OperandKind) -> Inst {
    make(addr, name, "ENC_SOPC", vec![operand(Access::Read, "SSRC0", a), operand(Access::Read, "SSRC1", b)])
}

/// Converts the buffer descriptors of translated code just before each use: every VBUFFER
/// instruction's RSRC and every `s_buffer_load_*`'s SBASE (a gfx1013 V# in four SGPRs) is
/// copied through [`buffer_rsrc_ops`] into temporaries from `temps`, which the instruction then
/// reads; the program's own registers keep the gfx1013 V#, so a descriptor used several times,
/// or also read as data, is never converted twice. The conversion runs on every path to the use
/// because it sits right before it. One set of eight SGPRs serves every use (each use reads its
/// copy as it issues, and the next conversion is later in program order). Image descriptors
/// (T#, S#) and BVH descriptors are not converted yet, so a function with an image or BVH
/// instruction is refused (a typed error naming it) rather than run on a gfx1013 descriptor.
pub fn convert_resources(insts: Vec<TranslatedInst>, temps: &mut Temps) -> Result<Vec<TranslatedInst>, FunctionError> {
    if let Some(t) = insts.iter().find(|t| matches!(t.inst.encoding, "ENC_VIMAGE" | "ENC_VSAMPLE")) {
        return Err(FunctionError::Translate(TranslateError::Unsupported {
            isa: Isa::Gfx1013,
            addr: t.src_addr,
            name: t.inst.name,
            reason: if t.inst.name.starts_with("IMAGE_BVH") {
                // ../shared/facts/amd has no BVH descriptor fields for either generation.
                "BVH descriptor conversion: no fact gives gfx1201's BVH descriptor layout".to_string()
            } else {
                "image descriptor (T#) conversion not written yet".to_string()
            },
        }));
    }
    let uses = |t: &TranslatedInst| t.inst.encoding == "ENC_VBUFFER" || t.inst.name.starts_with("S_BUFFER_LOAD");
    if !insts.iter().any(uses) {
        return Ok(insts);
    }
    // Four aligned SGPRs for the V#, then four for intermediate values.
    while !temps.sgprs.is_multiple_of(4) {
        temps.sgprs(1)?;
    }
    let rsrc = temps.sgprs(4)?;
    let scratch = temps.sgprs(4)?.first;
    let t = RsrcTemps { rsrc, scratch };
    let mut out = Vec::with_capacity(insts.len() + 24);
    for mut ti in insts {
        if uses(&ti) {
            let field = if ti.inst.encoding == "ENC_VBUFFER" { "RSRC" } else { "SBASE" };
            if let Some(o) = ti.inst.operands.iter_mut().find(|o| o.field == field && !o.implicit) {
                if let OperandKind::Reg(src @ RegRange { class: RegClass::Sgpr, count: 4, .. }) = o.kind {
                    out.extend(buffer_rsrc_ops(src, t, ti.inst.addr).into_iter().map(|inst| TranslatedInst { inst, src_addr: ti.src_addr }));
                    o.kind = OperandKind::Reg(rsrc);
                }
            }
        }
        out.push(ti);
    }
    Ok(out)
}
