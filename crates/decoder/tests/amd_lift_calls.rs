//! Calls the lifter cannot inline: a recursive function becomes a function of the module that
//! calls itself, a call of a symbol the code does not define an IR call of that symbol. The
//! code is assembled by llvm-mc-22 (encodings below); the call targets and returns are given as
//! the machine CFG would resolve them.

use isabridge_decoder::lift::amd::{lift_kernel, lift_kernel_module, KernelEntry, Resolved};
use isabridge_decoder::lift::LiftError;
use isabridge_decoder::Isa;
use isabridge_ir::interp::{run, run_module, Config, Input, InterpError, Memory};
use isabridge_ir::module::{parse_module, print_module, validate_module};
use isabridge_ir::ops::call::Callee;
use isabridge_ir::passes::run_pipeline;
use isabridge_ir::{Module, Op};

/// ```text
///   s_mov_b32 s4, 5 ; s_mov_b32 s5, 1 ; s_getpc_b64 s[16:17]
///   s_swappc_b64 s[30:31], s[16:17]          ; 0xc: calls F
///   v_mov_b32 v0, s5 ; v_mov_b32 v1, s0 ; v_mov_b32 v2, s1
///   global_store_dword v[1:2], v0, off ; s_endpgm
/// F:
///   s_cmp_le_u32 s4, 1 ; s_cbranch_scc1 RET
///   s_mul_i32 s5, s5, s4 ; s_sub_u32 s4, s4, 1
///   s_swappc_b64 s[30:31], s[16:17]          ; calls F
/// RET:
///   s_setpc_b64 s[30:31]                     ; returns
/// ```
const FACT_GFX1013: [u8; 64] = [
    0x85, 0x03, 0x84, 0xbe, 0x81, 0x03, 0x85, 0xbe, 0x00, 0x1f, 0x90, 0xbe, 0x10, 0x21, 0x9e, 0xbe, //
    0x05, 0x02, 0x00, 0x7e, 0x00, 0x02, 0x02, 0x7e, 0x01, 0x02, 0x04, 0x7e, 0x00, 0x80, 0x70, 0xdc, //
    0x01, 0x00, 0x7d, 0x00, 0x00, 0x00, 0x81, 0xbf, 0x04, 0x81, 0x0b, 0xbf, 0x03, 0x00, 0x85, 0xbf, //
    0x05, 0x04, 0x05, 0x93, 0x04, 0x81, 0x84, 0x80, 0x10, 0x21, 0x9e, 0xbe, 0x1e, 0x20, 0x80, 0xbe,
];

/// The same program for gfx1201 (`global_store_b32`, `s_sub_co_u32`).
const FACT_GFX1201: [u8; 68] = [
    0x85, 0x00, 0x84, 0xbe, 0x81, 0x00, 0x85, 0xbe, 0x00, 0x47, 0x90, 0xbe, 0x10, 0x49, 0x9e, 0xbe, //
    0x05, 0x02, 0x00, 0x7e, 0x00, 0x02, 0x02, 0x7e, 0x01, 0x02, 0x04, 0x7e, 0x7c, 0x80, 0x06, 0xee, //
    0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0xb0, 0xbf, 0x04, 0x81, 0x0b, 0xbf, //
    0x03, 0x00, 0xa2, 0xbf, 0x05, 0x04, 0x05, 0x96, 0x04, 0x81, 0x84, 0x80, 0x10, 0x49, 0x9e, 0xbe, //
    0x1e, 0x48, 0x80, 0xbe,
];

