//! The sm_50 (Maxwell) lifter: a lanes-model IR function like the sm_86 one, on the same
//! lifting context (`sm86::Cx`: registers R0-R254 and P0-P6, the guard as a per-lane select,
//! constant bank 0 for kernel parameters, special registers as [`SystemValue`] parameters).
//!
//! What differs from sm_86 lives here:
//! - Reconvergence through a per-warp stack: `SSY L` / `PBK L` / `PCNT L` push a region that
//!   ends at L, and `SYNC` / `BRK` / `CONT` send the lanes there (`control.rs`). Each region is
//!   an IR convergence region (`converge.open` where it is pushed, `converge.join` at L); the
//!   region a `SYNC` / `BRK` / `CONT` pops is the innermost one of its kind on the region stack
//!   the paths to it build, and the regions above it there are left first (`region_flow.rs`;
//!   code ranges decide only for a pop no path reaches with such a region open).
//! - `CAL L` / `RET`: the return address is on the same hardware stack; here it is a per-lane
//!   register ([`RET_STACK`]) holding the numbers of the pending return sites, eight bits each.
//! - The condition code's carry and zero flags ([`CC_CARRY`], [`CC_ZERO`]): adders with a
//!   `.CC` destination write them, `.X` instructions read them (the model lists CC as an
//!   implicit operand; `cc.rs` has the model). Other flags and other readers are typed errors.
//! - Families, one file each: XMAD (`xmad.rs`), the Maxwell integer ALU (`int.rs`: IADD,
//!   IADD32I, ISCADD, IADD3, SHL, SHR, BFE, BFI, LOP, LOP32I, LOP3, ICMP, ISETP with `.X`, PSETP,
//!   PSET, MOV32I), generic addresses and the shared window (`generic.rs`: LEA's predicate
//!   result, LD / ST with a predicate), floats (`float.rs`: FSET, RRO, FADD32I / FMUL32I, DMNMX), conversions sm_86
//!   spells differently (`conv.rs`: I2F, F2F to an integral value), control
//!   (`control.rs`). Instructions whose operands and meaning are the same as on sm_86 (FADD,
//!   FFMA, FSETP, MUFU, conversions, f64 arithmetic, memory, SHFL, VOTE, ...) go to the sm_86
//!   families.

mod cas;
mod cc;
mod cc_ops;
mod control;
mod conv;
mod float;
mod generic;
mod imad;
mod indirect;
mod int;
mod lea;
mod region_flow;
mod system;
mod video;
mod xmad;

use super::sm86::{self, At, Cx};
use super::sm86::{target, unsupported_at};
use super::{nv_driver, LiftError};
use crate::operand::{Flow, Inst, Operand, OperandKind, SpecialReg};
use crate::nvidia::model::LayoutCache;
use crate::spec::NvPiece;
use crate::{Decoded, Isa};
use isabridge_ir::ir::{Block, Function};
use std::collections::HashMap;

pub use super::sm86::{Options, SystemValue};
pub use generic::SHARED_WINDOW;

/// Register key of the condition code's carry flag (an i32, 0 or 1): `.CC` writes it, `.X`
/// reads it.
pub const CC_CARRY: u16 = 600;
/// Register key of the condition code's zero flag (an i32, 0 or 1; see `cc.rs`).
pub const CC_ZERO: u16 = 602;
/// Register key of the condition code's sign flag (an i32, 0 or 1; see `cc_ops.rs`).
pub const CC_SIGN: u16 = 603;
/// Register key of the per-lane return stack's first word: the numbers (1-based, eight bits
/// each, the innermost lowest) of the return sites of the calls not yet returned from. The
/// stack is [`RET_STACK_WORDS`] i32 words, word 0 here and word `j` at
/// `RET_STACK_DEEP + j - 1`; a call with the stack full traps ([`RET_STACK_TRAP`]).
pub const RET_STACK: u16 = 601;
/// Register key of the return stack's second word (the deeper words follow it).
pub const RET_STACK_DEEP: u16 = 610;
/// Words of the return stack (four return sites each).
pub const RET_STACK_WORDS: u16 = 8;
/// The trap code of a call made with the return stack full (more than 32 pending calls).
pub const RET_STACK_TRAP: u16 = 0xfffe;

