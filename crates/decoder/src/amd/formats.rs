//! Buffer data format names (MTBUF `format:[...]`), read from the fact table
//! `data/descriptor_enums.csv` (copied from the project's shared AMD facts) at compile time.

const CSV: &str = include_str!("../../data/descriptor_enums.csv");

/// gfx10 unified buffer format names, indexed by value (LLVM names values 0..=77): the part
/// after `BUF_FMT_` (the caller prints the prefix).
pub fn gfx10_buf_fmt(v: u32) -> Option<&'static str> {
    static T: [(u16, u16); 78] = table(b"IMG_FORMAT", b"gfx10", b"IMG_FORMAT_");
    name(&T, v)
}

/// gfx12 buffer format names, indexed by value: the part after `BUF_FMT_`.
pub fn gfx12_buf_fmt(v: u32) -> Option<&'static str> {
    static T: [(u16, u16); 128] = table(b"BUF_FMT", b"gfx12", b"BUF_FMT_");
    name(&T, v)
}

/// The name of entry `v` of a [`table`].
fn name(t: &[(u16, u16)], v: u32) -> Option<&'static str> {
    match t.get(v as usize) {
        Some(&(a, b)) if b > a => CSV.get(a as usize..b as usize),
        _ => None,
    }
}

/// True when `s[a..b]` is `x`.
const fn field_is(s: &[u8], a: usize, b: usize, x: &[u8]) -> bool {
    if b - a != x.len() {
        return false;
    }
    let mut i = 0;
    while i < x.len() {
        if s[a + i] != x[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The end of the comma-separated field starting at `a` of the line ending at `end`.
const fn field_end(s: &[u8], a: usize, end: usize) -> usize {
    let mut i = a;
    while i < end && s[i] != b',' {
        i += 1;
    }
    i
}

/// For every value below `N` of enum `e` of generation `gen`: the byte range in [`CSV`] of its
/// name without `prefix` ((0, 0) when the table has none); a later row of the same value wins.
const fn table<const N: usize>(e: &[u8], gen: &[u8], prefix: &[u8]) -> [(u16, u16); N] {
    let s = CSV.as_bytes();
    let mut t = [(0u16, 0u16); N];
    // Skip the header line.
    let mut at = 0;
    while at < s.len() && s[at] != b'\n' {
        at += 1;
    }
    at += 1;
    while at < s.len() {
        let mut end = at;
        while end < s.len() && s[end] != b'\n' {
            end += 1;
        }
        let next = end + 1;
        if end > at && s[end - 1] == b'\r' {
            end -= 1;
        }
        let f1 = field_end(s, at, end);
        let f2 = if f1 < end { field_end(s, f1 + 1, end) } else { end };
        let f3 = if f2 < end { field_end(s, f2 + 1, end) } else { end };
        let f4 = if f3 < end { field_end(s, f3 + 1, end) } else { end };
        if f3 < end && field_is(s, at, f1, e) && field_is(s, f1 + 1, f2, gen) {
            // The value, trimmed of spaces, in decimal.
            let (mut a, mut b) = (f3 + 1, f4);
            while a < b && s[a] == b' ' {
                a += 1;
            }
            while b > a && s[b - 1] == b' ' {
                b -= 1;
            }
            let mut v = 0usize;
            let mut ok = a < b;
            let mut i = a;
            while i < b {
                let d = s[i];
                if d.is_ascii_digit() && v < 1 << 20 {
                    v = v * 10 + (d - b'0') as usize;
                } else {
                    ok = false;
                }
                i += 1;
            }
            if ok && v < N {
                let mut start = f2 + 1;
                if f3 - start >= prefix.len() && field_is(s, start, start + prefix.len(), prefix) {
                    start += prefix.len();
                }
                t[v] = (start as u16, f3 as u16);
            }
        }
        at = next;
    }
    t
}

#[cfg(test)]
mod tests {
    /// Values the tables must name, as LLVM 22 prints them (`format:[BUF_FMT_...]`).
    #[test]
    fn names_come_from_the_csv() {
        assert_eq!(super::gfx10_buf_fmt(1), Some("8_UNORM"));
        assert_eq!(super::gfx10_buf_fmt(78), None);
        assert!(super::gfx12_buf_fmt(1).is_some());
    }
}
