//! `POST /api/import-data`: Settings' "Load an export": a zip written by
//! "Export my data" (multipart part `file`) becomes the data of the
//! signed-in user, who has no records yet (`app::export::load`: read and
//! checked without a database connection, then written in one
//! transaction). 200 `{records, documents, tables}`
//! with the records loaded per table; 400 `{"error": "file: …"}` in the
//! user's language for an archive refused. See `docs/operations.md`.

use super::{error, SessionUser};
use crate::app::export;
use crate::state::AppState;
use crate::store::export::Limits;
use axum::extract::{Multipart, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;
use std::io::Write;

/// The largest archive: the documents a user may keep and room for the rest.
pub fn body_limit(document_quota: u64) -> usize {
    usize::try_from(document_quota).unwrap_or(usize::MAX / 2) + 64 * 1024 * 1024
}

pub async fn upload(
    State(state): State<AppState>,
    SessionUser(session): SessionUser,
    multipart: Result<Multipart, axum::extract::multipart::MultipartRejection>,
) -> Response {
    let Ok(mut multipart) = multipart else {
        return error(
            StatusCode::BAD_REQUEST,
            "file: expected a multipart/form-data upload",
        );
    };
    // The archive goes to a file of the data directory, never whole into memory.
    let path = state
        .config
        .data_dir
        .join(format!(".import-{}.zip", crate::store::new_id()));
    let mut received = false;
    loop {
        let mut field = match multipart.next_field().await {
            Ok(Some(f)) => f,
            Ok(None) => break,
            Err(e) => {
                let _ = std::fs::remove_file(&path);
                let status = e.status();
                return error(status, format!("file: {}", e.body_text()));
            }
        };
        if field.name() != Some("file") {
            continue;
        }
        let mut out = match std::fs::File::create(&path) {
            Ok(f) => f,
            Err(e) => {
                tracing::error!(error = %e, "import-data: cannot write a temporary file");
                return error(StatusCode::INTERNAL_SERVER_ERROR, "internal error");
            }
        };
        loop {
            match field.chunk().await {
                Ok(Some(chunk)) => {
                    if out.write_all(&chunk).is_err() {
                        let _ = std::fs::remove_file(&path);
                        return error(StatusCode::INTERNAL_SERVER_ERROR, "internal error");
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    let _ = std::fs::remove_file(&path);
                    return error(e.status(), format!("file: {}", e.body_text()));
                }
            }
        }
        received = true;
    }
    if !received {
        return error(StatusCode::BAD_REQUEST, "file: is required");
    }
    // The open file stays readable; its name goes at once.
    let archive = std::fs::File::open(&path);
    let _ = std::fs::remove_file(&path);
    let archive = match archive {
        Ok(f) => f,
        Err(e) => {
            tracing::error!(error = %e, "import-data: cannot read the temporary file");
            return error(StatusCode::INTERNAL_SERVER_ERROR, "internal error");
        }
    };
    let limits = Limits::upload(state.config.document_quota);
    let now = crate::clock::timestamp(state.clock.now());
    let user = &session.user.id;
    let result = export::load(&state.db, &state.files, user, archive, limits, now).await;
    let locale = session.user.locale;
    match result {
        Ok(done) => (
            StatusCode::OK,
            Json(json!({
                "records": done.records,
                "documents": done.documents,
                "tables": done.tables,
            })),
        )
            .into_response(),
        Err(crate::Error::Internal(cause)) => {
            tracing::error!(error = ?cause, "import-data failed");
            error(StatusCode::INTERNAL_SERVER_ERROR, "internal error")
        }
        // The archive's refusals say what is wrong with it, in the user's language.
        Err(e) => error(StatusCode::BAD_REQUEST, e.text(locale)),
    }
}
