//! Giving memory back to the operating system after a large piece of work.

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use hyper::body::{Frame, SizeHint};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
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
/// ended and again once the last of its buffers is written and freed, so
/// a flood of them neither peaks higher than it must nor leaves the
/// process holding hundreds of MB while idle. The bytes and the size are
/// passed on unchanged.
pub async fn trim_after_large_replies(req: Request, next: Next) -> Response {
    next.run(req)
        .await
        .map(|inner| Body::new(Counted::new(inner, release_soon)))
}

/// A reply's body, counting the bytes it hands out. Once they reach
/// [`LARGE_REPLY`], each buffer handed out holds a share of a [`Done`]:
/// the server writes a buffer to the socket after the body has ended, so
/// the trim at the body's end cannot give that buffer's memory back.
struct Counted {
    inner: Body,
    sent: u64,
    on_done: fn(),
    done: Option<Arc<Done>>,
}

/// Runs its function when the body and the last buffer it handed out are
/// dropped.
struct Done(fn());

impl Drop for Done {
    fn drop(&mut self) {
        (self.0)();
    }
}

/// A buffer handed out that keeps the reply's [`Done`] until it is freed.
struct Held {
    data: Bytes,
    _done: Arc<Done>,
}

impl AsRef<[u8]> for Held {
    fn as_ref(&self) -> &[u8] {
        &self.data
    }
}

impl Counted {
    fn new(inner: Body, on_done: fn()) -> Counted {
        Counted {
            inner,
            sent: 0,
            on_done,
            done: None,
        }
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        if self.sent >= LARGE_REPLY {
            (self.on_done)();
        }
    }
}

impl HttpBody for Counted {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        let Poll::Ready(Some(Ok(frame))) = polled else {
            return polled;
        };
        let frame = match frame.into_data() {
            Ok(data) => {
                self.sent += data.len() as u64;
                if self.sent < LARGE_REPLY {
                    Frame::data(data)
                } else {
                    let on_done = self.on_done;
                    let done = self.done.get_or_insert_with(|| Arc::new(Done(on_done)));
                    Frame::data(Bytes::from_owner(Held {
                        data,
                        _done: done.clone(),
                    }))
                }
            }
            Err(frame) => frame,
        };
        Poll::Ready(Some(Ok(frame)))
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[tokio::test]
    async fn a_large_reply_trims_at_its_bodys_end_and_again_when_its_last_buffer_is_freed() {
        static DONE: AtomicUsize = AtomicUsize::new(0);
        fn count() {
            DONE.fetch_add(1, Ordering::SeqCst);
        }
        let large = vec![b'x'; LARGE_REPLY as usize + 1];
        let mut body = Counted::new(Body::from(large.clone()), count);
        let mut frames = Vec::new();
        while let Some(frame) = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await
        {
            frames.push(frame.unwrap().into_data().unwrap());
        }
        assert_eq!(frames.concat(), large, "the bytes pass unchanged");
        drop(body);
        assert_eq!(DONE.load(Ordering::SeqCst), 1, "the body's end");
        drop(frames);
        assert_eq!(DONE.load(Ordering::SeqCst), 2, "its last buffer freed");

        let mut small = Counted::new(Body::from("small"), count);
        while std::future::poll_fn(|cx| Pin::new(&mut small).poll_frame(cx))
            .await
            .is_some()
        {}
        drop(small);
        assert_eq!(
            DONE.load(Ordering::SeqCst),
            2,
            "a small reply trims nothing"
        );
    }
}
