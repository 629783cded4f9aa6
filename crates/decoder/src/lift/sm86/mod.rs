//! The sm_86 (Ampere) lifter: a lanes-model IR function ([`isabridge_ir::ir::ExecModel::Lanes`]) in which every
//! lane runs its own control flow and lanes rejoin where the code says (BSSY/BSYNC regions,
//! WARPSYNC: `control.rs` on the IR's convergence regions). R0-R254 and P0-P6 are per-lane machine registers (i32 and b1), UR0-UR62 and
//! UP0-UP6 uniform ones; RZ / URZ read 0 and PT / UPT read true, writes to them are dropped.
//!
//! A guard (`@P0`, `@!P0`) on any instruction is a per-lane select of each result it writes
//! against the register's old value; memory and cross-lane ops run under the ballot of the
//! guard instead (their mask operand). Kernel parameters are constant bank 0 (`c[0x0][...]`,
//! the IR's constant space 0); the special registers S2R reads are the function's parameters
//! ([`SystemValue`]) or lane ops.
//!
//! Families, one file each: f32 arithmetic, compares and selects (`float32.rs`), f64
//! (`float64.rs`), packed 16-bit floats (`half.rs`), conversions (`conv.rs`), MUFU (`mufu.rs`),
//! integer ALU (`int.rs`), predicate logic (`pred.rs`), moves, special registers and
//! constant-bank reads (`mov.rs`), memory, atomics and fences (`mem.rs`), reconvergence,
//! warp ops and barriers (`control.rs`).

pub(crate) mod control;
pub(crate) mod conv;
pub(crate) mod float32;
pub(crate) mod float64;
pub(crate) mod half;
pub(crate) mod int;
pub(crate) mod mem;
pub(crate) mod mov;
pub(crate) mod mufu;
pub(crate) mod pred;
pub(crate) mod surface;
pub(crate) mod tex;
pub use surface::SURFACE_TRAP;
mod atomic_loop;
pub(crate) mod indirect;
mod mma;
mod mma_float;
mod system;

use super::{nv_driver, LiftError};
use crate::operand::{Flow, Inst, Modifier, Operand, OperandKind, RegClass, SpecialReg};
use crate::nvidia::model::LayoutCache;
use crate::spec::NvPiece;
use crate::{Decoded, Isa};
use isabridge_ir::ir::{Block, Function, Reg};
use isabridge_ir::ops::conv::ConvOp;
use isabridge_ir::ops::lane::LaneOp;
use isabridge_ir::ops::mem::{MemOp, Space};
use isabridge_ir::soft::Round;
use isabridge_ir::{Builder, Scalar, Type, Value};

/// How a program is lifted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Lanes per warp (32 on every NVIDIA GPU).
    pub wave_size: u32,
    /// Registers (keys: R`n` is `n`, see [`UR0`], [`P0`], [`UP0`]) loaded at entry from the
    /// function's parameters after the system values: parameter `SystemValue::ALL.len() + i`
    /// goes to `reg_inputs[i]`.
    pub reg_inputs: Vec<u16>,
    /// Registers (keys as for `reg_inputs`) every thread returns when it exits, in order.
    pub reg_outputs: Vec<u16>,
    /// The known targets of each indirect branch (`BRX`): (its offset, the target offsets),
    /// offsets from the code's start, as ptxas records them in `.nv.info`
    /// (EIATTR_INDIRECT_BRANCH_TARGETS). A `BRX` without an entry is a typed error.
    pub branch_targets: Vec<(u64, Vec<u64>)>,
    /// The offsets (from the code's start) of the functions an indirect call may reach. An
    /// indirect call is a typed error while this is empty.
    pub call_targets: Vec<u64>,
    /// The offsets of sm_50's calls through a function pointer (`BRX` after `PRET`), as
    /// ptxas records them in `.nv.info` (kind `kind_call`): they go to `call_targets`.
    pub indirect_calls: Vec<u64>,
}

