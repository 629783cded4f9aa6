//! Memory, atomics and a few operands whose probed field is narrower than nvdisasm's. Each
//! rule was measured on nvdisasm 12.8 by flipping the bits involved on fuzz-set words.

use crate::nvidia::{Ctx, Text};
use std::fmt::Write as _;

fn reg(v: u64) -> String {
    if v >= 255 {
        "RZ".to_string()
    } else {
        format!("R{v}")
    }
}

fn signed_hex(v: i64) -> String {
    if v < 0 {
        format!("-{:#x}", v.unsigned_abs())
    } else {
        format!("{v:#x}")
    }
}

fn sext(v: u64, n: u32) -> i64 {
    ((v << (64 - n)) as i64) >> (64 - n)
}

/// Applies the rules; true when the instruction was handled here.
pub fn fix(ctx: &Ctx, t: &mut Text) -> bool {
    match ctx.inst() {
        "LD" | "ST" => ld_st(ctx, t),
        "ATOMS" => atoms(ctx, t),
        "ATOM" => atom(ctx, t),
        "R2P" => byte_selector(ctx, t, 1),
        "BAR" => bar(ctx, t),
        "S2R" | "CS2R" => {
            // The special register is bits 20-27; values without a name print as `SR<n>`.
            let v = ctx.bits(20, 8);
            if let Some(o) = t.ops.get_mut(1) {
                if o.starts_with("SR") || o.starts_with("SM_") {
                    *o = match crate::nvidia::model::sm50_sreg(v as u8) {
                        Some(n) => n.to_string(),
                        None => format!("SR{v}"),
                    };
                }
            }
        }
        // `IPA`: a third source `RZ` (bits 39-46) is left out (measured in every mode); without
        // `.IDX` a trailing `PT` is left out too (`!PT` is printed; `IPA.IDX` keeps `PT`).
        "IPA" => {
            if ctx.bits(39, 8) == 255 && t.ops.len() == 5 && t.ops[3] == "RZ" {
                t.ops.remove(3);
            }
            if !t.mnem.starts_with("IPA.IDX") && t.ops.last().is_some_and(|o| o == "PT") {
                t.ops.pop();
            }
        }
        "LEA" | "LOP" => predicate_destination(ctx, t),
        "AL2P" | "PIXLD" => t.ops.retain(|o| o != "PT"),
        // The default size `.32` is printed only after `.U`.
        "LDS" => {
            if !t.has("U") {
                t.remove("32");
            }
        }
        "XMAD" => xmad(ctx, t),
        "CCTL" if ctx.bits(0, 4) == 0 => cctl_query(ctx, t),
        // A register base without `.P` (bit 31) is a physical address: `.PHYS` after `.O`
        // (its offset is then zero, `ald_ok`).
        "ALD" if ctx.bits(8, 8) != 0xff && ctx.bits(31, 1) == 0 => {
            let at = if t.mnem.starts_with("ALD.O") { 5 } else { 3 };
            t.mnem.insert_str(at, ".PHYS");
        }
        _ => return false,
    }
    true
}

/// `LD` / `ST`: the trailing predicate is bits 58-60 (left out when `PT`); an absolute address
/// (`[RZ+x]`) is an unsigned 32-bit number; an `INVALIDSIZE` spelling is the last suffix.
fn ld_st(ctx: &Ctx, t: &mut Text) {
    let p = ctx.bits(58, 3);
    let last_is_pred = t.ops.last().is_some_and(|o| is_pred(o));
    if last_is_pred {
        t.ops.pop();
    }
    if p != 7 {
        t.ops.push(format!("P{p}"));
    }
    let ra = ctx.bits(8, 8);
    if ra == 255 {
        let off = ctx.bits(20, 32);
        for o in t.ops.iter_mut() {
            if o.starts_with('[') {
                *o = format!("[{off:#x}]");
            }
        }
    }
    let parts: Vec<&str> = t.mnem.split('.').collect();
    if let Some(i) = parts.iter().position(|p| p.starts_with("INVALIDSIZE")) {
        let mut v: Vec<&str> = parts.clone();
        let s = v.remove(i);
        v.push(s);
        t.mnem = v.join(".");
    }
}

fn is_pred(o: &str) -> bool {
    let o = o.trim_start_matches('!');
    o == "PT" || (o.len() == 2 && o.starts_with('P') && o.as_bytes()[1].is_ascii_digit())
}

