//! Starting the listing's second thread and handing a result back from it.

use super::cpus;
use super::TAKE_SPINS;

/// Starts `f` as the second thread of a listing: it first moves itself off this thread's CPU
/// (a nudge, see cpus.rs), and this thread yields at once, so that the new thread runs where it
/// was queued behind this one instead of waiting there until this one blocks and the two parts
/// running one after the other (cl_math.gfx1013: 1.67 ms median fork to exit without the yield
/// against 1.19 ms, in 200 runs each).
pub(super) fn spawn_beside<'scope, T: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    cpus: &'scope cpus::Here,
    f: impl FnOnce() -> T + Send + 'scope,
) -> std::thread::ScopedJoinHandle<'scope, T> {
    let handle = scope.spawn(move || {
        cpus::leave(cpus);
        f()
    });
    std::thread::yield_now();
    handle
}

/// A value one thread hands to another without the receiver waiting for the sender to exit
/// (joining waited on the thread's teardown, about 0.08 ms on the development VM). The
/// receiver spins for a while before it sleeps: the parts of a listing are cut to end together,
/// and waking a sleeping thread on a VM takes longer still.
pub(super) struct Handoff<T> {
    pub(super) ready: std::sync::atomic::AtomicBool,
    /// None until the sender is done; then its value, or None when it ended without one.
    pub(super) slot: std::sync::Mutex<Option<Option<T>>>,
    pub(super) done: std::sync::Condvar,
}

/// The sending end of a [`Handoff`]: hands over "no value" when dropped unused (a panic).
pub(super) struct Putter<'h, T>(&'h Handoff<T>, bool);

impl<T> Handoff<T> {
    pub(super) fn new() -> Self {
        Handoff { ready: std::sync::atomic::AtomicBool::new(false), slot: std::sync::Mutex::new(None), done: std::sync::Condvar::new() }
    }

    pub(super) fn putter(&self) -> Putter<'_, T> {
        Putter(self, false)
    }

    pub(super) fn set(&self, v: Option<T>) {
        *self.slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(v);
        self.ready.store(true, std::sync::atomic::Ordering::Release);
        self.done.notify_one();
    }

    /// The value, once the sender is done (None: it ended without one).
    pub(super) fn take(&self) -> Option<T> {
        // A bounded spin before sleeping, counted in yields rather than timed: the first read
        // of the clock in a process maps two pages of the vDSO (two page faults, about as long
        // as a small listing's whole parallel part).
        for _ in 0..TAKE_SPINS {
            if self.ready.load(std::sync::atomic::Ordering::Acquire) {
                break;
            }
            // Yielding (not pausing) leaves this CPU to the sender where the two share one.
            std::thread::yield_now();
        }
        let mut g = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(v) = g.take() {
                return v;
            }
            g = self.done.wait(g).unwrap_or_else(|e| e.into_inner());
        }
    }
}

impl<T> Putter<'_, T> {
    pub(super) fn put(mut self, v: T) {
        self.1 = true;
        self.0.set(Some(v));
    }
}

impl<T> Drop for Putter<'_, T> {
    fn drop(&mut self) {
        if !self.1 {
            self.0.set(None);
        }
    }
}

/// What a [`spawn_claimable`] worker and the thread that started it share.
pub(super) struct Claim<T> {
    /// [`CLAIM_OPEN`], [`CLAIM_WORKER`] or [`CLAIM_CALLER`].
    pub(super) state: std::sync::atomic::AtomicU8,
    /// Asks a worker that has the job to stop early.
    pub(super) cancel: std::sync::atomic::AtomicBool,
    /// The worker's result.
    pub(super) handoff: Handoff<T>,
}

/// [`Claim::state`]: nobody has taken the job yet.
pub(super) const CLAIM_OPEN: u8 = 0;

/// [`Claim::state`]: the worker started in time and runs the job.
pub(super) const CLAIM_WORKER: u8 = 1;

/// [`Claim::state`]: the caller took the job back; the worker, when it starts, ends at once.
pub(super) const CLAIM_CALLER: u8 = 2;

impl<T> Claim<T> {
    pub(super) fn new() -> Self {
        Claim { state: std::sync::atomic::AtomicU8::new(CLAIM_OPEN), cancel: std::sync::atomic::AtomicBool::new(false), handoff: Handoff::new() }
    }

    /// Takes the job back unless the worker has started it: true when the caller has it (now
    /// or from an earlier call; the worker will then never touch the data the job borrows).
    pub(super) fn take_back(&self) -> bool {
        use std::sync::atomic::Ordering::{AcqRel, Acquire};
        match self.state.compare_exchange(CLAIM_OPEN, CLAIM_CALLER, AcqRel, Acquire) {
            Ok(_) => true,
            Err(s) => s == CLAIM_CALLER,
        }
    }

    /// The worker's result, once it is done (None: it ended without one).
    pub(super) fn wait(&self) -> Option<T> {
        self.handoff.take()
    }

    /// Ends the caller's interest in the job: takes it back, or tells the worker to stop and
    /// waits for it (`spawned`: a worker was started at all).
    pub(super) fn give_up(&self, spawned: bool) {
        if spawned && !self.take_back() {
            self.cancel.store(true, std::sync::atomic::Ordering::Relaxed);
            drop(self.wait());
        }
    }
}

