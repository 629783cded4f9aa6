//! gfx1201 counter waits on LLVM 22's gfx1201 output (fixtures/amd/bin/*.gfx1201-w32.o): the
//! checker accepts LLVM's own waits, flags the code with its counter waits removed, and accepts
//! the waits `insert_waits` computes for it; the number of waits inserted against LLVM's is
//! printed and pinned.

use isabridge_decoder::Isa;
use isabridge_targets::gfx12::waitcheck::{check, Entry};
use isabridge_targets::gfx12::waits::{insert_waits, is_counter_wait};
use isabridge_targets::gfx12::TranslatedInst;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One corpus function: its name, whether it is an entry point, its instructions.
pub struct Func {
    pub object: String,
    pub name: String,
    pub entry: bool,
    pub insts: Vec<TranslatedInst>,
}

/// Every gfx1201 function of the corpus, decoded linearly from its first to its last byte.
pub fn corpus() -> Vec<Func> {
    let p = Isa::Gfx1201.plugin();
    let mut out = Vec::new();
    let mut objs: Vec<_> = std::fs::read_dir(root().join("fixtures/amd/bin"))
        .expect("fixtures/amd/bin")
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".gfx1201-w32.o"))
        .collect();
    objs.sort();
    for o in objs {
        let bytes = std::fs::read(&o).unwrap();
        let prog = isabridge_analysis::load(&bytes, None).unwrap();
        for s in &prog.sections {
            for f in &s.functions {
                let mut insts = Vec::new();
                let mut a = f.start;
                while a < f.end {
                    let off = (a - s.address) as usize;
                    let d = p.decode(&s.data[off..(f.end - s.address) as usize], a).unwrap_or_else(|e| panic!("{}: {e}", f.name));
                    insts.push(TranslatedInst { inst: p.operands(&d, a), src_addr: a });
                    a += d.len as u64;
                }
                // An object with no HSA kernel (PAL graphics) has only entry points.
                let entry = prog.kernel_wave.is_empty()
                    || prog.kernel_wave.contains_key(&f.name)
                    || prog.entry_wave.contains_key(&f.name);
                out.push(Func { object: o.file_name().unwrap().to_string_lossy().into(), name: f.name.clone(), entry, insts });
            }
        }
    }
    out
}

/// Functions whose LLVM waits count FLAT accesses in order (see below).
const FLAT_IN_ORDER_BY_LLVM: &[&str] =
    &["flat_work", "flat_atomics", "__clang_ocl_kern_imp_flat_atomics", "_Z5sort8Pi", "_Z6hornerPKdid"];

#[test]
fn recomputed_waits_cover_every_use_of_the_corpus() {
    let funcs = corpus();
    let (mut llvm_waits, mut our_waits, mut flagged_stripped, mut insts) = (0usize, 0usize, 0usize, 0usize);
    let mut llvm_violations = Vec::new();
    for f in &funcs {
        insts += f.insts.len();
        let entry = if f.entry { Entry::Clean } else { Entry::AllPending };
        let v = check(&f.insts, entry, usize::MAX).unwrap_or_else(|e| panic!("{}: {e}", f.name));
        if !v.is_empty() {
            llvm_violations.push((f.name.clone(), v));
        }
        llvm_waits += f.insts.iter().filter(|t| is_counter_wait(&t.inst)).count();
        let stripped: Vec<_> = f.insts.iter().filter(|t| !is_counter_wait(&t.inst)).cloned().collect();
        if !check(&stripped, Entry::Clean, 1).unwrap().is_empty() {
            flagged_stripped += 1;
        }
        let ours = insert_waits(&stripped).unwrap_or_else(|e| panic!("{}: {e}", f.name));
        let v = check(&ours, Entry::Clean, usize::MAX).unwrap();
        assert!(v.is_empty(), "{} {}: our waits leave uses uncovered: {v:?}", f.object, f.name);
        our_waits += ours.iter().filter(|t| is_counter_wait(&t.inst)).count();
    }
    println!(
        "gfx1201 corpus: {} functions, {insts} instructions; LLVM's counter waits {llvm_waits}, ours {our_waits}; \
         {flagged_stripped} functions flagged with LLVM's waits removed; LLVM's own code flagged in {} functions",
        funcs.len(),
        llvm_violations.len()
    );
    for (n, v) in &llvm_violations {
        println!("  LLVM {n}: {:?}", &v[..v.len().min(2)]);
    }
    // The checker (like the pass) waits for 0 on a counter while a FLAT access is outstanding
    // on it. LLVM 22 counts FLAT accesses in order on loadcnt and dscnt: flat_work waits with
    // `s_wait_loadcnt_dscnt 0x101` after three FLAT accesses, _Z5sort8Pi with 0x1 after a FLAT
    // load and a FLAT store. The order of a FLAT access's two decrements is not derived here,
    // so these functions of LLVM's are flagged by the stricter rule, at a use after a FLAT
    // access.
    let flat_only: Vec<&str> = llvm_violations.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(flat_only, FLAT_IN_ORDER_BY_LLVM, "the checker's verdict on LLVM's own waits");
    assert_eq!((funcs.len(), llvm_waits, our_waits, flagged_stripped), (772, 3389, 1919, 765), "pinned counts");
}

