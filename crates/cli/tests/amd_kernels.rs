//! Kernel-level truth: compute kernels of fixtures/amd (gfx1013 wave32 and wave64, gfx1201
//! wave32) run by `isabridge run --via interp` (and the gfx1013 ones again `--via gfx1201`:
//! translated, then lifted with late-arriving memory; and every one again `--via spirv`:
//! translated to SPIR-V and run on Vulkan, lavapipe here) (lifted, arguments laid out from the
//! code object's metadata, a grid of workgroups) write exactly what a Rust model of each
//! kernel's source computes, on random inputs from fixed seeds.
//!
//! The OpenCL kernels compute `i = get_group_id(0) * 256 + get_local_id(0)`; the runs use
//! 2 workgroups of 96 work-items (a wave64 workgroup then ends in a half-full wave), so they
//! write indices 0..96 and 256..352 and the model says the rest of the output stays zero.
//! Float inputs are normal numbers far from overflow and underflow, so no result depends on
//! the denormal mode; where clang contracts `x * y + x` into one fused multiply-add the model
//! fuses too (OpenCL allows the contraction; the kernel's code does it).

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// splitmix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// A float in ±[0.01, 100).
    fn float(&mut self) -> f64 {
        let m = 0.01 + (self.next() >> 11) as f64 / (1u64 << 53) as f64 * 99.99;
        if self.next() & 1 != 0 {
            -m
        } else {
            m
        }
    }
}

/// An element type of a buffer.
trait Elem: Copy + PartialEq + std::fmt::Debug {
    const SIZE: usize;
    fn put(self, out: &mut Vec<u8>);
    fn get(b: &[u8]) -> Self;
    fn random(r: &mut Rng) -> Self;
}

macro_rules! int_elem {
    ($t:ty) => {
        impl Elem for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn put(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(b: &[u8]) -> Self {
                <$t>::from_le_bytes(b[..Self::SIZE].try_into().unwrap())
            }
            fn random(r: &mut Rng) -> Self {
                r.next() as $t
            }
        }
    };
}
int_elem!(i32);
int_elem!(u32);
int_elem!(i64);
int_elem!(u64);

impl Elem for f32 {
    const SIZE: usize = 4;
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_bits().to_le_bytes());
    }
    fn get(b: &[u8]) -> Self {
        f32::from_bits(u32::get(b))
    }
    fn random(r: &mut Rng) -> Self {
        r.float() as f32
    }
}

impl Elem for f64 {
    const SIZE: usize = 8;
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_bits().to_le_bytes());
    }
    fn get(b: &[u8]) -> Self {
        f64::from_bits(u64::get(b))
    }
    fn random(r: &mut Rng) -> Self {
        r.float()
    }
}

fn bytes<T: Elem>(v: &[T]) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.len() * T::SIZE);
    v.iter().for_each(|x| x.put(&mut out));
    out
}

/// A kernel argument.
enum Arg {
    Buf(Vec<u8>),
    Zeros(usize),
    Val(&'static str, u64),
}

/// Run `kernel` of `fixtures/amd/bin/<obj>.o`; the bytes of every buffer argument afterwards
/// (None for value arguments).
fn run(obj: &str, kernel: &str, grid: &str, block: &str, args: &[Arg]) -> Result<Vec<Option<Vec<u8>>>, String> {
    // `OBJECT@gfx1201`: the gfx1013 object run `--via gfx1201` (translated, late memory);
    // `OBJECT@spirv`: run `--via spirv` (SPIR-V on Vulkan).
    let (obj, via) = obj.split_once('@').unwrap_or((obj, "interp"));
    let dir = std::env::temp_dir().join(format!("isabridge-amd-kernels-{}-{obj}-{via}-{kernel}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_isabridge"));
    cmd.arg("run").arg(root().join(format!("fixtures/amd/bin/{obj}.o"))).args(["--via", via, "--kernel", kernel]);
    cmd.args(["--grid", grid, "--block", block]);
    for (i, a) in args.iter().enumerate() {
        let s = match a {
            Arg::Buf(b) => {
                let p = dir.join(format!("in{i}.bin"));
                std::fs::write(&p, b).map_err(|e| e.to_string())?;
                format!("buf={}", p.display())
            }
            Arg::Zeros(n) => format!("zeros={n}"),
            Arg::Val(k, v) => format!("{k}={v}"),
        };
        cmd.arg("--arg").arg(s);
    }
    cmd.arg("--out").arg(dir.join("out"));
    let o = cmd.output().map_err(|e| e.to_string())?;
    if !o.status.success() {
        return Err(String::from_utf8_lossy(&o.stderr).trim().to_string());
    }
    let mut res = Vec::new();
    for (i, a) in args.iter().enumerate() {
        res.push(match a {
            Arg::Val(..) => None,
            _ => Some(std::fs::read(dir.join(format!("out/arg{i}.bin"))).map_err(|e| e.to_string())?),
        });
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(res)
}

/// The work-item indices the OpenCL kernels compute for 2 workgroups of 96.
fn tids() -> impl Iterator<Item = usize> {
    (0..2).flat_map(|g| (0..96).map(move |l| g * 256 + l))
}

const N: usize = 512;

/// `out[i] = f(a[i], b[i])` for the kernels `kernel(global T *out, global const T *a, global
/// const T *b)`.
fn binop<T: Elem, U: Elem>(obj: &str, kernel: &str, seed: u64, f: impl Fn(T, T) -> U) -> Result<(), String> {
    let mut r = Rng(seed);
    let a: Vec<T> = (0..N).map(|_| T::random(&mut r)).collect();
    let b: Vec<T> = (0..N).map(|_| T::random(&mut r)).collect();
    let res = run(obj, kernel, "2", "96", &[Arg::Zeros(N * U::SIZE), Arg::Buf(bytes(&a)), Arg::Buf(bytes(&b))])?;
    let got = res[0].clone().unwrap_or_default();
    let mut want = vec![0u8; N * U::SIZE];
    for i in tids() {
        let mut e = Vec::new();
        f(a[i], b[i]).put(&mut e);
        want[i * U::SIZE..(i + 1) * U::SIZE].copy_from_slice(&e);
    }
    compare::<U>(&got, &want)
}

fn compare<U: Elem>(got: &[u8], want: &[u8]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("output is {} bytes, expected {}", got.len(), want.len()));
    }
    let bad: Vec<usize> = (0..want.len() / U::SIZE).filter(|i| got[i * U::SIZE..(i + 1) * U::SIZE] != want[i * U::SIZE..(i + 1) * U::SIZE]).collect();
    match bad.first() {
        None => Ok(()),
        Some(&i) => Err(format!(
            "{} of {} elements differ; first at {i}: got {:?}, expected {:?}",
            bad.len(),
            want.len() / U::SIZE,
            U::get(&got[i * U::SIZE..]),
            U::get(&want[i * U::SIZE..])
        )),
    }
}

