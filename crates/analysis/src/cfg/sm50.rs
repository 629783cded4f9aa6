//! NVIDIA Maxwell (sm_50) control flow.
//!
//! Facts used (checked against nvdisasm 12.8 on the corpus, whose listings print every target
//! as an absolute address; the decoder's printer uses the same formulas and matches):
//! - Code is 32-byte bundles: a control word at offset 0 and instructions at 8, 16, 24.
//!   The instruction after offset 24 of a bundle is at offset 8 of the next one.
//! - `BRA`, `SSY`, `PBK`, `PCNT`, `CAL`, `PRET`: target = address + 8 + sign-extended
//!   bits [20, 44). (`SSY` at 0x28 with bits 0xc0 targets 0xf0 in `control.sm50`.)
//! - `BRX Ra imm`: target = address + 8 + imm (bits [20, 44), signed) + Ra. The compiler loads Ra
//!   from constant bank 2 (`LDC Ra, c[0x2][...]`), where each entry is an offset from the start
//!   of the kernel (`jumptable.sm50`: entries 0x80, 0x98, 0xc0, 0xd8 for
//!   `BRX R0 -0x80` at 0x78, printed as `BRANCH_TARGETS .L_x_3, ...` at those offsets).
//! - A target at a bundle start (its control word) executes the bundle's first instruction:
//!   `SSY` at 0x410 in `fp64.sm50` targets 0x4a0, where nvdisasm puts the label `.L_x_2` right
//!   before the instruction at 0x4a8.
//! - A condition code test in bits [0, 5) other than 0xf (`CC.T`, always) or a guard predicate
//!   other than `PT` makes a branch, exit or pop conditional.
//! - SSY / PBK / PCNT push a reconvergence target; SYNC / BRK / CONT jump to the innermost target
//!   of their kind, dropping the entries above it.

use super::{CallTarget, Cfg, CfgError, Code, Family, Flow, Kind, Machine, StackKind, Vendor, Walk};
use crate::load::{Function, Section};
use crate::nv::NvInfo;
use isabridge_decoder::sm50::SM50;
use isabridge_decoder::spec::{FLAG_BRANCH, FLAG_INDIRECT_BRANCH, FLAG_TERMINATOR};
use isabridge_decoder::{Decoded, DecodeError, Isa};

/// The Maxwell family.
pub(crate) struct Sm50;

fn le64(b: &[u8]) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(..8)?.try_into().ok()?))
}

impl Sm50 {
    /// The address of the instruction after the one at `addr` (skipping the next bundle's
    /// control word).
    pub fn next_addr(addr: u64) -> u64 {
        if addr % 32 == 24 {
            addr + 16
        } else {
            addr + 8
        }
    }
}

fn rel_target(inf: &NvInfo, addr: u64) -> u64 {
    bundle_target((addr as i64).wrapping_add(8).wrapping_add(super::sext(inf.bits(20, 24), 24)) as u64)
}

/// A target on a bundle's control word means the bundle's first instruction.
fn bundle_target(t: u64) -> u64 {
    if t.is_multiple_of(32) {
        t + 8
    } else {
        t
    }
}

/// What the Maxwell family knows about a form beyond its [`Kind`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Nothing: the kind (with the guard and condition code) says it all.
    Plain,
    /// `SSY`, `PBK`, `PCNT`, `PRET`: pushes its target on the reconvergence stack.
    Push(StackKind),
    /// `SYNC`, `BRK`, `CONT`: jumps to the innermost target of its kind.
    Pop(StackKind),
    /// `BRX`: a jump table, or an indirect call after `PRET`.
    Brx,
    /// `JMP`, `JMX`: an absolute address, not known before the code is loaded.
    Absolute,
    /// A branch-flagged form the walk does not follow (`PEXIT`).
    Unhandled,
}

