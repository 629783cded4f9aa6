//! Reconvergence and warp-synchronous operations of per-lane (SIMT) code.
//!
//! In a lanes-model function every branch may split the lanes that run together (a *group*);
//! groups never merge by themselves. They merge only where the IR says so:
//!
//! - `converge.open` gives the mask of the lanes of the group that runs it: the members of a
//!   convergence region opened before a divergent branch.
//! - `converge.leave r` takes the lanes that run it out of region `r` (a loop's break, a return
//!   from inside the region): joins on `r` no longer wait for them. A region is named by its
//!   member mask: regions with the same members are one region to `leave`; `converge.open`
//!   starts its region with nobody gone.
//! - `converge.join r` is where the region's lanes rejoin: a lane that reaches it waits until
//!   every lane of `r` that has neither finished nor left waits at the same instruction; then
//!   they continue as one group. A join whose lanes are all together already does not wait.
//!   Lanes that wait at the same instruction for another region are another join (recursive
//!   code: an inner call's region meets there while the outer call's lanes wait for theirs).
//! - `converge.sync m` waits the same way for every unfinished lane of the mask `m` (regions and
//!   leaving play no part): a warp-wide synchronization point.
//! - The warp ops below that take a trailing member mask (and the cross-lane ops of
//!   [`super::lane::LaneOp`] given one) first sync on that mask, then run on the group's lanes
//!   that are in the mask.
//!
//! Barriers (`bar.*`) count threads of the workgroup: `bar.sync`/`bar.red` wait, `bar.arrive`
//! does not; a barrier with count 0 expects every thread of the workgroup that has not
//! finished.

/// The combining operation of a reduction across lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduxKind {
    /// Wrapping sum.
    Add,
    /// Unsigned minimum.
    UMin,
    /// Unsigned maximum.
    UMax,
    /// Signed minimum.
    SMin,
    /// Signed maximum.
    SMax,
    /// Bitwise and.
    And,
    /// Bitwise or.
    Or,
    /// Bitwise xor.
    Xor,
}

impl ReduxKind {
    const ALL: [(ReduxKind, &'static str); 8] = [
        (ReduxKind::Add, "add"),
        (ReduxKind::UMin, "umin"),
        (ReduxKind::UMax, "umax"),
        (ReduxKind::SMin, "smin"),
        (ReduxKind::SMax, "smax"),
        (ReduxKind::And, "and"),
        (ReduxKind::Or, "or"),
        (ReduxKind::Xor, "xor"),
    ];
    /// Text name.
    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|(k, _)| *k == self).map(|(_, n)| *n).unwrap_or("add")
    }
    /// Parse a text name.
    pub fn parse(s: &str) -> Option<ReduxKind> {
        Self::ALL.iter().find(|(_, n)| *n == s).map(|(k, _)| *k)
    }
    /// Combine two 32-bit values.
    pub fn apply(self, a: u32, b: u32) -> u32 {
        match self {
            ReduxKind::Add => a.wrapping_add(b),
            ReduxKind::UMin => a.min(b),
            ReduxKind::UMax => a.max(b),
            ReduxKind::SMin => (a as i32).min(b as i32) as u32,
            ReduxKind::SMax => (a as i32).max(b as i32) as u32,
            ReduxKind::And => a & b,
            ReduxKind::Or => a | b,
            ReduxKind::Xor => a ^ b,
        }
    }
}

/// What a barrier does when it completes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BarKind {
    /// Wait until the barrier completes.
    Sync,
    /// Count this thread as arrived and go on without waiting.
    Arrive,
    /// Wait, then give every waiting thread the population count (i32) of the b1 operand over
    /// the threads that took part.
    RedPopc,
    /// Wait, then give b1: the operand was true on every thread that took part.
    RedAnd,
    /// Wait, then give b1: the operand was true on some thread that took part.
    RedOr,
}

impl BarKind {
    /// Whether the barrier reduces a b1 operand.
    pub fn is_red(self) -> bool {
        matches!(self, BarKind::RedPopc | BarKind::RedAnd | BarKind::RedOr)
    }
    fn name(self) -> &'static str {
        match self {
            BarKind::Sync => "sync",
            BarKind::Arrive => "arrive",
            BarKind::RedPopc => "red.popc",
            BarKind::RedAnd => "red.and",
            BarKind::RedOr => "red.or",
        }
    }
}

