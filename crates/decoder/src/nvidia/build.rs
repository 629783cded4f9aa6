//! Building NVIDIA instructions from the operand model: the form named by [`Inst::encoding`],
//! its identifier bits (with `IDENT_XOR_LO` / `IDENT_XOR_HI` where the word differed), then every field from the operand or modifier that the model reads it
//! into (see [`super::model`]), float immediates and branch targets at their fixed positions,
//! the bits no field holds (`BITS_LO` / `BITS_HI`) and the scheduling control bits.

use super::model::{self, Role, Shape};
use super::NvPlugin;
use crate::operand::{BuildError, Inst, Modifier, Operand, OperandKind, SpecialReg};
use crate::spec::{NvField, NvForm, NvKind};
use crate::{Isa, IsaPlugin};

/// The bytes of `inst`: sm_86, 16 bytes with the control bits; sm_50, the 8-byte instruction
/// word, preceded by the bundle's control word when the instruction was decoded at a bundle
/// start (length 16, as [`crate::Decoded`] has it).
pub fn build(p: &NvPlugin, inst: &Inst) -> Result<Vec<u8>, BuildError> {
    let w = build_word(p, inst)?;
    if p.size == 16 {
        return Ok(w.to_le_bytes().to_vec());
    }
    let mut v = Vec::with_capacity(16);
    if inst.len == 16 {
        let mut ctrl = inst.named("CTRL_WORD").unwrap_or(0);
        if let Some(c) = inst.control {
            ctrl = (ctrl & !0x1f_ffff) | c.to_bits() as u64;
        }
        v.extend_from_slice(&ctrl.to_le_bytes());
    }
    v.extend_from_slice(&(w as u64).to_le_bytes());
    Ok(v)
}

/// The bytes of an sm50 instruction.
pub fn build_sm50(inst: &Inst) -> Result<Vec<u8>, BuildError> {
    build(&crate::sm50::SM50_INSN, inst)
}

/// The form `inst` names.
fn form_of(p: &NvPlugin, inst: &Inst) -> Result<&'static NvForm, BuildError> {
    p.t.forms
        .iter()
        .copied()
        .find(|f| f.inst == inst.opcode && f.name == inst.encoding)
        .ok_or(BuildError::UnknownOpcode { isa: p.isa(), name: inst.name, opcode: inst.opcode })
}

/// The field value of a register-like or plain operand.
fn plain_value(f: &NvField, o: &Operand) -> Option<u64> {
    Some(match o.kind {
        OperandKind::Reg(r) => r.first as u64,
        OperandKind::Special { reg, .. } => match reg {
            SpecialReg::Rz => 255,
            SpecialReg::Urz => 63,
            SpecialReg::Pt | SpecialReg::Upt => 7,
            SpecialReg::Sr(_, n) => n as u64,
            _ => return None,
        },
        OperandKind::Imm(x) => model::unnumber(f, x),
        OperandKind::Field { value, .. } => value,
        _ => return None,
    })
}

