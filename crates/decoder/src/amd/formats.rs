//! Buffer data format names (MTBUF `format:[...]`), read from the fact table
//! `data/descriptor_enums.csv` (copied from the project's shared AMD facts).

use std::sync::OnceLock;

const CSV: &str = include_str!("../../data/descriptor_enums.csv");

/// gfx10 unified buffer format names (BUF_FMT_*), indexed by value; LLVM names values 0..=77.
pub fn gfx10_buf_fmt(v: u32) -> Option<&'static str> {
    static T: OnceLock<Vec<Option<String>>> = OnceLock::new();
    let t = T.get_or_init(|| table("IMG_FORMAT", "gfx10", "IMG_FORMAT_", 78));
    t.get(v as usize).and_then(|s| s.as_deref())
}

/// gfx12 buffer format names (BUF_FMT_*), indexed by value.
pub fn gfx12_buf_fmt(v: u32) -> Option<&'static str> {
    static T: OnceLock<Vec<Option<String>>> = OnceLock::new();
    let t = T.get_or_init(|| table("BUF_FMT", "gfx12", "BUF_FMT_", 128));
    t.get(v as usize).and_then(|s| s.as_deref())
}

fn table(e: &str, gen: &str, prefix: &str, n: usize) -> Vec<Option<String>> {
    let mut t = vec![None; n];
    for line in CSV.lines().skip(1) {
        let mut it = line.split(',');
        let (Some(en), Some(g), Some(name), Some(val)) = (it.next(), it.next(), it.next(), it.next()) else {
            continue;
        };
        if en != e || g != gen {
            continue;
        }
        let Ok(v) = val.trim().parse::<usize>() else { continue };
        if v < n {
            let base = name.strip_prefix(prefix).unwrap_or(name);
            t[v] = Some(format!("BUF_FMT_{base}"));
        }
    }
    t
}
