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
mod half;
mod mem;
mod pred;
mod round3;
mod surface;
mod tex;

/// Bits 102-103: nvdisasm appends `?PM1`..`?PM3` for their value to any instruction's text.
pub const PM_BITS: u128 = 3 << 102;

/// Bits of instruction `name` that the rules below read outside the form's fields (the encoder
/// keeps them).
pub fn rule_bits(name: &str) -> u128 {
    PM_BITS | round3::rule_bits(name) | match name {
        "IMAD" => 7 << 81 | 0x1b << 73, // WIDE carry-out predicate, IDP bits
        "IDP" => 0x1b << 73,            // IDP signs, 2A, HI
        "LDS" | "STS" => 3 << 78,     // address scale
        "ATOMS" => 3 << 78 | 3 << 87, // address scale, CAST.SPIN
        "I2F" => 3 << 60,
        "F2FP" => 1 << 76 | 1 << 86,           // output type
        "F2I" | "FRND" => 0xffff_ffff << 32,  // F16 / F64 immediate source
        "I2FP" => 0x3f << 74 | 3 << 84,        // types, rounding                      // source byte / half
        "MUFU" => 3 << 60 | 0xf << 74 | 0xffff_ffff << 32, // source half, operation, immediate
        "R2P" | "UR2UP" => 3 << 76,   // source byte
        "HFMA2" => 3 << 60 | 3 << 74 | 3 << 81 | 3 << 85 | 4 | 1 << 78 | 0xf << 87 | 0xffff_ffff << 32, // swizzles, BF16_V2, MMA, F32, RELU predicate, immediates
        "TEX" | "TLD" | "TLD4" | "TXD" => 7 << 84 | 3 << 79, // eviction, F16 rounding
        "HMNMX2" => 3 << 60 | 3 << 74 | 1 << 85 | 0xffff_ffff << 32, // swizzles, BF16_V2, immediates
        "HADD2" => 3 << 60 | 3 << 74 | 1 << 73 | 1 << 78, // swizzles, |a| beside F32, reuse of a
        "HMUL2" => 3 << 60 | 3 << 74 | 1 << 76 | 1 << 80, // swizzles, FMZ + FTZ
        "HSETP2" => 3 << 60 | 3 << 74, // swizzles
        "ATOM" => 1 << 40 | 0xf << 77, // offset bit 0 of the .U32+UR form, memory semantics
        "SULD" => 1 << 81 | 0xf << 77, // predicate destination bit 0, memory semantics
        "LD" | "LDG" => 0xf << 77 | 0xf << 64, // memory semantics, inverted predicate
        "IMMA" | "HMMA" | "DMMA" | "BMMA" => 0xf << 87, // inverted predicate (also .SP)
        _ if mem::sem_table(name).is_some() => 0xf << 77, // memory semantics
        _ => 0,
    }
}

fn fixup(ctx: &Ctx, t: &mut Text) {
    rules(ctx, t);
    round3::fix(ctx, t);
    pm_tag(ctx, t);
}

/// nvdisasm tags an instruction whose bits 102-103 are non-zero with ` ?PM<value>` after its
/// text (measured on nvdisasm 12.8 with 3 000 fuzz words: the text is otherwise that of the
/// word without the bits). In a listing the tag is padded to a column set by the longest
/// instruction of the listing; alone, and here, it follows one space.
fn pm_tag(ctx: &Ctx, t: &mut Text) {
    let v = ctx.bits(102, 2);
    if v == 0 {
        return;
    }
    let last = match t.ops.last_mut() {
        Some(o) => o,
        None => &mut t.mnem,
    };
    while last.ends_with(' ') {
        last.pop();
    }
    last.push_str(&format!(" ?PM{v}"));
}

fn rules(ctx: &Ctx, t: &mut Text) {
    // nvdisasm prints every sm86 single and half precision NaN immediate as quiet (a double
    // one keeps its kind: `DSETP.NEU.AND P0, PT, |R2|, +SNAN , PT`).
    if !ctx.inst().starts_with('D') {
        for o in t.ops.iter_mut() {
            if crate::nvidia::find_bytes(o, b"SNAN").is_some() {
                *o = o.replace("SNAN", "QNAN");
            }
        }
    }
    pred::control_pt(ctx, t);
    if branch::fix(ctx, t) || tex::fix(ctx, t) {
        return;
    }
    half::fix(ctx, t);
    mem::fix(ctx, t);
    pred::fix(ctx, t);
    alu::fix(ctx, t);
}
