//! A Vulkan compute runner (ash; the loader, libvulkan, is opened at run time) for kernels of
//! [`crate::spirv::emit`]: picks Mesa lavapipe (a device whose name contains `llvmpipe`) by
//! default or a device by index, reports the features a kernel needs that the device lacks,
//! and dispatches a kernel over any number of invocations with its parameter words, constant
//! banks and global-memory buffers (whose device addresses the caller passes to the kernel).
//! Heap-model kernels ([`MemoryModel::Heap`]) get their guest memory as one heap buffer
//! ([`Vulkan::heap`]) instead, whose guest addresses start at [`HEAP_BASE`].

use crate::spirv::{Kernel, MemoryModel, CONSTANT_BANK_BYTES, CONSTANT_BINDING, HEAP_BINDING, HEAP_FAULT_WORD, HEAP_HEADER_WORDS, OUTPUTS_BINDING, PARAMS_BINDING, TRAP_BINDING};
use ash::vk;
use std::ffi::CString;

/// Why a Vulkan run failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VulkanError {
    /// The Vulkan loader (libvulkan) could not be opened.
    #[error("Vulkan loader (libvulkan): {0}")]
    Loader(String),
    /// No such device (or none at all).
    #[error("Vulkan device: {0}")]
    NoDevice(String),
    /// The device lacks features or properties the kernel needs (their Vulkan names).
    #[error("{device} lacks {}", features.join(", "))]
    Missing {
        /// The device's name.
        device: String,
        /// What it lacks.
        features: Vec<&'static str>,
    },
    /// The kernel declares more Workgroup memory (the guest's shared memory or LDS and the
    /// cross-lane exchange, [`Kernel::workgroup_bytes`]) than the device gives a workgroup.
    #[error("{device} gives a workgroup {limit} bytes of shared memory (maxComputeSharedMemorySize), the kernel declares {bytes}")]
    WorkgroupMemory {
        /// The device's name.
        device: String,
        /// The kernel's Workgroup bytes.
        bytes: u32,
        /// The device's `maxComputeSharedMemorySize`.
        limit: u32,
    },
    /// A Vulkan call failed.
    #[error("Vulkan {what}: {result}")]
    Call {
        /// The call.
        what: &'static str,
        /// Its result code.
        result: String,
    },
    /// The dispatch does not fit the kernel's interface.
    #[error("dispatch: {0}")]
    Interface(String),
    /// An invocation ran the IR's `trap.<code>` (read back from the trap buffer).
    #[error("trap {code} in invocation {invocation}{}", trap_meaning(*code))]
    Trap {
        /// The trap code.
        code: u16,
        /// The invocation (`GlobalInvocationId.x`) that trapped.
        invocation: u32,
    },
    /// A heap-model kernel accessed guest memory outside the heap or misaligned (its fault
    /// word was set); the heap's other contents are as the kernel left them.
    #[error("a heap access outside the heap or misaligned")]
    OutOfHeap,
    /// The device did not finish a dispatch within the runner's wait ([`Vulkan::set_wait`]).
    /// Vulkan cannot cancel it, so its objects and buffers are left alive (leaked) and the
    /// runner takes no more work ([`VulkanError::Unusable`]): open another to go on.
    #[error("the device did not finish the dispatch within {ms} ms (left running; this runner takes no more work)")]
    Timeout {
        /// The wait, in milliseconds.
        ms: u64,
    },
    /// The device was lost (`VK_ERROR_DEVICE_LOST`) during the call; the runner takes no
    /// more work.
    #[error("Vulkan device lost in {what}")]
    DeviceLost {
        /// The call.
        what: &'static str,
    },
    /// An earlier dispatch timed out or lost the device: this runner takes no more work.
    #[error("the runner is unusable after an earlier timeout or device loss")]
    Unusable,
}

/// What a trap code the emitter records itself means, as text to append (empty for others).
fn trap_meaning(code: u16) -> &'static str {
    match code {
        crate::spirv::LOOP_LIMIT_TRAP => " (the device ended a loop early: lavapipe stops loops after 65,535 iterations in all)",
        crate::spirv::PRIVATE_SEGMENT_TRAP => " (a swizzled buffer access the IR does not place)",
        crate::spirv::HALT_TRAP => " (the kernel halted)",
        _ => "",
    }
}

