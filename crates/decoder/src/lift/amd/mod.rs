//! The AMD lifter (gfx1013 today): a wave-model IR function ([`ExecModel::Wave`]) in which
//! SGPRs, VCC, EXEC, M0 and SCC are uniform registers, VGPRs per-lane registers, every vector
//! result is merged under EXEC (`lanesel`), and memory and cross-lane ops name EXEC as their
//! mask. Scalar branches stay branches; there is no per-lane control flow.
//!
//! Families, one file each: scalar ALU and program control (`sop.rs`), vector integer
//! (`vint.rs`), vector float (`vfloat.rs`), vector compares (`vcmp.rs`), cross-lane
//! (`lanes.rs`), buffer memory (`mubuf.rs`, typed: `mtbuf.rs`), LDS (`ds.rs`), packed 16-bit
//! (`vop3p.rs`), 16-bit integer (`vint16.rs`), 16-bit and packing conversions (`cvt16.rs`), relative moves (`movrel.rs`),
//! ray / BVH-node intersection (`bvh.rs`), images (`mimg.rs`),
//! graphics-stage exports, interpolation and messages (`stage.rs`);
//! SDWA sub-dword sources and destinations (`sdwa.rs`) apply to every VOP1/VOP2/VOPC family.

mod cube;
mod cvt16;
mod dot;
mod ds;
mod gfx12;
mod gfx12_alu;
mod gfx12_image;
mod gfx12_mem;
mod gfx12_mem_names;
mod gfx12_names;
mod flat;
mod kernel;
mod bvh;
mod lanes;
mod mimg;
mod mode;
mod movrel;
mod mtbuf;
mod mubuf;
mod pending;
mod sdwa;
mod single;
mod smem;
mod sop;
mod stage;
mod trap;
mod vbits;
mod vcmp;
mod vdiv;
mod vfloat;
mod vint;
mod vint16;
mod vmad;
mod vop3p;
mod vtrans;
mod waits;
mod wave;

use super::LiftError;
use crate::operand::{Access, Flow, Inst, Modifier, Operand, OperandKind, Part, RegClass, SpecialReg};
use crate::{Decoded, Isa};
use isabridge_ir::ir::{Block, ExecModel, Function, Reg};
use isabridge_ir::{Builder, Type, Value};
use std::collections::BTreeSet;

pub use single::lift_one;
pub use kernel::{kernel_params, lift_kernel, lift_kernel_module, lift_kernel_module_late_memory, ttmp_workgroup_id_params, KernelEntry, Resolved, MAX_CALL_DEPTH};

/// How a program starts: what the dispatcher loads before the first instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Run as a wave of 64 lanes (else 32).
    pub wave64: bool,
    /// The MODE register at entry (bits 0-3 rounding, 4-7 denormals, 8 DX10_CLAMP, 9 IEEE).
    pub mode: u32,
    /// User SGPRs loaded into s0.. from the function's first inputs (parameters 0..n).
    pub user_sgprs: u32,
    /// VGPRs loaded with system values at entry, in order (v0 = the first).
    pub vgpr_inputs: Vec<SystemValue>,
    /// gfx1013 code may hold the gfx10.3 dot-product instructions (RDNA2 code, such as the
    /// hardware vectors'; [`crate::amd::dot_ext`]).
    pub gfx10_3_dot: bool,
}

/// A per-lane system value a dispatcher loads into a VGPR.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SystemValue {
    /// Local invocation id X: parameter `user_sgprs` of the IR function (one per lane).
    LocalIdX,
}

impl Default for Options {
    fn default() -> Self {
        // MODE 0xc0 with DX10_CLAMP: f32 denormals flushed, f16/f64 kept, IEEE off.
        Options { wave64: false, mode: 0xc0 | 1 << 8, user_sgprs: 0, vgpr_inputs: vec![SystemValue::LocalIdX], gfx10_3_dot: false }
    }
}

/// Register keys: the AMD source-operand numbering (SGPR 0-105, vcc 106-107, ttmp 108-123, m0
/// 124, exec 126-127), VGPRs from 256, SCC apart.
const VCC_LO: u16 = 106;
const M0: u16 = 124;
const EXEC_LO: u16 = 126;
const TTMP0: u16 = 108;
const VGPR0: u16 = 256;
const SCC: u16 = 1000;

