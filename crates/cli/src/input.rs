//! The input file's bytes, mapped read-only where possible.
//!
//! Reading a file into a fresh heap buffer costs one page fault per 4 KiB (the kernel copies
//! into pages the process has never touched); mapping it shares the page cache's pages, which
//! the kernel maps in bulk. On the development VM that is 0.26 ms against 0.03 ms for a 480 KiB
//! object, and 3-7 ms against 0.27 ms for a 5.6 MiB one.

use std::fs::File;
use std::path::Path;

/// A file's contents: mapped, or read into memory where mapping is not possible (pipes, empty
/// files, other platforms).
pub enum Input {
    /// Mapped read-only.
    #[cfg(target_os = "linux")]
    Mapped(Mapped),
    /// Read into memory.
    Read(Vec<u8>),
}

impl Input {
    /// Opens and maps (or reads) `path`.
    pub fn open(path: &Path) -> std::io::Result<Input> {
        let mut f = File::open(path)?;
        #[cfg(target_os = "linux")]
        if let Some(m) = Mapped::new(&f) {
            return Ok(Input::Mapped(m));
        }
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut f, &mut v)?;
        Ok(Input::Read(v))
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            #[cfg(target_os = "linux")]
            Input::Mapped(m) => m.bytes(),
            Input::Read(v) => v,
        }
    }
}

/// A read-only private mapping of a whole regular file.
#[cfg(target_os = "linux")]
pub struct Mapped {
    /// Start of the mapping.
    ptr: std::ptr::NonNull<u8>,
    /// Its length in bytes (the file's size when mapped; never 0).
    len: usize,
}

#[cfg(target_os = "linux")]
impl Mapped {
    /// Maps `f` when it is a non-empty regular file; None when it is not or mapping fails.
    fn new(f: &File) -> Option<Mapped> {
        use std::os::fd::AsRawFd;
        let meta = f.metadata().ok()?;
        let len = usize::try_from(meta.len()).ok()?;
        if !meta.is_file() || len == 0 {
            return None;
        }
        // Above 1 MiB the whole file is mapped at once (MAP_POPULATE: one call instead of a
        // fault per 64 KiB); below, the pages not read (debug info, notes) are never mapped.
        let populate = if len > 1 << 20 { libc::MAP_POPULATE } else { 0 };
        // SAFETY: a fresh read-only private mapping of an open file descriptor; the pointer
        // is checked against MAP_FAILED and owned by the returned value, which unmaps it once.
        // The file is only read through `bytes`. (As with every mapped file, another process
        // truncating the file while it is listed would end this one with SIGBUS.)
        let p = unsafe {
            libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ, libc::MAP_PRIVATE | populate, f.as_raw_fd(), 0)
        };
        if p == libc::MAP_FAILED {
            return None;
        }
        Some(Mapped { ptr: std::ptr::NonNull::new(p.cast())?, len })
    }

    /// The mapped bytes.
    fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr` is a live read-only mapping of `len` bytes for the lifetime of self.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

#[cfg(target_os = "linux")]
impl Drop for Mapped {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `new`; no borrow of it outlives self.
        unsafe {
            libc::munmap(self.ptr.as_ptr().cast(), self.len);
        }
    }
}
