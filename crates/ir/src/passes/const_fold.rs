//! Constant folding with the interpreter's exact semantics (the same [`crate::eval::eval_pure`]),
//! so folding never changes a bit of any result.

use crate::eval::eval_pure;
use crate::ir::Function;
use crate::ops::Op;
use crate::types::Type;

/// Fold pure instructions whose operands are all constants. Returns whether anything changed.
pub fn run(f: &mut Function) -> bool {
    let mut changed = false;
    let mut vals = Vec::new();
    for b in f.reverse_postorder() {
        for i in 0..f.blocks[b].insts.len() {
            let v = f.blocks[b].insts[i];
            let inst = &f.insts[v];
            if !inst.op.is_pure() || matches!(inst.op, Op::Const(_) | Op::Undef | Op::Phi(_)) || inst.args.is_empty() {
                continue;
            }
            let Some(ty) = inst.ty else { continue };
            vals.clear();
            for &a in &inst.args {
                match f.insts[a].op {
                    Op::Const(c) => vals.push(c),
                    _ => break,
                }
            }
            // A select with a constant condition picks one operand even if the others vary.
            if matches!(inst.op, Op::Select) && !vals.is_empty() && vals.len() < 3 {
                let pick = if vals[0] & 1 != 0 { inst.args[1] } else { inst.args[2] };
                if let Op::Const(c) = f.insts[pick].op {
                    let k = vals[0];
                    vals.clear();
                    vals.extend([k, c, c]);
                } else {
                    continue;
                }
            }
            if vals.len() != inst.args.len() {
                continue;
            }
            let src = f.insts[inst.args[0]].ty.unwrap_or(Type::I32);
            if let Some(r) = eval_pure(&inst.op, ty, src, &vals) {
                let inst = &mut f.insts[v];
                inst.op = Op::Const(r);
                inst.args.clear();
                inst.uniform = true;
                changed = true;
            }
        }
    }
    changed
}
