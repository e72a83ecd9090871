//! `GET /api/export`: the signed-in user's data as one zip archive
//! (`app::export::write`), built in a temporary file of the data directory and
//! streamed; only its owner's session gets it. One export per user at a
//! time (a second is refused with 429 until the first has downloaded) and
//! [`AT_ONCE`] in all (more wait their turn up to [`TURN_WAIT`], then 503
//! busy), so exports cannot take the database's connections from everyone
//! else. See `docs/operations.md`.

use super::{error, ApiError, SessionUser};
use crate::app::{export, temp_files};
use crate::error::Reason;
use crate::state::AppState;
use crate::store::users::UserId;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use std::sync::Mutex;
use std::time::Duration;
use tokio::io::AsyncReadExt;

/// Exports built at once, whoever asks.
pub const AT_ONCE: usize = 2;

/// How long an export waits for its turn before it is answered 503 busy.
pub const TURN_WAIT: Duration = Duration::from_secs(30);

static TURNS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(AT_ONCE);

/// The users whose export is being built or downloaded.
static EXPORTING: Mutex<Vec<UserId>> = Mutex::new(Vec::new());

/// A user's export under way; the user may ask again once it is dropped
/// (the archive downloaded, or the download broken off).
struct Running(UserId);

impl Running {
    fn start(user: &UserId) -> Option<Running> {
        let mut running = EXPORTING.lock().unwrap_or_else(|p| p.into_inner());
        if running.contains(user) {
            return None;
        }
        running.push(user.clone());
        Some(Running(user.clone()))
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let mut running = EXPORTING.lock().unwrap_or_else(|p| p.into_inner());
        running.retain(|u| u != &self.0);
    }
}

pub async fn download(
    State(state): State<AppState>,
    SessionUser(session): SessionUser,
) -> Response {
    let locale = session.user.locale;
    let Some(running) = Running::start(&session.user.id) else {
        let words = crate::Error::refused(Reason::ExportRunning).text(locale);
        return ApiError::too_many(words, crate::error::RETRY_AFTER_BUSY).into_response();
    };
    let turn = match tokio::time::timeout(TURN_WAIT, TURNS.acquire()).await {
        Ok(Ok(turn)) => turn,
        _ => {
            let e = crate::Error::busy(anyhow::anyhow!("exports: no turn within the wait"));
            return ApiError::worded(e, locale).into_response();
        }
    };
    let now = state.clock.now();
    let stamp = crate::clock::timestamp(now);
    let path = temp_files::path(&state.config.data_dir, temp_files::Kind::Export);
    let written = match std::fs::File::create(&path) {
        Ok(file) => export::write(&state.db, &state.files, &session.user, stamp, file).await,
        Err(e) => Err(crate::Error::Internal(e.into())),
    };
    let opened = match written {
        Ok(_) => tokio::fs::File::open(&path).await,
        Err(e) => {
            let _ = std::fs::remove_file(&path);
            e.log();
            return error(StatusCode::INTERNAL_SERVER_ERROR, "internal error");
        }
    };
    // The open file stays readable; its name goes at once.
    let _ = std::fs::remove_file(&path);
    let Ok(file) = opened else {
        return error(StatusCode::INTERNAL_SERVER_ERROR, "internal error");
    };
    // The turn is given back once the archive is built; the user's export
    // counts as running until its download ends.
    drop(turn);
    let chunks = futures_util::stream::unfold((file, running), |(mut file, running)| async move {
        let mut buf = vec![0u8; 64 * 1024];
        match file.read(&mut buf).await {
            Ok(0) => None,
            Ok(n) => {
                buf.truncate(n);
                Some((Ok::<_, std::io::Error>(Bytes::from(buf)), (file, running)))
            }
            Err(e) => Some((Err(e), (file, running))),
        }
    });
    let mut res = Body::from_stream(chunks).into_response();
    let h = res.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/zip"),
    );
    let name = format!(
        "attachment; filename=\"cashkeeper-export-{}.zip\"",
        now.format("%Y-%m-%d")
    );
    if let Ok(v) = HeaderValue::from_str(&name) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}
