//! Ray / BVH-node intersection (`image_bvh_intersect_ray`, `image_bvh64_intersect_ray`, MIMG ->
//! VIMAGE). gfx1201 names the ray's address dwords in groups, one VGPR range per field
//! (llvm-mc-22 `--mcpu=gfx1201`: `[node, extent, origin, dir, inv_dir]`, with a16 `[node,
//! extent, origin, dir_inv]`): the node pointer (one VGPR, two for bvh64), the ray extent, the
//! origin (three), the direction and inverse direction (three each, or three holding both as f16
//! pairs with a16). gfx1013 gives the same dwords in the same order as one range or, with NSA,
//! one VGPR each; each group must be consecutive VGPRs (else a typed error). The data (four
//! VGPRs), the descriptor (converted just before the instruction:
//! `descriptor_convert::bvh_rsrc_ops`) and A16 carry over; DMASK is 0xf and R128 set, as llvm-mc-22 encodes
//! every gfx1201 BVH instruction.

use super::map::{gfx12_encoding, gfx12_opcode, MapRow};
use super::{unsupported, TranslateError};
use isabridge_decoder::operand::{Modifier, Operand, OperandKind, RegClass, RegRange};
use isabridge_decoder::{Inst, Isa};

/// gfx1201's address fields, in order.
const VADDR: [&str; 5] = ["VADDR0", "VADDR1", "VADDR2", "VADDR3", "VADDR4"];

/// The gfx1201 form of BVH instruction `inst` under map row `r`.
pub(super) fn translate(inst: &Inst, r: &MapRow) -> Result<Inst, TranslateError> {
    let a16 = inst.named("A16").unwrap_or(0) != 0;
    // VGPRs per address group.
    let groups: &[u16] = match (inst.name, a16) {
        ("IMAGE_BVH_INTERSECT_RAY", false) => &[1, 1, 3, 3, 3],
        ("IMAGE_BVH_INTERSECT_RAY", true) => &[1, 1, 3, 3],
        ("IMAGE_BVH64_INTERSECT_RAY", false) => &[2, 1, 3, 3, 3],
        ("IMAGE_BVH64_INTERSECT_RAY", true) => &[2, 1, 3, 3],
        _ => return Err(unsupported(inst, "not a BVH instruction")),
    };
    let (opcode, name) = gfx12_opcode(r.gfx12).ok_or_else(|| unsupported(inst, "the map names a gfx1201 instruction the tables lack"))?;
    let encoding = gfx12_encoding(r.gfx12_enc).ok_or_else(|| unsupported(inst, "the map names a gfx1201 encoding the tables lack"))?;
    let mut ops: Vec<Operand> = Vec::new();
    // The address dwords, in order (VGPR numbers), and the operand they came from.
    let mut dwords: Vec<u16> = Vec::new();
    let mut addr_op = None;
    for o in inst.operands.iter().filter(|o| !o.implicit) {
        match o.field {
            "VDATA" => ops.push(*o),
            "SRSRC" => ops.push(Operand { field: "RSRC", ..*o }),
            f if f == "VADDR" || f.starts_with("NSA") => {
                let OperandKind::Reg(range @ RegRange { class: RegClass::Vgpr, .. }) = o.kind else {
                    return Err(unsupported(inst, "BVH address is not a VGPR"));
                };
                dwords.extend((0..range.count).map(|k| range.first + k));
                addr_op.get_or_insert(*o);
            }
            _ => return Err(unsupported(inst, "a BVH operand the translator does not map")),
        }
    }
    let addr_op = addr_op.ok_or_else(|| unsupported(inst, "BVH without an address"))?;
    if dwords.len() != groups.iter().sum::<u16>() as usize {
        return Err(unsupported(inst, "BVH address dwords: not the count gfx1201's form takes"));
    }
    let mut at = 0usize;
    let mut addrs = Vec::new();
    for (field, &n) in VADDR.iter().zip(groups) {
        let g = &dwords[at..at + n as usize];
        if g.windows(2).any(|w| w[1] != w[0] + 1) {
            return Err(unsupported(inst, "BVH address group in VGPRs that are not consecutive (gfx1201 takes a range per group)"));
        }
        let kind = OperandKind::Reg(RegRange { class: RegClass::Vgpr, first: g[0], count: n });
        addrs.push(Operand { field, kind, size: 32 * n, ..addr_op });
        at += n as usize;
    }
    // gfx1201's operand order: data, addresses, descriptor.
    let rsrc = ops.pop().filter(|o| o.field == "RSRC").ok_or_else(|| unsupported(inst, "BVH operand order"))?;
    ops.extend(addrs);
    ops.push(rsrc);
    let mut mods = vec![Modifier::Named("DMASK", 0xf), Modifier::Named("R128", 1)];
    if a16 {
        mods.push(Modifier::Named("A16", 1));
    }
    Ok(Inst { isa: Isa::Gfx1201, opcode, name, encoding, operands: ops, modifiers: mods, ..inst.clone() })
}
