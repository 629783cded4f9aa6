//! AMD gfx1013 (RDNA1): tables generated from isa-specs/amd/gfx10.xml, and the families' printers.

#[allow(missing_docs, clippy::all)]
mod tables {
    include!(concat!(env!("OUT_DIR"), "/gfx10.rs"));
}
pub use tables::*;

mod canon;
mod ds;
mod exp;
mod fast;
mod flat;
pub(crate) mod mimg;
mod mubuf;
mod print;
pub use print::print_reference;
mod smem;
mod sop;
mod vop;
