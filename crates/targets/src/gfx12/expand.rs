//! Expansions: gfx1013 instructions that become several gfx1201 instructions, with what they
//! may use beyond the instruction ([`ExpandCx`]: the gfx1013 float mode and registers for
//! temporaries), and the helpers the family files (`expand_*.rs`) build their sequences with.
//!
//! Every gfx1201 instruction of a sequence is built with the gfx1201 builder and decoded back,
//! so it carries the operand model's implicit operands as a decoded instruction does.
//! Temporaries live in registers the caller reserved above every register the program uses
//! ([`ExpandCx::reserve`]); a sequence reads its sources before it writes the destination, and
//! writes no register but the destination and its temporaries (no VCC, no SCC).

use super::layout::{LayoutError, Temps};
use super::map::{gfx12_encoding, gfx12_fields, gfx12_opcode, MapRow};
use super::{unsupported, TranslateError};
use isabridge_decoder::amd::GFX12;
use isabridge_decoder::operand::{Access, ConstType, Modifier, Operand, OperandKind, RegClass, RegRange, SrcMods};
use isabridge_decoder::{Inst, IsaPlugin};

/// VGPRs an expansion may use as temporaries (the f16 `v_med3` with op_sel uses all twelve:
/// expand_minmax.rs).
pub const EXPAND_VGPRS: u16 = 12;
/// SGPRs an expansion may use as temporaries (a wave64 lane mask is a pair).
pub const EXPAND_SGPRS: u16 = 2;

/// What an expansion may use beyond the instruction it expands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExpandCx {
    /// The code runs in wave64 (lane-mask temporaries are SGPR pairs).
    pub wave64: bool,
    /// The IEEE bit of the gfx1013 MODE register the code runs under (the kernel descriptor's
    /// ENABLE_IEEE_MODE), None when unknown: the float min / max rules depend on it.
    pub ieee: Option<bool>,
    /// The DX10_CLAMP bit of the gfx1013 MODE register (the kernel descriptor's
    /// ENABLE_DX10_CLAMP), None when unknown: the clamp of a NaN depends on it.
    pub dx10_clamp: Option<bool>,
    /// First of [`EXPAND_VGPRS`] VGPRs no instruction of the program names, None when the
    /// caller reserved none.
    pub vgprs: Option<u16>,
    /// First of [`EXPAND_SGPRS`] SGPRs (even) no instruction of the program names.
    pub sgprs: Option<u16>,
}

impl ExpandCx {
    /// The context of a program whose registers `temps` counts: the temporaries are taken from
    /// `temps` (raising its counts); `mode` gives the float mode fields.
    pub fn reserve(temps: &mut Temps, wave64: bool, mode: ExpandCx) -> Result<ExpandCx, LayoutError> {
        let v = temps.vgprs(EXPAND_VGPRS)?;
        let s = temps.sgprs(EXPAND_SGPRS)?;
        Ok(ExpandCx { wave64, vgprs: Some(v.first), sgprs: Some(s.first), ..mode })
    }

    /// Temporary VGPR `k` (of [`EXPAND_VGPRS`]) as an operand of `count` registers.
    pub(super) fn vtemp(&self, inst: &Inst, k: u16, count: u16) -> Result<OperandKind, TranslateError> {
        let first = self.vgprs.ok_or_else(|| unsupported(inst, "the expansion needs temporary VGPRs (translate_inst_in)"))?;
        debug_assert!(k + count <= EXPAND_VGPRS);
        Ok(OperandKind::Reg(RegRange { class: RegClass::Vgpr, first: first + k, count }))
    }

    /// The first temporary SGPR, alone (a 32-bit scalar value).
    pub(super) fn stemp(&self, inst: &Inst) -> Result<OperandKind, TranslateError> {
        let first = self.sgprs.ok_or_else(|| unsupported(inst, "the expansion needs temporary SGPRs (translate_inst_in)"))?;
        Ok(OperandKind::Reg(RegRange { class: RegClass::Sgpr, first, count: 1 }))
    }

    /// The temporary lane mask (an SGPR, a pair in wave64).
    pub(super) fn mask(&self, inst: &Inst) -> Result<OperandKind, TranslateError> {
        let first = self.sgprs.ok_or_else(|| unsupported(inst, "the expansion needs temporary SGPRs (translate_inst_in)"))?;
        Ok(OperandKind::Reg(RegRange { class: RegClass::Sgpr, first, count: if self.wave64 { 2 } else { 1 } }))
    }
}

