//! Snapshots (insta) of the IR the sm_50 lifter writes for whole capture kernels
//! (fixtures/hw/capture.sm50.cubin), before any pass runs: XMAD chains, the carry flag between
//! `IADD.CC` and `IADD.X`, guards as selects, the guarded EXIT as a branch to the exit block,
//! SSY / SYNC as a convergence region, CAL / RET on the per-lane return stack. Each snapshot
//! was read before it was accepted; a change to the lifter that changes them shows here as a
//! diff. The kernels' SASS is in fixtures/hw/capture.sm50.txt.

use isabridge_decoder::lift::sm50::{lift, Options};
use isabridge_decoder::Isa;

fn lifted(op: &str) -> String {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/hw/capture.sm50.cubin");
    let cubin = std::fs::read(path).unwrap();
    let (_, sections) = isabridge_decoder::elf::parse(&cubin).unwrap();
    let suffix = format!("k_{op}PK3RowPji");
    let sec = sections.iter().find(|s| s.name.ends_with(&suffix)).expect("kernel present");
    let f = lift(Isa::Sm50, sec.data, 0, &Options::default()).expect("lifts");
    isabridge_ir::text::print(&f)
}

/// FADD.RM between two loaded words; the thread index from XMAD.MRG / XMAD.PSL.CBCC; global
/// addresses from `IADD.CC` / `IADD.X` pairs.
#[test]
fn f32_add_kernel() {
    insta::assert_snapshot!(lifted("add_rm"));
}

/// mul.lo.s32 as four XMADs.
#[test]
fn mul_lo_kernel() {
    insta::assert_snapshot!(lifted("mul_lo_s32"));
}

/// sqrt.rn.f32: an SSY region around a guarded branch and a CAL into the slow path, whose
/// guarded RETs pop the return stack; SYNC joins the region.
#[test]
fn sqrt_rn_kernel() {
    insta::assert_snapshot!(lifted("sqrt_rn"));
}
