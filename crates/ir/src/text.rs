//! The text form: a printer and a parser that round-trip every function.
//!
//! ```text
//! func @name {
//!   reg $0: f32
//! bb0:
//!   %0: i32 = param 0
//!   %1: uni f32 = const 0x3f800000
//!   %2: f32 = fadd.rn %0, %1
//!   %3: f32 = phi [bb0: %2], [bb1: %4]
//!   store.global %5, %2
//!   cbr %6, bb1, bb2
//! }
//! ```

use crate::ir::{Block, BlockData, Function, InstData, Reg, Terminator, Value};
use crate::ops::Op;
use crate::types::Type;
use std::collections::HashMap;
use std::fmt::Write;
use thiserror::Error;

/// Print a function. Values and blocks are numbered densely in layout order, so printing is
/// stable across passes that create and delete instructions, and parse-print is the identity.
pub fn print(f: &Function) -> String {
    let mut vnum: HashMap<Value, usize> = HashMap::new();
    let mut bnum: HashMap<Block, usize> = HashMap::new();
    for (i, &b) in f.layout.iter().enumerate() {
        bnum.insert(b, i);
        for &v in &f.blocks[b].insts {
            if f.insts[v].ty.is_some() {
                let n = vnum.len();
                vnum.entry(v).or_insert(n);
            }
        }
    }
    let mut extra = vnum.len();
    let mut vn = |v: Value| -> String {
        let n = *vnum.entry(v).or_insert_with(|| {
            extra += 1;
            extra - 1
        });
        format!("%{n}")
    };
    let bn = |b: Block| match bnum.get(&b) {
        Some(n) => format!("bb{n}"),
        None => format!("bb_deleted{}", b.0),
    };
    let mut s = String::new();
    let _ = writeln!(s, "func @{} {{", f.name);
    if f.model == crate::ir::ExecModel::Wave {
        let _ = writeln!(s, "  wave {}", f.wave_size);
    }
    if f.shared_bytes != 0 {
        let _ = writeln!(s, "  shared {}", f.shared_bytes);
    }
    if f.callee {
        s.push_str("  callee\n");
    }
    for (i, r) in f.regs.iter().enumerate() {
        let _ = write!(s, "  reg ${i}: {}{}", if r.uniform { "uni " } else { "" }, r.ty);
        if !r.name.is_empty() {
            let _ = write!(s, " {}", r.name);
        }
        s.push('\n');
    }
    for &b in &f.layout {
        let _ = writeln!(s, "{}:", bn(b));
        for &v in &f.blocks[b].insts {
            let inst = &f.insts[v];
            s.push_str("  ");
            if let Some(t) = inst.ty {
                let _ = write!(s, "{}: {}{} = ", vn(v), if inst.uniform { "uni " } else { "" }, t);
            }
            s.push_str(&inst.op.mnemonic());
            let args: Vec<String> = inst.args.iter().map(|a| vn(*a)).collect();
            if let Op::Phi(bs) = &inst.op {
                let parts: Vec<String> = bs.iter().zip(&args).map(|(b, a)| format!("[{}: {}]", bn(*b), a)).collect();
                let _ = write!(s, " {}", parts.join(", "));
            } else if matches!(inst.op, Op::WriteReg(_)) {
                let _ = write!(s, ", {}", args.join(", "));
            } else if !args.is_empty() {
                let _ = write!(s, " {}", args.join(", "));
            }
            s.push('\n');
        }
        let _ = match &f.blocks[b].term {
            Terminator::Jump(t) => writeln!(s, "  br {}", bn(*t)),
            Terminator::Branch(c, t, e) => writeln!(s, "  cbr {}, {}, {}", vn(*c), bn(*t), bn(*e)),
            Terminator::Return(v) if v.is_empty() => writeln!(s, "  ret"),
            Terminator::Return(v) => {
                let vs: Vec<String> = v.iter().map(|x| vn(*x)).collect();
                writeln!(s, "  ret {}", vs.join(", "))
            }
        };
    }
    s.push_str("}\n");
    s
}

/// Why text failed to parse.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ParseErrorKind {
    /// Missing `func @name {` header or closing brace.
    #[error("expected `func @name {{` ... `}}`")]
    Header,
    /// A line that fits no statement form.
    #[error("malformed statement")]
    Malformed,
    /// Unknown mnemonic.
    #[error("unknown operation `{0}`")]
    UnknownOp(String),
    /// Unknown type name.
    #[error("unknown type `{0}`")]
    UnknownType(String),
    /// Reference to a value never defined.
    #[error("undefined value `{0}`")]
    UndefinedValue(String),
    /// A value defined twice.
    #[error("value `{0}` defined twice")]
    DuplicateValue(String),
    /// Reference to an undefined block.
    #[error("undefined block `{0}`")]
    UndefinedBlock(String),
    /// A block label used twice.
    #[error("block `{0}` defined twice")]
    DuplicateBlock(String),
    /// An instruction outside any block.
    #[error("instruction before the first block label")]
    NoBlock,
    /// Bad number.
    #[error("bad number `{0}`")]
    Number(String),
    /// Result type given to an op without a result, or missing on one with a result.
    #[error("result presence does not match the operation")]
    Result,
    /// A block without a terminator.
    #[error("block `{0}` has no terminator")]
    NoTerminator(String),
}

