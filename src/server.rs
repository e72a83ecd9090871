//! Serving: bind, run until SIGTERM or Ctrl-C, let in-flight requests
//! finish within [`SHUTDOWN_GRACE`], close the database cleanly. The whole
//! shutdown ends within 10 s whatever runs: requests still running after
//! the grace are dropped, and the scheduler's stop and the checkpoint are
//! waited for at most [`SHUTDOWN_STEP`] each (`docs/operations.md`).
//!
//! Connections are served by hyper directly rather than `axum::serve`, for
//! two timeouts a service on the internet needs (slow clients must not hold
//! connections): a request head must arrive within 30 s of its first byte,
//! and a kept-alive connection that sends nothing for 75 s is closed
//! (`Config::header_read_timeout`, `Config::idle_timeout`). Every request carries the peer address as
//! `ConnectInfo<SocketAddr>` (the per-client sign-in limit reads it).
//!
//! A request body must arrive within `Config::body_read_timeout` of the
//! head, extended as it keeps up `Config::body_min_rate` ([`Deadline`]), and
//! one client address holds at most `Config::max_connections_per_client`
//! connections at once, and the process at most [`connection_cap`], below
//! its file descriptor limit, closing the oldest connection of the address
//! holding the most for a newcomer ([`Connections`]): neither a trickled
//! body nor a flood of idle connections from one client or many can use up
//! the file descriptors everyone else needs.

use crate::config::Config;
use crate::error::BodyTooSlow;
use crate::router::router;
use crate::state::AppState;
use anyhow::Context;
use axum::extract::ConnectInfo;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;

/// Checks the configuration's side effects (data dir), opens the database,
/// binds and serves until a shutdown signal.
pub async fn run(config: Config) -> anyhow::Result<()> {
    config.check_data_dir().map_err(|e| anyhow::anyhow!(e))?;
    // One instance per data directory; a restore waits for it to stop.
    let _lock = crate::store::backups::InstanceLock::take(&config.data_dir)?;
    let state = AppState::new(config.clone()).context("opening the database")?;
    let listener = TcpListener::bind(config.bind)
        .await
        .with_context(|| format!("CASHKEEPER_BIND: cannot listen on {}", config.bind))?;
    let addr = listener.local_addr()?;
    tracing::info!(
        "cashkeeper {} listening on http://{addr} (data in {})",
        crate::VERSION,
        config.data_dir.display()
    );
    if !config.base_url_set && !addr.ip().is_loopback() {
        tracing::warn!(
            "CASHKEEPER_BASE_URL is not set: browsers may reach this service by IP address \
             or as localhost; reached by a name (http://nas.local:3000) or over https, \
             set CASHKEEPER_BASE_URL to that address, or changes are refused as cross-site"
        );
    }
    if let Some(o) = &config.oidc {
        if o.crosses_network_unencrypted() {
            tracing::warn!(
                "CASHKEEPER_OIDC_ISSUER is plain http://: the client secret and the codes \
                 cross the network unencrypted; use the provider's https:// address"
            );
        }
        tracing::info!(
            "single sign-on through {}; register {}{} as the redirect URI there",
            o.issuer,
            config.base_url,
            crate::auth::oidc::CALLBACK_PATH
        );
    }
    println!("cashkeeper is running at http://{addr}");
    serve(listener, state, shutdown_signal()).await
}

