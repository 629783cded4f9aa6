//! Memory operations: loads, stores and atomics in the global, shared, constant and scratch
//! address spaces, with memory scopes; fences.

/// Address space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// Device memory; 64-bit byte address.
    Global,
    /// Workgroup (LDS / shared) memory; 32-bit byte offset.
    Shared,
    /// Read-only constant bank (NVIDIA `c[bank][offset]`); 32-bit byte offset.
    Constant(u8),
    /// Per-lane private memory; 32-bit byte offset.
    Scratch,
}

/// Memory scope of an atomic, fence or barrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// One wave / warp.
    Wave,
    /// One workgroup / CTA.
    Workgroup,
    /// The whole device.
    Device,
    /// Device and host.
    System,
}

impl Scope {
    /// Text name.
    pub const fn name(self) -> &'static str {
        match self {
            Scope::Wave => "wave",
            Scope::Workgroup => "wg",
            Scope::Device => "dev",
            Scope::System => "sys",
        }
    }
    /// Parse a name.
    pub fn parse(s: &str) -> Option<Scope> {
        Some(match s {
            "wave" => Scope::Wave,
            "wg" => Scope::Workgroup,
            "dev" => Scope::Device,
            "sys" => Scope::System,
            _ => return None,
        })
    }
}

/// Read-modify-write operation of an atomic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicKind {
    /// Wrapping add.
    Add,
    /// Signed (true) or unsigned minimum.
    Min(bool),
    /// Signed (true) or unsigned maximum.
    Max(bool),
    /// And.
    And,
    /// Or.
    Or,
    /// Xor.
    Xor,
    /// Exchange.
    Exch,
    /// Compare (second operand) and swap (third operand).
    CmpExch,
    /// Unsigned increment that wraps to 0 past the operand: `old >= v ? 0 : old + 1`.
    Inc,
    /// Unsigned decrement that wraps to the operand: `old == 0 || old > v ? v : old - 1`.
    Dec,
    /// Wrapping subtract: `old - v`.
    Sub,
    /// Float add (f32 or f64 by width), round to nearest even, denormals kept; a NaN result is
    /// the format's default quiet NaN.
    FAdd,
    /// f32 add, round to nearest even, with subnormal operands and a subnormal result flushed
    /// to zero of the same sign; a NaN result as for [`AtomicKind::FAdd`].
    FAddFtz,
    /// Float minimum (f32 or f64 by width): a NaN operand gives the other operand (the default
    /// quiet NaN when both are NaN); -0 is less than +0.
    FMin,
    /// Float maximum, as [`AtomicKind::FMin`] the other way.
    FMax,
    /// Two 16-bit float adds on a 32-bit word, one per half (f16, or bf16 when `bf16`), round
    /// to nearest even, denormals kept; a NaN half is 0x7fff (sign clear, every payload bit
    /// set). NVIDIA `atom.add.noftz.f16x2` / `.bf16x2` and `red` as an sm_90 GPU computes them
    /// (fixtures/hw/atom_ops_sm90_seed1.txt.gz: every half of 1,024 rows per op).
    FAddPair16 {
        /// bf16 halves (else f16).
        bf16: bool,
    },
}

const ATOMIC_NAMES: [(AtomicKind, &str); 19] = [
    (AtomicKind::Sub, "sub"),
    (AtomicKind::FAddFtz, "faddftz"),
    (AtomicKind::FAddPair16 { bf16: false }, "fadd2xf16"),
    (AtomicKind::FAddPair16 { bf16: true }, "fadd2xbf16"),
    (AtomicKind::FAdd, "fadd"),
    (AtomicKind::FMin, "fmin"),
    (AtomicKind::FMax, "fmax"),
    (AtomicKind::Inc, "inc"),
    (AtomicKind::Dec, "dec"),
    (AtomicKind::Add, "add"),
    (AtomicKind::Min(true), "smin"),
    (AtomicKind::Min(false), "umin"),
    (AtomicKind::Max(true), "smax"),
    (AtomicKind::Max(false), "umax"),
    (AtomicKind::And, "and"),
    (AtomicKind::Or, "or"),
    (AtomicKind::Xor, "xor"),
    (AtomicKind::Exch, "exch"),
    (AtomicKind::CmpExch, "cas"),
];

/// Text name of an atomic operation.
pub fn atomic_name(k: AtomicKind) -> &'static str {
    ATOMIC_NAMES.iter().find(|(x, _)| *x == k).map(|p| p.1).unwrap_or("add")
}

/// Parse the text name of an atomic operation.
pub fn parse_atomic(s: &str) -> Option<AtomicKind> {
    ATOMIC_NAMES.iter().find(|(_, n)| *n == s).map(|p| p.0)
}

/// A memory operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemOp {
    /// Load the result type from address operand 0.
    Load(Space),
    /// Store operand 1 to address operand 0.
    Store(Space),
    /// Atomic on address operand 0 with value operand 1 (and 2 for cas); returns the old value.
    Atomic(Space, AtomicKind, Scope),
}

fn space_name(s: Space) -> String {
    match s {
        Space::Global => "global".into(),
        Space::Shared => "shared".into(),
        Space::Constant(b) => format!("const{b}"),
        Space::Scratch => "scratch".into(),
    }
}

