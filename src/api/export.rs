//! `GET /api/export`: the signed-in user's data as one zip archive
//! (`app::export::write_in_turn`, which keeps exports to one per user and a
//! few in all), built in a temporary file of the data directory and
//! streamed; only its owner's session gets it. A second export of the same
//! user is answered 429 with `Retry-After` until the first has downloaded,
//! one that found no turn 503 busy. See `docs/operations.md`.
//!
//! `GET /api/export/daily-expenses?month=YYYY-MM[&category=ID|none]` and
//! `GET /api/export/search?q=…`: the one-time expenses of a month and a
//! search's hits as one spreadsheet file each, written as the archive's
//! `spreadsheet/` files are (the "spreadsheet" links of those pages).

use super::{error, ApiError};
use crate::app::records::daily_expenses::MonthFilter;
use crate::app::{export, temp_files};
use crate::error::Reason;
use crate::http::session::SessionUser;
use crate::i18n::export::{sheet_words, Sheet};
use crate::state::AppState;
use axum::body::{Body, Bytes};
use axum::extract::{Query, State};
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

#[derive(serde::Deserialize)]
pub struct MonthQuery {
    month: Option<String>,
    category: Option<String>,
}

/// `GET /api/export/daily-expenses`: the month's one-time expenses (this
/// month without `month`), of one category with `category` (`none`: those
/// without one), as a spreadsheet file.
pub async fn daily_expenses(
    State(state): State<AppState>,
    SessionUser(session): SessionUser,
    Query(q): Query<MonthQuery>,
) -> Response {
    let user = &session.user;
    let shown = match MonthFilter::parse(
        q.month.as_deref(),
        q.category.as_deref(),
        state.clock.today(),
    ) {
        Ok(shown) => shown,
        Err(e) => return ApiError::worded(e, user.locale).into_response(),
    };
    let month = shown.first.format("%Y-%m");
    match export::daily_expenses_sheet(&state.db, user, shown).await {
        Ok(csv) => {
            let (name, _) = sheet_words(Sheet::DailyExpenses, user.locale);
            sheet(csv, &format!("{name}-{month}"))
        }
        Err(e) => ApiError::worded(e, user.locale).into_response(),
    }
}

#[derive(serde::Deserialize)]
pub struct SearchQuery {
    q: Option<String>,
}

/// `GET /api/export/search`: the hits of a search, best first, as a
/// spreadsheet file.
pub async fn search(
    State(state): State<AppState>,
    SessionUser(session): SessionUser,
    Query(q): Query<SearchQuery>,
) -> Response {
    let user = &session.user;
    let query = match crate::app::search::query(q.q.as_deref().unwrap_or_default()) {
        Ok(query) => query,
        Err(e) => return ApiError::worded(e, user.locale).into_response(),
    };
    match export::search_sheet(&state.db, user, query, state.clock.today()).await {
        Ok(csv) => sheet(csv, sheet_words(Sheet::Search, user.locale).0),
        Err(e) => ApiError::worded(e, user.locale).into_response(),
    }
}

/// A spreadsheet file as a download named `name.csv`.
fn sheet(csv: Vec<u8>, name: &str) -> Response {
    let mut res = csv.into_response();
    let h = res.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/csv; charset=utf-8"),
    );
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{name}.csv\"")) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}
