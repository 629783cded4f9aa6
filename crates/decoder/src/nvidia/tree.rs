//! The decode tree of an NVIDIA ISA, computed at build time (codegen.rs `nv_tree`) into plain
//! arrays of numbers: each node reads one window of instruction bits and selects a child (a
//! node or a short list of candidate forms). The first candidate of the final list whose
//! structural bits match is the instruction's form, the same answer as a scan of every form
//! sorted most specific mask first.

/// A candidate form at a leaf of a wide tree (sm86): the structural bits to compare and the
/// indices to return, in one record.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub struct NvCand {
    /// Structural bits of the form, instruction bits 0-63.
    pub mask_lo: u64,
    /// Their value.
    pub ident_lo: u64,
    /// Index into `NvTables::forms`.
    pub form: u16,
    /// Index into `NvTables::insts` (the form's instruction).
    pub inst: u16,
    /// The last candidate of its leaf.
    pub last: bool,
    /// Structural bits of the form, instruction bits 64-127.
    pub mask_hi: u64,
    /// Their value.
    pub ident_hi: u64,
}

/// A child reference with this bit set is a leaf: the low bits index its first candidate (the
/// list runs to the one flagged last; an empty leaf points at a candidate that matches no
/// word). Otherwise it is the offset of a node in `NvTree::nodes`.
pub const LEAF: u16 = 1 << 15;

/// A candidate of a narrow tree (sm50), in [`NvTree::narrow`]: its form (bits 0-15), the
/// form's instruction (bits 16-30) and, in bit 31, whether it is the last of its leaf; the
/// structural bits to compare are the form's entry of [`NvTree::matches`].
pub const NARROW_LAST: u32 = 1 << 31;

/// The decode tree of one ISA, in 16-bit words (a listing reads a few entries all over it:
/// each 64 KiB of table it spans costs a fault-around window).
#[derive(Debug)]
pub struct NvTree {
    /// Nodes, the root at offset 0 (its window lies in bits 0-63). A node is a header word
    /// (bits 0-6: lowest bit of the window, which lies inside one 64-bit half; bits 7-10: its
    /// width k) followed by 2^k child references, indexed by the window's value.
    pub nodes: &'static [u16],
    /// Candidate lists of the leaves of a wide tree (sm86), each most specific mask first.
    pub cands: &'static [NvCand],
    /// Candidate lists of the leaves of a narrow tree (sm50; see [`NARROW_LAST`]).
    pub narrow: &'static [u32],
    /// Per form of a narrow tree: its structural bits and their value (bits 0-63).
    pub matches: &'static [[u64; 2]],
    /// Some form tests bits 64-127 (sm86: `cands`); false: every form is 64-bit (sm50:
    /// `narrow` and `matches`).
    pub wide: bool,
}

/// Nodes below the root on the longest path the walk allows (the generated trees are shallower).
const MAX_DEPTH: u32 = 32;

/// The tree's slices and root header copied out of [`NvTree`], for a loop that decodes many
/// instructions (they stay in registers).
#[derive(Debug, Clone, Copy)]
pub struct Walk {
    /// `NvTree::nodes`.
    nodes: &'static [u16],
    /// `NvTree::cands`.
    cands: &'static [NvCand],
    /// `NvTree::narrow`.
    narrow: &'static [u32],
    /// `NvTree::matches`.
    matches: &'static [[u64; 2]],
    /// Lowest bit of the root's window (which lies in bits 0-63).
    root_lo: u32,
    /// Mask of the root's window, at bit 0.
    root_mask: u32,
}

impl NvTree {
    /// The (form, instruction) of instruction `w`, if any form matches.
    #[inline]
    pub fn classify(&self, w: u128) -> Option<(u16, u16)> {
        let walk = self.walk();
        if self.wide {
            walk.classify::<true>(w as u64, (w >> 64) as u64)
        } else {
            walk.classify::<false>(w as u64, 0) // the forms leave bits 64-127 open
        }
    }

    /// The walker of this tree.
    #[inline(always)]
    pub fn walk(&self) -> Walk {
        let root = u32::from(self.nodes.first().copied().unwrap_or(0));
        Walk { nodes: self.nodes, cands: self.cands, narrow: self.narrow, matches: self.matches, root_lo: root & 63, root_mask: mask(root) }
    }
}

impl Walk {
    /// The (form, instruction) of the instruction with 64-bit halves `lo` and `hi`. `WIDE` must
    /// be the tree's `wide`; false (sm50) ignores `hi` and the forms' high halves.
    #[inline(always)]
    pub fn classify<const WIDE: bool>(self, lo: u64, hi: u64) -> Option<(u16, u16)> {
        // The window of header `h` lies inside one 64-bit half: bit 6 picks it.
        let window = |h: u32| {
            let x = if WIDE && h & 64 != 0 { hi } else { lo };
            ((x >> (h & 63)) as u32 & mask(h)) as usize
        };
        let nodes = self.nodes;
        let mut r = *nodes.get(1 + ((lo >> self.root_lo) as u32 & self.root_mask) as usize)?;
        let mut depth = 0;
        while r & LEAF == 0 {
            let at = r as usize;
            r = *nodes.get(at + 1 + window(u32::from(*nodes.get(at)?)))?;
            depth += 1;
            if depth > MAX_DEPTH {
                return None;
            }
        }
        let mut i = (r & !LEAF) as usize;
        if !WIDE {
            loop {
                let c = *self.narrow.get(i)?;
                let [m, v] = *self.matches.get(c as u16 as usize)?;
                if lo & m == v {
                    return Some((c as u16, ((c & !NARROW_LAST) >> 16) as u16));
                }
                if c & NARROW_LAST != 0 {
                    return None;
                }
                i += 1;
            }
        }
        loop {
            let c = self.cands.get(i)?;
            // One branch per candidate: a 128-bit compare, not two 64-bit ones.
            let w = lo as u128 | (hi as u128) << 64;
            if w & (c.mask_lo as u128 | (c.mask_hi as u128) << 64) == c.ident_lo as u128 | (c.ident_hi as u128) << 64 {
                return Some((c.form, c.inst));
            }
            if c.last {
                return None;
            }
            i += 1;
        }
    }
}

/// The window mask 2^k - 1 of node header `h` (k in bits 7-10).
#[inline(always)]
pub fn mask(h: u32) -> u32 {
    (1u32 << (h >> 7 & 15)) - 1
}
