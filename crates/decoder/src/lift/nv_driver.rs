//! The driver both NVIDIA lifters (sm_50 and sm_86) run on: decoding a program into operand
//! models, the block leaders of its direct branches, the lanes-model function with its entry,
//! one block per leader and the shared exit block, the walk over the instructions block by
//! block, and the scratch function `lift_one` lifts a single instruction in. What differs
//! between the ISAs (reconvergence, calls, families) stays in each lifter's hooks.

use super::sm86::{target, unsupported_at, At, Cx, Options};
use super::LiftError;
use crate::nvidia::model::LayoutCache;
use crate::operand::{Flow, Inst};
use crate::{Decoded, Isa};
use isabridge_ir::ir::{Block, ExecModel, Function};
use isabridge_ir::ops::control::SyncOp;
use isabridge_ir::ops::int::{ICmp, IntOp};
use isabridge_ir::ops::Op;
use isabridge_ir::{Type, Value};
use std::collections::{BTreeSet, HashMap};

/// Refuse any ISA but `want`.
pub(crate) fn check_isa(isa: Isa, want: Isa, addr: u64) -> Result<(), LiftError> {
    if isa == want {
        return Ok(());
    }
    Err(LiftError::Unsupported { isa, addr, text: String::new(), why: format!("only {want} code lifts here") })
}

/// Decode every instruction of `code` (the first at `base`) with its operand model, the forms'
/// layouts kept in `layouts`.
pub(crate) fn decode_all(isa: Isa, code: &[u8], base: u64, layouts: &mut LayoutCache) -> Result<Vec<(Inst, Decoded)>, LiftError> {
    let plugin = isa.plugin();
    let mut insts = Vec::with_capacity(code.len() / plugin.unit().max(1));
    let mut off = 0usize;
    // The operand model of each form's template, worked out once per form for the whole code
    // (the plugins' `operands`, which work it out for every instruction).
    let model: Option<&crate::nvidia::NvPlugin> = match isa {
        Isa::Sm86 => Some(&crate::sm86::SM86),
        Isa::Sm50 => Some(&crate::sm50::SM50_INSN),
        _ => None,
    };
    if code.is_empty() {
        return Err(LiftError::Decode { isa, addr: base, why: "no code (an empty input)".into() });
    }
    while off < code.len() {
        let addr = base + off as u64;
        let d = plugin.decode(&code[off..], addr).map_err(|e| LiftError::Decode { isa, addr, why: e.to_string() })?;
        let inst = match model {
            Some(p) => crate::nvidia::model::operands_with(p, &d, addr, layouts),
            None => plugin.operands(&d, addr),
        };
        insts.push((inst, d));
        off += d.len.max(1) as usize;
    }
    Ok(insts)
}

/// Decode the instruction at the start of `bytes` (at `addr`) with its operand model.
pub(crate) fn decode_one(isa: Isa, bytes: &[u8], addr: u64) -> Result<(Inst, Decoded), LiftError> {
    let plugin = isa.plugin();
    let d = plugin.decode(bytes, addr).map_err(|e| LiftError::Decode { isa, addr, why: e.to_string() })?;
    Ok((plugin.operands(&d, addr), d))
}

/// IR instructions a guest instruction lifts to, about (8-15 in the lifter snapshots): what
/// [`lanes_function`] reserves room for, so that the instruction arena is not copied as it grows.
const IR_PER_GUEST: usize = 12;

/// An empty lanes-model function of the options' warp size, with room for the IR of `guest`
/// instructions.
pub(crate) fn lanes_function(name: &str, opts: &Options, guest: usize) -> Function {
    let mut f = Function::new(name);
    f.insts.reserve(guest.saturating_mul(IR_PER_GUEST));
    f.model = ExecModel::Lanes;
    f.wave_size = opts.wave_size;
    f
}

