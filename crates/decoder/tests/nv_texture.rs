//! Texture fetches (fixtures/nvidia/tex/texture.ptx, built for sm_50 and sm_86 with ptxas 12
//! by tools/build_tex_cubins.sh), lifted and run on the interpreter, against a model of
//! sampling a small texture: bilinear with clamp-to-edge in x and wrap in y, nearest with clamp
//! on a three-slice array, texel fetches, a red-channel gather and size queries. Each texture
//! handle is the address of its IR image descriptor followed by its sampler descriptor (the
//! binding `lift::sm86::tex` documents). The register layouts the lifter uses come from
//! tools/tex_layout.py; a wrong coordinate or result register shows here as a wrong word (u and
//! v differ on most threads, and every channel of every texel differs). The sampler's LOD range
//! is [0, 0], so the order of TXD's derivative registers does not show here (the LOD they give
//! is clamped to 0); that order rests on tools/tex_layout.py alone.
//! The model filters as the IR now defines sampling (`ops::sample`: positions with 8
//! fractional bits, lerps rounded in f32 along x, then y); it blended unquantized weights in
//! f64 while the interpreter did, and changed with that definition.

use isabridge_decoder::lift::sm86::{Options, SystemValue};
use isabridge_decoder::lift::{sm50, sm86};
use isabridge_decoder::Isa;
use isabridge_ir::interp::{run, Config, Input, Memory};
use isabridge_ir::Function;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Where constant bank 0 holds a target's launch values.
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