/// A parse error with its 1-based line.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("line {line}: {kind}")]
pub struct ParseError {
    /// Line number.
    pub line: usize,
    /// What went wrong.
    pub kind: ParseErrorKind,
}

fn num(s: &str) -> Result<u64, ParseErrorKind> {
    let r = if let Some(h) = s.strip_prefix("0x") { u64::from_str_radix(h, 16) } else { s.parse() };
    r.map_err(|_| ParseErrorKind::Number(s.into()))
}

/// Parse a function from its text form (the result is not validated; see [`crate::validate`]).
pub fn parse(text: &str) -> Result<Function, ParseError> {
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.split("//").next().unwrap_or("").trim()))
        .filter(|(_, l)| !l.is_empty())
        .collect();
    let err = |line: usize, kind| ParseError { line, kind };
    let Some(&(l0, head)) = lines.first() else { return Err(err(1, ParseErrorKind::Header)) };
    let name = head
        .strip_prefix("func @")
        .and_then(|r| r.strip_suffix('{'))
        .map(str::trim)
        .ok_or(err(l0, ParseErrorKind::Header))?;
    let Some(&(ll, last)) = lines.last() else { return Err(err(1, ParseErrorKind::Header)) };
    if last != "}" || lines.len() < 2 {
        return Err(err(ll, ParseErrorKind::Header));
    }
    let body = &lines[1..lines.len() - 1];
    let mut f = Function::new(name);
    // Pass 1: blocks and value definitions.
    let mut blocks: HashMap<String, Block> = HashMap::new();
    let mut values: HashMap<String, Value> = HashMap::new();
    for &(ln, l) in body {
        if let Some(lbl) = l.strip_suffix(':') {
            if blocks.contains_key(lbl) {
                return Err(err(ln, ParseErrorKind::DuplicateBlock(lbl.into())));
            }
            let b = f.blocks.push(BlockData { insts: vec![], term: Terminator::Return(vec![]) });
            f.layout.push(b);
            blocks.insert(lbl.into(), b);
        } else if l.starts_with('%') {
            let name = l.split(':').next().unwrap_or("").trim().to_string();
            if values.contains_key(&name) {
                return Err(err(ln, ParseErrorKind::DuplicateValue(name)));
            }
            let v = f.insts.push(InstData { op: Op::Undef, args: vec![], ty: None, uniform: false });
            values.insert(name, v);
        }
    }
    let val = |s: &str| values.get(s.trim()).copied().ok_or(ParseErrorKind::UndefinedValue(s.trim().into()));
    let blk = |s: &str| blocks.get(s.trim()).copied().ok_or(ParseErrorKind::UndefinedBlock(s.trim().into()));
    let mut cur: Option<Block> = None;
    let mut terminated = true;
    let mut cur_name = String::new();
    for &(ln, l) in body {
        let e = |k| err(ln, k);
        if let Some(lbl) = l.strip_suffix(':') {
            if !terminated {
                return Err(e(ParseErrorKind::NoTerminator(cur_name)));
            }
            cur = blocks.get(lbl).copied();
            cur_name = lbl.into();
            terminated = false;
            continue;
        }
        if let Some(r) = l.strip_prefix("reg $") {
            let (i, t) = r.split_once(':').ok_or(e(ParseErrorKind::Malformed))?;
            if num(i.trim()).map_err(e)? as usize != f.regs.len() {
                return Err(e(ParseErrorKind::Malformed));
            }
            let t = t.trim();
            let (uniform, t) = match t.strip_prefix("uni ") {
                Some(rest) => (true, rest.trim()),
                None => (false, t),
            };
            let (t, name) = t.split_once(' ').unwrap_or((t, ""));
            let ty = Type::parse(t).ok_or(e(ParseErrorKind::UnknownType(t.into())))?;
            f.add_reg(ty, uniform, name.trim());
            continue;
        }
        if let Some(n) = l.strip_prefix("wave ") {
            f.model = crate::ir::ExecModel::Wave;
            f.wave_size = num(n.trim()).map_err(e)? as u32;
            continue;
        }
        if l == "callee" {
            f.callee = true;
            continue;
        }
        if let Some(n) = l.strip_prefix("shared ") {
            f.shared_bytes = num(n.trim()).map_err(e)? as u32;
            continue;
        }
        let Some(b) = cur else { return Err(e(ParseErrorKind::NoBlock)) };
        if terminated {
            return Err(e(ParseErrorKind::Malformed));
        }
        // Terminators.
        let words: Vec<&str> = l.splitn(2, ' ').collect();
        match words[0] {
            "br" => {
                f.blocks[b].term = Terminator::Jump(blk(words.get(1).copied().unwrap_or("")).map_err(e)?);
                terminated = true;
                continue;
            }
            "cbr" => {
                let parts: Vec<&str> = words.get(1).copied().unwrap_or("").split(',').collect();
                if parts.len() != 3 {
                    return Err(e(ParseErrorKind::Malformed));
                }
                f.blocks[b].term =
                    Terminator::Branch(val(parts[0]).map_err(e)?, blk(parts[1]).map_err(e)?, blk(parts[2]).map_err(e)?);
                terminated = true;
                continue;
            }
            "ret" => {
                let mut vs = Vec::new();
                if let Some(rest) = words.get(1) {
                    for p in rest.split(',') {
                        vs.push(val(p).map_err(e)?);
                    }
                }
                f.blocks[b].term = Terminator::Return(vs);
                terminated = true;
                continue;
            }
            _ => {}
        }
        // Instructions: [%n: [uni] type =] mnemonic operands
        let (def, rhs) = match l.split_once('=') {
            Some((d, r)) if l.starts_with('%') => (Some(d.trim()), r.trim()),
            _ => (None, l),
        };
        let (v, ty, uniform) = match def {
            Some(d) => {
                let (n, t) = d.split_once(':').ok_or(e(ParseErrorKind::Malformed))?;
                let t = t.trim();
                let (uni, t) = match t.strip_prefix("uni ") {
                    Some(t) => (true, t.trim()),
                    None => (false, t),
                };
                let ty = Type::parse(t).ok_or(e(ParseErrorKind::UnknownType(t.into())))?;
                (Some(val(n).map_err(e)?), Some(ty), uni)
            }
            None => (None, None, false),
        };
        let (mn, ops) = match rhs.split_once(' ') {
            Some((m, o)) => (m, o.trim()),
            None => (rhs, ""),
        };
        let mut args = Vec::new();
        let op = match mn {
            "param" => Op::Param(num(ops).map_err(e)? as u32),
            "const" => Op::Const(num(ops).map_err(e)?),
            "call" => Op::Call(crate::ops::call::Callee::parse(ops).ok_or(e(ParseErrorKind::Malformed))?),
            "readreg" | "writereg" => {
                let (r, rest) = match ops.split_once(',') {
                    Some((r, rest)) => (r.trim(), Some(rest)),
                    None => (ops, None),
                };
                let r = Reg(num(r.strip_prefix('$').ok_or(e(ParseErrorKind::Malformed))?).map_err(e)? as u32);
                if mn == "readreg" {
                    if rest.is_some() {
                        return Err(e(ParseErrorKind::Malformed));
                    }
                    Op::ReadReg(r)
                } else {
                    args.push(val(rest.ok_or(e(ParseErrorKind::Malformed))?).map_err(e)?);
                    Op::WriteReg(r)
                }
            }
            "phi" => {
                let mut bs = Vec::new();
                for part in ops.split(']') {
                    let part = part.trim().trim_start_matches(',').trim();
                    if part.is_empty() {
                        continue;
                    }
                    let inner = part.strip_prefix('[').ok_or(e(ParseErrorKind::Malformed))?;
                    let (pb, pv) = inner.split_once(':').ok_or(e(ParseErrorKind::Malformed))?;
                    bs.push(blk(pb).map_err(e)?);
                    args.push(val(pv).map_err(e)?);
                }
                Op::Phi(bs)
            }
            _ => {
                let op = Op::parse_simple(mn).ok_or(e(ParseErrorKind::UnknownOp(mn.into())))?;
                if !ops.is_empty() {
                    for p in ops.split(',') {
                        args.push(val(p).map_err(e)?);
                    }
                }
                op
            }
        };
        let void = op.is_void();
        let inst = match (v, void) {
            (Some(v), false) => v,
            (None, true) => f.insts.push(InstData { op: Op::Undef, args: vec![], ty: None, uniform: false }),
            _ => return Err(e(ParseErrorKind::Result)),
        };
        f.insts[inst] = InstData { op, args, ty, uniform };
        f.blocks[b].insts.push(inst);
    }
    if !terminated {
        return Err(err(ll, ParseErrorKind::NoTerminator(cur_name)));
    }
    Ok(f)
}
