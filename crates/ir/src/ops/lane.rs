//! Cross-lane and wave-level operations: lane and wave ids, active mask, ballot, votes,
//! broadcast (read lane / read first lane), NVIDIA shuffles with clamp and segment mask, AMD
//! DPP-style permutes.

/// Shuffle mode (NVIDIA `shfl.sync`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShflMode {
    /// Read lane `minLane | (b & ~segmask)`.
    Idx,
    /// Read lane `lane - b`.
    Up,
    /// Read lane `lane + b`.
    Down,
    /// Read lane `lane ^ b`.
    Bfly,
}

/// AMD DPP control (within rows of 16 lanes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dpp {
    /// Permute within each quad by four 2-bit selectors.
    QuadPerm(u8),
    /// Row shift left by 1..15 (lane reads lane + n).
    RowShl(u8),
    /// Row shift right by 1..15 (lane reads lane - n).
    RowShr(u8),
    /// Row rotate right by 1..15.
    RowRor(u8),
    /// Reverse within each row.
    RowMirror,
    /// Reverse within each half row.
    RowHalfMirror,
    /// gfx10 row_share: every lane reads lane n of its row.
    RowShare(u8),
    /// gfx10 row_xmask: lane reads lane (id ^ n) of its row.
    RowXmask(u8),
    /// Eight-lane groups: lane `8g + i` reads lane `8g + sel[i]`, three bits per selector.
    Lanes8(u32),
}

impl Dpp {
    /// Source lane for `lane`, or None when the source is outside the row.
    pub fn source(self, lane: u32) -> Option<u32> {
        let row = lane & !15;
        let i = lane & 15;
        Some(match self {
            Dpp::QuadPerm(p) => (lane & !3) | ((p as u32 >> (2 * (lane & 3))) & 3),
            Dpp::RowShl(n) => {
                let j = i + n as u32;
                if j > 15 {
                    return None;
                }
                row | j
            }
            Dpp::RowShr(n) => {
                let j = i.checked_sub(n as u32)?;
                row | j
            }
            Dpp::RowRor(n) => row | ((i + 16 - (n as u32 & 15)) & 15),
            Dpp::RowMirror => row | (15 - i),
            Dpp::RowHalfMirror => (lane & !7) | (7 - (lane & 7)),
            Dpp::RowShare(n) => row | (n as u32 & 15),
            Dpp::RowXmask(n) => row | ((i ^ n as u32) & 15),
            Dpp::Lanes8(s) => (lane & !7) | (s >> (3 * (lane & 7)) & 7),
        })
    }
    fn name(self) -> String {
        match self {
            Dpp::QuadPerm(p) => format!("quad_perm{p}"),
            Dpp::RowShl(n) => format!("row_shl{n}"),
            Dpp::RowShr(n) => format!("row_shr{n}"),
            Dpp::RowRor(n) => format!("row_ror{n}"),
            Dpp::RowMirror => "row_mirror".into(),
            Dpp::RowHalfMirror => "row_half_mirror".into(),
            Dpp::RowShare(n) => format!("row_share{n}"),
            Dpp::RowXmask(n) => format!("row_xmask{n}"),
            Dpp::Lanes8(s) => format!("lanes8_{s:06x}"),
        }
    }
    fn parse(s: &str) -> Option<Dpp> {
        let num = |p: &str| -> Option<u8> { s.strip_prefix(p)?.parse().ok() };
        let in_row = |n: u8| (1..=15).contains(&n).then_some(n);
        Some(match s {
            "row_mirror" => Dpp::RowMirror,
            "row_half_mirror" => Dpp::RowHalfMirror,
            _ if s.starts_with("quad_perm") => Dpp::QuadPerm(num("quad_perm")?),
            _ if s.starts_with("row_shl") => Dpp::RowShl(in_row(num("row_shl")?)?),
            _ if s.starts_with("row_shr") => Dpp::RowShr(in_row(num("row_shr")?)?),
            _ if s.starts_with("row_ror") => Dpp::RowRor(in_row(num("row_ror")?)?),
            _ if s.starts_with("row_share") => Dpp::RowShare(num("row_share")? & 15),
            _ if s.starts_with("row_xmask") => Dpp::RowXmask(num("row_xmask")? & 15),
            _ if s.starts_with("lanes8_") => Dpp::Lanes8(u32::from_str_radix(&s[7..], 16).ok()? & 0xff_ffff),
            _ => return None,
        })
    }
}

