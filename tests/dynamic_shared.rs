//! Dynamic shared memory (CUDA's `extern __shared__`): [`Options::dynamic_shared`] sizes the
//! SPIR-V module's Workgroup array, [`Launch::dynamic_shared`] a launch's shared memory, both
//! after the kernel's static shared memory. fixtures/nvidia/src/memory.cu `mem_shared` writes
//! and reads `dyn_smem`, its `extern __shared__` array, which starts at 0x1300 (the kernel's
//! 4,864 static bytes: `tile` at 0, `dtile` at 0x1080, `btile` at 0x1280, as the sm_50 listing's
//! `STS` offsets show).

use isabridge::cuda_launch::{self, run_interp, Launch, VulkanInputs};
use isabridge::decoder::elf::nvinfo::{cuda_kernels, find_kernel, KernelAbi};
use isabridge::targets::vulkan::{Vulkan, VulkanError};
use isabridge::{Error, Isa, Options, Source, Target, Translator, WorkgroupMemory};
use std::path::Path;

fn cubin(isa: Isa) -> Vec<u8> {
    let name = if isa == Isa::Sm50 { "memory.sm50.cubin" } else { "memory.sm86.cubin" };
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/nvidia/bin").join(name)).unwrap()
}

fn mem_shared(code: &[u8]) -> KernelAbi {
    find_kernel(&cuda_kernels(code).unwrap(), "mem_shared").unwrap().clone()
}

/// The bytes `dyn_smem[(t + n) & 255]` needs: 256 floats.
const DYNAMIC: u32 = 1024;
/// `mem_shared`'s static shared memory (`.nv.shared.mem_shared`).
const STATIC: u32 = 4864;
/// Where the launch's buffers lie (both runs see these addresses on the interpreter).
const OUT: u64 = 0x1_0000_0000;
const IN: u64 = 0x2_0000_0000;
/// The `n` argument: thread t reads `dyn_smem[(t + 250) & 255]`, which threads 6 and up find
/// written (by thread t - 6), and sm_86 stores `out[i + n]`, `out[i + 2n]`, `out[i + 3n]`
/// past the 64 words of `out[i]`.
const N: u32 = 250;

/// 1,024 finite floats (no NaN payloads, no subnormals: the model's f32 adds are the
/// kernel's).
fn input() -> Vec<f32> {
    let mut s = 0x9e37_79b9u32;
    (0..1024)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (s % 20001) as f32 / 64.0 - 150.0
        })
        .collect()
}

fn launch(k: &KernelAbi, input: &[f32], dynamic_shared: u32) -> Launch {
    let bytes: Vec<u8> = input.iter().flat_map(|x| x.to_le_bytes()).collect();
    Launch {
        grid: [2, 1, 1],
        block: [32, 1, 1],
        params: k.params.iter().enumerate().map(|(p, _)| [OUT, IN, N as u64][p]).collect(),
        global: vec![(OUT, vec![0; 4096]), (IN, bytes)],
        globals_at: None,
        dynamic_shared,
    }
}

/// `mem_shared`'s `out[i]` and (sm_86) `out[i + n]` for block `blk`, thread by thread, as the
/// CUDA source computes them when a warp's 32 threads run each instruction together (as the
/// interpreter runs them): every load between the barrier and the `st.shared` stores sees the
/// shared memory the stores before the barrier left.
fn model(input: &[f32], blk: usize) -> Vec<(u32, u32)> {
    let mut sh = vec![0u8; (STATIC + DYNAMIC) as usize];
    let put = |sh: &mut Vec<u8>, at: usize, b: &[u8]| sh[at..at + b.len()].copy_from_slice(b);
    for t in 0..32 {
        let i = blk * 32 + t;
        put(&mut sh, (t & 31) * 132 + (t >> 5) * 4, &input[i].to_le_bytes());
        put(&mut sh, 0x1080 + 8 * (t & 63), &(input[i + 1] as f64).to_le_bytes());
        sh[0x1280 + (t & 127)] = i as u8;
        put(&mut sh, 0x1300 + 4 * t, &input[i + 2].to_le_bytes());
    }
    let u32_at = |at: usize| u32::from_le_bytes(sh[at..at + 4].try_into().unwrap());
    let f32_at = |at: usize| f32::from_bits(u32_at(at));
    (0..32)
        .map(|t| {
            let dtile = f64::from_le_bytes(sh[0x1080 + 8 * ((t + 1) & 63)..][..8].try_into().unwrap());
            let mut s = f32_at(4 * t) + dtile as f32;
            s += f32::from(sh[0x1280 + ((t * 3) & 127)]);
            s += f32_at(0x1300 + 4 * ((t + N as usize) & 255));
            s += (u32_at(16 * t) ^ u32_at(16 * t + 4) ^ u32_at(16 * t + 8) ^ u32_at(16 * t + 12)) as f32;
            s += u64::from_le_bytes(sh[8 * t + 8..][..8].try_into().unwrap()) as f32;
            s += f32::from(i16::from_le_bytes([sh[2 * t], sh[2 * t + 1]]));
            (s.to_bits(), f32_at(0x1300 + 4 * (t + 1)).to_bits())
        })
        .collect()
}

