//! Exports (EXP -> VEXPORT): the target, the four sources and the DONE / EN fields carry over;
//! the targets whose number and meaning gfx1201 keeps are the colour targets mrt0-7, mrtz and
//! pos0-3 (the same ids in both: llvm-mc-22 assembles them for gfx1013 and gfx1201 to the same
//! TARGET values). gfx1201 has no VM bit: LLVM 22's gfx1013 and gfx1201 builds of the same pixel
//! shaders (fixtures/amd/ref gfx_sample) end with `exp mrt0 ... done vm` and
//! `export mrt0 ... done`, so VM is dropped.
//!
//! Compressed colour exports (`exp mrtN vA, vA, vB, vB compr`): gfx11 removed the COMPR bit;
//! a packed 16-bit colour export is the plain export of the two packed dwords with channel mask
//! 0x3, the hardware reading them as 16-bit channels by the target's SPI_SHADER_COL_FORMAT
//! (Mesa ACO's PS epilog, `export_fs_mrt_color`: "GFX11 doesn't use COMPR for exports, but the
//! channel mask should be 0x3 instead"; LLVM refuses `llvm.amdgcn.exp.compr` for gfx11+,
//! `hasCompressedExport`). The compressed form reads VSRC0 (channels 0-1, low and high half)
//! and VSRC1 (channels 2-3), so the registers stay in their fields, and EN's bit pair 2k-2k+1
//! becomes bit k. Only whole pairs translate: a pair with one bit set has no agreed meaning
//! (LLVM's llvm.amdgcn.exp.compr tests name EN 2 and 10 `invalid`, while RADV's LLVM path
//! exported FP16_ABGR colour with EN 0x5 for all four channels, against the lifter's
//! per-half reading), so it is a typed error. Compressed mrtz and position exports are typed
//! errors too (their gfx12 format comes from other registers; no source shows the form).
//!
//! Null exports (`exp null ... done`, LLVM's end of a pixel shader whose lanes were all killed):
//! gfx11 removed the null target (LLVM `hasNullExportTarget`: false from gfx11; its
//! SILateBranchLowering writes MRT0, or MRTZ for a stage with depth but no colour exports,
//! with no channel enabled). LLVM 22's gfx1013 and gfx1201 builds of the same shaders
//! (fixtures/amd/bin gfx_sample and gfx12_sample, `ps_a16_d16`, `ps_msaa`) end their kill path
//! with `exp null off, off, off, off done vm` and `export mrt0 off, off, off, off done`. The
//! null target exports no data whatever EN says (LLVM's target syntax: "null: copy nothing"), so
//! a null export with DONE becomes `export mrt0 off, off, off, off done` (sources `off`, encoded
//! 0 as llvm-mc-22 does). `check_null_exports` refuses the functions whose only other
//! exports are to mrtz (LLVM would use mrtz there); a null export without DONE (no source shows
//! one) is a typed error.
//!
//! Refused: parameter exports (gfx1201 passes attributes through memory), and the primitive
//! and other targets.

use super::map::MapRow;
use super::{alu, unsupported, TranslateError};
use isabridge_decoder::operand::{Modifier, OperandKind};
use isabridge_decoder::Inst;
use isabridge_ir::ops::stage::{StageEvent, StageOp, Target};

/// gfx10 export target ids (`exp` TARGET): mrt0-7, mrtz, null, pos0-3, param0-31.
const MRTZ: u64 = 8;
const NULL: u64 = 9;

/// The export target of `inst`, when it is an export with a target operand.
pub(super) fn target_of(inst: &Inst) -> Option<u64> {
    inst.explicit().find_map(|o| match o.kind {
        OperandKind::Field { ty: "OPR_EXP_TGT", value } => Some(value),
        _ => None,
    })
}

