//! llvm-mc's canonical encoding of gfx1201 instructions: bits LLVM does not model come back 0.

use super::ops::MemKind;
use super::vop::{float_mods, has_opsel, is16};
use super::{fields, Op};
use crate::amd::operands::{Kind, GFX12_SCALARS};
use crate::amd::print::Ctx;
use crate::amd::Amd;
use crate::spec::Field;
use crate::Decoded;

/// Rewrites `d` into llvm-mc-22's canonical form (after the generic field re-pack).
pub fn canonicalize(p: &Amd<Op>, d: &mut Decoded) {
    let t = p.tables();
    let orig = *d;
    let c = Ctx::new(t, &orig, &GFX12_SCALARS, 0);
    let e = &t.encodings[d.enc as usize];
    let ie = c.ie;
    let ename = e.name;
    let m = c.mnemonic();
    let w = &mut d.words;

    // Operand fields of this encoding that this instruction does not use are zero (the
    // generated field sets: bit j is `e.fields[j]`).
    let unused = e.operand_fields & !ie.fields;
    let keep_extra = |n: &str| match ename {
        "ENC_VFLAT" | "ENC_VGLOBAL" | "ENC_VSCRATCH" => {
            n == "VDST" && MemKind::of(m) == MemKind::Atomic && c.f(fields::ENC_VFLAT::TH) & 1 != 0
        }
        "ENC_VIMAGE" | "ENC_VSAMPLE" => n.starts_with("VADDR"),
        _ => false,
    };
    let skip_zero = |n: &str| (m == "s_endpgm" && n == "SIMM16") || (ename == "ENC_SMEM" && n == "IOFFSET" && !ie.operands.is_empty());
    if ename != "ENC_VOPD" && unused != 0 {
        for (j, f) in e.fields.iter().enumerate() {
            if unused >> j & 1 != 0 && !keep_extra(f.name) && !skip_zero(f.name) {
                // An unused scalar address is `null`, not s0.
                f.set(w, if f.name == "SADDR" { GFX12_SCALARS.null as u64 } else { 0 });
            }
        }
    }

    // Wide scalar register operands are aligned.
    for op in ie.operands {
        let Some(f) = op.field else { continue };
        let ty = c.ty(op);
        if !matches!(ty, "OPR_SSRC" | "OPR_SRC" | "OPR_SDST" | "OPR_SREG") || op.size < 64 {
            continue;
        }
        let v = f.get(w);
        if matches!(f.name, "SBASE") {
            if op.size >= 128 {
                f.set(w, v & !1);
            }
            continue;
        }
        if v < 124 {
            let mask = if op.size >= 96 && ty == "OPR_SREG" { !3 } else { !1 };
            f.set(w, v & mask);
        }
    }

    // A 16-bit literal printed as its low half keeps only that half.
    let base = (e.bits as usize) / 32;
    if (d.len as usize) > base * 4 {
        let lit = orig.words[base];
        for op in ie.operands {
            let Some(f) = op.field else { continue };
            if f.get(&orig.words) != 255 || !matches!(c.ty(op), "OPR_SRC" | "OPR_SSRC") {
                continue;
            }
            let mut probe = String::new();
            super::ops::literal(&mut probe, lit, c.kind(op));
            let half = match ename {
                "ENC_SOP2" => c.kind(op) == Kind::F16,
                "ENC_SOP1" | "ENC_SOPC" | "ENC_SOPK" | "ENC_VOPD" => false,
                "ENC_VOP3P" => {
                    m.starts_with("v_fma_mix")
                }
                _ => c.kind(op) == Kind::F16 || m.starts_with("v_cvt_pk_f32_fp8") || m.starts_with("v_cvt_pk_f32_bf8"),
            };
            if half && !probe.starts_with("lit(") {
                if let Some(x) = w.get_mut(base) {
                    *x = lit & 0xffff;
                }
            }
        }
    }

    // Inline float constants of 16-bit integer operands are re-encoded as literals.
    if matches!(ename, "ENC_VOP1" | "ENC_VOP2" | "ENC_VOPC" | "ENC_VOP3") || ename.contains("DPP") {
        let dpp = ename.contains("DPP");
        for op in ie.operands {
            let Some(f) = op.field else { continue };
            let v = f.get(w) as u32;
            let align2 = f.name == "SRC2" && (m.starts_with("v_alignbit") || m.starts_with("v_alignbyte"));
            if !(240..=248).contains(&v) || (c.kind(op) != Kind::I16 && !align2) || !matches!(c.ty(op), "OPR_SRC") {
                continue;
            }
            if dpp {
                f.set(w, 255);
            } else if (d.len as usize) == base * 4 {
                f.set(w, 255);
                if let Some(x) = w.get_mut(base) {
                    *x = F16_INLINE[(v - 240) as usize];
                    d.len += 4;
                }
            }
        }
    }

    match ename {
        "ENC_SMEM" => {
            use fields::ENC_SMEM as S;
            if m.starts_with("s_atc_probe") || m.contains("prefetch") || m.starts_with("s_dcache") {
                for f in [S::TH, S::SCOPE, S::NV, S::SCALE_OFFSET] {
                    f.set(w, 0);
                }
            }
        }
        "ENC_VDSDIR" if m == "ds_direct_load" => {
            fields::ENC_VDSDIR::ATTRCHAN.set(w, 0);
        }
        "ENC_VGLOBAL" => {
            use fields::ENC_VGLOBAL as G;
            if ie.operands.is_empty() {
                G::IOFFSET.set(w, 0);
            }
            let sa = G::SADDR.get(w);
            if sa < 124 {
                G::SADDR.set(w, sa & !1);
            }
        }
        "ENC_VSCRATCH" => {
            use fields::ENC_VSCRATCH as S;
            if S::SVE.get(w) == 0 {
                S::VADDR.set(w, 0);
            }
        }
        "ENC_VBUFFER" => {
            use fields::ENC_VBUFFER as B;
            if B::IDXEN.get(w) == 0 && B::OFFEN.get(w) == 0 {
                B::VADDR.set(w, 0);
            }
            if !m.starts_with("tbuffer") && B::FORMAT.get(w) != 1 {
                B::FORMAT.set(w, 0);
            }
        }
        "ENC_VIMAGE" | "ENC_VSAMPLE" => {
            let n = super::vimage::addr_slots(&c);
            let slots: &[Field] = if ename == "ENC_VSAMPLE" {
                use fields::ENC_VSAMPLE as S;
                &[S::VADDR0, S::VADDR1, S::VADDR2, S::VADDR3]
            } else {
                use fields::ENC_VIMAGE as I;
                &[I::VADDR0, I::VADDR1, I::VADDR2, I::VADDR3, I::VADDR4]
            };
            for f in slots.iter().skip(n) {
                f.set(w, 0);
            }
        }
        "ENC_VOP3P" | "ENC_VOP3P_DPP16" | "ENC_VOP3P_DPP8" => vop3p(&c, w),
        "ENC_VOP3" | "ENC_VOP3SD" | "ENC_VOP3_DPP16" | "ENC_VOP3_DPP8" | "ENC_VOP3SD_DPP16" | "ENC_VOP3SD_DPP8" => {
            vop3(&c, w, ename.starts_with("ENC_VOP3SD"))
        }
        _ => {}
    }
}