/// Every corpus function with our waits, `s_getpc_b64` replaced and laid out at its own
/// address: each instruction's bytes are what it builds to at its place, and llvm-mc-22
/// --disassemble --mcpu=gfx1201 prints every instruction exactly as our printer does (one
/// batch for the corpus).
#[test]
fn laid_out_code_decodes_with_llvm_as_with_ours() {
    use isabridge_targets::gfx12::layout::{place, replace_getpc};
    let p = Isa::Gfx1201.plugin();
    let (mut input, mut ours) = (String::new(), Vec::new());
    let mut getpc = 0usize;
    for f in corpus() {
        let stripped: Vec<_> = f.insts.iter().filter(|t| !is_counter_wait(&t.inst)).cloned().collect();
        getpc += stripped.iter().filter(|t| t.inst.name == "S_GETPC_B64").count();
        let waited = insert_waits(&stripped).unwrap();
        let code = replace_getpc(&waited, 0).unwrap();
        let start = f.insts.first().map_or(0, |t| t.src_addr);
        let laid = place(&code, start).unwrap_or_else(|e| panic!("{}: {e}", f.name));
        let mut off = 0usize;
        for t in &laid.insts {
            let d = p.decode(&laid.code[off..], t.inst.addr).unwrap_or_else(|e| panic!("{}: {e}", f.name));
            let mut s = String::new();
            p.print(&d, t.inst.addr, &mut s);
            ours.push(s);
            let bytes = &laid.code[off..off + d.len as usize];
            // Placement's bytes are the instruction built on its own at its place.
            assert_eq!(p.build(&t.inst).as_deref(), Ok(bytes), "{}: {:#x}", f.name, t.inst.addr);
            input.push_str(&bytes.iter().map(|b| format!("{b:#04x}")).collect::<Vec<_>>().join(","));
            input.push('\n');
            off += d.len as usize;
        }
        assert_eq!(off, laid.code.len(), "{}", f.name);
    }
    let dir = std::env::temp_dir().join(format!("gfx12_waits_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("code.txt");
    std::fs::write(&path, &input).unwrap();
    let o = std::process::Command::new("llvm-mc-22")
        .args(["--disassemble", "-triple=amdgcn", "-mcpu=gfx1201"])
        .arg(&path)
        .output()
        .expect("llvm-mc-22 runs");
    let text = String::from_utf8_lossy(&o.stdout);
    let theirs: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('.')).collect();
    assert_eq!(theirs.len(), ours.len(), "llvm-mc-22 decoded a different number of instructions: {}", String::from_utf8_lossy(&o.stderr));
    let differ: Vec<_> = ours.iter().zip(&theirs).filter(|(a, b)| a.trim() != **b).take(10).collect();
    assert!(differ.is_empty(), "{differ:?}");
    println!("laid out {} gfx1201 instructions ({getpc} s_getpc_b64 replaced): llvm-mc-22 prints each as our printer does", ours.len());
    std::fs::remove_dir_all(&dir).ok();
}

/// The SIMM16 of an `s_wait_alu`.
fn simm16(t: &TranslatedInst) -> u16 {
    use isabridge_decoder::operand::OperandKind;
    t.inst
        .operands
        .iter()
        .find_map(|o| match o.kind {
            OperandKind::Imm(v) if !o.implicit => Some(v as u16),
            OperandKind::Field { value, .. } if !o.implicit => Some(value as u16),
            _ => None,
        })
        .unwrap_or(0xffff)
}

/// Every `s_wait_alu` LLVM 22 placed in the gfx1201 corpus is matched by one of
/// `insert_alu_waits` before the same instruction (the next one that is not a wait or an
/// `s_delay_alu`), waiting on at least the same fields; the counts are pinned.
#[test]
fn alu_waits_cover_llvms() {
    use isabridge_targets::gfx12::hazards::insert_alu_waits;
    use isabridge_decoder::operand::Flow;
    let (mut llvm, mut ours, mut covered) = (0usize, 0usize, 0usize);
    let mut missed = Vec::new();
    for f in corpus() {
        let is_wait = |t: &TranslatedInst| t.inst.name.starts_with("S_WAIT") || t.inst.name == "S_DELAY_ALU";
        let mut want = Vec::new();
        for (i, t) in f.insts.iter().enumerate() {
            if t.inst.name == "S_WAIT_ALU" {
                if let Some(next) = f.insts[i..].iter().find(|x| !is_wait(x)) {
                    want.push((next.src_addr, simm16(t)));
                }
                llvm += 1;
            }
        }
        let got = insert_alu_waits(&f.insts).unwrap_or_else(|e| panic!("{}: {e}", f.name));
        ours += got.iter().filter(|t| t.inst.name == "S_WAIT_ALU").count();
        for (anchor, v) in want {
            // Ours sits before the anchor with no scalar write of the kind LLVM waits for in
            // between (walking back through the listing: ours may wait earlier, at the first
            // read after the write).
            let at = got.iter().position(|t| t.src_addr >= anchor && t.inst.name != "S_WAIT_ALU").unwrap_or(got.len());
            // Per kind of field LLVM waits on: SALU writes (bit 0), VALU writes (the rest).
            let covered_kind = |salu_kind: bool, fields: u16| {
                got[..at].iter().rev().find_map(|t| {
                    if t.inst.name == "S_WAIT_ALU" && simm16(t) & fields == 0 {
                        return Some(true);
                    }
                    use isabridge_decoder::operand::{OperandKind, RegClass, SpecialReg};
                    let scalar_write = t.inst.defs().any(|o| match o.kind {
                        OperandKind::Reg(r) => r.class != RegClass::Vgpr,
                        OperandKind::Special { reg, .. } => !matches!(reg, SpecialReg::Scc | SpecialReg::Null),
                        _ => false,
                    });
                    let salu = matches!(t.inst.encoding, "ENC_SOP1" | "ENC_SOP2" | "ENC_SOPC" | "ENC_SOPK");
                    let valu = t.inst.encoding.starts_with("ENC_VOP");
                    if scalar_write && if salu_kind { salu } else { valu } {
                        return Some(false);
                    }
                    // Past an instruction that does not fall through, the listing is no
                    // longer the path: the anchor is reached only by branches.
                    (!matches!(t.inst.flow, Flow::Next | Flow::CondBranch | Flow::Call | Flow::IndirectCall)).then_some(false)
                }) == Some(true)
            };
            let sa = !v & 1;
            let va = !v & 0xfffe;
            let strict = (sa == 0 || covered_kind(true, sa)) && (va == 0 || covered_kind(false, va));
            if strict {
                covered += 1;
            } else {
                missed.push((f.name.clone(), anchor, v));
            }
        }
    }
    println!("gfx1201 corpus: LLVM's s_wait_alu {llvm}, ours {ours}; LLVM's covered by ours {covered}");
    // _Z7collatzj 0x544 starts a block reached only by branches: the walk back through the
    // listing stops at the unconditional branch before it (ours waits on the incoming paths,
    // which this walk does not follow).
    let missed: Vec<_> = missed.iter().map(|(n, a, _)| (n.as_str(), *a)).collect();
    assert_eq!(missed, [("_Z7collatzj", 0x544)], "LLVM waits ours do not match");
    assert_eq!((llvm, ours, covered), (3016, 4837, 3015), "pinned counts");
}

/// A branch whose re-targeted offset leaves the signed 16-bit dword range is a typed error;
/// temporaries come above every register the program names and its declared counts.
#[test]
fn layout_limits_and_temporaries() {
    use isabridge_decoder::operand::RegClass;
    use isabridge_targets::gfx12::layout::{place, LayoutError, Temps};
    let p = Isa::Gfx1201.plugin();
    let inst = |word: u32, addr: u64| {
        let d = p.decode(&word.to_le_bytes(), addr).unwrap();
        TranslatedInst { inst: p.operands(&d, addr), src_addr: addr }
    };
    // s_nop 0 x 32768, then s_branch back to the first (offset -32769 dwords once placed).
    let mut code: Vec<_> = (0..32768u64).map(|i| inst(0xbf80_0000, 4 * i)).collect();
    let mut br = inst(0xbfa0_0000, 4 * 32768);
    for o in &mut br.inst.operands {
        if let isabridge_decoder::operand::OperandKind::Label(t) = &mut o.kind {
            *t = 0;
        }
    }
    code.push(br.clone());
    assert!(matches!(place(&code, 0), Err(LayoutError::BranchOutOfRange { target: 0, .. })));
    // One nop fewer: -32768 fits.
    code.remove(0);
    let last = code.len() - 1;
    for o in &mut code[last].inst.operands {
        if let isabridge_decoder::operand::OperandKind::Label(t) = &mut o.kind {
            *t = 4;
        }
    }
    let laid = place(&code, 0).unwrap();
    assert_eq!(&laid.code[laid.code.len() - 4..], &0xbfa0_8000u32.to_le_bytes());
    // v_mov_b32 v7, s9 (VOP1 0x7e0e0209): temporaries start above v7 / s9 and the declared counts.
    let prog = [inst(0x7e0e_0209, 0)];
    let mut t = Temps::new(&prog, 4, 12);
    assert_eq!((t.vgprs, t.sgprs), (8, 12));
    let v = t.vgprs(2).unwrap();
    assert_eq!((v.class, v.first, v.count), (RegClass::Vgpr, 8, 2));
    let s = t.sgprs(2).unwrap();
    assert_eq!((s.class, s.first, s.count), (RegClass::Sgpr, 12, 2));
    assert_eq!((t.vgprs, t.sgprs), (10, 14));
    assert!(matches!(t.vgprs(300), Err(LayoutError::OutOfRegisters { .. })));
}
