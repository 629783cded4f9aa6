//! Video (SIMD-within-a-register) instructions: `VMAD`, `VADD`, `VABSDIFF`, `VMNMX`, `VSET`,
//! `VSETP`, `VSHL`, `VSHR`, `VABSDIFF4`.
//!
//! Their operand selectors and type suffixes are one 3-bit field per source whose meaning depends
//! on its value (byte, half or word), the immediate's sign depends on a type bit, and the default
//! type pair is left out; the probed templates cannot say that, so these instructions are printed
//! from their bits. Layout measured on nvdisasm 12.8 (flipping and enumerating each field, then
//! comparing with nvdisasm on 4 000 random words of each opcode: all equal):
//! - `Rd` 0-7, `Ra` 8-15, guard 16-19, `Rb` 20-27 or a 16-bit immediate 20-35 (bit 50 clear),
//!   `Rc` 39-46, `.CC` 47;
//! - selector of a: bits 36-38, of b: bits 28-30 (0-3: byte `.B<n>` of an 8-bit type, 4-5: half
//!   `.H<n>` of a 16-bit type, 6: 32-bit, 7: `INVALIDSEL6/7`); sign of a: bit 48, of b: bit 49;
//! - `S32.S32` (`S32.S16` with an immediate) is the default pair, not printed.

use crate::nvidia::{Ctx, Text};
use std::fmt::Write as _;

/// The instructions printed here.
pub const NAMES: [&str; 9] = ["VMAD", "VADD", "VABSDIFF", "VABSDIFF4", "VMNMX", "VSET", "VSETP", "VSHL", "VSHR"];

/// Merge / accumulate modes of bits 51-53.
const MRG: [&str; 8] = [".MRG_16H", ".MRG_16L", ".MRG_8B0", ".MRG_8B2", ".ACC", ".MIN", ".MAX", ""];
/// Comparisons.
const CMP: [&str; 8] = [".F", ".LT", ".EQ", ".LE", ".GT", ".NE", ".GE", ".T"];
/// `VSETP` predicate combination.
const BOP: [&str; 4] = [".AND", ".OR", ".XOR", ".INVALIDBOP3"];
/// `VABSDIFF4` byte selectors of a (bits 32-35) and b (bits 28-31; 15: 8-bit immediate).
const ASEL4: [&str; 16] = [
    ".0000", ".1111", ".2222", ".3333", "", ".4321", ".5432", ".6543", ".3201", ".3012", ".0213", ".3120", ".1230",
    ".2310", ".INVALIDASEL4E", ".INVALIDASEL4F",
];
const BSEL4: [&str; 15] = [
    ".4444", ".5555", ".6666", ".7777", "", ".6543", ".5432", ".4321", ".4567", ".6745", ".5476", ".INVALIDBSEL4B",
    ".INVALIDBSEL4C", ".INVALIDBSEL4D", ".INVALIDBSEL4E",
];
/// `VABSDIFF4` reduction.
const RED: [&str; 4] = ["", ".ACC", ".INVALIDRED2", ".INVALIDRED3"];

/// Which video instruction a word is, by its opcode bits (every word nvdisasm accepts with these
/// bits is that instruction).
pub(crate) fn which(w: u64) -> Option<&'static str> {
    Some(match w >> 51 {
        x if x >> 5 == 0x5f => "VMAD",
        x if x >> 7 == 0x08 => "VADD",
        x if x >> 6 == 0x1d => "VMNMX",
        x if x >> 6 == 0x20 => "VSET",
        0xa1e => "VSETP",
        x if x >> 5 == 0x54 => "VABSDIFF",
        x if x >> 5 == 0x57 => "VSHL",
        x if x >> 5 == 0x56 => "VSHR",
        x if x >> 4 == 0xa0 => "VABSDIFF4",
        _ => return None,
    })
}

