//! gfx1013 -> gfx1201 descriptor conversion against the AMD fact tables (copied into
//! fixtures/amd/facts from shared/facts/amd: field bit positions per generation, format enums):
//! - random gfx1013 V#s and S#s, built field by field from the gfx10 rows, convert to words
//!   whose gfx12 fields (read with the gfx12 rows) hold the same values; formats by enum name;
//!   fields only gfx12 has are zero;
//! - the scalar-instruction form of the V# conversion builds with the gfx1201 builder,
//!   llvm-mc-22 --mcpu=gfx1201 assembles our printed text to our bytes, and stepping its
//!   instructions gives the words of the word-level conversion for every gfx1013 format, with
//!   SCC and the source registers unchanged.

use isabridge_decoder::amd::GFX12;
use isabridge_decoder::operand::{OperandKind, RegClass, RegRange};
use isabridge_decoder::{Inst, IsaPlugin};
use isabridge_targets::gfx12::descriptor_convert::{
    buffer_format_gfx12, buffer_rsrc_gfx12, buffer_rsrc_ops, bvh_rsrc_gfx12, bvh_rsrc_ops, image_rsrc_gfx12, sample_rsrc_ops, sampler_gfx12, DescriptorError, ImageTemps, RsrcTemps,
};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn facts(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/amd/facts").join(name);
    std::fs::read_to_string(p).unwrap()
}

/// A field: its word and name.
type Key = (u32, String);

/// (register, field) -> (bit offset, width), for generation `gen` (exact column match).
fn fields(gen: &str, prefix: &str) -> BTreeMap<Key, (u32, u32)> {
    let mut m = BTreeMap::new();
    for l in facts("descriptor_fields_gfx10_gfx11_gfx12.csv").lines().skip(1) {
        let c: Vec<&str> = l.split(',').collect();
        if c[2] != gen || !c[0].starts_with(prefix) {
            continue;
        }
        let word: u32 = c[0].trim_start_matches(prefix).parse().unwrap();
        // "BORDER_COLOR_PTR(if DERIV_ADJUST_EN=0)": the reading with DERIV_ADJUST_EN clear.
        let name = c[1].split('(').next().unwrap().to_string();
        if c[1].contains("DERIV_ADJUST_EN=1") {
            continue;
        }
        m.insert((word, name), (c[3].parse().unwrap(), c[4].parse().unwrap()));
    }
    m
}

fn get(w: &[u32; 4], (word, _): &Key, (off, width): (u32, u32)) -> u32 {
    ((u64::from(w[*word as usize]) >> off) & ((1u64 << width) - 1)) as u32
}

fn set(w: &mut [u32; 4], word: u32, (off, width): (u32, u32), v: u32) {
    let mask = (((1u64 << width) - 1) << off) as u32;
    w[word as usize] = (w[word as usize] & !mask) | ((v << off) & mask);
}

/// A small deterministic generator (64-bit LCG, high bits).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 32) as u32
    }
}

/// Enum value -> name for `enum_`, `gen`, with `prefix` cut from the name.
fn enum_names(enum_: &str, gen: &str, prefix: &str) -> BTreeMap<u32, String> {
    facts("descriptor_enums.csv")
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|c| c[0] == enum_ && c[1] == gen)
        .map(|c| (c[3].parse().unwrap(), c[2].trim_start_matches(prefix).to_string()))
        .collect()
}

#[test]
fn buffer_format_map_matches_enum_names() {
    let g10 = enum_names("IMG_FORMAT", "gfx10", "IMG_FORMAT_");
    let g12 = enum_names("BUF_FMT", "gfx12", "BUF_FMT_");
    let by_name: BTreeMap<&String, u32> = g12.iter().map(|(v, n)| (n, *v)).collect();
    let mut mapped = 0;
    for f in 0..128u32 {
        let want = g10.get(&f).and_then(|n| by_name.get(n)).copied();
        assert_eq!(buffer_format_gfx12(f as u8).map(u32::from), want, "gfx10 format {f} ({:?})", g10.get(&f));
        mapped += usize::from(want.is_some());
    }
    assert_eq!(mapped, 64);
}

