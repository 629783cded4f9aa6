//! AMD plugins (gfx1013, gfx1201): decoding and encoding shared by both generations.
//! Printing lives with each generation (`crate::gfx10`, `crate::gfx12`).

pub mod build;
pub mod dot_ext;
pub mod formats;
pub mod model;
pub mod operands;
pub(crate) mod plan;
pub mod print;
pub(crate) mod reject;
pub mod symbols;

use crate::spec::{Encoding, Field, InstEncoding, Tables};
use crate::{gfx10, gfx12, Decoded, DecodeError, InstId, Isa, IsaPlugin, MAX_WORDS};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::hash::BuildHasherDefault;
use std::sync::OnceLock;

/// Decision entry: a leaf (the bits below say what the instruction is).
const E_LEAF: u32 = 1 << 31;
/// Leaf flag: no instruction has these bits (a decode error).
const E_NONE: u32 = 1 << 30;
/// Leaf flag: the length needs the general rule (an NSA field, or literal fields `Prebuilt::lit`
/// cannot describe).
const E_ODD: u32 = 1 << 25;
/// Leaf: bits 12-15 index `Prebuilt::lit`, the source fields that select a literal with 255
/// (set 0, none, for an instruction whose literal is always there: it has one literal dword).
const E_LIT_SHIFT: u32 = 12;
/// Leaf: bits 22-24 hold the encoding's width in dwords (1-3) plus one when an operand is
/// always a literal dword (v_fmamk_f32, s_setreg_imm32_b32, ...).
const E_DW_SHIFT: u32 = 22;
/// Leaf: bits 16-21 hold the encoding index (so that `e & E_IDENT`, rotated by 16, is the
/// encoding in its low half and the instruction encoding in its high half: the order of
/// `Decoded::enc` and `Decoded::ienc`, stored by one write).
const E_ENC_SHIFT: u32 = 16;
/// Leaf: bits 0-11 hold the instruction encoding index.
const E_IENC_MASK: u32 = 0xfff;
/// Leaf: the encoding and instruction encoding bits.
const E_IDENT: u32 = 63 << E_ENC_SHIFT | E_IENC_MASK;
/// Changes whenever the bits of a leaf change meaning (part of [`stamp`]: checked-in trees
/// of another layout are stale).
const E_LAYOUT: u64 = 2;
/// `Lut::top` entry, leaf or node: the source field of bits 0-8 (bit 27 clear) or 32-40 (bit
/// 27 set) of the first two words decides nothing unless its value is in `Lut::exc` (DPP,
/// SDWA, DPP8 selectors of VOP1/VOP2/VOPC and gfx12 VOP3): the entry is that of every other
/// value. An exceptional value takes the decision tree from its root.
const E_CHECK: u32 = 1 << 26;
/// With `E_CHECK`: the field is bits 32-40 (in the second word).
const E_CHECK_HI: u32 = 1 << 27;
/// Values `EXC_LO..EXC_LO + 64` of a checked field can be exceptional (`Lut::exc` bit
/// `value - EXC_LO`).
const EXC_LO: u32 = 0xc0;
/// Bits 22-24 of a leaf, and of a `Lut::top` entry that is a node: the length in dwords the
/// instruction most likely has (a leaf's own; for a node, that of the leaf reached with the low
/// bits zero, else the one most values of the node's bits lead to, 7 when none). `decode_block` advances by this guess, which needs one
/// load, and checks it against the exact length off the critical path.
const E_GUESS_SHIFT: u32 = E_DW_SHIFT;
/// Non-leaf entry: bits 0-17 index `Prebuilt::nodes`.
const E_NODE_MASK: u32 = 0x3_ffff;
/// Non-leaf entry: these bits decide nothing; take [`Tables::classify`] (no node has this
/// index: the builder stops short of it).
const E_SLOW: u32 = E_NODE_MASK;
/// Widest bit range one decision node reads.
const MAX_NODE_BITS: u32 = 12;

/// One inner node of the decision tree: read bits `[shift, shift + bits)` of the first two
/// words (as one little-endian u64), map the value through a class table when there is one,
/// and continue with `entries[base + value]`.
#[derive(Debug, Clone, Copy)]
struct Node {
    shift: u32,
    /// `(1 << bits) - 1`.
    mask: u32,
    /// Offset of the value -> class table in `Prebuilt::classes`.
    cmap: u32,
    base: u32,
}

/// Per-ISA decision tables, worked out once from the generated tables so that they decide
/// exactly what [`Tables::classify`] decides.
#[derive(Debug)]
struct Facts {
    /// The tables the inline decode path reads.
    lut: &'static Lut,
    /// The decision tree and literal facts (checked in, or built at first use when stale).
    tree: Prebuilt,
}

/// Nodes, class-table values and child entries a [`Lut`] holds (powers of two: indices are
/// masked, not bounds-checked).
const LUT_NODES: usize = 512;
const LUT_CLASSES: usize = 4096;
const LUT_ENTRIES: usize = 16384;

/// Everything the inline decode path reads, in one block at one address (one base register in
/// the loop of `decode_block`), worked out by the compiler for the checked-in trees
/// ([`lut`]). A tree too large for it leaves every upper-half entry `E_SLOW`.
/// In this order (`repr(C)`): the literal field sets first, at the base address itself.
#[derive(Debug)]
#[repr(C)]
struct Lut {
    /// `Prebuilt::lit`.
    lit: [LitFields; 16],
    /// Exceptional values of `E_CHECK` fields ([`Checks`]).
    exc: u64,
    /// Per value of a top entry's bits 26-31: a mask and a value (`ck_val`) such that
    /// `x & mask == value` for the first two words `x` of every instruction whose `E_CHECK`
    /// field is exceptional, and of a few others (the smallest set of values one mask
    /// describes: those go to `decode_inst` too); never for entries without `E_CHECK`.
    ck_mask: [u64; 64],
    /// See `ck_mask`.
    ck_val: [u64; 64],
    /// Word masks by length: from `4 * dwords`, four words of which the first `dwords` are
    /// all ones.
    keep: [u32; 36],
    /// `Prebuilt::nodes`, `classes`, `entries`, padded (with `E_SLOW` entries).
    nodes: [Node; LUT_NODES],
    classes: [u16; LUT_CLASSES],
    entries: [u32; LUT_ENTRIES],
    /// Per value of the first word's upper half: the entry reached from the root reading only
    /// those bits ([`top_entry`]).
    top: [u32; 1 << 16],
}

/// A leaf no instruction has (both `E_NONE` and `E_ODD`): what the last node of a [`Lut`]
/// leads to, so that the loop of `decode_block` can mask node indices instead of checking them
/// (`E_SLOW` lands there) and leaves such instructions to [`Amd::decode_inst`].
const E_SENTINEL: u32 = E_LEAF | E_NONE | E_ODD;

