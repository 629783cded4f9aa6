//! Calls: the callee runs to its return for the lanes that called, on the caller's register
//! file, memory and scratch, before the caller goes on (its SSA values live in a frame of
//! their own, so a function may call itself).

use super::{compile, InterpError, Machine};
use crate::ops::call::Callee;

impl Machine<'_> {
    /// Run the call `c` for the lanes `group` of wave `w`.
    pub(super) fn call(&mut self, w: usize, group: u64, c: &Callee) -> Result<(), InterpError> {
        let index = match c {
            Callee::Func(n) => *n as usize,
            Callee::Symbol(s) => match self.funcs.iter().position(|f| f.name == *s) {
                Some(i) => i,
                None => return Err(InterpError::UndefinedSymbol(s.clone())),
            },
        };
        let Some(callee) = self.funcs.get(index) else {
            return Err(InterpError::Config("a call to a function the module does not have"));
        };
        if self.depth >= self.cfg.max_call_depth {
            return Err(InterpError::CallDepth(self.cfg.max_call_depth));
        }
        if callee.regs.len() != self.f.regs.len() {
            return Err(InterpError::Config("a linked callee declares other machine registers than its caller"));
        }
        if group == 0 {
            return Ok(());
        }
        let (blocks, rpo, rank) = compile(callee)?;
        let threads = self.threads();
        let mut frame = Machine {
            f: callee,
            funcs: self.funcs,
            depth: self.depth + 1,
            cfg: self.cfg,
            ws: self.ws,
            regs: vec![0u64; callee.insts.len() * threads],
            nvals: callee.insts.len(),
            inputs: self.inputs,
            mem: std::mem::take(&mut self.mem),
            scratch: std::mem::take(&mut self.scratch),
            regfile: std::mem::take(&mut self.regfile),
            outputs: vec![Vec::new(); threads],
            lane_ops: 0,
            rank,
            stage: std::mem::take(&mut self.stage),
            late: None,
        };
        let r = super::sched::run_groups(&mut frame, &blocks, &rpo, Some((w, group)));
        self.mem = frame.mem;
        self.scratch = frame.scratch;
        self.regfile = frame.regfile;
        self.stage = frame.stage;
        self.lane_ops += frame.lane_ops;
        r
    }
}
