//! The rejection rules of an AMD ISA (`crates/decoder/src/amd/reject.rs` says what they are and
//! how the decoder reads them), worked out at build time from the parsed spec and the measured
//! table (`src/amd/reject_gfx10.tsv`, `reject_gfx12.tsv`: checked bits, reserved values of the
//! swept register fields, refused bit combinations), and written as Rust statics
//! (`OUT_DIR/<gen>_reject.rs`, checked in as `src/generated/<gen>_reject.rs`).
//!
//! This is the one place that decides what a rule checks. After a change here, refresh the
//! checked-in copies with `ISABRIDGE_UPDATE_GENERATED=1 cargo build --release -p isabridge-decoder`.

use super::codegen::{self, Field, Spec};
use std::collections::HashMap;
use std::fmt::Write as _;

/// Inline fields per rule (`Rule::fields` of reject.rs); further ones go to `Rules::slow`.
const INLINE: usize = 4;

/// Lookup slots of a [`Screen`] (reject.rs's `Screen::look`).
const LOOK: usize = 2;

/// What one instruction encoding must satisfy (written as reject.rs's `Rule`, without `slow`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
struct Rule {
    /// Checked bits of the first four words (bit 0 = bit 0 of the first word).
    mask: u128,
    /// Their required values.
    val: u128,
    /// Up to [`INLINE`] register fields in the first 64 bits: (offset, reserved-value table);
    /// table 0 reserves nothing.
    fields: [(u8, u8); INLINE],
    /// Refused bit combinations: (offset, width) of two runs of bits read as one index (the
    /// first run lowest), and the refused indexes as a bit set.
    combo: Combo,
    /// Fields the inline check cannot read: only `Rules::rejects` checks them.
    slow: bool,
}

/// Bit combinations LLVM refuses (reject.rs's `Combo`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
struct Combo {
    runs: [(u8, u8); 2],
    forbid: u64,
}

/// The inline decode loop's view of a [`Rule`] (written as reject.rs's `Screen`, which says
/// what each mask means).
#[derive(Debug, Clone, Copy, Default)]
struct Screen {
    mask: u64,
    val: u64,
    src9: u64,
    src8: u64,
    pair9: u64,
    pair8: u64,
    /// (offset, value mask, reserved values below 128 as a bit set).
    look: [(u8, u16, u128); LOOK],
    combo: Combo,
    /// Whether `look` or `combo` is in use.
    extra: bool,
}

/// How a reserved-value table reads its field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Kind<'a> {
    /// Operand type name.
    ty: &'a str,
    /// Field width in bits.
    width: u8,
    /// A 64-bit operand.
    pair: bool,
}

/// What the measured table says of one instruction (`(encoding, opcode)`).
#[derive(Debug, Default, Clone)]
struct Measured<'a> {
    mask: u128,
    val: u128,
    /// Reserved values of each swept register field (its name, or `@offset.count,...` for a
    /// field in pieces the spec does not name), in the field's own value space.
    swept: Vec<(&'a str, Vec<u32>)>,
    combo: Combo,
}

/// Values of a measured list such as `104-107,124`.
fn values(s: &str) -> Result<Vec<u32>, String> {
    let mut out = Vec::new();
    for part in s.split(',').filter(|p| !p.is_empty()) {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let (Ok(a), Ok(b)) = (a.parse::<u32>(), b.parse::<u32>()) else {
            return Err(format!("bad value list {s:?}"));
        };
        out.extend(a..=b);
    }
    Ok(out)
}

/// A combination column `1,2,3,4,5,62/hex` as two runs of bits and the refused set.
fn combo(s: &str) -> Result<Combo, String> {
    let Some((bits, forbid)) = s.split_once('/') else { return Ok(Combo::default()) };
    let forbid = u64::from_str_radix(forbid, 16).map_err(|e| format!("{s:?}: {e}"))?;
    let mut runs: Vec<(u8, u8)> = Vec::new();
    for b in bits.split(',') {
        let b: u8 = b.parse().map_err(|e| format!("{s:?}: {e}"))?;
        match runs.last_mut() {
            Some((o, w)) if *o + *w == b => *w += 1,
            _ => runs.push((b, 1)),
        }
    }
    if runs.len() > 2 || runs.iter().map(|r| r.1).sum::<u8>() > 6 || runs.iter().any(|r| r.0 + r.1 > 64) {
        return Err(format!("{s:?}: more than two runs, six bits or 64 bits"));
    }
    runs.resize(2, (0, 0));
    Ok(Combo { runs: [runs[0], runs[1]], forbid })
}