impl Options {
    /// The options of cubin kernel `k`: the branch targets and indirect calls its `.nv.info`
    /// records, and its functions (every function symbol in its code but the entry) as the
    /// targets of its calls through function pointers.
    pub fn of_kernel(k: &crate::elf::nvinfo::KernelAbi) -> Options {
        Options {
            branch_targets: k.branch_targets.clone(),
            call_targets: k.functions.clone(),
            indirect_calls: k.indirect_calls.clone(),
            ..Options::default()
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            wave_size: 32,
            reg_inputs: Vec::new(),
            reg_outputs: Vec::new(),
            branch_targets: Vec::new(),
            call_targets: Vec::new(),
            indirect_calls: Vec::new(),
        }
    }
}

/// A per-lane value the launch supplies: parameter [`SystemValue::param`] of the lifted
/// function (S2R / CS2R read them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SystemValue {
    /// Thread index in the block, x (`SR_TID.X`).
    TidX,
    /// Thread index, y.
    TidY,
    /// Thread index, z.
    TidZ,
    /// Block index in the grid, x (`SR_CTAID.X`).
    CtaidX,
    /// Block index, y.
    CtaidY,
    /// Block index, z.
    CtaidZ,
    /// The low 32 bits of the SM clock (`SR_CLOCKLO`).
    ClockLo,
    /// The high 32 bits of the SM clock (`SR_CLOCKHI`).
    ClockHi,
    /// The low 32 bits of the global nanosecond timer (`SR_GLOBALTIMERLO`).
    GlobalTimerLo,
    /// The high 32 bits of the global timer (`SR_GLOBALTIMERHI`).
    GlobalTimerHi,
    /// The block's shared memory size in bytes (`SR_SMEMSZ`).
    SharedMemSize,
    /// The virtual id of the block's processor (`SR_VIRTID`).
    VirtId,
    /// The virtual SM id (`SR_VIRTUALSMID`).
    VirtualSmId,
    /// Performance counter `n` (`SR_PM0` .. `SR_PM7`).
    PerfCounter(u8),
    /// The virtual configuration word (`SR_VIRTCFG`): ptxas 12.9 reads PTX `%nsmid` as its
    /// bits 20-28 (`S2R R13, SR_VIRTCFG` then `BFE.U32 R5, R13, 0x914` stored to `%nsmid`'s
    /// slot in fixtures/nvidia/listings/special.sm50.txt); its other bits are not known.
    VirtCfg,
}

impl SystemValue {
    /// Every system value, in parameter order.
    pub const ALL: [SystemValue; 22] = [
        SystemValue::TidX,
        SystemValue::TidY,
        SystemValue::TidZ,
        SystemValue::CtaidX,
        SystemValue::CtaidY,
        SystemValue::CtaidZ,
        SystemValue::ClockLo,
        SystemValue::ClockHi,
        SystemValue::GlobalTimerLo,
        SystemValue::GlobalTimerHi,
        SystemValue::SharedMemSize,
        SystemValue::VirtId,
        SystemValue::VirtualSmId,
        SystemValue::PerfCounter(0),
        SystemValue::PerfCounter(1),
        SystemValue::PerfCounter(2),
        SystemValue::PerfCounter(3),
        SystemValue::PerfCounter(4),
        SystemValue::PerfCounter(5),
        SystemValue::PerfCounter(6),
        SystemValue::PerfCounter(7),
        SystemValue::VirtCfg,
    ];
    /// The parameter number the lifted function reads it from.
    pub fn param(self) -> u32 {
        SystemValue::ALL.iter().position(|s| *s == self).unwrap_or(0) as u32
    }
    /// The special register S2R names for it.
    pub fn from_sr(name: &str) -> Option<SystemValue> {
        Some(match name {
            "SR_TID.X" => SystemValue::TidX,
            "SR_TID.Y" => SystemValue::TidY,
            "SR_TID.Z" => SystemValue::TidZ,
            "SR_CTAID.X" => SystemValue::CtaidX,
            "SR_CTAID.Y" => SystemValue::CtaidY,
            "SR_CTAID.Z" => SystemValue::CtaidZ,
            "SR_CLOCKLO" => SystemValue::ClockLo,
            "SR_CLOCKHI" => SystemValue::ClockHi,
            "SR_GLOBALTIMERLO" => SystemValue::GlobalTimerLo,
            "SR_GLOBALTIMERHI" => SystemValue::GlobalTimerHi,
            "SR_SMEMSZ" => SystemValue::SharedMemSize,
            "SR_VIRTID" => SystemValue::VirtId,
            "SR_VIRTUALSMID" => SystemValue::VirtualSmId,
            "SR_PM0" => SystemValue::PerfCounter(0),
            "SR_PM1" => SystemValue::PerfCounter(1),
            "SR_PM2" => SystemValue::PerfCounter(2),
            "SR_PM3" => SystemValue::PerfCounter(3),
            "SR_PM4" => SystemValue::PerfCounter(4),
            "SR_PM5" => SystemValue::PerfCounter(5),
            "SR_PM6" => SystemValue::PerfCounter(6),
            "SR_PM7" => SystemValue::PerfCounter(7),
            "SR_VIRTCFG" => SystemValue::VirtCfg,
            _ => return None,
        })
    }
}

