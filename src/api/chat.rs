//! `POST /api/chat` (`docs/assistant.md`): the assistant's answer as
//! server-sent events (`Accept: text/event-stream`) or as one JSON reply.
//!
//! Checked in this order: session (401), AI configured (503), at most
//! [`chat::PER_MINUTE`] requests per user in any 60 seconds (429 with
//! `Retry-After`), the body (400 naming the field), the conversation (404
//! for an unknown or another user's id). Once streaming, a failure is an
//! `error` event; a client that goes away cancels the provider's request.
//! The whole answer may take [`crate::services::ai::AiClient::chat_deadline`]: past it, the
//! provider's request is dropped and the person reads why in their
//! language (an `error` event, or a 504).

use super::ai_turn::{AiTurn, AiUse};
use super::error;
use crate::app::assistant::chat::{self, Event};
use crate::auth::rate_limit::SlidingWindow;
use crate::error::AiTask;
use crate::state::AppState;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::Json;
use std::convert::Infallible;
use std::time::Duration;

/// The largest request body.
pub const BODY_LIMIT: usize = 512 * 1024;

/// The chat's use of the AI provider.
pub struct Chat;

impl AiUse for Chat {
    const PER_MINUTE: u32 = chat::PER_MINUTE;
    const OFF_STATUS: StatusCode = StatusCode::SERVICE_UNAVAILABLE;
    const TASK: AiTask = AiTask::Assistant;

    fn window(state: &AppState) -> &SlidingWindow {
        &state.chat_requests
    }
}

pub async fn chat(State(state): State<AppState>, turn: AiTurn<Chat>, req: Request) -> Response {
    let (user, ai) = (turn.session.user, turn.ai);
    let stream = req
        .headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("text/event-stream"));
    let body = match axum::body::to_bytes(req.into_body(), BODY_LIMIT).await {
        Ok(b) => b,
        Err(e) if crate::error::is_body_too_slow(&e) => {
            return error(StatusCode::REQUEST_TIMEOUT, "body: did not arrive in time")
        }
        Err(_) => return error(StatusCode::PAYLOAD_TOO_LARGE, "body: too large"),
    };
    let ask = match chat::parse(&body) {
        Ok(ask) => ask,
        Err(e) => return error(StatusCode::BAD_REQUEST, e.text(user.locale)),
    };
    let started = match chat::start(&state, &user, ask).await {
        Ok(s) => s,
        Err(crate::Error::NotFound) => {
            let e = crate::Error::unknown("conversationId");
            return error(StatusCode::NOT_FOUND, e.text(user.locale));
        }
        Err(e) => {
            tracing::error!(error = ?e, "starting a chat failed");
            return error(StatusCode::INTERNAL_SERVER_ERROR, e.text(user.locale));
        }
    };
    let deadline = ai.chat_deadline();
    let fresh = started.new.then(|| started.conversation_id.clone());
    if !stream {
        let work = chat::answer(&state, &ai, &user, started, false, &|_| {});
        let result = tokio::time::timeout(deadline, work).await;
        if !matches!(result, Ok(Ok(_))) {
            forget(&state, &user, fresh.as_deref()).await;
        }
        let Ok(result) = result else {
            return error(
                StatusCode::GATEWAY_TIMEOUT,
                crate::i18n::assistant::too_long(user.locale, deadline.as_secs()),
            );
        };
        return match result {
            Ok(answer) => Json(answer).into_response(),
            Err(f) => {
                f.log();
                let status = match f {
                    chat::Failure::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
                    chat::Failure::Provider(_) => StatusCode::BAD_GATEWAY,
                };
                error(status, f.message(user.locale))
            }
        };
    }
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<Event>();
    let _ = tx.send(Event::Conversation {
        id: started.conversation_id.clone(),
    });
    tokio::spawn(async move {
        let emit = |e: Event| {
            let _ = tx.send(e);
        };
        let work = chat::answer(&state, &ai, &user, started, true, &emit);
        tokio::select! {
            // The person left: dropping the answer cancels the provider's request.
            _ = tx.closed() => forget(&state, &user, fresh.as_deref()).await,
            result = tokio::time::timeout(deadline, work) => match result {
                Ok(Ok(_)) => {}
                Ok(Err(f)) => {
                    f.log();
                    forget(&state, &user, fresh.as_deref()).await;
                    emit(Event::Error { error: f.message(user.locale) });
                }
                // Past the deadline: the answer (and the provider's
                // request) is dropped, and the stream ends after this.
                Err(_) => {
                    tracing::warn!(seconds = deadline.as_secs(), "a chat answer passed its deadline");
                    forget(&state, &user, fresh.as_deref()).await;
                    emit(Event::Error { error: crate::i18n::assistant::too_long(user.locale, deadline.as_secs()) });
                }
            }
        }
    });
    let events = futures_util::stream::unfold(rx, |mut rx| async move {
        let e = rx.recv().await?;
        let sse = SseEvent::default()
            .event(e.name())
            .data(e.data().to_string());
        Some((Ok::<_, Infallible>(sse), rx))
    });
    let mut res = Sse::new(events)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response();
    // nginx would otherwise hold the words back until its buffer fills.
    res.headers_mut()
        .insert("x-accel-buffering", HeaderValue::from_static("no"));
    res
}

/// Removes the conversation `fresh` this request started, its first
/// answer not having come (`chat::unanswered`).
async fn forget(state: &AppState, user: &crate::store::users::User, fresh: Option<&str>) {
    let Some(id) = fresh else { return };
    if let Err(e) = chat::unanswered(state, user, id).await {
        tracing::error!(error = ?e, "removing an unanswered conversation failed");
    }
}
