//! The stack: gfx1013 buffer accesses through the private segment buffer `s[0:3]` become
//! gfx1201 `scratch_*` instructions.
//!
//! How the two generations address a lane's private memory:
//! - gfx10 (MUBUF through the private segment buffer): the V# in `s[0:3]` is swizzled
//!   (SWIZZLE_ENABLE, ADD_TID_ENABLE, INDEX_STRIDE = the wave size, 4-byte elements; LLVM
//!   `SIInstrInfo::getScratchRsrcWords23`), so byte `o` of a lane lies at
//!   `base + soffset + (o / 4) * 4 * wavesize + lane * 4 + o % 4`. SOFFSET is a *wave-level*
//!   byte offset: the kernel adds its wave's scratch offset into `s[0:1]` once
//!   (`s_add_u32 s0, s0, s7; s_addc_u32 s1, s1, 0` in hip_control `switches`), and the stack
//!   pointer `s32` / frame pointer `s33` are kept scaled by the wave size (LLVM AMDGPUUsage
//!   "Private Segment": "the stack pointer ... is in units of wavefront-size bytes" on gfx9/10;
//!   fib's frame of 32 bytes a lane moves `s32` by `s_addk_i32 s32, 0x400` in the wave32 build
//!   and by 0x800 in the wave64 one). VADDR (`offen`) and the instruction offset are per-lane
//!   bytes.
//! - gfx12 (`scratch_*`, architected flat scratch): the address is the lane's private byte
//!   offset SADDR + VADDR (when SVE) + IOFFSET, swizzled by the hardware; the wave's base is
//!   implicit and no V# is loaded (llvm-mc-22 refuses `.amdhsa_user_sgpr_private_segment_buffer`
//!   for gfx1201). clang-22's gfx1201 build of the same fib keeps `s32` unscaled
//!   (`s_add_co_i32 s32, s32, 32`) and writes `scratch_store_b32 off, v43, s33 offset:12` where
//!   the gfx1013 build has `buffer_store_dword v43, off, s[0:3], s33 offset:12`.
//!
//! So a lane's private byte `soffset / wavesize + voffset + offset` is the same byte in both
//! schemes, and the rule (`translate`) is: `buffer_load/store_* vD, vA|off, s[0:3], sO
//! [offen] offset:N` -> `scratch_load/store_* vD, vA|off, sT|off offset:N`, where
//! `sT = sO / wavesize` is computed into the expansion SGPR just before with
//! `s_mul_hi_u32 sT, sO, 2^(32 - log2 wavesize)` (the high half of the product is the shift,
//! and unlike `s_lshr_b32` it writes no SCC); SOFFSET 0 is `off`, another constant multiple of
//! the wave size goes into the offset. Values of `s32` that escape into VGPRs
//! (`v_lshrrev_b32 vX, 5, s32`, a pointer to a private object used through the flat private
//! aperture) are per-lane offsets in both schemes, so they keep their meaning.
//!
//! When the rule applies ([`uses_private_segment`]): in a kernel that enables the private
//! segment buffer, and in a callee (the calling convention passes the buffer in `s[0:3]`),
//! when the code reads `s0`-`s3` only as the buffer of MUBUF accesses and in the prologue that
//! adds the wave offset into `s[0:1]` (left as it is: on gfx1201 it changes registers no
//! translated instruction reads as a buffer). Code that writes `s0`-`s3` itself (a V# it loads
//! there, as c_resources kernels do) keeps its buffer accesses; one through `s[0:3]` before
//! that write is refused. Any other read of `s0`-`s3` next to stack accesses is refused, as are atomics, formatted and typed accesses, `idxen`, `tfe`, `lds`
//! through the buffer, and a SOFFSET that is the wave offset SGPR itself.
//!
//! Range: a MUBUF access past the buffer's NUM_RECORDS reads 0 and drops stores; a scratch
//! access past the kernel's private segment faults instead. Code within the private segment
//! size the descriptor declares (what the compiler emits) sees the same values.