/// What pushed a reconvergence region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RegionKind {
    /// `SSY`, popped by `SYNC`.
    Sync,
    /// `PBK`, popped by `BRK`.
    Break,
    /// `PCNT`, popped by `CONT`.
    Cont,
}

/// A reconvergence region: pushed at `at`, ending at `target`, its mask in register `key`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Region {
    /// Who pushed it.
    pub kind: RegionKind,
    /// Address of the push.
    pub at: u64,
    /// Where its lanes meet again.
    pub target: u64,
    /// Register key of its member mask.
    pub key: u16,
}

impl Region {
    /// Whether address `x` lies in the code range from the push to the target.
    fn holds(&self, x: u64) -> bool {
        let (lo, hi) = if self.at < self.target { (self.at, self.target) } else { (self.target, self.at) };
        lo < x && x < hi
    }
    fn span(&self) -> u64 {
        self.at.abs_diff(self.target)
    }
}

/// The control structure of the code: regions, blocks, return sites.
pub(crate) struct Layout {
    /// Every region pushed in the code.
    pub regions: Vec<Region>,
    /// The block of every leader address.
    pub blocks: HashMap<u64, Block>,
    /// The address after each `CAL` (its return site), in code order.
    pub ret_sites: Vec<u64>,
    /// The block every exit goes to.
    pub exit: Block,
    /// The address the code starts at.
    pub base: u64,
    /// The targets of each indirect branch (addresses): see [`Options::branch_targets`].
    pub branch_targets: Vec<(u64, Vec<u64>)>,
    /// For each pop the paths reach with a region of its kind open: the region it ends and the
    /// regions it unwinds, innermost first (indices into `regions`; `region_flow.rs`).
    pub flow_pops: HashMap<u64, (usize, Vec<usize>)>,
}

impl Layout {
    /// The region a pop of `kind` at `x` ends and the regions it unwinds (left first): as the
    /// region stack on the paths to `x` says ([`Layout::flow_pops`]), else by code ranges
    /// ([`Layout::pop_by_range`]).
    pub fn pop(&self, kind: RegionKind, x: u64) -> Option<(Region, Vec<Region>)> {
        match self.flow_pops.get(&x) {
            Some((r, inner)) => Some((self.regions[*r], inner.iter().map(|o| self.regions[*o]).collect())),
            None => self.pop_by_range(kind, x),
        }
    }

    /// The region a pop of `kind` at `x` ends by code ranges (the innermost one of that kind
    /// holding `x`, or the only one of that kind), and the regions inside it that hold `x`
    /// (left first).
    pub fn pop_by_range(&self, kind: RegionKind, x: u64) -> Option<(Region, Vec<Region>)> {
        let holding = |k: RegionKind| self.regions.iter().filter(move |r| r.kind == k && r.holds(x));
        let r = holding(kind).min_by_key(|r| r.span()).copied().or_else(|| {
            let mut all = self.regions.iter().filter(|r| r.kind == kind);
            match (all.next(), all.next()) {
                (Some(r), None) => Some(*r),
                _ => None,
            }
        })?;
        let inner =
            self.regions.iter().filter(|o| o.key != r.key && o.holds(x) && o.span() < r.span() && r.holds(o.at)).copied().collect();
        Some((r, inner))
    }
}

/// Lift a program given as code bytes (entry at the first byte; `base` a bundle start) into
/// one IR function.
pub fn lift(isa: Isa, code: &[u8], base: u64, opts: &Options) -> Result<Function, LiftError> {
    lift_with(isa, code, base, opts, &mut LayoutCache::default())
}

