//! Value types of the SSA IR.

use crate::soft::FFmt;
use std::fmt;

/// A scalar (element) type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scalar {
    /// One-bit boolean (predicate).
    B1,
    /// 8-bit integer (signedness lives on the operation).
    I8,
    /// 16-bit integer.
    I16,
    /// 32-bit integer.
    I32,
    /// 64-bit integer.
    I64,
    /// Floating point in the given format.
    F(FFmt),
}

impl Scalar {
    /// Width in bits.
    pub const fn bits(self) -> u32 {
        match self {
            Scalar::B1 => 1,
            Scalar::I8 => 8,
            Scalar::I16 => 16,
            Scalar::I32 => 32,
            Scalar::I64 => 64,
            Scalar::F(f) => f.width(),
        }
    }
    /// Text name.
    pub const fn name(self) -> &'static str {
        match self {
            Scalar::B1 => "b1",
            Scalar::I8 => "i8",
            Scalar::I16 => "i16",
            Scalar::I32 => "i32",
            Scalar::I64 => "i64",
            Scalar::F(f) => f.name(),
        }
    }
    /// Parse a scalar name.
    pub fn parse(s: &str) -> Option<Scalar> {
        Some(match s {
            "b1" => Scalar::B1,
            "i8" => Scalar::I8,
            "i16" => Scalar::I16,
            "i32" => Scalar::I32,
            "i64" => Scalar::I64,
            "f16" => Scalar::F(FFmt::F16),
            "bf16" => Scalar::F(FFmt::BF16),
            "f32" => Scalar::F(FFmt::F32),
            "f64" => Scalar::F(FFmt::F64),
            "e4m3" => Scalar::F(FFmt::E4M3),
            "e5m2" => Scalar::F(FFmt::E5M2),
            _ => return None,
        })
    }
    /// The integer scalar of a given width.
    pub fn int(bits: u32) -> Option<Scalar> {
        Some(match bits {
            8 => Scalar::I8,
            16 => Scalar::I16,
            32 => Scalar::I32,
            64 => Scalar::I64,
            _ => return None,
        })
    }
}

/// A value type: scalar, small vector (at most 64 bits in all, packed low element first), or a
/// lane mask (one bit per lane of the wave; wave64 fits in 64 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    /// A scalar.
    S(Scalar),
    /// A packed vector of 2..=8 elements, at most 64 bits.
    V(Scalar, u8),
    /// A lane mask.
    Mask,
}

impl Type {
    /// b1.
    pub const B1: Type = Type::S(Scalar::B1);
    /// i8.
    pub const I8: Type = Type::S(Scalar::I8);
    /// i16.
    pub const I16: Type = Type::S(Scalar::I16);
    /// i32.
    pub const I32: Type = Type::S(Scalar::I32);
    /// i64.
    pub const I64: Type = Type::S(Scalar::I64);
    /// f16.
    pub const F16: Type = Type::S(Scalar::F(FFmt::F16));
    /// bf16.
    pub const BF16: Type = Type::S(Scalar::F(FFmt::BF16));
    /// f32.
    pub const F32: Type = Type::S(Scalar::F(FFmt::F32));
    /// f64.
    pub const F64: Type = Type::S(Scalar::F(FFmt::F64));

    /// Total width in bits.
    pub const fn bits(self) -> u32 {
        match self {
            Type::S(s) => s.bits(),
            Type::V(s, n) => s.bits() * n as u32,
            Type::Mask => 64,
        }
    }
    /// Mask of the value's bits in a u64.
    pub const fn mask(self) -> u64 {
        let b = self.bits();
        if b >= 64 {
            u64::MAX
        } else {
            (1u64 << b) - 1
        }
    }
    /// Element type (the scalar itself for scalars; i64-like for masks).
    pub const fn elem(self) -> Scalar {
        match self {
            Type::S(s) | Type::V(s, _) => s,
            Type::Mask => Scalar::I64,
        }
    }
    /// Number of elements.
    pub const fn lanes(self) -> u32 {
        match self {
            Type::V(_, n) => n as u32,
            _ => 1,
        }
    }
    /// Float format of the element type, if it is a float.
    pub const fn float(self) -> Option<FFmt> {
        match self.elem() {
            Scalar::F(f) => Some(f),
            _ => None,
        }
    }
    /// Whether the element type is an integer (b1 excluded).
    pub const fn is_int(self) -> bool {
        matches!(self.elem(), Scalar::I8 | Scalar::I16 | Scalar::I32 | Scalar::I64) && !matches!(self, Type::Mask)
    }
    /// Whether this is a valid type (vector size and total width limits).
    pub fn is_valid(self) -> bool {
        match self {
            Type::V(s, n) => (2..=8).contains(&n) && s != Scalar::B1 && self.bits() <= 64,
            _ => true,
        }
    }
    /// Parse a type name such as `f32`, `f16x2`, `mask`.
    pub fn parse(s: &str) -> Option<Type> {
        if s == "mask" {
            return Some(Type::Mask);
        }
        if let Some((e, n)) = s.split_once('x') {
            if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
                let t = Type::V(Scalar::parse(e)?, n.parse().ok()?);
                return t.is_valid().then_some(t);
            }
        }
        Scalar::parse(s).map(Type::S)
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::S(s) => f.write_str(s.name()),
            Type::V(s, n) => write!(f, "{}x{}", s.name(), n),
            Type::Mask => f.write_str("mask"),
        }
    }
}
