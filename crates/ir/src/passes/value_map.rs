//! Maps the passes use on their hot paths: a dense value-to-value replacement map indexed by
//! value number, and a hash map keyed by small integers with a multiplicative hasher (the
//! standard library's SipHash is built to resist chosen keys, which pass-local keys never are).

use crate::ir::Value;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

const NONE: u32 = u32::MAX;

/// A replacement map from values to values, one slot per value index.
#[derive(Clone, Debug, Default)]
pub(crate) struct ValueMap {
    to: Vec<u32>,
    len: usize,
}

impl ValueMap {
    /// An empty map with room for `n` values.
    pub(crate) fn with_capacity(n: usize) -> ValueMap {
        ValueMap { to: vec![NONE; n], len: 0 }
    }
    /// The replacement of `v`, if one was recorded.
    #[inline]
    pub(crate) fn get(&self, v: Value) -> Option<Value> {
        match self.to.get(v.index()) {
            Some(&w) if w != NONE => Some(Value(w)),
            _ => None,
        }
    }
    /// Whether `v` has a replacement.
    #[inline]
    pub(crate) fn contains(&self, v: Value) -> bool {
        self.get(v).is_some()
    }
    /// Record (or overwrite) the replacement of `v`.
    pub(crate) fn insert(&mut self, v: Value, w: Value) {
        let i = v.index();
        if i >= self.to.len() {
            self.to.resize((i + 1).max(self.to.len() * 2), NONE);
        }
        if self.to[i] == NONE {
            self.len += 1;
        }
        self.to[i] = w.0;
    }
    /// Whether no replacement is recorded.
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// A hasher for keys made of a few integers: each word is mixed in by a multiply, and the
/// high half folded into the low half so both the bucket bits and the tag bits vary.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct IntHasher(u64);

impl Hasher for IntHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    #[inline]
    fn write_u32(&mut self, x: u32) {
        self.write_u64(x as u64);
    }
    #[inline]
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(23) ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    #[inline]
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 29)
    }
}

/// A hash map with [`IntHasher`].
pub(crate) type IntMap<K, V> = HashMap<K, V, BuildHasherDefault<IntHasher>>;
