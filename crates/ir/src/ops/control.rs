//! Synchronization and scheduling operations: barriers, fences, explicit waits on counters of
//! outstanding operations, traps and host interrupts.

use super::mem::Scope;

/// Kinds of outstanding operation a wait counts, as a set (one bit each). A machine's counter
/// is the set of kinds it counts together; a wait names such a set and the most operations of
/// it that may still be outstanding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct WaitKinds(pub u16);

impl WaitKinds {
    /// Vector memory loads (and atomics that return a value).
    pub const LOAD: WaitKinds = WaitKinds(1);
    /// Vector memory stores (and atomics that return nothing).
    pub const STORE: WaitKinds = WaitKinds(2);
    /// Image samples and gathers.
    pub const SAMPLE: WaitKinds = WaitKinds(4);
    /// Ray / BVH-node intersections.
    pub const BVH: WaitKinds = WaitKinds(8);
    /// Scalar (uniform, constant) memory loads.
    pub const SCALAR: WaitKinds = WaitKinds(16);
    /// Workgroup shared memory accesses.
    pub const SHARED: WaitKinds = WaitKinds(32);
    /// Device-wide shared memory accesses (a global data share).
    pub const DEVICE_SHARED: WaitKinds = WaitKinds(64);
    /// Graphics-stage exports.
    pub const EXPORT: WaitKinds = WaitKinds(128);
    /// Messages to the host or the fixed-function hardware.
    pub const MESSAGE: WaitKinds = WaitKinds(256);
    /// Loads of interpolation attributes into registers.
    pub const ATTRIBUTE: WaitKinds = WaitKinds(512);
    /// Every kind, with its text name, in text order.
    pub const NAMES: [(WaitKinds, &'static str); 10] = [
        (WaitKinds::LOAD, "load"),
        (WaitKinds::STORE, "store"),
        (WaitKinds::SAMPLE, "sample"),
        (WaitKinds::BVH, "bvh"),
        (WaitKinds::SCALAR, "scalar"),
        (WaitKinds::SHARED, "shared"),
        (WaitKinds::DEVICE_SHARED, "devshared"),
        (WaitKinds::EXPORT, "export"),
        (WaitKinds::MESSAGE, "message"),
        (WaitKinds::ATTRIBUTE, "attribute"),
    ];
    /// The bits of every kind.
    pub const ALL_BITS: u16 = 0x3ff;
    /// The union of two sets.
    pub const fn or(self, o: WaitKinds) -> WaitKinds {
        WaitKinds(self.0 | o.0)
    }
    /// Text form: the kinds' names joined by `+`.
    pub fn name(self) -> String {
        let names: Vec<&str> = WaitKinds::NAMES.iter().filter(|(k, _)| self.0 & k.0 != 0).map(|(_, n)| *n).collect();
        names.join("+")
    }
    /// Parse the text form.
    pub fn parse(s: &str) -> Option<WaitKinds> {
        let mut bits = 0;
        for part in s.split('+') {
            let k = WaitKinds::NAMES.iter().find(|(_, n)| *n == part)?.0;
            if bits & k.0 != 0 {
                return None;
            }
            bits |= k.0;
        }
        (bits != 0).then_some(WaitKinds(bits))
    }
}

/// Most counters one wait names.
pub const MAX_WAIT_COUNTERS: usize = 3;

/// A wait until, for each named counter (a set of kinds counted together), at most `count`
/// of its operations are still outstanding. Slots in use come first; an unused slot has no
/// kinds and count 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Wait {
    /// (kinds counted together, most still outstanding) per counter.
    pub counters: [(WaitKinds, u16); MAX_WAIT_COUNTERS],
}

impl Wait {
    /// A wait on the given counters (at most [`MAX_WAIT_COUNTERS`]; more are an error).
    pub fn new(counters: &[(WaitKinds, u16)]) -> Option<Wait> {
        if counters.len() > MAX_WAIT_COUNTERS {
            return None;
        }
        let mut w = Wait::default();
        w.counters[..counters.len()].copy_from_slice(counters);
        Some(w)
    }
    /// The counters in use.
    pub fn used(&self) -> impl Iterator<Item = (WaitKinds, u16)> + '_ {
        self.counters.iter().copied().filter(|(k, _)| k.0 != 0)
    }
    /// Why the wait is malformed, if it is: a slot in use with kinds outside the known ones,
    /// a used slot after an unused one, or an unused slot with a count.
    pub fn problem(&self) -> Option<&'static str> {
        let mut ended = false;
        for (k, n) in self.counters {
            if k.0 == 0 {
                if n != 0 {
                    return Some("unused wait counter with a count");
                }
                ended = true;
            } else if ended {
                return Some("wait counter after an unused one");
            } else if k.0 & !WaitKinds::ALL_BITS != 0 {
                return Some("unknown wait counter kind");
            }
        }
        None
    }
}