/// `out[0..26]` of `scalar_ops(global int *out, int a, int b, uint c, long d, ulong e)`.
fn scalar_ops(obj: &str, seed: u64) -> Result<(), String> {
    let mut r = Rng(seed);
    let (a, b, c) = (r.next() as i32, r.next() as i32, r.next() as u32);
    let (d, e) = (r.next() as i64, r.next());
    let args = [
        Arg::Zeros(32 * 4),
        Arg::Val("i32", a as u32 as u64),
        Arg::Val("i32", b as u32 as u64),
        Arg::Val("u32", c as u64),
        Arg::Val("u64", d as u64),
        Arg::Val("u64", e),
    ];
    let res = run(obj, "scalar_ops", "1", "1", &args)?;
    let s = (b & 31) as u32;
    let mut o = [0i32; 32];
    o[0] = a.wrapping_add(b);
    o[1] = a.wrapping_sub(b);
    o[2] = a.wrapping_mul(b);
    o[3] = a & b;
    o[4] = a | b;
    o[5] = a ^ b;
    o[6] = a << s;
    o[7] = a >> s;
    o[8] = (c >> s) as i32;
    o[9] = a.min(b);
    o[10] = c.max(b as u32) as i32;
    o[11] = !(a & b);
    o[12] = d.wrapping_mul(e as i64) as i32;
    o[13] = (d >> 13) as i32;
    o[14] = ((e >> 17) as i32).wrapping_add((d << 5) as i32);
    o[15] = c.count_ones() as i32;
    o[16] = if c != 0 { c.leading_zeros() as i32 } else { 0 };
    o[17] = ((c >> 3) & 0x7f) as i32;
    o[18] = c.reverse_bits() as i32;
    o[19] = (e.count_ones() + if e != 0 { e.trailing_zeros() } else { 0 }) as i32;
    o[20] = if a == b { 5 } else if a as u32 > c { 9 } else { 11 };
    o[21] = d.wrapping_div((e | 1) as i64) as i32;
    o[22] = ((d as u64) % (e | 1)) as i32;
    o[23] = a.wrapping_div(b | 1);
    o[24] = (c / (b as u32 | 1)) as i32;
    o[25] = ((d ^ e as i64) as i32) | (((d & e as i64) >> 32) as i32);
    compare::<i32>(&res[0].clone().unwrap_or_default(), &bytes(&o))
}

/// `lds_reduce(global float *out, global const float *in)`: a tree sum of each workgroup's 256
/// inputs in LDS, barriers between the steps.
fn lds_reduce(obj: &str, seed: u64) -> Result<(), String> {
    let mut r = Rng(seed);
    let x: Vec<f32> = (0..512).map(|_| f32::random(&mut r)).collect();
    let res = run(obj, "lds_reduce", "2", "256", &[Arg::Zeros(2 * 4), Arg::Buf(bytes(&x))])?;
    let mut want = Vec::new();
    for g in 0..2 {
        let mut s: Vec<f32> = x[g * 256..(g + 1) * 256].to_vec();
        let mut stride = 128;
        while stride > 0 {
            for l in 0..stride {
                s[l] += s[l + stride];
            }
            stride >>= 1;
        }
        want.push(s[0]);
    }
    compare::<f32>(&res[0].clone().unwrap_or_default(), &bytes(&want))
}

