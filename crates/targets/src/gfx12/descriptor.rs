//! The gfx1201 kernel descriptor: the 64 bytes at `<kernel>.kd` that the command processor
//! reads to start a kernel's waves, and its conversion from a gfx1013 kernel's descriptor.
//!
//! Layout (LLVM AMDGPUUsage "Kernel Descriptor", `llvm/Support/AMDHSAKernelDescriptor.h`):
//! group_segment_fixed_size u32 at 0, private_segment_fixed_size u32 at 4, kernarg_size u32 at
//! 8, kernel_code_entry_byte_offset i64 at 16 (from the descriptor to the kernel's first
//! instruction), compute_pgm_rsrc3 u32 at 44, compute_pgm_rsrc1 at 48, compute_pgm_rsrc2 at 52,
//! kernel_code_properties u16 at 56, kernarg_preload u16 at 58; every other byte 0.
//!
//! What gfx12 changed against gfx10 (same header, fields marked GFX12_PLUS / GFX6_GFX11):
//! - rsrc1 bit 21 is ENABLE_WG_RR_EN (gfx10: ENABLE_DX10_CLAMP) and bit 23 DISABLE_PERF (gfx10:
//!   ENABLE_IEEE_MODE): gfx12 has neither float mode, so both are cleared.
//! - rsrc2 bit 6 is ENABLE_DYNAMIC_VGPR (gfx10: ENABLE_TRAP_HANDLER), cleared; bit 31
//!   WGP_TAKEOVER (gfx10: reserved), 0.
//! - rsrc3 bits 0-3 are reserved (gfx10: SHARED_VGPR_COUNT); bits 4-11 INST_PREF_SIZE, bit 13
//!   GLG_EN.
//! - kernel_code_properties bits 0 (ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER) and 5
//!   (ENABLE_SGPR_FLAT_SCRATCH_INIT): gfx12 has architected flat scratch, and llvm-mc-22
//!   -mcpu=gfx1201 refuses `.amdhsa_user_sgpr_private_segment_buffer` and
//!   `.amdhsa_user_sgpr_flat_scratch_init` ("directive is not supported with architected flat
//!   scratch"); clang-22's gfx1201 builds of the corpus kernels (fixtures/amd/bin/*.gfx1201-w32.o)
//!   never set them where the gfx1013 builds of the same sources do. Both are cleared, and the
//!   user SGPRs after them arrive lower ([`user_sgpr_moves`]).

use isabridge_analysis::amdkernel::Kernel;

/// Size of a kernel descriptor in bytes.
pub const DESCRIPTOR_BYTES: usize = 64;

/// The fields of an AMDHSA kernel descriptor (its entry offset is placed by the code object
/// writer, [`super::hsaco`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KernelDescriptor {
    /// LDS bytes per workgroup.
    pub group_segment_fixed_size: u32,
    /// Scratch bytes per work-item.
    pub private_segment_fixed_size: u32,
    /// Kernel argument segment bytes.
    pub kernarg_size: u32,
    /// COMPUTE_PGM_RSRC3.
    pub rsrc3: u32,
    /// COMPUTE_PGM_RSRC1.
    pub rsrc1: u32,
    /// COMPUTE_PGM_RSRC2.
    pub rsrc2: u32,
    /// kernel_code_properties.
    pub kernel_code_properties: u16,
    /// kernarg_preload (gfx90a/gfx940 only; 0 elsewhere).
    pub kernarg_preload: u16,
}

/// kernel_code_properties bit 10, ENABLE_WAVEFRONT_SIZE32.
const WAVE32: u16 = 1 << 10;
/// kernel_code_properties bit 0, ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER.
const PRIVATE_SEGMENT_BUFFER: u16 = 1;
/// kernel_code_properties bit 5, ENABLE_SGPR_FLAT_SCRATCH_INIT.
const FLAT_SCRATCH_INIT: u16 = 1 << 5;
/// The user SGPR enables gfx1201 does not take (module notes).
const NOT_ON_GFX12: u16 = PRIVATE_SEGMENT_BUFFER | FLAT_SCRATCH_INIT;