/// Starts `job` on a second thread beside this one (see [`spawn_beside`]), which runs it only
/// if it starts before the caller takes the job back ([`Claim::take_back`]): on this VM a
/// thread queued for the other CPU started 0.05-2 ms after it was made (the CPU was asleep),
/// while the caller's own part of a mid-size listing takes about 0.2 ms, so a caller that
/// waited for it lost more than the split gained (cl_lanes.gfx1013: the worker began 0.43 ms
/// after it was made, 0.24 ms after this thread had finished its half). The thread is never
/// joined: one that starts too late ends at once, touching only `claim`. False when no thread
/// could be made (the caller does the job).
///
/// # Safety
/// `job` may borrow the caller's data. Unless [`Claim::take_back`] returned true, the caller
/// must wait for the result ([`Claim::wait`], [`Claim::give_up`]) before that data goes; and
/// dropping `job` unrun must not touch it (it holds references and plain values).
pub(super) unsafe fn spawn_claimable<'a, T: Send + 'a>(
    cpus: cpus::Here,
    claim: &std::sync::Arc<Claim<T>>,
    job: impl FnOnce(&std::sync::atomic::AtomicBool) -> T + Send + 'a,
) -> bool {
    let c = std::sync::Arc::clone(claim);
    let f = move || {
        cpus::leave(&cpus);
        use std::sync::atomic::Ordering::{AcqRel, Acquire};
        if c.state.compare_exchange(CLAIM_OPEN, CLAIM_WORKER, AcqRel, Acquire).is_err() {
            return; // too late: the caller has the job
        }
        // A panic of the job hands over "no result" (the putter's drop).
        let put = c.handoff.putter();
        put.put(job(&c.cancel));
    };
    // SAFETY: the closure borrows what `job` borrows; the caller's contract keeps that alive
    // for as long as the closure can touch it (only after winning the claim).
    let made = unsafe { std::thread::Builder::new().spawn_unchecked(f) }.is_ok();
    if made {
        std::thread::yield_now();
    }
    made
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    /// Waits (at most 10 s) until the worker of `c` has taken its job.
    fn worker_started<T>(c: &Claim<T>) -> bool {
        let t = std::time::Instant::now();
        while c.state.load(Ordering::Acquire) != CLAIM_WORKER {
            if t.elapsed() > std::time::Duration::from_secs(10) {
                return false;
            }
            std::thread::yield_now();
        }
        true
    }

    /// A job taken back before its worker starts never runs, and taking it back again (or
    /// giving it up after) neither fails nor waits (a second `give_up` once waited forever).
    #[test]
    fn claim_taken_back_never_runs() {
        let ran = Arc::new(AtomicBool::new(false));
        let claim = Arc::new(Claim::<u32>::new());
        // Taken back before the thread exists: it cannot win.
        assert!(claim.take_back());
        let r = Arc::clone(&ran);
        // SAFETY: the job borrows nothing.
        let spawned = unsafe { spawn_claimable(None, &claim, move |_: &AtomicBool| {
            r.store(true, Ordering::SeqCst);
            1
        }) };
        assert!(spawned);
        assert!(claim.take_back());
        claim.give_up(spawned);
        claim.give_up(spawned);
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(!ran.load(Ordering::SeqCst));
        assert_eq!(claim.state.load(Ordering::SeqCst), CLAIM_CALLER);
    }

    /// A worker that started in time keeps its job: taking it back fails and its result
    /// arrives; one told to stop sees the flag.
    #[test]
    fn claim_started_worker_delivers() {
        let claim = Arc::new(Claim::<u64>::new());
        let go = Arc::new(AtomicBool::new(false));
        let g = Arc::clone(&go);
        // SAFETY: the job borrows nothing.
        let spawned = unsafe {
            spawn_claimable(None, &claim, move |cancel: &AtomicBool| {
                while !g.load(Ordering::SeqCst) && !cancel.load(Ordering::SeqCst) {
                    std::thread::yield_now();
                }
                if cancel.load(Ordering::SeqCst) { 7 } else { 41 }
            })
        };
        assert!(spawned && worker_started(&claim));
        assert!(!claim.take_back());
        go.store(true, Ordering::SeqCst);
        assert_eq!(claim.wait(), Some(41));

        let claim = Arc::new(Claim::<u64>::new());
        // SAFETY: the job borrows nothing.
        let spawned = unsafe {
            spawn_claimable(None, &claim, move |cancel: &AtomicBool| {
                while !cancel.load(Ordering::SeqCst) {
                    std::thread::yield_now();
                }
                7
            })
        };
        assert!(spawned && worker_started(&claim));
        // Gives up: the worker is told to stop, and waited for.
        claim.give_up(spawned);
        assert!(claim.handoff.ready.load(Ordering::SeqCst));
    }

    /// A worker whose job panics hands over no result instead of leaving the caller waiting.
    #[test]
    fn claim_panicking_worker_hands_over_none() {
        let claim = Arc::new(Claim::<u8>::new());
        // SAFETY: the job borrows nothing.
        let spawned = unsafe { spawn_claimable(None, &claim, move |_: &AtomicBool| -> u8 { panic!("job failed") }) };
        assert!(spawned && worker_started(&claim));
        assert_eq!(claim.wait(), None);
    }
}