/// `particles(Particle *p, float *out, int n)` of hip_control.hip: a loop over all particles
/// calling the non-inlined `dist2` (flat loads), with `continue` and a data-dependent `break`.
/// `dist2` as compiled: `fma(dz, dz, fma(dx, dx, dy * dy))` (HIP contracts by default).
fn particles(obj: &str, seed: u64) -> Result<(), String> {
    const SIZE: usize = 24; // x y z w (f32), id (i32), flags (i16), kind (i8), padding
    let n = 300usize;
    let mut r = Rng(seed);
    let mut p = vec![0u8; N * SIZE];
    for k in 0..N {
        let e = &mut p[k * SIZE..(k + 1) * SIZE];
        for c in 0..4 {
            e[4 * c..4 * c + 4].copy_from_slice(&(r.float() as f32).to_bits().to_le_bytes());
        }
        e[16..20].copy_from_slice(&(k as u32).to_le_bytes());
        let flags: u16 = if r.next().is_multiple_of(40) { 4 } else { (r.next() as u16) & !4 };
        e[20..22].copy_from_slice(&flags.to_le_bytes());
        e[22] = r.next() as u8;
    }
    let f = |k: usize, c: usize| f32::from_le_bytes(p[k * SIZE + 4 * c..k * SIZE + 4 * c + 4].try_into().unwrap());
    let res = run(obj, "_Z9particlesP8ParticlePfi", "2", "96", &[Arg::Buf(p.clone()), Arg::Zeros(N * 4), Arg::Val("i32", n as u64)])?;
    let mut want = vec![0f32; N];
    for i in tids().filter(|i| *i < n) {
        let mut best = 1e30f32;
        for j in 0..n {
            if j == i {
                continue;
            }
            let (dx, dy, dz) = (f(i, 0) - f(j, 0), f(i, 1) - f(j, 1), f(i, 2) - f(j, 2));
            let d = dz.mul_add(dz, dx.mul_add(dx, dy * dy));
            if d < best {
                best = d;
            }
            if p[j * SIZE + 20] & 4 != 0 {
                break;
            }
        }
        want[i] = best + p[i * SIZE + 22] as i8 as f32;
    }
    compare::<f32>(&res[1].clone().unwrap_or_default(), &bytes(&want))
}

/// `indirect_calls(int *out, const int *a, const int *b)` of hip_control.hip: a function
/// pointer chosen per work-item among three non-inlined functions.
fn indirect_calls(obj: &str, seed: u64) -> Result<(), String> {
    let mut r = Rng(seed);
    let a: Vec<i32> = (0..N).map(|_| r.next() as i32).collect();
    let b: Vec<i32> = (0..N).map(|_| r.next() as i32).collect();
    let res = run(obj, "_Z14indirect_callsPiPKiS1_", "2", "96", &[Arg::Zeros(N * 4), Arg::Buf(bytes(&a)), Arg::Buf(bytes(&b))])?;
    let mut want = vec![0i32; N];
    for i in tids() {
        let (x, y) = (a[i], b[i]);
        want[i] = if x & 1 != 0 {
            x.wrapping_add(y)
        } else if x & 2 != 0 {
            x.wrapping_mul(y)
        } else {
            x.max(y)
        };
    }
    compare::<i32>(&res[0].clone().unwrap_or_default(), &bytes(&want))
}

/// `switches(int *data, int n)` of hip_control.hip: a switch in a non-inlined function, a
/// dense switch in the kernel, a loop in another function and the recursive `fib`.
fn switches(obj: &str, seed: u64) -> Result<(), String> {
    let mut r = Rng(seed);
    let data: Vec<i32> = (0..N).map(|_| r.next() as i32).collect();
    let res = run(obj, "_Z8switchesPii", "2", "96", &[Arg::Buf(bytes(&data)), Arg::Val("i32", N as u64)])?;
    let classify = |v: i32| match v & 15 {
        0 => v.wrapping_mul(3),
        1 => v.wrapping_add(100),
        2 => v ^ 0x5a5a,
        3 => v.wrapping_neg(),
        4 => v >> 2,
        5 => v.wrapping_shl(3),
        7 => v.wrapping_mul(v),
        9 => v / 7,
        11 => v % 13,
        12 => !v,
        _ => 0,
    };
    let collatz = |mut n: u32| {
        let mut steps = 0u32;
        while n != 1 && steps < 1000 {
            n = if n & 1 != 0 { n.wrapping_mul(3).wrapping_add(1) } else { n >> 1 };
            steps += 1;
        }
        steps
    };
    fn fib(n: i32) -> i32 {
        if n < 2 {
            n
        } else {
            fib(n - 1) + fib(n - 2)
        }
    }
    let mut want = data.clone();
    for i in tids() {
        let v = data[i];
        let mut acc = classify(v);
        match v >> 4 & 7 {
            0 => acc = acc.wrapping_add(1),
            1 => acc = acc.wrapping_mul(2),
            2 => acc = acc.wrapping_sub(7) ^ 3,
            3 => acc ^= 3,
            5 => acc /= 3,
            _ => acc = 0,
        }
        want[i] = acc.wrapping_add(collatz(v as u32 | 1) as i32).wrapping_add(fib(v & 7));
    }
    compare::<i32>(&res[0].clone().unwrap_or_default(), &bytes(&want))
}

