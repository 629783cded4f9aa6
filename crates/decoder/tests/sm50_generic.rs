//! The sm_50 lifter's generic-address model (crates/decoder/src/lift/sm50/generic.rs) and PSET,
//! on real instruction words: the corpus' own (fixtures/nvidia/ref memory.sm50, function
//! mem_global: `LEA R16.CC, R2, RZ` / `LEA.HI.X P0, R17, R2, RZ, R3` / `LD.E R21, [R16], P0` /
//! `ST.E [R18], R5, P0`; control.sm50: `PSET.AND.AND R20, P0, PT, PT`) and PSET words with other
//! operations, whose text nvdisasm 12.8 printed (`nvdisasm -b SM50`). Each runs as a one-bundle
//! program on one warp; the expected values follow the rules of NVIDIA's SASS reference for
//! SPA 5.0 as generic.rs and PSET's doc state them: Plg is false exactly for addresses in the
//! shared window (high word 0, low word's top byte that of `SHARED_WINDOW`), LD / ST lanes with
//! Plg false reach shared memory at the address's low 24 bits, PSET writes 0xffffffff (1.0f
//! with `.BF`) or 0 for `(a bop0 b) bop1 c`.

mod common;

use common::{ref_records, unhex};
use isabridge_decoder::lift::sm50::{lift, Options, SystemValue, SHARED_WINDOW};
use isabridge_decoder::lift::sm86::P0;
use isabridge_decoder::Isa;
use isabridge_ir::interp::{run, Config, Input, Memory, Outcome};

/// The 8-byte word of the sm_50 corpus instruction of `function` at `offset`, checked to print
/// as `text`.
fn corpus_word(function: &str, offset: u64, text: &str) -> u64 {
    let r = ref_records("sm50").into_iter().find(|r| r["function"] == function && r["offset"] == offset).expect("corpus record");
    assert_eq!(r["text"], text);
    u64::from_le_bytes(unhex(r["bytes"].as_str().unwrap()).try_into().unwrap())
}

