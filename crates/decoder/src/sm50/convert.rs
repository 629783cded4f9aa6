//! Conversions `F2F`, `F2I`, `I2F`, `I2I` (register, constant-bank and immediate forms).
//!
//! Their type suffixes are 2-bit size fields plus sign bits whose spellings depend on each other
//! (`F2F` prints `PASS` or `ROUND`/`FLOOR`/... instead of a rounding mode when both types are
//! equal), the source selector means a byte or a half depending on the source size, and the
//! immediate operand carries its modifiers as suffixes (`-0x1674b.NEG.ABS.B1`). The probed
//! templates cannot say that, so these instructions are printed from their bits. Layout measured
//! on nvdisasm 12.8 (flipping and enumerating each field, then comparing with nvdisasm on 2 000
//! random words of each form: all equal, float immediates aside, which use `nvidia::float`):
//! - `Rd` 0-7, destination size 8-9 and sign 12, source size 10-11 and sign 13, guard 16-19;
//! - source: `Rb` 20-27 (bits 57-63 = 0x2e), `c[bank 34-38][signed offset 20-33 x 4]` (0x26),
//!   or a 20-bit immediate 20-38 with its top bit in 56 (0x1c);
//! - rounding 39-40 (`F2F` same-type: bit 42 selects `ROUND`..`TRUNC`), selector 41-42, `FTZ`
//!   44, negate 45, `.CC` 47, absolute value 49, `SAT` 50 (`F2F`, `I2I`).

use crate::nvidia::{float, Ctx, Text};
use std::fmt::Write as _;

/// The instructions printed here.
pub const NAMES: [&str; 4] = ["F2F", "F2I", "I2F", "I2I"];

const FSRC: [&str; 4] = ["INVALIDFPSRC0", "F16", "F32", "F64"];
const FDST: [&str; 4] = ["INVALIDFPDEST0", "F16", "F32", "F64"];
const BSEL: [&str; 4] = ["", ".B1", ".B2", ".B3"];
const HSEL: [&str; 4] = ["", ".INVALIDSIZE1", ".H1", ".INVALIDSIZE3"];

/// Which conversion a word is, by its opcode bits 51-55 and 57-63 (every word nvdisasm accepts
/// with these bits is that instruction).
pub(crate) fn which(w: u64) -> Option<(&'static str, u8)> {
    let name = match w >> 51 & 0x1f {
        0x15 => "F2F",
        0x16 => "F2I",
        0x17 => "I2F",
        0x1c => "I2I",
        _ => return None,
    };
    let kind = match w >> 57 {
        0x2e if w >> 56 & 1 == 0 => b'r',
        0x26 if w >> 56 & 1 == 0 => b'c',
        0x1c => b'i',
        _ => return None,
    };
    Some((name, kind))
}

fn int_type(size: u64, signed: u64) -> String {
    format!("{}{}", if signed == 1 { 'S' } else { 'U' }, [8, 16, 32, 64][size as usize & 3])
}

