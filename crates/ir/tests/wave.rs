//! The wave execution model: every lane runs every instruction, results merge under a mask
//! (`lanesel`), cross-lane and memory ops run under the mask they name, branches are uniform.
//! Expected values follow from the definitions in `ir.rs`, `ops/lane.rs` and `ops/buffer.rs`;
//! the hardware truth for AMD code is the RDNA2 vectors (crates/cli/tests/conform_rdna.rs).

use isabridge_ir::interp::{run, Config, Memory};
use isabridge_ir::text::parse;
use isabridge_ir::validate::{validate, ValidateError};

fn outputs(text: &str, mem: Memory) -> (Vec<u64>, Memory) {
    let f = parse(text).expect("parses");
    validate(&f).expect("valid");
    let o = run(&f, &Config::default(), &[], mem).expect("runs");
    (o.outputs.iter().map(|v| v[0]).collect(), o.memory)
}

#[test]
fn lanesel_ballot_and_dpp_under_a_partial_mask() {
    // Lanes 0..15 take part. v = lane + 100 merges into lane; the ballot of lane < 20 sees only
    // lanes 0..15; row_shl:1 reads the next lane, inactive or out-of-row sources give 0
    // (bound0), so lane 15 (source 16, inactive and in the next row) reads 0.
    let text = "func @w {
  wave 32
bb0:
  %0: i32 = laneid
  %1: uni mask = const 0xffff
  %2: uni i32 = const 0x64
  %3: i32 = iadd %0, %2
  %4: i32 = lanesel %1, %3, %0
  %5: uni i32 = const 0x14
  %6: b1 = icmp.ult %0, %5
  %7: uni mask = ballot %6, %1
  %8: uni i32 = const 0x0
  %9: i32 = dpp.row_shl1.bound0 %0, %8, %1
  %10: i32 = lanesel %1, %9, %8
  ret %4, %7, %10
}";
    let f = parse(text).expect("parses");
    validate(&f).expect("valid");
    let o = run(&f, &Config::default(), &[], Memory::default()).expect("runs");
    for (l, out) in o.outputs.iter().enumerate() {
        let l = l as u64;
        assert_eq!(out[0], if l < 16 { l + 100 } else { l }, "lane {l}");
        assert_eq!(out[1], 0xffff, "lane {l}");
        assert_eq!(out[2], if l < 15 { l + 1 } else { 0 }, "lane {l}");
    }
}

#[test]
fn raw_buffer_range_check_per_access() {
    // A raw buffer of 8 bytes at 0x1000 (records = 8, range check 3): lanes 0 and 1 read their
    // word, the others read 0; the store through the same descriptor writes lanes 0 and 1 only.
    let text = "func @b {
  wave 32
bb0:
  %0: i32 = laneid
  %1: uni i32 = const 0x2
  %2: i32 = shl.wrap %0, %1
  %3: uni i32 = const 0x1000
  %4: uni i32 = const 0x0
  %5: uni i32 = const 0x8
  %6: uni i32 = const 0x30000000
  %7: uni mask = const 0xffffffff
  %8: i32 = buf.load.4.offen %3, %4, %5, %6, %4, %2, %4, %7
  %9: uni i32 = const 0x7
  buf.store.4.offen %3, %4, %5, %6, %4, %2, %4, %9, %7
  ret %8
}";
    let mem = Memory { global: vec![(0x1000, vec![1, 0, 0, 0, 2, 0, 0, 0, 9, 9, 9, 9])], ..Memory::default() };
    let (out, mem) = outputs(text, mem);
    assert_eq!(&out[..4], &[1, 2, 0, 0]);
    assert!(out[2..].iter().all(|x| *x == 0));
    assert_eq!(mem.global[0].1, vec![7, 0, 0, 0, 7, 0, 0, 0, 9, 9, 9, 9]);
}

#[test]
fn wave_functions_branch_only_on_uniform_values() {
    let text = "func @d {
  wave 32
bb0:
  %0: i32 = laneid
  %1: uni i32 = const 0x4
  %2: b1 = icmp.ult %0, %1
  cbr %2, bb1, bb1
bb1:
  ret
}";
    let f = parse(text).expect("parses");
    assert!(matches!(validate(&f), Err(ValidateError::DivergentBranch(_))));
    // And a memory op without its mask is rejected in a wave-model function.
    let text = "func @m {
  wave 32
bb0:
  %0: uni i32 = const 0x0
  %1: i32 = load.shared %0
  ret %1
}";
    let f = parse(text).expect("parses");
    assert!(matches!(validate(&f), Err(ValidateError::Type { .. })));
}
