//! Buffer access through a 128-bit buffer descriptor: the base address, stride, record count and
//! out-of-range rules travel in the descriptor value, not in the instruction.
//!
//! Operands, in order: the descriptor's four 32-bit words (uniform), the index (i32, read when
//! `idxen`), the byte offset (i32, read when `offen`), the uniform byte offset `soffset` (i32),
//! then the data for stores and atomics (and the compare value of a compare-and-swap), then
//! optionally the lane mask. The access is `bytes` wide (1, 2, 4 or 8); wider machine accesses
//! are several ops, one per dword, because the range check applies to each dword.
//!
//! Descriptor fields read (the layout of AMD's V#, which is data here): word 0 and the low 16
//! bits of word 1 are the base address; word 1 bits 16..30 the stride, bit 31 swizzling (not
//! supported: an error in the interpreter); word 2 the record count; word 3 bit 23 adds the
//! lane id to the index, bits 28..29 select the range check:
//!
//! | check | out of range when |
//! |---|---|
//! | 0 | index >= records, or offset >= stride |
//! | 1 | index >= records |
//! | 2 | records == 0 |
//! | 3 | stride × index + offset >= records (a raw buffer) |
//!
//! where offset is the per-lane offset plus the op's immediate offset (`soffset` is added to
//! the address only). Out of range, a load reads 0, a store is dropped, an atomic changes
//! nothing and returns 0.
//!
//! Formatted access (`loadfmt` / `storefmt`) reads or writes one element of a [`Format`]
//! (the op's own, or the one word 3 bits 12..18 of the descriptor name, numbered as in
//! [`format_of_code`]) at the address; the range check is the one above, on the element's first
//! byte. A formatted load returns one component: word 3 bits 0..11 select, for components x, y,
//! z, w in 3 bits each, 0 (zero), 1 (one: 1.0, or 1 for integer formats), or 4..7 the channel x..w
//! of the element (other values read zero). A formatted store writes its one to four data
//! operands as the channels x.. (channels without data are written as 0); the selects do not
//! apply to stores.

use super::format::{Format, NumFormat};
use super::mem::AtomicKind;

/// What a buffer op does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BufferKind {
    /// Load the result.
    Load,
    /// Store the data operand.
    Store,
    /// Read-modify-write; returns the old value.
    Atomic(AtomicKind),
    /// Load component `comp` (0..=3: x..w) of a formatted element; `half` gives 16-bit values.
    LoadFormat {
        /// The element format; None: the descriptor's.
        format: Option<Format>,
        /// The component returned.
        comp: u8,
        /// 16-bit register values.
        half: bool,
    },
    /// Store a formatted element from `comps` (1..=4) data operands; `half`: 16-bit values.
    StoreFormat {
        /// The element format; None: the descriptor's.
        format: Option<Format>,
        /// Number of data operands (channels x..).
        comps: u8,
        /// 16-bit register values.
        half: bool,
    },
}

/// A buffer access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BufferOp {
    /// Load, store or atomic.
    pub kind: BufferKind,
    /// Bytes accessed: 1, 2, 4 or 8.
    pub bytes: u8,
    /// Immediate byte offset.
    pub offset: u32,
    /// Read the index operand.
    pub idxen: bool,
    /// Read the offset operand.
    pub offen: bool,
}

/// The descriptor fields an access reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferDesc {
    /// Base byte address (48 bits).
    pub base: u64,
    /// Record stride in bytes.
    pub stride: u32,
    /// Number of records (bytes for a raw buffer).
    pub records: u32,
    /// Swizzled addressing (word 1 bit 31); only the private segment buffer's form runs
    /// ([`BufferDesc::private_swizzle`]).
    pub swizzle: bool,
    /// The lane id is added to the index.
    pub add_tid: bool,
    /// Swizzle index stride in records: 8, 16, 32 or 64 (word 3 bits 21-22).
    pub index_stride: u32,
    /// Range-check rule (0..=3).
    pub oob: u8,
    /// Component selects x, y, z, w of formatted loads (0 zero, 1 one, 4..7 channel x..w).
    pub dst_sel: [u8; 4],
    /// Format code of formatted access ([`format_of_code`]).
    pub format: u8,
}