/// The [`Lut`] of `p`.
const fn lut(p: &Prebuilt) -> Lut {
    let mut l = Lut {
        top: [E_SLOW; 1 << 16],
        lit: p.lit,
        exc: 0,
        ck_mask: [0; 64],
        ck_val: [1; 64],
        keep: [0; 36],
        nodes: [Node { shift: 0, mask: 0, cmap: 0, base: 0 }; LUT_NODES],
        classes: [0; LUT_CLASSES],
        entries: [E_SLOW; LUT_ENTRIES],
    };
    let mut d = 0;
    while d <= 4 {
        let mut i = 0;
        while i < d {
            l.keep[4 * d + i] = u32::MAX;
            i += 1;
        }
        d += 1;
    }
    // The last node, class value and entry are the sentinel's.
    if p.nodes.len() >= LUT_NODES || p.classes.len() >= LUT_CLASSES || p.entries.len() >= LUT_ENTRIES {
        return l;
    }
    l.nodes[LUT_NODES - 1] = Node { shift: 0, mask: 0, cmap: (LUT_CLASSES - 1) as u32, base: (LUT_ENTRIES - 1) as u32 };
    l.entries[LUT_ENTRIES - 1] = E_SENTINEL;
    let mut i = 0;
    while i < p.nodes.len() {
        l.nodes[i] = p.nodes[i];
        i += 1;
    }
    i = 0;
    while i < p.classes.len() {
        l.classes[i] = p.classes[i];
        i += 1;
    }
    i = 0;
    while i < p.entries.len() {
        l.entries[i] = p.entries[i];
        i += 1;
    }
    let c = checks(p);
    l.exc = c.1;
    // The smallest mask-and-value set of 9-bit values that holds every exceptional one.
    if c.1 != 0 {
        let v0 = EXC_LO + c.1.trailing_zeros();
        let mut diff = 0;
        let mut v = 0;
        while v < 64 {
            if c.1 >> v & 1 != 0 {
                diff |= (EXC_LO + v) ^ v0;
            }
            v += 1;
        }
        let m = (0x1ff & !diff) as u64;
        let mut i = 0;
        while i < 64 {
            let t = (i as u32) << 26;
            if t & E_CHECK != 0 {
                let s = if t & E_CHECK_HI != 0 { 32 } else { 0 };
                l.ck_mask[i] = m << s;
                l.ck_val[i] = ((v0 as u64) & m) << s;
            }
            i += 1;
        }
    }
    // Per node: whether a child is a node (only those can be resolved further).
    let mut deep = [false; LUT_NODES];
    i = 0;
    while i < p.nodes.len() {
        let n = p.nodes[i];
        let mut v = 0;
        while v <= n.mask && n.cmap as usize + (v as usize) < p.classes.len() {
            let k = n.base as usize + p.classes[n.cmap as usize + v as usize] as usize;
            deep[i] |= k >= p.entries.len() || p.entries[k] & E_LEAF == 0;
            v += 1;
        }
        i += 1;
    }
    let mut used = (p.nodes.len(), p.entries.len());
    let mut hi = 0;
    while hi < l.top.len() {
        let t = top_entry(p, &c, hi as u32);
        let k = (t & E_NODE_MASK) as usize;
        if t & E_LEAF == 0 && k < p.nodes.len() && deep[k] {
            l.top[hi] = resolve(&mut l, p, t, hi as u32, &mut used);
        } else {
            l.top[hi] = t;
        }
        hi += 1;
    }
    l
}

/// Upper-half entry `t` (of first words with upper half `hi`), when it is a node whose
/// children go on to further nodes that read only the upper half (FLAT: the segment, then the
/// opcode): a node of `l` (made now, or an equal one made before) whose children are where
/// those lead, so that one node step decides. `used`: nodes and entries of `l` in use.
const fn resolve(l: &mut Lut, p: &Prebuilt, t: u32, hi: u32, used: &mut (usize, usize)) -> u32 {
    /// Most classes a resolved node may have.
    const MAX_CLASSES: usize = 64;
    let k = (t & E_NODE_MASK) as usize;
    if t & E_LEAF != 0 || k >= p.nodes.len() {
        return t;
    }
    let n = p.nodes[k];
    if n.shift >= 32 || n.mask > 0xfff || n.cmap as usize + n.mask as usize >= p.classes.len() {
        return t;
    }
    let range = (n.mask as u64) << n.shift;
    let w0 = ((hi as u64) << 16) & !range;
    let mut kids = [0u32; MAX_CLASSES];
    let mut nk = 0;
    let mut changed = false;
    let mut v = 0;
    while v <= n.mask {
        let c = p.classes[n.cmap as usize + v as usize] as usize;
        if c >= MAX_CLASSES || n.base as usize + c >= p.entries.len() {
            return t;
        }
        if c == nk {
            // The first value of class `c`: where its child goes with these bits known.
            let e = p.entries[n.base as usize + c];
            kids[c] = walk_const(p, e, w0 | (v as u64) << n.shift, 0xffff_0000 | range);
            changed |= kids[c] != e;
            nk += 1;
        } else if c > nk {
            return t; // classes out of order: not the builder's
        }
        v += 1;
    }
    if !changed {
        return t;
    }
    // An equal resolved node made before?
    let mut j = p.nodes.len();
    while j < used.0 {
        let m = l.nodes[j];
        if m.shift == n.shift && m.mask == n.mask && m.cmap == n.cmap {
            let mut i = 0;
            while i < nk && l.entries[m.base as usize + i] == kids[i] {
                i += 1;
            }
            if i == nk {
                return (t & !E_NODE_MASK) | j as u32;
            }
        }
        j += 1;
    }
    if used.0 + 1 >= LUT_NODES || used.1 + nk >= LUT_ENTRIES - 1 {
        return t;
    }
    let mut i = 0;
    while i < nk {
        l.entries[used.1 + i] = kids[i];
        i += 1;
    }
    l.nodes[used.0] = Node { shift: n.shift, mask: n.mask, cmap: n.cmap, base: used.1 as u32 };
    used.0 += 1;
    used.1 += nk;
    (t & !E_NODE_MASK) | (used.0 - 1) as u32
}

/// Follows entry `e` through the nodes of `l` on the first two words `x`; returns the leaf, or
/// a non-leaf entry when the nodes cannot decide.
#[inline(always)]
fn walk_lut(l: &Lut, mut e: u32, x: u64) -> u32 {
    while e & E_LEAF == 0 {
        let Some(n) = l.nodes.get((e & E_NODE_MASK) as usize) else { return e };
        let v = (x >> (n.shift & 63)) as usize & n.mask as usize;
        let c = l.classes[(n.cmap as usize + v) & (LUT_CLASSES - 1)] as usize;
        e = l.entries[(n.base as usize + c) & (LUT_ENTRIES - 1)];
    }
    e
}

/// [`walk_lut`] with node indices masked instead of checked: a non-leaf entry that no node
/// stands for (`E_SLOW`) ends at `E_SENTINEL`.
#[inline(always)]
fn walk_masked(l: &Lut, mut e: u32, x: u64) -> u32 {
    while e & E_LEAF == 0 {
        let n = l.nodes[e as usize & (LUT_NODES - 1)];
        let v = (x >> (n.shift & 63)) as usize & n.mask as usize;
        let c = l.classes[(n.cmap as usize + v) & (LUT_CLASSES - 1)] as usize;
        e = l.entries[(n.base as usize + c) & (LUT_ENTRIES - 1)];
    }
    e
}

/// Follows entry `e` through the nodes of `p` that read only bits `known` of `x` (the first
/// two words as one little-endian u64). A `const fn`, so that the upper-half tables of the
/// checked-in trees are worked out by the compiler ([`lut`]).
const fn walk_const(p: &Prebuilt, mut e: u32, x: u64, known: u64) -> u32 {
    while e & E_LEAF == 0 {
        let i = (e & E_NODE_MASK) as usize;
        if i >= p.nodes.len() {
            return e;
        }
        let n = p.nodes[i];
        if n.shift >= 64 || ((n.mask as u64) << n.shift) & !known != 0 {
            return e;
        }
        let c = n.cmap as usize + ((x >> n.shift) as usize & n.mask as usize);
        let v = if c < p.classes.len() { p.classes[c] as usize } else { 0 };
        let k = n.base as usize + v;
        e = if k < p.entries.len() { p.entries[k] } else { E_SLOW };
    }
    e
}

/// The upper-half table's entry for first words whose upper half is `hi`: the entry reached
/// from the root reading only those bits; when that is a node, with the length (bits 22-24) of
/// the leaf reached with the low bits zero, the guess `decode_block` advances by (7 when there
/// is none).
const fn top_entry(p: &Prebuilt, checks: &Checks, hi: u32) -> u32 {
    if p.key_lo < 16 || p.key_bits > 16 || p.key_lo + p.key_bits > 32 {
        return E_SLOW;
    }
    let w0 = (hi & 0xffff) << 16;
    let key = ((w0 >> p.key_lo) & ((1u32 << p.key_bits) - 1)) as usize;
    if key >= p.root.len() {
        return E_SLOW;
    }
    let mut e = walk_const(p, p.root[key], w0 as u64, 0xffff_0000);
    let mut check = 0;
    let k = (e & E_NODE_MASK) as usize;
    if e & E_LEAF == 0 && k < p.nodes.len() && k < LUT_NODES && checks.0[k] != 0 {
        // Every unexceptional value of the field leads where value 0 does.
        let n = p.nodes[k];
        e = walk_const(p, p.entries[n.base as usize + p.classes[n.cmap as usize] as usize], w0 as u64, 0xffff_0000);
        check = E_CHECK | if checks.0[k] == 2 { E_CHECK_HI } else { 0 };
    }
    if e & E_LEAF != 0 || e == E_SLOW {
        return e | check;
    }
    // The length of the leaf reached with the low bits zero, else the one most values of the
    // node's bits lead to.
    let g = walk_const(p, e, w0 as u64, u64::MAX);
    let k = (e & E_NODE_MASK) as usize;
    let guess = if g & (E_LEAF | E_NONE) == E_LEAF {
        g >> E_GUESS_SHIFT & 7
    } else if k < LUT_NODES {
        checks.2[k] as u32
    } else {
        7
    };
    (e & E_NODE_MASK) | guess << E_GUESS_SHIFT | check
}


