//! [`Target::Gfx1201`](crate::Target::Gfx1201): gfx1013 machine code to gfx1201 machine code
//! through `isabridge_targets::gfx12`, instruction by instruction (no IR in between).
//!
//! A code object gives a `.hsaco` ([`Format::Hsaco`]) holding the named kernel, or every kernel
//! that translates when none is named (the others are listed in [`Artifact::refused`]); raw
//! code gives the translated words ([`Format::Gfx1201Code`]) with the registers they need.

use crate::artifact::{Artifact, EntryPoint, Format};
use crate::translate::{Container, Error, Source};
use isabridge_decoder::Isa;
use isabridge_targets::gfx12::function::{translate_function, FunctionOptions};
use isabridge_targets::gfx12::object::{translate_kernels, ObjectError};

/// Translates `code` described by `source` to gfx1201.
pub(crate) fn translate(code: &[u8], source: &Source) -> Result<Artifact, Error> {
    let isa = source.isa;
    if isa != Isa::Gfx1013 {
        return Err(Error::Unsupported { what: format!("{isa} to gfx1201"), why: "the gfx1201 translator reads gfx1013 code" });
    }
    if !matches!(source.wave, 32 | 64) {
        return Err(Error::Unsupported { what: format!("{isa} wave{}", source.wave), why: "AMD waves are 32 or 64 lanes" });
    }
    let empty = |format, bytes| Artifact {
        format,
        bytes,
        entry_points: Vec::new(),
        bindings: Vec::new(),
        constant_banks: Vec::new(),
        requires: Vec::new(),
        registers: None,
        refused: Vec::new(),
    };
    match &source.container {
        Container::Raw => {
            let opts = FunctionOptions { wave64: source.wave == 64, ..FunctionOptions::default() };
            let f = translate_function(code, 0, &opts)
                .map_err(|e| Error::Gfx1201(ObjectError::Function { kernel: "code".into(), err: Box::new(e) }))?;
            let mut a = empty(Format::Gfx1201Code, f.code.code);
            a.entry_points.push(EntryPoint { name: "code".into(), kernel: "code".into(), workgroup_size: [source.wave, 1, 1], workgroup_memory: Default::default() });
            a.registers = Some([f.vgprs as u32, f.sgprs as u32]);
            Ok(a)
        }
        Container::Object { kernel } => {
            let (found, _) = isabridge_decoder::elf::parse(code)?;
            if found != isa {
                return Err(Error::IsaMismatch { expected: isa, found });
            }
            let ks = isabridge_analysis::amdkernel::kernels(code).map_err(|e| Error::Metadata { isa, why: e.to_string() })?;
            // Graphics-stage functions of a PAL object translate too (gfx12::graphics).
            let stages = isabridge_analysis::load(code, None)
                .map(|p| isabridge_targets::gfx12::graphics::stage_functions(code, &p))
                .unwrap_or_default();
            if let Some(name) = kernel {
                let found = match ks.iter().find(|k| k.name == *name) {
                    Some(k) => Some(k.wave64()),
                    None => stages.iter().find(|f| f.name == *name).map(|f| f.wave64),
                };
                let Some(wave64) = found else {
                    let known = ks.iter().map(|k| k.name.clone()).chain(stages.iter().map(|f| f.name.clone())).collect();
                    return Err(Error::NoKernel { isa, name: name.clone(), known });
                };
                let w = if wave64 { 64 } else { 32 };
                if w != source.wave {
                    return Err(Error::WaveMismatch { isa, kernel: name.clone(), expected: source.wave, found: w });
                }
            }
            let t = translate_kernels(code, kernel.as_deref()).map_err(Error::Gfx1201)?;
            if t.kernels.is_empty() && t.stages.is_empty() {
                if let Some((_, e)) = t.refused.into_iter().next() {
                    return Err(Error::Gfx1201(e));
                }
                return Err(Error::KernelNeeded { isa, known: Vec::new() });
            }
            let mut a = empty(Format::Hsaco, t.bytes);
            let meta = isabridge_targets::gfx12::hsaco::kernel_metadata(&a.bytes);
            for name in &t.kernels {
                let reqd = meta.iter().find(|(n, _)| n == name).and_then(|(_, m)| reqd_workgroup_size(m)).unwrap_or([0; 3]);
                a.entry_points.push(EntryPoint { name: name.clone(), kernel: name.clone(), workgroup_size: reqd, workgroup_memory: Default::default() });
            }
            // A graphics stage has no workgroup size.
            for name in &t.stages {
                a.entry_points.push(EntryPoint { name: name.clone(), kernel: name.clone(), workgroup_size: [0; 3], workgroup_memory: Default::default() });
            }
            a.refused = t.refused.into_iter().map(|(k, e)| (k, e.to_string())).collect();
            Ok(a)
        }
    }
}

/// A kernel's `.reqd_workgroup_size` from its metadata map.
fn reqd_workgroup_size(m: &isabridge_targets::gfx12::msgpack::Msg) -> Option<[u32; 3]> {
    use isabridge_targets::gfx12::msgpack::Msg;
    let Some(Msg::Array(xs)) = m.get(".reqd_workgroup_size") else { return None };
    let mut out = [1u32; 3];
    for (o, x) in out.iter_mut().zip(xs) {
        let Msg::Int(i) = x else { return None };
        *o = u32::try_from(*i).ok()?;
    }
    Some(out)
}
