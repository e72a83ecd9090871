//! The server-action layer: `POST /actions/{name}` with a JSON object body,
//! answered with the envelope `{"success":true,"data":…}` or
//! `{"success":false,"error":"…"}` (`docs/actions.md`).
//!
//! Only seven things are not a 200: a cross-site request (403: not JSON, or
//! sent by another site, see `auth::origin`), an unknown name (404), no
//! session (401), an oversized body (413) or one that stopped arriving
//! (408), and malformed JSON (400), checked in that order, and an internal
//! error (500, with the envelope, so monitoring sees it). Every other refusal is a 200 failure envelope whose
//! message names the field.
//!
//! Each domain module registers its actions in [`catalogue`]; a handler gets
//! a [`Ctx`] (state and session) and its input already deserialized.

pub mod api_tokens;
pub mod assistant;
pub mod auth;
pub mod bank;
pub mod banks;
pub mod budgets;
pub mod dashboard;
pub mod documents;
pub mod forecasts;
pub mod imports;
pub mod insights;
pub mod merchants;
pub mod net_worth;
pub mod records;
pub mod reserves;
pub mod search;
pub mod sessions;
pub mod settings;
pub mod two_factor;

use crate::app::input;
use crate::auth::origin::{self, write_refusal};
use crate::auth::session::Session;
use crate::domain::locale::Locale;
use crate::error::{Error, Reason, Result};
use crate::http::guard::{guard, Door};
use crate::state::AppState;
use crate::store::users::User;
use axum::body::Body;
use axum::extract::{Path, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{post, MethodFilter};
use axum::{Json, Router};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// Body limit of ordinary actions.
pub const BODY_LIMIT: usize = 1024 * 1024;
/// Body limit of the actions that carry files (`uploadDocument`, `stageImport`).
pub const LARGE_BODY_LIMIT: usize = 16 * 1024 * 1024;

/// What a handler sees besides its input.
#[derive(Clone)]
pub struct Ctx {
    pub state: AppState,
    pub session: Option<Session>,
    /// The browser's preferred language, for users not yet signed in.
    pub accept_locale: Locale,
    /// The client's address, for the per-client sign-in limit.
    pub client: Option<std::net::IpAddr>,
    /// The browser's `User-Agent`, kept with a new session.
    pub user_agent: String,
    /// The browser's known-browser cookie (`auth::session::KNOWN_COOKIE`).
    pub known_browser: Option<String>,
}

impl Ctx {
    /// The signed-in user. The dispatcher already refused anonymous calls to
    /// session actions, so this fails only for public ones.
    pub fn user(&self) -> Result<&User> {
        self.session
            .as_ref()
            .map(|s| &s.user)
            .ok_or(Error::Unauthorized)
    }

    pub fn user_id(&self) -> Result<crate::store::users::UserId> {
        Ok(self.user()?.id.clone())
    }

    /// Who asks, as the sign-in use cases see it.
    pub fn client(&self) -> crate::app::sign_in::Client<'_> {
        crate::app::sign_in::Client {
            address: self.client,
            user_agent: &self.user_agent,
            known_browser: self.known_browser.as_deref(),
            session: self.session.as_ref(),
        }
    }
}

/// The input of actions that take none: any JSON object.
#[derive(serde::Deserialize)]
pub struct NoInput {}

/// A successful action's reply: its data, and a cookie to set if any.
pub struct Reply {
    /// Serialized once, as the handler's types say (amounts keep two decimals).
    pub data: Box<serde_json::value::RawValue>,
    pub set_cookies: Vec<String>,
}

impl Reply {
    pub fn data(data: impl Serialize) -> Result<Reply> {
        Ok(Reply {
            data: serde_json::value::to_raw_value(&data).map_err(|e| Error::Internal(e.into()))?,
            set_cookies: Vec::new(),
        })
    }

    pub fn with_cookie(mut self, cookie: String) -> Reply {
        self.set_cookies.push(cookie);
        self
    }
}

type BoxFuture = Pin<Box<dyn Future<Output = Result<Reply>> + Send>>;
type Handler = Arc<dyn Fn(Ctx, Value) -> BoxFuture + Send + Sync>;