#[test]
fn buffer_rsrc_fields_keep_their_values() {
    let (f10, f12) = (fields("gfx10", "SQ_BUF_RSRC_WORD"), fields("gfx12", "SQ_BUF_RSRC_WORD"));
    let formats: Vec<u32> = (0..128).filter(|&f| buffer_format_gfx12(f as u8).is_some()).collect();
    let g10 = enum_names("IMG_FORMAT", "gfx10", "IMG_FORMAT_");
    let g12 = enum_names("BUF_FMT", "gfx12", "BUF_FMT_");
    let mut rng = Rng(1);
    for _ in 0..4096 {
        let mut w = [0u32; 4];
        for (k, &(off, width)) in &f10 {
            let v = match k.1.as_str() {
                "FORMAT" => formats[rng.next() as usize % formats.len()],
                "SWIZZLE_ENABLE" | "TYPE" => 0,
                "RESOURCE_LEVEL" => 1,
                _ => rng.next(),
            };
            set(&mut w, k.0, (off, width), v);
        }
        let out = buffer_rsrc_gfx12(w).unwrap();
        for (k, &pos12) in &f12 {
            let got = get(&out, k, pos12);
            match (k.1.as_str(), f10.get(k)) {
                ("FORMAT", Some(&pos10)) => assert_eq!(g12[&got], g10[&get(&w, k, pos10)], "{w:08x?}"),
                // gfx12's two swizzle bits: gfx10's SWIZZLE_ENABLE is 0 here, CACHE_SWIZZLE dropped.
                ("SWIZZLE_ENABLE", _) => assert_eq!(got, 0, "{w:08x?}"),
                (_, Some(&pos10)) => assert_eq!(got, get(&w, k, pos10), "{}: {w:08x?}", k.1),
                (_, None) => assert_eq!(got, 0, "gfx12-only {} set: {w:08x?}", k.1),
            }
        }
    }
    // What has no gfx1201 equal is refused.
    assert_eq!(buffer_rsrc_gfx12([0, 1 << 31, 0, 22 << 12]), Err(DescriptorError::Swizzled));
    assert_eq!(buffer_rsrc_gfx12([0, 0, 0, 30 << 12]), Err(DescriptorError::Format(30)));
    assert_eq!(buffer_rsrc_gfx12([0, 0, 0, 2 << 30]), Err(DescriptorError::NotBuffer(2)));
}

#[test]
fn sampler_fields_keep_their_values() {
    let (f10, f12) = (fields("gfx10", "SQ_IMG_SAMP_WORD"), fields("gfx12", "SQ_IMG_SAMP_WORD"));
    let by_name10: BTreeMap<&str, (Key, (u32, u32))> = f10.iter().map(|(k, &p)| (k.1.as_str(), (k.clone(), p))).collect();
    let mut rng = Rng(2);
    for _ in 0..4096 {
        let mut w = [0u32; 4];
        for (k, &p) in &f10 {
            let v = match k.1.as_str() {
                "DERIV_ADJUST_EN" | "BLEND_ZERO_PRT" | "MIP_POINT_PRECLAMP" => 0,
                _ => rng.next(),
            };
            set(&mut w, k.0, p, v);
        }
        let out = sampler_gfx12(w).unwrap();
        for (k, &p12) in &f12 {
            let got = get(&out, k, p12);
            let want = match k.1.as_str() {
                "PERF_MIP[1:0]" => get(&w, &by_name10["PERF_MIP"].0, by_name10["PERF_MIP"].1) & 3,
                "PERF_MIP[3:2]" => get(&w, &by_name10["PERF_MIP"].0, by_name10["PERF_MIP"].1) >> 2,
                n => match by_name10.get(n) {
                    Some((k10, p10)) => get(&w, k10, *p10),
                    None => panic!("gfx12 sampler field {n} without a gfx10 field"),
                },
            };
            assert_eq!(got, want, "{}: {w:08x?}", k.1);
        }
    }
    assert_eq!(sampler_gfx12([0, 0, 1 << 31, 0]), Err(DescriptorError::SamplerField("DERIV_ADJUST_EN")));
}

