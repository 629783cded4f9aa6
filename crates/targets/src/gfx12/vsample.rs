//! Sampling image instructions (MIMG -> VSAMPLE: samples, gathers, `image_get_lod`). gfx1201
//! has four address fields (VADDR0-VADDR3) where gfx1013 has one VADDR range or, with NSA,
//! VADDR then NSA1..: the address dwords keep their order (the gfx1201 lifter reads them in
//! gfx10's NSA order), the first three each in its own field and, past four, the rest as one
//! range of consecutive VGPRs in VADDR3 (a typed error when they are not consecutive). The
//! data VGPRs, the resource (SRSRC -> RSRC), the sampler (SSAMP -> SAMP), DMASK, DIM, UNORM,
//! D16, A16, TFE and LWE carry over; cache bits as in [`super::vimage`] (GLC / DLC give
//! SCOPE_DEV, SLC is dropped). Refused: R128 and `image_msaa_load` (which the map sends to
//! VSAMPLE; its fields are not mapped). The T# and S# the instruction reads are
//! converted by [`super::descriptor_convert::convert_resources`].

use super::map::{gfx12_encoding, gfx12_opcode, MapRow};
use super::{unsupported, TranslateError};
use isabridge_decoder::operand::{Modifier, Operand, OperandKind, RegClass, RegRange};
use isabridge_decoder::{Inst, Isa};

/// gfx1201's address fields, in order.
const VADDR: [&str; 4] = ["VADDR0", "VADDR1", "VADDR2", "VADDR3"];

/// The gfx1201 form of MIMG sampling instruction `inst` under map row `r`.
pub(super) fn translate(inst: &Inst, r: &MapRow) -> Result<Inst, TranslateError> {
    if inst.name.contains("MSAA") {
        return Err(unsupported(inst, "MSAA image forms: field mapping not written yet"));
    }
    let (opcode, name) = gfx12_opcode(r.gfx12).ok_or_else(|| unsupported(inst, "the map names a gfx1201 instruction the tables lack"))?;
    let encoding = gfx12_encoding(r.gfx12_enc).ok_or_else(|| unsupported(inst, "the map names a gfx1201 encoding the tables lack"))?;
    let mut data = None;
    let (mut rsrc, mut samp) = (None, None);
    let mut dwords: Vec<u16> = Vec::new();
    let mut addr_op = None;
    for o in inst.operands.iter().filter(|o| !o.implicit) {
        match o.field {
            "VDATA" => data = Some(*o),
            "SRSRC" => rsrc = Some(Operand { field: "RSRC", ..*o }),
            "SSAMP" => samp = Some(Operand { field: "SAMP", ..*o }),
            f if f == "VADDR" || f.starts_with("NSA") => {
                let OperandKind::Reg(range @ RegRange { class: RegClass::Vgpr, .. }) = o.kind else {
                    return Err(unsupported(inst, "image address is not a VGPR"));
                };
                dwords.extend((0..range.count).map(|k| range.first + k));
                addr_op.get_or_insert(*o);
            }
            _ => return Err(unsupported(inst, "a sampling operand the translator does not map")),
        }
    }
    let (Some(data), Some(rsrc), Some(samp), Some(addr_op)) = (data, rsrc, samp, addr_op) else {
        return Err(unsupported(inst, "a sampling instruction without its data, address, T# or S#"));
    };
    let mut ops = vec![data];
    for (k, field) in VADDR.iter().enumerate() {
        let rest = match dwords.get(k..) {
            Some(r) if !r.is_empty() => r,
            _ => break,
        };
        let n = if k == VADDR.len() - 1 { rest.len() } else { 1 };
        if rest[..n].windows(2).any(|w| w[1] != w[0] + 1) {
            return Err(unsupported(inst, "address dwords past the fourth in VGPRs that are not consecutive (gfx1201's VADDR3 takes a range)"));
        }
        let kind = OperandKind::Reg(RegRange { class: RegClass::Vgpr, first: rest[0], count: n as u16 });
        ops.push(Operand { field, kind, size: 32 * n as u16, ..addr_op });
    }
    ops.push(rsrc);
    ops.push(samp);
    let (mut glc, mut dlc) = (false, false);
    let mut mods = Vec::new();
    for m in &inst.modifiers {
        match *m {
            Modifier::Named(f @ ("DMASK" | "DIM" | "UNORM" | "D16" | "A16" | "TFE" | "LWE"), v) => mods.push(Modifier::Named(f, v)),
            Modifier::Named("NSA" | "SLC", _) | Modifier::Named("R128", 0) => {}
            Modifier::Named("GLC", v) => glc = v != 0,
            Modifier::Named("DLC", v) => dlc = v != 0,
            _ => return Err(unsupported(inst, "a sampling modifier the translator does not map (R128)")),
        }
    }
    if glc || dlc {
        mods.push(Modifier::Named("SCOPE", 2));
    }
    Ok(Inst { isa: Isa::Gfx1201, opcode, name, encoding, operands: ops, modifiers: mods, ..inst.clone() })
}
