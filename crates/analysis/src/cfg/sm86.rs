//! NVIDIA Ampere (sm_86) control flow.
//!
//! Facts used (checked against nvdisasm 12.8 on the corpus; the decoder's printer uses the same
//! formulas and matches its listings):
//! - Instructions are 16 bytes. `BRA`, `BSSY`, `CALL.REL`: target = address + 16 + 4 *
//!   sign-extended bits [34, 81) (the spec's `IMM` field; bits 32-33 belong to the `.DIV` /
//!   `.CONV` modifier: `BRA.DIV ~URZ` at 0x2f0 in `warp.sm86` has 0x642 in bits [32, 64) and
//!   targets 0x940). (`BSSY B0` at 0x60 in `jumptable.sm86` targets 0x140.)
//! - `BRA.DIV` / `BRA.CONV` are taken only when the warp is diverged / converged: conditional.
//! - `BRX Ra imm`: target = address + 16 + imm (the same offset field) + Ra; Ra comes from
//!   constant bank 2 (`LDC R4, c[0x2][R0]`), whose entries are offsets from the kernel start
//!   (`jumptable.sm86`: 0xc0, 0xe0, 0x100, 0x120 for `BRX R4 -0xc0` at 0xb0).
//! - `BSSY Bn, target` names the reconvergence point that `BSYNC Bn` waits for; neither moves
//!   control (`BSYNC` falls through), so BSSY only starts a block at its target.
//! - `WARPSYNC` and `BSYNC` continue with the next instruction.
//! - `CALL.ABS` takes an absolute address; `RET` returns; `EXIT` ends the thread. A guard other
//!   than `PT` makes a branch or exit conditional.
//!
//! The jump-table rule shared with Maxwell: the table starts at the `LDC`'s bank-2 offset and
//! runs to the next bank-2 offset that any instruction of the function reads, or to the end of
//! the bank; every entry must land on an instruction of the function, or the `BRX` is a typed
//! error.

use super::{CallTarget, Cfg, CfgError, Code, Family, Flow, Kind, Machine, Vendor, Walk};
use crate::load::{Function, Section};
use crate::nv::NvInfo;
use isabridge_decoder::spec::{NvKind, NvPiece, FLAG_BRANCH, FLAG_INDIRECT_BRANCH, FLAG_TERMINATOR};
use isabridge_decoder::{Decoded, Isa, IsaPlugin};

/// The Ampere family.
pub(crate) struct Sm86;

/// The signed word offset in bits [34, 81) (the spec's `IMM` of BRA, BSSY, CALL.REL, BRX),
/// in bytes. Bits 32-33 hold a modifier (`.DIV`, `.CONV`, ...), not offset bits.
fn offset(inf: &NvInfo) -> i64 {
    super::sext(inf.bits(34, 47), 47).wrapping_mul(4)
}

fn rel_target(inf: &NvInfo, addr: u64) -> u64 {
    (addr as i64).wrapping_add(16).wrapping_add(offset(inf)) as u64
}

/// True for `BRA.DIV` / `BRA.CONV`: taken only when the warp is (not) diverged.
fn warp_state_test(inf: &NvInfo) -> bool {
    inf.form.fields.iter().any(|f| {
        f.kind == isabridge_decoder::spec::NvKind::Lookup
            && f.name().starts_with("MOD_")
            && inf
                .t
                .operand_types
                .get(f.ty as usize)
                .and_then(|t| t.lookup(f.get(inf.w) as i64))
                .is_some_and(|n| n.contains("DIV") || n.contains("CONV"))
    })
}

/// What the Ampere family knows about a form beyond its [`Kind`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Nothing: the kind (with the guard) says it all.
    Plain,
    /// `BRA` (PC-relative): also conditional when it tests the warp state (`.DIV`, `.CONV`).
    Bra,
    /// `BSSY`: continues; its target is a reconvergence point and starts a block.
    Reconverge,
    /// `BSYNC`, `WARPSYNC`, `BREAK`, `BMOV`, `YIELD`, `NANOSLEEP`, `BPT`, `KILL`: the walk goes
    /// on with the next instruction (`KILL` ends only the lanes it kills when guarded; the
    /// census has always counted the code after it).
    Continue,
    /// `CALL.ABS`: an absolute address.
    CallAbsolute,
    /// `CALL.REL`: PC-relative, plus a register when it names one other than `RZ`
    /// (`CALL.REL.NOINC R8 (calls)` at 0x1c0 of `control.sm86`: an indirect call).
    CallRelative,
    /// `BRX`: a jump table.
    Brx,
    /// `JMP`, `JMX`, `BRA.ABS`: an absolute address, not known before the code is loaded.
    Absolute,
}