/// Scalar state for stepping the conversion: 128 SGPRs and SCC.
struct Scalar {
    s: [u32; 128],
    scc: bool,
}

impl Scalar {
    fn read(&self, k: &OperandKind) -> u32 {
        match *k {
            OperandKind::Reg(RegRange { class: RegClass::Sgpr, first, count: 1 }) => self.s[first as usize],
            OperandKind::InlineConst { bits, .. } => bits as u32,
            OperandKind::Literal(x) => x,
            _ => panic!("operand {k:?}"),
        }
    }
    /// One instruction, as the RDNA4 ISA guide defines these scalar ops.
    fn step(&mut self, i: &Inst) {
        let ops: Vec<&OperandKind> = i.operands.iter().filter(|o| !o.implicit).map(|o| &o.kind).collect();
        let src = |n: usize| self.read(ops[n]);
        let (dst, val, scc) = match i.name {
            "S_MOV_B32" => (Some(ops[0]), src(1), None),
            "S_CSELECT_B32" => (Some(ops[0]), if self.scc { src(1) } else { src(2) }, None),
            "S_AND_B32" => (Some(ops[0]), src(1) & src(2), Some(src(1) & src(2) != 0)),
            "S_OR_B32" => (Some(ops[0]), src(1) | src(2), Some(src(1) | src(2) != 0)),
            "S_LSHL_B32" => (Some(ops[0]), src(1) << (src(2) & 31), Some(src(1) << (src(2) & 31) != 0)),
            "S_LSHR_B32" => (Some(ops[0]), src(1) >> (src(2) & 31), Some(src(1) >> (src(2) & 31) != 0)),
            "S_SUB_CO_U32" => (Some(ops[0]), src(1).wrapping_sub(src(2)), Some(src(2) > src(1))),
            "S_BFE_U32" => {
                let (off, width) = (src(2) & 31, (src(2) >> 16) & 0x7f);
                let v = if width == 0 { 0 } else { (src(1) >> off) & (((1u64 << width) - 1) as u32) };
                (Some(ops[0]), v, Some(v != 0))
            }
            "S_CMP_GT_U32" => (None, 0, Some(src(0) > src(1))),
            "S_CMP_GE_U32" => (None, 0, Some(src(0) >= src(1))),
            "S_CMP_EQ_U32" => (None, 0, Some(src(0) == src(1))),
            "S_CMP_LG_U32" => (None, 0, Some(src(0) != src(1))),
            n => panic!("no step for {n}"),
        };
        if let Some(OperandKind::Reg(r)) = dst {
            self.s[r.first as usize] = val;
        }
        if let Some(c) = scc {
            self.scc = c;
        }
    }
}

#[test]
fn buffer_rsrc_ops_convert_in_sgprs() {
    let src = RegRange { class: RegClass::Sgpr, first: 8, count: 4 };
    let temps = RsrcTemps { rsrc: RegRange { class: RegClass::Sgpr, first: 92, count: 4 }, scratch: 96 };
    let ops = buffer_rsrc_ops(src, temps, 0);
    assert_llvm_mc_agrees(&ops);
    // Stepping them gives the word-level conversion, for every gfx1013 format.
    let mut rng = Rng(3);
    for f in 0..128u32 {
        for scc in [false, true] {
            let w = [rng.next(), rng.next() & 0x7fff_ffff, rng.next(), (rng.next() & !(0x7f << 12) & 0x3fff_ffff) | (f << 12)];
            let mut st = Scalar { s: [0; 128], scc };
            st.s[8..12].copy_from_slice(&w);
            for i in &ops {
                st.step(i);
            }
            let got = [st.s[92], st.s[93], st.s[94], st.s[95]];
            let want = match buffer_rsrc_gfx12(w) {
                Ok(x) => x,
                // No gfx1201 number: BUF_FMT_INVALID, the rest converted.
                Err(DescriptorError::Format(_)) => buffer_rsrc_gfx12([w[0], w[1], w[2], w[3] & !(0x7f << 12)]).unwrap(),
                Err(e) => panic!("{e}"),
            };
            assert_eq!(got, want, "format {f}: {w:08x?}");
            assert_eq!(st.scc, scc, "SCC restored");
            assert_eq!(&st.s[8..12], &w, "source kept");
        }
    }
}

