//! Translate a cubin kernel to SPIR-V with `isabridge::Translator` and run it on Vulkan (Mesa
//! lavapipe when installed), then check its results against a Rust model of the CUDA source.
//!
//! ```sh
//! cargo run --release --features vulkan --example translate
//! ```
//!
//! The kernel is `predicates` of fixtures/nvidia/src/special.cu (sm_86 build in
//! fixtures/nvidia/bin/special.sm86.cubin): `predicates(int *out, const int *a, const int *b)`,
//! where thread `i` writes 16 words from `out + 16 * i`; the example checks the five it models.

use isabridge::targets::vulkan::{Dispatch, Vulkan};
use isabridge::{Isa, Options, Resource, Source, Target, Translator};

/// Threads launched: one block of 32.
const THREADS: usize = 32;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/nvidia/bin/special.sm86.cubin");
    let code = std::fs::read(path)?;
    let translator = Translator::new(Options::default());
    let artifact = translator.translate(&code, &Source::object(Isa::Sm86, 32, Some("predicates")), Target::Spirv)?;
    let entry = &artifact.entry_points[0];
    println!("{}: {} bytes of SPIR-V, entry point {} ({:?} invocations per workgroup)", entry.kernel, artifact.bytes.len(), entry.name, entry.workgroup_size);
    for b in &artifact.bindings {
        println!("  set {} binding {}: {:?}", b.set, b.binding, b.resource);
    }

    // Inputs: a[i] and b[i] from a small generator, with zeros and equal pairs among them.
    let mut seed = 0x2545_f491_u32;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        (seed % 64) as i32 - 16
    };
    let a: Vec<i32> = (0..THREADS).map(|_| next()).collect();
    let b: Vec<i32> = (0..THREADS).map(|i| if i % 5 == 0 { a[i] } else { next() }).collect();
    let bytes = |v: &[i32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let out = vec![0u8; THREADS * 16 * 4];

    let vk = Vulkan::open(None)?;
    println!("device: {}", vk.name());
    let memory = vk.global(&[&out, &bytes(&a), &bytes(&b)])?;
    let addr = |i: usize| memory.address(i).ok_or("no buffer address");

    // Constant bank 0 as the CUDA driver fills it for sm_86 code: ntid at 0x0, nctaid at 0xc
    // (where ptxas's code reads %ntid and %nctaid), the arguments at the offsets the artifact
    // lists (from the cubin's .nv.info), pointers as buffer device addresses.
    let Some(Resource::ConstantBanks { kernel_args, .. }) = artifact.binding(|r| matches!(r, Resource::ConstantBanks { .. })).map(|b| &b.resource) else {
        return Err("no constant-bank binding".into());
    };
    let mut bank0 = vec![0u8; 0x200];
    bank0[0..4].copy_from_slice(&(THREADS as u32).to_le_bytes());
    bank0[0xc..0x10].copy_from_slice(&1u32.to_le_bytes());
    for (n, &(offset, size)) in kernel_args.iter().enumerate() {
        let v = addr(n)?.to_le_bytes();
        bank0[offset as usize..(offset + size) as usize].copy_from_slice(&v[..size as usize]);
    }
    let mut banks = vec![bank0];
    for (n, b) in &artifact.constant_banks {
        banks.resize((*n as usize + 1).max(banks.len()), Vec::new());
        banks[*n as usize] = b.clone();
    }

    // Per-invocation inputs: the special registers the kernel reads, by the names the
    // artifact gives them.
    let Some(Resource::InvocationInputs { names }) = artifact.binding(|r| matches!(r, Resource::InvocationInputs { .. })).map(|b| &b.resource) else {
        return Err("no invocation-input binding".into());
    };
    let params: Vec<u64> = (0..THREADS).flat_map(|t| names.iter().map(move |n| if n == "SR_TID.X" { t as u64 } else { 0 })).collect();
    let kernel = artifact.spirv_kernel().ok_or("not a SPIR-V artifact")?;
    vk.run(&kernel, &Dispatch { invocations: THREADS as u32, params: &params, constant: &banks })?;

    // The words of `out` the Rust model gives (special.cu, lines 29-33).
    let result = memory.read(0).ok_or("no output buffer")?;
    let word = |i: usize| i32::from_le_bytes(result[4 * i..4 * i + 4].try_into().unwrap_or([0; 4]));
    let mut wrong = 0;
    for i in 0..THREADS {
        let (x, y) = (a[i], b[i]);
        // s = (x < y and x > 0) or not x < y; the select takes x when s is false.
        let s = x >= y || x > 0;
        let model = [if !s { x } else { y }, x, if x != 0 { y } else { 42 }, if x != 0 { 2 } else { 1 }, if x > y { x } else { y.wrapping_mul(3) }];
        let got: Vec<i32> = (0..5).map(|k| word(16 * i + k)).collect();
        if got != model {
            wrong += 1;
            println!("thread {i}: a={x} b={y}: got {got:?}, model {model:?}");
        }
    }
    println!("{} of {THREADS} threads equal the model", THREADS - wrong);
    if wrong > 0 {
        return Err("results differ from the model".into());
    }
    Ok(())
}