pub struct Action {
    /// Callable without a session (sign-in actions only).
    pub public: bool,
    pub body_limit: usize,
    run: Handler,
    decode: Arc<dyn Fn(Value) -> Result<()> + Send + Sync>,
}

impl Action {
    /// Decodes `input` as this action's input type without running it: the
    /// same field errors the action would answer (fuzzing, previews).
    pub fn decode(&self, input: Value) -> Result<()> {
        (self.decode)(input)
    }

    /// Runs the action as `POST /actions/{name}` would (the caller has
    /// checked the session) and answers its data as JSON: for a page that
    /// shows what an action reads, relying only on the action's contract.
    pub async fn call(&self, ctx: Ctx, input: Value) -> Result<Value> {
        let reply = (self.run)(ctx, input).await?;
        serde_json::from_str(reply.data.get()).map_err(|e| Error::Internal(e.into()))
    }
}

/// Every action by name.
#[derive(Default)]
pub struct Registry {
    actions: HashMap<&'static str, Action>,
}

impl Registry {
    fn add<I, F, Fut>(
        &mut self,
        name: &'static str,
        public: bool,
        body_limit: usize,
        decode: fn(Value) -> Result<I>,
        f: F,
    ) where
        I: Send + 'static,
        F: Fn(Ctx, I) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Reply>> + Send + 'static,
    {
        let f = Arc::new(f);
        let run: Handler = Arc::new(move |ctx, value| {
            let f = f.clone();
            Box::pin(async move { f(ctx, decode(value)?).await })
        });
        let previous = self.actions.insert(
            name,
            Action {
                public,
                body_limit,
                run,
                decode: Arc::new(move |v| decode(v).map(drop)),
            },
        );
        assert!(previous.is_none(), "action {name} registered twice");
    }

