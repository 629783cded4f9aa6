//! Typed errors with addresses: truncated bundles and instructions, misaligned input, unknown
//! opcodes; cubins read as ELF with their SM version.

use isabridge_decoder::disasm::disassemble;
use isabridge_decoder::elf;
use isabridge_decoder::{DecodeError, Isa};

fn fixture(p: &str) -> Vec<u8> {
    std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/nvidia").join(p)).unwrap()
}

#[test]
fn sm50_truncated_bundle_names_its_address() {
    let obj = elf::read(&fixture("bin/control.sm50.cubin")).unwrap();
    let s = &obj.sections[0];
    let cut = &s.data[..s.data.len() - 8];
    let r = disassemble(Isa::Sm50.plugin(), cut, 0x100, &s.name, &[], |_| {});
    let bundle = (cut.len() / 32 * 32) as u64;
    assert_eq!(r, Err(DecodeError::Truncated { isa: Isa::Sm50, addr: 0x100 + bundle, need: 32, have: 24 }));
    assert_eq!(
        r.unwrap_err().to_string(),
        format!("sm50: truncated instruction at {:#x}: needs 32 bytes, 24 left", 0x100 + bundle)
    );
}

#[test]
fn sm86_truncated_instruction_names_its_address() {
    let obj = elf::read(&fixture("bin/control.sm86.cubin")).unwrap();
    let s = &obj.sections[0];
    let cut = &s.data[..s.data.len() - 3];
    let r = disassemble(Isa::Sm86.plugin(), cut, 0, &s.name, &[], |_| {});
    let at = (cut.len() / 16 * 16) as u64;
    assert_eq!(r, Err(DecodeError::Truncated { isa: Isa::Sm86, addr: at, need: 16, have: 13 }));
    assert_eq!(Isa::Sm86.plugin().decode(&[0u8; 15], 0x40).unwrap_err(), DecodeError::Truncated { isa: Isa::Sm86, addr: 0x40, need: 16, have: 15 });
}

#[test]
fn misaligned_addresses_are_errors() {
    let nop86 = 0x000fc00000000000_0000000000007918u128.to_le_bytes();
    assert_eq!(
        Isa::Sm86.plugin().decode(&nop86, 0x18),
        Err(DecodeError::Misaligned { isa: Isa::Sm86, addr: 0x18, unit: 16 })
    );
    assert_eq!(
        Isa::Sm50.plugin().decode(&[0u8; 16], 0x4),
        Err(DecodeError::Misaligned { isa: Isa::Sm50, addr: 0x4, unit: 8 })
    );
    assert_eq!(
        Isa::Sm50.plugin().decode(&[0u8; 16], 0x4).unwrap_err().to_string(),
        "sm50: misaligned input at 0x4: instructions are 8-byte aligned"
    );
}

#[test]
fn unknown_opcode_is_a_typed_error() {
    // sm86 opcode 0x000 is not an instruction (nvdisasm rejects it).
    let w = [0u8; 16];
    assert_eq!(Isa::Sm86.plugin().decode(&w, 0x20), Err(DecodeError::Unknown { isa: Isa::Sm86, addr: 0x20, word: 0 }));
}

#[test]
fn sm50_bundle_start_reads_control_word_and_first_instruction() {
    // control.sm50: bundle 0 = control word, MOV R1, c[0x0][0x20] at 0x8 (nvdisasm).
    let obj = elf::read(&fixture("bin/control.sm50.cubin")).unwrap();
    assert_eq!(obj.isa, Isa::Sm50);
    let s = &obj.sections[0];
    let p = Isa::Sm50.plugin();
    let d = p.decode(&s.data, 0).unwrap();
    assert_eq!(d.len, 16);
    let mut t = String::new();
    p.print(&d, 0, &mut t);
    assert_eq!(t, "MOV R1, c[0x0][0x20]");
    assert_eq!(p.encode(&d), s.data[..16].to_vec());
}

#[test]
fn cubins_name_their_sm_and_kernels() {
    let obj = elf::read(&fixture("bin/control.sm86.cubin")).unwrap();
    assert_eq!(obj.isa, Isa::Sm86);
    let names: Vec<_> = obj.sections.iter().map(|s| s.name.as_str()).collect();
    assert!(names.contains(&".text.calls") && names.contains(&".text.divergent"), "{names:?}");
    let mut lines = Vec::new();
    let s = obj.sections.iter().find(|s| s.name == ".text.calls").unwrap();
    disassemble(Isa::Sm86.plugin(), &s.data, 0, &s.name, &s.labels, |l| {
        lines.push((l.function.to_string(), l.offset, l.text.to_string()))
    })
    .unwrap();
    // First line of fixtures/nvidia/ref/control.sm86.jsonl.
    assert_eq!(lines[0], ("calls".to_string(), 0, "IMAD.MOV.U32 R1, RZ, RZ, c[0x0][0x28]".to_string()));
}
