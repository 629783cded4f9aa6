//! The structurizer on hand-made graphs (selections, loops with break and continue, several
//! exits, early returns, multiway chains, irreducible cycles) and on random graphs: every one
//! structures, passes the SPIR-V structure checker, and runs the same node and edge sequence
//! as the input under the same branch decisions.

mod common;

use common::structure_and_compare;
use isabridge_targets::structurize::{structurize, Cfg, Exit, Stmt, StructurizeError};
use proptest::prelude::*;

use Exit::{Branch as B, Jump as J, Return as R};

fn cfg(exits: &[Exit]) -> Cfg {
    Cfg { entry: 0, exits: exits.to_vec() }
}

fn ok(exits: &[Exit]) -> isabridge_targets::structurize::Structured {
    structure_and_compare(&cfg(exits), 64, 400).unwrap_or_else(|e| panic!("{e}"))
}

fn count_loops(s: &[Stmt]) -> usize {
    s.iter()
        .map(|x| match x {
            Stmt::Loop(b) => 1 + count_loops(b),
            Stmt::If(_, a, b) => count_loops(a) + count_loops(b),
            _ => 0,
        })
        .sum()
}

#[test]
fn if_else_is_one_selection_without_loops() {
    let s = ok(&[B(1, 2), J(3), J(3), R]);
    assert_eq!(count_loops(&s.body), 0, "{s:#?}");
    assert_eq!(s.dispatchers, 0);
}

#[test]
fn nested_ifs_need_no_loops() {
    // 0: if { 1: if { 2 } else { 3 } 4 } else { 5 } 6
    let s = ok(&[B(1, 5), B(2, 3), J(4), J(4), J(6), J(6), R]);
    assert_eq!(count_loops(&s.body), 0, "{s:#?}");
    // One-armed: 0: if { 1 } 2
    let s = ok(&[B(1, 2), J(2), R]);
    assert_eq!(count_loops(&s.body), 0, "{s:#?}");
}

#[test]
fn loops_with_break_and_continue() {
    // while (c0) { 2: if (c2) continue; 3: if (c3) break; 4 } 5
    ok(&[J(1), B(2, 5), B(1, 3), B(5, 4), J(1), R]);
    // do { 1 } while (c1)
    ok(&[J(1), B(1, 2), R]);
    // Self loop on the entry.
    ok(&[B(0, 1), R]);
    // Nested loops, the inner one breaking out of both.
    ok(&[J(1), B(2, 6), B(3, 5), B(6, 4), J(2), J(1), R]);
}

#[test]
fn several_exits_and_early_returns() {
    // A loop leaving to two different blocks that meet later.
    ok(&[J(1), B(2, 3), B(4, 1), B(5, 1), J(6), J(6), R]);
    // Early return inside a selection and inside a loop.
    ok(&[B(1, 2), R, J(3), B(4, 5), B(3, 6), R, R]);
    // A loop with no way out.
    ok(&[J(1), B(2, 3), J(1), J(1)]);
}

#[test]
fn multiway_chains() {
    // if c0 -> 1 elif c6 -> 2 elif c7 -> 3 else 4; all meet at 5.
    ok(&[B(1, 6), J(5), J(5), J(5), J(5), R, B(2, 7), B(3, 4)]);
    // Cases that fall through into the next one.
    ok(&[B(1, 4), J(2), J(3), R, B(2, 5), B(3, 1)]);
    // Equal branch targets.
    ok(&[B(1, 1), R]);
}

#[test]
fn irreducible_cycles_get_a_dispatcher() {
    // Two-entry loop: 0 enters at 1 or 2, which branch to each other.
    let s = ok(&[B(1, 2), B(2, 3), B(1, 3), R]);
    assert_eq!(s.dispatchers, 1);
    // Three entries.
    let s = ok(&[B(1, 5), B(2, 4), B(3, 4), B(1, 4), R, B(2, 3)]);
    assert!(s.dispatchers >= 1);
    // An irreducible cycle inside a loop, and one inside another.
    let s = ok(&[J(1), B(2, 3), B(3, 4), B(2, 4), B(1, 5), R]);
    assert_eq!(s.dispatchers, 1);
    let s = ok(&[B(1, 2), B(2, 3), B(1, 4), B(4, 1), B(3, 5), R]);
    assert!(s.dispatchers >= 1);
    // Entries that are also branch targets of each other's exits.
    ok(&[B(1, 2), B(3, 2), B(3, 1), B(1, 4), R]);
}

#[test]
fn bad_graphs_are_errors() {
    assert_eq!(structurize(&cfg(&[J(5)])), Err(StructurizeError::BadSuccessor { node: 0, succ: 5 }));
    assert_eq!(structurize(&Cfg { entry: 3, exits: vec![R] }), Err(StructurizeError::BadEntry(3)));
}

#[test]
fn long_chains_do_not_exhaust_the_stack() {
    // 3000 diamonds in a row.
    let mut e = Vec::new();
    for i in 0..3000u32 {
        let b = 3 * i;
        e.extend([B(b + 1, b + 2), J(b + 3), J(b + 3)]);
    }
    e.push(R);
    structure_and_compare(&cfg(&e), 4, 20_000).unwrap();
}

fn arb_cfg() -> impl Strategy<Value = Cfg> {
    (1usize..14).prop_flat_map(|n| {
        let exit = prop_oneof![
            1 => Just(Exit::Return),
            3 => (0..n as u32).prop_map(Exit::Jump),
            5 => (0..n as u32, 0..n as u32).prop_map(|(a, b)| Exit::Branch(a, b)),
        ];
        proptest::collection::vec(exit, n).prop_map(|exits| Cfg { entry: 0, exits })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]
    #[test]
    fn random_graphs_structure_and_run_alike(c in arb_cfg()) {
        if let Err(e) = structure_and_compare(&c, 16, 300) {
            prop_assert!(false, "{:?}: {}", c, e);
        }
    }
}