/// Register key of UR0 (UR`n` is `UR0 + n`; R`n` is `n`).
pub const UR0: u16 = 256;
/// Register key of P0 (P`n` is `P0 + n`).
pub const P0: u16 = 512;
/// Register key of UP0 (UP`n` is `UP0 + n`).
pub const UP0: u16 = 528;
/// Register key of convergence barrier B0 (B`n` is `B0 + n`): a mask.
pub const B0: u16 = 544;
/// The trap code of a jump through a register (`RET`, `BRX`, an indirect call) to an address
/// none of the targets the lift knows is.
pub const UNKNOWN_TARGET_TRAP: u16 = 0xffff;
/// Register key of the result of the last barrier reduction (`B2R.RESULT` reads it).
pub const BAR_RESULT: u16 = 560;
/// Register key of sm_50's reconvergence region 0 (`SSY`, `PBK`, `PCNT`; region `n` is
/// `REGION0 + n`, up to the last key): a mask, like the convergence barriers of sm_86.
pub const REGION0: u16 = 0x1000;

/// Lift a program given as code bytes (entry at the first byte) into one IR function.
pub fn lift(isa: Isa, code: &[u8], base: u64, opts: &Options) -> Result<Function, LiftError> {
    lift_with(isa, code, base, opts, &mut LayoutCache::default())
}

/// [`lift`], with the operand model's form layouts kept in `forms` from one call to the next: a
/// caller lifting many functions keeps one cache, and each form's template is read once.
pub fn lift_with(isa: Isa, code: &[u8], base: u64, opts: &Options, forms: &mut LayoutCache) -> Result<Function, LiftError> {
    nv_driver::check_isa(isa, Isa::Sm86, base)?;
    let insts = nv_driver::decode_all(isa, code, base, forms)?;
    let end = base + code.len() as u64;
    let mut extra: Vec<u64> = opts.branch_targets.iter().flat_map(|(_, t)| t.iter().map(|t| base + t)).collect();
    extra.extend(opts.call_targets.iter().map(|t| base + t));
    let leaders = nv_driver::leaders(isa, &insts, base, end, |_| false, &extra)?;
    // Where returns go: the instruction after each call.
    let ret_sites: Vec<u64> = insts
        .iter()
        .filter(|(i, _)| matches!(i.flow, Flow::Call | Flow::IndirectCall))
        .map(|(i, _)| i.addr + i.len as u64)
        .filter(|a| *a < end)
        .collect();
    let calls: Vec<u64> = opts.call_targets.iter().map(|t| base + t).collect();
    let mut f = nv_driver::lanes_function("main", opts, insts.len());
    let entry = f.add_block();
    let mut cx = Cx::new(&mut f, entry, isa);
    let blocks = nv_driver::layout(&mut cx, opts, &leaders, base, |_| {});
    nv_driver::walk(&mut cx, &insts, &blocks.at, blocks.exit, |_, _| {}, |cx, at| {
        let inst = at.inst;
        let next = inst.addr + inst.len as u64;
        let exit = blocks.exit;
        let fall = blocks.at.get(&next).copied().unwrap_or(exit);
        match inst.flow {
            Flow::Next => cx.lift_named(at, inst.name),
            Flow::Return => control::ret(cx, at, base, &ret_sites, &blocks.at, fall, exit),
            Flow::Indirect => {
                let Some((_, t)) = opts.branch_targets.iter().find(|(a, _)| base + a == inst.addr) else {
                    return Err(cx.unsupported(at, "an indirect branch whose targets are not known"));
                };
                let t: Vec<u64> = t.iter().map(|t| base + t).collect();
                indirect::jump(cx, at, base, &t, &blocks.at, fall, exit)
            }
            Flow::IndirectCall => {
                if calls.is_empty() {
                    return Err(cx.unsupported(at, "an indirect call whose targets are not known"));
                }
                indirect::jump(cx, at, base, &calls, &blocks.at, fall, exit)
            }
            Flow::End | Flow::Branch | Flow::CondBranch | Flow::Call => {
                if let Some(c) = control::branch_cond(cx, at)? {
                    cx.guard = Some(match cx.guard {
                        Some(g) => cx.b().int(isabridge_ir::ops::int::IntOp::And, Type::B1, &[g, c]),
                        None => c,
                    });
                }
                let to = match inst.flow {
                    Flow::End => exit,
                    _ => blocks.at[&target(inst).unwrap_or(next)],
                };
                match cx.guard {
                    None => cx.b().jump(to),
                    Some(g) => {
                        cx.b().branch(g, to, fall);
                    }
                }
                Ok(())
            }
        }
    })?;
    Ok(f)
}

