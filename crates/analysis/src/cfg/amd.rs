//! AMD gfx10 (gfx1013) and gfx12 (gfx1201) control flow.
//!
//! Facts used (the RDNA1 and RDNA4 ISA reference guides, "Scalar Program Flow Control" / SOPP
//! and SOP1 descriptions; LLVM `AMDGPUUsage` for the calling convention):
//! - `s_branch`, `s_cbranch_*`, `s_call_b64`, `s_subvector_loop_*`: target = PC + 4 +
//!   sign-extended SIMM16 * 4, where PC is the branch's own address (the instruction is one
//!   dword). llvm-objdump-22 prints the same targets in the corpus listings
//!   (`s_cbranch_execz 22` at 0x188 -> `<+0xe4>` = 0x1e4 = 0x188 + 4 + 22 * 4).
//! - `s_getpc_b64 s[n:n+1]` writes the address of the *next* instruction (PC + 4).
//! - `s_setpc_b64 s[n:n+1]` jumps to the address in the pair; `s_swappc_b64 d, s` jumps and
//!   writes the return address (PC + 4) to `d`.
//! - Calling convention: the return address arrives in `s[30:31]`, so `s_setpc_b64 s[30:31]`
//!   returns.
//! - `s_endpgm`, `s_endpgm_saved`, `s_endpgm_ordered_ps_done` end the wave.
//! - `s_code_end` is padding after the last instruction (never executed).
//! - Relocations in relocatable objects: `R_AMDGPU_REL32_LO` (10) and `R_AMDGPU_REL32_HI` (11)
//!   store the low / high half of `S + A - P` (LLVM `AMDGPUUsage`, "Relocation Records"); the
//!   `s_add_u32` / `s_addc_u32` after `s_getpc_b64` carry them in their literal dword.

use super::{CallTarget, Cfg, CfgError, Code, Family, Flow, Kind, Machine, Vendor, Walk};
use crate::load::{Function, Section};
use isabridge_decoder::amd::{GFX10, GFX12};
use isabridge_decoder::spec::{Encoding, Operand, OperandType, FLAG_BRANCH, FLAG_COND_BRANCH, FLAG_INDIRECT_BRANCH, FLAG_TERMINATOR};
use isabridge_decoder::{Decoded, Isa};
use std::sync::OnceLock;

/// The AMD family.
pub(crate) struct Amd;

/// Table facts of one decoded AMD instruction.
#[derive(Clone, Copy)]
pub struct Info {
    /// Its encoding.
    pub enc: &'static Encoding,
    /// Operands in print order.
    pub operands: &'static [Operand],
    /// Upper-case name.
    pub name: &'static str,
    /// FLAG_* bits.
    pub flags: u8,
    /// Opcode value in the encoding.
    pub opcode: u32,
    /// The ISA's operand types.
    pub types: &'static [OperandType],
}

/// Table facts of `d`.
pub fn info(isa: Isa, d: &Decoded) -> Info {
    macro_rules! get {
        ($p:expr) => {{
            let t = $p.tables();
            let ie = $p.inst_encoding(d);
            let i = &t.instructions[ie.inst as usize];
            Info { enc: $p.encoding(d), operands: ie.operands, name: i.name, flags: i.flags, opcode: ie.opcode, types: t.operand_types }
        }};
    }
    if isa == Isa::Gfx1201 {
        get!(GFX12)
    } else {
        get!(GFX10)
    }
}

impl Info {
    /// Value of the named field of the encoding.
    pub fn field(&self, d: &Decoded, name: &str) -> Option<u64> {
        self.enc.fields.iter().find(|f| f.name == name).map(|f| f.get(&d.words))
    }

