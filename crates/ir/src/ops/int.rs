//! Integer and bitwise operations: wrap/saturate arithmetic, multiply high, shifts with explicit
//! out-of-range rules, funnel shifts, bit-field extract/insert, population count, byte permute,
//! three-input logic, dot products and comparisons.

/// Out-of-range shift amount rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShiftRule {
    /// Amounts >= width act as width (NVIDIA `shl`/`shr`, funnel `.clamp`).
    Clamp,
    /// Only the low log2(width) bits of the amount count (AMD, funnel `.wrap`).
    Wrap,
}

/// Integer overflow behaviour of add/sub.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Overflow {
    /// Two's-complement wrap.
    Wrap,
    /// Saturate to the signed range.
    SatS,
    /// Saturate to the unsigned range.
    SatU,
}

/// `prmt` selector mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrmtMode {
    /// Default: four 4-bit selectors with sign replication bit.
    Default,
    /// Forward 4 extract.
    F4e,
    /// Backward 4 extract.
    B4e,
    /// Replicate 8.
    Rc8,
    /// Edge clamp left.
    Ecl,
    /// Edge clamp right.
    Ecr,
    /// Replicate 16.
    Rc16,
    /// One selector byte per result byte: 0-7 pick a byte of (b:a), 8-11 replicate the sign bit
    /// of byte 1, 3, 5 or 7, 12 gives 0x00, 13 and above 0xff.
    Sel8,
}

/// Integer comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ICmp {
    /// Equal.
    Eq,
    /// Not equal.
    Ne,
    /// Signed less.
    Slt,
    /// Signed less or equal.
    Sle,
    /// Signed greater.
    Sgt,
    /// Signed greater or equal.
    Sge,
    /// Unsigned less.
    Ult,
    /// Unsigned less or equal.
    Ule,
    /// Unsigned greater.
    Ugt,
    /// Unsigned greater or equal.
    Uge,
}

/// An integer or bitwise operation (element-wise on vectors).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntOp {
    /// a + b.
    Add(Overflow),
    /// a - b.
    Sub(Overflow),
    /// Low half of a * b.
    MulLo,
    /// High half of a * b (signed or unsigned).
    MulHi(bool),
    /// Low half of a * b + c.
    MadLo,
    /// High half of a * b, plus c (signed or unsigned).
    MadHi(bool),
    /// Minimum (signed or unsigned).
    Min(bool),
    /// Maximum (signed or unsigned).
    Max(bool),
    /// Shift left.
    Shl(ShiftRule),
    /// Shift right (arithmetic when signed).
    Shr(bool, ShiftRule),
    /// Funnel shift left of (b:a) by c, result high word.
    ShfL(ShiftRule),
    /// Funnel shift right of (b:a) by c, result low word.
    ShfR(ShiftRule),
    /// Bit-field extract of a at position `b[7:0]`, length `c[7:0]` (signed: sign extend).
    Bfe(bool),
    /// Bit-field insert a into b at position c, length d.
    Bfi,
    /// Population count.
    Popc,
    /// Count leading zeros.
    Clz,
    /// Bit reverse.
    Brev,
    /// Bitwise not.
    Not,
    /// Bitwise and.
    And,
    /// Bitwise or.
    Or,
    /// Bitwise xor.
    Xor,
    /// Three-input logic with an 8-bit truth table.
    Lop3(u8),
    /// Byte permute.
    Prmt(PrmtMode),
    /// Four-way byte dot product plus c (a signed, b signed).
    Dp4a(bool, bool),
    /// Two-way 16x8 dot product plus c (high bytes of b when the first flag is set; signedness).
    Dp2a(bool, bool),
    /// Two's-complement negation.
    Neg,
    /// Integer comparison giving b1.
    Cmp(ICmp),
}

const ICMP_NAMES: [(ICmp, &str); 10] = [
    (ICmp::Eq, "eq"),
    (ICmp::Ne, "ne"),
    (ICmp::Slt, "slt"),
    (ICmp::Sle, "sle"),
    (ICmp::Sgt, "sgt"),
    (ICmp::Sge, "sge"),
    (ICmp::Ult, "ult"),
    (ICmp::Ule, "ule"),
    (ICmp::Ugt, "ugt"),
    (ICmp::Uge, "uge"),
];

const PRMT_NAMES: [(PrmtMode, &str); 8] = [
    (PrmtMode::Default, ""),
    (PrmtMode::F4e, "f4e"),
    (PrmtMode::B4e, "b4e"),
    (PrmtMode::Rc8, "rc8"),
    (PrmtMode::Ecl, "ecl"),
    (PrmtMode::Ecr, "ecr"),
    (PrmtMode::Rc16, "rc16"),
    (PrmtMode::Sel8, "sel8"),
];

