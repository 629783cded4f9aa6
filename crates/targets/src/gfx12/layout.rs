//! gfx1201 code layout: placing translated instructions, re-targeting branches, replacing
//! `s_getpc_b64` by the guest PC, and temporary registers.
//!
//! - [`replace_getpc`]: `s_getpc_b64 s[n:n+1]` becomes two `s_mov_b32` with the guest PC it
//!   would have read (the address of the instruction after it in the guest code, plus the
//!   guest load address), so PC-relative data still resolves in the guest copy.
//! - [`place`]: addresses from the built sizes; every branch (SOPP / SOPK label operand,
//!   a signed 16-bit count of dwords from the instruction after it) re-targeted to where its
//!   source target landed; a target out of that range is a typed error.
//! - [`Temps`]: registers for temporaries above every register the program names and above its
//!   declared counts, raising the counts.

use super::waits::{branch_target, slots};
use super::{Translated, TranslatedInst};
use isabridge_decoder::operand::{OperandKind, RegClass, RegRange};
use isabridge_decoder::{BuildError, Inst, Isa};

/// Why code could not be laid out. Names the ISA, the address and the instruction.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// A branch's target is further than a 16-bit dword offset reaches.
    #[error("{isa} {addr:#x}: {name}: branch target {target:#x} is out of the 16-bit offset's range")]
    BranchOutOfRange {
        /// ISA (gfx1201).
        isa: Isa,
        /// Address the branch was placed at.
        addr: u64,
        /// Its name.
        name: &'static str,
        /// Address its target was placed at.
        target: u64,
    },
    /// A branch names a source address after the last instruction.
    #[error("{isa} {addr:#x}: {name}: branch target {target:#x} is not an instruction of the code")]
    UnknownTarget {
        /// ISA (gfx1201).
        isa: Isa,
        /// Source address of the branch.
        addr: u64,
        /// Its name.
        name: &'static str,
        /// The source target.
        target: u64,
    },
    /// An instruction could not be built.
    #[error("{isa} {addr:#x}: {name}: {err}")]
    Build {
        /// ISA (gfx1201).
        isa: Isa,
        /// Source address.
        addr: u64,
        /// Its name.
        name: &'static str,
        /// The builder's error.
        err: BuildError,
    },
    /// No register is left for a temporary.
    #[error("{isa}: no {count} free {class:?} registers above {used}")]
    OutOfRegisters {
        /// ISA (gfx1201).
        isa: Isa,
        /// Register class asked for.
        class: RegClass,
        /// Registers asked for.
        count: u16,
        /// First free register.
        used: u16,
    },
}

/// Decodes gfx1201 words at `addr` into the operand model (for instructions made here).
fn inst_from_words(words: &[u32], addr: u64) -> Option<Inst> {
    let p = Isa::Gfx1201.plugin();
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let d = p.decode(&bytes, addr).ok()?;
    Some(p.operands(&d, addr))
}

/// `s_mov_b32 s<sdst>, <value>` with a 32-bit literal (SOP1 opcode 0, source code 255).
pub fn s_mov_b32_literal(sdst: u16, value: u32, addr: u64) -> Option<Inst> {
    inst_from_words(&[0xbe80_00ff | (sdst as u32 & 0x7f) << 16, value], addr)
}

/// Every `s_getpc_b64 s[n:n+1]` of `insts` replaced by `s_mov_b32 s<n>, lo` and
/// `s_mov_b32 s<n+1>, hi` of `guest_base + src_addr + 4`: `s_getpc_b64` returns the address of
/// the instruction after it, and it is 4 bytes long (SOP1) on gfx1013 and gfx1201.
pub fn replace_getpc(insts: &[TranslatedInst], guest_base: u64) -> Result<Vec<TranslatedInst>, LayoutError> {
    let mut out = Vec::with_capacity(insts.len());
    for t in insts {
        if t.inst.name != "S_GETPC_B64" {
            out.push(t.clone());
            continue;
        }
        let dst = t.inst.defs().find_map(|o| match o.kind {
            OperandKind::Reg(r) if r.class == RegClass::Sgpr && r.count == 2 => Some(r.first),
            _ => None,
        });
        let pc = guest_base.wrapping_add(t.src_addr).wrapping_add(4);
        let movs = dst.and_then(|d| {
            Some([s_mov_b32_literal(d, pc as u32, t.inst.addr)?, s_mov_b32_literal(d + 1, (pc >> 32) as u32, t.inst.addr)?])
        });
        let movs = movs.ok_or(LayoutError::Build {
            isa: t.inst.isa,
            addr: t.src_addr,
            name: t.inst.name,
            err: BuildError::Shape { isa: Isa::Gfx1201, name: "S_MOV_B32", why: "the destination is not an SGPR pair" },
        })?;
        out.extend(movs.into_iter().map(|inst| TranslatedInst { inst, src_addr: t.src_addr }));
    }
    Ok(out)
}

/// Places `insts` at `base`: each instruction's address follows the previous one's built
/// size, branch targets (source addresses, resolved as [`super::waits::blocks`] does) become
/// the placed addresses, and the code is built.
pub fn place(insts: &[TranslatedInst], base: u64) -> Result<Translated, LayoutError> {
    place_owned(insts.to_vec(), base)
}