/// [`lift`], with the operand model's form layouts kept in `forms` from one call to the next: a
/// caller lifting many functions keeps one cache, and each form's template is read once.
pub fn lift_with(isa: Isa, code: &[u8], base: u64, opts: &Options, forms: &mut LayoutCache) -> Result<Function, LiftError> {
    nv_driver::check_isa(isa, Isa::Sm50, base)?;
    let insts = nv_driver::decode_all(isa, code, base, forms)?;
    let end = base + code.len() as u64;
    let branch_targets: Vec<(u64, Vec<u64>)> =
        opts.branch_targets.iter().map(|(a, t)| (base + a, t.iter().map(|t| base + t).collect())).collect();
    let calls: Vec<u64> = opts.call_targets.iter().map(|t| base + t).collect();
    let extra: Vec<u64> = branch_targets.iter().flat_map(|(_, t)| t.iter().copied()).chain(calls.iter().copied()).collect();
    let leaders = nv_driver::leaders(isa, &insts, base, end, |i| push_kind(i.name).is_some() || i.name == "PRET", &extra)?;
    let mut regions = Vec::new();
    for (i, d) in &insts {
        if let Some(kind) = push_kind(i.name) {
            let t = target(i).ok_or_else(|| unsupported_at(isa, i, d, "branch without a direct target"))?;
            let key = u16::try_from(regions.len()).ok().and_then(|n| sm86::REGION0.checked_add(n));
            let Some(key) = key else {
                let most = u16::MAX - sm86::REGION0 + 1;
                return Err(unsupported_at(isa, i, d, &format!("more than {most} reconvergence regions in one function")));
            };
            regions.push(Region { kind, at: i.addr, target: t, key });
        }
    }
    // Return sites: the address after each CAL, and each PRET's target.
    let ret_sites: Vec<u64> = insts
        .iter()
        .filter_map(|(i, _)| match (i.flow, i.name) {
            (Flow::Call, _) => Some(i.addr + i.len as u64),
            (_, "PRET") => target(i),
            _ => None,
        })
        .collect();
    if ret_sites.len() > 255 {
        return Err(LiftError::Unsupported { isa, addr: base, text: String::new(), why: "more than 255 calls in one function".into() });
    }
    let mut f = nv_driver::lanes_function("main", opts, insts.len());
    let entry = f.add_block();
    let mut cx = Cx::new(&mut f, entry, isa);
    let blocks = nv_driver::layout(&mut cx, opts, &leaders, base, |cx| {
        let zero = cx.k32(0);
        for j in 0..RET_STACK_WORDS {
            cx.wr(ret_stack_key(j), zero);
        }
    });
    let mut lay = Layout { regions, blocks: blocks.at, ret_sites, exit: blocks.exit, base, branch_targets, flow_pops: HashMap::new() };
    lay.flow_pops = region_flow::pops(&lay, &insts, |i, d, why| unsupported_at(isa, i, d, why))?;
    nv_driver::walk(
        &mut cx,
        &insts,
        &lay.blocks,
        lay.exit,
        |cx, addr| control::joins_at(cx, &lay, addr),
        |cx, at| match at.inst.flow {
            Flow::Next => lift_named(cx, at, &lay),
            _ if indirect::is_call(at, base, &opts.indirect_calls) => indirect::call(cx, at, &lay, &calls),
            _ => control::terminator(cx, at, &lay),
        },
    )?;
    Ok(f)
}

/// The register key of word `j` of the return stack.
pub(crate) fn ret_stack_key(j: u16) -> u16 {
    if j == 0 {
        RET_STACK
    } else {
        RET_STACK_DEEP + j - 1
    }
}

/// The region kind an instruction pushes (`SSY`, `PBK`, `PCNT`), if any.
fn push_kind(name: &str) -> Option<RegionKind> {
    match name {
        "SSY" => Some(RegionKind::Sync),
        "PBK" => Some(RegionKind::Break),
        "PCNT" => Some(RegionKind::Cont),
        _ => None,
    }
}

