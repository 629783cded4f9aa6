//! Machine-level analyses over decoded GPU code, shared by the CLI and the translators:
//! control-flow recovery for AMD gfx10/gfx12, NVIDIA Maxwell and Ampere ([`cfg`](mod@cfg)), and the
//! corpus census ([`census`]).
//!
//! This crate sits on top of both `isabridge-decoder` (which knows the ISAs) and the IR (which
//! knows none), so that the IR crate keeps carrying no ISA tables.

pub mod amdmeta;
pub mod census;
pub mod cfg;
pub mod gfx12map;
pub mod load;
pub mod nv;

pub use cfg::{recover, Cfg, CfgError, EdgeKind, Flow};
pub use load::{load, LoadError, Program};
