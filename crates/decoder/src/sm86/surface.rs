//! Surface instructions (`SULD`, `SUST`, `SUATOM`, `SURED`): the mnemonic printed whole from its
//! bits (measured on nvdisasm 12.8 by flipping and enumerating each field, then compared on
//! 3 000 fuzz words per pair of mnemonics with bits 59-63, 72-75, 77-80 and 84-90 randomised:
//! no disagreement). The probed templates merge several of these fields into one spelling
//! list, which prints wrong suffixes for values the probe never combined.
//!
//! `NAME.{D|P}[.BA].<dim>[.<op>][.<evict>][.<size|type>]<semantics>[.<channels>][.<clamp>]`:
//! - `D` (formatted) / `P` (raw channels): `SULD`/`SUST` opcode low nibble (7, 8, b, c: `P`;
//!   9, a, d, e: `D`); `SUATOM`/`SURED` are always `D`;
//! - `BA` (`D` only): bit 72; dimension: bits 61-63; clamp: bits 59-60 (`IGN`, none, `TRAP`,
//!   `INVALID3`); eviction priority: bits 84-86 (as textures); memory semantics: bits 77-80;
//! - `SULD`/`SUST` `D`: size bits 73-75 (`U8`, `S8`, `U16`, `S16`, none, `64`, `128`,
//!   `INVALID7`); `P`: channel mask bits 72-75 (1 `R`, 3 `RG`, 15 none, others `INVALID<n>`);
//! - `SUATOM`: operation bits 87-90, `SURED`: bits 87-89; type bits 73-75 (`CAS`: its own table).

use crate::nvidia::{Ctx, Text};

/// Bits the surface rule reads (the encoder keeps them).
pub const BITS: u128 = 0x1f << 59 | 0xf << 72 | 0xf << 77 | 0x7f << 84;

const DIM: [&str; 8] = ["1D", "1D_BUFFER", "1D_ARRAY", "2D", "2D_ARRAY", "3D", "INVALID6", "INVALID7"];
const EVICT: [&str; 8] = ["EF", "", "EL", "LU", "EU", "NA", "INVALID6", "INVALID7"];
const SIZE: [&str; 8] = ["U8", "S8", "U16", "S16", "", "64", "128", "INVALID7"];
const CLAMP: [&str; 4] = ["IGN", "", "TRAP", "INVALID3"];
const OPS: [&str; 16] = [
    "ADD", "MIN", "MAX", "INC", "DEC", "AND", "OR", "XOR", "EXCH", "INVALID9", "INVALID10", "INVALID11",
    "INVALID12", "INVALID13", "INVALID14", "INVALID15",
];
const TYPE: [&str; 8] = ["", "S32", "U64", "F32.FTZ.RN", "F16x2.RN", "S64", "SD32", "SD64"];
const TYPE_CAS: [&str; 8] = ["", "S32", "U64", "INVALID3", "INVALID4", "INVALID5", "INVALID6", "INVALID7"];