/// Lift the instruction at the start of `bytes` (at `addr`) into a scratch function: whether
/// the lifter knows it. Returns its length in bytes, or the error a whole-program lift would
/// give for it. Branch targets and reconvergence regions are not checked.
pub fn lift_one(isa: Isa, bytes: &[u8], addr: u64, opts: &Options) -> Result<usize, LiftError> {
    nv_driver::check_isa(isa, Isa::Sm50, addr)?;
    let (inst, d) = nv_driver::decode_one(isa, bytes, addr)?;
    let mut f = nv_driver::lanes_function("one", opts, 1);
    let block = f.add_block();
    let exit = f.add_block();
    let mut lay =
        Layout { regions: Vec::new(), blocks: HashMap::new(), ret_sites: Vec::new(), exit, base: addr, branch_targets: Vec::new(), flow_pops: HashMap::new() };
    // A stand-in region and blocks so that pushes, pops, branches and calls resolve.
    let kind = match inst.name {
        "SYNC" | "SSY" => Some(RegionKind::Sync),
        "BRK" | "PBK" => Some(RegionKind::Break),
        "CONT" | "PCNT" => Some(RegionKind::Cont),
        _ => None,
    };
    let t = target(&inst).unwrap_or(addr + 8);
    if let Some(kind) = kind {
        lay.regions.push(Region { kind, at: addr, target: t, key: sm86::REGION0 });
    }
    lay.blocks.insert(t, exit);
    lay.blocks.insert(addr + d.len as u64, exit);
    if inst.flow == Flow::Call {
        lay.ret_sites.push(addr + d.len as u64);
    }
    if inst.name == "PRET" {
        lay.ret_sites.push(t);
    }
    if inst.name == "BRX" {
        lay.branch_targets.push((addr, Vec::new()));
    }
    let mut cx = Cx::new(&mut f, block, isa);
    let at = At::new(&inst, &d);
    cx.set_guard(&at)?;
    match inst.flow {
        Flow::Next => lift_named(&mut cx, &at, &lay)?,
        _ => control::terminator(&mut cx, &at, &lay)?,
    }
    Ok(d.len as usize)
}

/// Whether operand `o` is the condition code register.
pub(crate) fn is_cc(o: &Operand) -> bool {
    matches!(o.kind, OperandKind::Special { reg: SpecialReg::Cc, .. })
}

/// Whether the instruction writes the condition code (a `.CC` destination).
pub(crate) fn writes_cc(at: &At) -> bool {
    at.inst.operands.iter().any(|o| is_cc(o) && o.access.writes())
}

/// Whether the instruction reads the condition code.
pub(crate) fn reads_cc(at: &At) -> bool {
    at.inst.operands.iter().any(|o| is_cc(o) && !o.access.writes())
}

/// Whether the form's template marks the operand of field `field` with `.H1` (its high 16
/// bits: `XMAD R0, R1.H1, c[0x0] [0x8].H1, R2`).
pub(crate) fn h1(at: &At, field: &str) -> bool {
    marked(at, field, ".H1")
}

/// Whether the form's template follows the operand of field `field` with the literal `mark`
/// (`.H1`, `.INV`, `.NEG`); a constant-bank operand's mark follows its second field.
pub(crate) fn marked(at: &At, field: &str, mark: &str) -> bool {
    let Some(form) = crate::sm50::TABLES.forms.get(at.d.enc as usize) else { return false };
    let mut last: Option<&str> = None;
    for p in form.pieces() {
        match p {
            NvPiece::Field(i) => last = form.fields.get(i as usize).map(|f| f.name()),
            NvPiece::Lit(x) => {
                if x.trim_start_matches(']').starts_with(mark) {
                    let named = match last {
                        Some("IMM2") => Some("IMM"),
                        l => l,
                    };
                    if named == Some(field) {
                        return true;
                    }
                }
                if !x.is_empty() && !x.starts_with('.') && !x.starts_with(']') {
                    last = None;
                }
            }
        }
    }
    false
}