impl KernelDescriptor {
    /// The 64 bytes, with `entry_offset` (kernel code address minus descriptor address).
    pub fn encode(&self, entry_offset: i64) -> [u8; DESCRIPTOR_BYTES] {
        let mut b = [0u8; DESCRIPTOR_BYTES];
        b[0..4].copy_from_slice(&self.group_segment_fixed_size.to_le_bytes());
        b[4..8].copy_from_slice(&self.private_segment_fixed_size.to_le_bytes());
        b[8..12].copy_from_slice(&self.kernarg_size.to_le_bytes());
        b[16..24].copy_from_slice(&entry_offset.to_le_bytes());
        b[44..48].copy_from_slice(&self.rsrc3.to_le_bytes());
        b[48..52].copy_from_slice(&self.rsrc1.to_le_bytes());
        b[52..56].copy_from_slice(&self.rsrc2.to_le_bytes());
        b[56..58].copy_from_slice(&self.kernel_code_properties.to_le_bytes());
        b[58..60].copy_from_slice(&self.kernarg_preload.to_le_bytes());
        b
    }

    /// The fields and entry offset of the descriptor at the front of `b` (None when shorter
    /// than 64 bytes).
    pub fn decode(b: &[u8]) -> Option<(KernelDescriptor, i64)> {
        let b = b.get(..DESCRIPTOR_BYTES)?;
        let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let u16_at = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
        let mut e = [0u8; 8];
        e.copy_from_slice(&b[16..24]);
        let d = KernelDescriptor {
            group_segment_fixed_size: u32_at(0),
            private_segment_fixed_size: u32_at(4),
            kernarg_size: u32_at(8),
            rsrc3: u32_at(44),
            rsrc1: u32_at(48),
            rsrc2: u32_at(52),
            kernel_code_properties: u16_at(56),
            kernarg_preload: u16_at(58),
        };
        Some((d, i64::from_le_bytes(e)))
    }

    /// Runs as wave32.
    pub fn wave32(&self) -> bool {
        self.kernel_code_properties & WAVE32 != 0
    }
}

/// The VGPRs and SGPRs a kernel's code uses (the next free register of each file), as the
/// metadata's `.vgpr_count` / `.sgpr_count` give them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RegisterCounts {
    /// VGPRs per lane.
    pub vgprs: u32,
    /// SGPRs, VCC included.
    pub sgprs: u32,
}

/// GRANULATED_WORKITEM_VGPR_COUNT (rsrc1 bits 0-5) for `vgprs` registers on gfx10-gfx12:
/// blocks of 8 for wave32 and 4 for wave64, minus one. Checked with llvm-mc-22 -mcpu=gfx1201:
/// `.amdhsa_next_free_vgpr 13` assembles to 1 with `.amdhsa_wavefront_size32 1` and to 3 with
/// 0; clang-22's gfx1201 corpus kernels agree with their `.vgpr_count` (13 -> 1, 45 -> 5).
pub fn vgpr_granules(vgprs: u32, wave32: bool) -> u32 {
    let g = if wave32 { 8 } else { 4 };
    vgprs.max(1).div_ceil(g) - 1
}

/// The most VGPRs a gfx10-gfx12 granule count allows (the inverse of [`vgpr_granules`]).
pub fn vgprs_of_granules(granules: u32, wave32: bool) -> u32 {
    (granules + 1) * if wave32 { 8 } else { 4 }
}

/// INST_PREF_SIZE (gfx12 rsrc3 bits 4-11) for a kernel of `code_bytes` bytes: the 128-byte
/// cache lines it spans, at most 255. Every kernel of clang-22's gfx1201 corpus builds has
/// this value for its symbol's size (896 bytes -> 7, 2152 -> 17, 96 -> 1).
pub fn inst_pref_size(code_bytes: u64) -> u32 {
    code_bytes.div_ceil(128).min(255) as u32
}

