//! The recomputed gfx1201 waits are verified by execution: code whose memory results arrive
//! late (the interpreter's late-arriving-memory model, `lift_late_memory`) runs with the waits
//! `insert_waits` computes and gives the values the program means; with the one recomputed
//! wait that guards the later read deleted, the run reports the read as poison.
//!
//! The programs are gfx1201 code assembled by llvm-mc-22 (`-mcpu=gfx1201 -show-encoding`, the
//! text beside each word list); their own waits are stripped before `insert_waits` runs.
//! Counters shown: dscnt (LDS), loadcnt (global), kmcnt (scalar memory), storecnt (a global
//! store another wave reads after a barrier: the late model keeps a store invisible to the
//! other waves until a wait retires it), expcnt (an LDS direct load, which gfx12 counts on
//! expcnt with the exports, and the parameter load of a translated VINTRP interpolation),
//! samplecnt (an image sample of a linear 2D image), bvhcnt (a ray / BVH-node intersection).

use isabridge_decoder::lift::amd::{lift, lift_late_memory, Options, SystemValue};
use isabridge_decoder::Isa;
use isabridge_ir::interp::{self, Config, Input, InterpError, Memory};
use isabridge_targets::gfx12::layout::place;
use isabridge_targets::gfx12::waits::{insert_waits, is_counter_wait};
use isabridge_targets::gfx12::TranslatedInst;

const IN_BASE: u64 = 0x1_0000_0000;
const OUT_BASE: u64 = 0x2_0000_0000;
const LANES: usize = 32;

/// Decode gfx1201 bytes linearly.
fn decode(code: &[u8]) -> Vec<TranslatedInst> {
    let p = Isa::Gfx1201.plugin();
    let mut out = Vec::new();
    let mut a = 0u64;
    while (a as usize) < code.len() {
        let d = p.decode(&code[a as usize..], a).expect("decodes");
        out.push(TranslatedInst { inst: p.operands(&d, a), src_addr: a });
        a += d.len as u64;
    }
    out
}

/// The program with its waits stripped and recomputed, and the index of every recomputed
/// counter wait.
fn recomputed(code: &[u8]) -> (Vec<TranslatedInst>, Vec<usize>) {
    let stripped: Vec<_> = decode(code).into_iter().filter(|t| !is_counter_wait(&t.inst)).collect();
    let ours = insert_waits(&stripped).expect("waits");
    let waits = ours.iter().enumerate().filter(|(_, t)| is_counter_wait(&t.inst)).map(|(i, _)| i).collect();
    (ours, waits)
}

