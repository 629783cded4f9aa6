//! Formatted (typed) elements: up to four channels x, y, z, w packed from bit 0 up in a
//! little-endian element of 1 to 16 bytes, each channel converted between its stored bits and a
//! 32-bit register value (or a 16-bit one for the half-width forms).
//!
//! Register values: unorm, snorm, uscaled, sscaled and float channels are f32 (f16 when half),
//! uint and sint channels integers. A channel the format lacks reads 0, except w, which reads 1
//! (1.0 for the float-valued number formats).
//!
//! The conversions are those RDNA2 hardware shows in the vectors of fixtures/rdna (named after
//! each rule: BufferFormat, FormatD16, FormattedStore).
//! Reading, to f32: unorm `n / (2^b - 1)` and snorm `max(s / (2^(b-1) - 1), -1)` rounded to
//! nearest even from the exact quotient; scaled channels the integer's value; 16-, 11- and
//! 10-bit floats widen exactly, a NaN keeping its payload bits unquieted (BufferFormat slots
//! 11-12: 11-bit 0x7db reads 0x7fb60000).
//! Reading, to f16 (half): the float-valued number formats round the exact value to nearest
//! even (16-bit unorm 0xffaf reads 0x3bfd, not the 0x3bfe of rounding through f32) and saturate
//! to ±65504 (16-bit uscaled 65535 reads 0x7bff); a 32-bit float channel is narrowed toward zero
//! (0x33000001 reads 0; infinity stays infinity; a NaN keeps its top 10 payload bits, 1 when
//! those are 0: 0x7f800001 reads 0x7c01); uint saturates to 0xffff, sint to the i16 range
//! (32-bit 0x7f800000 reads 0xffff and 0x7fff). All FormatD16.
//! Writing from f32: unorm clamps to [0, 1] (NaN to 0), snorm to [-1, 1], then scales by
//! `2^b - 1` (`2^(b-1) - 1`) and rounds to nearest even; uscaled and sscaled store as unorm and
//! snorm do (FormattedStore slots 4-5: 8-bit uscaled stores 1.0 as 0xff and 0.5 as 0x80); uint
//! saturates the unsigned register value, sint the signed one (FormattedStore slots 6-7, 14);
//! 16-, 11- and 10-bit floats narrow toward zero (FormattedStore slots 8, 9, 11: 65520 stores as
//! 0x7bff and as 11-bit 0x7bf); the unsigned 11/10-bit floats store negative values as 0 and
//! NaNs, of either sign, as for f16 (0xffc12345 stores as 11-bit 0x7e0). Channels the data
//! does not give are written as 0 (BufferFormat scratch word 0, FormattedStore slot 13).
//! Not measured, defined here: writing half values widens them first (floats exactly, uint by
//! zero and sint by sign extension); the default w of formats without one.

use crate::soft::{round_pack, round_to_integer, unpack, Class, FFmt, Overflow, Round};

/// How a channel's bits read as a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NumFormat {
    /// Unsigned normalized: `n / (2^b - 1)`.
    Unorm,
    /// Signed normalized: `s / (2^(b-1) - 1)`, at least -1.
    Snorm,
    /// Unsigned integer read as a float.
    Uscaled,
    /// Signed integer read as a float.
    Sscaled,
    /// Unsigned integer.
    Uint,
    /// Signed integer.
    Sint,
    /// Float (32, 16, or unsigned 11 and 10 bits with a 5-bit exponent).
    Float,
}

const NUM_NAMES: [(NumFormat, &str); 7] = [
    (NumFormat::Unorm, "unorm"),
    (NumFormat::Snorm, "snorm"),
    (NumFormat::Uscaled, "uscaled"),
    (NumFormat::Sscaled, "sscaled"),
    (NumFormat::Uint, "uint"),
    (NumFormat::Sint, "sint"),
    (NumFormat::Float, "float"),
];

/// An element format: channel widths in bits for x, y, z, w (0 = absent, trailing), packed from
/// bit 0 up, and one number format for every channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Format {
    /// Channel widths x, y, z, w.
    pub widths: [u8; 4],
    /// Number format of the channels.
    pub num: NumFormat,
}

impl Format {
    /// Number of channels.
    pub fn channels(&self) -> usize {
        self.widths.iter().take_while(|w| **w != 0).count()
    }

    /// Element size in bytes.
    pub fn bytes(&self) -> u32 {
        self.widths.iter().map(|w| *w as u32).sum::<u32>() / 8
    }

    /// Whether the widths and number format make a format the conversions define.
    pub fn is_valid(&self) -> bool {
        let n = self.channels();
        let total: u32 = self.widths.iter().map(|w| *w as u32).sum();
        let widths_ok = n > 0
            && self.widths[n..].iter().all(|w| *w == 0)
            && self.widths[..n].iter().all(|w| matches!(w, 2 | 8 | 10 | 11 | 16 | 32));
        let float_ok = self.num != NumFormat::Float || self.widths[..n].iter().all(|w| matches!(w, 10 | 11 | 16 | 32));
        let int32_ok = !self.widths[..n].contains(&32) || matches!(self.num, NumFormat::Uint | NumFormat::Sint | NumFormat::Float);
        widths_ok && float_ok && int32_ok && total.is_multiple_of(8) && total <= 128
    }

