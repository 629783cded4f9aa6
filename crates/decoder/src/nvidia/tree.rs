//! The decode tree of an NVIDIA ISA, computed at build time (codegen.rs `nv_tree`) into plain
//! arrays of numbers: each node reads one window of instruction bits and selects a child (a
//! node or a short list of candidate forms). The first candidate of the final list whose
//! structural bits match is the instruction's form, the same answer as a scan of every form
//! sorted most specific mask first.

/// A candidate form at a leaf: the structural bits to compare and the indices to return.
#[derive(Debug, Clone, Copy)]
pub struct NvCand {
    /// Structural bits of the form.
    pub mask: u128,
    /// Their value.
    pub ident: u128,
    /// Index into `NvTables::forms`.
    pub form: u16,
    /// Index into `NvTables::insts` (the form's instruction).
    pub inst: u16,
    /// The last candidate of its leaf.
    pub last: bool,
}

/// A child reference with this bit set is a leaf: the low bits index its first candidate in
/// `NvTree::cands` (the list runs to the one flagged `last`; an empty leaf points at a candidate
/// that matches no word). Otherwise it is the offset of a node in `NvTree::nodes`.
pub const LEAF: u32 = 1 << 31;

/// The decode tree of one ISA.
#[derive(Debug)]
pub struct NvTree {
    /// Nodes, the root at offset 0. A node is a header word (bits 0-6: lowest bit of the window,
    /// which lies inside one 64-bit half; bits 8-31: the mask 2^k - 1 of its width k) followed
    /// by 2^k child references, indexed by the window's value.
    pub nodes: &'static [u32],
    /// Candidate lists of the leaves, each most specific mask first.
    pub cands: &'static [NvCand],
}

/// Nodes on the longest root-to-leaf path the walk allows (the generated trees are shallower).
const MAX_DEPTH: usize = 32;

impl NvTree {
    /// The (form, instruction) of instruction `w`, if any form matches.
    #[inline]
    pub fn classify(&self, w: u128) -> Option<(u16, u16)> {
        if w >> 64 == 0 {
            self.classify_in::<false>(w)
        } else {
            self.classify_in::<true>(w)
        }
    }

    /// `classify` for a word whose high half is zero (`WIDE` false: every sm50 word) or not.
    #[inline(always)]
    pub fn classify_in<const WIDE: bool>(&self, w: u128) -> Option<(u16, u16)> {
        let (lo, hi) = (w as u64, if WIDE { (w >> 64) as u64 } else { 0 });
        let mut at = 0usize;
        for _ in 0..MAX_DEPTH {
            let h = *self.nodes.get(at)?;
            // The window lies inside one 64-bit half: bit 6 of `lo` picks it.
            let x = if h & 64 == 0 { lo } else { hi };
            let v = (x >> (h & 63)) as u32 & (h >> 8);
            let r = *self.nodes.get(at + 1 + v as usize)?;
            if r & LEAF == 0 {
                at = r as usize;
                continue;
            }
            let mut i = (r & !LEAF) as usize;
            loop {
                let c = self.cands.get(i)?;
                let hit = if WIDE { w & c.mask == c.ident } else { c.ident >> 64 == 0 && (w as u64) & (c.mask as u64) == c.ident as u64 };
                if hit {
                    return Some((c.form, c.inst));
                }
                if c.last {
                    return None;
                }
                i += 1;
            }
        }
        None
    }
}
