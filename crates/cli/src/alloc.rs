//! The memory allocator of the static musl build (`#[global_allocator]` there; the glibc build
//! keeps glibc's).
//!
//! musl's allocator gives memory back to the kernel eagerly: one `isabridge disasm` of
//! cl_math.gfx1013 made 34 mmap and 29 munmap calls with it (glibc: 7 and 7), each unmap a TLB
//! shootdown across CPUs while the listing's two threads run, and freed pages are faulted in
//! again. This one keeps what it frees for reuse:
//! - blocks up to [`SMALL_MAX`] bytes come in power-of-two classes from 16 bytes, each class a
//!   free list threaded through its free blocks, refilled from chunks mapped [`CHUNK`] bytes at
//!   a time (pages are touched only when used);
//! - larger blocks are mapped on their own; they grow with `mremap`, and fresh mappings are
//!   already zero (no clearing for `alloc_zeroed`). Freed ones are kept for reuse, up to
//!   [`KEEP`] of them and [`KEEP_BYTES`] in all, and unmapped beyond that: unmapping costs a
//!   TLB shootdown across CPUs (a listing freed six such blocks at its end, about 0.1 ms on the
//!   development VM), and the process's exit takes them down in one go anyway.
//!
//! One spin lock guards the lists: the command runs at most a few threads, which allocate
//! rarely on their hot paths.
// Linux only (mmap, mremap): libc is a dependency there alone.
#![cfg(target_os = "linux")]

use std::alloc::{GlobalAlloc, Layout};
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, Ordering};

/// Largest block served from the size classes.
pub const SMALL_MAX: usize = 64 << 10;
/// Number of size classes: 16, 32, ..., [`SMALL_MAX`] bytes.
const CLASSES: usize = 13;
/// Bytes mapped at a time for small blocks.
const CHUNK: usize = 4 << 20;
/// Page size assumed for mappings.
const PAGE: usize = 4096;
/// Freed large blocks kept for reuse, at most.
const KEEP: usize = 16;
/// Bytes of freed large blocks kept, at most.
const KEEP_BYTES: usize = 64 << 20;

/// The lists and the current chunk.
struct State {
    /// Per class, the first free block (each free block holds the address of the next).
    free: [usize; CLASSES],
    /// Next unused byte of the current chunk, and its end.
    next: usize,
    end: usize,
    /// Freed large blocks (address, mapped length; length 0: an empty place).
    kept: [(usize, usize); KEEP],
}

/// The allocator: [`State`] behind a spin lock.
pub struct Alloc {
    lock: AtomicBool,
    state: UnsafeCell<State>,
}

// SAFETY: `state` is only touched while `lock` is held (see `with`).
unsafe impl Sync for Alloc {}

impl Alloc {
    /// An allocator with nothing mapped yet.
    pub const fn new() -> Alloc {
        Alloc { lock: AtomicBool::new(false), state: UnsafeCell::new(State { free: [0; CLASSES], next: 0, end: 0, kept: [(0, 0); KEEP] }) }
    }

    /// Runs `f` on the state with the lock held.
    fn with<R>(&self, f: impl FnOnce(&mut State) -> R) -> R {
        while self.lock.compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed).is_err() {
            std::hint::spin_loop();
        }
        // SAFETY: the lock is held, so no other reference to the state exists.
        let r = f(unsafe { &mut *self.state.get() });
        self.lock.store(false, Ordering::Release);
        r
    }
}

impl Alloc {
    /// A large block of `len` mapped bytes and whether it is fresh (zero): a kept one of that
    /// length, else a new mapping; 0 on failure.
    fn large(&self, len: usize) -> (usize, bool) {
        match self.with(|s| s.reuse(len)) {
            Some(p) => (p, false),
            None => (map(len), true),
        }
    }
}

impl Default for Alloc {
    fn default() -> Self {
        Alloc::new()
    }
}

/// The class of a layout (None: a large block). A class's blocks are aligned to their size
/// (up to a page), so a layout's alignment is met by taking its class at least that large.
fn class(l: &Layout) -> Option<usize> {
    let n = l.size().max(l.align()).max(16);
    if n > SMALL_MAX || l.align() > PAGE {
        return None;
    }
    Some(n.next_power_of_two().trailing_zeros() as usize - 4)
}

