//! Generic addresses and the shared window on sm_50: the predicate `Plg` that `LEA` /
//! `LEA.HI` can write instead of the condition code, and the `LD` / `ST` that take it.
//!
//! Facts (NVIDIA's SASS reference for SPA 5.0, as published in a Switch SDK copy:
//! <https://nintyconservation9619.github.io/Switch%20SDK/Docs-JAP/Documents/Package/contents/SASS/opcodes/opLEA.htm>,
//! `opLD.htm` and `opST.htm` beside it):
//! - LEA's forms with a predicate destination (`LEA.HI.X Plg, Rd, Ra, Sb, Rc[, n]`) test the
//!   effective address they compute against the warp's shared memory window.
//! - `LD` / `ST` `[addr], Plg` take a generic address; Plg says which lanes' addresses are
//!   local or global ones (an absent Plg is PT), so the lanes with Plg false access shared
//!   memory.
//!
//! So LEA's Plg is true when the address lies outside the shared window, which is how ptxas
//! 12.9 uses it: for a generic `atom.add.u32` it writes `LEA RZ.CC, lo, RZ` /
//! `LEA.HI.X P0, RZ, lo, RZ, hi` / `@!P0 BRA` to an `ATOMS` at `lo & 0xffffff`
//! (fixtures/nvidia atomics.sm50, function atomics_global at 0x548).
//!
//! The window, as ptxas 12.9 tests and converts generic addresses for sm_50 (checked on its
//! output for PTX `isspacep.shared`, `cvta.to.shared` and `cvta.shared`): the 16 MiB from the
//! 16 MiB-aligned base the driver puts at `c[0x0][0x0]`, below 4 GiB. An address is in it when
//! its high word is 0 and its low word's top 8 bits are the base's; its shared offset is its
//! low 24 bits. The base, [`SHARED_WINDOW`], is this lifter's choice for the launches it
//! models (the driver's own value is not derived); `isabridge run` puts it at `c[0x0][0x0]`.
//!
//! The model here:
//! - `LEA.HI[.X] Plg, d, a, b, c, n`: d as the form without Plg computes it; the effective
//!   address is d : (a << n). LEA.HI does not see the base's low word, which the LEA before it
//!   added; ptxas 12.9 writes this form only with a zero base (`LEA lo.CC, a, RZ` /
//!   `LEA.HI.X P, hi, a, RZ, c`: the generic pointer c:a itself), for which the address is
//!   exact. The 32-bit form (`LEA Plg, ...`) is a typed error: no kernel here shows it.
//! - `LD` / `ST` with a Plg other than PT: lanes with Plg true access the 64-bit address as
//!   global memory (a generic address is taken as global, as `LD` / `ST` without Plg are:
//!   sm_86 `mem.rs`), lanes with Plg false the shared memory at the address's low 24 bits. A
//!   load merges the two results per lane.

use crate::lift::sm86::mem::{self, Size};
use crate::lift::sm86::{At, Cx};
use crate::lift::LiftError;
use crate::operand::{Operand, OperandKind};
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::int::{ICmp, IntOp};
use isabridge_ir::ops::lane::LaneOp;
use isabridge_ir::ops::mem::{MemOp, Space};
use isabridge_ir::ops::Op;
use isabridge_ir::{Type, Value};

/// The base of the generic shared window the sm_50 launches here model (16 MiB-aligned, below
/// 4 GiB): the value `c[0x0][0x0]` holds for sm_50 code.
pub const SHARED_WINDOW: u32 = 0x0100_0000;

/// The low-word bits that give an address's offset inside the window (16 MiB).
const WINDOW_OFFSET_MASK: u32 = 0x00ff_ffff;

/// Whether the 64-bit address `lo`, `hi` lies in the shared window (b1).
pub(super) fn in_shared_window(cx: &mut Cx, lo: Value, hi: Value) -> Value {
    let zero = cx.k32(0);
    let hi_zero = cx.b().int(IntOp::Cmp(ICmp::Eq), Type::I32, &[hi, zero]);
    let m = cx.k32(!WINDOW_OFFSET_MASK);
    let top = cx.b().int(IntOp::And, Type::I32, &[lo, m]);
    let base = cx.k32(SHARED_WINDOW);
    let top_eq = cx.b().int(IntOp::Cmp(ICmp::Eq), Type::I32, &[top, base]);
    cx.b().int(IntOp::And, Type::B1, &[hi_zero, top_eq])
}

