//! Building AMD instructions from the operand model: the inverse of [`super::model::operands`].
//!
//! The instruction's encoding gives the identity bits and the opcode; every explicit operand
//! names the field it goes into (`Operand::field`), every modifier a field of the encoding. The
//! result is put into llvm-mc's canonical form (the same bits [`crate::IsaPlugin::encode`]
//! gives).

use super::model::{src_code, src_index, LITERAL_FIELD, NSA_FIELDS, RESERVED_FIELDS};
use super::{Amd, Generation};
use crate::operand::{BuildError, Inst, Modifier, OperandKind, RegClass, SpecialReg};
use crate::spec::{Encoding, Field};
use crate::{Decoded, MAX_WORDS};

fn field(e: &Encoding, name: &str) -> Option<&'static Field> {
    e.fields.iter().find(|f| f.name == name)
}

/// The bytes of `inst`.
pub fn build<Op: Generation>(p: &Amd<Op>, inst: &Inst) -> Result<Vec<u8>, BuildError> {
    let t = p.tables();
    let isa = p.isa;
    let name = inst.name;
    let shape = |why: &'static str| BuildError::Shape { isa, name, why };
    let ins = t
        .instructions
        .get(inst.opcode as usize)
        .filter(|i| i.name == name)
        .ok_or(BuildError::UnknownOpcode { isa, name, opcode: inst.opcode })?;
    let (ienc, ie) = ins
        .encodings
        .iter()
        .map(|&k| (k, &t.inst_encodings[k as usize]))
        .find(|(_, ie)| t.encodings[ie.enc as usize].name == inst.encoding)
        .ok_or_else(|| shape("the instruction has no such encoding"))?;
    let e = &t.encodings[ie.enc as usize];
    let g12 = isa == crate::Isa::Gfx1201;
    let null = if g12 { 124 } else { 125 };
    let mut w = [0u32; MAX_WORDS];
    // DPP8 forms tell fetch-inactive by their second identity value.
    let fi_ident = field(e, "FI").is_none() && inst.modifiers.contains(&Modifier::FetchInactive);
    let id = e.idents.get(fi_ident as usize).or(e.idents.first()).copied().unwrap_or(0);
    for (i, x) in w.iter_mut().take(4).enumerate() {
        *x = (id >> (32 * i)) as u32;
    }
    if let Some(f) = &e.op {
        f.set(&mut w, ie.opcode as u64);
    }
    let base = e.bits as usize / 32;
    let mut lit: Option<u32> = None;
    let mut nsa = 0usize;
    let set = |w: &mut [u32; MAX_WORDS], n: &str, v: u64| -> bool {
        match field(e, n) {
            Some(f) => {
                f.set(w, v);
                true
            }
            None => false,
        }
    };
    let or = |w: &mut [u32; MAX_WORDS], n: &str, v: u64| -> bool {
        match field(e, n) {
            Some(f) => {
                let old = f.get(w);
                f.set(w, old | v);
                true
            }
            None => false,
        }
    };
    for (index, o) in inst.operands.iter().enumerate() {
        if o.implicit {
            continue;
        }
        let operr = |why: &'static str| BuildError::Operand { isa, name, index, field: o.field, why };
        if let OperandKind::Literal(x) = o.kind {
            lit = Some(x);
        }
        if o.field == LITERAL_FIELD {
            continue;
        }
        if let Some(k) = NSA_FIELDS.iter().position(|f| *f == o.field) {
            let OperandKind::Reg(r) = o.kind else { return Err(operr("an NSA address is a VGPR")) };
            crate::spec::deposit(&mut w, 64 + 8 * k as u32, 8, r.first as u64);
            nsa = nsa.max(k + 1);
            continue;
        }
        let f = field(e, o.field).ok_or_else(|| operr("the encoding has no such field"))?;
        let code = || src_code(isa, &o.kind).ok_or_else(|| operr("not a source operand value"));
        let v: u64 = match (e.name, o.field, &o.kind) {
            ("ENC_SMEM", "SBASE", _) => (code()? / 2) as u64,
            ("ENC_MUBUF" | "ENC_MTBUF" | "ENC_MIMG", "SRSRC" | "SSAMP", _) => (code()? / 4) as u64,
            ("ENC_SMEM", "SOFFSET", OperandKind::Special { reg: SpecialReg::Null, .. }) => null,
            (_, "VADDR", OperandKind::Special { reg: SpecialReg::Null, .. }) => 0,
            (_, "ADDR", OperandKind::Special { reg: SpecialReg::Null, .. }) => 0,
            ("ENC_VOPD", "VDSTY", OperandKind::Reg(r)) => (r.first >> 1) as u64,
            // An explicit scalar destination (SD set); VCC is the implicit operand.
            ("ENC_VOPC_SDWA", "SDST", _) => {
                set(&mut w, "SD", 1);
                code()? as u64
            }
            (en, fld, _) if en.ends_with("_SDWA") && src_index(fld).is_some() => {
                let c = code()?;
                let scalar = c < 256;
                let low = (c & 0xff) as u64;
                if src_index(fld) == Some(0) {
                    low | if scalar { 0x100 } else { 0 }
                } else {
                    set(&mut w, "S1", scalar as u64);
                    low
                }
            }
            (_, _, OperandKind::Reg(r)) if r.class == RegClass::Vgpr && f.width() < 9 => r.first as u64,
            (_, _, OperandKind::Label(target)) => {
                let off = (*target as i64).wrapping_sub(inst.addr as i64).wrapping_sub(4) / 4;
                off as u16 as u64
            }
            (_, _, OperandKind::Imm(x)) => *x as u64,
            (_, _, OperandKind::Field { ty, value }) if *ty != "OPR_SRC" => *value,
            _ => code()? as u64,
        };
        f.set(&mut w, v);
        // Source modifiers.
        let m = o.mods;
        if m.neg || m.abs || m.not {
            let i = src_index(o.field).ok_or_else(|| operr("source modifiers on an operand that is no source"))?;
            let put = |w: &mut [u32; MAX_WORDS], vop3: &str, per: &str| -> bool {
                or(w, vop3, 1 << i) || set(w, &format!("SRC{i}_{per}"), 1)
            };
            if m.neg && !put(&mut w, "NEG", "NEG") {
                return Err(operr("the encoding has no neg bit for this source"));
            }
            if m.abs && field(e, "ABS").is_none() && field(e, "NEG_HI").is_some() {
                // v_fma_mix*: NEG_HI holds the absolute values.
                or(&mut w, "NEG_HI", 1 << i);
            } else if m.abs && !put(&mut w, "ABS", "ABS") {
                return Err(operr("the encoding has no abs bit for this source"));
            }
            if m.not && !set(&mut w, &format!("SRC{i}_SEXT"), 1) {
                return Err(operr("the encoding has no sext bit for this source"));
            }
        }
    }
    for m in &inst.modifiers {
        let ok = match *m {
            Modifier::Clamp => set(&mut w, "CLAMP", 1),
            Modifier::Omod(v) => set(&mut w, "OMOD", v as u64),
            Modifier::OpSel(v) => set(&mut w, "OPSEL", v as u64),
            Modifier::OpSelHi(v) => {
                set(&mut w, "OPSEL_HI", (v & 3) as u64) && (v >> 2 == 0 || set(&mut w, "OPSEL_HI2", (v >> 2) as u64))
            }
            Modifier::DppCtrl(v) => set(&mut w, "DPP_CTRL", v as u64),
            Modifier::RowMask(v) => set(&mut w, "ROW_MASK", v as u64),
            Modifier::BankMask(v) => set(&mut w, "BANK_MASK", v as u64),
            Modifier::BoundCtrl => set(&mut w, "BOUND_CTRL", 1),
            Modifier::FetchInactive => fi_ident || set(&mut w, "FI", 1),
            Modifier::Dpp8(v) => (0..8).all(|i| set(&mut w, ["LANE_SEL0", "LANE_SEL1", "LANE_SEL2", "LANE_SEL3", "LANE_SEL4", "LANE_SEL5", "LANE_SEL6", "LANE_SEL7"][i], (v >> (3 * i) & 7) as u64)),
            Modifier::DstSel(v) => set(&mut w, "DST_SEL", v as u64),
            Modifier::DstUnused(v) => set(&mut w, "DST_U", v as u64),
            Modifier::SrcSel(a, b) => set(&mut w, "SRC0_SEL", a as u64) && (field(e, "SRC1_SEL").is_none() || set(&mut w, "SRC1_SEL", b as u64)),
            Modifier::Named(n, v) => match RESERVED_FIELDS.iter().position(|r| *r == n) {
                Some(i) if i < base => {
                    w[i] |= v as u32;
                    true
                }
                _ => or(&mut w, n, v),
            },
            _ => false,
        };
        if !ok {
            return Err(shape("a modifier the encoding has no field for"));
        }
    }
    let mut dwords = base;
    if nsa > 0 {
        // As many NSA dwords as the NSA field says (the decoder reads them all; the operands
        // may list fewer addresses than they hold).
        let n = field(e, "NSA").map_or(0, |f| f.get(&w)) as usize;
        dwords += nsa.div_ceil(4).max(n);
    }
    if let Some(x) = lit {
        if dwords >= MAX_WORDS {
            return Err(shape("no room for the literal"));
        }
        w[dwords] = x;
        dwords += 1;
    }
    let mut d = Decoded { words: w, len: (dwords * 4) as u8, enc: ie.enc, ienc };
    Op::canonicalize(p, &mut d);
    Ok(d.bytes())
}