/// The guest address of the first heap byte [`Vulkan::heap`] hands out (a multiple of 16,
/// above the 32-bit range so that small integers used as pointers fault).
pub const HEAP_BASE: u64 = 1 << 32;

fn call(what: &'static str) -> impl Fn(vk::Result) -> VulkanError {
    move |e| VulkanError::Call { what, result: e.to_string() }
}

/// How long a run waits for its dispatch by default (60 s).
pub const DEFAULT_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

/// An open device.
pub struct Vulkan {
    _entry: ash::Entry,
    instance: ash::Instance,
    pdev: vk::PhysicalDevice,
    device: ash::Device,
    queue: vk::Queue,
    family: u32,
    name: String,
    /// Buffer device addresses are enabled.
    bda: bool,
    /// How long a run waits for its dispatch, in nanoseconds.
    wait_ns: u64,
    /// A dispatch timed out or the device was lost: work may still be running, so nothing
    /// made on the device is freed from then on, and runs are refused.
    broken: std::sync::atomic::AtomicBool,
}

struct Buf {
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    ptr: *mut u8,
    size: usize,
}

/// Global-memory buffers on a device; freed when dropped. Either one buffer per region (device
/// addresses) or one heap buffer holding every region ([`Vulkan::heap`]).
pub struct GlobalMemory<'v> {
    device: &'v ash::Device,
    /// The runner's broken flag ([`Vulkan::is_broken`]): set, the buffers are leaked, not freed.
    broken: &'v std::sync::atomic::AtomicBool,
    bufs: Vec<(Buf, u64)>,
    /// Heap memory: each region's byte offset in the heap buffer and its length.
    regions: Option<Vec<(usize, usize)>>,
}

impl GlobalMemory<'_> {
    /// The guest address of region `i`: its buffer's device address, or its heap address.
    pub fn address(&self, i: usize) -> Option<u64> {
        match &self.regions {
            Some(r) => r.get(i).map(|&(at, _)| HEAP_BASE + (at - HEAP_HEADER_WORDS as usize * 4) as u64),
            None => self.bufs.get(i).map(|b| b.1),
        }
    }

    /// Overwrite the bytes of region `i` from byte `at` with `bytes`; `None` when that range
    /// is outside the region.
    pub fn write(&self, i: usize, at: usize, bytes: &[u8]) -> Option<()> {
        let (base, len, b) = match &self.regions {
            Some(r) => {
                let &(base, len) = r.get(i)?;
                (base, len, &self.bufs.first()?.0)
            }
            None => {
                let b = &self.bufs.get(i)?.0;
                (0, b.size, b)
            }
        };
        if at.checked_add(bytes.len())? > len {
            return None;
        }
        // SAFETY: the range lies inside the region, inside the mapping, which lives as long as
        // `self`; no work is pending (runs wait).
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), b.ptr.add(base + at), bytes.len()) };
        Some(())
    }

    /// The bytes of region `i` now.
    pub fn read(&self, i: usize) -> Option<Vec<u8>> {
        let (at, len, b) = match &self.regions {
            Some(r) => {
                let &(at, len) = r.get(i)?;
                (at, len, &self.bufs.first()?.0)
            }
            None => {
                let b = &self.bufs.get(i)?.0;
                (0, b.size, b)
            }
        };
        let mut v = vec![0u8; len];
        // SAFETY: the mapping covers `size` bytes (the region lies within it) and lives as
        // long as `self`.
        unsafe { std::ptr::copy_nonoverlapping(b.ptr.add(at), v.as_mut_ptr(), len) };
        Some(v)
    }

    /// Whether a heap-model kernel's access faulted (heap memory only).
    fn heap_fault(&self) -> bool {
        let Some(b) = self.bufs.first().filter(|_| self.regions.is_some()) else { return false };
        let mut w = [0u8; 4];
        // SAFETY: the heap buffer is at least 16 bytes (its header).
        unsafe { std::ptr::copy_nonoverlapping(b.0.ptr.add(HEAP_FAULT_WORD as usize * 4), w.as_mut_ptr(), 4) };
        u32::from_le_bytes(w) != 0
    }
}

