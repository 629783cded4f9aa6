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
    if v.abs() >= 1e9 {
        push_exp(out, v, 20, false);
    } else {
        push_g(out, v, 20);
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

    #[test]
    fn nvdisasm_float_formats() {
        assert_eq!(f32s(0x3f00_0000), "0.5");
        assert_eq!(f32s(0x5f80_0000), "1.84467440737095516160e+19");
        assert_eq!(f32s(0x0080_0000), "1.175494350822287508e-38");
        assert_eq!(f32s(0x2f80_0000), "2.3283064365386962891e-10");
        assert_eq!(f32s(0x3980_0000), "0.000244140625");
        assert_eq!(f32s(0x7f80_0000), "+INF ");
        assert_eq!(f32s(0xffc0_0000), "-QNAN ");
        let mut s = String::new();
        push_f64_bits(&mut s, 0x4350_0000_0000_0000);
        assert_eq!(s, "1.80143985094819840000e+16");
    }
}
