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
    /// Sleep for about this many units of 64 clocks (AMD `s_sleep`): a scheduling hint; the
    /// interpreter runs it as a no-op.
    Sleep(u16),
    /// Set the wave's issue priority (0-3, AMD `s_setprio`): a scheduling hint; the
    /// interpreter runs it as a no-op.
    Priority(u8),
}

impl SyncOp {
    /// Text mnemonic.
    pub fn mnemonic(&self) -> String {
        match self {
            SyncOp::Barrier(s) => format!("barrier.{}", s.name()),
            SyncOp::Fence(s) => format!("fence.{}", s.name()),
            SyncOp::WaitCnt(a, b, c) => format!("waitcnt.{a}.{b}.{c}"),
            SyncOp::Sleep(n) => format!("sleep.{n}"),
            SyncOp::Priority(n) => format!("priority.{n}"),
        }
    }
    /// Parse a mnemonic split at dots.
    pub fn parse(base: &str, mods: &[&str]) -> Option<SyncOp> {
        Some(match (base, mods) {
            ("barrier", [s]) => SyncOp::Barrier(Scope::parse(s)?),
            ("fence", [s]) => SyncOp::Fence(Scope::parse(s)?),
            ("waitcnt", [a, b, c]) => SyncOp::WaitCnt(a.parse().ok()?, b.parse().ok()?, c.parse().ok()?),
            ("sleep", [n]) => SyncOp::Sleep(n.parse().ok()?),
            ("priority", [n]) => SyncOp::Priority(n.parse().ok()?),
            _ => return None,
        })
    }
}
