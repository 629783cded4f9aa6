//! The AMD lifter's waits, traps, interrupts, cube-map ops, float global atomics and the
//! ds_swizzle / ds_permute lane maps on small programs, lifted and run on the IR interpreter.
//! Expected values follow the instruction definitions: the s_waitcnt SIMM16 fields (vmcnt
//! 3:0 and 15:14, expcnt 6:4, lgkmcnt 13:8; gfx12's combined waits 13:8 and 5:0), the cube-map
//! face / s / t / major-axis table of the ISA guide, the float atomics' min / max rules, and
//! the lane maps of ds_swizzle_b32 and ds_bpermute_b32.

use isabridge_decoder::lift::amd::{lift, Options, SystemValue};
use isabridge_decoder::lift::LiftError;
use isabridge_decoder::Isa;
use isabridge_ir::interp::{self, Config, Input, InterpError, Memory};
use isabridge_ir::validate::validate;

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn text_of(isa: Isa, code: &[u32]) -> String {
    let f = lift(isa, &bytes(code), 0, &Options::default()).expect("lifts");
    validate(&f).expect("valid IR");
    let t = isabridge_ir::text::print(&f);
    let back = isabridge_ir::text::parse(&t).expect("parses");
    assert_eq!(isabridge_ir::text::print(&back), t, "text round trip");
    t
}