type Case = (&'static str, &'static str, fn(&str, u64) -> Result<(), String>);

/// Every case: (object, kernel, check).
fn cases() -> Vec<Case> {
    macro_rules! bin {
        ($obj:expr, $k:expr, $t:ty, $f:expr) => {
            ($obj, $k, |o: &str, s: u64| binop::<$t, $t>(o, $k, s, $f))
        };
    }
    const W32: &str = "cl_math.gfx1013-w32";
    const W64: &str = "cl_math.gfx1013-w64";
    vec![
        bin!(W32, "int_add", i32, |x: i32, y: i32| x.wrapping_add(y)),
        bin!(W32, "int_sub", i32, |x: i32, y: i32| x.wrapping_sub(y)),
        bin!(W32, "int_mul", i32, |x: i32, y: i32| x.wrapping_mul(y)),
        bin!(W32, "int_and", i32, |x: i32, y: i32| x & y),
        bin!(W32, "int_or", i32, |x: i32, y: i32| x | y),
        bin!(W32, "int_xor", i32, |x: i32, y: i32| x ^ y),
        bin!(W32, "int_shl", i32, |x: i32, y: i32| x << (y & 31)),
        bin!(W32, "int_shr", i32, |x: i32, y: i32| x >> (y & 31)),
        bin!(W32, "uint_shr", u32, |x: u32, y: u32| x >> (y & 31)),
        bin!(W32, "int_min", i32, |x: i32, y: i32| x.min(y)),
        bin!(W32, "int_max", i32, |x: i32, y: i32| x.max(y)),
        bin!(W32, "uint_min", u32, |x: u32, y: u32| x.min(y)),
        bin!(W32, "uint_max", u32, |x: u32, y: u32| x.max(y)),
        bin!(W32, "int_not", i32, |x: i32, y: i32| (!x).wrapping_add(y)),
        bin!(W32, "int_neg", i32, |x: i32, y: i32| x.wrapping_neg().wrapping_mul(3).wrapping_add(y)),
        bin!(W32, "int_mulc", i32, |x: i32, y: i32| x.wrapping_mul(12345).wrapping_add(y.wrapping_mul(-3))),
        bin!(W32, "int_cmpsel", i32, |x: i32, y: i32| if x == y {
            7
        } else if x < y {
            x.wrapping_sub(y)
        } else {
            y.wrapping_add(3)
        }),
        bin!(W32, "long_add", i64, |x: i64, y: i64| x.wrapping_add(y)),
        bin!(W32, "long_sub", i64, |x: i64, y: i64| x.wrapping_sub(y)),
        bin!(W32, "long_mul", i64, |x: i64, y: i64| x.wrapping_mul(y)),
        bin!(W32, "long_xor", i64, |x: i64, y: i64| x ^ y),
        bin!(W32, "ulong_min", u64, |x: u64, y: u64| x.min(y)),
        bin!(W32, "float_add", f32, |x: f32, y: f32| x + y),
        bin!(W32, "float_sub", f32, |x: f32, y: f32| x - y),
        bin!(W32, "float_mul", f32, |x: f32, y: f32| x * y),
        bin!(W32, "float_fma", f32, |x: f32, y: f32| x.mul_add(y, x)),
        bin!(W32, "float_min", f32, |x: f32, y: f32| if x < y { x } else { y }),
        bin!(W32, "float_max", f32, |x: f32, y: f32| if x > y { x } else { y }),
        bin!(W32, "float_sel", f32, |x: f32, y: f32| if x >= y { x * 0.5 } else { y * 2.0 }),
        bin!(W32, "float_neg", f32, |x: f32, y: f32| (-3.25f32).mul_add(y, -x)),
        bin!(W32, "float_fabs", f32, |x: f32, y: f32| x.abs() + y),
        bin!(W32, "double_add", f64, |x: f64, y: f64| x + y),
        bin!(W32, "double_mul", f64, |x: f64, y: f64| x * y),
        bin!(W32, "double_fma", f64, |x: f64, y: f64| x.mul_add(y, x)),
        bin!(W64, "int_add", i32, |x: i32, y: i32| x.wrapping_add(y)),
        bin!(W64, "int_cmpsel", i32, |x: i32, y: i32| if x == y {
            7
        } else if x < y {
            x.wrapping_sub(y)
        } else {
            y.wrapping_add(3)
        }),
        bin!(W64, "long_mul", i64, |x: i64, y: i64| x.wrapping_mul(y)),
        bin!(W64, "float_fma", f32, |x: f32, y: f32| x.mul_add(y, x)),
        bin!(W64, "double_add", f64, |x: f64, y: f64| x + y),
        (W32, "scalar_ops", scalar_ops),
        (W64, "scalar_ops", scalar_ops),
        ("hip_control.gfx1013-w32", "particles", particles),
        ("hip_control.gfx1013-w64", "particles", particles),
        ("hip_control.gfx1013-w32", "indirect_calls", indirect_calls),
        ("hip_control.gfx1013-w64", "indirect_calls", indirect_calls),
        ("hip_control.gfx1013-w32", "switches", switches),
        ("hip_control.gfx1013-w64", "switches", switches),
        ("cl_lanes.gfx1013-w32", "lds_reduce", lds_reduce),
        ("cl_lanes.gfx1013-w64", "lds_reduce", lds_reduce),
    ]
}

