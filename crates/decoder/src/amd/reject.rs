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
//! - **Reserved operand values**: a source field typed `OPR_SRC` (9 bits) or `OPR_SSRC` (8 bits)
//!   whose value has no predefined name in the spec's operand type (209-229, 232, 249, 250 and,
//!   for scalar sources, 233-234: the values `s_mov_b32` / `v_mov_b32` do not take).
//!
//! Each instruction encoding points at one [`Rule`] (equal rules are stored once); the inline
//! decode loop evaluates it with a mask compare and three table loads.

use crate::spec::Tables;
use std::collections::HashMap;
use std::sync::OnceLock;

/// Field descriptor kinds in [`Rule::srcs`] (bits 6-7 of each byte; bits 0-5: the offset).
const K_NONE: u8 = 0;
/// A 9-bit `OPR_SRC` field.
const K_SRC: u8 = 1;
/// An 8-bit `OPR_SSRC` field.
const K_SSRC: u8 = 2;
/// A 9-bit `OPR_SRC` field whose values 233, 234 (DPP8) and 249, 250 (SDWA, DPP16) select
/// another encoding: SRC0 of VOP1/VOP2/VOPC, and of gfx12's VOP3 forms (which have DPP forms).
/// An instruction without that form is no instruction for LLVM.
const K_SRC0: u8 = 3;

/// What one instruction encoding must satisfy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub(crate) struct Rule {
    /// Checked bits of the first four words (bit 0 = bit 0 of the first word).
    mask: u128,
    /// Their required values.
    val: u128,
    /// Up to three source fields within the first 64 bits, one byte each: offset in bits 0-5,
    /// kind (`K_*`) in bits 6-7.
    srcs: u32,
    /// A source field the inline check cannot read (several pieces, or past bit 63): only
    /// [`Rules::rejects`] checks it, and the inline loop leaves the instruction to it.
    slow: bool,
}

/// The inline decode loop's view of a [`Rule`]: the checked bits of the first 64 bits, and one
/// bit at the offset of each 9-bit (`src9`) or 8-bit (`src8`) source field. A word that fails
/// the checked bits, or has a source value in 208-239 or 248-251 (every reserved value and a
/// few rare valid ones), goes to the full check; so does every word of a rule with checked bits
/// past bit 63 or sources the loop cannot read (`mask` 0, `val` 1).
#[derive(Debug, Clone, Copy, Default)]
struct Screen {
    mask: u64,
    val: u64,
    src9: u64,
    src8: u64,
}

/// The rule of an instruction encoding without one.
const NO_RULE: Rule = Rule { mask: 0, val: 0, srcs: 0, slow: false };

/// The rules of one ISA.
#[derive(Debug)]
pub(crate) struct Rules {
    /// Rule index per instruction encoding.
    idx: Box<[u16]>,
    rules: Box<[Rule]>,
    /// Per rule, what the inline decode loop reads ([`Screen`]).
    screens: Box<[Screen]>,
    /// Per kind (`K_*`) and 9-bit value: 1 when the value is reserved.
    reserved: Box<[u8; 4 * 512]>,
    /// Per instruction encoding: the source fields only [`Rules::rejects`] reads (kind, field).
    slow: HashMap<u16, Vec<(u8, &'static crate::spec::Field)>>,
}

impl Rules {
    /// True when the instruction encoding's rule rejects the words (all of them: checked bits,
    /// inline source fields and the others).
    pub(crate) fn rejects(&self, ienc: u16, w: &[u32]) -> bool {
        let w4 = [0, 1, 2, 3].map(|i| w.get(i).copied().unwrap_or(0));
        if self.fails(ienc as u32, &w4) {
            return true;
        }
        let Some(fields) = self.slow.get(&ienc) else { return false };
        // A source in pieces is gfx10 SDWA's VSRC0: bit 8 (S0) set selects a scalar source, so
        // the 9-bit source value is the field with that bit inverted.
        fields.iter().any(|&(k, f)| self.reserved[k as usize * 512 + ((f.get(w) as usize ^ 256) & 511)] != 0)
    }