fn su(s: bool) -> &'static str {
    if s {
        "s"
    } else {
        "u"
    }
}

fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        ((v << (64 - bits)) as i64) >> (64 - bits)
    }
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

impl IntOp {
    /// Number of operands.
    pub const fn arity(self) -> usize {
        match self {
            IntOp::Popc | IntOp::Clz | IntOp::Brev | IntOp::Not | IntOp::Neg => 1,
            IntOp::MadLo
            | IntOp::MadHi(_)
            | IntOp::ShfL(_)
            | IntOp::ShfR(_)
            | IntOp::Bfe(_)
            | IntOp::Lop3(_)
            | IntOp::Prmt(_)
            | IntOp::Dp4a(..)
            | IntOp::Dp2a(..) => 3,
            IntOp::Bfi => 4,
            _ => 2,
        }
    }

    /// Text mnemonic.
    pub fn mnemonic(&self) -> String {
        let ov = |o: Overflow| match o {
            Overflow::Wrap => "",
            Overflow::SatS => ".sats",
            Overflow::SatU => ".satu",
        };
        let sr = |r: ShiftRule| match r {
            ShiftRule::Clamp => "clamp",
            ShiftRule::Wrap => "wrap",
        };
        match *self {
            IntOp::Add(o) => format!("iadd{}", ov(o)),
            IntOp::Sub(o) => format!("isub{}", ov(o)),
            IntOp::MulLo => "imul.lo".into(),
            IntOp::MulHi(s) => format!("imul.hi.{}", su(s)),
            IntOp::MadLo => "imad.lo".into(),
            IntOp::MadHi(s) => format!("imad.hi.{}", su(s)),
            IntOp::Min(s) => format!("imin.{}", su(s)),
            IntOp::Max(s) => format!("imax.{}", su(s)),
            IntOp::Shl(r) => format!("shl.{}", sr(r)),
            IntOp::Shr(s, r) => format!("shr.{}.{}", su(s), sr(r)),
            IntOp::ShfL(r) => format!("shf.l.{}", sr(r)),
            IntOp::ShfR(r) => format!("shf.r.{}", sr(r)),
            IntOp::Bfe(s) => format!("bfe.{}", su(s)),
            IntOp::Bfi => "bfi".into(),
            IntOp::Popc => "popc".into(),
            IntOp::Clz => "clz".into(),
            IntOp::Brev => "brev".into(),
            IntOp::Not => "not".into(),
            IntOp::And => "and".into(),
            IntOp::Or => "or".into(),
            IntOp::Xor => "xor".into(),
            IntOp::Lop3(t) => format!("lop3.{t}"),
            IntOp::Prmt(m) => {
                let n = PRMT_NAMES.iter().find(|(x, _)| *x == m).map(|p| p.1).unwrap_or("");
                if n.is_empty() {
                    "prmt".into()
                } else {
                    format!("prmt.{n}")
                }
            }
            IntOp::Dp4a(a, b) => format!("dp4a.{}.{}", su(a), su(b)),
            IntOp::Dp2a(hi, s) => format!("dp2a.{}.{}", if hi { "hi" } else { "lo" }, su(s)),
            IntOp::Neg => "ineg".into(),
            IntOp::Cmp(c) => {
                let n = ICMP_NAMES.iter().find(|(x, _)| *x == c).map(|p| p.1).unwrap_or("eq");
                format!("icmp.{n}")
            }
        }
    }

    /// Parse a mnemonic split at dots.
    pub fn parse(base: &str, mods: &[&str]) -> Option<IntOp> {
        let sgn = |m: &str| match m {
            "s" => Some(true),
            "u" => Some(false),
            _ => None,
        };
        let rule = |m: &str| match m {
            "clamp" => Some(ShiftRule::Clamp),
            "wrap" => Some(ShiftRule::Wrap),
            _ => None,
        };
        let ov = |m: &[&str]| match m {
            [] => Some(Overflow::Wrap),
            ["sats"] => Some(Overflow::SatS),
            ["satu"] => Some(Overflow::SatU),
            _ => None,
        };
        Some(match (base, mods) {
            ("iadd", m) => IntOp::Add(ov(m)?),
            ("isub", m) => IntOp::Sub(ov(m)?),
            ("imul", ["lo"]) => IntOp::MulLo,
            ("imul", ["hi", s]) => IntOp::MulHi(sgn(s)?),
            ("imad", ["lo"]) => IntOp::MadLo,
            ("imad", ["hi", s]) => IntOp::MadHi(sgn(s)?),
            ("imin", [s]) => IntOp::Min(sgn(s)?),
            ("imax", [s]) => IntOp::Max(sgn(s)?),
            ("shl", [r]) => IntOp::Shl(rule(r)?),
            ("shr", [s, r]) => IntOp::Shr(sgn(s)?, rule(r)?),
            ("shf", ["l", r]) => IntOp::ShfL(rule(r)?),
            ("shf", ["r", r]) => IntOp::ShfR(rule(r)?),
            ("bfe", [s]) => IntOp::Bfe(sgn(s)?),
            ("bfi", []) => IntOp::Bfi,
            ("popc", []) => IntOp::Popc,
            ("clz", []) => IntOp::Clz,
            ("brev", []) => IntOp::Brev,
            ("not", []) => IntOp::Not,
            ("and", []) => IntOp::And,
            ("or", []) => IntOp::Or,
            ("xor", []) => IntOp::Xor,
            ("ineg", []) => IntOp::Neg,
            ("lop3", [t]) => IntOp::Lop3(t.parse().ok()?),
            ("prmt", []) => IntOp::Prmt(PrmtMode::Default),
            ("prmt", [m]) => IntOp::Prmt(PRMT_NAMES.iter().find(|(_, n)| !n.is_empty() && n == m)?.0),
            ("dp4a", [a, b]) => IntOp::Dp4a(sgn(a)?, sgn(b)?),
            ("dp2a", [h, s]) => IntOp::Dp2a(
                match *h {
                    "hi" => true,
                    "lo" => false,
                    _ => return None,
                },
                sgn(s)?,
            ),
            ("icmp", [c]) => IntOp::Cmp(ICMP_NAMES.iter().find(|(_, n)| n == c)?.0),
            _ => return None,
        })
    }

