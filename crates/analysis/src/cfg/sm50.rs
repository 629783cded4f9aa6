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

use super::{CallTarget, CfgError, Code, Family, Flow, StackKind, Walk};
use crate::nv::NvInfo;
use isabridge_decoder::sm50::SM50;
use isabridge_decoder::spec::FLAG_BRANCH;
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

/// Per form: a control-flow instruction (a branch-flagged one, or `EXIT`, `SYNC`, `BRK`, `CONT`), the
/// only ones [`Sm50`]'s flow classifies further (computed once from the form tables).
fn cf_forms() -> &'static [bool] {
    static CF: std::sync::OnceLock<Vec<bool>> = std::sync::OnceLock::new();
    CF.get_or_init(|| {
        let t = crate::nv::plugin(Isa::Sm50).t;
        t.forms
            .iter()
            .map(|f| {
                t.insts.get(f.inst as usize).is_some_and(|i| i.flags & FLAG_BRANCH != 0 || ["EXIT", "SYNC", "BRK", "CONT"].contains(&i.name))
            })
            .collect()
    })
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

    fn flow(code: &Code<'_>, addr: u64, d: &Decoded) -> Flow {
        if !cf_forms().get(d.enc as usize).copied().unwrap_or(false) {
            return Flow::Next;
        }
        let Some(inf) = NvInfo::new(Isa::Sm50, d) else { return Flow::Next };
        let name = inf.name();
        if inf.never() {
            return Flow::Next;
        }
        let cc_test = inf.form.mask & 0x1f == 0x1f && inf.w & 0x1f != 0xf;
        let cond = inf.predicated() || cc_test;
        let unresolved = |why: &str| {
            Flow::Invalid(Box::new(CfgError::Unresolved { isa: Isa::Sm50, inst: name, addr, why: why.into() }))
        };
        match name {
            "BRA" => {
                let t = rel_target(&inf, addr);
                if cond {
                    Flow::Cond(t)
                } else {
                    Flow::Jump(t)
                }
            }
            "SSY" => Flow::Push(StackKind::Sync, rel_target(&inf, addr)),
            "PBK" => Flow::Push(StackKind::Break, rel_target(&inf, addr)),
            "PCNT" => Flow::Push(StackKind::Cont, rel_target(&inf, addr)),
            "PRET" => Flow::Push(StackKind::Ret, rel_target(&inf, addr)),
            "SYNC" => Flow::Pop { kind: StackKind::Sync, cond },
            "BRK" => Flow::Pop { kind: StackKind::Break, cond },
            "CONT" => Flow::Pop { kind: StackKind::Cont, cond },
            "CAL" => Flow::Call(CallTarget::Direct(rel_target(&inf, addr))),
            "JCAL" => Flow::Call(CallTarget::Indirect("absolute address".into())),
            "RET" => Flow::Return { cond },
            "EXIT" => Flow::Exit { cond },
            "BRX" if cond => unresolved("predicated BRX"),
            "BRX" if after_pret(code, addr) => {
                Flow::CallPret(CallTarget::Indirect("function pointer read from constant bank 2".into()))
            }
            "BRX" => match jump_table(code, addr, &inf) {
                Ok(ts) => Flow::Table(ts),
                Err(why) => unresolved(&why),
            },
            "JMP" | "JMX" => unresolved("absolute jump: the load address is not known statically"),
            _ => unresolved("branch kind not handled"),
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
