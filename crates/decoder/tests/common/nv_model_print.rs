//! A small printer over the NVIDIA operand model alone (test support): it reads an
//! [`Inst`] — guard, operand kinds and values, source modifiers, named and typed modifiers,
//! control bits — and writes nvdisasm 12.8's text. The spec supplies only the spelling (the
//! form's template punctuation, the names of modifier values, suffix ranks); no value is read
//! from instruction bits, and the fast printer (`IsaPlugin::print`) is not called.
#![allow(dead_code)]

use isabridge_decoder::nvidia::float;
use isabridge_decoder::operand::{ConstType, Inst, Operand, OperandKind, RegClass, SpecialReg};
use isabridge_decoder::spec::{NvField, NvForm, NvKind, NvPiece, NvTables};
use isabridge_decoder::Isa;

/// The tables of the instruction's ISA.
pub fn tables(isa: Isa) -> &'static NvTables {
    match isa {
        Isa::Sm86 => &isabridge_decoder::sm86::TABLES,
        _ => &isabridge_decoder::sm50::TABLES,
    }
}

/// Marker for a register that prints `.reuse` (placed after its suffixes at the end).
const REUSE: char = '\u{1}';

fn hex(v: i64, signed: bool) -> String {
    if signed && v < 0 {
        format!("-{:#x}", v.unsigned_abs())
    } else {
        format!("{:#x}", v as u64)
    }
}

fn reg_text(class: RegClass, n: u16) -> String {
    // register 255 kept as a register is one nvdisasm has no name for
    if class == RegClass::R && n == 255 {
        return "???255".into();
    }
    let p = match class {
        RegClass::R => "R",
        RegClass::Ur => "UR",
        RegClass::P => "P",
        RegClass::Up => "UP",
        _ => "?",
    };
    format!("{p}{n}")
}

fn special_text(r: SpecialReg) -> String {
    match r {
        SpecialReg::Rz => "RZ".into(),
        SpecialReg::Urz => "URZ".into(),
        SpecialReg::Pt => "PT".into(),
        SpecialReg::Upt => "UPT".into(),
        SpecialReg::Cc => "CC".into(),
        SpecialReg::Sr(name, n) => {
            if name.is_empty() {
                format!("SR{n}")
            } else {
                name.into()
            }
        }
        _ => "?".into(),
    }
}

fn float_text(bits: u64, ty: ConstType) -> String {
    let mut s = String::new();
    match ty {
        ConstType::F16 => float::push_f16_bits(&mut s, bits as u16),
        ConstType::F64 => float::push_f64_bits(&mut s, bits),
        ConstType::Bf16 => float::push_f32_bits(&mut s, (bits as u32) << 16),
        _ => float::push_f32_bits(&mut s, bits as u32),
    }
    s
}

/// The text of a register-like or plain operand.
fn operand_text(o: &Operand, f: &NvField, t: &NvTables) -> String {
    match o.kind {
        OperandKind::Reg(r) => reg_text(r.class, r.first),
        OperandKind::Special { reg, .. } => special_text(reg),
        OperandKind::Imm(v) => hex(v, true),
        OperandKind::Label(a) => hex(a as i64, true),
        OperandKind::FImm { bits, ty } => float_text(bits, ty),
        OperandKind::Field { ty, value } => {
            if ty == "OPR_BREG" {
                return format!("B{value}");
            }
            if ty.starts_with("UNNAMED_") {
                return format!("???{value}");
            }
            spell(t, f, value)
        }
        _ => String::new(),
    }
}

/// The spelling of lookup field `f` at `v` (nvdisasm's placeholders for values it has no name
/// for).
fn spell(t: &NvTables, f: &NvField, v: u64) -> String {
    match f.kind {
        NvKind::Lookup => {
            let Some(ty) = t.operand_types.get(f.ty as usize) else { return String::new() };
            match ty.lookup(v as i64) {
                Some(s) => s.to_string(),
                None if ty.name.starts_with("OPR_SREG") => format!("SR{v}"),
                None if matches!(ty.name, "OPR_NEG" | "OPR_ABS" | "OPR_NOT" | "OPR_INV") => String::new(),
                None => format!(".INVALID{v}"),
            }
        }
        NvKind::UImm | NvKind::Other => format!("{:#x}", v.wrapping_mul(f.scale() as u64)),
        NvKind::SImm => {
            let n = f.width();
            let s = if n > 0 && n < 64 && v >> (n - 1) & 1 == 1 { v as i64 - (1i64 << n) } else { v as i64 };
            hex(s.wrapping_mul(f.scale() as i64), true)
        }
        NvKind::Reg => if v == 255 { "RZ".into() } else { format!("R{v}") },
        NvKind::UReg => if v == 63 { "URZ".into() } else { format!("UR{v}") },
        NvKind::Pred => if v == 7 { "PT".into() } else { format!("P{v}") },
        NvKind::UPred => if v == 7 { "UPT".into() } else { format!("UP{v}") },
        NvKind::BReg => format!("B{v}"),
        NvKind::FImm => String::new(),
    }
}

/// The instruction's text as nvdisasm prints it, from the model alone.
pub fn print(inst: &Inst) -> String {
    let t = tables(inst.isa);
    let Some(form) = t.forms.iter().find(|f| f.name == inst.encoding) else { return format!("<no form {}>", inst.encoding) };
    let mut out = String::new();
    if let Some(g) = inst.guard {
        out.push('@');
        if g.negate {
            out.push('!');
        }
        out.push_str(if g.reg.class == RegClass::Up { "UP" } else { "P" });
        if g.reg.first == 7 {
            out.push('T');
        } else {
            out.push_str(&g.reg.first.to_string());
        }
        out.push(' ');
    }
    let body = render(inst, t, form);
    let (mnem, ops) = split(&body);
    let mnem = sort_suffixes(inst, t, form, mnem);
    let mut ops: Vec<String> = ops.into_iter().map(|o| fix_brackets(&o)).collect();
    for o in ops.iter_mut() {
        place_reuse(o, inst.isa == Isa::Sm50);
    }
    let mut text = Text { mnem, ops };
    rules(inst, t, form, &mut text);
    out.push_str(&text.mnem);
    for (i, o) in text.ops.iter().enumerate() {
        out.push_str(if i == 0 { " " } else { ", " });
        out.push_str(o);
    }
    while out.ends_with(' ') {
        out.pop();
    }
    out
}

/// Mnemonic and operands.
pub struct Text {
    /// Mnemonic with suffixes.
    pub mnem: String,
    /// Operand texts.
    pub ops: Vec<String>,
}

/// Value of a field that the model keeps as a named modifier.
fn named(inst: &Inst, name: &str) -> Option<u64> {
    inst.named(name)
}

/// Renders the template with every value taken from the model.
fn render(inst: &Inst, t: &NvTables, form: &NvForm) -> String {
    let mut s = String::new();
    let mut in_mnem = true;
    // Fields of each operand of the template, to find the model operand a field belongs to.
    let segs = segments(form);
    // The model's operands of each template operand, in order.
    let ops: Vec<&Operand> = inst.explicit().collect();
    let mut by_seg: Vec<Vec<&Operand>> = Vec::new();
    let mut at = 0usize;
    for fields in &segs {
        let mut left: Vec<&str> = fields.iter().map(|&j| form.fields[j as usize].name()).collect();
        let n = ops[at..]
            .iter()
            .take_while(|o| match left.iter().position(|&n| n == o.field) {
                Some(k) => {
                    left.remove(k);
                    true
                }
                None => false,
            })
            .count();
        by_seg.push(ops[at..at + n].to_vec());
        at += n;
    }
    let mut seg = 0usize;
    let mut depth = 0i32;
    for p in form.pieces() {
        match p {
            NvPiece::Lit(x) => {
                if in_mnem && x.contains(' ') {
                    in_mnem = false;
                }
                for (k, c) in x.char_indices() {
                    match c {
                        '[' => depth += 1,
                        ']' => depth -= 1,
                        ',' if depth == 0 && x[k + 1..].starts_with(' ') => seg += 1,
                        _ => {}
                    }
                }
                s.push_str(x);
            }
            NvPiece::Field(i) => {
                let f = &form.fields[i as usize];
                let name = f.name();
                if in_mnem {
                    if let Some(v) = named(inst, name) {
                        s.push_str(&spell(t, f, v));
                    }
                    continue;
                }
                let seg_ops: Vec<&Operand> = by_seg.get(seg).cloned().unwrap_or_default();
                let is_mod = |p: &str| name.strip_prefix(p).is_some();
                if let Some(o) = seg_ops.iter().find(|o| o.field == name) {
                    if matches!(o.kind, OperandKind::ConstBank { .. } | OperandKind::Mem { .. }) {
                        s.push_str(&bracket_part(o, f, &s));
                    } else {
                        s.push_str(&operand_text(o, f, t));
                        if o.mods.reuse && shows_reuse(inst) {
                            s.push(REUSE);
                        }
                    }
                } else if is_mod("NEG_") || is_mod("ABS_") || is_mod("NOT_") || is_mod("INV_") {
                    let target = &name[4..];
                    let o = seg_ops.iter().find(|o| o.field == target).or(seg_ops.first());
                    if let Some(o) = o {
                        let on = match &name[..4] {
                            "NEG_" => o.mods.neg,
                            "ABS_" => o.mods.abs,
                            _ => o.mods.not,
                        };
                        s.push_str(&spell(t, f, on as u64));
                    }
                } else if let Some(v) = named(inst, name) {
                    s.push_str(&spell(t, f, v));
                } else if let Some(o) = seg_ops.iter().find(|o| matches!(o.kind, OperandKind::ConstBank { .. } | OperandKind::Mem { .. })) {
                    s.push_str(&bracket_part(o, f, &s));
                } else if f.omit_zero() || (f.kind == NvKind::Reg && segs.get(seg).is_some_and(|g| g.len() == 1)) {
                    // a register operand alone in its slot that the model does not list is one
                    // nvdisasm leaves out (the model drops it: see `nvidia::model::texture_register_255`)
                    if s.ends_with(", ") {
                        s.truncate(s.len() - 2);
                    }
                } else {
                    s.push_str(&spell(t, f, 0));
                }
            }
        }
    }
    s
}

/// The fields of each operand of the template.
fn segments(form: &NvForm) -> Vec<Vec<u8>> {
    let mut segs: Vec<Vec<u8>> = Vec::new();
    let mut started = false;
    let mut depth = 0i32;
    for p in form.pieces() {
        match p {
            NvPiece::Lit(x) => {
                let mut x = x;
                if !started {
                    match x.find(' ') {
                        Some(i) => {
                            started = true;
                            segs.push(Vec::new());
                            x = &x[i..];
                        }
                        None => continue,
                    }
                }
                for (k, c) in x.char_indices() {
                    match c {
                        '[' => depth += 1,
                        ']' => depth -= 1,
                        ',' if depth == 0 && x[k + 1..].starts_with(' ') => segs.push(Vec::new()),
                        _ => {}
                    }
                }
            }
            NvPiece::Field(i) => {
                if let Some(s) = segs.last_mut() {
                    s.push(i);
                }
            }
        }
    }
    segs
}

