//! gfx1201 hazards: the ALU dependency waits (`s_wait_alu`) gfx1201 needs between an ALU write
//! of a scalar register and a later read of it.
//!
//! [`insert_alu_waits`] drops every `s_wait_alu` and inserts one before each instruction that
//! reads any scalar register (an SGPR, TTMP, VCC, EXEC or M0) while a scalar register write
//! is outstanding (not yet covered by a wait):
//! - one by a VALU (a compare, a carry-out, `v_readlane`): `depctr_va_vcc(0)` and
//!   `depctr_va_sdst(0)`;
//! - one by a SALU: `depctr_sa_sdst(0)`.
//!
//! A call, a return or an indirect jump waits for every pending write, so a function (and the
//! code after a call) starts with none pending.
//!
//! The exact gfx12 hazard windows (AMD's RDNA4 guide, "manually inserted wait states", and
//! LLVM's GCNHazardRecognizer) were not at hand, so these rules are wider than the hardware
//! needs. They are not narrowed to the register written: LLVM 22 waits `depctr_sa_sdst(0)`
//! before `v_lshl_or_b32 v5, ttmp9, 8, v4` after `s_mov_b32 s0, exec_lo` (lds_reduce in the
//! corpus), a read of a register no SALU wrote. The field encodings are
//! those llvm-objdump-22 prints for LLVM 22's gfx1201 output (`s_wait_alu depctr_sa_sdst(0)`
//! is 0xff9e, `depctr_va_vcc(0)` 0xff9d, `depctr_va_sdst(0)` 0xf19f; a wait on several fields
//! is the AND of them, 0xff9c in the corpus). The corpus test measures that every
//! `s_wait_alu` LLVM placed is matched by one of ours, as strict, before the same instruction.
//! Not handled: VALU-to-VALU VGPR dependencies (`s_delay_alu` is performance only), and any
//! hazard not tied to a scalar register read (none derived).

use super::waits::{blocks, slots, WaitError};
use super::TranslatedInst;
use isabridge_decoder::operand::Flow;
use isabridge_decoder::{Inst, Isa};

/// `s_wait_alu` waiting for SALU scalar writes (`depctr_sa_sdst(0)`).
pub const SA_SDST: u16 = 0xff9e;
/// `s_wait_alu` waiting for VALU writes of VCC and of SGPRs (`depctr_va_vcc(0)
/// depctr_va_sdst(0)`).
pub const VA_VCC_SDST: u16 = 0xff9d & 0xf19f;

/// Scalar registers written since the last wait, by VALUs and by SALUs (bit = scalar code).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Pending {
    va: u128,
    sa: u128,
}

fn scalar_bits<'a>(ops: impl Iterator<Item = &'a isabridge_decoder::operand::Operand>) -> u128 {
    let mut m = 0u128;
    for o in ops {
        for s in slots(&o.kind).filter(|&s| s >= 256) {
            m |= 1u128 << (s - 256);
        }
    }
    m
}

fn is_valu(inst: &Inst) -> bool {
    inst.encoding.starts_with("ENC_VOP") || inst.encoding == "ENC_VINTERP"
}

fn is_salu(inst: &Inst) -> bool {
    matches!(inst.encoding, "ENC_SOP1" | "ENC_SOP2" | "ENC_SOPC" | "ENC_SOPK")
}

/// The `s_wait_alu` value `inst` needs (0xffff: none); `p` is advanced past it.
fn step(p: &mut Pending, inst: &Inst) -> u16 {
    if inst.name == "S_WAIT_ALU" {
        return 0xffff;
    }
    // Every VALU reads EXEC (and a VOPD `v_dual_cndmask_b32` VCC) whether or not the operand
    // model lists it.
    let mut reads = scalar_bits(inst.uses());
    if is_valu(inst) {
        reads |= 3 << 126;
    }
    // A call, a return or an indirect jump waits for every pending write: the code it reaches
    // starts with nothing pending (`calls.rs`).
    if matches!(inst.flow, Flow::Call | Flow::IndirectCall | Flow::Return | Flow::Indirect) {
        reads = !0;
    }
    let mut w = 0xffffu16;
    if reads != 0 && p.va != 0 {
        w &= VA_VCC_SDST;
        p.va = 0;
    }
    if reads != 0 && p.sa != 0 {
        w &= SA_SDST;
        p.sa = 0;
    }
    let writes = scalar_bits(inst.defs());
    if is_valu(inst) {
        p.va |= writes;
    } else if is_salu(inst) {
        p.sa |= writes;
    }
    w
}

/// The `s_wait_alu` instruction with SIMM16 `v` at `addr`.
fn wait_alu(v: u16, addr: u64) -> Option<Inst> {
    let p = Isa::Gfx1201.plugin();
    let word: u32 = 0xbf88_0000 | v as u32;
    let d = p.decode(&word.to_le_bytes(), addr).ok()?;
    Some(p.operands(&d, addr))
}

/// `insts` with every `s_wait_alu` dropped and the waits of the module's rules inserted,
/// computed over the CFG (a join keeps every register written on some path; blocks reached
/// only indirectly start with every scalar register pending).
pub fn insert_alu_waits(insts: &[TranslatedInst]) -> Result<Vec<TranslatedInst>, WaitError> {
    let g = blocks(insts)?;
    let nb = g.ranges.len();
    let mut ins: Vec<Option<Pending>> = vec![None; nb];
    let mut work = Vec::new();
    if nb > 0 {
        ins[0] = Some(Pending::default());
        work.push(0);
    }
    loop {
        while let Some(b) = work.pop() {
            let Some(mut p) = ins[b] else { continue };
            let (s, e) = g.ranges[b];
            for t in &insts[s..e] {
                step(&mut p, &t.inst);
            }
            for &t in &g.succs[b] {
                let new = match ins[t] {
                    None => p,
                    Some(o) => Pending { va: o.va | p.va, sa: o.sa | p.sa },
                };
                if ins[t] != Some(new) {
                    ins[t] = Some(new);
                    work.push(t);
                }
            }
        }
        match ins.iter().position(Option::is_none) {
            Some(b) => {
                ins[b] = Some(Pending { va: !0, sa: !0 });
                work.push(b);
            }
            None => break,
        }
    }
    let mut out = Vec::with_capacity(insts.len() + insts.len() / 4);
    for (b, &(s, e)) in g.ranges.iter().enumerate() {
        let mut p = ins[b].unwrap_or_default();
        for t in &insts[s..e] {
            if t.inst.name == "S_WAIT_ALU" {
                continue;
            }
            let w = step(&mut p, &t.inst);
            if w != 0xffff {
                if let Some(inst) = wait_alu(w, t.inst.addr) {
                    out.push(TranslatedInst { inst, src_addr: t.src_addr });
                }
            }
            out.push(t.clone());
        }
    }
    Ok(out)
}
