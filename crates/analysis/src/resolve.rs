//! Control transfers the AMD lifter cannot resolve from one instruction (calls, returns, jump
//! tables), resolved by the machine CFG of every function of a section, in the form
//! [`isabridge_decoder::lift::amd::lift_kernel`] takes.

use crate::cfg::{CallTarget, Flow};
use crate::load::Section;
use isabridge_decoder::lift::amd::Resolved;
use isabridge_decoder::Isa;

/// Calls, returns and jump tables of every function of `s`, resolved by the machine CFG
/// (a function whose CFG does not recover contributes nothing).
pub fn amd_transfers(isa: Isa, s: &Section) -> Resolved {
    let mut r = Resolved::default();
    for f in &s.functions {
        let Ok(g) = crate::recover(isa, s, f) else { continue };
        for (a, _, flow) in &g.insts {
            match flow {
                Flow::Return { .. } => {
                    r.returns.insert(*a);
                }
                Flow::Table(ts) => {
                    r.tables.insert(*a, ts.clone());
                }
                _ => {}
            }
        }
        for c in &g.calls {
            match &c.target {
                CallTarget::Direct(t) => {
                    r.calls.insert(c.site, *t);
                }
                CallTarget::External(n) => {
                    r.external.insert(c.site, n.clone());
                }
                _ => {}
            }
        }
    }
    r
}