/// The BVH node descriptor (fixtures/facts/amd/bvh_descriptor_gfx10_gfx12.md, PAL
/// `sq_bvh_rsrc_t` of gfx10 and gfx12): the shared fields keep their bits, gfx1201-only bits
/// (52-54, 115-119) and gfx1013's LLC_NOALLOC / BIG_PAGE (121-123) read 0.
#[test]
fn bvh_rsrc_keeps_the_shared_fields() {
    // BASE_ADDRESS 0-39, BOX_GROW_VALUE 55-62, BOX_SORT_EN 63, SIZE 64-105,
    // TRIANGLE_RETURN_MODE 120, TYPE 124-127, as word masks.
    let shared: [u32; 4] = [0xffff_ffff, 0x0000_00ff | 0xff80_0000, 0xffff_ffff, 0x0000_03ff | 1 << 24 | 0xf000_0000];
    assert_eq!(bvh_rsrc_gfx12([u32::MAX; 4]), [0xffff_ffff, 0xff8f_ffff, 0xffff_ffff, 0xf107_ffff]);
    let mut rng = Rng(9);
    for _ in 0..256 {
        let w = [rng.next(), rng.next(), rng.next(), rng.next()];
        let got = bvh_rsrc_gfx12(w);
        for k in 0..4 {
            assert_eq!(got[k] & shared[k], w[k] & shared[k], "word {k} of {w:08x?}");
        }
        assert_eq!((got[1] >> 20 & 7, got[3] >> 19 & 0x1f, got[3] >> 25 & 7), (0, 0, 0), "{w:08x?}");
    }
    // The scalar sequence gives the same words, keeps the source and SCC.
    let src = RegRange { class: RegClass::Sgpr, first: 8, count: 4 };
    let temps = RsrcTemps { rsrc: RegRange { class: RegClass::Sgpr, first: 92, count: 4 }, scratch: 96 };
    let ops = bvh_rsrc_ops(src, temps, 0);
    assert_llvm_mc_agrees(&ops);
    for scc in [false, true] {
        let w = [rng.next(), rng.next(), rng.next(), rng.next()];
        let mut st = Scalar { s: [0; 128], scc };
        st.s[8..12].copy_from_slice(&w);
        for i in &ops {
            st.step(i);
        }
        assert_eq!([st.s[92], st.s[93], st.s[94], st.s[95]], bvh_rsrc_gfx12(w));
        assert_eq!(st.scc, scc, "SCC restored");
        assert_eq!(&st.s[8..12], &w, "source kept");
    }
}

