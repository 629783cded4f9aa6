//! A minimal Vulkan compute runner for the tests (ash): the first device whose name contains
//! `llvmpipe` (Mesa lavapipe), else the first device; checks the features a kernel requires;
//! runs one workgroup with the parameter, output and global-memory buffers of the emitter's
//! interface. The real runner (CLI, any device) is a later piece of issue 29.

use ash::vk;
use isabridge_targets::spirv::{Kernel, OUTPUTS_BINDING, PARAMS_BINDING};
use std::ffi::CString;

/// A device ready to run kernels.
pub struct Vulkan {
    _entry: ash::Entry,
    instance: ash::Instance,
    pdev: vk::PhysicalDevice,
    device: ash::Device,
    queue: vk::Queue,
    family: u32,
    /// The device's name.
    pub name: String,
}

struct Buf {
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    ptr: *mut u8,
    size: usize,
}

fn vkerr(what: &str) -> impl Fn(vk::Result) -> String + '_ {
    move |e| format!("{what}: {e}")
}

impl Vulkan {
    /// Open the device.
    pub fn new() -> Result<Vulkan, String> {
        unsafe {
            let entry = ash::Entry::load().map_err(|e| format!("libvulkan: {e}"))?;
            let app = vk::ApplicationInfo::default().api_version(vk::make_api_version(0, 1, 2, 0));
            let instance = entry.create_instance(&vk::InstanceCreateInfo::default().application_info(&app), None).map_err(vkerr("instance"))?;
            let pdevs = instance.enumerate_physical_devices().map_err(vkerr("devices"))?;
            let name_of = |p: vk::PhysicalDevice| {
                let props = instance.get_physical_device_properties(p);
                props.device_name_as_c_str().map(|c| c.to_string_lossy().into_owned()).unwrap_or_default()
            };
            let pdev = *pdevs.iter().find(|&&p| name_of(p).contains("llvmpipe")).or(pdevs.first()).ok_or("no Vulkan device")?;
            let name = name_of(pdev);
            let family = instance
                .get_physical_device_queue_family_properties(pdev)
                .iter()
                .position(|q| q.queue_flags.contains(vk::QueueFlags::COMPUTE))
                .ok_or("no compute queue")? as u32;
            let prio = [1.0f32];
            let qinfo = [vk::DeviceQueueCreateInfo::default().queue_family_index(family).queue_priorities(&prio)];
            let mut f12 = vk::PhysicalDeviceVulkan12Features::default().buffer_device_address(true);
            let features = vk::PhysicalDeviceFeatures::default().shader_int64(true);
            let dinfo = vk::DeviceCreateInfo::default().queue_create_infos(&qinfo).enabled_features(&features).push_next(&mut f12);
            let device = instance.create_device(pdev, &dinfo, None).map_err(vkerr("device"))?;
            let queue = device.get_device_queue(family, 0);
            Ok(Vulkan { _entry: entry, instance, pdev, device, queue, family, name })
        }
    }