impl BufferDesc {
    /// Read the fields from the descriptor's four words.
    pub fn from_words(w: [u32; 4]) -> BufferDesc {
        BufferDesc {
            base: w[0] as u64 | ((w[1] & 0xffff) as u64) << 32,
            stride: (w[1] >> 16) & 0x3fff,
            records: w[2],
            swizzle: w[1] >> 31 != 0,
            add_tid: w[3] >> 23 & 1 != 0,
            index_stride: 8 << (w[3] >> 21 & 3),
            oob: (w[3] >> 28 & 3) as u8,
            dst_sel: [0, 3, 6, 9].map(|k| (w[3] >> k & 7) as u8),
            format: (w[3] >> 12 & 0x7f) as u8,
        }
    }
    /// Whether the descriptor is swizzled the way a gfx9/gfx10 private segment buffer (the
    /// stack's V# in `s[0:3]`) is: SWIZZLE_ENABLE and ADD_TID_ENABLE with stride 0, so each lane's
    /// dwords interleave with the other lanes' (LLVM `SIInstrInfo::getScratchRsrcWords23` sets
    /// ADD_TID_ENABLE and INDEX_STRIDE 32 or 64 = the wave size; gfx9+ has no ELEMENT_SIZE field,
    /// the element is 4 bytes). The only swizzled form the interpreter runs.
    pub fn private_swizzle(&self) -> bool {
        self.swizzle && self.add_tid && self.stride == 0
    }

    /// The byte address of an access, or None when it is out of range. A swizzled descriptor
    /// ([`BufferDesc::private_swizzle`]) places byte `offset` of record `index` (plus the lane)
    /// as the RDNA ISA's swizzled buffer addressing does with 4-byte elements:
    /// `(index_msb * stride + offset / 4) * index_stride * 4 + index_lsb * 4 + offset % 4`,
    /// where index_msb and index_lsb are the index over and modulo the index stride.
    pub fn address(&self, index: u32, offset: u32, soffset: u32, lane: u32) -> Option<u64> {
        let index = if self.add_tid { index.wrapping_add(lane) } else { index };
        let within = if self.swizzle {
            let (msb, lsb) = ((index / self.index_stride) as u64, (index % self.index_stride) as u64);
            let k = self.index_stride as u64;
            (msb * self.stride as u64 + (offset / 4) as u64) * k * 4 + lsb * 4 + (offset % 4) as u64
        } else {
            (self.stride as u64) * index as u64 + offset as u64
        };
        let out = match self.oob {
            0 => index >= self.records || offset >= self.stride,
            1 => index >= self.records,
            2 => self.records == 0,
            _ => within >= self.records as u64,
        };
        (!out).then(|| self.base.wrapping_add(soffset as u64).wrapping_add(within) & ((1 << 48) - 1))
    }
}

/// The element format a descriptor's 7-bit format code names (the numbering of the
/// descriptor layout); None for 0 (invalid) and unused codes.
pub fn format_of_code(code: u8) -> Option<Format> {
    use NumFormat::*;
    const NUMS: [NumFormat; 6] = [Unorm, Snorm, Uscaled, Sscaled, Uint, Sint];
    // Codes of the six-number-format families and their widths (x first).
    const FAMILIES: [(u8, [u8; 4]); 10] = [
        (1, [8, 0, 0, 0]),
        (7, [16, 0, 0, 0]),
        (14, [8, 8, 0, 0]),
        (23, [16, 16, 0, 0]),
        (30, [11, 11, 10, 0]),
        (37, [10, 11, 11, 0]),
        (44, [2, 10, 10, 10]),
        (50, [10, 10, 10, 2]),
        (56, [8, 8, 8, 8]),
        (65, [16, 16, 16, 16]),
    ];
    let single = |widths, num| Some(Format { widths, num });
    match code {
        13 => single([16, 0, 0, 0], Float),
        20 => single([32, 0, 0, 0], Uint),
        21 => single([32, 0, 0, 0], Sint),
        22 => single([32, 0, 0, 0], Float),
        29 => single([16, 16, 0, 0], Float),
        36 => single([11, 11, 10, 0], Float),
        43 => single([10, 11, 11, 0], Float),
        62 => single([32, 32, 0, 0], Uint),
        63 => single([32, 32, 0, 0], Sint),
        64 => single([32, 32, 0, 0], Float),
        71 => single([16, 16, 16, 16], Float),
        72 => single([32, 32, 32, 0], Uint),
        73 => single([32, 32, 32, 0], Sint),
        74 => single([32, 32, 32, 0], Float),
        75 => single([32, 32, 32, 32], Uint),
        76 => single([32, 32, 32, 32], Sint),
        77 => single([32, 32, 32, 32], Float),
        _ => {
            let (base, widths) = FAMILIES.iter().rev().find(|(b, _)| code >= *b)?;
            NUMS.get((code - base) as usize).and_then(|n| single(*widths, *n))
        }
    }
}

fn kind_name(k: BufferKind) -> String {
    let fmt = |f: Option<Format>| f.map(|f| f.name()).unwrap_or_else(|| "fmtdesc".into());
    let h = |half: bool| if half { ".d16" } else { "" };
    match k {
        BufferKind::Load => "load".into(),
        BufferKind::Store => "store".into(),
        BufferKind::Atomic(a) => format!("atomic.{}", super::mem::atomic_name(a)),
        BufferKind::LoadFormat { format, comp, half } => {
            format!("loadfmt.{}.{}{}", ["x", "y", "z", "w"][comp as usize & 3], fmt(format), h(half))
        }
        BufferKind::StoreFormat { format, comps, half } => format!("storefmt.{comps}.{}{}", fmt(format), h(half)),
    }
}