/// Every case: the gfx1013 ones, then each wave32 one again on the same source's gfx1201 build
/// (workgroup ids in TTMP9 / TTMP7, gfx12 encodings), then every gfx1013 one again run
/// `--via gfx1201` (our translation, with late-arriving memory), all against the same model.
fn all_cases() -> Vec<Case> {
    let mut v = cases();
    let gfx12: Vec<Case> = v
        .iter()
        .filter(|c| c.0.ends_with(".gfx1013-w32"))
        .map(|c| (gfx1201_object(c.0), c.1, c.2))
        .collect();
    let translated: Vec<Case> = v.iter().map(|c| (via_gfx1201(c.0), c.1, c.2)).collect();
    v.extend(gfx12);
    v.extend(translated);
    v
}

/// A gfx1013 object named for a run `--via gfx1201`.
fn via_gfx1201(obj: &str) -> &'static str {
    match obj {
        "cl_math.gfx1013-w32" => "cl_math.gfx1013-w32@gfx1201",
        "cl_math.gfx1013-w64" => "cl_math.gfx1013-w64@gfx1201",
        "cl_lanes.gfx1013-w32" => "cl_lanes.gfx1013-w32@gfx1201",
        "cl_lanes.gfx1013-w64" => "cl_lanes.gfx1013-w64@gfx1201",
        "hip_control.gfx1013-w32" => "hip_control.gfx1013-w32@gfx1201",
        "hip_control.gfx1013-w64" => "hip_control.gfx1013-w64@gfx1201",
        _ => unreachable!("no gfx1013 object {obj}"),
    }
}

/// The gfx1201 build of a gfx1013 wave32 object.
fn gfx1201_object(obj: &str) -> &'static str {
    match obj {
        "cl_math.gfx1013-w32" => "cl_math.gfx1201-w32",
        "cl_lanes.gfx1013-w32" => "cl_lanes.gfx1201-w32",
        "hip_control.gfx1013-w32" => "hip_control.gfx1201-w32",
        _ => unreachable!("no gfx1201 build of {obj}"),
    }
}