/// Per node: 1 or 2 when an `E_CHECK` entry (field in the first or the second word) may stand
/// for it, else 0; and the exceptional values (`Lut::exc`: bit `value - EXC_LO`), those that
/// such nodes tell apart from value 0. Nodes qualify when they read a 9-bit field at bit 0 or
/// 32 (the DPP, SDWA, DPP8 selectors of VOP1/VOP2/VOPC and gfx12 VOP3) and every value they
/// tell apart from 0 lies in `EXC_LO..EXC_LO + 64`. Third, per node: the length in dwords most
/// of the values of its bits lead to (the guess of an upper-half entry that is that node; 7
/// when none leads to a leaf).
struct Checks([u8; LUT_NODES], u64, [u8; LUT_NODES]);

/// The [`Checks`] of `p`.
const fn checks(p: &Prebuilt) -> Checks {
    let mut c = Checks([0; LUT_NODES], 0, [7; LUT_NODES]);
    let mut i = 0;
    while i < p.nodes.len() && i < LUT_NODES {
        if let Some(s) = node_exc(p, p.nodes[i]) {
            c.0[i] = if p.nodes[i].shift == 32 { 2 } else { 1 };
            c.1 |= s;
        }
        c.2[i] = node_guess(p, p.nodes[i]);
        i += 1;
    }
    c
}

/// The length in dwords most values of node `n`'s bits lead to (the other bits zero; the
/// shorter on a tie), 7 when none leads to a leaf.
const fn node_guess(p: &Prebuilt, n: Node) -> u8 {
    let mut count = [0u32; 8];
    let mut v = 0u32;
    while v <= n.mask && n.shift < 64 {
        let c = n.cmap as usize + v as usize;
        if c >= p.classes.len() || n.base as usize + p.classes[c] as usize >= p.entries.len() {
            break;
        }
        let g = walk_const(p, p.entries[n.base as usize + p.classes[c] as usize], (v as u64) << n.shift, u64::MAX);
        if g & (E_LEAF | E_NONE) == E_LEAF {
            count[(g >> E_DW_SHIFT & 7) as usize] += 1;
        }
        v += 1;
    }
    let mut best = 7;
    let mut i = 0;
    while i < 8 {
        if count[i] > 0 && (best == 7 || count[i] > count[best]) {
            best = i;
        }
        i += 1;
    }
    best as u8
}

/// The values of node `n`'s field that it tells apart from 0 (bit `value - EXC_LO`): `None`
/// unless `n` reads 9 bits at bit 0 or 32 and those values all lie in `EXC_LO..EXC_LO + 64`.
const fn node_exc(p: &Prebuilt, n: Node) -> Option<u64> {
    if n.mask != 0x1ff || (n.shift != 0 && n.shift != 32) || n.cmap as usize + 512 > p.classes.len() {
        return None;
    }
    let c0 = p.classes[n.cmap as usize];
    if n.base as usize + c0 as usize >= p.entries.len() {
        return None;
    }
    let mut set = 0u64;
    let mut v = 0u32;
    while v < 512 {
        if p.classes[n.cmap as usize + v as usize] != c0 {
            if v < EXC_LO || v >= EXC_LO + 64 {
                return None;
            }
            set |= 1 << (v - EXC_LO);
        }
        v += 1;
    }
    Some(set)
}

/// True when the `E_CHECK` field of top entry `t` holds an exceptional value in `x` (the first
/// two words).
#[inline(always)]
fn exceptional(t: u32, x: u64, exc: u64) -> bool {
    let v = ((x >> ((t & E_CHECK_HI) >> 22)) as u32 & 0x1ff).wrapping_sub(EXC_LO);
    v < 64 && exc >> v & 1 != 0
}

/// Follows entry `e` through the nodes of `tree` (nodes, classes, entries) on the first two
/// words `x`; returns the leaf, or a non-leaf entry when the nodes cannot decide.
#[inline(always)]
fn walk_nodes((nodes, classes, entries): (&[Node], &[u16], &[u32]), mut e: u32, x: u64) -> u32 {
    while e & E_LEAF == 0 {
        let Some(n) = nodes.get((e & E_NODE_MASK) as usize) else { return e };
        let v = (x >> (n.shift & 63)) as usize & n.mask as usize;
        let v = classes.get(n.cmap as usize + v).copied().unwrap_or(0) as usize;
        e = entries.get(n.base as usize + v).copied().unwrap_or(E_SLOW);
    }
    e
}

/// The [`Lut`] of a tree built at run time (kept for the process's life).
fn lut_leaked(p: &Prebuilt) -> &'static Lut {
    Box::leak(Box::new(lut(p)))
}

/// The decision tree and literal facts of one ISA. Worked out ahead of time
/// (`src/generated/<gen>_tree.rs`, written by [`Amd::tree_source`]) so that a process does not
/// build them on first use; used only while `stamp` matches the tables it was built from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Prebuilt {
    /// [`stamp`] of the tables it was built from.
    stamp: u64,
    /// The dispatch key's lowest bit and width (`Tables::key_lo`, `key_bits`).
    key_lo: u32,
    key_bits: u32,
    /// Per dispatch key (`Tables::key_lo`, `key_bits`): the root entry.
    root: &'static [u32],
    /// Inner nodes.
    nodes: &'static [Node],
    /// Child entries of the nodes.
    entries: &'static [u32],
    /// Value -> class tables of nodes that read bits most values of which decide alike.
    classes: &'static [u16],
    /// Per encoding: index of its NSA field, when it has one.
    nsa: &'static [Option<usize>],
    /// Per instruction encoding: how it may carry a literal dword.
    literal: &'static [Literal],
    /// The distinct sets of literal-selecting source fields within the first two words; a
    /// leaf names its set (0: none).
    lit: [LitFields; 16],
}

/// A fingerprint of everything the decision tree and the literal facts are built from.
fn stamp<Op>(t: &Tables<Op>) -> u64 {
    use std::hash::Hasher;
    let mut h = MixHasher(0x5eed);
    h.write_u64(E_LAYOUT);
    h.write_u64(((t.key_lo as u64) << 32) | t.key_bits as u64);
    for d in t.dispatch {
        h.write(d);
        h.write_u64(0xd15);
    }
    let field = |h: &mut MixHasher, f: &Option<Field>| match f {
        Some(f) => f.ranges.iter().for_each(|&(o, c)| h.write_u64(((o as u64) << 8) | c as u64 | 1 << 20)),
        None => h.write_u64(0xf1e1d),
    };
    for e in t.encodings {
        h.write(e.name.as_bytes());
        h.write_u64(e.bits as u64);
        h.write_u64(e.mask as u64);
        h.write_u64((e.mask >> 64) as u64);
        for &i in e.idents {
            h.write_u64(i as u64);
            h.write_u64((i >> 64) as u64);
        }
        field(&mut h, &e.op);
        for f in e.fields {
            h.write(f.name.as_bytes());
        }
        for &o in e.opmap {
            h.write_u64(o as u64);
        }
    }
    for ie in t.inst_encodings {
        h.write_u64(ie.enc as u64);
        for op in ie.operands {
            h.write_u64(op.ty as u64);
            field(&mut h, &op.field.copied());
        }
    }
    for ty in t.operand_types {
        h.write(ty.name.as_bytes());
        h.write_u64(ty.lookup(255).is_some_and(|n| n.eq_ignore_ascii_case("literal")) as u64);
    }
    for i in t.instructions {
        h.write(i.mnemonic.as_bytes());
    }
    // The version of the literal rules of `build_tree` (the 8-bit scalar destinations, gfx12
    // image descriptors and v_fmac's DPP forms).
    h.write_u64(2);
    h.finish() | 1
}

