//! Surface loads, stores and reductions (fixtures/nvidia/tex/surface.ptx, built for sm_50 and sm_86
//! with ptxas 12 by tools/build_tex_cubins.sh), lifted and run on the interpreter, against a model
//! of PTX's definitions of `suld.b` / `sust.b` / `sured.b` with `.zero`, `.clamp` and `.trap`
//! on small linear surfaces. Each surface handle is the address of its IR image descriptor
//! (the binding `lift::sm86::surface` documents).

use isabridge_decoder::lift::sm86::{Options, SystemValue, SURFACE_TRAP};
use isabridge_decoder::lift::{sm50, sm86};
use isabridge_decoder::Isa;
use isabridge_ir::interp::{run, Config, Input, InterpError, Memory};
use isabridge_ir::Function;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Where constant bank 0 holds a target's launch values: ntid, nctaid, the stack top, the
/// first parameter.
struct Layout {
    ntid: usize,
    nctaid: usize,
    stack: usize,
    params: usize,
}

const TARGETS: [(Isa, &str, Layout); 2] = [
    (Isa::Sm86, "sm86", Layout { ntid: 0x0, nctaid: 0xc, stack: 0x28, params: 0x160 }),
    (Isa::Sm50, "sm50", Layout { ntid: 0x8, nctaid: 0x14, stack: 0x20, params: 0x140 }),
];

/// The lifted kernel `name` of a target's surface cubin, and its constant bank 2 (ptxas's
/// constants).
fn kernel(isa: Isa, target: &str, name: &str) -> (Function, Vec<u8>) {
    let bytes = std::fs::read(root().join(format!("fixtures/nvidia/tex/surface.{target}.cubin"))).unwrap();
    let (_, sections) = isabridge_decoder::elf::parse(&bytes).unwrap();
    let sec = sections.iter().find(|s| s.name == format!(".text.{name}")).unwrap();
    let kernels = isabridge_decoder::elf::nvinfo::cuda_kernels(&bytes).unwrap();
    let bank2 = kernels.iter().find(|k| k.name == name).and_then(|k| k.constant_banks.iter().find(|(n, _)| *n == 2)).map(|(_, b)| b.clone()).unwrap_or_default();
    let f = match isa {
        Isa::Sm50 => sm50::lift(isa, sec.data, 0, &Options::default()).unwrap(),
        _ => sm86::lift(isa, sec.data, 0, &Options::default()).unwrap(),
    };
    (f, bank2)
}

/// IR image formats used here (gfx10 numbers, `isabridge_ir::ops::image::Format`).
const R8_UINT: u32 = 5;
const R32_UINT: u32 = 20;
const R32_SINT: u32 = 21;
const R32G32_UINT: u32 = 62;
const R32G32B32A32_UINT: u32 = 75;

/// A linear surface: its shape, IR format, texel bytes and contents.
struct Surface {
    w: u32,
    h: u32,
    d: u32,
    format: u32,
    bytes: u32,
    data: Vec<u8>,
}

impl Surface {
    fn new(w: u32, h: u32, d: u32, format: u32, bytes: u32, fill: impl Fn(usize) -> u8) -> Surface {
        Surface { w, h, d, format, bytes, data: (0..(w * h * d * bytes) as usize).map(fill).collect() }
    }
    /// The IR descriptor (T#) of the surface at `base`: base, format, sizes, identity
    /// channel selects, one level, linear.
    fn descriptor(&self, base: u64) -> [u8; 32] {
        let (w1, h1, d1) = (self.w - 1, self.h - 1, self.d - 1);
        let words = [
            (base >> 8) as u32,
            (base >> 40) as u32 & 0xff | self.format << 20 | (w1 & 3) << 30,
            (w1 >> 2) & 0xfff | h1 << 14,
            4 | 5 << 3 | 6 << 6 | 7 << 9,
            d1,
            0,
            0,
            0,
        ];
        let mut b = [0u8; 32];
        for (k, w) in words.iter().enumerate() {
            b[4 * k..4 * k + 4].copy_from_slice(&w.to_le_bytes());
        }
        b
    }
    /// 32-bit word `k` of texel (x, y, z), or None outside.
    fn word(&self, x: i64, y: i64, z: i64, k: u32) -> Option<u32> {
        if x < 0 || y < 0 || z < 0 || x >= self.w as i64 || y >= self.h as i64 || z >= self.d as i64 {
            return None;
        }
        let at = (((z * self.h as i64 + y) * self.w as i64 + x) as u32 * self.bytes + 4 * k) as usize;
        Some(u32::from_le_bytes(self.data[at..at + 4].try_into().unwrap()))
    }
    fn byte(&self, x: i64, y: i64) -> Option<u32> {
        (x >= 0 && y >= 0 && x < self.w as i64 && y < self.h as i64).then(|| self.data[(y * self.w as i64 + x) as usize] as u32)
    }
    fn put(&mut self, x: i64, y: i64, k: u32, v: u32) {
        if self.word(x, y, 0, k).is_some() {
            let at = ((y * self.w as i64 + x) as u32 * self.bytes + 4 * k) as usize;
            self.data[at..at + 4].copy_from_slice(&v.to_le_bytes());
        }
    }
}

