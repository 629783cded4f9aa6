//! Words LLVM 22 rejects although their identifier bits name an instruction.
//!
//! Three kinds of rule, all per instruction encoding, worked out at build time
//! (`crates/decoder/build/amd_reject.rs`, the one place that decides what a rule checks) and
//! compiled in as static tables (`src/generated/gfx10_reject.rs`, `gfx12_reject.rs`). What LLVM
//! insists on is measured, not written by hand: `tools/amdspec/mutate.py --fixed-bits` tries
//! valid words of each instruction with llvm-objdump-22 and writes `reject_gfx10.tsv` /
//! `reject_gfx12.tsv` next to this file.
//!
//! - **Checked bits**: bits outside the identifier and the source operands that llvm-objdump-22
//!   insists on (unused modifier bits such as NEG/ABS/OMOD/CLAMP/OP_SEL of instructions without
//!   them, reserved bits of the memory encodings, immediates some instructions leave zero): the
//!   measurement flips every such bit of up to three valid words of each instruction and keeps
//!   the bits whose flip LLVM rejects in all of them.
//! - **Reserved operand values**: every value of the scalar register fields (SGPR tuples and
//!   their ranges: SMEM SDATA/SBASE, buffer and image resource and sampler fields, global
//!   SADDR, scalar sources and destinations) and of the sources whose operand type does not say
//!   which values LLVM takes (VOP3P, whose WMMA sources are register tuples; gfx12 VINTERP;
//!   gfx10 SDWA, whose second source is VSRC1 with S1 on top, named `@9.8,63.1`) is tried on a
//!   valid word of each instruction, and the values LLVM rejects are that field's reserved
//!   values. Other register fields typed `OPR_SRC`, `OPR_SSRC`, `OPR_SDST` or `OPR_SREG` reserve
//!   the values without a predefined name in the spec's operand type (209-229, 232, 249, 250,
//!   and 233-234 for scalar sources: the values `s_mov_b32` / `v_mov_b32` do not take; an 8-bit
//!   scalar destination reads as a scalar source), and every 9-bit source also 233 and 234 (the
//!   DPP8 markers, which the spec names as `v0`: LLVM decodes them only as the identifier of a
//!   DPP8 form); for a 64-bit operand also the values `s_mov_b64` / `v_add_f64` do not take
//!   (vcc_hi, exec_hi, m0, ..., measured into the `@64` lines of the tables).
//! - **Refused combinations** ([`Combo`]): bits LLVM takes alone but not together, tried in
//!   every combination on a valid word of each instruction (gfx10 MIMG: the NSA dword count,
//!   which an instruction's address counts limit, with DIM and A16; MUBUF: LDS with TFE).
//!
//! LLVM checks no more than that: VGPR tuples may run past v255, misaligned SGPR pairs of
//! sources print with a warning, and VOPD's two halves may use the same VGPR bank.
//!
//! Each instruction encoding points at one [`Rule`] (equal rules are stored once); the inline
//! decode loop screens it ([`Screen`]) with a mask compare, a few shifts and at most two
//! bit-set lookups, and leaves the few words the screen picks out to the full check.
//!
//! To change what the rules check, edit `crates/decoder/build/amd_reject.rs` (and the types
//! here when the tables' shape changes); `cargo build` regenerates the tables, and
//! `ISABRIDGE_UPDATE_GENERATED=1 cargo build --release -p isabridge-decoder` refreshes the
//! checked-in copies (`tests/generated.rs` fails while they differ).

use crate::spec::Field;
use crate::Isa;

/// Inline fields per rule ([`Rule::fields`]); further ones go to [`Rules::slow`].
const INLINE: usize = 4;

/// Lookup slots per screen ([`Screen::look`]).
const LOOK: usize = 2;