/// Which inline screens of reject.rs's `Screen` cover every reserved value of `tab` for a
/// field `width` bits wide: (`src`, `pair`) bits to set, or `None` when a lookup slot must.
/// The `src` screen picks out 208-239 and 248-251 (below 256) of 8- and 9-bit fields, the
/// `pair` screen 96-127 and 224-255 (below 256) that are odd or end in 111xx.
fn screened(tab: &[u8; 512], width: u32) -> Option<(bool, bool)> {
    let src = |v: usize| (208..=239).contains(&v) || (248..=251).contains(&v);
    let pair = |v: usize| v < 256 && (v & 0x60 == 0x60) && (v & 1 == 1 || v >> 2 & 7 == 7);
    let vals: Vec<usize> = (0..1usize << width).filter(|&v| tab[v] != 0).collect();
    match width {
        8 | 9 if vals.iter().all(|&v| src(v)) => Some((true, false)),
        8 | 9 if vals.iter().all(|&v| src(v) || pair(v)) => Some((true, true)),
        7 if vals.iter().all(|&v| pair(v)) => Some((false, true)),
        _ => None,
    }
}

/// The rules of one ISA, as worked out by [`rules`].
struct Rules {
    idx: Vec<u16>,
    rules: Vec<Rule>,
    screens: Vec<Screen>,
    reserved: Vec<[u8; 512]>,
    /// Per instruction encoding with fields only `Rules::rejects` reads: (table, field).
    slow: Vec<(u16, Vec<(u8, Field)>)>,
}

/// Rust source of the rules of `spec` with the checked bits `bits` (the text of its
/// reject_*.tsv); `sources` names both inputs in the header.
pub fn generate(spec: &Spec, bits: &str, sources: &str) -> Result<String, String> {
    let r = rules(spec, bits)?;
    let mut o = String::new();
    let w = &mut o;
    writeln!(w, "// @generated by crates/decoder/build/amd_reject.rs from {sources}. DO NOT EDIT.").unwrap();
    writeln!(w, "// Regenerate with `ISABRIDGE_UPDATE_GENERATED=1 cargo build --release -p isabridge-decoder`; the test `generated_tables_are_current` checks this copy.").unwrap();
    writeln!(w, "/// The rules of each instruction encoding (see `amd/reject.rs`).").unwrap();
    writeln!(w, "#[rustfmt::skip]\npub(super) static RULES: Rules = Rules {{").unwrap();
    let list = |w: &mut String, name: &str, items: Vec<String>, per_line: usize| {
        write!(w, "    {name}: &[").unwrap();
        for (i, it) in items.iter().enumerate() {
            w.push_str(if i % per_line == 0 { "\n        " } else { " " });
            w.push_str(it);
            w.push(',');
        }
        w.push_str("\n    ],\n");
    };
    list(w, "idx", r.idx.iter().map(|v| v.to_string()).collect(), 32);
    list(
        w,
        "rules",
        r.rules
            .iter()
            .map(|r| {
                let f: Vec<String> = r.fields.iter().map(|(o, t)| format!("({o}, {t})")).collect();
                format!(
                    "Rule {{ mask: {:#x}, val: {:#x}, fields: [{}], combo: {} }}",
                    r.mask,
                    r.val,
                    f.join(", "),
                    combo_text(&r.combo)
                )
            })
            .collect(),
        1,
    );
    list(
        w,
        "screens",
        r.screens
            .iter()
            .map(|s| {
                let look: Vec<String> =
                    s.look.iter().map(|(o, m, b)| format!("({o}, {m:#x}, [{:#x}, {:#x}])", *b as u64, (b >> 64) as u64)).collect();
                format!(
                    "Screen {{ mask: {:#x}, val: {:#x}, src9: {:#x}, src8: {:#x}, pair9: {:#x}, pair8: {:#x}, look: [{}], combo: {}, extra: {} }}",
                    s.mask,
                    s.val,
                    s.src9,
                    s.src8,
                    s.pair9,
                    s.pair8,
                    look.join(", "),
                    combo_text(&s.combo),
                    s.extra
                )
            })
            .collect(),
        1,
    );
    list(
        w,
        "reserved",
        r.reserved
            .iter()
            .map(|t| format!("[{}]", t.iter().map(|b| b.to_string()).collect::<Vec<_>>().join(",")))
            .collect(),
        1,
    );
    list(
        w,
        "slow",
        r.slow
            .iter()
            .map(|(i, fs)| {
                let fs: Vec<String> = fs
                    .iter()
                    .map(|(t, f)| {
                        let rs: Vec<String> = f.ranges.iter().map(|(o, c)| format!("({o}, {c})")).collect();
                        format!("({t}, crate::spec::Field {{ name: {:?}, ranges: &[{}] }})", f.name, rs.join(", "))
                    })
                    .collect();
                format!("({i}, &[{}])", fs.join(", "))
            })
            .collect(),
        1,
    );
    writeln!(w, "}};").unwrap();
    Ok(o)
}

