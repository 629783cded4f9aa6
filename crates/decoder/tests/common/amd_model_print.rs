//! A small printer over the AMD operand model alone: LLVM 22's syntax from an [`Inst`]
//! (opcode, operands, modifiers), for the test that re-prints every corpus and probe
//! instruction from the model. It reads the spec tables only for the mnemonic, the encodings an
//! instruction has and its operands' data formats (which constant texts LLVM picks); it never
//! calls the crate's printers.
#![allow(dead_code)]

use isabridge_decoder::amd::operands::{bit_list, inline_float, omod, put_hex, Kind};
use isabridge_decoder::amd::symbols;
use isabridge_decoder::operand::{ConstType, Inst, Modifier, Operand, OperandKind, Part, RegClass, SpecialReg};
use isabridge_decoder::spec::Tables;
use isabridge_decoder::Isa;

/// What the printer reads from the spec for one instruction.
struct Spec {
    mnemonic: &'static str,
    encodings: Vec<&'static str>,
    /// (field name, print kind, operand type) of the spec operands.
    ops: Vec<(&'static str, Kind, &'static str)>,
}

fn spec_of<Op>(t: &'static Tables<Op>, inst: &Inst) -> Spec {
    let i = &t.instructions[inst.opcode as usize];
    let encodings: Vec<&'static str> =
        i.encodings.iter().map(|&k| t.encodings[t.inst_encodings[k as usize].enc as usize].name).collect();
    let ie = i.encodings.iter().map(|&k| &t.inst_encodings[k as usize]).find(|ie| t.encodings[ie.enc as usize].name == inst.encoding);
    let ops = ie
        .map(|ie| {
            ie.operands
                .iter()
                .map(|o| {
                    (
                        o.field.map_or("", |f| f.name),
                        Kind::of(t.data_formats[o.fmt as usize], o.size),
                        t.operand_types[o.ty as usize].name,
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    Spec { mnemonic: i.mnemonic, encodings, ops }
}

/// Everything the family printers share.
struct P<'a> {
    inst: &'a Inst,
    s: Spec,
    g12: bool,
    out: String,
    k: usize,
}

impl P<'_> {
    fn has(&self, e: &str) -> bool {
        self.s.encodings.contains(&e)
    }
    fn named(&self, n: &str) -> u64 {
        self.inst.named(n).unwrap_or(0)
    }
    fn m(&self) -> &'static str {
        self.s.mnemonic
    }
    fn sep(&mut self) {
        if self.k != 0 {
            self.out.push(',');
        }
        self.out.push(' ');
        self.k += 1;
    }
    /// The print kind of the operand in field `f`.
    fn kind(&self, f: &str) -> Kind {
        let (k, size) = self.s.ops.iter().find(|o| o.0 == f).map_or((Kind::I32, 32), |o| (o.1, 0));
        let _ = size;
        match (k, self.inst.operands.iter().find(|o| o.field == f).map(|o| o.size)) {
            (Kind::I32, Some(64)) => Kind::I64,
            (k, _) => k,
        }
    }
    fn ty(&self, f: &str) -> &'static str {
        self.s.ops.iter().find(|o| o.0 == f).map_or("", |o| o.2)
    }
    fn cache(&mut self, kind: MemKind) {
        let (th, scope) = (self.named("TH") as u32, self.named("SCOPE") as u32);
        cache_policy(&mut self.out, kind, th, scope)
    }
    fn has_mod(&self, m: Modifier) -> bool {
        self.inst.modifiers.contains(&m)
    }
    /// Explicit operands and the printed implicit ones (the spec's), in order.
    fn printed(&self) -> Vec<Operand> {
        let n = self.inst.operands.iter().rposition(|o| !o.implicit).map_or(0, |i| i + 1);
        let mut v: Vec<Operand> = self.inst.operands[..n].to_vec();
        // Trailing spec-implicit operands (VCC of v_addc e32) come after the last explicit one.
        let spec_implicit_tail = self.s.ops.iter().rev().take_while(|o| o.0.is_empty() && o.2 != "OPR_SIMM32").count();
        v.extend(self.inst.operands[n..].iter().take(spec_implicit_tail).copied());
        v
    }
}

fn reg_text(out: &mut String, prefix: &str, first: u32, n: u32) {
    out.push_str(prefix);
    if n <= 1 {
        out.push_str(&first.to_string());
    } else {
        out.push_str(&format!("[{}:{}]", first, first + n - 1));
    }
}

/// Registers and named registers as LLVM prints them (SGPR and trap-temporary tuples at their
/// aligned start).
fn reg(out: &mut String, k: &OperandKind, size: u16) -> bool {
    match *k {
        OperandKind::Reg(r) => {
            let n = r.count as u32;
            let a = match n {
                1 => 1,
                2 => 2,
                _ => 4,
            };
            match r.class {
                RegClass::Vgpr => reg_text(out, "v", r.first as u32, n),
                RegClass::Sgpr if r.first as u32 <= 105 => reg_text(out, "s", r.first as u32 / a * a, n),
                RegClass::Ttmp => reg_text(out, "ttmp", r.first as u32 / a * a, n),
                _ => out.push_str(&r.first.to_string()),
            }
        }
        OperandKind::Special { reg, part } => {
            let wide = size > 32;
            out.push_str(match (reg, part) {
                (SpecialReg::Vcc, Part::Hi) => "vcc_hi",
                (SpecialReg::Vcc, _) if wide => "vcc",
                (SpecialReg::Vcc, _) => "vcc_lo",
                (SpecialReg::Exec, Part::Hi) => "exec_hi",
                (SpecialReg::Exec, _) if wide => "exec",
                (SpecialReg::Exec, _) => "exec_lo",
                (SpecialReg::M0, _) => "m0",
                (SpecialReg::Null, _) => "null",
                (SpecialReg::FlatScratch, Part::Hi) => "src_flat_scratch_base_hi",
                (SpecialReg::FlatScratch, _) => "src_flat_scratch_base_lo",
                (SpecialReg::SharedBase, _) => "src_shared_base",
                (SpecialReg::SharedLimit, _) => "src_shared_limit",
                (SpecialReg::PrivateBase, _) => "src_private_base",
                (SpecialReg::PrivateLimit, _) => "src_private_limit",
                (SpecialReg::PopsExitingWaveId, _) => "src_pops_exiting_wave_id",
                (SpecialReg::VccZ, _) => "src_vccz",
                (SpecialReg::ExecZ, _) => "src_execz",
                (SpecialReg::SrcScc, _) => "src_scc",
                (SpecialReg::LdsDirect, _) => "src_lds_direct",
                _ => "?",
            });
        }
        _ => return false,
    }
    true
}

const F16_INLINE: [u32; 9] = [0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400, 0x3118];
const BF16_INLINE: [u32; 9] = [0x3f00, 0xbf00, 0x3f80, 0xbf80, 0x4000, 0xc000, 0x4080, 0xc080, 0x3e22];
const F32_INLINE: [u32; 9] =
    [0x3f00_0000, 0xbf00_0000, 0x3f80_0000, 0xbf80_0000, 0x4000_0000, 0xc000_0000, 0x4080_0000, 0xc080_0000, 0x3e22_f983];

fn inline32(x: u32) -> bool {
    (-16..=64).contains(&(x as i32)) || F32_INLINE.contains(&x)
}

fn inline16(lo: u32, pats: &[u32; 9]) -> bool {
    (-16..=64).contains(&(lo as u16 as i16)) || pats.contains(&lo)
}

/// A literal dword (gfx10 and gfx12 rules).
fn literal(out: &mut String, lit: u32, kind: Kind, g12: bool) {
    if !g12 {
        return isabridge_decoder::amd::operands::literal(out, lit, kind);
    }
    let lo = lit & 0xffff;
    const F64: [(u32, &str); 8] = [
        (0x3fe0_0000, "0.5"),
        (0xbfe0_0000, "-0.5"),
        (0x3ff0_0000, "1.0"),
        (0xbff0_0000, "-1.0"),
        (0x4000_0000, "2.0"),
        (0xc000_0000, "-2.0"),
        (0x4010_0000, "4.0"),
        (0xc010_0000, "-4.0"),
    ];
    let (is_lit, shown) = match kind {
        Kind::F64 => {
            if let Some((_, t)) = F64.iter().find(|e| e.0 == lit) {
                out.push_str(t);
                return;
            }
            (false, lit)
        }
        Kind::I64 => (lit <= 64, lit),
        Kind::F16 => (inline16(lo, &F16_INLINE), lo),
        Kind::I16 => (inline32(lit), lo),
        Kind::PkF16 => ((-16..=64).contains(&(lit as i32)) || (lit >> 16 == 0 && F16_INLINE.contains(&lo)), lit),
        Kind::BF16 => ((-16..=64).contains(&(lit as i32)) || (lit >> 16 == 0 && BF16_INLINE.contains(&lo)), lit),
        _ => (inline32(lit), lit),
    };
    if is_lit {
        out.push_str("lit(");
        put_hex(out, lit);
        out.push(')');
    } else {
        put_hex(out, shown);
    }
}

/// A source operand: register, constant or literal.
fn src(p: &P<'_>, out: &mut String, o: &Operand, kind: Kind) {
    if reg(out, &o.kind, o.size) {
        return;
    }
    match o.kind {
        OperandKind::InlineConst { code, .. } => {
            let code = code as u32;
            match code {
                128..=192 => out.push_str(&(code - 128).to_string()),
                193..=208 => out.push_str(&format!("-{}", code - 192)),
                _ if kind == Kind::I16 => put_hex(out, F16_INLINE[(code - 240) as usize % 9]),
                _ => out.push_str(inline_float(code, kind).unwrap_or("?")),
            }
        }
        OperandKind::Literal(l) => literal(out, l, kind, p.g12),
        OperandKind::Field { ty: "OPR_SRC", value: 255 } => literal(out, 0, kind, p.g12),
        OperandKind::Field { value, .. } => out.push_str(&value.to_string()),
        OperandKind::Imm(v) => out.push_str(&v.to_string()),
        _ => out.push('?'),
    }
}

fn is_const(o: &Operand) -> bool {
    matches!(o.kind, OperandKind::InlineConst { .. } | OperandKind::Literal(_) | OperandKind::Field { ty: "OPR_SRC", value: 255 })
}

/// A source with float modifiers: `-x`, `|x|`, `neg(c)` (gfx10 and gfx12 VOP3 forms).
fn src_mods(p: &P<'_>, out: &mut String, o: &Operand, kind: Kind, neg: bool, abs: bool) {
    let neg_fn = neg && !abs && is_const(o);
    if neg_fn {
        out.push_str("neg(");
    } else if neg {
        out.push('-');
    }
    if abs {
        out.push('|');
    }
    src(p, out, o, kind);
    if abs {
        out.push('|');
    }
    if neg_fn {
        out.push(')');
    }
}

fn imm(out: &mut String, v: u64) {
    if v <= 64 {
        out.push_str(&v.to_string());
    } else {
        put_hex(out, v);
    }
}

fn signed_hex(out: &mut String, v: i64) {
    if v < 0 {
        out.push('-');
        put_hex(out, -v);
    } else {
        put_hex(out, v);
    }
}

fn sext(v: u64, bits: u32) -> i64 {
    let s = 64 - bits;
    ((v << s) as i64) >> s
}

/// The reference text of `inst`.
pub fn print(isa: Isa, inst: &Inst) -> String {
    let s = match isa {
        Isa::Gfx1013 => spec_of(isabridge_decoder::amd::GFX10.tables(), inst),
        _ => spec_of(isabridge_decoder::amd::GFX12.tables(), inst),
    };
    let mut p = P { inst, s, g12: isa == Isa::Gfx1201, out: String::new(), k: 0 };
    p.out.push_str(p.s.mnemonic);
    match inst.encoding {
        "ENC_SOP1" | "ENC_SOP2" | "ENC_SOPK" | "ENC_SOPC" | "ENC_SOPP" => sop(&mut p),
        "ENC_SMEM" => smem(&mut p),
        "ENC_DS" | "ENC_VDS" => ds(&mut p),
        "ENC_MUBUF" | "ENC_MTBUF" | "ENC_VBUFFER" => buffer(&mut p),
        "ENC_MIMG" | "ENC_VIMAGE" | "ENC_VSAMPLE" => image(&mut p),
        "ENC_FLAT" | "ENC_FLAT_GLBL" | "ENC_FLAT_SCRATCH" | "ENC_VFLAT" | "ENC_VGLOBAL" | "ENC_VSCRATCH" => flat(&mut p),
        "ENC_EXP" | "ENC_VEXPORT" => export(&mut p),
        "ENC_VINTRP" | "ENC_VDSDIR" => interp(&mut p),
        "ENC_VINTERP" => vinterp(&mut p),
        "ENC_VOPD" => vopd(&mut p),
        _ => vop(&mut p),
    }
    p.out
}

fn sop(p: &mut P<'_>) {
    let m = p.m();
    if m == "s_endpgm" {
        if let Some(OperandKind::Imm(v)) = p.inst.explicit().next().map(|o| o.kind) {
            if v != 0 || p.g12 {
                p.out.push(' ');
                p.out.push_str(&v.to_string());
            }
        } else if p.named("SIMM16") != 0 {
            let v = p.named("SIMM16");
            p.out.push(' ');
            p.out.push_str(&v.to_string());
        }
        return;
    }
    if m == "s_version" {
        if let Some(OperandKind::Imm(v)) = p.inst.explicit().next().map(|o| o.kind) {
            p.out.push(' ');
            symbols::version(&mut p.out, v as u32);
        }
        return;
    }
    for o in p.printed() {
        p.sep();
        let mut out = std::mem::take(&mut p.out);
        match o.kind {
            OperandKind::Label(t) => {
                let v = ((t as i64).wrapping_sub(p.inst.addr as i64).wrapping_sub(4) / 4) as u16;
                out.push_str(&v.to_string());
            }
            OperandKind::Literal(l) if o.field == "LITERAL" => {
                if p.g12 {
                    put_hex(&mut out, l)
                } else {
                    imm(&mut out, l as u64)
                }
            }
            OperandKind::Field { ty: "OPR_WAITCNT", value } => {
                if m == "s_waitcnt" {
                    if p.g12 {
                        waitcnt12(&mut out, value as u32)
                    } else {
                        symbols::waitcnt_gfx10(&mut out, value as u32)
                    }
                } else if m == "s_waitcnt_depctr" || p.g12 {
                    symbols::depctr(&mut out, value as u32, if p.g12 { symbols::DEPCTR_GFX12 } else { symbols::DEPCTR_GFX10 })
                } else {
                    put_hex(&mut out, value)
                }
            }
            OperandKind::Field { ty: "OPR_SENDMSG", value } => {
                if p.g12 {
                    sendmsg12(&mut out, value as u32)
                } else {
                    symbols::sendmsg_gfx10(&mut out, value as u32)
                }
            }
            OperandKind::Field { ty: "OPR_HWREG", value } => {
                symbols::hwreg(&mut out, value as u32, if p.g12 { symbols::HWREG_GFX12 } else { symbols::HWREG_GFX10 })
            }
            OperandKind::Field { ty: "OPR_DELAY", value } => delay_alu(&mut out, value as u32),
            OperandKind::Imm(v) => {
                let v = v as u64;
                if p.g12 {
                    let hex = m == "s_clause"
                        || m == "s_round_mode"
                        || m == "s_ttracedata_imm"
                        || m.starts_with("s_wait_")
                        || m.starts_with("s_addk")
                        || m.starts_with("s_movk")
                        || m.starts_with("s_cmovk")
                        || m.starts_with("s_mulk")
                        || m == "s_version";
                    if hex || v > 64 {
                        put_hex(&mut out, v)
                    } else {
                        out.push_str(&v.to_string())
                    }
                } else {
                    let sopp = p.inst.encoding == "ENC_SOPP";
                    let hex = matches!(m, "s_clause" | "s_inst_prefetch" | "s_round_mode" | "s_ttracedata_imm");
                    if m == "s_waitcnt_depctr" {
                        symbols::depctr(&mut out, v as u32, symbols::DEPCTR_GFX10)
                    } else if sopp && !hex {
                        imm(&mut out, v)
                    } else {
                        put_hex(&mut out, v)
                    }
                }
            }
            _ => {
                let kind = match p.kind(o.field) {
                    Kind::I16 | Kind::PkI16 | Kind::PkF16 | Kind::BF16 if !p.g12 => Kind::I32,
                    Kind::F16 if !p.g12 => Kind::I32,
                    Kind::I16 if p.g12 => Kind::I32,
                    Kind::F16 if p.g12 && p.inst.encoding == "ENC_SOP1" => Kind::I32,
                    // SOPC's f16 comparisons print an inline float as its f16 bits.
                    Kind::F16 if p.g12 && p.inst.encoding == "ENC_SOPC" && matches!(o.kind, OperandKind::InlineConst { code: 240..=248, .. }) => Kind::I16,
                    k => k,
                };
                src(p, &mut out, &o, kind)
            }
        }
        p.out = out;
    }
    if p.g12 && m == "s_endpgm" {
        let v = p.named("SIMM16");
        if v != 0 {
            p.out.push(' ');
            p.out.push_str(&v.to_string());
        }
    }
}

fn waitcnt12(out: &mut String, v: u32) {
    let exp = v & 7;
    let lgkm = (v >> 4) & 0x3f;
    let vm = (v >> 10) & 0x3f;
    let all = vm == 63 && exp == 7 && lgkm == 63;
    let mut parts = Vec::new();
    if vm != 63 || all {
        parts.push(format!("vmcnt({vm})"));
    }
    if exp != 7 || all {
        parts.push(format!("expcnt({exp})"));
    }
    if lgkm != 63 || all {
        parts.push(format!("lgkmcnt({lgkm})"));
    }
    out.push_str(&parts.join(" "));
}

fn delay_alu(out: &mut String, v: u32) {
    const ID: [&str; 12] = [
        "NO_DEP",
        "VALU_DEP_1",
        "VALU_DEP_2",
        "VALU_DEP_3",
        "VALU_DEP_4",
        "TRANS32_DEP_1",
        "TRANS32_DEP_2",
        "TRANS32_DEP_3",
        "FMA_ACCUM_CYCLE_1",
        "SALU_CYCLE_1",
        "SALU_CYCLE_2",
        "SALU_CYCLE_3",
    ];
    const SKIP: [&str; 6] = ["SAME", "NEXT", "SKIP_1", "SKIP_2", "SKIP_3", "SKIP_4"];
    let (id0, skip, id1) = (v & 0xf, (v >> 4) & 7, (v >> 7) & 0xf);
    let id = |x: u32| ID.get(x as usize).copied().unwrap_or("/* invalid instid value */");
    let mut parts = Vec::new();
    if id0 != 0 {
        parts.push(format!("instid0({})", id(id0)));
    }
    if skip != 0 {
        parts.push(format!("instskip({})", SKIP.get(skip as usize).copied().unwrap_or("/* invalid instskip value */")));
    }
    if id1 != 0 {
        parts.push(format!("instid1({})", id(id1)));
    }
    if parts.is_empty() {
        out.push('0');
    } else {
        out.push_str(&parts.join(" | "));
    }
}

fn sendmsg12(out: &mut String, v: u32) {
    const MSG: &[(u32, &str)] = &[(1, "MSG_INTERRUPT"), (2, "MSG_HS_TESSFACTOR"), (3, "MSG_DEALLOC_VGPRS"), (9, "MSG_GS_ALLOC_REQ")];
    const RTN: &[&str] = &[
        "MSG_RTN_GET_DOORBELL",
        "MSG_RTN_GET_DDID",
        "MSG_RTN_GET_TMA",
        "MSG_RTN_GET_REALTIME",
        "MSG_RTN_SAVE_WAVE",
        "MSG_RTN_GET_TBA",
        "MSG_RTN_GET_TBA_TO_PC",
        "MSG_RTN_GET_SE_AID_ID",
    ];
    let id = v & 0xff;
    let name = match id.checked_sub(128) {
        Some(i) => RTN.get(i as usize).copied(),
        None => MSG.iter().find(|e| e.0 == id).map(|e| e.1),
    };
    match name {
        Some(n) => out.push_str(&format!("sendmsg({n})")),
        None if v >> 8 == 0 => out.push_str(&format!("sendmsg({id}, 0, 0)")),
        None => out.push_str(&v.to_string()),
    }
}

fn smem(p: &mut P<'_>) {
    let m = p.m();
    let off_field = if p.g12 { "IOFFSET" } else { "OFFSET" };
    let off = sext(p.named(off_field), if p.g12 { 24 } else { 21 });
    let prefetch = m.contains("prefetch");
    for o in p.printed() {
        p.sep();
        let mut out = std::mem::take(&mut p.out);
        match (o.field, o.kind) {
            ("SDATA", OperandKind::Imm(v)) => {
                if p.g12 {
                    out.push_str(&v.to_string())
                } else {
                    imm(&mut out, v as u64)
                }
            }
            ("IOFFSET", OperandKind::Imm(v)) => signed_hex(&mut out, v),
            ("SOFFSET", OperandKind::Special { reg: SpecialReg::Null, .. }) if !prefetch => {
                if off == 0 && !p.g12 {
                    out.push_str("null")
                } else {
                    signed_hex(&mut out, off)
                }
            }
            ("SOFFSET", k) if !prefetch => {
                reg(&mut out, &k, 32);
                if off != 0 || p.g12 {
                    out.push_str(" offset:");
                    signed_hex(&mut out, off);
                }
            }
            (_, k) => {
                reg(&mut out, &k, o.size);
            }
        }
        p.out = out;
    }
    if p.g12 {
        if prefetch || p.s.ops.is_empty() || m.starts_with("s_atc_probe") {
            return;
        }
        if p.named("SCALE_OFFSET") != 0 {
            p.out.push_str(" scale_offset");
        }
        p.cache(mem_kind(m));
        if p.named("NV") != 0 {
            p.out.push_str(" nv");
        }
        return;
    }
    if !(m.contains("load") || m.contains("store") || m.contains("atomic")) {
        return;
    }
    if p.named("GLC") != 0 {
        p.out.push_str(" glc");
    }
    if p.named("DLC") != 0 {
        p.out.push_str(" dlc");
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum MemKind {
    Load,
    Store,
    Atomic,
}

fn mem_kind(m: &str) -> MemKind {
    if m.contains("atomic") {
        MemKind::Atomic
    } else if m.contains("store") {
        MemKind::Store
    } else {
        MemKind::Load
    }
}

fn cache_policy(out: &mut String, kind: MemKind, th: u32, scope: u32) {
    let th = th & 7;
    let scope = scope & 3;
    if th != 0 {
        out.push_str(" th:");
        let name = match kind {
            MemKind::Load => match th {
                1 => "TH_LOAD_NT",
                2 => "TH_LOAD_HT",
                3 if scope == 3 => "TH_LOAD_BYPASS",
                3 => "TH_LOAD_LU",
                4 => "TH_LOAD_NT_RT",
                5 => "TH_LOAD_RT_NT",
                6 => "TH_LOAD_NT_HT",
                _ => "",
            },
            MemKind::Store => match th {
                1 => "TH_STORE_NT",
                2 => "TH_STORE_HT",
                3 if scope == 3 => "TH_STORE_BYPASS",
                3 => "TH_STORE_WB",
                4 => "TH_STORE_NT_RT",
                5 => "TH_STORE_RT_NT",
                6 => "TH_STORE_NT_HT",
                _ => "TH_STORE_NT_WB",
            },
            MemKind::Atomic => match th {
                1 => "TH_ATOMIC_RETURN",
                2 => "TH_ATOMIC_NT",
                3 => "TH_ATOMIC_NT_RETURN",
                4 | 5 if scope >= 2 => "TH_ATOMIC_CASCADE_RT",
                6 | 7 if scope >= 2 => "TH_ATOMIC_CASCADE_NT",
                _ => "",
            },
        };
        if name.is_empty() {
            if kind == MemKind::Atomic {
                out.push_str("TH_ATOMIC_");
            }
            put_hex(out, th);
        } else {
            out.push_str(name);
        }
    }
    if scope != 0 {
        out.push_str(" scope:");
        out.push_str(["", "SCOPE_SE", "SCOPE_DEV", "SCOPE_SYS"][scope as usize]);
    }
}

fn plain_regs(p: &mut P<'_>) {
    for o in p.printed() {
        p.sep();
        let mut out = std::mem::take(&mut p.out);
        match o.kind {
            OperandKind::Field { ty: "OFF", .. } => out.push_str("off"),
            OperandKind::Special { reg: SpecialReg::Null, .. } if matches!(o.field, "VADDR" | "ADDR") => out.push_str("off"),
            k => {
                if !reg(&mut out, &k, o.size) {
                    src(p, &mut out, &o, Kind::I32);
                }
            }
        }
        p.out = out;
    }
}

fn ds(p: &mut P<'_>) {
    plain_regs(p);
    let m = p.m();
    let (o0, o1) = (p.named("OFFSET0"), p.named("OFFSET1"));
    let two = if p.g12 { m.contains("2addr") || m.contains("xchg2") } else { m.contains("read2") || m.contains("write2") || m.contains("wrxchg2") };
    if two {
        if o0 != 0 {
            p.out.push_str(&format!(" offset0:{o0}"));
        }
        if o1 != 0 {
            p.out.push_str(&format!(" offset1:{o1}"));
        }
    } else {
        let off = o0 | o1 << 8;
        if m == "ds_swizzle_b32" && off != 0 {
            p.out.push_str(" offset:");
            symbols::ds_swizzle(&mut p.out, off as u32);
        } else if off != 0 {
            p.out.push_str(&format!(" offset:{off}"));
        }
    }
    if p.named("GDS") != 0 {
        p.out.push_str(" gds");
    }
}

fn buffer(p: &mut P<'_>) {
    if p.s.ops.is_empty() {
        return;
    }
    plain_regs(p);
    let m = p.m();
    let (idxen, offen) = (p.named("IDXEN") != 0, p.named("OFFEN") != 0);
    let off = p.named(if p.g12 { "IOFFSET" } else { "OFFSET" }) as u32;
    let format = if m.starts_with("tbuffer") {
        let f = p.named("FORMAT") as u32;
        Some((f, if p.g12 { isabridge_decoder::amd::formats::gfx12_buf_fmt(f) } else { isabridge_decoder::amd::formats::gfx10_buf_fmt(f) }))
    } else {
        None
    };
    symbols::buffer_addressing(&mut p.out, format, idxen, offen, off);
    if p.g12 {
        p.cache(mem_kind(m));
        if p.named("NV") != 0 {
            p.out.push_str(" nv");
        }
    } else {
        for f in ["GLC", "SLC", "DLC"] {
            if p.named(f) != 0 {
                p.out.push(' ');
                p.out.push_str(&f.to_lowercase());
            }
        }
        if p.inst.encoding == "ENC_MUBUF" && p.named("LDS") != 0 {
            p.out.push_str(" lds");
        }
    }
    if p.named("TFE") != 0 {
        p.out.push_str(" tfe");
    }
}

fn image(p: &mut P<'_>) {
    let m = p.m();
    let bvh = m.starts_with("image_bvh");
    let nsa = p.named("NSA") != 0;
    if !p.g12 && nsa && p.s.ops.iter().any(|o| o.0 == "SSAMP") {
        p.out.push(' ');
    }
    let ops = p.printed();
    let mut i = 0;
    while i < ops.len() {
        let o = ops[i];
        p.sep();
        let addr = o.field.starts_with("VADDR") || o.field.starts_with("NSA");
        if addr && (p.g12 || nsa) {
            // A list of address registers.
            let mut group = vec![o];
            while i + 1 < ops.len() && (ops[i + 1].field.starts_with("VADDR") || ops[i + 1].field.starts_with("NSA")) {
                i += 1;
                group.push(ops[i]);
            }
            let single = p.g12 && group.len() == 1 && matches!(group[0].kind, OperandKind::Reg(r) if r.count == 1) && !bvh;
            if !single {
                p.out.push('[');
            }
            for (j, g) in group.iter().enumerate() {
                if j > 0 {
                    p.out.push_str(", ");
                }
                reg(&mut p.out, &g.kind, g.size);
            }
            if !single {
                p.out.push(']');
            }
        } else {
            reg(&mut p.out, &o.kind, o.size);
        }
        i += 1;
    }
    let dmask = p.named("DMASK");
    let dim = p.named("DIM") as usize & 7;
    let g12 = p.g12;
    if g12 && bvh {
        p.cache(MemKind::Load);
        if p.named("NV") != 0 {
            p.out.push_str(" nv");
        }
        if p.named("A16") != 0 {
            p.out.push_str(" a16");
        }
        return;
    }
    if !bvh {
        if dmask != 0 {
            p.out.push_str(" dmask:");
            put_hex(&mut p.out, dmask);
        }
        p.out.push_str(" dim:");
        p.out.push_str(symbols::IMAGE_DIMS[dim]);
        if p.named("UNORM") != 0 {
            p.out.push_str(" unorm");
        }
        if g12 {
            p.cache(mem_kind(m));
            if p.named("NV") != 0 {
                p.out.push_str(" nv");
            }
        } else {
            for f in ["GLC", "SLC", "DLC"] {
                if p.named(f) != 0 {
                    p.out.push(' ');
                    p.out.push_str(&f.to_lowercase());
                }
            }
        }
        if p.named("R128") != 0 {
            p.out.push_str(" r128");
        }
    }
    if p.named("A16") != 0 {
        p.out.push_str(" a16");
    }
    if !bvh {
        for f in ["TFE", "LWE", "D16"] {
            if p.named(f) != 0 {
                p.out.push(' ');
                p.out.push_str(&f.to_lowercase());
            }
        }
    }
}

fn flat(p: &mut P<'_>) {
    plain_regs(p);
    let m = p.m();
    if p.g12 {
        let off = sext(p.named("IOFFSET"), 24);
        if off != 0 && !p.s.ops.is_empty() {
            p.out.push_str(&format!(" offset:{off}"));
        }
        if p.named("SCALE_OFFSET") != 0 {
            p.out.push_str(" scale_offset");
        }
        p.cache(mem_kind(m));
        if p.named("NV") != 0 {
            p.out.push_str(" nv");
        }
        return;
    }
    let raw = p.named("OFFSET");
    let off = if p.inst.encoding == "ENC_FLAT" { raw as i64 } else { sext(raw, 12) };
    if off != 0 {
        p.out.push_str(&format!(" offset:{off}"));
    }
    for f in ["GLC", "SLC", "DLC", "LDS"] {
        if p.named(f) != 0 {
            p.out.push(' ');
            p.out.push_str(&f.to_lowercase());
        }
    }
}

fn export(p: &mut P<'_>) {
    let tgt = p.inst.explicit().find_map(|o| match o.kind {
        OperandKind::Field { ty: "OPR_EXP_TGT", value } => Some(value as u32),
        _ => None,
    });
    let tgt = tgt.unwrap_or(p.named("TARGET") as u32);
    p.out.push(' ');
    symbols::exp_target(&mut p.out, tgt, p.g12);
    let compr = p.named("COMPR") != 0;
    let srcs: Vec<Operand> = p.inst.explicit().filter(|o| o.field.starts_with("VSRC")).copied().collect();
    for i in 0..4 {
        p.out.push_str(if i == 0 { " " } else { ", " });
        let o = srcs.get(i);
        // Compressed exports name a register per pair of lanes; EN says which lanes are on.
        let on = if compr {
            p.named("EN") >> i & 1 != 0
        } else {
            o.is_some_and(|o| !matches!(o.kind, OperandKind::Field { ty: "OFF", .. }))
        };
        if !on {
            p.out.push_str("off");
            continue;
        }
        let r = if compr { srcs.get(i / 2) } else { o };
        if let Some(r) = r {
            match r.kind {
                OperandKind::Field { ty: "OFF", value } => reg_text(&mut p.out, "v", value as u32, 1),
                k => {
                    reg(&mut p.out, &k, 32);
                }
            }
        }
    }
    if p.named("DONE") != 0 {
        p.out.push_str(" done");
    }
    if compr {
        p.out.push_str(" compr");
    }
    if p.named("VM") != 0 {
        p.out.push_str(" vm");
    }
    if p.named("ROW") != 0 {
        p.out.push_str(" row_en");
    }
}

fn interp(p: &mut P<'_>) {
    if !p.g12 && p.has("ENC_VOP3") {
        p.out.push_str("_e32");
    }
    for o in p.printed() {
        p.sep();
        match o.kind {
            OperandKind::Field { ty: "OPR_ATTR", value } => {
                let chan = ["x", "y", "z", "w"][p.named("ATTRCHAN") as usize & 3];
                let _ = value;
                let v = p.inst.operands.iter().find(|x| x.field == "ATTR").map_or(0, |x| match x.kind {
                    OperandKind::Field { value, .. } => value,
                    _ => 0,
                });
                p.out.push_str(&format!("attr{}.{chan}", v.max(p.named("ATTR"))));
            }
            OperandKind::Reg(_) => {
                reg(&mut p.out, &o.kind, o.size);
            }
            OperandKind::Field { value, .. } => {
                let s = match value {
                    0 => "p10".to_string(),
                    1 => "p20".to_string(),
                    2 => "p0".to_string(),
                    v => format!("invalid_param_{v}"),
                };
                p.out.push_str(&s);
            }
            _ => {
                let mut out = std::mem::take(&mut p.out);
                src(p, &mut out, &o, Kind::I32);
                p.out = out;
            }
        }
    }
    if p.g12 {
        p.out.push_str(&format!(" wait_va_vdst:{} wait_vm_vsrc:{}", p.named("WAIT_VA_VDST"), p.named("WAIT_VM_VSRC")));
    }
}

fn vinterp(p: &mut P<'_>) {
    for (i, o) in p.printed().iter().enumerate() {
        p.sep();
        let mut out = std::mem::take(&mut p.out);
        if i == 0 {
            reg(&mut out, &o.kind, o.size);
        } else {
            if o.mods.neg {
                out.push('-');
            }
            src(p, &mut out, o, p.kind(o.field));
        }
        p.out = out;
    }
    if p.has_mod(Modifier::Clamp) {
        p.out.push_str(" clamp");
    }
    let opsel = opsel(p);
    if opsel != 0 && p.m().contains("f16") {
        p.out.push_str(" op_sel:");
        bit_list(&mut p.out, opsel as u64, 4);
    }
    p.out.push_str(&format!(" wait_exp:{}", p.named("WAIT_EXP")));
}

fn vopd(p: &mut P<'_>) {
    // Two instructions joined by `::`; the mnemonic holds both names. Each half lists its
    // operands (fields ending in X or Y) in the spec's order, the literal where the spec puts it
    // (fmaak: after the sources; fmamk: between them).
    let m = p.m();
    let (x, y) = m.split_once("::").unwrap_or((m, ""));
    p.out.clear();
    p.out.push_str(x);
    let ops = p.printed();
    let lit = ops.iter().find(|o| o.field == "LITERAL").copied();
    let order = |half: char| -> Vec<Operand> {
        let mut v = Vec::new();
        let mut seen_half = false;
        for (f, _, ty) in &p.s.ops {
            if f.ends_with(half) {
                seen_half = true;
                if let Some(o) = ops.iter().find(|o| o.field == *f) {
                    v.push(*o);
                }
            } else if *ty == "OPR_SIMM32" && seen_half {
                v.extend(lit);
            } else if seen_half && !f.is_empty() {
                break;
            }
        }
        v
    };
    let line = |p: &mut P<'_>, group: &[Operand], name: &str| {
        p.k = 0;
        let kind = if name.contains("_f32") && !name.contains("bf16") && !name.contains("f16") { Kind::F32 } else { Kind::I32 };
        for o in group {
            p.sep();
            let mut out = std::mem::take(&mut p.out);
            match o.kind {
                OperandKind::Literal(l) if o.field == "LITERAL" => put_hex(&mut out, l),
                _ => src(p, &mut out, o, kind),
            }
            p.out = out;
        }
    };
    let (xo, yo) = (order('X'), order('Y'));
    line(p, &xo, x);
    p.out.push_str(" :: ");
    p.out.push_str(y);
    line(p, &yo, y);
}

fn opsel(p: &P<'_>) -> u8 {
    p.inst.modifiers.iter().find_map(|m| if let Modifier::OpSel(v) = m { Some(*v) } else { None }).unwrap_or(0)
}

fn opsel_hi(p: &P<'_>) -> u8 {
    p.inst.modifiers.iter().find_map(|m| if let Modifier::OpSelHi(v) = m { Some(*v) } else { None }).unwrap_or(0)
}

fn src_idx(f: &str) -> Option<usize> {
    isabridge_decoder::amd::model::src_index(f)
}

/// Mnemonic facts the vector syntax depends on (LLVM's per-instruction operand types).
fn mod_kind(p: &P<'_>, kind: Kind, i: usize) -> Kind {
    let m = p.m();
    if p.g12 {
        let int1 = m.contains("ldexp") || m.contains("_class_f32") || m.contains("_class_f64");
        if i == 1 && int1 {
            return Kind::I32;
        }
        if m.starts_with("v_cndmask") {
            return Kind::F32;
        }
        return kind;
    }
    if m.starts_with("v_cndmask_b32") {
        Kind::F32
    } else if m.contains("_ubyte")
        || m.ends_with("_i4")
        || m == "v_sad_u16"
        || (i == 1 && (m.contains("_class_") || m.starts_with("v_ldexp")))
        || (i >= 1 && m == "v_cvt_pk_u8_f32")
        || (i == 2 && (m == "v_mad_i32_i16" || m == "v_mad_u32_u16"))
    {
        Kind::I32
    } else {
        kind
    }
}

fn float_mods(p: &P<'_>, kind: Kind, i: usize) -> bool {
    let k = mod_kind(p, kind, i);
    if p.g12 {
        if i == 1 && (p.m().contains("ldexp") || p.m().contains("_class_f32") || p.m().contains("_class_f64")) {
            return false;
        }
        return kind.is_float() || p.m().starts_with("v_cndmask");
    }
    k.is_float()
}

const OPSEL_VOP3_G12: &[&str] = &[
    "v_add_nc_i16",
    "v_add_nc_u16",
    "v_alignbit_b32",
    "v_alignbyte_b32",
    "v_cvt_pk_bf8_f32",
    "v_cvt_pk_f32_bf8",
    "v_cvt_pk_f32_fp8",
    "v_cvt_pk_fp8_f32",
    "v_cvt_pk_norm_i16_f16",
    "v_cvt_pk_norm_u16_f16",
    "v_div_fixup_f16",
    "v_dot2_bf16_bf16",
    "v_dot2_f16_f16",
    "v_fma_f16",
    "v_mad_i16",
    "v_mad_i32_i16",
    "v_mad_u16",
    "v_mad_u32_u16",
    "v_max3_i16",
    "v_max3_num_f16",
    "v_max3_u16",
    "v_maximum3_f16",
    "v_maximum_f16",
    "v_maximumminimum_f16",
    "v_maxmin_num_f16",
    "v_med3_i16",
    "v_med3_num_f16",
    "v_med3_u16",
    "v_min3_i16",
    "v_min3_num_f16",
    "v_min3_u16",
    "v_minimum3_f16",
    "v_minimum_f16",
    "v_minimummaximum_f16",
    "v_minmax_num_f16",
    "v_pack_b32_f16",
    "v_sub_nc_i16",
    "v_sub_nc_u16",
];

/// gfx10 VOP3 forms of v_interp_p1_f32 / p2_f32 / mov_f32: `_e64`, the destination, the source
/// (its modifiers; mov's parameter), the attribute from SRC0, clamp and omod.
fn interp_e64(p: &mut P<'_>) {
    p.out.push_str("_e64");
    for o in p.printed() {
        if o.implicit {
            continue;
        }
        p.sep();
        let mut out = std::mem::take(&mut p.out);
        match (o.field, o.kind) {
            ("SRC0", OperandKind::Field { value, .. }) => {
                out.push_str(&format!("attr{}.{}", value & 0x3f, ["x", "y", "z", "w"][(value >> 6 & 3) as usize]));
            }
            (_, OperandKind::Field { ty: "OPR_INTERP_PARAM", value }) => out.push_str(&match value {
                0 => "p10".to_string(),
                1 => "p20".to_string(),
                2 => "p0".to_string(),
                v => format!("invalid_param_{v}"),
            }),
            ("SRC1", _) => src_mods(p, &mut out, &o, Kind::F32, o.mods.neg, o.mods.abs),
            _ => {
                if !reg(&mut out, &o.kind, o.size) {
                    src(p, &mut out, &o, Kind::F32);
                }
            }
        }
        p.out = out;
    }
    if p.has_mod(Modifier::Clamp) {
        p.out.push_str(" clamp");
    }
    let ov = omod_v(p);
    omod(&mut p.out, ov);
}

fn vop(p: &mut P<'_>) {
    let e = p.inst.encoding;
    if !p.g12 && e == "ENC_VOP3" && p.m().starts_with("v_interp_") && p.m().ends_with("_f32") {
        return interp_e64(p);
    }
    let short = p.has("ENC_VOP1") || p.has("ENC_VOP2") || p.has("ENC_VOPC");
    let long = p.has("ENC_VOP3") || p.has("ENC_VOP3B") || p.has("ENC_VOP3SD");
    let dpp16 = e.ends_with("_DPP16");
    let dpp8 = e.ends_with("_DPP8");
    let vop3 = e.starts_with("ENC_VOP3");
    let vop3p = e.starts_with("ENC_VOP3P");
    let sdwa = e.ends_with("_SDWA");
    if p.s.ops.is_empty() && !p.g12 {
        match e {
            "ENC_VOP1_DPP8" => return dpp8_tail(p, false),
            "ENC_VOP1_DPP16" => return dpp16_tail(p),
            _ => return,
        }
    }
    // Mnemonic suffix.
    if vop3 && (dpp16 || dpp8) {
        p.out.push_str("_e64_dpp");
    } else if dpp16 || dpp8 {
        if !(p.g12 && e.starts_with("ENC_VOPC")) {
            p.out.push_str("_dpp");
        }
    } else if sdwa {
        p.out.push_str("_sdwa");
    } else if matches!(e, "ENC_VOP1" | "ENC_VOP2" | "ENC_VOPC") {
        if long && !(p.g12 && p.s.ops.is_empty()) {
            p.out.push_str("_e32");
        }
    } else if (e == "ENC_VOP3" || e == "ENC_VOP3B" || e == "ENC_VOP3SD") && short && !(p.g12 && p.s.ops.is_empty()) {
        p.out.push_str("_e64");
    }
    let mix = p.m().starts_with("v_fma_mix");
    let interp = !p.g12 && p.m().starts_with("v_interp_");
    let mut float = false;
    let mut nsrc = 0usize;
    
    let ops = p.printed();
    for o in &ops {
        if o.implicit && vop3 {
            continue;
        }
        p.sep();
        let mut out = std::mem::take(&mut p.out);
        let kind0 = p.kind(o.field);

        match src_idx(o.field).filter(|_| !o.implicit) {
            Some(i) => {
                nsrc += 1;
                let mut kind = if p.g12 { kind0 } else { mod_kind(p, kind0, i) };
                if p.g12 && i == 2 && (p.m().starts_with("v_alignbit") || p.m().starts_with("v_alignbyte")) {
                    kind = Kind::I16;
                }
                if vop3p {
                    kind = match kind0 {
                        _ if mix => Kind::F16,
                        Kind::F16 => Kind::PkF16,
                        Kind::I16 => Kind::PkI16,
                        k => k,
                    };
                }
                if p.g12 && (p.m().starts_with("v_cvt_pk_f32_fp8") || p.m().starts_with("v_cvt_pk_f32_bf8")) && !vop3 {
                    kind = Kind::F16;
                }
                float |= kind.is_float() && !vop3p;
                if interp && o.field == "SRC0" {
                    let v = isabridge_decoder::amd::model::src_code(Isa::Gfx1013, &o.kind).unwrap_or(0);
                    out.push_str(&format!("attr{}.{}", v & 0x3f, ["x", "y", "z", "w"][(v >> 6 & 3) as usize]));
                    p.out = out;
                    continue;
                }
                let fp8_pair = p.g12 && (p.m().starts_with("v_cvt_pk_f32_fp8") || p.m().starts_with("v_cvt_pk_f32_bf8"));
                let fm = if vop3p { mix } else { float_mods(p, kind0, i) && !fp8_pair };
                let (n, a) = if fm { (o.mods.neg, o.mods.abs) } else { (false, false) };
                if sdwa {
                    let sx = !kind.is_float() && o.mods.not;
                    if sx {
                        out.push_str("sext(");
                    }
                    src_mods(p, &mut out, o, kind, n, a);
                    if sx {
                        out.push(')');
                    }
                } else if (dpp16 || dpp8) && !vop3 {
                    if n {
                        out.push('-');
                    }
                    if a {
                        out.push('|');
                    }
                    reg(&mut out, &o.kind, o.size);
                    if a {
                        out.push('|');
                    }
                } else if p.g12 && vop3 && (dpp16 || dpp8) && i == 1 && p.m().starts_with("v_fmac_") && is_const(o) {
                    // v_fmac's DPP second source: a constant prints as its code.
                    let code = isabridge_decoder::amd::model::src_code(Isa::Gfx1201, &o.kind).unwrap_or(0);
                    out.push_str(if n { "-" } else { "" });
                    out.push_str(if a { "|" } else { "" });
                    put_hex(&mut out, code);
                    out.push_str(if a { "|" } else { "" });
                } else if let (true, OperandKind::Literal(l)) = (p.g12 && vop3 && (dpp16 || dpp8) && i < 2 && p.m().starts_with("v_dot2_"), o.kind) {
                    // v_dot2 DPP sources: the whole literal, lit(...) when its low half is an
                    // inline constant of the halves' type.
                    let is_lit = inline16(l & 0xffff, if kind == Kind::BF16 { &BF16_INLINE } else { &F16_INLINE });
                    let call = n && !is_lit && !a;
                    out.push_str(if call { "neg(" } else if n { "-" } else { "" });
                    out.push_str(if a { "|" } else { "" });
                    if is_lit {
                        out.push_str("lit(");
                        put_hex(&mut out, l);
                        out.push(')');
                    } else {
                        put_hex(&mut out, l);
                    }
                    out.push_str(if a { "|" } else { "" });
                    out.push_str(if call { ")" } else { "" });
                } else if p.g12 && !vop3p {
                    let neg_fn = n && !a && is_const(o);
                    if neg_fn {
                        out.push_str("neg(");
                        src_mods(p, &mut out, o, kind, false, a);
                        out.push(')');
                    } else {
                        if n {
                            out.push('-');
                        }
                        if a {
                            out.push('|');
                        }
                        src(p, &mut out, o, kind);
                        if a {
                            out.push('|');
                        }
                    }
                } else if let (true, OperandKind::Literal(l)) = (!p.g12 && i == 1 && p.m() == "v_ldexp_f16", o.kind) {
                    // The 16-bit exponent's literal.
                    isabridge_decoder::amd::operands::literal(&mut out, l, Kind::I16);
                } else {
                    src_mods(p, &mut out, o, kind, n, a);
                }
            }
            None => {
                if p.g12 {
                    float |= o.field == "VDST" && kind0.is_float();
                }
                match o.kind {
                    OperandKind::Literal(l) if o.field == "LITERAL" => put_hex(&mut out, l),
                    _ => {
                        if !reg(&mut out, &o.kind, o.size) {
                            src(p, &mut out, o, kind0);
                        }
                    }
                }
            }
        }
        p.out = out;
    }
    if !p.g12 && !vop3 {
        float |= p.s.ops.iter().any(|o| o.1.is_float());
    }
    let m = p.m();
    if vop3p {
        let all = (1u8 << nsrc) - 1;
        let os = opsel(p) & all;
        let oh = opsel_hi(p) & all;
        let neg = p.inst.explicit().enumerate().fold(0u8, |acc, (_, o)| acc | src_idx(o.field).map_or(0, |i| (o.mods.neg as u8) << i)) & all;
        let neg_hi = p.named("NEG_HI") as u8 & all;
        let sel = !p.g12 || mix || m.starts_with("v_pk_") || m.starts_with("v_dot2");
        if sel && os != 0 {
            p.out.push_str(" op_sel:");
            bit_list(&mut p.out, os as u64, nsrc);
        }
        if sel && ((mix && oh != 0) || (!mix && oh != all)) {
            p.out.push_str(" op_sel_hi:");
            bit_list(&mut p.out, oh as u64, nsrc);
        }
        if !mix && neg != 0 {
            p.out.push_str(" neg_lo:");
            bit_list(&mut p.out, neg as u64, nsrc);
        }
        if !mix && neg_hi != 0 {
            p.out.push_str(" neg_hi:");
            bit_list(&mut p.out, neg_hi as u64, nsrc);
        }
        if p.has_mod(Modifier::Clamp) {
            p.out.push_str(" clamp");
        }
    } else if vop3 {
        let sd = matches!(e, "ENC_VOP3B" | "ENC_VOP3SD" | "ENC_VOP3SD_DPP16" | "ENC_VOP3SD_DPP8");
        let os = opsel(p) as u32;
        if !sd {
            let permlane = if p.g12 { m.starts_with("v_permlane16") || m.starts_with("v_permlanex16") } else { m.starts_with("v_permlane") };
            if permlane {
                if os & 3 != 0 {
                    p.out.push_str(" op_sel:");
                    bit_list(&mut p.out, (os & 3) as u64, 2);
                }
            } else {
                let has_sel = if p.g12 {
                    OPSEL_VOP3_G12.contains(&m)
                } else if m == "v_alignbit_b32" || m == "v_alignbyte_b32" {
                    true
                } else if m == "v_sad_u16" || interp || short {
                    false
                } else {
                    p.s.ops.iter().any(|o| src_idx(o.0).is_some() && matches!(o.1, Kind::F16 | Kind::I16))
                };
                // v_dot2_* (packed sources) show only the third source's and the destination's bits.
                let os = if p.g12 && m.starts_with("v_dot2_") { os & 0b1100 } else { os };
                if has_sel && os != 0 {
                    p.out.push_str(" op_sel:");
                    let bits = (os as u64 & ((1 << nsrc) - 1)) | ((os as u64 >> 3 & 1) << nsrc);
                    bit_list(&mut p.out, bits, nsrc + 1);
                }
            }
        }
        // gfx12 fp8/bf8 conversions keep byte_sel in op_sel.
        let byte_sel = if !p.g12 {
            0
        } else if m.starts_with("v_cvt_f32_fp8") || m.starts_with("v_cvt_f32_bf8") {
            (os >> 1 & 1) | (os & 1) << 1
        } else if m.starts_with("v_cvt_sr_fp8_f32") || m.starts_with("v_cvt_sr_bf8_f32") {
            os >> 2 & 3
        } else {
            0
        };
        if byte_sel != 0 {
            p.out.push_str(&format!(" byte_sel:{byte_sel}"));
        }
        if interp && p.inst.explicit().any(|o| o.field == "SRC0") {
            // high: bit 8 of SRC0 as printed by LLVM (the attribute's high-half bit).
            let v = p.inst.explicit().find(|o| o.field == "SRC0").and_then(|o| isabridge_decoder::amd::model::src_code(Isa::Gfx1013, &o.kind)).unwrap_or(0);
            if v >> 8 & 1 != 0 {
                p.out.push_str(" high");
            }
        }
        if p.has_mod(Modifier::Clamp) {
            p.out.push_str(" clamp");
        }
        let float = if p.g12 { float } else { float || p.s.ops.iter().any(|o| o.1.is_float()) };
        if float {
            let ov = omod_v(p);
            omod(&mut p.out, ov);
        }
    } else if sdwa {
        let vopc = e == "ENC_VOPC_SDWA";
        if !vopc {
            if p.has_mod(Modifier::Clamp) {
                p.out.push_str(" clamp");
            }
            if float {
                let ov = omod_v(p);
            omod(&mut p.out, ov);
            }
            const SEL: [&str; 8] = ["BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD", "7"];
            const UNUSED: [&str; 4] = ["UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE", "UNUSED_PAD"];
            let ds = p.inst.modifiers.iter().find_map(|m| if let Modifier::DstSel(v) = m { Some(*v) } else { None }).unwrap_or(0);
            let du = p.inst.modifiers.iter().find_map(|m| if let Modifier::DstUnused(v) = m { Some(*v) } else { None }).unwrap_or(0);
            p.out.push_str(&format!(" dst_sel:{} dst_unused:{}", SEL[ds as usize & 7], UNUSED[du as usize & 3]));
        }
        const SEL: [&str; 8] = ["BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD", "7"];
        let (s0, s1) = p.inst.modifiers.iter().find_map(|m| if let Modifier::SrcSel(a, b) = m { Some((*a, *b)) } else { None }).unwrap_or((0, 0));
        p.out.push_str(&format!(" src0_sel:{}", SEL[s0 as usize & 7]));
        if e != "ENC_VOP1_SDWA" {
            p.out.push_str(&format!(" src1_sel:{}", SEL[s1 as usize & 7]));
        }
    }
    if dpp16 {
        dpp16_tail(p);
    } else if dpp8 {
        dpp8_tail(p, vop3);
    }
}

fn omod_v(p: &P<'_>) -> u32 {
    p.inst.modifiers.iter().find_map(|m| if let Modifier::Omod(v) = m { Some(*v as u32) } else { None }).unwrap_or(0)
}

fn dpp16_tail(p: &mut P<'_>) {
    let mut ctrl = 0;
    let (mut row, mut bank) = (0, 0);
    for m in &p.inst.modifiers {
        match *m {
            Modifier::DppCtrl(v) => ctrl = v as u32,
            Modifier::RowMask(v) => row = v as u32,
            Modifier::BankMask(v) => bank = v as u32,
            _ => {}
        }
    }
    let m = p.m();
    if p.g12 && p.inst.encoding == "ENC_VOP3_DPP16" && (m.starts_with("v_cvt_pk_fp8_f32") || m.starts_with("v_cvt_pk_bf8_f32")) && (128..255).contains(&ctrl) {
        ctrl = isabridge_decoder::amd::operands::kimm_value(ctrl);
    }
    symbols::dpp_ctrl(&mut p.out, ctrl);
    p.out.push_str(" row_mask:");
    put_hex(&mut p.out, row);
    p.out.push_str(" bank_mask:");
    put_hex(&mut p.out, bank);
    if p.has_mod(Modifier::BoundCtrl) {
        p.out.push_str(" bound_ctrl:1");
    }
    if p.has_mod(Modifier::FetchInactive) {
        p.out.push_str(" fi:1");
    }
}

fn dpp8_tail(p: &mut P<'_>, _e64: bool) {
    let sel = p.inst.modifiers.iter().find_map(|m| if let Modifier::Dpp8(v) = m { Some(*v) } else { None }).unwrap_or(0);
    let lanes: Vec<String> = (0..8).map(|i| (sel >> (3 * i) & 7).to_string()).collect();
    p.out.push_str(&format!(" dpp8:[{}]", lanes.join(",")));
    if p.has_mod(Modifier::FetchInactive) {
        p.out.push_str(" fi:1");
    }
}

/// ConstType is part of the model; kept referenced for the printer's readers.
pub fn _const_type(_: ConstType) {}