impl Drop for GlobalMemory<'_> {
    fn drop(&mut self) {
        if self.broken.load(std::sync::atomic::Ordering::SeqCst) {
            // A timed-out dispatch may still use them.
            return;
        }
        for (b, _) in self.bufs.drain(..) {
            // SAFETY: the buffers were made on this device and no work is pending (runs wait).
            unsafe { free(self.device, b) };
        }
    }
}

unsafe fn free(d: &ash::Device, b: Buf) {
    d.unmap_memory(b.memory);
    d.destroy_buffer(b.buffer, None);
    d.free_memory(b.memory, None);
}

/// One dispatch: `invocations` invocations (any count; the kernel skips those past it).
pub struct Dispatch<'a> {
    /// Invocations to run.
    pub invocations: u32,
    /// `kernel.params` words per invocation.
    pub params: &'a [u64],
    /// Constant banks by number (each at most [`CONSTANT_BANK_BYTES`]).
    pub constant: &'a [Vec<u8>],
}

impl Vulkan {
    /// Open device `index` (of the loader's list), or lavapipe when `None` (else the first).
    pub fn open(index: Option<usize>) -> Result<Vulkan, VulkanError> {
        // SAFETY: plain Vulkan calls on handles made here; the loader is opened once.
        unsafe {
            let entry = ash::Entry::load().map_err(|e| VulkanError::Loader(e.to_string()))?;
            let app = vk::ApplicationInfo::default().api_version(vk::make_api_version(0, 1, 2, 0));
            let instance = entry.create_instance(&vk::InstanceCreateInfo::default().application_info(&app), None).map_err(call("create instance"))?;
            let pdevs = instance.enumerate_physical_devices().map_err(call("enumerate devices"))?;
            let name_of = |p: vk::PhysicalDevice| {
                let props = instance.get_physical_device_properties(p);
                props.device_name_as_c_str().map(|c| c.to_string_lossy().into_owned()).unwrap_or_default()
            };
            let pick = match index {
                Some(i) => pdevs.get(i).copied().ok_or_else(|| VulkanError::NoDevice(format!("no device {i} ({} present)", pdevs.len()))),
                None => pdevs.iter().find(|&&p| name_of(p).contains("llvmpipe")).or(pdevs.first()).copied().ok_or_else(|| VulkanError::NoDevice("none present".into())),
            };
            let pdev = match pick {
                Ok(p) => p,
                Err(e) => {
                    instance.destroy_instance(None);
                    return Err(e);
                }
            };
            let name = name_of(pdev);
            let Some(family) = instance.get_physical_device_queue_family_properties(pdev).iter().position(|q| q.queue_flags.contains(vk::QueueFlags::COMPUTE)) else {
                instance.destroy_instance(None);
                return Err(VulkanError::NoDevice(format!("{name} has no compute queue")));
            };
            let family = family as u32;
            // Enable what the device has of what kernels may need; a kernel needing a feature
            // the device lacks is refused in `run`.
            let mut have12 = vk::PhysicalDeviceVulkan12Features::default();
            let mut have = vk::PhysicalDeviceFeatures2::default().push_next(&mut have12);
            instance.get_physical_device_features2(pdev, &mut have);
            let hf = have.features;
            let bda = have12.buffer_device_address;
            let prio = [1.0f32];
            let qinfo = [vk::DeviceQueueCreateInfo::default().queue_family_index(family).queue_priorities(&prio)];
            let mut f12 = vk::PhysicalDeviceVulkan12Features::default()
                .buffer_device_address(bda != 0)
                .shader_int8(have12.shader_int8 != 0)
                .shader_buffer_int64_atomics(have12.shader_buffer_int64_atomics != 0);
            let features = vk::PhysicalDeviceFeatures::default()
                .shader_int64(hf.shader_int64 != 0)
                .shader_float64(hf.shader_float64 != 0)
                .shader_int16(hf.shader_int16 != 0);
            let dinfo = vk::DeviceCreateInfo::default().queue_create_infos(&qinfo).enabled_features(&features).push_next(&mut f12);
            let device = match instance.create_device(pdev, &dinfo, None) {
                Ok(d) => d,
                Err(e) => {
                    instance.destroy_instance(None);
                    return Err(call("create device")(e));
                }
            };
            let queue = device.get_device_queue(family, 0);
            let wait_ns = DEFAULT_WAIT.as_nanos() as u64;
            Ok(Vulkan { _entry: entry, instance, pdev, device, queue, family, name, bda: bda != 0, wait_ns, broken: false.into() })
        }
    }

