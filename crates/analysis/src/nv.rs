//! Table facts of decoded NVIDIA instructions (both families): form, name, guard predicate,
//! constant-bank operands, all read from the generated form tables.

use isabridge_decoder::nvidia::NvPlugin;
use isabridge_decoder::sm50::SM50_INSN;
use isabridge_decoder::sm86::SM86;
use isabridge_decoder::spec::{NvForm, NvKind, NvPiece, NvTables};
use isabridge_decoder::{Decoded, Isa};

/// The instruction-level plugin of an NVIDIA ISA.
pub fn plugin(isa: Isa) -> &'static NvPlugin {
    if isa == Isa::Sm50 {
        &SM50_INSN
    } else {
        &SM86
    }
}

/// One decoded NVIDIA instruction with its tables.
#[derive(Clone, Copy)]
pub struct NvInfo {
    /// The ISA's tables.
    pub t: &'static NvTables,
    /// Its form.
    pub form: &'static NvForm,
    /// The instruction bits (sm50: the low 64).
    pub w: u128,
}

/// A constant-bank operand `c[bank][reg + offset]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CbufRef {
    /// Bank number; None when the bank comes from a register (`cx[UR..]`).
    pub bank: Option<u32>,
    /// Byte offset.
    pub offset: i64,
    /// Index register, when not RZ.
    pub reg: Option<u32>,
}

/// Where a form's constant-bank operand starts in its print template (the piece that opens
/// `c[` or `cx[`) and whether it is bindless (`cx[`); None when the form has none.
fn cbuf_start(form: &NvForm) -> Option<(usize, bool)> {
    let start = form.pieces().position(|p| matches!(p, NvPiece::Lit(s) if s.ends_with("c[") || s.ends_with("c[RZ+") || s.ends_with("cx[")))?;
    Some((start, matches!(form.piece(start), Some(NvPiece::Lit(s)) if s.ends_with("cx["))))
}

/// Where the bank of a form's constant-bank operand comes from (what [`NvInfo::cbuf`] reads, by
/// form): None when the form has no constant-bank operand; `Some(Some(i))` when it is field `i`;
/// `Some(None)` when it is no field (bindless `cx[..]`: the bank is in a register).
pub fn cbuf_bank_field(form: &NvForm) -> Option<Option<usize>> {
    let (start, bindless) = cbuf_start(form)?;
    if bindless {
        return Some(None);
    }
    Some(match form.piece(start + 1) {
        Some(NvPiece::Field(i)) if (i as usize) < form.fields.len() => Some(i as usize),
        _ => None,
    })
}

/// How to tell from an instruction's bits whether a form's guard is `@PT`
/// ([`NvInfo::predicated`] by mask and compare), computed once per form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GuardTest {
    /// The form has no guard field: never predicated.
    Unguarded,
    /// Predicated unless `w & mask == pt` (the guard field holds 7 and the negation bit is 0).
    Masked {
        /// The guard and negation fields' bits.
        mask: u128,
        /// Those bits when the guard is `@PT`.
        pt: u128,
    },
    /// The guard field is too narrow to hold 7: always predicated.
    Always,
}

/// [`GuardTest`] of `form`.
pub fn guard_test(form: &NvForm) -> GuardTest {
    if form.pred < 0 {
        return GuardTest::Unguarded;
    }
    let Some(p) = form.fields.get(form.pred as usize) else { return GuardTest::Always };
    let (mut mask, mut pt) = (0u128, 0u128);
    let mut width = 0u32;
    let mut v = 7u64;
    for &(off, cnt) in p.ranges() {
        let bits = (1u128 << cnt) - 1;
        mask |= bits << off;
        pt |= ((v as u128) & bits) << off;
        v = v.checked_shr(cnt as u32).unwrap_or(0);
        width += cnt as u32;
    }
    if width < 3 {
        return GuardTest::Always;
    }
    if form.pred_neg >= 0 {
        let Some(n) = form.fields.get(form.pred_neg as usize) else { return GuardTest::Always };
        for &(off, cnt) in n.ranges() {
            mask |= ((1u128 << cnt) - 1) << off;
        }
    }
    GuardTest::Masked { mask, pt }
}

