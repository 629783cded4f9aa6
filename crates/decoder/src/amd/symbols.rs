//! Symbolic operands as LLVM 22 prints them: s_waitcnt counters, sendmsg, hwreg, depctr, export
//! targets, data formats. The names are facts read off llvm-mc-22 (see tools/amdspec).


/// gfx10 hardware register names by id.
pub const HWREG_GFX10: &[(u32, &str)] = &[
    (1, "HW_REG_MODE"),
    (2, "HW_REG_STATUS"),
    (3, "HW_REG_TRAPSTS"),
    (5, "HW_REG_GPR_ALLOC"),
    (6, "HW_REG_LDS_ALLOC"),
    (7, "HW_REG_IB_STS"),
    (15, "HW_REG_SH_MEM_BASES"),
    (16, "HW_REG_TBA_LO"),
    (17, "HW_REG_TBA_HI"),
    (18, "HW_REG_TMA_LO"),
    (19, "HW_REG_TMA_HI"),
    (20, "HW_REG_FLAT_SCR_LO"),
    (21, "HW_REG_FLAT_SCR_HI"),
    (22, "HW_REG_XNACK_MASK"),
    (23, "HW_REG_HW_ID1"),
    (24, "HW_REG_HW_ID2"),
    (25, "HW_REG_POPS_PACKER"),
];

/// gfx12 hardware register names by id.
pub const HWREG_GFX12: &[(u32, &str)] = &[
    (1, "HW_REG_WAVE_MODE"),
    (2, "HW_REG_WAVE_STATUS"),
    (4, "HW_REG_WAVE_STATE_PRIV"),
    (5, "HW_REG_WAVE_GPR_ALLOC"),
    (6, "HW_REG_WAVE_LDS_ALLOC"),
    (7, "HW_REG_IB_STS"),
    (10, "HW_REG_PERF_SNAPSHOT_DATA"),
    (11, "HW_REG_PERF_SNAPSHOT_PC_LO"),
    (12, "HW_REG_PERF_SNAPSHOT_PC_HI"),
    (15, "HW_REG_PERF_SNAPSHOT_DATA1"),
    (16, "HW_REG_PERF_SNAPSHOT_DATA2"),
    (17, "HW_REG_WAVE_EXCP_FLAG_PRIV"),
    (18, "HW_REG_WAVE_EXCP_FLAG_USER"),
    (19, "HW_REG_WAVE_TRAP_CTRL"),
    (20, "HW_REG_WAVE_SCRATCH_BASE_LO"),
    (21, "HW_REG_WAVE_SCRATCH_BASE_HI"),
    (23, "HW_REG_WAVE_HW_ID1"),
    (24, "HW_REG_WAVE_HW_ID2"),
    (26, "HW_REG_WAVE_SCHED_MODE"),
    (29, "HW_REG_SHADER_CYCLES_LO"),
    (30, "HW_REG_SHADER_CYCLES_HI"),
    (31, "HW_REG_WAVE_DVGPR_ALLOC_LO"),
    (32, "HW_REG_WAVE_DVGPR_ALLOC_HI"),
];