/// Serves `state` on `listener` until `shutdown` resolves, then drains
/// in-flight requests and checkpoints the database.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    crate::app::temp_files::remove_leftovers(&state.config.data_dir);
    let app = router(state.clone());
    // Runs beside the server, never before it; stopped before the checkpoint.
    let rates_refresh =
        (state.config.rates_refresh).then(|| crate::jobs::rates::spawn_refresh_loop(state.clone()));
    let scheduler = crate::jobs::scheduler::start(state.clone()).await?;
    let timeouts = Timeouts {
        header: state.config.header_read_timeout,
        idle: state.config.idle_timeout,
        body: state.config.body_read_timeout,
        body_min_rate: state.config.body_min_rate,
    };
    let connections = Connections::new(
        state.config.max_connections_per_client,
        connection_cap(),
        state.config.trusted_proxies.clone(),
    );
    let headers: String = crate::router::security_headers(&state.config)
        .iter()
        .map(|(name, value)| format!("{name}: {value}\r\n"))
        .collect();
    let automatic = Automatic(Arc::new(headers.into_bytes()));
    accept_loop(listener, app, timeouts, connections, automatic, shutdown).await;
    tracing::info!("shutting down: closing the database");
    drop(rates_refresh);
    if tokio::time::timeout(SHUTDOWN_STEP, scheduler.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("shutting down: the scheduler did not stop in time; left behind");
    }
    let db = state.db.clone();
    match tokio::time::timeout(
        SHUTDOWN_STEP,
        tokio::task::spawn_blocking(move || db.checkpoint()),
    )
    .await
    {
        Ok(Ok(Ok(()))) => {}
        Ok(Ok(Err(e))) => e.log(),
        Ok(Err(e)) => tracing::warn!(error = %e, "shutting down: the checkpoint failed"),
        // The write-ahead log stays beside the database; the next start
        // reads it, as after any stop.
        Err(_) => tracing::warn!("shutting down: the checkpoint did not finish in time; skipped"),
    }
    Ok(())
}

/// How long requests in flight at a shutdown signal may still run; those
/// still running after it are dropped (their connections closed).
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// How long each later step of a shutdown (the scheduler's stop, the
/// checkpoint) is waited for; the runtime then waits at most this long for
/// blocking work still running (`cli`). With [`SHUTDOWN_GRACE`], a
/// shutdown ends within 10 s whatever runs.
pub const SHUTDOWN_STEP: Duration = Duration::from_secs(1);

/// Resolves on Ctrl-C or SIGTERM (what `docker stop` sends).
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}

/// Accepts connections until `shutdown` resolves, then stops accepting and
/// waits for the requests in flight (kept-alive connections are closed after
/// their current response) for at most [`SHUTDOWN_GRACE`].
async fn accept_loop(
    listener: TcpListener,
    app: axum::Router,
    timeouts: Timeouts,
    connections: Connections,
    automatic: Automatic,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(conn) => conn,
                Err(e) => {
                    // Out of file descriptors and the like: wait, do not spin.
                    tracing::warn!(error = %e, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        let Some(slot) = connections.admit(peer.ip()) else {
            // Closed at once: this client already holds its share, or the
            // process its most and nobody holds more than this client.
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let app = app.clone();
        let service = hyper::service::service_fn(
            move |mut req: axum::extract::Request<hyper::body::Incoming>| {
                req.extensions_mut().insert(ConnectInfo(peer));
                let req = req.map(|body| axum::body::Body::new(Deadline::new(body, timeouts)));
                tower::ServiceExt::oneshot(app.clone(), req)
            },
        );
        let waits = Arc::new(Waits::default());
        let io = hyper_util::rt::TokioIo::new(Watched {
            inner: stream,
            waits: waits.clone(),
            automatic: automatic.clone(),
            rewritten: None,
        });
        let conn = hyper::server::conn::http1::Builder::new()
            .timer(HeadTimer { waits, timeouts })
            .header_read_timeout(timeouts.header)
            .serve_connection(io, service);
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            tokio::select! {
                ended = conn => {
                    if let Err(e) = ended {
                        tracing::debug!(error = %e, "connection ended");
                    }
                }
                // Closed for a newcomer at the connection cap.
                () = slot.close.notified() => {}
            }
            drop(slot);
        });
    }
    drop(listener);
    if tokio::time::timeout(SHUTDOWN_GRACE, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!(
            grace_seconds = SHUTDOWN_GRACE.as_secs(),
            "shutting down: requests still running after the grace are dropped"
        );
    }
}