/// `ATOMS`: the offset is bits 30-51 times 4, signed (24 bits) beside a base register, unsigned
/// with base `RZ` (`[0x800024]`, `[R4+-0x800000]`, measured on nvdisasm 12.8); `CAS`/`CAST` print their
/// second data register as the one after the first (`.64`: two after) when bit 28 is clear,
/// else `RZ`; `.64` (the last suffix) is bit 52.
fn atoms(ctx: &Ctx, t: &mut Text) {
    let off = sext(ctx.bits(30, 22), 22) * 4;
    let ra = ctx.bits(8, 8);
    if let Some(o) = t.ops.iter_mut().find(|o| o.starts_with('[')) {
        *o = if ra == 255 && off != 0 { format!("[{:#x}]", off as u64 & 0xff_ffff) } else { address(ra, off) };
    }
    if t.mnem.starts_with("ATOMS.CAS") {
        let wide = ctx.bits(52, 1) == 1;
        if ctx.bits(29, 1) == 1 {
            rz_first(ctx, t);
        } else {
            cas(ctx, t, wide, ctx.bits(28, 1) == 0);
        }
    }
}

fn address(ra: u64, off: i64) -> String {
    if off == 0 {
        format!("[{}]", reg(ra))
    } else {
        format!("[{}+{}]", reg(ra), signed_hex(off))
    }
}

/// `ATOM`: a placeholder size spelling (`INVALIDATOMICSIZE7`) is the last suffix.
/// `ATOM.CAS`: `.64` (the last suffix) is bit 49; the second data register follows the first
/// when bit 50 is clear, else `RZ`.
fn atom(ctx: &Ctx, t: &mut Text) {
    let mut parts: Vec<&str> = t.mnem.split('.').collect();
    if let Some(i) = parts.iter().position(|p| p.starts_with("INVALIDATOMICSIZE")) {
        let s = parts.remove(i);
        parts.push(s);
        t.mnem = parts.join(".");
    }
    if ctx.bits(8, 8) == 255 {
        // absolute address: bits 28-47, unsigned
        let off = ctx.bits(28, 20);
        if let Some(o) = t.ops.iter_mut().find(|o| o.starts_with('[')) {
            *o = format!("[{off:#x}]");
        }
    }
    if t.mnem.contains(".CAS") {
        let wide = ctx.bits(49, 1) == 1;
        if ctx.bits(51, 1) == 1 {
            rz_first(ctx, t);
        } else {
            cas(ctx, t, wide, ctx.bits(50, 1) == 0);
        }
    }
}

fn cas(ctx: &Ctx, t: &mut Text, wide: bool, second: bool) {
    let mut parts: Vec<String> = t.mnem.split('.').map(str::to_string).collect();
    parts.retain(|p| p != "64");
    if wide {
        parts.push("64".to_string());
    }
    t.mnem = parts.join(".");
    // With the second register present, a number past R254 prints `???255` (the first too when
    // it is 255: measured on ATOM / ATOMS CAS words with b = 253..255, both sizes).
    let rb = ctx.bits(20, 8);
    let n = rb + if wide { 2 } else { 1 };
    let c = if !second { "RZ".to_string() } else if n >= 255 { "???255".to_string() } else { reg(n) };
    if t.ops.len() >= 4 {
        if second && rb == 255 {
            t.ops[2] = "???255".to_string();
        }
        t.ops[3] = c;
    }
}

/// `R2P`: the byte of the source register is bits 41-42 (`.B0` is not printed).
fn byte_selector(ctx: &Ctx, t: &mut Text, op: usize) {
    let sel = ctx.bits(41, 2);
    let Some(o) = t.ops.get_mut(op) else { return };
    if let Some(i) = o.find(".B") {
        if o[i + 2..].starts_with(|c: char| c.is_ascii_digit()) {
            o.replace_range(i..i + 3, "");
        }
    }
    if sel != 0 {
        let b = o.as_bytes();
        let mut j = o.find('R').map(|i| i + 1).unwrap_or(o.len());
        while j < b.len() && (b[j].is_ascii_digit() || b[j] == b'Z') {
            j += 1;
        }
        let mut s = String::new();
        let _ = write!(s, ".B{sel}");
        o.insert_str(j, &s);
    }
}

/// `LEA` / `LOP`: the predicate destination is bits 48-50 and is left out when `PT`.
fn predicate_destination(ctx: &Ctx, t: &mut Text) {
    if t.ops.first().is_some_and(|o| is_pred(o)) && t.ops.len() > 2 {
        let p = ctx.bits(48, 3);
        if p == 7 {
            t.ops.remove(0);
        } else {
            t.ops[0] = format!("P{p}");
        }
    }
}

/// `CAS` forms with bit 29 (`ATOMS`) / 51 (`ATOM`) set: the data registers are `RZ` and bits
/// 20-27.
fn rz_first(ctx: &Ctx, t: &mut Text) {
    if t.ops.len() >= 4 {
        t.ops[2] = "RZ".to_string();
        t.ops[3] = reg(ctx.bits(20, 8));
    }
}

