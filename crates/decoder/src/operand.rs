//! The operand model: a decoded instruction as a translator reads it (opcode, operands in order
//! with direction and kind, implicit operands, typed modifiers, control-flow kind).
//!
//! Every ISA plugin answers [`crate::IsaPlugin::operands`] with an [`Inst`]. Register numbers are
//! architectural (an SBASE field of 2 is `s[4:5]`, first register 4, count 2), literals and inline
//! constants are told apart, and the registers an instruction reads or writes without naming
//! them (SCC, VCC, EXEC, M0, MODE; NVIDIA CC) are listed as implicit operands.
//! [`crate::IsaPlugin::build`] turns an [`Inst`] back into bytes.

use crate::Isa;

/// Whether an instruction reads an operand, writes it, or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    /// Read only (a use).
    Read,
    /// Written only (a def).
    Write,
    /// Read and written (an atomic's data, a MAC accumulator, VCC of `v_addc`).
    ReadWrite,
}

impl Access {
    /// True when the instruction reads the operand.
    pub fn reads(self) -> bool {
        matches!(self, Access::Read | Access::ReadWrite)
    }
    /// True when the instruction writes the operand.
    pub fn writes(self) -> bool {
        matches!(self, Access::Write | Access::ReadWrite)
    }
}

/// A class of numbered registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RegClass {
    /// AMD scalar register `s`N (numbers 0..=105 on gfx10/gfx12).
    Sgpr,
    /// AMD vector register `v`N.
    Vgpr,
    /// AMD trap temporary `ttmp`N.
    Ttmp,
    /// AMD accumulation register `a`N (not on gfx1013 or gfx1201; kept for completeness).
    Agpr,
    /// NVIDIA general register `R`N (255 is RZ, see [`SpecialReg::Rz`]).
    R,
    /// NVIDIA uniform register `UR`N (sm_75 and later; 63 is URZ).
    Ur,
    /// NVIDIA predicate `P`N (7 is PT).
    P,
    /// NVIDIA uniform predicate `UP`N (7 is UPT).
    Up,
}

/// A run of consecutive registers of one class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RegRange {
    /// Register class.
    pub class: RegClass,
    /// First register number.
    pub first: u16,
    /// Number of 32-bit registers (1 for predicates).
    pub count: u16,
}

/// A register with a name of its own rather than a number in a class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SpecialReg {
    /// AMD VCC (`vcc`, or `vcc_lo` / `vcc_hi` with [`Part`]).
    Vcc,
    /// AMD EXEC.
    Exec,
    /// AMD M0.
    M0,
    /// AMD scalar condition code.
    Scc,
    /// AMD `null` (gfx10.3+ / gfx12 `sgpr_null`; reads 0, writes are dropped).
    Null,
    /// AMD MODE register (rounding and denormal modes).
    Mode,
    /// AMD FLAT_SCRATCH.
    FlatScratch,
    /// AMD XNACK_MASK.
    XnackMask,
    /// AMD trap base address.
    Tba,
    /// AMD trap memory address.
    Tma,
    /// AMD `src_vccz`.
    VccZ,
    /// AMD `src_execz`.
    ExecZ,
    /// AMD `src_scc` (SCC read as a source operand).
    SrcScc,
    /// AMD `src_lds_direct`.
    LdsDirect,
    /// AMD `src_shared_base`.
    SharedBase,
    /// AMD `src_shared_limit`.
    SharedLimit,
    /// AMD `src_private_base`.
    PrivateBase,
    /// AMD `src_private_limit`.
    PrivateLimit,
    /// AMD `src_pops_exiting_wave_id`.
    PopsExitingWaveId,
    /// NVIDIA RZ (reads 0).
    Rz,
    /// NVIDIA URZ.
    Urz,
    /// NVIDIA PT (true predicate).
    Pt,
    /// NVIDIA UPT.
    Upt,
    /// NVIDIA condition code register (Maxwell).
    Cc,
    /// NVIDIA special register read by S2R / CS2R (`SR_TID.X`, `SR_CLOCKLO` ...), by its
    /// reference-tool name, and its number in the encoding.
    Sr(&'static str, u16),
}

/// Which 32-bit part of a 64-bit special register an operand names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Part {
    /// The whole register (64 bits for VCC, EXEC; 32 otherwise).
    Whole,
    /// Bits 0..32 (`vcc_lo`, `exec_lo`).
    Lo,
    /// Bits 32..64 (`vcc_hi`, `exec_hi`).
    Hi,
}

/// How an inline constant or immediate is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConstType {
    /// Integer (sign-extended to the operand's width).
    Int,
    /// 16-bit float.
    F16,
    /// bfloat16.
    Bf16,
    /// 32-bit float.
    F32,
    /// 64-bit float.
    F64,
}

