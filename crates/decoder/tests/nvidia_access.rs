//! Read / write access of the NVIDIA operand model, operand by operand, on corpus words
//! (fixtures/nvidia/ref). Expected values: nvdisasm 12.8's register life ranges
//! (`nvdisasm -plr`: `^` assigned, `v` used), which are the spec's `Output` attributes
//! (tools/nvspec/outputs.py). Forms whose written operands are not only the first one:
//! a predicate and a register result (`ATOMG ... PT, R23, [..]`, `SHFL`, `LOP3.LUT P0, RZ`; sm50
//! `LOP.AND.NZ P0, RZ`, `LEA.HI.X P1, RZ`), two predicate results (`ISETP P0, P1`); forms whose first
//! operand is only read (`FCHK P0, R3, R5` writes P0 alone, `WARPSYNC R5`, `RET.REL.NODEC R20`).

use isabridge_decoder::operand::Access::{self, Read, Write};
use isabridge_decoder::sm50::SM50;
use isabridge_decoder::sm86::SM86;
use isabridge_decoder::IsaPlugin;

mod common;
use common::unhex;

fn sm86(bytes: &str) -> Vec<Access> {
    let d = SM86.decode(&unhex(bytes), 0).expect("decodes");
    SM86.operands(&d, 0).explicit().map(|o| o.access).collect()
}

/// The instruction in `slot` (0-2) of a bundle with control word `ctrl`.
fn sm50(inst: &str, ctrl: &str, slot: usize) -> Vec<Access> {
    let inst = u64::from_le_bytes(unhex(inst)[..8].try_into().unwrap());
    let ctrl = u64::from_str_radix(ctrl, 16).unwrap();
    let addr = 8 + 8 * slot as u64;
    let d = SM50.decode_slot(inst, ctrl, slot, addr).expect("decodes");
    SM50.operands(&d, addr).explicit().map(|o| o.access).collect()
}

#[test]
fn sm86_written_operands() {
    // ATOMG.E.ADD.STRONG.GPU PT, R23, [R4.64], R25
    assert_eq!(sm86("a879170419000000c4e11e0800240700"), [Write, Write, Read, Read]);
    // SHFL.IDX PT, R11, R9, 0x1f, 0x1f
    assert_eq!(sm86("897f0b09001fe00300000e0000241e00"), [Write, Write, Read, Read, Read]);
    // SHFL.IDX PT, R13, R0, R5, 0x1f
    assert_eq!(sm86("89750d00051f000000000e0000680e00"), [Write, Write, Read, Read, Read]);
    // LOP3.LUT P0, RZ, R7, 0x1, RZ, 0xc0, !PT
    assert_eq!(sm86("1278ff0701000000ffc0800700ca0f00"), [Write, Write, Read, Read, Read, Read, Read]);
    // LOP3.LUT P0, RZ, R5, UR5, R4, 0x40, !PT
    assert_eq!(sm86("127cff05050000000440800f00c64f00"), [Write, Write, Read, Read, Read, Read, Read]);
    // FCHK P0, R3, R5
    assert_eq!(sm86("02730003050000000000000000a20e00"), [Write, Read, Read]);
    // VOTE.ANY R15, PT, P0
    assert_eq!(sm86("06780f000000000000010e0000e20f00"), [Write, Write, Read]);
    // WARPSYNC R5
    assert_eq!(sm86("48730000050000000000800300e80f00"), [Read]);
    // RET.REL.NODEC R20 `(calls)
    assert_eq!(sm86("50790014b0f8ffffffffc30300ec8f00")[0], Read);
}

#[test]
fn sm50_written_operands() {
    // FCHK.DIVIDE P0, R5, R0
    assert_eq!(sm50("000507000000885c", "0007c400fe0017e2", 1), [Write, Read, Read]);
    // ATOM.E.ADD R0, [R4], R3
    assert_eq!(sm50("00043700000001ed", "005f8400ffa001b1", 0), [Write, Read, Read]);
    // SHFL.IDX PT, R10, R7, 0x1f, 0x1f
    assert_eq!(sm50("0a07f7317c0017ef", "085fc002fec0173f", 0), [Write, Write, Read, Read, Read]);
    // LOP.AND.NZ P0, RZ, R4, 0x1
    assert_eq!(sm50("ff04170000304038", "001fbc00fde007ed", 0), [Write, Write, Read, Read]);
    // LOP3.LUT.NZ P0, RZ, R5, R2, R4, 0xc8
    assert_eq!(sm50("ff0527803c02e05b", "001ff400fda007f6", 1), [Write, Write, Read, Read, Read, Read]);
    // LEA.HI.X P1, RZ, R0, RZ, R6
    assert_eq!(sm50("ff00f70f4003d95b", "001ff400fda207f6", 1), [Write, Write, Read, Read, Read]);
    // VOTE.ANY R5, PT, PT
    assert_eq!(sm50("0500070080e3d950", "001c5800fe0007f6", 1), [Write, Write, Read]);
    // ATOMS.CAS R5, [0x28], R12, R13: the result is only written (`ATOMS.CAS R3, [R12+0x20],
    // R2, R3` reads R3 as the value after R2, not as its destination)
    assert_eq!(sm50("05ffc780020040ee", "001fc408fda0077f", 2)[0], Write);
    // ATOM.E.CAS R16, [R8+0x2c], R2, R3
    assert_eq!(sm50("100827c00200f1ee", "001ec402fe21073d", 2)[0], Write);
}