fn word(out: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(out[4 * i..4 * i + 4].try_into().unwrap())
}

/// On the interpreter, a launch with the 1,024 dynamic bytes the source needs writes what the
/// model computes (sm_50 and sm_86); without them, the first `dyn_smem` store is out of bounds.
#[test]
fn mem_shared_runs_with_its_dynamic_shared_memory_on_the_interpreter() {
    let input = input();
    for isa in [Isa::Sm50, Isa::Sm86] {
        let code = cubin(isa);
        let k = mem_shared(&code);
        assert_eq!(k.shared_bytes, STATIC);
        let f = Translator::default().lift(&code, &Source::object(isa, 32, Some("mem_shared"))).unwrap();
        let e = run_interp(isa, &f, &k, launch(&k, &input, 0)).unwrap_err();
        assert!(e.ends_with("out-of-bounds Shared access of 4 bytes at 0x1300"), "{isa}: {e}");
        let mem = run_interp(isa, &f, &k, launch(&k, &input, DYNAMIC)).unwrap();
        let out = &mem.iter().find(|g| g.0 == OUT).unwrap().1;
        for blk in 0..2 {
            for (t, (s, after)) in model(&input, blk).into_iter().enumerate() {
                let i = blk * 32 + t;
                assert_eq!(word(out, i), s, "{isa}: out[{i}]");
                if isa == Isa::Sm86 {
                    assert_eq!(word(out, i + N as usize), after, "{isa}: out[{i} + n]");
                }
            }
        }
        // More than a block may have is an error, not a panic.
        let e = run_interp(isa, &f, &k, launch(&k, &input, cuda_launch::max_shared_bytes(isa) - STATIC + 1)).unwrap_err();
        assert!(e.contains("bytes a block may have"), "{e}");
    }
}

/// The translator's option sizes the module's Workgroup array and the artifact says so; the
/// Vulkan run reads `dyn_smem` as the interpreter does (sm_86 `out[i + n]`, which the barrier
/// orders: the words of `out[i]` also read shared words other threads store after the barrier
/// without synchronisation, whose values depend on the device's order of the warp's threads).
#[test]
fn mem_shared_module_holds_its_dynamic_shared_memory() {
    let input = input();
    let code = cubin(Isa::Sm86);
    let k = mem_shared(&code);
    let source = Source::object(Isa::Sm86, 32, Some("mem_shared"));
    let t = Translator::new(Options::default().with_dynamic_shared(DYNAMIC));
    let a = t.translate(&code, &source, Target::Spirv).unwrap();
    let wm = a.entry_points[0].workgroup_memory;
    assert_eq!((wm.static_bytes, wm.dynamic_bytes), (STATIC, DYNAMIC));
    // The guest's bytes and the cross-lane exchange's (ldmatrix: three banks of 32 slots of
    // 8 bytes, two banks).
    assert_eq!(wm.total_bytes, STATIC + DYNAMIC + 2 * 3 * 32 * 8);
    let kernel = a.spirv_kernel().unwrap();
    assert_eq!((kernel.shared_bytes, kernel.workgroup_bytes), (STATIC + DYNAMIC, wm.total_bytes));
    let vk = Vulkan::open(None).unwrap();
    let got = cuda_launch::run_vulkan(&vk, Isa::Sm86, &kernel, &k, launch(&k, &input, DYNAMIC)).unwrap();
    let out = &got.iter().find(|g| g.0 == OUT).unwrap().1;
    for blk in 0..2 {
        for (t, (_, after)) in model(&input, blk).into_iter().enumerate() {
            assert_eq!(word(out, blk * 32 + t + N as usize), after, "out[{} + n]", blk * 32 + t);
        }
    }
    // A module without the dynamic bytes does not run a launch that has them.
    let plain = Translator::default().translate(&code, &source, Target::Spirv).unwrap();
    assert_eq!(plain.entry_points[0].workgroup_memory.dynamic_bytes, 0);
    let e = cuda_launch::run_vulkan(&vk, Isa::Sm86, &plain.spirv_kernel().unwrap(), &k, launch(&k, &input, DYNAMIC)).unwrap_err();
    assert!(e.contains("the module has 4864 bytes of shared memory, the launch needs 5888"), "{e}");
}

