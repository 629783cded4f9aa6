//! The generated tables are checked in (src/generated/) for review; they must equal what build.rs
//! generates from isa-specs/ (and, for the AMD rejection rules and operand-model facts, from
//! src/amd/reject_*.tsv and data/amd_model.tsv) now. Refresh with
//! `ISABRIDGE_UPDATE_GENERATED=1 cargo build -p isabridge-decoder`.

#[path = "../codegen.rs"]
#[allow(dead_code)]
mod codegen;

#[test]
fn generated_tables_are_current() {
    let pairs = [
        (include_str!(concat!(env!("OUT_DIR"), "/gfx10.rs")), include_str!("../src/generated/gfx10.rs"), "gfx10"),
        (include_str!(concat!(env!("OUT_DIR"), "/gfx12.rs")), include_str!("../src/generated/gfx12.rs"), "gfx12"),
        (include_str!(concat!(env!("OUT_DIR"), "/sm50.rs")), include_str!("../src/generated/sm50.rs"), "sm50"),
        (include_str!(concat!(env!("OUT_DIR"), "/sm86.rs")), include_str!("../src/generated/sm86.rs"), "sm86"),
        (include_str!(concat!(env!("OUT_DIR"), "/nv_shared.rs")), include_str!("../src/generated/nv_shared.rs"), "nv_shared"),
        (include_str!(concat!(env!("OUT_DIR"), "/gfx10_reject.rs")), include_str!("../src/generated/gfx10_reject.rs"), "gfx10_reject"),
        (include_str!(concat!(env!("OUT_DIR"), "/gfx12_reject.rs")), include_str!("../src/generated/gfx12_reject.rs"), "gfx12_reject"),
        (include_str!(concat!(env!("OUT_DIR"), "/gfx10_model.rs")), include_str!("../src/generated/gfx10_model.rs"), "gfx10_model"),
        (include_str!(concat!(env!("OUT_DIR"), "/gfx12_model.rs")), include_str!("../src/generated/gfx12_model.rs"), "gfx12_model"),
    ];
    for (now, checked_in, name) in pairs {
        assert!(now.starts_with("// @generated") && now.contains("DO NOT EDIT"));
        assert!(now == checked_in, "src/generated/{name}.rs is stale: run ISABRIDGE_UPDATE_GENERATED=1 cargo build -p isabridge-decoder");
    }
}

/// The generator reads AMD's own machine-readable ISA files: every verbatim excerpt parses, and
/// what it holds comes out with the values AMD wrote.
#[test]
fn amd_excerpts_parse() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/isa-specs-excerpts/amd");
    let mut n = 0;
    let mut paths: Vec<_> = std::fs::read_dir(&dir).expect("excerpts copied into fixtures").flatten().map(|e| e.path()).collect();
    paths.sort();
    for p in &paths {
        let xml = std::fs::read_to_string(p).unwrap();
        // Excerpts are fragments: wrap each in the elements that enclose it in the full file.
        let first = xml.split('<').map(str::trim).find(|t| !t.is_empty() && !t.starts_with('!')).unwrap_or("");
        let tag: String = first.chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
        let wrapped = match tag.as_str() {
            "Spec" => xml.clone(),
            "ISA" => format!("<Spec>{xml}</Spec>"),
            "Instruction" => format!("<Spec><ISA><Instructions>{xml}</Instructions></ISA></Spec>"),
            "DataFormat" => format!("<Spec><ISA><DataFormats>{xml}</DataFormats></ISA></Spec>"),
            other => panic!("{}: unexpected first element {other}", p.display()),
        };
        let spec = codegen::parse_spec(&wrapped).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if name.contains("rdna2.EXCERPT_head") {
            assert_eq!(spec.arch, "AMD RDNA 2");
            let sop1 = &spec.encodings[0];
            assert_eq!(sop1.name, "ENC_SOP1");
            assert_eq!(sop1.bits, 32);
            assert_eq!(sop1.mask, 0b11111111100000001111111100000000);
            assert_eq!(sop1.idents[0], 0b10111110100000000000001100000000);
            let op = sop1.fields.iter().find(|f| f.name == "OP").unwrap();
            assert_eq!(op.ranges, vec![(8, 8)]);
            let sdst = sop1.fields.iter().find(|f| f.name == "SDST").unwrap();
            assert_eq!(sdst.ranges, vec![(16, 7)]);
        }
        if name.contains("V_DIV_FIXUP_F32") {
            let i = &spec.instructions[0];
            assert_eq!(i.name, "V_DIV_FIXUP_F32");
            assert_eq!(i.encs[0].enc, "ENC_VOP3");
            assert_eq!(i.encs[0].opcode, 551);
            let ops: Vec<_> = i.encs[0].operands.iter().map(|o| (o.field.as_str(), o.ty.as_str(), o.size)).collect();
            assert_eq!(ops, vec![("VDST", "OPR_VGPR", 32), ("SRC0", "OPR_SRC", 32), ("SRC1", "OPR_SRC", 32), ("SRC2", "OPR_SRC", 32)]);
        }
        if name.contains("vsample") {
            let i = &spec.instructions[0];
            assert_eq!((i.name.as_str(), i.encs[0].enc.as_str(), i.encs[0].opcode), ("IMAGE_GET_LOD", "ENC_VSAMPLE", 56));
            assert_eq!(i.encs[0].operands[1].field, "", "the VADDR list has no field");
        }
        if name.contains("operandtypes_tail") {
            let t = spec.operand_types.iter().find(|t| t.name == "OPR_SMEM_OFFSET").unwrap();
            assert_eq!(&t.values[..2], &[(0, "s0".to_string()), (1, "s1".to_string())]);
        }
        n += 1;
    }
    assert_eq!(n, 6, "six excerpts in fixtures/isa-specs-excerpts/amd");
}