/// Prints a video instruction; false (text untouched) for any other instruction.
pub fn fix(ctx: &Ctx, t: &mut Text) -> bool {
    if !NAMES.contains(&ctx.inst()) {
        return false;
    }
    let w = ctx.word() as u64;
    let Some(name) = which(w) else { return false };
    let b = |o: u32, n: u32| ctx.bits(o, n);
    let mut ops: Vec<String> = Vec::with_capacity(5);
    let mut m = String::from(name);
    let mut reuse_slots = [false; 3]; // operands that are registers of slots a, b, c
    if name == "VABSDIFF4" {
        let (sa, sb) = (b(48, 1), b(49, 1));
        if b(38, 1) == 1 {
            m.push_str(".SD");
        }
        if sa == 0 || sb == 0 {
            let _ = write!(m, ".{}8.{}8", if sa == 1 { 'S' } else { 'U' }, if sb == 1 { 'S' } else { 'U' });
        }
        let mask = b(51, 2) | b(36, 2) << 2;
        if b(50, 1) == 1 {
            m.push_str(".SAT");
        }
        m.push_str(RED[b(53, 2) as usize]);
        if mask == 0 {
            m.push_str(".???0");
        } else if mask != 15 {
            m.push('.');
            for (i, c) in "XYZW".chars().enumerate() {
                if mask >> i & 1 == 1 {
                    m.push(c);
                }
            }
        }
        ops.push(dest(ctx));
        ops.push(reg(b(8, 8)) + ASEL4[b(32, 4) as usize]);
        let bsel = b(28, 4) as usize;
        match BSEL4.get(bsel) {
            Some(s) => {
                ops.push(reg(b(20, 8)) + s);
                reuse_slots[1] = true;
            }
            None => {
                let v = b(20, 8);
                ops.push(if sb == 1 && v >= 0x80 { format!("-{:#x}", 0x100 - v) } else { format!("{v:#x}") });
            }
        }
        ops.push(reg(b(39, 8)));
        reuse_slots[0] = true;
        reuse_slots[2] = true;
    } else {
        let shift = matches!(name, "VSHL" | "VSHR");
        let signed_imm = matches!(name, "VMNMX" | "VSET" | "VSETP" | "VABSDIFF");
        let (a, bop, ty) = sources(ctx, signed_imm, shift, name != "VSETP");
        reuse_slots = [true, b(50, 1) == 1, name != "VSETP"];
        let mode = b(56, 2);
        let (mut a, mut bop) = (a, bop);
        match name {
            "VMAD" => {
                let mm = b(53, 2);
                m.push_str(&ty);
                if mm == 3 {
                    m.push_str(".PO");
                }
                m.push_str(["", ".SHR_7", ".SHR_15", ".INVALIDVMADSCALE3"][b(51, 2) as usize]);
                if b(55, 1) == 1 {
                    m.push_str(".SAT");
                }
                if mm == 2 {
                    a.insert(0, '-');
                }
                ops.push(dest(ctx));
                ops.push(a);
                ops.push(bop);
                ops.push(format!("{}{}", if mm == 1 { "-" } else { "" }, reg(b(39, 8))));
            }
            "VSETP" => {
                let cmp = b(43, 2) | b(47, 1) << 2;
                m.push_str(CMP[cmp as usize]);
                m.push_str(&ty);
                m.push_str(BOP[b(45, 2) as usize]);
                ops.push(pred(b(3, 3)));
                ops.push(pred(b(0, 3)));
                ops.push(a);
                ops.push(bop);
                ops.push(format!("{}{}", if b(42, 1) == 1 { "!" } else { "" }, pred(b(39, 3))));
            }
            _ => {
                match name {
                    "VADD" => {
                        if b(54, 1) == 0 {
                            m.push_str(".UD");
                        }
                        m.push_str(&ty);
                        if mode == 3 {
                            m.push_str(".PO");
                        }
                        if mode == 2 {
                            a.insert(0, '-');
                        }
                        if mode == 1 {
                            bop.insert(0, '-');
                        }
                    }
                    "VMNMX" => {
                        if b(54, 1) == 0 {
                            m.push_str(".UD");
                        }
                        m.push_str(&ty);
                        if b(56, 1) == 1 {
                            m.push_str(".MX");
                        }
                    }
                    "VSET" => {
                        m.push_str(CMP[b(54, 3) as usize]);
                        m.push_str(&ty);
                    }
                    "VABSDIFF" => {
                        if b(54, 1) == 1 {
                            m.push_str(".SD");
                        }
                        m.push_str(&ty);
                    }
                    _ => {
                        // VSHL / VSHR: bit 49 is `.W`, not b's sign.
                        if b(54, 1) == 0 {
                            m.push_str(".UD");
                        }
                        m.push_str(&ty);
                        if b(49, 1) == 1 {
                            m.push_str(".W");
                        }
                    }
                }
                if name != "VSET" && b(55, 1) == 1 {
                    m.push_str(".SAT");
                }
                m.push_str(MRG[b(51, 3) as usize]);
                ops.push(dest(ctx));
                ops.push(a);
                ops.push(bop);
                ops.push(reg(b(39, 8)));
            }
        }
    }
    // Reuse flags: slot k is source operand k (after the destination), when it is a register.
    let first = if name == "VSETP" { 2 } else { 1 };
    for (k, on) in reuse_slots.iter().enumerate() {
        if *on && ctx.reuse >> k & 1 == 1 {
            if let Some(o) = ops.get_mut(first + k) {
                o.push_str(".reuse");
            }
        }
    }
    t.guard.clear();
    guard(ctx, &mut t.guard);
    t.mnem = m;
    t.ops = ops;
    true
}

