//! `isabridge conform rdna`: run RDNA execution vectors (the schema of fixtures/rdna: gfx10 code,
//! input rows, per-lane output words measured on RDNA2 hardware, a harness record) through a
//! translation path and compare every checked lane and slot.
//!
//! Layouts run today: `std_buffer_v1` and `idx_buffer_v1` (chunked dispatches, per-lane check
//! masks, per-slot compare bit masks, any-NaN slots, expected-slot maps), `custom_buffer_format`
//! (ten descriptors over input and scratch buffers), `custom_bvh` (BVH node memory and
//! descriptors), and float-mode tables:
//! the main expected table runs under the MODE its `float_mode_expected32` (or `float_mode`)
//! names, and every further `expected32_*` table of `extra_arrays` under its own
//! `float_mode_expected32_*`, reported as a row of its own. A test in another layout, or one
//! whose code does not lift, is reported with its reason and counts as failed: nothing is
//! skipped silently.

use crate::Failure;
use isabridge_decoder::lift::amd::{lift, Options, SystemValue};
use isabridge_decoder::Isa;
use isabridge_ir::interp::{Config, Input, Memory};
use serde_json::Value as Json;
use std::io::Write;
use std::path::PathBuf;

/// Run execution vectors and compare with their measured results.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    suite: Suite,
}

#[derive(clap::Subcommand)]
enum Suite {
    /// RDNA2-measured gfx10 vectors (JSON lines in the schema of fixtures/rdna).
    Rdna(RdnaArgs),
    /// H200-captured PTX op rows run through a cubin's capture kernels (fixtures/hw).
    PtxRows(crate::conform_ptx::Args),
}

/// Arguments of `conform rdna`.
#[derive(clap::Args)]
pub struct RdnaArgs {
    /// The vectors file (one JSON object per line).
    vectors: PathBuf,
    /// Translation path: `interp` runs the lifted IR on the reference interpreter, `spirv`
    /// emits SPIR-V and runs it on Vulkan (lavapipe by default), `gfx1201` translates the code
    /// to gfx1201 and runs that on the interpreter with late-arriving memory.
    #[arg(long, default_value = "interp")]
    via: String,
    /// One JSON line per test and wave instead of the table.
    #[arg(long)]
    json: bool,
    /// Only tests whose name contains this text.
    #[arg(long)]
    only: Option<String>,
    /// Also list every differing lane and slot (row, slot, got, want) under each row.
    #[arg(long)]
    diffs: bool,
    /// Memory results arrive late (`interp` only): lifted with pending results, so a register
    /// read before the wait that covers it is a poison value and fails the test.
    #[arg(long)]
    late_memory: bool,
}

const IN_BASE: u64 = 0x1_0000_0000;
const OUT_BASE: u64 = 0x2_0000_0000;

/// One test and wave's result.
struct Outcome {
    name: String,
    wave: u32,
    table: String,
    checked: u64,
    passed: u64,
    first: Option<String>,
    /// Every difference (row, slot, got, want), in check order.
    diffs: Vec<(usize, usize, u32, u32)>,
}

/// Run the command.
pub fn run(a: &Args) -> Result<(), Failure> {
    let a = match &a.suite {
        Suite::Rdna(a) => a,
        Suite::PtxRows(p) => return crate::conform_ptx::run(p),
    };
    if !matches!(a.via.as_str(), "interp" | "spirv" | "gfx1201") {
        return Err(format!("--via {}: `interp`, `spirv` and `gfx1201` run today", a.via).into());
    }
    if a.late_memory && a.via == "spirv" {
        return Err(String::from("--late-memory runs on the interpreter (--via interp; gfx1201 always has it)").into());
    }
    let text = std::fs::read_to_string(&a.vectors).map_err(|e| format!("{}: {e}", a.vectors.display()))?;
    let mut out = std::io::stdout().lock();
    let mut all_pass = true;
    if !a.json {
        writeln!(out, "{:<30} {:>4} {:>8} {:>8}  first difference", "test", "wave", "checked", "passed")?;
    }
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let t: Json = serde_json::from_str(line).map_err(|e| format!("{}:{}: {e}", a.vectors.display(), n + 1))?;
        let name = t["name"].as_str().unwrap_or("?").to_string();
        if a.only.as_ref().is_some_and(|o| !name.contains(o.as_str())) {
            continue;
        }
        for (wave, code, exp) in [(32, "wave32_code", "expected32"), (64, "wave64_code", "expected64")] {
            if t[code].is_null() || t[exp].is_null() {
                continue;
            }
            for (table, expected) in tables(&t, exp) {
                let o = run_test(&a.via, a.late_memory, &t, &name, wave, code, &table, expected);
                all_pass &= o.checked > 0 && o.passed == o.checked;
                if a.json {
                    let j = serde_json::json!({"name": o.name, "wave": o.wave, "table": o.table, "via": a.via, "checked": o.checked, "passed": o.passed});
                    writeln!(out, "{j}")?;
                } else {
                    let shown = if o.table == exp { o.name.clone() } else { format!("{} [{}]", o.name, o.table) };
                    writeln!(out, "{:<30} {:>4} {:>8} {:>8}  {}", shown, o.wave, o.checked, o.passed, o.first.as_deref().unwrap_or(""))?;
                    if a.diffs {
                        for (row, slot, got, want) in &o.diffs {
                            writeln!(out, "    row {row:>3} slot {slot:>2}: got {got:#010x}, want {want:#010x}")?;
                        }
                    }
                }
            }
        }
    }
    if all_pass {
        Ok(())
    } else {
        Err(Failure::Partial)
    }
}

