//! Scheduling (control) fields: sm50 bundle control words and sm86 bits 105-125.

/// The scheduling fields of one instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Control {
    /// Stall cycles.
    pub stall: u8,
    /// Yield hint.
    pub yield_: bool,
    /// Write barrier index (7 = none).
    pub wrbar: u8,
    /// Read barrier index (7 = none).
    pub rdbar: u8,
    /// Barriers waited on (bit mask).
    pub wait: u8,
    /// Operand reuse flags (bit k: operand slot k).
    pub reuse: u8,
}

impl Control {
    /// From the 21 bits of an sm50 slot or sm86 bits 105-125 (same layout).
    pub fn from_bits(b: u32) -> Control {
        Control {
            stall: (b & 0xf) as u8,
            yield_: b >> 4 & 1 == 1,
            wrbar: (b >> 5 & 7) as u8,
            rdbar: (b >> 8 & 7) as u8,
            wait: (b >> 11 & 0x3f) as u8,
            reuse: (b >> 17 & 0xf) as u8,
        }
    }

    /// The 21 bits back.
    pub fn to_bits(self) -> u32 {
        (self.stall as u32 & 0xf)
            | (self.yield_ as u32) << 4
            | (self.wrbar as u32 & 7) << 5
            | (self.rdbar as u32 & 7) << 8
            | (self.wait as u32 & 0x3f) << 11
            | (self.reuse as u32 & 0xf) << 17
    }

    /// Slot `k` (0..3) of an sm50 bundle control word.
    pub fn sm50_slot(ctrl: u64, k: usize) -> Control {
        Control::from_bits((ctrl >> (21 * (k % 3))) as u32 & 0x1f_ffff)
    }

    /// Bits 105-125 of an sm86 instruction.
    pub fn sm86(w: u128) -> Control {
        Control::from_bits((w >> 105) as u32 & 0x1f_ffff)
    }
}

/// The reuse flags nvdisasm prints for an sm86 instruction: bits 122-125, shown only when the
/// yield bit (109) is set (checked on the fuzz set: never shown with yield clear).
pub fn sm86_reuse(w: u128) -> u8 {
    if (w >> 109) & 1 == 1 {
        ((w >> 122) & 0xf) as u8
    } else {
        0
    }
}

impl std::fmt::Display for Control {
    /// `S:stall Y:yield WR:bar RD:bar WT:mask R:reuse` (`-` for no barrier).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let bar = |b: u8| if b == 7 { "-".to_string() } else { b.to_string() };
        write!(
            f,
            "S:{:02} Y:{} WR:{} RD:{} WT:{:06b} R:{:04b}",
            self.stall,
            self.yield_ as u8,
            bar(self.wrbar),
            bar(self.rdbar),
            self.wait,
            self.reuse
        )
    }
}

/// Whether scheduling bits `b` (the 21 bits of an sm50 slot or sm86 bits 105-125) are ones
/// nvdisasm 12.8 accepts for a form whose `<Scheduling>` the tables packed as `sched`
/// ([`crate::spec::NvTables::sched`]); `opex`: the tables' opex sets. A write or read barrier
/// on an instruction that has none, a reuse flag it cannot have (sm50), or an sm86 stall /
/// yield / reuse combination outside its opex table makes nvdisasm refuse the word.
#[inline(always)]
pub fn sched_ok(sched: u16, opex: &[[u64; 8]], b: u32) -> bool {
    let s = u32::from(sched);
    // Bits that must be set (no barrier: 7) and reuse flags that must be clear.
    let must_set = ((!s >> 1 & 1) * 0xe0) | ((!s >> 2 & 1) * 0x700);
    let must_clear = (!s >> 4 & 0xf) << 17;
    if b & must_set != must_set || b & must_clear != 0 {
        return false;
    }
    if s & 1 << 12 == 0 {
        return true;
    }
    let v = (b >> 12 & 0x1e0) | (b & 0x1f);
    opex.get((s >> 8 & 0xf) as usize).is_some_and(|set| set[(v >> 6) as usize & 7] >> (v & 63) & 1 == 1)
}
