//! Words LLVM 22 rejects although their identifier bits name an instruction.
//!
//! Two kinds of rule, both per instruction encoding, worked out once per ISA at first use:
//!
//! - **Checked bits**: bits outside the identifier and the source operands that llvm-objdump-22
//!   insists on (unused modifier bits such as NEG/ABS/OMOD/CLAMP/OP_SEL of instructions without
//!   them, reserved bits of the memory encodings, immediates some instructions leave zero). They
//!   are measured, not written by hand: `tools/amdspec/mutate.py --fixed-bits` flips every such
//!   bit of up to three valid words of each instruction and keeps the bits whose flip LLVM
//!   rejects in all of them (`reject_gfx10.tsv`, `reject_gfx12.tsv` next to this file).
//! - **Reserved operand values**: a register field typed `OPR_SRC`, `OPR_SSRC`, `OPR_SDST` or
//!   `OPR_SREG` whose value (within the field's width) has no predefined name in the spec's
//!   operand type (209-229, 232, 249, 250, and 233-234 for scalar sources: the values
//!   `s_mov_b32` / `v_mov_b32` do not take; an 8-bit scalar destination reads as a scalar
//!   source); for a
//!   64-bit operand also the values `s_mov_b64` / `v_add_f64` do not take (vcc_hi, exec_hi, m0,
//!   ..., measured into the `@64` lines of the tables); for SRC0 of the VOP1/VOP2/VOPC forms
//!   (and gfx12's VOP3 forms) also the values that select a DPP8/DPP16/SDWA form (233, 234,
//!   249, 250), which an instruction without that form does not have.
//!
//! Each instruction encoding points at one [`Rule`] (equal rules are stored once); the inline
//! decode loop screens it ([`Screen`]) with a mask compare and a few shifts, and leaves the few
//! words the screen picks out to the full check.

use crate::spec::{Field, Tables};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;

/// Inline fields per rule ([`Rule::fields`]); further ones go to [`Rules::slow`].
const INLINE: usize = 4;

/// What one instruction encoding must satisfy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub(crate) struct Rule {
    /// Checked bits of the first four words (bit 0 = bit 0 of the first word).
    mask: u128,
    /// Their required values.
    val: u128,
    /// Up to [`INLINE`] register fields in the first 64 bits: (offset, reserved-value table);
    /// table 0 reserves nothing.
    fields: [(u8, u8); INLINE],
    /// Fields the inline check cannot read (several pieces, past bit 63, or more than
    /// [`INLINE`]): only [`Rules::rejects`] checks them.
    slow: bool,
}

/// The inline decode loop's view of a [`Rule`]: its checked bits within the first 64 bits and
/// one bit at the offset of each register field, by screen: `src9` (9-bit sources: values
/// 208-239 and 248-251, every reserved one and a few rare valid ones), `src8` (8-bit scalar
/// sources, the same), `pair9` / `pair8` (64-bit operands: also the odd values and those
/// ending in 111xx among 96-127 and 224-255). A word that fails the bits or matches a screen goes
/// to the full check; so does every word of a rule with checked bits past bit 63 or slow fields
/// (`mask` 0, `val` 1).
#[derive(Debug, Clone, Copy, Default)]
struct Screen {
    mask: u64,
    val: u64,
    src9: u64,
    src8: u64,
    pair9: u64,
    pair8: u64,
}

/// How a reserved-value table reads its field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Kind {
    /// Operand type name.
    ty: &'static str,
    /// Field width in bits.
    width: u8,
    /// A 64-bit operand.
    pair: bool,
    /// SRC0 of a form with DPP/SDWA selector values.
    marked: bool,
}

