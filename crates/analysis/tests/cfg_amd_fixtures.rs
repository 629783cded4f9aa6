//! CFG recovery on the hand-written AMD fixtures of `fixtures/amd/cfg` (constructs the compiled
//! corpus lacks). Expected blocks and edges checked by hand against the committed
//! `llvm-objdump-22 -d` listings (`*.dis`) next to each object.

use isabridge_analysis::cfg::{CallTarget, CfgError, EdgeKind::*, Flow};
use isabridge_analysis::{load, recover, Cfg};

fn cfg_of(file: &str, func: &str) -> Result<Cfg, CfgError> {
    let path = format!("{}/../../fixtures/amd/cfg/{file}", env!("CARGO_MANIFEST_DIR"));
    let p = load(&std::fs::read(path).unwrap(), None).unwrap();
    for s in &p.sections {
        for f in &s.functions {
            if f.name == func {
                return recover(p.isa, s, f);
            }
        }
    }
    panic!("{func} not in {file}");
}

/// fetch_call.dis: `s_swappc_b64 s[30:31], s[2:3]` at 0x4; nothing before it writes s[2:3]
/// (only `s_mov_b32 s8, 0` at 0x0), so the callee is the address passed in the user SGPRs
/// s[2:3]: a fetch-shader call. Execution resumes at 0x8 (v_mov_b32) and ends at `s_endpgm`
/// (0x14); the function is 0x18 bytes, no data.
#[test]
fn swappc_from_user_sgprs_is_a_fetch_shader_call() {
    let g = cfg_of("fetch_call.o", "vs_fetch").unwrap();
    assert_eq!(g.block_starts(), vec![0x0, 0x8]);
    assert_eq!(g.edge_addrs(), vec![(0x0, 0x8, CallReturn)]);
    assert_eq!(g.calls.len(), 1);
    assert_eq!(g.calls[0].site, 0x4);
    assert_eq!(g.calls[0].target, CallTarget::FetchShader("s[2:3]".into()));
    assert_eq!(g.insts.iter().map(|x| x.0).collect::<Vec<_>>(), vec![0x0, 0x4, 0x8, 0xc, 0x14]);
    assert!(g.data.is_empty());
}

/// setpc_table.dis: `s_getpc_b64 s[4:5]` at 0x0 + `s_add_u32 s4, s4, 0x44` = table at 0x48;
/// `s_load_dword s7, s[4:5], s6` at 0x14 reads an entry; `s_getpc_b64 s[8:9]` at 0x20 gives
/// base 0x24; `s_add_u32 s8, s8, s7` / `s_addc_u32 s9, s9, 0` / `s_setpc_b64 s[8:9]` at 0x2c.
/// The `.long` entries at 0x48, 0x4c, 0x50 are 0xc, 0x14, 0x1c: targets 0x30, 0x38, 0x40.
/// 0x30: v_mov, s_endpgm. 0x38: v_mov, `s_branch` to 0x44 (`<cs_switch+0x44>`). 0x40: v_mov
/// falls into 0x44 s_endpgm. The table (0x48..0x54) is data.
#[test]
fn setpc_through_a_table_of_offsets() {
    let g = cfg_of("setpc_table.o", "cs_switch").unwrap();
    assert_eq!(g.block_starts(), vec![0x0, 0x30, 0x38, 0x40, 0x44]);
    assert_eq!(
        g.edge_addrs(),
        vec![(0x0, 0x30, Table), (0x0, 0x38, Table), (0x0, 0x40, Table), (0x38, 0x44, Taken), (0x40, 0x44, FallThrough)]
    );
    let setpc = g.insts.iter().find(|x| x.0 == 0x2c).unwrap();
    assert_eq!(setpc.2, Flow::Table(vec![0x30, 0x38, 0x40]));
    assert_eq!(g.data, vec![(0x48, 0x54)]);
}

/// setpc_load.dis: `s_load_dwordx2 s[4:5], s[0:1], null` at 0x0, `s_waitcnt` at 0x8,
/// `s_setpc_b64 s[4:5]` at 0xc. The jump goes to an address read from memory: no `s_getpc_b64`
/// and no table pattern, so recovery reports the jump unresolved instead of guessing a target.
#[test]
fn setpc_to_a_loaded_address_is_unresolved() {
    let e = cfg_of("setpc_load.o", "cs_setpc_load").unwrap_err();
    assert_eq!(
        e,
        CfgError::Unresolved {
            isa: isabridge_decoder::Isa::Gfx1013,
            inst: "S_SETPC_B64",
            addr: 0xc,
            why: "s[4:5] written by S_LOAD_DWORDX2 at 0x0".into(),
        }
    );
}

/// desc_call.dis: `s_getpc_b64 s[16:17]` at 0x14 (base 0x18), `s_add_u32` / `s_addc_u32` with
/// R_AMDGPU_REL32_LO/HI against `callee` (0x100) at 0x1c / 0x24: 0x100 + 4 - 0x1c = 0xe8, so
/// `s_swappc_b64 s[30:31], s[16:17]` at 0x28 calls 0x18 + 0xe8 = 0x100 (`<callee>`). Execution
/// resumes at 0x2c and runs straight to `s_endpgm` at 0x54; the function is 0x58 bytes.
#[test]
fn swappc_to_a_relocated_local_function() {
    let g = cfg_of("desc_call.o", "cs_desc").unwrap();
    assert_eq!(g.block_starts(), vec![0x0, 0x2c]);
    assert_eq!(g.edge_addrs(), vec![(0x0, 0x2c, CallReturn)]);
    assert_eq!(g.calls.len(), 1);
    assert_eq!(g.calls[0].site, 0x28);
    assert_eq!(g.calls[0].target, CallTarget::Direct(0x100));
    assert!(g.data.is_empty());
}