/// Lift the instruction at the start of `bytes` (at `addr`) into a scratch function: whether
/// the lifter knows it. Returns its length in bytes, or the error a whole-program lift would
/// give. Branch targets are not checked: a return or a jump through a register lifts with no
/// known targets (every lane traps).
pub fn lift_one(isa: Isa, bytes: &[u8], addr: u64, opts: &Options) -> Result<usize, LiftError> {
    nv_driver::check_isa(isa, Isa::Sm86, addr)?;
    let (inst, d) = nv_driver::decode_one(isa, bytes, addr)?;
    let mut f = nv_driver::lanes_function("one", opts, 1);
    let block = f.add_block();
    let exit = f.add_block();
    let mut cx = Cx::new(&mut f, block, isa);
    let at = At::new(&inst, &d);
    cx.set_guard(&at)?;
    match inst.flow {
        Flow::Next => cx.lift_named(&at, inst.name)?,
        Flow::End | Flow::Branch | Flow::CondBranch | Flow::Call => {
            control::branch_cond(&mut cx, &at)?;
        }
        Flow::Return | Flow::Indirect | Flow::IndirectCall => {
            indirect::jump(&mut cx, &at, addr, &[], &std::collections::HashMap::new(), exit, exit)?
        }
    }
    Ok(d.len as usize)
}

/// The direct target of a branch.
pub(crate) fn target(i: &Inst) -> Option<u64> {
    i.operands.iter().find_map(|o| match o.kind {
        OperandKind::Label(t) => Some(t),
        _ => None,
    })
}

/// The error for instruction `i`, printed (only now) as the reference disassembler prints it.
pub(crate) fn unsupported_at(isa: Isa, i: &Inst, d: &Decoded, why: &str) -> LiftError {
    let mut text = String::new();
    isa.plugin().print(d, i.addr, &mut text);
    LiftError::Unsupported { isa, addr: i.addr, text, why: why.into() }
}

/// The mnemonic's suffixes (`FSETP.GEU.FTZ.AND` gives `GEU`, `FTZ`, `AND`), spelled from the
/// model's named modifiers through the spec's value names and the form's template.
fn suffixes(inst: &Inst, d: &Decoded) -> Vec<&'static str> {
    let t = match inst.isa {
        Isa::Sm86 => &crate::sm86::TABLES,
        _ => &crate::sm50::TABLES,
    };
    let mut out = Vec::new();
    let Some(form) = t.forms.get(d.enc as usize) else { return out };
    let mut first = true;
    for p in form.pieces() {
        match p {
            NvPiece::Lit(x) => {
                let (s, stop) = match x.find(' ') {
                    Some(i) => (&x[..i], true),
                    None => (x, false),
                };
                let mut parts = s.split('.');
                if first {
                    parts.next(); // the instruction's name
                    first = false;
                }
                out.extend(parts.filter(|p| !p.is_empty()));
                if stop {
                    break;
                }
            }
            NvPiece::Field(i) => {
                let Some(f) = form.fields.get(i as usize) else { continue };
                let Some(v) = inst.named(f.name()) else { continue };
                if let Some(s) = t.operand_types.get(f.ty as usize).and_then(|ty| ty.lookup(v as i64)) {
                    out.extend(s.split('.').filter(|p| !p.is_empty()));
                }
            }
        }
    }
    out
}

