//! Operand printing shared by the AMD generations (LLVM AMDGPU syntax).

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
    /// True for the 16-bit scalar kinds (f16, i16, bf16).
    pub const fn is_16bit(self) -> bool {
        matches!(self, Kind::F16 | Kind::I16 | Kind::BF16)
    }

    /// The kind of a DataFormatName (`FMT_NUM_F32`, `FMT_NUM_PK2_F16`, `FMT_ANY` ...): read off
    /// its last token, without substring searches (const: the printers' per-format tables are
    /// worked out at compile time).
    pub const fn of(fmt: &str, size: u16) -> Kind {
        let b = fmt.as_bytes();
        // The last token: what follows the last `_` (the whole name when there is none).
        let mut i = b.len();
        while i > 0 && b[i - 1] != b'_' {
            i -= 1;
        }
        let (head, last) = b.split_at(i);
        let head = match head.split_last() {
            Some((_, h)) => h,
            None => head,
        };
        let packed = ends_with(head, b"PK2");
        let k = match last {
            b"F16" if packed => Kind::PkF16,
            b"BF16" | b"I16" | b"U16" | b"B16" if packed => Kind::PkI16,
            b"BF16" => Kind::BF16,
            b"F16" => Kind::F16,
            b"F32" => Kind::F32,
            b"F64" => Kind::F64,
            [.., b'1', b'6'] => Kind::I16,
            [.., b'6', b'4'] => Kind::I64,
            _ => Kind::I32,
        };
        match (k, size) {
            (Kind::I32, 64) => Kind::I64,
            _ => k,
        }
    }

    /// The kind of every data format of a table at size 32 (const: see [`Kind::of`]).
    pub const fn table<const N: usize>(formats: &[&str]) -> [Kind; N] {
        let mut t = [Kind::I32; N];
        let mut i = 0;
        while i < N && i < formats.len() {
            t[i] = Kind::of(formats[i], 32);
            i += 1;
        }
        t
    }

    /// True for float kinds (neg/abs print as `-` and `|x|`).
    pub const fn is_float(self) -> bool {
        matches!(self, Kind::F16 | Kind::F32 | Kind::F64 | Kind::PkF16 | Kind::BF16)
    }
}

/// Appends a decimal number without going through `core::fmt` (the printers' hot path): short
/// numbers go in as single ASCII characters, which is cheaper than a `push_str` copy.
#[inline]
pub fn dec(out: &mut String, n: u32) {
    let digit = |d: u32| char::from(b'0' + d as u8);
    if n < 10 {
        out.push(digit(n));
    } else if n < 100 {
        out.push(digit(n / 10));
        out.push(digit(n % 10));
    } else if n < 1000 {
        out.push(digit(n / 100));
        out.push(digit(n / 10 % 10));
        out.push(digit(n % 10));
    } else {
        dec_long(out, n)
    }
}

/// [`dec`] for numbers of four digits or more.
#[cold]
fn dec_long(out: &mut String, n: u32) {
    let mut buf = [0u8; 10];
    let mut i = buf.len();
    let mut n = n;
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // The buffer holds ASCII digits only.
    out.push_str(std::str::from_utf8(&buf[i..]).unwrap_or("0"));
}

/// Appends `0x` and the value in lower-case hex, without going through `core::fmt` (one ASCII
/// character at a time: cheaper than a copy for these short numbers).
#[inline]
pub fn hex(out: &mut String, v: u32) {
    const D: &[u8; 16] = b"0123456789abcdef";
    out.push('0');
    out.push('x');
    // Digits from the highest non-zero nibble (one digit for 0).
    let mut shift = (31 - (v | 1).leading_zeros()) / 4 * 4;
    loop {
        out.push(char::from(D[(v >> shift & 15) as usize]));
        if shift == 0 {
            break;
        }
        shift -= 4;
    }
}

/// A piece of printed text: what `{}` shows, appended without going through `core::fmt`.
pub trait Piece {
    /// Appends the piece.
    fn put(self, out: &mut String);
}

impl Piece for &str {
    #[inline]
    fn put(self, out: &mut String) {
        out.push_str(self)
    }
}

