//! Shared test helper: structure a graph, lower and check it, and compare walks of the input
//! and the result under many branch decisions.

use isabridge_targets::structurize::walk::{walk_cfg, walk_scf};
use isabridge_targets::structurize::{check, structurize, Cfg, Structured};

/// A branch decision from a seed, a node and its visit number.
pub fn decision(seed: u64, node: u32, visit: u32) -> bool {
    let mut x = seed ^ (node as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (visit as u64).wrapping_mul(0xc2b2_ae3d_27d4_eb4f);
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x & 1 == 1
}

/// Structure `cfg`, check the lowered graph, and compare `seeds` walks of `limit` events.
pub fn structure_and_compare(cfg: &Cfg, seeds: u64, limit: usize) -> Result<Structured, String> {
    let s = structurize(cfg).map_err(|e| format!("structurize: {e}"))?;
    let g = s.lower().map_err(|e| format!("lower: {e}"))?;
    check(&g).map_err(|e| format!("check: {e}\n{s:#?}\n{g:#?}"))?;
    for seed in 0..seeds {
        let a = walk_cfg(cfg, &mut |n, v| decision(seed, n, v), limit);
        let b = walk_scf(&g, cfg.exits.len(), &mut |n, v| decision(seed, n, v), limit, limit * 64 + 64)?;
        if a != b {
            let i = a.iter().zip(&b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
            return Err(format!("seed {seed}: walks differ at event {i}: {:?} vs {:?}\n{s:#?}", a.get(i), b.get(i)));
        }
    }
    Ok(s)
}
