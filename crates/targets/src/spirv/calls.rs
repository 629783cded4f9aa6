//! Modules of several functions (an AMD kernel whose calls the lifter keeps as IR calls:
//! recursion, callees reached from several places) as one function, since SPIR-V forbids
//! recursion. The functions share the machine registers (the IR's call semantics: a callee's
//! registers hold the caller's values at its entry, the caller sees them at its return), so
//! the callees' blocks join the entry function's, and every call becomes a jump:
//!
//! - `call #k` (or a call of a symbol the module defines, as the interpreter resolves it) ends
//!   its block: the block pushes the number of its return site (the rest of the block, split
//!   off) on a return stack of uniform registers ([`STACK_WORDS`] i32 words, four 8-bit site
//!   numbers each, the innermost lowest) and jumps to the callee's entry. A push with
//!   [`MOST_PENDING_CALLS`] calls pending traps with [`CALL_DEPTH_TRAP`] (the interpreter's
//!   default call depth is the same 64).
//! - A callee's `return` pops the innermost site number and branches to that site, comparing
//!   it with the sites of the calls of that callee; any other number traps with
//!   [`RETURN_SITE_TRAP`] (never a silent wrong jump).
//! - The entry function's `return` ends the invocation as before.
//!
//! A value used after a call its function makes (in a later block than its own) is refused:
//! a recursive activation would run its definition again before the use. In the lanes model
//! a call's lanes return one by one, where the interpreter reconverges them at the return:
//! modules with cross-lane operations are refused there.
//! Calls of symbols no function of the module defines stay calls: the emitter refuses them
//! ([`super::EmitError::UndefinedFunction`]).

use super::emit::{unsupported, EmitError};
use isabridge_ir::builder::Builder;
use isabridge_ir::ir::{Block, ExecModel, Function, Reg, Terminator, Value};
use isabridge_ir::module::Module;
use isabridge_ir::ops::call::Callee;
use isabridge_ir::ops::control::SyncOp;
use isabridge_ir::ops::int::{ICmp, IntOp, ShiftRule};
use isabridge_ir::{Op, Type};
use std::collections::{HashMap, HashSet};

/// The trap code of a call made with [`MOST_PENDING_CALLS`] calls pending.
pub const CALL_DEPTH_TRAP: u16 = 0xfff9;
/// The trap code of a return to a site number no call of the returning function has.
pub const RETURN_SITE_TRAP: u16 = 0xfff8;
/// Words of the return stack (four site numbers each).
const STACK_WORDS: usize = 16;
/// The most calls pending at once.
pub const MOST_PENDING_CALLS: usize = 4 * STACK_WORDS;