const DESC: u64 = 0x1000;
const SURF: u64 = 0x10_0000;
const OUT: u64 = 0x2_0000_0000;

/// Run `f` as one block of `threads` with these surfaces (handles first in the parameters),
/// then `tail` more parameter bytes; the memory afterwards.
fn launch(f: &Function, bank2: &[u8], lay: &Layout, threads: u32, surfaces: &[&Surface], tail: &[u8]) -> Result<Memory, InterpError> {
    let mut cb0 = vec![0u8; 0x200];
    let put = |cb: &mut Vec<u8>, at: usize, v: &[u8]| cb[at..at + v.len()].copy_from_slice(v);
    put(&mut cb0, lay.ntid, &threads.to_le_bytes());
    put(&mut cb0, lay.ntid + 4, &1u32.to_le_bytes());
    put(&mut cb0, lay.ntid + 8, &1u32.to_le_bytes());
    for k in 0..3 {
        put(&mut cb0, lay.nctaid + 4 * k, &1u32.to_le_bytes());
    }
    put(&mut cb0, lay.stack, &1024u32.to_le_bytes());
    put(&mut cb0, lay.params, &OUT.to_le_bytes());
    let mut descs = Vec::new();
    let mut global = Vec::new();
    for (k, s) in surfaces.iter().enumerate() {
        let base = SURF + 0x1_0000 * k as u64;
        descs.extend(s.descriptor(base));
        global.push((base, s.data.clone()));
        put(&mut cb0, lay.params + 8 + 8 * k, &(DESC + 32 * k as u64).to_le_bytes());
    }
    put(&mut cb0, lay.params + 8 + 8 * surfaces.len(), tail);
    global.push((DESC, descs));
    global.push((OUT, vec![0; threads as usize * 48]));
    let mem = Memory { global, constant: vec![cb0, Vec::new(), bank2.to_vec()], shared: vec![] };
    let cfg = Config { wave_size: 32, waves: threads.div_ceil(32), scratch_bytes: 1024, ..Config::default() };
    let mut inputs: Vec<Input> = SystemValue::ALL.iter().map(|_| Input::Uniform(0)).collect();
    inputs[SystemValue::TidX.param() as usize] = Input::PerLane((0..threads as u64).collect());
    Ok(run(f, &cfg, &inputs, mem)?.memory)
}

