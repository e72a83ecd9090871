//! The `cashkeeper` executable: parse the command line and hand over to the
//! library, which the tests drive directly.

fn main() -> std::process::ExitCode {
    limit_malloc_arenas();
    cashkeeper::cli::main()
}

/// glibc gives every thread that allocates an arena of its own, up to eight
/// per core, and keeps what is freed in it for that thread. The service
/// does its database and reply work on many short-lived blocking threads,
/// so under load ten arenas each held several MB they no longer used
/// (98.5 MB resident under eight concurrent year-long `/payments`, 63.5 MiB
/// with two arenas: `docs/performance.md`). Two arenas are enough for a
/// service whose heavy work is bounded anyway; an explicit
/// `MALLOC_ARENA_MAX` in the environment still wins.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn limit_malloc_arenas() {
    if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
        // SAFETY: `mallopt` only changes a setting of the allocator; it is
        // called first thing in `main`, before any other thread exists.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 2);
        }
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn limit_malloc_arenas() {}
