//! `--via gfx1201` for raw gfx1013 code (the RDNA2 vectors): the code is translated to gfx1201
//! machine code by the function chain (`gfx12::function::translate_function`: instructions,
//! buffer descriptors converted before use, waits and ALU waits recomputed, layout), the
//! gfx1201 bytes are decoded and lifted again with late-arriving memory
//! (`lift_late_memory`), and the result runs on the interpreter like `--via interp`: a
//! register the translation reads before the wait that covers it is a poison value and fails
//! the test.

use isabridge_decoder::lift::amd::{lift_late_memory, Options};
use isabridge_decoder::Isa;
use isabridge_ir::Function;
use isabridge_targets::gfx12::function::{decode_rdna2, translate_function, translate_insts, FunctionOptions};

/// The IR of gfx1013 `code` (at address 0) as translated to gfx1201 and lifted back with
/// late-arriving memory; `opts` describes the entry state of both.
pub fn lift_translated(code: &[u8], opts: &Options) -> Result<Function, String> {
    // The MODE the vectors run with (bit 9 IEEE) decides how float min / max expand.
    // The MODE the vectors run with decides how float min / max (bit 9, IEEE) and the clamp of
    // a NaN (bit 8, DX10_CLAMP) expand.
    let (ieee, dx10_clamp) = (Some(opts.mode >> 9 & 1 == 1), Some(opts.mode >> 8 & 1 == 1));
    let fo = FunctionOptions { wave64: opts.wave64, declared_sgprs: opts.user_sgprs as u16, ieee, dx10_clamp, ..FunctionOptions::default() };
    let t = if opts.gfx10_3_dot {
        // RDNA2 code: the gfx10.3 dot products decode and translate too.
        let insts = decode_rdna2(code, 0).map_err(|e| format!("gfx1201 translation: {e}"))?;
        translate_insts(&insts, Vec::new(), &fo)
    } else {
        translate_function(code, 0, &fo)
    };
    let t = t.map_err(|e| format!("gfx1201 translation: {e}"))?;
    // The gfx1201 code runs under the MODE its converted kernel descriptor gives, as in
    // `selfcheck`: gfx1201 has neither DX10_CLAMP nor IEEE (descriptor.rs clears both).
    let o12 = Options { mode: opts.mode & !(1 << 8 | 1 << 9), ..opts.clone() };
    lift_late_memory(Isa::Gfx1201, &t.code.code, 0, &o12).map_err(|e| format!("gfx1201 lift: {e}"))
}