    /// SGPRs (0..105) the instruction writes through its SDST / SREG operands.
    pub fn sgpr_writes(&self, d: &Decoded) -> Option<(u32, u32)> {
        let mut out: Option<(u32, u32)> = None;
        for op in self.operands.iter().filter(|o| o.is_output()) {
            let Some(f) = &op.field else { continue };
            let ty = self.types.get(op.ty as usize).map(|t| t.name).unwrap_or("");
            if ty != "OPR_SDST" && ty != "OPR_SREG" {
                continue;
            }
            let v = f.get(&d.words) as u32;
            if v < 106 {
                let n = (op.size as u32).div_ceil(32).max(1);
                out = Some(match out {
                    Some((lo, hi)) => (lo.min(v), hi.max(v + n)),
                    None => (v, v + n),
                });
            }
        }
        out
    }
}

/// What the AMD family knows about an instruction beyond its [`Kind`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Nothing: the kind says it all.
    Plain,
    /// `s_code_end`: padding after the last instruction, never executed.
    CodeEnd,
    /// `s_setpc_b64`: a return through `s[30:31]`, else resolved from the code before it.
    SetPc,
    /// `s_swappc_b64`: a call whose target is resolved from the code before it.
    SwapPc,
}

/// The analysis's [`Kind`] and the family's [`Role`] of an instruction, by its table entry.
fn entry(name: &str, flags: u8) -> (Kind, Role) {
    match name {
        "S_CODE_END" => return (Kind::Next, Role::CodeEnd),
        "S_SETPC_B64" => return (Kind::Indirect, Role::SetPc),
        "S_SWAPPC_B64" => return (Kind::IndirectCall, Role::SwapPc),
        _ => {}
    }
    let kind = if flags & FLAG_TERMINATOR != 0 || name.starts_with("S_ENDPGM") {
        Kind::End
    } else if flags & FLAG_BRANCH == 0 {
        Kind::Next
    } else if flags & FLAG_INDIRECT_BRANCH != 0 {
        Kind::Indirect
    } else if flags & FLAG_COND_BRANCH != 0 {
        Kind::CondBranch
    } else if name == "S_CALL_B64" {
        // The spec has no call flag: `s_call_b64` is a branch that writes the return address.
        Kind::Call
    } else {
        Kind::Branch
    };
    (kind, Role::Plain)
}

/// Per (instruction, encoding) index: [`entry`] (computed once per ISA).
fn entries(isa: Isa) -> &'static [(Kind, Role)] {
    static K10: OnceLock<Vec<(Kind, Role)>> = OnceLock::new();
    static K12: OnceLock<Vec<(Kind, Role)>> = OnceLock::new();
    macro_rules! build {
        ($p:expr) => {{
            let t = $p.tables();
            t.inst_encodings
                .iter()
                .map(|ie| {
                    let i = &t.instructions[ie.inst as usize];
                    entry(i.name, i.flags)
                })
                .collect()
        }};
    }
    if isa == Isa::Gfx1201 {
        K12.get_or_init(|| build!(GFX12))
    } else {
        K10.get_or_init(|| build!(GFX10))
    }
}

#[inline(always)]
fn entry_of(isa: Isa, d: &Decoded) -> (Kind, Role) {
    entries(isa).get(d.ienc as usize).copied().unwrap_or((Kind::Next, Role::Plain))
}

fn simm16_target(inf: &Info, d: &Decoded, addr: u64) -> u64 {
    let s = inf.field(d, "SIMM16").unwrap_or(0);
    (addr as i64).wrapping_add(4).wrapping_add(super::sext(s, 16) * 4) as u64
}

/// [`Amd`]'s flow of an instruction that is not a plain [`Kind::Next`] (out of line: most
/// instructions take the inline path).
#[inline(never)]
fn flow_of(code: &Code<'_>, addr: u64, d: &Decoded, kind: Kind, role: Role) -> Flow {
    let inf = info(code.isa, d);
    match role {
        Role::CodeEnd => Flow::Invalid(Box::new(CfgError::IntoPadding { isa: code.isa, inst: inf.name, addr })),
        // The calling convention (LLVM AMDGPUUsage): the return address arrives in s[30:31].
        Role::SetPc if inf.field(d, "SSRC0") == Some(30) => Flow::Return { cond: false },
        Role::SetPc => Flow::Deferred,
        Role::SwapPc => Flow::Call(CallTarget::Pending),
        Role::Plain => {
            super::plain_flow(code.isa, inf.name, addr, kind, false, super::target_of::<Amd>(code.isa, d, addr))
        }
    }
}