/// The gfx1201 form of export `inst` under map row `r`.
pub(super) fn translate(inst: &Inst, r: &MapRow) -> Result<Inst, TranslateError> {
    let target = target_of(inst);
    match target {
        Some(0..=NULL | 12..=15) => {}
        Some(32..=63) => return Err(unsupported(inst, "parameter export: gfx1201 passes attributes through memory")),
        Some(t) => return Err(unsupported(inst, &format!("export target {t}: not the same on gfx1201 (only mrt0-7, mrtz, pos0-3)"))),
        None => return Err(unsupported(inst, "export without a target operand")),
    }
    let null = target == Some(NULL);
    let compr = inst.named("COMPR").unwrap_or(0) != 0;
    let en = inst.named("EN").unwrap_or(0);
    let done = inst.named("DONE").unwrap_or(0);
    let mut out = alu::translate(inst, r)?;
    for m in &inst.modifiers {
        match *m {
            Modifier::Named("COMPR" | "VM" | "DONE" | "EN", _) => {}
            _ => return Err(unsupported(inst, "an export modifier the translator does not map")),
        }
    }
    let en12 = if null {
        if done == 0 {
            return Err(unsupported(inst, "null export without done: gfx1201 has no null target and no source shows this form"));
        }
        0
    } else if compr {
        if !matches!(target, Some(0..=7)) {
            return Err(unsupported(inst, "compressed mrtz or position export: gfx1201 has no COMPR bit and no source shows the packed form"));
        }
        let pair = |k: u32| match en >> (2 * k) & 3 {
            0 => Ok(0),
            3 => Ok(1 << k),
            _ => Err(unsupported(inst, &format!("compressed export with EN {en:#x}: half of a 16-bit pair enabled, whose meaning the sources disagree on"))),
        };
        pair(0)? | pair(1)?
    } else {
        en
    };
    for o in out.operands.iter_mut() {
        match (&mut o.kind, o.field) {
            // The null target becomes mrt0 (module notes).
            (OperandKind::Field { ty: "OPR_EXP_TGT", value }, _) if null => *value = 0,
            // A disabled source is `off`, which llvm-mc-22 encodes as 0.
            (kind, f) if f.starts_with("VSRC") => {
                let k = f[4..].parse::<u32>().unwrap_or(0);
                if en12 >> k & 1 == 0 {
                    *kind = OperandKind::Field { ty: "OFF", value: 0 };
                }
            }
            _ => {}
        }
    }
    let mut mods = Vec::new();
    if done != 0 {
        mods.push(Modifier::Named("DONE", done));
    }
    if en12 != 0 {
        mods.push(Modifier::Named("EN", en12));
    }
    out.modifiers = mods;
    Ok(out)
}

/// Refuses a function (gfx1013 code `insts`) whose null exports cannot become mrt0 exports:
/// it exports to mrtz and to no colour target, where LLVM's gfx11+ kill path writes mrtz
/// (module notes).
pub(super) fn check_null_exports(insts: &[Inst]) -> Result<(), TranslateError> {
    let exports = || insts.iter().filter(|i| i.name == "EXP");
    let Some(null) = exports().find(|i| target_of(i) == Some(NULL)) else { return Ok(()) };
    let depth_only = exports().any(|i| target_of(i) == Some(MRTZ)) && !exports().any(|i| matches!(target_of(i), Some(0..=7)));
    if depth_only {
        return Err(unsupported(null, "null export in a function with depth and no colour exports: LLVM's gfx11+ form uses mrtz there, whose mrt0 stand-in is not sourced"));
    }
    Ok(())
}