#[test]
fn gfx10_waits_keep_every_counter_with_its_decoded_count() {
    let t = text_of(
        Isa::Gfx1013,
        &[
            0xbf8c0000, // s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)
            0xbf8c7f70, // s_waitcnt vmcnt(16)
            0xbf8c0f7f, // s_waitcnt vmcnt(15) lgkmcnt(15)
            0xbbfd0000, // s_waitcnt_vscnt null, 0x0
            0xbf810000, // s_endpgm
        ],
    );
    let waits: Vec<&str> = t.lines().map(str::trim).filter(|l| l.starts_with("wait")).collect();
    assert_eq!(
        waits,
        [
            "wait.load+sample+bvh:0.devshared+export:0.scalar+shared+devshared+message:0",
            "wait.load+sample+bvh:16.devshared+export:7.scalar+shared+devshared+message:63",
            "wait.load+sample+bvh:15.devshared+export:7.scalar+shared+devshared+message:15",
            "wait.store:0",
        ],
        "{t}"
    );
    // A count read from an SGPR is a typed error: s_waitcnt_vscnt s5, 0x3.
    match lift(Isa::Gfx1013, &bytes(&[0xbb850003, 0xbf810000]), 0, &Options::default()) {
        Err(LiftError::Unsupported { why, .. }) => assert!(why.contains("register"), "{why}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn gfx12_split_waits_lift_as_waits() {
    let t = text_of(
        Isa::Gfx1201,
        &[
            0xbfc80102, // s_wait_loadcnt_dscnt 0x102
            0xbfc90304, // s_wait_storecnt_dscnt 0x304
            0xbfc70000, // s_wait_kmcnt 0x0
            0xbfc40000, // s_wait_expcnt 0x0
            0xbfb00000, // s_endpgm
        ],
    );
    let waits: Vec<&str> = t.lines().map(str::trim).filter(|l| l.starts_with("wait")).collect();
    assert_eq!(
        waits,
        ["wait.load:1.shared:2", "wait.store:3.shared:4", "wait.scalar+message:0", "wait.export+attribute:0"],
        "{t}"
    );
}

/// Lift `code` for wave32 with `sgprs` as s0.. and v0 the lane id, and run it on `global`.
fn run(code: &[u32], sgprs: &[u32], global: Vec<(u64, Vec<u8>)>) -> Result<Memory, InterpError> {
    let opts = Options { user_sgprs: sgprs.len() as u32, vgpr_inputs: vec![SystemValue::LocalIdX], ..Options::default() };
    let f = lift(Isa::Gfx1013, &bytes(code), 0, &opts).expect("lifts");
    validate(&f).expect("valid IR");
    let mut ins: Vec<Input> = sgprs.iter().map(|w| Input::Uniform(*w as u64)).collect();
    ins.push(Input::PerLane((0..32).collect()));
    let mem = Memory { global, ..Memory::default() };
    interp::run(&f, &Config::default(), &ins, mem).map(|r| r.memory)
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect()
}

#[test]
fn trap_ends_the_run_with_its_code_and_a_halting_interrupt_halts() {
    // s_trap 2 ; s_endpgm
    assert_eq!(run(&[0xbf920002, 0xbf810000], &[], vec![]), Err(InterpError::Trap(2)));
    // s_sendmsg sendmsg(MSG_INTERRUPT) ; s_endpgm: the interrupt itself changes nothing.
    assert!(run(&[0xbf900001, 0xbf810000], &[], vec![]).is_ok());
    // s_sendmsghalt sendmsg(MSG_INTERRUPT) ; s_endpgm
    assert_eq!(run(&[0xbf910001, 0xbf810000], &[], vec![]), Err(InterpError::Halt));
    let t = text_of(Isa::Gfx1013, &[0xbf920002, 0xbf900001, 0xbf910001, 0xbf810000]);
    assert!(t.contains("trap.2") && t.contains("interrupt\n") && t.contains("interrupt.halt"), "{t}");
}

/// A raw V# over `len` bytes at `base`, as fixtures/rdna/HARNESS.md's std_buffer_v1.
fn vsharp(base: u64, len: usize) -> [u32; 4] {
    [base as u32, (base >> 32) as u32 & 0xffff, len as u32, 0x31016fac]
}

#[test]
fn cube_map_face_and_coordinates_follow_the_major_axis_table() {
    const IN: u64 = 0x1_0000_0000;
    const OUT: u64 = 0x2_0000_0000;
    let code = [
        0x340a0084, // v_lshlrev_b32_e32 v5, 4, v0
        0xe03c1000, 0x80000605, // buffer_load_dwordx3 v[6:8], v5, s[0:3], 0 offen
        0xbf8c3f70, // s_waitcnt vmcnt(0)
        0xd5440001, 0x04220f06, // v_cubeid_f32 v1, v6, v7, v8
        0xd5450002, 0x04220f06, // v_cubesc_f32 v2, v6, v7, v8
        0xd5460003, 0x04220f06, // v_cubetc_f32 v3, v6, v7, v8
        0xd5470004, 0x04220f06, // v_cubema_f32 v4, v6, v7, v8
        0xe0781000, 0x80010105, // buffer_store_dwordx4 v[1:4], v5, s[4:7], 0 offen
        0xbf810000, // s_endpgm
    ];
    let nan = f32::NAN;
    // (x, y, z) -> (face, sc, tc, ma): z major when |z| >= |x|, |y|; else y when |y| >= |x|.
    let cases: [([f32; 3], [f32; 4]); 9] = [
        ([1.0, 2.0, 3.0], [4.0, 1.0, -2.0, 6.0]),
        ([1.0, 2.0, -3.0], [5.0, -1.0, -2.0, -6.0]),
        ([1.0, -5.0, 3.0], [3.0, 1.0, -3.0, -10.0]),
        ([1.0, 5.0, 3.0], [2.0, 1.0, 3.0, 10.0]),
        ([7.0, 5.0, 3.0], [0.0, -3.0, -5.0, 14.0]),
        ([-7.0, 5.0, 3.0], [1.0, 3.0, -5.0, -14.0]),
        ([2.0, 2.0, 2.0], [4.0, 2.0, -2.0, 4.0]),
        ([2.0, -2.0, 1.0], [3.0, 2.0, -1.0, -4.0]),
        // A NaN component is never the major axis over a number: x is major here by
        // elimination (|z| >= NaN and |y| >= NaN are false); NaN is not negative.
        ([nan, 1.0, 2.0], [0.0, -2.0, -1.0, nan]),
    ];
    let mut input = vec![0u8; 32 * 16];
    for (l, (d, _)) in cases.iter().enumerate() {
        input[16 * l..16 * l + 12].copy_from_slice(&f32s(d));
    }
    // Signed zeros: (-0, +0, -0) has z major with z = -0 not negative: face 4, sc = x = -0,
    // tc = -y = -0, ma = -0 + -0 = -0.
    let zl = cases.len();
    input[16 * zl..16 * zl + 12].copy_from_slice(&f32s(&[-0.0, 0.0, -0.0]));
    let sg: Vec<u32> = vsharp(IN, input.len()).into_iter().chain(vsharp(OUT, 32 * 16)).collect();
    let t = text_of(Isa::Gfx1013, &code);
    assert!(t.contains("fcubeid.rn") && t.contains("fcubema.rn"), "{t}");
    let mem = run(&code, &sg, vec![(IN, input), (OUT, vec![0; 32 * 16])]).expect("runs");
    let out = words(&mem.global[1].1);
    for (l, (d, want)) in cases.iter().enumerate() {
        for k in 0..4 {
            let got = f32::from_bits(out[4 * l + k]);
            let ok = if want[k].is_nan() { got.is_nan() } else { got.to_bits() == want[k].to_bits() };
            assert!(ok, "lane {l} {d:?} result {k}: {got} want {}", want[k]);
        }
    }
    assert_eq!(&out[4 * zl..4 * zl + 4], &[4.0f32.to_bits(), 0x8000_0000, 0x8000_0000, 0x8000_0000]);
}

#[test]
fn global_float_atomics_min_max_return_the_old_value() {
    const A: u64 = 0x1_0000_0000;
    const B: u64 = 0x2_0000_0000;
    const C: u64 = 0x3_0000_0000;
    let code = [
        0x34020082, // v_lshlrev_b32_e32 v1, 2, v0
        0xdc308000, 0x02020001, // global_load_dword v2, v1, s[2:3]
        0xbf8c3f70, // s_waitcnt vmcnt(0)
        0xdcfd8000, 0x03000201, // global_atomic_fmin v3, v1, v2, s[0:1] glc
        0xbf8c3f70, // s_waitcnt vmcnt(0)
        0xdc708000, 0x00040301, // global_store_dword v1, v3, s[4:5]
        0xdd008080, 0x00000201, // global_atomic_fmax v1, v2, s[0:1] offset:128
        0xbf810000, // s_endpgm
    ];
    let nan = f32::from_bits(0x7fc0_0000);
    // (memory, operand): min, max. A NaN on one side gives the other; -0 is below +0.
    let pairs: [(f32, f32, f32, f32); 6] = [
        (1.0, 2.0, 1.0, 2.0),
        (-3.5, 2.0, -3.5, 2.0),
        (0.0, -0.0, -0.0, 0.0),
        (nan, 5.0, 5.0, 5.0),
        (7.0, nan, 7.0, 7.0),
        (f32::INFINITY, -1.0, -1.0, f32::INFINITY),
    ];
    let mut a = vec![0f32; 64];
    let mut b = vec![0f32; 32];
    for (l, p) in pairs.iter().enumerate() {
        a[l] = p.0;
        a[32 + l] = p.0;
        b[l] = p.1;
    }
    let sg = [A as u32, (A >> 32) as u32, B as u32, (B >> 32) as u32, C as u32, (C >> 32) as u32];
    let mem = run(&code, &sg, vec![(A, f32s(&a)), (B, f32s(&b)), (C, vec![0; 128])]).expect("runs");
    let (am, cm) = (words(&mem.global[0].1), words(&mem.global[2].1));
    for (l, p) in pairs.iter().enumerate() {
        assert_eq!(am[l], p.2.to_bits(), "fmin lane {l}");
        assert_eq!(am[32 + l], p.3.to_bits(), "fmax lane {l}");
        assert_eq!(cm[l], p.0.to_bits(), "returned old value lane {l}");
    }
    // f64: global_atomic_fmin_x2 with return.
    let code64 = [
        0x34020083, // v_lshlrev_b32_e32 v1, 3, v0
        0xdc348000, 0x02020001, // global_load_dwordx2 v[2:3], v1, s[2:3]
        0xbf8c3f70, // s_waitcnt vmcnt(0)
        0xdd7d8000, 0x04000201, // global_atomic_fmin_x2 v[4:5], v1, v[2:3], s[0:1] glc
        0xbf8c3f70, // s_waitcnt vmcnt(0)
        0xdc748000, 0x00040401, // global_store_dwordx2 v1, v[4:5], s[4:5]
        0xbf810000, // s_endpgm
    ];
    let a64: Vec<u8> = [1.5f64, -2.0, 0.0].iter().chain([0.0f64; 29].iter()).flat_map(|x| x.to_le_bytes()).collect();
    let b64: Vec<u8> = [2.5f64, -3.0, -0.0].iter().chain([0.0f64; 29].iter()).flat_map(|x| x.to_le_bytes()).collect();
    let mem = run(&code64, &sg, vec![(A, a64), (B, b64), (C, vec![0; 256])]).expect("runs");
    let d = |m: &[u8], i: usize| f64::from_le_bytes(m[8 * i..8 * i + 8].try_into().unwrap()).to_bits();
    assert_eq!([d(&mem.global[0].1, 0), d(&mem.global[0].1, 1), d(&mem.global[0].1, 2)], [1.5f64.to_bits(), (-3.0f64).to_bits(), (-0.0f64).to_bits()]);
    assert_eq!([d(&mem.global[2].1, 0), d(&mem.global[2].1, 1), d(&mem.global[2].1, 2)], [1.5f64.to_bits(), (-2.0f64).to_bits(), 0.0f64.to_bits()]);
}

#[test]
fn the_validator_rejects_malformed_waits() {
    use isabridge_ir::ops::control::{SyncOp, WaitKinds};
    use isabridge_ir::ops::Op;
    // s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0) ; s_endpgm
    let mut f = lift(Isa::Gfx1013, &bytes(&[0xbf8c0000, 0xbf810000]), 0, &Options::default()).expect("lifts");
    let v = f.insts.iter().find(|(_, i)| matches!(i.op, Op::Sync(SyncOp::Wait(_)))).map(|(v, _)| v).expect("a wait");
    let Op::Sync(SyncOp::Wait(mut wait)) = f.insts[v].op.clone() else { unreachable!() };
    // A used counter after an unused one, then an unused one with a count.
    wait.counters[0] = (WaitKinds(0), 0);
    f.insts[v].op = Op::Sync(SyncOp::Wait(wait));
    assert!(validate(&f).is_err());
    wait.counters = [(WaitKinds::LOAD, 1), (WaitKinds(0), 4), (WaitKinds(0), 0)];
    f.insts[v].op = Op::Sync(SyncOp::Wait(wait));
    assert!(validate(&f).is_err());
    // Unknown kinds do not parse.
    assert!(SyncOp::parse("wait", &["texture:0"]).is_none());
}

#[test]
fn wave64_bpermute_stays_within_its_half() {
    const OUT: u64 = 0x1_0000_0000;
    let code = [
        0x34020082, // v_lshlrev_b32_e32 v1, 2, v0
        0x4c0400bf, // v_sub_nc_u32_e32 v2, 63, v0
        0x34040482, // v_lshlrev_b32_e32 v2, 2, v2
        0xd5430003, 0x02051500, // v_mad_u32_u24 v3, v0, 10, 1
        0xdacc0000, 0x04000302, // ds_bpermute_b32 v4, v2, v3
        0xbf8cc07f, // s_waitcnt lgkmcnt(0)
        0xe0701000, 0x80000401, // buffer_store_dword v4, v1, s[0:3], 0 offen
        0xbf810000, // s_endpgm
    ];
    let opts = Options { wave64: true, user_sgprs: 4, vgpr_inputs: vec![SystemValue::LocalIdX], ..Options::default() };
    let f = lift(Isa::Gfx1013, &bytes(&code), 0, &opts).expect("lifts");
    validate(&f).expect("valid IR");
    let mut ins: Vec<Input> = vsharp(OUT, 256).into_iter().map(|w| Input::Uniform(w as u64)).collect();
    ins.push(Input::PerLane((0..64).collect()));
    let mem = Memory { global: vec![(OUT, vec![0; 256])], ..Memory::default() };
    let cfg = Config { wave_size: 64, ..Config::default() };
    let out = words(&interp::run(&f, &cfg, &ins, mem).expect("runs").memory.global[0].1);
    // Lane l asks for lane 63 - l; the index is taken modulo 32 within l's half, so lane l < 32
    // reads lane 31 - l and lane l >= 32 reads lane 95 - l (never the other half).
    for l in 0..64u32 {
        let src = if l < 32 { 31 - l } else { 95 - l };
        assert_eq!(out[l as usize], src * 10 + 1, "lane {l}");
    }
}