/// The part of a constant-bank or memory operand that field `f` prints, `before` being the
/// text so far.
fn bracket_part(o: &Operand, f: &NvField, before: &str) -> String {
    let seg = before.rsplit(", ").next().unwrap_or(before);
    let reg = |r: Option<isabridge_decoder::operand::RegRange>, z: &str| match r {
        Some(r) => reg_text(r.class, r.first),
        None => z.to_string(),
    };
    match o.kind {
        OperandKind::ConstBank { bank, offset, reg: r, bank_reg } => {
            let in_bank = seg.matches('[').count() <= 1 && !seg.contains("][");
            if in_bank {
                match bank_reg {
                    Some(b) if f.kind == NvKind::UReg => reg_text(b.class, b.first),
                    _ if f.kind == NvKind::UReg => "URZ".into(),
                    _ => hex(bank as i64, false),
                }
            } else if matches!(f.kind, NvKind::Reg | NvKind::UReg) {
                reg(r, if f.kind == NvKind::UReg { "URZ" } else { "RZ" })
            } else {
                hex(offset as i64, f.kind == NvKind::SImm)
            }
        }
        OperandKind::Mem { base, ubase, offset } => match f.kind {
            NvKind::Reg => reg(base, "RZ"),
            NvKind::UReg => reg(ubase, "URZ"),
            _ => hex(offset, true),
        },
        _ => String::new(),
    }
}

/// nvdisasm shows reuse flags: sm86 only with the yield bit set; sm50 for the instructions the
/// model marks.
fn shows_reuse(inst: &Inst) -> bool {
    match inst.isa {
        Isa::Sm86 => inst.control.is_some_and(|c| c.yield_),
        _ => true,
    }
}

/// Mnemonic and operands (commas inside brackets do not split).
fn split(s: &str) -> (String, Vec<String>) {
    let (m, rest) = match s.find(' ') {
        Some(i) => (&s[..i], &s[i + 1..]),
        None => (s, ""),
    };
    let mut ops = Vec::new();
    let b = rest.as_bytes();
    let (mut depth, mut start, mut i) = (0i32, 0usize, 0usize);
    while i < b.len() {
        match b[i] {
            b'[' | b'(' | b'{' => depth += 1,
            b']' | b')' | b'}' => depth -= 1,
            b',' if depth == 0 && b.get(i + 1) == Some(&b' ') => {
                ops.push(rest[start..i].to_string());
                i += 2;
                start = i;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    if start < b.len() || !rest.is_empty() {
        ops.push(rest[start..].to_string());
    }
    (m.to_string(), ops)
}

/// `[RZ+0x10]` -> `[0x10]`, `[R2+0x0]` -> `[R2]`, an absent base with a zero offset `[RZ]`
/// (not inside a constant operand).
fn fix_brackets(o: &str) -> String {
    if !o.contains('[') {
        return o.to_string();
    }
    let keep_rz = o.find("[RZ+0x0]").filter(|&i| !o[..i].contains(['c', ']']));
    let mut r = String::new();
    let mut rest = o;
    let mut at = 0usize;
    while !rest.is_empty() {
        if keep_rz == Some(at) {
            r.push_str("[RZ]");
            rest = &rest[8..];
            at += 8;
        } else if let Some(x) = rest.strip_prefix("[RZ+") {
            r.push('[');
            rest = x;
            at += 4;
        } else if let Some(x) = rest.strip_prefix("+0x0]") {
            r.push(']');
            rest = x;
            at += 5;
        } else {
            let c = rest.chars().next().unwrap_or(' ');
            r.push(c);
            rest = &rest[c.len_utf8()..];
            at += c.len_utf8();
        }
    }
    r
}

/// `.reuse` after the register, its closing `|` and (sm50) its `.H1`-style suffixes.
fn place_reuse(o: &mut String, after_suffix: bool) {
    while let Some(i) = o.find(REUSE) {
        o.remove(i);
        let b = o.as_bytes();
        let mut j = i;
        loop {
            while j < b.len() && b[j] == b'|' {
                j += 1;
            }
            if after_suffix && j + 1 < b.len() && b[j] == b'.' && b[j + 1].is_ascii_uppercase() {
                j += 1;
                while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                    j += 1;
                }
                continue;
            }
            break;
        }
        o.insert_str(j, ".reuse");
    }
}

/// Where a suffix came from: (field index, its place in the field's spelling, suffixes in it).
type Origin = (u8, usize, usize);

/// Suffixes in nvdisasm's order: a stable sort by the spec's `SuffixOrder` ranks. A suffix
/// without a rank takes the smallest rank of the ranked spellings its field prints at the same
/// place for other values, else the rank of the suffix before it.
fn sort_suffixes(inst: &Inst, t: &NvTables, form: &NvForm, mnem: String) -> String {
    let Some(ni) = t.insts.get(inst.opcode as usize) else { return mnem };
    if ni.order.is_empty() || mnem.matches('.').count() < 2 {
        return mnem;
    }
    // The mnemonic again, each suffix with the field that printed it.
    let mut toks: Vec<(String, Option<Origin>)> = vec![(String::new(), None)];
    let mut origin: Option<Origin> = None;
    let mut seen = std::collections::BTreeSet::new();
    'pieces: for p in form.pieces() {
        match p {
            NvPiece::Lit(x) => {
                for c in x.chars() {
                    if c == ' ' {
                        break 'pieces;
                    }
                    if c == '.' {
                        toks.push((String::new(), None));
                        origin = None;
                    } else if let Some(last) = toks.last_mut() {
                        last.0.push(c);
                    }
                }
            }
            NvPiece::Field(i) => {
                let f = &form.fields[i as usize];
                let v = spell(t, f, inst.named(f.name()).unwrap_or(0));
                if f.kind == NvKind::Lookup && v.starts_with('.') {
                    // two fields of one operand type print in the order of their bits
                    if !seen.insert(f.ty) {
                        return mnem;
                    }
                    let n = v.matches('.').count();
                    for (k, part) in v[1..].split('.').enumerate() {
                        origin = Some((i, k, n));
                        toks.push((part.to_string(), origin));
                    }
                } else if let Some(last) = toks.last_mut() {
                    last.0.push_str(&v);
                    if last.1.is_none() {
                        last.1 = origin;
                    }
                }
            }
        }
    }
    let joined = toks.iter().map(|x| x.0.as_str()).collect::<Vec<_>>().join(".");
    if joined != mnem || toks.len() < 3 {
        return mnem;
    }
    // first among the spellings equal to this value's but at `k`, else among all
    let sibling = |(fi, k, n): Origin| -> Option<u16> {
        let f = &form.fields[fi as usize];
        let ty = t.operand_types.get(f.ty as usize)?;
        let own = spell(t, f, inst.named(f.name()).unwrap_or(0));
        let own: Vec<&str> = own.get(1..).unwrap_or("").split('.').collect();
        let rank_at = |s: &str| s.get(1..)?.split('.').nth(k).and_then(|x| ni.rank(x));
        let all = || ty.values.iter().map(|&x| ty.spelling(x)).filter(|s| s.matches('.').count() == n);
        let close = |s: &&str| s.get(1..).unwrap_or("").split('.').enumerate().all(|(j, x)| j == k || own.get(j) == Some(&x));
        all().filter(close).filter_map(rank_at).min().or_else(|| all().filter_map(rank_at).min())
    };
    let mut prev = 0u32;
    let mut ranked: Vec<(u32, usize)> = Vec::new();
    for (k, (s, o)) in toks.iter().enumerate().skip(1) {
        let r = ni.rank(s).or_else(|| o.and_then(sibling)).map(|r| 2 * r as u32 + 1).unwrap_or(prev);
        prev = r;
        ranked.push((r, k));
    }
    ranked.sort_by_key(|x| x.0);
    let mut m = toks[0].0.clone();
    for (_, k) in ranked {
        m.push('.');
        m.push_str(&toks[k].0);
    }
    m
}

/// Family rules: spellings that depend on several model values at once.
fn rules(inst: &Inst, _t: &NvTables, form: &NvForm, text: &mut Text) {
    let name = inst.name;
    if inst.isa == Isa::Sm50 {
        if let (true, Some(c)) = (PHASE.contains(&name), inst.control) {
            text.mnem.push_str(["", ".T", ".P", ".INVALIDPHASE3"][c.reuse as usize & 3]);
        }
    }
    // A branch target replaces the probe's text of the operand (`0x358!`).
    if inst.explicit().any(|o| matches!(o.kind, OperandKind::Label(_))) || matches!(name, "BRX" | "JMX") {
        if let Some(o) = text.ops.last_mut() {
            while o.ends_with('!') {
                o.pop();
            }
        }
    }
    // A float immediate carries its own sign (`--2.25` is `-2.25`).
    for o in text.ops.iter_mut() {
        if o.starts_with("--") {
            o.remove(0);
        }
    }
    if inst.isa == Isa::Sm50 && matches!(name, "F2F" | "F2I" | "I2F" | "I2I") && inst.named("CVT_KIND").is_some_and(|k| k < 3) {
        conversion(inst, text);
    }
    if inst.isa == Isa::Sm50 {
        sm50_rules(inst, text);
        if let (Some(0), Some(c)) = (inst.named("CCTL_OP"), inst.named("CCTL_CACHE")) {
            // `QRY1` with the address glued to it
            let cache = ["", ".U", ".C", ".I", ".CRS", ".INVALIDCACHETYPE5", ".INVALIDCACHETYPE6", ".INVALIDCACHETYPE7"][c as usize & 7];
            let e = if inst.named("CCTL_E") == Some(1) { ".E" } else { "" };
            let addr = text.ops.iter().find(|o| o.starts_with('[')).cloned().unwrap_or_default();
            text.mnem = format!("CCTL{e}{cache}.QRY1{addr}");
            text.ops.clear();
        }
        if inst.named("V_RD").is_some() {
            video(inst, text);
        }
        if inst.named("S_RD").is_some() {
            surface(inst, text);
        }
        if inst.named("M_RD").is_some() {
            imadsp(inst, text);
        }
        if inst.named("BAR_MODE").is_some() {
            bar(inst, text);
        }
        if let (Some(v), Some(sb)) = (inst.named("XMAD_IMM"), inst.named("XMAD_BSIGN")) {
            if let Some(o) = text.ops.iter_mut().find(|o| o.starts_with("0x") || o.starts_with("-0x")) {
                *o = if sb == 1 && v >= 0x8000 { format!("-{:#x}", 0x1_0000 - v) } else { format!("{v:#x}") };
            }
        }
        if name == "XMAD" && text.mnem.contains("???") {
            let mut parts: Vec<&str> = text.mnem.split('.').collect();
            if let (Some(i), Some(j)) = (parts.iter().position(|p| p.starts_with("???")), parts.iter().position(|p| *p == "PSL")) {
                if i < j {
                    parts.swap(i, j);
                    text.mnem = parts.join(".");
                }
            }
        }
        sm50_texture(inst, text);
        if matches!(name, "AL2P" | "PIXLD") {
            text.ops.retain(|o| o != "PT");
        }
        if name == "LDS" && !has(&text.mnem, "U") {
            let parts: Vec<&str> = text.mnem.split('.').filter(|p| *p != "32").collect();
            text.mnem = parts.join(".");
        }
        if name == "ATOM" {
            let mut parts: Vec<&str> = text.mnem.split('.').collect();
            if let Some(i) = parts.iter().position(|p| p.starts_with("INVALIDATOMICSIZE")) {
                let s = parts.remove(i);
                parts.push(s);
                text.mnem = parts.join(".");
            }
        }
        if let Some(sel) = inst.named("BYTE_SEL") {
            if let Some(o) = text.ops.get_mut(1) {
                if let Some(i) = o.find(".B") {
                    if o[i + 2..].starts_with(|c: char| c.is_ascii_digit()) {
                        o.replace_range(i..i + 3, "");
                    }
                }
                if sel != 0 {
                    let b = o.as_bytes();
                    let mut j = o.find('R').map(|i| i + 1).unwrap_or(o.len());
                    while j < b.len() && (b[j].is_ascii_digit() || b[j] == b'Z') {
                        j += 1;
                    }
                    o.insert_str(j, &format!(".B{sel}"));
                }
            }
        }
        if let Some(p) = inst.named("LDST_PRED") {
            if text.ops.last().is_some_and(|o| is_pred_text(o)) {
                text.ops.pop();
            }
            if p != 7 {
                text.ops.push(format!("P{p}"));
            }
            if inst.explicit().any(|o| matches!(o.kind, OperandKind::Mem { base: None, .. })) {
                let off = inst.named("LDST_ABS").unwrap_or(0);
                for o in text.ops.iter_mut() {
                    if o.starts_with('[') {
                        *o = format!("[{off:#x}]");
                    }
                }
            }
            let parts: Vec<&str> = text.mnem.split('.').collect();
            if let Some(i) = parts.iter().position(|p| p.starts_with("INVALIDSIZE")) {
                let mut v = parts.clone();
                let s = v.remove(i);
                v.push(s);
                text.mnem = v.join(".");
            }
        }
    }
    if inst.isa == Isa::Sm86 {
        for o in text.ops.iter_mut() {
            if o.contains("SNAN") {
                *o = o.replace("SNAN", "QNAN");
            }
        }
        sm86_rules(inst, form, text);
        if inst.named("SU_OPC").is_some() {
            surface86(inst, text);
        }
        if let Some(v) = inst.named("PM_TAG") {
            let last = match text.ops.last_mut() {
                Some(o) => o,
                None => &mut text.mnem,
            };
            while last.ends_with(' ') {
                last.pop();
            }
            last.push_str(&format!(" ?PM{v}"));
        }
    }
}

/// Removes a suffix equal to the one before it (two fields print the same default).
fn dedup(m: &mut String) {
    let mut out: Vec<&str> = Vec::new();
    for p in m.split('.') {
        if out.len() > 1 && out.last() == Some(&p) {
            continue;
        }
        out.push(p);
    }
    *m = out.join(".");
}

fn has(m: &str, s: &str) -> bool {
    m.split('.').skip(1).any(|x| x == s)
}

fn is_pred_text(s: &str) -> bool {
    let s = s.trim_start_matches('!');
    let d = s.strip_prefix("UP").or_else(|| s.strip_prefix('P'));
    d.is_some_and(|d| d == "T" || (!d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())))
}