/// Run placed gfx1201 code for `waves` waves of 32 with s[0:1] = IN_BASE, s[2:3] = OUT_BASE
/// (an output buffer of `out_words` zero words), v0 = work-item id; `late` lifts it with
/// late-arriving memory. Returns the output buffer.
fn run(insts: &[TranslatedInst], late: bool, waves: usize, out_words: usize, input: &[u32], shared: &[u32]) -> Result<Vec<u32>, InterpError> {
    let code = place(insts, 0).expect("places").code;
    let opts = Options { wave64: false, user_sgprs: 4, vgpr_inputs: vec![SystemValue::LocalIdX], ..Options::default() };
    let f = if late { lift_late_memory(Isa::Gfx1201, &code, 0, &opts) } else { lift(Isa::Gfx1201, &code, 0, &opts) }.expect("lifts");
    let bytes = |w: &[u32]| w.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let mem = Memory {
        global: vec![(IN_BASE, bytes(input)), (OUT_BASE, vec![0; out_words * 4])],
        shared: bytes(shared),
        ..Memory::default()
    };
    let ins: Vec<Input> = [IN_BASE as u32, (IN_BASE >> 32) as u32, OUT_BASE as u32, (OUT_BASE >> 32) as u32]
        .into_iter()
        .map(|w| Input::Uniform(w as u64))
        .chain([Input::PerLane((0..(waves * LANES) as u64).collect())])
        .collect();
    let r = interp::run(&f, &Config { wave_size: 32, waves: waves as u32, ..Config::default() }, &ins, mem)?;
    Ok(r.memory.global[1].1.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

/// Checks one counter's program run by one wave: the recomputed waits give `want` with late
/// memory (and the same as the run without it); deleting the recomputed wait of `counter`
/// makes the read poison.
fn check(code: &[u8], counter: &str, input: &[u32], shared: &[u32], want: &[u32]) {
    check_waves(code, counter, 1, input, shared, want)
}

/// [`check`] for a workgroup of `waves` waves; `want` is the whole output buffer.
fn check_waves(code: &[u8], counter: &str, waves: usize, input: &[u32], shared: &[u32], want: &[u32]) {
    let run = |insts: &[TranslatedInst], late: bool| run(insts, late, waves, want.len(), input, shared);
    let (ours, waits) = recomputed(code);
    assert_eq!(run(&ours, false).unwrap(), want, "{counter}: without late memory");
    assert_eq!(run(&ours, true).unwrap(), want, "{counter}: recomputed waits with late memory");
    let text: Vec<String> = waits.iter().map(|i| ours[*i].inst.name.to_ascii_lowercase()).collect();
    let k = *waits
        .iter()
        .find(|i| ours[**i].inst.name.to_ascii_lowercase().contains(counter))
        .unwrap_or_else(|| panic!("{counter}: no recomputed wait on it among {text:?}"));
    let mut deleted = ours.clone();
    deleted.remove(k);
    match run(&deleted, true) {
        Err(InterpError::Poison { .. }) => {}
        other => panic!("{counter}: with its wait deleted the run gave {other:?}, not a poison read"),
    }
    // Without late memory the deletion is invisible: the model is what shows it.
    assert_eq!(run(&deleted, false).unwrap(), want, "{counter}: deleted wait without late memory");
}

fn words(bytes: &[[u8; 4]]) -> Vec<u8> {
    bytes.iter().flatten().copied().collect()
}

#[test]
fn dscnt_wait_guards_an_lds_read() {
    let code = words(&[
        [0x82, 0x00, 0x02, 0x30], // v_lshlrev_b32_e32 v1, 2, v0
        [0x00, 0x00, 0xd8, 0xd8], // ds_load_b32 v2, v1
        [0x01, 0x00, 0x00, 0x02],
        [0x00, 0x00, 0xc6, 0xbf], // s_wait_dscnt 0x0
        [0x81, 0x04, 0x04, 0x4a], // v_add_nc_u32_e32 v2, 1, v2
        [0x02, 0x80, 0x06, 0xee], // global_store_b32 v1, v2, s[2:3]
        [0x00, 0x00, 0x00, 0x01],
        [0x01, 0x00, 0x00, 0x00],
        [0x00, 0x00, 0xb0, 0xbf], // s_endpgm
    ]);
    let shared: Vec<u32> = (0..LANES as u32).map(|i| 0x1000 + 7 * i).collect();
    let want: Vec<u32> = shared.iter().map(|x| x + 1).collect();
    check(&code, "dscnt", &[0; LANES], &shared, &want);
}

#[test]
fn loadcnt_wait_guards_a_global_read() {
    let code = words(&[
        [0x82, 0x00, 0x02, 0x30], // v_lshlrev_b32_e32 v1, 2, v0
        [0x00, 0x00, 0x05, 0xee], // global_load_b32 v2, v1, s[0:1]
        [0x02, 0x00, 0x00, 0x00],
        [0x01, 0x00, 0x00, 0x00],
        [0x00, 0x00, 0xc0, 0xbf], // s_wait_loadcnt 0x0
        [0x81, 0x04, 0x04, 0x4a], // v_add_nc_u32_e32 v2, 1, v2
        [0x02, 0x80, 0x06, 0xee], // global_store_b32 v1, v2, s[2:3]
        [0x00, 0x00, 0x00, 0x01],
        [0x01, 0x00, 0x00, 0x00],
        [0x00, 0x00, 0xb0, 0xbf], // s_endpgm
    ]);
    let input: Vec<u32> = (0..LANES as u32).map(|i| 0x5000 + 3 * i).collect();
    let want: Vec<u32> = input.iter().map(|x| x + 1).collect();
    check(&code, "loadcnt", &input, &[], &want);
}

#[test]
fn kmcnt_wait_guards_a_scalar_read() {
    let code = words(&[
        [0x00, 0x01, 0x00, 0xf4], // s_load_b32 s4, s[0:1], 0x0
        [0x00, 0x00, 0x00, 0xf8],
        [0x00, 0x00, 0xc7, 0xbf], // s_wait_kmcnt 0x0
        [0x04, 0x81, 0x05, 0x80], // s_add_co_u32 s5, s4, 1
        [0x82, 0x00, 0x02, 0x30], // v_lshlrev_b32_e32 v1, 2, v0
        [0x05, 0x02, 0x04, 0x7e], // v_mov_b32_e32 v2, s5
        [0x02, 0x80, 0x06, 0xee], // global_store_b32 v1, v2, s[2:3]
        [0x00, 0x00, 0x00, 0x01],
        [0x01, 0x00, 0x00, 0x00],
        [0x00, 0x00, 0xb0, 0xbf], // s_endpgm
    ]);
    let input: Vec<u32> = (0..LANES as u32).map(|i| 0x9000 + i).collect();
    let want = vec![0x9001; LANES];
    check(&code, "kmcnt", &input, &[], &want);
}

#[test]
fn storecnt_wait_guards_a_store_another_wave_reads() {
    // Two waves: each stores its work-item id to OUT[id], then (after the barrier) reads the
    // other wave's OUT[id ^ 32] and stores it to OUT[64 + id].
    let code = words(&[
        [0x82, 0x00, 0x02, 0x30], // v_lshlrev_b32_e32 v1, 2, v0
        [0x02, 0x80, 0x06, 0xee], // global_store_b32 v1, v0, s[2:3]
        [0x00, 0x00, 0x00, 0x00],
        [0x01, 0x00, 0x00, 0x00],
        [0x00, 0x00, 0xc1, 0xbf], // s_wait_storecnt 0x0
        [0xc1, 0x4e, 0x80, 0xbe], // s_barrier_signal -1
        [0xff, 0xff, 0x94, 0xbf], // s_barrier_wait -1
        [0xff, 0x02, 0x06, 0x3a], // v_xor_b32_e32 v3, 0x80, v1
        [0x80, 0x00, 0x00, 0x00],
        [0x02, 0x00, 0x05, 0xee], // global_load_b32 v4, v3, s[2:3]
        [0x04, 0x00, 0x00, 0x00],
        [0x03, 0x00, 0x00, 0x00],
        [0x00, 0x00, 0xc0, 0xbf], // s_wait_loadcnt 0x0
        [0x02, 0x80, 0x06, 0xee], // global_store_b32 v1, v4, s[2:3] offset:256
        [0x00, 0x00, 0x00, 0x02],
        [0x01, 0x00, 0x01, 0x00],
        [0x00, 0x00, 0xb0, 0xbf], // s_endpgm
    ]);
    let ids: Vec<u32> = (0..2 * LANES as u32).collect();
    let want: Vec<u32> = ids.iter().copied().chain(ids.iter().map(|i| i ^ 32)).collect();
    check_waves(&code, "storecnt", 2, &[0; LANES], &[], &want);
}

#[test]
fn expcnt_wait_guards_an_lds_direct_load() {
    let code = words(&[
        [0xff, 0x00, 0xfd, 0xbe], // s_mov_b32 m0, 0x20004 (LDS byte 4, a whole dword)
        [0x04, 0x00, 0x02, 0x00],
        [0x01, 0x00, 0x10, 0xce], // ds_direct_load v1 wait_va_vdst:0 wait_vm_vsrc:0
        [0x00, 0x00, 0xc4, 0xbf], // s_wait_expcnt 0x0
        [0x81, 0x02, 0x02, 0x4a], // v_add_nc_u32_e32 v1, 1, v1
        [0x82, 0x00, 0x04, 0x30], // v_lshlrev_b32_e32 v2, 2, v0
        [0x02, 0x80, 0x06, 0xee], // global_store_b32 v2, v1, s[2:3]
        [0x00, 0x00, 0x80, 0x00],
        [0x02, 0x00, 0x00, 0x00],
        [0x00, 0x00, 0xb0, 0xbf], // s_endpgm
    ]);
    let shared = [0x1111, 0x2222_0007, 0x3333];
    check(&code, "expcnt", &[0; LANES], &shared, &[0x2222_0008; LANES]);
}

#[test]
fn samplecnt_wait_guards_a_sample() {
    // T# (gfx1201 layout): a linear 2D image of 32 x 1 IMG_FMT_32_FLOAT texels at IN_BASE,
    // channel selects x y z w, type 2D. S#: clamp to the last texel, unnormalised
    // coordinates, point filters. Each lane samples texel (id, 0) at (id + 0.5, 0.5).
    let code = words(&[
        [0xff, 0x00, 0x88, 0xbe], // s_mov_b32 s8, 0x1000000
        [0x00, 0x00, 0x00, 0x01],
        [0xff, 0x00, 0x89, 0xbe], // s_mov_b32 s9, 0xc02c0000
        [0x00, 0x00, 0x2c, 0xc0],
        [0x87, 0x00, 0x8a, 0xbe], // s_mov_b32 s10, 7
        [0xff, 0x00, 0x8b, 0xbe], // s_mov_b32 s11, 0x90000fac
        [0xac, 0x0f, 0x00, 0x90],
        [0x80, 0x00, 0x8c, 0xbe], // s_mov_b32 s12, 0
        [0x80, 0x00, 0x8d, 0xbe], // s_mov_b32 s13, 0
        [0x80, 0x00, 0x8e, 0xbe], // s_mov_b32 s14, 0
        [0x80, 0x00, 0x8f, 0xbe], // s_mov_b32 s15, 0
        [0xff, 0x00, 0x90, 0xbe], // s_mov_b32 s16, 0x8092
        [0x92, 0x80, 0x00, 0x00],
        [0x80, 0x00, 0x91, 0xbe], // s_mov_b32 s17, 0
        [0x80, 0x00, 0x92, 0xbe], // s_mov_b32 s18, 0
        [0x80, 0x00, 0x93, 0xbe], // s_mov_b32 s19, 0
        [0x00, 0x0d, 0x02, 0x7e], // v_cvt_f32_u32_e32 v1, v0
        [0xf0, 0x02, 0x02, 0x06], // v_add_f32_e32 v1, 0.5, v1
        [0xf0, 0x02, 0x04, 0x7e], // v_mov_b32_e32 v2, 0.5
        [0x01, 0xc0, 0x46, 0xe4], // image_sample v3, [v1, v2], s[8:15], s[16:19] dmask:0x1 dim:SQ_RSRC_IMG_2D
        [0x03, 0x10, 0x00, 0x08],
        [0x01, 0x02, 0x00, 0x00],
        [0x00, 0x00, 0xc2, 0xbf], // s_wait_samplecnt 0x0
        [0x81, 0x06, 0x06, 0x4a], // v_add_nc_u32_e32 v3, 1, v3
        [0x82, 0x00, 0x08, 0x30], // v_lshlrev_b32_e32 v4, 2, v0
        [0x02, 0x80, 0x06, 0xee], // global_store_b32 v4, v3, s[2:3]
        [0x00, 0x00, 0x80, 0x01],
        [0x04, 0x00, 0x00, 0x00],
        [0x00, 0x00, 0xb0, 0xbf], // s_endpgm
    ]);
    let input: Vec<u32> = (0..LANES as u32).map(|i| (1.5f32 + i as f32).to_bits()).collect();
    let want: Vec<u32> = input.iter().map(|x| x + 1).collect();
    check(&code, "samplecnt", &input, &[], &want);
}

/// expcnt on a translated interpolation (issue 30, graphics stages): gfx1013's
/// `v_interp_p1_f32 v1, v3, attr0.x` becomes `ds_param_load` into a temporary and
/// `v_interp_p10_f32` with WAIT_EXP 7 (expand_interp.rs, the words `vintrp_interpolation_equal_gfx1013`
/// pins); the expcnt wait before the interpolation reads the loaded parameters is recomputed.
/// With it, every lane stores fma(P10, i, P0) = 2 * lane + 1 (P0 = 1.0, P10 = 2.0, the lifter's
/// attribute inputs from 1024); without it, the read is poison under late memory.
#[test]
fn expcnt_wait_guards_a_translated_interpolation() {
    let code = words(&[
        [0x00, 0x0d, 0x06, 0x7e], // v_cvt_f32_u32_e32 v3, v0
        [0xc8, 0x00, 0x00, 0xce], // ds_param_load v200, attr0.x wait_va_vdst:0 wait_vm_vsrc:0
        [0x01, 0x07, 0x00, 0xcd], // v_interp_p10_f32 v1, v200, v3, v200 wait_exp:7
        [0xc8, 0x07, 0x22, 0x07],
        [0x82, 0x00, 0x04, 0x30], // v_lshlrev_b32_e32 v2, 2, v0
        [0x02, 0x80, 0x06, 0xee], // global_store_b32 v2, v1, s[2:3]
        [0x00, 0x00, 0x80, 0x00],
        [0x02, 0x00, 0x00, 0x00],
        [0x00, 0x00, 0xb0, 0xbf], // s_endpgm
    ]);
    let run = |insts: &[TranslatedInst], late: bool| -> Result<Vec<u32>, InterpError> {
        let code = place(insts, 0).expect("places").code;
        let opts = Options { wave64: false, user_sgprs: 4, vgpr_inputs: vec![SystemValue::LocalIdX], ..Options::default() };
        let f = if late { lift_late_memory(Isa::Gfx1201, &code, 0, &opts) } else { lift(Isa::Gfx1201, &code, 0, &opts) }.expect("lifts");
        let mut ins: Vec<Input> = [0, 0, OUT_BASE as u32, (OUT_BASE >> 32) as u32].into_iter().map(|w| Input::Uniform(w as u64)).collect();
        ins.push(Input::PerLane((0..LANES as u64).collect()));
        ins.resize(1024 + 12, Input::Uniform(0));
        ins[1024] = Input::Uniform(1.0f32.to_bits() as u64);
        ins[1025] = Input::Uniform(2.0f32.to_bits() as u64);
        let mem = Memory { global: vec![(OUT_BASE, vec![0; LANES * 4])], ..Memory::default() };
        let r = interp::run(&f, &Config { wave_size: 32, waves: 1, ..Config::default() }, &ins, mem)?;
        Ok(r.memory.global[0].1.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
    };
    let want: Vec<u32> = (0..LANES).map(|l| (2.0 * l as f32 + 1.0).to_bits()).collect();
    let (ours, waits) = recomputed(&code);
    assert_eq!(run(&ours, false).unwrap(), want, "without late memory");
    assert_eq!(run(&ours, true).unwrap(), want, "recomputed waits with late memory");
    let k = *waits.iter().find(|i| ours[**i].inst.name == "S_WAIT_EXPCNT").expect("a recomputed s_wait_expcnt");
    let mut deleted = ours.clone();
    deleted.remove(k);
    assert!(matches!(run(&deleted, true), Err(InterpError::Poison { .. })), "with its wait deleted: {:?}", run(&deleted, true));
    assert_eq!(run(&deleted, false).unwrap(), want, "deleted wait without late memory");
}

#[test]
fn bvhcnt_wait_guards_a_ray_intersection() {
    // BVH descriptor (gfx1201 layout, fixtures/facts/amd/bvh_descriptor_gfx10_gfx12.md): base
    // IN_BASE (BASE_ADDRESS = IN_BASE / 256), no box sorting, SIZE 1, TYPE 8. Node pointer 0: a
    // triangle node (type 0) at IN_BASE, vertices (0, 0, 0), (1, 0, 0), (0, 1, 0), id 0x77 in
    // dword 15. The ray from (5, 5, -1) along +z misses it: the result is +inf, 1.0, the id, 0
    // (ir::ops::ray), and each lane stores the id + 1.
    let code = words(&[
        [0xff, 0x00, 0x88, 0xbe], // s_mov_b32 s8, 0x1000000
        [0x00, 0x00, 0x00, 0x01],
        [0x80, 0x00, 0x89, 0xbe], // s_mov_b32 s9, 0
        [0x81, 0x00, 0x8a, 0xbe], // s_mov_b32 s10, 1
        [0xff, 0x00, 0x8b, 0xbe], // s_mov_b32 s11, 0x80000000
        [0x00, 0x00, 0x00, 0x80],
        [0x80, 0x02, 0x02, 0x7e], // v_mov_b32_e32 v1, 0
        [0xf2, 0x02, 0x04, 0x7e], // v_mov_b32_e32 v2, 1.0
        [0xff, 0x02, 0x06, 0x7e], // v_mov_b32_e32 v3, 0x40a00000
        [0x00, 0x00, 0xa0, 0x40],
        [0xff, 0x02, 0x08, 0x7e], // v_mov_b32_e32 v4, 0x40a00000
        [0x00, 0x00, 0xa0, 0x40],
        [0xf3, 0x02, 0x0a, 0x7e], // v_mov_b32_e32 v5, -1.0
        [0x80, 0x02, 0x0c, 0x7e], // v_mov_b32_e32 v6, 0
        [0x80, 0x02, 0x0e, 0x7e], // v_mov_b32_e32 v7, 0
        [0xf2, 0x02, 0x10, 0x7e], // v_mov_b32_e32 v8, 1.0
        [0xff, 0x02, 0x12, 0x7e], // v_mov_b32_e32 v9, 0x7f800000
        [0x00, 0x00, 0x80, 0x7f],
        [0xff, 0x02, 0x14, 0x7e], // v_mov_b32_e32 v10, 0x7f800000
        [0x00, 0x00, 0x80, 0x7f],
        [0xf2, 0x02, 0x16, 0x7e], // v_mov_b32_e32 v11, 1.0
        [0x10, 0x40, 0xc6, 0xd3], // image_bvh_intersect_ray v[12:15], [v1, v2, v[3:5], v[6:8], v[9:11]], s[8:11]
        [0x0c, 0x10, 0x00, 0x09],
        [0x01, 0x02, 0x03, 0x06],
        [0x00, 0x00, 0xc3, 0xbf], // s_wait_bvhcnt 0x0
        [0x81, 0x1c, 0x1c, 0x4a], // v_add_nc_u32_e32 v14, 1, v14
        [0x82, 0x00, 0x20, 0x30], // v_lshlrev_b32_e32 v16, 2, v0
        [0x02, 0x80, 0x06, 0xee], // global_store_b32 v16, v14, s[2:3]
        [0x00, 0x00, 0x00, 0x07],
        [0x10, 0x00, 0x00, 0x00],
        [0x00, 0x00, 0xb0, 0xbf], // s_endpgm
    ]);
    let one = 1f32.to_bits();
    let mut node = [0u32; 16];
    node[3] = one; // v1.x
    node[7] = one; // v2.y
    node[15] = 0x77;
    check(&code, "bvhcnt", &node, &[], &[0x78; LANES]);
}