/// The AMD [`Machine`] of one ISA.
#[derive(Debug)]
pub struct AmdMachine(Isa);

/// gfx1013's [`Machine`].
pub static GFX1013: AmdMachine = AmdMachine(Isa::Gfx1013);
/// gfx1201's [`Machine`].
pub static GFX1201: AmdMachine = AmdMachine(Isa::Gfx1201);

impl Machine for AmdMachine {
    fn isa(&self) -> Isa {
        self.0
    }
    fn vendor(&self) -> Vendor {
        Vendor::Amd
    }
    fn first(&self, start: u64) -> u64 {
        start
    }
    fn decode_at(&self, code: &Code<'_>, addr: u64) -> Result<Decoded, CfgError> {
        <Amd as Family>::decode(code, addr)
    }
    fn next(&self, addr: u64, d: &Decoded) -> u64 {
        addr + d.len as u64
    }
    fn skip(&self, addr: u64) -> u64 {
        addr + 4
    }
    fn fixed_lanes(&self) -> Option<u32> {
        None
    }
    /// gfx10 encodes `null` as SGPR 125 (RDNA1 guide, "SDST / SSRC" values), gfx12 as 124.
    fn null_sgpr(&self) -> Option<u32> {
        Some(if self.0 == Isa::Gfx1201 { 124 } else { 125 })
    }
    fn classify(&self, d: &Decoded) -> Kind {
        entry_of(self.0, d).0
    }
    fn recover_with(&self, section: &Section, f: &Function, plugin_kinds: bool, sc: &mut super::CfgScratch) -> Result<Cfg, CfgError> {
        super::walk::<Amd>(&Code::new(self.0, section, f), plugin_kinds, sc)
    }
}

impl Family for Amd {
    const UNIT: u64 = 4;

    fn decode(code: &Code<'_>, addr: u64) -> Result<Decoded, CfgError> {
        let b = code.bytes_at(addr);
        Ok(if code.isa == Isa::Gfx1201 { GFX12.decode_inst(b, addr) } else { GFX10.decode_inst(b, addr) }?)
    }

    fn decode_run(code: &Code<'_>, out: &mut Vec<Decoded>) -> bool {
        let b = code.bytes_at(code.start);
        if code.isa == Isa::Gfx1201 {
            GFX12.decode_block_inst(b, code.start, out);
        } else {
            GFX10.decode_block_inst(b, code.start, out);
        }
        true
    }

    fn next(addr: u64, d: &Decoded) -> u64 {
        addr + d.len as u64
    }

