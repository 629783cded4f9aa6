//! gfx1013 -> gfx1201 instruction translation, checked against llvm-mc-22 (`--mcpu=gfx1201`):
//! - every re-encode/rename row of the opcode map, on a representative gfx1013 instruction (the
//!   first of fixtures/amd/probe/gfx1013.tsv, then of the corpus, that has that instruction and
//!   encoding), translates, and llvm-mc-22 assembles our printed gfx1201 text to our bytes and
//!   disassembles our bytes to our text (one llvm-mc call per direction for all rows);
//! - every instruction of the corpus's gfx1013 listings (fixtures/amd/ref) either translates,
//!   with the same two llvm-mc checks and the gfx1201 decode giving back the same operand kinds,
//!   or is a typed error; the errors are pinned exactly in
//!   fixtures/amd/gfx12/translate_unsupported.tsv (`ISABRIDGE_UPDATE_GFX12_COUNTS=1` rewrites it).

use isabridge_decoder::amd::{GFX10, GFX12};
use isabridge_decoder::{Inst, IsaPlugin};
use isabridge_targets::gfx12::map::{row, rows, MapKind};
use isabridge_targets::gfx12::expand::ExpandCx;
use isabridge_targets::gfx12::function::decode_rdna2;
use isabridge_targets::gfx12::{translate_inst, translate_inst_in, TranslateError};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2).map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap()).collect()
}

/// The expansion context of the corpus checks: temporaries above every register the corpus
/// names, and the MODE.IEEE bit of its kernels (clang's compute kernels set it) or clear.
fn corpus_cx(wave64: bool, ieee: bool) -> ExpandCx {
    ExpandCx { wave64, ieee: Some(ieee), dx10_clamp: Some(true), vgprs: Some(240), sgprs: Some(100) }
}

/// (address, bytes, wave64) of every instruction of the gfx1013 corpus listings, then (with
/// `probe`) of the probe set: compiler output first, so a row's representative is real code
/// where there is some.
fn gfx1013_cases(probe: bool) -> Vec<(u64, Vec<u8>, bool)> {
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(root().join("fixtures/amd/ref")).unwrap().flatten().map(|e| e.path()).collect();
    files.sort();
    for f in files.iter().filter(|f| f.to_string_lossy().contains(".gfx1013-")) {
        let wave64 = f.to_string_lossy().contains("-w64");
        for line in std::fs::read_to_string(f).unwrap().lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            out.push((v["offset"].as_u64().unwrap(), unhex(v["bytes"].as_str().unwrap()), wave64));
        }
    }
    if probe {
        for l in std::fs::read_to_string(root().join("fixtures/amd/probe/gfx1013.tsv")).unwrap().lines() {
            if let Some(b) = l.split('\t').next() {
                out.push((0, unhex(b), false));
            }
        }
    }
    out
}

/// One translated gfx1201 instruction: our bytes and our printed text.
struct Out {
    bytes: Vec<u8>,
    text: String,
    what: String,
}