use super::expand::{emit, plain, ExpandCx};
use super::{unsupported, TranslateError};
use isabridge_analysis::amdkernel::{Kernel, SgprInput};
use isabridge_ir::interp::Input;
use isabridge_decoder::amd::GFX12;
use isabridge_decoder::operand::{Modifier, OperandKind, RegClass, RegRange};
use isabridge_decoder::{Inst, IsaPlugin};

/// gfx1201's SADDR code for "no SGPR" (`off`, the encoding's null).
const SADDR_OFF: u32 = 124;

/// Whether `k` names one of `s0`-`s3`.
fn touches_buffer_sgprs(k: &OperandKind) -> bool {
    matches!(k, OperandKind::Reg(r) if r.class == RegClass::Sgpr && r.first < 4)
}

/// Whether `inst` is a buffer access whose descriptor is `s[0:3]`.
pub fn through_private_segment(inst: &Inst) -> bool {
    matches!(inst.encoding, "ENC_MUBUF" | "ENC_MTBUF")
        && inst.operands.iter().any(|o| o.field == "SRSRC" && matches!(o.kind, OperandKind::Reg(r) if r.class == RegClass::Sgpr && r.first == 0 && r.count == 4))
}

/// Whether `inst` is the kernel prologue's `s_add_u32 s0, s0, sW` or `s_addc_u32 s1, s1, 0`
/// (the wave offset added into the buffer's base).
fn is_wave_offset_add(inst: &Inst) -> bool {
    let n = match inst.name {
        "S_ADD_U32" => 0,
        "S_ADDC_U32" => 1,
        _ => return false,
    };
    let sgpr_n = |k: &OperandKind| matches!(k, OperandKind::Reg(RegRange { class: RegClass::Sgpr, first, count: 1 }) if *first == n);
    let mut ex = inst.explicit();
    let (Some(d), Some(a), Some(b)) = (ex.next(), ex.next(), ex.next()) else { return false };
    sgpr_n(&d.kind) && sgpr_n(&a.kind) && !touches_buffer_sgprs(&b.kind)
}

/// Whether the function `insts` addresses its stack through the private segment buffer
/// `s[0:3]` (module notes); `wave_offset`: the SGPR a kernel receives its wave's scratch offset
/// in (None for a callee). An access the rule cannot translate, or another use of `s0`-`s3`
/// beside such accesses, is a typed error naming it.
pub fn uses_private_segment(insts: &[Inst], wave_offset: Option<u16>) -> Result<bool, TranslateError> {
    // A function that writes s0-s3 itself (a V# it loads there) uses them as its own
    // registers: its buffer accesses through s[0:3] are ordinary buffer accesses, unless one
    // comes before the first such write (then it went through the private segment buffer).
    let writes = |i: &Inst| !is_wave_offset_add(i) && i.defs().any(|o| touches_buffer_sgprs(&o.kind));
    if let Some(w) = insts.iter().position(writes) {
        return match insts[..w].iter().find(|i| through_private_segment(i)) {
            Some(i) => Err(unsupported(i, "a private segment access before the function writes s0-s3 itself: not translated")),
            None => Ok(false),
        };
    }
    let mut uses = false;
    let mut other: Option<&Inst> = None;
    for i in insts {
        if through_private_segment(i) {
            let srsrc = |o: &&isabridge_decoder::operand::Operand| o.field == "SRSRC";
            if let Some(o) = i.operands.iter().filter(|o| !srsrc(o)).find(|o| touches_buffer_sgprs(&o.kind)) {
                return Err(unsupported(i, &format!("operand {} of a private segment access reads s0-s3", o.field)));
            }
            let soffset = i.operands.iter().find(|o| o.field == "SOFFSET").map(|o| o.kind);
            if let (Some(OperandKind::Reg(r)), Some(w)) = (soffset, wave_offset) {
                if r.class == RegClass::Sgpr && r.first == w {
                    return Err(unsupported(i, "a private segment access whose SOFFSET is the wave's scratch offset itself (gfx1201 adds it implicitly): not translated"));
                }
            }
            uses = true;
        } else if !is_wave_offset_add(i) && other.is_none() && i.operands.iter().any(|o| touches_buffer_sgprs(&o.kind)) {
            other = Some(i);
        }
    }
    match other {
        Some(i) if uses => Err(unsupported(i, "reads or writes s0-s3, the private segment buffer the stack accesses go through, which gfx1201 does not load: not translated")),
        _ => Ok(uses),
    }
}