impl BufferOp {
    /// Number of operands (without the optional mask).
    pub const fn arity(self) -> usize {
        match self.kind {
            BufferKind::Load => 7,
            BufferKind::Store => 8,
            BufferKind::Atomic(AtomicKind::CmpExch) => 9,
            BufferKind::Atomic(_) => 8,
            BufferKind::LoadFormat { .. } => 7,
            BufferKind::StoreFormat { comps, .. } => 7 + comps as usize,
        }
    }
    /// Whether the op produces no value.
    pub const fn is_store(self) -> bool {
        matches!(self.kind, BufferKind::Store | BufferKind::StoreFormat { .. })
    }
    /// Text mnemonic: `buf.load.4.off16.idxen.offen`, `buf.loadfmt.y.fmt16_16_unorm.4.offen`,
    /// `buf.storefmt.3.fmtdesc.d16.2`.
    pub fn mnemonic(&self) -> String {
        let mut s = format!("buf.{}.{}", kind_name(self.kind), self.bytes);
        if self.offset != 0 {
            s += &format!(".off{}", self.offset);
        }
        if self.idxen {
            s += ".idxen";
        }
        if self.offen {
            s += ".offen";
        }
        s
    }
    /// Parse a mnemonic split at dots.
    pub fn parse(base: &str, mods: &[&str]) -> Option<BufferOp> {
        if base != "buf" {
            return None;
        }
        let (kind, rest) = match mods {
            ["load", r @ ..] => (BufferKind::Load, r),
            ["store", r @ ..] => (BufferKind::Store, r),
            ["atomic", a, r @ ..] => (BufferKind::Atomic(super::mem::parse_atomic(a)?), r),
            ["loadfmt", c, f, r @ ..] => {
                let comp = ["x", "y", "z", "w"].iter().position(|x| x == c)? as u8;
                let (half, r) = match r {
                    ["d16", r @ ..] => (true, r),
                    _ => (false, r),
                };
                (BufferKind::LoadFormat { format: parse_format(f)?, comp, half }, r)
            }
            ["storefmt", n, f, r @ ..] => {
                let comps: u8 = n.parse().ok().filter(|n| (1..=4).contains(n))?;
                let (half, r) = match r {
                    ["d16", r @ ..] => (true, r),
                    _ => (false, r),
                };
                (BufferKind::StoreFormat { format: parse_format(f)?, comps, half }, r)
            }
            _ => return None,
        };
        let (bytes, rest) = rest.split_first()?;
        let bytes: u8 = bytes.parse().ok()?;
        if !matches!(bytes, 1 | 2 | 4 | 8) {
            return None;
        }
        let mut op = BufferOp { kind, bytes, offset: 0, idxen: false, offen: false };
        for m in rest {
            match *m {
                "idxen" => op.idxen = true,
                "offen" => op.offen = true,
                _ => op.offset = m.strip_prefix("off")?.parse().ok()?,
            }
        }
        Some(op)
    }
}

/// The format token of a formatted op: `fmtdesc` (Some(None)) or a [`Format`] name.
fn parse_format(s: &str) -> Option<Option<Format>> {
    if s == "fmtdesc" {
        return Some(None);
    }
    Format::parse(s).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_private_segment_buffer_interleaves_the_lanes_dwords() {
        // SWIZZLE_ENABLE, stride 0; ADD_TID_ENABLE, INDEX_STRIDE 2 (32), raw range checks.
        let d = BufferDesc::from_words([0x1000, 1 << 31, u32::MAX, 1 << 23 | 2 << 21 | 3 << 28]);
        assert!(d.private_swizzle());
        assert_eq!(d.index_stride, 32);
        // Byte 6 of lane 3 at SOFFSET 64: dword 1 of the lane is 32 lanes of 4 bytes further.
        assert_eq!(d.address(0, 6, 64, 3), Some(0x1000 + 64 + 32 * 4 + 3 * 4 + 2));
        // Lane 33 of a wave64 stride (3): index 33 is below the stride, so it is lsb only.
        let d64 = BufferDesc::from_words([0, 1 << 31, u32::MAX, 1 << 23 | 3 << 21 | 3 << 28]);
        assert_eq!(d64.address(0, 8, 0, 33), Some(2 * 64 * 4 + 33 * 4));
        // Swizzled with a stride is not the private segment's form.
        assert!(!BufferDesc::from_words([0, 1 << 31 | 16 << 16, 0, 1 << 23]).private_swizzle());
    }
}
