//! AMD plugins (gfx1013, gfx1201): decoding and encoding shared by both generations.
//! Printing lives with each generation (`crate::gfx10`, `crate::gfx12`).

pub mod formats;
pub mod operands;
pub mod print;
pub mod symbols;

use crate::spec::{Encoding, InstEncoding, Tables};
use crate::{gfx10, gfx12, Decoded, DecodeError, Isa, IsaPlugin, MAX_WORDS};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

/// `Facts::fast` entry not computed yet.
const FAST_UNKNOWN: u32 = u32::MAX;
/// `Facts::fast` entry: the upper half alone does not decide; take the full classification.
const FAST_SLOW: u32 = 0;

/// Per-ISA facts computed once from the tables.
#[derive(Debug)]
struct Facts {
    /// Per value of the first word's upper half: the (encoding, instruction) it selects on its
    /// own, filled on first use (see [`Amd::fast_classify`]).
    fast: Vec<AtomicU32>,
    /// Per encoding: index of its NSA field, when it has one.
    nsa: Vec<Option<usize>>,
    /// Per instruction encoding: how it may carry a literal dword.
    literal: Vec<Literal>,
}

/// Where an instruction encoding's literal dword comes from.
#[derive(Debug, Clone, Copy, Default)]
struct Literal {
    /// An operand is always a literal (v_fmamk_f32, s_setreg_imm32_b32, ...).
    always: bool,
    /// Number of source fields that select a literal with the value 255.
    n: u8,
    /// Those fields as (bit offset, width); single-range fields only.
    fields: [(u8, u8); 3],
}

/// An AMD ISA plugin over generated tables.
#[derive(Debug)]
pub struct Amd<Op: 'static> {
    isa: Isa,
    tables: &'static Tables<Op>,
    facts: OnceLock<Facts>,
}

/// The gfx1013 plugin.
pub static GFX10: Amd<gfx10::Op> = Amd::new(Isa::Gfx1013, &gfx10::TABLES);
/// The gfx1201 plugin.
pub static GFX12: Amd<gfx12::Op> = Amd::new(Isa::Gfx1201, &gfx12::TABLES);

impl<Op: Generation> Amd<Op> {
    const fn new(isa: Isa, tables: &'static Tables<Op>) -> Self {
        Amd { isa, tables, facts: OnceLock::new() }
    }