#[derive(Clone, Copy)]
struct Timeouts {
    /// From a request head's first byte to its end.
    header: Duration,
    /// A kept-alive connection waiting for its next request.
    idle: Duration,
    /// From a request head to the end of its body, before extensions.
    body: Duration,
    /// Bytes that extend the body's deadline by one second.
    body_min_rate: u64,
}

/// Open connections, per client address and in all, for the two caps: a
/// client address holds at most `max` ([`Config::max_connections_per_client`]),
/// and the process at most `total_max` ([`connection_cap`], below its file
/// descriptor limit). At the total cap a new connection is still admitted
/// when some address holds more than the newcomer's: that address's
/// oldest connection is closed for it, so many addresses holding
/// connections cannot keep a new one (a health check, another user) out.
#[derive(Clone)]
struct Connections {
    max: usize,
    total_max: usize,
    exempt: Arc<Vec<std::net::IpAddr>>,
    open: Arc<std::sync::Mutex<Open>>,
}

#[derive(Default)]
struct Open {
    /// Each client's connections, oldest first: an id and what closes it.
    by_client: std::collections::HashMap<std::net::IpAddr, Vec<(u64, Arc<tokio::sync::Notify>)>>,
    total: usize,
    next_id: u64,
}

impl Connections {
    fn new(max: usize, total_max: usize, exempt: Vec<std::net::IpAddr>) -> Connections {
        Connections {
            max,
            total_max,
            exempt: Arc::new(exempt),
            open: Arc::default(),
        }
    }

    /// A slot for one more connection of `client`, or `None` when it holds
    /// its share already or the process is at its cap. The slot is given
    /// back when dropped; its connection is closed when its `close` is
    /// notified.
    fn admit(&self, client: std::net::IpAddr) -> Option<Slot> {
        let exempt = self.exempt.contains(&client);
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let held = open.by_client.get(&client).map_or(0, Vec::len);
        if !exempt && self.max != 0 && held >= self.max {
            tracing::warn!(%client, limit = self.max, "connection refused: too many open from this client");
            return None;
        }
        if open.total >= self.total_max {
            // The address holding the most, if it holds more than `client`.
            let greediest = open
                .by_client
                .iter()
                .filter(|(ip, conns)| !self.exempt.contains(ip) && conns.len() > held + 1)
                .max_by_key(|(_, conns)| conns.len())
                .map(|(ip, _)| *ip);
            let Some(greediest) = greediest else {
                tracing::warn!(%client, limit = self.total_max, "connection refused: the process holds its most connections");
                return None;
            };
            if let Some(conns) = open.by_client.get_mut(&greediest) {
                let (_, close) = conns.remove(0);
                close.notify_one();
                open.total -= 1;
            }
            tracing::warn!(%client, closed_for = %greediest, limit = self.total_max, "at the connection cap: closed the oldest connection of the address holding the most");
        }
        let id = open.next_id;
        open.next_id += 1;
        let close = Arc::new(tokio::sync::Notify::new());
        open.by_client
            .entry(client)
            .or_default()
            .push((id, close.clone()));
        open.total += 1;
        Some(Slot {
            connections: self.clone(),
            client,
            id,
            close,
        })
    }
}

/// One admitted connection of a client.
struct Slot {
    connections: Connections,
    client: std::net::IpAddr,
    id: u64,
    /// Notified when the connection is to close (see [`Connections`]).
    close: Arc<tokio::sync::Notify>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self
            .connections
            .open
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let open = &mut *open;
        if let Some(conns) = open.by_client.get_mut(&self.client) {
            // Gone already when it was closed for a newcomer.
            if let Some(i) = conns.iter().position(|(id, _)| *id == self.id) {
                conns.remove(i);
                open.total -= 1;
            }
            if conns.is_empty() {
                open.by_client.remove(&self.client);
            }
        }
    }
}

/// File descriptors kept free of connections, out of a limit of `limit`:
/// the database's files (two pools, each connection with its `-wal` and
/// `-shm`), documents and archives being read or written, the listener,
/// the log. A quarter of the limit, at most 128.
fn reserved_descriptors(limit: u64) -> u64 {
    (limit / 4).min(128)
}

