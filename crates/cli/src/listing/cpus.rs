//! Where the listing's second thread runs.
//!
//! On the development VM (2 vCPUs) a freshly spawned thread often starts on its parent's CPU
//! and stays there for milliseconds while the other CPU idles: the two halves of a listing then
//! share one CPU, and two threads are slower than one (cl_math.gfx1013: 2.39 ms against 2.11 ms
//! fork to exit; with the second thread moved as below, 2.03 ms). So the second thread moves
//! itself off its parent's CPU as its first act, and the parent yields once after spawning it
//! so that it gets to run at all.

/// What [`here`] tells.
#[cfg(target_os = "linux")]
pub(crate) type Here = Option<(libc::cpu_set_t, usize)>;
/// What [`here`] tells (nothing outside Linux).
#[cfg(not(target_os = "linux"))]
pub(crate) type Here = Option<((), usize)>;

/// CPUs this process may run on and the one the calling thread is on; None where that cannot
/// be asked (not Linux) or fails.
#[cfg(target_os = "linux")]
pub(crate) fn here() -> Option<(libc::cpu_set_t, usize)> {
    // SAFETY: cpu_set_t is plain data (all zeros is the empty set); sched_getaffinity writes at
    // most size_of::<cpu_set_t>() bytes into it; getcpu writes one u32 and ignores its null
    // arguments.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return None;
        }
        // The system call rather than `sched_getcpu`: musl's looks the vDSO's getcpu up first,
        // which reads a page of the vDSO no other part of a listing touches (a page fault).
        let mut cpu = 0u32;
        if libc::syscall(libc::SYS_getcpu, &mut cpu as *mut u32, std::ptr::null_mut::<u32>(), std::ptr::null_mut::<libc::c_void>()) != 0 {
            return None;
        }
        Some((set, cpu as usize))
    }
}

/// Not Linux: nothing known.
#[cfg(not(target_os = "linux"))]
pub(crate) fn here() -> Option<((), usize)> {
    None
}

/// How many CPUs `here` allows (at least 1).
#[cfg(target_os = "linux")]
pub(crate) fn count(h: &Option<(libc::cpu_set_t, usize)>) -> usize {
    // SAFETY: CPU_COUNT reads the set.
    h.as_ref().map_or(2, |(set, _)| (unsafe { libc::CPU_COUNT(set) } as usize).max(1))
}

/// Not Linux: assume two.
#[cfg(not(target_os = "linux"))]
pub(crate) fn count(_: &Option<((), usize)>) -> usize {
    2
}

/// Moves the calling thread to one of the CPUs of `h` other than the one `h` was taken on
/// (nothing when there is no other), then allows it all of them again: a nudge, not a pin, so
/// that the scheduler can still move it where another process has taken that CPU.
#[cfg(target_os = "linux")]
pub(crate) fn leave(h: &Option<(libc::cpu_set_t, usize)>) {
    let Some((all, cpu)) = *h else { return };
    let mut others = all;
    let size = std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: CPU_CLR/CPU_COUNT work on the local copy of the set (a CPU number beyond the
    // set's size is ignored); sched_setaffinity reads `size` bytes of a set.
    unsafe {
        libc::CPU_CLR(cpu, &mut others);
        if libc::CPU_COUNT(&others) > 0 && libc::sched_setaffinity(0, size, &others) == 0 {
            libc::sched_setaffinity(0, size, &all);
        }
    }
}

/// Not Linux: the scheduler decides.
#[cfg(not(target_os = "linux"))]
pub(crate) fn leave(_: &Option<((), usize)>) {}