/// The rules of one ISA.
#[derive(Debug)]
pub(crate) struct Rules {
    /// Rule index per instruction encoding.
    idx: Box<[u16]>,
    rules: Box<[Rule]>,
    /// Per rule, what the inline decode loop reads.
    screens: Box<[Screen]>,
    /// Per table and 9-bit value read at a field's offset: 1 when reserved.
    reserved: Box<[[u8; 512]]>,
    /// Per instruction encoding: the fields only [`Rules::rejects`] reads (table, field).
    slow: HashMap<u16, Vec<(u8, &'static Field)>>,
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
        if r.fields.iter().any(|&(off, t)| bad(t, x >> (off & 63))) {
            return true;
        }
        let Some(fields) = self.slow.get(&ienc) else { return false };
        // A source in pieces is gfx10 SDWA's VSRC0: bit 8 (S0) set selects a scalar source, so
        // the 9-bit source value is the field with that bit inverted.
        fields.iter().any(|&(t, f)| bad(t, if f.ranges.len() > 1 { f.get(w) ^ 256 } else { f.get(w) }))
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
        if (x & r.mask != r.val) | (hit != 0) {
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

/// The checked-bit tables measured with llvm-objdump-22 (see the module doc).
const GFX10_BITS: &str = include_str!("reject_gfx10.tsv");
const GFX12_BITS: &str = include_str!("reject_gfx12.tsv");

/// A multiply-rotate hasher for the build's own maps (keys from this crate's tables, no
/// untrusted input).
#[derive(Default)]
struct Mix(u64);

impl Hasher for Mix {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for c in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            self.write_u64(u64::from_le_bytes(b));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_u8(&mut self, x: u8) {
        self.write_u64(x as u64)
    }
    fn write_u32(&mut self, x: u32) {
        self.write_u64(x as u64)
    }
    fn write_u128(&mut self, x: u128) {
        self.write_u64(x as u64);
        self.write_u64((x >> 64) as u64)
    }
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64)
    }
}

/// A map hashed with [`Mix`].
type Fast<K, V> = HashMap<K, V, BuildHasherDefault<Mix>>;

static GFX10_RULES: OnceLock<Rules> = OnceLock::new();
static GFX12_RULES: OnceLock<Rules> = OnceLock::new();

/// The rules of `isa` (gfx1013 or gfx1201) over its generated tables, worked out at first use.
pub(crate) fn rules<Op>(isa: crate::Isa, t: &'static Tables<Op>) -> &'static Rules {
    let (cell, bits) = match isa {
        crate::Isa::Gfx1013 => (&GFX10_RULES, GFX10_BITS),
        _ => (&GFX12_RULES, GFX12_BITS),
    };
    cell.get_or_init(|| build(t, bits))
}

fn build<Op>(t: &'static Tables<Op>, bits: &str) -> Rules {
    // (encoding, opcode) -> (mask, value); operand type -> values a 64-bit operand does not take.
    // This runs once per process: the maps hash with [`Mix`], not SipHash, which cost more than
    // the rest of the build.
    let mut fixed: Fast<(&str, u32), (u128, u128)> = Fast::default();
    let mut pair: HashMap<&str, Vec<u32>> = HashMap::new();
    for line in bits.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let c: Vec<&str> = line.split('\t').collect();
        if c[0] == "@64" && c.len() >= 3 {
            pair.insert(c[1], c[2].split(',').filter_map(|v| v.parse().ok()).collect());
            continue;
        }
        if c.len() < 4 {
            continue;
        }
        let (Ok(op), Ok(m), Ok(v)) = (c[1].parse(), u128::from_str_radix(c[2], 16), u128::from_str_radix(c[3], 16)) else {
            continue;
        };
        fixed.insert((c[0], op), (m, v));
    }
    let gfx12 = t.encodings.iter().any(|e| e.name == "ENC_VOP3_DPP8");
    let mut kinds: Vec<(Kind, bool)> = Vec::new();
    let mut reserved: Vec<[u8; 512]> = vec![[0; 512]];
    let mut table = |k: Kind| -> (u8, bool) {
        if let Some(i) = kinds.iter().position(|&(o, _)| o == k) {
            return (i as u8 + 1, kinds[i].1);
        }
        let ty = t.operand_types.iter().find(|o| o.name == k.ty);
        let mut tab = [0u8; 512];
        for (v, r) in tab.iter_mut().enumerate() {
            let v = (v & ((1 << k.width) - 1)) as u32;
            *r = (ty.is_some_and(|ty| ty.lookup(v as i64).is_none())
                || (k.pair && pair.get(k.ty).is_some_and(|p| p.contains(&v)))
                || (k.marked && matches!(v, 233 | 234 | 249 | 250))) as u8;
        }
        let any = tab.iter().any(|&b| b != 0);
        kinds.push((k, any));
        reserved.push(tab);
        (kinds.len() as u8, any)
    };
    let mut rules = vec![Rule::default()];
    let mut screens = vec![Screen::default()];
    let mut seen: Fast<Rule, u16> = Fast::default();
    seen.insert(Rule::default(), 0);
    let mut slow = HashMap::new();
    let mut idx = Vec::with_capacity(t.inst_encodings.len());
    for (i, ie) in t.inst_encodings.iter().enumerate() {
        let e = &t.encodings[ie.enc as usize];
        // The measurement names an instruction by its word's layout, where VOP3B/VOP3SD words
        // (and their DPP forms) are VOP3 words: the same fixed bits.
        let alt = |name: &str| name.replacen("VOP3B", "VOP3", 1).replacen("VOP3SD", "VOP3", 1);
        let (mask, val) = fixed
            .get(&(e.name, ie.opcode))
            .copied()
            .or_else(|| {
                let a = e.name.starts_with("ENC_VOP3").then(|| alt(e.name))?;
                fixed.get(&(a.as_str(), ie.opcode)).copied()
            })
            .unwrap_or((0, 0));
        let mut r = Rule { mask, val, ..Rule::default() };
        let mut sc = Screen { mask: mask as u64, val: val as u64, ..Screen::default() };
        let mut n = 0;
        let mut extra = Vec::new();
        let marked = matches!(e.name, "ENC_VOP1" | "ENC_VOP2" | "ENC_VOPC")
            || (gfx12 && matches!(e.name, "ENC_VOP3" | "ENC_VOP3SD" | "ENC_VOP3P"));
        for op in ie.operands {
            let Some(f) = op.field else { continue };
            if e.name == "ENC_VINTERP" || e.name == "ENC_VINTRP" {
                break; // LLVM decodes any source value there (with an `/*Invalid ...*/` note)
            }
            let mut ty = t.operand_types[op.ty as usize].name;
            // Scaled fields (SGPR pairs, quads) and register tuples are left alone.
            let scaled = matches!(f.name, "SBASE" | "SRSRC" | "SSAMP" | "RSRC" | "SAMP");
            if !matches!(ty, "OPR_SRC" | "OPR_SSRC" | "OPR_SDST" | "OPR_SREG") || scaled {
                continue;
            }
            let width = f.width() as u8;
            if width == 8 && !ty.ends_with("SRC") {
                // An 8-bit scalar destination (VOP3 VDST of compares, v_readlane) reads like a
                // scalar source: LLVM prints 128-208 and 240-255 with an `/*Invalid ...*/` note.
                ty = "OPR_SSRC";
            }
            let k = Kind { ty, width, pair: op.size == 64, marked: marked && f.name == "SRC0" };
            let (tab, any) = table(k);
            if !any {
                continue;
            }
            match f.ranges {
                [(off, w)] if *off as u32 + *w as u32 <= 64 && n < INLINE && *w >= 7 => {
                    let bit = 1u64 << off;
                    let wide = *w == 9;
                    if ty == "OPR_SRC" || ty == "OPR_SSRC" {
                        *(if wide { &mut sc.src9 } else { &mut sc.src8 }) |= bit;
                    }
                    if k.pair {
                        *(if wide { &mut sc.pair9 } else { &mut sc.pair8 }) |= bit;
                    }
                    r.fields[n] = (*off, tab);
                    n += 1;
                }
                // Scalar destinations and registers past bit 63 (memory instructions' SOFFSET,
                // gfx12's wide encodings) are not checked: every word of such an instruction
                // would leave the inline loop.
                _ if !ty.ends_with("SRC") => {}
                _ => extra.push((tab, f)),
            }
        }
        if !extra.is_empty() {
            r.slow = true;
            slow.insert(i as u16, extra);
        }
        if r.mask >> 64 != 0 || r.slow {
            (sc.mask, sc.val) = (0, 1);
        }
        let k = *seen.entry(r).or_insert_with(|| {
            rules.push(r);
            screens.push(sc);
            (rules.len() - 1) as u16
        });
        idx.push(k);
    }
    Rules { idx: idx.into(), rules: rules.into(), screens: screens.into(), reserved: reserved.into(), slow }
}