impl Piece for &&str {
    #[inline]
    fn put(self, out: &mut String) {
        out.push_str(self)
    }
}

impl Piece for String {
    #[inline]
    fn put(self, out: &mut String) {
        out.push_str(&self)
    }
}

impl Piece for u32 {
    #[inline]
    fn put(self, out: &mut String) {
        dec(out, self)
    }
}

impl Piece for u64 {
    #[inline]
    fn put(self, out: &mut String) {
        match u32::try_from(self) {
            Ok(v) => dec(out, v),
            Err(_) => {
                use std::fmt::Write as _;
                let _ = write!(out, "{self}");
            }
        }
    }
}

impl Piece for i32 {
    #[inline]
    fn put(self, out: &mut String) {
        if self < 0 {
            out.push('-');
        }
        dec(out, self.unsigned_abs())
    }
}

impl Piece for i64 {
    #[inline]
    fn put(self, out: &mut String) {
        if self < 0 {
            out.push('-');
        }
        self.unsigned_abs().put(out)
    }
}

impl Piece for usize {
    #[inline]
    fn put(self, out: &mut String) {
        (self as u64).put(out)
    }
}

impl Piece for u16 {
    #[inline]
    fn put(self, out: &mut String) {
        dec(out, self as u32)
    }
}

impl Piece for u8 {
    #[inline]
    fn put(self, out: &mut String) {
        dec(out, self as u32)
    }
}

/// Appends a piece of text (a string or a decimal number).
#[inline]
pub fn put(out: &mut String, x: impl Piece) {
    x.put(out)
}

/// A number `{:x}` shows: appended as lower-case hex digits (the caller writes `0x`).
pub trait HexPiece {
    /// The value as `{:x}` reads it (two's complement for negative numbers).
    fn bits(self) -> u64;
}

impl HexPiece for u32 {
    #[inline]
    fn bits(self) -> u64 {
        self as u64
    }
}

impl HexPiece for u64 {
    #[inline]
    fn bits(self) -> u64 {
        self
    }
}

impl HexPiece for i64 {
    #[inline]
    fn bits(self) -> u64 {
        self as u64
    }
}

impl HexPiece for i32 {
    #[inline]
    fn bits(self) -> u64 {
        self as u32 as u64
    }
}

impl HexPiece for u16 {
    #[inline]
    fn bits(self) -> u64 {
        self as u64
    }
}

impl HexPiece for u8 {
    #[inline]
    fn bits(self) -> u64 {
        self as u64
    }
}

/// Appends `0x` and a number in lower-case hex (`0x{:x}`).
#[inline]
pub fn put_hex(out: &mut String, x: impl HexPiece) {
    let v = x.bits();
    match u32::try_from(v) {
        Ok(v) => hex(out, v),
        Err(_) => {
            out.push_str("0x");
            let mut shift = (63 - v.leading_zeros()) / 4 * 4;
            loop {
                out.push(char::from(b"0123456789abcdef"[(v >> shift & 15) as usize]));
                if shift == 0 {
                    break;
                }
                shift -= 4;
            }
        }
    }
}

/// True when `needle` occurs in `hay`: a plain byte search, cheaper than `str::contains` on the
/// short mnemonics and format names the printers test (const: mnemonic facts are worked out at
/// compile time).
#[inline]
pub const fn has(hay: &str, needle: &str) -> bool {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    if n.len() > h.len() {
        return false;
    }
    let mut i = 0;
    while i + n.len() <= h.len() {
        if same_at(h, i, n) {
            return true;
        }
        i += 1;
    }
    false
}

/// True when `h` holds `n` at byte `at`.
const fn same_at(h: &[u8], at: usize, n: &[u8]) -> bool {
    if at + n.len() > h.len() {
        return false;
    }
    let mut k = 0;
    while k < n.len() {
        if h[at + k] != n[k] {
            return false;
        }
        k += 1;
    }
    true
}

/// True when `h` ends with `n`.
const fn ends_with(h: &[u8], n: &[u8]) -> bool {
    h.len() >= n.len() && same_at(h, h.len() - n.len(), n)
}