/// Per form: the analysis's [`Kind`] before the guard is read, and the family's [`Role`]
/// (computed once from the form tables).
fn forms() -> &'static [(Kind, Role)] {
    static F: std::sync::OnceLock<Vec<(Kind, Role)>> = std::sync::OnceLock::new();
    F.get_or_init(|| {
        let t = crate::nv::plugin(Isa::Sm86).t;
        t.forms
            .iter()
            .map(|f| {
                let Some(i) = t.insts.get(f.inst as usize) else { return (Kind::Next, Role::Plain) };
                // REL forms have the PC-relative offset; ABS forms an absolute address.
                let abs = f.pieces().any(|p| matches!(p, NvPiece::Lit(s) if s.contains(".ABS")));
                match i.name {
                    "BRA" if abs => (Kind::Branch, Role::Absolute),
                    "BRA" => (Kind::Branch, Role::Bra),
                    "BSSY" => (Kind::Next, Role::Reconverge),
                    "BSYNC" | "WARPSYNC" | "BREAK" | "BMOV" | "YIELD" | "NANOSLEEP" | "BPT" => (Kind::Next, Role::Continue),
                    "KILL" => (Kind::End, Role::Continue),
                    "CALL" if abs => (Kind::IndirectCall, Role::CallAbsolute),
                    "CALL" => (Kind::Call, Role::CallRelative),
                    "RET" => (Kind::Return, Role::Plain),
                    "BRX" => (Kind::Indirect, Role::Brx),
                    "JMX" => (Kind::Indirect, Role::Absolute),
                    "JMP" => (Kind::Branch, Role::Absolute),
                    _ if i.flags & FLAG_TERMINATOR != 0 => (Kind::End, Role::Plain),
                    _ if i.flags & FLAG_INDIRECT_BRANCH != 0 => (Kind::Indirect, Role::Plain),
                    _ if i.flags & FLAG_BRANCH != 0 => (Kind::Branch, Role::Plain),
                    _ => (Kind::Next, Role::Plain),
                }
            })
            .collect()
    })
}

#[inline(always)]
fn form_of(d: &Decoded) -> (Kind, Role) {
    forms().get(d.enc as usize).copied().unwrap_or((Kind::Next, Role::Plain))
}

/// True when a register other than `RZ` adds to the instruction's target.
fn by_register(inf: &NvInfo) -> bool {
    inf.form.fields.iter().any(|f| f.kind == NvKind::Reg && f.get(inf.w) != 255)
}

/// The Ampere [`Machine`].
#[derive(Debug)]
pub struct Ampere;

/// sm_86's [`Machine`].
pub static AMPERE: Ampere = Ampere;

impl Machine for Ampere {
    fn isa(&self) -> Isa {
        Isa::Sm86
    }
    fn vendor(&self) -> Vendor {
        Vendor::Nvidia
    }
    fn first(&self, start: u64) -> u64 {
        start
    }
    fn decode_at(&self, code: &Code<'_>, addr: u64) -> Result<Decoded, CfgError> {
        <Sm86 as Family>::decode(code, addr)
    }
    fn next(&self, addr: u64, _d: &Decoded) -> u64 {
        addr + 16
    }
    fn skip(&self, addr: u64) -> u64 {
        addr + 16
    }
    fn fixed_lanes(&self) -> Option<u32> {
        Some(32)
    }
    fn classify(&self, d: &Decoded) -> Kind {
        <Sm86 as Family>::table_kind(Isa::Sm86, d)
    }
    fn recover_with(&self, section: &Section, f: &Function, plugin_kinds: bool, sc: &mut super::CfgScratch) -> Result<Cfg, CfgError> {
        super::walk::<Sm86>(&Code::new(Isa::Sm86, section, f), plugin_kinds, sc)
    }
}

impl Family for Sm86 {
    const UNIT: u64 = 16;

    fn decode(code: &Code<'_>, addr: u64) -> Result<Decoded, CfgError> {
        Ok(crate::nv::plugin(Isa::Sm86).decode(code.bytes_at(addr), addr)?)
    }

    fn next(addr: u64, _d: &Decoded) -> u64 {
        addr + 16
    }