/// True when operand `op` of instruction encoding `ie` holding 255 makes the instruction carry a
/// literal dword (where the encoding takes one: not DPP or SDWA forms but gfx12's VOP3 DPP):
/// sources whose type names 255 the literal; 8-bit scalar destinations of vector forms (VOPC
/// and v_readlane VOP3 forms, v_readfirstlane: LLVM prints the literal there); gfx12 image
/// resource and sampler descriptors. Not v_fmac's VOP3 DPP second source, which LLVM reads as
/// a register operand (255 prints as a code).
#[doc(hidden)]
pub fn selects_literal<Op>(t: &Tables<Op>, ie: &crate::spec::InstEncoding<Op>, op: &crate::spec::Operand) -> bool {
    let e = &t.encodings[ie.enc as usize];
    let Some(f) = op.field else { return false };
    let ty = &t.operand_types[op.ty as usize];
    let source = ty.lookup(255).is_some_and(|n| n.eq_ignore_ascii_case("literal"));
    let sdst = ty.name == "OPR_SDST" && f.width() >= 8 && e.name.starts_with("ENC_VOP") && !e.name.contains("DPP");
    let descriptor = matches!(e.name, "ENC_VIMAGE" | "ENC_VSAMPLE") && matches!(f.name, "RSRC" | "SAMP") && f.width() == 9;
    let mnemonic = t.instructions[ie.inst as usize].mnemonic;
    let fmac_dpp = e.name.contains("DPP") && mnemonic.starts_with("v_fmac_") && crate::amd::plan::src_index(op) == Some(1);
    // gfx10's VOP3 interpolation holds the attribute in SRC0 (255: attr63.w, no literal).
    let interp_attr = e.name == "ENC_VOP3" && mnemonic.starts_with("v_interp_") && f.name == "SRC0";
    (source || sdst || descriptor) && !fmac_dpp && !interp_attr
}

/// Source fields of the first two words (as one u64) of which one holding 255 makes the
/// instruction carry a literal dword, tested all at once: `mask` covers the fields, `pat` holds
/// 255 in each, `low` / `high` the lowest / highest bit of each. A field equals 255 exactly when
/// `x ^ pat` has a zero field, which the borrow of subtracting `low` shows in `high`.
/// The empty set is all zero (never a literal).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct LitFields {
    mask: u64,
    pat: u64,
    low: u64,
    high: u64,
}

impl LitFields {
    /// True when a field of `x` (the first two words) is 255.
    #[inline(always)]
    fn any_255(&self, x: u64) -> bool {
        self.fields_255(x) != 0
    }

    /// Non-zero exactly when a field of `x` (the first two words) is 255. The bits outside the
    /// fields need no masking: a borrow starts only at a field that is zero (then the answer
    /// is yes whatever it does above), and without one a field's top bit cannot go from 0 to
    /// 1 when one is subtracted from it.
    #[inline(always)]
    fn fields_255(&self, x: u64) -> u64 {
        let t = x ^ self.pat;
        t.wrapping_sub(self.low) & !t & self.high
    }
}

/// Where an instruction encoding's literal dword comes from.
#[derive(Debug, Clone, Copy, Default)]
struct Literal {
    /// An operand is always a literal (v_fmamk_f32, s_setreg_imm32_b32, ...).
    always: bool,
    /// Number of source fields that select a literal with the value 255.
    n: u8,
    /// Those fields as (bit offset, width); single-range fields only.
    fields: [(u8, u8); 3],
}

/// The bits of a field as a mask over the first 128 bits.
fn field_mask(f: &Field) -> u128 {
    f.ranges.iter().fold(0u128, |m, &(o, c)| m | (((1u128 << c) - 1) << o))
}

/// A hash map with a cheap multiply-rotate hash (the table builder's keys are its own
/// integers; no untrusted input reaches it).
type Map<K, V> = HashMap<K, V, BuildHasherDefault<MixHasher>>;

/// The hash of [`Map`].
#[derive(Debug, Default)]
struct MixHasher(u64);

impl std::hash::Hasher for MixHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut c = bytes.chunks_exact(8);
        for x in c.by_ref() {
            self.write_u64(u64::from_le_bytes([x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]]));
        }
        for &b in c.remainder() {
            self.write_u64(b as u64);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0 ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29);
    }
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
}

/// How a node splits the values of its bits: (class table offset, one value per class).
type Split = (u32, Vec<u64>);

/// Builds the decision tree of one ISA by walking [`Tables::classify`]'s candidate order on
/// partly known words, branching on the bits it needs next.
struct Builder<'a, Op: 'static> {
    t: &'a Tables<Op>,
    leaf: &'a dyn Fn(u16, Option<u16>) -> u32,
    /// Per encoding: identifier mask and opcode bits, `None` when either reaches past bit 63.
    masks: Vec<Option<(u64, u64)>>,
    nodes: Vec<Node>,
    entries: Vec<u32>,
    classes: Vec<u16>,
    /// Class tables already in `classes`, by content.
    class_maps: Map<Vec<u16>, u32>,
    /// (candidates, range) -> (class table offset, one value per class).
    /// Keyed by the candidate list's address: lists are static, and equal lists elsewhere
    /// only miss the sharing.
    splits: Map<(usize, u64), Split>,
    /// (candidates, known bits, their values), both cut to the bits the candidates read -> entry.
    done: Map<(usize, u64, u64), u32>,
}

impl<Op> Builder<'_, Op> {
    /// The entry for words whose bits `known` are `val` (other bits unknown).
    fn build(&mut self, known: u64, val: u64, depth: u32) -> u32 {
        let t = self.t;
        if depth > 8 {
            return E_SLOW;
        }
        let key = ((val >> t.key_lo) & ((1u64 << t.key_bits) - 1)) as usize;
        let Some(&cands) = t.dispatch.get(key) else { return (self.leaf)(0, None) };
        let mut read = 0u64;
        for &c in cands {
            match self.masks[c as usize] {
                Some((m, om)) => read |= m | om,
                None => return E_SLOW,
            }
        }
        let memo = (cands.as_ptr() as usize, known & read, val & known & read);
        if let Some(&e) = self.done.get(&memo) {
            return e;
        }
        let e = self.walk(cands, known, val, depth);
        self.done.insert(memo, e);
        e
    }

    fn walk(&mut self, cands: &'static [u8], known: u64, val: u64, depth: u32) -> u32 {
        let t = self.t;
        let mut known_enc = None;
        for &c in cands {
            let e = &t.encodings[c as usize];
            let Some((m, om)) = self.masks[c as usize] else { return E_SLOW };
            if m & !known != 0 {
                return self.branch(known, val, m & !known, cands, depth);
            }
            if !e.idents.contains(&((val & m) as u128)) {
                continue;
            }
            if om & !known != 0 {
                return self.branch(known, val, om & !known, cands, depth);
            }
            let ie = match &e.op {
                Some(f) => e.opmap.get(f.get(&[val as u32, (val >> 32) as u32]) as usize).copied(),
                None => e.opmap.first().copied(),
            };
            match ie.filter(|&v| v != u16::MAX) {
                Some(ie) => return (self.leaf)(c as u16, Some(ie)),
                None => {
                    known_enc.get_or_insert(c as u16);
                }
            }
        }
        (self.leaf)(known_enc.unwrap_or(0), None)
    }

    /// A node reading the lowest run of the bits in `need`, values grouped into classes that
    /// every candidate's identifier test and opcode field see alike.
    fn branch(&mut self, known: u64, val: u64, need: u64, cands: &'static [u8], depth: u32) -> u32 {
        // The lowest run of needed bits (at most MAX_NODE_BITS of it); the rest, if any, is
        // read by a node further down.
        let lo = need.trailing_zeros();
        let bits = (need >> lo).trailing_ones().min(MAX_NODE_BITS);
        let range = ((1u64 << bits) - 1) << lo;
        let (cmap, reps) = match self.splits.get(&(cands.as_ptr() as usize, range)) {
            Some(x) => x.clone(),
            None => {
                let x = self.split(cands, lo, bits);
                self.splits.insert((cands.as_ptr() as usize, range), x.clone());
                x
            }
        };
        let children: Vec<u32> = reps
            .iter()
            .map(|&r| self.build(known | range, (val & !range) | (r << lo), depth + 1))
            .collect();
        let base = self.entries.len() as u32;
        self.entries.extend(children);
        if self.nodes.len() >= E_NODE_MASK as usize {
            return E_SLOW;
        }
        self.nodes.push(Node { shift: lo, mask: (1 << bits) - 1, cmap, base });
        (self.nodes.len() - 1) as u32
    }

    /// Groups the values of bits `[lo, lo + bits)` by what each candidate's identifier test and
    /// opcode field see of them: (class table offset or `u32::MAX`, one value per class).
    fn split(&mut self, cands: &[u8], lo: u32, bits: u32) -> Split {
        let t = self.t;
        let range = ((1u64 << bits) - 1) << lo;
        // Only candidates that read these bits tell values apart.
        let readers: Vec<(u64, u64, &[u128])> = cands
            .iter()
            .filter_map(|&c| {
                let (m, om) = self.masks[c as usize]?;
                ((m | om) & range != 0).then(|| (m & range, om & range, t.encodings[c as usize].idents))
            })
            .collect();
        let mut seen: Map<Vec<u64>, u16> = Map::default();
        let mut reps: Vec<u64> = Vec::new();
        let mut class_of: Vec<u16> = Vec::with_capacity(1 << bits);
        let mut sig = Vec::new();
        for v in 0..1u64 << bits {
            let x = v << lo;
            sig.clear();
            for &(m, om, idents) in &readers {
                let mut hits = 0u64;
                for (i, &id) in idents.iter().enumerate().take(64) {
                    hits |= ((x & m == id as u64 & m) as u64) << i;
                }
                sig.push(hits);
                sig.push(x & om);
            }
            let k = match seen.get(&sig) {
                Some(&k) => k,
                None => {
                    reps.push(v);
                    let k = (reps.len() - 1) as u16;
                    seen.insert(sig.clone(), k);
                    k
                }
            };
            class_of.push(k);
        }
        // Every node has a class table (the identity when each value is its own class), so
        // that reading a node takes no branch; equal tables are stored once.
        let n = self.classes.len() as u32;
        let cmap = *self.class_maps.entry(class_of.clone()).or_insert_with(|| {
            self.classes.extend_from_slice(&class_of);
            n
        });
        (cmap, reps)
    }
}