/// The instruction as a 128-bit value (sm50: the word in the low half).
pub fn build_word(p: &NvPlugin, inst: &Inst) -> Result<u128, BuildError> {
    let form = form_of(p, inst)?;
    let t = p.t;
    let isa = p.isa;
    let err = |index: usize, field: &'static str, why: &'static str| BuildError::Operand { isa, name: inst.name, index, field, why };
    let mut w = form.ident;
    // Bits no field holds (and, for a word the decoder gave its family's first form, the
    // structural bits too).
    let bits = inst.named("BITS_LO").unwrap_or(0) as u128 | (inst.named("BITS_HI").unwrap_or(0) as u128) << 64;
    let flip = inst.named("IDENT_XOR_LO").unwrap_or(0) as u128 | (inst.named("IDENT_XOR_HI").unwrap_or(0) as u128) << 64;
    w ^= flip & form.mask;
    w |= bits & !form.mask;
    if form.pred >= 0 {
        let (pv, neg) = inst.guard.map_or((7, false), |g| (g.reg.first as u64, g.negate));
        form.fields[form.pred as usize].set(&mut w, pv);
        if form.pred_neg >= 0 {
            form.fields[form.pred_neg as usize].set(&mut w, neg as u64);
        }
    }
    for m in &inst.modifiers {
        if let Modifier::Named(n, v) = *m {
            if let Some(f) = form.field(n) {
                f.set(&mut w, v);
            }
        }
    }
    let l = model::layout(t, form);
    let explicit: Vec<&Operand> = inst.explicit().collect();
    let inst_addr = if isa == Isa::Sm50 && inst.len == 16 { inst.addr + 8 } else { inst.addr };
    let rel = model::relative_target(isa, inst.name, has_rel(inst, t, form));
    let rawoff = model::raw_offset(isa, inst.name);
    // Float immediates and targets go last: they may share bits with other fields.
    let mut late: Vec<(usize, &NvField, &Operand)> = Vec::new();
    let ranges = model::seg_operands(&l, form, inst);
    for (seg_index, (seg, r)) in l.segs.iter().zip(ranges).enumerate() {
        let seg_ops: Vec<(usize, &Operand)> = r.map(|k| (k, explicit[k])).collect();
        for &(i, role) in &seg.fields {
            let f = &form.fields[i as usize];
            let name = f.name();
            match (seg.shape, role) {
                (_, Role::Attr) => {}
                (_, Role::Neg | Role::Abs | Role::Not | Role::Inv) => {
                    let target = name.get(4..).unwrap_or("");
                    let o = seg_ops.iter().find(|x| x.1.field == target).or(seg_ops.first());
                    if let Some((_, o)) = o {
                        let on = match role {
                            Role::Neg => o.mods.neg,
                            Role::Abs => o.mods.abs,
                            _ => o.mods.not,
                        };
                        f.set(&mut w, on as u64);
                    }
                }
                (Shape::Plain, _) => {
                    let Some(&(k, o)) = seg_ops.iter().find(|x| x.1.field == name) else {
                        if f.omit_zero() {
                            f.set(&mut w, 0);
                            continue;
                        }
                        // a texture register nvdisasm leaves out when it is 255 (the model does too)
                        if f.kind == NvKind::Reg && f.ranges() == [(32, 8)] {
                            let mut with_255 = w;
                            f.set(&mut with_255, 255);
                            if model::texture_register_255(isa, inst.name, with_255) == Some(false) {
                                w = with_255;
                                continue;
                            }
                        }
                        return Err(err(0, name, "no operand for this field"));
                    };
                    match o.kind {
                        OperandKind::FImm { .. } | OperandKind::Label(_) => late.push((k, f, o)),
                        OperandKind::Imm(_) if rawoff.is_some() && f.kind != NvKind::FImm && is_last_number(&l, form, i) => late.push((k, f, o)),
                        OperandKind::Special { reg: SpecialReg::Sr(_, n), .. } if model::sr_bits(isa, inst.name) => put(&mut w, 20, 8, n as u64),
                        OperandKind::Special { reg: SpecialReg::Sr(_, n), .. } if isa == Isa::Sm86 && matches!(inst.name, "S2R" | "CS2R" | "S2UR") => {
                            put(&mut w, 72, 8, n as u64)
                        }
                        _ => {
                            let v = plain_value(f, o).ok_or_else(|| err(k, name, "operand kind does not fit the field"))?;
                            match (model::inverted_pred(isa, inst.name, f), model::fixed_pred(isa, inst.name, f, seg_index)) {
                                (Some(lo), _) => put(&mut w, lo, 3, 7 - (v & 7)),
                                (None, Some(lo)) => put(&mut w, lo, 3, v),
                                _ => f.set(&mut w, v),
                            }
                        }
                    }
                }
                (Shape::Const | Shape::Mem, _) => {
                    let Some(&(k, o)) = seg_ops.first() else { return Err(err(0, name, "no address operand")) };
                    let v = match (o.kind, role) {
                        (OperandKind::ConstBank { bank, bank_reg, .. }, Role::Bank) => match bank_reg {
                            Some(r) if f.kind == NvKind::UReg => r.first as u64,
                            None if f.kind == NvKind::UReg => 63,
                            _ => bank as u64,
                        },
                        (OperandKind::ConstBank { reg, .. }, Role::Base | Role::UBase) => reg.map_or(if f.kind == NvKind::UReg { 63 } else { 255 }, |r| r.first as u64),
                        (OperandKind::ConstBank { offset, .. }, Role::Offset) => model::unnumber(f, offset as i64),
                        (OperandKind::Mem { base, .. }, Role::Base) => base.map_or(if f.kind == NvKind::UReg { 63 } else { 255 }, |r| r.first as u64),
                        (OperandKind::Mem { ubase, .. }, Role::UBase) => ubase.map_or(if f.kind == NvKind::Reg { 255 } else { 63 }, |r| r.first as u64),
                        (OperandKind::Mem { offset, .. }, Role::Offset) if isa == Isa::Sm50 && inst.name == "ATOMS" => {
                            put(&mut w, 30, 22, (offset / 4) as u64);
                            continue;
                        }
                        (OperandKind::Mem { offset, base: None, .. }, Role::Offset) if isa == Isa::Sm50 && inst.name == "ATOM" => {
                            put(&mut w, 28, 20, offset as u64);
                            continue;
                        }
                        (OperandKind::Mem { offset, .. }, Role::Offset) if model::short_offset(isa, inst.name, f) => {
                            put(&mut w, 40, 24, offset as u64);
                            continue;
                        }
                        (OperandKind::Mem { offset, .. }, Role::Offset) => model::unnumber(f, offset),
                        _ => return Err(err(k, name, "operand kind does not fit the address field")),
                    };
                    f.set(&mut w, v);
                }
            }
        }
    }
    let mut fimm_k = 0usize;
    for (k, f, o) in late {
        match o.kind {
            OperandKind::FImm { bits, ty } if isa == Isa::Sm50 && matches!(inst.name, "FADD" | "FSETP" | "DMNMX") && f.kind != NvKind::FImm => {
                let (m19, sg) = if ty == crate::operand::ConstType::F64 { (bits >> 44, bits >> 63) } else { (bits >> 12, bits >> 31) };
                put(&mut w, 20, 19, m19);
                put(&mut w, 56, 1, sg);
            }
            OperandKind::FImm { bits, .. } => {
                let fsrc = model::float_source(isa, t, form, &l, w, fimm_k);
                fimm_k += 1;
                model::set_float_imm(isa, inst.name, fsrc, f, &mut w, bits)
            }
            OperandKind::Label(a) => {
                let Some((sz, lo, n, scale)) = rel else { return Err(err(k, f.name(), "a label on an instruction without a relative target")) };
                let off = (a as i64).wrapping_sub(inst_addr as i64).wrapping_sub(sz as i64) / scale;
                put(&mut w, lo, n, off as u64);
            }
            OperandKind::Imm(x) => {
                if let Some((lo, n, scale)) = rawoff {
                    put(&mut w, lo, n, (x / scale) as u64);
                }
            }
            _ => {}
        }
    }
    if isa == Isa::Sm86 {
        if let Some(c) = inst.control {
            let m = ((1u128 << 21) - 1) << 105;
            w = (w & !m) | (c.to_bits() as u128) << 105;
        }
    }
    Ok(w)
}

