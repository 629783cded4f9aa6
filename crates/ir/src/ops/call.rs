//! Calls. A call hands the caller's machine registers (`readreg`/`writereg`, the register file
//! every function of a module shares) and memory to the callee as they are, runs it to its
//! return for the lanes that called, and goes on with the registers and memory it left: it
//! has no operands and no result, and every register and all memory may change across it.
//! The callee is another function of the module, or an external symbol that a runner links by
//! giving the module a function of that name.

/// What a call runs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Callee {
    /// The function at this index of the module (the entry function is 0).
    Func(u32),
    /// A function the module does not define, by its symbol name.
    Symbol(String),
}

impl Callee {
    /// Text form: `#n` for a module function, the symbol in double quotes for an external one.
    pub fn text(&self) -> String {
        match self {
            Callee::Func(n) => format!("#{n}"),
            Callee::Symbol(s) => format!("\"{s}\""),
        }
    }
    /// Parse the text form.
    pub fn parse(s: &str) -> Option<Callee> {
        let s = s.trim();
        if let Some(n) = s.strip_prefix('#') {
            return n.parse().ok().map(Callee::Func);
        }
        let name = s.strip_prefix('"')?.strip_suffix('"')?;
        symbol_ok(name).then(|| Callee::Symbol(name.into()))
    }
}

/// Whether a symbol name can be a callee: not empty, printable, no quotes or spaces.
pub fn symbol_ok(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_graphic() && c != '"')
}
