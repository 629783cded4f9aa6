//! CFG recovery on real corpus code, expected blocks and edges checked by hand against the
//! reference listings (fixtures/*/listings), as each test says.

use isabridge_analysis::cfg::{CallTarget, EdgeKind::*};
use isabridge_analysis::{load, recover, Cfg};

fn cfg_of(file: &str, func: &str) -> Cfg {
    let path = format!("{}/../../fixtures/{file}", env!("CARGO_MANIFEST_DIR"));
    let p = load(&std::fs::read(path).unwrap(), None).unwrap();
    for s in &p.sections {
        for f in &s.functions {
            if f.name == func {
                return recover(p.isa, s, f).unwrap();
            }
        }
    }
    panic!("{func} not in {file}");
}

/// fixtures/nvidia/listings/jumptable.sm86.txt: `BSSY B0, .L_x_0` (0x140) at 0x60,
/// `LDC R4, c[0x2][R0]` at 0x90, `BRX R4 -0xc0` at 0xb0 with BRANCH_TARGETS .L_x_4 (0xc0),
/// .L_x_5 (0xe0), .L_x_6 (0x100), .L_x_7 (0x120); the first three end in `BRA .L_x_1` (0x130),
/// .L_x_7 falls into it; `BSYNC B0` at 0x130 falls into 0x140; `EXIT` at 0x160. The `BRA` self
/// loop at 0x170 and the NOPs after it are never reached: data from 0x170 to the end (0x200).
#[test]
fn sm86_brx_jump_table_and_bssy() {
    let g = cfg_of("nvidia/bin/jumptable.sm86.cubin", "jumptable");
    assert_eq!(g.block_starts(), vec![0x0, 0xc0, 0xe0, 0x100, 0x120, 0x130, 0x140]);
    assert_eq!(
        g.edge_addrs(),
        vec![
            (0x0, 0xc0, Table),
            (0x0, 0xe0, Table),
            (0x0, 0x100, Table),
            (0x0, 0x120, Table),
            (0xc0, 0x130, Taken),
            (0xe0, 0x130, Taken),
            (0x100, 0x130, Taken),
            (0x120, 0x130, FallThrough),
            (0x130, 0x140, FallThrough),
        ]
    );
    assert_eq!(g.data, vec![(0x170, 0x200)]);
    assert_eq!(g.reconvergence, vec![0x140]);
}

/// The block queries on the same function: successors, predecessors, the block that holds an
/// instruction, a block's instructions, and the petgraph view.
#[test]
fn sm86_block_queries() {
    let g = cfg_of("nvidia/bin/jumptable.sm86.cubin", "jumptable");
    assert_eq!(g.successors(0), vec![1, 2, 3, 4]);
    assert_eq!(g.successors(4), vec![5]);
    assert_eq!(g.successors(6), Vec::<usize>::new());
    assert_eq!(g.predecessors(5), vec![1, 2, 3, 4]);
    assert_eq!(g.predecessors(0), Vec::<usize>::new());
    // 0xb0 (the BRX) is the last instruction of block 0; 0xb8 is inside it, no instruction.
    assert_eq!(g.block_containing(0xb0), Some(0));
    assert_eq!(g.block_containing(0xb8), None);
    assert_eq!(g.block_containing(0x150), Some(6));
    assert_eq!(g.block_insts(6).iter().map(|x| x.0).collect::<Vec<_>>(), vec![0x140, 0x150, 0x160]);
    let pg = g.graph();
    assert_eq!((pg.node_count(), pg.edge_count()), (7, 9));
}

/// fixtures/nvidia/listings/jumptable.sm50.txt: `SSY .L_x_0` at 0x28, `LDC R0, c[0x2][R0]` at
/// 0x70, `BRX R0 -0x80` at 0x78 with targets .L_x_3.. = c[0x2] entries 0x80, 0x98, 0xc0, 0xd8
/// (0x80 and 0xc0 are bundle starts: their first instructions are at 0x88 and 0xc8). Each case
/// ends in `SYNC` (0x90, 0xb8, 0xd0, 0xe8) whose target is the SSY's .L_x_0.
#[test]
fn sm50_brx_jump_table_and_ssy_sync() {
    let g = cfg_of("nvidia/bin/jumptable.sm50.cubin", "jumptable");
    let e = g.edge_addrs();
    for t in [0x88, 0x98, 0xc8, 0xd8] {
        assert!(e.contains(&(0x8, t, Table)), "no table edge to {t:#x}: {e:x?}");
    }
    let sync_target = g.reconvergence[0];
    for from in [0x88, 0x98, 0xc8, 0xd8] {
        assert!(e.iter().any(|&(a, b, k)| a == from && b == sync_target && k == Reconverge), "{from:#x}: {e:x?}");
    }
    assert_eq!(g.calls, vec![]);
}