/// A one-bundle program: a control word, `insts` (at most two) and EXIT.
fn bundle(insts: &[u64]) -> Vec<u8> {
    let exit = corpus_word("mem_global", 0x410, "EXIT");
    let mut w = vec![0x001f_c400_fe20_07f6u64];
    w.extend_from_slice(insts);
    while w.len() < 4 {
        w.push(exit);
    }
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// What the decoder prints for word `w`.
fn text(w: u64) -> String {
    let p = Isa::Sm50.plugin();
    let d = p.decode(&w.to_le_bytes(), 0x8).expect("decodes");
    let mut s = String::new();
    p.print(&d, 0x8, &mut s);
    s.trim().trim_end_matches(';').trim().to_string()
}

/// Lift `code` with `ins` as per-lane inputs (one column each, 32 lanes) and run it on `mem`.
fn run_lanes(code: &[u8], ins: &[(u16, Vec<u64>)], outs: &[u16], mem: Memory) -> Outcome {
    let opts = Options { reg_inputs: ins.iter().map(|i| i.0).collect(), reg_outputs: outs.to_vec(), ..Options::default() };
    let f = lift(Isa::Sm50, code, 0, &opts).expect("lifts");
    isabridge_ir::validate::validate(&f).expect("valid IR");
    let mut inputs: Vec<Input> = SystemValue::ALL.iter().map(|_| Input::Uniform(0)).collect();
    inputs.extend(ins.iter().map(|i| Input::PerLane(i.1.clone())));
    run(&f, &Config::default(), &inputs, mem).expect("runs")
}

#[test]
fn lea_hi_predicate_is_false_exactly_in_the_shared_window() {
    let code = bundle(&[
        corpus_word("mem_global", 0x278, "LEA R16.CC, R2.reuse, RZ"),
        corpus_word("mem_global", 0x290, "LEA.HI.X P0, R17, R2, RZ, R3"),
    ]);
    let w = SHARED_WINDOW as u64;
    // (address, in the window)
    let cases: [(u64, bool); 8] = [
        (w, true),
        (w + 0x00ff_fffc, true),
        (w + 0x0080_0000, true),
        (w - 4, false),
        (w + 0x0100_0000, false),
        (0x1_0000_0000 | w, false),
        (0x1_0000_0000, false),
        (0xffff_ffff_0123_4567, false),
    ];
    let lane = |l: usize| cases[l % cases.len()].0;
    let col = |f: &dyn Fn(u64) -> u64| (0..32).map(|l| f(lane(l))).collect::<Vec<u64>>();
    let o = run_lanes(&code, &[(2, col(&|a| a & 0xffff_ffff)), (3, col(&|a| a >> 32))], &[16, 17, P0], Memory::default());
    for (l, v) in o.outputs.iter().enumerate() {
        let (a, inside) = cases[l % cases.len()];
        assert_eq!(v[..], [a & 0xffff_ffff, a >> 32, !inside as u64], "lane {l}, address {a:#x}");
    }
}

#[test]
fn ld_and_st_with_a_predicate_split_lanes_between_global_and_shared_memory() {
    let code = bundle(&[
        corpus_word("mem_global", 0x2f0, "LD.E R21, [R16], P0"),
        corpus_word("mem_global", 0x3c8, "ST.E [R18], R5, P0"),
    ]);
    const GLOBAL: u64 = 0x1_0000_0000;
    let global: Vec<u8> = (0..64u32).flat_map(|i| (0x1000 + i).to_le_bytes()).collect();
    let shared: Vec<u8> = (0..64u32).flat_map(|i| (0x2000 + i).to_le_bytes()).collect();
    let mem = Memory { global: vec![(GLOBAL, global)], constant: Vec::new(), shared };
    // Even lanes: Plg true and a global address; odd lanes: Plg false and a shared window one.
    let addr = |l: u64, k: u64| if l.is_multiple_of(2) { GLOBAL + 4 * (l + k) } else { SHARED_WINDOW as u64 + 4 * (l + k) };
    let col = |f: &dyn Fn(u64) -> u64| (0..32).map(f).collect::<Vec<u64>>();
    let ins = [
        (16, col(&|l| addr(l, 0) & 0xffff_ffff)),
        (17, col(&|l| addr(l, 0) >> 32)),
        (18, col(&|l| addr(l, 32) & 0xffff_ffff)),
        (19, col(&|l| addr(l, 32) >> 32)),
        (5, col(&|l| 0xabc00 + l)),
        (P0, col(&|l| l.is_multiple_of(2) as u64)),
    ];
    let o = run_lanes(&code, &ins, &[21], mem);
    for (l, v) in o.outputs.iter().enumerate() {
        assert_eq!(v[0], if l % 2 == 0 { 0x1000 + l as u64 } else { 0x2000 + l as u64 }, "lane {l}");
    }
    let word = |b: &[u8], i: usize| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
    let g = &o.memory.global[0].1;
    for i in 0..64 {
        let stored = i >= 32;
        let l = (i as u32).wrapping_sub(32);
        let g_want = if stored && l.is_multiple_of(2) { 0xabc00 + l } else { 0x1000 + i as u32 };
        let s_want = if stored && l % 2 == 1 { 0xabc00 + l } else { 0x2000 + i as u32 };
        assert_eq!(word(g, i), g_want, "global word {i}");
        assert_eq!(word(&o.memory.shared, i), s_want, "shared word {i}");
    }
}

#[test]
fn pset_writes_the_boolean_word_of_its_predicate_combination() {
    let corpus = corpus_word("$calls$_Z3fibi", 600, "PSET.AND.AND R20, P0, PT, PT");
    // (word, nvdisasm 12.8's text, the combination of a = P0, b = P1, c = P2, the true word)
    type Rule = fn(bool, bool, bool) -> bool;
    let cases: [(u64, &str, Rule, u32); 3] = [
        (corpus, "PSET.AND.AND R20, P0, PT, PT", |a, _, _| a, 0xffff_ffff),
        (0x5088_5500_2107_0014, "PSET.BF.OR.XOR R20, P0, P1, !P2", |a, b, c| (a | b) ^ !c, 0x3f80_0000),
        (0x5088_2100_2207_8014, "PSET.XOR.OR R20, !P0, P1, P2", |a, b, c| (!a ^ b) | c, 0xffff_ffff),
    ];
    let bit = |k: u64| (0..32).map(|l| l >> k & 1).collect::<Vec<u64>>();
    for (w, want_text, rule, t) in cases {
        assert_eq!(text(w), want_text);
        let o = run_lanes(&bundle(&[w]), &[(P0, bit(0)), (P0 + 1, bit(1)), (P0 + 2, bit(2))], &[20], Memory::default());
        for (l, v) in o.outputs.iter().enumerate() {
            let r = rule(l & 1 == 1, l & 2 == 2, l & 4 == 4);
            assert_eq!(v[0], if r { t } else { 0 } as u64, "{want_text}: lane {l}");
        }
    }
}