    /// Text form: the widths joined by `_`, then the number format (`fmt8_8_8_8_unorm`).
    pub fn name(&self) -> String {
        let mut s = String::from("fmt");
        for w in &self.widths[..self.channels()] {
            s += &format!("{w}_");
        }
        s + NUM_NAMES.iter().find(|(n, _)| *n == self.num).map(|p| p.1).unwrap_or("?")
    }

    /// Parse the text form.
    pub fn parse(s: &str) -> Option<Format> {
        let parts: Vec<&str> = s.strip_prefix("fmt")?.split('_').collect();
        let (num, ws) = parts.split_last()?;
        let num = NUM_NAMES.iter().find(|(_, n)| n == num)?.0;
        if ws.is_empty() || ws.len() > 4 {
            return None;
        }
        let mut widths = [0u8; 4];
        for (i, w) in ws.iter().enumerate() {
            widths[i] = w.parse().ok()?;
        }
        let f = Format { widths, num };
        f.is_valid().then_some(f)
    }

    fn float_valued(&self) -> bool {
        !matches!(self.num, NumFormat::Uint | NumFormat::Sint)
    }

    /// The raw channel bits of an element (little-endian bytes, at least [`Format::bytes`]).
    fn raw(&self, bytes: &[u8]) -> [u32; 4] {
        let v = bytes.iter().take(16).enumerate().fold(0u128, |v, (i, b)| v | (*b as u128) << (8 * i));
        let mut out = [0u32; 4];
        let mut p = 0;
        for (c, w) in self.widths.iter().enumerate() {
            if *w != 0 {
                out[c] = (v >> p) as u32 & mask(*w);
                p += *w as u32;
            }
        }
        out
    }

    /// The channels as 32-bit register values (x, y, z, w; defaults for absent channels).
    pub fn load32(&self, bytes: &[u8]) -> [u32; 4] {
        let raw = self.raw(bytes);
        let mut out = [0, 0, 0, if self.float_valued() { 0x3f80_0000 } else { 1 }];
        for c in 0..self.channels() {
            out[c] = read32(self.num, self.widths[c], raw[c]);
        }
        out
    }

    /// The channels as 16-bit register values (x, y, z, w; defaults for absent channels).
    pub fn load16(&self, bytes: &[u8]) -> [u16; 4] {
        let raw = self.raw(bytes);
        let mut out = [0, 0, 0, if self.float_valued() { 0x3c00 } else { 1 }];
        for c in 0..self.channels() {
            out[c] = read16(self.num, self.widths[c], raw[c]);
        }
        out
    }

    /// The element bytes (little-endian, [`Format::bytes`] of them) for register values x..w;
    /// `half` when the values are 16-bit.
    pub fn store(&self, vals: &[u32], half: bool) -> Vec<u8> {
        let mut v = 0u128;
        let mut p = 0;
        for c in 0..self.channels() {
            let w = self.widths[c];
            let x = vals.get(c).copied().unwrap_or(0);
            let x = if half { widen16(self.num, x as u16) } else { x };
            v |= (write32(self.num, w, x) as u128) << p;
            p += w as u32;
        }
        (0..self.bytes()).map(|i| (v >> (8 * i)) as u8).collect()
    }
}

fn mask(w: u8) -> u32 {
    if w >= 32 {
        u32::MAX
    } else {
        (1 << w) - 1
    }
}

fn sext(w: u8, x: u32) -> i64 {
    if w >= 32 {
        x as i32 as i64
    } else {
        ((x << (32 - w)) as i32 >> (32 - w)) as i64
    }
}

/// Round `num / den` (den > 0, num != 0) into `fmt` with `rm`, negated when `neg`.
fn ratio(fmt: FFmt, neg: bool, num: u64, den: u64, rm: Round, ovf: Overflow) -> u64 {
    let n = (num as u128) << 64;
    let q = n / den as u128;
    round_pack(fmt, neg, -64, q, !n.is_multiple_of(den as u128), rm, ovf)
}

/// The exact value of a normalized or scaled channel in `fmt` (nearest even; saturating when `sat`).
fn to_float(fmt: FFmt, num: NumFormat, w: u8, x: u32, sat: bool) -> u64 {
    let ovf = if sat { Overflow::SatFinite } else { Overflow::Ieee };
    let s = sext(w, x);
    let (neg, mag, den) = match num {
        NumFormat::Unorm => (false, x as u64, mask(w) as u64),
        NumFormat::Snorm => {
            let den = mask(w - 1) as u64;
            (s < 0, s.unsigned_abs().min(den), den)
        }
        NumFormat::Uscaled => (false, x as u64, 1),
        _ => (s < 0, s.unsigned_abs(), 1),
    };
    if mag == 0 {
        return 0;
    }
    ratio(fmt, neg, mag, den, Round::Rn, ovf)
}

