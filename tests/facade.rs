//! The facade's guide, run on bundled fixtures: load a code object, list its functions, decode
//! them into the operand model, recover their CFGs. The expected counts are the census's
//! (`crates/cli/tests/census_corpus.json`).

use isabridge::cfg::{self, Kind};
use isabridge::{load, recover, sweep, EdgeKind, Isa, Program};
use std::path::Path;

fn program(rel: &str) -> Program {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join(rel);
    load(&std::fs::read(path).unwrap(), None).unwrap()
}

/// (function, instructions reached, blocks, edges, bytes not reached) of a whole object, in
/// symbol order.
fn census_view(p: &Program) -> Vec<(String, usize, usize, usize, u64)> {
    let mut v = Vec::new();
    for s in &p.sections {
        for f in &s.functions {
            let g = recover(p.isa, s, f).unwrap();
            let data = g.data.iter().map(|(lo, hi)| hi - lo).sum();
            v.push((f.name.clone(), g.insts.len(), g.blocks.len(), g.edges.len(), data));
        }
    }
    v
}

#[test]
fn amd_functions_operands_and_cfgs() {
    let p = program("amd/bin/gfx_sample.gfx1013-w32.o");
    assert_eq!(p.isa, Isa::Gfx1013);
    assert_eq!(p.sections.len(), 1);
    let want = [
        ("ps_dims", 34, 1, 0, 0),
        ("ps_flavours", 93, 1, 0, 0),
        ("ps_gather", 46, 1, 0, 0),
        ("ps_a16_d16", 43, 3, 2, 0),
        ("ps_msaa", 25, 3, 2, 0),
    ];
    let want: Vec<_> = want.iter().map(|&(n, i, b, e, d)| (n.to_string(), i, b, e, d)).collect();
    assert_eq!(census_view(&p), want);

    // Every instruction of every function decodes, front to back, and the operand model
    // describes the same instruction the plugin names and prints.
    let plugin = p.isa.plugin();
    let s = &p.sections[0];
    let mut total = 0;
    for f in &s.functions {
        let mut end = f.start;
        for (addr, d) in sweep(p.isa, s, f) {
            let d = d.unwrap();
            let inst = plugin.operands(&d, addr);
            assert_eq!((inst.isa, inst.addr, inst.len), (Isa::Gfx1013, addr, d.len));
            assert_eq!(inst.name, plugin.name(&d));
            let mut text = String::new();
            plugin.print(&d, addr, &mut text);
            assert!(text.starts_with(&inst.name.to_ascii_lowercase()), "{addr:#x}: {text}");
            end = addr + d.len as u64;
            total += 1;
        }
        assert_eq!(end, f.end, "{}", f.name);
    }
    assert_eq!(total, 34 + 93 + 46 + 43 + 25);

    // ps_msaa: a conditional branch at 0x658 around the block at 0x65c; both paths end.
    let f = &s.functions[4];
    let g = recover(p.isa, s, f).unwrap();
    assert_eq!(g.block_starts(), [0x600, 0x65c, 0x670]);
    assert_eq!(g.edge_addrs(), [(0x600, 0x65c, EdgeKind::FallThrough), (0x600, 0x670, EdgeKind::Taken)]);
    assert_eq!(g.successors(0), [1, 2]);
    assert_eq!(g.block_containing(0x660), Some(1));
    let kind = |a: u64| {
        let (_, d, _) = g.insts.iter().find(|x| x.0 == a).unwrap();
        cfg::flow_kind(p.isa, d)
    };
    assert_eq!(kind(0x658), Kind::CondBranch);
    assert_eq!(kind(0x66c), Kind::End);
    assert_eq!(kind(0x67c), Kind::End);
}

#[test]
fn nvidia_cfgs_equal_the_census() {
    let p = program("nvidia/bin/control.sm86.cubin");
    assert_eq!(p.isa, Isa::Sm86);
    let want = [
        ("calls", 34, 5, 4, 0),
        ("$calls$_Z3fibi", 83, 14, 18, 0),
        ("$calls$_Z4polyfi", 49, 7, 11, 0),
        ("$calls$_Z6op_addff", 2, 1, 0, 0),
        ("$calls$_Z6op_divff", 26, 4, 4, 0),
        ("$calls$_Z6op_mulff", 2, 1, 0, 0),
        ("$calls$_Z6op_subff", 2, 1, 0, 0),
        ("$__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath", 105, 22, 31, 144),
        ("loops", 175, 22, 34, 144),
        ("switches", 52, 16, 27, 192),
        ("traps", 18, 6, 7, 224),
        ("divergent", 81, 15, 19, 0),
        ("$__internal_1_$__cuda_sm20_sqrt_rn_f32_slowpath", 22, 5, 7, 144),
    ];
    let mut got = census_view(&p);
    let mut want: Vec<_> = want.iter().map(|&(n, i, b, e, d)| (n.to_string(), i, b, e, d)).collect();
    got.sort();
    want.sort();
    assert_eq!(got, want);

    // Maxwell: a function's first instruction follows its bundle's control word, and the
    // sweep steps over the control words of later bundles.
    let p = program("nvidia/bin/jumptable.sm50.cubin");
    let s = &p.sections.iter().find(|s| s.functions.iter().any(|f| f.name == "jumptable")).unwrap();
    let f = s.functions.iter().find(|f| f.name == "jumptable").unwrap();
    let addrs: Vec<u64> = sweep(p.isa, s, f).map(|(a, _)| a).take(5).collect();
    assert_eq!(addrs, [0x8, 0x10, 0x18, 0x28, 0x30]);
    assert_eq!(isabridge::machine(p.isa).fixed_lanes(), Some(32));
}
