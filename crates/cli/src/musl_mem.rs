//! `memcpy` for the static musl build. musl's x86-64 `memcpy` starts every copy with
//! `rep movsq`, which costs tens of cycles before the first byte even for the 10-100 byte
//! copies a listing makes by the hundred thousand (a tenth of `isabridge disasm`'s time on
//! cl_math.gfx1013 with it). Copies up to 256 bytes are done here with overlapping unaligned
//! loads and stores; longer ones with `rep movsb` (fast on CPUs with ERMSB).

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

/// Copies `n` bytes from `src` to `dst` (the regions must not overlap); returns `dst`.
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
}