/// (isa, code, F's address, the recursive call, the return).
fn targets() -> [(Isa, &'static [u8], u64, u64, u64); 2] {
    [(Isa::Gfx1013, &FACT_GFX1013, 0x28, 0x38, 0x3c), (Isa::Gfx1201, &FACT_GFX1201, 0x2c, 0x3c, 0x40)]
}

const ENTRY: KernelEntry = KernelEntry { wave64: false, mode: 0xc0 | 1 << 8, sgprs: 2, workitem_ids: 1, shared_bytes: 0, ttmp_workgroup_ids: [false; 3] };
const OUT: u64 = 0x1000;

fn resolved(f: u64, inner: u64, ret: u64) -> Resolved {
    let mut r = Resolved::default();
    r.calls.insert(0xc, f);
    r.calls.insert(inner, f);
    r.returns.insert(ret);
    r
}

/// Run the kernel on one lane (s[0:1] = the output address) and read the stored word.
fn stored(m: &Module) -> Result<u32, InterpError> {
    let inputs = [Input::Uniform(OUT), Input::Uniform(0), Input::Uniform(1), Input::Uniform(0)];
    let mem = Memory { global: vec![(OUT, vec![0; 4])], ..Memory::default() };
    let out = run_module(m, &Config::default(), &inputs, mem)?;
    Ok(u32::from_le_bytes(out.memory.global[0].1[..4].try_into().unwrap()))
}

fn calls(m: &Module) -> Vec<Callee> {
    let mut v = Vec::new();
    for f in &m.functions {
        for b in &f.layout {
            for i in &f.blocks[*b].insts {
                if let Op::Call(c) = &f.insts[*i].op {
                    v.push(c.clone());
                }
            }
        }
    }
    v
}

#[test]
fn recursive_function_lifts_as_a_module_function_calling_itself() {
    for (isa, code, f, inner, ret) in targets() {
        let r = resolved(f, inner, ret);
        let m = lift_kernel_module(isa, code, 0, 0, "fact", &ENTRY, &r).unwrap_or_else(|e| panic!("{isa:?}: {e}"));
        validate_module(&m.functions).unwrap_or_else(|e| panic!("{isa:?}: {e}"));
        // The kernel inlines F once; the recursive call inside it and F's own call go to fn_F.
        assert_eq!(m.functions.len(), 2, "{isa:?}");
        assert_eq!(m.functions[1].name, format!("fn_{f:x}"));
        assert!(m.functions[1].callee);
        assert_eq!(calls(&m), vec![Callee::Func(1), Callee::Func(1)], "{isa:?}");
        // 5 * 4 * 3 * 2 = 120, through four nested calls.
        assert_eq!(stored(&m), Ok(120), "{isa:?}");
        let text = print_module(&m);
        assert_eq!(print_module(&parse_module(&text).expect("parses")), text);
        // The pass pipeline keeps the calls and the result.
        let mut opt = m.clone();
        for g in &mut opt.functions {
            run_pipeline(g).unwrap_or_else(|e| panic!("{isa:?}: {e}"));
        }
        validate_module(&opt.functions).unwrap_or_else(|e| panic!("{isa:?}: {e}"));
        assert_eq!(calls(&opt).len(), 2, "{isa:?}");
        assert_eq!(stored(&opt), Ok(120), "{isa:?}");
        // Too little call depth for the recursion is a typed error.
        let cfg = Config { max_call_depth: 2, ..Config::default() };
        let inputs = [Input::Uniform(OUT), Input::Uniform(0), Input::Uniform(1), Input::Uniform(0)];
        let mem = Memory { global: vec![(OUT, vec![0; 4])], ..Memory::default() };
        assert_eq!(run_module(&opt, &cfg, &inputs, mem).map(|_| ()), Err(InterpError::CallDepth(2)));
        // lift_kernel gives one function, so the recursive call is a typed error there.
        match lift_kernel(isa, code, 0, 0, "fact", &ENTRY, &r) {
            Err(LiftError::Unsupported { addr, why, .. }) => {
                assert_eq!(addr, inner, "{isa:?}");
                assert!(why.contains("recursive"), "{why}");
            }
            other => panic!("{isa:?}: {other:?}"),
        }
    }
}

#[test]
fn call_of_an_undefined_symbol_is_an_ir_call_that_fails_typed_when_run() {
    for (isa, code, ..) in targets() {
        let mut r = Resolved::default();
        r.external.insert(0xc, "_Z10atomic_xorPU3AS3Vii".into());
        let mut f = lift_kernel(isa, code, 0, 0, "ext", &ENTRY, &r).unwrap_or_else(|e| panic!("{isa:?}: {e}"));
        let m = Module::new(f.clone());
        assert_eq!(calls(&m), vec![Callee::Symbol("_Z10atomic_xorPU3AS3Vii".into())], "{isa:?}");
        assert_eq!(stored(&m), Err(InterpError::UndefinedSymbol("_Z10atomic_xorPU3AS3Vii".into())), "{isa:?}");
        run_pipeline(&mut f).unwrap_or_else(|e| panic!("{isa:?}: {e}"));
        let inputs = [Input::Uniform(OUT), Input::Uniform(0), Input::Uniform(1), Input::Uniform(0)];
        let mem = Memory { global: vec![(OUT, vec![0; 4])], ..Memory::default() };
        assert_eq!(
            run(&f, &Config::default(), &inputs, mem).map(|_| ()),
            Err(InterpError::UndefinedSymbol("_Z10atomic_xorPU3AS3Vii".into())),
            "{isa:?}"
        );
    }
}