/// A 16-, 11- or 10-bit float channel as f32 bits (exact).
fn small_float_to_f32(w: u8, x: u32) -> u32 {
    let (man, sign) = match w {
        16 => (10, x >> 15 & 1),
        11 => (6, 0),
        _ => (5, 0),
    };
    let e = (x >> man) & 31;
    let m = x & ((1 << man) - 1);
    let s = sign << 31;
    if e == 31 {
        return s | 0x7f80_0000 | m << (23 - man);
    }
    if e == 0 {
        if m == 0 {
            return s;
        }
        return s | round_pack(FFmt::F32, false, -14 - man, m as u128, false, Round::Rn, Overflow::Ieee) as u32;
    }
    s | (e + 112) << 23 | m << (23 - man)
}

fn read32(num: NumFormat, w: u8, x: u32) -> u32 {
    match num {
        NumFormat::Uint => x,
        NumFormat::Sint => sext(w, x) as u32,
        NumFormat::Float if w == 32 => x,
        NumFormat::Float => small_float_to_f32(w, x),
        _ => to_float(FFmt::F32, num, w, x, false) as u32,
    }
}

/// f32 bits narrowed toward zero into a float with a 5-bit exponent and `man` mantissa bits
/// (f16 when `man` is 10); a NaN keeps its top payload bits (1 when those are 0).
fn narrow_rz(x: u32, man: u32) -> u32 {
    let sign = (x >> 31) << (5 + man);
    let u = unpack(FFmt::F32, x as u64);
    match u.class {
        Class::Nan => {
            let p = (x & 0x7f_ffff) >> (23 - man);
            sign | 31 << man | if p == 0 { 1 } else { p }
        }
        Class::Inf => sign | 31 << man,
        Class::Zero => sign,
        Class::Finite => {
            let h = round_pack(FFmt::F16, u.sign, u.exp, u.sig, false, Round::Rz, Overflow::Ieee) as u32;
            sign | (h & 0x7fff) >> (10 - man)
        }
    }
}

fn read16(num: NumFormat, w: u8, x: u32) -> u16 {
    (match num {
        NumFormat::Uint => x.min(0xffff),
        NumFormat::Sint => sext(w, x).clamp(-0x8000, 0x7fff) as u32 & 0xffff,
        NumFormat::Float => match w {
            32 => narrow_rz(x, 10),
            16 => x,
            // The unsigned 11- and 10-bit floats share f16's exponent: exact.
            _ => x << (15 - w as u32),
        },
        _ => to_float(FFmt::F16, num, w, x, true) as u32,
    }) as u16
}

fn widen16(num: NumFormat, x: u16) -> u32 {
    match num {
        NumFormat::Uint => x as u32,
        NumFormat::Sint => x as i16 as i32 as u32,
        _ => small_float_to_f32(16, x as u32),
    }
}

/// f32 bits clamped to [lo, 1] (NaN to 0), scaled by `scale` and rounded to nearest even.
fn normalize(x: u32, signed: bool, scale: u32) -> i64 {
    let u = unpack(FFmt::F32, x as u64);
    let lo = if signed { -1.0 } else { 0.0 };
    let f = f32::from_bits(x);
    match u.class {
        Class::Nan | Class::Zero => 0,
        _ if f >= 1.0 => scale as i64,
        _ if f <= lo => (lo as i64) * scale as i64,
        Class::Inf => 0,
        Class::Finite => {
            // (sig * scale) * 2^exp, to an integer.
            let r = round_to_integer(u.sign, u.exp, u.sig * scale as u128, Round::Rn) as i64;
            if u.sign {
                -r
            } else {
                r
            }
        }
    }
}

fn write32(num: NumFormat, w: u8, x: u32) -> u32 {
    let m = mask(w);
    match num {
        NumFormat::Unorm | NumFormat::Uscaled => normalize(x, false, m) as u32 & m,
        NumFormat::Snorm | NumFormat::Sscaled => normalize(x, true, mask(w - 1)) as u32 & m,
        NumFormat::Uint => x.min(m),
        NumFormat::Sint => (x as i32 as i64).clamp(-(1i64 << (w - 1)), (1i64 << (w - 1)) - 1) as u32 & m,
        NumFormat::Float => match w {
            32 => x,
            16 => narrow_rz(x, 10),
            _ if f32::from_bits(x).is_nan() => narrow_rz(x & 0x7fff_ffff, w as u32 - 5),
            _ if x >> 31 != 0 => 0,
            _ => narrow_rz(x, w as u32 - 5),
        },
    }
}
