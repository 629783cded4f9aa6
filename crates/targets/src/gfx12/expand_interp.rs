//! VINTRP interpolation (`v_interp_p1_f32`, `v_interp_p2_f32`, `v_interp_mov_f32`), which
//! gfx1201 lacks: its `v_interp_*` (VINTERP) read the attribute parameters from VGPRs, loaded
//! from LDS by `ds_param_load` (VDSDIR), as LLVM 22's gfx1201 build of the same pixel shader
//! does (fixtures/amd/bin/gfx12_stages.gfx1201-w32.o `ps_interp`: `ds_param_load v3,
//! attr0.y`, then `v_interp_p10_f32 v9, v3, v0, v3` and `v_interp_p2_f32 v9, v3, v1, v9`).
//!
//! `ds_param_load t, attrA.C` writes lane 4q + k of each quad with parameter k (P0, P10, P20)
//! of the attribute channel, in whole quads (the AMD lifter's gfx12_image.rs, from AMD's RDNA4
//! guide); M0 names the parameters' LDS base as it does for VINTRP. With `t` a temporary VGPR:
//! - `v_interp_p1_f32 d, i, attrA.C` (fma(i, P10, P0)) is `ds_param_load t, attrA.C;
//!   v_interp_p10_f32 d, t, i, t` (fma(P10 of lane 4q+1, i, P0 of lane 4q));
//! - `v_interp_p2_f32 d, j, attrA.C` (fma(j, P20, d)) is `ds_param_load t, attrA.C;
//!   v_interp_p2_f32 d, t, j, d` (fma(P20 of lane 4q+2, j, d));
//! - `v_interp_mov_f32 d, pK, attrA.C` is `ds_param_load t, attrA.C; v_mov_b32_dpp d, t
//!   quad_perm:[k,k,k,k] fi:1` with k = 0 for p0, 1 for p10, 2 for p20 (fetch-inactive: the
//!   quad's other lanes hold the parameter whatever EXEC holds).
//!
//! The 16-bit forms (VOP3; SRC0 holds the attribute in bits 5:0, the channel in bits 7:6 and
//! `high` in bit 8), as LLVM 22 builds them for gfx1201 (`v_interp_p10_f16_f32 v8, v5, v0, v5
//! op_sel:[1,0,1,0]` for a `high` `v_interp_p1ll_f16`, `v_interp_p2_f16_f32 v8, v5, v1, v8
//! op_sel:[1,0,0,0]` for a `high` `v_interp_p2_f16`):
//! - `v_interp_p1ll_f16 d, i, attr` (D.f32 = P10.f16 * i + P0.f16) is `ds_param_load t;
//!   v_interp_p10_f16_f32 d, t, i, t op_sel:[h,0,h,0]`;
//! - `v_interp_p2_f16 d, j, attr, s2` (D.f16 = P20.f16 * j + s2.f32, into D's low half) is
//!   `ds_param_load t; v_interp_p2_f16_f32 d, t, j, s2 op_sel:[h,0,0,0]`;
//!
//! with h the `high` bit (the half of the parameter dword). `v_interp_p1lv_f16` (P0 from its
//! own lane's VGPR, which VINTERP would read from lane 4q) and modifiers are typed errors; so is
//! an attribute selector the operand model gives as neither a register nor an inline constant.
//!
//! In the f32 forms the product's operands are swapped (the IEEE fma product commutes). `ds_param_load` waits
//! for every earlier VALU write and VMEM read of VGPRs (WAIT_VA_VDST 0, WAIT_VM_VSRC 0: no
//! hazard with the temporary's earlier users); the VINTERP forms carry WAIT_EXP 7 (no wait of
//! their own): the expcnt wait before they read the loaded parameter is recomputed by
//! [`super::waits`] like every other. The VOP3 and 16-bit forms stay typed errors. Encodings as
//! llvm-mc-22 --mcpu=gfx1201 assembles them (`ds_param_load v2, attr3.z wait_va_vdst:0
//! wait_vm_vsrc:0` = 0xce000e02; `v_interp_p10_f32 v9, v3, v0, v3 wait_exp:0` = 0xcd000009
//! 0x040e0103; `v_mov_b32_dpp v1, v2 quad_perm:[2,2,2,2] row_mask:0xf bank_mask:0xf fi:1` =
//! 0x7e0202fa 0xff04aa02).

use super::expand::ExpandCx;
use super::map::MapRow;
use super::{unsupported, TranslateError};
use isabridge_decoder::amd::GFX12;
use isabridge_decoder::operand::{OperandKind, RegClass};
use isabridge_decoder::{Inst, IsaPlugin};

/// The expansion of a VINTRP instruction; None for other rows.
pub(super) fn expand(inst: &Inst, r: &MapRow, cx: &ExpandCx) -> Option<Result<Vec<Inst>, TranslateError>> {
    match (r.gfx10_enc, inst.name) {
        ("ENC_VINTRP", "V_INTERP_P1_F32" | "V_INTERP_P2_F32" | "V_INTERP_MOV_F32") => Some(interp(inst, cx)),
        ("ENC_VOP3", "V_INTERP_P1LL_F16" | "V_INTERP_P2_F16") => Some(interp16(inst, cx)),
        _ => None,
    }
}

/// The value of encoding field `name` of `inst` (a modifier, or a field operand).
fn field(inst: &Inst, name: &str) -> Option<u64> {
    inst.named(name).or_else(|| {
        inst.operands.iter().find(|o| o.field == name).and_then(|o| match o.kind {
            OperandKind::Field { value, .. } => Some(value),
            OperandKind::Imm(v) => Some(v as u64),
            _ => None,
        })
    })
}