/// `i` built, decoded back and printed; the decoded operands must be `src`'s (the gfx1013
/// instruction of a one-instruction translation, else `i` itself).
fn emit(i: &Inst, src: &Inst, what: String) -> Out {
    let bytes = GFX12.build(i).unwrap_or_else(|e| panic!("{what}: {e}"));
    let d = GFX12.decode(&bytes, i.addr).unwrap_or_else(|e| panic!("{what}: our gfx1201 decoder rejects {bytes:02x?}: {e}"));
    let back = GFX12.operands(&d, i.addr);
    assert_eq!(back.name, i.name, "{what}");
    // The same operand values in the same order (fields are the encoding's own).
    // An inline constant is compared by its code: the spec's reading type may differ between
    // the generations (v_cvt_pk_u8_f32's byte index), the hardware reads the same code.
    let x16 = i.operands.iter().any(|o| matches!(o.kind, isabridge_decoder::operand::OperandKind::Literal(x) if x <= 0xffff))
        && src.operands.iter().any(|o| matches!(o.kind, isabridge_decoder::operand::OperandKind::Literal(x) if x > 0xffff));
    let kinds = |x: &Inst| {
        x.explicit()
            .map(|o| match o.kind {
                // A buffer SOFFSET of 0: gfx1013's inline constant, gfx1201's `null` (its 7-bit
                // field has no constants; null reads 0).
                isabridge_decoder::operand::OperandKind::InlineConst { bits: 0, .. }
                | isabridge_decoder::operand::OperandKind::Special { reg: isabridge_decoder::operand::SpecialReg::Null, .. }
                    if o.field == "SOFFSET" =>
                {
                    ("soffset 0".to_string(), o.mods)
                }
                isabridge_decoder::operand::OperandKind::InlineConst { code, .. } => (format!("const {code}"), o.mods),
                // `off` (SADDR) is each generation's own null code.
                isabridge_decoder::operand::OperandKind::Field { ty: "OFF", .. } => ("off".to_string(), o.mods),
                // A literal feeding a 16-bit operand: the hardware reads its low half.
                isabridge_decoder::operand::OperandKind::Literal(x) if o.size == 16 || x16 => (format!("literal16 {:#x}", x & 0xffff), o.mods),
                k => (format!("{k:?}"), o.mods),
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(kinds(&back), kinds(src), "{what}: gfx1201 operands differ from gfx1013's");
    let mut text = String::new();
    GFX12.print(&d, i.addr, &mut text);
    Out { bytes, text, what }
}

/// llvm-mc-22 --mcpu=gfx1201: assembles every text to its bytes and disassembles every byte
/// string to its text. Returns the mismatches.
fn llvm_mc_check(outs: &[Out]) -> Vec<String> {
    let run = |args: &[&str], input: String| -> (String, String) {
        let mut c = Command::new("llvm-mc-22")
            .args(["-triple=amdgcn", "-mcpu=gfx1201"])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("llvm-mc-22 runs");
        let mut si = c.stdin.take().unwrap();
        let t = std::thread::spawn(move || si.write_all(input.as_bytes()));
        let o = c.wait_with_output().unwrap();
        t.join().unwrap().unwrap();
        (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
    };
    // Lines llvm-mc reported an error or warning for (1-based).
    let bad = |err: &str| -> BTreeSet<usize> {
        err.lines()
            .filter_map(|l| l.strip_prefix("<stdin>:"))
            .filter_map(|l| l.split(':').next()?.parse().ok())
            .collect()
    };
    let mut bad_out = Vec::new();
    // Assemble.
    let (so, se) = run(&["-show-encoding"], outs.iter().map(|o| format!("{}\n", o.text)).collect());
    let failed = bad(&se);
    let mut enc = so.lines().filter_map(|l| l.split_once("; encoding: [")).map(|(_, b)| {
        b.trim_end_matches(']').split(',').map(|x| u8::from_str_radix(x.trim_start_matches("0x"), 16).unwrap()).collect::<Vec<u8>>()
    });
    for (k, o) in outs.iter().enumerate() {
        if failed.contains(&(k + 1)) {
            bad_out.push(format!("{}: llvm-mc rejects `{}`", o.what, o.text));
            continue;
        }
        let b = enc.next().unwrap_or_default();
        if b != o.bytes {
            bad_out.push(format!("{}: `{}` assembles to {b:02x?}, we built {:02x?}", o.what, o.text, o.bytes));
        }
    }
    // Disassemble.
    let input = outs
        .iter()
        .map(|o| o.bytes.iter().map(|b| format!("{b:#04x}")).collect::<Vec<_>>().join(",") + "\n")
        .collect();
    let (so, se) = run(&["--disassemble"], input);
    let failed = bad(&se);
    let mut texts = so.lines().filter(|l| l.starts_with('\t') && !l.trim_start().starts_with('.')).map(|l| l.trim().to_string());
    for (k, o) in outs.iter().enumerate() {
        if failed.contains(&(k + 1)) {
            bad_out.push(format!("{}: llvm-mc does not disassemble {:02x?}", o.what, o.bytes));
            continue;
        }
        let t = texts.next().unwrap_or_default();
        if t != o.text {
            bad_out.push(format!("{}: llvm-mc prints `{t}`, we print `{}`", o.what, o.text));
        }
    }
    bad_out
}

/// An image instruction whose address VGPRs gfx1201 groups differently: a range, which
/// gfx1201 names one per field, or more than four dwords, the rest of which a sample names as
/// one range in its last field.
fn image_range(i: &Inst) -> bool {
    let addr = |o: &&isabridge_decoder::operand::Operand| o.field == "VADDR" || o.field.starts_with("NSA");
    let count = |o: &isabridge_decoder::operand::Operand| match o.kind {
        isabridge_decoder::operand::OperandKind::Reg(r) => r.count as usize,
        _ => 0,
    };
    i.encoding == "ENC_MIMG"
        && (i.operands.iter().any(|o| o.field == "VADDR" && count(o) > 1) || i.operands.iter().filter(addr).map(count).sum::<usize>() > 4)
}

fn short(e: &TranslateError) -> String {
    match e {
        TranslateError::Unsupported { reason, .. } => reason.clone(),
        TranslateError::Build { err, .. } => format!("gfx1201 build: {err}"),
    }
}

/// Every re-encode/rename row with a representative gfx1013 instruction translates, and
/// llvm-mc-22 agrees with our gfx1201 bytes and text; the rows without one, and the rows the
/// translator refuses, are listed with the reason and pinned by count.
#[test]
fn every_reencode_and_rename_row_translates_and_llvm_mc_agrees() {
    let mut rep: BTreeMap<(&str, &str), Inst> = BTreeMap::new();
    for (addr, b, _) in gfx1013_cases(true) {
        let Ok(d) = GFX10.decode(&b, addr) else { continue };
        let i = GFX10.operands(&d, addr);
        rep.entry((i.name, i.encoding)).or_insert(i);
    }
    let (mut outs, mut refused, mut missing) = (Vec::new(), BTreeMap::<String, u64>::new(), Vec::new());
    let mut rows_ok = 0usize;
    for r in rows().iter().filter(|r| matches!(r.kind, MapKind::Reencode | MapKind::Rename)) {
        let Some(i) = rep.get(&(r.gfx10, r.gfx10_enc)) else {
            missing.push(format!("{} {}", r.gfx10, r.gfx10_enc));
            continue;
        };
        for ieee in [true, false] {
            let res = translate_inst_in(i, &corpus_cx(false, ieee));
            rows_ok += (ieee && res.is_ok()) as usize;
            match res {
                // A one-instruction translation does not depend on the IEEE bit: checked once.
                Ok(v) if v.len() == 1 && !ieee => {}
                Ok(v) if v.len() == 1 => {
                    let reference = if image_range(i) { &v[0].inst } else { i };
                    outs.push(emit(&v[0].inst, reference, format!("{} {}", r.gfx10, r.gfx10_enc)))
                }
                // An expansion (the float min / max rows).
                Ok(v) => outs.extend(v.iter().map(|t| emit(&t.inst, &t.inst, format!("{} {} (expanded)", r.gfx10, r.gfx10_enc)))),
                Err(e) if ieee => *refused.entry(short(&e)).or_default() += 1,
                Err(_) => {}
            }
        }
    }
    let bad = llvm_mc_check(&outs);
    eprintln!("rows translated and checked: {rows_ok} ({} gfx1201 instructions); refused: {}; no representative: {}", outs.len(), refused.values().sum::<u64>(), missing.len());
    for (why, n) in &refused {
        eprintln!("refused {n}: {why}");
    }
    assert!(bad.is_empty(), "{} disagreements with llvm-mc-22:\n{}", bad.len(), bad.join("\n"));
    assert!(outs.len() > 900, "only {} rows translated", outs.len());
}

/// An export whose gfx1201 form has another target or other enabled sources (export.rs: the
/// null target becomes mrt0 with no channel, a compressed export the plain export of its two
/// packed dwords).
fn rewritten_export(i: &Inst) -> bool {
    let null = i.explicit().any(|o| matches!(o.kind, isabridge_decoder::operand::OperandKind::Field { ty: "OPR_EXP_TGT", value: 9 }));
    i.name == "EXP" && (null || i.named("COMPR").unwrap_or(0) != 0)
}

/// Every gfx1013 corpus instruction translates (llvm-mc-22 agrees with the output) or is a typed
/// error pinned in fixtures/amd/gfx12/translate_unsupported.tsv.
#[test]
fn corpus_instructions_translate_or_are_pinned() {
    let (mut total, mut ok, mut dropped) = (0u64, 0u64, 0u64);
    let mut errs: BTreeMap<(String, String), u64> = BTreeMap::new();
    let mut outs = Vec::new();
    let mut seen = BTreeSet::new();
    for (addr, b, wave64) in gfx1013_cases(false) {
        total += 1;
        let d = GFX10.decode(&b, addr).unwrap();
        let i = GFX10.operands(&d, addr);
        // The IEEE-clear sequences are checked by llvm-mc too; the counts are the IEEE ones.
        if let Ok(v) = translate_inst_in(&i, &corpus_cx(wave64, false)) {
            for t in v.iter().filter(|_| v.len() > 1) {
                let key = (t.inst.name, format!("{:?}", t.inst.operands), format!("{:?}", t.inst.modifiers), t.inst.addr);
                if seen.insert(key) {
                    outs.push(emit(&t.inst, &t.inst, format!("{} at {addr:#x} (IEEE clear)", i.name)));
                }
            }
        }
        match translate_inst_in(&i, &corpus_cx(wave64, true)) {
            Ok(v) if v.is_empty() => dropped += 1,
            Ok(v) => {
                ok += 1;
                // The operands carry over one for one, except in a sequence and where the
                // gfx1201 instruction is another one (s_memrealtime's message, s_cmpk_*'s
                // s_cmp_* with the constant as a source, the null and compressed exports
                // export.rs rewrites): those are compared with the instruction we built.
                let carried = v.len() == 1 && i.name != "S_MEMREALTIME" && !i.name.starts_with("S_CMPK_") && !image_range(&i) && !rewritten_export(&i);
                for t in v {
                    // llvm-mc sees each distinct gfx1201 instruction once.
                    let key = (t.inst.name, format!("{:?}", t.inst.operands), format!("{:?}", t.inst.modifiers), t.inst.addr);
                    if seen.insert(key) {
                        let reference = if carried { &i } else { &t.inst };
                        outs.push(emit(&t.inst, reference, format!("{} at {addr:#x}", i.name)));
                    }
                }
            }
            Err(e) => {
                assert!(matches!(&e, TranslateError::Unsupported { addr: a, name, .. } if *a == addr && *name == i.name) || matches!(e, TranslateError::Build { .. }), "{e}");
                *errs.entry((i.name.to_lowercase(), short(&e))).or_default() += 1;
            }
        }
    }
    let bad = llvm_mc_check(&outs);
    assert!(bad.is_empty(), "{} disagreements with llvm-mc-22:\n{}", bad.len(), bad.join("\n"));
    let mut now = String::from(
        "# gfx1013 instructions of fixtures/amd/ref (w32 and w64 listings) the gfx1201 translator refuses, with its reason.\n\
         # Written by `ISABRIDGE_UPDATE_GFX12_COUNTS=1 cargo test --release -p isabridge-targets --test gfx12_translate`.\n",
    );
    now += &format!("# {total} instructions: {ok} translate, {dropped} waits dropped (recomputed), {} refused\n", total - ok - dropped);
    now += "mnemonic\tcount\treason\n";
    for ((m, why), n) in &errs {
        now += &format!("{m}\t{n}\t{why}\n");
    }
    let path = root().join("fixtures/amd/gfx12/translate_unsupported.tsv");
    if std::env::var_os("ISABRIDGE_UPDATE_GFX12_COUNTS").is_some() {
        std::fs::write(&path, &now).unwrap();
    }
    eprintln!("{total} instructions: {ok} translate, {dropped} dropped waits, {} refused; {} distinct outputs checked by llvm-mc-22", total - ok - dropped, outs.len());
    let pinned = std::fs::read_to_string(&path).expect("fixtures/amd/gfx12/translate_unsupported.tsv");
    assert!(now == pinned, "fixtures/amd/gfx12/translate_unsupported.tsv differs (ISABRIDGE_UPDATE_GFX12_COUNTS=1 rewrites it):\n{now}");
}

/// Non-gfx1013 input and a gfx1013 instruction without a translation are typed errors naming
/// the ISA, address and instruction.
#[test]
fn errors_name_isa_address_and_instruction() {
    // v_mac_f32_e32 v0, v1, v2 (gfx1013 VOP2 opcode 0x1f): a sequence row not written yet.
    let b = [0x01u8, 0x05, 0x00, 0x3e];
    let d = GFX10.decode(&b, 0x40).unwrap();
    let i = GFX10.operands(&d, 0x40);
    assert_eq!(row(i.name, i.encoding).unwrap().kind, MapKind::Sequence);
    let e = translate_inst(&i).unwrap_err().to_string();
    assert!(e.starts_with("gfx1013 0x40: V_MAC_F32:"), "{e}");
    let d12 = GFX12.decode(&[0x01, 0x00, 0x80, 0xbe], 8).unwrap();
    let e = translate_inst(&GFX12.operands(&d12, 8)).unwrap_err().to_string();
    assert!(e.starts_with("gfx1201 0x8: S_MOV_B32:"), "{e}");
    // v_min_f32_e32 v2, v2, v3 without the gfx1013 MODE.IEEE bit: refused, never approximated.
    let d = GFX10.decode(&[0x02, 0x07, 0x04, 0x1e], 0x44).unwrap();
    let e = translate_inst(&GFX10.operands(&d, 0x44)).unwrap_err().to_string();
    assert!(e.starts_with("gfx1013 0x44: V_MIN_F32:") && e.contains("IEEE"), "{e}");
}

/// RDNA2 code of fixtures/rdna/vectors.jsonl (decoded with the gfx10.3 dot extension) that
/// needs what the corpus lacks: the f16 dot products of Float16Dot translate to gfx1201
/// `v_dot2_f32_f16` forms (VOP3P and VOP3P DPP16), the `v_pk_fmac_f16` DPP16 forms of
/// Dpp16Operands expand (expand_dpp.rs); llvm-mc-22 agrees with every instruction they give.
/// conform rdna --via gfx1201 runs both.
#[test]
fn rdna2_dot_products_and_dpp_expansions_translate_and_llvm_mc_agrees() {
    let vectors = std::fs::read_to_string(root().join("fixtures/rdna/vectors.jsonl")).unwrap();
    let mut outs = Vec::new();
    let mut counts = BTreeMap::new();
    for (name, wanted) in [("Float16Dot", "V_DOT"), ("Dpp16Operands", "V_PK_FMAC_F16")] {
        let v: serde_json::Value = vectors.lines().map(|l| serde_json::from_str(l).unwrap()).find(|v: &serde_json::Value| v["name"] == name).unwrap();
        let code: Vec<u8> = v["wave32_code"].as_array().unwrap().iter().flat_map(|w| (w.as_u64().unwrap() as u32).to_le_bytes()).collect();
        for i in decode_rdna2(&code, 0).unwrap().iter().filter(|i| i.name.starts_with(wanted)) {
            let t = translate_inst_in(i, &corpus_cx(false, false)).unwrap_or_else(|e| panic!("{e}"));
            for x in &t {
                outs.push(emit(&x.inst, &x.inst, format!("{name}: {} at {:#x}", i.name, i.addr)));
            }
            *counts.entry((i.name, i.encoding, t.len())).or_insert(0) += 1;
        }
    }
    assert_eq!(
        format!("{counts:?}"),
        "{(\"V_DOT2C_F32_F16\", \"ENC_VOP2\", 1): 3, (\"V_DOT2C_F32_F16\", \"ENC_VOP2_DPP16\", 1): 1, (\"V_DOT2_F32_F16\", \"ENC_VOP3P\", 1): 6, (\"V_PK_FMAC_F16\", \"ENC_VOP2_DPP16\", 8): 3}"
    );
    let bad = llvm_mc_check(&outs);
    assert!(bad.is_empty(), "{} disagreements with llvm-mc-22:\n{}", bad.len(), bad.join("\n"));
}

/// The RDNA2 vectors' float clamps and min / max forms the corpus lacks (Dx10Clamp,
/// Float16Modifiers, Float16TernaryClamp, F16MinMaxNan_DenormSdwaHigh): every clamped float op
/// and every f16 min / max, the VOP3 op_sel forms included, translates under each DX10_CLAMP
/// and IEEE bit (expand_outmods.rs, expand_minmax.rs, expand_sdwa.rs), and llvm-mc-22 agrees
/// with every instruction they give. conform rdna --via gfx1201 runs them.
#[test]
fn rdna2_clamp_and_min_max_expansions_translate_and_llvm_mc_agrees() {
    let vectors = std::fs::read_to_string(root().join("fixtures/rdna/vectors.jsonl")).unwrap();
    let mut outs = Vec::new();
    let (mut translated, mut refused) = (0, BTreeMap::new());
    for name in ["Dx10Clamp", "Float16Modifiers", "Float16TernaryClamp", "F16MinMaxNan_DenormSdwaHigh"] {
        let v: serde_json::Value = vectors.lines().map(|l| serde_json::from_str(l).unwrap()).find(|v: &serde_json::Value| v["name"] == name).unwrap();
        let code: Vec<u8> = v["wave32_code"].as_array().unwrap().iter().flat_map(|w| (w.as_u64().unwrap() as u32).to_le_bytes()).collect();
        let insts = decode_rdna2(&code, 0).unwrap();
        let wanted = |i: &&Inst| i.modifiers.contains(&isabridge_decoder::operand::Modifier::Clamp) || i.name.contains("_MIN") || i.name.contains("_MAX") || i.name.contains("_MED3");
        for i in insts.iter().filter(wanted) {
            for (ieee, dx10) in [(false, true), (false, false), (true, true), (true, false)] {
                let cx = ExpandCx { dx10_clamp: Some(dx10), ..corpus_cx(false, ieee) };
                match translate_inst_in(i, &cx) {
                    Ok(t) => {
                        translated += 1;
                        outs.extend(t.iter().map(|x| emit(&x.inst, &x.inst, format!("{name}: {} at {:#x}", i.name, i.addr))));
                    }
                    Err(e) => *refused.entry(short(&e)).or_insert(0) += 1,
                }
            }
        }
    }
    assert_eq!(translated, 4 * 41, "refused: {refused:?}");
    assert!(refused.is_empty(), "{refused:?}");
    let bad = llvm_mc_check(&outs);
    assert!(bad.is_empty(), "{} disagreements with llvm-mc-22:\n{}", bad.len(), bad.join("\n"));
}
