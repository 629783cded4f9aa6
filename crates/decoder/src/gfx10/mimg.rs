//! MIMG: image loads, stores, samples, gathers, atomics and BVH ray intersection.

use crate::amd::operands::has;
use super::{fields::ENC_MIMG as F, Op};
use crate::amd::operands;
use crate::amd::print::Ctx;
use crate::amd::Amd;

use crate::amd::symbols::{image_address_terms, image_suffixes, DIM_COORDS, IMAGE_DIMS as DIMS, IMG_G16};

/// Address dwords of an image instruction as LLVM counts them for gfx1013 (which has 16-bit
/// gradients): a dword each for offset, bias and compare; the coordinates and one lod / clamp /
/// mip value (two to a dword with a16); the gradients (two to a dword for `_g16`, then rounded
/// up to an even count). BVH and `image_get_resinfo` have fixed counts.
fn address_size(m: &str, dim: usize, a16: bool) -> u32 {
    if m.starts_with("image_bvh64") {
        return if a16 { 9 } else { 12 };
    }
    if m.starts_with("image_bvh") {
        return if a16 { 8 } else { 11 };
    }
    if m.starts_with("image_get_resinfo") {
        return 1;
    }
    let bits = image_suffixes(m, 2);
    let (extra, derivs, lcm) = image_address_terms(bits);
    let (coords, grads) = DIM_COORDS[dim & 7];
    let comps = coords + lcm.min(1);
    let mut n = extra + if a16 { comps.div_ceil(2) } else { comps };
    if derivs {
        n += if bits & IMG_G16 != 0 { grads.div_ceil(2) * 2 } else { 2 * grads };
    }
    n
}

/// The most address dwords any form of the instruction takes (LLVM defines its register
/// variants up to this count): the largest [`address_size`] over the dims it takes without
/// a16 (sampling forms take no MSAA dims).
fn max_address_size(m: &str, sampler: bool) -> u32 {
    if m.starts_with("image_get_resinfo") {
        // (its variants take up to four, as the mip loads do)
        return 4;
    }
    let dims = if sampler { 6 } else { 8 };
    (0..dims).map(|d| address_size(m, d, false)).max().unwrap_or(1)
}

/// True when the instruction samples (has an SSAMP operand).
fn samples(c: &Ctx<'_, Op>) -> bool {
    c.ie.operands.iter().any(|o| c.field_name(o) == "SSAMP")
}

/// Extra dwords of an NSA instruction: as many as the NSA field says. LLVM decodes an NSA word
/// as the variant with the most addresses among those of the instruction that take that many
/// NSA dwords (2-5 addresses: one dword, 6-9: two, 10-13: three) and reads that variant's
/// dwords before it converts to the variant the dim and a16 give; where the instruction has no
/// variant of that NSA dword count, LLVM rejects the word (the rejection rules' refused
/// combinations).
pub fn nsa_dwords(_p: &Amd<Op>, words: &[u32], _ienc: u16) -> usize {
    F::NSA.get(words) as usize
}

/// The register counts LLVM prints for an image instruction's data and address.
struct Shape {
    /// Data dwords.
    data: u32,
    /// Address dwords (registers of an NSA form).
    addrs: u32,
    /// False where LLVM keeps the variant it decoded: then the data is `data_decoded`.
    converted: bool,
    /// Data dwords of the decoded variant.
    data_decoded: u32,
}

/// LLVM decodes an image instruction as one variant (plain: the fewest address dwords the
/// instruction takes; NSA: the most its NSA dwords hold; data: one dword, two for
/// compare-and-swap and gathers), then moves to the variant of the address count the dim and
/// a16 give and the data count dmask, d16 and tfe give. It keeps the decoded variant where
/// that one does not exist: more addresses than the instruction takes (or than the NSA dwords
/// hold), an NSA form of one address, a gather of three data dwords, or registers past v255.
#[allow(clippy::too_many_arguments)]
fn shape(c: &Ctx<'_, Op>, m: &str, bvh: bool, nsa: u32, dim: usize, a16: bool, d16: bool, dmask: u32) -> Shape {
    let f = ImageFields {
        nsa,
        dim,
        a16,
        d16,
        dmask,
        tfe: c.f(F::TFE) != 0,
        vdata: c.f(F::VDATA),
        vaddr: c.f(F::VADDR),
        len: c.d.len as u32,
        sampler: samples(c),
    };
    shape_of(m, bvh, &f)
}