/// A [`Combo`] as reject.rs's `Combo` literal.
fn combo_text(c: &Combo) -> String {
    let [(o1, w1), (o2, w2)] = c.runs;
    format!("Combo {{ runs: [({o1}, {w1}), ({o2}, {w2})], forbid: {:#x} }}", c.forbid)
}

/// The rules of each instruction encoding of `spec` (in `INST_ENCODINGS` order).
fn rules<'a>(spec: &'a Spec, bits: &'a str) -> Result<Rules, String> {
    // (encoding, opcode) -> what was measured; operand type -> values a 64-bit operand does not
    // take.
    let mut fixed: HashMap<(&str, u64), Measured> = HashMap::new();
    let mut pair: HashMap<&str, Vec<u32>> = HashMap::new();
    for line in bits.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let c: Vec<&str> = line.split('\t').collect();
        if c[0] == "@64" && c.len() >= 3 {
            pair.insert(c[1], c[2].split(',').filter_map(|v| v.parse().ok()).collect());
            continue;
        }
        if c.len() < 4 {
            continue;
        }
        let (Ok(op), Ok(mask), Ok(val)) = (c[1].parse::<u32>(), u128::from_str_radix(c[2], 16), u128::from_str_radix(c[3], 16)) else {
            continue;
        };
        let mut swept = Vec::new();
        for part in c.get(6).unwrap_or(&"").split(';').filter(|p| !p.is_empty()) {
            let (name, vals) = part.split_once(':').ok_or_else(|| format!("bad swept field {part:?}"))?;
            swept.push((name, values(vals)?));
        }
        let combo = combo(c.get(7).unwrap_or(&""))?;
        fixed.insert((c[0], op as u64), Measured { mask, val, swept, combo });
    }
    let (_, order) = codegen::ordered(spec)?;
    // Whether an operand type exists in the generated tables (every type the spec lists or an
    // operand names), and the predefined value a value has there.
    let known = |ty: &str| {
        spec.operand_types.iter().any(|t| t.name == ty)
            || spec.instructions.iter().any(|i| i.encs.iter().any(|e| e.operands.iter().any(|o| o.ty == ty)))
    };
    let named = |ty: &str, v: u32| {
        spec.operand_types.iter().find(|t| t.name == ty).is_some_and(|t| t.values.iter().any(|x| x.0 == v as i64))
    };
    // The reserved values of an operand type at a field width, by value read at the field's
    // offset (the bits above the field are ignored).
    let typed = |k: Kind| -> [u8; 512] {
        let exists = known(k.ty);
        let mut tab = [0u8; 512];
        for (v, r) in tab.iter_mut().enumerate() {
            let v = (v & ((1 << k.width) - 1)) as u32;
            *r = ((exists && !named(k.ty, v))
                || (k.pair && pair.get(k.ty).is_some_and(|p| p.contains(&v)))
                // The DPP8 markers, which the spec names (as v0) in every 9-bit source.
                || (k.ty == "OPR_SRC" && matches!(v, 233 | 234))) as u8;
        }
        tab
    };
    let mut reserved: Vec<[u8; 512]> = vec![[0; 512]];
    let mut intern = |tab: [u8; 512]| -> Result<u8, String> {
        let i = reserved.iter().position(|t| *t == tab).unwrap_or_else(|| {
            reserved.push(tab);
            reserved.len() - 1
        });
        u8::try_from(i).map_err(|_| "more than 256 reserved-value tables".to_string())
    };
    let mut rules = vec![Rule::default()];
    let mut screens = vec![Screen::default()];
    let mut seen: HashMap<Rule, u16> = HashMap::new();
    seen.insert(Rule::default(), 0);
    let mut slow = Vec::new();
    let mut idx = Vec::with_capacity(order.len());
    for (i, &(ei, _, ie)) in order.iter().enumerate() {
        let e = &spec.encodings[ei];
        let ename = e.name.as_str();
        // The measurement names an instruction by its word's layout, where VOP3B/VOP3SD words
        // (and their DPP forms) are VOP3 words: the same fixed bits.
        let alt = |name: &str| name.replacen("VOP3B", "VOP3", 1).replacen("VOP3SD", "VOP3", 1);
        let m = fixed
            .get(&(ename, ie.opcode))
            .cloned()
            .or_else(|| {
                let a = ename.starts_with("ENC_VOP3").then(|| alt(ename))?;
                fixed.get(&(a.as_str(), ie.opcode)).cloned()
            })
            .unwrap_or_default();
        // The combinations tried every value of their bits: they, not single flips, say which
        // values those bits take.
        let runs = m.combo.runs.iter().fold(0u128, |a, &(o, w)| a | ((1u128 << w) - 1) << o);
        let (mask, val) = (m.mask & !runs, m.val & !runs);
        let mut r = Rule { mask, val, combo: m.combo, ..Rule::default() };
        let mut sc = Screen { mask: mask as u64, val: val as u64, combo: m.combo, ..Screen::default() };
        let mut n = 0;
        let mut looks = 0;
        let mut cold = false;
        let mut extra: Vec<(u8, Field)> = Vec::new();
        // Every value of these fields was tried: their measured reserved values replace the
        // operand type's.
        for (name, vals) in &m.swept {
            if vals.is_empty() {
                continue;
            }
            // A field the spec does not name is given by its bits (`@9.8,63.1`: gfx10 SDWA's
            // second source, VSRC1 with S1 on top).
            let f = match e.fields.iter().find(|f| f.name == *name) {
                Some(f) => f.clone(),
                None if name.starts_with('@') => Field {
                    name: name.to_string(),
                    ranges: name[1..]
                        .split(',')
                        .filter_map(|p| p.split_once('.'))
                        .filter_map(|(o, c)| Some((o.parse().ok()?, c.parse().ok()?)))
                        .collect(),
                },
                None => return Err(format!("{ename} {}: no field {name}", ie.opcode)),
            };
            let width: u32 = f.ranges.iter().map(|r| r.1).sum();
            if f.ranges.is_empty() || width > 9 {
                return Err(format!("{ename}: field {name} of {width} bits"));
            }
            let mut tab = [0u8; 512];
            for (v, t) in tab.iter_mut().enumerate() {
                *t = vals.contains(&((v & ((1 << width) - 1)) as u32)) as u8;
            }
            // Values taken exactly where some bits have one value (an unused field, a 5-bit
            // count in a 7-bit field): checked bits.
            let ok: Vec<u32> = (0..1u32 << width).filter(|&v| tab[v as usize] == 0).collect();
            if let ([(off, _)], Some(&v0)) = (&f.ranges[..], ok.first()) {
                let free = ok.iter().fold(0, |a, &v| a | (v ^ v0));
                if ok.len() == 1 << free.count_ones() {
                    let fixed = ((1u32 << width) - 1) & !free;
                    r.mask |= (fixed as u128) << off;
                    r.val |= ((v0 & fixed) as u128) << off;
                    continue;
                }
            }
            let t = intern(tab)?;
            match f.ranges[..] {
                [(off, w)] if off + w <= 64 && n < INLINE => {
                    let bit = 1u64 << off;
                    // A 7-bit field (SADDR, SDATA, ...) takes a lookup slot before the `pair`
                    // screen, which picks out null (`off`) and other odd values; wider fields
                    // read inline constants at 128 and up, which a lookup slot would send to
                    // the full check.
                    let screen = screened(&tab, w);
                    if let Some((src, pair)) = screen.filter(|_| w >= 8 || looks == LOOK) {
                        if src {
                            *(if w == 9 { &mut sc.src9 } else { &mut sc.src8 }) |= bit;
                        }
                        if pair {
                            *(if w == 9 { &mut sc.pair9 } else { &mut sc.pair8 }) |= bit;
                        }
                    } else if looks < LOOK {
                        let mut map = 0u128;
                        for v in (0..128).filter(|&v| tab[v] != 0) {
                            map |= 1 << v;
                        }
                        sc.look[looks] = (off as u8, ((1u32 << w) - 1) as u16, map);
                        looks += 1;
                    } else {
                        cold = true;
                    }
                    r.fields[n] = (off as u8, t);
                    n += 1;
                }
                _ => extra.push((t, f.clone())),
            }
        }
        for op in &ie.operands {
            if op.field.is_empty() || op.implicit || m.swept.iter().any(|(name, _)| *name == op.field) {
                continue;
            }
            let f = e.fields.iter().find(|f| f.name == op.field).ok_or_else(|| format!("{ename}: no field {}", op.field))?;
            if ename == "ENC_VINTRP" {
                break; // gfx10 interpolation: VGPR operands only
            }
            let mut ty = op.ty.as_str();
            // Scaled fields (SGPR pairs, quads) and register tuples are left alone.
            let scaled = matches!(f.name.as_str(), "SBASE" | "SRSRC" | "SSAMP" | "RSRC" | "SAMP");
            if !matches!(ty, "OPR_SRC" | "OPR_SSRC" | "OPR_SDST" | "OPR_SREG") || scaled {
                continue;
            }
            let width = f.ranges.iter().map(|r| r.1).sum::<u32>() as u8;
            if width == 8 && !ty.ends_with("SRC") {
                // An 8-bit scalar destination (VOP3 VDST of compares, v_readlane) reads like a
                // scalar source: LLVM prints 128-208 and 240-255 with an `/*Invalid ...*/` note.
                ty = "OPR_SSRC";
            }
            let k = Kind { ty, width, pair: op.size == 64 };
            let mut tab = typed(k);
            if f.ranges.len() > 1 {
                // A source in pieces is gfx10 SDWA's VSRC0: bit 8 (S0) set selects a scalar
                // source, so the table is read at the field's value with that bit inverted.
                let t = tab;
                for (v, x) in tab.iter_mut().enumerate() {
                    *x = t[v ^ 256];
                }
            }
            if tab.iter().all(|&b| b == 0) {
                continue;
            }
            let tab = intern(tab)?;
            match f.ranges[..] {
                [(off, w)] if off + w <= 64 && n < INLINE && w >= 7 => {
                    let bit = 1u64 << off;
                    let wide = w == 9;
                    if ty == "OPR_SRC" || ty == "OPR_SSRC" {
                        *(if wide { &mut sc.src9 } else { &mut sc.src8 }) |= bit;
                    }
                    if k.pair {
                        *(if wide { &mut sc.pair9 } else { &mut sc.pair8 }) |= bit;
                    }
                    r.fields[n] = (off as u8, tab);
                    n += 1;
                }
                // Scalar destinations and registers past bit 63 (memory instructions' SOFFSET,
                // gfx12's wide encodings) are not checked: every word of such an instruction
                // would leave the inline loop.
                _ if !ty.ends_with("SRC") => {}
                _ => extra.push((tab, f.clone())),
            }
        }
        if !extra.is_empty() {
            r.slow = true;
            slow.push((i as u16, extra));
        }
        (sc.mask, sc.val) = (r.mask as u64, r.val as u64);
        if r.mask >> 64 != 0 || r.slow || cold {
            (sc.mask, sc.val) = (0, 1);
        }
        sc.extra = looks > 0 || sc.combo.forbid != 0;
        let k = *seen.entry(r).or_insert_with(|| {
            rules.push(r);
            screens.push(sc);
            (rules.len() - 1) as u16
        });
        idx.push(k);
    }
    Ok(Rules { idx, rules, screens, reserved, slow })
}
