//! Property test: the IR pass pipeline (`isabridge_ir::passes::run_pipeline`) preserves the
//! interpreter's results on lifted sm_50 code.
//! - The capture kernels of fixtures/hw/capture.sm50.cubin that lift: run over the first 256
//!   H200 rows of their op before and after the pipeline (as capture.cu launches them,
//!   tests/common/nv_capture.rs), the output words are equal.
//! - Every kernel of the sm_50 corpus cubins (fixtures/nvidia/bin/*.sm50.cubin) that lifts
//!   whole: parameters in constant bank 0 (from c[0x0][0x140]) are pointers into a buffer of
//!   random pointers and small integers, the local stack top 1024 bytes (c[0x0][0x20]), the
//!   kernel's own constant banks loaded, block ids random; the runs before and after give the
//!   same outputs and memory, or the same error.

#[path = "common/nv_capture.rs"]
mod nv_capture;

use isabridge_decoder::elf::nvinfo::cuda_kernels;
use isabridge_decoder::lift::sm50::{lift, Options, SystemValue};
use isabridge_decoder::Isa;
use isabridge_ir::interp::{self, Config, Input, Memory};
use isabridge_ir::passes::run_pipeline;
use nv_capture::{rows, run_kernel, Layout};
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

const BUF: u64 = 0x1_0000_0000;
const BUF_BYTES: usize = 1 << 20;
/// Lower bounds: corpus kernels that lift whole, random runs of them that end cleanly, and
/// capture kernels checked.
const MIN_LIFTED: usize = 8;
const MIN_RAN_OK: usize = 24;
const MIN_CAPTURE: usize = 125;

/// A corpus kernel: (cubin:kernel, code, kernel options, constant banks).
type CorpusKernel = (String, Vec<u8>, Options, Vec<(u8, Vec<u8>)>);