/// The gfx1201 scratch form of a gfx1013 buffer load or store: (name, VSCRATCH opcode, loads).
/// Opcodes as llvm-mc-22 -mcpu=gfx1201 encodes them (the unit test checks each).
fn scratch_form(name: &str) -> Option<(&'static str, u32, bool)> {
    Some(match name.strip_prefix("BUFFER_")? {
        "LOAD_UBYTE" => ("SCRATCH_LOAD_U8", 0x10, true),
        "LOAD_SBYTE" => ("SCRATCH_LOAD_I8", 0x11, true),
        "LOAD_USHORT" => ("SCRATCH_LOAD_U16", 0x12, true),
        "LOAD_SSHORT" => ("SCRATCH_LOAD_I16", 0x13, true),
        "LOAD_DWORD" => ("SCRATCH_LOAD_B32", 0x14, true),
        "LOAD_DWORDX2" => ("SCRATCH_LOAD_B64", 0x15, true),
        "LOAD_DWORDX3" => ("SCRATCH_LOAD_B96", 0x16, true),
        "LOAD_DWORDX4" => ("SCRATCH_LOAD_B128", 0x17, true),
        "STORE_BYTE" => ("SCRATCH_STORE_B8", 0x18, false),
        "STORE_SHORT" => ("SCRATCH_STORE_B16", 0x19, false),
        "STORE_DWORD" => ("SCRATCH_STORE_B32", 0x1a, false),
        "STORE_DWORDX2" => ("SCRATCH_STORE_B64", 0x1b, false),
        "STORE_DWORDX3" => ("SCRATCH_STORE_B96", 0x1c, false),
        "STORE_DWORDX4" => ("SCRATCH_STORE_B128", 0x1d, false),
        "LOAD_UBYTE_D16" => ("SCRATCH_LOAD_D16_U8", 0x1e, true),
        "LOAD_SBYTE_D16" => ("SCRATCH_LOAD_D16_I8", 0x1f, true),
        "LOAD_SHORT_D16" => ("SCRATCH_LOAD_D16_B16", 0x20, true),
        "LOAD_UBYTE_D16_HI" => ("SCRATCH_LOAD_D16_HI_U8", 0x21, true),
        "LOAD_SBYTE_D16_HI" => ("SCRATCH_LOAD_D16_HI_I8", 0x22, true),
        "LOAD_SHORT_D16_HI" => ("SCRATCH_LOAD_D16_HI_B16", 0x23, true),
        "STORE_BYTE_D16_HI" => ("SCRATCH_STORE_D16_HI_B8", 0x24, false),
        "STORE_SHORT_D16_HI" => ("SCRATCH_STORE_D16_HI_B16", 0x25, false),
        _ => return None,
    })
}

/// The first register of `inst`'s operand `field` when it is a VGPR range.
fn vgpr(inst: &Inst, field: &str) -> Option<u32> {
    inst.operands.iter().find(|o| o.field == field && !o.implicit).and_then(|o| match o.kind {
        OperandKind::Reg(r) if r.class == RegClass::Vgpr => Some(r.first as u32),
        _ => None,
    })
}

/// The gfx1201 instructions of a buffer access through `s[0:3]` (module notes); None for any
/// other instruction. Only for code [`uses_private_segment`] accepted.
pub(super) fn translate(inst: &Inst, cx: &ExpandCx) -> Option<Result<Vec<Inst>, TranslateError>> {
    through_private_segment(inst).then(|| stack_access(inst, cx))
}