/// `m.starts_with(p)`, usable in const tables.
pub const fn starts(m: &str, p: &str) -> bool {
    same_at(m.as_bytes(), 0, p.as_bytes())
}

/// `m.ends_with(p)`, usable in const tables.
pub const fn ends(m: &str, p: &str) -> bool {
    ends_with(m.as_bytes(), p.as_bytes())
}

/// `m == p`, usable in const tables.
pub const fn eq(m: &str, p: &str) -> bool {
    m.len() == p.len() && same_at(m.as_bytes(), 0, p.as_bytes())
}

/// Appends the separator before operand `k`: a space, after a comma from the second operand on
/// (two characters pushed: cheaper than copying a string).
#[inline(always)]
pub fn sep(out: &mut String, k: usize) {
    if k != 0 {
        out.push(',');
    }
    out.push(' ');
}

/// Appends `v5` or `v[5:6]`.
#[inline]
pub fn reg(out: &mut String, prefix: &str, n: u32, size_bits: u16) {
    let cnt = (size_bits as u32).div_ceil(32).max(1);
    match prefix.as_bytes() {
        &[c] => out.push(char::from(c)),
        _ => out.push_str(prefix),
    }
    if cnt == 1 {
        dec(out, n);
    } else {
        out.push('[');
        dec(out, n);
        out.push(':');
        dec(out, n + cnt - 1);
        out.push(']');
    }
}

/// Appends a vector register (range).
#[inline(always)]
pub fn vgpr(out: &mut String, n: u32, size_bits: u16) {
    if size_bits <= 32 && n < 256 {
        // Every table has the same VGPR names.
        if let Some(&p) = GFX10_SRC32.get(256 + n as usize) {
            return put_packed(out, p);
        }
    }
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
    /// The text of every 9-bit source value as a 32-bit operand, packed (see [`packed_names`]).
    pub src32: &'static [u64; 512],
}

/// gfx10 numbering.
pub const GFX10_SCALARS: ScalarNames = ScalarNames { ttmp_base: 108, null: 125, m0: 124, src32: &GFX10_SRC32 };
/// gfx12 numbering (m0 and null swapped relative to gfx10).
pub const GFX12_SCALARS: ScalarNames = ScalarNames { ttmp_base: 108, null: 124, m0: 125, src32: &GFX12_SRC32 };

/// [`ScalarNames::src32`] of gfx10.
static GFX10_SRC32: [u64; 512] = packed_names(108, 125, 124);
/// [`ScalarNames::src32`] of gfx12.
static GFX12_SRC32: [u64; 512] = packed_names(108, 124, 125);

/// Packs up to 7 ASCII bytes and their count (in the top byte) into a u64.
const fn pack(text: &[u8]) -> u64 {
    let mut v = (text.len() as u64) << 56;
    let mut i = 0;
    while i < text.len() && i < 7 {
        v |= (text[i] as u64) << (8 * i);
        i += 1;
    }
    v
}

/// Packs a prefix and a decimal number below 1000.
const fn pack_num(prefix: &[u8], neg: bool, n: u32) -> u64 {
    let mut b = [0u8; 7];
    let mut k = 0;
    while k < prefix.len() {
        b[k] = prefix[k];
        k += 1;
    }
    if neg {
        b[k] = b'-';
        k += 1;
    }
    if n >= 100 {
        b[k] = b'0' + (n / 100) as u8;
        k += 1;
    }
    if n >= 10 {
        b[k] = b'0' + (n / 10 % 10) as u8;
        k += 1;
    }
    b[k] = b'0' + (n % 10) as u8;
    k += 1;
    pack(b.split_at(k).0)
}

/// The text [`src`] gives each 9-bit source value of a 32-bit operand, packed (text in the low
/// bytes, its length in the top byte); 0 where the text depends on more than the value (inline
/// floats, literals) or is longer than 7 bytes.
pub const fn packed_names(ttmp_base: u32, null: u32, m0: u32) -> [u64; 512] {
    let mut t = [0u64; 512];
    let mut v = 0u32;
    while v < 512 {
        t[v as usize] = match v {
            0..=105 => pack_num(b"s", false, v),
            106 => pack(b"vcc_lo"),
            107 => pack(b"vcc_hi"),
            126 => pack(b"exec_lo"),
            127 => pack(b"exec_hi"),
            128..=192 => pack_num(b"", false, v - 128),
            193..=208 => pack_num(b"", true, v - 192),
            256..=511 => pack_num(b"v", false, v - 256),
            _ if v >= ttmp_base && v < ttmp_base + 16 => pack_num(b"ttmp", false, v - ttmp_base),
            _ if v == m0 => pack(b"m0"),
            _ if v == null => pack(b"null"),
            _ => 0,
        };
        v += 1;
    }
    t
}

