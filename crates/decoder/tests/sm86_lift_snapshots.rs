//! Snapshots (insta) of the IR the sm_86 lifter writes for whole capture kernels
//! (fixtures/hw/capture.sm86.cubin), before any pass runs: register reads and writes, guards
//! as selects, the guarded EXIT as a branch to the exit block, memory ops under a guard's
//! ballot. Each snapshot was read before it was accepted; a change to the lifter that changes
//! them shows here as a diff. The kernels' SASS is in fixtures/hw/capture.sm86.txt.

use isabridge_decoder::lift::sm86::{lift, Options};
use isabridge_decoder::Isa;

fn lifted(op: &str) -> String {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/hw/capture.sm86.cubin");
    let cubin = std::fs::read(path).unwrap();
    let (_, sections) = isabridge_decoder::elf::parse(&cubin).unwrap();
    let suffix = format!("k_{op}PK3RowPji");
    let sec = sections.iter().find(|s| s.name.ends_with(&suffix)).expect("kernel present");
    let f = lift(Isa::Sm86, sec.data, 0, &Options::default()).expect("lifts");
    isabridge_ir::text::print(&f)
}

/// FADD.RM between two loaded words, the bounds check's `@P0 EXIT`, LDG / STG through
/// IMAD.WIDE addresses from constant bank 0.
#[test]
fn f32_add_kernel() {
    insta::assert_snapshot!(lifted("add_rm"));
}

/// min.f64 as ptxas writes it: DSETP.MIN.AND, FSEL / SEL by its first predicate and a guarded
/// LOP3 quieting the NaN by its second.
#[test]
fn f64_min_kernel() {
    insta::assert_snapshot!(lifted("dmin"));
}

/// ex2.approx.f32 without .ftz: a guarded pre-scale, the flushing MUFU.EX2, a guarded square.
#[test]
fn ex2_kernel() {
    insta::assert_snapshot!(lifted("ex2_approx"));
}

/// HFMA2 on packed f16 pairs.
#[test]
fn f16x2_fma_kernel() {
    insta::assert_snapshot!(lifted("fma_rn_f16x2"));
}
