//! Buffer accesses through an AMD private segment buffer (the stack's V# in `s[0:3]` of a
//! gfx9/gfx10 kernel, [`BufferDesc::private_swizzle`]): the IR places them in the lane's own
//! scratch, undoing the swizzle (dword `d` of the segment is dword `d / wavesize` of lane
//! `d % wavesize`), as the interpreter does. Every descriptor is a run-time value, so each buffer
//! access tests the descriptor's swizzle bit: unswizzled, the access goes to device memory;
//! a private segment buffer's form goes to the lane's scratch array; any other swizzled form,
//! a private segment access in another lane's bytes or with an index stride other than the
//! wave size, a formatted one, or one in a function without scratch records
//! [`PRIVATE_SEGMENT_TRAP`] (the interpreter stops there with an error), never a wrong address.
//!
//! [`BufferDesc::private_swizzle`]: isabridge_ir::ops::buffer::BufferDesc::private_swizzle

use super::amd_memory::Place;
use super::emit::{internal, Em, EmitError};
use super::wave::DescFields;
use isabridge_ir::ops::buffer::{BufferKind, BufferOp};
use isabridge_ir::types::Type;
use rspirv::spirv::Word;

/// Trap code of a swizzled buffer access the IR does not place (see the module docs).
pub const PRIVATE_SEGMENT_TRAP: u16 = 0xfff7;

/// Where a buffer access goes: device memory where `device` (b1) holds, the lane's scratch at
/// byte `scratch.0` (u64) where `scratch.1` (b1) holds; never both.
pub(super) struct BufferPlace {
    /// The access goes to device memory at the descriptor's address.
    pub device: Word,
    /// The scratch byte offset and whether the access goes there (none without scratch).
    pub scratch: Option<(Word, Word)>,
}

impl Em<'_> {
    /// Split a buffer access (its descriptor's fields `d`, address `addr` from
    /// `buffer_address`, taking place where `go`) between device memory and the lane's
    /// scratch, recording [`PRIVATE_SEGMENT_TRAP`] where neither can take it.
    pub(super) fn buffer_place(&mut self, bo: BufferOp, d: &DescFields, addr: Word, go: Word) -> Result<BufferPlace, EmitError> {
        let t64 = self.t_u64;
        let tb = self.ty(Type::B1)?;
        let (one, zero) = (self.wc32(1)?, self.wc32(0)?);
        let swz = d.swizzle;
        let b = &mut self.b;
        let plain = b.logical_not(tb, None, swz).map_err(internal)?;
        let device = b.logical_and(tb, None, go, plain).map_err(internal)?;
        let swizzled = b.logical_and(tb, None, go, swz).map_err(internal)?;
        let formatted = matches!(bo.kind, BufferKind::LoadFormat { .. } | BufferKind::StoreFormat { .. });
        let Some(size) = self.array_bytes(Place::Scratch).filter(|_| !formatted) else {
            self.trap_when(swizzled, PRIVATE_SEGMENT_TRAP)?;
            return Ok(BufferPlace { device, scratch: None });
        };
        let ws = self.ws();
        let b = &mut self.b;
        // The private segment buffer's form: ADD_TID_ENABLE, stride 0, index stride = wave size.
        let tid = b.i_equal(tb, None, d.add_tid, one).map_err(internal)?;
        let stride0 = b.i_equal(tb, None, d.stride, zero).map_err(internal)?;
        let istride = d.index_stride;
        // Index stride 8 << field: the wave size's field is 2 (32) or 3 (64).
        let want = self.wc32(if ws >= 64 { 3 } else { 2 })?;
        let b = &mut self.b;
        let istride_ok = b.i_equal(tb, None, istride, want).map_err(internal)?;
        let form = b.logical_and(tb, None, tid, stride0).map_err(internal)?;
        // The dword's lane must be this lane.
        let lane = self.lane()?;
        let (two, wsm, k4ws) = (self.wc64(2)?, self.wc64(ws as u64 - 1)?, self.wc64(4 * ws as u64)?);
        let b = &mut self.b;
        let dword = b.shift_right_logical(t64, None, addr, two).map_err(internal)?;
        let dlane = b.bitwise_and(t64, None, dword, wsm).map_err(internal)?;
        let lane64 = b.u_convert(t64, None, lane).map_err(internal)?;
        let own = b.i_equal(tb, None, dlane, lane64).map_err(internal)?;
        let placed = b.logical_and(tb, None, istride_ok, own).map_err(internal)?;
        let ok = b.logical_and(tb, None, form, placed).map_err(internal)?;
        let bad = b.logical_not(tb, None, ok).map_err(internal)?;
        let bad = b.logical_and(tb, None, swizzled, bad).map_err(internal)?;
        self.trap_when(bad, PRIVATE_SEGMENT_TRAP)?;
        // Byte (addr / (4 ws)) * 4 + addr % 4 of the lane's scratch, inside the array.
        let (k3, k4) = (self.wc64(3)?, self.wc64(4)?);
        let lim = self.wc64((size as u64).saturating_sub(bo.bytes as u64) + 1)?;
        let b = &mut self.b;
        let row = b.u_div(t64, None, addr, k4ws).map_err(internal)?;
        let row = b.i_mul(t64, None, row, k4).map_err(internal)?;
        let low = b.bitwise_and(t64, None, addr, k3).map_err(internal)?;
        let byte = b.i_add(t64, None, row, low).map_err(internal)?;
        let inside = b.u_less_than(tb, None, byte, lim).map_err(internal)?;
        let sgo = b.logical_and(tb, None, swizzled, ok).map_err(internal)?;
        let sgo = if (bo.bytes as u32) <= size { b.logical_and(tb, None, sgo, inside).map_err(internal)? } else { self.konst(Type::B1, 0)? };
        Ok(BufferPlace { device, scratch: Some((byte, sgo)) })
    }
}