/// A reconvergence or warp-synchronous operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WarpOp {
    /// Open a convergence region: the mask (type `mask`) of the lanes running together here.
    Open,
    /// Rejoin the lanes of the region named by the mask operand (see the module documentation).
    /// No result.
    Join,
    /// Take the running lanes out of the region named by the mask operand. No result.
    Leave,
    /// Wait for every unfinished lane of the mask operand. No result.
    Sync,
    /// b1: the b1 operand is equal on every lane of the group.
    VoteEq,
    /// Mask of the lanes of the group whose operand 0 equals this lane's.
    MatchAny,
    /// The group's mask when operand 0 is equal on every lane of the group, else 0.
    MatchAll,
    /// Reduction of i32 operand 0 over the lanes of the group (the same on each).
    Redux(ReduxKind),
    /// Workgroup barrier: operands barrier id (i32), thread count (i32, 0 for the whole
    /// workgroup), and for the reducing kinds the b1 value.
    Bar(BarKind),
}

impl WarpOp {
    /// Number of operands (without the trailing member mask the group ops may take).
    pub const fn arity(self) -> usize {
        match self {
            WarpOp::Open => 0,
            WarpOp::Join | WarpOp::Leave | WarpOp::Sync | WarpOp::VoteEq | WarpOp::MatchAny | WarpOp::MatchAll | WarpOp::Redux(_) => 1,
            WarpOp::Bar(k) => {
                if matches!(k, BarKind::RedPopc | BarKind::RedAnd | BarKind::RedOr) {
                    3
                } else {
                    2
                }
            }
        }
    }
    /// Whether the op may take a trailing member mask to join on before it runs.
    pub const fn takes_member_mask(self) -> bool {
        matches!(self, WarpOp::VoteEq | WarpOp::MatchAny | WarpOp::MatchAll | WarpOp::Redux(_))
    }
    /// Whether the op gives no result.
    pub const fn is_void(self) -> bool {
        matches!(self, WarpOp::Join | WarpOp::Leave | WarpOp::Sync | WarpOp::Bar(BarKind::Sync | BarKind::Arrive))
    }
    /// Whether the result is the same on every lane of the group.
    pub const fn uniform_result(self) -> bool {
        matches!(self, WarpOp::Open | WarpOp::VoteEq | WarpOp::MatchAll | WarpOp::Redux(_))
    }
    /// Text mnemonic.
    pub fn mnemonic(&self) -> String {
        match self {
            WarpOp::Open => "converge.open".into(),
            WarpOp::Join => "converge.join".into(),
            WarpOp::Leave => "converge.leave".into(),
            WarpOp::Sync => "converge.sync".into(),
            WarpOp::VoteEq => "vote.eq".into(),
            WarpOp::MatchAny => "match.any".into(),
            WarpOp::MatchAll => "match.all".into(),
            WarpOp::Redux(k) => format!("redux.{}", k.name()),
            WarpOp::Bar(k) => format!("bar.{}", k.name()),
        }
    }
    /// Parse a mnemonic split at dots.
    pub fn parse(base: &str, mods: &[&str]) -> Option<WarpOp> {
        Some(match (base, mods) {
            ("converge", ["open"]) => WarpOp::Open,
            ("converge", ["join"]) => WarpOp::Join,
            ("converge", ["leave"]) => WarpOp::Leave,
            ("converge", ["sync"]) => WarpOp::Sync,
            ("vote", ["eq"]) => WarpOp::VoteEq,
            ("match", ["any"]) => WarpOp::MatchAny,
            ("match", ["all"]) => WarpOp::MatchAll,
            ("redux", [k]) => WarpOp::Redux(ReduxKind::parse(k)?),
            ("bar", ["sync"]) => WarpOp::Bar(BarKind::Sync),
            ("bar", ["arrive"]) => WarpOp::Bar(BarKind::Arrive),
            ("bar", ["red", "popc"]) => WarpOp::Bar(BarKind::RedPopc),
            ("bar", ["red", "and"]) => WarpOp::Bar(BarKind::RedAnd),
            ("bar", ["red", "or"]) => WarpOp::Bar(BarKind::RedOr),
            _ => return None,
        })
    }
}