    /// Evaluate on one element of `bits` width (operands are masked to the width; comparisons
    /// return 0 or 1).
    pub fn eval(self, bits: u32, a: u64, b: u64, c: u64, d: u64) -> u64 {
        let m = mask(bits);
        let (a, b, c) = (a & m, b & m, c & m);
        let (sa, sb) = (sext(a, bits), sext(b, bits));
        let smin = -(1i128 << (bits - 1));
        let smax = (1i128 << (bits - 1)) - 1;
        let amt = |x: u64, r: ShiftRule| -> u32 {
            match r {
                ShiftRule::Clamp => x.min(bits as u64) as u32,
                ShiftRule::Wrap => (x & (bits as u64 - 1)) as u32,
            }
        };
        let shl = |v: u64, s: u32| if s >= 64 { 0 } else { v << s };
        let shr = |v: u64, s: u32| if s >= 64 { 0 } else { v >> s };
        let r = match self {
            IntOp::Add(Overflow::Wrap) => a.wrapping_add(b),
            IntOp::Add(Overflow::SatS) => (sa as i128 + sb as i128).clamp(smin, smax) as u64,
            IntOp::Add(Overflow::SatU) => (a as u128 + b as u128).min(m as u128) as u64,
            IntOp::Sub(Overflow::Wrap) => a.wrapping_sub(b),
            IntOp::Sub(Overflow::SatS) => (sa as i128 - sb as i128).clamp(smin, smax) as u64,
            IntOp::Sub(Overflow::SatU) => a.saturating_sub(b),
            IntOp::MulLo => a.wrapping_mul(b),
            IntOp::MulHi(s) => {
                if s {
                    ((sa as i128 * sb as i128) >> bits) as u64
                } else {
                    ((a as u128 * b as u128) >> bits) as u64
                }
            }
            IntOp::MadLo => a.wrapping_mul(b).wrapping_add(c),
            IntOp::MadHi(s) => IntOp::MulHi(s).eval(bits, a, b, 0, 0).wrapping_add(c),
            IntOp::Min(true) => sa.min(sb) as u64,
            IntOp::Min(false) => a.min(b),
            IntOp::Max(true) => sa.max(sb) as u64,
            IntOp::Max(false) => a.max(b),
            IntOp::Shl(r) => shl(a, amt(b, r)),
            IntOp::Shr(false, r) => shr(a, amt(b, r)),
            IntOp::Shr(true, r) => (sa >> amt(b, r).min(63)) as u64,
            IntOp::ShfL(r) => {
                let s = amt(c, r);
                let wide = ((b as u128) << bits) | a as u128;
                ((wide << s) >> bits) as u64
            }
            IntOp::ShfR(r) => {
                let s = amt(c, r);
                let wide = ((b as u128) << bits) | a as u128;
                (wide >> s) as u64
            }
            IntOp::Bfe(s) => {
                let pos = (b & 0xff) as u32;
                let len = (c & 0xff) as u32;
                let msb = bits - 1;
                let sbit = if s && len != 0 { (a >> (pos + len - 1).min(msb)) & 1 } else { 0 };
                let mut r = 0u64;
                for i in 0..bits {
                    let bit = if i < len && pos + i <= msb { (a >> (pos + i)) & 1 } else { sbit };
                    r |= bit << i;
                }
                r
            }
            IntOp::Bfi => {
                let pos = (c & 0xff) as u32;
                let len = (d & 0xff) as u32;
                let fmask = shl(mask(len.min(bits)), pos) & m;
                if pos >= bits {
                    b
                } else {
                    (b & !fmask) | (shl(a, pos) & fmask)
                }
            }
            IntOp::Popc => a.count_ones() as u64,
            IntOp::Clz => (a.leading_zeros() - (64 - bits)) as u64,
            IntOp::Brev => a.reverse_bits() >> (64 - bits),
            IntOp::Not => !a,
            IntOp::And => a & b,
            IntOp::Or => a | b,
            IntOp::Xor => a ^ b,
            IntOp::Neg => a.wrapping_neg(),
            IntOp::Lop3(t) => {
                let mut r = 0u64;
                for k in 0..8u8 {
                    if t >> k & 1 != 0 {
                        let x = if k & 4 != 0 { a } else { !a };
                        let y = if k & 2 != 0 { b } else { !b };
                        let z = if k & 1 != 0 { c } else { !c };
                        r |= x & y & z;
                    }
                }
                r
            }
            IntOp::Prmt(mode) => prmt(mode, a as u32, b as u32, c as u32) as u64,
            IntOp::Dp4a(sa_, sb_) => {
                let mut acc = c as u32;
                for i in 0..4 {
                    let x = (a >> (8 * i)) & 0xff;
                    let y = (b >> (8 * i)) & 0xff;
                    let x = if sa_ { x as i8 as i32 } else { x as i32 };
                    let y = if sb_ { y as i8 as i32 } else { y as i32 };
                    acc = acc.wrapping_add((x.wrapping_mul(y)) as u32);
                }
                acc as u64
            }
            IntOp::Dp2a(hi, s) => {
                let mut acc = c as u32;
                for i in 0..2 {
                    let x = (a >> (16 * i)) & 0xffff;
                    let y = (b >> (8 * (i + if hi { 2 } else { 0 }))) & 0xff;
                    let x = if s { x as i16 as i32 } else { x as i32 };
                    let y = if s { y as i8 as i32 } else { y as i32 };
                    acc = acc.wrapping_add((x.wrapping_mul(y)) as u32);
                }
                acc as u64
            }
            IntOp::Cmp(cc) => {
                let r = match cc {
                    ICmp::Eq => a == b,
                    ICmp::Ne => a != b,
                    ICmp::Slt => sa < sb,
                    ICmp::Sle => sa <= sb,
                    ICmp::Sgt => sa > sb,
                    ICmp::Sge => sa >= sb,
                    ICmp::Ult => a < b,
                    ICmp::Ule => a <= b,
                    ICmp::Ugt => a > b,
                    ICmp::Uge => a >= b,
                };
                return r as u64;
            }
        };
        r & m
    }
}

