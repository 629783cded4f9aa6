//! VIMAGE and VSAMPLE: image loads, stores, atomics, samples and gathers.

use super::ops::{self, sep, MemKind};
use super::{fields::ENC_VIMAGE as I, fields::ENC_VSAMPLE as S, Op};
use crate::amd::operands;
use crate::amd::print::Ctx;

use crate::amd::symbols::{image_address_count_gfx12, IMAGE_DIMS as DIMS};


/// How many VADDR fields the instruction uses (the printed address count folded into the
/// slots).
pub(super) fn addr_slots(c: &Ctx<'_, Op>) -> usize {
    let m = c.mnemonic();
    let sample = c.enc_name() == "ENC_VSAMPLE";
    let slots = if sample { 4 } else { 5 };
    if m.starts_with("image_bvh") {
        return if c.f(I::A16) != 0 && !m.starts_with("image_bvh8") && !m.starts_with("image_bvh_dual") { 4 } else { 5 };
    }
    let f = fields(c);
    (shape(m, &f.0.with(&f.1[..slots])).addrs as usize).clamp(1, slots)
}

/// The shape fields of `c` (the address slots apart: see [`ImageFields::with`]).
fn fields(c: &Ctx<'_, Op>) -> (ImageFields<'static>, [u32; 5]) {
    let sample = c.enc_name() == "ENC_VSAMPLE";
    let vaddr = if sample {
        [c.f(S::VADDR0), c.f(S::VADDR1), c.f(S::VADDR2), c.f(S::VADDR3), 0]
    } else {
        [c.f(I::VADDR0), c.f(I::VADDR1), c.f(I::VADDR2), c.f(I::VADDR3), c.f(I::VADDR4)]
    };
    let tfe = if sample { c.f(S::TFE) != 0 } else { c.f(I::TFE) != 0 };
    let f = ImageFields {
        sample,
        dim: c.f(I::DIM) as usize & 7,
        a16: c.f(I::A16) != 0,
        d16: c.f(I::D16) != 0,
        tfe,
        dmask: c.f(I::DMASK),
        vdata: c.f(I::VDATA),
        vaddr: &[],
    };
    (f, vaddr)
}

/// The register counts LLVM prints for a gfx12 image instruction (not BVH).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Data registers.
    pub data: u32,
    /// Address registers in all.
    pub addrs: u32,
}

/// The fields an image instruction's printed register counts depend on.
#[derive(Debug, Clone, Copy)]
pub struct ImageFields<'a> {
    /// VSAMPLE (four address slots) rather than VIMAGE (five).
    pub sample: bool,
    /// DIM field.
    pub dim: usize,
    /// A16 set.
    pub a16: bool,
    /// D16 set.
    pub d16: bool,
    /// TFE set.
    pub tfe: bool,
    /// DMASK field.
    pub dmask: u32,
    /// First data register.
    pub vdata: u32,
    /// The address slots' registers.
    pub vaddr: &'a [u32],
}

/// LLVM decodes an image instruction as the variant of the most addresses its slots hold
/// (single registers, at most the instruction's largest count) with one data register (two for
/// compare-and-swap and gathers), then moves to the variant the dim, a16, dmask, d16 and tfe
/// give. It keeps the decoded variant where that one does not exist: more addresses than the
/// instruction takes (samplers: the non-MSAA dims; the others at most four), a gather of three
/// data registers, an atomic of a data size it has no variant of, or a register tuple of a new
/// size past v255.
pub fn shape(m: &str, f: &ImageFields<'_>) -> Shape {
    let gather = m.starts_with("image_gather4");
    let cmpswap = m.starts_with("image_atomic") && operands::has(m, "cmpswap");
    let mut data = if gather || m.starts_with("image_msaa_load") { 4 } else { f.dmask.count_ones().max(1) };
    if f.d16 {
        data = data.div_ceil(2);
    }
    if f.tfe {
        data += 1;
    }
    let slots = f.vaddr.len() as u32;
    let want = image_address_count_gfx12(m, f.dim & 7, f.a16).max(1);
    let most = if f.sample { (0..6).map(|d| image_address_count_gfx12(m, d, false)).max().unwrap_or(1) } else { 4 };
    let decoded = Shape { data: if gather || cmpswap { 2 } else { 1 }, addrs: most.min(slots) };
    // A register tuple that changes size must exist: not past v255 (the decoded single
    // registers and data tuple may run past it).
    let last = want.min(slots) as usize - 1;
    let tail = want - last as u32;
    let past = (data != decoded.data && f.vdata + data > 256) || (tail > 1 && f.vaddr.get(last).is_some_and(|&r| r + tail > 256));
    let atomic_bad =
        m.starts_with("image_atomic") && !crate::gfx10::mimg::atomic_data_exists(f.dmask.count_ones().max(1) + f.tfe as u32, cmpswap);
    if want > most || (gather && data == 3) || past || atomic_bad {
        return decoded;
    }
    Shape { data, addrs: want }
}

impl ImageFields<'_> {
    /// The same fields with address slots `vaddr`.
    pub fn with<'b>(&self, vaddr: &'b [u32]) -> ImageFields<'b> {
        ImageFields { vaddr, ..*self }
    }
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
    let f = ImageFields { sample, dim, a16, d16, tfe, dmask, vdata: c.f(I::VDATA), vaddr };
    let shape = shape(m, &f);
    let mut k = 0;
    for op in c.ie.operands {
        sep(out, &mut k);
        let v = c.val(op);
        match c.field_name(op) {
            "VDATA" => operands::vgpr(out, v, (shape.data * 32) as u16),
            f if f.starts_with("VADDR") => {
                let n = shape.addrs;
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
/// VGPR tuple, an inline constant or the literal (255: a literal dword follows) prints with
/// LLVM's invalid-operand note.
fn descriptor(c: &Ctx<'_, Op>, out: &mut String, v: u32, size: u16, class: &str) {
    if v >= 256 {
        operands::vgpr(out, v - 256, size);
        operands::invalid_register(out, class);
    } else if operands::is_inline_constant(v) || v == 255 {
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