/// The block leaders of `insts` (code from `base` to `end`): the entry, the instruction after
/// every one that does not fall through, every direct branch or call target, and the targets
/// of the instructions `also_target` names (sm_50's reconvergence pushes), and the `extra`
/// addresses inside the code (indirect branch and call targets). A direct target outside the
/// code is [`LiftError::BranchOutside`].
pub(crate) fn leaders(
    isa: Isa,
    insts: &[(Inst, Decoded)],
    base: u64,
    end: u64,
    also_target: impl Fn(&Inst) -> bool,
    extra: &[u64],
) -> Result<BTreeSet<u64>, LiftError> {
    let mut out = BTreeSet::from([base]);
    out.extend(extra.iter().copied().filter(|a| (base..end).contains(a)));
    for (i, d) in insts {
        if i.flow != Flow::Next {
            out.insert(i.addr + i.len as u64);
        }
        if matches!(i.flow, Flow::Branch | Flow::CondBranch | Flow::Call) || also_target(i) {
            let t = target(i).ok_or_else(|| unsupported_at(isa, i, d, "branch without a direct target"))?;
            if t < base || t >= end {
                return Err(LiftError::BranchOutside { isa, addr: i.addr, target: t });
            }
            out.insert(t);
        }
    }
    out.retain(|a| *a < end);
    Ok(out)
}

/// The blocks of a lifted program: one per leader address, and the exit every ending lane goes to.
pub(crate) struct Blocks {
    /// The block of every leader address.
    pub at: HashMap<u64, Block>,
    /// The block that returns the output registers.
    pub exit: Block,
}

/// Lay out the function `cx` builds (its entry block current): a block per leader, the
/// prologue loading the input registers, `init` (lifter state set at entry), a jump to the
/// block at `base`, and the exit block returning `opts.reg_outputs`.
pub(crate) fn layout(
    cx: &mut Cx,
    opts: &Options,
    leaders: &BTreeSet<u64>,
    base: u64,
    init: impl FnOnce(&mut Cx),
) -> Blocks {
    let at: HashMap<u64, Block> = leaders.iter().map(|a| (*a, cx.f.add_block())).collect();
    cx.prologue(opts);
    init(cx);
    cx.b().jump(at[&base]);
    let exit = cx.f.add_block();
    let saved = cx.block;
    cx.block = exit;
    let outs: Vec<Value> = opts.reg_outputs.iter().map(|k| cx.rd(*k)).collect();
    cx.b().ret(&outs);
    cx.block = saved;
    Blocks { at, exit }
}

/// Lift `insts` into the laid-out blocks (by leader address; `exit` as in [`Blocks`]) in code order: at each leader the open block jumps
/// to it and `at_leader` runs first there; each reachable instruction runs `step` with its
/// guard set (cleared after); an instruction that does not fall through ends its block, and
/// code after it up to the next leader is unreachable. The last open block goes to the exit.
pub(crate) fn walk(
    cx: &mut Cx,
    insts: &[(Inst, Decoded)],
    blocks: &HashMap<u64, Block>,
    exit: Block,
    mut at_leader: impl FnMut(&mut Cx, u64),
    mut step: impl FnMut(&mut Cx, &At) -> Result<(), LiftError>,
) -> Result<(), LiftError> {
    let mut open = false;
    for (inst, d) in insts {
        if let Some(b) = blocks.get(&inst.addr) {
            if open {
                cx.b().jump(*b);
            }
            cx.block = *b;
            open = true;
            at_leader(cx, inst.addr);
        }
        if !open {
            continue;
        }
        let at = At::new(inst, d);
        cx.set_guard(&at)?;
        let r = step(cx, &at);
        cx.guard = None;
        r?;
        open = inst.flow == Flow::Next;
    }
    if open {
        cx.b().jump(exit);
    }
    Ok(())
}

/// Go to the block of the known target that the per-lane code address `v` (an i32, relative
/// to the code's start) names: a chain of compares over `targets` (offset, block). A lane whose
/// address is none of them traps with [`super::sm86::UNKNOWN_TARGET_TRAP`]: the lift does not
/// know what code is there.
pub(crate) fn dispatch(cx: &mut Cx, v: Value, targets: &[(u64, Block)], exit: Block) {
    for (off, to) in targets {
        let k = cx.k32(*off as u32);
        let c = cx.b().int(IntOp::Cmp(ICmp::Eq), Type::B1, &[v, k]);
        let no = cx.f.add_block();
        cx.b().branch(c, *to, no);
        cx.block = no;
    }
    cx.b().ins(Op::Sync(SyncOp::Trap(super::sm86::UNKNOWN_TARGET_TRAP)), &[], None);
    cx.b().jump(exit);
}
