//! SOP1, SOP2, SOPK, SOPC, SOPP: scalar ALU, branches, the `s_wait_*` family, messages.

use super::ops;
use super::Op;
use crate::amd::print::Ctx;
use crate::amd::symbols;

/// Prints a scalar ALU or program-control instruction.
pub fn print(c: &Ctx<'_, Op>, out: &mut String) {
    let m = c.mnemonic();
    out.push_str(m);
    for (k, op) in c.ie.operands.iter().enumerate() {
        crate::amd::operands::sep(out, k);
        let v = c.val(op);
        match c.ty(op) {
            "OPR_SDST" | "OPR_SREG" => c.sreg(out, v, op.size),
            "OPR_SSRC" | "OPR_SRC" => {
                // Scalar 16-bit operands print their literal whole, except SOP2's f16 math.
                let kind = match c.kind(op) {
                    crate::amd::operands::Kind::I16 => crate::amd::operands::Kind::I32,
                    crate::amd::operands::Kind::F16 if c.enc_name() == "ENC_SOP1" => {
                        crate::amd::operands::Kind::I32
                    }
                    // SOPC's f16 comparisons print an inline float as its f16 bits.
                    crate::amd::operands::Kind::F16 if c.enc_name() == "ENC_SOPC" && (240..=248).contains(&v) => {
                        crate::amd::operands::Kind::I16
                    }
                    k => k,
                };
                let reg_only = crate::amd::operands::sop_register_only(m);
                let (size, kind) = if reg_only && crate::amd::operands::is_inline_constant(v) {
                    (32, crate::amd::operands::Kind::I32)
                } else {
                    (op.size, kind)
                };
                ops::src(c, out, v, size, kind);
                crate::amd::operands::sop_source_note(out, m, v, op.size);
            }
            "OPR_LABEL" => {
                crate::amd::operands::put(out, v);
            }
            "OPR_WAITCNT" => {
                if m == "s_waitcnt" {
                    waitcnt(out, v);
                } else {
                    symbols::depctr(out, v, symbols::DEPCTR_GFX12);
                }
            }
            "OPR_DELAY" => delay_alu(out, v),
            "OPR_SENDMSG" => sendmsg(out, v),
            "OPR_HWREG" => symbols::hwreg(out, v, symbols::HWREG_GFX12),
            "OPR_SIMM32" if m == "s_setreg_imm32_b32" => crate::amd::operands::imm32(out, c.lit),
            "OPR_SIMM32" => {
                crate::amd::operands::kimm(out, c.lit);
            }
            _ => simm16(m, v, out),
        }
    }
    if m == "s_endpgm" && c.ie.operands.is_empty() {
        // The spec lists no operand; LLVM prints the immediate when it is not zero.
        let v = c.f(super::fields::ENC_SOPP::SIMM16);
        if v != 0 {
            out.push(' ');
            crate::amd::operands::put(out, v);
        }
    }
}

fn simm16(m: &str, v: u32, out: &mut String) {
    if m == "s_version" {
        return crate::amd::symbols::version(out, v);
    }
    let hex = m == "s_clause"
        || m == "s_round_mode"
        || m == "s_ttracedata_imm"
        || m.starts_with("s_wait_")
        || m.starts_with("s_addk")
        || m.starts_with("s_movk")
        || m.starts_with("s_cmovk")
        || m.starts_with("s_mulk");
    if hex || v > 64 {
        crate::amd::operands::put_hex(out, v);
    } else {
        crate::amd::operands::put(out, v);
    }
}

