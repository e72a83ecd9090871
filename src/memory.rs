//! Giving memory back to the operating system after a large piece of work.

/// glibc keeps what a thread freed in its arena for later; after staging
/// or confirming an import of 100,000 rows that is tens of MB the process
/// keeps resident for nothing. `malloc_trim` returns the free pages at the
/// top and inside the arenas (`docs/performance.md`).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn release_free() {
    // SAFETY: `malloc_trim` only hands free pages back; it is thread-safe.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn release_free() {}
