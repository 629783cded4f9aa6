//! Graphics-stage outputs: exports of a stage's results (positions, parameters, colour targets)
//! and the geometry-stage messages (emit a vertex, cut a strip, done). The interpreter records
//! each as a [`StageEvent`] in program order; stage inputs (vertex attributes, interpolation
//! parameters) are ordinary function inputs (`param`).
//!
//! `export` takes the value (any scalar integer or float type up to 32 bits) and optionally the
//! lane mask; each lane under the mask records one event. `export.done` (no value) marks the
//! stage's last export for those lanes; `vm` says the mask is the lanes' valid mask. `message`
//! takes no value and records one event per wave.

/// An export target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// Colour target n (0..=7).
    Mrt(u8),
    /// The depth / stencil / sample-mask target.
    MrtZ,
    /// No target (only the done and valid-mask bits count).
    Null,
    /// Position n (0..=3).
    Pos(u8),
    /// Parameter n (0..=31), read by the next stage's interpolation.
    Param(u8),
}

impl Target {
    /// Text name.
    pub fn name(&self) -> String {
        match self {
            Target::Mrt(n) => format!("mrt{n}"),
            Target::MrtZ => "mrtz".into(),
            Target::Null => "null".into(),
            Target::Pos(n) => format!("pos{n}"),
            Target::Param(n) => format!("param{n}"),
        }
    }
    /// Parse a text name.
    pub fn parse(s: &str) -> Option<Target> {
        let num = |p: &str, max: u8| s.strip_prefix(p).and_then(|n| n.parse::<u8>().ok()).filter(|n| *n <= max);
        Some(match s {
            "mrtz" => Target::MrtZ,
            "null" => Target::Null,
            _ => {
                if let Some(n) = num("mrt", 7) {
                    Target::Mrt(n)
                } else if let Some(n) = num("pos", 3) {
                    Target::Pos(n)
                } else {
                    Target::Param(num("param", 31)?)
                }
            }
        })
    }
}

/// A geometry-stage message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Message {
    /// The vertex written so far is complete, on stream n.
    Emit(u8),
    /// End the current strip on stream n.
    Cut(u8),
    /// The geometry stage is done.
    GsDone,
}

/// A stage-output op.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StageOp {
    /// Export channel `chan` (0..=3) of `target`.
    Export {
        /// Where.
        target: Target,
        /// Which channel.
        chan: u8,
    },
    /// The stage's last export for the lanes under the mask.
    Done {
        /// The mask is the valid mask.
        vm: bool,
    },
    /// A geometry-stage message.
    Message(Message),
}

/// What a run recorded, in program order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StageEvent {
    /// The thread (wave × wave size + lane) for exports and done marks; the wave's first thread
    /// for messages.
    pub thread: u32,
    /// What happened.
    pub op: StageOp,
    /// The exported bits (0 for the others).
    pub value: u64,
}

impl StageOp {
    /// Whether the op runs under a lane mask (exports do, messages are per wave).
    pub const fn takes_mask(self) -> bool {
        !matches!(self, StageOp::Message(_))
    }
    /// Number of operands (without the optional mask).
    pub const fn arity(self) -> usize {
        match self {
            StageOp::Export { .. } => 1,
            _ => 0,
        }
    }
    /// Text mnemonic: `export.pos0.x`, `export.done.vm`, `message.emit.0`.
    pub fn mnemonic(&self) -> String {
        match self {
            StageOp::Export { target, chan } => format!("export.{}.{}", target.name(), ["x", "y", "z", "w"][*chan as usize & 3]),
            StageOp::Done { vm } => format!("export.done{}", if *vm { ".vm" } else { "" }),
            StageOp::Message(Message::Emit(s)) => format!("message.emit.{s}"),
            StageOp::Message(Message::Cut(s)) => format!("message.cut.{s}"),
            StageOp::Message(Message::GsDone) => "message.gsdone".into(),
        }
    }
    /// Parse a mnemonic split at dots.
    pub fn parse(base: &str, mods: &[&str]) -> Option<StageOp> {
        Some(match (base, mods) {
            ("export", ["done"]) => StageOp::Done { vm: false },
            ("export", ["done", "vm"]) => StageOp::Done { vm: true },
            ("export", [t, c]) => StageOp::Export {
                target: Target::parse(t)?,
                chan: ["x", "y", "z", "w"].iter().position(|x| x == c)? as u8,
            },
            ("message", ["emit", s]) => StageOp::Message(Message::Emit(s.parse().ok()?)),
            ("message", ["cut", s]) => StageOp::Message(Message::Cut(s.parse().ok()?)),
            ("message", ["gsdone"]) => StageOp::Message(Message::GsDone),
            _ => return None,
        })
    }
}