/// The cases that pass today (object/kernel). The others run too and report why they fail
/// (the lifter's or the interpreter's typed error, or the first differing element); this list
/// only grows.
const PASSING: &[&str] = &[
    "cl_lanes.gfx1013-w32/lds_reduce",
    "cl_lanes.gfx1013-w64/lds_reduce",
    "cl_math.gfx1013-w32/int_add",
    "cl_math.gfx1013-w32/int_sub",
    "cl_math.gfx1013-w32/int_mul",
    "cl_math.gfx1013-w32/int_and",
    "cl_math.gfx1013-w32/int_or",
    "cl_math.gfx1013-w32/int_xor",
    "cl_math.gfx1013-w32/int_shl",
    "cl_math.gfx1013-w32/int_shr",
    "cl_math.gfx1013-w32/uint_shr",
    "cl_math.gfx1013-w32/int_min",
    "cl_math.gfx1013-w32/int_max",
    "cl_math.gfx1013-w32/uint_min",
    "cl_math.gfx1013-w32/uint_max",
    "cl_math.gfx1013-w32/int_not",
    "cl_math.gfx1013-w32/int_neg",
    "cl_math.gfx1013-w32/int_mulc",
    "cl_math.gfx1013-w32/int_cmpsel",
    "cl_math.gfx1013-w32/long_add",
    "cl_math.gfx1013-w32/long_sub",
    "cl_math.gfx1013-w32/long_mul",
    "cl_math.gfx1013-w32/long_xor",
    "cl_math.gfx1013-w32/ulong_min",
    "cl_math.gfx1013-w32/float_add",
    "cl_math.gfx1013-w32/float_sub",
    "cl_math.gfx1013-w32/float_mul",
    "cl_math.gfx1013-w32/float_fma",
    "cl_math.gfx1013-w32/float_min",
    "cl_math.gfx1013-w32/float_max",
    "cl_math.gfx1013-w32/float_sel",
    "cl_math.gfx1013-w32/float_neg",
    "cl_math.gfx1013-w32/float_fabs",
    "cl_math.gfx1013-w32/double_add",
    "cl_math.gfx1013-w32/double_mul",
    "cl_math.gfx1013-w32/double_fma",
    "cl_math.gfx1013-w64/int_add",
    "cl_math.gfx1013-w64/int_cmpsel",
    "cl_math.gfx1013-w64/long_mul",
    "cl_math.gfx1013-w64/float_fma",
    "cl_math.gfx1013-w64/double_add",
    "cl_math.gfx1013-w32/scalar_ops",
    "cl_math.gfx1013-w64/scalar_ops",
    "hip_control.gfx1013-w32/particles",
    "hip_control.gfx1013-w64/particles",
    "hip_control.gfx1013-w32/indirect_calls",
    "hip_control.gfx1013-w64/indirect_calls",
    "hip_control.gfx1013-w32/switches",
    "hip_control.gfx1013-w64/switches",
    "cl_lanes.gfx1201-w32/lds_reduce",
    "cl_math.gfx1201-w32/int_add",
    "cl_math.gfx1201-w32/int_sub",
    "cl_math.gfx1201-w32/int_mul",
    "cl_math.gfx1201-w32/int_and",
    "cl_math.gfx1201-w32/int_or",
    "cl_math.gfx1201-w32/int_xor",
    "cl_math.gfx1201-w32/int_shl",
    "cl_math.gfx1201-w32/int_shr",
    "cl_math.gfx1201-w32/uint_shr",
    "cl_math.gfx1201-w32/int_min",
    "cl_math.gfx1201-w32/int_max",
    "cl_math.gfx1201-w32/uint_min",
    "cl_math.gfx1201-w32/uint_max",
    "cl_math.gfx1201-w32/int_not",
    "cl_math.gfx1201-w32/int_neg",
    "cl_math.gfx1201-w32/int_mulc",
    "cl_math.gfx1201-w32/int_cmpsel",
    "cl_math.gfx1201-w32/long_add",
    "cl_math.gfx1201-w32/long_sub",
    "cl_math.gfx1201-w32/long_mul",
    "cl_math.gfx1201-w32/long_xor",
    "cl_math.gfx1201-w32/ulong_min",
    "cl_math.gfx1201-w32/float_add",
    "cl_math.gfx1201-w32/float_sub",
    "cl_math.gfx1201-w32/float_mul",
    "cl_math.gfx1201-w32/float_fma",
    "cl_math.gfx1201-w32/float_min",
    "cl_math.gfx1201-w32/float_max",
    "cl_math.gfx1201-w32/float_sel",
    "cl_math.gfx1201-w32/float_neg",
    "cl_math.gfx1201-w32/float_fabs",
    "cl_math.gfx1201-w32/double_add",
    "cl_math.gfx1201-w32/double_mul",
    "cl_math.gfx1201-w32/double_fma",
    "cl_math.gfx1201-w32/scalar_ops",
    "hip_control.gfx1201-w32/particles",
    "hip_control.gfx1201-w32/indirect_calls",
    "hip_control.gfx1201-w32/switches",
    "cl_lanes.gfx1013-w32@gfx1201/lds_reduce",
    "cl_lanes.gfx1013-w64@gfx1201/lds_reduce",
    "cl_math.gfx1013-w32@gfx1201/int_add",
    "cl_math.gfx1013-w32@gfx1201/int_sub",
    "cl_math.gfx1013-w32@gfx1201/int_mul",
    "cl_math.gfx1013-w32@gfx1201/int_and",
    "cl_math.gfx1013-w32@gfx1201/int_or",
    "cl_math.gfx1013-w32@gfx1201/int_xor",
    "cl_math.gfx1013-w32@gfx1201/int_shl",
    "cl_math.gfx1013-w32@gfx1201/int_shr",
    "cl_math.gfx1013-w32@gfx1201/uint_shr",
    "cl_math.gfx1013-w32@gfx1201/int_min",
    "cl_math.gfx1013-w32@gfx1201/int_max",
    "cl_math.gfx1013-w32@gfx1201/uint_min",
    "cl_math.gfx1013-w32@gfx1201/uint_max",
    "cl_math.gfx1013-w32@gfx1201/int_not",
    "cl_math.gfx1013-w32@gfx1201/int_neg",
    "cl_math.gfx1013-w32@gfx1201/int_mulc",
    "cl_math.gfx1013-w32@gfx1201/int_cmpsel",
    "cl_math.gfx1013-w32@gfx1201/long_add",
    "cl_math.gfx1013-w32@gfx1201/long_sub",
    "cl_math.gfx1013-w32@gfx1201/long_mul",
    "cl_math.gfx1013-w32@gfx1201/long_xor",
    "cl_math.gfx1013-w32@gfx1201/ulong_min",
    "cl_math.gfx1013-w32@gfx1201/float_add",
    "cl_math.gfx1013-w32@gfx1201/float_sub",
    "cl_math.gfx1013-w32@gfx1201/float_mul",
    "cl_math.gfx1013-w32@gfx1201/float_fma",
    "cl_math.gfx1013-w32@gfx1201/float_min",
    "cl_math.gfx1013-w32@gfx1201/float_max",
    "cl_math.gfx1013-w32@gfx1201/float_sel",
    "cl_math.gfx1013-w32@gfx1201/float_neg",
    "cl_math.gfx1013-w32@gfx1201/float_fabs",
    "cl_math.gfx1013-w32@gfx1201/double_add",
    "cl_math.gfx1013-w32@gfx1201/double_mul",
    "cl_math.gfx1013-w32@gfx1201/double_fma",
    "cl_math.gfx1013-w64@gfx1201/int_add",
    "cl_math.gfx1013-w64@gfx1201/int_cmpsel",
    "cl_math.gfx1013-w64@gfx1201/long_mul",
    "cl_math.gfx1013-w64@gfx1201/float_fma",
    "cl_math.gfx1013-w64@gfx1201/double_add",
    "cl_math.gfx1013-w32@gfx1201/scalar_ops",
    "cl_math.gfx1013-w64@gfx1201/scalar_ops",
    "hip_control.gfx1013-w32@gfx1201/particles",
    "hip_control.gfx1013-w64@gfx1201/particles",
    "hip_control.gfx1013-w32@gfx1201/indirect_calls",
    "hip_control.gfx1013-w64@gfx1201/indirect_calls",
    "hip_control.gfx1013-w32@gfx1201/switches",
    "hip_control.gfx1013-w64@gfx1201/switches",
];

