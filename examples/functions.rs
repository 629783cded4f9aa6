//! Lists a code object's functions with typed operands: each function's name and address
//! range, then each instruction's address, text, opcode name and operands from the operand
//! model (`IsaPlugin::operands`): access (`r` read, `w` written, `rw` both), kind, and `*` for
//! an implicit operand.
//!
//! ```sh
//! cargo run --example functions -- fixtures/amd/bin/gfx_sample.gfx1013-w32.o
//! cargo run --example functions -- fixtures/nvidia/bin/control.sm86.cubin
//! cargo run --example functions -- dump.bin gfx1013    # a raw dump needs its ISA
//! ```

use isabridge::operand::{Access, Operand, OperandKind, Part, RegClass, SpecialReg};
use isabridge::{load, sweep, Isa};
use std::fmt::Write as _;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: functions FILE [ISA]");
        return ExitCode::from(2);
    };
    let isa = args.get(1).and_then(|n| Isa::from_name(n));
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::from(2);
        }
    };
    let program = match load(&bytes, isa) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::from(2);
        }
    };
    let plugin = program.isa.plugin();
    let mut out = String::new();
    for section in &program.sections {
        for f in &section.functions {
            let _ = writeln!(out, "{} {} [{:#x}, {:#x}) in {}", program.isa, f.name, f.start, f.end, section.name);
            for (addr, inst) in sweep(program.isa, section, f) {
                let d = match inst {
                    Ok(d) => d,
                    Err(e) => {
                        let _ = writeln!(out, "  {addr:#06x}  ({e})");
                        continue;
                    }
                };
                let mut text = String::new();
                plugin.print(&d, addr, &mut text);
                let model = plugin.operands(&d, addr);
                let ops: Vec<String> = model.operands.iter().map(operand).collect();
                let _ = writeln!(out, "  {addr:#06x}  {text}  ; {} {:?} [{}]", model.name, model.flow, ops.join(", "));
            }
        }
    }
    print!("{out}");
    ExitCode::SUCCESS
}

/// One operand as `access:kind`, `*` after an implicit one.
fn operand(o: &Operand) -> String {
    let access = match o.access {
        Access::Read => "r",
        Access::Write => "w",
        Access::ReadWrite => "rw",
    };
    format!("{access}:{}{}", kind(&o.kind), if o.implicit { "*" } else { "" })
}

fn kind(k: &OperandKind) -> String {
    match k {
        OperandKind::Reg(r) => {
            let (prefix, upper) = match r.class {
                RegClass::Sgpr => ("s", false),
                RegClass::Vgpr => ("v", false),
                RegClass::Ttmp => ("ttmp", false),
                RegClass::Agpr => ("a", false),
                RegClass::R => ("R", true),
                RegClass::Ur => ("UR", true),
                RegClass::P => ("P", true),
                RegClass::Up => ("UP", true),
            };
            if r.count <= 1 || upper {
                let n = if upper && r.count > 1 { format!(".{}", r.count * 32) } else { String::new() };
                format!("{prefix}{}{n}", r.first)
            } else {
                format!("{prefix}[{}:{}]", r.first, r.first + r.count - 1)
            }
        }
        OperandKind::Special { reg, part } => {
            let part = match part {
                Part::Whole => "",
                Part::Lo => "_lo",
                Part::Hi => "_hi",
            };
            match reg {
                SpecialReg::Sr(name, _) => format!("{name}{part}"),
                _ => format!("{reg:?}{part}").to_lowercase(),
            }
        }
        OperandKind::InlineConst { bits, ty, .. } => format!("const({bits:#x}:{ty:?})"),
        OperandKind::Literal(v) => format!("lit({v:#x})"),
        OperandKind::Imm(v) => format!("imm({v})"),
        OperandKind::FImm { bits, ty } => format!("fimm({bits:#x}:{ty:?})"),
        OperandKind::ConstBank { bank, offset, .. } => format!("c[{bank:#x}][{offset:#x}]"),
        OperandKind::Mem { base, offset, .. } => match base {
            Some(b) => format!("[R{}{offset:+#x}]", b.first),
            None => format!("[{offset:#x}]"),
        },
        OperandKind::Label(t) => format!("label({t:#x})"),
        OperandKind::Field { ty, value } => format!("{ty}({value:#x})"),
    }
}
