//! gfx1201 code layout: placing translated instructions, re-targeting branches, replacing `s_getpc_b64` by the guest PC, and temporary registers.
