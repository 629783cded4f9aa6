//! Operand printing shared by the AMD generations (LLVM AMDGPU syntax).

use std::fmt::Write as _;

/// How a source operand's constants print: LLVM chooses by the operand's data type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// 16-bit float (also packed f16 and bf16 treated as f16 text).
    F16,
    /// 32-bit float.
    F32,
    /// 64-bit float.
    F64,
    /// 16-bit integer.
    I16,
    /// 32-bit integer or untyped.
    I32,
    /// 64-bit integer.
    I64,
    /// Packed 2 x 16-bit integer.
    PkI16,
    /// Packed 2 x f16.
    PkF16,
    /// bf16 (gfx12).
    BF16,
}

impl Kind {
    /// The kind of a DataFormatName.
    pub fn of(fmt: &str, size: u16) -> Kind {
        let k = match fmt {
            f if f.contains("PK2_F16") => Kind::PkF16,
            f if f.contains("PK2_BF16") => Kind::PkI16,
            f if f.contains("PK2") => Kind::PkI16,
            f if f.contains("BF16") => Kind::BF16,
            f if f.contains("F16") => Kind::F16,
            f if f.contains("F32") => Kind::F32,
            f if f.contains("F64") => Kind::F64,
            f if f.ends_with("16") => Kind::I16,
            f if f.ends_with("64") => Kind::I64,
            _ => Kind::I32,
        };
        match (k, size) {
            (Kind::I32, 64) => Kind::I64,
            _ => k,
        }
    }

    /// True for float kinds (neg/abs print as `-` and `|x|`).
    pub fn is_float(self) -> bool {
        matches!(self, Kind::F16 | Kind::F32 | Kind::F64 | Kind::PkF16 | Kind::BF16)
    }
}

/// Appends `v5` or `v[5:6]`.
pub fn reg(out: &mut String, prefix: &str, n: u32, size_bits: u16) {
    let cnt = (size_bits as u32).div_ceil(32).max(1);
    if cnt == 1 {
        let _ = write!(out, "{prefix}{n}");
    } else {
        let _ = write!(out, "{prefix}[{}:{}]", n, n + cnt - 1);
    }
}

/// Appends a vector register (range).
pub fn vgpr(out: &mut String, n: u32, size_bits: u16) {
    reg(out, "v", n, size_bits)
}

/// Scalar register numbering of one generation.
#[derive(Debug, Clone, Copy)]
pub struct ScalarNames {
    /// First trap temporary (ttmp0).
    pub ttmp_base: u32,
    /// Encoding of `null`.
    pub null: u32,
    /// Encoding of m0.
    pub m0: u32,
}

/// gfx10 numbering.
pub const GFX10_SCALARS: ScalarNames = ScalarNames { ttmp_base: 108, null: 125, m0: 124 };
/// gfx12 numbering (m0 and null swapped relative to gfx10).
pub const GFX12_SCALARS: ScalarNames = ScalarNames { ttmp_base: 108, null: 124, m0: 125 };

/// Appends a scalar operand 0..=127 (SGPRs, specials) of `size_bits`.
pub fn sreg(out: &mut String, names: &ScalarNames, v: u32, size_bits: u16) {
    let wide = size_bits > 32;
    match v {
        0..=105 => reg(out, "s", v, size_bits),
        106 => out.push_str(if wide { "vcc" } else { "vcc_lo" }),
        107 => out.push_str("vcc_hi"),
        x if x >= names.ttmp_base && x < names.ttmp_base + 16 => {
            let n = x - names.ttmp_base;
            let cnt = (size_bits as u32).div_ceil(32).max(1);
            if cnt == 1 {
                let _ = write!(out, "ttmp{n}");
            } else {
                let _ = write!(out, "ttmp[{}:{}]", n, n + cnt - 1);
            }
        }
        x if x == names.m0 => out.push_str("m0"),
        x if x == names.null => out.push_str("null"),
        126 => out.push_str(if wide { "exec" } else { "exec_lo" }),
        127 => out.push_str("exec_hi"),
        _ => {
            let _ = write!(out, "{v}");
        }
    }
}

/// The text of an inline float constant (encodings 240..=248) for a kind.
pub fn inline_float(v: u32, kind: Kind) -> Option<&'static str> {
    Some(match v {
        240 => "0.5",
        241 => "-0.5",
        242 => "1.0",
        243 => "-1.0",
        244 => "2.0",
        245 => "-2.0",
        246 => "4.0",
        247 => "-4.0",
        248 => match kind {
            Kind::F64 => "0.15915494309189532",
            _ => "0.15915494",
        },
        _ => return None,
    })
}

/// Appends a 32-bit literal the way LLVM prints it for the operand kind.
pub fn literal(out: &mut String, lit: u32, kind: Kind) {
    match kind {
        Kind::F16 | Kind::I16 | Kind::BF16 => {
            let _ = write!(out, "0x{:x}", lit & 0xffff);
        }
        _ => {
            let _ = write!(out, "0x{lit:x}");
        }
    }
}

/// Appends a 9-bit (VOP) or 8-bit (SOP) source operand value `v` of `size_bits`.
/// `lit` is the instruction's literal dword (used when v == 255).
pub fn src(out: &mut String, names: &ScalarNames, v: u32, size_bits: u16, kind: Kind, lit: u32) {
    match v {
        0..=127 => sreg(out, names, v, size_bits),
        128..=192 => {
            let _ = write!(out, "{}", v - 128);
        }
        193..=208 => {
            let _ = write!(out, "-{}", v - 192);
        }
        235 => out.push_str("src_shared_base"),
        236 => out.push_str("src_shared_limit"),
        237 => out.push_str("src_private_base"),
        238 => out.push_str("src_private_limit"),
        239 => out.push_str("src_pops_exiting_wave_id"),
        240..=248 => out.push_str(inline_float(v, kind).unwrap_or("?")),
        251 => out.push_str("src_vccz"),
        252 => out.push_str("src_execz"),
        253 => out.push_str("src_scc"),
        254 => out.push_str("src_lds_direct"),
        255 => literal(out, lit, kind),
        256..=511 => vgpr(out, v - 256, size_bits),
        _ => {
            let _ = write!(out, "{v}");
        }
    }
}

/// Appends a source with float modifiers: `-x`, `|x|`, `-|x|`; integer kinds use `neg(x)`/`abs(x)`.
#[allow(clippy::too_many_arguments)]
pub fn src_mods(
    out: &mut String,
    names: &ScalarNames,
    v: u32,
    size_bits: u16,
    kind: Kind,
    lit: u32,
    neg: bool,
    abs: bool,
) {
    if neg {
        out.push('-');
    }
    if abs {
        out.push('|');
    }
    src(out, names, v, size_bits, kind, lit);
    if abs {
        out.push('|');
    }
}

/// Appends `[a,b,c]` of the low `n` bits of `bits`.
pub fn bit_list(out: &mut String, bits: u64, n: usize) {
    out.push('[');
    for i in 0..n {
        if i > 0 {
            out.push(',');
        }
        out.push(if bits >> i & 1 != 0 { '1' } else { '0' });
    }
    out.push(']');
}
