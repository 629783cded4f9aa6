//! `memcpy`, `memmove`, `memcmp` and `bcmp` for the static musl build. musl's x86-64 `memcpy`
//! starts every copy with `rep movsq`, which costs tens of cycles before the first byte even for
//! the 10-100 byte copies a listing makes by the hundred thousand (a tenth of `isabridge
//! disasm`'s time on cl_math.gfx1013 with it). Copies up to 256 bytes are done here with
//! overlapping unaligned loads and stores; longer ones with `rep movsb` (fast on CPUs with
//! ERMSB). musl's `memmove` copies backwards with `std; rep movsq` (the NVIDIA print memo moves
//! its 192-byte sets that way) and its `memcmp` / `bcmp` compare a byte per step (the
//! sorted-mnemonic cache compares 64-byte keys): together 11.6 % of fp64.sm86's machine
//! instructions (callgrind), so both are replaced too.

use core::ptr::{read_unaligned as ld, write_unaligned as st};

/// The C library's `memcpy` in the musl build: [`copy`].
///
/// # Safety
/// The C `memcpy` contract: `src` readable and `dst` writable for `n` bytes, not overlapping.
#[cfg(all(target_env = "musl", not(test)))]
#[no_mangle]
pub unsafe extern "C" fn memcpy(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    // SAFETY: the caller's contract is copy's.
    unsafe { copy(dst, src, n) }
}

/// Copies `n` bytes from `src` to `dst` (the regions must not overlap, except up to 32 bytes:
/// there every load comes before the first store, which [`move_bytes`] relies on); returns
/// `dst`.
///
/// # Safety
/// `src` readable and `dst` writable for `n` bytes, not overlapping.
pub unsafe fn copy(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    // SAFETY: every access below stays within [0, n) of both regions (the caller's contract);
    // the overlapping pairs cover the range from both ends.
    unsafe {
        if n <= 16 {
            if n >= 8 {
                let (a, b) = (ld(src as *const u64), ld(src.add(n - 8) as *const u64));
                st(dst as *mut u64, a);
                st(dst.add(n - 8) as *mut u64, b);
            } else if n >= 4 {
                let (a, b) = (ld(src as *const u32), ld(src.add(n - 4) as *const u32));
                st(dst as *mut u32, a);
                st(dst.add(n - 4) as *mut u32, b);
            } else if n > 0 {
                let (a, b, c) = (*src, *src.add(n / 2), *src.add(n - 1));
                *dst = a;
                *dst.add(n / 2) = b;
                *dst.add(n - 1) = c;
            }
        } else if n <= 32 {
            let (a, b) = (ld(src as *const u128), ld(src.add(n - 16) as *const u128));
            st(dst as *mut u128, a);
            st(dst.add(n - 16) as *mut u128, b);
        } else if n <= 256 {
            // 32 bytes at a time, then the last 32 (overlapping what came before).
            let mut i = 0;
            while i + 32 < n {
                let (a, b) = (ld(src.add(i) as *const u128), ld(src.add(i + 16) as *const u128));
                st(dst.add(i) as *mut u128, a);
                st(dst.add(i + 16) as *mut u128, b);
                i += 32;
            }
            let (a, b) = (ld(src.add(n - 32) as *const u128), ld(src.add(n - 16) as *const u128));
            st(dst.add(n - 32) as *mut u128, a);
            st(dst.add(n - 16) as *mut u128, b);
        } else {
            forward(dst, src, n);
        }
    }
    dst
}

/// musl's `memmove` hands forward copies (destination below the source) to this; defining it
/// here keeps musl's `memcpy` object, which also defines it, out of the link. A forward
/// `rep movsb` is correct for any such overlap.
///
/// # Safety
/// `src` readable and `dst` writable for `n` bytes, `dst` not above `src` where they overlap.
#[cfg(all(target_env = "musl", not(test)))]
#[no_mangle]
pub unsafe extern "C" fn __memcpy_fwd(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    // SAFETY: the caller's contract is forward's.
    unsafe { forward(dst, src, n) }
}

