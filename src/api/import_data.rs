//! `POST /api/import-data`: Settings' "Load an export": a zip written by
//! "Export my data" (multipart part `file`) becomes the data of the
//! signed-in user, who has no records yet (`app::export::load`: read and
//! checked without a database connection, then written in one
//! transaction). 200 `{records, documents, tables, baseCurrency, message}`
//! with the records loaded per table and what the person reads; 400
//! `{"error": "file: …"}` in the user's language for an archive refused,
//! never a database's words. See `docs/operations.md`.

use super::{error, refusal};
use crate::app::export;
use crate::error::{Error, Reason};
use crate::http::session::SessionUser;
use crate::http::upload::{Parts, SaveFailure, UploadFailure};
use crate::state::AppState;
use crate::store::export::Limits;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

/// The largest archive: the documents a user may keep and room for the rest.
pub fn body_limit(document_quota: u64) -> usize {
    usize::try_from(document_quota).unwrap_or(usize::MAX / 2) + 64 * 1024 * 1024
}

pub async fn upload(
    State(state): State<AppState>,
    SessionUser(session): SessionUser,
    upload: Result<Parts, UploadFailure>,
) -> Response {
    let locale = session.user.locale;
    let refused = |status, reason| {
        let e = Error::invalid("file", reason);
        super::ApiError::new(status, e.text(locale)).into_response()
    };
    let broken = |failure| match failure {
        UploadFailure::NotAnUpload => refused(StatusCode::BAD_REQUEST, Reason::NotAnUpload),
        UploadFailure::Broken { status, detail } => {
            refused(status, Reason::MalformedUpload(detail))
        }
    };
    let upload = match upload {
        Ok(upload) => upload,
        Err(failure) => return broken(failure),
    };
    // The archive goes to a file of the data directory, never whole into memory.
    let path =
        crate::app::temp_files::path(&state.config.data_dir, crate::app::temp_files::Kind::Import);
    match upload.save("file", &path).await {
        Ok(true) => {}
        Ok(false) => return refused(StatusCode::BAD_REQUEST, Reason::Required),
        Err(SaveFailure::Upload(failure)) => return broken(failure),
        Err(SaveFailure::Write(e)) => {
            tracing::error!(error = %e, "import-data: cannot write a temporary file");
            return internal(locale);
        }
    }
    // The open file stays readable; its name goes at once.
    let archive = std::fs::File::open(&path);
    let _ = std::fs::remove_file(&path);
    let archive = match archive {
        Ok(f) => f,
        Err(e) => {
            tracing::error!(error = %e, "import-data: cannot read the temporary file");
            return internal(locale);
        }
    };
    let limits = Limits::upload(state.config.document_quota);
    let now = crate::clock::timestamp(state.clock.now());
    let user = &session.user.id;
    match export::load(&state.db, &state.files, user, archive, limits, now).await {
        Ok(done) => (
            StatusCode::OK,
            Json(json!({
                "records": done.records,
                "documents": done.documents,
                "tables": done.tables,
                "baseCurrency": done.base_currency,
                "message": crate::i18n::export::loaded(
                    locale,
                    &done.tables,
                    done.base_currency.as_deref(),
                ),
            })),
        )
            .into_response(),
        // The archive's refusals say what is wrong with it, in the user's
        // language; anything else is logged and reads "internal error".
        Err(e) => refusal(e, locale),
    }
}

fn internal(locale: crate::domain::locale::Locale) -> Response {
    let e = Error::Internal(anyhow::anyhow!("import-data: the temporary file failed"));
    error(StatusCode::INTERNAL_SERVER_ERROR, e.text(locale))
}
