//! File uploads (`multipart/form-data`): the one reader of the routes that
//! take a file (`POST /api/documents`, `/api/imports`, `/api/receipt-scan`,
//! `/api/import-data`). [`Form`] holds every part of a body in memory, in
//! order, for the routes whose body limit is small enough; [`Parts`]
//! streams the part of a file too large to hold to disk. A body that
//! cannot be read is an [`UploadFailure`], which each route words in its
//! own shape and language.

use crate::error::is_body_too_slow;
use axum::body::Bytes;
use axum::extract::multipart::{Field, MultipartError};
use axum::extract::{FromRequest, Multipart, Request};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use std::io::Write;
use std::path::Path;

/// Why an upload could not be read.
#[derive(Debug)]
pub enum UploadFailure {
    /// The body is no `multipart/form-data` at all.
    NotAnUpload,
    /// The body broke off: `status` is 413 past the route's limit, 408 for
    /// a body that stopped arriving, 400 for anything else broken;
    /// `detail` is the parser's words.
    Broken { status: StatusCode, detail: String },
}

impl From<MultipartError> for UploadFailure {
    fn from(e: MultipartError) -> UploadFailure {
        let status = if is_body_too_slow(&e) {
            StatusCode::REQUEST_TIMEOUT
        } else if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            StatusCode::PAYLOAD_TOO_LARGE
        } else {
            StatusCode::BAD_REQUEST
        };
        UploadFailure::Broken {
            status,
            detail: e.body_text(),
        }
    }
}

/// Only for axum's bounds: every route takes `Result<Form, UploadFailure>`
/// and words the failure itself.
impl IntoResponse for UploadFailure {
    fn into_response(self) -> Response {
        match self {
            UploadFailure::NotAnUpload => StatusCode::BAD_REQUEST.into_response(),
            UploadFailure::Broken { status, detail } => (status, detail).into_response(),
        }
    }
}

/// One part of a form.
pub struct Part {
    /// The part's name (`file`, `accountId`); empty when it has none.
    pub name: String,
    /// The file name it was sent with; empty when none.
    pub file_name: String,
    content_type: Option<String>,
    pub bytes: Bytes,
}

impl Part {
    /// The part as text, in the charset its content type names (UTF-8 by
    /// default), undecodable bytes replaced.
    pub fn text(&self) -> String {
        let charset = self.content_type.as_deref().and_then(|t| {
            t.split(';').skip(1).find_map(|param| {
                let (name, value) = param.split_once('=')?;
                name.trim()
                    .eq_ignore_ascii_case("charset")
                    .then(|| value.trim().trim_matches('"').to_string())
            })
        });
        let encoding = charset
            .and_then(|c| encoding_rs::Encoding::for_label(c.as_bytes()))
            .unwrap_or(encoding_rs::UTF_8);
        encoding.decode(&self.bytes).0.into_owned()
    }
}

/// Every part of an upload, read whole, in the order sent.
pub struct Form {
    pub parts: Vec<Part>,
}

impl<S: Send + Sync> FromRequest<S> for Form {
    type Rejection = UploadFailure;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let mut body = Parts::from_request(req, state).await?;
        let mut parts = Vec::new();
        while let Some(field) = body.next().await? {
            let name = field.name().unwrap_or_default().to_string();
            let file_name = field.file_name().unwrap_or_default().to_string();
            let content_type = field.content_type().map(str::to_string);
            let bytes = field.bytes().await?;
            parts.push(Part {
                name,
                file_name,
                content_type,
                bytes,
            });
        }
        Ok(Form { parts })
    }
}

/// An upload read part by part.
pub struct Parts(Multipart);

/// Why a part could not be saved.
pub enum SaveFailure {
    Upload(UploadFailure),
    /// The file could not be written.
    Write(std::io::Error),
}

impl From<MultipartError> for SaveFailure {
    fn from(e: MultipartError) -> SaveFailure {
        SaveFailure::Upload(e.into())
    }
}

impl Parts {
    async fn next(&mut self) -> Result<Option<Field<'_>>, UploadFailure> {
        Ok(self.0.next_field().await?)
    }

    /// Writes the part named `name` to the file `path` as it arrives,
    /// never whole into memory (a later part of that name replaces it);
    /// the other parts are passed over. Answers whether there was one;
    /// on a failure the file is gone.
    pub async fn save(mut self, name: &str, path: &Path) -> Result<bool, SaveFailure> {
        let mut saved = false;
        loop {
            let mut field = match self.next().await {
                Ok(Some(f)) => f,
                Ok(None) => return Ok(saved),
                Err(e) => {
                    let _ = std::fs::remove_file(path);
                    return Err(SaveFailure::Upload(e));
                }
            };
            if field.name() != Some(name) {
                continue;
            }
            let mut out = std::fs::File::create(path).map_err(SaveFailure::Write)?;
            loop {
                match field.chunk().await {
                    Ok(Some(chunk)) => {
                        if let Err(e) = out.write_all(&chunk) {
                            let _ = std::fs::remove_file(path);
                            return Err(SaveFailure::Write(e));
                        }
                    }
                    Ok(None) => break,
                    Err(e) => {
                        let _ = std::fs::remove_file(path);
                        return Err(e.into());
                    }
                }
            }
            saved = true;
        }
    }
}

impl<S: Send + Sync> FromRequest<S> for Parts {
    type Rejection = UploadFailure;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        Multipart::from_request(req, state)
            .await
            .map(Parts)
            .map_err(|_| UploadFailure::NotAnUpload)
    }
}
