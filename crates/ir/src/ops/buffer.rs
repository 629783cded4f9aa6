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
    /// Swizzled addressing (not supported).
    pub swizzle: bool,
    /// The lane id is added to the index.
    pub add_tid: bool,
    /// Range-check rule (0..=3).
    pub oob: u8,
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
            oob: (w[3] >> 28 & 3) as u8,
        }
    }
    /// The byte address of an access, or None when it is out of range.
    pub fn address(&self, index: u32, offset: u32, soffset: u32, lane: u32) -> Option<u64> {
        let index = if self.add_tid { index.wrapping_add(lane) } else { index };
        let within = (self.stride as u64) * index as u64 + offset as u64;
        let out = match self.oob {
            0 => index >= self.records || offset >= self.stride,
            1 => index >= self.records,
            2 => self.records == 0,
            _ => within >= self.records as u64,
        };
        (!out).then(|| self.base.wrapping_add(soffset as u64).wrapping_add(within) & ((1 << 48) - 1))
    }
}

fn kind_name(k: BufferKind) -> String {
    match k {
        BufferKind::Load => "load".into(),
        BufferKind::Store => "store".into(),
        BufferKind::Atomic(a) => format!("atomic.{}", super::mem::atomic_name(a)),
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
        }
    }
    /// Whether the op produces no value.
    pub const fn is_store(self) -> bool {
        matches!(self.kind, BufferKind::Store)
    }
    /// Text mnemonic: `buf.load.4.off16.idxen.offen`.
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