/// PTX `prmt.b32` on (b:a) with selector c.
pub fn prmt(mode: PrmtMode, a: u32, b: u32, c: u32) -> u32 {
    let bytes = ((b as u64) << 32) | a as u64;
    let byte = |i: u32| ((bytes >> (8 * (i & 7))) & 0xff) as u32;
    let sel: [u32; 4] = match mode {
        PrmtMode::Default => {
            let mut r = 0;
            for k in 0..4 {
                let s = (c >> (4 * k)) & 0xf;
                let mut v = byte(s & 7);
                if s & 8 != 0 {
                    v = if v & 0x80 != 0 { 0xff } else { 0 };
                }
                r |= v << (8 * k);
            }
            return r;
        }
        PrmtMode::F4e => {
            let s = c & 3;
            [s, s + 1, s + 2, s + 3]
        }
        PrmtMode::B4e => {
            let s = c & 3;
            [(8 - s) & 7, (7 - s) & 7, (6 - s) & 7, (5 - s) & 7]
        }
        PrmtMode::Rc8 => {
            let s = c & 3;
            [s, s, s, s]
        }
        PrmtMode::Ecl => {
            let s = c & 3;
            [s, s.max(1), s.max(2), 3]
        }
        PrmtMode::Ecr => {
            let s = c & 3;
            [0, s.min(1), s.min(2), s]
        }
        PrmtMode::Rc16 => {
            let s = c & 1;
            [2 * s, 2 * s + 1, 2 * s, 2 * s + 1]
        }
        PrmtMode::Sel8 => {
            let mut r = 0;
            for k in 0..4 {
                let s = (c >> (8 * k)) & 0xff;
                let v = match s {
                    0..=7 => byte(s),
                    8..=11 => 0xff * (byte(2 * (s - 8) + 1) >> 7),
                    12 => 0,
                    _ => 0xff,
                };
                r |= v << (8 * k);
            }
            return r;
        }
    };
    sel.iter().enumerate().fold(0, |r, (k, &s)| r | (byte(s) << (8 * k)))
}