/// Every instruction of `ops` builds, and llvm-mc-22 assembles our printed text to our bytes.
fn assert_llvm_mc_agrees(ops: &[Inst]) {
    let mut text = String::new();
    let mut bytes = Vec::new();
    for i in ops {
        let b = GFX12.build(i).unwrap_or_else(|e| panic!("{}: {e}", i.name));
        let d = GFX12.decode(&b, 0).unwrap();
        GFX12.print(&d, 0, &mut text);
        text.push('\n');
        bytes.push(b);
    }
    let mut c = Command::new("llvm-mc-22")
        .args(["-triple=amdgcn", "-mcpu=gfx1201", "-show-encoding"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("llvm-mc-22 runs");
    c.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let o = c.wait_with_output().unwrap();
    assert!(o.stderr.is_empty(), "{}", String::from_utf8_lossy(&o.stderr));
    let enc: Vec<Vec<u8>> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| l.split_once("; encoding: ["))
        .map(|(_, b)| b.trim_end_matches(']').split(',').map(|x| u8::from_str_radix(x.trim_start_matches("0x"), 16).unwrap()).collect())
        .collect();
    assert_eq!(enc, bytes, "{text}");
}

/// In a translated function, the conversion sits right before each buffer instruction, which
/// then reads the converted copy; the program's SGPRs keep the gfx1013 V#.
#[test]
fn translated_buffer_access_reads_a_converted_copy() {
    use isabridge_targets::gfx12::function::{translate_function, FunctionOptions};
    // gfx1013: buffer_load_dword v42, v16, s[8:11], 0 idxen offset:12 glc;
    // s_buffer_load_dword s21, s[0:3], s8; s_endpgm.
    let code: Vec<u8> = [0xe030_600cu32, 0x8002_2a10, 0xf420_0540, 0x1000_0000, 0xbf81_0000].iter().flat_map(|w| w.to_le_bytes()).collect();
    let opts = FunctionOptions { guest_base: 0, place_at: 0x100, declared_vgprs: 43, declared_sgprs: 22, wave64: false, ieee: None, dx10_clamp: None };
    let f = translate_function(&code, 0, &opts).unwrap();
    let seq: Vec<&str> = buffer_rsrc_ops(RegRange { class: RegClass::Sgpr, first: 8, count: 4 }, RsrcTemps { rsrc: RegRange { class: RegClass::Sgpr, first: 24, count: 4 }, scratch: 28 }, 0)
        .iter()
        .map(|i| i.name)
        .collect();
    let names: Vec<&str> = f.code.insts.iter().map(|t| t.inst.name).filter(|n| !n.starts_with("S_WAIT")).collect();
    let load = names.iter().position(|&n| n == "BUFFER_LOAD_B32").unwrap();
    let sload = names.iter().position(|&n| n == "S_BUFFER_LOAD_B32").unwrap();
    assert_eq!(&names[..load], &seq[..]);
    assert_eq!(&names[load + 1..sload], &seq[..]);
    // Temporaries above the declared 22 SGPRs, aligned: s[24:27], scratch s28..s31.
    let rsrc = |name: &str, field: &str| {
        let t = f.code.insts.iter().find(|t| t.inst.name == name).unwrap();
        t.inst.operands.iter().find(|o| o.field == field).unwrap().kind
    };
    let temps = OperandKind::Reg(RegRange { class: RegClass::Sgpr, first: 24, count: 4 });
    assert_eq!(rsrc("BUFFER_LOAD_B32", "RSRC"), temps);
    assert_eq!(rsrc("S_BUFFER_LOAD_B32", "SBASE"), temps);
    assert_eq!(f.sgprs, 32);
    // The first conversion reads s[8:11] and writes only temporaries.
    for t in &f.code.insts[..seq.len()] {
        for o in t.inst.operands.iter().filter(|o| o.access.writes() && !o.implicit) {
            assert!(matches!(o.kind, OperandKind::Reg(r) if r.first >= 24), "{:?}", t.inst);
        }
    }
}

/// In a translated function, an image instruction reads converted copies of its T#, placed
/// right before it; a BVH instruction reads a converted copy of its node descriptor.
#[test]
fn translated_image_access_reads_a_converted_copy() {
    use isabridge_targets::gfx12::function::{translate_function, FunctionOptions};
    // gfx1013: image_load v5, v0, s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_1D unorm; s_endpgm.
    let code: Vec<u8> = [0xf000_1100u32, 0x0002_0500, 0xbf81_0000].iter().flat_map(|w| w.to_le_bytes()).collect();
    let opts = FunctionOptions { guest_base: 0, place_at: 0x100, declared_vgprs: 8, declared_sgprs: 16, wave64: false, ieee: None, dx10_clamp: None };
    let f = translate_function(&code, 0, &opts).unwrap();
    let temps = ImageTemps { rsrc: RegRange { class: RegClass::Sgpr, first: 16, count: 8 }, samp: RegRange { class: RegClass::Sgpr, first: 24, count: 4 }, scratch: 28 };
    let seq: Vec<&str> = sample_rsrc_ops(RegRange { class: RegClass::Sgpr, first: 8, count: 8 }, None, temps, 0).iter().map(|i| i.name).collect();
    let names: Vec<&str> = f.code.insts.iter().map(|t| t.inst.name).filter(|n| !n.starts_with("S_WAIT")).collect();
    let load = names.iter().position(|&n| n == "IMAGE_LOAD").unwrap();
    assert_eq!(&names[..load], &seq[..]);
    let t = f.code.insts.iter().find(|t| t.inst.name == "IMAGE_LOAD").unwrap();
    assert_eq!(t.inst.operands.iter().find(|o| o.field == "RSRC").unwrap().kind, OperandKind::Reg(temps.rsrc));
    // gfx1013: image_bvh_intersect_ray v[0:3], v[4:14], s[8:11]; s_endpgm.
    let code: Vec<u8> = [0xf198_9f01u32, 0x0002_0004, 0xbf81_0000].iter().flat_map(|w| w.to_le_bytes()).collect();
    let opts = FunctionOptions { declared_vgprs: 16, ..opts };
    let f = translate_function(&code, 0, &opts).unwrap();
    // Temporaries above the declared 16 SGPRs: s[16:19], scratch s20..s23.
    let temps = RsrcTemps { rsrc: RegRange { class: RegClass::Sgpr, first: 16, count: 4 }, scratch: 20 };
    let seq: Vec<&str> = bvh_rsrc_ops(RegRange { class: RegClass::Sgpr, first: 8, count: 4 }, temps, 0).iter().map(|i| i.name).collect();
    let names: Vec<&str> = f.code.insts.iter().map(|t| t.inst.name).filter(|n| !n.starts_with("S_WAIT")).collect();
    let bvh = names.iter().position(|&n| n == "IMAGE_BVH_INTERSECT_RAY").unwrap();
    assert_eq!(&names[..bvh], &seq[..]);
    let t = f.code.insts.iter().find(|t| t.inst.name == "IMAGE_BVH_INTERSECT_RAY").unwrap();
    assert_eq!(t.inst.operands.iter().find(|o| o.field == "RSRC").unwrap().kind, OperandKind::Reg(temps.rsrc));
}

/// The gfx1013 T# fields keep their values in the gfx1201 T#, found by name in the fact
/// tables; the fields the conversion drops (warnings, compression, metadata) read 0.
#[test]
fn image_rsrc_fields_keep_their_values() {
    let (f10, f12) = (fields("gfx10", "SQ_IMG_RSRC_WORD"), fields("gfx12", "SQ_IMG_RSRC_WORD"));
    let by_name10: BTreeMap<&str, (Key, (u32, u32))> = f10.iter().map(|(k, &p)| (k.1.as_str(), (k.clone(), p))).collect();
    let formats: Vec<u32> = (0..128).filter(|&f| buffer_format_gfx12(f as u8).is_some()).collect();
    let g10 = enum_names("IMG_FORMAT", "gfx10", "IMG_FORMAT_");
    let g12 = enum_names("IMG_FMT", "gfx12", "IMG_FMT_");
    let dropped = ["MIN_LOD_WARN", "ITERATE_256", "MAX_UNCOMPRESSED_BLOCK_SIZE", "MAX_COMPRESSED_BLOCK_SIZE", "WRITE_COMPRESS_ENABLE"];
    let mut rng = Rng(4);
    for _ in 0..4096 {
        let mut w = [0u32; 8];
        for (k, &(off, width)) in &f10 {
            let v = match k.1.as_str() {
                "FORMAT" => formats[rng.next() as usize % formats.len()],
                "SW_MODE" | "COMPRESSION_EN" | "MIN_LOD" => 0,
                _ => rng.next(),
            };
            set8(&mut w, k.0, (off, width), v);
        }
        let out = image_rsrc_gfx12(w).unwrap();
        for (k, &p12) in &f12 {
            let got = get8(&out, k.0, p12);
            let name = k.1.as_str();
            let want = match (name, by_name10.get(name)) {
                ("FORMAT", Some((k10, p10))) => {
                    assert_eq!(g12[&got], g10[&get8(&w, k10.0, *p10)], "{w:08x?}");
                    continue;
                }
                (n, _) if dropped.contains(&n) => 0,
                (_, Some((k10, p10))) => get8(&w, k10.0, *p10),
                (_, None) => 0,
            };
            assert_eq!(got, want, "{name}: {w:08x?}");
        }
    }
    // What has no gfx1201 equal is refused.
    assert_eq!(image_rsrc_gfx12([0, 22 << 20, 0, 1 << 20, 0, 0, 0, 0]), Err(DescriptorError::Tiled(1)));
    assert_eq!(image_rsrc_gfx12([0, 22 << 20, 0, 0, 0, 0, 1 << 21, 0]), Err(DescriptorError::ImageField("COMPRESSION_EN")));
    assert_eq!(image_rsrc_gfx12([0, 22 << 20 | 1 << 8, 0, 0, 0, 0, 0, 0]), Err(DescriptorError::ImageField("MIN_LOD")));
    assert_eq!(image_rsrc_gfx12([0, 30 << 20, 0, 0, 0, 0, 0, 0]), Err(DescriptorError::Format(30)));
}

fn get8(w: &[u32; 8], word: u32, (off, width): (u32, u32)) -> u32 {
    (w[word as usize] >> off) & ((1u64 << width) - 1) as u32
}

fn set8(w: &mut [u32; 8], word: u32, (off, width): (u32, u32), v: u32) {
    let m = (((1u64 << width) - 1) as u32) << off;
    w[word as usize] = (w[word as usize] & !m) | ((v << off) & m);
}

/// The scalar conversion before a sample gives [`image_rsrc_gfx12`] and [`sampler_gfx12`]
/// (or a T# of format 0 where they refuse), keeps SCC and the source registers, and
/// llvm-mc-22 assembles its text to its bytes.
#[test]
fn sample_rsrc_ops_convert_in_sgprs() {
    let (rsrc, samp) = (RegRange { class: RegClass::Sgpr, first: 8, count: 8 }, RegRange { class: RegClass::Sgpr, first: 16, count: 4 });
    let temps = ImageTemps {
        rsrc: RegRange { class: RegClass::Sgpr, first: 80, count: 8 },
        samp: RegRange { class: RegClass::Sgpr, first: 88, count: 4 },
        scratch: 92,
    };
    let ops = sample_rsrc_ops(rsrc, Some(samp), temps, 0);
    assert_llvm_mc_agrees(&ops);
    let mut rng = Rng(5);
    for case in 0..2048u32 {
        let mut t: [u32; 8] = std::array::from_fn(|_| rng.next());
        let mut s: [u32; 4] = std::array::from_fn(|_| rng.next());
        // Mostly convertible descriptors, each refusal now and then.
        t[1] = (t[1] & !(0x1ff << 20) & !(0xfff << 8)) | (case % 128) << 20 | u32::from(case % 7 == 0) << 8;
        t[3] &= if case % 5 == 0 { u32::MAX } else { !(0x1f << 20) };
        t[6] &= if case % 11 == 0 { u32::MAX } else { !(1 << 21) };
        s[2] &= if case % 3 == 0 { u32::MAX } else { 0x2fff_ffff };
        let scc = case % 2 == 0;
        let mut st = Scalar { s: [0; 128], scc };
        st.s[8..16].copy_from_slice(&t);
        st.s[16..20].copy_from_slice(&s);
        for i in &ops {
            st.step(i);
        }
        let sampler_ok = sampler_gfx12(s).is_ok();
        let want_s = sampler_gfx12([s[0], s[1], s[2] & 0x2fff_ffff, s[3]]).unwrap();
        let mut want_t = match image_rsrc_gfx12(t) {
            Ok(x) => x,
            Err(_) => {
                let clean = [t[0], t[1] & !(0x1ff << 20) & !(0xfff << 8), t[2], t[3] & !(0x1f << 20), t[4], t[5], t[6] & !(1 << 21), t[7]];
                let mut x = image_rsrc_gfx12(clean).unwrap();
                // SW_MODE stays where it was (the format is what refuses the surface).
                x[3] |= t[3] & (0x1f << 20);
                x
            }
        };
        if !sampler_ok {
            want_t[1] &= !(0xff << 17);
        }
        assert_eq!(&st.s[80..88], &want_t, "T# case {case}: {t:08x?} {s:08x?}");
        assert_eq!(&st.s[88..92], &want_s, "S# case {case}: {s:08x?}");
        assert_eq!(st.scc, scc, "SCC restored");
        assert_eq!(&st.s[8..16], &t, "T# source kept");
        assert_eq!(&st.s[16..20], &s, "S# source kept");
    }
}