    fn name(isa: Isa, d: &Decoded) -> &'static str {
        info(isa, d).name
    }

    #[inline(always)]
    fn table_kind(isa: Isa, d: &Decoded) -> Kind {
        entry_of(isa, d).0
    }

    #[inline(always)]
    fn special(isa: Isa, d: &Decoded) -> bool {
        entry_of(isa, d).1 != Role::Plain
    }

    fn own_target(isa: Isa, d: &Decoded, addr: u64) -> Option<u64> {
        let inf = info(isa, d);
        inf.field(d, "SIMM16").map(|_| simm16_target(&inf, d, addr))
    }

    fn flow(code: &Code<'_>, addr: u64, d: &Decoded, kind: Kind) -> Flow {
        flow_of(code, addr, d, kind, entry_of(code.isa, d).1)
    }

    fn resolve(code: &Code<'_>, walk: &Walk, addr: u64) -> Flow {
        let Some((_, d, _)) = walk.at(addr) else { return Flow::Deferred };
        let inf = info(code.isa, d);
        let n = inf.field(d, "SSRC0").unwrap_or(0) as u32;
        let scan = scan_pair(code, walk, addr, n);
        if let Scan::Other(_) = scan {
            match table_jump(code, walk, addr, n) {
                Some(Ok(ts)) => return Flow::Table(ts),
                Some(Err(why)) => return Flow::Invalid(Box::new(CfgError::Unresolved { isa: code.isa, inst: inf.name, addr, why })),
                None => {}
            }
        }
        match scan {
            Scan::Target(t) => Flow::Jump(t),
            Scan::External(s) => Flow::Invalid(Box::new(CfgError::Unresolved {
                isa: code.isa,
                inst: inf.name,
                addr,
                why: format!("jumps to undefined symbol {s}"),
            })),
            Scan::Entry => Flow::Invalid(Box::new(CfgError::Unresolved {
                isa: code.isa,
                inst: inf.name,
                addr,
                why: format!("s[{n}:{}] holds an address passed in on entry", n + 1),
            })),
            Scan::Other(why) => Flow::Invalid(Box::new(CfgError::Unresolved { isa: code.isa, inst: inf.name, addr, why })),
        }
    }

    fn resolve_call(code: &Code<'_>, walk: &Walk, addr: u64) -> CallTarget {
        let Some((_, d, _)) = walk.at(addr) else { return CallTarget::Pending };
        let inf = info(code.isa, d);
        let n = inf.field(d, "SSRC0").unwrap_or(0) as u32;
        match scan_pair(code, walk, addr, n) {
            Scan::Target(t) => CallTarget::Direct(t),
            Scan::External(s) => CallTarget::External(s),
            Scan::Entry => CallTarget::FetchShader(format!("s[{n}:{}]", n + 1)),
            Scan::Other(why) => CallTarget::Indirect(why),
        }
    }
}

/// What a backward scan found about the address in `s[n:n+1]`.
enum Scan {
    /// `s_getpc_b64` plus constant or relocated adds: the address.
    Target(u64),
    /// A relocation against a symbol this section does not define.
    External(String),
    /// Nothing in the entry block writes the pair: it is an input (user SGPRs).
    Entry,
    /// Anything else.
    Other(String),
}

/// The 32-bit value a scalar source adds: an inline constant, a literal or a relocated literal.
fn scalar_const(code: &Code<'_>, d: &Decoded, at: u64, v: u64, hi_half: bool) -> Result<u32, Scan> {
    match v {
        128..=192 => Ok((v - 128) as u32),
        193..=208 => Ok((-((v - 192) as i64)) as u32),
        255 => {
            let lit_at = at + 4;
            if let Some(r) = code.section.relocs.get(&lit_at) {
                return match r.symbol_value {
                    Some(s) => {
                        let x = (s as i64).wrapping_add(r.addend).wrapping_sub(lit_at as i64) as u64;
                        Ok(if hi_half { (x >> 32) as u32 } else { x as u32 })
                    }
                    None => Err(Scan::External(r.symbol.clone())),
                };
            }
            Ok(d.words[1])
        }
        _ => Err(Scan::Other(format!("added operand {v} is not a constant"))),
    }
}

/// The pairs s[n:n+1] a call keeps: n from the first up to (not including) the second, so both
/// halves lie in s32-s105.
const CALLEE_SAVED_SGPRS: (u32, u32) = (32, 105);

/// Most instructions [`scan_pair`] walks back from a jump.
const SCAN_LIMIT: usize = 1024;