/// The predicate operand (Plg) of an `LD` / `ST`, if it has one.
pub(super) fn plg_operand(inst: &crate::operand::Inst) -> Option<usize> {
    inst.operands.iter().position(|o| !o.implicit && super::int::is_pred(o))
}

/// Whether `o` is PT.
pub(super) fn is_pt(o: &Operand) -> bool {
    matches!(o.kind, OperandKind::Special { reg: crate::operand::SpecialReg::Pt, .. }) && !o.mods.not
}

/// `LD` / `ST` (`name`) whose Plg (`plg`, not PT) splits the lanes between global and shared
/// memory; `at` has `.E` addresses widened and Plg removed.
pub(super) fn access(cx: &mut Cx, at: &At, name: &str, plg: &Operand) -> Result<(), LiftError> {
    let m = mem::mem_operand(cx, at)?;
    let addr = mem::address(cx, at, m, Space::Global)?;
    let p = cx.pred(at, plg)?;
    let on = match cx.guard {
        Some(g) => g,
        None => cx.k(Type::B1, 1),
    };
    let g = cx.b().int(IntOp::And, Type::B1, &[on, p]);
    let np = cx.not1(p);
    let s = cx.b().int(IntOp::And, Type::B1, &[on, np]);
    let global = cx.b().lane(LaneOp::Ballot, Type::Mask, &[g]);
    let shared = cx.b().lane(LaneOp::Ballot, Type::Mask, &[s]);
    let (lo, _) = cx.split64(addr);
    let mask = cx.k32(WINDOW_OFFSET_MASK);
    let offset = cx.b().int(IntOp::And, Type::I32, &[lo, mask]);
    let parts = [(Space::Global, addr, global), (Space::Shared, offset, shared)];
    if name == "LD" {
        let dsts = at.dsts();
        let [dst] = dsts[..] else { return Err(cx.unsupported(at, "operand shape")) };
        let (n, sub) = match mem::size_of(at) {
            Size::Sub(ty, signed) => (1, Some((ty, signed))),
            Size::Words(n) => (n, None),
        };
        let mut words = Vec::new();
        for k in 0..n {
            let mut got = Vec::with_capacity(parts.len());
            for (space, a, lanes) in parts {
                let a = mem::step(cx, a, 4 * k as u64);
                let ty = sub.map_or(Type::I32, |(t, _)| t);
                let x = cx.b().ins(Op::Mem(MemOp::Load(space)), &[a, lanes], Some(ty));
                got.push(match sub {
                    Some((_, signed)) => cx.b().conv(ConvOp::IToI { signed }, Type::I32, x),
                    None => x,
                });
            }
            words.push(cx.b().lanesel(Type::I32, shared, got[1], got[0]));
        }
        for (k, w) in words.into_iter().enumerate() {
            cx.def_word(at, dst, k as u16, w)?;
        }
        return Ok(());
    }
    let srcs = at.srcs();
    let data: Vec<&Operand> = srcs.iter().copied().filter(|o| !matches!(o.kind, OperandKind::Mem { .. })).collect();
    let [data] = data[..] else { return Err(cx.unsupported(at, "operand shape")) };
    match mem::size_of(at) {
        Size::Sub(ty, _) => {
            let w = cx.word(at, data, 0)?;
            let v = cx.b().conv(ConvOp::IToI { signed: false }, ty, w);
            for (space, a, lanes) in parts {
                cx.b().ins(Op::Mem(MemOp::Store(space)), &[a, v, lanes], None);
            }
        }
        Size::Words(n) => {
            for k in 0..n {
                let v = cx.word(at, data, k)?;
                for (space, a, lanes) in parts {
                    let a = mem::step(cx, a, 4 * k as u64);
                    cx.b().ins(Op::Mem(MemOp::Store(space)), &[a, v, lanes], None);
                }
            }
        }
    }
    Ok(())
}
