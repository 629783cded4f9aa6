//! NVIDIA Ampere sm_86: tables generated from isa-specs/nvidia/sm86.xml, and the family rules
//! that the print templates alone cannot express.

#[allow(missing_docs, clippy::all)]
mod tables {
    include!(concat!(env!("OUT_DIR"), "/sm86.rs"));
}
pub use tables::*;

use crate::nvidia::{Ctx, NvPlugin, Text};
use crate::Isa;

/// The sm86 plugin: 128-bit instructions, scheduling bits 105-125; reuse bits 122-125 flag the
/// registers named by each form's probed `REUSE_<field>` fields.
pub static SM86: NvPlugin =
    NvPlugin { isa: Isa::Sm86, t: &TABLES, tree: &TREE, reuse_slots: &[24, 32, 64, 0], fixup, size: 16 };

mod alu;
mod branch;
mod tex;

fn fixup(ctx: &Ctx, t: &mut Text) {
    if branch::fix(ctx, t) || tex::fix(ctx, t) {
        return;
    }
    alu::fix(ctx, t);
}