/// Copies `n` bytes from `src` to `dst` front to back; returns `dst`.
///
/// # Safety
/// `src` readable and `dst` writable for `n` bytes, `dst` not above `src` where they overlap.
pub unsafe fn forward(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    // SAFETY: the caller's contract; the direction flag is clear (the ABI's default).
    unsafe {
        core::arch::asm!(
            "rep movsb",
            inout("rcx") n => _,
            inout("rdi") dst => _,
            inout("rsi") src => _,
            options(nostack, preserves_flags)
        );
    }
    dst
}

/// The C library's `memmove` in the musl build: [`move_bytes`].
///
/// # Safety
/// The C `memmove` contract: `src` readable and `dst` writable for `n` bytes; they may overlap.
#[cfg(all(target_env = "musl", not(test)))]
#[no_mangle]
pub unsafe extern "C" fn memmove(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    // SAFETY: the caller's contract is move_bytes'.
    unsafe { move_bytes(dst, src, n) }
}

/// Copies `n` bytes from `src` to `dst`, which may overlap; returns `dst`.
///
/// # Safety
/// `src` readable and `dst` writable for `n` bytes.
pub unsafe fn move_bytes(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    let (d, s) = (dst as usize, src as usize);
    // SAFETY: the caller's contract; each branch reads every source byte before the store that
    // could overwrite it.
    unsafe {
        if d.wrapping_sub(s) >= n && s.wrapping_sub(d) >= n {
            // No overlap.
            return copy(dst, src, n);
        }
        if n <= 32 {
            // Up to 32 bytes `copy` reads every byte before it stores any.
            copy(dst, src, n);
        } else if d < s {
            // A forward byte copy is correct when the destination is below the source.
            forward(dst, src, n);
        } else {
            // Back to front, 16 bytes at a time: every store lands above every later load.
            let mut k = n;
            while k >= 16 {
                k -= 16;
                st(dst.add(k) as *mut u128, ld(src.add(k) as *const u128));
            }
            while k > 0 {
                k -= 1;
                *dst.add(k) = *src.add(k);
            }
        }
    }
    dst
}

/// The C library's `memcmp` in the musl build: [`compare`].
///
/// # Safety
/// `a` and `b` readable for `n` bytes.
#[cfg(all(target_env = "musl", not(test)))]
#[no_mangle]
pub unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    // SAFETY: the caller's contract is compare's.
    unsafe { compare(a, b, n) }
}

/// The C library's `bcmp` in the musl build (zero when equal): [`compare`].
///
/// # Safety
/// `a` and `b` readable for `n` bytes.
#[cfg(all(target_env = "musl", not(test)))]
#[no_mangle]
pub unsafe extern "C" fn bcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    // SAFETY: the caller's contract is compare's.
    unsafe { compare(a, b, n) }
}

/// Compares `n` bytes as unsigned bytes in order: negative, zero or positive as `a` sorts
/// before, with or after `b` (the sign is all C promises; this gives -1, 0 or 1).
///
/// # Safety
/// `a` and `b` readable for `n` bytes.
pub unsafe fn compare(a: *const u8, b: *const u8, n: usize) -> i32 {
    /// The order of two different 8-byte words as read from memory: as big-endian numbers their
    /// order is the order of their bytes.
    #[inline(always)]
    fn order(x: u64, y: u64) -> i32 {
        if x.to_be() < y.to_be() { -1 } else { 1 }
    }
    // SAFETY: every load lies within [0, n) of both regions (the caller's contract).
    unsafe {
        let mut i = 0;
        while i + 8 <= n {
            let (x, y) = (ld(a.add(i) as *const u64), ld(b.add(i) as *const u64));
            if x != y {
                return order(x, y);
            }
            i += 8;
        }
        if n >= 8 {
            // The last 8 bytes, overlapping what was already found equal.
            let (x, y) = (ld(a.add(n - 8) as *const u64), ld(b.add(n - 8) as *const u64));
            return if x == y { 0 } else { order(x, y) };
        }
        while i < n {
            let (x, y) = (*a.add(i), *b.add(i));
            if x != y {
                return if x < y { -1 } else { 1 };
            }
            i += 1;
        }
    }
    0
}

