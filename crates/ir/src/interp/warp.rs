//! The warp-synchronous ops that give values: region masks, vote.eq, match, redux.

use super::{CInst, Machine};
use crate::ops::warp::WarpOp;

impl Machine<'_> {
    /// Run `op` on the lanes of `group` (those of `full` outside it read 0).
    pub(super) fn warp(&mut self, w: usize, full: u64, group: u64, ci: &CInst, op: WarpOp) {
        let th = self.threads();
        let base = w * self.ws;
        let lanes: Vec<usize> = (0..self.ws).filter(|l| group >> l & 1 != 0).collect();
        let rd = |m: &Machine, l: usize| m.regs[ci.args[0] * th + base + l];
        let mut out = vec![0u64; self.ws];
        match op {
            WarpOp::Open => lanes.iter().for_each(|&l| out[l] = group),
            WarpOp::VoteEq => {
                let ones = lanes.iter().filter(|&&l| rd(self, l) & 1 != 0).count();
                let eq = (ones == 0 || ones == lanes.len()) as u64;
                lanes.iter().for_each(|&l| out[l] = eq);
            }
            WarpOp::MatchAny => {
                for &l in &lanes {
                    let v = rd(self, l);
                    out[l] = lanes.iter().filter(|&&k| rd(self, k) == v).fold(0u64, |a, &k| a | 1 << k);
                }
            }
            WarpOp::MatchAll => {
                let v = lanes.first().map(|&l| rd(self, l));
                let all = lanes.iter().all(|&l| Some(rd(self, l)) == v);
                lanes.iter().for_each(|&l| out[l] = if all { group } else { 0 });
            }
            WarpOp::Redux(k) => {
                let mut it = lanes.iter().map(|&l| rd(self, l) as u32);
                let first = it.next().unwrap_or(0);
                let r = it.fold(first, |a, x| k.apply(a, x)) as u64;
                lanes.iter().for_each(|&l| out[l] = r);
            }
            WarpOp::Join | WarpOp::Leave | WarpOp::Sync | WarpOp::Bar(_) => return,
        }
        for l in (0..self.ws).filter(|l| full >> l & 1 != 0) {
            self.regs[ci.v * th + base + l] = out[l] & ci.ty.mask();
        }
    }
}