/// What one instruction encoding must satisfy.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rule {
    /// Checked bits of the first four words (bit 0 = bit 0 of the first word).
    mask: u128,
    /// Their required values.
    val: u128,
    /// Up to [`INLINE`] register fields in the first 64 bits: (offset, reserved-value table);
    /// table 0 reserves nothing. Fields the inline check cannot read (several pieces, past
    /// bit 63, or more than [`INLINE`]) are in [`Rules::slow`].
    fields: [(u8, u8); INLINE],
    /// Bit combinations LLVM refuses.
    combo: Combo,
}

/// Bit combinations LLVM refuses although each bit alone decodes (gfx10 MIMG's NSA dword count
/// with DIM and A16, MUBUF's LDS with TFE): two runs of bits of the first 64, (offset, width),
/// read as one index (the first run lowest), and the refused indexes as a bit set (0: none).
#[derive(Debug, Clone, Copy)]
struct Combo {
    runs: [(u8, u8); 2],
    forbid: u64,
}

impl Combo {
    /// True when the combination in `x` (the first two dwords) is refused.
    #[inline(always)]
    fn refuses(&self, x: u64) -> bool {
        let [(o1, w1), (o2, w2)] = self.runs;
        let run = |o: u8, w: u8| (x >> (o & 63)) & ((1u64 << (w & 7)) - 1);
        let i = run(o1, w1) | run(o2, w2) << (w1 & 7);
        (self.forbid >> (i & 63)) & 1 != 0
    }
}

/// The inline decode loop's view of a [`Rule`]: its checked bits within the first 64 bits and
/// one bit at the offset of each register field, by screen: `src9` (9-bit sources: values
/// 208-239 and 248-251, every reserved one and a few rare valid ones), `src8` (8-bit scalar
/// sources, the same), `pair9` / `pair8` (64-bit operands: also the odd values and those
/// ending in 111xx among 96-127 and 224-255; 7-bit fields use `pair8` alone); fields whose
/// reserved values these miss have a `look` slot; and the rule's [`Combo`]. A word that fails
/// the bits or matches a screen goes to the full check; so does every word of a rule with
/// checked bits past bit 63, slow fields or more lookups than slots (`mask` 0, `val` 1).
#[derive(Debug, Clone, Copy)]
struct Screen {
    mask: u64,
    val: u64,
    src9: u64,
    src8: u64,
    pair9: u64,
    pair8: u64,
    /// Register fields the bit screens do not cover (scalar tuples, resource and sampler
    /// fields): (offset, value mask, reserved values below 128 as a bit set, low half first);
    /// a value of 128 or more goes to the full check too. An unused slot is all zero.
    look: [(u8, u16, [u64; 2]); LOOK],
    /// The rule's [`Combo`].
    combo: Combo,
    /// Whether `look` or `combo` is in use (the words of most rules skip both).
    extra: bool,
}

impl Screen {
    /// True when a `look` slot or the [`Combo`] picks out `x` (the first two dwords).
    #[inline(always)]
    fn extra_hit(&self, x: u64) -> bool {
        let look = |&(off, m, map): &(u8, u16, [u64; 2])| {
            let v = (x >> (off & 63)) & m as u64;
            (v >= 128) | ((map[(v >> 6) as usize & 1] >> (v & 63)) & 1 != 0)
        };
        // Slots are filled first to last; most rules with any use one slot and no combination.
        let [l0, l1] = &self.look;
        look(l0) || (l1.1 != 0 && look(l1)) || (self.combo.forbid != 0 && self.combo.refuses(x))
    }
}

/// The rules of one ISA.
#[derive(Debug)]
pub(crate) struct Rules {
    /// Rule index per instruction encoding.
    idx: &'static [u16],
    rules: &'static [Rule],
    /// Per rule, what the inline decode loop reads.
    screens: &'static [Screen],
    /// Per table and 9-bit value read at a field's offset (a field in pieces: its value): 1
    /// when reserved. A table holds the reserved values of an operand type (`OPR_SRC`, ...) at
    /// a field width, for 64-bit operands, or measured for a swept field (see the module doc);
    /// equal tables are stored once.
    reserved: &'static [[u8; 512]],
    /// Per instruction encoding with fields only [`Rules::rejects`] reads, sorted by
    /// instruction encoding: (table, field).
    slow: &'static [(u16, &'static [(u8, Field)])],
}