/// Rebuilds the mnemonic of a surface instruction; other instructions are left alone.
pub fn fix(ctx: &Ctx, t: &mut Text) {
    let name = ctx.inst();
    let load_store = matches!(name, "SULD" | "SUST");
    if !load_store && !matches!(name, "SUATOM" | "SURED") {
        return;
    }
    let d = if load_store {
        match ctx.bits(0, 4) {
            7 | 8 | 0xb | 0xc => false,
            9 | 0xa | 0xd | 0xe => true,
            _ => return,
        }
    } else {
        true
    };
    let Some(sem) = super::mem::sem_table(name) else { return };
    let mut m = String::with_capacity(48);
    m.push_str(name);
    m.push_str(if d { ".D" } else { ".P" });
    let push = |m: &mut String, s: &str| {
        if !s.is_empty() {
            m.push('.');
            m.push_str(s);
        }
    };
    if d && ctx.bits(72, 1) == 1 {
        push(&mut m, "BA");
    }
    push(&mut m, DIM[ctx.bits(61, 3) as usize]);
    if !load_store {
        let cas = t.mnem.split('.').any(|p| p == "CAS");
        let op = if cas {
            "CAS"
        } else if name == "SURED" {
            OPS[ctx.bits(87, 3) as usize]
        } else {
            OPS[ctx.bits(87, 4) as usize]
        };
        push(&mut m, op);
        push(&mut m, EVICT[ctx.bits(84, 3) as usize]);
        push(&mut m, if cas { TYPE_CAS } else { TYPE }[ctx.bits(73, 3) as usize]);
    } else {
        push(&mut m, EVICT[ctx.bits(84, 3) as usize]);
        if d {
            push(&mut m, SIZE[ctx.bits(73, 3) as usize]);
        }
    }
    m.push_str(sem[ctx.bits(77, 4) as usize]);
    if load_store && !d {
        let c = ctx.bits(72, 4) as usize;
        match c {
            1 => push(&mut m, "R"),
            3 => push(&mut m, "RG"),
            15 => {}
            _ => push(&mut m, &format!("INVALID{c}")),
        }
    }
    push(&mut m, CLAMP[ctx.bits(59, 2) as usize]);
    t.mnem = m;
}

/// `ATOM` types, bits 73-76 (compare-and-swap forms: [`TYPE_ATOM_CAS`]).
const TYPE_ATOM: [&str; 16] = [
    "", "S32", "64", "F32.FTZ.RN", "F16x2.RN", "S64", "F64.RN", "INVALID7", "INVALID8", "INVALID9",
    "INVALID10", "INVALID11", "INVALID12", "INVALID13", "INVALID14", "INVALID15",
];
const TYPE_ATOM_CAS: [&str; 16] = [
    "", "S32", "64", "INVALID3", "INVALID4", "INVALID5", "INVALID6", "INVALID7", "INVALID8",
    "INVALID9", "INVALID10", "INVALID11", "INVALID12", "INVALID13", "INVALID14", "INVALID15",
];

/// Bits the `ATOM` rule reads (the encoder keeps them).
pub const ATOM_BITS: u128 = 0xf << 73 | 0xf << 77 | 0x7f << 84;

/// `ATOM[.E|.???0].<op>[.<evict>][.<type>]<semantics>`, printed whole (measured on nvdisasm 12.8
/// like the surface instructions, compared on 3 000 fuzz words with bits 72-76, 77-80, 84-90
/// randomised): the operation is bits 87-90 (as `SUATOM`; compare-and-swap forms: bits 87-88,
/// `CAS`, `CAST`, `CAS`, `CAST.SPIN`), the eviction priority bits 84-86, the type bits 73-76, the
/// memory semantics bits 77-80. The leading `.E` / `.???0` (its meaning depends on the address
/// form) is kept from the template.
pub fn atom(ctx: &Ctx, t: &mut Text) {
    if ctx.inst() != "ATOM" {
        return;
    }
    let Some(sem) = super::mem::sem_table("ATOM") else { return };
    let parts: Vec<&str> = t.mnem.split('.').collect();
    let cas = parts.iter().any(|p| matches!(*p, "CAS" | "CAST"));
    let mut m = String::with_capacity(48);
    m.push_str("ATOM");
    let push = |m: &mut String, s: &str| {
        if !s.is_empty() {
            m.push('.');
            m.push_str(s);
        }
    };
    if let Some(p) = parts.get(1).filter(|p| matches!(**p, "E" | "???0")) {
        push(&mut m, p);
    }
    let op = if cas { ["CAS", "CAST", "CAS", "CAST.SPIN"][ctx.bits(87, 2) as usize] } else { OPS[ctx.bits(87, 4) as usize] };
    push(&mut m, op);
    push(&mut m, EVICT[ctx.bits(84, 3) as usize]);
    push(&mut m, if cas { TYPE_ATOM_CAS } else { TYPE_ATOM }[ctx.bits(73, 4) as usize]);
    m.push_str(sem[ctx.bits(77, 4) as usize]);
    t.mnem = m;
}