/// Run every case (case `i` with seed `seed + i`); the names (object/kernel) that passed and a
/// report line per case that did not.
fn run_cases(cases: &[Case], seed: u64) -> (Vec<String>, String) {
    let mut passed = Vec::new();
    let mut report = String::new();
    for (i, (obj, k, check)) in cases.iter().enumerate() {
        let name = format!("{obj}/{k}");
        match check(obj, seed + i as u64) {
            Ok(()) => passed.push(name),
            Err(e) => report.push_str(&format!("{name}: {e}\n")),
        }
    }
    (passed, report)
}

#[test]
fn kernels_write_what_their_source_computes() {
    let cases = all_cases();
    let (passed, report) = run_cases(&cases, 0x5eed_0000);
    eprintln!("{} of {} kernels pass\n{report}", passed.len(), cases.len());
    for p in PASSING {
        assert!(passed.iter().any(|x| x == p), "{p} no longer passes:\n{report}");
    }
    assert!(PASSING.len() >= 20, "the acceptance asks for at least 20 kernels");
}

/// The gfx1013 and gfx1201 cases of [`cases`] and their gfx1201 builds, each run
/// `--via spirv`: translated to SPIR-V and run on Vulkan (lavapipe), against the same models.
fn spirv_cases() -> Vec<Case> {
    let mut v = cases();
    let gfx12: Vec<Case> = v.iter().filter(|c| c.0.ends_with(".gfx1013-w32")).map(|c| (gfx1201_object(c.0), c.1, c.2)).collect();
    v.extend(gfx12);
    v.into_iter().map(|c| (&*Box::leak(format!("{}@spirv", c.0).into_boxed_str()), c.1, c.2)).collect()
}

/// The `--via spirv` cases that pass today (object/kernel): all 88 since `lds_reduce`'s waves
/// that branch apart run through the union of their paths (`spirv/wave_union.rs`).
const PASSING_SPIRV: &[&str] = &[
    "cl_lanes.gfx1013-w32@spirv/lds_reduce",
    "cl_lanes.gfx1013-w64@spirv/lds_reduce",
    "cl_lanes.gfx1201-w32@spirv/lds_reduce",
    "cl_math.gfx1013-w32@spirv/int_add",
    "cl_math.gfx1013-w32@spirv/int_sub",
    "cl_math.gfx1013-w32@spirv/int_mul",
    "cl_math.gfx1013-w32@spirv/int_and",
    "cl_math.gfx1013-w32@spirv/int_or",
    "cl_math.gfx1013-w32@spirv/int_xor",
    "cl_math.gfx1013-w32@spirv/int_shl",
    "cl_math.gfx1013-w32@spirv/int_shr",
    "cl_math.gfx1013-w32@spirv/uint_shr",
    "cl_math.gfx1013-w32@spirv/int_min",
    "cl_math.gfx1013-w32@spirv/int_max",
    "cl_math.gfx1013-w32@spirv/uint_min",
    "cl_math.gfx1013-w32@spirv/uint_max",
    "cl_math.gfx1013-w32@spirv/int_not",
    "cl_math.gfx1013-w32@spirv/int_neg",
    "cl_math.gfx1013-w32@spirv/int_mulc",
    "cl_math.gfx1013-w32@spirv/int_cmpsel",
    "cl_math.gfx1013-w32@spirv/long_add",
    "cl_math.gfx1013-w32@spirv/long_sub",
    "cl_math.gfx1013-w32@spirv/long_mul",
    "cl_math.gfx1013-w32@spirv/long_xor",
    "cl_math.gfx1013-w32@spirv/ulong_min",
    "cl_math.gfx1013-w32@spirv/float_add",
    "cl_math.gfx1013-w32@spirv/float_sub",
    "cl_math.gfx1013-w32@spirv/float_mul",
    "cl_math.gfx1013-w32@spirv/float_fma",
    "cl_math.gfx1013-w32@spirv/float_min",
    "cl_math.gfx1013-w32@spirv/float_max",
    "cl_math.gfx1013-w32@spirv/float_sel",
    "cl_math.gfx1013-w32@spirv/float_neg",
    "cl_math.gfx1013-w32@spirv/float_fabs",
    "cl_math.gfx1013-w32@spirv/double_add",
    "cl_math.gfx1013-w32@spirv/double_mul",
    "cl_math.gfx1013-w32@spirv/double_fma",
    "cl_math.gfx1013-w64@spirv/int_add",
    "cl_math.gfx1013-w64@spirv/int_cmpsel",
    "cl_math.gfx1013-w64@spirv/long_mul",
    "cl_math.gfx1013-w64@spirv/float_fma",
    "cl_math.gfx1013-w64@spirv/double_add",
    "cl_math.gfx1013-w32@spirv/scalar_ops",
    "cl_math.gfx1013-w64@spirv/scalar_ops",
    "hip_control.gfx1013-w32@spirv/particles",
    "hip_control.gfx1013-w64@spirv/particles",
    "hip_control.gfx1013-w32@spirv/indirect_calls",
    "hip_control.gfx1013-w64@spirv/indirect_calls",
    "hip_control.gfx1013-w32@spirv/switches",
    "hip_control.gfx1013-w64@spirv/switches",
    "cl_math.gfx1201-w32@spirv/int_add",
    "cl_math.gfx1201-w32@spirv/int_sub",
    "cl_math.gfx1201-w32@spirv/int_mul",
    "cl_math.gfx1201-w32@spirv/int_and",
    "cl_math.gfx1201-w32@spirv/int_or",
    "cl_math.gfx1201-w32@spirv/int_xor",
    "cl_math.gfx1201-w32@spirv/int_shl",
    "cl_math.gfx1201-w32@spirv/int_shr",
    "cl_math.gfx1201-w32@spirv/uint_shr",
    "cl_math.gfx1201-w32@spirv/int_min",
    "cl_math.gfx1201-w32@spirv/int_max",
    "cl_math.gfx1201-w32@spirv/uint_min",
    "cl_math.gfx1201-w32@spirv/uint_max",
    "cl_math.gfx1201-w32@spirv/int_not",
    "cl_math.gfx1201-w32@spirv/int_neg",
    "cl_math.gfx1201-w32@spirv/int_mulc",
    "cl_math.gfx1201-w32@spirv/int_cmpsel",
    "cl_math.gfx1201-w32@spirv/long_add",
    "cl_math.gfx1201-w32@spirv/long_sub",
    "cl_math.gfx1201-w32@spirv/long_mul",
    "cl_math.gfx1201-w32@spirv/long_xor",
    "cl_math.gfx1201-w32@spirv/ulong_min",
    "cl_math.gfx1201-w32@spirv/float_add",
    "cl_math.gfx1201-w32@spirv/float_sub",
    "cl_math.gfx1201-w32@spirv/float_mul",
    "cl_math.gfx1201-w32@spirv/float_fma",
    "cl_math.gfx1201-w32@spirv/float_min",
    "cl_math.gfx1201-w32@spirv/float_max",
    "cl_math.gfx1201-w32@spirv/float_sel",
    "cl_math.gfx1201-w32@spirv/float_neg",
    "cl_math.gfx1201-w32@spirv/float_fabs",
    "cl_math.gfx1201-w32@spirv/double_add",
    "cl_math.gfx1201-w32@spirv/double_mul",
    "cl_math.gfx1201-w32@spirv/double_fma",
    "cl_math.gfx1201-w32@spirv/scalar_ops",
    "hip_control.gfx1201-w32@spirv/particles",
    "hip_control.gfx1201-w32@spirv/indirect_calls",
    "hip_control.gfx1201-w32@spirv/switches",
];

