//! Static assets, embedded in the binary. Pages link them as
//! `/assets/NAME?v=HASH`; such a URL never changes content, so it is cached
//! for a year, and any other request revalidates with the ETag.

use axum::extract::{Path, Query};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use rust_embed::RustEmbed;
use serde::Deserialize;
use std::collections::HashMap;
use std::sync::OnceLock;

#[derive(RustEmbed)]
#[folder = "assets/"]
struct Assets;

/// The content hash of each asset: 16 hex digits of its SHA-256.
fn hashes() -> &'static HashMap<String, String> {
    static HASHES: OnceLock<HashMap<String, String>> = OnceLock::new();
    HASHES.get_or_init(|| {
        Assets::iter()
            .filter_map(|name| {
                let file = Assets::get(&name)?;
                let hash = hex::encode(file.metadata.sha256_hash());
                Some((name.to_string(), hash[..16].to_string()))
            })
            .collect()
    })
}

/// The cache-busting URL of an embedded asset.
pub fn url(name: &str) -> String {
    match hashes().get(name) {
        Some(h) => format!("/assets/{name}?v={h}"),
        None => format!("/assets/{name}"),
    }
}

#[derive(Deserialize)]
pub struct Version {
    v: Option<String>,
}

pub async fn serve(
    Path(path): Path<String>,
    Query(q): Query<Version>,
    headers: HeaderMap,
) -> Response {
    let (Some(file), Some(hash)) = (Assets::get(&path), hashes().get(&path)) else {
        return (StatusCode::NOT_FOUND, "not found").into_response();
    };
    let etag = format!("\"{hash}\"");
    let cache = if q.v.as_deref() == Some(hash.as_str()) {
        "public, max-age=31536000, immutable"
    } else {
        "no-cache"
    };
    let mut res = if headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag))
    {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let mime = file.metadata.mimetype().to_string();
        let mut r = file.data.into_owned().into_response();
        if let Ok(v) = HeaderValue::from_str(&mime) {
            r.headers_mut().insert(header::CONTENT_TYPE, v);
        }
        r
    };
    let h = res.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    if let Ok(v) = HeaderValue::from_str(&etag) {
        h.insert(header::ETAG, v);
    }
    res
}

/// `GET /sw.js`: the service worker, served from the root so it may control
/// every page (and receive pushes for the whole site).
pub async fn service_worker() -> Response {
    let Some(file) = Assets::get("sw.js") else {
        return (StatusCode::NOT_FOUND, "not found").into_response();
    };
    let mut r = file.data.into_owned().into_response();
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/javascript; charset=utf-8"),
    );
    h.insert("service-worker-allowed", HeaderValue::from_static("/"));
    // Browsers check a service worker for updates themselves; never cache it long.
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
}