/// Lift RDNA2 vector code, with late-arriving memory results when `late` is set; for `via`
/// gfx1201, its gfx1201 translation (always with late-arriving memory).
fn lift_with(via: &str, late: bool, bytes: &[u8], opts: &Options) -> Result<isabridge_ir::Function, String> {
    if via == "gfx1201" {
        return crate::amd_gfx12::lift_translated(bytes, opts);
    }
    let f = if late {
        isabridge_decoder::lift::amd::lift_late_memory(Isa::Gfx1013, bytes, 0, opts)
    } else {
        lift(Isa::Gfx1013, bytes, 0, opts)
    };
    f.map_err(|e| e.to_string())
}

fn words(v: &Json) -> Vec<u32> {
    v.as_array().map(|a| a.iter().map(|x| x.as_u64().unwrap_or(0) as u32).collect()).unwrap_or_default()
}

fn parse_u32(v: &Json) -> Option<u32> {
    match v {
        Json::Number(n) => n.as_u64().map(|x| x as u32),
        Json::String(s) => u32::from_str_radix(s.trim_start_matches("0x"), 16).ok(),
        _ => None,
    }
}

fn fail(name: &str, wave: u32, table: &str, checked: u64, why: String) -> Outcome {
    Outcome { name: name.into(), wave, table: table.into(), checked: checked.max(1), passed: 0, first: Some(why), diffs: Vec::new() }
}

/// The expected tables of one wave: the main one (`expected32` / `expected64`), then each
/// `extra_arrays` table whose name extends it (`expected32_ieee`, ...), by name.
fn tables<'t>(t: &'t Json, main: &str) -> Vec<(String, &'t Json)> {
    let mut v = vec![(main.to_string(), &t[main])];
    if let Some(extra) = t["extra_arrays"].as_object() {
        let prefix = format!("{main}_");
        v.extend(extra.iter().filter(|(k, x)| k.starts_with(&prefix) && x.is_array()).map(|(k, x)| (k.clone(), x)));
    }
    v
}

/// The MODE register (bits 0-7 the mode byte, 8 DX10_CLAMP, 9 IEEE) a table was recorded
/// under, read from the harness text for it (HARNESS.md, "Float-mode record"): the key
/// `float_mode_<table>`, or `float_mode` for the main table; none names the translator's
/// default (mode byte 0xc0, DX10_CLAMP=1, IEEE=0), as does a text that begins with
/// "default". Where a text lists several modes that gave the same table ("d in {0,2}",
/// "IEEE=0 or 1", "0xc0 or 0xf0"), the first is run. None when a further table names no mode.
fn table_mode(h: &Json, table: &str, main: bool) -> Option<u32> {
    const DEFAULT: u32 = 0xc0 | 1 << 8;
    let text = h[format!("float_mode_{table}").as_str()].as_str().or(if main { h["float_mode"].as_str() } else { None });
    let Some(text) = text else { return if main { Some(DEFAULT) } else { None } };
    if text.trim_start().to_ascii_lowercase().starts_with("default") {
        return Some(DEFAULT);
    }
    let after = |key: &str| text.find(key).map(|i| &text[i + key.len()..]);
    let byte = if let Some(r) = after("byte 0x") {
        u32::from_str_radix(r.get(..2)?, 16).ok()?
    } else if let Some(r) = after("d in {") {
        r.chars().next()?.to_digit(10)? << 6
    } else {
        0xc0
    };
    let dx10 = !text.contains("DX10_CLAMP=0") as u32;
    let ieee = after("IEEE=").and_then(|r| r.chars().next()).and_then(|c| c.to_digit(10)).unwrap_or(0) & 1;
    Some(byte | dx10 << 8 | ieee << 9)
}

