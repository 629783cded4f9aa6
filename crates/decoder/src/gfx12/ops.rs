//! gfx12 operand text: literals (with LLVM's `lit(...)` marker), 16-bit inline constants,
//! cache policy and other helpers shared by the gfx1201 family printers.

use crate::amd::operands::has;
use super::Op;
use crate::amd::operands::{self, Kind};
use crate::amd::print::Ctx;

/// f32 bit patterns of the inline float constants (0.5, -0.5, 1, -1, 2, -2, 4, -4, 1/(2pi)).
const F32_INLINE: [u32; 9] =
    [0x3f00_0000, 0xbf00_0000, 0x3f80_0000, 0xbf80_0000, 0x4000_0000, 0xc000_0000, 0x4080_0000, 0xc080_0000, 0x3e22_f983];
/// f16 bit patterns of the inline float constants.
const F16_INLINE: [u32; 9] = [0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400, 0x3118];
/// bf16 bit patterns of the inline float constants.
const BF16_INLINE: [u32; 9] = [0x3f00, 0xbf00, 0x3f80, 0xbf80, 0x4000, 0xc000, 0x4080, 0xc080, 0x3e22];
/// f64 high words of the inline float constants (exact ones only).
const F64_INLINE: [(u32, &str); 8] = [
    (0x3fe0_0000, "0.5"),
    (0xbfe0_0000, "-0.5"),
    (0x3ff0_0000, "1.0"),
    (0xbff0_0000, "-1.0"),
    (0x4000_0000, "2.0"),
    (0xc000_0000, "-2.0"),
    (0x4010_0000, "4.0"),
    (0xc010_0000, "-4.0"),
];

fn int_inline(x: u32) -> bool {
    (-16..=64).contains(&(x as i32))
}

fn inline32(x: u32) -> bool {
    int_inline(x) || F32_INLINE.contains(&x)
}

fn inline16(lo: u32, pats: &[u32; 9]) -> bool {
    (-16..=64).contains(&(lo as u16 as i16)) || pats.contains(&lo)
}

/// Appends a 32-bit literal as LLVM 22 prints it for gfx12: `lit(0x..)` when the value could have
/// been an inline constant of the operand's type, the float text for exact f64 constants.
pub fn literal(out: &mut String, lit: u32, kind: Kind) {
    if kind == Kind::F64 {
        if let Some((_, t)) = F64_INLINE.iter().find(|e| e.0 == lit) {
            out.push_str(t);
            return;
        }
    }
    let (is_lit, shown) = literal_form(lit, kind);
    if is_lit {
        out.push_str("lit(");
        crate::amd::operands::put_hex(out, lit);
        out.push(')');
    } else {
        crate::amd::operands::put_hex(out, shown);
    }
}

/// Whether [`literal`] marks `lit` with `lit(...)` (LLVM negates such a literal with `-`, a
/// bare one with `neg(...)`), and the value it shows otherwise.
pub fn literal_form(lit: u32, kind: Kind) -> (bool, u32) {
    let lo = lit & 0xffff;
    match kind {
        Kind::F64 => (false, lit),
        Kind::I64 => (lit <= 64, lit),
        Kind::F16 => (inline16(lo, &F16_INLINE), lo),
        Kind::I16 => (inline32(lit), lo),
        Kind::PkF16 => (int_inline(lit) || (lit >> 16 == 0 && F16_INLINE.contains(&lo)), lit),
        Kind::BF16 => (int_inline(lit) || (lit >> 16 == 0 && BF16_INLINE.contains(&lo)), lit),
        Kind::PkI16 | Kind::I32 | Kind::F32 => (inline32(lit), lit),
    }
}

/// Whether a literal of a `v_dot2_*` DPP source (packed 16-bit halves) prints as `lit(...)`:
/// when its low half is an inline constant of the halves' type (the whole dword shows either
/// way).
pub fn dot2_dpp_literal_is_lit(lit: u32, kind: Kind) -> bool {
    inline16(lit & 0xffff, if kind == Kind::BF16 { &BF16_INLINE } else { &F16_INLINE })
}

/// Appends a 9-bit source operand (SGPR, VGPR, inline constant or literal) in gfx12 syntax.
#[inline]
pub fn src(c: &Ctx<'_, Op>, out: &mut String, v: u32, size: u16, kind: Kind) {
    c.note_tuple(v, size);
    // Registers and inline integers of 32-bit operands: one name-table entry (the values below
    // print otherwise and have none).
    if size <= 32 {
        match c.names.src32.get(v as usize) {
            Some(&p) if p != 0 => return operands::put_packed(out, p),
            _ => {}
        }
    }
    src_slow(c, out, v, size, kind)
}