/// What an operand is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OperandKind {
    /// Consecutive numbered registers.
    Reg(RegRange),
    /// A named register; `part` selects a half of a 64-bit one.
    Special {
        /// Which register.
        reg: SpecialReg,
        /// Which part.
        part: Part,
    },
    /// An AMD inline constant: `code` is the encoded source value (128..=208, 240..=248),
    /// `bits` the value the operand reads, as the operand's type gives it.
    InlineConst {
        /// Encoded operand value.
        code: u16,
        /// Value read, as raw bits of `ty` at the operand's width (ints sign-extended).
        bits: u64,
        /// How the value is read.
        ty: ConstType,
    },
    /// An AMD 32-bit literal dword following the instruction (operand code 255).
    Literal(u32),
    /// An immediate field (AMD SIMM16, offsets, NVIDIA integer immediates), sign-extended where
    /// the field is signed.
    Imm(i64),
    /// An NVIDIA float immediate, as the bits of the instruction's float type (f32 bits for
    /// 32-bit forms, the high 20 bits of an f32 / f64 for Maxwell's short forms, shifted into
    /// place).
    FImm {
        /// Raw bits of the float at `ty`'s width.
        bits: u64,
        /// Float type.
        ty: ConstType,
    },
    /// An NVIDIA constant-bank operand `c[bank][reg + offset]`.
    ConstBank {
        /// Bank number (or the uniform register that holds it on sm_86, see `bank_reg`).
        bank: u16,
        /// Byte offset.
        offset: i32,
        /// Register added to the offset, if any.
        reg: Option<RegRange>,
        /// Uniform register naming the bank (sm_86 `cx[UR4]`), if any.
        bank_reg: Option<RegRange>,
    },
    /// A memory address `[base + offset]` (NVIDIA loads and stores).
    Mem {
        /// Base register (None for an absolute address).
        base: Option<RegRange>,
        /// Uniform base register (sm_86 `[R2.64+UR4]`), if any.
        ubase: Option<RegRange>,
        /// Byte offset.
        offset: i64,
    },
    /// A branch or call target, as an absolute address.
    Label(u64),
    /// An enumerated or structured field printed by name (AMD `hwreg(...)`, `sendmsg(...)`,
    /// waitcnt, export target; NVIDIA operand types that are neither registers nor numbers):
    /// the spec's operand-type name and the field value.
    Field {
        /// Operand type name from the spec (`OPR_HWREG`, `OPR_WAITCNT`, ...).
        ty: &'static str,
        /// Encoded value.
        value: u64,
    },
}

/// Per-operand source modifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SrcMods {
    /// Negate (float) or, for NVIDIA integer forms, two's-complement negate.
    pub neg: bool,
    /// Absolute value.
    pub abs: bool,
    /// AMD SDWA integer sign extension; NVIDIA bitwise invert (`~`, `!` on predicates).
    pub not: bool,
    /// NVIDIA operand reuse cache flag.
    pub reuse: bool,
}

/// One operand of an instruction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Operand {
    /// Read, written or both.
    pub access: Access,
    /// What it is.
    pub kind: OperandKind,
    /// Bits the instruction reads or writes through it (32 for `v0`, 64 for `s[0:1]`).
    pub size: u16,
    /// True when no field of the encoding names it (SCC of `s_add_u32`).
    pub implicit: bool,
    /// The spec's field name that holds it (`SRC0`, `VDST`, `RA`), empty when implicit.
    pub field: &'static str,
    /// Source modifiers.
    pub mods: SrcMods,
}

/// What an instruction does to control flow (from the spec's instruction flags, not names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Flow {
    /// Falls through to the next instruction.
    Next,
    /// Always jumps to a direct target.
    Branch,
    /// Jumps to a direct target or falls through.
    CondBranch,
    /// Calls a direct target and returns after it.
    Call,
    /// Jumps to an address held in registers or a table.
    Indirect,
    /// Calls an address held in registers.
    IndirectCall,
    /// Returns to the caller.
    Return,
    /// Ends the program (wave or thread exits).
    End,
}