/// The instruction being lifted: its operand model, its words (for errors) and its suffixes.
pub(crate) struct At<'a> {
    /// The operand model.
    pub inst: &'a Inst,
    /// The decoded words.
    pub d: &'a Decoded,
    /// Mnemonic suffixes, in template order.
    pub sfx: Vec<&'static str>,
}

impl<'a> At<'a> {
    pub(crate) fn new(inst: &'a Inst, d: &'a Decoded) -> At<'a> {
        At { inst, d, sfx: suffixes(inst, d) }
    }
    /// Whether the mnemonic has suffix `s`.
    pub fn has(&self, s: &str) -> bool {
        self.sfx.contains(&s)
    }
    /// The first suffix among `names`.
    pub fn one_of<'n>(&self, names: &[&'n str]) -> Option<&'n str> {
        self.sfx.iter().find_map(|s| names.iter().find(|n| **n == *s).copied())
    }
    /// The rounding modifier (round to nearest when none).
    pub fn round(&self) -> Round {
        self.inst
            .modifiers
            .iter()
            .find_map(|m| match m {
                Modifier::Round(1) => Some(Round::Rm),
                Modifier::Round(2) => Some(Round::Rp),
                Modifier::Round(3) => Some(Round::Rz),
                Modifier::Round(_) => Some(Round::Rn),
                _ => None,
            })
            .unwrap_or(Round::Rn)
    }
    /// Explicit operands written, in order.
    pub fn dsts(&self) -> Vec<&'a Operand> {
        self.inst.explicit().filter(|o| o.access.writes()).collect()
    }
    /// Explicit operands read, in order.
    pub fn srcs(&self) -> Vec<&'a Operand> {
        self.inst.explicit().filter(|o| !o.access.writes()).collect()
    }
}

/// The lifting context: the function, the current block, register handles and the current
/// instruction's guard.
pub(crate) struct Cx<'f> {
    /// The function being built.
    pub f: &'f mut Function,
    /// The block instructions go to.
    pub block: Block,
    /// The ISA.
    pub isa: Isa,
    regs: crate::lift::reg_keys::RegKeys,
    /// The current instruction's guard as a per-lane b1 (None: unguarded).
    pub guard: Option<Value>,
    /// The value the last register definition was given (word 0, before the guard; also for
    /// an RZ destination): the sm_50 condition code takes its flags from it.
    pub last_def: Option<Value>,
}

impl<'f> Cx<'f> {
    /// A context building `f` at `block` (the sm_50 lifter shares it).
    pub(crate) fn new(f: &'f mut Function, block: Block, isa: Isa) -> Cx<'f> {
        Cx { f, block, isa, regs: Default::default(), guard: None, last_def: None }
    }

    /// A builder at the current block.
    pub fn b(&mut self) -> Builder<'_> {
        Builder::new(self.f, self.block)
    }

    /// The error for the instruction being lifted.
    pub fn unsupported(&self, at: &At, why: &str) -> LiftError {
        unsupported_at(self.isa, at.inst, at.d, why)
    }

    /// Load the input registers from the parameters after the system values.
    pub(crate) fn prologue(&mut self, opts: &Options) {
        for (i, key) in opts.reg_inputs.iter().enumerate() {
            let r = self.reg(*key);
            let ty = self.f.reg_ty(r).unwrap_or(Type::I32);
            let p = self.b().param((SystemValue::ALL.len() + i) as u32, ty);
            self.b().write_reg(r, p);
        }
    }

