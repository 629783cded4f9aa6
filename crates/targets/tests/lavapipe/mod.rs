//! What the lavapipe-vs-interpreter tests share: the Vulkan runner and a deterministic random
//! stream.
#![allow(dead_code)]

use isabridge_targets::vulkan::Vulkan;

/// The default Vulkan device (Mesa lavapipe when installed), or a panic that says what to install.
pub fn open() -> Vulkan {
    Vulkan::open(None).unwrap_or_else(|e| panic!("Vulkan (mesa-vulkan-drivers, tools/install_oracles.sh): {e}"))
}

/// A deterministic random stream (splitmix64).
pub fn rng(seed: &mut u64) -> u64 {
    *seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *seed;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