/// The loop of `decode_block_inst` and `decode_block_ids_inst`, written once and expanded in
/// each (a generic function over the record type cost `decode_block` instructions). `fast`
/// builds the record of leaf `e`, `len` dwords long, from the [`Lut`] and the first four words
/// `w`; `other` that of an instruction [`Amd::decode_inst`] decoded (`off`: the offset of
/// either in the bytes).
///
/// Why a library uses `unsafe` here: the records are written straight into the output's
/// spare capacity and the length set once per batch (`set_len`), so block decoding pays no
/// per-instruction capacity check or initialisation; BENCHMARKS.md has the decode figures
/// this path gives. The SAFETY comment at the `set_len` says why it is sound.
macro_rules! block_loop {
    ($self:ident, $bytes:ident, $base_addr:ident, $out:ident,
     fast($lut:ident, $e:ident, $w:ident, $off:ident, $len:ident) => $fast:expr,
     other($d:ident, $doff:ident) => $other:expr) => {{
        /// Instructions written between two capacity checks.
        const CHUNK: usize = 4096;
        /// `(e >> E_DW_SHIFT) & FAST` keeps a leaf's length and its leaf, none and odd flags:
        /// it is `FAST_LEAF | dwords` exactly when the leaf takes the inline path.
        const FAST: u32 = (E_LEAF | E_NONE | E_ODD) >> E_DW_SHIFT | 7;
        const FAST_LEAF: usize = (E_LEAF >> E_DW_SHIFT) as usize;
        let f = $self.facts();
        // The inline path's tables at one address (a register, not reloaded through `f`).
        let l = f.lut;
        let rj = reject::rules($self.isa);
        let mut off = 0usize;
        loop {
            // Every instruction is at least one dword: room for all the bytes left can hold,
            // at most CHUNK at a time.
            $out.reserve(($bytes.len().saturating_sub(off) / 4).min(CHUNK));
            let start = $out.len();
            let spare = $out.spare_capacity_mut();
            let room = spare.len();
            let mut slots = spare.iter_mut();
            let mut rest = $bytes.get(off..).unwrap_or_default();
            // No calls in this loop (every value stays in a register): what it does not
            // decide inline, it leaves to `decode_inst` below.
            while let Some(b) = rest.first_chunk::<16>() {
                let w: [u32; 4] = std::array::from_fn(|i| u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]));
                let t = l.top[(w[0] >> 16) as usize];
                // At most 3 (the longest instruction without a literal): the step below
                // stays within the 16 bytes just read.
                let guess = (t >> E_GUESS_SHIFT & 3) as usize;
                let x = w[0] as u64 | (w[1] as u64) << 32;
                if t & E_CHECK != 0 && x & l.ck_mask[(t >> 26) as usize] == l.ck_val[(t >> 26) as usize] {
                    break;
                }
                // The length when it is not the guessed one: a literal, a DPP/SDWA form, ...
                // (a branch rather than a data dependency). `None` for every entry that is no
                // leaf, or a leaf without the inline length.
                let other = |e: u32, lit: u64| {
                    let keep = ((e >> E_DW_SHIFT) & 7) as usize + (lit != 0) as usize;
                    (e & (E_LEAF | E_NONE | E_ODD) == E_LEAF && keep <= 4).then_some(keep)
                };
                let (e, step) = if t & E_LEAF != 0 {
                    // A leaf in the upper-half table: its guess is its own length, so the
                    // inline path needs only no literal, no flag and at most 3 dwords.
                    let lit = l.lit[((t >> E_LIT_SHIFT) & 15) as usize].fields_255(x);
                    if (t & (E_NONE | E_ODD | 4 << E_DW_SHIFT)) as u64 | lit != 0 {
                        let Some(k) = other(t, lit) else { break };
                        (t, k)
                    } else {
                        (t, guess)
                    }
                } else {
                    let e = walk_masked(l, t, x);
                    // Non-zero when an operand selects a literal dword (one however many do).
                    let lit = l.lit[((e >> E_LIT_SHIFT) & 15) as usize].fields_255(x);
                    if (((e >> E_DW_SHIFT) & FAST) as usize ^ (FAST_LEAF | guess)) as u64 | lit != 0 {
                        let Some(k) = other(e, lit) else { break };
                        (e, k)
                    } else {
                        (e, guess)
                    }
                };
                if rj.rejects_inline(e & E_IENC_MASK, &w) {
                    break; // decode_inst says why
                }
                let Some(slot) = slots.next() else { break };
                let ($lut, $e, $w, $off, $len) = (l, e, w, $bytes.len() - rest.len(), step);
                slot.write($fast);
                rest = rest.get(step * 4..).unwrap_or_default();
            }
            // Slots are taken only to be written at once: the first `n` are written.
            let n = room - slots.len();
            off = $bytes.len() - rest.len();
            // SAFETY: the loop above wrote every slot the iterator handed out (`slot.write` right
            // after `slots.next()`), which are the first `n` of the spare capacity, so
            // `start + n <= start + room`, within the capacity, and all of them initialised.
            unsafe { $out.set_len(start + n) };
            if n != 0 && n == room {
                continue; // out of room, not out of instructions
            }
            let Some(rest) = $bytes.get(off..).filter(|r| !r.is_empty()) else { break };
            match $self.decode_inst(rest, $base_addr.wrapping_add(off as u64)) {
                Ok(d) if d.len > 0 => {
                    let ($d, $doff) = (d, off);
                    $out.push($other);
                    off += d.len as usize;
                }
                _ => break,
            }
        }
        off
    }};
}

/// An AMD ISA plugin over generated tables.
#[derive(Debug)]
pub struct Amd<Op: 'static> {
    isa: Isa,
    tables: &'static Tables<Op>,
    prebuilt: &'static Prebuilt,
    /// The [`Lut`] of `prebuilt`.
    prebuilt_lut: &'static Lut,
    facts: OnceLock<Facts>,
}

mod prebuilt_gfx10 {
    use super::{LitFields, Literal, Node, Prebuilt};
    include!("../generated/gfx10_tree.rs");
    /// The inline path's tables for [`PREBUILT`], worked out by the compiler.
    pub(super) static LUT: super::Lut = super::lut(&PREBUILT);
}

mod prebuilt_gfx12 {
    use super::{LitFields, Literal, Node, Prebuilt};
    include!("../generated/gfx12_tree.rs");
    /// The inline path's tables for [`PREBUILT`], worked out by the compiler.
    pub(super) static LUT: super::Lut = super::lut(&PREBUILT);
}

/// The gfx1013 plugin.
pub static GFX10: Amd<gfx10::Op> =
    Amd::new(Isa::Gfx1013, &gfx10::TABLES, &prebuilt_gfx10::PREBUILT, &prebuilt_gfx10::LUT);
/// The gfx1201 plugin.
pub static GFX12: Amd<gfx12::Op> =
    Amd::new(Isa::Gfx1201, &gfx12::TABLES, &prebuilt_gfx12::PREBUILT, &prebuilt_gfx12::LUT);

