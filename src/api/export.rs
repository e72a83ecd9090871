//! `GET /api/export`: the signed-in user's data as one zip archive
//! (`app::export::write_in_turn`, which keeps exports to one per user and a
//! few in all), built in a temporary file of the data directory and
//! streamed; only its owner's session gets it. A second export of the same
//! user is answered 429 with `Retry-After` until the first has downloaded,
//! one that found no turn 503 busy. See `docs/operations.md`.

use super::{error, ApiError};
use crate::app::{export, temp_files};
use crate::error::Reason;
use crate::http::session::SessionUser;
use crate::state::AppState;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use tokio::io::AsyncReadExt;

pub async fn download(
    State(state): State<AppState>,
    SessionUser(session): SessionUser,
) -> Response {
    let locale = session.user.locale;
    let now = state.clock.now();
    let stamp = crate::clock::timestamp(now);
    let path = temp_files::path(&state.config.data_dir, temp_files::Kind::Export);
    let create = || std::fs::File::create(&path).map_err(|e| crate::Error::Internal(e.into()));
    let written =
        export::write_in_turn(&state.db, &state.files, &session.user, stamp, create).await;
    let (opened, running) = match written {
        Ok((_, running)) => (tokio::fs::File::open(&path).await, running),
        Err(e) => {
            let _ = std::fs::remove_file(&path);
            return match e {
                crate::Error::Refused(Reason::ExportRunning) => {
                    ApiError::too_many(e.text(locale), crate::error::RETRY_AFTER_BUSY)
                        .into_response()
                }
                e => ApiError::worded(e, locale).into_response(),
            };
        }
    };
    // The open file stays readable; its name goes at once.
    let _ = std::fs::remove_file(&path);
    let Ok(file) = opened else {
        return error(StatusCode::INTERNAL_SERVER_ERROR, "internal error");
    };
    // The user's export counts as running until its download ends.
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
