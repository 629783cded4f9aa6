//! What the gfx10 and gfx12 print plans (`gfx10/fast.rs`, `gfx12/fast.rs`) share: the shape
//! of a plan and the operand facts that do not depend on the generation.

use crate::amd::operands::Kind;

/// [`OpPlan::role`]: a VGPR.
pub const R_VGPR: u8 = 0;
/// [`OpPlan::role`]: the implicit `vcc_lo`.
pub const R_VCC: u8 = 1;
/// [`OpPlan::role`]: a scalar destination (a register; gfx12 names values above 127 like sources).
pub const R_SDST: u8 = 2;
/// [`OpPlan::role`]: the 32-bit literal constant.
pub const R_SIMM32: u8 = 3;
/// [`OpPlan::role`]: a source without modifiers.
pub const R_SRC: u8 = 4;
/// [`OpPlan::role`]: VOP3 source 0 with its modifiers (1 and 2 follow).
pub const R_MSRC0: u8 = 5;

/// One printed operand.
#[derive(Clone, Copy)]
pub struct OpPlan {
    /// Bit offset of its field in the first two words.
    pub off: u8,
    /// Field width in bits (0: no field, the value is 0).
    pub cnt: u8,
    /// What it prints as (R_*).
    pub role: u8,
    /// Print kind (gfx10 VOP3 sources: the kind their modifiers follow).
    pub kind: Kind,
    /// gfx12 VOP3 sources: whether NEG and ABS apply (gfx10 decides by kind).
    pub mods: bool,
    /// Size in bits.
    pub size: u16,
    /// gfx12 32-bit forms: a 16-bit VGPR operand that takes only v0-v127 (LLVM notes a
    /// register past v127).
    pub lo128: bool,
    /// Sources: the LLVM register class when it takes one register file only
    /// ([`crate::amd::operands::source_class`]; 0 for any source).
    pub class: u8,
}

/// No plan: print through the family printers (`vop::print` of the generation).
pub const F_NONE: u8 = 0;
/// VOP1/VOP2/VOPC.
pub const F_E32: u8 = 1;
/// VOP3.
pub const F_VOP3: u8 = 2;
/// VOP3 with a scalar destination: gfx10 VOP3B, gfx12 VOP3SD.
pub const F_VOP3_SDST: u8 = 3;

/// [`Plan::flags`]: the mnemonic takes `_e32` (VOP1/VOP2/VOPC) or `_e64` (VOP3).
pub const SUFFIX: u8 = 1;
/// [`Plan::flags`]: op_sel shows when set.
pub const OPSEL: u8 = 2;
/// [`Plan::flags`]: omod shows when set.
pub const OMOD: u8 = 4;

/// Most operands a plan holds.
pub const MAX_OPS: usize = 5;

/// The print plan of one (instruction, encoding) pair.
#[derive(Clone, Copy)]
pub struct Plan {
    /// The printed operands in order.
    pub ops: [OpPlan; MAX_OPS],
    /// How many of `ops` are used.
    pub n: u8,
    /// F_* form.
    pub form: u8,
    /// SUFFIX, OPSEL, OMOD.
    pub flags: u8,
}

/// An unused operand slot.
pub const NO_OP: OpPlan = OpPlan { off: 0, cnt: 0, role: R_SRC, kind: Kind::I32, mods: false, size: 0, lo128: false, class: 0 };
/// No plan.
pub const NO_PLAN: Plan = Plan { ops: [NO_OP; MAX_OPS], n: 0, form: F_NONE, flags: 0 };

/// The source index of an operand ([`crate::amd::operands::src_index`]).
pub const fn src_index(op: &crate::spec::Operand) -> Option<usize> {
    match &op.field {
        Some(f) => match f.name.as_bytes() {
            [b'S', b'R', b'C', d @ b'0'..=b'2'] => Some((*d - b'0') as usize),
            [b'V', b'S', b'R', b'C', d @ b'0'..=b'1'] => Some((*d - b'0') as usize),
            _ => None,
        },
        None => None,
    }
}

/// The operand's bit range in the first two words ((0, 0) with no field); None when it has
/// several pieces or lies past the first 64 bits.
pub const fn range(op: &crate::spec::Operand) -> Option<(u8, u8)> {
    match &op.field {
        None => Some((0, 0)),
        Some(f) => match f.ranges {
            [(off, cnt)] if (*off as u32) + (*cnt as u32) <= 64 && *cnt <= 16 => Some((*off, *cnt)),
            _ => None,
        },
    }
}

