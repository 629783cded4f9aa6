//! AMD gfx1201 (RDNA4): tables generated from isa-specs/amd/gfx12.xml.

#[allow(missing_docs, clippy::all)]
mod tables {
    include!(concat!(env!("OUT_DIR"), "/gfx12.rs"));
}
pub use tables::*;

mod print;