fn is_reg_text(s: &str) -> bool {
    let d = s.strip_prefix("UR").or_else(|| s.strip_prefix('R'));
    d.is_some_and(|d| d.starts_with('Z') || d.bytes().next().is_some_and(|b| b.is_ascii_digit()))
}

/// sm50 spellings.
fn sm50_rules(inst: &Inst, text: &mut Text) {
    let name = inst.name;
    // A `PT` predicate destination before the register one is not printed.
    if matches!(name, "LEA" | "LOP") && text.ops.len() > 2 && text.ops[0] == "PT" {
        text.ops.remove(0);
    }
    // `.S32.S32` is IMAD's default type pair.
    if matches!(name, "IMAD" | "IMAD32I") && text.mnem[name.len()..].starts_with(".S32.S32") {
        text.mnem.replace_range(name.len()..name.len() + 8, "");
    }
    // Both register / constant sources negated is `.PO`.
    if matches!(name, "IADD" | "ISCADD") {
        let neg_operand = |o: &str| o.starts_with("-R") || o.starts_with("-c[");
        if text.ops.len() >= 3 && neg_operand(&text.ops[1]) && neg_operand(&text.ops[2]) {
            text.ops[1].remove(0);
            text.ops[2].remove(0);
            text.mnem.insert_str(name.len(), ".PO");
        }
    }
    // The float immediates of FADD / FSETP / DMNMX keep their `.NEG` / `.ABS` after a single
    // space.
    for o in text.ops.iter_mut() {
        if o.contains("NAN  ") || o.contains("INF  ") {
            *o = o.replace("  ", " ");
        }
        if !name.starts_with('D') && o.contains("SNAN") {
            *o = o.replace("SNAN", "QNAN");
        }
    }
    // `IPA` leaves a third source `RZ` out; without `.IDX` also a trailing `PT` (not `!PT`).
    if name == "IPA" && text.ops.len() == 5 && text.ops[3] == "RZ" {
        text.ops.remove(3);
    }
    if name == "IPA" && !text.mnem.starts_with("IPA.IDX") && text.ops.last().is_some_and(|o| o == "PT") {
        text.ops.pop();
    }
    // Compare-and-swap's second data register.
    if matches!(name, "ATOMS" | "ATOM") && text.mnem.contains(".CAS") {
        let g = |n: &str| inst.named(n).unwrap_or(0);
        let reg = |r: u64| if r >= 255 { "RZ".to_string() } else { format!("R{r}") };
        if g("CAS_RZ_FIRST") == 1 {
            if text.ops.len() >= 4 {
                text.ops[2] = "RZ".into();
                text.ops[3] = reg(g("CAS_RB"));
            }
        } else {
            let wide = g("CAS_64") == 1;
            let mut parts: Vec<String> = text.mnem.split('.').map(str::to_string).collect();
            parts.retain(|p| p != "64");
            if wide {
                parts.push("64".into());
            }
            text.mnem = parts.join(".");
            let rb = g("CAS_RB");
            let second = g("CAS_SECOND_RZ") == 0;
            let n = rb + if wide { 2 } else { 1 };
            let c = if !second { "RZ".into() } else if n >= 255 { "???255".into() } else { reg(n) };
            if text.ops.len() >= 4 {
                if second && rb == 255 {
                    text.ops[2] = "???255".into();
                }
                text.ops[3] = c;
            }
        }
    }
}