fn scan_pair(code: &Code<'_>, walk: &Walk, addr: u64, n: u32) -> Scan {
    let (mut lo_add, mut hi_add): (Option<u32>, Option<u32>) = (None, None);
    let mut cur = addr;
    for _ in 0..SCAN_LIMIT {
        if cur == code.start {
            return if lo_add.is_none() && hi_add.is_none() {
                Scan::Entry
            } else {
                Scan::Other("pair partly computed from inputs".into())
            };
        }
        if cur != addr && walk.is_target(cur) {
            return Scan::Other(format!("another path joins at {cur:#x} before the jump"));
        }
        let Some((a, d, flow)) = walk.before(cur) else {
            return Scan::Other(format!("no straight-line code before {cur:#x}"));
        };
        let (a, d) = (*a, *d);
        // A call returns with s32-s105 as they were: the AMDGPU call convention keeps them
        // callee-saved (LLVM AMDGPUUsage, "Call Convention" of non-kernel functions), so a pair
        // there computed before calls still holds the address (cl_lanes lds_atomics calls one
        // builtin through s[54:55] again after 19 other calls).
        let kept = matches!(flow, Flow::Call(_)) && (CALLEE_SAVED_SGPRS.0..CALLEE_SAVED_SGPRS.1).contains(&n);
        if !matches!(flow, Flow::Next) && !kept {
            return Scan::Other(format!("a branch at {a:#x} precedes the jump"));
        }
        let inf = info(code.isa, &d);
        if let Some((lo, hi)) = inf.sgpr_writes(&d) {
            let writes = |r: u32| lo <= r && r < hi;
            // Field lookups by name only for the three instructions that read them.
            let name = pc_arith_name(inf.name);
            let (sdst, ssrc0, ssrc1) = if matches!(name, "S_GETPC_B64" | "S_ADD_U32" | "S_ADDC_U32" | "S_SEXT_I32_I16") {
                (
                    inf.field(&d, "SDST").unwrap_or(u64::MAX) as u32,
                    inf.field(&d, "SSRC0").unwrap_or(u64::MAX) as u32,
                    inf.field(&d, "SSRC1").unwrap_or(0),
                )
            } else {
                (u32::MAX, u32::MAX, 0)
            };
            match name {
                "S_GETPC_B64" if sdst == n => {
                    let base = a + 4;
                    let add = ((hi_add.unwrap_or(0) as u64) << 32) | lo_add.unwrap_or(0) as u64;
                    return Scan::Target(base.wrapping_add(add));
                }
                "S_ADD_U32" if sdst == n && ssrc0 == n && lo_add.is_none() => {
                    match scalar_const(code, &d, a, ssrc1, false) {
                        Ok(v) => lo_add = Some(v),
                        Err(e) => return e,
                    }
                }
                "S_ADDC_U32" if sdst == n + 1 && ssrc0 == n + 1 && hi_add.is_none() => {
                    match scalar_const(code, &d, a, ssrc1, true) {
                        Ok(v) => hi_add = Some(v),
                        Err(e) => return e,
                    }
                }
                // gfx12 sign-extends the high half of s_getpc_b64's result before the adds
                // (`s_sext_i32_i16 s(n+1), s(n+1)`): the identity on every code address below
                // 2^47, which is all a code object's addresses are.
                "S_SEXT_I32_I16" if sdst == n + 1 && ssrc0 == n + 1 && lo_add.is_none() == hi_add.is_none() => {}
                name if writes(n) || writes(n + 1) => {
                    return Scan::Other(format!("s[{n}:{}] written by {name} at {a:#x}", n + 1));
                }
                _ => {}
            }
        }
        cur = a;
    }
    Scan::Other(format!("no s_getpc_b64 within {SCAN_LIMIT} instructions"))
}