impl<Op: Generation> Amd<Op> {
    const fn new(
        isa: Isa,
        tables: &'static Tables<Op>,
        prebuilt: &'static Prebuilt,
        prebuilt_lut: &'static Lut,
    ) -> Self {
        Amd { isa, tables, prebuilt, prebuilt_lut, facts: OnceLock::new() }
    }

    /// The generated tables.
    pub fn tables(&self) -> &'static Tables<Op> {
        self.tables
    }

    fn facts(&self) -> &Facts {
        self.facts.get_or_init(|| {
            // Release builds trust the checked-in tree without hashing the tables (about 260k
            // machine instructions and a few dozen pages of tables at every start);
            // `prebuilt_trees_are_current` (tests/amd_fast.rs) fails when it is stale, and
            // debug builds check the stamp here.
            if self.prebuilt.stamp != 0 && (!cfg!(debug_assertions) || self.uses_prebuilt()) {
                Facts { lut: self.prebuilt_lut, tree: *self.prebuilt }
            } else {
                let tree = self.build_tree();
                Facts { lut: lut_leaked(&tree), tree }
            }
        })
    }

    /// Works the decision tree and literal facts out from the generated tables (what
    /// `generated/*_tree.rs` holds, when that is current).
    fn build_tree(&self) -> Prebuilt {
        {
            let t = self.tables;
            let literal: Vec<Literal> = t
                .inst_encodings
                .iter()
                .map(|ie| {
                    let e = &t.encodings[ie.enc as usize];
                    let mut l = Literal::default();
                    // DPP and SDWA forms have no literal, but for the gfx12 VOP3 DPP forms:
                    // a source field of 255 there selects a literal dword after the DPP dword.
                    if e.name.contains("SDWA") || (e.name.contains("DPP") && !e.name.starts_with("ENC_VOP3")) {
                        return l;
                    }
                    for op in ie.operands.iter() {
                        let ty = &t.operand_types[op.ty as usize];
                        if ty.name == "OPR_SIMM32" {
                            l.always = true;
                        } else if let Some(f) = op.field {
                            let lit = selects_literal(t, ie, op);
                            if lit && f.ranges.len() == 1 && (l.n as usize) < l.fields.len() {
                                l.fields[l.n as usize] = f.ranges[0];
                                l.n += 1;
                            }
                        }
                    }
                    l
                })
                .collect();
            let nsa: Vec<Option<usize>> =
                t.encodings.iter().map(|e| e.fields.iter().position(|f| f.name == "NSA")).collect();
            // Literal field sets, shared by the instruction encodings that have the same ones.
            let mut lit = [LitFields::default(); 16];
            let mut n_sets = 1;
            let lit_set: Vec<Option<u32>> = literal
                .iter()
                .map(|l| {
                    let mut lf = LitFields::default();
                    for &(off, w) in &l.fields[..l.n as usize] {
                        let m = ((1u64 << w) - 1) << off;
                        if off as u32 + w as u32 > 64 || !(8..=16).contains(&w) || lf.mask & m != 0 {
                            return None;
                        }
                        lf.mask |= m;
                        lf.pat |= 255 << off;
                        lf.low |= 1 << off;
                        lf.high |= 1 << (off + w - 1);
                    }
                    let k = lit[..n_sets].iter().position(|x| *x == lf).unwrap_or(n_sets);
                    if k == lit.len() {
                        return None;
                    }
                    if k == n_sets {
                        lit[k] = lf;
                        n_sets += 1;
                    }
                    Some(k as u32)
                })
                .collect();
            // Leaves pack the encoding (6 bits), its width in dwords (2 bits) and the
            // instruction encoding (12 bits); tables too large for that take the slow path.
            let packable = t.encodings.len() <= 64
                && t.inst_encodings.len() <= E_IENC_MASK as usize + 1
                && t.encodings.iter().all(|e| (32..=96).contains(&e.bits) && e.bits % 32 == 0);
            let leaf = |enc: u16, ie: Option<u16>| -> u32 {
                let Some(ie) = ie else { return E_LEAF | E_NONE };
                let e = &t.encodings[enc as usize];
                let always = literal[ie as usize].always;
                let dwords = e.bits as u32 / 32 + always as u32;
                let mut v = E_LEAF | (enc as u32) << E_ENC_SHIFT | dwords << E_DW_SHIFT | ie as u32;
                match lit_set[ie as usize] {
                    // An always-literal instruction has its one literal dword whatever the fields.
                    Some(_) if always && nsa[enc as usize].is_none() => {}
                    Some(k) if nsa[enc as usize].is_none() => v |= k << E_LIT_SHIFT,
                    _ => v |= E_ODD,
                }
                v
            };
            let mut b = Builder {
                t,
                leaf: &leaf,
                masks: t
                    .encodings
                    .iter()
                    .map(|e| {
                        let om = e.op.as_ref().map_or(0, field_mask);
                        let fits = e.mask >> 64 == 0 && om >> 64 == 0 && e.idents.iter().all(|i| i >> 64 == 0);
                        fits.then_some((e.mask as u64, om as u64))
                    })
                    .collect(),
                splits: Default::default(),
                done: Default::default(),
                nodes: Vec::new(),
                entries: Vec::new(),
                classes: Vec::new(),
                class_maps: Default::default(),
            };
            let key_ok = t.key_bits <= 16 && t.key_lo >= 16 && t.key_lo + t.key_bits <= 32;
            let root: Vec<u32> = if packable && key_ok {
                let kmask = ((1u64 << t.key_bits) - 1) << t.key_lo;
                (0..1u64 << t.key_bits).map(|k| b.build(kmask, k << t.key_lo, 0)).collect()
            } else {
                Vec::new()
            };
            // Built once per process when the checked-in tree is stale: kept for its life.
            Prebuilt {
                stamp: stamp(t),
                key_lo: t.key_lo,
                key_bits: t.key_bits,
                lit,
                root: root.leak(),
                nodes: b.nodes.leak(),
                entries: b.entries.leak(),
                classes: b.classes.leak(),
                literal: literal.leak(),
                nsa: nsa.leak(),
            }
        }
    }

    /// True when the checked-in decision tree (`src/generated/<gen>_tree.rs`) matches the
    /// generated tables and is used instead of building one.
    #[doc(hidden)]
    pub fn uses_prebuilt(&self) -> bool {
        self.prebuilt.stamp != 0 && self.prebuilt.stamp == stamp(self.tables)
    }

    /// Rust source of this ISA's decision tree and literal facts, for
    /// `src/generated/<gen>_tree.rs` (always worked out afresh, never read from that file; the
    /// tables it builds stay allocated: a generation tool, not for repeated use).
    #[doc(hidden)]
    pub fn tree_source(&self) -> String {
        let f = self.build_tree();
        let mut o = String::new();
        let _ = writeln!(o, "// @generated by Amd::tree_source ({}) from the generated tables. DO NOT EDIT.", self.isa);
        let _ = writeln!(o, "// Refresh: ISABRIDGE_UPDATE_GENERATED=1 cargo test --release -p isabridge-decoder --test amd_fast tree");
        let _ = writeln!(o, "#[rustfmt::skip]\npub(super) static PREBUILT: Prebuilt = Prebuilt {{");
        let _ = writeln!(o, "    stamp: {:#x},", stamp(self.tables));
        let _ = writeln!(o, "    key_lo: {},\n    key_bits: {},", f.key_lo, f.key_bits);
        let list = |o: &mut String, name: &str, items: Vec<String>| {
            let _ = write!(o, "    {name}: &[");
            for (i, it) in items.iter().enumerate() {
                o.push_str(if i % 16 == 0 { "\n        " } else { " " });
                o.push_str(it);
                o.push(',');
            }
            o.push_str("\n    ],\n");
        };
        list(&mut o, "root", f.root.iter().map(|v| format!("{v:#x}")).collect());
        list(
            &mut o,
            "nodes",
            f.nodes.iter().map(|n| format!("Node {{ shift: {}, mask: {:#x}, cmap: {}, base: {} }}", n.shift, n.mask, n.cmap, n.base)).collect(),
        );
        list(&mut o, "entries", f.entries.iter().map(|v| format!("{v:#x}")).collect());
        list(&mut o, "classes", f.classes.iter().map(|v| v.to_string()).collect());
        list(&mut o, "nsa", f.nsa.iter().map(|v| format!("{v:?}")).collect());
        list(
            &mut o,
            "literal",
            f.literal
                .iter()
                .map(|l| format!("Literal {{ always: {}, n: {}, fields: {:?} }}", l.always, l.n, l.fields))
                .collect(),
        );
        let _ = writeln!(o, "    lit: [");
        for l in &f.lit {
            let _ = writeln!(o, "        LitFields {{ mask: {:#x}, pat: {:#x}, low: {:#x}, high: {:#x} }},", l.mask, l.pat, l.low, l.high);
        }
        let _ = writeln!(o, "    ],\n}};");
        o
    }

    /// The (instruction, encoding) entry of a decoded instruction.
    pub fn inst_encoding(&self, d: &Decoded) -> &'static InstEncoding<Op> {
        &self.tables.inst_encodings[d.ienc as usize]
    }

    /// True when LLVM 22 rejects `words` although they have the identifier of instruction
    /// encoding `ienc` (`amd/reject.rs`): reserved bits or operand values.
    #[doc(hidden)]
    pub fn rejects(&self, ienc: u16, words: &[u32]) -> bool {
        reject::rules(self.isa).rejects(ienc, words)
    }

    /// The encoding of a decoded instruction.
    pub fn encoding(&self, d: &Decoded) -> &'static Encoding {
        &self.tables.encodings[d.enc as usize]
    }

    /// The decision entry of an instruction whose first two words are `x`, given its
    /// upper-half table entry `t`: instructions the upper half does not decide (VOP1/VOP2/VOPC
    /// with their DPP/SDWA forms, SOP1, FLAT, MIMG, MTBUF, gfx12 VOP3-DPP, ...) follow a node or
    /// two keyed by the low bits. A non-leaf result sends to [`Tables::classify`].
    #[inline(always)]
    fn entry(&self, f: &Facts, t: u32, x: u64) -> u32 {
        if t & E_CHECK != 0 && exceptional(t, x, f.lut.exc) {
            return Self::root_entry(f, x);
        }
        if t & E_LEAF != 0 {
            t
        } else {
            walk_lut(f.lut, t, x)
        }
    }

    /// The decision entry of first words `x` from the root of the tree (for the values
    /// `E_CHECK` sets apart).
    #[cold]
    #[inline(never)]
    fn root_entry(f: &Facts, x: u64) -> u32 {
        let p = &f.tree;
        if p.key_lo < 16 || p.key_bits > 16 || p.key_lo + p.key_bits > 32 {
            return E_SLOW;
        }
        let key = ((x as u32 >> p.key_lo) & ((1u32 << p.key_bits) - 1)) as usize;
        match p.root.get(key) {
            Some(&r) => walk_nodes((p.nodes, p.classes, p.entries), r, x),
            None => E_SLOW,
        }
    }

    /// Length in dwords of the instruction of leaf `e` (not `E_NONE`, not `E_ODD`): its
    /// encoding's width plus a literal dword when it has one.
    #[inline(always)]
    fn leaf_dwords(f: &Facts, e: u32, words: &[u32]) -> usize {
        // One literal dword however many operands select it.
        let x = words[0] as u64 | (words.get(1).copied().unwrap_or(0) as u64) << 32;
        let lit = f.lut.lit[((e >> E_LIT_SHIFT) & 15) as usize].any_255(x);
        ((e >> E_DW_SHIFT) & 7) as usize + lit as usize
    }

    /// True when instruction encoding `ienc` carries a literal dword in `words`.
    #[inline(always)]
    fn has_literal(f: &Facts, words: &[u32; MAX_WORDS], ienc: u16) -> bool {
        let Some(l) = f.tree.literal.get(ienc as usize) else { return false };
        l.always
            || l.fields[..(l.n as usize).min(3)]
                .iter()
                .any(|&(off, w)| crate::spec::extract(words, off as u32, w as u32) == 255)
    }

    /// The instruction of leaf `e`, `keep` dwords long, with `have` bytes there.
    #[inline(always)]
    fn leaf_result(&self, e: u32, words: &[u32; MAX_WORDS], keep: usize, have: usize, addr: u64) -> Result<Decoded, DecodeError> {
        if keep * 4 > have {
            return Err(DecodeError::Truncated { isa: self.isa, addr, need: keep * 4, have });
        }
        let words = [
            words[0],
            if keep > 1 { words[1] } else { 0 },
            if keep > 2 { words[2] } else { 0 },
            if keep > 3 { words[3] } else { 0 },
            0,
            0,
        ];
        Ok(Decoded { words, len: (keep * 4) as u8, enc: ((e >> E_ENC_SHIFT) & 63) as u16, ienc: (e & E_IENC_MASK) as u16 })
    }

    /// Decodes one instruction (see [`IsaPlugin::decode`]).
    #[inline]
    pub fn decode_inst(&self, bytes: &[u8], addr: u64) -> Result<Decoded, DecodeError> {
        let isa = self.isa;
        if bytes.len() < 4 {
            return Err(DecodeError::Truncated { isa, addr, need: 4, have: bytes.len() });
        }
        let mut words = [0u32; MAX_WORDS];
        if let Some(b) = bytes.first_chunk::<{ MAX_WORDS * 4 }>() {
            // Common case: a whole window of words is there (one fixed-size read).
            for (w, c) in words.iter_mut().zip(b.chunks_exact(4)) {
                *w = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            }
        } else {
            for (i, c) in bytes.chunks_exact(4).take(MAX_WORDS).enumerate() {
                words[i] = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            }
        }
        let facts = self.facts();
        let top = facts.lut.top[(words[0] >> 16) as usize];
        let guess = (top >> E_GUESS_SHIFT & 7) as usize;
        let e = self.entry(facts, top, words[0] as u64 | (words[1] as u64) << 32);
        if e & (E_LEAF | E_NONE | E_ODD) == E_LEAF {
            // The inline screen first, as in the block loop: most words need no full check.
            if reject::rules(isa).rejects_inline(e & E_IENC_MASK, &[words[0], words[1], words[2], words[3]]) {
                return Err(DecodeError::Unknown { isa, addr, word: words[0] });
            }
            let keep = Self::leaf_dwords(facts, e, &words);
            // The returned length is the guess from the upper-half entry when it is right (a
            // branch, not a data dependency, for the caller's next address).
            let keep = if keep == guess { guess } else { return self.leaf_result(e, &words, keep, bytes.len(), addr) };
            return self.leaf_result(e, &words, keep, bytes.len(), addr);
        }
        let (enc, ienc) = if e & E_LEAF != 0 {
            if e & E_NONE != 0 {
                return Err(DecodeError::Unknown { isa, addr, word: words[0] });
            }
            (((e >> E_ENC_SHIFT) & 63) as u16, (e & E_IENC_MASK) as u16)
        } else {
            match self.tables.classify(&words) {
                Some((e, Some(i))) => (e, i),
                _ => return Err(DecodeError::Unknown { isa, addr, word: words[0] }),
            }
        };
        let e = &self.tables.encodings[enc as usize];
        let mut len = e.bits as usize / 8;
        if let Some(nsa) = facts.tree.nsa[enc as usize] {
            if e.fields[nsa].get(&words) != 0 {
                len += 4 * Op::nsa_dwords(self, &words, ienc);
            }
        }
        if Self::has_literal(facts, &words, ienc) {
            len += 4;
        }
        if reject::rules(isa).rejects_inline(ienc as u32, &[words[0], words[1], words[2], words[3]]) {
            return Err(DecodeError::Unknown { isa, addr, word: words[0] });
        }
        if len > bytes.len() || len > MAX_WORDS * 4 {
            return Err(DecodeError::Truncated { isa, addr, need: len, have: bytes.len() });
        }
        // Words past the instruction read as zero (an element-wise select, no memset call).
        let keep = len / 4;
        let words = std::array::from_fn(|i| if i < keep { words[i] } else { 0 });
        Ok(Decoded { words, len: len as u8, enc, ienc })
    }

    /// The instruction `bytes` would be if the rejection rules let it through: the words of
    /// an instruction LLVM rejects after decoding some of its operands (see
    /// [`IsaPlugin::rejected_note`]). None when the identifier bits name no instruction or
    /// the words are cut off.
    fn decode_unchecked(&self, bytes: &[u8]) -> Option<Decoded> {
        let mut words = [0u32; MAX_WORDS];
        for (i, c) in bytes.chunks_exact(4).take(MAX_WORDS).enumerate() {
            words[i] = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
        let facts = self.facts();
        let top = facts.lut.top[(words[0] >> 16) as usize];
        let e = self.entry(facts, top, words[0] as u64 | (words[1] as u64) << 32);
        let (enc, ienc) = if e & E_LEAF != 0 {
            if e & E_NONE != 0 {
                return None;
            }
            (((e >> E_ENC_SHIFT) & 63) as u16, (e & E_IENC_MASK) as u16)
        } else {
            match self.tables.classify(&words) {
                Some((e, Some(i))) => (e, i),
                _ => return None,
            }
        };
        let e = &self.tables.encodings[enc as usize];
        let mut len = e.bits as usize / 8;
        if let Some(nsa) = facts.tree.nsa[enc as usize] {
            if e.fields[nsa].get(&words) != 0 {
                len += 4 * Op::nsa_dwords(self, &words, ienc);
            }
        }
        if Self::has_literal(facts, &words, ienc) {
            len += 4;
        }
        if len > bytes.len() || len > MAX_WORDS * 4 {
            return None;
        }
        let keep = len / 4;
        let words = std::array::from_fn(|i| if i < keep { words[i] } else { 0 });
        Some(Decoded { words, len: len as u8, enc, ienc })
    }

    /// The instruction of leaf `e` (not `E_NONE`, not `E_ODD`), `keep` (1-4) dwords of `w`.
    #[inline(always)]
    fn leaf_decoded(l: &Lut, e: u32, w: [u32; 4], keep: usize) -> Decoded {
        // Words past the instruction read as zero: one mask per length (an AND, no branch),
        // found at the length in bytes (no scaling of the index).
        let m = l.keep[(keep * 4) & 31..].first_chunk::<4>().copied().unwrap_or_default();
        // At most three dwords plus a literal: the last two words are zero.
        let words = [w[0] & m[0], w[1] & m[1], w[2] & m[2], w[3] & m[3], 0, 0];
        // Encoding and instruction encoding as the two halves of one word (one store).
        let ident = (e & E_IDENT).rotate_left(16);
        Decoded { words, len: (keep * 4) as u8, enc: ident as u16, ienc: (ident >> 16) as u16 }
    }

    /// Decodes instructions front to back (see [`IsaPlugin::decode_block`]). While four words
    /// are left, an instruction whose leaf gives its length takes the inline path: the
    /// upper-half table, nodes when needed, and the length; the loop advances by the length
    /// guessed from the upper-half entry alone and branches off when the exact one differs, so
    /// that the next instruction's loads need not wait for this one's. Results are written
    /// straight into `out`'s spare capacity, reserved once per chunk of up to 4,096 (no
    /// capacity check per instruction). Everything else goes through [`Self::decode_inst`].
    pub fn decode_block_inst(&self, bytes: &[u8], base_addr: u64, out: &mut Vec<Decoded>) -> usize {
        block_loop!(
            self, bytes, base_addr, out,
            fast(l, e, w, _off, len) => Self::leaf_decoded(l, e, w, len),
            other(d, _off) => d
        )
    }

    /// Decodes instructions front to back like [`Self::decode_block_inst`] (the same loop),
    /// recording each as an [`InstId`]: offset, identity, length, 8 bytes, no words (see
    /// [`IsaPlugin::decode_block_ids`]).
    pub fn decode_block_ids_inst(&self, bytes: &[u8], base_addr: u64, out: &mut Vec<InstId>) -> usize {
        // Offsets are u32: at most 4 GiB per call (the caller continues from the result).
        let bytes = bytes.get(..u32::MAX as usize).unwrap_or(bytes);
        block_loop!(
            self, bytes, base_addr, out,
            fast(_l, e, _w, off, len) => InstId { off: off as u32, ienc: (e & E_IENC_MASK) as u16, len: (len * 4) as u8 },
            other(d, off) => InstId { off: off as u32, ienc: d.ienc, len: d.len }
        )
    }
}