fn stack_access(inst: &Inst, cx: &ExpandCx) -> Result<Vec<Inst>, TranslateError> {
    let (name, op, load) = scratch_form(inst.name)
        .filter(|_| inst.encoding == "ENC_MUBUF")
        .ok_or_else(|| unsupported(inst, "a private segment access with no gfx1201 scratch form (atomic, formatted or typed): not translated"))?;
    let (mut offset, mut offen) = (0u64, false);
    for m in &inst.modifiers {
        match *m {
            Modifier::Named("OFFSET", v) => offset = v,
            Modifier::Named("OFFEN", v) => offen = v != 0,
            // Cache policy only: the lane's private bytes are its own.
            Modifier::Named("GLC" | "SLC" | "DLC", _) => {}
            Modifier::Named("IDXEN" | "TFE" | "LDS" | "SWZ", 0) => {}
            _ => return Err(unsupported(inst, "a private segment access with idxen, tfe, lds or swz: not translated")),
        }
    }
    let log = if cx.wave64 { 6 } else { 5 };
    let soffset = inst.operands.iter().find(|o| o.field == "SOFFSET").map(|o| o.kind);
    let mut out = Vec::new();
    let saddr = match soffset {
        Some(OperandKind::InlineConst { bits, .. }) if bits.is_multiple_of(1 << log) => {
            offset += bits >> log;
            SADDR_OFF
        }
        Some(OperandKind::Literal(v)) if (v as u64).is_multiple_of(1 << log) => {
            offset += v as u64 >> log;
            SADDR_OFF
        }
        Some(k @ OperandKind::Reg(RegRange { class: RegClass::Sgpr, count: 1, .. })) => {
            let t = cx.stemp(inst)?;
            let scale = OperandKind::Literal(1u32 << (32 - log));
            out.push(emit(inst, "S_MUL_HI_U32", "ENC_SOP2", &[plain(t), plain(k), plain(scale)], &[])?);
            match t {
                OperandKind::Reg(r) => r.first as u32,
                _ => return Err(unsupported(inst, "the expansion SGPR is no register")),
            }
        }
        _ => return Err(unsupported(inst, "a private segment access whose SOFFSET is not an SGPR or a multiple of the wave size: not translated")),
    };
    if offset >= 1 << 23 {
        return Err(unsupported(inst, "a private segment offset past gfx1201's 24-bit IOFFSET"));
    }
    let data = vgpr(inst, "VDATA").ok_or_else(|| unsupported(inst, "a private segment access without a VGPR data operand"))?;
    let vaddr = if offen { Some(vgpr(inst, "VADDR").ok_or_else(|| unsupported(inst, "offen without a VGPR address"))?) } else { None };
    let w0 = saddr | op << 14 | 1 << 24 | 0x3b << 26;
    let w1 = if load { data } else { data << 23 } | u32::from(vaddr.is_some()) << 17;
    let w2 = vaddr.unwrap_or(0) | (offset as u32) << 8;
    let bytes: Vec<u8> = [w0, w1, w2].iter().flat_map(|w| w.to_le_bytes()).collect();
    let d = GFX12.decode(&bytes, inst.addr).map_err(|_| unsupported(inst, "a scratch instruction the gfx1201 decoder rejects"))?;
    let s = GFX12.operands(&d, inst.addr);
    if s.name != name {
        return Err(unsupported(inst, &format!("the scratch words decode as {}, not {name}", s.name)));
    }
    out.push(s);
    Ok(out)
}

/// The private segment buffer V# whose segment starts at `base`: the swizzled form LLVM's
/// `getScratchRsrcWords23` describes for gfx10 (SWIZZLE_ENABLE, ADD_TID_ENABLE, INDEX_STRIDE
/// 2 (32) or 3 (64) for the wave size, stride 0, NUM_RECORDS 0xffffffff, raw range checking
/// (OOB_SELECT 3)).
pub fn private_segment_buffer(base: u64, wave64: bool) -> [u32; 4] {
    let index_stride: u32 = if wave64 { 3 } else { 2 };
    [base as u32, (base >> 32) as u32 & 0xffff | 1 << 31, u32::MAX, 1 << 23 | index_stride << 21 | 3 << 28]
}