/// sm86 spellings.
fn sm86_rules(inst: &Inst, form: &NvForm, text: &mut Text) {
    let name = inst.name;
    if inst.named("H_FORM").is_some() {
        half(inst, form, text);
    }
    if matches!(name, "F2F" | "ATOMG" | "ATOM" | "RED" | "F2FP" | "I2F") {
        dedup(&mut text.mnem);
    }
    if name == "I2F" {
        i2f(inst, text);
    }
    if let (Some(v), true) = (inst.named("BMOV_BREG"), text.mnem.starts_with("BMOV.32")) {
        const BREG: [&str; 16] = [
            "THREAD_STATE_ENUM.0", "THREAD_STATE_ENUM.1", "THREAD_STATE_ENUM.2", "THREAD_STATE_ENUM.3", "THREAD_STATE_ENUM.4",
            "TRAP_RETURN_PC.LO", "TRAP_RETURN_PC.HI", "TRAP_RETURN_MASK", "MEXITED", "MKILL", "MACTIVE", "MATEXIT", "OPT_STACK",
            "API_CALL_DEPTH", "ATEXIT_PC.LO", "ATEXIT_PC.HI",
        ];
        let v = v as usize;
        let s = match v {
            0..=15 => format!("B{v}"),
            16..=31 => BREG[v - 16].to_string(),
            _ => format!("???{v}"),
        };
        if let Some(o) = text.ops.iter_mut().find(|o| {
            let b = o.strip_suffix(".reuse").unwrap_or(o);
            !(b == "RZ" || (b.len() > 1 && b.starts_with('R') && b[1..].bytes().all(|c| c.is_ascii_digit())))
        }) {
            *o = s;
        }
    }
    if let Some(v) = inst.named("BAR_RED_OP") {
        let red = has(&text.mnem, "RED");
        if red || has(&text.mnem, "SCAN") {
            let op = ["POPC", "AND", "OR", "INVALID3"][v as usize & 3];
            let mut parts: Vec<&str> = text.mnem.split('.').filter(|p| !matches!(*p, "POPC" | "AND" | "OR" | "INVALID3")).collect();
            if red {
                let at = parts.iter().position(|p| *p == "RED").map_or(parts.len(), |i| i + 1);
                parts.insert(at, op);
            }
            text.mnem = parts.join(".");
        }
    }
    if let (Some(neg), true) = (inst.named("IDP_NEG_C"), name == "IMAD" && inst.named("IDP_2A").is_some()) {
        if text.ops.len() >= 4 {
            text.ops.truncate(4);
            let c = text.ops[3].trim_start_matches(['~', '-']).to_string();
            if c.starts_with('R') {
                text.ops[3] = if neg == 1 { format!("-{c}") } else { c };
            }
        }
    }
    if let Some(sz) = inst.named("LDST_SIZE") {
        let is_sem = |p: &str| matches!(p, "STRONG" | "CONSTANT" | "MMIO" | "CTA" | "SM" | "GPU" | "SYS" | "VC" | "PRIVATE");
        let is_size = |p: &str| matches!(p, "U8" | "S8" | "U16" | "S16" | "32" | "64" | "128");
        let invalid = sz == 7;
        if invalid || text.mnem.split('.').skip(1).any(is_sem) {
            let mut parts: Vec<&str> = text.mnem.split('.').collect();
            let first = parts.iter().skip(1).position(|p| is_sem(p)).map_or(parts.len(), |i| i + 1);
            if invalid {
                if let Some(i) = (1..first).rev().find(|&i| parts[i] == "INVALID7") {
                    let s = parts.remove(i);
                    parts.insert(first - 1, s);
                }
            } else if let Some(size) = parts.iter().skip(first).position(|p| is_size(p)).map(|i| i + first) {
                let s = parts.remove(size);
                parts.insert(first, s);
            }
            text.mnem = parts.join(".");
        }
    }
    if name == "ULOP3" && text.ops.len() >= 2 && text.ops[0] == "UPT" && text.ops[1].starts_with("UR") {
        text.ops.remove(0);
    }
    if name == "LDGSTS" {
        if let Some(o) = text.ops.iter_mut().filter(|o| o.starts_with('[') || o.starts_with("desc[")).nth(1) {
            if let Some(i) = o.find("+URZ") {
                o.replace_range(i..i + 4, "");
            }
        }
    }
    if inst.named("FP_TXD") == Some(1) {
        let parts: Vec<&str> = text.mnem.split('.').map(|p| if p == "???1" { "TXD" } else { p }).collect();
        text.mnem = parts.join(".");
    }
    // An eviction priority of 6 or 7 also printed by another field goes before MS/CL/NDV/NODEP.
    if matches!(name, "TEX" | "TLD" | "TLD4" | "TXD") {
        if let Some(want) = match inst.named("TEX_EVICT") {
            Some(6) => Some("INVALID6"),
            Some(7) => Some("INVALID7"),
            _ => None,
        } {
            let mut parts: Vec<&str> = text.mnem.split('.').collect();
            let at: Vec<usize> = (1..parts.len()).filter(|&i| parts[i] == want).collect();
            if at.len() == 2 {
                parts.remove(at[1]);
                let to = (1..parts.len()).find(|&i| matches!(parts[i], "MS" | "CL" | "NDV" | "NODEP")).unwrap_or(parts.len());
                parts.insert(to, want);
                text.mnem = parts.join(".");
            }
        }
    }
    if let Some(v) = inst.named("MEM_SEM") {
        semantics(name, v, &mut text.mnem);
    }
    match name {
        "LDGSTS" | "LD" | "LDG" | "ST" | "STG" => eviction_first(&mut text.mnem, 0),
        "ATOM" | "ATOMG" | "RED" => eviction_first(&mut text.mnem, 1),
        _ => {}
    }
    if name == "IMAD" {
        imad_alias(inst, text);
        // The carry-out predicate of `.WIDE` follows the destination.
        if let Some(o) = inst.explicit().find(|o| o.field == "CARRY_OUT") {
            if let OperandKind::Reg(r) = o.kind {
                text.ops.insert(1, format!("P{}", r.first));
            }
        }
    }
    if inst.named("IDP_2A").is_some() {
        let ua = inst.named("IDP_A_SIGNED") == Some(0);
        let b = if inst.named("IDP_B_SIGNED") == Some(0) { "U8" } else { "S8" };
        text.mnem = if inst.named("IDP_2A") == Some(1) {
            let hi = if inst.named("IDP_HI") == Some(1) { "HI" } else { "LO" };
            format!("IDP.2A.{hi}.{}.{b}", if ua { "U16" } else { "S16" })
        } else {
            format!("IDP.4A.{}.{b}", if ua { "U8" } else { "S8" })
        };
    }
    if name == "I2FP" {
        const DST: [&str; 8] = ["???0", "???1", "F32", "???3", "???4", "???5", "???6", "???7"];
        const SRC: [&str; 8] = ["???0", "???1", "???2", "???3", "U32", "S32", "???6", "???7"];
        const RND: [&str; 4] = ["", ".INVALID1", ".INVALID2", ".RZ"];
        let src = inst.named("I2FP_SRC").unwrap_or(0) as usize;
        text.mnem = format!(
            "I2FP.{}.{}{}",
            DST[inst.named("I2FP_DST").unwrap_or(0) as usize & 7],
            SRC[src & 7],
            RND[inst.named("I2FP_RND").unwrap_or(0) as usize & 3]
        );
        if src & 1 == 1 {
            if let Some(OperandKind::Imm(v)) = inst.explicit().last().map(|o| o.kind) {
                if let Some(o) = text.ops.last_mut() {
                    *o = hex(v as u32 as i32 as i64, true);
                }
            }
        }
    }
    if name == "MUFU" && has(&text.mnem, "F16") {
        let sel = ["", ".H1", ".INVALID2", ".INVALID3"][inst.named("SRC_HALF").unwrap_or(0) as usize & 3];
        if let Some(o) = text.ops.last_mut() {
            if o.contains('[') {
                let bar = o.ends_with('|');
                if bar {
                    o.pop();
                }
                if let Some(i) = o.rfind(']') {
                    if o[i + 1..].is_empty() || o[i + 1..].starts_with('.') {
                        o.truncate(i + 1);
                        o.push_str(sel);
                    }
                }
                if bar {
                    o.push('|');
                }
            } else if is_reg_operand(o) || o.trim_start_matches(['-', '|']).starts_with("UR") {
                set_reg_suffix(o, sel);
            }
        }
    }
    if name == "ATOMS" && inst.named("CAS_SPIN") == Some(1) && has(&text.mnem, "CAST") && !has(&text.mnem, "SPIN") {
        text.mnem = text.mnem.replacen(".CAST", ".CAST.SPIN", 1);
    }
    if let Some(x) = inst.named("ADDR_SCALE").and_then(|v| [None, Some(".X4"), Some(".X8"), Some(".X16")][v as usize & 3]) {
        if let Some(op) = text.ops.iter_mut().find(|o| o.starts_with("[R") && !o.starts_with("[RZ")) {
            let end = 2 + op[2..].bytes().take_while(u8::is_ascii_digit).count();
            if end > 2 && !op[end..].starts_with(".X") {
                op.insert_str(end, x);
            }
        }
    }
    if name == "VOTE" && text.ops.len() == 3 && text.ops[0] == "RZ" {
        text.ops.remove(0);
    }
    // `PT` predicates after a register destination are not printed (not `VOTE`'s).
    if text.ops.len() >= 2 && is_reg_text(&text.ops[0]) && !matches!(name, "VOTE" | "VOTEU") {
        let mut i = 1;
        while i < text.ops.len() && is_pred_text(&text.ops[i]) {
            if text.ops[i] == "PT" || text.ops[i] == "UPT" {
                text.ops.remove(i);
            } else {
                i += 1;
            }
        }
    }
    if matches!(name, "LDG" | "LD" | "SUATOM" | "SULD" | "FOOTPRINT" | "SUQUERY" | "LOP3")
        && text.ops.len() >= 2
        && text.ops[0] == "PT"
        && is_reg_text(&text.ops[1])
    {
        text.ops.remove(0);
    }
    if name == "HFMA2" && text.ops.len() > 4 && text.ops.last().map(String::as_str) == Some("PT") {
        text.ops.pop();
    }
    // The trailing predicate of loads and matrix instructions: `PT` is not printed (the
    // sparse matrix forms print it).
    let sparse = matches!(name, "IMMA" | "HMMA") && has(&text.mnem, "SP");
    if matches!(name, "LD" | "LDG" | "IMMA" | "HMMA" | "DMMA" | "BMMA")
        && !sparse
        && text.ops.len() >= 3
        && text.ops.last().is_some_and(|o| o == "PT" || o == "UPT")
    {
        text.ops.pop();
    }
    if let Some(sel) = inst.named("BYTE_SEL") {
        if text.ops.len() == 3 {
            set_reg_suffix(&mut text.ops[1], ["", ".B1", ".B2", ".B3"][sel as usize & 3]);
        }
    }
    if matches!(name, "TEX" | "TLD" | "TLD4" | "TXD" | "TMML") {
        texture(inst, text);
    }
    // F2I of an F64 immediate names its source type.
    if inst.named("F2I_SRC") == Some(3) && !has(&text.mnem, "F64") && text.ops.len() == 2 && inst.explicit().any(|o| matches!(o.kind, OperandKind::FImm { .. })) {
        let mut parts: Vec<&str> = text.mnem.split('.').collect();
        let at = (1..parts.len()).find(|&i| matches!(parts[i], "CEIL" | "FLOOR" | "TRUNC" | "NTZ")).unwrap_or(parts.len());
        parts.insert(at, "F64");
        text.mnem = parts.join(".");
    }
    if let Some(v) = inst.named("F2FP_TYPE") {
        let ty = if has(&text.mnem, "RS") { ["", "???1", "???2", "???3"][v as usize & 3] } else { ["", "BF16", "", "INVALID3"][v as usize & 3] };
        let mut parts: Vec<&str> = text.mnem.split('.').filter(|p| !matches!(*p, "BF16" | "INVALID3" | "???1" | "???2" | "???3")).collect();
        if !ty.is_empty() {
            let at = parts.iter().rposition(|p| matches!(*p, "F2FP" | "SATFINITE" | "RELU")).map_or(parts.len(), |i| i + 1);
            parts.insert(at, ty);
        }
        text.mnem = parts.join(".");
    }

    if name == "MUFU" {
        const OPS: [&str; 16] = [
            "COS", "SIN", "EX2", "LG2", "RCP", "RSQ", "RCP64H", "RSQ64H", "SQRT", "TANH", "INVALID10", "INVALID11",
            "INVALID12", "INVALID13", "INVALID14", "INVALID15",
        ];
        let f16 = has(&text.mnem, "F16");
        let v = inst.named("MUFU_OP").unwrap_or(0) as usize & 15;
        let op = match v {
            6 | 7 if f16 => ["INVALID6", "INVALID7"][v - 6],
            _ => OPS[v],
        };
        let mut parts: Vec<&str> = text.mnem.split('.').collect();
        if parts.len() >= 2 && parts[1] != "F16" {
            parts[1] = op;
            text.mnem = parts.join(".");
        }
    }
}

/// nvdisasm's names of plain `IMAD d, a, b, c` cases: `.MOV` (a zero product, or `b` = 1 with
/// `c` = RZ; not with a uniform `c`), `.IADD` (`b` = 1), `.SHL` (`b` a power of two but 0x10000,
/// `c` = RZ).
fn imad_alias(inst: &Inst, text: &mut Text) {
    for a in ["MOV", "IADD", "SHL"] {
        let parts: Vec<&str> = text.mnem.split('.').collect();
        if let Some(k) = parts.iter().skip(1).position(|x| *x == a) {
            let mut p = parts.clone();
            p.remove(k + 1);
            text.mnem = p.join(".");
        }
    }
    if ["WIDE", "HI", "X"].iter().any(|s| has(&text.mnem, s)) {
        return;
    }
    let ops: Vec<&Operand> = inst.explicit().collect();
    if ops.len() < 4 {
        return;
    }
    let rz = |o: &Operand| matches!(o.kind, OperandKind::Special { reg: SpecialReg::Rz, .. });
    let imm = match ops[2].kind {
        OperandKind::Imm(v) if (0..=u32::MAX as i64).contains(&v) => Some(v as u64),
        _ => None,
    };
    let (a, b, c) = (ops[1], ops[2], ops[3]);
    let c_ur = matches!(c.kind, OperandKind::Reg(r) if r.class == RegClass::Ur) || matches!(c.kind, OperandKind::Special { reg: SpecialReg::Urz, .. });
    let alias = if c_ur {
        None
    } else if rz(a) || rz(b) || imm == Some(0) || (imm == Some(1) && rz(c)) {
        Some(".MOV")
    } else if imm == Some(1) {
        Some(".IADD")
    } else if rz(c) && imm.is_some_and(|v| v.is_power_of_two() && v != 0x1_0000) {
        Some(".SHL")
    } else {
        None
    };
    if let Some(s) = alias {
        text.mnem.insert_str(4, s);
    }
}

/// sm50 texture instructions whose reuse flags print as a phase suffix.
const PHASE: [&str; 11] = ["TEX", "TEXS", "TLD", "TLD4", "TLD4S", "TLDS", "TMML", "TXA", "TXD", "TXQ", "STP"];

