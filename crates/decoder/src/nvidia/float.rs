//! nvdisasm's float immediates: `%.20g` below 1e9, `%.20e` from 1e9 up, `+INF`, `-QNAN`, ...

use std::fmt::Write as _;

/// Appends `v` as nvdisasm prints a float immediate (NaN and infinity get a trailing space, as
/// nvdisasm writes them).
pub fn push_f64(out: &mut String, v: f64, quiet_nan: bool) {
    if v.is_nan() {
        let s = if v.is_sign_negative() { '-' } else { '+' };
        let _ = write!(out, "{s}{}NAN ", if quiet_nan { "Q" } else { "S" });
        return;
    }
    if v.is_infinite() {
        out.push_str(if v < 0.0 { "-INF " } else { "+INF " });
        return;
    }
    // Negative zero, as nvdisasm 12.8 prints it (F32, F16 and F64 immediates): `-0.0 `.
    if v == 0.0 && v.is_sign_negative() {
        out.push_str("-0.0 ");
        return;
    }
    if exact(out, v) {
        return;
    }
    if v.abs() >= 1e9 {
        push_exp(out, v, 20, false);
    } else {
        push_g(out, v, 20);
    }
}

/// The common case without `core::fmt`: a value whose exact decimal expansion has at most 20
/// significant digits prints those digits as they are (`%.20g` below 1e9 in fixed notation, an
/// integer from 1e9 up with at most 21 digits in `%.20e`). Returns false, writing nothing, for
/// the others.
fn exact(out: &mut String, v: f64) -> bool {
    if v == 0.0 || !v.is_finite() {
        return false;
    }
    let bits = v.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i32;
    let mut m = bits & ((1u64 << 52) - 1);
    if e == 0 {
        return false; // subnormal: far below 1e-4, exponent notation
    }
    m |= 1u64 << 52;
    let mut e2 = e - 1075; // v = m * 2^e2
    let tz = m.trailing_zeros().min((-e2).max(0) as u32);
    m >>= tz;
    e2 += tz as i32;
    let neg = bits >> 63 == 1;
    let mut digits = [0u8; 48];
    if e2 >= 0 {
        // An integer.
        if e2 > 64 {
            return false;
        }
        let n = (m as u128) << e2;
        let d = dec_digits(n, &mut digits);
        let ds = &digits[48 - d..];
        if v.abs() < 1e9 {
            if neg {
                out.push('-');
            }
            push_ascii(out, ds);
            return true;
        }
        if d > 21 {
            return false;
        }
        // `%.20e`: d.ddd (20 decimals, zero-padded) e+XX.
        if neg {
            out.push('-');
        }
        push_ascii(out, &ds[..1]);
        out.push('.');
        push_ascii(out, &ds[1..]);
        for _ in d..21 {
            out.push('0');
        }
        out.push_str("e+");
        let x = d - 1;
        out.push((b'0' + (x / 10) as u8) as char);
        out.push((b'0' + (x % 10) as u8) as char);
        return true;
    }
    // m / 2^k with m odd: k fractional decimal digits, the last one non-zero.
    let k = (-e2) as u32;
    if k > 38 || v.abs() >= 1e9 {
        return false;
    }
    let int = (m >> k.min(63)) as u128;
    let frac = (m & ((1u64 << k.min(63)) - 1)) as u128 * 5u128.pow(k);
    let fd = dec_digits(frac, &mut digits);
    let mut idig = [0u8; 48];
    let id = if int > 0 { dec_digits(int, &mut idig) } else { 0 };
    // Significant digits, and the leading zeros of the fraction (of a value below 1).
    let sig = if int > 0 { id + k as usize } else { fd };
    let lead = k as usize - fd;
    if sig > 20 || (int == 0 && lead >= 4) {
        return false;
    }
    if neg {
        out.push('-');
    }
    if int > 0 {
        push_ascii(out, &idig[48 - id..]);
    } else {
        out.push('0');
    }
    out.push('.');
    for _ in 0..lead {
        out.push('0');
    }
    push_ascii(out, &digits[48 - fd..]);
    true
}

/// Writes the decimal digits of `n` at the end of `buf`; returns how many.
fn dec_digits(mut n: u128, buf: &mut [u8; 48]) -> usize {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return buf.len() - i;
        }
    }
}

fn push_ascii(out: &mut String, b: &[u8]) {
    for &c in b {
        out.push(c as char);
    }
}