/// The most connections the process holds at once: its file descriptor
/// limit (`RLIMIT_NOFILE`, raised to the hard limit first, up to 65,536)
/// less [`reserved_descriptors`], so that accepting never fails for want
/// of a descriptor (`docs/operations.md`).
pub fn connection_cap() -> usize {
    let limit = descriptor_limit();
    let cap = limit.saturating_sub(reserved_descriptors(limit)).max(16);
    tracing::info!(
        descriptor_limit = limit,
        connection_cap = cap,
        "open connections are capped below the file descriptor limit"
    );
    usize::try_from(cap).unwrap_or(usize::MAX)
}

#[cfg(unix)]
fn descriptor_limit() -> u64 {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit(2) with a struct of this function's own.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return 1024;
        }
        let wanted = lim.rlim_max.min(65_536);
        if lim.rlim_cur < wanted {
            let raised = libc::rlimit {
                rlim_cur: wanted,
                rlim_max: lim.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                lim.rlim_cur = wanted;
            }
        }
    }
    lim.rlim_cur
}

#[cfg(not(unix))]
fn descriptor_limit() -> u64 {
    1024
}

/// A request body that fails once it has not arrived in time: the head's
/// time plus [`Timeouts::body`], a second more for every
/// [`Timeouts::body_min_rate`] bytes received. The handler's extractor then
/// answers an error and the connection closes.
struct Deadline {
    inner: hyper::body::Incoming,
    started: tokio::time::Instant,
    timeouts: Timeouts,
    received: u64,
    sleep: Pin<Box<tokio::time::Sleep>>,
}

impl Deadline {
    fn new(inner: hyper::body::Incoming, timeouts: Timeouts) -> Deadline {
        let started = tokio::time::Instant::now();
        Deadline {
            inner,
            started,
            timeouts,
            received: 0,
            sleep: Box::pin(tokio::time::sleep_until(started + timeouts.body)),
        }
    }

    fn deadline(&self) -> tokio::time::Instant {
        let extra = self.received / self.timeouts.body_min_rate.max(1);
        self.started + self.timeouts.body + Duration::from_secs(extra)
    }
}

impl hyper::body::Body for Deadline {
    type Data = axum::body::Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<Self::Data>, Self::Error>>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    this.received += data.len() as u64;
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(e))) => Poll::Ready(Some(Err(e.into()))),
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => {
                let deadline = this.deadline();
                if this.sleep.deadline() != deadline {
                    this.sleep.as_mut().reset(deadline);
                }
                match this.sleep.as_mut().poll(cx) {
                    Poll::Ready(()) => {
                        tracing::info!(
                            received = this.received,
                            "a request body did not arrive in time; closing the connection"
                        );
                        Poll::Ready(Some(Err(Box::new(BodyTooSlow))))
                    }
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.inner.size_hint()
    }
}

/// What a connection's read side has seen since hyper began waiting for the
/// next request head: the time of its first byte (nanoseconds after
/// [`Waits::origin`], 0 for none yet).
struct Waits {
    origin: Instant,
    first_byte: AtomicU64,
}

impl Default for Waits {
    fn default() -> Self {
        Waits {
            origin: Instant::now(),
            first_byte: AtomicU64::new(0),
        }
    }
}

impl Waits {
    fn mark_read(&self) {
        let nanos = (self.origin.elapsed().as_nanos() as u64).max(1);
        let _ = self
            .first_byte
            .compare_exchange(0, nanos, Ordering::AcqRel, Ordering::Acquire);
    }

    fn first_byte(&self) -> Option<Instant> {
        match self.first_byte.load(Ordering::Acquire) {
            0 => None,
            n => Some(self.origin + Duration::from_nanos(n)),
        }
    }
}

/// The security headers as header lines, for the answers hyper makes
/// itself: a request head it cannot parse never reaches the router and its
/// headers layer, and hyper answers it (400, 414 URI too long, 431 header
/// fields too large) with only a date and a length.
#[derive(Clone)]
struct Automatic(Arc<Vec<u8>>);

