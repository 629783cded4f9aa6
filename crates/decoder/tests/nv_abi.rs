//! The kernel ABI read from cubins (`elf::nvinfo`): parameter offsets in constant bank 0,
//! register counts, shared memory, kernel lookup by plain or mangled name. Expected values are
//! what nvdisasm 12.8 prints for the committed capture cubins (fixtures/hw/capture.sm*.txt:
//! `SHI_REGISTERS`) and the parameter reads ptxas emitted there (`c[0x0][0x160]` ... on sm_86,
//! `c[0x0][0x140]` ... on sm_50).

use isabridge_decoder::elf::nvinfo::{cuda_kernels, find_kernel, mangled_ident};

fn cubin(sm: u32) -> Vec<u8> {
    std::fs::read(format!("{}/../../fixtures/hw/capture.sm{sm}.cubin", env!("CARGO_MANIFEST_DIR"))).expect("capture cubin")
}

/// Register counts by kernel name as nvdisasm lists them.
fn listed_registers(sm: u32) -> Vec<(String, u32)> {
    let text = std::fs::read_to_string(format!("{}/../../fixtures/hw/capture.sm{sm}.txt", env!("CARGO_MANIFEST_DIR"))).expect("listing");
    let mut out = Vec::new();
    let mut name = None;
    for l in text.lines() {
        if let Some(s) = l.trim().strip_prefix(".section\t.text.") {
            name = s.split(',').next().map(str::to_string);
        }
        if let Some(r) = l.trim().strip_prefix(".sectioninfo\t@\"SHI_REGISTERS=") {
            let n: u32 = r.trim_end_matches('"').parse().expect("count");
            out.push((name.take().expect("section before its info"), n));
        }
    }
    out
}

#[test]
fn capture_kernels_have_their_parameters_and_registers() {
    for (sm, base) in [(86, 0x160), (50, 0x140)] {
        let ks = cuda_kernels(&cubin(sm)).expect("reads");
        let listed = listed_registers(sm);
        assert_eq!(ks.len(), listed.len(), "sm_{sm} kernel count");
        for (name, regs) in &listed {
            let k = ks.iter().find(|k| &k.name == name).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(k.registers, *regs, "sm_{sm} {name}");
            // (const Row* in, u32* out, int n)
            let p: Vec<(u32, u32, u32)> = k.params.iter().map(|p| (p.ordinal, p.offset, p.size)).collect();
            assert_eq!(p, vec![(0, base, 8), (1, base + 8, 8), (2, base + 16, 4)], "sm_{sm} {name}");
            assert_eq!((k.param_base, k.param_bytes, k.shared_bytes), (base, 20, 0), "sm_{sm} {name}");
        }
        let k = find_kernel(&ks, "k_add_rn").expect("plain name");
        assert_eq!(k.name, "_Z8k_add_rnPK3RowPji");
        assert_eq!(find_kernel(&ks, "_Z8k_add_rnPK3RowPji").map(|k| &k.name), Some(&k.name));
        assert!(find_kernel(&ks, "k_add").is_none());
    }
    assert_eq!(mangled_ident("_Z13k_vote_ballotPK3RowPji"), Some("k_vote_ballot"));
    assert_eq!(mangled_ident("main"), None);
}

#[test]
fn shared_memory_and_garbage() {
    // barriers.cu declares shared arrays: every kernel that uses one has a size.
    let dir = format!("{}/../../fixtures/nvidia/bin", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(format!("{dir}/barriers.sm86.cubin")).expect("cubin");
    let ks = cuda_kernels(&bytes).expect("reads");
    assert!(ks.iter().any(|k| k.shared_bytes > 0), "{ks:?}");
    // Truncated and mutated cubins give errors or partial answers, never a panic.
    for cut in [0, 10, 64, 200, bytes.len() / 2] {
        let _ = cuda_kernels(&bytes[..cut]);
    }
    let mut m = bytes.clone();
    for i in (0..m.len()).step_by(97) {
        m[i] ^= 0x5a;
        let _ = cuda_kernels(&m);
    }
}
