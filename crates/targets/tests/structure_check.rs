//! The structure checker refuses block graphs that break SPIR-V's structured control-flow
//! rules, and accepts the forms the structurizer produces.

use isabridge_targets::structurize::{check, Action, Cond, Merge, ScfBlock, ScfGraph, ScfTerm};

fn blk(merge: Merge, term: ScfTerm) -> ScfBlock {
    ScfBlock { actions: vec![Action::Code(0)], merge, term }
}

fn graph(blocks: Vec<ScfBlock>) -> ScfGraph {
    ScfGraph { blocks, vars: 0 }
}

const C: Cond = Cond::Block(0);

fn rule(g: &ScfGraph) -> String {
    check(g).expect_err("the checker accepted a broken graph").rule
}

#[test]
fn a_diamond_with_its_merge_passes() {
    let g = graph(vec![
        blk(Merge::Selection(3), ScfTerm::Branch(C, 1, 2)),
        blk(Merge::None, ScfTerm::Jump(3)),
        blk(Merge::None, ScfTerm::Jump(3)),
        blk(Merge::None, ScfTerm::Return(0)),
    ]);
    check(&g).unwrap();
}

#[test]
fn a_conditional_branch_needs_a_merge_declaration() {
    let g = graph(vec![blk(Merge::None, ScfTerm::Branch(C, 1, 2)), blk(Merge::None, ScfTerm::Return(0)), blk(Merge::None, ScfTerm::Return(0))]);
    assert!(rule(&g).contains("without a merge declaration"));
}

#[test]
fn a_branch_into_a_selection_arm_from_outside_fails() {
    // 0 selects 1 or 2 (merge 3); 3 branches back into arm 1 through another selection.
    let g = graph(vec![
        blk(Merge::Selection(3), ScfTerm::Branch(C, 1, 2)),
        blk(Merge::None, ScfTerm::Jump(3)),
        blk(Merge::None, ScfTerm::Jump(3)),
        blk(Merge::Selection(4), ScfTerm::Branch(C, 1, 4)),
        blk(Merge::None, ScfTerm::Return(0)),
    ]);
    check(&g).expect_err("entering arm 1 from 3 must fail");
}

#[test]
fn a_back_edge_needs_a_loop_header() {
    let g = graph(vec![blk(Merge::None, ScfTerm::Jump(1)), blk(Merge::None, ScfTerm::Jump(2)), blk(Merge::Selection(3), ScfTerm::Branch(C, 1, 3)), blk(Merge::None, ScfTerm::Return(0))]);
    assert!(rule(&g).contains("not a loop header"), "{}", rule(&g));
}

#[test]
fn breaking_out_of_two_loops_fails() {
    // Outer loop 1 (merge 7, continue 6), inner loop 2 (merge 5, continue 4); block 3 in the
    // inner loop jumps to the outer merge 7.
    let g = graph(vec![
        blk(Merge::None, ScfTerm::Jump(1)),
        blk(Merge::Loop { merge: 7, cont: 6 }, ScfTerm::Jump(2)),
        blk(Merge::Loop { merge: 5, cont: 4 }, ScfTerm::Jump(3)),
        blk(Merge::Selection(8), ScfTerm::Branch(C, 7, 4)),
        blk(Merge::None, ScfTerm::Jump(2)),
        blk(Merge::None, ScfTerm::Jump(6)),
        blk(Merge::None, ScfTerm::Jump(1)),
        blk(Merge::None, ScfTerm::Return(0)),
        blk(Merge::None, ScfTerm::Unreachable),
    ]);
    assert!(rule(&g).contains("structured exit") || rule(&g).contains("enters"), "{}", rule(&g));
}

#[test]
fn a_merge_block_named_twice_fails() {
    let g = graph(vec![
        blk(Merge::Selection(3), ScfTerm::Branch(C, 1, 3)),
        blk(Merge::Selection(3), ScfTerm::Branch(C, 2, 3)),
        blk(Merge::None, ScfTerm::Jump(3)),
        blk(Merge::None, ScfTerm::Return(0)),
    ]);
    assert!(rule(&g).contains("already a merge block"), "{}", rule(&g));
}

#[test]
fn blocks_out_of_dominance_order_fail() {
    let g = graph(vec![blk(Merge::None, ScfTerm::Jump(2)), blk(Merge::None, ScfTerm::Return(0)), blk(Merge::None, ScfTerm::Jump(1))]);
    assert!(rule(&g).contains("immediate dominator"), "{}", rule(&g));
}

#[test]
fn an_irreducible_graph_fails() {
    let g = graph(vec![
        blk(Merge::Selection(3), ScfTerm::Branch(C, 1, 2)),
        blk(Merge::None, ScfTerm::Jump(2)),
        blk(Merge::None, ScfTerm::Jump(1)),
        blk(Merge::None, ScfTerm::Return(0)),
    ]);
    check(&g).expect_err("an irreducible cycle must fail");
}
