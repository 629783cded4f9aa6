//! Synchronization and scheduling operations: barriers, fences, explicit wait counters.

use super::mem::Scope;

/// A synchronization operation (no result).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SyncOp {
    /// Workgroup execution barrier with a memory scope (s_barrier / bar.sync).
    Barrier(Scope),
    /// Memory fence.
    Fence(Scope),
    /// AMD s_waitcnt-style wait, kept explicit: (vm, lgkm, vs) counts. The interpreter's memory
    /// completes in order, so it is a no-op there; backends recompute waits from data flow.
    WaitCnt(u8, u8, u8),
}

impl SyncOp {
    /// Text mnemonic.
    pub fn mnemonic(&self) -> String {
        match self {
            SyncOp::Barrier(s) => format!("barrier.{}", s.name()),
            SyncOp::Fence(s) => format!("fence.{}", s.name()),
            SyncOp::WaitCnt(a, b, c) => format!("waitcnt.{a}.{b}.{c}"),
        }
    }
    /// Parse a mnemonic split at dots.
    pub fn parse(base: &str, mods: &[&str]) -> Option<SyncOp> {
        Some(match (base, mods) {
            ("barrier", [s]) => SyncOp::Barrier(Scope::parse(s)?),
            ("fence", [s]) => SyncOp::Fence(Scope::parse(s)?),
            ("waitcnt", [a, b, c]) => SyncOp::WaitCnt(a.parse().ok()?, b.parse().ok()?, c.parse().ok()?),
            _ => return None,
        })
    }
}
