//! Large exact helpers as SPIR-V functions: the first use of a helper with given parameters
//! declares a function and every use calls it with `OpFunctionCall`, instead of inlining the
//! helper's code at each use; the functions are emitted after the entry point's
//! ([`Em::emit_helpers`]). A helper's code is pure word arithmetic on its parameters (no
//! invocation state, no variables of the entry point), so the call computes exactly what the
//! inlined code did. Helpers so emitted: the block dot product (`super::fblockdot`).

use super::emit::{internal, Em, EmitError};
use isabridge_ir::ops::float::FloatOp;
use isabridge_ir::soft::blockdot::BlockDot;
use isabridge_ir::soft::FFmt;
use rspirv::spirv::{self, Word};

/// What a helper function computes (its body's emitter and the constants it is built for).
#[derive(Clone, Debug, PartialEq)]
pub(super) enum HelperBody {
    /// `Em::block_dot_exact` of an `fblockdot` op with result format `fmt`.
    BlockDot { op: FloatOp, d: BlockDot, fmt: FFmt },
}

/// A helper function called so far.
pub(super) struct Helper {
    /// What it computes.
    body: HelperBody,
    /// Its function id.
    id: Word,
    /// Its result type.
    ret: Word,
    /// Its parameter types.
    params: Vec<Word>,
    /// Emitted already.
    done: bool,
}

impl Em<'_> {
    /// A call of the helper that computes `body` on `args` (of SPIR-V types `params`), of
    /// result type `ret`: the helper's function is declared on its first use.
    pub(super) fn call_helper(&mut self, body: HelperBody, ret: Word, params: &[Word], args: &[Word]) -> Result<Word, EmitError> {
        let known = self.helpers.iter().find(|h| h.body == body && h.ret == ret && h.params == params).map(|h| h.id);
        let id = match known {
            Some(id) => id,
            None => {
                let id = self.b.id();
                self.helpers.push(Helper { body, id, ret, params: params.to_vec(), done: false });
                id
            }
        };
        self.b.function_call(ret, None, id, args.iter().copied()).map_err(internal)
    }

    /// Emit the functions of the helpers called (after the entry point's function has ended);
    /// a helper's code may call further helpers, emitted in turn.
    pub(super) fn emit_helpers(&mut self) -> Result<(), EmitError> {
        while let Some(i) = self.helpers.iter().position(|h| !h.done) {
            self.helpers[i].done = true;
            let (body, id, ret, params) = {
                let h = &self.helpers[i];
                (h.body.clone(), h.id, h.ret, h.params.clone())
            };
            let fn_ty = self.b.type_function(ret, params.clone());
            self.b.begin_function(ret, Some(id), spirv::FunctionControl::NONE, fn_ty).map_err(internal)?;
            let mut args = Vec::with_capacity(params.len());
            for &p in &params {
                args.push(self.b.function_parameter(p).map_err(internal)?);
            }
            self.cur = self.b.begin_block(None).map_err(internal)?;
            self.region = self.cur;
            let r = match body {
                HelperBody::BlockDot { op, d, fmt } => self.block_dot_exact(&op, d, fmt, &args)?,
            };
            self.b.ret_value(r).map_err(internal)?;
            self.b.end_function().map_err(internal)?;
        }
        Ok(())
    }
}