    /// The device's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Wait at most `wait` for each dispatch ([`DEFAULT_WAIT`] until set); a dispatch that
    /// takes longer is [`VulkanError::Timeout`].
    pub fn set_wait(&mut self, wait: std::time::Duration) {
        self.wait_ns = u64::try_from(wait.as_nanos()).unwrap_or(u64::MAX);
    }

    /// Whether a dispatch timed out or the device was lost: the runner then refuses runs
    /// ([`VulkanError::Unusable`]) and frees nothing it made on the device.
    pub fn is_broken(&self) -> bool {
        self.broken.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The most Workgroup memory a workgroup may declare on this device, in bytes
    /// (`maxComputeSharedMemorySize`).
    pub fn workgroup_memory_limit(&self) -> u32 {
        // SAFETY: a query on a valid physical device.
        unsafe { self.instance.get_physical_device_properties(self.pdev).limits.max_compute_shared_memory_size }
    }

    /// The features and properties of `requires` (Vulkan names) this device lacks.
    pub fn missing(&self, requires: &[&'static str]) -> Vec<&'static str> {
        // SAFETY: queries on a valid physical device.
        unsafe {
            let mut p12 = vk::PhysicalDeviceVulkan12Properties::default();
            let mut props = vk::PhysicalDeviceProperties2::default().push_next(&mut p12);
            self.instance.get_physical_device_properties2(self.pdev, &mut props);
            let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
            let mut feats = vk::PhysicalDeviceFeatures2::default().push_next(&mut f12);
            self.instance.get_physical_device_features2(self.pdev, &mut feats);
            let f = feats.features;
            requires
                .iter()
                .copied()
                .filter(|&r| {
                    let have = match r {
                        "shaderInt64" => f.shader_int64,
                        "shaderInt16" => f.shader_int16,
                        "shaderInt8" => f12.shader_int8,
                        "shaderBufferInt64Atomics" => f12.shader_buffer_int64_atomics,
                        "shaderFloat64" => f.shader_float64,
                        "bufferDeviceAddress" => f12.buffer_device_address,
                        "shaderDenormPreserveFloat32" => p12.shader_denorm_preserve_float32,
                        "shaderSignedZeroInfNanPreserveFloat32" => p12.shader_signed_zero_inf_nan_preserve_float32,
                        "shaderRoundingModeRTEFloat32" => p12.shader_rounding_mode_rte_float32,
                        _ => 0,
                    };
                    have == 0
                })
                .collect()
        }
    }

    unsafe fn buffer(&self, size: usize) -> Result<Buf, VulkanError> {
        let d = &self.device;
        let size = size.max(16);
        let usage = if self.bda { vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS } else { vk::BufferUsageFlags::STORAGE_BUFFER };
        let info = vk::BufferCreateInfo::default()
            .size(size as u64)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        let buffer = d.create_buffer(&info, None).map_err(call("create buffer"))?;
        let req = d.get_buffer_memory_requirements(buffer);
        let mp = self.instance.get_physical_device_memory_properties(self.pdev);
        let want = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let Some(ty) = (0..mp.memory_type_count).find(|&i| req.memory_type_bits & (1 << i) != 0 && mp.memory_types[i as usize].property_flags.contains(want)) else {
            d.destroy_buffer(buffer, None);
            return Err(VulkanError::NoDevice(format!("{} has no host-visible coherent memory", self.name)));
        };
        let mut flags = vk::MemoryAllocateFlagsInfo::default().flags(vk::MemoryAllocateFlags::DEVICE_ADDRESS);
        let mut alloc = vk::MemoryAllocateInfo::default().allocation_size(req.size).memory_type_index(ty);
        if self.bda {
            alloc = alloc.push_next(&mut flags);
        }
        let memory = match d.allocate_memory(&alloc, None) {
            Ok(m) => m,
            Err(e) => {
                d.destroy_buffer(buffer, None);
                return Err(call("allocate memory")(e));
            }
        };
        let mapped = d.bind_buffer_memory(buffer, memory, 0).and_then(|_| d.map_memory(memory, 0, req.size, vk::MemoryMapFlags::empty()));
        match mapped {
            Ok(p) => {
                std::ptr::write_bytes(p as *mut u8, 0, size);
                Ok(Buf { buffer, memory, ptr: p as *mut u8, size })
            }
            Err(e) => {
                d.destroy_buffer(buffer, None);
                d.free_memory(memory, None);
                Err(call("bind and map memory")(e))
            }
        }
    }

    /// Global-memory buffers holding `contents` (each at least 16 bytes, zero padded), at
    /// their device addresses (0 where the device has no buffer device addresses).
    pub fn global(&self, contents: &[&[u8]]) -> Result<GlobalMemory<'_>, VulkanError> {
        let mut mem = GlobalMemory { device: &self.device, broken: &self.broken, bufs: Vec::new(), regions: None };
        for c in contents {
            // SAFETY: a fresh buffer of at least `c.len()` mapped bytes.
            unsafe {
                let b = self.buffer(c.len())?;
                std::ptr::copy_nonoverlapping(c.as_ptr(), b.ptr, c.len());
                let addr = if self.bda { self.device.get_buffer_device_address(&vk::BufferDeviceAddressInfo::default().buffer(b.buffer)) } else { 0 };
                mem.bufs.push((b, addr));
            }
        }
        Ok(mem)
    }

    /// One heap buffer holding `contents` for heap-model kernels: region `i` at guest address
    /// `address(i)` from [`HEAP_BASE`] up, each on a 256-byte boundary (the kernel checks the
    /// heap's bounds, not a region's).
    pub fn heap(&self, contents: &[&[u8]]) -> Result<GlobalMemory<'_>, VulkanError> {
        let mut regions = Vec::with_capacity(contents.len());
        let mut at = HEAP_HEADER_WORDS as usize * 4;
        for c in contents {
            regions.push((at, c.len()));
            at = (at + c.len()).next_multiple_of(256) + HEAP_HEADER_WORDS as usize * 4;
        }
        // SAFETY: a fresh buffer of at least `at` mapped bytes; every region lies within it.
        unsafe {
            let b = self.buffer(at)?;
            for (c, &(off, _)) in contents.iter().zip(&regions) {
                std::ptr::copy_nonoverlapping(c.as_ptr(), b.ptr.add(off), c.len());
            }
            Ok(GlobalMemory { device: &self.device, broken: &self.broken, bufs: vec![(b, 0)], regions: Some(regions) })
        }
    }

    /// Guest memory holding `contents` as `model` needs it: [`Vulkan::global`] or
    /// [`Vulkan::heap`].
    pub fn memory(&self, model: MemoryModel, contents: &[&[u8]]) -> Result<GlobalMemory<'_>, VulkanError> {
        match model {
            MemoryModel::DeviceAddress => self.global(contents),
            MemoryModel::Heap => self.heap(contents),
        }
    }

