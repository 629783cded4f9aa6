//! Running a lifted AMD (wave-model) function for one workgroup through a translation path:
//! `interp` (and `gfx1201`, whose function is a lifted translation) on the reference
//! interpreter, `spirv` as SPIR-V on Vulkan (lavapipe by default),
//! one invocation per lane and one Vulkan workgroup per wave. For SPIR-V, each global-memory
//! region becomes a Vulkan buffer, and a buffer descriptor among the uniform inputs (four
//! words from a multiple of four, base address in word 0 and the low 16 bits of word 1) that
//! points into a region gets the buffer's device address at the same offset; so does a BVH
//! node-memory descriptor (base address >> 8 in word 0, bits 40..47 in word 1's low byte), whose
//! relocated base must stay a multiple of 256.

use isabridge_ir::interp::{self, Config, Input, Memory};
use isabridge_ir::Function;
use isabridge_targets::vulkan::Dispatch;

/// Run `f` for one workgroup as `cfg` describes it, through `via` (`interp` or `spirv`);
/// returns the memory afterwards. Only global memory comes back from `spirv`.
pub fn run(via: &str, f: &Function, cfg: &Config, ins: &[Input], mem: Memory) -> Result<Memory, String> {
    match via {
        "interp" | "gfx1201" => interp::run(f, cfg, ins, mem).map(|r| r.memory).map_err(|e| format!("interpreter: {e}")),
        "spirv" => run_spirv(f, cfg, ins, mem).map_err(|e| format!("spirv: {e}")),
        _ => Err(format!("--via {via}: `interp` and `spirv` run today")),
    }
}

fn run_spirv(f: &Function, cfg: &Config, ins: &[Input], mem: Memory) -> Result<Memory, String> {
    if !mem.constant.is_empty() || !mem.shared.is_empty() {
        return Err("constant banks and preset shared memory are not passed to SPIR-V yet".into());
    }
    let mut f = f.clone();
    isabridge_ir::passes::run_pipeline(&mut f).map_err(|e| format!("pipeline: {e}"))?;
    let opts = isabridge_targets::spirv::EmitOptions { scratch_bytes: u32::try_from(cfg.scratch_bytes).unwrap_or(u32::MAX), ..Default::default() };
    let kernel = isabridge_targets::spirv::emit_with(&f, &opts).map_err(|e| e.to_string())?;
    if kernel.workgroup_size != cfg.wave_size {
        return Err(format!("the function is for waves of {} lanes, the run for {}", kernel.workgroup_size, cfg.wave_size));
    }
    let vk = crate::vk::device()?;
    let contents: Vec<&[u8]> = mem.global.iter().map(|(_, v)| v.as_slice()).collect();
    let gm = vk.global(&contents).map_err(|e| e.to_string())?;
    let relocate = |v: u64| -> Option<u64> {
        for (i, (base, bytes)) in mem.global.iter().enumerate() {
            if v >= *base && v - *base <= bytes.len() as u64 {
                return gm.address(i).map(|a| a + (v - base));
            }
        }
        None
    };
    let mut uniform: Vec<Option<u64>> = ins.iter().map(|i| if let Input::Uniform(v) = i { Some(*v) } else { None }).collect();
    let mut i = 0;
    while i + 1 < uniform.len() {
        if let (Some(w0), Some(w1)) = (uniform[i], uniform[i + 1]) {
            let base = w0 & 0xffff_ffff | (w1 & 0xffff) << 32;
            let node_base = (w0 & 0xffff_ffff) << 8 | (w1 & 0xff) << 40;
            if let Some(a) = relocate(base) {
                if a >> 48 != 0 {
                    return Err(format!("device address {a:#x} does not fit a 48-bit descriptor base"));
                }
                uniform[i] = Some(a & 0xffff_ffff);
                uniform[i + 1] = Some(w1 & !0xffff | (a >> 32) & 0xffff);
            } else if let Some(a) = relocate(node_base) {
                if a >> 48 != 0 || a % 256 != 0 {
                    return Err(format!("device address {a:#x} is not a 256-byte aligned 48-bit BVH node base"));
                }
                uniform[i] = Some(a >> 8 & 0xffff_ffff);
                uniform[i + 1] = Some(w1 & !0xff | (a >> 40) & 0xff);
            }
        }
        i += 4;
    }
    let total = cfg.wave_size as usize * cfg.waves as usize;
    let np = kernel.params as usize;
    let mut words = Vec::with_capacity(total * np);
    for g in 0..total {
        for p in 0..np {
            words.push(match (ins.get(p), uniform.get(p)) {
                (_, Some(Some(v))) => *v,
                (Some(Input::PerLane(vs)), _) => vs.get(g).copied().unwrap_or(0),
                _ => 0,
            });
        }
    }
    vk.run(&kernel, &Dispatch { invocations: total as u32, params: &words, constant: &[] }).map_err(|e| e.to_string())?;
    let mut global = Vec::new();
    for (i, (base, bytes)) in mem.global.iter().enumerate() {
        let mut back = gm.read(i).unwrap_or_default();
        back.truncate(bytes.len());
        global.push((*base, back));
    }
    Ok(Memory { global, ..Memory::default() })
}
