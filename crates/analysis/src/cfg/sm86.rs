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

use super::{CallTarget, CfgError, Code, Family, Flow, Walk};
use crate::nv::NvInfo;
use isabridge_decoder::spec::FLAG_BRANCH;
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

/// Per form: a control-flow instruction (a branch-flagged one, or `EXIT`, `RET`, `BSSY`, `CALL`, `BRX`), the
/// only ones [`Sm86`]'s flow classifies further (computed once from the form tables).
fn cf_forms() -> &'static [bool] {
    static CF: std::sync::OnceLock<Vec<bool>> = std::sync::OnceLock::new();
    CF.get_or_init(|| {
        let t = crate::nv::plugin(Isa::Sm86).t;
        t.forms
            .iter()
            .map(|f| {
                t.insts.get(f.inst as usize).is_some_and(|i| i.flags & FLAG_BRANCH != 0 || ["EXIT", "RET", "BSSY", "CALL", "BRX"].contains(&i.name))
            })
            .collect()
    })
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

    fn flow(code: &Code<'_>, addr: u64, d: &Decoded) -> Flow {
        if !cf_forms().get(d.enc as usize).copied().unwrap_or(false) {
            return Flow::Next;
        }
        let Some(inf) = NvInfo::new(Isa::Sm86, d) else { return Flow::Next };
        let name = inf.name();
        if inf.never() {
            return Flow::Next;
        }
        let cond = inf.predicated();
        let unresolved = |why: &str| {
            Flow::Invalid(Box::new(CfgError::Unresolved { isa: Isa::Sm86, inst: name, addr, why: why.into() }))
        };
        // REL forms have the PC-relative offset; ABS forms an absolute address.
        let abs = inf.form.pieces().any(|p| matches!(p, isabridge_decoder::spec::NvPiece::Lit(s) if s.contains(".ABS")));
        match name {
            "BRA" if !abs => {
                let t = rel_target(&inf, addr);
                if cond || warp_state_test(&inf) {
                    Flow::Cond(t)
                } else {
                    Flow::Jump(t)
                }
            }
            "BSSY" => Flow::Reconverge(rel_target(&inf, addr)),
            "BSYNC" | "WARPSYNC" | "BREAK" | "BMOV" | "YIELD" | "NANOSLEEP" | "BPT" | "KILL" => Flow::Next,
            "CALL" if abs => Flow::Call(CallTarget::Indirect("CALL.ABS: absolute address".into())),
            "CALL" => Flow::Call(CallTarget::Direct(rel_target(&inf, addr))),
            "RET" => Flow::Return { cond },
            "EXIT" => Flow::Exit { cond },
            "BRX" if cond => unresolved("predicated BRX"),
            "BRX" => {
                let base = (addr as i64).wrapping_add(16).wrapping_add(offset(&inf));
                match ldc_for(code, addr, &inf) {
                    Ok(ldc) => match table_from_ldc(code, &ldc, base, |x| (x - code.start).is_multiple_of(16)) {
                        Ok(ts) => Flow::Table(ts),
                        Err(why) => unresolved(&why),
                    },
                    Err(why) => unresolved(&why),
                }
            }
            "JMP" | "JMX" => unresolved("absolute jump: the load address is not known statically"),
            _ => unresolved("branch kind not handled"),
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