/// Where each user SGPR of gfx1013 kernel `k` that gfx1201 still loads arrives there:
/// (gfx1013 SGPR, gfx1201 SGPR) pairs, in order. The private segment buffer (4 SGPRs) and flat
/// scratch init (2) are not loaded on gfx1201 (module notes), so what follows them moves down;
/// user SGPRs past the ones the enables name (USER_SGPR_COUNT larger than they need) keep
/// their order after the moved ones.
pub fn user_sgpr_moves(k: &Kernel) -> Vec<(u32, u32)> {
    let p = k.properties;
    // (enable bit, SGPRs) in the order the hardware loads them.
    let parts: [(u16, u32); 7] = [(1, 4), (2, 2), (4, 2), (8, 2), (16, 2), (32, 2), (64, 1)];
    let user = k.rsrc2 >> 1 & 31;
    let (mut from, mut to) = (0u32, 0u32);
    let mut out = Vec::new();
    for (bit, n) in parts {
        if p & bit == 0 {
            continue;
        }
        for i in 0..n {
            if from + i < user && NOT_ON_GFX12 & bit == 0 {
                out.push((from + i, to + i));
            }
        }
        from += n;
        if NOT_ON_GFX12 & bit == 0 {
            to += n;
        }
    }
    while from < user {
        out.push((from, to));
        from += 1;
        to += 1;
    }
    out
}

/// The gfx1201 descriptor of gfx1013 kernel `k` whose translated code uses `regs` registers
/// and is `code_bytes` long: sizes and modes kept, the fields gfx12 redefined cleared (module
/// notes), the VGPR granules and INST_PREF_SIZE computed.
pub fn from_gfx1013(k: &Kernel, regs: RegisterCounts, code_bytes: u64) -> KernelDescriptor {
    let wave32 = !k.wave64();
    // rsrc1: bits 0-9 (granules) recomputed; 21 and 23 cleared.
    let rsrc1 = (k.rsrc1 & !0x3ff & !(1 << 21) & !(1 << 23)) | vgpr_granules(regs.vgprs, wave32);
    let user = user_sgpr_moves(k).len() as u32;
    // rsrc2: bit 6 and 31 cleared, GRANULATED_LDS_SIZE (15-23) 0 (the packet gives LDS),
    // USER_SGPR_COUNT less the private segment buffer.
    let rsrc2 = (k.rsrc2 & !(31 << 1) & !(1 << 6) & !(0x1ff << 15) & !(1 << 31)) | user << 1;
    KernelDescriptor {
        group_segment_fixed_size: k.group_segment_size,
        private_segment_fixed_size: k.private_segment_size,
        kernarg_size: k.kernarg_size,
        rsrc3: inst_pref_size(code_bytes) << 4,
        rsrc1,
        rsrc2,
        kernel_code_properties: k.properties & !NOT_ON_GFX12,
        kernarg_preload: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_decode_round_trip() {
        let d = KernelDescriptor {
            group_segment_fixed_size: 1,
            private_segment_fixed_size: 2,
            kernarg_size: 3,
            rsrc3: 0x40,
            rsrc1: 0xe00f_0001,
            rsrc2: 0x84,
            kernel_code_properties: 0x408,
            kernarg_preload: 0,
        };
        let b = d.encode(-0x100);
        assert_eq!(KernelDescriptor::decode(&b), Some((d, -0x100)));
        assert_eq!(KernelDescriptor::decode(&b[..63]), None);
        assert!(d.wave32());
    }

    #[test]
    fn user_sgprs_after_the_scratch_ones_move_down() {
        // hip_control `scratch` on gfx1013: private segment buffer, kernarg pointer, flat
        // scratch init; 8 user SGPRs. On gfx1201 only the kernarg pointer, in s[0:1].
        let k = Kernel {
            name: "k".into(),
            group_segment_size: 0,
            private_segment_size: 0,
            kernarg_size: 0,
            rsrc1: 0,
            rsrc2: 8 << 1,
            properties: 0x429,
            args: Vec::new(),
        };
        assert_eq!(user_sgpr_moves(&k), vec![(4, 0), (5, 1)]);
        let d = from_gfx1013(&k, RegisterCounts::default(), 0);
        assert_eq!((d.rsrc2 >> 1 & 31, d.kernel_code_properties), (2, 0x408));
    }

    #[test]
    fn granules_and_prefetch() {
        assert_eq!(vgpr_granules(13, true), 1);
        assert_eq!(vgpr_granules(13, false), 3);
        assert_eq!(vgpr_granules(0, true), 0);
        assert_eq!(vgpr_granules(45, true), 5);
        assert_eq!(vgprs_of_granules(5, true), 48);
        assert_eq!(inst_pref_size(896), 7);
        assert_eq!(inst_pref_size(2152), 17);
        assert_eq!(inst_pref_size(1 << 20), 255);
    }
}
