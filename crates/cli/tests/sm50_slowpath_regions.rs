//! Issue 29's reproducer: the sm_50 `fp32_arith` kernel (fixtures/nvidia/src/fp32.cu) with two
//! lanes in the division and reciprocal slow-path subroutines at once (lane 21 a subnormal A,
//! lane 31 a tiny B over A = 765.12). Those subroutines are called inside SSY regions and break
//! out of an SSY region from code placed past its end; the interpreter deadlocked on it.
//!
//! Oracles: the sm_86 build of the same source on the same inputs (its fp32 ops are exactly
//! defined by the IR and pass the H200 captures), for every op that is not approximate, on
//! every lane; and Rust's IEEE arithmetic for the slow-path results of the two lanes.

use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

const LANES: usize = 32;
/// Result words per thread (`out + i * 512` in the source).
const STRIDE: usize = 512;
const SUBNORMAL_LANE: usize = 21;
const TINY_B_LANE: usize = 31;
const SUBNORMAL_A: u32 = 0x0058_6a5b;
const TINY_B: u32 = 0x0bc9_1b46;
const BIG_A: f32 = 765.12;

/// The A, B, C inputs: 1.0 everywhere but the two slow-path lanes.
fn inputs() -> [Vec<f32>; 3] {
    let mut a = vec![1.0f32; LANES];
    let mut b = vec![1.0f32; LANES];
    let c = vec![1.0f32; LANES];
    a[SUBNORMAL_LANE] = f32::from_bits(SUBNORMAL_A);
    a[TINY_B_LANE] = BIG_A;
    b[TINY_B_LANE] = f32::from_bits(TINY_B);
    [a, b, c]
}

/// Runs `fp32_arith` of `cubin` on the interpreter over one warp; the output words.
fn run(cubin: &str) -> Vec<u32> {
    let dir = std::env::temp_dir().join(format!("isabridge-sm50-slowpath-{}-{cubin}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_isabridge"));
    cmd.arg("run").arg(root().join("fixtures/nvidia/bin").join(cubin));
    cmd.args(["--via", "interp", "--kernel", "fp32_arith", "--grid", "1", "--block", "32"]);
    cmd.arg(format!("--arg=zeros={}", LANES * STRIDE * 4));
    for (name, v) in ["A", "B", "C"].iter().zip(inputs()) {
        let path = dir.join(name);
        std::fs::write(&path, v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>()).expect("input file");
        cmd.arg(format!("--arg=buf={}", path.display()));
    }
    cmd.args(["--arg=f32=1.5", "--out"]).arg(dir.join("out"));
    let out = cmd.output().expect("isabridge runs");
    assert!(out.status.success(), "{cubin}: {}", String::from_utf8_lossy(&out.stderr));
    let bytes = std::fs::read(dir.join("out/arg0.bin")).expect("output buffer");
    let _ = std::fs::remove_dir_all(&dir);
    bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// The ops `fp32_arith` stores, in order, for `__CUDA_ARCH__` = `arch` (500, 860): each as
/// (the macro that stores it, the PTX instruction), read from fp32.cu with its R4 / R4FS
/// expansions (nv.h) and `#if __CUDA_ARCH__ >= N` blocks.
fn ops(arch: u32) -> Vec<(String, String)> {
    let src = std::fs::read_to_string(root().join("fixtures/nvidia/src/fp32.cu")).expect("fp32.cu");
    let start = src.find("KERNEL void fp32_arith").expect("fp32_arith");
    let end = src[start..].find("\n}").expect("end of fp32_arith") + start;
    let rounds = |op: &str, sfx: &str| ["rn", "rz", "rm", "rp"].map(|r| format!("{op}.{r}{sfx}"));
    let mut out = Vec::new();
    let mut skip = false;
    for line in src[start..end].lines().map(str::trim) {
        if let Some(v) = line.strip_prefix("#if __CUDA_ARCH__ >= ") {
            skip = arch < v.trim().parse::<u32>().expect("arch number");
            continue;
        }
        if line.starts_with("#endif") {
            skip = false;
            continue;
        }
        if skip || line.starts_with('#') {
            continue;
        }
        // Statements: NAME(args) with string literals; R4 / R4FS take (MACRO, "op", "sfx").
        let mut rest = line;
        while let Some(open) = rest.find('(') {
            let name = rest[..open].rsplit(|c: char| !c.is_ascii_alphanumeric() && c != '_').next().unwrap_or("");
            let close = rest[open..].find(')').expect("closing parenthesis") + open;
            let args: Vec<&str> = rest[open + 1..close].split(',').map(|a| a.trim().trim_matches('"')).collect();
            match (name, args.as_slice()) {
                ("R4", [m, op, sfx]) => out.extend(rounds(op, sfx).map(|o| (m.to_string(), o))),
                ("R4FS", [m, op, ty]) => {
                    for sfx in ["", ".ftz", ".sat", ".ftz.sat"] {
                        out.extend(rounds(op, &format!("{sfx}{ty}")).map(|o| (m.to_string(), o)));
                    }
                }
                (m, [op]) if m.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_') && !m.is_empty() => {
                    out.push((m.to_string(), op.to_string()))
                }
                _ => {}
            }
            rest = &rest[close + 1..];
        }
    }
    out
}

/// Whether PTX defines the op only approximately (its result may differ between GPUs).
fn approximate(op: &str) -> bool {
    ["approx", "full", "sin", "cos", "lg2", "ex2", "tanh"].iter().any(|t| op.contains(t))
}

#[test]
fn sm50_fp32_arith_with_two_slow_path_lanes_runs_and_equals_sm86() {
    let (o50, o86) = (ops(500), ops(860));
    assert_eq!((o50.len(), o86.len()), (182, 186), "ops stored per thread (sm_86 adds tanh and three .NaN ops)");
    let got = run("fp32.sm50.cubin");
    let want = run("fp32.sm86.cubin");
    let mut compared = 0;
    for (k, op) in o50.iter().enumerate().filter(|(_, (_, op))| !approximate(op)) {
        let k86 = o86.iter().position(|o| o == op).expect("op in the sm_86 build");
        for lane in 0..LANES {
            let (g, w) = (got[lane * STRIDE + k], want[lane * STRIDE + k86]);
            assert_eq!(g, w, "lane {lane} {} {}: sm_50 {g:#010x}, sm_86 {w:#010x}", op.0, op.1);
            compared += 1;
        }
    }
    assert_eq!(compared, 166 * LANES, "exact ops compared");
    // The slow-path results, by IEEE arithmetic (round to nearest even; .ftz flushes
    // subnormal inputs and results to zero of the same sign).
    let [a, b, _] = inputs();
    let word = |lane: usize, op: &str| got[lane * STRIDE + o50.iter().position(|o| o.1 == op).expect("op")];
    let ftz = |x: f32| if x.is_subnormal() { 0.0f32.copysign(x) } else { x };
    for lane in [SUBNORMAL_LANE, TINY_B_LANE] {
        let (x, y) = (a[lane], b[lane]);
        assert_eq!(word(lane, "div.rn.f32"), (x / y).to_bits(), "lane {lane} div.rn");
        assert_eq!(word(lane, "div.rn.ftz.f32"), ftz(ftz(x) / ftz(y)).to_bits(), "lane {lane} div.rn.ftz");
        assert_eq!(word(lane, "rcp.rn.f32"), (1.0 / x).to_bits(), "lane {lane} rcp.rn");
        assert_eq!(word(lane, "sqrt.rn.f32"), x.sqrt().to_bits(), "lane {lane} sqrt.rn");
    }
}
