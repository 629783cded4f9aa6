//! NVIDIA Maxwell sm_50: tables generated from isa-specs/nvidia/sm50.xml, bundles (a control
//! word and three instructions), and the family rules the print templates alone cannot express.

#[allow(missing_docs, clippy::all)]
mod tables {
    include!(concat!(env!("OUT_DIR"), "/sm50.rs"));
}
pub use tables::*;

use crate::nvidia::control::Control;
use crate::nvidia::{Ctx, NvPlugin, Text};
use crate::{DecodeError, Decoded, Isa, IsaPlugin};

/// Bytes per bundle: a control word and three instructions.
pub const BUNDLE: usize = 32;

/// The sm50 instruction-level plugin; [`SM50`] adds the bundle structure.
pub static SM50_INSN: NvPlugin =
    NvPlugin { isa: Isa::Sm50, t: &TABLES, tree: &TREE, reuse_slots: &[8, 20, 39, 0], fixup, size: 8 };

/// The sm50 plugin.
pub static SM50: Sm50 = Sm50;

/// Maxwell: instructions are 8 bytes inside 32-byte bundles. At a bundle start (address a
/// multiple of 32) `decode` reads the control word and the first instruction (16 bytes); inside a
/// bundle it reads one instruction (8 bytes; its control bits are then unknown). Word 4 of a
/// `Decoded` holds the slot's 21 control bits, bit 31 set when they are known.
#[derive(Debug)]
pub struct Sm50;

/// Bit 31 of `Decoded::words[4]`: the control bits are known.
pub const CTRL_KNOWN: u32 = 1 << 31;

impl Sm50 {
    /// Decodes instruction `inst` in slot `slot` (0..3) of a bundle with control word `ctrl`.
    pub fn decode_slot(&self, inst: u64, ctrl: u64, slot: usize, addr: u64) -> Result<Decoded, DecodeError> {
        let mut d = decode_insn(inst, addr)?;
        // The slot's 21 control bits as they are (what Control::sm50_slot unpacks).
        let bits = (ctrl >> (21 * (slot % 3))) as u32 & 0x1f_ffff;
        if !slot_ok(d.enc, bits) {
            return Err(DecodeError::Unknown { isa: Isa::Sm50, addr, word: inst as u32 });
        }
        d.words[4] = bits | CTRL_KNOWN;
        Ok(d)
    }

    /// The control fields of a decoded instruction, when known.
    pub fn control(&self, d: &Decoded) -> Option<Control> {
        (d.words[4] & CTRL_KNOWN != 0).then(|| Control::from_bits(d.words[4] & 0x1f_ffff))
    }
}

impl std::fmt::Debug for NvPlugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NvPlugin({})", self.isa)
    }
}

fn le64(b: &[u8]) -> u64 {
    let mut x = [0u8; 8];
    x.copy_from_slice(&b[..8]);
    u64::from_le_bytes(x)
}

