//! Descriptor conversion gfx1013 -> gfx1201 (the compute part): the buffer format enum,
//! the buffer resource (V#), the image resource of untiled surfaces (T#) and the sampler (S#),
//! as words ([`buffer_rsrc_gfx12`], [`image_rsrc_gfx12`], [`sampler_gfx12`]) and as gfx1201
//! scalar instructions that convert descriptors held in SGPRs just before an instruction reads
//! them ([`buffer_rsrc_ops`], [`sample_rsrc_ops`], placed by [`convert_resources`]), and the
//! BVH node descriptor ([`bvh_rsrc_gfx12`], [`bvh_rsrc_ops`]). Bit positions and widths are those of
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
    /// The image is tiled (T# SW_MODE, the value given): gfx1201's swizzle modes are not mapped.
    #[error("tiled image (SW_MODE {0}): gfx1201's swizzle modes are not mapped")]
    Tiled(u8),
    /// A T# field set that the conversion does not carry.
    #[error("image field {0} is set; its gfx1201 form is not known")]
    ImageField(&'static str),
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

/// BVH descriptor word 1 bits gfx1201 reads and gfx1013 leaves reserved: SORT_TRIANGLES_FIRST
/// (bit 52 of the descriptor) and BOX_SORTING_HEURISTIC (53-54).
const BVH_W1_GFX12_ONLY: u32 = 0x0070_0000;
/// BVH descriptor word 3 bits that differ: gfx1201's COMPRESSED_FORMAT_EN, BOX_NODE_64B,
/// WIDE_SORT_EN, INSTANCE_EN and POINTER_FLAGS (bits 115-119, reserved on gfx1013), and
/// gfx1013's LLC_NOALLOC and BIG_PAGE (121-123, reserved on gfx1201).
const BVH_W3_DIFFER: u32 = 0x0ef8_0000;

/// gfx1013 BVH node descriptor (`image_bvh*_intersect_ray`, 128 bits) `w` as gfx1201 reads the
/// same BVH (fact file fixtures/facts/amd/bvh_descriptor_gfx10_gfx12.md, from PAL's
/// `sq_bvh_rsrc_t` of both generations): BASE_ADDRESS (0-39), BOX_GROW_VALUE (55-62),
/// BOX_SORT_EN (63), SIZE (64-105), TRIANGLE_RETURN_MODE (120) and TYPE (124-127) keep their
/// bits; the bits only gfx1201 reads are cleared (their 0 is gfx1013's behaviour: no
/// triangle-first sorting, the closest-first box sort, the uncompressed BVH4 nodes, no
/// instance or pointer flags), and gfx1013's cache and page hints LLC_NOALLOC and BIG_PAGE
/// (reserved on gfx1201) are dropped.
pub fn bvh_rsrc_gfx12(w: [u32; 4]) -> [u32; 4] {
    [w[0], w[1] & !BVH_W1_GFX12_ONLY, w[2], w[3] & !BVH_W3_DIFFER]
}

/// gfx1201 scalar instructions, placed just before a BVH instruction that reads the gfx1013
/// BVH descriptor in `src` (four SGPRs), that write [`bvh_rsrc_gfx12`]'s words into
/// `temps.rsrc` (the instruction then reads `temps.rsrc`). SCC is saved and restored.
pub fn bvh_rsrc_ops(src: RegRange, temps: RsrcTemps, addr: u64) -> Vec<Inst> {
    let (t, scc) = (temps.rsrc.first, temps.scratch + 3);
    vec![
        sop2(addr, "S_CSELECT_B32", sgpr(scc), int(1), int(0)),
        sop1(addr, "S_MOV_B32", sgpr(t), sgpr(src.first)),
        sop2(addr, "S_AND_B32", sgpr(t + 1), sgpr(src.first + 1), lit(!BVH_W1_GFX12_ONLY)),
        sop1(addr, "S_MOV_B32", sgpr(t + 2), sgpr(src.first + 2)),
        sop2(addr, "S_AND_B32", sgpr(t + 3), sgpr(src.first + 3), lit(!BVH_W3_DIFFER)),
        sopc(addr, "S_CMP_LG_U32", sgpr(scc), int(0)),
    ]
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
    ];
    format_ops(&mut v, addr, f, g, d);
    v.extend([
        sop2(addr, "S_LSHL_B32", s(g), sgpr(g), int_or_lit(12)),
        sop2(addr, "S_AND_B32", s(t + 3), sgpr(src.first + 3), lit(W3_KEEP)),
        sop2(addr, "S_OR_B32", s(t + 3), sgpr(t + 3), sgpr(g)),
        // SCC = scc_saved
        sopc(addr, "S_CMP_LG_U32", sgpr(scc), int(0)),
    ]);
    v
}

