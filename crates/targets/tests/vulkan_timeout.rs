//! A dispatch that outlasts the runner's wait ([`Vulkan::set_wait`]) is the run's typed error,
//! `VulkanError::Timeout`, never a process abort: the runner keeps alive what the dispatch may
//! still use, refuses further runs (`VulkanError::Unusable`), and a freshly opened runner works.
//! And lavapipe's own bound on run time, pinned: llvmpipe ends a shader's loops after 65535
//! iterations in all (`LP_MAX_TGSI_LOOP_ITERATIONS`, one count shared by every loop of the
//! shader), and the lanes then end without their later writes; a longer-running kernel
//! therefore needs many invocations, and a guest loop past that count runs differently from
//! the interpreter (the corpus run reports it as a difference, never as equal).

use isabridge_ir::interp::{self, Config, Input, Memory};
use isabridge_ir::text::parse;
use isabridge_targets::spirv::emit;
use isabridge_targets::vulkan::{Dispatch, Vulkan, VulkanError};
use std::time::Duration;

/// Runs xorshift32 from 1 for param 0 steps and returns the state (a recurrence no compiler
/// folds).
const SPIN: &str = "func @spin {
bb0:
  %0: i32 = param 0
  %1: i32 = const 0x1
  %2: i32 = const 0x0
  %3: i32 = const 0xd
  %4: i32 = const 0x11
  %5: i32 = const 0x5
  br bb1
bb1:
  %6: i32 = phi [bb0: %1], [bb1: %13]
  %7: i32 = phi [bb0: %2], [bb1: %14]
  %8: i32 = shl.wrap %6, %3
  %9: i32 = xor %6, %8
  %10: i32 = shr.u.wrap %9, %4
  %11: i32 = xor %9, %10
  %12: i32 = shl.wrap %11, %5
  %13: i32 = xor %11, %12
  %14: i32 = iadd %7, %1
  %15: b1 = icmp.ne %14, %0
  cbr %15, bb1, bb2
bb2:
  ret %13
}";

fn open() -> Vulkan {
    Vulkan::open(None).unwrap_or_else(|e| panic!("Vulkan (mesa-vulkan-drivers, tools/install_oracles.sh): {e}"))
}

/// Invocations and steps of the long dispatch: seconds on lavapipe (3.4 s on 2 cores at a
/// load of 12), far past the test's wait, and then it ends, so the dispatch left running
/// finishes by itself; each invocation stays under llvmpipe's loop limit.
const LONG: (u32, u64) = (16384, 60000);

#[test]
fn a_dispatch_past_the_wait_is_a_timeout_and_the_runner_refuses_more() {
    let k = emit(&parse(SPIN).unwrap()).unwrap();
    let mut vk = open();
    vk.set_wait(Duration::from_millis(100));
    let params = vec![LONG.1; LONG.0 as usize];
    let job = Dispatch { invocations: LONG.0, params: &params, constant: &[] };
    assert_eq!(vk.run(&k, &job), Err(VulkanError::Timeout { ms: 100 }));
    assert!(vk.is_broken());
    assert_eq!(vk.run(&k, &job), Err(VulkanError::Unusable));
    // A fresh runner (its own device) runs work while the first one's dispatch may go on.
    let fresh = open();
    let add = emit(&parse("func @add {\nbb0:\n  %0: i32 = param 0\n  %1: i32 = const 0x5\n  %2: i32 = iadd %0, %1\n  ret %2\n}").unwrap()).unwrap();
    let words = [37u64];
    assert_eq!(fresh.run(&add, &Dispatch { invocations: 1, params: &words, constant: &[] }), Ok(vec![42]));
    assert!(!fresh.is_broken());
}

/// On lavapipe, 65535 iterations run as on the interpreter and 65536 do not: the lane ends
/// at the loop limit without writing its output (0) and, ending there, without reaching the
/// module's loop guard (`spirv/loop_guard.rs` records `LOOP_LIMIT_TRAP` only for invocations
/// that run on past a cut loop, as `switches` did). Other devices: not checked.
#[test]
fn lavapipe_ends_loops_after_65535_iterations() {
    let vk = open();
    if !vk.name().contains("llvmpipe") {
        return;
    }
    let f = parse(SPIN).unwrap();
    let k = emit(&f).unwrap();
    let cfg = Config { max_steps: 1 << 20, ..Config::default() };
    for (steps, equal) in [(65535u64, true), (65536, false)] {
        let want = interp::run(&f, &cfg, &[Input::Uniform(steps)], Memory::default()).unwrap().outputs[0][0];
        let got = vk.run(&k, &Dispatch { invocations: 1, params: &[steps], constant: &[] }).unwrap()[0];
        assert_eq!(got == want, equal, "{steps} steps: interpreter {want:#x}, lavapipe {got:#x}");
        if !equal {
            assert_eq!(got, 0, "{steps} steps");
        }
    }
}
