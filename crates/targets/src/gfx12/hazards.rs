//! gfx1201 hazards: the waits and `s_nop`s the gfx12 pipeline requires between dependent instructions.
