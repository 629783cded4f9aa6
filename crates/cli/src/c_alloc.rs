//! The C library's `malloc` family for the static musl build, served by the command's own
//! allocator ([`crate::alloc::Alloc`]).
//!
//! Rust's `System` allocator is musl's malloc, and the standard library uses it for a few
//! blocks of its own: the list of thread-local destructors (at the first use of the NVIDIA
//! printer's scratch space) and each spawned thread's handle. musl's allocator sets itself up
//! at its first call with two `brk` and two `mmap` calls and writes two fresh pages of its own.
//! Defined here, these functions take the place of musl's (a static link takes the program's
//! definitions and leaves musl's archive members out) and use the pages the rest of the
//! command already uses: tensor.sm50 38 -> 37 page faults, 4 system calls fewer.
//!
//! Each block carries a 16-byte header just before the address handed out: the size asked for
//! and the alignment the block was made with, which together give back the [`Layout`] that
//! `free` and `realloc` need.
// Linux only (its errors are libc's): libc is a dependency there alone.
#![cfg(target_os = "linux")]

use std::alloc::{GlobalAlloc, Layout};

/// Bytes before every block's address: its size and its alignment, a `usize` each.
const HEADER: usize = 16;

/// The layout of a block of `size` bytes aligned to `align` (at least [`HEADER`], a power of
/// two): the header is padded to the alignment, so the block's address is `align` bytes into
/// it. None when the size overflows.
fn layout(size: usize, align: usize) -> Option<Layout> {
    Layout::from_size_align(size.checked_add(align)?, align).ok()
}

/// A block of `size` bytes aligned to `align` (a power of two) from `a`, null on failure.
///
/// # Safety
/// `a` must be the allocator the block is later freed with.
pub unsafe fn alloc_c(a: &impl GlobalAlloc, size: usize, align: usize, zero: bool) -> *mut u8 {
    let align = align.max(HEADER);
    let Some(l) = layout(size, align) else { return std::ptr::null_mut() };
    // SAFETY: `l` has a non-zero size (at least `align`).
    let base = unsafe { if zero { a.alloc_zeroed(l) } else { a.alloc(l) } };
    if base.is_null() {
        return base;
    }
    // SAFETY: the block is `align + size` bytes; the header is the 16 bytes before `align`.
    unsafe {
        let p = base.add(align);
        (p.sub(HEADER) as *mut usize).write(size);
        (p.sub(HEADER / 2) as *mut usize).write(align);
        p
    }
}

/// The size and alignment in the header of block `p`.
///
/// # Safety
/// `p` must be a live block made by [`alloc_c`].
unsafe fn header(p: *mut u8) -> (usize, usize) {
    // SAFETY: the caller's contract: the header lies just before p.
    unsafe { ((p.sub(HEADER) as *const usize).read(), (p.sub(HEADER / 2) as *const usize).read()) }
}

/// Frees block `p` (null: nothing).
///
/// # Safety
/// `p` must be null or a live block made by [`alloc_c`] or [`realloc_c`] with `a`.
pub unsafe fn free_c(a: &impl GlobalAlloc, p: *mut u8) {
    if p.is_null() {
        return;
    }
    // SAFETY: the caller's contract; the layout is the one the block was made with.
    unsafe {
        let (size, align) = header(p);
        if let Some(l) = layout(size, align) {
            a.dealloc(p.sub(align), l);
        }
    }
}

/// Block `p` resized to `size` bytes with its contents kept up to the smaller size (null `p`:
/// a new block); null on failure, `p` then still live.
///
/// # Safety
/// As [`free_c`].
pub unsafe fn realloc_c(a: &impl GlobalAlloc, p: *mut u8, size: usize) -> *mut u8 {
    if p.is_null() {
        // SAFETY: the caller's contract.
        return unsafe { alloc_c(a, size, HEADER, false) };
    }
    // SAFETY: the caller's contract; realloc keeps the first `align + min(sizes)` bytes, so
    // the header moves along and is rewritten with the new size.
    unsafe {
        let (old, align) = header(p);
        let (Some(l), Some(new)) = (layout(old, align), size.checked_add(align)) else { return std::ptr::null_mut() };
        let base = a.realloc(p.sub(align), l, new);
        if base.is_null() {
            return base;
        }
        let q = base.add(align);
        (q.sub(HEADER) as *mut usize).write(size);
        q
    }
}

/// The usable size of block `p` (0 for null).
///
/// # Safety
/// As [`free_c`].
pub unsafe fn size_c(p: *mut u8) -> usize {
    if p.is_null() {
        0
    } else {
        // SAFETY: the caller's contract.
        unsafe { header(p).0 }
    }
}

#[cfg(all(target_env = "musl", not(test)))]
mod exported {
    //! The C symbols (musl build only; a test binary keeps its C library's).
    use super::*;
    use crate::ALLOC;
    use std::ffi::{c_int, c_void};

