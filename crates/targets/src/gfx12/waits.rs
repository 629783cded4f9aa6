//! gfx1201 wait insertion: the split memory counters (loadcnt, storecnt, samplecnt, bvhcnt, kmcnt, dscnt, expcnt) recomputed by forward data flow over the CFG.