/// sm50 conversions, spelled from the model's `CVT_*` fields (types, rounding, selector, source).
fn conversion(inst: &Inst, text: &mut Text) {
    const FSRC: [&str; 4] = ["INVALIDFPSRC0", "F16", "F32", "F64"];
    const FDST: [&str; 4] = ["INVALIDFPDEST0", "F16", "F32", "F64"];
    const BSEL: [&str; 4] = ["", ".B1", ".B2", ".B3"];
    const HSEL: [&str; 4] = ["", ".INVALIDSIZE1", ".H1", ".INVALIDSIZE3"];
    let g = |n: &str| inst.named(n).unwrap_or(0);
    let int_type = |size: u64, signed: u64| format!("{}{}", if signed == 1 { 'S' } else { 'U' }, [8, 16, 32, 64][size as usize & 3]);
    let name = inst.name;
    let (dsz, dsg, ssz, ssg) = (g("CVT_DST") & 3, g("CVT_DST") >> 2, g("CVT_SRC") & 3, g("CVT_SRC") >> 2);
    let (rnd, s) = (g("CVT_RND") as usize & 3, g("CVT_SEL") as usize & 3);
    let mut m = String::from(name);
    if matches!(name, "F2F" | "F2I") && g("CVT_FTZ") == 1 {
        m.push_str(".FTZ");
    }
    let (sel, space) = match name {
        "F2F" => {
            m.push_str(&format!(".{}.{}", FDST[dsz as usize], FSRC[ssz as usize]));
            if dsz == ssz {
                if g("CVT_RINT") == 1 {
                    m.push_str([".ROUND", ".FLOOR", ".CEIL", ".TRUNC"][rnd]);
                } else if rnd != 0 {
                    m.push_str(".PASS");
                }
            } else {
                m.push_str(["", ".RM", ".RP", ".RZ"][rnd]);
            }
            (if ssz == 1 && s & 1 == 1 { ".H1" } else { "" }, ssz == 1)
        }
        "F2I" => {
            if dsz == 0 {
                m.push_str(&format!(".INVALID{dsg}"));
            } else {
                m.push_str(&format!(".{}", int_type(dsz, dsg)));
            }
            m.push_str(&format!(".{}", FSRC[ssz as usize]));
            m.push_str(["", ".FLOOR", ".CEIL", ".TRUNC"][rnd]);
            (if s & 1 == 1 { ".H1" } else { "" }, true)
        }
        "I2F" => {
            m.push_str(&format!(".{}.{}", FSRC[dsz as usize], int_type(ssz, ssg)));
            m.push_str(["", ".RM", ".RP", ".RZ"][rnd]);
            (if ssz == 1 { HSEL[s] } else { BSEL[s] }, true)
        }
        _ => {
            if dsz == 3 {
                m.push_str(&format!(".???{}", 6 + dsg));
            } else {
                m.push_str(&format!(".{}", int_type(dsz, dsg)));
            }
            if ssz == 3 {
                m.push_str(&format!(".INVALID{}", 6 + ssg));
            } else {
                m.push_str(&format!(".{}", int_type(ssz, ssg)));
            }
            (if ssz == 1 { HSEL[s] } else { BSEL[s] }, true)
        }
    };
    if matches!(name, "F2F" | "I2I") && g("CVT_SAT") == 1 {
        m.push_str(".SAT");
    }
    let (neg, abs) = (g("CVT_NEG") == 1, g("CVT_ABS") == 1);
    let mut src = String::new();
    let reg = |r: u64| if r == 255 { "RZ".to_string() } else { format!("R{r}") };
    match g("CVT_KIND") {
        2 => {
            let v = g("CVT_IMM");
            if matches!(name, "F2F" | "F2I") {
                let (m19, sign) = (v & 0x7_ffff, v >> 19 & 1);
                match ssz {
                    3 => float::push_f64_bits(&mut src, (sign << 63) | (m19 << 44)),
                    1 => float::push_f16_bits(&mut src, (v & 0xffff) as u16),
                    _ => float::push_f32_bits(&mut src, ((sign << 31) | (m19 << 12)) as u32),
                }
            } else if v >= 0x8_0000 {
                src.push_str(&format!("-{:#x}", 0x10_0000 - v));
            } else {
                src.push_str(&format!("{v:#x}"));
            }
            if neg {
                src.push_str(".NEG");
            }
            if abs {
                src.push_str(".ABS");
            }
            src.push_str(sel);
        }
        k => {
            if neg {
                src.push('-');
            }
            if abs {
                src.push('|');
            }
            if k == 0 {
                src.push_str(&reg(g("CVT_RB")));
            } else {
                let off = g("CVT_OFF") << 2;
                src.push_str(&format!("c[{:#x}]{}", g("CVT_BANK"), if space { " " } else { "" }));
                if off >= 0x8000 {
                    src.push_str(&format!("[-{:#x}]", 0x1_0000 - off));
                } else {
                    src.push_str(&format!("[{off:#x}]"));
                }
            }
            src.push_str(sel);
            if abs {
                src.push('|');
            }
        }
    }
    let mut d = reg(g("CVT_RD"));
    if g("CVT_CC") == 1 {
        d.push_str(".CC");
    }
    text.mnem = m;
    text.ops = vec![d, src];
}

/// sm50 video instructions, spelled from the model's `V_*` fields.
fn video(inst: &Inst, text: &mut Text) {
    const MRG: [&str; 8] = [".MRG_16H", ".MRG_16L", ".MRG_8B0", ".MRG_8B2", ".ACC", ".MIN", ".MAX", ""];
    const CMP: [&str; 8] = [".F", ".LT", ".EQ", ".LE", ".GT", ".NE", ".GE", ".T"];
    const BOP: [&str; 4] = [".AND", ".OR", ".XOR", ".INVALIDBOP3"];
    const ASEL4: [&str; 16] = [
        ".0000", ".1111", ".2222", ".3333", "", ".4321", ".5432", ".6543", ".3201", ".3012", ".0213", ".3120", ".1230",
        ".2310", ".INVALIDASEL4E", ".INVALIDASEL4F",
    ];
    const BSEL4: [&str; 15] = [
        ".4444", ".5555", ".6666", ".7777", "", ".6543", ".5432", ".4321", ".4567", ".6745", ".5476", ".INVALIDBSEL4B",
        ".INVALIDBSEL4C", ".INVALIDBSEL4D", ".INVALIDBSEL4E",
    ];
    const RED: [&str; 4] = ["", ".ACC", ".INVALIDRED2", ".INVALIDRED3"];
    let g = |n: &str| inst.named(n).unwrap_or(0);
    let reg = |v: u64| if v == 255 { "RZ".to_string() } else { format!("R{v}") };
    let pred = |v: u64| if v == 7 { "PT".to_string() } else { format!("P{v}") };
    let name = inst.name;
    let op = g("V_OP");
    let bit = |k: u32| op >> (k - 53) & 1;
    let reuse = inst.control.map_or(0, |c| c.reuse);
    let dest = || {
        let mut d = reg(g("V_RD"));
        if g("V_CC") == 1 {
            d.push_str(".CC");
        }
        d
    };
    let mut ops: Vec<String> = Vec::new();
    let mut m = String::from(name);
    let mut slots = [false; 3];
    if name == "VABSDIFF4" {
        let (sa, sb) = (g("V_ASIGN"), g("V_BSIGN"));
        if g("V_ASEL") >> 2 & 1 == 1 {
            m.push_str(".SD");
        }
        if sa == 0 || sb == 0 {
            m.push_str(&format!(".{}8.{}8", if sa == 1 { 'S' } else { 'U' }, if sb == 1 { 'S' } else { 'U' }));
        }
        let mask = (g("V_MODE") & 3) | (g("V_ASEL") & 3) << 2;
        if g("V_BREG") == 1 {
            m.push_str(".SAT");
        }
        m.push_str(RED[(op & 3) as usize]);
        if mask == 0 {
            m.push_str(".???0");
        } else if mask != 15 {
            m.push('.');
            for (i, c) in "XYZW".chars().enumerate() {
                if mask >> i & 1 == 1 {
                    m.push(c);
                }
            }
        }
        ops.push(dest());
        ops.push(reg(g("V_RA")) + ASEL4[g("V_ASEL4") as usize & 15]);
        match BSEL4.get(g("V_BSEL") as usize) {
            Some(s) => {
                ops.push(reg(g("V_RB")) + s);
                slots[1] = true;
            }
            None => {
                let v = g("V_RB");
                ops.push(if sb == 1 && v >= 0x80 { format!("-{:#x}", 0x100 - v) } else { format!("{v:#x}") });
            }
        }
        ops.push(reg(g("V_RC")));
        slots[0] = true;
        slots[2] = true;
    } else {
        let shift = matches!(name, "VSHL" | "VSHR");
        let signed_imm = matches!(name, "VMNMX" | "VSET" | "VSETP" | "VABSDIFF");
        let imm_default = name != "VSETP";
        // Sources a and b and the type pair.
        let sel = |v: u64, signed: u64, inv: u64| -> (String, &'static str) {
            let s = if signed == 1 { 'S' } else { 'U' };
            match v {
                0 => (format!("{s}8"), ""),
                1 => (format!("{s}8"), ".B1"),
                2 => (format!("{s}8"), ".B2"),
                3 => (format!("{s}8"), ".B3"),
                4 => (format!("{s}16"), ""),
                5 => (format!("{s}16"), ".H1"),
                6 => (format!("{s}32"), ""),
                _ => (format!("INVALIDSEL{}", 6 + inv), ""),
            }
        };
        let (ta, xa) = sel(g("V_ASEL"), g("V_ASIGN"), g("V_ASIGN"));
        let breg = g("V_BREG") == 1;
        let bs = if shift { 0 } else { g("V_BSIGN") };
        let (tb, mut bop) = if breg {
            let (tb, xb) = sel(g("V_BSEL") & 7, bs, if shift { 1 } else { bs });
            (tb, reg(g("V_RB")) + xb)
        } else {
            let v = g("V_IMM");
            let s = if signed_imm && bs == 1 && v >= 0x8000 { format!("-{:#x}", 0x10000 - v) } else { format!("{v:#x}") };
            ((if bs == 1 { "S16" } else { "U16" }).to_string(), s)
        };
        let default = ta == "S32"
            && (if breg { tb == "S32" || (shift && tb == "U32") } else { imm_default && (tb == "S16" || (shift && tb == "U16")) });
        let ty = if default { String::new() } else { format!(".{ta}.{tb}") };
        let mut a = reg(g("V_RA")) + xa;
        slots = [true, breg, name != "VSETP"];
        let mode = op >> 3 & 3;
        match name {
            "VMAD" => {
                let mm = op & 3;
                m.push_str(&ty);
                if mm == 3 {
                    m.push_str(".PO");
                }
                m.push_str(["", ".SHR_7", ".SHR_15", ".INVALIDVMADSCALE3"][(g("V_MODE") & 3) as usize]);
                if bit(55) == 1 {
                    m.push_str(".SAT");
                }
                if mm == 2 {
                    a.insert(0, '-');
                }
                ops.push(dest());
                ops.push(a);
                ops.push(bop);
                ops.push(format!("{}{}", if mm == 1 { "-" } else { "" }, reg(g("V_RC"))));
            }
            "VSETP" => {
                let cmp = g("V_CMP_LO") | g("V_CC") << 2;
                m.push_str(CMP[cmp as usize]);
                m.push_str(&ty);
                m.push_str(BOP[g("V_BOP") as usize & 3]);
                ops.push(pred(g("V_PD")));
                ops.push(pred(g("V_PD2")));
                ops.push(a);
                ops.push(bop);
                ops.push(format!("{}{}", if g("V_NOT_PC") == 1 { "!" } else { "" }, pred(g("V_PC"))));
            }
            _ => {
                match name {
                    "VADD" => {
                        if bit(54) == 0 {
                            m.push_str(".UD");
                        }
                        m.push_str(&ty);
                        if mode == 3 {
                            m.push_str(".PO");
                        }
                        if mode == 2 {
                            a.insert(0, '-');
                        }
                        if mode == 1 {
                            bop.insert(0, '-');
                        }
                    }
                    "VMNMX" => {
                        if bit(54) == 0 {
                            m.push_str(".UD");
                        }
                        m.push_str(&ty);
                        if bit(56) == 1 {
                            m.push_str(".MX");
                        }
                    }
                    "VSET" => {
                        m.push_str(CMP[(op >> 1 & 7) as usize]);
                        m.push_str(&ty);
                    }
                    "VABSDIFF" => {
                        if bit(54) == 1 {
                            m.push_str(".SD");
                        }
                        m.push_str(&ty);
                    }
                    _ => {
                        if bit(54) == 0 {
                            m.push_str(".UD");
                        }
                        m.push_str(&ty);
                        if g("V_BSIGN") == 1 {
                            m.push_str(".W");
                        }
                    }
                }
                if name != "VSET" && bit(55) == 1 {
                    m.push_str(".SAT");
                }
                m.push_str(MRG[g("V_MODE") as usize & 7]);
                ops.push(dest());
                ops.push(a);
                ops.push(bop);
                ops.push(reg(g("V_RC")));
            }
        }
    }
    let first = if name == "VSETP" { 2 } else { 1 };
    for (k, on) in slots.iter().enumerate() {
        if *on && reuse >> k & 1 == 1 {
            if let Some(o) = ops.get_mut(first + k) {
                o.push_str(".reuse");
            }
        }
    }
    text.mnem = m;
    text.ops = ops;
}