/// Appends the text packed by `pack` with one 8-byte store (no copy loop, no memcpy call).
///
/// Why a library uses `unsafe` here: register names are the most common text an AMD listing
/// prints, and one unaligned 8-byte store into the string's spare capacity replaces a copy
/// loop per name; the SAFETY comments say why the string stays UTF-8 and within capacity.
#[inline(always)]
pub fn put_packed(out: &mut String, packed: u64) {
    let len = (packed >> 56) as usize & 7;
    // SAFETY: only the first `len` bytes become part of the string, and those are ASCII (the
    // packed tables hold ASCII text), so the string stays UTF-8.
    let v = unsafe { out.as_mut_vec() };
    v.reserve(8);
    let n = v.len();
    if let Some(dst) = v.spare_capacity_mut().first_chunk_mut::<8>() {
        for (d, b) in dst.iter_mut().zip(packed.to_le_bytes()) {
            d.write(b);
        }
        // SAFETY: `reserve(8)` made room for 8 bytes past `n`, all of them just written; `len`
        // is at most 7.
        unsafe { v.set_len(n + len) };
    }
}

/// Appends a scalar operand 0..=127 (SGPRs, specials) of `size_bits`.
#[inline]
pub fn sreg(out: &mut String, names: &ScalarNames, v: u32, size_bits: u16) {
    if size_bits <= 32 && v < 128 {
        if let Some(&p) = names.src32.get(v as usize) {
            return put_packed(out, p);
        }
    }
    sreg_slow(out, names, v, size_bits)
}

/// [`sreg`] of tuples and values above 127.
fn sreg_slow(out: &mut String, names: &ScalarNames, v: u32, size_bits: u16) {
    let wide = size_bits > 32;
    // LLVM prints SGPR and trap-temporary tuples at their aligned start (pairs even, wider x4).
    let align = match size_bits {
        0..=32 => 1,
        33..=64 => 2,
        _ => 4,
    };
    let v = if v <= 105 || (v >= names.ttmp_base && v < names.ttmp_base + 16) {
        let base = if v <= 105 { 0 } else { names.ttmp_base };
        base + (v - base) / align * align
    } else {
        v
    };
    match v {
        0..=105 => reg(out, "s", v, size_bits),
        106 => out.push_str(if wide { "vcc" } else { "vcc_lo" }),
        107 => out.push_str("vcc_hi"),
        x if x >= names.ttmp_base && x < names.ttmp_base + 16 => {
            let n = x - names.ttmp_base;
            let cnt = (size_bits as u32).div_ceil(32).max(1);
            out.push_str("ttmp");
            if cnt == 1 {
                dec(out, n);
            } else {
                out.push('[');
                dec(out, n);
                out.push(':');
                dec(out, n + cnt - 1);
                out.push(']');
            }
        }
        x if x == names.m0 => out.push_str("m0"),
        x if x == names.null => out.push_str("null"),
        126 => out.push_str(if wide { "exec" } else { "exec_lo" }),
        127 => out.push_str("exec_hi"),
        _ => dec(out, v),
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
            Kind::F64 | Kind::I64 => "0.15915494309189532",
            _ => "0.15915494",
        },
        _ => return None,
    })
}

/// True when a 32-bit value is one of the inline constants (integers -16..=64, the f32 floats).
pub fn inlinable32(v: u32) -> bool {
    let i = v as i32;
    (-16..=64).contains(&i)
        || matches!(
            v,
            0x3f000000 | 0xbf000000 | 0x3f800000 | 0xbf800000 | 0x40000000 | 0xc0000000 | 0x40800000 | 0xc0800000 | 0x3e22f983
        )
}

