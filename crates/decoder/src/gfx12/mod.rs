//! AMD gfx1201 (RDNA4): tables generated from isa-specs/amd/gfx12.xml, and the families' printers.

#[allow(missing_docs, clippy::all)]
mod tables {
    include!(concat!(env!("OUT_DIR"), "/gfx12.rs"));
}
pub use tables::*;

mod canon;
mod fast;
mod ops;
mod print;
pub use print::print_reference;
mod smem;
mod sop;
mod vbuffer;
mod vds;
mod vexport;
mod vflat;
pub(crate) mod vimage;
mod vop;