impl GuardTest {
    /// [`NvInfo::predicated`] of an instruction of this form with bits `w`.
    #[inline(always)]
    pub fn predicated(self, w: u128) -> bool {
        match self {
            GuardTest::Unguarded => false,
            GuardTest::Masked { mask, pt } => w & mask != pt,
            GuardTest::Always => true,
        }
    }
}

impl NvInfo {
    /// Facts of `d`; None when its form index is out of range (never for decoded input).
    pub fn new(isa: Isa, d: &Decoded) -> Option<NvInfo> {
        let p = plugin(isa);
        let form = p.t.forms.get(d.enc as usize)?;
        Some(NvInfo { t: p.t, form, w: p.word(d) })
    }

    /// Base mnemonic.
    pub fn name(&self) -> &'static str {
        self.t.insts.get(self.form.inst as usize).map(|i| i.name).unwrap_or("?")
    }

    /// FLAG_* bits of the instruction.
    pub fn flags(&self) -> u8 {
        self.t.insts.get(self.form.inst as usize).map(|i| i.flags).unwrap_or(0)
    }

    /// Value of the named field.
    pub fn get(&self, name: &str) -> Option<u64> {
        self.form.field(name).map(|f| f.get(self.w))
    }

    /// Guard predicate: (register, negated). `(7, false)` is `@PT` (always).
    #[inline]
    pub fn guard(&self) -> (u64, bool) {
        if self.form.pred < 0 {
            return (7, false);
        }
        let p = self.form.fields[self.form.pred as usize].get(self.w);
        let n = if self.form.pred_neg >= 0 { self.form.fields[self.form.pred_neg as usize].get(self.w) != 0 } else { false };
        (p, n)
    }

    /// True when the guard is not `@PT`.
    #[inline]
    pub fn predicated(&self) -> bool {
        self.guard() != (7, false)
    }

    /// True when the guard is `@!PT` (never executes).
    #[inline]
    pub fn never(&self) -> bool {
        self.guard() == (7, true)
    }

    /// Raw bits [off, off+n).
    pub fn bits(&self, off: u32, n: u32) -> u64 {
        ((self.w >> off) as u64) & if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
    }

    /// The constant-bank operand, if the form has one (from its print template).
    pub fn cbuf(&self) -> Option<CbufRef> {
        let (start, bindless) = cbuf_start(self.form)?;
        let mut k = start + 1;
        let mut bank = None;
        if let Some(NvPiece::Field(i)) = self.form.piece(k) {
            bank = self.form.fields.get(i as usize).map(|f| f.get(self.w) as u32);
            k += 1;
        }
        let mut offset = 0i64;
        let mut reg = None;
        while let Some(p) = self.form.piece(k) {
            match p {
                NvPiece::Lit(s) if s.ends_with(']') && k > start + 2 => break,
                NvPiece::Lit(_) => {}
                NvPiece::Field(i) => {
                    if let Some(f) = self.form.fields.get(i as usize) {
                        let v = f.get(self.w);
                        match f.kind {
                            NvKind::Reg if v != 255 => reg = Some(v as u32),
                            NvKind::UImm => offset = offset.wrapping_add((v as i64).wrapping_mul(f.scale() as i64)),
                            NvKind::SImm => {
                                let n = f.width().clamp(1, 64);
                                let s = ((v << (64 - n)) as i64) >> (64 - n);
                                offset = offset.wrapping_add(s.wrapping_mul(f.scale() as i64));
                            }
                            _ => {}
                        }
                    }
                }
            }
            k += 1;
        }
        Some(CbufRef { bank: if bindless { None } else { bank }, offset, reg })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guard_test_agrees_with_the_field_reads() {
        let mut x = 0x9e37_79b9_7f4a_7c15_u128;
        for isa in [Isa::Sm50, Isa::Sm86] {
            let t = plugin(isa).t;
            for form in t.forms {
                let g = guard_test(form);
                for k in 0..64 {
                    x = x.wrapping_mul(0x2545_f491_4f6c_dd1d_u128 | 1 << 100).wrapping_add(0x1405_7b7e_f767_814f);
                    // Every fourth word with the guard bits of @PT forced, so both answers occur.
                    let w = match g {
                        GuardTest::Masked { mask, pt } if k % 4 == 0 => x & !mask | pt,
                        _ => x,
                    };
                    let inf = NvInfo { t, form, w };
                    assert_eq!(g.predicated(w), inf.predicated(), "{isa:?} {} {w:#x}", form.name);
                }
            }
        }
    }
}
