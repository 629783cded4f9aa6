//! Whole kernels: the entry state a dispatch gives a wave (SGPRs, EXEC, work-item id VGPRs,
//! MODE) as IR parameters, and calls between functions of one code object, inlined.
//!
//! Control transfers that the instruction alone does not resolve (`s_swappc_b64` call targets,
//! which `s_getpc_b64` plus relocated adds compute; `s_setpc_b64` returns and jump tables) come
//! resolved from the machine level ([`Resolved`], which the analysis crate's CFG recovery
//! fills); the lifter itself only follows direct branches. A call is inlined: `s_swappc_b64`
//! writes the return address into its destination pair, as the hardware does, and the callee's
//! blocks follow, their returns jumping to the block after the call. The callee's stack lives in
//! the caller's scratch (clang addresses it through s32 and the private segment), so inlining
//! keeps every stack access as it is. A call to a symbol the code object does not define (an
//! OpenCL builtin left to the linker) becomes an IR call of that symbol
//! ([`isabridge_ir::ops::call`]); a recursive call, or one nested deeper than
//! [`MAX_CALL_DEPTH`], calls a function of its own ([`lift_kernel_module`]). Both hand over the
//! whole register file (SGPRs, VGPRs, EXEC, VCC, SCC) and take it back at the return, as the
//! hardware does; the stack stays in scratch. Unresolved (indirect) calls are typed errors.
//!
//! Parameters of the lifted function ([`kernel_params`]): 0..sgprs the initial SGPRs s0..,
//! then EXEC's low and high halves (one value per lane, the same on every lane of a wave: a
//! wave of a workgroup whose size is not a multiple of the wave size starts with fewer lanes),
//! then the work-item ids v0 (X), v1 (Y), v2 (Z).

use super::{target, unsupported_at, At, Cx, EXEC_LO, SCC, TTMP0, VGPR0};
use crate::lift::LiftError;
use crate::operand::{Flow, Inst};
use crate::{Decoded, Isa};
use isabridge_ir::ir::{Block, ExecModel, Function};
use isabridge_ir::ops::call::{symbol_ok, Callee};
use isabridge_ir::ops::int::{IntOp, ShiftRule};
use isabridge_ir::{Module, Op, Type};
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

/// The state a dispatch gives a wave of a kernel at its first instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelEntry {
    /// Run as a wave of 64 lanes (else 32).
    pub wave64: bool,
    /// The MODE register at entry (bits 0-3 rounding, 4-7 denormals, 8 DX10_CLAMP, 9 IEEE).
    pub mode: u32,
    /// SGPRs loaded at entry (user SGPRs, then system SGPRs such as workgroup ids).
    pub sgprs: u32,
    /// Work-item id VGPRs loaded at entry (1 to 3).
    pub workitem_ids: u32,
    /// Workgroup shared memory the kernel uses, in bytes.
    pub shared_bytes: u32,
    /// gfx12 architected SGPRs: the workgroup ids X, Y, Z the descriptor enables, which the
    /// hardware gives in TTMP9 and TTMP7 instead of SGPRs (all false on gfx1013).
    pub ttmp_workgroup_ids: [bool; 3],
}

/// Where each parameter of a lifted kernel comes from: (first SGPR parameter, EXEC low
/// parameter, first work-item id parameter).
pub fn kernel_params(k: &KernelEntry) -> (u32, u32, u32) {
    (0, k.sgprs, k.sgprs + 2)
}

/// The first of the three parameters (workgroup ids X, Y, Z) that fill TTMP9 and TTMP7 when
/// `k.ttmp_workgroup_ids` enables any; they follow the work-item ids.
pub fn ttmp_workgroup_id_params(k: &KernelEntry) -> u32 {
    kernel_params(k).2 + 3
}

/// Control transfers resolved at the machine level.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resolved {
    /// Call site (`s_swappc_b64` address) -> the called function's entry.
    pub calls: BTreeMap<u64, u64>,
    /// `s_setpc_b64` addresses that return to the caller.
    pub returns: BTreeSet<u64>,
    /// `s_setpc_b64` addresses that jump through a table: their targets.
    pub tables: BTreeMap<u64, Vec<u64>>,
    /// Call sites whose target is a symbol the code object does not define: its name.
    pub external: BTreeMap<u64, String>,
}