/// The kernels of the sm_50 corpus cubins.
fn corpus_kernels() -> Vec<CorpusKernel> {
    let mut files: Vec<_> = std::fs::read_dir(root().join("fixtures/nvidia/bin"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".sm50.cubin"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for p in files {
        let bytes = std::fs::read(&p).unwrap();
        let (_, sections) = isabridge_decoder::elf::parse(&bytes).unwrap();
        for k in cuda_kernels(&bytes).unwrap() {
            let Some(sec) = sections.iter().find(|s| s.name == format!(".text.{}", k.name)) else { continue };
            let opts = Options { branch_targets: k.branch_targets.clone(), ..Options::default() };
            let name = format!("{}:{}", p.file_name().unwrap().to_string_lossy(), k.name);
            out.push((name, sec.data.to_vec(), opts, k.constant_banks.clone()));
        }
    }
    out
}

#[test]
fn pipeline_preserves_lifted_corpus_kernels() {
    let (mut lifted, mut ran_ok, mut total) = (0, 0, 0);
    let mut g = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        g ^= g << 13;
        g ^= g >> 7;
        g ^= g << 17;
        g
    };
    for (name, code, opts, banks) in corpus_kernels() {
        total += 1;
        let f = match lift(Isa::Sm50, &code, 0, &opts) {
            Ok(f) => f,
            Err(e) => {
                if std::env::var_os("SHOW_LIFT_ERRORS").is_some() {
                    eprintln!("{name}: {e}");
                }
                continue;
            }
        };
        lifted += 1;
        let mut o = f.clone();
        run_pipeline(&mut o).unwrap_or_else(|e| panic!("{name}: {e}"));
        for _ in 0..4 {
            // Constant bank 0: ntid (64, 1, 1) at 0x8, the local stack top at 0x20, then
            // parameters from 0x140 that are pointers into the buffer (or small integers); the
            // buffer's 64-bit words likewise.
            let mut cb0 = vec![0u8; 0x400];
            cb0[0x8..0xc].copy_from_slice(&64u32.to_le_bytes());
            cb0[0xc..0x10].copy_from_slice(&1u32.to_le_bytes());
            cb0[0x10..0x14].copy_from_slice(&1u32.to_le_bytes());
            cb0[0x20..0x24].copy_from_slice(&1024u32.to_le_bytes());
            for k in 0..((0x400 - 0x140) / 8) {
                let r = next();
                let w = if r & 15 != 0 { (BUF + (r >> 8) % (BUF_BYTES as u64 / 4)) & !7 } else { (r >> 8) & 63 };
                cb0[0x140 + 8 * k..0x148 + 8 * k].copy_from_slice(&w.to_le_bytes());
            }
            let buf: Vec<u8> = (0..BUF_BYTES / 8)
                .flat_map(|_| {
                    let r = next();
                    let w = if r & 1 == 0 { (BUF + (r >> 8) % (BUF_BYTES as u64 / 2)) & !7 } else { (r >> 8 & 15) | (r >> 16 & 15) << 32 };
                    w.to_le_bytes()
                })
                .collect();
            let mut constant = vec![cb0, vec![0; 0x1000], vec![0; 0x1000], vec![0; 0x1000]];
            for (n, b) in &banks {
                if let Some(c) = constant.get_mut(*n as usize) {
                    *c = b.clone();
                }
            }
            let mem = Memory { global: vec![(BUF, buf)], constant, shared: vec![0; 4096] };
            let mut ins: Vec<Input> = SystemValue::ALL.iter().map(|_| Input::Uniform(next() & 7)).collect();
            ins[SystemValue::TidX.param() as usize] = Input::PerLane((0..64u64).collect());
            let cfg = Config { wave_size: 32, waves: 2, scratch_bytes: 1024, max_steps: 10_000, ..Config::default() };
            let a = interp::run(&f, &cfg, &ins, mem.clone()).map(|r| (r.outputs, r.memory)).map_err(|e| e.to_string());
            let b = interp::run(&o, &cfg, &ins, mem).map(|r| (r.outputs, r.memory)).map_err(|e| e.to_string());
            ran_ok += a.is_ok() as usize;
            if let (Err(e), Some(_)) = (&a, std::env::var_os("SHOW_RUN_ERRORS")) {
                eprintln!("run error: {name}: {e}");
            }
            assert!(a == b, "{name}: the pipeline changed the result ({:?} before, {:?} after)", a.as_ref().err(), b.as_ref().err());
        }
    }
    eprintln!("sm_50 corpus: {lifted} of {total} kernels lift whole; {ran_ok} runs ended without an error");
    assert!(lifted >= MIN_LIFTED, "only {lifted} kernels lift (pin {MIN_LIFTED})");
    assert!(ran_ok >= MIN_RAN_OK, "only {ran_ok} runs ended cleanly (pin {MIN_RAN_OK})");
}

#[test]
fn pipeline_preserves_the_capture_kernels() {
    let bytes = std::fs::read(root().join("fixtures/hw/capture.sm50.cubin")).unwrap();
    let (_, sections) = isabridge_decoder::elf::parse(&bytes).unwrap();
    let kernels = cuda_kernels(&bytes).unwrap();
    let lay = Layout { ntid: 0x8, nctaid: 0x14, stack: 0x20, params: 0x140 };
    let mut checked = 0;
    for (op, rs) in &rows() {
        let suffix = format!("k_{op}PK3RowPji");
        let Some(sec) = sections.iter().find(|s| s.name.ends_with(&suffix)) else { continue };
        let kernel = &sec.name[".text.".len()..];
        let Some(k) = kernels.iter().find(|k| k.name == kernel) else { continue };
        let bank2 = k.constant_banks.iter().find(|(n, _)| *n == 2).map(|(_, b)| b.as_slice()).unwrap_or(&[]);
        let Ok(f) = lift(Isa::Sm50, sec.data, 0, &Options::default()) else { continue };
        let mut o = f.clone();
        run_pipeline(&mut o).unwrap_or_else(|e| panic!("{op}: {e}"));
        let rs = &rs[..rs.len().min(256)];
        let a = run_kernel(&f, &lay, rs, bank2);
        let b = run_kernel(&o, &lay, rs, bank2);
        assert!(a.is_ok(), "{op}: {:?}", a.err());
        assert!(a == b, "{op}: the pipeline changed the output");
        checked += 1;
    }
    eprintln!("sm_50 capture kernels: {checked} lift and run the same after the pipeline");
    assert!(checked >= MIN_CAPTURE, "only {checked} capture kernels checked (pin {MIN_CAPTURE})");
}