/// A cross-lane or wave-level operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LaneOp {
    /// This lane's index in its wave (i32).
    LaneId,
    /// This wave's index in the workgroup (uniform i32).
    WaveId,
    /// The wave size, 32 or 64 (uniform i32).
    WaveSize,
    /// The mask of lanes executing this instruction (uniform mask).
    ActiveMask,
    /// Mask of active lanes whose b1 operand is true (uniform mask).
    Ballot,
    /// True when the b1 operand is true on every active lane (uniform).
    All,
    /// True when the b1 operand is true on some active lane (uniform).
    Any,
    /// Operand 0 of lane operand 1 (uniform; lane index taken modulo the wave size).
    ReadLane,
    /// Operand 0 of the lowest active lane (uniform).
    ReadFirstLane,
    /// NVIDIA shuffle of operand 0 with lane operand 1 and clamp/segment control operand 2
    /// (`c[4:0]` clamp, `c[12:8]` segment mask). With `pred`, the result is the b1 "source lane in
    /// range" flag instead of the value. Out-of-range lanes read their own value.
    Shuffle(ShflMode, bool),
    /// AMD DPP permute of operand 0; a lane whose source is outside the row or inactive gets
    /// operand 1 (`old`), or 0 with `bound_ctrl`.
    Dpp(Dpp, bool),
    /// b1: whether the DPP pattern's source lane for this lane exists and is active (in the
    /// mask operand, if given).
    DppValid(Dpp),
    /// Sixteen-lane permute of operand 0: lane `16r + i` reads lane `16r' + sel(i)` where sel(i)
    /// is nibble i of the 64-bit selector {operand 3 : operand 2} and r' = r, or r ^ 1 when
    /// `cross`. An inactive source gives operand 1 (`old`), or 0 with `bound0`.
    Permlane16 {
        /// Read the other row of the pair.
        cross: bool,
        /// Inactive sources give 0 instead of `old`.
        bound0: bool,
    },
    /// Pull: lane reads operand 0 of lane ((operand 1 / 4) mod 32) within its half of 32
    /// lanes when `halves`, or modulo the wave size; an inactive source gives 0.
    Bpermute {
        /// A wave of 64 permutes within each half of 32 lanes (machines whose permute crossbar
        /// spans 32 lanes, such as AMD gfx10 in wave64).
        halves: bool,
    },
    /// Push: each active lane writes its operand 0 into lane ((operand 1 / 4) mod 32) of its
    /// half (with `halves`) or modulo the wave size; when several lanes write one lane the
    /// highest wins; a lane nobody writes reads 0.
    Permute {
        /// A wave of 64 permutes within each half of 32 lanes.
        halves: bool,
    },
}