/// Lift a program given as code bytes (entry at the first byte) into one IR function.
pub fn lift(isa: Isa, code: &[u8], base: u64, opts: &Options) -> Result<Function, LiftError> {
    lift_code(isa, code, base, opts, false)
}

/// Lift as [`lift`] does, with every memory result the code uses arriving late: a pending op
/// (see `pending.rs`) after each, so the interpreter runs the function in its
/// late-arriving-memory model and a register read before the wait that covers it is poison.
pub fn lift_late_memory(isa: Isa, code: &[u8], base: u64, opts: &Options) -> Result<Function, LiftError> {
    lift_code(isa, code, base, opts, true)
}

fn lift_code(isa: Isa, code: &[u8], base: u64, opts: &Options, late: bool) -> Result<Function, LiftError> {
    check_isa(isa, base)?;
    let plugin: &dyn crate::IsaPlugin =
        if opts.gfx10_3_dot && isa == Isa::Gfx1013 { &crate::amd::dot_ext::GFX10_DOT } else { isa.plugin() };
    let mut insts = Vec::new();
    let mut off = 0usize;
    while off < code.len() {
        let addr = base + off as u64;
        let d = plugin.decode(&code[off..], addr).map_err(|e| LiftError::Decode { isa, addr, why: e.to_string() })?;
        insts.push((plugin.operands(&d, addr), d));
        off += d.len as usize;
    }
    // Block leaders: the entry, branch targets, and what follows a branch or the end.
    let end = base + code.len() as u64;
    let mut leaders = BTreeSet::from([base]);
    for (i, d) in &insts {
        if i.flow != Flow::Next {
            leaders.insert(i.addr + i.len as u64);
        }
        if matches!(i.flow, Flow::Branch | Flow::CondBranch) {
            let t = target(i).ok_or_else(|| unsupported_at(isa, i, d, "branch without a direct target"))?;
            if t < base || t >= end {
                return Err(LiftError::BranchOutside { isa, addr: i.addr, target: t });
            }
            leaders.insert(t);
        }
    }
    leaders.retain(|a| *a < end);
    let mut f = Function::new("main");
    f.model = ExecModel::Wave;
    f.wave_size = if opts.wave64 { 64 } else { 32 };
    let entry = f.add_block();
    // Leaders in address order with their blocks: the instruction loop walks them with a cursor,
    // branch targets are found by binary search.
    let blocks: Vec<(u64, Block)> = leaders.iter().map(|a| (*a, f.add_block())).collect();
    let block_at = |a: u64| blocks.binary_search_by_key(&a, |e| e.0).ok().map(|i| blocks[i].1);
    f.insts.reserve(insts.len() * 16);
    let mut cx = Cx { f: &mut f, block: entry, isa, wave64: opts.wave64, mode: opts.mode, regs: Default::default() };
    cx.prologue(opts);
    cx.b().jump(blocks[0].1);
    let mut open = false;
    let mut leader = 0;
    for (inst, d) in &insts {
        while leader < blocks.len() && blocks[leader].0 < inst.addr {
            leader += 1;
        }
        if let Some(&(a, b)) = blocks.get(leader) {
            if a == inst.addr {
                if open {
                    cx.b().jump(b);
                }
                cx.block = b;
                open = true;
            }
        }
        if !open {
            continue; // unreachable code after an unconditional branch or the end
        }
        let next = inst.addr + inst.len as u64;
        let mut at = At { inst, d };
        let first = cx.f.insts.len();
        match inst.flow {
            Flow::Next => {
                cx.lift_inst(&mut at)?;
                if late {
                    pending::mark(&mut cx, &at, first);
                }
            }
            Flow::End => {
                cx.lift_inst(&mut at)?;
                if late {
                    pending::mark(&mut cx, &at, first);
                }
                cx.b().ret(&[]);
                open = false;
            }
            Flow::Branch => {
                let t = target(inst).unwrap_or(next);
                let to = block_at(t).ok_or_else(|| unsupported_at(isa, inst, d, "branch target inside an instruction"))?;
                cx.b().jump(to);
                open = false;
            }
            Flow::CondBranch => {
                let c = sop::branch_condition(&mut cx, &at)?;
                let t = target(inst).unwrap_or(next);
                let fall = block_at(next).ok_or_else(|| unsupported_at(isa, inst, d, "conditional branch at the end of the code"))?;
                let to = block_at(t).ok_or_else(|| unsupported_at(isa, inst, d, "branch target inside an instruction"))?;
                cx.b().branch(c, to, fall);
                open = false;
            }
            _ => return Err(unsupported_at(isa, inst, d, "calls, returns and indirect jumps do not lift yet")),
        }
    }
    if open {
        cx.b().ret(&[]);
    }
    Ok(f)
}

