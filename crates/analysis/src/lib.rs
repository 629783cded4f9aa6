//! Machine-level analyses over decoded GPU code, shared by the CLI and the translators:
//! control-flow recovery for AMD gfx10/gfx12, NVIDIA Maxwell and Ampere ([`cfg`](mod@cfg): the
//! one machine CFG type, [`Cfg`]), code objects read into functions ([`load`](mod@load)), and
//! the corpus census ([`census`]).
//!
//! This crate sits on top of both `isabridge-decoder` (which knows the ISAs) and the IR (which
//! knows none), so that the IR crate keeps carrying no ISA tables. What it needs to know about
//! an instruction's control flow it asks the decoder's plugins ([`isabridge_decoder::IsaPlugin`]);
//! the facts a plugin's answer does not carry live in one file per ISA family under `cfg/`.

pub mod amdkernel;
pub mod amdmeta;
pub mod census;
pub mod cfg;
pub mod gfx12map;
pub mod load;
pub mod nv;
pub mod resolve;

pub use cfg::{machine, recover, sweep, Cfg, CfgError, EdgeKind, Flow, Machine};
pub use load::{load, LoadError, Program};
