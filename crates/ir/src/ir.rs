//! The SSA IR: functions made of blocks and instructions stored in arenas, addressed by typed
//! handles. Every instruction produces at most one value, named by its own handle.

use crate::ops::Op;
use crate::types::Type;
use std::marker::PhantomData;

/// A typed index into an [`Arena`].
pub trait EntityRef: Copy + Eq {
    /// Build from an index.
    fn new(i: usize) -> Self;
    /// The index.
    fn index(self) -> usize;
}

macro_rules! entity {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);
        impl $name {
            /// The arena index.
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
        impl EntityRef for $name {
            fn new(i: usize) -> Self {
                $name(i as u32)
            }
            fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

entity!(
    /// An instruction and the value it defines.
    Value
);
entity!(
    /// A basic block.
    Block
);

/// A machine register of the pre-SSA form (index into [`Function::regs`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg(pub u32);

/// A vector of `T` addressed by handles `K`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arena<K, T> {
    items: Vec<T>,
    _k: PhantomData<K>,
}

impl<K: EntityRef, T> Default for Arena<K, T> {
    fn default() -> Self {
        Arena { items: Vec::new(), _k: PhantomData }
    }
}

impl<K: EntityRef, T> Arena<K, T> {
    /// Add an item, returning its handle.
    pub fn push(&mut self, t: T) -> K {
        self.items.push(t);
        K::new(self.items.len() - 1)
    }
    /// Number of items.
    pub fn len(&self) -> usize {
        self.items.len()
    }
    /// Whether the arena is empty.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    /// Item by handle, if it exists.
    pub fn get(&self, k: K) -> Option<&T> {
        self.items.get(k.index())
    }
    /// Make room for `n` more items.
    pub fn reserve(&mut self, n: usize) {
        self.items.reserve(n);
    }
    /// Iterate over (handle, item).
    pub fn iter(&self) -> impl Iterator<Item = (K, &T)> {
        self.items.iter().enumerate().map(|(i, t)| (K::new(i), t))
    }
}

impl<K: EntityRef, T> std::ops::Index<K> for Arena<K, T> {
    type Output = T;
    fn index(&self, k: K) -> &T {
        &self.items[k.index()]
    }
}

impl<K: EntityRef, T> std::ops::IndexMut<K> for Arena<K, T> {
    fn index_mut(&mut self, k: K) -> &mut T {
        &mut self.items[k.index()]
    }
}

/// One instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstData {
    /// The operation.
    pub op: Op,
    /// Operands.
    pub args: Vec<Value>,
    /// Result type (None for ops without a result).
    pub ty: Option<Type>,
    /// The result is the same on every lane of a wave.
    pub uniform: bool,
}

/// How a block ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Terminator {
    /// Unconditional branch.
    Jump(Block),
    /// Per-lane conditional branch on a b1 value: lanes where it is true go to the first block.
    Branch(Value, Block, Block),
    /// The lane finishes, producing these outputs.
    Return(Vec<Value>),
}

impl Terminator {
    /// Successor blocks.
    pub fn successors(&self) -> Vec<Block> {
        match self {
            Terminator::Jump(b) => vec![*b],
            Terminator::Branch(_, t, f) => {
                if t == f {
                    vec![*t]
                } else {
                    vec![*t, *f]
                }
            }
            Terminator::Return(_) => vec![],
        }
    }
    /// Successor blocks without allocating: the blocks of [`Terminator::successors`], in order.
    pub fn successor_iter(&self) -> impl Iterator<Item = Block> {
        let (pair, n) = match *self {
            Terminator::Jump(b) => ([b, b], 1),
            Terminator::Branch(_, t, f) => ([t, f], if t == f { 1 } else { 2 }),
            Terminator::Return(_) => ([Block(0), Block(0)], 0),
        };
        pair.into_iter().take(n)
    }
    /// Values used.
    pub fn uses(&self) -> Vec<Value> {
        match self {
            Terminator::Branch(c, ..) => vec![*c],
            Terminator::Return(v) => v.clone(),
            Terminator::Jump(_) => vec![],
        }
    }
    /// Rewrite used values.
    pub fn map_uses(&mut self, mut f: impl FnMut(Value) -> Value) {
        match self {
            Terminator::Branch(c, ..) => *c = f(*c),
            Terminator::Return(v) => v.iter_mut().for_each(|x| *x = f(*x)),
            Terminator::Jump(_) => {}
        }
    }
    /// Rewrite successor blocks.
    pub fn map_blocks(&mut self, mut f: impl FnMut(Block) -> Block) {
        match self {
            Terminator::Jump(b) => *b = f(*b),
            Terminator::Branch(_, t, e) => {
                *t = f(*t);
                *e = f(*e)
            }
            Terminator::Return(_) => {}
        }
    }
}

/// A basic block: instructions in order, then a terminator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockData {
    /// Instructions (phis first).
    pub insts: Vec<Value>,
    /// The terminator.
    pub term: Terminator,
}