/// The integer atomic an instruction name's operation part names (`ADD`, `CMPSWAP`, `UMAX`, ...),
/// shared by the buffer and the global/flat/scratch atomics.
fn int_atomic_kind(op: &str) -> Option<isabridge_ir::ops::mem::AtomicKind> {
    use isabridge_ir::ops::mem::AtomicKind;
    Some(match op {
        "SWAP" => AtomicKind::Exch,
        "CMPSWAP" => AtomicKind::CmpExch,
        "ADD" => AtomicKind::Add,
        "SUB" => AtomicKind::Sub,
        "SMIN" => AtomicKind::Min(true),
        "UMIN" => AtomicKind::Min(false),
        "SMAX" => AtomicKind::Max(true),
        "UMAX" => AtomicKind::Max(false),
        "AND" => AtomicKind::And,
        "OR" => AtomicKind::Or,
        "XOR" => AtomicKind::Xor,
        "INC" => AtomicKind::Inc,
        "DEC" => AtomicKind::Dec,
        _ => return None,
    })
}

/// The ISAs this lifter takes (AMD only).
fn check_isa(isa: Isa, addr: u64) -> Result<(), LiftError> {
    if matches!(isa, Isa::Gfx1013 | Isa::Gfx1201) {
        return Ok(());
    }
    Err(LiftError::Unsupported { isa, addr, text: String::new(), why: "only AMD gfx1013 and gfx1201 code lifts here".into() })
}

fn target(i: &Inst) -> Option<u64> {
    i.operands.iter().find_map(|o| match o.kind {
        OperandKind::Label(t) => Some(t),
        _ => None,
    })
}

/// The error for instruction `i`, printed (only now) as the reference disassembler prints it.
fn unsupported_at(isa: Isa, i: &Inst, d: &Decoded, why: &str) -> LiftError {
    let mut text = String::new();
    isa.plugin().print(d, i.addr, &mut text);
    LiftError::Unsupported { isa, addr: i.addr, text, why: why.into() }
}

/// The instruction being lifted: its operand model, and its words for printing in errors.
pub(crate) struct At<'a> {
    pub inst: &'a Inst,
    pub d: &'a Decoded,
}

impl At<'_> {
    /// The explicit operand written in `field`, or the first written one.
    pub fn def(&self) -> Option<&Operand> {
        self.inst.operands.iter().find(|o| !o.implicit && o.access.writes())
    }
    /// Explicit operands read, in order.
    pub fn srcs(&self) -> Vec<&Operand> {
        self.inst.operands.iter().filter(|o| !o.implicit && o.access == Access::Read).collect()
    }
    /// The operand named by a field.
    pub fn field(&self, name: &str) -> Option<&Operand> {
        self.inst.operands.iter().find(|o| o.field == name)
    }
    /// Whether a modifier is present.
    pub fn has(&self, m: Modifier) -> bool {
        self.inst.modifiers.contains(&m)
    }
}

/// The lifting context: the function, the current block, register handles, static MODE.
pub(crate) struct Cx<'f> {
    pub f: &'f mut Function,
    pub block: Block,
    pub isa: Isa,
    pub wave64: bool,
    /// MODE register as far as the lifter knows it (changes by constant `s_setreg` are tracked).
    pub mode: u32,
    regs: super::reg_keys::RegKeys,
}