/// Deepest chain of inlined calls.
pub const MAX_CALL_DEPTH: usize = 16;
/// Most instructions lifted for one kernel, inlined copies included.
const MAX_LIFTED: usize = 1 << 20;

/// Lift the kernel whose first instruction is at `entry` in `code` (loaded at `base`) into one
/// function: calls are inlined, calls of undefined symbols are IR calls of the symbol, and a
/// recursive or too deeply nested call is an error ([`lift_kernel_module`] lifts it).
/// gfx1201 code gets the same entry state as gfx1013 code (SGPRs, EXEC, work-item ids) plus
/// the workgroup ids in TTMP9 / TTMP7 that [`KernelEntry::ttmp_workgroup_ids`] enables.
pub fn lift_kernel(
    isa: Isa,
    code: &[u8],
    base: u64,
    entry: u64,
    name: &str,
    k: &KernelEntry,
    r: &Resolved,
) -> Result<Function, LiftError> {
    let mut w = Walker::new(code, base, r);
    let m = lift_with(&mut w, isa, entry, name, k)?;
    if let Some(a) = w.first_split {
        let (i, d) = w.decode(isa, a)?;
        return Err(unsupported_at(isa, i, d, "recursive or too deeply nested call (lift_kernel_module lifts it as a call)"));
    }
    m.functions.into_iter().next().ok_or(LiftError::Unsupported { isa, addr: entry, text: String::new(), why: "no function".into() })
}

/// Lift the kernel at `entry` as [`lift_kernel`] does, except that a recursive call, or one
/// nested deeper than [`MAX_CALL_DEPTH`], calls a function of the module (function 0 is the
/// kernel; each called function is lifted once, named `fn_<address>`).
pub fn lift_kernel_module(
    isa: Isa,
    code: &[u8],
    base: u64,
    entry: u64,
    name: &str,
    k: &KernelEntry,
    r: &Resolved,
) -> Result<Module, LiftError> {
    lift_with(&mut Walker::new(code, base, r), isa, entry, name, k)
}

/// [`lift_kernel_module`] with every memory result arriving late, as
/// [`super::lift_late_memory`] lifts straight-line code: the interpreter then holds each
/// result back until a wait retires it, and a register read before its covering wait is poison.
pub fn lift_kernel_module_late_memory(
    isa: Isa,
    code: &[u8],
    base: u64,
    entry: u64,
    name: &str,
    k: &KernelEntry,
    r: &Resolved,
) -> Result<Module, LiftError> {
    let mut w = Walker::new(code, base, r);
    w.late = true;
    lift_with(&mut w, isa, entry, name, k)
}

fn lift_with(w: &mut Walker, isa: Isa, entry: u64, name: &str, k: &KernelEntry) -> Result<Module, LiftError> {
    if !matches!(isa, Isa::Gfx1013 | Isa::Gfx1201) {
        return Err(LiftError::Unsupported { isa, addr: entry, text: String::new(), why: "only AMD code lifts here".into() });
    }
    let new_fn = |name: &str| {
        let mut f = Function::new(name);
        f.model = ExecModel::Wave;
        f.wave_size = if k.wave64 { 64 } else { 32 };
        f.shared_bytes = k.shared_bytes;
        f
    };
    let mut f = new_fn(name);
    let first = f.add_block();
    let mut cx = Cx { f: &mut f, block: first, isa, wave64: k.wave64, mode: k.mode, regs: Default::default() };
    prologue(&mut cx, k);
    let body = w.instance(&mut cx, entry, None, &mut Vec::new())?;
    cx.block = first;
    cx.b().jump(body);
    let mut regs = std::mem::take(&mut cx.regs);
    let mut functions = vec![f];
    // Called functions, lifted once each; they share the kernel's register numbering.
    w.in_callee = true;
    while let Some(t) = w.pending.pop_front() {
        let mut g = new_fn(&format!("fn_{t:x}"));
        g.callee = true;
        g.regs = functions.last().map(|p| p.regs.clone()).unwrap_or_default();
        let first = g.add_block();
        let mut cx = Cx { f: &mut g, block: first, isa, wave64: k.wave64, mode: k.mode, regs: std::mem::take(&mut regs) };
        let body = w.instance(&mut cx, t, None, &mut vec![t])?;
        cx.block = first;
        cx.b().jump(body);
        regs = std::mem::take(&mut cx.regs);
        functions.push(g);
    }
    let all = functions.last().map(|p| p.regs.clone()).unwrap_or_default();
    for g in &mut functions {
        g.regs = all.clone();
    }
    Ok(Module { functions })
}