/// gfx1013 image resource (T#) `w` as gfx1201 reads the same untiled, uncompressed image.
/// Word 0 (base address) keeps its place. Word 1: BASE_ADDRESS_HI and WIDTH_LO stay, FORMAT
/// (9 bits at 20) is renumbered into gfx1201's 8 bits at 17 (the names of `descriptor_enums.csv`
/// that both have below 78, the same runs as the buffer formats), BASE_LEVEL moves in from word
/// 3 bits 12-15 to bits 25-29 and MAX_MIP from word 5 bits 4-7 to bits 12-16. Word 2: WIDTH_HI
/// and HEIGHT stay (gfx1201's fields are wider). Word 3: channel selects, SW_MODE, BC_SWIZZLE
/// and TYPE stay, LAST_LEVEL moves from bits 16-19 to 15-19. Word 4: DEPTH and BASE_ARRAY stay.
/// Word 5: PERF_MOD and CORNER_SAMPLES stay; gfx1013's ARRAY_PITCH and MIN_LOD_WARN (a
/// warning, no effect on values) are dropped. Words 6 and 7 (metadata and compression) are 0.
/// Refused: a tiled surface (SW_MODE not 0: gfx1201's swizzle modes are not mapped), a
/// compressed one (COMPRESSION_EN), a resource MIN_LOD other than 0 (gfx1201 splits it over
/// words 5 and 6 in 13 bits whose scale no fact gives), and formats without a gfx1201 number
/// in that range.
pub fn image_rsrc_gfx12(w: [u32; 8]) -> Result<[u32; 8], DescriptorError> {
    if bits(w[3], 20, 5) != 0 {
        return Err(DescriptorError::Tiled(bits(w[3], 20, 5) as u8));
    }
    if bits(w[6], 21, 1) != 0 {
        return Err(DescriptorError::ImageField("COMPRESSION_EN"));
    }
    if bits(w[1], 8, 12) != 0 {
        return Err(DescriptorError::ImageField("MIN_LOD"));
    }
    let f10 = bits(w[1], 20, 9);
    let f12 = u8::try_from(f10).ok().and_then(buffer_format_gfx12).ok_or(DescriptorError::Format(f10.min(255) as u8))?;
    let w1 = (w[1] & 0xc000_00ff) | u32::from(f12) << 17 | bits(w[3], 12, 4) << 25 | bits(w[5], 4, 4) << 12;
    let w2 = w[2] & 0x0fff_cfff;
    let w3 = (w[3] & 0xfff0_0fff) | bits(w[3], 16, 4) << 15;
    let w4 = w[4] & 0x1fff_1fff;
    let w5 = w[5] & 0x00f0_0000;
    Ok([w[0], w1, w2, w3, w4, w5, 0, 0])
}

/// Registers [`sample_rsrc_ops`] works in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageTemps {
    /// Eight SGPRs (first one a multiple of 4) that receive the converted T#.
    pub rsrc: RegRange,
    /// Four SGPRs (first one a multiple of 4) that receive the converted S#.
    pub samp: RegRange,
    /// First of four SGPRs for intermediate values and the saved SCC.
    pub scratch: u16,
}

