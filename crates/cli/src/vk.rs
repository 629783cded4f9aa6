//! The Vulkan device the `--via spirv` paths run on: opened once per thread and kept for the
//! rest of the process. Some drivers (NVIDIA's 580 on an H100) refuse new instances after a
//! few dozen have been created and destroyed in one process, so `conform`, which runs one
//! kernel per op or test, must not open one per kernel. The device index comes from the global
//! `--vk-device N` option (default: lavapipe when present, else the loader's first device).

use isabridge_targets::vulkan::Vulkan;
use std::cell::OnceCell;
use std::sync::OnceLock;

static DEVICE_INDEX: OnceLock<Option<usize>> = OnceLock::new();

thread_local! {
    static DEVICE: OnceCell<Result<&'static Vulkan, String>> = const { OnceCell::new() };
}

/// Sets the device index `--vk-device` names (first call wins; later calls are ignored).
pub fn set_device_index(index: Option<usize>) {
    let _ = DEVICE_INDEX.set(index);
}

/// This thread's Vulkan device, opened on first use (the error, if opening failed, is kept).
pub fn device() -> Result<&'static Vulkan, String> {
    DEVICE.with(|cell| {
        cell.get_or_init(|| {
            let index = DEVICE_INDEX.get().copied().flatten();
            // Kept for the life of the process: one per thread that runs kernels.
            Vulkan::open(index).map(|vk| &*Box::leak(Box::new(vk))).map_err(|e| e.to_string())
        })
        .clone()
    })
}