    /// The generated tables.
    pub fn tables(&self) -> &'static Tables<Op> {
        self.tables
    }

    fn facts(&self) -> &Facts {
        self.facts.get_or_init(|| {
            let t = self.tables;
            Facts {
                fast: (0..1usize << 16).map(|_| AtomicU32::new(FAST_UNKNOWN)).collect(),
                literal: t
                    .inst_encodings
                    .iter()
                    .map(|ie| {
                        let e = &t.encodings[ie.enc as usize];
                        let mut l = Literal::default();
                        if e.name.contains("SDWA") || e.name.contains("DPP") {
                            return l; // DPP and SDWA forms have no literal
                        }
                        for op in ie.operands {
                            let ty = &t.operand_types[op.ty as usize];
                            if ty.name == "OPR_SIMM32" {
                                l.always = true;
                            } else if let Some(f) = op.field {
                                let lit = ty.lookup(255).is_some_and(|n| n.eq_ignore_ascii_case("literal"));
                                if lit && f.ranges.len() == 1 && (l.n as usize) < l.fields.len() {
                                    l.fields[l.n as usize] = f.ranges[0];
                                    l.n += 1;
                                }
                            }
                        }
                        l
                    })
                    .collect(),
                nsa: t
                    .encodings
                    .iter()
                    .map(|e| e.fields.iter().position(|f| f.name == "NSA"))
                    .collect(),
            }
        })
    }

    /// The (instruction, encoding) entry of a decoded instruction.
    pub fn inst_encoding(&self, d: &Decoded) -> &'static InstEncoding<Op> {
        &self.tables.inst_encodings[d.ienc as usize]
    }

    /// The encoding of a decoded instruction.
    pub fn encoding(&self, d: &Decoded) -> &'static Encoding {
        &self.tables.encodings[d.enc as usize]
    }

    /// The (encoding, instruction encoding) that bits 16-31 of the first word select whatever the
    /// other bits are, when they do (SOP2/K/C/P, SMEM, VOP3, VOP3P, DS, MUBUF, ...): one table
    /// load instead of the candidate walk. Each entry is worked out once, from the same tables
    /// [`Tables::classify`] reads, and only where every candidate tried before the match (and
    /// the match's opcode field) lies in those bits.
    #[inline]
    fn fast_classify(&self, facts: &Facts, w0: u32) -> Option<(u16, u16)> {
        let slot = facts.fast.get((w0 >> 16) as usize)?;
        let mut v = slot.load(Ordering::Relaxed);
        if v == FAST_UNKNOWN {
            v = self.fast_entry(w0 & 0xffff_0000);
            slot.store(v, Ordering::Relaxed);
        }
        (v != FAST_SLOW).then(|| ((v >> 16) as u16, (v & 0xffff) as u16 - 1))
    }

    fn fast_entry(&self, w0: u32) -> u32 {
        let t = self.tables;
        if t.key_lo < 16 {
            return FAST_SLOW;
        }
        let high: u128 = 0xffff_0000;
        let key = ((w0 >> t.key_lo) & ((1u32 << t.key_bits) - 1)) as usize;
        let Some(cands) = t.dispatch.get(key) else { return FAST_SLOW };
        for &c in cands.iter() {
            let e = &t.encodings[c as usize];
            if e.mask & !high != 0 {
                return FAST_SLOW; // this candidate looks at bits outside the upper half
            }
            if !e.idents.contains(&(w0 as u128 & e.mask)) {
                continue; // decided by the upper half alone: not this encoding
            }
            let Some(f) = e.op else { return FAST_SLOW };
            if f.ranges.iter().any(|&(off, cnt)| off < 16 || off as u32 + cnt as u32 > 32) {
                return FAST_SLOW;
            }
            return match e.opmap.get(f.get(&[w0]) as usize) {
                Some(&ie) if ie < u16::MAX - 1 => ((c as u32) << 16) | (ie as u32 + 1),
                _ => FAST_SLOW,
            };
        }
        FAST_SLOW
    }

    /// Decodes one instruction (see [`IsaPlugin::decode`]).
    #[inline]
    pub fn decode_inst(&self, bytes: &[u8], addr: u64) -> Result<Decoded, DecodeError> {
        let isa = self.isa;
        if bytes.len() < 4 {
            return Err(DecodeError::Truncated { isa, addr, need: 4, have: bytes.len() });
        }
        let mut words = [0u32; MAX_WORDS];
        if let Some(b) = bytes.first_chunk::<{ MAX_WORDS * 4 }>() {
            // Common case: a whole window of words is there (one fixed-size read).
            for (w, c) in words.iter_mut().zip(b.chunks_exact(4)) {
                *w = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            }
        } else {
            for (i, c) in bytes.chunks_exact(4).take(MAX_WORDS).enumerate() {
                words[i] = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            }
        }
        let facts = self.facts();
        let (enc, ienc) = match self.fast_classify(facts, words[0]) {
            Some(x) => x,
            None => match self.tables.classify(&words) {
                Some((e, Some(i))) => (e, i),
                _ => return Err(DecodeError::Unknown { isa, addr, word: words[0] }),
            },
        };
        let e = &self.tables.encodings[enc as usize];
        let mut len = e.bits as usize / 8;
        let lit = facts.literal[ienc as usize];
        let literal = lit.always
            || lit.fields[..lit.n as usize]
                .iter()
                .any(|&(off, w)| crate::spec::extract(&words, off as u32, w as u32) == 255);
        if let Some(nsa) = facts.nsa[enc as usize] {
            if e.fields[nsa].get(&words) != 0 {
                len += 4 * Op::nsa_dwords(self, &words, ienc);
            }
        }
        if literal {
            len += 4;
        }
        if len > bytes.len() || len > MAX_WORDS * 4 {
            return Err(DecodeError::Truncated { isa, addr, need: len, have: bytes.len() });
        }
        // Words past the instruction read as zero (an element-wise select, no memset call).
        let keep = len / 4;
        let words = std::array::from_fn(|i| if i < keep { words[i] } else { 0 });
        Ok(Decoded { words, len: len as u8, enc, ienc })
    }
}

/// Printing and canonical encoding of one AMD generation.
pub trait Generation: Copy + Sync + std::fmt::Debug + 'static {
    /// Appends the instruction's LLVM text.
    fn print(p: &Amd<Self>, d: &Decoded, addr: u64, out: &mut String);
    /// Clears or rewrites bits the way llvm-mc's canonical encoding does.
    fn canonicalize(p: &Amd<Self>, d: &mut Decoded);
    /// Extra address dwords of an NSA image instruction (its NSA field is non-zero).
    fn nsa_dwords(p: &Amd<Self>, words: &[u32], ienc: u16) -> usize;
}

impl<Op: Generation> IsaPlugin for Amd<Op> {
    fn isa(&self) -> Isa {
        self.isa
    }

    fn unit(&self) -> usize {
        4
    }

    fn decode(&self, bytes: &[u8], addr: u64) -> Result<Decoded, DecodeError> {
        self.decode_inst(bytes, addr)
    }

    fn print(&self, inst: &Decoded, addr: u64, out: &mut String) {
        Op::print(self, inst, addr, out)
    }

    fn encode(&self, inst: &Decoded) -> Vec<u8> {
        let mut out = *inst;
        Op::canonicalize(self, &mut out);
        out.bytes()
    }

    fn name(&self, inst: &Decoded) -> &'static str {
        self.tables.instructions[self.inst_encoding(inst).inst as usize].name
    }

    fn encoding_name(&self, inst: &Decoded) -> &'static str {
        self.encoding(inst).name
    }

    /// AMD branches: a label operand holds a signed dword offset from the next instruction.
    fn branch_target(&self, inst: &Decoded, addr: u64) -> Option<u64> {
        let ie = self.inst_encoding(inst);
        let op = ie.operands.iter().find(|o| self.tables.operand_types[o.ty as usize].name == "OPR_LABEL")?;
        let simm = op.field?.get(&inst.words) as u16 as i16 as i64;
        Some(addr.wrapping_add(4).wrapping_add((simm * 4) as u64))
    }
}