/// sm50 surface instructions, spelled from the model's `S_*` fields.
fn surface(inst: &Inst, text: &mut Text) {
    const DIM: [&str; 8] = ["1D", "1D_BUFFER", "1D_ARRAY", "2D", "2D_ARRAY", "3D", "INVALIDSURFACEDIM6", "INVALIDSURFACEDIM7"];
    const SIZE: [&str; 8] = ["U8", "S8", "U16", "S16", "", "64", "128", "INVALIDSIZE7"];
    const CLAMP: [&str; 4] = ["IGN", "", "TRAP", "INVALIDSURFACECLAMP3"];
    const ATOM_OP: [&str; 9] = ["ADD", "MIN", "MAX", "INC", "DEC", "AND", "OR", "XOR", "EXCH"];
    const ATOM_TYPE: [&str; 8] = ["", "S32", "U64", "F32.FTZ.RN", "INVALIDATOMICSIZE4", "S64", "SD32", "SD64"];
    let g = |n: &str| inst.named(n).unwrap_or(0);
    let reg = |v: u64| if v == 255 { "RZ".to_string() } else { format!("R{v}") };
    let push = |m: &mut String, s: &str| {
        if !s.is_empty() {
            m.push('.');
            m.push_str(s);
        }
    };
    let mut m = String::new();
    let ops = match g("S_OPC") {
        0x1d6 if g("S_SUB") < 3 => {
            let sub = g("S_SUB");
            let p = g("S_MODE") == 0;
            m.push_str(["SULD", "SUST", "SURED"][sub as usize]);
            m.push_str(if p { ".P" } else { ".D" });
            if !p && g("S_BA") == 1 {
                m.push_str(".BA");
            }
            push(&mut m, DIM[g("S_DIM") as usize & 7]);
            if sub == 2 {
                push(&mut m, ATOM_OP[g("S_CACHE") as usize & 7]);
                if !p {
                    push(&mut m, ATOM_TYPE[g("S_SIZE") as usize & 7]);
                }
            } else {
                let cache = if sub == 0 { ["", "CG", "CI", "CV"] } else { ["", "CG", "CS", "WT"] };
                push(&mut m, cache[g("S_CACHE") as usize & 3]);
                if p {
                    let mask = g("S_SIZE");
                    if mask == 0 {
                        m.push_str(".???0");
                    } else if mask != 15 {
                        m.push('.');
                        for (i, c) in "RGBA".chars().enumerate() {
                            if mask >> i & 1 == 1 {
                                m.push(c);
                            }
                        }
                    }
                } else {
                    push(&mut m, SIZE[g("S_SIZE") as usize & 7]);
                }
            }
            push(&mut m, CLAMP[g("S_CLAMP") as usize & 3]);
            let last = if g("S_IMMSEL") == 1 { format!("{:#x}", g("S_IMM")) } else { reg(g("S_RC")) };
            let a = format!("[{}]", reg(g("S_RA")));
            if sub == 0 {
                vec![reg(g("S_RD")), a, last]
            } else {
                vec![a, reg(g("S_RD")), last]
            }
        }
        0x1d4 | 0x1d5 => {
            let gg = g("S_G") == 1;
            let p = gg && g("S_MODE") == 0;
            m.push_str(if p { "SUATOM.P" } else { "SUATOM.D" });
            if !p && g("S_BA2") == 1 {
                m.push_str(".BA");
            }
            push(&mut m, DIM[g("S_DIM") as usize & 7]);
            let op = g("S_AOP");
            if g("S_OPC") == 0x1d5 {
                if op < if p { 1 } else { 2 } {
                    m.push_str(".CAS");
                } else {
                    m.push_str(&format!(".???{op}"));
                }
            } else {
                match ATOM_OP.get(op as usize) {
                    Some(s) => push(&mut m, s),
                    None => m.push_str(&format!(".INVALIDATOMSOP{op}")),
                }
            }
            if !p {
                push(&mut m, ATOM_TYPE[(if gg { g("S_TYPE_G") } else { g("S_TYPE_D") }) as usize & 7]);
            }
            push(&mut m, CLAMP[g("S_CLAMP") as usize & 3]);
            let reg_c = gg && !(p && g("S_IMMSEL") == 1);
            let last = if reg_c { reg(g("S_RC")) } else { format!("{:#x}", g("S_IMM")) };
            vec![reg(g("S_RD")), format!("[{}]", reg(g("S_RA"))), reg(g("S_RB")), last]
        }
        _ => return,
    };
    text.mnem = m;
    text.ops = ops;
}

/// sm50 `IMADSP`, spelled from the model's `M_*` fields.
fn imadsp(inst: &Inst, text: &mut Text) {
    let g = |n: &str| inst.named(n).unwrap_or(0);
    let s = |x: u64| if x == 1 { 'S' } else { 'U' };
    let (sa, sb) = (g("M_SA"), g("M_SB"));
    let fa = ["32", "24", "16H0", "16H1"][g("M_FA") as usize & 3];
    let fb = ["24", "16H0"][g("M_FB") as usize & 1];
    let fc = ["32", "24", "16H0", "INVALID3"][g("M_FC") as usize & 3];
    let m = format!("IMADSP.{}{fa}.{}{fb}.{}{fc}", s(sa), s(sb), s(sa | sb));
    let reg = |v: u64| if v == 255 { "RZ".to_string() } else { format!("R{v}") };
    let mut d = reg(g("M_RD"));
    if g("M_CC") == 1 {
        d.push_str(".CC");
    }
    let cbuf = || {
        let off = g("M_OFF") << 2;
        if off >= 0x8000 {
            format!("c[{:#x}][-{:#x}]", g("M_BANK"), 0x1_0000 - off)
        } else {
            format!("c[{:#x}][{off:#x}]", g("M_BANK"))
        }
    };
    let (src_b, src_c) = match g("M_FORM") {
        f @ (0x34 | 0x35) => {
            let v = g("M_IMM") | (f & 1) << 19;
            let imm = if v >= 0x8_0000 { format!("-{:#x}", 0x10_0000 - v) } else { format!("{v:#x}") };
            (imm, reg(g("M_RC")))
        }
        0x4a => (cbuf(), reg(g("M_RC"))),
        0x52 => (reg(g("M_RC")), cbuf()),
        _ => (reg(g("M_RB")), reg(g("M_RC"))),
    };
    text.mnem = m;
    text.ops = vec![d, reg(g("M_RA")), src_b, src_c];
}

/// sm86 memory order and scope (`MEM_SEM`) in place of the template's suffixes.
fn semantics(name: &str, v: u64, mnem: &mut String) {

    let want = sem_spelling(name, v);
    let is_sem = |p: &str| matches!(p, "STRONG" | "CONSTANT" | "MMIO" | "CTA" | "SM" | "GPU" | "SYS" | "VC" | "PRIVATE");
    if want.is_empty() && !mnem.split('.').skip(1).any(is_sem) {
        return;
    }
    let parts: Vec<&str> = mnem.split('.').collect();
    let first = parts.iter().skip(1).position(|p| is_sem(p)).map(|i| i + 1);
    if first.is_none() && name.starts_with("SU") && !want.is_empty() {
        return;
    }
    let at = first.unwrap_or(parts.len());
    let mut m = String::new();
    for (i, p) in parts.iter().enumerate() {
        if i == at {
            m.push_str(want);
        }
        if i > 0 && is_sem(p) {
            continue;
        }
        if i > 0 {
            m.push('.');
        }
        m.push_str(p);
    }
    if at == parts.len() {
        m.push_str(want);
    }
    *mnem = m;
}

/// The eviction priority right after `.E` / `.BYPASS` (atomics: after the operation).
fn eviction_first(mnem: &mut String, skip: usize) {
    let ev = |p: &str| matches!(p, "EF" | "EL" | "EU" | "LU" | "NA");
    let mut parts: Vec<&str> = mnem.split('.').collect();
    let Some(i) = parts.iter().skip(1).position(|p| ev(p)).map(|i| i + 1) else { return };
    let e = parts.remove(i);
    let at = 1 + parts[1..].iter().take_while(|p| matches!(**p, "E" | "BYPASS") || p.starts_with("???")).count();
    parts.insert((at + skip).min(parts.len()), e);
    *mnem = parts.join(".");
}