/// Prints a conversion; false (text untouched) for any other instruction.
pub fn fix(ctx: &Ctx, t: &mut Text) -> bool {
    if !NAMES.contains(&ctx.inst()) {
        return false;
    }
    let w = ctx.word() as u64;
    let Some((name, kind)) = which(w) else { return false };
    let b = |o: u32, n: u32| ctx.bits(o, n);
    let (dsz, ssz, dsg, ssg) = (b(8, 2), b(10, 2), b(12, 1), b(13, 1));
    let rnd = b(39, 2) as usize;
    let s = b(41, 2) as usize;
    let mut m = String::from(name);
    if matches!(name, "F2F" | "F2I") && b(44, 1) == 1 {
        m.push_str(".FTZ");
    }
    let (sel, space) = match name {
        "F2F" => {
            let _ = write!(m, ".{}.{}", FDST[dsz as usize], FSRC[ssz as usize]);
            if dsz == ssz {
                if b(42, 1) == 1 {
                    m.push_str([".ROUND", ".FLOOR", ".CEIL", ".TRUNC"][rnd]);
                } else if rnd != 0 {
                    m.push_str(".PASS");
                }
            } else {
                m.push_str(["", ".RM", ".RP", ".RZ"][rnd]);
            }
            (if ssz == 1 && s & 1 == 1 { ".H1" } else { "" }, ssz == 1)
        }
        "F2I" => {
            if dsz == 0 {
                let _ = write!(m, ".INVALID{dsg}");
            } else {
                let _ = write!(m, ".{}", int_type(dsz, dsg));
            }
            let _ = write!(m, ".{}", FSRC[ssz as usize]);
            m.push_str(["", ".FLOOR", ".CEIL", ".TRUNC"][rnd]);
            (if s & 1 == 1 { ".H1" } else { "" }, true)
        }
        "I2F" => {
            let _ = write!(m, ".{}.{}", FSRC[dsz as usize], int_type(ssz, ssg));
            m.push_str(["", ".RM", ".RP", ".RZ"][rnd]);
            (if ssz == 1 { HSEL[s] } else { BSEL[s] }, true)
        }
        _ => {
            if dsz == 3 {
                let _ = write!(m, ".???{}", 6 + dsg);
            } else {
                let _ = write!(m, ".{}", int_type(dsz, dsg));
            }
            if ssz == 3 {
                let _ = write!(m, ".INVALID{}", 6 + ssg);
            } else {
                let _ = write!(m, ".{}", int_type(ssz, ssg));
            }
            (if ssz == 1 { HSEL[s] } else { BSEL[s] }, true)
        }
    };
    if matches!(name, "F2F" | "I2I") && b(50, 1) == 1 {
        m.push_str(".SAT");
    }
    let (neg, abs) = (b(45, 1) == 1, b(49, 1) == 1);
    let mut src = String::new();
    if kind == b'i' {
        let v = b(20, 19) | b(56, 1) << 19;
        if matches!(name, "F2F" | "F2I") {
            let (m19, sign) = (b(20, 19), b(56, 1));
            match ssz {
                3 => float::push_f64_bits(&mut src, (sign << 63) | (m19 << 44)),
                1 => float::push_f16_bits(&mut src, b(20, 16) as u16),
                _ => float::push_f32_bits(&mut src, ((sign << 31) | (m19 << 12)) as u32),
            }
            // A NaN of a half or single source prints as `QNAN`, signalling or not; a double
            // keeps `SNAN` (measured on F2F / F2I words with each source size).
            if ssz != 3 && src.contains("SNAN") {
                src = src.replace("SNAN", "QNAN");
            }
        } else if v >= 0x8_0000 {
            let _ = write!(src, "-{:#x}", 0x10_0000 - v);
        } else {
            let _ = write!(src, "{v:#x}");
        }
        if neg {
            src.push_str(".NEG");
        }
        if abs {
            src.push_str(".ABS");
        }
        src.push_str(sel);
    } else {
        if neg {
            src.push('-');
        }
        if abs {
            src.push('|');
        }
        if kind == b'r' {
            let r = b(20, 8);
            if r == 255 {
                src.push_str("RZ");
            } else {
                let _ = write!(src, "R{r}");
            }
        } else {
            let off = b(20, 14) << 2;
            let _ = write!(src, "c[{:#x}]{}", b(34, 5), if space { " " } else { "" });
            if off >= 0x8000 {
                let _ = write!(src, "[-{:#x}]", 0x1_0000 - off);
            } else {
                let _ = write!(src, "[{off:#x}]");
            }
        }
        src.push_str(sel);
        if abs {
            src.push('|');
        }
    }
    let mut d = String::new();
    let r = b(0, 8);
    if r == 255 {
        d.push_str("RZ");
    } else {
        let _ = write!(d, "R{r}");
    }
    if b(47, 1) == 1 {
        d.push_str(".CC");
    }
    t.mnem = m;
    t.ops = vec![d, src];
    true
}
