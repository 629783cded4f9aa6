//! Modules: functions that call each other ([`crate::ops::call`]). Function 0 is the entry;
//! a call names another function by its index. Every function of a module shares one register
//! file, so they declare the same machine registers (types and uniformity, in order), run
//! under the same execution model and wave size, and a function that is called says so
//! ([`Function::callee`]).

use crate::ir::Function;
use crate::ops::call::Callee;
use crate::ops::Op;
use crate::text::{parse, print, ParseError, ParseErrorKind};
use crate::validate::{validate, ValidateError};

/// Functions that call each other; the first is the entry.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Module {
    /// The functions, entry first.
    pub functions: Vec<Function>,
}

impl Module {
    /// A module of one function.
    pub fn new(entry: Function) -> Module {
        Module { functions: vec![entry] }
    }
    /// The index of the function with this name, if there is one.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.functions.iter().position(|f| f.name == name)
    }
}

/// Check every function and every call between them: the callee exists, is marked as called,
/// and shares the caller's registers, execution model and wave size.
pub fn validate_module(fs: &[Function]) -> Result<(), ValidateError> {
    for (i, f) in fs.iter().enumerate() {
        validate(f).map_err(|e| if i == 0 { e } else { ValidateError::InFunction(i, Box::new(e)) })?;
    }
    let same_regs = |a: &Function, b: &Function| {
        a.regs.len() == b.regs.len() && a.regs.iter().zip(&b.regs).all(|(x, y)| x.ty == y.ty && x.uniform == y.uniform)
    };
    for (i, f) in fs.iter().enumerate() {
        for &b in &f.layout {
            for &v in &f.blocks[b].insts {
                let err = |why| Err(ValidateError::Call { func: i, inst: v, why });
                let g = match &f.insts[v].op {
                    Op::Call(Callee::Func(n)) => match fs.get(*n as usize) {
                        Some(g) => g,
                        None => return err("calls a function the module does not have"),
                    },
                    // A symbol is external unless a function of the module has its name.
                    Op::Call(Callee::Symbol(s)) => match fs.iter().find(|g| g.name == *s) {
                        Some(g) => g,
                        None => continue,
                    },
                    _ => continue,
                };
                if !g.callee {
                    return err("calls a function not marked as called");
                }
                if !same_regs(f, g) {
                    return err("the callee declares other machine registers than the caller");
                }
                if f.model != g.model || f.wave_size != g.wave_size {
                    return err("the callee runs under another execution model or wave size");
                }
            }
        }
    }
    Ok(())
}

/// Print a module: its functions in order.
pub fn print_module(m: &Module) -> String {
    m.functions.iter().map(print).collect::<Vec<_>>().join("\n")
}

/// Parse a module: functions one after another, each starting with its `func @name {` line
/// (the result is not validated; see [`validate_module`]).
pub fn parse_module(text: &str) -> Result<Module, ParseError> {
    let mut starts: Vec<usize> = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        if l.trim_start().starts_with("func @") {
            starts.push(i);
        }
    }
    if starts.is_empty() {
        return Err(ParseError { line: 1, kind: ParseErrorKind::Header });
    }
    if lines[..starts[0]].iter().any(|l| !l.split("//").next().unwrap_or("").trim().is_empty()) {
        return Err(ParseError { line: 1, kind: ParseErrorKind::Header });
    }
    let mut m = Module::default();
    for (k, &s) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(lines.len());
        let f = parse(&lines[s..end].join("\n")).map_err(|e| ParseError { line: e.line + s, kind: e.kind })?;
        m.functions.push(f);
    }
    Ok(m)
}