fn prologue(cx: &mut Cx, k: &KernelEntry) {
    let (s0, exec, v0) = kernel_params(k);
    for i in 0..k.sgprs {
        let p = cx.b().param(s0 + i, Type::I32);
        cx.f.insts[p].uniform = true;
        cx.wr(i as u16, p);
    }
    let lo = cx.b().param(exec, Type::I32);
    cx.f.insts[lo].uniform = true;
    cx.wr(EXEC_LO, lo);
    let hi = if k.wave64 {
        let h = cx.b().param(exec + 1, Type::I32);
        cx.f.insts[h].uniform = true;
        h
    } else {
        cx.k32(0)
    };
    cx.wr(EXEC_LO + 1, hi);
    for i in 0..k.workitem_ids.clamp(1, 3) {
        let v = cx.b().param(v0 + i, Type::I32);
        cx.wr(VGPR0 + i as u16, v);
    }
    if k.ttmp_workgroup_ids.iter().any(|e| *e) {
        ttmp_workgroup_ids(cx, k);
    }
    let f = cx.k(Type::B1, 0);
    cx.wr(SCC, f);
}

/// gfx12 architected SGPRs: TTMP9 = workgroup id X, TTMP7 = Y in bits 15:0 and Z in bits
/// 31:16, each only when the descriptor enables it (0 otherwise). Source: LLVM
/// AMDGPULegalizerInfo::loadInputValue / SIISelLowering (WorkGroupIDX = TTMP9, WorkGroupIDY =
/// TTMP7 & 0xffff, WorkGroupIDZ = TTMP7 & 0xffff0000), introduced by "[AMDGPU] Architected SGPRs
/// for GFX12" (llvm-project PR 76140).
fn ttmp_workgroup_ids(cx: &mut Cx, k: &KernelEntry) {
    let first = ttmp_workgroup_id_params(k);
    let mut id = [None; 3];
    for (d, slot) in id.iter_mut().enumerate() {
        let p = cx.b().param(first + d as u32, Type::I32);
        cx.f.insts[p].uniform = true;
        if k.ttmp_workgroup_ids[d] {
            *slot = Some(p);
        }
    }
    let x = id[0].unwrap_or_else(|| cx.k32(0));
    cx.wr(TTMP0 + 9, x);
    let ffff = cx.k32(0xffff);
    let y = match id[1] {
        Some(y) => cx.b().int(IntOp::And, Type::I32, &[y, ffff]),
        None => cx.k32(0),
    };
    let yz = match id[2] {
        Some(z) => {
            let s = cx.k32(16);
            let z = cx.b().int(IntOp::Shl(ShiftRule::Wrap), Type::I32, &[z, s]);
            cx.b().int(IntOp::Or, Type::I32, &[y, z])
        }
        None => y,
    };
    cx.wr(TTMP0 + 7, yz);
}

/// `s_swappc_b64`'s write of the return address (the next instruction's) into its destination
/// pair.
fn return_address(cx: &mut Cx, at: &At, next: u64) -> Result<(), LiftError> {
    let dst = at.def().copied().ok_or_else(|| unsupported_at(cx.isa, at.inst, at.d, "call without a destination"))?;
    let lo = cx.k32(next as u32);
    let hi = cx.k32((next >> 32) as u32);
    cx.def_s32(at, &dst, 0, lo)?;
    cx.def_s32(at, &dst, 1, hi)
}

/// Lift `s_getpc_b64` (the address of the next instruction into the destination pair); None
/// for other instructions.
pub(super) fn lift(cx: &mut Cx, at: &At, name: &str) -> Option<Result<(), LiftError>> {
    if name != "S_GETPC_B64" {
        return None;
    }
    let pc = at.inst.addr + at.inst.len as u64;
    Some((|| {
        let dst = at.def().copied().ok_or_else(|| cx.unsupported(at, "no destination"))?;
        let lo = cx.k32(pc as u32);
        let hi = cx.k32((pc >> 32) as u32);
        cx.def_s32(at, &dst, 0, lo)?;
        cx.def_s32(at, &dst, 1, hi)
    })())
}

