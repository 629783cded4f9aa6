//! Running the H200 capture kernels (fixtures/hw/capture.cu, built by
//! tools/build_capture_cubins.sh) on the interpreter and comparing their outputs with the
//! H200's rows (fixtures/hw/ptx_ops_sm90_seed1.txt.gz): each kernel `k_<op>` runs over the
//! 1024 rows as capture.cu launches it (blocks of 128 threads, 4 warps of 32; parameters `in`,
//! `out`, `n` in constant bank 0 at the ISA's parameter base; TidX / CtaidX as SystemValue
//! parameters), its words equal the H200's bit for bit, or for the approximate ops within
//! `isabridge_ir::accuracy::PTX_APPROX`.
#![allow(dead_code)]

use flate2::read::GzDecoder;
use isabridge_decoder::lift::sm86::SystemValue;
use isabridge_decoder::lift::LiftError;
use isabridge_ir::accuracy::{error, PTX_APPROX};
use isabridge_ir::interp::{run, Config, Input, Memory};
use isabridge_ir::Function;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One row: inputs a, b, c and the H200's outputs r0, r1.
pub struct Row {
    pub a: u32,
    pub b: u32,
    pub c: u32,
    pub r0: u32,
    pub r1: u32,
}

/// The rows by op.
pub fn rows() -> BTreeMap<String, Vec<Row>> {
    let f = std::fs::File::open(root().join("fixtures/hw/ptx_ops_sm90_seed1.txt.gz")).unwrap();
    let mut s = String::new();
    GzDecoder::new(f).read_to_string(&mut s).unwrap();
    let mut m: BTreeMap<String, Vec<Row>> = BTreeMap::new();
    for line in s.lines().filter(|l| !l.starts_with('#')) {
        let p: Vec<&str> = line.split_whitespace().collect();
        let h = |i: usize| u32::from_str_radix(p[i], 16).unwrap();
        m.entry(p[0].to_string()).or_default().push(Row { a: h(1), b: h(2), c: h(3), r0: h(4), r1: h(5) });
    }
    m
}

/// Where a cubin's driver values and parameters sit in constant bank 0.
pub struct Layout {
    /// ntid.x (then y, z).
    pub ntid: usize,
    /// nctaid.x (then y, z).
    pub nctaid: usize,
    /// The local stack top.
    pub stack: usize,
    /// The first kernel parameter.
    pub params: usize,
}

const IN: u64 = 0x1_0000_0000;
const OUT: u64 = 0x2_0000_0000;
const BLOCK: u32 = 128;

/// Run a lifted kernel over the rows; its output words, or why it could not run.
/// `bank2`: the kernel's compiler constants (`.nv.constant2.<kernel>`), constant bank 2.
pub fn run_kernel(f: &Function, lay: &Layout, rows: &[Row], bank2: &[u8]) -> Result<Vec<u32>, String> {
    let n = rows.len() as u32;
    let mut cb0 = vec![0u8; 0x200];
    let put = |cb: &mut Vec<u8>, at: usize, v: &[u8]| cb[at..at + v.len()].copy_from_slice(v);
    put(&mut cb0, lay.ntid, &BLOCK.to_le_bytes());
    put(&mut cb0, lay.ntid + 4, &1u32.to_le_bytes());
    put(&mut cb0, lay.ntid + 8, &1u32.to_le_bytes());
    put(&mut cb0, lay.nctaid, &n.div_ceil(BLOCK).to_le_bytes());
    put(&mut cb0, lay.nctaid + 4, &1u32.to_le_bytes());
    put(&mut cb0, lay.nctaid + 8, &1u32.to_le_bytes());
    put(&mut cb0, lay.stack, &1024u32.to_le_bytes());
    put(&mut cb0, lay.params, &IN.to_le_bytes());
    put(&mut cb0, lay.params + 8, &OUT.to_le_bytes());
    put(&mut cb0, lay.params + 16, &n.to_le_bytes());
    let input: Vec<u8> = rows.iter().flat_map(|r| [r.a, r.b, r.c]).flat_map(|w| w.to_le_bytes()).collect();
    let mut mem = Memory { global: vec![(IN, input), (OUT, vec![0; rows.len() * 8])], constant: vec![cb0, Vec::new(), bank2.to_vec()], shared: vec![0; 0x1000] };
    let cfg = Config { wave_size: 32, waves: BLOCK / 32, scratch_bytes: 1024, ..Config::default() };
    for block in 0..n.div_ceil(BLOCK) {
        let mut inputs: Vec<Input> = SystemValue::ALL.iter().map(|_| Input::Uniform(0)).collect();
        inputs[SystemValue::TidX.param() as usize] = Input::PerLane((0..BLOCK as u64).collect());
        inputs[SystemValue::CtaidX.param() as usize] = Input::Uniform(block as u64);
        let o = run(f, &cfg, &inputs, mem).map_err(|e| e.to_string())?;
        mem = o.memory;
    }
    let out = &mem.global.iter().find(|(b, _)| *b == OUT).unwrap().1;
    Ok(out.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect())
}

/// Lift and run every `k_<op>` kernel of `cubin` with `lift`; the ops whose every row equals
/// the H200's, and a line per op that does not (why).
pub fn check_cubin(cubin: &str, lay: &Layout, lift: impl Fn(&[u8]) -> Result<Function, LiftError>) -> (Vec<String>, Vec<String>) {
    let bytes = std::fs::read(root().join(cubin)).unwrap();
    let (_, sections) = isabridge_decoder::elf::parse(&bytes).unwrap();
    let kernels = isabridge_decoder::elf::nvinfo::cuda_kernels(&bytes).unwrap();
    let mut passing = Vec::new();
    let mut report = Vec::new();
    for (op, rs) in &rows() {
        let suffix = format!("k_{op}PK3RowPji");
        let Some(sec) = sections.iter().find(|s| s.name.ends_with(&suffix) && s.name[..s.name.len() - suffix.len()].ends_with(|c: char| c.is_ascii_digit())) else {
            continue; // not built for this ISA
        };
        let kernel = &sec.name[".text.".len()..];
        let bank2 = kernels
            .iter()
            .find(|k| k.name == kernel)
            .and_then(|k| k.constant_banks.iter().find(|(n, _)| *n == 2))
            .map(|(_, b)| b.as_slice())
            .unwrap_or(&[]);
        let out = match lift(sec.data).map_err(|e| e.to_string()).and_then(|f| run_kernel(&f, lay, rs, bank2)) {
            Ok(o) => o,
            Err(e) => {
                report.push(format!("{op}: {e}"));
                continue;
            }
        };
        let approx = PTX_APPROX.iter().find(|x| x.0 == op);
        let mut bad = 0;
        let mut first = None;
        for (i, r) in rs.iter().enumerate() {
            let (g0, g1) = (out[2 * i], out[2 * i + 1]);
            let ok = match approx {
                Some(&(_, m, bound)) => g1 == r.r1 && error(m, r.r0, g0).is_some_and(|e| e <= bound),
                None => (g0, g1) == (r.r0, r.r1),
            };
            if !ok {
                bad += 1;
                first.get_or_insert(format!("{:08x} {:08x} {:08x}: hw {:08x} {:08x} got {:08x} {:08x}", r.a, r.b, r.c, r.r0, r.r1, g0, g1));
            }
        }
        if bad == 0 {
            passing.push(op.clone());
        } else {
            report.push(format!("{op}: {bad} rows differ, first {}", first.unwrap_or_default()));
        }
    }
    (passing, report)
}
