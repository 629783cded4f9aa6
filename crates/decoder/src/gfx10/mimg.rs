//! MIMG: image loads, stores, samples, gathers, atomics and BVH ray intersection.

use crate::amd::operands::has;
use super::{fields::ENC_MIMG as F, Op};
use crate::amd::operands;
use crate::amd::print::Ctx;
use crate::amd::Amd;

use crate::amd::symbols::{image_address_count_gfx10, IMAGE_DIMS as DIMS};


/// Extra dwords of an NSA instruction: the addresses after the first, four per dword.
pub fn nsa_dwords(p: &Amd<Op>, words: &[u32], ienc: u16) -> usize {
    let t = p.tables();
    let m = t.instructions[t.inst_encodings[ienc as usize].inst as usize].mnemonic;
    let dim = F::DIM.get(words) as usize;
    let a16 = F::A16.get(words) != 0;
    let need = (image_address_count_gfx10(m, dim, a16).saturating_sub(1) as usize).div_ceil(4);
    need.min(F::NSA.get(words) as usize)
}

/// Prints an image instruction.
pub fn print(c: &Ctx<'_, Op>, out: &mut String) {
    let m = c.mnemonic();
    out.push_str(m);
    let nsa = c.f(F::NSA);
    if nsa != 0 && c.ie.operands.iter().any(|o| c.field_name(o) == "SSAMP") {
        out.push(' '); // LLVM's NSA sampler forms print two spaces after the mnemonic
    }
    let bvh = m.starts_with("image_bvh");
    let dmask = c.f(F::DMASK);
    let dim = c.f(F::DIM) as usize;
    let a16 = c.f(F::A16) != 0;
    let d16 = c.f(F::D16) != 0;
    for (k, op) in c.ie.operands.iter().enumerate() {
        crate::amd::operands::sep(out, k);
        let v = c.val(op);
        match c.field_name(op) {
            "VDATA" => {
                let atomic = m.starts_with("image_atomic");
                let mut n = if bvh || m.starts_with("image_gather4") || m.starts_with("image_msaa_load") {
                    4
                } else {
                    dmask.count_ones().max(1)
                };
                if atomic && has(m, "cmpswap") {
                    n = n.max(2);
                }
                if d16 && !atomic {
                    n = n.div_ceil(2);
                }
                if c.f(F::TFE) != 0 {
                    n += 1;
                }
                operands::vgpr(out, v, (n * 32) as u16);
            }
            "VADDR" => {
                let n = image_address_count_gfx10(m, dim, a16);
                if nsa != 0 {
                    // No more addresses than the NSA dwords present can hold.
                    let extra = (c.d.len as u32 / 4).saturating_sub(2);
                    let n = n.min(1 + 4 * extra);
                    out.push('[');
                    for i in 0..n {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        let r = if i == 0 { v } else { c.bits(64 + 8 * (i - 1), 8) };
                        operands::vgpr(out, r, 32);
                    }
                    out.push(']');
                } else {
                    let n = if n > 12 { 16 } else { n };
                    operands::vgpr(out, v, (n * 32) as u16);
                }
            }
            "SRSRC" => c.sreg(out, v * 4, if bvh { 128 } else { 256 }),
            "SSAMP" => c.sreg(out, v * 4, 128),
            _ => c.sreg(out, v, op.size),
        }
    }
    if !bvh {
        if dmask != 0 {
            out.push_str(" dmask:");
            crate::amd::operands::put_hex(out, dmask);
        }
        out.push_str(" dim:");
        crate::amd::operands::put(out, DIMS[dim]);
        if c.f(F::UNORM) != 0 {
            out.push_str(" unorm");
        }
        if c.f(F::GLC) != 0 {
            out.push_str(" glc");
        }
        if c.f(F::SLC) != 0 {
            out.push_str(" slc");
        }
        if c.f(F::DLC) != 0 {
            out.push_str(" dlc");
        }
        if c.f(F::R128) != 0 {
            out.push_str(" r128");
        }
    }
    if a16 {
        out.push_str(" a16");
    }
    if !bvh {
        if c.f(F::TFE) != 0 {
            out.push_str(" tfe");
        }
        if c.f(F::LWE) != 0 {
            out.push_str(" lwe");
        }
        if d16 {
            out.push_str(" d16");
        }
    }
}