    /// An action that needs a session.
    pub fn session<I, F, Fut>(&mut self, name: &'static str, f: F)
    where
        I: DeserializeOwned + Send + 'static,
        F: Fn(Ctx, I) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Reply>> + Send + 'static,
    {
        self.add(name, false, BODY_LIMIT, input::decode::<I>, f);
    }

    /// A session action that carries a file (16 MiB body limit).
    pub fn session_large<I, F, Fut>(&mut self, name: &'static str, f: F)
    where
        I: DeserializeOwned + Send + 'static,
        F: Fn(Ctx, I) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Reply>> + Send + 'static,
    {
        self.add(name, false, LARGE_BODY_LIMIT, input::decode::<I>, f);
    }

    /// An action anyone may call (sign-in).
    pub fn public<I, F, Fut>(&mut self, name: &'static str, f: F)
    where
        I: DeserializeOwned + Send + 'static,
        F: Fn(Ctx, I) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Reply>> + Send + 'static,
    {
        self.add(name, true, BODY_LIMIT, input::decode::<I>, f);
    }

    /// A session action whose input `decode` reads from the JSON body,
    /// naming the field of any failure as serde's decoding does (a
    /// record's update: its `id` and the kind's fields).
    pub fn session_read<I, F, Fut>(
        &mut self,
        name: &'static str,
        decode: fn(Value) -> Result<I>,
        f: F,
    ) where
        I: Send + 'static,
        F: Fn(Ctx, I) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Reply>> + Send + 'static,
    {
        self.add(name, false, BODY_LIMIT, decode, f);
    }

    pub fn get(&self, name: &str) -> Option<&Action> {
        self.actions.get(name)
    }

    pub fn names(&self) -> impl Iterator<Item = &&'static str> {
        self.actions.keys()
    }
}

/// The catalogue, built once.
pub fn catalogue() -> &'static Registry {
    static CATALOGUE: std::sync::OnceLock<Registry> = std::sync::OnceLock::new();
    CATALOGUE.get_or_init(registry)
}

fn registry() -> Registry {
    let mut r = Registry::default();
    auth::register(&mut r);
    two_factor::register(&mut r);
    sessions::register(&mut r);
    settings::register(&mut r);
    records::register(&mut r);
    documents::register(&mut r);
    dashboard::register(&mut r);
    budgets::register(&mut r);
    merchants::register(&mut r);
    search::register(&mut r);
    api_tokens::register(&mut r);
    bank::register(&mut r);
    forecasts::register(&mut r);
    net_worth::register(&mut r);
    reserves::register(&mut r);
    insights::register(&mut r);
    assistant::register(&mut r);
    imports::register(&mut r);
    banks::register(&mut r);
    r
}

/// The envelope for a failure, at `status`.
pub fn failure(status: StatusCode, message: impl Into<String>) -> Response {
    let message = message.into();
    crate::error::note(|| message.clone());
    (status, Json(json!({ "success": false, "error": message }))).into_response()
}

/// Routes of the action layer.
pub fn router(panic_routes: bool) -> Router<AppState> {
    let door = Door {
        name: "an action handler",
        test_route: "/actions/__panic",
        test_method: MethodFilter::POST,
        reply: || failure(StatusCode::INTERNAL_SERVER_ERROR, "internal error"),
    };
    guard(
        Router::new().route("/actions/{name}", post(dispatch)),
        door,
        panic_routes,
    )
}

async fn dispatch(
    State(state): State<AppState>,
    Path(name): Path<String>,
    req: Request,
) -> Response {
    let (parts, body) = req.into_parts();
    if let Some(why) = write_refusal(&state.config, &parts.headers, origin::Body::Json) {
        return failure(StatusCode::FORBIDDEN, why);
    }
    let Some(action) = catalogue().get(&name) else {
        return failure(StatusCode::NOT_FOUND, format!("unknown action: {name}"));
    };
    let (public, body_limit, run) = (action.public, action.body_limit, action.run.clone());
    let session = crate::http::session::of(&parts);
    if !public && session.is_none() {
        return failure(StatusCode::UNAUTHORIZED, "unauthorized");
    }
    let accept_locale = Locale::from_accept_language(
        parts
            .headers
            .get(header::ACCEPT_LANGUAGE)
            .and_then(|v| v.to_str().ok()),
    );
    let locale = session.as_ref().map_or(accept_locale, |s| s.user.locale);
    let body = match read_body(body, &parts.headers, body_limit, locale).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let input = if body.iter().all(u8::is_ascii_whitespace) {
        Value::Object(Default::default())
    } else {
        match serde_json::from_slice::<Value>(&body) {
            Ok(v) => v,
            Err(e) => {
                return failure(
                    StatusCode::BAD_REQUEST,
                    format!("body: malformed JSON ({e})"),
                )
            }
        }
    };
    if !input.is_object() {
        return failure(StatusCode::OK, "body: must be a JSON object");
    }
    let mut input = input;
    if let Err(message) = read_localized(&mut input, locale) {
        return failure(StatusCode::OK, message);
    }
    let peer = parts
        .extensions
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map(|c| c.0.ip());
    let ctx = Ctx {
        client: crate::auth::client::address(peer, &parts.headers, &state.config.trusted_proxies),
        user_agent: parts
            .headers
            .get(header::USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string(),
        known_browser: crate::auth::session::cookie_value(
            &parts.headers,
            crate::auth::session::KNOWN_COOKIE,
        )
        .map(str::to_string),
        accept_locale,
        state,
        session,
    };
    match run(ctx, input).await {
        Ok(reply) => {
            #[derive(Serialize)]
            struct Success<'a> {
                success: bool,
                data: &'a serde_json::value::RawValue,
            }
            let mut res = Json(Success {
                success: true,
                data: &reply.data,
            })
            .into_response();
            for cookie in reply
                .set_cookies
                .iter()
                .filter_map(|c| HeaderValue::from_str(c).ok())
            {
                res.headers_mut().append(header::SET_COOKIE, cookie);
            }
            res
        }
        Err(e) => {
            e.log();
            let status = match e {
                Error::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
                Error::Busy(_) => StatusCode::SERVICE_UNAVAILABLE,
                _ => StatusCode::OK,
            };
            let message = e.text(locale);
            let mut res = match &e {
                // Every field error of the form, each as `error` would be.
                Error::Several(all) => {
                    let errors: Vec<String> = all.iter().map(|e| e.text(locale)).collect();
                    (
                        status,
                        Json(json!({ "success": false, "error": message, "errors": errors })),
                    )
                        .into_response()
                }
                _ => match e.settled() {
                    // A proposal settled already: its state and record
                    // beside the words (`docs/actions.md`).
                    Some((state, record)) => (
                        status,
                        Json(json!({
                            "success": false, "error": message,
                            "state": state, "recordId": record,
                        })),
                    )
                        .into_response(),
                    None => failure(status, message),
                },
            };
            if e.is_busy() {
                res.headers_mut().insert(
                    header::RETRY_AFTER,
                    HeaderValue::from(crate::error::RETRY_AFTER_BUSY),
                );
            }
            res
        }
    }
}

/// The pages send amount fields as typed and name them in `_localized`
/// (`assets/app.js`): they are read here in the user's style
/// (`i18n::amount`) and reach the action as canonical numbers. Callers of
/// the API send canonical numbers and no `_localized`.
fn read_localized(input: &mut Value, locale: Locale) -> Result<(), String> {
    let Some(fields) = input.as_object_mut() else {
        return Ok(());
    };
    let Some(names) = fields.remove("_localized") else {
        return Ok(());
    };
    let Some(names) = names.as_array() else {
        return Err("_localized: must be a list of field names".into());
    };
    for name in names.iter().filter_map(Value::as_str) {
        let Some(Value::String(raw)) = fields.get(name) else {
            continue;
        };
        match crate::i18n::amount::parse(raw, locale) {
            Ok(amount) => {
                fields.insert(name.to_string(), Value::String(amount.to_string()));
            }
            // Left as it is: the action says whether it may be empty.
            Err(crate::i18n::amount::AmountError::Empty) => {}
            Err(e) => return Err(format!("{name}: {}", e.message(locale))),
        }
    }
    Ok(())
}

/// Reads the body up to `limit` bytes; beyond it, 413; one that stops
/// arriving before its end, 408; both in `locale`'s words.
async fn read_body(
    body: Body,
    headers: &HeaderMap,
    limit: usize,
    locale: Locale,
) -> Result<Vec<u8>, Response> {
    let too_large = || {
        failure(
            StatusCode::PAYLOAD_TOO_LARGE,
            Error::invalid("body", Reason::BodyTooLarge(limit / (1024 * 1024))).text(locale),
        )
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(too_large());
    }
    match axum::body::to_bytes(body, limit).await {
        Ok(b) => Ok(b.to_vec()),
        // A body that stopped coming is late, not large.
        Err(e) if crate::error::is_body_too_slow(&e) => Err(failure(
            StatusCode::REQUEST_TIMEOUT,
            Error::invalid("body", Reason::BodyLate).text(locale),
        )),
        Err(_) => Err(too_large()),
    }
}

/// Deserializes a JSON number or decimal string as text, so amounts reach
/// the domain's decimal parser without passing through a float.
pub mod number_or_string {
    use serde::{Deserialize, Deserializer};

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum NumOrStr {
            Num(serde_json::Number),
            Str(String),
        }
        Ok(match NumOrStr::deserialize(d)? {
            NumOrStr::Num(n) => n.to_string(),
            NumOrStr::Str(s) => s,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Input {
        email: String,
        count: Option<u32>,
    }

    #[test]
    fn a_missing_field_is_named() {
        let err = crate::app::input::decode::<Input>(json!({})).unwrap_err();
        assert_eq!(err.to_string(), "email: is required");
    }

    #[test]
    fn a_wrong_type_is_named() {
        let err = crate::app::input::decode::<Input>(json!({"email": 5})).unwrap_err();
        assert_eq!(err.to_string(), "email: must be text");
        let err =
            crate::app::input::decode::<Input>(json!({"email": "a", "count": "x"})).unwrap_err();
        assert_eq!(err.to_string(), "count: must be a whole number");
    }

    #[test]
    fn the_catalogue_has_the_sign_in_actions() {
        let r = catalogue();
        for name in ["register", "login", "forgotPassword", "resetPassword"] {
            assert!(r.get(name).unwrap().public, "{name}");
        }
        for name in ["logout", "getSettings", "updateSettings", "changePassword"] {
            assert!(!r.get(name).unwrap().public, "{name}");
        }
    }
}