/// A result that arrives late: the value of a memory operation's result that the machine
/// writes to its register only when the operation completes, which a program may rely on only
/// after a wait whose counter covers `kinds` has retired it.
///
/// The op gives its operand unchanged. The interpreter runs it as a copy; a function with
/// such ops runs in the late-arriving-memory model ([`crate::interp`]'s `late` module), where
/// the result stays outstanding until a covering [`SyncOp::Wait`] and a register read of it
/// before then is a poison value. One machine operation with several results names one
/// event: its first result starts it, the others `join` it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pending {
    /// The kind of outstanding operation (exactly one of [`WaitKinds`]' kinds).
    pub kinds: WaitKinds,
    /// The result belongs to the event the previous pending op of the wave started.
    pub join: bool,
}

impl Pending {
    /// Text mnemonic: `pending.load`, `pending.shared.join`.
    pub fn mnemonic(&self) -> String {
        format!("pending.{}{}", self.kinds.name(), if self.join { ".join" } else { "" })
    }
    /// Parse a mnemonic split at dots.
    pub fn parse(base: &str, mods: &[&str]) -> Option<Pending> {
        let (k, join) = match (base, mods) {
            ("pending", [k]) => (k, false),
            ("pending", [k, "join"]) => (k, true),
            _ => return None,
        };
        Some(Pending { kinds: WaitKinds::parse(k)?, join })
    }
    /// Why the op is malformed, if it is: it must name exactly one known kind.
    pub fn problem(&self) -> Option<&'static str> {
        let k = self.kinds.0;
        (k == 0 || k & (k - 1) != 0 || k & !WaitKinds::ALL_BITS != 0).then_some("a pending result names exactly one known kind")
    }
}

/// A synchronization operation (no result).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SyncOp {
    /// Workgroup execution barrier with a memory scope (s_barrier / bar.sync).
    Barrier(Scope),
    /// Memory fence.
    Fence(Scope),
    /// Wait for outstanding operations ([`Wait`]), kept explicit so a backend sees the
    /// machine's waits. The interpreter completes every memory operation in program order, so
    /// it runs a wait as a no-op, except that it retires the outstanding [`Pending`] results
    /// the wait covers.
    Wait(Wait),
    /// Sleep for about this many units of 64 clocks (AMD `s_sleep`): a scheduling hint; the
    /// interpreter runs it as a no-op.
    Sleep(u16),
    /// Set the wave's issue priority (0-3, AMD `s_setprio`): a scheduling hint; the
    /// interpreter runs it as a no-op.
    Priority(u8),
    /// Enter the trap handler with this trap code; the handler ends the dispatch with an error
    /// the host sees (the code says why, e.g. an abort). The interpreter has no trap handler:
    /// it stops the run with [`crate::interp::InterpError::Trap`] naming the code.
    Trap(u16),
    /// Signal the host with an interrupt; with `halt`, the wave then stops until the host
    /// resumes it. The interpreter has no host: a plain interrupt is a no-op, and a halt stops
    /// the run with [`crate::interp::InterpError::Halt`] (no host will resume the wave).
    Interrupt {
        /// The wave halts after sending.
        halt: bool,
    },
}

impl SyncOp {
    /// Text mnemonic.
    pub fn mnemonic(&self) -> String {
        match self {
            SyncOp::Barrier(s) => format!("barrier.{}", s.name()),
            SyncOp::Fence(s) => format!("fence.{}", s.name()),
            SyncOp::Wait(w) => {
                let mut s = String::from("wait");
                for (k, n) in w.used() {
                    s += &format!(".{}:{n}", k.name());
                }
                s
            }
            SyncOp::Sleep(n) => format!("sleep.{n}"),
            SyncOp::Priority(n) => format!("priority.{n}"),
            SyncOp::Trap(n) => format!("trap.{n}"),
            SyncOp::Interrupt { halt } => format!("interrupt{}", if *halt { ".halt" } else { "" }),
        }
    }
    /// Parse a mnemonic split at dots.
    pub fn parse(base: &str, mods: &[&str]) -> Option<SyncOp> {
        Some(match (base, mods) {
            ("barrier", [s]) => SyncOp::Barrier(Scope::parse(s)?),
            ("fence", [s]) => SyncOp::Fence(Scope::parse(s)?),
            ("wait", cs) => {
                let mut v = Vec::new();
                for c in cs {
                    let (k, n) = c.split_once(':')?;
                    v.push((WaitKinds::parse(k)?, n.parse().ok()?));
                }
                SyncOp::Wait(Wait::new(&v)?)
            }
            ("sleep", [n]) => SyncOp::Sleep(n.parse().ok()?),
            ("priority", [n]) => SyncOp::Priority(n.parse().ok()?),
            ("trap", [n]) => SyncOp::Trap(n.parse().ok()?),
            ("interrupt", []) => SyncOp::Interrupt { halt: false },
            ("interrupt", ["halt"]) => SyncOp::Interrupt { halt: true },
            _ => return None,
        })
    }
}