/// A modifier of the whole instruction, typed where translators read it and named by the spec
/// otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Modifier {
    /// Clamp / saturate the result (AMD `clamp`, NVIDIA `.SAT`).
    Clamp,
    /// AMD output modifier: 1 = *2, 2 = *4, 3 = /2.
    Omod(u8),
    /// AMD VOP3P / VOP3 op_sel bits (bit i: operand i, bit 3: destination).
    OpSel(u8),
    /// AMD VOP3P op_sel_hi bits.
    OpSelHi(u8),
    /// AMD DPP16 control (`quad_perm`, `row_shl` ... as the DPP_CTRL field).
    DppCtrl(u16),
    /// AMD DPP row mask.
    RowMask(u8),
    /// AMD DPP bank mask.
    BankMask(u8),
    /// AMD DPP bound_ctrl.
    BoundCtrl,
    /// AMD DPP fetch-inactive.
    FetchInactive,
    /// AMD DPP8 lane selects, three bits per lane.
    Dpp8(u32),
    /// AMD SDWA destination select (0..=6: BYTE_0..3, WORD_0..1, DWORD).
    DstSel(u8),
    /// AMD SDWA destination unused bits (0 pad, 1 sext, 2 preserve).
    DstUnused(u8),
    /// AMD SDWA source select for source 0 / 1.
    SrcSel(u8, u8),
    /// NVIDIA rounding mode (0 RN, 1 RM, 2 RP, 3 RZ).
    Round(u8),
    /// Flush denormals to zero.
    Ftz,
    /// NVIDIA FMZ (0 * anything = 0).
    Fmz,
    /// Any other field the spec names, with its value (memory cache bits, NVIDIA templates'
    /// own fields, AMD memory flags): the field name and value, only when it is not zero.
    Named(&'static str, u64),
}

/// A guard predicate (NVIDIA `@P0`, `@!P1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Guard {
    /// Predicate register (PT when unguarded, never listed then).
    pub reg: RegRange,
    /// True for `@!P`.
    pub negate: bool,
}

/// A decoded instruction in the operand model.
#[derive(Debug, Clone, PartialEq)]
pub struct Inst {
    /// ISA it belongs to.
    pub isa: Isa,
    /// Address it was decoded at.
    pub addr: u64,
    /// Length in bytes (literal and NSA dwords included).
    pub len: u8,
    /// Index of the instruction in the ISA's generated table (stable for a given spec).
    pub opcode: u16,
    /// Instruction name from the spec (upper case, `V_ADD_F32`, `FFMA`).
    pub name: &'static str,
    /// Name of its encoding in the spec.
    pub encoding: &'static str,
    /// Explicit operands in the reference tool's order, then implicit operands.
    pub operands: Vec<Operand>,
    /// Instruction modifiers.
    pub modifiers: Vec<Modifier>,
    /// Control-flow kind.
    pub flow: Flow,
    /// NVIDIA guard predicate, when not PT.
    pub guard: Option<Guard>,
    /// NVIDIA scheduling control (the sm_86 per-instruction bits, or the sm_50 bundle control
    /// word's slot for this instruction): stall, yield, write barrier, read barrier, wait mask,
    /// reuse.
    pub control: Option<crate::nvidia::control::Control>,
}

impl Inst {
    /// Explicit operands (those the encoding names), in the reference tool's order.
    pub fn explicit(&self) -> impl Iterator<Item = &Operand> {
        self.operands.iter().filter(|o| !o.implicit)
    }
    /// Implicit operands.
    pub fn implicit(&self) -> impl Iterator<Item = &Operand> {
        self.operands.iter().filter(|o| o.implicit)
    }
    /// Operands the instruction writes.
    pub fn defs(&self) -> impl Iterator<Item = &Operand> {
        self.operands.iter().filter(|o| o.access.writes())
    }
    /// Operands the instruction reads.
    pub fn uses(&self) -> impl Iterator<Item = &Operand> {
        self.operands.iter().filter(|o| o.access.reads())
    }
    /// The named modifier's value, if present.
    pub fn named(&self, field: &str) -> Option<u64> {
        self.modifiers.iter().find_map(|m| match m {
            Modifier::Named(n, v) if *n == field => Some(*v),
            _ => None,
        })
    }
}

/// Why an [`Inst`] could not be built into bytes. Every variant names the ISA and the
/// instruction.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// The ISA has no instruction with this opcode index or name.
    #[error("{isa}: no instruction {name} (opcode index {opcode})")]
    UnknownOpcode {
        /// ISA.
        isa: Isa,
        /// Instruction name given.
        name: &'static str,
        /// Opcode index given.
        opcode: u16,
    },
    /// An operand does not fit the instruction's encoding.
    #[error("{isa}: {name}: operand {index} ({field}) cannot be encoded: {why}")]
    Operand {
        /// ISA.
        isa: Isa,
        /// Instruction name.
        name: &'static str,
        /// Operand index.
        index: usize,
        /// Field name.
        field: &'static str,
        /// Reason.
        why: &'static str,
    },
    /// Operand count or modifiers do not match any encoding of the instruction.
    #[error("{isa}: {name}: {why}")]
    Shape {
        /// ISA.
        isa: Isa,
        /// Instruction name.
        name: &'static str,
        /// Reason.
        why: &'static str,
    },
}