fn reg(v: u64) -> String {
    if v == 255 {
        "RZ".to_string()
    } else {
        format!("R{v}")
    }
}

fn pred(v: u64) -> String {
    if v == 7 {
        "PT".to_string()
    } else {
        format!("P{v}")
    }
}

fn dest(ctx: &Ctx) -> String {
    let mut d = reg(ctx.bits(0, 8));
    if ctx.bits(47, 1) == 1 {
        d.push_str(".CC");
    }
    d
}

fn guard(ctx: &Ctx, out: &mut String) {
    let (p, n) = (ctx.bits(16, 3), ctx.bits(19, 1));
    if p == 7 && n == 0 {
        return;
    }
    out.push('@');
    if n == 1 {
        out.push('!');
    }
    if p == 7 {
        out.push_str("PT ");
    } else {
        let _ = write!(out, "P{p} ");
    }
}

/// Type and selector of one source from its 3-bit selector `v` and sign bit; `inv` is the
/// number nvdisasm gives an invalid selector (6 + sign, 7 for a shift amount).
fn sel(v: u64, signed: u64, inv: u64) -> (String, &'static str) {
    let s = if signed == 1 { 'S' } else { 'U' };
    match v {
        0 => (format!("{s}8"), ""),
        1 => (format!("{s}8"), ".B1"),
        2 => (format!("{s}8"), ".B2"),
        3 => (format!("{s}8"), ".B3"),
        4 => (format!("{s}16"), ""),
        5 => (format!("{s}16"), ".H1"),
        6 => (format!("{s}32"), ""),
        _ => (format!("INVALIDSEL{}", 6 + inv), ""),
    }
}

/// Operands a and b and the type pair (empty when it is the default one).
fn sources(ctx: &Ctx, signed_imm: bool, shift: bool, imm_default: bool) -> (String, String, String) {
    let b = |o: u32, n: u32| ctx.bits(o, n);
    let (ta, xa) = sel(b(36, 3), b(48, 1), b(48, 1));
    let breg = b(50, 1) == 1;
    let bs = if shift { 0 } else { b(49, 1) };
    let (tb, bop) = if breg {
        let (tb, xb) = sel(b(28, 3), bs, if shift { 1 } else { bs });
        (tb, reg(b(20, 8)) + xb)
    } else {
        let v = b(20, 16);
        let s = if signed_imm && bs == 1 && v >= 0x8000 { format!("-{:#x}", 0x10000 - v) } else { format!("{v:#x}") };
        ((if bs == 1 { "S16" } else { "U16" }).to_string(), s)
    };
    let default = ta == "S32"
        && (if breg { tb == "S32" || (shift && tb == "U32") } else { imm_default && (tb == "S16" || (shift && tb == "U16")) });
    let ty = if default { String::new() } else { format!(".{ta}.{tb}") };
    (reg(b(8, 8)) + xa, bop, ty)
}
