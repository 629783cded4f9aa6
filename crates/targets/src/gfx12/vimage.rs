//! Image instructions without a sampler (MIMG -> VIMAGE: loads, stores, atomics, resinfo).
//! gfx1201 names each address VGPR in its own field (VADDR0-VADDR4), where gfx1013 has one
//! VADDR range or, with NSA, VADDR then NSA1..; the data VGPRs, the resource (SRSRC -> RSRC),
//! DMASK, DIM, D16, A16 and TFE carry over. UNORM is dropped (VIMAGE has no such field; loads
//! and stores address texels by integer coordinates). Cache bits as in [`super::flat`]: an
//! atomic with GLC returns the old value (TH_ATOMIC_RETURN), GLC / DLC and atomics get
//! SCOPE_DEV, SLC is dropped. BVH forms are [`super::bvh`]'s, the sampling forms (VSAMPLE)
//! [`super::vsample`]'s. Refused: more than five address VGPRs, R128, LWE, MSAA forms. The T#
//! the instruction reads is gfx1013's: the function-level chain converts it just before the
//! instruction ([`super::descriptor_convert::convert_resources`]).

use super::map::{gfx12_encoding, gfx12_opcode, MapRow};
use super::{unsupported, TranslateError};
use isabridge_decoder::operand::{Modifier, Operand, OperandKind, RegRange};
use isabridge_decoder::{Inst, Isa};

/// gfx1201's address fields, in order.
const VADDR: [&str; 5] = ["VADDR0", "VADDR1", "VADDR2", "VADDR3", "VADDR4"];

/// The gfx1201 form of MIMG instruction `inst` under map row `r`.
pub(super) fn translate(inst: &Inst, r: &MapRow) -> Result<Inst, TranslateError> {
    if inst.name.contains("BVH") {
        return super::bvh::translate(inst, r);
    }
    if inst.name.contains("MSAA") {
        return Err(unsupported(inst, "MSAA image forms: field mapping not written yet"));
    }
    let atomic = inst.name.contains("_ATOMIC");
    let (opcode, name) = gfx12_opcode(r.gfx12).ok_or_else(|| unsupported(inst, "the map names a gfx1201 instruction the tables lack"))?;
    let encoding = gfx12_encoding(r.gfx12_enc).ok_or_else(|| unsupported(inst, "the map names a gfx1201 encoding the tables lack"))?;
    let mut ops: Vec<Operand> = Vec::new();
    let mut addrs = 0usize;
    for o in inst.operands.iter().filter(|o| !o.implicit) {
        match o.field {
            "VDATA" => ops.push(*o),
            "SRSRC" => ops.push(Operand { field: "RSRC", ..*o }),
            f if f == "VADDR" || f.starts_with("NSA") => {
                let OperandKind::Reg(range) = o.kind else {
                    return Err(unsupported(inst, "image address is not a VGPR"));
                };
                for k in 0..range.count {
                    let field = *VADDR.get(addrs).ok_or_else(|| unsupported(inst, "more than five address VGPRs"))?;
                    let kind = OperandKind::Reg(RegRange { first: range.first + k, count: 1, ..range });
                    ops.push(Operand { field, kind, size: 32, ..*o });
                    addrs += 1;
                }
            }
            _ => return Err(unsupported(inst, "an image operand the translator does not map")),
        }
    }
    let (mut glc, mut dlc) = (false, false);
    let mut mods = Vec::new();
    for m in &inst.modifiers {
        match *m {
            Modifier::Named(f @ ("DMASK" | "DIM" | "D16" | "A16" | "TFE"), v) => mods.push(Modifier::Named(f, v)),
            Modifier::Named("UNORM" | "NSA" | "SLC", _) => {}
            Modifier::Named("GLC", v) => glc = v != 0,
            Modifier::Named("DLC", v) => dlc = v != 0,
            _ => return Err(unsupported(inst, "an image modifier the translator does not map (R128, LWE)")),
        }
    }
    if atomic && glc {
        mods.push(Modifier::Named("TH", 1));
    }
    if atomic || glc || dlc {
        mods.push(Modifier::Named("SCOPE", 2));
    }
    Ok(Inst { isa: Isa::Gfx1201, opcode, name, encoding, operands: ops, modifiers: mods, ..inst.clone() })
}
