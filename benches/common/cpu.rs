//! On-CPU rates for the lift benches: with `ISABRIDGE_LIFT_CPU=<seconds>` set, a bench runs each
//! workload for that many seconds of this thread's CPU time (Linux: `/proc/thread-self/schedstat`)
//! and prints guest instructions per CPU-second next to the wall-clock rate, the figure that
//! does not depend on what else the machine runs.

use std::hint::black_box;
use std::time::Instant;

/// This thread's time on a CPU so far, in nanoseconds (None where the kernel does not say).
fn cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat").ok()?.split_whitespace().next()?.parse().ok()
}

/// The CPU seconds asked for, if any.
pub fn seconds_from_env() -> Option<f64> {
    std::env::var("ISABRIDGE_LIFT_CPU").ok()?.parse().ok()
}

/// Run `pass` (one pass over `insts` guest instructions) for `secs` CPU seconds after one
/// warm-up pass, then print the rates.
pub fn report(name: &str, insts: u64, secs: f64, mut pass: impl FnMut() -> usize) {
    black_box(pass());
    let wall0 = Instant::now();
    let cpu0 = cpu_ns();
    let cpu_s = |c0: Option<u64>| match (c0, cpu_ns()) {
        (Some(a), Some(b)) => Some(b.saturating_sub(a) as f64 / 1e9),
        _ => None,
    };
    let mut passes = 0u64;
    loop {
        black_box(pass());
        passes += 1;
        let spent = cpu_s(cpu0).unwrap_or_else(|| wall0.elapsed().as_secs_f64());
        if passes >= 3 && spent >= secs {
            break;
        }
    }
    let wall = wall0.elapsed().as_secs_f64();
    let total = (passes * insts) as f64;
    match cpu_s(cpu0) {
        Some(cpu) => println!(
            "{name}: {passes} passes of {insts} instructions; {:.3} ms CPU a pass, {:.3} M instructions per CPU-second; wall {:.3} M/s (CPU/wall {:.2})",
            cpu * 1e3 / passes as f64,
            total / cpu / 1e6,
            total / wall / 1e6,
            cpu / wall
        ),
        None => println!("{name}: {passes} passes of {insts} instructions; wall {:.3} M/s (no CPU clock)", total / wall / 1e6),
    }
}
