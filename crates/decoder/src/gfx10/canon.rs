//! llvm-mc's canonical encoding of gfx1013 instructions.
//!
//! The canonical form keeps exactly the bits the printer reads (identifier, opcode, operands and
//! the modifiers the instruction has), so decode(encode(x)) prints the same text as x while bits
//! LLVM does not model come back as 0. Two rewrites follow LLVM: scalar register tuples start
//! aligned, and an inline float constant on a 16-bit integer operand becomes a literal.

use super::{print::dispatch, Op};
use crate::amd::operands::{inline_f16_bits, Kind, GFX10_SCALARS};
use crate::amd::print::Ctx;
use crate::amd::Amd;
use crate::{Decoded, MAX_WORDS};

/// Rewrites `d` into llvm-mc-22's canonical form.
pub fn canonicalize(p: &Amd<Op>, d: &mut Decoded) {
    let t = p.tables();
    let e = &t.encodings[d.enc as usize];
    let base = e.bits as usize / 32;
    let used = {
        let c = Ctx::new(t, d, &GFX10_SCALARS, 0);
        let mut sink = String::new();
        dispatch(&c, &mut sink);
        c.used()
    };
    let mut keep = used;
    for (i, k) in keep.iter_mut().enumerate().take(base) {
        *k |= (e.mask >> (32 * i)) as u32;
    }
    if let Some(op) = e.op {
        op.set(&mut keep, u64::MAX);
    }
    // NSA address dwords stay as the printer read them; a literal the printer never read goes.
    for (w, k) in d.words.iter_mut().zip(keep.iter()) {
        *w &= *k;
    }
    let has_nsa = e.fields.iter().any(|f| f.name == "NSA");
    if !has_nsa && d.len as usize > base * 4 && used.get(base).copied().unwrap_or(0) == 0 {
        // Drop a literal nothing printed, unless a source field still selects one (255).
        let lit = d.words[base];
        d.words[base] = 0;
        let bytes: Vec<u8> = d.words.iter().flat_map(|w| w.to_le_bytes()).collect();
        match p.decode_inst(&bytes, 0) {
            Ok(x) if x.len as usize > base * 4 => d.words[base] = lit,
            _ => d.len = (base * 4) as u8,
        }
    }
    let ie = &t.inst_encodings[d.ienc as usize];
    let m = t.instructions[ie.inst as usize].mnemonic;
    match e.name {
        // A 128-bit SBASE (s_buffer_*) starts at a multiple of four SGPRs: an even pair index.
        "ENC_SMEM" => {
            use super::fields::ENC_SMEM as F;
            if ie.operands.iter().any(|o| o.field.is_some_and(|f| f.name == "SBASE") && o.size > 64) {
                let b = F::SBASE.get(&d.words) & !1;
                F::SBASE.set(&mut d.words, b);
            }
        }
        // A global SADDR other than off is an SGPR pair.
        "ENC_FLAT_GLBL" => {
            use super::fields::ENC_FLAT_GLBL as F;
            let s = F::SADDR.get(&d.words) as u32;
            if s != 0x7d && s != 0x7f {
                let a = if s <= 105 { s & !1 } else if (108..=123).contains(&s) { 108 + ((s - 108) & !1) } else { s };
                F::SADDR.set(&mut d.words, a as u64);
            }
        }
        // Packed math: op_sel_hi of a source the instruction lacks reads as 1.
        "ENC_VOP3P" if !m.starts_with("v_fma_mix") => {
            use super::fields::ENC_VOP3P as F;
            let nsrc = ie.operands.iter().filter(|o| o.field.is_some_and(|f| f.name.starts_with("SRC"))).count();
            let hi = F::OPSEL_HI.get(&d.words) | F::OPSEL_HI2.get(&d.words) << 2;
            let hi = hi | (0b111 & !((1u64 << nsrc) - 1));
            F::OPSEL_HI.set(&mut d.words, hi & 3);
            F::OPSEL_HI2.set(&mut d.words, hi >> 2);
        }
        // VOP3 v_cmpx writes EXEC: LLVM encodes the destination field as exec_lo.
        "ENC_VOP3" if m.starts_with("v_cmpx") => {
            super::fields::ENC_VOP3::VDST.set(&mut d.words, 126);
        }
        // BVH rays always read four channels of a 128-bit descriptor, unnormalized.
        "ENC_MIMG" if m.starts_with("image_bvh") => {
            use super::fields::ENC_MIMG as F;
            F::DMASK.set(&mut d.words, 0xf);
            F::UNORM.set(&mut d.words, 1);
            F::R128.set(&mut d.words, 1);
        }
        _ => {}
    }
    for op in ie.operands {
        let Some(f) = op.field else { continue };
        let ty = t.operand_types[op.ty as usize].name;
        let v = f.get(&d.words) as u32;
        // Scalar tuples: s[2n:2n+1], s[4n:4n+3]; SBASE/SRSRC/SSAMP already count in units.
        if op.size > 32
            && matches!(ty, "OPR_SREG" | "OPR_SDST" | "OPR_SSRC" | "OPR_SRC")
            && !matches!(f.name, "SBASE" | "SRSRC" | "SSAMP")
        {
            let align = if op.size > 64 { 4 } else { 2 };
            let aligned = match v {
                0..=105 => v / align * align,
                108..=123 => 108 + (v - 108) / align * align,
                _ => v,
            };
            f.set(&mut d.words, aligned as u64);
        }
        // LLVM re-encodes an inline float on a 16-bit integer operand as that float's literal.
        let kind = Kind::of(t.data_formats[op.fmt as usize], op.size);
        if kind == Kind::I16 && ty == "OPR_SRC" && !f.name.starts_with('V') {
            if let Some(bits) = inline_f16_bits(v) {
                if (d.len as usize) <= base * 4 && base < MAX_WORDS {
                    f.set(&mut d.words, 255);
                    d.words[base] = bits;
                    d.len = (base * 4 + 4) as u8;
                }
            }
        }
    }
}