/// Printing and canonical encoding of one AMD generation.
pub trait Generation: Copy + Sync + std::fmt::Debug + 'static {
    /// Appends the instruction's LLVM text.
    fn print(p: &Amd<Self>, d: &Decoded, addr: u64, out: &mut String);
    /// [`Generation::print`], and LLVM's comment about the instruction appended to `note` (see
    /// [`IsaPlugin::print_noted`]): a printer built on [`print::Ctx`] writes
    /// [`print::Ctx::notes`] after printing. Without an override: no comment.
    fn print_noted(p: &Amd<Self>, d: &Decoded, addr: u64, out: &mut String, _note: &mut String) {
        Self::print(p, d, addr, out)
    }
    /// Clears or rewrites bits the way llvm-mc's canonical encoding does.
    fn canonicalize(p: &Amd<Self>, d: &mut Decoded);
    /// Extra address dwords of an NSA image instruction (its NSA field is non-zero).
    fn nsa_dwords(p: &Amd<Self>, words: &[u32], ienc: u16) -> usize;
}

impl<Op: Generation> IsaPlugin for Amd<Op> {
    fn isa(&self) -> Isa {
        self.isa
    }

    fn unit(&self) -> usize {
        4
    }

    fn decode(&self, bytes: &[u8], addr: u64) -> Result<Decoded, DecodeError> {
        self.decode_inst(bytes, addr)
    }