impl LaneOp {
    /// Whether the op depends on which lanes take part (wave-model functions must then name the
    /// mask); lane and wave ids and `readlane` do not.
    pub const fn needs_mask(self) -> bool {
        !matches!(self, LaneOp::LaneId | LaneOp::WaveId | LaneOp::WaveSize | LaneOp::ReadLane | LaneOp::ActiveMask)
    }
    /// Number of operands.
    pub const fn arity(self) -> usize {
        match self {
            LaneOp::LaneId | LaneOp::WaveId | LaneOp::WaveSize | LaneOp::ActiveMask => 0,
            LaneOp::Ballot | LaneOp::All | LaneOp::Any | LaneOp::ReadFirstLane => 1,
            LaneOp::DppValid(_) => 0,
            LaneOp::ReadLane | LaneOp::Dpp(..) | LaneOp::Bpermute { .. } | LaneOp::Permute { .. } => 2,
            LaneOp::Shuffle(..) => 3,
            LaneOp::Permlane16 { .. } => 4,
        }
    }
    /// Text mnemonic.
    pub fn mnemonic(&self) -> String {
        match self {
            LaneOp::LaneId => "laneid".into(),
            LaneOp::WaveId => "waveid".into(),
            LaneOp::WaveSize => "wavesize".into(),
            LaneOp::ActiveMask => "activemask".into(),
            LaneOp::Ballot => "ballot".into(),
            LaneOp::All => "vote.all".into(),
            LaneOp::Any => "vote.any".into(),
            LaneOp::ReadLane => "readlane".into(),
            LaneOp::ReadFirstLane => "readfirstlane".into(),
            LaneOp::Shuffle(m, p) => {
                let m = match m {
                    ShflMode::Idx => "idx",
                    ShflMode::Up => "up",
                    ShflMode::Down => "down",
                    ShflMode::Bfly => "bfly",
                };
                format!("shfl.{m}{}", if *p { ".pred" } else { "" })
            }
            LaneOp::Dpp(d, b) => format!("dpp.{}{}", d.name(), if *b { ".bound0" } else { "" }),
            LaneOp::DppValid(d) => format!("dppvalid.{}", d.name()),
            LaneOp::Permlane16 { cross, bound0 } => {
                format!("permlane16{}{}", if *cross { ".x" } else { "" }, if *bound0 { ".bound0" } else { "" })
            }
            LaneOp::Bpermute { halves } => format!("bpermute{}", if *halves { ".halves" } else { "" }),
            LaneOp::Permute { halves } => format!("permute{}", if *halves { ".halves" } else { "" }),
        }
    }
    /// Parse a mnemonic split at dots.
    pub fn parse(base: &str, mods: &[&str]) -> Option<LaneOp> {
        Some(match (base, mods) {
            ("laneid", []) => LaneOp::LaneId,
            ("waveid", []) => LaneOp::WaveId,
            ("wavesize", []) => LaneOp::WaveSize,
            ("activemask", []) => LaneOp::ActiveMask,
            ("ballot", []) => LaneOp::Ballot,
            ("vote", ["all"]) => LaneOp::All,
            ("vote", ["any"]) => LaneOp::Any,
            ("readlane", []) => LaneOp::ReadLane,
            ("readfirstlane", []) => LaneOp::ReadFirstLane,
            ("shfl", [m, rest @ ..]) => {
                let mode = match *m {
                    "idx" => ShflMode::Idx,
                    "up" => ShflMode::Up,
                    "down" => ShflMode::Down,
                    "bfly" => ShflMode::Bfly,
                    _ => return None,
                };
                match rest {
                    [] => LaneOp::Shuffle(mode, false),
                    ["pred"] => LaneOp::Shuffle(mode, true),
                    _ => return None,
                }
            }
            ("dpp", [d]) => LaneOp::Dpp(Dpp::parse(d)?, false),
            ("dpp", [d, "bound0"]) => LaneOp::Dpp(Dpp::parse(d)?, true),
            ("dppvalid", [d]) => LaneOp::DppValid(Dpp::parse(d)?),
            ("permlane16", []) => LaneOp::Permlane16 { cross: false, bound0: false },
            ("permlane16", ["x"]) => LaneOp::Permlane16 { cross: true, bound0: false },
            ("permlane16", ["bound0"]) => LaneOp::Permlane16 { cross: false, bound0: true },
            ("permlane16", ["x", "bound0"]) => LaneOp::Permlane16 { cross: true, bound0: true },
            ("bpermute", []) => LaneOp::Bpermute { halves: false },
            ("bpermute", ["halves"]) => LaneOp::Bpermute { halves: true },
            ("permute", []) => LaneOp::Permute { halves: false },
            ("permute", ["halves"]) => LaneOp::Permute { halves: true },
            _ => return None,
        })
    }
}

/// NVIDIA shuffle source lane for `lane` (wave of 32): returns (source lane, in range).
pub fn shfl_source(mode: ShflMode, lane: u32, b: u32, c: u32) -> (u32, bool) {
    let clamp = c & 0x1f;
    let seg = (c >> 8) & 0x1f;
    let max_lane = (lane & seg) | (clamp & !seg);
    let min_lane = lane & seg;
    let (j, ok) = match mode {
        ShflMode::Up => {
            let j = lane as i64 - (b & 0x1f) as i64;
            (j, j >= max_lane as i64)
        }
        ShflMode::Down => {
            let j = lane as i64 + (b & 0x1f) as i64;
            (j, j <= max_lane as i64)
        }
        ShflMode::Bfly => {
            let j = (lane ^ (b & 0x1f)) as i64;
            (j, j <= max_lane as i64)
        }
        ShflMode::Idx => {
            let j = (min_lane | (b & 0x1f & !seg)) as i64;
            (j, j <= max_lane as i64)
        }
    };
    if ok {
        (j as u32, true)
    } else {
        (lane, false)
    }
}