#[cfg(test)]
mod tests {
    /// Every length up to 600 and a few long ones, at every alignment of both ends.
    #[test]
    fn copies_every_length_and_alignment() {
        let src: Vec<u8> = (0..5000u32).map(|i| (i * 7 + i / 251) as u8).collect();
        for n in (0..600).chain([1000, 4096, 4999 - 16]) {
            for (a, b) in [(0, 0), (1, 3), (7, 0), (3, 13), (15, 9)] {
                let mut dst = vec![0xeeu8; n + 40];
                // SAFETY: both ranges are inside their buffers and do not overlap.
                let r = unsafe { super::copy(dst.as_mut_ptr().add(b), src.as_ptr().add(a), n) };
                assert_eq!(r, dst[b..].as_mut_ptr());
                assert_eq!(&dst[b..b + n], &src[a..a + n], "n {n} at {a}/{b}");
                assert!(dst[..b].iter().chain(&dst[b + n..]).all(|&x| x == 0xee), "n {n}: wrote outside");
            }
        }
        // The forward copy of musl's memmove, with the destination below the source.
        let mut buf: Vec<u8> = src[..3000].to_vec();
        // SAFETY: both ranges lie in buf; the destination is below the source.
        unsafe { super::forward(buf.as_mut_ptr(), buf.as_ptr().add(5), 2995) };
        assert_eq!(&buf[..2995], &src[5..3000]);
    }

    /// memmove against a copy through a separate buffer: every length up to 300 and a few long
    /// ones, every shift of the destination against the source in both directions.
    #[test]
    fn moves_with_every_overlap() {
        let base: Vec<u8> = (0..3000u32).map(|i| (i * 13 + i / 7) as u8).collect();
        for n in (0..300).chain([511, 1000, 2000]) {
            for shift in [-40isize, -17, -16, -9, -8, -1, 0, 1, 3, 8, 15, 16, 31, 32, 33, 100] {
                let (s0, d0) = (500usize, (500 + shift) as usize);
                let mut buf = base.clone();
                let want: Vec<u8> = base[s0..s0 + n].to_vec();
                // SAFETY: both ranges lie in buf (500 + 2000 + 100 < 3000).
                let r = unsafe { super::move_bytes(buf.as_mut_ptr().add(d0), buf.as_ptr().add(s0), n) };
                assert_eq!(r, buf[d0..].as_mut_ptr());
                assert_eq!(&buf[d0..d0 + n], &want[..], "n {n} shift {shift}");
                assert!(buf[..d0].iter().zip(&base).all(|(x, y)| x == y), "n {n} shift {shift}: wrote below");
                assert!(buf[d0 + n..].iter().zip(&base[d0 + n..]).all(|(x, y)| x == y), "n {n} shift {shift}: wrote above");
            }
        }
    }

    /// compare against the slices' own lexicographic order, for every length up to 40 with the
    /// first difference at every position and of both signs, at odd alignments.
    #[test]
    fn compares_like_slices() {
        use std::cmp::Ordering;
        let a: Vec<u8> = (0..64u32).map(|i| (i * 29 + 3) as u8).collect();
        for n in 0..40 {
            for at in 0..=n {
                for delta in [0u8, 1, 0x7f, 0x80, 0xff] {
                    let mut b = a.clone();
                    if at < n {
                        b[at + 1] = b[at + 1].wrapping_add(delta);
                    }
                    let (x, y) = (&a[1..1 + n], &b[1..1 + n]);
                    // SAFETY: both slices are n bytes long.
                    let got = unsafe { super::compare(x.as_ptr(), y.as_ptr(), n) };
                    let want = match x.cmp(y) {
                        Ordering::Less => -1,
                        Ordering::Equal => 0,
                        Ordering::Greater => 1,
                    };
                    assert_eq!(got, want, "n {n} at {at} delta {delta}");
                    // SAFETY: as above.
                    assert_eq!(unsafe { super::compare(y.as_ptr(), x.as_ptr(), n) }, -want);
                }
            }
        }
    }
}
