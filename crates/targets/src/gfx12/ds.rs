//! LDS instructions (DS -> VDS): the address, data and destination VGPRs and the OFFSET0 /
//! OFFSET1 fields carry over unchanged (same field names in both encodings); gfx1201 has no GDS
//! bit, so a GDS access fails to build and is a typed error.

use super::map::MapRow;
use super::{alu, unsupported, TranslateError};
use isabridge_decoder::Inst;

/// The gfx1201 form of DS instruction `inst` under map row `r`.
pub(super) fn translate(inst: &Inst, r: &MapRow) -> Result<Inst, TranslateError> {
    // gfx1201's ds_cmpstore takes the new value in DATA0 and the compare value in DATA1, the
    // other way round from gfx1013's ds_cmpst (the map row's reason): not carried over as is.
    if inst.name.starts_with("DS_CMPST") {
        return Err(unsupported(inst, r.reason));
    }
    // GWS and ordered-count ops address a global resource through M0 that gfx1201 dropped.
    if inst.name.starts_with("DS_GWS") || inst.name == "DS_ORDERED_COUNT" {
        return Err(unsupported(inst, "global wave sync / ordered count: gfx1201 has none"));
    }
    alu::translate(inst, r)
}