/// `BAR`, printed from its bits: mode 32-34 (`SYNC`, `ARV`, `RED`, `SCAN`, 4: `SYNCALL` alone),
/// `RED` operation 35-36; barrier 8-15 (a register unless bit 44), thread count 20-31 (a
/// register 20-27 unless bit 43; an immediate 0 is left out except for `ARV`); `RED`/`SCAN`
/// end with the predicate 39-41, negated by 42.
fn bar(ctx: &Ctx, t: &mut Text) {
    let b = |o: u32, n: u32| ctx.bits(o, n);
    let mode = b(32, 3);
    if mode == 4 {
        t.guard.clear();
        t.mnem = "BAR.SYNCALL".to_string();
        t.ops.clear();
        return;
    }
    let mut m = String::from("BAR.");
    m.push_str(["SYNC", "ARV", "RED", "SCAN", "", "INVALIDBARMODE5", "INVALIDBARMODE6", "INVALIDBARMODE7"][mode as usize]);
    if mode == 2 {
        m.push_str([".POPC", ".AND", ".OR", ".INVALIDBARMODE3"][b(35, 2) as usize]);
    }
    let mut ops = vec![if b(44, 1) == 1 { format!("{:#x}", b(8, 8)) } else { reg(b(8, 8)) }];
    if b(43, 1) == 0 {
        ops.push(reg(b(20, 8)));
    } else if b(20, 12) != 0 || mode == 1 {
        ops.push(format!("{:#x}", b(20, 12)));
    }
    if mode == 2 || mode == 3 {
        let p = b(39, 3);
        let mut s = String::new();
        if b(42, 1) == 1 {
            s.push('!');
        }
        if p == 7 {
            s.push_str("PT");
        } else {
            let _ = write!(s, "P{p}");
        }
        ops.push(s);
    }
    t.mnem = m;
    t.ops = ops;
}

/// `XMAD`: the 16-bit immediate (bits 20-35) of the 0x36/0x37 forms is signed when b is (bit
/// 49); a placeholder spelling of the mode field (`???6`) comes after `.PSL`.
fn xmad(ctx: &Ctx, t: &mut Text) {
    if ctx.bits(57, 7) == 0x1b {
        if let Some(o) = t.ops.iter_mut().find(|o| o.starts_with("0x") || o.starts_with("-0x")) {
            let v = ctx.bits(20, 16);
            *o = if ctx.bits(49, 1) == 1 && v >= 0x8000 { format!("-{:#x}", 0x1_0000 - v) } else { format!("{v:#x}") };
        }
    }
    if crate::nvidia::find_bytes(&t.mnem, b"???").is_none() {
        return; // no placeholder suffix to move
    }
    let mut parts: Vec<&str> = t.mnem.split('.').collect();
    if let (Some(i), Some(j)) = (parts.iter().position(|p| p.starts_with("???")), parts.iter().position(|p| *p == "PSL")) {
        if i < j {
            parts.swap(i, j);
            t.mnem = parts.join(".");
        }
    }
}

/// Whether nvdisasm 12.8 accepts an `ALD` word (bits 51-63 = 0x1dfb): a register base (bits
/// 8-15 not `RZ`) without `.P` (bit 31) takes no offset (bits 20-30; measured by enumerating
/// base, offset, `.O` and `.P`). Other words are true.
#[inline(always)]
pub fn ald_ok(w: u64) -> bool {
    w >> 51 != 0x1dfb || w >> 8 & 0xff == 0xff || w >> 31 & 1 == 1 || w >> 20 & 0x7ff == 0
}

/// Cache type names of `CCTL`, bits 4-6 (nvdisasm 12.8).
const CCTL_CACHE: [&str; 8] = ["", ".U", ".C", ".I", ".CRS", ".INVALIDCACHETYPE5", ".INVALIDCACHETYPE6", ".INVALIDCACHETYPE7"];

/// `CCTL` operation 0 (bits 0-3) is `QRY1`, printed with the address glued to it:
/// `CCTL.E.U.QRY1[R1+0x40000004]` (nvdisasm 12.8 on every cache type of both `CCTL` opcodes;
/// the spec's value table has no spelling for it, and a word with cache type `CRS` and
/// operation 0 is refused).
fn cctl_query(ctx: &Ctx, t: &mut Text) {
    let mut m = String::from("CCTL");
    if ctx.bits(52, 1) == 1 {
        m.push_str(".E");
    }
    m.push_str(CCTL_CACHE[ctx.bits(4, 3) as usize]);
    m.push_str(".QRY1");
    if let Some(a) = t.ops.iter().find(|o| o.starts_with('[')) {
        m.push_str(a);
    }
    t.mnem = m;
    t.ops.clear();
}