fn words(mem: &Memory, base: u64) -> Vec<u32> {
    let b = &mem.global.iter().find(|(a, _)| *a == base).unwrap().1;
    b.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

fn pattern(k: usize) -> u8 {
    (k as u8).wrapping_mul(37).wrapping_add(11)
}

#[test]
fn surface_ops_match_ptx() {
    for (isa, target, lay) in &TARGETS {
        surface_ops(*isa, target, lay);
    }
}

fn surface_ops(isa: Isa, target: &str, lay: &Layout) {
    let s1 = Surface::new(48, 1, 1, R32_UINT, 4, pattern);
    let s2 = Surface::new(6, 5, 1, R32G32_UINT, 8, |k| pattern(k + 1000));
    let s3 = Surface::new(3, 2, 4, R32G32B32A32_UINT, 16, |k| pattern(k + 2000));
    let s8 = Surface::new(7, 3, 1, R8_UINT, 1, |k| pattern(k + 3000));
    let mut sw = Surface::new(40, 1, 1, R32_UINT, 4, |_| 0xab);
    let mut sw2 = Surface::new(6, 5, 1, R32G32_UINT, 8, |_| 0);
    let mut sr = Surface::new(8, 1, 1, R32_UINT, 4, |k| if k % 4 == 0 { k as u8 } else { 0 });
    let mut sr2 = Surface::new(6, 3, 1, R32_SINT, 4, |k| if k % 4 == 0 { 50 } else { 0 });
    let v = 0x1234_5678u32;
    let (f, bank2) = kernel(isa, target, "surf");
    let mem = launch(&f, &bank2, lay, 64, &[&s1, &s2, &s3, &s8, &sw, &sw2, &sr, &sr2], &v.to_le_bytes()).unwrap();
    let out = words(&mem, OUT);
    for i in 0..64i64 {
        let x1 = i - 4;
        let (x2, y2) = (i % 8, i / 8 - 1);
        let (x3, y3, z3) = (i % 4, i / 4 % 2, i / 8 - 2);
        let c = |v: i64, n: u32| v.clamp(0, n as i64 - 1);
        let want = [
            s1.word(x1, 0, 0, 0).unwrap_or(0),
            s1.word(c(x1, 48), 0, 0, 0).unwrap(),
            s2.word(x2, y2, 0, 0).unwrap_or(0),
            s2.word(x2, y2, 0, 1).unwrap_or(0),
            s2.word(c(x2, 6), c(y2, 5), 0, 0).unwrap(),
            s2.word(c(x2, 6), c(y2, 5), 0, 1).unwrap(),
            s3.word(x3, y3, z3, 0).unwrap_or(0),
            s3.word(x3, y3, z3, 1).unwrap_or(0),
            s3.word(x3, y3, z3, 2).unwrap_or(0),
            s3.word(x3, y3, z3, 3).unwrap_or(0),
            s8.byte(i % 9, i / 9).unwrap_or(0),
            i as u32,
        ];
        assert_eq!(&out[12 * i as usize..12 * i as usize + 12], &want, "{target} thread {i}");
        let d = (i as u32).wrapping_mul(3).wrapping_add(v);
        sw.put(x1, 0, 0, d);
        sw2.put(x2, y2, 0, d);
        sw2.put(x2, y2, 1, i as u32);
        let a = sr.word(i % 8, 0, 0, 0).unwrap();
        sr.put(i % 8, 0, 0, a.wrapping_add(i as u32));
        let (xr, yr) = (c(i % 8 - 2, 6), c(i / 16, 3));
        let m = sr2.word(xr, yr, 0, 0).unwrap() as i32;
        sr2.put(xr, yr, 0, m.min(100 - 7 * i as i32) as u32);
    }
    for (k, s) in [(4, &sw), (5, &sw2), (6, &sr), (7, &sr2)] {
        assert_eq!(mem.global.iter().find(|(a, _)| *a == SURF + 0x1_0000 * k).unwrap().1, s.data, "{target} surface {k}");
    }
}

#[test]
fn trap_mode_traps_out_of_range() {
    for (isa, target, lay) in &TARGETS {
        trap_mode(*isa, target, lay);
    }
}

fn trap_mode(isa: Isa, target: &str, lay: &Layout) {
    let s1 = Surface::new(48, 1, 1, R32_UINT, 4, pattern);
    let (f, bank2) = kernel(isa, target, "surf_trap");
    let mem = launch(&f, &bank2, lay, 32, &[&s1], &0u32.to_le_bytes()).unwrap();
    let out = words(&mem, OUT);
    for (i, o) in out.iter().take(32).enumerate() {
        assert_eq!(*o, s1.word(i as i64, 0, 0, 0).unwrap(), "{target} thread {i}");
    }
    // texels 20..51: the last four are past the width of 48
    match launch(&f, &bank2, lay, 32, &[&s1], &20u32.to_le_bytes()) {
        Err(InterpError::Trap(c)) => assert_eq!(c, SURFACE_TRAP),
        other => panic!("{target}: expected a trap, got {:?}", other.map(|_| ())),
    }
}

/// IR format R8G8B8A8_UNORM.
const R8G8B8A8_UNORM: u32 = 56;

#[test]
fn formatted_stores_match_ptx() {
    for (isa, target, lay) in &TARGETS {
        formatted_stores(*isa, target, lay);
    }
}

/// `sust.p`: four float channels into an 8-bit UNORM texel (each converted as the IR's store
/// converts: clamped to [0, 1], times 255, rounded to nearest even) and one integer into a
/// 32-bit UINT element, at element (not byte) coordinates.
fn formatted_stores(isa: Isa, target: &str, lay: &Layout) {
    let s4 = Surface::new(4, 8, 1, R8G8B8A8_UNORM, 4, |_| 0x5a);
    let s1 = Surface::new(28, 1, 1, R32_UINT, 4, |_| 0xcd);
    let (f, bank2) = kernel(isa, target, "surf_p");
    let mem = launch(&f, &bank2, lay, 32, &[&s4, &s1], &[]).unwrap();
    let unorm = |x: f32| (x.clamp(0.0, 1.0) as f64 * 255.0).round_ties_even() as u8;
    let mut want4 = s4.data.clone();
    let mut want1 = s1.data.clone();
    for i in 0..32u32 {
        let fi = i as f32;
        let a = fi.mul_add(f32::from_bits(0x3D80_0000), f32::from_bits(0xBE4C_CCCD));
        let b = fi.mul_add(f32::from_bits(0xBD4C_CCCD), f32::from_bits(0x3FA6_6666));
        let c = fi * f32::from_bits(0x3C49_85F0);
        let at = 4 * i as usize;
        want4[at..at + 4].copy_from_slice(&[unorm(a), unorm(b), unorm(c), unorm(0.5)]);
        if i >= 4 {
            let at = 4 * (i as usize - 4);
            want1[at..at + 4].copy_from_slice(&(7 * i).to_le_bytes());
        }
    }
    let got = |k: u64| mem.global.iter().find(|(a, _)| *a == SURF + 0x1_0000 * k).unwrap().1.clone();
    assert_eq!(got(0), want4, "{target} UNORM surface");
    assert_eq!(got(1), want1, "{target} UINT surface");
}