    fn reg(&mut self, key: u16) -> Reg {
        if let Some(r) = self.regs.get(&key) {
            return *r;
        }
        let (ty, uniform, name) = match key {
            0..=254 => (Type::I32, false, format!("r{key}")),
            k if (UR0..UR0 + 64).contains(&k) => (Type::I32, true, format!("ur{}", k - UR0)),
            k if (P0..P0 + 8).contains(&k) => (Type::B1, false, format!("p{}", k - P0)),
            k if (UP0..UP0 + 8).contains(&k) => (Type::B1, true, format!("up{}", k - UP0)),
            k if (B0..B0 + 16).contains(&k) => (Type::Mask, true, format!("b{}", k - B0)),
            k if k >= REGION0 => (Type::Mask, true, format!("region{}", k - REGION0)),
            BAR_RESULT => (Type::I32, false, "bar_result".into()),
            k => (Type::I32, false, format!("reg{k}")),
        };
        let r = self.f.add_reg(ty, uniform, &name);
        self.regs.insert(key, r);
        r
    }

    /// Read a register by key.
    pub fn rd(&mut self, key: u16) -> Value {
        let r = self.reg(key);
        self.b().read_reg(r)
    }

    /// Write a register by key, under the current guard.
    pub fn wr(&mut self, key: u16, v: Value) {
        let r = self.reg(key);
        let v = match self.guard {
            Some(g) => {
                let old = self.b().read_reg(r);
                let ty = self.f.reg_ty(r).unwrap_or(Type::I32);
                self.b().select(ty, g, v, old)
            }
            None => v,
        };
        self.b().write_reg(r, v);
    }

    /// A uniform i32 constant.
    pub fn k32(&mut self, x: u32) -> Value {
        self.b().konst(Type::I32, x as u64)
    }

    /// A uniform constant of any type.
    pub fn k(&mut self, ty: Type, x: u64) -> Value {
        self.b().konst(ty, x)
    }