impl IsaPlugin for Sm50 {
    fn isa(&self) -> Isa {
        Isa::Sm50
    }
    fn unit(&self) -> usize {
        8
    }
    fn decode(&self, bytes: &[u8], addr: u64) -> Result<Decoded, DecodeError> {
        if !addr.is_multiple_of(8) {
            return Err(DecodeError::Misaligned { isa: Isa::Sm50, addr, unit: 8 });
        }
        let start = addr.is_multiple_of(BUNDLE as u64);
        let need = if start { 16 } else { 8 };
        if bytes.len() < need {
            return Err(DecodeError::Truncated { isa: Isa::Sm50, addr, need, have: bytes.len() });
        }
        if start {
            let ctrl = le64(bytes);
            let mut d = self.decode_slot(le64(&bytes[8..]), ctrl, 0, addr + 8)?;
            d.len = 16;
            d.words[2] = ctrl as u32;
            d.words[3] = (ctrl >> 32) as u32;
            Ok(d)
        } else {
            decode_insn(le64(bytes), addr)
        }
    }
    fn decode_block(&self, bytes: &[u8], base_addr: u64, out: &mut Vec<Decoded>) -> usize {
        if !base_addr.is_multiple_of(8) {
            return 0;
        }
        out.reserve(bytes.len() / 8);
        let walk = SM50_INSN.tree.walk();
        let mut off = 0usize;
        // What `decode` gives at each offset in turn: at a bundle start the control word and
        // slot 0 (16 bytes), else one instruction. The tree decides the common case here; any
        // other word goes through `decode` (its fallbacks, its errors), one step at a time.
        loop {
            // Whole bundles while they decode: the control word read once, three tree walks.
            if base_addr.wrapping_add(off as u64).is_multiple_of(BUNDLE as u64) {
                while let Some(b) = bytes.get(off..).and_then(|r| r.first_chunk::<BUNDLE>()) {
                    let ctrl = le64(b);
                    let w = [le64(&b[8..]), le64(&b[16..]), le64(&b[24..])];
                    let (Some(x0), Some(x1), Some(x2)) =
                        (walk.classify::<false>(w[0], 0), walk.classify::<false>(w[1], 0), walk.classify::<false>(w[2], 0))
                    else {
                        break;
                    };
                    if !(word_ok(w[0]) && word_ok(w[1]) && word_ok(w[2])) {
                        break;
                    }
                    // (`decode` checks the control bits of slot 0 only: inside a bundle it
                    // does not see the control word)
                    if !slot_ok(x0.0, ctrl as u32 & 0x1f_ffff) {
                        break;
                    }
                    let words = [w[0] as u32, (w[0] >> 32) as u32, ctrl as u32, (ctrl >> 32) as u32, (ctrl as u32 & 0x1f_ffff) | CTRL_KNOWN, 0];
                    out.push(Decoded { words, len: 16, enc: x0.0, ienc: x0.1 });
                    out.push(Decoded { words: [w[1] as u32, (w[1] >> 32) as u32, 0, 0, 0, 0], len: 8, enc: x1.0, ienc: x1.1 });
                    out.push(Decoded { words: [w[2] as u32, (w[2] >> 32) as u32, 0, 0, 0, 0], len: 8, enc: x2.0, ienc: x2.1 });
                    off += BUNDLE;
                }
            }
            let Some(rest) = bytes.get(off..).filter(|r| !r.is_empty()) else { break };
            let addr = base_addr.wrapping_add(off as u64);
            let start = addr.is_multiple_of(BUNDLE as u64);
            let fast = if start {
                rest.first_chunk::<16>().map(|b| (le64(&b[8..]), le64(b), 16u8))
            } else {
                rest.first_chunk::<8>().map(|b| (u64::from_le_bytes(*b), 0, 8u8))
            };
            let fast = fast.and_then(|(w, ctrl, len)| walk.classify::<false>(w, 0).map(|x| (w, ctrl, len, x)));
            let fast = fast.filter(|&(w, ctrl, len, (enc, _))| {
                word_ok(w) && (len == 8 || slot_ok(enc, ctrl as u32 & 0x1f_ffff))
            });
            let d = match fast {
                Some((w, ctrl, len, (enc, ienc))) => {
                    let mut words = [w as u32, (w >> 32) as u32, 0, 0, 0, 0];
                    if len == 16 {
                        words[2] = ctrl as u32;
                        words[3] = (ctrl >> 32) as u32;
                        words[4] = (ctrl as u32 & 0x1f_ffff) | CTRL_KNOWN;
                    }
                    Decoded { words, len, enc, ienc }
                }
                None => match self.decode(rest, addr) {
                    Ok(d) if d.len > 0 => d,
                    _ => break,
                },
            };
            off += d.len as usize;
            out.push(d);
        }
        off
    }
    fn print(&self, inst: &Decoded, addr: u64, out: &mut String) {
        let reuse = self.control(inst).map(|c| c.reuse).unwrap_or(0);
        let addr = if inst.len == 16 { addr + 8 } else { addr };
        SM50_INSN.print_with(inst, addr, reuse, out)
    }
    fn encode(&self, inst: &Decoded) -> Vec<u8> {
        let w = SM50_INSN.canonical(inst) as u64;
        let mut v = Vec::with_capacity(16);
        if inst.len == 16 {
            v.extend_from_slice(&inst.words[2].to_le_bytes());
            v.extend_from_slice(&inst.words[3].to_le_bytes());
        }
        v.extend_from_slice(&w.to_le_bytes());
        v
    }
    fn name(&self, inst: &Decoded) -> &'static str {
        SM50_INSN.name(inst)
    }
    fn encoding_name(&self, inst: &Decoded) -> &'static str {
        SM50_INSN.encoding_name(inst)
    }
    fn operands(&self, inst: &Decoded, addr: u64) -> crate::Inst {
        crate::nvidia::model::operands_sm50(inst, addr)
    }
    fn flow(&self, inst: &Decoded) -> crate::operand::Flow {
        crate::nvidia::model::flow(&SM50_INSN, inst)
    }
    fn build(&self, inst: &crate::Inst) -> Result<Vec<u8>, crate::BuildError> {
        crate::nvidia::build::build_sm50(inst)
    }
}