/// [`place`] of a list the caller gives up (its instructions become the result's, no copy).
/// Each instruction is built once, a branch twice (for its size, then with its target).
pub fn place_owned(mut insts: Vec<TranslatedInst>, base: u64) -> Result<Translated, LayoutError> {
    let p = Isa::Gfx1201.plugin();
    let built_err = |t: &TranslatedInst, err| LayoutError::Build { isa: t.inst.isa, addr: t.src_addr, name: t.inst.name, err };
    let mut code = Vec::with_capacity(insts.len() * 8);
    // Branches: (index, where its bytes start in `code`, their length, its source target).
    let mut branches = Vec::new();
    for (k, t) in insts.iter_mut().enumerate() {
        let start = code.len();
        t.inst.addr = base + start as u64;
        let src_target = branch_target(&t.inst);
        if src_target.is_some() {
            // A branch's size does not depend on its offset: build it with a target of itself.
            let own = t.inst.addr + 4;
            set_labels(&mut t.inst, own);
        }
        code.extend(p.build(&t.inst).map_err(|e| built_err(t, e))?);
        if let Some(src_target) = src_target {
            branches.push((k, start, code.len() - start, src_target));
        }
    }
    for (k, start, len, src_target) in branches {
        // `src_addr` grows along the list (see [`super::waits::blocks`]).
        let j = Some(insts.partition_point(|x| x.src_addr < src_target)).filter(|&j| j < insts.len());
        let t = &insts[k];
        let j = j.ok_or(LayoutError::UnknownTarget { isa: t.inst.isa, addr: t.src_addr, name: t.inst.name, target: src_target })?;
        let target = insts[j].inst.addr;
        let t = &mut insts[k];
        let off = (target as i64 - t.inst.addr as i64 - 4) / 4;
        if !(i16::MIN as i64..=i16::MAX as i64).contains(&off) {
            return Err(LayoutError::BranchOutOfRange { isa: t.inst.isa, addr: t.inst.addr, name: t.inst.name, target });
        }
        set_labels(&mut t.inst, target);
        let bytes = p.build(&t.inst).map_err(|e| built_err(t, e))?;
        code.splice(start..start + len, bytes);
    }
    Ok(Translated { code, insts })
}

/// Every label operand of `inst` set to `target`.
fn set_labels(inst: &mut Inst, target: u64) {
    for o in &mut inst.operands {
        if let OperandKind::Label(x) = &mut o.kind {
            *x = target;
        }
    }
}

/// Registers for temporaries: above every register the program names and its declared
/// counts, so no temporary is a register the program uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Temps {
    /// VGPRs in use (program's, declared, and temporaries handed out).
    pub vgprs: u16,
    /// SGPRs in use, likewise.
    pub sgprs: u16,
}

/// VGPRs a gfx1201 wave may name (the 8-bit VGPR fields).
pub const MAX_VGPRS: u16 = 256;
/// SGPRs a gfx1201 wave may name (s0..s105; VCC follows).
pub const MAX_SGPRS: u16 = 106;

impl Temps {
    /// The registers `insts` name, and the declared counts, whichever is higher.
    pub fn new(insts: &[TranslatedInst], declared_vgprs: u16, declared_sgprs: u16) -> Temps {
        Temps::named(insts.iter().map(|t| &t.inst), declared_vgprs, declared_sgprs)
    }

    /// The registers instructions `insts` (of either ISA) name, and the declared counts,
    /// whichever is higher.
    pub fn named<'a>(insts: impl IntoIterator<Item = &'a Inst>, declared_vgprs: u16, declared_sgprs: u16) -> Temps {
        let mut t = Temps { vgprs: declared_vgprs, sgprs: declared_sgprs };
        for o in insts.into_iter().flat_map(|i| &i.operands) {
            if let OperandKind::Reg(r) = o.kind {
                let end = r.first + r.count;
                match r.class {
                    RegClass::Vgpr => t.vgprs = t.vgprs.max(end),
                    RegClass::Sgpr => t.sgprs = t.sgprs.max(end.min(MAX_SGPRS)),
                    _ => {}
                }
            }
            debug_assert!(slots(&o.kind).all(|s| s < super::waits::SLOTS));
        }
        t
    }

    fn take(&mut self, class: RegClass, count: u16, align: u16) -> Result<RegRange, LayoutError> {
        let (used, max) = match class {
            RegClass::Vgpr => (&mut self.vgprs, MAX_VGPRS),
            _ => (&mut self.sgprs, MAX_SGPRS),
        };
        let first = used.div_ceil(align) * align;
        if first + count > max {
            return Err(LayoutError::OutOfRegisters { isa: Isa::Gfx1201, class, count, used: *used });
        }
        *used = first + count;
        Ok(RegRange { class, first, count })
    }

    /// `count` fresh VGPRs.
    pub fn vgprs(&mut self, count: u16) -> Result<RegRange, LayoutError> {
        self.take(RegClass::Vgpr, count, 1)
    }

    /// `count` fresh SGPRs, aligned to 2 when more than one (64-bit scalar operands start at
    /// an even register).
    pub fn sgprs(&mut self, count: u16) -> Result<RegRange, LayoutError> {
        self.take(RegClass::Sgpr, count, if count > 1 { 2 } else { 1 })
    }
}
