//! Structurizer: a control-flow graph (the IR's blocks and terminators) to structured control
//! flow — nested selections and loops with `break` and `continue` of the innermost loop only —
//! the form SPIR-V (section 2.11, "Structured Control Flow") and MSL require.
//!
//! Steps:
//! 1. [`reducible`]: every cycle with more than one entry gets a dispatcher: the edges into its
//!    entries set a variable and go to one new header that branches on it, so the graph becomes
//!    reducible. Irreducible flow is never rejected.
//! 2. [`tree`]: the reducible graph to nested blocks and loops along its dominator tree (the
//!    construction of Ramsey, "Beyond Relooper", ICFP 2022), then to [`Stmt`]s: each block or
//!    loop a [`Stmt::Loop`], a branch that leaves several of them at once a variable and a
//!    `break` per level.
//! 3. [`lower`]: the statements to a block graph with SPIR-V's merge declarations
//!    ([`ScfGraph`]), which [`check()`] verifies against the structured control-flow rules.
//!
//! Control leaves block `a` for block `b` of the input exactly where [`Stmt::Edge`]`(a, b)`
//! stands, so an emitter resolves `b`'s phis there. [`walk`] runs the input graph and the
//! result side by side for tests.

mod graph;
pub mod check;
pub mod lower;
pub mod reducible;
pub mod tree;
pub mod walk;

pub use check::{check, CheckError};
pub use lower::{Action, Merge, ScfBlock, ScfGraph, ScfTerm};

use isabridge_ir::ir::{Function, Terminator};

/// How many statements may nest (loops, selections) before [`structurize`] gives up with
/// [`StructurizeError::TooDeep`] rather than exhaust the stack.
pub const MAX_DEPTH: usize = 2000;

/// How a node of the input graph ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Exit {
    /// Go to this node.
    Jump(u32),
    /// Go to the first node when the node's condition holds, else to the second.
    Branch(u32, u32),
    /// Leave the function.
    Return,
}

impl Exit {
    /// Successor nodes (a branch with equal targets has one).
    pub fn successors(self) -> Vec<u32> {
        match self {
            Exit::Jump(t) => vec![t],
            Exit::Branch(t, f) if t == f => vec![t],
            Exit::Branch(t, f) => vec![t, f],
            Exit::Return => vec![],
        }
    }
}

/// The structurizer's input: a control-flow graph over nodes `0..exits.len()`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cfg {
    /// The entry node.
    pub entry: u32,
    /// How each node ends.
    pub exits: Vec<Exit>,
}

impl Cfg {
    /// The graph of an IR function: node `i` is `Block(i)`. Blocks not in the layout return.
    /// `None` for a function without blocks.
    pub fn from_function(f: &Function) -> Option<Cfg> {
        let entry = f.entry()?;
        let mut exits = vec![Exit::Return; f.blocks.len()];
        for &b in &f.layout {
            exits[b.index()] = match &f.blocks[b].term {
                Terminator::Jump(t) => Exit::Jump(t.0),
                Terminator::Branch(_, t, e) => Exit::Branch(t.0, e.0),
                Terminator::Return(_) => Exit::Return,
            };
        }
        Some(Cfg { entry: entry.0, exits })
    }

    /// Successor lists.
    pub fn successors(&self) -> Vec<Vec<u32>> {
        self.exits.iter().map(|e| e.successors()).collect()
    }

    fn validate(&self) -> Result<(), StructurizeError> {
        let n = self.exits.len() as u32;
        if self.entry >= n {
            return Err(StructurizeError::BadEntry(self.entry));
        }
        for (i, e) in self.exits.iter().enumerate() {
            if let Some(&s) = e.successors().iter().find(|&&s| s >= n) {
                return Err(StructurizeError::BadSuccessor { node: i as u32, succ: s });
            }
        }
        Ok(())
    }
}

/// A variable the structurizer introduces (a function-local 32-bit integer that is 0 at entry).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Var(pub u32);

/// A selection condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cond {
    /// The branch condition of this input node (true selects the node's first target).
    Block(u32),
    /// The variable equals the constant.
    VarEq(Var, u32),
}

/// A structured statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    /// Run the instructions of this input node.
    Code(u32),
    /// Control leaves input node `.0` for input node `.1` (resolve `.1`'s phis here).
    Edge(u32, u32),
    /// Assign a constant to a structurizer variable.
    Set(Var, u32),
    /// Run the first list when the condition holds, else the second.
    If(Cond, Vec<Stmt>, Vec<Stmt>),
    /// Run the body again and again; reaching its end continues the loop.
    Loop(Vec<Stmt>),
    /// Leave the innermost loop.
    Break,
    /// Start the innermost loop's next iteration.
    Continue,
    /// Leave the function through this input node's return.
    Return(u32),
}

/// A structured function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Structured {
    /// The statements.
    pub body: Vec<Stmt>,
    /// Number of structurizer variables ([`Var`]`(0..vars)`).
    pub vars: u32,
    /// Irreducible regions given a dispatcher.
    pub dispatchers: u32,
}

/// Why a graph could not be structured.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StructurizeError {
    /// The entry node is not a node of the graph.
    #[error("entry node {0} is out of range")]
    BadEntry(u32),
    /// A successor is not a node of the graph.
    #[error("successor {succ} of node {node} is out of range")]
    BadSuccessor {
        /// The node.
        node: u32,
        /// Its successor.
        succ: u32,
    },
    /// The statements nest deeper than [`MAX_DEPTH`].
    #[error("control flow nests deeper than {MAX_DEPTH} levels")]
    TooDeep,
    /// The structurizer broke one of its own invariants (a bug; never a silent wrong result).
    #[error("structurizer invariant broken: {0}")]
    Internal(String),
}

/// Structure a control-flow graph. In debug builds the result is lowered and checked
/// ([`check()`]); a failure there is [`StructurizeError::Internal`].
pub fn structurize(cfg: &Cfg) -> Result<Structured, StructurizeError> {
    cfg.validate()?;
    let work = reducible::make_reducible(cfg)?;
    let s = tree::build(&work)?;
    if cfg!(debug_assertions) {
        let g = s.lower()?;
        check(&g).map_err(|e| StructurizeError::Internal(e.to_string()))?;
    }
    Ok(s)
}

/// Structure an IR function's control flow (nodes are block indices). `None` for a function
/// without blocks.
pub fn structurize_function(f: &Function) -> Option<Result<Structured, StructurizeError>> {
    Cfg::from_function(f).map(|c| structurize(&c))
}