/// Whether nvdisasm accepts control bits `bits` (one slot's 21) for an instruction of form
/// `enc` (barriers and reuse flags, `crate::nvidia::control::sched_ok`).
#[inline(always)]
fn slot_ok(enc: u16, bits: u32) -> bool {
    crate::nvidia::control::sched_ok(TABLES.sched.get(usize::from(enc)).copied().unwrap_or(0xf6), TABLES.opex, bits)
}

/// Whether nvdisasm accepts instruction word `w` beyond its form's identifier (measured value
/// rules: `SUATOM` bits 51-55, `ALD` offsets, `TLDS` bits 53-56, the `IMADSP` `c` format).
#[inline(always)]
fn word_ok(w: u64) -> bool {
    surface::suatom_ok(w) && mem::ald_ok(w) && tex::tlds_ok(w) && alu::imadsp_ok(w)
}

/// Decodes one instruction word. A word of a family printed whole from its bits (video
/// instructions, conversions) that no probed form matches is given the family's first form: the printer
/// reads only the word's bits, and the encoder keeps every bit of these families. `TEXS` /
/// `TLDS` words whose channel value no probe reached take the form of channel 0.
fn decode_insn(w: u64, addr: u64) -> Result<Decoded, DecodeError> {
    if !word_ok(w) {
        return Err(DecodeError::Unknown { isa: Isa::Sm50, addr, word: w as u32 });
    }
    SM50_INSN.decode_word(w as u128, addr).or_else(|e| {
        if matches!(w >> 57, 0x6c | 0x6d) {
            // TEXS / TLDS with a channel value no probe reached: the form of channel 0 (the
            // printer reads the channel from the bits).
            let f = TABLES.classify((w & !(7 << 50)) as u128).ok_or_else(|| e.clone())?;
            let mut words = [0u32; crate::MAX_WORDS];
            words[0] = w as u32;
            words[1] = (w >> 32) as u32;
            return Ok(Decoded { words, len: 8, enc: f, ienc: TABLES.forms[f as usize].inst });
        }
        let name = video::which(w).or_else(|| convert::which(w).map(|x| x.0)).ok_or_else(|| e.clone())?;
        let f = TABLES.forms.iter().position(|f| TABLES.insts[f.inst as usize].name == name).ok_or(e)?;
        let mut words = [0u32; crate::MAX_WORDS];
        words[0] = w as u32;
        words[1] = (w >> 32) as u32;
        Ok(Decoded { words, len: 8, enc: f as u16, ienc: TABLES.forms[f].inst })
    })
}

/// Bits of the instruction word that the sm50 printer rules read beyond the form's fields (the
/// encoder keeps them): all of them for the families printed whole from their bits.
pub fn printed_bits(inst: &str) -> u64 {
    if video::NAMES.contains(&inst)
        || convert::NAMES.contains(&inst)
        || surface::NAMES.contains(&inst)
        || inst == "IMADSP"
    {
        u64::MAX
    } else if matches!(inst, "PEXIT" | "PLONGJMP") {
        0xff_ffff << 20
    } else if matches!(inst, "LD" | "ST") {
        7 << 58 | 0xffff_ffff << 20
    } else if matches!(inst, "ATOMS" | "ATOM" | "R2P" | "S2R" | "CS2R" | "LEA" | "LOP" | "BAR" | "XMAD" | "TXQ" | "TXD")
    {
        0x1f_ffff_ffff_ffff
    } else if matches!(inst, "TEXS" | "TLDS") {
        7 << 50 | 0xff << 28
    } else if inst.starts_with('F') || inst.starts_with('D') {
        // float immediates of the 0x38 forms: bits 20-38 and the sign in 56
        (0x7_ffff << 20) | 1 << 56
    } else {
        0
    }
}

mod alu;
mod branch;
mod convert;
mod mem;
mod reuse;
mod surface;
mod tex;
mod video;

fn fixup(ctx: &Ctx, t: &mut Text) {
    reuse::fix(ctx, t);
    if branch::fix(ctx, t) || video::fix(ctx, t) || convert::fix(ctx, t) || mem::fix(ctx, t) || surface::fix(ctx, t) || tex::fix(ctx, t) {
        return;
    }
    alu::fix(ctx, t);
}
