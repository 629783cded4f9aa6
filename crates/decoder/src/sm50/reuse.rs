//! Operand reuse flags (bits 17-20 of an instruction's control bits) as nvdisasm prints them.
//!
//! Measured on nvdisasm 12.8 by setting each of the four flags in turn on every fuzz-set word
//! (slot 0 of a bundle) and noting which register gains `.reuse`:
//! - only the instructions of [`PRINTS_REUSE`] print `.reuse`; flag k marks the source register
//!   field at bit 8 (k = 0), 20 (k = 1) or 39 (k = 2); flag 3 is never printed;
//! - `FADD`, `DADD`, `FSWZADD` (register forms): the field at bit 20 is flag 2;
//! - the forms whose constant-bank operand comes last (bits 56-63 = 0x51, 0x53: `FFMA`, `DFMA`,
//!   `XMAD`, `BFI`, `FCMP`, `ICMP`, `PRMT`): the field at bit 39, printed second, is flag 1;
//! - a destination printed again as the last source (`FFMA32I R7, R3, 0x1, R7`) is flag 2;
//! - texture instructions ([`PHASE`]) print flags 0-1 as a phase suffix at the end of the
//!   mnemonic: `.T`, `.P`, `.INVALIDPHASE3`.

use crate::nvidia::{count_bytes, find_bytes, remove_all, Ctx, Text};
use crate::spec::{NvKind, NvPiece};

/// Instructions that print `.reuse` (every other one ignores the flags), sorted (binary search).
pub const PRINTS_REUSE: [&str; 49] = [
    "BFE", "BFI", "DADD", "DFMA", "DMUL", "FADD", "FADD32I", "FCHK", "FCMP", "FFMA", "FFMA32I", "FMNMX", "FMUL",
    "FMUL32I", "FSET", "FSETP", "FSWZADD", "IADD", "IADD3", "IADD32I", "ICMP", "IMNMX", "ISCADD", "ISCADD32I", "ISET",
    "ISETP", "LEA", "LOP", "LOP3", "LOP32I", "MOV", "P2R", "PRMT", "R2P", "RRO", "SEL", "SHF", "SHL", "SHR", "VABSDIFF",
    "VABSDIFF4", "VADD", "VMAD", "VMNMX", "VSET", "VSETP", "VSHL", "VSHR", "XMAD",
];

/// Instructions that print flags 0-1 as a phase suffix.
pub const PHASE: [&str; 11] = ["TEX", "TEXS", "TLD", "TLD4", "TLD4S", "TLDS", "TMML", "TXA", "TXD", "TXQ", "STP"];

/// Re-places `.reuse` by the sm50 rules (the generic printer marks fields by bit offset only).
/// Runs first, while the operands are still the template's.
pub fn fix(ctx: &Ctx, t: &mut Text) {
    let name = ctx.inst();
    let had = t.ops.iter().any(|o| find_bytes(o, b".reuse").is_some());
    if had {
        for o in t.ops.iter_mut() {
            remove_all(o, ".reuse");
        }
    }
    if ctx.reuse == 0 {
        return;
    }
    if (name.starts_with('T') || name == "STP") && PHASE.contains(&name) {
        t.mnem.push_str(["", ".T", ".P", ".INVALIDPHASE3"][ctx.reuse as usize & 3]);
        return;
    }
    if PRINTS_REUSE.binary_search(&name).is_err() {
        return;
    }
    let prefix = ctx.bits(56, 8);
    let mut op: i32 = -1; // operand index of the next piece; -1 inside the mnemonic
    let mut marked = [false; 8];
    for p in ctx.form.pieces() {
        match p {
            NvPiece::Lit(s) => {
                if op < 0 {
                    if s.contains(' ') {
                        op = 0;
                        op += count_bytes(&s[s.find(' ').unwrap_or(0)..], b", ") as i32;
                    }
                } else {
                    op += count_bytes(s, b", ") as i32;
                }
            }
            NvPiece::Field(i) => {
                let f = &ctx.form.fields[i as usize];
                if op < 0 || f.kind != NvKind::Reg {
                    continue;
                }
                let off = f.ranges().first().map(|r| r.0).unwrap_or(0);
                // (a register at bit 0 after predicate destinations only is the destination:
                // `LEA.HI P0, R13, ..`, `LOP.AND P0, R6, ..` print no `.reuse` on it)
                let dest = t.ops.iter().take(op.max(0) as usize).all(|o| o.trim_start_matches('!').starts_with('P'));
                let slot = match off {
                    0 if op > 0 && !dest => 2,
                    8 => 0,
                    20 if matches!(name, "FADD" | "DADD" | "FSWZADD") => 2,
                    20 => 1,
                    39 if matches!(prefix, 0x51 | 0x53) => 1,
                    39 => 2,
                    _ => continue,
                };
                let k = op as usize;
                if ctx.reuse >> slot & 1 == 1 && k < marked.len() && !marked[k] {
                    marked[k] = true;
                    if let Some(o) = t.ops.get_mut(k) {
                        mark(o);
                    }
                }
            }
        }
    }
}

/// Appends `.reuse` after the operand's register, its `.H1`-style suffixes and a closing `|`.
fn mark(o: &mut String) {
    let b = o.as_bytes();
    let Some(mut j) = (0..b.len()).find(|&i| {
        b[i] == b'R'
            && (i == 0 || !b[i - 1].is_ascii_alphanumeric())
            && b.get(i + 1).is_some_and(|c| c.is_ascii_digit() || *c == b'Z')
    }) else {
        return;
    };
    j += 1;
    while j < b.len() && (b[j].is_ascii_digit() || b[j] == b'Z') {
        j += 1;
    }
    loop {
        if j + 1 < b.len() && b[j] == b'.' && b[j + 1].is_ascii_uppercase() {
            j += 1;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                j += 1;
            }
            continue;
        }
        if j < b.len() && b[j] == b'|' {
            j += 1;
            continue;
        }
        break;
    }
    o.insert_str(j, ".reuse");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `fix` looks names up by binary search and checks the phase list only for names
    /// starting with `T` or `STP`.
    #[test]
    fn name_lists_fit_their_lookups() {
        assert!(PRINTS_REUSE.windows(2).all(|w| w[0] < w[1]));
        assert!(PHASE.iter().all(|p| p.starts_with('T') || *p == "STP"));
    }
}
