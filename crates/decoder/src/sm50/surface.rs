//! Surface instructions `SULD`, `SUST`, `SURED`, `SUATOM`, printed from their bits: the
//! mode bit (`.D` / `.P`) decides whether bits 20-23 are a size or a channel mask and which other
//! fields exist, which the probed templates cannot express. Layout measured on nvdisasm 12.8
//! (flipping and enumerating each field, then comparing on 2 000 random words of each opcode:
//! all equal):
//! - `Rd` 0-7 (the data register of `SUST` / `SURED`), `[Ra]` 8-15, guard 16-19, dimension
//!   33-35, clamp 49-50 (`IGN`, none, `TRAP`, `INVALIDSURFACECLAMP3`);
//! - `SULD`/`SUST`/`SURED` (bits 55-63 = 0x1d6, 53-54 = 0/1/2): `.D` when bit 52, `.BA` 23 (`.D`
//!   only), cache 24-25, `.D` size 20-22 or `.P` mask 20-23 (`R`, `G`, `B`, `A`; `.???0`; all
//!   four are not printed), `SURED` operation 24-26 and `.D` type 20-22; last operand `Rc` 39-46
//!   or a 13-bit immediate 36-48 (bit 51);
//! - `SUATOM` (0x1d4, `.CAS` forms 0x1d5): operation 29-32, `.BA` 28; bit 54 clear: `.D`, type
//!   51-53, immediate 36-48; bit 54 and 52 set: `.D`, type 36-38, `Rc`; bit 54 set, 52 clear:
//!   `.P`, `Rc` or the immediate (bit 51); operands `Rd`, `[Ra]`, `Rb` 20-27, last.

use crate::nvidia::{Ctx, Text};
use std::fmt::Write as _;

/// The instructions printed here.
pub const NAMES: [&str; 4] = ["SULD", "SUST", "SURED", "SUATOM"];

const DIM: [&str; 8] =
    ["1D", "1D_BUFFER", "1D_ARRAY", "2D", "2D_ARRAY", "3D", "INVALIDSURFACEDIM6", "INVALIDSURFACEDIM7"];
const SIZE: [&str; 8] = ["U8", "S8", "U16", "S16", "", "64", "128", "INVALIDSIZE7"];
const CLAMP: [&str; 4] = ["IGN", "", "TRAP", "INVALIDSURFACECLAMP3"];
const ATOM_OP: [&str; 9] = ["ADD", "MIN", "MAX", "INC", "DEC", "AND", "OR", "XOR", "EXCH"];
const ATOM_TYPE: [&str; 8] = ["", "S32", "U64", "F32.FTZ.RN", "INVALIDATOMICSIZE4", "S64", "SD32", "SD64"];

fn reg(v: u64) -> String {
    if v == 255 {
        "RZ".to_string()
    } else {
        format!("R{v}")
    }
}

fn push(m: &mut String, s: &str) {
    if !s.is_empty() {
        m.push('.');
        m.push_str(s);
    }
}

/// Prints a surface instruction; false (text untouched) for any other instruction.
pub fn fix(ctx: &Ctx, t: &mut Text) -> bool {
    if !NAMES.contains(&ctx.inst()) {
        return false;
    }
    let b = |o: u32, n: u32| ctx.bits(o, n);
    let w = ctx.word() as u64;
    let mut m = String::new();
    let ops = match w >> 55 {
        0x1d6 if b(53, 2) < 3 => {
            let sub = b(53, 2);
            let p = b(52, 1) == 0;
            m.push_str(["SULD", "SUST", "SURED"][sub as usize]);
            m.push_str(if p { ".P" } else { ".D" });
            if !p && b(23, 1) == 1 {
                m.push_str(".BA");
            }
            push(&mut m, DIM[b(33, 3) as usize]);
            if sub == 2 {
                push(&mut m, ATOM_OP[b(24, 3) as usize]);
                if !p {
                    push(&mut m, ATOM_TYPE[b(20, 3) as usize]);
                }
            } else {
                let cache = if sub == 0 { ["", "CG", "CI", "CV"] } else { ["", "CG", "CS", "WT"] };
                push(&mut m, cache[b(24, 2) as usize]);
                if p {
                    let mask = b(20, 4);
                    if mask == 0 {
                        m.push_str(".???0");
                    } else if mask != 15 {
                        m.push('.');
                        for (i, c) in "RGBA".chars().enumerate() {
                            if mask >> i & 1 == 1 {
                                m.push(c);
                            }
                        }
                    }
                } else {
                    push(&mut m, SIZE[b(20, 3) as usize]);
                }
            }
            push(&mut m, CLAMP[b(49, 2) as usize]);
            let last = if b(51, 1) == 1 { format!("{:#x}", b(36, 13)) } else { reg(b(39, 8)) };
            let a = format!("[{}]", reg(b(8, 8)));
            if sub == 0 {
                vec![reg(b(0, 8)), a, last]
            } else {
                vec![a, reg(b(0, 8)), last]
            }
        }
        0x1d4 | 0x1d5 => {
            let g = b(54, 1) == 1;
            let p = g && b(52, 1) == 0;
            m.push_str(if p { "SUATOM.P" } else { "SUATOM.D" });
            if !p && b(28, 1) == 1 {
                m.push_str(".BA");
            }
            push(&mut m, DIM[b(33, 3) as usize]);
            let op = b(29, 4);
            if w >> 55 == 0x1d5 {
                if op < if p { 1 } else { 2 } {
                    m.push_str(".CAS");
                } else {
                    let _ = write!(m, ".???{op}");
                }
            } else {
                match ATOM_OP.get(op as usize) {
                    Some(s) => push(&mut m, s),
                    None => {
                        let _ = write!(m, ".INVALIDATOMSOP{op}");
                    }
                }
            }
            if !p {
                push(&mut m, ATOM_TYPE[(if g { b(36, 3) } else { b(51, 3) }) as usize]);
            }
            push(&mut m, CLAMP[b(49, 2) as usize]);
            let reg_c = g && !(p && b(51, 1) == 1);
            let last = if reg_c { reg(b(39, 8)) } else { format!("{:#x}", b(36, 13)) };
            vec![reg(b(0, 8)), format!("[{}]", reg(b(8, 8))), reg(b(20, 8)), last]
        }
        _ => return false,
    };
    t.mnem = m;
    t.ops = ops;
    true
}

/// Whether nvdisasm 12.8 accepts a `SUATOM` word (bits 56-63 = 0xea) for its bits 51-55
/// (measured by enumerating them on two words): with bit 54 clear every value is an
/// instruction; with bit 54 set, bit 55 clear only sizes (51-53) 4-6, with bit 55 set only 0-2.
/// Other words are true.
#[inline(always)]
pub fn suatom_ok(w: u64) -> bool {
    if w >> 56 != 0xea || w >> 54 & 1 == 0 {
        return true;
    }
    let size = w >> 51 & 7;
    if w >> 55 & 1 == 0 {
        matches!(size, 4..=6)
    } else {
        size <= 2
    }
}