    /// The features of `requires` this device lacks.
    pub fn missing(&self, requires: &[&'static str]) -> Vec<&'static str> {
        unsafe {
            let mut p12 = vk::PhysicalDeviceVulkan12Properties::default();
            let mut props = vk::PhysicalDeviceProperties2::default().push_next(&mut p12);
            self.instance.get_physical_device_properties2(self.pdev, &mut props);
            let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
            let mut feats = vk::PhysicalDeviceFeatures2::default().push_next(&mut f12);
            self.instance.get_physical_device_features2(self.pdev, &mut feats);
            let int64 = feats.features.shader_int64;
            requires
                .iter()
                .copied()
                .filter(|&r| {
                    let have = match r {
                        "shaderInt64" => int64,
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

    unsafe fn buffer(&self, size: usize) -> Result<Buf, String> {
        let d = &self.device;
        let info = vk::BufferCreateInfo::default()
            .size(size as u64)
            .usage(vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        let buffer = d.create_buffer(&info, None).map_err(vkerr("buffer"))?;
        let req = d.get_buffer_memory_requirements(buffer);
        let mp = self.instance.get_physical_device_memory_properties(self.pdev);
        let want = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let ty = (0..mp.memory_type_count)
            .find(|&i| req.memory_type_bits & (1 << i) != 0 && mp.memory_types[i as usize].property_flags.contains(want))
            .ok_or("no host-visible memory")?;
        let mut flags = vk::MemoryAllocateFlagsInfo::default().flags(vk::MemoryAllocateFlags::DEVICE_ADDRESS);
        let alloc = vk::MemoryAllocateInfo::default().allocation_size(req.size).memory_type_index(ty).push_next(&mut flags);
        let memory = d.allocate_memory(&alloc, None).map_err(vkerr("memory"))?;
        d.bind_buffer_memory(buffer, memory, 0).map_err(vkerr("bind"))?;
        let ptr = d.map_memory(memory, 0, req.size, vk::MemoryMapFlags::empty()).map_err(vkerr("map"))? as *mut u8;
        Ok(Buf { buffer, memory, ptr, size })
    }

    unsafe fn free(&self, b: Buf) {
        self.device.unmap_memory(b.memory);
        self.device.destroy_buffer(b.buffer, None);
        self.device.free_memory(b.memory, None);
    }

    /// A global-memory buffer of `size` bytes that stays alive for `f`, which gets its device
    /// address and returns what to do with it.
    pub fn with_global<T>(&self, size: usize, f: impl FnOnce(u64, &mut dyn FnMut(&Kernel, &[u64], &[u8]) -> Result<(Vec<u64>, Vec<u8>), String>) -> T) -> Result<T, String> {
        unsafe {
            let g = self.buffer(size.max(16))?;
            let addr = self.device.get_buffer_device_address(&vk::BufferDeviceAddressInfo::default().buffer(g.buffer));
            let mut run = |k: &Kernel, params: &[u64], global: &[u8]| -> Result<(Vec<u64>, Vec<u8>), String> {
                std::ptr::copy_nonoverlapping(global.as_ptr(), g.ptr, global.len().min(g.size));
                let out = self.dispatch(k, params)?;
                let mut back = vec![0u8; global.len().min(g.size)];
                std::ptr::copy_nonoverlapping(g.ptr, back.as_mut_ptr(), back.len());
                Ok((out, back))
            };
            let r = f(addr, &mut run);
            self.free(g);
            Ok(r)
        }
    }

    /// Run one workgroup of `k`: `params` holds `k.params` words per invocation; returns
    /// `k.outputs` words per invocation.
    unsafe fn dispatch(&self, k: &Kernel, params: &[u64]) -> Result<Vec<u64>, String> {
        let missing = self.missing(&k.requires);
        if !missing.is_empty() {
            return Err(format!("{} lacks {}", self.name, missing.join(", ")));
        }
        let d = &self.device;
        let n = k.workgroup_size as usize;
        let pb = self.buffer((params.len() * 8).max(16))?;
        std::ptr::copy_nonoverlapping(params.as_ptr() as *const u8, pb.ptr, params.len() * 8);
        let ob = self.buffer((n * k.outputs as usize * 8).max(16))?;
        std::ptr::write_bytes(ob.ptr, 0, ob.size);
        let bindings = [PARAMS_BINDING, OUTPUTS_BINDING]
            .map(|b| vk::DescriptorSetLayoutBinding::default().binding(b).descriptor_type(vk::DescriptorType::STORAGE_BUFFER).descriptor_count(1).stage_flags(vk::ShaderStageFlags::COMPUTE));
        let dsl = d.create_descriptor_set_layout(&vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings), None).map_err(vkerr("set layout"))?;
        let sizes = [vk::DescriptorPoolSize::default().ty(vk::DescriptorType::STORAGE_BUFFER).descriptor_count(2)];
        let pool = d.create_descriptor_pool(&vk::DescriptorPoolCreateInfo::default().max_sets(1).pool_sizes(&sizes), None).map_err(vkerr("pool"))?;
        let layouts = [dsl];
        let set = d.allocate_descriptor_sets(&vk::DescriptorSetAllocateInfo::default().descriptor_pool(pool).set_layouts(&layouts)).map_err(vkerr("set"))?[0];
        let infos = [[vk::DescriptorBufferInfo::default().buffer(pb.buffer).range(vk::WHOLE_SIZE)], [vk::DescriptorBufferInfo::default().buffer(ob.buffer).range(vk::WHOLE_SIZE)]];
        let writes = [
            vk::WriteDescriptorSet::default().dst_set(set).dst_binding(PARAMS_BINDING).descriptor_type(vk::DescriptorType::STORAGE_BUFFER).buffer_info(&infos[0]),
            vk::WriteDescriptorSet::default().dst_set(set).dst_binding(OUTPUTS_BINDING).descriptor_type(vk::DescriptorType::STORAGE_BUFFER).buffer_info(&infos[1]),
        ];
        d.update_descriptor_sets(&writes, &[]);
        let module = d.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&k.words), None).map_err(vkerr("shader module"))?;
        let pl = d.create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default().set_layouts(&layouts), None).map_err(vkerr("pipeline layout"))?;
        let name = CString::new(k.entry.clone()).map_err(|e| e.to_string())?;
        let stage = vk::PipelineShaderStageCreateInfo::default().stage(vk::ShaderStageFlags::COMPUTE).module(module).name(&name);
        let pipe = d
            .create_compute_pipelines(vk::PipelineCache::null(), &[vk::ComputePipelineCreateInfo::default().stage(stage).layout(pl)], None)
            .map_err(|(_, e)| format!("pipeline: {e}"))?[0];
        let cpool = d.create_command_pool(&vk::CommandPoolCreateInfo::default().queue_family_index(self.family), None).map_err(vkerr("command pool"))?;
        let cb = d
            .allocate_command_buffers(&vk::CommandBufferAllocateInfo::default().command_pool(cpool).level(vk::CommandBufferLevel::PRIMARY).command_buffer_count(1))
            .map_err(vkerr("command buffer"))?[0];
        d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default()).map_err(vkerr("begin"))?;
        d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipe);
        d.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::COMPUTE, pl, 0, &[set], &[]);
        d.cmd_dispatch(cb, 1, 1, 1);
        let barrier = vk::MemoryBarrier::default().src_access_mask(vk::AccessFlags::SHADER_WRITE).dst_access_mask(vk::AccessFlags::HOST_READ);
        d.cmd_pipeline_barrier(cb, vk::PipelineStageFlags::COMPUTE_SHADER, vk::PipelineStageFlags::HOST, vk::DependencyFlags::empty(), &[barrier], &[], &[]);
        d.end_command_buffer(cb).map_err(vkerr("end"))?;
        let fence = d.create_fence(&vk::FenceCreateInfo::default(), None).map_err(vkerr("fence"))?;
        let cbs = [cb];
        d.queue_submit(self.queue, &[vk::SubmitInfo::default().command_buffers(&cbs)], fence).map_err(vkerr("submit"))?;
        d.wait_for_fences(&[fence], true, 10_000_000_000).map_err(vkerr("wait"))?;
        let mut out = vec![0u64; n * k.outputs as usize];
        std::ptr::copy_nonoverlapping(ob.ptr, out.as_mut_ptr() as *mut u8, out.len() * 8);
        d.destroy_fence(fence, None);
        d.destroy_command_pool(cpool, None);
        d.destroy_pipeline(pipe, None);
        d.destroy_pipeline_layout(pl, None);
        d.destroy_shader_module(module, None);
        d.destroy_descriptor_pool(pool, None);
        d.destroy_descriptor_set_layout(dsl, None);
        self.free(pb);
        self.free(ob);
        Ok(out)
    }
}

impl Drop for Vulkan {
    fn drop(&mut self) {
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}