fn lookup(table: &[(u32, &'static str)], v: u32) -> Option<&'static str> {
    table.iter().find(|e| e.0 == v).map(|e| e.1)
}

/// `hwreg(NAME)` or `hwreg(NAME, offset, size)`; unknown ids print as numbers.
pub fn hwreg(out: &mut String, v: u32, table: &[(u32, &'static str)]) {
    let id = v & 0x3f;
    let off = (v >> 6) & 0x1f;
    let size = ((v >> 11) & 0x1f) + 1;
    out.push_str("hwreg(");
    match lookup(table, id) {
        Some(n) => out.push_str(n),
        None => {
            crate::amd::operands::put(out, id);
        }
    }
    if !(off == 0 && size == 32) {
        out.push_str(", ");
        crate::amd::operands::put(out, off);
        out.push_str(", ");
        crate::amd::operands::put(out, size);
    }
    out.push(')');
}

/// gfx10 `s_waitcnt`: counters not at their maximum; all three when every one is.
pub fn waitcnt_gfx10(out: &mut String, v: u32) {
    let vm = (v & 0xf) | ((v >> 14) & 3) << 4;
    let exp = (v >> 4) & 7;
    let lgkm = (v >> 8) & 0x3f;
    let all = vm == 63 && exp == 7 && lgkm == 63;
    let mut first = true;
    let mut put = |out: &mut String, name: &str, n: u32| {
        if !first {
            out.push(' ');
        }
        first = false;
        crate::amd::operands::put(out, name);
        out.push('(');
        crate::amd::operands::put(out, n);
        out.push(')');
    };
    if vm != 63 || all {
        put(out, "vmcnt", vm);
    }
    if exp != 7 || all {
        put(out, "expcnt", exp);
    }
    if lgkm != 63 || all {
        put(out, "lgkmcnt", lgkm);
    }
}

const MSG_GFX10: &[(u32, &str)] = &[
    (1, "MSG_INTERRUPT"),
    (2, "MSG_GS"),
    (3, "MSG_GS_DONE"),
    (4, "MSG_SAVEWAVE"),
    (5, "MSG_STALL_WAVE_GEN"),
    (6, "MSG_HALT_WAVES"),
    (7, "MSG_ORDERED_PS_DONE"),
    (8, "MSG_EARLY_PRIM_DEALLOC"),
    (9, "MSG_GS_ALLOC_REQ"),
    (10, "MSG_GET_DOORBELL"),
    (11, "MSG_GET_DDID"),
    (15, "MSG_SYSMSG"),
];
const GS_OPS: [&str; 4] = ["GS_OP_NOP", "GS_OP_CUT", "GS_OP_EMIT", "GS_OP_EMIT_CUT"];
const SYSMSG_OPS: [&str; 5] =
    ["", "SYSMSG_OP_ECC_ERR_INTERRUPT", "SYSMSG_OP_REG_RD", "SYSMSG_OP_HOST_TRAP_ACK", "SYSMSG_OP_TTRACE_PC"];

/// gfx10 `sendmsg(...)`: symbolic when id, operation and stream are valid together.
pub fn sendmsg_gfx10(out: &mut String, v: u32) {
    let id = v & 0xf;
    let op = (v >> 4) & 7;
    let stream = (v >> 8) & 3;
    let name = lookup(MSG_GFX10, id);
    // The symbolic form's parts: message name, operation name, stream (None: not symbolic).
    let sym: Option<(&str, &str, Option<u32>)> = match (id, name) {
        (2 | 3, Some(n)) => {
            if op == 0 && id == 2 {
                None
            } else if op == 0 {
                (stream == 0).then_some((n, GS_OPS[0], None))
            } else if (op as usize) < 4 {
                Some((n, GS_OPS[op as usize], Some(stream)))
            } else {
                None
            }
        }
        (15, Some(n)) => ((1..=4).contains(&op) && stream == 0).then(|| (n, SYSMSG_OPS[op as usize], None)),
        (_, Some(n)) => (op == 0 && stream == 0).then_some((n, "", None)),
        _ => None,
    };
    // A valid message prints symbolically (bits outside its fields are ignored); an invalid one
    // prints as a numeric triple when those bits are clear, else as the raw number.
    match sym {
        Some((n, o, st)) => {
            out.push_str("sendmsg(");
            out.push_str(n);
            if !o.is_empty() {
                out.push_str(", ");
                out.push_str(o);
            }
            if let Some(st) = st {
                out.push_str(", ");
                crate::amd::operands::put(out, st);
            }
            out.push(')');
        }
        None if v & !0x37f == 0 => {
            out.push_str("sendmsg(");
            crate::amd::operands::put(out, id);
            out.push_str(", ");
            crate::amd::operands::put(out, op);
            out.push_str(", ");
            crate::amd::operands::put(out, stream);
            out.push(')');
        }
        None => {
            crate::amd::operands::put(out, v);
        }
    }
}

/// `s_waitcnt_depctr` fields of gfx10 (name, shift, width).
pub const DEPCTR_GFX10: &[(&str, u32, u32)] = &[
    ("depctr_sa_sdst", 0, 1),
    ("depctr_va_vdst", 12, 4),
    ("depctr_va_sdst", 9, 3),
    ("depctr_va_ssrc", 8, 1),
    ("depctr_va_vcc", 1, 1),
    ("depctr_vm_vsrc", 2, 3),
];

/// `s_waitcnt_depctr` fields of gfx12 (name, shift, width).
pub const DEPCTR_GFX12: &[(&str, u32, u32)] = &[
    ("depctr_hold_cnt", 7, 1),
    ("depctr_sa_sdst", 0, 1),
    ("depctr_va_vdst", 12, 4),
    ("depctr_va_sdst", 9, 3),
    ("depctr_va_ssrc", 8, 1),
    ("depctr_va_vcc", 1, 1),
    ("depctr_vm_vsrc", 2, 3),
];

/// `s_waitcnt_depctr` operand: fields not at their all-ones default, hex when bits outside the
/// fields are set.
pub fn depctr(out: &mut String, v: u32, fields: &[(&str, u32, u32)]) {
    let known: u32 = fields.iter().map(|(_, s, w)| ((1 << w) - 1) << s).sum();
    if v & !known & 0xffff != 0 {
        crate::amd::operands::put_hex(out, v);
        return;
    }
    let mut first = true;
    for (n, s, w) in fields {
        let x = (v >> s) & ((1 << w) - 1);
        if x != (1 << w) - 1 {
            if !first {
                out.push(' ');
            }
            first = false;
            crate::amd::operands::put(out, n);
            out.push('(');
            crate::amd::operands::put(out, x);
            out.push(')');
        }
    }
    if first {
        crate::amd::operands::put_hex(out, v);
    }
}

/// Export target names. gfx12 has no parameter targets and adds the dual-source blend ones.
pub fn exp_target(out: &mut String, t: u32, gfx12: bool) {
    match t {
        // gfx12 has no null export target.
        9 if gfx12 => out.push_str("invalid_target_9"),
        21 if gfx12 => out.push_str("dual_src_blend0"),
        22 if gfx12 => out.push_str("dual_src_blend1"),
        32..=63 if gfx12 => {
            out.push_str("invalid_target_");
            crate::amd::operands::put(out, t);
        }
        0..=7 => {
            out.push_str("mrt");
            crate::amd::operands::put(out, t);
        }
        8 => out.push_str("mrtz"),
        9 => out.push_str("null"),
        12..=16 => {
            out.push_str("pos");
            crate::amd::operands::put(out, t - 12);
        }
        20 => out.push_str("prim"),
        32..=63 => {
            out.push_str("param");
            crate::amd::operands::put(out, t - 32);
        }
        _ => {
            out.push_str("invalid_target_");
            crate::amd::operands::put(out, t);
        }
    }
}

/// `s_version` operand as LLVM 22 prints it: the version in bits 0-7 (a UC_VERSION name for
/// 0, 4, 6 and 9, else decimal), then each of the W64 (bit 13), W32 (14) and MDP (15) flags
/// or-ed on, the expression so far in parentheses before the second and third; any other bit
/// set prints the whole value in hex.
pub fn version(out: &mut String, v: u32) {
    if v & !0xe0ff != 0 {
        return crate::amd::operands::put_hex(out, v);
    }
    const FLAGS: [(u32, &str); 3] = [(0x2000, "UC_VERSION_W64_BIT"), (0x4000, "UC_VERSION_W32_BIT"), (0x8000, "UC_VERSION_MDP_BIT")];
    let n = FLAGS.iter().filter(|f| v & f.0 != 0).count();
    for _ in 1..n {
        out.push('(');
    }
    match v & 0xff {
        0 => out.push_str("UC_VERSION_GFX7"),
        4 => out.push_str("UC_VERSION_GFX10"),
        6 => out.push_str("UC_VERSION_GFX11"),
        9 => out.push_str("UC_VERSION_GFX12"),
        x => crate::amd::operands::put(out, x),
    }
    for (k, f) in FLAGS.iter().filter(|f| v & f.0 != 0).enumerate() {
        if k > 0 {
            out.push(')');
        }
        out.push('|');
        out.push_str(f.1);
    }
}

/// ds_swizzle_b32's offset as LLVM's swizzle() macro.
/// Offsets from 0xc000 are the rotate (0xc000-0xdfff) and FFT (0xe000-) modes; from 0x8000 the
/// quad permute only when bits 8-14 are clear (else the plain number).
pub fn ds_swizzle(out: &mut String, off: u32) {
    if off >= 0xe000 {
        out.push_str("swizzle(FFT,");
        crate::amd::operands::put(out, off & 0x1f);
        out.push(')');
        return;
    }
    if off >= 0xc000 {
        out.push_str("swizzle(ROTATE,");
        crate::amd::operands::put(out, off >> 10 & 1);
        out.push(',');
        crate::amd::operands::put(out, off >> 5 & 0x1f);
        out.push(')');
        return;
    }
    if off & 0x8000 != 0 && off & 0xff00 != 0x8000 {
        crate::amd::operands::put(out, off);
        return;
    }
    if off & 0x8000 != 0 {
        out.push_str("swizzle(QUAD_PERM,");
        crate::amd::operands::put(out, off & 3);
        out.push(',');
        crate::amd::operands::put(out, off >> 2 & 3);
        out.push(',');
        crate::amd::operands::put(out, off >> 4 & 3);
        out.push(',');
        crate::amd::operands::put(out, off >> 6 & 3);
        out.push(')');
        return;
    }
    let and = off & 0x1f;
    let or = off >> 5 & 0x1f;
    let xor = off >> 10 & 0x1f;
    if and == 0x1f && or == 0 && xor.count_ones() == 1 {
        out.push_str("swizzle(SWAP,");
        crate::amd::operands::put(out, xor);
        out.push(')');
    } else if and == 0x1f && or == 0 && xor != 0 && (xor + 1).is_power_of_two() {
        out.push_str("swizzle(REVERSE,");
        crate::amd::operands::put(out, xor + 1);
        out.push(')');
    } else if xor == 0 && (and ^ 0x1f).wrapping_add(1).is_power_of_two() && (and ^ 0x1f) + 1 >= 2 && or < (and ^ 0x1f) + 1 {
        let group = (and ^ 0x1f) + 1;
        out.push_str("swizzle(BROADCAST,");
        crate::amd::operands::put(out, group);
        out.push(',');
        crate::amd::operands::put(out, or);
        out.push(')');
    } else {
        out.push_str("swizzle(BITMASK_PERM,\"");
        for i in (0..5).rev() {
            let a = and >> i & 1;
            let o = or >> i & 1;
            let x = xor >> i & 1;
            out.push(match (a, o, x) {
                (0, 0, 0) => '0',
                (0, 1, 0) => '1',
                (1, 0, 0) => 'p',
                (1, 0, 1) => 'i',
                (0, 0, 1) => '1',
                (0, 1, 1) => '0',
                (1, 1, 0) => '1',
                _ => '0',
            });
        }
        out.push_str("\")");
    }
}

/// A DPP16 control value as LLVM prints it (` quad_perm:[...]`, ` row_shl:n`, ...).
pub fn dpp_ctrl(out: &mut String, ctrl: u32) {
    match ctrl {
        0x000..=0x0ff => {
            out.push_str(" quad_perm:[");
            crate::amd::operands::put(out, ctrl & 3);
            out.push(',');
            crate::amd::operands::put(out, ctrl >> 2 & 3);
            out.push(',');
            crate::amd::operands::put(out, ctrl >> 4 & 3);
            out.push(',');
            crate::amd::operands::put(out, ctrl >> 6 & 3);
            out.push(']');
        }
        0x101..=0x10f => {
            out.push_str(" row_shl:");
            crate::amd::operands::put(out, ctrl & 0xf);
        }
        0x111..=0x11f => {
            out.push_str(" row_shr:");
            crate::amd::operands::put(out, ctrl & 0xf);
        }
        0x121..=0x12f => {
            out.push_str(" row_ror:");
            crate::amd::operands::put(out, ctrl & 0xf);
        }
        0x140 => out.push_str(" row_mirror"),
        0x141 => out.push_str(" row_half_mirror"),
        0x150..=0x15f => {
            out.push_str(" row_share:");
            crate::amd::operands::put(out, ctrl & 0xf);
        }
        0x160..=0x16f => {
            out.push_str(" row_xmask:");
            crate::amd::operands::put(out, ctrl & 0xf);
        }
        // The wave shifts and row broadcasts of GFX9, gone since GFX10.
        0x130 => out.push_str(" /* wave_shl is not supported starting from GFX10 */"),
        0x134 => out.push_str(" /* wave_rol is not supported starting from GFX10 */"),
        0x138 => out.push_str(" /* wave_shr is not supported starting from GFX10 */"),
        0x13c => out.push_str(" /* wave_ror is not supported starting from GFX10 */"),
        0x142 | 0x143 => out.push_str(" /* row_bcast is not supported starting from GFX10 */"),
        _ => {
            out.push_str(" /* Invalid dpp_ctrl value */");
        }
    }
}

/// Image dimension names (the DIM field), as LLVM prints them.
pub const IMAGE_DIMS: [&str; 8] = [
    "SQ_RSRC_IMG_1D",
    "SQ_RSRC_IMG_2D",
    "SQ_RSRC_IMG_3D",
    "SQ_RSRC_IMG_CUBE",
    "SQ_RSRC_IMG_1D_ARRAY",
    "SQ_RSRC_IMG_2D_ARRAY",
    "SQ_RSRC_IMG_2D_MSAA",
    "SQ_RSRC_IMG_2D_MSAA_ARRAY",
];

/// (coordinates, gradient dimensions) per dim.
pub const DIM_COORDS: [(u32, u32); 8] = [(1, 1), (2, 2), (3, 3), (3, 2), (2, 1), (3, 2), (3, 2), (4, 2)];

/// Image mnemonic suffix `_o` (offset), a bit of [`image_suffixes`].
pub const IMG_O: u16 = 1;
/// Suffix `_b` (bias).
pub const IMG_B: u16 = 2;
/// Suffix `_c` (compare).
pub const IMG_C: u16 = 4;
/// Suffix `_d` (derivatives).
pub const IMG_D: u16 = 8;
/// Suffix `_cd` (coarse derivatives).
pub const IMG_CD: u16 = 16;
/// Suffix `_l` (lod).
pub const IMG_L: u16 = 32;
/// Suffix `_cl` (lod clamp).
pub const IMG_CL: u16 = 64;
/// Suffix `_mip`.
pub const IMG_MIP: u16 = 128;
/// Suffix `_g16` (16-bit derivatives).
pub const IMG_G16: u16 = 256;

/// The address-shaping suffixes of image mnemonic `m` after its first `skip` `_`-separated
/// parts, as `IMG_*` bits (one pass over the name, no allocation: image instructions are
/// decoded and printed in the hot loop).
pub fn image_suffixes(m: &str, skip: usize) -> u16 {
    m.split('_').skip(skip).fold(0, |a, p| {
        a | match p {
            "o" => IMG_O,
            "b" => IMG_B,
            "c" => IMG_C,
            "d" => IMG_D,
            "cd" => IMG_CD,
            "l" => IMG_L,
            "cl" => IMG_CL,
            "mip" => IMG_MIP,
            "g16" => IMG_G16,
            _ => 0,
        }
    })
}

/// What the address-shaping suffixes `bits` (see [`image_suffixes`]) add to an image
/// instruction's address, as both generations count it: a dword each for offset, bias and
/// compare; whether derivatives are read (`_d`, `_cd`); the lod / clamp / mip coordinates
/// (one for any of `_l`, `_cl`, `_mip`, two for `_l` with `_cl`).
pub fn image_address_terms(bits: u16) -> (u32, bool, u32) {
    let has = |b: u16| bits & b != 0;
    let extra = [IMG_O, IMG_B, IMG_C].iter().filter(|&&b| has(b)).count() as u32;
    let derivs = has(IMG_D) || has(IMG_CD);
    let lcm = u32::from(has(IMG_L) || has(IMG_CL) || has(IMG_MIP)) + u32::from(has(IMG_CL) && has(IMG_L));
    (extra, derivs, lcm)
}

/// Buffer modifiers after the operands: ` format:[BUF_FMT_NAME]` (typed buffers, NAME as the
/// format tables give it; the default 1 is not
/// printed, an unnamed value prints as a number), ` idxen`, ` offen`, ` offset:N`.
pub fn buffer_addressing(
    out: &mut String,
    format: Option<(u32, Option<&str>)>,
    idxen: bool,
    offen: bool,
    offset: u32,
) {
    match format {
        Some((1, _)) | None => {}
        Some((_, Some(n))) => {
            out.push_str(" format:[BUF_FMT_");
            crate::amd::operands::put(out, n);
            out.push(']');
        }
        Some((f, None)) => {
            out.push_str(" format:");
            crate::amd::operands::put(out, f);
        }
    }
    if idxen {
        out.push_str(" idxen");
    }
    if offen {
        out.push_str(" offen");
    }
    if offset != 0 {
        out.push_str(" offset:");
        crate::amd::operands::put(out, offset);
    }
}

/// Address dwords an image instruction reads, from its name, dim and a16 (gfx10, LLVM's rule).
pub fn image_address_count_gfx10(m: &str, dim: usize, a16: bool) -> u32 {
    if m.starts_with("image_bvh64") {
        return if a16 { 9 } else { 12 };
    }
    if m.starts_with("image_bvh") {
        return if a16 { 8 } else { 11 };
    }
    let (coords, grads) = DIM_COORDS[dim & 7];
    if m.starts_with("image_get_resinfo") {
        return 1;
    }
    let (extra, derivs, lod_clamp_mip) = image_address_terms(image_suffixes(m, 2));
    let grad = if derivs { 2 * grads } else { 0 };
    if a16 {
        // 16-bit addresses: gradients pack per dimension pair, coordinates with lod/clamp.
        let g = if grad == 0 { 0 } else if grads == 1 { 2 } else { grad / 2 };
        extra + g + (coords + lod_clamp_mip).div_ceil(2)
    } else {
        extra + grad + coords + lod_clamp_mip
    }
}

/// Address dwords an image instruction reads, from its name, dim and a16 (gfx12, LLVM's rule).
pub fn image_address_count_gfx12(m: &str, dim: usize, a16: bool) -> u32 {
    if m.starts_with("image_get_resinfo") {
        return 1;
    }
    let (coords, grads) = DIM_COORDS[dim & 7];
    let bits = image_suffixes(m, 1);
    let (extra, d, lcm) = image_address_terms(bits);
    let g16 = bits & IMG_G16 != 0;
    // (a16 packs the coordinates and lod / clamp only; the gradients pack with _g16)
    let grad = if !d {
        0
    } else if g16 {
        2 * grads.div_ceil(2)
    } else {
        2 * grads
    };
    let body = if a16 { (coords + lcm).div_ceil(2) } else { coords + lcm };
    extra + grad + body
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each suffix part sets its bit, wherever it stands after the skipped parts; parts that
    /// only look alike (`cmpswap`, `sample` itself) set nothing.
    #[test]
    fn image_suffixes_reads_each_part() {
        assert_eq!(image_suffixes("image_sample_c_d_cl_o", 2), IMG_C | IMG_D | IMG_CL | IMG_O);
        assert_eq!(image_suffixes("image_sample_cd_cl_g16", 2), IMG_CD | IMG_CL | IMG_G16);
        assert_eq!(image_suffixes("image_sample_b", 2), IMG_B);
        assert_eq!(image_suffixes("image_load_mip", 2), IMG_MIP);
        assert_eq!(image_suffixes("image_sample_l_o", 1), IMG_L | IMG_O);
        assert_eq!(image_suffixes("image_atomic_cmpswap", 2), 0);
        // The skipped parts are not read: `image_c` with two skipped is nothing.
        assert_eq!(image_suffixes("image_c", 2), 0);
        assert_eq!(image_suffixes("image_c", 1), IMG_C);
    }

    /// The address terms of some suffix sets: offset, bias and compare a dword each; `_cd` is
    /// a derivative; `_l` with `_cl` two lod / clamp coordinates, `_mip` one.
    #[test]
    fn image_address_terms_count_suffixes() {
        assert_eq!(image_address_terms(0), (0, false, 0));
        assert_eq!(image_address_terms(IMG_O | IMG_B | IMG_C), (3, false, 0));
        assert_eq!(image_address_terms(IMG_CD | IMG_CL), (0, true, 1));
        assert_eq!(image_address_terms(IMG_C | IMG_D | IMG_L | IMG_CL | IMG_O), (2, true, 2));
        assert_eq!(image_address_terms(IMG_MIP | IMG_G16), (0, false, 1));
    }
}
