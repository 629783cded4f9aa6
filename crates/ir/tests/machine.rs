//! The machine-level CFG builder on a toy instruction set.

use isabridge_ir::machine::{EdgeKind, MachineError, MachineFunction, MachineInst};

#[derive(Debug)]
enum Toy {
    Op(u32),
    Jmp(i64),
    Bcc(i64),
    End,
}

impl MachineInst for Toy {
    fn len(&self) -> u32 {
        match self {
            Toy::Op(n) => *n,
            _ => 4,
        }
    }
    fn is_branch(&self) -> bool {
        matches!(self, Toy::Jmp(_) | Toy::Bcc(_))
    }
    fn is_conditional(&self) -> bool {
        matches!(self, Toy::Bcc(_))
    }
    fn branch_target(&self, addr: u64) -> Option<u64> {
        match self {
            Toy::Jmp(d) | Toy::Bcc(d) => Some(addr.wrapping_add(4).wrapping_add(*d as u64)),
            _ => None,
        }
    }
    fn is_terminal(&self) -> bool {
        matches!(self, Toy::End)
    }
}

#[test]
fn loop_and_if_blocks() {
    // 0x100 op8; 0x108 op4; 0x10c bcc -> 0x108 (loop); 0x110 bcc -> 0x11c; 0x114 op4; 0x118 end; 0x11c jmp -> 0x118
    let prog = vec![Toy::Op(8), Toy::Op(4), Toy::Bcc(-8), Toy::Bcc(8), Toy::Op(4), Toy::End, Toy::Jmp(-8)];
    let mf = MachineFunction::build(0x100, prog, &[]).expect("builds");
    let addrs: Vec<u64> = mf.blocks.iter().map(|b| b.addr).collect();
    assert_eq!(addrs, vec![0x100, 0x108, 0x110, 0x114, 0x118, 0x11c]);
    assert_eq!(mf.successors(0), vec![1]);
    assert_eq!(mf.successors(1), vec![1, 2]);
    assert_eq!(mf.successors(2), vec![3, 5]);
    assert_eq!(mf.successors(3), vec![4]);
    assert_eq!(mf.successors(4), Vec::<usize>::new());
    assert_eq!(mf.successors(5), vec![4]);
    assert_eq!(mf.block_at(0x10c), Some(1));
    assert_eq!(mf.block_at(0x10d), None);
    let taken = mf.cfg.edge_weights().filter(|e| **e == EdgeKind::Taken).count();
    assert_eq!(taken, 3);
    assert_eq!(mf.entries, vec![0x100]);
}

#[test]
fn bad_inputs_are_typed_errors() {
    assert_eq!(MachineFunction::<Toy>::build(0, vec![], &[]).err(), Some(MachineError::Empty));
    assert_eq!(MachineFunction::build(0, vec![Toy::Op(0)], &[]).err(), Some(MachineError::ZeroLength(0)));
    assert_eq!(
        MachineFunction::build(0, vec![Toy::Op(4), Toy::Jmp(2)], &[]).err(),
        Some(MachineError::BadTarget { from: 4, to: 10 })
    );
    assert_eq!(MachineFunction::build(0, vec![Toy::Op(4)], &[2]).err(), Some(MachineError::BadEntry(2)));
    // A second entry point starts a block.
    let mf = MachineFunction::build(0, vec![Toy::Op(4), Toy::Op(4), Toy::End], &[0, 4]).expect("builds");
    assert_eq!(mf.blocks.len(), 2);
    assert_eq!(mf.successors(0), vec![1]);
}