/// Maps `n` bytes (a multiple of the page size) read-write; 0 on failure.
fn map(n: usize) -> usize {
    // SAFETY: a fresh private anonymous mapping; the result is checked.
    let p = unsafe {
        libc::mmap(std::ptr::null_mut(), n, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE, -1, 0)
    };
    if p == libc::MAP_FAILED {
        0
    } else {
        p as usize
    }
}

/// The bytes mapped for a large block of `size`.
fn large_len(size: usize) -> usize {
    size.div_ceil(PAGE) * PAGE
}

impl State {
    /// A block of class `c`, and whether it is fresh (never handed out, so still zero): from
    /// its list, else from the chunk (mapping a new one when the current one is used up; what
    /// is left of the old one is given up).
    fn take(&mut self, c: usize) -> (usize, bool) {
        let head = self.free[c];
        if head != 0 {
            // SAFETY: a free block holds the address of the next free block in its first word.
            self.free[c] = unsafe { *(head as *const usize) };
            return (head, false);
        }
        let size = 16usize << c;
        let align = size.min(PAGE);
        let mut at = self.next.next_multiple_of(align);
        if self.end == 0 || at + size > self.end {
            let base = map(CHUNK);
            if base == 0 {
                return (0, false);
            }
            self.end = base + CHUNK;
            at = base;
        }
        self.next = at + size;
        (at, true)
    }

    /// A kept large block of exactly `len` mapped bytes (so that a block's layout always
    /// names its whole mapping), taken out of the keep.
    fn reuse(&mut self, len: usize) -> Option<usize> {
        let k = self.kept.iter().position(|k| k.1 == len)?;
        Some(std::mem::take(&mut self.kept[k]).0)
    }

    /// Keeps large block `p` of `len` mapped bytes for reuse; false when the keep is full.
    fn keep(&mut self, p: usize, len: usize) -> bool {
        let total: usize = self.kept.iter().map(|k| k.1).sum();
        match self.kept.iter_mut().find(|k| k.1 == 0) {
            Some(k) if total + len <= KEEP_BYTES => {
                *k = (p, len);
                true
            }
            _ => false,
        }
    }

    /// Puts block `p` of class `c` on its list.
    fn give(&mut self, p: usize, c: usize) {
        // SAFETY: p is a block of at least 16 bytes that its owner has given up.
        unsafe { *(p as *mut usize) = self.free[c] };
        self.free[c] = p;
    }
}