fn parse_space(s: &str) -> Option<Space> {
    Some(match s {
        "global" => Space::Global,
        "shared" => Space::Shared,
        "scratch" => Space::Scratch,
        _ => Space::Constant(s.strip_prefix("const")?.parse().ok()?),
    })
}

impl MemOp {
    /// Number of operands.
    pub const fn arity(self) -> usize {
        match self {
            MemOp::Load(_) => 1,
            MemOp::Store(_) => 2,
            MemOp::Atomic(_, AtomicKind::CmpExch, _) => 3,
            MemOp::Atomic(..) => 2,
        }
    }
    /// The address space.
    pub const fn space(self) -> Space {
        match self {
            MemOp::Load(s) | MemOp::Store(s) | MemOp::Atomic(s, ..) => s,
        }
    }
    /// Text mnemonic.
    pub fn mnemonic(&self) -> String {
        match self {
            MemOp::Load(s) => format!("load.{}", space_name(*s)),
            MemOp::Store(s) => format!("store.{}", space_name(*s)),
            MemOp::Atomic(s, k, sc) => {
                let n = ATOMIC_NAMES.iter().find(|(x, _)| x == k).map(|p| p.1).unwrap_or("add");
                format!("atomic.{}.{}.{}", n, space_name(*s), sc.name())
            }
        }
    }
    /// Parse a mnemonic split at dots.
    pub fn parse(base: &str, mods: &[&str]) -> Option<MemOp> {
        Some(match (base, mods) {
            ("load", [s]) => MemOp::Load(parse_space(s)?),
            ("store", [s]) => MemOp::Store(parse_space(s)?),
            ("atomic", [k, s, sc]) => {
                let space = parse_space(s)?;
                if matches!(space, Space::Constant(_)) {
                    return None;
                }
                MemOp::Atomic(space, ATOMIC_NAMES.iter().find(|(_, n)| n == k)?.0, Scope::parse(sc)?)
            }
            _ => return None,
        })
    }
}

/// Apply an atomic's read-modify-write on `bits`-wide values.
pub fn atomic_apply(kind: AtomicKind, bits: u32, old: u64, v: u64, swap: u64) -> u64 {
    let m = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let sx = |x: u64| if bits >= 64 { x as i64 } else { ((x << (64 - bits)) as i64) >> (64 - bits) };
    let r = match kind {
        AtomicKind::Add => old.wrapping_add(v),
        AtomicKind::Min(true) => sx(old).min(sx(v)) as u64,
        AtomicKind::Min(false) => (old & m).min(v & m),
        AtomicKind::Max(true) => sx(old).max(sx(v)) as u64,
        AtomicKind::Max(false) => (old & m).max(v & m),
        AtomicKind::And => old & v,
        AtomicKind::Or => old | v,
        AtomicKind::Xor => old ^ v,
        AtomicKind::Exch => v,
        AtomicKind::Inc => {
            if old & m >= v & m {
                0
            } else {
                old.wrapping_add(1)
            }
        }
        AtomicKind::Dec => {
            if old & m == 0 || old & m > v & m {
                v
            } else {
                old.wrapping_sub(1)
            }
        }
        AtomicKind::CmpExch => {
            if old & m == v & m {
                swap
            } else {
                old
            }
        }
        AtomicKind::Sub => old.wrapping_sub(v),
        AtomicKind::FAdd | AtomicKind::FMin | AtomicKind::FMax => float_rmw(kind, bits, old & m, v & m),
        AtomicKind::FAddFtz => {
            let flush = |x: u64| if x & 0x7f80_0000 == 0 { x & 0x8000_0000 } else { x };
            flush(float_rmw(AtomicKind::FAdd, 32, flush(old & m), flush(v & m)))
        }
        AtomicKind::FAddPair16 { bf16 } => {
            let fmt = if bf16 { crate::soft::FFmt::BF16 } else { crate::soft::FFmt::F16 };
            let half = |sh: u32| crate::soft::add(fmt, &crate::soft::FloatMode::NV_RN, old >> sh & 0xffff, v >> sh & 0xffff) & 0xffff;
            half(0) | half(16) << 16
        }
    };
    r & m
}

/// The float read-modify-writes on f32 (`bits` 32) or f64 bit patterns.
fn float_rmw(kind: AtomicKind, bits: u32, old: u64, v: u64) -> u64 {
    let (a, b, qnan) = if bits == 64 {
        (f64::from_bits(old), f64::from_bits(v), 0x7ff8_0000_0000_0000)
    } else {
        (f32::from_bits(old as u32) as f64, f32::from_bits(v as u32) as f64, 0x7fc0_0000)
    };
    let back = |x: f64| if bits == 64 { x.to_bits() } else { (x as f32).to_bits() as u64 };
    match kind {
        AtomicKind::FAdd => {
            // f32 sums of f32 operands are exact in f64, so one rounding to f32 is correct.
            let r = a + b;
            if r.is_nan() {
                qnan
            } else {
                back(r)
            }
        }
        _ => {
            let max = kind == AtomicKind::FMax;
            match (a.is_nan(), b.is_nan()) {
                (true, true) => qnan,
                (true, false) => v,
                (false, true) => old,
                _ => {
                    // Order -0 below +0 by comparing (value, sign) pairs.
                    let key = |x: f64| (x, !x.is_sign_negative());
                    let b_wins = if max { key(b) > key(a) } else { key(b) < key(a) };
                    if b_wins {
                        v
                    } else {
                        old
                    }
                }
            }
        }
    }
}
