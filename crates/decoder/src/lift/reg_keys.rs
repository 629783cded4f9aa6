//! The lifters' table from register keys (each lifter's own small numbering of the machine's
//! registers) to IR machine registers: one slot per key, so a register read or write costs an
//! index, not a hash.

use isabridge_ir::ir::Reg;

/// Register key to IR register, for the keys seen so far.
#[derive(Clone, Debug, Default)]
pub(crate) struct RegKeys {
    slots: Vec<Option<Reg>>,
}

impl RegKeys {
    /// The IR register of `key`, if one was made.
    #[inline]
    pub(crate) fn get(&self, key: &u16) -> Option<&Reg> {
        self.slots.get(*key as usize).and_then(|r| r.as_ref())
    }
    /// Record the IR register of `key`.
    pub(crate) fn insert(&mut self, key: u16, r: Reg) {
        let i = key as usize;
        if i >= self.slots.len() {
            self.slots.resize(i + 1, None);
        }
        self.slots[i] = Some(r);
    }
}