/// Replaces the selector suffix of the register in operand `o` (after its `.reuse`) by `sel`.
fn set_reg_suffix(o: &mut String, sel: &str) {
    let b = o.as_bytes();
    let Some(start) = (0..b.len()).find(|&i| {
        let at_word = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'.' || b[i - 1] == b'_');
        let r = o[i..].strip_prefix("UR").or_else(|| o[i..].strip_prefix('R'));
        at_word && r.is_some_and(|r| r.starts_with('Z') || r.starts_with(|c: char| c.is_ascii_digit()))
    }) else {
        return;
    };
    let mut end = start + if o[start..].starts_with("UR") { 2 } else { 1 };
    end += o[end..].bytes().take_while(|c| c.is_ascii_digit() || *c == b'Z').count();
    if o[end..].starts_with(".reuse") {
        end += 6;
    }
    let tail = &o[end..];
    let old = ["B0", "B1", "B2", "B3", "H1", "H0", "INVALID2", "INVALID3"]
        .iter()
        .find(|s| tail.strip_prefix('.').is_some_and(|t| t.starts_with(*s) && !t[s.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')))
        .map(|s| s.len() + 1)
        .unwrap_or(0);
    o.replace_range(end..end + old, sel);
}

/// sm86 texture instructions: the PT predicate destination and the all-channel mask are not
/// printed; the F16 result (`TEX_F16`) and the eviction priority (`TEX_EVICT`) at their places.
fn texture(inst: &Inst, text: &mut Text) {
    let pd_pt = inst.explicit().next().is_some_and(|o| o.field == "PD" && matches!(o.kind, OperandKind::Special { reg: SpecialReg::Pt, .. }));
    if pd_pt && text.ops.first().map(String::as_str) == Some("PT") {
        text.ops.remove(0);
    }
    let is_dim = |s: &str| matches!(s, "1D" | "2D" | "3D" | "CUBE" | "ARRAY_1D" | "ARRAY_2D" | "ARRAY_3D" | "ARRAY_CUBE") || s.starts_with("INVALID");
    let n = text.ops.len();
    if n >= 2 && text.ops[n - 1] == "0xf" && is_dim(&text.ops[n - 2]) {
        text.ops.pop();
    }
    if inst.name == "TMML" {
        return;
    }
    let want: &[&str] = match inst.named("TEX_F16").unwrap_or(0) {
        0 => &[],
        1 => &["F16", "RN"],
        2 => &["F16", "RZ"],
        _ => &["INVALID3"],
    };
    let mut parts: Vec<&str> = text.mnem.split('.').collect();
    let mut ok = true;
    if want == ["INVALID3"] {
        let at: Vec<usize> = (1..parts.len()).filter(|&i| parts[i] == "INVALID3").collect();
        match at[..] {
            [] => {}
            [i] => {
                parts.remove(i);
            }
            _ => ok = false,
        }
    }
    if ok {
        let mut k = 1;
        while k < parts.len() {
            if matches!(parts[k], "F16" | "RN" | "RZ") {
                parts.remove(k);
            } else {
                k += 1;
            }
        }
        let at = 1 + parts[1..].iter().take_while(|p| matches!(**p, "SCR" | "R" | "G" | "A" | "B") || p.starts_with("???")).count();
        for (j, w) in want.iter().enumerate() {
            parts.insert(at + j, w);
        }
        text.mnem = parts.join(".");
    }
    const EVICT: [&str; 8] = ["EF", "", "EL", "LU", "EU", "NA", "INVALID6", "INVALID7"];
    let want = EVICT[inst.named("TEX_EVICT").unwrap_or(1) as usize & 7];
    let mut parts: Vec<&str> = text.mnem.split('.').collect();
    if want.starts_with("INVALID") {
        let at: Vec<usize> = (1..parts.len()).filter(|&i| parts[i] == want).collect();
        if at.len() != 1 {
            return;
        }
        parts.remove(at[0]);
    }
    let mut k = 1;
    while k < parts.len() {
        if matches!(parts[k], "EF" | "EL" | "LU" | "EU" | "NA") {
            parts.remove(k);
        } else {
            k += 1;
        }
    }
    if !want.is_empty() {
        let at = (1..parts.len()).find(|&i| matches!(parts[i], "MS" | "CL" | "NDV" | "NODEP")).unwrap_or(parts.len());
        parts.insert(at, want);
    }
    text.mnem = parts.join(".");
}

/// sm50 `BAR`, spelled from the model's `BAR_*` fields.
fn bar(inst: &Inst, text: &mut Text) {
    let g = |n: &str| inst.named(n).unwrap_or(0);
    let reg = |v: u64| if v == 255 { "RZ".to_string() } else { format!("R{v}") };
    let mode = g("BAR_MODE");
    if mode == 4 {
        text.mnem = "BAR.SYNCALL".into();
        text.ops.clear();
        return;
    }
    let mut m = String::from("BAR.");
    m.push_str(["SYNC", "ARV", "RED", "SCAN", "", "INVALIDBARMODE5", "INVALIDBARMODE6", "INVALIDBARMODE7"][mode as usize & 7]);
    if mode == 2 {
        m.push_str([".POPC", ".AND", ".OR", ".INVALIDBARMODE3"][g("BAR_RED") as usize & 3]);
    }
    let mut ops = vec![if g("BAR_A_IMM") == 1 { format!("{:#x}", g("BAR_A")) } else { reg(g("BAR_A")) }];
    if g("BAR_B_IMM") == 0 {
        ops.push(reg(g("BAR_B") & 0xff));
    } else if g("BAR_B") != 0 || mode == 1 {
        ops.push(format!("{:#x}", g("BAR_B")));
    }
    if mode == 2 || mode == 3 {
        let p = g("BAR_P");
        let mut s = String::new();
        if g("BAR_NOT_P") == 1 {
            s.push('!');
        }
        s.push_str(&if p == 7 { "PT".to_string() } else { format!("P{p}") });
        ops.push(s);
    }
    text.mnem = m;
    text.ops = ops;
}

/// sm50 texture operands: `TXQ`'s query, the bindless (`.B`) texture index, `TEXS` / `TLDS`
/// channels and second destination.
fn sm50_texture(inst: &Inst, text: &mut Text) {
    let name = inst.name;
    let bindless = has(&text.mnem, "B");
    match name {
        "TXQ" => {
            let q = inst.named("TEX_QUERY").unwrap_or(0);
            let s = match q {
                0 => "TEX_HEADER_DIMENSION".to_string(),
                1 => "TEX_HEADER_TEXTURE_TYPE".to_string(),
                2 => "TEX_HEADER_SAMPLER_POS".to_string(),
                8 => "TEX_SAMPLER_FILTER".to_string(),
                9 => "TEX_SAMPLER_LOD".to_string(),
                10 => "TEX_SAMPLER_WRAP".to_string(),
                11 => "TEX_SAMPLER_BORDER_COLOR".to_string(),
                _ => q.to_string(),
            };
            if let Some(o) = text.ops.get_mut(2) {
                *o = s;
            }
            if bindless {
                if let Some(o) = text.ops.get_mut(3) {
                    *o = "0x0".into();
                }
            }
        }
        "TLD" | "TXD" => {
            let dim = text.ops.iter().position(|o| {
                o.ends_with('D') && o.len() <= 10 && o.bytes().next().is_some_and(|b| b.is_ascii_digit() || b == b'A' || b == b'C')
                    || o.starts_with("CUBE")
                    || o.starts_with("ARRAY_")
            });
            if let Some(k) = dim.filter(|&k| k > 0 && text.ops[k - 1].starts_with("0x")) {
                if bindless {
                    text.ops[k - 1] = "0x0".into();
                } else if name == "TXD" {
                    text.ops[k - 1] = format!("{:#x}", inst.named("TEX_INDEX").unwrap_or(0));
                }
            }
        }
        "TEXS" | "TLDS" => {
            if let Some(k) = text.ops.iter().position(|o| o.starts_with("0x")) {
                if k >= 4 && text.ops[k - 1] == "RZ" {
                    text.ops.remove(k - 1);
                }
            }
            let narrow = ["R", "G", "B", "A", "RG", "RA", "GA", "BA"];
            let wide = ["RGB", "RGA", "RBA", "GBA", "RGBA", "INVALID5", "INVALID6", "INVALID7"];
            let table = if inst.named("TEX_RB") == Some(255) { narrow } else { wide };
            if let Some(o) = text.ops.last_mut() {
                *o = table[inst.named("TEX_CHANNELS").unwrap_or(0) as usize & 7].to_string();
            }
        }
        _ => {}
    }
}

const SWZ: [&str; 8] = ["", ".F32", ".H0_H0", ".H1_H1", ".H0_NH1", ".INVALID5", ".INVALID6", ".INVALID7"];

fn is_reg_operand(o: &str) -> bool {
    let s = o.trim_start_matches(['-', '|']);
    s.starts_with('R') && s[1..].starts_with(|c: char| c.is_ascii_digit() || c == 'Z')
}

fn set_swizzle(o: &mut String, s: &str) {
    for old in SWZ.iter().skip(1) {
        if o.ends_with(old) {
            o.truncate(o.len() - old.len());
            break;
        }
    }
    o.push_str(s);
}

fn remove_suffix(m: &mut String, s: &str) {
    let parts: Vec<&str> = m.split('.').collect();
    if let Some(k) = parts.iter().skip(1).position(|x| *x == s) {
        let mut p = parts.clone();
        p.remove(k + 1);
        *m = p.join(".");
    }
}

/// sm86 packed-half instructions: `.MMA` / `.BF16_V2` / `.F32`, swizzles, `HADD2`'s `|a|`,
/// `HMUL2`'s FMZ+FTZ, from the model's `H_*` fields.
fn half(inst: &Inst, form: &NvForm, t: &mut Text) {
    let g = |n: &str| inst.named(n).unwrap_or(0);
    let name = inst.name;
    let first = if name == "HSETP2" { 2 } else { 1 };
    let mma = name == "HFMA2" && g("H_MMA") == 1;
    if mma && has(&t.mnem, "RELU") && !t.ops.last().is_some_and(|o| o.trim_start_matches('!').starts_with('P')) {
        let p = g("H_RELU_P");
        let not = if g("H_RELU_NOT") == 1 { "!" } else { "" };
        t.ops.push(if p == 7 { format!("{not}PT") } else { format!("{not}P{p}") });
    }
    if name == "HFMA2" {
        remove_suffix(&mut t.mnem, "MMA");
        remove_suffix(&mut t.mnem, "BF16_V2");
        let m = if mma {
            ".MMA"
        } else if g("H_BF16") == 1 {
            ".BF16_V2"
        } else {
            ""
        };
        t.mnem.insert_str(name.len().min(t.mnem.len()), m);
    }
    if name == "HMNMX2" {
        remove_suffix(&mut t.mnem, "BF16_V2");
        if g("H_BF16") == 1 {
            t.mnem.insert_str(name.len().min(t.mnem.len()), ".BF16_V2");
        }
    }
    match name {
        "HADD2" => {
            if let Some(o) = t.ops.get_mut(1) {
                set_abs(o, g("H_ABS_A") == 1 && g("H_F32") == 0);
            }
        }
        "HMUL2" => {
            t.mnem = t.mnem.replace(".FMZ.FTZ", ".INVALID3").replace(".FTZ.FMZ", ".INVALID3");
        }
        "HFMA2" if !mma => {
            remove_suffix(&mut t.mnem, "F32");
            if g("H_F32") == 1 {
                let at = if has(&t.mnem, "BF16_V2") { name.len() + 8 } else { name.len() };
                t.mnem.insert_str(at.min(t.mnem.len()), ".F32");
            }
            let reg32 = form.fields.iter().any(|f| f.kind == NvKind::Reg && f.ranges().first().is_some_and(|r| r.0 == 32));
            for k in 1..t.ops.len().min(5) {
                let o = &mut t.ops[k];
                let ureg = o.trim_start_matches(['-', '|']).starts_with("UR");
                if !ureg && !is_reg_operand(o) {
                    continue;
                }
                let hi = if k == 2 { g("H_SWZ_B_HI") << 2 } else { 0 };
                let v = match k {
                    1 => g("H_SWZ_A"),
                    _ if ureg || (k == 2 && reg32) => g("H_SWZ_B") | hi,
                    _ => g("H_SWZ_C") | hi,
                };
                if ureg && o.ends_with('|') {
                    o.pop();
                    set_swizzle(o, SWZ[v as usize & 7]);
                    o.push('|');
                } else {
                    set_swizzle(o, SWZ[v as usize & 7]);
                }
            }
            return;
        }
        _ => {}
    }
    if g("H_FORM") != 1 {
        return;
    }
    let mut sw = vec![g("H_SWZ_A"), g("H_SWZ_B")];
    if name == "HFMA2" {
        sw.push(g("H_SWZ_C"));
    }
    for (k, v) in sw.into_iter().enumerate() {
        if let Some(o) = t.ops.get_mut(first + k) {
            if !is_reg_operand(o) {
                return;
            }
            set_swizzle(o, if mma { "" } else { SWZ[v as usize & 7] });
        }
    }
}

/// Sets or clears the `|..|` around the register of operand `o`.
fn set_abs(o: &mut String, abs: bool) {
    let neg = o.starts_with('-');
    let rest = o.trim_start_matches('-');
    let had = rest.starts_with('|');
    if had == abs || !is_reg_operand(o) {
        return;
    }
    let start = usize::from(neg);
    if abs {
        let reg_end = start + 1 + o[start + 1..].find(|c: char| !(c.is_ascii_digit() || c == 'Z')).unwrap_or(o.len() - start - 1);
        o.insert(reg_end, '|');
        o.insert(start, '|');
    } else {
        o.remove(start);
        if let Some(i) = o.find('|') {
            o.remove(i);
        }
    }
}

/// sm86 `I2F`: types of the 32-bit-or-narrower forms, the source byte / half, signed 32-bit
/// immediates (from the model's `I2F_*` fields).
fn i2f(inst: &Inst, t: &mut Text) {
    let g = |n: &str| inst.named(n).unwrap_or(0);
    if g("I2F_FORM") == 0x106 {
        const DST: [&str; 4] = [".???0", ".F16", "", ".???3"];
        const SRC: [&str; 8] = [".U8", ".S8", ".U16", ".S16", ".U32", "", ".U32", ""];
        const RND: [&str; 4] = ["", ".RM", ".RP", ".RZ"];
        t.mnem = format!("I2F{}{}{}", DST[g("I2F_DST") as usize & 3], SRC[g("I2F_SRC") as usize & 7], RND[g("I2F_RND") as usize & 3]);
    }
    let v = g("SRC_SEL") as usize & 3;
    let sel = if has(&t.mnem, "S8") || has(&t.mnem, "U8") {
        Some(["", ".B1", ".B2", ".B3"][v])
    } else if has(&t.mnem, "S16") || has(&t.mnem, "U16") {
        Some(["", ".H1", ".INVALID2", ".INVALID3"][v])
    } else {
        None
    };
    let signed_src = !(has(&t.mnem, "U8") || has(&t.mnem, "U16") || has(&t.mnem, "U32") || has(&t.mnem, "U64"));
    if let Some(o) = t.ops.last_mut() {
        if o.contains('[') {
            if let (Some(sel), Some(i)) = (sel, o.rfind(']')) {
                let tail = &o[i + 1..];
                if tail.is_empty() || tail.starts_with('.') {
                    o.truncate(i + 1);
                    o.push_str(sel);
                }
            }
        } else if let Some(sel) = sel {
            set_reg_suffix(o, sel);
        } else if signed_src {
            if let Some(v) = o.strip_prefix("0x").and_then(|h| u32::from_str_radix(h, 16).ok()) {
                if v >= 0x8000_0000 {
                    *o = format!("-{:#x}", (v as i32).unsigned_abs());
                }
            }
        }
    }
}

/// sm86 surface instructions and `ATOM`, the mnemonic from the model's `SU_*` fields.
fn surface86(inst: &Inst, t: &mut Text) {
    const DIM: [&str; 8] = ["1D", "1D_BUFFER", "1D_ARRAY", "2D", "2D_ARRAY", "3D", "INVALID6", "INVALID7"];
    const EVICT: [&str; 8] = ["EF", "", "EL", "LU", "EU", "NA", "INVALID6", "INVALID7"];
    const SIZE: [&str; 8] = ["U8", "S8", "U16", "S16", "", "64", "128", "INVALID7"];
    const CLAMP: [&str; 4] = ["IGN", "", "TRAP", "INVALID3"];
    const OPS: [&str; 16] = [
        "ADD", "MIN", "MAX", "INC", "DEC", "AND", "OR", "XOR", "EXCH", "INVALID9", "INVALID10", "INVALID11", "INVALID12",
        "INVALID13", "INVALID14", "INVALID15",
    ];
    const TYPE: [&str; 8] = ["", "S32", "U64", "F32.FTZ.RN", "F16x2.RN", "S64", "SD32", "SD64"];
    const TYPE_CAS: [&str; 8] = ["", "S32", "U64", "INVALID3", "INVALID4", "INVALID5", "INVALID6", "INVALID7"];
    const TYPE_ATOM: [&str; 16] = [
        "", "S32", "64", "F32.FTZ.RN", "F16x2.RN", "S64", "F64.RN", "INVALID7", "INVALID8", "INVALID9", "INVALID10",
        "INVALID11", "INVALID12", "INVALID13", "INVALID14", "INVALID15",
    ];
    const TYPE_ATOM_CAS: [&str; 16] = [
        "", "S32", "64", "INVALID3", "INVALID4", "INVALID5", "INVALID6", "INVALID7", "INVALID8", "INVALID9", "INVALID10",
        "INVALID11", "INVALID12", "INVALID13", "INVALID14", "INVALID15",
    ];
    let g = |n: &str| inst.named(n).unwrap_or(0) as usize;
    let name = inst.name;
    let push = |m: &mut String, s: &str| {
        if !s.is_empty() {
            m.push('.');
            m.push_str(s);
        }
    };
    let sem_of = |m: &mut String| m.push_str(sem_spelling(name, g("MEM_SEM") as u64));
    if name == "ATOM" {
        let parts: Vec<&str> = t.mnem.split('.').collect();
        let cas = parts.iter().any(|p| matches!(*p, "CAS" | "CAST"));
        let mut m = String::from("ATOM");
        if let Some(p) = parts.get(1).filter(|p| matches!(**p, "E" | "???0")) {
            push(&mut m, p);
        }
        let op = if cas { ["CAS", "CAST", "CAS", "CAST.SPIN"][g("SU_OP") & 3] } else { OPS[g("SU_OP") & 15] };
        push(&mut m, op);
        push(&mut m, EVICT[g("SU_EVICT") & 7]);
        push(&mut m, if cas { TYPE_ATOM_CAS } else { TYPE_ATOM }[g("SU_TYPE") & 15]);
        sem_of(&mut m);
        t.mnem = m;
        return;
    }
    let load_store = matches!(name, "SULD" | "SUST");
    let d = if load_store {
        match g("SU_OPC") {
            7 | 8 | 0xb | 0xc => false,
            9 | 0xa | 0xd | 0xe => true,
            _ => return,
        }
    } else {
        true
    };
    let mut m = String::from(name);
    m.push_str(if d { ".D" } else { ".P" });
    if d && g("SU_BA") == 1 {
        push(&mut m, "BA");
    }
    push(&mut m, DIM[g("SU_DIM") & 7]);
    if !load_store {
        let cas = t.mnem.split('.').any(|p| p == "CAS");
        let op = if cas {
            "CAS"
        } else if name == "SURED" {
            OPS[g("SU_OP") & 7]
        } else {
            OPS[g("SU_OP") & 15]
        };
        push(&mut m, op);
        push(&mut m, EVICT[g("SU_EVICT") & 7]);
        push(&mut m, if cas { TYPE_CAS } else { TYPE }[g("SU_TYPE") & 7]);
    } else {
        push(&mut m, EVICT[g("SU_EVICT") & 7]);
        if d {
            push(&mut m, SIZE[g("SU_TYPE") & 7]);
        }
    }
    sem_of(&mut m);
    if load_store && !d {
        match g("SU_MASK") {
            1 => push(&mut m, "R"),
            3 => push(&mut m, "RG"),
            15 => {}
            c => push(&mut m, &format!("INVALID{c}")),
        }
    }
    push(&mut m, CLAMP[g("SU_CLAMP") & 3]);
    t.mnem = m;
}

/// The memory order and scope suffixes of value `v` of `name`'s semantics field.
fn sem_spelling(name: &str, v: u64) -> &'static str {
    const SEM_LOAD: [&str; 16] = [
        "", ".CONSTANT.PRIVATE", ".CONSTANT.CTA", ".CONSTANT.CTA.PRIVATE", ".CONSTANT", ".STRONG.SM",
        ".STRONG.GPU.PRIVATE", ".STRONG.GPU", ".MMIO.GPU", ".CONSTANT.SM", ".STRONG.SYS",
        ".CONSTANT.SM.PRIVATE", ".MMIO.SYS", ".CONSTANT.VC", ".CONSTANT.VC.PRIVATE", ".CONSTANT.GPU",
    ];
    const SEM_STORE: [&str; 16] = [
        "", ".CONSTANT.PRIVATE", ".CONSTANT.CTA", ".CONSTANT.CTA.PRIVATE", ".STRONG.SM.PRIVATE",
        ".STRONG.SM", ".STRONG.GPU.PRIVATE", ".STRONG.GPU", ".MMIO.GPU", ".CONSTANT.SM", ".STRONG.SYS",
        ".CONSTANT.SM.PRIVATE", ".MMIO.SYS", ".CONSTANT.VC", ".CONSTANT.VC.PRIVATE", ".CONSTANT.GPU",
    ];
    const SEM_LDGSTS: [&str; 16] = [
        "", ".CONSTANT.PRIVATE", ".CONSTANT.CTA", ".CONSTANT.CTA.PRIVATE", ".CONSTANT", ".MMIO.CTA",
        ".GPU.PRIVATE", ".MMIO.CTA.PRIVATE", ".MMIO.SM", ".CONSTANT.SM", ".MMIO.VC", ".CONSTANT.SM.PRIVATE", ".MMIO.GPU",
        ".CONSTANT.VC", ".CONSTANT.VC.PRIVATE", ".CONSTANT.GPU",
    ];
    let table = match name {
        "LD" | "LDG" | "SULD" => &SEM_LOAD,
        "LDGSTS" => &SEM_LDGSTS,
        _ => &SEM_STORE,
    };
    table[v as usize & 15]
}
