//! The operations of the SSA IR, one file per family.

pub mod buffer;
pub mod call;
pub mod control;
pub mod conv;
pub mod fdiv;
pub mod float;
pub mod format;
pub mod image;
pub mod int;
pub mod lane;
pub mod mem;
pub mod ray;
pub mod sample;
pub mod stage;
pub mod warp;

use crate::ir::{Block, Reg};
use crate::soft::approx::ApproxFn;
use buffer::BufferOp;
use call::Callee;
use control::SyncOp;
use conv::ConvOp;
use fdiv::FDivOp;
use float::{FCmp, FloatOp};
use int::IntOp;
use lane::LaneOp;
use image::ImageOp;
use mem::MemOp;
use ray::RayOp;
use stage::StageOp;
use warp::WarpOp;

/// One IR operation. Operands are the instruction's `args`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// Kernel parameter / per-lane input number n.
    Param(u32),
    /// Constant bits.
    Const(u64),
    /// An undefined value (reads as 0 in the interpreter).
    Undef,
    /// Read a machine register (before SSA construction).
    ReadReg(Reg),
    /// Write operand 0 to a machine register (before SSA construction).
    WriteReg(Reg),
    /// SSA phi: operand i flows in from block i.
    Phi(Vec<Block>),
    /// Float arithmetic.
    Float(FloatOp),
    /// Float comparison giving b1 (per element; `ftz` flushes inputs).
    FCmp(FCmp, bool),
    /// Integer / bitwise operation.
    Int(IntOp),
    /// Conversion.
    Conv(ConvOp),
    /// Approximate transcendental (`ftz` flushes input and output).
    Approx(ApproxFn, bool),
    /// Operand 0 (b1) ? operand 1 : operand 2.
    Select,
    /// Merge under a lane mask: bit (lane id) of operand 0 (a uniform `mask`) ? operand 1 :
    /// operand 2. How a wave-model function writes a per-lane result only where lanes take part.
    LaneSelect,
    /// Reinterpret the bits as the result type (same width).
    Bitcast,
    /// Build a vector from its elements (low first).
    Build,
    /// Extract element n of a vector.
    Extract(u8),
    /// Replace element n of vector operand 0 with operand 1.
    Insert(u8),
    /// Memory access.
    Mem(MemOp),
    /// Cross-lane operation.
    Lane(LaneOp),
    /// Synchronization.
    Sync(SyncOp),
    /// Buffer access through a descriptor.
    Buffer(BufferOp),
    /// Division helper (scale, post-scaled fma, special cases).
    FDiv(FDivOp),
    /// Ray / BVH-node intersection through a node-memory descriptor.
    Ray(RayOp),
    /// Image access through image (and sampler) descriptors.
    Image(ImageOp),
    /// Graphics-stage output: an export or a geometry-stage message.
    Stage(StageOp),
    /// Reconvergence and warp-synchronous operation of per-lane code.
    Warp(WarpOp),
    /// Call another function of the module or an external symbol ([`call`]).
    Call(Callee),
    /// A memory result that arrives late ([`control::Pending`]): a copy of operand 0.
    Pending(control::Pending),
}

