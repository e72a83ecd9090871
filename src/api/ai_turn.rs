//! What both AI routes check before they read a byte of the body: a
//! session (401), an AI provider configured (the route's status when it is
//! not), and the user's per-minute limit (429 with `Retry-After`). A route
//! takes [`AiTurn`] with its [`AiUse`] and gets the session and the client.

use super::ApiError;
use crate::auth::rate_limit::SlidingWindow;
use crate::auth::session::Session;
use crate::error::{AiTask, Error, Reason};
use crate::services::ai::AiClient;
use crate::state::AppState;
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use std::marker::PhantomData;

/// One route's use of the AI provider: its limit and its words.
pub trait AiUse: Send + Sync + 'static {
    /// Requests per user in any 60 seconds.
    const PER_MINUTE: u32;
    /// The status when no provider is configured.
    const OFF_STATUS: StatusCode;
    /// What the person asks of the provider: it words the refusals when
    /// no provider is configured and when over the limit, in the user's
    /// language.
    const TASK: AiTask;
    /// The window that counts this route's requests.
    fn window(state: &AppState) -> &SlidingWindow;
    /// A refusal in the route's shape (`{"error"}` unless it says otherwise).
    fn reject(e: ApiError) -> Response {
        e.into_response()
    }
}

/// A request the AI provider may answer: the session and the provider.
pub struct AiTurn<U> {
    pub session: Session,
    pub ai: AiClient,
    route: PhantomData<U>,
}

impl<U: AiUse> axum::extract::FromRequestParts<AppState> for AiTurn<U> {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Response> {
        let session = crate::http::session::of(parts)
            .ok_or_else(|| U::reject(ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized")))?;
        let locale = session.user.locale;
        let words = |reason| Error::refused(reason).text(locale);
        let ai = state.ai.clone().ok_or_else(|| {
            U::reject(ApiError::new(U::OFF_STATUS, words(Reason::AiOff(U::TASK))))
        })?;
        let user = session.user.id.as_str();
        if let Err(wait) = U::window(state).admit(user, U::PER_MINUTE, state.clock.now()) {
            let wait = wait.max(0);
            let busy = Reason::AiBusy {
                task: U::TASK,
                per_minute: U::PER_MINUTE,
                wait,
            };
            return Err(U::reject(ApiError::too_many(words(busy), wait as u64)));
        }
        Ok(AiTurn {
            session,
            ai,
            route: PhantomData,
        })
    }
}
