//! VIMAGE and VSAMPLE: image loads, stores, atomics, samples and gathers.

use super::ops::{self, sep, MemKind};
use super::{fields::ENC_VIMAGE as I, fields::ENC_VSAMPLE as S, Op};
use crate::amd::operands;
use crate::amd::print::Ctx;

use crate::amd::symbols::{image_address_count_gfx12, IMAGE_DIMS as DIMS};


/// How many VADDR fields the instruction uses (LLVM's address count folded into the slots).
pub(super) fn addr_slots(c: &Ctx<'_, Op>) -> usize {
    let m = c.mnemonic();
    let sample = c.enc_name() == "ENC_VSAMPLE";
    let slots = if sample { 4 } else { 5 };
    if m.starts_with("image_bvh") {
        return if c.f(I::A16) != 0 && !m.starts_with("image_bvh8") && !m.starts_with("image_bvh_dual") { 4 } else { 5 };
    }
    let n = image_address_count_gfx12(m, c.f(I::DIM) as usize & 7, c.f(I::A16) != 0);
    (n as usize).clamp(1, slots)
}

/// Prints an image instruction.
pub fn print(c: &Ctx<'_, Op>, out: &mut String) {
    let m = c.mnemonic();
    out.push_str(m);
    let sample = c.enc_name() == "ENC_VSAMPLE";
    let dmask = c.f(I::DMASK);
    let dim = c.f(I::DIM) as usize & 7;
    let a16 = c.f(I::A16) != 0;
    let d16 = c.f(I::D16) != 0;
    let (tfe, lwe) = if sample { (c.f(S::TFE) != 0, c.f(S::LWE) != 0) } else { (c.f(I::TFE) != 0, false) };
    let vaddr_all = if sample {
        [c.f(S::VADDR0), c.f(S::VADDR1), c.f(S::VADDR2), c.f(S::VADDR3), 0]
    } else {
        [c.f(I::VADDR0), c.f(I::VADDR1), c.f(I::VADDR2), c.f(I::VADDR3), c.f(I::VADDR4)]
    };
    let vaddr = &vaddr_all[..if sample { 4 } else { 5 }];
    if m.starts_with("image_bvh") {
        bvh(c, out, m, a16, vaddr);
        return;
    }
    let mut k = 0;
    for op in c.ie.operands {
        sep(out, &mut k);
        let v = c.val(op);
        match c.field_name(op) {
            "VDATA" => {
                let mut n = if m.starts_with("image_gather4") || m.starts_with("image_msaa_load") {
                    4
                } else {
                    dmask.count_ones().max(1)
                };
                if d16 {
                    n = n.div_ceil(2);
                }
                if tfe {
                    n += 1;
                }
                operands::vgpr(out, v, (n * 32) as u16);
            }
            f if f.starts_with("VADDR") => {
                let n = image_address_count_gfx12(m, dim, a16);
                if n <= 1 {
                    operands::vgpr(out, vaddr[0], 32);
                } else {
                    out.push('[');
                    let slots = vaddr.len() as u32;
                    for i in 0..n.min(slots) {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        let cnt = if i == slots - 1 { n - i } else { 1 };
                        operands::vgpr(out, vaddr[i as usize], (cnt * 32) as u16);
                    }
                    out.push(']');
                }
            }
            "RSRC" => descriptor(c, out, v, 256, "SReg_256_XNULL"),
            "SAMP" => descriptor(c, out, v, 128, "SReg_128_XNULL"),
            _ => c.sreg(out, v, op.size),
        }
    }
    if dmask != 0 {
        out.push_str(" dmask:");
        crate::amd::operands::put_hex(out, dmask);
    }
    out.push_str(" dim:");
    crate::amd::operands::put(out, DIMS[dim]);
    if sample && c.f(S::UNORM) != 0 {
        out.push_str(" unorm");
    }
    ops::cache_policy(out, MemKind::of(m), c.f(I::TH), c.f(I::SCOPE));
    if c.f(I::NV) != 0 {
        out.push_str(" nv");
    }
    if c.f(I::R128) != 0 {
        out.push_str(" r128");
    }
    if a16 {
        out.push_str(" a16");
    }
    if tfe {
        out.push_str(" tfe");
    }
    if lwe {
        out.push_str(" lwe");
    }
    if d16 {
        out.push_str(" d16");
    }
}

/// A resource or sampler descriptor field (9 bits, encoded like a source): scalar registers; a
/// VGPR tuple or an inline constant prints with LLVM's invalid-operand note.
fn descriptor(c: &Ctx<'_, Op>, out: &mut String, v: u32, size: u16, class: &str) {
    if v >= 256 {
        operands::vgpr(out, v - 256, size);
        operands::invalid_register(out, class);
    } else if operands::is_inline_constant(v) {
        ops::src(c, out, v, 32, operands::Kind::I32);
        out.push_str(operands::INVALID_IMMEDIATE);
    } else {
        c.sreg(out, v, size);
    }
}

/// BVH ray intersection: fixed address groups, no dmask/dim.
fn bvh(c: &Ctx<'_, Op>, out: &mut String, m: &str, a16: bool, vaddr: &[u32]) {
    let wide = m.starts_with("image_bvh8") || m.starts_with("image_bvh_dual");
    let groups: &[u32] = if m.starts_with("image_bvh8") {
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
    };
    out.push(' ');
    operands::vgpr(out, c.f(I::VDATA), if wide { 320 } else { 128 });
    out.push_str(", [");
    for (i, n) in groups.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        operands::vgpr(out, vaddr.get(i).copied().unwrap_or(0), (*n * 32) as u16);
    }
    out.push_str("], ");
    c.sreg(out, c.f(I::RSRC), 128);
    if a16 {
        out.push_str(" a16");
    }
}