    fn decode_block(&self, bytes: &[u8], base_addr: u64, out: &mut Vec<Decoded>) -> usize {
        self.decode_block_inst(bytes, base_addr, out)
    }

    fn decode_block_ids(&self, bytes: &[u8], base_addr: u64, out: &mut Vec<InstId>) -> usize {
        self.decode_block_ids_inst(bytes, base_addr, out)
    }

    fn print(&self, inst: &Decoded, addr: u64, out: &mut String) {
        Op::print(self, inst, addr, out)
    }

    fn print_noted(&self, inst: &Decoded, addr: u64, out: &mut String, note: &mut String) {
        Op::print_noted(self, inst, addr, out, note)
    }

    /// gfx1201 only: LLVM decodes a buffer instruction (VBUFFER, and SMEM's `s_buffer_load_*`)
    /// with every operand and refuses a negative IOFFSET afterwards, in a check behind its
    /// decode tables, so the warnings of the operands it decoded stay on the `.long` line. Every
    /// other refusal happens in the tables, before the warnings are kept (the mutated listings
    /// in fixtures/amd/mutated show both).
    fn rejected_note(&self, bytes: &[u8], addr: u64, note: &mut String) {
        if self.isa != Isa::Gfx1201 {
            return;
        }
        let Some(mut d) = self.decode_unchecked(bytes) else { return };
        let e = self.encoding(&d);
        if e.name != "ENC_VBUFFER" && e.name != "ENC_SMEM" {
            return;
        }
        let Some(&[(off, cnt)]) = e.fields.iter().find(|f| f.name == "IOFFSET").map(|f| f.ranges) else { return };
        let sign = off as usize + cnt as usize - 1;
        let full = d;
        let Some(w) = d.words.get_mut(sign / 32) else { return };
        if *w >> (sign % 32) & 1 == 0 {
            return;
        }
        *w &= !(1 << (sign % 32));
        if !reject::rules(self.isa).rejects(d.ienc, &d.words) {
            Op::print_noted(self, &full, addr, &mut String::new(), note)
        }
    }

    fn encode(&self, inst: &Decoded) -> Vec<u8> {
        let mut out = *inst;
        Op::canonicalize(self, &mut out);
        out.bytes()
    }

    fn name(&self, inst: &Decoded) -> &'static str {
        self.tables.instructions[self.inst_encoding(inst).inst as usize].name
    }

    fn encoding_name(&self, inst: &Decoded) -> &'static str {
        self.encoding(inst).name
    }

    /// AMD branches: a label operand holds a signed dword offset from the next instruction.
    fn branch_target(&self, inst: &Decoded, addr: u64) -> Option<u64> {
        // Most instructions have no label operand: known without reading their operands.
        let i = inst.ienc as usize;
        if self.tables.label_iencs.get(i / 64).is_none_or(|w| w >> (i % 64) & 1 == 0) {
            return None;
        }
        let ie = self.inst_encoding(inst);
        let op = ie.operands.iter().find(|o| self.tables.operand_types[o.ty as usize].name == "OPR_LABEL")?;
        let simm = op.field?.get(&inst.words) as u16 as i16 as i64;
        Some(addr.wrapping_add(4).wrapping_add((simm * 4) as u64))
    }

    fn operands(&self, inst: &Decoded, addr: u64) -> crate::Inst {
        model::operands(self, inst, addr)
    }

    fn flow(&self, inst: &Decoded) -> crate::operand::Flow {
        model::flow(self, inst)
    }

    fn build(&self, inst: &crate::Inst) -> Result<Vec<u8>, crate::BuildError> {
        build::build(self, inst)
    }
}