/// True when a 16-bit value is one of the inline constants (integers, the f16 floats).
pub fn inlinable16(v: u32) -> bool {
    let i = v as u16 as i16;
    (-16..=64).contains(&i)
        || matches!(v & 0xffff, 0x3800 | 0xb800 | 0x3c00 | 0xbc00 | 0x4000 | 0xc000 | 0x4400 | 0xc400 | 0x3118)
}

/// Appends a literal the way LLVM 22 prints it: `lit(...)` where an inline constant could have
/// been used instead, 16-bit operands showing their low half otherwise.
pub fn literal(out: &mut String, lit: u32, kind: Kind) {
    match kind {
        Kind::F16 | Kind::I16 | Kind::BF16 => {
            if inlinable16(lit) {
                out.push_str("lit(");
                hex(out, lit);
                out.push(')');
            } else {
                hex(out, lit & 0xffff);
            }
        }
        _ => {
            if inlinable32(lit) {
                out.push_str("lit(");
                hex(out, lit);
                out.push(')');
            } else {
                hex(out, lit);
            }
        }
    }
}

/// The f16 bit pattern LLVM shows for an inline float constant on a 16-bit integer operand.
pub fn inline_f16_bits(v: u32) -> Option<u32> {
    Some(match v {
        240 => 0x3800,
        241 => 0xb800,
        242 => 0x3c00,
        243 => 0xbc00,
        244 => 0x4000,
        245 => 0xc000,
        246 => 0x4400,
        247 => 0xc400,
        248 => 0x3118,
        _ => return None,
    })
}

/// Appends a mandatory literal (the `K` of `v_fmaak_f32`, `v_fmamk_f16`, `s_fmaak_f32`, VOPD's
/// fmaak / fmamk) as llvm-objdump-22 prints it: in hex, except that a value equal to an inline
/// constant's code (128-208, 240-248) prints as that constant's 32-bit value (`0x95` as
/// `0x15`, `0xf0` as `0x3f000000`, for f16 forms too), as llvm-mc-22 shows for every such form.
pub fn kimm(out: &mut String, v: u32) {
    hex(out, kimm_value(v))
}

/// The value [`kimm`] prints for a mandatory literal `v`.
pub fn kimm_value(v: u32) -> u32 {
    match v {
        128..=192 => v - 128,
        193..=208 => (192i32 - v as i32) as u32,
        240..=248 => [0x3f000000, 0xbf000000, 0x3f800000, 0xbf800000, 0x40000000, 0xc0000000, 0x40800000, 0xc0800000, 0x3e22f983]
            [(v - 240) as usize],
        _ => v,
    }
}

/// Appends an integer immediate: decimal when it is an inline-constant value, else hex.
pub fn imm(out: &mut String, v: u32) {
    if v <= 64 {
        dec(out, v);
    } else {
        hex(out, v);
    }
}

/// A 32-bit immediate as LLVM prints an inlinable value: an integer from -16 to 64 in decimal,
/// the inline floats as floats, anything else in hex (`s_setreg_imm32_b32`'s value).
pub fn imm32(out: &mut String, v: u32) {
    match v as i32 {
        -16..=-1 => {
            out.push('-');
            dec(out, v.wrapping_neg());
        }
        0..=64 => dec(out, v),
        _ => match inline_float_bits(v) {
            Some(s) => out.push_str(s),
            None => hex(out, v),
        },
    }
}

/// The text of a 32-bit float bit pattern that is an inline constant.
fn inline_float_bits(v: u32) -> Option<&'static str> {
    Some(match v {
        0x3f000000 => "0.5",
        0xbf000000 => "-0.5",
        0x3f800000 => "1.0",
        0xbf800000 => "-1.0",
        0x40000000 => "2.0",
        0xc0000000 => "-2.0",
        0x40800000 => "4.0",
        0xc0800000 => "-4.0",
        0x3e22f983 => "0.15915494",
        _ => return None,
    })
}