fn put(w: &mut u128, lo: u32, n: u32, v: u64) {
    let m = ((1u128 << n) - 1) << lo;
    *w = (*w & !m) | (((v as u128) << lo) & m);
}

/// Field `i` is the last number of the template (the raw offset of `BRX` / `JMX`).
fn is_last_number(l: &model::Layout, form: &NvForm, i: u8) -> bool {
    let nums: Vec<u8> = l
        .segs
        .iter()
        .flat_map(|s| s.fields.iter())
        .filter(|x| x.1 == Role::Value && matches!(form.fields[x.0 as usize].kind, NvKind::UImm | NvKind::SImm | NvKind::Other))
        .map(|x| x.0)
        .collect();
    nums.last() == Some(&i)
}

/// The mnemonic holds `.REL` (sm86 `CALL.REL`, `RET.REL`).
fn has_rel(inst: &Inst, t: &crate::spec::NvTables, form: &NvForm) -> bool {
    let head = form.pieces().next().and_then(|p| match p {
        crate::spec::NvPiece::Lit(s) => Some(s),
        _ => None,
    });
    if head.is_some_and(|s| s.split(' ').next().unwrap_or("").split('.').any(|x| x == "REL")) {
        return true;
    }
    let l = model::layout(t, form);
    l.mnem.iter().any(|&i| {
        let f = &form.fields[i as usize];
        let v = inst.named(f.name()).unwrap_or(0);
        t.operand_types.get(f.ty as usize).and_then(|ty| ty.lookup(v as i64)).is_some_and(|s| s.split('.').any(|x| x == "REL"))
    })
}