impl Cx<'_> {
    /// A builder at the current block.
    pub fn b(&mut self) -> Builder<'_> {
        Builder::new(self.f, self.block)
    }

    /// The error for the instruction being lifted.
    pub fn unsupported(&self, at: &At, why: &str) -> LiftError {
        unsupported_at(self.isa, at.inst, at.d, why)
    }

    fn prologue(&mut self, opts: &Options) {
        for i in 0..opts.user_sgprs {
            let p = self.b().param(i, Type::I32);
            self.f.insts[p].uniform = true;
            self.wr(i as u16, p);
        }
        for (k, sv) in opts.vgpr_inputs.iter().enumerate() {
            let v = match sv {
                SystemValue::LocalIdX => self.b().param(opts.user_sgprs, Type::I32),
            };
            self.wr(VGPR0 + k as u16, v);
        }
        let ones = self.k32(u32::MAX);
        self.wr(EXEC_LO, ones);
        let hi = self.k32(if self.wave64 { u32::MAX } else { 0 });
        self.wr(EXEC_LO + 1, hi);
    }

    fn reg(&mut self, key: u16) -> Reg {
        if let Some(r) = self.regs.get(&key) {
            return *r;
        }
        let (ty, uniform, name) = match key {
            SCC => (Type::B1, true, "scc".to_string()),
            0..=105 => (Type::I32, true, format!("s{key}")),
            106 => (Type::I32, true, "vcc_lo".into()),
            107 => (Type::I32, true, "vcc_hi".into()),
            108..=123 => (Type::I32, true, format!("ttmp{}", key - TTMP0)),
            124 => (Type::I32, true, "m0".into()),
            126 => (Type::I32, true, "exec_lo".into()),
            127 => (Type::I32, true, "exec_hi".into()),
            k if k >= VGPR0 => (Type::I32, false, format!("v{}", k - VGPR0)),
            k => (Type::I32, true, format!("sreg{k}")),
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

    /// Write a register by key (no merge).
    pub fn wr(&mut self, key: u16, v: Value) {
        let r = self.reg(key);
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

    /// SCC as b1.
    pub fn scc(&mut self) -> Value {
        self.rd(SCC)
    }

    /// Set SCC.
    pub fn set_scc(&mut self, v: Value) {
        self.wr(SCC, v)
    }

    /// A lane mask from a register pair (the high register is ignored in wave32).
    pub fn mask_of_pair(&mut self, lo_key: u16) -> Value {
        let lo = self.rd(lo_key);
        let hi = if self.wave64 { self.rd(lo_key + 1) } else { self.k32(0) };
        let p = self.b().build(Type::V(isabridge_ir::Scalar::I32, 2), &[lo, hi]);
        self.b().bitcast(Type::Mask, p)
    }

    /// EXEC as a lane mask.
    pub fn exec(&mut self) -> Value {
        self.mask_of_pair(EXEC_LO)
    }

    /// Write a lane mask into a register pair (only the low register in wave32).
    pub fn write_mask_pair(&mut self, lo_key: u16, m: Value) {
        let p = self.b().bitcast(Type::V(isabridge_ir::Scalar::I32, 2), m);
        let lo = self.b().extract(Type::I32, p, 0);
        self.wr(lo_key, lo);
        if self.wave64 {
            let hi = self.b().extract(Type::I32, p, 1);
            self.wr(lo_key + 1, hi);
        }
    }

    /// Per-lane b1: this lane's bit of a mask.
    pub fn lane_bit(&mut self, m: Value) -> Value {
        let t = self.k(Type::B1, 1);
        let f = self.k(Type::B1, 0);
        self.b().lanesel(Type::B1, m, t, f)
    }

    /// The register key of dword `k` of a register operand, if it is one.
    pub fn key_of(&self, op: &Operand, k: u16) -> Option<u16> {
        Some(match op.kind {
            OperandKind::Reg(r) => match r.class {
                RegClass::Sgpr => r.first + k,
                RegClass::Vgpr => VGPR0 + r.first + k,
                RegClass::Ttmp => TTMP0 + r.first + k,
                _ => return None,
            },
            OperandKind::Special { reg, part } => {
                let base = match reg {
                    SpecialReg::Vcc => VCC_LO,
                    SpecialReg::Exec => EXEC_LO,
                    SpecialReg::M0 => M0,
                    _ => return None,
                };
                base + k + (part == Part::Hi) as u16
            }
            _ => return None,
        })
    }

    /// Dword `k` of a source operand as i32 (registers, constants, literals, SCC, null).
    pub fn src32(&mut self, at: &At, op: &Operand, k: u16) -> Result<Value, LiftError> {
        if let Some(key) = self.key_of(op, k) {
            return Ok(self.rd(key));
        }
        Ok(match op.kind {
            OperandKind::InlineConst { bits, .. } => self.k32((bits >> (32 * k)) as u32),
            OperandKind::Literal(x) => {
                let v = if k == 0 { x } else { 0 };
                self.k32(v)
            }
            OperandKind::Imm(x) => self.k32((x >> (32 * k)) as u32),
            OperandKind::Special { reg: SpecialReg::Null, .. } => self.k32(0),
            OperandKind::Special {
                reg: reg @ (SpecialReg::SharedBase | SpecialReg::SharedLimit | SpecialReg::PrivateBase | SpecialReg::PrivateLimit),
                ..
            } if op.size == 64 => {
                // The aperture registers (see flat.rs): base = high dword << 32, limit = base + 4 GiB - 1.
                let hi = if matches!(reg, SpecialReg::SharedBase | SpecialReg::SharedLimit) {
                    flat::SHARED_APERTURE_HI
                } else {
                    flat::PRIVATE_APERTURE_HI
                };
                let lo = if matches!(reg, SpecialReg::SharedLimit | SpecialReg::PrivateLimit) { u32::MAX } else { 0 };
                self.k32(if k == 0 { lo } else { hi })
            }
            OperandKind::Special { reg: SpecialReg::Scc | SpecialReg::SrcScc, .. } => {
                let s = self.scc();
                self.b().conv(isabridge_ir::ops::conv::ConvOp::IToI { signed: false }, Type::I32, s)
            }
            _ => return Err(self.unsupported(at, &format!("source operand {:?}", op.kind))),
        })
    }

    /// A 64-bit source as i64 (register pairs, 64-bit constants; a literal is the low dword,
    /// or the high dword for f64 operands when `float` is set).
    pub fn src64(&mut self, at: &At, op: &Operand, float: bool) -> Result<Value, LiftError> {
        let (lo, hi) = match op.kind {
            OperandKind::Literal(x) if float => (0u32, x),
            OperandKind::InlineConst { bits, .. } => (bits as u32, (bits >> 32) as u32),
            _ => {
                let lo = self.src32(at, op, 0)?;
                let hi = self.src32(at, op, 1)?;
                return Ok(self.join64(lo, hi));
            }
        };
        Ok(self.k(Type::I64, (hi as u64) << 32 | lo as u64))
    }

    /// i64 from two i32 halves.
    pub fn join64(&mut self, lo: Value, hi: Value) -> Value {
        let p = self.b().build(Type::V(isabridge_ir::Scalar::I32, 2), &[lo, hi]);
        self.b().bitcast(Type::I64, p)
    }

    /// The two i32 halves of an i64.
    pub fn split64(&mut self, v: Value) -> (Value, Value) {
        let p = self.b().bitcast(Type::V(isabridge_ir::Scalar::I32, 2), v);
        let lo = self.b().extract(Type::I32, p, 0);
        let hi = self.b().extract(Type::I32, p, 1);
        (lo, hi)
    }

    /// Write dword `k` of a scalar destination.
    pub fn def_s32(&mut self, at: &At, op: &Operand, k: u16, v: Value) -> Result<(), LiftError> {
        match op.kind {
            OperandKind::Special { reg: SpecialReg::Null, .. } => Ok(()),
            _ => {
                let key = self.key_of(op, k).ok_or_else(|| self.unsupported(at, "scalar destination"))?;
                self.wr(key, v);
                Ok(())
            }
        }
    }

    /// Write dword `k` of a VGPR destination under `mask` (EXEC unless told; an SDWA form
    /// writes its selected part).
    pub fn def_v32(&mut self, at: &At, op: &Operand, k: u16, v: Value, mask: Value) -> Result<(), LiftError> {
        let key = self.key_of(op, k).filter(|k| *k >= VGPR0).ok_or_else(|| self.unsupported(at, "vector destination"))?;
        let old = self.rd(key);
        let v = sdwa::dst(self, at, old, v);
        let m = self.b().lanesel(Type::I32, mask, v, old);
        self.wr(key, m);
        Ok(())
    }

    /// Whether the instruction reads or writes 64-bit lane masks in SGPR pairs (wave64).
    pub fn mask_words(&self) -> u16 {
        if self.wave64 {
            2
        } else {
            1
        }
    }

    fn lift_inst(&mut self, at: &mut At) -> Result<(), LiftError> {
        let name = match self.isa {
            Isa::Gfx1201 if at.inst.encoding == "ENC_VOPD" => return gfx12::vopd(self, at),
            Isa::Gfx1201 if gfx12_mem::is_memory(at.inst) => return gfx12_mem::lift(self, at),
            Isa::Gfx1201 if gfx12_image::takes(at) => return gfx12_image::lift(self, at),
            Isa::Gfx1201 => match gfx12::family_name(self, at)? {
                Some(n) => n,
                None => return Ok(()),
            },
            _ => at.inst.name,
        };
        self.lift_named(at, name)
    }

    /// Lift `at` with the family code of the gfx1013 instruction `name`.
    fn lift_named(&mut self, at: &mut At, name: &str) -> Result<(), LiftError> {
        if self.isa == Isa::Gfx1201 {
            if let Some(r) = gfx12_alu::lift(self, at, name) {
                return r;
            }
        }
        if let Some(r) = smem::lift(self, at, name) {
            return r;
        }
        if let Some(r) = dot::lift(self, at, name) {
            return r;
        }
        if let Some(r) = flat::lift(self, at, name) {
            return r;
        }
        if let Some(r) = kernel::lift(self, at, name) {
            return r;
        }
        if let Some(r) = wave::lift(self, at, name) {
            return r;
        }
        if let Some(r) = waits::lift(self, at, name) {
            return r;
        }
        if let Some(r) = trap::lift(self, at, name) {
            return r;
        }
        if let Some(r) = sop::lift(self, at, name) {
            return r;
        }
        if let Some(r) = stage::lift(self, at, name) {
            return r;
        }
        if let Some(r) = bvh::lift(self, at, name) {
            return r;
        }
        if let Some(r) = mimg::lift(self, at, name) {
            return r;
        }
        if let Some(r) = mubuf::lift(self, at, name) {
            return r;
        }
        if let Some(r) = mtbuf::lift(self, at, name) {
            return r;
        }
        if let Some(r) = lanes::lift(self, at, name) {
            return r;
        }
        if let Some(r) = ds::lift(self, at, name) {
            return r;
        }
        if let Some(r) = vcmp::lift(self, at, name) {
            return r;
        }
        if let Some(r) = movrel::lift(self, at, name) {
            return r;
        }
        if let Some(r) = cvt16::lift(self, at, name) {
            return r;
        }
        if let Some(r) = vint16::lift(self, at, name) {
            return r;
        }
        if let Some(r) = vop3p::lift(self, at, name) {
            return r;
        }
        if let Some(r) = vint::lift(self, at, name) {
            return r;
        }
        if let Some(r) = vbits::lift(self, at, name) {
            return r;
        }
        if let Some(r) = vmad::lift(self, at, name) {
            return r;
        }
        if let Some(r) = vtrans::lift(self, at, name) {
            return r;
        }
        if let Some(r) = vdiv::lift(self, at, name) {
            return r;
        }
        if let Some(r) = cube::lift(self, at, name) {
            return r;
        }
        if let Some(r) = vfloat::lift(self, at, name) {
            return r;
        }
        Err(self.unsupported(at, "no lifter for this instruction yet"))
    }
}