    /// Run `k` over `job.invocations` invocations (workgroups of `k.workgroup_size`); returns
    /// `k.outputs` words per invocation. Global memory is whatever buffers the parameters
    /// and constant banks point into.
    pub fn run(&self, k: &Kernel, job: &Dispatch) -> Result<Vec<u64>, VulkanError> {
        self.run_in(k, job, None, 0).map(|r| r.0)
    }

    /// [`Vulkan::run`] with guest memory from [`Vulkan::memory`]: a heap-model kernel gets
    /// `memory`'s heap buffer, and a fault it records is [`VulkanError::OutOfHeap`].
    pub fn run_with(&self, k: &Kernel, job: &Dispatch, memory: &GlobalMemory) -> Result<Vec<u64>, VulkanError> {
        self.run_in(k, job, Some(memory), 0).map(|r| r.0)
    }

    /// [`Vulkan::run_with`]'s dispatch recorded `repeats` times (at least once) in one command
    /// buffer, each between two GPU timestamps, one after the other: each dispatch's time in
    /// nanoseconds. Memory is left as the last dispatch leaves it (a kernel that updates its
    /// buffers in place has run `repeats` times). A device without timestamps on its compute
    /// queue is [`VulkanError::Missing`] `timestampValidBits`.
    pub fn time_with(&self, k: &Kernel, job: &Dispatch, memory: &GlobalMemory, repeats: u32) -> Result<Vec<f64>, VulkanError> {
        self.run_in(k, job, Some(memory), repeats.max(1)).map(|r| r.1)
    }