/// The format chain of [`buffer_rsrc_ops`]: `g` = the gfx1201 number of gfx1013 format `f`
/// (0 where there is none), with `d` as scratch.
fn format_ops(v: &mut Vec<Inst>, addr: u64, f: u16, g: u16, d: u16) {
    v.push(sop1(addr, "S_MOV_B32", sgpr(g), sgpr(f)));
    // The table's runs: formats 0-29 keep their number, 36 -> 30, 43-45 -> 31-33, 48-77 -> 34-63;
    // the others have none (-> 0).
    let cmp = |v: &mut Vec<Inst>, op: &'static str, k: u32| v.push(sopc(addr, op, sgpr(f), int_or_lit(k)));
    cmp(v, "S_CMP_GT_U32", 29);
    v.push(sop2(addr, "S_CSELECT_B32", sgpr(g), int(0), sgpr(g)));
    cmp(v, "S_CMP_EQ_U32", 36);
    v.push(sop2(addr, "S_CSELECT_B32", sgpr(g), int_or_lit(30), sgpr(g)));
    for (from, to, delta) in [(43u32, 45u32, 12u32), (48, 77, 14)] {
        v.push(sop2(addr, "S_SUB_CO_U32", sgpr(d), sgpr(f), int_or_lit(delta)));
        cmp(v, "S_CMP_GE_U32", from);
        v.push(sop2(addr, "S_CSELECT_B32", sgpr(g), sgpr(d), sgpr(g)));
        cmp(v, "S_CMP_GT_U32", to);
        v.push(sop2(addr, "S_CSELECT_B32", sgpr(g), int(0), sgpr(g)));
    }
}