/// The VGPR number of field `name` of `inst`.
fn vgpr(inst: &Inst, name: &str) -> Result<u32, TranslateError> {
    match inst.operands.iter().find(|o| o.field == name).map(|o| o.kind) {
        Some(OperandKind::Reg(r)) if r.class == RegClass::Vgpr && r.count == 1 => Ok(r.first as u32),
        _ => Err(unsupported(inst, &format!("interpolation without a VGPR {name}"))),
    }
}

/// gfx1201 instruction of `words`, at `inst`'s address.
fn decode(inst: &Inst, words: &[u32]) -> Result<Inst, TranslateError> {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let d = GFX12.decode(&bytes, inst.addr).map_err(|_| unsupported(inst, "an expansion built gfx1201 words the decoder rejects"))?;
    Ok(GFX12.operands(&d, inst.addr))
}

fn interp(inst: &Inst, cx: &ExpandCx) -> Result<Vec<Inst>, TranslateError> {
    let d = vgpr(inst, "VDST")?;
    // The operand model leaves out modifiers whose value is 0 (attr0, channel x).
    let attr = field(inst, "ATTR").unwrap_or(0) as u32;
    let chan = field(inst, "ATTRCHAN").unwrap_or(0) as u32;
    if attr > 63 || chan > 3 || d > 255 {
        return Err(unsupported(inst, "interpolation fields out of range"));
    }
    let OperandKind::Reg(t) = cx.vtemp(inst, 0, 1)? else { return Err(unsupported(inst, "temporary VGPR")) };
    let t = t.first as u32;
    if t > 255 {
        return Err(unsupported(inst, "no temporary VGPR below v256"));
    }
    // ds_param_load t, attrA.C wait_va_vdst:0 wait_vm_vsrc:0.
    let load = decode(inst, &[0xce00_0000 | attr << 10 | chan << 8 | t])?;
    let v = |n: u32| 256 + n;
    let second = match inst.name {
        "V_INTERP_P1_F32" | "V_INTERP_P2_F32" => {
            let s = vgpr(inst, "VSRC")?;
            // VINTERP: OP bits 22:16 (0 p10_f32, 1 p2_f32), WAIT_EXP bits 10:8, VDST bits 7:0;
            // SRC0 / SRC1 / SRC2 9 bits each from bit 0 of the second dword.
            let (op, src2) = if inst.name == "V_INTERP_P1_F32" { (0, t) } else { (1, d) };
            vec![0xcd00_0000 | op << 16 | 7 << 8 | d, v(t) | v(s) << 9 | v(src2) << 18]
        }
        _ => {
            // The parameter field: 0 = p10, 1 = p20, 2 = p0 (the lifter's stage.rs).
            let k = match field(inst, "VSRC") {
                Some(0) => 1,
                Some(1) => 2,
                Some(2) => 0,
                _ => return Err(unsupported(inst, "interpolation parameter other than p0, p10, p20")),
            };
            // v_mov_b32_dpp d, t quad_perm:[k,k,k,k] row_mask:0xf bank_mask:0xf fi:1.
            vec![0x7e00_02fa | d << 17, 0xff04_0000 | (k * 0x55) << 8 | t]
        }
    };
    Ok(vec![load, decode(inst, &second)?])
}

/// The VOP3 SRC0 code of an operand (SGPR n = n, VGPR n = 256 + n, inline constants their code).
fn src_code(k: OperandKind) -> Option<u32> {
    match k {
        OperandKind::Reg(r) if r.count == 1 && r.class == RegClass::Sgpr => Some(r.first as u32),
        OperandKind::Reg(r) if r.count == 1 && r.class == RegClass::Vgpr => Some(256 + r.first as u32),
        OperandKind::InlineConst { code, .. } => Some(code as u32),
        _ => None,
    }
}

fn interp16(inst: &Inst, cx: &ExpandCx) -> Result<Vec<Inst>, TranslateError> {
    if !inst.modifiers.is_empty() || inst.operands.iter().any(|o| o.mods.neg || o.mods.abs) {
        return Err(unsupported(inst, "modifiers on 16-bit interpolation"));
    }
    let d = vgpr(inst, "VDST")?;
    let ij = vgpr(inst, "SRC1")?;
    let sel = inst
        .operands
        .iter()
        .find(|o| o.field == "SRC0")
        .and_then(|o| src_code(o.kind))
        .ok_or_else(|| unsupported(inst, "16-bit interpolation: the attribute selector is not a register or inline constant code"))?;
    let (attr, chan, high) = (sel & 63, sel >> 6 & 3, sel >> 8 & 1);
    let OperandKind::Reg(t) = cx.vtemp(inst, 0, 1)? else { return Err(unsupported(inst, "temporary VGPR")) };
    let t = t.first as u32;
    if t > 255 || d > 255 {
        return Err(unsupported(inst, "no temporary VGPR below v256"));
    }
    let load = decode(inst, &[0xce00_0000 | attr << 10 | chan << 8 | t])?;
    let v = |n: u32| 256 + n;
    // VINTERP OP 2 v_interp_p10_f16_f32, 3 v_interp_p2_f16_f32; OPSEL bits 14:11.
    let (op, op_sel, src2) = if inst.name == "V_INTERP_P1LL_F16" { (2, high | high << 2, t) } else { (3, high, vgpr(inst, "SRC2")?) };
    let w = [0xcd00_0000 | op << 16 | op_sel << 11 | 7 << 8 | d, v(t) | v(ij) << 9 | v(src2) << 18];
    Ok(vec![load, decode(inst, &w)?])
}