/// The fields an image instruction's printed register counts depend on.
#[derive(Debug, Clone, Copy)]
pub struct ImageFields {
    /// NSA field (extra address dwords).
    pub nsa: u32,
    /// DIM field.
    pub dim: usize,
    /// A16 set.
    pub a16: bool,
    /// D16 set.
    pub d16: bool,
    /// DMASK field.
    pub dmask: u32,
    /// TFE set.
    pub tfe: bool,
    /// First data register.
    pub vdata: u32,
    /// First address register.
    pub vaddr: u32,
    /// Instruction length in bytes.
    pub len: u32,
    /// The instruction has a sampler operand.
    pub sampler: bool,
}

/// The address registers an image instruction lists as the printer (and LLVM) gives them: the
/// operand model lists as many, so building the instruction keeps every NSA byte it prints.
pub fn printed_addresses(m: &str, f: &ImageFields) -> u32 {
    shape_of(m, m.starts_with("image_bvh"), f).addrs
}

/// The data registers an image instruction lists as the printer (and LLVM) gives them.
pub fn printed_data(m: &str, f: &ImageFields) -> u32 {
    let s = shape_of(m, m.starts_with("image_bvh"), f);
    if s.converted {
        s.data
    } else {
        s.data_decoded
    }
}

fn shape_of(m: &str, bvh: bool, f: &ImageFields) -> Shape {
    let (nsa, dim, a16, d16, dmask) = (f.nsa, f.dim, f.a16, f.d16, f.dmask);
    let atomic = m.starts_with("image_atomic");
    let gather = m.starts_with("image_gather4");
    let cmpswap = atomic && has(m, "cmpswap");
    let mut data = if bvh || gather { 4 } else { dmask.count_ones().max(1) };
    if cmpswap {
        data = data.max(2);
    }
    if d16 && !atomic {
        data = data.div_ceil(2);
    }
    if f.tfe {
        data += 1;
    }
    let data_decoded = if cmpswap || gather { 2 } else { 1 };
    let want = address_size(m, dim, a16);
    if bvh {
        return Shape { data, addrs: want, converted: true, data_decoded };
    }
    let most = max_address_size(m, f.sampler);
    let (addrs, mut converted) = if nsa != 0 {
        // (the NSA dwords the instruction has: see `nsa_dwords`)
        let present = (f.len / 4).saturating_sub(2);
        let decoded = most.min(1 + 4 * present);
        if (2..=decoded).contains(&want) {
            (want, true)
        } else {
            (decoded, false)
        }
    } else if has_variant(if want > 12 { 16 } else { want }, fewest_addresses(m), most) {
        (if want > 12 { 16 } else { want }, true)
    } else {
        (fewest_addresses(m), false)
    };
    // A gather of three data registers, an atomic of a data size it has no variant of: none.
    if (gather && data == 3) || (atomic && !atomic_data_exists(dmask.count_ones().max(1) + f.tfe as u32, cmpswap)) {
        converted = false;
    }
    if converted && (f.vdata + data > 256 || (nsa == 0 && f.vaddr + addrs > 256)) {
        converted = false;
    }
    if !converted && nsa == 0 {
        return Shape { data, addrs: fewest_addresses(m), converted, data_decoded };
    }
    Shape { data, addrs, converted, data_decoded }
}

/// True when an image atomic has a variant of `data` registers (the DMASK channels and TFE's
/// one): one to three, two to five for compare-and-swap.
pub fn atomic_data_exists(data: u32, cmpswap: bool) -> bool {
    if cmpswap {
        (2..=5).contains(&data)
    } else {
        (1..=3).contains(&data)
    }
}

/// True when LLVM defines a plain (non-NSA) variant of `n` address dwords for an instruction
/// taking `lo` to `hi`: those counts, and the register classes that cover a range of them (4
/// for 3-4, 8 for 5-8, 16 for 13-16).
fn has_variant(n: u32, lo: u32, hi: u32) -> bool {
    let meets = |a: u32, b: u32| a <= hi && lo <= b;
    (lo..=hi).contains(&n) || (n == 4 && meets(3, 4)) || (n == 8 && meets(5, 8)) || (n == 16 && meets(13, 16))
}

/// The fewest address dwords LLVM defines a variant of the instruction for: its offset, bias
/// and compare dwords and one more (two with derivatives).
fn fewest_addresses(m: &str) -> u32 {
    let (extra, derivs, _) = image_address_terms(image_suffixes(m, 2));
    extra + if derivs { 2 } else { 1 }
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
    let shape = shape(c, m, bvh, nsa, dim, a16, d16, dmask);
    for (k, op) in c.ie.operands.iter().enumerate() {
        crate::amd::operands::sep(out, k);
        let v = c.val(op);
        match c.field_name(op) {
            "VDATA" => {
                let n = if shape.converted { shape.data } else { shape.data_decoded };
                operands::vgpr(out, v, (n * 32) as u16);
            }
            "VADDR" => {
                let n = shape.addrs;
                if nsa != 0 {
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