/// [`src`] of what the name table does not hold.
#[inline(never)]
fn src_slow(c: &Ctx<'_, Op>, out: &mut String, v: u32, size: u16, kind: Kind) {
    match v {
        255 => literal(out, c.lit, kind),
        230 => out.push_str("src_flat_scratch_base_lo"),
        231 => out.push_str("src_flat_scratch_base_hi"),
        240..=248 if kind == Kind::I16 => {
            crate::amd::operands::put_hex(out, F16_INLINE[(v - 240) as usize]);
        }
        _ => operands::src(out, c.names, v, size, kind, c.lit),
    }
}

/// Appends a source with float modifiers `-x`, `|x|`.
pub fn src_mods(c: &Ctx<'_, Op>, out: &mut String, v: u32, size: u16, kind: Kind, neg: bool, abs: bool) {
    if neg {
        out.push('-');
    }
    if abs {
        out.push('|');
    }
    src(c, out, v, size, kind);
    if abs {
        out.push('|');
    }
}

/// What a memory instruction does, for its cache-policy names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemKind {
    /// Loads (and everything that is neither a store nor an atomic).
    Load,
    /// Stores.
    Store,
    /// Atomics.
    Atomic,
}

impl MemKind {
    /// Classifies by mnemonic.
    pub fn of(m: &str) -> MemKind {
        if has(m, "atomic") {
            MemKind::Atomic
        } else if has(m, "store") {
            MemKind::Store
        } else {
            MemKind::Load
        }
    }
}

/// Appends ` th:...` and ` scope:...` (gfx12 cache policy) when not default.
pub fn cache_policy(out: &mut String, kind: MemKind, th: u32, scope: u32) {
    let th = th & 7;
    let scope = scope & 3;
    if th != 0 {
        out.push_str(" th:");
        let name = match kind {
            MemKind::Load => match th {
                1 => "TH_LOAD_NT",
                2 => "TH_LOAD_HT",
                3 if scope == 3 => "TH_LOAD_BYPASS",
                3 => "TH_LOAD_LU",
                4 => "TH_LOAD_NT_RT",
                5 => "TH_LOAD_RT_NT",
                6 => "TH_LOAD_NT_HT",
                _ => "",
            },
            MemKind::Store => match th {
                1 => "TH_STORE_NT",
                2 => "TH_STORE_HT",
                3 if scope == 3 => "TH_STORE_BYPASS",
                3 => "TH_STORE_WB",
                4 => "TH_STORE_NT_RT",
                5 => "TH_STORE_RT_NT",
                6 => "TH_STORE_NT_HT",
                _ => "TH_STORE_NT_WB",
            },
            MemKind::Atomic => match th {
                1 => "TH_ATOMIC_RETURN",
                2 => "TH_ATOMIC_NT",
                3 => "TH_ATOMIC_NT_RETURN",
                4 | 5 if scope >= 2 => "TH_ATOMIC_CASCADE_RT",
                6 | 7 if scope >= 2 => "TH_ATOMIC_CASCADE_NT",
                _ => "",
            },
        };
        if name.is_empty() {
            if kind == MemKind::Atomic {
                out.push_str("TH_ATOMIC_");
                crate::amd::operands::put_hex(out, th);
            } else {
                crate::amd::operands::put_hex(out, th);
            }
        } else {
            out.push_str(name);
        }
    }
    if scope != 0 {
        out.push_str(" scope:");
        out.push_str(["", "SCOPE_SE", "SCOPE_DEV", "SCOPE_SYS"][scope as usize]);
    }
}

/// Appends `-0x..` or `0x..` of a signed value.
pub fn signed_hex(out: &mut String, v: i32) {
    if v < 0 {
        out.push('-');
        crate::amd::operands::put_hex(out, -(v as i64));
    } else {
        crate::amd::operands::put_hex(out, v);
    }
}

/// Sign-extends the low `bits` of `v`.
pub fn sext(v: u32, bits: u32) -> i32 {
    let s = 32 - bits;
    ((v << s) as i32) >> s
}

/// Separator before operand `k` (a space, then commas).
pub fn sep(out: &mut String, k: &mut usize) {
    crate::amd::operands::sep(out, *k);
    *k += 1;
}
