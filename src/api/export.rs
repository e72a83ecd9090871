//! `GET /api/export`: the signed-in user's data as one zip archive
//! (`app::export::write`), built in a temporary file of the data directory and
//! streamed; only its owner's session gets it. See `docs/operations.md`.

use super::{error, SessionUser};
use crate::app::{export, temp_files};
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
    let chunks = futures_util::stream::unfold(file, |mut file| async move {
        let mut buf = vec![0u8; 64 * 1024];
        match file.read(&mut buf).await {
            Ok(0) => None,
            Ok(n) => {
                buf.truncate(n);
                Some((Ok::<_, std::io::Error>(Bytes::from(buf)), file))
            }
            Err(e) => Some((Err(e), file)),
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