/// The generated field sets (`Encoding::operand_fields`, `InstEncoding::fields`) are the fields
/// the operand lists name, for every pair of both AMD tables; `V_DIV_FIXUP_F32` in `ENC_VOP3`
/// (VDST, SRC0, SRC1, SRC2 in the spec, excerpt above) sets exactly those four.
#[test]
fn field_sets_are_the_operands_fields() {
    fn check<Op>(t: &isabridge_decoder::spec::Tables<Op>) -> usize {
        let bits = |enc: u16, names: &mut dyn Iterator<Item = &str>| -> u64 {
            let fields = t.encodings[enc as usize].fields;
            names.fold(0, |m, n| m | fields.iter().enumerate().filter(|(_, f)| f.name == n).fold(0, |m, (j, _)| m | 1 << j))
        };
        let mut per_enc = vec![0u64; t.encodings.len()];
        for ie in t.inst_encodings {
            let want = bits(ie.enc, &mut ie.operands.iter().filter_map(|o| o.field.map(|f| f.name)));
            assert_eq!(ie.fields, want, "{} in {}", t.instructions[ie.inst as usize].name, t.encodings[ie.enc as usize].name);
            per_enc[ie.enc as usize] |= want;
        }
        for (e, want) in t.encodings.iter().zip(&per_enc) {
            assert_eq!(e.operand_fields, *want, "{}", e.name);
        }
        t.inst_encodings.len()
    }
    assert!(check(isabridge_decoder::amd::GFX10.tables()) > 1000);
    let t = isabridge_decoder::amd::GFX12.tables();
    assert!(check(t) > 1000);
    // Instructions are listed by name (the translator finds gfx1201 opcodes by binary search).
    assert!(t.instructions.windows(2).all(|w| w[0].name < w[1].name));
    let ins = t.instructions.iter().find(|i| i.name == "V_DIV_FIXUP_F32").unwrap();
    let ie = ins.encodings.iter().map(|&k| &t.inst_encodings[k as usize]).find(|ie| t.encodings[ie.enc as usize].name == "ENC_VOP3").unwrap();
    let fields = t.encodings[ie.enc as usize].fields;
    let mut names: Vec<&str> = (0..fields.len()).filter(|j| ie.fields >> j & 1 != 0).map(|j| fields[j].name).collect();
    names.sort();
    assert_eq!(names, ["SRC0", "SRC1", "SRC2", "VDST"]);
}