/// A machine register of the pre-SSA form: its type, whether it holds one value for the whole
/// wave, and the name the lifter gave it (for the text form; the IR gives names no meaning).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegInfo {
    /// Value type.
    pub ty: Type,
    /// One value per wave (a scalar register) rather than one per lane.
    pub uniform: bool,
    /// Display name (may be empty).
    pub name: String,
}

impl RegInfo {
    /// A per-lane register without a name.
    pub fn lane(ty: Type) -> RegInfo {
        RegInfo { ty, uniform: false, name: String::new() }
    }
}

/// How the lanes of a wave move through a function's control flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub enum ExecModel {
    /// Per-lane control flow (SIMT code): every branch may split the lanes that run together,
    /// and they rejoin only where the IR says, at convergence-region joins and warp syncs
    /// (`ops::warp`); warp ops run on the lanes that are together.
    #[default]
    Lanes,
    /// Wave control flow: every branch condition is uniform, the whole wave runs every
    /// instruction, and which lanes take part is data: per-lane results are merged under a mask
    /// value (`lanesel`) and memory and cross-lane ops name the mask they run under (their last
    /// operand, of type `mask`). This is how AMD hardware runs EXEC.
    Wave,
}

/// A function (kernel) in SSA or pre-SSA form.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Function {
    /// Name.
    pub name: String,
    /// How lanes move through the control flow.
    pub model: ExecModel,
    /// Lanes per wave the code was written for (32 or 64), 0 when it runs at any width.
    pub wave_size: u32,
    /// Workgroup shared memory the function uses, in bytes.
    pub shared_bytes: u32,
    /// The machine registers used by `readreg`/`writereg`.
    pub regs: Vec<RegInfo>,
    /// Instruction arena.
    pub insts: Arena<Value, InstData>,
    /// Block arena.
    pub blocks: Arena<Block, BlockData>,
    /// Blocks in layout order; the first is the entry. Blocks not listed are deleted.
    pub layout: Vec<Block>,
    /// Other functions of its module call it ([`crate::ops::call`]): its machine registers
    /// hold the caller's values at its entry, and the caller sees what they hold at its returns.
    pub callee: bool,
}

impl Function {
    /// An empty function.
    pub fn new(name: &str) -> Function {
        Function { name: name.into(), ..Default::default() }
    }
    /// The entry block.
    pub fn entry(&self) -> Option<Block> {
        self.layout.first().copied()
    }
    /// Add a machine register, returning its handle.
    pub fn add_reg(&mut self, ty: Type, uniform: bool, name: &str) -> Reg {
        self.regs.push(RegInfo { ty, uniform, name: name.into() });
        Reg(self.regs.len() as u32 - 1)
    }
    /// Type of a machine register, if it exists.
    pub fn reg_ty(&self, r: Reg) -> Option<Type> {
        self.regs.get(r.0 as usize).map(|i| i.ty)
    }
    /// Create a block (appended to the layout) ending in `return` until its terminator is set.
    pub fn add_block(&mut self) -> Block {
        let b = self.blocks.push(BlockData { insts: Vec::new(), term: Terminator::Return(vec![]) });
        self.layout.push(b);
        b
    }
    /// Create an instruction (not yet placed in a block).
    pub fn create(&mut self, op: Op, args: Vec<Value>, ty: Option<Type>, uniform: bool) -> Value {
        self.insts.push(InstData { op, args, ty, uniform })
    }
    /// Append an instruction to a block.
    pub fn append(&mut self, b: Block, op: Op, args: &[Value], ty: Option<Type>) -> Value {
        let v = self.create(op, args.to_vec(), ty, false);
        self.blocks[b].insts.push(v);
        v
    }
    /// Result type of a value (None for void instructions).
    pub fn ty(&self, v: Value) -> Option<Type> {
        self.insts.get(v).and_then(|i| i.ty)
    }
    /// Predecessors of every block (in layout order of the predecessor, duplicates removed).
    pub fn predecessors(&self) -> Vec<Vec<Block>> {
        let mut preds = vec![Vec::new(); self.blocks.len()];
        for &b in &self.layout {
            for s in self.blocks[b].term.successor_iter() {
                if s.index() < preds.len() && !preds[s.index()].contains(&b) {
                    preds[s.index()].push(b);
                }
            }
        }
        preds
    }
    /// Number of instructions placed in blocks (terminators excluded).
    pub fn inst_count(&self) -> usize {
        self.layout.iter().map(|b| self.blocks[*b].insts.len()).sum()
    }
    /// Blocks reachable from the entry, in reverse post-order.
    pub fn reverse_postorder(&self) -> Vec<Block> {
        let Some(entry) = self.entry() else { return vec![] };
        let n = self.blocks.len();
        let mut seen = vec![false; n];
        let mut post = Vec::new();
        let mut stack: Vec<(Block, usize)> = vec![(entry, 0)];
        seen[entry.index()] = true;
        while let Some((b, i)) = stack.pop() {
            if let Some(s) = self.blocks[b].term.successor_iter().nth(i) {
                stack.push((b, i + 1));
                if s.index() < n && !seen[s.index()] {
                    seen[s.index()] = true;
                    stack.push((s, 0));
                }
            } else {
                post.push(b);
            }
        }
        post.reverse();
        post
    }
}