    /// The inline part of [`Self::rejects`]: true when the instruction fails its rule or has
    /// fields only [`Self::rejects`] reads.
    #[inline(always)]
    pub(crate) fn rejects_inline(&self, ienc: u32, w: &[u32; 4]) -> bool {
        let i = self.idx.get(ienc as usize).copied().unwrap_or(0) as usize;
        let Some(r) = self.screens.get(i) else { return false };
        let x = w[0] as u64 | (w[1] as u64) << 32;
        // Bit k set when bits k+6.. of `x` read 11 then 01/10 (values 208-239 of a field at
        // bit k), or 11 111 0 (248-251); for a 9-bit field bit k+8 must be clear too.
        let (s2, s3, s4, s5) = (x >> 2, x >> 3, x >> 4, x >> 5);
        let c = (x >> 7) & (x >> 6) & ((s5 ^ s4) | (s5 & s4 & s3 & !s2));
        let hit = c & (r.src8 | (r.src9 & !(x >> 8)));
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

    /// The rule of an instruction encoding.
    #[inline(always)]
    fn rule(&self, ienc: u32) -> &Rule {
        let i = self.idx.get(ienc as usize).copied().unwrap_or(0) as usize;
        self.rules.get(i).unwrap_or(&NO_RULE)
    }

    /// True when the words fail the checked bits or an inline source field of the rule.
    #[inline(always)]
    fn fails(&self, ienc: u32, w: &[u32; 4]) -> bool {
        let r = self.rule(ienc);
        let x = w[0] as u64 | (w[1] as u64) << 32;
        let x128 = x as u128 | (w[2] as u128) << 64 | (w[3] as u128) << 96;
        let res = &self.reserved;
        let src = |b: u32| {
            let off = b & 63;
            let k = (b >> 6) & 3;
            res[((k as usize) << 9 | ((x >> off) as usize & 511)) % res.len()]
        };
        let s = r.srcs;
        (x128 & r.mask != r.val) | (src(s & 255) | src(s >> 8 & 255) | src(s >> 16 & 255) != 0)
    }
}

/// The checked-bit tables measured with llvm-objdump-22 (see the module doc).
const GFX10_BITS: &str = include_str!("reject_gfx10.tsv");
const GFX12_BITS: &str = include_str!("reject_gfx12.tsv");

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
    // (encoding, opcode) -> (mask, value)
    let mut fixed: HashMap<(&str, u32), (u128, u128)> = HashMap::new();
    for line in bits.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let c: Vec<&str> = line.split('\t').collect();
        if c.len() < 4 {
            continue;
        }
        let (Ok(op), Ok(m), Ok(v)) = (c[1].parse(), u128::from_str_radix(c[2], 16), u128::from_str_radix(c[3], 16)) else {
            continue;
        };
        fixed.insert((c[0], op), (m, v));
    }
    let mut reserved = Box::new([0u8; 4 * 512]);
    for ty in t.operand_types {
        let k = match ty.name {
            "OPR_SRC" => K_SRC,
            "OPR_SSRC" => K_SSRC,
            _ => continue,
        };
        let width = if k == K_SRC { 512 } else { 256 };
        for v in 0..512 {
            let r = ty.lookup((v % width) as i64).is_none() as u8;
            reserved[k as usize * 512 + v] = r;
            if k == K_SRC {
                reserved[K_SRC0 as usize * 512 + v] = r | matches!(v, 233 | 234 | 249 | 250) as u8;
            }
        }
    }
    let gfx12 = t.encodings.iter().any(|e| e.name == "ENC_VOP3_DPP8");
    let mut rules = vec![Rule::default()];
    let mut seen: HashMap<Rule, u16> = HashMap::from([(Rule::default(), 0)]);
    let mut slow = HashMap::new();
    let mut idx = Vec::with_capacity(t.inst_encodings.len());
    for (i, ie) in t.inst_encodings.iter().enumerate() {
        let e = &t.encodings[ie.enc as usize];
        // The measurement names an instruction by its word's layout, where VOP3B/VOP3SD words
        // (and their DPP forms) are VOP3 words: the same fixed bits.
        let alias = |n: &str| n.replacen("VOP3B", "VOP3", 1).replacen("VOP3SD", "VOP3", 1);
        let alt = alias(e.name);
        let (mask, val) = fixed
            .get(&(e.name, ie.opcode))
            .or_else(|| fixed.get(&(alt.as_str(), ie.opcode)))
            .copied()
            .unwrap_or((0, 0));
        let mut r = Rule { mask, val, ..Rule::default() };
        let mut n = 0;
        let mut extra = Vec::new();
        for op in ie.operands {
            let Some(f) = op.field else { continue };
            if e.name == "ENC_VINTERP" {
                break; // LLVM decodes any source value there (with an `/*Invalid ...*/` note)
            }
            let marked = matches!(e.name, "ENC_VOP1" | "ENC_VOP2" | "ENC_VOPC")
                || (gfx12 && matches!(e.name, "ENC_VOP3" | "ENC_VOP3SD" | "ENC_VOP3P"));
            let k = match t.operand_types[op.ty as usize].name {
                "OPR_SRC" if f.name == "SRC0" && marked => K_SRC0,
                "OPR_SRC" => K_SRC,
                "OPR_SSRC" => K_SSRC,
                _ => continue,
            };
            match f.ranges {
                [(off, _)] if *off as u32 + if k == K_SSRC { 8 } else { 9 } <= 64 && n < 3 => {
                    r.srcs |= ((k << 6) as u32 | *off as u32) << (8 * n);
                    n += 1;
                }
                _ => extra.push((k, f)),
            }
        }
        if !extra.is_empty() {
            r.slow = true;
            slow.insert(i as u16, extra);
        }
        let k = *seen.entry(r).or_insert_with(|| {
            rules.push(r);
            (rules.len() - 1) as u16
        });
        idx.push(k);
    }
    let screens = rules
        .iter()
        .map(|r| {
            let mut sc = Screen { mask: r.mask as u64, val: r.val as u64, ..Screen::default() };
            for b in r.srcs.to_le_bytes().iter().take(3) {
                match b >> 6 {
                    K_NONE => {}
                    K_SSRC => sc.src8 |= 1 << (b & 63),
                    _ => sc.src9 |= 1 << (b & 63),
                }
            }
            if r.mask >> 64 != 0 || r.slow {
                (sc.mask, sc.val) = (0, 1);
            }
            sc
        })
        .collect();
    Rules { idx: idx.into(), rules: rules.into(), screens, reserved, slow }
}