/// For the differential check and `isabridge run`: gives the waves of gfx1013 kernel `k` the
/// private segment buffer ([`private_segment_buffer`] at 0) and the private segment wave
/// offset (0) its descriptor enables, in the initial SGPRs from `s0` on (`inputs` in
/// `kernel_params` order). The interpreter keeps each lane's private segment in its own
/// scratch (`BufferDesc::private_swizzle`), so the segment needs no memory region and no wave
/// needs an offset into a shared one; a flat private-aperture address names the same bytes,
/// as FLAT_SCRATCH does on the hardware. The translation's `scratch_*` use the same scratch.
pub fn give_private_segment(k: &Kernel, s0: usize, inputs: &mut [Input]) {
    let words = private_segment_buffer(0, k.wave64());
    for (i, x) in k.sgpr_inputs().iter().enumerate() {
        let v = match *x {
            SgprInput::PrivateSegmentBuffer(n) => words[n as usize & 3] as u64,
            SgprInput::PrivateSegmentWaveOffset => 0,
            _ => continue,
        };
        if let Some(slot) = inputs.get_mut(s0 + i) {
            *slot = Input::Uniform(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gfx1013(words: &[u32]) -> Vec<Inst> {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        super::super::function::decode_gfx1013(&bytes, 0x100).unwrap()
    }

    /// The gfx1201 words of the translation of gfx1013 `words` (wave64 when `wave64`), the
    /// expansion SGPR being s100.
    fn translated(words: &[u32], wave64: bool) -> Result<Vec<u32>, TranslateError> {
        let cx = ExpandCx { wave64, sgprs: Some(100), ..ExpandCx::default() };
        let out = translate(&gfx1013(words)[0], &cx).expect("a private segment access")?;
        let bytes: Vec<u8> = out.iter().flat_map(|i| GFX12.build(i).unwrap()).collect();
        Ok(bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect())
    }

    #[test]
    fn stack_accesses_become_scratch_accesses() {
        // Words from llvm-mc-22 -show-encoding: -mcpu=gfx1013 for the inputs, -mcpu=gfx1201
        // for the expected outputs (written in the comments).
        let cases: [(&[u32], bool, &[u32]); 6] = [
            // buffer_store_dword v43, off, s[0:3], s33 offset:12 ->
            // s_mul_hi_u32 s100, s33, 0x8000000; scratch_store_b32 off, v43, s100 offset:12
            (&[0xe070_000c, 0x2100_2b00], false, &[0x96e4_ff21, 0x0800_0000, 0xed06_8064, 0x1580_0000, 0x0000_0c00]),
            // buffer_load_dword v4, v2, s[0:3], 0 offen -> scratch_load_b32 v4, v2, off
            (&[0xe030_1000, 0x8000_0402], false, &[0xed05_007c, 0x0002_0004, 0x0000_0002]),
            // buffer_store_dword v4, off, s[0:3], 0 offset:16 -> scratch_store_b32 off, v4, off offset:16
            (&[0xe070_0010, 0x8000_0400], false, &[0xed06_807c, 0x0200_0000, 0x0000_1000]),
            // buffer_load_sbyte v7, off, s[0:3], 64 offset:3 (wave32: 64 / 32 = 2 bytes a lane)
            // -> scratch_load_i8 v7, off, off offset:5
            (&[0xe024_0003, 0xc000_0700], false, &[0xed04_407c, 0x0000_0007, 0x0000_0500]),
            // wave64: buffer_load_ubyte_d16_hi v1, off, s[0:3], s32 offset:4 ->
            // s_mul_hi_u32 s100, s32, 0x4000000; scratch_load_d16_hi_u8 v1, off, s100 offset:4
            (&[0xe084_0004, 0x2000_0100], true, &[0x96e4_ff20, 0x0400_0000, 0xed08_4064, 0x0000_0001, 0x0000_0400]),
            // wave64: buffer_store_dwordx4 v[8:11], v5, s[0:3], s33 offen offset:2048 ->
            // s_mul_hi_u32 s100, s33, 0x4000000; scratch_store_b128 v5, v[8:11], s100 offset:2048
            (&[0xe078_1800, 0x2100_0805], true, &[0x96e4_ff21, 0x0400_0000, 0xed07_4064, 0x0402_0000, 0x0008_0005]),
        ];
        for (input, wave64, want) in cases {
            assert_eq!(translated(input, wave64).unwrap(), want, "{input:08x?}");
        }
        // The shift writes no SCC (s_lshr_b32 would): only its destination.
        let cx = ExpandCx { sgprs: Some(100), ..ExpandCx::default() };
        let out = translate(&gfx1013(&[0xe070_000c, 0x2100_2b00])[0], &cx).unwrap().unwrap();
        assert_eq!(out[0].name, "S_MUL_HI_U32");
        assert_eq!(out[0].defs().count(), 1, "{:?}", out[0].operands);
        // buffer_atomic_add v1, off, s[0:3], s33 has no scratch form.
        let e = translated(&[0xe0c8_0000, 0x2100_0100], false).unwrap_err();
        assert!(e.to_string().contains("no gfx1201 scratch form"), "{e}");
        // Not through s[0:3]: buffer_store_dword v4, off, s[4:7], 0 offset:16 is left alone.
        assert!(translate(&gfx1013(&[0xe070_0010, 0x8001_0400])[0], &cx).is_none());
    }

    #[test]
    fn other_uses_of_the_buffer_sgprs_are_refused() {
        // s_add_u32 s0, s0, s7; s_addc_u32 s1, s1, 0 (the prologue); buffer_store_dword v0, off,
        // s[0:3], 0.
        let prologue = [0x8000_0700, 0x8201_8001];
        let access = [0xe070_0000, 0x8000_0000];
        let ok: Vec<u32> = prologue.iter().chain(&access).copied().collect();
        assert_eq!(uses_private_segment(&gfx1013(&ok), Some(7)), Ok(true));
        // Without any access through s[0:3], other uses are fine (s[0:3] is then no buffer).
        assert_eq!(uses_private_segment(&gfx1013(&[0xbe88_0400]), Some(7)), Ok(false));
        // s_mov_b64 s[8:9], s[0:1] beside an access: refused, naming the move.
        let copy: Vec<u32> = [0xbe88_0400].iter().chain(&access).copied().collect();
        let e = uses_private_segment(&gfx1013(&copy), Some(7)).unwrap_err();
        assert!(e.to_string().starts_with("gfx1013 0x100: S_MOV_B64: not translated to gfx1201: reads or writes s0-s3"), "{e}");
        // s_load_dwordx4 s[0:3], s[4:5], 0x0 then an access: a buffer access through the loaded
        // V#, not a stack access; the access first: refused.
        let load = [0xf408_0002, 0xfa00_0000];
        let loaded: Vec<u32> = load.iter().chain(&access).copied().collect();
        assert_eq!(uses_private_segment(&gfx1013(&loaded), Some(7)), Ok(false));
        let before: Vec<u32> = access.iter().chain(&load).copied().collect();
        let e = uses_private_segment(&gfx1013(&before), Some(7)).unwrap_err();
        assert!(e.to_string().contains("before the function writes s0-s3"), "{e}");
        // buffer_store_dword v0, off, s[0:3], s7 with s7 the wave offset: refused.
        let e = uses_private_segment(&gfx1013(&[0xe070_0000, 0x0700_0000]), Some(7)).unwrap_err();
        assert!(e.to_string().contains("wave's scratch offset itself"), "{e}");
    }
}