/// Per form: the analysis's [`Kind`] before the guard is read, and the family's [`Role`]
/// (computed once from the form tables).
fn forms() -> &'static [(Kind, Role)] {
    static F: std::sync::OnceLock<Vec<(Kind, Role)>> = std::sync::OnceLock::new();
    F.get_or_init(|| {
        let t = crate::nv::plugin(Isa::Sm50).t;
        t.forms
            .iter()
            .map(|f| {
                let Some(i) = t.insts.get(f.inst as usize) else { return (Kind::Next, Role::Plain) };
                match i.name {
                    "SSY" => (Kind::Next, Role::Push(StackKind::Sync)),
                    "PBK" => (Kind::Next, Role::Push(StackKind::Break)),
                    "PCNT" => (Kind::Next, Role::Push(StackKind::Cont)),
                    "PRET" => (Kind::Next, Role::Push(StackKind::Ret)),
                    "SYNC" => (Kind::Indirect, Role::Pop(StackKind::Sync)),
                    "BRK" => (Kind::Indirect, Role::Pop(StackKind::Break)),
                    "CONT" => (Kind::Indirect, Role::Pop(StackKind::Cont)),
                    "BRX" => (Kind::Indirect, Role::Brx),
                    "JMX" => (Kind::Indirect, Role::Absolute),
                    "JMP" => (Kind::Branch, Role::Absolute),
                    "PEXIT" => (Kind::Next, Role::Unhandled),
                    "CAL" => (Kind::Call, Role::Plain),
                    "JCAL" => (Kind::IndirectCall, Role::Plain),
                    "RET" => (Kind::Return, Role::Plain),
                    _ if i.flags & FLAG_TERMINATOR != 0 || i.name == "KIL" => (Kind::End, Role::Plain),
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

/// True when the instruction may be skipped: a guard other than `PT`, or a condition code test
/// in bits [0, 5) other than `CC.T` on a form that has one.
fn conditional(inf: &NvInfo) -> bool {
    let cc_test = inf.form.mask & 0x1f == 0x1f && inf.w & 0x1f != 0xf;
    inf.predicated() || cc_test
}

/// The Maxwell [`Machine`].
#[derive(Debug)]
pub struct Maxwell;

/// sm_50's [`Machine`].
pub static MAXWELL: Maxwell = Maxwell;

impl Machine for Maxwell {
    fn isa(&self) -> Isa {
        Isa::Sm50
    }
    fn vendor(&self) -> Vendor {
        Vendor::Nvidia
    }
    fn first(&self, start: u64) -> u64 {
        if start.is_multiple_of(32) {
            start + 8
        } else {
            start
        }
    }
    fn decode_at(&self, code: &Code<'_>, addr: u64) -> Result<Decoded, CfgError> {
        <Sm50 as Family>::decode(code, addr)
    }
    fn next(&self, addr: u64, _d: &Decoded) -> u64 {
        Sm50::next_addr(addr)
    }
    fn skip(&self, addr: u64) -> u64 {
        Sm50::next_addr(addr)
    }
    fn code_bytes(&self, _d: &Decoded) -> u64 {
        8
    }
    fn fixed_lanes(&self) -> Option<u32> {
        Some(32)
    }
    fn classify(&self, d: &Decoded) -> Kind {
        <Sm50 as Family>::table_kind(Isa::Sm50, d)
    }
    fn recover_with(&self, section: &Section, f: &Function, plugin_kinds: bool, sc: &mut super::CfgScratch) -> Result<Cfg, CfgError> {
        super::walk::<Sm50>(&Code::new(Isa::Sm50, section, f), plugin_kinds, sc)
    }
}

impl Family for Sm50 {
    const UNIT: u64 = 8;

    fn decode(code: &Code<'_>, addr: u64) -> Result<Decoded, CfgError> {
        let isa = Isa::Sm50;
        if addr.is_multiple_of(32) || !addr.is_multiple_of(8) {
            return Err(DecodeError::Misaligned { isa, addr, unit: 8 }.into());
        }
        let sec = code.section;
        let off = (addr - sec.address) as usize;
        let bundle = off - off % 32;
        let (Some(ctrl), Some(inst)) = (sec.data.get(bundle..).and_then(le64), sec.data.get(off..).and_then(le64)) else {
            return Err(DecodeError::Truncated { isa, addr, need: 8, have: sec.data.len().saturating_sub(off) }.into());
        };
        Ok(SM50.decode_slot(inst, ctrl, off % 32 / 8 - 1, addr)?)
    }

    fn next(addr: u64, _d: &Decoded) -> u64 {
        Sm50::next_addr(addr)
    }

    fn name(isa: Isa, d: &Decoded) -> &'static str {
        NvInfo::new(isa, d).map(|i| i.name()).unwrap_or("?")
    }

    fn table_kind(isa: Isa, d: &Decoded) -> Kind {
        let (kind, _) = form_of(d);
        if kind == Kind::Next {
            return kind;
        }
        let Some(inf) = NvInfo::new(isa, d) else { return Kind::Next };
        if inf.never() {
            Kind::Next
        } else if kind == Kind::Branch && conditional(&inf) {
            Kind::CondBranch
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
        let Some(inf) = NvInfo::new(Isa::Sm50, d) else { return Flow::Next };
        if inf.never() {
            return Flow::Next;
        }
        let name = inf.name();
        let cond = conditional(&inf);
        let unresolved = |why: &str| {
            Flow::Invalid(Box::new(CfgError::Unresolved { isa: Isa::Sm50, inst: name, addr, why: why.into() }))
        };
        match form_of(d).1 {
            Role::Push(k) => Flow::Push(k, rel_target(&inf, addr)),
            Role::Pop(k) => Flow::Pop { kind: k, cond },
            Role::Brx if cond => unresolved("predicated BRX"),
            Role::Brx if after_pret(code, addr) => {
                Flow::CallPret(CallTarget::Indirect("function pointer read from constant bank 2".into()))
            }
            Role::Brx => match jump_table(code, addr, &inf) {
                Ok(ts) => Flow::Table(ts),
                Err(why) => unresolved(&why),
            },
            Role::Absolute => unresolved("absolute jump: the load address is not known statically"),
            Role::Unhandled => unresolved("branch kind not handled"),
            Role::Plain => {
                // A target on a control word means the bundle's first instruction, whoever computed it.
                let target = super::target_of::<Sm50>(Isa::Sm50, d, addr).map(bundle_target);
                super::plain_flow(Isa::Sm50, name, addr, kind, cond, target)
            }
        }
    }

    fn resolve(code: &Code<'_>, _walk: &Walk, addr: u64) -> Flow {
        Flow::Invalid(Box::new(CfgError::Unresolved { isa: code.isa, inst: "?", addr, why: "nothing deferred on sm50".into() }))
    }

    fn resolve_call(_code: &Code<'_>, _walk: &Walk, _addr: u64) -> CallTarget {
        CallTarget::Indirect("unknown".into())
    }
}

/// True when a `PRET` comes before the `BRX` at `addr` in straight-line code: the pair is an
/// indirect call (nvdisasm marks it `INDIRECT_CALL`).
fn after_pret(code: &Code<'_>, addr: u64) -> bool {
    let mut a = addr;
    for _ in 0..8 {
        if a < code.start + 16 {
            return false;
        }
        a = if a % 32 == 8 { a - 16 } else { a - 8 };
        let Some(inf) = <Sm50 as Family>::decode(code, a).ok().and_then(|d| NvInfo::new(Isa::Sm50, &d)) else { return false };
        if inf.name() == "PRET" {
            return true;
        }
        if inf.flags() & FLAG_BRANCH != 0 {
            return false;
        }
    }
    false
}

/// Targets of the `BRX` at `addr`: see [`super::sm86`] for the shared rule.
fn jump_table(code: &Code<'_>, addr: u64, brx: &NvInfo) -> Result<Vec<u64>, String> {
    let ra = brx.get("RA").or_else(|| brx.get("RD")).ok_or("BRX without a register")? as u32;
    let imm = super::sext(brx.bits(20, 24), 24);
    let base = (addr as i64).wrapping_add(8).wrapping_add(imm);
    // Walk back in straight-line code to the instruction that writes Ra.
    let mut a = addr;
    for _ in 0..32 {
        if a < code.start + 16 {
            break;
        }
        a = if a % 32 == 8 { a - 16 } else { a - 8 };
        let d = <Sm50 as Family>::decode(code, a).map_err(|e| e.to_string())?;
        let Some(inf) = NvInfo::new(Isa::Sm50, &d) else { break };
        if inf.flags() & FLAG_BRANCH != 0 {
            break;
        }
        if inf.get("RD") == Some(ra as u64) {
            return super::sm86::table_from_ldc(code, &inf, base, |x| x % 8 == 0)
                .map(|ts| ts.into_iter().map(bundle_target).collect());
        }
    }
    Err(format!("no LDC writes R{ra} in the straight-line code before the BRX"))
}