impl Automatic {
    /// The write `bufs` with the security headers after its
    /// status line, when it is an error answer that has none of them;
    /// `None` for every other write.
    fn rewrite(&self, bufs: &[std::io::IoSlice<'_>]) -> Option<Vec<u8>> {
        let first = bufs.iter().find(|b| !b.is_empty())?;
        if !(first.starts_with(b"HTTP/1.1 4") || first.starts_with(b"HTTP/1.0 4")) {
            return None;
        }
        let end = first.windows(4).position(|w| w == b"\r\n\r\n")?;
        let head = first[..end].to_ascii_lowercase();
        if head.windows(22).any(|w| w == b"x-content-type-options") {
            return None;
        }
        let line = first.windows(2).position(|w| w == b"\r\n")? + 2;
        let total: usize = bufs.iter().map(|b| b.len()).sum();
        let mut out = Vec::with_capacity(total + self.0.len());
        out.extend_from_slice(&first[..line]);
        out.extend_from_slice(&self.0);
        let mut rest = false;
        for b in bufs {
            if rest {
                out.extend_from_slice(b);
            } else if std::ptr::eq(b.as_ptr(), first.as_ptr()) {
                out.extend_from_slice(&first[line..]);
                rest = true;
            }
        }
        Some(out)
    }
}

/// A rewritten write under way: its bytes, how many went out, and how
/// many of the caller's bytes it stands for.
struct Rewritten {
    bytes: Vec<u8>,
    written: usize,
    stands_for: usize,
}

/// The connection's stream, noting when bytes arrive, and adding the
/// security headers to hyper's own error answers ([`Automatic`]).
struct Watched<S> {
    inner: S,
    waits: Arc<Waits>,
    automatic: Automatic,
    rewritten: Option<Rewritten>,
}

impl<S: AsyncWrite + Unpin> Watched<S> {
    /// Writes the rewritten answer to its end, then reports the caller's
    /// bytes as written.
    fn poll_rewritten(&mut self, cx: &mut TaskContext<'_>) -> Poll<std::io::Result<usize>> {
        while let Some(r) = self.rewritten.as_mut() {
            if r.written == r.bytes.len() {
                let n = r.stands_for;
                self.rewritten = None;
                return Poll::Ready(Ok(n));
            }
            match Pin::new(&mut self.inner).poll_write(cx, &r.bytes[r.written..]) {
                Poll::Ready(Ok(0)) => {
                    self.rewritten = None;
                    return Poll::Ready(Err(std::io::ErrorKind::WriteZero.into()));
                }
                Poll::Ready(Ok(n)) => r.written += n,
                Poll::Ready(Err(e)) => {
                    self.rewritten = None;
                    return Poll::Ready(Err(e));
                }
                Poll::Pending => return Poll::Pending,
            }
        }
        Poll::Ready(Ok(0))
    }