fn kernel(isa: Isa, target: &str, name: &str) -> (Function, Vec<u8>) {
    let bytes = std::fs::read(root().join(format!("fixtures/nvidia/tex/texture.{target}.cubin"))).unwrap();
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

/// IR formats (`isabridge_ir::ops::image::Format`).
const R32_FLOAT: u32 = 22;
const R32G32B32A32_FLOAT: u32 = 77;

/// A linear float texture with its sampler.
struct Texture {
    w: u32,
    h: u32,
    slices: u32,
    chans: u32,
    format: u32,
    /// Address modes of x and y (the IR S#'s: 0 wrap, 2 clamp to the last texel).
    modes: [u8; 2],
    linear: bool,
    texels: Vec<f32>,
}

impl Texture {
    /// A texture of `[width, height, slices]` whose channel values count up from `seed` by 0.75.
    fn new([w, h, slices]: [u32; 3], chans: u32, format: u32, modes: [u8; 2], linear: bool, seed: f32) -> Texture {
        let texels = (0..w * h * slices * chans).map(|k| seed + 0.75 * k as f32).collect();
        Texture { w, h, slices, chans, format, modes, linear, texels }
    }
    /// T# then S# (48 bytes) for a texture at `base`: one level, identity channel selects,
    /// linear layout; the sampler's LOD range is [0, 0].
    fn descriptors(&self, base: u64) -> Vec<u8> {
        let w1 = self.w - 1;
        let t = [
            (base >> 8) as u32,
            (base >> 40) as u32 & 0xff | self.format << 20 | (w1 & 3) << 30,
            (w1 >> 2) & 0xfff | (self.h - 1) << 14,
            4 | 5 << 3 | 6 << 6 | 7 << 9,
            self.slices - 1,
            0,
            0,
            0,
        ];
        let lin = self.linear as u32;
        let s = [self.modes[0] as u32 | (self.modes[1] as u32) << 3 | 2 << 6, 0, lin << 20 | lin << 22, 0];
        t.iter().chain(s.iter()).flat_map(|w| w.to_le_bytes()).collect()
    }
    fn bytes(&self) -> Vec<u8> {
        self.texels.iter().flat_map(|v| v.to_le_bytes()).collect()
    }
    /// The four channels of texel (x, y) of `slice` (missing channels 0, w 1), after the
    /// address modes.
    fn texel(&self, x: i64, y: i64, slice: u32) -> [f64; 4] {
        let wrap = |m: u8, i: i64, n: u32| if m == 0 { i.rem_euclid(n as i64) } else { i.clamp(0, n as i64 - 1) };
        let (x, y) = (wrap(self.modes[0], x, self.w), wrap(self.modes[1], y, self.h));
        let at = (((slice * self.h) as i64 + y) * self.w as i64 + x) as usize * self.chans as usize;
        let mut v = [0.0, 0.0, 0.0, 1.0];
        for (c, x) in v.iter_mut().enumerate().take(self.chans as usize) {
            *x = self.texels[at + c] as f64;
        }
        v
    }
    /// The texel-space position of normalized `s` on an axis of `n` texels in 8-bit fixed
    /// point, as CUDA's "Texture Fetching" appendix gives it and the IR defines it
    /// (`ops::sample`): `floor(256 × (s × n)) - 128`, `s × n` rounded to f32.
    fn axis(s: f32, n: u32) -> i64 {
        ((s * n as f32) as f64 * 256.0).floor() as i64 - 128
    }
    /// One lerp as the IR defines it: `v0` for a zero weight, else each product and the sum
    /// rounded to f32 (the host's f32 arithmetic is that rounding).
    fn lerp(v0: f32, v1: f32, a: i64) -> f32 {
        if a == 0 {
            return v0;
        }
        v0 * ((256 - a) as f32 / 256.0) + v1 * (a as f32 / 256.0)
    }
    /// Filtered fetch at normalized (s, t): nearest, or bilinear with 8-bit weights, lerped in
    /// f32 along x, then y.
    fn sample(&self, s: f32, t: f32, slice: u32) -> [f32; 4] {
        let (u, v) = (Self::axis(s, self.w), Self::axis(t, self.h));
        let tx = |i: i64, j: i64| self.texel(i, j, slice).map(|x| x as f32);
        if !self.linear {
            return tx((u + 128) >> 8, (v + 128) >> 8);
        }
        let (i0, j0, a, b) = (u >> 8, v >> 8, u & 255, v & 255);
        let row = |j: i64| {
            let (x0, x1) = (tx(i0, j), tx(i0 + 1, j));
            [0, 1, 2, 3].map(|c| Self::lerp(x0[c], x1[c], a))
        };
        let (r0, r1) = (row(j0), row(j0 + 1));
        [0, 1, 2, 3].map(|c| Self::lerp(r0[c], r1[c], b))
    }
    /// Channel `c` of the four bilinear texels around (s, t), in PTX's `tld4` order
    /// (u0, v1), (u1, v1), (u1, v0), (u0, v0).
    fn gather(&self, s: f32, t: f32, c: usize) -> [f32; 4] {
        let (i0, j0) = (Self::axis(s, self.w) >> 8, Self::axis(t, self.h) >> 8);
        [(i0, j0 + 1), (i0 + 1, j0 + 1), (i0 + 1, j0), (i0, j0)].map(|(i, j)| self.texel(i, j, 0)[c] as f32)
    }
}

const TEX: u64 = 0x10_0000;
const DESC: u64 = 0x1000;
const OUT: u64 = 0x2_0000_0000;

fn launch(f: &Function, bank2: &[u8], lay: &Layout, threads: u32, textures: &[&Texture]) -> Memory {
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
    for (k, t) in textures.iter().enumerate() {
        let base = TEX + 0x1_0000 * k as u64;
        descs.extend(t.descriptors(base));
        global.push((base, t.bytes()));
        put(&mut cb0, lay.params + 8 + 8 * k, &(DESC + 48 * k as u64).to_le_bytes());
    }
    global.push((DESC, descs));
    global.push((OUT, vec![0; threads as usize * 96]));
    let mem = Memory { global, constant: vec![cb0, Vec::new(), bank2.to_vec()], shared: vec![] };
    let cfg = Config { wave_size: 32, waves: threads.div_ceil(32), scratch_bytes: 1024, ..Config::default() };
    let mut inputs: Vec<Input> = SystemValue::ALL.iter().map(|_| Input::Uniform(0)).collect();
    inputs[SystemValue::TidX.param() as usize] = Input::PerLane((0..threads as u64).collect());
    run(f, &cfg, &inputs, mem).unwrap().memory
}

#[test]
fn texture_fetches_match_model() {
    for (isa, target, lay) in &TARGETS {
        texture_fetches(*isa, target, lay);
    }
}

fn texture_fetches(isa: Isa, target: &str, lay: &Layout) {
    let t2 = Texture::new([4, 3, 1], 4, R32G32B32A32_FLOAT, [2, 0], true, 1.0);
    let ta = Texture::new([4, 3, 3], 1, R32_FLOAT, [2, 2], false, 100.0);
    let (f, bank2) = kernel(isa, target, "tex");
    let mem = launch(&f, &bank2, lay, 64, &[&t2, &ta]);
    let out: Vec<u32> = mem.global.iter().find(|(a, _)| *a == OUT).unwrap().1.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    for i in 0..64u32 {
        // the kernel's coordinates: fma.rn.f32 of (i & 7, i >> 3) with 0.15625, -0.1 and 0.17, -0.2
        let u = ((i & 7) as f32).mul_add(f32::from_bits(0x3E20_0000), f32::from_bits(0xBDCC_CCCD));
        let v = ((i >> 3) as f32).mul_add(f32::from_bits(0x3E2E_147B), f32::from_bits(0xBE4C_CCCD));
        let level0 = t2.sample(u, v, 0);
        let swapped = t2.sample(v, u, 0);
        let fetch = t2.texel((i & 3) as i64, ((i >> 3) % 3) as i64, 0).map(|x| x as f32);
        let red = t2.gather(u, v, 0);
        let array = ta.sample(u, v, (i & 3).min(2));
        let mut want: Vec<u32> = Vec::new();
        want.extend(level0.map(f32::to_bits));
        want.extend([swapped[1], swapped[3], fetch[0], fetch[1]].map(f32::to_bits));
        want.extend([fetch[2], fetch[3], red[0], red[1]].map(f32::to_bits));
        want.extend([red[2], red[3], array[0], array[3]].map(f32::to_bits));
        want.extend(level0.map(f32::to_bits));
        want.extend([4, 3, 1, i]);
        let got = &out[24 * i as usize..24 * i as usize + 24];
        assert_eq!(got, &want[..], "{target} thread {i} (u {u}, v {v})");
    }
}