impl Op {
    /// Fixed operand count, or None for variadic ops (phi, build).
    pub fn arity(&self) -> Option<usize> {
        Some(match self {
            Op::Param(_) | Op::Const(_) | Op::Undef | Op::ReadReg(_) | Op::Sync(_) | Op::Call(_) => 0,
            Op::WriteReg(_) | Op::Approx(..) | Op::Bitcast | Op::Extract(_) | Op::Conv(_) | Op::Pending(_) => 1,
            Op::Phi(_) | Op::Build => return None,
            Op::Float(f) => f.kind.arity(),
            Op::FDiv(d) => d.kind.arity(),
            Op::FCmp(..) | Op::Insert(_) => 2,
            Op::Int(i) => i.arity(),
            Op::Select | Op::LaneSelect => 3,
            Op::Buffer(b) => b.arity(),
            Op::Ray(r) => r.arity(),
            Op::Image(i) => i.arity(),
            Op::Stage(s) => s.arity(),
            Op::Mem(m) => m.arity(),
            Op::Lane(l) => l.arity(),
            Op::Warp(w) => w.arity(),
        })
    }
    /// Whether the op has no effect besides its result (so it may be removed or folded).
    pub fn is_pure(&self) -> bool {
        !matches!(
            self,
            Op::WriteReg(_)
                | Op::ReadReg(_)
                | Op::Mem(_)
                | Op::Sync(_)
                | Op::Lane(_)
                | Op::Param(_)
                | Op::Buffer(_)
                | Op::Ray(_)
                | Op::Image(_)
                | Op::Stage(_)
                | Op::LaneSelect
                | Op::Warp(_)
                | Op::Call(_)
                | Op::Pending(_)
        )
    }
    /// Whether the op changes state besides its result or may fault (register writes, memory
    /// and buffer access, barriers): dead-code elimination keeps it even when its result is
    /// unused. Every new op with an effect belongs here.
    pub fn has_effect(&self) -> bool {
        matches!(self, Op::WriteReg(_) | Op::Mem(_) | Op::Sync(_) | Op::Buffer(_) | Op::Image(_) | Op::Ray(_) | Op::Stage(_) | Op::Call(_))
            || matches!(self, Op::Warp(w) if *w != WarpOp::Open)
    }
    /// Whether the result is the same on every lane, given whether every operand is.
    pub fn uniform_result(&self, args_uniform: bool) -> bool {
        match self {
            Op::Const(_) | Op::Undef => true,
            Op::Param(_) | Op::ReadReg(_) | Op::Phi(_) | Op::LaneSelect | Op::Buffer(_) | Op::Ray(_) | Op::Image(_) | Op::Stage(_) => false,
            Op::Lane(LaneOp::ReadLane) => true,
            Op::Lane(l) => matches!(
                l,
                LaneOp::Ballot
                    | LaneOp::All
                    | LaneOp::Any
                    | LaneOp::ReadFirstLane
                    | LaneOp::WaveSize
                    | LaneOp::WaveId
                    | LaneOp::ActiveMask
            ),
            Op::Warp(w) => w.uniform_result(),
            Op::Mem(MemOp::Load(s)) => args_uniform && *s != mem::Space::Scratch,
            Op::Mem(_) => false,
            _ => args_uniform,
        }
    }
    /// Whether the op may take a trailing `mask` operand naming the lanes it runs under (one
    /// more than [`Op::arity`]); wave-model functions must give it.
    pub fn takes_mask(&self) -> bool {
        matches!(self, Op::Mem(_) | Op::Buffer(_) | Op::Lane(_) | Op::Ray(_) | Op::Image(_))
            || matches!(self, Op::Stage(s) if s.takes_mask())
            || matches!(self, Op::Warp(w) if w.takes_member_mask())
    }
    /// Whether the op depends on other lanes or on the active mask.
    pub fn is_cross_lane(&self) -> bool {
        matches!(self, Op::Lane(_) | Op::Warp(_) | Op::Call(_)) || matches!(self, Op::Image(i) if i.reads_quad())
    }
    /// Whether the op produces no value.
    pub fn is_void(&self) -> bool {
        matches!(self, Op::WriteReg(_) | Op::Sync(_) | Op::Mem(MemOp::Store(_)) | Op::Call(_))
            || matches!(self, Op::Buffer(b) if b.is_store())
            || matches!(self, Op::Image(i) if i.is_store())
            || matches!(self, Op::Stage(_))
            || matches!(self, Op::Warp(w) if w.is_void())
    }
    /// Text mnemonic (phi, param, const and register ops print their own operands).
    pub fn mnemonic(&self) -> String {
        match self {
            Op::Param(n) => format!("param {n}"),
            Op::Const(c) => format!("const 0x{c:x}"),
            Op::Undef => "undef".into(),
            Op::ReadReg(r) => format!("readreg ${}", r.0),
            Op::WriteReg(r) => format!("writereg ${}", r.0),
            Op::Phi(_) => "phi".into(),
            Op::Float(f) => f.mnemonic(),
            Op::FDiv(d) => d.mnemonic(),
            Op::FCmp(c, ftz) => format!("fcmp.{}{}", c.name(), if *ftz { ".ftz" } else { "" }),
            Op::Int(i) => i.mnemonic(),
            Op::Conv(c) => c.mnemonic(),
            Op::Approx(f, ftz) => format!("approx.{}{}", f.name(), if *ftz { ".ftz" } else { "" }),
            Op::Select => "select".into(),
            Op::LaneSelect => "lanesel".into(),
            Op::Buffer(b) => b.mnemonic(),
            Op::Ray(r) => r.mnemonic(),
            Op::Image(i) => i.mnemonic(),
            Op::Stage(s) => s.mnemonic(),
            Op::Bitcast => "bitcast".into(),
            Op::Build => "build".into(),
            Op::Extract(i) => format!("extract.{i}"),
            Op::Insert(i) => format!("insert.{i}"),
            Op::Mem(m) => m.mnemonic(),
            Op::Lane(l) => l.mnemonic(),
            Op::Sync(s) => s.mnemonic(),
            Op::Warp(w) => w.mnemonic(),
            Op::Call(c) => format!("call {}", c.text()),
            Op::Pending(p) => p.mnemonic(),
        }
    }
    /// Parse a dotted mnemonic of an op whose operands are all values.
    pub fn parse_simple(m: &str) -> Option<Op> {
        let mut it = m.split('.');
        let base = it.next()?;
        let mods: Vec<&str> = it.collect();
        let mods = &mods[..];
        match (base, mods) {
            ("undef", []) => return Some(Op::Undef),
            ("select", []) => return Some(Op::Select),
            ("lanesel", []) => return Some(Op::LaneSelect),
            ("bitcast", []) => return Some(Op::Bitcast),
            ("build", []) => return Some(Op::Build),
            ("extract", [i]) => return Some(Op::Extract(i.parse().ok()?)),
            ("insert", [i]) => return Some(Op::Insert(i.parse().ok()?)),
            ("fcmp", [c]) => return Some(Op::FCmp(FCmp::parse(c)?, false)),
            ("fcmp", [c, "ftz"]) => return Some(Op::FCmp(FCmp::parse(c)?, true)),
            ("approx", [f, rest @ ..]) => {
                let func = *ApproxFn::ALL.iter().find(|x| x.name() == *f)?;
                return match rest {
                    [] => Some(Op::Approx(func, false)),
                    ["ftz"] => Some(Op::Approx(func, true)),
                    _ => None,
                };
            }
            _ => {}
        }
        if let Some(d) = FDivOp::parse(base, mods) {
            return Some(Op::FDiv(d));
        }
        if let Some(f) = FloatOp::parse(base, mods) {
            return Some(Op::Float(f));
        }
        if let Some(i) = IntOp::parse(base, mods) {
            return Some(Op::Int(i));
        }
        if let Some(c) = ConvOp::parse(base, mods) {
            return Some(Op::Conv(c));
        }
        if let Some(x) = MemOp::parse(base, mods) {
            return Some(Op::Mem(x));
        }
        if let Some(x) = BufferOp::parse(base, mods) {
            return Some(Op::Buffer(x));
        }
        if let Some(x) = StageOp::parse(base, mods) {
            return Some(Op::Stage(x));
        }
        if let Some(x) = ImageOp::parse(base, mods) {
            return Some(Op::Image(x));
        }
        if let Some(x) = RayOp::parse(base, mods) {
            return Some(Op::Ray(x));
        }
        if let Some(x) = WarpOp::parse(base, mods) {
            return Some(Op::Warp(x));
        }
        if let Some(x) = LaneOp::parse(base, mods) {
            return Some(Op::Lane(x));
        }
        if let Some(x) = control::Pending::parse(base, mods) {
            return Some(Op::Pending(x));
        }
        SyncOp::parse(base, mods).map(Op::Sync)
    }
}