/// Sizes past a block's (48 KiB on sm_50, 99 KiB on sm_86) and dynamic bytes for AMD code are
/// typed translation errors; a module larger than the device's workgroup memory is the
/// runner's typed error.
#[test]
fn too_much_shared_memory_is_a_typed_error() {
    let code = cubin(Isa::Sm50);
    let source = Source::object(Isa::Sm50, 32, Some("mem_shared"));
    let over = Translator::new(Options::default().with_dynamic_shared(48 * 1024 - STATIC + 1));
    match over.translate(&code, &source, Target::Spirv) {
        Err(Error::SharedMemory { isa: Isa::Sm50, kernel, static_bytes: STATIC, dynamic_bytes, limit: 49152 }) => {
            assert_eq!((kernel.as_str(), dynamic_bytes), ("mem_shared", 48 * 1024 - STATIC + 1));
        }
        r => panic!("{r:?}"),
    }
    let wrapping = Translator::new(Options::default().with_dynamic_shared(u32::MAX));
    assert!(matches!(wrapping.translate(&code, &source, Target::Spirv), Err(Error::SharedMemory { .. })));
    let amd = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/amd/bin/cl_lanes.gfx1013-w32.o")).unwrap();
    let t = Translator::new(Options::default().with_dynamic_shared(4));
    let name = t.kernels(&amd, &Source::object(Isa::Gfx1013, 32, None)).unwrap().remove(0);
    assert!(matches!(t.translate(&amd, &Source::object(Isa::Gfx1013, 32, Some(&name)), Target::Spirv), Err(Error::Unsupported { .. })));
    assert!(matches!(t.translate(&amd, &Source::object(Isa::Gfx1013, 32, None), Target::Gfx1201), Err(Error::Unsupported { .. })));

    // The most sm_86 allows: more than any Vulkan device here gives a workgroup.
    let code = cubin(Isa::Sm86);
    let k = mem_shared(&code);
    let most = cuda_launch::max_shared_bytes(Isa::Sm86) - STATIC;
    let a = Translator::new(Options::default().with_dynamic_shared(most)).translate(&code, &Source::object(Isa::Sm86, 32, Some("mem_shared")), Target::Spirv).unwrap();
    assert_eq!(a.entry_points[0].workgroup_memory, WorkgroupMemory { static_bytes: STATIC, dynamic_bytes: most, total_bytes: 101376 + 2 * 3 * 32 * 8 });
    let kernel = a.spirv_kernel().unwrap();
    let vk = Vulkan::open(None).unwrap();
    let limit = vk.workgroup_memory_limit();
    assert!(limit < kernel.workgroup_bytes, "{}: {limit}", vk.name());
    let l = launch(&k, &input(), most);
    let mem = vk.memory(kernel.memory, &l.global.iter().map(|g| g.1.as_slice()).collect::<Vec<_>>()).unwrap();
    let job = VulkanInputs::new(&mem, Isa::Sm86, &kernel, &k, &l).unwrap();
    assert_eq!(vk.run_with(&kernel, &job.dispatch(), &mem), Err(VulkanError::WorkgroupMemory { device: vk.name().to_string(), bytes: kernel.workgroup_bytes, limit }));
}