/// Lift a fall-through instruction: the sm_50 families, then the sm_86 families for the
/// instructions both ISAs share.
fn lift_named(cx: &mut Cx, at: &At, lay: &Layout) -> Result<(), LiftError> {
    let name = at.inst.name;
    if let Some(r) = cc_ops::lift(cx, at, name, |cx, at| lift_named(cx, at, lay)) {
        return r;
    }
    if let Some(r) = control::lift(cx, at, name, lay) {
        return r;
    }
    if let Some(r) = xmad::lift(cx, at, name) {
        return r;
    }
    if let Some(r) = int::lift(cx, at, name) {
        return r;
    }
    if let Some(r) = lea::lift(cx, at, name) {
        return r;
    }
    if let Some(r) = system::lift(cx, at, name) {
        return r;
    }
    if let Some(r) = imad::lift(cx, at, name) {
        return r;
    }
    if let Some(r) = video::lift(cx, at, name) {
        return r;
    }
    if let Some(r) = float::lift(cx, at, name) {
        return r;
    }
    if let Some(r) = conv::lift(cx, at, name) {
        return r;
    }
    if writes_cc(at) || reads_cc(at) {
        return Err(cx.unsupported(at, "condition code operand on an instruction that does not model it"));
    }
    if let Some(s) = at.sfx.iter().find(|s| s.starts_with("???")) {
        return Err(cx.unsupported(at, &format!("unnamed modifier {s}")));
    }
    let shared = match name {
        "FADD" | "FMUL" | "FFMA" | "FMNMX" | "FSEL" | "FSETP" | "FCHK" => sm86::float32::lift(cx, at, name),
        "DADD" | "DMUL" | "DFMA" | "DSETP" => sm86::float64::lift(cx, at, name),
        "F2F" | "F2I" | "I2F" | "I2I" => sm86::conv::lift(cx, at, name),
        "MUFU" => sm86::mufu::lift(cx, at, name),
        "MOV" | "S2R" | "NOP" | "LDC" => sm86::mov::lift(cx, at, name),
        "SEL" | "POPC" | "FLO" | "PRMT" | "IMNMX" => sm86::int::lift(cx, at, name),
        "LDG" | "STG" | "LDS" | "STS" | "LDL" | "STL" | "LD" | "ST" | "ATOM" | "ATOMS" | "RED" | "MEMBAR" | "DEPBAR" | "CCTL" => {
            return mem(cx, at, name)
        }
        "SHFL" | "VOTE" | "BAR" | "B2R" => sm86::control::lift(cx, at, name),
        "SULD" | "SUST" | "SURED" => sm86::surface::lift(cx, at, name),
        "TEX" | "TLD" | "TLD4" | "TXD" | "TXQ" | "TMML" | "TEXS" | "TLDS" | "TLD4S" => sm86::tex::lift(cx, at, name),
        _ => None,
    };
    shared.unwrap_or_else(|| Err(cx.unsupported(at, "no lifter for this instruction yet")))
}

/// Memory instructions through the sm_86 family; `.E` makes a global or generic address a
/// register pair (`LDG.E R0, [R2]` reads the address from R2:R3); compare-and-swap data as
/// `cas.rs` reads it; `LD` / `ST` with a predicate (Plg) as `generic.rs` models them.
fn mem(cx: &mut Cx, at: &At, name: &str) -> Result<(), LiftError> {
    let wide = at.has("E");
    let mut inst: Inst = at.inst.clone();
    if wide {
        for o in inst.operands.iter_mut() {
            if let OperandKind::Mem { base: Some(r), .. } = &mut o.kind {
                if r.count == 1 && r.first < 255 {
                    r.count = 2;
                }
            }
        }
    }
    // LD / ST [addr], Plg: PT (or none) is a plain generic access, another predicate splits
    // the lanes between global and shared memory (generic.rs).
    let mut plg = None;
    if matches!(name, "LD" | "ST") {
        if let Some(i) = generic::plg_operand(&inst) {
            let o = inst.operands.remove(i);
            plg = (!generic::is_pt(&o)).then_some(o);
        }
    }
    let cas = matches!(name, "ATOM" | "ATOMS") && at.has("CAS");
    let wide_cas = if cas { Some(cas::data_operands(cx, at, &mut inst)?) } else { None };
    let d: &Decoded = at.d;
    let mut at2 = At::new(&inst, d);
    if let Some(w) = wide_cas {
        at2.sfx.retain(|s| *s != "64");
        if w {
            at2.sfx.push("64");
        }
    }
    if let Some(p) = plg {
        return generic::access(cx, &at2, name, &p);
    }
    sm86::mem::lift(cx, &at2, name).unwrap_or_else(|| Err(cx.unsupported(at, "no lifter for this instruction yet")))
}