/// Brings the stage events of a gfx1013 function (code `insts`) and of its gfx1201 translation
/// to one form before selfcheck compares them, after what the translation changes on purpose
/// (module notes) and nothing else:
/// - the original's exports to the null target are dropped (null exports no data);
/// - VM is cleared on both sides' done marks (gfx1201 has no VM bit);
/// - for each colour target the original exports only compressed, each translated export event
///   of dword channel k (the two packed halves) is split back into 16-bit channels 2k (low
///   half) and 2k+1 (high half). The interpreter records an export as one event per lane for
///   each enabled channel in turn, so a run of consecutive events of one channel becomes the
///   run of its low halves followed by the run of its high halves, the order the compressed
///   original records. The split is one-to-one, so the comparison stays exact: the same 16-bit
///   values reach the same target and channel, lane by lane, in the same order; every other
///   event is compared as recorded.
pub fn normalise_stage_events(insts: &[Inst], original: &mut Vec<StageEvent>, translated: &mut Vec<StageEvent>) {
    let exports: Vec<(u64, bool)> = insts.iter().filter(|i| i.name == "EXP").filter_map(|i| Some((target_of(i)?, i.named("COMPR").unwrap_or(0) != 0))).collect();
    let compressed: Vec<Target> = (0..8u8)
        .filter(|t| {
            let to_t = || exports.iter().filter(|e| e.0 == *t as u64);
            to_t().next().is_some() && to_t().all(|e| e.1)
        })
        .map(Target::Mrt)
        .collect();
    original.retain(|e| !matches!(e.op, StageOp::Export { target: Target::Null, .. }));
    for e in original.iter_mut().chain(translated.iter_mut()) {
        if let StageOp::Done { vm } = &mut e.op {
            *vm = false;
        }
    }
    let mut split = Vec::with_capacity(translated.len() * 2);
    let mut i = 0;
    while i < translated.len() {
        let op = translated[i].op;
        let n = translated[i..].iter().take_while(|e| e.op == op).count();
        let run = &translated[i..i + n];
        match op {
            StageOp::Export { target, chan } if compressed.contains(&target) => {
                for half in 0..2u8 {
                    let op = StageOp::Export { target, chan: 2 * chan + half };
                    split.extend(run.iter().map(|e| StageEvent { thread: e.thread, op, value: e.value >> (16 * half) & 0xffff }));
                }
            }
            _ => split.extend_from_slice(run),
        }
        i += n;
    }
    *translated = split;
}

#[cfg(test)]
mod tests {
    use super::super::function::decode_gfx1013;
    use super::*;

    /// llvm-mc-22 -mcpu=gfx1013's words of `exp mrtz v1, off, off, off vm`,
    /// `exp null off, off, off, off done vm` and `exp mrt0 v2, off, off, off vm`.
    const MRTZ_V1: [u32; 2] = [0xf800_1081, 0x0000_0001];
    const NULL_DONE: [u32; 2] = [0xf800_1890, 0x0000_0000];
    const MRT0_V2: [u32; 2] = [0xf800_1001, 0x0000_0002];

    fn insts(words: &[[u32; 2]]) -> Vec<Inst> {
        let bytes: Vec<u8> = words.iter().flatten().flat_map(|w| w.to_le_bytes()).collect();
        decode_gfx1013(&bytes, 0).unwrap()
    }

    #[test]
    fn null_exports_of_depth_only_functions_are_refused() {
        let e = check_null_exports(&insts(&[MRTZ_V1, NULL_DONE])).unwrap_err();
        assert!(e.to_string().contains("depth and no colour exports"), "{e}");
        assert!(check_null_exports(&insts(&[MRTZ_V1, MRT0_V2, NULL_DONE])).is_ok());
        assert!(check_null_exports(&insts(&[NULL_DONE])).is_ok());
        assert!(check_null_exports(&insts(&[MRTZ_V1])).is_ok());
    }

    /// A colour target the original exports both compressed and not is not split: its events
    /// are compared as recorded.
    #[test]
    fn mixed_compression_targets_are_not_split() {
        // `exp mrt0 v2, v2, off, off compr vm` (llvm-mc-22 -mcpu=gfx1013) and MRT0_V2.
        let code = insts(&[[0xf800_1403, 0x0000_0002], MRT0_V2]);
        let ev = |chan, value| StageEvent { thread: 0, op: StageOp::Export { target: Target::Mrt(0), chan }, value };
        let mut a = vec![ev(0, 0x1111), ev(1, 0x2222)];
        let mut b = vec![ev(0, 0x2222_1111)];
        normalise_stage_events(&code, &mut a, &mut b);
        assert_eq!(b, [ev(0, 0x2222_1111)]);
        // Compressed only: split into the halves, low half first.
        let code = insts(&[[0xf800_1403, 0x0000_0002]]);
        normalise_stage_events(&code, &mut a, &mut b);
        assert_eq!(b, a);
    }
}