// SAFETY: blocks are handed out once until freed; small blocks are at least as large and as
// aligned as their layout (see `class`); large ones are page-aligned mappings of at least the
// size asked for; `dealloc`/`realloc` get the layout the block was made with (GlobalAlloc's
// contract), which names its class again.
unsafe impl GlobalAlloc for Alloc {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        match class(&l) {
            Some(c) => self.with(|s| s.take(c)).0 as *mut u8,
            None if l.align() <= PAGE => self.large(large_len(l.size())).0 as *mut u8,
            None => std::ptr::null_mut(),
        }
    }

    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        match class(&l) {
            Some(c) => {
                // A block never handed out is still as the kernel mapped it: zero, and its
                // pages perhaps not even touched yet.
                let (p, fresh) = self.with(|s| s.take(c));
                let p = p as *mut u8;
                if !p.is_null() && !fresh {
                    // SAFETY: p is a block of at least l.size() bytes.
                    unsafe { std::ptr::write_bytes(p, 0, l.size()) };
                }
                p
            }
            None if l.align() <= PAGE => {
                let (p, fresh) = self.large(large_len(l.size()));
                let p = p as *mut u8;
                if !p.is_null() && !fresh {
                    // SAFETY: p is a kept block of at least l.size() bytes.
                    unsafe { std::ptr::write_bytes(p, 0, l.size()) };
                }
                p
            }
            None => std::ptr::null_mut(),
        }
    }

    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        match class(&l) {
            Some(c) => self.with(|s| s.give(p as usize, c)),
            None => {
                let len = large_len(l.size());
                if !self.with(|s| s.keep(p as usize, len)) {
                    // SAFETY: p is a mapping of `len` bytes made by alloc or realloc.
                    unsafe {
                        libc::munmap(p.cast(), len);
                    }
                }
            }
        }
    }

    unsafe fn realloc(&self, p: *mut u8, l: Layout, new_size: usize) -> *mut u8 {
        let Ok(new) = Layout::from_size_align(new_size, l.align()) else { return std::ptr::null_mut() };
        match (class(&l), class(&new)) {
            (Some(a), Some(b)) if a == b => p,
            (None, None) => {
                // SAFETY: p is a mapping of large_len(l.size()) bytes; mremap moves or grows
                // it and keeps its contents.
                let q = unsafe { libc::mremap(p.cast(), large_len(l.size()), large_len(new_size), libc::MREMAP_MAYMOVE) };
                if q == libc::MAP_FAILED {
                    std::ptr::null_mut()
                } else {
                    q.cast()
                }
            }
            _ => {
                // SAFETY: a new block for the new layout; the old one's first min(sizes)
                // bytes are copied, then it is freed with its own layout.
                unsafe {
                    let q = self.alloc(new);
                    if !q.is_null() {
                        std::ptr::copy_nonoverlapping(p, q, l.size().min(new_size));
                        self.dealloc(p, l);
                    }
                    q
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks are aligned, distinct while live, reused once freed, keep their contents when
    /// grown across classes and into large mappings, and zeroed where asked.
    #[test]
    fn blocks_behave() {
        let a = Alloc::new();
        let mut live: Vec<(*mut u8, Layout, u8)> = Vec::new();
        let mut seed = 0x9e37_79b9u32;
        for i in 0..20_000u32 {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            let size = match seed % 7 {
                0 => (seed >> 8) as usize % 200_000 + 1,
                1 => (seed >> 8) as usize % 5000 + 1,
                _ => (seed >> 8) as usize % 130 + 1,
            };
            let align = 1usize << ((seed >> 3) % 7);
            let l = Layout::from_size_align(size, align).unwrap();
            if seed.is_multiple_of(3) && !live.is_empty() {
                let (p, l, tag) = live.swap_remove((seed as usize >> 4) % live.len());
                // SAFETY: p is live with layout l.
                unsafe {
                    assert!((0..l.size()).all(|k| *p.add(k) == tag));
                    a.dealloc(p, l);
                }
                continue;
            }
            // SAFETY: a valid non-zero layout; writes stay inside the block.
            unsafe {
                let zeroed = i.is_multiple_of(5);
                let p = if zeroed { a.alloc_zeroed(l) } else { a.alloc(l) };
                assert!(!p.is_null() && (p as usize).is_multiple_of(align), "{l:?}");
                if zeroed {
                    assert!((0..l.size()).all(|k| *p.add(k) == 0));
                }
                let tag = i as u8;
                std::ptr::write_bytes(p, tag, l.size());
                // Sometimes grow or shrink it at once.
                if i % 4 == 0 {
                    let n = if i % 8 == 0 { size * 3 + 70_000 } else { size / 2 + 1 };
                    let q = a.realloc(p, l, n);
                    assert!(!q.is_null() && (q as usize).is_multiple_of(align));
                    assert!((0..size.min(n)).all(|k| *q.add(k) == tag));
                    let l2 = Layout::from_size_align(n, align).unwrap();
                    std::ptr::write_bytes(q, tag, n);
                    live.push((q, l2, tag));
                } else {
                    live.push((p, l, tag));
                }
            }
        }
        // Live blocks never overlap.
        live.sort_by_key(|x| x.0 as usize);
        for w in live.windows(2) {
            assert!(w[0].0 as usize + w[0].1.size() <= w[1].0 as usize);
        }
        for (p, l, _) in live {
            // SAFETY: p is live with layout l.
            unsafe { a.dealloc(p, l) };
        }
        // A freed large block is kept and comes back for the same length, cleared when asked.
        let big = Layout::from_size_align(300_000, 8).unwrap();
        // SAFETY: valid layout; each block freed once with its own layout.
        unsafe {
            let p = a.alloc(big);
            std::ptr::write_bytes(p, 7, big.size());
            a.dealloc(p, big);
            let q = a.alloc_zeroed(big);
            assert_eq!(q, p);
            assert!((0..big.size()).all(|k| *q.add(k) == 0));
            a.dealloc(q, big);
        }
        // A freed small block is the next one of its class.
        let l = Layout::from_size_align(40, 8).unwrap();
        // SAFETY: valid layout; p freed once.
        unsafe {
            let p = a.alloc(l);
            a.dealloc(p, l);
            assert_eq!(a.alloc(l), p);
        }
    }
}