    /// C `malloc`.
    #[no_mangle]
    pub unsafe extern "C" fn malloc(n: usize) -> *mut c_void {
        // SAFETY: blocks of ALLOC are freed with ALLOC (free below).
        unsafe { alloc_c(&ALLOC, n, HEADER, false).cast() }
    }
    /// C `calloc`.
    #[no_mangle]
    pub unsafe extern "C" fn calloc(n: usize, m: usize) -> *mut c_void {
        let Some(size) = n.checked_mul(m) else { return std::ptr::null_mut() };
        // SAFETY: as malloc.
        unsafe { alloc_c(&ALLOC, size, HEADER, true).cast() }
    }
    /// C `free`.
    #[no_mangle]
    pub unsafe extern "C" fn free(p: *mut c_void) {
        // SAFETY: the C contract: p is null or a live block of these functions.
        unsafe { free_c(&ALLOC, p.cast()) }
    }
    /// C `realloc`.
    #[no_mangle]
    pub unsafe extern "C" fn realloc(p: *mut c_void, n: usize) -> *mut c_void {
        // SAFETY: as free.
        unsafe { realloc_c(&ALLOC, p.cast(), n).cast() }
    }
    /// C `aligned_alloc` (an alignment that is not a power of two: null).
    #[no_mangle]
    pub unsafe extern "C" fn aligned_alloc(align: usize, n: usize) -> *mut c_void {
        if !align.is_power_of_two() {
            return std::ptr::null_mut();
        }
        // SAFETY: as malloc.
        unsafe { alloc_c(&ALLOC, n, align, false).cast() }
    }
    /// C `memalign`.
    #[no_mangle]
    pub unsafe extern "C" fn memalign(align: usize, n: usize) -> *mut c_void {
        // SAFETY: as malloc.
        unsafe { aligned_alloc(align, n) }
    }
    /// C `posix_memalign`.
    #[no_mangle]
    pub unsafe extern "C" fn posix_memalign(out: *mut *mut c_void, align: usize, n: usize) -> c_int {
        if !align.is_power_of_two() || !align.is_multiple_of(std::mem::size_of::<usize>()) {
            return libc::EINVAL;
        }
        // SAFETY: as malloc; `out` is writable (the C contract).
        unsafe {
            let p = alloc_c(&ALLOC, n, align, false);
            if p.is_null() {
                return libc::ENOMEM;
            }
            *out = p.cast();
        }
        0
    }
    /// C `malloc_usable_size`.
    #[no_mangle]
    pub unsafe extern "C" fn malloc_usable_size(p: *mut c_void) -> usize {
        // SAFETY: as free.
        unsafe { size_c(p.cast()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alloc::Alloc;

    /// Blocks are aligned as asked, keep their contents through realloc (within a class,
    /// across classes and into and out of large mappings), report their size, zero where asked,
    /// and never overlap while live.
    #[test]
    fn c_blocks_behave() {
        let a = Alloc::new();
        let mut live: Vec<(*mut u8, usize, u8)> = Vec::new();
        let mut seed = 0x2545_f491u32;
        for i in 0..10_000u32 {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            // SAFETY: every block is made and freed by these functions with `a`; writes stay
            // inside the sizes they report.
            unsafe {
                if seed.is_multiple_of(3) && !live.is_empty() {
                    let (p, n, tag) = live.swap_remove((seed as usize >> 4) % live.len());
                    assert!((0..n).all(|k| *p.add(k) == tag));
                    if i % 2 == 0 {
                        free_c(&a, p);
                    } else {
                        let m = if i % 4 == 1 { n * 5 + 80_000 } else { n / 3 };
                        let q = realloc_c(&a, p, m);
                        assert!(!q.is_null() && (q as usize).is_multiple_of(16));
                        assert_eq!(size_c(q), m);
                        assert!((0..n.min(m)).all(|k| *q.add(k) == tag));
                        std::ptr::write_bytes(q, tag.wrapping_add(1), m);
                        live.push((q, m, tag.wrapping_add(1)));
                    }
                    continue;
                }
                let n = match seed % 5 {
                    0 => (seed >> 8) as usize % 100_000,
                    _ => (seed >> 8) as usize % 300,
                };
                let align = 1usize << ((seed >> 3) % 13);
                let zero = i % 7 == 0;
                let p = alloc_c(&a, n, align, zero);
                assert!(!p.is_null() && (p as usize).is_multiple_of(align.max(16)), "{n} {align}");
                assert_eq!(size_c(p), n);
                if zero {
                    assert!((0..n).all(|k| *p.add(k) == 0));
                }
                std::ptr::write_bytes(p, i as u8, n);
                live.push((p, n, i as u8));
            }
        }
        live.sort_by_key(|x| x.0 as usize);
        for w in live.windows(2) {
            assert!(w[0].0 as usize + w[0].1 <= w[1].0 as usize);
        }
        // SAFETY: live blocks, each freed once; null is allowed.
        unsafe {
            for (p, _, _) in live {
                free_c(&a, p);
            }
            free_c(&a, std::ptr::null_mut());
            assert_eq!(size_c(std::ptr::null_mut()), 0);
            // realloc of null is malloc; an overflowing size fails without touching anything.
            let p = realloc_c(&a, std::ptr::null_mut(), 40);
            assert_eq!(size_c(p), 40);
            assert!(realloc_c(&a, p, usize::MAX - 8).is_null());
            assert_eq!(size_c(p), 40);
            free_c(&a, p);
            assert!(alloc_c(&a, usize::MAX - 8, 16, false).is_null());
        }
    }
}
