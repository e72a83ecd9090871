//! Giving memory back to the operating system after a large piece of work.

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use hyper::body::{Frame, SizeHint};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

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

/// A reply of at least this many bytes gives its memory back once it is
/// sent ([`trim_after_large_replies`]).
pub const LARGE_REPLY: u64 = 1024 * 1024;

/// Whether a trim is waiting to run: replies that end meanwhile share it.
static PENDING: AtomicBool = AtomicBool::new(false);

/// [`release_free`] on a blocking thread, soon: once for however many
/// large replies end before it runs.
pub fn release_soon() {
    if PENDING.swap(true, Ordering::AcqRel) {
        return;
    }
    let trim = || {
        PENDING.store(false, Ordering::Release);
        release_free();
    };
    match tokio::runtime::Handle::try_current() {
        Ok(runtime) => drop(runtime.spawn_blocking(trim)),
        Err(_) => trim(),
    }
}

/// Middleware: a reply of [`LARGE_REPLY`] bytes or more (a year of
/// payments, a long list, a chat) trims the allocator when its body has
/// been sent or dropped, so a flood of them does not leave the process
/// holding hundreds of MB while idle. The body and its size are passed
/// on unchanged.
pub async fn trim_after_large_replies(req: Request, next: Next) -> Response {
    next.run(req)
        .await
        .map(|inner| Body::new(Counted { inner, sent: 0 }))
}

/// A reply's body, counting the bytes it hands out.
struct Counted {
    inner: Body,
    sent: u64,
}

impl HttpBody for Counted {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if let Poll::Ready(Some(Ok(frame))) = &polled {
            if let Some(data) = frame.data_ref() {
                self.sent += data.len() as u64;
            }
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        if self.sent >= LARGE_REPLY {
            release_soon();
        }
    }
}