fn vop3(c: &Ctx<'_, Op>, w: &mut [u32], sd: bool) {
    use fields::ENC_VOP3 as F;
    if c.mnemonic().starts_with("v_cmpx_") {
        // The e64 compare-and-write-exec form encodes exec_lo as its destination.
        F::VDST.set(w, 126);
    }
    let mut has16 = false;
    let mut float = false;
    let mut neg_keep = 0u32;
    for op in c.ie.operands {
        if op.is_implicit() {
            continue;
        }
        has16 |= is16(c, op);
        if op.field.map(|f| f.name) == Some("VDST") && c.kind(op).is_float() {
            float = true;
        }
        let i = match op.field.map(|f| f.name) {
            Some("SRC0") | Some("VSRC0") => 0,
            Some("SRC1") => 1,
            Some("SRC2") => 2,
            _ => continue,
        };
        let kind = c.kind(op);
        float |= kind.is_float();
        if float_mods(c, kind, i) {
            neg_keep |= 1 << i;
        }
    }
    if c.mnemonic().contains("_class_") {
        // The class mask operand keeps its (unprinted) modifier bits.
        neg_keep |= 2;
    }
    if has_opsel(c, has16) {
        // LLVM keeps these operands' modifier bits as encoded.
        neg_keep = 7;
    }
    set(F::NEG, w, |v| v & neg_keep);
    if !sd {
        set(F::ABS, w, |v| v & neg_keep);
        let m = c.mnemonic();
        if m.starts_with("v_permlane16") || m.starts_with("v_permlanex16") {
            set(F::OPSEL, w, |v| v & 3);
        } else if !has_opsel(c, has16) {
            F::OPSEL.set(w, 0);
        }
    }
    if !float {
        F::OMOD.set(w, 0);
    }
}

const F16_INLINE: [u32; 9] = [0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400, 0x3118];

fn set(f: Field, w: &mut [u32], g: impl Fn(u32) -> u32) {
    let v = f.get(w) as u32;
    f.set(w, g(v) as u64);
}

fn vop3p(c: &Ctx<'_, Op>, w: &mut [u32]) {
    use fields::ENC_VOP3P as F;
    let m = c.mnemonic();
    let nsrc = c
        .ie
        .operands
        .iter()
        .filter(|o| matches!(o.field.map(|f| f.name), Some("SRC0" | "VSRC0" | "SRC1" | "SRC2")))
        .count();
    let all = (1u32 << nsrc) - 1;
    let sel = m.starts_with("v_fma_mix") || m.starts_with("v_pk_") || m.starts_with("v_dot2");
    let (opsel, hi) = if sel {
        (F::OPSEL.get(w) as u32 & all, (F::OPSEL_HI.get(w) as u32 | (F::OPSEL_HI2.get(w) as u32) << 2) & all)
    } else {
        (0, 7)
    };
    // Unused source slots read as op_sel_hi = 1.
    let hi = if m.starts_with("v_fma_mix") { hi } else { hi | (7 & !all) };
    F::OPSEL.set(w, opsel as u64);
    F::OPSEL_HI.set(w, (hi & 3) as u64);
    F::OPSEL_HI2.set(w, (hi >> 2 & 1) as u64);
    set(F::NEG, w, |v| v & all);
    set(F::NEG_HI, w, |v| v & all);
}