#[test]
fn kernels_run_as_spirv_write_what_their_source_computes() {
    let cases = spirv_cases();
    let (passed, report) = run_cases(&cases, 0x5eed_5000);
    eprintln!("{} of {} kernels pass via SPIR-V\n{report}", passed.len(), cases.len());
    for p in passed.iter().filter(|p| !PASSING_SPIRV.contains(&p.as_str())) {
        eprintln!("passes, not yet listed: {p}");
    }
    for p in PASSING_SPIRV {
        // A run lavapipe cut short at its loop limit (65,535 back-edges in all, which depends on
        // its vector width, hence on the CPU) is the module's typed trap, not a wrong result.
        let cut = report.lines().any(|l| l.starts_with(&format!("{p}: ")) && l.contains("trap 65526"));
        assert!(cut || passed.iter().any(|x| x == p), "{p} no longer passes via SPIR-V:\n{report}");
    }
}

/// `--via spirv` refuses what a Vulkan run cannot give: raw code (no dispatch layout) and
/// `--buffer` (memory at fixed guest addresses), each with exit status 2 and a message.
#[test]
fn spirv_runs_refuse_raw_code_and_fixed_addresses() {
    let out = |args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_isabridge")).args(args).current_dir(root()).output().expect("runs");
        (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
    };
    let dir = std::env::temp_dir().join(format!("isabridge-amd-spirv-refusals-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let raw = dir.join("raw.bin");
    std::fs::write(&raw, 0xbf81_0000u32.to_le_bytes()).unwrap();
    let outdir = dir.join("out");
    let o = outdir.to_str().unwrap();
    let (rc, err) = out(&["run", raw.to_str().unwrap(), "--isa", "gfx1013", "--via", "spirv", "--grid", "1", "--block", "32", "--out", o]);
    assert_eq!(rc, Some(2), "{err}");
    assert!(err.contains("--via spirv runs code objects"), "{err}");
    let obj = "fixtures/amd/bin/cl_math.gfx1013-w32.o";
    let (rc, err) = out(&["run", obj, "--kernel", "int_add", "--via", "spirv", "--grid", "1", "--block", "32", "--buffer", &format!("0x100000={}", raw.display()), "--out", o]);
    assert_eq!(rc, Some(2), "{err}");
    assert!(err.contains("--buffer places memory at fixed guest addresses"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