    fn run_in(&self, k: &Kernel, job: &Dispatch, memory: Option<&GlobalMemory>, repeats: u32) -> Result<(Vec<u64>, Vec<f64>), VulkanError> {
        if self.is_broken() {
            return Err(VulkanError::Unusable);
        }
        let heap = match (k.memory, memory) {
            (MemoryModel::DeviceAddress, _) => None,
            (MemoryModel::Heap, Some(m)) if m.regions.is_some() => m.bufs.first().map(|b| &b.0),
            (MemoryModel::Heap, _) => return Err(VulkanError::Interface("a heap-model kernel needs heap memory (Vulkan::heap)".into())),
        };
        let missing = self.missing(&k.requires);
        if !missing.is_empty() {
            return Err(VulkanError::Missing { device: self.name.clone(), features: missing });
        }
        let limit = self.workgroup_memory_limit();
        if k.workgroup_bytes > limit {
            return Err(VulkanError::WorkgroupMemory { device: self.name.clone(), bytes: k.workgroup_bytes, limit });
        }
        let n = job.invocations as usize;
        if job.params.len() != n * k.params as usize {
            return Err(VulkanError::Interface(format!("{} parameter words for {n} invocations of {} each", job.params.len(), k.params)));
        }
        if let Some(b) = job.constant.iter().find(|b| b.len() > CONSTANT_BANK_BYTES as usize) {
            return Err(VulkanError::Interface(format!("a constant bank of {} bytes (at most {CONSTANT_BANK_BYTES})", b.len())));
        }
        let mut cbytes = vec![0u8; job.constant.len().max(1) * CONSTANT_BANK_BYTES as usize];
        for (i, b) in job.constant.iter().enumerate() {
            let at = i * CONSTANT_BANK_BYTES as usize;
            cbytes[at..at + b.len()].copy_from_slice(b);
        }
        let pbytes: Vec<u8> = job.params.iter().flat_map(|w| w.to_le_bytes()).collect();
        let outs = n * k.outputs as usize;
        let mem = self.global(&[&pbytes, &vec![0u8; outs * 8], &cbytes, &[0u8; 16]])?;
        // SAFETY: every handle below is made here and destroyed before returning; the wait
        // makes the outputs visible before they are read.
        let times = unsafe { self.dispatch(k, job.invocations, &mem, heap, repeats)? };
        let trap = mem.read(3).unwrap_or_default();
        let word = |i: usize| trap.get(8 * i..8 * i + 8).map_or(0, |b| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]));
        if word(0) != 0 {
            return Err(VulkanError::Trap { code: (word(0) - 1) as u16, invocation: word(1) as u32 });
        }
        if memory.is_some_and(|m| k.memory == MemoryModel::Heap && m.heap_fault()) {
            return Err(VulkanError::OutOfHeap);
        }
        let bytes = mem.read(1).unwrap_or_default();
        Ok((bytes.chunks_exact(8).take(outs).map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]])).collect(), times))
    }

    /// Record and run the kernel's dispatch (`repeats` timed dispatches when not 0); returns
    /// each timed dispatch's nanoseconds.
    unsafe fn dispatch(&self, k: &Kernel, invocations: u32, mem: &GlobalMemory, heap: Option<&Buf>, repeats: u32) -> Result<Vec<f64>, VulkanError> {
        let d = &self.device;
        let mut slots: Vec<(u32, vk::Buffer)> = [PARAMS_BINDING, OUTPUTS_BINDING, CONSTANT_BINDING, TRAP_BINDING].into_iter().zip(mem.bufs.iter().map(|(b, _)| b.buffer)).collect();
        slots.extend(heap.map(|h| (HEAP_BINDING, h.buffer)));
        let bindings: Vec<vk::DescriptorSetLayoutBinding> = slots
            .iter()
            .map(|&(b, _)| vk::DescriptorSetLayoutBinding::default().binding(b).descriptor_type(vk::DescriptorType::STORAGE_BUFFER).descriptor_count(1).stage_flags(vk::ShaderStageFlags::COMPUTE))
            .collect();
        let dsl = d.create_descriptor_set_layout(&vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings), None).map_err(call("create set layout"))?;
        let sizes = [vk::DescriptorPoolSize::default().ty(vk::DescriptorType::STORAGE_BUFFER).descriptor_count(slots.len() as u32)];
        let pool = d.create_descriptor_pool(&vk::DescriptorPoolCreateInfo::default().max_sets(1).pool_sizes(&sizes), None).map_err(call("create descriptor pool"))?;
        let layouts = [dsl];
        // The invocation count, then (heap model) the heap base at byte 8.
        let mut push = invocations.to_le_bytes().to_vec();
        if heap.is_some() {
            push.extend([0u8; 4]);
            push.extend(HEAP_BASE.to_le_bytes());
        }
        let ranges = [vk::PushConstantRange::default().stage_flags(vk::ShaderStageFlags::COMPUTE).offset(0).size(push.len() as u32)];
        let result = (|| {
            let set = d.allocate_descriptor_sets(&vk::DescriptorSetAllocateInfo::default().descriptor_pool(pool).set_layouts(&layouts)).map_err(call("allocate descriptor set"))?[0];
            let infos: Vec<[vk::DescriptorBufferInfo; 1]> = slots.iter().map(|&(_, b)| [vk::DescriptorBufferInfo::default().buffer(b).range(vk::WHOLE_SIZE)]).collect();
            let writes: Vec<vk::WriteDescriptorSet> = slots
                .iter()
                .map(|(b, _)| b)
                .zip(&infos)
                .map(|(&b, info)| vk::WriteDescriptorSet::default().dst_set(set).dst_binding(b).descriptor_type(vk::DescriptorType::STORAGE_BUFFER).buffer_info(info))
                .collect();
            d.update_descriptor_sets(&writes, &[]);
            let module = d.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&k.words), None).map_err(call("create shader module"))?;
            let pl = match d.create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default().set_layouts(&layouts).push_constant_ranges(&ranges), None) {
                Ok(p) => p,
                Err(e) => {
                    d.destroy_shader_module(module, None);
                    return Err(call("create pipeline layout")(e));
                }
            };
            let r = self.submit(k, invocations, &push, set, module, pl, repeats);
            if !self.is_broken() {
                d.destroy_pipeline_layout(pl, None);
                d.destroy_shader_module(module, None);
            }
            r
        })();
        // After a timeout the dispatch may still run: its objects stay alive.
        if !self.is_broken() {
            d.destroy_descriptor_pool(pool, None);
            d.destroy_descriptor_set_layout(dsl, None);
        }
        result
    }

    #[allow(clippy::too_many_arguments)]
    unsafe fn submit(&self, k: &Kernel, invocations: u32, push: &[u8], set: vk::DescriptorSet, module: vk::ShaderModule, pl: vk::PipelineLayout, repeats: u32) -> Result<Vec<f64>, VulkanError> {
        let d = &self.device;
        if repeats > 0 && self.instance.get_physical_device_queue_family_properties(self.pdev).get(self.family as usize).is_none_or(|q| q.timestamp_valid_bits == 0) {
            return Err(VulkanError::Missing { device: self.name.clone(), features: vec!["timestampValidBits"] });
        }
        let name = CString::new(k.entry.clone()).map_err(|_| VulkanError::Interface("entry point name with a NUL".into()))?;
        let stage = vk::PipelineShaderStageCreateInfo::default().stage(vk::ShaderStageFlags::COMPUTE).module(module).name(&name);
        let pipe = d
            .create_compute_pipelines(vk::PipelineCache::null(), &[vk::ComputePipelineCreateInfo::default().stage(stage).layout(pl)], None)
            .map_err(|(_, e)| call("create compute pipeline")(e))?[0];
        let cpool = match d.create_command_pool(&vk::CommandPoolCreateInfo::default().queue_family_index(self.family), None) {
            Ok(p) => p,
            Err(e) => {
                d.destroy_pipeline(pipe, None);
                return Err(call("create command pool")(e));
            }
        };
        let queries = match repeats {
            0 => None,
            n => match d.create_query_pool(&vk::QueryPoolCreateInfo::default().query_type(vk::QueryType::TIMESTAMP).query_count(2 * n), None) {
                Ok(q) => Some(q),
                Err(e) => {
                    d.destroy_command_pool(cpool, None);
                    d.destroy_pipeline(pipe, None);
                    return Err(call("create query pool")(e));
                }
            },
        };
        let r = (|| {
            let cb = d
                .allocate_command_buffers(&vk::CommandBufferAllocateInfo::default().command_pool(cpool).level(vk::CommandBufferLevel::PRIMARY).command_buffer_count(1))
                .map_err(call("allocate command buffer"))?[0];
            d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default()).map_err(call("begin command buffer"))?;
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipe);
            d.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::COMPUTE, pl, 0, &[set], &[]);
            d.cmd_push_constants(cb, pl, vk::ShaderStageFlags::COMPUTE, 0, push);
            let groups = invocations.div_ceil(k.workgroup_size.max(1)).max(1);
            if let Some(q) = queries {
                d.cmd_reset_query_pool(cb, q, 0, 2 * repeats);
                let serial = vk::MemoryBarrier::default()
                    .src_access_mask(vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::SHADER_READ)
                    .dst_access_mask(vk::AccessFlags::SHADER_WRITE | vk::AccessFlags::SHADER_READ);
                for i in 0..repeats {
                    d.cmd_write_timestamp(cb, vk::PipelineStageFlags::TOP_OF_PIPE, q, 2 * i);
                    d.cmd_dispatch(cb, groups, 1, 1);
                    d.cmd_write_timestamp(cb, vk::PipelineStageFlags::BOTTOM_OF_PIPE, q, 2 * i + 1);
                    d.cmd_pipeline_barrier(cb, vk::PipelineStageFlags::COMPUTE_SHADER, vk::PipelineStageFlags::COMPUTE_SHADER, vk::DependencyFlags::empty(), &[serial], &[], &[]);
                }
            } else {
                d.cmd_dispatch(cb, groups, 1, 1);
            }
            let barrier = vk::MemoryBarrier::default().src_access_mask(vk::AccessFlags::SHADER_WRITE).dst_access_mask(vk::AccessFlags::HOST_READ);
            d.cmd_pipeline_barrier(cb, vk::PipelineStageFlags::COMPUTE_SHADER, vk::PipelineStageFlags::HOST, vk::DependencyFlags::empty(), &[barrier], &[], &[]);
            d.end_command_buffer(cb).map_err(call("end command buffer"))?;
            let fence = d.create_fence(&vk::FenceCreateInfo::default(), None).map_err(call("create fence"))?;
            let cbs = [cb];
            let r = d.queue_submit(self.queue, &[vk::SubmitInfo::default().command_buffers(&cbs)], fence).and_then(|_| d.wait_for_fences(&[fence], true, self.wait_ns));
            match r {
                Ok(()) => d.destroy_fence(fence, None),
                // Vulkan cannot cancel the dispatch: leave everything it may use alive.
                Err(vk::Result::TIMEOUT) => {
                    self.broken.store(true, std::sync::atomic::Ordering::SeqCst);
                    return Err(VulkanError::Timeout { ms: self.wait_ns / 1_000_000 });
                }
                Err(vk::Result::ERROR_DEVICE_LOST) => {
                    self.broken.store(true, std::sync::atomic::Ordering::SeqCst);
                    return Err(VulkanError::DeviceLost { what: "submit and wait" });
                }
                Err(e) => {
                    d.destroy_fence(fence, None);
                    return Err(call("submit and wait")(e));
                }
            }
            let Some(q) = queries else { return Ok(Vec::new()) };
            let mut stamps = vec![0u64; 2 * repeats as usize];
            d.get_query_pool_results(q, 0, &mut stamps, vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT).map_err(call("read timestamps"))?;
            let period = f64::from(self.instance.get_physical_device_properties(self.pdev).limits.timestamp_period);
            Ok(stamps.chunks_exact(2).map(|p| p[1].wrapping_sub(p[0]) as f64 * period).collect())
        })();
        if self.is_broken() {
            return r;
        }
        if let Some(q) = queries {
            d.destroy_query_pool(q, None);
        }
        d.destroy_command_pool(cpool, None);
        d.destroy_pipeline(pipe, None);
        r
    }
}

impl Drop for Vulkan {
    fn drop(&mut self) {
        if self.is_broken() {
            // A timed-out dispatch may still be running: waiting for it could take forever,
            // and destroying the device under it is undefined. Leak the device instead.
            return;
        }
        // SAFETY: every object made on the device was destroyed by its owner.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}