/// A source operand of a sequence: what it reads and its float modifiers.
pub(super) type Src = (OperandKind, SrcMods);

/// A source without modifiers.
pub(super) fn plain(kind: OperandKind) -> Src {
    (kind, SrcMods::default())
}

/// The integer inline constant `v` (0..=64).
pub(super) fn int_const(v: u16) -> OperandKind {
    debug_assert!(v <= 64);
    OperandKind::InlineConst { code: 128 + v, bits: v as u64, ty: ConstType::Int }
}

/// gfx1201 instruction `name` in encoding `enc` with explicit operands `ops` (destinations
/// first, in the reference disassembler's order) and `modifiers`, at `inst`'s address: built
/// and decoded back.
pub(super) fn emit(inst: &Inst, name: &str, enc: &str, ops: &[Src], modifiers: &[Modifier]) -> Result<Inst, TranslateError> {
    let (opcode, name) = gfx12_opcode(name).ok_or_else(|| unsupported(inst, "an expansion names a gfx1201 instruction the tables lack"))?;
    let encoding = gfx12_encoding(enc).ok_or_else(|| unsupported(inst, "an expansion names a gfx1201 encoding the tables lack"))?;
    let fields = gfx12_fields(opcode, encoding).ok_or_else(|| unsupported(inst, "an expansion names a gfx1201 form the tables lack"))?;
    if fields.len() != ops.len() {
        return Err(unsupported(inst, "an expansion gives a gfx1201 form the wrong number of operands"));
    }
    let operands = fields
        .iter()
        .zip(ops)
        .map(|(f, (kind, mods))| Operand { access: Access::Read, kind: *kind, size: 32, implicit: false, field: f, mods: *mods })
        .collect();
    let out = Inst { isa: isabridge_decoder::Isa::Gfx1201, opcode, name, encoding, operands, modifiers: modifiers.to_vec(), ..inst.clone() };
    decoded(inst, &out)
}

/// gfx1201 instruction `out` (made for `inst`) built and decoded back, so that it carries the
/// operand model's implicit operands as a decoded instruction does.
pub(super) fn decoded(inst: &Inst, out: &Inst) -> Result<Inst, TranslateError> {
    let build_err = |err| TranslateError::Build { isa: inst.isa, addr: inst.addr, name: inst.name, err };
    let bytes = GFX12.build(out).map_err(build_err)?;
    let d = GFX12
        .decode(&bytes, inst.addr)
        .map_err(|_| unsupported(inst, "an expansion built gfx1201 bytes the decoder rejects"))?;
    Ok(GFX12.operands(&d, inst.addr))
}

/// The explicit operands of `inst`: its destination and its sources, in order.
pub(super) fn dst_srcs(inst: &Inst) -> Result<(Operand, Vec<Operand>), TranslateError> {
    let mut ex = inst.explicit();
    let d = *ex.next().filter(|o| o.access.writes()).ok_or_else(|| unsupported(inst, "no destination"))?;
    Ok((d, ex.copied().collect()))
}

/// Whether an operand reads the constant bus (an SGPR, a special register or a literal).
pub(super) fn scalar(k: &OperandKind) -> bool {
    match k {
        OperandKind::Reg(r) => r.class != RegClass::Vgpr,
        OperandKind::Special { .. } | OperandKind::Literal(_) => true,
        _ => false,
    }
}

/// The expansion of `inst` (map row `r`), None when no expansion covers it.
pub(super) fn expand(inst: &Inst, r: &MapRow, cx: &ExpandCx) -> Option<Result<Vec<Inst>, TranslateError>> {
    super::expand_minmax::expand(inst, r, cx)
        .or_else(|| super::expand_mad::expand(inst, r, cx))
        .or_else(|| super::expand_sdwa::expand(inst, r, cx))
        .or_else(|| super::expand_cmpk::expand(inst, r))
        .or_else(|| super::expand_dpp::expand(inst, r, cx))
        .or_else(|| super::expand_soffset::expand(inst, r, cx))
        .or_else(|| super::expand_interp::expand(inst, r, cx))
}