    fn name(isa: Isa, d: &Decoded) -> &'static str {
        NvInfo::new(isa, d).map(|i| i.name()).unwrap_or("?")
    }

    fn table_kind(isa: Isa, d: &Decoded) -> Kind {
        let (kind, role) = form_of(d);
        if kind == Kind::Next {
            return kind;
        }
        let Some(inf) = NvInfo::new(isa, d) else { return Kind::Next };
        if inf.never() {
            Kind::Next
        } else if kind == Kind::Branch && (inf.predicated() || role == Role::Bra && warp_state_test(&inf)) {
            Kind::CondBranch
        } else if role == Role::CallRelative && by_register(&inf) {
            Kind::IndirectCall
        } else {
            kind
        }
    }

    #[inline(always)]
    fn special(_isa: Isa, d: &Decoded) -> bool {
        form_of(d).1 != Role::Plain
    }

    fn own_target(isa: Isa, d: &Decoded, addr: u64) -> Option<u64> {
        NvInfo::new(isa, d).map(|inf| rel_target(&inf, addr))
    }

    fn flow(code: &Code<'_>, addr: u64, d: &Decoded, kind: Kind) -> Flow {
        let Some(inf) = NvInfo::new(Isa::Sm86, d) else { return Flow::Next };
        if inf.never() {
            return Flow::Next;
        }
        let name = inf.name();
        let cond = inf.predicated();
        let unresolved = |why: &str| {
            Flow::Invalid(Box::new(CfgError::Unresolved { isa: Isa::Sm86, inst: name, addr, why: why.into() }))
        };
        let target = || super::target_of::<Sm86>(Isa::Sm86, d, addr);
        match form_of(d).1 {
            Role::Bra => super::plain_flow(Isa::Sm86, name, addr, kind, cond || warp_state_test(&inf), target()),
            Role::Reconverge => Flow::Reconverge(rel_target(&inf, addr)),
            Role::Continue => Flow::Next,
            Role::CallAbsolute => Flow::Call(CallTarget::Indirect("CALL.ABS: absolute address".into())),
            Role::CallRelative if by_register(&inf) => Flow::Call(CallTarget::Indirect("CALL.REL: register plus offset".into())),
            Role::CallRelative => super::plain_flow(Isa::Sm86, name, addr, kind, cond, target()),
            Role::Brx if cond => unresolved("predicated BRX"),
            Role::Brx => {
                let base = (addr as i64).wrapping_add(16).wrapping_add(offset(&inf));
                match ldc_for(code, addr, &inf) {
                    Ok(ldc) => match table_from_ldc(code, &ldc, base, |x| (x - code.start).is_multiple_of(16)) {
                        Ok(ts) => Flow::Table(ts),
                        Err(why) => unresolved(&why),
                    },
                    Err(why) => unresolved(&why),
                }
            }
            Role::Absolute if name == "BRA" => unresolved("branch kind not handled"),
            Role::Absolute => unresolved("absolute jump: the load address is not known statically"),
            Role::Plain => super::plain_flow(Isa::Sm86, name, addr, kind, cond, target()),
        }
    }

    fn resolve(code: &Code<'_>, _walk: &Walk, addr: u64) -> Flow {
        Flow::Invalid(Box::new(CfgError::Unresolved { isa: code.isa, inst: "?", addr, why: "nothing deferred on sm86".into() }))
    }

    fn resolve_call(_code: &Code<'_>, _walk: &Walk, _addr: u64) -> CallTarget {
        CallTarget::Indirect("unknown".into())
    }
}

fn ldc_for(code: &Code<'_>, addr: u64, brx: &NvInfo) -> Result<NvInfo, String> {
    let ra = brx.get("RA").or_else(|| brx.get("RD")).ok_or("BRX without a register")?;
    let mut a = addr;
    for _ in 0..32 {
        if a < code.start + 16 {
            break;
        }
        a -= 16;
        let d = Sm86::decode(code, a).map_err(|e| e.to_string())?;
        let Some(inf) = NvInfo::new(Isa::Sm86, &d) else { break };
        if inf.flags() & FLAG_BRANCH != 0 && inf.name() != "BSSY" {
            break;
        }
        if inf.get("RD") == Some(ra) {
            return Ok(inf);
        }
    }
    Err(format!("no instruction writes R{ra} in the straight-line code before the BRX"))
}

/// Reads the jump table that the `LDC` in `ldc` indexes; targets are `base + entry`.
pub(crate) fn table_from_ldc(
    code: &Code<'_>,
    ldc: &NvInfo,
    base: i64,
    boundary: impl Fn(u64) -> bool,
) -> Result<Vec<u64>, String> {
    if ldc.name() != "LDC" {
        return Err(format!("the BRX register comes from {}, not LDC", ldc.name()));
    }
    let cb = ldc.cbuf().ok_or("LDC without a constant operand")?;
    if cb.bank != Some(2) {
        return Err(format!("the table is in bank {:?}, not bank 2", cb.bank));
    }
    let bank = code.section.const2.as_deref().ok_or("the kernel has no constant bank 2 section")?;
    let start = usize::try_from(cb.offset).map_err(|_| "negative table offset")?;
    // The table ends where the next bank-2 datum that the function reads begins.
    let mut end = bank.len();
    let unit = if code.isa == Isa::Sm50 { 8 } else { 16 };
    let mut a = code.start;
    while a < code.end {
        if !(code.isa == Isa::Sm50 && a.is_multiple_of(32)) {
            let d = match code.isa {
                Isa::Sm50 => super::sm50::Sm50::decode(code, a),
                _ => Sm86::decode(code, a),
            };
            if let Some(inf) = d.ok().and_then(|d| NvInfo::new(code.isa, &d)) {
                if let Some(c) = inf.cbuf() {
                    if c.bank == Some(2) && c.offset > cb.offset {
                        end = end.min(c.offset as usize);
                    }
                }
            }
        }
        a += unit;
    }
    if start >= end {
        return Err(format!("table offset {start:#x} is past the end of bank 2"));
    }
    let mut out = Vec::new();
    for e in bank[start..end].chunks_exact(4) {
        let v = u32::from_le_bytes([e[0], e[1], e[2], e[3]]);
        let t = base.wrapping_add(v as i64) as u64;
        if t < code.start || t >= code.end || !boundary(t) {
            return Err(format!("table entry {v:#x} -> {t:#x} is not an instruction of the function"));
        }
        out.push(t);
    }
    if out.is_empty() {
        return Err("empty jump table".into());
    }
    Ok(out)
}