/// gfx11+ `s_waitcnt` layout: expcnt [2:0], lgkmcnt [9:4], vmcnt [15:10].
fn waitcnt(out: &mut String, v: u32) {
    let exp = v & 7;
    let lgkm = (v >> 4) & 0x3f;
    let vm = (v >> 10) & 0x3f;
    let all = vm == 63 && exp == 7 && lgkm == 63;
    // Parts separated by spaces, written straight into `out`.
    let mut first = true;
    let mut part = |out: &mut String, name: &str, n: u32| {
        if !first {
            out.push(' ');
        }
        first = false;
        out.push_str(name);
        out.push('(');
        crate::amd::operands::put(out, n);
        out.push(')');
    };
    if vm != 63 || all {
        part(out, "vmcnt", vm);
    }
    if exp != 7 || all {
        part(out, "expcnt", exp);
    }
    if lgkm != 63 || all {
        part(out, "lgkmcnt", lgkm);
    }
}

const DELAY_ID: [&str; 12] = [
    "NO_DEP",
    "VALU_DEP_1",
    "VALU_DEP_2",
    "VALU_DEP_3",
    "VALU_DEP_4",
    "TRANS32_DEP_1",
    "TRANS32_DEP_2",
    "TRANS32_DEP_3",
    "FMA_ACCUM_CYCLE_1",
    "SALU_CYCLE_1",
    "SALU_CYCLE_2",
    "SALU_CYCLE_3",
];
const DELAY_SKIP: [&str; 6] = ["SAME", "NEXT", "SKIP_1", "SKIP_2", "SKIP_3", "SKIP_4"];

/// `s_delay_alu instid0(..) | instskip(..) | instid1(..)`; fields at their zero default are left out.
fn delay_alu(out: &mut String, v: u32) {
    let id0 = v & 0xf;
    let skip = (v >> 4) & 7;
    let id1 = (v >> 7) & 0xf;
    let id = |x: u32| DELAY_ID.get(x as usize).copied().unwrap_or("/* invalid instid value */");
    // Parts separated by ` | `, written straight into `out`; `0` when there are none.
    let mut first = true;
    let mut part = |out: &mut String, name: &str, arg: &str| {
        if !first {
            out.push_str(" | ");
        }
        first = false;
        out.push_str(name);
        out.push('(');
        out.push_str(arg);
        out.push(')');
    };
    if id0 != 0 {
        part(out, "instid0", id(id0));
    }
    if skip != 0 {
        part(out, "instskip", DELAY_SKIP.get(skip as usize).copied().unwrap_or("/* invalid instskip value */"));
    }
    if id1 != 0 {
        part(out, "instid1", id(id1));
    }
    if id0 == 0 && skip == 0 && id1 == 0 {
        out.push('0');
    }
}

const MSG: &[(u32, &str)] = &[(1, "MSG_INTERRUPT"), (2, "MSG_HS_TESSFACTOR"), (3, "MSG_DEALLOC_VGPRS"), (9, "MSG_GS_ALLOC_REQ")];
const MSG_RTN: &[&str] = &[
    "MSG_RTN_GET_DOORBELL",
    "MSG_RTN_GET_DDID",
    "MSG_RTN_GET_TMA",
    "MSG_RTN_GET_REALTIME",
    "MSG_RTN_SAVE_WAVE",
    "MSG_RTN_GET_TBA",
    "MSG_RTN_GET_TBA_TO_PC",
    "MSG_RTN_GET_SE_AID_ID",
];

/// gfx12 `sendmsg(...)`: the id is the low byte; a known id (of either table: LLVM takes the
/// return messages in `s_sendmsg` and the others in `s_sendmsg_rtn_*`) prints its name alone.
fn sendmsg(out: &mut String, v: u32) {
    let id = v & 0xff;
    let name = match id.checked_sub(128) {
        Some(i) => MSG_RTN.get(i as usize).copied(),
        None => MSG.iter().find(|e| e.0 == id).map(|e| e.1),
    };
    match name {
        Some(n) => {
            out.push_str("sendmsg(");
            crate::amd::operands::put(out, n);
            out.push(')');
        }
        None if v >> 8 == 0 => {
            out.push_str("sendmsg(");
            crate::amd::operands::put(out, id);
            out.push_str(", 0, 0)");
        }
        None => {
            crate::amd::operands::put(out, v);
        }
    }
}