/// Appends a 9-bit (VOP) or 8-bit (SOP) source operand value `v` of `size_bits`.
/// `lit` is the instruction's literal dword (used when v == 255).
#[inline]
pub fn src(out: &mut String, names: &ScalarNames, v: u32, size_bits: u16, kind: Kind, lit: u32) {
    if size_bits <= 32 {
        match names.src32.get(v as usize) {
            Some(&p) if p != 0 => return put_packed(out, p),
            _ => {}
        }
    }
    src_slow(out, names, v, size_bits, kind, lit)
}

/// [`src`] of tuples, constants that depend on the kind, literals and long names.
fn src_slow(out: &mut String, names: &ScalarNames, v: u32, size_bits: u16, kind: Kind, lit: u32) {
    match v {
        0..=127 => sreg(out, names, v, size_bits),
        128..=192 => dec(out, v - 128),
        193..=208 => {
            out.push('-');
            dec(out, v - 192);
        }
        230 => out.push_str("src_flat_scratch_base_lo"),
        231 => out.push_str("src_flat_scratch_base_hi"),
        235 => out.push_str("src_shared_base"),
        236 => out.push_str("src_shared_limit"),
        237 => out.push_str("src_private_base"),
        238 => out.push_str("src_private_limit"),
        239 => out.push_str("src_pops_exiting_wave_id"),
        240..=248 => match (kind, inline_f16_bits(v)) {
            (Kind::I16, Some(b)) => hex(out, b),
            _ => out.push_str(inline_float(v, kind).unwrap_or("?")),
        },
        251 => out.push_str("src_vccz"),
        252 => out.push_str("src_execz"),
        253 => out.push_str("src_scc"),
        254 => out.push_str("src_lds_direct"),
        255 => literal(out, lit, kind),
        256..=511 => vgpr(out, v - 256, size_bits),
        _ => dec(out, v),
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
    // A negated constant prints as neg(...) so that "-" is not read as part of the number.
    let constant = matches!(v, 128..=208 | 240..=248 | 255);
    let neg_fn = neg && !abs && constant;
    if neg_fn {
        out.push_str("neg(");
    } else if neg {
        out.push('-');
    }
    if abs {
        out.push('|');
    }
    src(out, names, v, size_bits, kind, lit);
    if abs {
        out.push('|');
    }
    if neg_fn {
        out.push(')');
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

/// Which source (0, 1, 2) a VOP operand's field holds, if it is one (`SRC0`..`SRC2`, `VSRC0`,
/// `VSRC1`: read off the name's bytes, not by string comparisons).
#[inline]
pub fn src_index(op: &crate::spec::Operand) -> Option<usize> {
    let f = op.field.as_ref()?;
    match f.name.as_bytes() {
        [b'S', b'R', b'C', d @ b'0'..=b'2'] => Some((d - b'0') as usize),
        [b'V', b'S', b'R', b'C', d @ b'0'..=b'1'] => Some((d - b'0') as usize),
        _ => None,
    }
}

/// Appends the output modifier (` mul:2`, ` mul:4`, ` div:2`; nothing for 0).
pub fn omod(out: &mut String, v: u32) {
    match v {
        1 => out.push_str(" mul:2"),
        2 => out.push_str(" mul:4"),
        3 => out.push_str(" div:2"),
        _ => {}
    }
}

/// Appends a VGPR with float modifiers: `-v1`, `|v1|`, `-|v1|` (DPP sources).
pub fn vgpr_mods(out: &mut String, n: u32, size_bits: u16, neg: bool, abs: bool) {
    vgpr_mods_lo128(out, n, size_bits, neg, abs, false)
}

/// [`vgpr_mods`] of an operand in a `*_Lo128` register class (`lo128`): a register past v127
/// carries LLVM's invalid-register note inside the modifiers.
pub fn vgpr_mods_lo128(out: &mut String, n: u32, size_bits: u16, neg: bool, abs: bool, lo128: bool) {
    if neg {
        out.push('-');
    }
    if abs {
        out.push('|');
    }
    vgpr(out, n, size_bits);
    if lo128 && n >= 128 {
        invalid_register(out, "VGPR_32_Lo128");
    }
    if abs {
        out.push('|');
    }
}

/// Appends LLVM's note after a register outside the operand's register class `class`.
pub fn invalid_register(out: &mut String, class: &str) {
    out.push_str("/*Invalid register, operand has '");
    out.push_str(class);
    out.push_str("' register class*/");
}

/// LLVM's note after an inline constant in an operand that takes registers only.
pub const INVALID_IMMEDIATE: &str = "/*Invalid immediate*/";

/// True for the source encodings of inline constants (integers 128-208, floats 240-248).
#[inline]
pub const fn is_inline_constant(v: u32) -> bool {
    matches!(v, 128..=208 | 240..=248)
}

/// Appends LLVM's note after a scalar destination (or another operand that takes scalar
/// registers only, encoded in 8 bits) that holds an inline constant or the literal (255: LLVM
/// reads a literal dword for it).
#[inline]
pub fn sdst_note(out: &mut String, v: u32) {
    if is_inline_constant(v) || v == 255 {
        out.push_str(INVALID_IMMEDIATE);
    }
}

/// [`source_class`]: the spec's source type holds (no note).
pub const CLASS_ANY: u8 = 0;
/// [`source_class`]: VGPRs only (`VGPR_32`).
pub const CLASS_VGPR: u8 = 1;
/// [`source_class`]: VGPRs or lds_direct (`VRegOrLds_32`).
pub const CLASS_VGPR_OR_LDS: u8 = 2;
/// [`source_class`]: SGPRs or inline constants (`SReg_32` in LLVM's note).
pub const CLASS_SGPR: u8 = 3;
/// [`source_class`]: a lane mask or carry-in (scalar registers only: an inline constant is
/// noted).
pub const CLASS_MASK: u8 = 5;
/// [`source_class`]: SGPRs, lds_direct or inline constants (`SRegOrLds_32` in LLVM's note).
pub const CLASS_SGPR_OR_LDS: u8 = 4;
/// [`source_class`]: a VGPR quad only (`VReg_128`).
pub const CLASS_VGPR128: u8 = 6;

/// The LLVM register class of source `src` (0-2) of a vector instruction whose spec type
/// allows any source but whose LLVM operand takes one register file only: lane reads and
/// writes, relative moves and swaps, the lane-select operands of permlanes.
pub const fn source_class(m: &str, src: usize) -> u8 {
    // The mnemonic without its _e32 / _e64 suffix.
    let b = m.as_bytes();
    let n = if b.len() > 4 && b[b.len() - 4] == b'_' && b[b.len() - 3] == b'e' { b.len() - 4 } else { b.len() };
    match src {
        0 if eq_base(Base(b, n), "v_readfirstlane_b32") || eq_base(Base(b, n), "v_readlane_b32") => CLASS_VGPR_OR_LDS,
        0 if eq_base(Base(b, n), "v_writelane_b32") => CLASS_SGPR_OR_LDS,
        1 if eq_base(Base(b, n), "v_readlane_b32") || eq_base(Base(b, n), "v_writelane_b32") => CLASS_SGPR,
        0 if eq_base(Base(b, n), "v_movrels_b32")
            || eq_base(Base(b, n), "v_movrelsd_b32")
            || eq_base(Base(b, n), "v_movrelsd_2_b32")
            || eq_base(Base(b, n), "v_swaprel_b32")
            || eq_base(Base(b, n), "v_swap_b32")
            || eq_base(Base(b, n), "v_permlane64_b32") =>
        {
            CLASS_VGPR
        }
        1 | 2 if eq_base(Base(b, n), "v_permlane16_b32") || eq_base(Base(b, n), "v_permlanex16_b32") => CLASS_SGPR,
        0 if eq_base(Base(b, n), "v_permlane16_b32") || eq_base(Base(b, n), "v_permlanex16_b32") => CLASS_VGPR,
        0 | 1 if eq_base(Base(b, n), "v_permlane16_var_b32") || eq_base(Base(b, n), "v_permlanex16_var_b32") => CLASS_VGPR,
        1 | 2 if eq_base(Base(b, n), "v_interp_p1ll_f16")
            || eq_base(Base(b, n), "v_interp_p1lv_f16")
            || eq_base(Base(b, n), "v_interp_p2_f16") =>
        {
            CLASS_VGPR
        }
        2 if eq_base(Base(b, n), "v_mqsad_u32_u8") => CLASS_VGPR128,
        2 if eq_base(Base(b, n), "v_cndmask_b32")
            || eq_base(Base(b, n), "v_add_co_ci_u32")
            || eq_base(Base(b, n), "v_sub_co_ci_u32")
            || eq_base(Base(b, n), "v_subrev_co_ci_u32") =>
        {
            CLASS_MASK
        }
        _ => CLASS_ANY,
    }
}

/// The first `.1` bytes of a mnemonic ([`source_class`]).
struct Base<'a>(&'a [u8], usize);

/// True when `b`'s bytes are `p`.
const fn eq_base(b: Base<'_>, p: &str) -> bool {
    b.1 == p.len() && same_at(b.0, 0, p.as_bytes())
}

/// True for the SOP instructions whose source takes registers only (LLVM notes a constant there
/// and prints it as a 32-bit one): `s_movrels_*`, `s_rfe_b64`, `s_setpc_b64`.
pub fn sop_register_only(m: &str) -> bool {
    m.starts_with("s_movrels_") || m == "s_rfe_b64" || m == "s_setpc_b64"
}

/// Appends LLVM's note after a scalar source `v` of a SOP instruction (`size` bits) that is
/// invalid there: lds_direct in a 32-bit source; an inline constant or literal in the
/// register-only sources of [`sop_register_only`].
pub fn sop_source_note(out: &mut String, m: &str, v: u32, size: u16) {
    if v == 254 && size == 32 {
        invalid_register(out, "SReg_32");
    } else if (is_inline_constant(v) || v == 255) && sop_register_only(m) {
        out.push_str(INVALID_IMMEDIATE);
    }
}

/// LLVM's note after a source of `mnemonic` that takes one register file only and holds the
/// other or a constant ([`source_class`], [`class_note`]).
pub fn source_note(out: &mut String, mnemonic: &str, op: &crate::spec::Operand, v: u32) {
    if let Some(i) = src_index(op) {
        let class = source_class(mnemonic, i);
        if class != 0 {
            class_note(out, class, v);
        }
    }
}

/// Appends LLVM's note after source encoding `v` of an operand of class `class`
/// ([`source_class`]): an inline constant or a register of the other file.
#[cold]
pub fn class_note(out: &mut String, class: u8, v: u32) {
    // The scalar classes come with inline constants (LLVM's SCSrc operands).
    // A literal is no better than an inline constant in the register-only classes.
    if (is_inline_constant(v) || v == 255) && matches!(class, CLASS_VGPR | CLASS_VGPR_OR_LDS | CLASS_MASK | CLASS_VGPR128) {
        return out.push_str(INVALID_IMMEDIATE);
    }
    let name = match class {
        // Scalar registers (the named special sources print without a note).
        CLASS_VGPR if v < 128 || v == 254 => "VGPR_32",
        CLASS_VGPR128 if v < 128 || v == 254 => "VReg_128",
        CLASS_VGPR_OR_LDS if v < 128 => "VRegOrLds_32",
        CLASS_SGPR if v >= 256 || v == 254 => "SReg_32",
        CLASS_SGPR_OR_LDS if v >= 256 => "SRegOrLds_32",
        _ => return,
    };
    invalid_register(out, name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn has_finds_substrings_like_str_contains() {
        for (h, n) in [("v_cmp_class_f32", "_class_"), ("v_ldexp_f16", "ldexp"), ("s_load", "load"), ("ab", "abc"), ("", "x"), ("x", "")] {
            assert_eq!(has(h, n), h.contains(n), "{h} {n}");
        }
    }

    #[test]
    fn dec_and_hex_write_the_digits() {
        let mut s = String::new();
        for n in [0, 7, 10, 99, 100, 511, 999, 1000, 65535, u32::MAX] {
            dec(&mut s, n);
            s.push(' ');
            hex(&mut s, n);
            s.push(';');
        }
        assert_eq!(s, "0 0x0;7 0x7;10 0xa;99 0x63;100 0x64;511 0x1ff;999 0x3e7;1000 0x3e8;65535 0xffff;4294967295 0xffffffff;");
    }
}