/// `%.{prec}e`, optionally without trailing zeros in the mantissa (as `%g` does).
fn push_exp(out: &mut String, v: f64, prec: usize, strip: bool) {
    let s = format!("{v:.prec$e}");
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let mut m = m.to_string();
    if strip && m.contains('.') {
        while m.ends_with('0') {
            m.pop();
        }
        if m.ends_with('.') {
            m.pop();
        }
    }
    let e: i32 = e.parse().unwrap_or(0);
    let _ = write!(out, "{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.unsigned_abs());
}

/// C's `%.{p}g`.
fn push_g(out: &mut String, v: f64, p: usize) {
    if v == 0.0 {
        out.push_str(if v.is_sign_negative() { "-0" } else { "0" });
        return;
    }
    let s = format!("{v:.0$e}", p - 1);
    let x: i32 = s.split_once('e').and_then(|(_, e)| e.parse().ok()).unwrap_or(0);
    if x < -4 || x >= p as i32 {
        push_exp(out, v, p - 1, true);
        return;
    }
    let dec = (p as i32 - 1 - x).max(0) as usize;
    let mut f = format!("{v:.dec$}");
    if f.contains('.') {
        while f.ends_with('0') {
            f.pop();
        }
        if f.ends_with('.') {
            f.pop();
        }
    }
    out.push_str(&f);
}

/// Appends an IEEE single given by its bits.
pub fn push_f32_bits(out: &mut String, bits: u32) {
    let v = f32::from_bits(bits);
    push_f64(out, v as f64, bits & 0x0040_0000 != 0);
}

/// Appends an IEEE double given by its bits.
pub fn push_f64_bits(out: &mut String, bits: u64) {
    let v = f64::from_bits(bits);
    push_f64(out, v, bits & 0x0008_0000_0000_0000 != 0);
}

/// Appends an IEEE half given by its bits.
pub fn push_f16_bits(out: &mut String, bits: u16) {
    let sign = (bits >> 15) & 1;
    let exp = ((bits >> 10) & 0x1f) as i32;
    let man = (bits & 0x3ff) as f64;
    if exp == 0x1f {
        let s = if sign != 0 { '-' } else { '+' };
        if man == 0.0 {
            let _ = write!(out, "{s}INF ");
        } else {
            let _ = write!(out, "{s}{}NAN ", if bits & 0x200 != 0 { "Q" } else { "S" });
        }
        return;
    }
    let mag = if exp == 0 { man * 2f64.powi(-24) } else { (1024.0 + man) * 2f64.powi(exp - 25) };
    push_f64(out, if sign != 0 { -mag } else { mag }, true);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(bits: u32) -> String {
        let mut s = String::new();
        push_f32_bits(&mut s, bits);
        s
    }

    /// The fast path prints what the `core::fmt` path prints, on every finite positive half, a sweep of
    /// single values and the doubles of a few patterns.
    #[test]
    fn exact_matches_slow_path() {
        let slow = |v: f64| {
            let mut s = String::new();
            if v.abs() >= 1e9 {
                push_exp(&mut s, v, 20, false);
            } else {
                push_g(&mut s, v, 20);
            }
            s
        };
        let mut hits = 0usize;
        let mut check = |v: f64| {
            let mut s = String::new();
            if exact(&mut s, v) {
                assert_eq!(s, slow(v), "{v:e} ({:#x})", v.to_bits());
                hits += 1;
            }
        };
        for h in 0..0x7c00u32 {
            // Every finite half, as push_f16_bits computes it.
            let (exp, man) = ((h >> 10) as i32, (h & 0x3ff) as f64);
            check(if exp == 0 { man * 2f64.powi(-24) } else { (1024.0 + man) * 2f64.powi(exp - 25) });
        }
        for b in (0..=u32::MAX).step_by(9973) {
            check(f32::from_bits(b) as f64);
        }
        for i in 0..200_000u64 {
            check(f64::from_bits(i.wrapping_mul(0x9e37_79b9_7f4a_7c15)));
            check(i as f64 / 1024.0);
            check(-(i as f64) * 1.0e6);
        }
        for x in [0.5, 2.25, 1e9, 1e9 + 0.5, 4294967296.0, 1.8446744073709552e19, 3.4028234663852886e38, 0.0001, 0.000244140625] {
            check(x);
            check(-x);
        }
        assert!(hits > 400_000, "fast path taken {hits} times");
    }

    #[test]
    fn nvdisasm_float_formats() {
        assert_eq!(f32s(0x3f00_0000), "0.5");
        assert_eq!(f32s(0x5f80_0000), "1.84467440737095516160e+19");
        assert_eq!(f32s(0x0080_0000), "1.175494350822287508e-38");
        assert_eq!(f32s(0x2f80_0000), "2.3283064365386962891e-10");
        assert_eq!(f32s(0x3980_0000), "0.000244140625");
        assert_eq!(f32s(0x7f80_0000), "+INF ");
        assert_eq!(f32s(0xffc0_0000), "-QNAN ");
        assert_eq!(f32s(0x8000_0000), "-0.0 ");
        let mut s = String::new();
        push_f64_bits(&mut s, 0x4350_0000_0000_0000);
        assert_eq!(s, "1.80143985094819840000e+16");
    }
}
