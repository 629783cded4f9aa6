//! AMD gfx1013 (RDNA1): tables generated from isa-specs/amd/gfx10.xml.

#[allow(missing_docs, clippy::all)]
mod tables {
    include!(concat!(env!("OUT_DIR"), "/gfx10.rs"));
}
pub use tables::*;

mod print;