/// Per-slot compare masks: `compare_bit_mask_per_slot` (a list, or one mask for every slot),
/// else `compare_mask` for every slot, narrowed to the low half for `low16_only_slots`.
fn compare_masks(h: &Json, slots: usize) -> Vec<u32> {
    let hex = |s: &str| u32::from_str_radix(s.trim().trim_start_matches("0x").split(|c: char| !c.is_ascii_hexdigit()).next().unwrap_or(""), 16).ok();
    if let Some(a) = h["compare_bit_mask_per_slot"].as_array() {
        return a.iter().filter_map(parse_u32).collect();
    }
    let all = h["compare_bit_mask_per_slot"].as_str().or(h["compare_mask"].as_str()).and_then(hex).unwrap_or(u32::MAX);
    let mut m = vec![all; slots];
    for s in words(&h["low16_only_slots"]) {
        if let Some(x) = m.get_mut(s as usize) {
            *x &= 0xffff;
        }
    }
    m
}

/// Slots where any NaN passes when a NaN is expected: `nan_slots_any_nan` as a list, or as text
/// naming "any slot" or ranges "A..B".
fn any_nan_slots(h: &Json, slots: usize) -> Vec<u32> {
    let v = &h["nan_slots_any_nan"];
    let Some(text) = v.as_str() else { return words(v) };
    if text.contains("any slot") {
        return (0..slots as u32).collect();
    }
    let mut out = Vec::new();
    for part in text.split(|c: char| c.is_whitespace() || c == ';' || c == ',') {
        if let Some((a, b)) = part.split_once("..") {
            if let (Ok(a), Ok(b)) = (a.parse::<u32>(), b.parse::<u32>()) {
                out.extend(a..=b);
            }
        }
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn run_test(via: &str, late: bool, t: &Json, name: &str, wave: u32, code_key: &str, table: &str, expected: &Json) -> Outcome {
    let h = &t["harness"];
    let layout = h["layout"].as_str().unwrap_or("");
    let expected: Vec<Vec<u32>> = expected.as_array().map(|r| r.iter().map(words).collect()).unwrap_or_default();
    let checked = h["checked"].as_u64().unwrap_or(0) as usize;
    let lanes_total = expected.len() as u64 * checked as u64;
    let bvh = (layout == "custom_bvh").then(|| bvh_memory(t));
    let indexed = match layout {
        "std_buffer_v1" | "custom_bvh" => false,
        "idx_buffer_v1" => true,
        // F64FmaSubnormals (HARNESS.md: `custom_*` layouts, described in the test's notes): the
        // raw layout with an 8-dword input slot and a 2-dword output slot, both given by
        // `in_dwords` / `out_stride_dwords`; the shader addresses them with `offen`.
        "custom_fma64" => false,
        "custom_buffer_format" => return run_buffer_format(via, late, t, name, wave, code_key, table, &expected),
        _ => return fail(name, wave, table, lanes_total, format!("layout {layout} does not run yet")),
    };
    let in_dwords = h["in_dwords"].as_u64().unwrap_or(4) as usize;
    let out_stride = h["out_stride_dwords"].as_u64().unwrap_or(16) as usize;
    let workgroup = match &h["workgroup"] {
        Json::Array(a) => a.first().and_then(|x| x.as_u64()).unwrap_or(wave as u64) as u32,
        _ => wave,
    };
    let rows_per = h["rows_per_dispatch"].as_u64().map(|x| x as usize).unwrap_or(workgroup as usize);
    let chunks = h["chunks"].as_u64().unwrap_or(1) as usize;
    let max_threads = (h["max_threads"].as_u64().unwrap_or(workgroup as u64) as usize).max(workgroup as usize);
    let code = words(&t[code_key]);
    let bytes: Vec<u8> = code.iter().flat_map(|w| w.to_le_bytes()).collect();
    let main = table == "expected32" || table == "expected64";
    let Some(mode) = table_mode(h, table, main) else {
        return fail(name, wave, table, lanes_total, format!("no float_mode_{table} names the mode of this table"));
    };
    // The vectors are RDNA2 code: the gfx10.3 dot products decode too (fixtures/rdna/HARNESS.md).
    let opts = Options {
        wave64: wave == 64,
        mode,
        user_sgprs: if bvh.is_some() { 16 } else { 8 },
        vgpr_inputs: vec![SystemValue::LocalIdX],
        gfx10_3_dot: true,
    };
    let f = match lift_with(via, late, &bytes, &opts) {
        Ok(f) => f,
        Err(e) => return fail(name, wave, table, lanes_total, e.to_string()),
    };
    let inputs: Vec<Vec<u32>> = t["inputs"].as_array().map(|r| r.iter().map(words).collect()).unwrap_or_default();
    let check_mask: Option<Vec<u32>> = h["per_lane_check_mask"]
        .as_str()
        .and_then(|s| s.strip_prefix("extra_arrays."))
        .map(|k| words(&t["extra_arrays"][k]));
    let nan_mask: Option<Vec<u32>> = h["per_lane_any_nan_mask"]
        .as_str()
        .and_then(|s| s.strip_prefix("extra_arrays."))
        .map(|k| words(&t["extra_arrays"][k]));
    let bit_masks = compare_masks(h, out_stride);
    let nan_slots = any_nan_slots(h, out_stride);
    let slot_map: Vec<u32> = words(&h["expected_slot_map"]);
    let tol = Tolerance::of(t);
    let (mut n_checked, mut n_passed, mut first, mut diffs) = (0u64, 0u64, None, Vec::new());
    for c in 0..chunks {
        let rows = c * rows_per..((c + 1) * rows_per).min(expected.len());
        if rows.is_empty() {
            break;
        }
        // Input buffer: the chunk's rows in lane order, zero padded.
        let mut inb = vec![0u8; max_threads * in_dwords * 4];
        for (lane, row) in rows.clone().enumerate() {
            for (k, w) in inputs.get(row).into_iter().flatten().take(in_dwords).enumerate() {
                let o = (lane * in_dwords + k) * 4;
                if o + 4 <= inb.len() {
                    inb[o..o + 4].copy_from_slice(&w.to_le_bytes());
                }
            }
        }
        let outb: Vec<u8> = std::iter::repeat_n(0xdeadbeef_u32.to_le_bytes(), max_threads * out_stride).flatten().collect();
        let desc = |base: u64, bytes: usize| -> [u32; 4] {
            if indexed {
                [base as u32, (base >> 32) as u32 & 0xffff | 4 << 16, (bytes / 4) as u32, 0x11016fac]
            } else {
                [base as u32, (base >> 32) as u32 & 0xffff, bytes as u32, 0x31016fac]
            }
        };
        let mut ins: Vec<Input> = desc(IN_BASE, inb.len())
            .into_iter()
            .chain(desc(OUT_BASE, outb.len()))
            .map(|w| Input::Uniform(w as u64))
            .collect();
        let mut global = vec![(IN_BASE, inb), (OUT_BASE, outb)];
        if let Some((desc, nodes)) = &bvh {
            ins.extend(desc.iter().map(|w| Input::Uniform(*w as u64)));
            global.push((BVH_BASE, nodes.clone()));
        }
        ins.push(Input::PerLane((0..workgroup as u64).collect()));
        let mem = Memory { global, ..Memory::default() };
        let cfg = Config { wave_size: wave, waves: workgroup.div_ceil(wave), ..Config::default() };
        let r = match crate::amd_spirv::run(via, &f, &cfg, &ins, mem) {
            Ok(r) => r,
            Err(e) => return fail(name, wave, table, lanes_total, e),
        };
        let outb = &r.global[1].1;
        for (lane, row) in rows.enumerate() {
            let want = &expected[row];
            for (j, w) in want.iter().enumerate().take(checked) {
                let slot = slot_map.get(j).copied().unwrap_or(j as u32) as usize;
                if check_mask.as_ref().is_some_and(|m| m.get(row).is_some_and(|m| m >> slot & 1 == 0)) {
                    continue;
                }
                let o = (lane * out_stride + slot) * 4;
                let got = outb.get(o..o + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).unwrap_or(0);
                let bm = bit_masks.get(slot).copied().unwrap_or(u32::MAX);
                // A slot compared on its low half only holds an f16: its NaN is an f16 NaN.
                let nan = |x: u32| if bm == 0xffff { is_nan16(x) } else { is_nan32(x) };
                let any_nan = nan_slots.contains(&(slot as u32)) && nan(*w)
                    || nan_mask.as_ref().is_some_and(|m| m.get(row).is_some_and(|m| m >> slot & 1 != 0));
                if tol.approx_nan_only.contains(&slot) && !is_nan_masked(w & bm, bm) {
                    continue; // compared only when a NaN is expected (`approximate_rule`)
                }
                let pair = |k: usize| -> (u64, u64) {
                    let word = |v: &[u32], i: usize| v.get(i).copied().unwrap_or(0) as u64;
                    let o = lane * out_stride * 4;
                    let g = |i: usize| outb.get(o + i * 4..o + i * 4 + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64).unwrap_or(0);
                    (g(k) | g(k + 1) << 32, word(want, k) | word(want, k + 1) << 32)
                };
                let exact = got & bm == w & bm || any_nan && nan(got);
                let ok = exact
                    || tol.rel_f64_slots.contains(&(slot & !1)) && {
                        let (g, e) = pair(slot & !1);
                        within_rel_f64(g, e, tol.rel_f64)
                    }
                    || tol.ulps.as_ref().is_some_and(|u| {
                        let n = u.get(row).and_then(|r| r.get(j).or(r.first())).copied().unwrap_or(0);
                        within_ulps(got & bm, w & bm, bm, n)
                    });
                n_checked += 1;
                if ok {
                    n_passed += 1;
                } else {
                    if first.is_none() {
                        first = Some(format!("row {row} slot {slot}: got {got:#010x}, want {w:#010x}"));
                    }
                    diffs.push((row, slot, got, *w));
                }
            }
        }
    }
    Outcome { name: name.into(), wave, table: table.into(), checked: n_checked, passed: n_passed, first, diffs }
}

const SCRATCH_BASE: u64 = 0x3_0000_0000;

/// Layout `custom_buffer_format` (fixtures/rdna/HARNESS.md, the test's `user_sgprs` and
/// `slot_mapping`): s[4:7] a raw V# over the output buffer; s[8+4i:11+4i] V#s with the test's
/// `descriptor_dword3[i]`, over the input buffer for i < 6 and over a scratch buffer (filled
/// with `scratch_fill`, `scratch_stride_dwords` per lane) for i >= 6; expected slot k below the
/// output slot count `slot_mapping` names (24) is output word k of the lane's slot, the others
/// scratch word k - 24.
#[allow(clippy::too_many_arguments)]
fn run_buffer_format(via: &str, late: bool, t: &Json, name: &str, wave: u32, code_key: &str, table: &str, expected: &[Vec<u32>]) -> Outcome {
    let h = &t["harness"];
    let checked = h["checked"].as_u64().unwrap_or(0) as usize;
    let lanes_total = expected.len() as u64 * checked as u64;
    let in_dwords = h["in_dwords"].as_u64().unwrap_or(8) as usize;
    let out_stride = h["out_stride_dwords"].as_u64().unwrap_or(32) as usize;
    let scratch_stride = h["scratch_stride_dwords"].as_u64().unwrap_or(16) as usize;
    let threads = h["max_threads"].as_u64().unwrap_or(wave as u64) as usize;
    let dword3: Vec<u32> = h["descriptor_dword3"].as_array().map(|a| a.iter().filter_map(parse_u32).collect()).unwrap_or_default();
    let user_sgprs = h["user_sgpr_count"].as_u64().unwrap_or(48) as u32;
    let Some(scratch_fill) = parse_u32(&h["scratch_fill"]) else {
        return fail(name, wave, table, lanes_total, "harness gives no scratch_fill".into());
    };
    // "expected[t][k] for k<24 is Output[...]": the number of output slots.
    let out_slots = h["slot_mapping"].as_str().and_then(|m| m.split("k<").nth(1)).and_then(|r| {
        r.split(|c: char| !c.is_ascii_digit()).next().and_then(|n| n.parse::<usize>().ok())
    });
    let Some(out_slots) = out_slots else {
        return fail(name, wave, table, lanes_total, "harness slot_mapping names no output slot count".into());
    };
    if dword3.len() != 10 || user_sgprs != 8 + 4 * dword3.len() as u32 {
        return fail(name, wave, table, lanes_total, "harness descriptor list is not the layout's ten".into());
    }
    let code = words(&t[code_key]);
    let bytes: Vec<u8> = code.iter().flat_map(|w| w.to_le_bytes()).collect();
    let main = table == "expected32" || table == "expected64";
    let Some(mode) = table_mode(h, table, main) else {
        return fail(name, wave, table, lanes_total, format!("no float_mode_{table} names the mode of this table"));
    };
    let opts = Options { wave64: wave == 64, mode, user_sgprs, vgpr_inputs: vec![SystemValue::LocalIdX], gfx10_3_dot: true };
    let f = match lift_with(via, late, &bytes, &opts) {
        Ok(f) => f,
        Err(e) => return fail(name, wave, table, lanes_total, e.to_string()),
    };
    let inputs: Vec<Vec<u32>> = t["inputs"].as_array().map(|r| r.iter().map(words).collect()).unwrap_or_default();
    let mut inb = vec![0u8; threads * in_dwords * 4];
    for (lane, row) in inputs.iter().enumerate().take(threads) {
        for (k, w) in row.iter().take(in_dwords).enumerate() {
            let o = (lane * in_dwords + k) * 4;
            inb[o..o + 4].copy_from_slice(&w.to_le_bytes());
        }
    }
    let fill = |word: u32, n: usize| -> Vec<u8> { std::iter::repeat_n(word.to_le_bytes(), n).flatten().collect() };
    let outb = fill(0xdeadbeef, threads * out_stride);
    let scratch = fill(scratch_fill, threads * scratch_stride);
    let v = |base: u64, len: usize, w3: u32| [base as u32, (base >> 32) as u32 & 0xffff, len as u32, w3];
    let mut sgprs: Vec<u32> = vec![0; 4];
    sgprs.extend(v(OUT_BASE, outb.len(), 0x31016fac));
    for (i, w3) in dword3.iter().enumerate() {
        sgprs.extend(if i < 6 { v(IN_BASE, inb.len(), *w3) } else { v(SCRATCH_BASE, scratch.len(), *w3) });
    }
    let mut ins: Vec<Input> = sgprs.into_iter().map(|w| Input::Uniform(w as u64)).collect();
    ins.push(Input::PerLane((0..wave as u64).collect()));
    let mem = Memory { global: vec![(IN_BASE, inb), (OUT_BASE, outb), (SCRATCH_BASE, scratch)], ..Memory::default() };
    let cfg = Config { wave_size: wave, waves: 1, ..Config::default() };
    let r = match crate::amd_spirv::run(via, &f, &cfg, &ins, mem) {
        Ok(r) => r,
        Err(e) => return fail(name, wave, table, lanes_total, e),
    };
    let word = |buf: &[u8], i: usize| buf.get(4 * i..4 * i + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).unwrap_or(0);
    let (mut n_checked, mut n_passed, mut first) = (0u64, 0u64, None);
    for (lane, want) in expected.iter().enumerate() {
        for (k, w) in want.iter().enumerate().take(checked) {
            let got = if k < out_slots {
                word(&r.global[1].1, lane * out_stride + k)
            } else {
                word(&r.global[2].1, lane * scratch_stride + k - out_slots)
            };
            n_checked += 1;
            if got == *w {
                n_passed += 1;
            } else if first.is_none() {
                first = Some(format!("row {lane} slot {k}: got {got:#010x}, want {w:#010x}"));
            }
        }
    }
    Outcome { name: name.into(), wave, table: table.into(), checked: n_checked, passed: n_passed, first, diffs: Vec::new() }
}

/// Where layout `custom_bvh` places the BVH node memory (256-byte aligned).
const BVH_BASE: u64 = 0x3_0000_0000;

/// Layout `custom_bvh` (Bvh64IntersectRay), mode A of its harness record: the node image
/// (`extra_arrays.bvh_nodes`, 16 dwords a node) at the start of a zeroed 64 KiB block at
/// [`BVH_BASE`], and the two node-memory descriptors for s[8:11] and s[12:15], both with that base:
/// word 0 = base >> 8, word 1 = (base >> 40) & 0xff | 1 << 31 (box sorting), word 2 = the last
/// node index (6), word 3 = its bits 32.. (0).
fn bvh_memory(t: &Json) -> ([u32; 8], Vec<u8>) {
    let mut nodes = vec![0u8; 64 << 10];
    let words: Vec<u32> = t["extra_arrays"]["bvh_nodes"].as_array().into_iter().flatten().flat_map(words).collect();
    for (k, w) in words.iter().enumerate().take(nodes.len() / 4) {
        nodes[4 * k..4 * k + 4].copy_from_slice(&w.to_le_bytes());
    }
    let d = [(BVH_BASE >> 8) as u32, (BVH_BASE >> 40) as u32 & 0xff | 1 << 31, 6, 0];
    ([d[0], d[1], d[2], d[3], d[0], d[1], d[2], d[3]], nodes)
}

fn is_nan32(x: u32) -> bool {
    x & 0x7f80_0000 == 0x7f80_0000 && x & 0x7f_ffff != 0
}

fn is_nan16(x: u32) -> bool {
    x & 0x7c00 == 0x7c00 && x & 0x3ff != 0
}

/// The compare relaxations a test's harness states (fixtures/rdna/HARNESS.md), never wider.
#[derive(Default)]
struct Tolerance {
    /// Slots compared only when the expected value (masked) is a NaN (`approximate_slots`
    /// with `approximate_rule`).
    approx_nan_only: Vec<usize>,
    /// Low slots of f64 results within a relative error (`approximate_results_f64_index`,
    /// result i in slots 2i and 2i+1), with `rel_f64` the bound (`approx_rel_tolerance`).
    rel_f64_slots: Vec<usize>,
    /// The relative error bound of `rel_f64_slots` when the expected value is normal.
    rel_f64: f64,
    /// Allowed distance in units of the last place, per row (`tolerance_ulps_per_row`).
    ulps: Option<Vec<Vec<u64>>>,
}

impl Tolerance {
    fn of(t: &Json) -> Tolerance {
        let h = &t["harness"];
        let mut tol = Tolerance::default();
        if h["approximate_rule"].as_str().is_some_and(|r| r.contains("only when the expected value (masked) is a NaN")) {
            tol.approx_nan_only = words(&h["approximate_slots"]).into_iter().map(|x| x as usize).collect();
        }
        if h["approx_rel_tolerance"].as_str() == Some("2^-23 when expected is normal") {
            tol.rel_f64 = 1.0 / (1u64 << 23) as f64;
            tol.rel_f64_slots = words(&h["approximate_results_f64_index"]).into_iter().map(|i| 2 * i as usize).collect();
        }
        if let Some(k) = h["tolerance_ulps_per_row"].as_str().and_then(|s| s.split_whitespace().next()).and_then(|s| s.strip_prefix("extra_arrays.")) {
            tol.ulps = t["extra_arrays"][k]
                .as_array()
                .map(|rows| rows.iter().map(|r| r.as_array().map(|a| a.iter().filter_map(|x| x.as_u64()).collect()).unwrap_or_default()).collect());
        }
        tol
    }
}

/// Whether `x` (the bits under `mask`: 0xffff for an f16 slot, else f32) is a NaN.
fn is_nan_masked(x: u32, mask: u32) -> bool {
    if mask == 0xffff {
        is_nan16(x)
    } else {
        is_nan32(x)
    }
}

/// |got - want| <= rel × |want| for a normal expected f64; any other expected value must match
/// exactly (`approx_rel_tolerance`: "2^-23 when expected is normal").
fn within_rel_f64(got: u64, want: u64, rel: f64) -> bool {
    let (g, w) = (f64::from_bits(got), f64::from_bits(want));
    if !w.is_normal() {
        return got == want;
    }
    g.is_finite() && (g - w).abs() <= rel * w.abs()
}

/// Distance at most `n` units in the last place, on sign-magnitude ordered bit patterns of the
/// slot width (`mask`: 0xffff for f16, else 32 bits); an expected ±0, ±inf or NaN must match
/// exactly (`tolerance_ulps_per_row`).
fn within_ulps(got: u32, want: u32, mask: u32, n: u64) -> bool {
    let (sign, exp_all) = if mask == 0xffff { (0x8000u32, 0x7c00u32) } else { (0x8000_0000, 0x7f80_0000) };
    let special = want & !sign == 0 || want & exp_all == exp_all;
    if special {
        return got == want;
    }
    if got & exp_all == exp_all {
        return false;
    }
    let key = |x: u32| -> i64 {
        let m = (x & !sign) as i64;
        if x & sign != 0 {
            -m
        } else {
            m
        }
    };
    key(got).abs_diff(key(want)) <= n
}