struct Walker<'a> {
    code: &'a [u8],
    base: u64,
    r: &'a Resolved,
    insts: HashMap<u64, (Inst, Decoded)>,
    lifted: usize,
    /// Called functions of the module by entry address: their function index.
    callees: BTreeMap<u64, u32>,
    /// Called functions still to lift, in index order.
    pending: VecDeque<u64>,
    /// The first call that calls a function of the module rather than inlining it.
    first_split: Option<u64>,
    /// Lifting a called function, where the end of the program cannot be a return.
    in_callee: bool,
    /// Memory results arrive late (`pending::mark` after each instruction).
    late: bool,
}

/// How control leaves one instruction, as the walker follows it.
enum Step {
    Next,
    Jump(u64),
    Cond(u64),
    Call(u64),
    External(String),
    Return,
    Table(Vec<u64>),
    End,
}

impl<'a> Walker<'a> {
    fn new(code: &'a [u8], base: u64, r: &'a Resolved) -> Walker<'a> {
        Walker {
            code,
            base,
            r,
            insts: HashMap::new(),
            lifted: 0,
            callees: BTreeMap::new(),
            pending: VecDeque::new(),
            first_split: None,
            in_callee: false,
            late: false,
        }
    }

    /// The module index of the function entered at `t`, lifted later if it is new.
    fn callee(&mut self, t: u64) -> u32 {
        let n = self.callees.len() as u32 + 1;
        *self.callees.entry(t).or_insert_with(|| {
            self.pending.push_back(t);
            n
        })
    }

    fn decode(&mut self, isa: Isa, addr: u64) -> Result<&(Inst, Decoded), LiftError> {
        if !self.insts.contains_key(&addr) {
            let off = addr.checked_sub(self.base).filter(|o| *o < self.code.len() as u64);
            let Some(off) = off else {
                return Err(LiftError::BranchOutside { isa, addr, target: addr });
            };
            let plugin = isa.plugin();
            let d = plugin
                .decode(&self.code[off as usize..], addr)
                .map_err(|e| LiftError::Decode { isa, addr, why: e.to_string() })?;
            self.insts.insert(addr, (plugin.operands(&d, addr), d));
        }
        Ok(&self.insts[&addr])
    }

    fn step(&mut self, isa: Isa, addr: u64) -> Result<Step, LiftError> {
        let r = self.r;
        let (i, d) = self.decode(isa, addr)?;
        let at_err = |why: &str| unsupported_at(isa, i, d, why);
        Ok(match i.name {
            "S_SWAPPC_B64" => match r.calls.get(&addr) {
                Some(t) => Step::Call(*t),
                None => match r.external.get(&addr) {
                    Some(n) if symbol_ok(n) => Step::External(n.clone()),
                    Some(n) => return Err(at_err(&format!("calls {n:?}, which the code object does not define and is no symbol name"))),
                    None => return Err(at_err("call target not resolved (an indirect call)")),
                },
            },
            "S_SETPC_B64" => {
                if r.returns.contains(&addr) {
                    Step::Return
                } else if let Some(ts) = r.tables.get(&addr) {
                    Step::Table(ts.clone())
                } else {
                    return Err(at_err("jump target not resolved"));
                }
            }
            _ => match i.flow {
                Flow::Next => Step::Next,
                Flow::End => Step::End,
                Flow::Branch => Step::Jump(target(i).ok_or_else(|| at_err("branch without a direct target"))?),
                Flow::CondBranch => Step::Cond(target(i).ok_or_else(|| at_err("branch without a direct target"))?),
                _ => return Err(at_err("calls, returns and indirect jumps need a resolved target")),
            },
        })
    }

    /// Lift one copy of the function entered at `entry`; its returns jump to `ret` (None: the
    /// kernel itself, whose returns end the program). Returns the copy's first block.
    fn instance(&mut self, cx: &mut Cx, entry: u64, ret: Option<Block>, stack: &mut Vec<u64>) -> Result<Block, LiftError> {
        let isa = cx.isa;
        // Reachable instructions and block leaders.
        let mut seen = BTreeSet::new();
        let mut leaders = BTreeSet::from([entry]);
        let mut work = vec![entry];
        while let Some(a) = work.pop() {
            if !seen.insert(a) {
                continue;
            }
            let len = self.decode(isa, a)?.0.len as u64;
            let next = a + len;
            let mut go = |t: u64, lead: bool, work: &mut Vec<u64>| {
                if lead {
                    leaders.insert(t);
                }
                work.push(t);
            };
            match self.step(isa, a)? {
                Step::Next => go(next, false, &mut work),
                Step::Jump(t) => go(t, true, &mut work),
                Step::Cond(t) => {
                    go(t, true, &mut work);
                    go(next, true, &mut work);
                }
                Step::Call(_) | Step::External(_) => go(next, true, &mut work),
                Step::Table(ts) => ts.into_iter().for_each(|t| go(t, true, &mut work)),
                Step::Return | Step::End => {}
            }
        }
        self.lifted += seen.len();
        if self.lifted > MAX_LIFTED {
            let (i, d) = self.decode(isa, entry)?;
            return Err(unsupported_at(isa, i, d, "the kernel with its calls inlined is too large"));
        }
        let blocks: HashMap<u64, Block> = leaders.iter().map(|a| (*a, cx.f.add_block())).collect();
        let mut open = false;
        for &a in &seen {
            if let Some(b) = blocks.get(&a) {
                if open {
                    cx.b().jump(*b);
                }
                cx.block = *b;
                open = true;
            }
            if !open {
                let (i, d) = self.decode(isa, a)?;
                return Err(unsupported_at(isa, i, d, "reached only by falling out of a closed block"));
            }
            let step = self.step(isa, a)?;
            let (inst, d) = self.decode(isa, a)?.clone();
            let next = a + inst.len as u64;
            let mut at = At { inst: &inst, d: &d };
            match step {
                Step::Next => {
                    let first = cx.f.insts.len();
                    cx.lift_inst(&mut at)?;
                    if self.late {
                        super::pending::mark(cx, &at, first);
                    }
                    if !seen.contains(&next) {
                        return Err(unsupported_at(isa, &inst, &d, "code runs past the end"));
                    }
                }
                Step::End => {
                    if self.in_callee {
                        return Err(unsupported_at(isa, &inst, &d, "the program ends in a function lifted as a call"));
                    }
                    let first = cx.f.insts.len();
                    cx.lift_inst(&mut at)?;
                    if self.late {
                        super::pending::mark(cx, &at, first);
                    }
                    cx.b().ret(&[]);
                    open = false;
                }
                Step::Jump(t) => {
                    cx.b().jump(blocks[&t]);
                    open = false;
                }
                Step::Cond(t) => {
                    let c = super::sop::branch_condition(cx, &at)?;
                    cx.b().branch(c, blocks[&t], blocks[&next]);
                    open = false;
                }
                Step::External(name) => {
                    return_address(cx, &at, next)?;
                    cx.b().ins(Op::Call(Callee::Symbol(name)), &[], None);
                    cx.b().jump(blocks[&next]);
                    open = false;
                }
                Step::Call(t) if stack.len() >= MAX_CALL_DEPTH || stack.contains(&t) => {
                    return_address(cx, &at, next)?;
                    let n = self.callee(t);
                    self.first_split.get_or_insert(a);
                    cx.b().ins(Op::Call(Callee::Func(n)), &[], None);
                    cx.b().jump(blocks[&next]);
                    open = false;
                }
                Step::Call(t) => {
                    return_address(cx, &at, next)?;
                    let here = cx.block;
                    stack.push(t);
                    let callee = self.instance(cx, t, Some(blocks[&next]), stack)?;
                    stack.pop();
                    cx.block = here;
                    cx.b().jump(callee);
                    open = false;
                }
                Step::Return => {
                    match ret {
                        Some(b) => cx.b().jump(b),
                        None => cx.b().ret(&[]),
                    }
                    open = false;
                }
                Step::Table(ts) => {
                    // The jump goes where the pair points; compare it with each target.
                    let src = at.srcs().first().copied().copied().ok_or_else(|| unsupported_at(isa, &inst, &d, "jump without a source"))?;
                    let lo = cx.src32(&at, &src, 0)?;
                    let hi = cx.src32(&at, &src, 1)?;
                    let pc = cx.join64(lo, hi);
                    for (n, t) in ts.iter().enumerate() {
                        if n + 1 == ts.len() {
                            cx.b().jump(blocks[t]);
                            break;
                        }
                        let kt = cx.k(Type::I64, *t);
                        let c = cx.b().int(isabridge_ir::ops::int::IntOp::Cmp(isabridge_ir::ops::int::ICmp::Eq), Type::B1, &[pc, kt]);
                        let other = cx.f.add_block();
                        cx.b().branch(c, blocks[t], other);
                        cx.block = other;
                    }
                    open = false;
                }
            }
        }
        Ok(blocks[&entry])
    }
}