/// The module's functions as one function (the entry's name, model and registers, plus the
/// return stack's); a module of one function is that function.
pub fn link_calls(m: &Module) -> Result<Function, EmitError> {
    let Some(entry) = m.functions.first() else { return Err(unsupported(0, u32::MAX, "module", "a module without functions")) };
    let callee_of = |c: &Callee| match c {
        Callee::Func(n) => ((*n as usize) < m.functions.len()).then_some(*n as usize),
        Callee::Symbol(s) => m.index_of(s),
    };
    let mut out = entry.clone();
    out.callee = false;
    if m.functions.len() == 1 {
        return Ok(out);
    }
    // Per-lane calls (the lanes model) return lane by lane here, where the interpreter
    // reconverges a call's lanes at its return: only cross-lane operations could tell.
    if entry.model != ExecModel::Wave && m.functions.iter().any(cross_lane) {
        return Err(unsupported(0, u32::MAX, entry.name.clone(), "per-lane calls in a module with cross-lane operations"));
    }
    // Which function each block of `out` belongs to, and each function's entry block.
    let mut owner: HashMap<Block, usize> = out.layout.iter().map(|&b| (b, 0)).collect();
    let mut starts = vec![out.entry().ok_or_else(|| unsupported(0, u32::MAX, entry.name.clone(), "a function without blocks"))?];
    for (k, f) in m.functions.iter().enumerate().skip(1) {
        if f.regs != entry.regs || f.model != entry.model {
            return Err(unsupported(0, u32::MAX, f.name.clone(), "a callee whose machine registers or model are not its caller's"));
        }
        let bmap: HashMap<Block, Block> = f.layout.iter().map(|&b| (b, out.add_block())).collect();
        let mut vmap: HashMap<Value, Value> = HashMap::new();
        for &b in &f.layout {
            for &v in &f.blocks[b].insts {
                let nv = out.insts.push(f.insts[v].clone());
                vmap.insert(v, nv);
                out.blocks[bmap[&b]].insts.push(nv);
            }
        }
        for &b in &f.layout {
            let nb = bmap[&b];
            for i in 0..out.blocks[nb].insts.len() {
                let nv = out.blocks[nb].insts[i];
                if matches!(out.insts[nv].op, Op::Phi(_)) {
                    return Err(unsupported(b.0, nv.0, "phi", "a callee in SSA form (calls are linked before the IR pipeline)"));
                }
                let args: Option<Vec<Value>> = out.insts[nv].args.iter().map(|a| vmap.get(a).copied()).collect();
                out.insts[nv].args = args.ok_or_else(|| unsupported(b.0, nv.0, f.name.clone(), "a use of a value no block of its function defines"))?;
            }
            let mut term = f.blocks[b].term.clone();
            let mut missing = false;
            term.map_uses(|v| vmap.get(&v).copied().unwrap_or_else(|| {
                missing = true;
                v
            }));
            term.map_blocks(|x| bmap.get(&x).copied().unwrap_or(x));
            if missing {
                return Err(unsupported(b.0, u32::MAX, f.name.clone(), "a use of a value no block of its function defines"));
            }
            out.blocks[nb].term = term;
            owner.insert(nb, k);
        }
        starts.push(bmap[&f.layout[0]]);
    }
    // What the entry's returns give (a trap block returns zeros of those types).
    let outs: Vec<Type> = entry
        .layout
        .iter()
        .find_map(|&b| match &entry.blocks[b].term {
            Terminator::Return(v) => Some(v.iter().map(|&x| entry.ty(x).unwrap_or(Type::I32)).collect()),
            _ => None,
        })
        .unwrap_or_default();
    let uniform = out.model == ExecModel::Wave;
    let stack: Vec<Reg> = (0..STACK_WORDS).map(|j| out.add_reg(Type::I32, uniform, &format!("call_stack{j}"))).collect();
    // Split every block at its calls; the call's site is the block's rest.
    let mut sites: Vec<(usize, Block)> = Vec::new();
    let mut work: Vec<Block> = out.layout.clone();
    while let Some(b) = work.pop() {
        let Some(i) = out.blocks[b].insts.iter().position(|&v| matches!(&out.insts[v].op, Op::Call(c) if callee_of(c).is_some())) else { continue };
        let call = out.blocks[b].insts[i];
        let k = match &out.insts[call].op {
            Op::Call(c) => callee_of(c).unwrap_or(0),
            _ => 0,
        };
        if k == 0 {
            return Err(unsupported(b.0, call.0, out.name.clone(), "a call of the kernel itself"));
        }
        let after = out.add_block();
        let rest = out.blocks[b].insts.split_off(i + 1);
        out.blocks[b].insts.pop();
        out.blocks[after].insts = rest;
        out.blocks[after].term = std::mem::replace(&mut out.blocks[b].term, Terminator::Return(vec![]));
        owner.insert(after, owner[&b]);
        sites.push((k, after));
        if sites.len() > 255 {
            return Err(unsupported(b.0, call.0, out.name.clone(), "more than 255 calls in one module"));
        }
        let site = sites.len() as u64;
        push(&mut out, &stack, &outs, b, site, starts[k]);
        work.push(after);
    }
    // Returns of callees go back to their sites.
    let blocks: Vec<Block> = out.layout.clone();
    for b in blocks {
        let k = owner.get(&b).copied().unwrap_or(0);
        let Terminator::Return(vals) = &out.blocks[b].term else { continue };
        if k == 0 {
            continue;
        }
        if !vals.is_empty() {
            return Err(unsupported(b.0, u32::MAX, m.functions[k].name.clone(), "a callee returning values"));
        }
        let ours: Vec<(u64, Block)> = sites.iter().enumerate().filter(|(_, s)| s.0 == k).map(|(i, s)| (i as u64 + 1, s.1)).collect();
        ret(&mut out, &stack, &outs, b, &ours);
    }
    check_values(&out, &owner, &sites)?;
    Ok(out)
}