    /// Starts a rewritten write when `bufs` begin one of hyper's own error
    /// answers.
    fn start_rewrite(&mut self, bufs: &[std::io::IoSlice<'_>]) -> bool {
        if self.rewritten.is_some() {
            return true;
        }
        match self.automatic.rewrite(bufs) {
            Some(bytes) => {
                self.rewritten = Some(Rewritten {
                    bytes,
                    written: 0,
                    stands_for: bufs.iter().map(|b| b.len()).sum(),
                });
                true
            }
            None => false,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Watched<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let res = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.waits.mark_read();
        }
        res
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Watched<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        if self.start_rewrite(&[std::io::IoSlice::new(buf)]) {
            return self.poll_rewritten(cx);
        }
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }
    fn poll_shutdown(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        if self.start_rewrite(bufs) {
            return self.poll_rewritten(cx);
        }
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }
    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

/// hyper's only timer on an HTTP/1 server connection is the header-read
/// timeout, and hyper starts it as soon as it waits for a request head,
/// also on a kept-alive connection where no byte has come yet. This timer
/// gives that wait both meanings: the idle timeout while nothing has
/// arrived, the header-read timeout from the head's first byte.
struct HeadTimer {
    waits: Arc<Waits>,
    timeouts: Timeouts,
}

impl hyper::rt::Timer for HeadTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn hyper::rt::Sleep>> {
        self.sleep_until(Instant::now() + duration)
    }

    fn sleep_until(&self, _deadline: Instant) -> Pin<Box<dyn hyper::rt::Sleep>> {
        // A new wait for a request head: forget the previous head's bytes.
        self.waits.first_byte.store(0, Ordering::Release);
        let started = Instant::now();
        Box::pin(HeadSleep {
            waits: self.waits.clone(),
            timeouts: self.timeouts,
            started,
            sleep: Box::pin(tokio::time::sleep_until(
                (started + self.timeouts.idle).into(),
            )),
        })
    }
}

struct HeadSleep {
    waits: Arc<Waits>,
    timeouts: Timeouts,
    started: Instant,
    sleep: Pin<Box<tokio::time::Sleep>>,
}

impl HeadSleep {
    fn deadline(&self) -> Instant {
        match self.waits.first_byte() {
            Some(first) if first >= self.started => first + self.timeouts.header,
            _ => self.started + self.timeouts.idle,
        }
    }
}

impl Future for HeadSleep {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<()> {
        // hyper polls this whenever the connection wakes while the head is
        // incomplete, so a deadline moved by a first byte is re-armed here.
        let deadline = tokio::time::Instant::from_std(self.deadline());
        if self.sleep.deadline() != deadline {
            self.sleep.as_mut().reset(deadline);
        }
        self.sleep.as_mut().poll(cx)
    }
}

impl hyper::rt::Sleep for HeadSleep {}

#[cfg(test)]
mod tests {
    use super::{reserved_descriptors, Connections};
    use futures_util::FutureExt;
    use std::net::IpAddr;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn at_the_cap_a_newcomer_closes_the_oldest_connection_of_the_address_holding_most() {
        let c = Connections::new(128, 4, vec![]);
        let (a, b, new) = (ip("10.0.0.1"), ip("10.0.0.2"), ip("10.0.0.3"));
        let first = c.admit(a).unwrap();
        let _more: Vec<_> = (0..2).map(|_| c.admit(a).unwrap()).collect();
        let _b = c.admit(b).unwrap();
        let _new = c.admit(new).expect("admitted at the cap");
        assert!(
            first.close.notified().now_or_never().is_some(),
            "a's oldest connection is closed for it"
        );
        // a holds 2, b and new 1 each: b's second would leave it level
        // with a, so it is refused; another newcomer closes one of a's.
        assert!(c.admit(b).is_none(), "b holds its fair share");
        let _other = c.admit(ip("10.0.0.4")).expect("a holds the most");
        // Everyone holds 1: nobody holds more than a newcomer's one.
        assert!(c.admit(ip("10.0.0.5")).is_none());
        drop(first);
        assert_eq!(
            c.open.lock().unwrap().total,
            4,
            "a closed slot is not given back twice"
        );
    }

    #[test]
    fn the_per_client_cap_still_holds_below_the_total() {
        let c = Connections::new(2, 100, vec![ip("10.0.0.9")]);
        let _held: Vec<_> = (0..2).map(|_| c.admit(ip("10.0.0.1")).unwrap()).collect();
        assert!(c.admit(ip("10.0.0.1")).is_none());
        let proxy: Vec<_> = (0..5).filter_map(|_| c.admit(ip("10.0.0.9"))).collect();
        assert_eq!(proxy.len(), 5, "a trusted proxy is not limited per client");
    }

    #[test]
    fn some_descriptors_are_kept_free_of_connections() {
        assert_eq!(reserved_descriptors(256), 64);
        assert_eq!(reserved_descriptors(1024), 128);
        assert_eq!(reserved_descriptors(65_536), 128);
    }
}