/// The gfx1013 name of the scalar adds that build a PC-relative address (gfx1201 renamed them
/// `s_add_co_u32` / `s_add_co_ci_u32`); other names unchanged.
fn pc_arith_name(name: &'static str) -> &'static str {
    match name {
        "S_ADD_CO_U32" => "S_ADD_U32",
        "S_ADD_CO_CI_U32" => "S_ADDC_U32",
        other => other,
    }
}

/// A jump through a table of offsets (the pattern of `fixtures/amd/cfg/setpc_table.s`):
///
/// ```text
///   s_load_dword sK, s[b:b+1], <index>   ; s[b:b+1] = s_getpc_b64 + constant: the table T
///   ...
///   s_getpc_b64 s[n:n+1]                 ; base B = its address + 4
///   s_add_u32   sn, sn, sK
///   s_addc_u32  s(n+1), s(n+1), 0
///   s_setpc_b64 s[n:n+1]                 ; jumps to B + table[index]
/// ```
///
/// The table runs from T to the end of the function (the entry count is not in the code); every
/// entry must land on a dword of the function before the table, or the jump is a typed error.
/// None when the code before the jump is not this pattern.
fn table_jump(code: &Code<'_>, walk: &Walk, addr: u64, n: u32) -> Option<Result<Vec<u64>, String>> {
    let step = |at: u64| -> Option<(u64, Decoded, Info)> {
        let (a, d, flow) = walk.before(at)?;
        if !matches!(flow, Flow::Next) || walk.is_target(at) && at != addr {
            return None;
        }
        Some((*a, *d, info(code.isa, d)))
    };
    let f = |inf: &Info, d: &Decoded, name: &str| inf.field(d, name).map(|v| v as u32);
    let (a1, d1, i1) = step(addr)?;
    if pc_arith_name(i1.name) != "S_ADDC_U32" || f(&i1, &d1, "SDST") != Some(n + 1) || f(&i1, &d1, "SSRC0") != Some(n + 1) || f(&i1, &d1, "SSRC1") != Some(128) {
        return None;
    }
    let (a2, d2, i2) = step(a1)?;
    let k = f(&i2, &d2, "SSRC1")?;
    if pc_arith_name(i2.name) != "S_ADD_U32" || f(&i2, &d2, "SDST") != Some(n) || f(&i2, &d2, "SSRC0") != Some(n) || k >= 106 {
        return None;
    }
    let (a3, d3, i3) = step(a2)?;
    if i3.name != "S_GETPC_B64" || f(&i3, &d3, "SDST") != Some(n) {
        return None;
    }
    let base = a3 + 4;
    // Back to the load of sK; nothing else may write sK or branch in between.
    let mut cur = a3;
    let (la, ld, li) = loop {
        let (a, d, inf) = match step(cur) {
            Some(x) => x,
            None => return Some(Err(format!("no s_load_dword of s{k} in the straight-line code before {addr:#x}"))),
        };
        if let Some((lo, hi)) = inf.sgpr_writes(&d) {
            if lo <= k && k < hi {
                break (a, d, inf);
            }
        }
        cur = a;
    };
    if li.name != "S_LOAD_DWORD" || f(&li, &ld, "SDATA") != Some(k) {
        return Some(Err(format!("s{k} comes from {} at {la:#x}, not s_load_dword", li.name)));
    }
    let b = f(&li, &ld, "SBASE")? * 2;
    let table = match scan_pair(code, walk, la, b) {
        Scan::Target(t) => t,
        _ => return Some(Err(format!("the table address in s[{b}:{}] is not s_getpc_b64 plus a constant", b + 1))),
    };
    if table < code.start || table >= code.end || !(table - code.start).is_multiple_of(4) {
        return Some(Err(format!("table at {table:#x} is not a dword of the function")));
    }
    let mut out = Vec::new();
    let mut at = table;
    while at + 4 <= code.end {
        let bytes = code.bytes_at(at);
        let e = i32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        let t = (base as i64).wrapping_add(e as i64) as u64;
        if t < code.start || t >= table || !(t - code.start).is_multiple_of(4) {
            return Some(Err(format!("table entry at {at:#x} ({e:#x}) targets {t:#x}, not code of the function before the table")));
        }
        out.push(t);
        at += 4;
    }
    if out.is_empty() {
        return Some(Err("empty jump table".into()));
    }
    Some(Ok(out))
}