/// End block `b` with a push of site number `site` and a jump to `to`; a full stack traps.
fn push(f: &mut Function, stack: &[Reg], outs: &[Type], b: Block, site: u64, to: Block) {
    let (trap, go) = (f.add_block(), f.add_block());
    let mut x = Builder::new(f, b);
    let last = x.read_reg(stack[STACK_WORDS - 1]);
    let top = x.konst(Type::I32, 0xff00_0000);
    let used = x.int(IntOp::And, Type::I32, &[last, top]);
    let zero = x.konst(Type::I32, 0);
    let full = x.int(IntOp::Cmp(ICmp::Ne), Type::I32, &[used, zero]);
    x.branch(full, trap, go);
    trap_block(f, trap, CALL_DEPTH_TRAP, outs);
    let mut g = Builder::new(f, go);
    let (eight, twenty_four) = (g.konst(Type::I32, 8), g.konst(Type::I32, 24));
    let mut carry = g.konst(Type::I32, site);
    for &r in stack {
        let w = g.read_reg(r);
        let out = g.int(IntOp::Shr(false, ShiftRule::Clamp), Type::I32, &[w, twenty_four]);
        let w = g.int(IntOp::Shl(ShiftRule::Clamp), Type::I32, &[w, eight]);
        let w = g.int(IntOp::Or, Type::I32, &[w, carry]);
        g.write_reg(r, w);
        carry = out;
    }
    g.jump(to);
}

/// End block `b` (a callee's return) with a pop of the innermost site number and a branch to
/// that site among `sites` (number, block); any other number traps.
fn ret(f: &mut Function, stack: &[Reg], outs: &[Type], b: Block, sites: &[(u64, Block)]) {
    let mut x = Builder::new(f, b);
    let (eight, twenty_four, low) = (x.konst(Type::I32, 8), x.konst(Type::I32, 24), x.konst(Type::I32, 0xff));
    let first = x.read_reg(stack[0]);
    let n = x.int(IntOp::And, Type::I32, &[first, low]);
    for (j, &r) in stack.iter().enumerate() {
        let w = x.read_reg(r);
        let w = x.int(IntOp::Shr(false, ShiftRule::Clamp), Type::I32, &[w, eight]);
        let w = if let Some(&up) = stack.get(j + 1) {
            let above = x.read_reg(up);
            let a = x.int(IntOp::And, Type::I32, &[above, low]);
            let a = x.int(IntOp::Shl(ShiftRule::Clamp), Type::I32, &[a, twenty_four]);
            x.int(IntOp::Or, Type::I32, &[w, a])
        } else {
            w
        };
        x.write_reg(r, w);
    }
    let mut cur = b;
    for &(site, to) in sites {
        let no = f.add_block();
        let mut x = Builder::new(f, cur);
        let k = x.konst(Type::I32, site);
        let is = x.int(IntOp::Cmp(ICmp::Eq), Type::I32, &[n, k]);
        x.branch(is, to, no);
        cur = no;
    }
    trap_block(f, cur, RETURN_SITE_TRAP, outs);
}

/// End block `b` with trap `code` (and a return of zeros of the entry's output types, which
/// the trap never reaches).
fn trap_block(f: &mut Function, b: Block, code: u16, outs: &[Type]) {
    let mut t = Builder::new(f, b);
    let zeros: Vec<Value> = outs.iter().map(|&ty| t.konst(ty, 0)).collect();
    t.ins(Op::Sync(SyncOp::Trap(code)), &[], None);
    t.ret(&zeros);
}

/// A value is used in its own block, or in a block no path from a call's return site reaches
/// inside its function (so no call runs between its definition and the use): across a call,
/// a recursive activation would run the definition again first.
fn check_values(f: &Function, owner: &HashMap<Block, usize>, sites: &[(usize, Block)]) -> Result<(), EmitError> {
    let mut after_call: HashSet<Block> = HashSet::new();
    let mut work: Vec<Block> = sites.iter().map(|s| s.1).collect();
    while let Some(b) = work.pop() {
        if !after_call.insert(b) {
            continue;
        }
        let k = owner.get(&b);
        work.extend(f.blocks[b].term.successor_iter().filter(|s| owner.get(s).is_some() && owner.get(s) == k));
    }
    let mut here = HashSet::new();
    for &b in &f.layout {
        here.clear();
        let late = after_call.contains(&b);
        let ok = |here: &HashSet<Value>, a: &Value| here.contains(a) || !late;
        for &v in &f.blocks[b].insts {
            if !f.insts[v].args.iter().all(|a| ok(&here, a)) {
                return Err(unsupported(b.0, v.0, f.insts[v].op.mnemonic(), "a value used after a call that its block's function makes (a recursive activation would redefine it)"));
            }
            here.insert(v);
        }
        if !f.blocks[b].term.uses().iter().all(|a| ok(&here, a)) {
            return Err(unsupported(b.0, u32::MAX, "terminator", "a value used after a call that its block's function makes (a recursive activation would redefine it)"));
        }
    }
    Ok(())
}

/// Whether a function has cross-lane operations (which see the lanes that run together).
fn cross_lane(f: &Function) -> bool {
    f.layout.iter().flat_map(|&b| f.blocks[b].insts.iter()).any(|&v| matches!(f.insts[v].op, Op::Lane(_) | Op::Warp(_)))
}