impl Rules {
    /// True when the instruction encoding's rule rejects the words (checked bits and every
    /// register field).
    pub(crate) fn rejects(&self, ienc: u16, w: &[u32]) -> bool {
        let i = self.idx.get(ienc as usize).copied().unwrap_or(0) as usize;
        let Some(r) = self.rules.get(i) else { return false };
        let at = |k: usize| w.get(k).copied().unwrap_or(0);
        let x = at(0) as u64 | (at(1) as u64) << 32;
        let x128 = x as u128 | (at(2) as u128) << 64 | (at(3) as u128) << 96;
        if x128 & r.mask != r.val {
            return true;
        }
        let bad = |t: u8, v: u64| self.reserved.get(t as usize).is_some_and(|tab| tab[v as usize & 511] != 0);
        if r.fields.iter().any(|&(off, t)| bad(t, x >> (off & 63))) || r.combo.refuses(x) {
            return true;
        }
        let Ok(k) = self.slow.binary_search_by_key(&ienc, |x| x.0) else { return false };
        // Tables of fields in pieces are read at the field's value as the spec gives it (gfx10
        // SDWA's sources: S0/S1 on top of the 8-bit register number).
        self.slow[k].1.iter().any(|(t, f)| bad(*t, f.get(w)))
    }

    /// The inline screen of [`Self::rejects`] (see [`Screen`]): false for every word the full
    /// check accepts; the words it picks out get the full check.
    #[inline(always)]
    pub(crate) fn rejects_inline(&self, ienc: u32, w: &[u32; 4]) -> bool {
        let i = self.idx.get(ienc as usize).copied().unwrap_or(0) as usize;
        let Some(r) = self.screens.get(i) else { return false };
        let x = w[0] as u64 | (w[1] as u64) << 32;
        // Bit k set when bits k+6.. of `x` read 11 then 01/10 (values 208-239 of a field at
        // bit k), or 11 111 0 (248-251); for a 9-bit field bit k+8 must be clear too.
        let (s2, s3, s4, s5, s6, s7) = (x >> 2, x >> 3, x >> 4, x >> 5, x >> 6, x >> 7);
        let lo9 = !(x >> 8);
        let c = s7 & s6 & ((s5 ^ s4) | (s5 & s4 & s3 & !s2));
        // 64-bit operands: 96-127 and 224-255 (bits 6, 5) that are odd or end in 111xx
        // (vcc_hi, exec_hi, m0/null, lds_direct, misaligned pairs).
        let p = s6 & s5 & (x | (s2 & s3 & s4));
        let hit = (c & (r.src8 | (r.src9 & lo9))) | (p & (r.pair8 | (r.pair9 & lo9)));
        if (x & r.mask != r.val) | (hit != 0) || (r.extra && r.extra_hit(x)) {
            return self.rejects_cold(ienc, w);
        }
        false
    }

    /// The full check of a word the inline screen picked out.
    #[cold]
    #[inline(never)]
    fn rejects_cold(&self, ienc: u32, w: &[u32; 4]) -> bool {
        self.rejects(ienc as u16, w)
    }
}

/// The gfx1013 rules (generated by build/amd_reject.rs).
mod gfx10 {
    use super::{Combo, Rule, Rules, Screen};
    include!(concat!(env!("OUT_DIR"), "/gfx10_reject.rs"));
}

/// The gfx1201 rules (generated by build/amd_reject.rs).
mod gfx12 {
    use super::{Combo, Rule, Rules, Screen};
    include!(concat!(env!("OUT_DIR"), "/gfx12_reject.rs"));
}

/// The rules of `isa` (gfx1013 or gfx1201).
pub(crate) fn rules(isa: Isa) -> &'static Rules {
    match isa {
        Isa::Gfx1013 => &gfx10::RULES,
        _ => &gfx12::RULES,
    }
}