/// fixtures/amd/listings/hip_control.gfx1013-w32.txt: `_Z9particlesP8ParticlePfi` calls
/// `_Z5dist2RK8ParticleS1_` (offset 0) through s_getpc_b64 s[16:17] at 0x19c + relocated
/// s_add/s_addc (R_AMDGPU_REL32_LO .text+4 at 0x1a4: 0x1a0 + (4 - 0x1a4) = 0) + s_swappc at 0x1b0;
/// `_Z3fibi` (0x4a0) calls itself through the s_swappc at 0x540 (.text+0x4a4 at 0x52c:
/// 0x528 + 0x4a4 - 0x52c = 0x4a0). `s_cbranch_execz 22` at 0x188 targets 0x1e4
/// (0x188 + 4 + 22*4), `s_branch 65493` at 0x20c targets 0x164 (0x20c + 4 - 43*4).
#[test]
fn amd_getpc_swappc_calls_and_branches() {
    let g = cfg_of("amd/bin/hip_control.gfx1013-w32.o", "_Z9particlesP8ParticlePfi");
    assert_eq!(g.calls.len(), 1);
    assert_eq!((g.calls[0].site, g.calls[0].target.clone()), (0x1b0, CallTarget::Direct(0x0)));
    let e = g.edge_addrs();
    assert!(e.iter().any(|&(_, b, k)| b == 0x1e4 && k == Taken));
    assert!(e.iter().any(|&(_, b, k)| b == 0x164 && k == Taken));
    assert!(e.iter().any(|&(a, b, k)| a <= 0x1b0 && b == 0x1b4 && k == CallReturn));
    let f = cfg_of("amd/bin/hip_control.gfx1013-w32.o", "_Z3fibi");
    assert!(f.calls.iter().any(|c| c.site == 0x540 && c.target == CallTarget::Direct(0x4a0)));
    // s_setpc_b64 s[30:31] at 0x5c8 returns: no edge leaves its block.
    let b = f.blocks.iter().position(|b| b.last == 0x5c8).unwrap();
    assert!(f.edges.iter().all(|&(a, _, _)| a != b));
}

/// The jump tables of `BRX` live in constant bank 2 (`LDC R4, c[0x2][R0]` at 0x90 feeds
/// `BRX R4 -0xc0` at 0xb0 in jumptable.sm86.txt; `LDC R0, c[0x2][R0]` at 0x70 feeds `BRX R0 -0x80`
/// at 0x78 in jumptable.sm50.txt). Without the `.nv.constant2.jumptable` section the table cannot
/// be found: the BRX is a typed error, never a guessed target.
#[test]
fn brx_without_its_table_is_unresolved() {
    for (file, isa, addr) in [
        ("nvidia/bin/jumptable.sm86.cubin", isabridge_decoder::Isa::Sm86, 0xb0),
        ("nvidia/bin/jumptable.sm50.cubin", isabridge_decoder::Isa::Sm50, 0x78),
    ] {
        let path = format!("{}/../../fixtures/{file}", env!("CARGO_MANIFEST_DIR"));
        let mut p = load(&std::fs::read(path).unwrap(), None).unwrap();
        let s = p.sections.iter_mut().find(|s| s.functions.iter().any(|f| f.name == "jumptable")).unwrap();
        assert!(s.const2.is_some());
        s.const2 = None;
        let f = s.functions.iter().find(|f| f.name == "jumptable").unwrap();
        assert_eq!(
            recover(p.isa, s, f).unwrap_err(),
            isabridge_analysis::cfg::CfgError::Unresolved {
                isa,
                inst: "BRX",
                addr,
                why: "the kernel has no constant bank 2 section".into(),
            },
            "{file}"
        );
    }
}