    /// The key of 32-bit register `k` of a register operand (None for RZ / URZ / PT / UPT and
    /// non-registers).
    pub fn key_of(&self, op: &Operand, k: u16) -> Option<u16> {
        match op.kind {
            OperandKind::Reg(r) => {
                let n = r.first + k;
                match r.class {
                    RegClass::R if n < 255 => Some(n),
                    RegClass::Ur if n < 63 => Some(UR0 + n),
                    RegClass::P if n < 7 => Some(P0 + n),
                    RegClass::Up if n < 7 => Some(UP0 + n),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Compute the current instruction's guard (None when unguarded).
    pub(crate) fn set_guard(&mut self, at: &At) -> Result<(), LiftError> {
        self.guard = None;
        if let Some(g) = at.inst.guard {
            let key = match g.reg.class {
                RegClass::P if g.reg.first < 7 => Some(P0 + g.reg.first),
                RegClass::Up if g.reg.first < 7 => Some(UP0 + g.reg.first),
                _ => None,
            };
            let v = match key {
                Some(k) => self.rd(k),
                None => self.k(Type::B1, 1),
            };
            let v = if g.negate { self.not1(v) } else { v };
            self.guard = Some(v);
        }
        Ok(())
    }

    /// The lane mask a memory or cross-lane op runs under: the ballot of the guard, or None
    /// when unguarded (every lane here).
    pub fn guard_mask(&mut self) -> Option<Value> {
        let g = self.guard?;
        Some(self.b().lane(LaneOp::Ballot, Type::Mask, &[g]))
    }

    /// Logical not of a b1.
    pub fn not1(&mut self, v: Value) -> Value {
        let t = self.k(Type::B1, 1);
        self.b().int(isabridge_ir::ops::int::IntOp::Xor, Type::B1, &[v, t])
    }

    /// Dword `k` of a source operand as i32, without its modifiers (registers, RZ, immediates,
    /// float immediates as bits, constant-bank words).
    pub fn word(&mut self, at: &At, op: &Operand, k: u16) -> Result<Value, LiftError> {
        if let Some(key) = self.key_of(op, k) {
            return Ok(self.rd(key));
        }
        Ok(match op.kind {
            OperandKind::Special { reg: SpecialReg::Rz | SpecialReg::Urz, .. } => self.k32(0),
            OperandKind::Reg(r) if matches!(r.class, RegClass::R | RegClass::Ur) => self.k32(0),
            OperandKind::Imm(x) => self.k32((x as u64 >> (32 * k)) as u32),
            OperandKind::FImm { bits, .. } => self.k32((bits >> (32 * k)) as u32),
            OperandKind::ConstBank { bank, offset, reg, bank_reg: None } => {
                let bank = u8::try_from(bank).map_err(|_| self.unsupported(at, "constant bank number"))?;
                let off = self.k32(offset.wrapping_add(4 * k as i32) as u32);
                let addr = match reg {
                    Some(r) => {
                        let rr = Operand { kind: OperandKind::Reg(r), ..*op };
                        let base = self.word(at, &rr, 0)?;
                        self.b().int(isabridge_ir::ops::int::IntOp::Add(isabridge_ir::ops::int::Overflow::Wrap), Type::I32, &[base, off])
                    }
                    None => off,
                };
                self.b().load(MemOp::Load(Space::Constant(bank)), Type::I32, addr)
            }
            _ => return Err(self.unsupported(at, &format!("source operand {:?}", op.kind))),
        })
    }

    /// A 32-bit source as i32 with integer modifiers (`~` bitwise not, `-` negation).
    pub fn src_int(&mut self, at: &At, op: &Operand) -> Result<Value, LiftError> {
        use isabridge_ir::ops::int::IntOp;
        let mut v = self.word(at, op, 0)?;
        if op.mods.not {
            v = self.b().int(IntOp::Not, Type::I32, &[v]);
        }
        if op.mods.neg {
            v = self.b().int(IntOp::Neg, Type::I32, &[v]);
        }
        Ok(v)
    }

    /// A 64-bit source (a register pair, a constant-bank pair, an immediate) as i64.
    pub fn src64(&mut self, at: &At, op: &Operand) -> Result<Value, LiftError> {
        if let OperandKind::Imm(x) = op.kind {
            return Ok(self.k(Type::I64, x as u64));
        }
        let lo = self.word(at, op, 0)?;
        let hi = self.word(at, op, 1)?;
        Ok(self.join64(lo, hi))
    }

    /// A float source of format `ty` (f32 or a packed pair in 32 bits) with the sign
    /// modifiers applied as bit operations (`|x|` clears, `-x` flips the sign bit).
    pub fn src_f32(&mut self, at: &At, op: &Operand) -> Result<Value, LiftError> {
        let v = self.word(at, op, 0)?;
        let v = self.sign_mods(op, v, 0x8000_0000);
        Ok(self.b().bitcast(Type::F32, v))
    }

    /// Apply an operand's |x| and -x to the i32 `v` whose sign bits are `sign`. A float
    /// immediate's bits carry its sign already (the model marks a negative one `-` as well:
    /// `FADD R7, R7, -24` adds -24 in fixtures/hw k_lg2_approx), so its flags are not applied.
    pub fn sign_mods(&mut self, op: &Operand, mut v: Value, sign: u32) -> Value {
        use isabridge_ir::ops::int::IntOp;
        if matches!(op.kind, OperandKind::FImm { .. }) {
            return v;
        }
        if op.mods.abs {
            let m = self.k32(!sign);
            v = self.b().int(IntOp::And, Type::I32, &[v, m]);
        }
        if op.mods.neg {
            let m = self.k32(sign);
            v = self.b().int(IntOp::Xor, Type::I32, &[v, m]);
        }
        v
    }

    /// A predicate source as b1 (PT / UPT true, `!` applied).
    pub fn pred(&mut self, at: &At, op: &Operand) -> Result<Value, LiftError> {
        let v = match op.kind {
            OperandKind::Special { reg: SpecialReg::Pt | SpecialReg::Upt, .. } => self.k(Type::B1, 1),
            OperandKind::Reg(r) if matches!(r.class, RegClass::P | RegClass::Up) => match self.key_of(op, 0) {
                Some(k) => self.rd(k),
                None => self.k(Type::B1, 1),
            },
            _ => return Err(self.unsupported(at, &format!("predicate operand {:?}", op.kind))),
        };
        Ok(if op.mods.not { self.not1(v) } else { v })
    }

    /// Write a b1 to a predicate destination (PT / UPT: dropped), under the guard.
    pub fn def_pred(&mut self, at: &At, op: &Operand, v: Value) -> Result<(), LiftError> {
        match op.kind {
            OperandKind::Special { reg: SpecialReg::Pt | SpecialReg::Upt, .. } => Ok(()),
            OperandKind::Reg(r) if matches!(r.class, RegClass::P | RegClass::Up) => {
                if let Some(k) = self.key_of(op, 0) {
                    self.wr(k, v);
                }
                Ok(())
            }
            _ => Err(self.unsupported(at, &format!("predicate destination {:?}", op.kind))),
        }
    }

    /// Write 32-bit word `k` of a register destination (RZ / URZ: dropped), under the guard.
    pub fn def_word(&mut self, at: &At, op: &Operand, k: u16, v: Value) -> Result<(), LiftError> {
        if k == 0 {
            self.last_def = Some(v);
        }
        match op.kind {
            OperandKind::Special { reg: SpecialReg::Rz | SpecialReg::Urz, .. } => Ok(()),
            OperandKind::Reg(r) if matches!(r.class, RegClass::R | RegClass::Ur) => {
                if let Some(key) = self.key_of(op, k) {
                    self.wr(key, v);
                }
                Ok(())
            }
            _ => Err(self.unsupported(at, &format!("register destination {:?}", op.kind))),
        }
    }

    /// Write a 32-bit value of any 32-bit type to a register destination.
    pub fn def32(&mut self, at: &At, op: &Operand, v: Value) -> Result<(), LiftError> {
        let v = if self.f.ty(v) == Some(Type::I32) { v } else { self.b().bitcast(Type::I32, v) };
        self.def_word(at, op, 0, v)
    }

    /// Write a 64-bit value of any 64-bit type to a register pair.
    pub fn def64(&mut self, at: &At, op: &Operand, v: Value) -> Result<(), LiftError> {
        let v = if self.f.ty(v) == Some(Type::I64) { v } else { self.b().bitcast(Type::I64, v) };
        let (lo, hi) = self.split64(v);
        self.def_word(at, op, 0, lo)?;
        self.def_word(at, op, 1, hi)
    }

    /// i64 from two i32 halves.
    pub fn join64(&mut self, lo: Value, hi: Value) -> Value {
        let p = self.b().build(Type::V(Scalar::I32, 2), &[lo, hi]);
        self.b().bitcast(Type::I64, p)
    }

    /// The two i32 halves of an i64.
    pub fn split64(&mut self, v: Value) -> (Value, Value) {
        let p = self.b().bitcast(Type::V(Scalar::I32, 2), v);
        let lo = self.b().extract(Type::I32, p, 0);
        let hi = self.b().extract(Type::I32, p, 1);
        (lo, hi)
    }

    /// b1 to i32 (0 or 1).
    pub fn b1_to_i32(&mut self, v: Value) -> Value {
        self.b().conv(ConvOp::IToI { signed: false }, Type::I32, v)
    }

    /// Lift `at` with the family code of instruction `name`.
    fn lift_named(&mut self, at: &At, name: &str) -> Result<(), LiftError> {
        if let Some(r) = control::lift(self, at, name) {
            return r;
        }
        if let Some(r) = float32::lift(self, at, name) {
            return r;
        }
        if let Some(r) = mov::lift(self, at, name) {
            return r;
        }
        if let Some(r) = int::lift(self, at, name) {
            return r;
        }
        if let Some(r) = conv::lift(self, at, name) {
            return r;
        }
        if let Some(r) = float64::lift(self, at, name) {
            return r;
        }
        if let Some(r) = half::lift(self, at, name) {
            return r;
        }
        if let Some(r) = mufu::lift(self, at, name) {
            return r;
        }
        if let Some(r) = pred::lift(self, at, name) {
            return r;
        }
        if let Some(r) = atomic_loop::lift(self, at, name) {
            return r;
        }
        if let Some(r) = mem::lift(self, at, name) {
            return r;
        }
        if let Some(r) = mma::lift(self, at, name) {
            return r;
        }
        if let Some(r) = system::lift(self, at, name) {
            return r;
        }
        if let Some(r) = surface::lift(self, at, name) {
            return r;
        }
        if let Some(r) = tex::lift(self, at, name) {
            return r;
        }
        Err(self.unsupported(at, "no lifter for this instruction yet"))
    }
}