/// gfx1201 scalar instructions, placed just before an image instruction, that write the
/// gfx1201 T# [`image_rsrc_gfx12`] gives for the gfx1013 T# in `rsrc` (eight SGPRs) into
/// `temps.rsrc` and, when `samp` is given, the gfx1201 S# [`sampler_gfx12`] gives for the S#
/// there into `temps.samp` (the instruction then reads the copies; the program's registers
/// keep the gfx1013 words). SCC is saved and restored. At run time nothing can be refused, so
/// what those functions refuse makes the T# FORMAT 0 (IMG_FMT_INVALID), which the image
/// operation reads as no format rather than as another surface: a format without a gfx1201
/// number, a tiled or compressed surface, a resource MIN_LOD, and a sampler with
/// DERIV_ADJUST_EN, BLEND_ZERO_PRT or MIP_POINT_PRECLAMP set.
pub fn sample_rsrc_ops(rsrc: RegRange, samp: Option<RegRange>, temps: ImageTemps, addr: u64) -> Vec<Inst> {
    let s = sgpr;
    let w = |k: u16| sgpr(rsrc.first + k);
    let (f, g, d, scc) = (temps.scratch, temps.scratch + 1, temps.scratch + 2, temps.scratch + 3);
    let t = |k: u16| sgpr(temps.rsrc.first + k);
    let tr = |k: u16| temps.rsrc.first + k;
    let mut v = vec![sop2(addr, "S_CSELECT_B32", s(scc), int(1), int(0)), sop1(addr, "S_MOV_B32", t(0), w(0))];
    // g = the gfx1201 format, 0 when anything is refused.
    v.push(sop2(addr, "S_BFE_U32", s(f), w(1), lit((9 << 16) | 20)));
    format_ops(&mut v, addr, f, g, d);
    for (word, field) in [(3u16, (5u32 << 16) | 20), (6, (1 << 16) | 21), (1, (12 << 16) | 8)] {
        v.push(sop2(addr, "S_BFE_U32", s(d), w(word), lit(field)));
        v.push(sopc(addr, "S_CMP_LG_U32", s(d), int(0)));
        v.push(sop2(addr, "S_CSELECT_B32", s(g), int(0), s(g)));
    }
    // Word 1.
    v.push(sop2(addr, "S_AND_B32", t(1), w(1), lit(0xc000_00ff)));
    v.push(sop2(addr, "S_LSHL_B32", s(d), s(g), int(17)));
    v.push(sop2(addr, "S_OR_B32", t(1), t(1), s(d)));
    for (word, field, to) in [(3u16, (4u32 << 16) | 12, 25u32), (5, (4 << 16) | 4, 12)] {
        v.push(sop2(addr, "S_BFE_U32", s(d), w(word), lit(field)));
        v.push(sop2(addr, "S_LSHL_B32", s(d), s(d), int(to)));
        v.push(sop2(addr, "S_OR_B32", t(1), t(1), s(d)));
    }
    // Words 2 to 7.
    v.push(sop2(addr, "S_AND_B32", t(2), w(2), lit(0x0fff_cfff)));
    v.push(sop2(addr, "S_AND_B32", t(3), w(3), lit(0xfff0_0fff)));
    v.push(sop2(addr, "S_BFE_U32", s(d), w(3), lit((4 << 16) | 16)));
    v.push(sop2(addr, "S_LSHL_B32", s(d), s(d), int(15)));
    v.push(sop2(addr, "S_OR_B32", t(3), t(3), s(d)));
    v.push(sop2(addr, "S_AND_B32", t(4), w(4), lit(0x1fff_1fff)));
    v.push(sop2(addr, "S_AND_B32", t(5), w(5), lit(0x00f0_0000)));
    v.push(sop1(addr, "S_MOV_B32", t(6), int(0)));
    v.push(sop1(addr, "S_MOV_B32", t(7), int(0)));
    if let Some(sr) = samp {
        let sw = |k: u16| sgpr(sr.first + k);
        let o = |k: u16| sgpr(temps.samp.first + k);
        v.push(sop1(addr, "S_MOV_B32", o(0), sw(0)));
        // f = PERF_MIP.
        v.push(sop2(addr, "S_BFE_U32", s(f), sw(1), lit((4 << 16) | 24)));
        // Word 1: MIN_LOD (0), MAX_LOD (12 -> 13), PERF_Z (28).
        v.push(sop2(addr, "S_BFE_U32", o(1), sw(1), lit(12 << 16)));
        v.push(sop2(addr, "S_BFE_U32", s(d), sw(1), lit((12 << 16) | 12)));
        v.push(sop2(addr, "S_LSHL_B32", s(d), s(d), int(13)));
        v.push(sop2(addr, "S_OR_B32", o(1), o(1), s(d)));
        v.push(sop2(addr, "S_AND_B32", s(d), sw(1), lit(0xf000_0000)));
        v.push(sop2(addr, "S_OR_B32", o(1), o(1), s(d)));
        // Word 2: LOD_BIAS .. MIP_FILTER and ANISO_OVERRIDE, PERF_MIP[1:0] at 30.
        v.push(sop2(addr, "S_AND_B32", o(2), sw(2), lit(0x2fff_ffff)));
        v.push(sop2(addr, "S_LSHL_B32", s(d), s(f), int(30)));
        v.push(sop2(addr, "S_OR_B32", o(2), o(2), s(d)));
        // Word 3: PERF_MIP[3:2] at 0, BORDER_COLOR_PTR 0 -> 18, BORDER_COLOR_TYPE at 30.
        v.push(sop2(addr, "S_LSHR_B32", o(3), s(f), int(2)));
        v.push(sop2(addr, "S_BFE_U32", s(d), sw(3), lit(12 << 16)));
        v.push(sop2(addr, "S_LSHL_B32", s(d), s(d), int(18)));
        v.push(sop2(addr, "S_OR_B32", o(3), o(3), s(d)));
        v.push(sop2(addr, "S_AND_B32", s(d), sw(3), lit(0xc000_0000)));
        v.push(sop2(addr, "S_OR_B32", o(3), o(3), s(d)));
        // A sampler field gfx1201 lacks: the T# loses its format.
        v.push(sop2(addr, "S_AND_B32", s(f), t(1), lit(!(0xff << 17))));
        v.push(sop2(addr, "S_AND_B32", s(d), sw(2), lit(0xd000_0000)));
        v.push(sop2(addr, "S_CSELECT_B32", sgpr(tr(1)), s(f), t(1)));
    }
    v.push(sopc(addr, "S_CMP_LG_U32", s(scc), int(0)));
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

/// Converts the descriptors of translated code just before each use: every VBUFFER
/// instruction's RSRC and every `s_buffer_load_*`'s SBASE (a gfx1013 V# in four SGPRs) is
/// copied through [`buffer_rsrc_ops`] into temporaries from `temps`, which the instruction then
/// reads; every VIMAGE and VSAMPLE instruction's RSRC (a gfx1013 T# in eight SGPRs) and SAMP
/// (an S# in four) likewise through [`sample_rsrc_ops`]. The program's own registers keep the
/// gfx1013 words, so a descriptor used several times, or also read as data, is never
/// converted twice. The conversion runs on every path to the use because it sits right before
/// it. One set of temporaries per descriptor kind serves every use (each use reads its copy as
/// it issues, and the next conversion is later in program order). A BVH instruction's node
/// descriptor (four SGPRs) goes through [`bvh_rsrc_ops`] into the V# temporaries.
pub fn convert_resources(insts: Vec<TranslatedInst>, temps: &mut Temps) -> Result<Vec<TranslatedInst>, FunctionError> {
    let bvh = |t: &TranslatedInst| t.inst.name.starts_with("IMAGE_BVH");
    let buffer = |t: &TranslatedInst| t.inst.encoding == "ENC_VBUFFER" || t.inst.name.starts_with("S_BUFFER_LOAD") || bvh(t);
    let image = |t: &TranslatedInst| matches!(t.inst.encoding, "ENC_VIMAGE" | "ENC_VSAMPLE") && !bvh(t);
    if !insts.iter().any(|t| buffer(t) || image(t)) {
        return Ok(insts);
    }
    let mut aligned = |n: u16| -> Result<RegRange, FunctionError> {
        while !temps.sgprs.is_multiple_of(4) {
            temps.sgprs(1)?;
        }
        Ok(temps.sgprs(n)?)
    };
    // Four aligned SGPRs for the V#, then four for intermediate values.
    let bt = if insts.iter().any(buffer) { Some(RsrcTemps { rsrc: aligned(4)?, scratch: aligned(4)?.first }) } else { None };
    let it = if insts.iter().any(image) { Some(ImageTemps { rsrc: aligned(8)?, samp: aligned(4)?, scratch: aligned(4)?.first }) } else { None };
    let mut out = Vec::with_capacity(insts.len() + 24);
    let sgprs = |ti: &TranslatedInst, field: &str, n: u16| {
        ti.inst.operands.iter().find(|o| o.field == field && !o.implicit).and_then(|o| match o.kind {
            OperandKind::Reg(r @ RegRange { class: RegClass::Sgpr, count, .. }) if count == n => Some(r),
            _ => None,
        })
    };
    for mut ti in insts {
        let before: Vec<Inst> = match (bt, it) {
            (Some(t), _) if bvh(&ti) => {
                let src = sgprs(&ti, "RSRC", 4).ok_or_else(|| image_error(&ti, "a BVH descriptor that is not four SGPRs"))?;
                set_reg(&mut ti.inst, "RSRC", t.rsrc);
                bvh_rsrc_ops(src, t, ti.inst.addr)
            }
            (Some(t), _) if buffer(&ti) => {
                let field = if ti.inst.encoding == "ENC_VBUFFER" { "RSRC" } else { "SBASE" };
                match sgprs(&ti, field, 4) {
                    Some(src) => {
                        set_reg(&mut ti.inst, field, t.rsrc);
                        buffer_rsrc_ops(src, t, ti.inst.addr)
                    }
                    None => Vec::new(),
                }
            }
            (_, Some(t)) if image(&ti) => {
                let rsrc = sgprs(&ti, "RSRC", 8).ok_or_else(|| image_error(&ti, "a T# that is not eight SGPRs (R128)"))?;
                let samp = if ti.inst.encoding == "ENC_VSAMPLE" {
                    Some(sgprs(&ti, "SAMP", 4).ok_or_else(|| image_error(&ti, "an S# that is not four SGPRs"))?)
                } else {
                    None
                };
                set_reg(&mut ti.inst, "RSRC", t.rsrc);
                if samp.is_some() {
                    set_reg(&mut ti.inst, "SAMP", t.samp);
                }
                sample_rsrc_ops(rsrc, samp, t, ti.inst.addr)
            }
            _ => Vec::new(),
        };
        out.extend(before.into_iter().map(|inst| TranslatedInst { inst, src_addr: ti.src_addr }));
        out.push(ti);
    }
    Ok(out)
}

/// Points the explicit operand `field` of `inst` at `r`.
fn set_reg(inst: &mut Inst, field: &str, r: RegRange) {
    if let Some(o) = inst.operands.iter_mut().find(|o| o.field == field && !o.implicit) {
        o.kind = OperandKind::Reg(r);
    }
}

/// The typed error for an image instruction whose descriptor operand cannot be converted.
fn image_error(ti: &TranslatedInst, why: &str) -> FunctionError {
    FunctionError::Translate(TranslateError::Unsupported { isa: Isa::Gfx1013, addr: ti.src_addr, name: ti.inst.name, reason: format!("image descriptor conversion: {why}") })
}
